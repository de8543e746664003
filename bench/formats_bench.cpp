// Every shipped format's decode, encode and text paths, at about 1, 16 and
// 64 MiB, with peak heap memory, in one table (bench/run.sh runs it).
//
//   formats_bench [--formats baev,evnt,al,bfevfl,asb,sarc] [--sizes 1,16,64]
//                 [--text-sizes 1,16] [--ops decode,encode,...] [--runs 3] [--min-time 0.3]
//                 [--write-files DIR]   (each test file also written to DIR/NAME-SIZEmib.NAME)
//                 [--ratio SECONDS]     (the paired table below; `--ops none`: the first one empty)
//
// Test files come from bench/models.cpp (made by the program, never read from
// disk). Each is checked before anything is timed: decode(encode(model)) must
// equal the model, and the YAML and JSON of the model must read back to it.
//
// Operations (MB/s are 10^6 bytes per second of this thread's CPU time; `of`
// says what the bytes are):
//   decode        bytes already in memory -> model -> destroyed       (file)
//   decode_walk   BAEV only: the same, and every element read once   (file)
//   kaitai_walk   BAEV only, when built with Kaitai (see CMakeLists.txt): the
//                 C++ Kaitai Struct generates from our baev.ksy parses the same
//                 bytes and reads every element; the model is freed    (file)
//   encode        model -> a new vector, freed in the loop            (file)
//   encode_into   model -> the same buffer each time (encode_into)    (file)
//   memcpy_fresh  the file copied into a newly allocated buffer: the ceiling
//                 of anything that returns new memory                 (file)
//   memcpy        the file copied into a buffer allocated and touched once (file)
//   dyn_decode    the run-time engine (binschema/dynamic.h, the schema
//                 loaded from schemas/NAME.yaml): bytes -> dynamic::Value (file)
//   dyn_copy      the decoded dynamic::Value copied, then the copy freed: the
//                 cost of the engine's tree alone, with no schema to
//                 follow and no bytes to read (a floor for dyn_decode)  (file)
//   dyn_load      the run-time engine loading schemas/NAME.yaml (schema text)
//   dyn_yaml_out  the run-time engine: the decoded value -> YAML   (text)
//   dyn_encode    the run-time engine: the decoded value -> bytes, checked
//                 equal to the generated encode's                    (file)
//   dyn_yaml_in   the run-time engine: YAML -> dynamic::Value        (text)
//   yaml_out, json_out   model -> YAML / JSON text                    (text)
//   yaml_in, json_in     text -> model (parse + read), model freed    (text)
//   yaml_edited_in       the same from the YAML as a person leaves it: a
//                        comment line every 20 lines, a comment after every
//                        7th line                                       (text)
// Each operation is timed `runs` times; a run repeats it until `min-time`
// seconds have passed (at least once) and gives the CPU time per call. The
// table shows the median run, the spread of the runs, page faults per call,
// and from one more call, untimed, with the counting allocator on: the peak
// of live heap bytes during the call (its input not counted, its output
// counted) over the input size, and the number of allocations.
//
// --ratio SECONDS: a second table, after the first, of the run-time engine
// against the generated code timed in pairs (bench/cpu_timing.h): decode then
// dyn_decode (and encode then dyn_encode, where the engine encodes), the order
// alternating from pair to pair, for SECONDS of CPU time and at least 20
// pairs per operation. It shows the median of the pairs' engine / generated
// ratios and their 10th-90th percentile, and each side's median ms. On a
// machine whose speed drifts between runs (and within one), this ratio moves
// much less than the ratio of dyn_decode's and decode's medians, which are
// measured seconds apart (docs/benchmarks.md, "#27 Round 8: paired ratios").
#include <malloc.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "binschema/dynamic.h"
#include "binschema/schema.h"
#include "counting_heap.h"
#include "cpu_timing.h"
#include "models.h"
#ifdef BINSCHEMA_KAITAI
#include "kaitai_baev_walk.h"
#endif

namespace {

using bench::thread_cpu_seconds;

struct Options {
  std::vector<std::string> formats{"baev", "evnt", "al", "bfevfl", "asb", "sarc"};
  std::vector<int> sizes{1, 16, 64};
  std::vector<int> text_sizes{1, 16};
  std::vector<std::string> ops;  // empty: all
  int runs = 3;
  double min_time = 0.3;
  std::string write_dir;  // --write-files: each test file written here too (for timing the CLI)
  double ratio = 0;       // --ratio: CPU seconds of paired timing per operation; 0: no paired table
};

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  size_t p = 0;
  while (p <= s.size()) {
    size_t q = s.find(',', p);
    if (q == std::string::npos) q = s.size();
    if (q > p) out.push_back(s.substr(p, q - p));
    p = q + 1;
  }
  return out;
}

