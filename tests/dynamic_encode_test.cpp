// The run-time engine's text in and writer (binschema/dynamic.h) against the
// generated code: for every compiled-in schema the engine supports and every
// sample, example and fixture, the same text read by both gives the same
// bytes, fresh and with the file's layout; bad texts give the same error
// (line:col and path).
#define BOOST_TEST_MODULE dynamic_encode
#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "aamp_text.h"
#include "al_text.h"
#include "asb_text.h"
#include "baev_text.h"
#include "bfevfl_text.h"
#include "binschema/dynamic.h"
#include "binschema/error.h"
#include "binschema/format.h"
#include "binschema/schema.h"
#include "bools_sizes_text.h"
#include "byml_text.h"
#include "conds_text.h"
#include "evnt_text.h"
#include "maps_text.h"
#include "samples.h"
#include "sarc_text.h"
#include "share_equal_text.h"
#include "shared_text.h"
#include "tiny_text.h"

namespace dyn = binschema::dynamic;
namespace fs = std::filesystem;

namespace {

std::string read_text(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

dyn::Schema load(const std::string& rel) { return dyn::Schema::load(std::string(BINSCHEMA_SOURCE_DIR) + "/" + rel); }

// What one side did with a text: its bytes, or its error.
struct Outcome {
  std::vector<uint8_t> bytes;
  std::string error;
  bool operator==(const Outcome&) const = default;
};
template <class F>
Outcome run(F&& f) {
  Outcome o;
  try {
    o.bytes = f();
  } catch (const std::exception& e) {
    o.error = e.what();
  }
  return o;
}

// What the engine's encode of v says: its EncodeError's message, or "(encoded)".
std::string encode_error(const dyn::Schema& d, const dyn::Value& v) {
  try {
    d.encode(v);
  } catch (const binschema::EncodeError& e) {
    return e.what();
  }
  return "(encoded)";
}

std::string first_difference(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b) {
  size_t i = 0;
  while (i < a.size() && i < b.size() && a[i] == b[i]) ++i;
  return "sizes " + std::to_string(a.size()) + " and " + std::to_string(b.size()) + ", first difference at " + binschema::hex(i);
}

void same(const Outcome& gen, const Outcome& dyn, const std::string& what) {
  BOOST_TEST_CONTEXT(what) {
    BOOST_TEST(gen.error == dyn.error);
    if (gen.error.empty() && dyn.error.empty()) BOOST_TEST(gen.bytes == dyn.bytes, first_difference(gen.bytes, dyn.bytes));
  }
}

// The generated code of one format, as the test drives it.
template <class Root>
struct Generated {
  std::function<Root(std::span<const uint8_t>, binschema::Layout&)> decode;
  std::function<std::string(const Root&, binschema::TextKind, const binschema::Layout*)> to_text;
  std::function<Root(std::string_view, binschema::Layout&)> from_text;
  std::function<std::vector<uint8_t>(const Root&)> encode;
  std::function<std::vector<uint8_t>(const Root&, const binschema::Layout&)> encode_laid;
};
#define GENERATED(NS)                                                                                                         \
  Generated<decltype(NS::decode(std::span<const uint8_t>{}))> {                                                             \
    [](std::span<const uint8_t> b, binschema::Layout& l) { return NS::decode(b, l); },                                      \
        [](const auto& m, binschema::TextKind k, const binschema::Layout* l) { return NS::to_text(m, k, l); },              \
        [](std::string_view t, binschema::Layout& l) { return NS::from_text_with_layout(t, l); },                           \
        [](const auto& m) { return NS::encode(m); }, [](const auto& m, const binschema::Layout& l) { return NS::encode(m, l); } \
  }

// One text through both: read (with its layout) and encoded, with the
// layout and without. Returns how many comparisons were made.
template <class Root>
int compare_text(const dyn::Schema& d, const Generated<Root>& g, const std::string& text, const std::string& what) {
  same(run([&] {
         binschema::Layout l;
         return g.encode_laid(g.from_text(text, l), l);
       }),
       run([&] {
         binschema::Layout l;
         const dyn::Value v = d.from_text(text, l);
         return d.encode(v, l);
       }),
       what + " (with its layout)");
  same(run([&] {
         binschema::Layout l;
         return g.encode(g.from_text(text, l));
       }),
       run([&] {
         binschema::Layout l;
         return d.encode(d.from_text(text, l));
       }),
       what + " (fresh)");
  return 2;
}

// One file: the generated decode gives the text (YAML and JSON, with the
// layout); both read and encode it.
template <class Root>
int compare_file(const dyn::Schema& d, const Generated<Root>& g, const std::vector<uint8_t>& bytes, const std::string& what,
                 bool engine_decode = true) {
  binschema::Layout lay;
  Root m;
  try {
    m = g.decode(bytes, lay);
  } catch (const binschema::DecodeError&) {
    return 0;  // refused by the generated decode: nothing to write
  }
  int n = 0;
  n += compare_text(d, g, g.to_text(m, binschema::TextKind::Yaml, &lay), what + " as YAML");
  n += compare_text(d, g, g.to_text(m, binschema::TextKind::Json, &lay), what + " as JSON");
  // The file itself comes back through the engine (decode(bytes, layout) refused nothing).
  const std::string text = g.to_text(m, binschema::TextKind::Yaml, &lay);
  binschema::Layout dl;
  const dyn::Value v = d.from_text(text, dl);
  BOOST_TEST((d.encode(v, dl) == g.encode_laid(m, lay)), what << ": the engine's encode(value, layout)");
  if (!engine_decode) return n;
  // The engine's own decode (binschema/dynamic.h) and encode: the file back, and the fresh file.
  binschema::Layout l2;
  const Outcome back = run([&] {
    const dyn::Value v2 = d.decode(bytes, l2);
    return d.encode(v2, l2);
  });
  BOOST_TEST(back.error == "", what << ": " << back.error);
  BOOST_TEST((back.bytes == g.encode_laid(m, lay)), what << ": the engine's decode then encode with its layout");
  same(run([&] { return g.encode(m); }), run([&] { return d.encode(d.decode(bytes)); }), what + ": the engine's decode then encode (fresh)");
  return n + 2;
}

// Bad (and some good) texts made from a good one, line by line: a value
// replaced by a word, a negative number, a number too wide for any field, a
// list or a map; a line removed; an unknown key added. Both sides must give
// the same outcome: the same error (line:col and path) or the same bytes.
std::vector<std::pair<std::string, std::string>> mutations(const std::string& text, size_t max_lines) {
  std::vector<std::string> lines;
  std::stringstream ss(text);
  for (std::string l; std::getline(ss, l);) lines.push_back(l);
  auto join = [&](size_t skip, const std::string& put) {
    std::string out;
    for (size_t i = 0; i < lines.size(); ++i) out += (i == skip ? put : lines[i]) + "\n";
    return out;
  };
  std::vector<std::pair<std::string, std::string>> out;
  for (size_t i = 1; i < lines.size() && i <= max_lines; ++i) {
    const std::string& l = lines[i];
    const size_t colon = l.find(": ");
    const std::string where = "line " + std::to_string(i + 1);
    if (colon != std::string::npos && l.find('{') == std::string::npos) {
      const std::string key = l.substr(0, colon + 2);
      for (const char* v : {"oops", "-1", "0x1ffffffffffffffff", "[1, 2]", "{a: 1}", "1.5", "true", "\"\""})
        out.emplace_back(join(i, key + v), where + " value " + v);
    }
    out.emplace_back(join(i, ""), where + " removed");
    const size_t indent = l.find_first_not_of(" -");
    out.emplace_back(join(i, l + "\n" + std::string(indent == std::string::npos ? 0 : indent, ' ') + "bogus_key: 1"), where + " unknown key after");
  }
  return out;
}

template <class Root>
int compare_format(const std::string& format, const std::string& schema, const Generated<Root>& g, bool with_samples,
                   bool engine_decode = true) {
  const dyn::Schema d = load(schema);
  int n = 0;
  // Examples: their text, then the file the generated code makes of it.
  for (const auto& e : fs::directory_iterator(fs::path(BINSCHEMA_SOURCE_DIR) / "examples")) {
    if (e.path().extension() != ".yaml" || !e.path().filename().string().starts_with(format + "-")) continue;
    const std::string text = read_text(e.path());
    n += compare_text(d, g, text, e.path().filename().string());
    for (const auto& [bad, how] : mutations(text, 60)) n += compare_text(d, g, bad, e.path().filename().string() + ", " + how);
    binschema::Layout l;
    n += compare_file(d, g, g.encode_laid(g.from_text(text, l), l), e.path().filename().string() + " encoded", engine_decode);
  }
  // Files the fuzzers found (tests/fuzzer/regressions/<format>).
  const fs::path reg = fs::path(BINSCHEMA_SOURCE_DIR) / "tests/fuzzer/regressions" / format;
  if (fs::is_directory(reg))
    for (const auto& e : fs::directory_iterator(reg)) n += compare_file(d, g, samples::read(e.path()), e.path().filename().string(), engine_decode);
  if (with_samples)
    for (const auto& p : samples::files(format)) n += compare_file(d, g, samples::read(p), p.filename().string(), engine_decode);
  BOOST_TEST_MESSAGE(format << ": " << n << " texts compared");
  return n;
}

}  // namespace

BOOST_AUTO_TEST_CASE(sarc_same_bytes) {
  BOOST_TEST(compare_format("sarc", "schemas/sarc.yaml", GENERATED(binschema::sarc), true) > 0);
}

// The text form of issue 26 read by the engine: AL's bones by name (map:),
// ASB's unwrapped structs and if: fields, EVNT's if: fields; the example,
// its mutations (a key twice, a key among an entry's fields, an if: field
// given while false...) and the file made of it.
BOOST_AUTO_TEST_CASE(al_same_bytes) { BOOST_TEST(compare_format("al", "schemas/al.yaml", GENERATED(binschema::al), false) > 0); }
BOOST_AUTO_TEST_CASE(asb_same_bytes) { BOOST_TEST(compare_format("asb", "schemas/asb.yaml", GENERATED(binschema::asb), false) > 0); }
BOOST_AUTO_TEST_CASE(evnt_same_bytes) { BOOST_TEST(compare_format("evnt", "schemas/evnt.yaml", GENERATED(binschema::evnt), false) > 0); }
// BAEV's events by hash name (map: keyed by a hash_of: field), BYML's and
// AAMP's bare values (plain or tagged: !u, !l, !f64, !hash..., JSON's
// {"!u": 5}) and string tables, with their samples.
BOOST_AUTO_TEST_CASE(baev_same_bytes) { BOOST_TEST(compare_format("baev", "schemas/baev.yaml", GENERATED(binschema::baev), false) > 0); }
BOOST_AUTO_TEST_CASE(byml_same_bytes) { BOOST_TEST(compare_format("byml", "schemas/byml.yaml", GENERATED(binschema::byml), true) > 0); }
BOOST_AUTO_TEST_CASE(aamp_same_bytes) { BOOST_TEST(compare_format("aamp", "schemas/aamp.yaml", GENERATED(binschema::aamp), true) > 0); }

namespace {

// A test schema's fixture: its text, its mutations, and the file the
// generated code makes of it (decoded again with its layout).
template <class Root>
int compare_fixture(const std::string& schema, const Generated<Root>& g, const std::string& text) {
  const dyn::Schema d = load(schema);
  int n = compare_text(d, g, text, schema + " fixture");
  for (const auto& [bad, how] : mutations(text, 60)) n += compare_text(d, g, bad, schema + " fixture, " + how);
  binschema::Layout l;
  n += compare_file(d, g, g.encode_laid(g.from_text(text, l), l), schema + " fixture encoded");
  BOOST_TEST_MESSAGE(schema << ": " << n << " texts compared");
  return n;
}

}  // namespace

BOOST_AUTO_TEST_CASE(tiny_same_bytes) {
  BOOST_TEST(compare_fixture("tests/schemas/tiny.yaml", GENERATED(binschema::tiny), R"(format: tiny
flags: 0x0003
records:
  - name: first
    enabled: true
    value: {number: -5}
    points: [{xyz: [1, 2, 3]}, {xyz: [0.5, -1, 2]}]
  - name: second
    enabled: false
    value: {pair: {a: 1, b: -2}}
    points: []
  - name: first
    enabled: true
    value: {ratio: 1.5}
    points: [{xyz: [1, 2, 3]}, {xyz: [0.5, -1, 2]}]
tags: [alpha, first, beta]
extra: {label: hello}
)") > 0);
}

// tests/schemas/maps.yaml: maps by string, hex and enum keys, union
// entries, unwrapped structs and if: fields, read and encoded by both (the
// mutations: a key twice, the key among an entry's fields, an if: field given
// while false, ...), in each version (if: version >= 2, >= 3) and with the
// list fallback (a name twice).
BOOST_AUTO_TEST_CASE(maps_same_bytes) {
  namespace m = binschema::maps;
  int n = 0;
  for (const uint16_t version : {1, 2, 3}) {
    m::File f;
    f.version = version;
    f.flags = version == 3 ? 1 : 0;
    f.extra = version == 3 ? 77 : 0;
    f.items = {m::Item{"sword", 3, 1, version >= 2 ? 7u : 0u}, m::Item{version == 1 ? "sword" : "shield", 5, 2, version >= 2 ? 8u : 0u}};
    f.points = {m::Point{1, 1.5f}, m::Point{0xabc, -2.0f}};
    f.paints = {m::Paint{0, 0.5f}, m::Paint{2, 0.25f}};
    f.values.resize(2);
    f.values[0].emplace<m::File::Values::Case::word>(m::WordValue{5, 9});
    f.values[1].emplace<m::File::Values::Case::pair>(m::PairValue{12, 1, 2});
    f.list.values = {1, 2, 3};
    f.big.value = 12345678901234ull;
    f.v3 = version >= 3 ? 33 : 0;
    n += compare_fixture("tests/schemas/maps.yaml", GENERATED(m), m::to_text(m::decode(m::encode(f)), binschema::TextKind::Yaml));
  }
  BOOST_TEST(n > 0);
}

// tests/schemas/conds.yaml: a field of each kind (pointer to a struct,
// nullable or not, struct in place, pointer to an array, pooled string,
// number, union) under an if: that is false in version 1. The engine's
// decode, text and encode give what the generated code gives, and a file
// decoded and encoded unchanged comes back (the engine once decoded a
// pointer to a struct under a false if: as an empty struct, as the generated
// model holds it, and then refused to encode that value).
BOOST_AUTO_TEST_CASE(false_if_fields_as_the_generated_code) {
  namespace c = binschema::conds;
  const dyn::Schema d = load("tests/schemas/conds.yaml");
  // Version 1 (kind 0 and 1: the union's tag is derived from its case) and a version 2 file.
  std::vector<std::vector<uint8_t>> files = {{'C', 'N', 'D', 0, 1, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0},
                                             {'C', 'N', 'D', 0, 1, 0, 1, 0, 0, 0, 0, 0, 5, 0, 0, 0}};
  c::Head h;
  h.version = 2;
  h.opt = {1, 2};
  h.nopt = c::Pair{3, 4};
  h.inl = {5, 6};
  h.words = {7, 8};
  h.name = "nine";
  h.fixed = {13, 14};
  h.pairs = {{15, 16}, {17, 18}};
  h.chars = "abcd";
  h.num = 10;
  h.body.emplace<c::Head::Body::Case::word>(11u);
  h.wides = {0xffffff, 1};
  h.swides = {-0x800000, 0x7fffff};
  h.uwides = {3, 4};
  h.tail = 12;
  files.push_back(c::encode(h));
  for (size_t i = 0; i < files.size(); ++i) {
    BOOST_TEST_CONTEXT("file " << i) {
      const auto& bytes = files[i];
      const c::Head m = c::decode(bytes);
      const dyn::Value v = d.decode(bytes);
      for (const auto kind : {binschema::TextKind::Yaml, binschema::TextKind::Json})
        BOOST_TEST(d.to_text(v, kind) == c::to_text(m, kind));
      same(run([&] { return c::encode(m); }), run([&] { return d.encode(v); }), "decode then encode (fresh)");
      // With the file's layout: version 1 with kind 0 cannot come back (the
      // union's default case says kind 1): both refuse it alike.
      binschema::Layout gl, dl;
      same(run([&] { return c::encode(c::decode(bytes, gl), gl); }), run([&] { return d.encode(d.decode(bytes, dl), dl); }),
           "decode then encode (with its layout)");
      if (i != 0) {
        binschema::Layout gl2, dl2;
        const dyn::Value v2 = d.decode(bytes, dl2);
        BOOST_TEST((d.encode(v2, dl2) == bytes));  // unchanged, it comes back
        const c::Head m2 = c::decode(bytes, gl2);
        BOOST_TEST(d.to_text(v2, binschema::TextKind::Yaml, &dl2) == c::to_text(m2, binschema::TextKind::Yaml, &gl2));
      }
      const std::string text = c::to_text(m, binschema::TextKind::Yaml);
      BOOST_TEST(compare_text(d, GENERATED(c), text, "file " + std::to_string(i) + " as text") > 0);
    }
  }
  // A model holding a field its if: leaves out: both refuse it, with the same message.
  const dyn::Value full = d.decode(files[2]);
  for (const char* name : {"opt", "nopt", "inl", "fixed", "pairs", "chars", "body"}) {
    c::Head bad = c::decode(files[1]);
    dyn::Value dbad = d.decode(files[1]);
    const std::string n = name;
    if (n == "opt") bad.opt = h.opt;
    if (n == "nopt") bad.nopt = h.nopt;
    if (n == "inl") bad.inl = h.inl;
    if (n == "fixed") bad.fixed = h.fixed;
    if (n == "pairs") bad.pairs = h.pairs;
    if (n == "chars") bad.chars = h.chars;
    if (n == "body") bad.body = h.body;
    *dbad.find(name) = *full.find(name);
    same(run([&] { return c::encode(bad); }), run([&] { return d.encode(dbad); }), n + " given while its if: is false");
    BOOST_TEST(run([&] { return d.encode(dbad); }).error == "Head." + n + ": not stored when version >= 2 is false");
  }
  // A 24-bit union case out of its range: the same error, naming the union.
  for (const int64_t n : {int64_t(0x1000000), int64_t(0xffffff), int64_t(-0x800001), int64_t(0x800000), int64_t(-0x800000)}) {
    c::Head m = h;
    dyn::Value v = d.decode(files[2]);
    const bool u = n >= 0x1000000 || n == 0xffffff;
    if (u) m.body.emplace<c::Head::Body::Case::wide>(static_cast<uint32_t>(n));
    else m.body.emplace<c::Head::Body::Case::swide>(static_cast<int32_t>(n));
    *v.find("body") = u ? dyn::Value::union_("wide", 3, dyn::Value::uint(static_cast<uint64_t>(n), 4)) : dyn::Value::union_("swide", 4, dyn::Value::int_(n, 4));
    const Outcome g = run([&] { return c::encode(m); });
    same(g, run([&] { return d.encode(v); }), "body " + std::to_string(n));
    if (n == 0xffffff || n == -0x800000) BOOST_TEST(g.error == "");
    else BOOST_TEST(g.error == "Head.body: value " + std::to_string(n) + " does not fit in 24 bits");
  }
  // A 24-bit element out of its range, in place, by offset and in a list
  // that follows the cursor: the same error, naming the element (both once
  // said "u24: value 0x1000000 does not fit in 3 bytes", with no field).
  for (const std::string n : {"wides", "swides", "uwides"}) {
    c::Head m = h;
    dyn::Value v = d.decode(files[2]);
    const int64_t bad = n == "swides" ? -0x800001 : 0x1000000;
    if (n == "wides") m.wides[1] = static_cast<uint32_t>(bad);
    if (n == "swides") m.swides[1] = static_cast<int32_t>(bad);
    if (n == "uwides") m.uwides[1] = static_cast<uint32_t>(bad);
    v[n][1] = n == "swides" ? dyn::Value::int_(bad, 4) : dyn::Value::uint(static_cast<uint64_t>(bad), 4);
    const Outcome g = run([&] { return c::encode(m); });
    same(g, run([&] { return d.encode(v); }), n + "[1] out of range");
    BOOST_TEST(g.error == "Head." + n + "[1]: value " + std::to_string(bad) + " does not fit in 24 bits");
  }
}

BOOST_AUTO_TEST_CASE(shared_same_bytes) {
  BOOST_TEST(compare_fixture("tests/schemas/shared.yaml", GENERATED(binschema::shared), R"(format: shared
top:
  value: {list: {items: [{value: {num: 1}, left: ~, right: ~, data: [1, 2], word: {w: 7}}, {value: {vec: {x: 1, y: 2, z: 3}}, left: ~, right: ~, data: [], word: ~}]}}
  left: {value: {num: 5}, left: ~, right: ~, data: [1, 2], word: ~}
  right: {value: {num: 5}, left: ~, right: ~, data: [1, 2], word: ~}
  data: [9, 8, 7]
  word: {w: 7}
words: [1, 2, 3]
)") > 0);
}

BOOST_AUTO_TEST_CASE(share_equal_same_bytes) {
  BOOST_TEST(compare_fixture("tests/schemas/share_equal.yaml", GENERATED(binschema::share_equal), R"(format: share_equal
items:
  - value: {list: {values: [1, 2, 3]}}
    extra: {values: [1, 2, 3]}
    plain: {values: [1, 2, 3]}
  - value: {list: {values: [1, 2, 3]}}
    extra: ~
    plain: {values: []}
  - value: {num: 4}
    extra: {values: [4]}
    plain: ~
)") > 0);
}

BOOST_AUTO_TEST_CASE(bools_sizes_same_bytes) {
  BOOST_TEST(compare_fixture("tests/schemas/bools_sizes.yaml", GENERATED(binschema::bools_sizes), R"(format: bools_sizes
word: {low: 5, on: true, rest: 9}
flags: [true, false, true]
three: [false, true, true]
marks: [true, true, false]
tv: [true, false]
choice: {bits: [true, false, true, true]}
nums: [1, 2, 3]
blob: 0a0b0c
)") > 0);
}


// The writer's own orders: SARC's nodes sorted by name hash (one of two
// orders of the same nodes is not sorted), in both byte orders.
BOOST_AUTO_TEST_CASE(sarc_sorted_both_byte_orders) {
  const dyn::Schema d = load("schemas/sarc.yaml");
  const auto g = GENERATED(binschema::sarc);
  const std::string a = "  - attributes: {name: a/one.txt}\n    data: \"0102\"\n";
  const std::string b = "  - attributes: {name: b/two.bin}\n    data: \"030405\"\n    alignment: 0x80\n";
  const std::string c = "  - attributes: {name: zz.dat}\n    data: \"\"\n";
  int n = 0;
  for (const char* bom : {"0xfffe", "0xfeff"})
    for (const std::string& nodes : {a + b + c, c + b + a})
      n += compare_text(d, g, "format: sarc\nbom: " + std::string(bom) + "\nnodes:\n" + nodes, std::string("sarc, bom ") + bom);
  BOOST_TEST(n == 8);
}

// A schema with hooks decodes and prints at run time, but encoding is
// refused at the hook (file:line:col): the engine would write the model
// without what the hooks compute.
BOOST_AUTO_TEST_CASE(hooks_refused_at_encode) {
  const std::string path = std::string(BINSCHEMA_SOURCE_DIR) + "/schemas/bfevfl.yaml";
  const dyn::Schema d = dyn::Schema::load(path);
  const auto files = samples::files("bfevfl");
  const dyn::Value v = d.decode(samples::read(files.front()));
  std::string msg;
  try {
    d.encode(v);
  } catch (const binschema::gen::SchemaError& e) {
    msg = e.what();
  }
  const std::string text = read_text(path);
  const size_t at = text.find("  - name: sub_flow_events");
  BOOST_REQUIRE(at != std::string::npos);
  const auto line = std::count(text.begin(), text.begin() + at, '\n') + 1;
  BOOST_TEST(msg.find(path + ":" + std::to_string(line) + ":5: hook 'sub_flow_events'") == 0, msg);
  BOOST_TEST(d.encode_refusal() == msg);
}

// The writer's steps store a plain number (and a fixed array of numbers)
// straight from the value when it is of the field's kind and fits: a value
// out of range, of another kind, or a converted one goes the general way,
// with the general message (the generated model cannot hold such values; a
// dynamic::Value can).
BOOST_AUTO_TEST_CASE(plain_numbers_checked_by_the_steps) {
  const dyn::Schema d = dyn::Schema::load_text(R"(format: steps
title: Steps
doc: Plain numbers.
endian: little
extensions: [.stp]
versions: "1"
root: Head
types:
  Head:
    doc: Numbers.
    size: 0x1a
    fields:
      - {name: a, type: u8, doc: A.}
      - {name: b, type: s8, doc: B.}
      - {name: c, type: u16, doc: C.}
      - {name: d, type: s16, doc: D.}
      - {name: e, type: "u16[3]", doc: E.}
      - {name: f, type: "s8[2]", doc: F.}
      - {name: g, type: f32, doc: G.}
      - {name: h, type: u64, doc: H.}
)",
                                                   "steps.yaml");
  const dyn::Value v = d.from_text("format: steps\na: 200\nb: -100\nc: 0xBEEF\nd: -2\ne: [1, 0xFFFF, 3]\nf: [-128, 127]\ng: 1.5\nh: 0x0102030405060708\n");
  const std::vector<uint8_t> want = {200, 0x9c, 0xef, 0xbe, 0xfe, 0xff, 1, 0, 0xff, 0xff, 3, 0, 0x80, 0x7f, 0, 0, 0xc0, 0x3f,
                                     8, 7, 6, 5, 4, 3, 2, 1};
  BOOST_TEST(d.encode(v) == want, boost::test_tools::per_element());
  auto error = [&](const char* path, dyn::Value x) {
    dyn::Value w = v;
    w.at_path(path) = std::move(x);
    return encode_error(d, w);
  };
  BOOST_TEST(error("a", dyn::Value::uint(256, 1)) == "Head.a: value 256 does not fit in u8");
  BOOST_TEST(error("b", dyn::Value::int_(-129, 1)) == "Head.b: value -129 does not fit in s8");
  BOOST_TEST(error("b", dyn::Value::int_(128, 1)) == "Head.b: value 128 does not fit in s8");
  BOOST_TEST(error("c", dyn::Value::int_(-1, 2)) == "Head.c: value -1 does not fit in u16");
  BOOST_TEST(error("d", dyn::Value::uint(uint64_t(1) << 63, 8)) == "Head.d: value 9223372036854775808 does not fit");
  BOOST_TEST(error("e[1]", dyn::Value::uint(0x10000, 2)) == "Head.e: value 65536 does not fit in u16");
  BOOST_TEST(error("f[0]", dyn::Value::int_(-129, 1)) == "Head.f: value -129 does not fit in s8");
  BOOST_TEST(error("g", dyn::Value::string("x")) == "Head.g: a number with a fraction expected");
  // Another kind that fits is converted as the generated model's assignment would.
  dyn::Value w = v;
  w["a"] = dyn::Value::int_(200, 1);
  w["e"][1] = dyn::Value::int_(0xFFFF, 2);
  w["g"] = dyn::Value::float64(1.5);
  BOOST_TEST(d.encode(w) == want, boost::test_tools::per_element());
}

// Derived values, if: and bit words are written from the steps: each
// expression compiled once per write (names resolved to the struct's
// members, derived fields inlined, operators decoded), a bit word from its
// bits' widths. Every operator, a derived field naming another, an array's
// count, a context name, and the errors.
BOOST_AUTO_TEST_CASE(derived_values_compiled_by_the_steps) {
  const dyn::Schema d = dyn::Schema::load_text(R"Y(format: ops
title: Ops
doc: Derived values.
endian: little
extensions: [.ops]
versions: "1, 2"
root: Head
context: [version]
types:
  Head:
    doc: A version, a bit word and the derived values.
    fields:
      - {name: version, type: u8, doc: V.}
      - name: flags
        type: u16
        doc: F.
        bits:
          - {name: lo, bits: 3, doc: L.}
          - {name: on, bits: 1, type: bool, doc: O.}
          - {name: hi, bits: 12, doc: H.}
      - {name: sub, type: Sub, doc: S.}
  Sub:
    doc: Every operator.
    fields:
      - {name: a, type: u8, doc: A.}
      - {name: b, type: u8, doc: B.}
      - {name: n, type: u8, doc: N.}
      - {name: items, type: "u8[]", count: n, doc: I.}
      - {name: t, type: u8, derive: "a * 2", doc: T.}
      - {name: e1, type: u8, derive: "a + b", doc: E.}
      - {name: e2, type: u8, derive: "a - b", doc: E.}
      - {name: e3, type: u8, derive: "a / b", doc: E.}
      - {name: e4, type: u8, derive: "a % b", doc: E.}
      - {name: e5, type: u8, derive: "a << b", doc: E.}
      - {name: e6, type: u8, derive: "a >> 1", doc: E.}
      - {name: e7, type: u8, derive: "a & b", doc: E.}
      - {name: e8, type: u8, derive: "a | 8", doc: E.}
      - {name: e9, type: u8, derive: "a ^ b", doc: E.}
      - {name: cmp, type: u8, derive: "(a == 7) + (a != 7) * 2 + (a < b) * 4 + (a <= 7) * 8 + (a > b) * 16 + (b >= 4) * 32 + (a >= 7) * 64", doc: C.}
      - {name: logic, type: u8, derive: "(a && 0) + (0 || b) * 2 + !a * 4 + !0 * 8", doc: L.}
      - {name: un, type: u8, derive: "(~a & 0xff) + (-a + 10)", doc: U.}
      - {name: tern, type: u8, derive: "a > b ? count(items) + 1 : 99", doc: T.}
      - {name: again, type: u8, derive: "t + 1", doc: A.}
      - {name: ver, type: u8, derive: "version * 10 + n", doc: V.}
      - {name: late, type: u8, if: "version >= 2", doc: L.}
      - {name: early, type: u8, if: "version < 2 && a == 7", doc: E.}
)Y",
                                                   "ops.yaml");
  const dyn::Value v = d.from_text(
      "format: ops\nversion: 1\nflags: {lo: 5, on: true, hi: 0x123}\nsub:\n  a: 7\n  b: 3\n  items: [9, 8]\n  early: 0x42\n");
  const std::vector<uint8_t> want = {1, 0x3d, 0x12,  // version, flags: 5 | 1 << 3 | 0x123 << 4
                                     7, 3, 2, 9, 8,  // a, b, n, items
                                     14, 10, 4, 2, 1, 56, 3, 3, 15, 4,
                                     1 + 8 + 16 + 64,  // cmp
                                     2 + 8,            // logic
                                     248 + 3,          // un
                                     3, 15, 12, 0x42};
  BOOST_TEST(d.encode(v) == want, boost::test_tools::per_element());
  // version 2: late instead of early; b = 4: other comparisons.
  dyn::Value w = v;
  w["version"] = dyn::Value::uint(2, 1);
  w["sub"]["b"] = dyn::Value::uint(4, 1);
  w["sub"]["late"] = dyn::Value::uint(0x51, 1);
  w["sub"]["early"] = dyn::Value::uint(0, 1);
  const std::vector<uint8_t> want2 = {2, 0x3d, 0x12, 7, 4, 2, 9, 8, 14, 11, 3, 1, 3, 112, 3, 4, 15, 3,
                                      1 + 8 + 16 + 32 + 64, 2 + 8, 248 + 3, 3, 15, 22, 0x51};
  BOOST_TEST(d.encode(w) == want2, boost::test_tools::per_element());
  auto error = [&](const char* path, dyn::Value x) {
    dyn::Value e = v;
    e.at_path(path) = std::move(x);
    return encode_error(d, e);
  };
  BOOST_TEST(error("sub.b", dyn::Value::uint(0, 1)) == "Sub: a / b divides by zero");
  BOOST_TEST(error("sub.a", dyn::Value::uint(200, 1)) == "Sub.t: value 0x190 does not fit in 1 bytes");
  BOOST_TEST(error("flags.lo", dyn::Value::uint(9, 1)) == "Head.flags.lo: value 9 does not fit in 3 bits");
  BOOST_TEST(error("sub.early", dyn::Value::uint(1, 1)) == "(encoded)");
}

// A pointer's facts (its target's alignment with scale:, its name in a
// message, its region, its struct's steps) are decided once per field and
// kept by the field's address: each field here gets its own (an unscaled
// array at the cursor, a scaled one aligned to 4, a struct target aligned
// to its u32), and the arrays come out in their own order.
BOOST_AUTO_TEST_CASE(pointer_facts_decided_per_field) {
  const dyn::Schema d = dyn::Schema::load_text(R"(format: ptrs
title: Pointers
doc: Pointers with their own alignments.
endian: little
extensions: [.ptr]
versions: "1"
root: Head
types:
  Head:
    doc: Counts and pointers.
    size: 9
    fields:
      - {name: na, type: u8, doc: A's count.}
      - {name: nb, type: u8, doc: B's count.}
      - {name: a, type: "u8[]", ptr: u16, count: na, doc: A.}
      - {name: b, type: "u8[]", ptr: u16, scale: 4, count: nb, doc: B.}
      - {name: c, type: Word, ptr: u16, doc: C.}
      - {name: z, type: u8, doc: Z.}
  Word:
    doc: A word.
    size: 4
    fields:
      - {name: w, type: u32, doc: W.}
)",
                                                   "ptrs.yaml");
  const dyn::Value v = d.from_text("format: ptrs\na: [1, 2]\nb: [9, 8]\nc: {w: 0x11223344}\nz: 7\n");
  // a at 9 (2 bytes), b at 12 (not 11) stored as 12 / 4 = 3, c at 16 (after b's 2 bytes, aligned to 4).
  const std::vector<uint8_t> want = {2, 2, 9, 0, 3, 0, 16, 0, 7, 1, 2, 0, 9, 8, 0, 0, 0x44, 0x33, 0x22, 0x11};
  const std::vector<uint8_t> got = d.encode(v);
  BOOST_TEST(got == want, boost::test_tools::per_element());
  BOOST_TEST(d.to_text(d.decode(got), binschema::TextKind::Yaml) == d.to_text(v, binschema::TextKind::Yaml));
}

// A sorted inline array of structs that point elsewhere: written in key
// order, its elements' targets placed in the same order, the keys computed
// once (put_inline_array keeps the order for place_inline_children).
BOOST_AUTO_TEST_CASE(sorted_array_ordered_once_for_bytes_and_targets) {
  const dyn::Schema d = dyn::Schema::load_text(R"(format: sorted
title: Sorted
doc: A sorted array whose elements point to values.
endian: little
extensions: [.srt]
versions: "1"
root: Head
types:
  Head:
    doc: A count and the entries.
    fields:
      - {name: n, type: u8, doc: The count.}
      - {name: entries, type: "Entry[]", count: n, sort: key, doc: The entries by key.}
  Entry:
    doc: A key and its value.
    size: 3
    fields:
      - {name: key, type: u8, doc: The key.}
      - {name: v, type: Val, ptr: u16, doc: The value.}
  Val:
    doc: A value.
    size: 1
    fields:
      - {name: x, type: u8, doc: X.}
)",
                                                   "sorted.yaml");
  const dyn::Value v = d.from_text(
      "format: sorted\nentries:\n  - {key: 5, v: {x: 0x55}}\n  - {key: 2, v: {x: 0x22}}\n  - {key: 9, v: {x: 0x99}}\n"
      "  - {key: 5, v: {x: 0x56}}\n");
  // Keys 2, 5, 5 (as given: stable), 9 at 1, 4, 7, 10; each value after the head, in the same order.
  const std::vector<uint8_t> want = {4, 2, 13, 0, 5, 14, 0, 5, 15, 0, 9, 16, 0, 0x22, 0x55, 0x56, 0x99};
  BOOST_TEST(d.encode(v) == want, boost::test_tools::per_element());
  // Twice in a row from the same value (an order kept by the first write is not reused by the second wrongly).
  BOOST_TEST(d.encode(v) == want, boost::test_tools::per_element());
}

namespace {

// A schema of a count and that many items, each a tag of type `tag` and a
// union on it whose cases are `cases` (YAML list lines).
std::string tagged_items_schema(const std::string& tag, const std::string& cases) {
  return R"(format: cases
title: Cases
doc: Union cases.
endian: little
extensions: [.cas]
versions: "1"
root: Head
types:
  Head:
    doc: A list of tagged values.
    fields:
      - {name: n, type: u8, doc: N.}
      - {name: items, type: "Item[]", count: n, doc: I.}
  Item:
    doc: A tag and its value.
    fields:
      - {name: kind, type: )" + tag + R"(, doc: K.}
      - name: value
        type: union
        tag: kind
        doc: V.
        cases:
)" + cases;
}
// Items with a u8 tag whose union's cases, named as given, are a u8 at tag
// 1, a u16 at 65 (in the slot of 1 in the encoder's table of cases by tag)
// and a u32 at 2.
std::string union_cases_schema(const std::string& one, const std::string& wide, const std::string& two) {
  return tagged_items_schema("u8", "          - {value: 1, name: " + one + ", type: u8, doc: O.}\n"
                                   "          - {value: 65, name: " + wide + ", type: u16, doc: W.}\n"
                                   "          - {value: 2, name: " + two + ", type: u32, doc: T.}\n");
}

}  // namespace

// A union value's case is found by its tag's slot among the cases (tags
// that share a slot, 1 and 65 here, are told apart by name), once for its
// tag field and the union; the name decides when the value's tag is
// another case's.
BOOST_AUTO_TEST_CASE(union_cases_found_by_tag_and_name) {
  const dyn::Schema d = dyn::Schema::load_text(union_cases_schema("one", "wide", "two"), "cases.yaml");
  auto item = [](const char* name, int64_t tag, dyn::Value v) {
    dyn::Value i = dyn::Value::struct_();
    i.add("kind", dyn::Value::uint(static_cast<uint64_t>(tag), 1));
    i.add("value", dyn::Value::union_(name, tag, std::move(v)));
    return i;
  };
  dyn::Value v = dyn::Value::struct_();
  v.add("n", dyn::Value::uint(5, 1));
  dyn::Value items = dyn::Value::array();
  items.items().push_back(item("one", 1, dyn::Value::uint(0x11, 1)));
  items.items().push_back(item("wide", 65, dyn::Value::uint(0x2233, 2)));
  items.items().push_back(item("two", 2, dyn::Value::uint(0x44556677, 4)));
  items.items().push_back(item("wide", 1, dyn::Value::uint(0x8899, 2)));  // the tag of `one`: the name decides
  items.items().push_back(item("one", 65, dyn::Value::uint(0xaa, 1)));    // and the other way round
  v.add("items", std::move(items));
  const std::vector<uint8_t> want = {5, 1, 0x11, 65, 0x33, 0x22, 2, 0x77, 0x66, 0x55, 0x44, 65, 0x99, 0x88, 1, 0xaa};
  BOOST_TEST(d.encode(v) == want, boost::test_tools::per_element());
  // Decoded again (each value with its own case's tag): the same bytes.
  const std::vector<uint8_t> bytes = d.encode(d.decode(want));
  BOOST_TEST(bytes == want, boost::test_tools::per_element());
  dyn::Value bad = v;
  bad["items"][1]["value"] = dyn::Value::union_("three", 65, dyn::Value::uint(1, 1));
  BOOST_TEST(encode_error(d, bad) == "Item.value: no case 'three'");
}

// A union's tag lives in its block (the 16-byte Value's one slot is the
// block's pointer): a tag that needs all 64 bits is decoded, kept by a copy,
// a move and a block grown under it, told apart by == from one equal in its
// low 32 bits, set on a copy alone, and encoded back to the same bytes.
BOOST_AUTO_TEST_CASE(union_tags_of_64_bits_live_in_the_block) {
  const dyn::Schema d = dyn::Schema::load_text(tagged_items_schema("u64", "          - {value: 4294967297, name: high, type: u8, doc: H.}\n"
                                                                         "          - {value: 1, name: low, type: u16, doc: L.}\n"),
                                               "widetags.yaml");
  const uint64_t high = 0x100000001u;
  const std::vector<uint8_t> bytes = {2, 1, 0, 0, 0, 1, 0, 0, 0, 0x5a, 1, 0, 0, 0, 0, 0, 0, 0, 0x34, 0x12};
  const dyn::Value v = d.decode(bytes);
  const dyn::Value& hi = v["items"][0]["value"];
  BOOST_TEST(hi.case_name() == "high");
  BOOST_TEST(hi.tag() == high);
  BOOST_TEST(hi.as_uint() == high);  // a union's number is its tag
  BOOST_TEST(v["items"][1]["value"].tag() == 1u);
  dyn::Value c = v;
  BOOST_TEST(c["items"][0]["value"].tag() == high);
  BOOST_TEST((c == v));
  const dyn::Value m = std::move(c);
  BOOST_TEST(m["items"][0]["value"].tag() == high);
  BOOST_TEST((m == v));
  BOOST_TEST((dyn::Value::union_("high", static_cast<int64_t>(high), dyn::Value::uint(0x5a, 1)) == hi));
  BOOST_TEST(!(dyn::Value::union_("high", 1, dyn::Value::uint(0x5a, 1)) == hi));
  dyn::Value s = hi;
  s.set_tag(1);
  BOOST_TEST(s.tag() == 1u);
  BOOST_TEST(hi.tag() == high);
  BOOST_TEST(!(s == hi));
  BOOST_TEST(s.items()[0].as_uint() == 0x5au);
  dyn::Value g = dyn::Value::union_("high", static_cast<int64_t>(high), dyn::Value::uint(1, 1));
  for (int i = 0; i < 9; ++i) g.items().push_back(dyn::Value::uint(2, 1));  // the block remade, bigger
  BOOST_TEST(g.tag() == high);
  BOOST_TEST(g.items().size() == 10u);
  dyn::Value a;
  a.set_tag(high);  // an Absent value becomes a Union
  BOOST_TEST((a.kind == dyn::Value::Kind::Union));
  BOOST_TEST(a.tag() == high);
  BOOST_TEST(d.encode(v) == bytes, boost::test_tools::per_element());
  BOOST_TEST(d.encode(m) == bytes, boost::test_tools::per_element());
}

// A union value holds its case name as an interned id (Value::case_id(),
// dynamic::intern_id): names over a short string's 15 characters decoded,
// compared, copied, printed, read back and encoded; the ids of equal names
// equal across two schemas loaded apart and across threads; and the
// encoder's case found by id, the name deciding when the value's tag is
// another case's: one sharing its tag slot (1 and 65) or alone in it (2).
BOOST_AUTO_TEST_CASE(union_case_names_are_interned_ids) {
  const std::string text =
      union_cases_schema("a_rather_long_case_name_one", "a_rather_long_case_name_wide", "a_rather_long_case_name_two");
  const dyn::Schema d = dyn::Schema::load_text(text, "longcases.yaml");
  const std::vector<uint8_t> bytes = {3, 1, 0x11, 65, 0x33, 0x22, 1, 0x44};
  const dyn::Value v = d.decode(bytes);
  const dyn::Value& u = v["items"][1]["value"];
  BOOST_TEST((u.kind == dyn::Value::Kind::Union));
  BOOST_TEST(u.case_name() == "a_rather_long_case_name_wide");
  BOOST_TEST(u.case_id() == dyn::intern_id("a_rather_long_case_name_wide"));
  BOOST_TEST(dyn::interned(u.case_id()).data() == dyn::intern("a_rather_long_case_name_wide").data());
  BOOST_TEST(u.str().empty());
  BOOST_TEST(u.items()[0].as_uint() == 0x2233u);
  BOOST_TEST(v["items"][0]["value"].case_name() == "a_rather_long_case_name_one");
  // Equal: the same case by id; a copy keeps it; another case's name, or a
  // value made by hand with the name, compares by the name's id.
  const dyn::Value c = v;
  BOOST_TEST((c == v));
  BOOST_TEST(c["items"][1]["value"].case_name() == "a_rather_long_case_name_wide");
  BOOST_TEST((dyn::Value::union_(std::string("a_rather_long_case_name_wide"), 65, dyn::Value::uint(0x2233, 2)) == u));
  BOOST_TEST(!(dyn::Value::union_("a_rather_long_case_name_one", 65, dyn::Value::uint(0x2233, 2)) == u));
  BOOST_TEST(dyn::Value::uint(1, 1).case_name().empty());
  BOOST_TEST(dyn::Value::uint(1, 1).case_id() == 0u);
  // Printed and read back: the case's name as its key, the same bytes.
  const std::string yaml = d.to_text(v, binschema::TextKind::Yaml);
  BOOST_TEST(yaml.find("a_rather_long_case_name_wide: 8755") != std::string::npos, yaml);
  const dyn::Value back = d.from_text(yaml);
  BOOST_TEST((back == v));
  BOOST_TEST(d.encode(back) == bytes, boost::test_tools::per_element());
  BOOST_TEST(d.encode(c) == bytes, boost::test_tools::per_element());
  // The name decides: `wide` with the tag of `one` (its slot's other case)
  // and back, and `wide` with the tag of `two` (alone in its slot).
  dyn::Value w = v;
  w["items"][0]["value"] = dyn::Value::union_("a_rather_long_case_name_wide", 1, dyn::Value::uint(0x5566, 2));
  w["items"][1]["value"] = dyn::Value::union_("a_rather_long_case_name_one", 65, dyn::Value::uint(0x77, 1));
  w["items"][2]["value"] = dyn::Value::union_("a_rather_long_case_name_wide", 2, dyn::Value::uint(0x0a0b, 2));
  const std::vector<uint8_t> want = {3, 65, 0x66, 0x55, 1, 0x77, 65, 0x0b, 0x0a};
  BOOST_TEST(d.encode(w) == want, boost::test_tools::per_element());
  w["items"][2]["value"] = dyn::Value::union_("a_rather_long_case_name_three", 1, dyn::Value::uint(1, 1));
  BOOST_TEST(encode_error(d, w) == "Item.value: no case 'a_rather_long_case_name_three'");
  // The same schema loaded again, and values made on other threads: the
  // same ids, so either schema encodes the other's values.
  const dyn::Schema d2 = dyn::Schema::load_text(text, "longcases.yaml");
  BOOST_TEST(d2.decode(bytes)["items"][1]["value"].case_id() == u.case_id());
  BOOST_TEST(d2.encode(v) == bytes, boost::test_tools::per_element());
  std::vector<dyn::Value> made(4);
  std::vector<uint32_t> ids(4);
  {
    std::vector<std::thread> ts;
    for (size_t t = 0; t < made.size(); ++t)
      ts.emplace_back([&, t] {
        // Names of their own first (the table grows while the others read it).
        for (int i = 0; i < 2000; ++i) (void)dyn::intern_id("thread " + std::to_string(t) + " name " + std::to_string(i));
        made[t] = (t % 2 ? d : d2).decode(bytes);
        ids[t] = dyn::intern_id("a_rather_long_case_name_wide");
      });
    for (auto& th : ts) th.join();
  }
  for (size_t t = 0; t < made.size(); ++t) {
    BOOST_TEST(ids[t] == u.case_id());
    BOOST_TEST((made[t] == v));
    BOOST_TEST(made[t]["items"][1]["value"].case_name() == "a_rather_long_case_name_wide");
    BOOST_TEST(dyn::interned(dyn::intern_id("thread " + std::to_string(t) + " name 1999")) == "thread " + std::to_string(t) + " name 1999");
  }
}

// A constant (const:, reserved:) and a union's tag are written from their
// step, and a union's case from what its step decided for that case (its
// room, its number's store, its struct's steps): every kind of case, a
// 24-bit number (not a plain store), numbers of another kind, and values
// that do not fit.
BOOST_AUTO_TEST_CASE(constants_tags_and_cases_decided_per_step) {
  const dyn::Schema d = dyn::Schema::load_text(R"(format: steps
title: Steps
doc: Constants, tags and cases.
endian: little
extensions: [.stp]
versions: "1"
root: Head
types:
  Head:
    doc: A constant, a gap and a list of tagged values.
    fields:
      - {name: magic, type: u16, const: 0x1234, doc: M.}
      - {name: pad, type: u32, reserved: true, doc: P.}
      - {name: n, type: u8, doc: N.}
      - {name: items, type: "Item[]", count: n, doc: I.}
  Item:
    doc: A tag, a gap and a value padded to 4 bytes.
    fields:
      - {name: kind, type: u8, doc: K.}
      - {name: zero, type: u8, reserved: true, doc: Z.}
      - name: value
        type: union
        tag: kind
        pad_to: 4
        doc: V.
        cases:
          - {value: 1, name: small, type: u16, doc: S.}
          - {value: 2, name: big, type: u24, doc: B.}
          - {value: 3, name: flag, type: bool8, doc: F.}
          - {value: 4, name: real, type: f32, doc: R.}
          - {value: 5, name: three, type: "u8[3]", doc: T.}
          - {value: 6, name: sub, type: Sub, doc: S.}
          - {value: 7, name: wide, type: u64, doc: W.}
          - {value: 8, name: sbig, type: s24, doc: N.}
  Sub:
    doc: A number and a constant.
    fields:
      - {name: a, type: u8, doc: A.}
      - {name: c, type: u8, const: 0x7f, doc: C.}
)",
                                                   "steps.yaml");
  const std::vector<uint8_t> want = {0x34, 0x12, 0, 0, 0, 0, 7,  // magic, pad, n
                                     1, 0, 0xef, 0xbe, 0, 0,     // small
                                     2, 0, 0x56, 0x34, 0x12, 0,  // big: three bytes
                                     3, 0, 1, 0, 0, 0,           // flag
                                     4, 0, 0, 0, 0xc0, 0x3f,     // real 1.5
                                     5, 0, 1, 2, 3, 0,           // three
                                     6, 0, 9, 0x7f, 0, 0,        // sub
                                     7, 0, 8, 7, 6, 5, 4, 3, 2, 1};  // wide: the union has no fixed size
  const dyn::Value v = d.decode(want);
  BOOST_TEST(d.encode(v) == want, boost::test_tools::per_element());
  dyn::Value w = v;
  // A value holding another case's tag (small's): the name decides.
  w["items"][1]["value"] = dyn::Value::union_("big", 1, dyn::Value::uint(0x123456, 4));
  BOOST_TEST(d.encode(w) == want, boost::test_tools::per_element());
  // Numbers of another kind than their case's, stored as the general way converts them.
  w["items"][2]["value"] = dyn::Value::union_("flag", 3, dyn::Value::uint(7, 1));
  w["items"][3]["value"] = dyn::Value::union_("real", 4, dyn::Value::float64(1.5));
  BOOST_TEST(d.encode(w) == want, boost::test_tools::per_element());
  // An absent number: 0 in its case's width (the general way).
  w["items"][6]["value"] = dyn::Value::union_("big", 2, dyn::Value::absent());
  std::vector<uint8_t> zero(want.begin(), want.end() - 10);
  for (uint8_t b : {2, 0, 0, 0, 0, 0}) zero.push_back(b);
  BOOST_TEST(d.encode(w) == zero, boost::test_tools::per_element());
  // A number that does not fit its case.
  w["items"][0]["value"] = dyn::Value::union_("small", 1, dyn::Value::uint(0x10000, 4));
  BOOST_TEST(encode_error(d, w) == "Item.value: value 65536 does not fit in u16");
  w["items"][0]["value"] = dyn::Value::union_("big", 2, dyn::Value::uint(0x1000000, 4));
  // Named as a plain u24 field's error is, and as the generated code says it (its
  // union case once did not compile: static_cast<binschema::uint24>).
  BOOST_TEST(encode_error(d, w) == "Item.value: value 16777216 does not fit in 24 bits");
  for (const int64_t n : {int64_t(-0x800001), int64_t(0x800000)}) {
    w["items"][0]["value"] = dyn::Value::union_("sbig", 8, dyn::Value::int_(n, 4));
    BOOST_TEST(encode_error(d, w) == "Item.value: value " + std::to_string(n) + " does not fit in 24 bits");
  }
  w["items"][0]["value"] = dyn::Value::union_("sbig", 8, dyn::Value::int_(-0x800000, 4));
  const std::vector<uint8_t> s24 = d.encode(w);
  BOOST_TEST(std::vector<uint8_t>(s24.begin() + 7, s24.begin() + 12) == (std::vector<uint8_t>{8, 0, 0, 0, 0x80}), boost::test_tools::per_element());
}

// place_ follows a struct's layout from its steps: a pointer under if:
// placed only when its condition holds, a union's case placed where it
// points (a list of unions, one of them pointing), an inline list of
// pointers (not a pointer of its own).
BOOST_AUTO_TEST_CASE(targets_placed_from_the_steps) {
  const dyn::Schema d = dyn::Schema::load_text(R"(format: places
title: Places
doc: Targets under if:, of unions and of inline pointers.
endian: little
extensions: [.plc]
versions: "1, 2"
root: Head
types:
  Head:
    doc: A version, an optional pointer, a pointer, two tagged values and a list of pointers.
    fields:
      - {name: version, type: u8, doc: V.}
      - {name: n, type: u8, doc: N.}
      - {name: kinds, type: "u8[]", count: n, doc: K.}
      - {name: opt, type: Blob, ptr: u16, if: "version >= 2", doc: O.}
      - {name: one, type: Blob, ptr: u16, doc: O.}
      - name: values
        type: "union[]"
        count: n
        tag: kinds
        doc: V.
        cases:
          - {value: 1, name: num, type: u16, doc: N.}
          - {value: 2, name: blob, type: Blob, ptr: u16, doc: B.}
      - {name: list, type: "Blob[2]", elem_ptr: u16, doc: L.}
  Blob:
    doc: Two bytes.
    size: 2
    fields:
      - {name: x, type: u16, doc: X.}
)",
                                                   "places.yaml");
  // version 1: no opt; one's target, the list's two, then the union's.
  const std::vector<uint8_t> v1 = {1, 2, 1, 2, 14, 0, 5, 1, 20, 0, 16, 0, 18, 0, 0xbb, 0xbb, 0xcc, 0xcc, 0xdd, 0xdd, 0xaa, 0xaa};
  dyn::Value a = d.decode(v1);
  if (dyn::Value* o = a.find("opt")) *o = dyn::Value::absent();  // (decode leaves an empty struct there)
  BOOST_TEST(d.encode(a) == v1, boost::test_tools::per_element());
  // version 2: opt's target first.
  const std::vector<uint8_t> v2 = {2, 2, 1, 2, 16, 0, 18, 0, 5, 1, 24, 0, 20, 0, 22, 0, 0x42, 0x42, 0xbb, 0xbb, 0xcc, 0xcc, 0xdd, 0xdd, 0xaa, 0xaa};
  BOOST_TEST(d.encode(d.decode(v2)) == v2, boost::test_tools::per_element());
  // Both cases pointing: two union targets, in the list's order.
  const std::vector<uint8_t> v3 = {1, 2, 2, 2, 14, 0, 20, 0, 22, 0, 16, 0, 18, 0, 0xbb, 0xbb, 0xcc, 0xcc, 0xdd, 0xdd, 0x11, 0x11, 0x22, 0x22};
  dyn::Value c = d.decode(v3);
  if (dyn::Value* o = c.find("opt")) *o = dyn::Value::absent();
  BOOST_TEST(d.encode(c) == v3, boost::test_tools::per_element());
}

