#!/bin/bash
# pmukit stat end to end: counts agree with perf stat, exit status passes through,
# the output formats parse, and the options behave as a perf stat user expects.
# As perf stat, pmukit writes the counts to stderr (the command keeps stdout): hence
# the 2>&1 >/dev/null, or -o /dev/stdout where stderr is kept apart.
set -u
. "$(dirname "$0")/lib.sh"

TP="$BUILDDIR/touch_pages"
PAGES=20000

# 1. page-faults of a workload touching N pages agree with perf stat -x, (same workload).
json=$("$PMUKIT" stat -e page-faults,task-clock --json -- "$TP" $PAGES 2>&1 >/dev/null) || fail "stat --json failed"
ours=$(py "import json,sys; d=json.loads(sys.argv[1]); print(int([c for c in d['counters'] if c['event']=='page-faults'][0]['value']))" "$json")
check "our page-faults >= $PAGES" test "$ours" -ge $PAGES
if command -v perf >/dev/null && perf stat -x, -e page-faults true >/dev/null 2>&1; then
	theirs=$(perf stat -x, -e page-faults -- "$TP" $PAGES 2>&1 >/dev/null | awk -F, '/page-faults/{print $1}')
	check "perf counted page-faults ($theirs)" test -n "$theirs"
	diff=$(( ours > theirs ? ours - theirs : theirs - ours ))
	check "pmukit $ours vs perf $theirs page-faults within 2%" test $((diff * 100)) -le $((theirs * 2))
else
	echo "note: perf stat unusable here; skipping the side-by-side comparison" >&2
fi

# 2. JSON carries the documented keys.
py "
import json,sys
d=json.loads(sys.argv[1])
for k in ('command','exit_status','elapsed_ns','counters'):
    assert k in d, k
assert d['exit_status']==0 and d['elapsed_ns']>0
for c in d['counters']:
    for k in ('event','value','unit','time_enabled','time_running','scaled_from_percent'):
        assert k in c, k
    assert c['time_enabled']>0 and c['time_running']>0
tc=[c for c in d['counters'] if c['event']=='task-clock'][0]
assert tc['unit']=='ns' and tc['value']>0
" "$json" || fail "JSON schema"
pass "JSON has command, exit_status, elapsed_ns, counters[]"

# 3. The exit status is passed through, also for a signal death.
"$PMUKIT" stat -e task-clock -o /dev/null -- "$TP" 1 -x 7; check_eq "exit status 7 passed through" 7 $?
"$PMUKIT" stat -e task-clock -o /dev/null -- sh -c 'kill -TERM $$'; check_eq "death by SIGTERM -> 143" 143 $?
"$PMUKIT" stat -e task-clock -o /dev/null -- /nonexistent/cmd 2>/tmp/pmukit_err.$$; check_eq "missing command -> 127" 127 $?
grep -q "nonexistent" /tmp/pmukit_err.$$ || fail "missing command error does not name it"
rm -f /tmp/pmukit_err.$$

# 4. Default events: software ones on a host without PMU, and it says so.
out=$("$PMUKIT" stat -- "$TP" 100 2>&1) || fail "default stat failed"
if [ -z "$(ls /sys/bus/event_source/devices 2>/dev/null | grep -E '^(cpu|cpu_core|cpu_atom|armv8.*)$')" ]; then
	echo "$out" | grep -q "task-clock" || fail "default events lack task-clock"
	echo "$out" | grep -q "no hardware PMU" || fail "default output does not say why software events"
	pass "software defaults without a PMU, with the reason"
else
	echo "$out" | grep -q "instructions" || fail "default events lack instructions on a PMU host"
	pass "hardware defaults on a PMU host"
fi

# 5. CSV in perf's -x field order: value,unit,event,run_time,percent,...
csv=$("$PMUKIT" stat -x, -e page-faults -- "$TP" 1000 2>&1 >/dev/null) || fail "stat -x, failed"
echo "$csv" | awk -F, '$3=="page-faults" && $1>=1000 && $5=="100.00" {ok=1} END {exit !ok}' \
	|| fail "CSV row wrong: $csv"
pass "CSV value,unit,event,run_time,percent"

# 6. Repeat shows the spread; JSON says runs.
rep=$("$PMUKIT" stat -r 3 -e page-faults --json -- "$TP" 500 2>&1 >/dev/null) || fail "stat -r failed"
py "import json,sys; d=json.loads(sys.argv[1]); assert d['runs']==3; assert 'stddev_percent' in d['counters'][0]" "$rep" \
	|| fail "-r JSON"
"$PMUKIT" stat -r 3 -e page-faults -- "$TP" 500 2>&1 | grep -q '( +-' || fail "-r text lacks spread"
pass "-r 3 shows the spread"

# 7. Intervals: -I prints several timestamped lines while the command runs.
lines=$("$PMUKIT" stat -I 100 -e task-clock -- "$TP" 1 -s 550 2>&1 >/dev/null | grep -c 'task-clock')
check "-I 100 over 550 ms printed 4-6 intervals ($lines)" test "$lines" -ge 4 -a "$lines" -le 6

