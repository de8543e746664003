// binschema/dynamic.h: bytes -> Value, the walk of gen_cpp_read.cpp's
// generated readers over the schema model. Each step below names the
// generator function whose code it does at run time; the messages and the
// order of the checks are the same, so the errors are.
#include <algorithm>
#include <bit>
#include <cstring>
#include <functional>
#include <set>
#include <stdexcept>
#include <unordered_map>
#include <utility>

#include "binschema/byte_order.h"
#include "binschema/data_pool.h"
#include "binschema/dic.h"
#include "binschema/hash.h"
#include "binschema/layout.h"
#include "binschema/string_table.h"
#include "expr.h"
#include "plan.h"

namespace binschema::dynamic {

using gen::CaseKind;
using gen::Expr;
using gen::Field;
using gen::FieldKind;
using gen::Fn;
using gen::Pool;
using gen::Prim;
using gen::Struct;
using gen::ValueType;

// ---- The plan ---------------------------------------------------------------

namespace {

bool is_recursive(const Struct& st) {
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

[[noreturn, maybe_unused]] void unsupported(const gen::Loc& loc, const std::string& what) {
  throw gen::SchemaError(loc, what + ": the run-time engine does not support this yet (build the format with binschema-gen)");
}

}  // namespace

Value parse_default(const Field& f, const std::string& text) {
  if (f.type.kind == ValueType::Chars || f.type.kind == ValueType::String || f.type.kind == ValueType::CString) return Value::string(text);
  const Prim p = f.type.prim;
  if (p == Prim::Bool8 || p == Prim::Bool32) return prim_value(p, text == "true" || text == "1");
  if (p == Prim::F32) return Value::float32(static_cast<float>(std::stod(text)));
  if (p == Prim::F64) return Value::float64(std::stod(text));
  uint64_t raw = 0;
  if (!text.empty() && text[0] == '-') raw = static_cast<uint64_t>(std::stoll(text, nullptr, 0));
  else raw = std::stoull(text, nullptr, 0);
  // static_cast<T>: the value in the field's model type.
  const unsigned bits = 8 * model_bytes(p);
  if (bits < 64) {
    raw &= (uint64_t(1) << bits) - 1;
    if (gen::prim_is_signed(p) && (raw >> (bits - 1)) & 1) raw |= ~((uint64_t(1) << bits) - 1);
  }
  return prim_value(p, raw);
}

namespace {
Value bits_default(const Field& f) {
  Value v = Value::struct_();
  for (const auto& b : f.bits) {
    Value x;
    if (!b.pool.empty()) x = Value::string(b.default_text.value_or(""));
    else if (b.is_bool) x = Value::boolean(b.default_text && *b.default_text == "true", 0);
    else x = Value::uint(b.default_text ? std::stoull(*b.default_text, nullptr, 0) : 0, static_cast<uint8_t>(bits_bytes(b.width)));
    v.add(b.name, std::move(x));
  }
  return v;
}

Value struct_default(const Schema::Plan& p, const Struct& st, int depth);

// One element (no array-ness) as default-constructed.
Value elem_default(const Schema::Plan& p, const Field& f, int depth) {
  if (!f.table.index_of.empty()) return Value::string("");  // the model holds the string
  switch (f.type.kind) {
    case ValueType::Prim:
      if (!f.bits.empty()) return bits_default(f);
      if (f.role.default_text && !f.array.on) return parse_default(f, *f.role.default_text);
      return prim_value(f.type.prim, 0);
    case ValueType::Chars:
      if (f.role.default_text) return Value::string(*f.role.default_text);
      return Value::string("");
    case ValueType::CString:
    case ValueType::String: return Value::string("");
    case ValueType::Bytes: return Value::bytes("");
    case ValueType::Struct: return struct_default(p, *f.type.st, depth + 1);
    case ValueType::Union: {
      // std::variant: its first alternative, default-constructed.
      const gen::Case& c = f.variant.cases.at(0);
      return Value::union_(c.name, c.tag, default_value(p, *c.field, depth + 1));
    }
    case ValueType::PoolBlock:
    case ValueType::Dic: break;
  }
  return {};
}

Value struct_default(const Schema::Plan& p, const Struct& st, int depth) {
  Value v = Value::struct_();
  if (depth > 20) return v;  // a Box of a Box of ...: never reached by a real model
  for (const auto& f : st.fields)
    if (f->in_model()) v.add(f->name, default_value(p, *f, depth));
  return v;
}
}  // namespace

Value default_value(const Schema::Plan& p, const Field& f, int depth) {
  if (f.array.on) {
    Value a = Value::array();
    if (f.array.fixed_count) a.items().assign(*f.array.fixed_count, elem_default(p, f, depth));
    return a;
  }
  if (f.pointer.width && f.pointer.null == Field::Null::Allowed && f.type.kind == ValueType::Struct) return Value::absent();
  return elem_default(p, f, depth);
}

namespace {
// Whether the generated text can evaluate an if: from the model (gen_cpp_types.cpp
// text_evaluable, the same rules): such a field is left out of the text
// while its condition is false.
bool text_evaluable(const gen::Schema& s, const Struct& st, const Expr& e) {
  switch (e.kind) {
    case Expr::Int: return true;
    case Expr::Ident: {
      if (e.name.find('.') != std::string::npos) return true;
      if (const Field* f = st.field(e.name)) {
        if (!f->resolved.count_for.empty() || f->role.const_int) return true;
        if (f->role.derive) return !gen::is_late(*f->role.derive) && text_evaluable(s, st, *f->role.derive);
        return f->in_model() && f->type.kind == ValueType::Prim && f->bits.empty() && !f->array.on;
      }
      const Field* g = s.find(s.root)->field(e.name);
      if (!g) return false;
      if (g->role.const_int) return true;
      return g->in_model() && g->type.kind == ValueType::Prim && g->bits.empty() && !g->array.on && !g->pointer.width;
    }
    case Expr::Unary:
    case Expr::Binary:
    case Expr::Ternary:
      for (const auto& x : e.args)
        if (!text_evaluable(s, st, x)) return false;
      return true;
    case Expr::Call: return e.fn == Fn::Has || e.fn == Fn::Count;
  }
  return false;
}

// The if: of the text with the derived values it uses spelt out (text_cond's
// d_ locals): what eval_model evaluates over the struct's value.
gen::Expr spell_out_derived(const Struct& st, const Expr& e) {
  if (e.kind == Expr::Ident && e.name.find('.') == std::string::npos)
    if (const Field* f = st.field(e.name); f && f->role.derive && f->resolved.count_for.empty() && !f->role.const_int)
      return spell_out_derived(st, *f->role.derive);
  gen::Expr out = e;
  for (auto& a : out.args) a = spell_out_derived(st, a);
  return out;
}

// How read_simple reads a field (DecodeStep::simple): one at its fixed
// offset, with no if: and no check but a bool's, that no expression reads
// (a count or a size would need the frame's locals).
// DecodeStep::count_index: a count that names a field of st, as
// Dec::find_local finds the name (the validator refuses a count naming a bit
// field; a local's raw is its value as the count's C++ type: zero- or
// sign-extended as read).
void resolve_count(const Struct& st, const Expr& count, DecodeStep& ds) {
  const Field* f = st.field(count.name);
  for (size_t k = 0; f && k < st.fields.size(); ++k)
    if (st.fields[k].get() == f) ds.count_index = static_cast<int>(k);
}

uint8_t simple_step(const StructPlan& sp, const DecodeStep& ds) {
  const Field& f = *ds.f;
  if (ds.flags & (DecodeStep::Cursor | DecodeStep::Cond | DecodeStep::Checks | DecodeStep::IndexOf | DecodeStep::SizeCheck | DecodeStep::Virtual))
    return DecodeStep::NotSimple;
  if (ds.flags & DecodeStep::Plain) return DecodeStep::SimplePlain;
  const bool bool_prim = ds.prim == Prim::Bool8 || ds.prim == Prim::Bool32;
  if (ds.kind == FieldKind::BitWord) {
    bool pooled = false;
    for (uint32_t k = 0; k < ds.nbits; ++k) pooled = pooled || sp.bit_steps[ds.bit0 + k].pooled;
    return ds.nbits && !pooled && !bool_prim ? DecodeStep::SimpleBits : DecodeStep::NotSimple;
  }
  if (ds.kind == FieldKind::Scalar && f.type.kind == ValueType::Prim && bool_prim && f.bits.empty() && (ds.flags & DecodeStep::Fixed) &&
      f.resolved.size == gen::prim_size(f.type.prim))
    return DecodeStep::SimpleBool;
  // The ones below are read into their member even when unused: a member.
  if (ds.member < 0) return DecodeStep::NotSimple;
  if (ds.kind == FieldKind::InlineStruct && f.type.st) return DecodeStep::SimpleStruct;  // if its struct is simple (make_plan, at the end)
  if (ds.kind == FieldKind::PooledString && !ds.target_now && ds.pool >= 0 && !f.array.on) return DecodeStep::SimpleString;
  if (ds.kind == FieldKind::InlineArray && f.type.kind == ValueType::Prim && f.array.fixed_count && f.resolved.tag_for.empty() &&
      f.table.offsets_of.empty() && !f.pad && f.bits.empty())
    return DecodeStep::SimpleNumbers;
  return DecodeStep::NotSimple;
}

}  // namespace

std::shared_ptr<const Schema::Plan> make_plan(const gen::Schema& s) {
  auto p = std::make_shared<Schema::Plan>();
  try {
    check_encode_support(s);
  } catch (const gen::SchemaError& e) {
    p->encode_refusal = e;
  }
  p->s = &s;
  p->root = s.find(s.root);
  for (const auto& f : p->root->fields)
    if (!f->table.order.empty()) p->tables = std::max(p->tables, static_cast<size_t>(f->table.id + 1));
  // gen_cpp_text.cpp root_tail: the hash algorithms in order of first use, and the names: list.
  for (const auto& st : s.structs)
    for (const auto& f : st->fields) {
      std::vector<const Field*> fs{f.get()};
      for (const auto& c : f->variant.cases) fs.push_back(c.field.get());
      for (const Field* g : fs)
        if (!g->spell.hash_of.empty() && g->in_model() &&
            std::find_if(p->hash_algos.begin(), p->hash_algos.end(), [&](const char* a) { return g->spell.hash_of == a; }) == p->hash_algos.end())
          p->hash_algos.push_back(g->spell.hash_of.c_str());
    }
  if (!p->hash_algos.empty()) {
    for (const auto& n : s.default_names) p->hash_defaults.push_back(n.c_str());
    p->hash_names = text::HashNames{p->hash_defaults.empty() ? nullptr : p->hash_defaults.data(), p->hash_defaults.size(), p->hash_algos.data(),
                                    p->hash_algos.size()};
    p->has_hash_names = true;
  }
  for (const auto& st : s.structs) {
    StructPlan sp;
    sp.recursive = is_recursive(*st);
    for (const auto& f : st->fields) {
      if (f->pointer.extent_next && !sp.extent) sp.extent = f.get();
      if (f->resolved.fixed_offset && f->resolved.fixed_size && f->resolved.size &&
          f->resolved.offset + f->resolved.size <= (st->fixed_size ? st->size : st->prefix))
        sp.fields_here.push_back({f->resolved.offset, f->resolved.size, f->name.c_str()});
      if (f->in_model()) sp.model.push_back(f.get());
    }
    p->structs.emplace(st.get(), std::move(sp));
  }
  for (const auto& st : s.structs) {
    int m = 0;
    for (size_t i = 0; i < st->fields.size(); ++i) {
      const Field& f = *st->fields[i];
      FieldPlan fp;
      fp.index = i;
      if (f.in_model()) fp.member = m++;
      fp.name = intern(f.name);
      fp.what = intern(st->name + "." + f.name).data();
      p->fields.emplace(&f, std::move(fp));
      for (const auto& c : f.variant.cases) p->fields.emplace(c.field.get(), FieldPlan{});
    }
  }
  for (const auto& st : s.structs) {
    for (const auto& f : st->fields) {
      FieldPlan& fp = p->fields.at(f.get());
      // The default of a struct-typed field is only built where it is used
      // (an if: that is false); the others are read.
      if (f->in_model() && (f->cond || f->type.kind != ValueType::Struct || f->array.on)) fp.def = default_value(*p, *f);
      if (!f->bits.empty()) fp.bits_def = bits_default(*f);
      if (f->cond && f->in_model() && text_evaluable(s, *st, *f->cond))
        fp.text_cond = std::make_shared<const gen::Expr>(spell_out_derived(*st, *f->cond));
      if (f->in_model() && (f->spelled() || f->spell.hex || !f->spell.map_key.empty())) {
        auto sd = std::make_unique<Schema::Plan::SpellData>();
        const gen::Enum* en = f->spell.enum_name.empty() ? nullptr : s.find_enum(f->spell.enum_name);
        if (en)
          for (const auto& [v, n] : en->values) sd->enums.push_back({v, n.c_str()});
        auto str = [](const std::string& t) { return t.empty() ? nullptr : t.c_str(); };
        sd->spell.flags = (f->spell.hex ? text::kHex : 0u) | (f->spell.as_bool ? text::kBool : 0u);
        sd->spell.enum_values = sd->enums.empty() ? nullptr : sd->enums.data();
        sd->spell.enum_count = sd->enums.size();
        sd->spell.enum_name = str(f->spell.enum_name);
        sd->spell.ref = str(f->spell.ref);
        sd->spell.via = str(f->spell.ref_via);
        sd->spell.hash = str(f->spell.hash_of);
        sd->spell.map = str(f->spell.map_key);
        p->spells.emplace(f.get(), std::move(sd));
      }
    }
    p->structs.at(st.get()).empty = struct_default(*p, *st, 0);
  }
  for (const auto& st : s.structs) {
    StructPlan& sp = p->structs.at(st.get());
    for (size_t i = 0; i < st->fields.size(); ++i) {
      const Field& f = *st->fields[i];
      FieldPlan& fp = p->fields.at(&f);
      auto index_of = [&](const std::string& n) {
        for (size_t k = 0; k < st->fields.size(); ++k)
          if (st->fields[k]->name == n) return static_cast<int>(k);
        return -1;
      };
      if (f.type.kind == ValueType::Union && !f.variant.tag_shift) fp.tag = index_of(f.variant.tag);
      for (const auto& c : f.variant.cases) {
        fp.case_tags.push_back(static_cast<uint64_t>(c.tag));
        const Field& cf = *c.field;
        FieldPlan::CaseStep cs;
        cs.id = intern_id(c.name);
        const uint64_t a = f.variant.pad_to;
        cs.padded = a ? (cf.resolved.size + a - 1) / a * a : cf.resolved.size;
        cs.kind = static_cast<uint8_t>(c.kind);
        cs.width = static_cast<uint8_t>(cf.pointer.width);
        cs.prim = cf.type.prim;
        cs.fixed = cf.resolved.fixed_size;
        cs.plain = c.kind == CaseKind::Number && cf.table.index_of.empty() && cf.type.prim != Prim::Bool8 && cf.type.prim != Prim::Bool32;
        fp.case_steps.push_back(cs);
      }
      if (!fp.case_tags.empty()) {
        const auto [lo, hi] = std::minmax_element(fp.case_tags.begin(), fp.case_tags.end());
        if (*hi - *lo < 1024 && fp.case_tags.size() < 0x7fff) {
          fp.case_min = *lo;
          fp.case_at.assign(*hi - *lo + 1, -1);
          for (size_t ci = fp.case_tags.size(); ci-- > 0;) fp.case_at[fp.case_tags[ci] - *lo] = static_cast<int16_t>(ci);  // the first case of a tag
        }
      }
      if (const Field* tagf = st->field(f.variant.tag))
        fp.tag_signed = !f.array.on && !f.variant.tag_shift && gen::prim_is_signed(tagf->type.prim);
      if (!f.role.zero_when_empty.empty()) fp.zero = index_of(f.role.zero_when_empty);
      sp.fp.push_back(&fp);
      DecodeStep ds;
      ds.f = &f;
      ds.fp = &fp;
      ds.offset = f.resolved.offset;
      ds.size = f.resolved.size;
      ds.member = fp.member;
      ds.prim = f.type.prim;
      if (f.read_at_cursor()) ds.flags |= DecodeStep::Cursor;
      if (f.cond) ds.flags |= DecodeStep::Cond;
      if (f.kind == FieldKind::Virtual) ds.flags |= DecodeStep::Virtual;
      if (f.resolved.fixed_size) ds.flags |= DecodeStep::Fixed;
      ds.kind = f.kind;
      if (const Pool* pl = f.kind == FieldKind::PooledString ? s.pool(f.pool) : nullptr) ds.target_now = !pl->scope.empty();
      if (!f.pool.empty()) {
        ds.pool = p->pool_index(f.pool);
        ds.pool_placed = ds.pool >= 0 && p->placed_pool(s.pools[static_cast<size_t>(ds.pool)]);
      }
      if (f.role.derive && gen::checks_file_size(*f.role.derive)) ds.flags |= DecodeStep::SizeCheck;
      // A derive: is read as any number unless it is checked (SizeCheck) or
      // gives the layout a pool's start (start(), read_checked).
      const bool derive_start = f.role.derive && (f.role.derive->calls(Fn::Start) || (f.role.derive->kind == Expr::Binary &&
                                                                                      !f.role.derive->args.empty() &&
                                                                                      f.role.derive->args[0].calls(Fn::Start)));
      if (f.bom || f.role.derive_pointer || derive_start || (ds.flags & DecodeStep::SizeCheck) || !f.role.also.empty() || f.role.const_int ||
          !f.role.zero_when_empty.empty() || !f.role.valid.empty())
        ds.flags |= DecodeStep::Checks;
      if (!f.table.index_of.empty()) ds.flags |= DecodeStep::IndexOf;
      // A derive: with no check (no Checks: not a size, not a pool's start)
      // is read as any number (read_scalar loads and stores it): plain too.
      if (f.kind == FieldKind::Scalar && f.type.kind == ValueType::Prim && f.resolved.fixed_size && !f.cond && !(ds.flags & DecodeStep::Checks) &&
          f.table.index_of.empty() && f.bits.empty() && f.type.prim != Prim::Bool8 && f.type.prim != Prim::Bool32 &&
          f.resolved.size == gen::prim_size(f.type.prim))
        ds.flags |= DecodeStep::Plain;
      {
        const Value k = prim_value(f.type.prim, 0);
        ds.vkind = k.kind;
        ds.vwidth = k.width;
      }
      if (f.array.on && f.array.count && !f.array.fixed_count && f.array.count->kind == Expr::Ident) resolve_count(*st, *f.array.count, ds);
      ds.bit0 = static_cast<uint32_t>(sp.bit_steps.size());
      ds.nbits = static_cast<uint32_t>(f.bits.size());
      for (const auto& b : f.bits)
        sp.bit_steps.push_back({static_cast<uint8_t>(b.width), static_cast<uint8_t>(bits_bytes(b.width)), b.is_bool, !b.pool.empty()});
      sp.decode.push_back(ds);
      sp.has_mulhash = sp.has_mulhash || (f.role.derive && f.role.derive->calls(Fn::Mulhash));
      sp.has_tags = sp.has_tags || (f.type.kind == ValueType::Prim && f.array.on && !f.resolved.tag_for.empty());
      sp.has_dic = sp.has_dic || f.type.kind == ValueType::Dic;
      if (f.in_model()) {
        // A struct under if: gets its default only when the if: is false (read_struct).
        if (f.cond && f.type.kind == ValueType::Struct && !f.array.on && !(f.pointer.width && f.pointer.null == Field::Null::Allowed)) {
          sp.init.add(f.name, Value{});
        } else if (!std::as_const(fp.def).fields().empty() || !std::as_const(fp.def).items().empty()) {
          sp.heavy.emplace_back(fp.member, &fp.def);
          sp.init.add(f.name, Value{});
        } else {
          sp.init.add(f.name, fp.def);
        }
      }
    }
    for (size_t i = 0; i < s.pools.size(); ++i)
      if (s.pools[i].scope == st->name && s.pools[i].kind != Pool::Kind::Block) sp.scoped_pools.push_back(static_cast<int>(i));
    sp.simple = st->fixed_size && !st->needs_end && !sp.recursive && !sp.extent && st.get() != p->root && sp.scoped_pools.empty() &&
                !sp.has_tags && !sp.has_dic && !sp.has_mulhash && !sp.decode.empty();
    for (DecodeStep& ds : sp.decode) {
      ds.simple = simple_step(sp, ds);
      sp.simple = sp.simple && ds.simple != DecodeStep::NotSimple;
    }
    sp.st = st.get();
    sp.init_flat = true;
    for (const auto& m : sp.init.fields()) sp.init_flat = sp.init_flat && !m.value.holds_block();
    for (BitStep& b : sp.bit_steps) b.mask = b.width >= 64 ? ~0ull : (1ull << b.width) - 1;
    for (DecodeStep& ds : sp.decode) {
      if (ds.nbits) {
        bool flat = true;
        for (uint32_t k = 0; k < ds.nbits; ++k) {
          const BitStep& b = sp.bit_steps[ds.bit0 + k];
          flat = flat && !b.pooled && (!b.is_bool || b.width == 1);
        }
        for (const auto& m : ds.fp->bits_def.fields()) flat = flat && !m.value.holds_block();
        ds.bits_flat = flat && ds.fp->bits_def.fields().size() == ds.nbits;
      }
      if (ds.kind == FieldKind::BitWord && ds.nbits && ds.member >= 0 && ds.prim != Prim::Bool8 && ds.prim != Prim::Bool32 && (ds.flags & DecodeStep::Fixed) &&
          !(ds.flags & (DecodeStep::Cond | DecodeStep::Checks | DecodeStep::IndexOf | DecodeStep::SizeCheck | DecodeStep::Virtual)))
        ds.lean = DecodeStep::LeanBits;
      if (ds.kind == FieldKind::InlineStruct && !(ds.flags & (DecodeStep::Cond | DecodeStep::Virtual)) && ds.f->type.st)
        ds.lean = DecodeStep::LeanStruct;
      unsigned shift = 0;
      for (uint32_t k = 0; k < ds.nbits; ++k) {
        sp.bit_steps[ds.bit0 + k].shift = static_cast<uint8_t>(shift);
        shift += sp.bit_steps[ds.bit0 + k].width;
      }
    }
  }
  // The plans of the structs the fields and cases hold (read_struct's look-up, once).
  for (const auto& st : s.structs) {
    StructPlan& sp = p->structs.at(st.get());
    for (DecodeStep& ds : sp.decode)
      if (ds.f->type.st) ds.sub = &p->structs.at(ds.f->type.st);
    for (const auto& f : st->fields) {
      FieldPlan& fp = p->fields.at(f.get());
      for (size_t ci = 0; ci < f->variant.cases.size() && ci < fp.case_steps.size(); ++ci)
        if (const gen::Struct* cst = f->variant.cases[ci].field->type.st)
          fp.case_steps[ci].sub = &p->structs.at(cst);
    }
  }
  // A struct with a SimpleStruct step is simple when that step's struct is
  // (known now that every step has its sub): dropped until none changes.
  for (bool changed = true; changed;) {
    changed = false;
    for (const auto& st : s.structs) {
      StructPlan& sp = p->structs.at(st.get());
      for (const DecodeStep& ds : sp.decode)
        if (sp.simple && ds.simple == DecodeStep::SimpleStruct && !(ds.sub && ds.sub->simple)) sp.simple = false, changed = true;
    }
  }
  return p;
}

// ---- The reader -------------------------------------------------------------

namespace {

[[noreturn]] void fail_here(uint64_t at, const std::string& field, const std::string& msg) { fail(at, field.c_str(), msg); }

std::string hexs(uint64_t v) {
  static const char* d = "0123456789abcdef";
  std::string r;
  do {
    r.insert(r.begin(), d[v & 15]);
    v >>= 4;
  } while (v);
  return "0x" + r;
}

// The numbers of a struct being read: the generated reader's f_NAME locals.
struct Locals {
  uint64_t small[32];
  std::vector<uint64_t> big;
  uint64_t* raw = small;
  std::vector<std::vector<uint64_t>> tags;  // the tags of a union[] (by field index)
  explicit Locals(size_t n) {
    if (n > 32) {
      big.assign(n, 0);
      raw = big.data();
    } else {
      std::fill(small, small + n, 0);
    }
  }
  Locals(const Locals&) = delete;
};

template <std::endian E>
class Dec {
 public:
  struct R : Reader<E> {
    using Reader<E>::Reader;
    Layout* lay = nullptr;
    std::vector<uint64_t>* slots = nullptr;
    std::vector<uint64_t> scope, base;                                   // per pool
    std::vector<std::vector<std::pair<uint64_t, size_t>>> refs;          // per pool
    std::vector<std::vector<SliceRead>> slices;                          // per pool
    std::vector<std::vector<Value*>> slice_values;                       // per pool: where each slice's alignment goes
    std::vector<uint64_t> g;                                             // context values
    std::vector<IndexTable> tabs;                                        // the root's tables (table:), by table id
  };