// What place_target reads of a pointer for every target, decided once per
// field: an empty list's null (when_empty), an absent struct's null and its
// null_value, a list of numbers' size, the slot where the struct says.
BOOST_AUTO_TEST_CASE(pointer_slots_decided_per_field) {
  const dyn::Schema d = dyn::Schema::load_text(R"(format: slots
title: Slots
doc: Pointers that may point nowhere.
endian: little
extensions: [.slt]
versions: "1"
root: Head
types:
  Head:
    doc: A count and three pointers.
    fields:
      - {name: na, type: u8, doc: N.}
      - {name: a, type: "u16[]", ptr: u16, count: na, nullable: when_empty, doc: A.}
      - {name: b, type: Word, ptr: u16, nullable: true, null_value: 0xffff, doc: B.}
      - {name: c, type: Word, ptr: u16, nullable: true, doc: C.}
  Word:
    doc: A word.
    size: 4
    fields:
      - {name: w, type: u32, doc: W.}
)",
                                                   "slots.yaml");
  // a's two numbers at 8, b's word at 12, no c.
  const std::vector<uint8_t> one = {2, 8, 0, 12, 0, 0, 0, 0, 0x11, 0x11, 0x22, 0x22, 0x44, 0x33, 0x22, 0x11};
  const dyn::Value v1 = d.from_text("format: slots\na: [0x1111, 0x2222]\nb: {w: 0x11223344}\nc: null\n");
  BOOST_TEST(d.encode(v1) == one, boost::test_tools::per_element());
  // No numbers (0), no b (its null_value), c's word at 8.
  const std::vector<uint8_t> two = {0, 0, 0, 0xff, 0xff, 8, 0, 0, 0x44, 0x33, 0x22, 0x11};
  const dyn::Value v2 = d.from_text("format: slots\na: []\nb: null\nc: {w: 0x11223344}\n");
  BOOST_TEST(d.encode(v2) == two, boost::test_tools::per_element());
  BOOST_TEST(d.encode(d.decode(one)) == one, boost::test_tools::per_element());
  BOOST_TEST(d.encode(d.decode(two)) == two, boost::test_tools::per_element());
}

