// Schema YAML -> validated Schema.
//
// Every key is checked against the keys its context allows, so a typo in a
// schema is an error with its file:line:col rather than a silently ignored
// line. Validation then resolves names, computes offsets and sizes, and
// completes each struct's write layout.
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <functional>
#include <set>

#include "schema.h"

namespace binschema::gen {

uint64_t prim_size(Prim p) {
  switch (p) {
    case Prim::U8: case Prim::S8: case Prim::Bool8: return 1;
    case Prim::U16: case Prim::S16: return 2;
    case Prim::U32: case Prim::S32: case Prim::F32: case Prim::Bool32: return 4;
    default: return 8;
  }
}

static const std::vector<std::pair<const char*, Prim>> kPrims = {
    {"u8", Prim::U8},   {"u16", Prim::U16}, {"u32", Prim::U32}, {"u64", Prim::U64},
    {"s8", Prim::S8},   {"s16", Prim::S16}, {"s32", Prim::S32}, {"s64", Prim::S64},
    {"f32", Prim::F32}, {"f64", Prim::F64}, {"bool8", Prim::Bool8}, {"bool32", Prim::Bool32}};

const char* prim_name(Prim p) {
  for (const auto& [n, q] : kPrims)
    if (q == p) return n;
  return "?";
}

const char* prim_cpp(Prim p) {
  switch (p) {
    case Prim::U8: return "uint8_t";
    case Prim::U16: return "uint16_t";
    case Prim::U32: return "uint32_t";
    case Prim::U64: return "uint64_t";
    case Prim::S8: return "int8_t";
    case Prim::S16: return "int16_t";
    case Prim::S32: return "int32_t";
    case Prim::S64: return "int64_t";
    case Prim::F32: return "float";
    case Prim::F64: return "double";
    case Prim::Bool8: case Prim::Bool32: return "bool";
  }
  return "?";
}

bool prim_is_float(Prim p) { return p == Prim::F32 || p == Prim::F64; }
bool prim_is_signed(Prim p) {
  return p == Prim::S8 || p == Prim::S16 || p == Prim::S32 || p == Prim::S64;
}

bool Field::in_model() const {
  if (is_const() || derive || !count_for.empty() || !tag_for.empty()) return false;
  if (type.kind == ValueType::PoolBlock || type.kind == ValueType::Dic) return false;
  if (type.kind == ValueType::Struct && type.st && !type.st->has_model && !array) return false;
  return true;
}

namespace {

class Parser {
 public:
  explicit Parser(std::string file) : file_(std::move(file)) {}

  std::unique_ptr<Schema> run() {
    YAML::Node root;
    try {
      root = YAML::LoadFile(file_);
    } catch (const YAML::ParserException& e) {
      throw SchemaError({file_, e.mark.line + 1, e.mark.column + 1}, e.msg);
    } catch (const YAML::BadFile&) {
      throw SchemaError({file_, 0, 0}, "cannot read the schema file");
    }
    auto s = std::make_unique<Schema>();
    s->file = file_;
    if (!root.IsMap()) fail(root, "a schema is a map (format:, root:, types:, ...)");
    keys(root, {"format", "title", "doc", "endian", "extensions", "magic", "magic_offset",
                "versions", "version_fields", "root", "pools", "types", "relocation_table", "hooks", "context"});
    s->format = req_str(root, "format");
    // It becomes the C++ namespace binschema::<format>.
    if (!is_identifier(s->format)) fail(root["format"], "format '" + s->format + "' is not a C++ identifier (letters, digits, _)");
    s->title = opt_str(root, "title", s->format);
    s->doc = opt_str(root, "doc", "");
    s->versions = opt_str(root, "versions", "");
    std::string endian = req_str(root, "endian");
    if (endian != "little" && endian != "big") fail(root["endian"], "endian is 'little' or 'big'");
    s->big_endian = endian == "big";
    if (root["extensions"])
      for (const auto& e : seq(root["extensions"])) s->extensions.push_back(scalar(e));
    if (root["magic"]) s->magic = unescape(scalar(root["magic"]));
    if (root["magic_offset"]) s->magic_offset = uint(root["magic_offset"]);
    if (root["version_fields"])
      for (const auto& e : seq(root["version_fields"])) s->version_fields.push_back(scalar(e));
    s->root = req_str(root, "root");
    root_loc_ = loc(root["root"]);
    if (root["context"]) {
      context_loc_ = loc(root["context"]);
      for (const auto& e : seq(root["context"])) s->context.push_back(scalar(e));
    }

    if (root["pools"]) {
      if (!root["pools"].IsMap()) fail(root["pools"], "pools: is a map of pool name to pool");
      // it->first / it->second are members of a proxy the iterator returns
      // by value: copy the nodes (YAML::Node is a handle) before using them.
      const YAML::Node pools = root["pools"];
      for (auto it = pools.begin(); it != pools.end(); ++it) {
        const YAML::Node key = it->first;
        const YAML::Node n = it->second;
        Pool p;
        p.name = scalar(key);
        p.loc = loc(key);
        keys(n, {"kind", "order", "align", "keep", "doc", "shared", "scope", "header", "block_align", "type", "base"});
        std::string kind = opt_str(n, "kind", "cstring");
        if (kind == "cstring") p.kind = Pool::Kind::CString;
        else if (kind == "pascal16") p.kind = Pool::Kind::Pascal16;
        else if (kind == "block") p.kind = Pool::Kind::Block;
        else fail(n["kind"], "pool kind is 'cstring', 'pascal16' or 'block'");
        p.block_type = opt_str(n, "type", "");
        p.base = opt_str(n, "base", "");
        if (p.kind == Pool::Kind::Block) {
          for (const char* k : {"order", "align", "keep", "header", "block_align", "base"})
            if (n[k]) fail(n[k], std::string(k) + ": is for string pools, not block pools");
        } else if (n["type"]) {
          fail(n["type"], "type: is for block pools (kind: block)");
        }
        std::string order = opt_str(n, "order", "first_use");
        if (order == "first_use") p.order = Pool::Order::FirstUse;
        else if (order == "sorted") p.order = Pool::Order::Sorted;
        else if (order == "reversed_bits") p.order = Pool::Order::ReversedBits;
        else fail(n["order"], "pool order is 'first_use', 'sorted' or 'reversed_bits'");
        if (n["header"]) {
          if (scalar(n["header"]) != "str") fail(n["header"], "the only pool header is 'str' (EventFlow's STR block)");
          p.header_str = true;
        }
        if (n["block_align"]) p.block_align = uint(n["block_align"]);
        p.align = n["align"] ? uint(n["align"]) : (p.kind == Pool::Kind::Pascal16 ? 2 : 1);
        if (n["keep"])
          for (const auto& k : seq(n["keep"])) p.keep.push_back(scalar(k));
        p.doc = opt_str(n, "doc", "");
        if (n["shared"]) p.shared = scalar(n["shared"]) != "false";
        p.scope = opt_str(n, "scope", "");
        // The reader of a scoped pool reads each string where its block
        // starts again; a shared pool would refer back to an earlier string.
        if (!p.scope.empty() && p.shared)
          fail(n["scope"], "a scoped pool needs shared: false (the reader cannot check a shared per-struct block)");
        if (p.kind == Pool::Kind::Block && p.shared && p.block_type.empty())
          fail(n, "a shared block pool needs type: (the struct whose equal blocks are stored once)");
        if (!p.base.empty() && !p.scope.empty()) fail(n["base"], "base: is for pools that are not scoped");
        s->pools.push_back(std::move(p));
        s->regions.push_back(s->pools.back().name);
      }
    }

    if (root["hooks"])
      for (const auto& h : seq(root["hooks"])) {
        keys(h, {"name", "on", "doc"});
        Schema::Hook hook{req_str(h, "name"), req_str(h, "on"), opt_str(h, "doc", ""), loc(h)};
        for (const auto& other : s->hooks)
          if (other.name == hook.name) fail(h, "hook '" + hook.name + "' is listed twice");
        s->hooks.push_back(hook);
      }
    if (root["relocation_table"]) {
      const YAML::Node r = root["relocation_table"];
      keys(r, {"kind", "data_end"});
      if (req_str(r, "kind") != "relt") fail(r["kind"], "the only relocation table kind is 'relt'");
      s->relocation_table = true;
      const std::string data_end = req_str(r, "data_end");  // before loc(): the key must exist
      s->relocation_data_end = parse_expr(data_end, loc(r["data_end"]));
      s->regions.push_back("relocation_table");
    }
    if (!root["types"] || !root["types"].IsMap()) fail(root, "types: (a map of struct name to struct) is required");
    const YAML::Node types = root["types"];
    for (auto it = types.begin(); it != types.end(); ++it) {
      const YAML::Node key = it->first;
      const YAML::Node body = it->second;
      auto st = std::make_unique<Struct>();
      st->name = scalar(key);
      st->loc = loc(key);
      // The generated code uses V and Self as template parameters; a struct
      // of that name would be shadowed (it did not compile).
      static const std::set<std::string> reserved = {"V", "Self", "R", "W", "WCtx", "DecodeError", "Bytes"};
      if (reserved.count(st->name)) fail(key, "'" + st->name + "' is reserved for the generated code: rename the struct");
      if (!is_identifier(st->name)) fail(key, "struct name '" + st->name + "' is not a C++ identifier");
      if (s->find(st->name)) fail(key, "struct '" + st->name + "' is defined twice");
      parse_struct(body, *st);
      s->structs.push_back(std::move(st));
    }
    Validator(*s, *this).run();
    if (root["version_fields"])
      for (const auto& e : seq(root["version_fields"])) check_version_field(*s, e);
    return s;
  }

