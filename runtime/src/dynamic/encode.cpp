// The run-time engine's writer (binschema/dynamic.h): a Value -> the bytes
// the generated encode() writes, with or without a layout.
//
// This is the walk of generator/gen_cpp_write.cpp (put_T, place_T, the
// pools and the root's frame of gen_cpp_text.cpp's encode_body) done over
// the schema at run time instead of printed as C++: each function below is
// named after the generator function whose code it runs, and calls the same
// runtime pieces (Writer, StringPool, DataPool, relocation table, Layout) in
// the same order, so that both give the same bytes. What the engine does not
// do yet is refused when the schema is loaded (refusals(), below).
#include <algorithm>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <memory>
#include <optional>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "binschema/byte_order.h"
#include "binschema/block_pool.h"
#include "binschema/data_pool.h"
#include "binschema/dic.h"
#include "plan.h"
#include "binschema/error.h"
#include "binschema/hash.h"
#include "binschema/layout.h"
#include "binschema/relocation.h"
#include "binschema/string_pool.h"
#include "binschema/string_table.h"
#include "binschema/writer.h"

namespace binschema::dynamic {

using gen::Case;
using gen::CaseKind;
using gen::Expr;
using gen::Field;
using gen::FieldKind;
using gen::Fn;
using gen::LayoutItem;
using gen::Pool;
using gen::Prim;
using gen::Struct;
using gen::ValueType;


// Encode-side refusals (make_plan keeps the first; encode() throws it, decode
// and text out work). Every shape of the language is written; hooks (C++
// beside the schema, run on the model before it is written) run only where
// they are compiled in: encoding without them would write other bytes, so a
// schema with hooks is refused, at the hook (file:line:col).
void check_encode_support(const gen::Schema& s) {
  for (const auto& h : s.hooks)
    throw gen::SchemaError(h.loc, "hook '" + h.name + "' (on " + h.on + "): hooks run only where they are compiled in (binschema's own " + s.format +
                                      "); the run-time engine cannot write what they compute");
}

}  // namespace binschema::dynamic
namespace binschema::dynamic {

namespace {

// ---- Reading a Value --------------------------------------------------------

const Value& empty_struct() {
  static const Value v = Value::struct_();
  return v;
}

// (Inline: a count, and each sum of counts that names it, is one per struct written.)
[[gnu::always_inline]] inline uint64_t length(const Value& v) {
  switch (v.kind) {
    case Value::Kind::Array: return v.items().size();
    case Value::Kind::String:
    case Value::Kind::Bytes: return v.str().size();
    default: return 0;
  }
}

// A number as the generated code's uint64_t(x.f) gives it.
uint64_t num(const Value& v) {
  switch (v.kind) {
    case Value::Kind::Bool: return v.as_uint() != 0;
    case Value::Kind::Float: {
      const double d = v.as_double();
      return d < 0 ? static_cast<uint64_t>(static_cast<int64_t>(d)) : static_cast<uint64_t>(d);
    }
    case Value::Kind::Double: {
      const double d = v.as_double();
      return d < 0 ? static_cast<uint64_t>(static_cast<int64_t>(d)) : static_cast<uint64_t>(d);
    }
    default: return v.as_uint();  // a union: its tag
  }
}

// Model equality of two values of one type (shared targets): the type is
// part of the value, as the generated code's same_value<T> tells types apart.
struct Typed {
  const Value* v;
  const std::string* type;
  bool operator==(const Typed& o) const { return type == o.type && *v == *o.v; }
};

size_t hash_of(const Value& v) {
  size_t h = std::hash<uint64_t>()(v.as_uint()) ^ (static_cast<size_t>(v.kind) << 3);
  auto mix = [&](size_t x) { h ^= x + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2); };
  mix(std::hash<std::string>()(v.str()));
  mix(v.case_id());
  for (const auto& m : v.fields()) mix(hash_of(m.value));
  for (const auto& e : v.items()) mix(hash_of(e));
  return h;
}

// ---- The schema helpers of gen_cpp_write.cpp ----------------------------------

bool plain_struct(const gen::Schema& s, const Struct& st) {
  if (!st.fixed_size || st.has_children || st.has_self) return false;
  for (const auto& p : s.pools)
    if (p.scope == st.name) return false;
  for (const auto& f : st.fields) {
    if (!f->region.empty() || f->is_virtual) return false;
    if (f->role.derive && (gen::is_late(*f->role.derive) || f->role.derive_pointer)) return false;
    switch (f->kind) {
      case FieldKind::Scalar:
      case FieldKind::Chars: break;
      case FieldKind::BitWord:
        for (const auto& b : f->bits)
          if (!b.pool.empty()) return false;
        break;
      case FieldKind::InlineStruct:
        if (!plain_struct(s, *f->type.st)) return false;
        break;
      case FieldKind::InlineArray:
        if (f->type.kind == ValueType::Struct && !plain_struct(s, *f->type.st)) return false;
        break;
      case FieldKind::Union:
        for (const auto& c : f->variant.cases)
          if (c.kind != CaseKind::Number && c.kind != CaseKind::Numbers && !(c.kind == CaseKind::Struct && plain_struct(s, *c.field->type.st)))
            return false;
        break;
      default: return false;
    }
  }
  return true;
}

const Field* context_pointer(const gen::Schema& s, const Struct& st, const Expr& e) {
  if (e.kind != Expr::Ident || st.field(e.name) || e.name.find('.') != std::string::npos) return nullptr;
  const Field* g = s.find(s.root)->field(e.name);
  return g && g->pointer.width ? g : nullptr;
}

bool write_evaluable(const gen::Schema& s, const Struct& st, const Expr& e) {
  if (e.calls(Fn::Until) || (e.kind == Expr::Call && gen::is_late(e))) return false;
  if (e.kind == Expr::Ident && !st.field(e.name) && e.name.find('.') == std::string::npos) {
    const Field* g = s.find(s.root)->field(e.name);
    if (g && g->pointer.width) return false;
  }
  if (const Field* g = e.kind == Expr::Ident ? st.field(e.name) : nullptr; g && g->role.derive && gen::is_late(*g->role.derive)) return false;
  if ((e.calls(Fn::Sum) || e.calls(Fn::Max)) && e.args[0].kind == Expr::Ident && st.field(e.args[0].name) && st.field(e.args[0].name)->array.on)
    return write_evaluable(s, *st.field(e.args[0].name)->type.st, e.args[1]);
  for (const auto& a : e.args)
    if (!write_evaluable(s, st, a)) return false;
  return true;
}

bool count_checked(const gen::Schema& s, const Struct& st, const Expr& e) {
  if (e.kind == Expr::Ident) {
    const Field* c = st.field(e.name);
    if (c && !c->resolved.count_for.empty()) return false;
  }
  const std::function<bool(const Expr&, bool)> unknown = [&](const Expr& x, bool in_call) {
    if (const Field* d = x.kind == Expr::Ident ? st.field(x.name) : nullptr; d && d->role.derive && gen::is_late(*d->role.derive))
      return unknown(*d->role.derive, in_call);
    if (const Field* g = context_pointer(s, st, x); g && (in_call || !g->resolved.fixed_offset || s.find(s.root)->has_self)) return true;
    if (x.calls(Fn::Until) || (x.calls(Fn::FileSize) && in_call)) return true;
    for (const auto& a : x.args)
      if (unknown(a, in_call || x.kind == Expr::Call)) return true;
    return false;
  };
  return !unknown(e, false);
}

uint64_t padded_size(const Field& u, const Field& p) {
  return (p.resolved.size + u.variant.pad_to - 1) / u.variant.pad_to * u.variant.pad_to;
}
// The size of one element of a union[] as the generated code takes it (the last case's).
uint64_t union_elem_size(const Field& u) {
  uint64_t size = 0;
  for (const auto& c : u.variant.cases) size = padded_size(u, *c.field);
  return size;
}

// Whether place_ looks up where field f went (at_var of the generator).
bool placed_later(const Field& f) {
  return f.pointer.width || f.pointer.elem_width || (f.type.kind == ValueType::Struct && f.type.st->has_children) ||
         (f.type.kind == ValueType::Union && f.array.on);
}

}  // namespace

// ---- The steps: what the writer does for each field, decided once ----------

namespace enc {

// What the generator decides per field once, kept for the whole write.
struct Checks {
  bool count_checked = false, count_evaluable = false;
  std::string count_text;  // the count's expression, for messages (once per field, not per write)
  bool derive_scoped = false, derive_late = false;  // a derived value: over a scoped pool, late (gen::)
};

Checks make_checks(const gen::Schema& s, const Struct& st, const Field& f) {
  Checks c;
  if (f.array.count) {
    c.count_checked = count_checked(s, st, *f.array.count);
    c.count_evaluable = write_evaluable(s, st, *f.array.count);
    if (c.count_checked) c.count_text = gen::expr_text(*f.array.count);
  }
  if (f.role.derive) {
    c.derive_scoped = gen::uses_scoped_pool(s, *f.role.derive);
    c.derive_late = gen::is_late(*f.role.derive);
  }
  return c;
}

// A number of one primitive type as the writer checks and stores it: the
// common case (a value of the type's own kind that fits) without fit()'s
// general conversions.
struct Num {
  Value::Kind want = Value::Kind::Absent;  // Absent: always the general way
  uint8_t bits = 64;                       // the value's range (64: any)
  uint8_t size = 0;                        // bytes stored (1, 2, 4, 8)
  bool is_signed = false;
};
inline Num num_of(Prim p) {
  Num n;
  switch (p) {
    case Prim::U24:
    case Prim::S24: return n;  // 24-bit stores check their own range
    case Prim::Bool8: n = {Value::Kind::Bool, 1, 1, false}; return n;
    case Prim::Bool32: n = {Value::Kind::Bool, 1, 4, false}; return n;
    case Prim::F32: n = {Value::Kind::Float, 64, 4, false}; return n;
    case Prim::F64: n = {Value::Kind::Double, 64, 8, false}; return n;
    default: break;
  }
  const uint8_t size = static_cast<uint8_t>(gen::prim_size(p));
  n.is_signed = gen::prim_is_signed(p);
  n.want = n.is_signed ? Value::Kind::Int : Value::Kind::UInt;
  n.size = size;
  n.bits = static_cast<uint8_t>(8 * size);
  return n;
}
// Whether v is a value of n's own kind in its range: stored as v.as_uint().
[[gnu::always_inline]] inline bool num_fits(const Num& n, const Value& v) {
  if (v.kind != n.want) return false;  // (an Absent n fits an absent v: callers with such an n check n.want first)
  if (n.bits >= 64) return true;
  if (!n.is_signed) return (v.number_bits() >> n.bits) == 0;  // a number: its kind is n.want
  const int64_t i = static_cast<int64_t>(v.number_bits());
  const unsigned sh = 64u - n.bits;
  return static_cast<int64_t>(static_cast<uint64_t>(i) << sh) >> sh == i;
}

enum class Op : uint8_t {
  General,  // put_field
  Num,      // a plain number at its place: fit and store (put_scalar's last branch, nothing else applies)
  Nums,     // a plain fixed-size array of numbers (put_inline_array's first loop, nothing else applies)
  // put_field's work with nothing around it (no if:, region, prelude,
  // until(), noted place): put_ does it itself, not through put_field's
  // entry and its switch on the field's kind (a call and a cache line of
  // checks per field written).
  Scalar,   // put_scalar's short ways (Step::scalar is not Other: a derived value, a count, a tag, a bit word, a constant)
  Struct,   // a struct in place, in the model: put_ of its steps over the member
};

// A union field's cases: their tags and names (intern_id: a union value
// holds its case's) side by side, and by the low bits of the tag the one
// case of that slot (-1: none; -2: more than one).
struct CaseKey {
  uint64_t tag;
  uint32_t id;
};
struct CaseKeys {
  static constexpr size_t kSlots = 64;
  std::vector<CaseKey> keys;
  int16_t by_tag[kSlots];
  explicit CaseKeys(const gen::Field& u) {
    std::fill(std::begin(by_tag), std::end(by_tag), int16_t(-1));
    for (const auto& c : u.variant.cases) keys.push_back({static_cast<uint64_t>(c.tag), intern_id(c.name)});
    for (size_t i = 0; i < keys.size(); ++i) {
      int16_t& slot = by_tag[keys[i].tag & (kSlots - 1)];
      slot = slot == -1 && i < 0x7fff ? static_cast<int16_t>(i) : -2;
    }
  }
};

struct StructSteps;
struct Step {
  // The hot part first (put_ reads these for every field written): one cache line.
  Op op = Op::General;
  bool cursor = false;           // written at the cursor (a variable offset, or under if:)
  bool fixed_size = false;
  bool prelude = false;             // put_field's checks before the write (offsets_of:, a union[]'s tags, a count, a shared count)
  int member = -1;               // in the struct value's members (-1: not in the model)
  Num num;                       // Op::Num, and a bit word's store
  const char* name = nullptr;    // interned: a member is recognised by the pointer (name.data())
  uint64_t offset = 0, size = 0;    // f.resolved
  const gen::Expr* cond = nullptr;  // its if:
  const Field* f = nullptr;
  const StructSteps* sub = nullptr;  // an inline struct or an array of structs: its type's steps
  FieldKind kind = FieldKind::Scalar;  // f's (put_field's switch: f itself was a miss per field)
  bool in_model = false;             // f.in_model()
  bool note_inline = false;          // an inline struct with children at a variable offset: its place noted (at_)
  uint64_t pad = 0;                  // f.pad
  uint64_t elem_width = 0;           // f.pointer.elem_width
  // put_scalar's common cases, decided once (Other: its general way).
  enum class Scalar : uint8_t {
    Other,
    Derive,  // derive: E, known at once (not late, not over a scoped pool, no also:, not a pointer)
    DeriveAlso,  // the same with also: (a value the layout kept, when it is E or one of those)
    Count,   // the count of an array of this struct
    Bits,    // a bit word with no pooled bits
    Const,   // a constant (const: N, or reserved: not in the model) with nothing else to check: `value`
    Tag,     // the tag of a union (not an array), nothing else: its case's tag
  };
  Scalar scalar = Scalar::Other;
  uint8_t width = 0;                  // prim_size(f.type.prim)
  Prim prim = Prim::U8;               // f.type.prim
  const gen::Expr* derive = nullptr;  // Scalar::Derive, DeriveAlso: E
  std::vector<uint64_t> also;         // Scalar::DeriveAlso: f.role.also
  struct Bit {
    uint8_t width = 1;
    bool is_bool = false;
    uint8_t shift = 0;      // the bits before it
    uint64_t over = 0;      // the bits above the largest value put_bits stores as it is (a bool's: 1)
  };
  std::vector<Bit> bit_info;          // Scalar::Bits: its bits
  const Shape* bits_shape = nullptr;  // a bit word: the shape of its bits' names in order (a word of that shape: bit i is member i)
  // What the walk reads of f on every write, here (a gen::Field is over 2 KB:
  // these were as many cache lines of it).
  bool at_var = false;           // and place_ looks up where it went
  int region = -1;               // the region the field is (not a pointer's)
  std::string_view name_view;    // the interned name
  const char* what = "";         // "Struct.field"
  Checks checks;
  std::vector<std::string_view> bits;  // a bit word: its bits' names, interned
  // The struct's other fields this one names (null: none).
  const Step* count_for = nullptr;     // the array it counts
  const Step* tag_for = nullptr;       // the union it tags
  const Step* count_shared = nullptr;  // the array counted by the same field
  const Step* zero_counted = nullptr;  // zero_when_empty: the array the named count counts
  bool until = false;                  // runs until(E): checked to end where E says
  uint8_t pwidth = 0;                  // prim_size(f.type.prim), whatever f's type (put_scalar's general way)
  uint64_t value = 0;                  // Scalar::Const: the number stored
  // A union field: what put_union_one decides per case, in the cases' order.
  struct CaseStep {
    const Field* p = nullptr;             // the case's field
    uint64_t padded = 0;                  // padded_size(f, p)
    bool count_check = false;             // its count is checked against the value (worked out once)
    bool tail = false;                    // a struct of no fixed size, written after the rest
    bool reserve = false;                 // its room is reserved at the cursor
    uint64_t elem = 1;                    // the size of an element of it (a variable-size case's room)
    Num num;                              // CaseKind::Number with no index_of: or true: (Absent: the general way)
    Num elems;                            // CaseKind::Numbers: elem_num
    const StructSteps* sub = nullptr;     // CaseKind::Struct: its steps
  };
  std::vector<CaseStep> cases;
  // What place_ reads of f for each struct placed (f's own lines were a miss each).
  bool has_ptr = false;     // f.pointer.width
  bool in_section = false;  // !f.section.empty()
  bool array_on = false;    // f.array.on
  uint32_t id = 0;          // among all the schema's steps (the writer's state per step)
  std::shared_ptr<const CaseKeys> case_keys;  // a union: its cases' tags and names
};

struct StructSteps {
  const Struct* st = nullptr;
  // The shape of its model members in order (null: none can be made): a
  // value of this shape has member k.member named k's name, for every step
  // k (one compare per struct value, not a name compare per member read).
  const Shape* shape = nullptr;
  std::vector<Step> steps;     // by field index
  std::vector<size_t> scoped;  // the pools whose scope is this struct
  std::vector<const Step*> layout;    // by layout item: the field it names (null: none)
  std::vector<const Step*> unions;    // union fields with a case that place_ follows
  std::vector<const Step*> children;  // inline struct fields with children that no layout item names
  bool reaches_index = false;         // gen::reaches_index (a std::set per call)
  bool fixed_size = false;            // st->fixed_size, st->prefix (put_ reads them per struct value: the model's Struct was a line more)
  uint64_t prefix = 0;
  bool plain = false;                 // plain_struct (a leaf target)
  // collect_T: the fields that can hold a string of a table (index_of:,
  // a struct that reaches one, a union with such a case), in order.
  std::vector<const Step*> collect;
  // Its bytes fields aligned by another field (align_inner): the field, and the bytes' offset.
  std::vector<std::pair<const Field*, uint64_t>> inner_align;
  size_t index = 0;  // its place in the schema's structs (the writer's tables by struct)
};

}  // namespace enc

struct Schema::Plan::Steps {
  PtrMap<gen::Struct, enc::StructSteps> structs;
  uint32_t count = 0;  // steps in all (Step::id)
};

