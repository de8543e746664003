// binschema/dynamic.h: Value -> YAML / JSON, the generated to_text's text.
//
// The generated text binding is visit_fields (gen_cpp_types.cpp visit_decl)
// driven by text::Out (binschema/text.h); this is the same walk over the
// schema: the same sinks, spellings (Spell: hex, bool, enum, ref, hash
// names), name tables, defaults left out, and the same `layout:` entry.
#include <cstring>

#include <unordered_map>

#include "binschema/text.h"
#include "expr.h"
#include "plan.h"

namespace binschema::dynamic {

using gen::Field;
using gen::Prim;
using gen::Struct;
using gen::ValueType;
using text::NameTable;
using text::Spell;
using FieldPlan = binschema::dynamic::FieldPlan;

namespace {

// The model type of a field is an integer (or bool): text::Out notes its value for a ref's via.
bool integral(const Field& f) {
  return f.type.kind == ValueType::Prim && f.bits.empty() && !f.array.on && !gen::prim_is_float(f.type.prim) && f.table.index_of.empty();
}

unsigned hex_digits(const Value& v) { return v.width == 3 ? 8 : 2u * v.width; }

// v == static_cast<T>(def) of text::Out::field_default.
bool equals_default(const Value& v, const Value& def) {
  if (v.kind == Value::Kind::Float || v.kind == Value::Kind::Double) return v.as_double() == def.as_double();
  return v == def;
}

// Writes through text::DocSink (YAML, JSON or events): one copy of the walk.
class DynOut {
 public:
  // The first frame of integers holds the root's (context: values).
  DynOut(text::DocSink& sink, const Schema::Plan& p, const text::DocNames* doc_names = nullptr) : sink_(sink), p_(p), doc_names_(doc_names) {
    ints_.emplace_back();
  }

  // visit_fields of struct st over x, shown in the current shape.
  void fields(const Struct& st, const Value& x) {
    for (const auto& t : st.name_targets) names(st, x, t);
    size_t k = 0;
    for (const Field* f : p_.of(&st).model) {
      const Value& v = x.fields().at(k++).value;
      const FieldPlan& fp = p_.of(f);
      const SpellData* sd = p_.spell(f);
      const Spell& spell = sd ? sd->spell : kNoSpell;
      if (fp.text_cond) {
        // field_if: left out while the condition is false.
        if (!holds(*fp.text_cond, st, x)) {
          note(*f, v);
          continue;
        }
      } else if (!shape_.bare) {
        // field_default: left out while it holds the default.
        if (!f->bits.empty() && all_bits_default(*f)) {
          if (v == fp.bits_def) continue;
        } else if (f->role.default_text && equals_default(v, fp.def)) {
          note(*f, v);
          continue;
        }
      }
      if (shape_.skip && f->name == shape_.skip) {
        // A map entry's key: shown as the entry's key, not among its fields.
      } else if (shape_.bare) {
        value(*f, v, spell);  // the one field of an unwrapped struct or a map entry's value
      } else {
        sink_.key(f->name.c_str());
        value(*f, v, spell);
      }
      note(*f, v);
    }
  }

  // A list of strings (the layout's pool orders).
  void strings(const std::vector<std::string>& v) {
    sink_.begin_seq(v.empty());
    for (const auto& s : v) string(s);
    sink_.end_seq();
  }

 private:
  using SpellData = Schema::Plan::SpellData;
  static inline const Spell kNoSpell{};

  // How the fields of the struct being visited are shown (text::Out's Shape):
  // `skip` is a map entry's key field, `bare` shows the one other field as a value.
  struct Shape {
    const char* skip = nullptr;
    bool bare = false;
  };

  static bool arith(const Value& v) {
    return v.kind == Value::Kind::Bool || v.kind == Value::Kind::Int || v.kind == Value::Kind::UInt ||
           v.kind == Value::Kind::Float || v.kind == Value::Kind::Double;
  }

  // The integers a ref's via and a context: read (text::Out notes each integral field).
  void note(const Field& f, const Value& v) {
    if (integral(f)) ints_.back().emplace_back(f.name.c_str(), v.as_int());
  }

