// ASB (EPD Animation Sequence Binary, little-endian): files written out by hand
// from generated/asb.md for versions 0x40F, 0x410 and 0x417 decode to the
// expected values and re-encode byte for byte; the version-dependent sizes
// (header, command, bodies, calculation presets) are where the docs put them;
// blackboard file references carry MurmurHash3 hashes of the path, stem and
// extension; unsupported versions and damaged files are refused cleanly; the
// example document with every node type survives binary, YAML and JSON.
#define BOOST_TEST_MODULE asb_test
#include <boost/test/unit_test.hpp>

#include "bytes.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "asb_text.h"
#include "layout_check.h"
#include "binschema/format.h"
#include "binschema/hash.h"
#include "binschema/layout.h"
#include "binschema/text.h"

using namespace binschema::asb;

namespace {

using LE = LittleBytes;

// Param flags used below (bits as in generated/asb.md, ParamF).
constexpr uint32_t kBlackboard3Select1 = 0x90000003;  // indirect, select 1, blackboard index 3
constexpr uint32_t kPreset0 = 0xC0000000;             // indirect, preset, index 0
constexpr uint32_t kExb2 = 0x81000002;                // indirect, exb, index 2

// A GUID: u32, u16, u16, 8 bytes.
void guid(LE& f, uint8_t n) {
  f.u32(0xA0000000u + n).u16(static_cast<uint16_t>(0x1000 + n)).u16(static_cast<uint16_t>(0x4000 + n));
  for (uint8_t i = 0; i < 8; ++i) f.u8(static_cast<uint8_t>(n * 0x10 + i));
}

// The hand-made file and the positions the layout tests look at.
struct Hand {
  std::vector<uint8_t> b;
  size_t header_size = 0, command_size = 0, nodes = 0, bodies = 0, tag_group = 0, pool = 0;
};

// Two commands, four nodes (BoolSelector with two children and a state
// transition, SkeletalAnimation, MaterialAnimation with a frame connection, an
// Unknown5 without body), one calculation preset, two valid tags, one tag group
// shared by command 0 (0x417 only) and node 1, one material blend (0x417 only);
// every other section empty. Written in the documented order: header,
// commands, nodes, event table, bodies (each followed by its connection
// payloads), sync indices, sync data, state transitions, events, transitions,
// command groups, blackboard, partials, bone groups, calculation presets, valid
// tags, tag groups, EXB, AS markings, material blends, enum resolves, strings.
// How other writers differ (issue 11): the string pool sorted by bytes with
// "" first (a pool of TkSharp's kind: "" is there though nothing refers to
// it), or in yet another order (here the reverse of first use); node 0 a
// FloatSelector with child count 0 (no children, no default child; one state
// transition), as dt-12345/asb reads and writes it.
enum class PoolStyle { first_use, sorted_empty_first, reversed };
struct Style {
  PoolStyle pool = PoolStyle::first_use;
  bool zero_child_selector = false;
};

Hand hand_made(uint32_t version, Style style = {}) {
  const bool v417 = version >= 0x417;
  Hand h;
  h.header_size = v417 ? 0x6C : 0x68;
  h.command_size = v417 ? 0x30 : 0x2C;

  // The string pool, in the order of first use: the order in which the writer
  // writes the references. A tag group's names enter the pool where the group
  // is first referenced (its pointer field), not where the tag groups are
  // placed after the valid tag list, as in dt-12345/asb's writer
  // (docs/notes/asb-layout.md §7): file name; per command its name, then its
  // tags; per node header its tags; then the bodies in node order; ...;
  // material blend names. 0x417: command 0's tag group pointer follows "Wait",
  // so TagA/TagB come right after it. 0x40F/0x410: commands have no tag field,
  // so the group is first referenced by node 1's header, after both command
  // names. The valid tag list and the placed tag group add nothing new.
  std::vector<std::string> pool =
      v417 ? std::vector<std::string>{"Test_Seq", "Wait", "TagA", "TagB", "Run", "Wait_Anim", "Mat_Anim", "MatBlend"}
           : std::vector<std::string>{"Test_Seq", "Wait", "Run", "TagA", "TagB", "Wait_Anim", "Mat_Anim"};
  if (style.pool == PoolStyle::sorted_empty_first) {
    std::sort(pool.begin(), pool.end());
    pool.insert(pool.begin(), "");
  } else if (style.pool == PoolStyle::reversed) {
    std::reverse(pool.begin(), pool.end());
  }
  auto S = [&](const std::string& s) -> uint32_t {
    uint32_t at = 0;
    for (const auto& p : pool) {
      if (p == s) return at;
      at += static_cast<uint32_t>(p.size() + 1);
    }
    BOOST_FAIL("string not in the pool: " << s);
    return 0;
  };

  LE f;
  f.text("ASB ", 4).u32(version).u32(S("Test_Seq"));
  f.u32(2).u32(4).u32(0).u32(0).u32(0);  // commands, nodes, events, partials, sync data
  while (f.pos() < h.header_size) f.u32(0);  // offsets: patched below
  f.put32(0x44, 1);                          // calculation preset count
  f.put32(0x4C, 0);                          // bone group count
  f.put32(0x60, 0);                          // no EXB
  f.put32(0x64, 0);                          // no command groups
  BOOST_REQUIRE(f.pos() == h.header_size);

  // Commands.
  f.u32(S("Wait"));
  const size_t cmd0_tags = f.pos();
  if (v417) f.u32(0);  // tag group: patched
  f.u32(0).f32(1.0f);  // unknown_param: immediate 1.0
  f.u32(0).s32(1);     // ignore_same_command: 1
  f.u32(4);            // interpolation type
  guid(f, 1);
  f.u16(0).u16(0);  // root node 0, unknown_2e
  BOOST_REQUIRE(f.pos() == h.header_size + h.command_size);
  f.u32(S("Run"));
  if (v417) f.u32(0);       // no tags
  f.u32(kExb2).f32(0.25f);  // unknown_param: EXB expression 2, input 0.25
  f.u32(0).s32(0);
  f.u32(0);
  guid(f, 2);
  f.u16(2).u16(3);  // root node 2, unknown_2e 3

  // Node headers: type, sync count, no-state-transition, tags, body, calc index/count, sync index, AS marking, GUID.
  h.nodes = f.pos();
  struct N {
    uint16_t type;
    uint8_t nst;
    uint16_t calc_index, calc_count;
  };
  const N nodes[] = {{static_cast<uint16_t>(style.zero_child_selector ? 1 : 21), 0, 0, 0}, {3, 1, 0, 1}, {11, 0, 1, 0}, {5, 0, 1, 0}};
  std::vector<size_t> body_slot;
  size_t node1_tags = 0;
  for (uint8_t i = 0; i < 4; ++i) {
    f.u16(nodes[i].type).u8(0).u8(nodes[i].nst);
    if (i == 1) node1_tags = f.pos();
    f.u32(0);  // tags (node 1: patched)
    body_slot.push_back(f.pos());
    f.u32(0);  // body: patched
    f.u16(nodes[i].calc_index).u16(nodes[i].calc_count).u16(0).u16(0);
    guid(f, static_cast<uint8_t>(0x10 + i));
  }
  // The event offset table: no entries.
  f.put32(0x30, static_cast<uint32_t>(f.pos()));
  h.bodies = f.pos();

  // Node 0: BoolSelector (or the FloatSelector with child count 0).
  size_t list = 0;
  f.put32(body_slot[0], static_cast<uint32_t>(f.pos()));
  if (style.zero_child_selector) {
    // FloatSelector, child count 0: no children, no default child; the
    // state-transition group starts at 0.
    f.u32(kBlackboard3Select1).f32(0.5f);  // value: blackboard index 3, default 0.5
    f.u32(0).u32(0);                       // is_sync: false
    f.u32(1);                              // force_run
    for (uint8_t v : {0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 1}) f.u8(v);
    const size_t one = f.pos();
    f.u32(0);
    f.put32(one, static_cast<uint32_t>(f.pos()));
    if (v417) f.s32(-1);  // no state transition entry
    f.u32(3);             // node 3
  } else {
    f.u32(kBlackboard3Select1).u32(1);  // value: blackboard index 3, default true
    f.u32(0).u32(0);                    // is_sync: false
    f.u32(1);                           // force_run
    // (count, base) for state, unknown, child, state transition, event, frame.
    for (uint8_t v : {0, 0, 0, 0, 2, 0, 1, 2, 0, 3, 0, 3}) f.u8(v);
    list = f.pos();
    f.u32(0).u32(0).u32(0);
    f.put32(list, static_cast<uint32_t>(f.pos()));
    f.u32(1);  // child 0: node 1
    f.put32(list + 4, static_cast<uint32_t>(f.pos()));
    f.u32(2);  // child 1: node 2
    f.put32(list + 8, static_cast<uint32_t>(f.pos()));
    if (v417) f.s32(-1);  // no state transition entry
    f.u32(3);             // node 3
  }

  // Node 1: SkeletalAnimation, no connections.
  f.put32(body_slot[1], static_cast<uint32_t>(f.pos()));
  f.u32(0).u32(S("Wait_Anim"));
  f.u32(7).u32(0xFFFFFFFF);
  f.u32(0).u32(1);            // unknown3: true
  f.u32(kPreset0).f32(0.5f);  // unknown4: calculation preset 0
  for (int i = 0; i < 12; ++i) f.u8(0);

  // Node 2: MaterialAnimation with one frame connection.
  f.put32(body_slot[2], static_cast<uint32_t>(f.pos()));
  if (v417) f.u32(1);  // material blend 0, + 1
  f.u32(0).u32(S("Mat_Anim"));
  f.u32(0).u32(1);  // loop: true
  for (uint8_t v : {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0}) f.u8(v);
  list = f.pos();
  f.u32(0);
  f.put32(list, static_cast<uint32_t>(f.pos()));
  f.u32(1);  // frame: node 1

  // Node 3: Unknown5 has no body: its offset is where the next block starts.
  f.put32(body_slot[3], static_cast<uint32_t>(f.pos()));

  f.put32(0x3C, static_cast<uint32_t>(f.pos()));  // sync indices: none
  f.put32(0x38, static_cast<uint32_t>(f.pos()));  // sync data: none
  f.put32(0x2C, static_cast<uint32_t>(f.pos()));  // state transitions
  f.u32(0);
  f.put32(0x54, static_cast<uint32_t>(f.pos()));  // transitions: no groups, unknown 0
  f.u32(0).u32(0);
  f.put32(0x20, static_cast<uint32_t>(f.pos()));  // blackboard: empty
  for (int i = 0; i < 0x30; ++i) f.u8(0);
  f.put32(0x34, static_cast<uint32_t>(f.pos()));  // partials: none
  f.put32(0x48, static_cast<uint32_t>(f.pos()));  // bone groups: none
  f.put32(0x40, static_cast<uint32_t>(f.pos()));  // calculation presets
  f.u32(0x80000004).f32(-1.0f);
  if (v417) f.u32(2);  // mode: radians
  f.f32(1.0f).f32(0.5f).f32(0.0f).f32(-10.0f).f32(10.0f);
  f.put32(0x58, static_cast<uint32_t>(f.pos()));  // valid tags
  f.u32(2).u32(S("TagA")).u32(S("TagB"));
  h.tag_group = f.pos();  // the one tag group
  f.u32(2).u32(S("TagA")).u32(S("TagB"));
  if (v417) f.put32(cmd0_tags, static_cast<uint32_t>(h.tag_group));
  f.put32(node1_tags, static_cast<uint32_t>(h.tag_group));
  f.put32(0x5C, static_cast<uint32_t>(f.pos()));  // AS markings: none
  f.u32(0);
  if (v417) {
    f.put32(0x68, static_cast<uint32_t>(f.pos()));  // material blends
    f.u32(1).u32(S("MatBlend")).f32(0.25f);
  }
  f.put32(0x28, static_cast<uint32_t>(f.pos()));  // enum resolves: none
  f.u32(0);
  h.pool = f.pos();
  f.put32(0x24, static_cast<uint32_t>(h.pool));
  for (const auto& s : pool) f.cstr(s);
  f.put32(0x50, static_cast<uint32_t>(f.pos() - h.pool));
  h.b = f.b;
  return h;
}

std::string error_of(const std::vector<uint8_t>& bytes) {
  return decode_error_of([](const auto& b) { return binschema::asb::decode(b); }, bytes);
}

std::optional<binschema::DecodeError> decode_error(const std::vector<uint8_t>& bytes) {
  try {
    decode(bytes);
  } catch (const binschema::DecodeError& e) {
    return e;
  }
  return std::nullopt;
}

uint32_t u32_at(const std::vector<uint8_t>& b, size_t at) {
  BOOST_REQUIRE(at + 4 <= b.size());
  return uint32_t(b[at]) | uint32_t(b[at + 1]) << 8 | uint32_t(b[at + 2]) << 16 | uint32_t(b[at + 3]) << 24;
}
uint16_t u16_at(const std::vector<uint8_t>& b, size_t at) {
  BOOST_REQUIRE(at + 2 <= b.size());
  return static_cast<uint16_t>(b[at] | b[at + 1] << 8);
}
// The NUL-terminated string at `at`.
std::string cstr_at(const std::vector<uint8_t>& b, size_t at) {
  BOOST_REQUIRE(at < b.size());
  std::string s;
  while (at < b.size() && b[at] != 0) s += static_cast<char>(b[at++]);
  BOOST_REQUIRE(at < b.size());
  return s;
}
// The string whose pool-relative offset is `rel` (pool start at header 0x24).
std::string pool_str(const std::vector<uint8_t>& b, uint32_t rel) { return cstr_at(b, u32_at(b, 0x24) + rel); }

void put_u32(std::vector<uint8_t>& b, size_t at, uint32_t v) {
  for (int i = 0; i < 4; ++i) b.at(at + i) = static_cast<uint8_t>(v >> (8 * i));
}

const uint32_t kVersions[] = {0x40F, 0x410, 0x417};

}  // namespace

