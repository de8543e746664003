#include "batch.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

#include "convert.h"
#include "io.h"
#include "layers.h"

namespace fs = std::filesystem;

namespace binschema::cli {

namespace {

// One file to convert. collect_jobs() is the one place where the command
// line's inputs become jobs: a layer for archives (SARC and the like, not
// there yet) would expand an archive found there into one job per member,
// naming it "pack.sarc/dir/x.baev" with its bytes read through the archive
// instead of read_input(), and the rest of the batch would not change.
struct Job {
  std::string input;   // as found: a path on disk
  fs::path out_base;   // the output's path before the conversion's suffix
  std::optional<Failure> refused;  // known bad before starting (two inputs, one output)
};

enum class Outcome { Converted, Failed, Skipped, Kept };

struct Result {
  Outcome outcome = Outcome::Failed;
  std::string line;  // the reason, for failures
};

bool ends_with_ci(const std::string& s, std::string_view suffix) {
  if (suffix.size() > s.size()) return false;
  return std::equal(suffix.begin(), suffix.end(), s.end() - static_cast<std::ptrdiff_t>(suffix.size()),
                    [](char a, char b) {
                      return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
                    });
}

// The suffix encode takes off a text document's name ("x.baev.yaml" ->
// "x.baev"); empty when the name is not a text document's.
std::string_view text_suffix_of(const std::string& name) {
  for (std::string_view s : {".yaml", ".yml", ".json"})
    if (ends_with_ci(name, s) && name.size() > s.size()) return s;
  return {};
}

// Files under DIR, recursively, in a stable order. Symbolic links to
// directories are not followed (no loops); a directory that cannot be read
// becomes a failure of its own.
void walk(const fs::path& dir, std::vector<fs::path>& files, std::vector<Failure>& errors) {
  std::error_code ec;
  fs::directory_iterator it(dir, ec), end;
  if (ec) {
    errors.push_back(Failure{kBadData, dir.string() + ": cannot read the directory: " + ec.message()});
    return;
  }
  std::vector<fs::path> subdirs;
  for (; it != end; it.increment(ec)) {
    if (ec) break;
    const fs::directory_entry& e = *it;
    std::error_code sec;
    if (e.is_directory(sec) && !e.is_symlink(sec))
      subdirs.push_back(e.path());
    else if (e.is_regular_file(sec))
      files.push_back(e.path());
  }
  if (ec) errors.push_back(Failure{kBadData, dir.string() + ": cannot read the directory: " + ec.message()});
  std::sort(subdirs.begin(), subdirs.end());
  for (const fs::path& d : subdirs) walk(d, files, errors);
}

class Progress {
 public:
  Progress(size_t total) : total_(total), tty_(::isatty(STDERR_FILENO) == 1) {}

  void done(Outcome o) {
    if (!tty_) return;
    std::lock_guard lock(mutex_);
    ++done_;
    if (o == Outcome::Failed) ++failed_;
    auto now = std::chrono::steady_clock::now();
    if (done_ != total_ && now - last_ < std::chrono::milliseconds(100)) return;
    last_ = now;
    std::fprintf(stderr, "\r%s: %zu/%zu files, %zu failed\x1b[K", g_program, done_, total_, failed_);
    std::fflush(stderr);
    shown_ = true;
  }

  // Clears the line before the summary is printed.
  void finish() {
    if (shown_) std::fputs("\r\x1b[K", stderr);
  }

 private:
  const size_t total_;
  const bool tty_;
  std::mutex mutex_;
  size_t done_ = 0, failed_ = 0;
  std::chrono::steady_clock::time_point last_{};
  bool shown_ = false;
};

class Batch {
 public:
  explicit Batch(const BatchOptions& o) : o_(o) {}

