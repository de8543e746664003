// binschema/dynamic.h: YAML / JSON -> Value, as the generated from_text
// reads it.
//
// The generated code reads text with binschema::text::In over each struct's
// visit_fields (gen_cpp_types.cpp's visit_decl): one v.field(...) per model
// field, the C++ type of the member choosing how its node is read. Here the
// same In reads the document (a subclass, so that its checks, messages,
// paths, name tables and text budget are the generated code's own); the
// schema model stands in for the C++ types: each leaf is read by In::value
// into the member type the generated struct has (so ranges, enum names,
// references, hashes and booleans read the same), and the structs, lists,
// optionals and unions are walked here as In walks them.
#include <charconv>
#include <cstring>
#include <deque>
#include <map>

#include "binschema/text.h"
#include "expr.h"
#include "plan.h"

namespace binschema::dynamic {

using gen::Field;
using gen::Prim;
using gen::Struct;
using gen::ValueType;

namespace {

// A number as a C++ literal spells it (a `default:` is pasted into the
// generated code as written): decimal, 0x hex, or 0 octal.
uint64_t cpp_int(const std::string& t) {
  std::string s = t;
  bool neg = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    neg = s[0] == '-';
    s = s.substr(1);
  }
  while (!s.empty() && (s.back() == 'u' || s.back() == 'U' || s.back() == 'l' || s.back() == 'L')) s.pop_back();
  uint64_t v = 0;
  if (s.starts_with("0x") || s.starts_with("0X")) std::from_chars(s.data() + 2, s.data() + s.size(), v, 16);
  else if (s.size() > 1 && s[0] == '0') std::from_chars(s.data() + 1, s.data() + s.size(), v, 8);
  else std::from_chars(s.data(), s.data() + s.size(), v, 10);
  return neg ? uint64_t(0) - v : v;
}

// The text reader of the generated code, over the schema.
class DynIn : public text::In {
 public:
  DynIn(const Schema::Plan& p, text::Node doc) : In(doc), p_(p), s_(*p.s) {}

  // from_document: the root's fields (its map checked against them, the
  // document's `format` and `layout` aside).
  Value root(text::Node doc, Layout* layout) {
    const Struct& root = *s_.find(s_.root);
    check_struct_keys(doc, root, "format", "layout");
    Value x = Value::struct_();
    fields(root, x);
    check_conditions();
    if (layout) {
      *layout = Layout{};
      if (const text::Node l = doc.get("layout")) this->layout(l, *layout);
    }
    return x;
  }

 private:
  const Schema::Plan& p_;
  const gen::Schema& s_;
  struct SpellStore {
    std::vector<text::EnumValue> values;
    text::Spell spell;
  };
  std::map<const Field*, std::unique_ptr<SpellStore>> spells_;

  // The Spell the generated visit_fields passes for a field.
  const text::Spell& spell_of(const Field& f) {
    static const text::Spell none{};
    if (!f.spelled() && f.spell.map_key.empty()) return f.spell.hex ? text::kHexSpell : none;
    auto& p = spells_[&f];
    if (!p) {
      p = std::make_unique<SpellStore>();
      unsigned flags = text::kNone;
      if (f.spell.hex) flags |= text::kHex;
      if (f.spell.as_bool) flags |= text::kBool;
      p->spell.flags = flags;
      if (!f.spell.enum_name.empty())
        if (const gen::Enum* e = s_.find_enum(f.spell.enum_name)) {
          for (const auto& [v, n] : e->values) p->values.push_back({v, n.c_str()});
          p->spell.enum_values = p->values.data();
          p->spell.enum_count = p->values.size();
          p->spell.enum_name = f.spell.enum_name.c_str();
        }
      if (!f.spell.ref.empty()) p->spell.ref = f.spell.ref.c_str();
      if (!f.spell.ref_via.empty()) p->spell.via = f.spell.ref_via.c_str();
      if (!f.spell.hash_of.empty()) p->spell.hash = f.spell.hash_of.c_str();
      if (!f.spell.map_key.empty()) p->spell.map = f.spell.map_key.c_str();
    }
    return p->spell;
  }