namespace {

std::shared_ptr<const Schema::Plan::Steps> make_steps(const Schema::Plan& p) {
  const gen::Schema& s = *p.s;
  auto r = std::make_shared<Schema::Plan::Steps>();
  for (const auto& stp : s.structs) {
    const Struct& st = *stp;
    enc::StructSteps ss;
    ss.st = &st;
    ss.index = static_cast<size_t>(&stp - s.structs.data());
    for (size_t i = 0; i < s.pools.size(); ++i)
      if (s.pools[i].scope == st.name) ss.scoped.push_back(i);
    for (const auto& fp : st.fields) {
      const Field& f = *fp;
      enc::Step k;
      k.f = &f;
      if (const FieldPlan* pl = p.fields.find(&f)) {
        k.member = pl->member;
        k.name = pl->name.data();
        k.name_view = pl->name;
        k.what = pl->what;
      }
      k.checks = enc::make_checks(s, st, f);
      k.kind = f.kind;
      k.in_model = f.in_model();
      k.pad = f.pad;
      k.elem_width = static_cast<uint64_t>(f.pointer.elem_width);
      k.note_inline = f.type.kind == ValueType::Struct && f.type.st && f.type.st->has_children && (!f.resolved.fixed_offset || f.cond);
      k.cursor = !f.resolved.fixed_offset || f.cond;
      k.cond = f.cond ? &*f.cond : nullptr;
      k.offset = f.resolved.offset;
      k.size = f.resolved.size;
      k.fixed_size = f.resolved.fixed_size;
      k.prelude = !f.table.offsets_of.empty() || (f.kind == FieldKind::InlineArray && !f.resolved.tag_for.empty()) || f.array.count ||
                  !f.resolved.count_shared.empty();
      k.at_var = k.cursor && placed_later(f);
      k.region = !f.pointer.width && !f.region.empty() ? s.region_id(f.region) : -1;
      for (const auto& b : f.bits) k.bits.push_back(intern(b.name));
      if (!k.bits.empty()) k.bits_shape = Shape::of(k.bits);
      k.prim = f.type.prim;
      k.pwidth = static_cast<uint8_t>(gen::prim_size(f.type.prim));
      k.has_ptr = f.pointer.width != 0;
      k.in_section = !f.section.empty();
      k.array_on = f.array.on;
      if (f.type.kind == ValueType::Prim) k.width = static_cast<uint8_t>(gen::prim_size(f.type.prim));
      if ((f.kind == FieldKind::Scalar || f.kind == FieldKind::BitWord) && f.type.kind == ValueType::Prim && !f.bom) {
        if (f.role.derive) {
          if (!k.checks.derive_scoped && !k.checks.derive_late && !f.role.derive_pointer) {
            k.scalar = f.role.also.empty() ? enc::Step::Scalar::Derive : enc::Step::Scalar::DeriveAlso;
            k.derive = &*f.role.derive;
            for (int64_t a : f.role.also) k.also.push_back(static_cast<uint64_t>(a));
          }
        } else if (!f.resolved.count_for.empty()) {
          k.scalar = enc::Step::Scalar::Count;  // (its step is found below)
        } else if (!f.resolved.tag_for.empty()) {
          if (f.kind == FieldKind::Scalar) k.scalar = enc::Step::Scalar::Tag;  // (its union's step is found below)
        } else if (f.kind == FieldKind::Scalar && f.table.index_of.empty() && !f.true_value && (f.role.const_int || !f.in_model()) &&
                   f.role.zero_when_empty.empty() && (f.role.valid.empty() || f.role.const_int)) {
          // put_scalar's last branch with nothing to check: its constant stored
          k.scalar = enc::Step::Scalar::Const;
          k.value = f.role.const_int ? static_cast<uint64_t>(*f.role.const_int) : 0;
        } else if (f.resolved.tag_for.empty() && f.kind == FieldKind::BitWord &&
                   std::none_of(f.bits.begin(), f.bits.end(), [](const Field::Bits& b) { return !b.pool.empty(); })) {
          k.scalar = enc::Step::Scalar::Bits;
          unsigned shift = 0;
          for (const auto& b : f.bits) {
            // (A bool's is 1: its 0 and 1 are stored as they are, any other
            // number goes put_bits' general way, which takes it as true.)
            const uint64_t limit = b.is_bool ? 1 : b.width >= 64 ? ~uint64_t(0) : (uint64_t(1) << b.width) - 1;
            k.bit_info.push_back({static_cast<uint8_t>(b.width), b.is_bool, static_cast<uint8_t>(shift), ~limit});
            shift += b.width;
          }
        }
      }
      if (f.type.kind == ValueType::Prim && !f.array.on) k.num = enc::num_of(f.type.prim);
      const bool plain = f.kind == FieldKind::Scalar && f.type.kind == ValueType::Prim && !f.array.on && f.in_model() && k.member >= 0 &&
                         f.resolved.fixed_size && !f.bom && !f.role.derive && f.resolved.count_for.empty() && f.resolved.tag_for.empty() &&
                         f.table.index_of.empty() && f.table.offsets_of.empty() && !f.true_value && !f.role.const_int &&
                         f.role.zero_when_empty.empty() && f.role.valid.empty() && !f.array.count && f.resolved.count_shared.empty() &&
                         !f.size_expr && !f.cond && f.bits.empty() && k.region < 0 && !placed_later(f) && k.num.want != Value::Kind::Absent;
      if (plain) k.op = enc::Op::Num;
      const bool nums = f.kind == FieldKind::InlineArray && f.type.kind == ValueType::Prim && f.array.on && f.array.fixed_count &&
                        f.resolved.fixed_size && f.in_model() && k.member >= 0 && !k.prelude && !f.cond && k.region < 0 && !f.pad &&
                        !placed_later(f) && f.array.sort.empty() && f.type.prim != Prim::Bool8 && f.type.prim != Prim::Bool32 &&
                        !f.size_expr && f.bits.empty();
      if (nums) {
        k.num = enc::num_of(f.type.prim);
        if (k.num.want != Value::Kind::Absent) k.op = enc::Op::Nums;
      }
      if (f.type.kind == ValueType::Union)
        for (const auto& c : f.variant.cases) {
          const Field& p = *c.field;
          enc::Step::CaseStep cs;
          cs.p = &p;
          cs.padded = padded_size(f, p);
          if (p.array.count) {
            const Field* n = p.array.count->kind == Expr::Ident ? st.field(p.array.count->name) : nullptr;
            const Expr* d = n && n->role.derive ? &*n->role.derive : nullptr;
            const bool items = d && d->calls(Fn::Items) && d->args[0].name == f.name;
            const enc::Checks ck = enc::make_checks(s, st, p);
            cs.count_check = !items && ck.count_checked && ck.count_evaluable;
          }
          cs.tail = c.kind == CaseKind::Struct && !p.type.st->fixed_size;
          cs.reserve = !f.resolved.fixed_size && !f.array.on && !cs.tail;
          cs.elem = p.pointer.elem_width ? static_cast<uint64_t>(p.pointer.elem_width) : p.type.kind == ValueType::Prim ? gen::prim_size(p.type.prim) : 1;
          if (c.kind == CaseKind::Number && p.table.index_of.empty() && !p.true_value) cs.num = enc::num_of(p.type.prim);
          if (c.kind == CaseKind::Numbers)
            cs.elems = p.type.prim == Prim::Bool8 || p.type.prim == Prim::Bool32 ? enc::Num{} : enc::num_of(p.type.prim);
          k.cases.push_back(cs);
        }
      if (f.type.kind == ValueType::Union) {
        k.case_keys = std::make_shared<const enc::CaseKeys>(f);
      }
      k.id = r->count++;
      const gen::Expr* until = f.size_expr ? &*f.size_expr : f.array.count ? &*f.array.count : nullptr;
      k.until = until && until->calls(Fn::Until) && !f.cond;
      ss.steps.push_back(std::move(k));
    }
    {
      std::vector<std::string_view> names(ss.steps.size());
      size_t members = 0;
      for (const auto& k : ss.steps)
        if (k.member >= 0 && static_cast<size_t>(k.member) < names.size() && names[static_cast<size_t>(k.member)].empty()) {
          names[static_cast<size_t>(k.member)] = k.name_view;
          ++members;
        }
      names.resize(members);
      if (std::none_of(names.begin(), names.end(), [](std::string_view n) { return n.empty(); })) ss.shape = Shape::of(names);
    }
    auto step = [&](const std::string& name) -> const enc::Step* {
      for (const auto& k : ss.steps)
        if (k.f->name == name) return &k;
      return nullptr;
    };
    for (auto& k : ss.steps) {
      const Field& f = *k.f;
      if (!f.resolved.count_for.empty()) k.count_for = step(f.resolved.count_for);
      if (k.scalar == enc::Step::Scalar::Count && !k.count_for) k.scalar = enc::Step::Scalar::Other;
      if (!f.resolved.tag_for.empty()) k.tag_for = step(f.resolved.tag_for);
      if (k.scalar == enc::Step::Scalar::Tag && (!k.tag_for || k.tag_for->f->array.on || k.tag_for->f->type.kind != ValueType::Union))
        k.scalar = enc::Step::Scalar::Other;
      if (!f.resolved.count_shared.empty()) k.count_shared = step(f.resolved.count_shared);
      if (!f.role.zero_when_empty.empty())
        if (const enc::Step* z = step(f.role.zero_when_empty)) k.zero_counted = step(z->f->resolved.count_for);
    }
    for (auto& k : ss.steps) {
      if (k.op != enc::Op::General || k.cond || k.region >= 0 || k.prelude || k.until || k.at_var) continue;
      if ((k.kind == FieldKind::Scalar || k.kind == FieldKind::BitWord) && k.scalar != enc::Step::Scalar::Other) k.op = enc::Op::Scalar;
      else if (k.kind == FieldKind::InlineStruct && k.in_model && !k.note_inline) k.op = enc::Op::Struct;
    }
    for (const auto& li : st.layout) ss.layout.push_back(step(li.name));
    for (const auto& k : ss.steps) {
      const Field& u = *k.f;
      if (u.type.kind != ValueType::Union) continue;
      if (std::any_of(u.variant.cases.begin(), u.variant.cases.end(), [](const Case& c) { return c.places_targets(); }))
        ss.unions.push_back(&k);
    }
    for (const auto& k : ss.steps) {
      const Field& f = *k.f;
      if (f.pointer.width || f.pointer.elem_width || f.type.kind != ValueType::Struct || !f.type.st->has_children || !f.in_model()) continue;
      bool named = false;
      for (const auto& li : st.layout) named = named || (li.kind == LayoutItem::Children && li.name == f.name);
      if (!named) ss.children.push_back(&k);
    }
    ss.reaches_index = gen::reaches_index(st);
    ss.fixed_size = st.fixed_size;
    ss.prefix = st.prefix;
    ss.plain = plain_struct(s, st);
    for (const auto& k : ss.steps) {
      const Field& f = *k.f;
      if (!f.in_model()) continue;
      auto reaching = [](const Field& p) { return p.type.kind == ValueType::Struct && p.type.st && gen::reaches_index(*p.type.st); };
      bool c = !f.table.index_of.empty() || reaching(f);
      if (f.type.kind == ValueType::Union)
        c = std::any_of(f.variant.cases.begin(), f.variant.cases.end(),
                        [&](const Case& cs) { return !cs.field->table.index_of.empty() || reaching(*cs.field); });
      if (c) ss.collect.push_back(&k);
    }
    for (const auto& g : st.fields)
      if (g->type.kind == ValueType::Bytes && !g->pointer.width && !g->pointer.align_field.empty())
        ss.inner_align.emplace_back(st.field(g->pointer.align_field), g->resolved.offset);
    r->structs.emplace(&st, std::move(ss));
  }
  // Each step's struct type's steps (they are at stable addresses now).
  for (const auto& stp : s.structs)
    for (auto& k : r->structs.at(stp.get()).steps) {
      if (k.f->type.kind == ValueType::Struct && k.f->type.st) k.sub = &r->structs.at(k.f->type.st);
      for (size_t i = 0; i < k.cases.size(); ++i)
        if (k.f->variant.cases[i].kind == CaseKind::Struct) k.cases[i].sub = &r->structs.at(k.cases[i].p->type.st);
    }
  return r;
}

// ---- The writer ---------------------------------------------------------------

template <std::endian E>
class Encoder {
 public:
  Encoder(const gen::Schema& s, const Schema::Plan* plan, const Layout* lay, LayoutTrace* trace) : s_(s), plan_(plan), lay_(lay), trace_(trace) {
    std::call_once(plan_->steps_once, [plan] { plan->steps = make_steps(*plan); });
    steps_ = plan_->steps.get();
    case_state_.resize(steps_->count);
    memo_.resize(steps_->count);
  }

  std::vector<uint8_t> run(const Value& x) {
    const Struct& root = *s_.find(s_.root);
    if (!s_.relocation_table) w.set_record_pointers(false);
    // The pools, each a region (its id is its index).
    for (size_t i = 0; i < s_.pools.size(); ++i) {
      const Pool& p = s_.pools[i];
      bpool_.emplace_back();
      if (p.kind == Pool::Kind::Block) {
        bpool_.back() = std::make_unique<Blocks>();
        dpool_.emplace_back();
        spool_.emplace_back();
      } else if (p.kind == Pool::Kind::Data) {
        dpool_.emplace_back(std::make_unique<DataPool>(p.align, static_cast<int>(i)));
        spool_.emplace_back();
      } else {
        const auto order = p.order == Pool::Order::ReversedBits ? StringPool::Order::ReversedBits
                           : p.order == Pool::Order::Sorted     ? StringPool::Order::Sorted
                                                                : StringPool::Order::FirstUse;
        spool_.emplace_back(std::make_unique<StringPool>(
            p.kind == Pool::Kind::CString ? StringPool::Kind::CString : StringPool::Kind::Pascal16, order, static_cast<unsigned>(p.align),
            static_cast<int>(i), p.header_str ? StringPool::Header::Str : StringPool::Header::None, static_cast<unsigned>(p.block_align),
            p.shared));
        dpool_.emplace_back();
      }
    }
    scope_.assign(s_.pools.size(), 0);
    w.use_layout(lay_, trace_);
    for (size_t i = 0; i < s_.pools.size(); ++i)
      if (lay_ && spool_[i] && s_.pools[i].scope.empty()) spool_[i]->follow(lay_->pool(s_.pools[i].name), trace_);
    need_struct(root, x);
    for (const auto& g : s_.context)
      if (const Field* f = root.field(g); !f->pointer.width)
        ctx_[g] = f->role.const_int ? static_cast<uint64_t>(*f->role.const_int)
                  : !f->resolved.count_for.empty() ? length(member(root, x, *root.field(f->resolved.count_for)))
                                                   : num(member(root, x, *f));
    for (size_t i = 0; i < s_.pools.size(); ++i)
      for (const auto& k : s_.pools[i].keep) spool_[i]->keep(k);
    if (gen::reaches_index(root)) {
      // The tables (table:): every string the index_of: fields hold, once each, in the schema's order.
      for (const auto& f : root.fields)
        if (!f->table.order.empty() && static_cast<size_t>(f->table.id) >= tabs_.size()) tabs_.resize(static_cast<size_t>(f->table.id) + 1);
      collect(root, x);
      for (const auto& f : root.fields)
        if (!f->table.order.empty()) tabs_[static_cast<size_t>(f->table.id)].finish(f->table.order == "sorted");
    }
    uint64_t s;
    if (root.fixed_size) {
      s = w.reserve(root.size);
      put(root, x, s);
    } else {
      s = put(root, x, std::nullopt);
    }
    if (root.has_children) place(root, x, s);
    for (size_t i = 0; i < s_.pools.size(); ++i) {
      const Pool& p = s_.pools[i];
      if (!p.scope.empty() || p.placed_in_layout) continue;
      w.to_end();
      place_pool(i);
    }
    for (size_t i = 0; i < s_.pools.size(); ++i) {
      if (!s_.pools[i].scope.empty() || bpool_[i]) continue;  // blocks are patched as they are placed
      if (spool_[i]) spool_[i]->patch(w);
      else dpool_[i]->patch(w);
    }
    if (s_.relocation_table) {
      if constexpr (E == std::endian::little) {
        const int id = s_.region_id("relocation_table");
        const uint64_t data_end = late_value(root, *s_.relocation_data_end, x, s);
        const uint64_t at = write_relocation_table(w, data_end);
        w.mark_start_at(id, at);
        w.mark_end(id);
        if (trace_) trace_->regions.emplace_back(at, w.pos(), "relocation_table");
      } else {
        throw EncodeError("a relocation table is little-endian");
      }
    }
    return w.finish();
  }

 private:
  using Cond = std::optional<uint64_t>;

  const gen::Schema& s_;
  const Schema::Plan* plan_;  // where each field is among its struct value's members
  const Schema::Plan::Steps* steps_;  // what to write for each field
  const Layout* lay_;
  LayoutTrace* trace_;
  Writer<E> w;
  std::vector<std::unique_ptr<StringPool>> spool_;  // by pool index (null: a data pool)
  std::vector<std::unique_ptr<DataPool>> dpool_;
  // Block pools (by pool index): the pool, and its distinct blocks by hash (shared pools).
  struct Blocks {
    BlockPool pool;
    std::vector<const Value*> blocks;
    std::unordered_multimap<size_t, uint32_t> index;
  };
  std::vector<std::unique_ptr<Blocks>> bpool_;
  std::vector<uint64_t> scope_;  // by pool index: where the struct of a scoped pool starts (scope_S; a map by the struct's name was a string compare per AL string)
  // Sections: targets waiting, first in first out.
  struct SectionItem {
    const Struct* st;
    const Field* f;
    int case_index;
    const Value* x;
    uint64_t s;
    const Value* payload;  // a case of a union (not an array): the case's value (null: found again from x, by name)
  };
  struct Section {
    std::vector<SectionItem> items;
    bool done = false;  // placed
  };
  std::map<std::string, Section> sec_;
  // A section by the address of a name the model spells it with (a map
  // look-up by the string, and a set's, were per target enqueued).
  std::unordered_map<const std::string*, Section*> sec_of_;
  // A direct-mapped table of them in front (AAMP enqueues a target per
  // list, object and parameter: the hash map's look-up was 3 % of its encode).
  struct SectionSlot {
    const std::string* name = nullptr;
    Section* q = nullptr;
  };
  SectionSlot sec_slots_[64];
  Section& section(const std::string& name) {
    SectionSlot& slot = sec_slots_[(reinterpret_cast<uintptr_t>(&name) >> 3) * 0x9e3779b97f4a7c15ull >> 58];
    if (slot.name == &name) return *slot.q;
    Section* q;
    if (auto it = sec_of_.find(&name); it != sec_of_.end()) {
      q = it->second;
    } else {
      q = &sec_[name];
      sec_of_.emplace(&name, q);
    }
    slot = {&name, q};
    return *q;
  }
  std::unordered_map<const Value*, uint64_t> placed_;  // targets placed before their pointer exists (self)
  std::map<std::string, uint64_t> ctx_;  // context: values of the root
  // Where fields at variable offsets (or under if:) went: (struct value,
  // field) -> offset. A log in the order put_ notes them, read near where
  // the last read hit (place_ reads them mostly in the order put_ noted
  // them), else through a hash index of the log (built when first needed),
  // as the generated code's binschema::PtrMap does. A hash table alone was a
  // cache miss per field noted and per field read (ASB: 11 % of the encode).
  class AtMap {
   public:
    // Inline: a call of its own was half its cost (ASB notes 390,000 places per MiB).
    [[gnu::always_inline]] void set(const Value* v, const Field* f, uint64_t at) {
      if (n_ && cur_[-1].v == v && cur_[-1].f == f) {  // noted again right away (put_, then its field's own)
        cur_[-1].at = at;
        return;
      }
      if (cur_ == end_) [[unlikely]] next_chunk();
      *cur_++ = {v, f, at};
      ++n_;
    }
    const uint64_t* find(const Value* v, const Field* f) {
      const size_t n = n_;
      const size_t end = std::min(n, last_ + kAhead);
      for (size_t i = last_; i < end; ++i)
        if (entry(i).v == v && entry(i).f == f) return hit(i);
      const size_t begin = last_ > kBehind ? last_ - kBehind : 0;
      for (size_t i = std::min(last_, n); i-- > begin;)
        if (entry(i).v == v && entry(i).f == f) return hit(i);
      index_up_to(n);
      if (table_.empty()) return nullptr;
      const size_t mask = table_.size() - 1;
      for (size_t i = hash(v, f) & mask; table_[i]; i = (i + 1) & mask)
        if (entry(table_[i] - 1).v == v && entry(table_[i] - 1).f == f) return hit(table_[i] - 1);
      return nullptr;
    }

