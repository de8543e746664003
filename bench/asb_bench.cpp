// Throughput and peak-memory benchmarks for the generated ASB reader/writer.
//
// Test data: examples/asb-every-node.yaml (one node of each of the 25 types and
// every section), repeated until the encoded file is about 1 or 16 MiB. Copy k
// (k = 0 is the example itself) adds:
//   - its 25 nodes, every node index in their connection payloads shifted by
//     25 k, Event bodies pointing at copy k's event group, `sync_index` shifted
//     by copy k's sync index entries, state-transition connections pointing at
//     copy k's state transition; new GUIDs;
//   - its 2 commands, named `<name>_<k>`;
//   - its event group, 3 sync data entries (+ 3 sync indices) and state transition;
//   - distinct strings: the command names and the 4 animation names
//     (`Npc_Wait_<k>`, ...) are new in every copy; bone, event, condition and
//     parameter strings stay shared, as in real files;
//   - in the "distinct tags" cases (the default), 2 new tag groups: the first
//     command's and the first node's, each 3 tags out of a vocabulary of 64
//     (`Tag_00`..`Tag_63`, added once to the valid tag list), so the shared
//     tag-group pool grows by 2 groups per copy. The writer finds equal groups
//     by hash; BM_EncodeSharedTags encodes the same copies with the example's
//     two tag groups reused everywhere.
// The sections that are not per-node (blackboard, partials, bone groups,
// calculation presets, transitions, command groups, EXB, AS markings, material
// blends, enum resolves) are kept once.
//
// `root_node` and the state transitions' node fields are u16: a file can only
// start commands and state transitions at nodes 0..65535. The 16 MiB case has
// about 160,000 nodes, so copy k's commands and state transition use the nodes
// of copy (k mod 2621) (2621 * 25 <= 65536): several commands then share a
// graph, and every index in the file stays valid.
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

#ifndef BINSCHEMA_SOURCE_DIR
#error "BINSCHEMA_SOURCE_DIR must name the source tree (it holds examples/asb-every-node.yaml)"
#endif

// ---------------------------------------------------------------------------
// Test files: the every-node example, repeated
// ---------------------------------------------------------------------------
namespace {

namespace asb = binschema::asb;

[[noreturn]] void fail(const std::string& msg) {
  std::fprintf(stderr, "[asb_bench] %s\n", msg.c_str());
  std::abort();
}

const asb::File& example() {
  static const asb::File f = [] {
    const std::string path = std::string(BINSCHEMA_SOURCE_DIR) + "/examples/asb-every-node.yaml";
    try {
      return asb::from_text(YAML::LoadFile(path));
    } catch (const std::exception& e) {
      fail("cannot load " + path + ": " + e.what());
    }
  }();
  return f;
}

constexpr int kVocabulary = 64;  // Tag_00 .. Tag_63

std::string tag_name(int i) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "Tag_%02d", i);
  return buf;
}

// The i-th 3-tag subset of the vocabulary, in lexicographic order (so that
// neighbouring groups share their first tags, as a sharing scan would see in a
// real file). There are C(64, 3) = 41,664 of them.
asb::TagGroup tag_combo(uint32_t i) {
  static const std::vector<std::array<uint8_t, 3>> combos = [] {
    std::vector<std::array<uint8_t, 3>> v;
    for (int a = 0; a < kVocabulary; ++a)
      for (int b = a + 1; b < kVocabulary; ++b)
        for (int c = b + 1; c < kVocabulary; ++c)
          v.push_back({uint8_t(a), uint8_t(b), uint8_t(c)});
    return v;
  }();
  if (i >= combos.size()) fail("out of distinct tag groups");
  asb::TagGroup g;
  for (uint8_t t : combos[i]) g.tags.push_back(tag_name(t));
  return g;
}

template <class C>
void shift_connections(C& c, uint32_t node_off, int32_t st_off) {
  for (auto* v : {&c.states, &c.unknowns, &c.events, &c.frames})
    for (auto& e : *v) e.node += node_off;
  for (auto& e : c.children) e.node += node_off;
  for (auto& e : c.transitions) {
    e.node += node_off;
    if (e.index >= 0) e.index += st_off;
  }
  if constexpr (requires { c.default_child.node; }) c.default_child.node += node_off;
}

