// The clock formats_bench and samples_bench time with, and their paired
// measurement of the run-time engine against the generated code (--ratio).
#pragma once

#include <time.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace bench {

// CPU time of the calling thread, in seconds: other processes' time is not
// counted (their effect on the caches and the clock frequency is).
inline double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// On this machine one binary's time for the same call moves by up to 2x
// between runs seconds apart, so the ratio of two medians measured one after
// the other is mostly noise. Timed in pairs, the generated call and the
// engine's call see nearly the same machine, and the median of the pairs'
// ratios is what survives the drift.
struct Paired {
  int pairs = 0;
  int calls = 0;                // calls of each side in one pair
  double generated_ms = 0;      // median CPU ms per call of each side
  double engine_ms = 0;
  double ratio = 0;             // median of the pairs' engine / generated
  double ratio_p10 = 0, ratio_p90 = 0;
};

// A pair is `calls` calls of one side, then as many of the other; the side
// that goes first alternates from pair to pair. Each side's timed calls
// follow one untimed call of its own: the caches and the heap are then as
// that side's previous call left them, as in a run of the same call over and
// over (the first table's rows), not as the other side left them (the
// generated code's calls came out up to 1.5x slower after an engine call).
// `calls` is set once, so that the generated side takes at least a
// millisecond of a pair: the clock's read costs nothing next to it. Pairs
// are timed until the timed calls of both sides have taken `seconds` of CPU
// time (the untimed ones as much again), and at least 20 pairs.
template <class Generated, class Engine>
Paired time_pairs(double seconds, Generated generated, Engine engine) {
  constexpr double min_side = 1e-3;
  constexpr int min_pairs = 20;
  generated();  // warm-up (first touches, lazy statics)
  engine();
  const double t0 = thread_cpu_seconds();
  generated();
  const double one = thread_cpu_seconds() - t0;
  Paired p;
  p.calls = std::max(1, static_cast<int>(std::ceil(min_side / std::max(one, 1e-9))));
  auto side = [&](auto& fn) {
    fn();
    const double start = thread_cpu_seconds();
    for (int i = 0; i < p.calls; ++i) fn();
    return thread_cpu_seconds() - start;
  };
  std::vector<double> gen, eng, ratio;
  double total = 0;
  while (total < seconds || static_cast<int>(ratio.size()) < min_pairs) {
    double g = 0, e = 0;
    if (ratio.size() % 2 == 0) {
      g = side(generated);
      e = side(engine);
    } else {
      e = side(engine);
      g = side(generated);
    }
    gen.push_back(g);
    eng.push_back(e);
    ratio.push_back(e / g);
    total += g + e;
  }
  // The value at fraction q of the sorted values (nearest rank).
  auto at = [](std::vector<double>& v, double q) {
    std::sort(v.begin(), v.end());
    return v[static_cast<size_t>(std::lround(q * static_cast<double>(v.size() - 1)))];
  };
  p.pairs = static_cast<int>(ratio.size());
  p.generated_ms = at(gen, 0.5) / p.calls * 1e3;
  p.engine_ms = at(eng, 0.5) / p.calls * 1e3;
  p.ratio = at(ratio, 0.5);
  p.ratio_p10 = at(ratio, 0.1);
  p.ratio_p90 = at(ratio, 0.9);
  return p;
}

// The columns of a paired row after the bench's own (what was timed), their
// alignment row, and the row's cells.
inline const char* paired_columns() {
  return "pairs x calls | generated ms | engine ms | engine / generated, median of pairs | 10th-90th percentile | ratio of the medians |";
}
inline const char* paired_rule() { return "---:|---:|---:|---:|---:|---:|"; }
inline std::string paired_cells(const Paired& p) {
  char buf[200];
  std::snprintf(buf, sizeof buf, "%d x %d | %.3f | %.3f | **%.2fx** | %.2f-%.2fx | %.2fx |", p.pairs, p.calls, p.generated_ms, p.engine_ms, p.ratio,
                p.ratio_p10, p.ratio_p90, p.engine_ms / p.generated_ms);
  return buf;
}

}  // namespace bench
