// Tests of the code generated for tests/schemas/edges.yaml: shapes that AAMP
// and BYML schemas met (issue 24). Each test checks the bytes, not only that a
// model survives a round trip: union cases that point relative to their
// struct (tag_shift: and tag:), an inline string[] in a scoped pool, align: on
// an inline elem_ptr array, union-case targets a layout keeps where a file
// had them, and the writer's check of every array's count.
#define BOOST_TEST_MODULE edges_test
#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

#include "bytes.h"
#include "edges_text.h"

using namespace binschema::edges;

namespace {

uint32_t le32(const std::vector<uint8_t>& b, size_t at) {
  return uint32_t(b.at(at)) | uint32_t(b.at(at + 1)) << 8 | uint32_t(b.at(at + 2)) << 16 | uint32_t(b.at(at + 3)) << 24;
}

// model -> bytes -> the model; those bytes -> model -> the same bytes; and
// through the text form (YAML and JSON).
void round_trips(const Root& x) {
  const auto bytes = encode(x);
  const Root back = decode(bytes);
  BOOST_TEST((back == x));
  BOOST_TEST((encode(back) == bytes));
  for (auto kind : {binschema::TextKind::Yaml, binschema::TextKind::Json}) BOOST_TEST((from_text(to_text(x, kind)) == x));
}

// A file decoded with its layout and written back unchanged gives its bytes,
// also through the text form with its `layout:` entry.
void keeps_its_bytes(const std::vector<uint8_t>& file) {
  binschema::Layout lay;
  const Root x = decode(file, lay);
  BOOST_TEST((encode(x, lay) == file));
  binschema::Layout lay2;
  const Root y = from_text_with_layout(to_text(x, binschema::TextKind::Yaml, &lay), lay2);
  BOOST_TEST((y == x));
  BOOST_TEST((encode(y, lay2) == file));
  // Without the layout: the format's own placement, another file.
  BOOST_TEST((encode(x) != file));
  BOOST_TEST((decode(encode(x)) == x));
}

Root with_node() {
  Root x;
  x.body = std::string("xyz");
  x.other.v = 7;
  Node n;
  n.id = 1;
  n.value = Small{0x22};
  n.alt = Small{0x11};
  x.node = n;
  return x;
}

// The message of the EncodeError that encoding x throws ("" when it encodes).
std::string encode_error(const Root& x) {
  try {
    encode(x);
  } catch (const binschema::EncodeError& e) {
    return e.what();
  }
  return "";
}

Counts counts_sample() {
  Counts c;
  c.n = 2;
  c.flag = 1;
  c.u = std::vector<uint32_t>{10, 11};  // case_count = n
  c.a = {1};                            // n - 1
  c.b = {2, 3};                         // k = 2
  c.c = {4, 5, 6};                      // m = n + 1
  c.d = {7, 8, 9, 10};                  // n * 2, as flag != 0
  c.e = {11, 12, 13};                   // n + 1
  c.f = {Small{1}, Small{2}, Small{3}, Small{4}};  // n + k
  return c;
}

}  // namespace

// base: struct on union cases that point to structs: the offset is from the
// start of the struct holding the union, on write and on read (it was
// written and read as a file offset with tag_shift:, refused with tag:).
BOOST_AUTO_TEST_CASE(relative_union_cases) {
  Root x = with_node();
  const auto b = encode(x);
  const uint32_t node = le32(b, 0xc);
  BOOST_TEST(node != 0u);
  // tag_shift: tag 1 (small) in the top 8 bits, the offset from the node below.
  const uint32_t word = le32(b, node + 4);
  BOOST_TEST((word >> 24) == 1u);
  BOOST_TEST(le32(b, node + (word & 0xffffff)) == 0x22u);
  BOOST_TEST((word & 0xffffff) < node);  // small: not the file offset
  // tag: the case's pointer is from the node too.
  BOOST_TEST(le32(b, node + 8) == 1u);
  BOOST_TEST(le32(b, node + le32(b, node + 0xc)) == 0x11u);
  round_trips(x);
  // The other cases: a variable-size struct, and an own string relative to the node.
  x.node->value = Big{.vals = {5, 6}};
  x.node->alt = std::string("hello");
  const auto b2 = encode(x);
  const uint32_t node2 = le32(b2, 0xc);
  BOOST_TEST((le32(b2, node2 + 4) >> 24) == 2u);
  const uint32_t alt = node2 + le32(b2, node2 + 0xc);
  BOOST_TEST(le32(b2, alt) == (5u | uint32_t('h') << 16 | uint32_t('e') << 24));  // length 5, then "he"
  round_trips(x);
}

