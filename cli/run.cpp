// binschema: the command-line front end to every format compiled in.
//
//   binschema formats
//   binschema decode IN... [-o OUT | --out-dir DIR] [--format yaml|json] [--as FORMAT]
//                          [-j N] [--no-clobber] [--force]
//   binschema encode IN... [-o OUT | --out-dir DIR] [--as FORMAT] [-j N] [--no-clobber] [--force]
//   binschema info IN [--as FORMAT]
//   binschema list PACK                       the members of an archive
//   (IN of decode/info may be PACK:path/in/archive, and encode's -o too;
//    decode, encode, info and list take --zsdic FILE and --romfs DIR)
//   binschema explain IN OFFSET [--format text|json]   the field at a byte
//   binschema coverage IN [--format text|json]         explained / padding / unexplained bytes
//   binschema view IN [-o OUT.html]                    the byte map as one HTML page
//   (explain, coverage and view take --as, --zsdic, --romfs and PACK:path too)
//   binschema unpack PACK DIR [--force]      an archive as a folder (docs/mods.md)
//   binschema pack DIR -o PACK                and back
//   binschema diff A B [--format json]        changes by field path (exit 0 same, 1 different, 2 trouble)
//   binschema merge BASE OURS THEIRS -o OUT [--force]   three-way, by field path
//   binschema verify PATH... [--format json] [-j N] [--all]   every file decoded and encoded again
//   binschema hash fnv1a32|murmur3|crc32 STRING...
//   binschema check SCHEMA|DIR...   schemas validated with no build (check.cpp)
//   binschema help [COMMAND]     binschema --version
//
// One input file (and no --out-dir) is converted as it always was; several
// inputs, directories or --out-dir make a batch (batch.cpp).
//
// Exit status: 0 success; 1 the input data is bad (or its format cannot be
// told), with exactly one line on stderr saying where; 2 the command line or
// the files it names are the problem (unknown command or option, missing
// argument, unreadable input, unwritable output, refusing to overwrite IN).
// Scripts can then tell "fix your file" from "fix your command".

#include <CLI/CLI.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "batch.h"
#include "check.h"
#include "binschema/format.h"
#include "binschema/hash.h"
#include "binschema/text.h"
#include "convert.h"
#include "io.h"
#include "archive.h"
#include "byte_map.h"
#include "layers.h"
#include "mods.h"
#include "schemas.h"
#include "binschema/added_formats.h"

#ifndef BINSCHEMA_VERSION
#error "BINSCHEMA_VERSION must be defined (the project version, from CMake)"
#endif

