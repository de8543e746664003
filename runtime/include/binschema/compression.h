// Compression layers under the formats: Yaz0 (Nintendo's LZ, Wii U and
// Switch titles) and zstd (Tears of the Kingdom and later), with the zstd
// dictionaries TotK picks by a file name's suffix.
//
// A layer is recognised by its magic first and by the file name second, and
// removing it also renames the file (`x.baev.zs` -> `x.baev`, `x.sbfres` ->
// `x.bfres`, `x.szs` -> `x.sarc`) so that formats are then detected by the
// inner name's extension as usual.
//
// Decompressors treat their input as hostile: a size in a header is a claim,
// checked against a cap and against what the input could possibly hold before
// anything is allocated; every error is a DecodeError with the input offset.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "binschema/error.h"

namespace binschema {

enum class Compression : uint8_t { none, yaz0, zstd };

// "none", "yaz0", "zstd".
const char* compression_name(Compression c);

// Decompressed output larger than this is refused unless the caller passes a
// larger cap (1 GiB: more than any file of the games concerned).
inline constexpr size_t kMaxDecompressedSize = size_t{1} << 30;

struct LayerGuess {
  Compression layer = Compression::none;
  // The layer was recognised by its magic (false: by the name alone, and the
  // bytes do not start with the layer's magic).
  bool by_magic = false;
  // The name with the layer's suffix removed (the name itself when none).
  std::string inner_name;
};

// Which layer `bytes` (named `name`, may be "") are in: the Yaz0 magic
// `Yaz0`, the zstd magic 28 B5 2F FD, else the suffixes `.zs` (zstd), `.szs`
// and `.s<ext>` (Yaz0; e.g. `.sbeventpack`, `.sbyml`; not `.sarc`, `.stera`,
// `.stats`, which name uncompressed files).
LayerGuess detect_compression(std::span<const uint8_t> bytes, std::string_view name);

// The layer a file of this name is written in (for output files): as above,
// by suffix only.
LayerGuess compression_for_name(std::string_view name);

// ---- Yaz0 -------------------------------------------------------------------

namespace yaz0 {

inline constexpr size_t kHeaderSize = 16;

struct Header {
  uint32_t decompressed_size = 0;
  uint32_t alignment = 0;  // data alignment hint for the reader (0 in older files)
};

// The 16-byte header: `Yaz0`, u32 BE size, u32 BE alignment, u32 reserved.
// Throws DecodeError when it is missing or the magic is wrong.
Header read_header(std::span<const uint8_t> in);

// Decompresses a Yaz0 stream. Refuses (DecodeError, with the input offset)
// a claimed size above `max_size` or above what the input could encode, a
// back-reference before the start of the output or past its declared end, and
// a stream that ends before the declared size is produced. Bytes after the
// end of the stream (padding) are ignored.
std::vector<uint8_t> decompress(std::span<const uint8_t> in, size_t max_size = kMaxDecompressedSize);

// Compresses with a hash-chain LZ search (greedy with one step of lazy
// matching). `alignment` is stored in the header as is. Throws EncodeError
// for input of 4 GiB or more (the header's size is 32 bits).
std::vector<uint8_t> compress(std::span<const uint8_t> in, uint32_t alignment = 0);

}  // namespace yaz0

// ---- zstd dictionaries --------------------------------------------------------

// Named raw zstd dictionaries (`zs.zsdic`, `pack.zsdic`, `bcett.byml.zsdic`
// in TotK), looked up by name and by the dictionary ID zstd records in them
// and in the frames compressed with them.
class DictionarySet {
 public:
  struct Entry {
    std::string name;
    std::vector<uint8_t> bytes;
    uint32_t id = 0;  // 0 for raw-content dictionaries, which carry no ID
  };

  // Adds or replaces the dictionary `name` (a file name such as
  // "zs.zsdic"; only the part after the last '/' counts).
  void add(std::string name, std::vector<uint8_t> bytes);

  // The members (name, bytes) of a SARC archive. The runtime has no SARC
  // reader of its own: the generated one (schemas/sarc.yaml, binschema::sarc)
  // is a format above it; cli/archive.cpp's sarc_members() is one.
  using ArchiveReader = std::function<std::vector<std::pair<std::string, std::vector<uint8_t>>>(std::span<const uint8_t>)>;

