// The validated model of a schema: what every back end works from.
//
// parse.cpp builds it from YAML, validate.cpp checks it and gives each field
// its shape (FieldKind); the back ends (generate.h) only read it. These four
// files are the library binschema::schema, installed as <binschema/schema.h>
// for tools of other projects. Nothing here refers to yaml-cpp, so a back
// end never has to think about the source text beyond the Loc kept for
// messages.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace binschema::gen {

struct Loc {
  std::string file;
  int line = 0, col = 0;
  std::string str() const { return file + ":" + std::to_string(line) + ":" + std::to_string(col); }
};

// A schema error: "file:line:col: message".
struct SchemaError : std::runtime_error {
  SchemaError(const Loc& loc, const std::string& msg) : std::runtime_error(loc.str() + ": " + msg) {}
};

// The functions of expressions (docs/schema-language.md §6), resolved when
// the expression is parsed: a name that is none of these is a SchemaError
// there. Stem and Extension are only arguments of Fnv1a32 and Murmur3.
enum class Fn { None, Count, FileSize, Start, End, Size, Fnv1a32, Murmur3, Crc32, Until, Items, Sum, Max, Mulhash, Has, Stem, Extension };

// Expressions in `count:` and `derive:` (see expr.cpp for the grammar).
struct Expr {
  enum Kind { Int, Ident, Call, Unary, Binary, Ternary } kind = Int;
  int64_t value = 0;
  std::string name;  // Ident name, Call function (as spelt), Unary/Binary operator
  Fn fn = Fn::None;  // Call: the function
  std::vector<Expr> args;
  Loc loc;
  bool calls(Fn f) const { return kind == Call && fn == f; }
};

// U24 and S24: 3 bytes in the file, 32 bits in the model.
enum class Prim { U8, U16, U24, U32, U64, S8, S16, S24, S32, S64, F32, F64, Bool8, Bool32 };

struct Struct;

// The value a field holds (before any array-ness).
struct ValueType {
  enum Kind { Prim, Struct, String, Chars, Bytes, Union, CString, PoolBlock, Dic } kind = Prim;
  gen::Prim prim = gen::Prim::U32;
  std::string struct_name;
  const gen::Struct* st = nullptr;  // resolved
  uint64_t chars = 0;               // char[N]
};

struct Field;

// The one shape of a field: what its bytes are and what the model holds.
// The validator (validate.cpp) sets it once from the schema's keys; a
// combination of keys that is none of these is a schema error there. Back
// ends switch on it with no `default:`, so that -Wswitch names every back
// end that forgets a shape. Roles a scalar can play (derive:, const:, the
// count of an array, the tag of a union) are not shapes: see Field.
enum class FieldKind {
  Scalar,         // u8 .. f64, bool8, bool32, inline
  BitWord,        // an unsigned integer split into bits: (numbers, bools, pooled strings)
  Chars,          // char[N]: N bytes of text, NUL-padded
  CString,        // cstring: a NUL-terminated string inline
  Bytes,          // bytes with size: (an expression, or rest)
  PoolBlock,      // type: pool: where a scoped string pool is placed
  InlineStruct,   // a struct inline
  InlineArray,    // T[N] or T[] of primitives or structs, inline
  StringOffsets,  // string[] inline: u32 offsets of strings in a pool
  ElemPointers,   // T[] with elem_ptr: (no ptr:): inline pointers, each to one struct
  OwnStrings,     // string[] with elem_ptr: and inline: pascal16 (a union case): pointers to Pascal strings of their own
  Pointer,        // ptr: to one struct (nullable: true: optional)
  ArrayPointer,   // ptr: to an array: of primitives, structs, pooled string offsets, or (elem_ptr:) pointers to structs
  PooledString,   // ptr: the offset of a string in a pool (scoped, based, or points_to: chars)
  OwnString,      // ptr: to a Pascal string of its own (inline: pascal16)
  BlockRef,       // ptr: to a struct in a block pool
  Dic,            // ptr: to a dictionary of the names of an array's elements (keys:)
  Union,          // one of cases:, chosen by tag: or by the pointer's top bits (tag_shift:)
  Slice,          // bytes with ptr: into a data pool: begin and end offsets (two words), the bytes in the pool
  Virtual,        // in the model only: a name kept in a dictionary (virtual: true)
};
const char* field_kind_name(FieldKind k);

