// End-to-end tests of the `binschema` command-line program.
//
// The program is run as a child process (std::system, i.e. `sh -c`) inside a
// fresh temporary directory per test, with stdout and stderr captured into
// files. Expected values are computed with the library linked into this test
// (the generated baev API, the hash functions, the decoder's own errors), so
// the tests check that the CLI passes the library's results through intact
// rather than restating them.
#define BOOST_TEST_MODULE cli_test
#include <boost/test/unit_test.hpp>

#include <sys/wait.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "al_text.h"
#include "asb_text.h"
#include "baev_text.h"
#include "bfevfl_text.h"
#include "evnt_text.h"
#include "binschema/error.h"
#include "binschema/format.h"
#include "binschema/hash.h"
#include "binschema/schema.h"
#include "sandbox.h"

namespace fs = std::filesystem;
namespace baev = binschema::baev;
using ByteVec = std::vector<uint8_t>;

namespace {

using binschema::test::kCli;
using binschema::test::q;
using binschema::test::Result;
using Sandbox = binschema::test::Sandbox;

// ---- Models -------------------------------------------------------------------

baev::Parameter param(baev::Parameter::Value v) {
  baev::Parameter p;
  p.value = std::move(v);
  return p;
}

baev::Trigger trigger(float start, float end, std::vector<baev::Parameter> params, uint32_t pointer_size = 8) {
  baev::Trigger t;
  t.start_frame = start;
  t.end_frame = end;
  t.params = std::move(params);
  t.param_pointer_size = pointer_size;
  return t;
}

// A BAEV model with every parameter type, several events, actions and
// animations, empty lists (null pointers in the file) and strings that need
// quoting in YAML or escaping in JSON. Events are in hash order, the order the
// writer stores them in, so that decoding gives back this very model.
baev::File make_model(uint16_t major, uint8_t minor) {
  baev::File f;
  f.data.major_version = major;
  f.data.minor_version = minor;

  baev::Animation attack;
  attack.name = "Link_Attack_Sword";
  attack.unknown2 = 3;
  attack.triggers.push_back(trigger(6, 0, {param(std::string("SE_SwordSwing")), param(0.75f)}));
  attack.triggers.push_back(trigger(8, 0,
                                    {param(std::array<float, 3>{0.0f, 0.9f, -0.35f}),
                                     param(std::string("Eff_SwordTrail")), param(int32_t(-2))},
                                    16));
  attack.holds.push_back(trigger(6, 14, {param(int32_t(1)), param(std::string("null"))}));

  baev::Animation idle;  // no triggers, no holds: both pointers null
  idle.name = "Wait";

  baev::Animation talk;
  talk.name = "Talk: \"hello\" \\ Ünïcode";
  talk.unknown1 = 1;
  talk.triggers.push_back(trigger(0, 0, {}));  // a trigger without parameters
  talk.triggers.push_back(trigger(1.5f, 0, {param(std::string("")), param(std::string("123")),
                                            param(std::string("true")), param(1e-3f)}));
  talk.holds.push_back(trigger(0, 120.25f, {param(std::array<float, 3>{1, 2, 3})}));

  baev::Action a0;
  a0.hash = binschema::fnv1a32("Link_Attack");
  a0.animations = {attack, idle};
  baev::Action a1;
  a1.hash = binschema::fnv1a32("Mii_Talk");
  a1.unknown = 7;
  a1.animations = {talk};
  f.data.actions = {a0, a1};

  for (const char* name : {"Attack", "Wait", "Talk", "Jump"}) {
    baev::Event e;
    e.hash = binschema::fnv1a32(name);
    e.action_indices = {0};
    if (std::string(name) == "Talk") e.action_indices = {1, 0};
    f.data.events.push_back(e);
  }
  std::sort(f.data.events.begin(), f.data.events.end(),
            [](const baev::Event& a, const baev::Event& b) { return a.hash < b.hash; });
  return f;
}

struct Version {
  uint16_t major;
  uint8_t minor;
  const char* text;
};
const Version kVersions[] = {{2, 1, "2.1.0"}, {1, 0, "1.0.0"}};

// ---- Layout helpers for corrupting files -------------------------------------
// Offsets come from schemas/baev.yaml (field positions within each struct).

uint64_t u64_at(const ByteVec& b, uint64_t off) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = v << 8 | b.at(off + i);
  return v;
}
void put_u32(ByteVec& b, uint64_t off, uint32_t v) {
  for (int i = 0; i < 4; ++i) b.at(off + i) = static_cast<uint8_t>(v >> (8 * i));
}
void put_u64(ByteVec& b, uint64_t off, uint64_t v) {
  for (int i = 0; i < 8; ++i) b.at(off + i) = static_cast<uint8_t>(v >> (8 * i));
}
uint64_t default_at(const ByteVec& b) { return u64_at(b, 0x20); }                 // File.data
uint64_t action0_at(const ByteVec& b) { return u64_at(b, default_at(b) + 0x28); }  // Default.actions
uint64_t animation0_at(const ByteVec& b) { return u64_at(b, action0_at(b)); }      // Action.animations
uint64_t trigger0_at(const ByteVec& b) { return u64_at(b, animation0_at(b) + 0x8); }  // Animation.triggers
uint64_t parameter0_at(const ByteVec& b) { return u64_at(b, u64_at(b, trigger0_at(b))); }  // Trigger.params[0]

