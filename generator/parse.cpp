// Schema YAML -> validated Schema.
//
// Every key is checked against the keys its context allows, so a typo in a
// schema is an error with its file:line:col rather than a silently ignored
// line. Validation then resolves names, computes offsets and sizes, and
// completes each struct's write layout.
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <set>

#include "schema.h"

namespace binschema::gen {
namespace {
// A key the parser looks up in a map of the schema: `n["kind"_k]`. For a
// key that is missing, yaml-cpp's `n[key]` makes the invalid node's message
// by streaming the key into a std::stringstream (about 3,000 instructions),
// and the parser asks for many optional keys that are not there: that was
// 29 % of loading ASB's schema. A Key cannot be streamed, so yaml-cpp gives
// it no name (an invalid node is never read here: `if (n["k"_k])` first),
// and it compares with the map's keys without copying them.
struct Key {
  std::string_view name;
  bool operator==(const Key&) const = default;
};
constexpr Key operator""_k(const char* s, size_t n) { return Key{{s, n}}; }
}  // namespace
}  // namespace binschema::gen

template <>
struct YAML::convert<binschema::gen::Key> {
  // Only lookups use it (no encode: a const node is never grown).
  static bool decode(const Node& n, binschema::gen::Key& k) {
    if (!n.IsScalar()) return false;
    k.name = n.Scalar();  // the node's text, held by the document
    return true;
  }
};

namespace binschema::gen {

uint64_t prim_size(Prim p) {
  switch (p) {
    case Prim::U8: case Prim::S8: case Prim::Bool8: return 1;
    case Prim::U16: case Prim::S16: return 2;
    case Prim::U24: case Prim::S24: return 3;
    case Prim::U32: case Prim::S32: case Prim::F32: case Prim::Bool32: return 4;
    default: return 8;
  }
}

static const std::vector<std::pair<const char*, Prim>> kPrims = {
    {"u8", Prim::U8},   {"u16", Prim::U16}, {"u24", Prim::U24}, {"u32", Prim::U32}, {"u64", Prim::U64},
    {"s8", Prim::S8},   {"s16", Prim::S16}, {"s24", Prim::S24}, {"s32", Prim::S32}, {"s64", Prim::S64},
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
    case Prim::U24: case Prim::U32: return "uint32_t";
    case Prim::U64: return "uint64_t";
    case Prim::S8: return "int8_t";
    case Prim::S16: return "int16_t";
    case Prim::S24: case Prim::S32: return "int32_t";
    case Prim::S64: return "int64_t";
    case Prim::F32: return "float";
    case Prim::F64: return "double";
    case Prim::Bool8: case Prim::Bool32: return "bool";
  }
  return "?";
}

const char* prim_stored(Prim p) {
  if (p == Prim::U24) return "binschema::uint24";
  if (p == Prim::S24) return "binschema::int24";
  return prim_cpp(p);
}

bool prim_is_float(Prim p) { return p == Prim::F32 || p == Prim::F64; }
bool prim_is_signed(Prim p) {
  return p == Prim::S8 || p == Prim::S16 || p == Prim::S24 || p == Prim::S32 || p == Prim::S64;
}

bool Case::places_targets() const {
  switch (kind) {
    case CaseKind::OwnString:
    case CaseKind::OwnStrings:
    case CaseKind::StructPointer: return true;
    case CaseKind::Struct: return field->type.st->has_children;
    case CaseKind::Number:
    case CaseKind::Numbers:
    case CaseKind::PooledBlock:
    case CaseKind::PooledString: return false;
  }
  return false;
}

bool Field::in_model() const {
  if (is_const() || role.derive || !resolved.count_for.empty() || !resolved.tag_for.empty()) return false;
  if (!table.order.empty() || !table.offsets_of.empty()) return false;  // built by the writer from the index_of: fields
  if (type.kind == ValueType::PoolBlock || type.kind == ValueType::Dic) return false;
  if (type.kind == ValueType::Struct && type.st && !type.st->has_model && !array.on) return false;
  return true;
}

namespace {

class Parser {
 public:
  Parser(std::string file, bool with_example) : file_(std::move(file)), with_example_(with_example) {}

