// Mods as folders: `binschema unpack`, `pack`, `diff`, `merge` and `verify`
// (docs/mods.md). Nothing here knows a format: members are decoded and
// encoded through the format table (binschema/format.h), archives through
// cli/archive.h, compression through cli/layers.h, documents compared and
// merged as trees (cli/doctree.h).
#pragma once

#include <string>
#include <vector>

#include "binschema/text.h"

namespace binschema::cli {

// PACK -> DIR (a new folder; an existing one only with `force`, replaced whole).
int cmd_unpack(const std::string& pack, const std::string& dir, bool force);
// DIR -> OUT (written whole or not at all).
int cmd_pack(const std::string& dir, const std::string& out);
// Exit 0 equal, 1 different, 2 trouble.
int cmd_diff(const std::string& a, const std::string& b, TextKind kind);
// Exit 0 merged, 1 conflicts (nothing written unless `force`), 2 trouble.
int cmd_merge(const std::string& base, const std::string& ours, const std::string& theirs, const std::string& out,
              bool force, TextKind kind);
// Exit 0 when every file of a known format comes back, 1 otherwise, 2 usage.
int cmd_verify(const std::vector<std::string>& paths, TextKind kind, unsigned jobs, bool all);

}  // namespace binschema::cli
