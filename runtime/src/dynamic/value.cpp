// binschema/dynamic.h: the generic Value, and loading a schema.
#include <cstring>
#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <bit>
#include <mutex>
#include <stdexcept>
#include <string>
#include <memory>
#include <span>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "plan.h"

namespace binschema::dynamic {

namespace detail {
namespace {
// Blocks by bump allocation from chunks (docs/dynamic.md, "Memory"): a
// decode makes one block per string, struct, array and union, and the
// heap's malloc and free of each was a third of the decode (glibc's
// consolidation of the small chunks the previous value left). A thread
// allocates from its current chunk; a chunk counts its live blocks and is
// freed when the count drops to zero once it is no longer any thread's
// current chunk. Freeing a block, on any thread, is a decrement.
//
// The count: a chunk starts at kBias while current; its owner counts its
// allocations in the thread's Arena (no atomic per allocation) and, when it
// moves on, takes kBias - allocations off: the count is then live blocks.
constexpr size_t kChunk = 64 * 1024;   // bytes of a chunk, its header included
constexpr size_t kBig = 8 * 1024;      // a bigger block is allocated on its own
constexpr int64_t kBias = int64_t(1) << 62;
struct alignas(16) ChunkHead {
  std::atomic<int64_t> live;
};
struct Arena {
  char* cur = nullptr;  // the current chunk
  char* p = nullptr;    // its free space: p .. end
  char* end = nullptr;
  int64_t allocs = 0;   // blocks made in cur
  bool dead = false;    // the thread is exiting: blocks from the heap
};
constinit thread_local Arena t_arena;
constinit std::atomic<int64_t> g_chunks{0};  // chunks allocated and not freed (live_chunks())

#if defined(__SANITIZE_ADDRESS__)
#define BINSCHEMA_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define BINSCHEMA_ASAN 1
#endif
#endif
#ifdef BINSCHEMA_ASAN
extern "C" void __asan_poison_memory_region(void const volatile*, size_t);
extern "C" void __asan_unpoison_memory_region(void const volatile*, size_t);
void poison(void* m, size_t n) { __asan_poison_memory_region(m, n); }
void unpoison(void* m, size_t n) { __asan_unpoison_memory_region(m, n); }
#else
void poison(void*, size_t) {}
void unpoison(void*, size_t) {}
#endif

// Freed chunks kept by the thread that freed them, for its next chunks: a
// decode after a decode reuses the pages the first one faulted in rather
// than the heap giving them back to the system and faulting them in again
// (ASB: up to 868 page faults per 1 MiB decode). At most kKeep (2 MiB) per thread.
constexpr size_t kKeep = 32;
constinit thread_local bool t_kept_gone = false;  // the thread is exiting: t_kept is destroyed
struct Kept {
  void* c[kKeep];
  size_t n = 0;
  ~Kept() {
    t_kept_gone = true;
    while (n) ::operator delete(c[--n]);
  }
};
thread_local Kept t_kept;
void free_chunk(void* m) {
  g_chunks.fetch_sub(1, std::memory_order_relaxed);
  if (!t_kept_gone && t_kept.n < kKeep) {
    t_kept.c[t_kept.n++] = m;
    return;
  }
  ::operator delete(m);
}
void drop(ChunkHead* c, int64_t n) {
  if (c->live.fetch_sub(n, std::memory_order_acq_rel) == n) {
    unpoison(c, kChunk);
    c->~ChunkHead();
    free_chunk(c);
  }
}
// Frees of blocks in one chunk counted and dropped at once (a value's
// blocks lie one after another in few chunks): one atomic decrement per run
// of blocks rather than per block. Flushed when a free is in another chunk
// and when destroy() or clear() returns (release() below, which they call,
// frees a whole tree and calls neither).
struct Pending {
  ChunkHead* c = nullptr;
  int64_t n = 0;
};
constinit thread_local Pending t_pending;
void flush(Pending& p) {
  if (p.n) drop(p.c, p.n);
  p.c = nullptr;
  p.n = 0;
}
void retire(Arena& a) {
  if (!a.cur) return;
  char* c = a.cur;
  const int64_t n = kBias - a.allocs;
  a.cur = a.p = a.end = nullptr;
  a.allocs = 0;
  drop(reinterpret_cast<ChunkHead*>(c), n);
}
// A new current chunk; false when the thread is exiting.
bool next_chunk(Arena& a) {
  if (a.dead) return false;
  struct Exit {
    ~Exit() {
      retire(t_arena);
      t_arena.dead = true;
    }
  };
  (void)t_kept.n;  // made before exit, so destroyed after it: the chunk exit retires is kept, then freed
  static thread_local Exit exit;  // retires the thread's chunk when it ends
  (void)exit;
  retire(a);
  Kept& k = t_kept;
  void* m = !t_kept_gone && k.n ? k.c[--k.n] : ::operator new(kChunk);  // the heap's own (counted as any allocation by the benchmarks)
  new (m) ChunkHead{kBias};
  g_chunks.fetch_add(1, std::memory_order_relaxed);
  a.cur = static_cast<char*>(m);
  a.p = a.cur + sizeof(ChunkHead);
  a.end = a.cur + kChunk;
  poison(a.p, size_t(a.end - a.p));
  return true;
}
}  // namespace

int64_t live_chunks() { return g_chunks.load(std::memory_order_relaxed); }

namespace {
// Bytes of a block of `type` holding cap elements: a struct's block has its
// shape's pointer before its values.
size_t block_bytes(uint8_t type, uint32_t cap, bool str, bool tag) {
  return sizeof(Block) + (str ? sizeof(std::string) : 0) + (tag ? sizeof(uint64_t) : 0) + (type == Block::Values ? sizeof(Value) * cap : 0) +
         (type == Block::Members ? sizeof(void*) + sizeof(Value) * cap : 0);
}
}  // namespace

namespace {
// A block's head written into m (off: bytes back to its chunk, 0 for one of its own).
Block* init_block(void* m, uint8_t type, uint32_t cap, bool str, bool tag, uint32_t off) {
  Block* b = new (m) Block();
  b->type = type;
  b->cap = type != Block::None ? cap : 0;
  b->chunk = off;
  b->has_str = str;
  b->has_tag = tag;
  if (str) new (&b->str()) std::string();
  if (tag) b->tag() = 0;
  if (type == Block::Members) b->shape() = Shape::empty();
  return b;
}
// A block of `bytes` from the current chunk, which has room for it.
[[gnu::always_inline]] inline Block* take(Arena& a, uint8_t type, uint32_t cap, bool str, bool tag, size_t bytes) {
  void* m = a.p;
  unpoison(m, bytes);
  a.p += bytes;
  ++a.allocs;
  return init_block(m, type, cap, str, tag, static_cast<uint32_t>(static_cast<char*>(m) - a.cur));
}
// make() when the current chunk has no room or the block is big: out of
// line, so that the bump below needs no saved registers (a decode makes a
// block per struct, array, union and bit word: the call's prologue and
// epilogue were a third of make()).
[[gnu::noinline]] Block* make_slow(uint8_t type, uint32_t cap, bool str, bool tag, size_t bytes) {
  Arena& a = t_arena;
  if (bytes <= kBig && next_chunk(a)) return take(a, type, cap, str, tag, bytes);
  return init_block(::operator new(bytes), type, cap, str, tag, 0);
}
// make(), inlined where its arguments are constants (assign_flat's struct
// block: no branch on the type or the string).
[[gnu::always_inline]] inline Block* bump(uint8_t type, uint32_t cap, bool str, bool tag) {
  const size_t bytes = block_bytes(type, cap, str, tag);  // a multiple of 8
  Arena& a = t_arena;
  if (bytes > kBig || size_t(a.end - a.p) < bytes) [[unlikely]] return make_slow(type, cap, str, tag, bytes);
  return take(a, type, cap, str, tag, bytes);
}
}  // namespace

Block* Block::make(uint8_t type, uint32_t cap, bool str, bool tag) { return bump(type, cap, str, tag); }
namespace {
// Moves n values from f to t, which has room for them.
void move_values(Value* f, Value* t, uint32_t n) {
  for (uint32_t i = 0; i < n; ++i) {
    new (t + i) Value(std::move(f[i]));
    f[i].~Value();
  }
}
}  // namespace

Block* Block::remake(Block* b, uint8_t type, uint32_t cap, bool str, bool tag) {
  str = str || b->has_str;
  tag = tag || b->has_tag;
  Block* nb = make(type, cap, str, tag);
  if (b->has_str) nb->str() = std::move(b->str());
  if (b->has_tag) nb->tag() = b->tag();
  if (b->type == type && type == Values) move_values(b->data<Value>(), nb->data<Value>(), b->size);
  else if (b->type == type && type == Members) {
    move_values(b->members(), nb->members(), b->size);
    nb->shape() = b->shape();
  }
  if (b->type == type) nb->size = b->size, b->size = 0;
  destroy(b);
  return nb;
}
namespace {
void release(Block* b, Pending& pd);
// The n values from d destroyed: their blocks released into pd. A loop over
// the values' heads (a value that holds no block is two compares; ~Value()
// per element was a call to destroy() and its thread_local per block).
void release_values(Value* d, uint32_t n, Pending& pd) {
  for (Value* const e = d + n; d != e; ++d) {
    const Head& h = *reinterpret_cast<const Head*>(d);
    if (h.kind >= ValueKind::String && h.b) release(h.b, pd);
  }
}
// destroy() of b with the thread's Pending passed down: the elements, the
// string, the memory (counted in pd; flushed by the caller).
void release(Block* b, Pending& pd) {
  if (b->type == Block::Values) release_values(b->data<Value>(), b->size, pd);
  else if (b->type == Block::Members) release_values(b->members(), b->size, pd);
  const uint32_t off = b->chunk;
  if (b->has_str) b->str().~basic_string();
  if (!off) {
    b->~Block();
    ::operator delete(b);
    return;
  }
  poison(b, block_bytes(b->type, b->cap, b->has_str, b->has_tag));  // under ASan a use after free is still caught
  b->~Block();
  ChunkHead* c = reinterpret_cast<ChunkHead*>(reinterpret_cast<char*>(b) - off);
  if (c != pd.c) {
    flush(pd);
    pd.c = c;
  }
  ++pd.n;
}
}  // namespace

void Block::clear() {
  Pending& pd = t_pending;
  if (type == Values) {
    release_values(data<Value>(), size, pd);
  } else if (type == Members) {
    release_values(members(), size, pd);
    shape() = Shape::empty();
  }
  size = 0;
  flush(pd);
}
void Block::destroy(Block* b) {
  Pending& pd = t_pending;
  release(b, pd);
  flush(pd);
}
Block* Block::clone(const Block& o) {
  Block& src = const_cast<Block&>(o);
  Block* b = make(o.type, o.size, o.has_str, o.has_tag);
  if (o.has_str) b->str() = src.str();
  if (o.has_tag) b->tag() = src.tag();
  if (o.type == Values) {
    const Value* from = src.data<Value>();
    Value* to = b->data<Value>();
    for (uint32_t i = 0; i < o.size; ++i) new (to + i) Value(from[i]);
  } else if (o.type == Members) {
    const Value* from = src.members();
    Value* to = b->members();
    for (uint32_t i = 0; i < o.size; ++i) new (to + i) Value(from[i]);
    b->shape() = src.shape();
  }
  b->size = o.size;
  return b;
}
}  // namespace detail

Value& Value::operator=(const Value& o) {
  if (this == &o) return *this;
  Value copy(o);  // before this lets go of its block: o may be inside it
  return *this = std::move(copy);
}

void detail::Head::take(ValueKind k, const char* what) {
  if (kind != ValueKind::Absent)
    throw std::logic_error(std::string("dynamic::Value: ") + what + " of a value of another kind (" +
                           std::to_string(static_cast<int>(kind)) + ")");
  kind = k;  // Absent's number is 0: the empty kind's null block
}
void Value::set_tag(uint64_t t) {
  if (kind != Kind::Union) reinterpret_cast<detail::Head*>(this)->take(Kind::Union, "set_tag()");
  detail::Block*& b = b_;
  if (!b) b = detail::Block::make(detail::Block::Values, 0, false, true);
  else if (!b->has_tag) b = detail::Block::remake(b, b->type, b->cap, false, true);  // moves the item
  b->tag() = t;
}

Value Value::boolean(bool b, uint8_t width) {
  Value v;
  v.kind = Kind::Bool;
  v.width = width;
  v.n_ = b;
  return v;
}
Value Value::int_(int64_t x, uint8_t width) {
  Value v;
  v.kind = Kind::Int;
  v.width = width;
  v.n_ = static_cast<uint64_t>(x);
  return v;
}
Value Value::uint(uint64_t x, uint8_t width) {
  Value v;
  v.kind = Kind::UInt;
  v.width = width;
  v.n_ = x;
  return v;
}
Value Value::float32(float x) {
  Value v;
  v.kind = Kind::Float;
  v.width = 4;
  v.n_ = std::bit_cast<uint32_t>(x);
  return v;
}
Value Value::float64(double x) {
  Value v;
  v.kind = Kind::Double;
  v.width = 8;
  v.n_ = std::bit_cast<uint64_t>(x);
  return v;
}
Value Value::string(std::string s) {
  Value v;
  v.kind = Kind::String;
  if (!s.empty()) v.str() = std::move(s);
  return v;
}
Value Value::bytes(std::string b) {
  Value v;
  v.kind = Kind::Bytes;
  if (!b.empty()) v.str() = std::move(b);
  return v;
}
Value Value::struct_() {
  Value v;
  v.kind = Kind::Struct;
  return v;
}
Value Value::array() {
  Value v;
  v.kind = Kind::Array;
  return v;
}
Value Value::union_(std::string_view case_name, int64_t tag, Value x) { return union_(intern_id(case_name), tag, std::move(x)); }
Value Value::union_(uint32_t case_id, int64_t tag, Value x) {
  Value v;
  v.kind = Kind::Union;
  v.case_ = case_id;
  v.b_ = detail::Block::make(detail::Block::Values, 1, false, true);  // the tag and the one item
  v.b_->tag() = static_cast<uint64_t>(tag);
  new (v.b_->data<Value>()) Value(std::move(x));
  v.b_->size = 1;
  return v;
}

float Value::as_float() const {
  return kind == Kind::Float ? std::bit_cast<float>(static_cast<uint32_t>(n_)) : static_cast<float>(as_double());
}
double Value::as_double() const {
  if (kind == Kind::Float) return std::bit_cast<float>(static_cast<uint32_t>(n_));
  if (kind == Kind::Double) return std::bit_cast<double>(n_);
  if (kind == Kind::Int) return static_cast<double>(as_int());
  return static_cast<double>(as_uint());
}

const Value* Value::find(std::string_view name) const {
  const Fields& fs = fields();
  if (fs.empty()) return nullptr;
  const int i = fs.shape()->index(name);
  return i < 0 ? nullptr : fs.values() + i;
}
Value* Value::find(std::string_view name) { return const_cast<Value*>(std::as_const(*this).find(name)); }  // a look-up changes no kind
const Value& Value::operator[](std::string_view name) const {
  if (const Value* v = find(name)) return *v;
  throw std::out_of_range("no field '" + std::string(name) + "'");
}
Value& Value::operator[](std::string_view name) {
  if (Value* v = find(name)) return *v;
  throw std::out_of_range("no field '" + std::string(name) + "'");
}
namespace {
// The interned names: a name -> id map under a lock, and the id -> name
// table read with no lock. The table only grows, in chunks that never move
// (kChunkIds names each, allocated when the first of their ids is given):
// a chunk's pointer is published with release, and an id reaches a reader
// only after its name was written (through intern_id()'s lock, or through
// whatever handed the reader the value holding it), so a read is a load of
// the chunk and one of the name.
constexpr uint32_t kChunkBits = 12, kChunkIds = 1u << kChunkBits, kChunks = 1u << 12;  // 2^24 names
struct Names {
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view v) const { return std::hash<std::string_view>{}(v); }
  };
  std::mutex m;
  // Node-based: a key never moves, so the table's views stay valid.
  std::unordered_map<std::string, uint32_t, Hash, std::equal_to<>> ids;
  std::atomic<std::string_view*> chunks[kChunks] = {};
  Names() { add(""); }  // id 0: the empty name (a default Value's case)
  uint32_t add(std::string_view name) {  // under m
    auto it = ids.find(name);
    if (it != ids.end()) return it->second;
    const uint32_t id = static_cast<uint32_t>(ids.size());
    if (id >> kChunkBits >= kChunks) throw std::length_error("dynamic::intern_id: too many names");
    std::string_view* c = chunks[id >> kChunkBits].load(std::memory_order_relaxed);
    if (!c) {
      c = new std::string_view[kChunkIds];
      chunks[id >> kChunkBits].store(c, std::memory_order_release);
    }
    c[id & (kChunkIds - 1)] = ids.emplace(name, id).first->first;
    return id;
  }
};
Names& name_table() {
  static Names* n = new Names();  // never freed: the views outlive every static
  return *n;
}
}  // namespace