  std::unique_ptr<Schema> run(const std::string& text) {
    YAML::Node doc;
    try {
      doc = YAML::Load(text);
    } catch (const YAML::ParserException& e) {
      throw SchemaError({file_, e.mark.line + 1, e.mark.column + 1}, e.msg);
    }
    const YAML::Node& root = doc;  // read only (a non-const node[key] adds the key)
    auto s = std::make_unique<Schema>();
    s->file = file_;
    if (!root.IsMap()) fail(root, "a schema is a map (format:, root:, types:, ...)");
    keys(root, {"format", "title", "doc", "endian", "extensions", "magic", "magic_offset",
                "versions", "version_fields", "root", "pools", "types", "relocation_table", "hooks", "context", "enums", "sections",
                "names", "example"});
    s->format = req_str(root, "format");
    // It becomes the C++ namespace binschema::<format>.
    if (!is_identifier(s->format)) fail(root["format"_k], "format '" + s->format + "' is not a C++ identifier (letters, digits, _)");
    s->title = opt_str(root, "title", s->format);
    s->doc = opt_str(root, "doc", "");
    s->versions = opt_str(root, "versions", "");
    if (root["example"_k] && with_example_) {
      // Read now, relative to the schema file: the Markdown page shows it.
      s->example = scalar(root["example"_k]);
      const std::filesystem::path p = std::filesystem::path(file_).parent_path() / s->example;
      std::ifstream in(p, std::ios::binary);
      if (!in) fail(root["example"_k], "example: cannot read " + p.string() + " (a path relative to the schema file)");
      s->example_text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
      if (s->example_text.find("```") != std::string::npos) fail(root["example"_k], "example: the file holds ``` (it is shown in a Markdown code block)");
    }
    std::string endian = req_str(root, "endian");
    if (endian != "little" && endian != "big" && endian != "bom")
      fail(root["endian"_k], "endian is 'little', 'big' or 'bom' (chosen by a `bom: true` field of the root)");
    s->big_endian = endian == "big";
    s->endian_by_bom = endian == "bom";
    if (root["extensions"_k])
      for (const auto& e : seq(root["extensions"_k])) {
        // Compared without case, as the CLI does.
        std::string low = scalar(e);
        for (char& c : low) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        for (std::string other : s->extensions) {
          for (char& c : other) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
          if (other == low) fail(e, "extension '" + scalar(e) + "' is listed twice");
        }
        s->extensions.push_back(scalar(e));
      }
    if (root["magic"_k]) s->magic = unescape(scalar(root["magic"_k]));
    if (root["magic_offset"_k]) s->magic_offset = uint(root["magic_offset"_k]);
    if (root["version_fields"_k])
      for (const auto& e : seq(root["version_fields"_k])) {
        s->version_fields.push_back(scalar(e));
        s->version_field_locs.push_back(loc(e));
      }
    s->root = req_str(root, "root");
    root_loc_ = loc(root["root"_k]);
    if (root["context"_k]) {
      context_loc_ = loc(root["context"_k]);
      for (const auto& e : seq(root["context"_k])) s->context.push_back(scalar(e));
    }

    if (root["pools"_k]) {
      if (!root["pools"_k].IsMap()) fail(root["pools"_k], "pools: is a map of pool name to pool");
      // it->first / it->second are members of a proxy the iterator returns
      // by value: copy the nodes (YAML::Node is a handle) before using them.
      const YAML::Node pools = root["pools"_k];
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
        else if (kind == "data") p.kind = Pool::Kind::Data;
        else fail(n["kind"_k], "pool kind is 'cstring', 'pascal16', 'block' or 'data'");
        p.block_type = opt_str(n, "type", "");
        p.base = opt_str(n, "base", "");
        if (p.kind == Pool::Kind::Block) {
          for (const char* k : {"order", "align", "keep", "header", "block_align", "base"})
            if (n[Key{k}]) fail(n[Key{k}], std::string(k) + ": is for string pools, not block pools");
        } else if (n["type"_k]) {
          fail(n["type"_k], "type: is for block pools (kind: block)");
        }
        if (p.kind == Pool::Kind::Data) {
          for (const char* k : {"order", "keep", "header", "block_align", "shared", "scope"})
            if (n[Key{k}]) fail(n[Key{k}], std::string(k) + ": is for string pools, not data pools");
          if (!n["base"_k]) fail(n, "a data pool needs base: (the root field that holds where it starts; slices count from there)");
        }
        std::string order = opt_str(n, "order", "first_use");
        if (order == "first_use") p.order = Pool::Order::FirstUse;
        else if (order == "sorted") p.order = Pool::Order::Sorted;
        else if (order == "reversed_bits") p.order = Pool::Order::ReversedBits;
        else fail(n["order"_k], "pool order is 'first_use', 'sorted' or 'reversed_bits'");
        if (n["header"_k]) {
          if (scalar(n["header"_k]) != "str") fail(n["header"_k], "the only pool header is 'str' (EventFlow's STR block)");
          p.header_str = true;
        }
        if (n["block_align"_k]) p.block_align = uint(n["block_align"_k]);
        p.align = n["align"_k] ? uint(n["align"_k]) : (p.kind == Pool::Kind::Pascal16 ? 2 : 1);
        if (n["keep"_k])
          for (const auto& k : seq(n["keep"_k])) p.keep.push_back(scalar(k));
        p.doc = opt_str(n, "doc", "");
        if (n["shared"_k]) p.shared = scalar(n["shared"_k]) != "false";
        p.scope = opt_str(n, "scope", "");
        // The reader of a scoped pool reads each string where its block
        // starts again; a shared pool would refer back to an earlier string.
        if (!p.scope.empty() && p.shared)
          fail(n["scope"_k], "a scoped pool needs shared: false (the reader cannot check a shared per-struct block)");
        if (p.kind == Pool::Kind::Block && p.shared && p.block_type.empty())
          fail(n, "a shared block pool needs type: (the struct whose equal blocks are stored once)");
        if (!p.base.empty() && !p.scope.empty()) fail(n["base"_k], "base: is for pools that are not scoped");
        s->pools.push_back(std::move(p));
        s->regions.push_back(s->pools.back().name);
      }
    }

