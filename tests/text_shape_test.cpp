// The shape of the text (docs/schema-language.md §7), over the test format
// tests/schemas/maps.yaml: arrays shown as maps keyed by a field (map:),
// structs shown as their one field (unwrap:), and fields with if: left out
// while their condition is false. Each test decodes bytes, prints the text,
// edits it as a person would (add, rename, remove a map entry) and encodes
// it, checking the bytes through the decoder; and the errors an edit can
// make (a key given twice, a key that is no value of its field, a field
// given where its if: is false) at their line:col.
#define BOOST_TEST_MODULE text_shape_test
#include <boost/test/unit_test.hpp>

#include <string>

#include "binschema/error.h"
#include "binschema/text_doc.h"
#include "maps_text.h"

using namespace binschema::maps;

namespace {

File sample(uint16_t version = 2) {
  File f;
  f.version = version;
  f.items = {Item{"sword", 3, 1, 7}, Item{"shield", 5, 2, 8}, Item{"Arrow Bundle", 1, 20, 0}};
  if (version < 2)
    for (Item& i : f.items) i.bonus = 0;  // not stored before version 2
  f.points = {Point{1, 1.5f}, Point{0xabc, -2.0f}};
  f.paints = {Paint{0, 0.5f}, Paint{2, 0.25f}};
  f.values.resize(2);
  f.values[0].emplace<File::Values::Case::word>(WordValue{5, 9});
  f.values[1].emplace<File::Values::Case::pair>(PairValue{12, 1, 2});
  f.list.values = {1, 2, 3};
  f.big.value = 12345678901234ull;
  return f;
}

// The text of a model as decode shows it (through the bytes).
std::string text_of(const File& f, binschema::TextKind kind = binschema::TextKind::Yaml) {
  return to_text(decode(encode(f)), kind);
}

// The message reading `text` gives ("" when it reads).
std::string error_of(const std::string& text) {
  try {
    (void)from_text(text);
  } catch (const binschema::TextError& e) {
    return e.what();
  }
  return "";
}

std::string replace(std::string s, const std::string& from, const std::string& to) {
  const size_t at = s.find(from);
  BOOST_REQUIRE_MESSAGE(at != std::string::npos, "'" + from + "' not in the text");
  return s.replace(at, from.size(), to);
}

// The text with its two flow maps of scalars written in block style (which
// reads the same), for edits line by line.
std::string block_form(std::string t) {
  t = replace(t, "points: {0x00000001: 1.5, 0x00000abc: -2.0}\n", "points:\n  0x00000001: 1.5\n  0x00000abc: -2.0\n");
  return replace(t, "paints: {red: 0.5, blue: 0.25}\n", "paints:\n  red: 0.5\n  blue: 0.25\n");
}

}  // namespace

BOOST_AUTO_TEST_CASE(arrays_with_map_are_maps_by_their_key) {
  const std::string t = text_of(sample());
  BOOST_TEST_MESSAGE(t);
  // A string key, with more than one other field: a map of them.
  BOOST_TEST(t.find("items:\n  sword:\n    weight: 3\n    count: 1\n    bonus: 7\n  shield:\n") != std::string::npos);
  // A key that is no plain string is quoted.
  BOOST_TEST(t.find("  \"Arrow Bundle\":\n    weight: 1\n") != std::string::npos);
  // A hex number key with one other field: the field's value bare.
  // (A map whose values are all scalars is one line, in flow style, as oead writes them.)
  BOOST_TEST(t.find("points: {0x00000001: 1.5, 0x00000abc: -2.0}\n") != std::string::npos);
  // An enum key on a pointer array.
  BOOST_TEST(t.find("paints: {red: 0.5, blue: 0.25}\n") != std::string::npos);
  // A union[]: the case name around the rest of the case's fields.
  BOOST_TEST(t.find("values:\n  5:\n    word: 9\n  12:\n    pair:\n      a: 1\n      b: 2\n") != std::string::npos);
  // Unwrapped structs: a list, a number.
  BOOST_TEST(t.find("list: [1, 2, 3]\n") != std::string::npos);
  BOOST_TEST(t.find("big: 12345678901234\n") != std::string::npos);
  // No key inside an entry, no wrapper left.
  BOOST_TEST(t.find("name:") == std::string::npos);
  BOOST_TEST(t.find("value:") == std::string::npos);
  // binschema's own YAML parser takes the keys (no fall back to yaml-cpp's), with yaml-cpp's nodes.
  // (Flow maps are yaml-cpp's: the block keys are checked without them.)
  std::string block = t;
  for (const char* flow : {"points: {0x00000001: 1.5, 0x00000abc: -2.0}\n", "paints: {red: 0.5, blue: 0.25}\n"})
    block.erase(block.find(flow), std::string(flow).size());
  binschema::text::Doc fast;
  BOOST_TEST(binschema::text::load_block_yaml(block, fast));
  BOOST_TEST(binschema::text::first_difference(fast.root(), binschema::text::load_yaml(block).root()) == "");
  // And it reads back to the same model, YAML and JSON.
  BOOST_TEST((from_text(t) == decode(encode(sample()))));
  const std::string j = text_of(sample(), binschema::TextKind::Json);
  BOOST_TEST(j.find("\"points\": {\"0x00000001\": 1.5, \"0x00000abc\": -2.0}") != std::string::npos);
  BOOST_TEST(j.find("\"big\": 12345678901234") != std::string::npos);
  BOOST_TEST((from_text(j) == decode(encode(sample()))));
}

