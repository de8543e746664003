#include "binschema/format.h"

#include <algorithm>
#include <cctype>

namespace binschema {

const Format* find_format(std::string_view name) {
  for (const Format* f : all_formats())
    if (name == f->name) return f;
  return nullptr;
}

static bool ends_with_ci(std::string_view s, std::string_view suffix) {
  if (suffix.size() > s.size()) return false;
  return std::equal(suffix.begin(), suffix.end(), s.end() - suffix.size(), [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
  });
}

const Format* detect_format(std::span<const uint8_t> bytes, std::string_view file_name) {
  for (const Format* f : all_formats()) {
    if (f->magic.empty()) continue;
    if (bytes.size() >= f->magic_offset + f->magic.size() &&
        std::equal(f->magic.begin(), f->magic.end(), bytes.begin() + f->magic_offset,
                   [](char a, uint8_t b) { return static_cast<uint8_t>(a) == b; }))
      return f;
  }
  for (const Format* f : all_formats())
    for (const char* ext : f->extensions)
      if (ends_with_ci(file_name, ext)) return f;
  return nullptr;
}

}  // namespace binschema