  // Reads a single `.zsdic` file, or a `ZsDic.pack.zs` (a file starting
  // with the zstd magic: see add_pack). Throws std::runtime_error starting
  // with the path when it cannot be read or used.
  void add_file(const std::string& path, const ArchiveReader& archive = {});

  // The game's `Pack/ZsDic.pack.zs`: a zstd frame (no dictionary) holding a
  // SARC; every member whose name ends in `.zsdic` is added under its name
  // (zs.zsdic, pack.zsdic, bcett.byml.zsdic). Without `archive` this throws
  // std::runtime_error saying that SARC reading is needed; so does a pack
  // that is no SARC or holds no `.zsdic`.
  void add_pack(std::span<const uint8_t> zsdic_pack_zs, const ArchiveReader& archive = {});

  const Entry* find(std::string_view name) const;
  const Entry* find_id(uint32_t id) const;
  bool empty() const { return entries_.empty(); }
  const std::vector<Entry>& entries() const { return entries_; }

  // The dictionary TotK uses for a file of this name: `*.bcett.byml.zs` ->
  // "bcett.byml.zsdic", `*.pack.zs` -> "pack.zsdic" (but `ZsDic.pack.zs`,
  // the dictionaries' own pack, has none: ""), any other `*.zs` ->
  // "zs.zsdic"; "" for names that do not end in `.zs`.
  static std::string_view name_for(std::string_view file_name);

 private:
  std::vector<Entry> entries_;
};

// ---- zstd -------------------------------------------------------------------

namespace zstd {

inline constexpr uint8_t kMagic[4] = {0x28, 0xB5, 0x2F, 0xFD};

// A frame needs a dictionary that is not loaded: what() says which (by the
// name TotK gives it, when the file name tells, and by ID).
class MissingDictionary : public DecodeError {
 public:
  MissingDictionary(std::string name, uint32_t id, std::string message);
  // "pack.zsdic" etc.; "" when the file name does not say.
  const std::string& dictionary() const { return name_; }
  uint32_t id() const { return id_; }

 private:
  std::string name_;
  uint32_t id_;
};

// The dictionary ID a frame header names (0: none, or not recorded).
uint32_t frame_dictionary_id(std::span<const uint8_t> in);
// The ID stored in a dictionary (0 for raw-content dictionaries).
uint32_t dictionary_id(std::span<const uint8_t> dict);

// Decompresses one or more frames, streaming (frames that do not record
// their content size are fine), refusing output above `max_size`.
// `dict` empty: no dictionary. Throws DecodeError with the input offset.
std::vector<uint8_t> decompress(std::span<const uint8_t> in, std::span<const uint8_t> dict = {},
                                size_t max_size = kMaxDecompressedSize);

// As above, with the dictionary the frame asks for taken from `dicts`: by the
// frame's dictionary ID, else (frames that record no ID) the one
// DictionarySet::name_for(file_name) names. A frame that needs a dictionary
// the set lacks is refused with a message naming it (by file name suffix and
// ID).
std::vector<uint8_t> decompress(std::span<const uint8_t> in, const DictionarySet& dicts,
                                std::string_view file_name, size_t max_size = kMaxDecompressedSize);

// One frame, with its content size and a checksum; `level` as zstd's
// (1..ZSTD_maxCLevel(), 0 for zstd's default, negative for the fast levels). Throws EncodeError on a
// bad level.
std::vector<uint8_t> compress(std::span<const uint8_t> in, int level = 3, std::span<const uint8_t> dict = {});

// Compresses with the dictionary DictionarySet::name_for(file_name) names.
// Throws EncodeError when that dictionary is not in `dicts` (a file the game
// reads with a dictionary must not silently be written without one).
std::vector<uint8_t> compress(std::span<const uint8_t> in, const DictionarySet& dicts,
                              std::string_view file_name, int level = 3);

}  // namespace zstd

// ---- Layers -----------------------------------------------------------------

// Removes the layer `layer` (none: a copy of the input).
std::vector<uint8_t> decompress(Compression layer, std::span<const uint8_t> in, const DictionarySet& dicts,
                                std::string_view file_name, size_t max_size = kMaxDecompressedSize);

// Adds the layer `layer` (none: a copy). zstd uses `dicts` as
// zstd::compress(in, dicts, file_name) when the name asks for a dictionary
// and `dicts` is not empty, and no dictionary otherwise.
std::vector<uint8_t> compress(Compression layer, std::span<const uint8_t> in, const DictionarySet& dicts,
                              std::string_view file_name, int zstd_level = 3);

}  // namespace binschema
