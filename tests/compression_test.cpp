// The compression layers: Yaz0 (over the real BotW files in
// ../shared/samples/yaz0 and made-up data), zstd with and without
// dictionaries (trained here with ZDICT_trainFromBuffer), the detection of
// layers by magic and by file name, and the CLI reading and writing through
// them (single files and batches, --zsdic, --romfs, BINSCHEMA_ZSDIC).
#define BOOST_TEST_MODULE compression_test
#include <boost/test/unit_test.hpp>

#include <sys/wait.h>
#include <unistd.h>
#include <zdict.h>
#include <zstd.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <ostream>
#include <random>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "binschema/compression.h"
#include "binschema/error.h"
#include "samples.h"
#include "sandbox.h"

namespace fs = std::filesystem;
namespace yaz0 = binschema::yaz0;
namespace zstd = binschema::zstd;
using binschema::Compression;
using binschema::DecodeError;
using binschema::DictionarySet;
using ByteVec = std::vector<uint8_t>;

namespace {

ByteVec bytes_of(const std::string& s) { return ByteVec(s.begin(), s.end()); }

ByteVec random_bytes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  ByteVec v(n);
  for (auto& b : v) b = static_cast<uint8_t>(rng());
  return v;
}

// Text-like data with repeats at every distance up to and past the window.
ByteVec repetitive(size_t n, uint32_t seed) {
  static const char* words[] = {"Demo", "Actor", "EventFlow", "SneakingUp", "H127W0", "Timeline", "_",
                                "Camera", "Link", "\0\0\0\0", "\xff\xff"};
  std::mt19937 rng(seed);
  ByteVec v;
  while (v.size() < n) {
    const char* w = words[rng() % (sizeof words / sizeof *words)];
    const size_t len = w[0] == '\0' ? 4 : std::strlen(w);
    v.insert(v.end(), w, w + len);
    if (rng() % 50 == 0) v.insert(v.end(), rng() % 600, static_cast<uint8_t>(rng()));  // runs past 0x111
    if (rng() % 40 == 0 && v.size() > 0x1000) {
      const size_t from = v.size() - 0x1000;  // exactly the window's reach
      const ByteVec piece(v.begin() + from, v.begin() + from + 20);
      v.insert(v.end(), piece.begin(), piece.end());
    }
  }
  v.resize(n);
  return v;
}

// The message of the DecodeError `f` throws ("" if it throws none).
template <class F>
std::string decode_error(F f) {
  try {
    f();
  } catch (const DecodeError& e) {
    return e.what();
  }
  return "";
}

uint32_t be32(const ByteVec& v, size_t at) {
  return uint32_t{v[at]} << 24 | uint32_t{v[at + 1]} << 16 | uint32_t{v[at + 2]} << 8 | v[at + 3];
}

// A Yaz0 header for `size` bytes, then `body`.
ByteVec yaz0_stream(uint32_t size, const ByteVec& body) {
  ByteVec v = bytes_of("Yaz0");
  for (int s = 24; s >= 0; s -= 8) v.push_back(static_cast<uint8_t>(size >> s));
  v.insert(v.end(), 8, 0);
  v.insert(v.end(), body.begin(), body.end());
  return v;
}

// One row of the table in samples/yaz0/PROVENANCE.md.
struct ProvenanceRow {
  std::string file;
  uint64_t bytes = 0;
  uint64_t decompressed = 0;  // 0: the row gives no size
};

std::vector<ProvenanceRow> provenance_rows() {
  const fs::path p = samples::dir("yaz0") / "PROVENANCE.md";
  std::ifstream in(p);
  if (!in) BOOST_FAIL("cannot read " + p.string());
  std::vector<ProvenanceRow> rows;
  // | file | bytes | sha256 | decompressed |, the last starting "<n> bytes" when it gives the size.
  const std::regex row(R"(^\|\s*([^|\s]+)\s*\|\s*(\d+)\s*\|\s*[0-9a-f]{64}\s*\|\s*(.*)\|\s*$)");
  const std::regex size(R"(^(\d+) bytes)");
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (!std::regex_match(line, m, row)) continue;
    ProvenanceRow r{m[1], std::stoull(m[2])};
    const std::string rest = m[3];
    std::smatch s;
    if (std::regex_search(rest, s, size)) r.decompressed = std::stoull(s[1]);
    rows.push_back(r);
  }
  if (rows.empty()) BOOST_FAIL("no file table in " + p.string());
  return rows;
}

}  // namespace

// ---- Yaz0 -------------------------------------------------------------------

BOOST_AUTO_TEST_SUITE(yaz0_layer)

BOOST_AUTO_TEST_CASE(samples_decompress_to_their_provenance_sizes) {
  const auto rows = provenance_rows();
  BOOST_TEST(rows.size() == 4u);
  for (const ProvenanceRow& r : rows) {
    BOOST_TEST_CONTEXT(r.file) {
      const ByteVec in = samples::read(samples::dir("yaz0") / r.file);
      BOOST_REQUIRE_MESSAGE(in.size() == r.bytes, r.file << " is missing or not the file PROVENANCE.md lists");
      const ByteVec out = yaz0::decompress(in);
      BOOST_TEST(out.size() == yaz0::read_header(in).decompressed_size);
      if (r.decompressed != 0) {
        BOOST_TEST(out.size() == r.decompressed);
      } else {
        // The event pack's row names no size: it is a SARC, whose header
        // (byte order from its BOM at 6) states the archive's size at 8.
        BOOST_REQUIRE(out.size() >= 0x14);
        BOOST_TEST(std::memcmp(out.data(), "SARC", 4) == 0);
        const bool big = out[6] == 0xfe && out[7] == 0xff;
        const uint32_t stated = big ? be32(out, 8)
                                    : uint32_t{out[8]} | uint32_t{out[9]} << 8 | uint32_t{out[10]} << 16 |
                                          uint32_t{out[11]} << 24;
        BOOST_TEST(out.size() == stated);
      }
    }
  }
  // What the table says the contents are.
  const ByteVec byml = yaz0::decompress(samples::read(samples::dir("yaz0") / "ActorInfo.product.sbyml"));
  BOOST_TEST(std::string(byml.begin(), byml.begin() + 2) == "YB");
  const ByteVec rstb = yaz0::decompress(samples::read(samples::dir("yaz0") / "ResourceSizeTable.product.srsizetable"));
  BOOST_TEST(std::string(rstb.begin(), rstb.begin() + 4) == "RSTB");
}

