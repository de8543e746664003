// The output side: a growing byte buffer with alignment, pointer fix-ups,
// a record of every pointer slot, named marks and late-bound values.
//
// Generated writers place a block (struct or array), note where its pointer
// slots are, and patch each slot once the target is placed. Values that are
// only known at the very end (file size, the size of a region, the offset of
// a pool) are registered as late fix-ups and resolved by finish().
#pragma once

#include <algorithm>
#include <bit>
#include <cstring>
#include <functional>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "binschema/chunked.h"
#include "binschema/error.h"
#include "binschema/layout.h"
#include "binschema/reader.h"

namespace binschema {

// One pointer slot written into the file. The event-flow relocation table is
// built from this record, so null pointers that a format registers are kept
// too (with `null` set).
struct PointerRecord {
  uint64_t slot;
  uint8_t width;  // bytes: 4 or 8
  bool null;
};

// A pointer whose target waits for its section (`section:`): which pointer of
// the format (a number the generated code gives), the struct that holds it
// and where that struct is.
struct SectionItem {
  uint32_t which;
  const void* x;
  uint64_t s;
};

// A value resolved in finish(), once every block is placed: the file size,
// where a region starts or ends, and whatever is computed from those.
struct LateFixup {
  uint64_t slot;
  uint8_t width;
  bool pointer;  // recorded as a pointer slot as well (null when 0)
  std::function<uint64_t()> value;
  const char* what = "late value";  // the field, for the error when it does not fit
};

// An array whose count the model does not hold (an expression, or a
// derived or const field) must have the length the count gives: `what` names
// the field, `count` is the expression as the schema spells it. Counts are
// worked out modulo 2^64, so one that went below zero is reported as negative.
[[noreturn]] void count_mismatch(const char* what, uint64_t have, uint64_t want, const char* count);
inline void check_count(const char* what, uint64_t have, uint64_t want, const char* count) {
  if (have != want) count_mismatch(what, have, want, count);
}

// place_shared / place_leaf: the target was not written, its slot points to
// an equal block written earlier (layout.h, "shared targets").
inline constexpr uint64_t kShared = UINT64_MAX;
// shared_at: no block to share.
inline constexpr uint64_t kNotShared = UINT64_MAX;
// place_block's size when the block's size is not known before it is written.
inline constexpr uint64_t kUnknownSize = UINT64_MAX;

// Model equality of two values of type T, behind void pointers: a block
// written earlier is shared only with a value of the same type (the address
// of same_value<T> is the type's tag) that is equal to it.
template <class T>
bool same_value(const void* a, const void* b) {
  return *static_cast<const T*>(a) == *static_cast<const T*>(b);
}
using SameValue = bool (*)(const void*, const void*);

// The buffer is kept zero-filled beyond the bytes written so far (`len_`),
// so appending zeros (reserve, align) is a length change, inline; it only
// calls out to grow the buffer now and then.
class WriterBase {
 public:
  explicit WriterBase(size_t reserve_hint = 0) { buf_.resize(reserve_hint); }

  // Writes into the caller's buffer from here on (call it before anything
  // is written): finish() leaves the file in `buf`, with the capacity it had
  // or more, so that a caller encoding many files reuses one allocation
  // instead of faulting in fresh pages each time (encode_into). What it held
  // is overwritten: it is emptied here, and grow() zero-fills its capacity
  // a piece at a time, just ahead of the writing, as for a fresh buffer (so
  // the zeros are still in the cache when the file's bytes replace them).
  // When encoding fails, `buf` gets its allocation back, empty.
  void adopt(std::vector<uint8_t>& buf) {
    into_ = &buf;
    buf_.swap(buf);
    buf_.clear();
    len_ = 0;
  }
  WriterBase(const WriterBase&) = delete;
  WriterBase& operator=(const WriterBase&) = delete;
  ~WriterBase() {
    if (into_) {
      into_->swap(buf_);
      into_->clear();
    }
  }

  uint64_t pos() const { return len_; }

  // Appends zero bytes up to the next multiple of `a`.
  [[gnu::always_inline]] void align(uint64_t a) {
    if (a > 1) {
      uint64_t r = len_ % a;
      if (r) bump(a - r);
    }
  }

  // Appends n zero bytes and returns where they start.
  // Inline: formats with variable-size structs call it for every field.
  [[gnu::always_inline]] uint64_t reserve(uint64_t n) {
    uint64_t p = bump(n);
    if (lay_) [[unlikely]] note_span(p, n);
    return p;
  }

