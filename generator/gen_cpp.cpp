// C++ back end: generate_cpp() and what every part of it uses (see gen_cpp.h).
#include "gen_cpp.h"

namespace binschema::gen::cpp {

CppOutput CppGen::run() {
  header();
  source();
  return {h_.str(), c_.str()};
}

// Fields whose place in the struct is only known while writing it: put_
// notes it in c.at for place_.
bool CppGen::at_var(const Struct& st, const Field& f) const {
  if (placed_by_place(f) && (!f.fixed_offset || f.cond)) return true;
  if (f.ptr || f.elem_ptr || f.type.kind != ValueType::Struct || !f.type.st->has_children) return false;
  if (!f.array) return !f.fixed_offset || f.cond;  // an inline struct that points elsewhere
  return (!f.fixed_offset || f.cond) && st.name != s_.root;
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
  if (f.fixed_offset) return "s + " + hexs(f.offset);
  return "c.at_" + st.name + "_" + f.name;  // the root's inline arrays
}

// Offset expression of a field inside struct starting at `s` (fixed) or at cursor `o`.
std::string CppGen::at(const Field& f) { return f.fixed_offset ? "s + " + hexs(f.offset) : "o"; }

std::string CppGen::load_type(const Field& f) const {
  return f.type.prim == Prim::Bool8 ? "uint8_t" : f.type.prim == Prim::Bool32 ? "uint32_t" : prim_cpp(f.type.prim);
}

std::string CppGen::load(const Field& f, const std::string& where) const {
  return "r.get<" + load_type(f) + ">(" + where + ")";
}

std::string CppGen::raw_uint(int width) const { return width == 4 ? "uint32_t" : width == 8 ? "uint64_t" : width == 2 ? "uint16_t" : "uint8_t"; }

}  // namespace binschema::gen::cpp

namespace binschema::gen {

CppOutput generate_cpp(const Schema& s) { return cpp::CppGen(s).run(); }

}  // namespace binschema::gen
