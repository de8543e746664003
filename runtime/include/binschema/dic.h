// Nintendo's radix-tree dictionary (`DIC `), as in BFEVFL, BFRES and BNTX.
//
// A DIC maps names to indices through a binary PATRICIA tree. Readers may
// ignore the tree and take the names in order; writers must rebuild exactly
// the tree Nintendo's tools build, because the tree is part of the bytes.
// build_dic() inserts the names in order into such a tree and returns its
// entries, root first.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace binschema {

struct DicEntry {
  uint32_t bit;      // compact bit index ((byte << 3) | bit); 0xFFFFFFFF for the root
  uint16_t left;     // entry to follow when the bit is 0
  uint16_t right;    // entry to follow when the bit is 1
  std::string name;  // "" for the root
  bool operator==(const DicEntry&) const = default;
};

// Names must be distinct and non-empty. Throws EncodeError otherwise.
std::vector<DicEntry> build_dic(const std::vector<std::string>& names);

}  // namespace binschema
