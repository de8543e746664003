// The editing format (issue 12): references by name, enums, integer
// booleans and hash names in the text form. Each test edits or reads text
// as a user would and checks the model (by value) and the bytes.
#define BOOST_TEST_MODULE editing_test
#include <boost/test/unit_test.hpp>

#include <fstream>
#include <sstream>
#include <string>

#include "al_text.h"
#include "asb_text.h"
#include "baev_text.h"
#include "bfevfl_text.h"
#include "evnt_text.h"
#include "binschema/error.h"
#include "binschema/text.h"

namespace {

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  BOOST_REQUIRE_MESSAGE(f, "cannot read " + path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::string example(const char* name) { return read_file(std::string(BINSCHEMA_SOURCE_DIR) + "/examples/" + name); }

// The message of the TextError that reading `text` into a T throws ("" if none).
template <class Fn>
std::string text_error(Fn fn) {
  try {
    fn();
  } catch (const binschema::TextError& e) {
    return e.what();
  }
  return "";
}

const binschema::bfevfl::ActionEvent& action_of(const binschema::bfevfl::Event& e) {
  return e.data.get<binschema::bfevfl::Event::Data::Case::action>();
}

// A flowchart written with names: a villager greets you, differently in the morning.
const char* kFlow = R"(format: bfevfl
name: Greeting
flowcharts:
  - name: Greeting
    actors:
      - name: Npc_Villager
        sub_name: ""
        argument_name: ""
        actions: [Talk, Wave]
        queries: [IsMorning]
        params: ~
    events:
      - name: CheckTime
        data:
          switch:
            actor: Npc_Villager
            query: IsMorning
            params: ~
            cases:
              - {value: 1, event: SayHello}
              - {value: 0, event: WaveBye}
      - name: SayHello
        data:
          action: {next: WaveBye, actor: Npc_Villager, action: Talk, params: ~}
      - name: WaveBye
        data:
          action: {actor: Npc_Villager, action: Wave, params: ~}
    entry_points:
      - {name: Talk, sub_flow_events: [], main_event: CheckTime}
timelines: []
)";

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) s.replace(at, from.size(), to);
  return s;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(references)

// The same flowchart with indices encodes to the same bytes: names are only a spelling.
BOOST_AUTO_TEST_CASE(names_and_indices_encode_alike) {
  const std::string by_index = replace_all(
      replace_all(replace_all(replace_all(replace_all(replace_all(replace_all(replace_all(kFlow,
          "actor: Npc_Villager", "actor: 0"), "query: IsMorning", "query: 0"), "event: SayHello", "event: 1"),
          "event: WaveBye", "event: 2"), "next: WaveBye", "next: 2"), "action: Talk", "action: 0"),
          "action: Wave,", "action: 1,"), "main_event: CheckTime", "main_event: 0");
  BOOST_REQUIRE(by_index.find("Npc_Villager,") == std::string::npos);
  const auto a = binschema::bfevfl::encode(binschema::bfevfl::from_text(binschema::text::load(kFlow)));
  const auto b = binschema::bfevfl::encode(binschema::bfevfl::from_text(binschema::text::load(by_index)));
  BOOST_TEST(a == b);
  // And decoding shows the names again.
  const std::string text = binschema::bfevfl::to_text(binschema::bfevfl::decode(a), binschema::TextKind::Yaml);
  BOOST_TEST(text.find("next: WaveBye") != std::string::npos, text);
  BOOST_TEST(text.find("actor: Npc_Villager") != std::string::npos);
  BOOST_TEST(text.find("query: IsMorning") != std::string::npos);
  BOOST_TEST(text.find("action: Wave") != std::string::npos);
  BOOST_TEST(text.find("main_event: CheckTime") != std::string::npos);
  BOOST_TEST(text.find("event: SayHello") != std::string::npos);
}

