// Tests of the code generated for tests/schemas/feats.yaml: the schema
// features that ASB brought in (commit adf712b). Each test checks the bytes
// the writer lays out and what the reader makes of them, not just that a
// model survives a round trip: context fields, pool-relative strings, shared
// and scoped block pools, null_value, union cases that point to structs,
// tag_shift, string bit fields, inline string arrays, pointers under if: and
// at variable offsets, arrays sharing a count, max() / count(a.b) / path
// hashes, and decode errors on corrupt and truncated files.
#define BOOST_TEST_MODULE features_test
#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

#include "binschema/hash.h"
#include "binschema/reader.h"
#include "bytes.h"
#include "feats_text.h"

using namespace binschema::feats;
using Rd = binschema::Reader<std::endian::little>;

namespace {

// Header offsets (Head, version 2: extra's pointer at 0x1c, items from 0x20).
constexpr uint32_t kPoolOffset = 0x4, kName = 0x8, kTail = 0xc, kBlob = 0x10, kExtraRefCount = 0x14,
                   kItemCount = 0x18, kExtra = 0x1c, kItems = 0x20;

Box full_box() {
  Box b;
  b.word.name = "bbname";
  b.word.idx = 3;
  b.word.has = true;
  b.opt = 0x55;
  b.refs.resize(2);
  b.refs[0].value = PI{0, -5};
  b.refs[1].value = PS{.value = "str", .flags = 0x80000001};
  b.files = {File{"a/b/c.bfres"}, File{"d.x.y"}};
  b.nums = {9, 8};
  return b;
}

// A Box with every bit field at its default, no refs and one file.
Box small_box() {
  Box b;
  b.word.name = "b2";
  b.files = {File{"f"}};
  return b;
}

Group g1() {
  Group g;
  g.tags = {"t1", "t2"};
  return g;
}

Head sample() {
  Head h;
  h.version = 2;
  h.name = "file";
  h.tail.v = 0x7a11;
  h.blob.data.data = {1, 2, 3};
  BodyA a;
  a.x = 1.5f;
  a.as = {Ref{1}, Ref{2}};
  a.bs = {Ref{3}};
  a.slots = {10, 11, 12};  // max(as, node + 1) = 3
  a.d = Ref{4};
  a.v2only = 7;
  Item i0;
  i0.body = a;
  i0.tags = g1();
  Item i1;
  i1.body = Empty{};
  i1.tags = g1();  // equal to i0's: stored once
  i1.tags2 = Group{{"z"}};
  h.items = {i0, i1};
  h.extra = full_box();
  h.boxes = {full_box(), small_box()};
  return h;
}

// The same file without what version 2 adds.
Head sample_v1() {
  Head h = sample();
  h.version = 1;
  h.extra = Box{};
  std::get<BodyA>(h.items[0].body).v2only = 0;
  return h;
}

// The message of the EncodeError encoding `h` gives ("" when it encodes).
std::string encode_error_of(const Head& h) {
  try {
    encode(h);
  } catch (const binschema::EncodeError& e) {
    return e.what();
  }
  return "";
}

std::string decode_error(const std::vector<uint8_t>& bytes) {
  return decode_error_of([](const std::vector<uint8_t>& b) { return decode(b); }, bytes);
}

void put32(std::vector<uint8_t>& b, size_t at, uint32_t v) {
  for (int i = 0; i < 4; ++i) b[at + i] = static_cast<uint8_t>(v >> (8 * i));
}

}  // namespace

BOOST_AUTO_TEST_SUITE(generated_feats)

BOOST_AUTO_TEST_CASE(model_write_read_gives_the_model_back) {
  for (const Head& h : {sample(), sample_v1()}) {
    auto bytes = encode(h);
    Head back = decode(bytes);
    BOOST_TEST((back == h));
    BOOST_TEST((encode(back) == bytes));
  }
}