  // The if: of a field over its struct's value (text_cond).
  bool holds(const gen::Expr& e, const Struct& st, const Value& x) const {
    ExprEnv env;
    env.model = &x;
    env.st = &st;
    env.self = this;
    env.ctx = [](const void* self, const std::string& name, uint64_t& out) {
      out = 0;
      for (const auto& [n, val] : static_cast<const DynOut*>(self)->ints_.front())
        if (name == n) out = static_cast<uint64_t>(val);
      return true;
    };
    return eval_model(e, env) != 0;
  }

  // A struct's fields in the current collection, shaped so (text::Out::fields).
  void fields_in(const Struct& st, const Value& x, Shape shape) {
    const Shape saved = shape_;
    shape_ = shape;
    const size_t mark = tables_.size();
    ints_.emplace_back();
    fields(st, x);
    ints_.pop_back();
    tables_.resize(mark);
    shape_ = saved;
  }

  static bool all_bits_default(const Field& f) {
    for (const auto& b : f.bits)
      if (!b.default_text) return false;
    return true;
  }

  void names(const Struct& st, const Value& x, const Struct::NameTarget& t) {
    NameTable tab;
    tab.array = t.array;
    tab.key_field = t.key;
    tab.also = t.also;
    for (const auto& sname : t.subs) tab.subs.emplace_back(sname, std::vector<std::vector<std::string>>{});
    const Value* arr = x.find(t.array);
    const Field* af = st.field(t.array);
    const bool of_strings = af && af->type.kind != ValueType::Struct;
    if (arr)
      for (const Value& e : arr->items()) {
        if (of_strings) {
          tab.keys.push_back(e.str());
          continue;
        }
        std::string found;
        std::vector<std::vector<std::string>> lists(t.subs.size());
        std::vector<std::string> also(t.also.size());
        const Struct* et = af ? af->type.st : nullptr;
        size_t k = 0;
        if (et)
          for (const Field* f : p_.of(et).model) {
            const Value& v = e.fields().at(k++).value;
            const bool is_string = !f->array.on && v.kind == Value::Kind::String;
            const bool is_list = f->array.on && !f->array.fixed_count &&
                                 (f->type.kind == ValueType::String || f->type.kind == ValueType::Chars || f->type.kind == ValueType::CString);
            if (is_string && f->name == t.key) found = v.str();
            if (is_string)
              for (size_t i = 0; i < t.also.size(); ++i)
                if (f->name == t.also[i]) also[i] = v.str();
            if (is_list)
              for (size_t i = 0; i < t.subs.size(); ++i)
                if (f->name == t.subs[i]) {
                  lists[i].clear();
                  for (const Value& s : v.items()) lists[i].push_back(s.str());
                }
          }
        tab.keys.push_back(std::move(found));
        for (size_t i = 0; i < t.subs.size(); ++i) tab.subs[i].second.push_back(std::move(lists[i]));
        if (!t.also.empty()) tab.also_keys.push_back(std::move(also));
      }
    tables_.push_back(std::move(tab));
  }

  void string(const std::string& s) {
    if (text::is_utf8(s)) {
      sink_.string(s);
    } else {
      sink_.begin_map(true);
      sink_.key("bytes");
      sink_.string(text::to_hex(s));
      sink_.end_map();
    }
  }

