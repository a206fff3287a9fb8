#!/bin/sh
# The ABI of libpmukit.so against the committed description abi/libpmukit.abi (abidw and
# abidiff, Debian package abigail-tools; needs a build with debug info, as make builds).
#   sh scripts/abi.sh dump LIB OUT       write LIB's ABI (public headers' types only)
#   sh scripts/abi.sh check LIB [ABI]    exit 1 with abidiff's report when LIB differs
#   sh scripts/abi.sh update LIB [ABI]   rewrite ABI from LIB (an intended change)
# The library's build dir holds the generated pmukit/version.h: its include/ is read too.
set -eu
SRC=$(cd "$(dirname "$0")/.." && pwd)
mode=${1:?usage: abi.sh dump|check|update LIB [ABI]}
lib=${2:?usage: abi.sh dump|check|update LIB [ABI]}
abi=${3:-$SRC/abi/libpmukit.abi}
command -v abidw >/dev/null || { echo "abi.sh: abidw missing: apt-get install abigail-tools (make deps)" >&2; exit 2; }

# Stable output: no paths, no source locations, content-hashed type ids.
dump() {
	abidw --no-corpus-path --no-comp-dir-path --no-show-locs --type-id-style hash \
		--no-elf-needed --drop-private-types --headers-dir "$SRC/include/pmukit" \
		--headers-dir "$(dirname "$1")/include/pmukit" --out-file "$2" "$1"
}

case "$mode" in
dump) dump "$lib" "$abi" ;;
update)
	dump "$lib" "$abi"
	echo "abi.sh: wrote $abi from $lib" ;;
check)
	[ -f "$abi" ] || { echo "abi.sh: no $abi: make abi-update writes it" >&2; exit 2; }
	tmp=$(mktemp); trap 'rm -f "$tmp" "$tmp.report"' EXIT
	dump "$lib" "$tmp"
	rc=0
	abidiff "$abi" "$tmp" >"$tmp.report" 2>&1 || rc=$?
	if [ "$rc" -ne 0 ]; then
		cat "$tmp.report"
		echo "abi.sh: $lib differs from $abi (abidiff status $rc)." >&2
		echo "abi.sh: if the change is intended, run 'make abi-update' and commit $abi" >&2
		echo "abi.sh: (and add new functions to a new node of src/libpmukit.map)." >&2
		exit 1
	fi
	echo "abi.sh: $lib matches $abi" ;;
*) echo "abi.sh: unknown mode '$mode' (dump, check, update)" >&2; exit 2 ;;
esac
