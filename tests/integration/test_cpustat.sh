#!/bin/bash
# pmukit cpustat against /proc/stat and cpuidle sampled by this script around it:
# every CPU's cumulative times and idle-state counters lie between the script's two
# readings, percentages add up, and a fixture tree (PMUKIT_SYSROOT) comes out exactly.
set -u
. "$(dirname "$0")/lib.sh"
[ -r /proc/stat ] || skip "/proc/stat is not readable here"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
hz=$(getconf CLK_TCK)

idle_snap() {	# cpu state name usage time(us), one line per cpuidle state
	for s in /sys/devices/system/cpu/cpu[0-9]*/cpuidle/state[0-9]*; do
		[ -r "$s/usage" ] || continue
		c=${s#/sys/devices/system/cpu/cpu}
		printf '%s %s %s %s %s\n' "${c%%/*}" "${s##*/state}" "$(cat "$s/usage")" \
			"$(cat "$s/time")" "$(tr ' ' _ <"$s/name")"
	done
}
idle_snap >"$tmp/idle_before"
cat /proc/stat >"$tmp/before"
"$PMUKIT" cpustat -i 0.3 --json >"$tmp/out.json" 2>"$tmp/err"
rc=$?
cat /proc/stat >"$tmp/after"
idle_snap >"$tmp/idle_after"
check_eq "cpustat --json exits 0 ($(head -c 200 "$tmp/err"))" 0 "$rc"
check "cumulative times lie between /proc/stat before and after; percentages add up" py '
import json, sys
d = json.load(open(sys.argv[1]))
hz = int(sys.argv[4])
kinds = ["user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal"]
def stat(path):
    out = {}
    for line in open(path):
        f = line.split()
        if f[0].startswith("cpu") and f[0] != "cpu":
            out[int(f[0][3:])] = [int(x) * 10**9 // hz for x in f[1:9]]
    return out
a, b = stat(sys.argv[2]), stat(sys.argv[3])
assert d["source"] == "/proc/stat", d["source"]
assert 0.25 < d["interval_s"] < 5, d["interval_s"]
assert [c["cpu"] for c in d["cpus"]] == sorted(b), ([c["cpu"] for c in d["cpus"]], sorted(b))
tick = 10**9 // hz
for c in d["cpus"]:
    for k, name in enumerate(kinds):
        v = c["ns"][name]
        assert a[c["cpu"]][k] - tick <= v <= b[c["cpu"]][k] + tick, (c["cpu"], name, a[c["cpu"]][k], v, b[c["cpu"]][k])
    s = sum(c["percent"].values())
    assert c["interval_ns"] == 0 or abs(s - 100) < 0.01, (c["cpu"], s)
    busy = 100 - c["percent"]["idle"] - c["percent"]["iowait"]
    assert c["interval_ns"] == 0 or abs(c["busy_percent"] - max(busy, 0)) < 0.01, c
    # 0.3 s of wall time is about 0.3 s of CPU time per CPU (ticks are coarse).
    assert c["interval_ns"] <= 5 * 10**9, c["interval_ns"]
t = d["total"]
for name in kinds:
    assert t["ns"][name] == sum(c["ns"][name] for c in d["cpus"]), name
assert abs(sum(t["percent"].values()) - 100) < 0.01 or t["interval_ns"] == 0
' "$tmp/out.json" "$tmp/before" "$tmp/after" "$hz"

if [ -s "$tmp/idle_after" ]; then
	check "idle states: names and counters between cpuidle before and after, residency 0-100 %" py '
import json, sys
d = json.load(open(sys.argv[1]))
def snap(path):
    out = {}
    for line in open(path):
        c, k, usage, us, name = line.split()
        out.setdefault(int(c), {})[int(k)] = (int(usage), int(us) * 1000, name.replace("_", " "))
    return out
a, b = snap(sys.argv[2]), snap(sys.argv[3])
for c in d["cpus"]:
    states = c["idle_states"]
    want = b.get(c["cpu"], {})
    assert len(states) == len(want), (c["cpu"], states, want)
    total = 0
    for k, st in enumerate(states):
        assert st["name"] == want[k][2], (st["name"], want[k])
        assert a[c["cpu"]][k][0] <= st["entries"] <= want[k][0], (st, a[c["cpu"]][k], want[k])
        assert a[c["cpu"]][k][1] <= st["ns"] <= want[k][1], (st, a[c["cpu"]][k], want[k])
        assert 0 <= st["percent"] <= 100 and st["entries_delta"] <= st["entries"], st
        total += st["percent"]
    assert total <= 100.5, (c["cpu"], total)
' "$tmp/out.json" "$tmp/idle_before" "$tmp/idle_after"
else
	echo "# no cpuidle states on this host: the live idle check is skipped"
fi

"$PMUKIT" cpustat -i 0.05 >"$tmp/out.txt" 2>&1
check "the text table has a row per CPU and the total" py '
import sys
lines = open(sys.argv[1]).read().splitlines()
n = sum(1 for l in open("/proc/stat") if l.startswith("cpu") and not l.startswith("cpu "))
assert lines[0].startswith("CPU time over"), lines[0]
head = lines[2].split()
assert head[:4] == ["cpu", "busy", "user", "nice"] and "steal" in head, head
end = lines.index("", 3) if "" in lines[3:] else len(lines)
rows = [l.split() for l in lines[3:end]]
assert len(rows) == n + 1 and rows[-1][0] == "all", rows
' "$tmp/out.txt"

"$PMUKIT" cpustat -i nope >/dev/null 2>"$tmp/bad.err"
check_eq "a bad interval is a usage error" 2 $?

# A fixture tree: the values come out exactly (one sample repeated: no interval).
mkdir -p "$tmp/root/proc" "$tmp/root/sys/devices/system/cpu/cpu1/cpufreq"
printf 'cpu  3 0 3 6 0 0 0 0 0 0\ncpu0 1 0 2 3 0 0 0 0 0 0\ncpu1 2 0 1 3 1 0 0 0 0 0\nintr 5\n' \
	>"$tmp/root/proc/stat"
echo 1500000 >"$tmp/root/sys/devices/system/cpu/cpu1/cpufreq/scaling_cur_freq"
st=$tmp/root/sys/devices/system/cpu/cpu1/cpuidle/state0
mkdir -p "$st"
echo "C1E" >"$st/name"; echo 2 >"$st/latency"; echo 42 >"$st/usage"; echo 1500 >"$st/time"
echo 0 >"$st/disable"
PMUKIT_SYSROOT=$tmp/root "$PMUKIT" cpustat -i 0.01 --json >"$tmp/fix.json" 2>"$tmp/fix.err"
rc=$?
check_eq "cpustat on a fixture tree exits 0 ($(head -c 200 "$tmp/fix.err"))" 0 $rc
check "fixture values come out exactly" py '
import json, sys
d = json.load(open(sys.argv[1]))
hz = int(sys.argv[2])
c0, c1 = d["cpus"]
assert (c0["cpu"], c1["cpu"]) == (0, 1)
assert c0["ns"]["system"] == 2 * 10**9 // hz and c1["ns"]["iowait"] == 10**9 // hz, d
assert c0["freq_mhz"] is None and c1["freq_mhz"] == 1500, d
assert c0["interval_ns"] == 0 and c0["busy_percent"] == 0, c0
assert d["total"]["ns"]["idle"] == 6 * 10**9 // hz, d["total"]
assert c0["idle_states"] == [], c0
assert c1["idle_states"] == [{"name": "C1E", "exit_latency_us": 2, "disabled": False,
    "percent": 0, "entries_delta": 0, "no_interval": False, "entries": 42, "ns": 1500000}], \
    c1["idle_states"]
' "$tmp/fix.json" "$hz"

# The idle-state header: each state's name ends where its "entries/s" cell ends.
mkdir -p "$tmp/idle/proc"
printf 'cpu  2 0 2 6 0 0 0 0 0 0\ncpu0 1 0 1 3 0 0 0 0 0 0\n' >"$tmp/idle/proc/stat"
for k in 0 1; do
	st=$tmp/idle/sys/devices/system/cpu/cpu0/cpuidle/state$k
	mkdir -p "$st"
	echo "C$k-state" >"$st/name"; echo 1 >"$st/latency"; echo 5 >"$st/usage"
	echo 100 >"$st/time"; echo "$k" >"$st/disable"
done
PMUKIT_SYSROOT=$tmp/idle "$PMUKIT" cpustat -i 0.01 >"$tmp/idle.txt" 2>&1
check "the idle-state header is aligned with its columns" py '
import sys
lines = open(sys.argv[1]).read().splitlines()
i = lines.index("idle states: residency in percent of the interval, entries per second")
head, row = lines[i + 1], lines[i + 2]
print("#", head); print("#", row)
ends = [j + 1 for j in range(len(row)) if row.startswith("/s", j - 1)]
names = [head.index(n) + len(n) for n in ("C0-state", "C1-state*")]
assert head.rstrip() == head and len(head) == len(row), (head, row)
assert names == ends, (names, ends)
' "$tmp/idle.txt"

# Below the /proc/stat tick the times are whole ticks: a warning says so.
"$PMUKIT" cpustat -i 0.001 >/dev/null 2>"$tmp/tick.err"
check_eq "an interval below the tick still runs" 0 $?
check "an interval below the tick (1/$hz s) is warned about" \
	grep -q "shorter than the /proc/stat tick (1/$hz s)" "$tmp/tick.err"
"$PMUKIT" cpustat -i 0.02 >/dev/null 2>"$tmp/tick.err"
check "an interval of two ticks is not warned about" test ! -s "$tmp/tick.err"

# Ctrl-C during the interval prints the part that ran and exits 130.
"$PMUKIT" cpustat -i 5 --json >"$tmp/int.json" 2>"$tmp/int.err" &
pid=$!
# Signalled once its handler is in (SigCgt bit 1: SIGINT), then 0.3 s into the interval,
# which began before: a fixed sleep raced a slow start (ASan, a busy host) and either
# killed it before the handler or cut the interval under the bound below.
for _ in $(seq 200); do
	cgt=$(awk '/^SigCgt:/ {print $2}' /proc/$pid/status 2>/dev/null)
	[ -n "$cgt" ] && [ $(( 0x$cgt & 2 )) -ne 0 ] && break
	sleep 0.05
done
sleep 0.3
kill -INT "$pid"
wait "$pid"
rc=$?
check_eq "SIGINT during the interval exits 130 ($(head -c 200 "$tmp/int.err"))" 130 "$rc"
check "after SIGINT the figures of the part that ran are printed" py '
import json, sys
d = json.load(open(sys.argv[1]))
assert 0.29 < d["interval_s"] < 4.5, d["interval_s"]
assert d["cpus"] and d["total"]["interval_ns"] > 0, d["total"]
' "$tmp/int.json"
check "after SIGINT stderr says the interval was cut short" \
	grep -q "interrupted: the figures cover the" "$tmp/int.err"
# A sysroot without proc/stat is blamed, not the /proc mount (as topo does, issue 8).
PMUKIT_SYSROOT=/nonexistent "$PMUKIT" cpustat -i 0.01 >/dev/null 2>"$tmp/sr.err"
check_eq "PMUKIT_SYSROOT=/nonexistent: exit 1" 1 $?
check "... names the variable, not the mount ($(cat "$tmp/sr.err"))" \
	sh -c "grep -q \"PMUKIT_SYSROOT points to '/nonexistent', which does not exist\" '$tmp/sr.err' && ! grep -q 'mount' '$tmp/sr.err'"

finish
