// The run-time engine: any schema, loaded while the program runs, with no
// code generated for it (docs/dynamic.md).
//
// A dynamic::Schema is the validated model of a schema (generator/schema.h,
// the one binschema-gen works from), loaded from a file or from text. It
// decodes bytes into a generic Value, writes a Value as the same YAML or JSON
// the generated code writes, reads that text back, and encodes a Value into
// the same bytes. It uses the runtime's own primitives (Reader, the pools,
// DIC, relocation, hashes, the text sinks, Layout), so only the walk over the
// schema is written twice: once as generated code, once here.
//
//   auto s = binschema::dynamic::Schema::load("schemas/sarc.yaml");
//   binschema::dynamic::Value v = s.decode(bytes);
//   v["nodes"][0]["alignment"].set_uint(0x80);
//   std::vector<uint8_t> out = s.encode(v);
//
// Errors are those of the generated code: gen::SchemaError at file:line:col
// on load (also for a schema using what the engine does not support yet),
// DecodeError (offset + field path) on decode, TextError (line:col + path)
// on from_text, EncodeError on encode.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <new>
#include <span>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <string>
#include <string_view>
#include <vector>

#include "binschema/model.h"
#include "binschema/text.h"  // TextKind

namespace binschema {
namespace gen {
struct Schema;
struct Struct;
}  // namespace gen

namespace dynamic {

struct Value;

// What a Value is (Value::Kind).
enum class ValueKind : uint8_t {
  Absent,  // an optional field that is not there (if: false, a null pointer)
  Bool,    // bool8, bool32, a one-bit field
  Int,     // a signed integer (s8 .. s64, s24)
  UInt,    // an unsigned integer (u8 .. u64, u24, bits)
  Float,   // f32 (its bits the number, NaN payloads kept)
  Double,  // f64 (its bits the number)
  String,  // text (a pooled or inline string, char[N], cstring)
  Bytes,   // opaque bytes (in `str()`)
  Struct,  // `fields()`, in text order
  Array,   // `items()`
  Union,   // `case_name()` the case, `tag()` the tag, `items()[0]` the case's value
};

// The program's one copy of `name` (thread-safe; never freed; NUL-terminated
// after its size, as a std::string's text).
std::string_view intern(std::string_view name);
// The number of `name` in the program's one table of interned names: equal
// names have equal ids whichever schema or thread asked (thread-safe; 0 is
// the empty name). A union value holds its case name as one.
uint32_t intern_id(std::string_view name);
// The name of an id that intern_id() gave (the table only grows: no lock).
std::string_view interned(uint32_t id);

// The names of a struct's members, in order: one object per list of names
// (interned, thread-safe, never freed), shared by every struct value with
// these names. The plan makes one per schema struct, so every decoded or
// text-read struct of a type has that type's shape: "this value's shape is
// the plan's" is one pointer compare, and a member is then read by index
// with no name check. Equal names are the same shape (== on pointers).
class Shape {
 public:
  size_t size() const { return n_; }
  const std::string_view* names() const { return reinterpret_cast<const std::string_view*>(this + 1); }
  std::string_view operator[](size_t i) const { return names()[i]; }
  // The index of the member `name` (the first of that name), -1 if none.
  int index(std::string_view name) const;
  // The shape of these names (each interned: see intern()).
  static const Shape* of(std::span<const std::string_view> names);
  static const Shape* empty() { return &kEmpty; }
  // This shape's names and then `name` (the shapes made this way are
  // remembered here, looked up without a lock).
  const Shape* with(std::string_view name) const;
  // The first n names.
  const Shape* prefix(size_t n) const;

  Shape(const Shape&) = delete;
  Shape& operator=(const Shape&) = delete;

