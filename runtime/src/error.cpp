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

void fail(uint64_t at, const char* field, const std::string& message) {
  DecodeError e(at, message + " (at " + hex(at) + ")");
  e.push_field(field);
  throw e;
}

uint64_t until_(uint64_t at, uint64_t target) {
  if (target < at) throw DecodeError(at, "block at " + hex(at) + " would end at " + hex(target) + ", before it starts");
  return target - at;
}

void fail_need(uint64_t off, uint64_t n, uint64_t size) {
  throw DecodeError(off, "needs " + hex(n) + " bytes at " + hex(off) + " but the file ends at " + hex(size));
}

void fail_target(uint64_t target, uint64_t size) {
  throw DecodeError(target, "pointer " + hex(target) + " past end of file (" + hex(size) + ")");
}

void fail_array(uint64_t off, uint64_t count, uint64_t min_size, uint64_t size) {
  throw DecodeError(off, "count " + std::to_string(count) + " of " + hex(min_size) + "-byte elements at " + hex(off) +
                             " runs past end of file (" + hex(size) + ")");
}

const char* DecodeError::what() const noexcept {
  what_ = path_.empty() ? message_ : path_ + ": " + message_;
  return what_.c_str();
}

}  // namespace binschema