BOOST_AUTO_TEST_CASE(text_round_trip_and_bit_defaults) {
  const Head h = sample();
  for (auto kind : {binschema::TextKind::Yaml, binschema::TextKind::Json}) {
    Head back = from_text(to_text(h, kind));
    BOOST_TEST((back == h));
  }
  // Bit fields equal to their default: are left out of the text.
  Head only_small;
  only_small.version = 1;
  only_small.boxes = {small_box()};
  std::string yaml = to_text(only_small, binschema::TextKind::Yaml);
  BOOST_TEST(yaml.find("name: b2") != std::string::npos);
  BOOST_TEST(yaml.find("idx") == std::string::npos);
  BOOST_TEST(yaml.find("has") == std::string::npos);
  BOOST_TEST(yaml.find("unk") == std::string::npos);
  yaml = to_text(sample(), binschema::TextKind::Yaml);
  BOOST_TEST(yaml.find("idx: 3") != std::string::npos);
  BOOST_TEST(yaml.find("has: true") != std::string::npos);
  BOOST_TEST(yaml.find("tags2: ~") != std::string::npos);  // null_value: absent
}

// pools.strings has base: pool_offset: every string offset, the inline
// arrays', the bit fields' and the block pools' included, counts from the
// pool's start, which the header holds.
BOOST_AUTO_TEST_CASE(string_offsets_are_relative_to_the_pool) {
  auto bytes = encode(sample());
  Rd r(bytes);
  const uint32_t pool = r.at<uint32_t>(kPoolOffset);
  BOOST_TEST(pool > kItems);
  BOOST_TEST(r.at<uint32_t>(kName) == 0u);  // "file" is the first string used
  BOOST_TEST(r.cstring(pool) == "file");
  // First-use order, in write order: a block pool's strings enter the pool
  // where the block is referenced, not where the pool is placed. The items
  // (inline in Head) reference their groups before any box is written, so
  // {t1, t2} then {z} come right after "file\0": t1 at 5, t2 at 8, z at 11.
  const uint32_t tags0 = r.at<uint32_t>(kItems + 8), z = r.at<uint32_t>(kItems + 0x10 + 0xc);
  BOOST_TEST(r.at<uint32_t>(tags0 + 4) == 5u);
  BOOST_TEST(r.at<uint32_t>(tags0 + 8) == 8u);
  BOOST_TEST(r.at<uint32_t>(z + 4) == 11u);
  BOOST_TEST(r.cstring(pool + 5) == "t1");
  BOOST_TEST(r.cstring(pool + 8) == "t2");
  BOOST_TEST(r.cstring(pool + 11) == "z");
  // Then box 0 (extra holds equal strings, placed later): its word name at 13,
  // after "file\0t1\0t2\0z\0".
  const uint32_t extra = r.at<uint32_t>(kExtra);
  BOOST_TEST((r.at<uint32_t>(extra + 4) & 0x3fffff) == 13u);
  BOOST_TEST(r.cstring(pool + 13) == "bbname");
  // refs[1] points at a PS in the box's vals pool: its string enters at the
  // reference, before the files that follow refs, not when vals is placed
  // after the box.
  BOOST_TEST(r.cstring(pool + 13 + 7) == "str");
  BOOST_TEST(r.cstring(pool + 13 + 7 + 4) == "a/b/c.bfres");
  // The pool ends the file: the strings pools last, box 1's "f" the last string used.
  BOOST_TEST(bytes.back() == 0u);
  BOOST_TEST(std::string(bytes.end() - 2, bytes.end() - 1) == "f");
  // The reader adds pool_offset: moving it one byte on shifts every string.
  auto moved = bytes;
  put32(moved, kPoolOffset, pool + 1);
  Head back = decode(moved);
  BOOST_TEST(back.name == "ile");
  BOOST_TEST(back.extra.word.name == "bname");
}