    if (root["sections"_k]) {
      if (!root["sections"_k].IsMap()) fail(root["sections"_k], "sections: is a map of section name to {doc: ...}");
      const YAML::Node secs = root["sections"_k];
      for (auto it = secs.begin(); it != secs.end(); ++it) {
        Section sec;
        sec.name = scalar(it->first);
        sec.loc = loc(it->first);
        if (!is_identifier(sec.name)) fail(it->first, "section name '" + sec.name + "' is not a C++ identifier");
        if (it->second.IsMap()) {
          keys(it->second, {"doc"});
          sec.doc = opt_str(it->second, "doc", "");
        } else if (!it->second.IsNull()) {
          fail(it->second, "a section is a map ({doc: ...}) or empty");
        }
        for (const auto& p : s->pools)
          if (p.name == sec.name) fail(it->first, "'" + sec.name + "' is a pool and a section");
        if (s->section(sec.name)) fail(it->first, "section '" + sec.name + "' is defined twice");
        s->sections.push_back(sec);
        s->regions.push_back(sec.name);
      }
    }
    if (root["names"_k]) read_names(root["names"_k], *s);
    if (root["hooks"_k])
      for (const auto& h : seq(root["hooks"_k])) {
        keys(h, {"name", "on", "doc"});
        Schema::Hook hook{req_str(h, "name"), req_str(h, "on"), opt_str(h, "doc", ""), loc(h)};
        for (const auto& other : s->hooks)
          if (other.name == hook.name) fail(h, "hook '" + hook.name + "' is listed twice");
        s->hooks.push_back(hook);
      }
    if (root["enums"_k]) {
      if (!root["enums"_k].IsMap()) fail(root["enums"_k], "enums: is a map of enum name to a map of value to name");
      const YAML::Node enums = root["enums"_k];
      for (auto it = enums.begin(); it != enums.end(); ++it) {
        const YAML::Node key = it->first;
        const YAML::Node body = it->second;
        Enum e = parse_enum(body, scalar(key));
        e.loc = loc(key);
        if (!is_identifier(e.name)) fail(key, "enum name '" + e.name + "' is not a C++ identifier");
        if (s->find_enum(e.name)) fail(key, "enum '" + e.name + "' is defined twice");
        s->enums.push_back(std::move(e));
      }
    }
    enums_ = &s->enums;
    if (root["relocation_table"_k]) {
      const YAML::Node r = root["relocation_table"_k];
      keys(r, {"kind", "data_end"});
      if (req_str(r, "kind") != "relt") fail(r["kind"_k], "the only relocation table kind is 'relt'");
      s->relocation_table = true;
      const std::string data_end = req_str(r, "data_end");  // before loc(): the key must exist
      s->relocation_data_end = parse_expr(data_end, loc(r["data_end"_k]));
      s->regions.push_back("relocation_table");
    }
    if (!root["types"_k] || !root["types"_k].IsMap()) fail(root, "types: (a map of struct name to struct) is required");
    const YAML::Node types = root["types"_k];
    for (auto it = types.begin(); it != types.end(); ++it) {
      const YAML::Node key = it->first;
      const YAML::Node body = it->second;
      auto st = std::make_unique<Struct>();
      st->name = scalar(key);
      st->loc = loc(key);
      // The generated code uses V and Self as template parameters; a struct
      // of that name would be shadowed (it did not compile).
      static const std::set<std::string> reserved = {"V", "Self", "R", "W", "WCtx", "DecodeError", "Bytes", "Case"};
      if (reserved.count(st->name)) fail(key, "'" + st->name + "' is reserved for the generated code: rename the struct");
      if (!is_identifier(st->name)) fail(key, "struct name '" + st->name + "' is not a C++ identifier");
      if (s->find(st->name)) fail(key, "struct '" + st->name + "' is defined twice");
      parse_struct(body, *st);
      s->structs.push_back(std::move(st));
    }
    validate(*s, root_loc_, context_loc_);
    return s;
  }

