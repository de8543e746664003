// Compression layers under the formats, for the CLI: a binary input is
// decompressed when its magic (or, lacking one, its name) says it is Yaz0 or
// zstd, and a binary output is compressed when its name asks for it
// (`-o x.baev.zs`, `-o x.sbaev`, `-o x.szs`). See docs/compression.md.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "binschema/compression.h"

namespace binschema::cli {

// Where zstd dictionaries come from: `--zsdic FILE` (repeatable), `--romfs
// DIR` (its Pack/ZsDic.pack.zs) and the environment variable
// BINSCHEMA_ZSDIC (files separated by ':'). They are read once, when a zstd
// frame first needs a dictionary (safe from several batch workers at once);
// a file that cannot be read is a usage error (exit 2) naming it.
struct DictionarySources {
  std::vector<std::string> zsdic;
  std::string romfs;
};
void set_dictionary_sources(DictionarySources sources);

// A binary input with its compression layer removed.
struct BinaryInput {
  std::vector<uint8_t> bytes;
  Compression layer = Compression::none;
  size_t stored_size = 0;  // the file's size as read (compressed)
};

// read_input(in), then decompressed by magic; a file named as compressed but
// without the layer's magic is read as is when a format knows its magic, and
// is otherwise refused as of no known format. Errors are Failures naming IN.
BinaryInput read_binary_input(const std::string& in);

// The name formats are detected by: IN without its compression suffix
// (`x.baev.zs` -> `x.baev`, `x.sbaev` -> `x.baev`); "" for stdin.
std::string detection_name(const std::string& in);

// `bytes` compressed as the name OUT asks for, or unchanged. zstd uses the
// dictionary the name's suffix asks for when dictionaries are given (and
// refuses when that one is not among them), none when none are given.
std::vector<uint8_t> compress_for_output(std::vector<uint8_t> bytes, const std::string& out, const std::string& in);

// A compression layer as a file has it, with what it takes to write it again
// (unpack's manifest): Yaz0's alignment hint, zstd's level and dictionary.
struct LayerParams {
  Compression layer = Compression::none;
  uint32_t yaz0_alignment = 0;
  int zstd_level = 3;
  std::string zstd_dictionary;  // the dictionary's name ("" none)
};
// The layer the bytes start with (by magic only), and its parameters as far
// as the bytes tell (not zstd's level).
LayerParams layer_of(std::span<const uint8_t> stored);
// The bytes with the layer taken off; a Failure naming `where` on error.
std::vector<uint8_t> remove_layer(std::span<const uint8_t> stored, const LayerParams& p, const std::string& where);
// The bytes with the layer put on (zstd with the dictionary by name from
// the loaded ones); a Failure naming `where` on error.
std::vector<uint8_t> add_layer(std::span<const uint8_t> plain, const LayerParams& p, const std::string& where);

// The name of the dictionary a zstd frame was made with ("" for none).
std::string zstd_dictionary_of(std::span<const uint8_t> stored);

// "compression: yaz0 (N bytes stored)\n" for `info`; "" when none.
std::string layer_info(const BinaryInput& input);

}  // namespace binschema::cli