 private:
  struct Child;
  constexpr explicit Shape(uint32_t n) : n_(n) {}
  static const Shape kEmpty;  // no names (constant-initialised: empty() has no guard)
  uint32_t n_ = 0;
  mutable std::atomic<const Child*> children_{nullptr};
};

namespace detail {
// What a string, bytes, a struct, an array or a union holds, in one
// allocation: a string (the text, the bytes) when it has one, a union's tag
// when it has one, and the elements after them: an array's or a union's
// values, or a struct's shape (one pointer) and its members' values.
//
//   head (16) | std::string (has_str) | uint64_t tag (has_tag) | elements
//
// A string's or bytes' block has the string and no elements; a struct's or
// an array's the elements and no string (32 bytes less per block); a
// union's its tag (8 bytes: the Value's one slot holds this block's
// pointer, not the tag) and its one item. make() and remake() take the
// string and the tag separately, so a block may have both.
// Blocks come from per-thread chunks of 64 KiB by bump allocation (value.cpp:
// a chunk counts its live blocks and is freed when the last one goes, from
// any thread); a big block comes from the heap on its own.
struct Block {
  enum : uint8_t { None, Members, Values };
  uint32_t size = 0, cap = 0;  // values (Members: as many as the shape has names)
  uint8_t type = None;  // what the elements are
  bool has_str = false; // a std::string follows the block's head
  bool has_tag = false; // a union's tag (8 bytes) comes right before the elements
  uint32_t chunk = 0;   // bytes back to its chunk's start; 0: allocated on its own
  std::string& str() { return *reinterpret_cast<std::string*>(this + 1); }
  char* base() {
    return reinterpret_cast<char*>(this + 1) + (has_str ? sizeof(std::string) : 0) + (has_tag ? sizeof(uint64_t) : 0);
  }
  uint64_t& tag() { return *reinterpret_cast<uint64_t*>(base() - sizeof(uint64_t)); }  // has_tag
  template <class T>
  T* data() { return reinterpret_cast<T*>(base()); }  // Values
  const Shape*& shape() { return *reinterpret_cast<const Shape**>(base()); }  // Members
  Value* members() { return reinterpret_cast<Value*>(base() + sizeof(void*)); }  // Members
  // An empty block (with an empty string when str, a tag of 0 when tag).
  static Block* make(uint8_t type, uint32_t cap, bool str, bool tag = false);
  static Block* clone(const Block& b);                       // a deep copy, cap == size
  static void destroy(Block* b);
  void clear();  // destroys the elements
  // A block of `type` with room for cap, holding this one's string and tag
  // (when it has them, or when `str`, `tag` ask for them) and none of its
  // elements; this one is destroyed.
  static Block* remake(Block* b, uint8_t type, uint32_t cap, bool str, bool tag = false);
};
static_assert(sizeof(Block) == 16 && alignof(std::string) <= 8);
// Chunks allocated and not yet freed, of every thread (tests: a chunk is
// freed once its last block is, whichever thread frees it).
int64_t live_chunks();
// A Value as its fields() and items() see it (Fields and List are the value
// itself, in this layout: static_assert after Value): the kind says whether
// the slot is a block's pointer. A reader sees no members or items in a
// value of another kind; a writer makes an Absent value its kind and
// refuses any other (take()).
struct Head {
  ValueKind kind;
  uint8_t width;
  uint32_t case_;
  Block* b;  // the slot (a number when the kind holds no block)
  // The block when the value holds one with elements of `type`, else null.
  Block* of(uint8_t type) const { return kind >= ValueKind::String && b && b->type == type ? b : nullptr; }
  // Before a writer of kind k (a List: Array or Union; Fields: Struct):
  // an Absent value becomes an empty k, another kind throws std::logic_error.
  void take(ValueKind k, const char* what);
};
}  // namespace detail

// The items of an array or union: a vector of T (std::vector's interface
// as far as the engine uses it) whose elements live in the value's one
// allocation. As with std::vector, growing it moves the elements:
// references into it are then invalid. Only an array or a union has items
// (Value::items()).
template <class T>
class List : detail::Head {
 public:
  static_assert(std::is_same_v<T, Value>);
  static constexpr uint8_t kType = detail::Block::Values;
  List(const List&) = delete;
  List& operator=(const List&) = delete;