  // text::Out::value for the model value v of field f (an element of f when f is an array).
  void value(const Field& f, const Value& v, const Spell& spell) {
    // A bare union's map case marks the map: array it is shown as (map_case_):
    // the mark passes through an optional and an unwrapped struct to that
    // array; anything else written first drops it.
    bool map_case = map_case_;
    if (!(v.kind == Value::Kind::Struct && f.bits.empty() && f.type.st && f.type.st->unwrap)) map_case_ = false;
    switch (v.kind) {
      case Value::Kind::Absent: sink_.null(); return;
      case Value::Kind::Bool: sink_.boolean(v.as_uint() != 0); return;
      case Value::Kind::Int:
      case Value::Kind::UInt: {
        if ((spell.flags & ~text::kHex) || spell.enum_count || spell.ref || spell.hash)
          if (!text::numbers_only() && named(v.as_int(), spell)) return;
        const bool neg = v.kind == Value::Kind::Int && v.as_int() < 0;
        const uint64_t mag = neg ? uint64_t(0) - v.as_uint() : v.as_uint();
        const bool hex = spell.flags & text::kHex;
        sink_.number(text::format_int(mag, neg, hex, hex_digits(v)), hex);
        return;
      }
      case Value::Kind::Float: {
        const float x = v.as_float();
        sink_.number(text::format_float(x), text::float_is_text(x));
        return;
      }
      case Value::Kind::Double: {
        const double x = v.as_double();
        sink_.number(text::format_float(x), text::float_is_text(x));
        return;
      }
      case Value::Kind::String: string(v.str()); return;
      case Value::Kind::Bytes: sink_.string(text::to_hex(v.str())); return;
      case Value::Kind::Array: {
        const bool of_structs = f.type.kind == ValueType::Struct || f.type.kind == ValueType::Union;
        const bool map_able = spell.map && of_structs && !f.array.fixed_count && f.bits.empty();
        if (map_able && as_map(f, v, spell.map, map_case)) return;
        // A map: array shown as a list, as a bare union's map case: marked, as
        // the list would read back as the union's list case.
        map_case = map_case && map_able;
        if (map_case) begin_map_mark();
        bool flow = v.items().empty() || arith(v.items()[0]);
        if (f.type.kind == ValueType::Union && f.variant.bare) flow = flow || scalar_elems(v);
        sink_.begin_seq(flow);
        for (const Value& e : v.items()) value(f, e, spell);
        sink_.end_seq();
        if (map_case) end_map_mark();
        return;
      }
      case Value::Kind::Union: {
        const gen::Case* c = case_of(f, v);
        if (f.variant.bare && c && !v.items().empty()) {
          bare_case(*c, v.items()[0], spell);
          return;
        }
        sink_.begin_map();
        sink_.key(c ? c->name.c_str() : v.case_name().data());  // interned: NUL-terminated
        if (c && !v.items().empty()) value(*c->field, v.items()[0], spell);
        sink_.end_map();
        return;
      }
      case Value::Kind::Struct: {
        if (!f.bits.empty()) {
          sink_.begin_map();
          const Shape saved = shape_;
          shape_ = Shape{};
          const size_t mark = tables_.size();
          ints_.emplace_back();
          bits(f, v);
          ints_.pop_back();
          tables_.resize(mark);
          shape_ = saved;
          sink_.end_map();
        } else if (f.type.st && f.type.st->unwrap) {
          fields_in(*f.type.st, v, Shape{nullptr, true});  // shown as its one field's value
        } else if (f.type.st) {
          sink_.begin_map();
          fields_in(*f.type.st, v, Shape{});
          sink_.end_map();
        }
        return;
      }
    }
  }

  static const gen::Case* case_of(const Field& u, const Value& v) {
    for (const auto& c : u.variant.cases)
      if (c.name == v.case_name()) return &c;
    return nullptr;
  }

  // The case's CaseText (generated case_text).
  static text::CaseText case_text(const gen::Case& c) {
    static const std::pair<const char*, text::Plain> kinds[] = {{"int", text::Plain::Int},   {"float", text::Plain::Float},
                                                                {"string", text::Plain::String}, {"bool", text::Plain::Bool},
                                                                {"null", text::Plain::Null}, {"list", text::Plain::List},
                                                                {"map", text::Plain::Map}};
    for (const auto& [k, p] : kinds)
      if (c.as == k) return {p, nullptr, c.unwrap};
    return {text::Plain::Tagged, c.as.c_str(), c.unwrap};
  }