  int run() {
    std::vector<std::string> usage;
    for (const std::string& in : o_.inputs) {
      if (in == "-") {
        usage.push_back("'-' (stdin) cannot be one of several inputs");
        continue;
      }
      std::error_code ec;
      fs::file_status st = fs::status(in, ec);
      if (ec || !fs::exists(st)) usage.push_back(in + ": cannot open: " + (ec ? ec.message() : "No such file or directory"));
    }
    if (!usage.empty()) {
      for (const std::string& l : usage) std::fprintf(stderr, "%s: %s\n", g_program, one_line(l).c_str());
      return kUsage;
    }
    collect();

    std::vector<Result> results(jobs_.size());
    Progress progress(jobs_.size());
    std::atomic<size_t> next{0};
    auto work = [&] {
      for (size_t i; (i = next.fetch_add(1)) < jobs_.size();) {
        results[i] = convert(jobs_[i]);
        progress.done(results[i].outcome);
      }
    };
    const size_t n = std::clamp<size_t>(o_.jobs, 1, std::max<size_t>(jobs_.size(), 1));
    std::vector<std::thread> workers;
    for (size_t t = 1; t < n; ++t) workers.emplace_back(work);
    work();
    for (std::thread& t : workers) t.join();
    progress.finish();

    size_t converted = 0, failed = 0, skipped = 0, kept = 0;
    for (const Failure& f : walk_errors_) {
      std::fprintf(stderr, "%s: %s\n", g_program, one_line(f.line).c_str());
      ++failed;
    }
    for (const Result& r : results) {
      switch (r.outcome) {
        case Outcome::Converted: ++converted; break;
        case Outcome::Skipped: ++skipped; break;
        case Outcome::Kept: ++kept; break;
        case Outcome::Failed:
          ++failed;
          std::fprintf(stderr, "%s: %s\n", g_program, one_line(r.line).c_str());
          break;
      }
    }
    std::string summary = std::to_string(converted) + (o_.encode ? " encoded, " : " decoded, ") +
                          std::to_string(failed) + " failed, " + std::to_string(skipped) +
                          " skipped (not a known format)";
    if (o_.no_clobber) summary += ", " + std::to_string(kept) + " left as they were (--no-clobber)";
    std::fprintf(stderr, "%s: %s\n", g_program, summary.c_str());
    return failed ? kBadData : 0;
  }

 private:
  void collect() {
    for (const std::string& in : o_.inputs) {
      std::error_code ec;
      if (fs::is_directory(in, ec)) {
        std::vector<fs::path> files;
        walk(in, files, walk_errors_);
        for (const fs::path& p : files) {
          fs::path rel = p.lexically_relative(in);
          add(p.string(), o_.out_dir.empty() ? p : fs::path(o_.out_dir) / rel);
        }
      } else {
        const fs::path p(in);
        add(in, o_.out_dir.empty() ? p : fs::path(o_.out_dir) / p.filename());
      }
    }
  }

  void add(std::string input, fs::path out) {
    Job job{std::move(input), {}, std::nullopt};
    if (o_.encode) {
      std::string s = out.string();
      s.resize(s.size() - text_suffix_of(s).size());  // unchanged for non-text names: skipped anyway
      job.out_base = s;
    } else {
      job.out_base = out;
    }
    // Two inputs that would write the same output: the first one wins.
    auto [it, fresh] = outputs_.emplace(job.out_base.lexically_normal().string(), job.input);
    if (!fresh)
      job.refused = Failure{kUsage, job.input + ": would write the same output as " + it->second + "; not converted"};
    jobs_.push_back(std::move(job));
  }

  // Creates the output's directory (under --out-dir) just before the output
  // is written, so that a bad file leaves nothing behind.
  void make_parent(const fs::path& out) {
    fs::path dir = out.parent_path();
    if (dir.empty()) return;
    std::lock_guard lock(dirs_mutex_);
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) throw Failure{kUsage, dir.string() + ": cannot create the directory: " + ec.message()};
  }

  Result convert(const Job& job) {
    if (job.refused) return {Outcome::Failed, job.refused->line};
    const Clobber clobber = o_.no_clobber ? Clobber::Keep : Clobber::Replace;
    try {
      if (o_.encode) {
        if (text_suffix_of(job.input).empty()) return {Outcome::Skipped, {}};
        std::vector<uint8_t> raw = read_input(job.input);
        Encoded e = encode_from_text(raw, o_.as, job.input);
        fs::path out = job.out_base;
        if (!out.has_extension() && !e.format->extensions.empty()) out += e.format->extensions[0];
        e.bytes = compress_for_output(std::move(e.bytes), out.string(), job.input);  // x.baev.zs: zstd (layers.h)
        make_parent(out);
        return {write_output(out.string(), e.bytes, clobber) ? Outcome::Converted : Outcome::Kept, {}};
      }
      fs::path out = job.out_base;
      out += o_.kind == TextKind::Json ? ".json" : ".yaml";
      std::error_code ec;
      if (o_.no_clobber && fs::exists(out, ec)) return {Outcome::Kept, {}};  // spares the work
      std::vector<uint8_t> bytes = read_binary_input(job.input).bytes;  // compression layer off (layers.h)
      const Format* f = format_for_bytes(o_.as, bytes, job.input);
      std::string text = decode_to_text(*f, bytes, o_.kind, job.input);
      make_parent(out);
      return {write_output(out.string(), text, clobber) ? Outcome::Converted : Outcome::Kept, {}};
    } catch (...) {
      Failure f = current_failure(job.input);
      if (f.unknown_format) return {Outcome::Skipped, {}};
      return {Outcome::Failed, f.line};
    }
  }

  const BatchOptions& o_;
  std::vector<Job> jobs_;
  std::vector<Failure> walk_errors_;
  std::map<std::string, std::string> outputs_;  // output -> the input that writes it
  std::mutex dirs_mutex_;
};

}  // namespace

int run_batch(const BatchOptions& options) { return Batch(options).run(); }

}  // namespace binschema::cli
