// What a generated format header (NAME.h) needs: the types its models and
// its binary API name, and no more (the text binding, NAME_text.h, brings in
// binschema/text.h; a caller passing a Layout includes binschema/layout.h).
#pragma once

#include <cstdint>
#include <vector>

#include "binschema/box.h"    // Box<T>: a struct not complete yet, in a recursive model
#include "binschema/error.h"  // DecodeError and EncodeError, what decode() and encode() throw

namespace binschema {

// Opaque bytes (data nobody has decoded yet); text form is a hex string.
struct Bytes {
  std::vector<uint8_t> data;
  bool operator==(const Bytes&) const = default;
};

namespace text {
// How a case of a `bare: true` union is spelt in text (generated as the
// union's case_text): a plain kind, the case a value of that kind picks
// when it has no tag, or Tagged: the value carries the case's YAML tag.
enum class Plain : uint8_t { Tagged, Int, Float, String, Bool, Null, List, Map };
struct CaseText {
  Plain plain;
  const char* tag;  // Tagged: the tag as the schema spells it ("!u", "!!binary"); else nullptr
  bool unwrap;      // the payload is a struct of one model field, shown as that field's value
};
}  // namespace text

struct Layout;  // binschema/layout.h
struct Format;  // binschema/format.h

}  // namespace binschema
