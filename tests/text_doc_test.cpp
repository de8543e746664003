// text::load (binschema/text_doc.h): the two parsers give the same document.
//
// The fast JSON parser must give, for every text it takes, the very nodes
// (kinds, scalar text, line:col and byte offset) that yaml-cpp gives for it;
// and the YAML path must give what yaml-cpp's node tree (YAML::Load, which
// text::In read before) holds. Checked on every example, every sample in
// ../shared/samples (as JSON), and random documents; then the texts the JSON
// parser hands over to yaml-cpp, the limits, and memory.
#define BOOST_TEST_MODULE text_doc_test
#include <boost/test/unit_test.hpp>

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

#include "binschema/error.h"
#include "binschema/format.h"
#include "binschema/text.h"
#include "binschema/text_doc.h"
#include "samples.h"

namespace fs = std::filesystem;
namespace text = binschema::text;

namespace {

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The first difference between a document and yaml-cpp's node tree ("" if none).
std::string diff(text::Node a, const YAML::Node& b, const std::string& path = "$") {
  const text::NodeKind bk = b.IsNull() ? text::NodeKind::Null
                            : b.IsScalar() ? text::NodeKind::Scalar
                            : b.IsSequence() ? text::NodeKind::Seq
                                             : text::NodeKind::Map;
  if (a.kind() != bk) return path + ": kind " + std::to_string(int(a.kind())) + " vs " + std::to_string(int(bk));
  const text::Mark ma = a.mark();
  const YAML::Mark mb = b.Mark();
  if (ma.known == mb.is_null() ||
      (ma.known && (ma.line != uint32_t(mb.line + 1) || ma.col != uint32_t(mb.column + 1) || ma.pos != uint64_t(mb.pos))))
    return path + ": mark differs";
  if (a.is_scalar() && a.scalar() != b.Scalar()) return path + ": '" + std::string(a.scalar()) + "' vs '" + b.Scalar() + "'";
  if (a.size() != (a.is_scalar() || a.is_null() ? 0 : b.size())) return path + ": size differs";
  if (a.is_seq()) {
    size_t k = 0;
    for (const text::Node e : a.children()) {
      const std::string d = diff(e, b[k], path + "/" + std::to_string(k));
      if (!d.empty()) return d;
      ++k;
    }
  } else if (a.is_map()) {
    auto ib = b.begin();
    size_t k = 0;
    bool value = false;
    for (const text::Node e : a.children()) {
      const std::string d = diff(e, value ? ib->second : ib->first, path + "/" + std::to_string(k) + (value ? "v" : "k"));
      if (!d.empty()) return d;
      if (value) ++ib, ++k;
      value = !value;
    }
  }
  return "";
}

// JSON text: the fast parser takes it and agrees with yaml-cpp.
void check_json(const std::string& json, const std::string& what) {
  text::Doc fast;
  BOOST_TEST_REQUIRE(text::load_json(json, fast), what << ": the JSON parser did not take it");
  const text::Doc slow = text::load_yaml(json);
  BOOST_TEST(text::first_difference(fast.root(), slow.root()) == "", what);
  BOOST_TEST(diff(fast.root(), YAML::Load(json)) == "", what);
}

// Any text: the YAML path agrees with yaml-cpp's tree, and so does the
// block YAML parser when it takes the text. Returns whether it took it.
bool check_yaml(const std::string& yaml, const std::string& what) {
  const text::Doc slow = text::load_yaml(yaml);
  BOOST_TEST(diff(slow.root(), YAML::Load(yaml)) == "", what);
  text::Doc fast;
  if (!text::load_block_yaml(yaml, fast)) return false;
  BOOST_TEST(text::first_difference(fast.root(), slow.root()) == "", what);
  return true;
}

const binschema::Format& format_of(const std::string& yaml) {
  const std::string name(text::load(yaml).root().get("format").scalar());
  const binschema::Format* f = binschema::find_format(name);
  BOOST_TEST_REQUIRE(f, "no format " << name);
  return *f;
}

// A random string: ASCII, escapes, multi-byte UTF-8.
std::string random_string(std::mt19937& rng) {
  static const char* pieces[] = {"a", "Z", " ", "_", "\\\"", "\\\\", "\\n", "\\t", "\\r", "\\u0001", "\\u00e9", "\\u4e2d",
                                 "\xc3\xa9", "\xe4\xb8\xad", "\xf0\x9f\x98\x80", ":", ",", "#", "{", "]", "'", "-", "0", "~"};
  std::string s;
  const int n = static_cast<int>(rng() % 8);
  for (int i = 0; i < n; ++i) s += pieces[rng() % std::size(pieces)];
  return s;
}

std::string random_value(std::mt19937& rng, int depth, bool pretty, const char* nl, int indent);

std::string random_number(std::mt19937& rng) {
  static const char* nums[] = {"0", "-0", "1", "-17", "4294967295", "0.5", "-1.25e-3", "6E+20", "1e5", "123456789012345678901"};
  return nums[rng() % std::size(nums)];
}

std::string random_value(std::mt19937& rng, int depth, bool pretty, const char* nl, int indent) {
  const unsigned pick = depth > 4 ? rng() % 5 : rng() % 7;
  const std::string pad = pretty ? std::string(nl) + std::string(indent + 2, ' ') : "";
  const std::string close_pad = pretty ? std::string(nl) + std::string(indent, ' ') : "";
  switch (pick) {
    case 0: return "\"" + random_string(rng) + "\"";
    case 1: return random_number(rng);
    case 2: return "null";
    case 3: return rng() % 2 ? "true" : "false";
    case 4: return "\"" + random_string(rng) + "\"";
    case 5: {
      const int n = static_cast<int>(rng() % 4);
      std::string s = "[";
      for (int i = 0; i < n; ++i) s += (i ? "," : "") + pad + random_value(rng, depth + 1, pretty, nl, indent + 2);
      return s + (n ? close_pad : "") + "]";
    }
    default: {
      const int n = static_cast<int>(rng() % 4);
      std::string s = "{";
      for (int i = 0; i < n; ++i)
        s += (i ? "," : "") + pad + "\"k" + random_string(rng) + "\"" + (pretty ? ": " : ":") +
             random_value(rng, depth + 1, pretty, nl, indent + 2);
      return s + (n ? close_pad : "") + "}";
    }
  }
}

}  // namespace