   private:
    static constexpr size_t kAhead = 16, kBehind = 8;
    struct Entry {
      const Value* v;
      const Field* f;
      uint64_t at;
    };
    // The log in chunks of kChunk entries: a vector's growth copied every
    // entry noted so far each time it doubled (ASB: 3 % of its encode with
    // the out-of-line push_back), and an entry's address never changes.
    static constexpr size_t kChunkBits = 11, kChunk = size_t{1} << kChunkBits;
    Entry& entry(size_t i) { return chunks_[i >> kChunkBits][i & (kChunk - 1)]; }
    [[gnu::noinline]] void next_chunk() {
      chunks_.push_back(std::make_unique_for_overwrite<Entry[]>(kChunk));
      cur_ = chunks_.back().get();
      end_ = cur_ + kChunk;
    }
    const uint64_t* hit(size_t i) {
      last_ = i;
      return &entry(i).at;
    }
    static size_t hash(const Value* v, const Field* f) {
      const uint64_t h = (reinterpret_cast<uintptr_t>(v) * 0x9e3779b97f4a7c15ull) ^ (reinterpret_cast<uintptr_t>(f) * 0xc2b2ae3d27d4eb4full);
      return static_cast<size_t>(h >> 24);
    }
    // Index entries [indexed_, n) of the log (a later entry of a key replaces an earlier one).
    void index_up_to(size_t n) {
      if (indexed_ == n) return;
      if (table_.size() < 2 * n) {
        size_t cap = 256;
        while (cap < 4 * n) cap *= 2;
        table_.assign(cap, 0);
        indexed_ = 0;
      }
      const size_t mask = table_.size() - 1;
      for (; indexed_ < n; ++indexed_) {
        const Entry& e = entry(indexed_);
        size_t i = hash(e.v, e.f) & mask;
        while (table_[i] && !(entry(table_[i] - 1).v == e.v && entry(table_[i] - 1).f == e.f)) i = (i + 1) & mask;
        table_[i] = static_cast<uint32_t>(indexed_ + 1);
      }
    }
    std::vector<std::unique_ptr<Entry[]>> chunks_;
    Entry* cur_ = nullptr;  // the next free entry of the last chunk
    Entry* end_ = nullptr;
    size_t n_ = 0;          // entries noted
    std::vector<uint32_t> table_;  // log index + 1 (0: empty)
    size_t last_ = 0, indexed_ = 0;
  };
  AtMap at_;
  std::deque<Typed> typed_;                    // shared targets: values the writer keeps pointers to
  std::unordered_map<std::string, std::unique_ptr<std::string>> types_;  // their types
  std::unordered_map<const void*, const char*> what_of_;
  // place_case_struct's type name and plain_struct, by payload type (direct-mapped: a miss recomputes them).
  struct CaseStruct {
    const Struct* st = nullptr;
    const std::string* type = nullptr;
    bool plain = false;
  };
  std::vector<CaseStruct> case_struct_;  // by the payload type's StructSteps::index
  std::vector<IndexTable> tabs_;      // the root's tables (table:), by table id
  std::deque<Value> table_values_;    // the tables as their structs, built to be written

  // The id of a region or pool by its name (gen::Schema::region_id compares
  // every name): the names are the schema's strings, so their address is
  // the key.
  struct RegionName {
    const std::string* n = nullptr;
    int id = -1;
  };
  RegionName regions_[256];
  int region_id(const std::string& n) {
    RegionName& r = regions_[(reinterpret_cast<uintptr_t>(&n) >> 3) * 0x9e3779b97f4a7c15ull >> 56];
    if (r.n != &n) r = {&n, s_.region_id(n)};
    return r.id;
  }
  // "Struct.field": a pointer that outlives the write, as the generated
  // code's string literals do (a LayoutTrace keeps the names of late values
  // for decode(bytes, layout)'s message, after the writer is gone).
  static const char* lasting(std::string t) {
    static std::mutex m;
    static std::unordered_set<std::string> names;
    std::lock_guard<std::mutex> lock(m);
    return names.insert(std::move(t)).first->c_str();
  }
  // What the walk reads of a field's plan on every write, by the field's
  // address in a direct-mapped table (a hit is one line of L1, not the
  // plan's hash probe and its FieldPlan: what() and member() were a fifth
  // of EVNT's encode).
  using Checks = enc::Checks;
  using CaseKeys = enc::CaseKeys;
  struct FieldInfo {
    const Field* f = nullptr;
    const FieldPlan* fp = nullptr;
    int member = -1;
    const char* what = "";
    std::string_view name;
    const Checks* checks = nullptr;  // checks(): filled on its first call
    size_t last_case = 0;             // case_index(): the case found last
    const CaseKeys* cases = nullptr;  // case_index(): filled on its first call
    const Value* last_value = nullptr;            // case_index(): the value whose case is last_case
  };
  std::unordered_map<const Field*, CaseKeys> case_keys_;
  FieldInfo info_[1024];
  FieldInfo& info(const Field& f) {
    FieldInfo& e = info_[(reinterpret_cast<uintptr_t>(&f) >> 4) * 0x9e3779b97f4a7c15ull >> 54];
    if (e.f != &f) {
      e.f = &f;
      e.fp = plan_ ? plan_->fields.find(&f) : nullptr;
      e.member = e.fp ? e.fp->member : -1;
      e.what = e.fp ? e.fp->what : "";
      e.name = e.fp ? e.fp->name : std::string_view();
      e.checks = nullptr;
      e.last_case = 0;
      e.cases = nullptr;
      e.last_value = nullptr;
    }
    return e;
  }
  // The field an expression's name stands for in struct st (st.field(name)
  // compares every field's name), by the expression's address.
  // And what eval needs of it: its step, the array it counts, a bit
  // field's word and bit (no substr, no name compare per evaluation).
  struct IdentInfo {
    const Expr* e = nullptr;
    const Struct* st = nullptr;
    const Field* f = nullptr;        // the field named (a bit field: its word; null: none)
    const enc::Step* k = nullptr;    // f's step
    const enc::Step* count = nullptr;  // f counts an array: the array's step
    bool dotted = false;             // a bit field: word.bit
    size_t bit = 0;                  // its index among the word's bits (-1: none)
    std::string_view bit_name;       // interned
    const uint64_t* ctx = nullptr;   // no field of st: the root's value of that name (context:)
  };
  IdentInfo ident_[1024];
  const IdentInfo& ident(const Struct& st, const Expr& e) {
    IdentInfo& i = ident_[(reinterpret_cast<uintptr_t>(&e) >> 4) * 0x9e3779b97f4a7c15ull >> 54];
    if (i.e == &e && i.st == &st) return i;
    i = IdentInfo{};
    i.e = &e;
    i.st = &st;
    const enc::StructSteps& ss = steps_->structs.at(&st);
    auto step_of = [&](const Field* f) -> const enc::Step* {
      for (const auto& k : ss.steps)
        if (k.f == f) return &k;
      return nullptr;
    };
    const size_t dot = e.name.find('.');
    if (dot != std::string::npos) {
      i.dotted = true;
      i.f = st.field(e.name.substr(0, dot));
      i.k = step_of(i.f);
      i.bit_name = dynamic::intern(std::string_view(e.name).substr(dot + 1));
      i.bit = static_cast<size_t>(-1);
      if (i.f)
        for (size_t b = 0; b < i.f->bits.size(); ++b)
          if (i.f->bits[b].name == i.bit_name) {
            i.bit = b;
            break;
          }
    } else {
      i.f = st.field(e.name);
      i.k = step_of(i.f);
      if (!i.f)
        if (auto it = ctx_.find(e.name); it != ctx_.end()) i.ctx = &it->second;  // ctx_ is complete before anything is evaluated
      if (i.f && !i.f->resolved.count_for.empty()) i.count = i.k ? i.k->count_for : nullptr;
    }
    return i;
  }
  const char* what(const Struct& st, const Field& f) {
    if (const FieldInfo& i = info(f); *i.what) return i.what;
    auto it = what_of_.find(&f);
    if (it != what_of_.end()) return it->second;
    return what_of_[&f] = lasting(st.name + "." + f.name);
  }
  const char* what_case(const Struct& st, const Field& u, const Case& c) {
    auto it = what_of_.find(&c);
    if (it != what_of_.end()) return it->second;
    return what_of_[&c] = lasting(st.name + "." + u.name + "." + c.name);
  }
  // A type's name, once per write (Typed compares the pointers).
  const std::string* type_name(const std::string& type) {
    auto& t = types_[type];
    if (!t) t = std::make_unique<std::string>(type);
    return t.get();
  }
  const Typed& typed(const Value& v, const std::string* type) {
    typed_.push_back({&v, type});
    return typed_.back();
  }
  // The type of a field's target as the generated code names it (T of same_value<T>).
  std::string type_of(const Field& f, bool array) const {
    std::string e;
    switch (f.type.kind) {
      case ValueType::Prim: e = gen::prim_cpp(f.type.prim); break;
      case ValueType::Struct: e = "struct " + f.type.st->name; break;
      default: e = "std::string"; break;
    }
    if (!array) return e;
    if (f.array.fixed_count) return "std::array<" + e + ", " + std::to_string(*f.array.fixed_count) + ">";
    return "std::vector<" + e + ">";
  }

  void need_struct(const Struct& st, const Value& x) {
    if (x.kind != Value::Kind::Struct) [[unlikely]] not_struct(st);
  }
  [[noreturn]] static void not_struct(const Struct& st) { throw EncodeError(st.name + ": a struct expected"); }
  const Value& member(const Struct& st, const Value& x, const Field& f) {
    // The struct value's members are its model fields in order: the plan's index, checked.
    if (const FieldInfo& i = info(f); i.fp) {
      const int m = i.member;
      // Names are interned: the same name is mostly the same pointer.
      const auto& fs = x.fields();
      if (m >= 0 && static_cast<size_t>(m) < fs.size()) {
        const std::string_view n = fs.names()[m];
        if (n.data() == i.name.data() || n == i.name) return fs.values()[m];
      }
    }
    if (const Value* v = x.find(f.name)) return *v;
    throw EncodeError(st.name + "." + f.name + ": missing");
  }
  [[gnu::always_inline]] const Value& list(const Struct& st, const Field& f, const Value& v) {
    if (v.kind == Value::Kind::Array && !f.array.fixed_count) [[likely]]
      return v;
    return fixed_list(st, f, v);
  }
  [[gnu::noinline]] const Value& fixed_list(const Struct& st, const Field& f, const Value& v) {
    if (v.kind != Value::Kind::Array) throw EncodeError(st.name + "." + f.name + ": a list expected");
    if (f.array.fixed_count && v.items().size() != *f.array.fixed_count)
      throw EncodeError(st.name + "." + f.name + ": " + std::to_string(v.items().size()) + " elements, but it holds " +
                        std::to_string(*f.array.fixed_count));
    return v;
  }
  // case_index by the union's step: its cases from the step, the last case
  // found kept per step (no probe of the field's table per value).
  struct CaseState {
    const Value* last_value = nullptr;  // the value whose case is last_case
    size_t last_case = 0;
  };
  std::vector<CaseState> case_state_;  // by Step::id
  size_t case_index(const enc::Step& k, const Struct& st, const Value& v) {
    const Field& u = *k.f;
    if (v.kind != Value::Kind::Union || v.items().size() != 1) throw EncodeError(st.name + "." + u.name + ": a union value expected");
    CaseState& cs = case_state_[k.id];
    if (cs.last_value == &v) return cs.last_case;  // the same union value again (its tag field, then the union)
    return find_case(*k.case_keys, cs.last_case, cs.last_value, st, u, v);
  }
  // The case of union value v among keys, kept in last_case / last_value:
  // the case found last first (a list of unions is mostly one case), then
  // the case of its tag (a decoded value holds its case's tag) when no
  // other case's tag shares its slot, then the cases of that tag (the name
  // decides), then any case of its name.
  size_t find_case(const CaseKeys& keys, size_t& last_case, const Value*& last_value, const Struct& st, const Field& u, const Value& v) {
    const uint32_t id = v.case_id();  // names compared as their interned ids
    const auto& cases = keys.keys;
    last_value = nullptr;
    auto found = [&](size_t i) {
      last_value = &v;
      return last_case = i;
    };
    if (last_case < cases.size() && cases[last_case].id == id) return found(last_case);
    const uint64_t tag = v.tag();
    if (const int16_t slot = keys.by_tag[tag & (CaseKeys::kSlots - 1)]; slot >= 0) {
      const size_t i = static_cast<size_t>(slot);
      if (cases[i].tag == tag && cases[i].id == id) return found(i);
    }
    for (size_t i = 0; i < cases.size(); ++i)
      if (cases[i].tag == tag && cases[i].id == id) return found(i);
    for (size_t i = 0; i < cases.size(); ++i)
      if (cases[i].id == id) return found(i);
    throw EncodeError(st.name + "." + u.name + ": no case '" + std::string(v.case_name()) + "'");
  }
  size_t case_index(const Struct& st, const Field& u, const Value& v) {
    if (v.kind != Value::Kind::Union || v.items().size() != 1) throw EncodeError(st.name + "." + u.name + ": a union value expected");
    // The case this union field had last first (a list of unions is mostly one case).
    FieldInfo& fi = info(u);
    // The same union value again (its tag field, then the union): its case, found once.
    if (fi.last_value == &v) return fi.last_case;
    // The cases' tags and names side by side (the model's Case objects were a line or more each to step over).
    if (!fi.cases) fi.cases = &case_keys_.try_emplace(&u, u).first->second;
    return find_case(*fi.cases, fi.last_case, fi.last_value, st, u, v);
  }

  // ---- Expressions (write_expr, late_expr) -----------------------------------

  // A binary operator, from its one or two characters (a chain of string
  // compares was most of an evaluation of `>=`).
  enum class BinOp : uint8_t { None, And, Or, Add, Sub, Mul, Div, Mod, Shl, Shr, BitAnd, BitOr, Xor, Eq, Ne, Lt, Le, Gt, Ge };
  static BinOp binop(const std::string& op) {
    if (op.empty() || op.size() > 2) return BinOp::None;
    const char c = op[1 % op.size()];
    const bool two = op.size() == 2;
    switch (op[0]) {
      case '&': return !two ? BinOp::BitAnd : c == '&' ? BinOp::And : BinOp::None;
      case '|': return !two ? BinOp::BitOr : c == '|' ? BinOp::Or : BinOp::None;
      case '+': return two ? BinOp::None : BinOp::Add;
      case '-': return two ? BinOp::None : BinOp::Sub;
      case '*': return two ? BinOp::None : BinOp::Mul;
      case '/': return two ? BinOp::None : BinOp::Div;
      case '%': return two ? BinOp::None : BinOp::Mod;
      case '^': return two ? BinOp::None : BinOp::Xor;
      case '<': return !two ? BinOp::Lt : c == '<' ? BinOp::Shl : c == '=' ? BinOp::Le : BinOp::None;
      case '>': return !two ? BinOp::Gt : c == '>' ? BinOp::Shr : c == '=' ? BinOp::Ge : BinOp::None;
      case '=': return two && c == '=' ? BinOp::Eq : BinOp::None;
      case '!': return two && c == '=' ? BinOp::Ne : BinOp::None;
      default: return BinOp::None;
    }
  }

  // A binary operator other than && and || on its operands (e: the
  // expression, for the message of a division by zero).
  static uint64_t apply(BinOp op, uint64_t a, uint64_t b, const Struct& st, const Expr& e) {
    switch (op) {
      case BinOp::Add: return a + b;
      case BinOp::Sub: return a - b;
      case BinOp::Mul: return a * b;
      case BinOp::Div:
      case BinOp::Mod:
        if (b == 0) throw EncodeError(st.name + ": " + gen::expr_text(e) + " divides by zero");
        return op == BinOp::Div ? a / b : a % b;
      case BinOp::Shl: return b >= 64 ? 0 : a << b;
      case BinOp::Shr: return b >= 64 ? 0 : a >> b;
      case BinOp::BitAnd: return a & b;
      case BinOp::BitOr: return a | b;
      case BinOp::Xor: return a ^ b;
      case BinOp::Eq: return a == b;
      case BinOp::Ne: return a != b;
      case BinOp::Lt: return a < b;
      case BinOp::Le: return a <= b;
      case BinOp::Gt: return a > b;
      case BinOp::Ge: return a >= b;
      default: return 0;
    }
  }

