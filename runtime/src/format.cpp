#include "binschema/format.h"
#include "binschema/added_formats.h"

#include <algorithm>
#include <cctype>

namespace binschema {

namespace {
std::vector<const Format*>& added() {
  static std::vector<const Format*> list;
  return list;
}
}  // namespace

void add_format(const Format* f) { added().push_back(f); }
const std::vector<const Format*>& added_formats() { return added(); }

const Format* find_format(std::string_view name) {
  for (const Format* f : added())
    if (name == f->name) return f;
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
  auto at = [&](const Format* f, std::string_view magic) {
    return !magic.empty() && bytes.size() >= f->magic_offset + magic.size() &&
           std::equal(magic.begin(), magic.end(), bytes.begin() + static_cast<std::ptrdiff_t>(f->magic_offset),
                      [](char a, uint8_t b) { return static_cast<uint8_t>(a) == b; });
  };
  for (const std::vector<const Format*>* list : std::initializer_list<const std::vector<const Format*>*>{&added(), &all_formats()})
    for (const Format* f : *list) {
      if (at(f, f->magic)) return f;
      for (std::string_view m : f->other_magics)
        if (at(f, m)) return f;
    }
  for (const std::vector<const Format*>* list : std::initializer_list<const std::vector<const Format*>*>{&added(), &all_formats()})
    for (const Format* f : *list)
      for (const char* ext : f->extensions)
        if (ends_with_ci(file_name, ext)) return f;
  return nullptr;
}

}  // namespace binschema
