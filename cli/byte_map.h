// The byte map: every byte of a file with the field it belongs to, from the
// field trace of a decode (binschema/trace.h), for `binschema explain`,
// `coverage` and `view`. No per-format code: every format's generated
// reader reports its own fields.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "binschema/format.h"
#include "binschema/trace.h"

namespace binschema::cli {

// What a byte is, by the deepest field over it (or none).
enum class ByteClass : uint8_t {
  Explained = 1,    // a field explains it
  Reserved = 2,     // a reserved field (reserved: true, const 0): padding
  ZeroGap = 3,      // no field: a zero byte (alignment, end padding): padding
  Unexplained = 4,  // no field: a non-zero byte
};
const char* byte_class_name(ByteClass c);

struct ByteRange {
  uint64_t start, end;
  ByteClass cls;
};

struct ByteMap {
  const Format* format = nullptr;
  std::span<const uint8_t> bytes;
  Trace trace;
  std::string error;  // the decode's error ("" when it decoded): the map is what was read before it
  std::vector<ByteRange> ranges;  // the whole file in runs of one class
  uint64_t explained = 0, padding = 0, unexplained = 0;
};

// Decodes with a trace (a DecodeError is kept in `error`) and classifies every byte.
ByteMap build_byte_map(const Format& f, std::span<const uint8_t> bytes);

// A node's value for people: a number (with hex), text, a pointer's target, a size.
std::string node_value(const ByteMap& m, uint32_t node, uint64_t at);

// The path of the innermost field over OFFSET ("(root)" for the root
// struct's own bytes), or what the byte is when no field covers it
// ("no field: padding", "no field: unexplained"). For `binschema verify`.
std::string field_path_at(const ByteMap& m, uint64_t offset);

// `binschema explain`: the fields over OFFSET, innermost first, with path, value and struct.
std::string explain_text(const ByteMap& m, uint64_t offset);
std::string explain_json(const ByteMap& m, uint64_t offset);
// `binschema coverage`: totals and ranges; JSON adds every field (the byte map).
std::string coverage_text(const ByteMap& m, const std::string& name);
std::string coverage_json(const ByteMap& m, const std::string& name);
// `binschema view`: one self-contained HTML page.
std::string view_html(const ByteMap& m, const std::string& name);

}  // namespace binschema::cli