  Loc loc(const YAML::Node& n) const {
    YAML::Mark m = n.Mark();
    return {file_, m.line + 1, m.column + 1};
  }
  [[noreturn]] void fail(const YAML::Node& n, const std::string& msg) const { throw SchemaError(loc(n), msg); }

 private:

  // A map of value to name (both unique; names are spellings, not numbers).
  Enum parse_enum(const YAML::Node& n, const std::string& name) const {
    if (!n.IsMap() || n.size() == 0) fail(n, "an enum is a map of value to name: {0: off, 1: on}");
    Enum e;
    e.name = name;
    for (auto it = n.begin(); it != n.end(); ++it) {
      const int64_t v = integer(it->first);
      const std::string nm = scalar(it->second);
      if (!is_identifier(nm)) fail(it->second, "enum value name '" + nm + "' is not an identifier (letters, digits, _; not starting with a digit)");
      if (nm == "true" || nm == "false" || nm == "null") fail(it->second, "enum value name '" + nm + "' would read as a YAML " + (nm == "null" ? "null" : "boolean"));
      for (const auto& [ov, on] : e.values) {
        if (ov == v) fail(it->first, "enum value " + std::to_string(v) + " has two names ('" + on + "' and '" + nm + "')");
        if (on == nm) fail(it->second, "enum name '" + nm + "' is given to two values");
      }
      e.values.emplace_back(v, nm);
    }
    return e;
  }

  bool in_case_ = false;  // parse_field is reading a union's case (as: is allowed)

