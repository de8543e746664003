// Running the `binschema` program in tests: a fresh temporary folder per test,
// the program run as a child process (sh -c) with stdout and stderr captured.
// Shared by cli_test, batch_test and compression_test.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

namespace binschema::test {

namespace fs = std::filesystem;
using ByteVec = std::vector<uint8_t>;

// Quotes a word for sh.
inline std::string q(const std::string& s) {
  std::string r = "'";
  for (char c : s) r += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return r + "'";
}

// The program under test, quoted for sh.
inline const std::string kCli = q(BINSCHEMA_CLI);

struct Result {
  int code;  // exit status, or 128 + signal number when the child died of one
  std::string out, err;

  std::vector<std::string> err_lines() const {
    std::vector<std::string> lines;
    std::istringstream in(err);
    for (std::string l; std::getline(in, l);) lines.push_back(l);
    return lines;
  }
};

inline std::ostream& operator<<(std::ostream& os, const Result& r) {
  return os << "exit " << r.code << ", stderr: [" << r.err << "]";
}

// A temporary directory: work/ is where the program runs and writes, cap/
// holds the captured output, so that listing work/ shows exactly what the
// program left. Removed with everything in it at the end of the test.
class Sandbox {
 public:
  explicit Sandbox(const std::string& prefix = "binschema-test") {
    std::string tmpl = (fs::temp_directory_path() / (prefix + ".XXXXXX")).string();
    BOOST_REQUIRE(::mkdtemp(tmpl.data()) != nullptr);
    root_ = tmpl;
    fs::create_directory(root_ / "work");
    fs::create_directory(root_ / "cap");
  }
  ~Sandbox() {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }
  Sandbox(const Sandbox&) = delete;
  Sandbox& operator=(const Sandbox&) = delete;

  fs::path path(const std::string& name) const { return root_ / "work" / name; }
  bool exists(const std::string& name) const { return fs::exists(path(name)); }

  void write(const std::string& name, const ByteVec& data) const {
    fs::create_directories(path(name).parent_path());
    std::ofstream f(path(name), std::ios::binary);
    f.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size()));
    BOOST_REQUIRE(f.good());
  }
  void write(const std::string& name, const std::string& text) const {
    write(name, ByteVec(text.begin(), text.end()));
  }
  ByteVec read(const std::string& name) const {
    std::ifstream f(path(name), std::ios::binary);
    BOOST_REQUIRE_MESSAGE(f.good(), "cannot read " << name);
    return ByteVec(std::istreambuf_iterator<char>(f), {});
  }
  std::string read_text(const std::string& name) const {
    ByteVec b = read(name);
    return std::string(b.begin(), b.end());
  }

  // Every entry of work/, sorted: catches stray temporary files.
  std::vector<std::string> files() const {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(root_ / "work")) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }

  // Every file under work/DIR, as relative paths, sorted (directories end in '/').
  std::vector<std::string> tree(const std::string& dir) const {
    std::vector<std::string> names;
    const fs::path base = path(dir);
    if (!fs::exists(base)) return names;
    for (const auto& e : fs::recursive_directory_iterator(base))
      names.push_back(e.path().lexically_relative(base).string() + (e.is_directory() ? "/" : ""));
    std::sort(names.begin(), names.end());
    return names;
  }

  // Runs a shell command line in work/; "binschema" must be spelled kCli.
  Result sh(const std::string& command) const {
    const fs::path out = root_ / "cap" / "stdout", err = root_ / "cap" / "stderr";
    std::string line = "cd " + q(path("").string()) + " && { " + command + " ; } >" + q(out.string()) +
                       " 2>" + q(err.string());
    int status = std::system(line.c_str());
    Result r{-1, slurp(out), slurp(err)};
    if (status != -1 && WIFEXITED(status)) r.code = WEXITSTATUS(status);
    if (status != -1 && WIFSIGNALED(status)) r.code = 128 + WTERMSIG(status);
    return r;
  }
  // Runs `binschema ARGS`.
  Result cli(const std::string& args) const { return sh(kCli + " " + args); }

 private:
  static std::string slurp(const fs::path& p) {
    std::ifstream f(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(f), {});
  }
  fs::path root_;
};

}  // namespace binschema::test
