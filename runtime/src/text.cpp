#include "binschema/text.h"


#include <algorithm>
#include <bit>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <limits>
#include <unordered_map>

#include "binschema/hash.h"

namespace binschema::text {

namespace {

// Floats as text: the shortest decimal that reads back to the same value (so
// floats survive a trip through text bit for bit), infinities as YAML spells
// them, and NaNs by their bits unless they are the default quiet NaN: the
// payload and sign of a NaN are data too.
template <class F, class U>
std::string float_text(F v) {
  if (std::isnan(v)) {
    const U bits = std::bit_cast<U>(v);
    if (bits == std::bit_cast<U>(std::numeric_limits<F>::quiet_NaN())) return ".nan";
    char buf[32];
    std::snprintf(buf, sizeof buf, ".nan:0x%0*llx", static_cast<int>(2 * sizeof(U)),
                  static_cast<unsigned long long>(bits));
    return buf;
  }
  if (std::isinf(v)) return v < 0 ? "-.inf" : ".inf";
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  std::string s(buf, r.ptr);
  // Keep floats recognisable as floats in the text ("1.0", not "1").
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  return s;
}

}  // namespace

std::string format_float(float v) { return float_text<float, uint32_t>(v); }
std::string format_float(double v) { return float_text<double, uint64_t>(v); }
bool float_is_text(double v) { return !std::isfinite(v); }

std::string format_int(uint64_t mag, bool negative, bool hex) {
  char buf[32];
  auto r = std::to_chars(buf, buf + sizeof buf, mag, hex ? 16 : 10);
  return std::string(negative ? "-" : "") + (hex ? "0x" : "") + std::string(buf, r.ptr);
}

std::string format_int(uint64_t mag, bool negative, bool hex, unsigned digits) {
  if (!hex) return format_int(mag, negative, false);
  char buf[32];
  auto r = std::to_chars(buf, buf + sizeof buf, mag, 16);
  std::string d(buf, r.ptr);
  if (d.size() < digits) d.insert(0, digits - d.size(), '0');
  return std::string(negative ? "-" : "") + "0x" + d;
}

// ---- Names --------------------------------------------------------------------

namespace {
struct KnownNames {
  std::unordered_map<uint64_t, std::string> fnv1a32, murmur3, crc32;
};
KnownNames& known() {
  static KnownNames k;
  return k;
}
}  // namespace

std::optional<uint64_t> hash_name(const char* algo, std::string_view name) {
  const std::string_view a = algo;
  if (a == "fnv1a32") return fnv1a32(name);
  if (a == "murmur3") return murmur3_x86_32(name);
  if (a == "crc32") return crc32(name);
  return std::nullopt;
}

void set_known_names(const std::vector<std::string>& names) {
  KnownNames k;
  for (const auto& n : names) {
    k.fnv1a32.emplace(fnv1a32(n), n);  // the first name of a hash wins
    k.murmur3.emplace(murmur3_x86_32(n), n);
    k.crc32.emplace(crc32(n), n);
  }
  known() = std::move(k);
}

namespace {
bool g_numbers_only = false;
}
void set_numbers_only(bool on) { g_numbers_only = on; }
bool numbers_only() { return g_numbers_only; }

const std::string* known_name(const char* algo, uint64_t value) {
  const std::string_view a = algo;
  if (a != "fnv1a32" && a != "murmur3" && a != "crc32") return nullptr;
  const auto& m = a == "fnv1a32" ? known().fnv1a32 : a == "murmur3" ? known().murmur3 : known().crc32;
  auto it = m.find(value);
  return it == m.end() ? nullptr : &it->second;
}

DocNames::DocNames(const HashNames& h) : h_(h), by_algo_(h.algo_count) {}

void DocNames::prove(std::string_view s) {
  if (s.empty() || !is_utf8(s)) return;
  for (size_t i = 0; i < h_.algo_count; ++i)
    if (const auto v = hash_name(h_.algos[i], s)) by_algo_[i].try_emplace(*v, s);
}

void DocNames::add_defaults() {
  for (size_t k = 0; k < h_.count; ++k) prove(h_.defaults[k]);
}

const std::string* DocNames::find(const char* algo, uint64_t value) const {
  for (size_t i = 0; i < h_.algo_count; ++i)
    if (std::string_view(h_.algos[i]) == algo) {
      const auto it = by_algo_[i].find(value);
      return it == by_algo_[i].end() ? nullptr : &it->second;
    }
  return nullptr;
}

bool is_name_spelling(std::string_view k) {
  // A key that is not UTF-8 is written as {bytes: HEX}, which a reference
  // cannot name: such an element is referenced by its index.
  if (k.empty() || !is_utf8(k)) return false;
  size_t i = (k[0] == '-' || k[0] == '+') ? 1 : 0;
  if (i < k.size() && std::isdigit(static_cast<unsigned char>(k[i]))) return false;
  if (i == 1 && k.size() == 1) return true;  // "-" alone
  static constexpr std::string_view words[] = {"~",    "null",  "Null",  "NULL", "true",  "True",  "TRUE",  "false",
                                               "False", "FALSE", ".nan", ".inf", "-.inf", "+.inf", ".NaN", ".Inf"};
  if (k.size() > 5) return true;  // longer than every word
  for (const std::string_view w : words)
    if (k == w) return false;
  return true;
}

// find() and shows() are called once per reference, and a file may hold
// thousands of keys and references (a BFEVFL flowchart's events): both look
// keys up in an index built on first use (rebuilt if the keys have moved).
void NameTable::index() const {
  if (indexed_for_ == keys.data() && shown_.size() == keys.size()) return;
  auto text = [this](uint32_t j) -> std::string_view { return keys[j]; };
  index_.reset(keys.size());
  repeated_.assign(keys.size(), 0);
  for (size_t i = 0; i < keys.size(); ++i)
    if (const uint32_t j = index_.insert(keys[i], static_cast<uint32_t>(i), text); j != KeyIndex::kNone)
      repeated_[j] = repeated_[i] = 1;
  shown_.resize(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) shown_[i] = !repeated_[i] && is_name_spelling(keys[i]);
  indexed_for_ = keys.data();
}

int64_t NameTable::find(std::string_view key, int64_t* second, int64_t* first) const {
  index();
  const uint32_t at = index_.find(key, [this](uint32_t j) -> std::string_view { return keys[j]; });
  if (at == KeyIndex::kNone) return -1;
  if (!repeated_[at]) return at;
  // More than one: the first two, for the message.
  int64_t found = -1;
  for (size_t i = 0; i < keys.size(); ++i)
    if (keys[i] == key) {
      if (found >= 0) {
        if (second) *second = static_cast<int64_t>(i);
        if (first) *first = found;
        return -2;
      }
      found = static_cast<int64_t>(i);
    }
  return -2;
}

bool NameTable::shows(size_t i) const {
  if (i >= keys.size()) return false;
  index();
  return shown_[i];
}

// An element's key and further keys as one string (each part ends in a
// NUL, so no two different lists of parts join into the same string).
std::string NameTable::joined(size_t i) const {
  std::string j = keys[i];
  j += '\0';
  for (const std::string& x : also_keys[i]) {
    j += x;
    j += '\0';
  }
  return j;
}

int64_t NameTable::find_all(std::string_view key, const std::vector<std::string>& more, int64_t* second,
                            int64_t* first) const {
  if (also.empty() || also_keys.size() != keys.size()) return -1;
  std::string j(key);
  j += '\0';
  for (const std::string& x : more) {
    j += x;
    j += '\0';
  }
  // One lookup per reference: the joined keys are indexed on first use.
  if (!all_indexed_) {
    all_index_.reserve(keys.size());
    for (size_t i = 0; i < keys.size(); ++i) {
      auto [it, fresh] = all_index_.emplace(joined(i), static_cast<int64_t>(i));
      if (!fresh) it->second = -2;
    }
    all_indexed_ = true;
  }
  const auto it = all_index_.find(j);
  if (it == all_index_.end()) return -1;
  if (it->second >= 0) return it->second;
  int64_t found = -1;
  for (size_t i = 0; i < keys.size(); ++i)
    if (joined(i) == j) {
      if (found >= 0) {
        if (second) *second = static_cast<int64_t>(i);
        if (first) *first = found;
        return -2;
      }
      found = static_cast<int64_t>(i);
    }
  return -2;
}

bool NameTable::shows_all(size_t i) const {
  if (also.empty() || i >= keys.size() || also_keys.size() != keys.size()) return false;
  if (!is_utf8(keys[i])) return false;
  for (const std::string& x : also_keys[i])
    if (!is_utf8(x)) return false;
  return find_all(keys[i], also_keys[i]) == static_cast<int64_t>(i);
}

const NameTable* find_table(const std::vector<NameTable>& tables, std::string_view array) {
  for (size_t i = tables.size(); i-- > 0;)
    if (tables[i].array == array) return &tables[i];
  return nullptr;
}

std::string to_hex(std::string_view b) {
  static const char* d = "0123456789abcdef";
  std::string s;
  s.reserve(b.size() * 2);
  for (unsigned char c : b) {
    s += d[c >> 4];
    s += d[c & 15];
  }
  return s;
}

std::string to_hex(const std::vector<uint8_t>& b) {
  return to_hex(std::string_view(reinterpret_cast<const char*>(b.data()), b.size()));
}

bool is_utf8(std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const auto* end = p + s.size();
  // ASCII eight bytes at a time (most strings are ASCII throughout).
  while (end - p >= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    if (w & 0x8080808080808080ull) break;
    p += 8;
  }
  while (p < end) {
    unsigned c = *p;
    if (c < 0x80) {
      ++p;
      continue;
    }
    size_t n;
    unsigned cp, min;
    if ((c & 0xe0) == 0xc0) n = 1, cp = c & 0x1f, min = 0x80;
    else if ((c & 0xf0) == 0xe0) n = 2, cp = c & 0x0f, min = 0x800;
    else if ((c & 0xf8) == 0xf0) n = 3, cp = c & 0x07, min = 0x10000;
    else return false;
    if (static_cast<size_t>(end - p) <= n) return false;
    for (size_t i = 1; i <= n; ++i) {
      if ((p[i] & 0xc0) != 0x80) return false;
      cp = cp << 6 | (p[i] & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return false;
    p += n + 1;
  }
  return true;
}

// ---- Bare unions ----------------------------------------------------------------

namespace {
constexpr std::string_view kStdTag = "tag:yaml.org,2002:";

bool all_digits(std::string_view s, int base) {
  if (s.empty()) return false;
  for (char c : s) {
    const int d = hex_digit(c);
    if (d < 0 || d >= base) return false;
  }
  return true;
}

// YAML 1.2's core schema: [-+]?[0-9]+, 0x[0-9a-fA-F]+, 0o[0-7]+.
bool is_int_text(std::string_view s) {
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'o')) return all_digits(s.substr(2), s[1] == 'x' ? 16 : 8);
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) s.remove_prefix(1);
  return all_digits(s, 10);
}

// [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?, infinities and NaNs
// (with format_float's ".nan:0x..." for the others).
bool is_float_text(std::string_view s) {
  if (s.rfind(".nan:0x", 0) == 0) return true;
  for (std::string_view w : {".nan", ".NaN", ".NAN", ".inf", ".Inf", ".INF", "-.inf", "-.Inf", "-.INF", "+.inf", "+.Inf", "+.INF"})
    if (s == w) return true;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) s.remove_prefix(1);
  size_t i = 0, digits = 0;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i, ++digits;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i, ++digits;
  }
  if (digits == 0) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
    const size_t e = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    if (i == e) return false;
  }
  return i == s.size();
}
}  // namespace

