#include "binschema/relocation.h"

#include <algorithm>
#include <set>

namespace binschema {

std::vector<RelocationEntry> relocation_entries(std::vector<uint64_t> slots) {
  std::set<uint64_t> left(slots.begin(), slots.end());
  std::vector<RelocationEntry> out;
  while (!left.empty()) {
    uint64_t first = *left.begin();
    uint32_t mask = 0;
    for (uint32_t i = 0; i < 32; ++i) {
      auto it = left.find(first + 8 * i);
      if (it != left.end()) {
        mask |= 1u << i;
        left.erase(it);
      }
    }
    if (first > 0xFFFFFFFFu) throw EncodeError("relocation table: pointer slot beyond 4 GiB");
    out.push_back({static_cast<uint32_t>(first), mask});
  }
  return out;
}

uint64_t write_relocation_table(Writer<std::endian::little>& w, uint64_t data_end) {
  std::vector<uint64_t> slots;
  for (const PointerRecord& p : w.pointers()) {
    if (p.width != 8) throw EncodeError("relocation table: only 8-byte pointers can be relocated");
    slots.push_back(p.slot);
  }
  // Pointers whose value is only known at the end are pointers all the same.
  for (uint64_t slot : w.late_pointer_slots()) slots.push_back(slot);
  auto entries = relocation_entries(slots);
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