// The acceptance edit: insert an event in the middle, rename an actor,
// re-point a next: by name; encode, decode, check by value.
BOOST_AUTO_TEST_CASE(insert_rename_repoint_in_text) {
  std::string edited = replace_all(kFlow, "Npc_Villager", "Npc_Farmer");  // the actor and every reference
  const std::string nod = "      - name: Nod\n        data:\n          action: {next: WaveBye, actor: Npc_Farmer, action: Wave, params: ~}\n";
  const size_t at = edited.find("      - name: SayHello");
  edited.insert(at, nod);  // events: CheckTime, Nod, SayHello, WaveBye
  edited = replace_all(edited, "action: {next: WaveBye, actor: Npc_Farmer, action: Talk", "action: {next: Nod, actor: Npc_Farmer, action: Talk");
  const auto bytes = binschema::bfevfl::encode(binschema::bfevfl::from_text(binschema::text::load(edited)));
  const auto file = binschema::bfevfl::decode(bytes);
  const auto& fc = file.flowcharts.at(0);
  BOOST_REQUIRE_EQUAL(fc.events.size(), 4u);
  BOOST_TEST(fc.actors.at(0).name == "Npc_Farmer");
  BOOST_TEST(fc.events[0].name == "CheckTime");
  BOOST_TEST(fc.events[1].name == "Nod");
  BOOST_TEST(fc.events[2].name == "SayHello");
  BOOST_TEST(fc.events[3].name == "WaveBye");
  const auto& sw = fc.events[0].data.get<binschema::bfevfl::Event::Data::Case::switch_>();
  BOOST_REQUIRE_EQUAL(sw.cases.size(), 2u);
  BOOST_TEST(sw.cases[0].event == 2);  // SayHello moved from 1 to 2
  BOOST_TEST(sw.cases[1].event == 3);  // WaveBye from 2 to 3
  BOOST_TEST(action_of(fc.events[1]).next == 3);  // Nod -> WaveBye
  BOOST_TEST(action_of(fc.events[1]).action == 1);
  BOOST_TEST(action_of(fc.events[2]).next == 1);  // SayHello -> Nod (re-pointed)
  BOOST_TEST(action_of(fc.events[2]).action == 0);
  BOOST_TEST(action_of(fc.events[3]).next == 0xFFFF);
  BOOST_TEST(fc.entry_points.at(0).main_event == 0);
  // Written out for the evfl oracle when asked (outside the repository).
  if (const char* out = std::getenv("BINSCHEMA_EDITED_BFEVFL")) {
    std::ofstream f(out, std::ios::binary);
    f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  }
}

// Text errors: an unknown name and a duplicate key, at the reference's line:col.
BOOST_AUTO_TEST_CASE(unknown_name_and_duplicate_key) {
  const std::string unknown = replace_all(kFlow, "next: WaveBye", "next: WaveBy");
  const std::string e1 = text_error([&] { (void)binschema::bfevfl::from_text(binschema::text::load(unknown)); });
  BOOST_TEST(e1 == "24:26: flowcharts[0].events[1].data.action.next: unknown events name 'WaveBy' (no element of events has that key)");
  const std::string dup = replace_all(kFlow, "      - name: WaveBye", "      - name: SayHello");
  const std::string e2 = text_error([&] { (void)binschema::bfevfl::from_text(binschema::text::load(dup)); });
  BOOST_TEST(e2 == "20:35: flowcharts[0].events[0].data.switch.cases[0].event: 'SayHello' is the key of more than one element of events (1 at 22:15, 2 at 25:15): duplicate key; use the index");
  const std::string bad_action = replace_all(kFlow, "action: Talk", "action: Talkk");
  const std::string e3 = text_error([&] { (void)binschema::bfevfl::from_text(binschema::text::load(bad_action)); });
  BOOST_TEST(e3 == "24:64: flowcharts[0].events[1].data.action.action: unknown actions name 'Talkk' (actors[0] has no such actions)");
}