  Dec(const Schema::Plan& p, std::span<const uint8_t> bytes) : p_(p), s_(*p.s), r_(bytes) {
    const size_t np = s_.pools.size();
    r_.scope.assign(np, 0);
    r_.base.assign(np, 0);
    r_.refs.resize(np);
    r_.slices.resize(np);
    r_.slice_values.resize(np);
    r_.g.assign(s_.context.size(), 0);
    r_.tabs.resize(p.tables);
  }
  R& reader() { return r_; }

  Value decode_root(Layout* lay) {
    r_.lay = lay;
    if (lay) {
      r_.probe_at = lay->probe_at;
      r_.probe_stop = lay->probe_stop;
    }
    Value x;
    read_struct(*p_.root, 0, x, r_.size(), r_.size());
    if (lay) lay->probe_hits = r_.probe_hits;
    bool any = false;
    for (size_t i = 0; i < s_.pools.size(); ++i) {
      const Pool& pl = s_.pools[i];
      if (!Schema::Plan::layout_pool(pl) || !lay) continue;
      any = true;
      note_pool_order(*lay, static_cast<uint32_t>(i), pl.name.c_str(), r_.data(), r_.size(),
                      pl.base.empty() ? lay->pool_start(static_cast<uint32_t>(i), pl.header_str ? 0x14 : 0) : r_.base[i],
                      static_cast<unsigned>(pl.align), pl.kind == Pool::Kind::Pascal16, r_.big_endian());
    }
    if (any) lay->seen.clear();
    return x;
  }