  // ---- Layout (binschema/layout.h) -----------------------------------------
  // Without a layout the writer appends every block; with one, blocks go
  // where the layout says (the position can move back and forth) and every
  // block written is noted, so that finish() can refuse overlaps and fill in
  // the bytes no block covers.
  // Positions at or past the layout's `limit` are not taken from it (a
  // layout read from text cannot make the writer allocate more than that).
  void use_layout(const Layout* lay, LayoutTrace* trace = nullptr) {
    lay_ = lay;
    trace_ = trace;
    blocks_.clear();
    cover_.clear();
    leaves_.clear();
    vacated_.clear();
    tentative_.on = false;
    limit_ = !lay ? 0 : lay->limit ? lay->limit : UINT64_MAX;
    targets_.clear();
    if (lay)
      for (const auto& e : lay->at) targets_.push_back(e.second);
    std::sort(targets_.begin(), targets_.end());
  }
  bool has_layout() const { return lay_ != nullptr; }

  // Before the block that the pointer at `slot` points to (`size` bytes when
  // known in advance, else 0; aligned to `a`): moves to where the layout
  // placed it, when it has room there, or else to the end of what is written.
  // Inline when there is no layout (every block of a fresh file).
  [[gnu::always_inline]] void place_block(uint64_t slot, uint64_t size, uint64_t a) {
    if (lay_) [[unlikely]] place_laid_block(slot, size, a);
  }

  // ---- Shared targets (with a layout) ----------------------------------------
  // Several pointers of a file can point to one block. The layout keeps each
  // slot's target; when a slot's target is a block written earlier (by any
  // pointer) of the same type and equal to the value, the slot points there
  // and nothing is written again.
  //
  // shared_at(slot, v, a): that block's position, or kNotShared (always
  // without a layout). The caller then writes the pointer itself (any
  // encoding). `a`: the block's alignment.
  template <class T>
  [[gnu::always_inline]] uint64_t shared_at(uint64_t slot, const T& v, uint64_t a) {
    return lay_ ? find_shared(slot, &v, &same_value<T>, a) : kNotShared;
  }
  // After placing the block of value v at t (so that later slots can share it).
  template <class T>
  [[gnu::always_inline]] void note_block(uint64_t t, const T& v) {
    if (lay_) [[unlikely]] {
      blocks_.emplace(t, Block{&v, &same_value<T>});
      if (tentative_.on) tentative_.value = &v;  // a leaf written at the end for now (check_leaf)
    }
  }
  // share: equal (a fresh write stores equal targets once): the position of a
  // block written earlier for a share: equal pointer whose value is equal to
  // v (`h`: its hash, binschema::text::hash_value), or kNotShared. A slot the
  // layout names keeps the layout's target (a file's copies stay copies).
  template <class T>
  uint64_t equal_at(uint64_t slot, const T& v, size_t h) {
    return find_equal(slot, &v, &same_value<T>, h);
  }
  // After writing the block of a share: equal pointer at t.
  template <class T>
  void note_equal(uint64_t t, const T& v, size_t h) {
    equal_.emplace(h, Equal{&v, &same_value<T>, t});
    if (tentative_.on) tentative_.hash = h, tentative_.hashed = true;  // (check_leaf)
  }

  // A block with no pointers inside (its bytes are final once written): the
  // caller places it with place_leaf (Writer) and calls leaf_done(t) once its
  // bytes are written. When its layout position lies on bytes written
  // earlier (inside another block, or across two), it is written at the end
  // first; if its bytes equal those written at the position, it is taken
  // back and written there (the same bytes over them), and the slot points
  // there. A leaf whose bytes are later written over by other blocks (they
  // were placed after it) is checked once the file is complete (finish):
  // the bytes there must still be its own, else the layout is given up.

  // A value with accepted alternatives (or an empty array's pointer): the
  // layout's when it has one for `slot`, else `fresh`.
  [[gnu::always_inline]] uint64_t kept(uint64_t slot, uint64_t fresh) {
    return lay_ ? laid_value(slot, fresh) : fresh;
  }

  // A block whose bytes at `inner` from its start go at a multiple of `a` (a
  // power of two; anything else: no alignment), as `align: FIELD` on inline
  // bytes asks: zeros before it until they do. A block the layout places
  // stays where it was (place_block), unmoved by this.
  void align_inner(uint64_t slot, uint64_t a, uint64_t inner) {
    if (lay_) {
      if (lay_->find(slot)) {
        // Where the writer would put it, its bytes would not be aligned: the
        // layout keeps the slot (settle_layout), however fresh its place, so
        // that the block stays where the file has it.
        if (trace_ && a > 1 && (a & (a - 1)) == 0 && (std::max(len_, hi_) + inner) % a)
          trace_->placed.emplace_back(slot, false);
        return;
      }
      to_end();
    }
    if (a > 1 && (a & (a - 1)) == 0) {
      const uint64_t r = (len_ + inner) % a;
      if (r) bump(a - r);
    }
  }

  // Back to the end of everything written so far (after a block the layout
  // placed earlier in the file).
  void to_end() {
    if (len_ < hi_) len_ = hi_;
    else hi_ = len_;
  }

  // Formats without a relocation table do not need the pointer record.
  void set_record_pointers(bool on) { record_ = on; }