  size_t size() const {
    const detail::Block* x = of(kType);
    return x ? x->size : 0;
  }
  bool empty() const { return size() == 0; }
  T* data() {
    detail::Block* x = of(kType);
    return x ? x->data<T>() : nullptr;
  }
  const T* data() const { return const_cast<List*>(this)->data(); }
  T* begin() { return data(); }
  T* end() { return data() + size(); }
  const T* begin() const { return data(); }
  const T* end() const { return data() + size(); }
  T& operator[](size_t i) { return data()[i]; }
  const T& operator[](size_t i) const { return data()[i]; }
  T& at(size_t i) {
    if (i >= size()) out_of_range(i);
    return data()[i];
  }
  const T& at(size_t i) const {
    if (i >= size()) out_of_range(i);
    return data()[i];
  }
  T& front() { return data()[0]; }
  T& back() { return data()[size() - 1]; }
  const T& front() const { return data()[0]; }
  const T& back() const { return data()[size() - 1]; }

  void reserve(size_t n);
  void resize(size_t n);
  void assign(size_t n, const T& v);
  void clear() {
    if (detail::Block* x = of(kType)) x->clear();
  }
  void push_back(const T& v) { emplace_back(v); }
  void push_back(T&& v) { emplace_back(std::move(v)); }
  template <class... A>
  T& emplace_back(A&&... a);
  // The items replaced by n elements, element i made by make(i) (a T), in
  // one allocation of n: an array read whole builds no default elements
  // first (a decoded array of numbers).
  template <class F>
  void assign_made(size_t n, F&& make);

  bool operator==(const List& o) const {
    if (size() != o.size()) return false;
    for (size_t i = 0; i < size(); ++i)
      if (!((*this)[i] == o[i])) return false;
    return true;
  }

 private:
  [[noreturn]] static void out_of_range(size_t i);
  void own(size_t cap);  // (no block of T yet) the value an Array or a Union, its block of T with room for cap
};

class Fields;

// A value of any schema: a plain value type. A struct holds its model
// fields in the order the text shows them (each by name; a field whose
// `if:` is false is there, Absent); an array its elements; a union its case
// (name, an interned id held inline, and tag) and the case's value; a scalar its number, a string its
// text, bytes their bytes.
//
// 16 bytes: kind, width, a union's case id, and one 8-byte slot that `kind`
// says the meaning of: the number of Absent (always 0), Bool, Int, UInt,
// Float and Double (no heap object per scalar), the pointer to the block of
// String, Bytes, Struct, Array and Union (allocated when first written;
// null while empty). A union's tag is in its block, before its one item.
// So the kind comes first: a writer of a kind that holds a block (str(),
// fields(), items(), add(), set_tag()) makes an Absent value one of its
// kind and refuses a value of another kind (std::logic_error); set_uint()
// and set_int() on a value that holds a block free it (the value becomes a
// number); set_kind() changes the kind of a value of any kind. `kind` is a
// public member for reading: assign it only on a value that is Absent or a
// number (no block to lose, and a number of 0 is an empty block kind's null
// pointer), as the constructors below do.
struct Value {
  using Kind = ValueKind;
  // Whether a value of kind k keeps a block in its slot (else a number).
  static constexpr bool block_kind(Kind k) { return k >= Kind::String; }

  Kind kind = Kind::Absent;
  // Int / UInt: the width in the file in bytes (1, 2, 3, 4, 8; a bit field
  // of a bit word: the bytes of the smallest of u8..u64 that holds it, as
  // the generated model's member). Bool: 1 or 4 (0 for a bit).
  uint8_t width = 0;

