// JSON Schema back end: a JSON Schema (2020-12) of a format's text form,
// the YAML or JSON document that `binschema decode` prints and `encode`
// reads (runtime/include/binschema/text.h). An editor that knows the schema
// completes keys and flags mistakes while the document is edited.
//
// What the text form is, and so what this describes:
// - a map with `format: <name>` first, then the root struct's model fields;
// - a struct is a map of its model fields (no constants, counts, tags or
//   derived values); an unknown key is an error (additionalProperties false);
// - a field with a default may be left out (and is, when equal to it);
// - integers are numbers, or "0x..." hex strings (how hex fields print in
//   JSON; the reader takes hex anywhere); floats are numbers, or ".nan",
//   ".inf", "-.inf" as strings in JSON;
// - bytes are hex strings, a bit-packed word is a map of its bit fields,
//   a union is a map with one key naming its case;
// - a nullable pointer to a struct is null when absent; a field under `if:`
//   may be left out (it is, while its condition is false);
// - an array with `map: KEY` is an object from each element's KEY to the
//   element's other fields (or the one other field's value), or the list it
//   is without map: (written when keys repeat); a struct with `unwrap: true`
//   is its one field's value.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <utility>

#include "generate.h"
#include "namer.h"

namespace binschema::gen {

namespace {

// A JSON value kept in insertion order, so that the output is deterministic
// and reads in schema order.
struct J {
  enum Kind { Object, Array, Scalar } kind = Scalar;
  std::vector<std::pair<std::string, J>> members;
  std::vector<J> items;
  std::string text;  // Scalar: already JSON

  // Declared here, defaulted after the class: clang with libstdc++ cannot
  // work out the implicit ones while J is incomplete (pair<string, J>).
  J();
  J(const J&);
  J(J&&) noexcept;
  J& operator=(const J&);
  J& operator=(J&&) noexcept;
  ~J();

  static J object() { J j; j.kind = Object; return j; }
  static J array() { J j; j.kind = Array; return j; }
  static J raw(std::string t) { J j; j.text = std::move(t); return j; }
  static J str(const std::string& s) { return raw(quote(s)); }
  static J num(int64_t v) { return raw(std::to_string(v)); }
  static J unum(uint64_t v) { return raw(std::to_string(v)); }
  static J boolean(bool b) { return raw(b ? "true" : "false"); }

  J& set(const std::string& k, J v) {
    for (auto& [name, value] : members)
      if (name == k) {
        value = std::move(v);
        return value;
      }
    members.emplace_back(k, std::move(v));
    return members.back().second;
  }
  J& push(J v) {
    items.push_back(std::move(v));
    return items.back();
  }

  static std::string quote(const std::string& s) { return json_string_literal(s); }

