// BAEV through the generated code: a file written out by hand from the spec
// decodes to the expected values and re-encodes to the same bytes; models
// round-trip through bytes, YAML and JSON; damaged files are refused with an
// offset and a field path and never crash.
#define BOOST_TEST_MODULE baev_test
#include <boost/test/unit_test.hpp>

#include "bytes.h"

#include <cstring>
#include <random>

#include "baev_text.h"
#include "binschema/hash.h"

using namespace binschema::baev;

namespace {

// Little-endian byte builder for hand-made fixtures.
using Bytes = LittleBytes;

const char* kClass = "Nintendo.AnimationEvent.ResourceConverter.Resource.AnimationEventArchiveResData";

// A v2.1.0 file laid out as the seed page and Jungle's writer describe it:
// one event (two indices), one action, one animation "Walk" with one trigger
// (int 42, float 0.5, string "Hello") and one hold (vec3 1,2,3).
std::vector<uint8_t> hand_made() {
  Bytes f;
  const uint32_t pool = 0x230, file_size = 0x23c;
  // File header (0xA8)
  f.text("BFFH", 4).u32(0).u32(file_size).u32(8).u64(0xA8).u32(2).u32(0x28).u64(0xF8).text(kClass, 128);
  // Section headers at 0xA8
  f.text("BFSI", 4).u32(0xF8).u32(pool - 0xF8).u32(8).u64(0xF8).text("Default", 16);
  f.text("BFSI", 4).u32(pool).u32(12).u32(1).u64(pool).text("StringPool", 16);
  BOOST_REQUIRE(f.pos() == 0xF8);
  // Default section
  f.u64(0).u8(0).u8(1).u16(2).u32(0).u64(pool).u64(0x130).u32(1).u32(0x18).u64(0x150).u32(1).u32(0x18);
  BOOST_REQUIRE(f.pos() == 0x130);
  f.u32(0xCAFE0001).u32(0).u64(0x148).u32(2).u32(4);  // event table
  f.u32(0).u32(0);                                     // its action indices
  BOOST_REQUIRE(f.pos() == 0x150);
  f.u64(0x168).u32(1).u32(0x30).u32(0xBEEF).u32(7);    // action table
  // animation table
  f.u64(pool + 7).u64(0x198).u32(1).u32(0x18).u64(0x1F8).u32(1).u32(0x18).u32(1).u32(3);
  BOOST_REQUIRE(f.pos() == 0x198);
  f.u64(0x1B0).u32(3).u32(8).f32(1.0f).f32(0.0f);      // trigger table
  f.u64(0x1C8).u64(0x1D8).u64(0x1E8);                  // its parameter pointers
  f.u32(0).u32(0).u32(42).u32(0);                      // int
  f.u32(1).u32(0).f32(0.5f).u32(0);                    // float
  f.u32(5).u32(0).u64(pool + 1);                       // string
  BOOST_REQUIRE(f.pos() == 0x1F8);
  f.u64(0x210).u32(1).u32(8).f32(2.0f).f32(10.0f);     // hold table
  f.u64(0x218);
  f.u32(3).u32(0).f32(1).f32(2).f32(3).u32(0);         // vec3
  BOOST_REQUIRE(f.pos() == pool);
  f.cstr("").cstr("Hello").cstr("Walk");
  BOOST_REQUIRE(f.pos() == file_size);
  return f.b;
}

File sample(int major) {
  File f;
  f.data.major_version = static_cast<uint16_t>(major);
  f.data.minor_version = major == 2 ? 1 : 0;
  for (uint32_t i = 0; i < 5; ++i) {
    Event e;
    e.hash = binschema::fnv1a32("Event" + std::to_string(4 - i));  // not sorted: the writer sorts
    e.action_indices = {i, (i + 1) % 3};
    f.data.events.push_back(e);
  }
  for (int a = 0; a < 3; ++a) {
    Action act;
    act.hash = binschema::fnv1a32("Action" + std::to_string(a));
    act.unknown = a;
    for (int n = 0; n < a + 1; ++n) {
      Animation an;
      an.name = "Anim" + std::to_string(n);
      an.unknown1 = n % 2;
      an.unknown2 = 40 + n;
      for (int t = 0; t < n + 1; ++t) {
        Trigger tr;
        tr.start_frame = 0.5f * t;
        Parameter p;
        p.value.emplace<0>(-t);
        tr.params.push_back(p);
        p.value.emplace<1>(0.1f * t);
        tr.params.push_back(p);
        p.value.emplace<2>(std::array<float, 3>{1.0f, -2.5f, 1e-7f});
        tr.params.push_back(p);
        p.value.emplace<3>(t % 2 ? "Hello" : "Anim0");  // shares a pool string with a name
        tr.params.push_back(p);
        (t % 2 ? an.holds : an.triggers).push_back(tr);
        if (t % 2) an.holds.back().end_frame = 9.0f;
      }
      act.animations.push_back(an);
    }
    f.data.actions.push_back(act);
  }
  return f;
}

std::string error_of(const std::vector<uint8_t>& bytes) {
  return decode_error_of([](const auto& b) { return binschema::baev::decode(b); }, bytes);
}

}  // namespace

