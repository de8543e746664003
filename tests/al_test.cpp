// Black & White 2 animation libraries (.al): a file written out by hand from
// the docs (two bones, unknown skeleton data, two animations with events whose
// names repeat, opaque keyframe blocks) decodes to the expected values and is
// written back byte for byte, directly and through YAML and JSON.
#define BOOST_TEST_MODULE al_test
#include <boost/test/unit_test.hpp>

#include "bytes.h"

#include <cstring>
#include <random>

#include "al_text.h"

using namespace binschema::al;

namespace {

using LE = LittleBytes;

// Animation header (0x90): event string size and event count as given.
void header(LE& f, const std::string& name, uint32_t string_size, uint32_t events, uint32_t unk1) {
  f.u32(0xFEC).u32(9).text(name, 64).u32(3).u32(string_size).u32(unk1).u32(0).u32(0);
  f.u32(events).u32(2).u32(30).f32(30.0f).f32(1.0f).f32(2.5f).u8(1).u8(1).u16(0);
  for (int i = 0; i < 6; ++i) f.u32(0x100 + i);
}

struct Ev {
  std::string bone, name;
};

// An animation: header, events, strings (bone then name, each again), keyframes.
void animation(LE& f, const std::string& name, const std::vector<Ev>& evs, const std::vector<uint8_t>& keys) {
  size_t start = f.pos();
  uint32_t strings = 0;
  for (const auto& e : evs) strings += static_cast<uint32_t>(e.bone.size() + e.name.size() + 2);
  header(f, name, strings, static_cast<uint32_t>(evs.size()), 0x40);
  uint32_t at = static_cast<uint32_t>(0x90 + 0x48 * evs.size());
  for (size_t i = 0; i < evs.size(); ++i) {
    f.u32(at);
    at += static_cast<uint32_t>(evs[i].bone.size() + 1);
    f.u32(at);
    at += static_cast<uint32_t>(evs[i].name.size() + 1);
    for (int k = 0; k < 16; ++k) f.f32(k % 5 == 0 ? 1.0f : 0.25f * static_cast<float>(i));
  }
  for (const auto& e : evs) f.cstr(e.bone).cstr(e.name);
  BOOST_REQUIRE(f.pos() == start + at);
  for (uint8_t k : keys) f.u8(k);
}

std::vector<uint8_t> hand_made() {
  LE f;
  f.u32(0xFEC).u32(0xFFFF0002).text("bear", 64);
  size_t meta_off = f.pos(), size_at = f.pos() + 4;
  f.u32(0).u32(0).u32(0x1234).u32(2).f32(1.0f).f32(-1.0f);
  BOOST_REQUIRE(f.pos() == 0x60);
  f.u32(2).u32(7);  // skeleton: 2 bones
  f.text("Root", 32).s32(-1);
  f.text("Spine", 32).s32(0);
  f.u32(0xAABBCCDD).u32(0x11223344);  // unknown data after the bones
  uint32_t metadata = static_cast<uint32_t>(f.pos());
  f.put32(meta_off, metadata - 0x60);
  std::vector<size_t> offset_slots;
  for (const char* n : {"a_bear_die", "a_bear_walk"}) {
    header(f, n, 0, 0, 0x40);  // the metadata copy: no string size, no events
    offset_slots.push_back(f.pos());
    f.u32(0);
  }
  f.put32(offset_slots[0], static_cast<uint32_t>(f.pos()));
  animation(f, "a_bear_die",
            {{"LHAnimEvent04", "::FOOTSTEPS.99"}, {"LHAnimEvent03", "::FOOTSTEPS.99"}, {"LHAnimEvent05", "::POLARHITGROUND.99"}},
            {1, 2, 3, 4, 5, 6, 7});  // 7 bytes: the next animation starts unaligned
  f.put32(offset_slots[1], static_cast<uint32_t>(f.pos()));
  animation(f, "a_bear_walk", {}, {9, 9, 9, 9});
  f.put32(size_at, static_cast<uint32_t>(f.pos() - 0x60));
  return f.b;
}

std::string error_of(const std::vector<uint8_t>& bytes) {
  return decode_error_of([](const auto& b) { return binschema::al::decode(b); }, bytes);
}

}  // namespace