uint32_t intern_id(std::string_view name) {
  Names& ns = name_table();
  const std::lock_guard<std::mutex> lock(ns.m);
  return ns.add(name);
}
std::string_view interned(uint32_t id) {
  const std::string_view* c = name_table().chunks[id >> kChunkBits].load(std::memory_order_acquire);
  return c[id & (kChunkIds - 1)];
}
std::string_view intern(std::string_view name) { return interned(intern_id(name)); }

Value& Value::add(std::string_view name, Value v) { return fields().add(name, std::move(v)); }

// ---- Shapes -----------------------------------------------------------------

// A shape made by with(): the name appended and the shape it makes.
struct Shape::Child {
  std::string_view name;  // interned
  const Shape* shape;
  const Child* next;
};
namespace {
std::mutex& shapes_mutex() {
  static std::mutex m;
  return m;
}
}  // namespace

const Shape* Shape::of(std::span<const std::string_view> names) {
  if (names.empty()) return &kEmpty;
  // One shape per list of names: keyed by the names, each with its length.
  std::string key;
  for (std::string_view n : names) {
    const uint32_t len = static_cast<uint32_t>(n.size());
    key.append(reinterpret_cast<const char*>(&len), sizeof len);
    key.append(n);
  }
  std::vector<std::string_view> interned;
  interned.reserve(names.size());
  for (std::string_view n : names) interned.push_back(intern(n));  // before the lock: intern() has its own
  static auto* shapes = new std::unordered_map<std::string, const Shape*>();
  const std::lock_guard<std::mutex> lock(shapes_mutex());
  auto it = shapes->find(key);
  if (it != shapes->end()) return it->second;
  void* m = ::operator new(sizeof(Shape) + sizeof(std::string_view) * names.size());
  Shape* s = new (m) Shape(static_cast<uint32_t>(names.size()));
  std::uninitialized_copy(interned.begin(), interned.end(), reinterpret_cast<std::string_view*>(s + 1));
  shapes->emplace(std::move(key), s);
  return s;
}
constinit const Shape Shape::kEmpty{0};
int Shape::index(std::string_view name) const {
  const std::string_view* n = names();
  for (uint32_t i = 0; i < n_; ++i)
    if (n[i].data() == name.data() ? n[i].size() == name.size() : n[i] == name) return static_cast<int>(i);
  return -1;
}
const Shape* Shape::with(std::string_view name) const {
  for (const Child* c = children_.load(std::memory_order_acquire); c; c = c->next)
    if (c->name == name) return c->shape;
  std::vector<std::string_view> ns(names(), names() + n_);
  ns.push_back(name);
  const Shape* s = of(ns);
  const std::string_view in = intern(name);
  const std::lock_guard<std::mutex> lock(shapes_mutex());
  for (const Child* c = children_.load(std::memory_order_acquire); c; c = c->next)
    if (c->name == name) return c->shape;  // another thread added it
  children_.store(new Child{in, s, children_.load(std::memory_order_relaxed)}, std::memory_order_release);
  return s;
}
const Shape* Shape::prefix(size_t n) const { return n >= n_ ? this : of(std::span(names(), n)); }

