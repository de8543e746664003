// A list that only grows (and may be emptied), kept in chunks of at most
// 64 KiB: what the writer records as it goes (pointer slots, string
// references, field positions). Appending never copies what is there, and
// malloc serves chunks this small from memory the process already has, where
// a vector doubling into tens of megabytes would take fresh pages (page
// faults) on every encode.
#pragma once

#include <bit>
#include <cstddef>
#include <memory>
#include <vector>

namespace binschema {

template <class T>
class ChunkedList {
 public:
  // Elements a chunk holds: a power of two, so that indexing is a shift.
  static constexpr size_t kPerChunk = std::bit_floor(sizeof(T) < 65536 ? 65536 / sizeof(T) : size_t{1});

  void push_back(const T& v) {
    if (size_ == chunks_.size() * kPerChunk) chunks_.push_back(std::make_unique_for_overwrite<T[]>(kPerChunk));
    (*this)[size_++] = v;
  }

  T& operator[](size_t i) { return chunks_[i / kPerChunk][i % kPerChunk]; }
  const T& operator[](size_t i) const { return chunks_[i / kPerChunk][i % kPerChunk]; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  // Keeps the chunks for what comes next.
  void clear() { size_ = 0; }

  class const_iterator {
   public:
    const_iterator(const ChunkedList* list, size_t i) : list_(list), i_(i) {}
    const T& operator*() const { return (*list_)[i_]; }
    const T* operator->() const { return &(*list_)[i_]; }
    const_iterator& operator++() {
      ++i_;
      return *this;
    }
    bool operator==(const const_iterator& o) const { return i_ == o.i_; }

   private:
    const ChunkedList* list_;
    size_t i_;
  };
  const_iterator begin() const { return {this, 0}; }
  const_iterator end() const { return {this, size_}; }

 private:
  std::vector<std::unique_ptr<T[]>> chunks_;
  size_t size_ = 0;
};

}  // namespace binschema
