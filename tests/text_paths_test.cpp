// Strings that are not UTF-8 through every text path, for every format.
//
// Each example document of examples/ is read, and every string of its model
// (names, dictionary keys, pooled and inline strings, string arrays, the
// strings of bit fields and union cases: whatever visit_fields reaches) has
// the top bit of its last byte flipped. That keeps lengths (fixed-size fields
// still fit) and keeps distinct strings distinct (names stay unique), and no
// string stays UTF-8: a lone lead byte, a lead byte before ASCII, or a lone
// continuation byte. The file written from that model then goes through
//   - to_text / from_text, as YAML and as JSON;
//   - the same with its layout (decode(bytes, layout) .. encode(model, layout));
//   - the CLI: decode and encode, YAML and JSON, with and without --numbers,
//     one file and a batch (folders, --out-dir);
// and must come back byte for byte, the text always valid UTF-8.
#define BOOST_TEST_MODULE text_paths_test
#include <boost/test/unit_test.hpp>

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "aamp_text.h"
#include "al_text.h"
#include "asb_text.h"
#include "baev_text.h"
#include "bfevfl_text.h"
#include "byml_text.h"
#include "binschema/format.h"
#include "binschema/layout.h"
#include "binschema/text.h"
#include "evnt_text.h"
#include "sandbox.h"
#include "sarc_text.h"

namespace fs = std::filesystem;
using binschema::TextKind;
using ByteVec = std::vector<uint8_t>;

