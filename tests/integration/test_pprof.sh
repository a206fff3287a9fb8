#!/bin/bash
# The pprof output of a report (gzip'd profile.proto), read by the real pprof:
# `go tool pprof` -top gives the same functions, samples and totals as
# pmukit's own text report of the same recording, -traces the same stacks as
# its collapsed output, -raw mappings that are the report's modules (with their
# build-ids) holding every location. Made from real .etl recordings through
# the record source, from 100,000 synthetic stacks with C++ names, and from a
# live recording of the helper itself with names from the symbolizer.
set -u
. "$(dirname "$0")/lib.sh"

HELPER=${BUILDDIR:?}/tests/report_write
CHECK="python3 $(dirname "$0")/pprof_check.py"
F=../shared/fixtures/etl/perfview-net452-x64-compressed.etl
[ -r "$F" ] || skip "the .etl fixtures (../shared/fixtures/etl) are absent"
command -v go >/dev/null || skip "no go toolchain for go tool pprof (Debian package golang-go)"
[ -x "$HELPER" ] || fail "no helper $HELPER"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# go wants a writable cache; keep it out of the user's home
export GOCACHE=$tmp/gocache GOPATH=$tmp/gopath

mkdir -p "$tmp/a" "$tmp/b" "$tmp/x86" "$tmp/syn"
"$HELPER" "$F" "$tmp/a" || fail "report_write $F"
p=$tmp/a/profile.pb.gz
check_eq "gzip: magic" 1f8b "$(head -c 2 "$p" | od -An -tx1 | tr -d ' ')"
check "gzip: the stream tests good (CRC, length)" gzip -t "$p"
"$HELPER" "$F" "$tmp/b" && cmp -s "$p" "$tmp/b/profile.pb.gz"
check "pprof: the same report gives the same bytes" test $? -eq 0
check "go tool pprof: x64 .etl: top, totals, stacks, mappings" $CHECK "$tmp/a"
"$HELPER" ../shared/fixtures/etl/perfview-net452-x86-compressed.etl "$tmp/x86" ||
	fail "report_write x86 .etl"
check "go tool pprof: x86 .etl: top, totals, stacks, mappings" $CHECK "$tmp/x86"
out=$(go tool pprof -raw -symbolize=none "$p" 2>&1 | head -2 | tr '\n' ' ')
check_eq "period type and period of the ETW timer" "PeriodType: Timer nanoseconds Period: 1000000 " "$out"

"$HELPER" --synthetic 100000 "$tmp/syn" || fail "report_write --synthetic"
check "go tool pprof: 100000 stacks, C++ names" $CHECK "$tmp/syn"
check "synthetic: names kept whole" sh -c "go tool pprof -top -symbolize=none '$tmp/syn/profile.pb.gz' 2>/dev/null |
	grep -qF 'ns::Box<std::pair<int, char>>::operator&&(\"'"

# this process sampled: real ELF modules, names from the live symbolizer
mkdir -p "$tmp/live"
"$HELPER" --live 1500 "$tmp/live"
case $? in
0) check "go tool pprof: live, symbolized: top, stacks, mappings, hot_a above hot_b" \
	$CHECK "$tmp/live" --live ;;
77) echo "# live part not run: this host cannot sample (said above)" ;;
*) fail "report_write --live" ;;
esac

