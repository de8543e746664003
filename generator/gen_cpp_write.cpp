// C++ back end, the writer: put_T writes a struct's inline bytes (put_field,
// a switch on the field's shape), place_T places what it points to in the
// order of its layout, patching each pointer slot as its target lands.
#include <functional>
#include "gen_cpp.h"

namespace binschema::gen::cpp {

// Each (block pool, struct type) that some field puts into the pool.
std::vector<std::pair<const Pool*, const Struct*>> CppGen::block_uses() const {
  std::vector<std::pair<const Pool*, const Struct*>> out;
  auto note = [&](const Field& f) {
    if (!s_.in_block_pool(f)) return;
    std::pair<const Pool*, const Struct*> u{s_.pool(f.pool), f.type.st};
    if (std::find(out.begin(), out.end(), u) == out.end()) out.push_back(u);
  };
  for (const auto& st : s_.structs)
    for (const auto& f : st->fields) {
      note(*f);
      for (const auto& c : f->variant.cases) note(*c.field);
    }
  return out;
}

// A string of a file-wide shared string pool that the field (or bit field) holds.
bool CppGen::file_pool(const std::string& pool) const {
  const Pool* p = pool.empty() ? nullptr : s_.pool(pool);
  return p && p->kind != Pool::Kind::Block && p->scope.empty() && p->shared;
}

// The structs whose strings are entered into their pools when a block
// holding them is referenced (see intern_fn), so that a pool in order of
// first use meets them where the block is referenced, not where it lands.
std::vector<const Struct*> CppGen::interned() const {
  std::vector<const Struct*> out;
  std::function<void(const Struct*)> visit = [&](const Struct* st) {
    if (std::find(out.begin(), out.end(), st) != out.end()) return;
    out.push_back(st);
    for (const auto& f : st->fields) {
      if (f->type.kind == ValueType::Struct && !s_.in_block_pool(*f)) visit(f->type.st);
      for (const auto& c : f->variant.cases)
        if (c.field->type.kind == ValueType::Struct && !s_.in_block_pool(*c.field)) visit(c.field->type.st);
    }
  };
  for (const auto& u : block_uses()) visit(u.second);
  return out;
}

void CppGen::intern_fn(const Struct& st) {
  CodeWriter& w = c_;
  w += fn_prefix() + "void intern_" + st.name + "([[maybe_unused]] WCtx& c, [[maybe_unused]] const " + st.name + "& x) {";
  w.indent();
  for (const auto& f : st.fields) {
    if (!f->in_model() || f->is_virtual) continue;
    std::string x = "x." + cpp_field(f->name);
    for (const auto& b : f->bits)
      if (file_pool(b.pool)) w += "c.pool_" + b.pool + ".keep(" + x + "." + cpp_field(b.name) + ");";
    if (f->type.kind == ValueType::String && file_pool(f->pool)) {
      if (f->array.on) w += "for (const auto& e : " + x + ") c.pool_" + f->pool + ".keep(e);";
      else w += "c.pool_" + f->pool + ".keep(" + x + ");";
    } else if (f->type.kind == ValueType::Struct && !s_.in_block_pool(*f)) {
      const std::string fn = "intern_" + f->type.st->name;
      if (f->array.on) w += "for (const auto& e : " + x + ") " + fn + "(c, e);";
      else if (f->pointer.width && f->pointer.null == Field::Null::Allowed) w += "if (" + x + ") " + fn + "(c, *" + x + ");";
      else w += fn + "(c, " + x + ");";
    } else if (f->type.kind == ValueType::Union) {
      w += "switch (" + x + ".index()) {";
      for (size_t i = 0; i < f->variant.cases.size(); ++i) {
        const Field& p = *f->variant.cases[i].field;
        std::string v = "std::get<" + std::to_string(i) + ">(" + x + ")";
        if (p.type.kind == ValueType::String && file_pool(p.pool) && !p.array.on)
          w += "  case " + std::to_string(i) + ": c.pool_" + p.pool + ".keep(" + v + "); break;";
        else if (p.type.kind == ValueType::Struct && !p.array.on && !s_.in_block_pool(p))
          w += "  case " + std::to_string(i) + ": intern_" + p.type.st->name + "(c, " + v + "); break;";
      }
      w += "  default: break;";
      w += "}";
    }
  }
  w.dedent();
  w += "}\n";
}

// block_P_T(c, v): the index of v's block in pool P, adding it unless an
// equal one is there (shared pools); the block is written when P is placed.
void CppGen::block_fn(const Pool& p, const Struct& st) {
  CodeWriter& w = c_;
  w += fn_prefix() + "uint32_t block_" + p.name + "_" + st.name + "(WCtx& c, const " + st.name + "& v) {";
  w.indent();
  if (p.shared) {
    w += "const size_t h = binschema::text::hash_value(v);";
    w += "for (auto [it, end] = c.index_" + p.name + ".equal_range(h); it != end; ++it)";
    w += "  if (*c.blocks_" + p.name + "[it->second] == v) return it->second;";
    w += "c.index_" + p.name + ".emplace(h, static_cast<uint32_t>(c.blocks_" + p.name + ".size()));";
    w += "c.blocks_" + p.name + ".push_back(&v);";
  }
  w += "intern_" + st.name + "(c, v);";
  w += "return c.pool_" + p.name + ".add([&c, &v]() -> uint64_t {";
  w += "  c.w.align(" + std::to_string(st.align) + ");";
  w += "  const uint64_t t = c.w.pos();";
  if (st.fixed_size) w += "  put_" + st.name + "(c, c.w.reserve(" + hexs(st.size) + "), v);";
  else w += "  put_" + st.name + "(c, v);";
  if (st.has_children) w += "  place_" + st.name + "(c, v, t);";
  w += "  return t;";
  w += "});";
  w.dedent();
  w += "}\n";
}

// A reference to a string of a pool that is not scoped: absolute (a
// pointer slot) or relative to the pool (base:, not a pointer).
std::string CppGen::string_ref(const std::string& pool, const std::string& v, const std::string& slot, int width) const {
  const Pool* p = s_.pool(pool);
  return "c.pool_" + pool + ".ref(" + v + ", " + slot + ", " + std::to_string(width) + (p->base.empty() ? ", false, true);" : ", true, false);");
}

// A pointer into a block pool: the block's index, then the slot to fill.
std::string CppGen::block_ref(const Field& f, const std::string& v, const std::string& slot, uint64_t tag, unsigned shift) const {
  std::string r = "c.pool_" + f.pool + ".ref(block_" + f.pool + "_" + f.type.st->name + "(c, " + v + "), " + slot + ", " +
                   std::to_string(f.pointer.width);
  if (shift) r += ", " + std::to_string(tag) + "u, " + std::to_string(shift);
  return r + ");";
}

// A field whose target place_ puts down (not a pooled string or block).
bool CppGen::placed_by_place(const Field& f) const {
  return (f.pointer.width || f.pointer.elem_width) && !f.role.derive && !s_.in_block_pool(f) &&
         (f.pool.empty() || f.array.on || f.type.kind == ValueType::Dic);
}

bool CppGen::plain_struct(const Struct& st) const {
  if (!st.fixed_size || st.has_children || st.has_self) return false;
  for (const auto& p : s_.pools)
    if (p.scope == st.name) return false;
  for (const auto& f : st.fields) {
    if (!f->region.empty() || f->is_virtual) return false;
    if (f->role.derive && (is_late(*f->role.derive) || f->role.derive_pointer)) return false;
    switch (f->kind) {
      case FieldKind::Scalar:
      case FieldKind::Chars: break;
      case FieldKind::BitWord:
        for (const auto& b : f->bits)
          if (!b.pool.empty()) return false;
        break;
      case FieldKind::InlineStruct:
        if (!plain_struct(*f->type.st)) return false;
        break;
      case FieldKind::InlineArray:
        if (f->type.kind == ValueType::Struct && !plain_struct(*f->type.st)) return false;
        break;
      case FieldKind::Union:
        for (const auto& c : f->variant.cases)
          if (c.kind != CaseKind::Number && c.kind != CaseKind::Numbers && !(c.kind == CaseKind::Struct && plain_struct(*c.field->type.st)))
            return false;
        break;
      default: return false;
    }
  }
  return true;
}

// C++ for an expression on the write side.
std::string CppGen::write_expr(const Struct& st, const Expr& e, const std::string& obj) const {
  const std::string x = obj;
  switch (e.kind) {
    case Expr::Int: return std::to_string(e.value) + "ull";
    case Expr::Ident: {
      size_t dot = e.name.find('.');
      if (dot != std::string::npos)  // a bit field
        return "uint64_t(" + x + "." + cpp_field(e.name.substr(0, dot)) + "." + cpp_field(e.name.substr(dot + 1)) + ")";
      const Field* f = st.field(e.name);
      if (!f) return context_prefix_ + e.name;  // context:
      if (!f->resolved.count_for.empty()) return "uint64_t(" + x + "." + cpp_field(f->resolved.count_for) + ".size())";
      if (f->role.const_int) return std::to_string(*f->role.const_int) + "ull";
      if (f->role.derive) return "d_" + f->name;
      return x + "." + cpp_field(f->name);
    }
    case Expr::Unary: return "(" + e.name + write_expr(st, e.args[0], obj) + ")";
    case Expr::Binary: return "(" + write_expr(st, e.args[0], obj) + " " + e.name + " " + write_expr(st, e.args[1], obj) + ")";
    case Expr::Ternary:
      return "(" + write_expr(st, e.args[0], obj) + " ? " + write_expr(st, e.args[1], obj) + " : " + write_expr(st, e.args[2], obj) + ")";
    case Expr::Call:
      if (e.fn == Fn::Count) {
        std::string path;  // a.b: through single struct fields
        const Struct* cur = &st;
        const Field* last = nullptr;
        for (size_t from = 0;;) {
          size_t dot = e.args[0].name.find('.', from);
          const std::string step = e.args[0].name.substr(from, dot == std::string::npos ? std::string::npos : dot - from);
          path += "." + cpp_field(step);
          last = cur ? cur->field(step) : nullptr;
          if (dot == std::string::npos) break;
          cur = last && last->type.kind == ValueType::Struct ? last->type.st : nullptr;
          from = dot + 1;
        }
        // The count of a bytes field is its length.
        if (last && !last->array.on && last->type.kind == ValueType::Bytes) path += ".data";
        return "uint64_t(" + x + path + ".size())";
      }
      if (e.fn == Fn::Max) {
        const Field* arr = e.args[0].kind == Expr::Ident ? st.field(e.args[0].name) : nullptr;
        if (arr && arr->array.on) {
          // The largest value of an expression over the elements (0 for none).
          std::string inner = write_expr(*arr->type.st, e.args[1], "e");
          return "[&]() -> uint64_t { uint64_t t = 0; for (const auto& e : " + x + "." + cpp_field(arr->name) +
                 ") t = std::max<uint64_t>(t, uint64_t(" + inner + ")); return t; }()";
        }
        return "std::max<uint64_t>(" + write_expr(st, e.args[0], obj) + ", " + write_expr(st, e.args[1], obj) + ")";
      }
      if (e.fn == Fn::Sum) {
        // The sum of an expression over the elements of an array.
        const Field* arr = st.field(e.args[0].name);
        std::string inner = write_expr(*arr->type.st, e.args[1], "e");
        return "[&]() -> uint64_t { uint64_t t = 0; for (const auto& e : " + x + "." + cpp_field(arr->name) +
               ") t += uint64_t(" + inner + "); return t; }()";
      }
      if (e.fn == Fn::Has) return "uint64_t(" + x + "." + cpp_field(e.args[0].name) + ".has_value())";
      if (e.fn == Fn::Items) {
        // How many values the active case of a union holds.
        const Field* u = st.field(e.args[0].name);
        std::string r = "[&]() -> uint64_t { switch (" + x + "." + cpp_field(u->name) + ".index()) {";
        for (size_t i = 0; i < u->variant.cases.size(); ++i) {
          const Field& p = *u->variant.cases[i].field;
          std::string n = p.array.on && !p.array.fixed_count ? "std::get<" + std::to_string(i) + ">(" + x + "." + cpp_field(u->name) + ").size()"
                                                    : std::to_string(p.items.value_or(p.array.fixed_count.value_or(1)));
          r += " case " + std::to_string(i) + ": return " + n + ";";
        }
        return r + " } return 0; }()";
      }
      if (e.fn == Fn::Mulhash) {
        const Expr& a = e.args[0];
        size_t dot = a.name.find('.');
        std::string arg = x + "." + cpp_field(a.name.substr(0, dot)) + (dot == std::string::npos ? "" : "." + cpp_field(a.name.substr(dot + 1)));
        return "binschema::mulhash32(" + arg + ", static_cast<uint32_t>(" + write_expr(st, e.args[1], obj) + "))";
      }
      if (e.fn == Fn::Fnv1a32 || e.fn == Fn::Murmur3 || e.fn == Fn::Crc32) {
        const Expr& a = e.args[0];
        std::string arg = a.kind == Expr::Call ? "binschema::path_" + a.name + "(" + x + "." + cpp_field(a.args[0].name) + ")"
                                               : x + "." + cpp_field(a.name);
        return std::string(e.fn == Fn::Fnv1a32 ? "binschema::fnv1a32(" : e.fn == Fn::Crc32 ? "binschema::crc32(" : "binschema::murmur3_x86_32(") + arg + ")";
      }
      break;  // layout functions go through late_expr, never inside another call (validate.cpp)
  }
  return "";
}

// Whether the writer can evaluate e from the model (no layout positions,
// no read-side-only functions or context pointers).
bool CppGen::write_evaluable(const Struct& st, const Expr& e) const {
  if (e.calls(Fn::Until) || (e.kind == Expr::Call && is_late(e))) return false;
  if (e.kind == Expr::Ident && !st.field(e.name) && e.name.find('.') == std::string::npos) {
    const Field* g = s_.find(s_.root)->field(e.name);
    if (g && g->pointer.width) return false;
  }
  // A late derived field (size(b), say) is only known once the file is laid out.
  if (const Field* g = e.kind == Expr::Ident ? st.field(e.name) : nullptr; g && g->role.derive && is_late(*g->role.derive)) return false;
  if ((e.calls(Fn::Sum) || e.calls(Fn::Max)) && e.args[0].kind == Expr::Ident && st.field(e.args[0].name) &&
      st.field(e.args[0].name)->array.on)
    return write_evaluable(*st.field(e.args[0].name)->type.st, e.args[1]);
  for (const auto& a : e.args)
    if (!write_evaluable(st, a)) return false;
  return true;
}

// Whether the writer checks an array's length against its count: any count
// it does not write from the array itself (a bare count field does that),
// over values it knows (no until(): that array ends where its end says).
bool CppGen::count_checked(const Struct& st, const Expr& e) const {
  if (e.kind == Expr::Ident) {
    const Field* c = st.field(e.name);
    if (c && !c->resolved.count_for.empty()) return false;  // written from the array (count_shared: checked on its own)
  }
  // A derived value known only once the file is laid out is checked then,
  // through its derivation (late_expr); a context pointer is read back from
  // the root's slot, which needs the slot at a fixed offset of a root at 0
  // and the name outside a function.
  const std::function<bool(const Expr&, bool)> unknown = [&](const Expr& x, bool in_call) {
    if (const Field* d = x.kind == Expr::Ident ? st.field(x.name) : nullptr; d && d->role.derive && is_late(*d->role.derive))
      return unknown(*d->role.derive, in_call);
    if (const Field* g = context_pointer(st, x); g && (in_call || !g->resolved.fixed_offset || s_.find(s_.root)->has_self)) return true;
    if (x.calls(Fn::Until) || (x.calls(Fn::FileSize) && in_call)) return true;
    for (const auto& a : x.args)
      if (unknown(a, in_call || x.kind == Expr::Call)) return true;
    return false;
  };
  return !unknown(e, false);
}

// A pointer of the root named in context: (its value in the file, read
// back from the root's slot once placed), or null.
const Field* CppGen::context_pointer(const Struct& st, const Expr& e) const {
  if (e.kind != Expr::Ident || st.field(e.name) || e.name.find('.') != std::string::npos) return nullptr;
  const Field* g = s_.find(s_.root)->field(e.name);
  return g && g->pointer.width ? g : nullptr;
}

// C++ for a value known only once the file is laid out, evaluated in
// finish(): marks, the file size, start(self), context pointers and model values.
std::string CppGen::late_expr(const Struct& st, const Expr& e) const {
  if (e.calls(Fn::FileSize)) return "c.w.pos()";
  // A field derived late: its derivation, worked out now.
  if (const Field* d = e.kind == Expr::Ident ? st.field(e.name) : nullptr; d && d->role.derive && is_late(*d->role.derive))
    return late_expr(st, *d->role.derive);
  if (const Field* g = context_pointer(st, e)) return "c.w.get_uint(" + hexs(g->resolved.offset) + ", " + std::to_string(g->pointer.width) + ")";
  if (e.calls(Fn::Start) || e.calls(Fn::End) || e.calls(Fn::Size)) {
    if (e.args[0].name == "self") {
      // Only start(self) is accepted (validate.cpp).
      return "s";
    }
    std::string id = std::to_string(s_.region_id(e.args[0].name));
    if (e.fn == Fn::Start) return "c.w.start_of(" + id + ")";
    if (e.fn == Fn::End) return "c.w.end_of(" + id + ")";
    return "(c.w.end_of(" + id + ") - c.w.start_of(" + id + "))";
  }
  switch (e.kind) {
    case Expr::Unary: return "(" + e.name + late_expr(st, e.args[0]) + ")";
    case Expr::Binary: return "(" + late_expr(st, e.args[0]) + " " + e.name + " " + late_expr(st, e.args[1]) + ")";
    case Expr::Ternary:
      return "(" + late_expr(st, e.args[0]) + " ? " + late_expr(st, e.args[1]) + " : " + late_expr(st, e.args[2]) + ")";
    default: return "uint64_t(" + write_expr(st, e) + ")";
  }
}

// Writes one inline field at `o` (already reserved when the field has a fixed size).
void CppGen::put_field(const Struct& st, const Field& f, const std::string& o) {
  CodeWriter& w = c_;
  std::string x = "x." + cpp_field(f.name);
  std::string what = "\"" + st.name + "." + f.name + "\"";
  if (!f.table.offsets_of.empty()) {
    // offsets_of: each string's offset from the struct's start (the strings
    // follow directly, each with its NUL), then the end of the last.
    const Field* sf = st.field(f.table.offsets_of);
    const Field* tf = sf->type.st->fields[0].get();
    const std::string esz = std::to_string(prim_size(f.type.prim));
    w += "{";
    w += "  const uint64_t n = " + write_expr(st, *f.array.count) + ";";
    w += "  uint64_t at = c.w.pos() + n * " + esz + " - s;";
    w += "  for (uint64_t i = 0; i < n; ++i) {";
    w += "    c.w.put_uint(c.w.reserve(" + esz + "), " + esz + ", at, " + what + ");";
    w += "    if (i < x." + cpp_field(sf->name) + ".size()) at += x." + cpp_field(sf->name) + "[i]." + cpp_field(tf->name) + ".size() + 1;";
    w += "  }";
    w += "}";
    return;
  }
  if (f.kind == FieldKind::InlineArray && !f.resolved.tag_for.empty()) {
    // The tags of a union[]: the tag of each element's case.
    const Field* u = st.field(f.resolved.tag_for);
    std::string tags;
    for (const auto& c : u->variant.cases) tags += (tags.empty() ? "" : ", ") + std::to_string(c.tag);
    w += "{";
    w += "  static constexpr " + std::string(prim_cpp(f.type.prim)) + " tags[] = {" + tags + "};";
    w += "  for (const auto& e : x." + cpp_field(u->name) + ") " + wput() + prim_stored(f.type.prim) + ">(c.w.reserve(" +
         std::to_string(prim_size(f.type.prim)) + "), tags[e.index()]);";
    w += "}";
    if (f.pad) w += "c.w.align(" + std::to_string(f.pad) + ");  // pad:";
    return;
  }
  if (f.array.count && count_checked(st, *f.array.count)) {
    // A count the model does not hold (an expression, or a derived or const
    // field): an array of another length would be read back as a different
    // model. One over file_size() is checked once the file is laid out.
    const char* check = "binschema::check_count({{WHAT}}, {{X}}.size(), {{WANT}}, \"{{COUNT}}\");";
    const std::string count = expr_text(*f.array.count);
    if (write_evaluable(st, *f.array.count)) {
      w.line(check, {{"WANT", write_expr(st, *f.array.count)}, {"X", x}, {"WHAT", what}, {"COUNT", count}});
    } else {
      w += "c.w.late_check([=, &c, &x]() {";
      w.indent();
      w.line(check, {{"WANT", late_expr(st, *f.array.count)}, {"X", x}, {"WHAT", what}, {"COUNT", count}});
      w.dedent();
      w += "});";
    }
  }
  if (!f.resolved.count_shared.empty())
    w += "if (" + x + ".size() != x." + cpp_field(f.resolved.count_shared) + ".size()) throw binschema::EncodeError(std::string(" + what +
         ") + \": \" + std::to_string(" + x + ".size()) + \" elements, but " + f.resolved.count_shared + " (counted by the same field) has \" + std::to_string(x." +
         cpp_field(f.resolved.count_shared) + ".size()));";
  switch (f.kind) {
    case FieldKind::Virtual: break;  // stored in a dictionary, not here
    case FieldKind::Scalar:
    case FieldKind::BitWord: put_scalar(st, f, o); break;
    case FieldKind::BlockRef:
      if (f.pointer.null == Field::Null::Allowed) {
        w += "if (!" + x + ") c.w.put_uint(" + o + ", " + std::to_string(f.pointer.width) + ", " + hexs(f.pointer.null_value) + "u, " + what + ");";
        w += "else " + block_ref(f, "*" + x, o);
      } else {
        w += block_ref(f, x, o);
      }
      break;
    case FieldKind::PooledString: {
      const Pool* pool = s_.pool(f.pool);
      if (!pool->scope.empty())
        w += "c.pool_" + f.pool + ".ref(" + x + ", " + o + ", " + std::to_string(f.pointer.width) + ", false, false, 0, c.scope_" + pool->scope + ");";
      else if (f.pointer.points_to_chars)
        w += "c.pool_" + f.pool + ".ref(" + x + ", " + o + ", " + std::to_string(f.pointer.width) + ", false, false, 2);";
      else
        w += string_ref(f.pool, x, o, f.pointer.width);
      break;
    }
    case FieldKind::Pointer:
    case FieldKind::ArrayPointer:
    case FieldKind::OwnString:
    case FieldKind::Dic:
      // Patched by place_.
      if (at_var(st, f)) w += "c.at.set(" + at_key(f) + ", " + at_id(st, f) + ", " + o + ");";
      break;
    case FieldKind::Chars: {
      std::string v = f.role.const_text ? cpp_string_literal(*f.role.const_text) : x;
      w += "c.w.chars(" + o + ", " + v + ", " + std::to_string(f.type.chars) + ", false, " + what + ");";
      break;
    }
    case FieldKind::Bytes:
      if (f.size_expr && !f.cond && write_evaluable(st, *f.size_expr)) {
        // A size over model fields: bytes of another length would read back
        // as a different model.
        w.line("if (const uint64_t want = {{WANT}}; {{X}}.data.size() != want)\n"
               "  throw binschema::EncodeError(std::string({{WHAT}}) + \": \" + std::to_string({{X}}.data.size()) + \" bytes, but its size {{SIZE}} is \" + std::to_string(want));",
               {{"WANT", write_expr(st, *f.size_expr)}, {"X", x}, {"WHAT", what}, {"SIZE", expr_text(*f.size_expr)}});
      }
      w.line("c.w.bytes(c.w.reserve({{X}}.data.size()), {{X}}.data.data(), {{X}}.data.size());", {{"X", x}});
      break;
    case FieldKind::Slice:
      // Placed with its pool; begin and end are written once it is.
      w += "c.pool_" + f.pool + ".ref(std::span<const uint8_t>(" + x + ".data), " +
           (f.pointer.align_field.empty() ? std::string("0") : "x." + cpp_field(f.pointer.align_field)) + ", " + o + ", " + std::to_string(f.pointer.width) + ", " + what + ");";
      break;
    case FieldKind::PoolBlock:
      w += "c.pool_" + f.pool + ".place(c.w);";
      if (placed_pool(*s_.pool(f.pool))) break;  // patched with the other file-wide pools, at the end
      w += "c.pool_" + f.pool + ".patch(c.w);";
      // Values over the pool (its size, say), now that it is placed; they
      // sit at fixed offsets (validate.cpp).
      for (const auto& g : st.fields) {
        if (!g->role.derive || !uses_scoped_pool(s_, *g->role.derive)) continue;
        int width = g->pointer.width ? g->pointer.width : static_cast<int>(prim_size(g->type.prim));
        w += "c.w.put_uint(" + plus("s", g->resolved.offset) + ", " + std::to_string(width) + ", " + late_expr(st, *g->role.derive) +
             ", \"" + st.name + "." + g->name + "\");";
      }
      break;
    case FieldKind::CString:
      w.line("if ({{X}}.find('\\0') != std::string::npos) throw binschema::EncodeError(std::string({{WHAT}}) + \": a NUL inside a NUL-terminated string\");\n"
             "c.w.bytes(c.w.reserve({{X}}.size() + 1), {{X}}.data(), {{X}}.size());",
             {{"X", x}, {"WHAT", what}});
      if (f.pad) w += "c.w.align(" + std::to_string(f.pad) + ");  // pad:";
      break;
    case FieldKind::InlineStruct: {
      std::string src = f.in_model() ? x : f.type.st->name + "{}";
      if (at_var(st, f)) w += "c.at.set(" + at_key(f) + ", " + at_id(st, f) + ", " + o + ");";
      if (f.type.st->fixed_size) w += "put_" + f.type.st->name + "(c, " + o + ", " + src + ");";
      else w += "put_" + f.type.st->name + "(c, " + src + ");";
      break;
    }
    case FieldKind::ElemPointers:
      // The pointer slots; place_ fills them as the elements land.
      if (at_var(st, f)) w += "c.at.set(" + at_key(f) + ", " + at_id(st, f) + ", " + o + ");";
      if (!f.resolved.fixed_size) w += "c.w.reserve(" + x + ".size() * " + std::to_string(f.pointer.elem_width) + ");";
      break;
    case FieldKind::StringOffsets:
      // Inline u32 offsets of pooled strings.
      w += "{";
      w += "  const uint64_t a = c.w.reserve(" + x + ".size() * 4);";
      if (const Pool* pool = s_.pool(f.pool); !pool->scope.empty())  // offsets from the scope's struct
        w += "  for (size_t i = 0; i < " + x + ".size(); ++i) c.pool_" + f.pool + ".ref(" + x + "[i], a + i * 4, 4, false, false, 0, c.scope_" +
             pool->scope + ");";
      else
        w += "  for (size_t i = 0; i < " + x + ".size(); ++i) " + string_ref(f.pool, x + "[i]", "a + i * 4", 4);
      w += "}";
      break;
    case FieldKind::InlineArray:
      put_inline_array(st, f, o);
      if (f.pad) w += "c.w.align(" + std::to_string(f.pad) + ");  // pad:";
      break;
    case FieldKind::OwnStrings: break;  // only a union case (validate.cpp): see put_union
    case FieldKind::Union: put_union(st, f, o); break;
  }
  // A field that runs until(E) ends where E says, or the reader would stop
  // elsewhere (or refuse the file): decode and encode agree on what is valid.
  const Expr* until = f.size_expr ? &*f.size_expr : f.array.count ? &*f.array.count : nullptr;
  // (An end derived from the layout is right by construction.)
  const auto derived = [&](const Expr& e, const auto& self) -> bool {
    if (e.kind == Expr::Ident && st.field(e.name) && st.field(e.name)->role.derive) return true;
    for (const auto& a : e.args)
      if (self(a, self)) return true;
    return false;
  };
  if (until && until->calls(Fn::Until) && !f.cond && write_evaluable(st, until->args[0]) &&
      !derived(until->args[0], derived)) {
    w.line("if (const uint64_t end = {{END}}; c.w.pos() != end)\n"
           "  throw binschema::EncodeError(std::string({{WHAT}}) + \": ends at \" + binschema::hex(c.w.pos()) + \", but {{E}} is \" + binschema::hex(end));",
           {{"END", write_expr(st, until->args[0])}, {"WHAT", what}, {"E", expr_text(until->args[0])}});
  }
}

// A number, a bool or a bit word, in whatever role it has: derived,
// a count, a union's tag, or a model value.
void CppGen::put_scalar(const Struct& st, const Field& f, const std::string& o) {
  CodeWriter& w = c_;
  std::string x = "x." + cpp_field(f.name);
  std::string what = "\"" + st.name + "." + f.name + "\"";
  if (f.bom) {
    // The mark's two bytes as the model holds them (0xFEFF: FE FF), in either byte order.
    w += "c.w.at(" + o + ")[0] = uint8_t(" + x + " >> 8);";
    w += "c.w.at(" + o + ")[1] = uint8_t(" + x + ");";
  } else if (f.role.derive && uses_scoped_pool(s_, *f.role.derive)) {
    // Patched right after the pool block is placed (see put_field).
  } else if (f.role.derive) {
    int width = static_cast<int>(prim_size(f.type.prim));
    if (is_late(*f.role.derive)) {
      const std::string value = late_expr(st, *f.role.derive);
      w += "c.w.late({" + o + ", " + std::to_string(width) + ", " + (f.role.derive_pointer ? "true" : "false") + ", [=, &c" +
           (uses_model(value) ? ", &x" : "") + "]() -> uint64_t { return " + value + "; }, " + what + "});";
    } else {
      if (!f.role.also.empty()) {
        // The file's value when the layout kept one of the accepted alternatives.
        std::string cond;
        for (int64_t v : f.role.also) cond += " || v == " + std::to_string(v) + "u";
        w += "if (const uint64_t v = c.w.kept(" + o + ", d_" + f.name + "); v == d_" + f.name + cond + ")";
        w += "  c.w.put_uint(" + o + ", " + std::to_string(width) + ", v, " + what + ");";
        w += "else";
        w += "  c.w.put_uint(" + o + ", " + std::to_string(width) + ", d_" + f.name + ", " + what + ");";
      } else {
        w += "c.w.put_uint(" + o + ", " + std::to_string(width) + ", d_" + f.name + ", " + what + ");";
      }
      if (f.role.derive_pointer) w += "c.w.record_pointer(" + o + ", " + std::to_string(width) + ", d_" + f.name + " == 0);";
    }
  } else if (!f.resolved.count_for.empty()) {
    w += "c.w.put_uint(" + o + ", " + std::to_string(prim_size(f.type.prim)) + ", x." + cpp_field(f.resolved.count_for) + ".size(), " + what + ");";
  } else if (!f.resolved.tag_for.empty()) {
    const Field* u = st.field(f.resolved.tag_for);
    std::string tags;
    for (const auto& c : u->variant.cases) tags += (tags.empty() ? "" : ", ") + std::to_string(c.tag);
    w += "{";
    w += "  static constexpr " + std::string(prim_cpp(f.type.prim)) + " tags[] = {" + tags + "};";
    w += "  " + wput() + std::string(prim_stored(f.type.prim)) + ">(" + o + ", tags[x." + cpp_field(u->name) + ".index()]);";
    w += "}";
  } else if (f.kind == FieldKind::BitWord) {
    w += "{";
    w.indent();
    w += "uint64_t v = 0;";
    unsigned shift = 0;
    for (const auto& b : f.bits) {
      std::string m = x + "." + cpp_field(b.name);
      if (!b.pool.empty()) {
        // Its offset is merged into the word once the pool is placed.
        w += "c.pool_" + b.pool + ".ref_bits(" + m + ", " + o + ", " + std::to_string(prim_size(f.type.prim)) + ", " +
             std::to_string(shift) + ", " + std::to_string(b.width) + (b.scale > 1 ? ", " + std::to_string(b.scale) : std::string()) + ");";
        shift += b.width;
        continue;
      }
      if (!b.is_bool && b.width < 64)
        w += "if (uint64_t(" + m + ") >> " + std::to_string(b.width) + ") throw binschema::EncodeError(std::string(" + what +
             ") + \"." + b.name + ": value \" + std::to_string(" + m + ") + \" does not fit in " + std::to_string(b.width) + " bits\");";
      w += "v |= uint64_t(" + m + ") << " + std::to_string(shift) + ";";
      shift += b.width;
    }
    w += wput() + std::string(prim_stored(f.type.prim)) + ">(" + o + ", static_cast<" + prim_cpp(f.type.prim) + ">(v));";
    w.dedent();
    w += "}";
  } else if (!f.table.index_of.empty()) {
    // index_of: the string's place in its table (collected and ordered before the root was written).
    w += "c.w.put_uint(" + o + ", " + std::to_string(prim_size(f.type.prim)) + ", c.tab_" + f.table.index_of + ".index(" + x + ", " + what + "), " + what + ");";
  } else if (f.true_value) {
    w += wput() + load_type(f) + ">(" + o + ", " + x + " ? " + hexs(*f.true_value) + "u : 0u);";
  } else {
    std::string t = load_type(f);
    std::string v = f.role.const_int ? std::to_string(*f.role.const_int) : x;
    if (!f.role.zero_when_empty.empty()) {
      // 0 while the array is empty (or what the layout kept there).
      w += "if (x." + cpp_field(st.field(f.role.zero_when_empty)->resolved.count_for) + ".empty()) c.w.put_uint(" + o + ", " +
           std::to_string(prim_size(f.type.prim)) + ", c.w.kept(" + o + ", 0), " + what + ");";
      w += "else {";
      w.indent();
    }
    if (!f.role.valid.empty() && !f.role.const_int) {
      std::string cond, list;
      for (int64_t vv : f.role.valid) {
        cond += (cond.empty() ? "" : " && ") + v + " != " + std::to_string(vv);
        list += (list.empty() ? "" : ", ") + std::to_string(vv);
      }
      std::string shown = f.spell.hex ? "binschema::hex(" + v + ")" : "std::to_string(" + v + ")";
      if (f.spell.hex) {
        list.clear();
        for (int64_t vv : f.role.valid) list += (list.empty() ? "" : ", ") + (vv >= 0 ? hexs(static_cast<uint64_t>(vv)) : std::to_string(vv));
      }
      w += "if (" + cond + ") throw binschema::EncodeError(std::string(" + what + ") + \": value \" + " + shown + " + \" is not one of " + list + "\");";
    }
    if (const std::string c = check24(f.type.prim, v, what); !c.empty() && !f.role.const_int) w += c;
    w += wput() + t + ">(" + o + ", static_cast<" + (f.true_value || f.type.prim == Prim::Bool8 || f.type.prim == Prim::Bool32 ? t : std::string(prim_cpp(f.type.prim))) + ">(" + v + "));";
    if (!f.role.zero_when_empty.empty()) {
      w.dedent();
      w += "}";
    }
  }
}

// An inline array of numbers or structs. One of fixed size is written at
// `o` (reserved by put_); any other is appended element by element.
void CppGen::put_inline_array(const Struct& st, const Field& f, const std::string& o) {
  CodeWriter& w = c_;
  std::string x = "x." + cpp_field(f.name);
  const Struct* et = f.type.kind == ValueType::Struct ? f.type.st : nullptr;
  if (!et && f.resolved.fixed_size) {
    w += "for (size_t i = 0; i < " + std::to_string(*f.array.fixed_count) + "; ++i) " +
         store_elem(f, o + " + i * " + std::to_string(prim_size(f.type.prim)), x + "[i]", elem_what(st.name + "." + f.name, "i"));
    return;
  }
  if (et && et->has_children) {
    // Their targets are placed by place_ once the whole struct is written;
    // remember where the elements start (fixed-size elements: validate.cpp).
    std::string first = f.resolved.fixed_size ? o : "c.w.pos()";
    if (at_var(st, f)) w += "c.at.set(" + at_key(f) + ", " + at_id(st, f) + ", " + first + ");";
    else if (!f.resolved.fixed_offset) w += "c.at_" + st.name + "_" + f.name + " = " + first + ";";
  }
  if (f.resolved.fixed_size) {
    w += "for (size_t i = 0; i < " + std::to_string(*f.array.fixed_count) + "; ++i) put_" + et->name + "(c, " + o + " + i * " + hexs(et->size) +
         ", " + x + "[i]);";
    return;
  }
  if (et && !f.array.sort.empty()) {
    // sort: the elements in ascending order of the key (stable: equal keys
    // keep the model's order); a derived key is computed from the element.
    w += "{";
    w.indent();
    // Each key computed once (a derived key may hash a name).
    w += "std::vector<size_t> order(" + x + ".size());";
    w += "std::vector<uint64_t> keys(" + x + ".size());";
    w += "for (size_t i = 0; i < order.size(); ++i) {";
    w += "  const " + et->name + "& e = " + x + "[i];";
    w += "  order[i] = i;";
    w += "  keys[i] = " + sort_key(*et, f.array.sort, "e") + ";";
    w += "}";
    w += "std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return keys[a] < keys[b]; });";
    w += "for (size_t i : order) put_" + et->name + "(c, c.w.reserve(" + hexs(et->size) + "), " + x + "[i]);";
    w.dedent();
    w += "}";
    return;
  }
  if (!et && (f.type.prim == Prim::U24 || f.type.prim == Prim::S24)) {
    // By index, which names an element out of range.
    w += "for (size_t i = 0; i < " + x + ".size(); ++i)";
    w += "  " + store_elem(f, "c.w.reserve(" + std::to_string(prim_size(f.type.prim)) + ")", x + "[i]", elem_what(st.name + "." + f.name, "i"));
    return;
  }
  w += "for (const auto& e : " + x + ") {";
  if (!et) w += "  " + store_elem(f, "c.w.reserve(" + std::to_string(prim_size(f.type.prim)) + ")", "e", {});
  else if (et->fixed_size) w += "  put_" + et->name + "(c, c.w.reserve(" + hexs(et->size) + "), e);";
  else w += "  put_" + et->name + "(c, e);";
  w += "}";
}

// The sort: key of element `e` of struct et: the model's value, or its derive: computed.
std::string CppGen::sort_key(const Struct& et, const std::string& key, const std::string& e) const {
  const Field* k = et.field(key);
  if (!k->table.index_of.empty())  // a string of a sorted table: its index
    return "uint64_t(c.tab_" + k->table.index_of + ".index(" + e + "." + cpp_field(key) + ", \"" + et.name + "." + key + "\"))";
  if (k->role.derive) return "uint64_t(" + write_expr(et, *k->role.derive, e) + ")";
  return "uint64_t(" + e + "." + cpp_field(key) + ")";
}

// What a field that is absent (its if: is false) must hold in the model.
std::string CppGen::absent_check(const Field& f) const {
  std::string x = "x." + cpp_field(f.name);
  if (f.array.on && !f.array.fixed_count) return "!" + x + ".empty()";
  if (f.type.kind == ValueType::Prim && f.bits.empty() && f.array.on == false)
    return x + " != " + (f.role.default_text ? *f.role.default_text : std::string("0"));
  return x + " != decltype(" + x + "){}";
}

void CppGen::put_fn(const Struct& st) {
  CodeWriter& w = c_;
  if (st.fixed_size) w += fn_prefix() + "void put_" + st.name + "([[maybe_unused]] WCtx& c, [[maybe_unused]] uint64_t s, [[maybe_unused]] const " + st.name + "& x) {";
  else w += fn_prefix() + "uint64_t put_" + st.name + "(WCtx& c, [[maybe_unused]] const " + st.name + "& x) {";
  w.indent();
  if (!st.fixed_size) w += "const uint64_t s = c.w.reserve(" + hexs(st.prefix) + ");";
  for (const auto& p : s_.pools) {
    if (p.scope != st.name) continue;
    if (p.kind != Pool::Kind::Block) w += "c.scope_" + st.name + " = s;";
    w += "c.pool_" + p.name + ".restart();  // one per " + st.name;
  }
  // Derived values that other derived values may use.
  for (const auto& f : st.fields)
    if (f->role.derive && !is_late(*f->role.derive))
      w += "[[maybe_unused]] const uint64_t d_" + f->name + " = uint64_t(" + write_expr(st, *f->role.derive) + ");";
  for (const auto& fp : st.fields) {
    const Field& f = *fp;
    bool cursor = !f.resolved.fixed_offset || f.cond;
    if (f.cond) {
      w += "if (" + condition(write_expr(st, *f.cond)) + ") {";
      w.indent();
    }
    std::string o = at(f);
    if (cursor) {
      o = "o_" + f.name;
      // Fixed-size fields get their bytes first; variable ones append as they go.
      w += "[[maybe_unused]] const uint64_t " + o + " = " + (f.resolved.fixed_size ? "c.w.reserve(" + hexs(f.resolved.size) + ")" : "c.w.pos()") + ";";
    }
    int region = !f.pointer.width && !f.region.empty() ? s_.region_id(f.region) : -1;
    if (region >= 0) w += "c.w.mark_start_at(" + std::to_string(region) + ", " + (f.resolved.fixed_size ? o : "c.w.pos()") + ");";
    put_field(st, f, o);
    if (region >= 0)
      w += "c.w.mark_end_at(" + std::to_string(region) + ", " + (f.resolved.fixed_size ? o + " + " + hexs(f.resolved.size) : "c.w.pos()") + ");";
    if (f.cond) {
      w.dedent();
      if (f.in_model()) {
        w += "} else if (" + absent_check(f) + ") {";
        w += "  throw binschema::EncodeError(\"" + st.name + "." + f.name + ": not stored when " + expr_text(*f.cond) + " is false\");";
      }
      w += "}";
    }
  }
  if (!st.fixed_size) w += "return s;";
  w.dedent();
  w += "}\n";
}

void CppGen::put_union(const Struct& st, const Field& f, const std::string& o) {
  CodeWriter& w = c_;
  if (f.array.on) {
    // union[]: the elements in place, one size each; place_ finds them through c.at.
    uint64_t size = 0;
    for (const auto& c : f.variant.cases) size = (c.field->resolved.size + f.variant.pad_to - 1) / f.variant.pad_to * f.variant.pad_to;
    w += "{";
    w.indent();
    w += "const uint64_t a = c.w.reserve(x." + cpp_field(f.name) + ".size() * " + hexs(size) + ");";
    if (at_var(st, f)) w += "c.at.set(" + at_key(f) + ", " + at_id(st, f) + ", a);";
    w += "for (size_t i = 0; i < x." + cpp_field(f.name) + ".size(); ++i) {";
    w.indent();
    w += "const uint64_t e = a + i * " + hexs(size) + ";";
    put_union_one(st, f, "e", "x." + cpp_field(f.name) + "[i]");
    w.dedent();
    w += "}";
    w.dedent();
    w += "}";
    return;
  }
  put_union_one(st, f, o, "x." + cpp_field(f.name));
}

void CppGen::put_union_one(const Struct& st, const Field& f, const std::string& o, const std::string& xu) {
  CodeWriter& w = c_;
  w += "switch (" + xu + ".index()) {";
  w.indent();
  for (size_t i = 0; i < f.variant.cases.size(); ++i) {
    const Case& c = f.variant.cases[i];
    const Field& p = *c.field;
    uint64_t padded = (p.resolved.size + f.variant.pad_to - 1) / f.variant.pad_to * f.variant.pad_to;
    w += "case " + std::to_string(i) + ": {";
    w.indent();
    w += "[[maybe_unused]] const auto& v = std::get<" + std::to_string(i) + ">(" + xu + ");";
    if (p.array.count) {
      // A count derived otherwise than items(UNION) need not be the case's length.
      const Field* n = p.array.count->kind == Expr::Ident ? st.field(p.array.count->name) : nullptr;
      const Expr* d = n && n->role.derive ? &*n->role.derive : nullptr;
      const bool items = d && d->calls(Fn::Items) && d->args[0].name == f.name;
      if (!items && count_checked(st, *p.array.count) && write_evaluable(st, *p.array.count)) {
        w.line("binschema::check_count({{WHAT}}, v.size(), {{WANT}}, \"{{COUNT}}\");",
               {{"WANT", write_expr(st, *p.array.count)}, {"WHAT", "\"" + st.name + "." + f.name + "." + c.name + "\""}, {"COUNT", expr_text(*p.array.count)}});
      }
    }
    // Where the payload goes: in place, or appended (GCC 12 warns, wrongly,
    // -Wrestrict, when this is assigned "u" later instead).
    const std::string oo = f.resolved.fixed_size || f.array.on ? o : std::string(1, 'u');
    const bool tail = c.kind == CaseKind::Struct && !p.type.st->fixed_size;  // appends itself
    if (!f.resolved.fixed_size && !f.array.on && !tail) {
      const uint64_t elem = p.pointer.elem_width ? p.pointer.elem_width : p.type.kind == ValueType::Prim ? prim_size(p.type.prim) : 1;
      std::string size = hexs(padded);
      if (!p.resolved.fixed_size) {
        size = round_up("v.size() * " + std::to_string(elem), f.variant.pad_to);
      }
      w += "[[maybe_unused]] const uint64_t u = c.w.reserve(" + size + ");";
    }
    switch (c.kind) {
      case CaseKind::PooledString: w += string_ref(p.pool, "v", oo, p.pointer.width); break;
      case CaseKind::OwnString:
      case CaseKind::OwnStrings:
      case CaseKind::StructPointer:
        break;  // patched by place_ when the target is placed
      case CaseKind::PooledBlock: w += block_ref(p, "v", oo, static_cast<uint64_t>(c.tag), f.variant.tag_shift); break;
      case CaseKind::Number:
        if (!p.table.index_of.empty())  // index_of: the string's place in its table
          w += "c.w.put_uint(" + oo + ", " + std::to_string(prim_size(p.type.prim)) + ", c.tab_" + p.table.index_of + ".index(v, \"" + st.name + "." + f.name + "\"), \"" + st.name + "." + f.name + "\");";
        else if (p.true_value) w += wput() + load_type(p) + ">(" + oo + ", v ? " + hexs(*p.true_value) + "u : 0u);";
        else {
          // A 24-bit number out of range: refused naming the union, as a plain field is.
          const std::string what = "\"" + st.name + "." + f.name + "\"";
          if (const std::string c = check24(p.type.prim, "v", what); !c.empty()) w += c;
          // The model's type (uint32_t for a u24, as a plain field), not binschema::uint24 (3 bytes: no cast).
          const bool b = p.type.prim == Prim::Bool8 || p.type.prim == Prim::Bool32;
          w += wput() + load_type(p) + ">(" + oo + ", static_cast<" + (b ? load_type(p) : std::string(prim_cpp(p.type.prim))) + ">(v));";
        }
        break;
      case CaseKind::Numbers: {
        uint64_t sz = prim_size(p.type.prim);
        w += "for (size_t i = 0; i < v.size(); ++i) " + store_elem(p, oo + " + i * " + std::to_string(sz), "v[i]", elem_what(st.name + "." + f.name, "i"));
        break;
      }
      case CaseKind::Struct:
        if (tail) w += "put_" + p.type.st->name + "(c, v);";  // of variable size: the union's last field
        else w += "put_" + p.type.st->name + "(c, " + oo + ", v);";  // of fixed size
        break;
    }
    w += "break;";
    w.dedent();
    w += "}";
  }
  w.dedent();
  w += "}";
}

// A union case that points to a struct: the struct where the layout put it
// (or at the end), then what it points to; with tag_shift: the tag rides in
// the pointer word. With base: struct, the offset is from the start of the
// struct holding the union (s).
void CppGen::place_case_struct(const Struct& st, const Field& u, size_t i, const std::string& v, const std::string& slot) {
  CodeWriter& w = c_;
  const Field& p = *u.variant.cases[i].field;
  const Struct& pt = *p.type.st;
  const std::string what = "\"" + st.name + "." + u.name + "\"";
  const std::string base = p.pointer.base == Field::Base::Struct ? "s" : "0";
  const uint64_t align = std::max(p.pointer.align ? p.pointer.align : pt.align, p.pointer.scale);  // a scaled offset needs a multiple of its scale
  const std::string size = pt.fixed_size ? hexs(pt.size) : std::string("binschema::kUnknownSize");
  // Shared targets (docs §11): a slot whose layout target is an equal block written earlier points there.
  const std::string value = "static_cast<const " + pt.name + "&>(" + v + ")";
  const bool leaf = plain_struct(pt);
  for (const auto& g : pt.fields)  // inline bytes at a multiple of a field's value (align: FIELD)
    if (g->type.kind == ValueType::Bytes && !g->pointer.width && !g->pointer.align_field.empty())
      w += "c.w.align_inner(" + slot + ", " + v + "." + cpp_field(g->pointer.align_field) + ", " + hexs(g->resolved.offset) + ");";
  // The word: (offset [+ points_to's offset]) [/ scale] | the tag from bit tag_shift up.
  const std::string tag = "(uint64_t(" + std::to_string(u.variant.cases[i].tag) + ") << " + std::to_string(u.variant.tag_shift) + ")";
  auto word = [&](const std::string& at) {
    std::string off = base == "s" ? at + " - s" : at;
    if (p.pointer.points_to_offset) off = "(" + off + ") + " + hexs(p.pointer.points_to_offset);
    std::string checks;
    if (p.pointer.scale != 1) {
      checks += "if ((" + off + ") % " + std::to_string(p.pointer.scale) + ") throw binschema::EncodeError(std::string(" + what +
                ") + \": offset \" + hex(" + off + ") + \" is not a multiple of its scale " + std::to_string(p.pointer.scale) + "\");\n";
      off = "(" + off + ") / " + std::to_string(p.pointer.scale);
    }
    checks += "if ((" + off + ") >> " + std::to_string(u.variant.tag_shift) + ") throw binschema::EncodeError(std::string(" + what +
              ") + \": offset \" + hex(" + off + ") + \" does not fit below its tag\");\n";
    return checks + "c.w.pointer(" + slot + ", " + std::to_string(p.pointer.width) + ", (" + off + ") | " + tag + ", 0, " + what + ");";
  };
  // share: equal: an equal value written before (by any such pointer) is pointed to, not written again.
  const std::string note = p.pointer.share_equal ? "  c.w.note_equal(t, " + value + ", h);" : "";
  if (p.pointer.share_equal) {
    w += "const size_t h = binschema::text::hash_value(" + value + ");";
    w += "if (const uint64_t u = c.w.equal_at(" + slot + ", " + value + ", h); u != binschema::kNotShared) {";
    w.indent();
    if (!u.variant.tag_shift) w += "c.w.pointer(" + slot + ", " + std::to_string(p.pointer.width) + ", u, " + base + ", " + what + ");";
    else w += word("u");
    w.dedent();
    w += "} else {";
    w.indent();
  }
  // Where a layout put it, if it still fits there (docs §11).
  if (!u.variant.tag_shift) {
    w += "if (const uint64_t t = c.w." + std::string(leaf ? "place_leaf(" : "place_shared(") + slot + ", " + size + ", " +
         std::to_string(align) + ", " + std::to_string(p.pointer.width) + ", " + base + ", " + what + ", " + value + "); t != binschema::kShared) {";
    if (!note.empty()) w += note;
  } else {
    if (leaf && pt.fixed_size) {
      // A value with no pointers inside may lie inside others (docs §11, shared targets).
      w += "if (const uint64_t t = c.w.place_leaf_word(" + slot + ", " + size + ", " + std::to_string(align) + ", " + std::to_string(p.pointer.width) +
           ", " + base + ", " + what + ", " + value + ", " + std::to_string(p.pointer.scale) + ", " + hexs(p.pointer.points_to_offset) + ", " +
           std::to_string(u.variant.cases[i].tag) + ", " + std::to_string(u.variant.tag_shift) + "); t != binschema::kShared) {";
      if (!note.empty()) w += note;
      w += "  put_" + pt.name + "(c, c.w.reserve(" + hexs(pt.size) + "), " + v + ");";
      w += "  c.w.leaf_done(t);";
      w += "}";
      if (p.pointer.share_equal) {
        w.dedent();
        w += "}";
      }
      return;
    }
    w += "if (const uint64_t u = c.w.shared_at(" + slot + ", " + value + ", " + std::to_string(align) + "); u != binschema::kNotShared) {";
    w.indent();
    w += word("u");
    w.dedent();
    w += "} else {";
    w += "  c.w.place_block(" + slot + ", " + size + ", " + std::to_string(align) + ");";
    w += "  c.w.align(" + std::to_string(align) + ");";
    w += "  const uint64_t t = c.w.pos();";
    w.indent();
    w += word("t");
    w.dedent();
    w += "  c.w.note_block(t, " + value + ");";
    if (!note.empty()) w += note;
  }
  if (pt.fixed_size) w += "  put_" + pt.name + "(c, c.w.reserve(" + hexs(pt.size) + "), " + v + ");";
  else w += "  put_" + pt.name + "(c, " + v + ");";
  if (pt.has_children) w += "  place_" + pt.name + "(c, " + v + ", t);";
  if (leaf && !u.variant.tag_shift) w += "  c.w.leaf_done(t);";
  w += "}";
  if (p.pointer.share_equal) {
    w.dedent();
    w += "}";
  }
}

// The largest alignment of a section's targets (each at least its pointer's scale).
uint64_t CppGen::section_align(const Section& sec) const {
  uint64_t a = 1;
  for (const SectionUse& u : section_uses(sec.name)) {
    const Field& p = u.case_index < 0 ? *u.f : *u.f->variant.cases[static_cast<size_t>(u.case_index)].field;
    uint64_t pa = p.pointer.align ? p.pointer.align : p.type.st ? p.type.st->align : 1;
    a = std::max({a, pa, p.pointer.scale});
  }
  return a;
}

// The pointers whose targets wait in section `name`, in schema order.
std::vector<CppGen::SectionUse> CppGen::section_uses(const std::string& name) const {
  std::vector<SectionUse> out;
  for (const auto& st : s_.structs)
    for (const auto& f : st->fields) {
      if (f->section == name) out.push_back({st.get(), f.get(), -1});
      for (size_t i = 0; i < f->variant.cases.size(); ++i)
        if (f->variant.cases[i].field->section == name) out.push_back({st.get(), f.get(), static_cast<int>(i)});
    }
  return out;
}

int CppGen::section_use_id(const std::string& name, const Field* f, int case_index) const {
  const auto uses = section_uses(name);
  for (size_t i = 0; i < uses.size(); ++i)
    if (uses[i].f == f && uses[i].case_index == case_index) return static_cast<int>(i);
  return -1;
}

// A target of section `section` waits in its queue (x at s holds the pointer).
void CppGen::enqueue_section(const Struct& st, const Field& f, int case_index, const std::string& section) {
  CodeWriter& w = c_;
  const std::string q = "c.sec_" + section;
  w += "if (" + q + "_done) throw binschema::EncodeError(\"" + st.name + "." + f.name + ": a target of section '" + section +
       "' comes after the section was placed (place the section later in the layout)\");";
  w += q + ".push_back({" + std::to_string(section_use_id(section, &f, case_index)) + ", &x, s});";
}

// run_sec_NAME: writes one waiting target of the section where it belongs.
void CppGen::section_fn(const Section& sec) {
  CodeWriter& w = c_;
  w += fn_prefix() + "void run_sec_" + sec.name + "(WCtx& c, const binschema::SectionItem& it) {";
  w.indent();
  w += "switch (it.which) {";
  const auto uses = section_uses(sec.name);
  for (size_t k = 0; k < uses.size(); ++k) {
    const SectionUse& u = uses[k];
    w += "  case " + std::to_string(k) + ": {";
    w.indent();
    w.indent();
    w += "const " + u.st->name + "& x = *static_cast<const " + u.st->name + "*>(it.x);";
    w += "[[maybe_unused]] const uint64_t s = it.s;";
    if (u.case_index < 0) {
      place_target(*u.st, *u.f, false);
    } else {
      const std::string v = "std::get<" + std::to_string(u.case_index) + ">(x." + cpp_field(u.f->name) + ")";
      place_case_struct(*u.st, *u.f, static_cast<size_t>(u.case_index), v, plus("s", u.f->resolved.offset));
    }
    w += "break;";
    w.dedent();
    w.dedent();
    w += "  }";
  }
  w += "  default: break;";
  w += "}";
  w.dedent();
  w += "}\n";
}

// The derived values that an if: of st uses (an if: over a derived count,
// has() and the like), for the functions besides put_ that evaluate if:.
void CppGen::declare_cond_derived(const Struct& st) {
  std::set<std::string> need;
  std::function<void(const Expr&)> walk = [&](const Expr& e) {
    if (e.kind == Expr::Ident)
      if (const Field* f = st.field(e.name); f && f->role.derive && !is_late(*f->role.derive) && need.insert(f->name).second) walk(*f->role.derive);
    for (const auto& a : e.args) walk(a);
  };
  for (const auto& f : st.fields)
    if (f->cond) walk(*f->cond);
  for (const auto& f : st.fields)
    if (need.count(f->name)) c_ += "[[maybe_unused]] const uint64_t d_" + f->name + " = uint64_t(" + write_expr(st, *f->role.derive) + ");";
}

void CppGen::place_fn(const Struct& st) {
  CodeWriter& w = c_;
  w += fn_prefix() + "void place_" + st.name + "(WCtx& c, [[maybe_unused]] const " + st.name + "& x, [[maybe_unused]] uint64_t s) {";
  w.indent();
  declare_cond_derived(st);
  for (const auto& li : st.layout)
    if (li.kind == LayoutItem::Shallow) w += "uint64_t t_" + li.name + " = 0;  // where the shallow " + li.name + " went";
  bool before_self = st.has_self;
  std::set<std::string> pre_children;
  for (const auto& li : st.layout) {
    if (before_self) {
      // Placed by pre_place_: fill in the pointers now that the struct exists.
      if (li.kind == LayoutItem::Self) before_self = false;
      else if (li.kind == LayoutItem::FieldTarget) patch_field(st, *st.field(li.name), "x");
      else if (li.kind == LayoutItem::Children) pre_children.insert(li.name);
      continue;
    }
    if (li.kind == LayoutItem::Shallow && pre_children.count(li.name)) {
      const Field& f = *st.field(li.name);
      place_target(st, f, true);
      w += "for (size_t i = 0; i < x." + cpp_field(f.name) + ".size(); ++i) patch_" + f.type.st->name + "(c, x." +
           cpp_field(f.name) + "[i], t_" + f.name + " + i * " + hexs(f.type.st->size) + ");";
      continue;
    }
    switch (li.kind) {
      case LayoutItem::Pool:
        if (const Section* sec = s_.section(li.name)) {
          // The section's targets, first in first out; those they point to
          // into this section join the queue.
          const std::string q = "c.sec_" + sec->name;
          w += "if (" + q + "_done) throw binschema::EncodeError(\"section '" + sec->name + "' placed twice: the layout of " + st.name +
               " places it, so " + st.name + " must be written exactly once\");";
          w += "c.w.to_end();";
          w += "c.w.mark_start(" + std::to_string(s_.region_id(sec->name)) + ");";
          w += "for (size_t i = 0; i < " + q + ".size(); ++i) {";
          w += "  const binschema::SectionItem it = " + q + "[i];";
          w += "  run_sec_" + sec->name + "(c, it);";
          w += "}";
          w += q + "_done = true;";
          w += q + ".clear();";
          w += "c.w.to_end();";
          w += "c.w.mark_end(" + std::to_string(s_.region_id(sec->name)) + ");";
          w += "c.w.check_packed(" + std::to_string(s_.region_id(sec->name)) + ", " + std::to_string(section_align(*sec)) + ");";
          continue;
        }
        // A struct written more than once would place the pool again; the
        // runtime's own message ("internal: pool placed twice") names neither.
        w += "if (c.pool_" + li.name + ".placed()) throw binschema::EncodeError(\"pool '" + li.name + "' placed twice: the layout of " +
             st.name + " places it, so " + st.name + " must be written exactly once\");";
        w += "c.w.to_end();";
        w += "c.pool_" + li.name + ".place(c.w);";
        continue;
      case LayoutItem::Align: w += "c.w.align(" + std::to_string(li.n) + ");"; continue;
      case LayoutItem::Zeros: w += "c.w.reserve(" + hexs(li.n) + ");"; continue;
      case LayoutItem::Children:
        if (!st.field(li.name)->pointer.width && !st.field(li.name)->pointer.elem_width) place_inline_children(st, *st.field(li.name));
        else place_children(st, *st.field(li.name));
        continue;
      default: break;
    }
    const Field& f = *st.field(li.name);
    if (f.cond) {
      w += "if (" + condition(write_expr(st, *f.cond)) + ") {";
      w.indent();
    }
    if (!f.pointer.width) place_inline_pointers(st, f);
    else if (!f.section.empty()) enqueue_section(st, f, -1, f.section);
    else place_target(st, f, li.kind == LayoutItem::Shallow);
    if (f.cond) {
      w.dedent();
      w += "}";
    }
  }
  // What the active case of a union points to.
  for (const auto& u : st.fields) {
    if (u->type.kind != ValueType::Union) continue;
    if (std::none_of(u->variant.cases.begin(), u->variant.cases.end(), [](const Case& c) { return c.places_targets(); }))
      continue;
    // Such a union sits at a fixed offset (validate.cpp); a union[] is found through c.at.
    std::string xu = "x." + cpp_field(u->name), slot0 = plus("s", u->resolved.offset);
    if (u->array.on) {
      uint64_t size = 0;
      for (const auto& c : u->variant.cases) size = (c.field->resolved.size + u->variant.pad_to - 1) / u->variant.pad_to * u->variant.pad_to;
      w += "if (!" + xu + ".empty()) {";
      w += "const uint64_t a_" + u->name + " = " + field_at(st, *u) + ";";
      w += "for (size_t i_" + u->name + " = 0; i_" + u->name + " < " + xu + ".size(); ++i_" + u->name + ") {";
      slot0 = "a_" + u->name + " + i_" + u->name + " * " + hexs(size);
      xu += "[i_" + u->name + "]";
    }
    w += "switch (" + xu + ".index()) {";
    for (size_t i = 0; i < u->variant.cases.size(); ++i) {
      const Case& c = u->variant.cases[i];
      const Field& p = *c.field;
      if (!c.places_targets()) continue;
      std::string v = "std::get<" + std::to_string(i) + ">(" + xu + ")";
      switch (c.kind) {
        case CaseKind::OwnString: {
          w += "  case " + std::to_string(i) + ":";
          c_.indent();
          c_.indent();
          place_pascal(v, plus("s", u->resolved.offset), p.pointer.width, p.pointer.align ? p.pointer.align : 2, "\"" + st.name + "." + u->name + "\"",
                       p.pointer.base == Field::Base::Struct ? "s" : "0");
          c_.dedent();
          c_.dedent();
          w += "    break;";
          break;
        }
        case CaseKind::OwnStrings: {
          w += "  case " + std::to_string(i) + ":";
          w += "    for (size_t i = 0; i < " + v + ".size(); ++i)";
          c_.indent();
          c_.indent();
          c_.indent();
          place_pascal(v + "[i]", plus("s", u->resolved.offset) + " + i * " + std::to_string(p.pointer.elem_width), p.pointer.elem_width, p.pointer.align ? p.pointer.align : 2,
                       "\"" + st.name + "." + u->name + "\"");
          c_.dedent();
          c_.dedent();
          c_.dedent();
          w += "    break;";
          break;
        }
        case CaseKind::StructPointer: {
          if (!p.section.empty()) {
            w += "  case " + std::to_string(i) + ":";
            c_.indent();
            c_.indent();
            enqueue_section(st, *u, static_cast<int>(i), p.section);
            c_.dedent();
            c_.dedent();
            w += "    break;";
            break;
          }
          w += "  case " + std::to_string(i) + ": {";
          c_.indent();
          c_.indent();
          place_case_struct(st, *u, i, v, slot0);
          c_.dedent();
          c_.dedent();
          w += "    break;";
          w += "  }";
          break;
        }
        case CaseKind::Struct:
          w += "  case " + std::to_string(i) + ": place_" + p.type.st->name + "(c, " + v + ", " + slot0 + "); break;";
          break;
        case CaseKind::Number:
        case CaseKind::Numbers:
        case CaseKind::PooledBlock:
        case CaseKind::PooledString:
          break;
      }
    }
    w += "  default: break;";
    w += "}";
    if (u->array.on) w += "}\n}";
  }
  for (const auto& f : st.fields) {
    if (f->pointer.width || f->pointer.elem_width || f->type.kind != ValueType::Struct || !f->type.st->has_children || !f->in_model()) continue;
    bool named = false;  // by a `children F` layout item
    for (const auto& li : st.layout) named = named || (li.kind == LayoutItem::Children && li.name == f->name);
    if (!named) place_inline_children(st, *f);
  }
  w.dedent();
  w += "}\n";
}

// What an inline struct field (or each element of an inline array of
// them) points to.
void CppGen::place_inline_children(const Struct& st, const Field& f) {
  CodeWriter& w = c_;
  const Struct& et = *f.type.st;
  if (!et.has_children) return;
  if (f.cond) w += "if (" + condition(write_expr(st, *f.cond)) + ")";
  if (f.array.on && !f.array.sort.empty()) {
    // Written in key order (put_inline_array): the element at place i is the i-th by key.
    const std::string x = "x." + cpp_field(f.name);
    w += "{";
    w.indent();
    w += "std::vector<size_t> order(" + x + ".size());";
    w += "std::vector<uint64_t> keys(" + x + ".size());";
    w += "for (size_t i = 0; i < order.size(); ++i) {";
    w += "  order[i] = i;";
    w += "  keys[i] = " + sort_key(et, f.array.sort, x + "[i]") + ";";
    w += "}";
    w += "std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return keys[a] < keys[b]; });";
    w += "for (size_t i = 0; i < order.size(); ++i)";
    w += "  place_" + et.name + "(c, " + x + "[order[i]], " + field_at(st, f) + " + i * " + hexs(et.size) + ");";
    w.dedent();
    w += "}";
  } else if (f.array.on) {
    w += "for (size_t i = 0; i < x." + cpp_field(f.name) + ".size(); ++i)";
    w += "  place_" + et.name + "(c, x." + cpp_field(f.name) + "[i], " + field_at(st, f) + " + i * " + hexs(et.size) + ");";
  } else {
    w += "place_" + et.name + "(c, x." + cpp_field(f.name) + ", " + field_at(st, f) + ");";
  }
}

// The targets of a shallow-placed field's target, element by element.
void CppGen::place_children(const Struct& st, const Field& f) {
  CodeWriter& w = c_;
  (void)st;
  const Struct& et = *f.type.st;
  std::string x = "x." + cpp_field(f.name);
  if (f.pointer.elem_width) {
    // The elements themselves, each followed by what it points to.
    int region = f.region.empty() ? -1 : s_.region_id(f.region);
    std::string what = "\"" + st.name + "." + f.name + "\"";
    w += "for (size_t i = 0; i < " + x + ".size(); ++i) {";
    const std::string slot = "t_" + f.name + " + i * " + std::to_string(f.pointer.elem_width);
    if (et.has_self) {
      w += "  c.w.to_end();\n  pre_place_" + et.name + "(c, " + x + "[i]);";
      w += "  c.w.align(" + std::to_string(et.align) + ");";
      w += "  const uint64_t e = c.w.pos();";
      w += "  c.w.pointer(" + slot + ", " + std::to_string(f.pointer.elem_width) + ", e, 0, " + what + ");";
    } else {
      w += std::string(et.has_children ? "  const uint64_t e = " : "  ") + "c.w.place_target(" + slot + ", " + (et.fixed_size ? hexs(et.size) : std::string("0")) + ", " +
           std::to_string(et.align) + ", " + std::to_string(f.pointer.elem_width) + ", 0, " + what + ");";
    }
    if (region >= 0) w += "  if (i == 0) c.w.mark_start(" + std::to_string(region) + ");  // the region spans all elements";
    if (et.fixed_size) w += "  put_" + et.name + "(c, c.w.reserve(" + hexs(et.size) + "), " + x + "[i]);";
    else w += "  put_" + et.name + "(c, " + x + "[i]);";
    if (et.has_children) w += "  place_" + et.name + "(c, " + x + "[i], e);";
    w += "}";
    if (region >= 0) w += "if (!" + x + ".empty()) c.w.mark_end(" + std::to_string(region) + ");";
    return;
  }
  if (!et.has_children) return;
  if (f.array.on) {
    w += "for (size_t i = 0; i < " + x + ".size(); ++i) place_" + et.name + "(c, " + x + "[i], t_" + f.name + " + i * " + hexs(et.size) + ");";
  } else if (f.pointer.null == Field::Null::Allowed) {
    w += "if (" + x + ") place_" + et.name + "(c, *" + x + ", t_" + f.name + ");";
  } else {
    w += "place_" + et.name + "(c, " + x + ", t_" + f.name + ");";
  }
}

// A string of its own (not pooled) as the target of the pointer at `slot`
// (holding its offset from `base`), where a layout put it if it still fits.
void CppGen::place_pascal(const std::string& v, const std::string& slot, int width, uint64_t align, const std::string& what,
                          const std::string& base) {
  CodeWriter& w = c_;
  w += "{";
  w += "  if (" + v + ".size() > 0xffff) throw binschema::EncodeError(std::string(" + what + ") + \": string longer than 65535 bytes\");";
  w += "  const uint64_t t = c.w.place_target(" + slot + ", 2 + " + v + ".size() + 1, " + std::to_string(align) + ", " + std::to_string(width) + ", " +
       base + ", " + what + ");";
  w += "  c.w.reserve(2 + " + v + ".size() + 1);";
  w += "  " + wput() + "uint16_t>(t, static_cast<uint16_t>(" + v + ".size()));";
  w += "  c.w.bytes(t + 2, " + v + ".data(), " + v + ".size());";
  w += "}";
}

// The elements of an inline array of pointers, each placed (aligned) and
// followed by what it points to, filling the slots in the struct.
void CppGen::place_inline_pointers(const Struct& st, const Field& f) {
  CodeWriter& w = c_;
  const Struct& et = *f.type.st;
  std::string x = "x." + cpp_field(f.name), what = "\"" + st.name + "." + f.name + "\"";
  // The field's align: (no table here: it is the elements') wins over the struct's own.
  const uint64_t align = f.pointer.align ? f.pointer.align : et.align;
  w += "for (size_t i = 0; i < " + x + ".size(); ++i) {";
  w += std::string(et.has_children ? "  const uint64_t e = " : "  ") + "c.w.append_target(" + field_at(st, f) + " + i * " + std::to_string(f.pointer.elem_width) + ", " + std::to_string(align) + ", " +
       std::to_string(f.pointer.elem_width) + ", 0, " + what + ");";
  if (et.fixed_size) w += "  put_" + et.name + "(c, c.w.reserve(" + hexs(et.size) + "), " + x + "[i]);";
  else w += "  put_" + et.name + "(c, " + x + "[i]);";
  if (et.has_children) w += "  place_" + et.name + "(c, " + x + "[i], e);";
  w += "}";
}

// The set of struct types whose elements' targets are placed before them.
std::set<const Struct*> CppGen::preplaced_elements() const {
  std::set<const Struct*> out;
  for (const auto& st : s_.structs) {
    if (!st->has_self) continue;
    for (const auto& li : st->layout) {
      if (li.kind == LayoutItem::Self) break;
      if (li.kind == LayoutItem::Children) out.insert(st->field(li.name)->type.st);
    }
  }
  return out;
}

// The call that fills in pointer f's slot with `target` (scaled with scale:).
std::string CppGen::pointer_call(const Field& f, const std::string& slot, const std::string& target, const std::string& base,
                                 const std::string& what) const {
  if (f.pointer.scale == 1)
    return "c.w.pointer(" + slot + ", " + std::to_string(f.pointer.width) + ", " + target + ", " + base + ", " + what + ")";
  return "c.w.pointer_scaled(" + slot + ", " + std::to_string(f.pointer.width) + ", " + target + ", " + base + ", " +
         std::to_string(f.pointer.scale) + ", " + what + ")";
}

// Fills in the pointer of field f (of `obj`, at s) from c.placed.
void CppGen::patch_field(const Struct& st, const Field& f, const std::string& obj) {
  CodeWriter& w = c_;
  std::string slot = plus("s", f.resolved.offset), base = f.pointer.base == Field::Base::Struct ? "s" : "0";
  w += "if (auto it = c.placed.find(&" + obj + "." + cpp_field(f.name) + "); it != c.placed.end())";
  w += "  " + pointer_call(f, slot, "it->second", base, "\"" + st.name + "." + f.name + "\"") + ";";
  if (f.pointer.register_null) w += "else\n  c.w.record_pointer(" + slot + ", " + std::to_string(f.pointer.width) + ", true);";
}

// pre_place_T: what T's layout places before T itself.
void CppGen::pre_place_fn(const Struct& st) {
  CodeWriter& w = c_;
  w += fn_prefix() + "void pre_place_" + st.name + "(WCtx& c, [[maybe_unused]] const " + st.name + "& x) {";
  w.indent();
  declare_cond_derived(st);
  for (const auto& li : st.layout) {
    if (li.kind == LayoutItem::Self) break;
    switch (li.kind) {
      case LayoutItem::Align: w += "c.w.align(" + std::to_string(li.n) + ");"; break;
      case LayoutItem::Zeros: w += "c.w.reserve(" + hexs(li.n) + ");"; break;
      case LayoutItem::Children:
        w += "for (const auto& e : x." + cpp_field(li.name) + ") preplace_" + st.field(li.name)->type.st->name + "(c, e);";
        break;
      case LayoutItem::FieldTarget: place_target(st, *st.field(li.name), false, true); break;
      case LayoutItem::Self:  // not reached: the loop stops there
      case LayoutItem::Shallow:
      case LayoutItem::Pool:
        break;  // not before self (validate.cpp)
    }
  }
  w.dedent();
  w += "}\n";
}

// preplace_E / patch_E: E's targets placed before E, and E's pointers filled in later.
void CppGen::preplace_fns(const Struct& st) {
  CodeWriter& w = c_;
  w += fn_prefix() + "void preplace_" + st.name + "(WCtx& c, [[maybe_unused]] const " + st.name + "& x) {";
  w.indent();
  declare_cond_derived(st);
  for (const auto& li : st.layout) {
    switch (li.kind) {
      case LayoutItem::Align: w += "c.w.align(" + std::to_string(li.n) + ");"; break;
      case LayoutItem::Zeros: w += "c.w.reserve(" + hexs(li.n) + ");"; break;
      case LayoutItem::FieldTarget: place_target(st, *st.field(li.name), false, true); break;
      case LayoutItem::Shallow:
      case LayoutItem::Children:
      case LayoutItem::Pool:
      case LayoutItem::Self:
        break;  // not in a struct whose targets are placed before it (validate.cpp)
    }
  }
  w.dedent();
  w += "}\n";
  w += fn_prefix() + "void patch_" + st.name + "(WCtx& c, [[maybe_unused]] const " + st.name + "& x, [[maybe_unused]] uint64_t s) {";
  w.indent();
  declare_cond_derived(st);
  for (const auto& li : st.layout)
    if (li.kind == LayoutItem::FieldTarget) patch_field(st, *st.field(li.name), "x");
  w.dedent();
  w += "}\n";
}

void CppGen::place_target(const Struct& st, const Field& f, bool shallow, bool record) {
  CodeWriter& w = c_;
  (void)st;
  std::string x = f.in_model() ? "x." + cpp_field(f.name) : !f.table.order.empty() ? "tbl_" + f.name : "empty_" + f.name;
  std::string slot = field_at(st, f);
  std::string base = f.pointer.base == Field::Base::Struct ? "s" : "0";
  std::string what = "\"" + st.name + "." + f.name + "\"";
  // An array of pointers marks its region at its elements, not at the slots.
  int region = f.region.empty() || (f.pointer.elem_width && shallow) ? -1 : s_.region_id(f.region);
  uint64_t align = f.pointer.align;
  const Struct* et = f.type.kind == ValueType::Struct ? f.type.st : nullptr;
  if (!align) {
    if (f.pointer.elem_width) align = f.pointer.elem_width;
    else if (et) align = et->align;
    else if (f.type.kind == ValueType::Prim) align = prim_size(f.type.prim);
    else align = f.pointer.width;
  }
  align = std::max(align, f.pointer.scale);  // a scaled offset needs a multiple of its scale
  if (f.type.kind == ValueType::String && f.pointer.inline_pascal && !f.array.on) {
    std::string slot0 = plus("s", f.resolved.offset);
    place_pascal("x." + cpp_field(f.name), slot0, f.pointer.width, f.pointer.align ? f.pointer.align : 2, "\"" + st.name + "." + f.name + "\"", base);
    return;
  }
  if (f.type.kind == ValueType::Dic) {
    // A dictionary of the names of an array's elements, built as Nintendo's tools build it.
    w += "{  // " + f.name;
    w.indent();
    w += "std::vector<std::string_view> names;";
    w += "names.reserve(x." + cpp_field(f.keys_array) + ".size());";
    w += "for (const auto& e : x." + cpp_field(f.keys_array) + ") names.push_back(e." + cpp_field(f.keys_field) + ");";
    w += "const auto entries = binschema::dic_words(names);";
    w += "const uint64_t t = c.w.append_target(" + slot + ", 8, " + std::to_string(f.pointer.width) + ", " + base + ", " + what + ");";
    w += "c.w.reserve(8 + 0x10 * entries.size());";
    w += "c.w.bytes(t, \"DIC \", 4);";
    w += wput() + "uint32_t>(t + 4, static_cast<uint32_t>(entries.size() - 1));";
    w += "for (size_t i = 0; i < entries.size(); ++i) {";
    w += "  const uint64_t e = t + 8 + 0x10 * i;";
    w += "  " + wput() + "uint32_t>(e, entries[i].bit);";
    w += "  " + wput() + "uint16_t>(e + 4, entries[i].left);";
    w += "  " + wput() + "uint16_t>(e + 6, entries[i].right);";
    w += "  " + string_ref(f.pool, "i ? names[i - 1] : std::string_view()", "e + 8", 8);
    w += "}";
    w.dedent();
    w += "}";
    return;
  }
  w += "{  // " + f.name;
  w.indent();
  if (!f.table.order.empty()) {
    // A table (table:): built from the strings the writer collected (encode_root).
    const bool opt = f.pointer.null == Field::Null::Allowed;
    const std::string tn = f.type.st->name, en = f.table.strings->type.st->name;
    w += (opt ? "std::optional<" + tn + "> " : tn + " ") + x + ";";
    w += "if (" + std::string(opt ? "!c.tab_" + f.name + ".empty()" : "true") + ") {";
    w += "  auto& t = " + (opt ? x + ".emplace()" : x) + ";";
    w += "  t." + cpp_field(f.table.strings->name) + ".reserve(c.tab_" + f.name + ".size());";
    w += "  for (const auto& str : c.tab_" + f.name + ".strings()) {";
    w += "    " + en + " e;";
    w += "    e." + cpp_field(f.table.text->name) + " = str;";
    w += "    t." + cpp_field(f.table.strings->name) + ".push_back(std::move(e));";
    w += "  }";
    w += "}";
  } else if (!f.in_model()) {
    w += "const " + f.type.st->name + " " + x + "{};";
  }
  std::string null_branch = f.pointer.register_null && !record ? "} else {\n  c.w.record_pointer(" + slot + ", " + std::to_string(f.pointer.width) + ", true);" : "";
  if (f.pointer.null_value && f.pointer.null == Field::Null::Allowed && !f.array.on)
    null_branch = "} else {\n  c.w.put_uint(" + slot + ", " + std::to_string(f.pointer.width) + ", " + hexs(f.pointer.null_value) + "u, " + what + ");";
  // An empty array's pointer: null, or what the layout kept (the writer of the file chose).
  const bool hooked = f.resolved.fixed_offset && !record;
  if (f.array.on && f.pointer.null == Field::Null::WhenEmpty && hooked)
    null_branch = "} else {\n  c.w.empty_target(" + slot + ", " + std::to_string(f.pointer.width) + ", " + what + ", " +
                  (null_branch.empty() ? "false" : "true") + ");";
  // The size of the target when known before it is written (room in a kept layout).
  std::string size = "binschema::kUnknownSize";
  if (!f.array.on) {
    if (et && et->fixed_size) size = hexs(et->size);
  } else if (f.pointer.elem_width) {
    size = "n * " + std::to_string(f.pointer.elem_width);
  } else if (f.type.kind == ValueType::Prim) {
    size = "n * " + std::to_string(prim_size(f.type.prim));
  } else if (f.type.kind == ValueType::String) {
    size = "n * " + std::to_string(f.pointer.width);
  } else if (et && et->fixed_size) {
    size = "n * " + hexs(et->size);
  } else {
    size = "(n ? binschema::kUnknownSize : 0)";
  }
  if (f.array.on) {
    w += "const uint64_t n = " + x + ".size();";
    if (f.pointer.null == Field::Null::WhenEmpty) w += "if (n != 0) {";
    else w += "{";
    w.indent();
  } else if (f.pointer.null == Field::Null::Allowed) {
    w += "if (" + x + ") {";
    w.indent();
    x = "(*" + x + ")";
  } else {
    w += "{";
    w.indent();
  }
  const std::string ptr_args = std::to_string(f.pointer.width) + ", " + base + ", " + what +
                               (f.pointer.scale != 1 ? ", " + std::to_string(f.pointer.scale) : "");
  // Shared targets (a layout's slots that point to one block, docs §11): the
  // value, as the type every pointer to such a block names it. (A scaled
  // pointer is not shared: its encoding is the writer's place_target's.)
  const bool shares = hooked && !shallow && region < 0 && f.in_model() && !(et && et->has_self) && !(f.array.on && f.pointer.elem_width) &&
                      f.pointer.scale == 1;
  const bool leaf = shares && (f.array.on ? f.type.kind == ValueType::Prim || (et && plain_struct(*et)) : et && plain_struct(*et));
  const std::string value = f.array.on || !et ? x : "static_cast<const " + et->name + "&>(" + x + ")";
  if (!f.array.on && et && !(et->has_self) && !record)  // inline bytes at a multiple of a field's value (align: FIELD)
    for (const auto& g : et->fields)
      if (g->type.kind == ValueType::Bytes && !g->pointer.width && !g->pointer.align_field.empty())
        w += "c.w.align_inner(" + slot + ", " + x + "." + cpp_field(g->pointer.align_field) + ", " + hexs(g->resolved.offset) + ");";
  if (shares) {
    const std::string place = "const uint64_t t = c.w." + std::string(leaf ? "place_leaf(" : "place_shared(") + slot + ", " + size + ", " +
                              std::to_string(align) + ", " + ptr_args + ", " + value + "); t != binschema::kShared";
    if (f.pointer.share_equal) {
      // share: equal: an equal value written before (by any such pointer) is pointed to, not written again.
      w += "const size_t h = binschema::text::hash_value(" + value + ");";
      w += "if (const uint64_t u = c.w.equal_at(" + slot + ", " + value + ", h); u != binschema::kNotShared) {";
      w += "  c.w.pointer(" + slot + ", " + std::to_string(f.pointer.width) + ", u, " + base + ", " + what + ");";
      w += "} else if (" + place + ") {";
      w += "  c.w.note_equal(t, " + value + ", h);";
    } else {
      w += "if (" + place + ") {";
    }
    w.indent();
  }
  if (shares) {
    // placed above
  } else if (!f.array.on && et && et->has_self) {
    w += "c.w.to_end();\npre_place_" + et->name + "(c, " + x + ");";
  } else if (!record) {
    // The common case: one call places the target and fills in the pointer;
    // where the target starts is kept when something below needs it.
    const bool uses_t = shallow || (!f.array.on && et->has_children);
    const std::string t = uses_t ? "const uint64_t t = " : "";
    if (hooked) w += t + "c.w.place_target(" + slot + ", " + size + ", " + std::to_string(align) + ", " + ptr_args + ");";
    else w += t + "c.w.append_target(" + slot + ", " + std::to_string(align) + ", " + ptr_args + ");";
  } else {
    w += "c.w.to_end();";
  }
  if (record || (!f.array.on && et && et->has_self)) {
    w += "c.w.align(" + std::to_string(align) + ");";
    w += "const uint64_t t = c.w.pos();";
  }
  if (region >= 0) w += "c.w.mark_start(" + std::to_string(region) + ");";
  if (record) w += "c.placed[&x." + cpp_field(f.name) + "] = t;";
  else if (!f.array.on && et && et->has_self) w += pointer_call(f, slot, "t", base, what) + ";";
  if (shallow) w += "t_" + f.name + " = t;";
  if (!f.array.on) {
    if (et->fixed_size) w += "put_" + et->name + "(c, c.w.reserve(" + hexs(et->size) + "), " + x + ");";
    else w += "put_" + et->name + "(c, " + x + ");";
    if (et->has_children && !shallow) w += "place_" + et->name + "(c, " + x + ", t);";
  } else {
    // Element order: the model's, or sorted by a key.
    std::string elem = x + "[i]";
    if (!f.array.sort.empty()) {
      w += "std::vector<uint32_t> order(n);";
      w += "for (uint32_t i = 0; i < n; ++i) order[i] = i;";
      w += "std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return " + x + "[a]." +
           cpp_field(f.array.sort) + " < " + x + "[b]." + cpp_field(f.array.sort) + "; });";
      elem = x + "[order[i]]";
    }
    if (f.pointer.elem_width && shallow) {
      w += "c.w.reserve(n * " + std::to_string(f.pointer.elem_width) + ");  // slots; the elements come with children " + f.name;
    } else if (f.pointer.elem_width) {
      w += "const uint64_t a = c.w.reserve(n * " + std::to_string(f.pointer.elem_width) + ");";
      w += "for (uint64_t i = 0; i < n; ++i) {";
      w += std::string(et->has_children ? "  const uint64_t e = " : "  ") + "c.w.place_target(a + i * " + std::to_string(f.pointer.elem_width) + ", " + (et->fixed_size ? hexs(et->size) : std::string("0")) + ", " +
           std::to_string(et->align) + ", " + std::to_string(f.pointer.elem_width) + ", 0, " + what + ");";
      if (et->fixed_size) w += "  put_" + et->name + "(c, c.w.reserve(" + hexs(et->size) + "), " + elem + ");";
      else w += "  put_" + et->name + "(c, " + elem + ");";
      if (et->has_children) w += "  place_" + et->name + "(c, " + elem + ", e);";
      w += "}";
    } else if (f.type.kind == ValueType::Prim) {
      uint64_t sz = prim_size(f.type.prim);
      w += "const uint64_t a = c.w.reserve(n * " + std::to_string(sz) + ");";
      w += "for (uint64_t i = 0; i < n; ++i) " + store_elem(f, "a + i * " + std::to_string(sz), elem, elem_what(st.name + "." + f.name, "i"));
    } else if (f.type.kind == ValueType::String) {
      w += "const uint64_t a = c.w.reserve(n * " + std::to_string(f.pointer.width) + ");";
      w += "for (uint64_t i = 0; i < n; ++i) " + string_ref(f.pool, elem, "a + i * " + std::to_string(f.pointer.width), f.pointer.width);
    } else if (et->fixed_size) {
      w += "const uint64_t a = c.w.reserve(n * " + hexs(et->size) + ");";
      w += "for (uint64_t i = 0; i < n; ++i) put_" + et->name + "(c, a + i * " + hexs(et->size) + ", " + elem + ");";
      if (et->has_children && !shallow)
        w += "for (uint64_t i = 0; i < n; ++i) place_" + et->name + "(c, " + elem + ", a + i * " + hexs(et->size) + ");";
    } else {
      w += "std::vector<uint64_t> starts(n);";
      w += "for (uint64_t i = 0; i < n; ++i) starts[i] = put_" + et->name + "(c, " + elem + ");";
      if (et->has_children) w += "for (uint64_t i = 0; i < n; ++i) place_" + et->name + "(c, " + elem + ", starts[i]);";
    }
  }
  if (region >= 0) w += "c.w.mark_end(" + std::to_string(region) + ");";
  if (leaf) w += "c.w.leaf_done(t);";
  if (shares) {
    w.dedent();
    w += "}";
  }
  w.dedent();
  if (!null_branch.empty()) w += null_branch;
  w += "}";
  w.dedent();
  w += "}";
}

}  // namespace binschema::gen::cpp