BOOST_AUTO_TEST_CASE(examples_read_the_same_through_both_parsers) {
  int n = 0;
  for (const auto& e : fs::directory_iterator(fs::path(BINSCHEMA_SOURCE_DIR) / "examples")) {
    if (e.path().extension() != ".yaml") continue;
    const std::string yaml = read_file(e.path());
    const std::string what = e.path().filename().string();
    // Written by hand (comments, blank lines, Npc::Mode, テスト): the block YAML parser takes it.
    BOOST_TEST(check_yaml(yaml, what), what << " as written by hand: the block YAML parser did not take it");
    // Its JSON, as the CLI writes it (decode of the encoded example).
    const binschema::Format& f = format_of(yaml);
    const std::vector<uint8_t> bytes = f.encode(text::load(yaml));
    check_json(f.decode(bytes, binschema::TextKind::Json), what + " as JSON");
    BOOST_TEST(check_yaml(f.decode(bytes, binschema::TextKind::Yaml), what + " as YAML again"),
               what << " as written: the block YAML parser did not take it");
    ++n;
  }
  BOOST_TEST(n >= 7);
}

BOOST_AUTO_TEST_CASE(samples_read_the_same_through_both_parsers) {
  int n = 0;
  for (const char* sub : {"bfevfl", "sarc", "byml", "aamp"}) {
    for (const fs::path& p : samples::files(sub)) {
      const std::vector<uint8_t> bytes = samples::read(p);
      const binschema::Format* f = binschema::detect_format(bytes, p.filename().string());
      if (!f) continue;
      std::string json, yaml;
      try {
        json = f->decode(bytes, binschema::TextKind::Json);
        yaml = f->decode(bytes, binschema::TextKind::Yaml);
      } catch (const binschema::DecodeError&) {
        continue;  // compressed or not this format: other tests cover them
      }
      check_json(json, p.filename().string());
      BOOST_TEST(check_yaml(yaml, p.filename().string()), p << ": the block YAML parser did not take it");
      ++n;
    }
  }
  BOOST_TEST(n >= 8, n << " sample files compared");
}

