// Checks of the text spellings a field can have (docs/schema-language.md,
// "References, enums and hash names"): enum:, format: bool, ref:/via:/key:
// and hash_of:. They change what the text shows, never the bytes, so they
// are checked apart from the layout (validate.cpp) once it is done.
#include <algorithm>
#include <cctype>
#include <iterator>
#include <functional>

#include "schema.h"

namespace binschema::gen {

namespace {

bool is_int_prim(const Field& f) {
  return f.type.kind == ValueType::Prim && f.bits.empty() && !prim_is_float(f.type.prim) &&
         f.type.prim != Prim::Bool8 && f.type.prim != Prim::Bool32;
}

// Every field, union case payloads included, with the struct it is in.
void each_field(Schema& s, const std::function<void(Struct&, Field&)>& fn) {
  for (auto& st : s.structs)
    for (auto& f : st->fields) {
      fn(*st, *f);
      for (auto& c : f->variant.cases)
        if (c.field) fn(*st, *c.field);
    }
}

// The element type of an array field named `array` somewhere in the schema
// (whichever struct holds it, a reference resolves to the innermost one at
// run time): its struct, or nullptr for a string[] array. Sets `found`.
const Struct* target_elem(Schema& s, const std::string& array, bool& found, bool& strings) {
  found = strings = false;
  const Struct* elem = nullptr;
  for (auto& st : s.structs)
    for (auto& f : st->fields)
      if (f->name == array && f->array.on && f->in_model()) {
        if (f->type.kind == ValueType::Struct) {
          found = true;
          elem = f->type.st;
        } else if (f->type.kind == ValueType::String || f->type.kind == ValueType::CString) {
          found = strings = true;
        }
      }
  return elem;
}

// `given`: the reference says how the elements are named (a ref: ARRAY, or
// a key:); a ref: ARRAY.LIST without key: names a list and takes the key
// the other references give.
void add_target(Schema& s, const std::string& array, const std::string& key, const std::vector<std::string>& also,
                bool given, const std::string& sub, const Loc& at) {
  auto spelt = [](const std::string& k, const std::vector<std::string>& a) {
    if (a.empty()) return "'" + k + "'";
    std::string t = "[" + k;
    for (const auto& x : a) t += ", " + x;
    return t + "]";
  };
  for (auto& st : s.structs)
    for (auto& f : st->fields) {
      if (f->name != array || !f->array.on || !f->in_model()) continue;
      auto it = std::find_if(st->name_targets.begin(), st->name_targets.end(),
                             [&](const Struct::NameTarget& t) { return t.array == array; });
      if (it == st->name_targets.end()) {
        st->name_targets.push_back({array, key, {}, also, given});
        it = st->name_targets.end() - 1;
      } else if (given && !it->key_given) {
        it->key = key;
        it->also = also;
        it->key_given = true;
      } else if (given && (it->key != key || it->also != also)) {
        throw SchemaError(at, "references into '" + array + "' use two keys (" + spelt(it->key, it->also) + " and " + spelt(key, also) +
                                  "): an array has one key");
      }
      if (!sub.empty() && std::find(it->subs.begin(), it->subs.end(), sub) == it->subs.end()) it->subs.push_back(sub);
    }
}

// What the text of a value of field f looks like, for the plain kinds of a
// bare union's cases: int, float, bool, string, list, map, or "" (none of
// them: a union, a pool block).
std::string shape(const Field& f) {
  if (!f.table.index_of.empty()) return "string";  // an index into a table: the model holds the string
  if (f.array.on) return "list";
  switch (f.type.kind) {
    case ValueType::Prim:
      if (!f.bits.empty()) return "map";
      if (prim_is_float(f.type.prim)) return "float";
      if (f.type.prim == Prim::Bool8 || f.type.prim == Prim::Bool32) return "bool";
      return f.spelled() ? "" : "int";  // names (enum:, ref:, hash_of:, format: bool) read as strings
    case ValueType::String:
    case ValueType::CString:
    case ValueType::Chars:
    case ValueType::Bytes: return "string";
    case ValueType::Struct: return "map";
    case ValueType::Union:
    case ValueType::PoolBlock:
    case ValueType::Dic: return "";
  }
  return "";
}

bool is_tag_spelling(const std::string& t) {
  size_t i = t.rfind("!!", 0) == 0 ? 2 : t.rfind("!", 0) == 0 ? 1 : std::string::npos;
  if (i == std::string::npos || i == t.size()) return false;
  for (; i < t.size(); ++i) {
    const char c = t[i];
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.')) return false;
  }
  return true;
}

// bare: true on a union, and each case's as: (docs/schema-language.md, "Bare unions").
void check_bare(Schema& s) {
  static const char* const kPlain[] = {"int", "float", "string", "bool", "null", "list", "map"};
  static const char* const kStd[] = {"!!int", "!!float", "!!str", "!!bool", "!!null", "!!seq", "!!map"};
  for (auto& st : s.structs)
    for (auto& fp : st->fields) {
      Field& f = *fp;
      if (f.type.kind != ValueType::Union) continue;
      for (Case& c : f.variant.cases) {
        if (!f.variant.bare) {
          if (!c.as.empty()) throw SchemaError(c.as_loc, "case '" + c.name + "': as: belongs to the cases of a union with bare: true");
          continue;
        }
        if (c.as.empty())
          throw SchemaError(c.loc, "case '" + c.name + "' of bare union '" + f.name + "' needs as: (int, float, string, bool, null, list, map, or a YAML tag such as \"!" + c.name + "\")");
        // A struct of one model field stands for that field.
        const Field* payload = c.field.get();
        if (payload->type.kind == ValueType::Struct && !payload->array.on && payload->type.st) {
          const Field* only = nullptr;
          int n = 0;
          for (const auto& g : payload->type.st->fields)
            if (g->in_model()) only = g.get(), ++n;
          if (n == 1 && c.as != "map") {
            c.unwrap = true;
            payload = only;
          }
        }
        const bool plain = std::find(std::begin(kPlain), std::end(kPlain), c.as) != std::end(kPlain);
        if (!plain) {
          if (!is_tag_spelling(c.as))
            throw SchemaError(c.as_loc, "case '" + c.name + "': as: '" + c.as + "' is no plain kind (int, float, string, bool, null, list, map) nor a YAML tag (!name or !!name: letters, digits, _ - .)");
          if (std::find(std::begin(kStd), std::end(kStd), c.as) != std::end(kStd))
            throw SchemaError(c.as_loc, "case '" + c.name + "': as: '" + c.as + "' is the standard tag of a plain kind: write the kind (" +
                                            kPlain[std::find(std::begin(kStd), std::end(kStd), c.as) - std::begin(kStd)] + ")");
        } else if (c.as != "null") {
          const std::string got = shape(*payload);
          if (got != c.as)
            throw SchemaError(c.as_loc, "case '" + c.name + "': as: " + c.as + ", but its value's kind is " +
                                            (got.empty() ? std::string("none of the plain ones") : got) +
                                            (got.empty() && payload->spelled() ? " (a name: give it a tag)" : ": give it a tag or the kind " + got));
        }
        for (const Case& o : f.variant.cases) {
          if (&o == &c) break;
          if (o.as == c.as)
            throw SchemaError(c.as_loc, "cases '" + o.name + "' and '" + c.name + "' of bare union '" + f.name + "' are both as: " + c.as +
                                            (plain ? " (a plain value picks one case)" : " (a tag names one case)"));
        }
      }
    }
}

bool is_string_kind(const Field& f) {
  return f.type.kind == ValueType::String || f.type.kind == ValueType::CString || f.type.kind == ValueType::Chars;
}

// The model fields of a struct, as its text shows them (by name).
std::vector<const Field*> model_fields(const Struct& st) {
  std::vector<const Field*> out;
  for (const auto& f : st.fields)
    if (f->in_model()) out.push_back(f.get());
  return out;
}

// map: and unwrap:, the shape of the text.
void check_text_shapes(Schema& s) {
  each_field(s, [&](Struct&, Field& f) {
    if (f.spell.map_key.empty()) return;
    const Loc& at = f.spell.map_loc;
    const std::string& key = f.spell.map_key;
    if (!f.array.on || !f.in_model())
      throw SchemaError(at, "map: '" + f.name + "' is no array of the model: map: shows an array of structs as a map");
    if (f.array.fixed_count)
      throw SchemaError(at, "map: '" + f.name + "' has a fixed count (T[N]): a map's entries are added and removed, so map: is for counted arrays");
    std::vector<const Struct*> elems;
    if (f.type.kind == ValueType::Struct) {
      elems.push_back(f.type.st);
    } else if (f.type.kind == ValueType::Union) {
      for (const auto& c : f.variant.cases) {
        if (!c.field || c.field->type.kind != ValueType::Struct || c.field->array.on)
          throw SchemaError(at, "map: '" + f.name + "': case '" + c.name + "' is no struct, so it has no key field (every case of a map's union is a struct with '" + key + "')");
        elems.push_back(c.field->type.st);
      }
    } else {
      throw SchemaError(at, "map: '" + f.name + "' is an array of " + (f.type.kind == ValueType::Prim ? std::string(prim_name(f.type.prim)) : std::string("strings or bytes")) +
                                ": only struct elements have a key field");
    }
    for (const Struct* elem : elems) {
      const Field* k = elem->field(key);
      if (!k) throw SchemaError(at, "map: " + elem->name + " has no field '" + key + "'");
      if (!k->in_model())
        throw SchemaError(at, "map: '" + key + "' of " + elem->name + " is not in the model (const, derived, a count or a tag): the text has no value to key by");
      if (k->array.on || !(is_int_prim(*k) || is_string_kind(*k)))
        throw SchemaError(at, "map: '" + key + "' of " + elem->name + " is no integer or string: a key is one integer (a number, or its enum, ref or hash name) or one string");
      if (k->cond) throw SchemaError(at, "map: '" + key + "' of " + elem->name + " has if:: a key is always there");
      if (!k->spell.ref_via.empty())
        throw SchemaError(at, "map: '" + key + "' of " + elem->name + " is a ref: with via:: its name depends on its sibling, so it cannot key a map");
      if (model_fields(*elem).size() < 2)
        throw SchemaError(at, "map: " + elem->name + " has no field besides '" + key + "' to show as the entry's value");
    }
  });
  for (auto& st : s.structs) {
    if (!st->unwrap) continue;
    if (st->name == s.root) throw SchemaError(st->unwrap_loc, "unwrap: " + st->name + " is the root: the document is a map of its fields");
    const std::vector<const Field*> shown = model_fields(*st);
    if (shown.size() != 1) {
      std::string names;
      for (const Field* f : shown) names += (names.empty() ? "" : ", ") + f->name;
      throw SchemaError(st->unwrap_loc, "unwrap: " + st->name + " shows " + std::to_string(shown.size()) + " fields" +
                                            (names.empty() ? std::string() : " (" + names + ")") + ": unwrap: needs exactly one");
    }
    if (shown[0]->cond)
      throw SchemaError(st->unwrap_loc, "unwrap: the one field of " + st->name + ", '" + shown[0]->name + "', has if:: an unwrapped struct's value is always there");
  }
}

}  // namespace

void check_names(Schema& s) {
  check_bare(s);
  if (!s.default_names.empty()) {
    bool hashed = false;
    each_field(s, [&](Struct&, Field& f) { hashed = hashed || !f.spell.hash_of.empty(); });
    if (!hashed) throw SchemaError(s.names_loc, "names: lists the names of hashes, but no field has hash_of:");
  }
  check_text_shapes(s);
  // An enum of enums: that no field names is a leftover or a misspelt enum: (a field's own enum is used by it).
  for (const Enum& e : s.enums) {
    bool used = false;
    each_field(s, [&](Struct&, Field& f) { used = used || f.spell.enum_name == e.name; });
    if (!used) throw SchemaError(e.loc, "enum '" + e.name + "' is not used by any field (name it with enum: " + e.name + ", or remove it)");
  }
  each_field(s, [&](Struct& st, Field& f) {
    if (!f.spelled()) {
      if (!f.spell.ref_via.empty() || !f.spell.ref_key.empty())
        throw SchemaError(f.loc, "via: and key: belong to a ref: field");
      return;
    }
    if (!is_int_prim(f))
      throw SchemaError(f.loc, "'" + f.name + "': enum:, format: bool, ref: and hash_of: are for integer fields (or arrays of them)");
    const int spellings = !f.spell.enum_name.empty() + f.spell.as_bool + !f.spell.ref.empty() + !f.spell.hash_of.empty();
    if (spellings > 1) throw SchemaError(f.loc, "'" + f.name + "': a field has one of enum:, format: bool, ref: and hash_of:");
    if (f.spell.as_bool && f.array.on) throw SchemaError(f.loc, "'" + f.name + "': format: bool is for a single integer");
    if (!f.spell.enum_name.empty() && !s.find_enum(f.spell.enum_name))
      throw SchemaError(f.loc, "'" + f.name + "': no enum '" + f.spell.enum_name + "' in enums:");
    if (!f.spell.hash_of.empty() && prim_size(f.type.prim) < 4)
      throw SchemaError(f.loc, "'" + f.name + "': a hash_of: field is 32 or 64 bits wide");
    if (f.spell.ref.empty()) {
      if (!f.spell.ref_via.empty() || !f.spell.ref_key.empty()) throw SchemaError(f.loc, "via: and key: belong to a ref: field");
      return;
    }
    const size_t dot = f.spell.ref.find('.');
    const std::string array = f.spell.ref.substr(0, dot);
    const std::string list = dot == std::string::npos ? "" : f.spell.ref.substr(dot + 1);
    const std::string key = f.spell.ref_key.empty() ? "name" : f.spell.ref_key;
    bool found = false, strings = false;
    const Struct* elem = target_elem(s, array, found, strings);
    if (!found) throw SchemaError(f.loc, "ref: '" + array + "' is no array of structs or strings in this schema");
    if (list.empty()) {
      if (!f.spell.ref_via.empty()) throw SchemaError(f.loc, "via: belongs to a ref: ARRAY.LIST (a list held by the element via: picks)");
      if (elem) {
        auto check_key = [&](const std::string& name) {
          const Field* k = elem->field(name);
          if (!k || !k->in_model() || (k->type.kind != ValueType::String && k->type.kind != ValueType::CString && k->type.kind != ValueType::Chars) || k->array.on)
            throw SchemaError(f.loc, "ref: '" + array + "': its elements (" + elem->name + ") have no string field '" + name + "' to be named by (key:)");
        };
        check_key(key);
        for (size_t i = 0; i < f.spell.ref_also.size(); ++i) {
          check_key(f.spell.ref_also[i]);
          if (f.spell.ref_also[i] == key || std::find(f.spell.ref_also.begin(), f.spell.ref_also.begin() + i, f.spell.ref_also[i]) != f.spell.ref_also.begin() + i)
            throw SchemaError(f.loc, "key: '" + f.spell.ref_also[i] + "' is named twice");
        }
      } else if (!f.spell.ref_also.empty()) {
        throw SchemaError(f.loc, "key: [...]: the elements of '" + array + "' are strings, named by themselves");
      }
    } else {
      if (!elem) throw SchemaError(f.loc, "ref: '" + f.spell.ref + "': the elements of '" + array + "' are strings, they hold no list");
      const Field* l = elem->field(list);
      if (!l || !l->array.on || !l->in_model() || l->type.kind != ValueType::String)
        throw SchemaError(f.loc, "ref: '" + f.spell.ref + "': " + elem->name + " has no string[] field '" + list + "'");
      if (f.spell.ref_via.empty()) throw SchemaError(f.loc, "ref: '" + f.spell.ref + "' needs via: (the sibling field with the index into " + array + ")");
      if (!f.spell.ref_also.empty())
        throw SchemaError(f.loc, "key: [...] belongs to the ref: '" + array + "' fields; '" + f.name + "' names one of the " + list + " of an element");
      const Field* via = nullptr;
      for (const auto& g : st.fields) {
        if (g.get() == &f) break;
        if (g->name == f.spell.ref_via) via = g.get();
        for (const auto& c : g->variant.cases)
          if (c.field.get() == &f) break;
      }
      if (!via || !is_int_prim(*via) || via->array.on || !via->in_model())
        throw SchemaError(f.loc, "via: '" + f.spell.ref_via + "' is no integer field before '" + f.name + "' in " + st.name);
    }
    const bool given = list.empty() || !f.spell.ref_key.empty();
    add_target(s, array, strings ? "" : key, f.spell.ref_also, given, list, f.loc);
  });
}

}  // namespace binschema::gen
