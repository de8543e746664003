#include "binschema/relocation.h"

#include <algorithm>
#include <array>
#include <bit>

namespace binschema {
namespace {

// Sorts in linear time (a file has a pointer every few words): a radix sort,
// least significant 11 bits first, for as many digits as the largest slot has.
void radix_sort(std::vector<uint64_t>& v) {
  if (v.size() < 2048) {
    std::sort(v.begin(), v.end());
    return;
  }
  constexpr unsigned kBits = 11;
  uint64_t any = 0;
  for (uint64_t x : v) any |= x;
  std::vector<uint64_t> out(v.size());
  for (unsigned shift = 0; shift < 64 && (any >> shift) != 0; shift += kBits) {
    std::array<size_t, (1u << kBits) + 1> start{};
    for (uint64_t x : v) ++start[((x >> shift) & ((1u << kBits) - 1)) + 1];
    for (size_t d = 1; d < start.size(); ++d) start[d] += start[d - 1];
    for (uint64_t x : v) out[start[(x >> shift) & ((1u << kBits) - 1)]++] = x;
    v.swap(out);
  }
}

[[noreturn]] void beyond_4_gib() { throw EncodeError("relocation table: pointer slot beyond 4 GiB"); }

// The entries from a bitmap of the slots, one bit per byte of the file: the
// lowest bit still set starts an entry, which takes (and clears) the bits 8,
// 16, ... 248 bytes above it. No sort; relocation_entries() takes this way
// when the bitmap is at most twice the size of the list of slots, as it is
// for a file's pointers.
std::vector<RelocationEntry> entries_from_bitmap(const std::vector<uint64_t>& slots, uint64_t last) {
  std::vector<uint64_t> bits(last / 64 + 6);  // an entry looks up to 248 bytes past the last slot
  for (uint64_t s : slots) bits[s / 64] |= uint64_t{1} << (s % 64);
  std::vector<RelocationEntry> out;
  for (size_t w = 0; w < bits.size(); ++w)
    while (bits[w]) {
      const uint64_t first = uint64_t{w} * 64 + std::countr_zero(bits[w]);
      if (first > 0xFFFFFFFFu) beyond_4_gib();
      uint32_t mask = 0;
      for (uint32_t i = 0; i < 32; ++i) {
        const uint64_t p = first + 8 * i;
        const uint64_t bit = uint64_t{1} << (p % 64);
        if (bits[p / 64] & bit) {
          bits[p / 64] &= ~bit;
          mask |= 1u << i;
        }
      }
      out.push_back({static_cast<uint32_t>(first), mask});
    }
  return out;
}

}  // namespace

std::vector<RelocationEntry> relocation_entries(std::vector<uint64_t> slots) {
  if (slots.empty()) return {};
  const uint64_t last = *std::max_element(slots.begin(), slots.end());
  if (last / 8 <= 2 * sizeof(uint64_t) * slots.size()) return entries_from_bitmap(slots, last);
  // Sparse slots (a few pointers in a large file): sorted instead.
  radix_sort(slots);
  slots.erase(std::unique(slots.begin(), slots.end()), slots.end());
  // A slot is covered by the entry of the first uncovered slot below it when
  // it lies a multiple of 8 bytes above it, within 32 steps; a slot that is
  // not 8-aligned relative to it waits for an entry of its own. Sorted, an
  // entry's candidates are the next slots below first + 256: linear time.
  std::vector<bool> covered(slots.size());
  std::vector<RelocationEntry> out;
  for (size_t i = 0; i < slots.size(); ++i) {
    if (covered[i]) continue;
    const uint64_t first = slots[i];
    if (first > 0xFFFFFFFFu) beyond_4_gib();
    uint32_t mask = 0;
    for (size_t j = i; j < slots.size() && slots[j] - first < 8 * 32; ++j) {
      if (covered[j] || (slots[j] - first) % 8 != 0) continue;
      covered[j] = true;
      mask |= 1u << ((slots[j] - first) / 8);
    }
    out.push_back({static_cast<uint32_t>(first), mask});
  }
  return out;
}

uint64_t write_relocation_table(Writer<std::endian::little>& w, uint64_t data_end) {
  const std::vector<uint64_t> late = w.late_pointer_slots();
  std::vector<uint64_t> slots;
  slots.reserve(w.pointers().size() + late.size());
  for (const PointerRecord& p : w.pointers()) {
    if (p.width != 8) throw EncodeError("relocation table: only 8-byte pointers can be relocated");
    slots.push_back(p.slot);
  }
  // Pointers whose value is only known at the end are pointers all the same.
  slots.insert(slots.end(), late.begin(), late.end());
  auto entries = relocation_entries(std::move(slots));
  w.align(8);
  uint64_t at = w.reserve(0x28 + 8 * entries.size());
  w.bytes(at, "RELT", 4);
  w.put_uint(at + 4, 4, at, "relocation table offset");
  w.put<uint32_t>(at + 8, 1);  // one section covers everything
  w.put<uint32_t>(at + 0x1c, static_cast<uint32_t>(data_end));
  w.put<uint32_t>(at + 0x24, static_cast<uint32_t>(entries.size()));
  for (size_t i = 0; i < entries.size(); ++i) {
    w.put<uint32_t>(at + 0x28 + 8 * i, entries[i].offset);
    w.put<uint32_t>(at + 0x2c + 8 * i, entries[i].mask);
  }
  return at;
}

}  // namespace binschema
