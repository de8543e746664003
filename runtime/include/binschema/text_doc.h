// A parsed YAML or JSON document, as text::In reads it: every node in one
// array (a "tape": a list or map is followed by its items, a map's items
// alternating key and value), every scalar's characters in one string.
//
// Three parsers fill it: a JSON one of our own for documents that are plain
// JSON, one of our own for the block YAML that binschema writes, and
// yaml-cpp's event parser for everything else (any text the fast ones do not
// take: it then gives the same nodes, and yaml-cpp's own error messages for
// broken text). No tree of heap objects is built:
// a node is 16 bytes, and a document costs about its text size in memory.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace binschema::text {

class Doc;

// Where a node starts: line and column from 1, and its byte offset (for
// the text budget). `known` is false for the empty document.
struct Mark {
  bool known = false;
  uint32_t line = 0;
  uint32_t col = 0;
  uint64_t pos = 0;
};

enum class NodeKind : uint8_t { Null, Scalar, Seq, Map };

// A handle on one node of a Doc: a pointer and an index, copied freely.
// A default-made Node is "absent" (what a map lookup gives for a missing key).
class Node {
 public:
  Node() = default;
  Node(const Doc* doc, uint32_t index) : doc_(doc), i_(index) {}

  explicit operator bool() const { return doc_ != nullptr; }
  NodeKind kind() const;
  bool is_null() const { return kind() == NodeKind::Null; }
  bool is_scalar() const { return kind() == NodeKind::Scalar; }
  bool is_seq() const { return kind() == NodeKind::Seq; }
  bool is_map() const { return kind() == NodeKind::Map; }
  // A scalar's text ("" for anything else).
  std::string_view scalar() const;
  // The node's YAML tag as yaml-cpp reports it ("!u"; "!!binary" as
  // "tag:yaml.org,2002:binary"), "" when it has none.
  std::string_view tag() const;
  // Whether a scalar was quoted (single or double quotes; a JSON string):
  // such a scalar is a string, whatever its text.
  bool quoted() const;
  // Items of a list, entries of a map; 0 for anything else.
  size_t size() const;
  Mark mark() const;
  // mark().pos without working out the line and column (0 when unknown).
  uint64_t offset() const;
  // Bytes of text from this node's start to the start of the last node
  // under it (0 for a scalar): the text a list's items stand in.
  uint64_t span() const;

  // A map's value under `key` (the first, if the key is there twice), or an
  // absent Node.
  Node get(std::string_view key) const;
  // get(name) for a map whose keys are all different (text::In checks that
  // first), starting at the entry `hint` (a raw index; 0: the first entry)
  // and going round: the entry after the one found is the next hint. Fields
  // asked in the order the map gives them are found at the first try. Any
  // other hint still ends (maybe with a wrong node or none).
  Node get_hinted(const char* name, uint32_t& hint) const;

  // Items of a list (in order), or keys and values of a map (alternating).
  class Iterator {
   public:
    Iterator(const Doc* doc, uint32_t raw) : doc_(doc), raw_(raw) {}
    Node operator*() const;
    Iterator& operator++();
    bool operator!=(const Iterator& o) const { return raw_ != o.raw_; }

   private:
    const Doc* doc_;
    uint32_t raw_;
  };
  struct Range {
    Iterator b, e;
    Iterator begin() const { return b; }
    Iterator end() const { return e; }
  };
  // A list's items; a map's keys and values, alternating (k0 v0 k1 v1 ...).
  Range children() const;
  // The first entry of a map (its key), and the node after it (its value).
  Node first_key() const;
  Node first_value() const;

 private:
  const Doc* doc_ = nullptr;
  uint32_t i_ = 0;
};

class Doc {
 public:
  // The root (a Null node without a mark for an empty document).
  Node root() const { return Node(this, resolve(0)); }

  // Filling it (the parsers). Positions are byte offsets into the text.
  // 12 bytes: b and the kind share a word, so b (a scalar's length, a node
  // index) is below 2^29; the parsers refuse larger texts and strings.
  static constexpr uint32_t kMaxB = (1u << 29) - 1;
  class Raw {
   public:
    Raw(uint32_t pos_, uint32_t a_, uint32_t b_, NodeKind kind, bool alias = false)
        : pos(pos_), a(a_), bits_(b_ | static_cast<uint32_t>(kind) << 29 | (alias ? 1u << 31 : 0u)) {}
    uint32_t pos;
    uint32_t a;  // scalar: offset into chars_; list/map: count; alias: target
    // scalar: length; list/map: index after the last child
    uint32_t b() const { return bits_ & kMaxB; }
    void set_b(uint32_t v) { bits_ = (bits_ & ~kMaxB) | v; }
    NodeKind kind() const { return static_cast<NodeKind>(bits_ >> 29 & 3); }
    bool alias() const { return bits_ >> 31; }  // refers to node `a` (a YAML alias)

   private:
    uint32_t bits_;
  };
  std::vector<Raw>& raw_nodes() { return nodes_; }
  std::string& chars() { return chars_; }
  // Offsets at which lines start (the first is 0), when the marks are
  // computed from positions; or explicit marks, one per node (yaml-cpp's).
  std::vector<uint32_t>& line_starts() { return line_starts_; }
  // Tags and quotes, kept beside the nodes (few nodes have a tag; a bit a
  // node says it was quoted). set_tag is called in node order.
  void set_tag(uint32_t i, std::string_view tag);
  void set_quoted(uint32_t i) {
    if (quoted_.size() <= i / 64) quoted_.resize(i / 64 + 1);
    quoted_[i / 64] |= uint64_t(1) << (i % 64);
  }
  std::string_view tag(uint32_t i) const;
  bool quoted(uint32_t i) const { return i / 64 < quoted_.size() && (quoted_[i / 64] >> (i % 64) & 1); }
  std::vector<std::pair<uint32_t, uint32_t>>& line_cols() { return line_cols_; }

