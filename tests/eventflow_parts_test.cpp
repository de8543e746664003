// The runtime pieces Nintendo's EventFlow files need, checked against the
// real BotW files in ../shared/samples/bfevfl/: each file's relocation table
// is rebuilt from its own pointer list, each dictionary from its own names,
// and the string pool from its own strings, and must come out byte for byte.
#define BOOST_TEST_MODULE eventflow_parts_test
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cstring>

#include "binschema/dic.h"
#include "binschema/reader.h"
#include "binschema/relocation.h"
#include "binschema/string_pool.h"
#include "samples.h"

using namespace binschema;
using LE = Reader<std::endian::little>;

namespace {

std::string pascal_at(const LE& r, uint64_t off) {
  uint16_t n = r.at<uint16_t>(off);
  r.need(off + 2, n);
  return std::string(reinterpret_cast<const char*>(r.data() + off + 2), n);
}

struct Relt {
  uint64_t at, data_end;
  std::vector<uint64_t> slots;
};

Relt parse_relt(const LE& r) {
  Relt t;
  t.at = r.at<uint32_t>(0x18);
  BOOST_REQUIRE(std::memcmp(r.data() + t.at, "RELT", 4) == 0);
  t.data_end = r.at<uint32_t>(t.at + 0x1c);
  uint32_t n = r.at<uint32_t>(t.at + 0x24);
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t off = r.at<uint32_t>(t.at + 0x28 + 8 * i), mask = r.at<uint32_t>(t.at + 0x2c + 8 * i);
    for (int b = 0; b < 32; ++b)
      if (mask >> b & 1) t.slots.push_back(off + 8ull * b);
  }
  return t;
}

}  // namespace

BOOST_AUTO_TEST_CASE(relocation_tables_rebuild_exactly) {
  for (const auto& path : samples::files("bfevfl")) {
    BOOST_TEST_CONTEXT(path.filename().string()) {
      const auto bytes = samples::read(path);
      LE r(bytes);
      Relt t = parse_relt(r);
      BOOST_TEST(t.slots.size() > 0u);
      Writer<std::endian::little> w;
      w.bytes(w.reserve(t.at), bytes.data(), t.at);
      for (uint64_t s : t.slots) w.record_pointer(s, 8, false);
      BOOST_TEST(write_relocation_table(w, t.data_end) == t.at);
      BOOST_TEST((w.finish() == bytes));
    }
  }
}

BOOST_AUTO_TEST_CASE(dictionaries_rebuild_exactly) {
  size_t dics = 0, names = 0;
  for (const auto& path : samples::files("bfevfl")) {
    BOOST_TEST_CONTEXT(path.filename().string()) {
      const auto bytes = samples::read(path);
      LE r(bytes);
      // Every DIC is reached through a relocated pointer; look at each target.
      for (uint64_t slot : parse_relt(r).slots) {
        uint64_t at = r.at<uint64_t>(slot);
        if (at == 0 || at + 0x18 > bytes.size() || std::memcmp(bytes.data() + at, "DIC ", 4) != 0) continue;
        uint32_t n = r.at<uint32_t>(at + 4);
        std::vector<DicEntry> in_file;
        std::vector<std::string> keys;
        for (uint32_t i = 0; i <= n; ++i) {
          uint64_t e = at + 8 + 0x10ull * i;
          DicEntry d{r.at<uint32_t>(e), r.at<uint16_t>(e + 4), r.at<uint16_t>(e + 6),
                     pascal_at(r, r.at<uint64_t>(e + 8))};
          if (i) keys.push_back(d.name);
          in_file.push_back(d);
        }
        BOOST_TEST((build_dic(keys) == in_file), "DIC at " << hex(at));
        ++dics;
        names += n;
      }
    }
  }
  BOOST_TEST_MESSAGE("dictionaries rebuilt: " << dics << " (" << names << " names)");
  BOOST_TEST(dics >= 14u);  // every file has at least a flowchart and a timeline DIC
}

