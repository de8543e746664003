// The parsers behind text::load (binschema/text_doc.h): strict JSON, the
// block YAML binschema writes, and yaml-cpp's event parser for the rest; and
// the Node and Doc accessors they share.
#include "binschema/text_doc.h"

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/mark.h>
#include <yaml-cpp/parser.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <istream>
#include <iterator>
#include <limits>
#include <stdexcept>
#include <streambuf>
#include <unordered_map>
#include <utility>

#include "binschema/error.h"
#include "binschema/text.h"

namespace binschema::text {

// ---- Node -------------------------------------------------------------------

Mark Node::mark() const { return doc_->mark(i_); }

std::string_view Node::tag() const { return doc_->tag(i_); }

bool Node::quoted() const { return kind() == NodeKind::Scalar && doc_->quoted(i_); }

uint64_t Node::span() const {
  const auto& r = doc_->raw(i_);
  if ((r.kind() != NodeKind::Seq && r.kind() != NodeKind::Map) || r.b() <= i_ + 1) return 0;
  const uint32_t last = doc_->raw(r.b() - 1).pos;
  return last > r.pos ? last - r.pos : 0;
}

Node Node::get(std::string_view key) const {
  if (kind() != NodeKind::Map) return {};
  const uint32_t end = doc_->raw(i_).b();
  for (uint32_t k = i_ + 1; k < end;) {
    const uint32_t v = doc_->after(k);
    const uint32_t rk = doc_->resolve(k);
    if (doc_->raw(rk).kind() == NodeKind::Scalar && doc_->text_of(rk) == key) return Node(doc_, doc_->resolve(v));
    k = doc_->after(v);
  }
  return {};
}

Node Node::first_key() const { return size() ? Node(doc_, doc_->resolve(i_ + 1)) : Node(); }

Node Node::first_value() const { return size() ? Node(doc_, doc_->resolve(doc_->after(i_ + 1))) : Node(); }

namespace {

std::string mark_text(const Mark& m) {
  return m.known ? std::to_string(m.line) + ":" + std::to_string(m.col) + "@" + std::to_string(m.pos) : "?";
}

std::string difference(Node a, Node b, const std::string& path) {
  if (a.kind() != b.kind())
    return path + ": kind " + std::to_string(int(a.kind())) + " vs " + std::to_string(int(b.kind()));
  const Mark ma = a.mark(), mb = b.mark();
  if (ma.known != mb.known || ma.line != mb.line || ma.col != mb.col || ma.pos != mb.pos)
    return path + ": at " + mark_text(ma) + " vs " + mark_text(mb);
  if (a.scalar() != b.scalar()) return path + ": '" + std::string(a.scalar()) + "' vs '" + std::string(b.scalar()) + "'";
  if (a.tag() != b.tag()) return path + ": tag '" + std::string(a.tag()) + "' vs '" + std::string(b.tag()) + "'";
  if (a.quoted() != b.quoted()) return path + std::string(": quoted ") + (a.quoted() ? "yes" : "no") + " vs " + (b.quoted() ? "yes" : "no");
  if (a.size() != b.size()) return path + ": size " + std::to_string(a.size()) + " vs " + std::to_string(b.size());
  auto ib = b.children().begin();
  size_t k = 0;
  for (const Node x : a.children()) {
    std::string d = difference(x, *ib, path + "/" + std::to_string(k++));
    if (!d.empty()) return d;
    ++ib;
  }
  return "";
}

}  // namespace

std::string first_difference(Node a, Node b) { return difference(a, b, "$"); }

// ---- Doc --------------------------------------------------------------------

Mark Doc::mark(uint32_t i) const {
  if (unmarked_) return {};
  Mark m;
  m.known = true;
  m.pos = nodes_[i].pos;
  if (!line_cols_.empty()) {
    m.line = line_cols_[i].first;
    m.col = line_cols_[i].second;
  } else {
    // The last line starting at or before pos.
    auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), nodes_[i].pos);
    const size_t line = static_cast<size_t>(it - line_starts_.begin());  // >= 1: line_starts_[0] == 0
    m.line = static_cast<uint32_t>(line);
    m.col = nodes_[i].pos - line_starts_[line - 1] + 1;
  }
  return m;
}

void Doc::set_tag(uint32_t i, std::string_view tag) {
  if (tag.empty()) return;
  tags_.push_back({i, static_cast<uint32_t>(tag_chars_.size()), static_cast<uint32_t>(tag.size())});
  tag_chars_.append(tag);
}

std::string_view Doc::tag(uint32_t i) const {
  const auto it = std::lower_bound(tags_.begin(), tags_.end(), i, [](const Tag& t, uint32_t n) { return t.node < n; });
  if (it == tags_.end() || it->node != i) return {};
  return std::string_view(tag_chars_).substr(it->at, it->size);
}

