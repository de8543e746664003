#include "binschema/writer.h"

#include <string>

// Most of the writer is inline in writer.h; what is here is cold.

namespace binschema {

void WriterBase::too_wide(const char* what, uint64_t v, unsigned width) {
  throw EncodeError(std::string(what) + ": value " + hex(v) + " does not fit in " + std::to_string(width) +
                    " bytes");
}

void WriterBase::not_scaled(const char* what, uint64_t distance, uint64_t scale) {
  throw EncodeError(std::string(what) + ": offset " + hex(distance) + " is not a multiple of its scale " + std::to_string(scale) +
                    " (or points backwards)");
}

void count_mismatch(const char* what, uint64_t have, uint64_t want, const char* count) {
  const auto signed_want = static_cast<int64_t>(want);
  throw EncodeError(std::string(what) + ": " + std::to_string(have) + " elements, but its count " + count + " is " +
                    (signed_want < 0 ? "negative (" + std::to_string(signed_want) + ")" : std::to_string(want)));
}

}  // namespace binschema
