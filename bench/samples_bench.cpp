// Decode and encode of real files of the tree formats (AAMP, BYML), with the
// layout entry and without, and the peak heap of each: the numbers issue 25
// asks for on the largest samples (docs/benchmarks.md).
//
//   samples_bench [--runs 5] [--min-time 0.3] [--ratio SECONDS] aamp:FILE byml:FILE ...
//
// A file whose name ends in .s<ext> (ActorInfo.product.sbyml) is Yaz0 and is
// decompressed first, untimed. The files are read from disk and never copied
// into the repository. Each operation is run `runs` times; a run repeats it
// until `min-time` seconds of this thread's CPU time have passed and gives the
// time per call; the median run is printed with the spread. Peak heap: one
// more call, untimed, with the counting allocator on (its input not counted,
// its output counted), over the file's size. The run-time engine's rows
// (dyn ...) follow each file's: the schema loaded from schemas/KIND.yaml.
//
// --ratio SECONDS: a second table, after the first, of the run-time engine
// against the generated code timed in pairs (bench/cpu_timing.h): decode then
// dyn decode, encode (fresh) then dyn encode (fresh), the order alternating
// from pair to pair, for SECONDS of CPU time and at least 20 pairs per
// operation: the median of the pairs' engine / generated ratios, their
// 10th-90th percentile and each side's median ms. It moves much less from
// run to run than the ratio of the first table's two medians, measured
// seconds apart (docs/benchmarks.md, "#27 Round 8: paired ratios").

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <span>
#include <string>
#include <vector>

#include "aamp.h"
#include "binschema/compression.h"
#include "binschema/dynamic.h"
#include "binschema/layout.h"
#include "byml.h"
#include "counting_heap.h"
#include "cpu_timing.h"

