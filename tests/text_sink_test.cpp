// The YAML text that binschema::text::YamlSink writes (straight into a
// string) must be byte for byte what yaml-cpp's emitter writes for the same
// events: that emitter made the YAML before, and the text form must not
// change. The reference here is the sink as it was (YAML::Emitter with
// SetIndent(2)); both are fed the same events: every model of examples/ and
// of the samples (when present), random event sequences, and one string of
// every Unicode scalar value.
#define BOOST_TEST_MODULE text_sink
#include <boost/test/unit_test.hpp>
#include <yaml-cpp/yaml.h>
#include <utility>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "aamp_text.h"
#include "al_text.h"
#include "asb_text.h"
#include "baev_text.h"
#include "bfevfl_text.h"
#include "byml_text.h"
#include "binschema/text.h"
#include "evnt_text.h"
#include "sarc_text.h"

namespace fs = std::filesystem;
namespace text = binschema::text;

namespace {

// The YAML sink before it wrote text itself: yaml-cpp's emitter. An
// EventSink that takes tags, so that a model's document reaches it through
// the format's own to_document (TextKind::Events).
class EmitterSink final : public text::EventSink {
 public:
  EmitterSink() { e_.SetIndent(2); }
  void begin_map(bool flow = false) override {
    if (flow || std::exchange(tagged_, false)) e_ << YAML::Flow;
    e_ << YAML::BeginMap;
  }
  // A tag ("!u", "!!str") before the next value; a tagged list or map is flow.
  bool tags() const override { return true; }
  void tag(const char* t) override {
    const std::string_view v(t);
    if (v.rfind("!!", 0) == 0) e_ << YAML::SecondaryTag(std::string(v.substr(2)));
    else e_ << YAML::LocalTag(std::string(v.substr(1)));
    tagged_ = true;
  }
  void end_map() override { e_ << YAML::EndMap; }
  void key(const char* k) override { e_ << YAML::Key << k << YAML::Value; }
  // A map entry's key (map:): the same choice as YamlSink, plain or double-quoted.
  void key_text(const std::string& k, bool number) override {
    text::YamlSink probe;
    probe.begin_map();
    probe.key_text(k, number);
    probe.null();
    probe.end_map();
    e_ << YAML::Key;
    if (probe.result().front() == '"') e_ << YAML::DoubleQuoted;
    e_ << k << YAML::Value;
  }
  void begin_seq(bool flow) override {
    if (flow || std::exchange(tagged_, false)) e_ << YAML::Flow;
    e_ << YAML::BeginSeq;
  }
  void end_seq() override { e_ << YAML::EndSeq; }
  void null() override {
    tagged_ = false;
    e_ << YAML::Null;
  }
  void boolean(bool b) override {
    tagged_ = false;
    e_ << (b ? "true" : "false");
  }
  void number(const std::string& s, bool) override {
    tagged_ = false;
    e_ << s;
  }
  void string(const std::string& s) override {
    tagged_ = false;
    // The same choice as YamlSink: plain when YamlSink writes it plain.
    text::YamlSink probe;
    probe.string(s);
    if (probe.result().front() == '"') e_ << YAML::DoubleQuoted;
    e_ << s;
  }
  std::string result() { return std::string(e_.c_str()) + "\n"; }