// A sum of counts, numbers and constants is compiled into one node (its
// terms added left to right), a derived sum inlined into another sum.
BOOST_AUTO_TEST_CASE(sums_of_counts_added_in_one_step) {
  const dyn::Schema d = dyn::Schema::load_text(R"Y(format: sums
title: Sums
doc: Sums of counts.
endian: little
extensions: [.sum]
versions: "1"
root: Sums
types:
  Sums:
    doc: Two lists, a number and sums of them.
    fields:
      - {name: nx, type: u8, doc: X's count.}
      - {name: ny, type: u8, doc: Y's count.}
      - {name: n, type: u8, doc: N.}
      - {name: x, type: "u8[]", count: nx, doc: X.}
      - {name: y, type: "u8[]", count: ny, doc: Y.}
      - {name: base, type: u8, derive: "count(x) + count(y) + n + 2", doc: B.}
      - {name: nested, type: u8, derive: "(count(x) + 1) + (n + count(y))", doc: N.}
      - {name: again, type: u8, derive: "base + 1", doc: A.}
      - {name: mixed, type: u8, derive: "nx * 2 + count(y) - 1", doc: M.}
)Y",
                                                   "sums.yaml");
  const std::vector<uint8_t> one = {3, 1, 5, 1, 2, 3, 4, 11, 10, 12, 6};
  BOOST_TEST(d.encode(d.from_text("format: sums\nn: 5\nx: [1, 2, 3]\ny: [4]\n")) == one, boost::test_tools::per_element());
  const std::vector<uint8_t> two = {0, 2, 250, 9, 9, 254, 253, 255, 1};
  BOOST_TEST(d.encode(d.from_text("format: sums\nn: 250\nx: []\ny: [9, 9]\n")) == two, boost::test_tools::per_element());
  // 256 does not fit again's byte.
  BOOST_CHECK_THROW(d.encode(d.from_text("format: sums\nn: 251\nx: []\ny: [9, 9]\n")), binschema::EncodeError);
}

// put_ writes a field with nothing around it (no if:, region, prelude)
// itself: a constant, a derived value, a count and a bit word at the cursor
// (Op::Scalar), a struct in place of a fixed size and of none (Op::Struct),
// each at its place, their errors named as put_field names them, and a value
// of another shape than the plan's read by name. A derived value that other
// expressions name (`total`: a ?: over two counts, in two derived fields and
// an if:) is worked out once per struct value: each group its own.
BOOST_AUTO_TEST_CASE(bare_steps_written_by_put_and_derived_once) {
  const dyn::Schema d = dyn::Schema::load_text(R"Y(format: bare
title: Bare
doc: Fields put_ writes itself.
endian: little
extensions: [.bar]
versions: "1"
root: Head
types:
  Inner:
    doc: Two bytes.
    fields:
      - {name: p, type: u8, doc: P.}
      - {name: q, type: u8, doc: Q.}
  Var:
    doc: A count and its list (no fixed size).
    fields:
      - {name: n, type: u8, doc: N.}
      - {name: l, type: "u8[]", count: n, doc: L.}
  Group:
    doc: Two lists, a derived value named by others.
    fields:
      - {name: na, type: u8, doc: NA.}
      - {name: nb, type: u8, doc: NB.}
      - {name: total, type: u8, derive: "count(a) != 0 || count(b) != 0 ? count(a) + count(b) + 1 : 0", doc: T.}
      - {name: base, type: u8, derive: "total + count(a)", doc: B.}
      - {name: twice, type: u8, derive: "total * 2", doc: W.}
      - {name: a, type: "u8[]", count: na, doc: A.}
      - {name: b, type: "u8[]", count: nb, doc: B.}
      - {name: extra, type: u8, if: "total != 0", doc: E.}
  Head:
    doc: A list, then everything at the cursor.
    fields:
      - {name: magic, type: u16, const: 0x4242, doc: M.}
      - {name: n, type: u8, doc: N.}
      - {name: list, type: "u8[]", count: n, doc: L.}
      - {name: c, type: u8, const: 0x7f, doc: C.}
      - {name: size, type: u8, derive: "count(list) + 1", doc: S.}
      - name: flags
        type: u8
        doc: F.
        bits:
          - {name: x, bits: 3, doc: X.}
          - {name: y, bits: 5, doc: Y.}
      - {name: inner, type: Inner, doc: I.}
      - {name: var, type: Var, doc: V.}
      - {name: ng, type: u8, doc: NG.}
      - {name: groups, type: "Group[]", count: ng, doc: G.}
)Y",
                                                   "bare.yaml");
  const dyn::Value v = d.from_text(
      "format: bare\nlist: [1, 2]\nflags: {x: 5, y: 3}\ninner: {p: 1, q: 2}\nvar: {l: [7, 8, 9]}\n"
      "groups:\n  - {a: [1], b: [2, 3], extra: 4}\n  - {a: [], b: []}\n  - {a: [], b: [6]}\n");
  const std::vector<uint8_t> want = {0x42, 0x42, 2, 1, 2,  // magic, n, list
                                     0x7f, 3, 5 | 3 << 3,  // c, size, flags: at the cursor
                                     1, 2, 3, 7, 8, 9,     // inner, var
                                     3,                    // ng
                                     1, 2, 4, 5, 8, 1, 2, 3, 4,  // total 1 + 2 + 1, base, twice, a, b, extra
                                     0, 0, 0, 0, 0,              // total 0: no extra
                                     0, 1, 2, 2, 4, 6, 0};       // total 2: extra 0
  BOOST_TEST(d.encode(v) == want, boost::test_tools::per_element());
  BOOST_TEST(d.encode(d.decode(want)) == want, boost::test_tools::per_element());
  // Every struct's members in reverse order: not the plan's shape, read by name, the same bytes.
  const std::function<dyn::Value(const dyn::Value&)> reversed = [&](const dyn::Value& x) {
    if (x.kind == dyn::Value::Kind::Array) {
      dyn::Value r = dyn::Value::array();
      for (const auto& e : x.items()) r.items().push_back(reversed(e));
      return r;
    }
    if (x.kind != dyn::Value::Kind::Struct) return x;
    dyn::Value r = dyn::Value::struct_();
    for (size_t i = x.fields().size(); i-- > 0;) r.add(x.fields()[i].name, reversed(x.fields()[i].value));
    return r;
  };
  const dyn::Value r = reversed(v);
  BOOST_TEST(r["inner"].fields().shape() != v["inner"].fields().shape());
  BOOST_TEST(d.encode(r) == want, boost::test_tools::per_element());
  // Errors inside the short ways, named by their field.
  dyn::Value e = v;
  e["inner"]["q"] = dyn::Value::uint(300, 2);
  BOOST_TEST(encode_error(d, e) == "Inner.q: value 300 does not fit in u8");
  e = v;
  e["var"]["l"].items()[1] = dyn::Value::int_(-1, 1);
  BOOST_TEST(encode_error(d, e) == "Var.l: value -1 does not fit in u8");
  e = v;
  e["flags"]["y"] = dyn::Value::uint(32, 1);
  BOOST_TEST(encode_error(d, e) == "Head.flags.y: value 32 does not fit in 5 bits");
  e = v;
  e["flags"] = dyn::Value::uint(5, 1);
  BOOST_TEST(encode_error(d, e) == "Head.flags: a map of its bits expected");
  e = v;
  e["groups"].items()[1]["extra"] = dyn::Value::uint(9, 1);
  BOOST_TEST(encode_error(d, e) == "Group.extra: not stored when total != 0 is false");
}

