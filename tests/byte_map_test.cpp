// The byte map in the terminal (issue 28): `binschema explain` and
// `binschema coverage` on files of every format compiled in: the real
// samples in ../shared/samples/<format>/ where there are some, else the
// format's examples/<format>-*.yaml encoded by the CLI. Expected values come
// from the files' bytes and the format table, not from the trace itself.
#define BOOST_TEST_MODULE byte_map_test
#include <boost/test/unit_test.hpp>

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "binschema/format.h"
#include "sandbox.h"

namespace fs = std::filesystem;
using ByteVec = std::vector<uint8_t>;
using binschema::test::q;
using Sandbox = binschema::test::Sandbox;

namespace {

struct Input {
  std::string format;
  fs::path path;
};

// Files of every format: samples, or examples encoded into the sandbox.
std::vector<Input> inputs(Sandbox& box) {
  std::vector<Input> out;
  const fs::path shared = fs::path(BINSCHEMA_SHARED_DIR) / "samples";
  BOOST_REQUIRE_MESSAGE(fs::is_directory(shared), shared.string() + " is missing: these tests need the real files in ../shared/samples/");
  for (const binschema::Format* f : binschema::all_formats()) {
    size_t before = out.size();
    const fs::path dir = shared / f->name;
    if (fs::is_directory(dir))
      for (const auto& e : fs::directory_iterator(dir))
        if (e.is_regular_file() && e.path().extension() != ".md") out.push_back({f->name, e.path()});
    if (out.size() == before)
      for (const auto& e : fs::directory_iterator(fs::path(BINSCHEMA_SOURCE_DIR) / "examples")) {
        const std::string n = e.path().filename().string();
        if (n.rfind(std::string(f->name) + "-", 0) != 0 || e.path().extension() != ".yaml") continue;
        const std::string bin = e.path().stem().string() + "." + f->name;
        const auto r = box.cli("encode " + q(e.path().string()) + " -o " + q(bin));
        BOOST_REQUIRE_MESSAGE(r.code == 0, n << ": " << r);
        out.push_back({f->name, box.path(bin)});
      }
    BOOST_TEST_REQUIRE(out.size() > before, f->name << ": no sample and no example to test the byte map on");
  }
  return out;
}

ByteVec read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return ByteVec(std::istreambuf_iterator<char>(in), {});
}

uint64_t load(const ByteVec& b, uint64_t at, unsigned n, bool big) {
  uint64_t v = 0;
  for (unsigned i = 0; i < n; ++i) v = v << 8 | b[at + (big ? i : n - 1 - i)];
  return v;
}

}  // namespace

