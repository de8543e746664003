// The engine's prepared form of a schema (binschema/dynamic.h): what the
// decode, text, and encode walks look up once per schema rather than per
// field. Engine-internal.
#pragma once

#include <binschema/schema.h>

#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <unordered_map>

#include "binschema/dynamic.h"
#include "binschema/layout.h"
#include "binschema/reader.h"
#include "binschema/text.h"

namespace binschema::dynamic {

// A map from model objects (structs, fields) to what the plan keeps of them:
// open addressing on the address, no division, the values at stable
// addresses (the walks look one up per field read or written).
template <class K, class V>
class PtrMap {
 public:
  V& emplace(const K* k, V v) {
    if (V* x = find(k)) return *x;
    if ((n_ + 1) * 2 > slots_.size()) grow();
    vals_.push_back(std::make_unique<V>(std::move(v)));
    put(k, vals_.back().get());
    ++n_;
    return *vals_.back();
  }
  V* find(const K* k) const {
    if (slots_.empty()) return nullptr;
    for (size_t i = hash(k);; i = (i + 1) & (slots_.size() - 1)) {
      if (slots_[i].first == k) return slots_[i].second;
      if (!slots_[i].first) return nullptr;
    }
  }
  V& at(const K* k) const {
    if (V* x = find(k)) return *x;
    throw std::out_of_range("dynamic plan: no such model object");
  }

