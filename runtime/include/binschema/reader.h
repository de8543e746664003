// Bounds-checked loads from an in-memory file.
//
// Generated readers check a whole fixed-size struct once (`need`) and then
// load its fields without further checks; that is where decode speed comes
// from. Every check failure throws DecodeError with the offending offset.
//
// Decode budget: a pooled string or block referenced N times is copied into
// the model N times, so without a limit a small file could make a huge model
// (5,000 references to one 50 KB string: 250 MB). Every byte the reader hands
// out (each struct checked with need(), each string) is charged against a
// budget of kDecodeBudgetFactor x file size + kDecodeBudgetSlack bytes; past
// it decoding stops with "decode budget exceeded". A file read once, struct
// by struct, uses about 1x; real files with shared string pools under 2x.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "binschema/error.h"
#include "binschema/trace.h"

namespace binschema {

template <class T>
constexpr T byteswap(T v) {
  if constexpr (sizeof(T) == 1) {
    return v;
  } else if constexpr (sizeof(T) == 2) {
    return static_cast<T>(__builtin_bswap16(static_cast<uint16_t>(v)));
  } else if constexpr (sizeof(T) == 4) {
    return static_cast<T>(__builtin_bswap32(static_cast<uint32_t>(v)));
  } else {
    return static_cast<T>(__builtin_bswap64(static_cast<uint64_t>(v)));
  }
}

// A 24-bit integer in the file (schema types u24 and s24): 3 bytes there, a
// uint32_t / int32_t in the model. The generated code names these two as the
// stored type, `load<uint24, E>` giving a uint32_t.
struct uint24 { uint8_t b[3]; };
struct int24 { uint8_t b[3]; };
template <class T> struct Loaded { using type = T; };
template <> struct Loaded<uint24> { using type = uint32_t; };
template <> struct Loaded<int24> { using type = int32_t; };
template <class T> inline constexpr bool is_int24 = std::is_same_v<T, uint24> || std::is_same_v<T, int24>;

// Load/store of an integer or float of byte order E at an unaligned address.
template <class T, std::endian E>
inline typename Loaded<T>::type load(const uint8_t* p) {
  if constexpr (is_int24<T>) {
    const uint32_t u = E == std::endian::little ? uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16
                                                : uint32_t(p[0]) << 16 | uint32_t(p[1]) << 8 | uint32_t(p[2]);
    if constexpr (std::is_same_v<T, int24>) return static_cast<int32_t>(u << 8) >> 8;
    else return u;
  } else {
    using U = std::conditional_t<sizeof(T) == 1, uint8_t,
              std::conditional_t<sizeof(T) == 2, uint16_t,
              std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>>>;
    U u;
    std::memcpy(&u, p, sizeof u);
    if constexpr (E != std::endian::native) u = byteswap(u);
    return std::bit_cast<T>(u);
  }
}

// A 24-bit store keeps the low 24 bits: callers check the range first.
template <class T, std::endian E>
inline void store(uint8_t* p, typename Loaded<T>::type v) {
  if constexpr (is_int24<T>) {
    const uint32_t u = static_cast<uint32_t>(v);
    if constexpr (E == std::endian::little) {
      p[0] = uint8_t(u); p[1] = uint8_t(u >> 8); p[2] = uint8_t(u >> 16);
    } else {
      p[0] = uint8_t(u >> 16); p[1] = uint8_t(u >> 8); p[2] = uint8_t(u);
    }
  } else {
    using U = std::conditional_t<sizeof(T) == 1, uint8_t,
              std::conditional_t<sizeof(T) == 2, uint16_t,
              std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>>>;
    U u = std::bit_cast<U>(v);
    if constexpr (E != std::endian::native) u = byteswap(u);
    std::memcpy(p, &u, sizeof u);
  }
}

[[noreturn, gnu::cold, gnu::noinline]] void fail_budget(uint64_t off, uint64_t budget, uint64_t size);

// See "Decode budget" above; docs/schema-language.md states the same numbers.
inline constexpr uint64_t kDecodeBudgetFactor = 8;
inline constexpr uint64_t kDecodeBudgetSlack = uint64_t(1) << 20;

// Nesting of structs that can hold themselves (a tree): the reader refuses
// a file nested deeper than this many such structs on one path, and a
// pointer back to a block it is reading (a cycle), so that no file can
// exhaust the stack of the (recursive) generated reader.
inline constexpr size_t kDecodeDepthLimit = 256;

class NestPath {
 public:
  // Entering the struct `type` (its name) at `s`.
  void enter(uint64_t s, const char* type) {
    if (path_.size() >= kDecodeDepthLimit) [[unlikely]]
      fail_depth(s, type);
    for (const auto& [at, t] : path_)
      if (at == s && t == type) [[unlikely]]
        fail_cycle(s, type);
    path_.emplace_back(s, type);
  }
  void leave() { path_.pop_back(); }

