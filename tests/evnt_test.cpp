// EVNT (Metroid Prime, big-endian): files written out by hand from the docs
// decode to the expected values and re-encode byte for byte; version 1 has no
// sound section and version 2 has one; damaged files are refused cleanly.
#define BOOST_TEST_MODULE evnt_test
#include <boost/test/unit_test.hpp>

#include "bytes.h"

#include <cstring>
#include <random>

#include "evnt_text.h"

using namespace binschema::evnt;

namespace {

using BE = BigBytes;

// Event base: unknown0, name, type, CharAnimTime{time,state}, index, unique, weight, character, flags.
void base(BE& f, const std::string& name, uint16_t type, float time, uint32_t index) {
  f.u16(0x0002).cstr(name).u16(type).f32(time).u32(1).u32(index).u8(1).f32(0.5f).u32(0xFFFFFFFF).u32(0x10);
}

std::vector<uint8_t> hand_made(uint32_t version) {
  BE f;
  f.u32(version);
  f.u32(1);  // loop events
  base(f, "loop", 0, 0.25f, 0);
  f.u8(1);
  f.u32(1);  // user events
  base(f, "user", 6, 1.0f, 1);
  f.u32(3).cstr("Head");
  f.u32(1);  // effect events
  base(f, "fx", 5, 2.0f, 2);
  f.u32(30).text("PART", 4).u32(0xDEADBEEF).cstr("RHand").f32(1.5f).u32(1);
  if (version == 2) {
    f.u32(2);  // sound events
    base(f, "snd", 8, 3.0f, 3);
    f.u32(0x80000123).f32(0.8f).f32(20.0f);
    base(f, "snd2", 8, 4.0f, 4);
    f.u32(0x0000FFFF).f32(1.0f).f32(10.0f);
  }
  return f.b;
}

std::string error_of(const std::vector<uint8_t>& bytes) {
  return decode_error_of([](const auto& b) { return binschema::evnt::decode(b); }, bytes);
}

}  // namespace

BOOST_AUTO_TEST_CASE(version2_hand_made_file_decodes) {
  const Evnt e = decode(hand_made(2));
  BOOST_TEST(e.version == 2u);
  BOOST_REQUIRE(e.loop_events.size() == 1u);
  BOOST_TEST(e.loop_events[0].base.name == "loop");
  BOOST_TEST(e.loop_events[0].base.time.time == 0.25f);
  BOOST_TEST(e.loop_events[0].base.time.state == 1u);
  BOOST_TEST(e.loop_events[0].base.unique == true);
  BOOST_TEST(e.loop_events[0].base.character_index == -1);
  BOOST_TEST(e.loop_events[0].value == true);
  BOOST_REQUIRE(e.user_events.size() == 1u);
  BOOST_TEST(e.user_events[0].user_type == 3u);
  BOOST_TEST(e.user_events[0].bone_name == "Head");
  BOOST_REQUIRE(e.effect_events.size() == 1u);
  const EffectEvent& fx = e.effect_events[0];
  BOOST_TEST(fx.base.type == 5u);
  BOOST_TEST(fx.frame_count == 30u);
  BOOST_TEST(fx.effect_type == "PART");
  BOOST_TEST(fx.effect_id == 0xDEADBEEFu);
  BOOST_TEST(fx.bone_name == "RHand");
  BOOST_TEST(fx.scale == 1.5f);
  BOOST_TEST(fx.transform_type == 1u);
  BOOST_REQUIRE(e.sound_events.size() == 2u);
  BOOST_TEST(e.sound_events[0].sound.id == 0x123u);
  BOOST_TEST(e.sound_events[0].sound.looped == true);
  BOOST_TEST(e.sound_events[1].sound.id == 0xFFFFu);
  BOOST_TEST(e.sound_events[1].sound.looped == false);
  BOOST_TEST(e.sound_events[0].ref_distance == 20.0f);
}

BOOST_AUTO_TEST_CASE(each_version_has_its_own_sections) {
  const Evnt v1 = decode(hand_made(1));
  BOOST_TEST(v1.version == 1u);
  BOOST_TEST(v1.sound_events.empty());
  BOOST_TEST(v1.user_events.size() == 1u);  // user events exist in version 1 (as the implementations say)
  // The version 1 file really ends after the effect section: no sound count.
  BOOST_TEST(hand_made(1).size() + 4 + (29 + 4 + 12) + (29 + 5 + 12) == hand_made(2).size());
  // A version 1 model with sound events cannot be written.
  Evnt bad = v1;
  bad.sound_events.resize(1);
  BOOST_CHECK_THROW(encode(bad), binschema::EncodeError);
}

