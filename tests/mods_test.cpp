// Mods as folders (issue 30): `binschema unpack`, `pack`, `diff`, `merge` and
// `verify`, run as a child process over the real files in ../shared/samples
// (the tests fail saying so when they are absent).
#define BOOST_TEST_MODULE mods_test
#include <boost/test/unit_test.hpp>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "samples.h"
#include "sandbox.h"

namespace fs = std::filesystem;
using ByteVec = std::vector<uint8_t>;
using binschema::test::kCli;
using binschema::test::q;
using binschema::test::Result;
using Sandbox = binschema::test::Sandbox;

namespace {

const std::string kPack = "Demo344_1.sbeventpack";
const std::string kFlow = "EventFlow/Demo344_1.bfevfl";

// Replaces the first `from` in a text file of the sandbox (which must have it).
void edit(const Sandbox& s, const std::string& file, const std::string& from, const std::string& to) {
  std::string t = s.read_text(file);
  const size_t at = t.find(from);
  BOOST_REQUIRE_MESSAGE(at != std::string::npos, file << " has no '" << from << "'");
  t.replace(at, from.size(), to);
  s.write(file, t);
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    out.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

// The members of an archive, as `binschema list` names them.
std::vector<std::string> members(const Sandbox& s, const std::string& pack) {
  Result r = s.cli("list " + q(pack));
  BOOST_REQUIRE_MESSAGE(r.code == 0, r);
  std::vector<std::string> names;
  for (const std::string& l : lines(r.out)) names.push_back(l.substr(0, l.find('\t')));
  std::sort(names.begin(), names.end());
  return names;
}

fs::path sample_pack() { return samples::dir("yaz0") / kPack; }

}  // namespace

// ---- unpack / pack --------------------------------------------------------------

BOOST_AUTO_TEST_CASE(every_sarc_sample_and_the_yaz0_pack_come_back_byte_for_byte) {
  std::vector<fs::path> packs = samples::files("sarc");
  packs.push_back(sample_pack());
  for (const fs::path& p : packs) {
    BOOST_TEST_CONTEXT(p.filename().string()) {
      Sandbox s;
      Result r = s.cli("unpack " + q(p.string()) + " dir");
      BOOST_REQUIRE_MESSAGE(r.code == 0, r);
      BOOST_TEST(s.exists("dir/.binschema/manifest.yaml"));
      BOOST_TEST(s.exists("dir/.binschema/archive.yaml"));
      r = s.cli("pack dir -o out.bin");
      BOOST_REQUIRE_MESSAGE(r.code == 0, r);
      const ByteVec original = samples::read(p), back = s.read("out.bin");
      BOOST_TEST(back.size() == original.size());
      BOOST_TEST((back == original), "pack gives back the archive's bytes");
      // Nothing else was left beside the folder (no temporary files).
      BOOST_TEST((s.files() == std::vector<std::string>{"dir", "out.bin"}));
    }
  }
}

BOOST_AUTO_TEST_CASE(members_of_known_formats_are_text_and_the_rest_bytes) {
  Sandbox s;
  Result r = s.cli("unpack " + q(sample_pack().string()) + " dir");
  BOOST_REQUIRE_MESSAGE(r.code == 0, r);
  const std::string flow = s.read_text("dir/" + kFlow + ".yaml");
  BOOST_TEST(flow.rfind("format: bfevfl\n", 0) == 0);
  BOOST_TEST(!s.exists("dir/" + kFlow));
  // A member of no known format (BFRES, itself Yaz0) stays as it is stored.
  Result list = s.cli("list " + q(sample_pack().string()));
  BOOST_REQUIRE(list.code == 0);
  BOOST_TEST(list.out.find("Model/Demo344_1.sbfres\t152916") != std::string::npos);
  BOOST_TEST(s.read("dir/Model/Demo344_1.sbfres").size() == 152916u);
  const std::string manifest = s.read_text("dir/.binschema/manifest.yaml");
  BOOST_TEST(manifest.find("compression: {layer: yaz0, alignment: 0x100") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(an_edited_member_is_in_the_pack) {
  Sandbox s;
  BOOST_REQUIRE(s.cli("unpack " + q(sample_pack().string()) + " dir").code == 0);
  edit(s, "dir/" + kFlow + ".yaml", "            PosX:\n              float: 0.0", "            PosX:\n              float: 5.5");
  Result r = s.cli("pack dir -o mod.sbeventpack");
  BOOST_REQUIRE_MESSAGE(r.code == 0, r);
  // Still Yaz0, and the member reads back with the change.
  const ByteVec packed = s.read("mod.sbeventpack");
  BOOST_TEST(std::string(packed.begin(), packed.begin() + 4) == "Yaz0");
  r = s.cli("decode mod.sbeventpack:" + kFlow);
  BOOST_REQUIRE_MESSAGE(r.code == 0, r);
  BOOST_TEST(r.out.find("float: 5.5") != std::string::npos);
  r = s.cli("diff " + q(sample_pack().string()) + " mod.sbeventpack");
  BOOST_TEST(r.code == 1);
  BOOST_TEST(r.out == "~ " + kFlow + ":flowcharts[Demo344_1].actors[0].params.items.PosX.float: 0.0 -> 5.5\n",
             r.out);
  BOOST_TEST((members(s, "mod.sbeventpack") == members(s, sample_pack().string())));
}

BOOST_AUTO_TEST_CASE(members_added_removed_and_renamed) {
  Sandbox s;
  const fs::path sarc = samples::dir("sarc") / "ActorObserverByActorTagTag.sarc";
  BOOST_REQUIRE(s.cli("unpack " + q(sarc.string()) + " dir").code == 0);
  // Removed: a member's file deleted.
  fs::remove(s.path("dir/Actor/ModelList/ActorObserverTag.bmodellist.yaml"));
  // Renamed: the member aligned to 8 keeps its alignment under its new name.
  fs::rename(s.path("dir/Actor/ActorLink/ActorObserverByActorTagTag.bxml.yaml"), s.path("dir/Actor/ActorLink/Renamed.bxml.yaml"));
  // Added: a raw file, and a document of a known format (encoded on the way in).
  s.write("dir/Extra/hello.txt", std::string("hello\n"));
  s.write("dir/Extra/notes.yaml", std::string("a: 1\n"));  // YAML, but no binschema document: a file as it is
  const fs::path flow = samples::dir("bfevfl") / "GanonQuest.bfevfl";
  fs::create_directories(s.path("dir/EventFlow"));
  Result r = s.cli("decode " + q(flow.string()) + " -o dir/EventFlow/New.bfevfl.yaml");
  BOOST_REQUIRE(r.code == 0);
  r = s.cli("pack dir -o out.sarc");
  BOOST_REQUIRE_MESSAGE(r.code == 0, r);
  BOOST_TEST((members(s, "out.sarc") ==
              std::vector<std::string>{"Actor/AIProgram/ActorObserverByActorTagTag.baiprog", "Actor/ActorLink/Renamed.bxml",
                                       "EventFlow/New.bfevfl", "Extra/hello.txt", "Extra/notes.yaml"}));
  // The raw member's bytes, and the document's bytes, as given.
  r = s.cli("decode out.sarc");
  BOOST_REQUIRE(r.code == 0);
  YAML::Node doc = YAML::Load(r.out);
  bool renamed_aligned = false;
  for (const auto& n : doc["nodes"]) {
    const std::string name = n["attributes"]["name"].as<std::string>();
    if (name == "Actor/ActorLink/Renamed.bxml") renamed_aligned = n["alignment"] && n["alignment"].as<uint32_t>() == 8;
    if (name == "Extra/hello.txt") BOOST_TEST(n["data"].as<std::string>() == "68656c6c6f0a");
    if (name == "EventFlow/New.bfevfl") {
      const ByteVec want = samples::read(flow);
      std::string hex;
      for (uint8_t b : want) {
        static const char* d = "0123456789abcdef";
        hex += d[b >> 4];
        hex += d[b & 15];
      }
      BOOST_TEST((n["data"].as<std::string>() == hex));
    }
  }
  BOOST_TEST(renamed_aligned);
}

BOOST_AUTO_TEST_CASE(a_zstd_pack_and_an_archive_inside_an_archive_come_back) {
  Sandbox s;
  const fs::path sarc = samples::dir("sarc") / "ActorObserverByActorTagTag.sarc";
  // zstd (no dictionary, level 3): the parameters reproduce the stream, so nothing is kept.
  BOOST_REQUIRE(s.cli("decode " + q(sarc.string()) + " -o a.yaml").code == 0);
  BOOST_REQUIRE(s.cli("encode a.yaml -o a.sarc.zs").code == 0);
  Result r = s.cli("unpack a.sarc.zs za");
  BOOST_REQUIRE_MESSAGE(r.code == 0, r);
  BOOST_TEST(s.read_text("za/.binschema/manifest.yaml").find("compression: {layer: zstd, level: 3}") != std::string::npos);
  BOOST_TEST(!s.exists("za/.binschema/kept"));
  BOOST_REQUIRE(s.cli("pack za -o za.sarc.zs").code == 0);
  BOOST_TEST((s.read("za.sarc.zs") == s.read("a.sarc.zs")));
  // A folder without a manifest is a fresh archive; a Yaz0 SARC in it is
  // unpacked as a folder of its own (binschema's own Yaz0: nothing kept).
  fs::create_directories(s.path("fresh/Inner"));
  fs::create_directories(s.path("fresh/Pack"));
  s.write("fresh/Inner/x.bin", std::string("inner member\n"));
  BOOST_REQUIRE(s.cli("pack fresh/Inner -o fresh/Pack/Inner.ssarc").code == 0);
  fs::remove_all(s.path("fresh/Inner"));
  s.write("fresh/readme.txt", std::string("outer member\n"));
  BOOST_REQUIRE(s.cli("pack fresh -o outer.sarc").code == 0);
  BOOST_TEST((members(s, "outer.sarc") == std::vector<std::string>{"Pack/Inner.ssarc", "readme.txt"}));
  r = s.cli("unpack outer.sarc nested");
  BOOST_REQUIRE_MESSAGE(r.code == 0, r);
  BOOST_TEST(s.read_text("nested/Pack/Inner.ssarc/x.bin") == "inner member\n");
  BOOST_TEST(s.read_text("nested/Pack/Inner.ssarc/.binschema/manifest.yaml").find("{layer: yaz0, alignment: 0x0}") !=
             std::string::npos);
  BOOST_REQUIRE(s.cli("pack nested -o back.sarc").code == 0);
  BOOST_TEST((s.read("back.sarc") == s.read("outer.sarc")));
  // Edited inside: diff names the member inside the member; a folder compares as its pack.
  s.write("nested/Pack/Inner.ssarc/x.bin", std::string("edited\n"));
  BOOST_REQUIRE(s.cli("pack nested -o edited.sarc").code == 0);
  r = s.cli("diff outer.sarc edited.sarc");
  BOOST_TEST(r.code == 1);
  BOOST_TEST(r.out == "~ Pack/Inner.ssarc:x.bin: 13 bytes -> 7 bytes (first difference at 0x0)\n", r.out);
  BOOST_TEST(s.cli("diff edited.sarc nested").code == 0);
}

BOOST_AUTO_TEST_CASE(unpack_and_pack_never_overwrite_what_they_should_not) {
  Sandbox s;
  s.write("dir/mine.txt", std::string("keep me"));
  Result r = s.cli("unpack " + q(sample_pack().string()) + " dir");
  BOOST_TEST(r.code == 2);
  BOOST_TEST(r.err.find("dir: exists") != std::string::npos, r.err);
  BOOST_TEST((s.tree("dir") == std::vector<std::string>{"mine.txt"}));
  // With --force, DIR is replaced whole.
  r = s.cli("unpack --force " + q(sample_pack().string()) + " dir");
  BOOST_REQUIRE_MESSAGE(r.code == 0, r);
  BOOST_TEST(!s.exists("dir/mine.txt"));
  // Not even with --force when DIR holds PACK.
  fs::copy_file(sample_pack(), s.path("dir/" + kPack));
  r = s.cli("unpack --force dir/" + kPack + " dir");
  BOOST_TEST(r.code == 2);
  BOOST_TEST(r.err.find("holds the input") != std::string::npos, r.err);
  BOOST_TEST((s.read("dir/" + kPack) == samples::read(sample_pack())));
  fs::remove(s.path("dir/" + kPack));
  // OUT inside DIR would be packed into the archive next time.
  r = s.cli("pack dir -o dir/x.sbeventpack");
  BOOST_TEST(r.code == 2);
  BOOST_TEST(!s.exists("dir/x.sbeventpack"));
  // Not an archive: exit 1, nothing made.
  r = s.cli("unpack " + q((samples::dir("bfevfl") / "GanonQuest.bfevfl").string()) + " other");
  BOOST_TEST(r.code == 1);
  BOOST_TEST(r.err.find("not an archive") != std::string::npos, r.err);
  BOOST_TEST((s.files() == std::vector<std::string>{"dir"}));
  // A text member that no longer encodes: exit 1 with its line:col, no output.
  edit(s, "dir/" + kFlow + ".yaml", "float: 0.0", "float: zero");
  r = s.cli("pack dir -o out.sbeventpack");
  BOOST_TEST(r.code == 1);
  BOOST_TEST(r.err.find(kFlow + ".yaml:") != std::string::npos, r.err);
  BOOST_TEST(!s.exists("out.sbeventpack"));
}

BOOST_AUTO_TEST_CASE(member_names_that_are_no_paths_are_refused) {
  Sandbox s;
  s.write("evil.yaml", std::string("format: sarc\nbom: 0xfffe\nnodes:\n  - attributes: {name: ../evil.txt}\n    data: \"41\"\n"));
  s.write("dup.yaml", std::string("format: sarc\nbom: 0xfffe\nnodes:\n  - attributes: {name: a}\n    data: \"41\"\n"
                                  "  - attributes: {name: a/b}\n    data: \"42\"\n"));
  BOOST_REQUIRE(s.cli("encode evil.yaml -o evil.sarc").code == 0);
  BOOST_REQUIRE(s.cli("encode dup.yaml -o dup.sarc").code == 0);
  Result r = s.cli("unpack evil.sarc out");
  BOOST_TEST(r.code == 1);
  BOOST_TEST(r.err == "binschema: evil.sarc: the member name '../evil.txt' has an empty, '.' or '..' part: it cannot be a "
                      "file of a folder\n");
  r = s.cli("unpack dup.sarc out");
  BOOST_TEST(r.code == 1);
  BOOST_TEST(r.err.find("dup.sarc:a/b: its path in the folder collides") != std::string::npos, r.err);
  // Nothing made, nothing left beside (no temporary folder), nothing outside.
  BOOST_TEST((s.files() == std::vector<std::string>{"dup.sarc", "dup.yaml", "evil.sarc", "evil.yaml"}));
  BOOST_TEST(!fs::exists(s.path("").parent_path() / "evil.txt"));
}

// ---- diff -----------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(diff_names_the_paths_of_edits_in_a_bfevfl_file) {
  Sandbox s;
  const fs::path flow = samples::dir("bfevfl") / "subchallnpc000_twin.bfevfl";
  BOOST_REQUIRE(s.cli("decode " + q(flow.string()) + " -o a.yaml").code == 0);
  s.write("b.yaml", s.read_text("a.yaml"));
  // Same: exit 0, nothing said (binary against its own text too).
  Result r = s.cli("diff " + q(flow.string()) + " a.yaml");
  BOOST_TEST(r.code == 0, r);
  BOOST_TEST(r.out.empty());
  // A value in a map by name (the parameters, map: key), an entry added in
  // the middle of one, an entry point's field: only those (entries match by
  // key, not by position).
  edit(s, "b.yaml", "IsWaitFinish:\n                bool: true", "IsWaitFinish:\n                bool: false");
  edit(s, "b.yaml", "          params:\n            items:\n              Arg_Turn:",
       "          params:\n            items:\n              Arg_New:\n                int: 7\n              Arg_Turn:");
  edit(s, "b.yaml", "main_event: Event2", "main_event: Event3");
  BOOST_REQUIRE(s.cli("encode b.yaml -o b.bfevfl").code == 0);
  r = s.cli("diff " + q(flow.string()) + " b.bfevfl");
  BOOST_TEST(r.code == 1, r);
  const std::string f = "flowcharts[subchallnpc000_twin].";
  BOOST_TEST((lines(r.out) ==
              std::vector<std::string>{
                  "+ " + f + "events.Event2.sub_flow.params.items.Arg_New: {int: 7}",
                  "~ " + f + "events.Event4.action.params.items.IsWaitFinish.bool: true -> false",
                  // recomputed by the writer from the main event (schemas/bfevfl.hooks.cpp)
                  "~ " + f + "entry_points.NearActorsTalk.sub_flow_events[0]: Event2 -> Event3",
                  "~ " + f + "entry_points.NearActorsTalk.main_event: Event2 -> Event3"}),
             r.out);
  // JSON, the same changes.
  r = s.cli("diff --format json " + q(flow.string()) + " b.yaml");
  BOOST_TEST(r.code == 1);
  YAML::Node j = YAML::Load(r.out);
  BOOST_TEST(j["equal"].as<bool>() == false);
  BOOST_REQUIRE(j["changes"].size() == 3u);  // the text, as written: no recomputed sub_flow_events
  BOOST_TEST(j["changes"][1]["path"].as<std::string>() ==
             f + "events.Event4.action.params.items.IsWaitFinish.bool");
  BOOST_TEST(j["changes"][1]["before"].as<std::string>() == "true");
  BOOST_TEST(j["changes"][1]["after"].as<std::string>() == "false");
  BOOST_TEST(j["changes"][0]["change"].as<std::string>() == "added");
  // Trouble is 2, as diff(1).
  r = s.cli("diff a.yaml missing.bfevfl");
  BOOST_TEST(r.code == 2);
}

// AAMP and BYML (schemas/aamp.yaml, schemas/byml.yaml): parameters are matched
// by their name (from the schema's default names; a CRC32 where none), dictionary entries by their
// key (the key's string), so an edit is named by
// those, not by positions.
BOOST_AUTO_TEST_CASE(diff_names_the_paths_of_edits_in_aamp_and_byml_files) {
  Sandbox s;
  const fs::path aamp = samples::dir("aamp") / "GameRomHorse.bxml";
  BOOST_REQUIRE(s.cli("decode " + q(aamp.string()) + " -o a.yaml").code == 0);
  s.write("b.yaml", s.read_text("a.yaml"));
  edit(s, "b.yaml", "Priority: Default\n", "Priority: Changed\n");
  BOOST_REQUIRE(s.cli("encode b.yaml -o b.bxml").code == 0);
  Result r = s.cli("diff " + q(aamp.string()) + " b.bxml");
  BOOST_TEST(r.code == 1, r);
  BOOST_TEST((lines(r.out) == std::vector<std::string>{"~ root.objects.LinkTarget.Priority: Default -> Changed"}),
             r.out);

  const fs::path byml = samples::dir("byml") / "MainFieldLocation.byml";
  BOOST_REQUIRE(s.cli("decode " + q(byml.string()) + " -o c.yaml").code == 0);
  s.write("d.yaml", s.read_text("c.yaml"));
  edit(s, "d.yaml", "X: -4931.034,", "X: -4931.5,");
  BOOST_REQUIRE(s.cli("encode d.yaml -o d.byml").code == 0);
  r = s.cli("diff " + q(byml.string()) + " d.byml");
  BOOST_TEST(r.code == 1, r);
  BOOST_TEST((lines(r.out) ==
              std::vector<std::string>{"~ root[0].Translate.X: -4931.034 -> -4931.5"}),
             r.out);
}

// ---- merge ----------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(merge_combines_edits_to_different_fields_of_one_file) {
  Sandbox s;
  const fs::path flow = samples::dir("bfevfl") / "subchallnpc000_twin.bfevfl";
  BOOST_REQUIRE(s.cli("decode " + q(flow.string()) + " -o ours.yaml").code == 0);
  s.write("theirs.yaml", s.read_text("ours.yaml"));
  edit(s, "ours.yaml", "main_event: Event2", "main_event: Event3");
  edit(s, "theirs.yaml", "string: FollowAISchedule", "string: Wave");
  BOOST_REQUIRE(s.cli("encode ours.yaml -o ours.bfevfl").code == 0);
  BOOST_REQUIRE(s.cli("encode theirs.yaml -o theirs.bfevfl").code == 0);
  Result r = s.cli("merge " + q(flow.string()) + " ours.bfevfl theirs.bfevfl -o merged.bfevfl");
  BOOST_REQUIRE_MESSAGE(r.code == 0, r);
  r = s.cli("diff " + q(flow.string()) + " merged.bfevfl");
  const std::string f = "flowcharts[subchallnpc000_twin].";
  BOOST_TEST((lines(r.out) ==
              std::vector<std::string>{
                  "~ " + f + "events.Event2.sub_flow.params.items.Arg_Greeting.string: FollowAISchedule -> Wave",
                  "~ " + f + "entry_points.NearActorsTalk.sub_flow_events[0]: Event2 -> Event3",
                  "~ " + f + "entry_points.NearActorsTalk.main_event: Event2 -> Event3"}),
             r.out);
  // Text in, text out.
  r = s.cli("merge " + q(flow.string()) + " ours.yaml theirs.yaml -o merged.yaml");
  BOOST_REQUIRE_MESSAGE(r.code == 0, r);
  BOOST_TEST(s.read_text("merged.yaml").rfind("format: bfevfl\n", 0) == 0);
  BOOST_TEST(s.cli("diff merged.yaml merged.bfevfl").code == 0);
}

BOOST_AUTO_TEST_CASE(merge_reports_two_edits_to_one_field_and_writes_nothing) {
  Sandbox s;
  const fs::path flow = samples::dir("bfevfl") / "subchallnpc000_twin.bfevfl";
  BOOST_REQUIRE(s.cli("decode " + q(flow.string()) + " -o ours.yaml").code == 0);
  s.write("theirs.yaml", s.read_text("ours.yaml"));
  edit(s, "ours.yaml", "main_event: Event2", "main_event: Event3");
  edit(s, "theirs.yaml", "main_event: Event2", "main_event: Event4");
  Result r = s.cli("merge " + q(flow.string()) + " ours.yaml theirs.yaml -o merged.bfevfl");
  BOOST_TEST(r.code == 1);
  BOOST_TEST(r.err.find("conflict: flowcharts[subchallnpc000_twin].entry_points.NearActorsTalk.main_event: base Event2, "
                        "ours Event3, theirs Event4") != std::string::npos,
             r.err);
  BOOST_TEST(!s.exists("merged.bfevfl"));
  // --force writes OURS's side.
  r = s.cli("merge --force " + q(flow.string()) + " ours.yaml theirs.yaml -o merged.yaml");
  BOOST_TEST(r.code == 1);
  BOOST_TEST(s.read_text("merged.yaml").find("main_event: Event3") != std::string::npos);
  // OUT is an input: refused.
  r = s.cli("merge " + q(flow.string()) + " ours.yaml theirs.yaml -o ours.yaml");
  BOOST_TEST(r.code == 2);
}

BOOST_AUTO_TEST_CASE(merge_combines_two_mods_of_one_pack) {
  Sandbox s;
  const std::string base = q(sample_pack().string());
  BOOST_REQUIRE(s.cli("unpack " + base + " ours").code == 0);
  BOOST_REQUIRE(s.cli("unpack " + base + " theirs").code == 0);
  edit(s, "ours/" + kFlow + ".yaml", "            PosX:\n              float: 0.0", "            PosX:\n              float: 5.5");
  edit(s, "theirs/" + kFlow + ".yaml", "IsGrounding:\n              bool: false", "IsGrounding:\n              bool: true");
  s.write("theirs/Extra/new.txt", std::string("new member\n"));
  BOOST_REQUIRE(s.cli("pack ours -o ours.sbeventpack").code == 0);
  BOOST_REQUIRE(s.cli("pack theirs -o theirs.sbeventpack").code == 0);
  Result r = s.cli("merge " + base + " ours.sbeventpack theirs.sbeventpack -o merged.sbeventpack");
  BOOST_REQUIRE_MESSAGE(r.code == 0, r);
  r = s.cli("diff " + base + " merged.sbeventpack");
  const std::string p = kFlow + ":flowcharts[Demo344_1].actors[0].params.items.";
  BOOST_TEST((lines(r.out) == std::vector<std::string>{"~ " + p + "IsGrounding.bool: false -> true",
                                                       "~ " + p + "PosX.float: 0.0 -> 5.5",
                                                       "+ Extra/new.txt: 11 bytes"}),
             r.out);
  // The same field in both: a conflict named by member and path.
  edit(s, "theirs/" + kFlow + ".yaml", "            PosX:\n              float: 0.0", "            PosX:\n              float: 6.5");
  BOOST_REQUIRE(s.cli("pack theirs -o theirs2.sbeventpack").code == 0);
  r = s.cli("merge " + base + " ours.sbeventpack theirs2.sbeventpack -o merged2.sbeventpack");
  BOOST_TEST(r.code == 1);
  BOOST_TEST(r.err.find("conflict: " + p + "PosX.float: base 0.0, ours 5.5, theirs 6.5") != std::string::npos, r.err);
  BOOST_TEST(!s.exists("merged2.sbeventpack"));
}

// ---- verify ---------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(verify_gives_back_every_sample_of_a_known_format) {
  Sandbox s;
  const fs::path all = samples::dir("");
  Result r = s.cli("verify -j 2 --format json " + q(all.string()));
  BOOST_TEST(r.code == 0, r);
  YAML::Node j = YAML::Load(r.out);
  size_t ok = 0, bfevfl = 0, sarc = 0;
  for (const auto& f : j["files"]) {
    const std::string result = f["result"].as<std::string>(), format = f["format"].as<std::string>();
    BOOST_TEST((result == "ok" || result == "skipped"), f["path"].as<std::string>() << ": " << result);
    if (result == "skipped") BOOST_TEST(format.empty(), f["path"].as<std::string>());
    if (result == "ok") ++ok;
    if (format == "bfevfl") ++bfevfl;
    if (format == "sarc") ++sarc;
  }
  BOOST_TEST(bfevfl >= 8u);  // the 7 samples and the event flow inside the Yaz0 pack
  BOOST_TEST(sarc >= 4u);    // the 3 archives and the pack
  BOOST_TEST(j["summary"]["given_back"].as<size_t>() == ok);
  BOOST_TEST(j["summary"]["not_given_back"].as<size_t>() == 0u);
}