// What a union case holds in place of the union: the validator gives every
// case one of these (check_union_cases) or refuses it, so the union reader
// and writer switch over these payloads only.
enum class CaseKind {
  Number,         // a scalar (Scalar)
  Numbers,        // an inline array of numbers (InlineArray of a primitive)
  Struct,         // a fixed-size struct inline (InlineStruct)
  StructPointer,  // a pointer to a struct (Pointer)
  PooledBlock,    // a pointer to a struct in a block pool (BlockRef)
  PooledString,   // a string in a pool (PooledString)
  OwnString,      // a pointer to a Pascal string of its own (OwnString)
  OwnStrings,     // counted pointers to Pascal strings of their own (OwnStrings with count:)
};

struct Case {
  int64_t tag = 0;
  std::string name, doc;
  Loc loc;
  // as: how the case is spelt in the text of a `bare: true` union: a plain
  // kind (int, float, string, bool, null, list, map: the case a plain value
  // of that kind picks) or a YAML tag ("!u"). Empty outside bare unions.
  std::string as;
  Loc as_loc;
  // The validator's: the payload is a struct with one model field, which
  // the text shows in its place.
  bool unwrap = false;
  std::unique_ptr<Field> field;  // the payload, laid out at the union's offset
  CaseKind kind = CaseKind::Number;  // set by the validator
  // Whether the payload places something when the writer places targets:
  // strings of its own, a struct of its own (not a pooled block), a struct
  // inline that points elsewhere.
  bool places_targets() const;
};

struct Field {
  std::string name, doc;
  Loc loc;
  ValueType type;
  FieldKind kind = FieldKind::Scalar;  // set by the validator

  // Each part below holds the keys of one concern; the validator reads them
  // together (a combination that is no FieldKind is refused there) and the
  // back ends read the parts their shape has.

  // Arrays: `T[N]` (fixed), `T[]` with count: (or until/rest forms).
  struct Array {
    bool on = false;                      // the type is T[N] or T[]
    std::optional<uint64_t> fixed_count;  // T[N]
    std::optional<Expr> count;            // count:
    std::string sort;                     // sort: kept sorted by this element field on write
  } array;

  // Out-of-line storage: ptr:, elem_ptr: and what qualifies a pointer.
  enum class Base { File, Struct };
  enum class Null { Never, WhenEmpty, Allowed };
  struct Pointer {
    int width = 0;       // ptr: the field is a pointer of this many bytes (0: inline)
    int elem_width = 0;  // elem_ptr: an array of pointers of this many bytes, one per element
    Base base = Base::File;
    Null null = Null::Never;
    uint64_t null_value = 0;     // the value stored for an absent target; 0 unless `null:`
    bool register_null = false;  // a null pointer is still listed in the pointer record
    uint64_t align = 0;          // of the target; 0 = natural
    std::string align_field;     // a data slice: the virtual u32 field of the struct that holds its alignment (align: NAME)
    // The pointer's target runs up to the next element's target (or the end of
    // the file): the bound for a `size: rest` field inside it.
    bool extent_next = false;
    bool inline_pascal = false;    // a string pointer whose target is a Pascal string of its own (no pool)
    bool points_to_chars = false;  // a pooled Pascal string referenced past its length
    // scale: N: the pointer holds the target's offset divided by N (a power of two).
    uint64_t scale = 1;
    // points_to: FIELD: the pointer holds the offset of this field of the target
    // struct (at a fixed offset, resolved into points_to_offset), not of its start.
    std::string points_to_field;
    uint64_t points_to_offset = 0;
    Loc points_to_loc, scale_loc;
    // share: equal: a fresh write stores equal targets (of this and every other
    // share: equal pointer to the same type) once, all pointing to one copy.
    bool share_equal = false;
    Loc share_loc;
  } pointer;

  // Unions: one of cases:, chosen by tag: or by the pointer's top bits.
  struct Variant {
    std::vector<Case> cases;
    std::string tag;  // field holding the tag
    uint64_t pad_to = 1;
    // Cases that are pointers can keep their tag in the pointer word instead:
    // bits from tag_shift up are the tag, the bits below it the offset.
    unsigned tag_shift = 0;
    // bare: true: the text shows the case's value alone (each case's `as:`
    // says how a reader tells them apart), not a map naming the case.
    bool bare = false;
    Loc bare_loc;
  } variant;

