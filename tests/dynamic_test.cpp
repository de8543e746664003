// The run-time engine (binschema/dynamic.h) against the generated code: for
// every shipped schema and test schema, on every sample (and the members of
// the sample archives), every example and a set of corrupted inputs, the
// engine's YAML and JSON are the generated code's byte for byte, and where
// the generated decode refuses a file the engine refuses it with the same
// message (offset and field path).
#define BOOST_TEST_MODULE dynamic_test
#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <fstream>
#include <deque>
#include <functional>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <thread>
#include <utility>

#include "binschema/compression.h"
#include "binschema/dynamic.h"
#include "binschema/format.h"
#include "binschema/hash.h"
#include "binschema/layout.h"
#include "binschema/text.h"
#include "binschema/schema.h"
#include "samples.h"
#include "sandbox.h"

#include "aamp_text.h"
#include "al_text.h"
#include "asb_text.h"
#include "baev_text.h"
#include "bfevfl_text.h"
#include "bools_sizes_text.h"
#include "byml_text.h"
#include "edges_text.h"
#include "evnt_text.h"
#include "feats_text.h"
#include "maps_text.h"
#include "recursion_text.h"
#include "sarc_text.h"
#include "shapes_text.h"
#include "share_equal_text.h"
#include "shared_text.h"
#include "tiny_text.h"

namespace fs = std::filesystem;
using binschema::TextKind;
namespace dyn = binschema::dynamic;

namespace {

// One format both ways: the generated decode + to_text (no layout; and with
// the file's layout, decode(bytes, layout), which refuses a file that would
// not come back), and the generated from_text + encode (to make inputs from
// examples).
struct Gen {
  std::string name, schema;
  std::function<std::string(std::span<const uint8_t>, TextKind)> text;
  std::function<std::string(std::span<const uint8_t>, TextKind)> laid_text;
  std::function<std::vector<uint8_t>(const std::string&)> encode_text;
  std::function<std::vector<uint8_t>()> encode_default;
};

#define BINSCHEMA_GEN_FORMAT(ns, path)                                                                          \
  Gen {                                                                                                         \
    #ns, std::string(BINSCHEMA_SOURCE_DIR) + "/" + path,                                                        \
        [](std::span<const uint8_t> b, TextKind k) { return binschema::ns::to_text(binschema::ns::decode(b), k); }, \
        [](std::span<const uint8_t> b, TextKind k) {                                                            \
          binschema::Layout l;                                                                                  \
          const auto m = binschema::ns::decode(b, l);                                                           \
          return binschema::ns::to_text(m, k, &l);                                                              \
        },                                                                                                      \
        [](const std::string& t) { return binschema::ns::encode(binschema::ns::from_text(t)); },                  \
        [] { return binschema::ns::encode(decltype(binschema::ns::from_text(std::string_view())){}); }           \
  }

const std::vector<Gen>& all_formats() {
  static const std::vector<Gen> all{
      BINSCHEMA_GEN_FORMAT(aamp, "schemas/aamp.yaml"),
      BINSCHEMA_GEN_FORMAT(al, "schemas/al.yaml"),
      BINSCHEMA_GEN_FORMAT(asb, "schemas/asb.yaml"),
      BINSCHEMA_GEN_FORMAT(baev, "schemas/baev.yaml"),
      BINSCHEMA_GEN_FORMAT(bfevfl, "schemas/bfevfl.yaml"),
      BINSCHEMA_GEN_FORMAT(byml, "schemas/byml.yaml"),
      BINSCHEMA_GEN_FORMAT(evnt, "schemas/evnt.yaml"),
      BINSCHEMA_GEN_FORMAT(sarc, "schemas/sarc.yaml"),
      BINSCHEMA_GEN_FORMAT(tiny, "tests/schemas/tiny.yaml"),
      BINSCHEMA_GEN_FORMAT(shapes, "tests/schemas/shapes.yaml"),
      BINSCHEMA_GEN_FORMAT(feats, "tests/schemas/feats.yaml"),
      BINSCHEMA_GEN_FORMAT(edges, "tests/schemas/edges.yaml"),
      BINSCHEMA_GEN_FORMAT(maps, "tests/schemas/maps.yaml"),
      BINSCHEMA_GEN_FORMAT(recursion, "tests/schemas/recursion.yaml"),
      BINSCHEMA_GEN_FORMAT(bools_sizes, "tests/schemas/bools_sizes.yaml"),
      BINSCHEMA_GEN_FORMAT(shared, "tests/schemas/shared.yaml"),
      BINSCHEMA_GEN_FORMAT(share_equal, "tests/schemas/share_equal.yaml"),
  };
  return all;
}

// The schemas whose form the engine does not do yet, refused at load
// (every_schema_loads_or_is_refused): none since issue 27 (every shipped
// and test schema loads and is compared).
const std::set<std::string>& refused() {
  static const std::set<std::string> r{};
  return r;
}

// The others, compared with the generated code below.
const std::vector<Gen>& formats() {
  static const std::vector<Gen> some = [] {
    std::vector<Gen> v;
    for (const auto& g : all_formats())
      if (!refused().contains(g.name)) v.push_back(g);
    return v;
  }();
  return some;
}

const dyn::Schema& loaded(const Gen& g) {
  static std::map<std::string, dyn::Schema> cache;
  auto it = cache.find(g.name);
  if (it == cache.end()) it = cache.emplace(g.name, dyn::Schema::load(g.schema)).first;
  return it->second;
}

// "ok" + the text, or "error: " + what() (and the offset of a DecodeError).
std::string run(const std::function<std::string()>& f) {
  try {
    return "ok\n" + f();
  } catch (const binschema::DecodeError& e) {
    return "error at " + binschema::hex(e.offset()) + ": " + e.what();
  } catch (const std::exception& e) {
    return std::string("other error: ") + e.what();
  }
}

struct Tally {
  size_t texts = 0, errors = 0;
};

// Both decoders on one input, in both text kinds: the same text or the same error.
// With `laid`, also decode(bytes, layout) and the text with its layout (not
// for a schema whose writing the engine refuses, BFEVFL's hooks: its
// decode(bytes, layout) keeps no layout, as fuzz_dynamic compares it).
void compare(const Gen& g, std::span<const uint8_t> bytes, const std::string& what, Tally& t, bool laid = false) {
  const dyn::Schema& s = loaded(g);
  laid = laid && s.encode_refusal().empty();
  for (int pass = 0; pass < (laid ? 4 : 2); ++pass) {
    const TextKind k = pass % 2 ? TextKind::Json : TextKind::Yaml;
    const bool with_layout = pass >= 2;
    const std::string want = run([&] { return with_layout ? g.laid_text(bytes, k) : g.text(bytes, k); });
    const std::string got = run([&] {
      if (!with_layout) return s.to_text(s.decode(bytes), k);
      binschema::Layout l;
      const dyn::Value v = s.decode(bytes, l);
      return s.to_text(v, k, &l);
    });
    if (want != got) {
      // The first line that differs, not two whole documents.
      std::istringstream a(want), b(got);
      std::string la, lb;
      size_t line = 0;
      while (true) {
        ++line;
        const bool ma = bool(std::getline(a, la)), mb = bool(std::getline(b, lb));
        if (la != lb || !ma || !mb) break;
      }
      BOOST_ERROR(g.name << " on " << what << (k == TextKind::Json ? " (JSON" : " (YAML")
                         << (with_layout ? ", with the file's layout)" : ")") << ": line " << line
                         << " differs:\n  generated: " << la << "\n  run time:  " << lb);
      return;
    }
    if (want.starts_with("ok")) ++t.texts;
    else ++t.errors;
  }
}

std::vector<uint8_t> read_file(const fs::path& p) { return samples::read(p); }

bool starts(std::span<const uint8_t> b, std::string_view m) {
  return b.size() >= m.size() && std::equal(m.begin(), m.end(), b.begin(), [](char c, uint8_t x) { return uint8_t(c) == x; });
}

// Every sample file (Yaz0 unpacked), and every member of the sample archives.
std::vector<std::pair<std::string, std::vector<uint8_t>>> sample_inputs() {
  std::vector<std::pair<std::string, std::vector<uint8_t>>> out;
  for (const char* sub : {"aamp", "byml", "bfevfl", "sarc", "yaz0"})
    for (const auto& p : samples::files(sub)) {
      std::vector<uint8_t> b = read_file(p);
      if (starts(b, "Yaz0")) b = binschema::yaz0::decompress(b);
      out.emplace_back(p.filename().string(), b);
    }
  const size_t n = out.size();
  for (size_t i = 0; i < n; ++i) {
    if (!starts(out[i].second, "SARC")) continue;
    binschema::sarc::Sarc a;
    try {
      a = binschema::sarc::decode(out[i].second);
    } catch (const std::exception&) {
      continue;
    }
    size_t k = 0;
    for (const auto& node : a.nodes) {
      std::vector<uint8_t> b = node.data.data;
      if (starts(b, "Yaz0")) {
        try {
          b = binschema::yaz0::decompress(b);
        } catch (const std::exception&) {
          continue;
        }
      }
      out.emplace_back(out[i].first + ":" + (node.attributes.name.empty() ? std::to_string(k) : node.attributes.name), std::move(b));
      ++k;
    }
  }
  return out;
}

const Gen* by_name(const std::string& n) {
  for (const auto& g : formats())
    if (g.name == n) return &g;
  return nullptr;
}

// The format whose magic the bytes start with (the shipped ones).
const Gen* detect(std::span<const uint8_t> b) {
  const binschema::Format* f = binschema::detect_format(b, "");
  return f ? by_name(f->name) : nullptr;
}

}  // namespace

