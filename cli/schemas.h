// `--schema FILE` (repeatable; a folder of schemas; or BINSCHEMA_SCHEMA_PATH):
// formats loaded from their schemas while the program runs, no build step
// (the run-time engine, binschema/dynamic.h). Each becomes a Format that
// find_format() and detect_format() see before the built-in ones.
#pragma once

#include <string>
#include <vector>

namespace binschema::cli {

// The --schema arguments of a command line, taken out before it is parsed
// (so that --as can name a loaded format).
std::vector<std::string> schema_arguments(int argc, char** argv);
// Loads the schemas of `paths` (files, or folders of *.yaml / *.yml) and of
// BINSCHEMA_SCHEMA_PATH (paths separated by ':'). Throws Failure (kUsage)
// with the schema's file:line:col on a schema that does not load.
void load_schemas(const std::vector<std::string>& paths);

}  // namespace binschema::cli