// Elements whose keys are not unique are shown by index; the file round trips.
BOOST_AUTO_TEST_CASE(duplicate_keys_show_indices) {
  // Events 1 and 2 are both SayHello: references to them must use indices.
  const std::string dup = replace_all(
      replace_all(replace_all(kFlow, "      - name: WaveBye", "      - name: SayHello"), "WaveBye", "2"), "event: SayHello", "event: 1");
  const auto bytes = binschema::bfevfl::encode(binschema::bfevfl::from_text(binschema::text::load(dup)));
  const std::string text = binschema::bfevfl::to_text(binschema::bfevfl::decode(bytes), binschema::TextKind::Yaml);
  BOOST_TEST(text.find("event: 1") != std::string::npos, text);
  BOOST_TEST(text.find("event: 2") != std::string::npos);
  BOOST_TEST(text.find("main_event: CheckTime") != std::string::npos);  // still unique
  BOOST_TEST(binschema::bfevfl::encode(binschema::bfevfl::from_text(binschema::text::load(text))) == bytes);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(enums_and_booleans)

// ASB: condition ops, check types, axes by name; u32/u8 flags as true/false.
BOOST_AUTO_TEST_CASE(asb_shows_names) {
  const auto file = binschema::asb::from_text(binschema::text::load(example("asb-every-node.yaml")));
  const auto bytes = binschema::asb::encode(file);
  const std::string text = binschema::asb::to_text(binschema::asb::decode(bytes), binschema::TextKind::Yaml);
  BOOST_TEST(text.find("op: ge") != std::string::npos, "op 4 is ge");
  BOOST_TEST(text.find("op: eq") != std::string::npos);
  BOOST_TEST(text.find("check_type: state_only") != std::string::npos);
  BOOST_TEST(text.find("force_run: false") != std::string::npos);
  BOOST_TEST(text.find("op: 4") == std::string::npos);
  // The JSON says the same.
  const std::string json = binschema::asb::to_text(binschema::asb::decode(bytes), binschema::TextKind::Json);
  BOOST_TEST(json.find("\"op\": \"ge\"") != std::string::npos);
  BOOST_TEST(json.find("\"force_run\": false") != std::string::npos);
  BOOST_TEST(binschema::asb::encode(binschema::asb::from_text(binschema::text::load(json))) == bytes);
}

// A value with no name, and a u32 flag that is neither 0 nor 1, survive.
BOOST_AUTO_TEST_CASE(unnamed_values_round_trip) {
  std::string doc = example("asb-every-node.yaml");
  const size_t op = doc.find("op: ge");
  BOOST_REQUIRE(op != std::string::npos);
  doc.replace(op, 6, "op: 9");
  const size_t fr = doc.find("force_run: false");
  BOOST_REQUIRE(fr != std::string::npos);
  doc.replace(fr, 16, "force_run: 7");
  const auto bytes = binschema::asb::encode(binschema::asb::from_text(binschema::text::load(doc)));
  const std::string text = binschema::asb::to_text(binschema::asb::decode(bytes), binschema::TextKind::Yaml);
  BOOST_TEST(text.find("op: 9") != std::string::npos);
  BOOST_TEST(text.find("force_run: 7") != std::string::npos);
  BOOST_TEST(binschema::asb::encode(binschema::asb::from_text(binschema::text::load(text))) == bytes);
  // An unknown name is refused, naming the enum and its names.
  const size_t at = doc.find("op: 9");
  doc.replace(at, 5, "op: gte");
  const std::string e = text_error([&] { (void)binschema::asb::from_text(binschema::text::load(doc)); });
  BOOST_TEST(e.find("unknown CompareOp value 'gte' (one of: gt, le, eq, ne, ge, lt, or a number)") != std::string::npos, e);
}

// EVNT: event types and animation time states by name.
BOOST_AUTO_TEST_CASE(evnt_shows_names) {
  const auto bytes = binschema::evnt::encode(binschema::evnt::from_text(binschema::text::load(example("evnt-footsteps.yaml"))));
  const std::string text = binschema::evnt::to_text(binschema::evnt::decode(bytes), binschema::TextKind::Yaml);
  BOOST_TEST(text.find("type: loop") != std::string::npos, text);
  BOOST_TEST(text.find("type: user_event") != std::string::npos);
  BOOST_TEST(text.find("state: non_zero") != std::string::npos);
  BOOST_TEST(binschema::evnt::encode(binschema::evnt::from_text(binschema::text::load(text))) == bytes);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(hash_names)

// BAEV event hashes: names from a name list on decode, names hashed on encode.
BOOST_AUTO_TEST_CASE(baev_hashes_as_names) {
  const std::string doc = example("baev-tomodachi.yaml");
  const auto bytes = binschema::baev::encode(binschema::baev::from_text(binschema::text::load(doc)));
  binschema::text::set_known_names({});
  const std::string plain = binschema::baev::to_text(binschema::baev::decode(bytes), binschema::TextKind::Yaml);
  BOOST_TEST(plain.find("    0x41bda2f1: [0, 2]\n") != std::string::npos, plain);  // events: a map by hash (map: hash)
  binschema::text::set_known_names({"Happy", "Laugh", "Sing", "Eat", "NotInTheFile"});
  const std::string named = binschema::baev::to_text(binschema::baev::decode(bytes), binschema::TextKind::Yaml);
  binschema::text::set_known_names({});
  BOOST_TEST(named.find("    Happy: [0, 2]\n") != std::string::npos, named);
  BOOST_TEST(named.find("    Eat: [2]\n") != std::string::npos);
  BOOST_TEST(named.find("0x41bda2f1") == std::string::npos);
  // Names in, the same bytes out (the table is sorted by hash on write).
  BOOST_TEST(binschema::baev::encode(binschema::baev::from_text(binschema::text::load(named))) == bytes);
}

BOOST_AUTO_TEST_CASE(hex_is_zero_padded) {
  binschema::baev::File f = binschema::baev::from_text(binschema::text::load(example("baev-tomodachi.yaml")));
  BOOST_REQUIRE(!f.data.events.empty());
  f.data.events[0].hash = 0xe1ef32d;
  const std::string text = binschema::baev::to_text(f, binschema::TextKind::Yaml);
  BOOST_TEST(text.find("    0x0e1ef32d: ") != std::string::npos, text);  // a map key, padded too
  const std::string json = binschema::baev::to_text(f, binschema::TextKind::Json);
  BOOST_TEST(json.find("\"0x0e1ef32d\": ") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()

// A referenced name that is not UTF-8 is written as {bytes: HEX}, which a
// reference cannot spell: the reference stays an index, and the text reads
// back to the same bytes (found by fuzz_decode_al). Such a name cannot key the
// bones' map either: the bones are then the list they are without map:.
BOOST_AUTO_TEST_CASE(reference_to_a_name_that_is_not_utf8_stays_an_index) {
  const std::string doc = replace_all(example("al-creature.yaml"), "    Root: -1\n    Head: Root\n",
                                      "    - name: {bytes: 526f6f74ff}\n      parent: -1\n    - name: Head\n      parent: 0\n");
  BOOST_REQUIRE(doc != example("al-creature.yaml"));
  const auto bytes = binschema::al::encode(binschema::al::from_text(binschema::text::load(doc)));
  const auto model = binschema::al::decode(bytes);
  BOOST_TEST(model.skeleton.bones.at(0).name == std::string("Root\xff"));
  for (auto kind : {binschema::TextKind::Yaml, binschema::TextKind::Json}) {
    const std::string text = binschema::al::to_text(model, kind);
    BOOST_TEST((text.find("parent: 0") != std::string::npos || text.find("\"parent\": 0") != std::string::npos), text);
    BOOST_TEST((text.find("- name: {bytes: \"526f6f74ff\"}") != std::string::npos || text.find("\"bytes\": \"526f6f74ff\"") != std::string::npos), text);
    BOOST_TEST(binschema::al::encode(binschema::al::from_text(binschema::text::load(text))) == bytes);
  }
}