// What the library says about a broken file.
binschema::DecodeError decode_error(const ByteVec& bytes) {
  try {
    baev::decode(bytes);
  } catch (const binschema::DecodeError& e) {
    return e;
  }
  BOOST_FAIL("the corrupted file decodes without error");
  throw;  // unreachable
}

// The contract for bad binary input: exit 1, one stderr line naming the file,
// the library's message (with field path) and the offset, and no output.
void check_decode_failure(const Sandbox& box, const std::string& name, const ByteVec& bytes,
                          const std::string& command) {
  const binschema::DecodeError e = decode_error(bytes);
  box.write("out.yaml", std::string("previous content\n"));
  const std::vector<std::string> before = box.files();
  Result r = box.cli(command);
  BOOST_TEST_CONTEXT(command << " -> " << r) {
    BOOST_TEST(r.code == 1);
    BOOST_TEST(r.out.empty());
    BOOST_REQUIRE(r.err_lines().size() == 1u);
    const std::string line = r.err_lines()[0];
    BOOST_TEST(line.rfind("binschema: " + name + ": ", 0) == 0u);
    BOOST_TEST(line.find(e.what()) != std::string::npos);
    BOOST_TEST(line.find(e.path()) != std::string::npos);
    BOOST_TEST(line.find(binschema::hex(e.offset())) != std::string::npos);
    BOOST_TEST(line.find("0x") != std::string::npos);
    // The failed run neither replaced the existing output nor left a temp file.
    BOOST_TEST(box.read_text("out.yaml") == "previous content\n");
    BOOST_TEST(box.files() == before, boost::test_tools::per_element());
  }
}

// The contract for bad text input: exit 1, one line "binschema: NAME:L:C: ...".
void check_encode_failure(const Sandbox& box, const std::string& name, int line, int col,
                          const std::string& must_contain) {
  box.write("out.baev", std::string("previous content\n"));
  const std::vector<std::string> before = box.files();
  Result r = box.cli("encode " + name + " -o out.baev");
  BOOST_TEST_CONTEXT(name << " -> " << r) {
    BOOST_TEST(r.code == 1);
    BOOST_REQUIRE(r.err_lines().size() == 1u);
    const std::string prefix =
        "binschema: " + name + ":" + std::to_string(line) + ":" + std::to_string(col) + ": ";
    BOOST_TEST(r.err_lines()[0].rfind(prefix, 0) == 0u, "expected prefix " << prefix);
    BOOST_TEST(r.err_lines()[0].find(must_contain) != std::string::npos);
    BOOST_TEST(box.read_text("out.baev") == "previous content\n");
    BOOST_TEST(box.files() == before, boost::test_tools::per_element());
  }
}

std::map<std::string, std::string> parse_info(const std::string& out) {
  std::map<std::string, std::string> m;
  std::istringstream in(out);
  for (std::string l; std::getline(in, l);) {
    size_t colon = l.find(": ");
    BOOST_REQUIRE_MESSAGE(colon != std::string::npos, "info line without 'name: value': " << l);
    m[l.substr(0, colon)] = l.substr(colon + 2);
  }
  return m;
}

std::string hex32(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", v);
  return buf;
}

}  // namespace

// ---- formats and hash ----------------------------------------------------------

BOOST_AUTO_TEST_CASE(formats_lists_every_compiled_format) {
  Sandbox box;
  Result r = box.cli("formats");
  BOOST_TEST_REQUIRE(r.code == 0, r);
  BOOST_TEST(r.err.empty());
  BOOST_TEST(!binschema::all_formats().empty());
  bool saw_baev = false;
  for (const binschema::Format* f : binschema::all_formats()) {
    bool found = false;
    std::istringstream in(r.out);
    for (std::string l; std::getline(in, l);) {
      if (l.substr(0, l.find('\t')) != f->name) continue;
      found = true;
      BOOST_TEST(l.find(f->title) != std::string::npos);
      BOOST_TEST(l.find(f->versions) != std::string::npos);
      for (const char* ext : f->extensions) BOOST_TEST(l.find(ext) != std::string::npos);
    }
    BOOST_TEST(found, "no line for format " << f->name << " in: " << r.out);
    saw_baev = saw_baev || std::string(f->name) == "baev";
  }
  BOOST_TEST(saw_baev);
  BOOST_TEST(std::count(r.out.begin(), r.out.end(), '\n') == long(binschema::all_formats().size()));
}

BOOST_AUTO_TEST_CASE(hash_fnv1a32) {
  Sandbox box;
  Result r = box.cli("hash fnv1a32 ''");
  BOOST_TEST_REQUIRE(r.code == 0, r);
  BOOST_TEST(r.out == "0x811c9dc5  \n");  // the FNV-1a 32-bit offset basis
  r = box.cli("hash fnv1a32 a Link_Attack 'two words'");
  BOOST_TEST_REQUIRE(r.code == 0, r);
  BOOST_TEST(r.out == "0xe40c292c  a\n"  // published FNV-1a test vector
                      + hex32(binschema::fnv1a32("Link_Attack")) + "  Link_Attack\n" +
                      hex32(binschema::fnv1a32("two words")) + "  two words\n");
}

