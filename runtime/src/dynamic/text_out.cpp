// binschema/dynamic.h: Value -> YAML / JSON, the generated to_text's text.
#include "plan.h"

namespace binschema::dynamic {

std::string Schema::to_text(const Value&, TextKind, const Layout*) const { throw std::logic_error("dynamic to_text: not yet"); }

}  // namespace binschema::dynamic
