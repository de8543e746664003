// What a generated format header (NAME.h) needs: the types its models and
// its binary API name, and no more (the text binding, NAME_text.h, brings in
// binschema/text.h; a caller passing a Layout includes binschema/layout.h).
#pragma once

#include <cstdint>
#include <vector>

#include "binschema/error.h"  // DecodeError and EncodeError, what decode() and encode() throw

namespace binschema {

// Opaque bytes (data nobody has decoded yet); text form is a hex string.
struct Bytes {
  std::vector<uint8_t> data;
  bool operator==(const Bytes&) const = default;
};

struct Layout;  // binschema/layout.h
struct Format;  // binschema/format.h

}  // namespace binschema