  Loc loc(const YAML::Node& n) const {
    YAML::Mark m = n.Mark();
    return {file_, m.line + 1, m.column + 1};
  }
  [[noreturn]] void fail(const YAML::Node& n, const std::string& msg) const { throw SchemaError(loc(n), msg); }

 private:
  friend class Validator;

  void keys(const YAML::Node& n, std::initializer_list<const char*> allowed) const {
    if (!n.IsMap()) fail(n, "expected a map");
    for (auto it = n.begin(); it != n.end(); ++it) {
      const YAML::Node key = it->first;
      std::string k = key.Scalar();
      if (std::none_of(allowed.begin(), allowed.end(), [&](const char* a) { return k == a; })) {
        std::string list;
        for (const char* a : allowed) list += std::string(list.empty() ? "" : ", ") + a;
        fail(key, "unknown key '" + k + "' (allowed here: " + list + ")");
      }
    }
  }
  std::string scalar(const YAML::Node& n) const {
    if (!n.IsScalar()) fail(n, "expected a single value");
    return n.Scalar();
  }
  std::string req_str(const YAML::Node& n, const char* k) const {
    if (!n[k]) fail(n, std::string("missing key '") + k + "'");
    return scalar(n[k]);
  }
  std::string opt_str(const YAML::Node& n, const char* k, const std::string& def) const {
    return n[k] ? scalar(n[k]) : def;
  }
  std::vector<YAML::Node> seq(const YAML::Node& n) const {
    if (!n.IsSequence()) fail(n, "expected a list");
    return std::vector<YAML::Node>(n.begin(), n.end());
  }
  int64_t integer(const YAML::Node& n) const {
    std::string t = scalar(n);
    bool neg = !t.empty() && t[0] == '-';
    // stoull(.., 0) reads "010" as octal 8, which a reader of the schema
    // would take for ten: refuse the ambiguous form (0x.. stays hex).
    std::string digits = t.substr(neg ? 1 : 0);
    if (digits.size() > 1 && digits[0] == '0' && digits[1] != 'x' && digits[1] != 'X')
      fail(n, "'" + t + "' has a leading 0 (octal or decimal?): write it without the 0, or as 0x..");
    try {
      size_t used = 0;
      int64_t v = neg ? -static_cast<int64_t>(std::stoull(t.substr(1), &used, 0))
                      : static_cast<int64_t>(std::stoull(t, &used, 0));
      if (used + (neg ? 1 : 0) != t.size()) throw std::invalid_argument(t);
      return v;
    } catch (const std::exception&) {
      fail(n, "expected an integer, got '" + t + "'");
    }
  }
  uint64_t uint(const YAML::Node& n) const {
    int64_t v = integer(n);
    if (v < 0) fail(n, "expected a non-negative integer");
    return static_cast<uint64_t>(v);
  }
  // "\x00" and "\0" escapes in magic strings.
  static std::string unescape(const std::string& s) {
    std::string out;
    for (size_t i = 0; i < s.size(); ++i) {
      if (s[i] == '\\' && i + 1 < s.size() && s[i + 1] == '0') {
        out += '\0';
        ++i;
      } else if (s[i] == '\\' && i + 3 < s.size() && s[i + 1] == 'x') {
        out += static_cast<char>(std::stoi(s.substr(i + 2, 2), nullptr, 16));
        i += 3;
      } else {
        out += s[i];
      }
    }
    return out;
  }

  void parse_struct(const YAML::Node& n, Struct& st) {
    keys(n, {"doc", "size", "align", "fields", "layout"});
    st.doc = opt_str(n, "doc", "");
    if (n["size"]) {
      st.declared_size = uint(n["size"]);
      st.size_loc = loc(n["size"]);
    }
    if (n["align"]) st.align = uint(n["align"]);
    if (!n["fields"]) fail(n, "struct '" + st.name + "' has no fields:");
    for (const auto& f : seq(n["fields"])) {
      auto field = std::make_unique<Field>();
      parse_field(f, *field, true);
      if (st.field(field->name)) fail(f, "field '" + field->name + "' is defined twice");
      st.fields.push_back(std::move(field));
    }
    if (n["layout"])
      for (const auto& item : seq(n["layout"])) {
        LayoutItem li;
        std::string t = scalar(item);
        li.loc = loc(item);
        auto word = [&](const char* w) { return t.rfind(std::string(w) + " ", 0) == 0; };
        auto rest = [&]() { return t.substr(t.find(' ') + 1); };
        if (word("pool")) {
          li.kind = LayoutItem::Pool;
          li.name = rest();
        } else if (word("shallow")) {
          li.kind = LayoutItem::Shallow;
          li.name = rest();
        } else if (word("children")) {
          li.kind = LayoutItem::Children;
          li.name = rest();
        } else if (word("align") || word("zeros")) {
          li.kind = word("align") ? LayoutItem::Align : LayoutItem::Zeros;
          try {
            li.n = std::stoull(rest(), nullptr, 0);
          } catch (const std::exception&) {
            fail(item, "'" + t + "' needs a number");
          }
        } else if (t == "self") {
          li.kind = LayoutItem::Self;
        } else {
          li.name = t;
        }
        st.layout.push_back(li);
      }
  }

  void parse_type(const YAML::Node& n, const std::string& t, Field& f) {
    std::string base = t;
    size_t br = t.find('[');
    if (br != std::string::npos) {
      if (t.back() != ']') fail(n, "bad type '" + t + "'");
      base = t.substr(0, br);
      std::string inner = t.substr(br + 1, t.size() - br - 2);
      if (base == "char") {
        f.type.kind = ValueType::Chars;
        try {
          f.type.chars = std::stoull(inner, nullptr, 0);
        } catch (const std::exception&) {
          fail(n, "char[N] needs a size");
        }
        return;
      }
      f.array = true;
      if (!inner.empty()) {
        try {
          f.fixed_count = std::stoull(inner, nullptr, 0);
        } catch (const std::exception&) {
          fail(n, "bad array size in '" + t + "'");
        }
      }
    }
    if (base == "string") { f.type.kind = ValueType::String; return; }
    if (base == "cstring") { f.type.kind = ValueType::CString; return; }
    if (base == "pool") { f.type.kind = ValueType::PoolBlock; return; }
    if (base == "dic") { f.type.kind = ValueType::Dic; return; }
    if (base == "bytes") { f.type.kind = ValueType::Bytes; return; }
    if (base == "union") { f.type.kind = ValueType::Union; return; }
    for (const auto& [name, p] : kPrims)
      if (base == name) {
        f.type.kind = ValueType::Prim;
        f.type.prim = p;
        return;
      }
    f.type.kind = ValueType::Struct;
    f.type.struct_name = base;
  }