  void write(std::string& o, int depth) const {
    const std::string pad(static_cast<size_t>(depth + 1) * 2, ' ');
    const std::string end(static_cast<size_t>(depth) * 2, ' ');
    switch (kind) {
      case Scalar: o += text; return;
      case Object:
        if (members.empty()) {
          o += "{}";
          return;
        }
        o += "{";
        for (size_t i = 0; i < members.size(); ++i) {
          o += (i ? ",\n" : "\n") + pad + quote(members[i].first) + ": ";
          members[i].second.write(o, depth + 1);
        }
        o += "\n" + end + "}";
        return;
      case Array: {
        // A short list of scalars stays on one line.
        bool flat = true;
        size_t width = 0;
        for (const auto& i : items) {
          flat = flat && i.kind == Scalar;
          width += i.text.size() + 2;
        }
        if (flat && width < 80) {
          o += "[";
          for (size_t i = 0; i < items.size(); ++i) o += (i ? ", " : "") + items[i].text;
          o += "]";
          return;
        }
        o += "[";
        for (size_t i = 0; i < items.size(); ++i) {
          o += (i ? ",\n" : "\n") + pad;
          items[i].write(o, depth + 1);
        }
        o += "\n" + end + "]";
        return;
      }
    }
  }
};

J::J() = default;
J::J(const J&) = default;
J::J(J&&) noexcept = default;
J& J::operator=(const J&) = default;
J& J::operator=(J&&) noexcept = default;
J::~J() = default;

J ref(const std::string& def) {
  J j = J::object();
  j.set("$ref", J::str("#/$defs/" + def));
  return j;
}

// Case-insensitive hex digits below `limit` (1..16) as a regex class.
std::string hex_class(unsigned limit) {
  static const char* d = "0123456789abcdef";
  if (limit >= 16) return "[0-9a-fA-F]";
  if (limit == 1) return "0";
  std::string c = "[0-" + std::string(1, d[std::min(limit, 10u) - 1]);
  if (limit > 10) c += std::string("a-") + d[limit - 1] + "A-" + static_cast<char>(std::toupper(d[limit - 1]));
  return c + "]";
}

// An unsigned value of `width` bits written in hex: "0x" then leading zeros
// then at most the digits the width allows, the first of them limited.
std::string hex_pattern(unsigned width, bool is_signed) {
  const unsigned digits = (width + 3) / 4;
  const unsigned top = width % 4 ? 1u << (width % 4) : 16;
  std::string body;
  if (digits == 1) {
    body = hex_class(top);
  } else if (top == 16) {
    body = "[0-9a-fA-F]{1," + std::to_string(digits) + "}";
  } else {
    body = "([0-9a-fA-F]{1," + std::to_string(digits - 1) + "}|" + hex_class(top) + "[0-9a-fA-F]{" + std::to_string(digits - 1) + "})";
  }
  return std::string("^") + (is_signed ? "[-+]?" : "\\+?") + "0[xX]0*" + body + "$";
}

const char* hex_word(Prim p) {
  switch (p) {
    case Prim::U8: case Prim::S8: return "8";
    case Prim::U16: case Prim::S16: return "16";
    case Prim::U24: case Prim::S24: return "24";
    case Prim::U32: case Prim::S32: return "32";
    default: return "64";
  }
}

J int_range(bool is_signed, unsigned width) {
  J j = J::object();
  j.set("type", J::str("integer"));
  if (is_signed) {
    const int64_t lo = width == 64 ? INT64_MIN : -(int64_t(1) << (width - 1));
    j.set("minimum", J::num(lo));
    j.set("maximum", J::num(width == 64 ? INT64_MAX : (int64_t(1) << (width - 1)) - 1));
  } else {
    j.set("minimum", J::num(0));
    j.set("maximum", J::unum(width == 64 ? UINT64_MAX : (uint64_t(1) << width) - 1));
  }
  return j;
}

// An integer of `width` bits: a number, or a hex string (the reader takes
// both; hex fields print as hex, which JSON can only hold as a string).
J int_schema(bool is_signed, unsigned width, bool hex_first) {
  J hex = J::object();
  hex.set("type", J::str("string"));
  hex.set("pattern", J::str(hex_pattern(width, is_signed)));
  J any = J::array();
  if (hex_first) any.push(std::move(hex)), any.push(int_range(is_signed, width));
  else any.push(int_range(is_signed, width)), any.push(std::move(hex));
  J j = J::object();
  j.set("anyOf", std::move(any));
  return j;
}

std::string lower_hex(uint64_t v) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
  return b;
}

class JsonSchemaGen {
 public:
  explicit JsonSchemaGen(const Schema& s) : s_(s) {}

  std::string run() {
    J root = J::object();
    root.set("$schema", J::str("https://json-schema.org/draft/2020-12/schema"));
    root.set("$id", J::str("urn:binschema:" + s_.format));
    root.set("title", J::str(s_.title.empty() ? s_.format : s_.title));
    std::string about = "The text form (YAML or JSON) of a " + s_.format +
                        " file, as `binschema decode` prints it and `binschema encode` reads it. Generated by binschema-gen from " +
                        s_.file + ".";
    if (!s_.doc.empty()) about = trim(s_.doc) + "\n\n" + about;
    root.set("description", J::str(about));
    const Struct* rs = s_.find(s_.root);
    J body = struct_schema(*rs, true);
    for (auto& m : body.members) root.set(m.first, std::move(m.second));
    // $defs last: the document's own keys read first.
    // Every struct a model field reaches (its schema may reach more).
    std::map<std::string, J> done;
    for (bool more = true; more;) {
      more = false;
      for (const auto& st : s_.structs)
        if (used_.count(st->name) && !done.count(st->name)) {
          done.emplace(st->name, struct_schema(*st, false));
          more = true;
        }
    }
    J defs = J::object();
    for (const auto& st : s_.structs)
      if (done.count(st->name)) defs.set(st->name, std::move(done[st->name]));
    for (const auto& [name, def] : prims_) defs.set(name, def);
    if (!defs.members.empty()) root.set("$defs", std::move(defs));
    std::string out;
    root.write(out, 0);
    return out + "\n";
  }

