#!/bin/bash
# Wine smoke tests of the Windows build (`make windows-check`): the pmukit verbs run
# to completion, say what works and why the rest does not, and pass exit codes through.
#   BUILD=build-windows bash tests/windows/smoke.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build-windows}
WINE=${WINE:-/usr/lib/wine/wine64}
WINESERVER=${WINESERVER:-/usr/lib/wine/wineserver}
export WINEPREFIX=${WINEPREFIX:-$PWD/$BUILD/wineprefix}
export WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml=" DISPLAY=
OUT=$BUILD/smoke
rm -rf "$WINEPREFIX"
mkdir -p "$OUT"
fails=0
passes=0

for f in pmukit.exe pmukit.dll exit_with.exe count_self.exe count_regions.exe; do
	[ -f "$BUILD/$f" ] || { echo "smoke: $BUILD/$f missing: run 'make windows' first" >&2; exit 1; }
done
command -v "$WINE" >/dev/null || { echo "smoke: $WINE missing (apt-get install wine64)" >&2; exit 1; }

pass() { echo "PASS $1"; passes=$((passes + 1)); }
fail() { echo "FAIL $1: $2"; fails=$((fails + 1)); }

# wine NAME.exe ARGS...: runs a program of the build; stdout to $OUT/NAME.out.
run() {
	local name=$1; shift
	"$WINE" "$BUILD/$@" >"$OUT/$name.out" 2>"$OUT/$name.err"
}

t0=$(date +%s.%N)
"$WINESERVER" -p 2>/dev/null
# Creating the prefix (~8 s) happens on the first run; time it separately.
"$WINE" "$BUILD/exit_with.exe" 0 0 >/dev/null 2>&1
t1=$(date +%s.%N)

# The DLL exports exactly the public pmu_* API, as the .so (tests/integration/
# test_exports.sh): the names src/libpmukit.map lists and the public headers declare,
# both ways, so a pmukit.dll user links against every declared function.
x86_64-w64-mingw32-objdump -p "$BUILD/pmukit.dll" |
	awk '/\[Ordinal\/Name Pointer\] Table/ {on = 1; next} on && NF == 0 {on = 0} on {print $NF}' |
	sort -u >"$OUT/exports.txt"