namespace {

using bench::thread_cpu_seconds;

struct Options {
  int runs = 5;
  double min_time = 0.3;
  double ratio = 0;  // --ratio: CPU seconds of paired timing per operation; 0: no paired table
};

// The paired table's rows (--ratio), printed after the first table.
std::vector<std::string> paired_rows;

// Median and spread (max - min, in percent of the median) of `runs` runs of
// `op`, in milliseconds per call.
template <class Op>
std::pair<double, double> time_op(const Options& o, Op op) {
  std::vector<double> per_call;
  for (int r = 0; r < o.runs; ++r) {
    int n = 0;
    const double t0 = thread_cpu_seconds();
    double t = t0;
    do {
      op();
      ++n;
      t = thread_cpu_seconds();
    } while (t - t0 < o.min_time);
    per_call.push_back((t - t0) / n * 1e3);
  }
  std::sort(per_call.begin(), per_call.end());
  const double med = per_call[per_call.size() / 2];
  return {med, (per_call.back() - per_call.front()) / med * 100};
}

template <class Op>
double peak_over(size_t size, Op op) {
  heap::start();
  op();
  heap::stop();
  return static_cast<double>(heap::peak.load()) / static_cast<double>(size);
}

template <class Decode, class DecodeLayout, class Encode, class EncodeLayout>
void bench_file(const Options& o, const std::string& kind, const std::string& name, const std::vector<uint8_t>& bytes, Decode decode, DecodeLayout decode_layout,
                Encode encode, EncodeLayout encode_layout) {
  const std::span<const uint8_t> in(bytes);
  binschema::Layout layout;
  const auto model = decode_layout(in, layout);
  if (encode_layout(model, layout) != bytes) {
    std::fprintf(stderr, "samples_bench: %s does not come back byte for byte\n", name.c_str());
    std::exit(1);
  }
  const size_t fresh = encode(model).size();
  const double mb = static_cast<double>(bytes.size()) / 1e6;
  auto row = [&](const char* op, std::pair<double, double> t, double peak) {
    std::printf("| %s | %.0f | %s | %.2f | %.0f | ±%.0f %% | %.1f |\n", name.c_str(), static_cast<double>(bytes.size()), op, t.first,
                mb / (t.first / 1e3), t.second / 2, peak);
  };
  auto gen_decode = [&] { auto m = decode(in); };
  auto gen_encode = [&] { auto b = encode(model); };
  row("decode", time_op(o, gen_decode), peak_over(bytes.size(), gen_decode));
  row("decode with layout", time_op(o, [&] { binschema::Layout l; auto m = decode_layout(in, l); }),
      peak_over(bytes.size(), [&] { binschema::Layout l; auto m = decode_layout(in, l); }));
  row("encode (fresh)", time_op(o, gen_encode), peak_over(bytes.size(), gen_encode));
  row("encode with layout", time_op(o, [&] { auto b = encode_layout(model, layout); }),
      peak_over(bytes.size(), [&] { auto b = encode_layout(model, layout); }));
  std::printf("|  | fresh file: %zu bytes |  |  |  |  |  |\n", fresh);
  // The run-time engine (binschema/dynamic.h) on the same file, its schema
  // loaded from schemas/: the same value and bytes, checked before timing.
  const std::string schema = std::string(BINSCHEMA_SOURCE_DIR) + "/schemas/" + kind + ".yaml";
  const binschema::dynamic::Schema ds = binschema::dynamic::Schema::load(schema);
  const binschema::dynamic::Value dv = ds.decode(in);
  if (ds.encode(dv) != encode(model)) {
    std::fprintf(stderr, "samples_bench: %s: the run-time engine's bytes differ from the generated code's\n", name.c_str());
    std::exit(1);
  }
  auto dyn_decode = [&] { auto v = ds.decode(in); };
  auto dyn_encode = [&] { auto b = ds.encode(dv); };
  row("dyn decode", time_op(o, dyn_decode), peak_over(bytes.size(), dyn_decode));
  row("dyn encode (fresh)", time_op(o, dyn_encode), peak_over(bytes.size(), dyn_encode));
  row("dyn load (schema)", time_op(o, [&] { auto l = binschema::dynamic::Schema::load(schema); }), 0);
  if (o.ratio > 0) {
    const std::string head = "| " + name + " | " + std::to_string(bytes.size()) + " | ";
    paired_rows.push_back(head + "decode | " + bench::paired_cells(bench::time_pairs(o.ratio, gen_decode, dyn_decode)));
    paired_rows.push_back(head + "encode (fresh) | " + bench::paired_cells(bench::time_pairs(o.ratio, gen_encode, dyn_encode)));
  }
}

std::vector<uint8_t> read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) {
    std::fprintf(stderr, "samples_bench: cannot read %s\n", path.c_str());
    std::exit(2);
  }
  std::vector<uint8_t> b((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (binschema::detect_compression(b, path).layer == binschema::Compression::yaz0) b = binschema::yaz0::decompress(b);
  return b;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--runs" && i + 1 < argc) o.runs = std::max(1, std::atoi(argv[++i]));
    else if (a == "--min-time" && i + 1 < argc) o.min_time = std::atof(argv[++i]);
    else if (a == "--ratio" && i + 1 < argc) o.ratio = std::atof(argv[++i]);
    else files.push_back(a);
  }
  if (files.empty()) {
    std::fprintf(stderr, "usage: samples_bench [--runs N] [--min-time S] [--ratio S] aamp:FILE byml:FILE ...\n");
    return 2;
  }
  std::printf("| file | bytes | operation | ms per call | MB/s | spread | peak heap / file |\n|---|---:|---|---:|---:|---:|---:|\n");
  for (const std::string& f : files) {
    const size_t colon = f.find(':');
    const std::string kind = f.substr(0, colon), path = f.substr(colon + 1);
    const std::string name = path.substr(path.find_last_of('/') + 1);
    const std::vector<uint8_t> bytes = read_file(path);
    namespace A = binschema::aamp;
    namespace B = binschema::byml;
    if (kind == "aamp")
      bench_file(o, kind, name, bytes, [](std::span<const uint8_t> b) { return A::decode(b); },
                 [](std::span<const uint8_t> b, binschema::Layout& l) { return A::decode(b, l); }, [](const A::File& m) { return A::encode(m); },
                 [](const A::File& m, const binschema::Layout& l) { return A::encode(m, l); });
    else if (kind == "byml")
      bench_file(o, kind, name, bytes, [](std::span<const uint8_t> b) { return B::decode(b); },
                 [](std::span<const uint8_t> b, binschema::Layout& l) { return B::decode(b, l); },
                 [](const auto& m) { return B::encode(m); }, [](const auto& m, const binschema::Layout& l) { return B::encode(m, l); });
    else {
      std::fprintf(stderr, "samples_bench: '%s': say aamp:FILE or byml:FILE\n", f.c_str());
      return 2;
    }
  }
  if (o.ratio > 0) {
    std::printf("\n| file | bytes | operation | %s\n|---|---:|---|%s\n", bench::paired_columns(), bench::paired_rule());
    for (const std::string& r : paired_rows) std::printf("%s\n", r.c_str());
  }
  return 0;
}