namespace binschema::gen::cpp {

// collect_T(c, x): every string T's index_of: fields hold (through its
// inline structs and arrays, pointers, element pointers and union cases),
// added to its table in c; encode_root orders the tables before writing.
void CppGen::collect_fn(const Struct& st) {
  CodeWriter& w = c_;
  w += fn_prefix() + "void collect_" + st.name + "([[maybe_unused]] WCtx& c, [[maybe_unused]] const " + st.name + "& x) {";
  w.indent();
  auto call = [&](const Field& f, const std::string& v) -> std::string {
    if (!f.table.index_of.empty()) return "c.tab_" + f.table.index_of + ".add(" + v + ");";
    if (f.type.kind == ValueType::Struct && f.type.st && reaches_index(*f.type.st))
      return "collect_" + f.type.st->name + "(c, " + v + ");";
    return "";
  };
  for (const auto& fp : st.fields) {
    const Field& f = *fp;
    if (!f.in_model()) continue;
    const std::string x = "x." + cpp_field(f.name);
    if (f.type.kind == ValueType::Union) {
      std::string body;
      const std::string base = elem_type(f, &st) + "::Base";
      CodeWriter sw;
      bool any = false;
      for (size_t i = 0; i < f.variant.cases.size(); ++i) {
        const std::string one = call(*f.variant.cases[i].field, "std::get<" + std::to_string(i) + ">(static_cast<const " + base + "&>(u))");
        if (one.empty()) continue;
        any = true;
        body += "    case " + std::to_string(i) + ": " + one + " break;\n";
      }
      if (!any) continue;
      const std::string sw_code = "switch (u.index()) {\n" + body + "    default: break;\n  }";
      if (f.array.on) w += "for (const auto& u : " + x + ") {\n  " + sw_code + "\n}";
      else w += "{\n  const auto& u = " + x + ";\n  " + sw_code + "\n}";
      continue;
    }
    if (!f.table.index_of.empty()) {
      w += call(f, x);
      continue;
    }
    if (f.type.kind != ValueType::Struct || !f.type.st || !reaches_index(*f.type.st)) continue;
    if (f.array.on) {
      w += "for (const auto& e : " + x + ") " + call(f, "e");
    } else if (f.pointer.width && f.pointer.null == Field::Null::Allowed) {
      w += "if (" + x + ") " + call(f, "*" + x);
    } else {
      w += call(f, x);
    }
  }
  w.dedent();
  w += "}\n";
}

}  // namespace binschema::gen::cpp