  // A bare union's list of numbers, bools or short strings: one line (text::Out::scalar_elems).
  static bool scalar_elems(const Value& v) {
    size_t text = 0;
    for (const Value& e : v.items()) {
      const Value* alt = e.items().empty() ? nullptr : &e.items()[0];
      if (alt && alt->kind == Value::Kind::String) text += alt->str().size() + 2;
      else if (!alt || !arith(*alt)) return false;
      if (text > 60) return false;
    }
    return true;
  }

  // A case of a bare union: its payload (or the one field of a struct payload) alone.
  void bare_case(const gen::Case& c, const Value& alt, const Spell& spell) {
    const text::CaseText ct = case_text(c);
    if (ct.unwrap && alt.kind == Value::Kind::Struct && c.field->type.st) {
      size_t k = 0;
      for (const Field* g : p_.of(c.field->type.st).model) {
        const SpellData* sd = p_.spell(g);
        bare_plain(*g, alt.fields().at(k++).value, ct, sd ? sd->spell : kNoSpell);
      }
      return;
    }
    bare_plain(*c.field, alt, ct, spell);
  }
  // X{} of the payload's C++ type.
  bool is_zero(const Field& f, const Value& x) const {
    switch (x.kind) {
      case Value::Kind::Bool:
      case Value::Kind::Int:
      case Value::Kind::UInt: return x.as_uint() == 0;
      case Value::Kind::Float:
      case Value::Kind::Double: return x.as_double() == 0;
      case Value::Kind::String:
      case Value::Kind::Bytes: return x.str().empty();
      case Value::Kind::Array: return f.array.fixed_count ? x == default_value(p_, f) : x.items().empty();
      case Value::Kind::Absent: return true;
      default: return x == default_value(p_, f);
    }
  }
  void bare_plain(const Field& f, const Value& x, const text::CaseText& ct, const Spell& spell) {
    const char* tag = ct.tag;
    if (ct.plain == text::Plain::Null) {
      if (is_zero(f, x)) {
        sink_.null();
        return;
      }
      tag = "!!null";  // a value where the format has none: kept, tagged
    }
    if (!sink_.tags() && ct.plain == text::Plain::Float && (x.kind == Value::Kind::Float || x.kind == Value::Kind::Double) &&
        (x.kind == Value::Kind::Float ? text::float_is_text(x.as_float()) : text::float_is_text(x.as_double())))
      tag = "!!float";  // JSON quotes .inf: a string
    if (ct.plain == text::Plain::String && x.kind == Value::Kind::String && !text::is_utf8(x.str())) tag = "!!str";
    if (ct.plain == text::Plain::Map) {
      // The map: array this case shows marks itself where its text would
      // read back as another case (as_map, value).
      map_case_ = true;
      value(f, x, spell);
      map_case_ = false;
    } else if (!tag) {
      value(f, x, spell);
    } else if (sink_.tags()) {
      sink_.tag(tag);
      value(f, x, spell);
    } else {
      sink_.begin_map(true);  // JSON: {"!u": 5}
      sink_.key(tag);
      value(f, x, spell);
      sink_.end_map();
    }
  }

  // map: the text of an element's key field (text::Out::key_text).
  bool key_text(const Value& v, const Spell& spell, std::string& out, bool& number) {
    switch (v.kind) {
      case Value::Kind::Bool:
        out = v.as_uint() ? "true" : "false";
        number = true;
        return true;
      case Value::Kind::Int:
      case Value::Kind::UInt: {
        bool is_bool = false;
        if ((spell.flags & ~text::kHex) || spell.enum_count || spell.ref || spell.hash)
          if (!text::numbers_only() && name_text(v.as_int(), spell, out, is_bool)) {
            number = is_bool;
            return true;
          }
        const bool neg = v.kind == Value::Kind::Int && v.as_int() < 0;
        const uint64_t mag = neg ? uint64_t(0) - v.as_uint() : v.as_uint();
        out = text::format_int(mag, neg, spell.flags & text::kHex, hex_digits(v));
        number = true;
        return true;
      }
      case Value::Kind::String:
        out = v.str();
        number = false;
        return text::is_utf8(v.str());
      default: return false;
    }
  }