namespace binschema::cli {

namespace {

int cmd_formats() {
  // Tab-separated so that scripts can cut(1) it; one format per line.
  std::string out;
  std::vector<const Format*> list = added_formats();
  list.insert(list.end(), all_formats().begin(), all_formats().end());
  for (const Format* f : list) {
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

// A binary input: a file with its compression layer taken off, or a member
// of an archive (PACK:path, archive.h).
std::vector<uint8_t> read_binary(const std::string& in, BinaryInput* layer = nullptr) {
  if (auto m = split_member_path(in)) return read_member(*m);
  BinaryInput input = read_binary_input(in);
  if (layer) *layer = input;
  return std::move(input.bytes);
}

int cmd_decode(const std::string& in, const std::string& out, TextKind kind, const std::string& as, bool force,
               bool no_clobber) {
  refuse_overwriting_input(in, out, force);
  std::vector<uint8_t> bytes = read_binary(in);
  const Format* f = format_for_bytes(as, bytes, in);
  std::string text = decode_to_text(*f, bytes, kind, in);
  // Only now, with the whole result in hand, is OUT touched.
  if (!write_output(out, text, no_clobber ? Clobber::Keep : Clobber::Replace))
    std::fprintf(stderr, "%s: %s: exists; left as it was (--no-clobber)\n", g_program, one_line(out).c_str());
  return 0;
}

int cmd_encode(const std::string& in, const std::string& out, const std::string& as, bool force, bool no_clobber) {
  refuse_overwriting_input(in, out, force);
  std::vector<uint8_t> raw = read_input(in);
  Encoded e = encode_from_text(raw, as, in);
  if (auto m = split_member_path(out)) {
    write_member(*m, e.bytes, in);  // the rest of the archive as it was
    return 0;
  }
  e.bytes = compress_for_output(std::move(e.bytes), out, in);
  if (!write_output(out, e.bytes, no_clobber ? Clobber::Keep : Clobber::Replace))
    std::fprintf(stderr, "%s: %s: exists; left as it was (--no-clobber)\n", g_program, one_line(out).c_str());
  return 0;
}

int cmd_info(const std::string& in, const std::string& as) {
  BinaryInput layer;
  std::vector<uint8_t> bytes = read_binary(in, &layer);
  const Format* f = format_for_bytes(as, bytes, in);
  write_output("-", info_text(*f, bytes, in) + layer_info(layer) + archive_info(bytes));
  return 0;
}

int cmd_list(const std::string& in) {
  write_output("-", list_members(in));
  return 0;
}

// The byte map of IN (byte_map.h). A file that does not decode to the end
// still gets the map of what was read before the error, and the run ends
// with that error (exit 1).
struct MapRun {
  std::vector<uint8_t> bytes;
  ByteMap map;
};
void make_map(MapRun& run, const std::string& in, const std::string& as) {
  run.bytes = read_binary(in);
  const Format* f = format_for_bytes(as, run.bytes, in);
  run.map = build_byte_map(*f, run.bytes);
}
int map_status(const MapRun& run, const std::string& in) {
  if (run.map.error.empty()) return 0;
  throw Failure{kBadData, display_name(in) + ": " + run.map.error};
}

uint64_t parse_offset(const std::string& text) {
  size_t used = 0;
  uint64_t v = 0;
  try {
    v = std::stoull(text, &used, 0);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size() || text[0] == '-')
    throw Failure{kUsage, "OFFSET '" + text + "' is not a number (decimal, or hex with 0x)"};
  return v;
}

int cmd_explain(const std::string& in, const std::string& offset_text, const std::string& as, bool json) {
  const uint64_t offset = parse_offset(offset_text);
  MapRun run;
  make_map(run, in, as);
  if (offset >= run.bytes.size())
    throw Failure{kUsage, display_name(in) + ": offset " + hex(offset) + " is past the end (" + hex(run.bytes.size()) + " bytes)"};
  write_output("-", json ? explain_json(run.map, offset) : explain_text(run.map, offset));
  return map_status(run, in);
}

int cmd_coverage(const std::string& in, const std::string& as, bool json) {
  MapRun run;
  make_map(run, in, as);
  write_output("-", json ? coverage_json(run.map, display_name(in)) : coverage_text(run.map, display_name(in)));
  return map_status(run, in);
}

int cmd_view(const std::string& in, std::string out, const std::string& as, bool force) {
  if (out.empty()) {
    if (in == "-") throw Failure{kUsage, "view: -o OUT.html is required for stdin"};
    // Beside the file; for PACK:path, the member's name in the current folder.
    const auto m = split_member_path(in);
    out = m ? std::filesystem::path(m->member).filename().string() + ".html" : in + ".html";
  }
  refuse_overwriting_input(in, out, force);
  MapRun run;
  make_map(run, in, as);
  if (run.bytes.size() >= (uint64_t(1) << 32))
    throw Failure{kUsage, display_name(in) + ": view takes files under 4 GiB"};
  write_output(out, view_html(run.map, display_name(in)));
  return map_status(run, in);
}

const char* const kDefaultNamesHelp = "$XDG_CONFIG_HOME/binschema/names.txt, or ~/.config/binschema/names.txt";

// The name lists of `decode --names` (or the default list): one name a line,
// a trailing \r dropped, empty lines skipped.
void load_name_lists(const std::vector<std::string>& files) {
  std::vector<std::string> paths = files;
  if (paths.empty()) {
    const char* xdg = std::getenv("XDG_CONFIG_HOME");
    const char* home = std::getenv("HOME");
    std::string def = xdg && *xdg ? std::string(xdg) + "/binschema/names.txt"
                      : home && *home ? std::string(home) + "/.config/binschema/names.txt"
                                      : std::string();
    std::error_code ec;
    if (def.empty() || !std::filesystem::is_regular_file(def, ec)) return;
    paths.push_back(def);
  }
  std::vector<std::string> names;
  for (const std::string& p : paths) {
    std::ifstream f(p, std::ios::binary);
    if (!f) throw std::runtime_error(p + ": cannot read the name list");
    std::string line;
    while (std::getline(f, line)) {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (!line.empty()) names.push_back(line);
    }
  }
  binschema::text::set_known_names(names);
}

int cmd_hash(const std::string& algo, const std::vector<std::string>& strings) {
  std::string out;
  for (const std::string& s : strings) {
    uint32_t h = algo == "fnv1a32" ? fnv1a32(s) : algo == "crc32" ? crc32(s) : murmur3_x86_32(s, 0);
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%08x", h);
    out += std::string(buf) + "  " + s + "\n";
  }
  write_output("-", out);
  return 0;
}

// Whether IN... is a batch rather than one file: several inputs, a
// directory, or --out-dir.
bool is_batch(const std::vector<std::string>& inputs, const std::string& out_dir) {
  if (inputs.size() > 1 || !out_dir.empty()) return true;
  std::error_code ec;
  return inputs.size() == 1 && inputs[0] != "-" && std::filesystem::is_directory(inputs[0], ec);
}

unsigned default_jobs() {
  unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : std::min(n, 64u);
}

const char* const kFooter = R"(Exit status: 0 success; 1 bad input data (one line on stderr naming the
file offset and field path, or line:col in a text document), or any file of
a batch failed; 2 a usage error (the command line or the files it names).

Several inputs, directories (walked recursively) or --out-dir make a batch:
every file is converted with -j workers, bad files are reported and the rest
go on, and a summary ends the run. Outputs are written whole or not at all.

Examples:
  binschema decode anim.baev -o anim.yaml
  binschema encode anim.yaml -o anim.baev
  binschema decode romfs/ --out-dir text/ -j 4
  binschema encode text/ --out-dir rebuilt/ --no-clobber)";

}  // namespace

int run(int argc, char** argv, const char* program) {
  g_program = program;
  install_signal_handlers();

  CLI::App app{std::string(program) + ": binary game file formats <-> YAML/JSON", program};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string(program) + " " + BINSCHEMA_VERSION);

