#!/bin/sh
# Installs the Debian packages the build needs, only those that are missing.
# Sourced by main.sh and test.sh; needs root (apt-get) only when something is missing.
set -eu
need="cmake make g++ libyaml-cpp-dev libboost-test-dev libcli11-dev libbenchmark-dev libzstd-dev"
missing=""
for p in $need; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
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
