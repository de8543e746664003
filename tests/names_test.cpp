// References by name (issue 26): composite keys (BFEVFL actors that share a
// name are referred to by name and sub-name, `key: [name, sub_name]`),
// checked against the independent reader tests/independent/bfevfl.py; and
// no index in the text of any sample of any format where a name exists.
#define BOOST_TEST_MODULE names_test
#include <boost/test/unit_test.hpp>

#include <sys/wait.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "bfevfl_text.h"
#include "binschema/error.h"
#include "binschema/format.h"
#include "binschema/schema.h"
#include "binschema/text.h"
#include "binschema/text_doc.h"
#include "samples.h"
#include "scratch_dir.h"

namespace fs = std::filesystem;

namespace {

fs::path scratch() { return scratch_dir("names_test"); }

struct Run {
  int status = -1;
  std::string out;
};

Run run(const std::string& cmd) {
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

// What tests/independent/bfevfl.py reads in these bytes (its JSON as a node).
YAML::Node independent(const std::vector<uint8_t>& bytes, const std::string& name = "x.bfevfl") {
  const fs::path p = scratch() / name;
  std::ofstream(p, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  const Run r = run(std::string(BINSCHEMA_PYTHON3) + " " + BINSCHEMA_SOURCE_DIR + "/tests/independent/bfevfl.py " + p.string());
  BOOST_REQUIRE_MESSAGE(r.status == 0, "bfevfl.py refused " + name + " (its message is above)");
  return YAML::Load(r.out);
}

// Two actors named Npc_Guard (sub-names A and B) with different actions; the
// events refer to each by name and sub-name, to the third by its name alone.
const char* kTwoGuards = R"(format: bfevfl
name: Gate
flowcharts:
  - name: Gate
    actors:
      - {name: Npc_Guard, sub_name: A, argument_name: "", actions: [Wave, Talk], queries: [], params: ~}
      - {name: Npc_Guard, sub_name: B, argument_name: "", actions: [Salute], queries: [IsNight], params: ~}
      - {name: Npc_Villager, sub_name: "", argument_name: "", actions: [Talk], queries: [], params: ~}
    events:
      - name: Ask
        data:
          switch: {actor: {name: Npc_Guard, sub_name: B}, query: IsNight, params: ~, cases: [{value: 1, event: SaluteB}, {value: 0, event: TalkA}]}
      - name: SaluteB
        data:
          action: {next: TalkA, actor: {sub_name: B, name: Npc_Guard}, action: Salute, params: ~}
      - name: TalkA
        data:
          action: {next: Villager, actor: {name: Npc_Guard, sub_name: A}, action: Talk, params: ~}
      - name: Villager
        data:
          action: {actor: Npc_Villager, action: Talk, params: ~}
    entry_points:
      - {name: Gate, sub_flow_events: [], main_event: Ask}
timelines: []
)";

std::vector<std::string> pair(const YAML::Node& n) { return n.as<std::vector<std::string>>(); }

// The text with `from` replaced by `to` (once; it must be there).
std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  BOOST_REQUIRE_MESSAGE(at != std::string::npos, "'" + from + "' is not in the text");
  return text.replace(at, from.size(), to);
}

std::string text_error(const std::string& text) {
  try {
    binschema::bfevfl::from_text(text);
  } catch (const binschema::TextError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

BOOST_AUTO_TEST_SUITE(composite_keys)

// Actors that share a name, referred to in the text by name and sub-name:
// the file points at the right actor (and at that actor's action), as the
// independent reader sees it; decoding gives the same spelling back.
BOOST_AUTO_TEST_CASE(actor_sharing_its_name_by_name_and_sub_name) {
  const auto bytes = binschema::bfevfl::encode(binschema::bfevfl::from_text(kTwoGuards));
  const YAML::Node fc = independent(bytes)["flowcharts"][0];
  std::map<std::string, YAML::Node> ev;
  for (const YAML::Node& e : fc["events"]) ev[e["name"].as<std::string>()] = e;
  BOOST_TEST((pair(ev["Ask"]["actor"]) == std::vector<std::string>{"Npc_Guard", "B"}));
  BOOST_TEST(ev["Ask"]["query"].as<std::string>() == "IsNight");
  BOOST_TEST((pair(ev["SaluteB"]["actor"]) == std::vector<std::string>{"Npc_Guard", "B"}));
  BOOST_TEST(ev["SaluteB"]["action"].as<std::string>() == "Salute");
  BOOST_TEST((pair(ev["TalkA"]["actor"]) == std::vector<std::string>{"Npc_Guard", "A"}));
  BOOST_TEST(ev["TalkA"]["action"].as<std::string>() == "Talk");
  BOOST_TEST((pair(ev["Villager"]["actor"]) == std::vector<std::string>{"Npc_Villager", ""}));

  // Back to text: the shared name by the map, the unique one by its name, no index.
  const std::string text = binschema::bfevfl::to_text(binschema::bfevfl::decode(bytes), binschema::TextKind::Yaml);
  BOOST_TEST(text.find("actor: {name: Npc_Guard, sub_name: B}") != std::string::npos, text);
  BOOST_TEST(text.find("actor: {name: Npc_Guard, sub_name: A}") != std::string::npos, text);
  BOOST_TEST(text.find("actor: Npc_Villager") != std::string::npos, text);
  BOOST_TEST(text.find("actor: 0") == std::string::npos, text);
  const std::string json = binschema::bfevfl::to_text(binschema::bfevfl::decode(bytes), binschema::TextKind::Json);
  BOOST_TEST(json.find(R"("actor": {"name": "Npc_Guard", "sub_name": "B"})") != std::string::npos, json);
  BOOST_TEST((binschema::bfevfl::encode(binschema::bfevfl::from_text(json)) == bytes));
  BOOST_TEST((binschema::bfevfl::encode(binschema::bfevfl::from_text(text)) == bytes));
}

BOOST_AUTO_TEST_CASE(errors_name_the_reference) {
  // The name alone is ambiguous.
  BOOST_TEST(text_error(replaced(kTwoGuards, "{name: Npc_Guard, sub_name: A}", "Npc_Guard")).find(
                 "'Npc_Guard' is the key of more than one element of actors") != std::string::npos);
  // No actor has that pair.
  const std::string none = text_error(replaced(kTwoGuards, "{name: Npc_Guard, sub_name: A}", "{name: Npc_Guard, sub_name: C}"));
  BOOST_TEST(none.find("18:43: flowcharts[0].events[2].data.action.actor: unknown actors element: none has name 'Npc_Guard' and sub_name 'C'") == 0, none);
  // A key of the map that is none of the keys; one missing.
  const std::string unknown = text_error(replaced(kTwoGuards, "{name: Npc_Guard, sub_name: A}", "{name: Npc_Guard, sub: A}"));
  BOOST_TEST(unknown.find("unknown key 'sub' in a reference to actors (name, sub_name)") != std::string::npos, unknown);
  const std::string missing = text_error(replaced(kTwoGuards, "{name: Npc_Guard, sub_name: A}", "{name: Npc_Guard}"));
  BOOST_TEST(missing.find("'sub_name' missing") != std::string::npos, missing);
  // Two actors with the same name and sub-name: that pair names neither.
  const std::string twice = text_error(replaced(kTwoGuards, "sub_name: A, argument_name", "sub_name: B, argument_name"));
  BOOST_TEST(twice.find("more than one element of actors has name 'Npc_Guard' and sub_name 'B' (0 at") != std::string::npos, twice);
}

// The samples whose actors share names (Common, Demo346_0): every actor
// reference is a name or a name and sub-name, and names the actor the
// independent reader finds at that event.
BOOST_AUTO_TEST_CASE(samples_name_every_actor) {
  size_t maps = 0, refs = 0;
  for (const auto& path : samples::files("bfevfl")) {
    if (path.extension() != ".bfevfl") continue;
    BOOST_TEST_CONTEXT(path.filename().string()) {
      const auto bytes = samples::read(path);
      const YAML::Node text = YAML::Load(binschema::bfevfl::to_text(binschema::bfevfl::decode(bytes), binschema::TextKind::Yaml));
      const YAML::Node ind = independent(bytes, path.filename().string());
      for (size_t c = 0; c < ind["flowcharts"].size(); ++c) {
        // The events in file order: a map by name (map: name), or a list
        // where names repeat; each one's data (the one-key map of its kind).
        std::vector<YAML::Node> datas;
        const YAML::Node events = text["flowcharts"][c]["events"];
        for (const auto& e : events) datas.push_back(events.IsMap() ? YAML::Node(e.second) : YAML::Node(e["data"]));
        const YAML::Node iev = ind["flowcharts"][c]["events"];
        BOOST_REQUIRE(datas.size() == iev.size());
        for (size_t i = 0; i < iev.size(); ++i) {
          if (!iev[i]["actor"]) continue;
          const YAML::Node data = datas[i];
          const YAML::Node ref = data.begin()->second["actor"];
          const auto want = pair(iev[i]["actor"]);
          ++refs;
          if (ref.IsMap()) {
            ++maps;
            BOOST_TEST(ref["name"].as<std::string>() == want[0]);
            BOOST_TEST(ref["sub_name"].as<std::string>() == want[1]);
            BOOST_TEST(ref.size() == 2u);
          } else {
            BOOST_TEST(ref.as<std::string>() == want[0]);
            // Shown by the name alone only when no other actor has it.
            size_t same = 0;
            for (const YAML::Node& a : ind["flowcharts"][c]["actors"]) same += pair(a)[0] == want[0];
            BOOST_TEST(same == 1u);
          }
        }
      }
    }
  }
  BOOST_TEST_MESSAGE(refs << " actor references in the samples, " << maps << " by name and sub-name");
  BOOST_TEST(maps >= 13u);  // Common: 7, Demo346_0: 6 (counted at f9f9bd0)
}

BOOST_AUTO_TEST_SUITE_END()

// ---- Every format's documentation shows its text form ---------------------------

namespace {

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  BOOST_REQUIRE_MESSAGE(in, "cannot read " + p.string());
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// An integer scalar's value (decimal or 0x hex, with a sign), so that 0x1c and
// 0x0000001c compare equal.
std::optional<long double> number(const std::string& t) {
  if (t.empty()) return std::nullopt;
  size_t i = (t[0] == '-' || t[0] == '+') ? 1 : 0;
  const bool hex = t.size() > i + 2 && t[i] == '0' && (t[i + 1] == 'x' || t[i + 1] == 'X');
  if (!hex && (i >= t.size() || !std::isdigit(static_cast<unsigned char>(t[i])))) return std::nullopt;
  try {
    size_t used = 0;
    const unsigned long long m = std::stoull(t.substr(i), &used, hex ? 16 : 10);
    if (used + i != t.size()) return std::nullopt;
    return t[0] == '-' ? -static_cast<long double>(m) : static_cast<long double>(m);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// Where two documents differ ("" when they are the same document): maps by
// key, lists by position, scalars as text, integers by value. Comments,
// quoting and flow or block style are not part of a document.
std::string difference(const YAML::Node& a, const YAML::Node& b, const std::string& path) {
  if (a.Type() != b.Type()) return path + ": a " + (a.IsScalar() ? "scalar" : a.IsMap() ? "map" : a.IsSequence() ? "list" : "null") + " in the example";
  if (a.IsMap()) {
    if (a.size() != b.size()) return path + ": " + std::to_string(a.size()) + " keys in the example, " + std::to_string(b.size()) + " decoded";
    for (const auto& kv : a) {
      const std::string k = kv.first.Scalar();
      if (!b[k]) return path + "." + k + ": not in the decoded text";
      if (std::string d = difference(kv.second, b[k], path + "." + k); !d.empty()) return d;
    }
  } else if (a.IsSequence()) {
    if (a.size() != b.size()) return path + ": " + std::to_string(a.size()) + " elements in the example, " + std::to_string(b.size()) + " decoded";
    for (size_t i = 0; i < a.size(); ++i)
      if (std::string d = difference(a[i], b[i], path + "[" + std::to_string(i) + "]"); !d.empty()) return d;
  } else if (a.IsScalar() && a.Scalar() != b.Scalar()) {
    const auto x = number(a.Scalar()), y = number(b.Scalar());
    if (!x || !y || *x != *y) return path + ": '" + a.Scalar() + "' in the example, '" + b.Scalar() + "' decoded";
  }
  return "";
}

void strings_of(const YAML::Node& n, std::vector<std::string>& out) {
  if (n.IsScalar()) out.push_back(n.Scalar());
  for (const auto& e : n) {
    if (n.IsMap()) {
      strings_of(e.first, out);  // a map: key (BAEV's events by name) is a string too
      strings_of(e.second, out);
    } else {
      strings_of(e, out);
    }
  }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(format_docs)

// Each shipped schema names an example (example:); its Markdown page shows it
// under "Text form"; and the example is the text binschema decodes its own
// bytes into (with its strings as the name list, so hashes written as names
// show as names): it encodes, decodes back to the same document, and that
// encodes to the same bytes.
BOOST_AUTO_TEST_CASE(every_format_shows_its_text_form_by_an_example_that_decodes_back_to_itself) {
  size_t formats = 0;
  for (const auto& e : fs::directory_iterator(fs::path(BINSCHEMA_SOURCE_DIR) / "schemas")) {
    if (e.path().extension() != ".yaml") continue;
    ++formats;
    BOOST_TEST_CONTEXT(e.path().filename().string()) {
      const auto s = binschema::gen::load_schema(e.path().string());
      BOOST_TEST_REQUIRE(!s->example.empty(), "the schema names no example: (a document of its text form)");
      const std::string page = read_text(fs::path(BINSCHEMA_SOURCE_DIR) / "generated" / (s->format + ".md"));
      const size_t at = page.find("## Text form");
      BOOST_TEST(at != std::string::npos, "generated/" + s->format + ".md has no Text form section");
      BOOST_TEST(page.find("```yaml\n" + s->example_text, at) != std::string::npos, "generated/" + s->format + ".md does not show " + s->example);

      const binschema::Format* f = binschema::find_format(s->format);
      BOOST_TEST_REQUIRE(f != nullptr);
      const YAML::Node example = YAML::Load(s->example_text);
      std::vector<std::string> names;
      strings_of(example, names);
      std::vector<uint8_t> bytes;
      try {
        bytes = f->encode(binschema::text::load(s->example_text));
      } catch (const std::exception& x) {
        BOOST_ERROR(s->example + " does not encode: " + x.what());
        continue;
      }
      binschema::text::set_known_names(names);
      const std::string decoded = f->decode(bytes, binschema::TextKind::Yaml);
      binschema::text::set_known_names({});
      const std::string d = difference(example, YAML::Load(decoded), "");
      BOOST_TEST(d.empty(), s->example + " is not what decode shows: " + d);
      BOOST_TEST((f->encode(binschema::text::load(decoded)) == bytes), s->example + ": the decoded text encodes to other bytes");
    }
  }
  BOOST_TEST(formats >= 8u);
}

BOOST_AUTO_TEST_SUITE_END()

// ---- No index where a name exists -------------------------------------------------

namespace {

// The fields of a format that refer by name (ref:), by field name: those
// every field of that name is (a name also used by another kind of field
// cannot be told apart in the text, and is listed in `mixed`).
std::set<std::string> ref_fields(const binschema::gen::Schema& s, std::set<std::string>& mixed) {
  std::set<std::string> refs, others;
  // Only integers print as plain numbers (a union case's key holds a map).
  auto one = [&](const binschema::gen::Field& f) {
    if (!f.spell.ref.empty()) refs.insert(f.name);
    else if (f.type.kind == binschema::gen::ValueType::Prim) others.insert(f.name);
  };
  for (const auto& st : s.structs)
    for (const auto& f : st->fields) {
      one(*f);
      for (const auto& c : f->variant.cases)
        if (c.field) one(*c.field);
    }
  std::set<std::string> out;
  for (const auto& r : refs) (others.count(r) ? mixed : out).insert(r);
  return out;
}

// A number that stands for "none" rather than an element: negative, or all
// ones for its width (BFEVFL's 0xFFFF, AL's -1).
bool none_value(long double v) {
  return v < 0 || v == 0xFF || v == 0xFFFF || v == 0xFFFFFF || v == 0xFFFFFFFFull || v == 18446744073709551615.0L;
}

// Reference fields printed as numbers in a decoded document: their paths.
void numbered_refs(const YAML::Node& n, const std::set<std::string>& refs, const std::string& path, std::vector<std::string>& out) {
  if (n.IsMap()) {
    for (const auto& kv : n) {
      const std::string k = kv.first.Scalar();
      if (path.empty() && k == "layout") continue;
      const std::string p = path + "." + k;
      if (refs.count(k)) {
        std::vector<YAML::Node> values;
        if (kv.second.IsSequence())
          for (const auto& e : kv.second) values.push_back(e);
        else
          values.push_back(kv.second);
        for (const auto& v : values)
          if (v.IsScalar() && v.Tag() != "!")  // a quoted "12" is a name
            if (const auto x = number(v.Scalar()); x && !none_value(*x)) out.push_back(p + ": " + v.Scalar());
      }
      numbered_refs(kv.second, refs, p, out);
    }
  } else if (n.IsSequence()) {
    for (size_t i = 0; i < n.size(); ++i) numbered_refs(n[i], refs, path + "[" + std::to_string(i) + "]", out);
  }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(no_index)

// Every sample of every shipped format (../shared/samples: each folder; the
// members of archives through `binschema unpack`) decoded to YAML: no field
// that refers by name (ref:) shows a number where the element it points at
// exists, so a reader never has to count elements.
BOOST_AUTO_TEST_CASE(no_reference_prints_as_an_index_in_any_sample) {
  std::map<std::string, std::set<std::string>> refs;  // format -> its reference field names
  for (const auto& e : fs::directory_iterator(fs::path(BINSCHEMA_SOURCE_DIR) / "schemas")) {
    if (e.path().extension() != ".yaml") continue;
    const auto s = binschema::gen::load_schema(e.path().string());
    std::set<std::string> mixed;
    refs[s->format] = ref_fields(*s, mixed);
    for (const auto& m : mixed) BOOST_TEST_MESSAGE(s->format << ": '" << m << "' is a reference in one struct and not in another: not checked");
  }
  const std::string cli = BINSCHEMA_CLI;
  size_t documents = 0, skipped = 0;
  std::map<std::string, size_t> per_format;
  auto check = [&](const fs::path& yaml, const std::string& what) {
    const YAML::Node doc = YAML::LoadFile(yaml.string());
    const std::string format = doc["format"].as<std::string>();
    BOOST_TEST_REQUIRE(refs.count(format), what + ": format " + format + " has no schema in schemas/");
    std::vector<std::string> bad;
    numbered_refs(doc, refs[format], "", bad);
    ++documents;
    ++per_format[format];
    BOOST_TEST(bad.empty(), what << ": " << bad.size() << " references by index, first " << (bad.empty() ? "" : bad[0]));
    return format;
  };
  const fs::path out = scratch() / "no_index";
  fs::create_directories(out);
  for (const char* folder : {"aamp", "byml", "bfevfl", "sarc", "yaz0"})
    for (const auto& path : samples::files(folder)) {
      const std::string what = std::string(folder) + "/" + path.filename().string();
      const fs::path yaml = out / (path.filename().string() + ".yaml");
      const Run r = run(cli + " decode '" + path.string() + "' -o '" + yaml.string() + "' 2>&1");
      if (r.status != 0) {
        BOOST_TEST(r.out.find("cannot tell the format") != std::string::npos, what + ": " + r.out);
        ++skipped;
        continue;
      }
      if (check(yaml, what) != "sarc") continue;
      // An archive: its members of known formats, as unpack writes them.
      const fs::path dir = out / (path.filename().string() + ".d");
      const Run u = run(cli + " unpack '" + path.string() + "' '" + dir.string() + "' 2>&1");
      BOOST_TEST_REQUIRE(u.status == 0, what + ": " + u.out);
      for (const auto& m : fs::recursive_directory_iterator(dir))
        if (m.is_regular_file() && m.path().extension() == ".yaml" && m.path().string().find("/.binschema/") == std::string::npos)
          check(m.path(), what + ":" + fs::relative(m.path(), dir).string());
    }
  std::string counts;
  for (const auto& [f, n] : per_format) counts += " " + f + " " + std::to_string(n);
  BOOST_TEST_MESSAGE(documents << " documents checked (" << counts << " ), " << skipped << " files of no known format");
  BOOST_TEST(per_format["bfevfl"] >= 8u);  // the 7 samples and the one in Demo344_1.sbeventpack
  BOOST_TEST(per_format["aamp"] >= 13u);
  BOOST_TEST(per_format["byml"] >= 7u);
}

BOOST_AUTO_TEST_SUITE_END()
