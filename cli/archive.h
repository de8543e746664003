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

// An archive taken apart into its members and a skeleton, for unpack, pack,
// diff, merge and verify (cli/mods.cpp). The skeleton is the archive's own
// text document (`format: sarc`) with every member's contents left empty:
// it keeps what the members' names and bytes do not say (their order and
// alignment, the byte order, the hash multiplier, the layout).
struct ArchiveMember {
  std::string name;
  std::vector<uint8_t> bytes;
  uint32_t alignment = 0;  // 0: the skeleton's for that name, else the schema's default
};
struct Archive {
  std::vector<ArchiveMember> members;  // in the archive's order
  std::string skeleton;                // YAML
};

// Whether the bytes start like an archive (the SARC magic).
bool is_archive(std::span<const uint8_t> bytes);
// Throws DecodeError on a damaged archive, Failure for a member without a name.
Archive read_archive(std::span<const uint8_t> bytes);
// The members a skeleton lists (names and alignments; no bytes). Throws
// TextError / std::exception on a damaged skeleton.
std::vector<ArchiveMember> skeleton_members(std::string_view skeleton);
// The archive: the skeleton's members that `members` still has, in the
// skeleton's order, then the others in their order; each with the bytes given
// and its alignment (the member's, else the skeleton's, else the default).
// Laid out by the skeleton's layout where it still fits. Throws EncodeError.
std::vector<uint8_t> write_archive(std::string_view skeleton, const std::vector<ArchiveMember>& members);

}  // namespace binschema::cli