  uint8_t* at(uint64_t off) { return buf_.data() + off; }

  void bytes(uint64_t off, const void* src, size_t n) {
    if (n) std::memcpy(buf_.data() + off, src, n);
  }

  // A fixed-size character field: the text then NULs. A text that leaves no
  // room for the terminating NUL is refused when `nul` is set, and so is one
  // with a NUL inside: the reader takes the text up to the first NUL, so what
  // followed it would be lost.
  void chars(uint64_t off, std::string_view s, size_t n, bool nul, const char* field) {
    if (s.find('\0') != std::string_view::npos)
      throw EncodeError(std::string(field) + ": a NUL inside a fixed-size character field (it ends at the first NUL)");
    if (s.size() > n || (nul && s.size() == n))
      throw EncodeError(std::string(field) + ": \"" + std::string(s) + "\" does not fit in " +
                        std::to_string(n) + " bytes");
    bytes(off, s.data(), s.size());
  }

  void record_pointer(uint64_t slot, uint8_t width, bool null) {
    if (record_) pointers_.push_back({slot, width, null});
  }

  // Marks delimit regions (a pointed-to block with everything placed after
  // it for it, or a pool) so that late fix-ups can refer to them.
  void mark_start(int id) {
    grow_marks(id);
    starts_[id] = pos();
    if (lay_) span_marks_[id] = spans_.size();
  }
  // With a layout, what was placed for the region may end before the
  // position (a block placed earlier in the file came last): the furthest end.
  void mark_end(int id) {
    grow_marks(id);
    uint64_t e = pos();
    if (lay_ && span_marks_[id] != SIZE_MAX)
      for (size_t i = span_marks_[id]; i < spans_.size(); ++i) e = std::max(e, spans_[i].second);
    ends_[id] = e;
  }
  // With a layout, a section (`sections:`) must come out packed as a fresh
  // one would: from its start, each block after the ones before it, with
  // gaps only of alignment padding (less than `align` bytes). An edit that
  // moved or shrank one of its blocks leaves a hole or puts a block
  // elsewhere; then the whole file is laid out afresh (LayoutConflict).
  void check_packed(int id, uint64_t align) {
    if (!lay_ || static_cast<size_t>(id) >= span_marks_.size() || span_marks_[id] == SIZE_MAX) return;
    std::vector<std::pair<uint64_t, uint64_t>> sp(spans_.begin() + static_cast<std::ptrdiff_t>(span_marks_[id]), spans_.end());
    std::sort(sp.begin(), sp.end());
    uint64_t end = starts_[id];
    for (const auto& [a, b] : sp) {
      if (a == b) continue;
      if (a < starts_[id] || (a > end && a - end >= align))
        throw LayoutConflict("a section's block at " + hex(a) + " is not where a packed section puts it (" + hex(end) + ")");
      end = std::max(end, b);
    }
  }
  void mark_start_at(int id, uint64_t at) { grow_marks(id); starts_[id] = at; }
  void mark_end_at(int id, uint64_t at) { grow_marks(id); ends_[id] = at; }
  uint64_t start_of(int id) const { return mark(starts_, id); }
  uint64_t end_of(int id) const { return mark(ends_, id); }

  void late(LateFixup f) { late_.push_back(std::move(f)); }
  // A check that needs the whole file (an array counted by an expression over
  // file_size()): finish() runs it once the file is laid out; it throws EncodeError.
  void late_check(std::function<void()> f) { late_checks_.push_back(std::move(f)); }

  const ChunkedList<PointerRecord>& pointers() const { return pointers_; }

  // Slots of late values that are pointers (not yet in pointers()).
  std::vector<uint64_t> late_pointer_slots() const {
    std::vector<uint64_t> out;
    for (const LateFixup& f : late_)
      if (f.pointer) out.push_back(f.slot);
    return out;
  }

 protected:
  // The error of put_uint(), out of line (writer.cpp).
  [[noreturn, gnu::cold]] static void too_wide(const char* what, uint64_t v, unsigned width);
  // The error of pointer_scaled(), out of line (writer.cpp).
  [[noreturn, gnu::cold]] static void not_scaled(const char* what, uint64_t distance, uint64_t scale);

  // place_block() with a layout. `size` is kUnknownSize when the block's
  // size is not known in advance.
  [[gnu::noinline]] void place_laid_block(uint64_t slot, uint64_t size, uint64_t a) {
    to_end();
    std::optional<uint64_t> v = lay_->find(slot);
    if (!v) return;
    const uint64_t fresh = a > 1 ? (len_ + a - 1) / a * a : len_;
    if (trace_) trace_->placed.emplace_back(slot, *v == fresh);
    const bool known = size != kUnknownSize;
    if (!known) size = 0;
    if (*v == fresh || *v >= limit_ || size >= limit_ - *v) return;
    if (size) {
      // Room up to the next block the layout places (an edit may have made this one bigger).
      auto it = std::upper_bound(targets_.begin(), targets_.end(), *v);
      if (it != targets_.end() && size > *it - *v) return;
    }
    // Not over bytes written already (a shared block whose value changed for
    // this pointer: it goes to the end, and the others keep theirs). An empty
    // block (size 0) writes nothing and may go anywhere.
    if ((size || !known) && covered(*v, known ? size : 1)) return;
    if (*v > buf_.size()) grow(*v - len_);
    hi_ = std::max(hi_, len_);
    len_ = *v;
  }

