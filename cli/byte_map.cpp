#include "byte_map.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <string_view>

#include "binschema/error.h"
#include "binschema/reader.h"
#include "io.h"

namespace binschema::cli {

extern const char kViewHtml[];  // cli/view.html, embedded at build time (cmake/embed.cmake)

const char* byte_class_name(ByteClass c) {
  switch (c) {
    case ByteClass::Explained: return "explained";
    case ByteClass::Reserved: return "padding (reserved field)";
    case ByteClass::ZeroGap: return "padding (zeros no field covers)";
    case ByteClass::Unexplained: return "unexplained";
  }
  return "?";
}

namespace {

const char* class_key(ByteClass c) {
  switch (c) {
    case ByteClass::Explained: return "explained";
    case ByteClass::Reserved: return "reserved";
    case ByteClass::ZeroGap: return "zeros";
    case ByteClass::Unexplained: return "unexplained";
  }
  return "?";
}

bool owns_bytes(const Trace::Node& n) { return n.kind != TraceKind::Target && n.size > 0; }

std::string json_string(std::string_view s) {
  std::string o = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      o += '\\';
      o += static_cast<char>(c);
    } else if (c < 0x20 || c == '<' || c == '>' || c == '&' || c >= 0x7f) {
      // Non-ASCII bytes of file text are shown as code points U+0080..U+00FF
      // (the text is the file's bytes, not necessarily UTF-8); < > & escaped
      // so that the JSON can sit in an HTML <script>.
      char b[8];
      std::snprintf(b, sizeof b, "\\u%04x", c);
      o += b;
    } else {
      o += static_cast<char>(c);
    }
  }
  return o + "\"";
}

std::string printable(std::string_view s) {
  std::string o;
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      o += '\\';
      o += static_cast<char>(c);
    } else if (c < 0x20 || c >= 0x7f) {
      char b[8];
      std::snprintf(b, sizeof b, "\\x%02x", c);
      o += b;
    } else {
      o += static_cast<char>(c);
    }
  }
  return o;
}

uint64_t load_uint(std::span<const uint8_t> b, uint64_t at, unsigned n, bool big) {
  uint64_t v = 0;
  for (unsigned i = 0; i < n; ++i) {
    const uint64_t byte = b[at + (big ? i : n - 1 - i)];
    v = v << 8 | byte;
  }
  return v;
}

unsigned type_size(std::string_view t) {
  if (t == "u8" || t == "s8" || t == "bool8" || t == "char") return 1;
  if (t == "u16" || t == "s16") return 2;
  if (t == "u32" || t == "s32" || t == "f32" || t == "bool32") return 4;
  if (t == "u64" || t == "s64" || t == "f64") return 8;
  return 0;
}

// A number of type `t` at `at`, as text.
std::string number_text(std::span<const uint8_t> b, uint64_t at, std::string_view t, bool big) {
  const unsigned n = type_size(t);
  if (n == 0 || at + n > b.size()) return "";
  const uint64_t u = load_uint(b, at, n, big);
  char buf[64];
  if (t == "f32") {
    float f;
    const uint32_t u32 = static_cast<uint32_t>(u);
    std::memcpy(&f, &u32, 4);
    std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(f));
    return buf;
  }
  if (t == "f64") {
    double d;
    std::memcpy(&d, &u, 8);
    std::snprintf(buf, sizeof buf, "%.17g", d);
    return buf;
  }
  if (t == "bool8" || t == "bool32") return u ? "true" : "false";
  if (t[0] == 's') {
    const int64_t v = n == 8 ? static_cast<int64_t>(u) : static_cast<int64_t>(u << (64 - 8 * n)) >> (64 - 8 * n);
    std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v));
    return buf;
  }
  std::snprintf(buf, sizeof buf, "%llu (0x%llx)", static_cast<unsigned long long>(u), static_cast<unsigned long long>(u));
  return buf;
}

// The struct a node belongs to: its nearest Struct ancestor (or itself).
int64_t struct_of(const Trace& t, uint32_t i) {
  for (uint32_t p = t.nodes[i].parent; p != Trace::kNoParent; p = t.nodes[p].parent)
    if (t.nodes[p].kind == TraceKind::Struct) return p;
  return -1;
}