BOOST_AUTO_TEST_CASE(hand_made_file_decodes_to_expected_values) {
  const File f = decode(hand_made());
  BOOST_TEST(f.data.major_version == 2);
  BOOST_TEST(f.data.minor_version == 1);
  BOOST_TEST(f.data.micro_version == 0);
  BOOST_REQUIRE(f.data.events.size() == 1u);
  BOOST_TEST(f.data.events[0].hash == 0xCAFE0001u);
  BOOST_TEST((f.data.events[0].action_indices == std::vector<uint32_t>{0, 0}));
  BOOST_REQUIRE(f.data.actions.size() == 1u);
  const Action& a = f.data.actions[0];
  BOOST_TEST(a.hash == 0xBEEFu);
  BOOST_TEST(a.unknown == 7u);
  BOOST_REQUIRE(a.animations.size() == 1u);
  const Animation& an = a.animations[0];
  BOOST_TEST(an.name == "Walk");
  BOOST_TEST(an.unknown1 == 1u);
  BOOST_TEST(an.unknown2 == 3u);
  BOOST_REQUIRE(an.triggers.size() == 1u);
  BOOST_TEST(an.triggers[0].start_frame == 1.0f);
  BOOST_REQUIRE(an.triggers[0].params.size() == 3u);
  BOOST_TEST(std::get<0>(an.triggers[0].params[0].value) == 42);
  BOOST_TEST(std::get<1>(an.triggers[0].params[1].value) == 0.5f);
  BOOST_TEST(std::get<3>(an.triggers[0].params[2].value) == "Hello");
  BOOST_REQUIRE(an.holds.size() == 1u);
  BOOST_TEST(an.holds[0].end_frame == 10.0f);
  BOOST_TEST((std::get<2>(an.holds[0].params[0].value) == std::array<float, 3>{1, 2, 3}));
}

BOOST_AUTO_TEST_CASE(hand_made_file_reencodes_byte_for_byte) {
  const auto original = hand_made();
  const auto again = encode(decode(original));
  BOOST_TEST(again.size() == original.size());
  BOOST_TEST((again == original));
}

BOOST_AUTO_TEST_CASE(model_write_read_gives_the_model_back) {
  for (int major : {1, 2}) {
    File m = sample(major);
    File back = decode(encode(m));
    // The writer keeps the event table sorted by hash; otherwise nothing changes.
    std::stable_sort(m.data.events.begin(), m.data.events.end(),
                     [](const Event& a, const Event& b) { return a.hash < b.hash; });
    BOOST_TEST((back == m));
    BOOST_TEST(std::is_sorted(back.data.events.begin(), back.data.events.end(),
                              [](const Event& a, const Event& b) { return a.hash < b.hash; }));
  }
}

