// The C++ back end, shared by its source files:
//   gen_cpp.cpp        generate_cpp() and what every part uses
//   gen_cpp_types.cpp  the headers: model structs, union case names (NAME.h); visit_fields (NAME_text.h)
//   gen_cpp_read.cpp   the reader: read_T, bytes -> model
//   gen_cpp_write.cpp  the writer: put_T and place_T, model -> bytes
//   gen_cpp_text.cpp   the source file's frame: contexts, decode, encode, text, format()
// Private to the generator: nothing outside generator/gen_cpp*.cpp includes it.
//
// Read: each struct gets read_T(r, at, x) that checks its bytes once, loads
// its inline fields, then follows its pointers. Write: put_T writes a
// struct's inline bytes, place_T places what it points to in the order of
// its layout (by default depth-first, declaration order), patching each
// pointer slot as its target lands. One visit_fields per struct serves text
// output, text input and counting. Each part switches on Field::kind, with no
// default, for what it does per shape.
#pragma once

#include <algorithm>
#include <functional>
#include <cctype>
#include <set>
#include <sstream>

#include "code_writer.h"
#include "generate.h"
#include "namer.h"
#include "schema.h"

namespace binschema::gen::cpp {

inline std::string hexs(uint64_t v) {
  std::ostringstream o;
  o << "0x" << std::hex << v;
  return o.str();
}

// `base` + `offset`, as C++ ("s + 0x10"; just "s" at offset 0).
inline std::string plus(const std::string& base, uint64_t offset) { return offset ? base + " + " + hexs(offset) : base; }

// `e` rounded up to a multiple of `align` ("(e + 3) / 4 * 4"; just "e" for 1).
inline std::string round_up(const std::string& e, uint64_t align) {
  if (align <= 1) return e;
  return "(" + e + " + " + std::to_string(align - 1) + ") / " + std::to_string(align) + " * " + std::to_string(align);
}

// An expression as the condition of an `if`: without the parentheses that
// enclose all of it ("(a == 2)" -> "a == 2"), which the `if` gives already.
inline std::string condition(const std::string& e) {
  if (e.size() < 2 || e.front() != '(' || e.back() != ')') return e;
  int depth = 0;
  for (size_t i = 0; i < e.size(); ++i) {
    if (e[i] == '(') ++depth;
    if (e[i] == ')' && --depth == 0 && i + 1 != e.size()) return e;  // "(a) + (b)"
  }
  return e.substr(1, e.size() - 2);
}

// The check that the number `v` of a u24 or s24 (field, union case or
// array element) fits in 24 bits, refused naming `what` (a C++ expression
// that gives the name: a quoted string, or one built from an index); empty
// for any other primitive.
std::string check24(Prim p, const std::string& v, const std::string& what);

// The name of element `i` (a C++ variable) of the array `name`, as a C++
// expression: "Struct.field[3]" when the writer refuses the element.
inline std::string elem_what(const std::string& name, const std::string& i) {
  return "\"" + name + "[\" + std::to_string(" + i + ") + \"]\"";
}

// Whether generated code reads the model `x` (a lambda then captures it).
inline bool uses_model(const std::string& code) {
  for (size_t i = code.find("x."); i != std::string::npos; i = code.find("x.", i + 1))
    if (i == 0 || !(std::isalnum(static_cast<unsigned char>(code[i - 1])) || code[i - 1] == '_')) return true;
  return false;
}

class CppGen {
 public:
  explicit CppGen(const Schema& s) : s_(s) {}
  CppOutput run();

