// binschema check SCHEMA...: schemas validated as the generator validates
// them (parse.cpp, validate.cpp), with no build.
#pragma once

#include <string>
#include <vector>

namespace binschema::cli {

// Each path a schema file, or a folder whose *.yaml / *.yml files are checked
// (not its subfolders). Prints "FILE: OK (format NAME, N types)" per good
// schema on stdout and each error as "FILE:LINE:COL: message" on stderr.
// Returns 0 when every schema is valid, 1 when any is not, 2 when a path
// cannot be read (or a folder holds no schema).
int cmd_check(const std::vector<std::string>& paths);

}  // namespace binschema::cli