  // The node a raw index stands for (an alias's target).
  uint32_t resolve(uint32_t i) const { return nodes_[i].alias() ? nodes_[i].a : i; }
  const Raw& raw(uint32_t i) const { return nodes_[i]; }
  // The raw index after node i and everything under it.
  uint32_t after(uint32_t i) const {
    const Raw& r = nodes_[i];
    return !r.alias() && (r.kind() == NodeKind::Seq || r.kind() == NodeKind::Map) ? r.b() : i + 1;
  }
  std::string_view text_of(uint32_t i) const { return std::string_view(chars_.data() + nodes_[i].a, nodes_[i].b()); }
  Mark mark(uint32_t i) const;
  uint64_t offset(uint32_t i) const { return unmarked_ ? 0 : nodes_[i].pos; }
  bool empty() const { return nodes_.empty(); }
  // Makes this the empty document: one Null node, no mark.
  void set_empty();
  // Bytes held (for the benchmark's memory table and tests).
  size_t memory() const {
    return nodes_.capacity() * sizeof(Raw) + chars_.capacity() + line_starts_.capacity() * 4 + line_cols_.capacity() * 8 +
           quoted_.capacity() * 8 + tags_.capacity() * sizeof(Tag) + tag_chars_.capacity();
  }

 private:
  std::vector<Raw> nodes_;
  std::string chars_;
  std::vector<uint32_t> line_starts_;
  std::vector<std::pair<uint32_t, uint32_t>> line_cols_;
  std::vector<uint64_t> quoted_;
  struct Tag {
    uint32_t node, at, size;  // the tag's text is tag_chars_[at, at + size)
  };
  std::vector<Tag> tags_;  // by node index
  std::string tag_chars_;
  bool unmarked_ = false;
};

// The accessors text::In calls for every node, inline (they were calls into
// text_doc.cpp: a tenth of reading BFEVFL's Common.bfevfl from its document).
inline NodeKind Node::kind() const { return doc_->raw(i_).kind(); }
inline std::string_view Node::scalar() const {
  return kind() == NodeKind::Scalar ? doc_->text_of(i_) : std::string_view();
}
inline size_t Node::size() const {
  const auto& r = doc_->raw(i_);
  return r.kind() == NodeKind::Seq || r.kind() == NodeKind::Map ? r.a : 0;
}
inline uint64_t Node::offset() const { return doc_->offset(i_); }
inline Node::Range Node::children() const {
  const auto& r = doc_->raw(i_);
  if (r.kind() != NodeKind::Seq && r.kind() != NodeKind::Map) return {{doc_, i_ + 1}, {doc_, i_ + 1}};
  return {{doc_, i_ + 1}, {doc_, r.b()}};
}
// Whether a key's text is the NUL-terminated `name` (no strlen).
inline bool key_is(std::string_view key, const char* name) {
  for (size_t i = 0; i < key.size(); ++i)
    if (name[i] == '\0' || name[i] != key[i]) return false;
  return name[key.size()] == '\0';
}
inline Node Node::get_hinted(const char* name, uint32_t& hint) const {
  const auto& r = doc_->raw(i_);
  if (r.kind() != NodeKind::Map) return {};
  const uint32_t begin = i_ + 1, end = r.b();
  if (begin >= end) return {};
  const uint32_t start = hint > begin && hint < end ? hint : begin;
  uint32_t k = start;
  // Each step passes at least two nodes, so end - begin steps see every entry
  // even from a hint that is not a key (not one an earlier call left): the
  // walk then ends at the bound instead of going round for ever.
  for (uint32_t left = end - begin; left > 0; --left) {
    const uint32_t v = doc_->after(k);
    if (v >= end) {  // k was the map's last value (a hint that is not a key)
      k = begin;
      if (k == start) break;
      continue;
    }
    const uint32_t rk = doc_->resolve(k);
    const uint32_t next = doc_->after(v);
    if (doc_->raw(rk).kind() == NodeKind::Scalar && key_is(doc_->text_of(rk), name)) {
      hint = next;
      return Node(doc_, doc_->resolve(v));
    }
    k = next < end ? next : begin;
    if (k == start) break;
  }
  return {};
}
inline Node Node::Iterator::operator*() const { return Node(doc_, doc_->resolve(raw_)); }
inline Node::Iterator& Node::Iterator::operator++() {
  raw_ = doc_->after(raw_);
  return *this;
}

// Parses a YAML or JSON document. Nesting deeper than kTextMaxDepth throws
// TextError with the line:col; a YAML alias inside the list or map it names
// is refused the same way; other syntax errors are yaml-cpp's
// ParserException, which carries its mark. Text over 4 GiB is refused.
Doc load(std::string_view text);
// load() on a file's contents; throws std::runtime_error if it cannot be read.
Doc load_file(const std::string& path);

// Where two documents first differ in kinds, scalar text or marks, as a
// path of child indices ("$/3/0: ..."); "" when they are the same.
std::string first_difference(Node a, Node b);

// The two parsers, for tests, fuzzers and the benchmark: the JSON one returns false
// (leaving `doc` to be thrown away) for anything it does not take; the YAML
// one takes every document load() does.
bool load_json(std::string_view text, Doc& doc);
// The block YAML text::YamlSink writes (maps of identifiers, lists, plain and
// double-quoted scalars, tags, one-line flow lists and maps with plain or
// quoted keys): false for anything else.
bool load_block_yaml(std::string_view text, Doc& doc);
Doc load_yaml(std::string_view text);

}  // namespace binschema::text