BOOST_AUTO_TEST_CASE(random_json_reads_the_same_through_both_parsers) {
  std::mt19937 rng(20261124);
  for (int i = 0; i < 3000; ++i) {
    const bool pretty = i % 3 != 0;
    const char* nl = i % 5 == 0 ? "\r\n" : "\n";
    std::string doc = rng() % 4 ? "{" : "[";
    const bool map = doc == "{";
    const int n = 1 + static_cast<int>(rng() % 4);
    for (int k = 0; k < n; ++k) {
      doc += std::string(k ? "," : "") + (pretty ? std::string(nl) + "  " : "");
      if (map) doc += "\"f" + std::to_string(k) + "\"" + (pretty ? ": " : ":");
      doc += random_value(rng, 0, pretty, nl, 2);
    }
    doc += std::string(pretty ? nl : "") + (map ? "}" : "]") + (i % 7 == 0 ? std::string(nl) : "");
    if (i % 11 == 0) doc = "  \t" + doc;
    check_json(doc, doc);
  }
}

namespace {

// A random document written by text::YamlSink: block and flow maps and
// lists, nulls, booleans, numbers and strings of every kind.
void random_events(text::YamlSink& sink, std::mt19937& rng, int depth, bool in_flow) {
  static const char* keys[] = {"a", "name", "x_1", "Value", "null", "yes", "k9"};
  static const char* key_numbers[] = {"0", "12", "-3", "0x00001234", "true"};
  static const char* tags[] = {"!u", "!!map", "!vec3", "!!str", "!ul"};
  static const char* numbers[] = {"0", "-1", "42", "0x00ff", "1.5", "-0.0", "1e-07", ".nan", "-.inf", ".nan:0x7fa00001"};
  static const char* pieces[] = {"a", "Z", " ", "_", ".", "-", "/", "+", "~", "0", ":", "#", ",", "[", "}", "'", "\"", "\\",
                                 "\n", "\t", "\r", "\x01", "\x7f", "\xc2\x80", "\xc3\xa9", "\xe4\xb8\xad", "\xef\xbb\xbf",
                                 "\xef\xb7\x90", "\xf0\x9f\x98\x80", "null", "true", "no", "- ", "? ", "&", "*", "!", "%", "@", "`"};
  const unsigned pick = depth > 5 ? rng() % 4 : rng() % 6;
  switch (pick) {
    case 0: sink.null(); return;
    case 1: sink.boolean(rng() % 2); return;
    case 2: sink.number(numbers[rng() % std::size(numbers)], false); return;
    case 3: {
      std::string str;
      const int n = static_cast<int>(rng() % 6);
      for (int i = 0; i < n; ++i) str += pieces[rng() % std::size(pieces)];
      sink.string(str);
      return;
    }
    default: {
      const bool map = pick == 4;
      const bool flow = in_flow || rng() % 4 == 0;
      const int n = static_cast<int>(rng() % 4);
      if (map) sink.begin_map(flow);
      else sink.begin_seq(flow);
      for (int i = 0; i < n; ++i) {
        if (map) {
          // A field's name, or a map entry's key (map:): a number, or a
          // string the sink writes plain or quoted.
          switch (rng() % 3) {
            case 0: sink.key(keys[(i + rng()) % std::size(keys)]); break;
            case 1: sink.key_text(key_numbers[rng() % std::size(key_numbers)], true); break;
            default: {
              std::string k;
              const int len = 1 + static_cast<int>(rng() % 3);
              for (int j = 0; j < len; ++j) k += pieces[rng() % std::size(pieces)];
              sink.key_text(k, false);
            }
          }
        }
        // A bare union's tag before the value.
        if (rng() % 5 == 0) sink.tag(tags[rng() % std::size(tags)]);
        random_events(sink, rng, depth + 1, flow);
      }
      if (map) sink.end_map();
      else sink.end_seq();
    }
  }
}

// A random document as text::YamlSink writes it: a map of one to four keys.
std::string random_sink_yaml(std::mt19937& rng) {
  text::YamlSink sink;
  sink.begin_map();
  const int n = 1 + static_cast<int>(rng() % 4);
  for (int k = 0; k < n; ++k) {
    sink.key(std::string("f").append(std::to_string(k)).c_str());
    random_events(sink, rng, 0, false);
  }
  sink.end_map();
  return sink.result();
}

}  // namespace

