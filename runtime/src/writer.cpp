#include "binschema/writer.h"

#include <string>

// Most of the writer is inline in writer.h; what is here is cold.

namespace binschema {

void WriterBase::too_wide(const char* what, uint64_t v, unsigned width) {
  throw EncodeError(std::string(what) + ": value " + hex(v) + " does not fit in " + std::to_string(width) +
                    " bytes");
}

}  // namespace binschema
