// Pools of struct blocks: blocks that fields point to but that a format keeps
// together in one place (ASB's tag groups after the valid tag list, the
// parameter values after an event group's parameter tables).
//
// Each block is written by a closure when the pool is placed; references are
// recorded as the model is written and patched once the blocks have landed.
// Sharing (equal blocks stored once) is decided by the generated code, which
// knows the block's type; the pool only numbers the blocks.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "binschema/writer.h"

namespace binschema {

class BlockPool {
 public:
  // Writes one block at the writer's position (aligning first) and returns where it starts.
  using Put = std::function<uint64_t()>;

  uint32_t add(Put put) {
    if (placed_) throw EncodeError("internal: block added after its pool was placed");
    puts_.push_back(std::move(put));
    return static_cast<uint32_t>(puts_.size() - 1);
  }

  // Slot `slot` (width bytes) receives the block's offset; with tag_shift,
  // `tag` is stored from that bit up and the offset must fit below it.
  void ref(uint32_t index, uint64_t slot, uint8_t width, uint64_t tag = 0, uint8_t tag_shift = 0) {
    refs_.push_back({slot, index, width, tag, tag_shift});
  }

  bool placed() const { return placed_; }

  // Empties the pool for the next instance of its scope (ASB's parameter
  // values are one pool per event group), keeping its memory.
  void restart() {
    puts_.clear();
    refs_.clear();
    starts_.clear();
    placed_ = false;
  }

  template <std::endian E>
  void place(Writer<E>& w) {
    if (placed_) throw EncodeError("internal: block pool placed twice");
    placed_ = true;
    starts_.clear();
    for (size_t i = 0; i < puts_.size(); ++i) starts_.push_back(puts_[i]());
    for (const Ref& r : refs_) {
      uint64_t v = starts_[r.index];
      if (r.tag_shift) {
        if ((v >> r.tag_shift) != 0)
          throw EncodeError("offset " + hex(v) + " does not fit in the " + std::to_string(r.tag_shift) + " bits below its tag");
        v |= r.tag << r.tag_shift;
      }
      w.pointer(r.slot, r.width, v, 0, "block offset");
    }
  }

 private:
  struct Ref {
    uint64_t slot;
    uint32_t index;
    uint8_t width;
    uint64_t tag;
    uint8_t tag_shift;
  };
  std::vector<Put> puts_;
  std::vector<Ref> refs_;
  std::vector<uint64_t> starts_;
  bool placed_ = false;
};

}  // namespace binschema