// A struct value of its struct's shape (decoded, read from text) has its
// members read by index with no name compared (the writer's frame: put_,
// and place_'s targets), a bit word of its bits' shape its bits likewise; a value built with its
// members in another order is read by name and gives the same bytes.
BOOST_AUTO_TEST_CASE(members_read_by_shape_else_by_name) {
  const dyn::Schema d = dyn::Schema::load_text(R"Y(format: frame
title: Frame
doc: Members in order and not.
endian: little
extensions: [.frm]
versions: "1"
root: Head
types:
  Inner:
    doc: Two bytes.
    size: 2
    fields:
      - {name: p, type: u8, doc: P.}
      - {name: q, type: u8, doc: Q.}
  Head:
    doc: Numbers, bits, a sum, a struct and a list.
    fields:
      - {name: a, type: u8, doc: A.}
      - name: flags
        type: u16
        doc: Flags.
        bits:
          - {name: x, bits: 4, doc: X.}
          - {name: y, bits: 1, type: bool, doc: Y.}
          - {name: z, bits: 11, doc: Z.}
      - {name: b, type: u16, derive: "count(list) + a", doc: B.}
      - {name: inner, type: Inner, doc: I.}
      - {name: n, type: u8, doc: N.}
      - {name: list, type: "u8[]", count: n, doc: L.}
      - {name: tail, type: Inner, ptr: u16, doc: T.}
)Y",
                                                   "frame.yaml");
  const dyn::Value v = d.from_text("format: frame\na: 7\nflags: {x: 3, y: true, z: 100}\ninner: {p: 1, q: 2}\nlist: [9, 8]\ntail: {p: 5, q: 6}\n");
  const std::vector<uint8_t> want = {7, 0x93, 0x0C, 9, 0, 1, 2, 2, 9, 8, 12, 0, 5, 6};
  BOOST_TEST(d.encode(v) == want, boost::test_tools::per_element());
  // Every struct's members (the bit word's bits too) in reverse order: another shape, the same bytes.
  const std::function<dyn::Value(const dyn::Value&)> reversed = [&](const dyn::Value& x) {
    if (x.kind != dyn::Value::Kind::Struct) return x;
    dyn::Value r = dyn::Value::struct_();
    for (size_t i = x.fields().size(); i-- > 0;) r.add(x.fields()[i].name, reversed(x.fields()[i].value));
    return r;
  };
  const dyn::Value r = reversed(v);
  BOOST_TEST(r.fields().shape() != v.fields().shape());
  BOOST_TEST(r["flags"].fields().shape() != v["flags"].fields().shape());
  BOOST_TEST(d.encode(r) == want, boost::test_tools::per_element());
  // A member missing from a value of another shape is named.
  dyn::Value m = dyn::Value::struct_();
  for (const auto& e : r.fields())
    if (e.name != "a") m.add(e.name, e.value);
  BOOST_TEST(encode_error(d, m) == "Head.a: missing");
}