BOOST_AUTO_TEST_CASE(map_entries_are_added_renamed_and_removed_in_the_text) {
  std::string t = block_form(text_of(sample()));
  // Rename shield, remove the arrows, add an axe; add a point; rename a paint;
  // add a value of the other case.
  t = replace(t, "  shield:\n", "  buckler:\n");
  t = replace(t, "  \"Arrow Bundle\":\n    weight: 1\n    count: 20\n    bonus: 0\n", "  axe:\n    weight: 9\n    count: 4\n    bonus: 1\n");
  t = replace(t, "  0x00000abc: -2.0\n", "  0x00000abc: -2.0\n  17: 3.0\n");
  t = replace(t, "  blue: 0.25\n", "  green: 0.25\n");
  t = replace(t, "  12:\n", "  7:\n    word: 70\n  12:\n");
  const File m = decode(encode(from_text(t)));
  BOOST_TEST_REQUIRE(m.items.size() == 3u);
  BOOST_TEST(m.items[0].name == "sword");
  BOOST_TEST(m.items[1].name == "buckler");
  BOOST_TEST(m.items[1].weight == 5);
  BOOST_TEST(m.items[2].name == "axe");
  BOOST_TEST(m.items[2].count == 4);
  BOOST_TEST(m.items[2].bonus == 1u);
  BOOST_TEST_REQUIRE(m.points.size() == 3u);
  BOOST_TEST(m.points[2].id == 17u);
  BOOST_TEST(m.points[2].x == 3.0f);
  BOOST_TEST(m.paints[1].colour == 1u);
  BOOST_TEST_REQUIRE(m.values.size() == 3u);
  BOOST_TEST(m.values[1].get<File::Values::Case::word>().key == 7u);
  BOOST_TEST(m.values[1].get<File::Values::Case::word>().word == 70u);
  BOOST_TEST(m.values[2].get<File::Values::Case::pair>().b == 2);
  // The entries stay in the text's order (the file's).
  const std::string again = to_text(m, binschema::TextKind::Yaml);
  BOOST_TEST(again.find("  sword:") < again.find("  buckler:"));
  BOOST_TEST(again.find("  buckler:") < again.find("  axe:"));
}