  // shared_at() with a layout.
  [[gnu::noinline]] uint64_t find_shared(uint64_t slot, const void* v, SameValue same, uint64_t a) {
    std::optional<uint64_t> at = lay_->find(slot);
    if (!at) return kNotShared;
    for (auto [it, end] = blocks_.equal_range(*at); it != end; ++it) {
      if (it->second.same != same || !same(it->second.value, v)) continue;
      // Where the writer would put it anyway (after an empty block there, say) is no choice of the file's.
      const uint64_t e = std::max(len_, hi_), fresh = a > 1 ? (e + a - 1) / a * a : e;
      if (trace_) trace_->placed.emplace_back(slot, *at == fresh);
      return *at;
    }
    return kNotShared;
  }

  // equal_at().
  [[gnu::noinline]] uint64_t find_equal(uint64_t slot, const void* v, SameValue same, size_t h) {
    uint64_t pos = kNotShared;
    for (auto [it, end] = equal_.equal_range(h); it != end; ++it)
      if (it->second.same == same && same(it->second.value, v)) {
        pos = it->second.at;
        break;
      }
    if (lay_) {
      if (std::optional<uint64_t> at = lay_->find(slot)) {
        // The file's own copy where the writer would share: a choice of the
        // file's, which the layout keeps (settle_layout) however fresh its place.
        if (pos != kNotShared && *at != pos && trace_) trace_->placed.emplace_back(slot, false);
        if (pos == kNotShared || *at != pos) return kNotShared;
        if (trace_) trace_->placed.emplace_back(slot, true);  // what the writer does anyway
      }
    }
    return pos;
  }

  // place_leaf() with a layout: where the layout put the block, unless bytes
  // are written there already: then at the end, for leaf_done to compare.
  // Its room is not checked against the next block the layout places (leaves
  // may overlap others): finish() checks its bytes instead.
  [[gnu::noinline]] void place_laid_leaf(uint64_t slot, uint64_t size, uint64_t a, uint8_t width, uint64_t base) {
    to_end();
    tentative_ = {false, slot, 0, len_, spans_.size(), width, base, a};
    std::optional<uint64_t> v = lay_->find(slot);
    if (!v) return;
    tentative_.at = *v;
    const uint64_t fresh = a > 1 ? (len_ + a - 1) / a * a : len_;
    if (*v >= limit_ || size >= limit_ - *v) {
      if (trace_) trace_->placed.emplace_back(slot, *v == fresh);
      return;
    }
    if (size && covered(*v, size)) {
      tentative_.on = true;
      if (trace_) trace_->placed.emplace_back(slot, false);
      return;
    }
    if (trace_) trace_->placed.emplace_back(slot, *v == fresh);
    if (*v == fresh) return;
    if (*v > buf_.size()) grow(*v - len_);
    hi_ = std::max(hi_, len_);
    len_ = *v;
  }

  // leaf_done() with a layout: whether the leaf was moved to its layout
  // position (then the slot of tentative_ is to point there).
  [[gnu::noinline]] bool check_leaf(uint64_t t) {
    const uint64_t n = len_ - t;
    if (tentative_.on) {
      tentative_.on = false;
      const Tentative& k = tentative_;
      // Its bytes against those written at its position (where there are some).
      bool same = true;
      auto it = cover_.upper_bound(k.at);
      if (it != cover_.begin()) --it;
      for (; same && it != cover_.end() && it->first < k.at + n; ++it) {
        const uint64_t lo = std::max(it->first, k.at), hi = std::min(it->second, k.at + n);
        if (lo < hi && std::memcmp(buf_.data() + t + (lo - k.at), buf_.data() + lo, hi - lo) != 0) same = false;
      }
      if (same) {
        // The bytes agree: take this copy back and write the block at its position.
        std::string bytes(reinterpret_cast<const char*>(buf_.data() + t), n);
        std::memset(buf_.data() + k.from, 0, len_ - k.from);
        len_ = hi_ = k.from;
        spans_.resize(k.spans);
        const uint64_t end = k.at + n;
        if (end > buf_.size()) grow(end - len_);
        std::memcpy(buf_.data() + k.at, bytes.data(), n);
        if (end > hi_) len_ = hi_ = end;
        spans_.emplace_back(k.at, end);
        cover(k.at, end);
        renote(t, k.at);
        leaves_.push_back({k.at, std::move(bytes), k.slot, k.width, k.base, k.align, k.scale, k.add, k.tag});
        return true;
      }
      for (size_t i = k.spans; i < spans_.size(); ++i) cover(spans_[i].first, spans_[i].second);
    }
    const Tentative& k = tentative_;
    leaves_.push_back({t, std::string(reinterpret_cast<const char*>(buf_.data() + t), n), k.slot, k.width, k.base, k.align, k.scale, k.add, k.tag});
    return false;
  }