 private:
  size_t hash(const K* k) const {
    return static_cast<size_t>((reinterpret_cast<uintptr_t>(k) >> 3) * 0x9e3779b97f4a7c15ull >> 20) & (slots_.size() - 1);
  }
  void put(const K* k, V* v) {
    size_t i = hash(k);
    while (slots_[i].first) i = (i + 1) & (slots_.size() - 1);
    slots_[i] = {k, v};
  }
  void grow() {
    std::vector<std::pair<const K*, V*>> old = std::move(slots_);
    slots_.assign(old.empty() ? 64 : old.size() * 2, {nullptr, nullptr});
    for (const auto& [k, v] : old)
      if (k) put(k, v);
  }
  std::vector<std::pair<const K*, V*>> slots_;
  std::vector<std::unique_ptr<V>> vals_;
  size_t n_ = 0;
};

struct FieldPlan;
struct StructPlan;
// decode.cpp: what reading one field needs, decided once per schema
// (make_plan), in the order of the struct's fields. The read walks these,
// not the model's Field objects (2 KiB each: testing a field's checks there
// was a cache miss per check per field read).
struct DecodeStep {
  enum : uint8_t {
    Cursor = 1,     // read at the cursor (not at a fixed offset)
    Cond = 2,       // has an if:
    Plain = 4,      // a number with no check (no if, derive, valid, const, bool, bits, table, bom): loaded and stored
    Virtual = 8,    // nothing to read
    Checks = 16,    // read_scalar: a check or a layout note to make (bom, derive, also, const, zero_when_empty, valid)
    SizeCheck = 32, // read_scalar: its derive: is a size that uses file_size(), checked
    IndexOf = 64,   // read_scalar: an index into a table (index_of:)
    Fixed = 128,    // its size is fixed (resolved.fixed_size)
  };
  const gen::Field* f = nullptr;
  const FieldPlan* fp = nullptr;
  uint64_t offset = 0;  // its fixed offset in the struct
  uint64_t size = 0;    // its size when fixed
  int member = -1;      // in the struct value's members (-1: not in the model)
  uint8_t flags = 0;
  gen::Prim prim = gen::Prim::U8;
  Value::Kind vkind = Value::Kind::Absent;  // Plain: the value's kind and width (prim_value's)
  uint8_t vwidth = 0;
  uint32_t bit0 = 0, nbits = 0;  // a bit word: its bits in StructPlan::bit_steps
  gen::FieldKind kind = gen::FieldKind::Scalar;  // f->kind
  bool target_now = false;  // a pointer whose target is read at once (a string of a scoped pool), not after the struct
  const StructPlan* sub = nullptr;  // a struct-typed field: its struct's plan (no look-up per read)
  // A bit word whose bits are numbers and one-bit bools (none pooled) and
  // whose FieldPlan::bits_def holds no block: read_bits copies bits_def as
  // bytes and writes the numbers.
  bool bits_flat = false;
  // read_struct reads it itself (no read_field): a bit word with no check,
  // not under if: (Lean bits), or an inline struct not under if:.
  enum : uint8_t { NotLean, LeanBits, LeanStruct };
  uint8_t lean = NotLean;
  // How read_simple reads it (StructPlan::simple: every step has one): a
  // plain number, a bit word with no check, a checked bool, a pooled
  // string's pointer (its target read after the fields), a fixed array of
  // numbers, an inline struct that is simple itself.
  enum : uint8_t { NotSimple, SimplePlain, SimpleBits, SimpleBool, SimpleString, SimpleNumbers, SimpleStruct };
  uint8_t simple = NotSimple;
  int pool = -1;             // its pool: (Schema::Plan::pool_index, -1: none)
  bool pool_placed = false;  // that pool is placed (Schema::Plan::placed_pool)
  // An array whose count: names a field of its struct: the count is that
  // field's local (raw[count_index], what eval_u gives for the name), with
  // no look-up per read (-1: the count is evaluated).
  int count_index = -1;
};
// decode.cpp: one bit field of a bit word, as the read needs it.
struct BitStep {
  uint8_t width = 1;
  uint8_t bytes = 1;  // bits_bytes(width)
  bool is_bool = false;
  bool pooled = false;  // a string by offset in a pool (read through the model's Bits)
  uint8_t shift = 0;    // its lowest bit in the word
  uint64_t mask = 1;    // its bits, shifted down
};

// What the walks need of one struct beyond the model.
struct StructPlan {
  bool recursive = false;                  // can hold itself: depth limit and cycle refusal (NestPath)
  const gen::Field* extent = nullptr;      // its `extent: next` pointer field
  std::vector<FieldAt> fields_here;        // fields at fixed offsets, for the probe
  std::vector<const gen::Field*> model;    // its model fields, in text order
  Value empty;                             // the struct as a default-constructed model holds it
  // Filled in once every plan exists:
  Value init = Value::struct_();           // the members a read starts from (names, defaults)
  // Members whose default holds heap (a struct, a union, a fixed-size
  // array): `init` holds them Absent, and a read that leaves one Absent
  // gives it its default at the end (read_struct): a read does not copy a
  // default it then overwrites. (member index, the default)
  std::vector<std::pair<int, const Value*>> heavy;
  std::vector<const struct FieldPlan*> fp; // by field index
  std::vector<int> scoped_pools;           // pools whose scope is this struct (not block pools)
  bool has_tags = false, has_dic = false;
  std::vector<DecodeStep> decode;          // decode.cpp: one per field, in order
  bool has_mulhash = false;                // a field's derive: calls mulhash (checked after the read)
  std::vector<BitStep> bit_steps;          // the bits of its bit words (DecodeStep::bit0, nbits)
  // decode.cpp: a small fixed struct read with no frame (read_simple): not
  // the root, not recursive, no end, extent, pools, tags, DIC or mulhash;
  // each field at its fixed offset, with no if: and nothing an expression
  // reads (DecodeStep::simple).
  bool simple = false;
  const gen::Struct* st = nullptr;  // the model's struct
  // decode.cpp: `init` holds no block (no string, struct, array or union
  // with contents): a read copies its members as bytes (Fields::assign_flat).
  bool init_flat = false;
};

// What one field needs.
struct FieldPlan {
  Value def;                       // the model's value before anything is read (default_init)
  Value bits_def;                  // a bit word: every bit at its default
  size_t index = 0;                // in the struct's fields
  int member = -1;                 // in the struct value's members (-1: not in the model)
  int tag = -1;                    // a union: the index of its tag field (-1: none, tag_shift)
  int zero = -1;                   // zero_when_empty: the index of the count field
  std::string_view name;           // the field's name, interned (Member::name)
  const char* what = "";           // "Struct.field" (messages, layout traces), lasting
  bool cond_default_struct = false;
  // An if: the text evaluates from the model (gen_cpp_types.cpp text_cond),
  // derived values spelt out: the field is left out of the text while it is
  // false, and refused in text then. Null: a plain field in text.
  std::shared_ptr<const gen::Expr> text_cond;
  // decode.cpp, a union: its cases' tags (in case order, to find the case
  // read without touching the model's Case objects), whether its tag field
  // is signed (messages).
  std::vector<uint64_t> case_tags;
  bool tag_signed = false;
  // The case of each tag from case_min on, when they span under 1024 (-1:
  // none): the case found by one load rather than a loop over the tags.
  std::vector<int16_t> case_at;
  uint64_t case_min = 0;
  // What reading each case needs first, in case order, without touching
  // the model's Case and Field objects (a cache miss each per union read).
  struct CaseStep {
    uint32_t id = 0;        // the case's name, interned (intern_id): the decode and text in make the union with no look-up
    uint64_t padded = 0;    // its size padded to pad_to
    uint8_t kind = 0;       // gen::CaseKind
    uint8_t width = 0;      // its pointer's width
    gen::Prim prim = gen::Prim::U8;
    bool fixed = false;     // its size is fixed
    bool plain = false;     // a Number with no table and no bool check
    const StructPlan* sub = nullptr;  // a struct case: its struct's plan
  };
  std::vector<CaseStep> case_steps;
};

struct Schema::Plan {
  const gen::Schema* s = nullptr;
  // What the writer does not do yet (encode.cpp check_encode_support), at the
  // key that asks for it: encode() throws it; decode and text out work.
  std::optional<gen::SchemaError> encode_refusal;
  const gen::Struct* root = nullptr;
  size_t tables = 0;  // the root's table: fields (index_of: strings), numbered by Field::table.id
  // The names the text shows for hashes (hash_of:) beyond the run-time list:
  // the algorithms of the hash_of: fields and the schema's names: list, as
  // the generated to_text's kHashNames (has_hash_names: there is a hash_of:).
  std::vector<const char*> hash_algos, hash_defaults;
  text::HashNames hash_names;
  bool has_hash_names = false;
  PtrMap<gen::Struct, StructPlan> structs;
  PtrMap<gen::Field, FieldPlan> fields;
  // How a field with names is spelt in text (gen_cpp_types.cpp's text_T_f).
  struct SpellData {
    text::Spell spell;
    std::vector<text::EnumValue> enums;
  };
  std::unordered_map<const gen::Field*, std::unique_ptr<SpellData>> spells;
  const SpellData* spell(const gen::Field* f) const {
    const auto it = spells.find(f);
    return it == spells.end() ? nullptr : it->second.get();
  }
  const StructPlan& of(const gen::Struct* st) const { return structs.at(st); }
  const FieldPlan& of(const gen::Field* f) const { return fields.at(f); }
  // Layout pools (a string pool of the whole file, whose order a layout keeps).
  static bool layout_pool(const gen::Pool& p) {
    return p.scope.empty() && (p.kind == gen::Pool::Kind::CString || p.kind == gen::Pool::Kind::Pascal16);
  }
  // A string pool placed by the root's `type: pool` field that is its base:.
  bool placed_pool(const gen::Pool& p) const {
    const gen::Field* f = p.base.empty() ? nullptr : root->field(p.base);
    return f && f->type.kind == gen::ValueType::PoolBlock;
  }
  int pool_index(const std::string& name) const {
    for (size_t i = 0; i < s->pools.size(); ++i)
      if (s->pools[i].name == name) return static_cast<int>(i);
    return -1;
  }
  // encode.cpp: the writer's steps per struct (what to write for each field,
  // decided once), made by the first encode of this schema.
  struct Steps;
  mutable std::once_flag steps_once;
  mutable std::shared_ptr<const Steps> steps;
};

// Whether an expression's operator (or name) is `lit`: a length and a byte
// or two compared inline (std::string == "x" was strlen and compare per
// evaluation).
template <size_t N>
inline bool is_op(const std::string& s, const char (&lit)[N]) {
  if (s.size() != N - 1) return false;
  for (size_t i = 0; i + 1 < N; ++i)
    if (s[i] != lit[i]) return false;
  return true;
}

// Builds the plan; throws gen::SchemaError (file:line:col) for what the
// engine does not support yet.
std::shared_ptr<const Schema::Plan> make_plan(const gen::Schema& s);

// The value a model field holds before it is read (or when its if: is false):
// what the generated struct's member initialiser gives.
Value default_value(const Schema::Plan& p, const gen::Field& f, int depth = 0);

// decode.cpp: bytes -> value, the byte order picked as generated decode does.
Value decode_any(const Schema::Plan& p, std::span<const uint8_t> bytes, Layout* lay);
// encode.cpp: the generated encode_laid (value -> bytes with a layout to follow
// and a trace to fill), which decode(bytes, layout) runs once.
std::vector<uint8_t> encode_laid(const Schema& s, const Value& v, const Layout* lay, LayoutTrace* trace);

// Text spelling of the C++ default literal of a field (default_text) as a value of f.
Value parse_default(const gen::Field& f, const std::string& text);

// The width of an integer's model type in bytes (hex digits are twice it):
// u24/s24 are held in 32 bits.
inline unsigned model_bytes(gen::Prim p) {
  const uint64_t n = gen::prim_size(p);
  return n == 3 ? 4 : static_cast<unsigned>(n);
}
inline unsigned bits_bytes(unsigned width) { return width <= 8 ? 1 : width <= 16 ? 2 : width <= 32 ? 4 : 8; }

// A scalar of primitive p with the raw (zero- or sign-extended) value
// `raw`, stored into v in place (a temporary moved in read its kind and
// width, just written a byte each, back as one word: a store-forwarding
// stall per number, most of an array of numbers' read).
inline void put_prim(Value& v, gen::Prim p, uint64_t raw) {
  switch (p) {
    case gen::Prim::Bool8: return v.set_number(Value::Kind::Bool, 1, raw != 0);
    case gen::Prim::Bool32: return v.set_number(Value::Kind::Bool, 4, raw != 0);
    case gen::Prim::F32: return v.set_number(Value::Kind::Float, 4, raw & 0xffffffffu);
    case gen::Prim::F64: return v.set_number(Value::Kind::Double, 8, raw);
    default: break;
  }
  v.set_number(gen::prim_is_signed(p) ? Value::Kind::Int : Value::Kind::UInt, static_cast<uint8_t>(gen::prim_size(p)), raw);
}
inline Value prim_value(gen::Prim p, uint64_t raw) {
  Value v;
  put_prim(v, p, raw);
  return v;
}

}  // namespace binschema::dynamic

namespace binschema::dynamic {
// encode.cpp: refuses (gen::SchemaError at file:line:col) what the writer
// does not do yet; make_plan keeps the refusal for encode().
void check_encode_support(const gen::Schema& s);
}  // namespace binschema::dynamic