BOOST_AUTO_TEST_CASE(hand_made_files_decode_to_expected_values) {
  for (uint32_t version : kVersions) {
    BOOST_TEST_CONTEXT("version " << binschema::hex(version)) {
      const bool v417 = version == 0x417;
      const File f = decode(hand_made(version).b);
      BOOST_TEST(f.version == version);
      BOOST_TEST(f.file_name == "Test_Seq");

      BOOST_REQUIRE(f.commands.size() == 2u);
      const Command& c0 = f.commands[0];
      BOOST_TEST(c0.name == "Wait");
      BOOST_TEST(c0.tags.has_value() == v417);
      if (v417) BOOST_TEST((c0.tags->tags == std::vector<std::string>{"TagA", "TagB"}));
      BOOST_TEST(c0.unknown_param.value == 1.0f);
      BOOST_TEST(!c0.unknown_param.flags.indirect);
      BOOST_TEST(c0.ignore_same_command.value == 1);
      BOOST_TEST(c0.interpolation_type == 4u);
      BOOST_TEST(c0.guid.data1 == 0xA0000001u);
      BOOST_TEST(c0.guid.data2 == 0x1001u);
      BOOST_TEST(c0.guid.data3 == 0x4001u);
      BOOST_TEST(c0.guid.data4[7] == 0x17u);
      BOOST_TEST(c0.root_node == 0u);
      const Command& c1 = f.commands[1];
      BOOST_TEST(c1.name == "Run");
      BOOST_TEST(!c1.tags.has_value());
      BOOST_TEST(c1.unknown_param.flags.indirect);
      BOOST_TEST(c1.unknown_param.flags.exb);
      BOOST_TEST(!c1.unknown_param.flags.preset);
      BOOST_TEST(c1.unknown_param.flags.index == 2u);
      BOOST_TEST(c1.unknown_param.value == 0.25f);
      BOOST_TEST(c1.root_node == 2u);
      BOOST_TEST(c1.unknown_2e == 3u);

      BOOST_REQUIRE(f.nodes.size() == 4u);
      // Node types: the case index is type - 1.
      BOOST_TEST(f.nodes[0].body.index() == 20u);  // 21 BoolSelector
      BOOST_TEST(f.nodes[1].body.index() == 2u);   // 3 SkeletalAnimation
      BOOST_TEST(f.nodes[2].body.index() == 10u);  // 11 MaterialAnimation
      BOOST_TEST(f.nodes[3].body.index() == 4u);   // 5 Unknown5

      const Node& n0 = f.nodes[0];
      BOOST_TEST(!n0.tags.has_value());
      BOOST_TEST(n0.guid.data1 == 0xA0000010u);
      const auto& sel = std::get<BoolSelector>(n0.body);
      BOOST_TEST(sel.value.flags.indirect);
      BOOST_TEST(sel.value.flags.select == 1u);
      BOOST_TEST(sel.value.flags.index == 3u);
      BOOST_TEST(!sel.value.flags.exb);
      BOOST_TEST(!sel.value.flags.preset);
      BOOST_TEST(!sel.value.flags.command_data);
      BOOST_TEST(sel.value.flags.component == 0u);
      BOOST_TEST(sel.value.value == true);
      BOOST_TEST(sel.is_sync.value == false);
      BOOST_TEST(sel.force_run == 1u);
      BOOST_REQUIRE(sel.connections.children.size() == 2u);
      BOOST_TEST(sel.connections.children[0].node == 1u);
      BOOST_TEST(sel.connections.children[1].node == 2u);
      BOOST_REQUIRE(sel.connections.transitions.size() == 1u);
      BOOST_TEST(sel.connections.transitions[0].node == 3u);
      BOOST_TEST(sel.connections.transitions[0].index == (v417 ? -1 : 0));
      BOOST_TEST(sel.connections.states.empty());
      BOOST_TEST(sel.connections.frames.empty());

      const Node& n1 = f.nodes[1];
      BOOST_TEST(n1.no_state_transition == 1u);
      BOOST_REQUIRE(n1.tags.has_value());
      BOOST_TEST((n1.tags->tags == std::vector<std::string>{"TagA", "TagB"}));
      BOOST_TEST(n1.calc_index == 0u);
      BOOST_TEST(n1.calc_count == 1u);
      const auto& anim = std::get<SkeletalAnimation>(n1.body);
      BOOST_TEST(anim.animation.value == "Wait_Anim");
      BOOST_TEST(anim.unknown1 == 7u);
      BOOST_TEST(anim.unknown2 == 0xFFFFFFFFu);
      BOOST_TEST(anim.unknown3.value == true);
      BOOST_TEST(anim.unknown4.flags.indirect);
      BOOST_TEST(anim.unknown4.flags.preset);
      BOOST_TEST(anim.unknown4.flags.index == 0u);
      BOOST_TEST(anim.unknown4.value == 0.5f);
      BOOST_TEST((anim.connections == Connections{}));

      const Node& n2 = f.nodes[2];
      BOOST_TEST(n2.calc_index == 1u);
      const auto& mat = std::get<MaterialAnimation>(n2.body);
      BOOST_TEST(mat.material_blend == (v417 ? 1u : 0u));
      BOOST_TEST(mat.animation.value == "Mat_Anim");
      BOOST_TEST(mat.loop.value == true);
      BOOST_REQUIRE(mat.connections.frames.size() == 1u);
      BOOST_TEST(mat.connections.frames[0].node == 1u);
      BOOST_TEST(mat.connections.children.empty());

      BOOST_REQUIRE(f.calc_presets.size() == 1u);
      BOOST_TEST(f.calc_presets[0].source == 0x80000004u);
      BOOST_TEST(f.calc_presets[0].adjust == -1.0f);
      BOOST_TEST(f.calc_presets[0].mode == (v417 ? 2u : 0u));
      BOOST_TEST(f.calc_presets[0].default_value == 1.0f);
      BOOST_TEST(f.calc_presets[0].min == -10.0f);
      BOOST_TEST(f.calc_presets[0].max == 10.0f);
      BOOST_TEST((f.valid_tags.tags == std::vector<std::string>{"TagA", "TagB"}));
      if (v417) {
        BOOST_REQUIRE(f.material_blends.entries.size() == 1u);
        BOOST_TEST(f.material_blends.entries[0].name == "MatBlend");
        BOOST_TEST(f.material_blends.entries[0].blend_start == 0.25f);
      } else {
        BOOST_TEST(f.material_blends.entries.empty());
      }
      BOOST_TEST(!f.exb.has_value());
      BOOST_TEST(!f.command_groups.has_value());
      BOOST_TEST(f.event_groups.empty());
      BOOST_TEST(f.sync_data.empty());
      BOOST_TEST(f.sync_indices.empty());
      BOOST_TEST(f.partials.empty());
      BOOST_TEST(f.bone_groups.empty());
      BOOST_TEST(f.state_transitions.entries.empty());
      BOOST_TEST(f.transitions.groups.empty());
      BOOST_TEST(f.as_markings.entries.empty());
      BOOST_TEST(f.enum_resolves.entries.empty());
      BOOST_TEST((f.blackboard == Blackboard{}));
    }
  }
}

