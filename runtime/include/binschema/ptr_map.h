// Where the writer put each field whose offset is only known while writing
// it: a map from (model address, field id) to file offsets.
//
// put_ notes the position of such a field (set) and place_ looks it up when
// it places the field's targets (get): one set and one or more gets per
// field, several fields per record. place_ walks the model in nearly the
// order put_ did, so the entries are kept in a log in the order they were
// set, and a get looks first around the entry the last get found. Every set
// and nearly every get then touches memory next to the one before. (An
// open-addressing table hashed by address, this class until commit e5a97e4,
// took a cache miss per set and per get: 40 % of ASB's encode.)
//
// The id tells apart a struct and its first member, which share an address.
// put_ runs once for each object of the model, so each key is set once.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "binschema/error.h"

namespace binschema {

class PtrMap {
 public:
  void set(const void* key, uint32_t id, uint64_t value) {
    if (size_ % kChunk == 0) chunks_.push_back(std::make_unique_for_overwrite<Entry[]>(kChunk));
    entry(size_++) = {key, id, value};
  }

  uint64_t get(const void* key, uint32_t id) {
    // The last hit (place_ gets a field once per element of its array),
    // then the entries after it (fields of empty arrays are not got), then
    // a few before it (a struct's own position is noted after its members').
    const size_t end = std::min(size_, last_ + kAhead);
    for (size_t i = last_; i < end; ++i)
      if (is(i, key, id)) return hit(i);
    const size_t begin = last_ > kBehind ? last_ - kBehind : 0;
    for (size_t i = last_; i-- > begin;)
      if (is(i, key, id)) return hit(i);
    return hit(find(key, id));
  }

 private:
  static constexpr size_t kAhead = 16, kBehind = 8;
  // The log grows a chunk at a time: nothing is copied as it grows, and a
  // chunk (96 KiB) is small enough for malloc to hand the same memory to
  // the next encode.
  static constexpr size_t kChunk = 4096;

  struct Entry {
    const void* key;
    uint32_t id;
    uint64_t value;
  };

  Entry& entry(size_t i) { return chunks_[i / kChunk][i % kChunk]; }
  bool is(size_t i, const void* key, uint32_t id) {
    const Entry& e = entry(i);
    return e.key == key && e.id == id;
  }

  uint64_t hit(size_t i) {
    last_ = i;
    return entry(i).value;
  }

  static size_t hash(const void* key, uint32_t id) {
    return (reinterpret_cast<uintptr_t>(key) + id) * 0x9e3779b97f4a7c15ull >> 20;
  }

  // The entry for the key. The root's own fields are noted first and got
  // last, so the log is read from its start, as long as these reads add up
  // to at most twice the log; past that, through the index (brought up to
  // date first), so that no order of gets makes encoding quadratic.
  size_t find(const void* key, uint32_t id) {
    if (scanned_ <= 2 * size_) {
      for (size_t i = 0; i < size_; ++i)
        if (is(i, key, id)) {
          scanned_ += i + 1;
          return i;
        }
      scanned_ += size_;
    }
    index_up_to(size_);
    if (!table_.empty()) {
      const size_t mask = table_.size() - 1;
      for (size_t i = hash(key, id) & mask; table_[i]; i = (i + 1) & mask)
        if (is(table_[i] - 1, key, id)) return table_[i] - 1;
    }
    throw EncodeError("internal: a field's position was not noted before its targets were placed");
  }

  // Adds entries [indexed_, n) to the index; table_ holds entry index + 1,
  // 0 for an empty slot, and is at most half full.
  void index_up_to(size_t n) {
    if (indexed_ == n) return;
    if (n * 2 > table_.size()) {
      size_t size = 64;
      while (size < n * 2) size *= 2;
      table_.assign(size, 0);
      indexed_ = 0;
    }
    const size_t mask = table_.size() - 1;
    for (; indexed_ < n; ++indexed_) {
      const Entry& e = entry(indexed_);
      size_t i = hash(e.key, e.id) & mask;
      while (table_[i]) i = (i + 1) & mask;
      table_[i] = static_cast<uint32_t>(indexed_ + 1);
    }
  }

  std::vector<std::unique_ptr<Entry[]>> chunks_;
  size_t size_ = 0;  // entries in the log
  size_t last_ = 0;       // where the last get found its entry
  std::vector<uint32_t> table_;
  size_t indexed_ = 0;    // entries [0, indexed_) are in table_
  size_t scanned_ = 0;    // entries read by find() from the log's start
};

}  // namespace binschema