Plain plain_kind(Node n) {
  if (n.is_null()) return Plain::Null;
  if (n.is_seq()) return Plain::List;
  if (n.is_map()) return Plain::Map;
  if (n.quoted()) return Plain::String;
  const std::string_view s = n.scalar();
  if (s == "true" || s == "True" || s == "TRUE" || s == "false" || s == "False" || s == "FALSE") return Plain::Bool;
  if (is_int_text(s)) return Plain::Int;
  if (is_float_text(s)) return Plain::Float;
  return Plain::String;
}

bool tag_is(std::string_view node_tag, std::string_view spelt) {
  if (spelt.rfind("!!", 0) == 0) {
    // yaml-cpp resolves "!!x"; JSON's key is spelt as the schema spells it.
    if (node_tag == spelt) return true;
    return node_tag.size() == kStdTag.size() + spelt.size() - 2 && node_tag.rfind(kStdTag, 0) == 0 &&
           node_tag.substr(kStdTag.size()) == spelt.substr(2);
  }
  return node_tag == spelt;
}

std::string tag_spelling(std::string_view node_tag) {
  if (node_tag.rfind(kStdTag, 0) == 0) return "!!" + std::string(node_tag.substr(kStdTag.size()));
  return std::string(node_tag);
}

Plain standard_tag(std::string_view node_tag) {
  static const std::pair<const char*, Plain> kinds[] = {{"!!int", Plain::Int},   {"!!float", Plain::Float}, {"!!str", Plain::String},
                                                        {"!!bool", Plain::Bool}, {"!!null", Plain::Null},   {"!!seq", Plain::List},
                                                        {"!!map", Plain::Map}};
  for (const auto& [t, p] : kinds)
    if (tag_is(node_tag, t)) return p;
  return Plain::Tagged;
}

