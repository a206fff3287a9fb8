# Wine smoke part (sourced by smoke.sh): ETW sessions that clean up (issue 13 items 1,
# 9, 14). etw_guard.exe starts a session through the library's internals (Wine fakes
# StartTraceW / ControlTraceW success), gives it a machine-wide setting to restore,
# and reports what pmukit's code did, one "key value" a line.
if [ ! -f "$BUILD/etw_guard.exe" ]; then
	fail etw-guard "$BUILD/etw_guard.exe missing: run 'make windows'"
else
	# Ctrl-C reaches console handlers only on a console: Wine makes one of a pty.
	rm -f "$OUT/etw_ctrl.txt"
	if ! command -v script >/dev/null; then
		echo "SKIP etw-guard ctrl: no 'script' (util-linux) to give Wine a pty for Ctrl-C"
	elif timeout 60 script -qc "'$WINE' '$BUILD/etw_guard.exe' ctrl '$OUT/etw_ctrl.txt'" \
		/dev/null >/dev/null 2>&1 && grep -qx 'generate 1' "$OUT/etw_ctrl.txt" &&
		grep -qx 'running_before 1' "$OUT/etw_ctrl.txt" &&
		grep -qx 'running_after 0' "$OUT/etw_ctrl.txt" &&
		grep -qx 'restore_pending 0' "$OUT/etw_ctrl.txt" &&
		grep -qx 'own_handler 0' "$OUT/etw_ctrl.txt"; then
		pass "Ctrl-C: pmukit's console handler stopped the session and restored the profile interval, then the process's own handler kept it alive"
	else
		fail etw-guard-ctrl "see $OUT/etw_ctrl.txt"
	fi

	rm -f "$OUT/etw_props.txt"
	if run etw_props etw_guard.exe props "$OUT/etw_props.txt" 'C:\users\pmukit-guard.etl' &&
		grep -qx 'start 0' "$OUT/etw_props.txt" &&
		grep -qx 'max_file_mb 4096' "$OUT/etw_props.txt" &&
		grep -qx 'sequential 1' "$OUT/etw_props.txt" &&
		grep -qx 'enable_twins 0' "$OUT/etw_props.txt" &&
		grep -q '^enable_pmc -[0-9]* extended kernel groups' "$OUT/etw_props.txt"; then
		pass "file session: MaximumFileSize 4096 MB, sequential; PROFILE/CSWITCH twins accepted by the (pre-Windows 8) kernel logger, PERF_PMC_PROFILE refused"
	else
		fail etw-guard-props "see $OUT/etw_props.txt and $OUT/etw_props.err"
	fi
fi

# record --wait-stacks: parsed (not a usage error), and the session calls say what
# Wine lacks, as for -g.
run record_wait pmukit.exe record -o "$OUT/wait.etl" --wait-stacks -- "$BUILD/exit_with.exe" 0 0
rc=$?
if [ $rc -eq 1 ] && grep -q 'TraceSetInformation(TraceSampledProfileIntervalInfo) returned ERROR_CALL_NOT_IMPLEMENTED (120)' "$OUT/record_wait.err" &&
	[ ! -e "$OUT/wait.etl" ]; then
	pass "record --wait-stacks (Wine: the fake session reported, no .etl left)"
elif [ $rc -eq 0 ]; then
	pass "record --wait-stacks (an .etl with stacks on CSwitch and ReadyThread)"
else
	fail record-wait "exit $rc; see $OUT/record_wait.*"
fi

# A console process that has user32.dll or gdi32.dll loaded is not sent
# CTRL_LOGOFF_EVENT / CTRL_SHUTDOWN_EVENT (SetConsoleCtrlHandler), so the handler
# that stops pmukit's sessions must not lose them: the DLLs the pmukit.exe process
# itself loads (Wine's loader trace, lines of the thread that loaded pmukit.exe).
WINEDEBUG=+loaddll "$WINE" "$BUILD/pmukit.exe" stat -e task-clock -- "$BUILD/exit_with.exe" 0 0 \
	>"$OUT/loaddll.out" 2>"$OUT/loaddll.err"
tid=$(grep -i 'Loaded .*\\pmukit\.exe"' "$OUT/loaddll.err" | head -1 | cut -d: -f1)
gui=$(grep "^$tid:" "$OUT/loaddll.err" | grep -ioE '\\(user32|gdi32)\.dll' | sort -u | tr '\n' ' ')
if [ -z "$tid" ]; then
	fail console-events "no loader trace of pmukit.exe; see $OUT/loaddll.err"
elif [ -n "$gui" ]; then
	fail console-events "pmukit.exe loads ${gui}: Windows would not send it logoff/shutdown console events"
else
	pass "pmukit.exe loads neither user32.dll nor gdi32.dll: logoff/shutdown reach its console handler"
fi