BOOST_AUTO_TEST_CASE(string_pools_rebuild_exactly) {
  for (const auto& path : samples::files("bfevfl")) {
    BOOST_TEST_CONTEXT(path.filename().string()) {
      const auto bytes = samples::read(path);
      LE r(bytes);
      Relt t = parse_relt(r);
      // The pool is the last block before the relocation table.
      auto it = std::search(bytes.begin(), bytes.end(), std::begin("STR "), std::end("STR ") - 1);
      BOOST_REQUIRE(it != bytes.end());
      uint64_t start = static_cast<uint64_t>(it - bytes.begin());
      uint32_t count = r.at<uint32_t>(start + 0x10);
      std::vector<std::string> in_order;
      uint64_t p = start + 0x14;
      for (uint32_t i = 0; i <= count; ++i) {
        in_order.push_back(pascal_at(r, p));
        p += 2 + in_order.back().size() + 1;
        p += p & 1;
      }
      BOOST_TEST(p == t.data_end);
      // Add the strings in a scrambled order: the pool must sort them back.
      std::vector<std::string> scrambled = in_order;
      std::reverse(scrambled.begin(), scrambled.end());
      Writer<std::endian::little> w;
      w.bytes(w.reserve(start), bytes.data(), start);
      StringPool pool(StringPool::Kind::Pascal16, StringPool::Order::ReversedBits, 2, 0, StringPool::Header::Str, 8);
      for (const auto& s : scrambled) pool.keep(s);
      pool.place(w);
      BOOST_TEST(w.pos() == t.data_end);
      auto out = w.finish();
      BOOST_TEST((out == std::vector<uint8_t>(bytes.begin(), bytes.begin() + static_cast<long>(t.data_end))));
    }
  }
}

BOOST_AUTO_TEST_CASE(reversed_bits_key_examples) {
  BOOST_TEST(StringPool::reversed_bits_key("") == "0");
  BOOST_TEST(StringPool::reversed_bits_key("A") == "1000001");   // 0x41 = 1000001, reversed
  BOOST_TEST(StringPool::reversed_bits_key("a") == "1000011");   // 0x61 = 1100001
  BOOST_TEST(StringPool::reversed_bits_key("AB") == "010000101000001");  // 0x4142: 15 digits
  BOOST_TEST(StringPool::reversed_bits_key(std::string("\0A", 2)) == "1000001");
}

// place() sorts by the keys packed eight digits to a byte: the digits and the
// order must be reversed_bits_key's, prefixes and padding bits included.
BOOST_AUTO_TEST_CASE(reversed_bits_packed_keys_are_the_digits) {
  std::vector<std::string> strings = {"", std::string(1, '\0'), std::string("\0\0", 2), "A", "a", "AB", "BA", "\x01",
                                      "\x80", "\xff\xff", "Ab", "EventFlowActor", "EventFlowActorX"};
  uint32_t seed = 12345;
  for (int i = 0; i < 300; ++i) {
    std::string s;
    seed = seed * 1103515245u + 12345u;
    const int len = static_cast<int>(seed >> 16) % 6;
    for (int k = 0; k < len; ++k) {
      seed = seed * 1103515245u + 12345u;
      const uint32_t r = seed >> 16;
      s += static_cast<char>(r % 4 == 0 ? r % 3 : r % 256);  // small bytes often: long runs of zero digits
    }
    strings.push_back(s);
  }
  std::vector<uint8_t> bits;
  std::vector<std::pair<uint32_t, uint32_t>> keys;
  for (const auto& s : strings) keys.push_back(StringPool::packed_reversed_bits(s, bits));
  for (size_t i = 0; i < strings.size(); ++i) {
    std::string digits;
    for (uint32_t d = 0; d < keys[i].second; ++d)
      digits += (bits[keys[i].first + d / 8] >> (7 - d % 8)) & 1 ? '1' : '0';
    BOOST_TEST(digits == StringPool::reversed_bits_key(strings[i]));
  }
  for (size_t i = 0; i < strings.size(); ++i)
    for (size_t j = 0; j < strings.size(); ++j) {
      const bool packed = StringPool::packed_less(bits.data() + keys[i].first, keys[i].second,
                                                  bits.data() + keys[j].first, keys[j].second);
      const bool digits = StringPool::reversed_bits_key(strings[i]) < StringPool::reversed_bits_key(strings[j]);
      if (packed != digits) BOOST_ERROR("order of string " << i << " and " << j);
    }
}