 private:
  struct Frame {
    const Struct& st;
    const StructPlan& sp;
    uint64_t s;
    uint64_t o;
    uint64_t end, next;
    Locals loc;
    Value& x;
    size_t cur = ~size_t(0);  // the index of the field read_field reads
    std::vector<std::vector<std::string>> dic;  // by field index
    // A constructor, not aggregate initialisation: that zeroed the whole
    // frame (400 bytes, `rep stos`) on every struct read.
    Frame(const Struct& st_, const StructPlan& sp_, uint64_t s_, uint64_t o_, uint64_t end_, uint64_t next_, Value& x_)
        : st(st_), sp(sp_), s(s_), o(o_), end(end_), next(next_), loc(st_.fields.size()), x(x_) {}
  };

  // ---- Loads
  uint64_t load_uint(int width, uint64_t at) const {
    switch (width) {
      case 1: return r_.template get<uint8_t>(at);
      case 2: return r_.template get<uint16_t>(at);
      case 3: return r_.template get<uint24>(at);
      case 4: return r_.template get<uint32_t>(at);
      default: return r_.template get<uint64_t>(at);
    }
  }
  // The raw value of a primitive (signed ones sign-extended; floats their bits).
  [[gnu::always_inline]] uint64_t load_prim(Prim p, uint64_t at) const {
    switch (p) {
      case Prim::U8: case Prim::Bool8: return r_.template get<uint8_t>(at);
      case Prim::U16: return r_.template get<uint16_t>(at);
      case Prim::U24: return r_.template get<uint24>(at);
      case Prim::U32: case Prim::Bool32: case Prim::F32: return r_.template get<uint32_t>(at);
      case Prim::U64: case Prim::F64: return r_.template get<uint64_t>(at);
      case Prim::S8: return static_cast<uint64_t>(int64_t(r_.template get<int8_t>(at)));
      case Prim::S16: return static_cast<uint64_t>(int64_t(r_.template get<int16_t>(at)));
      case Prim::S24: return static_cast<uint64_t>(int64_t(r_.template get<int24>(at)));
      case Prim::S32: return static_cast<uint64_t>(int64_t(r_.template get<int32_t>(at)));
      case Prim::S64: return r_.template get<uint64_t>(at);
    }
    return 0;
  }
  // Value::string(std::string(t)) stored into v in place: the text copied
  // once into v's block (no std::string made and moved, no temporary Value
  // moved in: put_prim's stall). v is a member or element being read: a
  // number, Absent, or a string or bytes whose block it reuses.
  static void put_text(Value& v, std::string_view t, Value::Kind k = Value::Kind::String) {
    if (v.kind != Value::Kind::String && v.kind != Value::Kind::Bytes) v = Value();  // a number, a struct, ...: what it holds goes
    v.kind = k;
    v.width = 0;
    if (!t.empty()) v.str().assign(t.data(), t.size());
    else if (!std::as_const(v).str().empty()) v.str().clear();
  }
  // load_elem: one element of an array of numbers (a bool checked), into v.
  void load_elem(Value& v, const Field& f, uint64_t at) const {
    const uint64_t raw = load_prim(f.type.prim, at);
    if (f.type.prim == Prim::Bool8 || f.type.prim == Prim::Bool32) {
      const uint64_t tv = f.true_value ? *f.true_value : 1;
      if (raw != 0 && raw != tv)
        throw DecodeError(at, "value " + hex(raw) + " is not a bool (0 or " + (f.true_value ? hexs(*f.true_value) : "1") + ")");
    }
    put_prim(v, f.type.prim, raw);
  }
  // The n elements of an array of numbers at `at`, `stride` apart, as
  // `items` (load_elem's values: the bytes were checked by the caller): one
  // loop per primitive, the kind and width decided once, each element made
  // in place. A bool array goes element by element (each is checked).
  template <class T>
  void fill(List<Value>& items, size_t n, uint64_t at, uint64_t stride, Value::Kind k, uint8_t w) const {
    items.assign_made(n, [&](size_t i) {
      Value v;
      if constexpr (std::is_signed_v<T>) v.set_number(k, w, static_cast<uint64_t>(int64_t(r_.template get<T>(at + i * stride))));
      else v.set_number(k, w, static_cast<uint64_t>(r_.template get<T>(at + i * stride)));
      return v;
    });
  }
  void load_elems(List<Value>& items, size_t n, const Field& f, uint64_t at, uint64_t stride) const {
    const Prim p = f.type.prim;
    const Value k = prim_value(p, 0);
    switch (p) {
      case Prim::U8: return fill<uint8_t>(items, n, at, stride, k.kind, k.width);
      case Prim::U16: return fill<uint16_t>(items, n, at, stride, k.kind, k.width);
      case Prim::U32: case Prim::F32: return fill<uint32_t>(items, n, at, stride, k.kind, k.width);
      case Prim::U64: case Prim::F64: case Prim::S64: return fill<uint64_t>(items, n, at, stride, k.kind, k.width);
      case Prim::S8: return fill<int8_t>(items, n, at, stride, k.kind, k.width);
      case Prim::S16: return fill<int16_t>(items, n, at, stride, k.kind, k.width);
      case Prim::S32: return fill<int32_t>(items, n, at, stride, k.kind, k.width);
      default:
        items.resize(n);
        for (size_t i = 0; i < n; ++i) load_elem(items[i], f, at + i * stride);
    }
  }
  void note_slot(uint64_t at) {
    if (s_.relocation_table && r_.slots) r_.slots->push_back(at);
  }

  // ---- Pools
  std::string_view str_pool(int i, uint64_t at) const {
    const Pool& pl = s_.pools[i];
    if (Schema::Plan::layout_pool(pl)) {
      const std::string_view t = pl.kind == Pool::Kind::Pascal16 ? r_.pascal16(at) : r_.cstring(at);
      if (r_.lay) [[unlikely]] r_.lay->note_string(static_cast<uint32_t>(i), at, t.size());
      return t;
    }
    return pl.kind == Pool::Kind::Pascal16 ? r_.pascal16(at) : r_.cstring(at);
  }
  uint64_t pool_base(int i) const { return s_.pools[i].base.empty() ? 0 : r_.base[i]; }
  // pool_read: a pooled string the pool's way.
  std::string_view pool_read(const std::string& pool, uint64_t at) const {
    const int i = p_.pool_index(pool);
    return str_pool(i, pool_base(i) + at);
  }

  // ---- Expressions on the read side (read_expr), with C++'s integer types.
  static bool frame_local(const void* self, const std::string& name, CNum& out) {
    auto [d, fr] = *static_cast<const std::pair<Dec*, Frame*>*>(self);
    return d->local(*fr, name, out);
  }
  static bool frame_ctx(const void* self, const std::string& name, uint64_t& out) {
    const Dec* d = static_cast<const std::pair<Dec*, Frame*>*>(self)->first;
    for (size_t i = 0; i < d->s_.context.size(); ++i)
      if (d->s_.context[i] == name) {
        out = d->r_.g[i];
        return true;
      }
    return false;
  }
  std::vector<const Field*> targets_;  // read_struct's pointer fields, a stack
  struct LocalInfo {
    const std::string* name = nullptr;
    const Struct* st = nullptr;
    const Field* f = nullptr;
    size_t index = 0;
    int ctx = -1;  // no field of that name: the context value's index (-1: none)
    enum : uint8_t { None, Local, Bit, Ctx } how = None;
    uint8_t shift = 0;  // Bit: the bit field's shift and mask in its word
    uint64_t mask = 0;
  };
  LocalInfo local_[512];
  // What a name is in the struct st (decided once per name and struct: the
  // cache below): a local, a bit of a bit word (`word.bit`), a context value.
  void find_local(LocalInfo& li, const Struct& st, const std::string& name) {
    li = LocalInfo{};
    li.name = &name;
    li.st = &st;
    const size_t dot = name.find('.');
    if (dot != std::string::npos) {
      const Field* f = st.field(name.substr(0, dot));
      if (!f) return;
      unsigned shift = 0;
      for (const auto& b : f->bits) {
        if (b.name == name.substr(dot + 1)) {
          li.how = LocalInfo::Bit;
          li.f = f;
          li.index = p_.of(f).index;
          li.shift = static_cast<uint8_t>(shift);
          li.mask = b.width >= 64 ? ~0ull : (1ull << b.width) - 1;
          return;
        }
        shift += b.width;
      }
      return;
    }
    li.f = st.field(name);
    if (li.f) {
      li.how = LocalInfo::Local;
      li.index = p_.of(li.f).index;
      return;
    }
    for (size_t i = 0; i < s_.context.size(); ++i)
      if (li.ctx < 0 && s_.context[i] == name) li.ctx = static_cast<int>(i);
    if (li.ctx >= 0) li.how = LocalInfo::Ctx;
  }
  bool local(Frame& fr, const std::string& name, CNum& out) {
    // The name by its address (an expression's, lasting), not st.field()'s
    // comparison of every name, the plan's probe, or a search for a dot.
    LocalInfo& li = local_[(reinterpret_cast<uintptr_t>(&name) >> 4) * 0x9e3779b97f4a7c15ull >> 55];
    if (li.name != &name || li.st != &fr.st) [[unlikely]] find_local(li, fr.st, name);
    switch (li.how) {
      case LocalInfo::Local: out = local_num(*li.f, fr.loc.raw[li.index]); return true;
      case LocalInfo::Bit: out = CNum::u64((fr.loc.raw[li.index] >> li.shift) & li.mask); return true;
      case LocalInfo::Ctx: out = CNum::u64(r_.g[static_cast<size_t>(li.ctx)]); return true;
      default: return false;
    }
  }
  CNum eval(Frame& fr, const Expr& x) {
    const std::pair<Dec*, Frame*> self{this, &fr};
    ExprEnv e;
    e.local = &frame_local;
    e.ctx = &frame_ctx;
    e.self = &self;
    e.s = fr.s;
    e.o = &fr.o;
    e.file_size = r_.size();
    e.model = &fr.x;
    e.st = &fr.st;
    return eval_read(x, e);
  }
  // A name alone (most counts) is its local, as eval_read's Ident finds it.
  uint64_t eval_u(Frame& fr, const Expr& e) {
    if (CNum out; e.kind == Expr::Ident && local(fr, e.name, out)) return out.v;
    return eval(fr, e).v;
  }
  bool eval_cond(Frame& fr, const Expr& e) { return eval_u(fr, e) != 0; }
  // The count of array field f (read_field's field): its local when the
  // plan resolved the name (DecodeStep::count_index), else evaluated.
  [[gnu::always_inline]] uint64_t count_of(Frame& fr, const Field& f) {
    if (fr.cur < fr.sp.decode.size()) {
      const DecodeStep& ds = fr.sp.decode[fr.cur];
      if (ds.f == &f && ds.count_index >= 0) return fr.loc.raw[ds.count_index];
    }
    return eval_u(fr, *f.array.count);
  }

