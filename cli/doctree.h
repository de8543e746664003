// Documents as values, for `binschema diff` and `binschema merge`: a parsed
// YAML or JSON document (text::Doc, read-only) copied into a small mutable
// tree, compared and merged by field path, and written back as JSON text that
// the formats' text readers take (every scalar a JSON string: the documents
// do not tell a quoted scalar from a plain one, so nothing is lost).
//
// Nothing here knows a format. Lists are matched element by element by their
// key where the document has one, as `ref:` finds an element's key: the
// `name` field of every element (else its `key` field), when every element of
// both lists has one, as a scalar, and no two elements share it; otherwise by
// index. Paths read like the text errors' (`flowcharts[0].events[Event4].data`):
// `[3]` is an index, `[Event4]` a key (`["12"]` when the key looks like a
// number). The root's `layout:` entry (where the file's writer put things,
// not a field) is left out of diffs and taken from OURS in a merge.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "binschema/text_doc.h"

namespace binschema::cli {

struct Value {
  enum class Kind : uint8_t { Null, Scalar, Seq, Map };
  Kind kind = Kind::Null;
  std::string text;                // a scalar's characters
  std::vector<std::string> keys;   // a map's keys (in order)
  std::vector<Value> items;        // a list's items, or a map's values (beside keys)

  const Value* get(std::string_view key) const;
  bool operator==(const Value&) const = default;
};

// A copy of a parsed document's node (a YAML alias becomes a copy of what it names).
Value to_value(text::Node n);

// JSON text of a value, every scalar a string; `pretty` indents by two.
std::string to_json(const Value& v, bool pretty = false);
// One line for messages: scalars as they are (quoted when empty or with
// spaces at the ends), lists and maps in flow form, cut at `max` characters.
std::string brief(const Value& v, size_t max = 80);

struct Change {
  enum class Kind : uint8_t { Changed, Added, Removed };
  Kind kind;
  std::string path;
  Value before, after;  // Null when added / removed
};

// The changes from A to B by field path, in document order. `prefix` starts
// every path (a member's name and ':' in archives).
void diff_values(const Value& a, const Value& b, const std::string& prefix, std::vector<Change>& out);

struct Conflict {
  std::string path;
  Value base, ours, theirs;
  bool base_absent = false, ours_absent = false, theirs_absent = false;
};

// Three-way merge: what OURS and THEIRS each changed from BASE, combined.
// Where both changed the same field differently, OURS is kept in the result
// and the field is listed in `conflicts`.
Value merge_values(const Value& base, const Value& ours, const Value& theirs, const std::string& prefix,
                   std::vector<Conflict>& conflicts);

}  // namespace binschema::cli
