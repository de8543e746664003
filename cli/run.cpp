// binschema: the command-line front end to every format compiled in.
//
//   binschema formats
//   binschema decode IN [-o OUT] [--format yaml|json] [--as FORMAT] [--force]
//   binschema encode IN -o OUT [--as FORMAT] [--force]
//   binschema info IN [--as FORMAT]
//   binschema hash fnv1a32|murmur3 STRING...
//
// Exit status: 0 success; 1 the input data is bad (or its format cannot be
// told), with exactly one line on stderr saying where; 2 the command line or
// the files it names are the problem (unknown command or option, missing
// argument, unreadable input, unwritable output, refusing to overwrite IN).
// Scripts can then tell "fix your file" from "fix your command".

#include <CLI/CLI.hpp>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <new>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "binschema/error.h"
#include "binschema/format.h"
#include "binschema/hash.h"

namespace fs = std::filesystem;

namespace {

constexpr int kBadData = 1;
constexpr int kUsage = 2;

// Every failure travels to main() as one of these, so that there is exactly
// one place that prints and one exit per run (the "one line on stderr"
// promise is easy to break when errors are printed where they happen).
struct Failure {
  int code;
  std::string line;  // without the "binschema: " prefix
};

// Error messages quote file contents (a corrupt magic, a YAML key). A stray
// newline or escape sequence there would break the one-line promise or mess
// up the terminal, so control bytes are shown escaped.
std::string one_line(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (unsigned char c : s) {
    if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

// How an input is named in messages; "-" alone would be cryptic.
std::string display_name(const std::string& path) { return path == "-" ? "<stdin>" : path; }

std::string known_formats() {
  std::string names;
  for (const binschema::Format* f : binschema::all_formats()) {
    if (!names.empty()) names += ", ";
    names += f->name;
  }
  return names;
}

// ---- Input ------------------------------------------------------------------

// Reads a whole file (or stdin for "-"). Formats need random access to the
// whole input anyway, so nothing is gained by streaming.
std::vector<uint8_t> read_input(const std::string& path) {
  const bool is_stdin = path == "-";
  int fd = STDIN_FILENO;
  if (!is_stdin) {
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw Failure{kUsage, path + ": cannot open: " + std::strerror(errno)};
  }
  std::vector<uint8_t> data;
  uint8_t buf[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int err = errno;  // e.g. EISDIR: open() succeeds on a directory, read() does not
      if (!is_stdin) ::close(fd);
      throw Failure{kUsage, display_name(path) + ": cannot read: " + std::strerror(err)};
    }
    if (n == 0) break;
    data.insert(data.end(), buf, buf + n);
  }
  if (!is_stdin) ::close(fd);
  return data;
}

// ---- Output -----------------------------------------------------------------

// Path of the temporary file being written, for the signal handler: an
// interrupted run must not leave a stray ".OUT.XXXXXX" behind. A plain char
// array because only async-signal-safe things may be touched from a handler.
char g_temp_path[4096];
volatile sig_atomic_t g_temp_active = 0;

extern "C" void remove_temp_and_die(int sig) {
  if (g_temp_active) ::unlink(g_temp_path);
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

void write_all(int fd, std::span<const uint8_t> data, const std::string& name) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw Failure{kUsage, name + ": write error: " + std::strerror(errno)};
    done += static_cast<size_t>(n);
  }
}

// Writes OUT so that it is either its old self or completely the new content,
// never something in between: the bytes go to a temporary file beside OUT
// (same directory, hence same file system, so rename() is atomic), are synced,
// and only then renamed over OUT. A crash, a full disk or a signal at any
// point leaves OUT untouched.
void write_output_file(const std::string& out, std::span<const uint8_t> data) {
  struct stat st;
  const bool exists = ::stat(out.c_str(), &st) == 0;  // follows symlinks
  if (exists && S_ISDIR(st.st_mode)) throw Failure{kUsage, out + ": is a directory"};
  if (exists && !S_ISREG(st.st_mode)) {
    // A device or a pipe (/dev/stdout, /dev/null, a FIFO): there is nothing
    // to replace atomically, and renaming over it would destroy the node.
    int fd = ::open(out.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) throw Failure{kUsage, out + ": cannot open: " + std::strerror(errno)};
    try {
      write_all(fd, data, out);
    } catch (...) {
      ::close(fd);
      throw;
    }
    if (::close(fd) != 0) throw Failure{kUsage, out + ": write error: " + std::strerror(errno)};
    return;
  }

  // Renaming over a symlink would silently cut the link (and a dangling one
  // names the file the user wants created): replace what it points to.
  fs::path target(out);
  std::error_code ec;
  if (exists) {
    fs::path real = fs::canonical(target, ec);
    if (!ec) target = real;
  } else {
    for (int depth = 0; depth < 40 && fs::is_symlink(target, ec); ++depth) {
      fs::path link = fs::read_symlink(target, ec);
      if (ec) break;
      target = link.is_absolute() ? link : target.parent_path() / link;
    }
  }

  fs::path dir = target.parent_path();
  if (dir.empty()) dir = ".";
  std::string tmpl = (dir / ("." + target.filename().string() + ".XXXXXX")).string();
  if (tmpl.size() >= sizeof g_temp_path) throw Failure{kUsage, out + ": path too long"};

  // mkstemp creates the file 0600; give it the mode a plain create would
  // have, or keep the mode of the file being replaced.
  mode_t mode;
  if (exists) {
    mode = st.st_mode & 07777;
  } else {
    mode_t mask = ::umask(0);
    ::umask(mask);
    mode = 0666 & ~mask;
  }

  std::memcpy(g_temp_path, tmpl.c_str(), tmpl.size() + 1);
  int fd = ::mkstemp(g_temp_path);
  if (fd < 0) throw Failure{kUsage, out + ": cannot create a file in " + dir.string() + ": " + std::strerror(errno)};
  g_temp_active = 1;
  try {
    write_all(fd, data, out);
    if (::fchmod(fd, mode) != 0) throw Failure{kUsage, out + ": chmod: " + std::strerror(errno)};
    if (::fsync(fd) != 0) throw Failure{kUsage, out + ": sync: " + std::strerror(errno)};
    // close() can report a deferred write error (NFS): it must be checked.
    int rc = ::close(fd);
    fd = -1;
    if (rc != 0) throw Failure{kUsage, out + ": write error: " + std::strerror(errno)};
    if (::rename(g_temp_path, target.c_str()) != 0)
      throw Failure{kUsage, out + ": cannot replace: " + std::strerror(errno)};
    g_temp_active = 0;
  } catch (...) {
    if (fd >= 0) ::close(fd);
    ::unlink(g_temp_path);
    g_temp_active = 0;
    throw;
  }
}

void write_output(const std::string& out, std::span<const uint8_t> data) {
  if (out.empty() || out == "-")
    write_all(STDOUT_FILENO, data, "<stdout>");
  else
    write_output_file(out, data);
}

void write_output(const std::string& out, std::string_view text) {
  write_output(out, std::span(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
}

// Decoding a file onto itself would destroy the user's only copy the moment
// anything goes wrong later (or, for encode, replace data with a different
// kind of file). Compared by identity (device and inode), so "./x" and
// "x", hard links and symlinks are all caught.
void refuse_overwriting_input(const std::string& in, const std::string& out, bool force) {
  if (force || in == "-" || out.empty() || out == "-") return;
  std::error_code ec;
  if (fs::equivalent(in, out, ec) && !ec)
    throw Failure{kUsage, out + ": is the input file; refusing to overwrite it (use --force)"};
}

// ---- Format choice ----------------------------------------------------------

const binschema::Format* format_for_bytes(const std::string& as, std::span<const uint8_t> bytes,
                                          const std::string& in) {
  if (!as.empty()) return binschema::find_format(as);  // validated by the parser
  const binschema::Format* f = binschema::detect_format(bytes, in == "-" ? "" : in);
  if (!f)
    throw Failure{kBadData, display_name(in) + ": cannot tell the format (no known magic or file extension); "
                            "use --as NAME (known: " + known_formats() + ")"};
  return f;
}

// The one-line message for a decode error. DecodeError::what() is
// "path: message"; the messages name the offset themselves, but a few (null
// pointers) do not, and the CLI promises a location in every such line.
std::string describe(const binschema::DecodeError& e) {
  std::string what = e.what();
  std::string at = binschema::hex(e.offset());
  if (what.find(at) == std::string::npos) what += " (at " + at + ")";
  return what;
}

std::string yaml_where(const YAML::Mark& m) {
  if (m.is_null()) return "";
  return std::to_string(m.line + 1) + ":" + std::to_string(m.column + 1) + ": ";
}

// ---- Commands ---------------------------------------------------------------

int cmd_formats() {
  // Tab-separated so that scripts can cut(1) it; one format per line.
  std::string out;
  for (const binschema::Format* f : binschema::all_formats()) {
    std::string exts;
    for (const char* e : f->extensions) {
      if (!exts.empty()) exts += ' ';
      exts += e;
    }
    out += std::string(f->name) + "\t" + f->title + "\t" + f->versions + "\t" + exts + "\n";
  }
  write_output("-", out);
  return 0;
}

int cmd_decode(const std::string& in, const std::string& out, const std::string& kind,
               const std::string& as, bool force) {
  refuse_overwriting_input(in, out, force);
  std::vector<uint8_t> bytes = read_input(in);
  const binschema::Format* f = format_for_bytes(as, bytes, in);
  std::string text;
  try {
    text = f->decode(bytes, kind == "json" ? binschema::TextKind::Json : binschema::TextKind::Yaml);
  } catch (const binschema::DecodeError& e) {
    throw Failure{kBadData, display_name(in) + ": " + describe(e)};
  }
  // Only now, with the whole result in hand, is OUT touched.
  write_output(out, text);
  return 0;
}

int cmd_encode(const std::string& in, const std::string& out, const std::string& as, bool force) {
  refuse_overwriting_input(in, out, force);
  std::vector<uint8_t> raw = read_input(in);
  const std::string name = display_name(in);
  // Text errors are reported as "IN:line:col: ..." like a compiler's, so
  // that editors can jump to them.
  std::vector<uint8_t> bytes;
  try {
    YAML::Node doc = YAML::Load(std::string(raw.begin(), raw.end()));
    if (!doc.IsMap())
      throw Failure{kBadData, name + ":" + (doc.Mark().is_null() ? "1:1: " : yaml_where(doc.Mark())) +
                              "expected a map with a 'format' key at the top"};
    const binschema::Format* f = nullptr;
    if (!as.empty()) {
      // --as wins over the document's own `format:` (which is then ignored):
      // that is how a document with a wrong or missing key is fed anyway.
      f = binschema::find_format(as);
    } else {
      const YAML::Node& cdoc = doc;  // const lookup: must not insert the key
      YAML::Node key = cdoc["format"];
      if (!key)
        throw Failure{kBadData, name + ":" + yaml_where(doc.Mark()) +
                                "missing 'format' key (or pass --as NAME; known: " + known_formats() + ")"};
      if (!key.IsScalar())
        throw Failure{kBadData, name + ":" + yaml_where(key.Mark()) + "format: expected a format name"};
      f = binschema::find_format(key.Scalar());
      if (!f)
        throw Failure{kBadData, name + ":" + yaml_where(key.Mark()) + "format: unknown format '" +
                                key.Scalar() + "' (known: " + known_formats() + ")"};
    }
    bytes = f->encode(doc);
  } catch (const binschema::TextError& e) {
    throw Failure{kBadData, name + ":" + e.what()};  // what() starts with "line:col: "
  } catch (const YAML::Exception& e) {
    // ParserException (syntax) and the conversion errors yaml-cpp throws.
    std::string where = yaml_where(e.mark);
    throw Failure{kBadData, name + ":" + (where.empty() ? " " : where) + e.msg};
  } catch (const binschema::EncodeError& e) {
    throw Failure{kBadData, name + ": " + e.what()};
  }
  write_output(out, bytes);
  return 0;
}

int cmd_info(const std::string& in, const std::string& as) {
  std::vector<uint8_t> bytes = read_input(in);
  const binschema::Format* f = format_for_bytes(as, bytes, in);
  std::string out;
  try {
    for (const auto& [key, value] : f->info(bytes)) out += key + ": " + value + "\n";
  } catch (const binschema::DecodeError& e) {
    throw Failure{kBadData, display_name(in) + ": " + describe(e)};
  }
  write_output("-", out);
  return 0;
}

int cmd_hash(const std::string& algo, const std::vector<std::string>& strings) {
  std::string out;
  for (const std::string& s : strings) {
    uint32_t h = algo == "fnv1a32" ? binschema::fnv1a32(s) : binschema::murmur3_x86_32(s, 0);
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%08x", h);
    out += std::string(buf) + "  " + s + "\n";
  }
  write_output("-", out);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  // A signal ignored by our parent (nohup, a shell's background job) stays
  // ignored; the others first remove a half-written temporary file.
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction old {};
    if (::sigaction(sig, nullptr, &old) == 0 && old.sa_handler != SIG_IGN) std::signal(sig, remove_temp_and_die);
  }

  CLI::App app{"binschema: binary game file formats <-> YAML/JSON"};
  app.require_subcommand(1);

  // Unknown --as names are a command-line mistake (exit 2), caught while
  // parsing rather than after the input has been read.
  const CLI::Validator format_name(
      [](std::string& s) -> std::string {
        if (binschema::find_format(s)) return {};
        return "unknown format '" + s + "' (known: " + known_formats() + ")";
      },
      "FORMAT", "format name");

  std::string in, out, kind = "yaml", as, algo;
  std::vector<std::string> strings;
  bool force = false;

  CLI::App* formats = app.add_subcommand("formats", "List the supported formats");

  CLI::App* decode = app.add_subcommand("decode", "Binary file -> YAML or JSON");
  decode->add_option("IN", in, "Input file ('-' = stdin)")->required();
  decode->add_option("-o,--output", out, "Output file ('-' = stdout, the default)");
  decode->add_option("--format", kind, "Text kind")->check(CLI::IsMember({"yaml", "json"}));
  decode->add_option("--as", as, "Format name (default: detect by magic, then extension)")->check(format_name);
  decode->add_flag("--force", force, "Allow OUT to be the input file");

  CLI::App* encode = app.add_subcommand("encode", "YAML or JSON (with a 'format:' key) -> binary file");
  encode->add_option("IN", in, "Input text ('-' = stdin)")->required();
  encode->add_option("-o,--output", out, "Output file ('-' = stdout)")->required();
  encode->add_option("--as", as, "Format name (overrides the document's 'format:')")->check(format_name);
  encode->add_flag("--force", force, "Allow OUT to be the input file");

  CLI::App* info = app.add_subcommand("info", "Summary of a binary file");
  info->add_option("IN", in, "Input file ('-' = stdin)")->required();
  info->add_option("--as", as, "Format name (default: detect)")->check(format_name);

  CLI::App* hash = app.add_subcommand("hash", "Hash strings as the formats do");
  hash->add_option("ALGORITHM", algo, "fnv1a32 or murmur3 (x86_32, seed 0)")
      ->required()
      ->check(CLI::IsMember({"fnv1a32", "murmur3"}));
  hash->add_option("STRING", strings, "Strings to hash")->required();

  // CLI11 would call a mistyped command an extra argument and complain that
  // no command was given, which points the user the wrong way.
  if (argc > 1 && argv[1][0] != '-') {
    bool known = false;
    std::string commands;
    for (const CLI::App* sub : app.get_subcommands({})) {
      known = known || sub->check_name(argv[1]);
      if (!commands.empty()) commands += ", ";
      commands += sub->get_name();
    }
    if (!known) {
      std::fprintf(stderr, "binschema: unknown command '%s' (commands: %s)\n", one_line(argv[1]).c_str(),
                   commands.c_str());
      return kUsage;
    }
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help is a "parse error" with exit code 0: let CLI11 print the help.
    if (e.get_exit_code() == 0) return app.exit(e);
    std::fprintf(stderr, "binschema: %s (see binschema --help)\n", one_line(e.what()).c_str());
    return kUsage;
  }

  // Names the input in the catch-all messages below, when there is one.
  auto where = [&] { return in.empty() ? std::string() : display_name(in) + ": "; };
  try {
    if (*formats) return cmd_formats();
    if (*decode) return cmd_decode(in, out, kind, as, force);
    if (*encode) return cmd_encode(in, out, as, force);
    if (*info) return cmd_info(in, as);
    if (*hash) return cmd_hash(algo, strings);
    return kUsage;  // unreachable: require_subcommand(1)
  } catch (const Failure& f) {
    std::fprintf(stderr, "binschema: %s\n", one_line(f.line).c_str());
    return f.code;
  } catch (const binschema::DecodeError& e) {
    // Formats throw these from places the commands above do not wrap.
    std::fprintf(stderr, "binschema: %s%s\n", where().c_str(), one_line(describe(e)).c_str());
    return kBadData;
  } catch (const std::bad_alloc&) {
    // A corrupt count that slipped past the bounds checks, or a huge input.
    std::fprintf(stderr, "binschema: %sout of memory\n", where().c_str());
    return kBadData;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "binschema: %s%s\n", where().c_str(), one_line(e.what()).c_str());
    return kBadData;
  } catch (...) {
    std::fprintf(stderr, "binschema: %sunexpected error\n", where().c_str());
    return kBadData;
  }
}