// An inline string[] in a scoped pool: offsets from the start of the
// table (the pool's scope), and the table's strings are its pool (they were
// read as file offsets: "the block holds 0x8 bytes, its strings 0x0"). A
// string (ptr:) of the pool in the table itself is read where it stands, not
// after the pool's block that follows (which then missed it).
BOOST_AUTO_TEST_CASE(scoped_inline_strings) {
  Root x;
  x.body = std::string("a");
  x.table = Table{};
  x.table->names = {"ab", "c", "ab"};
  x.table->title = "tt";
  const auto b = encode(x);
  const uint32_t t = le32(b, 0x10);
  BOOST_TEST(le32(b, t) == 3u);
  BOOST_TEST(le32(b, t + 4) == 0xbu);  // keys_size: "ab\0c\0ab\0tt\0"
  // Not shared: each reference stores its string again, right after the table.
  BOOST_TEST(le32(b, t + 8) == 0x18u);
  BOOST_TEST(le32(b, t + 0xc) == 0x1bu);
  BOOST_TEST(le32(b, t + 0x10) == 0x1du);
  BOOST_TEST(le32(b, t + 0x14) == 0x20u);  // title
  BOOST_TEST(std::string(reinterpret_cast<const char*>(b.data()) + t + 0x18, 0xb) == std::string("ab\0c\0ab\0tt\0", 0xb));
  round_trips(x);
}

// align: 4 on an inline elem_ptr array of structs whose alignment is 8: the
// elements go at multiples of 4 (they took the struct's 8).
BOOST_AUTO_TEST_CASE(inline_elem_ptr_takes_the_fields_align) {
  Root x;
  x.body = Big{.vals = {3}};
  x.other.v = 1;
  x.wides = {Wide{0x1122334455667788ull}, Wide{2}, Wide{3}};
  const auto b = encode(x);
  // Header 0x28 (three slots), other at 0x28, the wides right after it: 0x2c, 0x34, 0x3c.
  BOOST_TEST(le32(b, 0) == 0x28u);
  BOOST_TEST(le32(b, 0x1c) == 0x2cu);
  BOOST_TEST(le32(b, 0x20) == 0x34u);
  BOOST_TEST(le32(b, 0x24) == 0x3cu);
  BOOST_TEST(le32(b, 0x2c) == 0x55667788u);
  BOOST_TEST(le32(b, 0x30) == 0x11223344u);
  round_trips(x);
}