// Nodes over `offset`, innermost (smallest, then latest read) first.
std::vector<uint32_t> nodes_at(const ByteMap& m, uint64_t offset) {
  std::vector<uint32_t> hits;
  for (uint32_t i = 0; i < m.trace.nodes.size(); ++i) {
    const auto& n = m.trace.nodes[i];
    if (owns_bytes(n) && offset >= n.off && offset - n.off < n.size) hits.push_back(i);
  }
  std::stable_sort(hits.begin(), hits.end(), [&](uint32_t a, uint32_t b) {
    const uint64_t sa = m.trace.nodes[a].size, sb = m.trace.nodes[b].size;
    return sa != sb ? sa < sb : a > b;
  });
  return hits;
}

const ByteRange* range_at(const ByteMap& m, uint64_t offset) {
  auto it = std::upper_bound(m.ranges.begin(), m.ranges.end(), offset,
                             [](uint64_t o, const ByteRange& r) { return o < r.start; });
  if (it == m.ranges.begin()) return nullptr;
  --it;
  return offset < it->end ? &*it : nullptr;
}

std::string range_text(uint64_t a, uint64_t b) { return hex(a) + ".." + hex(b); }

// base64 of bytes (the page decodes it with atob).
std::string base64(const uint8_t* p, size_t n) {
  static const char* d = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string o;
  o.reserve((n + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 2 < n; i += 3) {
    const uint32_t v = uint32_t(p[i]) << 16 | uint32_t(p[i + 1]) << 8 | p[i + 2];
    o += d[v >> 18];
    o += d[(v >> 12) & 63];
    o += d[(v >> 6) & 63];
    o += d[v & 63];
  }
  if (i < n) {
    const uint32_t v = uint32_t(p[i]) << 16 | (i + 1 < n ? uint32_t(p[i + 1]) << 8 : 0);
    o += d[v >> 18];
    o += d[(v >> 12) & 63];
    o += i + 1 < n ? d[(v >> 6) & 63] : '=';
    o += '=';
  }
  return o;
}

std::string base64_u32(const std::vector<uint32_t>& v) {
  std::vector<uint8_t> b(v.size() * 4);
  for (size_t i = 0; i < v.size(); ++i)
    for (int k = 0; k < 4; ++k) b[i * 4 + k] = static_cast<uint8_t>(v[i] >> (8 * k));
  return base64(b.data(), b.size());
}

}  // namespace

ByteMap build_byte_map(const Format& f, std::span<const uint8_t> bytes) {
  ByteMap m;
  m.format = &f;
  m.bytes = bytes;
  if (!f.trace) {
    m.error = std::string(f.name) + ": this format's code was generated without the byte map's trace";
  } else {
    try {
      f.trace(bytes, m.trace);
    } catch (const DecodeError& e) {
      std::string what = e.what();
      if (what.find(hex(e.offset())) == std::string::npos) what += " (at " + hex(e.offset()) + ")";
      m.error = what;
    }
  }
  // Every byte's class: nodes in the order read (parents before children), so
  // that the innermost field decides.
  std::vector<uint8_t> cls(bytes.size(), 0);
  for (const auto& n : m.trace.nodes) {
    if (!owns_bytes(n) || n.off >= bytes.size()) continue;
    const uint64_t end = std::min<uint64_t>(bytes.size(), n.off + n.size);
    const uint8_t c = static_cast<uint8_t>(n.kind == TraceKind::Padding ? ByteClass::Reserved : ByteClass::Explained);
    std::memset(cls.data() + n.off, c, end - n.off);
  }
  for (uint64_t i = 0; i < bytes.size(); ++i)
    if (cls[i] == 0) cls[i] = static_cast<uint8_t>(bytes[i] == 0 ? ByteClass::ZeroGap : ByteClass::Unexplained);
  for (uint64_t i = 0; i < bytes.size();) {
    uint64_t j = i + 1;
    while (j < bytes.size() && cls[j] == cls[i]) ++j;
    const ByteClass c = static_cast<ByteClass>(cls[i]);
    m.ranges.push_back({i, j, c});
    (c == ByteClass::Explained ? m.explained : c == ByteClass::Unexplained ? m.unexplained : m.padding) += j - i;
    i = j;
  }
  return m;
}

