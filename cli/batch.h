// Many inputs at once: `decode`/`encode` given several files or directories.
#pragma once

#include <string>
#include <vector>

#include "binschema/text.h"

namespace binschema::cli {

struct BatchOptions {
  bool encode = false;              // text -> binary; else binary -> text
  std::vector<std::string> inputs;  // files and directories (walked recursively)
  std::string out_dir;              // empty: each output beside its input
  TextKind kind = TextKind::Yaml;   // decode's text kind
  std::string as;                   // --as: the format of every input
  bool no_clobber = false;          // leave existing outputs alone
  unsigned jobs = 1;                // worker threads
};

// Converts every input with `jobs` threads, going on past bad files; prints
// a progress line on stderr when it is a terminal and a summary at the end
// (each failure with its one-line reason). Returns the exit status: 0, 1
// when any file failed, 2 when the command line itself is wrong (an input
// that does not exist, "-" among the inputs); nothing is written then.
int run_batch(const BatchOptions& options);

}  // namespace binschema::cli