 private:
  // Union: the case name's intern_id() (in the bytes the alignment of the
  // slot leaves free: no string per union value, a case compared as one number).
  uint32_t case_ = 0;
  union {
    // Bool: 0 or 1; Int: the value as int64_t (bit_cast); UInt: the value;
    // Float: the float's 32 bits; Double: the double's 64 bits; Absent: 0.
    uint64_t n_ = 0;
    detail::Block* b_;  // String, Bytes, Struct, Array, Union: what they hold (null: nothing yet)
  };

 public:
  // String (UTF-8 or not), Bytes. The const one: empty on a value of
  // another kind (a union's case name is case_name()); the other one (a
  // writer) makes an Absent value a String and throws std::logic_error on
  // any other kind.
  const std::string& str() const;
  std::string& str();
  // Struct: its members, in text order (their shape and values). None on a
  // value of another kind; a writer (add, reserve, reset, assign_flat)
  // makes an Absent value a Struct and throws std::logic_error on any
  // other kind.
  const Fields& fields() const { return reinterpret_cast<const Fields&>(*this); }
  Fields& fields() { return reinterpret_cast<Fields&>(*this); }
  // Array: its elements; Union: one item, the case's value. None on a value
  // of another kind; a writer (push_back, resize, ...) makes an Absent value
  // an Array and throws std::logic_error on any other kind.
  const List<Value>& items() const { return reinterpret_cast<const List<Value>&>(*this); }
  List<Value>& items() { return reinterpret_cast<List<Value>&>(*this); }

  Value() = default;
  Value(const Value& o) : kind(o.kind), width(o.width), case_(o.case_), n_(o.n_) {
    if (o.holds_block()) b_ = detail::Block::clone(*o.b_);
  }
  Value(Value&& o) noexcept : kind(o.kind), width(o.width), case_(o.case_), n_(o.n_) { o.n_ = 0; }
  Value& operator=(const Value& o);
  Value& operator=(Value&& o) noexcept {
    if (this != &o) {
      detail::Block* b = holds_block() ? b_ : nullptr;
      kind = o.kind, width = o.width, case_ = o.case_, n_ = o.n_;
      o.n_ = 0;
      if (b) detail::Block::destroy(b);
    }
    return *this;
  }
  ~Value() {
    if (holds_block()) detail::Block::destroy(b_);
  }

  // Constructors of each kind.
  static Value absent() { return {}; }
  static Value boolean(bool b, uint8_t width = 1);
  static Value int_(int64_t v, uint8_t width);
  static Value uint(uint64_t v, uint8_t width);
  static Value float32(float v);
  static Value float64(double v);
  // A number of kind k (Bool, Int, UInt, Float, Double), width w and those
  // 64 bits (set_number()'s arguments), made inline.
  static Value number(Kind k, uint8_t w, uint64_t bits) {
    Value v;
    v.kind = k, v.width = w, v.n_ = bits;
    return v;
  }
  static Value string(std::string s);
  static Value bytes(std::string b);
  static Value struct_();
  static Value array();
  // A union of that case (the name interned: intern_id()), tag and value.
  static Value union_(std::string_view case_name, int64_t tag, Value v);
  // The same with the name's id (a walk that interned its cases once).
  static Value union_(uint32_t case_id, int64_t tag, Value v);

  // Union: its case's name and intern_id() (of another kind: "" and 0).
  std::string_view case_name() const { return interned(case_id()); }
  uint32_t case_id() const { return kind == Kind::Union ? case_ : 0; }
  // Union: its tag (of another kind: 0). set_tag() makes an Absent value a
  // Union (with no case) and throws std::logic_error on any other kind.
  uint64_t tag() const { return kind == Kind::Union && b_ && b_->has_tag ? b_->tag() : 0; }
  void set_tag(uint64_t t);