std::string node_value(const ByteMap& m, uint32_t i, uint64_t at) {
  const Trace::Node& n = m.trace.nodes[i];
  const std::string_view type = n.type ? n.type : "";
  const bool big = m.trace.big_endian;
  switch (n.kind) {
    case TraceKind::Number:
    case TraceKind::Bits:
    case TraceKind::Padding:
      if (type == "char") break;
      return number_text(m.bytes, n.off, type, big);
    case TraceKind::Pointer: {
      std::string v = number_text(m.bytes, n.off, type, big);
      if (n.target != Trace::kNone) v += " -> " + hex(n.target);
      return v;
    }
    case TraceKind::Array: {
      const unsigned es = type_size(type);
      if (es == 0) return std::to_string(n.size) + " bytes";
      const uint64_t k = (at - n.off) / es;
      return "[" + std::to_string(k) + "] of " + std::to_string(n.size / es) + ": " +
             number_text(m.bytes, n.off + k * es, type, big);
    }
    case TraceKind::String: {
      const bool pascal = type == "pascal16";
      const uint64_t start = n.off + (pascal ? 2 : 0);
      const uint64_t len = n.size >= (pascal ? 3u : 1u) ? n.size - (pascal ? 3 : 1) : 0;
      if (start + len > m.bytes.size()) return "";
      return "\"" + printable(std::string_view(reinterpret_cast<const char*>(m.bytes.data() + start), len)) + "\"";
    }
    case TraceKind::Struct: return n.type ? n.type : "";
    case TraceKind::Union: return n.type ? std::string("case ") + n.type : "";
    case TraceKind::Target: return n.target != Trace::kNone ? "at " + hex(n.target) : "";
    default: break;
  }
  if (n.kind == TraceKind::Chars || type == "char") {
    const uint64_t end = std::min<uint64_t>(m.bytes.size(), n.off + n.size);
    std::string_view t(reinterpret_cast<const char*>(m.bytes.data() + n.off), end - n.off);
    t = t.substr(0, t.find('\0'));
    return "\"" + printable(t) + "\"";
  }
  return std::to_string(n.size) + " bytes";
}

namespace {

std::string node_line(const ByteMap& m, uint32_t i, uint64_t at) {
  const auto& n = m.trace.nodes[i];
  std::string path = m.trace.path(i);
  std::string s = (path.empty() ? std::string("(root)") : path) + "  " + trace_kind_name(n.kind);
  if (n.type && n.kind != TraceKind::Struct) s += std::string(" ") + n.type;
  s += "  " + range_text(n.off, n.off + n.size) + " (" + std::to_string(n.size) + " bytes)";
  const std::string v = node_value(m, i, at);
  if (!v.empty()) s += "  = " + v;
  return s;
}

}  // namespace

std::string field_path_at(const ByteMap& m, uint64_t offset) {
  const std::vector<uint32_t> hits = nodes_at(m, offset);
  if (!hits.empty()) {
    const std::string path = m.trace.path(hits[0]);
    return path.empty() ? "(root)" : path;
  }
  const ByteRange* r = offset < m.bytes.size() ? range_at(m, offset) : nullptr;
  return std::string("no field: ") + (r ? byte_class_name(r->cls) : "past the end");
}

std::string explain_text(const ByteMap& m, uint64_t offset) {
  std::string o = "offset " + hex(offset) + " of " + hex(m.bytes.size()) + " bytes (" + m.format->name + ")\n";
  if (offset >= m.bytes.size()) return o + "past the end of the file\n";
  char b[8];
  std::snprintf(b, sizeof b, "%02x", m.bytes[offset]);
  o += std::string("byte: ") + b + "\n";
  const std::vector<uint32_t> hits = nodes_at(m, offset);
  if (hits.empty()) {
    const ByteRange* r = range_at(m, offset);
    o += std::string("no field: ") + byte_class_name(r->cls) + ", " + range_text(r->start, r->end) + " (" +
         std::to_string(r->end - r->start) + " bytes)\n";
    return o;
  }
  const uint32_t in = hits[0];
  const std::string path = m.trace.path(in);
  o += "field: " + (path.empty() ? std::string("(root)") : path) + "\n";
  const auto& n = m.trace.nodes[in];
  o += std::string("kind: ") + trace_kind_name(n.kind) + (n.type && n.kind != TraceKind::Struct ? std::string(" ") + n.type : "") +
       ", " + range_text(n.off, n.off + n.size) + " (" + std::to_string(n.size) + " bytes)\n";
  const std::string v = node_value(m, in, offset);
  if (!v.empty()) o += "value: " + v + "\n";
  const int64_t st = n.kind == TraceKind::Struct ? int64_t(in) : struct_of(m.trace, in);
  if (st >= 0) {
    const auto& s = m.trace.nodes[st];
    const std::string sp = m.trace.path(static_cast<uint32_t>(st));
    o += std::string("struct: ") + (s.type ? s.type : "?") + " at " + hex(s.off) + " (" + std::to_string(s.size) +
         " bytes), " + (sp.empty() ? std::string("the root") : sp) + "\n";
  }
  if (hits.size() > 1) {
    o += "within:\n";
    for (size_t k = 1; k < hits.size(); ++k) o += "  " + node_line(m, hits[k], offset) + "\n";
  }
  return o;
}