  void parse_field(const YAML::Node& n, Field& f, bool named) {
    keys(n, {"name", "type", "doc", "ptr", "base", "nullable", "align", "pool", "elem_ptr", "region",
             "sort", "count", "derive", "pointer", "const", "reserved", "valid", "default", "format",
             "cases", "tag", "pad_to", "value", "if", "bits", "size", "extent", "register_null",
             "points_to", "virtual", "keys", "inline", "true", "items", "tag_shift", "null_value"});
    f.loc = loc(n);
    if (named) {
      f.name = req_str(n, "name");
      if (!is_identifier(f.name)) fail(n["name"], "field name '" + f.name + "' is not a C++ identifier (letters, digits, _)");
    }
    f.doc = opt_str(n, "doc", "");
    parse_type(n["type"] ? n["type"] : n, req_str(n, "type"), f);
    if (n["ptr"]) f.ptr = ptr_width(n["ptr"]);
    if (n["elem_ptr"]) f.elem_ptr = ptr_width(n["elem_ptr"]);
    if (n["base"]) {
      std::string b = scalar(n["base"]);
      if (b == "file") f.base = Field::Base::File;
      else if (b == "struct") f.base = Field::Base::Struct;
      else fail(n["base"], "base is 'file' or 'struct'");
    }
    if (n["nullable"]) {
      std::string v = scalar(n["nullable"]);
      if (v == "false") f.null = Field::Null::Never;
      else if (v == "when_empty") f.null = Field::Null::WhenEmpty;
      else if (v == "true") f.null = Field::Null::Allowed;
      else fail(n["nullable"], "nullable is 'false', 'when_empty' (arrays) or 'true' (a single target)");
    }
    if (n["align"]) f.align = uint(n["align"]);
    f.pool = opt_str(n, "pool", "");
    f.region = opt_str(n, "region", "");
    f.sort = opt_str(n, "sort", "");
    if (n["count"]) {
      f.count = parse_expr(scalar(n["count"]), loc(n["count"]));
      if (f.count->kind == Expr::Int) {
        f.fixed_count = static_cast<uint64_t>(f.count->value);
        f.count.reset();
      }
    }
    if (n["derive"]) f.derive = parse_expr(scalar(n["derive"]), loc(n["derive"]));
    if (n["pointer"]) {
      // Anything but true/false used to mean false silently.
      std::string v = scalar(n["pointer"]);
      if (v != "true" && v != "false") fail(n["pointer"], "pointer is 'true' or 'false'");
      f.derive_pointer = v == "true";
    }
    if (n["const"]) {
      if (f.type.kind == ValueType::Chars) f.const_text = unescape(scalar(n["const"]));
      else f.const_int = integer(n["const"]);
      // The reader compares a char[N] up to its first NUL: text after a NUL
      // (or more than N bytes) never reads back. Trailing NULs are padding.
      if (f.const_text && f.const_text->find_first_not_of('\0', f.const_text->find('\0')) != std::string::npos)
        fail(n["const"], "a char[N] const cannot have text after a NUL (the reader stops at the first NUL)");
      if (f.const_text && f.const_text->size() > f.type.chars)
        fail(n["const"], "const '" + *f.const_text + "' is longer than char[" + std::to_string(f.type.chars) + "]");
    }
    if (n["reserved"]) {
      if (scalar(n["reserved"]) != "true") fail(n["reserved"], "reserved: true");
      if (f.type.kind == ValueType::Chars) f.const_text = "";
      else f.const_int = 0;
    }
    // A constant is one value: on an array the writer has no element to put it
    // in (the generated C++ did not compile).
    if (f.array && (n["const"] || n["reserved"]))
      fail(n["const"] ? n["const"] : n["reserved"], "const: and reserved: are for a single integer or char[N] field, not an array");
    if (n["valid"])
      for (const auto& v : seq(n["valid"])) f.valid.push_back(integer(v));
    if (n["default"]) {
      // The default is pasted into the C++ as it is written: only numbers,
      // true/false and char[N] text make sense there (a string default did not compile).
      if (f.array || (f.type.kind != ValueType::Prim && f.type.kind != ValueType::Chars))
        fail(n["default"], "default: is for primitive and char[N] fields");
      f.default_text = scalar(n["default"]);
      // An integer default is checked as any schema integer (it is pasted into the C++).
      if (f.type.kind == ValueType::Prim && !prim_is_float(f.type.prim) && f.type.prim != Prim::Bool8 &&
          f.type.prim != Prim::Bool32 && !f.array)
        (void)integer(n["default"]);
    }
    if (n["format"]) {
      if (scalar(n["format"]) != "hex") fail(n["format"], "format is 'hex'");
      f.hex = true;
    }
    f.tag = opt_str(n, "tag", "");
    if (n["if"]) f.cond = parse_expr(scalar(n["if"]), loc(n["if"]));
    if (n["size"]) {
      if (f.type.kind != ValueType::Bytes && f.type.kind != ValueType::PoolBlock)
        fail(n["size"], "size: belongs to bytes and pool fields");
      if (scalar(n["size"]) == "rest") f.size_rest = true;
      else f.size_expr = parse_expr(scalar(n["size"]), loc(n["size"]));
    }
    if (n["register_null"]) f.register_null = scalar(n["register_null"]) == "true";
    if (n["virtual"]) f.is_virtual = scalar(n["virtual"]) == "true";
    if (n["inline"]) {
      if (scalar(n["inline"]) != "pascal16") fail(n["inline"], "inline is 'pascal16' (a u16 length, the bytes, a NUL)");
      f.inline_pascal = true;
    }
    if (n["true"]) {
      if (f.type.kind != ValueType::Prim || (f.type.prim != Prim::Bool32 && f.type.prim != Prim::Bool8))
        fail(n["true"], "true: is the stored value of a bool8/bool32 that is true");
      f.true_value = uint(n["true"]);
    }
    if (n["items"]) f.items = uint(n["items"]);
    if (n["keys"]) {
      std::string k = scalar(n["keys"]);
      size_t dot = k.find('.');
      if (dot == std::string::npos) fail(n["keys"], "keys: is ARRAY.FIELD (the names of a dictionary)");
      f.keys_array = k.substr(0, dot);
      f.keys_field = k.substr(dot + 1);
    }
    if (n["points_to"]) {
      if (scalar(n["points_to"]) != "chars") fail(n["points_to"], "points_to is 'chars' (past a Pascal string's length)");
      f.points_to_chars = true;
    }
    if (n["extent"]) {
      if (scalar(n["extent"]) != "next") fail(n["extent"], "extent is 'next'");
      f.extent_next = true;
    }
    if (n["bits"]) {
      if (f.type.kind != ValueType::Prim || prim_is_float(f.type.prim) || f.array)
        fail(n["bits"], "bits: splits an unsigned integer field");
      unsigned total = 0;
      for (const auto& b : seq(n["bits"])) {
        keys(b, {"name", "bits", "type", "doc", "pool", "default"});
        Field::Bits bf;
        bf.name = req_str(b, "name");
        if (!is_identifier(bf.name)) fail(b["name"], "bit field name '" + bf.name + "' is not a C++ identifier");
        bf.doc = opt_str(b, "doc", "");
        bf.width = static_cast<unsigned>(uint(b["bits"] ? b["bits"] : b));
        bf.loc = loc(b);
        if (b["type"]) {
          std::string t = scalar(b["type"]);
          if (t == "bool") {
            if (bf.width != 1) fail(b["type"], "a bool bit field is 1 bit wide");
            bf.is_bool = true;
          } else if (t == "string") {
            if (!b["pool"]) fail(b, "a string bit field names its pool: pool: NAME (the bits hold its offset)");
          } else {
            fail(b["type"], "a bit field's type is bool or string (or left out for an integer)");
          }
        }
        bf.pool = opt_str(b, "pool", "");
        if (!bf.pool.empty() && (!b["type"] || scalar(b["type"]) != "string")) fail(b["pool"], "pool: belongs to a bit field of type string");
        if (b["default"]) {
          if (!bf.pool.empty()) fail(b["default"], "a string bit field has no default");
          bf.default_text = scalar(b["default"]);
          if (bf.is_bool ? (*bf.default_text != "true" && *bf.default_text != "false") : (integer(b["default"]), false))
            fail(b["default"], "a bool bit field's default is true or false");
        }
        if (bf.width == 0) fail(b, "a bit field is at least 1 bit wide");
        total += bf.width;
        f.bits.push_back(bf);
      }
      if (total != prim_size(f.type.prim) * 8)
        fail(n["bits"], "bit fields add up to " + std::to_string(total) + " bits, the field has " +
                            std::to_string(prim_size(f.type.prim) * 8));
    }
    if (n["pad_to"]) f.pad_to = uint(n["pad_to"]);
    if (n["tag_shift"]) {
      f.tag_shift = static_cast<unsigned>(uint(n["tag_shift"]));
      if (f.tag_shift == 0 || f.tag_shift >= 64) fail(n["tag_shift"], "tag_shift is the first bit of the tag in the pointer word (1-63)");
    }
    if (n["null_value"]) {
      if (!f.ptr || f.array || f.null != Field::Null::Allowed) fail(n["null_value"], "null_value: is the stored value of an absent target (a nullable: true pointer)");
      f.null_value = uint(n["null_value"]);
    }
    if (n["cases"]) {
      if (f.type.kind != ValueType::Union) fail(n["cases"], "cases: belongs to a field of type union");
      for (const auto& c : seq(n["cases"])) {
        Case cs;
        cs.loc = loc(c);
        if (!c["value"]) fail(c, "a case needs value: (the tag value)");
        cs.tag = integer(c["value"]);
        cs.name = req_str(c, "name");
        cs.doc = opt_str(c, "doc", "");
        cs.field = std::make_unique<Field>();
        parse_field(c, *cs.field, true);
        f.cases.push_back(std::move(cs));
      }
    }
    if (f.type.kind == ValueType::Union && (f.cases.empty() || (f.tag.empty() == !f.tag_shift)))
      fail(n, "a union needs cases: and either tag: (the field holding the tag) or tag_shift: (the tag is in its pointers)");
  }