  // Unknown --as names are a command-line mistake (exit 2), caught while
  // parsing rather than after the input has been read.
  const CLI::Validator format_name(
      [](std::string& s) -> std::string {
        if (find_format(s)) return {};
        return "unknown format '" + s + "' (known: " + known_formats() + ")";
      },
      "FORMAT", "format name");

  std::vector<std::string> inputs;
  std::string in, out, out_dir, kind = "yaml", as, algo, help_topic;
  std::vector<std::string> strings;
  std::vector<std::string> name_files;  // decode --names
  bool force = false, no_clobber = false, numbers_only = false;
  unsigned jobs = default_jobs();

  // --schema FILE|DIR: formats from schemas, loaded before the command line is
  // parsed (so that --as can name them); the option is declared on the
  // commands that read or write formats.
  std::vector<std::string> schema_paths;
  try {
    load_schemas(schema_arguments(argc, argv));
  } catch (...) {
    Failure f = current_failure(std::string());
    std::fprintf(stderr, "%s: %s\n", program, one_line(f.line).c_str());
    return f.code;
  }
  auto add_schema_option = [&](CLI::App* cmd) {
    cmd->add_option("--schema", schema_paths,
                    "A schema (or a folder of *.yaml schemas) to use as a format, no build step (repeatable; also "
                    "BINSCHEMA_SCHEMA_PATH, paths separated by ':')")
        ->allow_extra_args(false)  // one path a --schema: IN after it stays IN
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  };

  CLI::App* formats = app.add_subcommand("formats", "List the supported formats");
  add_schema_option(formats);
  DictionarySources dictionaries;  // --zsdic, --romfs (layers.h)
  auto add_dictionary_options = [&](CLI::App* cmd) {
    cmd->add_option("--zsdic", dictionaries.zsdic, "zstd dictionary: a .zsdic file or the game's ZsDic.pack.zs (repeatable)");
    cmd->add_option("--romfs", dictionaries.romfs, "The game's romfs folder (its Pack/ZsDic.pack.zs has the zstd dictionaries)");
  };