BOOST_AUTO_TEST_CASE(reencode_byte_for_byte_directly_and_through_text) {
  for (uint32_t version : {1u, 2u}) {
    const auto bytes = hand_made(version);
    BOOST_TEST((encode(decode(bytes)) == bytes));
    for (auto kind : {binschema::TextKind::Yaml, binschema::TextKind::Json}) {
      const std::string text = to_text(decode(bytes), kind);
      BOOST_TEST((encode(from_text(text)) == bytes));
    }
  }
  const std::string yaml = to_text(decode(hand_made(2)), binschema::TextKind::Yaml);
  BOOST_TEST(yaml.find("looped: true") != std::string::npos);
  BOOST_TEST(yaml.find("effect_id: 0xdeadbeef") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(bad_values_are_refused_with_offset_and_path) {
  auto bytes = hand_made(2);
  bytes[3] = 3;  // version 3
  BOOST_TEST(error_of(bytes) == "version: unsupported version 3 (supported: 1, 2) (at 0x0)");
  bytes = hand_made(2);
  // the loop event's unique flag: 4 + 4 + 2 + 5 ("loop\0") + 2 + 8 + 4 = 0x1d
  BOOST_REQUIRE(bytes[0x1d] == 1);
  bytes[0x1d] = 7;
  BOOST_TEST(error_of(bytes) == "loop_events[0].base.unique: value 0x7 is not a bool (0 or 1) (at 0x1d)");
  Evnt e = decode(hand_made(2));
  e.effect_events[0].effect_type = "TOOLONG";
  BOOST_CHECK_THROW(encode(e), binschema::EncodeError);
}

BOOST_AUTO_TEST_CASE(truncations_and_corruption_never_crash) {
  const auto full = hand_made(2);
  for (size_t n = 0; n < full.size(); ++n) {
    std::vector<uint8_t> cut(full.begin(), full.begin() + static_cast<long>(n));
    BOOST_TEST(error_of(cut).find("0x") != std::string::npos, "length " << n);
  }
  std::mt19937 rng(7);
  for (int round = 0; round < 2000; ++round) {
    auto bad = full;
    bad[rng() % bad.size()] = static_cast<uint8_t>(rng());
    try {
      decode(bad);
    } catch (const binschema::DecodeError&) {
    }
  }
  // A huge count is refused before any allocation.
  auto bad = full;
  bad[4] = bad[5] = bad[6] = bad[7] = 0xFF;
  BOOST_TEST(error_of(bad).rfind("loop_events: count 4294967295", 0) == 0);
}

// ---- Files from other writers (issue 11) ------------------------------------

#include "layout_check.h"

BOOST_AUTO_TEST_CASE(zero_padding_to_32_bytes_is_kept) {
  // As resources extracted from a PAK end: zeros up to a multiple of 32.
  for (uint32_t version : {1u, 2u}) {
    auto bytes = hand_made(version);
    BOOST_REQUIRE(bytes.size() % 32 != 0);
    bytes.resize((bytes.size() + 31) / 32 * 32, 0);
    binschema::Layout layout;
    const Evnt e = decode(bytes, layout);
    BOOST_TEST((e == decode(hand_made(version))));
    BOOST_TEST(layout.end_align == 32u);
    BOOST_TEST((encode(e) == hand_made(version)));  // a fresh layout: no padding
    BINSCHEMA_EXPECT_SAME_BYTES(binschema::evnt, bytes, "padded to 32, version " + std::to_string(version));
    BOOST_TEST(layout_entry(to_text(e, binschema::TextKind::Yaml, &layout)) == "layout:\n  end_align: 32\n");
    // Edited once: a longer name; the file is padded to 32 again.
    Evnt g = e;
    g.loop_events[0].base.name = "a much longer loop event name";
    const auto edited = encode(g, layout);
    BOOST_TEST(edited.size() % 32 == 0u);
    BOOST_TEST((decode(edited) == g));
    BOOST_TEST((std::vector<uint8_t>(edited.begin(), edited.begin() + static_cast<long>(encode(g).size())) == encode(g)));
  }
  // Trailing bytes that are not zero padding are kept as they are.
  auto bytes = hand_made(2);
  bytes.push_back(0xAB);
  bytes.push_back(0);
  BINSCHEMA_EXPECT_SAME_BYTES(binschema::evnt, bytes, "trailing bytes");
}