  // check_keys: a key that names no model field of st is refused (and a map
  // entry's key field given among its fields).
  void check_struct_keys(text::Node map, const Struct& st, const char* extra = nullptr, const char* extra2 = nullptr,
                         const char* map_key = nullptr) {
    auto it = map.children().begin();
    const auto end = map.children().end();
    while (it != end) {
      const text::Node key = *it;
      ++it;
      ++it;
      const std::string_view k = key.scalar();
      if ((extra && k == extra) || (extra2 && k == extra2)) continue;
      if (map_key && k == map_key)
        fail(key, "'" + std::string(k) + "' is the key of this map entry: give it as the entry's key, not among its fields");
      bool known = false;
      for (const auto& f : st.fields) known = known || (f->in_model() && k == f->name);
      if (!known) fail(key, "unknown field '" + std::string(k) + "'");
    }
  }
  void check_bit_keys(text::Node map, const Field& f) {
    auto it = map.children().begin();
    const auto end = map.children().end();
    while (it != end) {
      const text::Node key = *it;
      ++it;
      ++it;
      const std::string_view k = key.scalar();
      bool known = false;
      for (const auto& b : f.bits) known = known || k == b.name;
      if (!known) fail(key, "unknown field '" + std::string(k) + "'");
    }
  }

  // visit_fields of st (visit_decl): the name tables, then each model field.
  void fields(const Struct& st, Value& x) {
    for (const auto& t : st.name_targets) {
      std::vector<const char*> subs;
      for (const auto& sub : t.subs) subs.push_back(sub.c_str());
      const Field* arr = st.field(t.array);
      struct Elem {};
      std::vector<const char*> also;
      for (const auto& a : t.also) also.push_back(a.c_str());
      if (arr && arr->type.kind == ValueType::String) names(t.array.c_str(), std::vector<std::string>{}, t.key.c_str(), subs, also);
      else names(t.array.c_str(), std::vector<Elem>{}, t.key.c_str(), subs, also);
    }
    for (const auto& fp : st.fields) {
      const Field& f = *fp;
      if (!f.in_model()) continue;
      const FieldPlan& plan = p_.of(&f);  // its interned name: no intern() per field read
      if (const auto& cond = plan.text_cond) {
        Value v = field_if(f, st, x, *cond);
        x.add(plan.name, std::move(v));
        continue;
      }
      const bool bits_default = !f.bits.empty() && std::all_of(f.bits.begin(), f.bits.end(), [](const Field::Bits& b) { return b.default_text.has_value(); });
      Value v = field(f, spell_of(f), bits_default || f.role.default_text.has_value());
      x.add(plan.name, std::move(v));
    }
  }

  // The node of a field of the struct being read (In::lookup): a map
  // entry's key field is the entry's key, a bare field the frame's node.
  text::Node lookup(const char* name) const {
    const Frame& f = frames_.back();
    if (f.key_name && text::same_name(name, f.key_name)) return f.key_node;
    if (f.bare) return f.node;
    return f.node.get(name);
  }

  // In::field_if: missing, the field keeps the value the model holds before
  // it is read; given, its condition must hold once the struct is read.
  Value field_if(const Field& f, const Struct& st, const Value& x, const gen::Expr& cond) {
    const char* name = f.name.c_str();
    const text::Node n = lookup(name);
    if (!n) {
      Value v = default_value(p_, f);
      if (integral(f)) add_int(name, v.as_int());
      return v;
    }
    Value v = field(f, spell_of(f), false);
    add_cond({n, name, cond_texts_.emplace_back(gen::expr_text(*f.cond)).c_str(), [this, &st, &x, &cond] {
                                      ExprEnv env;
                                      env.model = &x;
                                      env.st = &st;
                                      env.self = this;
                                      env.ctx = [](const void* self, const std::string& g, uint64_t& out) {
                                        out = static_cast<const DynIn*>(self)->context(g.c_str());
                                        return true;
                                      };
                                      return eval_model(cond, env) != 0;
                                    }});
    return v;
  }
  std::deque<std::string> cond_texts_;  // the if: texts of messages (stable addresses)

  // In::field / In::field_default for field f.
  Value field(const Field& f, const text::Spell& spell, bool has_default) {
    const char* name = f.name.c_str();
    Frame& fr = frames_.back();
    const text::Node n = lookup(name);
    if (!n) {
      if (!has_default) fail(fr.node, "missing field '" + std::string(name) + "'");
      Value v = default_of(f);
      if (integral(f)) add_int(name, v.as_int());
      return v;
    }
    path_.emplace_back(name);
    Value v = model_value(n, f, spell);
    path_.pop_back();
    if (integral(f)) add_int(name, v.as_int());
    return v;
  }