BOOST_AUTO_TEST_CASE(hand_made_files_reencode_byte_for_byte) {
  for (uint32_t version : kVersions) {
    BOOST_TEST_CONTEXT("version " << binschema::hex(version)) {
      const auto bytes = hand_made(version).b;
      const auto again = encode(decode(bytes));
      BOOST_TEST(again.size() == bytes.size());
      BOOST_TEST(again == bytes, boost::test_tools::per_element());
      for (auto kind : {binschema::TextKind::Yaml, binschema::TextKind::Json}) {
        const std::string text = to_text(decode(bytes), kind);
        BOOST_TEST((encode(from_text(text)) == bytes));
      }
    }
  }
  // 0x410 is laid out like 0x40F: the files differ only in the version.
  auto v410 = hand_made(0x410).b;
  v410[4] = 0x0F;
  BOOST_TEST((v410 == hand_made(0x40F).b));
}

BOOST_AUTO_TEST_CASE(version_0x40f_has_no_command_tags_and_no_material_blend_pointer) {
  // Looked at in what the writer makes of the decoded model, not in the hand-made bytes.
  for (uint32_t version : {0x40Fu, 0x410u}) {
    BOOST_TEST_CONTEXT("version " << binschema::hex(version)) {
      const auto b = encode(decode(hand_made(version).b));
      // The header is 0x68 bytes: the first command starts at 0x68.
      BOOST_TEST(pool_str(b, u32_at(b, 0x68)) == "Wait");
      // A command is 0x2C bytes: no tag group after the name.
      BOOST_TEST(u32_at(b, 0x68 + 4) == 0u);                 // unknown_param.flags
      BOOST_TEST(u32_at(b, 0x68 + 0x14) == 4u);              // interpolation type
      BOOST_TEST(u16_at(b, 0x68 + 0x28) == 0u);              // root node
      BOOST_TEST(pool_str(b, u32_at(b, 0x68 + 0x2C)) == "Run");
      BOOST_TEST(u32_at(b, 0x68 + 0x2C + 4) == kExb2);
      BOOST_TEST(u16_at(b, 0x68 + 0x2C + 0x28) == 2u);
      // The node table follows the two commands; the event table the nodes.
      const size_t nodes = 0x68 + 2 * 0x2C;
      BOOST_TEST(u16_at(b, nodes) == 21u);
      BOOST_TEST(u16_at(b, nodes + 0x24) == 3u);
      // With no command tags, node 1's header is the first reference to the
      // tag group: its names enter the pool there, after both command names.
      const uint32_t tags = u32_at(b, nodes + 0x24 + 4);
      BOOST_TEST(pool_str(b, u32_at(b, tags + 4)) == "TagA");
      BOOST_TEST(u32_at(b, tags + 4) == 18u);  // after "Test_Seq\0Wait\0Run\0"
      BOOST_TEST(u32_at(b, 0x68 + 0x2C) == 14u);  // "Run", after "Test_Seq\0Wait\0"
      BOOST_TEST(u32_at(b, 0x30) == nodes + 4 * 0x24);
      // The first body (BoolSelector) starts right after: its state-transition
      // payload is a node index alone, 4 bytes.
      const size_t body = u32_at(b, nodes + 8);
      BOOST_TEST(body == nodes + 4 * 0x24);
      BOOST_TEST(u32_at(b, body + 0x14 + 0xC + 8) == body + 0x14 + 0xC + 0xC + 8);  // transition offset
      BOOST_TEST(u32_at(b, nodes + 0x24 + 8) == body + 0x14 + 0xC + 0xC + 4 + 4 + 4);  // next body
    }
  }
  {
    const auto b = encode(decode(hand_made(0x417).b));
    // The header is 0x6C bytes: 0x68 points at the material blends.
    const uint32_t blends = u32_at(b, 0x68);
    BOOST_TEST(u32_at(b, blends) == 1u);
    BOOST_TEST(pool_str(b, u32_at(b, blends + 4)) == "MatBlend");
    // Commands are 0x30 bytes, with a tag group pointer at +4.
    BOOST_TEST(pool_str(b, u32_at(b, 0x6C)) == "Wait");
    const uint32_t tags = u32_at(b, 0x6C + 4);
    BOOST_TEST(tags == hand_made(0x417).tag_group);
    BOOST_TEST(u32_at(b, tags) == 2u);  // u32 n, n x u32 string offset
    BOOST_TEST(pool_str(b, u32_at(b, tags + 4)) == "TagA");
    BOOST_TEST(pool_str(b, u32_at(b, tags + 8)) == "TagB");
    // The group's names enter the pool where command 0 references it, right
    // after its name "Wait", so "Run" follows them.
    BOOST_TEST(u32_at(b, tags + 4) == 14u);  // after "Test_Seq\0Wait\0"
    BOOST_TEST(u32_at(b, tags + 8) == 19u);
    BOOST_TEST(pool_str(b, u32_at(b, 0x6C + 0x30)) == "Run");
    BOOST_TEST(u32_at(b, 0x6C + 0x30) == 24u);  // after "Test_Seq\0Wait\0TagA\0TagB\0"
    BOOST_TEST(u32_at(b, 0x6C + 0x30 + 4) == 0u);  // no tags
    BOOST_TEST(u16_at(b, 0x6C + 0x30 + 0x2C) == 2u);
    const size_t nodes = 0x6C + 2 * 0x30;
    BOOST_TEST(u16_at(b, nodes) == 21u);
    BOOST_TEST(u32_at(b, nodes + 0x24 + 4) == tags);  // node 1 shares the command's tag group
    BOOST_TEST(u32_at(b, 0x30) == nodes + 4 * 0x24);
    const size_t body = u32_at(b, nodes + 8);
    // State-transition payload: index, then node (8 bytes).
    const size_t payload = u32_at(b, body + 0x14 + 0xC + 8);
    BOOST_TEST(u32_at(b, payload) == 0xFFFFFFFFu);
    BOOST_TEST(u32_at(b, payload + 4) == 3u);
    BOOST_TEST(u32_at(b, nodes + 0x24 + 8) == payload + 8);
  }
  // The sizes of the other version-dependent structs (whole file).
  BOOST_TEST(hand_made(0x417).b.size() ==
             hand_made(0x40F).b.size() + 4 /*header*/ + 2 * 4 /*commands*/ + 4 /*state transition ref*/ +
                 4 /*MaterialAnimation*/ + 4 /*calc preset mode*/ + 12 /*material blends*/ + 9 /*"MatBlend"*/);

  // A 0x40F model cannot hold what only 0x417 stores.
  const File v40f = decode(hand_made(0x40F).b);
  BOOST_CHECK_NO_THROW(encode(v40f));
  {
    File m = v40f;
    m.commands[1].tags = TagGroup{{"TagA"}};
    BOOST_CHECK_THROW(encode(m), binschema::EncodeError);
    m.version = 0x417;  // the same model is fine as 0x417
    BOOST_TEST((decode(encode(m)).commands[1].tags->tags == std::vector<std::string>{"TagA"}));
  }
  {
    File m = v40f;
    m.material_blends.entries.push_back(MaterialBlend{"Blend", 1.0f});
    BOOST_CHECK_THROW(encode(m), binschema::EncodeError);
    m.version = 0x410;
    BOOST_CHECK_THROW(encode(m), binschema::EncodeError);
  }
  {
    File m = v40f;
    std::get<MaterialAnimation>(m.nodes[2].body).material_blend = 1;
    BOOST_CHECK_THROW(encode(m), binschema::EncodeError);
  }
  {
    File m = v40f;
    m.calc_presets[0].mode = 1;
    BOOST_CHECK_THROW(encode(m), binschema::EncodeError);
  }
}

