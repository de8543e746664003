// A small open-addressing map from (model address, field id) to file offsets.
//
// The writer notes where a field at a variable offset went (put_) and looks
// it up when its targets are placed (place_): one insert and one lookup per
// such field, several per record. std::unordered_map allocated a node for
// each and took a third of ASB's encode time; this keeps them in one array.
// The id tells apart a struct and its first member, which share an address.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "binschema/error.h"

namespace binschema {

class PtrMap {
 public:
  void set(const void* key, uint32_t id, uint64_t value) {
    if ((used_ + 1) * 4 > slots_.size() * 3) grow();
    Slot& s = find(key, id);
    if (!s.key) ++used_;
    s = {key, id, value};
  }

  uint64_t get(const void* key, uint32_t id) const {
    if (!slots_.empty()) {
      const Slot& s = const_cast<PtrMap*>(this)->find(key, id);
      if (s.key) return s.value;
    }
    throw EncodeError("internal: a field's position was not noted before its targets were placed");
  }

 private:
  struct Slot {
    const void* key = nullptr;
    uint32_t id = 0;
    uint64_t value = 0;
  };

  // The slot holding key, or the empty slot where it would go (slots_ is
  // never full: it grows at 3/4).
  Slot& find(const void* key, uint32_t id) {
    const size_t mask = slots_.size() - 1;
    size_t i = (std::hash<const void*>{}(key) + id) * 0x9e3779b97f4a7c15ull >> 20 & mask;
    while (slots_[i].key && (slots_[i].key != key || slots_[i].id != id)) i = (i + 1) & mask;
    return slots_[i];
  }

  void grow() {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(old.empty() ? 64 : old.size() * 2, Slot{});
    for (const Slot& s : old)
      if (s.key) find(s.key, s.id) = s;
  }

  std::vector<Slot> slots_;
  size_t used_ = 0;
};

}  // namespace binschema