  // Whether the member is an integer (or bool) of C++.
  static bool integral(const Field& f) {
    return f.type.kind == ValueType::Prim && f.bits.empty() && !f.array.on && !gen::prim_is_float(f.type.prim) &&
           !(f.pointer.width && f.pointer.null == Field::Null::Allowed) && f.table.index_of.empty();
  }

  // A field's schema default (`default:`), as field_default gives it.
  Value default_of(const Field& f) {
    if (!f.bits.empty()) {
      Value w = Value::struct_();
      for (const auto& b : f.bits) w.add(b.name, bit_default(b));
      return w;
    }
    const std::string& t = *f.role.default_text;
    switch (f.type.kind) {
      case ValueType::Chars:
      case ValueType::CString:
      case ValueType::String: return Value::string(t);
      default: break;
    }
    return prim_value(f.type.prim, t == "true" ? 1 : t == "false" ? 0 : cpp_int(t), t);
  }
  static Value bit_default(const Field::Bits& b) {
    const std::string t = b.default_text.value_or(b.is_bool ? "false" : "0");
    if (b.is_bool) return Value::boolean(t == "true" || (t != "false" && cpp_int(t) != 0), 0);
    if (!b.pool.empty()) return Value::string(t);
    return Value::uint(cpp_int(t) & (b.width >= 64 ? ~uint64_t(0) : (uint64_t(1) << bits_cpp_width(b.width)) - 1), bits_bytes(b.width));
  }
  static unsigned bits_cpp_width(unsigned w) { return w <= 8 ? 8 : w <= 16 ? 16 : w <= 32 ? 32 : 64; }
  // A bit field's width in the value: the bytes of its member type (as decode gives it).
  static uint8_t bits_bytes(unsigned w) { return static_cast<uint8_t>(bits_cpp_width(w) / 8); }

  // A number of prim p from the integer v (or, for a float, the text t).
  static Value prim_value(Prim p, uint64_t v, const std::string& t = {}) {
    const uint8_t w = static_cast<uint8_t>(gen::prim_size(p));
    switch (p) {
      case Prim::Bool8: return Value::boolean(v != 0, 1);
      case Prim::Bool32: return Value::boolean(v != 0, 4);
      case Prim::F32: return Value::float32(t.empty() ? static_cast<float>(v) : std::stof(t));
      case Prim::F64: return Value::float64(t.empty() ? static_cast<double>(v) : std::stod(t));
      case Prim::S8: return Value::int_(int8_t(v), w);
      case Prim::S16: return Value::int_(int16_t(v), w);
      case Prim::S24:
      case Prim::S32: return Value::int_(int32_t(v), w);
      case Prim::S64: return Value::int_(static_cast<int64_t>(v), w);
      case Prim::U8: return Value::uint(uint8_t(v), w);
      case Prim::U16: return Value::uint(uint16_t(v), w);
      case Prim::U24:
      case Prim::U32: return Value::uint(uint32_t(v), w);
      case Prim::U64: return Value::uint(v, w);
    }
    return {};
  }

  // One number of prim p, read as the member type of the generated struct.
  Value read_prim(text::Node n, Prim p, const text::Spell& spell) {
    const uint8_t w = static_cast<uint8_t>(gen::prim_size(p));
    switch (p) {
      case Prim::U8: { uint8_t v = 0; value(n, v, spell); return Value::uint(v, w); }
      case Prim::U16: { uint16_t v = 0; value(n, v, spell); return Value::uint(v, w); }
      case Prim::U24:
      case Prim::U32: { uint32_t v = 0; value(n, v, spell); return Value::uint(v, w); }
      case Prim::U64: { uint64_t v = 0; value(n, v, spell); return Value::uint(v, w); }
      case Prim::S8: { int8_t v = 0; value(n, v, spell); return Value::int_(v, w); }
      case Prim::S16: { int16_t v = 0; value(n, v, spell); return Value::int_(v, w); }
      case Prim::S24:
      case Prim::S32: { int32_t v = 0; value(n, v, spell); return Value::int_(v, w); }
      case Prim::S64: { int64_t v = 0; value(n, v, spell); return Value::int_(v, w); }
      case Prim::F32: { float v = 0; value(n, v, spell); return Value::float32(v); }
      case Prim::F64: { double v = 0; value(n, v, spell); return Value::float64(v); }
      case Prim::Bool8: { bool v = false; value(n, v, spell); return Value::boolean(v, 1); }
      case Prim::Bool32: { bool v = false; value(n, v, spell); return Value::boolean(v, 4); }
    }
    return {};
  }