void new_guid(asb::Guid& g, uint32_t k) { g.data1 += k << 16; }

// The example plus copies 1..copies-1 of its per-node content (see the top of the file).
asb::File make_model(uint32_t copies, bool distinct_tags) {
  const asb::File& ex = example();
  asb::File f = ex;
  const uint32_t n_nodes = static_cast<uint32_t>(ex.nodes.size());
  const uint32_t n_sync = static_cast<uint32_t>(ex.sync_data.size());
  const uint32_t n_sync_idx = static_cast<uint32_t>(ex.sync_indices.size());
  const uint32_t n_events = static_cast<uint32_t>(ex.event_groups.size());
  const uint32_t n_st = static_cast<uint32_t>(ex.state_transitions.entries.size());
  // Copies whose nodes a u16 node index can still reach.
  const uint32_t reachable = 0x10000 / n_nodes;

  for (int i = 0; i < kVocabulary; ++i) f.valid_tags.tags.push_back(tag_name(i));

  f.nodes.reserve(size_t(n_nodes) * copies);
  f.commands.reserve(ex.commands.size() * copies);
  for (uint32_t k = 1; k < copies; ++k) {
    std::string suffix = "_";  // (not "_" + to_string: GCC 12 warns wrongly about it)
    suffix += std::to_string(k);
    const uint32_t node_off = k * n_nodes;
    const uint32_t u16_node_off = (k % reachable) * n_nodes;

    for (size_t ci = 0; ci < ex.commands.size(); ++ci) {
      asb::Command c = ex.commands[ci];
      c.name += suffix;
      c.root_node = static_cast<uint16_t>(c.root_node + u16_node_off);
      new_guid(c.guid, k);
      if (distinct_tags && ci == 0) c.tags = tag_combo(2 * k);
      f.commands.push_back(std::move(c));
    }

    for (size_t ni = 0; ni < ex.nodes.size(); ++ni) {
      asb::Node n = ex.nodes[ni];
      n.sync_index = static_cast<uint16_t>(n.sync_index + k * n_sync_idx);
      new_guid(n.guid, k);
      if (distinct_tags && ni == 0) n.tags = tag_combo(2 * k + 1);
      std::visit(
          [&](auto& b) {
            if constexpr (requires { b.connections; })
              shift_connections(b.connections, node_off, static_cast<int32_t>(k * n_st));
            if constexpr (requires { b.event_group; }) b.event_group += k * n_events;
            if constexpr (requires { b.animation.value; })
              if (!b.animation.value.empty()) b.animation.value += suffix;
          },
          static_cast<asb::Node::Body::Base&>(n.body));
      f.nodes.push_back(std::move(n));
    }

    for (uint32_t i = 0; i < n_sync_idx; ++i) f.sync_indices.push_back(ex.sync_indices[i] + k * n_sync);
    for (const asb::SyncData& s : ex.sync_data) {
      f.sync_data.push_back(s);
      new_guid(f.sync_data.back().guid, k);
    }
    for (const asb::StateTransition& t : ex.state_transitions.entries) {
      f.state_transitions.entries.push_back(t);
      auto& e = f.state_transitions.entries.back();
      e.current_node = static_cast<uint16_t>(e.current_node + u16_node_off);
      e.target_node = static_cast<uint16_t>(e.target_node + u16_node_off);
    }
    for (const asb::EventGroup& g : ex.event_groups) f.event_groups.push_back(g);
  }
  return f;
}

// The number of copies whose distinct-tags encoding is closest to `target`
// bytes (the size grows linearly with the copies, up to a few bytes of alignment).
uint32_t copies_for(uint64_t target) {
  const double s1 = double(asb::encode(make_model(1, true)).size());
  const double s9 = double(asb::encode(make_model(9, true)).size());
  const double per = (s9 - s1) / 8;
  return static_cast<uint32_t>(std::max(1.0, (double(target) - s1) / per + 1.5));
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
    c.copies = distinct_tags ? copies_for(uint64_t(mib) << 20) : get_case(mib, true).copies;
    c.model = make_model(c.copies, distinct_tags);
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