  // An expression of a struct compiled once per write: names resolved to
  // the struct's steps, derived fields inlined, operators decoded, and
  // anything else (a bit field, a call other than count() and has(), ...)
  // left to eval_expr. It computes what eval_expr computes, in the same
  // order (a name lookup and a string compare per node per evaluation were
  // most of ASB's encode).
  struct CNode {
    enum Op : uint8_t { Const, Num, Length, Has, Neg, Not, Compl, Bin, And, Or, Cond, General, Sum, Derived };
    Op op = General;
    BinOp bin = BinOp::None;
    uint32_t a = 0, b = 0, c = 0;  // operands (node indexes); Sum: its terms [a, a + b) in Prog::terms
    uint64_t value = 0;            // Const
    const enc::Step* k = nullptr;  // Num, Length, Has: the member's step; Derived: the derived field's
    const Expr* e = nullptr;       // General (and Bin's divide-by-zero message)
  };
  struct Prog {
    const Expr* e = nullptr;
    const Struct* st = nullptr;
    std::vector<CNode> nodes;  // the root is nodes[0]
    std::vector<CNode> terms;  // the Sum nodes' terms (Const, Num, Length, Derived), left to right
  };
  // A sum of numbers, counts, constants and derived fields (`count(a) +
  // count(b) + child_count + 1`: ASB's offsets of its groups) is one node:
  // its terms added in order (not a node and a call per operator).
  static bool summable(const CNode& n) {
    return n.op == CNode::Const || n.op == CNode::Num || n.op == CNode::Length || n.op == CNode::Derived || n.op == CNode::Sum;
  }
  static void add_terms(const Prog& p, const CNode& n, std::vector<CNode>& out) {
    if (n.op != CNode::Sum) out.push_back(n);
    else for (uint32_t i = n.a; i < n.a + n.b; ++i) out.push_back(p.terms[i]);
  }
  std::deque<Prog> progs_;
  struct ProgSlot {
    const Expr* e = nullptr;
    const Struct* st = nullptr;
    const Prog* p = nullptr;
  };
  ProgSlot prog_slots_[1024];
  std::unordered_map<const Expr*, std::vector<const Prog*>> prog_index_;

  const Prog& prog(const Struct& st, const Expr& e) {
    ProgSlot& slot = prog_slots_[(reinterpret_cast<uintptr_t>(&e) >> 4) * 0x9e3779b97f4a7c15ull >> 54];
    if (slot.e == &e && slot.st == &st) return *slot.p;
    auto& known = prog_index_[&e];
    for (const Prog* p : known)
      if (p->st == &st) {
        slot = {&e, &st, p};
        return *p;
      }
    Prog& p = progs_.emplace_back();
    p.e = &e;
    p.st = &st;
    p.nodes.emplace_back();
    compile(p, 0, st, e, 0);
    known.push_back(&p);
    slot = {&e, &st, &p};
    return p;
  }
  uint32_t add_node(Prog& p, const Struct& st, const Expr& e, int depth) {
    const uint32_t i = static_cast<uint32_t>(p.nodes.size());
    p.nodes.emplace_back();
    compile(p, i, st, e, depth);
    return i;
  }
  void compile(Prog& p, uint32_t i, const Struct& st, const Expr& e, int depth) {
    CNode n;
    n.op = CNode::General;
    n.e = &e;
    if (depth > 16) {  // (derived fields naming derived fields: evaluated the general way from here)
      p.nodes[i] = n;
      return;
    }
    switch (e.kind) {
      case Expr::Int:
        n.op = CNode::Const;
        n.value = static_cast<uint64_t>(e.value);
        break;
      case Expr::Ident: {
        const IdentInfo id = ident(st, e);
        if (id.dotted) break;
        const Field* f = id.f;
        if (!f) {
          n.op = CNode::Const;
          n.value = id.ctx ? *id.ctx : 0;
        } else if (!f->resolved.count_for.empty()) {
          if (id.count) {
            n.op = CNode::Length;
            n.k = id.count;
          }
        } else if (f->role.const_int) {
          n.op = CNode::Const;
          n.value = static_cast<uint64_t>(*f->role.const_int);
        } else if (f->role.derive) {
          const uint32_t d = add_node(p, st, *f->role.derive, depth + 1);
          n = p.nodes[d];  // the derived expression in its place
          if (id.k && id.k->derive && n.op != CNode::Const && n.op != CNode::Num && n.op != CNode::Length) {
            n = CNode{};  // more than a leaf: its value once per struct value (derived())
            n.op = CNode::Derived;
            n.k = id.k;
          }
        } else if (id.k) {
          n.op = CNode::Num;
          n.k = id.k;
        }
        break;
      }
      case Expr::Unary:
        n.a = add_node(p, st, e.args[0], depth + 1);
        n.op = is_op(e.name, "-") ? CNode::Neg : is_op(e.name, "!") ? CNode::Not : CNode::Compl;
        break;
      case Expr::Binary: {
        const BinOp op = binop(e.name);
        n.a = add_node(p, st, e.args[0], depth + 1);
        n.b = add_node(p, st, e.args[1], depth + 1);
        n.op = op == BinOp::And ? CNode::And : op == BinOp::Or ? CNode::Or : CNode::Bin;
        n.bin = op;
        if (op == BinOp::Add && summable(p.nodes[n.a]) && summable(p.nodes[n.b])) {
          std::vector<CNode> t;
          add_terms(p, p.nodes[n.a], t);
          add_terms(p, p.nodes[n.b], t);
          n.op = CNode::Sum;
          n.a = static_cast<uint32_t>(p.terms.size());
          n.b = static_cast<uint32_t>(t.size());
          p.terms.insert(p.terms.end(), t.begin(), t.end());
        }
        break;
      }
      case Expr::Ternary:
        n.a = add_node(p, st, e.args[0], depth + 1);
        n.b = add_node(p, st, e.args[1], depth + 1);
        n.c = add_node(p, st, e.args[2], depth + 1);
        n.op = CNode::Cond;
        break;
      case Expr::Call:
        if ((e.fn == Fn::Count || e.fn == Fn::Has) && e.args.size() == 1 && e.args[0].kind == Expr::Ident &&
            e.args[0].name.find('.') == std::string::npos) {
          const IdentInfo id = ident(st, e.args[0]);
          if (id.k) {
            n.op = e.fn == Fn::Count ? CNode::Length : CNode::Has;
            n.k = id.k;
          }
        }
        break;
    }
    p.nodes[i] = n;
  }
  uint64_t run(const Prog& p, uint32_t i, const Struct& st, const Value& x) {
    const CNode& n = p.nodes[i];
    switch (n.op) {
      case CNode::Const: return n.value;
      case CNode::Num: return num(member(*n.k, st, x));
      case CNode::Length: return length(member(*n.k, st, x));
      case CNode::Has: return !member(*n.k, st, x).is_absent();
      case CNode::Neg: return uint64_t(0) - run(p, n.a, st, x);
      case CNode::Not: return run(p, n.a, st, x) == 0;
      case CNode::Compl: return ~run(p, n.a, st, x);
      case CNode::And: return run(p, n.a, st, x) && run(p, n.b, st, x);
      case CNode::Or: return run(p, n.a, st, x) || run(p, n.b, st, x);
      case CNode::Cond: return run(p, n.a, st, x) ? run(p, n.b, st, x) : run(p, n.c, st, x);
      case CNode::Bin: {
        const uint64_t a = run(p, n.a, st, x), b = run(p, n.b, st, x);
        return apply(n.bin, a, b, st, *n.e);
      }
      case CNode::General: return eval_expr(st, *n.e, x);
      case CNode::Derived: return derived(*n.k, st, x);
      case CNode::Sum: {
        uint64_t t = 0;
        for (const CNode* m = p.terms.data() + n.a, *end = m + n.b; m != end; ++m) {
          switch (m->op) {
            case CNode::Const: t += m->value; break;
            case CNode::Length: t += length(member(*m->k, st, x)); break;
            case CNode::Derived: t += derived(*m->k, st, x); break;
            default: t += num(member(*m->k, st, x)); break;  // Num
          }
        }
        return t;
      }
    }
    return 0;
  }

  // The value of derived field k (Step::derive: known at once, not late) of
  // struct value x, worked out on its first use and kept for the others:
  // ASB's node bodies name `child_count` (a ?: over two counts) in three
  // other derived fields, a count and an if:, each of them evaluated again
  // by place_. Its expression reads only x's members and the root's
  // context, which do not change during a write, and every struct value the
  // writer reads lives as long as the writer (the caller's, and its tables'
  // kept in table_values_), so x's address names it for the whole write.
  // Its compiled expression is kept there too (prog()'s look-up was a fifth
  // of a miss's cost).
  struct Memo {
    const Value* x = nullptr;
    uint64_t v = 0;
    const Prog* p = nullptr;
  };
  std::vector<Memo> memo_;  // by Step::id
  uint64_t derived(const enc::Step& k, const Struct& st, const Value& x) {
    Memo& m = memo_[k.id];
    if (m.x == &x) return m.v;
    if (!m.p || m.p->st != &st) m.p = &prog(st, *k.derive);
    const uint64_t v = run(*m.p, 0, st, x);
    m.x = &x;  // (memo_ never grows during a write: m still refers to k's entry)
    m.v = v;
    return v;
  }

  uint64_t eval(const Struct& st, const Expr& e, const Value& x) {
    if (e.kind == Expr::Int) return static_cast<uint64_t>(e.value);
    const Prog& p = prog(st, e);
    return run(p, 0, st, x);
  }
  // The general evaluation (a General node's, and what compile() follows).
  uint64_t eval_expr(const Struct& st, const Expr& e, const Value& x) {
    switch (e.kind) {
      case Expr::Int: return static_cast<uint64_t>(e.value);
      case Expr::Ident: {
        const IdentInfo id = ident(st, e);  // a copy: eval below may reuse the slot
        if (id.dotted) {  // a bit field
          if (!id.k) throw EncodeError(st.name + "." + e.name + ": missing");
          const Value& word = member(*id.k, st, x);
          const auto& ws = word.fields();
          const Value* b = ws.named(id.bit, id.bit_name.data());
          if (!b) b = word.find(id.bit_name);
          if (!b) throw EncodeError(st.name + "." + e.name + ": missing");
          return num(*b);
        }
        const Field* f = id.f;
        if (!f) return id.ctx ? *id.ctx : 0;
        if (!f->resolved.count_for.empty()) return length(id.count ? member(*id.count, st, x) : member(st, x, *st.field(f->resolved.count_for)));
        if (f->role.const_int) return static_cast<uint64_t>(*f->role.const_int);
        if (f->role.derive) return eval(st, *f->role.derive, x);
        return num(member(*id.k, st, x));
      }
      case Expr::Unary: {
        const uint64_t a = eval(st, e.args[0], x);
        if (is_op(e.name, "-")) return uint64_t(0) - a;
        if (is_op(e.name, "!")) return a == 0;
        return ~a;
      }
      case Expr::Binary: {
        const BinOp op = binop(e.name);
        if (op == BinOp::And) return eval(st, e.args[0], x) && eval(st, e.args[1], x);
        if (op == BinOp::Or) return eval(st, e.args[0], x) || eval(st, e.args[1], x);
        const uint64_t a = eval(st, e.args[0], x), b = eval(st, e.args[1], x);
        return apply(op, a, b, st, e);
      }
      case Expr::Ternary: return eval(st, e.args[0], x) ? eval(st, e.args[1], x) : eval(st, e.args[2], x);
      case Expr::Call: return call(st, e, x);
    }
    return 0;
  }

  uint64_t call(const Struct& st, const Expr& e, const Value& x) {
    switch (e.fn) {
      case Fn::Count: {
        if (e.args[0].kind == Expr::Ident) {
          // A field of this struct (no path): its step, found once per expression.
          const IdentInfo& id = ident(st, e.args[0]);
          if (!id.dotted && id.k) return length(member(*id.k, st, x));
        }
        const Struct* cur = &st;
        const Value* v = &x;
        const std::string& path = e.args[0].name;
        for (size_t from = 0;;) {
          const size_t dot = path.find('.', from);
          const std::string step = path.substr(from, dot == std::string::npos ? std::string::npos : dot - from);
          const Field* f = cur ? cur->field(step) : nullptr;
          if (!f) throw EncodeError(st.name + ": count(" + path + "): no field '" + step + "'");
          v = &member(*cur, *v, *f);
          if (dot == std::string::npos) break;
          cur = f->type.kind == ValueType::Struct ? f->type.st : nullptr;
          from = dot + 1;
        }
        return length(*v);
      }
      case Fn::Max:
      case Fn::Sum: {
        const Field* arr = e.args[0].kind == Expr::Ident ? st.field(e.args[0].name) : nullptr;
        if (arr && arr->array.on) {
          uint64_t t = 0;
          for (const Value& el : list(st, *arr, member(st, x, *arr)).items()) {
            const uint64_t v = eval(*arr->type.st, e.args[1], el);
            t = e.fn == Fn::Sum ? t + v : std::max(t, v);
          }
          return t;
        }
        return std::max(eval(st, e.args[0], x), eval(st, e.args[1], x));
      }
      case Fn::Has: return !member(st, x, *st.field(e.args[0].name)).is_absent();
      case Fn::Items: {
        const Field& u = *st.field(e.args[0].name);
        const Value& uv = member(st, x, u);
        const size_t i = case_index(st, u, uv);
        const Field& p = *u.variant.cases[i].field;
        if (p.array.on && !p.array.fixed_count) return length(uv.items()[0]);
        return p.items.value_or(p.array.fixed_count.value_or(1));
      }
      case Fn::Mulhash: return mulhash32(string_arg(st, e.args[0], x), static_cast<uint32_t>(eval(st, e.args[1], x)));
      case Fn::Fnv1a32:
      case Fn::Murmur3:
      case Fn::Crc32: {
        const Expr& a = e.args[0];
        std::string arg;
        if (a.kind == Expr::Call) {
          const std::string full = string_arg(st, a.args[0], x);
          arg = std::string(a.fn == Fn::Stem ? path_stem(full) : path_extension(full));
        } else {
          arg = string_arg(st, a, x);
        }
        return e.fn == Fn::Fnv1a32 ? fnv1a32(arg) : e.fn == Fn::Crc32 ? crc32(arg) : murmur3_x86_32(arg);
      }
      default: break;
    }
    throw EncodeError(st.name + ": " + gen::expr_text(e) + " is known only once the file is laid out");
  }

  std::string string_arg(const Struct& st, const Expr& a, const Value& x) {
    const size_t dot = a.name.find('.');
    const Value* v = &member(st, x, *st.field(a.name.substr(0, dot)));
    if (dot != std::string::npos) {
      v = v->find(a.name.substr(dot + 1));
      if (!v) throw EncodeError(st.name + "." + a.name + ": missing");
    }
    return v->str();
  }

  uint64_t late_value(const Struct& st, const Expr& e, const Value& x, uint64_t s) {
    if (e.calls(Fn::FileSize)) return w.pos();
    if (const Field* d = e.kind == Expr::Ident ? st.field(e.name) : nullptr; d && d->role.derive && gen::is_late(*d->role.derive))
      return late_value(st, *d->role.derive, x, s);
    if (const Field* g = context_pointer(s_, st, e)) return w.get_uint(g->resolved.offset, static_cast<unsigned>(g->pointer.width));
    if (e.calls(Fn::Start) || e.calls(Fn::End) || e.calls(Fn::Size)) {
      if (is_op(e.args[0].name, "self")) return s;
      const int id = region_id(e.args[0].name);
      if (e.fn == Fn::Start) return w.start_of(id);
      if (e.fn == Fn::End) return w.end_of(id);
      return w.end_of(id) - w.start_of(id);
    }
    switch (e.kind) {
      case Expr::Unary: {
        const uint64_t a = late_value(st, e.args[0], x, s);
        return is_op(e.name, "-") ? uint64_t(0) - a : is_op(e.name, "!") ? uint64_t(a == 0) : ~a;
      }
      case Expr::Binary: {
        Expr l = e;  // the operator over the two late values
        const uint64_t a = late_value(st, e.args[0], x, s), b = late_value(st, e.args[1], x, s);
        l.args[0] = Expr{};
        l.args[0].value = static_cast<int64_t>(a);
        l.args[1] = Expr{};
        l.args[1].value = static_cast<int64_t>(b);
        return eval_expr(st, l, x);  // not eval: l is a temporary (eval caches by the expression's address)
      }
      case Expr::Ternary: return late_value(st, e.args[0], x, s) ? late_value(st, e.args[1], x, s) : late_value(st, e.args[2], x, s);
      default: return eval(st, e, x);
    }
  }

  // ---- Numbers ----------------------------------------------------------------