  // decode and encode share the batch options.
  auto add_batch_options = [&](CLI::App* cmd) {
    cmd->add_option("--out-dir", out_dir, "Write outputs under DIR, keeping the inputs' tree (a batch)");
    cmd->add_option("-j,--jobs", jobs, "Worker threads for a batch (default: all cores)")
        ->check(CLI::Range(1u, 64u));
    cmd->add_flag("--no-clobber", no_clobber, "Leave outputs that exist as they are");
    cmd->add_option("--as", as, "Format name (default: detect by magic, then extension)")->check(format_name);
    cmd->add_flag("--force", force, "Allow OUT to be the input file");
  };

  CLI::App* decode = app.add_subcommand("decode", "Binary files -> YAML or JSON");
  decode->add_option("IN", inputs, "Input files or directories ('-' = stdin)")->required();
  decode->add_option("-o,--output", out, "Output file for one input ('-' = stdout, the default)");
  decode->add_option("--format", kind, "Text kind")->check(CLI::IsMember({"yaml", "json"}));
  decode->add_flag("--numbers", numbers_only,
                   "Show every integer as a number: no enum, reference or hash names, no true/false for integers");
  decode->add_option("--names", name_files,
                     "Name list (one name a line): hashes of these names show as the names (default: " +
                         std::string(kDefaultNamesHelp) + " when it exists)");
  add_batch_options(decode);
  add_dictionary_options(decode);
  add_schema_option(decode);
  decode->footer("A batch writes IN.yaml (or IN.json) beside each input, or under --out-dir.");

  CLI::App* encode = app.add_subcommand("encode", "YAML or JSON (with a 'format:' key) -> binary files");
  encode->add_option("IN", inputs, "Input texts or directories ('-' = stdin)")->required();
  encode->add_option("-o,--output", out, "Output file for one input ('-' = stdout)");
  add_batch_options(encode);
  add_dictionary_options(encode);
  add_schema_option(encode);
  encode->footer(
      "A batch reads *.yaml, *.yml and *.json and writes each without that suffix (x.baev.yaml -> x.baev;\n"
      "a name left without extension gets its format's), beside the input or under --out-dir.");

  CLI::App* info = app.add_subcommand("info", "Summary of a binary file");
  info->add_option("IN", in, "Input file ('-' = stdin)")->required();
  info->add_option("--as", as, "Format name (default: detect)")->check(format_name);
  add_dictionary_options(info);
  add_schema_option(info);

  CLI::App* list = app.add_subcommand("list", "The members of an archive (SARC, under any compression), with their sizes");
  list->add_option("PACK", in, "Archive file")->required();
  add_dictionary_options(list);
  add_schema_option(list);

  std::string offset_text, map_kind = "text";
  CLI::App* explain = app.add_subcommand("explain", "The field at a byte: its path, value and struct (the byte map)");
  explain->add_option("IN", in, "Input file (or PACK:path; '-' = stdin)")->required();
  explain->add_option("OFFSET", offset_text, "Byte offset (decimal, or hex with 0x)")->required();
  explain->add_option("--format", map_kind, "Output kind")->check(CLI::IsMember({"text", "json"}));
  explain->add_option("--as", as, "Format name (default: detect)")->check(format_name);
  add_dictionary_options(explain);
  add_schema_option(explain);

  CLI::App* coverage = app.add_subcommand("coverage", "Which bytes the schema explains: explained, padding and unexplained ranges");
  coverage->add_option("IN", in, "Input file (or PACK:path; '-' = stdin)")->required();
  coverage->add_option("--format", map_kind, "Output kind: json adds every field (offset, size, path, kind)")
      ->check(CLI::IsMember({"text", "json"}));
  coverage->add_option("--as", as, "Format name (default: detect)")->check(format_name);
  add_dictionary_options(coverage);
  add_schema_option(coverage);
  coverage->footer("Padding: bytes of reserved fields, and zero bytes no field covers; unexplained: non-zero bytes no field covers.");

