// binschema/dynamic.h: Value -> bytes (h6).
#include "plan.h"

namespace binschema::dynamic {

std::vector<uint8_t> encode_laid(const Schema&, const Value&, const Layout*, LayoutTrace*) {
  throw std::logic_error("dynamic encode: not yet");
}

std::vector<uint8_t> Schema::encode(const Value&) const { throw std::logic_error("dynamic encode: not yet"); }
std::vector<uint8_t> Schema::encode(const Value&, const Layout&) const { throw std::logic_error("dynamic encode: not yet"); }

}  // namespace binschema::dynamic