 private:
  [[noreturn, gnu::cold, gnu::noinline]] static void fail_depth(uint64_t s, const char* type);
  [[noreturn, gnu::cold, gnu::noinline]] static void fail_cycle(uint64_t s, const char* type);
  std::vector<std::pair<uint64_t, const char*>> path_;
};

// Generated readers hold one while reading a struct that can hold itself.
class Nested {
 public:
  Nested(NestPath& p, uint64_t s, const char* type) : p_(p) { p_.enter(s, type); }
  ~Nested() { p_.leave(); }
  Nested(const Nested&) = delete;
  Nested& operator=(const Nested&) = delete;

 private:
  NestPath& p_;
};

// A field at a fixed offset of a struct: what the probe names (below).
struct FieldAt {
  uint64_t at, size;
  const char* name;
};

template <std::endian E>
class Reader {
 public:
  explicit Reader(std::span<const uint8_t> data)
      : data_(data), budget_(kDecodeBudgetFactor * data.size() + kDecodeBudgetSlack) {}

  static constexpr bool kBigEndian = E == std::endian::big;

  // The byte map's field trace (binschema/trace.h): null unless asked for.
  Trace* tr = nullptr;

  // Bytes the decode may still copy into the model.
  uint64_t budget_left() const { return budget_; }

  // The structs that can hold themselves being read, outermost first.
  mutable NestPath nest;

  size_t size() const { return data_.size(); }
  static constexpr bool big_endian() { return E == std::endian::big; }
  const uint8_t* data() const { return data_.data(); }

  // Throws unless [off, off + n) lies inside the file. The checks stay inline
  // and the throws out of line: they run for every struct.
  void need(uint64_t off, uint64_t n) const {
    if (off > data_.size() || n > data_.size() - off) [[unlikely]]
      fail_need(off, n, data_.size());
    charge(off, n);
    if (probe_at != UINT64_MAX) [[unlikely]] probe(off, n);
  }

  // need() of a struct whose fields at fixed offsets are `fields`: a probe
  // that stops here names the field that holds the byte.
  template <size_t N>
  void need(uint64_t off, uint64_t n, const FieldAt (&fields)[N]) const {
    if (off > data_.size() || n > data_.size() - off) [[unlikely]]
      fail_need(off, n, data_.size());
    charge(off, n);
    if (probe_at != UINT64_MAX) [[unlikely]] probe(off, n, fields, N);
  }

  // The probe: which block read holds the byte at `probe_at`. Off unless a
  // caller sets it (decode(bytes, layout) does, to name the field of a byte
  // the writer would not give back: layout.h). Every struct checked with
  // need(), every string and every array of numbers is a read, numbered from
  // 1; `probe_hits` ends as the number of the last read that holds the byte,
  // or, when none does (bytes no field reads: padding inside a block, say),
  // of the read that ends nearest before it, with kProbeBefore set. A second
  // run with `probe_stop` set to that number throws a DecodeError at that
  // read ("probe", or "probe before" for the nearest one before; at a
  // struct's field at a fixed offset, named: the one that holds the byte, or
  // for "probe before" the one that ends last), and the enclosing fields add
  // their names to its path on the way out. One compare per read while it is
  // off.
  static constexpr uint64_t kProbeBefore = uint64_t(1) << 63;
  uint64_t probe_at = UINT64_MAX;
  uint64_t probe_stop = 0;
  mutable uint64_t probe_hits = 0;

  // Counts n bytes against the decode budget (done by need() and the string
  // loads; generated code calls it for data copied in other ways).
  void charge(uint64_t off, uint64_t n) const {
    if (n > budget_) [[unlikely]]
      fail_budget(off, kDecodeBudgetFactor * data_.size() + kDecodeBudgetSlack, data_.size());
    budget_ -= n;
  }

  // The same with the table as a pointer and a count (the run-time engine's
  // tables, binschema/dynamic.h, are made at run time).
  void need(uint64_t off, uint64_t n, const FieldAt* fields, size_t nf) const {
    if (off > data_.size() || n > data_.size() - off) [[unlikely]]
      fail_need(off, n, data_.size());
    charge(off, n);
    if (probe_at != UINT64_MAX) [[unlikely]] probe(off, n, nf ? fields : nullptr, nf);
  }

