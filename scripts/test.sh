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
