#!/bin/sh
# The main job: build, then encode every bundled example (examples/*.yaml),
# decode it back, check the bytes survive YAML and JSON, and generate the docs.
set -eu
cd "$(dirname "$0")/.."
sh scripts/deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)"
sh examples/run.sh build
