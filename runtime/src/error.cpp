#include "binschema/error.h"

#include <cstdio>

namespace binschema {

std::string hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

void DecodeError::push_field(const char* name) {
  if (path_.empty() || path_[0] == '[')
    path_ = std::string(name) + path_;
  else
    path_ = std::string(name) + "." + path_;
}

void DecodeError::push_index(size_t index) {
  path_ = "[" + std::to_string(index) + "]" + path_;
}

const char* DecodeError::what() const noexcept {
  what_ = path_.empty() ? message_ : path_ + ": " + message_;
  return what_.c_str();
}

}  // namespace binschema