// context: [version, tail]: version decides fields in nested structs (an
// if: in BodyA), and tail's raw offset ends Blob's bytes (until(tail)).
BOOST_AUTO_TEST_CASE(context_fields_reach_nested_structs) {
  auto v2 = encode(sample());
  auto v1 = encode(sample_v1());
  Rd r2(v2), r1(v1);
  // Head: the if:'d pointer 'extra' is absent in version 1, so the items
  // start 4 bytes earlier.
  BOOST_TEST(r2.at<uint32_t>(kItems) == 1u);       // items[0].kind
  BOOST_TEST(r1.at<uint32_t>(kExtra) == 1u);       // items[0].kind, one slot earlier
  BOOST_TEST(r1.at<uint32_t>(kItems) != 1u);
  // BodyA (x, na, nb, pad, as[2], bs[1], slots[3], d, v2only): v2only follows d in version 2 only.
  const uint32_t body2 = r2.at<uint32_t>(kItems + 4), body1 = r1.at<uint32_t>(kExtra + 4);
  BOOST_TEST(r2.at<float>(body2) == 1.5f);
  BOOST_TEST(r2.at<uint32_t>(body2 + 0x24) == 7u);  // v2only
  const uint32_t d2 = r2.at<uint32_t>(body2 + 0x20), d1 = r1.at<uint32_t>(body1 + 0x20);
  BOOST_TEST(r2.at<uint32_t>(d2) == 4u);
  BOOST_TEST(r1.at<uint32_t>(d1) == 4u);
  // The pointer tables' targets follow the struct: 0x28 bytes in version 2, 0x24 in version 1.
  BOOST_TEST(r2.at<uint32_t>(body2 + 8) == body2 + 0x28);
  BOOST_TEST(r1.at<uint32_t>(body1 + 8) == body1 + 0x24);
  BOOST_TEST(v1.size() < v2.size());

  // The writer refuses what an if: leaves out.
  Head h = sample_v1();
  h.extra = small_box();
  BOOST_TEST(encode_error_of(h) == "Head.extra: not stored when version >= 2 is false");
  h = sample_v1();
  std::get<BodyA>(h.items[0].body).v2only = 7;
  BOOST_TEST(encode_error_of(h) == "BodyA.v2only: not stored when version >= 2 is false");
}

BOOST_AUTO_TEST_CASE(context_pointer_gives_its_raw_offset) {
  auto bytes = encode(sample());
  Rd r(bytes);
  const uint32_t blob = r.at<uint32_t>(kBlob), tail = r.at<uint32_t>(kTail);
  // layout [..., blob, tail]: tail (align: 1) right after Blob's 3 bytes.
  BOOST_TEST(tail == blob + 3);
  BOOST_TEST(r.at<uint8_t>(blob + 2) == 3u);
  BOOST_TEST(r.at<uint32_t>(tail) == 0x7a11u);
  // Blob's size is until(tail): moving the tail pointer back a byte shortens it.
  auto moved = bytes;
  put32(moved, kTail, tail - 1);
  Head back = decode(moved);
  BOOST_TEST((back.blob.data.data == std::vector<uint8_t>{1, 2}));
  BOOST_TEST(back.tail.v == 0x7a1103u);
  // A tail before the blob: the blob would end before it starts.
  put32(moved, kTail, blob - 1);
  BOOST_TEST(decode_error(moved).find("blob: block at " + binschema::hex(blob) + " would end at") == 0);
}