BOOST_AUTO_TEST_CASE(hash_murmur3) {
  Sandbox box;
  Result r = box.cli("hash murmur3 'The quick brown fox jumps over the lazy dog' '' abc");
  BOOST_TEST_REQUIRE(r.code == 0, r);
  BOOST_TEST(r.out == "0x2e4ff723  The quick brown fox jumps over the lazy dog\n"  // published, seed 0
                      "0x00000000  \n" +                                       // empty input, seed 0
                      hex32(binschema::murmur3_x86_32("abc", 0)) + "  abc\n");
}

BOOST_AUTO_TEST_CASE(hash_crc32) {
  Sandbox box;
  Result r = box.cli("hash crc32 123456789 '' param_root");
  BOOST_TEST_REQUIRE(r.code == 0, r);
  BOOST_TEST(r.out == "0xcbf43926  123456789\n"  // the CRC-32 check value (zlib's)
                      "0x00000000  \n"
                      "0xa4f6cb6c  param_root\n");  // AAMP's root list
}

// ---- check --------------------------------------------------------------------

// binschema check: the generator's parser and validator, no build. A mistake
// is file:line:col and exit 1; good schemas one OK line each; a folder is its
// .yaml files.
BOOST_AUTO_TEST_CASE(check_validates_schemas_without_a_build) {
  Sandbox box;
  const std::string good = "format: good\nendian: little\nroot: A\ntypes:\n  A:\n    fields:\n      - {name: x, type: u32}\n";
  box.write("s/good.yaml", good);
  // A misspelt key (line 8, column 33) and a count naming no field (line 8).
  box.write("bad.yaml", "format: bad\nendian: little\nroot: A\ntypes:\n  A:\n    fields:\n      - {name: n, type: u8}\n"
                        "      - {name: x, type: \"u8[]\", cuont: n}\n");
  box.write("bad2.yaml", "format: bad2\nendian: little\nroot: A\ntypes:\n  A:\n    fields:\n      - {name: n, type: u8}\n"
                         "      - {name: x, type: \"u8[]\", count: m}\n");
  Result r = box.cli("check s/good.yaml");
  BOOST_TEST_REQUIRE(r.code == 0, r);
  BOOST_TEST(r.out == "s/good.yaml: OK (format good, 1 types)\n");
  BOOST_TEST(r.err == "");

  r = box.cli("check bad.yaml s/good.yaml bad2.yaml");
  BOOST_TEST(r.code == 1, r);
  BOOST_TEST(r.out == "s/good.yaml: OK (format good, 1 types)\n");
  // One line per schema, as the generator says it.
  std::istringstream lines(r.err);
  std::string first, second, more;
  std::getline(lines, first);
  std::getline(lines, second);
  BOOST_TEST(!std::getline(lines, more), r.err);
  BOOST_TEST(first.rfind("bad.yaml:8:33: unknown key 'cuont'", 0) == 0, first);
  BOOST_TEST(second.rfind("bad2.yaml:8:", 0) == 0, second);
  BOOST_TEST(second.find("'m'") != std::string::npos, second);
  // The generator's own message.
  try {
    const ByteVec text = box.read("bad2.yaml");
    binschema::gen::load_schema_text(std::string(text.begin(), text.end()), "bad2.yaml");
    BOOST_ERROR("the generator accepts bad2.yaml");
  } catch (const binschema::gen::SchemaError& e) {
    BOOST_TEST(second == e.what());
  }

  // A folder: its schemas, in name order; every shipped schema is valid.
  box.write("s/other.yml", "format: other\nendian: big\nroot: B\ntypes:\n  B:\n    fields:\n      - {name: y, type: u16}\n");
  r = box.cli("check s");
  BOOST_TEST_REQUIRE(r.code == 0, r);
  BOOST_TEST(r.out == "s/good.yaml: OK (format good, 1 types)\ns/other.yml: OK (format other, 1 types)\n");
  r = box.cli("check " + q(std::string(BINSCHEMA_SOURCE_DIR) + "/schemas"));
  BOOST_TEST_REQUIRE(r.code == 0, r);
  size_t shipped = 0;
  for (const auto& e : fs::directory_iterator(std::string(BINSCHEMA_SOURCE_DIR) + "/schemas")) shipped += e.path().extension() == ".yaml";
  BOOST_TEST(shipped >= 8u);
  BOOST_TEST(static_cast<size_t>(std::count(r.out.begin(), r.out.end(), '\n')) == shipped, r.out);

  // A path that is not there is the command's problem: exit 2.
  r = box.cli("check missing.yaml");
  BOOST_TEST(r.code == 2, r);
  BOOST_TEST(r.err == "binschema: check: cannot read missing.yaml\n");
}

// ---- Round trips ---------------------------------------------------------------