 private:
  static std::string trim(std::string t) {
    while (!t.empty() && (t.back() == '\n' || t.back() == ' ')) t.pop_back();
    return t;
  }

  // The structs some model field refers to (found before $defs is written).
  void use(const Struct* st) {
    if (!st || used_.count(st->name)) return;
    used_.insert(st->name);
  }

  J prim_ref(Prim p) {
    const std::string name = prim_name(p);
    bool known = false;
    for (const auto& d : prims_) known = known || d.first == name;
    if (!known) {
      J def;
      switch (p) {
        case Prim::Bool8: case Prim::Bool32:
          def = J::object();
          def.set("type", J::str("boolean"));
          break;
        case Prim::F32: case Prim::F64: {
          def = J::object();
          J any = J::array();
          J n = J::object();
          n.set("type", J::str("number"));
          any.push(std::move(n));
          J special = J::object();
          special.set("enum", J::raw("[\".nan\", \".NaN\", \".NAN\", \"nan\", \"NaN\", \".inf\", \".Inf\", \".INF\", \"+.inf\", \"inf\", "
                                     "\"-.inf\", \"-.Inf\", \"-.INF\", \"-inf\"]"));
          special.set("description", J::str("Not-a-number and the infinities, as JSON writes them."));
          any.push(std::move(special));
          J payload = J::object();
          payload.set("type", J::str("string"));
          payload.set("pattern", J::str(p == Prim::F32 ? "^\\.nan:0x0*[0-9a-fA-F]{1,8}$" : "^\\.nan:0x0*[0-9a-fA-F]{1,16}$"));
          payload.set("description", J::str("A NaN other than the default quiet one: its bits in hex."));
          any.push(std::move(payload));
          def.set("anyOf", std::move(any));
          break;
        }
        default:
          def = int_schema(prim_is_signed(p), static_cast<unsigned>(prim_size(p) * 8), false);
      }
      def.set("description", J::str(std::string(prim_name(p)) + description_of_prim(p)));
      prims_.emplace_back(name, std::move(def));
    }
    return ref(name);
  }

  static std::string description_of_prim(Prim p) {
    switch (p) {
      case Prim::Bool8: return ": a boolean stored in one byte.";
      case Prim::Bool32: return ": a boolean stored in four bytes.";
      case Prim::F32: return ": a 32-bit float.";
      case Prim::F64: return ": a 64-bit float.";
      default:
        return std::string(prim_is_signed(p) ? ": a signed " : ": an unsigned ") + hex_word(p) +
               "-bit integer, as a number or a \"0x\" hex string.";
    }
  }

  // The schema of one integer field that lists its valid values.
  static J valid_schema(const Field& f) {
    J nums = J::array();
    std::string alts;
    for (int64_t v : f.role.valid) {
      nums.push(prim_is_signed(f.type.prim) ? J::num(v) : J::unum(static_cast<uint64_t>(v)));
      if (v >= 0) {
        std::string h = lower_hex(static_cast<uint64_t>(v)).substr(2), cls;
        for (char c : h) cls += c >= 'a' ? std::string("[") + c + static_cast<char>(std::toupper(c)) + "]" : std::string(1, c);
        alts += (alts.empty() ? "" : "|") + cls;
      }
    }
    J any = J::array();
    J n = J::object();
    n.set("enum", std::move(nums));
    J h = J::object();
    h.set("type", J::str("string"));
    h.set("pattern", J::str("^\\+?0[xX]0*(" + alts + ")$"));
    if (f.spell.hex) any.push(std::move(h)), any.push(std::move(n));
    else any.push(std::move(n)), any.push(std::move(h));
    J j = J::object();
    j.set("anyOf", std::move(any));
    return j;
  }

  // A default as the JSON text form prints it.
  static J default_value(const Field& f, const std::string& text) {
    if (f.type.kind == ValueType::Prim) {
      if (f.type.prim == Prim::Bool8 || f.type.prim == Prim::Bool32) return J::boolean(text == "true");
      if (prim_is_float(f.type.prim)) return J::raw(text);
      const bool neg = !text.empty() && text[0] == '-';
      if (f.spell.hex && !neg) return J::str(lower_hex(std::strtoull(text.c_str(), nullptr, 0)));
      return neg ? J::num(std::strtoll(text.c_str(), nullptr, 0)) : J::unum(std::strtoull(text.c_str(), nullptr, 0));
    }
    return J::str(text);
  }