namespace {

// Flips the top bit of the last byte of every non-empty string of a model.
struct BreakCount {
  size_t changed = 0;
  size_t empty = 0;
};
template <class Model>
BreakCount break_utf8(Model& m) {
  BreakCount count;
  binschema::text::for_each<std::string>(m, [&](std::string& s) {
    if (s.empty()) {
      ++count.empty;
    } else {
      s.back() = static_cast<char>(static_cast<unsigned char>(s.back()) ^ 0x80);
      ++count.changed;
    }
  });
  return count;
}

// Every string of a model, in visiting order.
template <class Model>
std::vector<std::string> strings_of(Model m) {
  std::vector<std::string> all;
  binschema::text::for_each<std::string>(m, [&](std::string& s) { all.push_back(s); });
  return all;
}

// A string that picks the byte order (BYML's magic, `bom: {YB: little, BY:
// big}`) must stay one of its marks: put back after breaking (one string fewer broken).
template <class Model>
void keep_order_mark(Model&, const Model&, BreakCount&) {}
void keep_order_mark(binschema::byml::Byml& m, const binschema::byml::Byml& original, BreakCount& count) {
  m.magic = original.magic;
  --count.changed;
}

std::string kind_name(TextKind k) { return k == TextKind::Json ? "JSON" : "YAML"; }

// The library's text paths for one format; returns the file the broken model
// writes (empty when it could not be made).
template <class Ops>
ByteVec check_library_paths(const std::string& example) {
  const binschema::text::Doc doc = binschema::text::load_file(example);
  auto model = Ops::from_text(doc);
  const auto original = model;
  BreakCount breaker = break_utf8(model);
  keep_order_mark(model, original, breaker);
  BOOST_TEST_MESSAGE(example << ": " << breaker.changed << " strings broken, " << breaker.empty << " empty");
  BOOST_TEST(breaker.changed > 0u, example << " has no string to break");

  ByteVec bytes;
  try {
    bytes = Ops::encode(model);
  } catch (const std::exception& e) {
    BOOST_ERROR(example << ": the model with broken strings does not encode: " << e.what());
    return {};
  }
  const auto decoded = Ops::decode(bytes);
  {
    // What was written is what was broken: no string was repaired on the way.
    const auto want = strings_of(model), got = strings_of(decoded);
    BOOST_TEST(got.size() == want.size());
    size_t not_utf8 = 0;
    for (const std::string& s : got) not_utf8 += !binschema::text::is_utf8(s);
    BOOST_TEST(not_utf8 == breaker.changed, example << ": strings read back that are not UTF-8");
  }
  for (TextKind kind : {TextKind::Yaml, TextKind::Json}) {
    const std::string what = example + " " + kind_name(kind);
    const std::string text = Ops::to_text(decoded, kind, nullptr);
    BOOST_TEST(binschema::text::is_utf8(text), what << ": the text is not UTF-8");
    BOOST_TEST(text.find("{bytes: ") + text.find("{\"bytes\": ") != 2 * std::string::npos,
               what << ": no string was written as bytes");
    try {
      const auto back = Ops::encode(Ops::from_text(binschema::text::load(text)));
      BOOST_TEST(back == bytes, what << ": the text reads back to other bytes");
    } catch (const std::exception& e) {
      BOOST_ERROR(what << ": the text does not read back: " << e.what());
    }
    // With the layout entry: decode(bytes, layout) .. encode(model, layout).
    binschema::Layout layout;
    const auto with_layout = Ops::decode(bytes, layout);
    const std::string text2 = Ops::to_text(with_layout, kind, &layout);
    BOOST_TEST(binschema::text::is_utf8(text2), what << " with layout: the text is not UTF-8");
    try {
      binschema::Layout layout2;
      const auto model2 = Ops::from_text_with_layout(binschema::text::load(text2), layout2);
      BOOST_TEST(Ops::encode(model2, layout2) == bytes, what << " with layout: other bytes");
    } catch (const std::exception& e) {
      BOOST_ERROR(what << " with layout: the text does not read back: " << e.what());
    }
  }
  return bytes;
}

#define FORMAT_OPS(NS)                                                                                        \
  struct NS##_ops {                                                                                           \
    static auto from_text(const binschema::text::Doc& d) { return binschema::NS::from_text(d); }                       \
    static auto from_text_with_layout(const binschema::text::Doc& d, binschema::Layout& l) {                        \
      return binschema::NS::from_text_with_layout(d, l);                                                      \
    }                                                                                                         \
    static auto decode(const ByteVec& b) { return binschema::NS::decode(b); }                                \
    static auto decode(const ByteVec& b, binschema::Layout& l) { return binschema::NS::decode(b, l); }       \
    template <class M>                                                                                        \
    static ByteVec encode(const M& m) { return binschema::NS::encode(m); }                                    \
    template <class M>                                                                                        \
    static ByteVec encode(const M& m, const binschema::Layout& l) { return binschema::NS::encode(m, l); }    \
    template <class M>                                                                                        \
    static std::string to_text(const M& m, TextKind k, const binschema::Layout* l) {                          \
      return binschema::NS::to_text(m, k, l);                                                                 \
    }                                                                                                         \
  };
FORMAT_OPS(aamp)
FORMAT_OPS(al)
FORMAT_OPS(asb)
FORMAT_OPS(baev)
FORMAT_OPS(bfevfl)
FORMAT_OPS(byml)
FORMAT_OPS(evnt)
FORMAT_OPS(sarc)
#undef FORMAT_OPS

using Check = ByteVec (*)(const std::string&);
const std::map<std::string, Check> kChecks = {
    {"al", check_library_paths<al_ops>},       {"asb", check_library_paths<asb_ops>},
    {"baev", check_library_paths<baev_ops>},   {"bfevfl", check_library_paths<bfevfl_ops>},
    {"evnt", check_library_paths<evnt_ops>},   {"sarc", check_library_paths<sarc_ops>},
    {"aamp", check_library_paths<aamp_ops>},
    {"byml", check_library_paths<byml_ops>},
};

// Every example, its format and the file its broken model writes.
struct BrokenFile {
  std::string example;
  const binschema::Format* format;
  ByteVec bytes;
};

std::vector<BrokenFile> broken_examples() {
  std::vector<BrokenFile> out;
  const fs::path dir = fs::path(BINSCHEMA_SOURCE_DIR) / "examples";
  std::vector<fs::path> docs;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".yaml") docs.push_back(e.path());
  std::sort(docs.begin(), docs.end());
  for (const fs::path& p : docs) {
    const std::string name = std::string(binschema::text::load_file(p.string()).root().get("format").scalar());
    const auto check = kChecks.find(name);
    BOOST_TEST_REQUIRE((check != kChecks.end()), "no check for format " << name << " (" << p << ")");
    out.push_back({p.filename().string(), binschema::find_format(name), check->second(p.string())});
  }
  return out;
}

