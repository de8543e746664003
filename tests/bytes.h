// Builds a file byte by byte, as the tests write fixtures out by hand from a
// format's documentation.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "binschema/error.h"

template <std::endian E>
struct ByteBuilder {
  std::vector<uint8_t> b;

  ByteBuilder& u8(uint8_t v) {
    b.push_back(v);
    return *this;
  }
  ByteBuilder& u16(uint16_t v) { return E == std::endian::little ? u8(v & 0xff).u8(v >> 8) : u8(v >> 8).u8(v & 0xff); }
  ByteBuilder& u32(uint32_t v) {
    return E == std::endian::little ? u16(v & 0xffff).u16(v >> 16) : u16(v >> 16).u16(v & 0xffff);
  }
  ByteBuilder& u64(uint64_t v) {
    const auto lo = static_cast<uint32_t>(v), hi = static_cast<uint32_t>(v >> 32);
    return E == std::endian::little ? u32(lo).u32(hi) : u32(hi).u32(lo);
  }
  ByteBuilder& s32(int32_t v) { return u32(static_cast<uint32_t>(v)); }
  ByteBuilder& f32(float f) {
    uint32_t v;
    std::memcpy(&v, &f, 4);
    return u32(v);
  }
  // n bytes: the text, then NULs.
  ByteBuilder& text(const std::string& s, size_t n) {
    for (size_t i = 0; i < n; ++i) u8(i < s.size() ? static_cast<uint8_t>(s[i]) : 0);
    return *this;
  }
  ByteBuilder& cstr(const std::string& s) { return text(s, s.size() + 1); }
  // Overwrites a u32 written earlier (an offset known only later).
  void put32(size_t at, uint32_t v) {
    ByteBuilder tmp;
    tmp.u32(v);
    std::memcpy(b.data() + at, tmp.b.data(), 4);
  }
  size_t pos() const { return b.size(); }
};

using LittleBytes = ByteBuilder<std::endian::little>;
using BigBytes = ByteBuilder<std::endian::big>;

// The message of the DecodeError a decode function throws on `bytes`, or ""
// when it decodes.
template <class Decode>
std::string decode_error_of(Decode decode, const std::vector<uint8_t>& bytes) {
  try {
    decode(bytes);
  } catch (const binschema::DecodeError& e) {
    return e.what();
  }
  return "";
}