 private:
  // ---- Entry point and what every part uses: field offsets, loads, pointer widths
  // Fields whose place in the struct is only known while writing it: put_
  // notes it in c.at for place_.
  bool at_var(const Struct& st, const Field& f) const;
  // Tells apart fields that share an address (a struct and its first member).
  std::string at_id(const Struct& st, const Field& f) const;
  // The first half of f's key in c.at: its member, or the struct's address for a
  // field the model does not hold (a dic, a pointer to a struct of no model fields).
  std::string at_key(const Field& f) const;
  bool uses_at() const;
  // Where field f starts, in place_ (the struct is at s).
  std::string field_at(const Struct& st, const Field& f) const;
  // Offset expression of a field inside struct starting at `s` (fixed) or at cursor `o`.
  static std::string at(const Field& f);
  std::string sort_key(const Struct& et, const std::string& key, const std::string& e) const;
  void read_placed_pool(const Field& f);
  std::map<std::string, int> data_pool_mark_;  // region ids of data pools
  // A string pool placed by the root's `type: pool` field that is its base:.
  bool placed_pool(const Pool& p) const {
    const Field* f = p.base.empty() ? nullptr : s_.find(s_.root)->field(p.base);
    return f && f->type.kind == ValueType::PoolBlock;
  }
  std::string load_type(const Field& f) const;
  std::string load(const Field& f, const std::string& where) const;
  std::string raw_uint(int width) const;
  // One element of an array of numbers: read into dst (a statement; bools
  // checked to be 0 or their true value), or written at `where`.
  std::string load_elem(const Field& f, const std::string& where, const std::string& dst) const;
  // `what` names the element (a C++ expression: elem_what) for the range
  // check of a u24 or s24 element.
  std::string store_elem(const Field& f, const std::string& where, const std::string& v, const std::string& what) const;

  // ---- The header (gen_cpp_types.cpp): model structs, union case names, visit_fields
  std::string elem_type(const Field& f, const Struct* owner) const;
  std::string model_type(const Field& f, const Struct* owner = nullptr) const;
  // Whether a member holds a string, vector, optional or union (placed first).
  bool owns_memory(const Field& f) const;
  std::string default_init(const Field& f) const;
  // The struct a member holds by value (needed complete before it), if any.
  const Struct* held(const Field& f) const;
  // Members that hold their struct in a binschema::Box (recursion).
  void find_boxes();
  std::set<const Field*> boxed_;
  // Structs in an order where every by-value member type comes first.
  std::vector<const Struct*> ordered() const;
  void header();
  // NAME_text.h: the text binding (enums, spellings, visit_fields, to_text, from_text).
  void text_header();
  void doc_comment(CodeWriter& w, const std::string& doc);
  void struct_decl(const Struct& st);
  static const char* bits_cpp(unsigned width);
  void visit_decl(const Struct& st);

  // ---- The reader (gen_cpp_read.cpp): read_T, bytes -> model
  // C++ for an expression on the read side: names are the locals f_<name>
  // (of struct rs_), bit fields are taken out of them, context names come
  // from the reader.
  std::string read_expr(const Expr& e) const;
  // Notes a pointer slot for pointer_slots() (formats with a relocation table).
  std::string note_slot(const std::string& at) const;
  std::string note_layout(const Field& f, const std::string& target) const;
  // Reads one inline field; `o` is where it starts ("o" when at the cursor).
  void read_field(const Struct& st, const Field& f, const std::string& o, bool cursor,
                  std::vector<const Field*>& targets);
  // A number, a bool or a bit word: the raw value goes to f_NAME (for counts,
  // tags and conditions), checked against const:, valid: and file_size().
  void read_scalar(const Field& f, const std::string& o);
  void read_chars(const Field& f, const std::string& o);
  // bytes: kept as they are; a scoped pool's block: checked to be exactly the
  // strings referenced so far, in order (the only form written back).
  void read_bytes(const Field& f);
  void read_inline_struct(const Struct& st, const Field& f, const std::string& o);
  // Inline array of pointers, each to one element.
  void read_elem_pointers(const Field& f, const std::string& o, bool cursor);
  // Inline array of u32 string offsets.
  void read_string_offsets(const Field& f);
  // Inline array of numbers or structs. One of fixed size (T[N] of fixed-size
  // elements) is read at `o` element by element, leaving the cursor to the
  // caller; any other follows the cursor.
  void read_inline_array(const Field& f, const std::string& o, bool cursor);
  static const Field* extent_field(const Struct& st);
  // Extra reader parameters: the block's end (for `size: rest`) and the end
  // of the target of an `extent: next` pointer.
  static std::string read_params(const Struct& st);
  // read_T(r, at, dst, ...) with the bounds it takes.
  static std::string read_call(const Struct& st, const std::string& at, const std::string& dst,
                               const std::string& end = "r.size()", const std::string& next = "r.size()");
  // Where the target of element i + 1's `extent: next` pointer starts (the
  // end of element i's target), for fixed-size elements at `first` + i * size.
  std::string next_target(const Struct& et, const std::string& elem_i_plus_1) const;
  // A derived value the reader can recompute and check: one over the file's
  // size and constants (a header's size field, say), so that a truncated or
  // padded file is caught even where the rest of its bytes are opaque.
  void read_fn(const Struct& st);
  // Whether st can hold itself (through pointers, arrays or union cases): its
  // reader counts the nesting and refuses cycles (docs §4, "Decode errors" in §8).
  bool recursive(const Struct& st) const;
  // Reads a pooled string the pool's way (Pascal or NUL-terminated).
  std::string pool_read(const std::string& pool, const std::string& at) const;
  // What a pool-relative offset is added to ("" for absolute offsets).
  std::string pool_base(const std::string& pool) const;
  // A bool stored as 0 / 1 (or 0 / `true:`): anything else is refused, so
  // that writing it back gives the same bytes.
  std::string read_bool(const Field& f, const std::string& raw, const std::string& at, const std::string& name) const;
  void read_union(const Field& f, const std::string& o);
  void put_union_one(const Struct& st, const Field& f, const std::string& o, const std::string& xu);
  // One union at `o` into `target`, its case chosen by `tag` (a union[]
  // element: tag is f_TAGS[i]).
  void read_union_one(const Field& f, const std::string& o, const std::string& target, const std::string& tag);
  void read_union_array(const Field& f);
  // The end bound passed to a pointer's target: `next` for `extent: next`.
  static std::string target_end(const Field& f);
  void read_target(const Field& f);

