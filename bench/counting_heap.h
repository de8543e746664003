// What the benchmarks share: the counting global allocator (counting_heap.cpp
// replaces operator new/delete in every program it is linked into) and the
// counters every benchmark reports.
#pragma once

#include <atomic>
#include <cstdint>

namespace heap {
extern std::atomic<int64_t> live;    // bytes live since start()
extern std::atomic<int64_t> peak;    // the most live bytes since start()
extern std::atomic<int64_t> allocs;  // allocations since start()
// Starts a counting window: live and peak are measured from here on.
void start();
void stop();
}  // namespace heap

// ---- Measurements shared by the benchmarks ----------------------------------

#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <span>
#include <vector>

inline int64_t minor_faults() {
  rusage u{};
  getrusage(RUSAGE_THREAD, &u);
  return u.ru_minflt;
}

// Page faults per iteration, measured around the timed loop.
inline void set_faults(benchmark::State& state, int64_t before) {
  state.counters["faults"] = static_cast<double>(minor_faults() - before) /
                             static_cast<double>(std::max<int64_t>(1, state.iterations()));
}

inline void set_bytes(benchmark::State& state, size_t n) {
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(n));
  state.counters["file_MiB"] = static_cast<double>(n) / (1 << 20);
}

// Times decode(bytes) (the model destroyed inside the loop), then decodes once
// more, untimed, with the allocator counting: peak heap, model size, allocations.
template <class Decode>
void measure_decode(benchmark::State& state, std::span<const uint8_t> in, Decode decode) {
  const int64_t faults0 = minor_faults();
  for (auto _ : state) {
    auto f = decode(in);
    benchmark::DoNotOptimize(f);
  }
  set_faults(state, faults0);
  set_bytes(state, in.size());

  int64_t model_live = 0;
  heap::start();
  {
    auto f = decode(in);
    benchmark::DoNotOptimize(f);
    model_live = heap::live.load();
  }
  heap::stop();
  const double size = static_cast<double>(in.size());
  const double pk = static_cast<double>(heap::peak.load());
  state.counters["peak_over_file"] = pk / size;
  state.counters["peak_incl_input"] = (pk + size) / size;
  state.counters["model_over_file"] = static_cast<double>(model_live) / size;
  state.counters["allocs"] = static_cast<double>(heap::allocs.load());
  if (heap::live.load() != 0) state.SkipWithError("heap not back to zero after the model was destroyed");
}

// Times encode() of a model whose encoding is `expected_size` bytes (the
// output vector is freed inside the loop too).
template <class Encode>
void measure_encode(benchmark::State& state, size_t expected_size, Encode encode) {
  size_t n = 0;
  const int64_t faults0 = minor_faults();
  for (auto _ : state) {
    std::vector<uint8_t> out = encode();
    n = out.size();
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  set_faults(state, faults0);
  if (n != expected_size) state.SkipWithError("encode produced a different size");
  set_bytes(state, expected_size);
}

// Copies `bytes` into a freshly allocated, untouched buffer each time: the
// speed limit for anything that returns new memory (encode() returns a new
// vector). On a VM where page faults are slow this is far below a plain memcpy.
inline void measure_memcpy_fresh(benchmark::State& state, std::span<const uint8_t> bytes) {
  const size_t n = bytes.size();
  const int64_t faults0 = minor_faults();
  for (auto _ : state) {
    std::unique_ptr<uint8_t[]> dst(new uint8_t[n]);  // uninitialised
    std::memcpy(dst.get(), bytes.data(), n);
    benchmark::DoNotOptimize(dst.get());
    benchmark::ClobberMemory();
  }
  set_faults(state, faults0);
  set_bytes(state, n);
}
