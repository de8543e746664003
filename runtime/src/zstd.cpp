// zstd through Debian's libzstd: streaming decompression under a size cap,
// compression with a level, dictionaries chosen by frame ID or file name.
#include <zdict.h>
#include <zstd.h>
#include <zstd_errors.h>

#include <algorithm>
#include <cstring>
#include <memory>

#include "binschema/compression.h"
#include "binschema/error.h"

namespace binschema::zstd {

namespace {

struct FreeDCtx {
  void operator()(ZSTD_DCtx* c) const { ZSTD_freeDCtx(c); }
};
struct FreeCCtx {
  void operator()(ZSTD_CCtx* c) const { ZSTD_freeCCtx(c); }
};

bool has_frame_magic(std::span<const uint8_t> in) {
  if (in.size() < 4) return false;
  if (std::memcmp(in.data(), kMagic, 4) == 0) return true;
  // Skippable frames: 0x184D2A50..5F, little-endian.
  return (in[0] & 0xf0) == 0x50 && in[1] == 0x2a && in[2] == 0x4d && in[3] == 0x18;
}

std::string dictionary_text(std::string_view name, uint32_t id) {
  // Appended piece by piece: GCC 12 warns (wrongly, -Wrestrict) about "'" + name.
  std::string s;
  if (!name.empty()) {
    s += '\'';
    s += name;
    s += "' ";
  }
  s += "(ID ";
  s += std::to_string(id);
  s += ')';
  return s;
}

}  // namespace

MissingDictionary::MissingDictionary(std::string name, uint32_t id, std::string message)
    : DecodeError(0, std::move(message)), name_(std::move(name)), id_(id) {}

uint32_t frame_dictionary_id(std::span<const uint8_t> in) {
  return static_cast<uint32_t>(ZSTD_getDictID_fromFrame(in.data(), in.size()));
}

uint32_t dictionary_id(std::span<const uint8_t> dict) {
  return static_cast<uint32_t>(ZSTD_getDictID_fromDict(dict.data(), dict.size()));
}

std::vector<uint8_t> decompress(std::span<const uint8_t> in, std::span<const uint8_t> dict, size_t max_size) {
  if (!has_frame_magic(in)) throw DecodeError(0, "zstd: not a zstd frame (no magic 28 B5 2F FD at 0x0)");
  std::unique_ptr<ZSTD_DCtx, FreeDCtx> dctx(ZSTD_createDCtx());
  if (!dctx) throw std::bad_alloc();
  if (!dict.empty()) {
    const size_t r = ZSTD_DCtx_loadDictionary(dctx.get(), dict.data(), dict.size());
    if (ZSTD_isError(r)) throw DecodeError(0, std::string("zstd: cannot use the dictionary: ") + ZSTD_getErrorName(r));
  }

  // The content size in the header is a claim: checked against the cap now,
  // and used only to size the first buffer (never beyond what a plausible
  // ratio allows, so a 20-byte file cannot make us reserve a gigabyte).
  const unsigned long long claimed = ZSTD_getFrameContentSize(in.data(), in.size());
  const bool known = claimed != ZSTD_CONTENTSIZE_UNKNOWN && claimed != ZSTD_CONTENTSIZE_ERROR;
  if (known && claimed > max_size)
    throw DecodeError(4, "zstd: frame content size " + hex(claimed) + " is over the limit of " + hex(max_size) +
                             " (at 0x4)");
  size_t first = std::max<size_t>(ZSTD_DStreamOutSize(), in.size() * 4);
  if (known) first = std::min<size_t>(first, static_cast<size_t>(claimed) + 1);
  first = std::min(first, max_size + 1);

  std::vector<uint8_t> out(first);
  size_t written = 0;
  ZSTD_inBuffer ib{in.data(), in.size(), 0};
  for (;;) {
    if (written == out.size()) {
      // max_size + 1 so that output over the cap is seen, not truncated.
      const size_t grown = std::min(std::max(out.size() * 2, written + ZSTD_DStreamOutSize()), max_size + 1);
      out.resize(grown);
    }
    ZSTD_outBuffer ob{out.data() + written, out.size() - written, 0};
    const size_t before = ib.pos;
    const size_t r = ZSTD_decompressStream(dctx.get(), &ob, &ib);
    if (ZSTD_isError(r)) {
      const ZSTD_ErrorCode code = ZSTD_getErrorCode(r);
      std::string what = ZSTD_getErrorName(r);
      if (code == ZSTD_error_dictionary_wrong)
        what += dict.empty() ? " (the frame needs a dictionary)" : " (the frame needs another dictionary)";
      throw DecodeError(ib.pos, "zstd: " + what + " (input read up to " + hex(ib.pos) + ")");
    }
    written += ob.pos;
    if (written > max_size)
      throw DecodeError(ib.pos, "zstd: decompressed data exceeds the limit of " + hex(max_size) + " (at " +
                                    hex(ib.pos) + ")");
    if (ib.pos == ib.size && ob.pos < ob.size) {
      // All input read and nothing left to flush.
      if (r != 0)
        throw DecodeError(in.size(), "zstd: the frame is truncated: the data ends at " + hex(in.size()) +
                                         " before the frame does");
      break;
    }
    if (ob.pos == 0 && ib.pos == before && ob.size != 0)
      throw DecodeError(ib.pos, "zstd: no progress decoding (at " + hex(ib.pos) + ")");
  }
  out.resize(written);
  out.shrink_to_fit();
  return out;
}

std::vector<uint8_t> decompress(std::span<const uint8_t> in, const DictionarySet& dicts, std::string_view file_name,
                                size_t max_size) {
  const std::string_view by_name = DictionarySet::name_for(file_name);
  const uint32_t id = frame_dictionary_id(in);
  if (id != 0) {
    if (const DictionarySet::Entry* e = dicts.find_id(id)) return decompress(in, e->bytes, max_size);
    std::string msg = "zstd: the frame needs the dictionary ";
    std::string needed(by_name);
    if (!by_name.empty()) {
      msg += dictionary_text(by_name, id) + " (chosen by the name's suffix)";
      if (const DictionarySet::Entry* e = dicts.find(by_name))
        msg += ", but the loaded '" + e->name + "' has ID " + std::to_string(e->id);
      else
        msg += ", which is not loaded";
    } else {
      msg += dictionary_text("", id) + ", which is not loaded";
    }
    if (dicts.empty()) msg += " (no dictionaries are loaded)";
    throw MissingDictionary(needed, id, msg + " (at 0x0)");
  }
  // The frame records no dictionary ID: either it has no dictionary, or its
  // writer left the ID out. Try without, then with the one its name asks for.
  try {
    return decompress(in, std::span<const uint8_t>{}, max_size);
  } catch (const DecodeError&) {
    const DictionarySet::Entry* e = by_name.empty() ? nullptr : dicts.find(by_name);
    if (!e) throw;
  }
  return decompress(in, dicts.find(by_name)->bytes, max_size);
}

std::vector<uint8_t> compress(std::span<const uint8_t> in, int level, std::span<const uint8_t> dict) {
  if (level < ZSTD_minCLevel() || level > ZSTD_maxCLevel())
    throw EncodeError("zstd: compression level " + std::to_string(level) + " is outside " +
                      std::to_string(ZSTD_minCLevel()) + ".." + std::to_string(ZSTD_maxCLevel()));
  std::unique_ptr<ZSTD_CCtx, FreeCCtx> cctx(ZSTD_createCCtx());
  if (!cctx) throw std::bad_alloc();
  auto check = [](size_t r, const char* what) {
    if (ZSTD_isError(r)) throw EncodeError(std::string("zstd: ") + what + ": " + ZSTD_getErrorName(r));
  };
  check(ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_compressionLevel, level), "level");
  check(ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_checksumFlag, 1), "checksum");
  check(ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_contentSizeFlag, 1), "content size");
  if (!dict.empty()) check(ZSTD_CCtx_loadDictionary(cctx.get(), dict.data(), dict.size()), "dictionary");
  std::vector<uint8_t> out(ZSTD_compressBound(in.size()));
  const size_t n = ZSTD_compress2(cctx.get(), out.data(), out.size(), in.data(), in.size());
  check(n, "compress");
  out.resize(n);
  return out;
}

std::vector<uint8_t> compress(std::span<const uint8_t> in, const DictionarySet& dicts, std::string_view file_name,
                              int level) {
  const std::string_view name = DictionarySet::name_for(file_name);
  if (name.empty()) return compress(in, level);
  const DictionarySet::Entry* e = dicts.find(name);
  if (!e)
    throw EncodeError("zstd: " + std::string(file_name) + " is written with the dictionary '" + std::string(name) +
                      "', which is not loaded");
  return compress(in, level, e->bytes);
}

}  // namespace binschema::zstd