BOOST_AUTO_TEST_CASE(hand_made_file_decodes_to_expected_values) {
  const File f = decode(hand_made());
  BOOST_TEST(f.name == "bear");
  BOOST_TEST(f.unknown0 == 0xFFFF0002u);
  BOOST_TEST(f.animation_data_offset == 0x1234u);
  BOOST_REQUIRE(f.skeleton.bones.size() == 2u);
  BOOST_TEST(f.skeleton.unknown == 7u);
  BOOST_TEST(f.skeleton.bones[1].name == "Spine");
  BOOST_TEST(f.skeleton.bones[0].parent == -1);
  BOOST_TEST((f.skeleton_extra.data == std::vector<uint8_t>{0xDD, 0xCC, 0xBB, 0xAA, 0x44, 0x33, 0x22, 0x11}));
  BOOST_REQUIRE(f.metadata.size() == 2u);
  BOOST_TEST(f.metadata[0].header.name == "a_bear_die");
  BOOST_TEST(f.metadata[0].header.event_count == 0u);
  const Animation& a = f.metadata[0].animation;
  BOOST_TEST(a.name == "a_bear_die");
  BOOST_TEST(a.frame_count == 30u);
  BOOST_TEST(a.sampling_rate == 30.0f);
  BOOST_REQUIRE(a.events.size() == 3u);
  BOOST_TEST(a.events[0].bone_name == "LHAnimEvent04");
  BOOST_TEST(a.events[1].event_name == "::FOOTSTEPS.99");
  BOOST_TEST(a.events[2].event_name == "::POLARHITGROUND.99");
  BOOST_TEST(a.events[1].matrix[1] == 0.25f);
  BOOST_TEST((a.keyframes.data == std::vector<uint8_t>{1, 2, 3, 4, 5, 6, 7}));
  BOOST_TEST(f.metadata[1].animation.events.empty());
  BOOST_TEST((f.metadata[1].animation.keyframes.data == std::vector<uint8_t>{9, 9, 9, 9}));
}

