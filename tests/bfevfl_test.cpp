// BFEVFL / BFEVTM over the real BotW files in ../shared/samples/bfevfl/:
// every file decodes, and writing the model back gives the original bytes,
// directly and through YAML and JSON text.
#define BOOST_TEST_MODULE bfevfl_test
#include <boost/test/unit_test.hpp>

#include "bfevfl_text.h"
#include "samples.h"

#include <cmath>
#include <set>

#include "binschema/reader.h"

using namespace binschema::bfevfl;

namespace {

// The first differing offset, for a readable failure.
std::string first_difference(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b) {
  size_t n = std::min(a.size(), b.size());
  for (size_t i = 0; i < n; ++i)
    if (a[i] != b[i]) return "first difference at " + binschema::hex(i) + " (sizes " + binschema::hex(a.size()) + ", " + binschema::hex(b.size()) + ")";
  return a.size() == b.size() ? "same" : "sizes differ: " + binschema::hex(a.size()) + " vs " + binschema::hex(b.size());
}

}  // namespace

BOOST_AUTO_TEST_CASE(every_sample_rewrites_byte_for_byte) {
  size_t files = 0;
  for (const auto& path : samples::files("bfevfl")) {
    ++files;
    BOOST_TEST_CONTEXT(path.filename().string()) {
      const auto bytes = samples::read(path);
      File f;
      try {
        f = decode(bytes);
      } catch (const binschema::DecodeError& e) {
        BOOST_ERROR(e.what());
        continue;
      }
      const auto again = encode(f);
      BOOST_TEST((again == bytes), first_difference(again, bytes));
      // Nintendo's files are laid out as binschema's writer lays them out:
      // nothing for the layout to keep.
      binschema::Layout layout;
      decode(bytes, layout);
      BOOST_TEST(layout.empty(), "layout: " << layout.at_text() << " fill " << layout.fill_text() << ", "
                                            << layout.pools.size() << " pool orders");
      for (auto kind : {binschema::TextKind::Yaml, binschema::TextKind::Json}) {
        const auto text = encode(from_text(to_text(f, kind)));
        BOOST_TEST((text == bytes), (kind == binschema::TextKind::Json ? "json: " : "yaml: ") << first_difference(text, bytes));
      }
    }
  }
  BOOST_TEST(files == 7u);  // the 7 files described in ../shared/samples/bfevfl/PROVENANCE.md
}

namespace {

// Checks a file's relocation table against the pointer fields found by
// reading the file as the schema says: every non-null pointer is listed, and
// every listed slot is a pointer field (null ones included: the format
// registers some).
void check_relocation_table(const std::vector<uint8_t>& bytes) {
  binschema::Reader<std::endian::little> r(bytes);
  const uint64_t at = r.at<uint32_t>(0x18);
  BOOST_REQUIRE(r.chars(at, 4) == "RELT");
  std::set<uint64_t> listed;
  const uint32_t n = r.at<uint32_t>(at + 0x24);
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t off = r.at<uint32_t>(at + 0x28 + 8 * i), mask = r.at<uint32_t>(at + 0x2c + 8 * i);
    for (int b = 0; b < 32; ++b)
      if (mask >> b & 1) listed.insert(off + 8ull * b);
  }
  const auto slots = pointer_slots(bytes);
  const std::set<uint64_t> fields(slots.begin(), slots.end());
  size_t non_null = 0;
  for (uint64_t s : slots)
    if (r.at<uint64_t>(s) != 0) {
      ++non_null;
      BOOST_TEST(listed.count(s) == 1u, "pointer at " << binschema::hex(s) << " is not in the relocation table");
    }
  for (uint64_t s : listed) BOOST_TEST(fields.count(s) == 1u, "relocation entry " << binschema::hex(s) << " is not a pointer");
  BOOST_TEST(non_null > 0u);
}

File decode_sample(const std::string& name) {
  return decode(samples::read(samples::dir("bfevfl") / name));
}

Container every_item_type() {
  Container c;
  auto add = [&](const std::string& key, ContainerItem::Value v) {
    ContainerItem item;
    item.key = key;
    item.value = std::move(v);
    c.items.push_back(std::move(item));
  };
  ContainerItem::Value v;
  v.emplace<0>("ArgumentName");
  add("TestArgument", v);
  v.emplace<1>(-42);
  add("TestInt", v);
  v.emplace<2>(true);
  add("TestBool", v);
  v.emplace<3>(0.5f);
  add("TestFloat", v);
  v.emplace<4>("a string value");
  add("TestString", v);
  v.emplace<5>(std::vector<int32_t>{1, -2, 3});
  add("TestIntArray", v);
  v.emplace<6>(std::vector<uint32_t>{0x80000001u, 0u});
  add("TestBoolArray", v);
  v.emplace<7>(std::vector<float>{1.5f, -2.25f});
  add("TestFloatArray", v);
  v.emplace<8>(std::vector<std::string>{"one", "", "three"});
  add("TestStringArray", v);
  v.emplace<9>(ActorIdentifier{"Npc", "Sub"});
  add("TestActorIdentifier", v);
  return c;
}

}  // namespace