// Union-case targets (a struct, an own Pascal string, relative cases of a
// node) in another order than the writer's, with gaps: an unchanged model
// with its layout gives the file back. They were kept as gap bytes (`fill`)
// and placed afresh too, the file growing by a copy of each.
BOOST_AUTO_TEST_CASE(union_case_targets_keep_their_place) {
  // The struct case after `other`, not before it, with gaps.
  LittleBytes f;
  f.u32(0x20).u32(1).u32(0x30).u32(0).u32(0).u32(0).u32(0);  // other, kind, body, node, table, counts, wide_count
  f.u32(0xeeeeeeee);                                         // gap
  f.u32(9);                                                  // other at 0x20
  f.u32(0xcdcdcdcd).u32(0xcdcdcdcd).u32(0xcdcdcdcd);         // gap
  f.u32(2).u32(5).u32(6);                                    // body at 0x30: Big{2, {5, 6}}
  keeps_its_bytes(f.b);
  binschema::Layout lay;
  decode(f.b, lay);
  BOOST_TEST(lay.at_text().find("8:30") != std::string::npos);  // the body's slot, as a block

  // The string case at the end, the node's cases in the other order, with gaps.
  LittleBytes g;
  g.u32(0x1c).u32(2).u32(0x40).u32(0x20).u32(0).u32(0).u32(0);  // other, kind, body, node, ...
  g.u32(7);                                                     // other at 0x1c
  g.u32(1).u32(0x18 | 1u << 24).u32(1).u32(0x10);               // node at 0x20: id, value (small at +0x18), k, alt (small at +0x10)
  g.u32(0x11).u32(0xabababab);                                  // alt's Small at 0x30, a gap
  g.u32(0x22).u32(0xabababab);                                  // value's Small at 0x38, a gap
  g.u16(3).cstr("xyz");                                         // the body's string at 0x40
  BOOST_TEST(g.pos() == 0x46u);
  const Root y = decode(g.b);
  BOOST_TEST((y == with_node()));
  keeps_its_bytes(g.b);
}

// Every array whose count the model does not hold is checked on write: an
// expression, a const field, a derived field, under if:, behind a pointer,
// inline pointers, a union case, and over file_size() or a context pointer
// (once laid out).
BOOST_AUTO_TEST_CASE(every_count_is_checked) {
  Root x;
  x.body = std::string("c");
  x.counts = counts_sample();
  BOOST_TEST(encode_error(x) == "");
  round_trips(x);
  auto longer = [&](auto grow) {
    Root y = x;
    grow(*y.counts);
    return encode_error(y);
  };
  BOOST_TEST(longer([](Counts& c) { c.a.push_back(0); }) == "Counts.a: 2 elements, but its count n - 1 is 1");
  BOOST_TEST(longer([](Counts& c) { c.b.push_back(0); }) == "Counts.b: 3 elements, but its count k is 2");
  BOOST_TEST(longer([](Counts& c) { c.c.push_back(0); }) == "Counts.c: 4 elements, but its count m is 3");
  BOOST_TEST(longer([](Counts& c) { c.d.push_back(0); }) == "Counts.d: 5 elements, but its count n * 2 is 4");
  BOOST_TEST(longer([](Counts& c) { c.e.push_back(0); }) == "Counts.e: 4 elements, but its count n + 1 is 3");
  BOOST_TEST(longer([](Counts& c) { c.f.push_back(Small{}); }) == "Counts.f: 5 elements, but its count n + k is 4");
  BOOST_TEST(longer([](Counts& c) { std::get<1>(c.u).push_back(0); }) == "Counts.u.vals: 3 elements, but its count case_count is 2");
  // n = 0: n - 1 is no count at all, and no array has that length.
  BOOST_TEST(longer([](Counts& c) { c = Counts{}; c.u = 0u; c.b = {0, 0}; c.c = {0}; c.e = {0}; c.f = {Small{}, Small{}}; }) ==
             "Counts.a: 0 elements, but its count n - 1 is negative (-1)");
  // Not under if: when flag is 0 (d must then be empty).
  BOOST_TEST(longer([](Counts& c) { c.flag = 0; c.d.clear(); }) == "");
  // Over file_size(): checked once the file is laid out.
  Root z = x;
  z.late = {1};
  BOOST_TEST(encode_error(z) == "Root.late: 1 elements, but its count file_size() > 0x100000 ? 1 : 0 is 0");
  // Over a context pointer: also once the file is laid out (the root's slot).
  BOOST_TEST(longer([](Counts& c) { c.g.push_back(0); }) == "Counts.g: 1 elements, but its count other >= 0x100000 ? 1 : 0 is 0");
}