BOOST_AUTO_TEST_CASE(random_yaml_from_the_sink_reads_the_same_through_both_parsers) {
  std::mt19937 rng(1124);
  int taken = 0;
  const int count = 3000;
  for (int i = 0; i < count; ++i) {
    const std::string yaml = random_sink_yaml(rng);
    taken += check_yaml(yaml, yaml);
  }
  // Documents with a key "null" (yaml-cpp reads a null key) or a flow map
  // inside a list item are left to yaml-cpp; most are not.
  BOOST_TEST(taken > count / 2, taken << " of " << count << " taken by the block YAML parser");
}

namespace {

// The sink's YAML as a person leaves it after editing: comment lines at any
// indentation, blank lines, comments and spaces at the ends of lines.
std::string hand_edited(const std::string& yaml, std::mt19937& rng) {
  static const char* comments[] = {"#", "# note", "#: - [x]", "# \"é\" ## 中", "#\ttab"};
  std::string out;
  size_t start = 0;
  while (start < yaml.size()) {
    const size_t nl = yaml.find('\n', start);
    const std::string line = yaml.substr(start, nl - start);
    start = nl == std::string::npos ? yaml.size() : nl + 1;
    switch (rng() % 8) {
      case 0: out += std::string(rng() % 7, ' ') + comments[rng() % std::size(comments)] + "\n"; break;
      case 1: out += std::string(rng() % 3, ' ') + "\n"; break;
      default: break;
    }
    out += line;
    switch (rng() % 6) {
      case 0: out += std::string(1 + rng() % 2, ' ') + comments[rng() % std::size(comments)]; break;
      case 1: out += std::string(1 + rng() % 2, ' '); break;
      default: break;
    }
    out += '\n';
  }
  return out;
}

}  // namespace

BOOST_AUTO_TEST_CASE(hand_edited_yaml_reads_the_same_through_both_parsers) {
  std::mt19937 rng(2411);
  int taken = 0;
  int plain_taken = 0;
  const int count = 3000;
  for (int i = 0; i < count; ++i) {
    const std::string yaml = random_sink_yaml(rng);
    text::Doc plain;
    const bool plain_ok = text::load_block_yaml(yaml, plain);
    plain_taken += plain_ok;
    const std::string edited = hand_edited(yaml, rng);
    const bool ok = check_yaml(edited, edited);
    taken += ok;
    // Comments and blank lines never send a text the parser took to yaml-cpp.
    BOOST_TEST((ok || !plain_ok), edited);
  }
  BOOST_TEST(taken == plain_taken, taken << " of " << plain_taken << " taken after editing");
  BOOST_TEST(taken > count / 2);
}

// Every example as decode writes it, then edited by hand, reads as yaml-cpp
// reads it, in the fast path.
BOOST_AUTO_TEST_CASE(hand_edited_examples_take_the_fast_path) {
  std::mt19937 rng(7);
  int n = 0;
  for (const auto& e : fs::directory_iterator(fs::path(BINSCHEMA_SOURCE_DIR) / "examples")) {
    if (e.path().extension() != ".yaml") continue;
    const std::string yaml = read_file(e.path());
    const binschema::Format& f = format_of(yaml);
    const std::string written = f.decode(f.encode(text::load(yaml)), binschema::TextKind::Yaml);
    for (int round = 0; round < 20; ++round) {
      const std::string edited = hand_edited(written, rng);
      BOOST_TEST(check_yaml(edited, e.path().filename().string()), e.path().filename() << ": not taken after editing");
    }
    ++n;
  }
  BOOST_TEST(n >= 7);
}

// Plain values as people type them (colons, spaces, comments, characters
// past ASCII, indicators), raw: whenever the block YAML parser takes one it
// reads what yaml-cpp reads, and it takes none that yaml-cpp refuses.
BOOST_AUTO_TEST_CASE(typed_plain_values_read_the_same_through_both_parsers) {
  static const char* pieces[] = {"a", "Z", "0", "_", ".", "-", "/", "~", "+", ":", "::", " ", "  ", "#", " #",
                                 "\xc3\xa9", "\xe3\x83\x86\xe3\x82\xb9\xe3\x83\x88", "\xc2\xa0", "\xc2\x85",
                                 "\xe2\x80\xa8", "\xef\xbb\xbf", "\xef\xb7\x90", "\xef\xbf\xbe", "\xf0\x9f\x98\x80",
                                 "\xff", "\xe3\x83", "'", "\"", "[", "{", ",", "?", "&", "*", "!", "|", ">", "%", "@", "`", "\t"};
  std::mt19937 rng(99);
  int taken = 0;
  const int count = 6000;
  for (int i = 0; i < count; ++i) {
    std::string v;
    const int n = 1 + static_cast<int>(rng() % 5);
    for (int k = 0; k < n; ++k) v += pieces[rng() % std::size(pieces)];
    const std::string yaml = rng() % 2 ? "k: " + v + "\n" : "k:\n  - " + v + "\n  - x\n";
    text::Doc fast;
    const bool took = text::load_block_yaml(yaml, fast);
    text::Doc slow;
    try {
      slow = text::load_yaml(yaml);
    } catch (const std::exception&) {
      BOOST_TEST(!took, yaml << ": taken, but yaml-cpp refuses it");
      continue;
    }
    if (!took) continue;
    ++taken;
    BOOST_TEST(text::first_difference(fast.root(), slow.root()) == "", yaml);
  }
  BOOST_TEST_MESSAGE(taken << " of " << count << " typed values taken by the block YAML parser");
  BOOST_TEST(taken > count / 20);
}