void Doc::set_empty() {
  nodes_.assign(1, Raw{0, 0, 0, NodeKind::Null});
  unmarked_ = true;
}

namespace {

constexpr uint32_t kMaxText = std::numeric_limits<uint32_t>::max() - 1;

[[noreturn]] void too_deep(const std::string& where) {
  throw TextError(where, "",
                  "lists and maps nested more than " + std::to_string(kTextMaxDepth) +
                      " levels deep: refused (nesting too deep)");
}

// The length of the valid UTF-8 sequence at p (0 if it is not one).
size_t utf8_length(const char* p, const char* end) {
  const size_t left = static_cast<size_t>(end - p);
  const std::string_view s(p, std::min<size_t>(left, 4));
  const unsigned char c = static_cast<unsigned char>(s[0]);
  const size_t n = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 0;
  if (n == 0 || n > left) return 0;
  return is_utf8(s.substr(0, n)) ? n : 0;
}

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xc0 | cp >> 6);
    out += static_cast<char>(0x80 | (cp & 0x3f));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xe0 | cp >> 12);
    out += static_cast<char>(0x80 | (cp >> 6 & 0x3f));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  } else {
    out += static_cast<char>(0xf0 | cp >> 18);
    out += static_cast<char>(0x80 | (cp >> 12 & 0x3f));
    out += static_cast<char>(0x80 | (cp >> 6 & 0x3f));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  }
}

// JSON's escapes (" \\ n r t u; \b \f \/ are left to yaml-cpp), or YAML's as
// text::YamlSink writes them (those and b f x U).
enum class Escapes { Json, Yaml };