// groups: kind: block, type: Group: equal groups are stored once, in
// first-use order, where 'pool groups' sits in Head's layout.
BOOST_AUTO_TEST_CASE(shared_block_pool_stores_equal_blocks_once) {
  auto bytes = encode(sample());
  Rd r(bytes);
  const uint32_t pool = r.at<uint32_t>(kPoolOffset);
  const uint32_t tags0 = r.at<uint32_t>(kItems + 8), tags1 = r.at<uint32_t>(kItems + 0x10 + 8);
  BOOST_TEST(tags0 == tags1);  // both items' {t1, t2}
  // The group: n, then an inline array of pool-relative string offsets.
  BOOST_TEST(r.at<uint32_t>(tags0) == 2u);
  BOOST_TEST(r.cstring(pool + r.at<uint32_t>(tags0 + 4)) == "t1");
  BOOST_TEST(r.cstring(pool + r.at<uint32_t>(tags0 + 8)) == "t2");
  // {z} comes next, first used after {t1, t2}.
  const uint32_t z = r.at<uint32_t>(kItems + 0x10 + 0xc);
  BOOST_TEST(z == tags0 + 0xc);
  BOOST_TEST(r.at<uint32_t>(z) == 1u);
  BOOST_TEST(r.cstring(pool + r.at<uint32_t>(z + 4)) == "z");
  // layout [children items, boxes, pool groups, extra, ...]: after the last box, before extra.
  const uint32_t last_box = r.at<uint32_t>(kItems + 2 * 0x10 + 4 + 4);
  BOOST_TEST(tags0 == last_box + 0x14);  // small_box(): count, word, one File
  BOOST_TEST(r.at<uint32_t>(kExtra) == z + 8);
  // Decoding gives each item its own copy.
  Head back = decode(bytes);
  BOOST_TEST((back.items[0].tags == g1()));
  BOOST_TEST((back.items[1].tags == g1()));
}

BOOST_AUTO_TEST_CASE(null_value_marks_an_absent_target) {
  Head h = sample();
  h.items[1].tags.reset();
  auto bytes = encode(h);
  Rd r(bytes);
  BOOST_TEST(r.at<uint32_t>(kItems + 0xc) == 0xffffffffu);         // items[0].tags2: null_value
  BOOST_TEST(r.at<uint32_t>(kItems + 0x10 + 8) == 0u);             // items[1].tags: plain nullable
  BOOST_TEST(r.at<uint32_t>(kItems + 0x10 + 0xc) != 0xffffffffu);  // items[1].tags2 is there
  Head back = decode(bytes);
  BOOST_TEST(!back.items[0].tags2.has_value());
  BOOST_TEST(back.items[0].tags.has_value());
  BOOST_TEST(!back.items[1].tags.has_value());
  BOOST_TEST(back.items[1].tags2.has_value());
  // 0xFFFFFFFF is 'absent' only where null_value says so: as items[1].tags it is a target out of the file.
  auto bad = bytes;
  put32(bad, kItems + 0x10 + 8, 0xffffffff);
  BOOST_TEST(decode_error(bad).find("items[1].tags: ") == 0);
}

// Item.body: tag kind, cases that point to BodyA and to the empty struct Empty.
BOOST_AUTO_TEST_CASE(union_cases_point_to_structs) {
  auto bytes = encode(sample());
  Rd r(bytes);
  BOOST_TEST(r.at<uint32_t>(kItems) == 1u);
  const uint32_t body = r.at<uint32_t>(kItems + 4);
  BOOST_TEST(body == kItems + 2 * 0x10 + 4 + 2 * 4);  // after the items, box_count and boxes' pointer table
  BOOST_TEST(r.at<float>(body) == 1.5f);
  BOOST_TEST(r.at<uint32_t>(kItems + 0x10) == 2u);
  // The empty struct takes no bytes: its pointer is where the next block, the first box, starts.
  const uint32_t empty = r.at<uint32_t>(kItems + 0x10 + 4);
  const uint32_t box0 = r.at<uint32_t>(kItems + 2 * 0x10 + 4);
  BOOST_TEST(empty == box0);
  Head back = decode(bytes);
  BOOST_TEST(std::holds_alternative<Empty>(back.items[1].body));
  // An unknown kind names the union and where it is.
  auto bad = bytes;
  put32(bad, kItems + 0x10, 3);
  BOOST_TEST(decode_error(bad) == "items[1].body: kind 3 is not a supported case (known: 1 a, 2 none) (at " +
                                      binschema::hex(kItems + 0x14) + ")");
}

