// The engine's prepared form of a schema (binschema/dynamic.h): what the
// decode, text, and encode walks look up once per schema rather than per
// field. Engine-internal.
#pragma once

#include <binschema/schema.h>

#include "binschema/dynamic.h"

namespace binschema::dynamic {

struct Schema::Plan {
  const gen::Schema* s = nullptr;
  const gen::Struct* root = nullptr;
};

// Builds the plan; throws gen::SchemaError (file:line:col) for what the
// engine does not support yet.
std::shared_ptr<const Schema::Plan> make_plan(const gen::Schema& s);

}  // namespace binschema::dynamic

namespace binschema::dynamic {
// encode.cpp: refuses (gen::SchemaError at file:line:col) what the writer
// does not do yet; make_plan calls it.
void check_encode_support(const gen::Schema& s);
}  // namespace binschema::dynamic