  // The leaf of tentative_, noted (note_block, note_equal) where it was
  // written first, is at `to` now: a later slot that shares it must point
  // there, and a block placed at `from` must not be taken for it.
  void renote(uint64_t from, uint64_t to) {
    const Tentative& k = tentative_;
    for (auto [it, end] = blocks_.equal_range(from); it != end; ++it)
      if (it->second.value == k.value) {
        const Block b = it->second;
        blocks_.erase(it);
        blocks_.emplace(to, b);
        break;
      }
    if (k.hashed)
      for (auto [it, end] = equal_.equal_range(k.hash); it != end; ++it)
        if (it->second.value == k.value && it->second.at == from) it->second.at = to;
  }

  // Whether [a, a + n) meets bytes of a block written so far (with a layout).
  bool covered(uint64_t a, uint64_t n) const {
    auto it = cover_.lower_bound(a + n);
    if (it == cover_.begin()) return false;
    --it;
    return it->second > a;
  }
  void cover(uint64_t a, uint64_t b) {
    if (a >= b) return;
    if (!cover_.empty()) {
      // The common case, a block written after the last range or inside it:
      // that range grows in place (no node freed and made again).
      auto last = std::prev(cover_.end());
      if (last->first <= a && a <= last->second) {
        last->second = std::max(last->second, b);
        return;
      }
    }
    auto it = cover_.upper_bound(a);
    if (it != cover_.begin()) {
      auto p = std::prev(it);
      if (p->second >= a) {
        a = p->first;
        b = std::max(b, p->second);
        it = cover_.erase(p);
      }
    }
    while (it != cover_.end() && it->first <= b) {
      b = std::max(b, it->second);
      it = cover_.erase(it);
    }
    cover_.emplace(a, b);
  }

  // kept() with a layout.
  [[gnu::noinline]] uint64_t laid_value(uint64_t slot, uint64_t fresh) {
    std::optional<uint64_t> v = lay_->find(slot);
    if (!v) return fresh;
    if (trace_) trace_->values.push_back(slot);
    return *v;
  }

  // The bytes written: returned, or left in the adopted buffer (and an
  // empty vector returned).
  std::vector<uint8_t> hand_over() {
    buf_.resize(len_);
    if (into_) {
      into_->swap(buf_);
      into_ = nullptr;
      return {};
    }
    return std::move(buf_);
  }

  // Out of line, so that reserve() and bump() stay small enough to inline.
  [[gnu::cold, gnu::noinline]] void note_span(uint64_t p, uint64_t n) {
    spans_.emplace_back(p, p + n);
    if (!tentative_.on) cover(p, p + n);  // a tentative leaf's bytes are covered once kept
  }
  // Makes room for n more bytes: the capacity doubles, but the zero-filled
  // size grows by at most 1 MiB past what is needed, so that a fresh buffer's
  // pages are touched as they are written, not all at once, and a move to a
  // larger buffer copies only what is written.
  [[gnu::noinline]] void grow(uint64_t n) {
    const uint64_t need = len_ + n;
    if (need > buf_.capacity()) buf_.reserve(std::max<uint64_t>(need, std::max<uint64_t>(buf_.capacity() * 2, 4096)));
    buf_.resize(std::min<uint64_t>(buf_.capacity(), std::max<uint64_t>(need, len_ + (uint64_t{1} << 20))));
  }

  // A region the model leaves out (an absent if: field, a null pointer, an
  // empty array that is not written) was never placed: its start, end and
  // size are 0, as the offset of a null pointer (docs §7 `region`).
  uint64_t mark(const std::vector<uint64_t>& v, int id) const {
    if (static_cast<size_t>(id) >= v.size() || v[id] == UINT64_MAX) return 0;
    return v[id];
  }
  void grow_marks(int id) {
    if (static_cast<size_t>(id) >= starts_.size()) {
      starts_.resize(id + 1, UINT64_MAX);
      ends_.resize(id + 1, UINT64_MAX);
      span_marks_.resize(id + 1, SIZE_MAX);
    }
  }

  // Appends n zero bytes (not noted as a block: padding).
  [[gnu::always_inline]] uint64_t bump(uint64_t n) {
    uint64_t p = len_;
    if (n > buf_.size() - len_) [[unlikely]] grow(n);
    len_ += n;
    return p;
  }

