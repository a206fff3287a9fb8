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

# a version that cannot be written is an error, not a silent 0
"$PMUKIT" -v >/dev/full 2>"$tmp/full.err"
check_eq "pmukit -v >/dev/full exits 1" 1 $?
check "... and says why ($(cat "$tmp/full.err"))" \
	grep -q "^pmukit: writing the version failed: No space left on device" "$tmp/full.err"

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

# 3. events are printed as typed, as perf prints them (counts read through -o only)
spec='cs,cpu-clock:u,faults:ku,migrations'
"$PMUKIT" stat -x, -o "$tmp/stat.csv" -e "$spec" -- true 2>"$tmp/stat.err"
rc=$?
check_eq "pmukit stat -e $spec exits 0 ($(head -c 200 "$tmp/stat.err"))" 0 "$rc"
ours=$(awk -F, 'NF > 3 {print $3}' "$tmp/stat.csv" | paste -sd' ')
check_eq "stat prints the names as typed" "cs cpu-clock:u faults:ku migrations" "$ours"
check "the clock typed with a modifier still gets its metric (CPUs utilized)" \
	grep -q '^[0-9.]*,msec,cpu-clock:u,.*CPUs utilized' "$tmp/stat.csv"
if command -v perf >/dev/null && perf stat -x, -e "$spec" true >/dev/null 2>&1; then
	theirs=$(perf stat -x, -e "$spec" true 2>&1 >/dev/null | awk -F, 'NF > 3 {print $3}' |
		paste -sd' ')
	check_eq "the same names as perf stat -x, prints" "$theirs" "$ours"
else
	echo "# perf stat cannot count $spec here: the comparison with perf is left out"
fi
finish