BOOST_AUTO_TEST_CASE(samples_round_trip_through_our_compressor) {
  for (const fs::path& p : samples::files("yaz0")) {
    BOOST_TEST_CONTEXT(p.filename().string()) {
      const ByteVec in = samples::read(p);
      const ByteVec plain = yaz0::decompress(in);
      const ByteVec packed = yaz0::compress(plain, yaz0::read_header(in).alignment);
      BOOST_TEST(yaz0::read_header(packed).alignment == yaz0::read_header(in).alignment);
      BOOST_TEST((yaz0::decompress(packed) == plain));
      // A real LZ search: within 3% of Nintendo's own encoder (measured: 0-1%).
      BOOST_TEST(packed.size() < in.size() * 103 / 100, packed.size() << " bytes vs " << in.size());
    }
  }
}

BOOST_AUTO_TEST_CASE(made_up_data_round_trips) {
  std::vector<std::pair<std::string, ByteVec>> cases = {
      {"empty", {}},
      {"one byte", {0x42}},
      {"two bytes", {0, 0}},
      {"three equal bytes", {7, 7, 7}},
      {"random 100000", random_bytes(100000, 1)},
      {"zeros 1 MiB", ByteVec(1 << 20, 0)},
      {"repetitive 300000", repetitive(300000, 2)},
      {"abc repeated", {}},
  };
  for (int i = 0; i < 5000; ++i) cases.back().second.push_back(static_cast<uint8_t>('a' + i % 3));
  for (const auto& [name, data] : cases) {
    BOOST_TEST_CONTEXT(name) {
      const ByteVec packed = yaz0::compress(data);
      BOOST_TEST(yaz0::read_header(packed).decompressed_size == data.size());
      BOOST_TEST((yaz0::decompress(packed) == data));
    }
  }
  // Repeats do get found: a MiB of zeros is 3841 three-byte references of
  // up to 0x111 bytes after one literal, in 481 groups: 12021 bytes.
  BOOST_TEST(yaz0::compress(ByteVec(1 << 20, 0)).size() <= 12021u);
  BOOST_TEST(yaz0::compress(ByteVec()).size() == yaz0::kHeaderSize);
}

BOOST_AUTO_TEST_CASE(alignment_field_is_kept) {
  const ByteVec packed = yaz0::compress(bytes_of("hello"), 0x2000);
  BOOST_TEST(be32(packed, 8) == 0x2000u);
  BOOST_TEST(be32(packed, 12) == 0u);
  BOOST_TEST(yaz0::read_header(packed).alignment == 0x2000u);
}

// A stream written by hand from the format's description, so the decoder is
// checked against the spec and not only against our own encoder.
BOOST_AUTO_TEST_CASE(decodes_a_hand_written_stream) {
  // code 0b11100000: 'a' 'b' 'c' literals, then a short reference (N=2:
  // length 4, distance 3), a long one (N=0, MM=1: length 0x13, distance 1),
  // three more items unused... a stream ends when the size is reached.
  const ByteVec body = {0xe0, 'a', 'b', 'c', 0x20, 0x02, 0x00, 0x00, 0x01};
  const ByteVec out = yaz0::decompress(yaz0_stream(3 + 4 + 0x13, body));
  std::string expect = "abcabca" + std::string(0x13, 'a');
  BOOST_TEST(std::string(out.begin(), out.end()) == expect);
}

BOOST_AUTO_TEST_CASE(hostile_headers_are_refused_before_allocating) {
  // 256 MiB claimed from 4 bytes of data: more than any encoding can hold.
  std::string e = decode_error([] { yaz0::decompress(yaz0_stream(0x10000000u, {0, 0, 0, 0})); });
  BOOST_TEST(e == "Yaz0: declared size 0x10000000 cannot come from 0x4 bytes of data (at most 0x170) (at 0x4)");
  // 4 GiB: over the default cap (1 GiB).
  e = decode_error([] { yaz0::decompress(yaz0_stream(0xffffffffu, {0, 0, 0, 0})); });
  BOOST_TEST(e == "Yaz0: declared size 0xffffffff is over the limit of 0x40000000 (at 0x4)");
  // Over the caller's cap.
  e = decode_error([] { yaz0::decompress(yaz0::compress(ByteVec(5000, 1)), 4096); });
  BOOST_TEST(e.find("over the limit of 0x1000") != std::string::npos, e);
  e = decode_error([] { yaz0::decompress(bytes_of("Yaz0\0\0")); });
  BOOST_TEST(e.find("0x10-byte header") != std::string::npos, e);
  e = decode_error([] { yaz0::decompress(bytes_of("Yaz1AAAABBBBCCCC")); });
  BOOST_TEST(e.find("magic") != std::string::npos, e);
}

BOOST_AUTO_TEST_CASE(bad_references_are_refused_with_their_offset) {
  // A reference first thing: nothing to copy from. Offset 0x11 = the
  // reference, after the header and the code byte.
  std::string e = decode_error([] { yaz0::decompress(yaz0_stream(10, {0x00, 0x10, 0x00})); });
  BOOST_TEST(e.find("back-reference at 0x11 reaches 0x1 bytes back but only 0x0") != std::string::npos, e);
  // A reference that runs past the declared size (3 + 0x10 > 8).
  e = decode_error([] { yaz0::decompress(yaz0_stream(8, {0xe0, 'a', 'b', 'c', 0xe0, 0x00})); });
  BOOST_TEST(e.find("past the declared size 0x8") != std::string::npos, e);
}

