# Wine smoke part (sourced by smoke.sh): ETW PMC-on-CSwitch counting and .etl
# recording. Wine 8 fakes StartTraceW (success, handle 0xCAFE4242) and answers
# TraceSetInformation with ERROR_CALL_NOT_IMPLEMENTED: pmukit makes those very calls
# and must report what they answered, leave no file behind and still run commands.
rm -f "$OUT/rec.etl"
run record pmukit.exe record -o "$OUT/rec.etl" -g -- "$BUILD/exit_with.exe" 0 0
rc=$?
if [ $rc -eq 1 ] && grep -q 'StartTraceW returned success with a fake handle, and TraceSetInformation(TraceSampledProfileIntervalInfo) returned ERROR_CALL_NOT_IMPLEMENTED (120)' "$OUT/record.err" &&
	[ ! -e "$OUT/rec.etl" ]; then
	pass "record (Wine: the fake session and TraceSetInformation's 120 reported, no .etl left)"
elif [ $rc -eq 0 ] && run record_info pmukit.exe etl info "$OUT/rec.etl"; then
	pass "record (an .etl the reader opens)"
else
	fail record "exit $rc; see $OUT/record.*"
fi

run record_hw pmukit.exe record -o "$OUT/rec.etl" -e instructions -- "$BUILD/exit_with.exe" 0 0
rc=$?
if [ $rc -eq 1 ] && grep -q 'TraceQueryInformation' "$OUT/record_hw.err"; then
	pass "record -e instructions (Wine: the profile sources cannot be read, said so)"
elif [ $rc -eq 0 ]; then
	pass "record -e instructions (PMC-overflow samples recorded)"
else
	fail record-hw "exit $rc; see $OUT/record_hw.*"
fi

run record_usage pmukit.exe record -- "$BUILD/exit_with.exe" 0 0
rc=$?
if [ $rc -eq 2 ] && grep -q 'no output file' "$OUT/record_usage.err"; then
	pass "record without -o (usage error 2)"
else
	fail record-usage "exit $rc (want 2); see $OUT/record_usage.*"
fi

# PMC counting: instructions of a child through ETW PMC-on-CSwitch.
run stat_pmc pmukit.exe stat -e instructions -- "$BUILD/exit_with.exe" 3 50
rc=$?
if [ $rc -eq 3 ] && grep -q "cannot count 'instructions' here: .*TraceSetInformation(TracePmcCounterListInfo) returned ERROR_CALL_NOT_IMPLEMENTED (120)" "$OUT/stat_pmc.err" &&
	cat "$OUT/stat_pmc.out" "$OUT/stat_pmc.err" | grep -q '<not supported> *instructions'; then
	pass "stat -e instructions (Wine: ETW PMC counting reported unavailable, exit 3 passed through)"
elif [ $rc -eq 3 ] && grep -q 'instructions' "$OUT/stat_pmc.err"; then
	pass "stat -e instructions (counted through ETW PMC-on-CSwitch)"
else
	fail stat-pmc "exit $rc (want 3); see $OUT/stat_pmc.*"
fi

if grep -qE '^  (cycles|instructions) .*not usable here: Wine .*ETW kernel sessions' "$OUT/list.out"; then
	pass "list (instructions: the ETW reason)"
else
	fail list-etw "instructions lacks the ETW reason; see $OUT/list.out"
fi