BOOST_AUTO_TEST_CASE(coverage_of_every_format) {
  Sandbox box;
  for (const Input& in : inputs(box)) {
    BOOST_TEST_CONTEXT(in.path.string()) {
      const ByteVec bytes = read(in.path);
      const auto r = box.cli("coverage --format json " + q(in.path.string()));
      BOOST_TEST_REQUIRE(r.code == 0, r);
      const YAML::Node m = YAML::Load(r.out);
      BOOST_TEST(m["format"].as<std::string>() == in.format);
      BOOST_TEST(m["error"].IsNull());
      const uint64_t size = m["size"].as<uint64_t>();
      BOOST_TEST(size == bytes.size());
      BOOST_TEST(m["explained"].as<uint64_t>() + m["padding"].as<uint64_t>() + m["unexplained"].as<uint64_t>() == size);
      // The ranges tile the file; zero-byte gaps are zeros, unexplained ones are not.
      uint64_t at = 0, unexplained = 0;
      for (const auto& g : m["ranges"]) {
        const uint64_t a = g["start"].as<uint64_t>(), b = g["end"].as<uint64_t>();
        const std::string cls = g["class"].as<std::string>();
        BOOST_TEST(a == at);
        BOOST_TEST(b > a);
        at = b;
        if (cls == "zeros")
          for (uint64_t i = a; i < b; ++i) BOOST_TEST(bytes[i] == 0);
        if (cls == "unexplained") unexplained += b - a;
      }
      BOOST_TEST(at == size);
      BOOST_TEST(unexplained == m["unexplained"].as<uint64_t>());
      // No shipped file has unexplained bytes (BFEVFL's relocation table and
      // string pool header, which the reader skips, are traced from the schema).
      for (const auto& g : m["ranges"])
        if (g["class"].as<std::string>() == "unexplained")
          BOOST_TEST(false, "unexplained bytes " << g["start"].as<uint64_t>() << ".." << g["end"].as<uint64_t>());
      BOOST_TEST(m["unexplained"].as<uint64_t>() == 0u);
      // BFEVFL: the relocation table where the header says, its entries as many as it says.
      if (in.format == "bfevfl") {
        uint64_t relt = 0, entries = 0, str = 0;
        for (const auto& f : m["fields"]) {
          const std::string path = f["path"].as<std::string>();
          if (path == "relocation_table_offset") relt = load(bytes, f["offset"].as<uint64_t>(), 4, false);
          if (path == "relocation_table" && f["kind"].as<std::string>() == "struct") BOOST_TEST(f["offset"].as<uint64_t>() == relt);
          if (path.rfind("relocation_table.entries[", 0) == 0 && f["kind"].as<std::string>() == "struct") ++entries;
          if (path == "string_pool_header.magic") str = f["offset"].as<uint64_t>();
        }
        BOOST_TEST(relt != 0u);
        BOOST_TEST(entries == load(bytes, relt + 0x24, 4, false));
        BOOST_TEST(std::string(bytes.begin() + str, bytes.begin() + str + 4) == "STR ");
      }
      // Every field lies in the file; numbers show the file's value.
      const bool big = m["big_endian"].as<bool>();
      size_t numbers = 0, pointers = 0;
      for (const auto& f : m["fields"]) {
        const uint64_t off = f["offset"].as<uint64_t>(), n = f["size"].as<uint64_t>();
        BOOST_TEST(off + n <= size, f["path"].as<std::string>());
        const std::string kind = f["kind"].as<std::string>(), type = f["type"] ? f["type"].as<std::string>() : "";
        if (kind == "number" && (type == "u8" || type == "u16" || type == "u32") && n == (type == "u8" ? 1u : type == "u16" ? 2u : 4u)) {
          const uint64_t v = load(bytes, off, static_cast<unsigned>(n), big);
          BOOST_TEST(f["value"].as<std::string>().rfind(std::to_string(v) + " (", 0) == 0, f["path"].as<std::string>());
          ++numbers;
        }
        if (kind == "pointer" && f["target"]) {
          BOOST_TEST(f["target"].as<uint64_t>() <= size);
          ++pointers;
        }
      }
      BOOST_TEST(numbers > 0);
      if (in.format == "bfevfl" || in.format == "baev") BOOST_TEST(pointers > 0);
    }
  }
}

