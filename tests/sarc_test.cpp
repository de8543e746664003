// SARC over the real archives in ../shared/samples/sarc/ (fails when they are
// missing): one schema (schemas/sarc.yaml, `endian: bom`, no hooks) reads
// both byte orders and writes each file back byte for byte, directly and
// through YAML and JSON. Renaming, adding and removing files in the text, and
// an archive made from a fresh model, give archives that a small SARC reader
// of this test's own (independent of the schema) finds valid.
#define BOOST_TEST_MODULE sarc_test
#include <boost/test/unit_test.hpp>

#include <yaml-cpp/yaml.h>

#include "sarc_text.h"
#include "samples.h"

#include <sys/wait.h>
#include <unistd.h>
#include <zdict.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <span>

#include "binschema/compression.h"
#include "binschema/reader.h"
#include "bytes.h"
#include "generate.h"

using namespace binschema::sarc;

namespace {

std::string first_difference(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b) {
  size_t n = std::min(a.size(), b.size());
  for (size_t i = 0; i < n; ++i)
    if (a[i] != b[i]) return "first difference at " + binschema::hex(i) + " (sizes " + binschema::hex(a.size()) + ", " + binschema::hex(b.size()) + ")";
  return a.size() == b.size() ? "same" : "sizes differ: " + binschema::hex(a.size()) + " vs " + binschema::hex(b.size());
}

// --- A minimal SARC reader, written from the format's description (not from
// the schema): header, SFAT nodes, SFNT names, data ranges. -----------------
struct Entry {
  uint32_t hash = 0;
  std::string name;
  uint32_t name_offset = 0;  // bytes into the name table
  uint32_t begin = 0, end = 0;  // absolute file offsets
};
struct Archive {
  bool big = false;
  uint32_t multiplier = 0, data_offset = 0;
  std::vector<Entry> entries;
  std::map<std::string, std::vector<uint8_t>> files;
};

uint32_t get(const std::vector<uint8_t>& b, size_t at, int n, bool big) {
  BOOST_REQUIRE_LE(at + n, b.size());
  uint32_t v = 0;
  for (int i = 0; i < n; ++i) v |= uint32_t(b[at + i]) << (8 * (big ? n - 1 - i : i));
  return v;
}

uint32_t sarc_hash(const std::string& name, uint32_t multiplier) {
  uint32_t h = 0;
  for (char c : name) h = h * multiplier + static_cast<uint32_t>(static_cast<int32_t>(static_cast<signed char>(c)));
  return h;
}

Archive parse(const std::vector<uint8_t>& b) {
  Archive a;
  BOOST_REQUIRE_GE(b.size(), 0x28u);
  BOOST_REQUIRE(std::string(b.begin(), b.begin() + 4) == "SARC");
  BOOST_REQUIRE((b[6] == 0xFE && b[7] == 0xFF) || (b[6] == 0xFF && b[7] == 0xFE));
  a.big = b[6] == 0xFE;
  BOOST_TEST(get(b, 4, 2, a.big) == 0x14u);
  BOOST_TEST(get(b, 8, 4, a.big) == b.size());
  a.data_offset = get(b, 0xC, 4, a.big);
  BOOST_TEST(get(b, 0x10, 2, a.big) == 0x100u);
  BOOST_REQUIRE(std::string(b.begin() + 0x14, b.begin() + 0x18) == "SFAT");
  const uint32_t count = get(b, 0x1A, 2, a.big);
  a.multiplier = get(b, 0x1C, 4, a.big);
  const size_t sfnt = 0x20 + size_t(count) * 0x10;
  BOOST_REQUIRE(std::string(b.begin() + sfnt, b.begin() + sfnt + 4) == "SFNT");
  const size_t names = sfnt + 8;
  for (uint32_t i = 0; i < count; ++i) {
    const size_t n = 0x20 + size_t(i) * 0x10;
    Entry e;
    e.hash = get(b, n, 4, a.big);
    const uint32_t attr = get(b, n + 4, 4, a.big);
    BOOST_REQUIRE_EQUAL(attr >> 24, 1u);  // every node here has a name
    e.name_offset = (attr & 0xFFFFFF) * 4;
    BOOST_REQUIRE_LT(names + e.name_offset, a.data_offset);
    e.name = reinterpret_cast<const char*>(b.data() + names + e.name_offset);
    e.begin = a.data_offset + get(b, n + 8, 4, a.big);
    e.end = a.data_offset + get(b, n + 12, 4, a.big);
    BOOST_REQUIRE_LE(e.begin, e.end);
    BOOST_REQUIRE_LE(e.end, b.size());
    a.files[e.name] = std::vector<uint8_t>(b.begin() + e.begin, b.begin() + e.end);
    a.entries.push_back(e);
  }
  return a;
}

// What every valid archive satisfies: hashes right, nodes sorted by hash,
// names padded to 4 in node order, data ranges in order and not overlapping.
void check_valid(const Archive& a) {
  for (size_t i = 0; i < a.entries.size(); ++i) {
    const Entry& e = a.entries[i];
    BOOST_TEST_CONTEXT(e.name) {
      BOOST_TEST(e.hash == sarc_hash(e.name, a.multiplier));
      if (i) {
        BOOST_TEST(a.entries[i - 1].hash < e.hash);
        BOOST_TEST(a.entries[i - 1].end <= e.begin);
        const Entry& p = a.entries[i - 1];
        BOOST_TEST(e.name_offset == p.name_offset + (p.name.size() + 1 + 3) / 4 * 4);
      } else {
        BOOST_TEST(e.name_offset == 0u);
        BOOST_TEST(e.begin == a.data_offset);
      }
    }
  }
}

std::string decode_error(const std::vector<uint8_t>& bytes) {
  try {
    decode(bytes);
  } catch (const binschema::DecodeError& e) {
    return e.what();
  }
  return "";
}

std::map<std::string, std::vector<uint8_t>> sample_archives() {
  std::map<std::string, std::vector<uint8_t>> out;
  for (const auto& p : samples::files("sarc")) out[p.filename().string()] = samples::read(p);
  return out;
}

}  // namespace

