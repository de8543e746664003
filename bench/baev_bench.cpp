// Throughput and peak-memory benchmarks for the generated BAEV reader/writer.
//
// For each file size (about 1, 16 and 64 MiB once encoded):
//   BM_Decode  bytes already in memory -> full binschema::baev::File -> destroyed
//   BM_Encode  binschema::baev::File -> bytes (the vector is freed in the loop too)
//   BM_Memcpy  the same number of bytes into a preallocated buffer (the ceiling)
//   BM_MemcpyFresh  the same copy into a newly allocated buffer each time
// Every one reports bytes/s relative to the encoded file size.
//
// Peak memory: this binary replaces every global operator new/delete with a
// version that can count live heap bytes (malloc_usable_size of each block).
// Counting is switched on only for one extra, untimed decode per size, so the
// timed loops pay nothing but a predictable branch. BM_Decode then reports
//   peak_over_file  = peak live heap bytes during that decode (counted from
//                     just before decode() starts, so the input buffer, which
//                     already exists, is excluded) / file size
//   peak_incl_input = (that peak + file size) / file size
//   model_over_file = live heap bytes held by the returned model / file size
//   allocs          = operator new calls during that one decode
// BM_Decode, BM_Encode and BM_MemcpyFresh also report `faults`, the minor
// page faults per iteration (fresh memory touched for the first time): on
// virtual machines with slow page faults they dominate the large sizes.

#include <benchmark/benchmark.h>
#include <malloc.h>
#include <sys/resource.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <new>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "baev.h"
#include "counting_heap.h"
#include "models.h"
#include "binschema/hash.h"

// ---------------------------------------------------------------------------
// Deterministic model generator
// ---------------------------------------------------------------------------
namespace {

namespace baev = binschema::baev;

struct Case {
  baev::File model;
  std::vector<uint8_t> bytes;
};

// One model and its encoding per size, built on first use (outside any timed
// region) and kept for the whole run.
const Case& get_case(int mib) {
  static std::map<int, std::unique_ptr<Case>> cache;
  auto& slot = cache[mib];
  if (!slot) {
    slot = std::make_unique<Case>();
    slot->model = bench::baev_model(uint64_t(mib) << 20, 0xbae5'0000ull + mib);
    slot->bytes = baev::encode(slot->model);
    if (!(baev::decode(slot->bytes) == slot->model))
      throw std::runtime_error("generated model does not round-trip");
    size_t anims = 0, trig = 0, params = 0;
    for (const auto& a : slot->model.data.actions)
      for (const auto& an : a.animations) {
        ++anims;
        for (const auto* v : {&an.triggers, &an.holds})
          for (const auto& t : *v) {
            ++trig;
            params += t.params.size();
          }
      }
    std::fprintf(stderr,
                 "[baev_bench] %d MiB case: %zu bytes, %zu actions, %zu animations, %zu triggers+holds, "
                 "%zu parameters, %zu events\n",
                 mib, slot->bytes.size(), slot->model.data.actions.size(), anims, trig, params,
                 slot->model.data.events.size());
  }
  return *slot;
}

// Minor page faults of this thread so far (first touches of fresh memory).
void BM_Decode(benchmark::State& state) {
  const Case& c = get_case(static_cast<int>(state.range(0)));
  measure_decode(state, c.bytes, [](std::span<const uint8_t> b) { return baev::decode(b); });
}

void BM_Encode(benchmark::State& state) {
  const Case& c = get_case(static_cast<int>(state.range(0)));
  measure_encode(state, c.bytes.size(), [&] { return baev::encode(c.model); });
}

void BM_Memcpy(benchmark::State& state) {
  const Case& c = get_case(static_cast<int>(state.range(0)));
  const size_t n = c.bytes.size();
  std::vector<uint8_t> dst(n, 1);  // preallocated and touched
  for (auto _ : state) {
    std::memcpy(dst.data(), c.bytes.data(), n);
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  set_bytes(state, n);
}

// The same copy into a freshly allocated, untouched buffer each time.
void BM_MemcpyFresh(benchmark::State& state) {
  measure_memcpy_fresh(state, get_case(static_cast<int>(state.range(0))).bytes);
}

#define BAEV_SIZES ->Arg(1)->Arg(16)->Arg(64)->Unit(benchmark::kMillisecond)
BENCHMARK(BM_Decode) BAEV_SIZES;
BENCHMARK(BM_Encode) BAEV_SIZES;
BENCHMARK(BM_Memcpy) BAEV_SIZES;
BENCHMARK(BM_MemcpyFresh) BAEV_SIZES;

}  // namespace

BENCHMARK_MAIN();