# 8. Attach to a pid: counts until the process exits.
"$TP" 10 -s 1000 & pid=$!
att=$("$PMUKIT" stat -p $pid -e task-clock --json 2>&1 >/dev/null) || fail "stat -p failed"
py "import json,sys; d=json.loads(sys.argv[1]); v=d['counters'][0]['value']; assert v>5e7, v" "$att" \
	|| fail "-p did not count the spinning process: $att"
wait $pid
pass "-p PID counts until the process exits"

# 8b. Attach to one thread.
"$TP" 10 -s 1000 & pid=$!
att=$("$PMUKIT" stat -t $pid -e task-clock --json 2>&1 >/dev/null) || fail "stat -t failed"
py "import json,sys; d=json.loads(sys.argv[1]); v=d['counters'][0]['value']; assert d['target']=='tid' and v>5e7, v" "$att" \
	|| fail "-t did not count the spinning thread: $att"
wait $pid
pass "-t TID counts until the thread exits"

# 8c. -I with --json writes one object per interval line, the last (partial) one with
# the exit status; no total line, as in text and CSV.
jl=$("$PMUKIT" stat -I 100 --json -e task-clock -- "$TP" 1 -s 350 2>&1 >/dev/null) || fail "stat -I --json failed"
py "
import json,sys
lines=[json.loads(l) for l in sys.argv[1].splitlines() if l.strip()]
iv=[l for l in lines if 'interval_s' in l]
assert len(iv)>=2 and all(l['counters'][0]['event']=='task-clock' for l in iv), lines
assert len(iv)==len(lines) and lines[-1]['exit_status']==0
" "$jl" || fail "-I --json lines: $jl"
pass "-I --json prints JSON Lines"