BOOST_AUTO_TEST_CASE(blackboard_file_references_hold_murmur3_hashes) {
  // Known MurmurHash3 x86_32 (seed 0) values, computed by an independent
  // implementation (Python), checked against the published
  // "The quick brown fox..." value 0x2e4ff723.
  BOOST_TEST(binschema::murmur3_x86_32("Actor/Foo.bfres") == 0x8411e88du);
  BOOST_TEST(binschema::murmur3_x86_32("Foo") == 0x4ea87383u);
  BOOST_TEST(binschema::murmur3_x86_32("bfres") == 0xe5824d1au);
  BOOST_TEST(binschema::path_stem("a/b.c.d") == "b.c");
  BOOST_TEST(binschema::path_extension("a/b.c.d") == "d");
  BOOST_TEST(binschema::path_stem("Dir/README") == "README");
  BOOST_TEST(binschema::path_extension("Dir/README") == "");

  File f{};
  f.file_name = "bb";
  auto entry = [](const std::string& name, std::optional<uint8_t> file) {
    BBEntry e{};
    e.word.name = name;
    e.word.has_file = file.has_value();
    e.word.file_index = file.value_or(0);
    return e;
  };
  f.blackboard.string_entries = {entry("Model", 0)};
  f.blackboard.string_values = {"Npc"};
  f.blackboard.int_entries = {entry("Count", std::nullopt)};
  f.blackboard.int_values = {3};
  f.blackboard.float_entries = {entry("Speed", 1), entry("Range", 2)};
  f.blackboard.float_values = {1.5f, 2.5f};
  f.blackboard.file_refs = {FileRef{"Actor/Foo.bfres"}, FileRef{"a/b.c.d"}, FileRef{"Dir/README"}};

  const auto b = encode(f);
  BOOST_TEST((decode(b) == f));
  const size_t bb = u32_at(b, 0x20);
  // Type headers: count, base, value offset (bytes into the value area), 0.
  BOOST_TEST(u16_at(b, bb + 0x00) == 1u);
  BOOST_TEST(u16_at(b, bb + 0x08) == 1u);
  BOOST_TEST(u16_at(b, bb + 0x0A) == 1u);
  BOOST_TEST(u16_at(b, bb + 0x0C) == 4u);
  BOOST_TEST(u16_at(b, bb + 0x10) == 2u);
  BOOST_TEST(u16_at(b, bb + 0x12) == 2u);
  BOOST_TEST(u16_at(b, bb + 0x14) == 8u);
  BOOST_TEST(u16_at(b, bb + 0x1A) == 4u);
  BOOST_TEST(u16_at(b, bb + 0x1C) == 16u);
  BOOST_TEST(u16_at(b, bb + 0x24) == 16u);
  BOOST_TEST(u16_at(b, bb + 0x2C) == 16u);
  // Entries: has_file (bit 31), file index (bits 24-30), name (bits 0-21).
  const uint32_t model = u32_at(b, bb + 0x30);
  BOOST_TEST((model >> 31) == 1u);
  BOOST_TEST(((model >> 24) & 0x7F) == 0u);
  BOOST_TEST(pool_str(b, model & 0x3FFFFF) == "Model");
  const uint32_t count = u32_at(b, bb + 0x34);
  BOOST_TEST((count >> 31) == 0u);
  BOOST_TEST(pool_str(b, count & 0x3FFFFF) == "Count");
  const uint32_t range = u32_at(b, bb + 0x3C);
  BOOST_TEST((range >> 24) == 0x82u);
  BOOST_TEST(pool_str(b, range & 0x3FFFFF) == "Range");
  // Values: 4 entries of 4 bytes, then the file references (0x10 each).
  const size_t values = bb + 0x30 + 4 * 4;
  BOOST_TEST(pool_str(b, u32_at(b, values)) == "Npc");
  BOOST_TEST(u32_at(b, values + 4) == 3u);
  const size_t refs = values + 4 * 4;
  const std::string paths[] = {"Actor/Foo.bfres", "a/b.c.d", "Dir/README"};
  for (size_t i = 0; i < 3; ++i) {
    const size_t r = refs + i * 0x10;
    BOOST_TEST_CONTEXT(paths[i]) {
      BOOST_TEST(pool_str(b, u32_at(b, r)) == paths[i]);
      BOOST_TEST(u32_at(b, r + 4) == binschema::murmur3_x86_32(paths[i]));
      BOOST_TEST(u32_at(b, r + 8) == binschema::murmur3_x86_32(binschema::path_stem(paths[i])));
      BOOST_TEST(u32_at(b, r + 12) == binschema::murmur3_x86_32(binschema::path_extension(paths[i])));
    }
  }
  // The same, against the independently computed values.
  BOOST_TEST(u32_at(b, refs + 0x04) == 0x8411e88du);  // "Actor/Foo.bfres"
  BOOST_TEST(u32_at(b, refs + 0x08) == 0x4ea87383u);  // "Foo"
  BOOST_TEST(u32_at(b, refs + 0x0C) == 0xe5824d1au);  // "bfres"
  BOOST_TEST(u32_at(b, refs + 0x14) == 0x0c89566du);  // "a/b.c.d"
  BOOST_TEST(u32_at(b, refs + 0x18) == 0x92ec9d20u);  // "b.c"
  BOOST_TEST(u32_at(b, refs + 0x1C) == 0x27191473u);  // "d"
  BOOST_TEST(u32_at(b, refs + 0x24) == 0x454bb87fu);  // "Dir/README"
  BOOST_TEST(u32_at(b, refs + 0x28) == 0xfa339dc6u);  // "README"
  BOOST_TEST(u32_at(b, refs + 0x2C) == 0x00000000u);  // ""
  // The file references are the last thing in the blackboard: partials follow.
  BOOST_TEST(u32_at(b, 0x34) == refs + 3 * 0x10);

  // As many file references as the highest index used + 1.
  File bad = f;
  bad.blackboard.file_refs.pop_back();
  BOOST_CHECK_THROW(encode(bad), binschema::EncodeError);
}

