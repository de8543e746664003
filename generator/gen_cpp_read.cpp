// C++ back end, the reader: read_T(r, s, x) checks a struct's bytes once,
// loads its inline fields (read_field, a switch on the field's shape), then
// follows its pointers (read_target).
#include "gen_cpp.h"

namespace binschema::gen::cpp {

// ---- The byte map's trace (binschema/trace.h): calls made only when r.tr is set.
namespace {
std::string tr_str(const std::string& s) { return "\"" + s + "\""; }
const char* uint_name(int width) { return width == 8 ? "u64" : width == 2 ? "u16" : width == 1 ? "u8" : "u32"; }
bool tr_reserved(const Field& f) { return (f.role.const_int && *f.role.const_int == 0) || (f.role.const_text && f.role.const_text->empty()); }
// The node of a field at a fixed offset whose bytes the struct's check covers
// (no reads of its own): reported once per struct, at its start. "" otherwise.
std::string tr_simple_leaf(const Field& f, const std::string& at) {
  std::string kind, type;
  switch (f.kind) {
    case FieldKind::Scalar: kind = tr_reserved(f) ? "Padding" : "Number"; type = prim_name(f.type.prim); break;
    case FieldKind::BitWord: kind = "Bits"; type = prim_name(f.type.prim); break;
    case FieldKind::Chars: kind = tr_reserved(f) ? "Padding" : "Chars"; type = "char"; break;
    case FieldKind::Pointer:
    case FieldKind::ArrayPointer:
    case FieldKind::PooledString:
    case FieldKind::OwnString:
    case FieldKind::BlockRef:
    case FieldKind::Dic: kind = "Pointer"; type = uint_name(f.pointer.width); break;
    case FieldKind::InlineArray:
      if (f.type.kind != ValueType::Prim || !f.array.fixed_count) return "";
      kind = "Array"; type = prim_name(f.type.prim); break;
    case FieldKind::InlineStruct:  // the struct's own tr_T finds this node (Trace::open)
      return "r.tr->leaf(" + tr_str(f.name) + ", binschema::TraceKind::Field, " + at + ", " + hexs(f.resolved.size) + ", nullptr);";
    default: return "";
  }
  return "r.tr->leaf(" + tr_str(f.name) + ", binschema::TraceKind::" + kind + ", " + at + ", " + hexs(f.resolved.size) + ", " + tr_str(type) + ");";
}
// The kind of the node around a field read in place (at the cursor, or one with reads of its own).
std::string tr_open_kind(const Field& f) {
  switch (f.kind) {
    case FieldKind::InlineArray:
    case FieldKind::ElemPointers:
    case FieldKind::StringOffsets: return "Array";
    case FieldKind::Union: return "Union";
    case FieldKind::Bytes: return "Bytes";
    case FieldKind::PoolBlock: return "Pool";
    case FieldKind::Scalar: return tr_reserved(f) ? "Padding" : "Number";
    case FieldKind::BitWord: return "Bits";
    case FieldKind::Chars: return tr_reserved(f) ? "Padding" : "Chars";
    case FieldKind::Pointer:
    case FieldKind::ArrayPointer:
    case FieldKind::PooledString:
    case FieldKind::OwnString:
    case FieldKind::BlockRef:
    case FieldKind::Dic: return "Pointer";
    default: return "Field";
  }
}
std::string tr_open_type(const Field& f) {
  if (f.type.kind == ValueType::Prim) return tr_str(prim_name(f.type.prim));
  if (f.kind == FieldKind::Chars) return "\"char\"";
  if (f.pointer.width && f.kind != FieldKind::Slice && f.kind != FieldKind::Union) return tr_str(uint_name(f.pointer.width));
  return "nullptr";
}
}  // namespace

// C++ for an expression on the read side: names are the locals f_<name>
// (of struct rs_), bit fields are taken out of them, context names come
// from the reader.
std::string CppGen::read_expr(const Expr& e) const {
  switch (e.kind) {
    case Expr::Int: return std::to_string(e.value);
    case Expr::Ident: {
      size_t dot = e.name.find('.');
      if (dot != std::string::npos) {
        const Field* f = rs_->field(e.name.substr(0, dot));
        unsigned shift = 0;
        for (const auto& b : f->bits) {
          if (b.name == e.name.substr(dot + 1))
            return "((uint64_t(f_" + f->name + ") >> " + std::to_string(shift) + ") & " + hexs(b.width >= 64 ? ~0ull : (1ull << b.width) - 1) + "ull)";
          shift += b.width;
        }
      }
      if (!rs_->field(e.name)) return "r.g_" + e.name;
      return "f_" + e.name;
    }
    case Expr::Unary: return "(" + e.name + read_expr(e.args[0]) + ")";
    case Expr::Binary:
      if (e.name == "-")  // checked: a count of 0 - 1 is an error, not 2^64 - 1
        return "binschema::minus_(" + read_expr(e.args[0]) + ", " + read_expr(e.args[1]) + ", " + cpp_string_literal(expr_text(e)) + ", s)";
      return "(" + read_expr(e.args[0]) + " " + e.name + " " + read_expr(e.args[1]) + ")";
    case Expr::Ternary: return "(" + read_expr(e.args[0]) + " ? " + read_expr(e.args[1]) + " : " + read_expr(e.args[2]) + ")";
    case Expr::Call:
      if (e.fn == Fn::Until) return "until_(o, " + read_expr(e.args[0]) + ")";
      if (e.fn == Fn::FileSize) return "uint64_t(r.size())";
      if (e.fn == Fn::Max || e.fn == Fn::Sum) {
        const Field* arr = e.args[0].kind == Expr::Ident ? rs_->field(e.args[0].name) : nullptr;
        // Over an array read already: its elements are in the model.
        if (arr && arr->array.on) return write_expr(*rs_, e, "x");
        return "std::max<uint64_t>(" + read_expr(e.args[0]) + ", " + read_expr(e.args[1]) + ")";
      }
      break;  // no other function where the reader evaluates (validate.cpp)
  }
  return "";
}

// Notes a pointer slot for pointer_slots() (formats with a relocation table).
std::string CppGen::note_slot(const std::string& at) const {
  return s_.relocation_table ? "if (r.slots) r.slots->push_back(" + at + ");" : "";
}

// decode(bytes, layout): where the target of f (at a fixed offset of its struct) is.
std::string CppGen::note_layout(const Field& f, const std::string& target) const {
  return "if (r.lay) r.lay->note(" + plus("s", f.resolved.offset) + ", " + target + ");";
}

// Reads one inline field; `o` is where it starts ("o" when at the cursor).
void CppGen::read_field(const Struct& st, const Field& f, const std::string& o, bool cursor, std::vector<const Field*>& targets) {
  CodeWriter& w = c_;
  if (f.kind == FieldKind::Virtual) return;  // filled in from the dictionary that holds it
  if (cursor && f.resolved.fixed_size) w += "r.need(o, " + hexs(f.resolved.size) + ");";
  switch (f.kind) {
    case FieldKind::Virtual: break;
    case FieldKind::Pointer:
    case FieldKind::ArrayPointer:
    case FieldKind::PooledString:
    case FieldKind::OwnString:
    case FieldKind::BlockRef:
    case FieldKind::Dic:
      // The pointer word; its target is read after the inline fields (read_target).
      // scale: N: the word holds the offset in units of N bytes.
      w += "f_" + f.name + " = " + (f.pointer.scale != 1 ? "uint64_t(" : "") + rget() + raw_uint(f.pointer.width) + ">(" + o + ")" +
           (f.pointer.scale != 1 ? ") * " + std::to_string(f.pointer.scale) : "") + ";";
      if (f.pointer.width == 8 && f.pointer.base == Field::Base::File && !f.pointer.points_to_chars) w += note_slot(o);
      // A string of a scoped pool is read here, in field order as the writer
      // refers to it: the pool's block may follow in this same struct.
      if (const Pool* p = f.kind == FieldKind::PooledString ? s_.pool(f.pool) : nullptr; p && !p->scope.empty()) read_target(f);
      else targets.push_back(&f);
      break;
    case FieldKind::Scalar:
    case FieldKind::BitWord: read_scalar(f, o); break;
    case FieldKind::Chars: read_chars(f, o); break;
    case FieldKind::Bytes: read_bytes(f); break;
    case FieldKind::Slice: {
      // Begin and end from the data pool's start; the reader checks the
      // slices' places once the whole file is read (check_slices).
      w.line("{\n"
             "  const uint64_t b = {{GET}}{{T}}>({{O}}), e = {{GET}}{{T}}>({{O}} + {{W}});\n"
             "  if (b > e || r.base_{{POOL}} + e > r.size())\n"
             "    fail({{O}}, \"{{NAME}}\", \"slice \" + hex(b) + \"..\" + hex(e) + \" of pool {{POOL}} (from \" + hex(r.base_{{POOL}}) + \") is not inside the file (\" + hex(r.size()) + \" bytes)\");\n"
             "  {{X}}.data.assign(r.data() + r.base_{{POOL}} + b, r.data() + r.base_{{POOL}} + e);\n"
             "  if (r.tr) [[unlikely]] {\n"
             "    r.tr->leaf(\"{{NAME}}\", binschema::TraceKind::Pointer, {{O}}, {{W2}}, \"{{UT}}\");\n"
             "    r.tr->nodes.back().target = r.base_{{POOL}} + b;\n"
             "    r.tr->leaf(\"{{NAME}}\", binschema::TraceKind::Data, r.base_{{POOL}} + b, e - b, \"bytes\");\n"
             "  }\n"
             "  r.slices_{{POOL}}.push_back({r.base_{{POOL}} + b, r.base_{{POOL}} + e, {{O}}, {{ALIGN}}});\n"
             "}",
             {{"O", o}, {"GET", rget()}, {"T", raw_uint(f.pointer.width)}, {"W", std::to_string(f.pointer.width)}, {"POOL", f.pool}, {"NAME", f.name},
              {"W2", std::to_string(2 * f.pointer.width)}, {"UT", uint_name(f.pointer.width)},
              {"X", "x." + cpp_field(f.name)},
              {"ALIGN", f.pointer.align_field.empty() ? "nullptr" : "&x." + cpp_field(f.pointer.align_field)}});
      break;
    }
    case FieldKind::PoolBlock:
      if (placed_pool(*s_.pool(f.pool))) read_placed_pool(f);
      else read_bytes(f);
      break;
    case FieldKind::CString:
      w.line("try {\n"
             "  {{X}} = std::string(r.cstring(o));\n"
             "} catch (DecodeError& e) { e.push_field(\"{{NAME}}\"); throw; }\n"
             "o += {{X}}.size() + 1;",
             {{"X", "x." + cpp_field(f.name)}, {"NAME", f.name}});
      if (f.pad) {
        // Zeros up to a multiple of `pad:`: anything else would not be written back.
        w.line("{\n"
               "  const uint64_t end = (o + {{PAD}} - 1) / {{PAD}} * {{PAD}};\n"
               "  r.need(o, end - o);\n"
               "  for (uint64_t i = o; i < end; ++i)\n"
               "    if (r.data()[i] != 0) fail(i, \"{{NAME}}\", \"padding byte \" + hex(r.data()[i]) + \" after the string is not zero\");\n"
               "  o = end;\n"
               "}",
               {{"PAD", std::to_string(f.pad)}, {"NAME", f.name}});
      }
      break;
    case FieldKind::InlineStruct: read_inline_struct(st, f, o); break;
    case FieldKind::InlineArray:
      read_inline_array(f, o, cursor);
      if (f.pad)
        // Zeros up to a multiple of `pad:`: anything else would not be written back.
        w.line("{\n"
               "  const uint64_t end = (o + {{PAD}} - 1) / {{PAD}} * {{PAD}};\n"
               "  r.need(o, end - o);\n"
               "  for (uint64_t i = o; i < end; ++i)\n"
               "    if (r.data()[i] != 0) fail(i, \"{{NAME}}\", \"padding byte \" + hex(r.data()[i]) + \" after the array is not zero\");\n"
               "  o = end;\n"
               "}",
               {{"PAD", std::to_string(f.pad)}, {"NAME", f.name}});
      break;
    case FieldKind::StringOffsets: read_string_offsets(f); break;
    case FieldKind::ElemPointers: read_elem_pointers(f, o, cursor); break;
    case FieldKind::OwnStrings: break;  // only a union case (validate.cpp): see read_union
    case FieldKind::Union: read_union(f, o); break;
  }
  if (cursor && f.resolved.fixed_size) w += "o += " + hexs(f.resolved.size) + ";";
}

// A number, a bool or a bit word: the raw value goes to f_NAME (for counts,
// tags and conditions), checked against const:, valid: and file_size().
void CppGen::read_scalar(const Field& f, const std::string& o) {
  CodeWriter& w = c_;
  std::string x = "x." + cpp_field(f.name);
  if (f.bom)  // the mark's two bytes, first byte high, whatever the byte order (FE FF: 0xFEFF)
    w += "f_" + f.name + " = uint16_t(r.data()[" + o + "] << 8 | r.data()[" + o + " + 1]);";
  else
    w += "f_" + f.name + " = " + load(f, o) + ";";
  if (f.role.derive_pointer && prim_size(f.type.prim) == 8) w += note_slot(o);
  if (f.role.derive) {
    // derive: start(P) (or start(P) - start(self)) of a string pool without
    // base: the file says where the pool starts; the layout's pool order
    // counts from there (layout.h note_pool_start), so that strings before
    // the first one a field reads are kept in their place.
    const Expr& d = *f.role.derive;
    const Expr* st = d.calls(Fn::Start) ? &d
                     : d.kind == Expr::Binary && d.name == "-" && d.args.size() == 2 && d.args[0].calls(Fn::Start) &&
                               d.args[1].calls(Fn::Start) && !d.args[1].args.empty() && d.args[1].args[0].name == "self"
                         ? &d.args[0]
                         : nullptr;
    if (st && !st->args.empty())
      for (size_t i = 0; i < s_.pools.size(); ++i)
        if (s_.pools[i].name == st->args[0].name && s_.pools[i].base.empty() && layout_pool(s_.pools[i]))
          w += "if (r.lay) [[unlikely]] r.lay->note_pool_start(" + std::to_string(i) + ", uint64_t(f_" + f.name + ")" +
               (st == &d ? "" : " + s") + ");";
  }
  if (f.role.derive && checks_file_size(*f.role.derive))
    w += "if (uint64_t(f_" + f.name + ") != uint64_t(" + read_expr(*f.role.derive) + ")) fail(" + o + ", \"" + f.name +
         "\", \"says \" + hex(f_" + f.name + ") + \" but the file has \" + hex(r.size()) + \" bytes\");";
  if (!f.role.also.empty()) {
    // A derived value with accepted alternatives: checked, and the file's kept by the layout.
    std::string cond, list;
    for (int64_t v : f.role.also) {
      cond += " && uint64_t(f_" + f.name + ") != " + std::to_string(v) + "u";
      list += ", " + hexs(static_cast<uint64_t>(v));
    }
    w += "if (const uint64_t d = uint64_t(" + read_expr(*f.role.derive) + "); uint64_t(f_" + f.name + ") != d) {";
    w += "  if (true" + cond + ") fail(" + o + ", \"" + f.name + "\", \"expected \" + hex(d) + \" (or" + list.substr(1) + "), found \" + hex(f_" + f.name + "));";
    w += "  if (r.lay) r.lay->note(" + o + ", f_" + f.name + ");";
    w += "}";
  }
  if (f.role.const_int)
    w += "if (f_" + f.name + " != " + std::to_string(*f.role.const_int) + ") fail(" + o + ", \"" + f.name +
         "\", \"expected " + std::to_string(*f.role.const_int) + ", found \" + std::to_string(f_" + f.name + "));";
  // zero_when_empty: 0 while the array is empty, or what the file has there (kept by the layout).
  const std::string empty0 = f.role.zero_when_empty.empty() ? "" : "f_" + f.role.zero_when_empty + " == 0 && f_" + f.name + " == 0";
  if (!empty0.empty())
    w += "if (f_" + f.role.zero_when_empty + " == 0 && f_" + f.name + " != 0 && r.lay) r.lay->note(" + o + ", f_" + f.name + ");";
  if (!f.role.valid.empty()) {
    std::string cond = empty0.empty() ? "" : "!(" + empty0 + ")", list;
    for (int64_t v : f.role.valid) {
      cond += (cond.empty() ? "" : " && ") + std::string("f_") + f.name + " != " + std::to_string(v);
      list += (list.empty() ? "" : ", ") + (f.spell.hex && v >= 0 ? hexs(static_cast<uint64_t>(v)) : std::to_string(v));
    }
    std::string shown = f.spell.hex ? "hex(f_" + f.name + ")" : "std::to_string(f_" + f.name + ")";
    // A version of the file (version_fields:) says so.
    bool is_version = rs_ && rs_->name == s_.root &&
                      std::find(s_.version_fields.begin(), s_.version_fields.end(), f.name) != s_.version_fields.end();
    if (is_version)
      w += "if (" + cond + ") fail(" + o + ", \"" + f.name + "\", \"unsupported version \" + " + shown + " + \" (supported: " + list + ")\");";
    else
      w += "if (" + cond + ") fail(" + o + ", \"" + f.name + "\", \"value \" + " + shown + " + \" is not one of " + list + "\");";
  }
  if (!f.in_model()) return;
  if (!f.table.index_of.empty()) {  // an index into a table of the root: the model holds its string
    w += x + " = r.tab_" + f.table.index_of + ".at(f_" + f.name + ", " + o + ", \"" + f.name + "\", \"" + f.table.index_of + "\");";
    return;
  }
  if (f.type.prim == Prim::Bool8 || f.type.prim == Prim::Bool32) {
    w += read_bool(f, "f_" + f.name, o, f.name);
    w += x + " = f_" + f.name + " != 0;";
  } else if (f.kind == FieldKind::BitWord) {
    unsigned shift = 0;
    for (const auto& b : f.bits) {
      std::string mask = b.width >= 64 ? "~0ull" : hexs((1ull << b.width) - 1) + "ull";
      std::string v = "((uint64_t(f_" + f.name + ") >> " + std::to_string(shift) + ") & " + mask + ")";
      if (!b.pool.empty()) {
        if (b.scale > 1) v = "(" + v + " * " + std::to_string(b.scale) + ")";  // scale: N
        if (placed_pool(*s_.pool(b.pool)))  // the pool's field checks where the strings are
          w += "try { " + x + "." + cpp_field(b.name) + " = std::string(" + pool_read(b.pool, v) + "); r.refs_" + b.pool + ".emplace_back(" +
               pool_base(b.pool) + v + ", " + x + "." + cpp_field(b.name) + ".size()); }";
        else
          w += "try { " + x + "." + cpp_field(b.name) + " = std::string(" + pool_read(b.pool, v) + "); }";
        w += "catch (DecodeError& e) { e.push_field(\"" + b.name + "\"); e.push_field(\"" + f.name + "\"); throw; }";
      } else {
        w += x + "." + cpp_field(b.name) + " = " + (b.is_bool ? v + " != 0" : "static_cast<" + std::string(bits_cpp(b.width)) + ">(" + v + ")") + ";";
      }
      shift += b.width;
    }
  } else if (!empty0.empty()) {
    w += "if (!(" + empty0 + ")) " + x + " = f_" + f.name + ";";
  } else {
    w += x + " = f_" + f.name + ";";
  }
}

void CppGen::read_chars(const Field& f, const std::string& o) {
  CodeWriter& w = c_;
  const std::string n = std::to_string(f.type.chars);
  if (f.role.const_text) {
    w.line("if (r.chars({{O}}, {{N}}) != {{WANT}})\n"
           "  fail({{O}}, \"{{NAME}}\", \"expected \\\"\" + std::string({{WANT}}) + \"\\\", found \\\"\" + std::string(r.chars({{O}}, {{N}})) + \"\\\"\");",
           {{"O", o}, {"N", n}, {"NAME", f.name}, {"WANT", cpp_string_literal(*f.role.const_text)}});
  } else {
    w.line("{{X}} = std::string(r.chars({{O}}, {{N}}));", {{"X", "x." + cpp_field(f.name)}, {"O", o}, {"N", n}});
  }
}

// bytes: kept as they are; a scoped pool's block: checked to be exactly the
// strings referenced so far, in order (the only form written back).
void CppGen::read_bytes(const Field& f) {
  CodeWriter& w = c_;
  std::string x = "x." + cpp_field(f.name);
  std::string n = f.size_rest ? "until_(o, end)" : read_expr(*f.size_expr);
  w += "{";
  w.indent();
  w += "const uint64_t n = " + n + ";";
  w += "r.need(o, n);";
  if (f.kind == FieldKind::Bytes) {
    w += x + ".data.assign(r.data() + o, r.data() + o + n);";
  } else {
    w.line("uint64_t p = o;\n"
           "for (const auto& [at, len] : r.refs_{{POOL}}) {\n"
           "  if (at != p) fail(o, \"{{NAME}}\", \"the block is not the referenced strings in order (string at \" + hex(at) + \", expected \" + hex(p) + \")\");\n"
           "  p += len + 1;\n"
           "}\n"
           "if (p != o + n) fail(o, \"{{NAME}}\", \"the block holds \" + hex(n) + \" bytes, its strings \" + hex(p - o));",
           {{"POOL", f.pool}, {"NAME", f.name}});
  }
  w += "o += n;";
  w.dedent();
  w += "}";
}

// A string pool placed here (its base:): the strings read so far must be
// where the writer would put them, in order of first use, each padded with
// zeros to the pool's alignment; the cursor moves past the last.
void CppGen::read_placed_pool(const Field& f) {
  CodeWriter& w = c_;
  const Pool& p = *s_.pool(f.pool);
  w.line("{\n"
         "  r.need(o, r.base_{{POOL}} - o);\n"
         "  for (uint64_t i = o; i < r.base_{{POOL}}; ++i)\n"
         "    if (r.data()[i] != 0) fail(i, \"{{NAME}}\", \"padding byte \" + hex(r.data()[i]) + \" before the pool is not zero\");\n"
         "  uint64_t p = r.base_{{POOL}};\n"
         "  std::unordered_map<std::string_view, uint64_t> seen;\n"
         "  for (const auto& [at, len] : r.refs_{{POOL}}) {\n"
         "    const std::string_view t(reinterpret_cast<const char*>(r.data()) + at, len);\n"
         "    if (const auto it = seen.find(t); it != seen.end()) {\n"
         "      if (it->second != at) fail(at, \"{{NAME}}\", \"the string '\" + std::string(t) + \"' is stored twice (first at \" + hex(it->second) + \"): the writer stores it once\");\n"
         "      continue;\n"
         "    }\n"
         "    if (at != p) fail(at, \"{{NAME}}\", \"string at \" + hex(at) + \", but the writer would put it at \" + hex(p) + \" (in order of first use, each padded to {{ALIGN}})\");\n"
         "    seen.emplace(t, at);\n"
         "    const uint64_t end = (at + len + 1 + {{ALIGN}} - 1) / {{ALIGN}} * {{ALIGN}};\n"
         "    r.need(at, end - at);\n"
         "    for (uint64_t i = at + len + 1; i < end; ++i)\n"
         "      if (r.data()[i] != 0) fail(i, \"{{NAME}}\", \"padding byte \" + hex(r.data()[i]) + \" after a string is not zero\");\n"
         "    p = end;\n"
         "  }\n"
         "  o = std::max(p, r.base_{{POOL}});\n"
         "}",
         {{"POOL", p.name}, {"NAME", f.name}, {"ALIGN", std::to_string(p.align)}});
}

void CppGen::read_inline_struct(const Struct& st, const Field& f, const std::string& o) {
  CodeWriter& w = c_;
  std::string x = "x." + cpp_field(f.name);
  std::string dst = f.in_model() ? x : "tmp_" + f.name;
  if (!f.in_model()) w += f.type.st->name + " tmp_" + f.name + ";";
  w += "try {";
  std::string end = st.needs_end ? "end" : "r.size()";
  if (f.type.st->fixed_size) w += "  " + read_call(*f.type.st, o, dst, end) + ";";
  else w += "  o = " + read_call(*f.type.st, o, dst, end) + ";";
  w += "} catch (DecodeError& e) { e.push_field(\"" + f.name + "\"); throw; }";
}

// Inline array of pointers, each to one element.
void CppGen::read_elem_pointers(const Field& f, const std::string& o, bool cursor) {
  CodeWriter& w = c_;
  std::string x = "x." + cpp_field(f.name);
  w += "try {";
  w.indent();
  w += "const uint64_t n = " + (f.array.fixed_count ? std::to_string(*f.array.fixed_count) : read_expr(*f.array.count)) + ";";
  w += "r.need_array(" + o + ", n, " + std::to_string(f.pointer.elem_width) + ");";
  if (!f.array.fixed_count) w += x + ".resize(n);";
  w += "for (uint64_t i = 0; i < n; ++i) {";
  w += "  const uint64_t e = " + rget() + raw_uint(f.pointer.elem_width) + ">(" + o + " + i * " + std::to_string(f.pointer.elem_width) + ");";
  if (s_.relocation_table) w += "  " + note_slot(o + " + i * " + std::to_string(f.pointer.elem_width));
  w += "  try {";
  w += "    r.need_target(e, 1);";
  w += "    " + read_call(*f.type.st, "e", x + "[i]") + ";";
  w += "  } catch (DecodeError& err) { err.push_index(i); throw; }";
  w += "}";
  if (cursor) w += "o += n * " + std::to_string(f.pointer.elem_width) + ";";
  w.dedent();
  w += "} catch (DecodeError& e) { e.push_field(\"" + f.name + "\"); throw; }";
}

// Inline array of u32 string offsets.
void CppGen::read_string_offsets(const Field& f) {
  CodeWriter& w = c_;
  std::string x = "x." + cpp_field(f.name);
  w += "try {";
  w.indent();
  w += "const uint64_t n = " + (f.array.fixed_count ? std::to_string(*f.array.fixed_count) : read_expr(*f.array.count)) + ";";
  w += "r.need_array(o, n, 4);";
  if (!f.array.fixed_count) w += x + ".resize(n);";
  w += "for (uint64_t i = 0; i < n; ++i) {";
  const Pool* pool = s_.pool(f.pool);
  if (!pool->scope.empty()) {
    // Offsets from the start of the scope's struct, each string noted for the pool's check (read_bytes).
    w += "  const uint64_t t = r.scope_" + pool->scope + " + " + rget() + "uint32_t>(o + i * 4);";
    w += "  try { " + x + "[i] = std::string(r.cstring(t)); }";
    w += "  catch (DecodeError& e) { e.push_index(i); throw; }";
    w += "  r.refs_" + pool->name + ".emplace_back(t, " + x + "[i].size());";
  } else {
    w += "  try { " + x + "[i] = std::string(" + pool_read(f.pool, rget() + "uint32_t>(o + i * 4)") + "); }";
    w += "  catch (DecodeError& e) { e.push_index(i); throw; }";
  }
  w += "}";
  w += "o += n * 4;";
  w.dedent();
  w += "} catch (DecodeError& e) { e.push_field(\"" + f.name + "\"); throw; }";
}

// Inline array of numbers or structs. One of fixed size (T[N] of fixed-size
// elements) is read at `o` element by element, leaving the cursor to the
// caller; any other follows the cursor.
void CppGen::read_inline_array(const Field& f, const std::string& o, bool cursor) {
  CodeWriter& w = c_;
  std::string x = f.resolved.tag_for.empty() ? "x." + cpp_field(f.name) : "f_" + f.name;  // the tags of a union[]: a local
  const Struct* et = f.type.kind == ValueType::Struct ? f.type.st : nullptr;
  if (!f.table.offsets_of.empty()) {
    // A table's offsets (offsets_of:): the writer computes them from the strings;
    // a file with others is not given back (decode(bytes, layout) refuses it).
    w += "{";
    w += "  const uint64_t n = " + read_expr(*f.array.count) + ";";
    w += "  r.need_array(o, n, " + std::to_string(prim_size(f.type.prim)) + ");";
    w += "  o += n * " + std::to_string(prim_size(f.type.prim)) + ";";
    w += "}";
    return;
  }
  if (!et && f.array.fixed_count && !cursor) {
    w += "for (size_t i = 0; i < " + std::to_string(*f.array.fixed_count) + "; ++i) " +
         load_elem(f, o + " + i * " + std::to_string(prim_size(f.type.prim)), x + "[i]");
    return;
  }
  if (f.resolved.fixed_size) {
    // T[N] of fixed-size elements at `o`; the caller moves the cursor past it.
    const uint64_t size = et ? et->size : prim_size(f.type.prim);
    w += "for (size_t i = 0; i < " + std::to_string(*f.array.fixed_count) + "; ++i) {";
    w.indent();
    if (!et) {
      w += load_elem(f, o + " + i * " + std::to_string(size), x + "[i]");
    } else {
      std::string next = "r.size()";
      if (extent_field(*et))
        next = "i + 1 < " + std::to_string(*f.array.fixed_count) + " ? " + next_target(*et, o + " + (i + 1) * " + hexs(size)) + " : r.size()";
      w += "try { " + read_call(*et, o + " + i * " + hexs(size), x + "[i]", "r.size()", next) + "; }";
      w += "catch (DecodeError& e) { e.push_index(i); e.push_field(\"" + f.name + "\"); throw; }";
    }
    w.dedent();
    w += "}";
    return;
  }
  // Elements one after the other from the cursor.
  uint64_t min = et ? (et->fixed_size ? et->size : std::max<uint64_t>(et->prefix, 1)) : prim_size(f.type.prim);
  w += "try {";
  w.indent();
  w += "const uint64_t n = " + (f.array.fixed_count ? std::to_string(*f.array.fixed_count) : read_expr(*f.array.count)) + ";";
  w += "r.need_array(o, n, " + hexs(min) + ");";
  if (!f.array.fixed_count) w += x + ".resize(n);";
  w += "for (uint64_t i = 0; i < n; ++i) {";
  w.indent();
  if (!et) {
    w += load_elem(f, "o", x + "[i]");
    w += "o += " + std::to_string(prim_size(f.type.prim)) + ";";
  } else {
    w += "try {";
    std::string next = "r.size()";
    if (extent_field(*et)) next = "i + 1 < n ? " + next_target(*et, plus("o", et->size)) + " : r.size()";
    if (et->fixed_size) w += "  " + read_call(*et, "o", x + "[i]", "r.size()", next) + ";\n  o += " + hexs(et->size) + ";";
    else w += "  o = " + read_call(*et, "o", x + "[i]", "r.size()", next) + ";";
    if (!f.array.sort.empty() && !et->field(f.array.sort)->table.index_of.empty()) {
      // sort: by a string of a sorted table (index_of:): the strings' order is the indices' order.
      const std::string k = cpp_field(f.array.sort);
      w += "  if (i > 0 && !(" + x + "[i - 1]." + k + " < " + x + "[i]." + k + "))";
      w += "    fail(o - " + hexs(et->size) + ", \"" + f.array.sort + "\", \"not sorted: '\" + " + x + "[i]." + k + " + \"' after '\" + " + x +
           "[i - 1]." + k + " + \"' (the writer puts the elements in order of " + f.array.sort + ", each once)\");";
    } else if (!f.array.sort.empty()) {
      // sort: the writer puts the elements in key order; any other order would not be written back.
      w += "  [[maybe_unused]] const R& c = r;  // context values, as the writer names them";
      w += "  auto key = [&](const " + et->name + "& e) -> uint64_t { return " + sort_key(*et, f.array.sort, "e") + "; };";
      w += "  if (i > 0 && key(" + x + "[i]) < key(" + x + "[i - 1]))";
      w += "    fail(o - " + hexs(et->size) + ", \"" + f.array.sort + "\", \"not sorted: \" + hex(key(" + x + "[i])) + \" after \" + hex(key(" + x +
           "[i - 1])) + \" (the writer puts the elements in order of " + f.array.sort + ")\");";
    }
    w += "} catch (DecodeError& e) { e.push_index(i); throw; }";
  }
  w.dedent();
  w += "}";
  w.dedent();
  w += "} catch (DecodeError& e) { e.push_field(\"" + f.name + "\"); throw; }";
}

const Field* CppGen::extent_field(const Struct& st) {
  for (const auto& f : st.fields)
    if (f->pointer.extent_next) return f.get();
  return nullptr;
}

// Extra reader parameters: the block's end (for `size: rest`) and the end
// of the target of an `extent: next` pointer.
std::string CppGen::read_params(const Struct& st) {
  std::string p;
  if (st.needs_end) p += ", uint64_t end";
  if (extent_field(st)) p += ", uint64_t next";
  return p;
}

// read_T(r, at, dst, ...) with the bounds it takes.
std::string CppGen::read_call(const Struct& st, const std::string& at, const std::string& dst, const std::string& end, const std::string& next) {
  std::string c = "read_" + st.name + "(r, " + at + ", " + dst;
  if (st.needs_end) c += ", " + end;
  if (extent_field(st)) c += ", " + next;
  return c + ")";
}

// Where the target of element i + 1's `extent: next` pointer starts (the
// end of element i's target), for fixed-size elements at `first` + i * size.
std::string CppGen::next_target(const Struct& et, const std::string& elem_i_plus_1) const {
  const Field* f = extent_field(et);
  std::string base = f->pointer.base == Field::Base::Struct ? "(" + elem_i_plus_1 + ") + " : "";
  return base + rget() + raw_uint(f->pointer.width) + ">(" + elem_i_plus_1 + " + " + hexs(f->resolved.offset) + ")";
}

bool CppGen::recursive(const Struct& st) const {
  std::set<const Struct*> seen;
  std::function<bool(const Struct&)> reaches = [&](const Struct& from) {
    for (const auto& f : from.fields) {
      std::vector<const Struct*> held;
      if (f->type.kind == ValueType::Struct && f->type.st) held.push_back(f->type.st);
      for (const auto& c : f->variant.cases)
        if (c.field->type.kind == ValueType::Struct && c.field->type.st) held.push_back(c.field->type.st);
      for (const Struct* h : held) {
        if (h == &st) return true;
        if (seen.insert(h).second && reaches(*h)) return true;
      }
    }
    return false;
  };
  return reaches(st);
}

void CppGen::read_fn(const Struct& st) {
  CodeWriter& w = c_;
  rs_ = &st;
  // The byte map: the struct, and its fields at fixed offsets (not
  // read_at_cursor()) that need no reads of their own, reported out of line
  // (the reader calls this only with a trace set).
  // A struct of such fields only, none of them a pointer (nothing read after
  // them), is reported whole here: the reader then tests r.tr once for it.
  bool tr_whole = st.fixed_size;
  for (const auto& f : st.fields) {
    if (f->kind == FieldKind::Virtual) continue;
    bool bits_pool = false;
    for (const auto& b : f->bits) bits_pool = bits_pool || !b.pool.empty();
    if (f->read_at_cursor() || tr_simple_leaf(*f, at(*f)).empty() || f->pointer.width || bits_pool || f->kind == FieldKind::InlineStruct)
      tr_whole = false;
  }
  w += "[[gnu::cold, gnu::noinline]] " + fn_prefix() + "void tr_" + st.name + "(const R& r, uint64_t s) {";
  w += "  r.tr->open(nullptr, binschema::TraceKind::Struct, s, " + tr_str(st.name) + ");";
  for (const auto& f : st.fields)
    if (f->kind != FieldKind::Virtual && !f->read_at_cursor())
      if (std::string leaf = tr_simple_leaf(*f, at(*f)); !leaf.empty()) w += "  " + leaf;
  if (tr_whole) w += "  r.tr->close(" + plus("s", st.size) + ");";
  w += "}\n";
  w += fn_prefix() + (st.fixed_size ? "void read_" : "uint64_t read_") + st.name + "(const R& r, uint64_t s, [[maybe_unused]] " + st.name + "& x" + read_params(st) + ") {";
  w.indent();
  // A struct that can hold itself: the depth of nesting is bounded, and a
  // pointer back to a block being read is a cycle (both refused).
  if (recursive(st)) w += "const binschema::Nested nested(r.nest, s, \"" + st.name + "\");";
  if (st.needs_end) w += "if (end > r.size() || end < s) throw DecodeError(s, \"block at \" + hex(s) + \" ends at \" + hex(end) + \", outside the file\");";
  for (const auto& p : s_.pools)
    if (p.scope == st.name && p.kind != Pool::Kind::Block) w += "r.scope_" + st.name + " = s;\nr.refs_" + p.name + ".clear();";
  for (const auto& p : s_.pools)
    if (p.kind == Pool::Kind::Data && st.name == s_.root) w += "r.slices_" + p.name + ".clear();";
  // The fields at fixed offsets, for the probe (reader.h): a byte that would
  // not come back is named by its field.
  std::string table;
  for (const auto& f : st.fields)
    if (f->resolved.fixed_offset && f->resolved.fixed_size && f->resolved.size &&
        f->resolved.offset + f->resolved.size <= (st.fixed_size ? st.size : st.prefix))
      table += std::string(table.empty() ? "" : ", ") + "{" + hexs(f->resolved.offset) + ", " + hexs(f->resolved.size) +
               ", \"" + f->name + "\"}";
  if (!table.empty()) w += "static constexpr binschema::FieldAt fields_here[] = {" + table + "};";
  const std::string fields_arg = table.empty() ? "" : ", fields_here";
  if (st.fixed_size) w += "r.need(s, " + hexs(st.size) + fields_arg + ");";
  else w += "r.need(s, " + hexs(st.prefix) + fields_arg + ");\nuint64_t o = " + plus("s", st.prefix) + ";";
  // The byte map: the struct and its fixed fields (tr_T above).
  w += "if (r.tr) [[unlikely]] tr_" + st.name + "(r, s);";
  // Raw values of integer and pointer fields, for counts, tags and conditions.
  for (const auto& f : st.fields) {
    if (f->pointer.width) w += "[[maybe_unused]] uint64_t f_" + f->name + " = 0;";
    else if (f->type.kind == ValueType::Prim && !f->array.on)
      w += "[[maybe_unused]] " + (f->type.prim == Prim::U24 || f->type.prim == Prim::S24 ? std::string(prim_cpp(f->type.prim)) : load_type(*f)) + " f_" + f->name + " = 0;";
    else if (f->type.kind == ValueType::Prim && !f->resolved.tag_for.empty())
      w += "std::vector<uint64_t> f_" + f->name + ";  // the tags of " + f->resolved.tag_for;
  }
  for (const auto& f : st.fields)
    if (f->type.kind == ValueType::Dic) w += "std::vector<std::string> dic_" + f->name + ";";
  std::vector<const Field*> targets;
  bool at_cursor = false;
  for (const auto& fp : st.fields) {
    const Field& f = *fp;
    bool cursor = f.read_at_cursor();
    std::string o = cursor ? "o" : at(f);
    if (st.name == s_.root && cursor && !at_cursor) {
      at_cursor = true;
      // Pools placed further on by their base: field are read before it: where they start.
      for (const auto& p : s_.pools) {
        if (!placed_pool(p)) continue;
        // validate.cpp checked that each field up to the pool's has a size known here.
        std::string pos = "o";
        size_t i = 0;
        while (st.fields[i].get() != &f) ++i;
        for (; st.fields[i]->name != p.base; ++i) {
          const Field& g = *st.fields[i];
          if (g.resolved.fixed_size) pos += " + " + hexs(g.resolved.size);
          else pos += " + uint64_t(f_" + g.array.count->name + ") * " + hexs(g.type.st->size);
        }
        const uint64_t a = std::max(p.align, p.block_align);
        w += "r.base_" + p.name + " = " + round_up(pos, a) + ";";
        w += "r.refs_" + p.name + ".clear();";
      }
    }
    if (f.cond) {
      w += "if (" + condition(read_expr(*f.cond)) + ") {";
      w.indent();
    }
    // The byte map: a node around a field with reads of its own or at the cursor.
    const bool tr_wrap = f.kind != FieldKind::Virtual && f.kind != FieldKind::Slice && (cursor || tr_simple_leaf(f, o).empty());
    if (tr_wrap) w += "if (r.tr) [[unlikely]] r.tr->open(" + tr_str(f.name) + ", binschema::TraceKind::" + tr_open_kind(f) + ", " + o + ", " + tr_open_type(f) + ");";
    read_field(st, f, o, cursor, targets);
    if (tr_wrap) w += "if (r.tr) [[unlikely]] r.tr->close(" + (cursor || !f.resolved.fixed_size ? std::string("o") : plus(o, f.resolved.size)) + ");";
    if (st.name == s_.root) {
      if (std::find(s_.context.begin(), s_.context.end(), f.name) != s_.context.end()) w += "r.g_" + f.name + " = f_" + f.name + ";";
      for (const auto& p : s_.pools)
        if (p.base == f.name && !placed_pool(p)) w += "r.base_" + p.name + " = f_" + f.name + ";";
    }
    if (f.cond) {
      w.dedent();
      w += "}";
    }
  }
  for (const Field* f : targets) {
    if (f->cond) {
      w += "if (" + condition(read_expr(*f->cond)) + ") {";
      w.indent();
    }
    // An array's Target node is opened with the array (read_target): none for an empty one.
    const bool tr_target = f->kind != FieldKind::ArrayPointer;
    if (tr_target) w += "if (r.tr) [[unlikely]] r.tr->open(" + tr_str(f->name) + ", binschema::TraceKind::Target, 0);";
    read_target(*f);
    if (tr_target) w += "if (r.tr) [[unlikely]] r.tr->close(binschema::Trace::kNone);";
    if (f->cond) {
      w.dedent();
      w += "}";
    }
  }
  for (const auto& f : st.fields) {
    // A stored hash with a parameter is checked once its name is read: the
    // writer recomputes it, so a stale one would not be written back.
    if (!f->role.derive || !f->role.derive->calls(Fn::Mulhash)) continue;
    const Expr& a = f->role.derive->args[0];
    size_t dot = a.name.find('.');
    std::string name = "x." + cpp_field(a.name.substr(0, dot)) + (dot == std::string::npos ? "" : "." + cpp_field(a.name.substr(dot + 1)));
    std::string want = "uint64_t(binschema::mulhash32(" + name + ", static_cast<uint32_t>(" + read_expr(f->role.derive->args[1]) + ")))";
    w += "if (uint64_t(f_" + f->name + ") != " + want + ")";
    w += "  fail(" + at(*f) + ", \"" + f->name + "\", \"says \" + hex(f_" + f->name + ") + \" but " + expr_text(*f->role.derive) +
         " is \" + hex(" + want + "));";
  }
  for (const auto& f : st.fields) {
    if (f->type.kind != ValueType::Dic) continue;
    // The dictionary's names belong to the array's elements, in order.
    std::string arr = "x." + cpp_field(f->keys_array), key = cpp_field(f->keys_field), d = "dic_" + f->name;
    const Struct* et = s_.find(st.field(f->keys_array)->type.struct_name);
    w += "if (" + d + ".size() != " + arr + ".size())";
    w += "  fail(s, \"" + f->name + "\", \"the dictionary has \" + std::to_string(" + d + ".size()) + \" names for \" + std::to_string(" + arr + ".size()) + \" elements of " + f->keys_array + "\");";
    w += "for (size_t i = 0; i < " + d + ".size(); ++i) {";
    if (et->field(f->keys_field)->is_virtual) {
      w += "  " + arr + "[i]." + key + " = std::move(" + d + "[i]);";
    } else {
      w += "  if (" + arr + "[i]." + key + " != " + d + "[i])";
      w += "    fail(s, \"" + f->name + "\", \"dictionary name '\" + " + d + "[i] + \"' differs from the element's " + f->keys_field + " '\" + " + arr + "[i]." + key + " + \"'\");";
    }
    w += "}";
  }
  if (st.name == s_.root) {
    // Data pools: the writer places them after the root, in declaration order.
    for (const auto& p : s_.pools) {
      if (p.kind != Pool::Kind::Data) continue;
      w += "binschema::check_slices({r.data(), r.size()}, r.slices_" + p.name + ", r.base_" + p.name + ", " +
           (st.fixed_size ? plus("s", st.size) : std::string("o")) + ", r.size(), " + std::to_string(p.align) + ", \"" + p.name + "\");";
    }
  }
  if (!tr_whole) w += "if (r.tr) [[unlikely]] r.tr->close(" + (st.fixed_size ? plus("s", st.size) : std::string("o")) + ");";
  if (!st.fixed_size) w += "return o;";
  w.dedent();
  w += "}\n";
}

// Reads a pooled string the pool's way (Pascal or NUL-terminated).
std::string CppGen::pool_read(const std::string& pool, const std::string& at) const {
  const Pool* p = s_.pool(pool);
  if (p && layout_pool(*p)) return "r.str_" + p->name + "(" + pool_base(pool) + at + ")";
  return std::string(p && p->kind == Pool::Kind::Pascal16 ? "r.pascal16(" : "r.cstring(") + pool_base(pool) + at + ")";
}

// A string pool whose order a layout keeps (one pool for the whole file).
bool CppGen::layout_pool(const Pool& p) {
  return p.scope.empty() && (p.kind == Pool::Kind::CString || p.kind == Pool::Kind::Pascal16);
}

// What a pool-relative offset is added to ("" for absolute offsets).
std::string CppGen::pool_base(const std::string& pool) const {
  const Pool* p = s_.pool(pool);
  return p && !p->base.empty() ? "r.base_" + p->name + " + " : "";
}

// A bool stored as 0 / 1 (or 0 / `true:`): anything else is refused, so
// that writing it back gives the same bytes.
std::string CppGen::read_bool(const Field& f, const std::string& raw, const std::string& at, const std::string& name) const {
  std::string tv = f.true_value ? hexs(*f.true_value) + "u" : "1u";
  return "if (" + raw + " != 0 && " + raw + " != " + tv + ") fail(" + at + ", \"" + name + "\", \"value \" + hex(" + raw +
         ") + \" is not a bool (0 or " + (f.true_value ? hexs(*f.true_value) : "1") + ")\");";
}

void CppGen::read_union(const Field& f, const std::string& o) {
  if (f.array.on) read_union_array(f);
  else read_union_one(f, o, "x." + cpp_field(f.name), "f_" + f.variant.tag);
}

static size_t field_index_of(const Struct& st, const std::string& name) {
  for (size_t i = 0; i < st.fields.size(); ++i)
    if (st.fields[i]->name == name) return i;
  return st.fields.size();
}

// union[]: n elements of one size at the cursor, element i the case that
// tag i names.
void CppGen::read_union_array(const Field& f) {
  CodeWriter& w = c_;
  uint64_t size = 0;
  for (const auto& c : f.variant.cases) size = (c.field->resolved.size + f.variant.pad_to - 1) / f.variant.pad_to * f.variant.pad_to;
  const std::string x = "x." + cpp_field(f.name);
  w += "{";
  w.indent();
  const Field* tags = nullptr;
  for (const auto& g : rs_->fields)
    if (g->name == f.variant.tag) tags = g.get();
  if (tags && field_index_of(*rs_, tags->name) > field_index_of(*rs_, f.name)) {
    // The tags follow the elements: read them ahead (the field reads them again).
    const uint64_t tsz = prim_size(tags->type.prim);
    w += "{";
    w += "  const uint64_t n = " + read_expr(*f.array.count) + ";";
    w += "  r.need_array(o, n, " + hexs(size + tsz) + ");";
    w += "  f_" + tags->name + ".resize(n);";
    w += "  for (uint64_t i = 0; i < n; ++i) f_" + tags->name + "[i] = " + load(*tags, "o + n * " + hexs(size) + " + i * " + std::to_string(tsz)) + ";";
    w += "}";
  }
  w += "const uint64_t n = f_" + f.variant.tag + ".size();";
  w += "r.need_array(o, n, " + hexs(size) + ");";
  w += "r.need(o, n * " + hexs(size) + ");";
  w += x + ".resize(n);";
  w += "for (uint64_t i = 0; i < n; ++i) {";
  w.indent();
  w += "const uint64_t e = o + i * " + hexs(size) + ";";
  w += "try {";
  w.indent();
  read_union_one(f, "e", x + "[i]", "f_" + f.variant.tag + "[i]");
  w.dedent();
  w += "} catch (DecodeError& err) { err.push_index(i); err.push_field(\"" + f.name + "\"); throw; }";
  w.dedent();
  w += "}";
  w += "o += n * " + hexs(size) + ";";
  w.dedent();
  w += "}";
}

void CppGen::read_union_one(const Field& f, const std::string& o, const std::string& target, const std::string& tag) {
  CodeWriter& w = c_;
  // An element of a union[] is named by the array's catch (NAME[i]), not here.
  const std::string pf = f.array.on ? std::string() : "e.push_field(\"" + f.name + "\"); ";
  const std::string word = "w_" + f.name;  // the pointer word of a tag_shift union
  if (f.variant.tag_shift) {
    w += "const uint64_t " + word + " = " + rget() + raw_uint(f.variant.cases[0].field->pointer.width) + ">(" + o + ");";
    w += "switch (" + word + " >> " + std::to_string(f.variant.tag_shift) + ") {";
  } else {
    w += "switch (" + tag + ") {";
  }
  w.indent();
  std::string known;
  for (size_t i = 0; i < f.variant.cases.size(); ++i) {
    const Case& c = f.variant.cases[i];
    const Field& p = *c.field;
    known += (known.empty() ? "" : ", ") + std::to_string(c.tag) + " " + c.name;
    uint64_t padded = (p.resolved.size + f.variant.pad_to - 1) / f.variant.pad_to * f.variant.pad_to;
    w += "case " + std::to_string(c.tag) + ": {";
    w.indent();
    w += "auto& v = " + target + ".template emplace<" + std::to_string(i) + ">();";
    // The byte map: which case, and a number's node.
    if (c.kind == CaseKind::Number || (c.kind == CaseKind::Numbers && p.array.fixed_count))
      w += "if (r.tr) [[unlikely]] { r.tr->type(" + tr_str(c.name) + "); r.tr->leaf(nullptr, binschema::TraceKind::" +
           std::string(c.kind == CaseKind::Number ? "Number" : "Array") + ", " + o + ", " + hexs(p.resolved.size) + ", " + tr_str(prim_name(p.type.prim)) + "); }";
    else
      w += "if (r.tr) [[unlikely]] r.tr->type(" + tr_str(c.name) + ");";
    if (!f.resolved.fixed_size && !f.array.on && p.resolved.fixed_size) w += "r.need(o, " + hexs(padded) + ");";
    std::string advance = p.resolved.fixed_size ? hexs(padded) : "";
    // The padded size of n elements of `elem` bytes (an open array case).
    auto padded_n = [&](uint64_t elem) {
      return round_up("n * " + std::to_string(elem), f.variant.pad_to);
    };
    if (p.pointer.width == 8) w += note_slot(o);
    switch (c.kind) {
      case CaseKind::PooledString:
        w += "try { v = std::string(" + pool_read(p.pool, rget() + raw_uint(p.pointer.width) + ">(" + o + ")") + "); }";
        w += "catch (DecodeError& e) { " + pf + "throw; }";
        break;
      case CaseKind::OwnString:
        w += "const uint64_t t = " + std::string(p.pointer.base == Field::Base::Struct ? "s + " : "") + rget() + raw_uint(p.pointer.width) + ">(" + o + ");";
        if (f.resolved.fixed_offset) w += note_layout(f, "t");
        w += "if (r.tr) [[unlikely]] { r.tr->leaf(nullptr, binschema::TraceKind::Pointer, " + o + ", " + std::to_string(p.pointer.width) + ", " + tr_str(uint_name(p.pointer.width)) + "); r.tr->nodes.back().target = t; }";
        w += "try { v = std::string(r.pascal16(t)); }";
        w += "catch (DecodeError& e) { " + pf + "throw; }";
        break;
      case CaseKind::Number:
        if (!p.table.index_of.empty()) {  // an index into a table of the root: its string
          w += "v = r.tab_" + p.table.index_of + ".at(" + load(p, o) + ", " + o + ", \"" + c.name + "\", \"" + p.table.index_of + "\");";
        } else if (p.type.prim == Prim::Bool8 || p.type.prim == Prim::Bool32) {
          w += "const auto raw = " + load(p, o) + ";";
          w += read_bool(p, "raw", o, f.name);
          w += "v = raw != 0;";
        } else {
          w += "v = " + load(p, o) + ";";
        }
        break;
      case CaseKind::Numbers:
        if (p.array.fixed_count) {
          w += "for (size_t i = 0; i < " + std::to_string(*p.array.fixed_count) + "; ++i) " +
               load_elem(p, o + " + i * " + std::to_string(prim_size(p.type.prim)), "v[i]");
        } else {
          // An open array counted by a field of the struct.
          uint64_t sz = prim_size(p.type.prim);
          w += "const uint64_t n = " + read_expr(*p.array.count) + ";";
          w += "r.need_array(" + o + ", n, " + std::to_string(sz) + ");";
          w += "v.resize(n);";
          w += "if (r.tr) [[unlikely]] r.tr->leaf(nullptr, binschema::TraceKind::Array, " + o + ", n * " + std::to_string(sz) + ", " + tr_str(prim_name(p.type.prim)) + ");";
          w += "for (uint64_t i = 0; i < n; ++i) " + load_elem(p, o + " + i * " + std::to_string(sz), "v[i]");
          advance = padded_n(sz);
        }
        break;
      case CaseKind::OwnStrings:
        // Pointers to strings of their own, counted by a field of the struct.
        w += "const uint64_t n = " + read_expr(*p.array.count) + ";";
        w += "r.need_array(" + o + ", n, " + std::to_string(p.pointer.elem_width) + ");";
        w += "v.resize(n);";
        w += "for (uint64_t i = 0; i < n; ++i) {";
        if (s_.relocation_table) w += "  " + note_slot(o + " + i * " + std::to_string(p.pointer.elem_width));
        w += "  const uint64_t t = " + rget() + raw_uint(p.pointer.elem_width) + ">(" + o + " + i * " + std::to_string(p.pointer.elem_width) + ");";
        if (f.resolved.fixed_offset) w += "  if (r.lay) r.lay->note(s + " + hexs(f.resolved.offset) + " + i * " + std::to_string(p.pointer.elem_width) + ", t);";
        w += "  try { v[i] = std::string(r.pascal16(t)); }";
        w += "  catch (DecodeError& e) { e.push_index(i); " + pf + "throw; }";
        w += "}";
        advance = padded_n(p.pointer.elem_width);
        break;
      case CaseKind::Struct:
        if (!p.type.st->fixed_size) {  // the last field: it moves the cursor to its end
          w += "try { o = " + read_call(*p.type.st, o, "v") + "; }";
          w += "catch (DecodeError& e) { " + pf + "throw; }";
          advance.clear();
          break;
        }
        w += "try { " + read_call(*p.type.st, o, "v") + "; }";
        w += "catch (DecodeError& e) { " + pf + "throw; }";
        break;
      case CaseKind::StructPointer:
      case CaseKind::PooledBlock: {
        // A pointer to the case's struct (the tag is in the word's top bits with tag_shift).
        const Struct& pt = *p.type.st;
        // base: struct: from the start of the struct holding the union.
        const bool rel = p.pointer.base == Field::Base::Struct;
        // scale: N: the low bits count units of N bytes; points_to: FIELD: they
        // point at that field of the struct, not at its start.
        std::string low = word + " & " + hexs((1ull << f.variant.tag_shift) - 1);
        if (p.pointer.scale != 1) low = "(" + low + ") * " + std::to_string(p.pointer.scale);
        if (p.pointer.points_to_offset) {
          w += "if ((" + low + ") < " + hexs(p.pointer.points_to_offset) + ") fail(" + o + ", \"" + f.name + "\", \"" + c.name +
               ": offset \" + hex(" + low + ") + \" points before its struct (it points to " + p.pointer.points_to_field + ", at " +
               hexs(p.pointer.points_to_offset) + ")\");";
          low = "(" + low + ") - " + hexs(p.pointer.points_to_offset);
        }
        w += "const uint64_t t = " + std::string(rel ? "s + " : "") +
             (f.variant.tag_shift ? (rel ? "(" + low + ")" : low) : rget() + raw_uint(p.pointer.width) + ">(" + o + ")") + ";";
        // Where the target is, for a layout (a block in a pool is placed with its pool).
        if (c.kind == CaseKind::StructPointer && f.array.on) w += "if (r.lay) r.lay->note(" + o + ", t);";
        else if (c.kind == CaseKind::StructPointer && f.resolved.fixed_offset) w += note_layout(f, "t");
        w += "if (r.tr) [[unlikely]] { r.tr->leaf(nullptr, binschema::TraceKind::Pointer, " + o + ", " + std::to_string(p.pointer.width) + ", " + tr_str(uint_name(p.pointer.width)) + "); r.tr->nodes.back().target = t; }";
        w += "try {";
        w += "  r.need_target(t, " + hexs(pt.fixed_size ? pt.size : std::max<uint64_t>(pt.prefix, 1)) + ");";
        w += "  " + read_call(pt, "t", "v") + ";";
        w += "} catch (DecodeError& e) { e.push_field(\"" + c.name + "\"); " + pf + "throw; }";
        break;
      }
    }
    if (!f.resolved.fixed_size && !f.array.on && !advance.empty()) w += "o += " + advance + ";";
    w += "break;";
    w.dedent();
    w += "}";
  }
  w += "default:";
  if (f.variant.tag_shift)
    w += "  fail(" + o + ", \"" + f.name + "\", \"tag \" + hex(" + word + " >> " + std::to_string(f.variant.tag_shift) + ") + \" (bits " +
         std::to_string(f.variant.tag_shift) + " and up) is not a supported case (known: " + known + ")\");";
  else
    w += "  " + (f.array.on ? "throw DecodeError(" + o + ", " : "fail(" + o + ", \"" + f.name + "\", ") + "\"" + f.variant.tag + " \" + std::to_string(" + tag + ") + \" is not a supported case (known: " + known + ")\");";
  w.dedent();
  w += "}";
}

// The end bound passed to a pointer's target: `next` for `extent: next`.
std::string CppGen::target_end(const Field& f) { return f.pointer.extent_next ? "next" : "r.size()"; }

void CppGen::read_target(const Field& f) {
  CodeWriter& w = c_;
  std::string x = "x." + cpp_field(f.name);
  std::string p = "f_" + f.name;
  std::string base = f.pointer.base == Field::Base::Struct ? "s + " : "";
  w += "try {";
  w.indent();
  switch (f.kind) {
    case FieldKind::Dic: {
      const Pool* pool = s_.pool(f.pool);
      w += "if (" + p + " == 0) throw DecodeError(s, \"null dictionary pointer (in the struct at \" + hex(s) + \")\");";
      w += "const uint64_t t = " + base + p + ";";
      w += "r.need_target(t, 8);";
      w += "if (r.chars(t, 4) != \"DIC \") throw DecodeError(t, \"no DIC magic at \" + hex(t));";
      w += "const uint64_t n = " + rget() + "uint32_t>(t + 4);";
      w += "r.need_array(t + 8, n + 1, 0x10);";
      w += "if (r.tr) [[unlikely]] r.tr->leaf(nullptr, binschema::TraceKind::Dic, t, 8 + 0x10 * (n + 1), \"dic\");";
      if (s_.relocation_table) w += note_slot("t + 8 + 8");  // the root entry's name
      w += "for (uint64_t i = 1; i <= n; ++i) {";
      w += "  const uint64_t name = " + rget() + "uint64_t>(t + 8 + 0x10 * i + 8);";
      if (s_.relocation_table) w += "  " + note_slot("t + 8 + 0x10 * i + 8");
      w += std::string("  dic_") + f.name + ".emplace_back(" +
           (layout_pool(*pool) ? "r.str_" + pool->name + "(name)" : pool->kind == Pool::Kind::Pascal16 ? "r.pascal16(name)" : "r.cstring(name)") + ");";
      w += "}";
      // Names and tree as encode would make them, or a DecodeError at the entry
      // (decode and encode agree on what is valid).
      w += "binschema::check_dic(r, t, dic_" + f.name + ");";
      break;
    }
    case FieldKind::OwnString:
      if (f.resolved.fixed_offset) w += note_layout(f, base + p);
      w += x + " = std::string(r.pascal16(" + base + p + "));";
      break;
    case FieldKind::PooledString: {
      const Pool* pool = s_.pool(f.pool);
      if (pool && !pool->scope.empty()) {
        w += x + " = std::string(r.cstring(r.scope_" + pool->scope + " + " + p + "));";
        w += "r.refs_" + pool->name + ".emplace_back(r.scope_" + pool->scope + " + " + p + ", " + x + ".size());";
      } else if (pool && layout_pool(*pool) && pool->kind == Pool::Kind::Pascal16 && f.pointer.points_to_chars) {
        w += x + " = std::string(r.chars_" + pool->name + "(" + pool_base(f.pool) + base + p + "));";
      } else if (pool && layout_pool(*pool)) {
        w += x + " = std::string(r.str_" + pool->name + "(" + pool_base(f.pool) + base + p + "));";
        if (placed_pool(*pool))  // the pool's field checks where the strings are (and skips them)
          w += "r.refs_" + pool->name + ".emplace_back(" + pool_base(f.pool) + base + p + ", " + x + ".size());";
      } else if (pool && pool->kind == Pool::Kind::Pascal16 && !f.pointer.points_to_chars) {
        w += x + " = std::string(r.pascal16(" + pool_base(f.pool) + base + p + "));";
      } else {
        w += x + " = std::string(r.cstring(" + pool_base(f.pool) + base + p + "));";
      }
      break;
    }
    case FieldKind::Pointer:
      if (!f.table.order.empty()) {
        // A table (table:): its strings, for the index_of: fields read after it.
        const std::string nul = f.pointer.null_value ? hexs(f.pointer.null_value) : std::string("0");
        w += "if (" + p + " != " + nul + ") {";
        w += "  " + f.type.st->name + " tmp;";
        if (f.resolved.fixed_offset) w += "  " + note_layout(f, base + p);
        w += "  r.need_target(" + base + p + ", 1);";
        w += "  " + read_call(*f.type.st, base + p, "tmp", target_end(f)) + ";";
        w += "  std::vector<std::string> strs;";
        w += "  strs.reserve(tmp." + cpp_field(f.table.strings->name) + ".size());";
        w += "  for (auto& e : tmp." + cpp_field(f.table.strings->name) + ") strs.push_back(std::move(e." + cpp_field(f.table.text->name) + "));";
        w += "  r.tab_" + f.name + ".assign_read(std::move(strs));";
        if (f.pointer.null != Field::Null::Allowed) w += "} else {\n  throw DecodeError(s, \"null pointer (in the struct at \" + hex(s) + \")\");";
        w += "}";
        break;
      }
      [[fallthrough]];
    case FieldKind::BlockRef: {
      std::string dst = f.in_model() ? x : "tmp";
      if (!f.in_model()) w += f.type.st->name + " tmp;";
      if (f.pointer.null == Field::Null::Allowed) {
        w += "if (" + p + " == " + (f.pointer.null_value ? hexs(f.pointer.null_value) : std::string("0")) + ") " + x + ".reset();";
        w += "else {";
        if (f.kind == FieldKind::Pointer && f.resolved.fixed_offset) w += "  " + note_layout(f, base + p);
        w += "  r.need_target(" + base + p + ", 1);";
        w += "  " + read_call(*f.type.st, base + p, x + ".emplace()", target_end(f)) + ";";
        w += "}";
      } else {
        w += "if (" + p + " == 0) throw DecodeError(s, \"null pointer (in the struct at \" + hex(s) + \")\");";
        if (f.kind == FieldKind::Pointer && f.resolved.fixed_offset) w += note_layout(f, base + p);
        w += "r.need_target(" + base + p + ", 1);";
        w += read_call(*f.type.st, base + p, dst, target_end(f)) + ";";
      }
      break;
    }
    case FieldKind::ArrayPointer: {
      std::string n = f.array.fixed_count ? std::to_string(*f.array.fixed_count) : read_expr(*f.array.count);
      w += "const uint64_t n = " + n + ";";
      // An empty array's pointer: null or not, as the writer chose (kept by the layout).
      if (!f.array.fixed_count && f.pointer.null == Field::Null::WhenEmpty && f.resolved.fixed_offset)
        w += "if (n == 0 && " + p + " != 0 && r.lay) r.lay->note(" + plus("s", f.resolved.offset) + ", " + p + ");";
      // An empty array that is not when_empty still has a place, where its pointer points (a writer's cursor).
      if (!f.array.fixed_count && f.pointer.null != Field::Null::WhenEmpty && f.resolved.fixed_offset)
        w += "if (n == 0 && r.lay) r.lay->note(" + plus("s", f.resolved.offset) + ", " + base + p + ");";
      if (!f.array.fixed_count) w += "if (n != 0) {";
      else w += "{";
      w.indent();
      w += "if (" + p + " == 0) throw DecodeError(s, \"null pointer to \" + std::to_string(n) + \" elements (in the struct at \" + hex(s) + \")\");";
      w += "const uint64_t t = " + base + p + ";";
      if (f.resolved.fixed_offset) w += note_layout(f, "t");
      w += "r.need_target(t, 1);";
      uint64_t stride = f.pointer.elem_width ? static_cast<uint64_t>(f.pointer.elem_width)
                        : f.type.kind == ValueType::Prim ? prim_size(f.type.prim)
                        : f.type.kind == ValueType::String ? static_cast<uint64_t>(f.pointer.width)
                        : f.type.st->fixed_size ? f.type.st->size : 1;
      w += "r.need_array(t, n, " + hexs(stride) + ");";
      if (!f.array.fixed_count) w += x + ".resize(n);";
      // The byte map: the array's own bytes (elements of a variable size end where the last one ends).
      const bool var_elems = !f.pointer.elem_width && f.type.kind == ValueType::Struct && !f.type.st->fixed_size;
      const std::string elem_type = f.type.kind == ValueType::Prim ? tr_str(prim_name(f.type.prim))
                                    : f.pointer.elem_width || f.type.kind == ValueType::String ? tr_str(uint_name(static_cast<int>(stride)))
                                                                                               : "nullptr";
      // (the Target node of an array is opened here, with the array: one test)
      w += "if (r.tr) [[unlikely]] { r.tr->open(\"" + f.name + "\", binschema::TraceKind::Target, 0); r.tr->open(nullptr, binschema::TraceKind::Array, t, " + elem_type + "); }";
      if (f.pointer.elem_width) {
        w += "for (uint64_t i = 0; i < n; ++i) {";
        w += "  const uint64_t e = " + rget() + raw_uint(f.pointer.elem_width) + ">(t + i * " + hexs(stride) + ");";
        if (s_.relocation_table) w += "  " + note_slot("t + i * " + hexs(stride));
        w += "  if (r.lay) r.lay->note(t + i * " + hexs(stride) + ", e);";
        w += "  try {";
        w += "    r.need_target(e, 1);";
        w += "    " + read_call(*f.type.st, "e", x + "[i]") + ";";
        w += "  } catch (DecodeError& err) { err.push_index(i); throw; }";
        w += "}";
      } else if (f.type.kind == ValueType::Prim) {
        w += "for (uint64_t i = 0; i < n; ++i) " + load_elem(f, "t + i * " + hexs(stride), x + "[i]");
      } else if (f.type.kind == ValueType::String) {
        w += "for (uint64_t i = 0; i < n; ++i) {";
        if (s_.relocation_table) w += "  " + note_slot("t + i * " + hexs(stride));
        w += "  try { " + x + "[i] = std::string(" + pool_read(f.pool, rget() + raw_uint(f.pointer.width) + ">(t + i * " + hexs(stride) + ")") + "); }";
        w += "  catch (DecodeError& err) { err.push_index(i); throw; }";
        w += "}";
      } else if (f.type.st->fixed_size) {
        w += "for (uint64_t i = 0; i < n; ++i) {";
        std::string next = "r.size()";
        if (extent_field(*f.type.st))
          next = "i + 1 < n ? " + next_target(*f.type.st, "t + (i + 1) * " + hexs(stride)) + " : r.size()";
        w += "  try { " + read_call(*f.type.st, "t + i * " + hexs(stride), x + "[i]", "r.size()", next) + "; }";
        w += "  catch (DecodeError& err) { err.push_index(i); throw; }";
        w += "}";
      } else {
        w += "uint64_t o2 = t;";
        w += "for (uint64_t i = 0; i < n; ++i) {";
        w += "  try { o2 = " + read_call(*f.type.st, "o2", x + "[i]") + "; }";
        w += "  catch (DecodeError& err) { err.push_index(i); throw; }";
        w += "}";
      }
      w += "if (r.tr) [[unlikely]] { r.tr->close(" + std::string(var_elems ? "o2" : "t + n * " + hexs(stride)) + "); r.tr->close(binschema::Trace::kNone); }";
      w.dedent();
      w += "}";
      break;
    }
    // Not pointers: read inline (read_field).
    case FieldKind::Slice:
    case FieldKind::Scalar:
    case FieldKind::BitWord:
    case FieldKind::Chars:
    case FieldKind::CString:
    case FieldKind::Bytes:
    case FieldKind::PoolBlock:
    case FieldKind::InlineStruct:
    case FieldKind::InlineArray:
    case FieldKind::StringOffsets:
    case FieldKind::ElemPointers:
    case FieldKind::OwnStrings:
    case FieldKind::Union:
    case FieldKind::Virtual:
      break;
  }
  w.dedent();
  w += "} catch (DecodeError& e) { e.push_field(\"" + f.name + "\"); throw; }";
}

}  // namespace binschema::gen::cpp