const char* plain_name(Plain p) {
  switch (p) {
    case Plain::Tagged: return "tagged value";
    case Plain::Int: return "integer";
    case Plain::Float: return "float";
    case Plain::String: return "string";
    case Plain::Bool: return "boolean";
    case Plain::Null: return "null";
    case Plain::List: return "list";
    case Plain::Map: return "map";
  }
  return "?";
}

// ---- YAML -------------------------------------------------------------------

namespace {

// Whether a string reads back as itself when written as a plain scalar, by
// any YAML reader: a letter or '_' first, then letters, digits, '_', '.',
// '-', '/' and inner spaces, and not a word YAML 1.1 or 1.2 gives another
// meaning (null, booleans). Everything else is double-quoted; yaml-cpp then
// escapes control characters, so "\r" stays "\r".
bool plain_is_safe(const std::string& s) {
  if (s.empty() || s.back() == ' ') return false;
  const unsigned char c0 = s[0];
  if (!(std::isalpha(c0) || c0 == '_')) return false;
  for (unsigned char c : s)
    if (!(std::isalnum(c) || c == '_' || c == '.' || c == '-' || c == '/' || c == ' ')) return false;
  if (s.size() > 5) return true;
  std::string lower(s);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  static const char* const words[] = {"null", "true", "false", "yes", "no", "on", "off", "y", "n"};
  for (const char* w : words)
    if (lower == w) return false;
  return true;
}


// A double-quoted scalar, escaped as yaml-cpp's emitter escapes it: \", \\,
// \n \t \r \b \f, then \xXX for other code points below 0x20 and for
// 0x80-0xA0, \ufeff for the byte order mark; everything else (valid UTF-8) as
// it is, except noncharacters (U+FDD0-U+FDEF, U+xFFFE, U+xFFFF): \uXXXX or
// \UXXXXXXXX (the emitter wrote U+FFFD, so they did not read back).
void append_double_quoted(std::string& out, std::string_view s) {
  static const char* hex = "0123456789abcdef";
  out += '"';
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const auto* end = p + s.size();
  while (p < end) {
    // Runs of bytes that need no escape are copied whole.
    const auto* run = p;
    while (p < end && *p >= 0x20 && *p != '"' && *p != '\\' && *p < 0x80) ++p;
    out.append(reinterpret_cast<const char*>(run), static_cast<size_t>(p - run));
    if (p == end) break;
    const unsigned c = *p;
    switch (c) {
      case '"': out += "\\\""; ++p; continue;
      case '\\': out += "\\\\"; ++p; continue;
      case '\n': out += "\\n"; ++p; continue;
      case '\t': out += "\\t"; ++p; continue;
      case '\r': out += "\\r"; ++p; continue;
      case '\b': out += "\\b"; ++p; continue;
      case '\f': out += "\\f"; ++p; continue;
      default: break;
    }
    if (c < 0x20) {
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
      ++p;
      continue;
    }
    // A multi-byte sequence (the string is valid UTF-8).
    const size_t n = (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 : 4;
    uint32_t cp = n == 2 ? (c & 0x1f) : n == 3 ? (c & 0x0f) : (c & 0x07);
    for (size_t k = 1; k < n && p + k < end; ++k) cp = cp << 6 | (p[k] & 0x3f);
    if (cp >= 0x80 && cp <= 0xa0) {
      out += "\\x";
      out += hex[cp >> 4];
      out += hex[cp & 15];
    } else if (cp == 0xfeff) {
      out += "\\ufeff";
    } else if ((cp >= 0xfdd0 && cp <= 0xfdef) || (cp & 0xfffe) == 0xfffe) {
      // Noncharacters: yaml-cpp's emitter wrote U+FFFD for them, which lost
      // the text; escaped, they read back as themselves.
      char buf[12];
      std::snprintf(buf, sizeof buf, cp > 0xffff ? "\\U%08x" : "\\u%04x", static_cast<unsigned>(cp));
      out += buf;
    } else {
      out.append(reinterpret_cast<const char*>(p), n);
    }
    p += n;
  }
  out += '"';
}

}  // namespace

void YamlSink::newline(unsigned indent) {
  out_ += '\n';
  out_.append(indent, ' ');
}

// Writes what goes before a value in the current collection, and says where
// the value stands.
YamlSink::At YamlSink::before_value() {
  if (stack_.empty()) return At::Top;
  Level& l = stack_.back();
  if (l.flow) {
    if (!l.map && l.count++) out_ += ", ";
    return At::Flow;
  }
  if (l.map) return At::Key;  // key() wrote "key:"
  if (l.count++ || l.at != At::Top) newline(l.indent);
  out_ += '-';
  return At::Dash;
}

void YamlSink::lead(At at) {
  if (at == At::Key || at == At::Dash) out_ += ' ';
  if (tag_) {
    out_ += tag_;
    out_ += ' ';
    tag_ = nullptr;
  }
}

void YamlSink::scalar(std::string_view s) {
  lead(before_value());
  out_ += s;
}

void YamlSink::key_text(const std::string& k, bool number) {
  if (number || (plain_is_safe(k) && k.find(' ') == std::string::npos)) {
    key(std::string_view(k));
    return;
  }
  std::string quoted;
  append_double_quoted(quoted, k);
  key(std::string_view(quoted));
}

void YamlSink::key(std::string_view k) {
  Level& l = stack_.back();
  if (l.flow) {
    if (l.count++) out_ += ", ";
    out_ += k;
    out_ += ": ";
    return;
  }
  if (l.count++ == 0 && l.at == At::Top) {
    // the document's first key starts the text
  } else if (l.count == 1 && l.at == At::Dash) {
    out_ += ' ';  // "- key: value"
  } else {
    newline(l.indent);
  }
  out_ += k;
  out_ += ':';
}

void YamlSink::open(bool map, bool flow) {
  const bool in_flow = !stack_.empty() && stack_.back().flow;
  const unsigned indent = stack_.empty() ? 0 : stack_.back().indent + 2;
  const At at = before_value();
  if (flow || in_flow || tag_) {
    lead(at);
    out_ += map ? '{' : '[';
    stack_.push_back({map, true, at, 0});
    return;
  }
  stack_.push_back({map, false, at, at == At::Top ? 0 : indent});
}

void YamlSink::close() {
  const Level l = stack_.back();
  stack_.pop_back();
  if (l.flow) {
    out_ += l.map ? '}' : ']';
    return;
  }
  if (l.count) return;
  // An empty block collection is written in flow style: "{}" or "[]".
  const char* empty = l.map ? "{}" : "[]";
  if (l.at == At::Top) {
    out_ += empty;
  } else if (l.at == At::Dash && l.map) {
    out_ += " {}";
  } else {
    newline(l.indent);
    out_ += empty;
  }
}

void YamlSink::string(const std::string& s) {
  if (plain_is_safe(s)) {
    scalar(s);
    return;
  }
  lead(before_value());
  append_double_quoted(out_, s);
}

// ---- JSON -------------------------------------------------------------------

void JsonSink::newline() {
  out_ += '\n';
  out_.append(stack_.size() * 2, ' ');
}

void JsonSink::before_value() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (stack_.empty()) return;
  Level& l = stack_.back();
  if (l.count++) out_ += l.flow ? ", " : ",";
  if (!l.flow) newline();
}

