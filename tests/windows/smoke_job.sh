# Wine smoke part (sourced by smoke.sh): stat runs the command in a job object, so
# what it starts is counted too (issue 13 item 6): `stat -- cmd /c build.bat` where
# build.bat runs a program and a nested cmd that runs another. Wine keeps the job's
# process count (TotalProcesses) but reports zero CPU time for other processes, so
# the count of processes is what can be checked here.
printf '@%s 0 30\r\n@cmd /c %s\r\n' 'build-windows\exit_with.exe' "${OUT//\//\\}\\inner.bat" \
	>"$OUT/build.bat"
printf '@%s 0 30\r\n' 'build-windows\exit_with.exe' >"$OUT/inner.bat"
if [ "$BUILD" != build-windows ]; then
	sed -i "s#build-windows#${BUILD//\//\\\\}#" "$OUT/build.bat" "$OUT/inner.bat"
fi

run job_tree pmukit.exe stat -e task-clock,page-faults -- cmd /c "${OUT//\//\\}\\build.bat"
rc=$?
n=$(tr -d '\r' <"$OUT/job_tree.err" | sed -n "s/.* note: \([0-9]*\) processes ran in the command's job object.*/\1/p")
if [ $rc -eq 0 ] && [ "${n:-0}" -eq 4 ]; then
	pass "stat -- cmd /c build.bat: the job held 4 processes (cmd, a program, a nested cmd and its program)"
else
	fail stat-job "exit $rc, ${n:-no} processes (want 4); see $OUT/job_tree.*"
fi

# One process, no children: no job note.
run job_one pmukit.exe stat -e task-clock -- "$BUILD/exit_with.exe" 0 20
rc=$?
if [ $rc -eq 0 ] && ! grep -q "processes ran" "$OUT/job_one.err"; then
	pass "stat of a command that starts nothing says nothing of a job"
else
	fail stat-job-one "exit $rc; see $OUT/job_one.*"
fi

# A child that asks to leave the job (CREATE_BREAKAWAY_FROM_JOB) runs, as it would
# without pmukit: the job allows breakaway (the child is then not counted).
run job_breakaway pmukit.exe stat -e task-clock -- "$BUILD/spawn_breakaway.exe" \
	"${BUILD//\//\\}\\exit_with.exe" 5 20
rc=$?
if [ $rc -eq 5 ]; then
	pass "stat of a command whose child breaks away from the job: the child ran (exit 5)"
else
	fail stat-job-breakaway "exit $rc (want 5: the child's status); see $OUT/job_breakaway.*"
fi