// A double-quoted string on one line, p at its opening quote: its text
// appended to `out`, p moved past the closing quote. False for what the fast
// parsers leave to yaml-cpp: a line break or other control character, bytes
// that are not UTF-8, another escape, a surrogate, a string over 512 MiB.
bool read_quoted(const char*& p, const char* end, std::string& out, Escapes escapes) {
  const size_t start = out.size();
  ++p;  // the opening quote
  for (;;) {
    // The run of plain bytes up to a quote, a backslash or a byte that needs
    // a look (control, non-ASCII).
    const char* q = p;
    while (q < end) {
      const unsigned char c = static_cast<unsigned char>(*q);
      if (c == '"' || c == '\\' || c < 0x20 || c >= 0x80) break;
      ++q;
    }
    out.append(p, q);
    p = q;
    if (p == end) return false;
    const unsigned char c = static_cast<unsigned char>(*p);
    if (c == '"') {
      ++p;
      break;
    }
    if (c < 0x20) return false;
    if (c >= 0x80) {
      const size_t n = utf8_length(p, end);
      if (n == 0) return false;
      out.append(p, n);
      p += n;
      continue;
    }
    // A backslash.
    if (end - p < 2) return false;
    const char e = p[1];
    p += 2;
    if (escapes == Escapes::Json && (e == 'b' || e == 'f' || e == 'x' || e == 'U')) return false;
    int digits = 0;
    switch (e) {
      case '"': out += '"'; break;
      case '\\': out += '\\'; break;
      case 'n': out += '\n'; break;
      case 'r': out += '\r'; break;
      case 't': out += '\t'; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'x': digits = 2; break;
      case 'u': digits = 4; break;
      case 'U': digits = 8; break;
      default: return false;
    }
    if (digits) {
      if (end - p < digits) return false;
      uint32_t cp = 0;
      for (int k = 0; k < digits; ++k) {
        const int h = hex_digit(p[k]);
        if (h < 0) return false;
        cp = cp << 4 | static_cast<uint32_t>(h);
      }
      p += digits;
      if ((cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff) return false;  // surrogates: yaml-cpp decides
      append_utf8(out, cp);
    }
  }
  return out.size() - start <= Doc::kMaxB;
}

// What both fast parsers share: the cursor over the text and the tape they fill.
class TapeParser {
 protected:
  TapeParser(std::string_view text, Doc& doc)
      : p_(text.data()), begin_(text.data()), end_(text.data() + text.size()),
        doc_(doc), nodes_(doc.raw_nodes()), chars_(doc.chars()), lines_(doc.line_starts()) {}

  uint32_t pos(const char* q) const { return static_cast<uint32_t>(q - begin_); }
  // Where the next node starts: at its tag, when it has one (as yaml-cpp marks it).
  uint32_t node_pos(const char* q) {
    if (tag_start_) q = std::exchange(tag_start_, nullptr);
    return pos(q);
  }
  // A list or map at `at`; close() sets its count and where it ends.
  uint32_t open(const char* at, NodeKind kind) {
    nodes_.push_back({node_pos(at), 0, 0, kind});
    return static_cast<uint32_t>(nodes_.size() - 1);
  }
  void close(uint32_t at, uint32_t count) {
    nodes_[at].a = count;
    nodes_[at].set_b(static_cast<uint32_t>(nodes_.size()));
  }
  void push_scalar(const char* at, std::string_view s, NodeKind kind) {
    nodes_.push_back({node_pos(at), static_cast<uint32_t>(chars_.size()), static_cast<uint32_t>(s.size()), kind});
    chars_.append(s);
  }
  // A double-quoted scalar at p_.
  bool quoted(Escapes escapes) {
    const char* at = p_;
    const size_t start = chars_.size();
    if (!read_quoted(p_, end_, chars_, escapes)) return false;
    const bool tagged = tag_start_;  // yaml-cpp reports the tag, not the quotes
    nodes_.push_back({node_pos(at), static_cast<uint32_t>(start), static_cast<uint32_t>(chars_.size() - start), NodeKind::Scalar});
    if (!tagged) doc_.set_quoted(static_cast<uint32_t>(nodes_.size() - 1));
    return true;
  }

  const char* p_;
  const char* begin_;
  const char* end_;
  const char* tag_start_ = nullptr;  // a tag read before the next node
  Doc& doc_;
  std::vector<Doc::Raw>& nodes_;
  std::string& chars_;
  std::vector<uint32_t>& lines_;
};

// ---- JSON -------------------------------------------------------------------

// Strict JSON (RFC 8259) into the tape. Gives up (returns false) on anything
// yaml-cpp would read differently or report an error for, so that those
// documents take the YAML path: text that is not JSON, a byte order mark,
// bytes that are not UTF-8, control characters, the escapes \b \f \/ and
// lone surrogates, and nesting deeper than kTextMaxDepth.
class JsonParser : TapeParser {
 public:
  JsonParser(std::string_view text, Doc& doc) : TapeParser(text, doc) {}

  bool run() {
    lines_.push_back(0);
    skip_ws();
    if (p_ == end_ || (*p_ != '{' && *p_ != '[')) return false;  // a bare scalar or YAML: not ours
    // An upper bound on the nodes: every value but the first follows one of
    // [ { , : (strings holding those only raise it).
    size_t marks = 1;
    for (const char* q = p_; q < end_; ++q) marks += *q == ',' || *q == ':' || *q == '[' || *q == '{';
    nodes_.reserve(marks);
    chars_.reserve((end_ - p_) / 2);
    if (!value(0)) return false;
    skip_ws();
    return p_ == end_ && nodes_.size() <= Doc::kMaxB;
  }

 private:
  void skip_ws() {
    while (p_ < end_) {
      const char c = *p_;
      if (c == ' ' || c == '\t' || (c == '\r' && p_ + 1 < end_ && p_[1] == '\n')) {
        ++p_;  // a CR only before LF: yaml-cpp counts a lone CR as a line break
      } else if (c == '\n') {
        ++p_;
        lines_.push_back(pos(p_));
      } else {
        break;
      }
    }
  }

  bool value(int depth) {
    if (p_ == end_) return false;
    switch (*p_) {
      case '{': return container(NodeKind::Map, '}', depth);
      case '[': return container(NodeKind::Seq, ']', depth);
      case '"': return string();
      case 't': return word("true", NodeKind::Scalar);
      case 'f': return word("false", NodeKind::Scalar);
      case 'n': return word("null", NodeKind::Null);
      default: return number();
    }
  }

  bool container(NodeKind kind, char closer, int depth) {
    if (depth >= kTextMaxDepth) return false;
    const uint32_t at = open(p_, kind);
    ++p_;
    skip_ws();
    uint32_t count = 0;
    if (p_ < end_ && *p_ == closer) {
      ++p_;
    } else {
      for (;;) {
        if (kind == NodeKind::Map) {
          if (p_ == end_ || *p_ != '"' || !string()) return false;
          skip_ws();
          if (p_ == end_ || *p_ != ':') return false;
          ++p_;
          skip_ws();
        }
        if (!value(depth + 1)) return false;
        ++count;
        skip_ws();
        if (p_ == end_) return false;
        if (*p_ == ',') {
          ++p_;
          skip_ws();
          continue;
        }
        if (*p_ != closer) return false;
        ++p_;
        break;
      }
    }
    close(at, count);
    return true;
  }

  bool word(std::string_view w, NodeKind kind) {
    if (static_cast<size_t>(end_ - p_) < w.size() || std::memcmp(p_, w.data(), w.size()) != 0) return false;
    const char* at = p_;
    p_ += w.size();
    if (p_ < end_ && !ends_scalar(*p_)) return false;
    push_scalar(at, w, kind);
    return true;
  }

  static bool ends_scalar(char c) { return c == ',' || c == ']' || c == '}' || c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

  bool number() {
    const char* s = p_;
    const char* q = p_;
    if (q < end_ && *q == '-') ++q;
    if (q == end_) return false;
    if (*q == '0') {
      ++q;
    } else if (*q >= '1' && *q <= '9') {
      while (q < end_ && *q >= '0' && *q <= '9') ++q;
    } else {
      return false;
    }
    if (q < end_ && *q == '.') {
      ++q;
      const char* d = q;
      while (q < end_ && *q >= '0' && *q <= '9') ++q;
      if (q == d) return false;
    }
    if (q < end_ && (*q == 'e' || *q == 'E')) {
      ++q;
      if (q < end_ && (*q == '+' || *q == '-')) ++q;
      const char* d = q;
      while (q < end_ && *q >= '0' && *q <= '9') ++q;
      if (q == d) return false;
    }
    if (q < end_ && !ends_scalar(*q)) return false;
    p_ = q;
    push_scalar(s, std::string_view(s, static_cast<size_t>(q - s)), NodeKind::Scalar);
    return true;
  }

  bool string() { return quoted(Escapes::Json); }
};

// ---- YAML as binschema writes it ------------------------------------------------

// The block YAML that text::YamlSink writes, into the tape: block maps whose
// keys are identifiers, block lists ("- "), two more spaces of indentation
// per level, plain scalars made of letters, digits, _ . + - / ~ and inner
// spaces, double-quoted scalars with the sink's escapes, tags before a
// value ("!u 5", "!!map [...]"), and flow lists and maps on one line
// ("[1, x y]", "{bytes: 00ff}", "{X: 1.5, \"Y\": 0.0}", "{0x00001234: !u 7}");
// and what people add when they edit such a file: comment lines, blank
// lines, a comment after a value or after "key:", spaces at the end of a
// line, colons (Npc::Mode) and characters past ASCII in plain values.
// Anything else (anchors, a tag before a block collection, single quotes,
// block scalars, tabs outside comments, CR, other indentation, a value that
// is not there, flow collections over lines or without the sink's ", ")
// gives up (false), and the text takes yaml-cpp's path; so do bytes that are
// not UTF-8.
class YamlParser : TapeParser {
 public:
  YamlParser(std::string_view text, Doc& doc) : TapeParser(text, doc) {
    // Trailing newlines end the document.
    while (end_ > p_ && end_[-1] == '\n') --end_;
  }

  bool run() {
    lines_.push_back(0);
    skip_unread_lines();
    if (p_ == end_ || !starts_key(p_)) return false;  // a document that is a map of keys, from column 0
    // At most the nodes: a line holds a key and its value, or a dash and
    // its value, a "- key: value" line one more; flow lists add one per
    // comma and bracket.
    // The scalars' characters: the text but its indentation, line breaks,
    // ": ", "- ", ", " and brackets (more if quoted strings hold those).
    size_t estimate = 3;
    size_t markup = 0;
    bool indenting = true;
    for (const char* q = p_; q < end_; ++q) {
      const char c = *q;
      const bool pair = q + 1 < end_ && q[1] == ' ' && (c == ':' || c == '-' || c == ',');
      estimate += (c == '\n') * 2 + (c == ',' || c == '[' || c == '{' || (c == '-' && pair));
      markup += (indenting && c == ' ') + (c == '\n') + 2 * pair + (c == '[' || c == ']' || c == '{' || c == '}');
      indenting = c == '\n' || (indenting && c == ' ');
    }
    nodes_.reserve(estimate);
    chars_.reserve(static_cast<size_t>(end_ - p_) - std::min(markup, static_cast<size_t>(end_ - p_)));
    if (!block_map(0, 0)) return false;
    return p_ == end_ && nodes_.size() <= Doc::kMaxB && chars_.size() <= Doc::kMaxB;
  }

 private:
  static bool ident_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
  static bool ident_char(char c) { return ident_start(c) || (c >= '0' && c <= '9'); }
  static bool plain_char(char c) {
    return ident_char(c) || c == '.' || c == '+' || c == '-' || c == '/' || c == '~';
  }
  static bool is_null_word(std::string_view s) { return s == "~" || s == "null" || s == "Null" || s == "NULL"; }

  // The length of a character other than ASCII that may stand in a plain
  // scalar as yaml-cpp reads it (0 otherwise): valid UTF-8 from U+00A0 on,
  // but the line and paragraph separators, the byte order mark and the
  // noncharacters.
  size_t plain_utf8(const char* q) const {
    const size_t n = utf8_length(q, end_);
    if (n == 0) return 0;
    const auto b = [&](size_t i) { return static_cast<uint32_t>(static_cast<unsigned char>(q[i])); };
    const uint32_t cp = n == 2 ? (b(0) & 0x1f) << 6 | (b(1) & 0x3f)
                      : n == 3 ? (b(0) & 0x0f) << 12 | (b(1) & 0x3f) << 6 | (b(2) & 0x3f)
                               : (b(0) & 0x07) << 18 | (b(1) & 0x3f) << 12 | (b(2) & 0x3f) << 6 | (b(3) & 0x3f);
    if (cp < 0xa0 || cp == 0x2028 || cp == 0x2029 || cp == 0xfeff || (cp >= 0xfdd0 && cp <= 0xfdef) || (cp & 0xfffe) == 0xfffe)
      return 0;
    return n;
  }

  // Where a key that starts at q ends (at its ':'), or null: an identifier,
  // a plain scalar without spaces (a map entry's key: 12, 0x1f, -3, Name.1),
  // or a double-quoted one on one line; then ':' and a space or the end of
  // the line.
  const char* key_end(const char* q) const {
    if (q == end_) return nullptr;
    if (*q == '"') {
      for (++q; q < end_ && *q != '"' && *q != '\n'; ++q)
        if (*q == '\\') ++q;
      if (q >= end_ || *q != '"') return nullptr;
      ++q;
    } else {
      const char* s = q;
      while (q < end_) {
        if (plain_char(*q)) ++q;
        else if (const size_t n = plain_utf8(q)) q += n;
        else break;
      }
      if (q == s || (*s == '-' && q - s == 1)) return nullptr;
    }
    return q < end_ && *q == ':' && (q + 1 == end_ || q[1] == ' ' || q[1] == '\n') ? q : nullptr;
  }
  bool starts_key(const char* q) const { return key_end(q) != nullptr; }

  // From q: a comment ("#" and the rest of the line, UTF-8 without CR) or
  // nothing, before the end of the line. Returns where that line ends, or
  // null for anything else.
  const char* comment_to_eol(const char* q) const {
    if (q == end_ || *q == '\n') return q;
    if (*q != '#') return nullptr;
    while (q < end_ && *q != '\n') {
      const unsigned char c = static_cast<unsigned char>(*q);
      if (c < 0x80) {
        if (c == '\r' || (c < 0x20 && c != '\t') || c == 0x7f) return nullptr;
        ++q;
      } else {
        const size_t n = utf8_length(q, end_);
        if (n == 0) return nullptr;
        q += n;
      }
    }
    return q;
  }

  // From q, after a value or an indicator: spaces and a comment, or
  // nothing, to the end of the line (null otherwise). A comment needs a
  // space before it.
  const char* trailing_to_eol(const char* q) const {
    const char* s = q;
    while (q < end_ && *q == ' ') ++q;
    if (q < end_ && *q == '#' && q == s) return nullptr;
    return comment_to_eol(q);
  }

  // At the start of a line: past the lines that hold only spaces or a
  // comment (yaml-cpp reads nothing there, at any indentation).
  void skip_unread_lines() {
    while (p_ < end_) {
      const char* q = p_;
      while (q < end_ && *q == ' ') ++q;
      const char* e = comment_to_eol(q);
      if (!e) return;  // a line with content (or one no one may take: indentation() says)
      p_ = e;
      if (p_ == end_) return;
      ++p_;
      lines_.push_back(pos(p_));
    }
  }

  // At the start of a line (after a '\n' or at the end): past the lines
  // without content, the indentation of the next, or -1 at the end of the
  // text, -2 for a line this parser does not take.
  int indentation() {
    skip_unread_lines();
    if (p_ == end_) return -1;
    const char* q = p_;
    while (q < end_ && *q == ' ') ++q;
    if (q == end_ || *q == '\n' || *q == '\t' || *q == '\r' || *q == '#') return -2;
    return static_cast<int>(q - p_);
  }
  // Past the '\n' that ends a value's line (or at the end of the text),
  // and any spaces and comment before it.
  bool end_line() {
    const char* e = trailing_to_eol(p_);
    if (!e) return false;
    p_ = e;
    if (p_ == end_) return true;
    ++p_;
    lines_.push_back(pos(p_));
    return true;
  }

  // A plain scalar: null when yaml-cpp reads it as null.
  void push_plain(const char* at, std::string_view s) {
    push_scalar(at, s, is_null_word(s) && !tag_start_ ? NodeKind::Null : NodeKind::Scalar);  // "!u ~" is a tagged scalar to yaml-cpp
  }

  // A block map whose keys stand at column `col`; p_ is at its first key.
  bool block_map(int col, int depth) {
    if (depth >= kTextMaxDepth) return false;
    const uint32_t at = open(p_, NodeKind::Map);
    uint32_t count = 0;
    for (;;) {
      const char* k = p_;
      if (*p_ == '"') {
        if (!quoted() || p_ == end_ || *p_ != ':') return false;
      } else {
        p_ = key_end(p_);
        const std::string_view key(k, static_cast<size_t>(p_ - k));
        if (is_null_word(key)) return false;
        push_plain(k, key);
      }
      ++p_;  // ':' (starts_key checked it)
      if (!value_after_indicator(col, depth)) return false;
      ++count;
      const int next = indentation();
      if (next == -1 || next < col) break;
      if (next != col || !starts_key(p_ + next)) return false;
      p_ += next;
    }
    close(at, count);
    return true;
  }

  // A block list whose dashes stand at column `col`; p_ is at its first dash.
  bool block_seq(int col, int depth) {
    if (depth >= kTextMaxDepth) return false;
    const uint32_t at = open(p_, NodeKind::Seq);
    uint32_t count = 0;
    for (;;) {
      ++p_;  // '-'
      if (p_ < end_ && *p_ == ' ' && starts_key(p_ + 1)) {
        ++p_;  // "- key: ...": a map whose keys stand two columns in
        if (!block_map(col + 2, depth + 1)) return false;
      } else if (!value_after_indicator(col, depth)) {
        return false;
      }
      ++count;
      const int next = indentation();
      if (next == -1 || next < col) break;
      if (next != col || p_[next] != '-') return false;
      p_ += next;
    }
    close(at, count);
    return true;
  }

  // After "key:" or "-" of an entry at column `col`: " value" to the end of
  // the line, or the end of the line and a block nested deeper.
  bool value_after_indicator(int col, int depth) {
    if (p_ < end_ && *p_ == ' ' && !trailing_to_eol(p_)) {
      ++p_;
      if (!inline_value(depth)) return false;
      return end_line();
    }
    if (!end_line()) return false;
    const int next = indentation();
    if (next <= col) return false;  // an empty value, or a list beside its key: yaml-cpp's business
    p_ += next;
    if (*p_ == '-' && (p_ + 1 == end_ || p_[1] == ' ' || p_[1] == '\n')) return block_seq(next, depth + 1);
    if (starts_key(p_)) return block_map(next, depth + 1);
    if (*p_ == '{' || *p_ == '[') return flow(depth + 1) && end_line();  // an empty collection: "{}", "[]"
    return false;
  }

  // A tag before a value ("!u 5", "!!binary ..."): its text noted for the
  // node about to be pushed (as yaml-cpp gives it: "!!x" is
  // "tag:yaml.org,2002:x"), p_ past it and the one space after it. False
  // for any other use of '!' (yaml-cpp's business).
  bool tag_prefix() {
    const char* q = p_ + 1;
    const bool secondary = q < end_ && *q == '!';
    if (secondary) ++q;
    const char* s = q;
    while (q < end_ && (ident_char(*q) || *q == '-' || *q == '.')) ++q;
    if (q == s || q == end_ || *q != ' ' || q + 1 == end_ || q[1] == ' ' || q[1] == '\n' || q[1] == '#') return false;
    const std::string_view name(s, static_cast<size_t>(q - s));
    const uint32_t node = static_cast<uint32_t>(nodes_.size());
    if (secondary) doc_.set_tag(node, "tag:yaml.org,2002:" + std::string(name));
    else doc_.set_tag(node, std::string_view(p_, static_cast<size_t>(q - p_)));
    tag_start_ = p_;
    p_ = q + 1;
    return true;
  }

  // A scalar or a flow collection, up to the end of its line.
  bool inline_value(int depth) {
    if (p_ == end_) return false;
    if (*p_ == '!' && !tag_prefix()) return false;
    if (p_ == end_) return false;
    const char c = *p_;
    if (c == '[' || c == '{') return flow(depth + 1);
    if (c == '"') return quoted();
    if (c == '-' && (p_ + 1 == end_ || p_[1] == ' ' || p_[1] == '\n')) return false;  // a list, not a value
    const bool colon_first = c == ':' && p_ + 1 < end_ && (plain_char(p_[1]) || p_[1] == ':');
    if (!plain_char(c) && !colon_first && !plain_utf8(p_)) return false;  // a space more, or an indicator
    const char* s = p_;
    while (p_ < end_ && *p_ != '\n') {
      if (plain_char(*p_)) {
        ++p_;
      } else if (const size_t n = plain_utf8(p_)) {
        p_ += n;
      } else if (*p_ == ':' && p_ + 1 < end_ && (plain_char(p_[1]) || p_[1] == ':' || plain_utf8(p_ + 1))) {
        ++p_;  // a colon inside a value (Npc::Mode, http://...): not followed by a space
      } else if (*p_ == ' ' && p_ + 1 < end_ && (plain_char(p_[1]) || plain_utf8(p_ + 1))) {
        ++p_;  // an inner space
      } else if (*p_ == ' ' && trailing_to_eol(p_)) {
        break;  // spaces at the end of the line, or a comment: not the scalar's
      } else {
        return false;
      }
    }
    if (p_ == s) return false;
    push_plain(s, std::string_view(s, static_cast<size_t>(p_ - s)));
    return true;
  }

  // "[a, b]" or "{k: v, k2: v2}", on one line: what YamlSink writes in flow
  // style (BYML's {X: 1.5, "Y": 0.0}, !hash {0x00001234: !u 7}, [!u 1, x y]).
  // Keys are plain scalars without spaces or double-quoted ones, values
  // plain, double-quoted, tagged or flow collections; ", " between entries.
  bool flow(int depth) {
    if (depth >= kTextMaxDepth) return false;
    const bool map = *p_ == '{';
    const char close_c = map ? '}' : ']';
    const uint32_t at = open(p_, map ? NodeKind::Map : NodeKind::Seq);
    ++p_;
    uint32_t count = 0;
    if (p_ < end_ && *p_ == close_c) {
      ++p_;
      close(at, 0);
      return true;
    }
    // More than the one space the sink writes (after "[", ", ", ": " or a
    // tag) is left to yaml-cpp: a node's position is where its text starts.
    auto blank = [&] { return p_ < end_ && (*p_ == ' ' || *p_ == '\t'); };
    for (;;) {
      if (blank()) return false;
      if (map && !flow_key()) return false;
      if (p_ == end_ || blank()) return false;
      if (*p_ == '!' && !tag_prefix()) return false;
      if (p_ == end_ || blank()) return false;
      if (*p_ == '[' || *p_ == '{') {
        if (!flow(depth + 1)) return false;
      } else if (*p_ == '"') {
        if (!quoted()) return false;
      } else if (!flow_plain()) {
        return false;
      }
      ++count;
      if (p_ == end_) return false;
      if (*p_ == close_c) {
        ++p_;
        break;
      }
      if (end_ - p_ < 2 || p_[0] != ',' || p_[1] != ' ') return false;
      p_ += 2;
    }
    close(at, count);
    return true;
  }

  // A flow map's key and the ": " after it: double-quoted, or plain without
  // spaces (an identifier, a number such as 0x00001234 or -3, Name.1), not
  // a word yaml-cpp reads as null.
  bool flow_key() {
    const char* k = p_;
    if (p_ < end_ && *p_ == '"') {
      if (!quoted()) return false;
    } else {
      while (p_ < end_) {
        if (plain_char(*p_)) ++p_;
        else if (const size_t n = plain_utf8(p_)) p_ += n;
        else break;
      }
      const std::string_view key(k, static_cast<size_t>(p_ - k));
      if (key.empty() || key == "-" || is_null_word(key)) return false;
      push_plain(k, key);
    }
    if (end_ - p_ < 2 || p_[0] != ':' || p_[1] != ' ') return false;
    p_ += 2;
    return true;
  }

  // A plain scalar inside a flow collection, up to its ',' or closing
  // bracket: the characters of a block value (inner spaces, a colon before
  // one of them) but no flow indicator.
  bool flow_plain() {
    const char* s = p_;
    // A colon first, or a '-' before no other character: yaml-cpp's business.
    if (p_ < end_ && (*p_ == ':' || (*p_ == '-' && !(p_ + 1 < end_ && (plain_char(p_[1]) || plain_utf8(p_ + 1))))))
      return false;
    while (p_ < end_) {
      if (plain_char(*p_)) {
        ++p_;
      } else if (const size_t n = plain_utf8(p_)) {
        p_ += n;
      } else if (*p_ == ':' && p_ + 1 < end_ && (plain_char(p_[1]) || p_[1] == ':' || plain_utf8(p_ + 1))) {
        ++p_;  // a colon inside a value (.nan:0x7fa00001, Npc::Mode)
      } else if (*p_ == ' ' && p_ + 1 < end_ && (plain_char(p_[1]) || plain_utf8(p_ + 1))) {
        ++p_;  // an inner space
      } else {
        break;
      }
    }
    if (p_ == s) return false;
    push_plain(s, std::string_view(s, static_cast<size_t>(p_ - s)));
    return true;
  }

  bool quoted() { return TapeParser::quoted(Escapes::Yaml); }
};

// ---- YAML -------------------------------------------------------------------

// A read-only stream over the caller's text (no copy of it).
class ViewBuf : public std::streambuf {
 public:
  explicit ViewBuf(std::string_view s) {
    char* b = const_cast<char*>(s.data());
    setg(b, b, b + s.size());
  }
};

// yaml-cpp's events into the tape, with yaml-cpp's marks.
class Builder : public YAML::EventHandler {
 public:
  explicit Builder(Doc& doc) : doc_(doc), nodes_(doc.raw_nodes()), chars_(doc.chars()), marks_(doc.line_cols()) {}

  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& m, YAML::anchor_t anchor) override { push(m, anchor, NodeKind::Null); }
  void OnScalar(const YAML::Mark& m, const std::string& tag, YAML::anchor_t anchor, const std::string& value) override {
    const uint32_t at = push(m, anchor, NodeKind::Scalar);
    // yaml-cpp's tag: "?" a plain scalar, "!" a quoted one, else the tag.
    if (tag == "!") doc_.set_quoted(at);
    else note_tag(at, tag);
    if (value.size() > Doc::kMaxB) throw TextError(where(m), "", "a string of more than 512 MiB: refused");
    if (value.size() > kMaxText - chars_.size()) throw TextError(where(m), "", "text of more than 4 GiB: refused");
    nodes_[at].a = static_cast<uint32_t>(chars_.size());
    nodes_[at].set_b(static_cast<uint32_t>(value.size()));
    chars_ += value;
  }
  void OnAlias(const YAML::Mark& m, YAML::anchor_t anchor) override {
    auto it = anchors_.find(anchor);
    if (it == anchors_.end()) throw TextError(where(m), "", "alias to an unknown anchor");
    const uint32_t target = it->second;
    const Doc::Raw& t = nodes_[target];
    if ((t.kind() == NodeKind::Seq || t.kind() == NodeKind::Map) && t.b() == 0)
      throw TextError(where(m), "", "an alias inside the list or map it names: refused (it would never end)");
    nodes_.push_back(Doc::Raw{static_cast<uint32_t>(m.pos), target, 0, t.kind(), true});
    marks_.emplace_back(m.line + 1, m.column + 1);
  }
  void OnSequenceStart(const YAML::Mark& m, const std::string& tag, YAML::anchor_t anchor, YAML::EmitterStyle::value) override {
    open_.push_back(push(m, anchor, NodeKind::Seq));
    note_tag(open_.back(), tag);
  }
  void OnSequenceEnd() override { close(); }
  void OnMapStart(const YAML::Mark& m, const std::string& tag, YAML::anchor_t anchor, YAML::EmitterStyle::value) override {
    open_.push_back(push(m, anchor, NodeKind::Map));
    note_tag(open_.back(), tag);
  }
  void OnMapEnd() override { close(); }

 private:
  static std::string where(const YAML::Mark& m) { return std::to_string(m.line + 1) + ":" + std::to_string(m.column + 1); }
  void note_tag(uint32_t at, const std::string& tag) {
    if (!tag.empty() && tag != "?" && tag != "!") doc_.set_tag(at, tag);
  }

  uint32_t push(const YAML::Mark& m, YAML::anchor_t anchor, NodeKind kind) {
    const uint32_t at = static_cast<uint32_t>(nodes_.size());
    if (at >= Doc::kMaxB) throw TextError(where(m), "", "more than 500 million nodes: refused");
    nodes_.push_back(Doc::Raw{static_cast<uint32_t>(std::min<uint64_t>(m.pos, kMaxText)), 0, 0, kind});
    marks_.emplace_back(m.line + 1, m.column + 1);
    if (anchor) anchors_[anchor] = at;
    return at;
  }
  void close() {
    const uint32_t at = open_.back();
    open_.pop_back();
    Doc::Raw& r = nodes_[at];
    // Children counted by walking them (an alias is one child).
    uint32_t n = 0;
    for (uint32_t k = at + 1; k < nodes_.size(); k = after(k)) ++n;
    r.set_b(static_cast<uint32_t>(nodes_.size()));
    r.a = r.kind() == NodeKind::Map ? n / 2 : n;
  }
  uint32_t after(uint32_t i) const {
    const Doc::Raw& r = nodes_[i];
    return !r.alias() && (r.kind() == NodeKind::Seq || r.kind() == NodeKind::Map) ? r.b() : i + 1;
  }

  Doc& doc_;
  std::vector<Doc::Raw>& nodes_;
  std::string& chars_;
  std::vector<std::pair<uint32_t, uint32_t>>& marks_;
  std::vector<uint32_t> open_;
  std::unordered_map<YAML::anchor_t, uint32_t> anchors_;
};

void refuse_huge(std::string_view text) {
  if (text.size() > kMaxText) throw TextError("1:1", "", "text of more than 4 GiB: refused");
}

}  // namespace

bool load_json(std::string_view text, Doc& doc) {
  refuse_huge(text);
  return JsonParser(text, doc).run();
}

Doc load_yaml(std::string_view text) {
  refuse_huge(text);
  Doc doc;
  ViewBuf buf(text);
  std::istream in(&buf);
  try {
    YAML::Parser parser(in);
    Builder builder(doc);
    if (!parser.HandleNextDocument(builder) || doc.empty()) doc.set_empty();
  } catch (const YAML::DeepRecursion& e) {
    too_deep(e.mark.is_null() ? "?" : std::to_string(e.mark.line + 1) + ":" + std::to_string(e.mark.column + 1));
  }
  return doc;
}

bool load_block_yaml(std::string_view text, Doc& doc) {
  refuse_huge(text);
  return YamlParser(text, doc).run();
}

Doc load(std::string_view text) {
  {
    Doc doc;
    if (load_json(text, doc)) return doc;
  }
  {
    Doc doc;
    if (load_block_yaml(text, doc)) return doc;
  }
  return load_yaml(text);
}

Doc load_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in.is_open()) throw std::runtime_error("cannot open " + path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw std::runtime_error("cannot read " + path);
  return load(text);
}

}  // namespace binschema::text