void JsonSink::key(const char* k) {
  before_value();
  quoted(k);
  out_ += ": ";
  after_key_ = true;
}

void JsonSink::open(char c, bool flow) {
  bool parent_flow = !stack_.empty() && stack_.back().flow;
  before_value();
  out_ += c;
  stack_.push_back({flow || parent_flow});
}

void JsonSink::close(char c) {
  Level l = stack_.back();
  stack_.pop_back();
  if (l.count && !l.flow) newline();
  out_ += c;
}

void JsonSink::scalar(const std::string& s) {
  before_value();
  out_ += s;
}

void JsonSink::number(const std::string& s, bool is_text) {
  if (is_text) {
    string(s);  // hex integers and non-finite floats have no JSON number form
    return;
  }
  scalar(s);
}

void JsonSink::string(const std::string& s) {
  before_value();
  quoted(s);
}

void JsonSink::quoted(const std::string& s) {
  out_ += '"';
  for (unsigned char c : s) {
    switch (c) {
      case '"': out_ += "\\\""; break;
      case '\\': out_ += "\\\\"; break;
      case '\n': out_ += "\\n"; break;
      case '\r': out_ += "\\r"; break;
      case '\t': out_ += "\\t"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out_ += buf;
        } else {
          out_ += static_cast<char>(c);
        }
    }
  }
  out_ += '"';
}