  bool is_absent() const { return kind == Kind::Absent; }
  // Whether it holds an allocation (a string with text, a struct with
  // members, ...): one that does not can be copied as bytes.
  bool holds_block() const { return block_kind(kind) && b_ != nullptr; }
  // The number (Bool: 0 or 1; Float, Double: their bits). A union gives its
  // tag, a string, bytes, a struct or an array 0.
  uint64_t as_uint() const { return kind <= Kind::Double ? n_ : tag(); }
  // The number's 64 bits when the kind is known to be a number (Absent,
  // Bool, Int, UInt, Float, Double): as_uint() without its check of the
  // kind, for a walk that has just compared it. Of another kind: meaningless.
  uint64_t number_bits() const { return n_; }
  int64_t as_int() const { return static_cast<int64_t>(as_uint()); }
  bool as_bool() const { return as_uint() != 0; }
  float as_float() const;
  double as_double() const;  // Float or Double
  // The number of a Bool, Int, UInt, Float or Double (its kind kept). Any
  // other value becomes a UInt (set_uint) or an Int (set_int) of that
  // number, its width kept, what it held freed.
  void set_uint(uint64_t v) { set_number(kind <= Kind::Absent || kind > Kind::Double ? Kind::UInt : kind, width, v); }
  void set_int(int64_t v) { set_number(kind <= Kind::Absent || kind > Kind::Double ? Kind::Int : kind, width, static_cast<uint64_t>(v)); }
  // A number of kind k (Bool .. Double) and that width and bits, whatever
  // this value held (a block is freed): the walks' store of a number read.
  void set_number(Kind k, uint8_t w, uint64_t bits) {
    if (holds_block()) [[unlikely]] detail::Block::destroy(b_);  // (a call: set_number stays small enough to inline)
    kind = k, width = w, n_ = bits;
  }
  // An empty value of kind k (width 0, number 0, no block) unless it is of
  // kind k already (then it is left as it is).
  void set_kind(Kind k) {
    if (kind == k) return;
    *this = Value();
    kind = k;
  }

  // Struct: the field of that name (nullptr if none).
  const Value* find(std::string_view name) const;
  Value* find(std::string_view name);
  // Struct: the field of that name (std::out_of_range if none); Array: an element.
  const Value& operator[](std::string_view name) const;
  Value& operator[](std::string_view name);
  const Value& operator[](size_t i) const { return items().at(i); }
  Value& operator[](size_t i) { return items().at(i); }
  // Struct: appends a field (the struct takes the shape with its name appended).
  Value& add(std::string_view name, Value v);
  // A dotted path: "nodes[0].attributes.name" (std::out_of_range if none).
  const Value& at_path(std::string_view path) const;
  Value& at_path(std::string_view path);

  bool operator==(const Value&) const;
};

// A struct member seen through fields(): its name and its value.
template <class V>
struct MemberRef {
  std::string_view name;
  V& value;
};

static_assert(sizeof(Value) == 16, "kind, width, a union's case id, and the number or the block's pointer");
static_assert(sizeof(detail::Head) == sizeof(Value) && alignof(detail::Head) == alignof(Value), "fields(), items(): the value seen as a Head");

// A struct's members: its shape (the names) and one value per name, in the
// value's one allocation (no name stored per member). Indexing or iterating
// gives MemberRef {name, value}; values() the values in order. Adding a
// member gives the struct the shape with that name appended (Shape::with):
// another value sharing the old shape is not touched.
class Fields : detail::Head {
 public:
  Fields(const Fields&) = delete;
  Fields& operator=(const Fields&) = delete;

  const Shape* shape() const {
    detail::Block* x = of(detail::Block::Members);
    return x ? x->shape() : Shape::empty();
  }
  size_t size() const {
    const detail::Block* x = of(detail::Block::Members);
    return x ? x->size : 0;
  }
  bool empty() const { return size() == 0; }
  Value* values() {
    detail::Block* x = of(detail::Block::Members);
    return x ? x->members() : nullptr;
  }
  const Value* values() const { return const_cast<Fields*>(this)->values(); }
  // The names, as many as size() (nullptr when empty).
  const std::string_view* names() const {
    detail::Block* x = of(detail::Block::Members);
    return x ? x->shape()->names() : nullptr;
  }