  // The element of the member (elem_type): what one value of field f is.
  Value elem(text::Node n, const Field& f, const text::Spell& spell) {
    switch (f.type.kind) {
      case ValueType::Prim:
        if (!f.bits.empty()) return bit_word(n, f);
        if (!f.table.index_of.empty()) {  // an index into a table: the model holds the string
          std::string v;
          value(n, v, spell);
          return Value::string(std::move(v));
        }
        return read_prim(n, f.type.prim, spell);
      case ValueType::Chars:
      case ValueType::CString:
      case ValueType::String: {
        std::string v;
        value(n, v, spell);
        return Value::string(std::move(v));
      }
      case ValueType::Bytes: {
        Bytes v;
        value(n, v, spell);
        return Value::bytes(std::string(v.data.begin(), v.data.end()));
      }
      case ValueType::Struct: return structure(n, *f.type.st);
      case ValueType::Union: return union_value(n, f, spell);
      case ValueType::PoolBlock:
      case ValueType::Dic: break;
    }
    return {};
  }

  // The member (model_type): an array, an optional or one element.
  Value model_value(text::Node n, const Field& f, const text::Spell& spell) {
    if (f.array.on) {
      Value out = Value::array();
      if (f.array.fixed_count) {
        charge(n, 1);
        const uint64_t count = *f.array.fixed_count;
        if (!n.is_seq() || n.size() != count) fail(n, "expected a list of " + std::to_string(count) + " values");
      } else {
        charge(n, 1);
        const bool of_structs = f.type.kind == ValueType::Struct || f.type.kind == ValueType::Union;
        if (spell.map && of_structs && f.bits.empty() && n.is_map()) return map_entries(n, f, spell.map);
        if (!n.is_seq()) fail(n, spell.map && of_structs ? "expected a map (or a list)" : "expected a list");
        charge(n, n.size(), n.span());
      }
      out.items().reserve(n.size());
      size_t i = 0;
      for (const text::Node e : n.children()) {
        path_.emplace_back(i++);
        out.items().push_back(elem(e, f, spell));
        path_.pop_back();
      }
      return out;
    }
    if (f.pointer.width && f.pointer.null == Field::Null::Allowed && f.type.kind == ValueType::Struct) {
      charge(n, 1);
      if (n.is_null()) return Value::absent();
      return structure(n, *f.type.st);
    }
    return elem(n, f, spell);
  }

  // A struct (In::value's last branches): shown as its one field's value
  // (unwrap:), or a map of its fields.
  Value structure(text::Node n, const Struct& st) {
    charge(n, 1);
    Frame fr(n);
    if (st.unwrap) {
      fr.bare = true;
    } else {
      if (!n.is_map()) fail(n, "expected a map");
      check_struct_keys(n, st);
    }
    return fields_in(std::move(fr), st);
  }
  // A struct's fields, read in the frame given (In::fields).
  Value fields_in(Frame fr, const Struct& st) {
    const size_t mark = tables_.size();
    push_frame(std::move(fr));
    Value x = Value::struct_();
    fields(st, x);
    check_conditions();
    pop_frame();
    tables_.resize(mark);
    return x;
  }

  // EntryShape: one field besides the key, always there, is the entry's value.
  bool entry_bare(const Struct& st, const char* key) const {
    size_t others = 0;
    bool conditional = false;
    for (const auto& g : st.fields) {
      if (!g->in_model() || g->name == key) continue;
      ++others;
      conditional = conditional || p_.of(g.get()).text_cond;
    }
    return others == 1 && !conditional;
  }