  static CNum local_num(const Field& f, uint64_t raw) {
    if (f.pointer.width) return CNum::u64(raw);
    switch (f.type.prim) {
      case Prim::U8: case Prim::U16: case Prim::Bool8: case Prim::S8: case Prim::S16: case Prim::S24: case Prim::S32:
        return CNum::s32(static_cast<int64_t>(raw));
      case Prim::U24: case Prim::U32: case Prim::Bool32: return CNum::u32(raw);
      case Prim::S64: return CNum::s64(static_cast<int64_t>(raw));
      default: return CNum::u64(raw);
    }
  }
  // std::to_string of a local (its C++ type's spelling).
  static std::string local_text(const Field& f, uint64_t raw) {
    if (!f.pointer.width && gen::prim_is_signed(f.type.prim)) return std::to_string(static_cast<int64_t>(raw));
    return std::to_string(raw);
  }

  Value* member(Frame& fr, const Field& f) {
    // The field being read (read_field) without a look-up by address.
    const int m = fr.cur < fr.sp.decode.size() && fr.sp.decode[fr.cur].f == &f ? fr.sp.decode[fr.cur].member : p_.of(&f).member;
    return m < 0 ? nullptr : fr.x.fields().values() + m;
  }
  Value* member(Frame& fr, size_t fi) {
    const int m = fr.sp.decode[fi].member;
    return m < 0 ? nullptr : fr.x.fields().values() + m;
  }

  // ---- read_fn
  uint64_t read_struct(const Struct& st, uint64_t s, Value& x, uint64_t end, uint64_t next) { return read_sp(p_.of(&st), s, x, end, next); }
  // v, which holds no block (a number member as start_struct or
  // assign_flat made it), made that number: set_number() without its check
  // of what v held (a check per number read).
  static void renumber(Value& v, Value::Kind k, uint8_t w, uint64_t bits) { new (&v) Value(Value::number(k, w, bits)); }
  // `init` into x: its members copied as bytes when they hold no block.
  static void start_struct(const StructPlan& sp, Value& x) {
    if (!sp.init_flat) {
      x = sp.init;
      return;
    }
    x.set_kind(Value::Kind::Struct);
    x.width = 0;
    x.fields().assign_flat(sp.init.fields().shape(), sp.init.fields().values());
  }
  // read_struct with the struct's plan (DecodeStep::sub, CaseStep::sub: no look-up).
  uint64_t read_sp(const StructPlan& sp, uint64_t s, Value& x, uint64_t end, uint64_t next) {
    const Struct& st = *sp.st;
    if (sp.simple) return read_simple(st, sp, s, x);
    std::optional<Nested> nested;
    if (sp.recursive) nested.emplace(r_.nest, s, st.name.c_str());
    if (st.needs_end && (end > r_.size() || end < s))
      throw DecodeError(s, "block at " + hex(s) + " ends at " + hex(end) + ", outside the file");
    for (int i : sp.scoped_pools) {
      r_.scope[i] = s;
      r_.refs[i].clear();
    }
    if (&st == p_.root)
      for (size_t i = 0; i < s_.pools.size(); ++i)
        if (s_.pools[i].kind == Pool::Kind::Data) {
          r_.slices[i].clear();
          r_.slice_values[i].clear();
        }
    r_.need(s, st.fixed_size ? st.size : st.prefix, sp.fields_here.data(), sp.fields_here.size());
    start_struct(sp, x);  // a Struct (Block::clone, or a copy of the bytes: measured faster than building the members in place, EVNT 174 -> 193 MB/s)
    Frame fr(st, sp, s, st.fixed_size ? s : s + st.prefix, end, next, x);
    if (sp.has_tags) fr.loc.tags.resize(st.fields.size());
    if (sp.has_dic) fr.dic.resize(st.fields.size());
    // The pointer fields whose targets are read after the struct: on one
    // stack for the whole decode (a vector per struct read was an
    // allocation per struct with a pointer), this struct's from tbase.
    const size_t tbase = targets_.size();
    const struct Truncate {
      std::vector<const Field*>& v;
      size_t n;
      ~Truncate() { v.resize(n); }
    } truncate{targets_, tbase};
    bool at_cursor = false;
    const bool root = &st == p_.root;
    Value* const mem = x.fields().values();  // the members stay where they are during the read
    const size_t nf = st.fields.size();
    // In locals (not reloaded after each store of a value's width: a
    // uint8_t store may alias anything).
    const DecodeStep* const steps = sp.decode.data();
    uint64_t* const raws = fr.loc.raw;
    for (size_t fi = 0; fi < nf; ++fi) {
      const DecodeStep& ds = steps[fi];
      const bool cursor = ds.flags & DecodeStep::Cursor;
      if ((ds.flags & DecodeStep::Plain) && !root) {
        // A plain number: loaded and stored (read_field and read_scalar, no check to make).
        const uint64_t size = ds.size;
        const int m = ds.member;
        const Value::Kind vk = ds.vkind;
        const uint8_t vw = ds.vwidth;
        const uint64_t o = cursor ? fr.o : s + ds.offset;
        if (cursor) r_.need(o, size);
        const uint64_t raw = load_prim(ds.prim, o);
        raws[fi] = raw;
        if (cursor) fr.o = o + size;
        if (m >= 0) {
          // prim_value in place: the member holds a number (its default) and no block.
          renumber(mem[m], vk, vw, raw);
        }
        continue;
      }
      if (ds.lean && !root) {
        // read_field's and read_scalar's work for a bit word with no check,
        // or an inline struct, with no call between.
        const uint64_t o = cursor ? fr.o : s + ds.offset;
        if (cursor && (ds.flags & DecodeStep::Fixed)) r_.need(o, ds.size);
        if (ds.lean == DecodeStep::LeanBits) {
          const uint64_t raw = load_prim(ds.prim, o);
          raws[fi] = raw;
          read_bits(sp, *ds.f, fi, raw, mem[ds.member]);
        } else {
          Value tmp;
          Value* dst = ds.member >= 0 ? mem + ds.member : &tmp;
          try {
            const uint64_t e = st.needs_end ? fr.end : r_.size();
            if (ds.sub->st->fixed_size) read_sp(*ds.sub, o, *dst, e, r_.size());
            else fr.o = read_sp(*ds.sub, o, *dst, e, r_.size());
          } catch (DecodeError& err) {
            err.push_field(ds.f->name.c_str());
            throw;
          }
        }
        if (cursor && (ds.flags & DecodeStep::Fixed)) fr.o += ds.size;
        continue;
      }
      const Field& f = *ds.f;
      if (root && cursor && !at_cursor) {
        at_cursor = true;
        for (size_t pi = 0; pi < s_.pools.size(); ++pi) {
          const Pool& pl = s_.pools[pi];
          if (!p_.placed_pool(pl)) continue;
          uint64_t pos = fr.o;
          for (size_t i = fi; st.fields[i]->name != pl.base; ++i) {
            const Field& g = *st.fields[i];
            if (g.resolved.fixed_size) pos += g.resolved.size;
            else pos += fr.loc.raw[p_.of(st.field(g.array.count->name)).index] * g.type.st->size;
          }
          const uint64_t a = std::max(pl.align, pl.block_align);
          r_.base[pi] = a <= 1 ? pos : (pos + a - 1) / a * a;
          r_.refs[pi].clear();
        }
      }
      if ((ds.flags & DecodeStep::Cond) && !eval_cond(fr, *f.cond)) {
        if (f.type.kind == ValueType::Struct && !f.array.on && !(f.pointer.width && f.pointer.null == Field::Null::Allowed))
          if (Value* v = member(fr, fi)) *v = p_.of(f.type.st).empty;
        continue;
      }
      const uint64_t o = cursor ? fr.o : s + ds.offset;
      read_field(fr, f, fi, o, targets_);  // not `cursor`: a bool spilled as a byte and reloaded as an int for the call stalled (store forwarding, a fifth of EVNT's read_struct)
      if (root) {
        for (size_t i = 0; i < s_.context.size(); ++i)
          if (s_.context[i] == f.name) r_.g[i] = fr.loc.raw[fi];
        for (size_t pi = 0; pi < s_.pools.size(); ++pi)
          if (s_.pools[pi].base == f.name && !p_.placed_pool(s_.pools[pi])) r_.base[pi] = fr.loc.raw[fi];
      }
    }
    for (size_t ti = tbase; ti < targets_.size(); ++ti) {  // by index: a target's read pushes and pops above
      const Field* f = targets_[ti];
      if (f->cond && !eval_cond(fr, *f->cond)) continue;
      read_target(fr, *f);
    }
    if (!sp.heavy.empty())
      for (const auto& [m, def] : sp.heavy)
        if (Value& v = mem[m]; v.kind == Value::Kind::Absent) v = *def;
    if (sp.has_mulhash)
    for (const auto& f : st.fields) {
      // A stored hash with a parameter, checked once its name is read.
      if (!f->role.derive || !f->role.derive->calls(Fn::Mulhash)) continue;
      const Expr& a = f->role.derive->args[0];
      const size_t dot = a.name.find('.');
      const Value* name = x.find(a.name.substr(0, dot));
      if (name && dot != std::string::npos) name = name->find(a.name.substr(dot + 1));
      const uint64_t want = uint64_t(mulhash32(name ? std::as_const(*name).str() : std::string(), static_cast<uint32_t>(eval_u(fr, f->role.derive->args[1]))));
      const uint64_t raw = fr.loc.raw[p_.of(f.get()).index];
      if (raw != want)
        fail_here(f->resolved.fixed_offset ? s + f->resolved.offset : fr.o, f->name,
                  "says " + hex(raw) + " but " + gen::expr_text(*f->role.derive) + " is " + hex(want));
    }
    if (sp.has_dic)
    for (const auto& f : st.fields) {
      if (f->type.kind != ValueType::Dic) continue;
      auto& d = fr.dic[p_.of(f.get()).index];
      Value* arr = x.find(f->keys_array);
      const size_t n = arr ? arr->items().size() : 0;
      if (d.size() != n)
        fail_here(s, f->name, "the dictionary has " + std::to_string(d.size()) + " names for " + std::to_string(n) + " elements of " + f->keys_array);
      const Struct* et = s_.find(st.field(f->keys_array)->type.struct_name);
      const bool virt = et->field(f->keys_field)->is_virtual;
      for (size_t i = 0; i < d.size(); ++i) {
        Value* k = arr->items()[i].find(f->keys_field);
        if (virt) {
          if (k) *k = Value::string(std::move(d[i]));
        } else if (k && std::as_const(*k).str() != d[i]) {
          fail_here(s, f->name, "dictionary name '" + d[i] + "' differs from the element's " + f->keys_field + " '" + std::as_const(*k).str() + "'");
        }
      }
    }
    if (&st == p_.root) {
      for (size_t pi = 0; pi < s_.pools.size(); ++pi) {
        const Pool& pl = s_.pools[pi];
        if (pl.kind != Pool::Kind::Data) continue;
        std::vector<uint32_t> aligns(r_.slices[pi].size(), 0);
        for (size_t k = 0; k < aligns.size(); ++k)
          if (r_.slice_values[pi][k]) r_.slices[pi][k].align = &aligns[k];
        check_slices({r_.data(), r_.size()}, r_.slices[pi], r_.base[pi], st.fixed_size ? s + st.size : fr.o, r_.size(), pl.align,
                     pl.name.c_str());
        for (size_t k = 0; k < aligns.size(); ++k)
          if (Value* v = r_.slice_values[pi][k]) v->set_uint(aligns[k]);
      }
    }
    return fr.o;
  }