  // The element's struct and value (a union's struct case), or null.
  static const Struct* element_struct(const Field& f, const Value& e, const Value*& body) {
    body = &e;
    if (e.kind == Value::Kind::Union) {
      const gen::Case* c = case_of(f, e);
      if (!c || e.items().empty() || e.items()[0].kind != Value::Kind::Struct) return nullptr;
      body = &e.items()[0];
      return c->field->type.st;
    }
    return e.kind == Value::Kind::Struct ? f.type.st : nullptr;
  }

  // The key text of an element (a struct, or a union's struct case).
  bool element_key(const Field& f, const Value& e, const char* key, std::string& out, bool& number) {
    const Value* body = nullptr;
    const Struct* st = element_struct(f, e, body);
    if (!st) return false;
    bool ok = false;
    size_t k = 0;
    for (const Field* g : p_.of(st).model) {
      const Value& v = body->fields().at(k++).value;
      if (g->name == key) {
        const SpellData* sd = p_.spell(g);
        ok = key_text(v, sd ? sd->spell : kNoSpell, out, number);
      }
    }
    return ok;
  }

  // EntryShape: the fields other than the key, and whether one is conditional.
  bool entry_bare(const Struct& st, const char* key) const {
    size_t others = 0;
    bool conditional = false;
    for (const Field* g : p_.of(&st).model) {
      if (g->name == key) continue;
      ++others;
      conditional = conditional || p_.of(g).text_cond;
    }
    return others == 1 && !conditional;
  }

  // One map entry's value: the element's fields but the key, a union's case name around them.
  void entry_value(const Field& f, const Value& e, const char* key) {
    if (e.kind == Value::Kind::Union) {
      const gen::Case* c = case_of(f, e);
      sink_.begin_map();
      sink_.key(c ? c->name.c_str() : e.case_name().data());  // interned: NUL-terminated
      if (c && !e.items().empty() && e.items()[0].kind == Value::Kind::Struct && c->field->type.st)
        entry_struct(*c->field->type.st, e.items()[0], key);
      sink_.end_map();
      return;
    }
    if (f.type.st) entry_struct(*f.type.st, e, key);
  }
  void entry_struct(const Struct& st, const Value& e, const char* key) {
    if (entry_bare(st, key)) {
      fields_in(st, e, Shape{key, true});
    } else {
      sink_.begin_map();
      fields_in(st, e, Shape{key, false});
      sink_.end_map();
    }
  }

  // map: the elements as a map keyed by their key fields' text, in order;
  // false (shown as a list) when a key has no text or two elements share one.
  // The mark of a bare union's map case whose text would read back as
  // another case: the tag !!map in YAML, {"!!map": ...} around it in JSON.
  void begin_map_mark() {
    if (sink_.tags()) {
      sink_.tag("!!map");
    } else {
      sink_.begin_map(false);
      sink_.key("!!map");
    }
  }
  void end_map_mark() {
    if (!sink_.tags()) sink_.end_map();
  }

  bool as_map(const Field& f, const Value& v, const char* key, bool map_case = false) {
    const size_t n = v.items().size();
    std::vector<std::string> keys(n);
    std::vector<uint8_t> numbers(n);
    for (size_t i = 0; i < n; ++i) {
      bool number = false;
      if (!element_key(f, v.items()[i], key, keys[i], number)) return false;
      numbers[i] = number;
    }
    std::unordered_map<std::string_view, size_t> seen;
    seen.reserve(n);
    for (size_t i = 0; i < n; ++i)
      if (!seen.emplace(keys[i], i).second) return false;
    const bool mark = map_case && n == 1 && !keys[0].empty() && keys[0][0] == '!';
    if (mark) begin_map_mark();
    sink_.begin_map(n == 0 || scalar_entries(f, v, key, keys));
    for (size_t i = 0; i < n; ++i) {
      sink_.key_text(keys[i], numbers[i]);
      entry_value(f, v.items()[i], key);
    }
    sink_.end_map();
    if (mark) end_map_mark();
    return true;
  }

