// C++ back end, the header: a plain struct per schema struct (std::vector,
// std::optional, std::variant members), an enum naming the cases of each
// union, and visit_fields, which serves text output, text input and counting.
#include "gen_cpp.h"

namespace binschema::gen::cpp {

std::string CppGen::elem_type(const Field& f, const Struct* owner) const {
  if (!f.table.index_of.empty()) return "std::string";  // an index into a table: the model holds the string
  switch (f.type.kind) {
    case ValueType::Prim:
      if (!f.bits.empty()) return (owner ? owner->name + "::" : std::string()) + cpp_nested_type(f.name);
      return prim_cpp(f.type.prim);
    case ValueType::Chars:
    case ValueType::CString:
    case ValueType::String: return "std::string";
    case ValueType::Bytes: return "binschema::Bytes";
    case ValueType::Struct: return f.type.st->name;
    case ValueType::Union: return (owner ? owner->name + "::" : std::string()) + cpp_nested_type(f.name);
    case ValueType::PoolBlock:
    case ValueType::Dic: break;  // never in the model
  }
  return "?";
}

std::string CppGen::model_type(const Field& f, const Struct* owner) const {
  std::string e = elem_type(f, owner);
  if (boxed_.count(&f)) e = "binschema::Box<" + e + ">";  // a struct not complete here (find_boxes)
  if (f.array.on) {
    if (f.array.fixed_count) return "std::array<" + e + ", " + std::to_string(*f.array.fixed_count) + ">";
    return "std::vector<" + e + ">";
  }
  if (f.pointer.width && f.pointer.null == Field::Null::Allowed && f.type.kind == ValueType::Struct)
    return "std::optional<" + e + ">";
  return e;
}

bool CppGen::owns_memory(const Field& f) const {
  const std::string t = model_type(f);
  return t.starts_with("std::string") || t.starts_with("std::vector<") || t.starts_with("std::optional<") ||
         t.starts_with("std::array<std::string") || t == "binschema::Bytes" || f.type.kind == ValueType::Union;
}

std::string CppGen::default_init(const Field& f) const {
  if (f.role.default_text) {
    if (f.type.kind == ValueType::Chars || f.type.kind == ValueType::String)
      return " = " + cpp_string_literal(*f.role.default_text);
    return " = " + *f.role.default_text;
  }
  if (!f.array.on && f.type.kind == ValueType::Prim && f.bits.empty() && f.table.index_of.empty())
    return f.type.prim == Prim::Bool8 || f.type.prim == Prim::Bool32 ? " = false" : " = 0";
  if (f.array.on && f.array.fixed_count && f.type.kind == ValueType::Prim) return "{}";  // std::array is not zeroed otherwise
  return "";
}

// A member whose type holds a struct by value (std::optional, std::array, a
// union's std::variant, an inline struct): C++ needs that struct complete
// first. A std::vector does not.
const Struct* CppGen::held(const Field& f) const {
  if (!f.in_model() || f.type.kind != ValueType::Struct) return nullptr;
  if (f.array.on && !f.array.fixed_count) return nullptr;
  return f.type.st;
}

// Members that would hold a struct not complete yet (mutual recursion
// through pointers: Hash -> Entry -> Hash; a node that points to a node)
// hold a binschema::Box<T> instead. Each cycle of held structs is broken at
// one pointer or union case (validate.cpp refuses a struct that contains
// itself inline, so each cycle has one). Schemas without recursion get none.
void CppGen::find_boxes() {
  struct Edge {
    const Struct* from;
    const Field* f;
    bool boxable;  // a pointer or a union case
  };
  std::vector<Edge> edges;  // every held member
  for (const auto& st : s_.structs)
    for (const auto& f : st->fields) {
      if (held(*f)) edges.push_back({st.get(), f.get(), f->pointer.width != 0});
      if (f->in_model())
        for (const auto& c : f->variant.cases)
          if (held(*c.field)) edges.push_back({st.get(), c.field.get(), true});
    }
  // Finds one cycle of held members (depth-first) and boxes the last pointer
  // or case on it; again until there is none.
  for (bool found = true; found;) {
    found = false;
    std::map<const Struct*, int> state;  // 1 on the path, 2 done
    std::vector<const Edge*> path;
    std::function<bool(const Struct*)> visit = [&](const Struct* st) {
      state[st] = 1;
      for (const Edge& e : edges) {
        if (e.from != st || boxed_.count(e.f)) continue;
        const Struct* to = e.f->type.st;
        path.push_back(&e);
        if (state[to] == 1) {
          const Field* pick = e.f;  // an inline-only cycle is a schema error (validate.cpp)
          for (auto it = path.rbegin(); it != path.rend(); ++it) {
            if ((*it)->boxable) {
              pick = (*it)->f;
              break;
            }
            if ((*it)->from == to) break;  // the start of the cycle
          }
          boxed_.insert(pick);
          return true;
        }
        if (state[to] == 0 && visit(to)) return true;
        path.pop_back();
      }
      state[st] = 2;
      return false;
    };
    for (const auto& st : s_.structs)
      if (state[st.get()] == 0 && visit(st.get())) {
        found = true;
        break;
      }
  }
}

// Structs in an order where every by-value member type comes first: in the
// order of a depth-first walk over all member types where that works (every
// schema without recursion), else the first of that order whose held
// structs are all declared.
std::vector<const Struct*> CppGen::ordered() const {
  std::vector<const Struct*> pref;
  std::set<const Struct*> seen;
  std::function<void(const Struct*)> visit = [&](const Struct* st) {
    if (!seen.insert(st).second) return;
    auto dep = [&](const Field& f) {
      if (f.type.kind == ValueType::Struct) visit(f.type.st);
    };
    for (const auto& f : st->fields) {
      dep(*f);
      for (const auto& c : f->variant.cases) dep(*c.field);
    }
    pref.push_back(st);
  };
  for (const auto& st : s_.structs) visit(st.get());
  auto ready = [&](const Struct* st, const std::set<const Struct*>& done) {
    for (const auto& f : st->fields) {
      const Struct* h = boxed_.count(f.get()) ? nullptr : held(*f);
      if (h && h != st && !done.count(h)) return false;
      for (const auto& c : f->variant.cases)
        if (const Struct* hc = boxed_.count(c.field.get()) ? nullptr : held(*c.field); hc && !done.count(hc)) return false;
    }
    return true;
  };
  std::vector<const Struct*> out;
  std::set<const Struct*> done;
  while (out.size() < pref.size()) {
    // find_boxes left no cycle, so one is ready; were none, the first goes (C++ would say why).
    const Struct* next = nullptr;
    for (const Struct* st : pref)
      if (!done.count(st) && (!next || ready(st, done))) {
        next = st;
        if (ready(st, done)) break;
      }
    out.push_back(next);
    done.insert(next);
  }
  return out;
}

void CppGen::header() {
  CodeWriter& w = h_;
  w += "// Generated by binschema-gen from " + s_.file + ". Do not edit: edit the schema.";
  w += "// The models and the binary API; the text binding is in " + s_.format + "_text.h.";
  w += "#pragma once\n";
  w += "#include <array>\n#include <cstdint>\n#include <optional>\n#include <span>\n#include <string>";
  w += "#include <utility>\n#include <variant>\n#include <vector>\n";
  w += "#include \"binschema/model.h\"\n";
  w += "namespace " + cpp_namespace(s_.format) + " {\n";
  const std::vector<const Struct*> order = ordered();
  // Recursive schemas name structs before they are defined: declare them all first.
  bool forward = false;
  std::set<const Struct*> done;
  for (const Struct* st : order) {
    for (const auto& f : st->fields) {
      if (f->type.kind == ValueType::Struct && f->in_model() && !done.count(f->type.st) && f->type.st != st) forward = true;
      if (f->in_model())
        for (const auto& c : f->variant.cases)
          if (c.field->type.kind == ValueType::Struct && !done.count(c.field->type.st)) forward = true;
    }
    done.insert(st);
  }
  if (forward) {
    for (const Struct* st : order) w += "struct " + st->name + ";";
    w += "";
  }
  for (const Struct* st : order) struct_decl(*st);
  w += "// Bytes -> model. Throws binschema::DecodeError naming the offset and field path.";
  w += s_.root + " decode(std::span<const uint8_t> bytes);";
  w += "// The same, and in `layout` (binschema/layout.h) what the file's writer chose that the";
  w += "// model does not say (where blocks sit, bytes between them, ...; empty when laid out as encode() does).";
  w += s_.root + " decode(std::span<const uint8_t> bytes, binschema::Layout& layout);";
  w += "// Model -> bytes, laid out as the format's own writer does. Throws binschema::EncodeError.";
  w += "std::vector<uint8_t> encode(const " + s_.root + "& model);";
  w += "// The same bytes, written into `out`, a buffer the caller owns and reuses: it is";
  w += "// resized to the file, and keeps its allocation when that is large enough (a";
  w += "// tool encoding many files then touches no fresh memory). On an error `out` is";
  w += "// left empty, its allocation kept.";
  w += "void encode_into(const " + s_.root + "& model, std::vector<uint8_t>& out);";
  w += "// Model -> bytes laid out as `layout` says where it still fits (docs/schema-language.md, \"Layout\").";
  w += "std::vector<uint8_t> encode(const " + s_.root + "& model, const binschema::Layout& layout);";
  if (!s_.hooks.empty()) {
    w += "// Hooks: hand-written in schemas/" + s_.format + ".hooks.cpp; encode() runs each on";
    w += "// every instance of its struct in a copy of the model before writing.";
    w += "namespace hooks {";
    for (const auto& h : s_.hooks) {
      doc_comment(w, h.doc);
      w += "void " + h.name + "(" + h.on + "& x);";
    }
    w += "}  // namespace hooks\n";
  }
  if (s_.relocation_table) {
    w += "// Every 8-byte pointer slot of a file, found by reading it as the schema says";
    w += "// (to check a relocation table against). Throws binschema::DecodeError.";
    w += "std::vector<uint64_t> pointer_slots(std::span<const uint8_t> bytes);\n";
  }
  w += "// This format's entry for the CLI (binschema/format.h).";
  w += "const binschema::Format& format();\n";
  w += "}  // namespace " + cpp_namespace(s_.format);
}

void CppGen::text_header() {
  CodeWriter& w = t_;
  w += "// Generated by binschema-gen from " + s_.file + ". Do not edit: edit the schema.";
  w += "// The text binding of " + s_.format + ".h: each struct's fields for binschema/text.h, and";
  w += "// the models as YAML/JSON text.";
  w += "#pragma once\n";
  w += "#include <string>\n#include <string_view>\n#include <type_traits>\n";
  w += "#include \"" + s_.format + ".h\"\n#include \"binschema/text.h\"\n";
  w += "namespace " + cpp_namespace(s_.format) + " {\n";
  if (!s_.enums.empty()) {
    // enum: values by name, for the text (any other value is kept as a number).
    w += "namespace enums {";
    for (const auto& e : s_.enums) {
      std::string list;
      for (const auto& [v, n] : e.values) list += std::string(list.empty() ? "" : ", ") + "{" + std::to_string(v) + ", \"" + n + "\"}";
      w += "inline constexpr binschema::text::EnumValue " + e.name + "[] = {" + list + "};";
    }
    w += "}  // namespace enums\n";
  }
  for (const Struct* st : ordered()) visit_decl(*st);
  w += "// Model <-> YAML/JSON text (the text names its format in a `format:` key; a";
  w += "// non-empty layout is a last `layout:` entry, read back by from_text_with_layout).";
  w += "std::string to_text(const " + s_.root + "& model, binschema::TextKind kind, const binschema::Layout* layout = nullptr);";
  w += "// from_text reads a YAML or JSON text, or a document parsed by binschema::text::load.";
  w += s_.root + " from_text(std::string_view text);";
  w += s_.root + " from_text(const binschema::text::Doc& doc);";
  w += s_.root + " from_text_with_layout(std::string_view text, binschema::Layout& layout);";
  w += s_.root + " from_text_with_layout(const binschema::text::Doc& doc, binschema::Layout& layout);\n";
  w += "}  // namespace " + cpp_namespace(s_.format);
}

void CppGen::doc_comment(CodeWriter& w, const std::string& doc) {
  if (doc.empty()) return;
  std::string line;
  std::istringstream in(doc);
  while (std::getline(in, line)) w += "// " + line;
}

// A model type that holds a float not inside a struct of its own (float,
// std::vector<float>, ...): the == of the struct or union that has it
// compares it by its bits (binschema::same_bits), not as a number.
static bool holds_float(const Field& f) {
  return f.type.kind == ValueType::Prim && f.bits.empty() && prim_is_float(f.type.prim);
}

void CppGen::struct_decl(const Struct& st) {
  CodeWriter& w = h_;
  doc_comment(w, st.doc);
  w += "struct " + st.name + " {";
  w.indent();
  w += "static constexpr const char* type_name = \"" + st.name + "\";";
  for (const auto& f : st.fields) {
    if (f->type.kind == ValueType::Union && f->in_model()) {
      std::string nt = cpp_nested_type(f->name);
      std::string alts, names, cases;
      for (const auto& c : f->variant.cases) {
        alts += (alts.empty() ? "" : ", ") + model_type(*c.field);
        names += std::string(names.empty() ? "" : ", ") + "\"" + c.name + "\"";
        cases += (cases.empty() ? "" : ", ") + cpp_field(c.name);
      }
      w += "// One of the cases of '" + f->name + "', chosen by '" + f->variant.tag + "'.";
      w += "struct " + nt + " : std::variant<" + alts + "> {";
      w.indent();
      w += "using Base = std::variant<" + alts + ">;";
      w += "using Base::Base;\nusing Base::operator=;";
      w += "static constexpr std::array<const char*, " + std::to_string(f->variant.cases.size()) + "> case_names{" + names + "};";
      if (f->variant.bare) {
        // bare: true: how each case is spelt in text (binschema::text::CaseText).
        std::string texts;
        for (const auto& c : f->variant.cases) {
          static const std::pair<const char*, const char*> kinds[] = {{"int", "Int"},   {"float", "Float"}, {"string", "String"}, {"bool", "Bool"},
                                                                      {"null", "Null"}, {"list", "List"},   {"map", "Map"}};
          std::string plain = "Tagged", tag = "nullptr";
          for (const auto& [k, e] : kinds)
            if (c.as == k) plain = e;
          if (plain == "Tagged") tag = "\"" + c.as + "\"";
          texts += std::string(texts.empty() ? "" : ", ") + "{binschema::text::Plain::" + plain + ", " + tag + ", " + (c.unwrap ? "true" : "false") + "}";
        }
        w += "// bare: the text shows the value alone, tagged where its plain kind would pick another case.";
        w += "static constexpr std::array<binschema::text::CaseText, " + std::to_string(f->variant.cases.size()) + "> case_text{{" + texts + "}};";
      }
    // Names for the cases, so that code picks a case by name, not by its
    // position in the schema.
    w.line("// The cases by name, in the order of the alternatives: switch on kind(), read one\n"
           "// with get<Case::NAME>(), make one with emplace<Case::NAME>(...).\n"
           "enum class Case : uint8_t { {{CASES}} };\n"
           "Case kind() const { return static_cast<Case>(index()); }\n"
           "template <Case C> auto& get() { return std::get<static_cast<size_t>(C)>(static_cast<Base&>(*this)); }\n"
           "template <Case C> const auto& get() const { return std::get<static_cast<size_t>(C)>(static_cast<const Base&>(*this)); }\n"
           // A using-declaration of Base::emplace would be hidden by the Case
           // overload under clang (same parameter list), so both are spelt out.
           "template <size_t I, class... A> auto& emplace(A&&... a) { return Base::template emplace<I>(std::forward<A>(a)...); }\n"
           "template <Case C, class... A> auto& emplace(A&&... a) { return Base::template emplace<static_cast<size_t>(C)>(std::forward<A>(a)...); }",
           {{"CASES", cases}});
      bool floats = false;
      for (const auto& c : f->variant.cases) floats = floats || holds_float(*c.field);
      if (floats)
        w += "bool operator==(const " + nt + "& o) const { return binschema::same_bits<Base>(*this, o); }  // floats by their bits";
      else
        w += "bool operator==(const " + nt + "&) const = default;";
      w.dedent();
      w += "};";
    }
  }
  for (const auto& f : st.fields) {
    if (f->bits.empty() || !f->in_model()) continue;
    std::string nt = cpp_nested_type(f->name);
    w += "// The bits of '" + f->name + "', from the least significant up.";
    w += "struct " + nt + " {";
    w.indent();
    w += "static constexpr const char* type_name = \"" + st.name + "." + nt + "\";";
    w += "static constexpr bool bit_word = true;  // one integer of " + st.name + ", not a struct (binschema info does not count it)";
    for (const auto& b : f->bits) {
      doc_comment(w, b.doc);
      if (!b.pool.empty()) w += "std::string " + cpp_field(b.name) + ";";
      else w += std::string(b.is_bool ? "bool" : bits_cpp(b.width)) + " " + cpp_field(b.name) + " = " +
                (b.default_text ? *b.default_text : b.is_bool ? "false" : "0") + ";";
    }
    w += "bool operator==(const " + nt + "&) const = default;";
    w.dedent();
    w += "};";
  }
  // Members that own memory (strings, vectors, optionals, unions: 8-byte
  // aligned) come first, then the numbers and small structs, each group in
  // the order of the file: no padding between a u16 and a string (EVNT's
  // event base: 72 -> 64 bytes). Text and visit_fields keep the file's order.
  for (const bool owning : {true, false}) {
    for (const auto& f : st.fields) {
      if (!f->in_model() || owns_memory(*f) != owning) continue;
      doc_comment(w, f->doc);
      w += model_type(*f) + " " + cpp_field(f->name) + default_init(*f) + ";";
    }
  }
  std::vector<std::string> same;  // each member's comparison, when one holds a float
  bool floats = false;
  for (const auto& f : st.fields) {
    if (!f->in_model()) continue;
    floats = floats || holds_float(*f);
    const std::string m = cpp_field(f->name);
    same.push_back("binschema::same_bits(" + m + ", o." + m + ")");
  }
  if (floats) {
    w += "bool operator==(const " + st.name + "& o) const {  // floats by their bits (binschema::same_bits)";
    w.indent();
    for (size_t i = 0; i < same.size(); ++i)
      w += (i ? "       " : "return ") + same[i] + (i + 1 < same.size() ? " &&" : ";");
    w.dedent();
    w += "}";
  } else {
    w += "bool operator==(const " + st.name + "&) const = default;";
  }
  w.dedent();
  w += "};\n";
}

const char* CppGen::bits_cpp(unsigned width) {
  return width <= 8 ? "uint8_t" : width <= 16 ? "uint16_t" : width <= 32 ? "uint32_t" : "uint64_t";
}

void CppGen::visit_decl(const Struct& st) {
  CodeWriter& w = t_;
  for (const auto& f : st.fields) {
    if (f->bits.empty() || !f->in_model()) continue;
    std::string nt = st.name + "::" + cpp_nested_type(f->name);
    w += "template <class V, class Self>";
    w += "  requires std::is_same_v<std::remove_const_t<Self>, " + nt + ">";
    w += "void visit_fields(V& v, Self& x) {";
    for (const auto& b : f->bits) {
      if (b.default_text) w += "  v.field_default(\"" + b.name + "\", x." + cpp_field(b.name) + ", " + *b.default_text + ");";
      else w += "  v.field(\"" + b.name + "\", x." + cpp_field(b.name) + ");";
    }
    w += "}\n";
  }
  // How the fields with names (enum:, format: bool, ref:, hash_of:) are spelt in text.
  if (st.unwrap) {
    w += "// unwrap: true: shown in text as the value of its one field.";
    w += "inline constexpr bool unwrapped_in_text(const " + st.name + "&) { return true; }";
  }
  for (const auto& f : st.fields) {
    if (!f->in_model() || (!f->spelled() && f->spell.map_key.empty())) continue;
    auto str = [](const std::string& t) { return t.empty() ? std::string("nullptr") : "\"" + t + "\""; };
    std::string flags = f->spell.hex && f->spell.as_bool ? "binschema::text::kHex | binschema::text::kBool"
                        : f->spell.hex             ? "binschema::text::kHex"
                        : f->spell.as_bool         ? "binschema::text::kBool"
                                             : "binschema::text::kNone";
    std::string en = f->spell.enum_name.empty() ? "nullptr, 0" : "enums::" + f->spell.enum_name + ", std::size(enums::" + f->spell.enum_name + ")";
    w += "inline constexpr binschema::text::Spell text_" + st.name + "_" + f->name + "{" + flags + ", " + en + ", " +
         str(f->spell.enum_name) + ", " + str(f->spell.ref) + ", " + str(f->spell.ref_via) + ", " + str(f->spell.hash_of) +
         (f->spell.map_key.empty() ? std::string() : ", " + str(f->spell.map_key)) + "};";
  }
  w += "template <class V, class Self>";
  w += "  requires std::is_same_v<std::remove_const_t<Self>, " + st.name + ">";
  w += "void visit_fields([[maybe_unused]] V& v, [[maybe_unused]] Self& x) {";
  w.indent();
  for (const auto& t : st.name_targets) {
    // An array that references point into: its elements' keys, before the fields.
    std::string subs;
    for (const auto& sub : t.subs) subs += std::string(subs.empty() ? "" : ", ") + "\"" + sub + "\"";
    std::string also;
    for (const auto& a : t.also) also += std::string(also.empty() ? "" : ", ") + "\"" + a + "\"";
    w += "binschema::text::names(v, \"" + t.array + "\", x." + cpp_field(t.array) + ", \"" + t.key + "\"" +
         (subs.empty() && also.empty() ? std::string() : ", {" + subs + "}") + (also.empty() ? std::string() : ", {" + also + "}") + ");";
  }
  for (const auto& f : st.fields) {
    if (!f->in_model()) continue;
    std::string flags = f->spelled() || !f->spell.map_key.empty() ? ", text_" + st.name + "_" + f->name : f->spell.hex ? ", binschema::text::kHexSpell" : "";
    const std::string cond = f->cond ? text_cond(st, *f->cond) : std::string();
    if (!cond.empty()) {
      // Left out of the text while the condition is false.
      w += "binschema::text::field_if(v, \"" + f->name + "\", x." + cpp_field(f->name) + ", " + cond + ", " +
           cpp_string_literal(expr_text(*f->cond)) + flags + ");";
      continue;
    }
    bool bits_default = !f->bits.empty() && std::all_of(f->bits.begin(), f->bits.end(), [](const Field::Bits& b) { return b.default_text.has_value(); });
    if (bits_default) {
      // Every bit field has a default: the word is left out while it holds them all.
      w += "v.field_default(\"" + f->name + "\", x." + cpp_field(f->name) + ", " + st.name + "::" + cpp_nested_type(f->name) + "{}" + flags + ");";
    } else if (f->role.default_text) {
      std::string def = f->type.kind == ValueType::Chars ? cpp_string_literal(*f->role.default_text) : *f->role.default_text;
      w += "v.field_default(\"" + f->name + "\", x." + cpp_field(f->name) + ", " + def + flags + ");";
    } else {
      w += "v.field(\"" + f->name + "\", x." + cpp_field(f->name) + flags + ");";
    }
  }
  w.dedent();
  w += "}\n";
}

// Whether visit_fields can evaluate an if: from the model: numbers of the
// struct (counts, consts, derived values known before layout, bits) and
// context: numbers of the root.
bool CppGen::text_evaluable(const Struct& st, const Expr& e) const {
  switch (e.kind) {
    case Expr::Int: return true;
    case Expr::Ident: {
      if (e.name.find('.') != std::string::npos) return true;  // a bit field
      if (const Field* f = st.field(e.name)) {
        if (!f->resolved.count_for.empty() || f->role.const_int) return true;
        if (f->role.derive) return !is_late(*f->role.derive) && text_evaluable(st, *f->role.derive);
        return f->in_model() && f->type.kind == ValueType::Prim && f->bits.empty() && !f->array.on;
      }
      const Field* g = s_.find(s_.root)->field(e.name);  // context:
      if (!g) return false;
      if (g->role.const_int) return true;
      return g->in_model() && g->type.kind == ValueType::Prim && g->bits.empty() && !g->array.on && !g->pointer.width;
    }
    case Expr::Unary:
    case Expr::Binary:
    case Expr::Ternary:
      for (const auto& a : e.args)
        if (!text_evaluable(st, a)) return false;
      return true;
    case Expr::Call: return e.fn == Fn::Has || e.fn == Fn::Count;
  }
  return false;
}

std::string CppGen::text_cond(const Struct& st, const Expr& e) {
  if (!text_evaluable(st, e)) return "";
  // The context: values and derived values it uses, as locals.
  std::vector<std::string> ctx, derived;
  std::function<void(const Expr&)> walk = [&](const Expr& x) {
    if (x.kind == Expr::Ident && x.name.find('.') == std::string::npos) {
      if (const Field* f = st.field(x.name)) {
        if (f->role.derive && f->resolved.count_for.empty() && !f->role.const_int &&
            std::find(derived.begin(), derived.end(), f->name) == derived.end()) {
          walk(*f->role.derive);
          derived.push_back(f->name);
        }
      } else if (std::find(ctx.begin(), ctx.end(), x.name) == ctx.end()) {
        ctx.push_back(x.name);
      }
    }
    for (const auto& a : x.args) walk(a);
  };
  walk(e);
  context_prefix_ = "g_";
  std::string out = "[&] { ";
  for (const auto& g : ctx) {
    const Field* f = s_.find(s_.root)->field(g);
    out += "const uint64_t g_" + g + " = " +
           (f->role.const_int ? std::to_string(*f->role.const_int) + "u" : "binschema::text::context(v, \"" + g + "\")") + "; ";
  }
  for (const auto& d : derived) out += "const uint64_t d_" + d + " = uint64_t(" + write_expr(st, *st.field(d)->role.derive) + "); ";
  out += "return bool(" + write_expr(st, e) + "); }";
  context_prefix_ = "c.g_";
  return out;
}

}  // namespace binschema::gen::cpp