namespace {

std::string node_json(const ByteMap& m, uint32_t i, uint64_t at) {
  const auto& n = m.trace.nodes[i];
  std::string o = "{\"offset\":" + std::to_string(n.off) + ",\"size\":" + std::to_string(n.size) +
                  ",\"path\":" + json_string(m.trace.path(i)) + ",\"kind\":\"" + trace_kind_name(n.kind) + "\"";
  if (n.type) o += ",\"type\":" + json_string(n.type);
  if (n.target != Trace::kNone) o += ",\"target\":" + std::to_string(n.target);
  if (n.parent != Trace::kNoParent) o += ",\"parent\":" + std::to_string(n.parent);
  if (at != Trace::kNone) {
    const std::string v = node_value(m, i, at);
    if (!v.empty()) o += ",\"value\":" + json_string(v);
  }
  return o + "}";
}

std::string ranges_json(const ByteMap& m) {
  std::string o = "[";
  for (size_t k = 0; k < m.ranges.size(); ++k) {
    const auto& r = m.ranges[k];
    o += (k ? "," : "") + std::string("{\"start\":") + std::to_string(r.start) + ",\"end\":" + std::to_string(r.end) +
         ",\"class\":\"" + class_key(r.cls) + "\"}";
  }
  return o + "]";
}

std::string totals_json(const ByteMap& m) {
  return "\"size\":" + std::to_string(m.bytes.size()) + ",\"explained\":" + std::to_string(m.explained) +
         ",\"padding\":" + std::to_string(m.padding) + ",\"unexplained\":" + std::to_string(m.unexplained) +
         ",\"error\":" + (m.error.empty() ? std::string("null") : json_string(m.error));
}

}  // namespace

std::string explain_json(const ByteMap& m, uint64_t offset) {
  std::string o = "{\"format\":" + json_string(m.format->name) + ",\"offset\":" + std::to_string(offset) + ",\"fields\":[";
  if (offset < m.bytes.size()) {
    const std::vector<uint32_t> hits = nodes_at(m, offset);
    for (size_t k = 0; k < hits.size(); ++k) o += (k ? "," : "") + node_json(m, hits[k], offset);
  }
  o += "]";
  if (offset < m.bytes.size())
    if (const ByteRange* r = range_at(m, offset))
      o += ",\"class\":\"" + std::string(class_key(r->cls)) + "\",\"range\":{\"start\":" + std::to_string(r->start) +
           ",\"end\":" + std::to_string(r->end) + "}";
  return o + "}\n";
}

std::string coverage_text(const ByteMap& m, const std::string& name) {
  auto pct = [&](uint64_t n) {
    char b[32];
    std::snprintf(b, sizeof b, "%.1f%%", m.bytes.empty() ? 0.0 : 100.0 * double(n) / double(m.bytes.size()));
    return std::string(b);
  };
  std::string o = name + ": " + m.format->name + ", " + std::to_string(m.bytes.size()) + " bytes, " +
                  std::to_string(m.trace.nodes.size()) + " fields read\n";
  if (!m.error.empty()) o += "decode stopped: " + m.error + " (the map covers what was read before it)\n";
  o += "explained:   " + std::to_string(m.explained) + " bytes (" + pct(m.explained) + ")\n";
  o += "padding:     " + std::to_string(m.padding) + " bytes (" + pct(m.padding) + ")\n";
  o += "unexplained: " + std::to_string(m.unexplained) + " bytes (" + pct(m.unexplained) + ")\n";
  // The ranges no field explains, one a line (reserved fields, being fields,
  // only counted); at most kShown of each class (--format json has them all).
  constexpr size_t kShown = 50;
  for (ByteClass c : {ByteClass::Unexplained, ByteClass::ZeroGap, ByteClass::Reserved}) {
    size_t count = 0;
    uint64_t total = 0;
    for (const auto& r : m.ranges)
      if (r.cls == c) ++count, total += r.end - r.start;
    if (count == 0) continue;
    o += std::string(byte_class_name(c)) + ": " + std::to_string(count) + (count == 1 ? " range, " : " ranges, ") +
         std::to_string(total) + " bytes\n";
    if (c == ByteClass::Reserved) continue;
    size_t shown = 0;
    for (const auto& r : m.ranges) {
      if (r.cls != c) continue;
      if (shown++ == kShown) {
        o += "  ... " + std::to_string(count - kShown) + " more (--format json lists them all)\n";
        break;
      }
      o += "  " + range_text(r.start, r.end) + "  " + std::to_string(r.end - r.start) + " bytes\n";
    }
  }
  return o;
}

