// Tests of the runtime every generated format uses: hashes, reader bounds
// checks, writer alignment, pointer fix-ups, late values and string pools.
#define BOOST_TEST_MODULE runtime_test
#include <boost/test/unit_test.hpp>

#include <set>

#include "binschema/chunked.h"
#include "binschema/dic.h"
#include "binschema/error.h"
#include "binschema/hash.h"
#include "binschema/layout.h"
#include "binschema/ptr_map.h"
#include "binschema/reader.h"
#include "binschema/relocation.h"
#include "binschema/string_pool.h"
#include "binschema/writer.h"

using namespace binschema;
using LE = Writer<std::endian::little>;

BOOST_AUTO_TEST_SUITE(hashes)

// Published FNV-1a 32-bit vectors (Fowler/Noll/Vo test suite).
BOOST_AUTO_TEST_CASE(fnv1a32_vectors) {
  BOOST_TEST(fnv1a32("") == 0x811c9dc5u);
  BOOST_TEST(fnv1a32("a") == 0xe40c292cu);
  BOOST_TEST(fnv1a32("foobar") == 0xbf9cf968u);
  static_assert(fnv1a32("a") == 0xe40c292cu, "usable at compile time");
}

// Published MurmurHash3_x86_32 vectors (SMHasher's reference implementation).
BOOST_AUTO_TEST_CASE(murmur3_vectors) {
  BOOST_TEST(murmur3_x86_32("", 0) == 0u);
  BOOST_TEST(murmur3_x86_32("", 1) == 0x514e28b7u);
  BOOST_TEST(murmur3_x86_32("", 0xffffffffu) == 0x81f16f39u);
  BOOST_TEST(murmur3_x86_32("\xff\xff\xff\xff", 0) == 0x76293b50u);
  BOOST_TEST(murmur3_x86_32(std::string_view("\x21\x43\x65\x87", 4), 0) == 0xf55b516bu);
  BOOST_TEST(murmur3_x86_32(std::string_view("\x21\x43\x65", 3), 0) == 0x7e4a8634u);
  BOOST_TEST(murmur3_x86_32(std::string_view("\x21\x43", 2), 0) == 0xa0f7b07au);
  BOOST_TEST(murmur3_x86_32(std::string_view("\x21", 1), 0) == 0x72661cf4u);
  BOOST_TEST(murmur3_x86_32(std::string_view("\0\0\0\0", 4), 0) == 0x2362f9deu);
  BOOST_TEST(murmur3_x86_32("The quick brown fox jumps over the lazy dog", 0) == 0x2e4ff723u);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(reader)

BOOST_AUTO_TEST_CASE(endian_loads) {
  const uint8_t b[] = {0x01, 0x02, 0x03, 0x04, 0x00, 0x00, 0x80, 0x3f};
  Reader<std::endian::little> le(b);
  Reader<std::endian::big> be(b);
  BOOST_TEST(le.at<uint32_t>(0) == 0x04030201u);
  BOOST_TEST(be.at<uint32_t>(0) == 0x01020304u);
  BOOST_TEST(le.at<uint16_t>(1) == 0x0302u);
  BOOST_TEST(le.at<float>(4) == 1.0f);
}

BOOST_AUTO_TEST_CASE(bounds_errors_name_the_offset) {
  const uint8_t b[8] = {};
  Reader<std::endian::little> r(b);
  BOOST_CHECK_THROW(r.at<uint32_t>(6), DecodeError);
  try {
    r.need_target(0x3f0, 1);
    BOOST_FAIL("no error");
  } catch (const DecodeError& e) {
    BOOST_TEST(e.offset() == 0x3f0u);
    BOOST_TEST(std::string(e.what()) == "pointer 0x3f0 past end of file (0x8)");
  }
  // A corrupt count must be refused before anything is allocated for it.
  BOOST_CHECK_THROW(r.need_array(0, 0xffffffffull, 0x18), DecodeError);
  BOOST_CHECK_NO_THROW(r.need_array(0, 2, 4));
  BOOST_CHECK_THROW(r.need_array(0, 3, 4), DecodeError);
}

BOOST_AUTO_TEST_CASE(cstrings) {
  const char b[] = "ab\0cd";  // the last string has its own NUL from the literal
  Reader<std::endian::little> r(std::span(reinterpret_cast<const uint8_t*>(b), 5));
  BOOST_TEST(r.cstring(0) == "ab");
  BOOST_CHECK_THROW(r.cstring(3), DecodeError);  // "cd" runs off the end without a NUL
  BOOST_CHECK_THROW(r.cstring(9), DecodeError);
}

BOOST_AUTO_TEST_CASE(error_paths_are_built_outwards) {
  DecodeError e(0x3f0, "pointer 0x3f0 past end of file (0x3a8)");
  e.push_field("params");
  e.push_index(1);
  e.push_field("triggers");
  e.push_index(0);
  e.push_field("animations");
  e.push_index(2);
  e.push_field("actions");
  BOOST_TEST(std::string(e.what()) ==
             "actions[2].animations[0].triggers[1].params: pointer 0x3f0 past end of file (0x3a8)");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(writer)

// The buffer grows in steps (its zero-filled size by at most 1 MiB past what
// is needed): every byte reserved is zero until written, and what was written
// survives each move to a larger buffer, fresh or adopted.
BOOST_AUTO_TEST_CASE(growing_keeps_bytes_and_zeroes_reserves) {
  std::vector<uint8_t> reused(100, 0xAB);  // an adopted buffer's old bytes must not show
  for (bool adopt : {false, true}) {
    LE w;
    if (adopt) w.adopt(reused);
    std::vector<std::pair<uint64_t, uint64_t>> marks;  // (offset, value)
    uint64_t seed = 3, total = 0;
    while (total < (5u << 20)) {
      seed = seed * 6364136223846793005ull + 1442695040888963407ull;
      const uint64_t n = 8 + (seed >> 33) % (300u << 10);
      const uint64_t at = w.reserve(n);
      BOOST_REQUIRE(at == total);
      w.put<uint64_t>(at, seed);
      marks.emplace_back(at, seed);
      total += n;
    }
    auto bytes = w.finish();
    if (adopt) bytes.swap(reused);
    BOOST_REQUIRE(bytes.size() == total);
    Reader<std::endian::little> r(bytes);
    size_t nonzero = 0;
    for (uint8_t b : bytes) nonzero += b != 0;
    size_t marked = 0;
    for (const auto& [at, v] : marks) {
      BOOST_TEST(r.at<uint64_t>(at) == v);
      for (int i = 0; i < 8; ++i) marked += ((v >> (8 * i)) & 0xFF) != 0;
    }
    BOOST_TEST(nonzero == marked, (adopt ? "adopted" : "fresh") << ": bytes not written must be zero");
  }
}

BOOST_AUTO_TEST_CASE(alignment_pads_with_zeros) {
  LE w;
  w.reserve(3);
  w.align(8);
  BOOST_TEST(w.pos() == 8u);
  w.align(8);
  BOOST_TEST(w.pos() == 8u);  // already aligned: nothing added
  w.reserve(1);
  w.align(4);
  BOOST_TEST(w.pos() == 12u);
  auto b = w.finish();
  BOOST_TEST(std::all_of(b.begin(), b.end(), [](uint8_t c) { return c == 0; }));
}

// place_target: the target of a pointer aligned at the end (no layout), the
// pointer holding target - base, recorded; empty_target: without a layout
// the slot stays null, recorded as null only when asked.
BOOST_AUTO_TEST_CASE(place_target_and_empty_target) {
  LE w;
  const uint64_t s = w.reserve(12);  // a struct with three u32 pointer slots
  w.reserve(1);
  const uint64_t t = w.place_target(s + 4, 4, 8, 4, s, "A.b");
  BOOST_TEST(t == 16u);
  BOOST_TEST(w.pos() == 16u);  // the target itself is the caller's to write
  w.reserve(4);
  w.empty_target(s, 4, "A.a", true);
  w.empty_target(s + 8, 4, "A.c", false);
  const uint64_t u = w.append_target(s + 8, 16, 4, 0, "A.c");
  BOOST_TEST(u == 32u);
  BOOST_TEST(w.pointers().size() == 3u);
  BOOST_TEST((w.pointers()[0].slot == s + 4 && !w.pointers()[0].null));
  BOOST_TEST((w.pointers()[1].slot == s && w.pointers()[1].null));
  BOOST_TEST((w.pointers()[2].slot == s + 8 && !w.pointers()[2].null));
  const auto b = w.finish();
  BOOST_TEST(b.size() == 32u);
  const auto u32 = [&](size_t at) { return binschema::load<uint32_t, std::endian::little>(b.data() + at); };
  BOOST_TEST(u32(0) == 0u);
  BOOST_TEST(u32(4) == 16u);
  BOOST_TEST(u32(8) == 32u);
}

// A writer that adopts the caller's buffer writes into that allocation and
// leaves exactly the file in it: the old bytes are gone (what the file does
// not write reads as zero), the capacity is kept.
BOOST_AUTO_TEST_CASE(adopted_buffer_is_reused_and_cleared) {
  std::vector<uint8_t> buf(64, 0xcc);
  buf.reserve(4096);
  const uint8_t* const storage = buf.data();
  const size_t capacity = buf.capacity();
  LE w;
  w.adopt(buf);
  w.reserve(3);
  w.align(8);
  const uint64_t at = w.reserve(4);
  w.put<uint32_t>(at, 0x01020304);
  BOOST_TEST(w.finish().empty());  // the file is in buf
  BOOST_TEST(buf.data() == storage);
  BOOST_TEST(buf.capacity() == capacity);
  const std::vector<uint8_t> want{0, 0, 0, 0, 0, 0, 0, 0, 4, 3, 2, 1};
  BOOST_TEST(buf == want, boost::test_tools::per_element());

  // Again, with a file longer than the capacity: the buffer grows, zeroed.
  LE w2;
  w2.adopt(buf);
  w2.reserve(10000);
  w2.put<uint8_t>(9999, 7);
  w2.finish();
  BOOST_TEST(buf.size() == 10000u);
  BOOST_TEST(buf.capacity() >= 10000u);
  BOOST_TEST(std::count(buf.begin(), buf.end(), uint8_t(0)) == 9999);
  BOOST_TEST(buf[9999] == 7);

  // A writer destroyed before finish() (an encode that failed) gives the
  // allocation back, empty.
  const uint8_t* const grown = buf.data();
  {
    LE w3;
    w3.adopt(buf);
    w3.reserve(16);
  }
  BOOST_TEST(buf.empty());
  BOOST_TEST(buf.data() == grown);
}

BOOST_AUTO_TEST_CASE(pointer_fixups_and_record) {
  LE w;
  uint64_t slot = w.reserve(8);   // placeholder written first...
  uint64_t slot32 = w.reserve(4);
  w.align(16);
  uint64_t target = w.reserve(4);  // ...target placed later
  w.put<uint32_t>(target, 0xdeadbeef);
  w.pointer(slot, 8, target, 0, "p");
  w.pointer(slot32, 4, target, 8, "q");  // relative to base 8
  w.record_pointer(0x40, 8, true);       // a registered null pointer
  BOOST_TEST(w.pointers().size() == 3u);
  BOOST_TEST(w.pointers()[2].null);
  auto b = w.finish();
  Reader<std::endian::little> r(b);
  BOOST_TEST(r.at<uint64_t>(0) == 16u);
  BOOST_TEST(r.at<uint32_t>(8) == 8u);
  BOOST_TEST(r.at<uint32_t>(16) == 0xdeadbeefu);
}

BOOST_AUTO_TEST_CASE(values_that_do_not_fit_are_refused) {
  LE w;
  w.reserve(4);
  BOOST_CHECK_THROW(w.put_uint(0, 2, 0x10000, "count"), EncodeError);
  BOOST_CHECK_NO_THROW(w.put_uint(0, 2, 0xffff, "count"));
  BOOST_CHECK_THROW(w.chars(0, "ABCDE", 4, false, "magic"), EncodeError);
  BOOST_CHECK_THROW(w.chars(0, "ABCD", 4, true, "name"), EncodeError);  // no room for the NUL
}

BOOST_AUTO_TEST_CASE(late_values_resolve_after_layout) {
  LE w;
  uint64_t size_slot = w.reserve(4);
  uint64_t region_slot = w.reserve(4);
  uint64_t ptr_slot = w.reserve(8);
  w.late({size_slot, 4, false, [&] { return w.pos(); }});
  w.late({region_slot, 4, false, [&] { return w.end_of(3) - w.start_of(3); }});
  w.late({ptr_slot, 8, true, [&] { return w.start_of(3) + 2; }});
  w.reserve(4);
  w.mark_start(3);
  w.reserve(10);
  w.mark_end(3);
  w.reserve(2);
  auto pointers_before = w.pointers().size();
  auto b = w.finish();
  Reader<std::endian::little> r(b);
  BOOST_TEST(r.at<uint32_t>(0) == 32u);       // file size
  BOOST_TEST(r.at<uint32_t>(4) == 10u);       // region size
  BOOST_TEST(r.at<uint64_t>(8) == 20u + 2u);  // region start + 2
  BOOST_TEST(pointers_before == 0u);
}

BOOST_AUTO_TEST_CASE(relocation_table_lists_late_pointers_too) {
  LE w;
  const uint64_t early = w.reserve(8), late_slot = w.reserve(8);
  w.pointer(early, 8, 0, 0, "p");                             // known now
  w.late({late_slot, 8, true, [&] { return w.start_of(1); }});  // known at the end
  w.mark_start(1);
  w.reserve(8);
  write_relocation_table(w, w.pos());
  auto bytes = w.finish();
  Reader<std::endian::little> r(bytes);
  const uint64_t at = 0x18;  // after the three 8-byte blocks
  BOOST_TEST(r.at<uint32_t>(at + 0x24) == 1u);        // one entry...
  BOOST_TEST(r.at<uint32_t>(at + 0x28) == 0u);        // ...from offset 0...
  BOOST_TEST(r.at<uint32_t>(at + 0x2c) == 0b11u);     // ...covering both slots
}


// The entries, as the format defines them: from the lowest slot not yet
// covered, one entry takes the slots at 0, 8, ... 248 bytes above it. A slot
// that is not 8-aligned relative to it starts an entry of its own later.
BOOST_AUTO_TEST_CASE(relocation_entries_cover_runs_of_32_slots) {
  using E = RelocationEntry;
  BOOST_TEST(relocation_entries({}).empty());
  BOOST_TEST((relocation_entries({0x10, 0x18, 0x10, 0x30}) == std::vector<E>{{0x10, 0b10011}}));  // a duplicate
  BOOST_TEST((relocation_entries({0x100, 0}) == std::vector<E>{{0, 1}, {0x100, 1}}));          // 256 above: the next
  BOOST_TEST((relocation_entries({0, 0xF8}) == std::vector<E>{{0, 0x80000001u}}));             // 248 above: bit 31
  BOOST_TEST((relocation_entries({0, 4, 8, 12, 0x104}) == std::vector<E>{{0, 0b11}, {4, 0b11}, {0x104, 1}}));
  BOOST_CHECK_THROW(relocation_entries({0x100000000ull}), EncodeError);

  // Against the definition, on random slots, some of them unaligned, some
  // repeated.
  uint64_t seed = 7;
  auto next = [&] { return (seed = seed * 6364136223846793005ull + 1442695040888963407ull) >> 33; };
  for (int round = 0; round < 200; ++round) {
    // Slots as dense as a file's pointers go through a bitmap. Every tenth
    // round is sparse and long enough for relocation_entries' radix sort;
    // every tenth, from the fifth, dense and long.
    const bool big = round % 10 == 0, dense = round % 10 == 5;
    std::vector<uint64_t> slots(big ? 3000 + next() % 3000 : dense ? 20000 + next() % 20000 : next() % 300);
    const uint64_t span = big ? 1u << 25 : dense ? 1u << 20 : 8192;
    for (auto& s : slots) s = (big ? (next() << 20 | next()) : next()) % (span / 2) * (next() % 8 == 0 ? 1 : 8) % span;
    std::set<uint64_t> left(slots.begin(), slots.end());
    std::vector<E> want;
    while (!left.empty()) {
      const uint64_t first = *left.begin();
      uint32_t mask = 0;
      for (uint32_t i = 0; i < 32; ++i)
        if (left.erase(first + 8 * i)) mask |= 1u << i;
      want.push_back({static_cast<uint32_t>(first), mask});
    }
    BOOST_TEST((relocation_entries(slots) == want), "round " << round);
  }
}
// A region the model leaves out is never placed: its start, end and size
// are 0, as a null pointer's offset (docs/schema-language.md, `region`).
BOOST_AUTO_TEST_CASE(unplaced_region_measures_0) {
  LE w;
  w.reserve(12);
  w.mark_start(1);
  w.reserve(4);
  w.mark_end(1);
  w.late({0, 4, false, [&] { return w.start_of(5); }});
  w.late({4, 4, false, [&] { return w.end_of(5) - w.start_of(5); }});
  w.late({8, 4, false, [&] { return w.end_of(1) - w.start_of(1); }});  // a placed one beside it
  auto bytes = w.finish();
  Reader<std::endian::little> r(bytes);
  BOOST_TEST(r.at<uint32_t>(0) == 0u);
  BOOST_TEST(r.at<uint32_t>(4) == 0u);
  BOOST_TEST(r.at<uint32_t>(8) == 4u);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(dictionaries)

std::string dic_error(const std::vector<std::string>& names) {
  try {
    build_dic(names);
  } catch (const EncodeError& e) {
    return e.what();
  }
  return "";
}

// A DIC's names must be distinct and non-empty; the first name that repeats
// an earlier one is named, in short lists (compared pairwise) and long ones
// (sorted).
BOOST_AUTO_TEST_CASE(repeated_and_empty_names_are_refused) {
  for (size_t n : {5u, 16u, 17u, 300u}) {
    std::vector<std::string> names;
    for (size_t i = 0; i < n; ++i) names.push_back("Name_" + std::to_string(i));
    BOOST_TEST(build_dic(names).size() == n + 1);
    auto twice = names;
    twice[n - 1] = names[1];  // the last repeats the second...
    twice[n / 2] = names[n / 2 - 1];  // ...and the middle one its neighbour: that one is first
    const std::string first = names[n / 2 - 1];
    BOOST_TEST(dic_error(twice).find("name '" + first + "' appears twice") != std::string::npos, n << " names");
    auto empty = names;
    empty[n - 2] = "";
    BOOST_TEST(dic_error(empty).find("empty name") != std::string::npos, n << " names");
  }
  BOOST_TEST(dic_error({"a", "b", "a", "b", "a"}).find("'a' appears twice") != std::string::npos);
}

// Names are compared as big-endian numbers: a leading NUL changes nothing,
// and the tree's bits count from the last byte.
BOOST_AUTO_TEST_CASE(bits_count_from_the_last_byte) {
  const auto t = build_dic({"A", "C"});  // 0x41, 0x43: they first differ in bit 1
  BOOST_REQUIRE(t.size() == 3u);
  BOOST_TEST(t[0].bit == 0xFFFFFFFFu);
  BOOST_TEST(t[1].bit == 0u);  // "A": its first set bit
  BOOST_TEST(t[2].bit == 1u);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(pools)

BOOST_AUTO_TEST_CASE(cstring_pool_sorted_and_shared) {
  LE w;
  StringPool pool(StringPool::Kind::CString, StringPool::Order::Sorted, 1, 0);
  pool.keep("");
  uint64_t a = w.reserve(8), b = w.reserve(8), c = w.reserve(8);
  pool.ref("walk", a, 8, false, true);
  pool.ref("jump", b, 8, false, true);
  pool.ref("walk", c, 8, false, true);  // shared: same offset as a
  pool.place(w);
  pool.patch(w);
  BOOST_TEST(pool.size() == 3u);
  BOOST_TEST(w.pointers().size() == 3u);
  auto bytes = w.finish();
  // "" first (sorted), then "jump", then "walk": 24 + 1 + 5 + 5 bytes.
  BOOST_TEST(bytes.size() == 35u);
  Reader<std::endian::little> r(bytes);
  BOOST_TEST(r.at<uint64_t>(0) == 30u);
  BOOST_TEST(r.at<uint64_t>(8) == 25u);
  BOOST_TEST(r.at<uint64_t>(16) == 30u);
  BOOST_TEST(r.cstring(24) == "");
  BOOST_TEST(r.cstring(30) == "walk");
}

// A NUL inside a string of a NUL-terminated pool is refused, every time the
// string is referenced (the check is made when a string first comes); a
// Pascal pool stores its length and takes it.
BOOST_AUTO_TEST_CASE(a_nul_inside_a_cstring_is_refused) {
  using namespace std::string_view_literals;
  LE w;
  StringPool pool(StringPool::Kind::CString, StringPool::Order::FirstUse, 1, 0);
  const uint64_t a = w.reserve(8);
  pool.ref("walk", a, 8, false, true);
  BOOST_CHECK_THROW(pool.ref("wa\0lk"sv, a, 8, false, true), EncodeError);
  BOOST_CHECK_THROW(pool.ref("wa\0lk"sv, a, 8, false, true), EncodeError);
  BOOST_CHECK_THROW(pool.keep("\0"sv), EncodeError);
  StringPool unshared(StringPool::Kind::CString, StringPool::Order::FirstUse, 1, 0, StringPool::Header::None, 1, false);
  BOOST_CHECK_THROW(unshared.ref("x\0"sv, a, 8, false, true), EncodeError);
  StringPool pascal(StringPool::Kind::Pascal16, StringPool::Order::FirstUse, 2, 1);
  BOOST_CHECK_NO_THROW(pascal.ref("wa\0lk"sv, a, 4, true, false));
}

// A scoped pool starts again empty for each instance of its scope.
BOOST_AUTO_TEST_CASE(restarted_pool_holds_only_the_new_strings) {
  LE w;
  StringPool pool(StringPool::Kind::CString, StringPool::Order::FirstUse, 1, 0);
  const uint64_t a = w.reserve(8);
  pool.ref("first", a, 8, false, true);
  pool.place(w);
  pool.patch(w);
  pool.restart();
  BOOST_TEST(!pool.placed());
  BOOST_TEST(pool.size() == 0u);
  const uint64_t b = w.reserve(8);
  pool.ref("second", b, 8, false, true);
  pool.ref("first", b, 8, false, true);  // a string of the last scope comes again
  pool.place(w);
  pool.patch(w);
  BOOST_TEST(pool.size() == 2u);
  const auto bytes = w.finish();
  Reader<std::endian::little> r(bytes);
  BOOST_TEST(r.cstring(r.at<uint64_t>(a)) == "first");
  BOOST_TEST(r.at<uint64_t>(b) == 8u + 6u + 8u + 7u);  // "first" again, after "second", in the new pool
  BOOST_TEST(bytes.size() == 8u + 6u + 8u + 7u + 6u);
}

BOOST_AUTO_TEST_CASE(pascal_pool_aligned_and_relative) {
  LE w;
  StringPool pool(StringPool::Kind::Pascal16, StringPool::Order::FirstUse, 2, 1);
  uint64_t a = w.reserve(4), b = w.reserve(4);
  pool.ref("abc", a, 4, true, false);      // relative to the pool start
  pool.ref("de", b, 4, true, false, 2);    // pointing at the characters
  w.reserve(1);                            // make the pool start unaligned
  pool.place(w);
  pool.patch(w);
  auto bytes = w.finish();
  Reader<std::endian::little> r(bytes);
  // pool at 10 (9 aligned to 2): "abc" = len 3, 'abc', NUL (6 bytes) -> next at 16.
  BOOST_TEST(r.at<uint32_t>(0) == 0u);
  BOOST_TEST(r.at<uint32_t>(4) == 6u + 2u);
  BOOST_TEST(r.at<uint16_t>(10) == 3u);
  BOOST_TEST(r.at<uint16_t>(16) == 2u);
  BOOST_TEST(r.cstring(18) == "de");
}

BOOST_AUTO_TEST_CASE(string_after_placement_is_an_error) {
  LE w;
  StringPool pool(StringPool::Kind::CString, StringPool::Order::FirstUse, 1, 0);
  pool.ref("a", w.reserve(8), 8, false, true);
  pool.place(w);
  pool.ref("late", w.reserve(8), 8, false, true);
  BOOST_CHECK_THROW(pool.patch(w), EncodeError);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(field_positions)

BOOST_AUTO_TEST_CASE(a_chunked_list_keeps_order_and_addresses_across_chunks) {
  struct Big {
    uint64_t a, b, c;  // 24 bytes: 2,048 a chunk
  };
  static_assert(ChunkedList<Big>::kPerChunk == 2048);
  ChunkedList<Big> list;
  BOOST_TEST(list.empty());
  for (uint64_t i = 0; i < 5000; ++i) list.push_back({i, i * 3, ~i});
  const Big* first = &list[0];
  const Big* last_of_first_chunk = &list[2047];
  for (uint64_t i = 5000; i < 7000; ++i) list.push_back({i, i * 3, ~i});
  BOOST_TEST(&list[0] == first);  // growing moves nothing
  BOOST_TEST(&list[2047] == last_of_first_chunk);
  BOOST_TEST(list.size() == 7000u);
  uint64_t i = 0;
  for (const Big& b : list) {
    BOOST_TEST_REQUIRE((b.a == i && b.b == i * 3 && b.c == ~i), "element " << i);
    ++i;
  }
  BOOST_TEST(i == 7000u);
  list.clear();  // emptied, and used again
  BOOST_TEST(list.empty());
  BOOST_TEST((list.begin() == list.end()));
  list.push_back({7, 8, 9});
  BOOST_TEST(list.size() == 1u);
  BOOST_TEST(list[0].b == 8u);
}

// Keys as put_ makes them: addresses inside model objects, ids per field.
struct Key {
  const void* key;
  uint32_t id;
};

BOOST_AUTO_TEST_CASE(gets_in_the_order_of_the_sets_and_out_of_it) {
  std::vector<uint64_t> objects(3000);
  std::vector<Key> keys;
  for (auto& o : objects)
    for (uint32_t id = 1; id <= 3; ++id) keys.push_back({&o, id});
  auto value = [](size_t i) { return 0x1000 + 8 * i; };
  auto filled = [&] {
    PtrMap m;
    for (size_t i = 0; i < keys.size(); ++i) m.set(keys[i].key, keys[i].id, value(i));
    return m;
  };

  {  // As place_ does: in order, each got once per element, some not at all.
    PtrMap m = filled();
    for (size_t i = 0; i < keys.size(); ++i)
      for (size_t n = 0; n < i % 3; ++n) BOOST_TEST_REQUIRE(m.get(keys[i].key, keys[i].id) == value(i), "key " << i);
  }
  {  // The first key last (a root's own field), then each pair swapped.
    PtrMap m = filled();
    BOOST_TEST(m.get(keys.back().key, keys.back().id) == value(keys.size() - 1));
    BOOST_TEST(m.get(keys[0].key, keys[0].id) == value(0));
    for (size_t i = 0; i + 1 < keys.size(); i += 2) {
      BOOST_TEST_REQUIRE(m.get(keys[i + 1].key, keys[i + 1].id) == value(i + 1));
      BOOST_TEST_REQUIRE(m.get(keys[i].key, keys[i].id) == value(i));
    }
  }
  {  // Any order, with sets between the gets: reading the log from its start
     // stops paying off, and the index answers (and takes the later sets).
    PtrMap m;
    uint64_t seed = 11;
    auto next = [&] { return (seed = seed * 6364136223846793005ull + 1442695040888963407ull) >> 33; };
    size_t set = 0;
    for (int gets = 0; gets < 30000;) {
      if (set < keys.size() && (set == 0 || next() % 2 == 0)) {
        m.set(keys[set].key, keys[set].id, value(set));
        ++set;
        continue;
      }
      const size_t i = next() % set;
      BOOST_TEST_REQUIRE(m.get(keys[i].key, keys[i].id) == value(i), "get " << gets << ", key " << i);
      ++gets;
    }
    BOOST_TEST(set == keys.size());
  }
  {  // A struct and its first member share an address; the id tells them apart.
    PtrMap m;
    m.set(&objects[0], 1, 10);
    m.set(&objects[0], 2, 20);
    BOOST_TEST(m.get(&objects[0], 2) == 20u);
    BOOST_TEST(m.get(&objects[0], 1) == 10u);
    BOOST_CHECK_THROW(m.get(&objects[0], 3), EncodeError);
    BOOST_CHECK_THROW(m.get(&objects[1], 1), EncodeError);
  }
  BOOST_CHECK_THROW(PtrMap().get(&objects[0], 1), EncodeError);
}

BOOST_AUTO_TEST_SUITE_END()

// decode(bytes, layout) (layout.h decode_with_layout), on fake formats whose
// reader and writer count their calls: a file exactly as the writer makes
// it takes the short way (one plain read, one fresh write, an empty
// layout); any other file the full way, as before.
BOOST_AUTO_TEST_SUITE(layout_short_way)

struct Calls {
  int plain = 0, noted = 0, fresh = 0, traced = 0, again = 0;
};

BOOST_AUTO_TEST_CASE(a_file_as_the_writer_makes_it_takes_the_short_way) {
  const std::vector<uint8_t> file{1, 2, 3, 4};
  Calls c;
  Layout lay;
  lay.end_align = 16;  // whatever the caller's layout held is replaced
  auto dec = [&](Layout* l) {
    if (l) {
      ++c.noted;
      l->note(0, 2);
    } else {
      ++c.plain;
    }
    return 7;
  };
  auto enc = [&](int, const Layout* l, LayoutTrace* t) {
    ++(l || t ? c.traced : c.fresh);
    return file;
  };
  auto again = [&](int, const Layout&) {
    ++c.again;
    return file;
  };
  BOOST_TEST(decode_with_layout<int>(file.data(), file.size(), lay, dec, enc, again) == 7);
  BOOST_TEST(lay.empty());
  BOOST_TEST(c.plain == 1);
  BOOST_TEST(c.fresh == 1);
  BOOST_TEST(c.noted == 0);
  BOOST_TEST(c.traced == 0);
  BOOST_TEST(c.again == 0);
}

// The writer puts the block of slot 0 at 2, the file has it at 3: the full
// way keeps that slot, and the second write with it proves the file.
BOOST_AUTO_TEST_CASE(any_other_file_takes_the_full_way) {
  const std::vector<uint8_t> file{9, 0, 0, 5}, fresh{9, 0, 5};
  Calls c;
  Layout lay;
  auto dec = [&](Layout* l) {
    if (l) {
      ++c.noted;
      l->note(0, 3);
    } else {
      ++c.plain;
    }
    return 7;
  };
  auto enc = [&](int, const Layout* l, LayoutTrace* t) {
    ++(l || t ? c.traced : c.fresh);
    if (!t) return fresh;
    t->placed.emplace_back(0, false);
    t->covered = {{0, 1}, {3, 4}};
    return file;
  };
  auto again = [&](int, const Layout& l) {
    ++c.again;
    return l.find(0) == std::optional<uint64_t>(3) ? file : fresh;
  };
  BOOST_TEST(decode_with_layout<int>(file.data(), file.size(), lay, dec, enc, again) == 7);
  BOOST_TEST(lay.at.size() == 1u);
  BOOST_TEST(c.plain == 1);
  BOOST_TEST(c.fresh == 1);
  BOOST_TEST(c.noted == 1);
  BOOST_TEST(c.traced == 1);
  BOOST_TEST(c.again == 1);
}

// A file that comes back neither way is still refused.
BOOST_AUTO_TEST_CASE(a_file_that_does_not_come_back_is_still_refused) {
  const std::vector<uint8_t> file{9, 0, 0, 5}, fresh{9, 0, 6, 0};
  Layout lay;
  auto dec = [&](Layout*) { return 7; };
  auto enc = [&](int, const Layout*, LayoutTrace* t) {
    if (t) t->covered = {{0, 4}};
    return fresh;
  };
  auto again = [&](int, const Layout&) { return fresh; };
  BOOST_CHECK_THROW(decode_with_layout<int>(file.data(), file.size(), lay, dec, enc, again), LayoutNotKept);
}

BOOST_AUTO_TEST_SUITE_END()