BOOST_AUTO_TEST_CASE(every_schema_loads_or_is_refused) {
  for (const auto& g : all_formats()) {
    BOOST_TEST_CONTEXT(g.name) {
      if (!refused().contains(g.name)) {
        const dyn::Schema s = dyn::Schema::load(g.schema);
        BOOST_TEST(s.name() == g.name);
        continue;
      }
      // Never other text than the generated code's: refused at the key, file:line:col.
      std::string msg;
      try {
        (void)dyn::Schema::load(g.schema);
      } catch (const binschema::gen::SchemaError& e) {
        msg = e.what();
      }
      BOOST_TEST(std::regex_search(msg, std::regex("^" + std::regex_replace(g.schema, std::regex(R"([.^$|()\[\]{}*+?\\])"), R"(\$&)") + R"(:\d+:\d+: .*: the run-time engine does not support .+ yet)")), msg);
    }
  }
  // hash_of: and the string tables load (issue 27: the engine does them).
  BOOST_CHECK_NO_THROW((void)dyn::Schema::load_text(R"(format: m
endian: little
root: Top
types:
  Top:
    fields:
      - {name: n, type: u32}
      - {name: h, type: u32, hash_of: crc32}
)", "m.yaml"));
  // What the engine's text does (map:, unwrap:, bare:, if:, composite keys) loads.
  BOOST_CHECK_NO_THROW((void)dyn::Schema::load_text(R"(format: m
endian: little
root: Top
types:
  Top:
    fields:
      - {name: n, type: u32}
      - {name: items, type: "E[]", count: n, map: key}
  E:
    fields:
      - {name: key, type: "char[4]"}
      - {name: v, type: u32}
)", "m.yaml"));
}

BOOST_AUTO_TEST_CASE(samples_and_archive_members_give_the_generated_text) {
  Tally t;
  size_t matched = 0;
  for (const auto& [name, bytes] : sample_inputs()) {
    const Gen* g = detect(bytes);
    if (!g) continue;
    ++matched;
    compare(*g, bytes, name, t);
  }
  BOOST_TEST_MESSAGE("samples: " << matched << " files, " << t.texts << " texts, " << t.errors << " errors compared");
  // binschema info's lines (format, version, size, structs by type).
  size_t infos = 0;
  for (const auto& [name, bytes] : sample_inputs()) {
    const binschema::Format* f = binschema::detect_format(bytes, "");
    const Gen* g = f ? by_name(f->name) : nullptr;
    if (!g) continue;
    std::vector<std::pair<std::string, std::string>> want, got;
    try {
      want = f->info(bytes);
    } catch (const std::exception&) {
      continue;
    }
    got = loaded(*g).info(bytes);
    BOOST_TEST((got == want), g->name << " info on " << name);
    ++infos;
  }
  BOOST_TEST(infos >= 4u);
  BOOST_TEST(matched >= 4u);
  BOOST_TEST(t.texts >= 8u);
}

BOOST_AUTO_TEST_CASE(examples_give_the_generated_text) {
  Tally t;
  size_t n = 0;
  for (const auto& e : fs::directory_iterator(fs::path(BINSCHEMA_SOURCE_DIR) / "examples")) {
    if (e.path().extension() != ".yaml") continue;
    const std::string stem = e.path().stem().string();
    const Gen* g = by_name(stem.substr(0, stem.find('-')));
    if (!g && refused().contains(stem.substr(0, stem.find('-')))) continue;
    BOOST_REQUIRE_MESSAGE(g, "no format for example " << stem);
    std::ifstream in(e.path());
    const std::string text((std::istreambuf_iterator<char>(in)), {});
    const std::vector<uint8_t> bytes = g->encode_text(text);
    compare(*g, bytes, e.path().filename().string(), t);
    ++n;
  }
  BOOST_TEST(n >= 1u);
  BOOST_TEST(t.texts == 2 * n);
}

BOOST_AUTO_TEST_CASE(default_models_of_every_schema_give_the_generated_text) {
  Tally t;
  for (const auto& g : formats()) {
    std::vector<uint8_t> bytes;
    try {
      bytes = g.encode_default();
    } catch (const std::exception&) {
      continue;  // a model the writer refuses (a count that must not be 0, say)
    }
    compare(g, bytes, "the default model", t);
  }
  BOOST_TEST(t.texts >= 10u);
}

// Truncated files and flipped bytes: the same text, or the same error.
BOOST_AUTO_TEST_CASE(corrupted_inputs_give_the_generated_errors) {
  Tally t;
  std::vector<std::pair<std::string, std::vector<uint8_t>>> inputs = sample_inputs();
  for (const auto& e : fs::directory_iterator(fs::path(BINSCHEMA_SOURCE_DIR) / "examples")) {
    if (e.path().extension() != ".yaml") continue;
    const std::string stem = e.path().stem().string();
    std::ifstream in(e.path());
    const std::string text((std::istreambuf_iterator<char>(in)), {});
    const Gen* g = by_name(stem.substr(0, stem.find('-')));
    if (g) inputs.emplace_back(e.path().filename().string(), g->encode_text(text));
  }
  uint32_t seed = 12345;
  auto rnd = [&] {
    seed = seed * 1103515245u + 12345u;
    return seed >> 8;
  };
  for (const auto& [name, bytes] : inputs) {
    const Gen* g = detect(bytes);
    if (!g || bytes.size() < 8 || bytes.size() > (1u << 20)) continue;
    for (size_t cut : {bytes.size() / 2, bytes.size() - 1, size_t(bytes.size() * 0.9), size_t(16)}) {
      const std::vector<uint8_t> b(bytes.begin(), bytes.begin() + std::min(cut, bytes.size()));
      compare(*g, b, name + " cut at " + std::to_string(cut), t);
    }
    for (int k = 0; k < 24; ++k) {
      std::vector<uint8_t> b = bytes;
      const size_t at = rnd() % std::min<size_t>(b.size(), k < 12 ? 0x100 : b.size());
      b[at] ^= static_cast<uint8_t>(1u << (rnd() % 8));
      if (k % 3 == 0) b[at] = static_cast<uint8_t>(rnd());
      compare(*g, b, name + " with byte " + binschema::hex(at) + " changed", t);
    }
  }
  BOOST_TEST_MESSAGE("corrupted: " << t.texts << " texts, " << t.errors << " errors compared");
  BOOST_TEST(t.errors >= 100u);
}

// The files the fuzzers found (tests/fuzzer/regressions/<format>/, and the
// differences between the engine and the generated code that fuzz_dynamic
// found, tests/fuzzer/differential/<format>/): the same text or the same
// error, decoded fresh and with the file's layout. The first of the latter: a
// ternary count (`child_count != 0 ? child_count - 1 : 0`) whose branch not
// taken the engine evaluated, and refused, where the generated code reads on
// to another node's error. The second: an AL with a NaN and trailing bytes
// that the generated decode(bytes, layout) refused (its writer compared
// models with ==, where the NaN is not equal to itself) and the engine gave
// back. The third: AAMP files with a value stored inside another one, whose
// block the shared writer remembered where it first wrote it, and a -0.0
// that the generated code's float == took for that 0.0
// (tests/fuzzer/differential/README.md).
BOOST_AUTO_TEST_CASE(fuzz_found_inputs_give_the_generated_text_or_errors) {
  Tally t;
  size_t n = 0;
  for (const char* dir : {"regressions", "differential"})
  for (const auto& d : fs::directory_iterator(fs::path(BINSCHEMA_SOURCE_DIR) / "tests" / "fuzzer" / dir)) {
    const Gen* g = by_name(d.path().filename().string());
    if (!d.is_directory() || !g) continue;
    for (const auto& e : fs::directory_iterator(d.path())) {
      if (e.path().extension() == ".md") continue;
      std::ifstream in(e.path(), std::ios::binary);
      const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), {});
      compare(*g, bytes, e.path().filename().string(), t, true);
      ++n;
    }
  }
  BOOST_TEST_MESSAGE("fuzz-found inputs: " << n << " files, " << t.texts << " texts, " << t.errors << " errors compared");
  BOOST_TEST(n >= 5u);
  BOOST_TEST(t.errors >= 1u);
}

// Every format on every sample: most refuse it at once (a magic, a version);
// the messages must agree there too.
BOOST_AUTO_TEST_CASE(every_format_on_every_sample_agrees) {
  Tally t;
  for (const auto& [name, bytes] : sample_inputs())
    for (const auto& g : formats())
      if (bytes.size() <= (1u << 20)) compare(g, bytes, name, t);
  BOOST_TEST(t.errors >= 100u);
}

// tests/schemas/maps.yaml (the text's shape: map:, unwrap:, if: fields left
// out): models of each shape through the generated encode, then both
// decoders' text; and texts each reader must refuse, with the same message.
BOOST_AUTO_TEST_CASE(maps_shapes_give_the_generated_text_and_errors) {
  namespace m = binschema::maps;
  const Gen& g = *by_name("maps");
  auto model = [](uint16_t version) {
    m::File f;
    f.version = version;
    f.items = {m::Item{"sword", 3, 1, version >= 2 ? 7u : 0u}, m::Item{"shield", 5, 2, version >= 2 ? 8u : 0u},
               m::Item{"Arrow Bundle", 1, 20, 0}};
    f.points = {m::Point{1, 1.5f}, m::Point{0xabc, -2.0f}};
    f.paints = {m::Paint{0, 0.5f}, m::Paint{2, 0.25f}};
    f.values.resize(2);
    f.values[0].emplace<m::File::Values::Case::word>(m::WordValue{5, 9});
    f.values[1].emplace<m::File::Values::Case::pair>(m::PairValue{12, 1, 2});
    f.list.values = {1, 2, 3};
    f.big.value = 12345678901234ull;
    return f;
  };
  std::vector<std::pair<std::string, m::File>> models;
  for (uint16_t v : {1, 2, 3}) models.emplace_back("version " + std::to_string(v), model(v));
  models.emplace_back("extra (flags & 1)", model(3));
  models.back().second.flags = 1;
  models.back().second.extra = 0xdead;
  models.emplace_back("a name twice (a list)", model(2));
  models.back().second.items[1].name = "sword";
  models.emplace_back("a name not UTF-8 (a list)", model(2));
  models.back().second.items[2].name = "\xff\xfe";
  models.emplace_back("an unnamed colour (a number key)", model(2));
  models.back().second.paints[1].colour = 7;
  models.emplace_back("a key twice among union cases (a list)", model(2));
  std::get<1>(models.back().second.values[1]).key = 5;
  models.emplace_back("long entries (block style)", model(2));
  for (int i = 0; i < 12; ++i) models.back().second.points.push_back(m::Point{uint32_t(0x100 + i), float(i)});
  models.emplace_back("empty", m::File{});
  models.back().second.version = 1;
  Tally t;
  const dyn::Schema& s = loaded(g);
  for (const auto& [what, f] : models) {
    const std::vector<uint8_t> bytes = m::encode(f);
    compare(g, bytes, what, t);
    // Text in: the engine reads the generated text back into the value it decodes.
    for (TextKind k : {TextKind::Yaml, TextKind::Json}) {
      const dyn::Value v = s.decode(bytes);
      BOOST_TEST((s.from_text(m::to_text(m::decode(bytes), k)) == v), what);
    }
  }
  BOOST_TEST(t.texts == 2 * models.size());
  // Texts the readers refuse: the same message (line:col and path) from both.
  const std::string good = m::to_text(m::decode(m::encode(model(2))), TextKind::Yaml);
  auto edit = [&](const std::string& from, const std::string& to) {
    std::string x = good;
    const size_t at = x.find(from);
    BOOST_REQUIRE_MESSAGE(at != std::string::npos, from);
    return x.replace(at, from.size(), to);
  };
  size_t refused = 0;
  for (const auto& [what, text] : std::vector<std::pair<std::string, std::string>>{
           {"a key twice", edit("  shield:", "  sword:")},
           {"the key among the entry's fields", edit("    weight: 5", "    name: x\n    weight: 5")},
           {"if: given while false", edit("version: 2", "version: 1")},
           {"extra given while flags & 1 is 0", edit("flags: 0", "flags: 0\nextra: 3")},
           {"a list for the map", edit("    weight: 3", "    - 3")},
           {"unknown case", edit("word:", "wordy:")},
           {"a map where a list (unwrap:)", edit("list: [1, 2, 3]", "list: {values: [1]}")},
           {"entries as a list (read)", edit("points: {0x00000001: 1.5, 0x00000abc: -2.0}", "points: [{id: 1, x: 1.5}]")},
       }) {
    std::string want, got;
    try {
      (void)m::from_text(text);
    } catch (const std::exception& e) {
      want = e.what();
    }
    try {
      (void)s.from_text(text);
    } catch (const std::exception& e) {
      got = e.what();
    }
    BOOST_TEST(got == want, what << "\n" << text);
    refused += !want.empty();
  }
  BOOST_TEST(refused >= 6u);
}

