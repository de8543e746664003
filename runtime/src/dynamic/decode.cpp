// binschema/dynamic.h: bytes -> Value, the walk of gen_cpp_read.cpp's
// generated readers over the schema model.
#include "plan.h"

namespace binschema::dynamic {

std::shared_ptr<const Schema::Plan> make_plan(const gen::Schema& s) {
  check_encode_support(s);
  auto p = std::make_shared<Schema::Plan>();
  p->s = &s;
  p->root = s.find(s.root);
  return p;
}

Value Schema::decode(std::span<const uint8_t>) const { throw std::logic_error("dynamic decode: not yet"); }
Value Schema::decode(std::span<const uint8_t>, Layout&) const { throw std::logic_error("dynamic decode: not yet"); }
std::vector<std::pair<std::string, std::string>> Schema::info(std::span<const uint8_t>) const {
  throw std::logic_error("dynamic info: not yet");
}

}  // namespace binschema::dynamic
