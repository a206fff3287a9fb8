#!/bin/sh
# Installs what the Windows cross build and its Wine smoke tests need (Debian 12):
# the mingw-w64 cross compiler and 64-bit Wine. Idempotent; needs root to install.
set -eu

PACKAGES="cmake gcc-mingw-w64-x86-64 wine64 python3"

missing=""
for p in $PACKAGES; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing="$missing $p"
  fi
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
  echo "deps-windows.sh: missing Debian packages:$missing" >&2
  echo "deps-windows.sh: run as root, or: sudo apt-get install$missing" >&2
  exit 1
fi
echo "deps-windows.sh: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