  J bits_schema(const Field& f) {
    J j = J::object();
    j.set("type", J::str("object"));
    J props = J::object();
    J req = J::array();
    unsigned shift = 0;
    for (const auto& b : f.bits) {
      J p;
      std::string where = b.width > 1 ? "Bits " + std::to_string(shift) + "-" + std::to_string(shift + b.width - 1)
                                      : "Bit " + std::to_string(shift);
      if (!b.pool.empty()) {
        p = string_schema(0);
        where += ": the offset of this string in pool `" + b.pool + "`" + (b.scale > 1 ? ", in units of " + std::to_string(b.scale) + " bytes" : "");
      } else if (b.is_bool) {
        p = J::object();
        p.set("type", J::str("boolean"));
      } else {
        p = int_schema(false, b.width, false);
      }
      std::string d = b.doc.empty() ? where + "." : trim(b.doc) + (b.doc.rfind("Bit", 0) == 0 ? "" : " (" + where + ")");
      p.set("description", J::str(d));
      if (b.default_text) {
        if (b.is_bool) p.set("default", J::boolean(*b.default_text == "true"));
        else if (b.pool.empty()) p.set("default", J::unum(std::strtoull(b.default_text->c_str(), nullptr, 0)));
        else p.set("default", J::str(*b.default_text));
      } else {
        req.push(J::str(b.name));
      }
      props.set(b.name, std::move(p));
      shift += b.width;
    }
    j.set("properties", std::move(props));
    if (!req.items.empty()) j.set("required", std::move(req));
    j.set("additionalProperties", J::boolean(false));
    return j;
  }

  // bare: true: each case's value alone, or {"TAG": value} for a tagged
  // case (and for a plain one under its standard tag, "!!float": ".inf").
  J bare_union_schema(const Field& f) {
    static const std::pair<const char*, const char*> kStd[] = {{"int", "!!int"},   {"float", "!!float"}, {"string", "!!str"}, {"bool", "!!bool"},
                                                               {"null", "!!null"}, {"list", "!!seq"},    {"map", "!!map"}};
    J any = J::array();
    // The keys of the tagged forms: a map with one of them as its only key
    // is that tagged case (as the CLI reads it), not the plain map case.
    std::vector<std::string> tag_keys;
    for (const auto& c : f.variant.cases) {
      std::string k = c.as;
      for (const auto& [a, t] : kStd)
        if (c.as == a) k = t;
      tag_keys.push_back(k);
    }
    for (const auto& c : f.variant.cases) {
      const Field* payload = c.field.get();
      if (c.unwrap)
        for (const auto& g : payload->type.st->fields)
          if (g->in_model()) payload = g.get();
      // A union inside (BYML's arrays hold arrays): the struct by reference,
      // which describes itself as its field's value, so that a recursive
      // type is no endless schema.
      if (c.unwrap && payload->type.kind == ValueType::Union && payload->type.st == nullptr) payload = c.field.get();
      std::string d = trim(c.doc.empty() ? c.field->doc : c.doc);
      const std::string tag = f.variant.tag_shift ? lower_hex(static_cast<uint64_t>(c.tag)) : std::to_string(c.tag);
      d += (d.empty() ? "" : " ") + std::string("(Case `") + c.name + "`, tag " + tag + ", as " + c.as + ".)";
      std::string key;
      for (const auto& [k, t] : kStd)
        if (c.as == k) key = t;
      if (c.as == "null") {
        J n = J::object();
        n.set("type", J::str("null"));
        n.set("description", J::str(d));
        any.push(std::move(n));
      } else if (!key.empty()) {
        J v = field_schema(*payload);
        v.set("description", J::str(d));
        if (c.as == "map" && !tag_keys.empty()) {
          J tagged = J::array();
          for (const auto& k : tag_keys) {
            J one = J::object();
            J req = J::array();
            req.push(J::str(k));
            one.set("required", std::move(req));
            one.set("maxProperties", J::num(1));
            tagged.push(std::move(one));
          }
          J anyt = J::object();
          anyt.set("type", J::str("object"));
          anyt.set("anyOf", std::move(tagged));
          v.set("not", std::move(anyt));
        }
        any.push(std::move(v));
      }
      J alt = J::object();
      alt.set("type", J::str("object"));
      J props = J::object();
      J v = field_schema(*payload);
      v.set("description", J::str(d));
      props.set(key.empty() ? c.as : key, std::move(v));
      alt.set("properties", std::move(props));
      J req = J::array();
      req.push(J::str(key.empty() ? c.as : key));
      alt.set("required", std::move(req));
      alt.set("additionalProperties", J::boolean(false));
      any.push(std::move(alt));
    }
    J j = J::object();
    j.set("anyOf", std::move(any));
    return j;
  }