bool wanted(const Options& o, const std::string& op) {
  return o.ops.empty() || std::find(o.ops.begin(), o.ops.end(), op) != o.ops.end();
}

struct Result {
  double mbps = 0, lo = 0, hi = 0;  // median, slowest and fastest run
  double ms = 0;                    // CPU ms per call, median run
  double faults = 0;                // minor page faults per call, median run
  double peak = 0;                  // peak live heap / input bytes
  int64_t allocs = 0;
};

// Times fn (bytes: what one call processes) and measures its heap once.
Result measure(const Options& o, size_t bytes, const std::function<void()>& fn) {
  fn();  // warm-up (first touches, lazy statics)
  struct Run {
    double sec, faults;
  };
  std::vector<Run> runs;
  for (int r = 0; r < o.runs; ++r) {
    rusage u0{}, u1{};
    getrusage(RUSAGE_THREAD, &u0);
    const double t0 = thread_cpu_seconds();
    int n = 0;
    double t = 0;
    do {
      fn();
      ++n;
      t = thread_cpu_seconds() - t0;
    } while (t < o.min_time);
    getrusage(RUSAGE_THREAD, &u1);
    runs.push_back({t / n, double(u1.ru_minflt - u0.ru_minflt) / n});
  }
  std::sort(runs.begin(), runs.end(), [](const Run& a, const Run& b) { return a.sec < b.sec; });
  Result res;
  const Run& med = runs[runs.size() / 2];
  res.ms = med.sec * 1e3;
  res.mbps = double(bytes) / med.sec / 1e6;
  res.hi = double(bytes) / runs.front().sec / 1e6;
  res.lo = double(bytes) / runs.back().sec / 1e6;
  res.faults = med.faults;
  heap::start();
  fn();
  heap::stop();
  res.peak = double(heap::peak.load()) / double(bytes);
  res.allocs = heap::allocs.load();
  return res;
}

void row(const char* format, size_t file, const char* op, const char* of, size_t bytes, const Result& r) {
  std::printf("| %s | %.1f | %s | %s %.1f MB | **%.0f** (%.0f-%.0f) | %.2f | %.0f | %.2f | %lld |\n", format,
              double(file) / (1 << 20), op, of, double(bytes) / 1e6, r.mbps, r.lo, r.hi, r.ms, r.faults, r.peak,
              static_cast<long long>(r.allocs));
  std::fflush(stdout);
}

[[noreturn]] void die(const std::string& m) {
  std::fprintf(stderr, "formats_bench: %s\n", m.c_str());
  std::exit(1);
}

// YAML as a person leaves it after editing: a comment line every 20 lines,
// a comment after every 7th.
std::string hand_edited(const std::string& yaml) {
  std::string out;
  out.reserve(yaml.size() + yaml.size() / 8);
  size_t line = 0;
  for (size_t start = 0; start < yaml.size();) {
    const size_t nl = std::min(yaml.find('\n', start), yaml.size());
    if (++line % 20 == 0) out += "# checked by hand\n";
    out.append(yaml, start, nl - start);
    if (line % 7 == 0) out += "  # edited";
    out += '\n';
    start = nl + 1;
  }
  return out;
}

// Counts the elements of a BAEV model and sums their values the way the
// Kaitai walk does (so that both sides read the same data).
uint64_t baev_walk(const binschema::baev::File& f, double* checksum) {
  uint64_t n = 0;
  double sum = 0;
  for (const auto& e : f.data.events) {
    ++n;
    for (uint32_t i : e.action_indices) sum += i, ++n;
  }
  auto walk = [&](const std::vector<binschema::baev::Trigger>& ts) {
    for (const auto& t : ts) {
      ++n;
      sum += t.start_frame + t.end_frame;
      for (const auto& p : t.params) {
        ++n;
        std::visit(
            [&](const auto& v) {
              using V = std::decay_t<decltype(v)>;
              if constexpr (std::is_same_v<V, std::string>) sum += double(v.size());
              else if constexpr (std::is_same_v<V, std::array<float, 3>>) for (float x : v) sum += x;
              else sum += v;
            },
            static_cast<const binschema::baev::Parameter::Value::Base&>(p.value));
      }
    }
  };
  for (const auto& a : f.data.actions) {
    ++n;
    sum += a.hash;
    for (const auto& an : a.animations) {
      ++n;
      sum += double(an.name.size());
      walk(an.triggers);
      walk(an.holds);
    }
  }
  *checksum = sum;
  return n;
}