// PRef.value: tag_shift 24, cases that point into Box's own vals pool.
BOOST_AUTO_TEST_CASE(tag_shift_keeps_the_tag_in_the_pointer_word) {
  auto bytes = encode(sample());
  Rd r(bytes);
  const uint32_t box = r.at<uint32_t>(kItems + 2 * 0x10 + 4);
  const uint32_t w0 = r.at<uint32_t>(box + 8), w1 = r.at<uint32_t>(box + 12);
  BOOST_TEST((w0 >> 24) == 0x10u);  // i: PI
  BOOST_TEST((w1 >> 24) == 0x40u);  // s: PS
  const uint32_t pi = w0 & 0xffffff, ps = w1 & 0xffffff;
  BOOST_TEST(r.at<uint32_t>(pi) == 0u);
  BOOST_TEST(r.at<int32_t>(pi + 4) == -5);
  BOOST_TEST(r.at<uint32_t>(ps) == 0x80000001u);
  BOOST_TEST(r.cstring(r.at<uint32_t>(kPoolOffset) + r.at<uint32_t>(ps + 4)) == "str");
  // vals is scoped to Box and not shared: its blocks follow the box (layout
  // [pool vals]) in reference order, and every box has its own.
  BOOST_TEST(pi == box + 0x34);  // count, word, 2 refs, 2 Files, 2 nums, opt
  BOOST_TEST(ps == pi + 8);
  const uint32_t extra = r.at<uint32_t>(kExtra);
  BOOST_TEST((r.at<uint32_t>(extra + 8) & 0xffffff) == extra + 0x34);
  BOOST_TEST((r.at<uint32_t>(extra + 12) & 0xffffff) == extra + 0x3c);
}

BOOST_AUTO_TEST_CASE(corrupt_tag_names_the_field_and_offset) {
  auto bytes = encode(sample());
  Rd r(bytes);
  const uint32_t box = r.at<uint32_t>(kItems + 2 * 0x10 + 4);
  auto bad = bytes;
  bad[box + 12 + 3] = 0x20;  // refs[1]'s tag byte (little-endian: the word's last byte)
  BOOST_TEST(decode_error(bad) ==
             "boxes[0].refs[1].value: tag 0x20 (bits 24 and up) is not a supported case (known: 16 i, 64 s) (at " +
                 binschema::hex(box + 12) + ")");
  // A good tag with an offset out of the file.
  bad = bytes;
  put32(bad, box + 8, 0x10ffffff);
  BOOST_TEST(decode_error(bad).find("boxes[0].refs[0].value.i: ") == 0);
}

// Box.word: a 22-bit pool-relative string offset, 2 + 7 integer bits and a bool.
BOOST_AUTO_TEST_CASE(string_bit_field_word) {
  auto bytes = encode(sample());
  Rd r(bytes);
  const uint32_t pool = r.at<uint32_t>(kPoolOffset);
  const uint32_t box0 = r.at<uint32_t>(kItems + 2 * 0x10 + 4), box1 = r.at<uint32_t>(kItems + 2 * 0x10 + 8);
  // "bbname", after "file\0t1\0t2\0z\0": the items' tag groups, referenced
  // before the boxes are written, enter their names into the pool first.
  const uint32_t name_off = 13;
  BOOST_TEST(r.at<uint32_t>(box0 + 4) == (name_off | 3u << 24 | 1u << 31));
  const uint32_t w1 = r.at<uint32_t>(box1 + 4);
  BOOST_TEST((w1 >> 22) == 0u);  // unk, idx, has at their defaults
  BOOST_TEST(r.cstring(pool + w1) == "b2");
  // A value that does not fit its bits is refused.
  Head h = sample();
  h.boxes[1].word.idx = 128;
  BOOST_TEST(encode_error_of(h) == "Box.word.idx: value 128 does not fit in 7 bits");
}

