// Errors raised while decoding bytes or text into a model.
//
// A decode error carries the file offset where it happened and the field path
// that led there. The path is assembled on the way out: the innermost reader
// throws with the bare message, and every enclosing struct or array prepends
// its own step. That costs nothing while decoding succeeds (no path string is
// built on the happy path), which matters for the 600 MB/s target.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace binschema {

std::string hex(uint64_t v);

// A field's value is wrong: "field: message (at 0x..)", the rest of the path
// added on the way out.
[[noreturn]] void fail(uint64_t at, const char* field, const std::string& message);

// The size of a block that runs from `at` up to `target` (refused when the
// target lies before it).
uint64_t until_(uint64_t at, uint64_t target);

// Out-of-line throws of the reader's bounds checks (reader.h).
[[noreturn, gnu::cold, gnu::noinline]] void fail_need(uint64_t off, uint64_t n, uint64_t size);
[[noreturn, gnu::cold, gnu::noinline]] void fail_target(uint64_t target, uint64_t size);
[[noreturn, gnu::cold, gnu::noinline]] void fail_array(uint64_t off, uint64_t count, uint64_t min_size, uint64_t size);

class DecodeError : public std::exception {
 public:
  DecodeError(uint64_t offset, std::string message)
      : offset_(offset), message_(std::move(message)) {}

  // Prepend ".name" (or "name" at the front).
  void push_field(const char* name);
  // Prepend "[index]".
  void push_index(size_t index);

  uint64_t offset() const { return offset_; }
  const std::string& path() const { return path_; }
  const std::string& message() const { return message_; }
  // "path: message" (message alone when the error is at the root).
  const char* what() const noexcept override;

 private:
  uint64_t offset_;
  std::string message_;
  std::string path_;
  mutable std::string what_;
};

// An error in a text document (YAML or JSON) being turned into a model.
// `where` is "line:col" of the offending node, `path` the model path.
class TextError : public std::runtime_error {
 public:
  TextError(const std::string& where, const std::string& path, const std::string& message)
      : std::runtime_error(where + ": " + (path.empty() ? "" : path + ": ") + message) {}
};

// decode(bytes, layout) refuses a file that the model and its layout would not
// give back byte for byte (docs/schema-language.md §11): offset() is the first
// byte that would differ, path() its field. `binschema verify` reports such a
// file as not given back rather than as not decoding.
class LayoutNotKept : public DecodeError {
 public:
  using DecodeError::DecodeError;
};

// A model that cannot be written (for example a string longer than its fixed
// field, or a union holding a case the format cannot store).
class EncodeError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// a - b in an expression the reader evaluates (a count, a size, an offset):
// refused when b > a, so that no wrapped-around number is used or shown.
// `expr` is the expression as the schema spells it; `at`, the struct's start.
inline uint64_t minus_(uint64_t a, uint64_t b, const char* expr, uint64_t at) {
  if (b > a) [[unlikely]]
    throw DecodeError(at, std::string(expr) + " is " + std::to_string(a) + " - " + std::to_string(b) + ", below zero (struct at " + hex(at) + ")");
  return a - b;
}

}  // namespace binschema