BOOST_AUTO_TEST_CASE(explain_of_every_format) {
  Sandbox box;
  for (const Input& in : inputs(box)) {
    BOOST_TEST_CONTEXT(in.path.string()) {
      const binschema::Format* f = binschema::find_format(in.format);
      const ByteVec bytes = read(in.path);
      // The magic: a chars field holding it.
      if (!f->magic.empty()) {
        std::string magic(f->magic);
        magic = magic.substr(0, magic.find('\0'));
        const auto r = box.cli("explain " + q(in.path.string()) + " " + std::to_string(f->magic_offset + 1));
        BOOST_TEST_REQUIRE(r.code == 0, r);
        BOOST_TEST(r.out.find("\nkind: chars") != std::string::npos, r.out);
        BOOST_TEST(r.out.find("\nvalue: \"" + magic) != std::string::npos, r.out);
        BOOST_TEST(r.out.find("\nstruct: ") != std::string::npos, r.out);
      }
      // Every field of the JSON map is what explain names at its first byte, or lies within it.
      const YAML::Node m = YAML::Load(box.cli("coverage --format json " + q(in.path.string())).out);
      size_t checked = 0;
      for (const auto& field : m["fields"]) {
        if (checked == 6) break;
        const std::string kind = field["kind"].as<std::string>();
        if (kind == "struct" || kind == "target" || field["size"].as<uint64_t>() == 0) continue;
        const uint64_t off = field["offset"].as<uint64_t>();
        const YAML::Node e = YAML::Load(box.cli("explain --format json " + q(in.path.string()) + " " + std::to_string(off)).out);
        bool found = false;
        for (const auto& hit : e["fields"]) found = found || hit["path"].as<std::string>() == field["path"].as<std::string>();
        BOOST_TEST(found, "explain " << off << " lists " << field["path"].as<std::string>());
        ++checked;
      }
      // A pointer: explain shows its target, and the target holds a field.
      for (const auto& field : m["fields"]) {
        if (field["kind"].as<std::string>() != "pointer" || !field["target"]) continue;
        const uint64_t t = field["target"].as<uint64_t>();
        const auto r = box.cli("explain " + q(in.path.string()) + " " + std::to_string(field["offset"].as<uint64_t>()));
        BOOST_TEST(r.out.find("-> " + binschema::hex(t)) != std::string::npos, r.out);
        if (t < bytes.size()) BOOST_TEST(box.cli("explain " + q(in.path.string()) + " " + std::to_string(t)).out.find("\nfield: ") != std::string::npos);
        break;
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(through_archives_and_compression) {
  Sandbox box;
  const fs::path pack = fs::path(BINSCHEMA_SHARED_DIR) / "samples" / "yaz0" / "Demo344_1.sbeventpack";
  BOOST_REQUIRE_MESSAGE(fs::exists(pack), pack.string() + " is missing: these tests need the real files in ../shared/samples/");
  const std::string member = pack.string() + ":EventFlow/Demo344_1.bfevfl";
  const auto c = box.cli("coverage " + q(member));
  BOOST_TEST_REQUIRE(c.code == 0, c);
  BOOST_TEST(c.out.find(": bfevfl, ") != std::string::npos, c.out);
  const auto e = box.cli("explain " + q(member) + " 0x30");
  BOOST_TEST(e.code == 0, e);
  BOOST_TEST(e.out.find("field: flowchart_dic") != std::string::npos, e.out);
  // The archive itself, through Yaz0: a SARC.
  const auto s = box.cli("coverage --format json " + q(pack.string()));
  BOOST_TEST_REQUIRE(s.code == 0, s);
  BOOST_TEST(YAML::Load(s.out)["format"].as<std::string>() == "sarc");
  // view writes MEMBER.html in the current folder.
  BOOST_TEST(box.cli("view " + q(member)).code == 0);
  BOOST_TEST(box.exists("Demo344_1.bfevfl.html"));
}

BOOST_AUTO_TEST_CASE(bad_offsets_and_bad_files) {
  Sandbox box;
  const fs::path ex = fs::path(BINSCHEMA_SOURCE_DIR) / "examples" / "baev-totk.yaml";
  BOOST_REQUIRE(box.cli("encode " + q(ex.string()) + " -o a.baev").code == 0);
  const ByteVec a = box.read("a.baev");
  BOOST_TEST(box.cli("explain a.baev " + std::to_string(a.size())).code == 2);
  BOOST_TEST(box.cli("explain a.baev zz").code == 2);
  BOOST_TEST(box.cli("explain a.baev -1").code == 2);
  // A file cut short: the map of what was read, and the decode's one-line error (exit 1).
  ByteVec cut(a.begin(), a.begin() + 0xb0);  // the header whole (its fields read), the file size wrong
  box.write("cut.baev", cut);
  const auto r = box.cli("coverage cut.baev");
  BOOST_TEST(r.code == 1, r);
  BOOST_TEST(r.err_lines().size() == 1u, r);
  BOOST_TEST(r.err.find("cut.baev: ") != std::string::npos, r);
  BOOST_TEST(r.out.find("decode stopped: ") != std::string::npos, r.out);
  BOOST_TEST(r.out.find("explained:") != std::string::npos, r.out);
  const auto e = box.cli("explain cut.baev 0");
  BOOST_TEST(e.code == 1, e);
  BOOST_TEST(e.out.find("field: magic") != std::string::npos, e.out);
}
