#!/bin/sh
# The Kaitai test: every .ksy that binschema-gen exports must compile with
# Kaitai's compiler (npm kaitai-struct-compiler 0.11) to JavaScript, and
# Kaitai's runtime (npm kaitai-struct) under node must read the same values
# from a file as `binschema decode --format json --numbers` does (check.js compares them
# key by key). Files: the samples in ../shared/samples (BFEVFL/BFEVTM in
# bfevfl/, SARC of both byte orders in sarc/), and files the project's writer makes: the examples (examples/*.yaml,
# encoded by the CLI) and, for the test-only formats tiny and feats, the
# documents beside this script (encoded by kaitai_fixture).
#
#   run.sh GEN CLI FIXTURE NODE_MODULES SOURCE_DIR SHARED_DIR WORK
#
# Exits 77 (ctest: skipped), saying why, when node or the npm packages are
# missing; `sh scripts/deps.sh` installs them (into BUILD/kaitai-tools).
set -eu
gen=$1 cli=$2 fixture=$3 modules=$4 src=$5 shared=$6 work=$7

node=$(command -v node || true)
if [ -z "$node" ]; then
  echo "SKIPPED: node is not installed (sh scripts/deps.sh installs nodejs and the Kaitai packages)"
  exit 77
fi
for p in kaitai-struct-compiler kaitai-struct js-yaml; do
  if [ ! -e "$modules/$p/package.json" ]; then
    echo "SKIPPED: npm package $p is not in $modules (sh scripts/deps.sh installs it there)"
    exit 77
  fi
done
export NODE_PATH="$modules"
mkdir -p "$work"
status=0

# check.js reads the schema and the JSON Schema binschema-gen emits (the text
# form's maps, unwrapped types, bare unions and defaults). It can skip a JSON
# key the .ksy is known not to match (--skip KEY:REASON, counted and
# reported): SARC's `alignment`.
check() {  # check FORMAT KSY OUTDIR FILE JSON [FILE JSON]...
  fmt=$1
  shift
  echo "== $fmt"
  if ! node "$src/tests/kaitai/check.js" "$@"; then
    status=1
  fi
}

for schema in "$src"/tests/schemas/tiny.yaml "$src"/schemas/evnt.yaml "$src"/schemas/baev.yaml \
              "$src"/schemas/al.yaml "$src"/schemas/bfevfl.yaml "$src"/schemas/asb.yaml "$src"/schemas/sarc.yaml \
              "$src"/tests/schemas/feats.yaml; do
  fmt=$(basename "$schema" .yaml)
  "$gen" "$schema" --out "$work/ksy" --emit ksy,jsonschema
  # What the .ksy says it cannot describe (its fields' "Not described for Kaitai").
  grep -o 'Not described for Kaitai: [^"]*' "$work/ksy/$fmt.ksy" | sed "s/^/NOTE: $fmt: /" || true
  set --
  case $fmt in
    tiny | feats)
      "$fixture" "$fmt" "$src/tests/kaitai/$fmt.yaml" "$work/$fmt.bin" "$work/$fmt.json"
      set -- "$work/$fmt.bin" "$work/$fmt.json"
      ;;
    *)
      for ex in "$src"/examples/"$fmt"-*.yaml; do
        [ -e "$ex" ] || continue
        name=$(basename "$ex" .yaml)
        "$cli" encode "$ex" -o "$work/$name.bin"
        "$cli" decode "$work/$name.bin" --as "$fmt" --format json --numbers -o "$work/$name.json"
        set -- "$@" "$work/$name.bin" "$work/$name.json"
      done
      ;;
  esac
  case $fmt in
    bfevfl) samples="$shared/samples/bfevfl" patterns="*.bfevfl *.bfevtm" ;;
    sarc) samples="$shared/samples/sarc" patterns="*.sarc" ;;
    *) samples="" patterns="" ;;
  esac
  if [ -n "$samples" ]; then
    if [ -d "$samples" ]; then
      for p in $patterns; do
        for f in "$samples"/$p; do
          [ -e "$f" ] || continue
          name=$(basename "$f")
          "$cli" decode "$f" --as "$fmt" --format json --numbers -o "$work/$name.json"
          set -- "$@" "$f" "$work/$name.json"
        done
      done
    else
      echo "NOTE: $samples is missing: the $fmt samples were not checked"
    fi
  fi
  if [ $# -eq 0 ]; then
    echo "FAIL: no file to check for $fmt"
    status=1
    continue
  fi
  case $fmt in
    # A data slice's alignment is not stored: the reader infers it from where the file lies.
    sarc) check "$fmt" --schema "$schema" --json-schema "$work/ksy/$fmt.schema.json" --skip "alignment:inferred by binschema's reader from the file's offset, not stored" "$work/ksy/$fmt.ksy" "$work/js-$fmt" "$@" ;;
    *) check "$fmt" --schema "$schema" --json-schema "$work/ksy/$fmt.schema.json" "$work/ksy/$fmt.ksy" "$work/js-$fmt" "$@" ;;
  esac
done
exit $status