  // A model value of a field of type p, checked against its type (the
  // generated model cannot hold a value out of range; a Value can).
  // Whether v fits a u24 or s24 (any other primitive: true).
  static bool fits24(Prim p, uint64_t v) {
    const int64_t i = static_cast<int64_t>(v);
    return !((p == Prim::U24 && v > 0xFFFFFFu) || (p == Prim::S24 && (i < -0x800000 || i > 0x7FFFFF)));
  }
  // A u24 or s24 (field or union case) whose number v does not fit in 24
  // bits: refused naming `what`, as the generated writer does.
  static void check24(Prim p, uint64_t v, const char* what) {
    if (!fits24(p, v))
      throw EncodeError(std::string(what) + ": value " + (p == Prim::S24 ? std::to_string(static_cast<int64_t>(v)) : std::to_string(v)) +
                        " does not fit in 24 bits");
  }
  // check24 of element i of the array `what`, named "what[i]" (the name made only when refused).
  static void check24(Prim p, uint64_t v, const char* what, size_t i) {
    if (!fits24(p, v)) check24(p, v, (std::string(what) + "[" + std::to_string(i) + "]").c_str());
  }
  uint64_t fit(const Value& v, Prim p, const char* what) {
    const uint64_t size = gen::prim_size(p);
    if (p == Prim::F32 || p == Prim::F64) {
      if (v.kind == Value::Kind::Float && p == Prim::F64) {
        const double d = v.as_double();
        uint64_t b;
        std::memcpy(&b, &d, 8);
        return b;
      }
      if (v.kind == Value::Kind::Double && p == Prim::F32) {
        const float f = static_cast<float>(v.as_double());
        uint32_t b;
        std::memcpy(&b, &f, 4);
        return b;
      }
      if (v.kind != Value::Kind::Float && v.kind != Value::Kind::Double)
        throw EncodeError(std::string(what) + ": a number with a fraction expected");
      return v.as_uint();
    }
    if (p == Prim::Bool8 || p == Prim::Bool32) return v.as_uint() != 0;
    if (gen::prim_is_signed(p)) {
      const int64_t i = v.as_int();
      const unsigned bits = p == Prim::S24 ? 32 : static_cast<unsigned>(8 * size);
      if (v.kind == Value::Kind::UInt && v.as_uint() >> 63) throw EncodeError(std::string(what) + ": value " + std::to_string(v.as_uint()) + " does not fit");
      if (bits < 64 && (i < -(int64_t(1) << (bits - 1)) || i >= (int64_t(1) << (bits - 1))))
        throw EncodeError(std::string(what) + ": value " + std::to_string(i) + " does not fit in " + gen::prim_name(p));
      return v.as_uint();
    }
    const unsigned bits = p == Prim::U24 ? 32 : static_cast<unsigned>(8 * size);
    if (v.kind == Value::Kind::Int && v.as_int() < 0)
      throw EncodeError(std::string(what) + ": value " + std::to_string(v.as_int()) + " does not fit in " + gen::prim_name(p));
    if (bits < 64 && (v.as_uint() >> bits) != 0) throw EncodeError(std::string(what) + ": value " + std::to_string(v.as_uint()) + " does not fit in " + gen::prim_name(p));
    return v.as_uint();
  }
  // Stores the low bytes of v (static_cast to the stored type, then put<T>).
  void store(uint64_t o, Prim p, uint64_t v) {
    switch (p) {  // (on the type itself: gen::prim_size is a call)
      case Prim::U24: w.template put<uint24>(o, static_cast<uint32_t>(v)); return;
      case Prim::S24: w.template put<int24>(o, static_cast<int32_t>(v)); return;
      case Prim::U8:
      case Prim::S8:
      case Prim::Bool8: w.template put<uint8_t>(o, static_cast<uint8_t>(v)); return;
      case Prim::U16:
      case Prim::S16: w.template put<uint16_t>(o, static_cast<uint16_t>(v)); return;
      case Prim::U32:
      case Prim::S32:
      case Prim::F32:
      case Prim::Bool32: w.template put<uint32_t>(o, static_cast<uint32_t>(v)); return;
      default: w.template put<uint64_t>(o, v); return;
    }
  }
  // An array's elements of f's type: a number of its own kind that fits
  // stored as it is, anything else (a bool, a conversion, an error) by store_elem.
  static enc::Num elem_num(const Field& f) {
    return f.type.prim == Prim::Bool8 || f.type.prim == Prim::Bool32 ? enc::Num{} : enc::num_of(f.type.prim);
  }
  void store_elem(const Field& f, const enc::Num& n, uint64_t o, const Value& v, const char* what, size_t i) {
    if (n.want != Value::Kind::Absent && enc::num_fits(n, v)) store_num(n, o, v.number_bits());
    else store_elem(f, o, v, what, i);
  }
  // The elements of a list of numbers at o, one after the other: the
  // store's width decided once for the list, not per element.
  void store_elems(const Field& f, const enc::Num& n, uint64_t o, const Value& l, const char* what) {
    const Value* e = l.items().data();
    const size_t cnt = l.items().size();
    switch (n.size) {
      case 1: return store_elems_as<uint8_t>(f, n, o, e, cnt, what);
      case 2: return store_elems_as<uint16_t>(f, n, o, e, cnt, what);
      case 4: return store_elems_as<uint32_t>(f, n, o, e, cnt, what);
      case 8: return store_elems_as<uint64_t>(f, n, o, e, cnt, what);
      default:
        for (size_t i = 0; i < cnt; ++i) store_elem(f, o + i * gen::prim_size(f.type.prim), e[i], what, i);
    }
  }
  template <class T>
  void store_elems_as(const Field& f, const enc::Num& n, uint64_t o, const Value* e, size_t cnt, const char* what) {
    for (size_t i = 0; i < cnt; ++i) {
      if (enc::num_fits(n, e[i])) [[likely]]
        w.template put<T>(o + i * sizeof(T), static_cast<T>(e[i].number_bits()));
      else
        store_elem(f, o + i * sizeof(T), e[i], what, i);
    }
  }
  // store_elem: element i of an array of numbers (a bool as 0/1 or true:; a
  // u24 or s24 checked, as the generated writer does).
  void store_elem(const Field& f, uint64_t o, const Value& v, const char* what, size_t i) {
    const uint64_t x = fit(v, f.type.prim, what);
    check24(f.type.prim, x, what, i);
    if (f.type.prim == Prim::Bool8 || f.type.prim == Prim::Bool32) store(o, f.type.prim, x ? f.true_value.value_or(1) : 0);
    else store(o, f.type.prim, x);
  }

  // ---- Tables (table:, index_of:) ------------------------------------------------

  // collect_T: every string st's index_of: fields hold (through its inline
  // structs and arrays, pointers and union cases), added to its table.
  void collect(const Struct& st, const Value& x) {
    need_struct(st, x);
    const enc::StructSteps& ss = steps_of(st);
    const Frame frame(*this, ss, x);
    for (const enc::Step* k : ss.collect) {
      const Field& f = *k->f;
      if (f.type.kind == ValueType::Union) {
        auto one = [&](const Value& u) {
          const Field& p = *f.variant.cases[case_index(st, f, u)].field;
          collect_one(p, u.items()[0]);
        };
        const Value& v = member(*k, st, x);
        if (f.array.on)
          for (const Value& u : list(st, f, v).items()) one(u);
        else
          one(v);
        continue;
      }
      if (!f.table.index_of.empty()) {
        collect_one(f, member(*k, st, x));
        continue;
      }
      const Value& v = member(*k, st, x);
      if (f.array.on) {
        for (const Value& e : list(st, f, v).items()) collect(*f.type.st, e);
      } else if (f.pointer.width && f.pointer.null == Field::Null::Allowed) {
        if (!v.is_absent()) collect(*f.type.st, v);
      } else {
        collect(*f.type.st, v);
      }
    }
  }
  void collect_one(const Field& f, const Value& v) {
    if (!f.table.index_of.empty()) tabs_[static_cast<size_t>(f.table.id)].add(v.str());
    else if (f.type.kind == ValueType::Struct && f.type.st && reaches(*f.type.st)) collect(*f.type.st, v);
  }
  bool reaches(const Struct& st) const { return steps_->structs.at(&st).reaches_index; }
  // The struct a table field points to, from its collected strings (absent:
  // a nullable table with no string).
  const Value& table_value(const Field& f) {
    const IndexTable& t = tabs_.size() > static_cast<size_t>(f.table.id) ? tabs_[static_cast<size_t>(f.table.id)] : empty_table_;
    if (f.pointer.null == Field::Null::Allowed && t.empty()) return table_values_.emplace_back(Value::absent());
    Value strs = Value::array();
    strs.items().reserve(t.size());
    for (const std::string& str : t.strings()) {
      Value e = Value::struct_();
      e.add(f.table.text->name, Value::string(str));
      strs.items().push_back(std::move(e));
    }
    Value v = Value::struct_();
    v.add(f.table.strings->name, std::move(strs));
    return table_values_.emplace_back(std::move(v));
  }
  // An index_of: field's index: its string's place in its table.
  uint64_t table_index(const Field& f, const Value& v, const char* wh) const {
    return tabs_.at(static_cast<size_t>(f.table.id)).index(v.str(), wh);
  }
  IndexTable empty_table_;

  // ---- put_T ----------------------------------------------------------------------

  // Writes struct st's own bytes: at `at` (reserved by the caller) when it
  // has a fixed size, else appended. Returns where it starts.
  uint64_t put(const Struct& st, const Value& x, std::optional<uint64_t> at) { return put(steps_of(st), x, at); }
  uint64_t put(const enc::StructSteps& ss, const Value& x, std::optional<uint64_t> at) {
    const Struct& st = *ss.st;
    need_struct(st, x);
    const Frame frame(*this, ss, x);
    const uint64_t s = ss.fixed_size ? *at : w.reserve(ss.prefix);
    for (const size_t i : ss.scoped) {
      const Pool& p = s_.pools[i];
      if (p.kind != Pool::Kind::Block) scope_[i] = s;
      if (spool_[i]) spool_[i]->restart();
      else if (bpool_[i]) bpool_[i]->pool.restart();
    }
    for (const enc::Step& k : ss.steps) {
      switch (k.op) {
        case enc::Op::Num: {
          const uint64_t o = k.cursor ? w.reserve(k.size) : s + k.offset;
          const Value& v = member(k, st, x);
          store_num(k.num, o, enc::num_fits(k.num, v) ? v.number_bits() : fit(v, k.f->type.prim, k.what));
          continue;
        }
        case enc::Op::Nums: {
          const uint64_t o = k.cursor ? w.reserve(k.size) : s + k.offset;
          const Value& v = list(st, *k.f, member(k, st, x));
          store_elems(*k.f, k.num, o, v, k.what);
          continue;
        }
        case enc::Op::Scalar: put_scalar(st, k, cursor_or(k, s), x, s); continue;
        case enc::Op::Struct: {
          const uint64_t o = cursor_or(k, s);
          const Value& v = member(k, st, x);
          if (k.sub->fixed_size) put(*k.sub, v, o);
          else put(*k.sub, v, std::nullopt);
          continue;
        }
        case enc::Op::General: break;
      }
      if (k.cond && !eval(st, *k.cond, x)) {
        if (k.member >= 0) absent_check(st, k, x);
        continue;
      }
      const uint64_t o = cursor_or(k, s);
      if (k.at_var) at_.set(&x, k.f, o);
      if (k.region >= 0) w.mark_start_at(k.region, k.fixed_size ? o : w.pos());
      put_field(st, k, o, x, s);
      if (k.region >= 0) w.mark_end_at(k.region, k.fixed_size ? o + k.size : w.pos());
    }
    return s;
  }

  // Where step k (of a struct at s) is written, when nothing else is noted
  // about it (put_'s Op::Scalar and Op::Struct): at its offset, or at the
  // cursor (its room reserved when it has a fixed size), as put_ says below.
  uint64_t cursor_or(const enc::Step& k, uint64_t s) {
    if (!k.cursor) return s + k.offset;
    return k.fixed_size ? w.reserve(k.size) : w.pos();
  }

  // A struct's steps, by its address in a direct-mapped table (the plan's
  // hash probe was a miss per struct written).
  struct StepsOf {
    const Struct* st = nullptr;
    const enc::StructSteps* ss = nullptr;
  };
  StepsOf steps_of_[256];
  const enc::StructSteps& steps_of(const Struct& st) {
    StepsOf& e = steps_of_[(reinterpret_cast<uintptr_t>(&st) >> 4) * 0x9e3779b97f4a7c15ull >> 56];
    if (e.st != &st) e = {&st, &steps_->structs.at(&st)};
    return *e.ss;
  }

  // A struct value's member for step k: the frame's when x is the struct
  // value put_ or place_ is at, else by its index, the name's pointer
  // compared (interned), else by name.
  [[gnu::always_inline]] const Value& member(const enc::Step& k, const Struct& st, const Value& x) { return member(k.member, k.name, st, x, *k.f); }
  // The same for field f of st, member m named `name` (interned) in st's values.
  [[gnu::always_inline]] const Value& member(int m, const char* name, const Struct& st, const Value& x, const Field& f) {
    if (&x == frame_x_ && m >= 0) [[likely]]
      return frame_ms_[m];
    if (const Value* v = x.fields().named(static_cast<size_t>(m), name)) [[likely]]
      return *v;
    return member_by_name(st, x, f);
  }
  [[gnu::noinline]] const Value& member_by_name(const Struct& st, const Value& x, const Field& f) { return member(st, x, f); }
  // The struct value whose members put_ (or place_, collect_) reads now,
  // when its shape is its struct's (StructSteps::shape): its member for
  // step k is frame_ms_[k.member]. Each member was a look-up of the value's
  // block (its kind, size, shape, the name) per read, some members several
  // times per write (a count, then the sums of counts that name it).
  const Value* frame_x_ = nullptr;
  const Value* frame_ms_ = nullptr;
  class Frame {
   public:
    Frame(Encoder& e, const enc::StructSteps& ss, const Value& x) : e_(e), x_(e.frame_x_), ms_(e.frame_ms_) {
      if (!ss.shape || x.fields().shape() != ss.shape) return;
      // The members read before the frame is stored: a store to the encoder
      // could be to the block's bytes, for all the compiler knows, and made
      // it look the block up again.
      const Value* ms = x.fields().values();
      e.frame_x_ = &x;
      e.frame_ms_ = ms;
    }
    ~Frame() {
      e_.frame_x_ = x_;
      e_.frame_ms_ = ms_;
    }
    Frame(const Frame&) = delete;
    Frame& operator=(const Frame&) = delete;

   private:
    Encoder& e_;
    const Value* x_;
    const Value* ms_;
  };
  // Stores a number of n's type (Op::Num, an element of an array of numbers).
  void store_num(const enc::Num& n, uint64_t o, uint64_t v) {
    switch (n.size) {
      case 1: w.template put<uint8_t>(o, static_cast<uint8_t>(v)); break;
      case 2: w.template put<uint16_t>(o, static_cast<uint16_t>(v)); break;
      case 4: w.template put<uint32_t>(o, static_cast<uint32_t>(v)); break;
      default: w.template put<uint64_t>(o, v); break;
    }
  }
  void put_num(const enc::Step& k, uint64_t o, const Value& v) {
    store_num(k.num, o, enc::num_fits(k.num, v) ? v.number_bits() : fit(v, k.f->type.prim, k.what));
  }

  void absent_check(const Struct& st, const enc::Step& k, const Value& x) {
    const Field& f = *k.f;
    const auto& fs = x.fields();
    const Value* v = fs.named(static_cast<size_t>(k.member), k.name);
    if (!v) v = x.find(f.name);
    if (!v || v->is_absent()) return;
    bool empty = false;
    if (f.array.on && !f.array.fixed_count) empty = v->items().empty();
    else if (f.type.kind == ValueType::Prim && f.bits.empty() && !f.array.on)
      empty = v->as_uint() == (f.role.default_text ? static_cast<uint64_t>(std::stoll(*f.role.default_text, nullptr, 0)) : 0);
    else if (v->kind == Value::Kind::String || v->kind == Value::Kind::Bytes) empty = v->str().empty();
    // A struct (in place or by a pointer that cannot be null), a union, a
    // fixed array: as the generated `x != decltype(x){}`, the value the model
    // holds before anything is read (what decode and text in leave there).
    else if (const FieldPlan* fp = plan_ ? plan_->fields.find(&f) : nullptr) empty = *v == fp->def;
    if (!empty) throw EncodeError(st.name + "." + f.name + ": not stored when " + gen::expr_text(*f.cond) + " is false");
  }

  std::unordered_map<const Field*, Checks> checks_;
  const Checks& checks(const Struct& st, const Field& f) {
    FieldInfo& fi = info(f);
    if (fi.checks) return *fi.checks;
    auto it = checks_.find(&f);
    if (it != checks_.end()) return *(fi.checks = &it->second);
    return *(fi.checks = &(checks_[&f] = enc::make_checks(s_, st, f)));
  }
  // The position of field f of struct value x (at s), for place_.
  uint64_t field_at(const Field& f, const Value& x, uint64_t s) {
    // Only a field at the cursor (or a union[]) was noted: the others are where the struct says.
    if (f.resolved.fixed_offset && !f.cond && !(f.type.kind == ValueType::Union && f.array.on)) return s + f.resolved.offset;
    const uint64_t* at = at_.find(&x, &f);
    return at ? *at : s + f.resolved.offset;
  }

  void string_ref(const std::string& pool, std::string_view v, uint64_t slot, int width) {
    const int i = region_id(pool);
    const Pool& p = s_.pools[static_cast<size_t>(i)];
    if (!p.scope.empty()) spool_[static_cast<size_t>(i)]->ref(v, slot, static_cast<uint8_t>(width), false, false, 0, scope_[static_cast<size_t>(i)]);
    else spool_[static_cast<size_t>(i)]->ref(v, slot, static_cast<uint8_t>(width), !p.base.empty(), p.base.empty());
  }
  StringPool& pool_of(const std::string& name) { return *spool_[static_cast<size_t>(region_id(name))]; }