  int ptr_width(const YAML::Node& n) const {
    std::string w = scalar(n);
    if (w == "u32") return 4;
    if (w == "u64") return 8;
    fail(n, "pointer width is u32 or u64");
  }

  static bool is_identifier(const std::string& t) {
    if (t.empty() || std::isdigit(static_cast<unsigned char>(t[0]))) return false;
    return std::all_of(t.begin(), t.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
  }

  // `info` prints x.a.b for a version field a.b: every step but the last is a
  // struct held in the model (not optional, not an array) and the last an
  // integer in the model. A wrong path gave C++ that did not compile.
  void check_version_field(const Schema& s, const YAML::Node& n) const {
    std::string path = scalar(n);
    const Struct* st = s.find(s.root);
    size_t from = 0;
    while (true) {
      size_t dot = path.find('.', from);
      std::string part = path.substr(from, dot == std::string::npos ? std::string::npos : dot - from);
      const Field* f = st->field(part);
      if (!f || !f->in_model() || f->array)
        fail(n, "version_fields: '" + path + "': '" + part + "' is no single model field of " + st->name);
      if (dot == std::string::npos) {
        if (f->type.kind != ValueType::Prim || !f->bits.empty())
          fail(n, "version_fields: '" + path + "' is not a number field");
        return;
      }
      if (f->type.kind != ValueType::Struct || f->null == Field::Null::Allowed)
        fail(n, "version_fields: '" + path + "': '" + part + "' is not a struct that is always present");
      st = f->type.st;
      from = dot + 1;
    }
  }

  std::string file_;
  Loc root_loc_, context_loc_;

  // ---------------------------------------------------------------------------
  class Validator {
   public:
    Validator(Schema& s, Parser& p) : s_(s), p_(p) {}

    void run() {
      if (!s_.find(s_.root)) throw SchemaError(p_.root_loc_, "root names no struct '" + s_.root + "'");
      const Struct* root = s_.find(s_.root);
      for (const auto& name : s_.context) {
        const Field* f = root->field(name);
        // The reader keeps the raw value; the writer the model's number.
        if (!f || f->array || f->cond || (!f->ptr && (f->type.kind != ValueType::Prim || !f->bits.empty() || prim_is_float(f->type.prim))))
          throw SchemaError(p_.context_loc_, "context: '" + name + "' is not an integer or pointer field of the root " + s_.root);
        // The reader knows it once it has read it: before anything nested.
        for (const auto& g : root->fields) {
          if (g.get() == f) break;
          if (!g->ptr && (g->type.kind == ValueType::Struct || g->type.kind == ValueType::Union))
            throw SchemaError(p_.context_loc_, "context: '" + name + "' must be declared before the root's inline field '" + g->name + "' (it is read first)");
        }
      }
      for (auto& p : s_.pools) {
        if (!p.block_type.empty()) {
          p.block_st = s_.find(p.block_type);
          if (!p.block_st) throw SchemaError(p.loc, "block pool '" + p.name + "': unknown type '" + p.block_type + "'");
        }
        if (!p.base.empty()) {
          const Field* f = root->field(p.base);
          if (!f || f->array || f->cond || f->ptr || f->type.kind != ValueType::Prim || prim_is_float(f->type.prim))
            throw SchemaError(p.loc, "pool '" + p.name + "': base: '" + p.base + "' is not an integer field of the root " + s_.root);
        }
      }
      for (auto& st : s_.structs) resolve(*st);
      // Model-ness depends on nested structs: iterate to a fixed point.
      for (bool changed = true; changed;) {
        changed = false;
        for (auto& st : s_.structs) {
          bool m = std::any_of(st->fields.begin(), st->fields.end(),
                               [](const auto& f) { return f->in_model(); });
          if (m != st->has_model) st->has_model = m, changed = true;
        }
      }
      for (auto& st : s_.structs) compute_size(*st);
      for (auto& st : s_.structs) complete_layout(*st);
      for (const auto& p : s_.pools) {
        if (p.scope.empty()) continue;
        const Struct* owner = s_.find(p.scope);
        if (!owner) throw SchemaError(p.loc, "pool '" + p.name + "': scope names no struct '" + p.scope + "'");
        // A scoped block pool is written by its struct's layout, once per instance.
        if (p.kind == Pool::Kind::Block &&
            std::none_of(owner->layout.begin(), owner->layout.end(), [&](const LayoutItem& li) { return li.kind == LayoutItem::Pool && li.name == p.name; }))
          throw SchemaError(p.loc, "scoped block pool '" + p.name + "' needs `pool " + p.name + "` in the layout of " + p.scope);
        // Each instance must be written and its blocks placed before the next
        // one starts: that holds for a single pointer target and for the
        // elements of an elem_ptr array, not for inline structs or plain arrays.
        if (p.kind == Pool::Kind::Block)
          for (const auto& st : s_.structs)
            for (const auto& f : st->fields) {
              auto bad = [&](const Field& g) {
                return g.type.kind == ValueType::Struct && g.type.st == owner && !((g.ptr && !g.array) || g.elem_ptr);
              };
              bool b = bad(*f);
              for (const auto& c : f->cases) b = b || bad(*c.field);
              if (b)
                throw SchemaError(f->loc, "'" + f->name + "' holds " + p.scope + " inline or in a plain array, but " + p.scope +
                                              " has block pool '" + p.name + "' of its own: point to it (ptr:, or elem_ptr: for arrays)");
            }
      }
      for (bool changed = true; changed;) {
        changed = false;
        for (auto& st : s_.structs) {
          bool c = !st->layout.empty();
          for (const auto& f : st->fields) c = c || field_has_children(*f);
          if (c != st->has_children) st->has_children = c, changed = true;
        }
      }
      for (auto& st : s_.structs) check_exprs(*st);
      if (s_.relocation_data_end) check_expr(*s_.find(s_.root), *s_.relocation_data_end);
      for (const auto& h : s_.hooks)
        if (!s_.find(h.on)) throw SchemaError(h.loc, "hook '" + h.name + "' is on no struct '" + h.on + "'");
      check_self_uses();
      for (auto& st : s_.structs)
        if (st->name == "format" || (st->name == s_.root && st->field("format")))
          throw SchemaError(st->loc, "'format' is reserved for the text form's format key");
    }

   private:
    bool field_has_children(const Field& f) const {
      if (f.ptr) return false;  // its target is placed by the owner's layout
      if (f.type.kind == ValueType::Struct && f.type.st) return f.type.st->has_children;
      if (f.type.kind == ValueType::Union)
        for (const auto& c : f.cases) {
          if ((c.field->ptr || c.field->elem_ptr) && c.field->inline_pascal) return true;
          if (c.field->ptr && c.field->type.kind == ValueType::Struct && c.field->pool.empty()) return true;
          if (c.field->type.kind == ValueType::Struct && c.field->type.st && c.field->type.st->has_children)
            return true;
        }
      return false;
    }

    void resolve_field(Struct& st, Field& f, bool in_case = false) {
      if (f.type.kind == ValueType::Struct) {
        f.type.st = s_.find(f.type.struct_name);
        if (!f.type.st) throw SchemaError(f.loc, "unknown type '" + f.type.struct_name + "'");
      }
      if (f.type.kind == ValueType::Dic) {
        if (!f.ptr || f.keys_array.empty() || f.pool.empty())
          throw SchemaError(f.loc, "a dic field needs ptr:, keys: ARRAY.FIELD and pool: (where its names go)");
        const Field* arr = st.field(f.keys_array);
        if (!arr || !arr->array || arr->type.kind != ValueType::Struct)
          throw SchemaError(f.loc, "keys: '" + f.keys_array + "' is not an array of structs in " + st.name);
        const Struct* et = s_.find(arr->type.struct_name);
        const Field* kf = et ? et->field(f.keys_field) : nullptr;
        if (!kf || (kf->type.kind != ValueType::String))
          throw SchemaError(f.loc, "keys: '" + f.keys_field + "' is not a string field of " + arr->type.struct_name);
        if (!s_.pool(f.pool)) throw SchemaError(f.loc, "unknown pool '" + f.pool + "'");
      } else if (!f.pool.empty() && f.type.kind == ValueType::PoolBlock) {
        if (!s_.pool(f.pool)) throw SchemaError(f.loc, "unknown pool '" + f.pool + "'");
      } else if (!f.pool.empty() && s_.pool(f.pool) && s_.pool(f.pool)->kind == Pool::Kind::Block) {
        const Pool* p = s_.pool(f.pool);
        if (f.type.kind != ValueType::Struct || f.array || !f.ptr)
          throw SchemaError(f.loc, "a block pool holds structs: the field is a pointer to one struct (ptr:, type: a struct)");
        if (p->block_st && p->block_st != f.type.st)
          throw SchemaError(f.loc, "block pool '" + f.pool + "' holds " + p->block_type + ", not " + f.type.struct_name);
        if (f.base == Field::Base::Struct) throw SchemaError(f.loc, "a pointer into a block pool is absolute (no base: struct)");
      } else if (!f.pool.empty()) {
        if (!s_.pool(f.pool)) throw SchemaError(f.loc, "unknown pool '" + f.pool + "'");
        if (f.type.kind != ValueType::String) throw SchemaError(f.loc, "pool: is for string fields");
        // An inline array of strings is a run of u32 offsets; a single string needs its width.
        if (!f.ptr && !(f.array && !f.elem_ptr)) throw SchemaError(f.loc, "a pooled string needs ptr: (the width of its offset)");
      }
      for (const auto& b : f.bits)
        if (!b.pool.empty() && (!s_.pool(b.pool) || s_.pool(b.pool)->kind == Pool::Kind::Block || !s_.pool(b.pool)->scope.empty()))
          throw SchemaError(b.loc, "'" + b.pool + "' is no string pool (that is not scoped)");
        else if (!b.pool.empty() && s_.pool(b.pool)->base.empty())
          // Bits hold an offset into the pool, not a file offset.
          throw SchemaError(b.loc, "a string bit field needs a pool with base: (its offsets are relative to the pool)");
      if (f.type.kind == ValueType::String && f.pool.empty() && !f.is_virtual && !(f.inline_pascal && (f.ptr || f.elem_ptr)))
        throw SchemaError(f.loc, "string fields need pool: (use cstring for a NUL-terminated string stored inline)");
      if ((f.type.kind == ValueType::Bytes || f.type.kind == ValueType::PoolBlock) && !f.size_expr && !f.size_rest)
        throw SchemaError(f.loc, "a bytes or pool field needs size: (an expression, or rest)");
      if (f.type.kind == ValueType::Bytes && (f.ptr || f.array)) throw SchemaError(f.loc, "bytes are stored inline");
      if (f.type.kind == ValueType::PoolBlock) {
        const Pool* p = s_.pool(f.pool);
        if (!p) throw SchemaError(f.loc, "a pool field names its pool: pool: NAME");
        if (p->kind == Pool::Kind::Block) throw SchemaError(f.loc, "a pool field holds a string pool; block pool '" + f.pool + "' is placed by `pool " + f.pool + "` in a layout");
        if (p->scope != st.name) throw SchemaError(f.loc, "pool '" + f.pool + "' is not scoped to " + st.name + " (scope: " + st.name + ")");
      }
      if (f.size_rest) st.needs_end = true;
      if (f.extent_next && (!f.ptr || f.array || f.type.kind != ValueType::Struct))
        throw SchemaError(f.loc, "extent: next belongs to a pointer to a struct");
      if (f.type.kind == ValueType::CString && (f.ptr || f.array))
        throw SchemaError(f.loc, "cstring is an inline string: no ptr:, no arrays of it");
      if (f.array && !f.fixed_count && !f.count)
        throw SchemaError(f.loc, "'" + f.name + "' is an array without count:");
      if (f.count && f.count->kind == Expr::Ident) {
        Field* c = nullptr;
        for (auto& g : st.fields)
          if (g->name == f.count->name) c = g.get();
        if (!c) throw SchemaError(f.count->loc, "count names no field '" + f.count->name + "' in " + st.name);
        if (c->type.kind != ValueType::Prim || prim_is_float(c->type.prim) || c->array)
          throw SchemaError(f.count->loc, "count field '" + c->name + "' is not an integer");
        if (in_case && !c->derive && !f.ptr)
          throw SchemaError(f.count->loc, "a union case's count must be a derived field (for instance derive: items(UNION))");
        if (!in_case && !f.ptr && field_index(st, c->name) > field_index(st, f.name))
          throw SchemaError(f.count->loc, "count field '" + c->name + "' of inline array '" + f.name + "' must be declared before it (it is read first)");
        if (!in_case && !c->derive && !c->is_const()) {
          // A second array counted by the same field must have the same length.
          if (!c->count_for.empty() && c->count_for != f.name) f.count_shared = c->count_for;
          else c->count_for = f.name;
        }
      }
      if (f.const_int && f.type.kind == ValueType::Prim && !prim_is_float(f.type.prim)) {
        // A constant the field cannot hold would be written truncated and then refused on read.
        const unsigned bits = static_cast<unsigned>(prim_size(f.type.prim) * 8);
        const int64_t v = *f.const_int;
        const bool fits = prim_is_signed(f.type.prim)
                              ? bits == 64 || (v >= -(int64_t(1) << (bits - 1)) && v < (int64_t(1) << (bits - 1)))
                              : v >= 0 && (bits == 64 || uint64_t(v) < (uint64_t(1) << bits));
        if (!fits) throw SchemaError(f.loc, "const: " + std::to_string(v) + " does not fit in " + prim_name(f.type.prim));
      }
      if (f.elem_ptr && !f.array) throw SchemaError(f.loc, "elem_ptr: is for arrays");
      if (f.type.kind == ValueType::String && f.elem_ptr && f.ptr)
        throw SchemaError(f.loc, "a pointer to an array of pointers to strings is not supported by schema v1");
      // The generator has no reader or writer for these (it crashed on them).
      if (f.ptr && !f.array && (f.type.kind == ValueType::Prim || f.type.kind == ValueType::Chars))
        throw SchemaError(f.loc, "ptr: to a single primitive or char[N] is not supported by schema v1 (point to a struct, or to an array)");
      if (f.elem_ptr && f.type.kind != ValueType::Struct && f.type.kind != ValueType::String)
        throw SchemaError(f.loc, "elem_ptr: is for arrays of structs or strings");
      // A pool's strings are placed at file offsets: the writer stores them
      // absolute while the reader would add the struct start.
      if (f.type.kind == ValueType::String && !f.pool.empty() && f.base == Field::Base::Struct &&
          s_.pool(f.pool)->scope.empty())
        throw SchemaError(f.loc, "base: struct on a pooled string needs a scoped pool (scope: " + st.name + ")");
      if (f.array && f.type.kind == ValueType::String && f.pool.empty() && !(f.elem_ptr && f.inline_pascal))
        throw SchemaError(f.loc, "arrays of strings need a pool, or elem_ptr: with inline: pascal16");
      if (!f.region.empty()) {
        if (s_.region_id(f.region) >= 0) throw SchemaError(f.loc, "region '" + f.region + "' defined twice");
        s_.regions.push_back(f.region);
      }
      if (!f.sort.empty()) {
        if (!f.array || f.type.kind != ValueType::Struct || !f.type.st->field(f.sort))
          throw SchemaError(f.loc, "sort: names a field of the array's element struct");
      }
      if (f.derive && f.is_const()) throw SchemaError(f.loc, "a field is either derive: or const:, not both");
      if (f.type.kind == ValueType::Union && f.tag_shift) {
        std::set<int64_t> seen;
        for (auto& c : f.cases) {
          if (!seen.insert(c.tag).second) throw SchemaError(c.loc, "case value repeated");
          resolve_field(st, *c.field, true);
          if (!c.field->ptr || c.field->type.kind != ValueType::Struct || c.field->array)
            throw SchemaError(c.loc, "with tag_shift:, every case is a pointer to a struct (ptr:)");
          if (c.field->ptr * 8 <= static_cast<int>(f.tag_shift) || c.tag < 0 ||
              (c.field->ptr < 8 && (uint64_t(c.tag) >> (c.field->ptr * 8 - f.tag_shift)) != 0))
            throw SchemaError(c.loc, "case value " + std::to_string(c.tag) + " does not fit above bit " + std::to_string(f.tag_shift) + " of the pointer");
        }
      } else if (f.type.kind == ValueType::Union) {
        Field* tag = nullptr;
        for (auto& g : st.fields)
          if (g->name == f.tag) tag = g.get();
        if (!tag) throw SchemaError(f.loc, "tag names no field '" + f.tag + "' in " + st.name);
        // A float tag has no switch in C++ (it did not compile).
        if (tag->type.kind != ValueType::Prim || prim_is_float(tag->type.prim) || tag->array)
          throw SchemaError(tag->loc, "a union tag is an integer field");
        // The reader picks the case from the tag, so the tag must be read first.
        if (field_index(st, tag->name) > field_index(st, f.name))
          throw SchemaError(f.loc, "tag field '" + f.tag + "' of union '" + f.name + "' must be declared before it");
        tag->tag_for = f.name;
        std::set<int64_t> seen;
        for (auto& c : f.cases) {
          if (!seen.insert(c.tag).second) throw SchemaError(c.loc, "case value repeated");
          if (c.field->array && !c.field->fixed_count && !c.field->count)
            throw SchemaError(c.loc, "an open array in a union case needs count: (a field of the struct)");
          resolve_field(st, *c.field, true);
          // The union writer stores a single pointer per case: a pointer to an
          // array had no writer (the generated C++ did not compile).
          if (c.field->ptr && c.field->array)
            throw SchemaError(c.loc, "a union case cannot point to an array (use elem_ptr: with inline: pascal16 for strings)");
          if (c.field->ptr && c.field->type.kind == ValueType::Struct && (c.field->null != Field::Null::Never || c.field->base != Field::Base::File))
            throw SchemaError(c.loc, "a union case that points to a struct is never null and absolute (no nullable:, no base: struct)");
        }
      }
    }

    static size_t field_index(const Struct& st, const std::string& name) {
      for (size_t i = 0; i < st.fields.size(); ++i)
        if (st.fields[i]->name == name) return i;
      return st.fields.size();
    }

    void resolve(Struct& st) {
      for (auto& f : st.fields) resolve_field(st, *f);
    }

    // Inline size and alignment of a field; false when variable.
    bool field_size(const Field& f, uint64_t& size, uint64_t& align) {
      if (f.is_virtual) {
        size = 0;
        align = 1;
        return true;
      }
      if (f.ptr) {
        size = align = static_cast<uint64_t>(f.ptr);
        return true;
      }
      uint64_t one = 0;
      switch (f.type.kind) {
        case ValueType::Prim: one = align = prim_size(f.type.prim); break;
        case ValueType::Chars: one = f.type.chars; align = 1; break;
        case ValueType::Struct:
          compute_size(const_cast<Struct&>(*f.type.st));
          align = f.type.st->align;
          if (!f.type.st->fixed_size) return false;
          one = f.type.st->size;
          break;
        case ValueType::Union: {
          align = 1;
          bool fixed = true;
          uint64_t common = UINT64_MAX;
          for (const auto& c : f.cases) {
            uint64_t cs = 0, ca = 1;
            c.field->fixed_size = field_size(*c.field, cs, ca);
            c.field->size = cs;
            if (!c.field->fixed_size) fixed = false;
            cs = (cs + f.pad_to - 1) / f.pad_to * f.pad_to;
            align = std::max(align, ca);
            if (common == UINT64_MAX) common = cs;
            else if (common != cs) fixed = false;
          }
          size = common;
          return fixed;
        }
        case ValueType::String:
        case ValueType::Bytes:
        case ValueType::CString:
        case ValueType::PoolBlock:
        case ValueType::Dic:
          return false;
      }
      if (f.array) {
        if (!f.fixed_count) return false;
        size = one * *f.fixed_count;
      } else {
        size = one;
      }
      return true;
    }

    void compute_size(Struct& st) {
      if (done_.count(&st)) return;
      if (busy_.count(&st)) throw SchemaError(st.loc, "struct '" + st.name + "' contains itself inline");
      busy_.insert(&st);
      uint64_t off = 0, align = st.align;
      bool fixed = true;
      for (auto& f : st.fields) {
        uint64_t sz = 0, al = 1;
        f->fixed_offset = fixed;
        f->offset = off;
        f->fixed_size = field_size(*f, sz, al);
        f->size = sz;
        align = std::max(align, al);
        if (f->fixed_size && !f->cond) {
          off += sz;
        } else if (fixed) {
          fixed = false;
          st.prefix = off;
        }
      }
      if (fixed) st.prefix = off;
      st.fixed_size = fixed;
      st.size = off;
      st.align = align;
      if (st.declared_size) {
        if (!fixed)
          throw SchemaError(st.size_loc, "size: " + hexs(*st.declared_size) + " declared but '" + st.name +
                                             "' has fields of variable size");
        if (off != *st.declared_size)
          throw SchemaError(st.size_loc, "size: " + hexs(*st.declared_size) + " declared but the fields of '" +
                                             st.name + "' add up to " + hexs(off));
      }
      busy_.erase(&st);
      done_.insert(&st);
    }

    void complete_layout(Struct& st) {
      std::vector<LayoutItem> items;
      std::set<std::string> placed, shallow, pre_children, inline_children;
      const bool layout_has_self = std::any_of(st.layout.begin(), st.layout.end(),
                                                [](const LayoutItem& li) { return li.kind == LayoutItem::Self; });
      for (const auto& li : st.layout) {
        if (li.kind == LayoutItem::Pool) {
          Pool* p = nullptr;
          for (auto& q : s_.pools)
            if (q.name == li.name) p = &q;
          if (!p) throw SchemaError(li.loc, "layout names no pool '" + li.name + "'");
          if (p->placed_in_layout) throw SchemaError(li.loc, "pool '" + li.name + "' placed twice");
          p->placed_in_layout = true;
        } else if (li.kind == LayoutItem::Align || li.kind == LayoutItem::Zeros) {
          // nothing to resolve
        } else if (li.kind == LayoutItem::Self) {
          if (st.has_self) throw SchemaError(li.loc, "self placed twice");
          st.has_self = true;
        } else if (li.kind == LayoutItem::Children && layout_has_self && !st.has_self) {
          // Before self: each element's targets go first, the elements later
          // (shallow, after self) get their pointers filled in.
          const Field* f = st.field(li.name);
          if (!f || !f->ptr || !f->array || f->type.kind != ValueType::Struct || !f->type.st->fixed_size)
            throw SchemaError(li.loc, "children before self is for an array of fixed-size structs");
          pre_children.insert(li.name);
        } else if (li.kind == LayoutItem::Children && st.field(li.name) && !st.field(li.name)->ptr &&
                   !st.field(li.name)->elem_ptr && st.field(li.name)->type.kind == ValueType::Struct) {
          // An inline struct (or array of them): what its elements point to goes here.
          const Field* f = st.field(li.name);
          if (f->array && !f->type.st->fixed_size)
            throw SchemaError(li.loc, "children of an inline array is for fixed-size elements");
          if (!inline_children.insert(li.name).second) throw SchemaError(li.loc, "'children " + li.name + "' placed twice");
        } else {
          const Field* f = st.field(li.name);
          if (!f || !(f->ptr || f->elem_ptr) || (!f->pool.empty() && !f->array && f->type.kind != ValueType::Dic))
            throw SchemaError(li.loc, "layout names no pointer field '" + li.name + "' of " + st.name);
          if (li.kind == LayoutItem::Shallow && pre_children.count(li.name)) {
            placed.insert(li.name);
            items.push_back(li);
            continue;
          }
          if (li.kind == LayoutItem::Children) {
            if (!shallow.count(li.name)) throw SchemaError(li.loc, "children " + li.name + " comes before shallow " + li.name);
            shallow.erase(li.name);
          } else if (!placed.insert(li.name).second) {
            throw SchemaError(li.loc, "'" + li.name + "' placed twice");
          }
          if (li.kind == LayoutItem::Shallow) {
            if (f->type.kind != ValueType::Struct || (f->array && !f->type.st->fixed_size && !f->elem_ptr) || !f->sort.empty())
              throw SchemaError(li.loc, "shallow placement is for a struct or an array of fixed-size structs");
            shallow.insert(li.name);
          }
        }
        items.push_back(li);
      }
      for (const auto& name : pre_children)
        if (!placed.count(name))
          throw SchemaError(st.loc, "children " + name + " comes before self, so 'shallow " + name + "' must follow self");
      // A shallow target whose children are never named gets them at the end.
      for (const auto& name : shallow) items.push_back({LayoutItem::Children, name, 0, st.loc});
      for (const auto& f : st.fields)
        if ((f->ptr || f->elem_ptr) && (f->pool.empty() || f->array || f->type.kind == ValueType::Dic) && !f->derive && !placed.count(f->name))
          items.push_back({LayoutItem::FieldTarget, f->name, 0, f->loc});
      st.layout = items;
    }

    // A struct whose layout has `self` places blocks before itself: it can only
    // be reached through a pointer to one struct or an array of pointers
    // (elem_ptr), where each element is placed on its own.
    void check_self_uses() {
      for (const auto& st : s_.structs) {
        if (!st->has_self) continue;
        if (st->name == s_.root) throw SchemaError(st->loc, "the root struct cannot use self in its layout");
        for (const auto& owner : s_.structs)
          for (const auto& f : owner->fields) {
            auto uses = [&](const Field& g) { return g.type.kind == ValueType::Struct && g.type.st == st.get(); };
            bool bad = uses(*f) && !(f->ptr && (!f->array || f->elem_ptr));
            for (const auto& c : f->cases) bad = bad || uses(*c.field);
            if (bad)
              throw SchemaError(f->loc, "'" + f->name + "' holds " + st->name +
                                            " inline or in a plain array, but its layout uses self: point to it (ptr:, or elem_ptr: for arrays)");
          }
      }
    }

    // A name in an expression: a field of the struct, FIELD.BIT (a bit field
    // of a bits: field), or a root field listed in context:.
    void check_ident(const Struct& st, const Expr& e) {
      size_t dot = e.name.find('.');
      if (dot != std::string::npos) {
        const Field* f = st.field(e.name.substr(0, dot));
        std::string sub = e.name.substr(dot + 1);
        if (!f || f->bits.empty() || !f->in_model())
          throw SchemaError(e.loc, "'" + e.name + "': '" + e.name.substr(0, dot) + "' is no bits: field of " + st.name);
        for (const auto& b : f->bits)
          if (b.name == sub) {
            if (!b.pool.empty()) throw SchemaError(e.loc, "'" + e.name + "' is a string, not a number");
            return;
          }
        throw SchemaError(e.loc, "'" + e.name + "': " + f->name + " has no bit field '" + sub + "'");
      }
      if (st.field(e.name)) return;
      if (std::find(s_.context.begin(), s_.context.end(), e.name) != s_.context.end()) return;
      throw SchemaError(e.loc, "'" + e.name + "' names no field of " + st.name + (s_.context.empty() ? "" : " nor of the context"));
    }

    void check_expr(const Struct& st, const Expr& e) {
      switch (e.kind) {
        case Expr::Int: return;
        case Expr::Ident: check_ident(st, e); return;
        case Expr::Call: {
          static const std::map<std::string, size_t> arity = {
              {"count", 1}, {"file_size", 0}, {"start", 1}, {"end", 1},   {"size", 1},  {"fnv1a32", 1},
              {"murmur3", 1}, {"until", 1},   {"items", 1}, {"sum", 2},   {"max", 2}};
          auto it = arity.find(e.name);
          if (it == arity.end()) throw SchemaError(e.loc, "unknown function '" + e.name + "'");
          if (e.args.size() != it->second) throw SchemaError(e.loc, e.name + "() takes " + std::to_string(it->second) + " argument(s)");
          if (e.name == "max") {
            // max(ARRAY, expr over its elements), or max(a, b).
            const Field* arr = e.args[0].kind == Expr::Ident ? st.field(e.args[0].name) : nullptr;
            if (arr && arr->array && arr->type.kind == ValueType::Struct) {
              check_expr(*arr->type.st, e.args[1]);
            } else {
              check_expr(st, e.args[0]);
              check_expr(st, e.args[1]);
            }
            return;
          }
          if ((e.name == "fnv1a32" || e.name == "murmur3") && e.args[0].kind == Expr::Call) {
            // A hash of part of a path: stem(F) or extension(F).
            const Expr& a = e.args[0];
            if ((a.name != "stem" && a.name != "extension") || a.args.size() != 1 || a.args[0].kind != Expr::Ident ||
                !st.field(a.args[0].name) || st.field(a.args[0].name)->type.kind != ValueType::String)
              throw SchemaError(e.loc, e.name + "() takes a string field, stem(FIELD) or extension(FIELD)");
            return;
          }
          if (e.name == "count" && e.args[0].kind == Expr::Ident && e.args[0].name.find('.') != std::string::npos) {
            // count(a.b): an array in the struct that single struct field a holds.
            const std::string& path = e.args[0].name;
            const Struct* cur = &st;
            size_t from = 0;
            while (true) {
              size_t dot = path.find('.', from);
              const Field* f = cur->field(path.substr(from, dot == std::string::npos ? std::string::npos : dot - from));
              if (dot == std::string::npos) {
                if (!f || !f->array) throw SchemaError(e.loc, "count(" + path + "): the last step is no array");
                return;
              }
              if (!f || f->array || f->type.kind != ValueType::Struct || f->null == Field::Null::Allowed || !f->in_model())
                throw SchemaError(e.loc, "count(" + path + "): each step but the last is a single struct field that is always present");
              cur = f->type.st;
              from = dot + 1;
            }
          }
          if (e.name == "start" || e.name == "end" || e.name == "size") {
            if (e.args[0].kind != Expr::Ident || (s_.region_id(e.args[0].name) < 0 && !(e.name == "start" && e.args[0].name == "self")))
              throw SchemaError(e.loc, e.name + "() takes a region or pool name");
            if (s_.pool(e.args[0].name) && s_.pool(e.args[0].name)->kind == Pool::Kind::Block)
              throw SchemaError(e.loc, e.name + "() takes a region or string pool; '" + e.args[0].name + "' is a block pool");
            return;
          }
          if (e.name == "until") {
            check_expr(st, e.args[0]);
            return;
          }
          if (e.name == "sum") {
            const Field* arr = e.args[0].kind == Expr::Ident ? st.field(e.args[0].name) : nullptr;
            if (!arr || !arr->array || arr->type.kind != ValueType::Struct)
              throw SchemaError(e.loc, "sum() takes an array of structs and an expression over its elements");
            check_expr(*s_.find(arr->type.struct_name), e.args[1]);
            return;
          }
          if (!e.args.empty()) {
            if (e.args[0].kind != Expr::Ident || !st.field(e.args[0].name))
              throw SchemaError(e.loc, e.name + "() takes a field of " + st.name);
          }
          return;
        }
        default:
          for (const auto& a : e.args) check_expr(st, a);
      }
    }

    // On the read side sum() and max() run over elements already read: an
    // inline array declared before the field that uses them.
    // Over an array's elements, sum() and max() see the model: no derived values.
    void check_elem_expr(const Struct& et, const Expr& e, const std::string& fn) {
      if (e.kind == Expr::Ident && e.name.find('.') == std::string::npos) {
        const Field* g = et.field(e.name);
        if (g && g->derive)
          throw SchemaError(e.loc, fn + "() cannot use '" + e.name + "': it is derived in " + et.name + " (not in the model)");
      }
      for (const auto& a : e.args) check_elem_expr(et, a, fn);
    }

    void check_read_expr(const Struct& st, const Expr& e, size_t user) {
      if (e.kind == Expr::Call && (e.name == "sum" || e.name == "max") && e.args[0].kind == Expr::Ident) {
        const Field* arr = st.field(e.args[0].name);
        if (arr && arr->array && (arr->ptr || field_index(st, arr->name) >= user))
          throw SchemaError(e.loc, e.name + "(" + arr->name + ", ...) is read before " + arr->name +
                                       " when reading: use an inline array declared earlier");
        if (arr && arr->array && arr->type.kind == ValueType::Struct) check_elem_expr(*arr->type.st, e.args[1], e.name);
      }
      for (const auto& a : e.args) check_read_expr(st, a, user);
    }

    void check_exprs(const Struct& st) {
      for (size_t i = 0; i < st.fields.size(); ++i) {
        const Field& f = *st.fields[i];
        if (f.derive) check_expr(st, *f.derive);
        if (f.count) check_expr(st, *f.count);
        if (f.cond) check_expr(st, *f.cond);
        if (f.size_expr) check_expr(st, *f.size_expr);
        // A pointer's count is read after all of the struct's inline fields.
        if (f.count) check_read_expr(st, *f.count, f.ptr ? st.fields.size() : i);
        if (f.cond) check_read_expr(st, *f.cond, i);
        if (f.size_expr) check_read_expr(st, *f.size_expr, i);
        if (f.derive) check_write_expr(st, *f.derive, i, "derive:");
        if (f.cond) check_write_expr(st, *f.cond, i, "if:");
      }
    }

    static bool is_late(const Expr& e) {
      if (e.kind == Expr::Call && (e.name == "start" || e.name == "end" || e.name == "size" || e.name == "file_size"))
        return true;
      return std::any_of(e.args.begin(), e.args.end(), [](const Expr& a) { return is_late(a); });
    }

    // What the writer can evaluate in a derive: or if: of field number `user`
    // (gen_cpp.cpp's write_expr). Each of these gave C++ that did not compile,
    // or a message about the wrong thing.
    void check_write_expr(const Struct& st, const Expr& e, size_t user, const char* key, bool in_sum = false) {
      if (e.kind == Expr::Ident) {
        const Field* g = st.field(e.name);
        if (!g && e.name.find('.') == std::string::npos) {
          const Field* r = s_.find(s_.root)->field(e.name);
          if (r && r->ptr)
            throw SchemaError(e.loc, std::string(key) + " cannot use '" + e.name + "': a pointer in context: is only known when reading (count:, size:)");
        }
        if (!g) return;
        if (g->ptr && !g->derive)
          throw SchemaError(e.loc, std::string(key) + " cannot use '" + e.name + "': it is a pointer (the model holds its target)");
        // The model holds the union's case, not its tag.
        if (!g->tag_for.empty())
          throw SchemaError(e.loc, std::string(key) + " cannot use '" + e.name + "': it is the tag of union '" + g->tag_for + "'");
        if (g->derive && is_late(*g->derive))
          throw SchemaError(e.loc, std::string(key) + " cannot use '" + e.name + "': it is late (known only once the file is laid out)");
        if (g->derive && in_sum)
          throw SchemaError(e.loc, "sum() cannot use '" + e.name + "': it is derived in " + st.name);
        if (g->derive && std::string(key) == "derive:" && field_index(st, g->name) >= user)
          throw SchemaError(e.loc, "derive: cannot use '" + e.name + "': a derive: can only use derived fields declared before it");
        return;
      }
      if (e.kind == Expr::Call) {
        if (e.name == "until")
          throw SchemaError(e.loc, std::string("until() is only known when reading (count:, size:); ") + key + " cannot use it");
        // An if: is evaluated when reading too, where no function but
        // file_size() and until() is known, and file_size() is late on write.
        if (std::string(key) == "if:")
          throw SchemaError(e.loc, "if: cannot use " + e.name + "(): an if: is evaluated both when reading and when writing");
        if (e.name == "sum" || (e.name == "max" && e.args[0].kind == Expr::Ident && st.field(e.args[0].name) &&
                                st.field(e.args[0].name)->array)) {
          check_write_expr(*st.field(e.args[0].name)->type.st, e.args[1], 0, key, true);
          return;
        }
        if (e.name == "max") {
          for (const auto& a : e.args) check_write_expr(st, a, user, key, in_sum);
          return;
        }
        return;  // the others take a field, region or pool name, not a value
      }
      for (const auto& a : e.args) check_write_expr(st, a, user, key, in_sum);
    }

    static std::string hexs(uint64_t v) {
      char b[24];
      std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
      return b;
    }

    Schema& s_;
    Parser& p_;
    std::set<const Struct*> done_, busy_;
  };
};

}  // namespace

std::unique_ptr<Schema> load_schema(const std::string& path) { return Parser(path).run(); }

}  // namespace binschema::gen