BOOST_AUTO_TEST_CASE(decode_encode_round_trip_is_byte_exact) {
  for (const Version& v : kVersions) {
    BOOST_TEST_CONTEXT("version " << v.text) {
      Sandbox box;
      const baev::File model = make_model(v.major, v.minor);
      const ByteVec x = baev::encode(model);
      BOOST_TEST_REQUIRE((baev::decode(x) == model));  // the model survives the library itself
      box.write("x.baev", x);

      // Through pipes, as a user would chain them.
      Result r = box.sh(kCli + " decode x.baev --format json | " + kCli + " encode - -o y.baev");
      BOOST_TEST_REQUIRE(r.code == 0, r);
      BOOST_TEST(r.err.empty());
      BOOST_TEST(box.read("y.baev") == x, boost::test_tools::per_element());

      r = box.sh(kCli + " decode x.baev | " + kCli + " encode - -o z.baev");
      BOOST_TEST_REQUIRE(r.code == 0, r);
      BOOST_TEST(box.read("z.baev") == x, boost::test_tools::per_element());

      // Through files; the text is exactly what the library prints.
      r = box.cli("decode x.baev -o x.yaml");
      BOOST_TEST_REQUIRE(r.code == 0, r);
      BOOST_TEST(r.out.empty());
      BOOST_TEST(box.read_text("x.yaml") == baev::to_text(model, binschema::TextKind::Yaml));
      r = box.cli("decode x.baev --format json -o x.json");
      BOOST_TEST_REQUIRE(r.code == 0, r);
      BOOST_TEST(box.read_text("x.json") == baev::to_text(model, binschema::TextKind::Json));
      r = box.cli("encode x.yaml -o from-yaml.baev");
      BOOST_TEST_REQUIRE(r.code == 0, r);
      BOOST_TEST(box.read("from-yaml.baev") == x, boost::test_tools::per_element());
      r = box.cli("encode x.json -o from-json.baev");
      BOOST_TEST_REQUIRE(r.code == 0, r);
      BOOST_TEST(box.read("from-json.baev") == x, boost::test_tools::per_element());

      // stdout and stdin spelled "-"; the format found by magic alone.
      r = box.sh(kCli + " decode - -o - < x.baev");
      BOOST_TEST_REQUIRE(r.code == 0, r);
      BOOST_TEST(r.out == baev::to_text(model, binschema::TextKind::Yaml));
      r = box.sh(kCli + " encode - -o - < x.json > w.baev");
      BOOST_TEST_REQUIRE(r.code == 0, r);
      BOOST_TEST(box.read("w.baev") == x, boost::test_tools::per_element());

      // No temporary files left behind by the atomic writes.
      const std::vector<std::string> expected{"from-json.baev", "from-yaml.baev", "w.baev", "x.baev",
                                              "x.json",         "x.yaml",         "y.baev", "z.baev"};
      BOOST_TEST(box.files() == expected, boost::test_tools::per_element());
    }
  }
}

BOOST_AUTO_TEST_CASE(format_chosen_by_as_when_nothing_else_tells) {
  Sandbox box;
  const baev::File model = make_model(2, 1);
  ByteVec x = baev::encode(model);
  box.write("x.dat", x);
  // Magic is enough on its own...
  BOOST_TEST(box.cli("info x.dat").code == 0);
  // ...and with neither magic nor extension, --as is the way in.
  ByteVec bad = x;
  bad[3] = 'X';
  box.write("y.dat", bad);
  Result r = box.cli("decode y.dat");
  BOOST_TEST(r.code == 1, r);
  BOOST_TEST(r.err_lines().size() == 1u);
  BOOST_TEST(r.err.find("--as") != std::string::npos);
  r = box.cli("decode y.dat --as baev");
  BOOST_TEST(r.code == 1, r);  // now decoded as BAEV, and the magic is wrong
  BOOST_TEST(r.err.find("magic") != std::string::npos);

  // A document without `format:` is accepted with --as.
  std::string text = baev::to_text(model, binschema::TextKind::Yaml);
  BOOST_REQUIRE(text.rfind("format: baev\n", 0) == 0u);
  box.write("noformat.yaml", text.substr(std::strlen("format: baev\n")));
  r = box.cli("encode noformat.yaml -o a.baev");
  BOOST_TEST(r.code == 1, r);
  BOOST_TEST(r.err.find("format") != std::string::npos);
  BOOST_TEST(!box.exists("a.baev"));
  r = box.cli("encode noformat.yaml -o a.baev --as baev");
  BOOST_TEST_REQUIRE(r.code == 0, r);
  BOOST_TEST(box.read("a.baev") == x, boost::test_tools::per_element());
}

// ---- info ----------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(info_shows_format_version_and_counts) {
  for (const Version& v : kVersions) {
    BOOST_TEST_CONTEXT("version " << v.text) {
      Sandbox box;
      const baev::File model = make_model(v.major, v.minor);
      const ByteVec x = baev::encode(model);
      box.write("x.baev", x);
      Result r = box.cli("info x.baev");
      BOOST_TEST_REQUIRE(r.code == 0, r);
      auto info = parse_info(r.out);
      BOOST_TEST(info["format"] == "baev");
      BOOST_TEST(info["version"] == v.text);
      BOOST_TEST(info["file size"] == std::to_string(x.size()) + " bytes");

      size_t animations = 0, triggers = 0, params = 0;
      for (const auto& a : model.data.actions)
        for (const auto& an : a.animations) {
          ++animations;
          for (const auto* list : {&an.triggers, &an.holds})
            for (const auto& t : *list) {
              ++triggers;
              params += t.params.size();
            }
        }
      BOOST_TEST(info["Event"] == std::to_string(model.data.events.size()));
      BOOST_TEST(info["Action"] == std::to_string(model.data.actions.size()));
      BOOST_TEST(info["Animation"] == std::to_string(animations));
      BOOST_TEST(info["Trigger"] == std::to_string(triggers));
      BOOST_TEST(info["Parameter"] == std::to_string(params));
    }
  }
}