// ---- Fields -----------------------------------------------------------------

Value& Fields::add(std::string_view name, Value v) {
  const Shape* ns = shape()->with(name);
  const size_t n = size();
  const detail::Block* x = of(detail::Block::Members);
  if (!x || x->size == x->cap) reserve(n < 4 ? 4 : n * 2);
  Value* d = b->members() + n;
  new (d) Value(std::move(v));
  b->size = static_cast<uint32_t>(n + 1);
  b->shape() = ns;
  return *d;
}
void Fields::reserve(size_t n) {
  using detail::Block;
  if (kind != ValueKind::Struct) take(ValueKind::Struct, "fields()");
  if (!b) {
    b = Block::make(Block::Members, static_cast<uint32_t>(n), false);
  } else if (b->type != Block::Members) {
    if (b->size) throw std::logic_error("dynamic::Value: items() and fields() of one value");
    b = Block::remake(b, Block::Members, static_cast<uint32_t>(n), false);
  } else if (n > b->cap) {
    b = Block::remake(b, Block::Members, static_cast<uint32_t>(n), false);
  }
}
void Fields::reset(const Shape* s) {
  clear();
  reserve(s->size());
  Value* d = b->members();
  for (size_t i = 0; i < s->size(); ++i) new (d + i) Value();
  b->size = static_cast<uint32_t>(s->size());
  b->shape() = s;
}
void Fields::assign_flat(const Shape* s, const Value* vals) {
  using detail::Block;
  const size_t n = s->size();
  if (kind != ValueKind::Struct) take(ValueKind::Struct, "fields()");
  if (!b) {
    // A value with no block (every struct a decode starts): one bump (no
    // string: the members right after the shape), no clear or reserve to
    // go through (memcpy: a copy by words was ASB +2 % instructions).
    Block* nb = detail::bump(Block::Members, static_cast<uint32_t>(n), false, false);
    nb->size = static_cast<uint32_t>(n);
    char* base = reinterpret_cast<char*>(nb + 1);
    *reinterpret_cast<const Shape**>(base) = s;
    if (n) std::memcpy(base + sizeof(void*), static_cast<const void*>(vals), n * sizeof(Value));  // vals is null for no members
    b = nb;
    return;
  }
  clear();
  reserve(n);
  if (n) std::memcpy(static_cast<void*>(b->members()), static_cast<const void*>(vals), n * sizeof(Value));
  b->size = static_cast<uint32_t>(n);
  b->shape() = s;
}
void Fields::clear() {
  if (detail::Block* x = of(detail::Block::Members)) x->clear();
}
bool Fields::operator==(const Fields& o) const {
  const size_t n = size();
  if (n != o.size()) return false;
  if (!n) return true;
  if (b->shape() != o.b->shape()) return false;  // one shape per list of names
  const Value* x = values();
  const Value* y = o.values();
  for (size_t i = 0; i < n; ++i)
    if (!(x[i] == y[i])) return false;
  return true;
}
void Fields::out_of_range(size_t i) {
  throw std::out_of_range("dynamic::Value: member " + std::to_string(i) + " out of range");
}