  CLI::App* view = app.add_subcommand("view", "The byte map as one HTML page: hex view and field tree, offline");
  view->add_option("IN", in, "Input file (or PACK:path)")->required();
  view->add_option("-o,--output", out, "Output page (default: IN.html; for PACK:path, MEMBER.html here)");
  view->add_option("--as", as, "Format name (default: detect)")->check(format_name);
  view->add_flag("--force", force, "Allow OUT to be the input file");
  add_dictionary_options(view);
  add_schema_option(view);
  std::string dir, base, ours, theirs;
  bool verify_all = false;
  CLI::App* unpack = app.add_subcommand("unpack", "An archive as a folder: members of known formats as YAML, archives in it as folders");
  unpack->add_option("PACK", in, "Archive file (SARC, under any compression)")->required();
  unpack->add_option("DIR", dir, "The folder to make (it must not exist, unless --force)")->required();
  unpack->add_flag("--force", force, "Replace DIR when it exists");
  add_dictionary_options(unpack);
  unpack->footer("DIR/.binschema/ keeps what a folder cannot: member order, alignment, compression, layout (docs/mods.md).");

  CLI::App* pack = app.add_subcommand("pack", "A folder of `unpack` back into an archive");
  pack->add_option("DIR", dir, "The folder")->required();
  pack->add_option("-o,--output", out, "The archive to write ('-' = stdout)")->required();
  add_dictionary_options(pack);
  pack->footer(
      "Unchanged, the folder gives back the archive's bytes, compression included. Files that the\n"
      "manifest does not list are added (x.bfevfl.yaml -> member x.bfevfl); members whose files are gone\n"
      "are left out. A folder without a manifest becomes a fresh archive, compressed as -o's name asks.");

  CLI::App* diff = app.add_subcommand("diff", "Changes between two files by field path (binary or text; archives member by member)");
  diff->add_option("A", base, "The old file")->required();
  diff->add_option("B", ours, "The new file")->required();
  diff->add_option("--format", kind, "Output: text or json")->check(CLI::IsMember({"text", "json"}));
  add_dictionary_options(diff);
  diff->footer("Exit status: 0 the same, 1 different, 2 trouble (as diff(1)).");

  CLI::App* merge = app.add_subcommand("merge", "Three-way merge by field path (archives member by member)");
  merge->add_option("BASE", base, "The common ancestor")->required();
  merge->add_option("OURS", ours, "One changed copy (its layout, compression and text kind are kept)")->required();
  merge->add_option("THEIRS", theirs, "The other changed copy")->required();
  merge->add_option("-o,--output", out, "The merged file")->required();
  merge->add_flag("--force", force, "Write even with conflicts (OURS's side of each), or over an input");
  add_dictionary_options(merge);
  merge->footer("Exit status: 0 merged, 1 conflicts (each listed by path; nothing written without --force), 2 trouble.");

  CLI::App* verify = app.add_subcommand("verify", "Decode and encode every file (folders, archives inside) and say which do not come back");
  verify->add_option("PATH", inputs, "Files or folders")->required();
  verify->add_option("--format", kind, "Output: text or json")->check(CLI::IsMember({"text", "json"}));
  verify->add_option("-j,--jobs", jobs, "Worker threads (default: all cores)")->check(CLI::Range(1u, 64u));
  verify->add_flag("--all", verify_all, "List every file, not only those that do not come back");
  add_dictionary_options(verify);
  add_schema_option(verify);
  verify->footer("Each file is encoded again directly, through YAML and through JSON. Exit status: 0 all come back, 1 not.");

  CLI::App* hash = app.add_subcommand("hash", "Hash strings as the formats do");
  hash->add_option("ALGORITHM", algo, "fnv1a32, murmur3 (x86_32, seed 0) or crc32 (zlib's)")
      ->required()
      ->check(CLI::IsMember({"fnv1a32", "murmur3", "crc32"}));
  hash->add_option("STRING", strings, "Strings to hash")->required();