template <class F>
void DocSink::send(F&& f) {
  switch (kind_) {
    case Kind::Yaml: f(*yaml_); break;
    case Kind::Json: f(*json_); break;
    case Kind::Events: f(*events_); break;
  }
}
void DocSink::tag(const char* t) {
  if (kind_ == Kind::Yaml) yaml_->tag(t);
  else if (kind_ == Kind::Events) events_->tag(t);
}
void DocSink::begin_map(bool flow) { send([&](auto& s) { s.begin_map(flow); }); }
void DocSink::end_map() { send([](auto& s) { s.end_map(); }); }
void DocSink::key(const char* k) { send([&](auto& s) { s.key(k); }); }
void DocSink::key_text(const std::string& k, bool number) { send([&](auto& s) { s.key_text(k, number); }); }
void DocSink::begin_seq(bool flow) { send([&](auto& s) { s.begin_seq(flow); }); }
void DocSink::end_seq() { send([](auto& s) { s.end_seq(); }); }
void DocSink::null() { send([](auto& s) { s.null(); }); }
void DocSink::boolean(bool b) { send([&](auto& s) { s.boolean(b); }); }
void DocSink::number(const std::string& t, bool is_text_in_json) { send([&](auto& s) { s.number(t, is_text_in_json); }); }
void DocSink::string(const std::string& t) { send([&](auto& s) { s.string(t); }); }
void DocSink::integer(uint64_t magnitude, bool negative, bool hex, unsigned digits) {
  if (kind_ == Kind::Events) events_->integer(magnitude, negative, hex, digits);
  else number(format_int(magnitude, negative, hex, digits), hex);
}
std::string DocSink::result() {
  switch (kind_) {
    case Kind::Yaml: return yaml_->result();
    case Kind::Json: return json_->result();
    case Kind::Events: break;
  }
  return {};
}