Value& Value::at_path(std::string_view path) { return const_cast<Value&>(std::as_const(*this).at_path(path)); }  // a look-up changes no kind
const Value& Value::at_path(std::string_view path) const {
  const Value* v = this;
  size_t i = 0;
  while (i < path.size()) {
    if (path[i] == '.') {
      ++i;
      continue;
    }
    if (path[i] == '[') {
      const size_t e = path.find(']', i);
      if (e == std::string_view::npos) throw std::out_of_range("no ']' in '" + std::string(path) + "'");
      size_t k = 0;
      for (size_t j = i + 1; j < e; ++j) {
        if (path[j] < '0' || path[j] > '9') throw std::out_of_range("bad index in '" + std::string(path) + "'");
        k = k * 10 + size_t(path[j] - '0');
      }
      if (v->kind == Kind::Union && !v->items().empty()) v = &v->items()[0];
      if (k >= v->items().size()) throw std::out_of_range("index " + std::to_string(k) + " out of range in '" + std::string(path) + "'");
      v = &v->items()[k];
      i = e + 1;
      continue;
    }
    size_t e = i;
    while (e < path.size() && path[e] != '.' && path[e] != '[') ++e;
    const std::string_view name = path.substr(i, e - i);
    if (v->kind == Kind::Union && !v->items().empty()) {
      // A union's case name steps into its value; otherwise its value's fields.
      if (name == v->case_name()) {
        v = &v->items()[0];
        i = e;
        continue;
      }
      v = &v->items()[0];
    }
    v = &(*v)[name];
    i = e;
  }
  return *v;
}