  void put_field(const Struct& st, const enc::Step& k, uint64_t o, const Value& x, uint64_t s) {
    const Field& f = *k.f;
    const char* wh = k.what;
    if (k.prelude) {
    if (!f.table.offsets_of.empty()) {
      // offsets_of: each string's offset from the struct's start (the strings
      // follow directly, each with its NUL), then the end of the last.
      const Field& sf = *st.field(f.table.offsets_of);
      const Field& tf = *sf.type.st->fields[0];
      const Value& strs = list(st, sf, member(st, x, sf));
      const uint64_t esz = gen::prim_size(f.type.prim);
      const uint64_t n = eval(st, *f.array.count, x);
      uint64_t at = w.pos() + n * esz - s;
      for (uint64_t i = 0; i < n; ++i) {
        w.put_uint(w.reserve(esz), static_cast<unsigned>(esz), at, wh);
        if (i < strs.items().size()) at += member(*sf.type.st, strs.items()[i], tf).str().size() + 1;
      }
      return;
    }
    if (f.kind == FieldKind::InlineArray && !f.resolved.tag_for.empty()) {
      // The tags of a union[]: the tag of each element's case.
      const Field& u = *k.tag_for->f;
      for (const Value& e : list(st, u, member(*k.tag_for, st, x)).items())
        store(w.reserve(gen::prim_size(f.type.prim)), f.type.prim, static_cast<uint64_t>(u.variant.cases[case_index(*k.tag_for, st, e)].tag));
      if (f.pad) w.align(f.pad);
      return;
    }
    if (f.array.count) {
      if (const Checks& ck = k.checks; ck.count_checked) {
        const Value& arr = member(k, st, x);
        const char* count = ck.count_text.c_str();  // lasts as long as the writer (a map node)
        if (ck.count_evaluable) {
          check_count(wh, length(arr), eval(st, *f.array.count, x), count);
        } else {
          w.late_check([this, &st, &f, &x, s, wh, count, &arr]() { check_count(wh, length(arr), late_value(st, *f.array.count, x, s), count); });
        }
      }
    }
    if (!f.resolved.count_shared.empty()) {
      const size_t a = length(member(k, st, x)), b = length(member(*k.count_shared, st, x));
      if (a != b)
        throw EncodeError(std::string(wh) + ": " + std::to_string(a) + " elements, but " + f.resolved.count_shared +
                          " (counted by the same field) has " + std::to_string(b));
    }
    }
    switch (k.kind) {
      case FieldKind::Virtual: break;
      case FieldKind::Scalar:
      case FieldKind::BitWord: put_scalar(st, k, o, x, s); break;
      case FieldKind::BlockRef: {
        const Value& v = member(k, st, x);
        if (f.pointer.null == Field::Null::Allowed && v.is_absent()) w.put_uint(o, static_cast<unsigned>(f.pointer.width), f.pointer.null_value, wh);
        else block_ref(f, v, o);
        break;
      }
      case FieldKind::PooledString: {
        const Value& v = member(k, st, x);
        if (f.pointer.points_to_chars) pool_of(f.pool).ref(v.str(), o, static_cast<uint8_t>(f.pointer.width), false, false, 2);
        else string_ref(f.pool, v.str(), o, f.pointer.width);
        break;
      }
      case FieldKind::Pointer:
      case FieldKind::ArrayPointer:
      case FieldKind::OwnString:
      case FieldKind::Dic:
        if (!f.resolved.fixed_offset || f.cond) at_.set(&x, &f, o);
        break;
      case FieldKind::Chars:
        // A const is a C string literal in the generated code: up to its first NUL.
        w.chars(o, f.role.const_text ? std::string_view(f.role.const_text->c_str()) : std::string_view(member(k, st, x).str()), f.type.chars, false, wh);
        break;
      case FieldKind::Bytes: {
        const Value& v = member(k, st, x);
        if (f.size_expr && !f.cond && write_evaluable(s_, st, *f.size_expr)) {
          const uint64_t want = eval(st, *f.size_expr, x);
          if (v.str().size() != want)
            throw EncodeError(std::string(wh) + ": " + std::to_string(v.str().size()) + " bytes, but its size " + gen::expr_text(*f.size_expr) +
                              " is " + std::to_string(want));
        }
        w.bytes(w.reserve(v.str().size()), v.str().data(), v.str().size());
        break;
      }
      case FieldKind::Slice: {
        const Value& v = member(k, st, x);
        const uint64_t align = f.pointer.align_field.empty() ? 0 : num(member(st, x, *st.field(f.pointer.align_field)));
        dpool_[static_cast<size_t>(region_id(f.pool))]->ref(
            std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(v.str().data()), v.str().size()), align, o,
            static_cast<uint8_t>(f.pointer.width), wh);
        break;
      }
      case FieldKind::PoolBlock: {
        const size_t i = static_cast<size_t>(region_id(f.pool));
        place_pool(i);
        const Pool& p = s_.pools[i];
        const Field* b = p.base.empty() ? nullptr : s_.find(s_.root)->field(p.base);
        if (b && b->type.kind == ValueType::PoolBlock) break;  // patched with the other file-wide pools, at the end
        if (spool_[i]) spool_[i]->patch(w);
        else if (dpool_[i]) dpool_[i]->patch(w);
        // Values over the pool (its size, say), now that it is placed.
        for (const auto& g : st.fields) {
          if (!g->role.derive || !gen::uses_scoped_pool(s_, *g->role.derive)) continue;
          const unsigned width = g->pointer.width ? static_cast<unsigned>(g->pointer.width) : static_cast<unsigned>(gen::prim_size(g->type.prim));
          w.put_uint(s + g->resolved.offset, width, late_value(st, *g->role.derive, x, s), what(st, *g));
        }
        break;
      }
      case FieldKind::CString: {
        const std::string& v = member(k, st, x).str();
        if (v.find('\0') != std::string::npos) throw EncodeError(std::string(wh) + ": a NUL inside a NUL-terminated string");
        w.bytes(w.reserve(v.size() + 1), v.data(), v.size());
        if (k.pad) w.align(k.pad);
        break;
      }
      case FieldKind::InlineStruct: {
        const Value& src = k.in_model ? member(k, st, x) : empty_struct();
        if (k.note_inline) at_.set(&x, &f, o);
        if (k.sub->fixed_size) put(*k.sub, src, o);
        else put(*k.sub, src, std::nullopt);
        break;
      }
      case FieldKind::ElemPointers:
        if (k.cursor) at_.set(&x, &f, o);
        if (!k.fixed_size) w.reserve(length(list(st, f, member(k, st, x))) * k.elem_width);
        break;
      case FieldKind::StringOffsets: {
        const Value& v = list(st, f, member(k, st, x));
        const uint64_t a = w.reserve(v.items().size() * 4);
        for (size_t i = 0; i < v.items().size(); ++i) string_ref(f.pool, v.items()[i].str(), a + i * 4, 4);
        break;
      }
      case FieldKind::InlineArray:
        put_inline_array(st, k, o, x);
        if (f.pad) w.align(f.pad);
        break;
      case FieldKind::OwnStrings: break;
      case FieldKind::Union: put_union(st, k, o, x); break;
    }
    // A field that runs until(E) ends where E says.
    if (!k.until) return;
    const Expr* until = f.size_expr ? &*f.size_expr : &*f.array.count;
    const std::function<bool(const Expr&)> derived = [&](const Expr& e) {
      if (e.kind == Expr::Ident && st.field(e.name) && st.field(e.name)->role.derive) return true;
      for (const auto& a : e.args)
        if (derived(a)) return true;
      return false;
    };
    if (write_evaluable(s_, st, until->args[0]) && !derived(until->args[0])) {
      const uint64_t end = eval(st, until->args[0], x);
      if (w.pos() != end)
        throw EncodeError(std::string(wh) + ": ends at " + hex(w.pos()) + ", but " + gen::expr_text(until->args[0]) + " is " + hex(end));
    }
  }

  // Inlined into put_ (Op::Scalar) and put_field: as a call of its own, its
  // entry and exit (the registers its cases need) were a third of its cost.
  [[gnu::always_inline]] void put_scalar(const Struct& st, const enc::Step& k, uint64_t o, const Value& x, uint64_t s) {
    switch (k.scalar) {
      case enc::Step::Scalar::Derive: w.put_uint(o, k.width, derived(k, st, x), k.what); return;
      case enc::Step::Scalar::DeriveAlso: {  // (put_scalar's general way below, from the step)
        const uint64_t d = derived(k, st, x);
        const uint64_t v = w.kept(o, d);
        bool ok = v == d;
        for (const uint64_t a : k.also) ok = ok || v == a;
        w.put_uint(o, k.width, ok ? v : d, k.what);
        return;
      }
      case enc::Step::Scalar::Count: w.put_uint(o, k.width, length(member(*k.count_for, st, x)), k.what); return;
      case enc::Step::Scalar::Bits: put_bits(k, o, member(k, st, x)); return;
      case enc::Step::Scalar::Const: store(o, k.prim, k.value); return;
      case enc::Step::Scalar::Tag: {
        const Field& u = *k.tag_for->f;
        store(o, k.prim, static_cast<uint64_t>(u.variant.cases[case_index(*k.tag_for, st, member(*k.tag_for, st, x))].tag));
        return;
      }
      case enc::Step::Scalar::Other: put_scalar_other(st, k, o, x, s); return;
    }
  }
  // put_scalar's general way: every scalar the step's short ways leave (its
  // own function, so that their frame is a small one).
  [[gnu::noinline]] void put_scalar_other(const Struct& st, const enc::Step& k, uint64_t o, const Value& x, uint64_t s) {
    const Field& f = *k.f;
    const char* wh = k.what;
    const unsigned width = k.pwidth;
    if (f.bom) {
      const uint64_t v = member(k, st, x).as_uint();
      w.at(o)[0] = static_cast<uint8_t>(v >> 8);
      w.at(o)[1] = static_cast<uint8_t>(v);
    } else if (f.role.derive && k.checks.derive_scoped) {
      // scoped pools are refused at load
    } else if (f.role.derive) {
      if (k.checks.derive_late) {
        w.late({o, static_cast<uint8_t>(width), f.role.derive_pointer,
                [this, &st, &f, &x, s]() -> uint64_t { return late_value(st, *f.role.derive, x, s); }, wh});
      } else {
        const uint64_t d = eval(st, *f.role.derive, x);
        if (!f.role.also.empty()) {
          const uint64_t v = w.kept(o, d);
          bool ok = v == d;
          for (int64_t a : f.role.also) ok = ok || v == static_cast<uint64_t>(a);
          w.put_uint(o, width, ok ? v : d, wh);
        } else {
          w.put_uint(o, width, d, wh);
        }
        if (f.role.derive_pointer) w.record_pointer(o, static_cast<uint8_t>(width), d == 0);
      }
    } else if (!f.resolved.count_for.empty()) {
      w.put_uint(o, width, length(member(*k.count_for, st, x)), wh);
    } else if (!f.resolved.tag_for.empty()) {
      const Field& u = *k.tag_for->f;
      store(o, f.type.prim, static_cast<uint64_t>(u.variant.cases[case_index(*k.tag_for, st, member(*k.tag_for, st, x))].tag));
    } else if (f.kind == FieldKind::BitWord) {
      const Value& word = member(k, st, x);
      if (word.kind != Value::Kind::Struct) throw EncodeError(std::string(wh) + ": a map of its bits expected");
      uint64_t v = 0;
      unsigned shift = 0;
      const auto& ws = word.fields();
      for (size_t bi = 0; bi < f.bits.size(); ++bi) {
        const auto& b = f.bits[bi];
        // The word's members are its bits in order, mostly: by index, the interned name's pointer compared.
        const Value* m = ws.named(bi, k.bits[bi].data());
        if (!m) m = word.find(b.name);
        if (!m) throw EncodeError(std::string(wh) + "." + b.name + ": missing");
        if (!b.pool.empty()) {
          pool_of(b.pool).ref_bits(m->str(), o, static_cast<uint8_t>(width), static_cast<uint8_t>(shift), static_cast<uint8_t>(b.width),
                                   static_cast<uint32_t>(b.scale));
          shift += b.width;
          continue;
        }
        const uint64_t mv = b.is_bool ? uint64_t(m->as_uint() != 0) : m->as_uint();
        if (!b.is_bool && b.width < 64 && (mv >> b.width))
          throw EncodeError(std::string(wh) + "." + b.name + ": value " + std::to_string(mv) + " does not fit in " + std::to_string(b.width) + " bits");
        v |= mv << shift;
        shift += b.width;
      }
      store(o, f.type.prim, v);
    } else if (!f.table.index_of.empty()) {
      // index_of: the string's place in its table (collected and ordered before the root was written).
      w.put_uint(o, width, table_index(f, member(k, st, x), wh), wh);
    } else if (f.true_value) {
      store(o, f.type.prim, member(k, st, x).as_uint() != 0 ? *f.true_value : 0);
    } else {
      uint64_t v;
      if (f.role.const_int) {
        v = static_cast<uint64_t>(*f.role.const_int);
      } else if (!f.in_model()) {
        v = 0;  // reserved: (not in the model)
      } else {
        v = fit(member(k, st, x), f.type.prim, wh);
      }
      if (!f.role.zero_when_empty.empty()) {
        if (length(member(*k.zero_counted, st, x)) == 0) {
          w.put_uint(o, width, w.kept(o, 0), wh);
          return;
        }
      }
      if (!f.role.valid.empty() && !f.role.const_int) {
        bool ok = false;
        const bool is_signed = gen::prim_is_signed(f.type.prim);
        for (int64_t vv : f.role.valid) ok = ok || (is_signed ? static_cast<int64_t>(v) == vv : v == static_cast<uint64_t>(vv));
        if (!ok) {
          std::string list;
          for (int64_t vv : f.role.valid)
            list += (list.empty() ? "" : ", ") + (f.spell.hex && vv >= 0 ? hex(static_cast<uint64_t>(vv)) : std::to_string(vv));
          const std::string shown = f.spell.hex ? hex(v) : is_signed ? std::to_string(static_cast<int64_t>(v)) : std::to_string(v);
          throw EncodeError(std::string(wh) + ": value " + shown + " is not one of " + list);
        }
      }
      if (!f.role.const_int) check24(f.type.prim, v, wh);
      store(o, f.type.prim, v);
    }
  }

  // A bit word with no pooled bits (Step::Scalar::Bits): as put_scalar's
  // general way, from the step's copy of its bits.
  void put_bits(const enc::Step& k, uint64_t o, const Value& word) {
    if (word.kind != Value::Kind::Struct) throw EncodeError(std::string(k.what) + ": a map of its bits expected");
    const Value* wv = word.fields().values();
    // The word's members are its bits in order, mostly: its shape says so
    // once, else each by index with the interned name's pointer compared.
    const bool ordered = word.fields().shape() == k.bits_shape;
    if (ordered) {
      // Bit i is member i: each bit packed with one mask of what is over its
      // limit (a bool's is 1: no select of `n != 0` per bit); a bit that does
      // not fit, or a bool that is not 0 or 1, is left to the loop below.
      uint64_t v = 0, over = 0;
      const enc::Step::Bit* b = k.bit_info.data();
      for (const Value* m = wv, *end = wv + k.bit_info.size(); m != end; ++m, ++b) {
        over |= m->as_uint() & b->over;
        v |= m->as_uint() << b->shift;
      }
      if (!over) {
        store(o, k.prim, v);
        return;
      }
    }
    const std::string_view* wn = word.fields().names();
    const size_t nw = word.fields().size();
    uint64_t v = 0;
    unsigned shift = 0;
    for (size_t bi = 0; bi < k.bit_info.size(); ++bi) {
      const enc::Step::Bit& b = k.bit_info[bi];
      const Value* m = ordered || (bi < nw && wn[bi].data() == k.bits[bi].data()) ? &wv[bi] : word.find(k.bits[bi]);
      if (!m) throw EncodeError(std::string(k.what) + "." + std::string(k.bits[bi]) + ": missing");
      const uint64_t mv = b.is_bool ? uint64_t(m->as_uint() != 0) : m->as_uint();
      if (!b.is_bool && b.width < 64 && (mv >> b.width))
        throw EncodeError(std::string(k.what) + "." + std::string(k.bits[bi]) + ": value " + std::to_string(mv) + " does not fit in " +
                          std::to_string(b.width) + " bits");
      v |= mv << shift;
      shift += b.width;
    }
    store(o, k.prim, v);
  }