// Box.opt has if: word.has (FIELD.BIT).
BOOST_AUTO_TEST_CASE(bit_field_in_an_expression) {
  auto bytes = encode(sample());
  Rd r(bytes);
  const uint32_t box0 = r.at<uint32_t>(kItems + 2 * 0x10 + 4), box1 = r.at<uint32_t>(kItems + 2 * 0x10 + 8);
  BOOST_TEST(r.at<uint32_t>(box0 + 0x30) == 0x55u);  // opt, after count, word, refs, files, nums
  // small_box() has has = false: no opt, so the groups follow its one File directly.
  BOOST_TEST(r.at<uint32_t>(kItems + 8) == box1 + 8 + 0xc);
  Head h = sample();
  h.boxes[1].opt = 1;
  BOOST_TEST(encode_error_of(h) == "Box.opt: not stored when word.has is false");
  // Clearing the bit in the file drops opt: the next 4 bytes (the vals) are not read as it.
  auto bad = bytes;
  bad[box0 + 7] &= 0x7f;
  BOOST_TEST(decode(bad).boxes[0].opt == 0u);
}

// Box.refs and Box.nums both have count: count.
BOOST_AUTO_TEST_CASE(arrays_sharing_a_count_must_agree) {
  auto bytes = encode(sample());
  Rd r(bytes);
  const uint32_t box0 = r.at<uint32_t>(kItems + 2 * 0x10 + 4);
  BOOST_TEST(r.at<uint32_t>(box0) == 2u);
  BOOST_TEST(r.at<uint32_t>(box0 + 0x28) == 9u);  // nums, after count, word, 2 refs, 2 Files
  BOOST_TEST(r.at<uint32_t>(box0 + 0x2c) == 8u);
  Head h = sample();
  h.boxes[0].nums = {9};
  BOOST_TEST(encode_error_of(h) == "Box.nums: 1 elements, but refs (counted by the same field) has 2");
  h = sample();
  h.extra.nums = {1, 2, 3};
  BOOST_TEST(encode_error_of(h) == "Box.nums: 3 elements, but refs (counted by the same field) has 2");
}

// BodyA.slots: count max(as, node + 1); Box.files: count max(count, 1).
BOOST_AUTO_TEST_CASE(max_counts) {
  auto bytes = encode(sample());
  Rd r(bytes);
  const uint32_t body = r.at<uint32_t>(kItems + 4);
  // x, na, nb, pad, as[2], bs[1], then the 3 slots.
  BOOST_TEST(r.at<uint8_t>(body + 4) == 2u);
  BOOST_TEST(r.at<uint8_t>(body + 5) == 1u);
  BOOST_TEST(r.at<uint32_t>(body + 0x14) == 10u);
  BOOST_TEST(r.at<uint32_t>(body + 0x1c) == 12u);
  // On read, the count follows the elements: as[1].node = 0 makes it 2.
  auto fewer = bytes;
  put32(fewer, r.at<uint32_t>(body + 0xc), 0);
  BOOST_TEST((std::get<BodyA>(decode(fewer).items[0].body).slots == std::vector<uint32_t>{10, 11}));
  // On write, the array must have that many elements.
  Head h = sample();
  std::get<BodyA>(h.items[0].body).slots = {10, 11};
  BOOST_TEST(encode_error_of(h) == "BodyA.slots: 2 elements, but its count max(as, node + 1) is 3");
  h = sample();
  std::get<BodyA>(h.items[0].body).as.clear();  // max over no elements: 0
  std::get<BodyA>(h.items[0].body).slots.clear();
  BOOST_TEST((decode(encode(h)) == h));
  // max(count, 1): a box without refs still has one file, and must have it.
  const uint32_t box1 = r.at<uint32_t>(kItems + 2 * 0x10 + 8);
  BOOST_TEST(r.at<uint32_t>(box1) == 0u);
  BOOST_TEST(r.cstring(r.at<uint32_t>(kPoolOffset) + r.at<uint32_t>(box1 + 8)) == "f");
  h = sample();
  h.boxes[1].files.clear();
  BOOST_TEST(encode_error_of(h) == "Box.files: 0 elements, but its count max(count, 1) is 1");
}