// BYML dictionaries whose text would read back as another case of the bare
// Node union (a key not UTF-8: the list fallback; the only key a tag): marked
// !!map (JSON {"!!map": ...}) by both, held as the root, an entry's value and
// an array element; the engine's text in and encode give the bytes back.
BOOST_AUTO_TEST_CASE(byml_dictionaries_read_as_another_case_are_marked_by_both) {
  namespace b = binschema::byml;
  auto int_entry = [](const std::string& key, int32_t v) {
    b::DictEntry e;
    e.key = key;
    e.value.emplace<b::DictEntry::Value::Case::int_>(v);
    return e;
  };
  const Gen& g = *by_name("byml");
  const dyn::Schema& s = loaded(g);
  Tally t;
  size_t marked = 0, n = 0;
  for (const std::vector<b::DictEntry>& d : std::vector<std::vector<b::DictEntry>>{
           {int_entry("\xff", 1)}, {int_entry("a", 1), int_entry("b\xfe", 2)}, {int_entry("!ul", 5)}, {int_entry("!nothing", 5)}, {int_entry("plain", 5)}}) {
    std::vector<b::Byml> docs(3);
    for (b::Byml& m : docs) {
      m.magic = "YB";
      m.version = 2;
      m.root.emplace();
    }
    docs[0].root->body.emplace<b::Node::Body::Case::dict>().entries = d;
    b::DictEntry inner;
    inner.key = "inner";
    inner.value.emplace<b::DictEntry::Value::Case::dict>().entries = d;
    docs[1].root->body.emplace<b::Node::Body::Case::dict>().entries = {inner};
    auto& items = docs[2].root->body.emplace<b::Node::Body::Case::array>().items;
    items.resize(2);
    items[0].emplace<b::ArrayBody::Items::Case::dict>().entries = d;
    items[1].emplace<b::ArrayBody::Items::Case::int_>(3);
    for (const b::Byml& doc : docs) {
      const std::vector<uint8_t> bytes = b::encode(doc);
      compare(g, bytes, "a BYML dictionary", t);
      for (TextKind k : {TextKind::Yaml, TextKind::Json}) {
        const std::string text = s.to_text(s.decode(bytes), k);
        marked += text.find("!!map") != std::string::npos;
        BOOST_TEST((s.encode(s.from_text(text)) == bytes), text);
        ++n;
      }
    }
  }
  BOOST_TEST(t.texts == n);
  BOOST_TEST(marked == 24u);  // all but the plain key's 6 texts
}

// Values through the C++ API: a path into the value, an edit shown in the text.
BOOST_AUTO_TEST_CASE(value_paths_and_edits) {
  const Gen& g = *by_name("sarc");
  std::ifstream in(fs::path(BINSCHEMA_SOURCE_DIR) / "examples" / "sarc-two-files.yaml");
  const std::string text((std::istreambuf_iterator<char>(in)), {});
  const std::vector<uint8_t> bytes = g.encode_text(text);
  const dyn::Schema& s = loaded(g);
  dyn::Value v = s.decode(bytes);
  BOOST_TEST((v.kind == dyn::Value::Kind::Struct));
  BOOST_TEST(s.to_text(v, TextKind::Yaml) == g.text(bytes, TextKind::Yaml));
  BOOST_CHECK_THROW(v.at_path("no_such_field"), std::out_of_range);
}

// Field names are interned (in a struct's Shape, dynamic::intern): a decoded
// value's names are the interned ones, a name given to add() outlives its
// string, and a value built by hand with names of its own takes the same
// shapes, is equal, and encodes to the same bytes.
// The compact value (16 bytes: kind, width, a union's case id, and the
// number or one pointer) stays a plain value type: deep copies, moves, ==
// on contents (a struct's names and values), a struct's shape shared by
// copies and not changed by add() on one of them, the accessors of a kind
// without a string or list, and the kind first: a writer of one kind's
// contents on a value of another refused.
BOOST_AUTO_TEST_CASE(compact_value_is_a_plain_value_type) {
  static_assert(sizeof(dyn::Value) == 16);
  dyn::Value s = dyn::Value::struct_();
  s.add("name", dyn::Value::string("a name longer than a short string buffer"));
  dyn::Value& list = s.add("list", dyn::Value::array());
  for (int i = 0; i < 9; ++i) list.items().push_back(dyn::Value::uint(static_cast<uint64_t>(i), 4));
  s.add("u", dyn::Value::union_("case_b", 2, dyn::Value::int_(-5, 2)));

  dyn::Value c = s;  // deep
  BOOST_TEST((c == s));
  // A struct's names are its shape, one per list of names: a copy shares it.
  const std::string_view names3[] = {"name", "list", "u"};
  BOOST_TEST(s.fields().shape() == dyn::Shape::of(names3));
  BOOST_TEST(c.fields().shape() == s.fields().shape());
  BOOST_TEST(s.fields().size() == 3u);
  {
    std::vector<std::string> seen;
    for (const auto& m : s.fields()) seen.emplace_back(m.name);
    BOOST_TEST((seen == std::vector<std::string>{"name", "list", "u"}));
    BOOST_TEST(s.fields()[1].value.items().size() == 9u);
    BOOST_TEST(&s.fields().at(2).value == s.find("u"));
    BOOST_CHECK_THROW(s.fields().at(3), std::out_of_range);
  }
  // add() on a struct sharing its shape gives it a shape of its own: the
  // other value keeps its names, and the shapes stay one per list of names.
  {
    dyn::Value e = s;
    e.add("extra", dyn::Value::uint(5, 1));
    BOOST_TEST(e.fields().size() == 4u);
    BOOST_TEST(e["extra"].as_uint() == 5u);
    BOOST_TEST(s.fields().size() == 3u);
    BOOST_TEST(s.find("extra") == nullptr);
    BOOST_TEST(s.fields().shape()->size() == 3u);
    BOOST_TEST(e.fields().shape() != s.fields().shape());
    BOOST_TEST(e.fields().shape() == s.fields().shape()->with("extra"));
    BOOST_TEST(e.fields().shape()->prefix(3) == s.fields().shape());
    BOOST_TEST(!(e == s));
    // Equal: the same names (in order) and the same values; a struct built
    // in another order, or with another name, is not.
    dyn::Value h = dyn::Value::struct_();
    for (const auto& m : s.fields()) h.add(std::string(m.name), m.value);
    BOOST_TEST((h == s));
    BOOST_TEST(h.fields().shape() == s.fields().shape());
    dyn::Value o = dyn::Value::struct_();
    o.add("list", s["list"]);
    o.add("name", s["name"]);
    o.add("u", s["u"]);
    BOOST_TEST(!(o == s));
    dyn::Value r = dyn::Value::struct_();
    r.add("name", s["name"]);
    r.add("list", s["list"]);
    r.add("v", s["u"]);
    BOOST_TEST(!(r == s));
    BOOST_TEST(r.find("u") == nullptr);
    // reset: the members of a shape, every one Absent.
    r.fields().reset(s.fields().shape());
    BOOST_TEST(r.fields().shape() == s.fields().shape());
    BOOST_TEST(r["u"].is_absent());
    BOOST_TEST(r["name"].is_absent());
  }
  c["list"][8].set_uint(80);
  c["name"].str() += "!";
  BOOST_TEST(s["list"][8].as_uint() == 8u);
  BOOST_TEST(s["name"].str() == "a name longer than a short string buffer");
  BOOST_TEST(!(c == s));
  c = s;  // copy assignment over a value holding blocks
  BOOST_TEST((c == s));
  BOOST_TEST(c.at_path("u.case_b").as_int() == -5);
  BOOST_TEST(c.at_path("u").case_name() == "case_b");
  BOOST_TEST(std::as_const(c).at_path("u").str().empty());  // a union's case name is no text of its own
  BOOST_CHECK_THROW(c.at_path("u").str(), std::logic_error);  // nor can it be given one
  BOOST_TEST(c.at_path("list[3]").as_uint() == 3u);

  dyn::Value m = std::move(c);
  BOOST_TEST((m == s));
  BOOST_TEST(c.fields().empty());  // moved from: holds nothing
  m = m;                            // self-assignment keeps it
  BOOST_TEST((m == s));

  // A scalar has no string or list: the const accessors give empty ones.
  const dyn::Value n = dyn::Value::uint(7, 1);
  BOOST_TEST(n.str().empty());
  BOOST_TEST(n.fields().empty());
  BOOST_TEST(n.items().empty());
  BOOST_TEST(n.find("x") == nullptr);
  // An empty string equals one whose (empty) text was touched.
  dyn::Value e1 = dyn::Value::string(""), e2 = dyn::Value::string("x");
  e2.str().clear();
  BOOST_TEST((e1 == e2));
  BOOST_TEST(!(e1 == dyn::Value::string("y")));
  // Lists: sized once, grown, shrunk; an empty one of the other type taken over.
  dyn::Value a = dyn::Value::array();
  a.items().resize(0);
  BOOST_TEST(a.items().empty());
  a.items().assign(3, dyn::Value::uint(1, 1));
  a.items().resize(5);
  BOOST_TEST(a.items().size() == 5u);
  BOOST_TEST(a.items()[4].is_absent());
  a.items().resize(2);
  BOOST_TEST(a.items().size() == 2u);
  BOOST_CHECK_THROW(a.fields().add("x", {}), std::logic_error);
  BOOST_CHECK_THROW(a.items().at(2), std::out_of_range);
  // The kind comes first: an Absent value takes the kind of the first
  // writer (of items(): an Array, of fields() or add(): a Struct, str(): a
  // String); a writer of another kind's contents is refused and leaves the
  // value as it was; a reader or a look-up changes no kind.
  dyn::Value t;
  t.items().reserve(8);
  BOOST_TEST((t.kind == dyn::Value::Kind::Array));
  for (int i = 0; i < 8; ++i) t.items().push_back(dyn::Value::uint(static_cast<uint64_t>(i), 8));
  BOOST_CHECK_THROW(t.str(), std::logic_error);
  BOOST_CHECK_THROW(t.add("x", {}), std::logic_error);
  BOOST_TEST(t.items().size() == 8u);
  BOOST_TEST(std::as_const(t).str().empty());
  dyn::Value f;
  f.add("f0", dyn::Value::uint(0, 1));
  BOOST_TEST((f.kind == dyn::Value::Kind::Struct));
  BOOST_TEST(f.items().empty());
  BOOST_CHECK_THROW(f.items().push_back({}), std::logic_error);
  BOOST_CHECK_THROW(f.items().resize(1), std::logic_error);
  BOOST_CHECK_THROW(f[0], std::out_of_range);  // a look-up: no kind taken, none refused
  dyn::Value g;
  BOOST_CHECK_THROW(g.at_path("x[0]"), std::out_of_range);
  BOOST_CHECK_THROW(g["x"], std::out_of_range);
  BOOST_TEST(g.find("x") == nullptr);
  BOOST_TEST(g.is_absent());
  g.str() = "a string, longer than a short string buffer";
  BOOST_TEST((g.kind == dyn::Value::Kind::String));
  BOOST_CHECK_THROW(g.items().reserve(1), std::logic_error);
  BOOST_CHECK_THROW(g.fields().reset(dyn::Shape::empty()), std::logic_error);
  BOOST_TEST(g.str() == "a string, longer than a short string buffer");
  dyn::Value num = dyn::Value::uint(7, 4);
  BOOST_CHECK_THROW(num.str(), std::logic_error);
  BOOST_TEST(num.fields().empty());
  BOOST_TEST(num.items().empty());
  for (const auto& x : num.items()) BOOST_TEST(x.is_absent());  // (none)
  BOOST_CHECK_THROW(num.fields().add("x", {}), std::logic_error);
  BOOST_CHECK_THROW(num.items().assign(2, {}), std::logic_error);
  BOOST_CHECK_THROW(num.items().emplace_back(), std::logic_error);
  BOOST_CHECK_THROW(num.set_tag(1), std::logic_error);
  BOOST_TEST(num.as_uint() == 7u);
  // Bytes are written through str() too.
  dyn::Value by = dyn::Value::bytes("");
  by.str() = "ab";
  BOOST_TEST((by.kind == dyn::Value::Kind::Bytes));
  BOOST_TEST((by == dyn::Value::bytes("ab")));
  BOOST_TEST(dyn::Value::union_(std::string("case_b"), 2, {}).case_name() == "case_b");
}