  // A small fixed struct whose fields need no frame (StructPlan::simple,
  // DecodeStep::simple): what read_struct does for it, with no frame,
  // locals or expressions. Its pooled strings are read after its fields,
  // as read_struct reads a struct's targets.
  uint64_t read_simple(const Struct& st, const StructPlan& sp, uint64_t s, Value& x) {
    r_.need(s, st.size, sp.fields_here.data(), sp.fields_here.size());
    start_struct(sp, x);
    Value* const mem = x.fields().values();
    const size_t nf = sp.decode.size();
    const DecodeStep* const steps = sp.decode.data();
    bool strings = false;
    for (size_t fi = 0; fi < nf; ++fi) {
      const DecodeStep& ds = steps[fi];
      if (ds.member < 0) continue;
      const uint64_t o = s + ds.offset;
      Value& v = mem[ds.member];
      switch (ds.simple) {
        case DecodeStep::SimplePlain: {
          // prim_value in place, as read_struct's plain numbers.
          const uint64_t raw = load_prim(ds.prim, o);
          renumber(v, ds.vkind, ds.vwidth, raw);
          break;
        }
        case DecodeStep::SimpleBits: read_bits(sp, *ds.f, fi, load_prim(ds.prim, o), v); break;
        case DecodeStep::SimpleBool: {
          // read_scalar's bool: checked, then stored (the member holds its default, no block).
          const uint64_t raw = load_prim(ds.prim, o);
          check_bool(*ds.f, raw, o, ds.f->name);
          renumber(v, Value::Kind::Bool, ds.vwidth, raw != 0);
          break;
        }
        case DecodeStep::SimpleString: {
          const Field& f = *ds.f;
          if (f.pointer.width == 8 && f.pointer.base == Field::Base::File && !f.pointer.points_to_chars) note_slot(o);
          strings = true;
          break;
        }
        case DecodeStep::SimpleStruct:
          try {
            read_simple(*ds.sub->st, *ds.sub, o, v);
          } catch (DecodeError& e) {
            e.push_field(ds.f->name.c_str());
            throw;
          }
          break;
        case DecodeStep::SimpleNumbers: {
          // read_inline_array's fixed array of numbers (its member starts Absent: StructPlan::heavy).
          const Field& f = *ds.f;
          const uint64_t n = *f.array.fixed_count;
          v.set_kind(Value::Kind::Array);
          load_elems(v.items(), n, f, o, gen::prim_size(f.type.prim));
          break;
        }
      }
    }
    if (strings)
      for (size_t fi = 0; fi < nf; ++fi) {
        const DecodeStep& ds = steps[fi];
        if (ds.simple != DecodeStep::SimpleString) continue;
        const Field& f = *ds.f;
        try {
          read_pooled(ds, f, load_uint(f.pointer.width, s + ds.offset) * f.pointer.scale, s, mem[ds.member]);
        } catch (DecodeError& e) {
          e.push_field(f.name.c_str());
          throw;
        }
      }
    for (const auto& [m, def] : sp.heavy)
      if (Value& v = mem[m]; v.kind == Value::Kind::Absent) v = *def;
    return s;
  }

  // ---- read_field
  void read_field(Frame& fr, const Field& f, size_t fi, uint64_t o, std::vector<const Field*>& targets) {
    const DecodeStep& ds = fr.sp.decode[fi];
    const bool cursor = ds.flags & DecodeStep::Cursor;
    if (ds.kind == FieldKind::Virtual) return;
    fr.cur = fi;
    const bool fixed = ds.flags & DecodeStep::Fixed;
    if (cursor && fixed) r_.need(fr.o, ds.size);
    switch (ds.kind) {
      case FieldKind::Virtual: break;
      case FieldKind::Pointer:
      case FieldKind::ArrayPointer:
      case FieldKind::PooledString:
      case FieldKind::OwnString:
      case FieldKind::BlockRef:
      case FieldKind::Dic: {
        fr.loc.raw[fi] = load_uint(f.pointer.width, o) * f.pointer.scale;
        if (f.pointer.width == 8 && f.pointer.base == Field::Base::File && !f.pointer.points_to_chars) note_slot(o);
        if (ds.target_now) read_target(fr, f);
        else targets.push_back(&f);
        break;
      }
      case FieldKind::Scalar:
      case FieldKind::BitWord: read_scalar(fr, f, fi, o); break;
      case FieldKind::Chars: read_chars(fr, f, o); break;
      case FieldKind::Bytes: read_bytes(fr, f); break;
      case FieldKind::Slice: {
        const int pi = p_.pool_index(f.pool);
        const uint64_t b = load_uint(f.pointer.width, o), e = load_uint(f.pointer.width, o + f.pointer.width);
        const uint64_t base = r_.base[pi];
        if (b > e || base + e > r_.size())
          fail_here(o, f.name, "slice " + hex(b) + ".." + hex(e) + " of pool " + f.pool + " (from " + hex(base) + ") is not inside the file (" +
                                   hex(r_.size()) + " bytes)");
        if (Value* v = member(fr, f)) put_text(*v, std::string_view(reinterpret_cast<const char*>(r_.data()) + base + b, e - b), Value::Kind::Bytes);
        r_.slices[pi].push_back({base + b, base + e, o, nullptr});
        r_.slice_values[pi].push_back(f.pointer.align_field.empty() ? nullptr : fr.x.find(f.pointer.align_field));
        break;
      }
      case FieldKind::PoolBlock:
        if (p_.placed_pool(*s_.pool(f.pool))) read_placed_pool(fr, f);
        else read_bytes(fr, f);
        break;
      case FieldKind::CString: {
        Value* v = member(fr, f);
        std::string_view t;
        try {
          t = r_.cstring(fr.o);
        } catch (DecodeError& e) {
          e.push_field(f.name.c_str());
          throw;
        }
        fr.o += t.size() + 1;
        if (v) put_text(*v, t);  // copied once into the value's block (no std::string made and moved)
        if (f.pad) pad_zeros(fr, f, "after the string");
        break;
      }
      case FieldKind::InlineStruct: {
        Value tmp;
        Value* dst = member(fr, f);
        if (!dst) dst = &tmp;
        try {
          const uint64_t e = fr.st.needs_end ? fr.end : r_.size();
          if (f.type.st->fixed_size) read_sp(*ds.sub, o, *dst, e, r_.size());
          else fr.o = read_sp(*ds.sub, o, *dst, e, r_.size());
        } catch (DecodeError& e) {
          e.push_field(f.name.c_str());
          throw;
        }
        break;
      }
      case FieldKind::InlineArray:
        read_inline_array(fr, f, o, cursor);
        if (f.pad) pad_zeros(fr, f, "after the array");
        break;
      case FieldKind::StringOffsets: read_string_offsets(fr, f); break;
      case FieldKind::ElemPointers: read_elem_pointers(fr, f, o, cursor); break;
      case FieldKind::OwnStrings: break;
      case FieldKind::Union:
        if (f.array.on) read_union_array(fr, f);
        else {
          Value tmp;
          Value* dst = member(fr, f);
          const int ti = fr.sp.fp[fi]->tag;
          read_union_one(fr, f, *fr.sp.fp[fi], o, dst ? *dst : tmp, ti >= 0 ? fr.loc.raw[ti] : 0);
        }
        break;
    }
    if (cursor && fixed) fr.o += ds.size;
  }

  void pad_zeros(Frame& fr, const Field& f, const char* what) {
    const uint64_t end = (fr.o + f.pad - 1) / f.pad * f.pad;
    r_.need(fr.o, end - fr.o);
    for (uint64_t i = fr.o; i < end; ++i)
      if (r_.data()[i] != 0) fail_here(i, f.name, "padding byte " + hex(r_.data()[i]) + " " + what + " is not zero");
    fr.o = end;
  }

  // ---- read_scalar
  void read_scalar(Frame& fr, const Field& f, size_t fi, uint64_t o) {
    uint64_t& raw = fr.loc.raw[fi];
    const DecodeStep& ds = fr.sp.decode[fi];
    bool has_empty0 = false;
    bool empty0 = false;
    if (!(ds.flags & DecodeStep::Checks)) [[likely]] {
      raw = load_prim(ds.prim, o);
    } else {
      read_checked(fr, f, fi, o, raw, has_empty0, empty0);
    }
    if (ds.member < 0) return;
    Value& x = fr.x.fields().values()[ds.member];
    if (ds.flags & DecodeStep::IndexOf) {  // an index into a table of the root: the model holds its string
      x = Value::string(r_.tabs[static_cast<size_t>(f.table.id)].at(raw, o, f.name.c_str(), f.table.index_of.c_str()));
      return;
    }
    if (ds.prim == Prim::Bool8 || ds.prim == Prim::Bool32) {
      check_bool(f, raw, o, f.name);
      put_prim(x, ds.prim, raw);
    } else if (ds.nbits) {
      read_bits(fr.sp, f, fi, raw, x);
    } else if (has_empty0) {
      if (!empty0) put_prim(x, ds.prim, raw);
    } else {
      put_prim(x, ds.prim, raw);
    }
  }

  // read_scalar's checks (and layout notes), in the generated reader's order.
  void read_checked(Frame& fr, const Field& f, size_t fi, uint64_t o, uint64_t& raw, bool& has_empty0, bool& empty0) {
    if (f.bom) raw = uint16_t(r_.data()[o] << 8 | r_.data()[o + 1]);
    else raw = load_prim(f.type.prim, o);
    if (f.role.derive_pointer && gen::prim_size(f.type.prim) == 8) note_slot(o);
    if (f.role.derive && r_.lay) {
      const Expr& d = *f.role.derive;
      const Expr* st = d.calls(Fn::Start) ? &d
                       : d.kind == Expr::Binary && d.name == "-" && d.args.size() == 2 && d.args[0].calls(Fn::Start) &&
                                 d.args[1].calls(Fn::Start) && !d.args[1].args.empty() && d.args[1].args[0].name == "self"
                           ? &d.args[0]
                           : nullptr;
      if (st && !st->args.empty())
        for (size_t i = 0; i < s_.pools.size(); ++i)
          if (s_.pools[i].name == st->args[0].name && s_.pools[i].base.empty() && Schema::Plan::layout_pool(s_.pools[i]))
            r_.lay->note_pool_start(static_cast<uint32_t>(i), raw + (st == &d ? 0 : fr.s));
    }
    if (fr.sp.decode[fi].flags & DecodeStep::SizeCheck)
      if (raw != eval_u(fr, *f.role.derive)) fail_here(o, f.name, "says " + hex(raw) + " but the file has " + hex(r_.size()) + " bytes");
    if (!f.role.also.empty()) {
      const uint64_t d = eval_u(fr, *f.role.derive);
      if (raw != d) {
        bool ok = false;
        std::string list;
        for (int64_t v : f.role.also) {
          ok = ok || raw == static_cast<uint64_t>(v);
          list += ", " + hexs(static_cast<uint64_t>(v));
        }
        if (!ok) fail_here(o, f.name, "expected " + hex(d) + " (or" + list.substr(1) + "), found " + hex(raw));
        if (r_.lay) r_.lay->note(o, raw);
      }
    }
    if (f.role.const_int && raw != static_cast<uint64_t>(*f.role.const_int))
      fail_here(o, f.name, "expected " + std::to_string(*f.role.const_int) + ", found " + local_text(f, raw));
    has_empty0 = !f.role.zero_when_empty.empty();
    if (has_empty0) {
      const uint64_t cnt = fr.loc.raw[fr.sp.fp[fi]->zero];
      empty0 = cnt == 0 && raw == 0;
      if (cnt == 0 && raw != 0 && r_.lay) r_.lay->note(o, raw);
    }
    if (!f.role.valid.empty()) {
      bool bad = !(has_empty0 && empty0);
      for (int64_t v : f.role.valid) bad = bad && raw != static_cast<uint64_t>(v);
      if (bad) {
        std::string list;
        for (int64_t v : f.role.valid)
          list += (list.empty() ? "" : ", ") + (f.spell.hex && v >= 0 ? hexs(static_cast<uint64_t>(v)) : std::to_string(v));
        const std::string shown = f.spell.hex ? hex(raw) : local_text(f, raw);
        const bool is_version = &fr.st == p_.root &&
                                std::find(s_.version_fields.begin(), s_.version_fields.end(), f.name) != s_.version_fields.end();
        if (is_version) fail_here(o, f.name, "unsupported version " + shown + " (supported: " + list + ")");
        fail_here(o, f.name, "value " + shown + " is not one of " + list);
      }
    }
  }

