// Kaitai Struct's generated C++ parser for BAEV, walked in full (see kaitai_baev_walk.cpp).
#pragma once

#include <cstdint>
#include <string>

namespace bench {
// Parses `bytes` and reads every element; returns how many it read and sets
// *checksum to a sum over their values.
uint64_t kaitai_baev_walk(const std::string& bytes, double* checksum);
}  // namespace bench