  template <class V>
  class Iter {
   public:
    Iter(const std::string_view* n, V* v) : n_(n), v_(v) {}
    MemberRef<V> operator*() const { return {*n_, *v_}; }
    Iter& operator++() { return ++n_, ++v_, *this; }
    bool operator==(const Iter& o) const { return v_ == o.v_; }
   private:
    const std::string_view* n_;
    V* v_;
  };
  Iter<Value> begin() { return {names(), values()}; }
  Iter<Value> end() { return {names() + size(), values() + size()}; }
  Iter<const Value> begin() const { return {names(), values()}; }
  Iter<const Value> end() const { return {names() + size(), values() + size()}; }
  MemberRef<Value> operator[](size_t i) { return {names()[i], values()[i]}; }
  MemberRef<const Value> operator[](size_t i) const { return {names()[i], values()[i]}; }
  MemberRef<Value> at(size_t i) {
    if (i >= size()) out_of_range(i);
    return (*this)[i];
  }
  MemberRef<const Value> at(size_t i) const {
    if (i >= size()) out_of_range(i);
    return (*this)[i];
  }

  // Member i when its name is the interned `name` (compared by address),
  // else nullptr: the by-index look-up of the walks, one check of the block.
  const Value* named(size_t i, const char* name) const {
    detail::Block* x = of(detail::Block::Members);
    if (!x || i >= x->size || x->shape()->names()[i].data() != name) return nullptr;
    return x->members() + i;
  }
  Value* named(size_t i, const char* name) { return const_cast<Value*>(std::as_const(*this).named(i, name)); }

  // Appends a member (Value::add).
  Value& add(std::string_view name, Value v);
  // The members of `shape`, every one Absent (the old members destroyed).
  void reset(const Shape* shape);
  // The members of `shape` with the values vals[0..shape->size()) copied as
  // bytes (none of them may hold a block: a number, a bool or Absent, a
  // string or bytes with no block); the old members destroyed.
  void assign_flat(const Shape* shape, const Value* vals);
  void reserve(size_t n);
  void clear();  // no members (the empty shape)

  bool operator==(const Fields& o) const;

 private:
  [[noreturn]] static void out_of_range(size_t i);
};

inline const std::string& Value::str() const {
  static const std::string empty;
  return (kind == Kind::String || kind == Kind::Bytes) && b_ && b_->has_str ? b_->str() : empty;
}
inline std::string& Value::str() {
  if (kind != Kind::String && kind != Kind::Bytes) reinterpret_cast<detail::Head*>(this)->take(Kind::String, "str()");
  if (!b_) b_ = detail::Block::make(detail::Block::None, 0, true);
  else if (!b_->has_str) b_ = detail::Block::remake(b_, b_->type, b_->cap, true);  // moves the elements
  return b_->str();
}

template <class T>
void List<T>::own(size_t cap) {
  if (kind != ValueKind::Array && kind != ValueKind::Union) take(ValueKind::Array, "items()");
  if (!b) {
    b = detail::Block::make(kType, static_cast<uint32_t>(cap), false);
  } else {
    if (b->size) throw std::logic_error("dynamic::Value: items() and fields() of one value");
    b = detail::Block::remake(b, kType, static_cast<uint32_t>(cap), false);  // the capacity counts elements of the block's type
  }
}
template <class T>
void List<T>::reserve(size_t n) {
  detail::Block* x = of(kType);
  if (!x) return own(n);  // allocated once, at its size
  if (n <= x->cap) return;
  b = detail::Block::remake(x, kType, static_cast<uint32_t>(n), false);
}
template <class T>
void List<T>::resize(size_t n) {
  if (n == 0 && !of(kType)) return;  // empty already: nothing allocated
  reserve(n);
  T* d = b->data<T>();
  for (size_t i = b->size; i < n; ++i) new (d + i) T();
  for (size_t i = n; i < b->size; ++i) d[i].~T();
  b->size = static_cast<uint32_t>(n);
}
template <class T>
void List<T>::assign(size_t n, const T& v) {
  if (n == 0 && !of(kType)) return;
  clear();
  reserve(n);
  T* d = b->data<T>();
  for (size_t i = 0; i < n; ++i) new (d + i) T(v);
  b->size = static_cast<uint32_t>(n);
}
template <class T>
template <class... A>
T& List<T>::emplace_back(A&&... a) {
  detail::Block* x = of(kType);
  if (!x || x->size == x->cap) {
    T tmp(std::forward<A>(a)...);  // a may be an element
    const size_t cap = x ? x->cap : 0;
    reserve(cap < 4 ? 4 : cap * 2);
    return *new (b->data<T>() + b->size++) T(std::move(tmp));
  }
  return *new (x->data<T>() + x->size++) T(std::forward<A>(a)...);
}
template <class T>
template <class F>
void List<T>::assign_made(size_t n, F&& make) {
  if (n == 0 && !of(kType)) return;
  clear();
  reserve(n);
  T* d = b->data<T>();
  for (size_t i = 0; i < n; ++i) {
    new (d + i) T(make(i));
    b->size = static_cast<uint32_t>(i + 1);  // the elements made so far are destroyed if make throws
  }
}
template <class T>
void List<T>::out_of_range(size_t i) {
  throw std::out_of_range("dynamic::Value: index " + std::to_string(i) + " out of range");
}

// A loaded schema. Cheap to copy (the model is shared, immutable).
class Schema {
 public:
  // From a file (messages name it: path:line:col), or from text in memory
  // (`name` stands for the file in messages). Throws gen::SchemaError, also
  // for a schema that uses what the engine does not support yet.
  static Schema load(const std::string& path);
  static Schema load_text(const std::string& text, const std::string& name);

