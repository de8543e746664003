#!/usr/bin/env python3
"""The schema_corpus test: "a schema the generator accepts compiles, and its
code round-trips random models".

1. gen_corpus.py writes the corpus (schemas and their rules) into WORK;
2. binschema-gen generates C++ for each schema (a refusal fails the test);
3. each schema's generated .cpp, its hooks and its driver (driver.h) are
   compiled as one unit (one parse of the runtime's headers and one
   instantiation of what they share: a quarter less time than as two units),
   JOBS units at a time, and linked into one program with the runtime; a
   fixed byte order's schema whose group has a bom schema with the same cases
   is compiled with -fsyntax-only instead, without its driver (the generator
   writes the same code for both; the bom schema runs it in both orders);
4. the program runs MODELS random models through each schema (fixed SEED).

Prints the counts and the time of each step. Run by ctest (tests/CMakeLists.txt):

    run_corpus.py --gen BIN --cxx CXX [--launcher ccache] --include DIR
                  --libs "LIB ..." --work DIR [--seed N] [--models N] [--jobs N]
                  [--with-skipped]
"""

import argparse
import concurrent.futures
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def sh(cmd, what):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return r.returncode, what, r.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gen", required=True)
    ap.add_argument("--cxx", required=True)
    ap.add_argument("--launcher", default="")
    ap.add_argument("--include", required=True)
    ap.add_argument("--libs", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--models", type=int, default=400)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--opt", default="-O0")
    ap.add_argument("--with-skipped", action="store_true")
    ap.add_argument("--only-skipped", action="store_true", help="each skipped case alone; every step goes on past failures")
    ap.add_argument("--dynamic", action="store_true",
                    help="also check the run-time engine (binschema/dynamic.h; --libs must hold binschema_dynamic and binschema_schema)")
    a = ap.parse_args()

    t0 = time.time()
    work = os.path.abspath(a.work)
    gen_dir = os.path.join(work, "generated")
    obj_dir = os.path.join(work, "obj")
    os.makedirs(gen_dir, exist_ok=True)
    os.makedirs(obj_dir, exist_ok=True)
    for d in (work, gen_dir):
        for f in os.listdir(d):
            if f.endswith((".yaml", ".cpp", ".h", ".md")):
                os.remove(os.path.join(d, f))

    cmd = [sys.executable, os.path.join(HERE, "gen_corpus.py"), work]
    if a.with_skipped:
        cmd.append("--with-skipped")
    if a.only_skipped:
        cmd.append("--only-skipped")
    subprocess.run(cmd, check=True)
    index = json.load(open(os.path.join(work, "index.json")))
    schemas = index["schemas"]
    if index["skipped"]:
        print(f"skipped ({len(index['skipped'])} cases, known defects fixed on other branches; see SKIP in gen_corpus.py):")
        for k, v in index["skipped"].items():
            print(f"  {k}: {v}")

    # 2. Generate.
    failed = []
    for s in schemas:
        src = os.path.join(work, s["name"] + ".yaml")
        r = subprocess.run([a.gen, src, "--out", gen_dir], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if r.returncode != 0:
            failed.append(f"binschema-gen refused {src}:\n{r.stdout}")
    if failed:
        print("\n".join(failed))
        print(f"FAIL: {len(failed)} schemas refused by binschema-gen")
        if not a.only_skipped:
            return 1
        schemas = [s for s in schemas if not any(s["name"] + ".yaml" in f for f in failed)]
    t_gen = time.time()

    # 3. Drivers, then compile everything. A schema marked compile_only (a
    # fixed byte order whose code its group's bom schema runs: gen_corpus.py)
    # is compiled without code generation (-fsyntax-only: every error and
    # warning, no object) and not run.
    checked = [s for s in schemas if s.get("compile_only")]
    schemas = [s for s in schemas if not s.get("compile_only")]
    for s in schemas:
        write_driver(work, s)
    write_main(work, schemas, a.seed, a.models, a.dynamic)
    base = ([a.launcher] if a.launcher else []) + [a.cxx, "-std=c++20", a.opt, "-Wall", "-Wextra",
                                                    "-I" + a.include, "-I" + gen_dir, "-I" + HERE]
    units = [write_unit(work, gen_dir, s) for s in schemas] + [os.path.join(work, "corpus_main.cpp")]
    # The biggest first, so that the two cores finish together.
    units.sort(key=lambda u: -os.path.getsize(u))
    objs = []
    jobs = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as pool:
        for s in checked:
            u = write_unit(work, gen_dir, s, driver=False)
            jobs.append(pool.submit(sh, base + ["-fsyntax-only", u], u))
        for u in units:
            o = os.path.join(obj_dir, os.path.basename(u) + ".o")
            objs.append(o)
            jobs.append(pool.submit(sh, base + ["-c", u, "-o", o], u))
        errors = 0
        warned = 0
        for j in jobs:
            rc, what, out = j.result()
            if rc != 0:
                errors += 1
                print(f"FAIL: {what} does not compile:\n{out[:6000]}")
            elif "warning:" in out:
                warned += 1
                print(f"warnings in {what}:\n{out[:3000]}")
    if errors:
        print(f"FAIL: {errors} translation units do not compile")
        if not a.only_skipped:
            return 1
        bad = {os.path.basename(j.result()[1]) for j in jobs if j.result()[0] != 0}
        schemas = [s for s in schemas if "unit_" + s["name"] + ".cpp" not in bad]
        write_main(work, schemas, a.seed, a.models, a.dynamic)
        rc, what, out = sh(base + ["-c", os.path.join(work, "corpus_main.cpp"), "-o", os.path.join(obj_dir, "corpus_main.cpp.o")], "main")
        objs = [os.path.join(obj_dir, "unit_" + s["name"] + ".cpp.o") for s in schemas] + [os.path.join(obj_dir, "corpus_main.cpp.o")]
    if checked:
        print("compiled only (their bom schema runs the same code): " + ", ".join(s["name"] for s in checked))
    t_cc = time.time()
    exe = os.path.join(work, "corpus_run")
    rc, _, out = sh(base[:-3] + objs + ["-o", exe] + a.libs.split(), "link")
    if rc != 0:
        print(f"FAIL: link:\n{out[:6000]}")
        return 1
    t_link = time.time()

    # 4. Run.
    r = subprocess.run([exe], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    print(r.stdout, end="")
    t_run = time.time()
    print(f"time: generate {t_gen - t0:.1f} s, compile {t_cc - t_gen:.1f} s ({len(units)} units, {len(checked)} compile-only, {a.jobs} jobs"
          f"{', ' + str(warned) + ' with warnings' if warned else ''}), link {t_link - t_cc:.1f} s, run {t_run - t_link:.1f} s")
    return 1 if r.returncode != 0 else 0


def write_unit(work, gen_dir, s, driver=True):
    """The schema's one translation unit: its generated code, its hooks and its driver."""
    n = s["name"]
    parts = [os.path.join(gen_dir, n + ".cpp")] + ([os.path.join(work, n + ".hooks.cpp")] if s["hooks"] else []) + \
            ([os.path.join(work, "drive_" + n + ".cpp")] if driver else [])
    path = os.path.join(work, f"unit_{n}.cpp")
    with open(path, "w") as fh:
        fh.write(f"// Generated by tests/corpus/run_corpus.py: {n} as one translation unit.\n")
        fh.writelines(f"#include {json.dumps(p)}\n" for p in parts)
    return path


def write_driver(work, s):
    n = s["name"]
    rules = "\n".join(s["rules"])
    refuse = ", ".join(json.dumps(r) for r in s["refuse"])
    check = "false" if s["no_layout_check"] else "true"
    root = "fmt::" + s["root"]
    text = f"""// Generated by tests/corpus/run_corpus.py: random models through {n}.
#include "driver.h"
#include "{n}.h"
#include "{n}_text.h"

namespace fmt = binschema::{n};

int drive_{n}(uint64_t seed, size_t models, corpus::Stats& stats) {{
  static const std::vector<corpus::Rule> rules = {{
{rules}
  }};
  corpus::Format<{root}> f{{"{n}", fmt::encode, fmt::encode, fmt::decode, fmt::decode, fmt::to_text, fmt::from_text}};
  return corpus::run<{root}>(f, rules, {{{refuse}}}, {check}, seed, models, stats,
                                [](corpus::Filler& fill, {root}& m) {{
                                  fill.context = [&m](std::string_view name) {{ return corpus::int_field(m, name); }};
                                }});
}}
"""
    path = os.path.join(work, f"drive_{n}.cpp")
    with open(path, "w") as fh:
        fh.write(text)


def write_main(work, schemas, seed, models, dynamic=False):
    decls = "\n".join(f"int drive_{s['name']}(uint64_t, size_t, corpus::Stats&);" for s in schemas)
    rows = "\n".join(f'    {{"{s["name"]}", drive_{s["name"]}, {len(s["cases"])}, {s["structs"]}, {s["root_fields"]}, '
                     f'{json.dumps("; ".join(s["no_layout_check"]))}}},' for s in schemas)
    dyn_include = '#include <map>\n#include <optional>\n#include "binschema/dynamic.h"\n' if dynamic else ""
    dyn_setup = ""
    if dynamic:
        dyn_setup = f"""  // The run-time engine on each schema file of the corpus (driver.h dynamic_text).
  corpus::dynamic_text() = [](const char* name, std::span<const uint8_t> bytes, binschema::TextKind kind) {{
    // A schema whose text form the engine does not do yet is refused at
    // load (never other text): corpus::kEngineRefused, and it is skipped.
    static std::map<std::string, std::optional<binschema::dynamic::Schema>> loaded;
    auto it = loaded.find(name);
    if (it == loaded.end()) {{
      std::optional<binschema::dynamic::Schema> s;
      try {{
        s = binschema::dynamic::Schema::load({json.dumps(work)} + std::string("/") + name + ".yaml");
      }} catch (const std::exception& e) {{
        if (std::string(e.what()).find("the run-time engine does not support") == std::string::npos) throw;
      }}
      it = loaded.emplace(name, std::move(s)).first;
    }}
    if (!it->second) return std::string(corpus::kEngineRefused);
    try {{
      return it->second->to_text(it->second->decode(bytes), kind);
    }} catch (const binschema::DecodeError& e) {{
      return std::string("error: ") + e.what();
    }}
  }};
"""
    text = f"""// Generated by tests/corpus/run_corpus.py: runs every schema of the corpus.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "binschema/format.h"
#include "driver.h"
{dyn_include}
{decls}

// The runtime's format list (find_format): the corpus formats are not in it.
namespace binschema {{
const std::vector<const Format*>& all_formats() {{
  static const std::vector<const Format*> none;
  return none;
}}
}}  // namespace binschema

int main(int argc, char** argv) {{
  uint64_t seed = argc > 1 ? std::strtoull(argv[1], nullptr, 0) : {seed};
  size_t models = argc > 2 ? std::strtoull(argv[2], nullptr, 0) : {models};
  struct Entry {{
    const char* name;
    int (*drive)(uint64_t, size_t, corpus::Stats&);
    int cases, structs, root_fields;
    const char* no_layout_check;
  }};
  static const Entry entries[] = {{
{rows}
  }};
{dyn_setup}  std::printf("seed %llu, %zu models per schema%s\\n", static_cast<unsigned long long>(seed), models, {'", and the run-time engine on each"' if dynamic else '""'});
  int failed = 0, cases = 0, structs = 0, fields = 0;
  size_t total = 0, refused = 0;
  const char* only = argc > 3 ? argv[3] : nullptr;  // one schema
  for (const Entry& e : entries) {{
    if (only && std::string(only) != e.name) continue;
    corpus::Stats st;
    int rc = e.drive(seed, models, st);
    std::printf("%-22s %2d cases, %3d structs, %3d root fields: %zu models round-tripped, %zu refused%s%s%s\\n", e.name,
                e.cases, e.structs, e.root_fields, st.models, st.refused, rc ? "  FAILED" : "",
                *e.no_layout_check ? "; no layout check: " : "", e.no_layout_check);
    failed += rc;
    cases += e.cases;
    structs += e.structs;
    fields += e.root_fields;
    total += st.models;
    refused += st.refused;
  }}
  std::printf("%zu schemas, %d case instances (%d structs, %d root fields), %zu models round-tripped, %zu refused as planned, %d schemas failed\\n",
              sizeof entries / sizeof entries[0], cases, structs, fields, total, refused, failed);
  return failed ? 1 : 0;
}}
"""
    with open(os.path.join(work, "corpus_main.cpp"), "w") as fh:
        fh.write(text)


if __name__ == "__main__":
    sys.exit(main())
