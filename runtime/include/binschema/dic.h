// Nintendo's radix-tree dictionary (`DIC `), as in BFEVFL, BFRES and BNTX.
//
// A DIC maps names to indices through a binary PATRICIA tree. Readers may
// ignore the tree and take the names in order; writers must rebuild exactly
// the tree Nintendo's tools build, because the tree is part of the bytes.
// dic_words() inserts the names in order into such a tree and returns its
// entries, root first.
#pragma once

#include <bit>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "binschema/reader.h"

namespace binschema {

// One entry of the tree: the bit it tests and the entries it leads to.
struct DicWord {
  uint32_t bit;   // compact bit index ((byte << 3) | bit); 0xFFFFFFFF for the root
  uint16_t left;  // entry to follow when the bit is 0
  uint16_t right; // entry to follow when the bit is 1
};

// The tree's entries: the root, then one per name in the order given (entry
// i + 1 holds names[i]). Names must be distinct and non-empty, fewer than
// 0xFFFF. Throws EncodeError otherwise. The names are only read.
std::vector<DicWord> dic_words(std::span<const std::string_view> names);

// The same with each entry's name ("" for the root).
struct DicEntry {
  uint32_t bit;
  uint16_t left;
  uint16_t right;
  std::string name;
  bool operator==(const DicEntry&) const = default;
};
std::vector<DicEntry> build_dic(const std::vector<std::string>& names);

// The decode side of dic_words(): a DIC read from a file must hold names
// dic_words() accepts and exactly the tree it builds from them, or the
// unchanged model would be refused by encode or written back differently.
// `at` is where the DIC starts ("DIC ", u32 count, then 16-byte entries:
// u32 bit, u16 left, u16 right, 8-byte name offset); `names` are the names
// of entries 1..count as read. Throws DecodeError naming the entry's offset.
void check_dic_words(uint64_t at, const std::vector<std::string>& names, const std::vector<DicWord>& words);

template <std::endian E>
void check_dic(const Reader<E>& r, uint64_t at, const std::vector<std::string>& names) {
  std::vector<DicWord> words(names.size() + 1);
  for (size_t i = 0; i < words.size(); ++i) {
    const uint64_t e = at + 8 + 0x10 * i;  // inside the entries the reader has checked
    words[i] = {r.template get<uint32_t>(e), r.template get<uint16_t>(e + 4), r.template get<uint16_t>(e + 6)};
  }
  check_dic_words(at, names, words);
}

}  // namespace binschema