// Head.extra_ref_count: derive count(extra.refs).
BOOST_AUTO_TEST_CASE(count_through_a_struct_field) {
  BOOST_TEST(Rd(encode(sample())).at<uint32_t>(kExtraRefCount) == 2u);
  BOOST_TEST(Rd(encode(sample_v1())).at<uint32_t>(kExtraRefCount) == 0u);
  Head h = sample();
  h.extra.refs.resize(1);
  h.extra.nums.resize(1);  // counted by the same field
  h.extra.files.resize(1);  // max(count, 1)
  BOOST_TEST(Rd(encode(h)).at<uint32_t>(kExtraRefCount) == 1u);
}

// File: derive murmur3(stem(path)) and murmur3(extension(path)).
BOOST_AUTO_TEST_CASE(path_hashes) {
  auto bytes = encode(sample());
  Rd r(bytes);
  const uint32_t box0 = r.at<uint32_t>(kItems + 2 * 0x10 + 4), box1 = r.at<uint32_t>(kItems + 2 * 0x10 + 8);
  const uint32_t f0 = box0 + 0x10, f1 = f0 + 0xc, f2 = box1 + 8;  // after count, word and the refs
  BOOST_TEST(r.at<uint32_t>(f0 + 4) == binschema::murmur3_x86_32("c"));  // a/b/c.bfres
  BOOST_TEST(r.at<uint32_t>(f0 + 8) == binschema::murmur3_x86_32("bfres"));
  BOOST_TEST(r.at<uint32_t>(f1 + 4) == binschema::murmur3_x86_32("d.x"));  // d.x.y
  BOOST_TEST(r.at<uint32_t>(f1 + 8) == binschema::murmur3_x86_32("y"));
  BOOST_TEST(r.at<uint32_t>(f2 + 4) == binschema::murmur3_x86_32("f"));  // f
  BOOST_TEST(r.at<uint32_t>(f2 + 8) == binschema::murmur3_x86_32(""));
  BOOST_TEST(binschema::murmur3_x86_32("c") != binschema::murmur3_x86_32("a/b/c.bfres"));
}

BOOST_AUTO_TEST_CASE(path_stem_and_extension) {
  using binschema::path_extension;
  using binschema::path_stem;
  BOOST_TEST(path_stem("a/b/c.bfres") == "c");
  BOOST_TEST(path_extension("a/b/c.bfres") == "bfres");
  BOOST_TEST(path_stem("c.bfres") == "c");  // no slash
  BOOST_TEST(path_extension("c.bfres") == "bfres");
  BOOST_TEST(path_stem("a/b/c") == "c");  // no dot
  BOOST_TEST(path_extension("a/b/c") == "");
  BOOST_TEST(path_stem("a/c.x.bfres") == "c.x");  // several dots: only the last extension goes
  BOOST_TEST(path_extension("a/c.x.bfres") == "bfres");
  BOOST_TEST(path_stem("a.d/c") == "c");  // a dot in a folder name is no extension
  BOOST_TEST(path_extension("a.d/c") == "");
  BOOST_TEST(path_stem("a/b/") == "");
  BOOST_TEST(path_extension("a/b/") == "");
  BOOST_TEST(path_stem("") == "");
  BOOST_TEST(path_extension("") == "");
  BOOST_TEST(path_stem("c.") == "c");
  BOOST_TEST(path_extension("c.") == "");
  // Leading dots start no extension (Python's os.path.splitext, as the public ASB writer hashes).
  BOOST_TEST(path_stem("a/.hidden") == ".hidden");
  BOOST_TEST(path_extension("a/.hidden") == "");
  BOOST_TEST(path_stem("..x.y") == "..x");
  BOOST_TEST(path_extension("..x.y") == "y");
}

