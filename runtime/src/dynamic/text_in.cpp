// binschema/dynamic.h: YAML / JSON -> Value (h6).
#include "plan.h"

namespace binschema::dynamic {

Value Schema::from_text(std::string_view) const { throw std::logic_error("dynamic from_text: not yet"); }
Value Schema::from_text(std::string_view, Layout&) const { throw std::logic_error("dynamic from_text: not yet"); }
Value Schema::from_text(const text::Doc&) const { throw std::logic_error("dynamic from_text: not yet"); }
Value Schema::from_text(const text::Doc&, Layout&) const { throw std::logic_error("dynamic from_text: not yet"); }

}  // namespace binschema::dynamic