bool Value::operator==(const Value& o) const {
  if (kind != o.kind || width != o.width) return false;
  if (!block_kind(kind)) return n_ == o.n_;
  if (kind == Kind::Union && (case_ != o.case_ || tag() != o.tag())) return false;
  return str() == o.str() && fields() == o.fields() && items() == o.items();
}

Schema Schema::load(const std::string& path) {
  Schema r;
  r.s_ = gen::load_schema(path, false);  // example: changes no output: not read
  r.p_ = make_plan(*r.s_);
  return r;
}
Schema Schema::load_text(const std::string& text, const std::string& name) {
  Schema r;
  r.s_ = gen::load_schema_text(text, name, false);
  r.p_ = make_plan(*r.s_);
  return r;
}
const std::string& Schema::name() const { return s_->format; }
std::string Schema::encode_refusal() const { return p_->encode_refusal ? p_->encode_refusal->what() : std::string(); }

int Schema::detect(std::span<const uint8_t> bytes, std::string_view file_name) const {
  const auto& s = *s_;
  auto magic_at = [&](std::string_view m) {
    return !m.empty() && s.magic_offset <= bytes.size() && m.size() <= bytes.size() - s.magic_offset &&
           std::equal(m.begin(), m.end(), bytes.begin() + s.magic_offset, [](char a, uint8_t b) { return uint8_t(a) == b; });
  };
  if (magic_at(s.magic)) return 2;
  for (const auto& st : s.structs)
    for (const auto& f : st->fields)
      for (const auto& [mark, big] : f->bom_marks)
        if (magic_at(mark) && st->name == s.root) return 2;
  for (const auto& e : s.extensions)
    if (file_name.size() >= e.size() && file_name.substr(file_name.size() - e.size()) == e) return 1;
  return 0;
}

}  // namespace binschema::dynamic