  // Text spellings (docs/schema-language.md, "References, enums and hash names").
  struct Spelling {
    std::string enum_name;  // enum: the name of an enums: entry, or <Struct>_<field> for an inline one
    bool as_bool = false;   // format: bool: an integer shown as false/true while 0/1
    std::string ref;        // ref: ARRAY or ARRAY.LIST: an index into that array (or list)
    std::string ref_via;    // via: the sibling field that picks the element holding LIST
    std::string ref_key;    // key: the element field that names it (default "name")
    std::vector<std::string> ref_also;  // key: [KEY, FIELD...]: the fields that tell equal keys apart
    std::string hash_of;    // hash_of: fnv1a32 | murmur3 | crc32: the hash of a name
    bool hex = false;       // format: hex
    // map: KEY: an array of structs (or of unions of struct cases) shown as a
    // map keyed by the text of the elements' field KEY, in the array's order.
    std::string map_key;
    Loc map_loc;
  } spell;
  bool spelled() const { return !spell.enum_name.empty() || spell.as_bool || !spell.ref.empty() || !spell.hash_of.empty(); }

  // Value roles: what the writer computes or checks instead of the model.
  struct Role {
    std::optional<Expr> derive;
    bool derive_pointer = false;  // the derived value is a pointer (recorded)
    std::optional<std::string> const_text;  // for char[N]
    std::optional<int64_t> const_int;
    std::vector<int64_t> valid;
    // derive: other values a reader accepts in its place; the writer keeps the
    // file's (a layout choice: an empty array's element size, say).
    std::vector<int64_t> also;
    // A model value written as 0 while the array this count field counts is
    // empty (an element size, as most writers store it); a file's other value
    // there is kept by the layout.
    std::string zero_when_empty;
    std::optional<std::string> default_text;
  } role;
  bool is_const() const { return role.const_int || role.const_text; }

  // String tables (docs §5 `table`, `index_of`, `offsets_of`): the writer builds
  // the table from the strings of every index_of: field, which the model holds.
  struct Table {
    std::string index_of;    // index_of: T: an unsigned integer, the index of its string in the root's table field T
    std::string order;       // table: sorted | first_use: a root pointer to a table the writer builds (not in the model)
    std::string offsets_of;  // offsets_of: A: a u32[] in a table: each element's offset from the struct's start, then the end
    Loc loc;
    // Resolved by the validator.
    int id = -1;                // index_of: and table: the table's number (its place among the root's table fields)
    const Field* strings = nullptr;  // table: the target's array of strings (elements: one cstring field)
    const Field* text = nullptr;     // table: that cstring field of the elements
  } table;

  std::string section;  // section: the target is written with the section's other blocks, where a layout places it
  std::string pool;    // string stored in this pool
  std::string region;  // name for start()/end()/size()
  bool is_virtual = false;             // in the model, not in the struct's bytes (a name kept in a DIC)
  std::optional<uint64_t> true_value;  // bool32 stored as this value when true (0 when false)
  std::optional<uint64_t> items;       // union case: what items() counts for it (default 1; arrays: size)
  std::string keys_array, keys_field;  // dic: the names are keys_array[i].keys_field
  bool bom = false;  // a u16 byte order mark that picks the byte order (`endian: bom`)
  // bom: {MARK: little|big}: a char[N] magic whose text picks the byte order
  // (true: big-endian), in place of a u16 mark.
  std::vector<std::pair<std::string, bool>> bom_marks;
  uint64_t pad = 0;  // an inline cstring followed by zero bytes up to a multiple of this (file offset)

  // Inline bytes / pool blocks: their size on read (`rest`: up to the end of
  // the block, as bounded by the enclosing pointer's extent).
  std::optional<Expr> size_expr;
  bool size_rest = false;

  // Present only when this expression (over earlier fields) is true.
  std::optional<Expr> cond;

  // Bit-packed word: sub-fields from the least significant bit up.
  struct Bits {
    std::string name, doc;
    unsigned width = 1;
    bool is_bool = false;
    std::string pool;  // a string whose offset in this pool is the bits' value
    uint64_t scale = 1;  // scale: N: the bits hold the string's offset divided by N
    std::optional<std::string> default_text;  // left out of the text when equal
    Loc loc;
  };
  std::vector<Bits> bits;

  // The validator's results (validate.cpp), never set by the parser.
  struct Resolved {
    std::string count_for;     // this field is the count of that array
    std::string count_shared;  // this array's count field already counts that array
    std::string tag_for;       // this field is the tag of that union
    bool fixed_size = false;
    uint64_t size = 0;  // inline size when fixed
    bool fixed_offset = false;
    uint64_t offset = 0;
  } resolved;

