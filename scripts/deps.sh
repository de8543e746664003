#!/bin/sh
# Installs the Debian packages the build needs, only those that are missing.
# Sourced by main.sh and test.sh; needs root (apt-get) only when something is missing.
set -eu
need="cmake make g++ libyaml-cpp-dev libboost-test-dev libcli11-dev libbenchmark-dev libzstd-dev"
# The JSON Schema test's validator (for /usr/bin/python3).
need="$need python3-jsonschema python3-yaml"
# The independent AAMP/BYML readers' tests (tests/independent, ctest independent_readers)
# and the Python module's (tests/python, ctest python_module).
need="$need python3-pytest"
# The Python module (python/): pybind11 and Python's headers.
need="$need pybind11-dev python3-dev"
# The byte map's page test (ctest view_test): headless Chromium, driven by node.
need="$need chromium"
# scripts/fuzz.sh (sanitizer builds and fuzz targets): clang and libFuzzer.
need="$need clang libclang-rt-dev"
missing=""
for p in $need; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
# node and npm for the Kaitai test, unless some other install provides them.
command -v node >/dev/null 2>&1 || missing="$missing nodejs"
command -v npm >/dev/null 2>&1 || missing="$missing npm"
if [ -n "$missing" ]; then
  echo "== installing:$missing"
  if [ "$(id -u)" != 0 ]; then
    echo "binschema: missing packages:$missing (run as root, or install them)" >&2
    exit 2
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  # shellcheck disable=SC2086
  apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi

# The Kaitai test's npm packages (Kaitai's compiler and JavaScript runtime,
# and a YAML reader for the .ksy files), into the build folder, never the
# checkout. A failure here only leaves that test skipped, saying why.
node_dir=${BINSCHEMA_NODE_DIR:-build/kaitai-tools}
node_pkgs="kaitai-struct-compiler@0.11.0 kaitai-struct@0.11.0 js-yaml@4"
for p in kaitai-struct-compiler kaitai-struct js-yaml; do
  if [ ! -e "$node_dir/node_modules/$p/package.json" ]; then
    echo "== npm install into $node_dir: $node_pkgs"
    mkdir -p "$node_dir"
    # shellcheck disable=SC2086
    npm install --prefix "$node_dir" --no-audit --no-fund --loglevel=error $node_pkgs >/dev/null ||
      echo "binschema: npm install failed: the Kaitai test will be skipped" >&2
    break
  fi
done
