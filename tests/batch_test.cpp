// Batch conversion with the `binschema` program (many inputs, directories,
// --out-dir, -j, --no-clobber, the summary), and the CLI's hygiene:
// --version, help, the bash completion, the man page; and binschema-gen's
// refusal of a schema whose file is named unlike its format.
//
// The program runs as a child process (sh -c) in a fresh temporary folder.
// The input tree is made with the library linked into this test: each
// example document in examples/ encoded by its format, in folders of their
// own, plus files of no known format.
#define BOOST_TEST_MODULE batch_test
#include <boost/test/unit_test.hpp>

#include <sys/wait.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "binschema/format.h"
#include "sandbox.h"

namespace fs = std::filesystem;
using ByteVec = std::vector<uint8_t>;

namespace {

using binschema::test::kCli;
using binschema::test::q;
using binschema::test::Result;

ByteVec read_file(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  BOOST_REQUIRE_MESSAGE(f.good(), "cannot read " << p);
  return ByteVec(std::istreambuf_iterator<char>(f), {});
}

void write_file(const fs::path& p, const ByteVec& data) {
  fs::create_directories(p.parent_path());
  std::ofstream f(p, std::ios::binary);
  f.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size()));
  BOOST_REQUIRE(f.good());
}

void write_file(const fs::path& p, const std::string& text) { write_file(p, ByteVec(text.begin(), text.end())); }

// Temporary folders named for this test.
struct Sandbox : binschema::test::Sandbox {
  Sandbox() : binschema::test::Sandbox("binschema-batch-test") {}
};

// The input tree: every example document of examples/ encoded by its own
// format (so every shipped format is there), spread over nested folders, and
// two files of no known format. Returns the binary files' relative paths.
std::vector<std::string> make_inputs(const Sandbox& box, const std::string& dir) {
  const fs::path examples = fs::path(BINSCHEMA_SOURCE_DIR) / "examples";
  std::vector<fs::path> docs;
  for (const auto& e : fs::directory_iterator(examples))
    if (e.path().extension() == ".yaml") docs.push_back(e.path());
  std::sort(docs.begin(), docs.end());
  BOOST_REQUIRE_MESSAGE(!docs.empty(), "no example documents in " << examples);

  std::set<std::string> formats_seen;
  std::vector<std::string> made;
  int i = 0;
  for (const fs::path& doc : docs) {
    const binschema::text::Doc node = binschema::text::load_file(doc.string());
    const binschema::Format* f = binschema::find_format(node.root().get("format").scalar());
    BOOST_REQUIRE(f != nullptr);
    formats_seen.insert(f->name);
    // Three depths: the top, one folder, two folders.
    const std::string sub = i % 3 == 0 ? "" : i % 3 == 1 ? "a/" : "b/deeper/";
    const std::string rel = sub + doc.stem().string() + f->extensions.at(0);
    write_file(box.path(dir + "/" + rel), f->encode(node));
    made.push_back(rel);
    ++i;
  }
  // Every shipped format is among them.
  for (const binschema::Format* f : binschema::all_formats())
    BOOST_TEST_REQUIRE(formats_seen.count(f->name) == 1u, "no example of format " << f->name);
  write_file(box.path(dir + "/notes.txt"), std::string("not a game file\n"));
  write_file(box.path(dir + "/a/noise.bin"), ByteVec{0x13, 0x37, 0x00, 0xff, 0x42});
  std::sort(made.begin(), made.end());
  return made;
}

std::vector<std::string> with_suffix(std::vector<std::string> v, const std::string& suffix) {
  for (std::string& s : v) s += suffix;
  return v;
}

// Folders of the relative paths, as tree() lists them ("a/", "b/", "b/deeper/").
std::vector<std::string> tree_of(const std::vector<std::string>& files) {
  std::set<std::string> all(files.begin(), files.end());
  for (const std::string& f : files)
    for (fs::path p = fs::path(f).parent_path(); !p.empty(); p = p.parent_path()) all.insert(p.string() + "/");
  return std::vector<std::string>(all.begin(), all.end());
}