  std::vector<std::string> check_paths;
  CLI::App* check = app.add_subcommand("check", "Validate schemas as the generator does, with no build: errors as file:line:col");
  check->add_option("SCHEMA", check_paths, "Schema files, or folders (their .yaml files)")->required();

  CLI::App* help = app.add_subcommand("help", "Show the help of the program or of one command");
  help->add_option("COMMAND", help_topic, "A command");
  app.footer(kFooter);  // after the commands: they would inherit it

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
      std::fprintf(stderr, "%s: unknown command '%s' (commands: %s)\n", program, one_line(argv[1]).c_str(),
                   commands.c_str());
      return kUsage;
    }
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version are "parse errors" with exit code 0: CLI11 prints them.
    if (e.get_exit_code() == 0) return app.exit(e);
    std::fprintf(stderr, "%s: %s (see %s --help)\n", program, one_line(e.what()).c_str(), program);
    return kUsage;
  }

  if (*help) {
    if (help_topic.empty()) {
      // Not app.help(): that shows the selected command's, i.e. help's own.
      std::fputs(app.get_formatter()->make_help(&app, program, CLI::AppFormatMode::Normal).c_str(), stdout);
      return 0;
    }
    for (const CLI::App* sub : app.get_subcommands({}))
      if (sub->get_name() == help_topic) {
        std::fputs(sub->help(program).c_str(), stdout);
        return 0;
      }
    std::fprintf(stderr, "%s: help: unknown command '%s'\n", program, one_line(help_topic).c_str());
    return kUsage;
  }

  const TextKind text_kind = kind == "json" ? TextKind::Json : TextKind::Yaml;
  if (*decode) {
    // Before any worker starts: the list is read-only afterwards.
    binschema::text::set_numbers_only(numbers_only);
    try {
      load_name_lists(name_files);
    } catch (...) {
      Failure f = current_failure(std::string());  // the message names the list
      std::fprintf(stderr, "%s: %s\n", program, one_line(f.line).c_str());
      return f.code;
    }
  }
  set_dictionary_sources(dictionaries);  // for batches too (layers.h)
  if ((*decode || *encode) && is_batch(inputs, out_dir)) {
    if (!out.empty()) {
      std::fprintf(stderr, "%s: -o names one output; use --out-dir DIR for several inputs or a directory\n",
                   program);
      return kUsage;
    }
    BatchOptions options;
    options.encode = static_cast<bool>(*encode);
    options.inputs = inputs;
    options.out_dir = out_dir;
    options.kind = text_kind;
    options.as = as;
    options.no_clobber = no_clobber;
    options.jobs = jobs;
    return run_batch(options);
  }
  if (*decode || *encode) in = inputs.at(0);
  if (*encode && out.empty()) {
    std::fprintf(stderr, "%s: encode: -o OUT is required for one input (or --out-dir DIR)\n", program);
    return kUsage;
  }

  try {
    if (*formats) return cmd_formats();
    if (*list) return cmd_list(in);
    if (*decode) return cmd_decode(in, out, text_kind, as, force, no_clobber);
    if (*encode) return cmd_encode(in, out, as, force, no_clobber);
    if (*info) return cmd_info(in, as);
    if (*explain) return cmd_explain(in, offset_text, as, map_kind == "json");
    if (*coverage) return cmd_coverage(in, as, map_kind == "json");
    if (*view) return cmd_view(in, out, as, force);
    if (*hash) return cmd_hash(algo, strings);
    if (*check) return cmd_check(check_paths);
    if (*unpack) return cmd_unpack(in, dir, force);
    if (*pack) {
      in = dir;
      return cmd_pack(dir, out);
    }
    if (*diff) return cmd_diff(base, ours, text_kind);
    if (*merge) {
      in = ours;
      return cmd_merge(base, ours, theirs, out, force, kind == "json" ? TextKind::Json : TextKind::Yaml);
    }
    if (*verify) return cmd_verify(inputs, text_kind, jobs, verify_all);
    return kUsage;  // unreachable: require_subcommand(1)
  } catch (...) {
    Failure f = current_failure(in);
    std::fprintf(stderr, "%s: %s\n", program, one_line(f.line).c_str());
    return f.code;
  }
}

}  // namespace binschema::cli