// ---- Input ------------------------------------------------------------------

bool In::keys_known(Node map, const char* extra, const char* extra2, const char* map_key) {
  const size_t count = names_.size();
  bool unique = count <= 64;
  uint64_t named = 0;  // the fields the keys named so far (bit j: names_[j])
  size_t j = 0;        // where the next key's field is looked for first: keys usually come in the fields' order
  for_each_entry(map, [&](Node key, Node) {
    const std::string_view k = key.scalar();
    if ((extra && key_is(k, extra)) || (extra2 && key_is(k, extra2))) return;
    if (map_key && key_is(k, map_key))
      fail(key, "'" + std::string(k) + "' is the key of this map entry: give it as the entry's key, not among its fields");
    size_t found = SIZE_MAX;
    for (size_t t = 0; t < count && found == SIZE_MAX; ++t, j = j + 1 < count ? j + 1 : 0)
      if (key_is(k, names_[j])) found = j;
    if (found == SIZE_MAX) fail(key, "unknown field '" + std::string(k) + "'");
    if (unique) {
      if (named >> found & 1) unique = false;
      named |= uint64_t(1) << found;
    }
  });
  return unique;
}

void In::map_entries(Node n, void* ctx, void (*each)(void*, Node, Node, size_t)) {
  // Duplicate keys: a hash table for a large map, the keys before it for a small one.
  constexpr size_t kSmall = 8;
  const bool small = n.size() <= kSmall;
  KeyIndex seen;  // of this map (entries read in between hold maps of their own)
  std::vector<Node> keys;
  if (!small) {
    seen.reset(n.size());
    keys.reserve(n.size());
  }
  Node before[kSmall];
  size_t i = 0;
  for_each_entry(n, [&](Node key, Node val) {
    if (!key.is_scalar()) fail(key, "a map key must be a scalar");
    path_.emplace_back(key.scalar());
    Node first;
    if (small) {
      for (size_t j = 0; j < i && !first; ++j)
        if (before[j].scalar() == key.scalar()) first = before[j];
      before[i] = key;
    } else {
      keys.push_back(key);
      const uint32_t j = seen.insert(key.scalar(), static_cast<uint32_t>(i), [&](uint32_t x) { return keys[x].scalar(); });
      if (j != KeyIndex::kNone) first = keys[j];
    }
    if (first) {
      const Mark m = first.mark();
      fail(key, "duplicate key '" + std::string(key.scalar()) + "' (first at " + std::to_string(m.line) + ":" + std::to_string(m.col) + ")");
    }
    each(ctx, key, val, i++);
    path_.pop_back();
  });
}

void In::fail(Node n, const std::string& message) const {
  const Mark m = n.mark();
  std::string where = !m.known ? "?" : std::to_string(m.line) + ":" + std::to_string(m.col);
  std::string path;
  for (const Step& p : path_) {
    if (p.name) {
      if (!path.empty()) path += '.';
      path += p.name;
    } else if (!p.key.empty()) {
      path += '[';
      path += p.key;
      path += ']';
    } else {
      path += '[';
      path += std::to_string(p.index);
      path += ']';
    }
  }
  throw TextError(where, path, message);
}

std::string_view In::scalar(Node n, const char* what) const {
  if (!n.is_scalar()) fail(n, std::string("expected ") + what);
  return n.scalar();
}

