// binschema/dynamic.h: Value -> YAML / JSON, the generated to_text's text.
//
// The generated text binding is visit_fields (gen_cpp_types.cpp visit_decl)
// driven by text::Out (binschema/text.h); this is the same walk over the
// schema: the same sinks, spellings (Spell: hex, bool, enum, ref, hash
// names), name tables, defaults left out, and the same `layout:` entry.
#include <cstring>

#include "binschema/text.h"
#include "plan.h"

namespace binschema::dynamic {

using gen::Field;
using gen::Prim;
using gen::Struct;
using gen::ValueType;
using text::NameTable;
using text::Spell;

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

template <class Sink>
class DynOut {
 public:
  DynOut(Sink& sink, const Schema::Plan& p, const text::DocNames* doc_names = nullptr) : sink_(sink), p_(p), doc_names_(doc_names) {}

  // visit_fields of struct st over x.
  void fields(const Struct& st, const Value& x) {
    for (const auto& t : st.name_targets) names(st, x, t);
    size_t k = 0;
    for (const Field* f : p_.of(&st).model) {
      const Value& v = x.fields.at(k++).value;
      const SpellData* sd = p_.spell(f);
      const Spell& spell = sd ? sd->spell : kNoSpell;
      if (!f->bits.empty() && all_bits_default(*f)) {
        if (v == p_.of(f).bits_def) continue;
      } else if (f->role.default_text) {
        if (equals_default(v, p_.of(f).def)) {
          if (integral(*f) && !ints_.empty()) ints_.back().emplace_back(f->name.c_str(), static_cast<int64_t>(v.n));
          continue;
        }
      }
      sink_.key(f->name.c_str());
      value(*f, v, spell);
      if (integral(*f) && !ints_.empty()) ints_.back().emplace_back(f->name.c_str(), static_cast<int64_t>(v.n));
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

  static bool all_bits_default(const Field& f) {
    for (const auto& b : f.bits)
      if (!b.default_text) return false;
    return true;
  }

  void names(const Struct& st, const Value& x, const Struct::NameTarget& t) {
    NameTable tab;
    tab.array = t.array;
    for (const auto& sname : t.subs) tab.subs.emplace_back(sname, std::vector<std::vector<std::string>>{});
    const Value* arr = x.find(t.array);
    const Field* af = st.field(t.array);
    const bool of_strings = af && af->type.kind != ValueType::Struct;
    if (arr)
      for (const Value& e : arr->items) {
        if (of_strings) {
          tab.keys.push_back(e.str);
          continue;
        }
        std::string found;
        std::vector<std::vector<std::string>> lists(t.subs.size());
        const Struct* et = af ? af->type.st : nullptr;
        size_t k = 0;
        if (et)
          for (const Field* f : p_.of(et).model) {
            const Value& v = e.fields.at(k++).value;
            const bool is_string = !f->array.on && (f->type.kind == ValueType::String || f->type.kind == ValueType::Chars ||
                                                    f->type.kind == ValueType::CString);
            const bool is_list = f->array.on && !f->array.fixed_count &&
                                 (f->type.kind == ValueType::String || f->type.kind == ValueType::Chars || f->type.kind == ValueType::CString);
            if (is_string && f->name == t.key) found = v.str;
            if (is_list)
              for (size_t i = 0; i < t.subs.size(); ++i)
                if (f->name == t.subs[i]) {
                  lists[i].clear();
                  for (const Value& s : v.items) lists[i].push_back(s.str);
                }
          }
        tab.keys.push_back(std::move(found));
        for (size_t i = 0; i < t.subs.size(); ++i) tab.subs[i].second.push_back(std::move(lists[i]));
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
    switch (v.kind) {
      case Value::Kind::Absent: sink_.null(); return;
      case Value::Kind::Bool: sink_.boolean(v.n != 0); return;
      case Value::Kind::Int:
      case Value::Kind::UInt: {
        if ((spell.flags & ~text::kHex) || spell.enum_count || spell.ref || spell.hash)
          if (!text::numbers_only() && named(static_cast<int64_t>(v.n), spell)) return;
        const bool neg = v.kind == Value::Kind::Int && static_cast<int64_t>(v.n) < 0;
        const uint64_t mag = neg ? uint64_t(0) - v.n : v.n;
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
      case Value::Kind::String: string(v.str); return;
      case Value::Kind::Bytes: sink_.string(text::to_hex(v.str)); return;
      case Value::Kind::Array: {
        const bool arith = v.items.empty() || v.items[0].kind == Value::Kind::Bool || v.items[0].kind == Value::Kind::Int ||
                           v.items[0].kind == Value::Kind::UInt || v.items[0].kind == Value::Kind::Float ||
                           v.items[0].kind == Value::Kind::Double;
        sink_.begin_seq(arith);
        for (const Value& e : v.items) value(f, e, spell);
        sink_.end_seq();
        return;
      }
      case Value::Kind::Union: {
        sink_.begin_map();
        const gen::Case* c = nullptr;
        for (const auto& cc : f.variant.cases)
          if (cc.name == v.str) c = &cc;
        sink_.key(c ? c->name.c_str() : v.str.c_str());
        if (c && !v.items.empty()) value(*c->field, v.items[0], spell);
        sink_.end_map();
        return;
      }
      case Value::Kind::Struct: {
        sink_.begin_map();
        const size_t mark = tables_.size();
        ints_.emplace_back();
        if (!f.bits.empty()) bits(f, v);
        else if (f.type.st) fields(*f.type.st, v);
        ints_.pop_back();
        tables_.resize(mark);
        sink_.end_map();
        return;
      }
    }
  }

  // visit_fields of a bit word.
  void bits(const Field& f, const Value& x) {
    size_t k = 0;
    for (const auto& b : f.bits) {
      const Value& v = x.fields.at(k++).value;
      const bool is_int = b.pool.empty();
      if (b.default_text) {
        Value def;
        if (!b.pool.empty()) def = Value::string(*b.default_text);
        else if (b.is_bool) def = Value::boolean(*b.default_text == "true", 0);
        else def = Value::uint(std::stoull(*b.default_text, nullptr, 0), v.width);
        if (v == def) {
          if (is_int && !ints_.empty()) ints_.back().emplace_back(b.name.c_str(), static_cast<int64_t>(v.n));
          continue;
        }
      }
      sink_.key(b.name.c_str());
      value(f, v, kNoSpell);
      if (is_int && !ints_.empty()) ints_.back().emplace_back(b.name.c_str(), static_cast<int64_t>(v.n));
    }
  }

  // text::Out::named
  bool named(int64_t v, const Spell& spell) {
    if ((spell.flags & text::kBool) && (v == 0 || v == 1)) {
      sink_.boolean(v == 1);
      return true;
    }
    for (size_t i = 0; i < spell.enum_count; ++i)
      if (spell.enum_values[i].value == v) {
        sink_.string(spell.enum_values[i].name);
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
          sink_.string(k);
          return true;
        }
      }
    }
    if (spell.hash && v >= 0) {
      if (const std::string* n = text::known_name(spell.hash, static_cast<uint64_t>(v)); n && text::is_name_spelling(*n)) {
        sink_.string(*n);
        return true;
      }
      // The names the document's own strings prove, then the schema's names: list.
      if (doc_names_)
        if (const std::string* n = doc_names_->find(spell.hash, static_cast<uint64_t>(v)); n && text::is_name_spelling(*n)) {
          sink_.string(*n);
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

  Sink& sink_;
  const Schema::Plan& p_;
  const text::DocNames* doc_names_;
  std::vector<NameTable> tables_;
  std::vector<std::vector<std::pair<const char*, int64_t>>> ints_;
};

// text::EachString: every string of the model, in the order of its members
// (a union's case name is no string of the model).
void prove_strings(const Value& v, text::DocNames& names) {
  switch (v.kind) {
    case Value::Kind::String: names.prove(v.str); return;
    case Value::Kind::Struct:
      for (const Member& m : v.fields) prove_strings(m.value, names);
      return;
    case Value::Kind::Array:
    case Value::Kind::Union:
      for (const Value& e : v.items) prove_strings(e, names);
      return;
    default: return;
  }
}

template <class Sink>
std::string document(Sink& sink, const Schema::Plan& p, const Value& x, const Layout* layout) {
  // text::to_document: the hash names the document proves, then the schema's list.
  std::optional<text::DocNames> names;
  if (p.has_hash_names && !text::numbers_only()) {
    names.emplace(p.hash_names);
    prove_strings(x, *names);
    names->add_defaults();
  }
  DynOut<Sink> out(sink, p, names ? &*names : nullptr);
  sink.begin_map();
  sink.key("format");
  sink.string(p.s->format);
  out.fields(*p.root, x);
  if (layout && !layout->empty()) {
    sink.key("layout");
    sink.begin_map();
    if (!layout->at.empty()) {
      sink.key("at");
      sink.string(layout->at_text());
    }
    if (!layout->fill.empty()) {
      sink.key("fill");
      sink.string(layout->fill_text());
    }
    if (layout->end_align) {
      sink.key("end_align");
      sink.number(std::to_string(layout->end_align), false);
    }
    if (!layout->pools.empty()) {
      sink.key("pools");
      sink.begin_map();
      for (const auto& po : layout->pools) {
        sink.key(po.pool.c_str());
        const bool map = !po.unused.empty() || !po.tails.empty();
        if (map) {
          sink.begin_map();
          sink.key("order");
        }
        if (po.sorted) sink.string("sorted");
        else out.strings(po.order);
        if (!po.unused.empty()) {
          sink.key("unused");
          out.strings(po.unused);
        }
        if (!po.tails.empty()) {
          sink.key("tails");
          out.strings(po.tails);
        }
        if (map) sink.end_map();
      }
      sink.end_map();
    }
    sink.end_map();
  }
  sink.end_map();
  return sink.result();
}

}  // namespace

std::string Schema::to_text(const Value& v, TextKind kind, const Layout* layout) const {
  if (v.kind != Value::Kind::Struct) throw std::invalid_argument("to_text: the value is not a struct of the schema's root");
  if (kind == TextKind::Json) {
    text::JsonSink sink;
    return document(sink, *p_, v, layout);
  }
  if (kind == TextKind::Events) {  // the Python module's values (text.h)
    if (!text::event_sink()) throw std::logic_error("to_text: TextKind::Events without an event_sink()");
    text::EventSinkRef sink(*text::event_sink());
    return document(sink, *p_, v, layout);
  }
  text::YamlSink sink;
  return document(sink, *p_, v, layout);
}

}  // namespace binschema::dynamic