BOOST_AUTO_TEST_CASE(every_truncation_is_refused) {
  const ByteVec packed = yaz0::compress(repetitive(3000, 3));
  for (size_t n = 0; n < packed.size(); ++n) {
    const ByteVec cut(packed.begin(), packed.begin() + n);
    const std::string e = decode_error([&] { yaz0::decompress(cut); });
    BOOST_TEST_CONTEXT("cut at " << n) { BOOST_TEST(e.rfind("Yaz0: ", 0) == 0, e); }
  }
  const std::string e = decode_error([&] { yaz0::decompress(ByteVec(packed.begin(), packed.end() - 1)); });
  BOOST_TEST(e.find("the stream ends at") != std::string::npos, e);
}

BOOST_AUTO_TEST_CASE(corrupted_streams_decode_or_fail_cleanly) {
  const ByteVec good = yaz0::compress(repetitive(20000, 4));
  std::mt19937 rng(5);
  int refused = 0;
  for (int i = 0; i < 3000; ++i) {
    ByteVec bad = good;
    for (int k = 0; k < 3; ++k) bad[yaz0::kHeaderSize + rng() % (bad.size() - yaz0::kHeaderSize)] ^= 1u << (rng() % 8);
    try {
      const ByteVec out = yaz0::decompress(bad);
      BOOST_TEST(out.size() == 20000u);  // what the header says, always
    } catch (const DecodeError& e) {
      ++refused;
      BOOST_TEST(std::string(e.what()).rfind("Yaz0: ", 0) == 0);
    }
  }
  BOOST_TEST(refused > 0);
}

BOOST_AUTO_TEST_SUITE_END()

// ---- zstd -------------------------------------------------------------------