std::optional<int64_t> In::named(Node n, const Spell& spell) const {
  if (n.is_map() && spell.ref && !spell.via) return named_by_keys(n, spell);
  if (!n.is_scalar()) return std::nullopt;  // parse_int says what it expected
  const std::string_view s = n.scalar();  // a std::string only for messages
  if (!is_name_spelling(s) && !((spell.flags & kBool) && (s == "true" || s == "false"))) return std::nullopt;
  if (spell.flags & kBool) {
    if (s == "true") return 1;
    if (s == "false") return 0;
  }
  for (size_t i = 0; i < spell.enum_count; ++i)
    if (s == spell.enum_values[i].name) return spell.enum_values[i].value;
  if (spell.ref) {
    const std::string_view ref = spell.ref;
    const size_t dot = ref.find('.');
    const NameTable* t = find_table(tables_, ref.substr(0, dot));
    if (!t) fail(n, "'" + std::string(s) + "' names an element of " + std::string(ref) + ", but there is none here: use an index");
    if (dot == std::string_view::npos) {
      int64_t first = -1, second = -1;
      const int64_t i = t->find(s, &second, &first);
      if (i == -1) fail(n, "unknown " + std::string(ref) + " name '" + std::string(s) + "' (no element of " + std::string(ref) + " has that key)");
      if (i == -2) {
        auto at = [&](int64_t k) {
          return t->marks[k] < 0 ? std::string("?") : std::to_string(t->marks[k]) + ":" + std::to_string(t->cols[k]);
        };
        fail(n, "'" + std::string(s) + "' is the key of more than one element of " + std::string(ref) + " (" + std::to_string(first) +
                    " at " + at(first) + ", " + std::to_string(second) + " at " + at(second) + "): duplicate key; use the index");
      }
      return i;
    }
    // "actors.actions": the list of the element the sibling `via` chose.
    int64_t idx = -1;
    for (size_t i = frames_.back().ints_at; i < ints_.size(); ++i)
      if (spell.via && std::string_view(ints_[i].first) == spell.via) idx = ints_[i].second;
    const std::string sub(ref.substr(dot + 1));
    for (const auto& [sname, lists] : t->subs)
      if (sname == sub) {
        if (idx < 0 || static_cast<uint64_t>(idx) >= lists.size())
          fail(n, "'" + std::string(s) + "' names one of the " + sub + " of " + std::string(spell.via ? spell.via : "?") +
                      ", which names no element of " + t->array + ": use an index");
        const auto& l = lists[idx];
        int64_t found = -1;
        for (size_t k = 0; k < l.size(); ++k)
          if (l[k] == s) {
            if (found >= 0) fail(n, "'" + std::string(s) + "' is more than one of the " + sub + " of " + t->array + "[" + std::to_string(idx) + "] (" + std::to_string(found) + " and " + std::to_string(k) + "): duplicate key; use the index");
            found = static_cast<int64_t>(k);
          }
        if (found < 0) fail(n, "unknown " + sub + " name '" + std::string(s) + "' (" + t->array + "[" + std::to_string(idx) + "] has no such " + sub + ")");
        return found;
      }
    fail(n, "'" + std::string(s) + "': no list " + std::string(ref) + " here: use an index");
  }
  if (spell.hash)
    if (auto h = hash_name(spell.hash, s)) return static_cast<int64_t>(*h);
  if (spell.enum_count) {
    std::string names;
    for (size_t i = 0; i < spell.enum_count; ++i) names += std::string(names.empty() ? "" : ", ") + spell.enum_values[i].name;
    fail(n, "unknown " + std::string(spell.enum_name ? spell.enum_name : "enum") + " value '" + std::string(s) + "' (one of: " + names + ", or a number)");
  }
  return std::nullopt;  // parse_int refuses it, saying it wanted an integer
}

// A reference as a map of the target's key fields ({name: EventSystemActor,
// sub_name: camera}): the element whose key: [name, sub_name] are these.
int64_t In::named_by_keys(Node n, const Spell& spell) const {
  const std::string ref = spell.ref;
  const NameTable* t = find_table(tables_, ref);
  if (!t) fail(n, "a map names an element of " + ref + ", but there is none here: use an index");
  std::string fields = t->key_field;
  for (const std::string& a : t->also) fields += ", " + a;
  if (t->also.empty())
    fail(n, "an element of " + ref + " is named by its " + t->key_field + " alone (or its index), not by a map");
  std::string key;
  std::vector<std::string> more(t->also.size());
  std::vector<bool> given(t->also.size() + 1);
  for_each_entry(n, [&](Node k, Node v) {
    const std::string_view name = k.scalar();
    size_t at = SIZE_MAX;
    if (name == t->key_field) at = 0;
    for (size_t j = 0; j < t->also.size(); ++j)
      if (name == t->also[j]) at = j + 1;
    if (at == SIZE_MAX) fail(k, "unknown key '" + std::string(name) + "' in a reference to " + ref + " (" + fields + ")");
    if (!v.is_scalar()) fail(v, "'" + std::string(name) + "': expected a string");
    given[at] = true;
    (at == 0 ? key : more[at - 1]) = v.scalar();
  });
  for (size_t j = 0; j < given.size(); ++j)
    if (!given[j]) fail(n, "a reference to " + ref + " by its keys needs " + fields + ": '" + (j ? t->also[j - 1] : t->key_field) + "' missing");
  std::string what = t->key_field + " '" + key + "'";
  for (size_t j = 0; j < t->also.size(); ++j) what += " and " + t->also[j] + " '" + more[j] + "'";
  int64_t first = -1, second = -1;
  const int64_t i = t->find_all(key, more, &second, &first);
  if (i == -1) fail(n, "unknown " + ref + " element: none has " + what);
  if (i == -2) {
    auto at = [&](int64_t k) {
      return k < 0 || t->marks[k] < 0 ? std::string("?") : std::to_string(t->marks[k]) + ":" + std::to_string(t->cols[k]);
    };
    fail(n, "more than one element of " + ref + " has " + what + " (" + std::to_string(first) + " at " + at(first) + ", " +
                std::to_string(second) + " at " + at(second) + "): duplicate key; use the index");
  }
  return i;
}