BOOST_AUTO_TEST_CASE(unsupported_versions_are_refused_with_field_offset_and_value) {
  for (uint32_t version : {0x418u, 0x407u, 0x3FBu, 0x304u, 0x41Au}) {
    BOOST_TEST_CONTEXT("version " << binschema::hex(version)) {
      auto bytes = hand_made(0x417).b;
      put_u32(bytes, 4, version);
      const auto e = decode_error(bytes);
      BOOST_REQUIRE(e.has_value());
      BOOST_TEST(e->path() == "version");
      BOOST_TEST(e->offset() == 0x4u);
      const std::string what = e->what();
      BOOST_TEST(what.rfind("version: ", 0) == 0u, what);
      BOOST_TEST(what.find(binschema::hex(version)) != std::string::npos, what);
      BOOST_TEST(what.find("(at 0x4)") != std::string::npos, what);
      File m = decode(hand_made(0x417).b);
      m.version = version;
      BOOST_CHECK_THROW(encode(m), binschema::EncodeError);
    }
  }
  auto bytes = hand_made(0x40F).b;
  put_u32(bytes, 4, 0x418);
  BOOST_TEST(error_of(bytes) == "version: unsupported version 0x418 (supported: 0x40f, 0x410, 0x417) (at 0x4)");
}