  // names: FILE, relative to the schema's folder: one name a line; blank
  // lines and lines starting with '#' are skipped, spaces at the ends cut.
  void read_names(const YAML::Node& n, Schema& s) const {
    s.names_file = scalar(n);
    s.names_loc = loc(n);
    const std::filesystem::path path = std::filesystem::path(file_).parent_path() / s.names_file;
    std::ifstream in(path);
    if (!in.is_open()) fail(n, "names: cannot read '" + path.string() + "' (a file of names beside the schema, one a line)");
    std::string line;
    while (std::getline(in, line)) {
      const size_t b = line.find_first_not_of(" \t\r");
      if (b == std::string::npos || line[b] == '#') continue;
      line = line.substr(b, line.find_last_not_of(" \t\r") - b + 1);
      for (const unsigned char c : line)
        if (c < 0x20 || c == 0x7f) fail(n, "names: '" + s.names_file + "' holds a control character in '" + line + "'");
      s.default_names.push_back(line);
    }
    if (s.default_names.empty()) fail(n, "names: '" + s.names_file + "' lists no name");
  }

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
    if (!n[Key{k}]) fail(n, std::string("missing key '") + k + "'");
    return scalar(n[Key{k}]);
  }
  std::string opt_str(const YAML::Node& n, const char* k, const std::string& def) const {
    return n[Key{k}] ? scalar(n[Key{k}]) : def;
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
    keys(n, {"doc", "size", "align", "fields", "layout", "unwrap"});
    struct_name_ = st.name;
    st.doc = opt_str(n, "doc", "");
    if (n["unwrap"_k]) {
      const std::string v = scalar(n["unwrap"_k]);
      if (v != "true" && v != "false") fail(n["unwrap"_k], "unwrap is 'true' or 'false'");
      st.unwrap = v == "true";
      st.unwrap_loc = loc(n["unwrap"_k]);
    }
    if (n["size"_k]) {
      st.declared_size = uint(n["size"_k]);
      st.size_loc = loc(n["size"_k]);
    }
    if (n["align"_k]) st.align = uint(n["align"_k]);
    if (!n["fields"_k]) fail(n, "struct '" + st.name + "' has no fields:");
    for (const auto& f : seq(n["fields"_k])) {
      auto field = std::make_unique<Field>();
      parse_field(f, *field, true);
      if (st.field(field->name)) fail(f, "field '" + field->name + "' is defined twice");
      st.fields.push_back(std::move(field));
    }
    if (n["layout"_k])
      for (const auto& item : seq(n["layout"_k])) {
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
          // As in integer(): "010" would be octal 8; a number is read whole.
          const std::string num = rest();
          if (num.size() > 1 && num[0] == '0' && num[1] != 'x' && num[1] != 'X')
            fail(item, "'" + num + "' has a leading 0 (octal or decimal?): write it without the 0, or as 0x..");
          try {
            size_t used = 0;
            li.n = std::stoull(num, &used, 0);
            if (used != num.size()) throw std::invalid_argument(num);
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
      f.array.on = true;
      if (!inner.empty()) {
        try {
          f.array.fixed_count = std::stoull(inner, nullptr, 0);
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
             "points_to", "virtual", "keys", "inline", "true", "items", "tag_shift", "null_value",
             "enum", "ref", "via", "key", "hash_of", "bom", "pad", "also", "zero_when_empty", "scale", "section", "share", "map",
             "index_of", "table", "offsets_of", "bare", "as"});
    f.loc = loc(n);
    if (n["as"_k] && !in_case_) fail(n["as"_k], "as: belongs to a case of a union with bare: true (how its value is spelt)");
    if (named) {
      f.name = req_str(n, "name");
      if (!is_identifier(f.name)) fail(n["name"_k], "field name '" + f.name + "' is not a C++ identifier (letters, digits, _)");
    }
    f.doc = opt_str(n, "doc", "");
    parse_type(n["type"_k] ? n["type"_k] : n, req_str(n, "type"), f);
    if (n["ptr"_k]) f.pointer.width = ptr_width(n["ptr"_k]);
    if (n["elem_ptr"_k]) f.pointer.elem_width = ptr_width(n["elem_ptr"_k]);
    if (n["base"_k]) {
      std::string b = scalar(n["base"_k]);
      if (b == "file") f.pointer.base = Field::Base::File;
      else if (b == "struct") f.pointer.base = Field::Base::Struct;
      else fail(n["base"_k], "base is 'file' or 'struct'");
    }
    if (n["nullable"_k]) {
      std::string v = scalar(n["nullable"_k]);
      if (v == "false") f.pointer.null = Field::Null::Never;
      else if (v == "when_empty") f.pointer.null = Field::Null::WhenEmpty;
      else if (v == "true") f.pointer.null = Field::Null::Allowed;
      else fail(n["nullable"_k], "nullable is 'false', 'when_empty' (arrays) or 'true' (a single target)");
    }
    if (n["align"_k]) {
      // A number, or (on a data slice) the field that holds each one's alignment.
      const std::string a = scalar(n["align"_k]);
      if (!a.empty() && !std::isdigit(static_cast<unsigned char>(a[0]))) f.pointer.align_field = a;
      else f.pointer.align = uint(n["align"_k]);
    }
    f.pool = opt_str(n, "pool", "");
    f.section = opt_str(n, "section", "");
    f.region = opt_str(n, "region", "");
    f.array.sort = opt_str(n, "sort", "");
    if (n["map"_k]) {
      f.spell.map_key = scalar(n["map"_k]);
      f.spell.map_loc = loc(n["map"_k]);
    }
    if (n["count"_k]) {
      f.array.count = parse_expr(scalar(n["count"_k]), loc(n["count"_k]));
      if (f.array.count->kind == Expr::Int) {
        f.array.fixed_count = static_cast<uint64_t>(f.array.count->value);
        f.array.count.reset();
      }
    }
    if (n["derive"_k]) f.role.derive = parse_expr(scalar(n["derive"_k]), loc(n["derive"_k]));
    if (n["pointer"_k]) {
      // Anything but true/false used to mean false silently.
      std::string v = scalar(n["pointer"_k]);
      if (v != "true" && v != "false") fail(n["pointer"_k], "pointer is 'true' or 'false'");
      f.role.derive_pointer = v == "true";
    }
    if (n["const"_k]) {
      if (f.type.kind == ValueType::Chars) f.role.const_text = unescape(scalar(n["const"_k]));
      else f.role.const_int = integer(n["const"_k]);
      // The reader compares a char[N] up to its first NUL: text after a NUL
      // (or more than N bytes) never reads back. Trailing NULs are padding.
      if (f.role.const_text && f.role.const_text->find_first_not_of('\0', f.role.const_text->find('\0')) != std::string::npos)
        fail(n["const"_k], "a char[N] const cannot have text after a NUL (the reader stops at the first NUL)");
      if (f.role.const_text && f.role.const_text->size() > f.type.chars)
        fail(n["const"_k], "const '" + *f.role.const_text + "' is longer than char[" + std::to_string(f.type.chars) + "]");
    }
    if (n["reserved"_k]) {
      if (scalar(n["reserved"_k]) != "true") fail(n["reserved"_k], "reserved: true");
      if (f.type.kind == ValueType::Chars) f.role.const_text = "";
      else f.role.const_int = 0;
    }
    // A constant is one value: on an array the writer has no element to put it
    // in (the generated C++ did not compile).
    if (f.array.on && (n["const"_k] || n["reserved"_k]))
      fail(n["const"_k] ? n["const"_k] : n["reserved"_k], "const: and reserved: are for a single integer or char[N] field, not an array");
    if (n["pad"_k]) f.pad = uint(n["pad"_k]);
    if (n["bom"_k] && n["bom"_k].IsMap()) {
      // A magic that picks the byte order: {YB: little, BY: big}.
      for (const auto& kv : n["bom"_k]) {
        const std::string mark = unescape(scalar(kv.first)), order = scalar(kv.second);
        if (order != "little" && order != "big") fail(kv.second, "bom: each mark picks 'little' or 'big'");
        for (const auto& [m, big] : f.bom_marks)
          if (m == mark) fail(kv.first, "bom: mark '" + mark + "' is listed twice");
        f.bom_marks.emplace_back(mark, order == "big");
      }
      if (f.bom_marks.empty()) fail(n["bom"_k], "bom: a map of marks to byte orders ({YB: little, BY: big})");
      f.bom = true;
    } else if (n["bom"_k]) {
      std::string v = scalar(n["bom"_k]);
      if (v != "true" && v != "false") fail(n["bom"_k], "bom is 'true' or 'false'");
      f.bom = v == "true";
    }
    if (n["valid"_k])
      for (const auto& v : seq(n["valid"_k])) f.role.valid.push_back(integer(v));
    if (n["zero_when_empty"_k]) f.role.zero_when_empty = n["zero_when_empty"_k].as<std::string>();
    if (n["also"_k])
      for (const auto& v : seq(n["also"_k])) f.role.also.push_back(integer(v));
    if (n["default"_k]) {
      // The default is pasted into the C++ as it is written: only numbers,
      // true/false and char[N] text make sense there (a string default did not compile).
      if (f.array.on || (f.type.kind != ValueType::Prim && f.type.kind != ValueType::Chars))
        fail(n["default"_k], "default: is for primitive and char[N] fields");
      f.role.default_text = scalar(n["default"_k]);
      // An integer default is checked as any schema integer (it is pasted into the C++).
      if (f.type.kind == ValueType::Prim && !prim_is_float(f.type.prim) && f.type.prim != Prim::Bool8 &&
          f.type.prim != Prim::Bool32 && !f.array.on)
        (void)integer(n["default"_k]);
    }
    if (n["format"_k]) {
      const std::string fmt = scalar(n["format"_k]);
      if (fmt != "hex" && fmt != "bool") fail(n["format"_k], "format is 'hex' or 'bool' (an integer shown as false/true while 0/1)");
      f.spell.hex = fmt == "hex";
      f.spell.as_bool = fmt == "bool";
    }
    if (n["enum"_k]) {
      const YAML::Node e = n["enum"_k];
      if (e.IsScalar()) {
        f.spell.enum_name = scalar(e);
      } else {
        // An inline enum: named after its struct and field.
        Enum inl = parse_enum(e, struct_name_ + "_" + f.name);
        inl.loc = loc(e);
        f.spell.enum_name = inl.name;
        enums_->push_back(std::move(inl));
      }
    }
    f.spell.ref = opt_str(n, "ref", "");
    f.spell.ref_via = opt_str(n, "via", "");
    if (n["key"_k] && n["key"_k].IsSequence()) {
      // key: [name, sub_name]: a composite key, the first field and then the further ones.
      const auto parts = seq(n["key"_k]);
      if (parts.size() < 2) fail(n["key"_k], "key: a list names two or more fields (the key, then the fields that tell equal keys apart); one field is key: FIELD");
      f.spell.ref_key = scalar(parts[0]);
      for (size_t i = 1; i < parts.size(); ++i) f.spell.ref_also.push_back(scalar(parts[i]));
    } else {
      f.spell.ref_key = opt_str(n, "key", "");
    }
    f.spell.hash_of = opt_str(n, "hash_of", "");
    if (n["hash_of"_k] && f.spell.hash_of != "fnv1a32" && f.spell.hash_of != "murmur3" && f.spell.hash_of != "crc32")
      fail(n["hash_of"_k], "hash_of is 'fnv1a32', 'murmur3' or 'crc32' (the hash of a name)");
    if (n["index_of"_k]) {
      f.table.index_of = scalar(n["index_of"_k]);
      f.table.loc = loc(n["index_of"_k]);
    }
    if (n["table"_k]) {
      f.table.order = scalar(n["table"_k]);
      f.table.loc = loc(n["table"_k]);
      if (f.table.order != "sorted" && f.table.order != "first_use")
        fail(n["table"_k], "table is 'sorted' or 'first_use' (the order in which the writer stores the strings that index_of: fields hold)");
    }
    if (n["offsets_of"_k]) {
      f.table.offsets_of = scalar(n["offsets_of"_k]);
      f.table.loc = loc(n["offsets_of"_k]);
    }
    f.variant.tag = opt_str(n, "tag", "");
    if (n["if"_k]) f.cond = parse_expr(scalar(n["if"_k]), loc(n["if"_k]));
    if (n["size"_k]) {
      if (f.type.kind != ValueType::Bytes && f.type.kind != ValueType::PoolBlock)
        fail(n["size"_k], "size: belongs to bytes and pool fields");
      if (scalar(n["size"_k]) == "rest") f.size_rest = true;
      else f.size_expr = parse_expr(scalar(n["size"_k]), loc(n["size"_k]));
    }
    if (n["register_null"_k]) f.pointer.register_null = scalar(n["register_null"_k]) == "true";
    if (n["share"_k]) {
      if (scalar(n["share"_k]) != "equal") fail(n["share"_k], "share is 'equal' (a fresh write stores equal targets once)");
      f.pointer.share_equal = true;
      f.pointer.share_loc = loc(n["share"_k]);
    }
    if (n["virtual"_k]) f.is_virtual = scalar(n["virtual"_k]) == "true";
    if (n["inline"_k]) {
      if (scalar(n["inline"_k]) != "pascal16") fail(n["inline"_k], "inline is 'pascal16' (a u16 length, the bytes, a NUL)");
      f.pointer.inline_pascal = true;
    }
    if (n["true"_k]) {
      if (f.type.kind != ValueType::Prim || (f.type.prim != Prim::Bool32 && f.type.prim != Prim::Bool8))
        fail(n["true"_k], "true: is the stored value of a bool8/bool32 that is true");
      f.true_value = uint(n["true"_k]);
    }
    if (n["items"_k]) f.items = uint(n["items"_k]);
    if (n["keys"_k]) {
      std::string k = scalar(n["keys"_k]);
      size_t dot = k.find('.');
      if (dot == std::string::npos) fail(n["keys"_k], "keys: is ARRAY.FIELD (the names of a dictionary)");
      f.keys_array = k.substr(0, dot);
      f.keys_field = k.substr(dot + 1);
    }
    if (n["scale"_k]) {
      // A pointer stored in units of N bytes (AAMP's offsets, in words of 4).
      f.pointer.scale = uint(n["scale"_k]);
      f.pointer.scale_loc = loc(n["scale"_k]);
      if (f.pointer.scale < 2 || (f.pointer.scale & (f.pointer.scale - 1)) != 0)
        fail(n["scale"_k], "scale: " + std::to_string(f.pointer.scale) + " is not a power of two of at least 2");
    }
    if (n["points_to"_k]) {
      const std::string pt = scalar(n["points_to"_k]);
      f.pointer.points_to_loc = loc(n["points_to"_k]);
      if (pt == "chars") f.pointer.points_to_chars = true;
      else if (is_identifier(pt)) f.pointer.points_to_field = pt;
      else fail(n["points_to"_k], "points_to is 'chars' (past a Pascal string's length) or a field of the target struct");
    }
    if (n["extent"_k]) {
      if (scalar(n["extent"_k]) != "next") fail(n["extent"_k], "extent is 'next'");
      f.pointer.extent_next = true;
    }
    if (n["bits"_k]) {
      if (f.type.kind != ValueType::Prim || prim_is_float(f.type.prim) || f.array.on)
        fail(n["bits"_k], "bits: splits an unsigned integer field");
      unsigned total = 0;
      for (const auto& b : seq(n["bits"_k])) {
        keys(b, {"name", "bits", "type", "doc", "pool", "default", "scale"});
        Field::Bits bf;
        bf.name = req_str(b, "name");
        if (!is_identifier(bf.name)) fail(b["name"_k], "bit field name '" + bf.name + "' is not a C++ identifier");
        bf.doc = opt_str(b, "doc", "");
        bf.width = static_cast<unsigned>(uint(b["bits"_k] ? b["bits"_k] : b));
        bf.loc = loc(b);
        if (b["type"_k]) {
          std::string t = scalar(b["type"_k]);
          if (t == "bool") {
            if (bf.width != 1) fail(b["type"_k], "a bool bit field is 1 bit wide");
            bf.is_bool = true;
          } else if (t == "string") {
            if (!b["pool"_k]) fail(b, "a string bit field names its pool: pool: NAME (the bits hold its offset)");
          } else {
            fail(b["type"_k], "a bit field's type is bool or string (or left out for an integer)");
          }
        }
        bf.pool = opt_str(b, "pool", "");
        if (!bf.pool.empty() && (!b["type"_k] || scalar(b["type"_k]) != "string")) fail(b["pool"_k], "pool: belongs to a bit field of type string");
        if (b["scale"_k]) {
          // An offset stored in units of N bytes (SARC's name offsets, in words of 4).
          bf.scale = uint(b["scale"_k]);
          if (bf.pool.empty()) fail(b["scale"_k], "scale: belongs to a string bit field (the bits hold its offset divided by the scale)");
          if (bf.scale < 2 || (bf.scale & (bf.scale - 1)) != 0)
            fail(b["scale"_k], "scale: " + std::to_string(bf.scale) + " is not a power of two of at least 2");
        }
        if (b["default"_k]) {
          if (!bf.pool.empty()) fail(b["default"_k], "a string bit field has no default");
          bf.default_text = scalar(b["default"_k]);
          if (bf.is_bool ? (*bf.default_text != "true" && *bf.default_text != "false") : (integer(b["default"_k]), false))
            fail(b["default"_k], "a bool bit field's default is true or false");
        }
        if (bf.width == 0) fail(b, "a bit field is at least 1 bit wide");
        total += bf.width;
        f.bits.push_back(bf);
      }
      if (total != prim_size(f.type.prim) * 8)
        fail(n["bits"_k], "bit fields add up to " + std::to_string(total) + " bits, the field has " +
                            std::to_string(prim_size(f.type.prim) * 8));
    }
    if (n["pad_to"_k]) f.variant.pad_to = uint(n["pad_to"_k]);
    if (n["tag_shift"_k]) {
      f.variant.tag_shift = static_cast<unsigned>(uint(n["tag_shift"_k]));
      if (f.variant.tag_shift == 0 || f.variant.tag_shift >= 64) fail(n["tag_shift"_k], "tag_shift is the first bit of the tag in the pointer word (1-63)");
    }
    if (n["null_value"_k]) {
      if (!f.pointer.width || f.array.on || f.pointer.null != Field::Null::Allowed) fail(n["null_value"_k], "null_value: is the stored value of an absent target (a nullable: true pointer)");
      f.pointer.null_value = uint(n["null_value"_k]);
    }
    if (n["bare"_k]) {
      const std::string b = scalar(n["bare"_k]);
      if (b != "true" && b != "false") fail(n["bare"_k], "bare is true (the text shows a case's value alone) or false");
      f.variant.bare = b == "true";
      f.variant.bare_loc = loc(n["bare"_k]);
      if (f.type.kind != ValueType::Union) fail(n["bare"_k], "bare: belongs to a field of type union (or union[])");
    }
    if (n["cases"_k]) {
      if (f.type.kind != ValueType::Union) fail(n["cases"_k], "cases: belongs to a field of type union");
      for (const auto& c : seq(n["cases"_k])) {
        Case cs;
        cs.loc = loc(c);
        if (!c["value"_k]) fail(c, "a case needs value: (the tag value)");
        cs.tag = integer(c["value"_k]);
        cs.name = req_str(c, "name");
        cs.doc = opt_str(c, "doc", "");
        if (c["as"_k]) {
          // `as: !u` (unquoted) is a tagged empty scalar to yaml-cpp: its tag is the spelling.
          const YAML::Node a = c["as"_k];
          // `as: null` is YAML's null.
          const bool tagged = (a.IsNull() || (a.IsScalar() && a.Scalar().empty())) && a.Tag().size() > 1;
          cs.as = tagged ? a.Tag() : a.IsNull() ? std::string("null") : scalar(a);
          cs.as_loc = loc(a);
        }
        cs.field = std::make_unique<Field>();
        in_case_ = true;
        parse_field(c, *cs.field, true);
        in_case_ = false;
        f.variant.cases.push_back(std::move(cs));
      }
    }
    if (f.type.kind == ValueType::Union && (f.variant.cases.empty() || (f.variant.tag.empty() == !f.variant.tag_shift)))
      fail(n, "a union needs cases: and either tag: (the field holding the tag) or tag_shift: (the tag is in its pointers)");
  }

  int ptr_width(const YAML::Node& n) const {
    std::string w = scalar(n);
    if (w == "u16") return 2;
    if (w == "u32") return 4;
    if (w == "u64") return 8;
    fail(n, "pointer width is u16, u32 or u64");
  }

  static bool is_identifier(const std::string& t) {
    if (t.empty() || std::isdigit(static_cast<unsigned char>(t[0]))) return false;
    return std::all_of(t.begin(), t.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
  }

  std::string file_;
  bool with_example_;
  Loc root_loc_, context_loc_;
  std::string struct_name_;               // the struct being read (names inline enums)
  std::vector<Enum>* enums_ = nullptr;    // where inline enums go

};

}  // namespace

std::unique_ptr<Schema> load_schema_text(const std::string& text, const std::string& name, bool with_example) {
  return Parser(name, with_example).run(text);
}

std::unique_ptr<Schema> load_schema(const std::string& path, bool with_example) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw SchemaError({path, 0, 0}, "cannot read the schema file");
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  return load_schema_text(text, path, with_example);
}

}  // namespace binschema::gen