 private:
  YAML::Emitter e_;
  bool tagged_ = false;
};

// x's document as yaml-cpp's emitter writes it, through the format's own
// to_text (its compiled text code: nothing of the model instantiated here).
template <class Root>
std::string emitter_document(const Root& x) {
  EmitterSink sink;
  struct Set {
    explicit Set(text::EventSink* s) { text::event_sink() = s; }
    ~Set() { text::event_sink() = nullptr; }
  } set(&sink);
  to_text(x, binschema::TextKind::Events);
  return sink.result();
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

template <class Root>
void compare(const Root& x, const std::string& what) {
  const std::string ours = to_text(x, binschema::TextKind::Yaml);
  const std::string ref = emitter_document(x);
  BOOST_TEST_INFO(what);
  BOOST_TEST(ours.size() == ref.size());
  if (ours != ref) {
    size_t i = 0;
    while (i < ours.size() && i < ref.size() && ours[i] == ref[i]) ++i;
    BOOST_ERROR(what << ": first difference at byte " << i << ": ours \"" << ours.substr(i > 40 ? i - 40 : 0, 80)
                     << "\" emitter \"" << ref.substr(i > 40 ? i - 40 : 0, 80) << "\"");
  }
}

// One event of a random document, replayed into both sinks.
struct Ev {
  enum Kind { BeginMap, EndMap, Key, BeginSeq, EndSeq, Null, Bool, Number, String } kind;
  bool flow = false;
  std::string s = {};
};

template <class Sink>
std::string replay(const std::vector<Ev>& evs) {
  Sink sink;
  for (const Ev& e : evs) switch (e.kind) {
      case Ev::BeginMap: sink.begin_map(e.flow); break;
      case Ev::EndMap: sink.end_map(); break;
      case Ev::Key: sink.key(e.s.c_str()); break;
      case Ev::BeginSeq: sink.begin_seq(e.flow); break;
      case Ev::EndSeq: sink.end_seq(); break;
      case Ev::Null: sink.null(); break;
      case Ev::Bool: sink.boolean(e.s == "true"); break;
      case Ev::Number: sink.number(e.s, false); break;
      case Ev::String: sink.string(e.s); break;
    }
  return sink.result();
}

const std::vector<std::string> kStrings = {
    "", "plain", "Two words", "trailing ", " leading", "null", "Null", "true", "no", "y", "n", "yes", "off",
    "a: b", "a #c", "#x", "-", "- x", "-x", "[x]", "{x}", "x,y", "q\"uote", "back\\slash", "tab\there",
    "line\nbreak", "cr\r", "bell\x07", "\x1b[0m", "del\x7f", "caf\xc3\xa9", "nbsp\xc2\xa0", "nel\xc2\x85",
    "ls\xe2\x80\xa8", "bom\xef\xbb\xbf", "emoji\xf0\x9f\x98\x80", "0x1f", "12", "-3", "1.5", ".inf", "~", "@at",
    "`tick", "%pct", "&amp", "*star", "!bang", "|pipe", ">gt", "'single'", "path/to/file.bin", "Npc_Wait_Start",
    "a b c", "x\by", "form\ffeed", "v\vtab"};

// Flow collections hold scalars only, as in everything text::Out writes (a
// flow sequence is a list of numbers, a flow map is {bytes: HEX}): a flow
// collection nested in another is padded by yaml-cpp's emitter to its
// indentation column ("- [ {}, 1]"), which YamlSink does not copy.
void random_value(std::mt19937& rng, std::vector<Ev>& out, int depth, bool in_flow) {
  const int pick = std::uniform_int_distribution<int>(0, depth > 4 || in_flow ? 3 : 6)(rng);
  auto str = [&] { return kStrings[std::uniform_int_distribution<size_t>(0, kStrings.size() - 1)(rng)]; };
  switch (pick) {
    case 0: out.push_back({Ev::Null}); return;
    case 1: out.push_back({Ev::Bool, false, rng() % 2 ? "true" : "false"}); return;
    case 2: out.push_back({Ev::Number, false, std::to_string(static_cast<int>(rng() % 2000) - 1000)}); return;
    case 3: out.push_back({Ev::String, false, str()}); return;
    default: break;
  }
  const bool map = pick == 4 || (pick == 6 && rng() % 2);
  const bool flow = rng() % 4 == 0;
  const int n = std::uniform_int_distribution<int>(0, 3)(rng);
  out.push_back({map ? Ev::BeginMap : Ev::BeginSeq, flow});
  static const char* keys[] = {"a", "name", "value", "int", "bytes", "x_y"};
  for (int i = 0; i < n; ++i) {
    if (map) out.push_back({Ev::Key, false, keys[rng() % 6]});
    random_value(rng, out, depth + 1, flow);
  }
  out.push_back({map ? Ev::EndMap : Ev::EndSeq});
}

bool noncharacter(uint32_t cp) { return (cp >= 0xfdd0 && cp <= 0xfdef) || (cp & 0xfffe) == 0xfffe; }

std::string utf8(uint32_t cp) {
  std::string s;
  if (cp < 0x80) s += static_cast<char>(cp);
  else if (cp < 0x800) s += {static_cast<char>(0xc0 | cp >> 6), static_cast<char>(0x80 | (cp & 0x3f))};
  else if (cp < 0x10000)
    s += {static_cast<char>(0xe0 | cp >> 12), static_cast<char>(0x80 | (cp >> 6 & 0x3f)), static_cast<char>(0x80 | (cp & 0x3f))};
  else
    s += {static_cast<char>(0xf0 | cp >> 18), static_cast<char>(0x80 | (cp >> 12 & 0x3f)),
          static_cast<char>(0x80 | (cp >> 6 & 0x3f)), static_cast<char>(0x80 | (cp & 0x3f))};
  return s;
}

}  // namespace

BOOST_AUTO_TEST_CASE(examples_and_samples_are_written_as_the_emitter_wrote_them) {
  const fs::path examples = fs::path(BINSCHEMA_SOURCE_DIR) / "examples";
  int n = 0;
  for (const auto& entry : fs::directory_iterator(examples)) {
    const fs::path p = entry.path();
    if (p.extension() != ".yaml") continue;
    const text::Doc doc = text::load(read_file(p));
    const std::string format(doc.root().get("format").scalar());
    const std::string what = p.filename().string();
    if (format == "baev") compare(binschema::baev::from_text(doc), what);
    else if (format == "evnt") compare(binschema::evnt::from_text(doc), what);
    else if (format == "al") compare(binschema::al::from_text(doc), what);
    else if (format == "bfevfl") compare(binschema::bfevfl::from_text(doc), what);
    else if (format == "asb") compare(binschema::asb::from_text(doc), what);
    else if (format == "sarc") compare(binschema::sarc::from_text(doc), what);
    else if (format == "aamp") compare(binschema::aamp::from_text(doc), what);
    else if (format == "byml") compare(binschema::byml::from_text(doc), what);
    else BOOST_ERROR("example of an unknown format: " << what);
    ++n;
  }
  BOOST_TEST(n >= 6);

  const fs::path samples = fs::path(BINSCHEMA_SHARED_DIR) / "samples";
  if (!fs::is_directory(samples)) {
    BOOST_TEST_MESSAGE("NOTE: " << samples << " is missing: only the examples were compared");
    return;
  }
  int m = 0;
  for (const auto& entry : fs::recursive_directory_iterator(samples)) {
    const fs::path p = entry.path();
    const std::string ext = p.extension().string();
    if (ext != ".bfevfl" && ext != ".bfevtm" && ext != ".sarc") continue;
    const std::string bytes = read_file(p);
    const std::span<const uint8_t> b(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
    if (ext == ".sarc") compare(binschema::sarc::decode(b), p.filename().string());
    else compare(binschema::bfevfl::decode(b), p.filename().string());
    ++m;
  }
  BOOST_TEST_MESSAGE("compared " << n << " examples and " << m << " samples");
}

BOOST_AUTO_TEST_CASE(random_documents_are_written_as_the_emitter_writes_them) {
  std::mt19937 rng(15);
  for (int i = 0; i < 3000; ++i) {
    std::vector<Ev> evs;
    evs.push_back({Ev::BeginMap});
    const int n = std::uniform_int_distribution<int>(0, 4)(rng);
    for (int k = 0; k < n; ++k) {
      evs.push_back({Ev::Key, false, std::string("k").append(std::to_string(k))});
      random_value(rng, evs, 0, false);
    }
    evs.push_back({Ev::EndMap});
    const std::string ours = replay<text::YamlSink>(evs);
    const std::string ref = replay<EmitterSink>(evs);
    BOOST_TEST(ours == ref, "document " << i << ":\n" << ours << "--- emitter:\n" << ref);
    if (ours != ref) break;
  }
}

BOOST_AUTO_TEST_CASE(every_code_point_is_escaped_as_the_emitter_escapes_it) {
  // Each scalar value alone (so that a difference names it), in runs of 4096.
  for (uint32_t lo = 0; lo < 0x110000; lo += 4096) {
    std::vector<Ev> evs{{Ev::BeginSeq}};
    for (uint32_t cp = lo; cp < lo + 4096; ++cp) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      if (cp == 0) continue;  // below
      if (noncharacter(cp)) continue;  // below: the emitter wrote U+FFFD for them
      std::string s = "a" + utf8(cp) + '"';  // the quote forces double quotes
      evs.push_back({Ev::String, false, s});
    }
    evs.push_back({Ev::EndSeq});
    const std::string ours = replay<text::YamlSink>(evs);
    const std::string ref = replay<EmitterSink>(evs);
    if (ours != ref) {
      size_t i = 0;
      while (i < ours.size() && i < ref.size() && ours[i] == ref[i]) ++i;
      BOOST_ERROR("code points from " << lo << ": first difference at byte " << i << ": ours \""
                                      << ours.substr(i > 20 ? i - 20 : 0, 40) << "\" emitter \""
                                      << ref.substr(i > 20 ? i - 20 : 0, 40) << "\"");
    }
  }
  // Noncharacters are escaped and read back as themselves (an intended
  // change: the emitter wrote U+FFFD instead, which lost them).
  for (uint32_t cp : {0xfdd0u, 0xfdefu, 0xfffeu, 0xffffu, 0x1fffeu, 0x10ffffu}) {
    const std::string s = "a" + utf8(cp);
    const std::vector<Ev> evs{{Ev::BeginMap}, {Ev::Key, false, "s"}, {Ev::String, false, s}, {Ev::EndMap}};
    const std::string yaml = replay<text::YamlSink>(evs);
    BOOST_TEST(yaml.find('\\') != std::string::npos, yaml);
    BOOST_TEST(text::load(yaml).root().get("s").scalar() == s, "U+" << std::hex << cp << ": " << yaml);
  }
  // A NUL inside a value.
  const std::vector<Ev> nul{{Ev::BeginSeq}, {Ev::String, false, std::string("a\0b", 3)}, {Ev::EndSeq}};
  BOOST_TEST(replay<text::YamlSink>(nul) == replay<EmitterSink>(nul));
}
