#include "binschema/text.h"

#include <algorithm>
#include <cstring>

namespace binschema::text {

std::string format_float(double v, bool single) {
  if (std::isnan(v)) return ".nan";
  if (std::isinf(v)) return v < 0 ? "-.inf" : ".inf";
  char buf[64];
  // Shortest text that reads back to the same value, so floats survive a
  // trip through text bit for bit.
  auto r = single ? std::to_chars(buf, buf + sizeof buf, static_cast<float>(v))
                  : std::to_chars(buf, buf + sizeof buf, v);
  std::string s(buf, r.ptr);
  // Keep floats recognisable as floats in the text ("1.0", not "1").
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  return s;
}

std::string format_int(uint64_t mag, bool negative, bool hex) {
  char buf[32];
  auto r = std::to_chars(buf, buf + sizeof buf, mag, hex ? 16 : 10);
  return std::string(negative ? "-" : "") + (hex ? "0x" : "") + std::string(buf, r.ptr);
}

std::string to_hex(const std::vector<uint8_t>& b) {
  static const char* d = "0123456789abcdef";
  std::string s;
  s.reserve(b.size() * 2);
  for (uint8_t c : b) {
    s += d[c >> 4];
    s += d[c & 15];
  }
  return s;
}

// ---- YAML -------------------------------------------------------------------

YamlSink::YamlSink() { e_.SetIndent(2); }
void YamlSink::begin_map() { e_ << YAML::BeginMap; }
void YamlSink::end_map() { e_ << YAML::EndMap; }
void YamlSink::key(const char* k) { e_ << YAML::Key << k << YAML::Value; }
void YamlSink::begin_seq(bool flow) {
  if (flow) e_ << YAML::Flow;
  e_ << YAML::BeginSeq;
}
void YamlSink::end_seq() { e_ << YAML::EndSeq; }
void YamlSink::null() { e_ << YAML::Null; }
void YamlSink::boolean(bool b) { e_ << (b ? "true" : "false"); }
void YamlSink::number(const std::string& s, bool) { e_ << s; }
void YamlSink::string(const std::string& s) {
  // Quote what a YAML reader would otherwise take for null, a bool or a
  // number; the schema knows it is a string either way, but people read it.
  bool quote = s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL" ||
               s == "true" || s == "false" || s.find_first_not_of("0123456789+-.xeE") == std::string::npos;
  if (quote) e_ << YAML::DoubleQuoted;
  e_ << s;
}
std::string YamlSink::result() const { return std::string(e_.c_str()) + "\n"; }

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

// ---- Input ------------------------------------------------------------------

void In::fail(const YAML::Node& n, const std::string& message) const {
  YAML::Mark m = n.Mark();
  std::string where = m.is_null() ? "?" : std::to_string(m.line + 1) + ":" + std::to_string(m.column + 1);
  std::string path;
  for (const auto& p : path_) path += p;
  if (!path.empty() && path[0] == '.') path.erase(0, 1);
  throw TextError(where, path, message);
}

std::string In::scalar(const YAML::Node& n, const char* what) const {
  if (!n.IsScalar()) fail(n, std::string("expected ") + what);
  return n.Scalar();
}

uint64_t In::parse_int(const YAML::Node& n, bool is_signed, int64_t min, uint64_t max) const {
  std::string s = scalar(n, "an integer");
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
  if (r.ec != std::errc() || r.ptr != end || p == end) fail(n, "expected an integer, got '" + s + "'");
  if (neg) {
    if (!is_signed && mag != 0) fail(n, "negative value " + s + " for an unsigned field");
    if (mag > uint64_t(0) - static_cast<uint64_t>(min)) fail(n, "value " + s + " out of range");
    return uint64_t(0) - mag;
  }
  if (mag > max) fail(n, "value " + s + " out of range");
  return mag;
}

double In::parse_float(const YAML::Node& n, bool single) const {
  std::string s = scalar(n, "a number");
  if (s == ".nan" || s == ".NaN" || s == "nan") return std::nan("");
  if (s == ".inf" || s == "+.inf" || s == "inf") return INFINITY;
  if (s == "-.inf" || s == "-inf") return -INFINITY;
  const char* b = s.data();
  if (!s.empty() && s[0] == '+') ++b;
  if (single) {
    float f;
    auto r = std::from_chars(b, s.data() + s.size(), f);
    if (r.ec != std::errc() || r.ptr != s.data() + s.size() || s.empty())
      fail(n, "expected a number, got '" + s + "'");
    return f;
  }
  double d;
  auto r = std::from_chars(b, s.data() + s.size(), d);
  if (r.ec != std::errc() || r.ptr != s.data() + s.size() || s.empty())
    fail(n, "expected a number, got '" + s + "'");
  return d;
}

std::vector<uint8_t> In::parse_hex(const YAML::Node& n) const {
  std::string s = scalar(n, "a hex string");
  if (s.size() % 2) fail(n, "hex string has an odd number of digits");
  std::vector<uint8_t> out(s.size() / 2);
  auto digit = [&](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    fail(n, std::string("bad hex digit '") + c + "'");
  };
  for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<uint8_t>(digit(s[2 * i]) << 4 | digit(s[2 * i + 1]));
  return out;
}

}  // namespace binschema::text