// Pointers after variable-size arrays: BodyA.bs (an elem_ptr table), BodyA.d, Head.boxes.
BOOST_AUTO_TEST_CASE(pointers_at_variable_offsets) {
  auto bytes = encode(sample());
  Rd r(bytes);
  const uint32_t body = r.at<uint32_t>(kItems + 4);
  // as's table at +8, bs's at +0x10 (after na = 2 pointers), d at +0x20 (after the 3 slots).
  const uint32_t as0 = r.at<uint32_t>(body + 8), as1 = r.at<uint32_t>(body + 0xc), bs0 = r.at<uint32_t>(body + 0x10);
  const uint32_t d = r.at<uint32_t>(body + 0x20);
  BOOST_TEST(r.at<uint32_t>(as0) == 1u);
  BOOST_TEST(r.at<uint32_t>(as1) == 2u);
  BOOST_TEST(r.at<uint32_t>(bs0) == 3u);
  BOOST_TEST(r.at<uint32_t>(d) == 4u);
  // Targets in field order, right after the struct.
  BOOST_TEST(as1 == as0 + 4);
  BOOST_TEST(bs0 == as1 + 4);
  BOOST_TEST(d == bs0 + 4);
  // Head: box_count and the boxes' table after the two 0x10-byte items.
  BOOST_TEST(r.at<uint32_t>(kItems + 0x20) == 2u);
  Head h = sample();
  h.items.resize(1);
  auto one = encode(h);
  BOOST_TEST(Rd(one).at<uint32_t>(kItems + 0x10) == 2u);
  BOOST_TEST((decode(one) == h));
}

// layout [children items, ...]: what the inline items point to comes first, item by item.
BOOST_AUTO_TEST_CASE(children_of_an_inline_array) {
  auto bytes = encode(sample());
  Rd r(bytes);
  const uint32_t body = r.at<uint32_t>(kItems + 4);
  const uint32_t box0 = r.at<uint32_t>(kItems + 2 * 0x10 + 4);
  // items[0]'s BodyA and its targets (0x28 + 4 Refs), then items[1]'s Empty, then the boxes.
  BOOST_TEST(body == kItems + 0x2c);
  BOOST_TEST(box0 == body + 0x28 + 4 * 4);
}

BOOST_AUTO_TEST_CASE(truncated_files_throw_decode_error) {
  for (const Head& h : {sample(), sample_v1()}) {
    auto bytes = encode(h);
    size_t bad = 0;
    for (size_t n = 0; n < bytes.size(); ++n) {
      std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + n);
      try {
        decode(cut);
        ++bad;
        BOOST_ERROR("a prefix of " << n << " bytes decoded");
      } catch (const binschema::DecodeError&) {
      } catch (const std::exception& e) {
        ++bad;
        BOOST_ERROR("a prefix of " << n << " bytes: not a DecodeError: " << e.what());
      }
    }
    BOOST_TEST(bad == 0u);
  }
}

// Any byte changed: the file decodes or the reader says why, nothing else.
BOOST_AUTO_TEST_CASE(corrupt_bytes_throw_only_decode_error) {
  auto bytes = encode(sample());
  size_t bad = 0;
  for (size_t i = 0; i < bytes.size(); ++i)
    for (uint8_t v : {uint8_t(0x00), uint8_t(0xff), uint8_t(bytes[i] ^ 0x80)}) {
      auto b = bytes;
      b[i] = v;
      try {
        decode(b);
      } catch (const binschema::DecodeError&) {
      } catch (const std::exception& e) {
        ++bad;
        BOOST_ERROR("byte " << i << " = " << int(v) << ": not a DecodeError: " << e.what());
      }
    }
  BOOST_TEST(bad == 0u);
}

BOOST_AUTO_TEST_SUITE_END()