// A number set on a value that holds a block (a struct, an array, a
// string, a union: the 16-byte Value's slot is then the block's pointer)
// frees the block and makes the value that number: the chunks of a thread
// that built such values are all freed once the values are numbers (a
// block left behind would keep its chunk: live_chunks()).
BOOST_AUTO_TEST_CASE(numbers_set_on_values_that_hold_blocks_free_them) {
  const dyn::Value warm = dyn::Value::string("this thread has a chunk");
  const int64_t base = dyn::detail::live_chunks();
  std::vector<dyn::Value> vs(5);
  std::thread t([&vs] {
    for (size_t k = 0; k < vs.size(); ++k) {
      dyn::Value v = dyn::Value::struct_();
      dyn::Value& a = v.add("items", dyn::Value::array());
      for (int i = 0; i < 1500; ++i) a.items().push_back(dyn::Value::string("a string longer than a short one, " + std::to_string(i)));
      v.add("u", dyn::Value::union_("c", int64_t(1) << 40, dyn::Value::struct_()));
      vs[k] = std::move(v);
    }
  });
  t.join();
  BOOST_TEST(dyn::detail::live_chunks() >= base + 2);
  vs[0].set_uint(7);
  BOOST_TEST((vs[0].kind == dyn::Value::Kind::UInt));
  BOOST_TEST(vs[0].as_uint() == 7u);
  BOOST_TEST(vs[0].fields().empty());
  vs[1].set_int(-7);
  BOOST_TEST((vs[1].kind == dyn::Value::Kind::Int));
  BOOST_TEST(vs[1].as_int() == -7);
  for (dyn::Value& e : vs[2]["items"].items()) e.set_uint(1);  // strings
  vs[2]["u"].set_uint(2);                                       // a union
  vs[2]["items"].set_uint(3);                                   // an array of numbers
  BOOST_TEST(vs[2]["u"].as_uint() == 2u);
  BOOST_TEST(vs[2]["items"].as_uint() == 3u);
  vs[2].set_number(dyn::Value::Kind::Double, 8, 0x3ff0000000000000u);
  BOOST_TEST(vs[2].as_double() == 1.0);
  vs[3]["u"] = dyn::Value::uint(9, 1);
  vs[3].set_kind(dyn::Value::Kind::Bool);
  BOOST_TEST(!vs[3].as_bool());
  BOOST_CHECK_THROW(vs[3].str(), std::logic_error);  // a number has no text to write
  vs[4].set_kind(dyn::Value::Kind::Struct);          // its kind already: kept
  BOOST_TEST(vs[4].fields().size() == 2u);
  vs[4].set_kind(dyn::Value::Kind::Absent);
  BOOST_TEST(vs[4].is_absent());
  BOOST_TEST(dyn::detail::live_chunks() == base);
}

// A value's blocks come from per-thread chunks (value.cpp, docs/dynamic.md
// "Memory"): a chunk is freed when its last block is, whichever thread frees
// it and whether or not the thread that made it still runs; a block kept
// from a decode keeps its chunk and nothing more, and the values kept stay
// intact while other values are made and freed around them.
// List::assign_made, how the decoder makes an array of numbers: the old
// items go (strings with blocks among them), the new ones are made in one
// allocation, and a make() that throws leaves the ones made so far.
BOOST_AUTO_TEST_CASE(arrays_made_whole_replace_their_items) {
  dyn::Value a = dyn::Value::array();
  for (int i = 0; i < 3; ++i) a.items().push_back(dyn::Value::string("a string longer than a short string buffer " + std::to_string(i)));
  a.items().assign_made(5, [](size_t i) { return dyn::Value::uint(10 + i, 2); });
  BOOST_TEST(a.items().size() == 5u);
  for (size_t i = 0; i < 5; ++i) {
    BOOST_TEST((a.items()[i].kind == dyn::Value::Kind::UInt));
    BOOST_TEST(a.items()[i].as_uint() == 10 + i);
    BOOST_TEST(a.items()[i].width == 2);
    BOOST_TEST(!a.items()[i].holds_block());
  }
  dyn::Value b = dyn::Value::array();
  for (uint64_t i = 0; i < 5; ++i) b.items().push_back(dyn::Value::uint(10 + i, 2));
  BOOST_TEST((a == b));
  BOOST_CHECK_THROW(a.items().assign_made(4,
                                          [](size_t i) {
                                            if (i == 2) throw std::runtime_error("make");
                                            return dyn::Value::string(std::string(40, char('a' + i)));
                                          }),
                    std::runtime_error);
  BOOST_TEST(a.items().size() == 2u);
  BOOST_TEST(a.items()[1].str() == std::string(40, 'b'));
  a.items().assign_made(0, [](size_t) { return dyn::Value(); });
  BOOST_TEST(a.items().empty());
  dyn::Value fresh = dyn::Value::array();
  fresh.items().assign_made(0, [](size_t) { return dyn::Value(); });
  BOOST_TEST(!fresh.holds_block());
}

// Destroying a value frees every block of its tree (value.cpp release():
// one walk down with the frees counted per chunk): structs in arrays in
// structs, strings, bytes and unions (a tag block) at each level, with
// numbers between them. A block the walk misses keeps its chunk
// (live_chunks()); clear() of a struct's members or an array's items frees
// theirs and leaves the value itself.
BOOST_AUTO_TEST_CASE(destroying_a_tree_frees_all_of_its_blocks) {
  const dyn::Value warm = dyn::Value::string("this thread has a chunk");
  const int64_t base = dyn::detail::live_chunks();
  auto leaf = [](int i) {
    dyn::Value e = dyn::Value::struct_();
    e.add("n", dyn::Value::uint(static_cast<uint64_t>(i), 4));
    e.add("s", dyn::Value::string("a string longer than a short one, " + std::to_string(i)));
    e.add("m", dyn::Value::uint(7, 1));
    e.add("u", dyn::Value::union_("c", i, i % 2 ? dyn::Value::bytes(std::string(30, 'b')) : dyn::Value::uint(1, 1)));
    return e;
  };
  auto tree = [&leaf](int seed) {
    dyn::Value v = dyn::Value::struct_();
    v.add("x", dyn::Value::uint(1, 1));
    dyn::Value& a = v.add("groups", dyn::Value::array());
    for (int g = 0; g < 40; ++g) {
      dyn::Value grp = dyn::Value::struct_();
      grp.add("id", dyn::Value::uint(static_cast<uint64_t>(g), 2));
      dyn::Value& es = grp.add("elems", dyn::Value::array());
      for (int i = 0; i < 40; ++i) es.items().push_back(leaf(seed * 10000 + g * 100 + i));
      a.items().push_back(std::move(grp));
    }
    return v;
  };
  // Trees made on another thread (their blocks in its chunks, freed once
  // their last block is) into values made here: an array with room for
  // them, a struct with a member each.
  dyn::Value arr = dyn::Value::array();
  arr.items().reserve(2);
  dyn::Value st = dyn::Value::struct_();
  st.add("t0", dyn::Value());
  st.add("t1", dyn::Value());
  dyn::Value whole;
  std::thread t([&] {
    arr.items().push_back(tree(0));
    arr.items().push_back(tree(1));
    st["t0"] = tree(2);
    st["t1"] = tree(3);
    whole = tree(4);
  });
  t.join();
  const int64_t made = dyn::detail::live_chunks();
  BOOST_TEST(made >= base + 5);
  BOOST_TEST(st["t1"]["groups"].items()[39]["elems"].items()[39]["s"].str() == "a string longer than a short one, 33939");
  BOOST_TEST(std::as_const(arr).items()[1]["groups"].items()[2]["elems"].items()[3]["u"].case_name() == "c");
  whole = dyn::Value();  // the whole tree
  BOOST_TEST(dyn::detail::live_chunks() < made);
  arr.items().clear();  // an array's items
  BOOST_TEST(arr.items().empty());
  st.fields().clear();  // a struct's members
  BOOST_TEST(st.fields().empty());
  BOOST_TEST((st.kind == dyn::Value::Kind::Struct));
  BOOST_TEST(dyn::detail::live_chunks() == base);
}