// The paired table's rows (--ratio), printed after the first table.
std::vector<std::string> paired_rows;

void paired_row(const char* format, size_t file, const char* op, const bench::Paired& p) {
  char head[100];
  std::snprintf(head, sizeof head, "| %s | %.1f | %s | ", format, double(file) / (1 << 20), op);
  paired_rows.push_back(head + bench::paired_cells(p));
}

template <class M, class Fmt>
void run_format(const Options& o, const char* name, int mib, const M& model, Fmt fmt) {
  using namespace binschema;
  std::vector<uint8_t> bytes;
  try {
    bytes = fmt.encode(model);
    if (!(fmt.decode(bytes) == model)) die(std::string(name) + ": decode(encode(model)) != model");
  } catch (const std::exception& e) {
    die(std::string(name) + " " + std::to_string(mib) + " MiB: " + e.what());
  }
  const size_t n = bytes.size();
  std::fprintf(stderr, "[formats_bench] %s %d MiB: %zu bytes\n", name, mib, n);
  if (!o.write_dir.empty()) {
    const std::string path = o.write_dir + "/" + name + "-" + std::to_string(mib) + "mib." + name;
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (!f || std::fwrite(bytes.data(), 1, n, f) != n || std::fclose(f) != 0) die("cannot write " + path);
    std::fprintf(stderr, "[formats_bench] wrote %s\n", path.c_str());
  }
  // The calls that have an engine row too, named for --ratio's pairs.
  auto decode = [&] {
    M m = fmt.decode(bytes);
    asm volatile("" : : "r"(&m) : "memory");
  };
  auto encode = [&] {
    std::vector<uint8_t> out = fmt.encode(model);
    if (out.size() != n) die("encode gave another size");
  };
  if (wanted(o, "decode")) row(name, n, "decode", "file", n, measure(o, n, decode));
  // The run-time engine beside the generated code: the same bytes, the same text.
  const bool dyn_rows = o.ratio > 0 || wanted(o, "dyn_decode") || wanted(o, "dyn_copy") || wanted(o, "dyn_load") || wanted(o, "dyn_yaml_out") || wanted(o, "dyn_encode") || wanted(o, "dyn_yaml_in");
  const std::string schema_path = std::string(BINSCHEMA_SOURCE_DIR) + "/schemas/" + name + ".yaml";
  std::optional<dynamic::Schema> loaded;
  if (dyn_rows) {
    try {
      loaded = dynamic::Schema::load(schema_path);
    } catch (const gen::SchemaError& e) {
      // A schema the engine refuses (hooks): the generated rows only.
      std::fprintf(stderr, "[formats_bench] %s: no run-time rows: %s\n", name, e.what());
    }
  }
  if (loaded) {
    const dynamic::Schema& ds = *loaded;
    const dynamic::Value dv = ds.decode(bytes);
    const std::string dyn_text = ds.to_text(dv, TextKind::Yaml);
    if (dyn_text != fmt.to_text(model, TextKind::Yaml)) die(std::string(name) + ": the run-time engine's YAML differs from the generated code's");
    auto dyn_decode = [&] {
      dynamic::Value v = ds.decode(bytes);
      asm volatile("" : : "r"(&v) : "memory");
    };
    if (wanted(o, "dyn_decode")) row(name, n, "dyn_decode", "file", n, measure(o, n, dyn_decode));
    if (o.ratio > 0) paired_row(name, n, "decode", bench::time_pairs(o.ratio, decode, dyn_decode));
    if (wanted(o, "dyn_copy"))
      row(name, n, "dyn_copy", "file", n, measure(o, n, [&] {
            dynamic::Value c = dv;
            asm volatile("" : : "r"(&c) : "memory");
          }));
    if (wanted(o, "dyn_load") && mib == o.sizes.front()) {
      std::FILE* f = std::fopen(schema_path.c_str(), "rb");
      std::fseek(f, 0, SEEK_END);
      const size_t schema_size = static_cast<size_t>(std::ftell(f));
      std::fclose(f);
      row(name, n, "dyn_load", "schema", schema_size, measure(o, schema_size, [&] {
            dynamic::Schema s = dynamic::Schema::load(schema_path);
            asm volatile("" : : "r"(&s) : "memory");
          }));
    }
    if (wanted(o, "dyn_yaml_out") && std::find(o.text_sizes.begin(), o.text_sizes.end(), mib) != o.text_sizes.end())
      row(name, n, "dyn_yaml_out", "text", dyn_text.size(), measure(o, dyn_text.size(), [&] {
            std::string t = ds.to_text(dv, TextKind::Yaml);
            if (t.size() != dyn_text.size()) die("text output changed size");
          }));
    if ((wanted(o, "dyn_encode") || o.ratio > 0) && ds.model().hooks.empty()) {  // hooks: encode is refused at run time
      if (ds.encode(dv) != bytes) die(std::string(name) + ": the run-time engine's encode differs from the generated code's");
      auto dyn_encode = [&] {
        std::vector<uint8_t> b = ds.encode(dv);
        asm volatile("" : : "r"(b.data()) : "memory");
      };
      if (wanted(o, "dyn_encode")) row(name, n, "dyn_encode", "file", n, measure(o, n, dyn_encode));
      if (o.ratio > 0) paired_row(name, n, "encode", bench::time_pairs(o.ratio, encode, dyn_encode));
    }
    if (wanted(o, "dyn_yaml_in") && ds.model().hooks.empty() && std::find(o.text_sizes.begin(), o.text_sizes.end(), mib) != o.text_sizes.end()) {
      if (!(ds.from_text(dyn_text) == dv)) die(std::string(name) + ": the run-time engine's YAML reads back to another value");
      row(name, n, "dyn_yaml_in", "text", dyn_text.size(), measure(o, dyn_text.size(), [&] {
            dynamic::Value v = ds.from_text(dyn_text);
            asm volatile("" : : "r"(&v) : "memory");
          }));
    }
  }
  if constexpr (std::is_same_v<M, baev::File>) {
    double sum_ours = 0;
    const uint64_t count = baev_walk(model, &sum_ours);
    if (wanted(o, "decode_walk"))
      row(name, n, "decode_walk", "file", n, measure(o, n, [&] {
            M m = fmt.decode(bytes);
            double s = 0;
            baev_walk(m, &s);
            asm volatile("" : : "r"(&m), "r"(s) : "memory");
          }));
#ifdef BINSCHEMA_KAITAI
    if (wanted(o, "kaitai_walk")) {
      const std::string in(bytes.begin(), bytes.end());
      double sum_ks = 0;
      const uint64_t count_ks = bench::kaitai_baev_walk(in, &sum_ks);
      if (count_ks != count || sum_ks != sum_ours)
        die("Kaitai read " + std::to_string(count_ks) + " elements (sum " + std::to_string(sum_ks) + "), binschema " +
            std::to_string(count) + " (sum " + std::to_string(sum_ours) + ")");
      row(name, n, "kaitai_walk", "file", n, measure(o, n, [&] {
            double s = 0;
            asm volatile("" : : "r"(bench::kaitai_baev_walk(in, &s)), "r"(s) : "memory");
          }));
    }
#else
    (void)count;
    if (wanted(o, "kaitai_walk") && mib == o.sizes.front())
      std::fprintf(stderr, "[formats_bench] kaitai_walk skipped: built without Kaitai (see bench/CMakeLists.txt)\n");
#endif
  }
  if (wanted(o, "encode")) row(name, n, "encode", "file", n, measure(o, n, encode));
  if (wanted(o, "encode_into")) {
    std::vector<uint8_t> buf;  // the caller's buffer, reused from call to call
    row(name, n, "encode_into", "file", n, measure(o, n, [&] {
          fmt.encode_into(model, buf);
          if (buf.size() != n) die("encode_into gave another size");
        }));
  }
  if (wanted(o, "memcpy_fresh"))
    row(name, n, "memcpy_fresh", "file", n, measure(o, n, [&] {
          std::unique_ptr<uint8_t[]> dst(new uint8_t[n]);
          std::memcpy(dst.get(), bytes.data(), n);
          asm volatile("" : : "r"(dst.get()) : "memory");
        }));
  if (wanted(o, "memcpy")) {
    std::vector<uint8_t> dst(n, 1);
    row(name, n, "memcpy", "file", n, measure(o, n, [&] {
          std::memcpy(dst.data(), bytes.data(), n);
          asm volatile("" : : "r"(dst.data()) : "memory");
        }));
  }
  if (std::find(o.text_sizes.begin(), o.text_sizes.end(), mib) == o.text_sizes.end()) return;
  if (wanted(o, "yaml_edited_in")) {
    const std::string text = hand_edited(fmt.to_text(model, TextKind::Yaml));
    if (!(fmt.from_text(text::load(text)) == model)) die(std::string(name) + ": the edited YAML does not read back to the model");
    row(name, n, "yaml_edited_in", "text", text.size(), measure(o, text.size(), [&] {
          M m = fmt.from_text(text::load(text));
          asm volatile("" : : "r"(&m) : "memory");
        }));
  }
  for (TextKind kind : {TextKind::Yaml, TextKind::Json}) {
    const bool json = kind == TextKind::Json;
    const std::string text = fmt.to_text(model, kind);
    try {
      if (!(fmt.from_text(text::load(text)) == model)) die(std::string(name) + ": text does not read back to the model");
    } catch (const std::exception& e) {
      die(std::string(name) + ": text does not read back: " + e.what());
    }
    if (wanted(o, json ? "json_out" : "yaml_out"))
      row(name, n, json ? "json_out" : "yaml_out", "text", text.size(), measure(o, text.size(), [&] {
            std::string t = fmt.to_text(model, kind);
            if (t.size() != text.size()) die("text output changed size");
          }));
    if (wanted(o, json ? "json_in" : "yaml_in"))
      row(name, n, json ? "json_in" : "yaml_in", "text", text.size(), measure(o, text.size(), [&] {
            M m = fmt.from_text(text::load(text));
            asm volatile("" : : "r"(&m) : "memory");
          }));
  }
}

