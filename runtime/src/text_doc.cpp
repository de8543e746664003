// The two parsers behind text::load (binschema/text_doc.h).
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
#include <stdexcept>
#include <limits>
#include <streambuf>
#include <unordered_map>

#include "binschema/error.h"
#include "binschema/text.h"

namespace binschema::text {

// ---- Node -------------------------------------------------------------------

NodeKind Node::kind() const { return doc_->raw(i_).kind; }

std::string_view Node::scalar() const { return kind() == NodeKind::Scalar ? doc_->text_of(i_) : std::string_view(); }

size_t Node::size() const {
  const auto& r = doc_->raw(i_);
  return r.kind == NodeKind::Seq || r.kind == NodeKind::Map ? r.a : 0;
}

Mark Node::mark() const { return doc_->mark(i_); }

Node::Range Node::children() const {
  const auto& r = doc_->raw(i_);
  if (r.kind != NodeKind::Seq && r.kind != NodeKind::Map) return {{doc_, i_ + 1}, {doc_, i_ + 1}};
  return {{doc_, i_ + 1}, {doc_, r.b}};
}

Node Node::Iterator::operator*() const { return Node(doc_, doc_->resolve(raw_)); }

Node::Iterator& Node::Iterator::operator++() {
  raw_ = doc_->after(raw_);
  return *this;
}

Node Node::get(std::string_view key) const {
  if (kind() != NodeKind::Map) return {};
  const uint32_t end = doc_->raw(i_).b;
  for (uint32_t k = i_ + 1; k < end;) {
    const uint32_t v = doc_->after(k);
    const uint32_t rk = doc_->resolve(k);
    if (doc_->raw(rk).kind == NodeKind::Scalar && doc_->text_of(rk) == key) return Node(doc_, doc_->resolve(v));
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

// ---- JSON -------------------------------------------------------------------

// Strict JSON (RFC 8259) into the tape. Gives up (returns false) on anything
// yaml-cpp would read differently or report an error for, so that those
// documents take the YAML path: text that is not JSON, a byte order mark,
// bytes that are not UTF-8, control characters, the escapes \b \f \/ and
// lone surrogates, and nesting deeper than kTextMaxDepth.
class JsonParser {
 public:
  JsonParser(std::string_view text, Doc& doc)
      : p_(text.data()), begin_(text.data()), end_(text.data() + text.size()),
        nodes_(doc.raw_nodes()), chars_(doc.chars()), lines_(doc.line_starts()) {}

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
    return p_ == end_;
  }

 private:
  uint32_t pos() const { return static_cast<uint32_t>(p_ - begin_); }

  void skip_ws() {
    while (p_ < end_) {
      const char c = *p_;
      if (c == ' ' || c == '\t' || c == '\r') {
        ++p_;
      } else if (c == '\n') {
        ++p_;
        lines_.push_back(pos());
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

  bool container(NodeKind kind, char close, int depth) {
    if (depth >= kTextMaxDepth) return false;
    const uint32_t at = static_cast<uint32_t>(nodes_.size());
    nodes_.push_back({pos(), 0, 0, kind});
    ++p_;
    skip_ws();
    uint32_t count = 0;
    if (p_ < end_ && *p_ == close) {
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
        if (*p_ != close) return false;
        ++p_;
        break;
      }
    }
    nodes_[at].a = count;
    nodes_[at].b = static_cast<uint32_t>(nodes_.size());
    return true;
  }

  bool word(std::string_view w, NodeKind kind) {
    if (static_cast<size_t>(end_ - p_) < w.size() || std::memcmp(p_, w.data(), w.size()) != 0) return false;
    const uint32_t at = pos();
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
    const uint32_t at = pos();
    p_ = q;
    push_scalar(at, std::string_view(s, q - s), NodeKind::Scalar);
    return true;
  }

  void push_scalar(uint32_t at, std::string_view s, NodeKind kind) {
    nodes_.push_back({at, static_cast<uint32_t>(chars_.size()), static_cast<uint32_t>(s.size()), kind});
    chars_.append(s);
  }

  static int hex(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  }

  bool string() {
    const uint32_t at = pos();
    ++p_;  // the opening quote
    const size_t start = chars_.size();
    for (;;) {
      // The run of plain bytes up to a quote, a backslash or a byte that
      // needs a look (control, non-ASCII).
      const char* q = p_;
      while (q < end_) {
        const unsigned char c = static_cast<unsigned char>(*q);
        if (c == '"' || c == '\\' || c < 0x20 || c >= 0x80) break;
        ++q;
      }
      chars_.append(p_, q);
      p_ = q;
      if (p_ == end_) return false;
      const unsigned char c = static_cast<unsigned char>(*p_);
      if (c == '"') {
        ++p_;
        break;
      }
      if (c < 0x20) return false;
      if (c >= 0x80) {
        const size_t n = utf8_length(p_);
        if (n == 0) return false;
        chars_.append(p_, n);
        p_ += n;
        continue;
      }
      // A backslash.
      if (end_ - p_ < 2) return false;
      const char e = p_[1];
      p_ += 2;
      switch (e) {
        case '"': chars_ += '"'; break;
        case '\\': chars_ += '\\'; break;
        case 'n': chars_ += '\n'; break;
        case 'r': chars_ += '\r'; break;
        case 't': chars_ += '\t'; break;
        case 'u': {
          if (end_ - p_ < 4) return false;
          uint32_t cp = 0;
          for (int k = 0; k < 4; ++k) {
            const int h = hex(p_[k]);
            if (h < 0) return false;
            cp = cp << 4 | static_cast<uint32_t>(h);
          }
          p_ += 4;
          if (cp >= 0xd800 && cp <= 0xdfff) return false;  // surrogates: yaml-cpp decides
          append_utf8(cp);
          break;
        }
        default: return false;
      }
    }
    if (chars_.size() - start > kMaxText) return false;
    nodes_.push_back({at, static_cast<uint32_t>(start), static_cast<uint32_t>(chars_.size() - start), NodeKind::Scalar});
    return true;
  }

  // The length of the valid UTF-8 sequence at p (0 if it is not one).
  size_t utf8_length(const char* p) const {
    const size_t left = static_cast<size_t>(end_ - p);
    const std::string_view s(p, std::min<size_t>(left, 4));
    const unsigned char c = static_cast<unsigned char>(s[0]);
    const size_t n = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 0;
    if (n == 0 || n > left) return 0;
    return is_utf8(s.substr(0, n)) ? n : 0;
  }

  void append_utf8(uint32_t cp) {
    if (cp < 0x80) {
      chars_ += static_cast<char>(cp);
    } else if (cp < 0x800) {
      chars_ += static_cast<char>(0xc0 | cp >> 6);
      chars_ += static_cast<char>(0x80 | (cp & 0x3f));
    } else {
      chars_ += static_cast<char>(0xe0 | cp >> 12);
      chars_ += static_cast<char>(0x80 | (cp >> 6 & 0x3f));
      chars_ += static_cast<char>(0x80 | (cp & 0x3f));
    }
  }

  const char* p_;
  const char* begin_;
  const char* end_;
  std::vector<Doc::Raw>& nodes_;
  std::string& chars_;
  std::vector<uint32_t>& lines_;
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
  explicit Builder(Doc& doc) : nodes_(doc.raw_nodes()), chars_(doc.chars()), marks_(doc.line_cols()) {}

  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& m, YAML::anchor_t anchor) override { push(m, anchor, NodeKind::Null); }
  void OnScalar(const YAML::Mark& m, const std::string&, YAML::anchor_t anchor, const std::string& value) override {
    const uint32_t at = push(m, anchor, NodeKind::Scalar);
    if (value.size() > kMaxText - chars_.size()) throw TextError(where(m), "", "text of more than 4 GiB: refused");
    nodes_[at].a = static_cast<uint32_t>(chars_.size());
    nodes_[at].b = static_cast<uint32_t>(value.size());
    chars_ += value;
  }
  void OnAlias(const YAML::Mark& m, YAML::anchor_t anchor) override {
    auto it = anchors_.find(anchor);
    if (it == anchors_.end()) throw TextError(where(m), "", "alias to an unknown anchor");
    const uint32_t target = it->second;
    const Doc::Raw& t = nodes_[target];
    if ((t.kind == NodeKind::Seq || t.kind == NodeKind::Map) && t.b == 0)
      throw TextError(where(m), "", "an alias inside the list or map it names: refused (it would never end)");
    nodes_.push_back(Doc::Raw{static_cast<uint32_t>(m.pos), target, 0, t.kind, true});
    marks_.emplace_back(m.line + 1, m.column + 1);
  }
  void OnSequenceStart(const YAML::Mark& m, const std::string&, YAML::anchor_t anchor, YAML::EmitterStyle::value) override {
    open_.push_back(push(m, anchor, NodeKind::Seq));
  }
  void OnSequenceEnd() override { close(); }
  void OnMapStart(const YAML::Mark& m, const std::string&, YAML::anchor_t anchor, YAML::EmitterStyle::value) override {
    open_.push_back(push(m, anchor, NodeKind::Map));
  }
  void OnMapEnd() override { close(); }

 private:
  static std::string where(const YAML::Mark& m) { return std::to_string(m.line + 1) + ":" + std::to_string(m.column + 1); }

  uint32_t push(const YAML::Mark& m, YAML::anchor_t anchor, NodeKind kind) {
    const uint32_t at = static_cast<uint32_t>(nodes_.size());
    if (at == std::numeric_limits<uint32_t>::max()) throw TextError(where(m), "", "more than 4 billion nodes: refused");
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
    r.b = static_cast<uint32_t>(nodes_.size());
    r.a = r.kind == NodeKind::Map ? n / 2 : n;
  }
  uint32_t after(uint32_t i) const {
    const Doc::Raw& r = nodes_[i];
    return !r.alias && (r.kind == NodeKind::Seq || r.kind == NodeKind::Map) ? r.b : i + 1;
  }

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

Doc load(std::string_view text) {
  {
    Doc doc;
    if (load_json(text, doc)) return doc;
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