BOOST_AUTO_TEST_CASE(texts_the_block_yaml_parser_leaves_to_yaml_cpp) {
  for (const std::string& t : std::vector<std::string>{
           "a: 'single'\n", "a: &x 1\nb: *x\n", "a: |\n  block\n",
           "a: !obj\n  b: 1\n", "a: !<tag:x> 1\n", "a: ! x\n", "a: !u\n", "a: !u  1\n",  // tags the parser leaves
           "a:\n- 1\n",             // a list beside its key
           "a:\n",                   // an empty value
           "a:\t1\n", "a: 1\r\nb: 2\r\n", "a: \"x\ny\"\n", "a: \"\\ud800\"\n", "a: b: c\n",
           "a: 1\n  b: 2\n",         // deeper with no key before
           "a:\n   b: 1\n  c: 2\n",  // indentation that goes back to no level
           "- 1\n",                  // not a map
           "a: \"\xff\"\n",
           "e:  t-s~ar",              // two spaces before a value (fuzz_text_baev)
           "a: [1,2]\n", "a: {b:1}\n", "null: 1\n", "--- \na: 1\n",
           "a: 1 #\xff\n", "a: 1 # x\r\n", "a: 1 # \x01\n",  // comments that are not UTF-8 text
           "a: \"x\"# c\n", "a: x#y z\n", "a:# c\n  b: 1\n",   // '#' with no space before it
           "a: 1\n\t# c\n", "# only a comment\n", "\n\n",
           "a: x:\n", "a: x::\n", "a: b: c\n", "a: x: y\n", "a: :\n", "a: x :y\n",
           // Flow collections the sink does not write: yaml-cpp's business.
           "a: [x: y]\n", "a: [x : y]\n", "a: [- x]\n", "a: [-]\n", "a: [:x]\n", "a: [x #c]\n", "a: [x ]\n",
           "a: {x y: 1}\n", "a: {~: 1}\n", "a: {\"k\":1}\n", "a: {k: }\n", "a: {k: x: y}\n", "a: [x,y]\n",
           "a: [1.0,  0.0]\n", "a: [ 1]\n", "a: {k:  1}\n", "a: [!u  1]\n",  // two spaces (fuzz_text_al)
           "a: [x, ]\n", "a: {? k: 1}\n", "a: {!u k: 1}\n", "a: [x\n", "a: [x]]\n", "a: {k: [1}\n",
           "a: x\xe2\x80\xa8y\n", "a: x\xc2\x85\n", "a: \xef\xbb\xbfx\n", "a: x\xef\xbf\xbe\n", "a: x\xff\n",
       }) {
    text::Doc d;
    BOOST_TEST(!text::load_block_yaml(t, d), t);
  }
  // And texts it takes: the same as yaml-cpp's.
  for (const std::string& t : std::vector<std::string>{
           "a: 1\n", "a: 1", "a: 1\n\n\n", "a: ~\nb: null\nc: Null\n", "a:\n  - 1\n  - x y\n  -\n    - 2\n",
           "a:\n  - b: 1\n    c: [1, 2]\n  - {}\n  - []\n", "s: \"\\x80\\u00e9\\U0001f600\\b\\f\\\"\"\n",
           "f: {bytes: 00ff, more: [a, b]}\n", "n: -1.5e-3\nm: .nan\nk: -.inf\n",
           // What people add by hand: comments, blank lines, spaces at the ends of lines.
           "a: 1 # comment\n", "a: 1\n\nb: 2\n", "a: x \n", "# head\n\na: 1\n", "a: # c\n  b: 1\n",
           "a:\n  # c\n  - 1\n# c\n     # c\n  - 2   \n", "a: \"q\" # c \xc3\xa9\n", "a: [1, 2]   # c\n",
           "a: 1\n   \n#\nb: 2\n# end", "a:\n  - # c\n    b: 1\n  - x # c\n",
           // Colons inside plain values, as people write them.
           "a: Npc::Mode\n", "a: ::F.99\n", "a: x:y:z # c\n", "a: http://x/y\n", "a:\n  - :x\n  - y::z\n",
           "a: \xe3\x83\x86\xe3\x82\xb9\xe3\x83\x88\nb: caf\xc3\xa9 au lait # \xc3\xa9\n", "a: x\xc2\xa0\n",
           // Tags before a value (bare unions), and quoted scalars: kept as yaml-cpp gives them.
           "a: !!str 1\n", "a: !u 5\n", "a: !vec3 [1.0, 2.0, 3.0]\n", "a:\n  - !str32 x y\n  - [!u 1, 2, !!float .inf]\n",
           "a: !!binary 00ff\nb: !u \"q\"\nc: \"5\"\nd: {k: !l -1}\n", "a: !buffer_int []\n",
           // Flow maps and lists as the sink writes them: keys quoted or numbers, tags, inner spaces and colons.
           "Translate: {X: -4931.034, \"Y\": 0.0, Z: 861.76}\n", "a: !hash {0x00001234: !u 7, -3: x y, 12: [1, {b: ~}]}\n",
           "a: {\"\": 1, \"!ul\": 5, \"a b\": \"c\\n\", true: false, Name.1: Npc::Mode}\n", "a: !!map {\"!u\": 5}\n",
           "a: [x y, .nan:0x7fa00001, -.inf, !u 1, !!null ~, \xc3\xa9t\xc3\xa9 x, a::b, x:y]\n", "a:\n  - !vec3 [1, 2, 3]\n  - {k: v}\n",
       }) {
    BOOST_TEST(check_yaml(t, t), t << ": not taken");
  }
}