// A bit word whose members are its bits in order is packed with one
// mask per bit of what is over its limit: the largest value of each bit fits
// and lands at its place, one more is named with the general message.
BOOST_AUTO_TEST_CASE(bit_word_in_order_packed_against_limits) {
  const dyn::Schema d = dyn::Schema::load_text(R"Y(format: bitw
title: Bitw
doc: A bit word.
endian: little
extensions: [.btw]
versions: "1"
root: Head
types:
  Head:
    doc: Bits.
    fields:
      - name: flags
        type: u32
        doc: Flags.
        bits:
          - {name: x, bits: 4, doc: X.}
          - {name: y, bits: 1, type: bool, doc: Y.}
          - {name: z, bits: 11, doc: Z.}
          - {name: w, bits: 16, doc: W.}
)Y",
                                               "bitw.yaml");
  const auto word = [&](const char* bits) { return d.from_text(std::string("format: bitw\nflags: {") + bits + "}\n"); };
  BOOST_TEST(d.encode(word("x: 15, y: true, z: 2047, w: 65535")) == (std::vector<uint8_t>{0xFF, 0xFF, 0xFF, 0xFF}),
             boost::test_tools::per_element());
  BOOST_TEST(d.encode(word("x: 0, y: true, z: 0, w: 0")) == (std::vector<uint8_t>{0x10, 0, 0, 0}), boost::test_tools::per_element());
  BOOST_TEST(d.encode(word("x: 0, y: false, z: 1024, w: 1")) == (std::vector<uint8_t>{0, 0x80, 1, 0}), boost::test_tools::per_element());
  BOOST_TEST(encode_error(d, word("x: 16, y: false, z: 0, w: 0")) == "Head.flags.x: value 16 does not fit in 4 bits");
  BOOST_TEST(encode_error(d, word("x: 1, y: false, z: 2048, w: 0")) == "Head.flags.z: value 2048 does not fit in 11 bits");
  // A bool bit is stored as it is when 0 or 1 (its limit); any other number
  // (a value built in C++) is true, as put_scalar's general way takes it.
  dyn::Value two = word("x: 3, y: false, z: 8, w: 0");
  two["flags"]["y"] = dyn::Value::uint(2, 1);
  BOOST_TEST(d.encode(two) == (std::vector<uint8_t>{0x13, 0x01, 0, 0}), boost::test_tools::per_element());
  two["flags"]["y"] = dyn::Value::uint(1, 1);
  BOOST_TEST(d.encode(two) == (std::vector<uint8_t>{0x13, 0x01, 0, 0}), boost::test_tools::per_element());
}

