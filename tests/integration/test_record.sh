#!/bin/bash
# pmukit record's options: -F and -c take a number above 0, parsed strictly
# (before anything is recorded, so this runs on every OS).
set -u
. "$(dirname "$0")/lib.sh"

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for opt in -F -c; do
	for bad in -5 " 5" 5x 0 0x10 99999999999999999999999; do
		"$PMUKIT" record -o "$out/r.etl" $opt "$bad" -- true >/dev/null 2>"$out/err"
		check "record $opt '$bad': usage error naming it" \
			test $? -eq 2 -a -n "$(grep -- "$opt needs a number above 0, not '$bad'" "$out/err")"
	done
	"$PMUKIT" record -o "$out/r.etl" $opt 100 -- true >/dev/null 2>"$out/err"
	check "record $opt 100: accepted (no usage error)" test $? -ne 2
done
finish