  J union_schema(const Field& f) {
    if (f.variant.bare) return bare_union_schema(f);
    J one = J::array();
    for (const auto& c : f.variant.cases) {
      J alt = J::object();
      alt.set("type", J::str("object"));
      J props = J::object();
      J payload = field_schema(*c.field);
      std::string d = c.doc.empty() ? c.field->doc : c.doc;
      const std::string tag = f.variant.tag_shift ? lower_hex(static_cast<uint64_t>(c.tag)) : std::to_string(c.tag);
      d = trim(d);
      if (!d.empty()) d += ' ';
      d += "(Case `";
      d += c.name;
      d += "`, tag ";
      d += tag;
      d += ".)";
      payload.set("description", J::str(d));
      props.set(c.name, std::move(payload));
      alt.set("properties", std::move(props));
      J req = J::array();
      req.push(J::str(c.name));
      alt.set("required", std::move(req));
      alt.set("additionalProperties", J::boolean(false));
      one.push(std::move(alt));
    }
    J j = J::object();
    j.set("type", J::str("object"));
    j.set("oneOf", std::move(one));
    return j;
  }

  // One element of an array field (or the value of a single one), by its type.
  J elem_schema(const Field& f) {
    switch (f.type.kind) {
      case ValueType::Prim: return scalar_schema(f);
      case ValueType::Struct:
        use(f.type.st);
        return ref(f.type.st->name);
      case ValueType::Chars:
      case ValueType::String:
      case ValueType::CString: return string_schema(0);
      case ValueType::Bytes:
      case ValueType::Union:
      case ValueType::PoolBlock:
      case ValueType::Dic: break;  // no arrays of these (the validator refuses them)
    }
    return J::object();
  }

  J scalar_schema(const Field& f) {
    if (!f.table.index_of.empty()) {  // an index into a table: the text holds the string
      J j = string_schema(0);
      j.set("description", J::str("A string of table " + f.table.index_of + " (the writer builds the table and stores the index)."));
      return j;
    }
    J base = !f.role.valid.empty() && !prim_is_float(f.type.prim) && f.type.prim != Prim::Bool8 && f.type.prim != Prim::Bool32
                 ? valid_schema(f)
                 : prim_ref(f.type.prim);
    if (!f.spelled()) return base;
    // A name (enum:, ref:, hash_of:) or true/false (format: bool) beside the number.
    J name = J::object();
    if (const Enum* e = s_.find_enum(f.spell.enum_name)) {
      J names = J::array();
      for (const auto& [v, n] : e->values) names.push(J::str(n));
      name.set("enum", std::move(names));
    } else if (f.spell.as_bool) {
      name.set("type", J::str("boolean"));
    } else {
      name.set("type", J::str("string"));
      name.set("pattern", J::str("^(?![-+]?[0-9])"));  // not starting like a number
    }
    J any = J::array();
    any.push(std::move(name));
    if (!f.spell.ref_also.empty()) {
      // key: [name, sub_name]: an element whose name others share is named by a map of all its keys.
      J props = J::object();
      J req = J::array();
      auto prop = [&](const std::string& k) {
        J t = J::object();
        t.set("type", J::str("string"));
        props.set(k, std::move(t));
        req.push(J::str(k));
      };
      prop(f.spell.ref_key);
      for (const auto& a : f.spell.ref_also) prop(a);
      J keys = J::object();
      keys.set("type", J::str("object"));
      keys.set("properties", std::move(props));
      keys.set("required", std::move(req));
      keys.set("additionalProperties", J::boolean(false));
      any.push(std::move(keys));
    }
    any.push(std::move(base));
    J j = J::object();
    j.set("anyOf", std::move(any));
    return j;
  }