  // Is it part of the in-memory model?
  bool in_model() const;
  // Whether a reader reads it at the cursor (where the field before it
  // ended) rather than at its resolved offset: it has no fixed offset, it is
  // under `if:`, or its size varies (except a union's: its cases all start
  // at the union's offset). The readers, the validator and the .ksy export
  // share this one rule.
  bool read_at_cursor() const {
    return !resolved.fixed_offset || cond || (!resolved.fixed_size && type.kind != ValueType::Union);
  }
};

// One step of a struct's write layout (see docs/schema-language.md):
//   F            place F's target, then (depth-first) everything it points to
//   shallow F    place F's target only; its own targets wait for...
//   children F   ...this: each element's targets, element by element
//   pool P       place string pool P
//   align N      pad to a multiple of N
//   zeros N      N zero bytes nothing points to (reserved space)
//   self         the struct itself: what comes before it is placed first and
//                its pointers are filled in once the struct is written
struct LayoutItem {
  enum Kind { FieldTarget, Shallow, Children, Pool, Align, Zeros, Self } kind = FieldTarget;
  std::string name;
  uint64_t n = 0;
  Loc loc;
};

struct Struct {
  std::string name, doc;
  Loc loc;
  std::vector<std::unique_ptr<Field>> fields;
  std::optional<uint64_t> declared_size;
  Loc size_loc;
  uint64_t align = 1;
  std::vector<LayoutItem> layout;  // completed: every out-of-line field once
  // unwrap: true: shown in text as the value of its one model field.
  bool unwrap = false;
  Loc unwrap_loc;
  // Arrays of this struct that ref: fields point into (check_names): the
  // text keeps their elements' keys, and those of lists each element holds.
  struct NameTarget {
    std::string array, key;
    std::vector<std::string> subs;
    std::vector<std::string> also;  // key: [key, also...]: a composite key
    bool key_given = false;         // set by a ref: ARRAY (or an explicit key:), not only by ARRAY.LIST refs
  };
  std::vector<NameTarget> name_targets;

  // Filled in by validation.
  bool fixed_size = false;
  uint64_t size = 0;
  uint64_t prefix = 0;     // bytes before the first variable-size field
  bool has_model = false;  // has at least one model field
  bool needs_end = false;  // has a `size: rest` field: its reader takes the block's end
  bool has_children = false;  // places pointed-to blocks
  bool has_self = false;      // its layout places some targets before the struct itself

  const Field* field(const std::string& n) const {
    for (const auto& f : fields)
      if (f->name == n) return f.get();
    return nullptr;
  }
};

struct Pool {
  std::string name, doc;
  Loc loc;
  // Block: a pool of struct blocks (equal blocks stored once when shared).
  // Data: byte strings (bytes fields with ptr:, "slices"), each aligned, one after the other.
  enum class Kind { CString, Pascal16, Block, Data } kind = Kind::CString;
  std::string block_type;            // Block: the struct type (required when shared)
  const Struct* block_st = nullptr;  // resolved
  std::string base;                  // string offsets are relative to the pool; the root field holding its start
  enum class Order { FirstUse, Sorted, ReversedBits } order = Order::FirstUse;
  uint64_t align = 1;
  std::vector<std::string> keep;
  bool shared = true;      // equal strings stored once
  bool header_str = false; // starts with an EventFlow "STR " header
  uint64_t block_align = 1;
  std::string scope;       // a pool per instance of this struct, placed by a `pool` field in it
  bool placed_in_layout = false;
};

// A section (sections:): the targets of the pointers that name it
// (`section: NAME`) are written together, first in first out, where a
// layout's `pool NAME` item places the section; a region.
struct Section {
  std::string name, doc;
  Loc loc;
  bool placed_in_layout = false;  // set by the validator
};

// A named set of integer values (enums:, or a field's inline enum:).
struct Enum {
  std::string name, doc;
  Loc loc;
  std::vector<std::pair<int64_t, std::string>> values;  // in the schema's order
};

