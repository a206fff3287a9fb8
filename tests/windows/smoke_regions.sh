# Wine smoke part (sourced by smoke.sh): region markers through pmukit.dll
# (count_regions.exe), pmu_sampler_* saying why Windows has no live sampling, and
# pmu_command_wait_timeout (count_command.exe).
if run count_regions count_regions.exe "$OUT/regions.json" && grep -q '^failures: 0' "$OUT/count_regions.out" &&
	grep -q '^inner .* task-clock' "$OUT/count_regions.out" && python3 -c '
import json, sys
calls, spin = 4, 40e6   # count_regions.c: CALLS, SPIN_MS in ns
rs = json.load(open(sys.argv[1]))["regions"]
threads = set(r["thread"] for r in rs)
assert len(threads) == 3, threads   # the main thread (misuse checks) and two workers
by = {(r["name"], r["thread"]): r for r in rs}
for t in threads:
    if ("inner", t) not in by:
        assert by[("twice", t)]["calls"] == 1, by
        continue
    i, o = by[("inner", t)], by[("outer", t)]
    assert i["calls"] == o["calls"] == calls, (i, o)
    ie, oe = i["events"][0], o["events"][0]
    assert ie["event"] == "task-clock", ie
    assert ie["min"] <= ie["sum"] / calls <= ie["max"], ie
    assert ie["sum"] >= calls * spin * 0.5, ("inner task-clock too low", ie)
    assert oe["sum"] >= ie["sum"], (oe, ie)
' "$OUT/regions.json"; then
	pass "count_regions (regions on two threads through pmukit.dll, text and JSON)"
else
	fail count_regions "see $OUT/count_regions.* and $OUT/regions.json"
fi

# pmu_command_wait_timeout through pmukit.dll (count_command.exe runs exit_with.exe).
if run count_command count_command.exe "$BUILD/exit_with.exe" &&
	grep -q '^wait_timeout: ok' "$OUT/count_command.out"; then
	pass "count_command (pmu_command_wait_timeout: 0 while running, 1 and exit 3 after)"
else
	fail count_command "see $OUT/count_command.*"
fi