grep -E '^[[:space:]]+pmu_[a-z0-9_]+;' src/libpmukit.map | tr -d ' \t;' | sort -u >"$OUT/map.txt"
cat include/pmukit/*.h "$BUILD"/include/pmukit/*.h | tr '\n' ' ' |
	grep -oE '[a-z_0-9 \*]+\bpmu_[a-z0-9_]+\(' | grep -oE 'pmu_[a-z0-9_]+\($' | tr -d '(' |
	sort -u >"$OUT/declared.txt"
dll_diff() {  # dll_diff WHAT FILE: names in FILE not exported, exported not in FILE
	local missing extra
	missing=$(comm -23 "$2" "$OUT/exports.txt" | tr '\n' ' ')
	extra=$(comm -13 "$2" "$OUT/exports.txt" | tr '\n' ' ')
	if [ -n "$missing$extra" ]; then
		fail "dll-exports-$1" "not exported: ${missing:-none}; exported, not $1: ${extra:-none}"
	else
		pass "dll-exports-$1 ($(wc -l <"$OUT/exports.txt") exports == the $1 pmu_* names)"
	fi
}
if ! grep -qx pmu_version "$OUT/declared.txt" || [ "$(wc -l <"$OUT/map.txt")" -lt 50 ]; then
	fail dll-exports "could not read the declared names or the map (see $OUT/declared.txt, map.txt)"
else
	dll_diff declared "$OUT/declared.txt"
	dll_diff map "$OUT/map.txt"
fi

if run caps pmukit.exe caps && grep -q 'precise data-source sampling *unavailable' "$OUT/caps.out" &&
	grep -q 'no public precise' "$OUT/caps.out" && grep -q "Wine" "$OUT/caps.out"; then
	pass caps
else
	fail caps "exit $? or the matrix lacks the concern-3 reason/Wine facts (see $OUT/caps.*)"
fi
if run caps_json pmukit.exe caps --json && python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
st = {c["id"]: c["status"] for c in d["concerns"]}
assert d["host"]["os"] == "Windows", d["host"]
assert len(st) == 8 and st[3] == "unavailable" and st[6] != "unavailable", st
assert all(c["reason"] for c in d["concerns"]), "a concern without a reason"
' "$OUT/caps_json.out"; then
	pass caps-json
else
	fail caps-json "see $OUT/caps_json.*"
fi

if run topo pmukit.exe topo --json && python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
n = int(sys.argv[2])
assert d["source"] == "glpi", d["source"]
assert len(d["cpus"]) == n, "%d CPUs, host has %d" % (len(d["cpus"]), n)
assert d["online_cpus"] == n and d["packages"] and d["cores"], d
assert any(c["level"] >= 2 for c in d["caches"]), "no L2/L3 cache"
' "$OUT/topo.out" "$(nproc)"; then
	pass "topo ($(nproc) CPUs, as the host)"
else
	fail topo "see $OUT/topo.*"
fi

if run list pmukit.exe list && grep -q '^  task-clock' "$OUT/list.out" &&
	grep -q 'InstructionRetired' "$OUT/list.out" &&
	grep -q 'cycles.*not usable here: Wine' "$OUT/list.out"; then
	pass list
else
	fail list "see $OUT/list.*"
fi

# Under Wine the child's CPU time reads as zero, so pmukit must say so, show the row
# as not supported and still run the command; on Windows the counts must be real.
# (The counts are looked for on stdout and stderr: perf prints them on stderr.)
run stat pmukit.exe stat -j -- "$BUILD/exit_with.exe" 3 300
rc=$?
if [ $rc -eq 3 ] && grep -q "cannot count 'task-clock' here: Wine .* zero CPU time" "$OUT/stat.err" &&
	cat "$OUT/stat.out" "$OUT/stat.err" | grep -q '"supported": false'; then
	pass "stat (exit 3 passed through; task-clock of another process reported unavailable under Wine)"
elif [ $rc -eq 3 ] && python3 -c '
import json, sys
# the counts are on stderr, as perf writes them, after any "pmukit stat:" sentences
d = json.loads("".join(l for l in open(sys.argv[1]) if not l.startswith("pmukit stat:")))
c = {x["event"]: x for x in d["counters"]}
assert d["exit_status"] == 3, d["exit_status"]
tc = c["task-clock"]["raw_value"]
assert 150e6 < tc < 5e9, "task-clock %d ns for a 300 ms spin" % tc
' "$OUT/stat.err"; then
	pass "stat (exit 3 passed through, task-clock of the child counted)"
else
	fail stat "exit $rc (want 3), or neither counts nor the reason; see $OUT/stat.*"
fi

run stat_cmd pmukit.exe stat -- cmd.exe /c exit 3
rc=$?
if [ $rc -eq 3 ] && grep -q 'task-clock' "$OUT/stat_cmd.err"; then
	pass "stat -- cmd.exe /c exit 3"
else
	fail stat-cmd "exit $rc (want 3); see $OUT/stat_cmd.*"
fi

# As perf stat, the counts go to stderr: the command's stdout is its own.
run stat_echo pmukit.exe stat -- cmd.exe /c echo hi
rc=$?
if [ $rc -eq 0 ] && [ "$(tr -d '\r' <"$OUT/stat_echo.out")" = hi ]; then
	pass "stat -- cmd.exe /c echo hi (stdout is the command's alone)"
else
	fail stat-echo "exit $rc, stdout not just 'hi'; see $OUT/stat_echo.*"
fi
run stat_per_thread pmukit.exe stat --per-thread -p 4
rc=$?
if [ $rc -eq 2 ] && grep -q 'per-thread is not available on Windows' "$OUT/stat_per_thread.err"; then
	pass "stat --per-thread refused on Windows with the reason"
else
	fail stat-per-thread "exit $rc (want 2); see $OUT/stat_per_thread.*"
fi

# An NTSTATUS exit code (negative as an int) is a failure and passes through; Wine
# gives its low byte (0xC0000005 -> 5) to the Unix parent.
run stat_ntstatus pmukit.exe stat -- "$BUILD/exit_with.exe" 0xC0000005 10
rc=$?
if [ $rc -eq 5 ]; then
	pass "stat: exit code 0xC0000005 passed through"
else
	fail stat-ntstatus "exit $rc (want 5, the low byte of 0xC0000005); see $OUT/stat_ntstatus.*"
fi

run stat_missing pmukit.exe stat -- no_such_program_pmukit.exe
rc=$?
if [ $rc -eq 127 ] && grep -q 'no such program' "$OUT/stat_missing.err"; then
	pass "stat of a missing program (127)"
else
	fail stat-missing "exit $rc (want 127); see $OUT/stat_missing.*"
fi

if run count_self count_self.exe && grep -q '^task-clock: [0-9]' "$OUT/count_self.out" &&
	grep -q '^cycles: not counted here: .*Wine' "$OUT/count_self.out" &&
	grep -q '^opts: ok' "$OUT/count_self.out"; then
	pass "count_self (task-clock counted through pmukit.dll; cycles reported unavailable; opts by sz)"
else
	fail count_self "see $OUT/count_self.*"
fi

# Further checks live in tests/windows/smoke_<area>.sh, sourced here: they use run,
# pass and fail, and the prefix and server started above.
for part in tests/windows/smoke_*.sh; do
	[ -f "$part" ] && . "$part"
done

"$WINESERVER" -k 2>/dev/null
t2=$(date +%s.%N)
awk -v a="$t0" -v b="$t1" -v c="$t2" \
	'BEGIN { printf "smoke: Wine start %.1f s, tests %.1f s\n", b - a, c - b }'
echo "windows: $passes passed, $fails failed"
[ $fails -eq 0 ]