BOOST_AUTO_TEST_CASE(map_keys_given_twice_or_not_of_their_type_are_errors_at_line_col) {
  const std::string t = block_form(text_of(sample()));
  // The second 'sword' names the first's place.
  std::string dup = replace(t, "  shield:\n", "  sword:\n");
  const size_t line = static_cast<size_t>(std::count(t.begin(), t.begin() + t.find("  shield:"), '\n')) + 1;
  const size_t first = static_cast<size_t>(std::count(t.begin(), t.begin() + t.find("  sword:"), '\n')) + 1;
  BOOST_TEST(error_of(dup) == std::to_string(line) + ":3: items[sword]: duplicate key 'sword' (first at " + std::to_string(first) + ":3)");
  // 0x1 and 1 are one key too: the reader compares what the text says, so
  // these two differ in text; encode then finds no error either (two points 1).
  const std::string badnum = replace(t, "  0x00000abc:", "  zz:");
  const size_t pline = static_cast<size_t>(std::count(t.begin(), t.begin() + t.find("  0x00000abc:"), '\n')) + 1;
  BOOST_TEST(error_of(badnum) == std::to_string(pline) + ":3: points[zz].id: expected an integer, got 'zz'");
  const std::string badenum = replace(t, "  blue:", "  purple:");
  BOOST_TEST(error_of(badenum).find(":3: paints[purple].colour: ") != std::string::npos);
  // The key is not a field of the entry.
  const std::string inner = replace(t, "    weight: 3\n", "    name: sword\n    weight: 3\n");
  BOOST_TEST(error_of(inner).find(": items[sword]: 'name' is the key of this map entry: give it as the entry's key, not among its fields") !=
             std::string::npos);
  // A union entry names its case.
  const std::string badcase = replace(t, "    word: 9\n", "    wrd: 9\n");
  BOOST_TEST(error_of(badcase).find(": values[5]: unknown case 'wrd'") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(conditional_fields_are_absent_while_their_condition_is_false) {
  File v1 = sample(1);
  const std::string t1 = text_of(v1);
  // version 1: no bonus (a context if:), no v3; flags 0: no extra.
  BOOST_TEST(t1.find("bonus") == std::string::npos);
  BOOST_TEST(t1.find("v3:") == std::string::npos);
  BOOST_TEST(t1.find("extra:") == std::string::npos);
  BOOST_TEST((from_text(t1) == decode(encode(v1))));
  File v3 = sample(3);
  v3.flags = 1;
  v3.extra = 0x44;
  v3.v3 = 9;
  const std::string t3 = text_of(v3);
  BOOST_TEST(t3.find("extra: 68\n") != std::string::npos);
  BOOST_TEST(t3.find("v3: 9\n") != std::string::npos);
  BOOST_TEST(t3.find("    bonus: 7\n") != std::string::npos);
  BOOST_TEST((from_text(t3) == decode(encode(v3))));
  // Given where the condition is false: an error at the field, with its path.
  const std::string given = replace(t1, "list:", "v3: 5\nlist:");
  const size_t line = static_cast<size_t>(std::count(given.begin(), given.begin() + given.find("v3: 5"), '\n')) + 1;
  BOOST_TEST(error_of(given) == std::to_string(line) + ":5: v3: 'v3' is given, but its condition (version >= 3) is false here: leave it out");
  const std::string bonus = replace(t1, "    count: 1\n", "    count: 1\n    bonus: 3\n");
  const size_t bline = static_cast<size_t>(std::count(bonus.begin(), bonus.begin() + bonus.find("bonus: 3"), '\n')) + 1;
  BOOST_TEST(error_of(bonus) == std::to_string(bline) + ":12: items[sword].bonus: 'bonus' is given, but its condition (version >= 2) is false here: leave it out");
  // Missing where the condition is true: absent, its absent value (0) is written.
  const std::string missing = replace(t3, "v3: 9\n", "");
  BOOST_TEST(decode(encode(from_text(missing))).v3 == 0u);
}

BOOST_AUTO_TEST_CASE(a_map_whose_keys_repeat_is_a_list) {
  // Two items of one name: no map can hold them, so the text is a list (read back as one).
  File f = sample();
  f.items[1].name = "sword";
  const std::string t = text_of(f);
  BOOST_TEST(t.find("items:\n  - name: sword\n    weight: 3\n") != std::string::npos);
  BOOST_TEST((from_text(t) == decode(encode(f))));
  // Empty: an empty map.
  File e = sample();
  e.items.clear();
  const std::string te = text_of(e);
  BOOST_TEST(te.find("items: {}\n") != std::string::npos);
  BOOST_TEST((from_text(te) == decode(encode(e))));
}

// A map of more than 8 entries finds a key given twice through its hash
// table (up to 8: the keys before it), with the same message.
BOOST_AUTO_TEST_CASE(a_key_given_twice_in_a_long_map_is_an_error_at_the_second) {
  File f = sample();
  f.items.clear();
  for (int i = 0; i < 40; ++i) f.items.push_back(Item{"item" + std::to_string(i), uint16_t(i), 1, 0});
  const std::string t = text_of(f);
  BOOST_TEST((from_text(t) == decode(encode(f))));
  const std::string dup = replace(t, "  item33:\n", "  item7:\n");
  const size_t line = static_cast<size_t>(std::count(t.begin(), t.begin() + t.find("  item33:"), '\n')) + 1;
  const size_t first = static_cast<size_t>(std::count(t.begin(), t.begin() + t.find("  item7:"), '\n')) + 1;
  BOOST_TEST(error_of(dup) == std::to_string(line) + ":3: items[item7]: duplicate key 'item7' (first at " +
                                  std::to_string(first) + ":3)");
}

// A struct's fields read the same in any order of their keys (the reader
// looks them up from where the last one was); a key given twice is the
// first one's value, as before; a key that names no field is refused first.
BOOST_AUTO_TEST_CASE(struct_keys_in_any_order_read_the_same) {
  const std::string t = text_of(sample());
  const std::string in_order = "  sword:\n    weight: 3\n    count: 1\n    bonus: 7\n";
  BOOST_TEST_REQUIRE(t.find(in_order) != std::string::npos);
  const File want = decode(encode(sample()));
  for (const char* other : {"  sword:\n    bonus: 7\n    count: 1\n    weight: 3\n",
                            "  sword:\n    count: 1\n    bonus: 7\n    weight: 3\n",
                            "  sword:\n    bonus: 7\n    weight: 3\n    count: 1\n"})
    BOOST_TEST((from_text(replace(t, in_order, other)) == want), other);
  const File twice = from_text(replace(t, in_order, "  sword:\n    weight: 3\n    count: 1\n    bonus: 7\n    weight: 9\n"));
  BOOST_TEST(twice.items[0].weight == 3u);
  const File twice_first = from_text(replace(t, in_order, "  sword:\n    weight: 9\n    count: 1\n    bonus: 7\n    weight: 3\n"));
  BOOST_TEST(twice_first.items[0].weight == 9u);
  BOOST_TEST(error_of(replace(t, in_order, "  sword:\n    weight: 3\n    cuont: 1\n    bonus: 7\n")).find("unknown field 'cuont'") !=
             std::string::npos);
}