  // A string: text, or {bytes: HEX} for one that is not UTF-8.
  J string_schema(uint64_t max_length) {
    if (!max_length) return named("string", [] {
      J any = J::array();
      J text = J::object();
      text.set("type", J::str("string"));
      any.push(std::move(text));
      any.push(ref("non_utf8"));
      J j = J::object();
      j.set("anyOf", std::move(any));
      j.set("description", J::str("A string: as text, or as {bytes: HEX} when it is not UTF-8."));
      return j;
    });
    J any = J::array();
    J text = J::object();
    text.set("type", J::str("string"));
    text.set("maxLength", J::unum(max_length));
    any.push(std::move(text));
    any.push(non_utf8());
    J j = J::object();
    j.set("anyOf", std::move(any));
    return j;
  }

  J non_utf8() {
    return named("non_utf8", [] {
      J hex = J::object();
      hex.set("type", J::str("string"));
      hex.set("pattern", J::str("^([0-9a-fA-F]{2})*$"));
      J props = J::object();
      props.set("bytes", std::move(hex));
      J j = J::object();
      j.set("type", J::str("object"));
      j.set("properties", std::move(props));
      j.set("required", J::raw("[\"bytes\"]"));
      j.set("additionalProperties", J::boolean(false));
      j.set("description", J::str("A string that is not UTF-8, as its bytes in hex."));
      return j;
    });
  }

  // A $ref to a shared definition, made on first use.
  template <class Make>
  J named(const std::string& name, Make make) {
    bool known = false;
    for (const auto& d : prims_) known = known || d.first == name;
    if (!known) {
      if (name == "string") non_utf8();
      // Listed before it is made: a definition that refers to itself (a
      // map entry of a recursive struct) ends in a $ref.
      prims_.emplace_back(name, J::object());
      J made = make();
      for (auto& d : prims_)
        if (d.first == name) d.second = std::move(made);
    }
    return ref(name);
  }

  // A model field's value, as a struct member or a union case's payload:
  // what Out::value prints for the field's C++ model type.
  J field_schema(const Field& f) {
    switch (f.kind) {
      case FieldKind::Scalar: return scalar_schema(f);
      case FieldKind::BitWord: return bits_schema(f);
      case FieldKind::Chars: return string_schema(f.type.chars);
      case FieldKind::CString:
      case FieldKind::PooledString:
      case FieldKind::OwnString: return string_schema(0);
      case FieldKind::Virtual:  // a name kept in a dictionary, or a number the model holds (SARC's alignment)
        return f.type.kind == ValueType::Prim ? scalar_schema(f) : string_schema(0);
      case FieldKind::Bytes:
      case FieldKind::Slice: {
        J j = J::object();
        j.set("type", J::str("string"));
        j.set("pattern", J::str("^([0-9a-fA-F]{2})*$"));
        return j;
      }
      case FieldKind::InlineStruct: return elem_schema(f);
      case FieldKind::Pointer:
      case FieldKind::BlockRef: {
        if (f.pointer.null != Field::Null::Allowed) return elem_schema(f);
        J any = J::array();
        any.push(elem_schema(f));
        J n = J::object();
        n.set("type", J::str("null"));
        any.push(std::move(n));
        J j = J::object();
        j.set("anyOf", std::move(any));
        return j;
      }
      case FieldKind::InlineArray:
      case FieldKind::StringOffsets:
      case FieldKind::ElemPointers:
      case FieldKind::OwnStrings:
      case FieldKind::ArrayPointer: {
        if (!f.spell.map_key.empty() && f.type.kind == ValueType::Struct) {
          J a = J::object();
          a.set("type", J::str("array"));
          a.set("items", elem_schema(f));
          return map_schema(entry_schema(*f.type.st, f.spell.map_key), std::move(a), f.spell.map_key);
        }
        J a = J::object();
        a.set("type", J::str("array"));
        a.set("items", elem_schema(f));
        if (f.array.fixed_count) {
          a.set("minItems", J::unum(*f.array.fixed_count));
          a.set("maxItems", J::unum(*f.array.fixed_count));
        }
        return a;
      }
      case FieldKind::Union:
        if (f.array.on) {  // union[]: a list of one-key maps
          J a = J::object();
          a.set("type", J::str("array"));
          a.set("items", union_schema(f));
          if (!f.spell.map_key.empty()) {
            // Each entry: a one-key map naming the case, around the case's other fields.
            J one = J::array();
            for (const auto& c : f.variant.cases) {
              J alt = J::object(), props = J::object(), req = J::array();
              alt.set("type", J::str("object"));
              props.set(c.name, entry_schema(*c.field->type.st, f.spell.map_key));
              alt.set("properties", std::move(props));
              req.push(J::str(c.name));
              alt.set("required", std::move(req));
              alt.set("additionalProperties", J::boolean(false));
              one.push(std::move(alt));
            }
            J entry = J::object();
            entry.set("type", J::str("object"));
            entry.set("oneOf", std::move(one));
            return map_schema(std::move(entry), std::move(a), f.spell.map_key);
          }
          return a;
        }
        return union_schema(f);
      case FieldKind::PoolBlock:
      case FieldKind::Dic: break;  // never in the model (in_model() is false)
    }
    return J::object();
  }