BOOST_AUTO_TEST_CASE(verify_names_offset_and_field_of_a_file_that_does_not_come_back) {
  Sandbox s;
  // CompleteDungeon's entry point stores 1 as its sub flow event where the
  // writer computes 0 (the hook recomputes the list): it decodes, and does
  // not come back.
  const ByteVec original = samples::read(samples::dir("bfevfl") / "CompleteDungeon.bfevfl");
  ByteVec b = original;
  BOOST_REQUIRE(b.size() > 0x1e8 && b[0x1e8] == 0);
  b[0x1e8] = 1;
  s.write("dump/bad.bfevfl", b);
  // The relocation table's offset one off: the same document, another layout.
  b = original;
  b[0x18] ^= 1;
  s.write("dump/moved.bfevfl", b);
  s.write("dump/good.bfevfl", samples::read(samples::dir("bfevfl") / "GanonQuest.bfevfl"));
  s.write("dump/notes.txt", std::string("not a game file\n"));
  Result r = s.cli("verify dump");
  BOOST_TEST(r.code == 1, r);
  const std::vector<std::string> l = lines(r.out);
  BOOST_REQUIRE(l.size() == 3u);
  // decode(bytes, layout) itself refuses both (a layout cannot keep what
  // differs): verify names the byte and its field from that refusal.
  auto starts = [](const std::string& line, const std::string& head) { return line.rfind(head, 0) == 0; };
  BOOST_TEST(starts(l[0], "DIFFERS  dump/bad.bfevfl (bfevfl, direct): first difference at 0x1e8 (flowcharts[0].entry_points[0]."
                          "sub_flow_events), the byte at 0x1e8 is 0x1, but the model with this file's layout writes 0x0"),
             l[0]);
  BOOST_TEST(starts(l[1], "DIFFERS  dump/moved.bfevfl (bfevfl, direct): first difference at 0x18 (relocation_table_offset), "
                          "the byte at 0x18 is 0x71, but the model with this file's layout writes 0x70"),
             l[1]);
  BOOST_TEST(l[2] == "verify: 1 given back, 2 not given back, 0 do not decode, 1 skipped (no known format)");
  r = s.cli("verify --format json -j 2 dump");
  YAML::Node j = YAML::Load(r.out);
  BOOST_REQUIRE(j["files"].size() == 4u);
  BOOST_TEST(j["files"][0]["result"].as<std::string>() == "differs");
  BOOST_TEST(j["files"][0]["offset"].as<uint64_t>() == 0x1e8u);
  BOOST_TEST(j["files"][0]["field"].as<std::string>() == "flowcharts[0].entry_points[0].sub_flow_events");
  BOOST_TEST(j["files"][2]["field"].as<std::string>() == "relocation_table_offset");
  BOOST_TEST(j["files"][3]["result"].as<std::string>() == "skipped");
}