  // ---- The writer (gen_cpp_write.cpp): put_T, place_T, pools and blocks, model -> bytes
  // Each (block pool, struct type) that some field puts into the pool.
  std::vector<std::pair<const Pool*, const Struct*>> block_uses() const;
  // A string of a file-wide shared string pool that the field (or bit field) holds.
  bool file_pool(const std::string& pool) const;
  // The structs whose strings are entered into their pools when a block
  // holding them is referenced (see intern_fn), so that a pool in order of
  // first use meets them where the block is referenced, not where it lands.
  std::vector<const Struct*> interned() const;
  void intern_fn(const Struct& st);
  // block_P_T(c, v): the index of v's block in pool P, adding it unless an
  // equal one is there (shared pools); the block is written when P is placed.
  void block_fn(const Pool& p, const Struct& st);
  // A reference to a string of a pool that is not scoped: absolute (a
  // pointer slot) or relative to the pool (base:, not a pointer).
  std::string string_ref(const std::string& pool, const std::string& v, const std::string& slot, int width) const;
  // A pointer into a block pool: the block's index, then the slot to fill.
  std::string block_ref(const Field& f, const std::string& v, const std::string& slot, uint64_t tag = 0, unsigned shift = 0) const;
  // A field whose target place_ puts down (not a pooled string or block).
  bool placed_by_place(const Field& f) const;
  // A struct whose bytes hold no pointers, pooled references or late values:
  // its bytes are final once put_ wrote them (a "leaf" for shared targets).
  bool plain_struct(const Struct& st) const;
  // C++ for an expression on the write side.
  std::string write_expr(const Struct& st, const Expr& e, const std::string& obj = "x") const;
  // Whether the writer can evaluate e from the model (no layout positions,
  // no read-side-only functions or context pointers).
  bool write_evaluable(const Struct& st, const Expr& e) const;
  // A pointer of the root named in context: (read back from its slot in late_expr), or null.
  const Field* context_pointer(const Struct& st, const Expr& e) const;
  // Whether the writer checks an array's length against this count.
  bool count_checked(const Struct& st, const Expr& e) const;
  // C++ for a value known only once the file is laid out, evaluated in
  // finish(): marks, the file size, start(self) and model values.
  std::string late_expr(const Struct& st, const Expr& e) const;
  // Writes one inline field at `o` (already reserved when the field has a fixed size).
  void put_field(const Struct& st, const Field& f, const std::string& o);
  // A number, a bool or a bit word, in whatever role it has: derived,
  // a count, a union's tag, or a model value.
  void put_scalar(const Struct& st, const Field& f, const std::string& o);
  // An inline array of numbers or structs. One of fixed size is written at
  // `o` (reserved by put_); any other is appended element by element.
  void put_inline_array(const Struct& st, const Field& f, const std::string& o);
  // What a field that is absent (its if: is false) must hold in the model.
  std::string absent_check(const Field& f) const;
  void put_fn(const Struct& st);
  void put_union(const Struct& st, const Field& f, const std::string& o);
  void place_fn(const Struct& st);
  // Sections (sections:): the pointers whose targets wait in a section's
  // queue, numbered in schema order; run_sec_NAME writes one of them.
  struct SectionUse {
    const Struct* st;
    const Field* f;  // the pointer field, or the union
    int case_index;  // the union's case, or -1
  };
  std::vector<SectionUse> section_uses(const std::string& name) const;
  int section_use_id(const std::string& name, const Field* f, int case_index) const;
  void section_fn(const Section& sec);
  uint64_t section_align(const Section& sec) const;
  void enqueue_section(const Struct& st, const Field& f, int case_index, const std::string& section);
  // The placement of a union's case that points to a struct (v: the case's value).
  void place_case_struct(const Struct& st, const Field& u, size_t i, const std::string& v, const std::string& slot);
  static bool layout_pool(const Pool& p);
  void declare_cond_derived(const Struct& st);
  // What an inline struct field (or each element of an inline array of
  // them) points to.
  void place_inline_children(const Struct& st, const Field& f);
  // The targets of a shallow-placed field's target, element by element.
  void place_children(const Struct& st, const Field& f);
  // A string of its own (not pooled) as the target of the pointer at `slot`
  // (holding its offset from `base`), where a layout put it if it still fits.
  void place_pascal(const std::string& v, const std::string& slot, int width, uint64_t align, const std::string& what,
                    const std::string& base = "0");
  // The elements of an inline array of pointers, each placed (aligned) and
  // followed by what it points to, filling the slots in the struct.
  void place_inline_pointers(const Struct& st, const Field& f);
  // The set of struct types whose elements' targets are placed before them.
  std::set<const Struct*> preplaced_elements() const;
  // Fills in the pointer of field f (of `obj`, at s) from c.placed.
  std::string pointer_call(const Field& f, const std::string& slot, const std::string& target, const std::string& base,
                           const std::string& what) const;
  void patch_field(const Struct& st, const Field& f, const std::string& obj);
  // pre_place_T: what T's layout places before T itself.
  void pre_place_fn(const Struct& st);
  // preplace_E / patch_E: E's targets placed before E, and E's pointers filled in later.
  void preplace_fns(const Struct& st);
  void place_target(const Struct& st, const Field& f, bool shallow = false, bool record = false);
  // collect_T: the strings of T's index_of: fields, into their tables (tables.cpp checks the paths).
  void collect_fn(const Struct& st);
  // put_T for a table: (the strings built by the writer) in place of the model's field.
  void put_table(const Struct& st, const Field& f, const std::string& slot);

