// Tests of the code generated for tests/schemas/recursion.yaml (structs that
// hold each other through pointers, arrays behind pointers and union cases,
// as AAMP and BYML do) and tests/schemas/bools_sizes.yaml (arrays of bools;
// sizes and counts read from late derived fields; count() of bytes). Each
// model goes model -> bytes -> model, bytes -> model -> the same bytes, and
// model -> YAML and JSON -> model; the bytes are checked where the schema
// says what they are.
#define BOOST_TEST_MODULE recursion_test
#include <boost/test/unit_test.hpp>

#include <map>
#include <string>
#include <vector>

#include "binschema/reader.h"
#include "bools_sizes_text.h"
#include "bytes.h"
#include "recursion_text.h"

namespace rec = binschema::recursion;
namespace bs = binschema::bools_sizes;

namespace {

uint32_t le32(const std::vector<uint8_t>& b, size_t at) {
  return uint32_t(b.at(at)) | uint32_t(b.at(at + 1)) << 8 | uint32_t(b.at(at + 2)) << 16 | uint32_t(b.at(at + 3)) << 24;
}
uint32_t be32(const std::vector<uint8_t>& b, size_t at) {
  return uint32_t(b.at(at)) << 24 | uint32_t(b.at(at + 1)) << 16 | uint32_t(b.at(at + 2)) << 8 | uint32_t(b.at(at + 3));
}

// Every way through a format: model -> bytes -> model, bytes -> model -> the
// same bytes, model -> text -> model (YAML and JSON).
template <class M, class Enc, class Dec, class ToText, class FromText>
std::vector<uint8_t> round_trip(const M& m, Enc encode, Dec decode, ToText to_text, FromText from_text) {
  const std::vector<uint8_t> bytes = encode(m);
  const M back = decode(bytes);
  BOOST_TEST((back == m));
  BOOST_TEST((encode(back) == bytes));
  for (auto kind : {binschema::TextKind::Yaml, binschema::TextKind::Json}) {
    const std::string text = to_text(m, kind);
    BOOST_TEST((from_text(text) == m), text);
  }
  return bytes;
}

std::vector<uint8_t> rec_round_trip(const rec::Root& m) {
  return round_trip(
      m, [](const rec::Root& x) { return rec::encode(x); }, [](const std::vector<uint8_t>& b) { return rec::decode(b); },
      [](const rec::Root& x, binschema::TextKind k) { return rec::to_text(x, k); }, [](const std::string& t) { return rec::from_text(t); });
}

std::vector<uint8_t> bs_round_trip(const bs::Head& m) {
  return round_trip(
      m, [](const bs::Head& x) { return bs::encode(x); }, [](const std::vector<uint8_t>& b) { return bs::decode(b); },
      [](const bs::Head& x, binschema::TextKind k) { return bs::to_text(x, k); }, [](const std::string& t) { return bs::from_text(t); });
}

rec::Entry num_entry(uint32_t key, uint32_t v) {
  rec::Entry e;
  e.key = key;
  e.value = v;
  return e;
}

// A hash of `depth` levels: each level has a number, an entry whose case is
// the next level's hash, and one whose `sub` is.
rec::Hash hash_of_depth(int depth) {
  rec::Hash h;
  h.entries.push_back(num_entry(uint32_t(depth), uint32_t(100 + depth)));
  if (depth > 1) {
    rec::Entry e;
    e.key = 0x10;
    e.value.emplace<rec::Entry::Value::Case::hash>(hash_of_depth(depth - 1));
    h.entries.push_back(e);
    rec::Entry s = num_entry(0x20, 7);
    s.sub = hash_of_depth(depth - 1);
    h.entries.push_back(s);
  }
  return h;
}

rec::Root rec_sample() {
  rec::Root r;
  r.hash = hash_of_depth(3);
  // A list 1 -> 2 -> 3.
  rec::Node n3;
  n3.value = 3;
  rec::Node n2;
  n2.value = 2;
  n2.next = n3;
  rec::Node n1;
  n1.value = 1;
  n1.next = n2;
  r.list = n1;
  // A -> B -> A -> B.
  rec::B b2;
  b2.y = 22;
  rec::A a2;
  a2.x = 2;
  a2.b = b2;
  rec::B b1;
  b1.y = 11;
  b1.a = a2;
  rec::A a1;
  a1.x = 1;
  a1.b = b1;
  r.a = a1;
  // A tree: sub -> sub -> leaf 9.
  rec::Tree leaf;
  leaf.node = uint32_t(9);
  rec::Tree mid;
  mid.node.emplace<rec::Tree::Node::Case::sub>(leaf);
  rec::Tree top;
  top.node.emplace<rec::Tree::Node::Case::sub>(mid);
  r.tree = top;
  return r;
}

bs::Head bs_sample() {
  bs::Head h;
  h.flags = {true, false, true};
  h.three = {false, true, true};
  h.marks = {true, true, false, true, false};
  h.tv = {true, false};
  h.choice.emplace<bs::Head::Choice::Case::bits>(std::array<bool, 4>{true, false, false, true});
  h.nums = {0x1111, 0x2222, 0x3333};
  h.blob.data = {0xde, 0xad, 0xbe, 0xef, 0x01};
  return h;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(recursion)

// Hash -> Entry[] -> Hash (behind a pointer and as a union case), Node ->
// Node, A -> B -> A, Tree -> (case) Tree: each compiles and round-trips.
BOOST_AUTO_TEST_CASE(mutual_recursion_round_trips) {
  const rec::Root m = rec_sample();
  const std::vector<uint8_t> bytes = rec_round_trip(m);
  // The list as the bytes hold it: Root.list at 8, each Node {value, next}.
  uint32_t at = le32(bytes, 8);
  std::vector<uint32_t> values;
  while (at != 0 && values.size() < 10) {
    values.push_back(le32(bytes, at));
    at = le32(bytes, at + 4);
  }
  BOOST_TEST((values == std::vector<uint32_t>{1, 2, 3}));
  // A -> B -> A -> B: x, then y, in the bytes.
  const uint32_t a1 = le32(bytes, 12), b1 = le32(bytes, a1 + 4), a2 = le32(bytes, b1 + 4), b2 = le32(bytes, a2 + 4);
  BOOST_TEST(le32(bytes, a1) == 1u);
  BOOST_TEST(le32(bytes, b1) % 0x10000 == 11u);
  BOOST_TEST(le32(bytes, a2) == 2u);
  BOOST_TEST(le32(bytes, b2) % 0x10000 == 22u);
  BOOST_TEST(le32(bytes, b2 + 4) == 0u);  // b2.a is null
  // The tree: kind 1 and a pointer, twice, then kind 0 and the leaf.
  const uint32_t t1 = le32(bytes, 16), t2 = le32(bytes, t1 + 4), t3 = le32(bytes, t2 + 4);
  BOOST_TEST(bytes.at(t1) == 1);
  BOOST_TEST(bytes.at(t2) == 1);
  BOOST_TEST(bytes.at(t3) == 0);
  BOOST_TEST(le32(bytes, t3 + 4) == 9u);
}

BOOST_AUTO_TEST_CASE(empty_and_deep_models_round_trip) {
  rec::Root empty;
  rec_round_trip(empty);
  rec::Root deep;
  deep.hash = hash_of_depth(6);
  rec::Node* tail = nullptr;
  deep.list = rec::Node{};
  tail = &*deep.list;
  for (uint32_t i = 1; i < 50; ++i) {
    tail->value = i;
    tail->next = rec::Node{};
    tail = &**tail->next;
  }
  rec_round_trip(deep);
}

// A model built from text: the cases and optional members by name.
BOOST_AUTO_TEST_CASE(recursive_model_from_text) {
  const rec::Root m = rec::from_text(
      "format: recursion\n"
      "hash:\n"
      "  entries:\n"
      "    - {key: 1, value: {hash: {entries: [{key: 2, value: {num: 5}, sub: null}]}}, sub: {entries: []}}\n"
      "list: {value: 4, next: {value: 5, next: null}}\n"
      "a: {x: 1, b: {y: 2, a: {x: 3, b: null}}}\n"
      "tree: {node: {sub: {node: {leaf: 8}}}}\n");
  BOOST_REQUIRE(m.list && m.list->next);
  BOOST_TEST((*m.list->next)->value == 5u);
  BOOST_TEST((*m.a->b->a)->x == 3u);
  const auto& inner = m.hash.entries.at(0).value.get<rec::Entry::Value::Case::hash>();
  BOOST_TEST(inner.entries.at(0).value.get<rec::Entry::Value::Case::num>() == 5u);
  BOOST_TEST(m.tree->node.get<rec::Tree::Node::Case::sub>()->node.get<rec::Tree::Node::Case::leaf>() == 8u);
  rec_round_trip(m);
}

// binschema::Box: a deep copy, compared by value.
// binschema info counts the structs behind boxes too.
BOOST_AUTO_TEST_CASE(info_counts_recursive_structs) {
  const auto lines = binschema::text::summary(rec_sample(), "recursion", "", 1);
  std::map<std::string, std::string> counts(lines.begin(), lines.end());
  BOOST_TEST(counts["Node"] == "3");
  BOOST_TEST(counts["A"] == "2");
  BOOST_TEST(counts["B"] == "2");
  BOOST_TEST(counts["Tree"] == "3");
  BOOST_TEST(counts["Hash"] == "7");    // hash_of_depth(3): 1 + 2 + 4
  BOOST_TEST(counts["Entry"] == "13");  // 3 + 2 * 3 + 4 * 1
}

BOOST_AUTO_TEST_CASE(box_is_a_value) {
  rec::Node a;
  a.value = 1;
  a.next = rec::Node{};
  (*a.next)->value = 2;
  rec::Node b = a;
  BOOST_TEST((a == b));
  (*b.next)->value = 3;
  BOOST_TEST((*a.next)->value == 2u);
  BOOST_TEST(!(a == b));
  b = a;
  BOOST_TEST((a == b));
  binschema::Box<rec::Node> moved(std::move(*b.next));
  BOOST_TEST(moved->value == 2u);
  BOOST_TEST(b.next->valueless_after_move());
  *b.next = rec::Node{};  // assigned again: holds a value
  BOOST_TEST(!b.next->valueless_after_move());
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(bools_sizes)

BOOST_AUTO_TEST_CASE(bool_arrays_and_late_sizes_round_trip) {
  const bs::Head h = bs_sample();
  const std::vector<uint8_t> b = bs_round_trip(h);
  // flags (bool32[], big-endian) at 8: 1, 0, 1.
  BOOST_TEST(be32(b, 8) == 1u);
  BOOST_TEST(be32(b, 12) == 0u);
  BOOST_TEST(be32(b, 16) == 1u);
  // three (bool8[3]) at 0x14.
  BOOST_TEST((std::vector<uint8_t>(b.begin() + 0x14, b.begin() + 0x17) == std::vector<uint8_t>{0, 1, 1}));
  // marks (bool8[] behind the pointer at 0x18), 5 of them (mark_count at 0x1c).
  BOOST_TEST(be32(b, 0x1c) == 5u);
  const uint32_t marks = be32(b, 0x18);
  BOOST_TEST((std::vector<uint8_t>(b.begin() + marks, b.begin() + marks + 5) == std::vector<uint8_t>{1, 1, 0, 1, 0}));
  // tv (bool32[2], true: 0x80000001) at 0x20.
  BOOST_TEST(be32(b, 0x20) == 0x80000001u);
  BOOST_TEST(be32(b, 0x24) == 0u);
  // choice: kind 1 (at 6), bool8[4] at 0x28.
  BOOST_TEST(b.at(6) == 1);
  BOOST_TEST((std::vector<uint8_t>(b.begin() + 0x28, b.begin() + 0x2c) == std::vector<uint8_t>{1, 0, 0, 1}));
  // The late sizes: blob_size = 5, span = 3 * 2 bytes, blob_count = 5.
  BOOST_TEST(be32(b, 0x2c) == 5u);
  BOOST_TEST(be32(b, 0x30) == 6u);
  BOOST_TEST(be32(b, 0x34) == 5u);
  BOOST_TEST((std::vector<uint8_t>(b.begin() + 0x3c, b.begin() + 0x41) == h.blob.data));
  const uint32_t nums = be32(b, 0x38);
  BOOST_TEST(be32(b, nums) == 0x11112222u);
}

// The reader takes the sizes from the stored (late) values: a file whose
// blob_size says 3 reads 3 bytes of blob.
BOOST_AUTO_TEST_CASE(sizes_are_read_from_the_stored_values) {
  std::vector<uint8_t> b = bs::encode(bs_sample());
  b[0x2f] = 3;  // blob_size
  b[0x33] = 4;  // span: 2 numbers
  b.resize(b.size() - 2);  // what follows the blob (nothing) stays
  const bs::Head h = bs::decode(b);
  BOOST_TEST(h.blob.data.size() == 3u);
  BOOST_TEST(h.nums.size() == 2u);
}

BOOST_AUTO_TEST_CASE(bool_values_other_than_0_and_true_are_refused) {
  std::vector<uint8_t> b = bs::encode(bs_sample());
  std::vector<uint8_t> bad = b;
  bad[11] = 2;  // flags[0]
  BOOST_TEST(decode_error_of([](const std::vector<uint8_t>& x) { return bs::decode(x); }, bad).find("value 0x2 is not a bool (0 or 1)") !=
             std::string::npos, decode_error_of([](const std::vector<uint8_t>& x) { return bs::decode(x); }, bad));
  bad = b;
  bad[0x27] = 1;  // tv[1]: 1 is not this field's true
  BOOST_TEST(decode_error_of([](const std::vector<uint8_t>& x) { return bs::decode(x); }, bad).find("is not a bool (0 or 0x80000001)") !=
             std::string::npos);
  bad = b;
  bad[be32(b, 0x18) + 2] = 0xff;  // marks[2]
  BOOST_TEST(decode_error_of([](const std::vector<uint8_t>& x) { return bs::decode(x); }, bad).find("is not a bool") != std::string::npos);
}

// What `binschema info` lists: the structs below the root, not its bits: word.
BOOST_AUTO_TEST_CASE(info_counts_structs_not_bit_words) {
  bs::Head h = bs_sample();
  h.word.low = 5;
  h.word.on = true;
  const auto lines = binschema::text::summary(h, "bools_sizes", "", 100);
  std::vector<std::string> names;
  for (const auto& [name, value] : lines) names.push_back(name + "=" + value);
  BOOST_TEST((names == std::vector<std::string>{"format=bools_sizes", "file size=100 bytes"}));  // the root is not counted
  const std::vector<uint8_t> b = bs_round_trip(h);
  BOOST_TEST(b.at(7) == 0x0d);  // low 5, on: bit 3
}

BOOST_AUTO_TEST_CASE(bool_arrays_in_text) {
  const std::string yaml = bs::to_text(bs_sample(), binschema::TextKind::Yaml);
  BOOST_TEST(yaml.find("flags: [true, false, true]") != std::string::npos, yaml);
  BOOST_TEST(yaml.find("marks: [true, true, false, true, false]") != std::string::npos, yaml);
  bs::Head h = bs::from_text(
      "format: bools_sizes\nword: {low: 1, on: false, rest: 0}\nflags: [false, true]\nthree: [true, true, false]\nmarks: []\ntv: [false, true]\n"
      "choice: {word: 7}\nnums: [1]\nblob: 'aabb'\n");
  BOOST_TEST((h.flags == std::vector<bool>{false, true}));
  BOOST_TEST((h.three == std::array<bool, 3>{true, true, false}));
  bs_round_trip(h);
}

BOOST_AUTO_TEST_SUITE_END()

// A list `depth` nodes long (Root.list -> Node -> Node ...), each node's next
// pointing to the one after it; `loop_to` makes the last node's next point
// back to that node (0-based) instead of ending.
std::vector<uint8_t> list_file(uint32_t depth, int64_t loop_to = -1) {
  LittleBytes b;
  b.text("RECU", 4).u32(0x14).u32(0x1c).u32(0).u32(0);
  b.u32(0).u32(0);  // Root.hash -> an empty Hash
  for (uint32_t i = 0; i < depth; ++i) {
    const uint32_t at = 0x1c + 8 * i;
    const uint32_t next = i + 1 < depth ? at + 8 : loop_to >= 0 ? 0x1c + 8 * uint32_t(loop_to) : 0;
    b.u32(i).u32(next);
  }
  return b.b;
}

BOOST_AUTO_TEST_SUITE(nesting)

// Nesting within the limit reads; one more level is refused with the offset
// and the field path of the struct that is one too deep.
BOOST_AUTO_TEST_CASE(nesting_up_to_the_limit_reads) {
  const size_t limit = binschema::kDecodeDepthLimit;
  const rec::Root ok = rec::decode(list_file(uint32_t(limit)));
  size_t n = 0;
  for (const rec::Node* p = ok.list ? &*ok.list : nullptr; p; p = p->next ? &**p->next : nullptr) ++n;
  BOOST_TEST(n == limit);
  const std::string e = decode_error_of([](const std::vector<uint8_t>& x) { return rec::decode(x); }, list_file(uint32_t(limit + 1)));
  const std::string at = binschema::hex(0x1c + 8 * limit);
  BOOST_TEST(e.find("Node at " + at + " is nested deeper than 256 levels") != std::string::npos, e);
  BOOST_TEST(e.find("list.next.next.next") != std::string::npos, e);
  try {
    rec::decode(list_file(uint32_t(limit + 1)));
    BOOST_FAIL("decoded");
  } catch (const binschema::DecodeError& err) {
    BOOST_TEST(err.offset() == 0x1c + 8 * limit);
  }
}

// 100,000 levels: refused at the limit, without exhausting the stack (the
// reader recurses at most kDecodeDepthLimit structs deep).
BOOST_AUTO_TEST_CASE(a_file_nested_100000_deep_is_refused) {
  const std::string e = decode_error_of([](const std::vector<uint8_t>& x) { return rec::decode(x); }, list_file(100000));
  BOOST_TEST(e.find("nested deeper than 256 levels of structs that hold themselves") != std::string::npos, e);
  binschema::Layout lay;
  BOOST_CHECK_THROW(rec::decode(list_file(100000), lay), binschema::DecodeError);
}

// A pointer back to a node being read: a cycle, refused where it closes.
BOOST_AUTO_TEST_CASE(cycles_are_refused_with_offset_and_path) {
  // The third node points back to the second.
  std::string e = decode_error_of([](const std::vector<uint8_t>& x) { return rec::decode(x); }, list_file(3, 1));
  BOOST_TEST(e.find("cycle: the Node at 0x24 holds itself") != std::string::npos, e);
  BOOST_TEST(e.find("list.next.next.next") != std::string::npos, e);
  // A node whose next is itself.
  e = decode_error_of([](const std::vector<uint8_t>& x) { return rec::decode(x); }, list_file(1, 0));
  BOOST_TEST(e.find("cycle: the Node at 0x1c holds itself") != std::string::npos, e);
  BOOST_TEST(e.find("list.next:") != std::string::npos, e);
  // A -> B -> A through two types: Root.a at 0x24, its b at 0x2c, whose a points back.
  LittleBytes b;
  b.text("RECU", 4).u32(0x14).u32(0).u32(0x1c).u32(0);
  b.u32(0).u32(0);        // the empty Hash at 0x14
  b.u32(1).u32(0x24);     // A at 0x1c: x, b
  b.u16(2).u16(0).u32(0x1c);  // B at 0x24: y, pad, a -> the A being read
  e = decode_error_of([](const std::vector<uint8_t>& x) { return rec::decode(x); }, b.b);
  BOOST_TEST(e.find("cycle: the A at 0x1c holds itself") != std::string::npos, e);
  BOOST_TEST(e.find("a.b.a") != std::string::npos, e);
  // A block reached twice on different paths is no cycle: the entry's union
  // case and its `sub` are one Hash (at 0x2c), read once for each.
  LittleBytes twice;
  twice.text("RECU", 4).u32(0x14).u32(0).u32(0).u32(0);
  twice.u32(0x1c).u32(1);                   // Hash at 0x14: one entry at 0x1c
  twice.u32(5).u32(1).u32(0x2c).u32(0x2c);  // Entry: key 5, kind 1 (hash) -> 0x2c, sub -> 0x2c
  twice.u32(0).u32(0);                      // the empty Hash at 0x2c
  const rec::Root m = rec::decode(twice.b);
  BOOST_TEST(m.hash.entries.at(0).sub.has_value());
  BOOST_TEST(m.hash.entries.at(0).value.index() == 1u);
}

BOOST_AUTO_TEST_SUITE_END()