BOOST_AUTO_TEST_CASE(written_back_byte_for_byte_directly_and_through_text) {
  const auto bytes = hand_made();
  BOOST_TEST((encode(decode(bytes)) == bytes));
  for (auto kind : {binschema::TextKind::Yaml, binschema::TextKind::Json}) {
    const std::string text = to_text(decode(bytes), kind);
    BOOST_TEST((encode(from_text(text)) == bytes));
  }
  // Opaque data is shown as hex text.
  BOOST_TEST(to_text(decode(bytes), binschema::TextKind::Yaml).find("keyframes: \"01020304050607\"") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(edits_are_laid_out_again) {
  File f = decode(hand_made());
  f.metadata[0].animation.events[0].event_name = "::ROAR.1";  // shorter: everything after moves
  f.skeleton.bones.push_back(Bone{"Tail", 1});
  const auto bytes = encode(f);
  const File g = decode(bytes);
  BOOST_TEST((g == f));
  BOOST_TEST(g.metadata[1].animation.name == "a_bear_walk");
}

BOOST_AUTO_TEST_CASE(a_string_block_that_cannot_be_written_back_is_refused) {
  auto bytes = hand_made();
  const File f = decode(bytes);
  // Point the second event's bone name at the first event's bone name: a
  // shared string, which this writer would store twice.
  const uint32_t anim = 0x60 + 8 + 2 * 0x24 + 8 + 2 * 0x94;
  const uint32_t ev1 = anim + 0x90 + 0x48;
  bytes[ev1] = (0x90 + 3 * 0x48) & 0xff;
  bytes[ev1 + 1] = (0x90 + 3 * 0x48) >> 8;
  BOOST_TEST(error_of(bytes).find("metadata[0].animation.event_strings: the block is not the referenced strings in order") == 0u);
}

BOOST_AUTO_TEST_CASE(truncations_and_corruption_never_crash) {
  const auto full = hand_made();
  for (size_t n = 0; n < full.size(); ++n) {
    std::vector<uint8_t> cut(full.begin(), full.begin() + static_cast<long>(n));
    BOOST_TEST(!error_of(cut).empty(), "length " << n);
  }
  std::mt19937 rng(99);
  for (int round = 0; round < 3000; ++round) {
    auto bad = full;
    bad[rng() % bad.size()] = static_cast<uint8_t>(rng());
    try {
      decode(bad);
    } catch (const binschema::DecodeError& e) {
      BOOST_TEST(std::string(e.what()).find("0x") != std::string::npos, e.what());
    }
  }
}

// ---- Files from other writers (issue 11) ------------------------------------

#include "layout_check.h"

namespace {

// The hand-made file with 12 gap bytes (a writer's fill pattern) between the
// metadata table and the first animation.
std::vector<uint8_t> with_gap() {
  auto b = hand_made();
  const size_t meta = 0x60 + 8 + 2 * 0x24 + 8;  // skeleton, bones, unknown data
  const size_t first = meta + 2 * 0x94;
  BOOST_REQUIRE(first == 0x60 + 8 + 0x48 + 8 + 0x128);
  std::vector<uint8_t> gap = {0xCD, 0xCD, 0xCD, 0xCD, 'g', 'a', 'p', 0, 0xCD, 0xCD, 0xCD, 0xCD};
  b.insert(b.begin() + static_cast<long>(first), gap.begin(), gap.end());
  // The animations' offsets and the size in the header move by 12.
  auto add = [&](size_t at, uint32_t d) {
    uint32_t v = b[at] | b[at + 1] << 8 | b[at + 2] << 16 | static_cast<uint32_t>(b[at + 3]) << 24;
    v += d;
    for (int i = 0; i < 4; ++i) b[at + i] = static_cast<uint8_t>(v >> (8 * i));
  };
  add(meta + 0x90, 12);
  add(meta + 0x94 + 0x90, 12);
  add(0x4C, 12);
  return b;
}

}  // namespace

BOOST_AUTO_TEST_CASE(gap_bytes_between_blocks_are_kept) {
  const auto bytes = with_gap();
  binschema::Layout layout;
  const File f = decode(bytes, layout);
  BOOST_TEST((f == decode(hand_made())));
  BOOST_REQUIRE(layout.fill.size() == 2u);  // the non-zero runs of the gap
  BOOST_TEST((encode(f) == hand_made()));   // a fresh layout: no gap
  BINSCHEMA_EXPECT_SAME_BYTES(binschema::al, bytes, "gap bytes");
  // Edited once, in place (a bone renamed, an event's matrix changed): the
  // gap stays where it was.
  File g = f;
  g.skeleton.bones[1].name = "Neck";
  g.metadata[1].animation.unknowns1[1] = 5;
  auto edited = encode(g, layout);
  BOOST_TEST((decode(edited) == g));
  BOOST_TEST(edited.size() == bytes.size());
  BOOST_TEST(std::equal(bytes.begin() + 0x1E0, bytes.begin() + 0x1E0 + 12, edited.begin() + 0x1E0));
  // A bone more: the table before the animations grows into the gap and
  // past it; the file is laid out afresh (without the gap).
  g.skeleton.bones.push_back(Bone{"Tail", 1});
  edited = encode(g, layout);
  BOOST_TEST((decode(edited) == g));
  BOOST_TEST((edited == encode(g)));
}

// An animation's keyframes run up to the next animation (`size: rest`). When
// they shrink, keeping the next animation where it was would leave zeros that
// read back as keyframes: the file is laid out afresh instead, and reads back
// as edited. Growing the last animation keeps the gap (nothing follows it).
BOOST_AUTO_TEST_CASE(shrunk_keyframes_read_back_as_edited) {
  binschema::Layout layout;
  const File f = decode(with_gap(), layout);
  BOOST_REQUIRE(!layout.empty());
  BOOST_REQUIRE(f.metadata.size() == 2u);
  for (size_t i = 0; i < f.metadata.size(); ++i) {
    File g = f;
    auto& keys = g.metadata[i].animation.keyframes.data;
    BOOST_REQUIRE(keys.size() >= 4u);
    keys.resize(keys.size() - 4);
    const auto edited = encode(g, layout);
    BOOST_TEST((decode(edited) == g), "animation " << i << " shrunk");
  }
  File g = f;
  g.metadata[1].animation.keyframes.data.push_back(0x42);
  const auto grown = encode(g, layout);
  BOOST_TEST((decode(grown) == g));
  const auto gap = with_gap();
  BOOST_TEST(grown.size() == gap.size() + 1);
  BOOST_TEST(std::equal(gap.begin() + 0x200, gap.begin() + 0x20C, grown.begin() + 0x200));  // the gap
}
