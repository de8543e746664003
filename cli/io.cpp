#include "io.h"

#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>

namespace fs = std::filesystem;

namespace binschema::cli {

const char* g_program = "binschema";

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

std::string display_name(const std::string& path) { return path == "-" ? "<stdin>" : path; }

// ---- Input ------------------------------------------------------------------

// Formats need random access to the whole input anyway, so nothing is gained
// by streaming.
std::vector<uint8_t> read_input(const std::string& path) {
  const bool is_stdin = path == "-";
  int fd = STDIN_FILENO;
  if (!is_stdin) {
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw Failure{kUsage, path + ": cannot open: " + std::strerror(errno)};
  }
  std::vector<uint8_t> data;
  struct stat st;
  if (!is_stdin && ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0)
    data.reserve(static_cast<size_t>(st.st_size));
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

// The temporary files being written, for the signal handler: an interrupted
// run must not leave a stray ".OUT.XXXXXX" behind. One slot per writer in
// flight (batch workers write at the same time); plain arrays and lock-free
// atomics because only async-signal-safe things may be touched from a handler.
namespace {

constexpr int kSlots = 256;  // more than the most workers a batch starts
struct TempSlot {
  // 0 free, 1 taken, 2 path names a file to remove, 3 mkstemp is creating it
  // (path not final yet: the handler waits for 2).
  std::atomic<int> state{0};
  char path[4096];
};
TempSlot g_slots[kSlots];
std::atomic<bool> g_dying{false};

// Other threads go on writing while this runs. A thread about to create a
// temporary file marks its slot (3) and then reads g_dying: either it sees
// it set and creates nothing, or the handler sees the mark and waits for the
// file's name (2) to remove it (see write_output_file).
extern "C" void remove_temps_and_die(int sig) {
  g_dying.store(true);
  for (TempSlot& s : g_slots) {
    // A file being created now would be left behind once the process dies:
    // wait (at most about 0.2 s) until its name is final.
    for (int i = 0; i < 200 && s.state.load() == 3; ++i) {
      const timespec ms{0, 1000000};
      ::nanosleep(&ms, nullptr);
    }
    if (s.state.load() == 2) ::unlink(s.path);
  }
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

// Holds one slot for the duration of one write.
class SlotGuard {
 public:
  SlotGuard() {
    for (;;) {
      for (TempSlot& s : g_slots) {
        int expected = 0;
        if (s.state.compare_exchange_strong(expected, 1)) {
          slot_ = &s;
          return;
        }
      }
      ::usleep(1000);  // cannot happen with at most kSlots writers; harmless if it does
    }
  }
  ~SlotGuard() { slot_->state.store(0); }
  SlotGuard(const SlotGuard&) = delete;
  SlotGuard& operator=(const SlotGuard&) = delete;
  char* path() { return slot_->path; }
  void armed(bool on) { slot_->state.store(on ? 2 : 1); }
  void creating() { slot_->state.store(3); }

 private:
  TempSlot* slot_ = nullptr;
};

void write_all(int fd, std::span<const uint8_t> data, const std::string& name) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw Failure{kUsage, name + ": write error: " + std::strerror(errno)};
    done += static_cast<size_t>(n);
  }
}

// Renames without replacing: false when TO exists. renameat2 where the file
// system has it, else link() + unlink(), which is just as atomic.
bool rename_no_replace(const char* from, const char* to, const std::string& out) {
  if (::renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE) == 0) return true;
  if (errno == EEXIST) return false;
  if (errno != EINVAL && errno != ENOSYS)
    throw Failure{kUsage, out + ": cannot create: " + std::strerror(errno)};
  if (::link(from, to) != 0) {
    if (errno == EEXIST) return false;
    throw Failure{kUsage, out + ": cannot create: " + std::strerror(errno)};
  }
  ::unlink(from);
  return true;
}

// The bytes go to a temporary file beside OUT (same directory, hence same
// file system, so rename() is atomic), are synced, and only then renamed over
// OUT. A crash, a full disk or a signal at any point leaves OUT untouched.
bool write_output_file(const std::string& out, std::span<const uint8_t> data, Clobber clobber) {
  struct stat st;
  const bool exists = ::stat(out.c_str(), &st) == 0;  // follows symlinks
  if (exists && S_ISDIR(st.st_mode)) throw Failure{kUsage, out + ": is a directory"};
  if (exists && clobber == Clobber::Keep) return false;
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
    return true;
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
  // Appended, not "." + name: GCC 12 warns (-Wrestrict) about the latter.
  std::string temp_name = ".";
  temp_name += target.filename().string();
  temp_name += ".XXXXXX";
  std::string tmpl = (dir / temp_name).string();
  SlotGuard slot;
  if (tmpl.size() >= sizeof(TempSlot::path)) throw Failure{kUsage, out + ": path too long"};

  // mkstemp creates the file 0600; give it the mode a plain create would
  // have, or keep the mode of the file being replaced.
  mode_t mode;
  if (exists) {
    mode = st.st_mode & 07777;
  } else {
    mode_t mask = ::umask(0);  // umask cannot be read without setting it...
    ::umask(mask);
    mode = 0666 & ~mask;
  }

  std::memcpy(slot.path(), tmpl.c_str(), tmpl.size() + 1);
  // Marked before the file exists, so that a signal while mkstemp runs waits
  // for its name and one after it finds the file; one handled meanwhile is
  // seen right after.
  // The handler never runs on this thread while it creates the file (it
  // would wait for this very slot): the signals wait until the name is known.
  sigset_t block, before;
  sigemptyset(&block);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&block, sig);
  pthread_sigmask(SIG_BLOCK, &block, &before);
  slot.creating();
  if (g_dying.load())  // the handler has looked, or is looking, at the slots: create nothing
    for (;;) ::pause();
  int fd = ::mkstemp(slot.path());
  slot.armed(fd >= 0);
  pthread_sigmask(SIG_SETMASK, &before, nullptr);
  if (g_dying.load()) {
    if (fd >= 0) ::unlink(slot.path());
    for (;;) ::pause();  // the handler is about to end the process
  }
  if (fd < 0) {
    slot.armed(false);
    throw Failure{kUsage, out + ": cannot create a file in " + dir.string() + ": " + std::strerror(errno)};
  }
  try {
    write_all(fd, data, out);
    if (::fchmod(fd, mode) != 0) throw Failure{kUsage, out + ": chmod: " + std::strerror(errno)};
    if (::fsync(fd) != 0) throw Failure{kUsage, out + ": sync: " + std::strerror(errno)};
    // close() can report a deferred write error (NFS): it must be checked.
    int rc = ::close(fd);
    fd = -1;
    if (rc != 0) throw Failure{kUsage, out + ": write error: " + std::strerror(errno)};
    bool written = true;
    if (clobber == Clobber::Keep) {
      written = rename_no_replace(slot.path(), target.c_str(), out);
      if (!written) ::unlink(slot.path());
    } else if (::rename(slot.path(), target.c_str()) != 0) {
      throw Failure{kUsage, out + ": cannot replace: " + std::strerror(errno)};
    }
    slot.armed(false);
    return written;
  } catch (...) {
    if (fd >= 0) ::close(fd);
    ::unlink(slot.path());
    slot.armed(false);
    throw;
  }
}

}  // namespace

bool write_output(const std::string& out, std::span<const uint8_t> data, Clobber clobber) {
  if (out.empty() || out == "-") {
    write_all(STDOUT_FILENO, data, "<stdout>");
    return true;
  }
  return write_output_file(out, data, clobber);
}

bool write_output(const std::string& out, std::string_view text, Clobber clobber) {
  return write_output(out, std::span(reinterpret_cast<const uint8_t*>(text.data()), text.size()), clobber);
}

void install_signal_handlers() {
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction old {};
    if (::sigaction(sig, nullptr, &old) == 0 && old.sa_handler != SIG_IGN) std::signal(sig, remove_temps_and_die);
  }
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

}  // namespace binschema::cli
