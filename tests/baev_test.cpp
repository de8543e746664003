// BAEV through the generated code: a file written out by hand from the spec
// decodes to the expected values and re-encodes to the same bytes; models
// round-trip through bytes, YAML and JSON; damaged files are refused with an
// offset and a field path and never crash.
#define BOOST_TEST_MODULE baev_test
#include <boost/test/unit_test.hpp>

#include "bytes.h"

#include <cstring>
#include <random>

#include "baev.h"
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
      const auto again = encode(from_text(YAML::Load(text)));
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