BOOST_AUTO_TEST_CASE(truncations_and_corruption_never_crash) {
  const auto full = hand_made(0x417).b;
  for (size_t n = 0; n < full.size(); ++n) {
    std::vector<uint8_t> cut(full.begin(), full.begin() + static_cast<long>(n));
    const std::string e = error_of(cut);
    BOOST_TEST(e.find("0x") != std::string::npos, "length " << n << ": " << e);
  }
  // Random damage (fixed seed): decodes or throws DecodeError, nothing else.
  // Any other exception escapes and fails the test case.
  for (uint32_t version : {0x417u, 0x40Fu}) {
    const auto base = hand_made(version).b;
    std::mt19937 rng(version);
    int refused = 0, decoded = 0;
    for (int round = 0; round < 4000; ++round) {
      auto bad = base;
      const int flips = 1 + static_cast<int>(rng() % 3);
      for (int k = 0; k < flips; ++k) bad[rng() % bad.size()] = static_cast<uint8_t>(rng());
      try {
        const File f = decode(bad);
        ++decoded;
        (void)f;
      } catch (const binschema::DecodeError& e) {
        ++refused;
        BOOST_TEST(std::string(e.what()).find("0x") != std::string::npos, e.what());
      }
    }
    BOOST_TEST(refused + decoded == 4000);
    BOOST_TEST(refused > 0);
  }
  // Huge counts are refused before any allocation.
  auto bad = full;
  put_u32(bad, 0xC, 0xFFFFFFFF);
  BOOST_TEST(error_of(bad).rfind("commands: count 4294967295", 0) == 0u, error_of(bad));
  bad = full;
  put_u32(bad, 0x10, 0xFFFFFFFF);
  BOOST_TEST(error_of(bad).rfind("nodes: count 4294967295", 0) == 0u, error_of(bad));
  bad = full;
  put_u32(bad, u32_at(full, 0x58), 0xFFFFFFFF);  // valid tag count
  BOOST_TEST(error_of(bad).find("valid_tags.tags: count 4294967295") == 0u, error_of(bad));
}

BOOST_AUTO_TEST_CASE(every_node_example_survives_binary_yaml_and_json) {
  const std::string path = std::string(BINSCHEMA_SOURCE_DIR) + "/examples/asb-every-node.yaml";
  const File model = from_text(binschema::text::load_file(path));
  const auto bytes = encode(model);
  const File back = decode(bytes);
  BOOST_TEST((back == model));
  BOOST_TEST((encode(back) == bytes));
  for (auto kind : {binschema::TextKind::Yaml, binschema::TextKind::Json}) {
    const File again = from_text(to_text(back, kind));
    BOOST_TEST((again == model));
    BOOST_TEST((encode(again) == bytes));
  }
  // One node of each of the 25 types.
  std::set<size_t> types;
  for (const Node& n : model.nodes) types.insert(n.body.index());
  BOOST_TEST(types.size() == 25u);
  // Every section is in it.
  BOOST_TEST(!model.commands.empty());
  BOOST_TEST(!model.event_groups.empty());
  BOOST_TEST(!model.sync_data.empty());
  BOOST_TEST(!model.state_transitions.entries.empty());
  BOOST_TEST(!model.transitions.groups.empty());
  BOOST_TEST(model.command_groups.has_value());
  BOOST_TEST(!model.blackboard.file_refs.empty());
  BOOST_TEST(!model.partials.empty());
  BOOST_TEST(!model.bone_groups.empty());
  BOOST_TEST(!model.calc_presets.empty());
  BOOST_TEST(model.exb.has_value());
  BOOST_TEST(!model.as_markings.entries.empty());
  BOOST_TEST(!model.material_blends.entries.empty());
  BOOST_TEST(!model.enum_resolves.entries.empty());
}

// ---- Files from other writers (issue 11) ------------------------------------

BOOST_AUTO_TEST_CASE(an_exb_offset_must_point_at_the_exb_magic) {
  const File model = from_text(binschema::text::load_file(std::string(BINSCHEMA_SOURCE_DIR) + "/examples/asb-every-node.yaml"));
  auto bytes = encode(model);
  const uint32_t exb = u32_at(bytes, 0x60);
  BOOST_REQUIRE(exb != 0u);
  BOOST_TEST(std::string(bytes.begin() + exb, bytes.begin() + exb + 4) == "EXB ");
  bytes[exb] = 'X';
  BOOST_TEST(error_of(bytes) == "exb.magic: expected \"EXB \", found \"XXB \" (at " + binschema::hex(exb) + ")", error_of(bytes));
}

