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
#include <vector>

#include "binschema/chunked.h"
#include "binschema/error.h"

namespace binschema {

class PtrMap {
 public:
  void set(const void* key, uint32_t id, uint64_t value) { log_.push_back({key, id, value}); }

  uint64_t get(const void* key, uint32_t id) {
    // The last hit (place_ gets a field once per element of its array),
    // then the entries after it (fields of empty arrays are not got), then
    // a few before it (a struct's own position is noted after its members').
    const size_t end = std::min(log_.size(), last_ + kAhead);
    for (size_t i = last_; i < end; ++i)
      if (is(i, key, id)) return hit(i);
    const size_t begin = last_ > kBehind ? last_ - kBehind : 0;
    for (size_t i = last_; i-- > begin;)
      if (is(i, key, id)) return hit(i);
    return hit(find(key, id));
  }

 private:
  static constexpr size_t kAhead = 16, kBehind = 8;

  struct Entry {
    const void* key;
    uint32_t id;
    uint64_t value;
  };

  bool is(size_t i, const void* key, uint32_t id) const {
    const Entry& e = log_[i];
    return e.key == key && e.id == id;
  }

  uint64_t hit(size_t i) {
    last_ = i;
    return log_[i].value;
  }

  static size_t hash(const void* key, uint32_t id) {
    return (reinterpret_cast<uintptr_t>(key) + id) * 0x9e3779b97f4a7c15ull >> 20;
  }

  // The entry for the key. The root's own fields are noted first and got
  // last, so the log is read from its start, as long as these reads add up
  // to at most twice the log; past that, through the index (brought up to
  // date first), so that no order of gets makes encoding quadratic.
  size_t find(const void* key, uint32_t id) {
    if (scanned_ <= 2 * log_.size()) {
      for (size_t i = 0; i < log_.size(); ++i)
        if (is(i, key, id)) {
          scanned_ += i + 1;
          return i;
        }
      scanned_ += log_.size();
    }
    index_up_to(log_.size());
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
    if (n >= UINT32_MAX) throw EncodeError("more than 2^32 fields at variable offsets");
    if (n * 2 > table_.size()) {
      size_t size = 64;
      while (size < n * 2) size *= 2;
      table_.assign(size, 0);
      indexed_ = 0;
    }
    const size_t mask = table_.size() - 1;
    for (; indexed_ < n; ++indexed_) {
      const Entry& e = log_[indexed_];
      size_t i = hash(e.key, e.id) & mask;
      while (table_[i]) i = (i + 1) & mask;
      table_[i] = static_cast<uint32_t>(indexed_ + 1);
    }
  }

  ChunkedList<Entry> log_;
  size_t last_ = 0;       // where the last get found its entry
  std::vector<uint32_t> table_;
  size_t indexed_ = 0;    // entries [0, indexed_) are in table_
  size_t scanned_ = 0;    // entries read by find() from the log's start
};

}  // namespace binschema