  // map: KEY: an object of entries (the keys are the elements' KEY text), or
  // the list it is without map: (when two keys are the same).
  static J map_schema(J entry, J list, const std::string& key) {
    J obj = J::object();
    obj.set("type", J::str("object"));
    obj.set("additionalProperties", std::move(entry));
    obj.set("description", J::str("By " + key + ": each element's " + key + " is its key, in the file's order."));
    J any = J::array();
    any.push(std::move(obj));
    list.set("description", J::str("The same as a list, as written when two elements have the same " + key + "."));
    any.push(std::move(list));
    J j = J::object();
    j.set("anyOf", std::move(any));
    return j;
  }

  // The value of one map entry: the element's model fields but the key; the
  // one other field's value when it is the only one and has no if:.
  J entry_schema(const Struct& st, const std::string& key) {
    std::vector<const Field*> others;
    for (const auto& f : st.fields)
      if (f->in_model() && f->name != key) others.push_back(f.get());
    if (others.size() == 1 && !others[0]->cond) {
      J p = field_schema(*others[0]);
      const std::string d = field_description(*others[0]);
      p.set("description", J::str(st.name + "." + others[0]->name + (d.empty() ? std::string() : ": " + d)));
      return p;
    }
    // By reference: the entry of a recursive struct (AAMP's lists) holds its own map.
    return named(st.name + "_entry", [&] { return fields_object(st, key); });
  }

  std::string field_description(const Field& f) {
    std::string d = trim(f.doc);
    auto add = [&](const std::string& t) { d += (d.empty() ? "" : " ") + t; };
    if (f.spell.hex) add("Shown in hex.");
    if (const Enum* e = s_.find_enum(f.spell.enum_name)) {
      std::string list;
      for (const auto& [v, n] : e->values) list += (list.empty() ? "" : ", ") + std::to_string(v) + " " + n;
      add("Shown by name (" + list + "); any other value as a number.");
    }
    if (f.spell.as_bool) add("Shown as false/true while 0/1; any other value as a number.");
    if (!f.spell.ref.empty())
      add("A reference into " + f.spell.ref + ": the element's " + (f.spell.ref_key.empty() ? std::string("name") : f.spell.ref_key) +
          " (or its index, shown when the key is missing, not unique or starts like a number)." +
          (f.spell.ref_also.empty() ? std::string()
                                    : " An element whose " + f.spell.ref_key + " others share is named by a map of " + f.spell.ref_key +
                                          [&] { std::string t; for (const auto& a : f.spell.ref_also) t += ", " + a; return t; }() + "."));
    if (!f.spell.hash_of.empty()) add("The " + f.spell.hash_of + " hash of a name: a name may be written instead (hashed on encode).");
    if (f.cond) add("Stored only when `" + expr_text(*f.cond) + "`; left out of the text while that is false.");
    if ((f.kind == FieldKind::Pointer || f.kind == FieldKind::BlockRef) && f.pointer.null == Field::Null::Allowed) add("null when absent.");
    if (f.role.default_text) add("Default " + *f.role.default_text + " (left out of the text when equal).");
    return d;
  }

  // The map of a struct's model fields (but `skip`, a map entry's key).
  J fields_object(const Struct& st, const std::string& skip) {
    J j = J::object();
    j.set("type", J::str("object"));
    if (!st.doc.empty()) j.set("description", J::str(trim(st.doc)));
    J props = J::object();
    J req = J::array();
    for (const auto& fp : st.fields) {
      const Field& f = *fp;
      if (!f.in_model() || f.name == skip) continue;
      add_property(f, props, req);
    }
    j.set("properties", std::move(props));
    if (!req.items.empty()) j.set("required", std::move(req));
    j.set("additionalProperties", J::boolean(false));
    return j;
  }

