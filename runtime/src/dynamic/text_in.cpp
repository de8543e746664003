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
  DynIn(const gen::Schema& s, text::Node doc) : In(doc), s_(s) {}

  // from_document: the root's fields (its map checked against them, the
  // document's `format` and `layout` aside).
  Value root(text::Node doc, Layout* layout) {
    const Struct& root = *s_.find(s_.root);
    check_struct_keys(doc, root, "format", "layout");
    Value x = Value::struct_();
    fields(root, x);
    if (layout) {
      *layout = Layout{};
      if (const text::Node l = doc.get("layout")) this->layout(l, *layout);
    }
    return x;
  }

 private:
  const gen::Schema& s_;
  struct SpellStore {
    std::vector<text::EnumValue> values;
    text::Spell spell;
  };
  std::map<const Field*, std::unique_ptr<SpellStore>> spells_;

  // The Spell the generated visit_fields passes for a field.
  const text::Spell& spell_of(const Field& f) {
    static const text::Spell none{};
    if (!f.spelled()) return f.spell.hex ? text::kHexSpell : none;
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
    }
    return p->spell;
  }

  // check_keys: a key that names no model field of st is refused.
  void check_struct_keys(text::Node map, const Struct& st, const char* extra = nullptr, const char* extra2 = nullptr) {
    auto it = map.children().begin();
    const auto end = map.children().end();
    while (it != end) {
      const text::Node key = *it;
      ++it;
      ++it;
      const std::string_view k = key.scalar();
      if ((extra && k == extra) || (extra2 && k == extra2)) continue;
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
      if (arr && arr->type.kind == ValueType::String) names(t.array.c_str(), std::vector<std::string>{}, t.key.c_str(), subs);
      else names(t.array.c_str(), std::vector<Elem>{}, t.key.c_str(), subs);
    }
    for (const auto& fp : st.fields) {
      const Field& f = *fp;
      if (!f.in_model()) continue;
      const bool bits_default = !f.bits.empty() && std::all_of(f.bits.begin(), f.bits.end(), [](const Field::Bits& b) { return b.default_text.has_value(); });
      x.add(f.name, field(f, spell_of(f), bits_default || f.role.default_text.has_value()));
    }
  }

  // In::field / In::field_default for field f.
  Value field(const Field& f, const text::Spell& spell, bool has_default) {
    const char* name = f.name.c_str();
    Frame& fr = frames_.back();
    fr.seen.push_back(name);
    const text::Node n = fr.node.get(name);
    if (!n) {
      if (!has_default) fail(fr.node, "missing field '" + std::string(name) + "'");
      Value v = default_of(f);
      if (integral(f)) frames_.back().ints.emplace_back(name, static_cast<int64_t>(v.n));
      return v;
    }
    path_.emplace_back(name);
    Value v = model_value(n, f, spell);
    path_.pop_back();
    if (integral(f)) frames_.back().ints.emplace_back(name, static_cast<int64_t>(v.n));
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
        if (!n.is_seq()) fail(n, "expected a list");
        charge(n, n.size(), n.span());
      }
      out.items.reserve(n.size());
      size_t i = 0;
      for (const text::Node e : n.children()) {
        path_.emplace_back(i++);
        out.items.push_back(elem(e, f, spell));
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

  // A struct (In::value's last branch).
  Value structure(text::Node n, const Struct& st) {
    charge(n, 1);
    if (!n.is_map()) fail(n, "expected a map");
    check_struct_keys(n, st);
    const size_t mark = tables_.size();
    frames_.push_back(Frame(n));
    Value x = Value::struct_();
    fields(st, x);
    frames_.pop_back();
    tables_.resize(mark);
    return x;
  }

  // A bits: word: a struct of its bits.
  Value bit_word(text::Node n, const Field& f) {
    charge(n, 1);
    if (!n.is_map()) fail(n, "expected a map");
    check_bit_keys(n, f);
    const size_t mark = tables_.size();
    frames_.push_back(Frame(n));
    Value x = Value::struct_();
    for (const auto& b : f.bits) {
      const char* name = b.name.c_str();
      frames_.back().seen.push_back(name);
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
      if (b.pool.empty()) frames_.back().ints.emplace_back(name, static_cast<int64_t>(v.n));
      x.add(b.name, std::move(v));
    }
    frames_.pop_back();
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

  // A union (In::value's Union branch): a map of one key naming the case.
  Value union_value(text::Node n, const Field& u, const text::Spell& spell) {
    charge(n, 1);
    const auto& cases = u.variant.cases;
    if (!n.is_map() || n.size() != 1) {
      std::string names;
      for (const auto& c : cases) names += std::string(names.empty() ? "" : ", ") + c.name;
      fail(n, "expected a map with one key naming the case (" + names + ")");
    }
    const std::string_view key = n.first_key().scalar();
    const gen::Case* found = nullptr;
    for (const auto& c : cases)
      if (key == c.name) found = &c;
    if (!found) fail(n.first_key(), "unknown case '" + std::string(key) + "'");
    path_.emplace_back(found->name.c_str());
    Value v = case_value(n.first_value(), *found->field, spell);
    path_.pop_back();
    return Value::union_(found->name, found->tag, std::move(v));
  }
  Value case_value(text::Node n, const Field& p, const text::Spell& spell) {
    if (p.array.on) return model_value(n, p, spell);
    return elem(n, p, spell);
  }
};

}  // namespace

Value Schema::from_text(const text::Doc& doc) const {
  DynIn in(*s_, doc.root());
  return in.root(doc.root(), nullptr);
}
Value Schema::from_text(const text::Doc& doc, Layout& layout) const {
  DynIn in(*s_, doc.root());
  return in.root(doc.root(), &layout);
}
Value Schema::from_text(std::string_view text) const { return from_text(text::load(text)); }
Value Schema::from_text(std::string_view text, Layout& layout) const { return from_text(text::load(text), layout); }

}  // namespace binschema::dynamic
