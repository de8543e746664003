// cli/doctree: diff and three-way merge of documents by field path, on small
// YAML documents (the CLI's diff and merge over real files: mods_test).
#define BOOST_TEST_MODULE doctree_test
#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

#include "../cli/doctree.h"

using binschema::cli::Change;
using binschema::cli::Conflict;
using binschema::cli::Value;

namespace {

Value doc(const std::string& yaml) { return binschema::cli::to_value(binschema::text::load(yaml).root()); }

// "~ path", "+ path", "- path" per change.
std::vector<std::string> diff(const std::string& a, const std::string& b) {
  std::vector<Change> changes;
  binschema::cli::diff_values(doc(a), doc(b), "", changes);
  std::vector<std::string> out;
  for (const Change& c : changes)
    out.push_back((c.kind == Change::Kind::Changed ? "~ " : c.kind == Change::Kind::Added ? "+ " : "- ") + c.path);
  return out;
}

struct Merge {
  Value result;
  std::vector<std::string> conflicts;
};
Merge merge(const std::string& base, const std::string& ours, const std::string& theirs) {
  std::vector<Conflict> c;
  Merge m{binschema::cli::merge_values(doc(base), doc(ours), doc(theirs), "", c), {}};
  for (const Conflict& x : c) m.conflicts.push_back(x.path);
  return m;
}

const std::string kBase =
    "format: t\n"
    "events:\n"
    "  - {name: A, next: B, value: 1}\n"
    "  - {name: B, value: 2}\n"
    "numbers: [1, 2, 3]\n"
    "layout: {at: \"10:20\"}\n";

}  // namespace

BOOST_AUTO_TEST_CASE(diff_matches_keyed_elements_by_key_and_others_by_index) {
  BOOST_TEST(diff(kBase, kBase).empty());
  // Inserting an element before A changes nothing of A and B.
  const std::string inserted =
      "format: t\nevents:\n  - {name: C, value: 0}\n  - {name: A, next: B, value: 1}\n  - {name: B, value: 2}\n"
      "numbers: [1, 2, 3]\n";
  BOOST_TEST((diff(kBase, inserted) == std::vector<std::string>{"+ events[C]"}));  // A and B keep their order
  const std::string edited =
      "format: t\nevents:\n  - {name: A, value: 1}\n  - {name: B, value: 5}\nnumbers: [1, 9, 3, 4]\nextra: x\n";
  BOOST_TEST((diff(kBase, edited) ==
              std::vector<std::string>{"- events[A].next", "~ events[B].value", "~ numbers[1]", "+ numbers[3]", "+ extra"}));
  // Keys that look like numbers are quoted; duplicate names mean indices.
  BOOST_TEST((diff("l: [{name: '12', v: 1}]\n", "l: [{name: '12', v: 2}]\n") == std::vector<std::string>{"~ l[\"12\"].v"}));
  BOOST_TEST((diff("l: [{name: a, v: 1}, {name: a, v: 1}]\n", "l: [{name: a, v: 1}, {name: a, v: 2}]\n") ==
              std::vector<std::string>{"~ l[1].v"}));
  // A list of items keyed by `key`.
  BOOST_TEST((diff("items: [{key: x, value: 1}, {key: y, value: 2}]\n", "items: [{key: y, value: 3}, {key: x, value: 1}]\n") ==
              std::vector<std::string>{"~ items[y].value", "~ items(order)"}));
}

BOOST_AUTO_TEST_CASE(merge_combines_different_fields_and_lists_conflicts) {
  const std::string ours = "format: t\nevents:\n  - {name: A, next: B, value: 7}\n  - {name: B, value: 2}\nnumbers: [1, 2, 3]\n"
                           "layout: {at: \"10:30\"}\n";
  const std::string theirs =
      "format: t\nevents:\n  - {name: A, next: B, value: 1}\n  - {name: B, value: 2}\n  - {name: N, value: 3}\n"
      "numbers: [1, 2, 4]\nlayout: {at: \"10:40\"}\n";
  Merge m = merge(kBase, ours, theirs);
  BOOST_TEST(m.conflicts.empty());
  const std::string want = "format: t\nevents:\n  - {name: A, next: B, value: 7}\n  - {name: B, value: 2}\n"
                           "  - {name: N, value: 3}\nnumbers: [1, 2, 4]\nlayout: {at: \"10:30\"}\n";  // OURS's layout
  BOOST_TEST((m.result == doc(want)), to_json(m.result));

  // The same field both ways: a conflict, OURS kept.
  m = merge(kBase, "format: t\nevents: [{name: A, value: 1}, {name: B, value: 3}]\n",
            "format: t\nevents: [{name: A, value: 1}, {name: B, value: 4}]\n");
  BOOST_TEST((m.conflicts == std::vector<std::string>{"events[B].value"}));
  BOOST_TEST(m.result.get("events")->items[1].get("value")->text == "3");

  // Removed on one side and changed on the other: a conflict; removed and unchanged: removed.
  m = merge(kBase, "format: t\nevents: [{name: A, next: B, value: 1}]\nnumbers: [1, 2, 3]\n",
            "format: t\nevents: [{name: A, next: B, value: 1}, {name: B, value: 9}]\nnumbers: [1, 2, 3]\n");
  BOOST_TEST((m.conflicts == std::vector<std::string>{"events[B]"}));
  m = merge(kBase, "format: t\nevents: [{name: A, next: B, value: 1}]\nnumbers: [1, 2, 3]\n", kBase);
  BOOST_TEST(m.conflicts.empty());
  BOOST_TEST(m.result.get("events")->items.size() == 1u);

  // An unkeyed list whose length changed on both sides: one conflict at the list.
  m = merge("n: [1, 2]\n", "n: [1, 2, 3]\n", "n: [0, 2]\n");
  BOOST_TEST((m.conflicts == std::vector<std::string>{"n"}));
  // Added on both sides, differently: a conflict; the same way: fine.
  BOOST_TEST((merge("a: 1\n", "a: 1\nb: 2\n", "a: 1\nb: 3\n").conflicts == std::vector<std::string>{"b"}));
  BOOST_TEST(merge("a: 1\n", "a: 1\nb: 2\n", "a: 1\nb: 2\n").conflicts.empty());
}

BOOST_AUTO_TEST_CASE(json_text_reads_back_as_the_same_document) {
  const Value v = doc("a: \"x\\ty\"\nb: [~, '', \"\\u0001\", '12']\nc: {d: -0.0}\n");
  BOOST_TEST((doc(binschema::cli::to_json(v)) == v));
  BOOST_TEST((doc(binschema::cli::to_json(v, true)) == v));
  BOOST_TEST((v.get("b")->items[0].kind == Value::Kind::Null));
}

// A map (map: in a schema: events by name) names its entries by key after a
// dot; a key that would not read as one step of a path is quoted in brackets.
BOOST_AUTO_TEST_CASE(map_entries_are_named_by_key) {
  const std::string a = "format: t\nevents:\n  Talk: {next: Wave}\n  a.b: 1\n  \"\": 2\n  \" x\": 3\n";
  const std::string b = "format: t\nevents:\n  Talk: {next: Nod}\n  a.b: 5\n  \"\": 6\n  \" x\": 7\n  New: 8\n";
  BOOST_TEST((diff(a, b) == std::vector<std::string>{"~ events.Talk.next", "~ events[\"a.b\"]", "~ events[\"\"]",
                                                      "~ events[\" x\"]", "+ events.New"}));
  BOOST_TEST((diff("\"a[0]\": 1\n", "\"a[0]\": 2\n") == std::vector<std::string>{"~ [\"a[0]\"]"}));
}
