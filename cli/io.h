// The CLI's files: reading inputs, writing outputs whole or not at all, and
// the one-line failure every command reports.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace binschema::cli {

constexpr int kBadData = 1;
constexpr int kUsage = 2;

// Every failure travels to the top as one of these, so that there is exactly
// one place that prints and one exit per run (the "one line on stderr"
// promise is easy to break when errors are printed where they happen). In a
// batch, the line becomes that file's entry in the summary.
struct Failure {
  int code;
  std::string line;  // without the "binschema: " prefix
  // The input is not in any known format (no magic or extension matched, or
  // a text without a `format:` key): a batch skips such files.
  bool unknown_format = false;
};

// The program's name in messages ("binschema", or a downstream tool's).
extern const char* g_program;

// Control bytes shown escaped, so that a quoted corrupt magic or YAML key can
// neither break the one-line promise nor mess up the terminal.
std::string one_line(std::string_view s);

// How an input is named in messages; "-" alone would be cryptic.
std::string display_name(const std::string& path);

// The whole content of a file (or stdin for "-"). Every input of every
// command comes through here: this is the place for layers under the formats
// (decompression) to plug in.
std::vector<uint8_t> read_input(const std::string& path);

enum class Clobber { Replace, Keep };

// Writes OUT ("-" or "" = stdout) so that it is either its old self or
// completely the new content: a temporary file beside it, synced, then
// renamed over it. With Clobber::Keep an existing OUT is left alone (checked
// atomically by the rename) and false is returned. Safe to call from several
// threads at once; signal_cleanup() removes every temporary file in flight.
bool write_output(const std::string& out, std::span<const uint8_t> data, Clobber clobber = Clobber::Replace);
bool write_output(const std::string& out, std::string_view text, Clobber clobber = Clobber::Replace);

// SIGINT, SIGTERM and SIGHUP remove temporary files before the program dies
// (unless our parent ignores them: nohup, background jobs).
void install_signal_handlers();

// Refuses OUT when it is IN itself (by device and inode), unless forced.
void refuse_overwriting_input(const std::string& in, const std::string& out, bool force);

}  // namespace binschema::cli