  // A bit word's struct, built here (its member starts Absent:
  // StructPlan::heavy) from the plan's bit steps (the model's Bits are 192
  // bytes each).
  void read_bits(const StructPlan& sp, const Field& f, size_t fi, uint64_t raw, Value& x) {
      const DecodeStep& ds = sp.decode[fi];
      const BitStep* bs = sp.bit_steps.data() + ds.bit0;
      const size_t nb = ds.nbits;
      if (ds.bits_flat) {
        // bits_def's values copied (each bit's kind and width), then the numbers.
        const Value& def = ds.fp->bits_def;
        x.set_kind(Value::Kind::Struct);
        x.fields().assign_flat(def.fields().shape(), def.fields().values());
        Value* const xm = x.fields().values();
        for (size_t k = 0; k < nb; ++k) {
          const Value& d = xm[k];  // bits_def's kind and width
          renumber(xm[k], d.kind, d.width, (raw >> bs[k].shift) & bs[k].mask);  // a bool's one bit is its 0 or 1
        }
        return;
      }
      x.set_kind(Value::Kind::Struct);
      x.fields().reset(sp.fp[fi]->bits_def.fields().shape());  // the bits' names, every value Absent
      Value* xm = x.fields().values();
      for (size_t k = 0; k < nb; ++k) {
        uint64_t v = (raw >> bs[k].shift) & bs[k].mask;  // the shift and mask decided in make_plan
        Value& bx = xm[k];
        if (bs[k].pooled) {
          const auto& b = f.bits[k];
          if (b.scale > 1) v *= b.scale;
          const int pi = p_.pool_index(b.pool);
          try {
            put_text(bx, pool_read(b.pool, v));
            if (p_.placed_pool(s_.pools[pi])) r_.refs[pi].emplace_back(pool_base(pi) + v, std::as_const(bx).str().size());
          } catch (DecodeError& e) {
            e.push_field(b.name.c_str());
            e.push_field(f.name.c_str());
            throw;
          }
        } else {
          // In place (put_prim's reason): bx is new, Absent.
          if (bs[k].is_bool) bx.set_number(Value::Kind::Bool, 0, v != 0);
          else bx.set_number(Value::Kind::UInt, bs[k].bytes, v);
        }
      }
  }

  void check_bool(const Field& f, uint64_t raw, uint64_t at, const std::string& name) const {
    const uint64_t tv = f.true_value ? *f.true_value : 1;
    if (raw != 0 && raw != tv)
      fail_here(at, name, "value " + hex(raw) + " is not a bool (0 or " + (f.true_value ? hexs(*f.true_value) : "1") + ")");
  }

  // ---- read_chars, read_bytes, read_placed_pool
  void read_chars(Frame& fr, const Field& f, uint64_t o) {
    const size_t n = f.type.chars;
    if (f.role.const_text) {
      // As the generated code's C string literal: up to its first NUL.
      const std::string want = f.role.const_text->substr(0, f.role.const_text->find('\0'));
      if (r_.chars(o, n) != want)
        fail_here(o, f.name, "expected \"" + want + "\", found \"" + std::string(r_.chars(o, n)) + "\"");
    } else if (Value* v = member(fr, f)) {
      put_text(*v, r_.chars(o, n));
    }
  }

  void read_bytes(Frame& fr, const Field& f) {
    const uint64_t o = fr.o;
    const uint64_t n = f.size_rest ? until_(o, fr.end) : eval_u(fr, *f.size_expr);
    r_.need(o, n);
    if (f.kind == FieldKind::Bytes) {
      if (Value* v = member(fr, f)) put_text(*v, std::string_view(reinterpret_cast<const char*>(r_.data()) + o, n), Value::Kind::Bytes);
    } else {
      const int pi = p_.pool_index(f.pool);
      uint64_t p = o;
      for (const auto& [at, len] : r_.refs[pi]) {
        if (at != p) fail_here(o, f.name, "the block is not the referenced strings in order (string at " + hex(at) + ", expected " + hex(p) + ")");
        p += len + 1;
      }
      if (p != o + n) fail_here(o, f.name, "the block holds " + hex(n) + " bytes, its strings " + hex(p - o));
    }
    fr.o = o + n;
  }

  void read_placed_pool(Frame& fr, const Field& f) {
    const int pi = p_.pool_index(f.pool);
    const Pool& pl = s_.pools[pi];
    const uint64_t o = fr.o, base = r_.base[pi], align = pl.align;
    r_.need(o, base - o);
    for (uint64_t i = o; i < base; ++i)
      if (r_.data()[i] != 0) fail_here(i, f.name, "padding byte " + hex(r_.data()[i]) + " before the pool is not zero");
    uint64_t p = base;
    std::unordered_map<std::string_view, uint64_t> seen;
    for (const auto& [at, len] : r_.refs[pi]) {
      const std::string_view t(reinterpret_cast<const char*>(r_.data()) + at, len);
      if (const auto it = seen.find(t); it != seen.end()) {
        if (it->second != at)
          fail_here(at, f.name, "the string '" + std::string(t) + "' is stored twice (first at " + hex(it->second) + "): the writer stores it once");
        continue;
      }
      if (at != p)
        fail_here(at, f.name, "string at " + hex(at) + ", but the writer would put it at " + hex(p) + " (in order of first use, each padded to " +
                                  std::to_string(align) + ")");
      seen.emplace(t, at);
      const uint64_t end = (at + len + 1 + align - 1) / align * align;
      r_.need(at, end - at);
      for (uint64_t i = at + len + 1; i < end; ++i)
        if (r_.data()[i] != 0) fail_here(i, f.name, "padding byte " + hex(r_.data()[i]) + " after a string is not zero");
      p = end;
    }
    fr.o = std::max(p, base);
  }

  // ---- arrays
  void read_elem_pointers(Frame& fr, const Field& f, uint64_t o, bool cursor) {
    Value tmp;
    Value* x = member(fr, f);
    if (!x) x = &tmp;
    try {
      const uint64_t n = f.array.fixed_count ? *f.array.fixed_count : count_of(fr, f);
      const uint64_t w = static_cast<uint64_t>(f.pointer.elem_width);
      r_.need_array(o, n, w);
      x->set_kind(Value::Kind::Array);
      x->items().resize(n);
      for (uint64_t i = 0; i < n; ++i) {
        const uint64_t e = load_uint(f.pointer.elem_width, o + i * w);
        note_slot(o + i * w);
        try {
          r_.need_target(e, 1);
          read_sp(*fr.sp.decode[fr.cur].sub, e, x->items()[i], r_.size(), r_.size());  // fr.cur: read_field's field, f
        } catch (DecodeError& err) {
          err.push_index(i);
          throw;
        }
      }
      if (cursor) fr.o += n * w;
    } catch (DecodeError& e) {
      e.push_field(f.name.c_str());
      throw;
    }
  }

  void read_string_offsets(Frame& fr, const Field& f) {
    Value tmp;
    Value* x = member(fr, f);
    if (!x) x = &tmp;
    try {
      const uint64_t o = fr.o;
      const uint64_t n = f.array.fixed_count ? *f.array.fixed_count : count_of(fr, f);
      r_.need_array(o, n, 4);
      x->set_kind(Value::Kind::Array);
      x->items().resize(n);
      const int pi = p_.pool_index(f.pool);
      const Pool& pl = s_.pools[pi];
      for (uint64_t i = 0; i < n; ++i) {
        if (!pl.scope.empty()) {
          const uint64_t t = r_.scope[pi] + r_.template get<uint32_t>(o + i * 4);
          try {
            put_text(x->items()[i], r_.cstring(t));
          } catch (DecodeError& e) {
            e.push_index(i);
            throw;
          }
          r_.refs[pi].emplace_back(t, std::as_const(x->items()[i]).str().size());
        } else {
          try {
            put_text(x->items()[i], pool_read(f.pool, r_.template get<uint32_t>(o + i * 4)));
          } catch (DecodeError& e) {
            e.push_index(i);
            throw;
          }
        }
      }
      fr.o = o + n * 4;
    } catch (DecodeError& e) {
      e.push_field(f.name.c_str());
      throw;
    }
  }

  // Where element i + 1's `extent: next` target starts.
  uint64_t next_target(const Struct& et, uint64_t elem) const {
    const Field* f = p_.of(&et).extent;
    const uint64_t v = load_uint(f->pointer.width, elem + f->resolved.offset);
    return f->pointer.base == Field::Base::Struct ? elem + v : v;
  }

  void read_inline_array(Frame& fr, const Field& f, uint64_t o, bool cursor) {
    if (!f.table.offsets_of.empty()) {
      // A table's offsets (offsets_of:): the writer computes them from the
      // strings; a file with others is not given back (decode(bytes, layout)).
      const uint64_t n = count_of(fr, f), sz = gen::prim_size(f.type.prim);
      r_.need_array(fr.o, n, sz);
      fr.o += n * sz;
      return;
    }
    const size_t fi = fr.cur;  // read_field's field
    const StructPlan* esp = fr.sp.decode[fi].sub;
    const bool tags = !f.resolved.tag_for.empty();
    Value tmp;
    Value* x = tags ? &tmp : member(fr, f);
    if (!x) x = &tmp;
    x->set_kind(Value::Kind::Array);
    auto put_tag = [&](size_t i, const Value& v) {
      if (tags) fr.loc.tags[fi][i] = v.as_uint();
    };
    const Struct* et = f.type.kind == ValueType::Struct ? f.type.st : nullptr;
    if (!et && f.array.fixed_count && !cursor) {
      const uint64_t n = *f.array.fixed_count, sz = gen::prim_size(f.type.prim);
      if (!tags) return load_elems(x->items(), n, f, o, sz);
      x->items().resize(n);
      fr.loc.tags[fi].assign(n, 0);
      for (uint64_t i = 0; i < n; ++i) {
        load_elem(x->items()[i], f, o + i * sz);
        put_tag(i, x->items()[i]);
      }
      return;
    }
    if (f.resolved.fixed_size) {
      const uint64_t n = *f.array.fixed_count;
      const uint64_t size = et ? et->size : gen::prim_size(f.type.prim);
      if (!et && !tags) return load_elems(x->items(), n, f, o, size);
      x->items().resize(n);
      Value* const items = x->items().data();  // the elements stay where they are while they are read
      if (tags) fr.loc.tags[fi].assign(n, 0);
      for (uint64_t i = 0; i < n; ++i) {
        if (!et) {
          load_elem(items[i], f, o + i * size);
          put_tag(i, items[i]);
        } else {
          uint64_t next = r_.size();
          if (esp->extent) next = i + 1 < n ? next_target(*et, o + (i + 1) * size) : r_.size();
          try {
            read_sp(*esp, o + i * size, items[i], r_.size(), next);
          } catch (DecodeError& e) {
            e.push_index(i);
            e.push_field(f.name.c_str());
            throw;
          }
        }
      }
      return;
    }
    const uint64_t min = et ? (et->fixed_size ? et->size : std::max<uint64_t>(et->prefix, 1)) : gen::prim_size(f.type.prim);
    try {
      const uint64_t n = f.array.fixed_count ? *f.array.fixed_count : count_of(fr, f);
      r_.need_array(fr.o, n, min);
      if (!et && !tags) {
        load_elems(x->items(), n, f, fr.o, min);
        fr.o += n * min;
        return;
      }
      x->items().resize(n);
      Value* const items = x->items().data();  // as above
      const Field* sk = et && !f.array.sort.empty() ? et->field(f.array.sort) : nullptr;  // the sort key, looked up once
      if (tags) fr.loc.tags[fi].assign(n, 0);
      for (uint64_t i = 0; i < n; ++i) {
        if (!et) {
          load_elem(items[i], f, fr.o);
          put_tag(i, items[i]);
          fr.o += gen::prim_size(f.type.prim);
          continue;
        }
        try {
          uint64_t next = r_.size();
          if (esp->extent) next = i + 1 < n ? next_target(*et, fr.o + et->size) : r_.size();
          if (et->fixed_size) {
            read_sp(*esp, fr.o, items[i], r_.size(), next);
            fr.o += et->size;
          } else {
            fr.o = read_sp(*esp, fr.o, items[i], r_.size(), next);
          }
          if (sk && i > 0 && !sk->table.index_of.empty()) {
            // sort: by a string of a sorted table: the strings' order is the indices' order.
            const std::string& a = sort_member(items[i], *sk)->str();
            const std::string& b = sort_member(items[i - 1], *sk)->str();
            if (!(b < a))
              fail_here(fr.o - et->size, f.array.sort,
                        "not sorted: '" + a + "' after '" + b + "' (the writer puts the elements in order of " + f.array.sort + ", each once)");
          } else if (sk && i > 0) {
            const uint64_t a = sort_key(fr, *et, *sk, items[i]), b = sort_key(fr, *et, *sk, items[i - 1]);
            if (a < b)
              fail_here(fr.o - et->size, f.array.sort,
                        "not sorted: " + hex(a) + " after " + hex(b) + " (the writer puts the elements in order of " + f.array.sort + ")");
          }
        } catch (DecodeError& e) {
          e.push_index(i);
          throw;
        }
      }
    } catch (DecodeError& e) {
      e.push_field(f.name.c_str());
      throw;
    }
  }