BOOST_AUTO_TEST_CASE(value_memory_chunks_are_freed_by_any_thread) {
  auto make = [](int seed) {
    dyn::Value v = dyn::Value::struct_();
    dyn::Value& a = v.add("items", dyn::Value::array());
    a.items().resize(3000);  // 3000 string blocks: a few chunks
    for (int i = 0; i < 3000; ++i) a.items()[static_cast<size_t>(i)] = dyn::Value::string("item " + std::to_string(seed) + "." + std::to_string(i));
    return v;
  };
  auto intact = [](const dyn::Value& v, int seed) {
    const auto& a = v["items"].items();
    if (a.size() != 3000) return false;
    for (int i = 0; i < 3000; ++i)
      if (a[static_cast<size_t>(i)].str() != "item " + std::to_string(seed) + "." + std::to_string(i)) return false;
    return true;
  };
  // The schema's plan holds values of its own (defaults) for as long as it lives.
  const Gen& g = *by_name("sarc");
  std::ifstream in(fs::path(BINSCHEMA_SOURCE_DIR) / "examples" / "sarc-two-files.yaml");
  const std::vector<uint8_t> bytes = g.encode_text(std::string((std::istreambuf_iterator<char>(in)), {}));
  const dyn::Schema& s = loaded(g);
  const dyn::Value warm = dyn::Value::string("this thread has a chunk");
  const int64_t base = dyn::detail::live_chunks();

  // Made on four threads, checked and freed here after they ended.
  std::vector<dyn::Value> vs(8);
  {
    std::vector<std::thread> ts;
    for (int t = 0; t < 4; ++t)
      ts.emplace_back([&vs, &make, t] {
        for (int k = 0; k < 2; ++k) vs[static_cast<size_t>(t * 2 + k)] = make(t * 2 + k);
      });
    for (auto& t : ts) t.join();
  }
  BOOST_TEST(dyn::detail::live_chunks() >= base + 8);
  for (int i = 0; i < 8; ++i) BOOST_TEST(intact(vs[static_cast<size_t>(i)], i));
  vs.clear();
  BOOST_TEST(dyn::detail::live_chunks() == base);

  // Made here, freed on another thread while this one makes more.
  for (int i = 0; i < 8; ++i) vs.push_back(make(i));
  std::thread freer([&vs] { vs.clear(); });
  std::vector<dyn::Value> more;
  for (int i = 0; i < 8; ++i) more.push_back(make(100 + i));
  freer.join();
  for (int i = 0; i < 8; ++i) BOOST_TEST(intact(more[static_cast<size_t>(i)], 100 + i));
  more.clear();
  BOOST_TEST(dyn::detail::live_chunks() <= base + 1);  // this thread's current chunk

  // A small piece kept from each of many decodes keeps at most its chunk;
  // the pieces stay intact while the decodes around them come and go.
  std::vector<dyn::Value> kept;
  for (int i = 0; i < 300; ++i) {
    dyn::Value v = s.decode(bytes);
    kept.push_back(std::move(v.at_path("nodes[1].attributes.name")));
    const dyn::Value other = make(i);  // more blocks between the kept ones
    BOOST_TEST_REQUIRE(intact(other, i));
  }
  for (const dyn::Value& k : kept) BOOST_TEST_REQUIRE(k.str() == "Data/numbers.bin");
  BOOST_TEST(dyn::detail::live_chunks() <= base + 1 + 300);
  kept.clear();
  BOOST_TEST(dyn::detail::live_chunks() <= base + 1);
}

BOOST_AUTO_TEST_CASE(field_names_are_interned) {
  const Gen& g = *by_name("sarc");
  std::ifstream in(fs::path(BINSCHEMA_SOURCE_DIR) / "examples" / "sarc-two-files.yaml");
  const std::vector<uint8_t> bytes = g.encode_text(std::string((std::istreambuf_iterator<char>(in)), {}));
  const dyn::Schema& s = loaded(g);
  const dyn::Value v = s.decode(bytes);
  BOOST_TEST(static_cast<const void*>(v.fields().at(0).name.data()) == static_cast<const void*>(dyn::intern(v.fields().at(0).name).data()));
  dyn::Value w = dyn::Value::struct_();
  {
    std::string temp = "a field name longer than any short string buffer";
    w.add(temp, dyn::Value::uint(7, 4));
    temp.assign(temp.size(), 'x');
  }
  BOOST_TEST(w["a field name longer than any short string buffer"].as_uint() == 7u);
  // The same value built by hand, struct by struct through add() with names
  // of its own (copies, not the interned ones): its structs take the decoded
  // ones' shapes (the interned names), so it is equal, encodes and prints the same.
  std::deque<std::string> own;
  std::function<dyn::Value(const dyn::Value&)> rebuild = [&](const dyn::Value& x) {
    dyn::Value r = x;
    if (x.kind == dyn::Value::Kind::Struct && !x.fields().empty()) {
      r = dyn::Value::struct_();
      for (const auto& m : x.fields()) {
        const std::string& name = own.emplace_back(m.name);
        dyn::Value mv = rebuild(m.value);
        r.add(name, std::move(mv));
      }
    }
    for (auto& i : r.items()) i = rebuild(i);
    return r;
  };
  dyn::Value c = rebuild(v);
  BOOST_TEST(c.fields().shape() == v.fields().shape());
  BOOST_TEST(static_cast<const void*>(c.fields().at(0).name.data()) == static_cast<const void*>(v.fields().at(0).name.data()));
  BOOST_TEST((c == v));
  BOOST_TEST((s.encode(c) == s.encode(v)));
  BOOST_TEST(s.to_text(c, TextKind::Yaml) == s.to_text(v, TextKind::Yaml));
}

// ---- The CLI with --schema ------------------------------------------------------

namespace {
std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}
// The text without its first line (the `format:` key).
std::string after_first_line(const std::string& t) { return t.substr(std::min(t.size(), t.find('\n') + 1)); }
}  // namespace

// A copy of a shipped schema under another name: decoded by the CLI from the
// schema, no build step; the same text as the built-in format but its name.
BOOST_AUTO_TEST_CASE(cli_decodes_with_a_schema_under_another_name) {
  binschema::test::Sandbox box("binschema-dynamic");
  std::string schema = slurp(fs::path(BINSCHEMA_SOURCE_DIR) / "schemas" / "sarc.yaml");
  const size_t at = schema.find("format: sarc");
  BOOST_REQUIRE(at != std::string::npos);
  schema.replace(at, 12, "format: mysarc");
  box.write("mysarc.yaml", schema);
  const std::string sample = (samples::dir("sarc") / "test.sarc").string();
  const auto builtin = box.cli("decode " + binschema::test::q(sample));
  BOOST_REQUIRE_EQUAL(builtin.code, 0);
  for (const std::string how : {"--schema mysarc.yaml ", "--schema . ", "--as mysarc --schema mysarc.yaml "}) {
    const auto r = box.cli("decode " + how + binschema::test::q(sample));
    BOOST_TEST(r.code == 0, how << r);
    BOOST_TEST(r.out.starts_with("format: mysarc\n"), how << r.out.substr(0, 40));
    BOOST_TEST(after_first_line(r.out) == after_first_line(builtin.out), how);
  }
  const auto env = box.sh("BINSCHEMA_SCHEMA_PATH=" + box.path("").string() + " " + binschema::test::kCli + " decode --format json " +
                          binschema::test::q(sample));
  BOOST_TEST(env.code == 0, env);
  BOOST_TEST(env.out.find("\"format\": \"mysarc\"") != std::string::npos, env.out.substr(0, 40));
  // Options after the input, and --schema twice (the second a folder holding the same file).
  const auto out = box.cli("decode --schema mysarc.yaml " + binschema::test::q(sample) + " -o out.yaml --schema .");
  BOOST_TEST(out.code == 0, out);
  BOOST_TEST(box.read_text("out.yaml").starts_with("format: mysarc\n"));
  const auto info = box.cli("info --schema mysarc.yaml " + binschema::test::q(sample));
  BOOST_TEST(info.code == 0, info);
  BOOST_TEST(info.out.starts_with("format: mysarc\n"), info.out);
  const auto list = box.cli("formats --schema mysarc.yaml");
  BOOST_TEST(list.out.starts_with("mysarc\t"), list.out.substr(0, 40));
}

// A schema edit takes effect on the next command; a broken schema is named
// at file:line:col (exit 2: a file the command names is the problem).
BOOST_AUTO_TEST_CASE(cli_uses_the_schema_as_it_is_now) {
  binschema::test::Sandbox box("binschema-dynamic");
  const std::string tiny = slurp(fs::path(BINSCHEMA_SOURCE_DIR) / "tests" / "schemas" / "tiny.yaml");
  box.write("t.yaml", tiny);
  box.write("x.tiny", binschema::tiny::encode(binschema::tiny::Header{}));
  const auto first = box.cli("decode --schema t.yaml --as tiny x.tiny");
  BOOST_TEST(first.code == 0, first);
  BOOST_TEST(first.out == binschema::tiny::to_text(binschema::tiny::Header{}, TextKind::Yaml));
  box.write("t.yaml", tiny + "\n  oops: [\n");
  const auto broken = box.cli("decode --schema t.yaml --as tiny x.tiny");
  BOOST_TEST(broken.code == 2, broken);
  BOOST_TEST(broken.err.starts_with("binschema: t.yaml:"), broken.err);
  BOOST_TEST(broken.err_lines().size() == 1u, broken.err);
}

// A shipped schema with hash names (BAEV's events by the names its document
// proves, hash_of:) under another name: decoded by --schema to the built-in
// format's text but its name.
BOOST_AUTO_TEST_CASE(cli_decodes_hash_names_with_a_schema) {
  binschema::test::Sandbox box("binschema-dynamic");
  std::string schema = slurp(fs::path(BINSCHEMA_SOURCE_DIR) / "schemas" / "baev.yaml");
  const size_t at = schema.find("format: baev\n");
  BOOST_REQUIRE(at != std::string::npos);
  schema.replace(at, 12, "format: mybaev");
  box.write("mybaev.yaml", schema);
  const fs::path example = fs::path(BINSCHEMA_SOURCE_DIR) / "examples" / "baev-totk.yaml";
  BOOST_REQUIRE(fs::exists(example));
  const auto bin = box.cli("encode " + binschema::test::q(example.string()) + " -o x.baev");
  BOOST_REQUIRE_EQUAL(bin.code, 0);
  const auto builtin = box.cli("decode x.baev");
  BOOST_REQUIRE_EQUAL(builtin.code, 0);
  const auto r = box.cli("decode --schema mybaev.yaml --as mybaev x.baev");
  BOOST_TEST(r.code == 0, r);
  BOOST_TEST(r.out.starts_with("format: mybaev\n"), r.out.substr(0, 40));
  BOOST_TEST(after_first_line(r.out) == after_first_line(builtin.out));
}

// ---- String tables and hash names through the engine (issue 27) -------------------

