// Files inside archives, for the CLI: `PACK:path/in/archive` names one member
// of a SARC archive under any compression layer (Yaz0, zstd), as in
// `binschema decode Demo344_1.sbeventpack:EventFlow/Demo344_1.bfevfl`.
// Reading takes the layer off, reads the SARC with the generated reader
// (schemas/sarc.yaml) and hands out the member's bytes; writing replaces that
// one member's bytes, keeps every other byte of the archive, and puts the
// layer back on (see docs/compression.md, "Files inside archives").
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace binschema::cli {

struct MemberPath {
  std::string pack;    // the archive file
  std::string member;  // its member's name
};

// IN split at a ':' when IN itself is no file but the part before the ':'
// is one; nullopt otherwise (plain files, stdin).
std::optional<MemberPath> split_member_path(const std::string& in);

// The member's bytes. Failures name PACK:member (no such member: the
// archive's members are listed when they are few).
std::vector<uint8_t> read_member(const MemberPath& p);

// Replaces the member's bytes and writes the archive back (compressed as its
// name asks). Files after it keep their alignment (see the docs).
void write_member(const MemberPath& p, std::span<const uint8_t> bytes, const std::string& in);

// "name  size\n" per member, in the archive's order, for `binschema list`.
std::string list_members(const std::string& pack);

// Every member (name, bytes) of SARC bytes, in the archive's order; a
// DictionarySet::ArchiveReader (ZsDic.pack.zs). Throws DecodeError or
// std::runtime_error on a damaged archive.
std::vector<std::pair<std::string, std::vector<uint8_t>>> sarc_members(std::span<const uint8_t> sarc_bytes);

// `info` lines for an archive ("members: N"), "" when IN is not a SARC.
std::string archive_info(std::span<const uint8_t> bytes);

}  // namespace binschema::cli