BOOST_AUTO_TEST_CASE(texts_the_json_parser_leaves_to_yaml_cpp) {
  const std::string deep = std::string(600, '[') + std::string(600, ']');
  for (const std::string& t : std::vector<std::string>{
           std::string("{\"a\": \"\\ud800\"}"),           // a lone surrogate
           std::string("{\"a\": \"\\ud83d\\ude00\"}"),    // a pair: yaml-cpp joins it or not, its call
           std::string("{\"a\": \"x\\/y\"}"),             // \/
           std::string("{\"a\": \"x\\by\"}"),
           std::string("{\"a\": \"tab\there\"}"),         // a raw control character
           std::string("{\"a\": \"\xff\"}"),              // not UTF-8
           std::string("\xef\xbb\xbf{\"a\": 1}"),         // a byte order mark
           std::string("{\"a\": 1} x"),                  // trailing text
           std::string("{\"a\": [\n  {},\n\r  {\"b\": 1}]}"),  // a lone CR (fuzz_text_baev found yaml-cpp's marks differ)
           std::string("{a: 1}"),                        // YAML flow, not JSON
           std::string("{\"a\": 01}"),                   // not a JSON number
           std::string("{\"a\": 0x10}"),
           std::string("{\"a\": tru}"),
           std::string("{\"a\": 1,}"),
           std::string("{\"a\" 1}"),
           std::string("format: baev\n"),                // YAML
           std::string("\"just a string\""),
           std::string(""),
           deep,
       }) {
    text::Doc d;
    BOOST_TEST(!text::load_json(t, d), t);
    // load() then gives what yaml-cpp gives, or yaml-cpp's error.
    std::string tree_error, doc_error;
    YAML::Node tree;
    try {
      tree = YAML::Load(t);
    } catch (const std::exception& e) {
      tree_error = e.what();
    }
    try {
      const text::Doc doc = text::load(t);
      if (tree_error.empty()) BOOST_TEST(diff(doc.root(), tree) == "", t);
    } catch (const std::exception& e) {
      doc_error = e.what();
    }
    if (t == deep) {
      BOOST_TEST(doc_error.find("nesting too deep") != std::string::npos, doc_error);
    } else {
      BOOST_TEST(doc_error == tree_error, t);
    }
  }
}

