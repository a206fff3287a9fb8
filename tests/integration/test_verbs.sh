#!/bin/bash
# The command line perf users type in their first hour: the version in perf's three
# spellings, a "did you mean" for a mistyped verb, and event names printed as typed.
set -u
. "$(dirname "$0")/lib.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# 1. pmukit -v, --version and version all print "pmukit X.Y.Z" and exit 0
for v in -v --version version; do
	out=$("$PMUKIT" "$v" 2>&1)
	rc=$?
	check_eq "pmukit $v exits 0" 0 "$rc"
	check "pmukit $v prints the version ($out)" grep -Eq '^pmukit [0-9]+\.[0-9]+' <<<"$out"
done

# 2. a mistyped verb names the closest verbs and is a usage error
err=$("$PMUKIT" stta 2>&1 >/dev/null)
rc=$?
check_eq "an unknown verb exits 2" 2 "$rc"
check "'pmukit stta' suggests stat ($(head -1 <<<"$err"))" \
	grep -q "^pmukit: unknown verb 'stta'; did you mean: stat?" <<<"$err"
err=$("$PMUKIT" lsit 2>&1 >/dev/null)
check "'pmukit lsit' suggests list" grep -q "did you mean: list?" <<<"$err"
err=$("$PMUKIT" frobnicate 2>&1 >/dev/null)
check "a word far from every verb gets no suggestion, the verb list instead" \
	bash -c '! grep -q "did you mean" <<<"$1" && grep -q "^  stat " <<<"$1"' _ "$err"
finish