# The command itself on real perf.data, recorded by pmukit record -g and by
# perf record -g: what `pmukit report --format pprof` writes, read by go tool
# pprof, against the command's own table, JSON and folded stacks.
cli() {	# LABEL PERF.DATA
	local d=$tmp/cli-$1
	mkdir -p "$d"
	"$PMUKIT" report -i "$2" --format pprof -o "$d/profile.pb.gz" 2>"$d/err" &&
	"$PMUKIT" report -i "$2" --format pprof >"$d/stdout.pb.gz" 2>>"$d/err" &&
	"$PMUKIT" report -i "$2" --format collapsed >"$d/collapsed.txt" 2>>"$d/err" &&
	"$PMUKIT" report -i "$2" --format table --limit 0 >"$d/text.txt" 2>>"$d/err" &&
	"$PMUKIT" report -i "$2" --format table --json --limit 0 >"$d/report.json" 2>>"$d/err" ||
		{ fail "$1: pmukit report: $(head -1 "$d/err")"; return; }
	check "$1: -o and standard output give the same bytes" cmp -s "$d/profile.pb.gz" "$d/stdout.pb.gz"
	check "$1: go tool pprof of the command's pprof: top, totals, stacks, mappings" $CHECK "$d"
	go tool pprof -top "$d/profile.pb.gz" >"$d/top" 2>&1
	check "$1: pprof -top: the program is the main binary (File: w)" grep -qx 'File: w' "$d/top"
	check "$1: pprof -top: hot first, then warm" \
		bash -c "grep -E ' (hot|warm)\$' '$d/top' | head -2 | awk '{print \$NF}' | tr '\n' ' ' | grep -qx 'hot warm '"
}
if command -v cc >/dev/null; then
	hot_warm_recordings "$tmp" cli
	# a process that renames itself (prctl): its executable is still the main binary
	printf '%s\n' '#include <sys/prctl.h>' 'static volatile double x;' \
		'int main(void) { prctl(PR_SET_NAME, "other<&>name"); for (long i = 0; i < 300000000; i++) x += i * 0.5; return x < 0; }' >"$tmp/ren.c"
	cc -O1 -o "$tmp/renamed" "$tmp/ren.c" &&
	"$PMUKIT" record -e cpu-clock -F 999 -g -o "$tmp/ren.data" -- "$tmp/renamed" >/dev/null 2>&1 &&
	"$PMUKIT" report -i "$tmp/ren.data" --format pprof -o "$tmp/ren.pb.gz" &&
	go tool pprof -top "$tmp/ren.pb.gz" >"$tmp/ren.top" 2>&1
	check "a renamed process: pprof's main binary is its executable (File: renamed)" \
		grep -qx 'File: renamed' "$tmp/ren.top"
	# a hot loop in a call inlined (always_inline, DWARF of -O2 -g): the
	# inlined call is a Line of its address's Location, named as the
	# function, not a Location of its own at 0x0 named module!function; the
	# text table counts the samples for the function holding the address
	# (pprof -noinlines), the collapsed stacks end with the inlined call
	# (pprof with inlines)
	printf '%s\n' 'static volatile double x;' \
		'static inline __attribute__((always_inline)) void step(long i) { x += i * 0.5; x *= 1.0000001; }' \
		'__attribute__((noinline)) void outer(void) { for (long i = 0; i < 150000000; i++) step(i); }' \
		'int main(void) { outer(); return x < 0; }' >"$tmp/inl.c"
	mkdir -p "$tmp/cli-inl"
	if cc -O2 -g -fno-omit-frame-pointer -o "$tmp/inl" "$tmp/inl.c" &&
	   "$PMUKIT" record -e cpu-clock -F 999 -g -o "$tmp/inl.data" -- "$tmp/inl" >/dev/null 2>&1; then
		d=$tmp/cli-inl
		"$PMUKIT" report -i "$tmp/inl.data" --format pprof -o "$d/profile.pb.gz" &&
		"$PMUKIT" report -i "$tmp/inl.data" --format collapsed >"$d/collapsed.txt" &&
		"$PMUKIT" report -i "$tmp/inl.data" --format table --limit 0 >"$d/text.txt" &&
		"$PMUKIT" report -i "$tmp/inl.data" --format table --json --limit 0 >"$d/report.json" ||
			fail "inlined: pmukit report"
		check "inlined: the collapsed stacks end in the inlined call (outer;step)" \
			grep -q 'outer;inl!step [0-9]*$' "$d/collapsed.txt"
		check "inlined: go tool pprof: top (-noinlines and with inlines), stacks, mappings" \
			$CHECK "$d"
		go tool pprof -raw -symbolize=none "$d/profile.pb.gz" >"$d/raw" 2>&1
		check "inlined: a Location at an address of outer with the Lines step, outer" \
			grep -Pzq '\n +[0-9]+: 0x[0-9a-f]*[1-9a-f][0-9a-f]* M=[0-9]+ step [^\n]*\n +outer ' "$d/raw"
		check "inlined: step is no Location of its own at 0x0" \
			sh -c "! grep -qE '^ +[0-9]+: 0x0 .*step' '$d/raw'"
	else
		fail "inlined: cc -O2 -g or pmukit record -g"
	fi
	# perf record -a adds a dummy event without samples: the sample type is
	# still the clock, in nanoseconds
	if command -v perf >/dev/null &&
	   perf record -q -N -e cpu-clock -F 999 -a -g -o "$tmp/a.data" -- "$tmp/w" >/dev/null 2>&1; then
		"$PMUKIT" report -i "$tmp/a.data" --format pprof -o "$tmp/a.pb.gz"
		go tool pprof -top "$tmp/a.pb.gz" >"$tmp/a.top" 2>&1
		check "perf record -a: pprof's Type is the event with samples (cpu-clock)" \
			grep -qx 'Type: cpu-clock' "$tmp/a.top"
		check "perf record -a: ... in nanoseconds (pprof shows ms)" \
			grep -qE '^Showing nodes accounting for [0-9.]+m?s, ' "$tmp/a.top"
	fi
else
	echo "# no C compiler: the command's pprof of a recording made here is not checked"
fi

# losses: the comment says the lost samples and the LOST records apart, as the
# text header does (a file with both counts each loss in each)
if "$PMUKIT" record -e page-faults -c 1 -m 1 -o "$tmp/lost.data" -- \
	"$WORKLOAD_DIR/touch_pages" 100000 >/dev/null 2>&1; then
	ls=$("$PMUKIT" report -i "$tmp/lost.data" 2>/dev/null | sed -n 's/^# Total Lost Samples: //p')
	lr=$("$PMUKIT" report -i "$tmp/lost.data" 2>/dev/null | sed -n 's/^# Lost records: \([0-9]*\).*/\1/p')
	"$PMUKIT" report -i "$tmp/lost.data" --format pprof -o "$tmp/lost.pb.gz" 2>/dev/null
	c=$(go tool pprof -comments "$tmp/lost.pb.gz" 2>/dev/null)
	if [ "${ls:-0}" != 0 ]; then
		check_eq "pprof comment: lost samples and records apart, as the text header" \
			"lost samples: $ls, lost records: $lr" "$(echo "$c" | grep -o '^lost samples: [0-9]*, lost records: [0-9]*')"
	else
		echo "# no sample was lost this time: the pprof loss comment is not exercised"
	fi
else
	fail "pmukit record -m 1 (losses)"
fi

mkdir -p "$tmp/empty"
"$HELPER" --synthetic 0 "$tmp/empty" || fail "report_write --synthetic 0"
check "no samples: pprof reads an empty profile" \
	sh -c "go tool pprof -raw -symbolize=none '$tmp/empty/profile.pb.gz' 2>&1 | grep -q '^Samples:'"

finish
