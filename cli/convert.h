// One conversion, bytes in and bytes out, shared by the single-file commands
// and the batch. Every error is a Failure whose line names the input.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "binschema/format.h"
#include "io.h"

namespace binschema::cli {

// Comma-separated names of every format compiled in.
std::string known_formats();

// The format of IN: --as when given, else by magic, then by file extension.
// Failure (kBadData, unknown_format) when nothing tells.
const Format* format_for_bytes(const std::string& as, std::span<const uint8_t> bytes, const std::string& in);

// Bytes -> YAML or JSON text.
std::string decode_to_text(const Format& f, std::span<const uint8_t> bytes, TextKind kind, const std::string& in);

// Text (its `format:` key, or --as) -> bytes of that format.
struct Encoded {
  const Format* format;
  std::vector<uint8_t> bytes;
};
Encoded encode_from_text(std::span<const uint8_t> text, const std::string& as, const std::string& in);

// Summary lines of a binary file.
std::string info_text(const Format& f, std::span<const uint8_t> bytes, const std::string& in);

// Called inside a catch block: the exception being handled as a Failure,
// its line prefixed with the input's name where it does not carry one.
Failure current_failure(const std::string& in);

}  // namespace binschema::cli