  // ---- The source file's frame (gen_cpp_text.cpp): reader and writer contexts, decode, encode, text, format()
  void source();
  void root_fns();
  void root_codec();
  void internals();
  void decode_body();
  void encode_body();
  void root_tail();

  const Schema& s_;
  CodeWriter h_, c_, t_;  // NAME.h, NAME.cpp, NAME_text.h
  const Struct* rs_ = nullptr;  // the struct whose reader is being generated
  // How write_expr names a context: value: the writer's c.g_NAME, or (in
  // the text's conditions, text_cond) a local g_NAME.
  std::string context_prefix_ = "c.g_";
  // C++ for an if: as visit_fields evaluates it (over x and the visitor v),
  // or "" when the text cannot evaluate it (then the field is always shown).
  std::string text_cond(const Struct& st, const Expr& e);
  bool text_evaluable(const Struct& st, const Expr& e) const;
  std::string endian_;          // "little" or "big": the byte order internals() writes for (unused for `endian: bom`)
  // What starts a function definition in internals(): "static " inside the
  // byte-order template of `endian: bom` (the functions are its members).
  std::string fn_prefix() const { return s_.endian_by_bom ? "static " : ""; }
  // The start of a load r.get<T>(at) and of a store c.w.put<T>(at, v): in
  // that template the reader and writer depend on the byte order, and a
  // member template of theirs is called as `r.template get<T>`.
  std::string rget() const { return s_.endian_by_bom ? "r.template get<" : "r.get<"; }
  std::string wput() const { return s_.endian_by_bom ? "c.w.template put<" : "c.w.put<"; }
};

}  // namespace binschema::gen::cpp
