#!/bin/sh
# Round-trips every example document through the CLI and publishes the
# generated format documentation.
#
#   sh examples/run.sh [BUILD_DIR]      (BUILD_DIR defaults to "build")
#
# For each examples/*.yaml: encode it to BUILD/examples/NAME.EXT (EXT being
# the extension of the format its `format:` key names), decode
# that back to YAML and to JSON, encode both again and require the very same
# bytes. Byte identity is the point: a text form that loses or reorders
# anything would show up here before it shows up in a game.
# Exits non-zero at the first failure.

set -eu

build=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
cli=$build/binschema
out=$build/examples

fail() {
  echo "run.sh: FAILED: $*" >&2
  exit 1
}

size() {
  # wc pads its number with blanks on some systems.
  wc -c <"$1" | tr -d ' '
}

[ -x "$cli" ] || fail "$cli not found: build first (cmake --build $build), or pass the build directory"
mkdir -p "$out"

count=0
for src in "$here"/*.yaml; do
  [ -e "$src" ] || fail "no example documents in $here"
  name=$(basename "$src" .yaml)
  # The binary gets its format's own extension, as listed by `formats`.
  format=$(sed -n 's/^format:[[:space:]]*\([A-Za-z0-9_]*\).*/\1/p' "$src" | head -n 1)
  [ -n "$format" ] || fail "$src has no top-level 'format:' line"
  ext=$("$cli" formats | awk -F '\t' -v f="$format" '$1 == f { split($4, e, " "); print e[1] }')
  [ -n "$ext" ] || fail "$src: format '$format' is not built into $cli"
  bin=$out/$name$ext
  echo "== $name"

  "$cli" encode "$src" -o "$bin" || fail "encode $src"
  echo "encode  $name.yaml ($(size "$src") bytes) -> $bin ($(size "$bin") bytes)"

  "$cli" decode "$bin" -o "$out/$name.yaml" || fail "decode $bin to YAML"
  echo "decode  $bin -> $out/$name.yaml ($(size "$out/$name.yaml") bytes)"
  "$cli" decode "$bin" --format json -o "$out/$name.json" || fail "decode $bin to JSON"
  echo "decode  $bin -> $out/$name.json ($(size "$out/$name.json") bytes)"

  for kind in yaml json; do
    again=$out/$name.from-$kind$ext
    "$cli" encode "$out/$name.$kind" -o "$again" || fail "re-encode $out/$name.$kind"
    cmp "$bin" "$again" >/dev/null || fail "$again differs from $bin"
    echo "encode  $out/$name.$kind -> $again ($(size "$again") bytes, identical)"
  done

  # Captured first: in a pipeline, a failing info would hide behind sed's status.
  summary=$("$cli" info "$bin") || fail "info $bin"
  echo "info    $bin:"
  echo "$summary" | sed 's/^/  /'
  count=$((count + 1))
done

# Only the formats the CLI ships: the test suite generates fixture schemas
# (tests/schemas/) into the same directory, and those are not documentation.
docs=$build/docs
mkdir -p "$docs"
copied=
for format in $("$cli" formats | cut -f 1); do
  md=$build/generated/$format.md
  [ -e "$md" ] || fail "no generated documentation $md"
  cp "$md" "$docs/" || fail "copy $md"
  copied="$copied $docs/$format.md"
done
[ -n "$copied" ] || fail "$cli lists no formats"
echo "== $count examples round-tripped; format documentation in $docs/:"
for md in $copied; do echo "  $md"; done
