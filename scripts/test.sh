#!/bin/sh
# Builds everything and runs every test (ctest: Boost.Test suites, the check
# that generated/ is current, and the tests over ../shared/samples).
set -eu
cd "$(dirname "$0")/.."
sh scripts/deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)"
cd build
ctest --output-on-failure -j"$(nproc)"
cd ..
# Hostile input (issue 14, docs/fuzzing.md): the generator, the formats and the
# fuzz targets built by clang with ASan and UBSan in build-asan/, binschema-gen
# run over every schema under them, then every fuzz target for
# BINSCHEMA_CI_FUZZ_SECONDS (default 6) seconds each, with a fixed seed: a
# regression fails the run, and the same run can be repeated (and run longer)
# anywhere. A target always runs all of its seeds (the examples and the real
# samples) first, however long they take; the seconds are the mutations after.
# The seeds are made by the CLI just tested (no second CLI built). The
# generated format code, the generator and the targets' own code are compiled
# at -O0 there, the runtime and the run-time engine at -O1 (fuzz.sh's default,
# for longer runs: -O1 throughout); one input may take 60 s, not 20 (the
# slowest BYML seed took 12 s at -O0).
BINSCHEMA_FUZZ_SEED=${BINSCHEMA_FUZZ_SEED:-1} BINSCHEMA_FUZZ_CLI=${BINSCHEMA_FUZZ_CLI:-build/binschema} \
  BINSCHEMA_FUZZ_GENERATED_OPT=${BINSCHEMA_FUZZ_GENERATED_OPT:--O0} BINSCHEMA_FUZZ_TIMEOUT=${BINSCHEMA_FUZZ_TIMEOUT:-60} \
  sh scripts/fuzz.sh "${BINSCHEMA_CI_FUZZ_SECONDS:-6}"