namespace {

// The pool's strings (header 0x24, size at 0x50), in their order.
std::vector<std::string> pool_strings(const std::vector<uint8_t>& b) {
  std::vector<std::string> out;
  size_t at = u32_at(b, 0x24);
  const size_t end = at + u32_at(b, 0x50);
  while (at < end) {
    out.push_back(cstr_at(b, at));
    at += out.back().size() + 1;
  }
  return out;
}

// A file from another writer decodes with its layout and is given back byte
// for byte: directly, through YAML and JSON, and through the format's text
// entry points (what `binschema decode` and `encode` run).
void given_back(const std::vector<uint8_t>& bytes, const std::string& what) {
  BINSCHEMA_EXPECT_SAME_BYTES(binschema::asb, bytes, what);
}

// The node-0 selector of a hand-made file with Style::zero_child_selector.
FloatSelectorConnections& selector(File& f) { return std::get<FloatSelector>(f.nodes.at(0).body).connections; }

}  // namespace

BOOST_AUTO_TEST_CASE(zero_child_selectors_read_and_write_back) {
  for (uint32_t v : kVersions) {
    const Hand h = hand_made(v, {.zero_child_selector = true});
    // Refused before: "child_count - 1 is 0 - 1, below zero".
    BOOST_REQUIRE_MESSAGE(error_of(h.b).empty(), error_of(h.b));
    File m = decode(h.b);
    BOOST_REQUIRE(std::holds_alternative<FloatSelector>(m.nodes[0].body));
    const FloatSelectorConnections& c = selector(m);
    BOOST_TEST(c.children.empty());
    BOOST_TEST(!c.default_child.has_value());
    BOOST_REQUIRE(c.transitions.size() == 1u);
    BOOST_TEST(c.transitions[0].node == 3u);
    // binschema's writer lays it out as the other writer did: no layout needed.
    BOOST_TEST((encode(m) == h.b), binschema::hex(v));
    given_back(h.b, "zero-child selector " + binschema::hex(v));
    // The text says so plainly: no default child (its if: is false, so it is
    // left out), the children an empty list; and it reads back as such.
    const std::string yaml = to_text(m, binschema::TextKind::Yaml);
    BOOST_TEST(yaml.find("default_child") == std::string::npos, yaml);
    BOOST_TEST(yaml.find("children: []") != std::string::npos, yaml);
    BOOST_TEST((from_text(yaml) == m));
    const std::string json = to_text(m, binschema::TextKind::Json);
    BOOST_TEST(json.find("\"default_child\"") == std::string::npos);
    BOOST_TEST((from_text(json) == m));

    // Edit: a child and a default child added. Child count 2, the
    // state-transition group after them (base 2), and back to the same model.
    File e = m;
    FloatChild child;
    child.max.value = 1.0f;
    child.node = 1;
    selector(e).children.push_back(child);
    FloatDefault def;
    def.node = 2;
    selector(e).default_child = def;
    const auto out = encode(e);
    const size_t body = u32_at(out, h.nodes + 8);
    BOOST_TEST(int(out.at(body + 0x14 + 4)) == 2);  // child count, the default child included
    BOOST_TEST(int(out.at(body + 0x14 + 7)) == 2);  // state-transition base
    const File back = decode(out);
    BOOST_TEST((back == e));
    BOOST_TEST(selector(const_cast<File&>(back)).default_child->node == 2u);
    // A default child without other children: child count 1.
    File d = m;
    selector(d).default_child = def;
    const auto out_d = encode(d);
    BOOST_TEST(int(out_d.at(u32_at(out_d, h.nodes + 8) + 0x14 + 4)) == 1);
    BOOST_TEST((decode(out_d) == d));
    // Children but no default child: its offset is null, and reads back as absent.
    File n = e;
    selector(n).default_child.reset();
    const auto out_n = encode(n);
    BOOST_TEST((decode(out_n) == n));
    BOOST_TEST((encode(decode(out_n)) == out_n));
  }
}

BOOST_AUTO_TEST_CASE(a_sorted_pool_with_an_empty_string_first_is_given_back) {
  for (uint32_t v : kVersions) {
    const Hand h = hand_made(v, {.pool = PoolStyle::sorted_empty_first});
    const Hand own = hand_made(v);
    const File m = decode(h.b);
    // The same model as binschema's own file; without a layout it is written in first-use order.
    BOOST_TEST((m == decode(own.b)));
    BOOST_TEST((encode(m) == own.b));
    binschema::Layout lay;
    (void)decode(h.b, lay);
    BOOST_REQUIRE(lay.pools.size() == 1u);
    BOOST_TEST(lay.pools[0].pool == "strings");
    BOOST_TEST(lay.pools[0].sorted);
    BOOST_TEST(lay.pools[0].order.empty());
    BOOST_TEST((lay.pools[0].unused == std::vector<std::string>{""}));
    BOOST_TEST(lay.at.empty());  // nothing else differs
    given_back(h.b, "sorted pool " + binschema::hex(v));
    // The text entry is compact: the mode and the one string nothing refers to.
    const binschema::text::Doc doc = binschema::text::load(to_text(m, binschema::TextKind::Yaml, &lay));
    const binschema::text::Node layout = doc.root().get("layout");
    BOOST_TEST(layout.get("pools").get("strings").get("order").scalar() == "sorted");
    BOOST_TEST(layout.get("pools").get("strings").get("unused").size() == 1u);
    BOOST_TEST(!layout.get("at"));

    // Edit: "Run" renamed "Idle" (a new string), and a command renamed to one that sorts last.
    File e = m;
    e.commands[1].name = "Idle";
    e.commands[0].name = "zz_Wait";
    const auto out = encode(e, lay);
    const auto strings = pool_strings(out);
    BOOST_TEST(std::is_sorted(strings.begin(), strings.end()));
    BOOST_TEST(strings.front() == "");  // kept though nothing refers to it
    BOOST_TEST(std::count(strings.begin(), strings.end(), "Idle") == 1);
    BOOST_TEST(std::count(strings.begin(), strings.end(), "zz_Wait") == 1);
    BOOST_TEST(std::count(strings.begin(), strings.end(), "Run") == 0);  // no longer used: gone
    BOOST_TEST(std::count(strings.begin(), strings.end(), "Wait") == 0);
    BOOST_TEST((decode(out) == e));
    // Everything before the pool is where it was.
    BOOST_TEST(u32_at(out, 0x24) == u32_at(h.b, 0x24));
  }
}

