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

# 4. every verb parses its options with getopt_long and says what is wrong in the
# same words: the verb named, exit status 2.
K=$tmp/x.etl	# the options are judged before the file is opened
bad_opt() {	# bad_opt 'EXPECTED FIRST LINE' VERB ARGS...
	local want=$1; shift
	"$PMUKIT" "$@" >/dev/null 2>"$tmp/opt.err"
	local rc=$?
	check "pmukit $*: exit 2, '$want' ($(head -1 "$tmp/opt.err"))" \
		bash -c '[ "$1" -eq 2 ] && [ "$(head -1 "$2")" = "$3" ]' _ "$rc" "$tmp/opt.err" "$want"
}
for verb in stat list caps topo etl report cpustat record addr2line; do
	bad_opt "pmukit $verb: unknown option '--bogus'" $verb --bogus
	[ $verb = record ] || bad_opt "pmukit $verb: option '--json' takes no argument" $verb --json=1
done
bad_opt "pmukit record: option '--lbr' takes no argument" record --lbr=1
for verb in stat list caps topo etl report cpustat addr2line; do
	bad_opt "pmukit $verb: unknown option '-Z'" $verb -Z
done
bad_opt "pmukit record: unknown option '-Z'" record -o "$tmp/r.etl" -Z -- true
# a word where a verb takes none
bad_opt "pmukit caps: unexpected argument 'x'" caps x
bad_opt "pmukit topo: unexpected argument 'x'" topo --json x
bad_opt "pmukit cpustat: unexpected argument '1'" cpustat 1 2 3
# stdout that cannot be written: said, exit 1 (not a silent 0)
for args in "caps" "topo" "cpustat -i 0.01"; do
	"$PMUKIT" $args >/dev/full 2>"$tmp/full.err"
	check_eq "pmukit $args >/dev/full exits 1" 1 $?
	check "pmukit $args >/dev/full says why ($(head -1 "$tmp/full.err"))" \
		grep -q "pmukit ${args%% *}: writing .*failed" "$tmp/full.err"
done
# a bad letter inside a cluster after a long option with a value is that letter's
# fault, not the long option's
bad_opt "pmukit stat: unknown option '-Z'" stat --event=cycles -Zq true
bad_opt "pmukit report: unknown option '-Z'" report --sort=sym -Zq "$K"
bad_opt "pmukit stat: option '-e' needs an argument" stat -e
bad_opt "pmukit record: option '-e' needs an argument" record -o "$tmp/r.etl" -e
bad_opt "pmukit addr2line: option '-e' needs an argument" addr2line -e
bad_opt "pmukit cpustat: option '-i' needs an argument" cpustat -i
bad_opt "pmukit report: option '--limit' needs an argument" report "$K" --limit
bad_opt "pmukit etl: option '--opcode' needs an argument" etl dump "$K" --opcode
bad_opt "pmukit list: option '--windows-model' needs an argument" list --windows-model
bad_opt "pmukit list: option '--win' is ambiguous; it could be --windows-profile-source --windows-model" list --win x
bad_opt "pmukit addr2line: option '--b' is ambiguous; it could be --base --build-id" addr2line -e "$PMUKIT" --b 0 1
# ... and a unique prefix is the option, as getopt_long takes it
check "pmukit caps --js: JSON" bash -c '"$1" caps --js | grep -q "^{"' _ "$PMUKIT"
finish