// The generated root functions of one format, as a type.
#define BENCH_FORMAT(ns)                                                                              \
  struct Fmt_##ns {                                                                                   \
    auto decode(std::span<const uint8_t> b) const { return binschema::ns::decode(b); }                \
    auto encode(const auto& m) const { return binschema::ns::encode(m); }                             \
    void encode_into(const auto& m, std::vector<uint8_t>& out) const { binschema::ns::encode_into(m, out); } \
    auto to_text(const auto& m, binschema::TextKind k) const { return binschema::ns::to_text(m, k); } \
    auto from_text(const binschema::text::Doc& d) const { return binschema::ns::from_text(d); }       \
  };
BENCH_FORMAT(baev)
BENCH_FORMAT(evnt)
BENCH_FORMAT(al)
BENCH_FORMAT(bfevfl)
BENCH_FORMAT(asb)
BENCH_FORMAT(sarc)
#undef BENCH_FORMAT

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto val = [&]() -> std::string {
      if (i + 1 >= argc) die("missing value after " + a);
      return argv[++i];
    };
    auto ints = [&](const std::string& s) {
      std::vector<int> v;
      for (const auto& x : split(s)) v.push_back(std::atoi(x.c_str()));
      return v;
    };
    if (a == "--formats") o.formats = split(val());
    else if (a == "--sizes") o.sizes = ints(val());
    else if (a == "--text-sizes") o.text_sizes = ints(val());
    else if (a == "--ops") o.ops = split(val());
    else if (a == "--runs") o.runs = std::max(1, std::atoi(val().c_str()));
    else if (a == "--min-time") o.min_time = std::atof(val().c_str());
    else if (a == "--write-files") o.write_dir = val();
    else if (a == "--ratio") o.ratio = std::atof(val().c_str());
    else die("unknown argument " + a + " (see the top of bench/formats_bench.cpp)");
  }
  std::printf("| format | file MiB | operation | of | MB/s median (runs) | CPU ms | faults/call | peak heap / input | allocations |\n");
  std::printf("|---|---:|---|---|---:|---:|---:|---:|---:|\n");
  for (const std::string& f : o.formats)
    for (int mib : o.sizes) {
      const uint64_t target = uint64_t(mib) << 20;
      if (f == "baev") run_format(o, "baev", mib, bench::baev_model(target, 0xbae5'0000ull + mib), Fmt_baev{});
      else if (f == "evnt") run_format(o, "evnt", mib, bench::evnt_model(target), Fmt_evnt{});
      else if (f == "al") run_format(o, "al", mib, bench::al_model(target), Fmt_al{});
      else if (f == "bfevfl") run_format(o, "bfevfl", mib, bench::bfevfl_model(target), Fmt_bfevfl{});
      else if (f == "asb" && mib > 16)  // its pointer words hold 24-bit offsets
        std::fprintf(stderr, "[formats_bench] asb %d MiB skipped: an ASB file cannot be larger than 16 MiB\n", mib);
      else if (f == "asb") run_format(o, "asb", mib, bench::asb_model(bench::asb_copies_for(target), true), Fmt_asb{});
      else if (f == "sarc") run_format(o, "sarc", mib, bench::sarc_model(target), Fmt_sarc{});
      else die("unknown format " + f);
    }
  if (o.ratio > 0) {
    std::printf("\n| format | file MiB | operation | %s\n|---|---:|---|%s\n", bench::paired_columns(), bench::paired_rule());
    for (const std::string& r : paired_rows) std::printf("%s\n", r.c_str());
  }
  return 0;
}
