// Data pools: byte strings ("slices") that fields refer to by a begin and an
// end offset, both from the pool's start (SARC's file data: each node's
// data_begin and data_end, from data_offset).
//
// The writer places the slices in the order they were referenced, each at
// a multiple of its own alignment (file offsets), after the pool's start,
// which is aligned to the largest of them. The reader records each slice it
// reads (SliceRead) and check_slices() tells whether the writer would put
// them where they are, giving each its alignment: so a file as read keeps
// its place, and a new or grown one is aligned as its alignment says.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "binschema/error.h"
#include "binschema/writer.h"

namespace binschema {

// The largest alignment of a slice (oead's largest is 0x2000): the padding
// before a slice stays bounded, whatever a text asks for.
constexpr uint64_t kMaxSliceAlign = 0x10000;

class DataPool {
 public:
  // align: the least alignment of a slice (the pool's `align:`); mark: its region.
  DataPool(uint64_t align, int mark) : align_(std::max<uint64_t>(align, 1)), mark_(mark) {}

  // A slice whose begin and end go to `slot` and `slot + width`. align 0:
  // the pool's; otherwise a power of two (at least the pool's is used).
  void ref(std::span<const uint8_t> bytes, uint64_t align, uint64_t slot, uint8_t width, const char* what) {
    if (align == 0) align = align_;
    if ((align & (align - 1)) != 0)
      throw EncodeError(std::string(what) + ": alignment " + hex(align) + " is not a power of two");
    if (align > kMaxSliceAlign)
      throw EncodeError(std::string(what) + ": alignment " + hex(align) + " is more than " + hex(kMaxSliceAlign));
    refs_.push_back({bytes, std::max(align, align_), slot, width, 0});
  }

  bool placed() const { return placed_; }

  template <std::endian E>
  void place(Writer<E>& w) {
    if (placed_) throw EncodeError("internal: pool placed twice");
    placed_ = true;
    uint64_t top = align_;
    for (const Ref& r : refs_) top = std::max(top, r.align);
    w.align(top);
    w.mark_start(mark_);
    start_ = w.pos();
    for (Ref& r : refs_) {
      w.align(r.align);
      r.at = w.reserve(r.bytes.size());
      w.bytes(r.at, r.bytes.data(), r.bytes.size());
    }
    w.mark_end(mark_);
  }

  template <std::endian E>
  void patch(Writer<E>& w) {
    if (!placed_) throw EncodeError("internal: pool referenced but never placed");
    for (const Ref& r : refs_) {
      w.put_uint(r.slot, r.width, r.at - start_, "slice begin");
      w.put_uint(r.slot + r.width, r.width, r.at + r.bytes.size() - start_, "slice end");
    }
  }

 private:
  struct Ref {
    std::span<const uint8_t> bytes;
    uint64_t align, slot;
    uint8_t width;
    uint64_t at;
  };
  uint64_t align_;
  int mark_;
  bool placed_ = false;
  uint64_t start_ = 0;
  std::vector<Ref> refs_;
};

// A slice as read: its file offsets, where its begin word is, and the model
// field that gets its alignment (nullptr: none).
struct SliceRead {
  uint64_t begin, end, at;
  uint32_t* align;
};

// Checks that the slices read (in order of reference) lie where the writer
// would put them: the pool starting at `start`, the first byte after what
// precedes the pool at `before`, each slice at the next multiple of its
// alignment after the previous one, zeros between, nothing after the last
// (the file ends at `file_end`). Each slice's alignment is the largest power
// of two that divides its offset, at most the pool start's and
// kMaxSliceAlign, and at least `least` (the pool's align:). Throws DecodeError naming `pool`; fills in
// each slice's alignment.
inline void check_slices(std::span<const uint8_t> data, std::vector<SliceRead>& slices, uint64_t start, uint64_t before,
                         uint64_t file_end, uint64_t least, const char* pool) {
  auto low_bit = [](uint64_t v) { return v & (~v + 1); };
  const uint64_t cap = std::min(start ? low_bit(start) : kMaxSliceAlign, kMaxSliceAlign);
  if (start < before || start > file_end)
    fail(before, pool, "the pool starts at " + hex(start) + ", not after what precedes it (up to " + hex(before) + ") inside the file");
  uint64_t pos = start, top = least;
  size_t i = 0;
  for (SliceRead& s : slices) {
    const uint64_t a = std::min(cap, s.begin ? low_bit(s.begin) : cap);
    if (a < least)
      fail(s.at, pool, "slice " + std::to_string(i) + " starts at " + hex(s.begin) + ", not a multiple of the pool's alignment " + hex(least));
    const uint64_t want = (pos + a - 1) / a * a;
    if (s.begin != want)
      fail(s.at, pool, "slice " + std::to_string(i) + " starts at " + hex(s.begin) + ", but the writer would put it at " + hex(want) +
                           " (after the previous one, at a multiple of " + hex(a) + ")");
    for (uint64_t k = pos; k < s.begin; ++k)
      if (data[k] != 0) fail(k, pool, "padding byte " + hex(data[k]) + " before slice " + std::to_string(i) + " is not zero");
    if (s.align) *s.align = static_cast<uint32_t>(a);
    top = std::max(top, a);
    pos = s.end;
    ++i;
  }
  const uint64_t want_start = (before + top - 1) / top * top;
  if (want_start != start)
    fail(before, pool, "the pool starts at " + hex(start) + ", but the writer would start it at " + hex(want_start) +
                           " (at a multiple of its largest alignment, " + hex(top) + ")");
  for (uint64_t k = before; k < start; ++k)
    if (data[k] != 0) fail(k, pool, "padding byte " + hex(data[k]) + " before the pool is not zero");
  if (pos != file_end)
    fail(pos, pool, hex(file_end - pos) + " bytes after the last slice (the writer writes none there)");
}

}  // namespace binschema