  // With a layout: the blocks must not overlap; the bytes between them that
  // the layout keeps are written, and the file is padded as it says.
  void settle_layout() {
    to_end();
    std::sort(spans_.begin(), spans_.end());
    // Blocks without pointers whose bytes are still theirs may overlap others
    // (the bytes written over them were the same): they take no part in the
    // overlap check, and cover their bytes all the same.
    std::vector<std::pair<uint64_t, uint64_t>> same;
    for (const Leaf& l : leaves_)
      if (l.at + l.bytes.size() <= len_ && std::memcmp(buf_.data() + l.at, l.bytes.data(), l.bytes.size()) == 0)
        same.emplace_back(l.at, l.at + l.bytes.size());
    std::sort(same.begin(), same.end());
    std::vector<std::pair<uint64_t, uint64_t>> merged;
    size_t k = 0;
    for (const auto& [a, b] : spans_) {
      if (a == b) continue;
      while (k < same.size() && same[k] < std::pair(a, b)) ++k;
      if (k < same.size() && same[k] == std::pair(a, b)) {
        ++k;
        continue;
      }
      if (!merged.empty() && a < merged.back().second)
        throw LayoutConflict("blocks overlap at " + hex(a) + " under the kept layout");
      if (!merged.empty() && a == merged.back().second) merged.back().second = b;
      else merged.emplace_back(a, b);
    }
    if (!same.empty()) {
      merged.insert(merged.end(), same.begin(), same.end());
      std::sort(merged.begin(), merged.end());
      std::vector<std::pair<uint64_t, uint64_t>> u;
      for (const auto& [a, b] : merged) {
        if (!u.empty() && a <= u.back().second) u.back().second = std::max(u.back().second, b);
        else u.emplace_back(a, b);
      }
      merged = std::move(u);
    }
    // Where a leaf was before finish() moved it: zero, but for other blocks' bytes.
    for (const auto& [a, b] : vacated_) {
      auto it = std::upper_bound(merged.begin(), merged.end(), a, [](uint64_t o, const auto& m) { return o < m.second; });
      for (uint64_t p = a; p < b;) {
        if (it != merged.end() && it->first <= p) {
          p = it->second;
          ++it;
          continue;
        }
        const uint64_t e = it != merged.end() ? std::min(b, it->first) : b;
        std::memset(buf_.data() + p, 0, e - p);
        p = e;
      }
    }
    for (const auto& [off, b] : lay_->fill) {
      if (off >= limit_ || b.size() >= limit_ - off) continue;
      // Only where no block went.
      auto it = std::upper_bound(merged.begin(), merged.end(), off, [](uint64_t o, const auto& m) { return o < m.second; });
      if (it != merged.end() && it->first < off + b.size()) continue;
      if (off + b.size() > len_) {
        if (off + b.size() > buf_.size()) grow(off + b.size() - len_);
        len_ = hi_ = off + b.size();
      }
      bytes(off, b.data(), b.size());
    }
    if (lay_->end_align > 1) align(lay_->end_align);
    if (trace_) trace_->covered = std::move(merged);
  }

  std::vector<uint8_t> buf_;
  std::vector<uint8_t>* into_ = nullptr;  // the caller's buffer (adopt)
  uint64_t len_ = 0;
  uint64_t hi_ = 0;  // the end of what is written, while a layout has moved len_ back
  const Layout* lay_ = nullptr;
  LayoutTrace* trace_ = nullptr;
  std::vector<std::pair<uint64_t, uint64_t>> spans_;  // blocks written, with a layout
  std::vector<uint64_t> targets_;  // the layout's values, sorted (room for a block)
  std::vector<size_t> span_marks_;  // per region: the first of spans_ placed for it
  // Shared targets (with a layout): blocks written, by position.
  struct Block {
    const void* value;
    SameValue same;
  };
  std::unordered_multimap<uint64_t, Block> blocks_;
  // share: equal: blocks written, by the hash of their value.
  struct Equal {
    const void* value;
    SameValue same;
    uint64_t at;
  };
  std::unordered_multimap<size_t, Equal> equal_;
  std::map<uint64_t, uint64_t> cover_;  // the bytes of blocks written so far: start -> end, disjoint
  // Blocks without pointers, with their bytes as written (checked in settle_layout).
  struct Leaf {
    uint64_t at;
    std::string bytes;
    uint64_t slot;  // its pointer: width bytes holding at - base
    uint8_t width;
    uint64_t base, align;
    // A pointer word of a tag_shift: union case: ((at - base + add) / scale) | tag.
    uint64_t scale = 1, add = 0, tag = 0;
  };
  std::vector<std::pair<uint64_t, uint64_t>> vacated_;  // where leaves were before finish() moved them
  std::vector<Leaf> leaves_;
  // A leaf written at the end until leaf_done compares it with the bytes at its layout position.
  struct Tentative {
    bool on = false;
    uint64_t slot = 0, at = 0, from = 0;
    size_t spans = 0;
    uint8_t width = 0;
    uint64_t base = 0, align = 1;
    uint64_t scale = 1, add = 0, tag = 0;  // the pointer word's encoding (see Leaf)
    const void* value = nullptr;  // its model value, as note_block noted it (renote)
    size_t hash = 0;              // and its hash, when note_equal noted it too
    bool hashed = false;
  } tentative_;
  uint64_t limit_ = 0;              // no position from the layout at or past this
  bool record_ = true;
  ChunkedList<PointerRecord> pointers_;
  std::vector<LateFixup> late_;
  std::vector<std::function<void()>> late_checks_;
  std::vector<uint64_t> starts_, ends_;
};

template <std::endian E>
class Writer : public WriterBase {
 public:
  using WriterBase::WriterBase;