  // map: a map of entries keyed by the elements' key field, in order (In::map).
  // A key given twice is an error at the second.
  Value map_entries(text::Node n, const Field& f, const char* key_name) {
    Value out = Value::array();
    charge(n, n.size(), n.span());
    out.items().reserve(n.size());
    std::unordered_map<std::string_view, text::Node> seen;
    seen.reserve(n.size());
    for_each_entry(n, [&](text::Node key, text::Node val) {
      if (!key.is_scalar()) fail(key, "a map key must be a scalar");
      path_.emplace_back(key.scalar());
      const auto [it, fresh] = seen.emplace(key.scalar(), key);
      if (!fresh) {
        const text::Mark m = it->second.mark();
        fail(key, "duplicate key '" + std::string(key.scalar()) + "' (first at " + std::to_string(m.line) + ":" + std::to_string(m.col) + ")");
      }
      out.items().push_back(entry(key, val, f, key_name));
      path_.pop_back();
    });
    return out;
  }
  // One map entry into an element: a struct, or a union of struct cases (In::entry).
  Value entry(text::Node key, text::Node val, const Field& f, const char* key_name) {
    if (f.type.kind == ValueType::Union) {
      const gen::Case* found = &named_case(val, f);
      path_.emplace_back(found->name.c_str());
      Value v = entry_struct(key, val.first_value(), *found->field->type.st, key_name);
      path_.pop_back();
      return union_of(f, *found, std::move(v));
    }
    return entry_struct(key, val, *f.type.st, key_name);
  }
  Value entry_struct(text::Node key, text::Node val, const Struct& st, const char* key_name) {
    Frame fr(val);
    fr.key_name = key_name;
    fr.key_node = key;
    fr.bare = entry_bare(st, key_name);
    if (!fr.bare) {
      if (!val.is_map()) fail(val, "expected a map of the entry's fields");
      check_struct_keys(val, st, nullptr, nullptr, key_name);
    }
    return fields_in(std::move(fr), st);
  }

  // A bits: word: a struct of its bits.
  Value bit_word(text::Node n, const Field& f) {
    charge(n, 1);
    if (!n.is_map()) fail(n, "expected a map");
    check_bit_keys(n, f);
    const size_t mark = tables_.size();
    push_frame(Frame(n));
    Value x = Value::struct_();
    for (const auto& b : f.bits) {
      const char* name = b.name.c_str();
      const text::Node bn = frames_.back().node.get(name);
      Value v;
      if (!bn) {
        if (!b.default_text) fail(frames_.back().node, "missing field '" + b.name + "'");
        v = bit_default(b);
      } else {
        path_.emplace_back(name);
        v = bit(bn, b);
        path_.pop_back();
      }
      if (b.pool.empty()) add_int(name, v.as_int());
      x.add(b.name, std::move(v));
    }
    pop_frame();
    tables_.resize(mark);
    return x;
  }
  Value bit(text::Node n, const Field::Bits& b) {
    if (b.is_bool) {
      bool v = false;
      value(n, v);
      return Value::boolean(v, 0);
    }
    if (!b.pool.empty()) {
      std::string v;
      value(n, v);
      return Value::string(std::move(v));
    }
    if (b.width <= 8) { uint8_t v = 0; value(n, v); return Value::uint(v, 1); }
    if (b.width <= 16) { uint16_t v = 0; value(n, v); return Value::uint(v, 2); }
    if (b.width <= 32) { uint32_t v = 0; value(n, v); return Value::uint(v, 4); }
    uint64_t v = 0;
    value(n, v);
    return Value::uint(v, 8);
  }

  // A bare union's case text (generated case_text).
  static text::CaseText case_text(const gen::Case& c) {
    static const std::pair<const char*, text::Plain> kinds[] = {{"int", text::Plain::Int},   {"float", text::Plain::Float},
                                                                {"string", text::Plain::String}, {"bool", text::Plain::Bool},
                                                                {"null", text::Plain::Null}, {"list", text::Plain::List},
                                                                {"map", text::Plain::Map}};
    for (const auto& [k, p] : kinds)
      if (c.as == k) return {p, nullptr, c.unwrap};
    return {text::Plain::Tagged, c.as.c_str(), c.unwrap};
  }

