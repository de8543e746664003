// Formats added while the program runs (schemas loaded with `--schema`,
// binschema/dynamic.h): find_format() and detect_format() (binschema/format.h)
// look at these before the formats compiled in. Add them before any thread
// reads the lists; a Format must outlive its use.
#pragma once

#include <vector>

#include "binschema/format.h"

namespace binschema {

void add_format(const Format* f);
const std::vector<const Format*>& added_formats();

}  // namespace binschema
