// Shared targets (docs/schema-language.md §11) on tests/schemas/shared.yaml:
// a file whose pointers share their targets (two children that are one
// node, placed after the block the writer writes next; numbers that reuse
// bytes of other numbers, inside one block or across two) is built by hand;
// decode with a layout and encode gives the same bytes, and an edit changes
// only the pointer of the value edited (the edit policy).
#define BOOST_TEST_MODULE shared_test
#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

#include "bytes.h"
#include "shared_text.h"

namespace sh = binschema::shared;

namespace {

// 0x00 header: "SHRD", top -> 0x10, words -> 0x44, word_count 2
// 0x10 top (Node, 0x1c bytes): vec -> 0x2c, left -> 0x4c, right -> 0x4c (the same
//      node), data -> 0x38 (3 words), word -> 0x44 (the first of Root.words)
// 0x2c Vec3 1, 2, 3
// 0x38 top.data: 5, 6, 7
// 0x44 Root.words: 8, 9
// 0x4c the shared child (Node): num 42, data -> 0x40 (7, 8: the last word
//      of top.data and the first of Root.words), word -> 0x3c (6, inside top.data)
// The writer writes the child (at 0x4c) first, then its numbers (at 0x40
// and 0x3c), then top.data and Root.words over those: a forward reference
// and leaves that overlap, within one block and across two.
std::vector<uint8_t> shared_file() {
  LittleBytes b;
  b.text("SHRD", 4).u32(0x10).u32(0x44).u32(2);
  // top
  b.u32(1).u32(0x2c).u32(0x4c).u32(0x4c).u32(0x38).u32(3).u32(0x44);
  b.f32(1).f32(2).f32(3);
  b.u32(5).u32(6).u32(7);
  b.u32(8).u32(9);
  // the child
  b.u32(0).u32(42).u32(0).u32(0).u32(0x40).u32(2).u32(0x3c);
  return b.b;
}

// The bytes of `b` that differ from `a` over a's length: [start, end) runs.
std::vector<std::pair<size_t, size_t>> changed(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b) {
  std::vector<std::pair<size_t, size_t>> out;
  for (size_t i = 0; i < a.size(); ++i) {
    if (i < b.size() && a[i] == b[i]) continue;
    if (!out.empty() && out.back().second == i) ++out.back().second;
    else out.emplace_back(i, i + 1);
  }
  return out;
}

uint32_t le32(const std::vector<uint8_t>& b, size_t at) {
  return uint32_t(b.at(at)) | uint32_t(b.at(at + 1)) << 8 | uint32_t(b.at(at + 2)) << 16 | uint32_t(b.at(at + 3)) << 24;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(shared_targets)

// The model holds copies (two equal children, equal numbers); the layout
// keeps that they were one: the same bytes come back.
BOOST_AUTO_TEST_CASE(shared_blocks_and_overlapping_leaves_come_back) {
  const std::vector<uint8_t> file = shared_file();
  binschema::Layout lay;
  const sh::Root m = sh::decode(file, lay);
  BOOST_REQUIRE(m.top.left && m.top.right);
  BOOST_TEST((**m.top.left == **m.top.right));
  BOOST_TEST(((*m.top.left)->value.get<sh::Node::Value::Case::num>() == 42u));
  BOOST_TEST(((*m.top.left)->data == std::vector<uint32_t>{7, 8}));
  BOOST_TEST((*m.top.left)->word->w == 6u);
  BOOST_TEST(m.top.word->w == 8u);
  BOOST_TEST((m.words == std::vector<uint32_t>{8, 9}));
  BOOST_TEST(!lay.empty());
  const std::vector<uint8_t> back = sh::encode(m, lay);
  BOOST_TEST((back == file));
  // Through the text, with its layout entry.
  const std::string text = sh::to_text(m, binschema::TextKind::Yaml, &lay);
  binschema::Layout lay2;
  const sh::Root m2 = sh::from_text_with_layout(text, lay2);
  BOOST_TEST((sh::encode(m2, lay2) == file), text);
  // Without the layout the writer stores each value: the copies take room.
  const std::vector<uint8_t> fresh = sh::encode(m);
  BOOST_TEST(fresh.size() > file.size());
  BOOST_TEST((sh::decode(fresh) == m));
}

// An edit to the node that the second pointer reaches: that pointer (top.right,
// at 0x1c) moves to a copy at the end; every other byte stays.
BOOST_AUTO_TEST_CASE(an_edit_to_one_sharer_moves_only_its_pointer) {
  const std::vector<uint8_t> file = shared_file();
  binschema::Layout lay;
  sh::Root m = sh::decode(file, lay);
  (*m.top.right)->value = uint32_t(43);
  const std::vector<uint8_t> out = sh::encode(m, lay);
  BOOST_TEST((sh::decode(out) == m));
  BOOST_TEST(out.size() > file.size());
  const auto diff = changed(file, out);
  BOOST_TEST_REQUIRE(diff.size() == 1u);
  BOOST_TEST(diff[0].first >= 0x1cu);
  BOOST_TEST(diff[0].second <= 0x20u);
  BOOST_TEST(le32(out, 0x1c) >= file.size());
  BOOST_TEST(le32(out, le32(out, 0x1c) + 4) == 43u);
}

// An edit to a leaf that shares bytes with others (top.data's last word, which
// the child's data reuses): top.data moves to the end, its old room is zero,
// the child's numbers stay where they were.
BOOST_AUTO_TEST_CASE(an_edit_to_an_overlapping_leaf_moves_only_its_pointer) {
  const std::vector<uint8_t> file = shared_file();
  binschema::Layout lay;
  sh::Root m = sh::decode(file, lay);
  m.top.data[2] = 70;
  const std::vector<uint8_t> out = sh::encode(m, lay);
  BOOST_TEST((sh::decode(out) == m));
  const auto diff = changed(file, out);
  // top.data's pointer (0x20), and its first word, which nothing else used (0x38).
  BOOST_TEST_REQUIRE(diff.size() == 2u);
  BOOST_TEST((diff[0].first >= 0x20u && diff[0].second <= 0x24u));
  BOOST_TEST((diff[1].first >= 0x38u && diff[1].second <= 0x3cu));
  BOOST_TEST(le32(out, 0x20) >= file.size());
  BOOST_TEST(le32(out, 0x40) == 7u);  // the child's data still reads 7, 8
}

BOOST_AUTO_TEST_SUITE_END()
