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
#include <set>

#include "bfevfl_text.h"
#include "binschema/error.h"
#include "binschema/schema.h"
#include "samples.h"

namespace fs = std::filesystem;

namespace {

fs::path scratch() {
  static const fs::path d = [] {
    fs::path p = fs::temp_directory_path() / ("names_test_" + std::to_string(::getpid()));
    fs::create_directories(p);
    return p;
  }();
  return d;
}

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
  for (const YAML::Node e : fc["events"]) ev[e["name"].as<std::string>()] = e;
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
        const YAML::Node events = text["flowcharts"][c]["events"];
        const YAML::Node iev = ind["flowcharts"][c]["events"];
        BOOST_REQUIRE(events.size() == iev.size());
        for (size_t i = 0; i < iev.size(); ++i) {
          if (!iev[i]["actor"]) continue;
          const YAML::Node data = events[i]["data"];
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
            for (const YAML::Node a : ind["flowcharts"][c]["actors"]) same += pair(a)[0] == want[0];
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
