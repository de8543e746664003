#!/bin/sh
# generated/ holds what binschema-gen makes of every schema in schemas/ and
# tests/schemas/ (C++, Markdown, JSON Schema and Kaitai .ksy), checked in so that it can be read and
# reviewed without a build. This script regenerates everything into a scratch
# folder and fails if generated/ differs; with --update it refreshes generated/.
#   BINSCHEMA_GEN=path/to/binschema-gen sh tests/check_generated.sh [--update]
set -eu
gen=${BINSCHEMA_GEN:?set BINSCHEMA_GEN to the binschema-gen binary}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for schema in schemas/*.yaml tests/schemas/*.yaml; do
  "$gen" "$schema" --out "$tmp" --emit all
done
if [ "${1:-}" = "--update" ]; then
  find generated -type f ! -name README.md -delete
  cp "$tmp"/* generated/
  echo "generated/ updated"
  exit 0
fi
if ! diff -r -x README.md "$tmp" generated >"$tmp.diff" 2>&1; then
  cat "$tmp.diff" | head -40
  rm -f "$tmp.diff"
  echo "FAIL: generated/ is out of date: run 'cmake --build build --target update-generated' and commit it"
  exit 1
fi
rm -f "$tmp.diff"
echo "generated/ is current ($(ls "$tmp" | wc -l) files)"