BOOST_AUTO_TEST_CASE(a_pool_in_another_order_is_kept_as_a_list) {
  const Hand h = hand_made(0x417, {.pool = PoolStyle::reversed});
  binschema::Layout lay;
  const File m = decode(h.b, lay);
  BOOST_TEST((encode(m) == hand_made(0x417).b));  // fresh: first use
  BOOST_REQUIRE(lay.pools.size() == 1u);
  BOOST_TEST(!lay.pools[0].sorted);
  BOOST_TEST(lay.pools[0].unused.empty());
  BOOST_TEST((lay.pools[0].order == pool_strings(h.b)));
  given_back(h.b, "reversed pool");
  const binschema::text::Doc doc = binschema::text::load(to_text(m, binschema::TextKind::Yaml, &lay));
  BOOST_TEST(doc.root().get("layout").get("pools").get("strings").is_seq());

  // Edit: a new string goes after the listed ones; a string no longer used leaves its place.
  File e = m;
  e.commands[1].name = "Idle";  // "Run" is used nowhere else
  auto expected = pool_strings(h.b);
  expected.erase(std::find(expected.begin(), expected.end(), "Run"));
  expected.push_back("Idle");
  const auto out = encode(e, lay);
  BOOST_TEST((pool_strings(out) == expected));
  BOOST_TEST((decode(out) == e));
}

BOOST_AUTO_TEST_CASE(a_sorted_pool_and_a_zero_child_selector_together) {
  for (uint32_t v : kVersions) {
    const Hand h = hand_made(v, {.pool = PoolStyle::sorted_empty_first, .zero_child_selector = true});
    given_back(h.b, "both " + binschema::hex(v));
    // Edit: a default child added; the pool stays sorted with "" first.
    binschema::Layout lay;
    File e = decode(h.b, lay);
    FloatDefault def;
    def.value.value = "Fallback";
    def.node = 2;
    selector(e).default_child = def;
    const auto out = encode(e, lay);
    const auto strings = pool_strings(out);
    BOOST_TEST(std::is_sorted(strings.begin(), strings.end()));
    BOOST_TEST(strings.front() == "");
    BOOST_TEST(std::count(strings.begin(), strings.end(), "Fallback") == 1);
    BOOST_TEST((decode(out) == e));
  }
}

BOOST_AUTO_TEST_CASE(pool_order_in_the_text_is_checked) {
  const Hand h = hand_made(0x417, {.pool = PoolStyle::sorted_empty_first});
  const std::string yaml = to_text(decode(h.b), binschema::TextKind::Yaml);
  auto err = [&](const std::string& entry) {
    binschema::Layout l;
    try {
      (void)from_text_with_layout(binschema::text::load(yaml + entry), l);
    } catch (const std::exception& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  BOOST_TEST(err("layout:\n  pools:\n    strings: sideways\n").find("layout.pools.strings: 'sorted' or the list") != std::string::npos,
             err("layout:\n  pools:\n    strings: sideways\n"));
  BOOST_TEST(err("layout:\n  pools:\n    strings: {order: sorted, extra: 1}\n").find("unknown entry 'extra'") != std::string::npos);
  BOOST_TEST(err("layout:\n  pools:\n    strings: {unused: [\"\"]}\n").find("'order' missing") != std::string::npos);
  BOOST_TEST(err("layout:\n  pools: 3\n").find("layout.pools: a map") != std::string::npos);
  // Dropping the entry asks for the writer's own order.
  binschema::Layout none;
  const File f = from_text_with_layout(binschema::text::load(yaml), none);
  BOOST_TEST(none.empty());
  BOOST_TEST((encode(f, none) == hand_made(0x417).b));
}

// The event offset table (header 0x30) is read where its offset points: A, T
// and binschema put it right after the node headers, and a table another
// writer put elsewhere is read there and kept there; a table that runs past
// the end of the file (one placed at the end) is refused, with the field and
// the offset.
BOOST_AUTO_TEST_CASE(the_event_offset_table_is_read_where_it_points_and_refused_past_the_end) {
  const File model = from_text(binschema::text::load_file(std::string(BINSCHEMA_SOURCE_DIR) + "/examples/asb-every-node.yaml"));
  const auto bytes = encode(model);
  const uint32_t n = u32_at(bytes, 0x14);
  const uint32_t table = u32_at(bytes, 0x30);
  BOOST_REQUIRE(n >= 1u);
  // Right after the node headers (0x24 bytes each).
  BOOST_TEST(table == 0x6C + 0x30 * model.commands.size() + 0x24 * model.nodes.size());

  // Moved behind every other section, before the string pool (which ends the
  // file): the old place keeps its bytes (gap bytes now).
  auto moved = bytes;
  const uint32_t pool = u32_at(bytes, 0x24);
  moved.insert(moved.begin() + pool, bytes.begin() + table, bytes.begin() + table + 4 * n);
  put_u32(moved, 0x30, pool);
  put_u32(moved, 0x24, pool + 4 * n);
  BOOST_REQUIRE_MESSAGE(error_of(moved).empty(), error_of(moved));
  BOOST_TEST((decode(moved) == model));
  // Its layout cannot be kept (the node bodies follow the table, and blocks
  // behind union cases are laid out as binschema's writer does,
  // docs/schema-language.md §11): decode with a layout refuses it, naming the
  // first byte that would differ and its field, rather than give back other
  // bytes (issue 25). Without a layout it encodes to binschema's own layout.
  binschema::Layout lay;
  try {
    decode(moved, lay);
    BOOST_ERROR("decode(bytes, layout) of a file that would not come back did not refuse it");
  } catch (const binschema::DecodeError& e) {
    const std::string what = e.what();
    BOOST_TEST(what.find("would not come back") != std::string::npos, what);
    BOOST_TEST(!e.path().empty(), what);
    BOOST_TEST(what.find("(at 0x") != std::string::npos, what);
  }
  BOOST_TEST((encode(decode(moved)) == bytes));

  // Past the end: the last entry (or all of them) would lie beyond the file.
  const uint32_t end = static_cast<uint32_t>(bytes.size());
  for (uint32_t at : {end - 4 * n + 2, end, end + 0x100, 0xFFFFFFF0u}) {
    auto past = bytes;
    put_u32(past, 0x30, at);
    const std::string e = error_of(past);
    BOOST_TEST(e.rfind("event_groups: ", 0) == 0u, e);
    BOOST_TEST(e.find(binschema::hex(at)) != std::string::npos, e);
  }
  // An empty table at the very end of the file is no table at all: nothing is
  // read there (its offset is not given back: the pool would have to move).
  const Hand h = hand_made(0x417);
  auto empty_end = h.b;
  put_u32(empty_end, 0x30, static_cast<uint32_t>(empty_end.size()));
  BOOST_TEST((decode(empty_end) == decode(h.b)));
}
