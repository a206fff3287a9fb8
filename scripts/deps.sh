#!/bin/sh
# Installs the Debian packages pmukit needs to build, test and benchmark (Debian 12).
# Idempotent: does nothing when everything is present. Needs root to install.
set -eu

PACKAGES="
  build-essential cmake pkg-config
  libpfm4-dev libhwloc-dev libdw-dev
  libcmocka-dev python3 clang libclang-rt-14-dev gcc-mingw-w64-x86-64
  linux-perf libpapi-dev papi-tools
"

missing=""
for p in $PACKAGES; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing="$missing $p"
  fi
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
  echo "deps.sh: missing Debian packages:$missing" >&2
  echo "deps.sh: run as root, or: sudo apt-get install$missing" >&2
  exit 1
fi
echo "deps.sh: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