std::string last_line(const Result& r) {
  std::vector<std::string> lines = r.err_lines();
  return lines.empty() ? std::string() : lines.back();
}

}  // namespace

// ---- Batches --------------------------------------------------------------------

BOOST_AUTO_TEST_SUITE(batch)

BOOST_AUTO_TEST_CASE(folder_to_text_and_back_is_byte_exact) {
  Sandbox box;
  const std::vector<std::string> bins = make_inputs(box, "in");

  Result r = box.cli("decode in --out-dir text -j 2");
  BOOST_TEST(r.code == 0, r);
  BOOST_TEST(r.out.empty());
  // Only the summary (stderr is not a terminal: no progress line).
  BOOST_TEST(r.err_lines().size() == 1u, r);
  BOOST_TEST(r.err.find('\r') == std::string::npos);
  BOOST_TEST(last_line(r) == "binschema: " + std::to_string(bins.size()) +
                                 " decoded, 0 failed, 2 skipped (not a known format)");
  // The tree is kept; nothing for the files of no known format; no stray
  // temporary files.
  BOOST_TEST(box.tree("text") == tree_of(with_suffix(bins, ".yaml")), boost::test_tools::per_element());

  r = box.cli("encode text --out-dir back -j 2");
  BOOST_TEST(r.code == 0, r);
  BOOST_TEST(last_line(r) == "binschema: " + std::to_string(bins.size()) + " encoded, 0 failed, 0 skipped (not a known format)");
  BOOST_TEST(box.tree("back") == tree_of(bins), boost::test_tools::per_element());
  for (const std::string& rel : bins)
    BOOST_TEST_CONTEXT(rel) { BOOST_TEST(read_file(box.path("back/" + rel)) == read_file(box.path("in/" + rel))); }

  // JSON, one worker, files named one by one (outputs go flat into --out-dir).
  r = box.cli("decode in/a in/b --format json --out-dir json -j 1");
  BOOST_TEST(r.code == 0, r);
  r = box.cli("encode json/* --out-dir back2");
  BOOST_TEST(r.code == 0, r);
  for (const std::string& rel : bins) {
    if (rel.find('/') == std::string::npos) continue;  // only a/ and b/ were decoded
    BOOST_TEST_CONTEXT(rel) {
      BOOST_TEST(read_file(box.path("back2/" + fs::path(rel).filename().string())) ==
                 read_file(box.path("in/" + rel)));
    }
  }
}

BOOST_AUTO_TEST_CASE(outputs_beside_the_inputs_without_out_dir) {
  Sandbox box;
  const std::vector<std::string> bins = make_inputs(box, "in");
  Result r = box.cli("decode in/" + bins.at(0) + " in/" + bins.at(1));
  BOOST_TEST(r.code == 0, r);
  BOOST_TEST(fs::exists(box.path("in/" + bins.at(0) + ".yaml")));
  BOOST_TEST(fs::exists(box.path("in/" + bins.at(1) + ".yaml")));
  // encode strips the text suffix: x.baev.yaml -> x.baev, here over the original.
  const ByteVec before = read_file(box.path("in/" + bins.at(0)));
  fs::remove(box.path("in/" + bins.at(0)));
  r = box.cli("encode in/" + bins.at(0) + ".yaml in/" + bins.at(1) + ".yaml");
  BOOST_TEST(r.code == 0, r);
  BOOST_TEST(read_file(box.path("in/" + bins.at(0))) == before);
}