BOOST_AUTO_TEST_CASE(text_round_trips_give_the_same_bytes) {
  for (int major : {1, 2}) {
    const auto bytes = encode(sample(major));
    for (auto kind : {binschema::TextKind::Yaml, binschema::TextKind::Json}) {
      const std::string text = to_text(decode(bytes), kind);
      const auto again = encode(from_text(text));
      BOOST_TEST((again == bytes), "major " << major << (kind == binschema::TextKind::Json ? " json" : " yaml"));
    }
  }
  // A v1.0.0 file says so in its text; a v2.1.0 file leaves the defaults out.
  BOOST_TEST(to_text(sample(1), binschema::TextKind::Yaml).find("major_version: 1") != std::string::npos);
  BOOST_TEST(to_text(sample(2), binschema::TextKind::Yaml).find("major_version") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(unknown_parameter_types_are_refused_with_type_and_offset) {
  for (uint32_t type : {2u, 4u, 6u, 7u, 8u}) {
    auto bytes = hand_made();
    bytes[0x1D8] = static_cast<uint8_t>(type);  // the float parameter's type
    std::string e = error_of(bytes);
    BOOST_TEST(e == "data.actions[0].animations[0].triggers[0].params[1].value: type " + std::to_string(type) +
                        " is not a supported case (known: 0 int, 1 float, 3 vec3, 5 string) (at 0x1e0)");
  }
}

BOOST_AUTO_TEST_CASE(parameter_pointer_size_0x10_is_accepted_and_kept) {
  auto bytes = hand_made();
  bytes[0x198 + 0xC] = 0x10;
  File f = decode(bytes);
  BOOST_TEST(f.data.actions[0].animations[0].triggers[0].param_pointer_size == 0x10u);
  BOOST_TEST((encode(f) == bytes));
  bytes[0x198 + 0xC] = 0x0C;
  BOOST_TEST(error_of(bytes).find("param_pointer_size: value 12 is not one of 8, 16") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(pointer_past_end_names_path_and_offset) {
  auto bytes = hand_made();
  bytes[0x198] = 0xF0;  // trigger's parameter pointer 0x1B0 -> 0x1F0 ... then past the end:
  bytes[0x199] = 0x03;
  BOOST_TEST(error_of(bytes) == "data.actions[0].animations[0].triggers[0].params: pointer 0x3f0 past end of file (0x23c)");
}

BOOST_AUTO_TEST_CASE(bad_version_and_magic_are_refused) {
  auto bytes = hand_made();
  bytes[0xF8 + 0xA] = 3;  // major version 3
  BOOST_TEST(error_of(bytes) == "data.major_version: value 3 is not one of 1, 2 (at 0x102)");
  bytes = hand_made();
  bytes[0] = 'X';
  BOOST_TEST(error_of(bytes) == "magic: expected \"BFFH\", found \"XFFH\" (at 0x0)");
}

BOOST_AUTO_TEST_CASE(every_truncation_is_refused_cleanly) {
  const auto full = encode(sample(2));
  for (size_t n = 0; n < full.size(); ++n) {
    std::vector<uint8_t> cut(full.begin(), full.begin() + static_cast<long>(n));
    BOOST_TEST(!error_of(cut).empty(), "length " << n);
  }
}

BOOST_AUTO_TEST_CASE(corrupted_files_never_crash) {
  // Every error must be a DecodeError (never a crash, a bad_alloc or another
  // exception); decoding may also succeed when a flipped byte is data.
  const auto full = encode(sample(2));
  std::mt19937 rng(1234);
  int refused = 0;
  for (int round = 0; round < 3000; ++round) {
    auto bad = full;
    for (int k = 0; k < 1 + round % 4; ++k) bad[rng() % bad.size()] = static_cast<uint8_t>(rng());
    try {
      decode(bad);
    } catch (const binschema::DecodeError& e) {
      ++refused;
      BOOST_TEST(std::string(e.what()).find("0x") != std::string::npos, e.what());
    }
  }
  BOOST_TEST(refused > 0);
}

BOOST_AUTO_TEST_CASE(huge_counts_do_not_allocate) {
  auto bytes = hand_made();
  // action count 0xFFFFFFFF: refused before any allocation for it.
  bytes[0xF8 + 0x30] = bytes[0xF8 + 0x31] = bytes[0xF8 + 0x32] = bytes[0xF8 + 0x33] = 0xFF;
  BOOST_TEST(error_of(bytes).rfind("data.actions: count 4294967295 of 0x18-byte elements", 0) == 0);
}

// ---- Files from other writers (issue 11) ------------------------------------

#include "layout_check.h"

namespace {

// Where a u64 / u32 sits in a file.
uint64_t u64_at(const std::vector<uint8_t>& b, size_t at) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = v << 8 | b[at + i];
  return v;
}
uint32_t u32_at(const std::vector<uint8_t>& b, size_t at) { return static_cast<uint32_t>(u64_at(b, at) & 0xffffffffu); }

// Headers of a file whose Default section is at 0xF8 and pool at `pool`.
void headers(Bytes& f, uint32_t pool, uint32_t pool_size) {
  const uint32_t file_size = pool + pool_size;
  f.text("BFFH", 4).u32(0).u32(file_size).u32(8).u64(0xA8).u32(2).u32(0x28).u64(0xF8).text(kClass, 128);
  f.text("BFSI", 4).u32(0xF8).u32(pool - 0xF8).u32(8).u64(0xF8).text("Default", 16);
  f.text("BFSI", 4).u32(pool).u32(pool_size).u32(1).u64(pool).text("StringPool", 16);
}

// As dt-12345, TkSharp and Jungle write it (formats.md "Empty arrays"): every
// empty array has a null pointer and element size 0. Two events (the second
// without action indices), two actions (the second without animations), an
// animation with a trigger without parameters and no holds.
std::vector<uint8_t> public_writers_file() {
  Bytes f;
  const uint32_t pool = 0x1E0;
  headers(f, pool, 6);
  f.u64(0).u8(0).u8(1).u16(2).u32(0).u64(pool).u64(0x130).u32(2).u32(0x18).u64(0x168).u32(2).u32(0x18);
  BOOST_REQUIRE(f.pos() == 0x130);
  f.u32(0x1000).u32(0).u64(0x160).u32(1).u32(4);  // event 0: one index
  f.u32(0x2000).u32(0).u64(0).u32(0).u32(0);      // event 1: none (null, size 0)
  f.u32(1).u32(0);                                 // event 0's index list, then 8-alignment
  BOOST_REQUIRE(f.pos() == 0x168);
  f.u64(0x198).u32(1).u32(0x30).u32(0xA1).u32(0);  // action 0: one animation
  f.u64(0).u32(0).u32(0).u32(0xA2).u32(0);         // action 1: none
  BOOST_REQUIRE(f.pos() == 0x198);
  // The animation: trigger table, no holds (null, size 0).
  f.u64(pool + 1).u64(0x1C8).u32(1).u32(0x18).u64(0).u32(0).u32(0).u32(0).u32(5);
  f.u64(0).u32(0).u32(0).f32(3.0f).f32(0.0f);      // trigger without parameters: null, size 0
  BOOST_REQUIRE(f.pos() == pool);
  f.cstr("").cstr("Walk");
  return f.b;
}

// The same model, its tables in another order than Jungle's: the action
// table and what it points to first, then the event table and its index
// lists, then the pool.
std::vector<uint8_t> reordered_file() {
  Bytes f;
  const uint32_t pool = 0x1DC;
  headers(f, pool, 6);
  f.u64(0).u8(0).u8(1).u16(2).u32(0).u64(pool).u64(0x1A8).u32(2).u32(0x18).u64(0x130).u32(2).u32(0x18);
  BOOST_REQUIRE(f.pos() == 0x130);
  f.u64(0x160).u32(1).u32(0x30).u32(0xA1).u32(0);  // action 0
  f.u64(0).u32(0).u32(0).u32(0xA2).u32(0);         // action 1
  BOOST_REQUIRE(f.pos() == 0x160);
  f.u64(pool + 1).u64(0x190).u32(1).u32(0x18).u64(0).u32(0).u32(0).u32(0).u32(5);
  f.u64(0).u32(0).u32(0).f32(3.0f).f32(0.0f);
  BOOST_REQUIRE(f.pos() == 0x1A8);
  f.u32(0x1000).u32(0).u64(0x1D8).u32(1).u32(4);
  f.u32(0x2000).u32(0).u64(0).u32(0).u32(0);
  f.u32(1);                                        // event 0's index list
  BOOST_REQUIRE(f.pos() == pool);
  f.cstr("").cstr("Walk");
  return f.b;
}

}  // namespace

BOOST_AUTO_TEST_CASE(public_writers_empty_arrays_read_and_write_back) {
  const auto bytes = public_writers_file();
  binschema::Layout layout;
  const File f = decode(bytes, layout);
  BOOST_TEST(f.data.events[1].action_indices.empty());
  BOOST_TEST(f.data.actions[1].animations.empty());
  BOOST_TEST(f.data.actions[0].animations[0].holds.empty());
  BOOST_TEST(f.data.actions[0].animations[0].triggers[0].params.empty());
  // The public writers' layout is binschema's own: nothing to keep.
  BOOST_TEST(layout.empty(), layout.at_text());
  BOOST_TEST((encode(f) == bytes));
  BINSCHEMA_EXPECT_SAME_BYTES(binschema::baev, bytes, "public writers' file");
  // Edited once: an index for event 1 (its list appears after event 0's), a
  // parameter for the trigger. The output is the edited model, written as
  // the public writers would.
  File g = f;
  g.data.events[1].action_indices.push_back(1);
  Parameter p;
  p.value.emplace<0>(7);
  g.data.actions[0].animations[0].triggers[0].params.push_back(p);
  const auto edited = encode(g, layout);
  BOOST_TEST((decode(edited) == g));
  BOOST_TEST((edited == encode(g)));
  BOOST_TEST(u32_at(edited, 0x130 + 0x18 + 0x14) == 4u);  // event 1's index size now 4
}

BOOST_AUTO_TEST_CASE(fresh_models_write_null_pointers_and_size_0_for_empty_arrays) {
  File f;
  f.data.events.push_back(Event{.action_indices = {}, .hash = 0x10});
  Action a;
  Animation an;
  an.name = "Idle";
  an.triggers.push_back(Trigger{});
  a.animations.push_back(an);
  f.data.actions.push_back(a);
  f.data.actions.push_back(Action{});
  const auto b = encode(f);
  const uint64_t events = u64_at(b, 0xF8 + 0x18), actions = u64_at(b, 0xF8 + 0x28);
  BOOST_TEST(u64_at(b, events + 0x8) == 0u);            // event 0's index list: null
  BOOST_TEST(u32_at(b, events + 0x14) == 0u);           // and size 0
  BOOST_TEST(u64_at(b, actions + 0x18) == 0u);          // action 1's animations: null
  BOOST_TEST(u32_at(b, actions + 0x18 + 0xC) == 0u);    // and size 0
  const uint64_t anim = u64_at(b, actions);
  BOOST_TEST(u64_at(b, anim + 0x18) == 0u);             // no holds: null
  BOOST_TEST(u32_at(b, anim + 0x24) == 0u);             // and size 0
  const uint64_t trig = u64_at(b, anim + 0x8);
  BOOST_TEST(u64_at(b, trig) == 0u);                    // no parameters: null
  BOOST_TEST(u32_at(b, trig + 0xC) == 0u);              // and pointer size 0
  BOOST_TEST((decode(b) == f));
  // An empty file: both tables null, sizes 0.
  const auto e = encode(File{});
  BOOST_TEST(u64_at(e, 0xF8 + 0x18) == 0u);
  BOOST_TEST(u32_at(e, 0xF8 + 0x24) == 0u);
  BOOST_TEST(u64_at(e, 0xF8 + 0x28) == 0u);
  BOOST_TEST(u32_at(e, 0xF8 + 0x34) == 0u);
}

BOOST_AUTO_TEST_CASE(non_null_pointers_and_sizes_of_empty_arrays_are_kept) {
  // What binschema itself wrote before: empty arrays with a pointer (to where
  // the array would be) and their element size.
  auto bytes = public_writers_file();
  auto put64 = [&](size_t at, uint64_t v) { for (int i = 0; i < 8; ++i) bytes[at + i] = static_cast<uint8_t>(v >> (8 * i)); };
  put64(0x130 + 0x18 + 0x8, 0x164);  // event 1's indices: after event 0's
  bytes[0x130 + 0x18 + 0x14] = 4;
  put64(0x168 + 0x18, 0x1C8);        // action 1's animations
  bytes[0x168 + 0x18 + 0xC] = 0x30;
  bytes[0x198 + 0x24] = 0x18;        // hold size 0x18, pointer null
  put64(0x1C8, 0x1E0);               // the trigger's parameter pointers
  bytes[0x1C8 + 0xC] = 8;
  binschema::Layout layout;
  const File f = decode(bytes, layout);
  BOOST_TEST((f == decode(public_writers_file())));  // the same model
  BOOST_TEST(!layout.empty());
  BOOST_TEST((encode(f) == public_writers_file()));  // a fresh layout: the public writers'
  const auto kept = BINSCHEMA_EXPECT_SAME_BYTES(binschema::baev, bytes, "empty arrays with pointers");
  BOOST_TEST(layout_entry(to_text(f, binschema::TextKind::Yaml, &kept)).rfind("layout:", 0) == 0u);
  // A size that is neither the element size nor 0 is refused.
  bytes[0x130 + 0x18 + 0x14] = 8;
  BOOST_TEST(error_of(bytes) == "data.events[1].index_size: expected 0x0 (or 0x4), found 0x8 (at 0x15c)");
}

BOOST_AUTO_TEST_CASE(tables_in_another_order_are_written_back_in_it) {
  const auto bytes = reordered_file();
  binschema::Layout layout;
  const File f = decode(bytes, layout);
  BOOST_TEST((f == decode(public_writers_file())));
  BOOST_TEST(!layout.at.empty());
  BINSCHEMA_EXPECT_SAME_BYTES(binschema::baev, bytes, "reordered tables");
  // Without the layout entry in the text: the fresh (Jungle's) order.
  const std::string yaml = to_text(f, binschema::TextKind::Yaml, &layout);
  const std::string entry = layout_entry(yaml);
  BOOST_REQUIRE(!entry.empty());
  const std::string dropped = yaml.substr(0, yaml.size() - entry.size());
  binschema::Layout none;
  BOOST_TEST((encode(from_text_with_layout(binschema::text::load(dropped), none), none) == public_writers_file()));
  // Edited once: a longer animation name (the pool, last, grows; the tables
  // stay where they were) ...
  File g = f;
  g.data.actions[0].animations[0].name = "Walking";
  auto edited = encode(g, layout);
  BOOST_TEST((decode(edited) == g));
  BOOST_TEST(u64_at(edited, 0xF8 + 0x18) == 0x1A8u);  // event table where it was
  BOOST_TEST(u64_at(edited, 0xF8 + 0x28) == 0x130u);  // action table where it was
  BOOST_TEST(edited.size() == bytes.size() + 3);
  // ... two indices more for event 0: its list, last before the pool, grows
  // in place and the pool moves ...
  g.data.events[0].action_indices.push_back(0);
  g.data.events[0].action_indices.push_back(1);
  edited = encode(g, layout);
  BOOST_TEST((decode(edited) == g));
  BOOST_TEST(u64_at(edited, 0x1A8 + 0x8) == 0x1D8u);
  BOOST_TEST(u64_at(edited, 0xF8 + 0x10) == 0x1E4u);  // the pool, after the longer list
  // ... and an animation more: its table no longer fits before the trigger
  // table, so it moves to the end (with what it points to); the rest stays.
  Animation an;
  an.name = "Run";
  g.data.actions[0].animations.push_back(an);
  edited = encode(g, layout);
  BOOST_TEST((decode(edited) == g));
  BOOST_TEST(u64_at(edited, 0xF8 + 0x18) == 0x1A8u);
  BOOST_TEST(u64_at(edited, 0xF8 + 0x28) == 0x130u);
  BOOST_TEST(u64_at(edited, 0x1A8 + 0x8) == 0x1D8u);
  BOOST_TEST(u64_at(edited, 0x130) >= 0x1E8u);  // the grown animation table, at the end
}

BOOST_AUTO_TEST_CASE(layout_entries_from_text_are_checked) {
  const std::string yaml = to_text(decode(public_writers_file()), binschema::TextKind::Yaml);
  // Positions far past the file are not taken (no huge allocation): a fresh layout.
  binschema::Layout l;
  const File f = from_text_with_layout(binschema::text::load(yaml + "layout:\n  at: \"20:ffffffffffff 28:fffffffff0\"\n  fill: \"ffffffffff:01\"\n"), l);
  BOOST_TEST(l.at.size() == 2u);
  BOOST_TEST((encode(f, l) == public_writers_file()));
  // Bad entries are text errors naming the entry and where.
  std::string e;
  try {
    (void)from_text_with_layout(binschema::text::load(yaml + "layout:\n  at: \"20-30\"\n"), l);
  } catch (const binschema::TextError& err) {
    e = err.what();
  }
  BOOST_TEST(e.find("layout.at: ':' expected at character 3") != std::string::npos, e);
  e.clear();
  try {
    (void)from_text_with_layout(binschema::text::load(yaml + "layout:\n  end_align: 3\n"), l);
  } catch (const binschema::TextError& err) {
    e = err.what();
  }
  BOOST_TEST(e.find("layout.end_align: a power of two up to 0x10000 expected") != std::string::npos, e);
}
