// Tables of strings that fields refer to by index (docs/schema-language.md
// §5 `table`, `index_of`): BYML's key and string tables.
//
// Read: the table's strings, in the file's order; each index field looks its
// string up (an index past the end is a DecodeError at the field). Write: the
// writer first collects every string the model's index fields hold (each
// once), orders them as the schema says, writes the table from them and each
// index field as its string's place in it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "binschema/error.h"

namespace binschema {

class IndexTable {
 public:
  // ---- Read
  void assign_read(std::vector<std::string> strings) { strings_ = std::move(strings); }
  // The string at index i; `at` is the index field's offset, for the error.
  const std::string& at(uint64_t i, uint64_t at, const char* field, const char* table) const {
    if (i >= strings_.size()) [[unlikely]]
      fail(at, field,
           "index " + std::to_string(i) + " into table " + table + " (" + std::to_string(strings_.size()) +
               " strings) is out of range");
    return strings_[i];
  }

  // ---- Write
  void add(const std::string& s) {
    if (index_.try_emplace(s, static_cast<uint32_t>(strings_.size())).second) strings_.push_back(s);
  }
  // Fixes the order (sorted by bytes, as unsigned values; else the order of
  // first use) and the index of each string.
  void finish(bool sorted) {
    if (!sorted) return;
    std::sort(strings_.begin(), strings_.end());  // char_traits<char> compares as unsigned char
    for (size_t i = 0; i < strings_.size(); ++i) index_[strings_[i]] = static_cast<uint32_t>(i);
  }
  uint32_t index(const std::string& s, const char* what) const {
    const auto it = index_.find(s);
    if (it == index_.end()) [[unlikely]]
      throw EncodeError(std::string(what) + ": '" + s + "' is not in its table (internal: the collector missed it)");
    return it->second;
  }

  const std::vector<std::string>& strings() const { return strings_; }
  bool empty() const { return strings_.empty(); }
  size_t size() const { return strings_.size(); }

 private:
  std::vector<std::string> strings_;
  std::unordered_map<std::string, uint32_t> index_;
};

}  // namespace binschema