BOOST_AUTO_TEST_CASE(an_empty_document_is_a_null_without_a_mark) {
  for (const char* t : {"", "\n", "# only a comment\n"}) {
    const text::Doc d = text::load(t);
    BOOST_TEST(d.root().is_null());
    BOOST_TEST(!d.root().mark().known);
  }
}

BOOST_AUTO_TEST_CASE(aliases_read_as_their_anchor_and_may_not_contain_themselves) {
  const std::string yaml = "a: &x [1, {b: 2}]\nc: *x\nd: *x\n";
  check_yaml(yaml, yaml);
  const text::Doc d = text::load(yaml);
  BOOST_TEST(text::first_difference(d.root().get("c"), d.root().get("a")) == "");
  BOOST_TEST(d.root().get("d").size() == 2u);
  // A list holding an alias of itself never ends: refused, not followed.
  for (const char* t : {"a: &x [1, *x]\n", "&r {k: *r}\n"}) {
    try {
      (void)text::load(t);
      BOOST_ERROR("accepted: " << t);
    } catch (const binschema::TextError& e) {
      BOOST_TEST(std::string(e.what()).find("inside the list or map it names") != std::string::npos, e.what());
    }
  }
}

BOOST_AUTO_TEST_CASE(a_json_document_costs_about_its_size_in_memory) {
  // BAEV's example as JSON, repeated in a list: the document (nodes, scalars,
  // line starts) stays under 2x the text; yaml-cpp's tree was 21x.
  std::string yaml = read_file(fs::path(BINSCHEMA_SOURCE_DIR) / "examples" / "baev-tomodachi.yaml");
  const binschema::Format& f = format_of(yaml);
  const std::string one = f.decode(f.encode(text::load(yaml)), binschema::TextKind::Json);
  std::string many = "[";
  for (int i = 0; i < 200; ++i) many += (i ? ",\n" : "\n") + one;
  many += "]\n";
  text::Doc d;
  BOOST_TEST_REQUIRE(text::load_json(many, d));
  BOOST_TEST(d.memory() < 2 * many.size(), d.memory() << " bytes for " << many.size() << " bytes of JSON");
  BOOST_TEST(d.root().size() == 200u);
}

// Tags and quotes (what a bare union's reader goes by), from each parser:
// "!!x" as yaml-cpp resolves it; a quoted scalar or a JSON string is quoted.
BOOST_AUTO_TEST_CASE(tags_and_quotes_are_kept) {
  const std::string t = "a: !u 5\nb: \"5\"\nc: 5\nd: !!binary 00ff\ne: !vec3 [1.0, 2.0, 3.0]\nf:\n  - !str32 x\n";
  for (const bool fast : {true, false}) {
    text::Doc d;
    if (fast) BOOST_TEST_REQUIRE(text::load_block_yaml(t, d));
    else d = text::load_yaml(t);
    const text::Node r = d.root();
    BOOST_TEST(r.get("a").tag() == "!u");
    BOOST_TEST(!r.get("a").quoted());
    BOOST_TEST(r.get("b").tag() == "");
    BOOST_TEST(r.get("b").quoted());
    BOOST_TEST(!r.get("c").quoted());
    BOOST_TEST(r.get("d").tag() == "tag:yaml.org,2002:binary");
    BOOST_TEST(r.get("e").tag() == "!vec3");
    BOOST_TEST(r.get("e").is_seq());
    BOOST_TEST((*r.get("e").children().begin()).tag() == "");
    BOOST_TEST((*r.get("f").children().begin()).tag() == "!str32");
    BOOST_TEST((*r.get("f").children().begin()).scalar() == "x");
  }
  text::Doc j;
  BOOST_TEST_REQUIRE(text::load_json(R"({"a": "5", "b": 5, "c": {"!u": 5}})", j));
  BOOST_TEST(j.root().get("a").quoted());
  BOOST_TEST(!j.root().get("b").quoted());
  BOOST_TEST(j.root().get("c").first_key().scalar() == "!u");
}

