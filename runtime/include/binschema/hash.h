// Name hashes used by the formats.
#pragma once

#include <cstdint>
#include <string_view>

namespace binschema {

// FNV-1a, 32-bit (offset basis 0x811c9dc5, prime 0x01000193).
constexpr uint32_t fnv1a32(std::string_view s) {
  uint32_t h = 0x811c9dc5u;
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x01000193u;
  }
  return h;
}

// A multiplicative hash with a parameter: h = h * multiplier + c over the
// bytes as signed chars, from 0, modulo 2^32 (SARC's name hash, whose
// multiplier, 0x65, is in the archive's header).
constexpr uint32_t mulhash32(std::string_view s, uint32_t multiplier) {
  uint32_t h = 0;
  for (char c : s) h = h * multiplier + static_cast<uint32_t>(static_cast<int32_t>(static_cast<signed char>(c)));
  return h;
}

// CRC-32 as zlib computes it (reflected polynomial 0xEDB88320, initial and
// final value 0xFFFFFFFF): AAMP's names.
uint32_t crc32(std::string_view s);

// MurmurHash3, x86 32-bit variant.
uint32_t murmur3_x86_32(std::string_view s, uint32_t seed = 0);

// Parts of a path that formats hash on their own (ASB's file references):
// the file name after the last '/' without its last extension, and that
// extension without the dot ("" when the name has no dot, or only leading
// dots: ".hidden" has none), as Python's os.path.splitext splits them.
std::string_view path_stem(std::string_view path);
std::string_view path_extension(std::string_view path);

}  // namespace binschema