  // Throws unless a pointer target of at least n bytes lies inside the file.
  void need_target(uint64_t target, uint64_t n) const {
    if (target > data_.size() || n > data_.size() - target) [[unlikely]]
      fail_target(target, data_.size());
  }

  // Throws unless `count` elements of at least `min_size` bytes each can fit
  // from `off` on: a corrupt count must never turn into a huge allocation.
  void need_array(uint64_t off, uint64_t count, uint64_t min_size) const {
    uint64_t avail = off <= data_.size() ? data_.size() - off : 0;
    if (min_size == 0) min_size = 1;
    if (count > avail / min_size) [[unlikely]]
      fail_array(off, count, min_size, data_.size());
    if (probe_at != UINT64_MAX) [[unlikely]] probe(off, count * min_size);
  }

  // Unchecked loads: call need() first.
  template <class T>
  typename Loaded<T>::type get(uint64_t off) const { return load<T, E>(data_.data() + off); }

  // Checked loads.
  template <class T>
  typename Loaded<T>::type at(uint64_t off) const {
    need(off, sizeof(T));
    return get<T>(off);
  }

  // A NUL-terminated string starting at off; `len` receives its length.
  std::string_view cstring(uint64_t off) const {
    if (off >= data_.size())
      throw DecodeError(off, "string at " + hex(off) + " past end of file (" + hex(data_.size()) + ")");
    const void* end = std::memchr(data_.data() + off, 0, data_.size() - off);
    if (!end) throw DecodeError(off, "string at " + hex(off) + " has no terminating NUL");
    const size_t len = static_cast<const uint8_t*>(end) - (data_.data() + off);
    charge(off, len);
    if (tr) [[unlikely]] tr->leaf(nullptr, TraceKind::String, off, len + 1, "cstring");
    if (probe_at != UINT64_MAX) [[unlikely]] probe(off, len + 1);
    return std::string_view(reinterpret_cast<const char*>(data_.data() + off), len);
  }

  // A Pascal string: u16 length, the bytes, then a NUL (required, so that
  // writing the string back gives the same bytes).
  std::string_view pascal16(uint64_t off) const {
    need(off, 2);
    uint16_t n = get<uint16_t>(off);
    need(off + 2, uint64_t(n) + 1);
    if (data_[off + 2 + n] != 0) throw DecodeError(off, "string at " + hex(off) + " is not NUL-terminated");
    charge(off, n);
    if (tr) [[unlikely]] tr->leaf(nullptr, TraceKind::String, off, uint64_t(n) + 3, "pascal16");
    if (probe_at != UINT64_MAX) [[unlikely]] probe(off, uint64_t(n) + 3);
    return std::string_view(reinterpret_cast<const char*>(data_.data() + off + 2), n);
  }

  // A fixed-size character field: the text up to the first NUL.
  std::string_view chars(uint64_t off, size_t n) const {
    const char* p = reinterpret_cast<const char*>(data_.data() + off);
    const void* end = std::memchr(p, 0, n);
    return std::string_view(p, end ? static_cast<const char*>(end) - p : n);
  }

 private:
  [[gnu::cold, gnu::noinline]] void probe(uint64_t off, uint64_t n, const FieldAt* fields = nullptr, size_t nf = 0) const {
    const uint64_t k = ++probe_calls_;
    const bool in = probe_at - off < n;
    if (in) {
      probe_in_ = k;
    } else if (off <= probe_at && n <= probe_at - off && off + n >= probe_end_) {
      probe_end_ = off + n;
      probe_before_ = k;
    }
    probe_hits = probe_in_ ? probe_in_ : probe_before_ ? probe_before_ | kProbeBefore : 0;
    if (k != (probe_stop & ~kProbeBefore)) return;
    // The field that holds the byte; for a byte after the block (no read
    // holds it), the block's field that ends last, the nearest field before
    // it (a struct read at the root has an empty path: its field names it).
    const FieldAt* named = nullptr;
    for (size_t i = 0; i < nf; ++i) {
      const FieldAt& f = fields[i];
      if (in) {
        if (probe_at - off - f.at < f.size) {
          named = &f;
          break;
        }
      } else if (!named || f.at + f.size > named->at + named->size ||
                 (f.at + f.size == named->at + named->size && f.at > named->at)) {
        named = &f;
      }
    }
    DecodeError e(named ? off + named->at : off, in ? "probe" : "probe before");
    if (named) e.push_field(named->name);
    throw e;
  }

  mutable uint64_t probe_calls_ = 0, probe_in_ = 0, probe_before_ = 0, probe_end_ = 0;
  std::span<const uint8_t> data_;
  mutable uint64_t budget_;  // const readers are passed around; the budget is bookkeeping
};

}  // namespace binschema