std::string coverage_json(const ByteMap& m, const std::string& name) {
  std::string o = "{\"file\":" + json_string(name) + ",\"format\":" + json_string(m.format->name) + "," + totals_json(m) +
                  ",\"big_endian\":" + (m.trace.big_endian ? "true" : "false") + ",\"ranges\":" + ranges_json(m) + ",\"fields\":[\n";
  for (uint32_t i = 0; i < m.trace.nodes.size(); ++i) o += (i ? ",\n" : "") + node_json(m, i, m.trace.nodes[i].off);
  return o + "\n]}\n";
}

std::string view_html(const ByteMap& m, const std::string& name) {
  const Trace& t = m.trace;
  // Columns of the nodes, as little-endian u32 arrays in base64 (numbers in
  // JSON would cost the page seconds on a large file).
  std::map<std::string, uint32_t> ids;
  std::vector<std::string> strings;
  auto id = [&](const char* s) -> uint32_t {
    if (!s) return 0;
    auto [it, added] = ids.emplace(s, static_cast<uint32_t>(strings.size() + 1));
    if (added) strings.emplace_back(s);
    return it->second;
  };
  const size_t n = t.nodes.size();
  std::vector<uint32_t> off(n), size(n), parent(n), target(n), index(n), name_id(n), type_id(n), kind(n);
  for (size_t i = 0; i < n; ++i) {
    const auto& x = t.nodes[i];
    off[i] = static_cast<uint32_t>(x.off);
    size[i] = static_cast<uint32_t>(x.size);
    parent[i] = x.parent == Trace::kNoParent ? 0 : x.parent + 1;
    target[i] = x.target == Trace::kNone ? 0 : static_cast<uint32_t>(x.target + 1);
    index[i] = x.index == Trace::kNoParent ? 0 : x.index + 1;
    name_id[i] = id(x.name);
    type_id[i] = id(x.type);
    kind[i] = static_cast<uint32_t>(x.kind);
  }
  std::string strs = "[";
  for (size_t i = 0; i < strings.size(); ++i) strs += (i ? "," : "") + json_string(strings[i]);
  strs += "]";
  std::string kinds = "[";
  for (unsigned k = 0; k <= static_cast<unsigned>(TraceKind::Field); ++k)
    kinds += (k ? ",\"" : "\"") + std::string(trace_kind_name(static_cast<TraceKind>(k))) + "\"";
  kinds += "]";
  std::string data = "const BINSCHEMA_MAP = {\"file\":" + json_string(name) + ",\"format\":" + json_string(m.format->name) + "," +
                     totals_json(m) + ",\"big_endian\":" + (t.big_endian ? "true" : "false") + ",\"kinds\":" + kinds +
                     ",\"strings\":" + strs + ",\"ranges\":" + ranges_json(m) + ",\"count\":" + std::to_string(n) +
                     ",\n\"bytes\":\"" + base64(m.bytes.data(), m.bytes.size()) + "\",\n\"off\":\"" + base64_u32(off) +
                     "\",\n\"sz\":\"" + base64_u32(size) + "\",\n\"parent\":\"" + base64_u32(parent) + "\",\n\"target\":\"" +
                     base64_u32(target) + "\",\n\"index\":\"" + base64_u32(index) + "\",\n\"name\":\"" + base64_u32(name_id) +
                     "\",\n\"type\":\"" + base64_u32(type_id) + "\",\n\"kind\":\"" + base64_u32(kind) + "\"};";
  std::string page = kViewHtml;
  const std::string mark = "/*@BINSCHEMA_MAP@*/";
  const size_t at = page.find(mark);
  if (at == std::string::npos) throw Failure{kUsage, "the page template has no data mark"};
  page.replace(at, mark.size(), data);
  return page;
}

}  // namespace binschema::cli