// The name of the n-th file in the sandbox ("f0", "f1", ...). Built with +=:
// "f" + std::to_string(n) trips GCC 12's -Wrestrict false positive.
std::string stem_of(size_t n) {
  std::string s = "f";
  s += std::to_string(n);
  return s;
}

}  // namespace

BOOST_AUTO_TEST_CASE(every_format_has_an_example_here) {
  std::vector<std::string> seen;
  for (const auto& e : fs::directory_iterator(fs::path(BINSCHEMA_SOURCE_DIR) / "examples"))
    if (e.path().extension() == ".yaml") seen.push_back(std::string(binschema::text::load_file(e.path().string()).root().get("format").scalar()));
  for (const binschema::Format* f : binschema::all_formats())
    BOOST_TEST((std::find(seen.begin(), seen.end(), f->name) != seen.end()), "no example of " << f->name);
}

// The library paths run inside broken_examples(); this adds the CLI's.
BOOST_AUTO_TEST_CASE(strings_that_are_not_utf8_survive_every_text_path) {
  const std::vector<BrokenFile> files = broken_examples();
  binschema::test::Sandbox box("binschema-text-paths");
  size_t n = 0;
  for (const BrokenFile& b : files) {
    if (b.bytes.empty()) continue;  // reported above
    const std::string stem = stem_of(n++);
    const std::string bin = stem + b.format->extensions.at(0);
    box.write(bin, b.bytes);
    box.write("batch/" + bin, b.bytes);
    for (const std::string format : {"yaml", "json"})
      for (const std::string numbers : {"", " --numbers"}) {
        const std::string what = b.example + " CLI " + format + numbers;
        const std::string text = stem + "." + format, again = stem + ".again" + b.format->extensions.at(0);
        const auto d = box.cli("decode " + binschema::test::q(box.path(bin).string()) + " --format " + format + numbers +
                               " -o " + binschema::test::q(box.path(text).string()));
        BOOST_TEST_REQUIRE(d.code == 0, what << " decode: " << d);
        BOOST_TEST(binschema::text::is_utf8(box.read_text(text)), what << ": the text is not UTF-8");
        const auto e = box.cli("encode " + binschema::test::q(box.path(text).string()) + " -o " +
                               binschema::test::q(box.path(again).string()));
        BOOST_TEST_REQUIRE(e.code == 0, what << " encode: " << e);
        BOOST_TEST(box.read(again) == b.bytes, what << ": other bytes");
      }
  }
  BOOST_TEST(n == files.size());
  // A batch: the folder to text, the text folder back to binaries.
  for (const std::string format : {"yaml", "json"}) {
    const std::string text_dir = "text-" + format, back_dir = "back-" + format;
    const auto d = box.cli("decode " + binschema::test::q(box.path("batch").string()) + " --format " + format +
                           " --out-dir " + binschema::test::q(box.path(text_dir).string()) + " -j 2");
    BOOST_TEST_REQUIRE(d.code == 0, "batch decode " << format << ": " << d);
    const auto e = box.cli("encode " + binschema::test::q(box.path(text_dir).string()) + " --out-dir " +
                           binschema::test::q(box.path(back_dir).string()) + " -j 2");
    BOOST_TEST_REQUIRE(e.code == 0, "batch encode " << format << ": " << e);
    n = 0;
    for (const BrokenFile& b : files) {
      if (b.bytes.empty()) continue;
      const std::string bin = stem_of(n++) + b.format->extensions.at(0);
      BOOST_TEST(binschema::text::is_utf8(box.read_text(text_dir + "/" + bin + "." + format)), bin << " " << format);
      BOOST_TEST(box.read(back_dir + "/" + bin) == b.bytes, "batch " << format << " " << b.example << ": other bytes");
    }
  }
}
