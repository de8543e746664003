// Recognising compression layers, the file names they imply, and the zstd
// dictionary set.
#include <algorithm>
#include <cctype>
#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>

#include "binschema/compression.h"

namespace binschema {

namespace {

bool iequal(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

bool ends_with_ci(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && iequal(s.substr(s.size() - suffix.size()), suffix);
}

std::string_view base_name(std::string_view path) {
  const size_t slash = path.find_last_of("/\\");
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// The last extension of the file name part, without the dot ("" if none).
std::string_view last_extension(std::string_view name) {
  const std::string_view base = base_name(name);
  const size_t dot = base.rfind('.');
  if (dot == std::string_view::npos || dot == 0) return {};
  return base.substr(dot + 1);
}

// Extensions that start with 's' but name uncompressed files.
bool uncompressed_s_extension(std::string_view ext) {
  for (std::string_view e : {"sarc", "stera", "stats"})
    if (iequal(ext, e)) return true;
  return false;
}

// `.s<ext>`: Nintendo's mark of a Yaz0-compressed `.<ext>` (BotW and other
// Wii U / Switch titles). At least two characters after the 's'.
bool yaz0_s_extension(std::string_view ext) {
  return ext.size() >= 3 && (ext[0] == 's' || ext[0] == 'S') && !uncompressed_s_extension(ext);
}

// The name with the suffix of `layer` removed (unchanged when it has none).
std::string inner_name(Compression layer, std::string_view name) {
  std::string out(name);
  if (layer == Compression::zstd) {
    if (ends_with_ci(name, ".zs") && last_extension(name).size() == 2) out.resize(out.size() - 3);
  } else if (layer == Compression::yaz0) {
    const std::string_view ext = last_extension(name);
    if (iequal(ext, "szs")) {
      out.replace(out.size() - 3, 3, "sarc");
    } else if (yaz0_s_extension(ext)) {
      out.erase(out.size() - ext.size(), 1);  // ".sbyml" -> ".byml"
    }
  }
  return out;
}

Compression layer_by_name(std::string_view name) {
  const std::string_view ext = last_extension(name);
  if (iequal(ext, "zs")) return Compression::zstd;
  if (iequal(ext, "szs") || yaz0_s_extension(ext)) return Compression::yaz0;
  return Compression::none;
}

}  // namespace

const char* compression_name(Compression c) {
  switch (c) {
    case Compression::none:
      return "none";
    case Compression::yaz0:
      return "yaz0";
    case Compression::zstd:
      return "zstd";
  }
  return "?";
}

LayerGuess detect_compression(std::span<const uint8_t> bytes, std::string_view name) {
  LayerGuess g;
  if (bytes.size() >= 4 && std::memcmp(bytes.data(), "Yaz0", 4) == 0) {
    g.layer = Compression::yaz0;
    g.by_magic = true;
  } else if (bytes.size() >= 4 && std::memcmp(bytes.data(), zstd::kMagic, 4) == 0) {
    g.layer = Compression::zstd;
    g.by_magic = true;
  } else {
    g.layer = layer_by_name(name);
  }
  g.inner_name = inner_name(g.layer, name);
  return g;
}

LayerGuess compression_for_name(std::string_view name) { return detect_compression({}, name); }

// ---- DictionarySet ----------------------------------------------------------

void DictionarySet::add(std::string name, std::vector<uint8_t> bytes) {
  name = std::string(base_name(name));
  const uint32_t id = zstd::dictionary_id(bytes);
  for (Entry& e : entries_) {
    if (e.name == name) {
      e.bytes = std::move(bytes);
      e.id = id;
      return;
    }
  }
  entries_.push_back(Entry{std::move(name), std::move(bytes), id});
}

void DictionarySet::add_file(const std::string& path, const ArchiveReader& archive) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot open the dictionary");
  std::vector<uint8_t> bytes{std::istreambuf_iterator<char>(in), {}};
  if (in.bad()) throw std::runtime_error(path + ": cannot read the dictionary");
  if (bytes.size() >= 4 && std::memcmp(bytes.data(), zstd::kMagic, 4) == 0) {
    // A zstd frame, not a dictionary: the game's ZsDic.pack.zs.
    try {
      add_pack(bytes, archive);
    } catch (const std::exception& e) {
      throw std::runtime_error(path + ": " + e.what());
    }
    return;
  }
  if (bytes.empty()) throw std::runtime_error(path + ": the dictionary is empty");
  add(path, std::move(bytes));
}

void DictionarySet::add_pack(std::span<const uint8_t> zsdic_pack_zs, const ArchiveReader& archive) {
  const std::vector<uint8_t> sarc = zstd::decompress(zsdic_pack_zs);
  const bool is_sarc = sarc.size() >= 4 && std::memcmp(sarc.data(), "SARC", 4) == 0;
  if (!is_sarc || !archive)
    throw std::runtime_error(std::string(is_sarc ? "a zstd-compressed SARC (ZsDic.pack.zs)"
                                                 : "a zstd frame that is not a SARC") +
                             (is_sarc ? ": reading dictionaries out of an archive needs SARC support, which this program"
                                        " does not pass to the runtime (see DictionarySet::ArchiveReader);"
                                      : ":") +
                             " pass the single .zsdic files (zs.zsdic, pack.zsdic, bcett.byml.zsdic) instead");
  size_t added = 0;
  for (auto& [name, bytes] : archive(sarc)) {
    if (name.size() < 6 || name.compare(name.size() - 6, 6, ".zsdic") != 0) continue;
    if (bytes.empty()) throw std::runtime_error("the archive's " + name + " is empty");
    add(name, std::move(bytes));
    ++added;
  }
  if (!added) throw std::runtime_error("a zstd-compressed SARC without any .zsdic member (not a ZsDic.pack.zs)");
}

const DictionarySet::Entry* DictionarySet::find(std::string_view name) const {
  for (const Entry& e : entries_)
    if (e.name == name) return &e;
  return nullptr;
}

const DictionarySet::Entry* DictionarySet::find_id(uint32_t id) const {
  if (id == 0) return nullptr;
  for (const Entry& e : entries_)
    if (e.id == id) return &e;
  return nullptr;
}

std::string_view DictionarySet::name_for(std::string_view file_name) {
  const std::string_view base = base_name(file_name);
  if (!ends_with_ci(base, ".zs")) return {};
  // Longer suffixes first: every one of them also ends in ".zs".
  if (ends_with_ci(base, ".bcett.byml.zs")) return "bcett.byml.zsdic";
  if (iequal(base, "ZsDic.pack.zs")) return {};  // the dictionaries' own pack
  if (ends_with_ci(base, ".pack.zs")) return "pack.zsdic";
  return "zs.zsdic";
}

// ---- Layers -----------------------------------------------------------------

std::vector<uint8_t> decompress(Compression layer, std::span<const uint8_t> in, const DictionarySet& dicts,
                                std::string_view file_name, size_t max_size) {
  switch (layer) {
    case Compression::yaz0:
      return yaz0::decompress(in, max_size);
    case Compression::zstd:
      return zstd::decompress(in, dicts, file_name, max_size);
    case Compression::none:
      break;
  }
  return std::vector<uint8_t>(in.begin(), in.end());
}

std::vector<uint8_t> compress(Compression layer, std::span<const uint8_t> in, const DictionarySet& dicts,
                              std::string_view file_name, int zstd_level) {
  switch (layer) {
    case Compression::yaz0:
      return yaz0::compress(in);
    case Compression::zstd:
      if (dicts.empty()) return zstd::compress(in, zstd_level);
      return zstd::compress(in, dicts, file_name, zstd_level);
    case Compression::none:
      break;
  }
  return std::vector<uint8_t>(in.begin(), in.end());
}

}  // namespace binschema
