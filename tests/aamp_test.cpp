// AAMP (schemas/aamp.yaml, no C++ of its own) over the real parameter
// archives: the 13 files in ../shared/samples/aamp/ and the 7 .bas members of
// ../shared/samples/yaz0/Demo344_1.sbeventpack (Yaz0, then SARC). The tests
// fail, saying so, when ../shared is missing.
//
// The independent reader tests/independent/aamp.py (plain Python, not
// binschema's code) is the judge of what binschema writes: a file encoded
// without its layout entry, an edited text, and hand-built values of every
// type are read by it and compared with the expected document.
#define BOOST_TEST_MODULE aamp_test
#include <boost/test/unit_test.hpp>

#include <yaml-cpp/yaml.h>

#include "aamp_text.h"
#include "sarc.h"
#include "samples.h"
#include "scratch_dir.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <regex>
#include <string>
#include <vector>

#include "binschema/compression.h"
#include "binschema/hash.h"

using namespace binschema::aamp;
namespace fs = std::filesystem;
using ByteVec = std::vector<uint8_t>;

namespace {

struct Sample {
  std::string name;
  ByteVec bytes;
};

// The 13 loose files and the 7 .bas members of the event pack.
std::vector<Sample> all_samples() {
  std::vector<Sample> out;
  for (const fs::path& p : samples::files("aamp")) out.push_back({p.filename().string(), samples::read(p)});
  const ByteVec pack = binschema::yaz0::decompress(samples::read(samples::dir("yaz0") / "Demo344_1.sbeventpack"));
  const binschema::sarc::Sarc sarc = binschema::sarc::decode(pack);
  size_t members = 0;
  for (const auto& node : sarc.nodes) {
    const std::string& n = node.attributes.name;
    if (n.size() > 4 && n.compare(n.size() - 4, 4, ".bas") == 0) {
      out.push_back({"Demo344_1.sbeventpack:" + n, node.data.data});
      ++members;
    }
  }
  BOOST_REQUIRE_EQUAL(members, 7u);
  BOOST_REQUIRE_EQUAL(out.size(), 20u);
  return out;
}

std::string first_difference(const ByteVec& a, const ByteVec& b) {
  const size_t n = std::min(a.size(), b.size());
  for (size_t i = 0; i < n; ++i)
    if (a[i] != b[i]) return "first difference at " + binschema::hex(i) + " (sizes " + binschema::hex(a.size()) + ", " + binschema::hex(b.size()) + ")";
  return a.size() == b.size() ? "same" : "sizes differ: " + binschema::hex(a.size()) + " vs " + binschema::hex(b.size());
}

// A scratch folder for the files the independent reader reads.
fs::path scratch() { return scratch_dir("aamp_test"); }

fs::path write_file(const std::string& name, const ByteVec& bytes) {
  fs::path p = scratch() / name;
  std::ofstream(p, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  return p;
}

struct Run {
  int status = -1;
  std::string out;
};

// tests/independent/aamp.py with these arguments (stdout; stderr goes to the log).
Run aamp_py(const std::string& args) {
  const std::string cmd = std::string(BINSCHEMA_PYTHON3) + " " + BINSCHEMA_SOURCE_DIR + "/tests/independent/aamp.py " + args;
  Run r;
  FILE* f = ::popen(cmd.c_str(), "r");
  BOOST_REQUIRE(f);
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) r.out.append(buf, n);
  const int st = ::pclose(f);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

// The differences aamp.py finds between two files' documents (both read with every check).
Run diff(const ByteVec& a, const ByteVec& b) {
  const fs::path pa = write_file("a.aamp", a), pb = write_file("b.aamp", b);
  return aamp_py(pa.string() + " --diff " + pb.string());
}

// aamp.py's document of a file, as a YAML node (its JSON).
YAML::Node independent_doc(const ByteVec& bytes) {
  const Run r = aamp_py(write_file("doc.aamp", bytes).string());
  BOOST_REQUIRE_MESSAGE(r.status == 0, "aamp.py refused the file (see its message above)");
  return YAML::Load(r.out);
}

std::string name_hex(const char* name) {
  char b[16];
  std::snprintf(b, sizeof b, "0x%08x", binschema::crc32(name));
  return b;
}

std::string without_layout(const std::string& text) {
  const size_t at = text.find("\nlayout:");
  return at == std::string::npos ? text : text.substr(0, at + 1);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(samples_)

BOOST_AUTO_TEST_CASE(every_sample_decodes) {
  for (const Sample& s : all_samples()) {
    BOOST_TEST_CONTEXT(s.name) {
      File m;
      BOOST_CHECK_NO_THROW(m = decode(s.bytes));
      BOOST_TEST(m.root.name == binschema::crc32("param_root"));
      binschema::Layout lay;
      BOOST_CHECK_NO_THROW(decode(s.bytes, lay));
    }
  }
}

// With the layout entry: the same bytes, directly, through YAML and JSON, and
// through a copy of the C++ model.
BOOST_AUTO_TEST_CASE(every_sample_round_trips_byte_for_byte) {
  for (const Sample& s : all_samples()) {
    BOOST_TEST_CONTEXT(s.name) {
      binschema::Layout lay;
      const File m = decode(s.bytes, lay);
      const ByteVec direct = encode(m, lay);
      BOOST_TEST(first_difference(direct, s.bytes) == "same");
      for (auto kind : {binschema::TextKind::Yaml, binschema::TextKind::Json}) {
        binschema::Layout back;
        const File t = from_text_with_layout(to_text(m, kind, &lay), back);
        BOOST_TEST((t == m));
        BOOST_TEST(first_difference(encode(t, back), s.bytes) == "same");
      }
      File copy = m;  // the C++ API: a model built up or changed in code
      BOOST_TEST(first_difference(encode(copy, lay), s.bytes) == "same");
    }
  }
}

// Without the layout entry: a fresh file, in Nintendo's sections, that the
// independent reader reads as the same document and that decodes again.
BOOST_AUTO_TEST_CASE(fresh_layout_is_the_same_document) {
  for (const Sample& s : all_samples()) {
    BOOST_TEST_CONTEXT(s.name) {
      const File m = decode(s.bytes);
      const ByteVec fresh = encode(from_text(without_layout(to_text(m, binschema::TextKind::Yaml))));
      const Run r = diff(s.bytes, fresh);
      BOOST_TEST(r.status == 0);
      BOOST_TEST(r.out == "");
      BOOST_TEST((decode(fresh) == m));
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(editing)

const char* const kEpona = "Horse_Link_Appear_Epona.bas";

// A value changed in the text: the independent reader sees that change and no other.
BOOST_AUTO_TEST_CASE(change_a_value_in_the_text) {
  const ByteVec orig = samples::read(samples::dir("aamp") / kEpona);
  binschema::Layout lay;
  const std::string text = to_text(decode(orig, lay), binschema::TextKind::Yaml, &lay);
  const std::string edited = std::regex_replace(text, std::regex("StartFrame: 24\\.0"), "StartFrame: 25.5");
  BOOST_REQUIRE(edited != text);
  for (const std::string& t : {edited, without_layout(edited)}) {
    binschema::Layout back;
    const ByteVec out = encode(from_text_with_layout(t, back), back);
    const Run r = diff(orig, out);
    BOOST_TEST(r.status == 0);
    // 24.0 is 0x41c00000, 25.5 is 0x41cc0000.
    BOOST_TEST(r.out == "~ root/lists/0xbd3c650b/lists/0x52e97521/lists/0x3c154c1a/lists/0xeed95a7e/objects/0x43885a40/0x59f80dc0: "
                        "('f32', 1103101952) -> ('f32', 1103888384)\n");
  }
}

// A parameter added to an object in the text (with and without the layout
// entry): the independent reader finds it, and nothing else changed.
BOOST_AUTO_TEST_CASE(add_a_parameter_in_the_text) {
  const ByteVec orig = samples::read(samples::dir("aamp") / kEpona);
  binschema::Layout lay;
  const std::string text = to_text(decode(orig, lay), binschema::TextKind::Yaml, &lay);
  // The root's object 0x9dd3076b holds one bool; add a string and a vec3 after it.
  const std::string anchor = "      UseIK: false\n";
  BOOST_REQUIRE(text.find(anchor) != std::string::npos);
  // By name (the text computes the CRC32) and typed by a tag where the plain value would not say.
  const std::string added = anchor +
                            "      Added: Hello\n" +
                            "      AddedVec: !vec3 [1.0, 2.0, 3.0]\n" +
                            "      AddedU: !u 7\n";
  const std::string edited = std::string(text).replace(text.find(anchor), anchor.size(), added);
  for (const std::string& t : {edited, without_layout(edited)}) {
    binschema::Layout back;
    const ByteVec out = encode(from_text_with_layout(t, back), back);
    const Run r = diff(orig, out);
    BOOST_TEST(r.status == 0);
    BOOST_TEST(r.out == "+ root/objects/0x9dd3076b/" + name_hex("Added") + ": ('string_ref', 'Hello')\n" +
                            "+ root/objects/0x9dd3076b/" + name_hex("AddedVec") + ": ('vec3', (1065353216, 1073741824, 1077936128))\n" +
                            "+ root/objects/0x9dd3076b/" + name_hex("AddedU") + ": ('u32', 7)\n");
  }
}

// A parameter removed in the text, with the layout entry: its table would
// keep a hole (and the header count it), so the file is laid out afresh; the
// independent reader finds that parameter gone and nothing else changed.
BOOST_AUTO_TEST_CASE(remove_a_parameter_in_the_text) {
  const ByteVec orig = samples::read(samples::dir("aamp") / kEpona);
  binschema::Layout lay;
  const std::string text = to_text(decode(orig, lay), binschema::TextKind::Yaml, &lay);
  BOOST_REQUIRE(text.find("\nlayout:") != std::string::npos);
  const std::string gone = "              TypeIndex: 67\n";
  BOOST_REQUIRE(text.find(gone) != std::string::npos);
  const std::string edited = std::string(text).erase(text.find(gone), gone.size());
  binschema::Layout back;
  const ByteVec out = encode(from_text_with_layout(edited, back), back);
  const Run r = diff(orig, out);
  BOOST_TEST(r.status == 0);
  BOOST_TEST(r.out == "- root/lists/0xbd3c650b/lists/0x52e97521/objects/0x49ce4b2e/0x49697fb5\n");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(edge_cases)

Parameter param(const char* name, Parameter::Value v) { return Parameter{.value = std::move(v), .name = binschema::crc32(name)}; }

// Every parameter type, buffers and curves included, and lists nested 40
// deep, written by binschema's writer and read by the independent reader.
BOOST_AUTO_TEST_CASE(every_type_and_deep_nesting) {
  File m;
  m.io_type = "xml";
  m.root.name = binschema::crc32("param_root");
  ParameterObject o{.params = {}, .name = binschema::crc32("Values")};
  auto add = [&](const char* n, auto kind, auto value) {
    Parameter::Value v;
    v.emplace<decltype(kind)::value>(value);
    o.params.push_back(param(n, std::move(v)));
  };
  using C = Parameter::Value::Case;
  add("b", std::integral_constant<C, C::bool_>{}, Bool{.value = true});
  add("f", std::integral_constant<C, C::f32>{}, F32{.value = 0.5f});
  add("i", std::integral_constant<C, C::int_>{}, Int{.value = -7});
  add("v2", std::integral_constant<C, C::vec2>{}, Vec2{.value = {1.0f, 2.0f}});
  add("v3", std::integral_constant<C, C::vec3>{}, Vec3{.value = {1.0f, 2.0f, 3.0f}});
  add("v4", std::integral_constant<C, C::vec4>{}, Vec4{.value = {1.0f, 2.0f, 3.0f, 4.0f}});
  add("c", std::integral_constant<C, C::color>{}, Color{.value = {0.25f, 0.5f, 0.75f, 1.0f}});
  add("s32", std::integral_constant<C, C::string32>{}, String{.value = "short"});
  add("s64", std::integral_constant<C, C::string64>{}, String{.value = "a string of sixty-three bytes at most"});
  add("s256", std::integral_constant<C, C::string256>{}, String{.value = "long"});
  add("sref", std::integral_constant<C, C::string_ref>{}, String{.value = "short"});  // equal to s32
  Curve cv{.a = 1, .b = 2, .floats = {}};
  for (size_t k = 0; k < 30; ++k) cv.floats[k] = static_cast<float>(k);
  add("cu1", std::integral_constant<C, C::curve1>{}, Curve1{.value = {cv}});
  add("cu2", std::integral_constant<C, C::curve2>{}, Curve2{.value = {cv, cv}});
  add("cu3", std::integral_constant<C, C::curve3>{}, Curve3{.value = {cv, cv, cv}});
  add("cu4", std::integral_constant<C, C::curve4>{}, Curve4{.value = {cv, cv, cv, cv}});
  add("bi", std::integral_constant<C, C::buffer_int>{}, BufferInt{.values = {-1, 2, -3}});
  add("bf", std::integral_constant<C, C::buffer_f32>{}, BufferF32{.values = {1.5f}});
  add("bu", std::integral_constant<C, C::buffer_u32>{}, BufferU32{.values = {}});
  add("bb", std::integral_constant<C, C::buffer_binary>{}, BufferBinary{.values = {1, 2, 3, 4, 5}});
  add("q", std::integral_constant<C, C::quat>{}, Quat{.value = {0.0f, 0.0f, 0.0f, 1.0f}});
  add("u", std::integral_constant<C, C::u32>{}, U32{.value = 0xFFFFFFFFu});
  m.root.objects.push_back(o);
  // 40 lists deep, each with an object of one int.
  ParameterList deep{.lists = {}, .objects = {}, .name = binschema::crc32("Deep")};
  for (int d = 39; d >= 0; --d) {
    ParameterList up{.lists = {}, .objects = {}, .name = binschema::crc32(("L" + std::to_string(d)).c_str())};
    Parameter::Value v;
    v.emplace<C::int_>(Int{.value = d});
    up.objects.push_back(ParameterObject{.params = {param("depth", std::move(v))}, .name = binschema::crc32("O")});
    if (d < 39) up.lists.push_back(std::move(deep));
    deep = std::move(up);
  }
  m.root.lists.push_back(std::move(deep));

  const ByteVec bytes = encode(m);
  BOOST_TEST((decode(bytes) == m));
  const YAML::Node doc = independent_doc(bytes);
  const YAML::Node v = doc["root"]["objects"][name_hex("Values")];
  auto at = [&](const char* n, const char* type) { return v[name_hex(n)][type]; };
  BOOST_TEST(at("b", "bool").as<bool>() == true);
  BOOST_TEST(at("f", "f32").as<std::string>() == "0x3f000000");
  BOOST_TEST(at("i", "int").as<int>() == -7);
  BOOST_TEST(at("v2", "vec2")[1].as<std::string>() == "0x40000000");
  BOOST_TEST(at("v3", "vec3")[2].as<std::string>() == "0x40400000");
  BOOST_TEST(at("v4", "vec4")[3].as<std::string>() == "0x40800000");
  BOOST_TEST(at("c", "color")[0].as<std::string>() == "0x3e800000");
  BOOST_TEST(at("s32", "string32").as<std::string>() == "short");
  BOOST_TEST(at("s64", "string64").as<std::string>() == "a string of sixty-three bytes at most");
  BOOST_TEST(at("s256", "string256").as<std::string>() == "long");
  BOOST_TEST(at("sref", "string_ref").as<std::string>() == "short");
  BOOST_TEST(at("cu1", "curve1").size() == 1u);
  BOOST_TEST(at("cu4", "curve4").size() == 4u);
  BOOST_TEST(at("cu3", "curve3")[2]["a"].as<int>() == 1);
  BOOST_TEST(at("cu3", "curve3")[2]["b"].as<int>() == 2);
  BOOST_TEST(at("cu2", "curve2")[1]["floats"][29].as<std::string>() == "0x41e80000");  // 29.0
  BOOST_TEST(at("bi", "buffer_int").size() == 3u);
  BOOST_TEST(at("bi", "buffer_int")[2].as<int>() == -3);
  BOOST_TEST(at("bf", "buffer_f32")[0].as<std::string>() == "0x3fc00000");
  BOOST_TEST(at("bu", "buffer_u32").size() == 0u);
  BOOST_TEST(at("bb", "buffer_binary").as<std::string>() == "0102030405");
  BOOST_TEST(at("q", "quat")[3].as<std::string>() == "0x3f800000");
  BOOST_TEST(at("u", "u32").as<uint64_t>() == 0xFFFFFFFFull);
  YAML::Node l = doc["root"];
  for (int d = 0; d < 40; ++d) {
    l = l["lists"][name_hex(("L" + std::to_string(d)).c_str())];
    BOOST_REQUIRE_MESSAGE(l.IsMap(), "list L" << d << " missing");
    BOOST_TEST(l["objects"][name_hex("O")][name_hex("depth")]["int"].as<int>() == d);
  }
}

// A scaled offset that does not fit its 16 bits is an encode error naming the
// field, not a wrong file: 0x10000 words of 4 past the list are out of reach.
BOOST_AUTO_TEST_CASE(offset_too_far_is_refused) {
  File m;
  m.io_type = "xml";
  m.root.name = binschema::crc32("param_root");
  ParameterObject o{.params = {}, .name = 1};
  for (int k = 0; k < 0x9000; ++k) {
    Parameter::Value v;
    v.emplace<Parameter::Value::Case::u32>(U32{.value = static_cast<uint32_t>(k)});
    o.params.push_back(param("p", std::move(v)));
  }
  // Many objects before the last list's object group: its offset grows past 0xFFFF words.
  for (int k = 0; k < 2; ++k) m.root.objects.push_back(o);
  ParameterList child{.lists = {}, .objects = {o}, .name = 2};
  m.root.lists.push_back(child);
  try {
    encode(m);
    BOOST_FAIL("encoded an offset that does not fit");
  } catch (const binschema::EncodeError& e) {
    BOOST_TEST_MESSAGE(e.what());
    BOOST_TEST(std::string(e.what()).find("does not fit") != std::string::npos);
  }
}

// Every type as text (issue 26): a value is bare where its plain kind picks
// its type (true, -7, 0.5, a string_ref) and tagged otherwise (!u, !vec3,
// !str32, ...); in JSON a tagged value is {"!u": 4294967295}. Both read back
// to the same model, floats that JSON cannot hold and strings that are not
// UTF-8 included.
BOOST_AUTO_TEST_CASE(every_type_as_bare_text) {
  File m;
  m.io_type = "xml";
  m.root.name = binschema::crc32("param_root");
  ParameterObject o{.params = {}, .name = binschema::crc32("Values")};
  auto add = [&](const char* n, auto kind, auto value) {
    Parameter::Value v;
    v.emplace<decltype(kind)::value>(value);
    o.params.push_back(param(n, std::move(v)));
  };
  using C = Parameter::Value::Case;
  add("b", std::integral_constant<C, C::bool_>{}, Bool{.value = true});
  add("f", std::integral_constant<C, C::f32>{}, F32{.value = 0.5f});
  add("fi", std::integral_constant<C, C::f32>{}, F32{.value = -std::numeric_limits<float>::infinity()});
  add("fwhole", std::integral_constant<C, C::f32>{}, F32{.value = 3.0f});
  add("i", std::integral_constant<C, C::int_>{}, Int{.value = -7});
  add("v2", std::integral_constant<C, C::vec2>{}, Vec2{.value = {1.0f, 2.0f}});
  add("v3", std::integral_constant<C, C::vec3>{}, Vec3{.value = {1.0f, 2.0f, 3.0f}});
  add("v4", std::integral_constant<C, C::vec4>{}, Vec4{.value = {1.0f, 2.0f, 3.0f, 4.0f}});
  add("c", std::integral_constant<C, C::color>{}, Color{.value = {0.25f, 0.5f, 0.75f, 1.0f}});
  add("s32", std::integral_constant<C, C::string32>{}, String{.value = "short"});
  add("s64", std::integral_constant<C, C::string64>{}, String{.value = "123"});
  add("s256", std::integral_constant<C, C::string256>{}, String{.value = "long"});
  add("sref", std::integral_constant<C, C::string_ref>{}, String{.value = "true"});  // a string, not a bool
  add("snum", std::integral_constant<C, C::string_ref>{}, String{.value = "1.5"});
  add("sbin", std::integral_constant<C, C::string_ref>{}, String{.value = "\xff\xfe"});  // not UTF-8
  Curve cv{.a = 1, .b = 2, .floats = {}};
  for (size_t k = 0; k < 30; ++k) cv.floats[k] = static_cast<float>(k);
  add("cu1", std::integral_constant<C, C::curve1>{}, Curve1{.value = {cv}});
  add("cu4", std::integral_constant<C, C::curve4>{}, Curve4{.value = {cv, cv, cv, cv}});
  add("bi", std::integral_constant<C, C::buffer_int>{}, BufferInt{.values = {-1, 2, -3}});
  add("bf", std::integral_constant<C, C::buffer_f32>{}, BufferF32{.values = {1.5f}});
  add("bu", std::integral_constant<C, C::buffer_u32>{}, BufferU32{.values = {}});
  add("bb", std::integral_constant<C, C::buffer_binary>{}, BufferBinary{.values = {1, 2, 255}});
  add("q", std::integral_constant<C, C::quat>{}, Quat{.value = {0.0f, 0.0f, 0.0f, 1.0f}});
  add("u", std::integral_constant<C, C::u32>{}, U32{.value = 0xFFFFFFFFu});
  m.root.objects.push_back(o);

  const std::string yaml = to_text(m, binschema::TextKind::Yaml);
  // Keys are the parameters' names (hex here: these names are in no list).
  const std::vector<std::pair<const char*, const char*>> lines = {
      {"b", "true"}, {"f", "0.5"}, {"fi", "-.inf"}, {"fwhole", "3.0"}, {"i", "-7"}, {"v2", "!vec2 [1.0, 2.0]"},
      {"v3", "!vec3 [1.0, 2.0, 3.0]"}, {"c", "!color [0.25, 0.5, 0.75, 1.0]"}, {"s32", "!str32 short"}, {"s64", "!str64 \"123\""},
      {"s256", "!str256 long"}, {"sref", "\"true\""}, {"snum", "\"1.5\""}, {"sbin", "!!str {bytes: fffe}"},
      {"bi", "!buffer_int [-1, 2, -3]"}, {"bf", "!buffer_f32 [1.5]"}, {"bu", "!buffer_u32 []"}, {"bb", "!buffer_binary [1, 2, 255]"},
      {"q", "!quat [0.0, 0.0, 0.0, 1.0]"}, {"u", "!u 4294967295"}};
  for (const auto& [n, v] : lines) {
    const std::string line = name_hex(n) + ": " + v + "\n";
    BOOST_TEST(yaml.find(line) != std::string::npos, line << " not in\n" << yaml);
  }
  BOOST_TEST(yaml.find(name_hex("cu1") + ": !curve1 [{a: 1, b: 2, floats: [0.0, 1.0,") != std::string::npos);
  BOOST_TEST((from_text(yaml) == m));
  const std::string json = to_text(m, binschema::TextKind::Json);
  for (const auto& [n, v] : std::vector<std::pair<const char*, const char*>>{
           {"u", "{\"!u\": 4294967295}"}, {"v3", "{\"!vec3\": [1.0, 2.0, 3.0]}"}, {"fi", "{\"!!float\": \"-.inf\"}"},
           {"sref", "\"true\""}, {"b", "true"}, {"i", "-7"}, {"sbin", "{\"!!str\": {\"bytes\": \"fffe\"}}"}}) {
    const std::string part = "\"" + name_hex(n) + "\": " + v;
    BOOST_TEST(json.find(part) != std::string::npos, part << " not in\n" << json);
  }
  BOOST_TEST((from_text(json) == m));
  // What people type: a whole number where only a float fits reads as the
  // int it is; the YAML standard tags pick the plain cases.
  const std::string typed = std::regex_replace(yaml, std::regex(name_hex("f") + ": 0\\.5\n"), name_hex("f") + ": !!float 5\n");
  BOOST_REQUIRE(typed != yaml);
  const File t = from_text(typed);
  BOOST_TEST(t.root.objects[0].params[1].value.get<C::f32>().value == 5.0f);
}

// Edited text with a tag that names no case, or a value of the wrong type for
// its tag: one line naming line:col and the path.
BOOST_AUTO_TEST_CASE(bare_text_errors_name_line_and_path) {
  const std::string head = "format: aamp\nio_type: xml\nroot:\n  name: 0xa4f6cb6c\n  lists: []\n  objects:\n    - name: 0x1\n      params:\n        - name: 0x2\n          value: ";
  auto error = [&](const std::string& v) {
    try {
      from_text(head + v + "\n");
    } catch (const binschema::TextError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  BOOST_TEST(error("!vec9 [1.0]") ==
             "10:18: root.objects[0].params[0].value: unknown tag '!vec9' (tags here: !vec2, !vec3, !vec4, !color, !str32, !str64, !curve1, "
             "!curve2, !curve3, !curve4, !buffer_int, !buffer_f32, !str256, !quat, !u, !buffer_u32, !buffer_binary)");
  BOOST_TEST(error("!vec3 [1.0, 2.0]") == "10:18: root.objects[0].params[0].value.vec3: expected a list of 3 values");
  BOOST_TEST(error("!u -1") == "10:18: root.objects[0].params[0].value.u32: negative value -1 for an unsigned field");
  BOOST_TEST(error("!u x") == "10:18: root.objects[0].params[0].value.u32: expected an integer, got 'x'");
  BOOST_TEST(error("!buffer_int [1, x]") == "10:34: root.objects[0].params[0].value.buffer_int[1]: expected an integer, got 'x'");
  BOOST_TEST(error("[1, 2]") == "10:18: root.objects[0].params[0].value: a list needs a tag here (tags here: !vec2, !vec3, !vec4, !color, !str32, "
                                "!str64, !curve1, !curve2, !curve3, !curve4, !buffer_int, !buffer_f32, !str256, !quat, !u, !buffer_u32, !buffer_binary)");
  BOOST_TEST(error("~") .find("10:18: root.objects[0].params[0].value: a null needs a tag here") == 0);
  BOOST_TEST(error("9999999999") == "10:18: root.objects[0].params[0].value.int: value 9999999999 out of range");
}

BOOST_AUTO_TEST_SUITE_END()

// Blocks that several pointers share, with a layout (WriterBase's shared targets).
BOOST_AUTO_TEST_SUITE(shared_blocks)

// The archive of one object "Obj" of f32 parameters (A: a vec2), as the
// writer makes it: the parameter table at 0x48 (8 bytes each: the name, then
// the word of type and offset in words of 4 from the parameter), the values
// from 0x60 + 8 * (parameters - 3), one copy each.
ByteVec f32_archive(std::initializer_list<std::pair<const char*, Parameter::Value>> params) {
  File m;
  m.io_type = "xml";
  m.root.name = binschema::crc32("param_root");
  ParameterObject o{.params = {}, .name = binschema::crc32("Obj")};
  for (const auto& [n, v] : params) o.params.push_back(edge_cases::param(n, v));
  m.root.objects.push_back(o);
  return encode(m);
}
Parameter::Value f32v(float f) {
  Parameter::Value v;
  v.emplace<Parameter::Value::Case::f32>(F32{.value = f});
  return v;
}
uint32_t u32_at(const ByteVec& b, size_t at) { return b[at] | b[at + 1] << 8 | b[at + 2] << 16 | uint32_t(b[at + 3]) << 24; }
void set_u32(ByteVec& b, size_t at, uint32_t v) {
  for (int k = 0; k < 4; ++k) b[at + k] = uint8_t(v >> (8 * k));
}
// Parameter k's value moved `words` words back (the word's low 24 bits).
void point_back(ByteVec& b, size_t k, uint32_t words) {
  const size_t at = 0x48 + 8 * k + 4;
  set_u32(b, at, u32_at(b, at) - words);
}
// The 4 bytes at `at` taken out of the data section (the last section here).
void drop_word(ByteVec& b, size_t at) {
  b.erase(b.begin() + static_cast<std::ptrdiff_t>(at), b.begin() + static_cast<std::ptrdiff_t>(at + 4));
  set_u32(b, 0x0c, static_cast<uint32_t>(b.size()));   // file_size
  set_u32(b, 0x24, u32_at(b, 0x24) - 4);                // data_size
}

// A file whose writer stored a value inside another one (B: the second
// float of the vec2 A) and then its own copy of an equal value (C: 0.0)
// where the binschema writer, placing B first at the end, had put B for a
// moment. The writer remembered B's block there, C shared it, no bytes were
// written where C's are, and decode(bytes, layout) refused the file
// ("file_size: ... writes 0x7c"), the run-time engine too (they share the
// writer). The block is remembered where it ends up (WriterBase::renote).
BOOST_AUTO_TEST_CASE(a_value_inside_another_then_its_own_equal_copy) {
  ByteVec b = f32_archive({{"A", [] {
                              Parameter::Value v;
                              v.emplace<Parameter::Value::Case::vec2>(Vec2{.value = {1.0f, 0.0f}});
                              return v;
                            }()},
                           {"B", f32v(0.0f)}, {"C", f32v(0.0f)}, {"D", f32v(3.0f)}});
  // Fresh: A at 0x68, B 0x70, C 0x74, D 0x78; file 0x7c.
  BOOST_REQUIRE_EQUAL(b.size(), 0x7cu);
  BOOST_REQUIRE_EQUAL(u32_at(b, 0x48 + 4), 0x03000008u);  // vec2, (0x68 - 0x48) / 4
  point_back(b, 1, 1);  // B -> 0x6c, inside A
  point_back(b, 2, 1);  // C -> 0x70
  point_back(b, 3, 1);  // D -> 0x74
  drop_word(b, 0x74);
  binschema::Layout lay;
  File m;
  BOOST_REQUIRE_NO_THROW(m = decode(b, lay));
  BOOST_TEST(first_difference(encode(m, lay), b) == "same");
  BOOST_TEST(lay.at_text() == "54:6c", lay.at_text());  // B's place is the file's choice; C and D are where the writer puts them
  BOOST_TEST(lay.fill.empty());
}

// Model equality compares floats by their bits (binschema::same_bits), and
// so does the writer's sharing of a block among the pointers of equal
// values: B and C of the file share one 0.0; C edited to -0.0 gets a block
// of its own. With float ==, C shared B's 0.0 and the edit was lost.
BOOST_AUTO_TEST_CASE(minus_zero_is_not_shared_with_zero) {
  BOOST_TEST(!(F32{.value = -0.0f} == F32{.value = 0.0f}));
  const float nan = std::numeric_limits<float>::quiet_NaN();
  BOOST_TEST((F32{.value = nan} == F32{.value = nan}));
  BOOST_TEST(!(Vec2{.value = {1.0f, -0.0f}} == Vec2{.value = {1.0f, 0.0f}}));
  BOOST_TEST(!(f32v(-0.0f) == f32v(0.0f)));  // the union's ==
  ByteVec b = f32_archive({{"B", f32v(0.0f)}, {"C", f32v(0.0f)}});
  // Fresh: B at 0x58, C at 0x5c; C pointed at B's.
  BOOST_REQUIRE_EQUAL(b.size(), 0x60u);
  point_back(b, 1, 1);
  drop_word(b, 0x5c);
  binschema::Layout lay;
  File m = decode(b, lay);
  BOOST_TEST(first_difference(encode(m, lay), b) == "same");
  auto& c = m.root.objects.at(0).params.at(1).value.get<Parameter::Value::Case::f32>();
  c.value = -0.0f;
  const File back = decode(encode(m, lay));
  const float got = back.root.objects.at(0).params.at(1).value.get<Parameter::Value::Case::f32>().value;
  BOOST_TEST(std::signbit(got), "C reads back as " << got);
  BOOST_TEST(!std::signbit(back.root.objects.at(0).params.at(0).value.get<Parameter::Value::Case::f32>().value));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(crc32_names)

// zlib's CRC-32 and the names in the text: a name list shows the name, and a
// name in the text is hashed.
BOOST_AUTO_TEST_CASE(crc32_and_names) {
  BOOST_TEST(binschema::crc32("") == 0u);
  BOOST_TEST(binschema::crc32("123456789") == 0xcbf43926u);  // the check value of CRC-32
  BOOST_TEST(binschema::crc32("param_root") == 0xa4f6cb6cu);
  const ByteVec orig = samples::read(samples::dir("aamp") / "Horse_Link_Appear_Epona.bas");
  binschema::text::set_known_names({"param_root"});
  const std::string text = to_text(decode(orig), binschema::TextKind::Yaml);
  binschema::text::set_known_names({});
  BOOST_TEST(text.find("name: param_root") != std::string::npos);
  BOOST_TEST(first_difference(encode(from_text(text)), encode(decode(orig))) == "same");
}

// Names with no list given: the file's own strings prove names (a string
// whose CRC32 is a name hash of the same file), then the schema's default
// list (schemas/aamp.names.txt: param_root, and the names the samples use);
// a hash no one names stays hex; every form reads
// back to the same hashes. --numbers shows them all as numbers.
BOOST_AUTO_TEST_CASE(names_the_file_proves_and_the_default_list) {
  File m;
  m.io_type = "xml";
  m.root.name = binschema::crc32("param_root");
  ParameterObject o{.params = {}, .name = binschema::crc32("ZzProvenObject")};
  Parameter::Value key;
  key.emplace<Parameter::Value::Case::string64>(String{.value = "ZzProvenObject"});
  o.params.push_back(edge_cases::param("TypeIndex", std::move(key)));  // TypeIndex: in the default list
  Parameter::Value n;
  n.emplace<Parameter::Value::Case::int_>(Int{.value = 1});
  o.params.push_back(Parameter{.value = n, .name = 0x12345678u});  // named by nothing
  m.root.objects.push_back(o);
  const std::string text = to_text(m, binschema::TextKind::Yaml);
  BOOST_TEST(text.find("  name: param_root\n") != std::string::npos, text);
  BOOST_TEST(text.find("\n    ZzProvenObject:\n") != std::string::npos, text);  // proven by the string value
  BOOST_TEST(text.find("\n      TypeIndex: ") != std::string::npos, text);        // the default list
  BOOST_TEST(text.find("\n      0x12345678: 1\n") != std::string::npos, text);   // no name: hex
  BOOST_TEST((from_text(text) == m));
  BOOST_TEST((from_text(to_text(m, binschema::TextKind::Json)) == m));
  // Without the string, the object's name is not proven (and in no list).
  File bare = m;
  bare.root.objects[0].params[0].value.get<Parameter::Value::Case::string64>().value = "Other";
  BOOST_TEST(to_text(bare, binschema::TextKind::Yaml).find("\n    " + name_hex("ZzProvenObject") + ":\n") != std::string::npos);
  binschema::text::set_numbers_only(true);
  const std::string numbers = to_text(m, binschema::TextKind::Yaml);
  binschema::text::set_numbers_only(false);
  BOOST_TEST(numbers.find("name: param_root") == std::string::npos);
  BOOST_TEST(numbers.find("name: 0xa4f6cb6c") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