// A derived value with also: (decided per step): what the file held is
// kept when it is the value or one of also:'s, else the value is written.
BOOST_AUTO_TEST_CASE(derived_values_with_also_kept_from_the_layout) {
  const dyn::Schema d = dyn::Schema::load_text(R"Y(format: also
title: Also
doc: A size that may be kept.
endian: little
extensions: [.als]
versions: "1"
root: Head
types:
  Head:
    doc: A count, a size and a list.
    fields:
      - {name: n, type: u8, doc: N.}
      - {name: size, type: u8, derive: "n ? 4 : 0", also: [4], doc: S.}
      - {name: list, type: "u32[]", count: n, doc: L.}
)Y",
                                                   "also.yaml");
  const std::vector<uint8_t> empty_kept = {0, 4};
  binschema::Layout layout;
  const dyn::Value v = d.decode(empty_kept, layout);
  BOOST_TEST(d.encode(v, layout) == empty_kept, boost::test_tools::per_element());  // 4: one of also:'s, kept
  const std::vector<uint8_t> fresh = {0, 0};
  BOOST_TEST(d.encode(v) == fresh, boost::test_tools::per_element());  // no layout: the value
  dyn::Value one = v;
  one["list"].items().push_back(dyn::Value::uint(1, 4));
  const std::vector<uint8_t> counted = {1, 4, 1, 0, 0, 0};
  BOOST_TEST(d.encode(one, layout) == counted, boost::test_tools::per_element());
}