BOOST_AUTO_TEST_CASE(samples_relocation_tables_list_exactly_the_pointers) {
  for (const auto& path : samples::files("bfevfl")) {
    BOOST_TEST_CONTEXT(path.filename().string()) { check_relocation_table(samples::read(path)); }
  }
}

BOOST_AUTO_TEST_CASE(edited_flowchart_reads_back_as_edited) {
  File f = decode_sample("subchallnpc000_twin.bfevfl");
  Flowchart& fc = f.flowcharts.at(0);
  // A new actor with actions, a query and parameters of every item type.
  Actor actor;
  actor.name = "TestActor";
  actor.actions = {"Act0", "Act1"};
  actor.queries = {"Query0"};
  actor.params = every_item_type();
  fc.actors.push_back(actor);
  const uint16_t a = static_cast<uint16_t>(fc.actors.size() - 1);
  // One event of every kind, linked: action -> switch -> (fork | sub flow);
  // the fork's branch is the sub flow, which joins; the join ends.
  const uint16_t n = static_cast<uint16_t>(fc.events.size());
  const uint16_t e_action = n, e_switch = n + 1, e_fork = n + 2, e_join = n + 3, e_sub = n + 4;
  Event ev;
  ev.name = "TestAction";
  ev.data.emplace<0>(ActionEvent{.params = every_item_type(), .next = e_switch, .actor = a, .action = 1});
  fc.events.push_back(ev);
  ev.name = "TestSwitch";
  ev.data.emplace<1>(SwitchEvent{.params = std::nullopt, .cases = {SwitchCase{0, e_fork}, SwitchCase{1, e_sub}}, .actor = a, .query = 0});
  fc.events.push_back(ev);
  ev.name = "TestFork";
  ev.data.emplace<2>(ForkEvent{.forks = {e_sub}, .join = e_join});
  fc.events.push_back(ev);
  ev.name = "TestJoin";
  ev.data.emplace<3>(JoinEvent{0xFFFF});
  fc.events.push_back(ev);
  ev.name = "TestSubFlow";
  ev.data.emplace<4>(SubFlowEvent{.params = std::nullopt, .flowchart = "", .entry_point = "Talk", .next = e_join});
  fc.events.push_back(ev);
  // A new entry point on the chain, and a renamed one.
  EntryPoint ep;
  ep.name = "TestEntry";
  ep.main_event = e_action;
  fc.entry_points.push_back(ep);
  fc.entry_points.at(0).name = "RenamedEntry";

  const auto bytes = encode(f);
  const File back = decode(bytes);
  File expected = f;
  hooks::sub_flow_events(expected.flowcharts.at(0));
  BOOST_TEST((back == expected));
  BOOST_TEST((back.flowcharts[0].entry_points.back().sub_flow_events == std::vector<uint16_t>{e_sub}));
  BOOST_TEST(back.flowcharts[0].entry_points[0].name == "RenamedEntry");
  check_relocation_table(bytes);
  // And through text.
  BOOST_TEST((encode(from_text(to_text(back, binschema::TextKind::Yaml))) == bytes));
}

BOOST_AUTO_TEST_CASE(edited_timeline_reads_back_as_edited) {
  File f = decode_sample("Demo103_0.bfevtm");
  Timeline& tl = f.timelines.at(0);
  const size_t clips = tl.clips.size();
  Clip clip;
  clip.start = 1.25f;
  clip.duration = 2.0f;
  clip.actor = 0;
  clip.action = 0;
  clip.params = every_item_type();
  tl.clips.push_back(clip);
  const auto bytes = encode(f);
  const File back = decode(bytes);
  File expected = f;
  hooks::clip_triggers(expected.timelines.at(0));
  BOOST_TEST((back == expected));
  BOOST_TEST(back.timelines[0].triggers.size() == 2 * (clips + 1));
  check_relocation_table(bytes);
}

BOOST_AUTO_TEST_CASE(unsupported_item_types_are_refused_with_type_and_offset) {
  auto bytes = samples::read(samples::dir("bfevfl") / "CompleteDungeon.bfevfl");
  File f = decode(bytes);
  // Find an item's type byte through the written layout: the int item is the
  // first item of the first event's container.
  const auto again = encode(f);
  BOOST_REQUIRE((again == bytes));
  binschema::Reader<std::endian::little> r(bytes);
  const uint64_t event = r.at<uint64_t>(0x90 + 0x30);
  const uint64_t container = r.at<uint64_t>(event + 0x10);
  const uint64_t item = r.at<uint64_t>(container + 0x10);
  bytes[item] = 6;  // wide string: in no known file
  try {
    decode(bytes);
    BOOST_FAIL("accepted");
  } catch (const binschema::DecodeError& e) {
    BOOST_TEST(std::string(e.what()).find("value: type 6 is not a supported case") != std::string::npos, e.what());
    BOOST_TEST(std::string(e.what()).find("(at " + binschema::hex(item + 0x10) + ")") != std::string::npos, e.what());
  }
}