# 9. System wide and per CPU.
if cpu=$("$PMUKIT" stat -a -A -e cpu-clock --json -- sleep 0.2 2>&1 >/dev/null); then
	online=$(python3 -c "
s=open('/sys/devices/system/cpu/online').read().strip(); n=0
for part in s.split(','):
    a,_,b=part.partition('-'); n+=int(b or a)-int(a)+1
print(n)")
	py "
import json,sys
d=json.loads(sys.argv[1]); cpus=[c['cpu'] for c in d['counters']]
assert len(cpus)==int(sys.argv[2]) and len(set(cpus))==len(cpus), cpus
assert all(c['value']>0 for c in d['counters'])" "$cpu" "$online" || fail "-a -A JSON: $cpu"
	pass "-a --per-cpu counts every CPU"
else
	fail "stat -a failed"
fi

# 10. Ctrl-C: SIGINT to pmukit alone prints the counts so far and passes the child's fate on.
# (A background job of a script starts with SIGINT ignored; restore the default first.)
python3 -c 'import os,signal,sys; signal.signal(signal.SIGINT, signal.SIG_DFL); os.execvp(sys.argv[1], sys.argv[1:])' \
	"$PMUKIT" stat -e task-clock -o /tmp/pmukit_int.$$ -- "$TP" 1 -s 5000 & spid=$!
for _ in $(seq 50); do [ "$(cat /proc/$spid/comm 2>/dev/null)" = pmukit ] && break; sleep 0.1; done
sleep 0.3; kill -INT $spid; wait $spid; st=$?
check_eq "SIGINT: child's status 130 passed through" 130 $st
grep -q 'interrupted' /tmp/pmukit_int.$$ || fail "SIGINT output lacks the interrupted note"
grep -q 'task-clock' /tmp/pmukit_int.$$ || fail "SIGINT output lacks counts"
rm -f /tmp/pmukit_int.$$
pass "SIGINT prints the counts so far"

# 10b. A child that stops itself sends SIGCHLD too: pmukit must not block waiting for
# its exit, -I keeps printing while it is stopped, and its status still comes through.
tmp=$(mktemp -d)
"$PMUKIT" stat -I 100 -x, -e task-clock -o $tmp/out -- sh -c "echo \$\$ > $tmp/pid; kill -STOP \$\$; exit 3" & spid=$!
for _ in $(seq 50); do [ -s $tmp/pid ] && break; sleep 0.1; done
sleep 0.8
stopped=$(grep -c task-clock $tmp/out)
kill -CONT "$(cat $tmp/pid)"; wait $spid; st=$?
check "-I goes on while the child is stopped ($stopped lines in 0.8 s)" test "$stopped" -ge 4
check_eq "stopped then continued child: status 3 passed through" 3 $st
# Started with SIGCHLD ignored (some daemons do that to their children), the command
# would be reaped by the kernel: no status to wait for, and pmukit waited forever.
timeout -s KILL 10 python3 -c 'import os,signal,sys; signal.signal(signal.SIGCHLD, signal.SIG_IGN); os.execvp(sys.argv[1], sys.argv[1:])' \
	"$PMUKIT" stat -e task-clock -o /dev/null -- "$TP" 1 -x 4
check_eq "SIGCHLD ignored by our parent: status 4 still passed through" 4 $?
# A target that sleeps through an interval counted nothing: <not counted>, not 0.
sleep 0.7 & pid=$!
"$PMUKIT" stat -p $pid -I 100 -x, -e task-clock > $tmp/sleep 2>&1
wait $pid
if ! grep -q '<not counted>,msec,task-clock,' $tmp/sleep; then
	fail "sleeping target read as a count: $(head -3 $tmp/sleep)"
elif grep '<not counted>' $tmp/sleep | grep -q 'CPUs utilized'; then
	fail "a metric beside <not counted>: $(head -3 $tmp/sleep)"
else
	pass "a target that did not run reads <not counted>"
fi
rm -rf $tmp

# 11. Bad input: errors, not crashes.
"$PMUKIT" stat -e cyclse -- true 2>/tmp/pmukit_err.$$; check_eq "bad event -> 1" 1 $?
grep -q "cyclse" /tmp/pmukit_err.$$ || fail "bad event error does not name the token"
"$PMUKIT" stat -p 999999999 -e task-clock 2>/tmp/pmukit_err.$$; check "unknown pid fails" test $? -ne 0
grep -qi "no such process" /tmp/pmukit_err.$$ || fail "unknown pid error: $(cat /tmp/pmukit_err.$$)"
rm -f /tmp/pmukit_err.$$
"$PMUKIT" stat 2>/dev/null; check_eq "no command -> usage 2" 2 $?
# Numbers that do not fit are refused, not truncated (4294967297 as an int is pid 1,
# which would be counted until it exits: hence the timeouts).
timeout 10 "$PMUKIT" stat -p 4294967297 -e task-clock 2>/dev/null; check_eq "pid beyond int -> usage 2" 2 $?
timeout 10 "$PMUKIT" stat -r 4294967298 -e task-clock -- true 2>/dev/null; check_eq "-r beyond int -> usage 2" 2 $?
timeout 10 "$PMUKIT" stat -I 99999999999999999 -e task-clock -- true 2>/dev/null; check_eq "huge -I -> usage 2" 2 $?
# A CPU listed twice is counted once.
if dup=$("$PMUKIT" stat -C 0,0 -A -e cpu-clock --json -o /dev/stdout -- true 2>/dev/null); then
	py "import json,sys; d=json.loads(sys.argv[1]); assert [c['cpu'] for c in d['counters']]==[0], d" "$dup" \
		|| fail "-C 0,0 counted CPU 0 more than once: $dup"
	pass "-C 0,0 counts CPU 0 once"
fi
# A PMU that cannot separate privilege levels: the modifier is named as the cause.
# As in perf stat, an event this host cannot count reads <not supported> and the
# rest is counted; with nothing countable the command still runs for its status.
if [ -e /sys/bus/event_source/devices/msr/events/tsc ] && "$PMUKIT" stat -e msr/tsc/ -- true >/dev/null 2>&1; then
	out=$("$PMUKIT" stat -o /dev/stdout -x, -e msr/tsc/:u,task-clock -- true 2>/tmp/pmukit_err.$$)
	check_eq "msr/tsc/:u,task-clock -> 0" 0 $?
	check "msr/tsc/:u reads <not supported>, task-clock is counted ($out)" py '
import sys
rows = [l.split(",") for l in sys.argv[1].splitlines()]
assert rows[0][0] == "<not supported>" and rows[0][2] == "msr/tsc/u", rows
assert rows[1][2] == "task-clock" and float(rows[1][0]) > 0, rows
' "$out"
	check "the modifier is named as the cause ($(cat /tmp/pmukit_err.$$))" \
		grep -q "not counting msr/tsc/u: .*does not separate user and kernel mode.*drop the modifier" /tmp/pmukit_err.$$
	"$PMUKIT" stat -e msr/tsc/:u -o /tmp/pmukit_out.$$ -- sh -c 'exit 5' 2>/tmp/pmukit_err.$$
	check_eq "nothing countable: the command still runs, exit 5 passed through" 5 $?
	check "... and its row says <not supported>" grep -q "<not supported>.*msr/tsc/u" /tmp/pmukit_out.$$
	rm -f /tmp/pmukit_err.$$ /tmp/pmukit_out.$$
else
	echo "# no usable msr/tsc event here: the modifier check is skipped"
fi
if "$PMUKIT" stat -e cycles -- true 2>&1 >/dev/null | grep -q "no hardware PMU"; then
	json=$("$PMUKIT" stat -o /dev/stdout --json -e '{cycles,instructions},page-faults' -- true 2>/tmp/pmukit_err.$$)
	check_eq "no PMU: {cycles,instructions},page-faults -> 0" 0 $?
	check "no PMU: the group is <not supported> with the reason, page-faults counted" py '
import json, sys
d = json.loads(sys.argv[1])
c = {x["event"]: x for x in d["counters"]}
for e in ("cycles", "instructions"):
    assert c[e]["supported"] is False and c[e]["value"] is None, c[e]
    assert "no hardware PMU" in c[e]["not_counted"], c[e]
assert c["page-faults"]["supported"] is True and c["page-faults"]["value"] > 0, c
' "$json"
	check "no PMU: stderr names each left-out event" test "$(grep -c 'not counting' /tmp/pmukit_err.$$)" -eq 2
	rm -f /tmp/pmukit_err.$$
fi

finish
