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
#include <functional>
#include <cstdint>
#include <optional>
#include <string_view>
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

  // A value with accepted alternatives (or an empty array's pointer): the
  // layout's when it has one for `slot`, else `fresh`.
  [[gnu::always_inline]] uint64_t kept(uint64_t slot, uint64_t fresh) {
    return lay_ ? laid_value(slot, fresh) : fresh;
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

  // place_block() with a layout.
  [[gnu::noinline]] void place_laid_block(uint64_t slot, uint64_t size, uint64_t a) {
    to_end();
    std::optional<uint64_t> v = lay_->find(slot);
    if (!v) return;
    const uint64_t fresh = a > 1 ? (len_ + a - 1) / a * a : len_;
    if (trace_) trace_->placed.emplace_back(slot, *v == fresh);
    if (*v == fresh || *v >= limit_ || size >= limit_ - *v) return;
    if (size) {
      // Room up to the next block the layout places (an edit may have made this one bigger).
      auto it = std::upper_bound(targets_.begin(), targets_.end(), *v);
      if (it != targets_.end() && size > *it - *v) return;
    }
    if (*v > buf_.size()) grow(*v - len_);
    hi_ = std::max(hi_, len_);
    len_ = *v;
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
  [[gnu::cold, gnu::noinline]] void note_span(uint64_t p, uint64_t n) { spans_.emplace_back(p, p + n); }
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
    std::vector<std::pair<uint64_t, uint64_t>> merged;
    for (const auto& [a, b] : spans_) {
      if (a == b) continue;
      if (!merged.empty() && a < merged.back().second)
        throw LayoutConflict("blocks overlap at " + hex(a) + " under the kept layout");
      if (!merged.empty() && a == merged.back().second) merged.back().second = b;
      else merged.emplace_back(a, b);
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

  template <class T>
  void put(uint64_t off, T v) { store<T, E>(buf_.data() + off, v); }

  // Writes an unsigned value of `width` bytes (1, 2, 4 or 8), refusing one
  // that does not fit.
  // Inline: the width is a constant where generated code calls it.
  [[gnu::always_inline]] void put_uint(uint64_t off, unsigned width, uint64_t v, const char* what) {
    if (width < 8 && (v >> (8 * width)) != 0) [[unlikely]] too_wide(what, v, width);
    switch (width) {
      case 1: put<uint8_t>(off, static_cast<uint8_t>(v)); break;
      case 2: put<uint16_t>(off, static_cast<uint16_t>(v)); break;
      case 4: put<uint32_t>(off, static_cast<uint32_t>(v)); break;
      default: put<uint64_t>(off, v); break;
    }
  }

  // Reads back a value written earlier (to merge bits into it).
  uint64_t get_uint(uint64_t off, unsigned width) const {
    switch (width) {
      case 1: return load<uint8_t, E>(buf_.data() + off);
      case 2: return load<uint16_t, E>(buf_.data() + off);
      case 4: return load<uint32_t, E>(buf_.data() + off);
      default: return load<uint64_t, E>(buf_.data() + off);
    }
  }

  // Patches a pointer slot with target - base and records it.
  [[gnu::always_inline]] void pointer(uint64_t slot, uint8_t width, uint64_t target, uint64_t base, const char* what) {
    put_uint(slot, width, target - base, what);
    record_pointer(slot, width, false);
  }

  // The target of the pointer at `slot` (`width` bytes holding target - base),
  // `size` bytes when known in advance (else 0), aligned to `a`: placed where
  // the layout put it when it has room there, else at the end; the pointer is
  // filled in. Returns where the target starts. Generated code calls this
  // once per pointer it places.
  [[gnu::always_inline]] uint64_t place_target(uint64_t slot, uint64_t size, uint64_t a, uint8_t width, uint64_t base,
                                               const char* what) {
    place_block(slot, size, a);
    align(a);
    const uint64_t t = pos();
    pointer(slot, width, t, base, what);
    return t;
  }
  // The same for a pointer whose slot the layout does not know (one inside a
  // block placed by hand, say): always at the end of what is written.
  [[gnu::always_inline]] uint64_t append_target(uint64_t slot, uint64_t a, uint8_t width, uint64_t base, const char* what) {
    to_end();
    align(a);
    const uint64_t t = pos();
    pointer(slot, width, t, base, what);
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

  // Resolves every late fix-up and hands over the bytes.
  std::vector<uint8_t> finish() {
    if (lay_) settle_layout();
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