// Where a field at a variable offset went is noted while the struct is
// written and looked up when its target is placed: near the last look-up,
// or (here: the last of 20 pointers after a string, placed first) through
// the index of all that were noted.
// A schema `format` rooted at Head whose types begin with a one-byte Leaf
// (the tests of field positions add theirs after it).
static std::string leaf_schema(const std::string& format, const std::string& title, const std::string& doc) {
  return "format: " + format + "\ntitle: " + title + "\ndoc: " + doc + "\nendian: little\nextensions: [." + format +
         "]\nversions: \"1\"\nroot: Head\ntypes:\n"
         "  Leaf:\n    doc: Leaf.\n    size: 1\n    fields:\n      - {name: v, type: u8, doc: V.}\n";
}

BOOST_AUTO_TEST_CASE(far_field_positions_found_through_the_index) {
  std::string schema = leaf_schema("far", "Far", "Pointers at variable offsets.") + R"(  Head:
    doc: Head.
    fields:
      - {name: name, type: cstring, doc: Name.}
)";
  std::string layout = "    layout: [p19";
  for (int i = 0; i < 20; ++i) {
    const std::string n = std::to_string(i);
    schema.append("      - {name: p").append(n).append(", type: Leaf, ptr: u32, doc: P.}\n");
    if (i < 19) layout.append(", p").append(n);
  }
  const dyn::Schema d = dyn::Schema::load_text(schema + layout + "]\n", "far.yaml");
  std::string text = "format: far\nname: a\n";
  for (int i = 0; i < 20; ++i) {
    const std::string n = std::to_string(i);
    text.append("p").append(n).append(": {v: ").append(n).append("}\n");
  }
  const dyn::Value v = d.from_text(text);
  const std::vector<uint8_t> b = d.encode(v);
  // name (2), 20 pointers; p19's target first (at 82), then p0's to p18's.
  BOOST_REQUIRE(b.size() == 82u + 20);
  auto u32 = [&](size_t at) { return b[at] | b[at + 1] << 8 | b[at + 2] << 16 | b[at + 3] << 24; };
  BOOST_TEST(u32(2 + 4 * 19) == 82);
  BOOST_TEST(b[82] == 19);
  for (int i = 0; i < 19; ++i) {
    BOOST_TEST(u32(2 + 4 * i) == 83 + i);
    BOOST_TEST(b[83 + i] == i);
  }
  BOOST_TEST((d.decode(b) == v));
}

