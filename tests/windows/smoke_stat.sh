# Wine smoke part (sourced by smoke.sh): pmukit stat's run loop, the one it shares
# with Linux (tools/pmukit/stat_run.c): an attached process that exits ends it, -I
# prints intervals, -r repeats.

# -p: counting ends when the process counted is gone (before, only Ctrl-C ended it).
run stat_attach stat_attach.exe "$BUILD/pmukit.exe" "$BUILD/exit_with.exe" 0 700
rc=$?
after=$(tr -d '\r' <"$OUT/stat_attach.out" | awk '$1 == "after_ms" {print $2}')
if [ $rc -eq 0 ] && grep -qx 'rc 0' <(tr -d '\r' <"$OUT/stat_attach.out") &&
	[ -n "$after" ] && [ "$after" -lt 5000 ]; then
	pass "stat -p ends when its process exits (${after} ms after it)"
else
	fail stat-attach "exit $rc; see $OUT/stat_attach.* (pmukit must end by itself)"
fi

# -I 100 over a 600 ms command: about six intervals, each a task-clock line with
# its time stamp, and the command's exit status passed through.
run stat_interval pmukit.exe stat -I 100 -e task-clock -- "$BUILD/exit_with.exe" 4 600
rc=$?
ticks=$(tr -d '\r' <"$OUT/stat_interval.err" | grep -cE '^ *[0-9]+\.[0-9]{9} .*task-clock')
if [ $rc -eq 4 ] && [ "$ticks" -ge 3 ] && [ "$ticks" -le 20 ]; then
	pass "stat -I 100 (${ticks} intervals, exit 4 passed through)"
else
	fail stat-interval "exit $rc (want 4), $ticks intervals (want 3 to 20); see $OUT/stat_interval.*"
fi

# -r 2: two runs, their mean with its spread.
run stat_repeat pmukit.exe stat -r 2 -e task-clock -- "$BUILD/exit_with.exe" 0 50
rc=$?
if [ $rc -eq 0 ] && tr -d '\r' <"$OUT/stat_repeat.err" | grep -q '(2 runs)'; then
	pass "stat -r 2 (two runs on Windows too)"
else
	fail stat-repeat "exit $rc; see $OUT/stat_repeat.*"
fi