  // The elements of list l in the order of their key (sort:), stable.
  std::vector<size_t> key_order(const Struct& et, const std::string& key, const Value& l) {
    std::vector<size_t> order(l.items().size());
    std::vector<uint64_t> keys(l.items().size());
    for (size_t i = 0; i < order.size(); ++i) {
      order[i] = i;
      keys[i] = sort_key(et, key, l.items()[i]);
    }
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return keys[a] < keys[b]; });
    return order;
  }
  // A sorted inline array's order, by its list's address: put_inline_array
  // sorts it, place_inline_children takes it (one sort per array written).
  std::unordered_map<const Value*, std::vector<size_t>> sorted_;

  uint64_t sort_key(const Struct& et, const std::string& key, const Value& e) {
    const Field* k = et.field(key);
    if (!k->table.index_of.empty()) return table_index(*k, member(et, e, *k), what(et, *k));  // a string of a sorted table: its index
    if (k->role.derive) return eval(et, *k->role.derive, e);
    return num(member(et, e, *k));
  }

  void put_inline_array(const Struct& st, const enc::Step& k, uint64_t o, const Value& x) {
    const Field& f = *k.f;
    const char* wh = k.what;
    const Value& v = list(st, f, member(k, st, x));
    const Struct* et = f.type.kind == ValueType::Struct ? f.type.st : nullptr;
    if (!et) {
      const enc::Num n = elem_num(f);
      const uint64_t sz = gen::prim_size(f.type.prim);
      if (f.resolved.fixed_size)
        store_elems(f, n, o, v, wh);
      else
        for (size_t i = 0; i < v.items().size(); ++i) store_elem(f, n, w.reserve(sz), v.items()[i], wh, i);
      return;
    }
    if (et && et->has_children && (!f.resolved.fixed_offset || f.cond)) at_.set(&x, &f, f.resolved.fixed_size ? o : w.pos());
    if (f.resolved.fixed_size) {
      for (size_t i = 0; i < v.items().size(); ++i) put(*k.sub, v.items()[i], o + i * et->size);
      return;
    }
    if (et && !f.array.sort.empty()) {
      std::vector<size_t> order = key_order(*et, f.array.sort, v);
      for (size_t i : order) put(*k.sub, v.items()[i], w.reserve(et->size));
      // place_inline_children follows the same order: kept for it (its keys not computed again).
      if (et->has_children && order.size() > 1) sorted_[&v] = std::move(order);
      return;
    }
    for (size_t i = 0; i < v.items().size(); ++i) {
      const Value& e = v.items()[i];
      if (!et) store_elem(f, w.reserve(gen::prim_size(f.type.prim)), e, wh, i);
      else if (et->fixed_size) put(*k.sub, e, w.reserve(et->size));
      else put(*k.sub, e, std::nullopt);
    }
  }

  void put_union(const Struct& st, const enc::Step& k, uint64_t o, const Value& x) {
    const Field& f = *k.f;
    const Value& v = member(k, st, x);
    if (f.array.on) {
      const Value& l = list(st, f, v);
      const uint64_t size = union_elem_size(f);
      const uint64_t a = w.reserve(l.items().size() * size);
      at_.set(&x, &f, a);
      for (size_t i = 0; i < l.items().size(); ++i) put_union_one(st, k, a + i * size, l.items()[i], x);
      return;
    }
    put_union_one(st, k, o, v, x);
  }

  void put_union_one(const Struct& st, const enc::Step& k, uint64_t o, const Value& xu, const Value& x) {
    const Field& f = *k.f;
    const size_t i = case_index(k, st, xu);
    const Case& c = f.variant.cases[i];
    const enc::Step::CaseStep& cs = k.cases[i];  // what the case needs, decided once
    const Field& p = *cs.p;
    const Value& v = xu.items()[0];
    if (cs.count_check) {
      const uint64_t have = length(v), want = eval(st, *p.array.count, x);
      if (have != want) check_count(what_case(st, f, c), have, want, gen::expr_text(*p.array.count).c_str());  // the text only then
    }
    uint64_t oo = o;
    if (cs.reserve) {
      uint64_t size = cs.padded;
      if (!p.resolved.fixed_size) size = (length(v) * cs.elem + f.variant.pad_to - 1) / f.variant.pad_to * f.variant.pad_to;
      oo = w.reserve(size);
    }
    const char* wh = *k.what ? k.what : what(st, f);
    switch (c.kind) {
      case CaseKind::PooledString: string_ref(p.pool, v.str(), oo, p.pointer.width); break;
      case CaseKind::OwnString:
      case CaseKind::OwnStrings:
      case CaseKind::StructPointer: break;
      case CaseKind::PooledBlock: block_ref(p, v, oo, static_cast<uint64_t>(c.tag), f.variant.tag_shift); break;
      case CaseKind::Number:
        if (cs.num.want != Value::Kind::Absent && enc::num_fits(cs.num, v)) store_num(cs.num, oo, v.number_bits());  // a plain number of its own kind
        else if (!p.table.index_of.empty()) w.put_uint(oo, static_cast<unsigned>(gen::prim_size(p.type.prim)), table_index(p, v, wh), wh);
        else if (p.true_value) store(oo, p.type.prim, v.as_uint() != 0 ? *p.true_value : 0);
        else {
          const uint64_t n = fit(v, p.type.prim, wh);
          check24(p.type.prim, n, wh);  // refused naming the union, as the generated code does
          store(oo, p.type.prim, n);
        }
        break;
      case CaseKind::Numbers: store_elems(p, cs.elems, oo, list(st, p, v), wh); break;
      case CaseKind::Struct:
        if (cs.tail) put(*cs.sub, v, std::nullopt);
        else put(*cs.sub, v, oo);
        break;
    }
  }

  // ---- place_T ----------------------------------------------------------------------

  void place_pool(size_t i) {
    if (spool_[i]) spool_[i]->place(w);
    else if (dpool_[i]) dpool_[i]->place(w);
    else bpool_[i]->pool.place(w);
  }
  bool pool_placed(size_t i) const {
    return spool_[i] ? spool_[i]->placed() : dpool_[i] ? dpool_[i]->placed() : bpool_[i]->pool.placed();
  }

  // ---- Block pools (block_fn, intern_fn) -------------------------------------------

  bool file_pool(const std::string& pool) const {
    const Pool* p = pool.empty() ? nullptr : s_.pool(pool);
    return p && p->kind != Pool::Kind::Block && p->scope.empty() && p->shared;
  }
  void intern(const Struct& st, const Value& x) {
    for (const auto& fp : st.fields) {
      const Field& f = *fp;
      if (!f.in_model() || f.is_virtual) continue;
      const Value* v = x.find(f.name);
      if (!v) continue;
      for (const auto& b : f.bits)
        if (file_pool(b.pool))
          if (const Value* m = v->find(b.name)) pool_of(b.pool).keep(m->str());
      if (f.type.kind == ValueType::String && file_pool(f.pool)) {
        if (f.array.on)
          for (const Value& e : v->items()) pool_of(f.pool).keep(e.str());
        else pool_of(f.pool).keep(v->str());
      } else if (f.type.kind == ValueType::Struct && !s_.in_block_pool(f)) {
        if (f.array.on)
          for (const Value& e : v->items()) intern(*f.type.st, e);
        else if (f.pointer.width && f.pointer.null == Field::Null::Allowed) {
          if (!v->is_absent()) intern(*f.type.st, *v);
        } else intern(*f.type.st, *v);
      } else if (f.type.kind == ValueType::Union && !f.array.on && v->kind == Value::Kind::Union && v->items().size() == 1) {
        for (const auto& c : f.variant.cases) {
          if (c.name != v->str()) continue;
          const Field& p = *c.field;
          if (p.type.kind == ValueType::String && file_pool(p.pool) && !p.array.on) pool_of(p.pool).keep(v->items()[0].str());
          else if (p.type.kind == ValueType::Struct && !p.array.on && !s_.in_block_pool(p)) intern(*p.type.st, v->items()[0]);
        }
      }
    }
  }
  // block_P_T: the index of v's block in pool P (an equal one's when shared).
  uint32_t block(const Field& f, const Value& v) {
    const size_t i = static_cast<size_t>(region_id(f.pool));
    const Pool& p = s_.pools[i];
    Blocks& b = *bpool_[i];
    const Struct& st = *f.type.st;
    if (p.shared) {
      const size_t h = hash_of(v) ^ std::hash<const void*>()(&st);
      for (auto [it, end] = b.index.equal_range(h); it != end; ++it)
        if (*b.blocks[it->second] == v) return it->second;
      b.index.emplace(h, static_cast<uint32_t>(b.blocks.size()));
      b.blocks.push_back(&v);
    }
    intern(st, v);
    return b.pool.add([this, &st, &v]() -> uint64_t {
      w.align(st.align);
      const uint64_t t = w.pos();
      if (st.fixed_size) put(st, v, w.reserve(st.size));
      else put(st, v, std::nullopt);
      if (st.has_children) place(st, v, t);
      return t;
    });
  }
  void block_ref(const Field& f, const Value& v, uint64_t slot, uint64_t tag = 0, unsigned shift = 0) {
    const uint32_t k = block(f, v);
    bpool_[static_cast<size_t>(region_id(f.pool))]->pool.ref(k, slot, static_cast<uint8_t>(f.pointer.width), tag, static_cast<uint8_t>(shift));
  }

  bool cond_true(const Struct& st, const Field& f, const Value& x) { return !f.cond || eval(st, *f.cond, x) != 0; }

  void place(const Struct& st, const Value& x, uint64_t s) {
    const enc::StructSteps& ss = steps_of(st);
    const Frame frame(*this, ss, x);
    // Where shallow targets went, and the children placed before the struct
    // itself: made when a layout item needs them (an empty map's and set's
    // destructors were two calls per struct placed).
    std::optional<std::map<std::string, uint64_t>> shallow_at;
    const auto shallow = [&shallow_at]() -> std::map<std::string, uint64_t>& { return shallow_at ? *shallow_at : shallow_at.emplace(); };
    bool before_self = st.has_self;
    std::optional<std::set<std::string>> pre_children;
    for (size_t j = 0; j < st.layout.size(); ++j) {
      const LayoutItem& li = st.layout[j];
      const enc::Step* k = ss.layout[j];  // the field it names
      if (before_self) {
        // Placed by pre_place: fill in the pointers now that the struct exists.
        if (li.kind == LayoutItem::Self) before_self = false;
        else if (li.kind == LayoutItem::FieldTarget) patch_field(st, *k->f, x, s);
        else if (li.kind == LayoutItem::Children) (pre_children ? *pre_children : pre_children.emplace()).insert(li.name);
        continue;
      }
      if (li.kind == LayoutItem::Shallow && pre_children && pre_children->count(li.name)) {
        const Field& f = *k->f;
        place_target(st, f, &shallow(), x, s);
        const Value& l = list(st, f, member(*k, st, x));
        for (size_t i = 0; i < l.items().size(); ++i) patch(*f.type.st, l.items()[i], shallow()[f.name] + i * f.type.st->size);
        continue;
      }
      switch (li.kind) {
        case LayoutItem::Pool: {
          if (s_.section(li.name)) {
            place_section(st, li.name);
            continue;
          }
          const size_t i = static_cast<size_t>(region_id(li.name));
          if (pool_placed(i))
            throw EncodeError("pool '" + li.name + "' placed twice: the layout of " + st.name + " places it, so " + st.name +
                              " must be written exactly once");
          w.to_end();
          place_pool(i);
          continue;
        }
        case LayoutItem::Align: w.align(li.n); continue;
        case LayoutItem::Zeros: w.reserve(li.n); continue;
        case LayoutItem::Children: {
          const Field& f = *k->f;
          if (!f.pointer.width && !f.pointer.elem_width) place_inline_children(st, *k, x, s);
          else place_children(st, f, x, shallow()[f.name]);
          continue;
        }
        case LayoutItem::Self: continue;
        case LayoutItem::FieldTarget:
        case LayoutItem::Shallow: break;
      }
      const Field& f = *k->f;
      if (k->cond && !eval(st, *k->cond, x)) continue;  // (cond_true, from the step)
      if (!k->has_ptr) place_inline_pointers(st, *k, x, s);
      else if (k->in_section) enqueue(st, f, -1, x, s);
      else place_target(st, f, li.kind == LayoutItem::Shallow ? &shallow() : nullptr, x, s);
    }
    // What the active case of a union points to.
    for (const enc::Step* k : ss.unions) {
      const Field& u = *k->f;
      if (k->cond && !eval(st, *k->cond, x)) continue;
      const Value& uv = member(*k, st, x);
      if (k->array_on) {
        const Value& l = list(st, u, uv);
        if (l.items().empty()) continue;
        const uint64_t size = union_elem_size(u);
        const uint64_t a = field_at(u, x, s);
        for (size_t i = 0; i < l.items().size(); ++i) place_case(st, *k, l.items()[i], a + i * size, s, x);
      } else {
        place_case(st, *k, uv, s + u.resolved.offset, s, x);
      }
    }
    for (const enc::Step* k : ss.children) place_inline_children(st, *k, x, s);
  }

  void place_case(const Struct& st, const enc::Step& uk, const Value& xu, uint64_t slot0, uint64_t s, const Value& x) {
    const Field& u = *uk.f;
    const size_t i = case_index(uk, st, xu);
    const Case& c = u.variant.cases[i];
    const Field& p = *c.field;
    const Value& v = xu.items()[0];
    switch (c.kind) {
      case CaseKind::OwnString:
        place_pascal(v.str(), s + u.resolved.offset, p.pointer.width, p.pointer.align ? p.pointer.align : 2, what(st, u),
                     p.pointer.base == Field::Base::Struct ? s : 0);
        break;
      case CaseKind::OwnStrings: {
        const char* wh = what(st, u);
        const Value& l = list(st, p, v);
        for (size_t k = 0; k < l.items().size(); ++k)
          place_pascal(l.items()[k].str(), s + u.resolved.offset + k * static_cast<uint64_t>(p.pointer.elem_width), p.pointer.elem_width,
                       p.pointer.align ? p.pointer.align : 2, wh, 0);
        break;
      }
      case CaseKind::StructPointer:
        if (!p.section.empty()) enqueue(st, u, static_cast<int>(i), x, s, uk.array_on ? nullptr : &v);
        else place_case_struct(st, u, i, v, slot0, s);
        break;
      case CaseKind::Struct:
        if (p.type.st->has_children) place(*p.type.st, v, slot0);
        break;
      default: break;
    }
  }

  void place_inline_children(const Struct& st, const enc::Step& k, const Value& x, uint64_t s) {
    const Field& f = *k.f;
    const Struct& et = *f.type.st;
    if (!et.has_children) return;
    if (k.cond && !eval(st, *k.cond, x)) return;
    const Value& v = member(k, st, x);
    const uint64_t a = field_at(f, x, s);
    if (f.array.on && !f.array.sort.empty()) {
      // Written in key order (put_inline_array): the element at place i is the i-th by key.
      const Value& l = list(st, f, v);
      std::vector<size_t> order;
      if (auto it = sorted_.find(&l); it != sorted_.end()) {
        order = std::move(it->second);
        sorted_.erase(it);
      }
      if (order.size() != l.items().size()) {
        if (l.items().size() < 2) order.assign(l.items().size(), 0);  // no keys to compare
        else order = key_order(et, f.array.sort, l);
      }
      for (size_t i = 0; i < order.size(); ++i) place(et, l.items()[order[i]], a + i * et.size);
    } else if (f.array.on) {
      const Value& l = list(st, f, v);
      for (size_t i = 0; i < l.items().size(); ++i) place(et, l.items()[i], a + i * et.size);
    } else {
      place(et, v, a);
    }
  }

  void place_children(const Struct& st, const Field& f, const Value& x, uint64_t t) {
    const Struct& et = *f.type.st;
    const Value& v = member(st, x, f);
    if (f.pointer.elem_width) {
      const int region = f.region.empty() ? -1 : region_id(f.region);
      const char* wh = what(st, f);
      const Value& l = list(st, f, v);
      const uint64_t ew = static_cast<uint64_t>(f.pointer.elem_width);
      for (size_t i = 0; i < l.items().size(); ++i) {
        uint64_t e;
        if (et.has_self) {
          w.to_end();
          pre_place(et, l.items()[i]);
          w.align(et.align);
          e = w.pos();
          w.pointer(t + i * ew, static_cast<uint8_t>(ew), e, 0, wh);
        } else {
          e = w.place_target(t + i * ew, et.fixed_size ? et.size : 0, et.align, static_cast<uint8_t>(ew), 0, wh);
        }
        if (region >= 0 && i == 0) w.mark_start(region);
        if (et.fixed_size) put(et, l.items()[i], w.reserve(et.size));
        else put(et, l.items()[i], std::nullopt);
        if (et.has_children) place(et, l.items()[i], e);
      }
      if (region >= 0 && !l.items().empty()) w.mark_end(region);
      return;
    }
    if (!et.has_children) return;
    if (f.array.on) {
      const Value& l = list(st, f, v);
      for (size_t i = 0; i < l.items().size(); ++i) place(et, l.items()[i], t + i * et.size);
    } else if (f.pointer.null == Field::Null::Allowed) {
      if (!v.is_absent()) place(et, v, t);
    } else {
      place(et, v, t);
    }
  }

  void place_pascal(const std::string& v, uint64_t slot, int width, uint64_t align, const char* wh, uint64_t base) {
    if (v.size() > 0xffff) throw EncodeError(std::string(wh) + ": string longer than 65535 bytes");
    const uint64_t t = w.place_target(slot, 2 + v.size() + 1, align, static_cast<uint8_t>(width), base, wh);
    w.reserve(2 + v.size() + 1);
    w.template put<uint16_t>(t, static_cast<uint16_t>(v.size()));
    w.bytes(t + 2, v.data(), v.size());
  }

  void place_inline_pointers(const Struct& st, const enc::Step& k, const Value& x, uint64_t s) {
    const Field& f = *k.f;
    const Value& l = list(st, f, member(k, st, x));
    if (l.items().empty()) return;  // (no target: nothing more to work out)
    const Struct& et = *f.type.st;
    const char* wh = *k.what ? k.what : what(st, f);
    const uint64_t align = f.pointer.align ? f.pointer.align : et.align;
    const uint64_t a = field_at(f, x, s);
    const uint64_t ew = static_cast<uint64_t>(f.pointer.elem_width);
    for (size_t i = 0; i < l.items().size(); ++i) {
      const uint64_t e = w.append_target(a + i * ew, align, static_cast<uint8_t>(ew), 0, wh);
      if (et.fixed_size) put(et, l.items()[i], w.reserve(et.size));
      else put(et, l.items()[i], std::nullopt);
      if (et.has_children) place(et, l.items()[i], e);
    }
  }

  // Compares two elements' sort: key fields as their C++ types compare.
  static bool less(const Value& a, const Value& b) {
    switch (a.kind) {
      case Value::Kind::Int: return a.as_int() < b.as_int();
      case Value::Kind::Float:
      case Value::Kind::Double: return a.as_double() < b.as_double();
      case Value::Kind::String:
      case Value::Kind::Bytes: return a.str() < b.str();
      default: return a.as_uint() < b.as_uint();
    }
  }

  // What place_target reads of a pointer field for every target it writes,
  // decided once per field (direct-mapped by the field's address: a miss
  // recomputes them).
  struct PtrFacts {
    const Field* f = nullptr;
    const char* wh = "";
    int member = -1;             // f's member in st's values (the plan's)
    const char* name = nullptr;  // its name, interned
    uint64_t align = 0;   // the target's alignment
    int region = -1;      // f.region's id (-1: none)
    bool in_model = false;
    const Struct* et = nullptr;  // a struct target's type
    const enc::StructSteps* ets = nullptr;
    const std::string* type = nullptr;  // its target's type (type_of)
    // The field's pointer, as place_target reads it for every target (or none) it places.
    bool table = false;        // a table's strings (table:)
    bool special = false;      // an inline Pascal string or a DIC: their own ways
    bool fixed_at = false;     // where the struct says (field_at without a look-up)
    bool base_struct = false;  // offsets from the struct's start
    bool array_on = false;
    bool register_null = false;
    bool fixed_offset = false;
    bool scale1 = true;
    Field::Null null = Field::Null::Never;
    uint8_t width = 0;
    uint64_t elem_width = 0;
    uint64_t offset = 0;
    uint64_t null_value = 0;
    uint64_t elem_size = 0;    // an element's size in the target (0: a struct's, or unknown)
  };
  PtrFacts ptr_facts_[256];
  const PtrFacts& ptr_facts(const Struct& st, const Field& f) {
    PtrFacts& e = ptr_facts_[(reinterpret_cast<uintptr_t>(&f) >> 4) * 0x9e3779b97f4a7c15ull >> 56];
    if (e.f == &f) return e;
    e.f = &f;
    e.wh = what(st, f);
    const FieldInfo& fi = info(f);
    e.member = fi.member;
    e.name = fi.name.data();
    e.region = f.region.empty() ? -1 : region_id(f.region);
    e.in_model = f.in_model();
    e.et = f.type.kind == ValueType::Struct ? f.type.st : nullptr;
    e.ets = e.et ? &steps_of(*e.et) : nullptr;
    e.type = type_name(type_of(f, f.array.on));
    uint64_t align = f.pointer.align;
    if (!align) {
      if (f.pointer.elem_width) align = static_cast<uint64_t>(f.pointer.elem_width);
      else if (e.et) align = e.et->align;
      else if (f.type.kind == ValueType::Prim) align = gen::prim_size(f.type.prim);
      else align = static_cast<uint64_t>(f.pointer.width);
    }
    e.align = std::max(align, f.pointer.scale);
    e.table = !f.table.order.empty();
    e.special = (f.type.kind == ValueType::String && f.pointer.inline_pascal && !f.array.on) || f.type.kind == ValueType::Dic;
    e.fixed_at = f.resolved.fixed_offset && !f.cond && !(f.type.kind == ValueType::Union && f.array.on);
    e.base_struct = f.pointer.base == Field::Base::Struct;
    e.array_on = f.array.on;
    e.register_null = f.pointer.register_null;
    e.fixed_offset = f.resolved.fixed_offset;
    e.scale1 = f.pointer.scale == 1;
    e.null = f.pointer.null;
    e.width = static_cast<uint8_t>(f.pointer.width);
    e.elem_width = static_cast<uint64_t>(f.pointer.elem_width);
    e.offset = f.resolved.offset;
    e.null_value = f.pointer.null_value;
    e.elem_size = f.pointer.elem_width                   ? static_cast<uint64_t>(f.pointer.elem_width)
                  : f.type.kind == ValueType::Prim   ? gen::prim_size(f.type.prim)
                  : f.type.kind == ValueType::String ? static_cast<uint64_t>(f.pointer.width)
                                                     : 0;
    return e;
  }

  // shallow_at: a shallow target's (its place noted there, its children
  // placed later); null: any other.
  void place_target(const Struct& st, const Field& f, std::map<std::string, uint64_t>* shallow_at, const Value& xs, uint64_t s,
                    bool record = false) {
    const bool shallow = shallow_at != nullptr;
    const PtrFacts pf = ptr_facts(st, f);  // a copy: the walk below may reuse its entry
    const Value& xv = pf.table ? table_value(f) : pf.in_model ? member(pf.member, pf.name, st, xs, f) : empty_struct();
    const uint64_t slot = pf.fixed_at ? s + pf.offset : field_at(f, xs, s);
    const uint64_t base = pf.base_struct ? s : 0;
    const char* wh = pf.wh;
    const uint8_t width = pf.width;
    const int region = pf.elem_width && shallow ? -1 : pf.region;
    const uint64_t align = pf.align;
    const Struct* et = pf.et;
    if (pf.special) [[unlikely]] { place_special(st, f, xs, xv, s, slot, base, width, wh); return; }
    // What an absent target leaves in the slot.
    enum class Null { None, Register, Value, Empty } nb = pf.register_null && !record ? Null::Register : Null::None;
    if (pf.null_value && pf.null == Field::Null::Allowed && !pf.array_on) nb = Null::Value;
    const bool hooked = pf.fixed_offset && !record;
    const bool register_too = nb != Null::None;
    if (pf.array_on && pf.null == Field::Null::WhenEmpty && hooked) nb = Null::Empty;
    auto null_branch = [&] {
      switch (nb) {
        case Null::None: break;
        case Null::Register: w.record_pointer(slot, width, true); break;
        case Null::Value: w.put_uint(slot, width, pf.null_value, wh); break;
        case Null::Empty: w.empty_target(slot, width, wh, register_too); break;
      }
    };
    const Value* x = &xv;
    uint64_t n = 0;
    if (pf.array_on) {
      n = length(list(st, f, xv));
      if (pf.null == Field::Null::WhenEmpty && n == 0) {
        null_branch();
        return;
      }
    } else if (pf.null == Field::Null::Allowed) {
      if (xv.is_absent()) {
        null_branch();
        return;
      }
    }
    uint64_t size = kUnknownSize;
    if (!pf.array_on) {
      if (et && et->fixed_size) size = et->size;
    } else if (pf.elem_size) {
      size = n * pf.elem_size;
    } else if (et && et->fixed_size) {
      size = n * et->size;
    } else {
      size = n ? kUnknownSize : 0;
    }
    const bool shares = hooked && !shallow && region < 0 && pf.in_model && !(et && et->has_self) && !(pf.array_on && pf.elem_width) && pf.scale1;
    place_rest(st, f, xv, x, n, size, shares, hooked, slot, base, wh, width, region, align, pf, shallow_at, record);
  }
  // place_target's inline Pascal string and DIC.
  void place_special(const Struct& st, const Field& f, const Value& xs, const Value& xv, uint64_t s, uint64_t slot, uint64_t base, uint8_t width,
                     const char* wh) {
    if (f.type.kind == ValueType::String && f.pointer.inline_pascal && !f.array.on) {
      place_pascal(xv.str(), s + f.resolved.offset, f.pointer.width, f.pointer.align ? f.pointer.align : 2, wh, base);
      return;
    }
    if (f.type.kind == ValueType::Dic) {
      // A dictionary of the names of an array's elements, built as Nintendo's tools build it.
      const Field& arr = *st.field(f.keys_array);
      const Value& l = list(st, arr, member(st, xs, arr));
      std::vector<std::string_view> names;
      names.reserve(l.items().size());
      for (const Value& e : l.items()) names.push_back(member(*arr.type.st, e, *arr.type.st->field(f.keys_field)).str());
      const auto entries = dic_words(names);
      const uint64_t t = w.append_target(slot, 8, width, base, wh);
      w.reserve(8 + 0x10 * entries.size());
      w.bytes(t, "DIC ", 4);
      w.template put<uint32_t>(t + 4, static_cast<uint32_t>(entries.size() - 1));
      for (size_t i = 0; i < entries.size(); ++i) {
        const uint64_t e = t + 8 + 0x10 * i;
        w.template put<uint32_t>(e, entries[i].bit);
        w.template put<uint16_t>(e + 4, entries[i].left);
        w.template put<uint16_t>(e + 6, entries[i].right);
        string_ref(f.pool, i ? names[i - 1] : std::string_view(), e + 8, 8);
      }
      return;
    }
  }
  // The rest of place_target: a target to place (its slot's null cases are done).
  void place_rest(const Struct& st, const Field& f, const Value& xv, const Value* x, uint64_t n, uint64_t size, bool shares,
                  bool hooked, uint64_t slot, uint64_t base, const char* wh, uint8_t width, int region, uint64_t align, const PtrFacts& pf,
                  std::map<std::string, uint64_t>* shallow_at, bool record) {
    const bool shallow = shallow_at != nullptr;
    (void)st;
    const Struct* et = pf.et;
    const enc::StructSteps* ets = pf.ets;
    const bool leaf = shares && (f.array.on ? f.type.kind == ValueType::Prim || (ets && ets->plain) : ets && ets->plain);
    if (!f.array.on && et && !et->has_self && !record)
      for (const auto& ia : ets->inner_align) w.align_inner(slot, num(member(*et, *x, *ia.first)), ia.second);
    uint64_t t = 0;
    if (shares && !lay_ && !f.pointer.share_equal) {
      // Without a layout, place_shared and place_leaf are place_target.
      t = w.place_target(slot, size, align, width, base, wh);
    } else if (shares) {
      const Typed& value = typed(*x, pf.type);
      if (f.pointer.share_equal) {
        const size_t h = hash_of(*x) ^ std::hash<const void*>()(value.type);
        if (const uint64_t u = w.equal_at(slot, value, h); u != kNotShared) {
          w.pointer(slot, width, u, base, wh);
          return;
        }
        t = leaf ? w.place_leaf(slot, size, align, width, base, wh, value) : w.place_shared(slot, size, align, width, base, wh, value);
        if (t == kShared) return;
        w.note_equal(t, value, h);
      } else {
        t = leaf ? w.place_leaf(slot, size, align, width, base, wh, value) : w.place_shared(slot, size, align, width, base, wh, value);
        if (t == kShared) return;
      }
    } else if (!f.array.on && et && et->has_self) {
      w.to_end();
      pre_place(*et, *x);
    } else if (!record) {
      if (hooked) t = w.place_target(slot, size, align, width, base, wh, f.pointer.scale);
      else t = w.append_target(slot, align, width, base, wh, f.pointer.scale);
    } else {
      w.to_end();
    }
    if (record || (!f.array.on && et && et->has_self)) {
      w.align(align);
      t = w.pos();
    }
    if (region >= 0) w.mark_start(region);
    if (record) placed_[&xv] = t;
    else if (!f.array.on && et && et->has_self) pointer_call(f, slot, t, base, wh);
    if (shallow) (*shallow_at)[f.name] = t;
    if (!f.array.on) {
      if (et->fixed_size) put(*et, *x, w.reserve(et->size));
      else put(*et, *x, std::nullopt);
      if (et->has_children && !shallow) place(*et, *x, t);
    } else {
      const Value& l = *x;
      // The elements in key order (sort:), else as they are (no index list to build).
      std::vector<uint32_t> order;
      if (!f.array.sort.empty()) {
        order.resize(n);
        for (uint32_t i = 0; i < n; ++i) order[i] = i;
        const Field& k = *et->field(f.array.sort);
        std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
          return less(member(*et, l.items()[a], k), member(*et, l.items()[b], k));
        });
      }
      const uint32_t* ord = order.empty() ? nullptr : order.data();
      auto elem = [&](uint64_t i) -> const Value& { return l.items()[ord ? ord[i] : i]; };
      if (f.pointer.elem_width && shallow) {
        w.reserve(n * static_cast<uint64_t>(f.pointer.elem_width));
      } else if (f.pointer.elem_width) {
        const uint64_t ew = static_cast<uint64_t>(f.pointer.elem_width);
        const uint64_t a = w.reserve(n * ew);
        const enc::StructSteps& ess = steps_of(*et);  // (once, not per element)
        for (uint64_t i = 0; i < n; ++i) {
          const uint64_t e = w.place_target(a + i * ew, et->fixed_size ? et->size : 0, et->align, static_cast<uint8_t>(ew), 0, wh);
          if (et->fixed_size) put(ess, elem(i), w.reserve(et->size));
          else put(ess, elem(i), std::nullopt);
          if (et->has_children) place(*et, elem(i), e);
        }
      } else if (f.type.kind == ValueType::Prim) {
        const uint64_t sz = gen::prim_size(f.type.prim);
        const uint64_t a = w.reserve(n * sz);
        const enc::Num num = elem_num(f);
        for (uint64_t i = 0; i < n; ++i) store_elem(f, num, a + i * sz, elem(i), wh, i);
      } else if (f.type.kind == ValueType::String) {
        const uint64_t a = w.reserve(n * static_cast<uint64_t>(f.pointer.width));
        for (uint64_t i = 0; i < n; ++i) string_ref(f.pool, elem(i).str(), a + i * static_cast<uint64_t>(f.pointer.width), f.pointer.width);
      } else if (et->fixed_size) {
        const uint64_t a = w.reserve(n * et->size);
        const enc::StructSteps& ess = steps_of(*et);
        for (uint64_t i = 0; i < n; ++i) put(ess, elem(i), a + i * et->size);
        if (et->has_children && !shallow)
          for (uint64_t i = 0; i < n; ++i) place(*et, elem(i), a + i * et->size);
      } else {
        std::vector<uint64_t> starts(n);
        const enc::StructSteps& ess = steps_of(*et);
        for (uint64_t i = 0; i < n; ++i) starts[i] = put(ess, elem(i), std::nullopt);
        if (et->has_children)
          for (uint64_t i = 0; i < n; ++i) place(*et, elem(i), starts[i]);
      }
    }
    if (region >= 0) w.mark_end(region);
    if (leaf) w.leaf_done(t);
  }

  void pointer_call(const Field& f, uint64_t slot, uint64_t target, uint64_t base, const char* wh) {
    if (f.pointer.scale == 1) w.pointer(slot, static_cast<uint8_t>(f.pointer.width), target, base, wh);
    else w.pointer_scaled(slot, static_cast<uint8_t>(f.pointer.width), target, base, f.pointer.scale, wh);
  }

  // patch_field: fills in the pointer of field f (of x, at s) from what pre_place placed.
  void patch_field(const Struct& st, const Field& f, const Value& x, uint64_t s) {
    const uint64_t slot = s + f.resolved.offset;
    const Value* v = x.find(f.name);
    if (auto it = v ? placed_.find(v) : placed_.end(); it != placed_.end())
      pointer_call(f, slot, it->second, f.pointer.base == Field::Base::Struct ? s : 0, what(st, f));
    else if (f.pointer.register_null)
      w.record_pointer(slot, static_cast<uint8_t>(f.pointer.width), true);
  }

  // pre_place_T: what T's layout places before T itself.
  void pre_place(const Struct& st, const Value& x) {
    for (const auto& li : st.layout) {
      if (li.kind == LayoutItem::Self) break;
      switch (li.kind) {
        case LayoutItem::Align: w.align(li.n); break;
        case LayoutItem::Zeros: w.reserve(li.n); break;
        case LayoutItem::Children: {
          const Field& f = *st.field(li.name);
          for (const Value& e : list(st, f, member(st, x, f)).items()) preplace(*f.type.st, e);
          break;
        }
        case LayoutItem::FieldTarget:
          if (cond_true(st, *st.field(li.name), x)) place_target(st, *st.field(li.name), nullptr, x, 0, true);
          break;
        default: break;
      }
    }
  }
  // preplace_E / patch_E: E's targets placed before E, and E's pointers filled in later.
  void preplace(const Struct& st, const Value& x) {
    for (const auto& li : st.layout) {
      switch (li.kind) {
        case LayoutItem::Align: w.align(li.n); break;
        case LayoutItem::Zeros: w.reserve(li.n); break;
        case LayoutItem::FieldTarget:
          if (cond_true(st, *st.field(li.name), x)) place_target(st, *st.field(li.name), nullptr, x, 0, true);
          break;
        default: break;
      }
    }
  }
  void patch(const Struct& st, const Value& x, uint64_t s) {
    for (const auto& li : st.layout)
      if (li.kind == LayoutItem::FieldTarget) patch_field(st, *st.field(li.name), x, s);
  }

  // ---- Sections --------------------------------------------------------------------

  void enqueue(const Struct& st, const Field& f, int case_index, const Value& x, uint64_t s, const Value* payload = nullptr) {
    const std::string& section = case_index < 0 ? f.section : f.variant.cases[static_cast<size_t>(case_index)].field->section;
    Section& q = this->section(section);
    if (q.done)
      throw EncodeError(st.name + "." + f.name + ": a target of section '" + section +
                        "' comes after the section was placed (place the section later in the layout)");
    q.items.push_back({&st, &f, case_index, &x, s, payload});
  }
  uint64_t section_align(const std::string& name) const {
    uint64_t a = 1;
    for (const auto& st : s_.structs)
      for (const auto& f : st->fields) {
        auto one = [&](const Field& p) {
          if (p.section != name) return;
          const uint64_t pa = p.pointer.align ? p.pointer.align : p.type.st ? p.type.st->align : 1;
          a = std::max({a, pa, p.pointer.scale});
        };
        one(*f);
        for (const auto& c : f->variant.cases) one(*c.field);
      }
    return a;
  }
  void place_section(const Struct& st, const std::string& name) {
    Section& sec = section(name);
    if (sec.done)
      throw EncodeError("section '" + name + "' placed twice: the layout of " + st.name + " places it, so " + st.name +
                        " must be written exactly once");
    const int id = region_id(name);
    w.to_end();
    w.mark_start(id);
    auto& q = sec.items;
    for (size_t i = 0; i < q.size(); ++i) {
      const SectionItem it = q[i];
      if (it.case_index < 0) {
        place_target(*it.st, *it.f, nullptr, *it.x, it.s);
      } else {
        const Value& v = it.payload ? *it.payload : member(*it.st, *it.x, *it.f).items()[0];
        place_case_struct(*it.st, *it.f, static_cast<size_t>(it.case_index), v, it.s + it.f->resolved.offset, it.s);
      }
    }
    sec.done = true;
    q.clear();
    w.to_end();
    w.mark_end(id);
    w.check_packed(id, section_align(name));
  }

  void place_case_struct(const Struct& st, const Field& u, size_t i, const Value& v, uint64_t slot, uint64_t s) {
    const Case& c = u.variant.cases[i];
    const Field& p = *c.field;
    const Struct& pt = *p.type.st;
    const char* wh = what(st, u);
    const uint64_t base = p.pointer.base == Field::Base::Struct ? s : 0;
    const uint64_t align = std::max(p.pointer.align ? p.pointer.align : pt.align, p.pointer.scale);
    const uint64_t size = pt.fixed_size ? pt.size : kUnknownSize;
    // "struct T" and whether T is plain, once per payload type.
    const enc::StructSteps& pts = steps_of(pt);
    if (case_struct_.size() <= pts.index) case_struct_.resize(s_.structs.size());
    CaseStruct& known = case_struct_[pts.index];
    if (known.st != &pt) known = {&pt, type_name("struct " + pt.name), pts.plain};
    typed_.push_back({&v, known.type});
    const Typed& value = typed_.back();
    const bool leaf = known.plain;
    const uint8_t width = static_cast<uint8_t>(p.pointer.width);
    for (const auto& ia : steps_of(pt).inner_align) w.align_inner(slot, num(member(pt, v, *ia.first)), ia.second);
    const uint64_t tag = static_cast<uint64_t>(c.tag) << u.variant.tag_shift;
    auto word = [&](uint64_t at) {
      uint64_t off = base ? at - s : at;
      off += p.pointer.points_to_offset;
      if (p.pointer.scale != 1) {
        if (off % p.pointer.scale) throw EncodeError(std::string(wh) + ": offset " + hex(off) + " is not a multiple of its scale " + std::to_string(p.pointer.scale));
        off /= p.pointer.scale;
      }
      if (u.variant.tag_shift < 64 && (off >> u.variant.tag_shift)) throw EncodeError(std::string(wh) + ": offset " + hex(off) + " does not fit below its tag");
      w.pointer(slot, width, off | tag, 0, wh);
    };
    size_t h = 0;
    if (p.pointer.share_equal) {
      h = hash_of(v) ^ std::hash<const void*>()(value.type);
      if (const uint64_t uu = w.equal_at(slot, value, h); uu != kNotShared) {
        if (!u.variant.tag_shift) w.pointer(slot, width, uu, base, wh);
        else word(uu);
        return;
      }
    }
    uint64_t t;
    if (!u.variant.tag_shift) {
      t = leaf ? w.place_leaf(slot, size, align, width, base, wh, value) : w.place_shared(slot, size, align, width, base, wh, value);
      if (t == kShared) return;
      if (p.pointer.share_equal) w.note_equal(t, value, h);
    } else {
      if (leaf && pt.fixed_size) {
        t = w.place_leaf_word(slot, size, align, width, base, wh, value, p.pointer.scale, p.pointer.points_to_offset, static_cast<uint64_t>(c.tag),
                              u.variant.tag_shift);
        if (t == kShared) return;
        if (p.pointer.share_equal) w.note_equal(t, value, h);
        put(pt, v, w.reserve(pt.size));
        w.leaf_done(t);
        return;
      }
      if (const uint64_t uu = w.shared_at(slot, value, align); uu != kNotShared) {
        word(uu);
        return;
      }
      w.place_block(slot, size, align);
      w.align(align);
      t = w.pos();
      word(t);
      w.note_block(t, value);
      if (p.pointer.share_equal) w.note_equal(t, value, h);
    }
    if (pt.fixed_size) put(pt, v, w.reserve(pt.size));
    else put(pt, v, std::nullopt);
    if (pt.has_children) place(pt, v, t);
    if (leaf && !u.variant.tag_shift) w.leaf_done(t);
  }
};

