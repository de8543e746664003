// Throughput and peak-memory benchmarks for the generated ASB reader/writer.
//
// Test data: bench::asb_model (models.cpp says how it repeats
// examples/asb-every-node.yaml), about 1 and 16 MiB once encoded.
// BM_EncodeSharedTags encodes the same copies with the example's two tag
// groups reused everywhere.
//
// Benchmarks, for each size:
//   BM_Decode            bytes already in memory -> full binschema::asb::File -> destroyed
//   BM_Encode            binschema::asb::File -> bytes (the vector is freed in the loop too)
//   BM_EncodeSharedTags  the same, for the model whose tag groups are all shared
//   BM_MemcpyFresh       a copy of the file into a newly allocated buffer (the
//                        ceiling for anything that returns new memory)
// Every one reports bytes/s relative to the encoded file size.
//
// Peak memory is counted as in baev_bench.cpp: every global operator new/delete
// is replaced by a version that can count live heap bytes (malloc_usable_size),
// switched on only for one extra, untimed decode per size:
//   peak_over_file  = peak live heap bytes during that decode (the input buffer,
//                     which already exists, is excluded) / file size
//   peak_incl_input = (that peak + file size) / file size
//   model_over_file = live heap bytes held by the returned model / file size
//   allocs          = operator new calls during that one decode
// `faults` is the minor page faults per iteration of the timed loop.
//
// Every generated file is checked before anything is timed: decode(bytes)
// must equal the model and encode(decode(bytes)) must equal bytes, otherwise
// the program aborts.

#include <benchmark/benchmark.h>
#include <malloc.h>
#include <sys/resource.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <memory>
#include <new>
#include <span>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "asb.h"
#include "counting_heap.h"
#include "models.h"


// ---------------------------------------------------------------------------
// Test files: the every-node example, repeated
// ---------------------------------------------------------------------------
namespace {

namespace asb = binschema::asb;

[[noreturn]] void fail(const std::string& msg) {
  std::fprintf(stderr, "[asb_bench] %s\n", msg.c_str());
  std::abort();
}

struct Case {
  asb::File model;
  std::vector<uint8_t> bytes;
  uint32_t copies = 0;
};

// The tag-group references in the order the writer meets them: commands, then
// node headers, then bodies (InitialFrame, PreviousTagSelector children).
std::vector<const asb::TagGroup*> tag_refs(const asb::File& f) {
  std::vector<const asb::TagGroup*> out;
  for (const auto& c : f.commands)
    if (c.tags) out.push_back(&*c.tags);
  for (const auto& n : f.nodes)
    if (n.tags) out.push_back(&*n.tags);
  for (const auto& n : f.nodes)
    std::visit(
        [&](const auto& b) {
          if constexpr (requires { b.tags; })
            if (b.tags) out.push_back(&*b.tags);
          if constexpr (requires { b.connections.children[0].tags; })
            for (const auto& ch : b.connections.children)
              if (ch.tags) out.push_back(&*ch.tags);
        },
        static_cast<const asb::Node::Body::Base&>(n.body));
  return out;
}

// How many distinct tag groups the references hold (what the writer stores).
size_t distinct_tag_groups(const std::vector<const asb::TagGroup*>& refs) {
  std::set<std::vector<std::string>> seen;
  for (const asb::TagGroup* v : refs) seen.insert(v->tags);
  return seen.size();
}

// One model and its encoding per (size, tag mode), built on first use (outside
// any timed region) and kept for the whole run.
const Case& get_case(int mib, bool distinct_tags) {
  static std::map<std::pair<int, bool>, std::unique_ptr<Case>> cache;
  auto& slot = cache[{mib, distinct_tags}];
  if (!slot) {
    slot = std::make_unique<Case>();
    Case& c = *slot;
    // The shared-tags model has as many copies as the distinct-tags one, so
    // that the two encodes differ only by the tag groups (2 per copy).
    c.copies = distinct_tags ? bench::asb_copies_for(uint64_t(mib) << 20) : get_case(mib, true).copies;
    c.model = bench::asb_model(c.copies, distinct_tags);
    try {
      c.bytes = asb::encode(c.model);
    } catch (const std::exception& e) {
      fail(std::to_string(mib) + " MiB case: encode failed: " + e.what());
    }
    try {
      const asb::File back = asb::decode(c.bytes);
      if (!(back == c.model)) fail(std::to_string(mib) + " MiB case: decode(encode(model)) != model");
      if (asb::encode(back) != c.bytes) fail(std::to_string(mib) + " MiB case: encode(decode(bytes)) != bytes");
    } catch (const std::exception& e) {
      fail(std::to_string(mib) + " MiB case: round trip failed: " + e.what());
    }
    const auto refs = tag_refs(c.model);
    const size_t distinct = distinct_tag_groups(refs);
    const uint32_t pool_size = c.bytes.size() >= 0x54 ? uint32_t(c.bytes[0x50]) | uint32_t(c.bytes[0x51]) << 8 |
                                                            uint32_t(c.bytes[0x52]) << 16 | uint32_t(c.bytes[0x53]) << 24
                                                      : 0;
    size_t events = 0;
    for (const auto& g : c.model.event_groups) events += g.triggers.size() + g.holds.size();
    std::fprintf(stderr,
                 "[asb_bench] %d MiB case (%s tags): %zu bytes, %u copies, %zu nodes, %zu commands, "
                 "%zu event groups (%zu events), %zu sync data, %zu tag-group refs, %zu distinct tag groups, "
                 "string pool %u bytes\n",
                 mib, distinct_tags ? "distinct" : "shared", c.bytes.size(), c.copies, c.model.nodes.size(),
                 c.model.commands.size(), c.model.event_groups.size(), events, c.model.sync_data.size(),
                 refs.size(), distinct, pool_size);
  }
  return *slot;
}

void BM_Decode(benchmark::State& state) {
  const Case& c = get_case(static_cast<int>(state.range(0)), true);
  measure_decode(state, c.bytes, [](std::span<const uint8_t> b) { return asb::decode(b); });
}

void encode_loop(benchmark::State& state, const Case& c) {
  measure_encode(state, c.bytes.size(), [&] { return asb::encode(c.model); });
}

void BM_Encode(benchmark::State& state) { encode_loop(state, get_case(static_cast<int>(state.range(0)), true)); }

void BM_EncodeSharedTags(benchmark::State& state) {
  encode_loop(state, get_case(static_cast<int>(state.range(0)), false));
}

void BM_MemcpyFresh(benchmark::State& state) {
  measure_memcpy_fresh(state, get_case(static_cast<int>(state.range(0)), true).bytes);
}

#define ASB_SIZES ->Arg(1)->Arg(16)->Unit(benchmark::kMillisecond)
BENCHMARK(BM_Decode) ASB_SIZES;
BENCHMARK(BM_Encode) ASB_SIZES;
BENCHMARK(BM_EncodeSharedTags) ASB_SIZES;
BENCHMARK(BM_MemcpyFresh) ASB_SIZES;

}  // namespace

BENCHMARK_MAIN();
