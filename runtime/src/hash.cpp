#include "binschema/hash.h"

#include <cstring>

namespace binschema {

namespace {
constexpr uint32_t rotl(uint32_t x, int r) { return (x << r) | (x >> (32 - r)); }
}  // namespace

namespace {
struct Crc32Table {
  uint32_t t[256];
  constexpr Crc32Table() : t{} {
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[i] = c;
    }
  }
};
constexpr Crc32Table kCrc32;
}  // namespace

uint32_t crc32(std::string_view s) {
  uint32_t c = 0xFFFFFFFFu;
  for (unsigned char b : s) c = kCrc32.t[(c ^ b) & 0xFF] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

uint32_t murmur3_x86_32(std::string_view s, uint32_t seed) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const size_t n = s.size();
  const uint32_t c1 = 0xcc9e2d51u, c2 = 0x1b873593u;
  uint32_t h = seed;
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    // Blocks are read little-endian whatever the host, as the reference does on x86.
    uint32_t k = uint32_t(p[i]) | uint32_t(p[i + 1]) << 8 | uint32_t(p[i + 2]) << 16 |
                 uint32_t(p[i + 3]) << 24;
    k *= c1;
    k = rotl(k, 15);
    k *= c2;
    h ^= k;
    h = rotl(h, 13);
    h = h * 5 + 0xe6546b64u;
  }
  uint32_t k = 0;
  switch (n & 3) {
    case 3: k ^= uint32_t(p[i + 2]) << 16; [[fallthrough]];
    case 2: k ^= uint32_t(p[i + 1]) << 8; [[fallthrough]];
    case 1:
      k ^= p[i];
      k *= c1;
      k = rotl(k, 15);
      k *= c2;
      h ^= k;
  }
  h ^= static_cast<uint32_t>(n);
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  h ^= h >> 16;
  return h;
}

namespace {
// Where a file name's extension dot is, or npos. Dots that only lead the name
// (".hidden") start no extension, as in Python's os.path.splitext, which the
// public ASB writer hashes with.
size_t extension_dot(std::string_view name) {
  size_t dot = name.rfind('.');
  if (dot == std::string_view::npos || name.find_first_not_of('.') >= dot) return std::string_view::npos;
  return dot;
}

std::string_view file_name(std::string_view path) {
  size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}
}  // namespace

std::string_view path_stem(std::string_view path) {
  std::string_view name = file_name(path);
  size_t dot = extension_dot(name);
  return dot == std::string_view::npos ? name : name.substr(0, dot);
}

std::string_view path_extension(std::string_view path) {
  std::string_view name = file_name(path);
  size_t dot = extension_dot(name);
  return dot == std::string_view::npos ? std::string_view() : name.substr(dot + 1);
}

}  // namespace binschema