// evfl keeps a timeline's trigger list and sorts it stably by time when it
// writes, so after a user reorders clips in it, triggers at equal times are
// no longer ends first and by clip index (binschema's order for a fresh
// model). Such a file is made here: a timeline written by binschema, its
// trigger table then rewritten in an order evfl could have left. It reads and
// writes back byte for byte, directly and through YAML and JSON; an added
// clip's triggers go after the kept ones at equal times.
BOOST_AUTO_TEST_CASE(an_evfl_timeline_keeps_its_order_of_equal_time_triggers) {
  File f;
  f.name = "TriggerOrder";
  Timeline tl;
  tl.name = "TriggerOrder";
  tl.duration = 4.0f;
  Actor npc;
  npc.name = "Npc";
  npc.actions = {"Walk", "Talk"};
  tl.actors.push_back(npc);
  auto clip = [](float start, float duration, uint16_t action) {
    Clip c;
    c.start = start;
    c.duration = duration;
    c.action = action;
    return c;
  };
  tl.clips = {clip(0, 2, 0), clip(0, 2, 1), clip(2, 1, 0), clip(2, 2, 1)};
  f.timelines.push_back(tl);
  const std::vector<uint8_t> fresh = encode(f);
  {
    // A fresh model: by time, ends first, then by clip index.
    const File back = decode(fresh);
    const std::vector<Trigger> ours = {{0, 1}, {1, 1}, {0, 2}, {1, 2}, {2, 1}, {3, 1}, {2, 2}, {3, 2}};
    BOOST_TEST((back.timelines.at(0).triggers == ours));
  }
  // The trigger table: the header's pointer at 0x40 (the header starts with TLIN).
  const std::vector<uint8_t> magic = {'T', 'L', 'I', 'N'};
  const auto header = std::search(fresh.begin(), fresh.end(), magic.begin(), magic.end()) - fresh.begin();
  BOOST_REQUIRE(header < static_cast<std::ptrdiff_t>(fresh.size()));
  const uint64_t table = binschema::Reader<std::endian::little>(fresh).at<uint64_t>(header + 0x40);
  const std::vector<Trigger> evfl = {{1, 1}, {0, 1}, {3, 1}, {1, 2}, {2, 1}, {0, 2}, {2, 2}, {3, 2}};
  std::vector<uint8_t> file = fresh;
  for (size_t i = 0; i < evfl.size(); ++i) {
    BOOST_REQUIRE(table + 4 * i + 4 <= file.size());
    file[table + 4 * i] = static_cast<uint8_t>(evfl[i].clip);
    file[table + 4 * i + 1] = 0;
    file[table + 4 * i + 2] = evfl[i].kind;
  }
  BOOST_REQUIRE((file != fresh));

  const File model = decode(file);
  BOOST_TEST((model.timelines.at(0).triggers == evfl));
  const auto direct = encode(model);
  BOOST_TEST((direct == file), first_difference(direct, file));
  for (auto kind : {binschema::TextKind::Yaml, binschema::TextKind::Json}) {
    const auto through_text = encode(from_text(to_text(model, kind)));
    BOOST_TEST((through_text == file), first_difference(through_text, file));
  }

  // An edit: a fifth clip ties with others at 2 and 3 seconds.
  File edited = model;
  edited.timelines[0].clips.push_back(clip(2, 1, 1));
  const File back = decode(encode(edited));
  const std::vector<Trigger> expected = {{1, 1}, {0, 1}, {3, 1}, {1, 2}, {2, 1}, {0, 2}, {4, 1},
                                         {2, 2}, {4, 2}, {3, 2}};
  BOOST_TEST((back.timelines.at(0).triggers == expected));
  // A trigger list that names a clip twice or one that is gone is put right.
  edited = model;
  edited.timelines[0].clips.pop_back();
  edited.timelines[0].triggers.push_back({1, 1});
  const std::vector<Trigger> without_3 = {{1, 1}, {0, 1}, {1, 2}, {2, 1}, {0, 2}, {2, 2}};
  BOOST_TEST((decode(encode(edited)).timelines.at(0).triggers == without_3));
  // A clip at NaN seconds: its triggers sort after all others, and what is
  // written is written again unchanged.
  edited = model;
  edited.timelines[0].clips.insert(edited.timelines[0].clips.begin() + 1, clip(std::nanf(""), 1, 0));
  const auto once = encode(edited);
  BOOST_TEST((encode(decode(once)) == once));
  const auto& nan_last = decode(once).timelines.at(0).triggers;
  BOOST_TEST(nan_last.size() == 10u);
  BOOST_TEST((nan_last[8] == Trigger{1, 1}));
  BOOST_TEST((nan_last[9] == Trigger{1, 2}));
}