namespace {
// A table of keys (table:, offsets_of:) that entries index (index_of:), and a hash (hash_of:).
std::string table_schema(const std::string& order, const std::string& names = "") {
  return R"(format: tab
endian: little
root: File
)" + names + R"(types:
  File:
    fields:
      - {name: magic, type: "char[4]", const: TABS}
      - {name: keys, type: Table, ptr: u32, nullable: true, table: )" +
         order + R"(}
      - {name: count, type: u32}
      - {name: entries, type: "Entry[]", ptr: u32, count: count}
  Table:
    fields:
      - {name: count, type: u32}
      - {name: offsets, type: "u32[]", count: "count + 1", offsets_of: strings}
      - {name: strings, type: "Str[]", count: count}
  Str:
    fields:
      - {name: text, type: cstring}
  Entry:
    fields:
      - {name: key, type: u32, index_of: keys}
      - {name: hash, type: u32, format: hex, hash_of: crc32}
)";
}
uint32_t u32_at(const std::vector<uint8_t>& b, size_t at) { return b[at] | b[at + 1] << 8 | b[at + 2] << 16 | uint32_t(b[at + 3]) << 24; }
}  // namespace

// The writer builds the table from the strings the entries hold (each once,
// sorted or in first use), the text shows the strings, and an index past the
// table's end is refused at its field with its offset.
BOOST_AUTO_TEST_CASE(string_tables_through_the_engine) {
  const dyn::Schema s = dyn::Schema::load_text(table_schema("sorted"), "tab.yaml");
  const std::string text = "format: tab\nentries:\n  - {key: b, hash: 0x1}\n  - {key: a, hash: 0x2}\n  - {key: b, hash: 0x3}\n";
  const std::vector<uint8_t> bytes = s.encode(s.from_text(text));
  // The table: 2 strings, sorted, with their offsets from its start and the end.
  const uint32_t keys = u32_at(bytes, 4), entries = u32_at(bytes, 12);
  BOOST_TEST(u32_at(bytes, keys) == 2u);
  BOOST_TEST(u32_at(bytes, keys + 4) == 16u);  // after count and 3 offsets
  BOOST_TEST(u32_at(bytes, keys + 8) == 18u);
  BOOST_TEST(u32_at(bytes, keys + 12) == 20u);
  BOOST_TEST(std::string(reinterpret_cast<const char*>(bytes.data()) + keys + 16, 4) == std::string("a\0b\0", 4));
  BOOST_TEST(u32_at(bytes, entries) == 1u);  // b
  BOOST_TEST(u32_at(bytes, entries + 8) == 0u);  // a
  const dyn::Value v = s.decode(bytes);
  BOOST_TEST(v.at_path("entries[0].key").str() == "b");
  BOOST_TEST(v.at_path("entries[1].key").str() == "a");
  BOOST_TEST(s.to_text(v, TextKind::Yaml).find("keys") == std::string::npos);  // the table is not in the text
  // In first use: b, then a.
  const dyn::Schema f = dyn::Schema::load_text(table_schema("first_use"), "tab.yaml");
  const std::vector<uint8_t> fb = f.encode(f.from_text(text));
  BOOST_TEST(std::string(reinterpret_cast<const char*>(fb.data()) + u32_at(fb, 4) + 16, 4) == std::string("b\0a\0", 4));
  BOOST_TEST(u32_at(fb, u32_at(fb, 12)) == 0u);
  // That file decodes with the sorted schema, but not with its layout: the writer would sort the table.
  BOOST_TEST(s.decode(fb).at_path("entries[1].key").str() == "a");
  try {
    binschema::Layout lay;
    (void)s.decode(fb, lay);
    BOOST_FAIL("a table the writer would not derive was kept");
  } catch (const binschema::LayoutNotKept& e) {
    BOOST_TEST(std::string(e.what()).starts_with("keys."), e.what());
  }
  // An index out of range: at the field, with its offset.
  std::vector<uint8_t> bad = bytes;
  bad[entries + 8] = 9;
  try {
    (void)s.decode(bad);
    BOOST_FAIL("index 9 of 2 was read");
  } catch (const binschema::DecodeError& e) {
    BOOST_TEST(e.offset() == entries + 8);
    BOOST_TEST(std::string(e.what()).starts_with("entries[1].key: index 9 into table keys (2 strings) is out of range"), e.what());
  }
  // No string: a null table.
  const std::vector<uint8_t> none = s.encode(s.from_text("format: tab\nentries: []\n"));
  BOOST_TEST(u32_at(none, 4) == 0u);
}

// A hash's name: one the document's own strings prove, then the schema's
// names: list; text in hashes any name; a word that is no name is an error at line:col.
BOOST_AUTO_TEST_CASE(hash_names_through_the_engine) {
  binschema::test::Sandbox box("binschema-dynamic");
  box.write("tab.names.txt", std::string("# test names\nFromList\n"));
  box.write("tab.yaml", table_schema("sorted", "names: tab.names.txt\n"));
  const dyn::Schema s = dyn::Schema::load(box.path("tab.yaml").string());
  const std::string text = "format: tab\nentries:\n  - {key: Proven, hash: Proven}\n  - {key: b, hash: FromList}\n  - {key: c, hash: Nobody}\n";
  const dyn::Value v = s.from_text(text);
  BOOST_TEST(v.at_path("entries[0].hash").as_uint() == binschema::crc32("Proven"));
  BOOST_TEST(v.at_path("entries[2].hash").as_uint() == binschema::crc32("Nobody"));
  const std::string yaml = s.to_text(s.decode(s.encode(v)), TextKind::Yaml);
  BOOST_TEST(yaml.find("hash: Proven") != std::string::npos, yaml);
  BOOST_TEST(yaml.find("hash: FromList") != std::string::npos, yaml);
  BOOST_TEST(yaml.find("hash: " + binschema::hex(binschema::crc32("Nobody"))) != std::string::npos, yaml);  // no name for it: the number
  // --names: the run-time list names it too.
  binschema::text::set_known_names({"Nobody"});
  const std::string named = s.to_text(s.decode(s.encode(v)), TextKind::Yaml);
  binschema::text::set_known_names({});
  BOOST_TEST(named.find("hash: Nobody") != std::string::npos, named);
  try {
    (void)s.from_text("format: tab\nentries:\n  - {key: a, hash: 0xZZ}\n");
    BOOST_FAIL("0xZZ was read as a hash");
  } catch (const std::exception& e) {
    BOOST_TEST(std::regex_search(e.what(), std::regex(R"(^3:\d+: entries\[0\]\.hash: )")), e.what());
  }
}

namespace {
// Items read by read_struct's lean steps: plain numbers, a bit word with no
// check (DecodeStep::LeanBits, its struct copied from the bits' defaults),
// an inline struct (LeanStruct) that checks a bool, each item's members
// copied from the plan as bytes (StructPlan::init_flat).
const char* kLeanSchema = R"(format: lean
endian: little
root: File
types:
  File:
    fields:
      - {name: magic, type: "char[4]", const: LEAN}
      - {name: count, type: u32}
      - {name: items, type: "Item[]", count: count}
  Item:
    fields:
      - {name: id, type: u16}
      - name: flags
        type: u16
        bits:
          - {name: low, bits: 4, default: 0}
          - {name: on, bits: 1, type: bool, default: false}
          - {name: rest, bits: 11, default: 0}
      - {name: pos, type: Vec}
      - {name: ok, type: bool8}
      - {name: pad, type: u8}
      - {name: tail, type: u16, if: "id != 0"}  # an if: keeps Item off read_simple: its lean steps are read_struct's
  Vec:
    fields:
      - {name: x, type: s16}
      - {name: y, type: bool8}
      - {name: z, type: u8}
)";

// A schema whose Item and Inner are read by read_simple (StructPlan::simple):
// a pooled string's pointer, a checked bool32, a fixed array of numbers, a
// bit word and an inline struct that is simple itself.
const char* kSimpleSchema = R"(format: simple
endian: little
root: File
pools:
  strings:
    kind: cstring
    order: first_use
    base: pool_offset
types:
  File:
    fields:
      - {name: magic, type: "char[4]", const: SIMP}
      - {name: pool_offset, type: u32}
      - {name: count, type: u32}
      - {name: items, type: "Item[]", count: count}
  Item:
    fields:
      - {name: name, type: string, ptr: u32, pool: strings}
      - {name: on, type: bool32}
      - {name: v, type: "u16[2]"}
      - name: flags
        type: u8
        bits:
          - {name: low, bits: 3, default: 0}
          - {name: high, bits: 5, default: 0}
      - {name: inner, type: Inner}
  Inner:
    fields:
      - {name: label, type: string, ptr: u32, pool: strings}
      - {name: b, type: bool8}
)";
}  // namespace

// read_simple gives what read_struct gives: the values (each item its own
// blocks), the pooled strings read after the struct's fields (a bad bool
// before a bad string pointer is the error), each error at its offset with
// the whole path.
BOOST_AUTO_TEST_CASE(simple_structs_give_the_values_and_errors) {
  const dyn::Schema s = dyn::Schema::load_text(kSimpleSchema, "simple.yaml");
  // Items at 12 and 30, 18 bytes each: name, on, v[2], flags, inner {label, b}; the pool at 48.
  std::vector<uint8_t> b = {'S', 'I', 'M', 'P', 48, 0, 0, 0, 2, 0, 0, 0};
  // items[0]: name "ab", on true, v [3, 0xffff], flags low 1 high 0x1f, inner {label "cd", b true}
  for (uint8_t c : {0, 0, 0, 0, 1, 0, 0, 0, 3, 0, 0xff, 0xff, 0xf9, 3, 0, 0, 0, 1}) b.push_back(c);
  // items[1]: name "cd", on false, v [7, 8], flags 0, inner {label "ab", b false}
  for (uint8_t c : {3, 0, 0, 0, 0, 0, 0, 0, 7, 0, 8, 0, 0, 0, 0, 0, 0, 0}) b.push_back(c);
  for (char c : {'a', 'b', '\0', 'c', 'd', '\0'}) b.push_back(static_cast<uint8_t>(c));
  const dyn::Value v = s.decode(b);
  BOOST_TEST(v.at_path("items[0].name").str() == "ab");
  BOOST_TEST(v.at_path("items[1].name").str() == "cd");
  BOOST_TEST((v.at_path("items[0].on").kind == dyn::Value::Kind::Bool));
  BOOST_TEST(v.at_path("items[0].on").as_uint() == 1u);
  BOOST_TEST(v.at_path("items[0].on").width == 4);
  BOOST_TEST(v.at_path("items[1].on").as_uint() == 0u);
  BOOST_TEST(v.at_path("items[0].v").items().size() == 2u);
  BOOST_TEST(v.at_path("items[0].v[1]").as_uint() == 0xffffu);
  BOOST_TEST(v.at_path("items[1].v[0]").as_uint() == 7u);
  BOOST_TEST(v.at_path("items[0].flags.low").as_uint() == 1u);
  BOOST_TEST(v.at_path("items[0].flags.high").as_uint() == 0x1fu);
  BOOST_TEST(v.at_path("items[0].inner.label").str() == "cd");
  BOOST_TEST(v.at_path("items[0].inner.b").as_uint() == 1u);
  BOOST_TEST(v.at_path("items[1].inner.label").str() == "ab");
  // Each item its own blocks.
  dyn::Value w = v;
  w.at_path("items[0].v[0]").set_uint(9);
  w.at_path("items[0].inner.label").str() = "x";
  BOOST_TEST(v.at_path("items[0].v[0]").as_uint() == 3u);
  BOOST_TEST(v.at_path("items[0].inner.label").str() == "cd");
  auto error = [&](const std::vector<uint8_t>& bad) -> std::pair<uint64_t, std::string> {
    try {
      (void)s.decode(bad);
    } catch (const binschema::DecodeError& e) {
      return {e.offset(), e.what()};
    }
    BOOST_FAIL("decoded");
    return {};
  };
  // items[1] with a bad bool32 and a name pointing out of the file: the
  // bool's error (the name is read after the fields).
  std::vector<uint8_t> bad = b;
  bad[30 + 4] = 2;
  bad[30] = 0xf0;
  auto [at, what] = error(bad);
  BOOST_TEST(at == 34u);
  BOOST_TEST(what.starts_with("items[1].on: value "), what);
  // The name alone: its error, with its path.
  bad[30 + 4] = 0;
  std::tie(at, what) = error(bad);
  BOOST_TEST(what.starts_with("items[1].name: "), what);
  // In the inner struct: a bad bool8, then a bad label, each with the whole path.
  bad = b;
  bad[12 + 17] = 3;
  std::tie(at, what) = error(bad);
  BOOST_TEST(at == 29u);
  BOOST_TEST(what.starts_with("items[0].inner.b: value "), what);
  bad = b;
  bad[12 + 13] = 0x70;
  std::tie(at, what) = error(bad);
  BOOST_TEST(what.starts_with("items[0].inner.label: "), what);
}