  // A 24-bit value that does not fit is refused (the model holds 32 bits).
  template <class T>
  void put(uint64_t off, typename Loaded<T>::type v) {
    if constexpr (std::is_same_v<T, uint24>) {
      if (v > 0xFFFFFFu) [[unlikely]] too_wide("u24", v, 3);
    } else if constexpr (std::is_same_v<T, int24>) {
      if (v < -0x800000 || v > 0x7FFFFF) [[unlikely]] too_wide("s24", static_cast<uint64_t>(static_cast<int64_t>(v)), 3);
    }
    store<T, E>(buf_.data() + off, v);
  }

  // Writes an unsigned value of `width` bytes (1, 2, 4 or 8), refusing one
  // that does not fit.
  // Inline: the width is a constant where generated code calls it.
  [[gnu::always_inline]] void put_uint(uint64_t off, unsigned width, uint64_t v, const char* what) {
    if (width < 8 && (v >> (8 * width)) != 0) [[unlikely]] too_wide(what, v, width);
    switch (width) {
      case 1: put<uint8_t>(off, static_cast<uint8_t>(v)); break;
      case 2: put<uint16_t>(off, static_cast<uint16_t>(v)); break;
      case 3: put<uint24>(off, static_cast<uint32_t>(v)); break;
      case 4: put<uint32_t>(off, static_cast<uint32_t>(v)); break;
      default: put<uint64_t>(off, v); break;
    }
  }

  // Reads back a value written earlier (to merge bits into it).
  uint64_t get_uint(uint64_t off, unsigned width) const {
    switch (width) {
      case 1: return load<uint8_t, E>(buf_.data() + off);
      case 2: return load<uint16_t, E>(buf_.data() + off);
      case 3: return load<uint24, E>(buf_.data() + off);
      case 4: return load<uint32_t, E>(buf_.data() + off);
      default: return load<uint64_t, E>(buf_.data() + off);
    }
  }

  // Patches a pointer slot with target - base and records it.
  [[gnu::always_inline]] void pointer(uint64_t slot, uint8_t width, uint64_t target, uint64_t base, const char* what) {
    put_uint(slot, width, target - base, what);
    record_pointer(slot, width, false);
  }
  // The same for a pointer stored in units of `scale` bytes (`scale:`): the
  // distance must be a multiple of it.
  void pointer_scaled(uint64_t slot, uint8_t width, uint64_t target, uint64_t base, uint64_t scale, const char* what) {
    if (target < base || (target - base) % scale != 0) not_scaled(what, target - base, scale);
    put_uint(slot, width, (target - base) / scale, what);
    record_pointer(slot, width, false);
  }

  // The target of the pointer at `slot` (`width` bytes holding target - base),
  // `size` bytes when known in advance (else 0), aligned to `a`: placed where
  // the layout put it when it has room there, else at the end; the pointer is
  // filled in. Returns where the target starts. Generated code calls this
  // once per pointer it places.
  [[gnu::always_inline]] uint64_t place_target(uint64_t slot, uint64_t size, uint64_t a, uint8_t width, uint64_t base,
                                               const char* what, uint64_t scale = 1) {
    place_block(slot, size, a);
    align(a);
    const uint64_t t = pos();
    if (scale == 1) pointer(slot, width, t, base, what);
    else pointer_scaled(slot, width, t, base, scale, what);
    return t;
  }
  // place_target for the block of model value v (of type T): kShared when
  // the layout's target of `slot` is an equal block written earlier (the
  // pointer is filled in, nothing is to be written), else as place_target.
  template <class T>
  [[gnu::always_inline]] uint64_t place_shared(uint64_t slot, uint64_t size, uint64_t a, uint8_t width, uint64_t base,
                                               const char* what, const T& v) {
    if (lay_) [[unlikely]] {
      if (const uint64_t u = find_shared(slot, &v, &same_value<T>, a); u != kNotShared) {
        pointer(slot, width, u, base, what);
        return kShared;
      }
    }
    const uint64_t t = place_target(slot, size, a, width, base, what);
    note_block(t, v);
    return t;
  }
  // The same for a block with no pointers inside (`size` known): then
  // leaf_done(t) once its bytes are written.
  template <class T>
  [[gnu::always_inline]] uint64_t place_leaf(uint64_t slot, uint64_t size, uint64_t a, uint8_t width, uint64_t base,
                                             const char* what, const T& v) {
    if (!lay_) return place_target(slot, size, a, width, base, what);
    if (const uint64_t u = find_shared(slot, &v, &same_value<T>, a); u != kNotShared) {
      pointer(slot, width, u, base, what);
      return kShared;
    }
    place_laid_leaf(slot, size, a, width, base);
    align(a);
    const uint64_t t = pos();
    pointer(slot, width, t, base, what);
    note_block(t, v);
    return t;
  }