// Fields at variable offsets are noted in a log that grows by chunks of
// entries (AtMap, 2,048 a chunk): 3,000 nodes' pointers after names of
// varying length, each found again when its target is placed, across the chunks'
// ends (by the scan near the last hit; the trailing pointers of a layout
// read in another order go through the index, the test above).
BOOST_AUTO_TEST_CASE(field_positions_noted_across_log_chunks) {
  const dyn::Schema d = dyn::Schema::load_text(leaf_schema("many", "Many", "Many pointers at variable offsets.") + R"(  Node:
    doc: A name, then a pointer.
    fields:
      - {name: name, type: cstring, doc: Name.}
      - {name: p, type: Leaf, ptr: u32, doc: P.}
  Item:
    doc: An item.
    size: 4
    fields:
      - {name: q, type: Node, ptr: u32, doc: Q.}
  Head:
    doc: Head.
    fields:
      - {name: n, type: u32, doc: N.}
      - {name: items, type: "Item[]", count: n, doc: I.}
)", "many.yaml");
  constexpr uint32_t n = 3000;
  dyn::Value v = dyn::Value::struct_();
  v.add("n", dyn::Value::uint(n, 4));
  dyn::Value items = dyn::Value::array();
  for (uint32_t i = 0; i < n; ++i) {
    dyn::Value leaf = dyn::Value::struct_();
    leaf.add("v", dyn::Value::uint(i % 251, 1));
    dyn::Value node = dyn::Value::struct_();
    node.add("name", dyn::Value::string(std::string(i % 3, 'a')));
    node.add("p", std::move(leaf));
    dyn::Value item = dyn::Value::struct_();
    item.add("q", std::move(node));
    items.items().push_back(std::move(item));
  }
  v.add("items", std::move(items));
  const std::vector<uint8_t> b = d.encode(v);
  // Each node's pointer, after its name and NUL, points to its own leaf.
  auto u32 = [&](size_t at) { return b[at] | b[at + 1] << 8 | b[at + 2] << 16 | static_cast<uint32_t>(b[at + 3]) << 24; };
  uint32_t bad = 0;
  for (uint32_t i = 0; i < n; ++i) {
    const size_t node = u32(4 + 4 * i);
    BOOST_REQUIRE(node + i % 3 + 5 <= b.size());
    const size_t leaf = u32(node + i % 3 + 1);
    if (leaf >= b.size() || b[leaf] != i % 251) ++bad;
  }
  BOOST_TEST(bad == 0u);
  BOOST_TEST(d.encode(d.decode(b)) == b, boost::test_tools::per_element());
}

namespace {
// The first place two values differ, as a path (empty when equal).
std::string first_diff(const dyn::Value& a, const dyn::Value& b, const std::string& path) {
  if (a.kind != b.kind || a.width != b.width || a.as_uint() != b.as_uint() || a.str() != b.str())
    return path + " (kind " + std::to_string(int(a.kind)) + "/" + std::to_string(int(b.kind)) + ", width " + std::to_string(a.width) + "/" +
           std::to_string(b.width) + ", n " + std::to_string(a.as_uint()) + "/" + std::to_string(b.as_uint()) + ")";
  if (a.fields().size() != b.fields().size()) return path + " (members " + std::to_string(a.fields().size()) + "/" + std::to_string(b.fields().size()) + ")";
  for (size_t i = 0; i < a.fields().size(); ++i) {
    const std::string an(a.fields()[i].name), bn(b.fields()[i].name);
    if (an != bn) return path + "." + an + " / " + bn;
    if (std::string d = first_diff(a.fields()[i].value, b.fields()[i].value, path + "." + an); !d.empty()) return d;
  }
  if (a.items().size() != b.items().size()) return path + " (items " + std::to_string(a.items().size()) + "/" + std::to_string(b.items().size()) + ")";
  for (size_t i = 0; i < a.items().size(); ++i)
    if (std::string d = first_diff(a.items()[i], b.items()[i], path + "[" + std::to_string(i) + "]"); !d.empty()) return d;
  return "";
}
}  // namespace

// The engine's text in gives the value the engine's decode gives (the same
// Value, not only the same bytes): text read back is the decoded value.
BOOST_AUTO_TEST_CASE(text_in_gives_the_decoded_value) {
  size_t n = 0;
  for (const char* f : {"sarc", "al", "asb", "evnt", "bfevfl", "byml", "aamp", "baev"}) {
    const dyn::Schema d = load(std::string("schemas/") + f + ".yaml");
    const binschema::Format* fmt = binschema::find_format(f);
    for (const auto& e : fs::directory_iterator(fs::path(BINSCHEMA_SOURCE_DIR) / "examples")) {
      if (e.path().extension() != ".yaml" || !e.path().filename().string().starts_with(std::string(f) + "-")) continue;
      const std::vector<uint8_t> bytes = fmt->encode(binschema::text::load(read_text(e.path())));
      dyn::Value v;
      try {
        v = d.decode(bytes);
      } catch (const std::exception& ex) {
        BOOST_TEST_MESSAGE(f << ": the engine's decode: " << ex.what());
        continue;
      }
      for (const auto kind : {binschema::TextKind::Yaml, binschema::TextKind::Json}) {
        const dyn::Value back = d.from_text(d.to_text(v, kind));
        const std::string diff = first_diff(v, back, f);
        BOOST_TEST(diff == "", e.path().filename().string() << ": " << diff);
        ++n;
      }
    }
  }
  BOOST_TEST(n >= 10u);
}