  // Whether each entry shows one number, bool, null or string, all on about
  // one line (text::Out::scalar_entries): the map is then in flow style.
  bool scalar_entries(const Field& f, const Value& v, const char* key, const std::vector<std::string>& keys) const {
    if (f.type.kind != ValueType::Struct || !f.type.st) return false;
    const Struct& st = *f.type.st;
    size_t len = 0;
    for (size_t i = 0; i < v.items().size(); ++i) {
      const Value& e = v.items()[i];
      bool ok = true;
      size_t plen = 0, cnt = 0;
      size_t k = 0;
      for (const Field* g : p_.of(&st).model) {
        const Value& x = e.fields().at(k++).value;
        if (p_.of(g).text_cond) {
          ok = false;
          continue;
        }
        if (g->name == key) continue;
        ++cnt;
        if (!g->bits.empty() || g->array.on) ok = false;
        else if (arith(x)) plen += 8;
        else if (x.kind == Value::Kind::String) plen += x.str().size() + 2;
        else if (x.kind == Value::Kind::Union && g->variant.bare) {
          const Value* alt = x.items().empty() ? nullptr : &x.items()[0];
          if (alt && arith(*alt)) plen += 8;
          else if (alt && alt->kind == Value::Kind::String) plen += alt->str().size() + 2;
          else ok = false;
        } else {
          ok = false;
        }
      }
      len += keys[i].size() + 2 + plen;
      if (!ok || cnt != 1 || len > 100) return false;
    }
    return true;
  }

  // visit_fields of a bit word.
  void bits(const Field& f, const Value& x) {
    size_t k = 0;
    for (const auto& b : f.bits) {
      const Value& v = x.fields().at(k++).value;
      const bool is_int = b.pool.empty();
      if (b.default_text) {
        Value def;
        if (!b.pool.empty()) def = Value::string(*b.default_text);
        else if (b.is_bool) def = Value::boolean(*b.default_text == "true", 0);
        else def = Value::uint(std::stoull(*b.default_text, nullptr, 0), v.width);
        if (v == def) {
          if (is_int && !ints_.empty()) ints_.back().emplace_back(b.name.c_str(), v.as_int());
          continue;
        }
      }
      sink_.key(b.name.c_str());
      value(f, v, kNoSpell);
      if (is_int && !ints_.empty()) ints_.back().emplace_back(b.name.c_str(), v.as_int());
    }
  }

  // text::Out::named: prints an integer by its name when it has one.
  bool named(int64_t v, const Spell& spell) {
    std::string text;
    bool is_bool = false;
    const NameTable* composite = nullptr;
    if (!name_text(v, spell, text, is_bool, &composite)) return false;
    if (composite) {
      // A key shared by other elements: the key and the further keys together.
      sink_.begin_map(true);
      sink_.key(composite->key_field.c_str());
      sink_.string(text);
      for (size_t j = 0; j < composite->also.size(); ++j) {
        sink_.key(composite->also[j].c_str());
        sink_.string(composite->also_keys[v][j]);
      }
      sink_.end_map();
    } else if (is_bool) {
      sink_.boolean(v == 1);
    } else {
      sink_.string(text);
    }
    return true;
  }
  // text::Out::name_text
  bool name_text(int64_t v, const Spell& spell, std::string& out, bool& is_bool, const NameTable** composite = nullptr) {
    if ((spell.flags & text::kBool) && (v == 0 || v == 1)) {
      out = v == 1 ? "true" : "false";
      is_bool = true;
      return true;
    }
    for (size_t i = 0; i < spell.enum_count; ++i)
      if (spell.enum_values[i].value == v) {
        out = spell.enum_values[i].name;
        return true;
      }
    if (spell.ref) {
      const std::vector<std::string>* keys = ref_keys(spell);
      const NameTable* t = text::find_table(tables_, std::string_view(spell.ref).substr(0, std::string_view(spell.ref).find('.')));
      if (keys && v >= 0 && static_cast<uint64_t>(v) < keys->size()) {
        const std::string& k = (*keys)[v];
        bool unique = text::is_name_spelling(k);
        if (unique && spell.via) {
          for (size_t i = 0; i < keys->size() && unique; ++i) unique = i == size_t(v) || (*keys)[i] != k;
        } else if (unique) {
          unique = t->shows(static_cast<size_t>(v));
        }
        if (unique) {
          out = k;
          return true;
        }
        if (composite && !spell.via && !t->also.empty() && t->shows_all(static_cast<size_t>(v))) {
          *composite = t;
          out = k;
          return true;
        }
      }
    }
    if (spell.hash && v >= 0) {
      if (const std::string* n = text::known_name(spell.hash, static_cast<uint64_t>(v)); n && text::is_name_spelling(*n)) {
        out = *n;
        return true;
      }
      // The names the document's own strings prove, then the schema's names: list.
      if (doc_names_)
        if (const std::string* n = doc_names_->find(spell.hash, static_cast<uint64_t>(v)); n && text::is_name_spelling(*n)) {
          out = *n;
          return true;
        }
    }
    return false;
  }
  const std::vector<std::string>* ref_keys(const Spell& spell) const {
    std::string_view ref = spell.ref;
    const size_t dot = ref.find('.');
    const NameTable* t = text::find_table(tables_, ref.substr(0, dot));
    if (!t) return nullptr;
    if (dot == std::string_view::npos) return &t->keys;
    if (!spell.via || ints_.empty()) return nullptr;
    int64_t idx = -1;
    for (const auto& [n, val] : ints_.back())
      if (std::string_view(n) == spell.via) idx = val;
    for (const auto& [sname, lists] : t->subs)
      if (sname == ref.substr(dot + 1) && idx >= 0 && static_cast<uint64_t>(idx) < lists.size()) return &lists[idx];
    return nullptr;
  }

