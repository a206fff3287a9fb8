# Wine smoke part (sourced by smoke.sh): pmukit cpustat. Wine has no PDH "Processor
# Information", so the NtQuerySystemInformation fallback serves; Wine fills it from
# /proc/stat x 100000 (100 ns units), so the cumulative times must lie between two
# /proc/stat readings taken around the run.
cat /proc/stat >"$OUT/cpustat.before"
run cpustat_json pmukit.exe cpustat -i 0.5 --json
rc=$?
cat /proc/stat >"$OUT/cpustat.after"
if [ $rc -eq 0 ] && python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
n = int(sys.argv[2])
def stat(path):
    out = {}
    for line in open(path):
        f = line.split()
        if f[0].startswith("cpu") and f[0] != "cpu":
            out[int(f[0][3:])] = [int(x) for x in f[1:9]]
    return out
a, b = stat(sys.argv[3]), stat(sys.argv[4])
assert d["source"] == "ntqsi", d["source"]
assert len(d["cpus"]) == n, "%d CPUs, host has %d" % (len(d["cpus"]), n)
for c in d["cpus"]:
    p = c["percent"]
    assert set(p) == {"user", "system", "idle", "irq", "softirq"}, p
    assert c["idle_states"] == [], c["idle_states"]  # NtQSI has no C-states
    assert c["interval_ns"] > 0 and abs(sum(p.values()) - 100) < 0.01, c
    # USER_HZ ticks of 10 ms: user + nice, in ns.
    lo, hi = [(s[c["cpu"]][0] + s[c["cpu"]][1]) * 10**7 for s in (a, b)]
    assert lo - 10**7 <= c["ns"]["user"] <= hi + 10**7, (c["cpu"], lo, c["ns"]["user"], hi)
    lo, hi = [s[c["cpu"]][3] * 10**7 for s in (a, b)]
    assert lo - 10**7 <= c["ns"]["idle"] <= hi + 10**7 or c["ns"]["idle"] == 0, (c["cpu"], lo, c["ns"]["idle"], hi)
t = d["total"]
assert abs(sum(t["percent"].values()) - 100) < 0.01, t
' "$OUT/cpustat_json.out" "$(nproc)" "$OUT/cpustat.before" "$OUT/cpustat.after"; then
	pass "cpustat --json ($(nproc) CPUs from NtQuerySystemInformation, between two /proc/stat readings, 100 %)"
else
	fail cpustat-json "exit $rc; see $OUT/cpustat_json.*"
fi

if run cpustat pmukit.exe cpustat -i 0.2 && grep -q 'from ntqsi' "$OUT/cpustat.out" &&
	[ "$(awk '$1 ~ /^[0-9]+$/' "$OUT/cpustat.out" | wc -l)" -eq "$(nproc)" ] &&
	grep -q '^  all ' "$OUT/cpustat.out"; then
	pass "cpustat (text: a row per CPU and the total)"
else
	fail cpustat "see $OUT/cpustat.*"
fi