// ---- Bad binary input ---------------------------------------------------------

BOOST_AUTO_TEST_CASE(truncated_files_fail_with_one_located_line) {
  for (const Version& v : kVersions) {
    Sandbox box;
    const ByteVec x = baev::encode(make_model(v.major, v.minor));
    // Inside the header, at its end, inside the section headers and the
    // Default section, in the middle of the tables, one byte short.
    for (size_t cut : {size_t(0), size_t(3), size_t(0xa7), size_t(0xa8), size_t(0xc0), size_t(0x100),
                       x.size() / 2, x.size() - 1}) {
      BOOST_TEST_CONTEXT("version " << v.text << ", cut at " << cut) {
        ByteVec part(x.begin(), x.begin() + cut);
        box.write("cut.baev", part);
        check_decode_failure(box, "cut.baev", part, "decode cut.baev -o out.yaml");
        check_decode_failure(box, "cut.baev", part, "info cut.baev");
        // Beyond the file header every error has a field path to show.
        if (cut >= 0xa8) BOOST_TEST(!decode_error(part).path().empty());
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(corrupted_files_fail_with_one_located_line) {
  for (const Version& v : kVersions) {
    BOOST_TEST_CONTEXT("version " << v.text) {
      Sandbox box;
      const ByteVec x = baev::encode(make_model(v.major, v.minor));

      {  // Parameter type 2 is no case of the union.
        ByteVec b = x;
        put_u32(b, parameter0_at(b), 2);
        BOOST_TEST(decode_error(b).path() == "data.actions[0].animations[0].triggers[0].params[0].value");
        box.write("type.baev", b);
        check_decode_failure(box, "type.baev", b, "decode type.baev -o out.yaml");
      }
      {  // The action table pointer past the end of the file.
        ByteVec b = x;
        put_u64(b, default_at(b) + 0x28, b.size() + 0x100);
        BOOST_TEST(decode_error(b).path() == "data.actions");
        box.write("ptr.baev", b);
        check_decode_failure(box, "ptr.baev", b, "decode ptr.baev -o out.yaml");
      }
      {  // An animation name pointer past the end of the file.
        ByteVec b = x;
        put_u64(b, animation0_at(b), b.size());
        BOOST_TEST(decode_error(b).path() == "data.actions[0].animations[0].name");
        box.write("name.baev", b);
        check_decode_failure(box, "name.baev", b, "decode name.baev -o out.yaml --format json");
      }
      {  // A null event table pointer with a non-zero count.
        ByteVec b = x;
        put_u64(b, default_at(b) + 0x18, 0);
        BOOST_TEST(decode_error(b).path() == "data.events");
        box.write("null.baev", b);
        check_decode_failure(box, "null.baev", b, "decode null.baev -o out.yaml");
      }
      {  // A huge event count must fail cleanly, not allocate.
        ByteVec b = x;
        put_u32(b, default_at(b) + 0x20, 0xffffffffu);
        box.write("count.baev", b);
        check_decode_failure(box, "count.baev", b, "decode count.baev -o out.yaml");
      }
      {  // Bad magic; the extension still says BAEV.
        ByteVec b = x;
        b[3] = 'X';
        BOOST_TEST(decode_error(b).path() == "magic");
        box.write("magic.baev", b);
        check_decode_failure(box, "magic.baev", b, "decode magic.baev -o out.yaml");
      }
      {  // Control characters in the file must not break the one-line report.
        ByteVec b = x;
        b[1] = '\n';
        b[2] = 0x1b;
        box.write("ctl.baev", b);
        box.write("out.yaml", std::string("previous content\n"));
        Result r = box.cli("decode ctl.baev -o out.yaml");
        BOOST_TEST(r.code == 1, r);
        BOOST_TEST(r.err_lines().size() == 1u, r);
        BOOST_TEST(r.err.find('\x1b') == std::string::npos);
        BOOST_TEST(r.err.find("magic") != std::string::npos);
        BOOST_TEST(box.read_text("out.yaml") == "previous content\n");
      }
    }
  }
}

// Random damage (deterministic): whatever the bytes, the CLI either decodes
// or reports one line, and never crashes or leaves a partial output.
BOOST_AUTO_TEST_CASE(random_corruption_never_crashes) {
  Sandbox box;
  const ByteVec x = baev::encode(make_model(1, 0));
  uint32_t state = 12345;
  auto next = [&] {  // xorshift32: the same sequence on every run
    state ^= state << 13;
    state ^= state >> 17;
    state ^= state << 5;
    return state;
  };
  for (int round = 0; round < 150; ++round) {
    ByteVec b = x;
    for (int k = 1 + next() % 4; k > 0; --k) b[next() % b.size()] = static_cast<uint8_t>(next());
    if (round % 5 == 0) b.resize(next() % b.size());
    box.write("r.baev", b);
    std::error_code ec;
    fs::remove(box.path("r.yaml"), ec);
    Result r = box.cli("decode r.baev -o r.yaml");
    BOOST_TEST_CONTEXT("round " << round << ": " << r) {
      BOOST_TEST((r.code == 0 || r.code == 1));
      if (r.code == 0) {
        // The CLI keeps the file's layout (a last `layout:` entry when it is not binschema's own).
        binschema::Layout layout;
        const auto model = baev::decode(b, layout);
        BOOST_TEST(box.read_text("r.yaml") == baev::to_text(model, binschema::TextKind::Yaml, &layout));
      } else {
        BOOST_TEST(r.err_lines().size() == 1u);
        BOOST_TEST(r.err.find("0x") != std::string::npos);
        BOOST_TEST(!box.exists("r.yaml"));
      }
      BOOST_TEST(box.files().size() == (r.code == 0 ? 2u : 1u));
    }
  }
}

// ---- Bad text input ------------------------------------------------------------

BOOST_AUTO_TEST_CASE(bad_text_fails_with_line_and_column) {
  Sandbox box;
  const std::string good = baev::to_text(make_model(2, 1), binschema::TextKind::Yaml);
  auto line_col_of = [&](const std::string& text, size_t pos) {
    size_t line = 1 + std::count(text.begin(), text.begin() + pos, '\n');
    size_t col = pos - (text.rfind('\n', pos - 1) + 1) + 1;
    return std::pair<int, int>(int(line), int(col));
  };

  {  // Syntax error: where yaml-cpp's parser says it is.
    const std::string text = "format: baev\ndata:\n  events: [1, 2\n  actions: []\n";
    int line = 0, col = 0;
    std::string msg;
    try {
      YAML::Load(text);
      BOOST_FAIL("the broken YAML parses");
    } catch (const YAML::ParserException& e) {
      line = e.mark.line + 1;
      col = e.mark.column + 1;
      msg = e.msg;
    }
    box.write("syntax.yaml", text);
    check_encode_failure(box, "syntax.yaml", line, col, msg);
  }
  {  // An unknown field, added to the data map.
    std::string text = good;
    const size_t at = text.find("data:\n") + std::strlen("data:\n");
    text.insert(at, "  bogus_field: 1\n");
    auto [line, col] = line_col_of(text, at + 2);
    box.write("unknown.yaml", text);
    check_encode_failure(box, "unknown.yaml", line, col, "bogus_field");
  }
  {  // A wrong type: a list where a number belongs.
    std::string text = good;
    const size_t key = text.find("unknown1: ");
    BOOST_REQUIRE(key != std::string::npos);
    const size_t at = key + std::strlen("unknown1: ");
    text.replace(at, text.find('\n', at) - at, "[1, 2]");
    auto [line, col] = line_col_of(text, at);
    box.write("type.yaml", text);
    check_encode_failure(box, "type.yaml", line, col, "unknown1");
  }
  {  // The message is the library's own (path included).
    std::string text = good;
    const size_t at = text.find("start_frame: ") + std::strlen("start_frame: ");
    text.replace(at, text.find('\n', at) - at, "soon");
    std::string what;
    try {
      baev::from_text(text);
    } catch (const binschema::TextError& e) {
      what = e.what();
    }
    BOOST_REQUIRE(!what.empty());
    auto [line, col] = line_col_of(text, at);
    box.write("number.yaml", text);
    check_encode_failure(box, "number.yaml", line, col, what);
    BOOST_TEST(what.find("start_frame") != std::string::npos);
  }
  {  // An unknown format name.
    std::string text = good;
    text.replace(0, std::strlen("format: baev"), "format: nosuch");
    box.write("fmt.yaml", text);
    check_encode_failure(box, "fmt.yaml", 1, 9, "nosuch");
  }
  {  // A model the format cannot store (EncodeError): one line, no output.
    std::string text = good;
    const size_t at = text.find("data:\n") + std::strlen("data:\n");
    text.insert(at, "  major_version: 7\n");
    box.write("version.yaml", text);
    box.write("out.baev", std::string("previous content\n"));
    Result r = box.cli("encode version.yaml -o out.baev");
    BOOST_TEST(r.code == 1, r);
    BOOST_TEST(r.err_lines().size() == 1u, r);
    BOOST_TEST(r.err.find("major_version") != std::string::npos, r);
    BOOST_TEST(box.read_text("out.baev") == "previous content\n");
  }
  {  // Binary data fed to encode.
    box.write("x.baev", baev::encode(make_model(2, 1)));
    Result r = box.cli("encode x.baev -o y.baev");
    BOOST_TEST(r.code == 1, r);
    BOOST_TEST(r.err_lines().size() == 1u, r);
    BOOST_TEST(!box.exists("y.baev"));
  }
}

// ---- Usage errors --------------------------------------------------------------

BOOST_AUTO_TEST_CASE(usage_errors_exit_2) {
  Sandbox box;
  box.write("x.baev", baev::encode(make_model(2, 1)));
  box.write("x.yaml", baev::to_text(make_model(2, 1), binschema::TextKind::Yaml));
  for (const char* args : {"",                                  // no command
                           "frobnicate x.baev",                 // unknown command
                           "decode --frobnicate x.baev",        // unknown option
                           "decode",                            // missing input
                           "decode x.baev extra.baev",          // one input too many
                           "decode missing.baev",               // input does not exist
                           "info .",                            // input is a directory
                           "decode x.baev --format xml",        // bad option value
                           "decode x.baev --as nosuch",         // unknown format name
                           "encode x.yaml",                     // -o is required
                           "encode x.yaml -o",                  // -o without a value
                           "encode x.yaml -o nodir/y.baev",     // output directory missing
                           "hash sha1 abc",                     // unknown algorithm
                           "hash fnv1a32"}) {                   // nothing to hash
    BOOST_TEST_CONTEXT("binschema " << args) {
      Result r = box.cli(args);
      BOOST_TEST(r.code == 2, r);
      BOOST_TEST(!r.err.empty());
      BOOST_TEST(r.out.empty());
    }
  }
  // Nothing was created by any of them.
  const std::vector<std::string> expected{"x.baev", "x.yaml"};
  BOOST_TEST(box.files() == expected, boost::test_tools::per_element());

  Result r = box.cli("--help");
  BOOST_TEST(r.code == 0, r);
  BOOST_TEST(r.out.find("decode") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(refuses_to_overwrite_the_input) {
  Sandbox box;
  const baev::File model = make_model(1, 0);
  const ByteVec x = baev::encode(model);
  const std::string yaml = baev::to_text(model, binschema::TextKind::Yaml);
  box.write("x.baev", x);
  box.write("x.yaml", yaml);
  fs::create_symlink("x.baev", box.path("link.baev"));

  for (const char* args : {"decode x.baev -o x.baev", "decode x.baev -o ./x.baev",
                           "decode x.baev -o link.baev", "decode x.baev --format json -o x.baev"}) {
    Result r = box.cli(args);
    BOOST_TEST(r.code == 2, args << " -> " << r);
    BOOST_TEST(r.err_lines().size() == 1u);
    BOOST_TEST(box.read("x.baev") == x, boost::test_tools::per_element());
  }
  Result r = box.cli("encode x.yaml -o x.yaml");
  BOOST_TEST(r.code == 2, r);
  BOOST_TEST(box.read_text("x.yaml") == yaml);

  // Asked for explicitly, it is allowed (and still atomic: no temp files).
  r = box.cli("decode x.baev -o x.baev --force");
  BOOST_TEST_REQUIRE(r.code == 0, r);
  BOOST_TEST(box.read_text("x.baev") == yaml);
  const std::vector<std::string> expected{"link.baev", "x.baev", "x.yaml"};
  BOOST_TEST(box.files() == expected, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(output_replaces_existing_file_keeps_symlink) {
  Sandbox box;
  const ByteVec x = baev::encode(make_model(2, 1));
  box.write("x.baev", x);
  box.write("old.yaml", std::string(100000, 'z'));  // longer than the new content
  Result r = box.cli("decode x.baev -o old.yaml");
  BOOST_TEST_REQUIRE(r.code == 0, r);
  BOOST_TEST(box.read_text("old.yaml") == baev::to_text(baev::decode(x), binschema::TextKind::Yaml));

  // Writing through a symlink updates its target and keeps the link.
  box.write("target.yaml", std::string("old\n"));
  fs::create_symlink("target.yaml", box.path("link.yaml"));
  r = box.cli("decode x.baev -o link.yaml");
  BOOST_TEST_REQUIRE(r.code == 0, r);
  BOOST_TEST(fs::is_symlink(box.path("link.yaml")));
  BOOST_TEST(box.read_text("target.yaml") == box.read_text("old.yaml"));
  const std::vector<std::string> expected{"link.yaml", "old.yaml", "target.yaml", "x.baev"};
  BOOST_TEST(box.files() == expected, boost::test_tools::per_element());
}

// ---- The other formats through the CLI ------------------------------------------

BOOST_AUTO_TEST_CASE(evnt_al_and_bfevfl_through_the_cli) {
  Sandbox box;
  // EVNT has no magic: found by its extension (any case) or named with --as.
  binschema::evnt::Evnt ev;
  binschema::evnt::LoopEvent loop;
  loop.base.name = "loop";
  loop.value = true;
  ev.loop_events.push_back(loop);
  binschema::evnt::SoundEvent snd;
  snd.base.name = "step";
  snd.sound.id = 0x123;
  snd.sound.looped = true;
  ev.sound_events.push_back(snd);
  const ByteVec evnt = binschema::evnt::encode(ev);
  box.write("a.EVNT", evnt);
  box.write("a.bin", evnt);
  BOOST_TEST(parse_info(box.cli("info a.EVNT").out)["format"] == "evnt");
  // The counts are of structs: not of the bits: word SoundEvent.sound (once listed as "SoundEvent.Sound: 1").
  const auto counts = parse_info(box.cli("info a.EVNT").out);
  BOOST_TEST(counts.at("SoundEvent") == "1");
  for (const auto& [key, value] : counts) BOOST_TEST(key.find('.') == std::string::npos, key << ": " << value);
  BOOST_TEST(box.cli("info a.bin").code == 1);  // nothing tells the format
  BOOST_TEST(parse_info(box.cli("info a.bin --as evnt").out)["version"] == "2");
  Result r = box.sh(kCli + " decode a.EVNT --format json | " + kCli + " encode - -o b.evnt");
  BOOST_TEST(r.code == 0, r);
  BOOST_TEST((box.read("b.evnt") == evnt));
  const ByteVec cut(evnt.begin(), evnt.begin() + static_cast<long>(evnt.size() - 3));
  box.write("cut.evnt", cut);
  r = box.cli("decode cut.evnt -o out.yaml");
  BOOST_TEST(r.code == 1, r);
  BOOST_TEST(r.err_lines().size() == 1u);
  BOOST_TEST(r.err.find("sound_events[0]") != std::string::npos, r);
  BOOST_TEST(r.err.find("0x") != std::string::npos, r);
  BOOST_TEST(!box.exists("out.yaml"));

  // AL: an opaque keyframe block survives YAML and JSON.
  binschema::al::File al;
  al.name = "bear";
  al.skeleton.bones = {binschema::al::Bone{"Root", -1}};
  binschema::al::Metadata m;
  m.header.name = "walk";
  m.animation.name = "walk";
  m.animation.events.push_back(binschema::al::AnimationEvent{"Bone", "::STEP", {}});
  m.animation.keyframes.data = {1, 2, 3, 4, 5};
  al.metadata.push_back(m);
  const ByteVec al_bytes = binschema::al::encode(al);
  box.write("bear.al", al_bytes);
  r = box.sh(kCli + " decode bear.al | " + kCli + " encode - -o again.al");
  BOOST_TEST(r.code == 0, r);
  BOOST_TEST((box.read("again.al") == al_bytes));

  // BFEVFL: info counts actors, events and entry points of a real flowchart.
  const fs::path common = fs::path(BINSCHEMA_SHARED_DIR) / "samples" / "bfevfl" / "Common.bfevfl";
  BOOST_REQUIRE_MESSAGE(fs::exists(common), common.string() + " is missing: ../shared/samples must sit beside the checkout");
  auto info = parse_info(box.cli("info " + q(common.string())).out);
  BOOST_TEST(info["format"] == "bfevfl");
  BOOST_TEST(info["Actor"] == "14");
  BOOST_TEST(info["Event"] == "106");
  BOOST_TEST(info["EntryPoint"] == "24");
  r = box.sh(kCli + " decode " + q(common.string()) + " --format json | " + kCli + " encode - -o c.bfevfl");
  BOOST_TEST(r.code == 0, r);
  std::ifstream in(common, std::ios::binary);
  const ByteVec original(std::istreambuf_iterator<char>(in), {});
  BOOST_TEST((box.read("c.bfevfl") == original));
}

// ASB: a truncated file is refused with one stderr line that names the field
// path and the offset the library reports.
BOOST_AUTO_TEST_CASE(truncated_asb_fails_with_one_located_line) {
  namespace asb = binschema::asb;
  Sandbox box;
  asb::File f{};
  f.file_name = "Seq";
  asb::Command c{};
  c.name = "Wait";
  c.tags = asb::TagGroup{{"TagA"}};
  f.commands.push_back(c);
  asb::Node n{};
  asb::SkeletalAnimation anim{};
  anim.animation.value = "Wait_Anim";
  n.body = anim;
  f.nodes.push_back(n);
  const ByteVec x = asb::encode(f);
  BOOST_TEST_REQUIRE((asb::decode(x) == f));
  box.write("whole.asb", x);
  BOOST_TEST(box.cli("decode whole.asb").code == 0);
  // Inside the first command (0x417: header 0x6C bytes), and inside the string pool at the end.
  for (size_t cut : {size_t(0x6C + 0x10), x.size() - 3}) {
    BOOST_TEST_CONTEXT("cut at " << cut) {
      const ByteVec part(x.begin(), x.begin() + static_cast<long>(cut));
      binschema::DecodeError e(0, "");
      try {
        asb::decode(part);
        BOOST_FAIL("the truncated file decodes");
      } catch (const binschema::DecodeError& err) {
        e = err;
      }
      BOOST_TEST(!e.path().empty());
      box.write("cut.asb", part);
      const Result r = box.cli("decode cut.asb");
      BOOST_TEST(r.code == 1, r);
      BOOST_TEST(r.out.empty());
      BOOST_REQUIRE(r.err_lines().size() == 1u);
      const std::string line = r.err_lines()[0];
      BOOST_TEST(line.rfind("binschema: cut.asb: ", 0) == 0u, line);
      BOOST_TEST(line.find(e.what()) != std::string::npos, line);
      BOOST_TEST(line.find(e.path()) != std::string::npos, line);
      BOOST_TEST(line.find(binschema::hex(e.offset())) != std::string::npos, line);
    }
  }
}