  // place_leaf for a tag_shift: union case whose word holds ((target - base
  // + add) / scale) | (tag << shift) (`scale:`, `points_to:`): AAMP's values,
  // which a file may store inside other values.
  template <class T>
  uint64_t place_leaf_word(uint64_t slot, uint64_t size, uint64_t a, uint8_t width, uint64_t base, const char* what, const T& v,
                           uint64_t scale, uint64_t add, uint64_t tag, unsigned shift) {
    auto word = [&](uint64_t at) {
      const uint64_t off = at - base + add;
      if (at < base || off % scale != 0 || ((off / scale) >> shift) != 0)
        throw EncodeError(std::string(what) + ": offset " + hex(off) + " is not a multiple of its scale " + std::to_string(scale) +
                          " or does not fit below its tag");
      return (off / scale) | (tag << shift);
    };
    if (lay_) {
      if (const uint64_t u = find_shared(slot, &v, &same_value<T>, a); u != kNotShared) {
        put_uint(slot, width, word(u), what);
        return kShared;
      }
      place_laid_leaf(slot, size, a, width, base);
      tentative_.scale = scale;
      tentative_.add = add;
      tentative_.tag = tag << shift;
    }
    align(a);
    const uint64_t t = pos();
    put_uint(slot, width, word(t), what);
    note_block(t, v);
    return t;
  }

  // The same for a pointer whose slot the layout does not know (one inside a
  // block placed by hand, say): always at the end of what is written.
  [[gnu::always_inline]] uint64_t append_target(uint64_t slot, uint64_t a, uint8_t width, uint64_t base, const char* what,
                                                uint64_t scale = 1) {
    to_end();
    align(a);
    const uint64_t t = pos();
    if (scale == 1) pointer(slot, width, t, base, what);
    else pointer_scaled(slot, width, t, base, scale, what);
    return t;
  }
  // An empty array's pointer: what the layout kept for it (the writer of the
  // file chose), else null, left as it is; recorded as a null pointer when
  // `record_null` (a relocation table lists null pointers too).
  void empty_target(uint64_t slot, uint8_t width, const char* what, bool record_null) {
    if (const uint64_t p = kept(slot, 0); p != 0) {
      put_uint(slot, width, p, what);
      record_pointer(slot, width, false);
    } else if (record_null) {
      record_pointer(slot, width, true);
    }
  }

  // With a layout: a leaf whose bytes blocks placed after it wrote over with
  // others (an edit made it longer, or its neighbour changed) goes to the end.
  void move_overwritten_leaves() {
    to_end();
    for (Leaf& l : leaves_) {
      if (std::memcmp(buf_.data() + l.at, l.bytes.data(), l.bytes.size()) == 0) continue;
      auto sp = std::find(spans_.begin(), spans_.end(), std::pair(l.at, l.at + l.bytes.size()));
      if (sp != spans_.end()) spans_.erase(sp);
      vacated_.emplace_back(l.at, l.at + l.bytes.size());
      align(l.align);
      const uint64_t t = reserve(l.bytes.size());
      bytes(t, l.bytes.data(), l.bytes.size());
      put_uint(l.slot, l.width, ((t - l.base + l.add) / l.scale) | l.tag, "pointer");
      l.at = t;
      hi_ = len_;
    }
  }

  // After the bytes of a block placed with place_leaf (at t) are written.
  [[gnu::always_inline]] void leaf_done(uint64_t t) {
    if (lay_) [[unlikely]]
      if (check_leaf(t))
        put_uint(tentative_.slot, tentative_.width, ((tentative_.at - tentative_.base + tentative_.add) / tentative_.scale) | tentative_.tag, "pointer");
  }

  // Resolves every late fix-up and hands over the bytes.
  std::vector<uint8_t> finish() {
    if (lay_) {
      move_overwritten_leaves();
      settle_layout();
    }
    for (const auto& check : late_checks_) check();
    for (const LateFixup& f : late_) {
      if (trace_) trace_->late.emplace_back(f.slot, f.width, f.what);
      uint64_t v = f.value();
      put_uint(f.slot, f.width, v, f.what);
      if (f.pointer) record_pointer(f.slot, f.width, v == 0);
    }
    late_.clear();
    return hand_over();
  }
};

}  // namespace binschema