// Node::get_hinted (text::In's field lookup) gives what get gives, whatever
// the order the keys are asked in and whatever hint it starts from; a key
// that is not there is absent, and the hint then stays.
BOOST_AUTO_TEST_CASE(get_hinted_finds_what_get_finds) {
  std::mt19937 rng(29);
  for (int round = 0; round < 200; ++round) {
    const size_t n = rng() % 12;
    std::vector<std::string> keys;
    std::string json = "{";
    for (size_t i = 0; i < n; ++i) {
      keys.push_back("k" + std::to_string(i) + std::string(rng() % 3, 'x'));
      json += (i ? ", \"" : "\"") + keys.back() + "\": " + (rng() % 2 ? "[1, {\"k0\": 2}]" : std::to_string(i));
    }
    json += "}";
    text::Doc d;
    BOOST_TEST_REQUIRE(text::load_json(json, d));
    const text::Node m = d.root();
    uint32_t hint = 0;  // then what each call leaves
    std::vector<std::string> asked = keys;
    asked.push_back("k");
    asked.push_back("missing");
    if (!keys.empty()) asked.push_back(keys[0] + "x");  // a longer key is another key
    std::shuffle(asked.begin(), asked.end(), rng);
    for (const std::string& k : asked) {
      const uint32_t before = hint;
      const text::Node h = m.get_hinted(k.c_str(), hint);
      const text::Node g = m.get(k);
      BOOST_TEST_REQUIRE(bool(h) == bool(g), json << " " << k);
      if (!g) {
        BOOST_TEST(hint == before);
        continue;
      }
      BOOST_TEST(h.offset() == g.offset(), json << " " << k);
      BOOST_TEST(text::first_difference(h, g) == "");
    }
  }
  // Keys asked in the map's order are found at the first try: the hint after
  // each is the next entry, and after the last the end of the map.
  text::Doc d;
  BOOST_TEST_REQUIRE(text::load_json(R"({"a": 1, "b": [2, 3], "c": {"d": 4}})", d));
  uint32_t hint = 0;
  BOOST_TEST(d.root().get_hinted("a", hint).scalar() == "1");
  BOOST_TEST(hint == 3u);  // key b (the root is 0, a 1, its value 2)
  BOOST_TEST(d.root().get_hinted("b", hint).size() == 2u);
  BOOST_TEST(hint == 7u);
  BOOST_TEST(d.root().get_hinted("c", hint).is_map());
  BOOST_TEST(hint == 11u);
  BOOST_TEST(!d.root().get_hinted("d", hint));  // not a key of the root
  BOOST_TEST(!text::Node(&d, 1).get_hinted("a", hint));  // not a map
  // A hint no earlier call left (a value's node, past the map) ends: on a
  // key or outside the map it finds what get() finds; elsewhere a node of
  // the map or none.
  for (uint32_t start = 0; start < 14; ++start) {
    for (const char* key : {"a", "b", "c", "missing"}) {
      uint32_t h = start;
      const text::Node n = d.root().get_hinted(key, h);
      const bool aligned = start == 0 || start == 1 || start == 3 || start == 7 || start >= 11;
      if (aligned) {
        BOOST_TEST(bool(n) == bool(d.root().get(key)), start << " " << key);
        if (n) BOOST_TEST(n.offset() == d.root().get(key).offset(), start << " " << key);
      } else if (n) {
        BOOST_TEST(n.offset() >= d.root().offset(), start << " " << key);
      }
    }
  }
}

// KeyIndex (repeated map keys, reference names): the first string with a
// text, for as many strings as a table grows to.
BOOST_AUTO_TEST_CASE(key_index_gives_the_first_string_with_a_text) {
  std::vector<std::string> s;
  for (int i = 0; i < 1000; ++i) s.push_back("name" + std::to_string(i % 700));
  auto text = [&](uint32_t j) -> std::string_view { return s[j]; };
  text::KeyIndex x;
  x.reset(s.size());
  for (uint32_t i = 0; i < s.size(); ++i) {
    const uint32_t first = x.insert(s[i], i, text);
    BOOST_TEST_REQUIRE(first == (i < 700 ? text::KeyIndex::kNone : i - 700), i);
  }
  for (uint32_t i = 0; i < 700; ++i) BOOST_TEST_REQUIRE(x.find(s[i], text) == i);
  BOOST_TEST(x.find("name700", text) == text::KeyIndex::kNone);
  BOOST_TEST(x.find("", text) == text::KeyIndex::kNone);
  text::KeyIndex empty;
  BOOST_TEST(empty.find("name1", text) == text::KeyIndex::kNone);
}