  text::DocSink& sink_;
  const Schema::Plan& p_;
  const text::DocNames* doc_names_;
  std::vector<NameTable> tables_;
  std::vector<std::vector<std::pair<const char*, int64_t>>> ints_;
  Shape shape_;
  bool map_case_ = false;  // a bare union's map case is being written (bare_plain)
};

// text::EachString: every string of the model, in the order of its members
// (a union's case name is no string of the model).
void prove_strings(const Value& v, text::DocNames& names) {
  switch (v.kind) {
    case Value::Kind::String: names.prove(v.str()); return;
    case Value::Kind::Struct:
      for (const auto& m : v.fields()) prove_strings(m.value, names);
      return;
    case Value::Kind::Array:
    case Value::Kind::Union:
      for (const Value& e : v.items()) prove_strings(e, names);
      return;
    default: return;
  }
}

std::string document(text::DocSink sink, const Schema::Plan& p, const Value& x, const Layout* layout) {
  // text::to_document: the hash names the document proves, then the schema's list.
  std::optional<text::DocNames> names;
  if (p.has_hash_names && !text::numbers_only()) {
    names.emplace(p.hash_names);
    prove_strings(x, *names);
    names->add_defaults();
  }
  DynOut out(sink, p, names ? &*names : nullptr);
  sink.begin_map();
  sink.key("format");
  sink.string(p.s->format);
  out.fields(*p.root, x);
  if (layout && !layout->empty()) text::layout_entry(sink, *layout, [&](const std::vector<std::string>& v) { out.strings(v); });
  sink.end_map();
  return sink.result();
}

}  // namespace

std::string Schema::to_text(const Value& v, TextKind kind, const Layout* layout) const {
  if (v.kind != Value::Kind::Struct) throw std::invalid_argument("to_text: the value is not a struct of the schema's root");
  if (kind == TextKind::Json) {
    text::JsonSink sink;
    return document(text::DocSink(sink), *p_, v, layout);
  }
  if (kind == TextKind::Events) {  // the Python module's values (text.h)
    if (!text::event_sink()) throw std::logic_error("to_text: TextKind::Events without an event_sink()");
    return document(text::DocSink(*text::event_sink()), *p_, v, layout);
  }
  text::YamlSink sink;
  return document(text::DocSink(sink), *p_, v, layout);
}

}  // namespace binschema::dynamic
