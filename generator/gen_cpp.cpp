// C++ back end: generate_cpp() and what every part of it uses (see gen_cpp.h).
#include <algorithm>

#include "gen_cpp.h"

#include <cstring>
#include <string_view>

namespace binschema::gen::cpp {

namespace {

// A token of generated C++: where it starts and how long it is. String and
// character literals are one token each; comments are none.
struct Token {
  size_t at, len;
};

std::vector<Token> tokens(const std::string& code) {
  static const char* const two[] = {"::", "->", "==", "!=", "<=", ">=", "+=", "-=", "*=", "/=", "%=", "|=", "&=", "^=", "&&", "||", "++", "--"};
  std::vector<Token> t;
  const size_t n = code.size();
  const auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (size_t i = 0; i < n;) {
    const char c = code[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (code.compare(i, 2, "//") == 0) {
      i = code.find('\n', i);
      if (i == std::string::npos) i = n;
    } else if (code.compare(i, 2, "/*") == 0) {
      i = code.find("*/", i + 2);
      i = i == std::string::npos ? n : i + 2;
    } else if (c == '"' || c == '\'') {
      size_t j = i + 1;
      while (j < n && code[j] != c) j += code[j] == '\\' ? 2 : 1;
      t.push_back({i, std::min(j + 1, n) - i});
      i = j + 1;
    } else if (word(c)) {
      size_t j = i;
      while (j < n && word(code[j])) ++j;
      t.push_back({i, j - i});
      i = j;
    } else {
      size_t len = 1;
      for (const char* op : two)
        if (code.compare(i, 2, op) == 0) len = 2;
      t.push_back({i, len});
      i += len;
    }
  }
  return t;
}

// Takes [[maybe_unused]] off every variable and parameter of generated code
// that is read within its scope, so that it stays only where the name can
// really go unused (a struct with no fields to read, a value no check needs).
// A parameter's scope is its function's (or lambda's) body, a local's the
// rest of its block; a name that is only assigned counts as unused (GCC's
// -Wunused-but-set-variable).
std::string tidy_maybe_unused(const std::string& code) {
  const std::vector<Token> t = tokens(code);
  const auto is = [&](size_t k, const char* s) { return k < t.size() && code.compare(t[k].at, t[k].len, s) == 0 && t[k].len == std::strlen(s); };
  // The token closing each bracket that opens at k.
  std::vector<size_t> close(t.size(), t.size());
  std::vector<size_t> open;
  for (size_t k = 0; k < t.size(); ++k) {
    if (is(k, "(") || is(k, "{") || is(k, "[")) open.push_back(k);
    else if ((is(k, ")") || is(k, "}") || is(k, "]")) && !open.empty()) {
      close[open.back()] = k;
      open.pop_back();
    }
  }
  std::vector<std::pair<size_t, size_t>> cut;  // [from, to) of code to remove
  std::vector<size_t> inside;                  // brackets open at token k
  for (size_t k = 0; k < t.size(); ++k) {
    if (is(k, ")") || is(k, "}") || is(k, "]")) {
      if (!inside.empty()) inside.pop_back();
      continue;
    }
    const bool attr = is(k, "[") && is(k + 1, "[") && is(k + 2, "maybe_unused") && is(k + 3, "]") && is(k + 4, "]");
    if (!attr) {
      if (is(k, "(") || is(k, "{") || is(k, "[")) inside.push_back(k);
      continue;
    }
    // The declared name: the last identifier before = , ) ; at angle depth 0.
    size_t name = 0, e = k + 5;
    for (int angle = 0; e < t.size(); ++e) {
      if (is(e, "<")) ++angle;
      else if (is(e, ">")) --angle;
      else if (angle == 0 && (is(e, "=") || is(e, ",") || is(e, ")") || is(e, ";") || is(e, "{"))) break;
      else if (std::isalpha(static_cast<unsigned char>(code[t[e].at])) || code[t[e].at] == '_') name = e;
    }
    if (!name || inside.empty()) continue;
    // Its scope: a function's or lambda's body, or the rest of the block.
    size_t from = e, to = 0;
    const size_t b = inside.back();
    if (is(b, "{")) {
      to = close[b];
    } else if (is(b, "(") && b > 0 && !is(b - 1, "if") && !is(b - 1, "for") && !is(b - 1, "while") && !is(b - 1, "switch")) {
      size_t j = close[b];
      while (j < t.size() && !is(j, "{") && !is(j, ";")) ++j;
      if (j < t.size() && is(j, "{")) from = j, to = close[j];
    }
    if (!to) continue;
    const std::string_view id(code.data() + t[name].at, t[name].len);
    bool read = false;
    for (size_t j = from; j < to && !read; ++j) {
      if (std::string_view(code.data() + t[j].at, t[j].len) != id) continue;
      if (is(j - 1, ".") || is(j - 1, "->") || is(j - 1, "::")) continue;  // a member of the same name
      const bool assigned = is(j + 1, "=") || is(j + 1, "+=") || is(j + 1, "-=") || is(j + 1, "|=") || is(j + 1, "&=");
      read = !assigned;
    }
    if (read) {
      size_t end = t[k + 4].at + 2;
      while (end < code.size() && code[end] == ' ') ++end;
      cut.push_back({t[k].at, end});
    }
    k += 4;
  }
  std::string r;
  size_t at = 0;
  for (const auto& [from, to] : cut) {
    r.append(code, at, from - at);
    at = to;
  }
  r.append(code, at, std::string::npos);
  return r;
}

}  // namespace

CppOutput CppGen::run() {
  find_boxes();
  header();
  text_header();
  source();
  return {tidy_maybe_unused(h_.str()), tidy_maybe_unused(c_.str()), tidy_maybe_unused(t_.str())};
}

// Fields whose place in the struct is only known while writing it: put_
// notes it in c.at for place_.
bool CppGen::at_var(const Struct& st, const Field& f) const {
  if (f.type.kind == ValueType::Union && f.array.on)  // union[]: where its elements start
    return std::any_of(f.variant.cases.begin(), f.variant.cases.end(), [](const Case& c) { return c.kind == CaseKind::StructPointer; });
  if (placed_by_place(f) && (!f.resolved.fixed_offset || f.cond)) return true;
  if (f.pointer.width || f.pointer.elem_width || f.type.kind != ValueType::Struct || !f.type.st->has_children) return false;
  if (!f.array.on) return !f.resolved.fixed_offset || f.cond;  // an inline struct that points elsewhere
  return (!f.resolved.fixed_offset || f.cond) && st.name != s_.root;
}

// Tells apart fields that share an address (a struct and its first member).
std::string CppGen::at_id(const Struct& st, const Field& f) const {
  uint32_t id = 0;
  for (const auto& s : s_.structs)
    for (const auto& g : s->fields) {
      ++id;
      if (s.get() == &st && g.get() == &f) return std::to_string(id);
    }
  return "0";
}

std::string CppGen::at_key(const Field& f) const { return f.in_model() ? "&x." + cpp_field(f.name) : "&x"; }

bool CppGen::uses_at() const {
  for (const auto& st : s_.structs)
    for (const auto& f : st->fields)
      if (at_var(*st, *f)) return true;
  return false;
}

// Where field f starts, in place_ (the struct is at s).
std::string CppGen::field_at(const Struct& st, const Field& f) const {
  if (at_var(st, f)) return "c.at.get(" + at_key(f) + ", " + at_id(st, f) + ")";
  if (f.resolved.fixed_offset) return plus("s", f.resolved.offset);
  return "c.at_" + st.name + "_" + f.name;  // the root's inline arrays
}

// Offset expression of a field inside struct starting at `s` (fixed) or at cursor `o`.
std::string CppGen::at(const Field& f) { return f.resolved.fixed_offset ? plus("s", f.resolved.offset) : "o"; }

std::string CppGen::load_type(const Field& f) const {
  return f.type.prim == Prim::Bool8 ? "uint8_t" : f.type.prim == Prim::Bool32 ? "uint32_t" : prim_stored(f.type.prim);
}

std::string CppGen::load(const Field& f, const std::string& where) const {
  return rget() + load_type(f) + ">(" + where + ")";
}

// One element of an array of numbers, read at `where` into `dst` (a
// statement). A bool is stored as 0 / 1 (or 0 / `true:`): anything else is
// refused, so that writing it back gives the same bytes.
std::string CppGen::load_elem(const Field& f, const std::string& where, const std::string& dst) const {
  if (f.type.prim != Prim::Bool8 && f.type.prim != Prim::Bool32) return dst + " = " + load(f, where) + ";";
  const std::string tv = f.true_value ? hexs(*f.true_value) : "1";
  return "{ const auto b = " + load(f, where) + "; if (b != 0 && b != " + tv + "u) throw DecodeError(" + where +
         ", \"value \" + hex(b) + \" is not a bool (0 or " + tv + ")\"); " + dst + " = b != 0; }";
}

std::string check24(Prim p, const std::string& v, const std::string& what) {
  const std::string refuse = " throw binschema::EncodeError(std::string(" + what + ") + \": value \" + std::to_string(" + v +
                             ") + \" does not fit in 24 bits\");";
  if (p == Prim::U24) return "if (" + v + " > 0xFFFFFFu)" + refuse;
  if (p == Prim::S24) return "if (" + v + " < -0x800000 || " + v + " > 0x7FFFFF)" + refuse;
  return {};
}

// One element of an array of numbers, `v`, written at `where`: a bool as 0 / 1 (or `true:`) in its width;
// a u24 or s24 checked first, refused naming `what`.
std::string CppGen::store_elem(const Field& f, const std::string& where, const std::string& v, const std::string& what) const {
  if (const std::string c = check24(f.type.prim, v, what); !c.empty())
    return "{ " + c + " " + wput() + prim_stored(f.type.prim) + ">(" + where + ", " + v + "); }";
  if (f.type.prim != Prim::Bool8 && f.type.prim != Prim::Bool32) return wput() + prim_stored(f.type.prim) + ">(" + where + ", " + v + ");";
  return wput() + load_type(f) + ">(" + where + ", " + v + " ? " + (f.true_value ? hexs(*f.true_value) : "1") + "u : 0u);";
}

std::string CppGen::raw_uint(int width) const {
  return width == 4 ? "uint32_t" : width == 8 ? "uint64_t" : width == 3 ? "binschema::uint24" : width == 2 ? "uint16_t" : "uint8_t";
}

}  // namespace binschema::gen::cpp

namespace binschema::gen {

CppOutput generate_cpp(const Schema& s) { return cpp::CppGen(s).run(); }

}  // namespace binschema::gen
