#!/bin/sh
# Runs formats_bench: every format's decode, encode and text paths at about
# 1, 16 and 64 MiB (text at 1 and 16 MiB unless --text-sizes says more), BAEV
# side by side with Kaitai Struct's generated C++ when the build has it
# (bench/CMakeLists.txt), and prints one Markdown table with the conditions.
#
#   bench/run.sh [BUILD_DIR] [formats_bench arguments]
#   bench/run.sh build-bench --formats baev --sizes 1,16,64 --runs 3
#
# It builds nothing: cmake --build BUILD_DIR --target formats_bench first.
# Run it on a quiet machine (the load average is printed before and after).
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
build=build
if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then
  build=$1
  shift
fi
bin=$build/bench/formats_bench
if [ ! -x "$bin" ]; then
  echo "run.sh: $bin is missing: cmake --build $build --target formats_bench" >&2
  exit 1
fi
commit=${BENCH_COMMIT:-$(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo unknown)}
if git -C "$here" diff --quiet HEAD 2>/dev/null; then dirty=""; else dirty=" (with uncommitted changes in the tree)"; fi
[ -n "${BENCH_COMMIT:-}" ] && dirty=""
echo "formats_bench, $(date -u '+%Y-%m-%d %H:%M') UTC, commit $commit$dirty"
echo "$(nproc) cores, $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1); load average before: $(cut -d ' ' -f 1-3 /proc/loadavg)"
echo "GLIBC_TUNABLES=${GLIBC_TUNABLES:-} (empty: glibc's defaults); arguments: $*"
echo
"$bin" "$@"
echo
echo "load average after: $(cut -d ' ' -f 1-3 /proc/loadavg)"