// The lean steps give the values, the errors at the offset and path, and
// the bytes back that the full steps give.
BOOST_AUTO_TEST_CASE(lean_struct_steps_give_the_values_and_errors) {
  const dyn::Schema s = dyn::Schema::load_text(kLeanSchema, "lean.yaml");
  std::vector<uint8_t> b = {'L', 'E', 'A', 'N', 2, 0, 0, 0};
  // items[0]: id 7, flags low 5 on 1 rest 0x3ff, pos {x -2, y true, z 9}, ok false, pad 0, tail 0x1234
  for (uint8_t c : {7, 0, 0xf5, 0x7f, 0xfe, 0xff, 1, 9, 0, 0, 0x34, 0x12}) b.push_back(c);
  // items[1]: id 8, flags low 0 on 0 rest 1, pos {x 3, y false, z 0}, ok true, pad 1, tail 2
  for (uint8_t c : {8, 0, 0x20, 0, 3, 0, 0, 0, 1, 1, 2, 0}) b.push_back(c);
  const dyn::Value v = s.decode(b);
  BOOST_TEST(v.at_path("items[0].id").as_uint() == 7u);
  BOOST_TEST(v.at_path("items[0].flags.low").as_uint() == 5u);
  BOOST_TEST((v.at_path("items[0].flags.on").kind == dyn::Value::Kind::Bool));
  BOOST_TEST(v.at_path("items[0].flags.on").as_uint() == 1u);
  BOOST_TEST(v.at_path("items[0].flags.rest").as_uint() == 0x3ffu);
  BOOST_TEST(v.at_path("items[0].flags.rest").width == 2);
  BOOST_TEST(v.at_path("items[0].pos.x").as_int() == -2);
  BOOST_TEST(v.at_path("items[0].pos.y").as_uint() == 1u);
  BOOST_TEST(v.at_path("items[0].pos.z").as_uint() == 9u);
  BOOST_TEST(v.at_path("items[0].ok").as_uint() == 0u);
  BOOST_TEST(v.at_path("items[0].tail").as_uint() == 0x1234u);
  BOOST_TEST(v.at_path("items[1].flags.low").as_uint() == 0u);
  BOOST_TEST(v.at_path("items[1].flags.on").as_uint() == 0u);
  BOOST_TEST(v.at_path("items[1].flags.rest").as_uint() == 1u);
  BOOST_TEST(v.at_path("items[1].pos.x").as_int() == 3);
  BOOST_TEST(v.at_path("items[1].ok").as_uint() == 1u);
  BOOST_TEST(v.at_path("items[1].pad").as_uint() == 1u);
  BOOST_TEST(v.at_path("items[1].tail").as_uint() == 2u);
  // Each item its own members (no block shared by the byte copies).
  dyn::Value w = v;
  w.at_path("items[0].flags.low").set_uint(1);
  BOOST_TEST(v.at_path("items[0].flags.low").as_uint() == 5u);
  BOOST_TEST(s.encode(v) == b);
  // A bad bool in the inline struct: at its byte, with the whole path.
  std::vector<uint8_t> bad = b;
  bad[8 + 12 + 6] = 2;
  try {
    (void)s.decode(bad);
    BOOST_FAIL("bool 2 was read");
  } catch (const binschema::DecodeError& e) {
    BOOST_TEST(e.offset() == 8u + 12 + 6);
    BOOST_TEST(std::string(e.what()).starts_with("items[1].pos.y: value "), e.what());
    BOOST_TEST(std::string(e.what()).find("is not a bool (0 or 1)") != std::string::npos, e.what());
  }
  // A bad bool after the lean steps: at its byte, with its path.
  bad = b;
  bad[8 + 12 + 8] = 0x80;
  try {
    (void)s.decode(bad);
    BOOST_FAIL("bool 0x80 was read");
  } catch (const binschema::DecodeError& e) {
    BOOST_TEST(e.offset() == 8u + 12 + 8);
    BOOST_TEST(std::string(e.what()).starts_with("items[1].ok: value "), e.what());
  }
}

namespace {
// A non-root struct whose derive: fields have no check (not a size, not a
// pool's start): read_struct's plain step loads them as any number (3b30926)
// and the expressions after them read that number: `n` before the array
// (at a fixed offset) gives its count, `last` after it (at the cursor) says
// whether `tail` is there.
const char* kDeriveSchema = R"y(format: derive
endian: little
root: File
types:
  File:
    fields:
      - {name: magic, type: "char[4]", const: DERV}
      - {name: count, type: u32}
      - {name: items, type: "Item[]", count: count}
  Item:
    fields:
      - {name: id, type: u8}
      - {name: n, type: u8, derive: "count(vals) + 1"}
      - {name: vals, type: "u16[]", count: "n != 0 ? n - 1 : 0"}
      - {name: last, type: u8, derive: "count(vals)"}
      - {name: tail, type: u8, if: "last > 1"}
)y";
}  // namespace

// The plain derive's number is the file's (the count and the if: read it),
// the text is the values', and encode writes the file back.
BOOST_AUTO_TEST_CASE(plain_derived_numbers_give_the_counts_and_conditions) {
  const dyn::Schema s = dyn::Schema::load_text(kDeriveSchema, "derive.yaml");
  std::vector<uint8_t> b = {'D', 'E', 'R', 'V', 2, 0, 0, 0};
  // items[0]: id 5, n 3, vals [0x102, 0x304], last 2, tail 9
  for (uint8_t c : {5, 3, 2, 1, 4, 3, 2, 9}) b.push_back(c);
  // items[1]: id 6, n 2, vals [7], last 1, no tail
  for (uint8_t c : {6, 2, 7, 0, 1}) b.push_back(c);
  const dyn::Value v = s.decode(b);
  BOOST_TEST(v.at_path("items[0].id").as_uint() == 5u);
  BOOST_TEST(v.at_path("items[0].vals").items().size() == 2u);
  BOOST_TEST(v.at_path("items[0].vals[1]").as_uint() == 0x304u);
  BOOST_TEST(v.at_path("items[0].tail").as_uint() == 9u);
  BOOST_TEST(v.at_path("items[1].id").as_uint() == 6u);
  BOOST_TEST(v.at_path("items[1].vals").items().size() == 1u);
  BOOST_TEST(v.at_path("items[1].vals[0]").as_uint() == 7u);
  BOOST_TEST(v.at_path("items[1].tail").as_uint() == 0u);  // absent: its default, as the generated struct
  const std::string text = s.to_text(v, TextKind::Yaml);
  BOOST_TEST(text == "format: derive\nitems:\n  - id: 5\n    vals: [258, 772]\n    tail: 9\n  - id: 6\n    vals: [7]\n", text);
  BOOST_TEST(s.to_text(s.from_text(text), TextKind::Yaml) == text);
  BOOST_TEST(s.encode(v) == b);
  // A derived count that is not what the items say: the file's number is
  // read (n 1: no vals, then last is 2, the byte after n, and tail the byte after it).
  const dyn::Value w = s.decode(std::vector<uint8_t>{'D', 'E', 'R', 'V', 1, 0, 0, 0, 5, 1, 2, 1});
  BOOST_TEST(w.at_path("items[0].vals").items().size() == 0u);
  BOOST_TEST(w.at_path("items[0].tail").as_uint() == 1u);
}

// A bit word's bools are one bit each (the language refuses a wider one),
// so the flat copy (1863372: bits_flat) stores each bool's masked bit as its
// 0 or 1: the first and the last bit of a byte, every other bit set or not.
BOOST_AUTO_TEST_CASE(bit_word_bools_are_their_one_bit) {
  const std::string schema = R"(format: bitbool
endian: little
root: File
types:
  File:
    fields:
      - {name: count, type: u32}
      - {name: items, type: "Item[]", count: count}
  Item:
    fields:
      - name: flags
        type: u8
        bits:
          - {name: first, bits: 1, type: bool, default: false}
          - {name: mid, bits: 6, default: 0}
          - {name: last, bits: 1, type: bool, default: false}
)";
  const dyn::Schema s = dyn::Schema::load_text(schema, "bitbool.yaml");
  const std::vector<uint8_t> b = {4, 0, 0, 0, 0x00, 0x81, 0x7e, 0xff};
  const dyn::Value v = s.decode(b);
  const struct {
    bool first, last;
    uint64_t mid;
  } want[] = {{false, false, 0}, {true, true, 0}, {false, false, 0x3f}, {true, true, 0x3f}};
  for (int i = 0; i < 4; ++i) {
    const std::string at = "items[" + std::to_string(i) + "].flags.";
    for (const auto& [name, on] : {std::pair{"first", want[i].first}, std::pair{"last", want[i].last}}) {
      const dyn::Value& x = v.at_path(at + name);
      BOOST_TEST((x.kind == dyn::Value::Kind::Bool), at + name);
      BOOST_TEST(x.as_uint() == uint64_t{on}, at + name << " is " << x.as_uint());
    }
    BOOST_TEST(v.at_path(at + "mid").as_uint() == want[i].mid, at + "mid");
  }
  BOOST_TEST(s.to_text(v, TextKind::Yaml) ==
                 "format: bitbool\nitems:\n  - {}\n  - flags:\n      first: true\n      last: true\n  - flags:\n      mid: 63\n"
                 "  - flags:\n      first: true\n      mid: 63\n      last: true\n",
             s.to_text(v, TextKind::Yaml));
  BOOST_TEST(s.encode(v) == b);
  // A wider bool is a schema error: no bit word has one.
  try {
    (void)dyn::Schema::load_text(std::regex_replace(schema, std::regex("name: first, bits: 1"), "name: first, bits: 2"), "bitbool.yaml");
    BOOST_FAIL("a two-bit bool was loaded");
  } catch (const binschema::gen::SchemaError& e) {
    BOOST_TEST(std::string(e.what()).ends_with("a bool bit field is 1 bit wide"), e.what());
  }
}