  // An element's member of the sort key: by its index in the plan (the
  // interned name checked by address), else by name.
  const Value* sort_member(const Value& e, const Field& k) const {
    const FieldPlan& kp = p_.of(&k);
    const auto& fl = e.fields();
    if (kp.member >= 0)
      if (const Value* v = fl.named(static_cast<size_t>(kp.member), kp.name.data())) return v;
    return e.find(k.name);
  }
  uint64_t sort_key(Frame& fr, const Struct& et, const Field& key, const Value& e) {
    const Field* k = &key;
    if (k->role.derive) {
      const std::pair<Dec*, Frame*> self{this, &fr};
      ExprEnv env;
      env.model = &e;
      env.st = &et;
      env.ctx = &frame_ctx;
      env.self = &self;
      return eval_model(*k->role.derive, env);
    }
    const Value* v = sort_member(e, *k);
    return v ? v->as_uint() : 0;
  }

  // ---- unions
  void read_union_array(Frame& fr, const Field& f) {
    uint64_t size = 0;
    for (const auto& c : f.variant.cases) size = (c.field->resolved.size + f.variant.pad_to - 1) / f.variant.pad_to * f.variant.pad_to;
    Value tmp;
    Value* x = member(fr, f);
    if (!x) x = &tmp;
    const Field* tags = fr.st.field(f.variant.tag);
    const size_t ti = p_.of(tags).index;
    const FieldPlan& ufp = p_.of(&f);
    if (ti > ufp.index) {
      const uint64_t tsz = gen::prim_size(tags->type.prim);
      const uint64_t n = count_of(fr, f);
      r_.need_array(fr.o, n, size + tsz);
      fr.loc.tags[ti].resize(n);
      for (uint64_t i = 0; i < n; ++i) fr.loc.tags[ti][i] = load_prim(tags->type.prim, fr.o + n * size + i * tsz);
    }
    const uint64_t n = fr.loc.tags[ti].size();
    r_.need_array(fr.o, n, size);
    r_.need(fr.o, n * size);
    x->set_kind(Value::Kind::Array);
    x->items().resize(n);
    for (uint64_t i = 0; i < n; ++i) {
      const uint64_t e = fr.o + i * size;
      try {
        read_union_one(fr, f, ufp, e, x->items()[i], fr.loc.tags[ti][i]);
      } catch (DecodeError& err) {
        err.push_index(i);
        err.push_field(f.name.c_str());
        throw;
      }
    }
    fr.o += n * size;
  }

  void read_union_one(Frame& fr, const Field& f, const FieldPlan& fp, uint64_t o, Value& target, uint64_t tag) {
    const bool pf = !f.array.on;
    auto push = [&](DecodeError& e) {
      if (pf) e.push_field(f.name.c_str());
    };
    uint64_t word = 0, sel = tag;
    if (f.variant.tag_shift) {
      word = load_uint(f.variant.cases[0].field->pointer.width, o);
      sel = word >> f.variant.tag_shift;
    }
    size_t ci = 0, nc = fp.case_tags.size();
    if (!fp.case_at.empty()) {
      // One look-up: the loop below runs once (on the case) or not at all.
      const uint64_t k = sel - fp.case_min;
      const int at = k < fp.case_at.size() ? fp.case_at[k] : -1;
      if (at < 0) nc = 0;
      else ci = static_cast<size_t>(at), nc = ci + 1;
    }
    const uint64_t* tags = fp.case_tags.data();
    for (; ci < nc; ++ci) {
      if (tags[ci] != sel) continue;
      const FieldPlan::CaseStep& cs = fp.case_steps[ci];
      const uint64_t padded = cs.padded;
      target = Value::union_(cs.id, static_cast<int64_t>(sel), Value{});  // the case by its id, the item in the one block
      Value& v = target.items()[0];
      if (!f.resolved.fixed_size && !f.array.on && cs.fixed) r_.need(o, padded);
      if (cs.plain) {
        // A number (most cases of a node union): loaded, no check.
        put_prim(v, cs.prim, load_prim(cs.prim, o));
        if (cs.width == 8) note_slot(o);
        if (!f.resolved.fixed_size && !f.array.on && cs.fixed) fr.o += padded;
        return;
      }
      const gen::Case& c = f.variant.cases[ci];
      const Field& p = *c.field;
      bool advance = p.resolved.fixed_size;
      uint64_t adv = padded;
      auto padded_n = [&](uint64_t bytes) {
        const uint64_t a = f.variant.pad_to;
        return a <= 1 ? bytes : (bytes + a - 1) / a * a;
      };
      if (p.pointer.width == 8) note_slot(o);
      switch (c.kind) {
        case CaseKind::PooledString:
          try {
            put_text(v, pool_read(p.pool, load_uint(p.pointer.width, o)));
          } catch (DecodeError& e) {
            push(e);
            throw;
          }
          break;
        case CaseKind::OwnString: {
          const uint64_t t = (p.pointer.base == Field::Base::Struct ? fr.s : 0) + load_uint(p.pointer.width, o);
          if (f.resolved.fixed_offset && r_.lay) r_.lay->note(fr.s + f.resolved.offset, t);
          try {
            put_text(v, r_.pascal16(t));
          } catch (DecodeError& e) {
            push(e);
            throw;
          }
          break;
        }
        case CaseKind::Number:
          if (!p.table.index_of.empty()) {  // an index into a table of the root: its string
            v = Value::string(r_.tabs[static_cast<size_t>(p.table.id)].at(load_prim(p.type.prim, o), o, c.name.c_str(), p.table.index_of.c_str()));
          } else if (p.type.prim == Prim::Bool8 || p.type.prim == Prim::Bool32) {
            const uint64_t raw = load_prim(p.type.prim, o);
            check_bool(p, raw, o, f.name);
            put_prim(v, p.type.prim, raw);
          } else {
            put_prim(v, p.type.prim, load_prim(p.type.prim, o));
          }
          break;
        case CaseKind::Numbers: {
          v = Value::array();
          const uint64_t sz = gen::prim_size(p.type.prim);
          if (p.array.fixed_count) {
            load_elems(v.items(), *p.array.fixed_count, p, o, sz);
          } else {
            const uint64_t n = eval_u(fr, *p.array.count);
            r_.need_array(o, n, sz);
            load_elems(v.items(), n, p, o, sz);
            advance = true;
            adv = padded_n(n * sz);
          }
          break;
        }
        case CaseKind::OwnStrings: {
          v = Value::array();
          const uint64_t n = eval_u(fr, *p.array.count);
          const uint64_t w = static_cast<uint64_t>(p.pointer.elem_width);
          r_.need_array(o, n, w);
          v.items().resize(n);
          for (uint64_t i = 0; i < n; ++i) {
            note_slot(o + i * w);
            const uint64_t t = load_uint(p.pointer.elem_width, o + i * w);
            if (f.resolved.fixed_offset && r_.lay) r_.lay->note(fr.s + f.resolved.offset + i * w, t);
            try {
              put_text(v.items()[i], r_.pascal16(t));
            } catch (DecodeError& e) {
              e.push_index(i);
              push(e);
              throw;
            }
          }
          advance = true;
          adv = padded_n(n * w);
          break;
        }
        case CaseKind::Struct:
          try {
            if (!p.type.st->fixed_size) {
              fr.o = read_sp(*cs.sub, o, v, r_.size(), r_.size());
              advance = false;
            } else {
              read_sp(*cs.sub, o, v, r_.size(), r_.size());
            }
          } catch (DecodeError& e) {
            push(e);
            throw;
          }
          break;
        case CaseKind::StructPointer:
        case CaseKind::PooledBlock: {
          const Struct& pt = *p.type.st;
          const bool rel = p.pointer.base == Field::Base::Struct;
          uint64_t low = f.variant.tag_shift ? word & ((1ull << f.variant.tag_shift) - 1) : 0;
          if (p.pointer.scale != 1) low *= p.pointer.scale;
          if (p.pointer.points_to_offset) {
            if (low < p.pointer.points_to_offset)
              fail_here(o, f.name, c.name + ": offset " + hex(low) + " points before its struct (it points to " + p.pointer.points_to_field +
                                       ", at " + hexs(p.pointer.points_to_offset) + ")");
            low -= p.pointer.points_to_offset;
          }
          const uint64_t t = (rel ? fr.s : 0) + (f.variant.tag_shift ? low : load_uint(p.pointer.width, o));
          if (r_.lay && c.kind == CaseKind::StructPointer && (f.array.on || f.resolved.fixed_offset))
            r_.lay->note(f.array.on ? o : fr.s + f.resolved.offset, t);
          try {
            r_.need_target(t, pt.fixed_size ? pt.size : std::max<uint64_t>(pt.prefix, 1));
            read_sp(*cs.sub, t, v, r_.size(), r_.size());
          } catch (DecodeError& e) {
            e.push_field(c.name.c_str());
            push(e);
            throw;
          }
          break;
        }
      }
      if (!f.resolved.fixed_size && !f.array.on && advance) fr.o += adv;
      return;
    }
    std::string known;
    for (const auto& c : f.variant.cases) known += (known.empty() ? "" : ", ") + std::to_string(c.tag) + " " + c.name;
    if (f.variant.tag_shift)
      fail_here(o, f.name, "tag " + hex(sel) + " (bits " + std::to_string(f.variant.tag_shift) + " and up) is not a supported case (known: " + known + ")");
    const std::string tag_text = fp.tag_signed ? std::to_string(static_cast<int64_t>(tag)) : std::to_string(tag);
    if (f.array.on) throw DecodeError(o, f.variant.tag + " " + tag_text + " is not a supported case (known: " + known + ")");
    fail_here(o, f.name, f.variant.tag + " " + tag_text + " is not a supported case (known: " + known + ")");
  }

  // A table (table:) just read: its strings, for the index_of: fields read after it.
  void keep_table(const Field& f, Value& t) {
    Value* arr = t.find(f.table.strings->name);
    std::vector<std::string> strs;
    if (arr) {
      strs.reserve(arr->items().size());
      for (Value& e : arr->items())
        if (Value* text = e.find(f.table.text->name)) strs.push_back(std::move(text->str()));
    }
    r_.tabs[static_cast<size_t>(f.table.id)].assign_read(std::move(strs));
  }