BOOST_AUTO_TEST_CASE(every_sample_rewrites_byte_for_byte) {
  const auto archives = sample_archives();
  BOOST_TEST(archives.size() == 3u);  // the 3 files in ../shared/samples/sarc/PROVENANCE.md
  for (const auto& [name, bytes] : archives) {
    BOOST_TEST_CONTEXT(name) {
      const Sarc s = decode(bytes);
      const auto again = encode(s);
      BOOST_TEST((again == bytes), first_difference(again, bytes));
      for (auto kind : {binschema::TextKind::Yaml, binschema::TextKind::Json}) {
        const auto text = encode(from_text(to_text(s, kind)));
        BOOST_TEST((text == bytes), (kind == binschema::TextKind::Json ? "json: " : "yaml: ") << first_difference(text, bytes));
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(the_byte_order_mark_picks_the_byte_order) {
  const auto archives = sample_archives();
  const std::map<std::string, bool> big = {{"A-1.00.sarc", false}, {"ActorObserverByActorTagTag.sarc", false}, {"test.sarc", true}};
  for (const auto& [name, bytes] : archives) {
    BOOST_TEST_CONTEXT(name) {
      const Sarc s = decode(bytes);
      BOOST_TEST(s.bom == (big.at(name) ? 0xFEFFu : 0xFFFEu));
      const Archive a = parse(bytes);
      BOOST_TEST(a.big == big.at(name));
      BOOST_TEST(s.nodes.size() == a.entries.size());
      BOOST_TEST(s.hash_multiplier == a.multiplier);
      for (size_t i = 0; i < s.nodes.size() && i < a.entries.size(); ++i) BOOST_TEST(s.nodes[i].attributes.name == a.entries[i].name);
      // The real archives are valid by this test's own reading too.
      check_valid(a);
    }
  }
}

BOOST_AUTO_TEST_CASE(flipping_the_mark_writes_the_other_byte_order) {
  for (const auto& [name, bytes] : sample_archives()) {
    BOOST_TEST_CONTEXT(name) {
      Sarc s = decode(bytes);
      const bool was_big = s.bom == 0xFEFF;
      s.bom = was_big ? 0xFFFE : 0xFEFF;
      const auto flipped = encode(s);
      BOOST_TEST(flipped.size() == bytes.size());
      const Archive a = parse(bytes), b = parse(flipped);
      BOOST_TEST(b.big == !was_big);
      BOOST_TEST(b.multiplier == a.multiplier);
      BOOST_TEST(b.data_offset == a.data_offset);
      BOOST_TEST((b.files == a.files));
      check_valid(b);
      // And back again gives the original.
      s.bom = was_big ? 0xFEFF : 0xFFFE;
      BOOST_TEST((encode(decode(flipped)) == flipped));
      BOOST_TEST((encode(s) == bytes));
    }
  }
}

BOOST_AUTO_TEST_CASE(names_are_read_padded_to_4) {
  for (const auto& [name, bytes] : sample_archives()) {
    BOOST_TEST_CONTEXT(name) {
      const Sarc s = decode(bytes);
      const Archive a = parse(bytes);
      BOOST_REQUIRE_EQUAL(s.nodes.size(), a.entries.size());
      for (size_t i = 0; i < a.entries.size(); ++i) BOOST_TEST(s.nodes[i].attributes.name == a.entries[i].name);
    }
  }
  // A padding byte that is not zero would not be written back: refused.
  auto bytes = samples::read(samples::dir("sarc") / "ActorObserverByActorTagTag.sarc");
  const Archive a = parse(bytes);
  size_t i = 0;
  while (i < a.entries.size() && (a.entries[i].name.size() + 1) % 4 == 0) ++i;
  BOOST_REQUIRE_LT(i, a.entries.size());
  const size_t names = 0x28 + a.entries.size() * 0x10, pad = names + a.entries[i].name_offset + a.entries[i].name.size() + 1;
  bytes[pad] = 'A';
  BOOST_TEST(decode_error(bytes) == "names: padding byte 0x41 after a string is not zero (at " + binschema::hex(pad) + ")");
}

BOOST_AUTO_TEST_CASE(a_bad_byte_order_mark_is_refused) {
  auto bytes = samples::read(samples::dir("sarc") / "ActorObserverByActorTagTag.sarc");
  bytes[6] = 0x12;
  bytes[7] = 0x34;
  BOOST_TEST(decode_error(bytes) == "bom: byte order mark 0x1234 is neither 0xFEFF (big-endian) nor 0xFFFE (little-endian) (at 0x6)");
  const std::vector<uint8_t> short_file = {'S', 'A', 'R', 'C', 0x14, 0, 0xFF};
  BOOST_TEST(decode_error(short_file) == "bom: the file (0x7 bytes) ends before the byte order mark (at 0x6)");
  Sarc s = decode(samples::read(samples::dir("sarc") / "ActorObserverByActorTagTag.sarc"));
  s.bom = 0;
  BOOST_CHECK_EXCEPTION(encode(s), binschema::EncodeError, [](const binschema::EncodeError& e) {
    return std::string(e.what()) == "Sarc.bom: byte order mark 0x0 is neither 0xFEFF (big-endian) nor 0xFFFE (little-endian)";
  });
}

// --- Editing the text: each file is its name and its contents. -------------
namespace {

// The archives an edit starts from: the samples, or (when they are absent)
// the example shipped with the project, so that the edits are tested anyway.
std::map<std::string, std::vector<uint8_t>> archives_to_edit() {
  std::map<std::string, std::vector<uint8_t>> out;
  // Not samples::dir(), which fails the test when the folder is missing.
  if (std::filesystem::is_directory(std::filesystem::path(BINSCHEMA_SHARED_DIR) / "samples" / "sarc"))
    for (const auto& p : samples::files("sarc")) out[p.filename().string()] = samples::read(p);
  if (out.empty()) {
    BOOST_TEST_MESSAGE("../shared/samples/sarc is absent: editing examples/sarc-two-files.yaml only");
    out["sarc-two-files.yaml"] = encode(from_text(binschema::text::load_file(std::string(BINSCHEMA_SOURCE_DIR) + "/examples/sarc-two-files.yaml")));
  }
  return out;
}

uint32_t low_bit(uint32_t v) { return v & (~v + 1); }

// The alignment a file had in an archive, by this test's own reading: the
// largest power of two its offset is a multiple of, at most the data offset's.
uint32_t alignment_in(const Archive& a, const std::string& name) {
  for (const Entry& e : a.entries)
    if (e.name == name) return std::min(low_bit(e.begin), low_bit(a.data_offset));
  BOOST_FAIL("no file " << name);
  return 0;
}

// Every file's data aligned to 4 at least, the data offset to the largest
// alignment, and the files that were in `before` at least as aligned as there.
void check_alignment(const Archive& after, const Archive* before) {
  uint32_t top = 4;
  for (const Entry& e : after.entries) {
    BOOST_TEST_CONTEXT(e.name) {
      BOOST_TEST(e.begin % 4 == 0u);
      if (before && before->files.count(e.name)) {
        const uint32_t want = alignment_in(*before, e.name);
        BOOST_TEST(e.begin % want == 0u);
        top = std::max(top, want);
      }
    }
  }
  BOOST_TEST(after.data_offset % top == 0u);
}

std::vector<uint8_t> encode_text(const YAML::Node& doc) {
  YAML::Emitter out;
  out << doc;
  return encode(from_text(out.c_str()));
}

}  // namespace

BOOST_AUTO_TEST_CASE(renaming_adding_and_removing_files_in_the_text_gives_valid_archives) {
  for (const auto& [name, bytes] : archives_to_edit()) {
    BOOST_TEST_CONTEXT(name) {
      const Archive before = parse(bytes);
      const YAML::Node doc = YAML::Load(to_text(decode(bytes), binschema::TextKind::Yaml));
      BOOST_REQUIRE(doc["nodes"].IsSequence());
      BOOST_REQUIRE_GE(doc["nodes"].size(), 2u);
      const std::string first = doc["nodes"][0]["attributes"]["name"].as<std::string>();
      const std::string last = doc["nodes"][doc["nodes"].size() - 1]["attributes"]["name"].as<std::string>();

      {  // A rename: the file keeps its contents; hash, order and name offsets follow.
        YAML::Node d = YAML::Clone(doc);
        d["nodes"][0]["attributes"]["name"] = "Renamed/by_binschema_" + first;
        const auto out = encode_text(d);
        const Archive a = parse(out);
        check_valid(a);
        check_alignment(a, &before);
        auto want = before.files;
        want["Renamed/by_binschema_" + first] = want.at(first);
        want.erase(first);
        BOOST_TEST((a.files == want));
        // The archive reads back, and writes itself again byte for byte.
        BOOST_TEST((encode(decode(out)) == out));
      }
      {  // An added file: a name and its contents (hex), anywhere in the list.
        YAML::Node d = YAML::Clone(doc);
        YAML::Node added;
        added["attributes"]["name"] = "Added/hello.txt";
        added["data"] = "48656c6c6f0a";  // "Hello\n"
        d["nodes"].push_back(added);
        const auto out = encode_text(d);
        const Archive a = parse(out);
        check_valid(a);
        check_alignment(a, &before);
        auto want = before.files;
        want["Added/hello.txt"] = {'H', 'e', 'l', 'l', 'o', '\n'};
        BOOST_TEST((a.files == want));
        BOOST_TEST(a.entries.size() == before.entries.size() + 1);
        BOOST_TEST((encode(decode(out)) == out));
      }
      {  // A removed file.
        YAML::Node d = YAML::Clone(doc), kept;
        for (size_t i = 0; i < d["nodes"].size(); ++i)
          if (d["nodes"][i]["attributes"]["name"].as<std::string>() != last) kept.push_back(d["nodes"][i]);
        d["nodes"] = kept;
        const auto out = encode_text(d);
        const Archive a = parse(out);
        check_valid(a);
        check_alignment(a, &before);
        auto want = before.files;
        want.erase(last);
        BOOST_TEST((a.files == want));
        BOOST_TEST((encode(decode(out)) == out));
      }
    }
  }
}

// A SARC written from a model made in C++ (no layout read from any file):
// valid, in both byte orders, with the default alignment (4) and a larger one.
BOOST_AUTO_TEST_CASE(an_archive_from_a_fresh_model_is_valid) {
  for (const uint16_t bom : {uint16_t(0xFFFE), uint16_t(0xFEFF)}) {
    BOOST_TEST_CONTEXT("bom " << std::hex << bom) {
      Sarc s;
      s.bom = bom;
      const std::vector<std::pair<std::string, std::vector<uint8_t>>> files = {
          {"Actor/Link.bxml", {1, 2, 3}}, {"Model/Link.bfres", std::vector<uint8_t>(100, 0xAB)}, {"a", {}}, {"Text/x.msbt", {9}}};
      for (const auto& [name, data] : files) {
        Node n;
        n.attributes.name = name;
        n.data.data = data;
        if (name == "Model/Link.bfres") n.alignment = 0x80;
        s.nodes.push_back(n);
      }
      const auto out = encode(s);
      const Archive a = parse(out);
      BOOST_TEST(a.big == (bom == 0xFEFF));
      BOOST_TEST(a.multiplier == 0x65u);
      check_valid(a);
      check_alignment(a, nullptr);
      BOOST_TEST(alignment_in(a, "Model/Link.bfres") % 0x80 == 0u);
      BOOST_TEST(a.data_offset % 0x80 == 0u);  // the largest alignment
      std::map<std::string, std::vector<uint8_t>> want(files.begin(), files.end());
      BOOST_TEST((a.files == want));
      // Read back: the same model (each file's alignment as written).
      const Sarc back = decode(out);
      BOOST_REQUIRE_EQUAL(back.nodes.size(), s.nodes.size());
      for (const Node& n : back.nodes)
        BOOST_TEST(n.data.data == want.at(n.attributes.name), n.attributes.name);
      BOOST_TEST((encode(back) == out));
      // A model that is no power of two as alignment is refused.
      s.nodes[0].alignment = 12;
      BOOST_CHECK_EXCEPTION(encode(s), binschema::EncodeError, [](const binschema::EncodeError& e) {
        return std::string(e.what()) == "Node.data: alignment 0xc is not a power of two";
      });
    }
  }
}

// What the writer would not write back is refused on decode, with where.
BOOST_AUTO_TEST_CASE(stored_numbers_the_writer_would_change_are_refused) {
  const std::string example = std::string(BINSCHEMA_SOURCE_DIR) + "/examples/sarc-two-files.yaml";
  const auto good = encode(from_text(binschema::text::load_file(example)));
  const Archive a = parse(good);
  {  // A wrong hash.
    auto b = good;
    b[0x20] ^= 1;
    BOOST_TEST(decode_error(b) == "nodes[0].name_hash: says " + binschema::hex(a.entries[0].hash ^ 1) +
                                      " but mulhash(attributes.name, hash_multiplier) is " + binschema::hex(a.entries[0].hash) + " (at 0x20)");
  }
  {  // Nodes out of hash order (both swapped, hashes right).
    auto b = good;
    std::swap_ranges(b.begin() + 0x20, b.begin() + 0x30, b.begin() + 0x30);
    BOOST_TEST(decode_error(b) == "nodes[1].name_hash: not sorted: " + binschema::hex(a.entries[0].hash) + " after " +
                                      binschema::hex(a.entries[1].hash) + " (the writer puts the elements in order of name_hash) (at 0x30)");
  }
  {  // A data range past the end of the file.
    auto b = good;
    b[0x2C] = 0xFF;
    BOOST_TEST(decode_error(b).find("nodes[0].data: slice 0x0..0xff of pool files") == 0, decode_error(b));
  }
  {  // A file moved where the writer would not put it (4 bytes later).
    auto b = good;
    b[0x28] = 4;
    BOOST_TEST(decode_error(b) == "files: slice 0 starts at " + binschema::hex(a.data_offset + 4) + ", but the writer would put it at " +
                                      binschema::hex(a.data_offset) + " (after the previous one, at a multiple of 0x4) (at 0x28)");
  }
}

// --- The language SARC needed: each misuse is a schema error with its line. --
namespace {

namespace fs = std::filesystem;

std::string schema_error(const std::string& text) {
  fs::path p = fs::temp_directory_path() / "binschema_sarc_test.yaml";
  std::ofstream(p) << text;
  try {
    auto s = binschema::gen::load_schema(p.string());
    binschema::gen::generate_cpp(*s);
    binschema::gen::generate_markdown(*s);
  } catch (const binschema::gen::SchemaError& e) {
    std::string m = e.what();
    return m.substr(m.find(".yaml:") + 6);  // "line:col: message"
  }
  return "";
}

std::string bom_schema(const std::string& endian, const std::string& fields, const std::string& more = "") {
  return "format: t\nendian: " + endian + "\nroot: A\ntypes:\n  A:\n    fields:\n" + fields + more;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(bom_schema_errors)

// The reader and writer are emitted once, as a template over the byte order
// that the entry points instantiate for each order (not once per order).
BOOST_AUTO_TEST_CASE(a_valid_bom_schema_loads_and_generates_both_byte_orders) {
  BOOST_TEST(schema_error(bom_schema("bom", "      - {name: magic, type: \"char[2]\"}\n      - {name: m, type: u16, bom: true}\n      - {name: x, type: u32}\n")) == "");
  auto p = fs::temp_directory_path() / "binschema_sarc_test.yaml";
  auto s = binschema::gen::load_schema(p.string());
  const auto cpp = binschema::gen::generate_cpp(*s);
  const auto count = [&](const std::string& what) {
    size_t n = 0;
    for (size_t at = cpp.source.find(what); at != std::string::npos; at = cpp.source.find(what, at + 1)) ++n;
    return n;
  };
  BOOST_TEST(count("template <std::endian E>\nstruct Codec {") == 1u);
  BOOST_TEST(count("read_A(") == 3u);  // defined once, called by decode_root and trace_root (the byte map)
  BOOST_TEST(count("put_A(") == 2u);
  BOOST_TEST(count("r.template get<uint32_t>(s + 0x4)") == 1u);  // x, through the dependent reader
  BOOST_TEST(count("c.w.template put<uint32_t>(s + 0x4,") == 1u);
  BOOST_TEST(count("Codec<std::endian::big>::decode_root(bytes, lay)") == 1u);
  BOOST_TEST(count("Codec<std::endian::little>::decode_root(bytes, lay)") == 1u);
  BOOST_TEST(count("Codec<std::endian::big>::encode_root(") == 1u);
  BOOST_TEST(count("Codec<std::endian::little>::encode_root(") == 1u);
  BOOST_TEST(cpp.source.find("binschema::bom_is_big(bytes, 0x2, \"m\")") != std::string::npos);
  BOOST_TEST(binschema::gen::generate_markdown(*s).find("chosen by `m`") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(misuses) {
  BOOST_TEST(schema_error(bom_schema("bom", "      - {name: x, type: u32}\n")) ==
             "3:7: endian: bom needs a u16 field of the root A with bom: true (the byte order mark)");
  BOOST_TEST(schema_error(bom_schema("little", "      - {name: m, type: u16, bom: true}\n")) ==
             "7:9: 'm' has bom: true, but the schema's endian: is not 'bom'");
  BOOST_TEST(schema_error(bom_schema("bom", "      - {name: m, type: u32, bom: true}\n")) == "7:9: 'm' has bom: true, but it is not a single u16");
  BOOST_TEST(schema_error(bom_schema("bom", "      - {name: m, type: u16, bom: true}\n      - {name: n, type: u16, bom: true}\n")) ==
             "8:9: 'n' has bom: true, but 'm' already is the byte order mark");
  BOOST_TEST(schema_error(bom_schema("bom", "      - {name: s, type: cstring}\n      - {name: m, type: u16, bom: true}\n")) ==
             "8:9: 'm' has bom: true, but it is not at a fixed offset of the root (after a variable-size field, or under if:)");
  BOOST_TEST(schema_error(bom_schema("bom", "      - {name: m, type: u16, bom: true, const: 0xFEFF}\n")) ==
             "7:9: 'm' has bom: true, but its value is the byte order (0xFEFF big, 0xFFFE little): no derive:, const:, reserved: or valid:");
  BOOST_TEST(schema_error(bom_schema("bom", "      - {name: m, type: u16, bom: true}\n      - {name: b, type: B}\n",
                                     "  B:\n    fields:\n      - {name: m2, type: u16, bom: true}\n")) ==
             "11:9: 'm2' has bom: true, but it is in B, not in the root A (the byte order is known before any other struct is read)");
  BOOST_TEST(schema_error(bom_schema("bom", "      - {name: m, type: u16, bom: maybe}\n")) == "7:35: bom is 'true' or 'false'");
  // pad:
  BOOST_TEST(schema_error(bom_schema("little", "      - {name: x, type: u32, pad: 4}\n")) ==
             "7:9: 'x' has pad: 4, but pad: is for an inline cstring field or an inline counted array of numbers (this is a scalar)");
  BOOST_TEST(schema_error(bom_schema("little", "      - {name: s, type: cstring, pad: 3}\n")) ==
             "7:9: 's': pad: 3 is not a power of two of at least 2");
  BOOST_TEST(schema_error(bom_schema("little", "      - {name: s, type: cstring, pad: 8}\n      - {name: x, type: u8}\n")) == "");
  BOOST_TEST(schema_error(bom_schema("middle", "      - {name: x, type: u32}\n")) ==
             "2:9: endian is 'little', 'big' or 'bom' (chosen by a `bom: true` field of the root)");
}

// The features SARC needed, each misuse with its line and column.
BOOST_AUTO_TEST_CASE(scale_mulhash_sort_placed_pools_and_data_pools) {
  auto t = [](const std::string& pools, const std::string& fields) {
    return "format: t\nendian: little\nroot: A\n" + pools + "\ntypes:\n  A:\n    fields:\n" + fields;
  };
  const std::string names = "pools:\n  n: {kind: cstring, align: 4, base: names}";
  const std::string placed = "      - {name: names, type: pool, pool: n}\n";
  // The valid forms load and generate (the strings read in `bs`, the root's
  // first field at the cursor, where the reader works out the pool's start).
  BOOST_TEST(schema_error(t(names, "      - {name: c, type: u16}\n"
                                   "      - {name: bs, type: \"B[]\", count: c}\n" + placed +
                                   "  B:\n    fields:\n"
                                   "      - {name: w, type: u32, bits: [{name: s, bits: 24, type: string, pool: n, scale: 4}, {name: f, bits: 8}]}\n"
                                   "      - {name: h, type: u32, derive: \"mulhash(w.s, 0x65)\"}\n")) == "");
  BOOST_TEST(schema_error(t("pools:\n  d: {kind: data, align: 4, base: start}",
                            "      - {name: start, type: u32, derive: start(d)}\n"
                            "      - {name: b, type: bytes, ptr: u32, pool: d, align: al}\n"
                            "      - {name: al, type: u32, virtual: true, default: 4}\n")) == "");
  // scale:
  BOOST_TEST(schema_error(t(names, "      - {name: w, type: u32, bits: [{name: s, bits: 24, type: string, pool: n, scale: 3}, {name: f, bits: 8}]}\n" + placed)) ==
             "9:87: scale: 3 is not a power of two of at least 2");
  BOOST_TEST(schema_error(t(names, "      - {name: w, type: u32, bits: [{name: s, bits: 24, scale: 4}, {name: f, bits: 8}]}\n" + placed)) ==
             "9:64: scale: belongs to a string bit field (the bits hold its offset divided by the scale)");
  BOOST_TEST(schema_error(t("pools:\n  n: {kind: cstring, align: 2, base: names}",
                            "      - {name: w, type: u32, bits: [{name: s, bits: 24, type: string, pool: n, scale: 4}, {name: f, bits: 8}]}\n" + placed)) ==
             "9:37: 's' has scale: 4, but pool 'n' aligns its strings to 2 (align: must be a multiple of the scale)");
  // A pool placed by its base: field.
  BOOST_TEST(schema_error(t("pools:\n  n: {kind: cstring, align: 4, base: names, order: sorted}",
                            "      - {name: w, type: u32, bits: [{name: s, bits: 32, type: string, pool: n}]}\n" + placed)) ==
             "5:3: pool 'n' is placed by the root's field 'names' (base:), which the reader checks against the order of first use: order: first_use");
  BOOST_TEST(schema_error(t(names, "      - {name: w, type: u32, bits: [{name: s, bits: 32, type: string, pool: n}]}\n      - {name: x, type: cstring}\n" + placed)) ==
             "11:9: 'names' places pool 'n', whose strings are read before it, but the size of 'x' before it is not known in advance "
             "(fixed-size fields, or arrays of fixed-size structs counted by a field of the header)");
  BOOST_TEST(schema_error(t(names, "      - {name: w, type: u32, bits: [{name: s, bits: 32, type: string, pool: n}]}\n"
                                   "      - {name: names, type: pool, pool: n, size: 4}\n")) ==
             "10:9: 'names' places pool 'n' (its base:): no size: (the reader knows the strings)");
  // mulhash()
  BOOST_TEST(schema_error(t("", "      - {name: s, type: cstring}\n      - {name: h, type: u32, derive: \"mulhash(s, 0x65)\"}\n")) ==
             "9:9: 'h' is derive: mulhash(...), which the reader checks: it must sit at a fixed offset of A");
  BOOST_TEST(schema_error(t("", "      - {name: h, type: u32, derive: \"mulhash(k, 0x65)\"}\n      - {name: k, type: u32}\n")) ==
             "8:38: mulhash() takes a string field (or a string bit field F.B) of A and the multiplier");
  BOOST_TEST(schema_error(t("", "      - {name: s, type: \"char[4]\"}\n      - {name: h, type: u32, derive: \"mulhash(s, file_size())\"}\n")) ==
             "9:38: mulhash(): the multiplier cannot depend on the layout");
  BOOST_TEST(schema_error(t("", "      - {name: s, type: \"char[4]\"}\n      - {name: h, type: u32, derive: \"mulhash(s)\"}\n")) ==
             "9:38: mulhash() takes 2 argument(s)");
  // sort: on an inline array
  const std::string arr = "      - {name: c, type: u16}\n      - {name: e, type: \"E[]\", count: c, sort: k}\n  E:\n    fields:\n";
  BOOST_TEST(schema_error(t("", arr + "      - {name: k, type: u32}\n      - {name: s, type: cstring}\n")) ==
             "9:9: sort: on an inline array needs fixed-size elements (E is not)");
  BOOST_TEST(schema_error(t("", arr + "      - {name: k, type: \"char[4]\"}\n")) == "9:9: sort: 'k' is not a number of E (the model's, or derive:)");
  BOOST_TEST(schema_error(t("", arr + "      - {name: k, type: u32, derive: file_size()}\n")) == "9:9: sort: 'k' is known only once the file is laid out");
  BOOST_TEST(schema_error(t("", "      - {name: c, type: u16}\n      - {name: e, type: \"E[]\", ptr: u32, count: c, sort: k}\n  E:\n    fields:\n"
                                "      - {name: k, type: u32, derive: \"v * 2\"}\n      - {name: v, type: u32}\n")) ==
             "9:9: sort: 'k' is derived: only an inline array can be sorted by a derived field");
  // Data pools and their slices.
  const std::string data = "pools:\n  d: {kind: data, align: 4, base: start}", start = "      - {name: start, type: u32, derive: start(d)}\n";
  BOOST_TEST(schema_error(t("pools:\n  d: {kind: data, align: 4}", "      - {name: b, type: bytes, ptr: u32, pool: d}\n")) ==
             "5:6: a data pool needs base: (the root field that holds where it starts; slices count from there)");
  BOOST_TEST(schema_error(t("pools:\n  d: {kind: data, base: start, order: sorted}", "      - {name: start, type: u32}\n")) ==
             "5:39: order: is for string pools, not data pools");
  BOOST_TEST(schema_error(t(data, start + "      - {name: b, type: string, ptr: u32, pool: d}\n")) ==
             "10:9: data pool 'd' holds bytes: the field is type: bytes with ptr: (a slice: its begin and end)");
  BOOST_TEST(schema_error(t(data, start + "      - {name: b, type: bytes, ptr: u32, pool: d, size: 4}\n")) ==
             "10:9: 'b' is a slice of data pool 'd': a single bytes field with ptr: (no size:, if:, arrays, base: or nullable:)");
  BOOST_TEST(schema_error(t(data, start + "      - {name: b, type: bytes, ptr: u32, pool: d, align: al}\n      - {name: al, type: u16}\n")) ==
             "10:9: 'b': align: 'al' is not a virtual u32 field of A (it holds each slice's alignment)");
  BOOST_TEST(schema_error(t("", "      - {name: b, type: bytes, size: 4, align: al}\n")) ==
             "8:9: 'b': align: 'al' is not an integer field of A the model holds, declared before it (its value is the bytes' alignment)");
  BOOST_TEST(schema_error(t("", "      - {name: b, type: u32, align: al}\n")) ==
             "8:9: 'b': align: 'al' names a field, which only a slice of a data pool or inline bytes take (align: is a number here)");
  BOOST_TEST(schema_error(t("", "      - {name: v, type: u32, virtual: true}\n")) ==
             "8:9: virtual u32 'v' holds a data slice's alignment, but no field of A says align: v");
  BOOST_TEST(schema_error(t("", "      - {name: b, type: bytes, ptr: u32}\n")) == "8:9: bytes are stored inline (or, with ptr:, in a data pool: pool: NAME)");
}

BOOST_AUTO_TEST_SUITE_END()

// --- Files inside archives on the command line, and ZsDic.pack.zs. ----------
namespace {

struct Run {
  int code = -1;
  std::string out, err;
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void spit(const fs::path& p, std::span<const uint8_t> b) {
  std::ofstream(p, std::ios::binary).write(reinterpret_cast<const char*>(b.data()), b.size());
}

// A scratch folder; the CLI runs in it.
struct Scratch {
  fs::path dir = fs::temp_directory_path() / ("binschema_sarc_test_" + std::to_string(::getpid()));
  Scratch() {
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~Scratch() { fs::remove_all(dir); }
  Run run(const std::string& args) const {
    const std::string cmd = "cd '" + dir.string() + "' && '" BINSCHEMA_CLI "' " + args + " >stdout.txt 2>stderr.txt";
    const int st = std::system(cmd.c_str());
    Run r;
    r.code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    r.out = slurp(dir / "stdout.txt");
    r.err = slurp(dir / "stderr.txt");
    return r;
  }
};

const char* kMember = "EventFlow/Demo344_1.bfevfl";

fs::path event_pack() { return samples::dir("yaz0") / "Demo344_1.sbeventpack"; }

std::vector<uint8_t> unyaz0(const fs::path& p) { return binschema::yaz0::decompress(samples::read(p)); }

}  // namespace

BOOST_AUTO_TEST_SUITE(archive_members_on_the_command_line)

BOOST_AUTO_TEST_CASE(list_and_info) {
  Scratch s;
  const Run l = s.run("list '" + event_pack().string() + "'");
  BOOST_TEST(l.code == 0, l.err);
  const Archive a = parse(unyaz0(event_pack()));
  std::string want;
  for (const Entry& e : a.entries) want += e.name + "\t" + std::to_string(e.end - e.begin) + "\n";
  BOOST_TEST(l.out == want);
  BOOST_TEST(l.out.find(std::string(kMember) + "\t") != std::string::npos);
  const Run i = s.run("info '" + event_pack().string() + "'");
  BOOST_TEST(i.code == 0, i.err);
  BOOST_TEST(i.out.find("format: sarc") != std::string::npos, i.out);
  BOOST_TEST(i.out.find("compression: yaz0") != std::string::npos, i.out);
  BOOST_TEST(i.out.find("members: " + std::to_string(a.entries.size())) != std::string::npos, i.out);
}

BOOST_AUTO_TEST_CASE(a_member_decodes_and_rewrites_byte_for_byte) {
  Scratch s;
  fs::copy_file(event_pack(), s.dir / "pack.sbeventpack");
  const Run d = s.run("decode 'pack.sbeventpack:" + std::string(kMember) + "' -o member.yaml");
  BOOST_TEST(d.code == 0, d.err);
  BOOST_TEST(slurp(s.dir / "member.yaml").find("format: bfevfl") != std::string::npos);
  const Run e = s.run("encode member.yaml -o 'pack.sbeventpack:" + std::string(kMember) + "'");
  BOOST_TEST(e.code == 0, e.err);
  // Yaz0 again (our encoder, not Nintendo's), holding the same archive.
  const auto packed = samples::read(s.dir / "pack.sbeventpack");
  BOOST_TEST((packed.size() >= 4 && std::string(packed.begin(), packed.begin() + 4) == "Yaz0"));
  const auto again = binschema::yaz0::decompress(packed), orig = unyaz0(event_pack());
  BOOST_TEST((again == orig), first_difference(again, orig));
  const Run missing = s.run("decode 'pack.sbeventpack:EventFlow/Nope.bfevfl'");
  BOOST_TEST(missing.code == 1);
  BOOST_TEST(missing.err.find("pack.sbeventpack:EventFlow/Nope.bfevfl: the archive has no member 'EventFlow/Nope.bfevfl' (members: ") !=
                 std::string::npos,
             missing.err);
}

BOOST_AUTO_TEST_CASE(an_edit_written_into_the_pack_reads_back) {
  Scratch s;
  fs::copy_file(event_pack(), s.dir / "pack.sbeventpack");
  BOOST_TEST(s.run("decode 'pack.sbeventpack:" + std::string(kMember) + "' -o member.yaml").code == 0);
  std::string text = slurp(s.dir / "member.yaml");
  // A longer name: the member grows, the files after it move.
  const std::string from = "name: Demo344_1\n", to = "name: Demo344_1_edited_by_binschema\n";
  const size_t at = text.find(from);
  BOOST_REQUIRE(at != std::string::npos);
  text.replace(at, from.size(), to);
  spit(s.dir / "edited.yaml", std::span(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
  const Run e = s.run("encode edited.yaml -o 'pack.sbeventpack:" + std::string(kMember) + "'");
  BOOST_TEST(e.code == 0, e.err);
  const Run d = s.run("decode 'pack.sbeventpack:" + std::string(kMember) + "'");
  BOOST_TEST(d.code == 0, d.err);
  BOOST_TEST(d.out.find(to) != std::string::npos);
  // The archive, by this test's own reading: still valid; every other member
  // as it was, at an offset as aligned as before.
  const Archive before = parse(unyaz0(event_pack())), after = parse(binschema::yaz0::decompress(samples::read(s.dir / "pack.sbeventpack")));
  check_valid(after);
  BOOST_REQUIRE_EQUAL(after.entries.size(), before.entries.size());
  for (size_t i = 0; i < before.entries.size(); ++i) {
    const Entry &b = before.entries[i], &n = after.entries[i];
    BOOST_TEST_CONTEXT(b.name) {
      BOOST_TEST(n.name == b.name);
      BOOST_TEST(n.hash == b.hash);
      if (b.name == kMember) continue;
      BOOST_TEST((after.files.at(b.name) == before.files.at(b.name)));
      const uint32_t align = std::min<uint32_t>(b.begin & (~b.begin + 1), before.data_offset & (~before.data_offset + 1));
      BOOST_TEST(n.begin % align == 0u);
    }
  }
  BOOST_TEST(after.files.at(kMember).size() > before.files.at(kMember).size());
}

BOOST_AUTO_TEST_SUITE_END()

// --- ZsDic.pack.zs: dictionaries packed as the game packs them. -------------
namespace {

// Samples that share words, so that zstd can train a dictionary on them.
std::vector<uint8_t> trained_dictionary(int family) {
  static const std::vector<std::vector<std::string>> words = {
      {"Wait", "Walk", "Run", "Attack_Lv1", "Damage", "Guard", "SneakingUp", "Landing"},
      {"Pack/Actor/Npc_", "Enemy_Bokoblin", "Weapon_Sword_", "Armor_", "Obj_TreeApple"},
      {"MainField/", "Bancs/", "Translate", "Rotate", "Scale", "Gyaml", "SRTHash"}};
  std::vector<uint8_t> all;
  std::vector<size_t> sizes;
  uint32_t x = 12345 + family;
  for (int i = 0; i < 300; ++i) {
    const size_t before = all.size();
    for (int k = 0; k < 24; ++k) {
      x = x * 1103515245u + 12345u;
      const std::string& w = words[family][(x >> 16) % words[family].size()];
      all.insert(all.end(), w.begin(), w.end());
      all.push_back(static_cast<uint8_t>(x >> 8));
      all.push_back(0);
    }
    sizes.push_back(all.size() - before);
  }
  std::vector<uint8_t> dict(4096);
  const size_t n = ZDICT_trainFromBuffer(dict.data(), dict.size(), all.data(), sizes.data(), static_cast<unsigned>(sizes.size()));
  BOOST_REQUIRE_MESSAGE(!ZDICT_isError(n), "ZDICT_trainFromBuffer: " << ZDICT_getErrorName(n));
  dict.resize(n);
  return dict;
}

// A little-endian SARC written here byte by byte (names padded to 4, nodes
// sorted by hash, data aligned to 8), as the game's ZsDic.pack is.
std::vector<uint8_t> hand_made_sarc(std::vector<std::pair<std::string, std::vector<uint8_t>>> files) {
  std::sort(files.begin(), files.end(), [](const auto& a, const auto& b) { return sarc_hash(a.first, 0x65) < sarc_hash(b.first, 0x65); });
  std::vector<uint8_t> names;
  std::vector<uint32_t> name_at;
  for (const auto& [name, bytes] : files) {
    name_at.push_back(static_cast<uint32_t>(names.size()));
    names.insert(names.end(), name.begin(), name.end());
    do names.push_back(0);
    while (names.size() % 4);
  }
  std::vector<uint8_t> data;
  std::vector<std::pair<uint32_t, uint32_t>> ranges;
  for (const auto& [name, bytes] : files) {
    while (data.size() % 8) data.push_back(0);
    ranges.emplace_back(static_cast<uint32_t>(data.size()), static_cast<uint32_t>(data.size() + bytes.size()));
    data.insert(data.end(), bytes.begin(), bytes.end());
  }
  uint32_t data_offset = static_cast<uint32_t>(0x28 + files.size() * 0x10 + names.size());
  data_offset = (data_offset + 7) / 8 * 8;
  LittleBytes b;
  b.text("SARC", 4).u16(0x14).u8(0xFF).u8(0xFE).u32(static_cast<uint32_t>(data_offset + data.size())).u32(data_offset).u16(0x100).u16(0);
  b.text("SFAT", 4).u16(0xC).u16(static_cast<uint16_t>(files.size())).u32(0x65);
  for (size_t i = 0; i < files.size(); ++i)
    b.u32(sarc_hash(files[i].first, 0x65)).u32(0x01000000u | name_at[i] / 4).u32(ranges[i].first).u32(ranges[i].second);
  b.text("SFNT", 4).u16(8).u16(0);
  b.b.insert(b.b.end(), names.begin(), names.end());
  while (b.b.size() < data_offset) b.b.push_back(0);
  b.b.insert(b.b.end(), data.begin(), data.end());
  return b.b;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(zstd_dictionaries_from_a_pack)

BOOST_AUTO_TEST_CASE(decode_and_encode_with_zsdic_pack) {
  Scratch s;
  const auto zs = trained_dictionary(0), pack = trained_dictionary(1), bcett = trained_dictionary(2);
  const auto sarc = hand_made_sarc({{"zs.zsdic", zs}, {"pack.zsdic", pack}, {"bcett.byml.zsdic", bcett}});
  // The schema reads it too, and writes it back as it was.
  BOOST_TEST((encode(decode(sarc)) == sarc));
  check_valid(parse(sarc));
  fs::create_directories(s.dir / "romfs" / "Pack");
  spit(s.dir / "romfs" / "Pack" / "ZsDic.pack.zs", binschema::zstd::compress(sarc));

  const std::string example = std::string(BINSCHEMA_SOURCE_DIR) + "/examples/baev-totk.yaml";
  BOOST_TEST(s.run("encode '" + example + "' -o Plain.baev").code == 0);
  const Run plain = s.run("decode Plain.baev");
  BOOST_TEST(plain.code == 0, plain.err);

  const Run e = s.run("encode '" + example + "' -o Link.baev.zs --zsdic romfs/Pack/ZsDic.pack.zs");
  BOOST_TEST(e.code == 0, e.err);
  const auto frame = samples::read(s.dir / "Link.baev.zs");
  BOOST_TEST(binschema::zstd::frame_dictionary_id(frame) == ZDICT_getDictID(zs.data(), zs.size()));  // the zs.zsdic of the pack
  BOOST_TEST(ZDICT_getDictID(zs.data(), zs.size()) != 0u);

  const Run d = s.run("decode Link.baev.zs --zsdic romfs/Pack/ZsDic.pack.zs");
  BOOST_TEST(d.code == 0, d.err);
  BOOST_TEST(d.out == plain.out);
  const Run r = s.run("decode Link.baev.zs --romfs romfs");
  BOOST_TEST(r.code == 0, r.err);
  BOOST_TEST(r.out == plain.out);
  const Run none = s.run("decode Link.baev.zs");
  BOOST_TEST(none.code == 1);
  BOOST_TEST(none.err.find("'zs.zsdic'") != std::string::npos, none.err);

  // A zstd SARC without dictionaries is refused, naming the file.
  spit(s.dir / "Other.pack.zs", binschema::zstd::compress(hand_made_sarc({{"a.txt", {1, 2, 3}}})));
  const Run bad = s.run("decode Link.baev.zs --zsdic Other.pack.zs");
  BOOST_TEST(bad.code == 2);
  BOOST_TEST(bad.err.find("Other.pack.zs: a zstd-compressed SARC without any .zsdic member") != std::string::npos, bad.err);
}

BOOST_AUTO_TEST_SUITE_END()

// A file's contents are hex in the text: a digit that is not hex, or an odd
// number of them, is an error at the value's line:col.
BOOST_AUTO_TEST_CASE(contents_that_are_not_hex_are_refused_at_their_line) {
  const std::string head = "format: sarc\nbom: 0xfffe\nnodes:\n  - attributes: {name: a.bin}\n    data: ";
  for (const auto& [data, message] : std::vector<std::pair<std::string, std::string>>{
           {"\"00fg\"", "5:11: nodes[0].data: bad hex digit 'g'"},
           {"\"001\"", "5:11: nodes[0].data: hex string has an odd number of digits"},
       }) {
    try {
      from_text(head + data + "\n");
      BOOST_ERROR(data << ": read without an error");
    } catch (const binschema::TextError& e) {
      BOOST_TEST(std::string(e.what()) == message);
    }
  }
}