  const gen::Schema& model() const { return *s_; }
  const std::string& name() const;  // the schema's `format:`
  // Whether the bytes start with the format's magic (any of its byte order
  // marks' magics), or, when it has none or they do not, whether file_name
  // ends with one of its extensions: 2 by magic, 1 by extension, 0 neither.
  int detect(std::span<const uint8_t> bytes, std::string_view file_name) const;

  // Bytes -> value. Throws DecodeError naming the offset and field path.
  Value decode(std::span<const uint8_t> bytes) const;
  // The same, and what the file's writer chose that the value does not say.
  Value decode(std::span<const uint8_t> bytes, Layout& layout) const;

  // Value -> the generated code's YAML or JSON, byte for byte (with a
  // non-empty layout as the last `layout:` entry).
  std::string to_text(const Value& v, TextKind kind, const Layout* layout = nullptr) const;
  // Text -> value (and the text's `layout:` entry). Throws TextError.
  Value from_text(std::string_view text) const;
  Value from_text(std::string_view text, Layout& layout) const;
  Value from_text(const text::Doc& doc) const;
  Value from_text(const text::Doc& doc, Layout& layout) const;

  // Value -> bytes, as the generated encode() writes them (with a layout:
  // as encode(model, layout)). Throws EncodeError.
  std::vector<uint8_t> encode(const Value& v) const;
  std::vector<uint8_t> encode(const Value& v, const Layout& layout) const;

  // Why encode() refuses this schema: what the run-time writer does not do
  // yet, at the key that asks for it (file:line:col: ...); empty when it
  // writes it. Such a schema still decodes, prints and reads text; its
  // decode(bytes, layout) gives an empty layout.
  std::string encode_refusal() const;

  // Summary lines of `binschema info` (name, value). Throws DecodeError.
  std::vector<std::pair<std::string, std::string>> info(std::span<const uint8_t> bytes) const;

  // The engine's prepared form of the model (engine-internal).
  struct Plan;
  const Plan& plan() const { return *p_; }

 private:
  std::shared_ptr<const gen::Schema> s_;
  std::shared_ptr<const Plan> p_;
};

}  // namespace dynamic
}  // namespace binschema