struct Schema {
  std::string file;
  std::string format, title, doc, versions;
  // example: a text document of this format (a path relative to the schema
  // file, as written) and its text, shown by the Markdown page.
  std::string example, example_text;
  bool big_endian = false;
  // `endian: bom`: the byte order is chosen at run time by the root's field
  // with `bom: true` (big_endian is then unused); see docs §2 `endian`.
  bool endian_by_bom = false;
  std::string bom_field;  // set by the validator
  std::vector<std::string> extensions;
  std::string magic;
  uint64_t magic_offset = 0;
  std::vector<std::string> version_fields;  // dotted paths shown by `info`
  std::vector<Loc> version_field_locs;      // where each stands in the schema
  std::string root;
  // Root fields that expressions in every struct may name (a version, say).
  std::vector<std::string> context;
  std::vector<Pool> pools;
  std::vector<Section> sections;
  std::vector<std::unique_ptr<Struct>> structs;  // in declaration order
  std::vector<std::string> regions;              // mark ids: pools first, then fields
  // Named C++ hooks beside the schema (schemas/<format>.hooks.cpp) for what a
  // schema cannot say: each runs on every instance of its struct, on a copy
  // of the model, before it is written.
  struct Hook {
    std::string name, on, doc;
    Loc loc;
  };
  std::vector<Hook> hooks;
  std::vector<Enum> enums;  // shared (enums:) and inline (enum: on a field) ones
  // names: FILE (beside the schema): names the text shows for the hashes of
  // hash_of: fields when no name list given at run time knows them; one a
  // line, '#' comments. The generated code holds them.
  std::string names_file;
  std::vector<std::string> default_names;
  Loc names_loc;
  const Enum* find_enum(const std::string& n) const {
    for (const auto& e : enums)
      if (e.name == n) return &e;
    return nullptr;
  }
  // A relocation table (RELT) listing every pointer slot, written last.
  bool relocation_table = false;
  std::optional<Expr> relocation_data_end;       // the "data end" it records

  const Struct* find(const std::string& n) const {
    for (const auto& s : structs)
      if (s->name == n) return s.get();
    return nullptr;
  }
  const Section* section(const std::string& n) const {
    for (const auto& p : sections)
      if (p.name == n) return &p;
    return nullptr;
  }
  const Pool* pool(const std::string& n) const {
    for (const auto& p : pools)
      if (p.name == n) return &p;
    return nullptr;
  }
  // A field that points into a block pool (its target is a pooled block).
  bool in_block_pool(const Field& f) const {
    const Pool* p = f.pool.empty() ? nullptr : pool(f.pool);
    return p && p->kind == Pool::Kind::Block;
  }
  int region_id(const std::string& n) const {
    for (size_t i = 0; i < regions.size(); ++i)
      if (regions[i] == n) return static_cast<int>(i);
    return -1;
  }
};

// parse.cpp: YAML -> a validated Schema (it calls validate()). The text
// form parses a schema held in memory; `name` is what its messages and the
// Schema's `file` call it (name:line:col). load_schema reads the file and
// gives its path as the name. Both throw SchemaError. with_example false:
// `example:` is not read (the run-time engine: it changes no output, and a
// copy of a schema elsewhere need not bring its example).
std::unique_ptr<Schema> load_schema_text(const std::string& text, const std::string& name, bool with_example = true);
std::unique_ptr<Schema> load_schema(const std::string& path, bool with_example = true);
// names.cpp: the validator's checks of refs, enums, format: bool and
// hash_of: (validate() calls it last).
void check_names(Schema& s);
// tables.cpp: the checks of string tables (table:, index_of:, offsets_of:),
// which validate() calls before check_names.
void check_tables(Schema& s);
// Whether struct st holds an index_of: field (inline, through pointers, arrays
// or union cases): the writer collects the strings of its tables from it.
bool reaches_index(const Struct& st);
// validate.cpp: every schema check (with check_names); sets each field's
// kind, sizes, offsets and layouts. root_loc and context_loc are where root:
// and context: stand.
void validate(Schema& s, const Loc& root_loc, const Loc& context_loc);
Expr parse_expr(const std::string& text, const Loc& loc);
// validate.cpp: whether an expression is known only once the file is laid
// out (it uses start(), end(), size() or file_size()), and whether it
// measures a scoped pool (start(), end() or size() of one). The validator's
// rules and the writer's code both go by these.
bool is_late(const Expr& e);
bool uses_scoped_pool(const Schema& s, const Expr& e);
// An expression as a schema would spell it (for messages and docs).
std::string expr_text(const Expr& e);
// expr.cpp: a derived value the reader recomputes and checks: numbers and
// file_size() only, file_size() at least once (a header's size field, say,
// so that a truncated or padded file is caught even where the rest of its
// bytes are opaque). The generated reader and the run-time engine both check
// the fields this is true of.
bool checks_file_size(const Expr& e);

// Primitive helpers (parse.cpp).
uint64_t prim_size(Prim p);
const char* prim_name(Prim p);
const char* prim_cpp(Prim p);
// The type the generated code loads and stores: prim_cpp, but for u24/s24
// the runtime's binschema::uint24 / int24 (3 bytes).
const char* prim_stored(Prim p);
bool prim_is_float(Prim p);
bool prim_is_signed(Prim p);

}  // namespace binschema::gen