  // A bare union's value (In::bare_in): the case its tag names (YAML's, or
  // JSON's one-key map {"!u": 5}), else the case of its plain kind.
  Value bare_union(text::Node n, const Field& u, const text::Spell& spell) {
    const auto& cases = u.variant.cases;
    std::vector<text::CaseText> cts;
    for (const auto& c : cases) cts.push_back(case_text(c));
    auto plain_case = [&](text::Plain p) {
      for (size_t i = 0; i < cts.size(); ++i)
        if (cts[i].plain == p) return i;
      return SIZE_MAX;
    };
    auto tags = [&] {
      std::string list;
      for (const auto& c : cts)
        if (c.tag) list += std::string(list.empty() ? "" : ", ") + c.tag;
      return list.empty() ? std::string("none") : list;
    };
    text::Node body = n;
    std::string_view tag = n.tag();
    if (tag.empty() && n.is_map() && n.size() == 1) {
      const std::string_view k = n.first_key().scalar();
      bool known = false;
      for (const auto& c : cts) known = known || (c.tag && k == c.tag);
      if (!k.empty() && k[0] == '!' && (known || text::standard_tag(k) != text::Plain::Tagged || plain_case(text::Plain::Map) == SIZE_MAX)) {
        tag = k;
        body = n.first_value();
      }
    }
    size_t index = SIZE_MAX;
    if (!tag.empty()) {
      for (size_t i = 0; i < cts.size() && index == SIZE_MAX; ++i)
        if (cts[i].tag && text::tag_is(tag, cts[i].tag)) index = i;
      if (index == SIZE_MAX)
        if (const text::Plain p = text::standard_tag(tag); p != text::Plain::Tagged) index = plain_case(p);
      if (index == SIZE_MAX) fail(n, "unknown tag '" + text::tag_spelling(tag) + "' (tags here: " + tags() + ")");
    } else {
      const text::Plain p = text::plain_kind(n);
      index = plain_case(p);
      if (index == SIZE_MAX && p == text::Plain::Int) index = plain_case(text::Plain::Float);
      if (index == SIZE_MAX) fail(n, std::string("a ") + text::plain_name(p) + " needs a tag here (tags here: " + tags() + ")");
    }
    const gen::Case& c = cases[index];
    path_.emplace_back(c.name.c_str());
    Value v;
    const Field& p = *c.field;
    if (cts[index].unwrap && p.type.kind == ValueType::Struct && p.type.st) {
      // One: the struct payload's one model field read from the node.
      v = Value::struct_();
      for (const auto& g : p.type.st->fields)
        if (g->in_model()) v.add(g->name, bare_plain(body, *g, cts[index], spell_of(*g)));
    } else {
      v = bare_plain(body, p, cts[index], spell);
    }
    path_.pop_back();
    return union_of(u, c, std::move(v));
  }
  Value bare_plain(text::Node n, const Field& f, const text::CaseText& ct, const text::Spell& spell) {
    if (ct.plain == text::Plain::Null && n.is_null()) return zero_of(f);
    return case_value(n, f, spell);
  }
  // X{}: the payload's C++ type default-constructed.
  Value zero_of(const Field& f) {
    if (!f.array.on && f.bits.empty()) {
      switch (f.type.kind) {
        case ValueType::Prim: return prim_value(f.type.prim, 0);
        case ValueType::Chars:
        case ValueType::CString:
        case ValueType::String: return Value::string({});
        case ValueType::Bytes: return Value::bytes({});
        default: break;
      }
    }
    if (f.array.on && !f.array.fixed_count) return Value::array();
    return default_value(p_, f);
  }

  // The case a union's text names: a map of one key, the case's name.
  // A union value of u's case c: the name's id from the plan (no intern() per union read).
  Value union_of(const Field& u, const gen::Case& c, Value v) const {
    return Value::union_(p_.of(&u).case_steps[static_cast<size_t>(&c - u.variant.cases.data())].id, c.tag, std::move(v));
  }
  const gen::Case& named_case(text::Node n, const Field& u) {
    const auto& cases = u.variant.cases;
    if (!n.is_map() || n.size() != 1) {
      std::string names;
      for (const auto& c : cases) names += std::string(names.empty() ? "" : ", ") + c.name;
      fail(n, "expected a map with one key naming the case (" + names + ")");
    }
    const std::string_view key = n.first_key().scalar();
    for (const auto& c : cases)
      if (key == c.name) return c;
    fail(n.first_key(), "unknown case '" + std::string(key) + "'");
  }

  // A union (In::value's Union branch): a map of one key naming the case.
  Value union_value(text::Node n, const Field& u, const text::Spell& spell) {
    charge(n, 1);
    if (u.variant.bare) return bare_union(n, u, spell);
    const gen::Case* found = &named_case(n, u);
    path_.emplace_back(found->name.c_str());
    Value v = case_value(n.first_value(), *found->field, spell);
    path_.pop_back();
    return union_of(u, *found, std::move(v));
  }
  Value case_value(text::Node n, const Field& p, const text::Spell& spell) {
    if (p.array.on) return model_value(n, p, spell);
    return elem(n, p, spell);
  }
};

}  // namespace

Value Schema::from_text(const text::Doc& doc) const {
  DynIn in(*p_, doc.root());
  return in.root(doc.root(), nullptr);
}
Value Schema::from_text(const text::Doc& doc, Layout& layout) const {
  DynIn in(*p_, doc.root());
  return in.root(doc.root(), &layout);
}
Value Schema::from_text(std::string_view text) const { return from_text(text::load(text)); }
Value Schema::from_text(std::string_view text, Layout& layout) const { return from_text(text::load(text), layout); }

}  // namespace binschema::dynamic
