#include "binschema/error.h"

#include <cstdio>

namespace binschema {

std::string hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

// Paths are built by appending pieces to a fresh string: GCC 12 warns
// (wrongly, -Wrestrict) about `a + b + path_` forms here.
void DecodeError::push_field(const char* name) {
  std::string p = name;
  if (!path_.empty() && path_[0] != '[') p += '.';
  p += path_;
  path_ = std::move(p);
}

void DecodeError::push_index(size_t index) {
  std::string p = "[";
  p += std::to_string(index);
  p += ']';
  if (!path_.empty() && path_[0] != '[') p += '.';
  p += path_;
  path_ = std::move(p);
}

const char* DecodeError::what() const noexcept {
  what_ = path_.empty() ? message_ : path_ + ": " + message_;
  return what_.c_str();
}

}  // namespace binschema