  void add_property(const Field& f, J& props, J& req) {
    J p = field_schema(f);
    std::string d = field_description(f);
    if (!d.empty()) p.set("description", J::str(d));
    const bool bits_default = !f.bits.empty() &&
        std::all_of(f.bits.begin(), f.bits.end(), [](const Field::Bits& b) { return b.default_text.has_value(); });
    if (f.role.default_text) p.set("default", default_value(f, *f.role.default_text));
    if (!f.role.default_text && !bits_default && !f.cond) req.push(J::str(f.name));
    props.set(f.name, std::move(p));
  }

  J struct_schema(const Struct& st, bool is_root) {
    if (!is_root && st.unwrap) {
      // unwrap: true: the value of its one model field.
      for (const auto& f : st.fields)
        if (f->in_model()) {
          J p = field_schema(*f);
          std::string d = trim(st.doc);
          d += (d.empty() ? "" : " ") + std::string("Shown as its field ") + f->name + (f->doc.empty() ? "." : ": " + trim(f->doc));
          p.set("description", J::str(d));
          return p;
        }
    }
    J j = J::object();
    j.set("type", J::str("object"));
    if (!is_root && !st.doc.empty()) j.set("description", J::str(trim(st.doc)));
    J props = J::object();
    J req = J::array();
    if (is_root) {
      J fmt = J::object();
      fmt.set("const", J::str(s_.format));
      fmt.set("description", J::str("The format of the document."));
      props.set("format", std::move(fmt));
      req.push(J::str("format"));
      // The layout the file's writer chose (binschema/layout.h; docs/schema-language.md §11).
      J lay = J::object(), lp = J::object(), at = J::object(), fill = J::object(), end = J::object();
      lay.set("type", J::str("object"));
      lay.set("description", J::str("Where the file's writer put what the model does not say (left out: a fresh layout)."));
      at.set("type", J::str("string"));
      at.set("pattern", J::str("^( *[0-9a-fA-F]+:[0-9a-fA-F]+)* *$"));
      fill.set("type", J::str("string"));
      fill.set("pattern", J::str("^( *[0-9a-fA-F]+:([0-9a-fA-F]{2})+)* *$"));
      end.set("type", J::str("integer"));
      end.set("minimum", J::num(2));
      end.set("maximum", J::num(0x10000));
      lp.set("at", std::move(at));
      lp.set("fill", std::move(fill));
      lp.set("end_align", std::move(end));
      // pools: name -> "sorted" | [strings] | {order: "sorted" | [strings], unused: [strings]}
      auto order = [&] {
        J any = J::array(), sorted = J::object(), list = J::object();
        sorted.set("const", J::str("sorted"));
        list.set("type", J::str("array"));
        list.set("items", string_schema(0));
        any.push(std::move(sorted));
        any.push(std::move(list));
        J j = J::object();
        j.set("anyOf", std::move(any));
        return j;
      };
      J pools = J::object(), each = J::array(), full = J::object(), fp = J::object(), unused = J::object();
      pools.set("type", J::str("object"));
      pools.set("description", J::str("String pools in another order than the writer's own: sorted by bytes, or the list of the pool's strings in the file's order; `unused`: strings the pool holds that nothing refers to."));
      unused.set("type", J::str("array"));
      unused.set("items", string_schema(0));
      fp.set("order", order());
      fp.set("unused", std::move(unused));
      full.set("type", J::str("object"));
      full.set("properties", std::move(fp));
      full.set("required", J::raw("[\"order\"]"));
      full.set("additionalProperties", J::boolean(false));
      each.push(order());
      each.push(std::move(full));
      J e = J::object();
      e.set("anyOf", std::move(each));
      pools.set("additionalProperties", std::move(e));
      lp.set("pools", std::move(pools));
      lay.set("properties", std::move(lp));
      lay.set("additionalProperties", J::boolean(false));
      props.set("layout", std::move(lay));
    }
    for (const auto& fp : st.fields)
      if (fp->in_model()) add_property(*fp, props, req);
    j.set("properties", std::move(props));
    if (!req.items.empty()) j.set("required", std::move(req));
    j.set("additionalProperties", J::boolean(false));
    return j;
  }

  const Schema& s_;
  std::set<std::string> used_;
  std::vector<std::pair<std::string, J>> prims_;
};

}  // namespace

std::string generate_jsonschema(const Schema& s) { return JsonSchemaGen(s).run(); }

}  // namespace binschema::gen