namespace {

struct FreeCCtx {
  void operator()(ZSTD_CCtx* c) const { ZSTD_freeCCtx(c); }
};

// A frame written by the streaming API without a pledged size: its header
// does not record the content size.
ByteVec zstd_frame_of_unknown_size(const ByteVec& in) {
  std::unique_ptr<ZSTD_CCtx, FreeCCtx> c(ZSTD_createCCtx());
  ByteVec out(ZSTD_compressBound(in.size()) + 64);
  ZSTD_outBuffer ob{out.data(), out.size(), 0};
  // Fed in pieces (a single ZSTD_e_end call would learn the size).
  for (size_t at = 0; at < in.size(); at += 4096) {
    ZSTD_inBuffer ib{in.data() + at, std::min<size_t>(4096, in.size() - at), 0};
    while (ib.pos < ib.size) BOOST_REQUIRE(!ZSTD_isError(ZSTD_compressStream2(c.get(), &ob, &ib, ZSTD_e_continue)));
  }
  ZSTD_inBuffer none{nullptr, 0, 0};
  size_t r;
  do {
    r = ZSTD_compressStream2(c.get(), &ob, &none, ZSTD_e_end);
    BOOST_REQUIRE(!ZSTD_isError(r));
  } while (r != 0);
  out.resize(ob.pos);
  return out;
}

// BAEV-like payloads: a header, event records naming actors and animations
// from a family's vocabulary, parameter floats. One family per dictionary.
std::vector<ByteVec> baev_like_payloads(int family, int count) {
  static const std::vector<std::vector<std::string>> vocab = {
      {"SneakingUpH127W0", "Wait", "Walk", "Run", "Attack_Lv1", "Damage", "Guard", "Jump", "Fall", "Land"},
      {"Pack/Actor/Npc_", "Enemy_Bokoblin", "Weapon_Sword_", "Armor_", "Obj_TreeApple", "DgnObj_", "Item_Fruit"},
      {"MainField/", "Bancs/", "Static", "Dynamic", "Translate", "Rotate", "Scale", "Gyaml", "Hash", "SRTHash"}};
  const auto& words = vocab[family];
  std::mt19937 rng(100 + family);
  std::vector<ByteVec> out;
  for (int i = 0; i < count; ++i) {
    ByteVec v = bytes_of("BAEV");
    v.insert(v.end(), {0x00, 0x01, 0x00, 0x02});
    const int events = 5 + rng() % 20;
    for (int e = 0; e < events; ++e) {
      const std::string& w = words[rng() % words.size()];
      v.insert(v.end(), w.begin(), w.end());
      v.push_back(0);
      const float f = static_cast<float>(rng() % 64) * 0.5f;
      uint8_t fb[4];
      std::memcpy(fb, &f, 4);
      v.insert(v.end(), fb, fb + 4);
      v.insert(v.end(), {static_cast<uint8_t>(e), 0, 0, 0, 0xff, 0xff, 0xff, 0xff});
    }
    out.push_back(std::move(v));
  }
  return out;
}

ByteVec train_dictionary(int family) {
  const std::vector<ByteVec> samples = baev_like_payloads(family, 400);
  ByteVec all;
  std::vector<size_t> sizes;
  for (const ByteVec& s : samples) {
    all.insert(all.end(), s.begin(), s.end());
    sizes.push_back(s.size());
  }
  ByteVec dict(8192);
  const size_t n = ZDICT_trainFromBuffer(dict.data(), dict.size(), all.data(), sizes.data(),
                                         static_cast<unsigned>(sizes.size()));
  BOOST_REQUIRE_MESSAGE(!ZDICT_isError(n), "ZDICT_trainFromBuffer: " << ZDICT_getErrorName(n));
  dict.resize(n);
  return dict;
}

// The three dictionaries TotK ships, made up: trained once for all tests.
struct Dictionaries {
  ByteVec zs = train_dictionary(0), pack = train_dictionary(1), bcett = train_dictionary(2);
  DictionarySet all() const {
    DictionarySet s;
    s.add("zs.zsdic", zs);
    s.add("pack.zsdic", pack);
    s.add("bcett.byml.zsdic", bcett);
    return s;
  }
};

const Dictionaries& dictionaries() {
  static const Dictionaries d;
  return d;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(zstd_layer)

BOOST_AUTO_TEST_CASE(round_trips_at_several_levels) {
  const ByteVec data = repetitive(200000, 6);
  for (int level : {-5, 0, 1, 3, 19}) {
    BOOST_TEST_CONTEXT("level " << level) {
      const ByteVec packed = zstd::compress(data, level);
      BOOST_TEST(packed.size() < data.size());
      BOOST_TEST(ZSTD_getFrameContentSize(packed.data(), packed.size()) == data.size());
      BOOST_TEST((zstd::decompress(packed) == data));
    }
  }
  BOOST_TEST(zstd::decompress(zstd::compress(ByteVec())).empty());
  BOOST_CHECK_THROW(zstd::compress(data, 1000), binschema::EncodeError);
}

BOOST_AUTO_TEST_CASE(frames_without_a_content_size_are_streamed) {
  const ByteVec data = repetitive(3 << 20, 7);  // grows the output buffer several times
  const ByteVec frame = zstd_frame_of_unknown_size(data);
  BOOST_REQUIRE(ZSTD_getFrameContentSize(frame.data(), frame.size()) == ZSTD_CONTENTSIZE_UNKNOWN);
  BOOST_TEST((zstd::decompress(frame) == data));
  // Two frames back to back are one stream of their contents.
  ByteVec two = zstd::compress(bytes_of("first "));
  const ByteVec second = zstd::compress(bytes_of("second"));
  two.insert(two.end(), second.begin(), second.end());
  const ByteVec out = zstd::decompress(two);
  BOOST_TEST(std::string(out.begin(), out.end()) == "first second");
}

BOOST_AUTO_TEST_CASE(output_is_capped) {
  const ByteVec data(100000, 'x');
  std::string e = decode_error([&] { zstd::decompress(zstd::compress(data), {}, 4096); });
  BOOST_TEST(e.find("content size 0x186a0 is over the limit of 0x1000") != std::string::npos, e);
  // Without a stated size the cap is enforced while streaming.
  e = decode_error([&] { zstd::decompress(zstd_frame_of_unknown_size(data), {}, 4096); });
  BOOST_TEST(e.find("exceeds the limit of 0x1000") != std::string::npos, e);
  // Exactly at the cap is fine.
  BOOST_TEST(zstd::decompress(zstd_frame_of_unknown_size(data), {}, data.size()).size() == data.size());
}

BOOST_AUTO_TEST_CASE(truncated_and_foreign_input_is_refused) {
  const ByteVec packed = zstd::compress(repetitive(50000, 8));
  for (size_t n = 0; n < packed.size(); n += 7) {
    const ByteVec cut(packed.begin(), packed.begin() + n);
    const std::string e = decode_error([&] { zstd::decompress(cut); });
    BOOST_TEST_CONTEXT("cut at " << n) { BOOST_TEST(e.rfind("zstd: ", 0) == 0, e); }
  }
  std::string e = decode_error([&] { zstd::decompress(ByteVec(packed.begin(), packed.end() - 1)); });
  BOOST_TEST(e.find("truncated") != std::string::npos, e);
  e = decode_error([] { zstd::decompress(bytes_of("BAEV....")); });
  BOOST_TEST(e == "zstd: not a zstd frame (no magic 28 B5 2F FD at 0x0)");
  // A flipped byte in the middle: the checksum or the entropy decoder objects.
  ByteVec bad = packed;
  bad[bad.size() / 2] ^= 0x55;
  e = decode_error([&] { zstd::decompress(bad); });
  BOOST_TEST(e.rfind("zstd: ", 0) == 0, e);
}

BOOST_AUTO_TEST_CASE(dictionary_is_chosen_by_suffix_as_totk_does) {
  BOOST_TEST(DictionarySet::name_for("Pack/Actor/DgnObj_WoodPole_A.pack.zs") == "pack.zsdic");
  BOOST_TEST(DictionarySet::name_for("Banc/MainField/X.bcett.byml.zs") == "bcett.byml.zsdic");
  BOOST_TEST(DictionarySet::name_for("Other.byml.zs") == "zs.zsdic");
  BOOST_TEST(DictionarySet::name_for("Anim/Link.baev.zs") == "zs.zsdic");
  BOOST_TEST(DictionarySet::name_for("X.BAEV.ZS") == "zs.zsdic");
  BOOST_TEST(DictionarySet::name_for("Pack/ZsDic.pack.zs") == "");  // the dictionaries' own pack
  BOOST_TEST(DictionarySet::name_for("x.baev") == "");
  BOOST_TEST(DictionarySet::name_for("x.zs/y.baev") == "");
}

BOOST_AUTO_TEST_CASE(compress_and_decompress_with_trained_dictionaries) {
  const Dictionaries& d = dictionaries();
  const DictionarySet set = d.all();
  // Three different dictionaries, each with its own ID.
  BOOST_TEST(set.find("zs.zsdic")->id != 0u);
  BOOST_TEST(set.find("zs.zsdic")->id != set.find("pack.zsdic")->id);
  BOOST_TEST(set.find("pack.zsdic")->id != set.find("bcett.byml.zsdic")->id);

  const ByteVec payload = baev_like_payloads(1, 401).back();  // not one of the training samples
  const ByteVec packed = zstd::compress(payload, set, "Pack/Actor/Npc_Test.pack.zs");
  BOOST_TEST(zstd::frame_dictionary_id(packed) == set.find("pack.zsdic")->id);
  BOOST_TEST((zstd::decompress(packed, set, "Pack/Actor/Npc_Test.pack.zs") == payload));
  // The dictionary pays: smaller than without one.
  BOOST_TEST(packed.size() < zstd::compress(payload, 3).size());

  const ByteVec anim = baev_like_payloads(0, 401).back();
  const ByteVec anim_zs = zstd::compress(anim, set, "Anim/Link.baev.zs");
  BOOST_TEST(zstd::frame_dictionary_id(anim_zs) == set.find("zs.zsdic")->id);
  BOOST_TEST((zstd::decompress(anim_zs, set, "Anim/Link.baev.zs") == anim));
  // Through the layer functions, as the CLI uses them.
  const auto guess = binschema::detect_compression(anim_zs, "Anim/Link.baev.zs");
  BOOST_TEST(guess.inner_name == "Anim/Link.baev");
  BOOST_TEST((binschema::decompress(guess.layer, anim_zs, set, "Anim/Link.baev.zs") == anim));
  BOOST_TEST((binschema::compress(Compression::zstd, anim, set, "a.bcett.byml.zs").size() > 0));
  BOOST_TEST(zstd::frame_dictionary_id(binschema::compress(Compression::zstd, anim, set, "a.bcett.byml.zs")) ==
             set.find("bcett.byml.zsdic")->id);
  // The frame's ID wins over a misleading name.
  BOOST_TEST((zstd::decompress(anim_zs, set, "renamed.pack.zs") == anim));
}

BOOST_AUTO_TEST_CASE(missing_dictionary_is_named) {
  const Dictionaries& d = dictionaries();
  DictionarySet only_zs;
  only_zs.add("some/dir/zs.zsdic", d.zs);
  BOOST_TEST(only_zs.find("zs.zsdic") != nullptr);
  const ByteVec packed = zstd::compress(baev_like_payloads(1, 1)[0], d.all(), "A.pack.zs");
  const uint32_t id = zstd::dictionary_id(d.pack);
  try {
    zstd::decompress(packed, only_zs, "A.pack.zs");
    BOOST_FAIL("decompressed without its dictionary");
  } catch (const zstd::MissingDictionary& e) {
    BOOST_TEST(e.dictionary() == "pack.zsdic");
    BOOST_TEST(e.id() == id);
    const std::string w = e.what();
    BOOST_TEST(w.find("needs the dictionary 'pack.zsdic' (ID " + std::to_string(id) + ")") != std::string::npos, w);
    BOOST_TEST(w.find("not loaded") != std::string::npos, w);
  }
  // A dictionary of the right name but another ID is called out.
  DictionarySet wrong;
  wrong.add("pack.zsdic", d.zs);
  std::string e = decode_error([&] { zstd::decompress(packed, wrong, "A.pack.zs"); });
  BOOST_TEST(e.find("but the loaded 'pack.zsdic' has ID " + std::to_string(zstd::dictionary_id(d.zs))) !=
                 std::string::npos,
             e);
  // No dictionaries at all, and no name to go by.
  e = decode_error([&] { zstd::decompress(packed, DictionarySet(), ""); });
  BOOST_TEST(e.find("(ID " + std::to_string(id) + "), which is not loaded (no dictionaries are loaded)") !=
                 std::string::npos,
             e);
  // Writing a file whose dictionary is missing is refused too.
  BOOST_CHECK_THROW(zstd::compress(bytes_of("x"), only_zs, "A.pack.zs"), binschema::EncodeError);
}

BOOST_AUTO_TEST_CASE(frames_that_omit_the_dictionary_id_use_the_suffix) {
  const Dictionaries& d = dictionaries();
  const ByteVec payload = baev_like_payloads(0, 3)[2];
  std::unique_ptr<ZSTD_CCtx, FreeCCtx> c(ZSTD_createCCtx());
  ZSTD_CCtx_setParameter(c.get(), ZSTD_c_dictIDFlag, 0);
  ZSTD_CCtx_loadDictionary(c.get(), d.zs.data(), d.zs.size());
  ByteVec frame(ZSTD_compressBound(payload.size()));
  const size_t n = ZSTD_compress2(c.get(), frame.data(), frame.size(), payload.data(), payload.size());
  BOOST_REQUIRE(!ZSTD_isError(n));
  frame.resize(n);
  BOOST_REQUIRE(zstd::frame_dictionary_id(frame) == 0u);
  BOOST_TEST((zstd::decompress(frame, d.all(), "x.baev.zs") == payload));
  const std::string e = decode_error([&] { zstd::decompress(frame, DictionarySet(), "x.baev.zs"); });
  BOOST_TEST(e.rfind("zstd: ", 0) == 0, e);
}

BOOST_AUTO_TEST_CASE(dictionary_files) {
  const fs::path dir = fs::temp_directory_path() / ("binschema-zsdic-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const ByteVec& zs = dictionaries().zs;
  {
    std::ofstream(dir / "zs.zsdic", std::ios::binary).write(reinterpret_cast<const char*>(zs.data()), zs.size());
  }
  DictionarySet set;
  set.add_file((dir / "zs.zsdic").string());
  BOOST_TEST(set.find("zs.zsdic") != nullptr);
  BOOST_TEST(set.find_id(zstd::dictionary_id(zs)) == set.find("zs.zsdic"));
  BOOST_CHECK_THROW(set.add_file((dir / "missing.zsdic").string()), std::runtime_error);
  // The game's ZsDic.pack.zs needs SARC reading, which the runtime does not
  // have: without an ArchiveReader it says so.
  ByteVec sarc = bytes_of("SARC");
  sarc.resize(0x40);
  const ByteVec pack = zstd::compress(sarc);
  {
    std::ofstream(dir / "ZsDic.pack.zs", std::ios::binary)
        .write(reinterpret_cast<const char*>(pack.data()), pack.size());
  }
  try {
    set.add_file((dir / "ZsDic.pack.zs").string());
    BOOST_FAIL("a ZsDic.pack.zs was accepted");
  } catch (const std::runtime_error& e) {
    BOOST_TEST(std::string(e.what()).find("needs SARC support") != std::string::npos, e.what());
  }
  // With one, the members ending in .zsdic are added under their names.
  const DictionarySet::ArchiveReader reader = [&](std::span<const uint8_t> bytes) {
    BOOST_TEST((ByteVec(bytes.begin(), bytes.end()) == sarc));
    return std::vector<std::pair<std::string, ByteVec>>{
        {"pack.zsdic", dictionaries().pack}, {"readme.txt", bytes_of("x")}, {"zs.zsdic", zs}};
  };
  DictionarySet from_pack;
  from_pack.add_file((dir / "ZsDic.pack.zs").string(), reader);
  BOOST_TEST(from_pack.entries().size() == 2u);
  BOOST_TEST(from_pack.find_id(zstd::dictionary_id(dictionaries().pack)) == from_pack.find("pack.zsdic"));
  fs::remove_all(dir);
}

BOOST_AUTO_TEST_SUITE_END()

// ---- Detection ----------------------------------------------------------------

BOOST_AUTO_TEST_SUITE(detection)

BOOST_AUTO_TEST_CASE(by_magic_first) {
  const ByteVec y = yaz0::compress(bytes_of("BAEV"));
  const ByteVec z = zstd::compress(bytes_of("BAEV"));
  auto g = binschema::detect_compression(y, "Demo344_1.sbeventpack");
  BOOST_TEST((g.layer == Compression::yaz0));
  BOOST_TEST(g.by_magic);
  BOOST_TEST(g.inner_name == "Demo344_1.beventpack");
  g = binschema::detect_compression(z, "x.baev.zs");
  BOOST_TEST((g.layer == Compression::zstd));
  BOOST_TEST(g.by_magic);
  BOOST_TEST(g.inner_name == "x.baev");
  // Magic beats a name that says otherwise; the name is kept as it is.
  g = binschema::detect_compression(y, "x.bin");
  BOOST_TEST((g.layer == Compression::yaz0));
  BOOST_TEST(g.inner_name == "x.bin");
  g = binschema::detect_compression(z, "");
  BOOST_TEST((g.layer == Compression::zstd));
  BOOST_TEST(g.inner_name == "");
  g = binschema::detect_compression(bytes_of("BAEV...."), "x.baev");
  BOOST_TEST((g.layer == Compression::none));
  BOOST_TEST(g.inner_name == "x.baev");
}

BOOST_AUTO_TEST_CASE(by_suffix_then) {
  struct Case {
    const char* name;
    Compression layer;
    const char* inner;
  } cases[] = {
      {"x.baev.zs", Compression::zstd, "x.baev"},
      {"X.BAEV.ZS", Compression::zstd, "X.BAEV"},
      {"Pack/Actor/A.pack.zs", Compression::zstd, "Pack/Actor/A.pack"},
      {"y.sbfres", Compression::yaz0, "y.bfres"},
      {"a.szs", Compression::yaz0, "a.sarc"},
      {"dir/ActorInfo.product.sbyml", Compression::yaz0, "dir/ActorInfo.product.byml"},
      {"Demo344_1.sbeventpack", Compression::yaz0, "Demo344_1.beventpack"},
      {"ResourceSizeTable.product.srsizetable", Compression::yaz0, "ResourceSizeTable.product.rsizetable"},
      {"0-0.shknm2", Compression::yaz0, "0-0.hknm2"},
      {"x.sarc", Compression::none, "x.sarc"},
      {"x.stera", Compression::none, "x.stera"},
      {"x.sh", Compression::none, "x.sh"},
      {"x.baev", Compression::none, "x.baev"},
      {"dir.sbyml/x", Compression::none, "dir.sbyml/x"},
      {".zs", Compression::none, ".zs"},
      {"", Compression::none, ""},
  };
  for (const Case& c : cases) {
    BOOST_TEST_CONTEXT(c.name) {
      const auto g = binschema::compression_for_name(c.name);
      BOOST_TEST(binschema::compression_name(g.layer) == binschema::compression_name(c.layer));
      BOOST_TEST(!g.by_magic);
      BOOST_TEST(g.inner_name == c.inner);
    }
  }
  // Bytes without a magic, named as compressed: the guess says it was the name.
  const auto g = binschema::detect_compression(bytes_of("BAEV...."), "x.baev.zs");
  BOOST_TEST((g.layer == Compression::zstd));
  BOOST_TEST(!g.by_magic);
}

BOOST_AUTO_TEST_CASE(layers_round_trip_through_one_interface) {
  const ByteVec data = repetitive(10000, 9);
  for (Compression c : {Compression::none, Compression::yaz0, Compression::zstd}) {
    BOOST_TEST_CONTEXT(binschema::compression_name(c)) {
      const ByteVec packed = binschema::compress(c, data, DictionarySet(), "x.bin");
      BOOST_TEST(std::string(binschema::compression_name(binschema::detect_compression(packed, "").layer)) ==
                 binschema::compression_name(c));
      BOOST_TEST((binschema::decompress(c, packed, DictionarySet(), "x.bin") == data));
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()

// ---- The CLI ------------------------------------------------------------------

namespace {

using binschema::test::kCli;
using binschema::test::q;
using Run = binschema::test::Result;

// A temporary directory the CLI runs in, with the TotK example encoded to
// BAEV and the made-up zs.zsdic beside it.
class CliDir : public binschema::test::Sandbox {
 public:
  CliDir() : Sandbox("binschema-compression-test") {
    write("zs.zsdic", dictionaries().zs);
    write("pack.zsdic", dictionaries().pack);
    const Run r = cli("encode " + q(std::string(BINSCHEMA_SOURCE_DIR) + "/examples/baev-totk.yaml") + " -o x.baev");
    BOOST_REQUIRE_MESSAGE(r.code == 0, r);
    baev = read("x.baev");
    const Run y = cli("decode x.baev -o x.yaml");
    BOOST_REQUIRE_MESSAGE(y.code == 0, y);
    yaml = read_text("x.yaml");
  }

  // `binschema ARGS` in this directory, BINSCHEMA_ZSDIC unset unless `env` sets it.
  Run cli(const std::string& args, const std::string& env = "") const {
    return sh("env -u BINSCHEMA_ZSDIC " + env + " " + kCli + " " + args);
  }

  ByteVec baev;      // the example, encoded
  std::string yaml;  // and decoded again
};

// One line on stderr, ending in a newline.
bool one_line(const std::string& err) { return !err.empty() && err.find('\n') == err.size() - 1; }

}  // namespace

BOOST_AUTO_TEST_SUITE(cli)

BOOST_AUTO_TEST_CASE(zstd_with_a_dictionary_both_ways) {
  CliDir d;
  // encode compresses because the output name asks for it, with the
  // dictionary its suffix names.
  Run r = d.cli("encode x.yaml -o Link.baev.zs --zsdic zs.zsdic --zsdic pack.zsdic");
  BOOST_REQUIRE_MESSAGE(r.code == 0, r);
  const ByteVec zs = d.read("Link.baev.zs");
  BOOST_TEST(std::memcmp(zs.data(), zstd::kMagic, 4) == 0);
  BOOST_TEST(zstd::frame_dictionary_id(zs) == zstd::dictionary_id(dictionaries().zs));
  BOOST_TEST((zstd::decompress(zs, dictionaries().zs) == d.baev));
  // decode takes the layer off, finds the format by the inner name, and
  // gives the same text as the plain file.
  r = d.cli("decode Link.baev.zs --zsdic zs.zsdic -o back.yaml");
  BOOST_REQUIRE_MESSAGE(r.code == 0, r);
  BOOST_TEST(d.read_text("back.yaml") == d.yaml);
  // The environment variable does the same as --zsdic.
  r = d.cli("decode Link.baev.zs -o env.yaml", "BINSCHEMA_ZSDIC=zs.zsdic");
  BOOST_REQUIRE_MESSAGE(r.code == 0, r);
  BOOST_TEST(d.read_text("env.yaml") == d.yaml);
  // info reads through the layer too.
  r = d.cli("info Link.baev.zs --zsdic zs.zsdic");
  BOOST_TEST(r.code == 0, r);
  BOOST_TEST(r.out.find("zstd") != std::string::npos, r.out);
}

BOOST_AUTO_TEST_CASE(missing_dictionary_is_one_line_naming_it) {
  CliDir d;
  BOOST_REQUIRE(d.cli("encode x.yaml -o Link.baev.zs --zsdic zs.zsdic").code == 0);
  Run r = d.cli("decode Link.baev.zs");
  BOOST_TEST(r.code == 1, r);
  BOOST_TEST(one_line(r.err), r.err);
  BOOST_TEST(r.err.find("Link.baev.zs: ") != std::string::npos, r.err);
  BOOST_TEST(r.err.find("'zs.zsdic'") != std::string::npos, r.err);
  BOOST_TEST(r.err.find("--zsdic") != std::string::npos, r.err);
  // The wrong dictionary is not a substitute.
  r = d.cli("decode Link.baev.zs --zsdic pack.zsdic");
  BOOST_TEST(r.code == 1, r);
  BOOST_TEST(r.err.find("'zs.zsdic'") != std::string::npos, r.err);
  // Writing a file whose dictionary is not among those given is refused, and
  // nothing is written.
  r = d.cli("encode x.yaml -o Other.baev.zs --zsdic pack.zsdic");
  BOOST_TEST(r.code == 1, r);
  BOOST_TEST(r.err.find("'zs.zsdic'") != std::string::npos, r.err);
  BOOST_TEST(!fs::exists(d.path("Other.baev.zs")));
  // No dictionary given at all: a plain zstd frame.
  r = d.cli("encode x.yaml -o Plain.baev.zs");
  BOOST_REQUIRE_MESSAGE(r.code == 0, r);
  BOOST_TEST(zstd::frame_dictionary_id(d.read("Plain.baev.zs")) == 0u);
  BOOST_TEST(d.cli("decode Plain.baev.zs -o plain.yaml").code == 0);
  BOOST_TEST(d.read_text("plain.yaml") == d.yaml);
}

BOOST_AUTO_TEST_CASE(yaz0_by_name_and_by_magic) {
  CliDir d;
  // `.sbaev`: a Yaz0-compressed `.baev`, as BotW names its files.
  Run r = d.cli("encode x.yaml -o x.sbaev");
  BOOST_REQUIRE_MESSAGE(r.code == 0, r);
  const ByteVec packed = d.read("x.sbaev");
  BOOST_TEST(std::memcmp(packed.data(), "Yaz0", 4) == 0);
  BOOST_TEST((yaz0::decompress(packed) == d.baev));
  r = d.cli("decode x.sbaev -o y.yaml");
  BOOST_REQUIRE_MESSAGE(r.code == 0, r);
  BOOST_TEST(d.read_text("y.yaml") == d.yaml);
  // By magic, whatever the name.
  d.write("anything.bin", packed);
  r = d.cli("decode anything.bin -o z.yaml");
  BOOST_REQUIRE_MESSAGE(r.code == 0, r);
  BOOST_TEST(d.read_text("z.yaml") == d.yaml);
  // Through stdin too.
  r = d.cli("decode - < x.sbaev");
  BOOST_TEST(r.code == 0, r);
  BOOST_TEST(r.out == d.yaml);
}

BOOST_AUTO_TEST_CASE(bad_layers_are_one_line_errors) {
  CliDir d;
  BOOST_REQUIRE(d.cli("encode x.yaml -o x.sbaev").code == 0);
  ByteVec cut = d.read("x.sbaev");
  cut.resize(cut.size() - 10);
  d.write("cut.sbaev", cut);
  Run r = d.cli("decode cut.sbaev -o out.yaml");
  BOOST_TEST(r.code == 1, r);
  BOOST_TEST(one_line(r.err), r.err);
  BOOST_TEST(r.err.find("cut.sbaev: Yaz0: the stream ends at") != std::string::npos, r.err);
  BOOST_TEST(!fs::exists(d.path("out.yaml")));
  // Named as zstd but neither zstd nor any format's magic.
  d.write("junk.baev.zs", bytes_of("not compressed at all"));
  r = d.cli("decode junk.baev.zs");
  BOOST_TEST(r.code == 1, r);
  BOOST_TEST(one_line(r.err), r.err);
  BOOST_TEST(r.err.find("zstd") != std::string::npos, r.err);
  // Named as zstd but really a plain BAEV (its magic says so): read as is.
  d.write("plain.baev.zs", d.baev);
  r = d.cli("decode plain.baev.zs");
  BOOST_TEST(r.code == 0, r);
  BOOST_TEST(r.out == d.yaml);
  // A header that claims far more than the data can hold.
  d.write("huge.sbaev", yaz0_stream(0x30000000u, {0xff, 'B', 'A', 'E', 'V', 0, 0, 0, 0}));
  r = d.cli("decode huge.sbaev");
  BOOST_TEST(r.code == 1, r);
  BOOST_TEST(r.err.find("cannot come from") != std::string::npos, r.err);
}

BOOST_AUTO_TEST_CASE(dictionary_sources_on_the_command_line) {
  CliDir d;
  BOOST_REQUIRE(d.cli("encode x.yaml -o Link.baev.zs --zsdic zs.zsdic").code == 0);
  // A missing --zsdic file is the command's problem: exit 2, naming it.
  Run r = d.cli("decode Link.baev.zs --zsdic nowhere.zsdic");
  BOOST_TEST(r.code == 2, r);
  BOOST_TEST(one_line(r.err), r.err);
  BOOST_TEST(r.err.find("nowhere.zsdic") != std::string::npos, r.err);
  r = d.cli("decode Link.baev.zs", "BINSCHEMA_ZSDIC=nowhere.zsdic");
  BOOST_TEST(r.code == 2, r);
  BOOST_TEST(r.err.find("BINSCHEMA_ZSDIC: nowhere.zsdic") != std::string::npos, r.err);
  // --romfs needs Pack/ZsDic.pack.zs.
  fs::create_directories(d.path("romfs/Pack"));
  r = d.cli("decode Link.baev.zs --romfs romfs");
  BOOST_TEST(r.code == 2, r);
  BOOST_TEST(one_line(r.err), r.err);
  BOOST_TEST(r.err.find("romfs: has no Pack/ZsDic.pack.zs") != std::string::npos, r.err);
  // Dictionaries are read only when a zstd frame needs one: a plain file,
  // and a zstd file without a dictionary, decode whatever --romfs says.
  r = d.cli("decode x.baev --romfs romfs -o plain.yaml");
  BOOST_TEST(r.code == 0, r);
  BOOST_REQUIRE(d.cli("encode x.yaml -o Plain.baev.zs").code == 0);
  r = d.cli("decode Plain.baev.zs --romfs romfs -o plain2.yaml");
  BOOST_TEST(r.code == 0, r);
  BOOST_TEST(d.read_text("plain2.yaml") == d.yaml);
}

BOOST_AUTO_TEST_CASE(batches_go_through_the_layers) {
  CliDir d;
  fs::create_directories(d.path("in"));
  BOOST_REQUIRE(d.cli("encode x.yaml -o in/a.baev.zs --zsdic zs.zsdic").code == 0);
  BOOST_REQUIRE(d.cli("encode x.yaml -o in/b.sbaev").code == 0);
  d.write("in/c.baev", d.baev);
  Run r = d.cli("decode in --out-dir text -j 2 --zsdic zs.zsdic");
  BOOST_TEST(r.code == 0, r);
  for (const char* name : {"text/a.baev.zs.yaml", "text/b.sbaev.yaml", "text/c.baev.yaml"})
    BOOST_TEST_CONTEXT(name) { BOOST_TEST(d.read_text(name) == d.yaml); }
  // And back: each output compressed as its name asks.
  r = d.cli("encode text --out-dir back -j 2 --zsdic zs.zsdic");
  BOOST_TEST(r.code == 0, r);
  BOOST_TEST(zstd::frame_dictionary_id(d.read("back/a.baev.zs")) == zstd::dictionary_id(dictionaries().zs));
  BOOST_TEST((zstd::decompress(d.read("back/a.baev.zs"), dictionaries().zs) == d.baev));
  BOOST_TEST((yaz0::decompress(d.read("back/b.sbaev")) == d.baev));
  BOOST_TEST((d.read("back/c.baev") == d.baev));
  // Without the dictionary, that one file fails and names it; the rest go on.
  r = d.cli("decode in --out-dir text2");
  BOOST_TEST(r.code == 1, r);
  BOOST_TEST(r.err.find("a.baev.zs: zstd: the frame needs the dictionary 'zs.zsdic'") != std::string::npos, r.err);
  BOOST_TEST(fs::exists(d.path("text2/b.sbaev.yaml")));
  BOOST_TEST(!fs::exists(d.path("text2/a.baev.zs.yaml")));
}

BOOST_AUTO_TEST_SUITE_END()