// A simple struct reached by a pointer is the first read of its bytes:
// read_simple's own bounds check (the need() read_struct makes) refuses the
// struct that runs past the end, at its offset with its path, before its
// fields are loaded.
BOOST_AUTO_TEST_CASE(simple_structs_past_the_end_are_refused) {
  const auto hex_of = [](size_t n) {
    std::ostringstream o;
    o << "0x" << std::hex << n;
    return o.str();
  };
  const dyn::Schema s = dyn::Schema::load_text(R"(format: simpleend
endian: little
root: File
types:
  File:
    fields:
      - {name: magic, type: "char[4]", const: SEND}
      - {name: item, type: Item, ptr: u32}
  Item:
    fields:
      - {name: a, type: u32}
      - {name: b, type: bool8}
      - {name: c, type: u16}
)",
                                               "simpleend.yaml");
  const std::vector<uint8_t> b = {'S', 'E', 'N', 'D', 8, 0, 0, 0, 1, 2, 3, 4, 1, 5, 6};
  const dyn::Value v = s.decode(b);
  BOOST_TEST(v.at_path("item.a").as_uint() == 0x04030201u);
  BOOST_TEST(v.at_path("item.c").as_uint() == 0x605u);
  for (size_t cut = 9; cut < b.size(); ++cut) {
    try {
      (void)s.decode(std::vector<uint8_t>(b.begin(), b.begin() + cut));
      BOOST_ERROR("decoded cut at " << cut);
    } catch (const binschema::DecodeError& e) {
      BOOST_TEST(e.offset() == 8u);
      BOOST_TEST(std::string(e.what()) == "item: needs 0x7 bytes at 0x8 but the file ends at " + hex_of(cut), e.what());
    }
  }
}

// A count that names a field is that field's local,
// taken by the index the plan resolved (DecodeStep::count_index), not looked
// up by name per read: the same schema with each count as an expression
// (`+ 0`: evaluated) reads the same values and gives the same errors.
BOOST_AUTO_TEST_CASE(counts_by_name_are_the_locals_an_expression_gives) {
  const auto schema = [](const std::string& plus) {
    return dyn::Schema::load_text(R"(format: counts
endian: little
root: File
types:
  File:
    fields:
      - {name: magic, type: "char[4]", const: CNTS}
      - {name: n, type: u8}
      - name: hdr
        type: u16
        bits:
          - {name: kind, bits: 4, default: 0}
          - {name: count, bits: 12, default: 0}
      - {name: m, type: s8}
      - {name: a, type: "u8[]", count: "n)" + plus + R"("}
      - {name: b, type: "u16[]", count: "hdr.count + m)" + plus + R"("}
      - {name: c, type: "Pair[]", count: "m)" + plus + R"("}
  Pair:
    fields:
      - {name: x, type: u8}
      - {name: y, type: u8}
)",
                                  "counts.yaml");
  };
  const dyn::Schema by_name = schema(""), by_expr = schema(" + 0");
  // n 2, hdr kind 0xf count 2, m 1; a [1, 2]; b [3, 4, 5] (hdr.count + m); c [{6, 7}]
  const std::vector<uint8_t> b = {'C', 'N', 'T', 'S', 2, 0x2f, 0x00, 1, 1, 2, 3, 0, 4, 0, 5, 0, 6, 7};
  const dyn::Value v = by_name.decode(b);
  BOOST_TEST(v.at_path("a").items().size() == 2u);
  BOOST_TEST(v.at_path("b").items().size() == 3u);
  BOOST_TEST(v.at_path("b[2]").as_uint() == 5u);
  BOOST_TEST(v.at_path("c").items().size() == 1u);
  BOOST_TEST(v.at_path("c[0].y").as_uint() == 7u);
  const dyn::Value w = by_expr.decode(b);  // n and m in its model: counts of expressions are not derived
  for (const char* arr : {"a", "b", "c"}) BOOST_TEST((v.at_path(arr) == w.at_path(arr)), arr);
  const auto error = [&b](const dyn::Schema& s, size_t at, uint8_t byte) -> std::pair<uint64_t, std::string> {
    std::vector<uint8_t> bad = b;
    bad[at] = byte;
    try {
      (void)s.decode(bad);
    } catch (const binschema::DecodeError& e) {
      return {e.offset(), e.what()};
    }
    return {0, "decoded"};
  };
  // n too big, hdr.count too big, m negative (-1 as the count's int: a
  // count past the end of the file).
  for (const auto& [at, byte] : std::vector<std::pair<size_t, uint8_t>>{{4, 200}, {6, 0x70}, {7, 0xff}}) {
    const auto e = error(by_name, at, byte);
    BOOST_TEST(e.second != "decoded");
    BOOST_TEST(e.first > 7u, e.second);
    BOOST_TEST((e == error(by_expr, at, byte)), e.second);
  }
}

// Strings reached by pointers into a pool placed by its own field (base:
// names the root's `type: pool` field: Schema::Plan::placed_pool). The
// reader finds the pool's start from the sizes before that field (n's 2
// bytes, 3 items of 3, Info's 2: 0xd, padded to 4: 0x10), reads each
// string there, then checks at the field that the strings are where the
// writer puts them: in order of first use, each once, padded to 4. No
// shipped format has such a pointer (SARC's names are bit fields); the
// generated code of this schema (binschema-gen) gives the same bytes and
// errors. Every string is reached from `items` on: the reader works out
// the pool's start at the first field whose offset is not fixed, and a
// string reached before it (Info before `items`) is read from offset 0 and
// left out of the check, by the generated code too.
BOOST_AUTO_TEST_CASE(pointer_strings_into_a_placed_pool) {
  const dyn::Schema s = dyn::Schema::load_text(R"(format: placed
endian: little
root: Head
pools:
  names: {kind: cstring, align: 4, base: names}
types:
  Head:
    fields:
      - {name: n, type: u16}
      - {name: items, type: "Item[]", count: n}
      - {name: info, type: Info}
      - {name: names, type: pool, pool: names}
      - {name: tail, type: u32}
  Info:
    fields:
      - {name: title, type: string, ptr: u16, pool: names}
  Item:
    fields:
      - {name: id, type: u8}
      - {name: name, type: string, ptr: u16, pool: names}
)",
                                               "placed.yaml");
  const std::vector<uint8_t> bytes = {
      3, 0,                                    // n
      1, 0, 0, 2, 8, 0, 3, 0, 0,               // items: alpha, beta, alpha (stored once)
      0x10, 0,                                 // info.title: hi
      0, 0, 0,                                 // up to the pool's start at 0x10
      'a', 'l', 'p', 'h', 'a', 0, 0, 0,        // names: each padded to 4
      'b', 'e', 't', 'a', 0, 0, 0, 0,          //
      'h', 'i', 0, 0,                          //
      'A', 0, 0, 0};                           // tail
  const dyn::Value v = s.decode(bytes);
  BOOST_TEST(v.at_path("items[0].name").str() == "alpha");
  BOOST_TEST(v.at_path("items[1].name").str() == "beta");
  BOOST_TEST(v.at_path("items[2].name").str() == "alpha");
  BOOST_TEST(v.at_path("info.title").str() == "hi");
  BOOST_TEST(v.at_path("tail").as_uint() == 0x41u);
  // Through the text and back: the same bytes.
  const std::string text = s.to_text(v, TextKind::Yaml);
  BOOST_TEST(s.encode(s.from_text(text)) == bytes, boost::test_tools::per_element());
  // Edited: beta longer than a word, the title now alpha (shared with the
  // items: stored once, the title's pointer 0).
  dyn::Value w = v;
  w.at_path("items[1].name") = dyn::Value::string("a_longer_name");
  w.at_path("info.title") = dyn::Value::string("alpha");
  const std::vector<uint8_t> edited = s.encode(w);
  const std::vector<uint8_t> names = {'a', 'l', 'p', 'h', 'a', 0, 0, 0, 'a', '_', 'l', 'o', 'n', 'g', 'e', 'r', '_', 'n', 'a', 'm', 'e', 0, 0, 0};
  BOOST_TEST(edited.size() == 0x10u + names.size() + 4);
  if (edited.size() == 0x10u + names.size() + 4) {
    BOOST_TEST((std::vector<uint8_t>(edited.begin(), edited.begin() + 0x10) ==
                std::vector<uint8_t>{3, 0, 1, 0, 0, 2, 8, 0, 3, 0, 0, 0, 0, 0, 0, 0}),
               boost::test_tools::per_element());
    BOOST_TEST((std::vector<uint8_t>(edited.begin() + 0x10, edited.end() - 4) == names), boost::test_tools::per_element());
  }
  const dyn::Value back = s.decode(edited);
  BOOST_TEST((back == w));
  BOOST_TEST(back.at_path("items[1].name").str() == "a_longer_name");
  BOOST_TEST(back.at_path("info.title").str() == "alpha");
  // A pointer past the pool's end: to the tail (a string there, but not
  // where the writer puts one: refused at the pool's field, at the string)
  // or past the file (at the pointer's field).
  const auto error = [&](uint8_t ptr) -> std::pair<uint64_t, std::string> {
    std::vector<uint8_t> bad = bytes;
    bad[6] = ptr;  // items[1].name
    try {
      (void)s.decode(bad);
    } catch (const binschema::DecodeError& e) {
      return {e.offset(), e.what()};
    }
    return {0, "decoded"};
  };
  const auto tail = error(0x14);
  BOOST_TEST(tail.first == 0x24u);
  BOOST_TEST(tail.second == "names: string at 0x24, but the writer would put it at 0x18 (in order of first use, each padded to 4) (at 0x24)");
  const auto past = error(0x40);
  BOOST_TEST(past.first == 0x50u);
  BOOST_TEST(past.second == "items[1].name: string at 0x50 past end of file (0x28)");
}