  // ---- read_target
  // A pooled string's target: the string at pointer p of the struct at s, into x.
  void read_pooled(const DecodeStep& ds, const Field& f, uint64_t p, uint64_t s, Value& x) {
    const uint64_t base = f.pointer.base == Field::Base::Struct ? s : 0;
    const int pi = ds.pool;  // p_.pool_index(f.pool), decided in make_plan
    const Pool& pl = s_.pools[pi];
    if (!pl.scope.empty()) {
      put_text(x, r_.cstring(r_.scope[pi] + p));
      r_.refs[pi].emplace_back(r_.scope[pi] + p, std::as_const(x).str().size());
    } else if (Schema::Plan::layout_pool(pl) && pl.kind == Pool::Kind::Pascal16 && f.pointer.points_to_chars) {
      const uint64_t at = pool_base(pi) + base + p;
      const std::string_view t = r_.cstring(at);
      if (r_.lay && at >= 2) [[unlikely]] r_.lay->note_string(static_cast<uint32_t>(pi), at - 2, t.size());
      put_text(x, t);
    } else if (Schema::Plan::layout_pool(pl)) {
      put_text(x, str_pool(pi, pool_base(pi) + base + p));
      if (ds.pool_placed) r_.refs[pi].emplace_back(pool_base(pi) + base + p, std::as_const(x).str().size());
    } else if (pl.kind == Pool::Kind::Pascal16 && !f.pointer.points_to_chars) {
      put_text(x, r_.pascal16(pool_base(pi) + base + p));
    } else {
      put_text(x, r_.cstring(pool_base(pi) + base + p));
    }
  }

  void read_target(Frame& fr, const Field& f) {
    const size_t fi = p_.of(&f).index;
    const DecodeStep& ds = fr.sp.decode[fi];
    const uint64_t p = fr.loc.raw[fi];
    const uint64_t base = f.pointer.base == Field::Base::Struct ? fr.s : 0;
    const uint64_t s = fr.s;
    Value tmp;
    Value* x = member(fr, fi);
    if (!x) x = &tmp;
    auto note_layout = [&](uint64_t target) {
      if (r_.lay) r_.lay->note(s + f.resolved.offset, target);
    };
    try {
      switch (f.kind) {
        case FieldKind::Dic: {
          const int pi = p_.pool_index(f.pool);
          const Pool& pl = s_.pools[pi];
          if (p == 0) throw DecodeError(s, "null dictionary pointer (in the struct at " + hex(s) + ")");
          const uint64_t t = base + p;
          r_.need_target(t, 8);
          if (r_.chars(t, 4) != "DIC ") throw DecodeError(t, "no DIC magic at " + hex(t));
          const uint64_t n = r_.template get<uint32_t>(t + 4);
          r_.need_array(t + 8, n + 1, 0x10);
          note_slot(t + 8 + 8);
          auto& d = fr.dic[fi];
          for (uint64_t i = 1; i <= n; ++i) {
            const uint64_t name = r_.template get<uint64_t>(t + 8 + 0x10 * i + 8);
            note_slot(t + 8 + 0x10 * i + 8);
            d.emplace_back(Schema::Plan::layout_pool(pl) ? str_pool(pi, name)
                           : pl.kind == Pool::Kind::Pascal16 ? r_.pascal16(name)
                                                             : r_.cstring(name));
          }
          check_dic(r_, t, d);
          break;
        }
        case FieldKind::OwnString:
          if (f.resolved.fixed_offset) note_layout(base + p);
          put_text(*x, r_.pascal16(base + p));
          break;
        case FieldKind::PooledString: read_pooled(ds, f, p, s, *x); break;
        case FieldKind::Pointer:
        case FieldKind::BlockRef: {
          const uint64_t end = f.pointer.extent_next ? fr.next : r_.size();
          if (f.pointer.null == Field::Null::Allowed) {
            if (p == f.pointer.null_value) {
              *x = Value::absent();
            } else {
              if (f.kind == FieldKind::Pointer && f.resolved.fixed_offset) note_layout(base + p);
              r_.need_target(base + p, 1);
              read_sp(*ds.sub, base + p, *x, end, r_.size());
              if (!f.table.order.empty()) keep_table(f, *x);
            }
          } else {
            if (p == 0) throw DecodeError(s, "null pointer (in the struct at " + hex(s) + ")");
            if (f.kind == FieldKind::Pointer && f.resolved.fixed_offset) note_layout(base + p);
            r_.need_target(base + p, 1);
            read_sp(*ds.sub, base + p, *x, end, r_.size());
            if (!f.table.order.empty()) keep_table(f, *x);
          }
          break;
        }
        case FieldKind::ArrayPointer: {
          const uint64_t n = f.array.fixed_count ? *f.array.fixed_count : count_of(fr, f);
          if (!f.array.fixed_count && f.pointer.null == Field::Null::WhenEmpty && f.resolved.fixed_offset && n == 0 && p != 0 && r_.lay)
            r_.lay->note(s + f.resolved.offset, p);
          if (!f.array.fixed_count && f.pointer.null != Field::Null::WhenEmpty && f.resolved.fixed_offset && n == 0 && r_.lay)
            r_.lay->note(s + f.resolved.offset, base + p);
          if (!f.array.fixed_count && n == 0) break;
          if (p == 0) throw DecodeError(s, "null pointer to " + std::to_string(n) + " elements (in the struct at " + hex(s) + ")");
          const uint64_t t = base + p;
          if (f.resolved.fixed_offset) note_layout(t);
          r_.need_target(t, 1);
          const uint64_t stride = f.pointer.elem_width                 ? static_cast<uint64_t>(f.pointer.elem_width)
                                  : f.type.kind == ValueType::Prim     ? gen::prim_size(f.type.prim)
                                  : f.type.kind == ValueType::String   ? static_cast<uint64_t>(f.pointer.width)
                                  : f.type.st->fixed_size              ? f.type.st->size
                                                                       : 1;
          r_.need_array(t, n, stride);
          x->set_kind(Value::Kind::Array);
          if (f.pointer.elem_width || f.type.kind != ValueType::Prim) x->items().resize(n);  // numbers: load_elems makes them
          if (f.pointer.elem_width) {
            for (uint64_t i = 0; i < n; ++i) {
              const uint64_t e = load_uint(f.pointer.elem_width, t + i * stride);
              note_slot(t + i * stride);
              if (r_.lay) r_.lay->note(t + i * stride, e);
              try {
                r_.need_target(e, 1);
                read_sp(*ds.sub, e, x->items()[i], r_.size(), r_.size());
              } catch (DecodeError& err) {
                err.push_index(i);
                throw;
              }
            }
          } else if (f.type.kind == ValueType::Prim) {
            load_elems(x->items(), n, f, t, stride);
          } else if (f.type.kind == ValueType::String) {
            for (uint64_t i = 0; i < n; ++i) {
              note_slot(t + i * stride);
              try {
                put_text(x->items()[i], pool_read(f.pool, load_uint(f.pointer.width, t + i * stride)));
              } catch (DecodeError& err) {
                err.push_index(i);
                throw;
              }
            }
          } else if (f.type.st->fixed_size) {
            for (uint64_t i = 0; i < n; ++i) {
              uint64_t next = r_.size();
              if (ds.sub->extent) next = i + 1 < n ? next_target(*f.type.st, t + (i + 1) * stride) : r_.size();
              try {
                read_sp(*ds.sub, t + i * stride, x->items()[i], r_.size(), next);
              } catch (DecodeError& err) {
                err.push_index(i);
                throw;
              }
            }
          } else {
            uint64_t o2 = t;
            for (uint64_t i = 0; i < n; ++i) {
              try {
                o2 = read_sp(*ds.sub, o2, x->items()[i], r_.size(), r_.size());
              } catch (DecodeError& err) {
                err.push_index(i);
                throw;
              }
            }
          }
          break;
        }
        default: break;
      }
    } catch (DecodeError& e) {
      e.push_field(f.name.c_str());
      throw;
    }
  }

  const Schema::Plan& p_;
  const gen::Schema& s_;
  R r_;
};

template <std::endian E>
Value decode_order(const Schema::Plan& p, std::span<const uint8_t> bytes, Layout* lay) {
  Dec<E> d(p, bytes);
  return d.decode_root(lay);
}

}  // namespace

Value decode_any(const Schema::Plan& p, std::span<const uint8_t> bytes, Layout* lay) {
  const gen::Schema& s = *p.s;
  if (s.endian_by_bom) {
    const Field* bom = p.root->field(s.bom_field);
    bool big;
    if (!bom->bom_marks.empty()) {
      // mark_is_big takes an initializer_list: the marks are checked here the same way.
      std::string known;
      std::optional<bool> found;
      const uint64_t off = bom->resolved.offset;
      for (const auto& [m, b] : bom->bom_marks) {
        if (!found && off <= bytes.size() && bytes.size() - off >= m.size() &&
            std::equal(m.begin(), m.end(), bytes.begin() + static_cast<std::ptrdiff_t>(off), [](char a, uint8_t c) { return uint8_t(a) == c; }))
          found = b;
        known += std::string(known.empty() ? "" : ", ") + "'" + m + "' " + (b ? "big" : "little");
      }
      if (!found) {
        std::string fnd;
        for (uint64_t i = off; i < bytes.size() && i < off + 8; ++i) fnd += hex(bytes[i]) + " ";
        fail(off, bom->name.c_str(),
             "no byte order mark (" + known + ") here: " + (fnd.empty() ? std::string("the file ends") : "bytes " + fnd.substr(0, fnd.size() - 1)));
      }
      big = *found;
    } else {
      big = bom_is_big(bytes, bom->resolved.offset, bom->name.c_str());
    }
    return big ? decode_order<std::endian::big>(p, bytes, lay) : decode_order<std::endian::little>(p, bytes, lay);
  }
  return s.big_endian ? decode_order<std::endian::big>(p, bytes, lay) : decode_order<std::endian::little>(p, bytes, lay);
}

Value Schema::decode(std::span<const uint8_t> bytes) const { return decode_any(*p_, bytes, nullptr); }

Value Schema::decode(std::span<const uint8_t> bytes, Layout& layout) const {
  const Plan& p = *p_;
  return decode_with_layout<Value>(
      bytes.data(), bytes.size(), layout, [&](Layout* lay) { return decode_any(p, bytes, lay); },
      [&](const Value& v, const Layout* lay, LayoutTrace* tr) { return encode_laid(*this, v, lay, tr); },
      [&](const Value& v, const Layout& l) { return encode(v, l); });
}

}  // namespace binschema::dynamic

// ---- binschema info -----------------------------------------------------------

namespace binschema::dynamic {
namespace {

// text::Counter: struct instances by type, in order of first appearance.
class Counter {
 public:
  explicit Counter(const Schema::Plan& p) : p_(p) {}
  void fields(const gen::Struct& st, const Value& x) {
    size_t k = 0;
    for (const gen::Field* f : p_.of(&st).model) value(*f, x.fields().at(k++).value);
  }
  void value(const gen::Field& f, const Value& v) {
    switch (v.kind) {
      case Value::Kind::Array:
        for (const Value& e : v.items()) value(f, e);
        break;
      case Value::Kind::Union:
        for (const auto& c : f.variant.cases)
          if (c.name == v.case_name() && !v.items().empty()) value(*c.field, v.items()[0]);
        break;
      case Value::Kind::Struct:
        if (!f.bits.empty() || !f.type.st) break;
        bump(f.type.st->name);
        fields(*f.type.st, v);
        break;
      default: break;
    }
  }
  std::vector<std::pair<std::string, size_t>> counts;

 private:
  void bump(const std::string& name) {
    for (auto& [n, c] : counts)
      if (n == name) {
        ++c;
        return;
      }
    counts.emplace_back(name, 1);
  }
  const Schema::Plan& p_;
};

}  // namespace

std::vector<std::pair<std::string, std::string>> Schema::info(std::span<const uint8_t> bytes) const {
  const Value x = decode(bytes);
  const gen::Schema& s = *s_;
  std::string version;
  for (const auto& vf : s.version_fields) {
    const gen::Field* f = p_->root->field(vf);
    const Value* v = x.find(vf);
    const uint64_t n = v ? v->as_uint() : 0;
    std::string t = f && f->spell.hex ? hex(n) : v && v->kind == Value::Kind::Int ? std::to_string(static_cast<int64_t>(n)) : std::to_string(n);
    version += (version.empty() ? "" : ".") + t;
  }
  std::vector<std::pair<std::string, std::string>> out;
  out.emplace_back("format", s.format);
  if (!version.empty()) out.emplace_back("version", version);
  out.emplace_back("file size", std::to_string(bytes.size()) + " bytes");
  Counter c(*p_);
  c.fields(*p_->root, x);
  for (const auto& [name, n] : c.counts) out.emplace_back(name, std::to_string(n));
  return out;
}

}  // namespace binschema::dynamic
