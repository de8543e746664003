// Byte order chosen at run time by a byte order mark (`endian: bom`, see
// docs/schema-language.md): the generated reader and writer exist once per
// byte order, and these pick one.
//
// The model holds the mark as its two bytes read first byte high: 0xFEFF for
// a big-endian file (bytes FE FF), 0xFFFE for a little-endian one (FF FE).
#pragma once

#include <cstdint>
#include <algorithm>
#include <initializer_list>
#include <span>
#include <string_view>
#include <string>

#include "binschema/error.h"

namespace binschema {

// True when the two bytes at `off` are FE FF, false for FF FE; any other
// value (or a file too short to hold them) is a DecodeError naming `field`
// and the offset.
inline bool bom_is_big(std::span<const uint8_t> bytes, uint64_t off, const char* field) {
  if (off > bytes.size() || bytes.size() - off < 2)
    fail(off, field, "the file (" + hex(bytes.size()) + " bytes) ends before the byte order mark");
  const unsigned v = unsigned(bytes[off]) << 8 | bytes[off + 1];
  if (v != 0xFEFF && v != 0xFFFE)
    fail(off, field, "byte order mark " + hex(v) + " is neither 0xFEFF (big-endian) nor 0xFFFE (little-endian)");
  return v == 0xFEFF;
}

// The same for a model's mark; anything else is an EncodeError naming `field`.
inline bool bom_is_big(uint16_t mark, const char* field) {
  if (mark != 0xFEFF && mark != 0xFFFE)
    throw EncodeError(std::string(field) + ": byte order mark " + hex(mark) +
                      " is neither 0xFEFF (big-endian) nor 0xFFFE (little-endian)");
  return mark == 0xFEFF;
}

}  // namespace binschema

namespace binschema {

// `bom: {MARK: order}`: a char[N] magic whose text picks the byte order.
// True when the N bytes at `off` are a big-endian mark; a file whose bytes
// there are no mark (or too short to hold one) is a DecodeError naming `field`.
struct OrderMark {
  std::string_view text;
  bool big;
};
inline bool mark_is_big(std::span<const uint8_t> bytes, uint64_t off, const char* field, std::initializer_list<OrderMark> marks) {
  std::string known;
  for (const auto& m : marks) {
    if (off <= bytes.size() && bytes.size() - off >= m.text.size() &&
        std::equal(m.text.begin(), m.text.end(), bytes.begin() + static_cast<std::ptrdiff_t>(off),
                   [](char a, uint8_t b) { return static_cast<uint8_t>(a) == b; }))
      return m.big;
    known += std::string(known.empty() ? "" : ", ") + "'" + std::string(m.text) + "' " + (m.big ? "big" : "little");
  }
  std::string found;
  for (uint64_t i = off; i < bytes.size() && i < off + 8; ++i) found += hex(bytes[i]) + " ";
  fail(off, field, "no byte order mark (" + known + ") here: " + (found.empty() ? std::string("the file ends") : "bytes " + found.substr(0, found.size() - 1)));
}

// The same for a model's magic; anything else is an EncodeError naming `field`.
inline bool mark_is_big(std::string_view magic, const char* field, std::initializer_list<OrderMark> marks) {
  std::string known;
  for (const auto& m : marks) {
    if (m.text == magic) return m.big;
    known += std::string(known.empty() ? "" : ", ") + "'" + std::string(m.text) + "'";
  }
  throw EncodeError(std::string(field) + ": '" + std::string(magic) + "' is no byte order mark (" + known + ")");
}

}  // namespace binschema