// The byte order of a value of an `endian: bom` schema (encode_any).
bool value_is_big(const gen::Schema& s, const Value& x) {
  const Struct& root = *s.find(s.root);
  const Field& bom = *root.field(s.bom_field);
  const std::string what = root.name + "." + bom.name;
  const Value* v = x.find(bom.name);
  if (!v) throw EncodeError(what + ": missing");
  if (bom.bom_marks.empty()) return bom_is_big(static_cast<uint16_t>(v->as_uint()), what.c_str());
  std::string known;
  for (const auto& [m, big] : bom.bom_marks) {
    if (m == v->str()) return big;
    known += std::string(known.empty() ? "" : ", ") + "'" + m + "'";
  }
  throw EncodeError(what + ": '" + v->str() + "' is no byte order mark (" + known + ")");
}

std::vector<uint8_t> encode_any(const gen::Schema& s, const Schema::Plan* plan, const Value& x, const Layout* lay, LayoutTrace* trace) {
  const bool big = s.endian_by_bom ? value_is_big(s, x) : s.big_endian;
  if (big) return Encoder<std::endian::big>(s, plan, lay, trace).run(x);
  return Encoder<std::endian::little>(s, plan, lay, trace).run(x);
}

}  // namespace

std::vector<uint8_t> encode_laid(const Schema& s, const Value& v, const Layout* lay, LayoutTrace* trace) {
  if (s.plan().encode_refusal) throw *s.plan().encode_refusal;
  return encode_any(s.model(), &s.plan(), v, lay, trace);
}

std::vector<uint8_t> Schema::encode(const Value& v) const {
  if (p_->encode_refusal) throw *p_->encode_refusal;
  return encode_any(*s_, p_.get(), v, nullptr, nullptr);
}

std::vector<uint8_t> Schema::encode(const Value& v, const Layout& layout) const {
  if (p_->encode_refusal) throw *p_->encode_refusal;
  const gen::Schema& s = *s_;
  const Plan* plan = p_.get();
  auto enc = [&s, plan](const Value& x, const Layout* lay, LayoutTrace* trace) { return encode_any(s, plan, x, lay, trace); };
  const bool reads_to_next = std::any_of(s.structs.begin(), s.structs.end(), [](const auto& st) { return st->needs_end; });
  if (reads_to_next)
    // A block read up to the next one must not end before it (layout.h):
    // compared as the generated code does, by the bytes written again.
    return encode_with_layout(v, layout, enc, [this](std::span<const uint8_t> laid, std::span<const uint8_t> fresh) {
      const std::vector<uint8_t> again = encode(decode(laid));
      return std::equal(again.begin(), again.end(), fresh.begin(), fresh.end());
    });
  return encode_with_layout(v, layout, enc);
}

}  // namespace binschema::dynamic