BOOST_AUTO_TEST_CASE(bad_file_in_the_middle_is_reported_and_the_rest_converted) {
  Sandbox box;
  const std::vector<std::string> bins = make_inputs(box, "in");
  // A truncated BAEV in a folder of its own, sorted between the others.
  std::string baev_rel;
  for (const std::string& rel : bins)
    if (fs::path(rel).extension() == ".baev") baev_rel = rel;
  BOOST_REQUIRE(!baev_rel.empty());
  ByteVec cut = read_file(box.path("in/" + baev_rel));
  cut.resize(cut.size() / 2);
  write_file(box.path("in/a/m/bad.baev"), cut);

  Result r = box.cli("decode in --out-dir text -j 2");
  BOOST_TEST(r.code == 1, r);
  BOOST_TEST(r.out.empty());
  // One line for the bad file, naming it and the offset, then the summary.
  const std::vector<std::string> lines = r.err_lines();
  BOOST_REQUIRE(lines.size() == 2u);
  BOOST_TEST(lines[0].rfind("binschema: in/a/m/bad.baev: ", 0) == 0u, lines[0]);
  BOOST_TEST(std::regex_search(lines[0], std::regex("0x[0-9a-fA-F]+")), lines[0]);
  BOOST_TEST(lines[1] == "binschema: " + std::to_string(bins.size()) +
                             " decoded, 1 failed, 2 skipped (not a known format)");
  // Every other file converted; nothing at all for the bad one (not even its folder).
  BOOST_TEST(box.tree("text") == tree_of(with_suffix(bins, ".yaml")), boost::test_tools::per_element());

  // The same on the way back: a document with a type error in the middle.
  write_file(box.path("text/a/m/bad.baev.yaml"), std::string("format: baev\ndata: [1, 2\n"));
  r = box.cli("encode text --out-dir back -j 2");
  BOOST_TEST(r.code == 1, r);
  BOOST_REQUIRE(r.err_lines().size() == 2u);
  BOOST_TEST(r.err_lines()[0].rfind("binschema: text/a/m/bad.baev.yaml:", 0) == 0u, r.err_lines()[0]);
  BOOST_TEST(box.tree("back") == tree_of(bins), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(no_clobber_leaves_existing_outputs) {
  Sandbox box;
  const std::vector<std::string> bins = make_inputs(box, "in");
  BOOST_REQUIRE(box.cli("decode in --out-dir text").code == 0);
  const std::string first = "text/" + bins.at(0) + ".yaml";
  write_file(box.path(first), std::string("edited by hand\n"));
  fs::remove(box.path("text/" + bins.at(1) + ".yaml"));

  Result r = box.cli("decode in --out-dir text --no-clobber -j 2");
  BOOST_TEST(r.code == 0, r);
  BOOST_TEST(last_line(r) == "binschema: 1 decoded, 0 failed, 2 skipped (not a known format), " +
                                 std::to_string(bins.size() - 1) + " left as they were (--no-clobber)");
  const ByteVec edited = read_file(box.path(first));
  BOOST_TEST(std::string(edited.begin(), edited.end()) == "edited by hand\n");
  BOOST_TEST(fs::exists(box.path("text/" + bins.at(1) + ".yaml")));

  // Without it, the edit is replaced.
  r = box.cli("decode in --out-dir text");
  BOOST_TEST(r.code == 0, r);
  BOOST_TEST(read_file(box.path(first)) != read_file(box.path("in/" + bins.at(0))));
  BOOST_TEST(read_file(box.path(first)).size() > 20u);

  // One file: left alone, said so, exit 0.
  write_file(box.path("one.yaml"), std::string("keep\n"));
  r = box.cli("decode in/" + bins.at(0) + " -o one.yaml --no-clobber");
  BOOST_TEST(r.code == 0, r);
  BOOST_TEST(r.err.find("left as it was") != std::string::npos, r);
  BOOST_TEST(read_file(box.path("one.yaml")).size() == 5u);
}

BOOST_AUTO_TEST_CASE(two_inputs_for_one_output_and_usage_errors) {
  Sandbox box;
  make_inputs(box, "x");
  make_inputs(box, "y");
  // x/ and y/ hold the same names: the second of each pair is refused.
  Result r = box.cli("decode x y --out-dir text");
  BOOST_TEST(r.code == 1, r);
  BOOST_TEST(r.err.find("would write the same output as x/") != std::string::npos, r);

  for (const char* args : {"decode x --out-dir t -o f.yaml",    // -o with a batch
                           "decode x nosuch --out-dir t",        // an input that does not exist
                           "decode x - --out-dir t",             // stdin in a batch
                           "decode x --out-dir t -j 0",          // no workers
                           "encode x"}) {                        // a directory needs no -o, but ...
    BOOST_TEST_CONTEXT(args) {
      Result u = box.cli(args);
      if (std::string(args) == "encode x") {
        // ... writes beside the inputs: there are no text files in x, all skipped.
        BOOST_TEST(u.code == 0, u);
        BOOST_TEST(last_line(u).find("0 encoded, 0 failed") != std::string::npos, u);
        continue;
      }
      BOOST_TEST(u.code == 2, u);
      BOOST_TEST(!u.err.empty());
      BOOST_TEST(!fs::exists(box.path("t")));
    }
  }
}

BOOST_AUTO_TEST_CASE(killed_batch_leaves_no_temporary_files) {
  Sandbox box;
  // Enough files that two workers are still busy when the signal comes.
  const std::vector<std::string> bins = make_inputs(box, "seed");
  for (int i = 0; i < 1200; ++i) {
    const std::string& rel = bins[static_cast<size_t>(i) % bins.size()];
    fs::path to = box.path("in/d" + std::to_string(i % 8) + "/" + std::to_string(i) + "_" +
                           fs::path(rel).filename().string());
    fs::create_directories(to.parent_path());
    fs::copy_file(box.path("seed/" + rel), to);
  }
  // Killed after a while, at a moment when files are being written; the
  // delay shrinks until the run is caught unfinished.
  bool caught = false;
  for (const char* delay : {"0.3", "0.1", "0.03"}) {
    fs::remove_all(box.path("out"));
    Result r = box.sh(kCli + " decode in --out-dir out -j 2 & p=$!; sleep " + delay + "; kill -TERM $p; wait $p");
    if (r.code == 0) continue;  // finished first
    BOOST_TEST(r.code == 128 + 15, r);
    caught = true;
    size_t written = 0, temps = 0;
    if (fs::exists(box.path("out")))
      for (const auto& e : fs::recursive_directory_iterator(box.path("out"))) {
        if (!e.is_regular_file()) continue;
        ++written;
        if (e.path().filename().string()[0] == '.') ++temps;
      }
    BOOST_TEST(temps == 0u);
    BOOST_TEST(written < 1200u);
    break;
  }
  BOOST_TEST(caught, "every run finished before the signal");
}

BOOST_AUTO_TEST_CASE(progress_line_on_a_terminal) {
  Sandbox box;
  const std::vector<std::string> bins = make_inputs(box, "in");
  if (std::system("command -v script >/dev/null 2>&1") != 0) {
    BOOST_FAIL("script(1) (util-linux) is not installed: the terminal case cannot be checked");
  }
  // script(1) gives the program a terminal; stdout and stderr both go to it.
  Result r = box.sh("script -qec " + q(kCli + " decode in --out-dir text -j 2") + " /dev/null");
  BOOST_TEST(r.code == 0, r);
  const std::string total = "/" + std::to_string(bins.size() + 2) + " files, 0 failed";
  BOOST_TEST(r.out.find("\rbinschema: " + std::to_string(bins.size() + 2) + total) != std::string::npos, r.out);
  // The line is cleared before the summary.
  BOOST_TEST(r.out.find("\r\x1b[Kbinschema: " + std::to_string(bins.size()) + " decoded") != std::string::npos,
             r.out);
}

BOOST_AUTO_TEST_SUITE_END()

// ---- CLI hygiene ------------------------------------------------------------------

BOOST_AUTO_TEST_SUITE(hygiene)

BOOST_AUTO_TEST_CASE(version_is_the_project_version) {
  Sandbox box;
  Result r = box.cli("--version");
  BOOST_TEST(r.code == 0, r);
  BOOST_TEST(r.out == std::string("binschema ") + BINSCHEMA_VERSION + "\n");
}

// The commands `help` lists, read from its "Subcommands:" block.
std::vector<std::string> listed_commands(const std::string& help) {
  std::vector<std::string> names;
  size_t at = help.find("Subcommands:\n");
  BOOST_REQUIRE(at != std::string::npos);
  std::istringstream in(help.substr(at + 13));
  for (std::string l; std::getline(in, l) && l.rfind("  ", 0) == 0;) {
    std::istringstream words(l);
    std::string name;
    words >> name;
    names.push_back(name);
  }
  return names;
}

// Long options a command's help shows.
std::set<std::string> long_options(const std::string& help) {
  std::set<std::string> opts;
  std::regex re("--[a-z][a-z-]*");
  for (auto it = std::sregex_iterator(help.begin(), help.end(), re); it != std::sregex_iterator(); ++it)
    opts.insert(it->str());
  return opts;
}

BOOST_AUTO_TEST_CASE(help_lists_every_command_and_each_has_its_own) {
  Sandbox box;
  Result r = box.cli("help");
  BOOST_TEST(r.code == 0, r);
  const std::vector<std::string> commands = listed_commands(r.out);
  const std::vector<std::string> expected{"formats", "decode", "encode", "info",  "list",   "explain", "coverage", "view",
                                          "unpack",  "pack",   "diff",   "merge", "verify", "hash",    "check",    "help"};
  BOOST_TEST(commands == expected, boost::test_tools::per_element());
  BOOST_TEST(r.out.find("Exit status") != std::string::npos);
  BOOST_TEST(box.cli("--help").out == r.out);
  for (const std::string& c : commands) {
    BOOST_TEST_CONTEXT(c) {
      Result h = box.cli("help " + c);
      BOOST_TEST(h.code == 0, h);
      BOOST_TEST(h.out.find(c) != std::string::npos);
      BOOST_TEST(h.out == box.cli(c + " --help").out);
    }
  }
  BOOST_TEST(box.cli("help decode").out.find("--out-dir") != std::string::npos);
  r = box.cli("help nosuch");
  BOOST_TEST(r.code == 2, r);
  BOOST_TEST(r.err_lines().size() == 1u);
}

// Runs the bash completion function on a command line; its words.
std::set<std::string> complete(const Sandbox& box, const std::string& words) {
  const std::string script = "source " + q(std::string(BINSCHEMA_SOURCE_DIR) + "/cli/completion/binschema.bash") +
                             "; COMP_WORDS=(" + kCli + " " + words + "); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); " +
                             "_binschema; printf '%s\\n' \"${COMPREPLY[@]}\"";
  Result r = box.sh("bash -c " + q(script));
  BOOST_TEST(r.code == 0, r);
  std::set<std::string> out;
  std::istringstream in(r.out);
  for (std::string l; std::getline(in, l);)
    if (!l.empty()) out.insert(l);
  return out;
}

BOOST_AUTO_TEST_CASE(bash_completion_knows_every_command_option_and_format) {
  Sandbox box;
  if (std::system("command -v bash >/dev/null 2>&1") != 0) {
    BOOST_FAIL("bash is not installed: the completion cannot be checked");
  }
  const std::vector<std::string> commands = listed_commands(box.cli("help").out);
  std::set<std::string> words = complete(box, "''");
  for (const std::string& c : commands) BOOST_TEST(words.count(c) == 1u, c);
  BOOST_TEST(words.count("--version") == 1u);
  // Every long option each command's help shows, and no other.
  for (const std::string& c : commands) {
    if (c == "hash" || c == "help") continue;  // no options besides --help; positional words instead
    BOOST_TEST_CONTEXT(c) {
      std::set<std::string> offered;
      for (const std::string& w : complete(box, c + " --"))
        if (w.rfind("--", 0) == 0) offered.insert(w);
      BOOST_TEST(offered == long_options(box.cli("help " + c).out), boost::test_tools::per_element());
    }
  }
  // --as offers the formats this very program lists.
  std::set<std::string> formats;
  for (const binschema::Format* f : binschema::all_formats()) formats.insert(f->name);
  BOOST_TEST(complete(box, "decode --as ''") == formats, boost::test_tools::per_element());
  BOOST_TEST(complete(box, "hash ''") == (std::set<std::string>{"fnv1a32", "murmur3"}),
             boost::test_tools::per_element());
  BOOST_TEST(complete(box, "help ''") == std::set<std::string>(commands.begin(), commands.end()),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(man_page_is_made_from_the_help) {
  Sandbox box;
  const fs::path page = BINSCHEMA_MAN;
  BOOST_REQUIRE_MESSAGE(fs::exists(page), page << " was not built");
  const ByteVec raw = read_file(page);
  const std::string man(raw.begin(), raw.end());
  BOOST_TEST(man.find(std::string(".TH BINSCHEMA 1 \"\" \"binschema ") + BINSCHEMA_VERSION) != std::string::npos);
  BOOST_TEST(man.find(".SH NAME\nbinschema \\- binary game file formats") != std::string::npos);
  for (const std::string& c : listed_commands(box.cli("help").out))
    BOOST_TEST(man.find(".SS \"binschema " + c + "\"") != std::string::npos, c);
  // Options keep their dashes (escaped for roff), and every line that starts
  // with a dot is a request of ours, not help text read as one.
  BOOST_TEST(man.find("\\-\\-out\\-dir") != std::string::npos);
  std::istringstream in(man);
  const std::set<std::string> requests{".TH", ".SH", ".SS", ".nf", ".fi", ".B", ".br", ".\\\""};
  for (std::string l; std::getline(in, l);)
    if (!l.empty() && l[0] == '.') BOOST_TEST(requests.count(l.substr(0, l.find(' '))) == 1u, l);
  // Rendered by man(1) where it is installed, without complaint.
  if (std::system("command -v man >/dev/null 2>&1") == 0) {
    Result r = box.sh("MANWIDTH=80 man -l " + q(page.string()) + " | cat");
    BOOST_TEST(r.code == 0, r);
    BOOST_TEST(r.out.find("decode") != std::string::npos);
    BOOST_TEST(r.err.empty(), r);
  } else {
    BOOST_TEST_MESSAGE("man(1) not installed: the page's text was checked, not its rendering");
  }
}

BOOST_AUTO_TEST_SUITE_END()

// ---- The generator's name check ------------------------------------------------------

BOOST_AUTO_TEST_CASE(generator_refuses_a_schema_named_unlike_its_format) {
  Sandbox box;
  // The test format `tiny` under another file name: the build would take
  // "other" as its name and the C++ would not compile.
  fs::copy_file(fs::path(BINSCHEMA_SOURCE_DIR) / "tests/schemas/tiny.yaml", box.path("other.yaml"));
  Result r = box.sh(q(BINSCHEMA_GEN) + " other.yaml --out gen --name other");
  BOOST_TEST(r.code == 1, r);
  BOOST_REQUIRE(r.err_lines().size() == 1u);
  BOOST_TEST(r.err_lines()[0].rfind("other.yaml: format: 'tiny' differs from the name 'other'", 0) == 0u,
             r.err_lines()[0]);
  BOOST_TEST(!fs::exists(box.path("gen")));
  // Named as its format, the same schema is fine.
  fs::copy_file(box.path("other.yaml"), box.path("tiny.yaml"));
  r = box.sh(q(BINSCHEMA_GEN) + " tiny.yaml --out gen --name tiny");
  BOOST_TEST(r.code == 0, r);
  BOOST_TEST(fs::exists(box.path("gen/tiny.h")));
}