uint64_t In::parse_int(Node n, bool is_signed, int64_t min, uint64_t max) const {
  const std::string_view s = scalar(n, "an integer");
  const char* p = s.data();
  const char* end = s.data() + s.size();
  bool neg = false;
  if (p < end && (*p == '-' || *p == '+')) neg = *p++ == '-';
  int base = 10;
  if (end - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
    base = 16;
    p += 2;
  }
  uint64_t mag = 0;
  auto r = std::from_chars(p, end, mag, base);
  if (r.ec != std::errc() || r.ptr != end || p == end) fail(n, "expected an integer, got '" + std::string(s) + "'");
  if (neg) {
    if (!is_signed && mag != 0) fail(n, "negative value " + std::string(s) + " for an unsigned field");
    if (mag > uint64_t(0) - static_cast<uint64_t>(min)) fail(n, "value " + std::string(s) + " out of range");
    return uint64_t(0) - mag;
  }
  if (mag > max) fail(n, "value " + std::string(s) + " out of range");
  return mag;
}

namespace {

// The reading side of float_text: also "nan", ".NaN", "inf", "+.inf".
template <class F, class U>
bool parse_float_text(std::string_view s, F& v, std::string& why) {
  if (s == ".nan" || s == ".NaN" || s == ".NAN" || s == "nan" || s == "NaN") {
    v = std::numeric_limits<F>::quiet_NaN();
    return true;
  }
  if (s == ".inf" || s == ".Inf" || s == ".INF" || s == "+.inf" || s == "inf") {
    v = std::numeric_limits<F>::infinity();
    return true;
  }
  if (s == "-.inf" || s == "-.Inf" || s == "-.INF" || s == "-inf") {
    v = -std::numeric_limits<F>::infinity();
    return true;
  }
  if (s.rfind(".nan:0x", 0) == 0) {
    U bits = 0;
    const char* b = s.data() + 7;
    auto r = std::from_chars(b, s.data() + s.size(), bits, 16);
    if (r.ec != std::errc() || r.ptr != s.data() + s.size() || b == r.ptr) {
      why = "expected .nan:0x followed by " + std::to_string(2 * sizeof(U)) + " hex digits, got '" + std::string(s) + "'";
      return false;
    }
    v = std::bit_cast<F>(bits);
    if (!std::isnan(v)) {
      why = "'" + std::string(s) + "' is not the bit pattern of a NaN";
      return false;
    }
    return true;
  }
  const char* b = s.data();
  if (!s.empty() && s[0] == '+') ++b;
  auto r = std::from_chars(b, s.data() + s.size(), v);
  if (r.ec != std::errc() || r.ptr != s.data() + s.size() || s.empty() || b == r.ptr) {
    why = "expected a number, got '" + std::string(s) + "'";
    return false;
  }
  return true;
}

}  // namespace

void In::parse_float(Node n, float& v) const {
  std::string why;
  if (!parse_float_text<float, uint32_t>(scalar(n, "a number"), v, why)) fail(n, why);
}

void In::parse_float(Node n, double& v) const {
  std::string why;
  if (!parse_float_text<double, uint64_t>(scalar(n, "a number"), v, why)) fail(n, why);
}

std::string In::parse_string_bytes(Node n) const {
  if (n.size() != 1 || n.first_key().scalar() != "bytes")
    fail(n, "expected a string, or {bytes: HEX} for one that is not UTF-8");
  std::vector<uint8_t> b = parse_hex(n.first_value());
  return std::string(b.begin(), b.end());
}

void In::fail_budget(Node n) const {
  fail(n, "text budget exceeded: the document expands to more than " + std::to_string(kTextBudgetFactor) +
              " x its size + " + std::to_string(kTextBudgetSlack) +
              " nodes and string bytes (aliases repeating large parts?)");
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::vector<uint8_t> In::parse_hex(Node n) const {
  const std::string_view s = scalar(n, "a hex string");
  if (s.size() % 2) fail(n, "hex string has an odd number of digits");
  std::vector<uint8_t> out(s.size() / 2);
  auto digit = [&](char c) -> int {
    const int d = hex_digit(c);
    if (d < 0) fail(n, std::string("bad hex digit '") + c + "'");
    return d;
  };
  for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<uint8_t>(digit(s[2 * i]) << 4 | digit(s[2 * i + 1]));
  return out;
}

}  // namespace binschema::text
