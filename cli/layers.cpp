#include "layers.h"

#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <optional>
#include <stdexcept>

#include "binschema/error.h"
#include "binschema/format.h"
#include "archive.h"
#include "io.h"

namespace fs = std::filesystem;

namespace binschema::cli {

namespace {

constexpr const char* kHint = " (give it with --zsdic FILE, --romfs DIR or BINSCHEMA_ZSDIC)";

std::mutex g_mutex;
DictionarySources g_sources;
std::optional<DictionarySet> g_loaded;  // set once loading succeeded

bool any_sources() {
  std::lock_guard lock(g_mutex);
  const char* env = std::getenv("BINSCHEMA_ZSDIC");
  return !g_sources.zsdic.empty() || !g_sources.romfs.empty() || (env && *env);
}

void add_file(DictionarySet& set, const std::string& path) {
  try {
    set.add_file(path, sarc_members);  // a ZsDic.pack.zs is read with the SARC schema
  } catch (const std::exception& e) {
    throw Failure{kUsage, e.what()};  // starts with the path
  }
}

// Every dictionary the command line and environment name, read on first use.
const DictionarySet& dictionaries() {
  std::lock_guard lock(g_mutex);
  if (g_loaded) return *g_loaded;
  DictionarySet set;
  for (const std::string& p : g_sources.zsdic) add_file(set, p);
  if (!g_sources.romfs.empty()) {
    const fs::path pack = fs::path(g_sources.romfs) / "Pack" / "ZsDic.pack.zs";
    std::error_code ec;
    if (!fs::is_regular_file(pack, ec))
      throw Failure{kUsage, g_sources.romfs + ": has no Pack/ZsDic.pack.zs (--romfs names the game's romfs folder)"};
    add_file(set, pack.string());
  }
  if (const char* env = std::getenv("BINSCHEMA_ZSDIC")) {
    std::string list = env;
    for (size_t start = 0; start <= list.size();) {
      size_t end = list.find(':', start);
      if (end == std::string::npos) end = list.size();
      if (end > start) {
        try {
          add_file(set, list.substr(start, end - start));
        } catch (Failure& f) {
          f.line = "BINSCHEMA_ZSDIC: " + f.line;
          throw;
        }
      }
      start = end + 1;
    }
  }
  g_loaded = std::move(set);
  return *g_loaded;
}

const DictionarySet& no_dictionaries() {
  static const DictionarySet none;
  return none;
}

// DecodeError::what(), with its offset added where the message lacks it.
std::string describe(const DecodeError& e) {
  std::string what = e.what();
  const std::string at = hex(e.offset());
  if (what.find(at) == std::string::npos) what += " (at " + at + ")";
  return what;
}

}  // namespace

void set_dictionary_sources(DictionarySources sources) {
  std::lock_guard lock(g_mutex);
  g_sources = std::move(sources);
  g_loaded.reset();
}

std::string detection_name(const std::string& in) {
  if (in == "-") return "";
  return compression_for_name(in).inner_name;
}

BinaryInput read_binary_input(const std::string& in) {
  BinaryInput input;
  input.bytes = read_input(in);
  input.stored_size = input.bytes.size();
  const std::string name = in == "-" ? "" : in;
  const LayerGuess guess = detect_compression(input.bytes, name);
  if (guess.layer == Compression::none) return input;
  if (!guess.by_magic) {
    // Named as compressed, but not: fine when a format knows the bytes.
    if (detect_format(input.bytes, "")) return input;
    throw Failure{kBadData,
                  display_name(in) + ": named as " + compression_name(guess.layer) +
                      "-compressed, but it does not start with " +
                      (guess.layer == Compression::yaz0 ? "'Yaz0'" : "the zstd magic 28 B5 2F FD") +
                      " (nor with any format's magic) (at 0x0)",
                  true};
  }
  try {
    if (guess.layer == Compression::zstd) {
      // Dictionaries are read only when a frame needs one.
      const bool needs = zstd::frame_dictionary_id(input.bytes) != 0;
      try {
        input.bytes = zstd::decompress(input.bytes, needs ? dictionaries() : no_dictionaries(), name);
      } catch (const zstd::MissingDictionary&) {
        throw;
      } catch (const DecodeError&) {
        // A frame that does not record its dictionary: the one its name asks for.
        if (needs || DictionarySet::name_for(name).empty() || !any_sources()) throw;
        input.bytes = zstd::decompress(input.bytes, dictionaries(), name);
      }
    } else {
      input.bytes = yaz0::decompress(input.bytes);
    }
  } catch (const zstd::MissingDictionary& e) {
    throw Failure{kBadData, display_name(in) + ": " + describe(e) + kHint};
  } catch (const DecodeError& e) {
    throw Failure{kBadData, display_name(in) + ": " + describe(e)};
  }
  input.layer = guess.layer;
  return input;
}

std::vector<uint8_t> compress_for_output(std::vector<uint8_t> bytes, const std::string& out, const std::string& in) {
  if (out.empty() || out == "-") return bytes;
  const LayerGuess guess = compression_for_name(out);
  bool with_dictionary = false;
  try {
    switch (guess.layer) {
      case Compression::none:
        return bytes;
      case Compression::yaz0:
        return yaz0::compress(bytes);
      case Compression::zstd:
        if (DictionarySet::name_for(out).empty() || !any_sources()) return zstd::compress(bytes);
        with_dictionary = true;
        return zstd::compress(bytes, dictionaries(), out);
    }
  } catch (const EncodeError& e) {
    throw Failure{kBadData, display_name(in) + ": " + e.what() + (with_dictionary ? kHint : "")};
  }
  return bytes;
}

LayerParams layer_of(std::span<const uint8_t> stored) {
  LayerParams p;
  const LayerGuess g = detect_compression(stored, "");
  if (!g.by_magic) return p;
  p.layer = g.layer;
  if (p.layer == Compression::yaz0) {
    try {
      p.yaz0_alignment = yaz0::read_header(stored).alignment;
    } catch (const DecodeError&) {
    }
  }
  return p;
}

std::vector<uint8_t> remove_layer(std::span<const uint8_t> stored, const LayerParams& p, const std::string& where) {
  try {
    switch (p.layer) {
      case Compression::none: return {stored.begin(), stored.end()};
      case Compression::yaz0: return yaz0::decompress(stored);
      case Compression::zstd: {
        const uint32_t id = zstd::frame_dictionary_id(stored);
        if (id == 0) return zstd::decompress(stored);
        return zstd::decompress(stored, dictionaries(), where);
      }
    }
  } catch (const zstd::MissingDictionary& e) {
    throw Failure{kBadData, where + ": " + describe(e) + kHint};
  } catch (const DecodeError& e) {
    throw Failure{kBadData, where + ": " + describe(e)};
  }
  return {};
}

std::vector<uint8_t> add_layer(std::span<const uint8_t> plain, const LayerParams& p, const std::string& where) {
  try {
    switch (p.layer) {
      case Compression::none: return {plain.begin(), plain.end()};
      case Compression::yaz0: return yaz0::compress(plain, p.yaz0_alignment);
      case Compression::zstd: {
        if (p.zstd_dictionary.empty()) return zstd::compress(plain, p.zstd_level);
        const DictionarySet::Entry* d = dictionaries().find(p.zstd_dictionary);
        if (!d) throw Failure{kBadData, where + ": the zstd dictionary '" + p.zstd_dictionary + "' is not loaded" + kHint};
        return zstd::compress(plain, p.zstd_level, d->bytes);
      }
    }
  } catch (const EncodeError& e) {
    throw Failure{kBadData, where + ": " + e.what()};
  }
  return {};
}

// The name of the dictionary a zstd frame was made with ("" none, or not loaded).
std::string zstd_dictionary_of(std::span<const uint8_t> stored) {
  const uint32_t id = zstd::frame_dictionary_id(stored);
  if (id == 0) return "";
  const DictionarySet::Entry* d = dictionaries().find_id(id);
  return d ? d->name : "";
}

std::string layer_info(const BinaryInput& input) {
  if (input.layer == Compression::none) return "";
  return std::string("compression: ") + compression_name(input.layer) + " (" + std::to_string(input.stored_size) +
         " bytes stored)\n";
}

}  // namespace binschema::cli
