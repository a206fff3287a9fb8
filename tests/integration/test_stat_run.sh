#!/bin/bash
# pmukit stat's run loop as a perf user meets it in the first hour: uncountable events
# shown, not dropped; the last partial -I interval; unprivileged fallback; messages
# that name the real cause; perf's --timeout, -D, -p A,B, -a -C, duration_time.
# Counts are read through -o FILE only (stdout/stderr placement may change).
set -u
. "$(dirname "$0")/lib.sh"

TP="$BUILDDIR/touch_pages"
PAGES=20000
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
nopmu=0
[ -z "$(ls /sys/bus/event_source/devices 2>/dev/null | grep -E '^(cpu|cpu_core|cpu_atom|armv8.*)$')" ] && nopmu=1

# --- Uncountable events are rows, in every format, and the command runs counted.
if [ $nopmu = 1 ]; then
	"$PMUKIT" stat -e cycles -o "$T/o" -- sh -c 'exit 3' 2>"$T/e"
	check_eq "-e cycles without PMU: the command's status 3 passes through" 3 $?
	check "-e cycles: text row <not supported> cycles" grep -qE '<not supported> +cycles' "$T/o"
	check "-e cycles: the reason on stderr" grep -q "not counting cycles: no hardware PMU" "$T/e"
	"$PMUKIT" stat -e cycles -x, -o "$T/o" -- true 2>/dev/null
	check "-e cycles -x,: CSV row" grep -q '^<not supported>,,cycles,' "$T/o"
	"$PMUKIT" stat -e cycles -j -o "$T/o" -- true 2>/dev/null
	check "-e cycles -j: supported false, with the reason" py '
import json,sys
c=json.load(open(sys.argv[1]))["counters"]
assert len(c)==1 and c[0]["event"]=="cycles" and c[0]["supported"] is False, c
assert "no hardware PMU" in c[0]["not_counted"], c' "$T/o"
	# Groups, as perf 6.1: the countable member is <not counted>, said why.
	for g in '{task-clock,cycles}' '{cycles,task-clock}'; do
		"$PMUKIT" stat -e "$g" -x, -o "$T/o" -- true 2>"$T/e"
		check "$g: task-clock <not counted>, cycles <not supported>" py '
import sys
rows={r.split(",")[2]: r.split(",")[0] for r in open(sys.argv[1]).read().split("\n") if r}
assert rows=={"task-clock":"<not counted>","cycles":"<not supported>"}, rows' "$T/o"
		check "$g: says the group was left out for cycles" \
			grep -q "not counting task-clock: left out with its group $g: cycles cannot" "$T/e"
	done
	# Each member's own reason: instructions is not blamed on cycles.
	"$PMUKIT" stat -e '{cycles,instructions},task-clock' -o /dev/null -- true 2>"$T/e"
	check "instructions' reason names instructions ($(grep instructions: "$T/e"))" \
		grep -q "not counting instructions: .*(instructions needs a core PMU)" "$T/e"
else
	echo "# this host has a core PMU: the uncountable-event checks need one without"
fi

# --- -I prints the last, partial interval, in every format, as perf does.
"$PMUKIT" stat -I 500 -x, -e task-clock -o "$T/o" -- sleep 1.3
check "-I 500 over 1.3 s: 0.5, 1.0 and the partial 1.3 ($(cut -d, -f1 "$T/o" | tr '\n' ' '))" py '
import sys
t=[float(l.split(",")[0]) for l in open(sys.argv[1]) if ",task-clock," in l]
assert len(t)==3 and 1.25 < t[2] < 1.6, t' "$T/o"
if command -v perf >/dev/null && perf stat -e task-clock -o /dev/null true 2>/dev/null; then
	perf stat -I 500 -x, -e task-clock -o "$T/p" -- sleep 1.3
	check_eq "-I 500 over 1.3 s: as many lines as perf" \
		"$(grep -c ',task-clock,' "$T/p")" "$(grep -c ',task-clock,' "$T/o")"
fi
"$PMUKIT" stat -I 1000 -x, -e task-clock -o "$T/o" -- sleep 0.5
check "-I 1000 over 0.5 s: one partial interval with a count" py '
import sys
rows=[l.split(",") for l in open(sys.argv[1]) if ",task-clock," in l]
assert len(rows)==1 and 0.45 < float(rows[0][0]) < 0.9 and float(rows[0][1]) > 0, rows' "$T/o"
"$PMUKIT" stat -j -I 500 -e task-clock -o "$T/o" -- sh -c 'sleep 0.7; exit 4'
check_eq "-j -I: exit status passed through" 4 $?
check "-j -I: every line an interval, the last with the exit status" py '
import json,sys
l=[json.loads(x) for x in open(sys.argv[1]) if x.strip()]
assert len(l)==2 and all("interval_s" in x for x in l), l
assert l[0]["exit_status"] is None and l[1]["exit_status"]==4, l' "$T/o"
"$PMUKIT" stat -I 5 -x, -e task-clock -o "$T/o" -- "$TP" 1 -s 30 2>"$T/e"
check_eq "-I 5 accepted (perf: down to 1 ms)" 0 $?
check "-I 5 warns about the overhead" grep -q "warning: -I 5: intervals under 10 ms" "$T/e"
check "-I 5 over 30 ms printed several intervals" test "$(grep -c ',task-clock,' "$T/o")" -ge 2
"$PMUKIT" stat -I 0 -x, -e task-clock -o "$T/o" -- true
check "-I 0: no intervals, one total (perf)" test "$(grep -c ',task-clock,' "$T/o")" -eq 1
start=$(date +%s%N)
"$PMUKIT" stat -I 100 --interval-count 2 -x, -e task-clock -o "$T/o" -- "$TP" 1 -s 600 -x 6
check_eq "--interval-count 2: the command's status 6" 6 $?
ms=$(( ($(date +%s%N) - start) / 1000000 ))
check_eq "--interval-count 2: two lines" 2 "$(grep -c ',task-clock,' "$T/o")"
check "--interval-count 2: the command ran to its end, as in perf ($ms ms)" test "$ms" -ge 550
"$PMUKIT" stat --interval-count 2 -e task-clock -- true 2>"$T/e"
check_eq "--interval-count without -I: usage error" 2 $?
check "... which says -I is needed" grep -q -- "--interval-count needs -I" "$T/e"

# --- Unprivileged, with perf_event_paranoid >= 2: user-only counting, as perf does.
par=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo unknown)
if [ "$(id -u)" != 0 ] || ! command -v runuser >/dev/null; then
	echo "# not root (or no runuser): the unprivileged checks need to run as nobody"
elif [ "$par" = unknown ] || [ "$par" -lt 2 ]; then
	echo "# perf_event_paranoid=$par allows kernel mode: no fallback to check"
else
	U=$(mktemp -d); chmod 777 "$U"
	runuser -u nobody -- "$PMUKIT" stat -o "$U/o" -- touch "$U/x" 2>"$U/e"
	check_eq "as nobody: stat -- touch exits 0" 0 $?
	check "as nobody: the command ran" test -e "$U/x"
	check "as nobody: task-clock:u counted" grep -qE '[0-9.]+ msec task-clock:u' "$U/o"
	check_eq "as nobody: the fallback is said once" 1 "$(grep -c 'counting user mode only' "$U/e")"
	runuser -u nobody -- "$PMUKIT" stat -e task-clock:k -o /dev/null -- true 2>"$U/e"
	check "as nobody: task-clock:k fails, hinting task-clock:u" grep -q '(task-clock:u)' "$U/e"
	check "as nobody: ... not task-clock:k:u" eval '! grep -q "task-clock:k:u" "$U/e"'
	hint=$(grep -o '(task-clock:u)' "$U/e" | tr -d '()')
	runuser -u nobody -- "$PMUKIT" stat -e "${hint:-none}" -o /dev/null -- true
	check_eq "as nobody: the hinted spelling counts" 0 $?
	if [ $nopmu = 1 ]; then
		# the member tried alone falls back too: left out with its group, not refused
		runuser -u nobody -- "$PMUKIT" stat -e '{cycles,task-clock}' -x, -o "$U/o" -- true 2>/dev/null
		check "as nobody: {cycles,task-clock} -> task-clock:u <not counted>" \
			grep -q '^<not counted>,msec,task-clock:u,' "$U/o"
	fi
	# duration_time is wall-clock time: no word of user mode for it alone
	runuser -u nobody -- "$PMUKIT" stat -e duration_time -o /dev/null -- true 2>"$U/e"
	check "as nobody: -e duration_time alone, no user-mode note ($(cat "$U/e"))" test ! -s "$U/e"
	# a sysroot without proc/sys: the live kernel's paranoid decides the fallback
	# (it read 'unreadable' and blamed ptrace: "the target belongs to another user")
	mkdir "$U/root"
	PMUKIT_SYSROOT="$U/root" runuser -u nobody -- "$PMUKIT" stat -e task-clock -x, \
		-o "$U/o" -- true 2>"$U/e"
	rc=$?	# before the message's $(...), which sets $? itself
	check_eq "as nobody under a sysroot: exit 0 ($(head -c 200 "$U/e"))" 0 $rc
	check "as nobody under a sysroot: task-clock:u counted" \
		grep -qE '^[0-9.]+,msec,task-clock:u,' "$U/o"
	rm -rf "$U"
fi

# --- Messages that name the real cause.
# A sysroot holds fixture sysfs/proc trees: the command is still found in the real /proc.
PMUKIT_SYSROOT="$T" "$PMUKIT" stat -e task-clock -x, -o "$T/o" -- true 2>"$T/e"
rc=$?	# before the message's $(...), which sets $? itself
check_eq "under a sysroot, stat -- true exits 0 ($(head -c 200 "$T/e"))" 0 $rc
check "under a sysroot, task-clock counted" grep -qE '^[0-9.]+,msec,task-clock,' "$T/o"
# ... and --per-thread names the threads from the real /proc too (it said '?-TID')
sleep 0.5 & s=$!
PMUKIT_SYSROOT="$T" "$PMUKIT" stat --per-thread -p $s -e task-clock -x, -o "$T/o" 2>"$T/e"
wait $s
# (bash-PID when the fork has not exec'd sleep yet: a name all the same)
check "under a sysroot, --per-thread row comm-$s, not ?-$s ($(head -c 100 "$T/o"))" \
	grep -qE "^(sleep|bash)-$s,.*,task-clock," "$T/o"
"$PMUKIT" stat -e task-clock -o /dev/null -- /nonexistent 2>"$T/e"
check_eq "missing command: 127" 127 $?
check "missing command: 'command not found', naming it ($(cat "$T/e"))" \
	grep -q "'/nonexistent': command not found" "$T/e"
check "missing command: no event/PMU wording" eval '! grep -q "no such event" "$T/e"'
# SIGINT reaches pmukit, the command ignores it and ends on its own: counted whole.
# (A background job of a script starts with SIGINT ignored; restore the default first.)
DFL_INT=(python3 -c 'import os,signal,sys; signal.signal(signal.SIGINT, signal.SIG_DFL); os.execvp(sys.argv[1], sys.argv[1:])')
wait_comm() { for _ in $(seq 50); do [ "$(cat /proc/$1/comm 2>/dev/null)" = pmukit ] && break; sleep 0.1; done; }
"${DFL_INT[@]}" "$PMUKIT" stat -j -e task-clock -o "$T/o" -- sh -c 'trap "" INT; sleep 0.8; exit 0' & spid=$!
wait_comm $spid; sleep 0.3; kill -INT $spid; wait $spid
check_eq "a command ignoring SIGINT: its status 0" 0 $?
check "a command ignoring SIGINT and ending normally is not 'interrupted'" py '
import json,sys
d=json.load(open(sys.argv[1])); assert d["interrupted"] is False and d["exit_status"]==0, d' "$T/o"
"${DFL_INT[@]}" "$PMUKIT" stat -j -e task-clock -o "$T/o" -- sleep 5 & spid=$!
wait_comm $spid; sleep 0.3; kill -INT $spid; wait $spid
check_eq "a command killed by SIGINT: 130" 130 $?
check "... and that is 'interrupted'" py '
import json,sys
assert json.load(open(sys.argv[1]))["interrupted"] is True' "$T/o"

# --- perf habits.
# SIGINT ends a system-wide count with 130, as perf (which dies by the signal).
"${DFL_INT[@]}" "$PMUKIT" stat -a -e cpu-clock -x, -o "$T/o" & spid=$!
wait_comm $spid; sleep 0.3; kill -INT $spid; wait $spid
check_eq "-a, SIGINT: exit 130" 130 $?
check "-a, SIGINT: the counts so far" grep -qE '^[0-9.]+,msec,cpu-clock,' "$T/o"
# --timeout MS (perf stat --timeout): the command gets SIGTERM, the counts are printed, 0.
start=$(date +%s%N)
"$PMUKIT" stat --timeout 300 -e task-clock -x, -o "$T/o" -- sleep 5
check_eq "--timeout 300 on sleep 5: exit 0, as perf" 0 $?
ms=$(( ($(date +%s%N) - start) / 1000000 ))
check "--timeout 300 on sleep 5: ended after ~300 ms ($ms ms)" test "$ms" -ge 280 -a "$ms" -lt 2000
check "--timeout: the counts printed" grep -qE '^[0-9.]+,msec,task-clock,' "$T/o"
"$PMUKIT" stat -a --timeout 300 -e cpu-clock -j -o "$T/o"
check_eq "-a --timeout 300: exit 0" 0 $?
check "-a --timeout 300: counted about 300 ms" py '
import json,sys
d=json.load(open(sys.argv[1])); assert 0.25e9 < d["elapsed_ns"] < 1.5e9, d["elapsed_ns"]
assert d["counters"][0]["value"] > 0, d' "$T/o"
"$PMUKIT" stat --timeout 5 -e task-clock -- true 2>/dev/null
check_eq "--timeout 5: usage error (perf's floor is 10 ms)" 2 $?
"$PMUKIT" stat --timeout 100 -I 100 -e task-clock -- true 2>/dev/null
check_eq "--timeout with -I: usage error, as in perf" 2 $?
# -D MS (perf): count from MS after the command starts.
# The command faults in its pages at once, then sleeps: not counted after -D 300.
"$PMUKIT" stat -D 300 -e page-faults,duration_time -j -o "$T/o" -- sh -c "$TP $PAGES; sleep 0.6"
check "-D 300: the faults of the first ms not counted, ~300 ms less time" py '
import json,sys
c={x["event"]: x["value"] for x in json.load(open(sys.argv[1]))["counters"]}
# 0.3 s of the 0.6 s sleep, plus what a loaded machine adds (seen: 0.66 s)
assert c["page-faults"] < int(sys.argv[2]) / 2 and 0.2e9 < c["duration_time"] < 0.9e9, c' "$T/o" $PAGES
"$PMUKIT" stat -e page-faults -j -o "$T/o" -- sh -c "$TP $PAGES; sleep 0.1"
check "... which without -D are counted" py '
import json,sys
assert json.load(open(sys.argv[1]))["counters"][0]["value"] >= int(sys.argv[2])' "$T/o" $PAGES
"$PMUKIT" stat -D 500 -e task-clock -x, -o "$T/o" -- sh -c 'exit 2'
check_eq "-D longer than the command: its status 2" 2 $?
check "-D longer than the command: <not counted>" grep -q '^<not counted>,msec,task-clock,' "$T/o"
"$PMUKIT" stat -D -1 -e task-clock -- true 2>"$T/e"
check_eq "-D -1 (perf: enabled through --control): usage error" 2 $?
check "... which says --control is missing" grep -q -- "--control" "$T/e"
# -a -C: perf counts the CPUs of -C only.
for args in "-a -C 0" "-C 0 -a"; do
	"$PMUKIT" stat $args -A -e cpu-clock -x, --timeout 200 -o "$T/o" 2>"$T/e"
	rc=$?
	check_eq "stat $args: accepted ($(head -c 120 "$T/e"))" 0 $rc
	check "stat $args -A: CPU0 only" py '
import sys
cpus=[l.split(",")[0] for l in open(sys.argv[1]) if ",cpu-clock," in l]
assert cpus==["CPU0"], cpus' "$T/o"
done
"$PMUKIT" stat -a -p 1 -e cpu-clock -- true 2>/dev/null
check_eq "-a with -p: still one target only" 2 $?
# A late -I tick moves the grid instead of catching up: pmukit stopped for 150 ms
# printed 15 intervals microseconds apart, each <not counted>.
"$PMUKIT" stat -I 10 -x, -e task-clock -o "$T/o" -- sleep 0.6 & p=$!
sleep 0.2; kill -STOP $p; sleep 0.15; kill -CONT $p; wait $p
check "-I 10, stopped 150 ms: no burst of tiny intervals ($(cut -d, -f1 "$T/o" | tr '\n' ' '))" py '
import sys
t=[float(l.split(",")[0]) for l in open(sys.argv[1]) if ",task-clock," in l]
d=[b-a for a,b in zip(t, t[1:-1])]
assert len(t) >= 10 and min(d) > 0.003, (min(d), len(t))' "$T/o"
# ^C between the runs of -r (or while the next command is forked) prints the runs so
# far, as perf: pmukit used to die there silently (signals were caught only while a
# command ran). A shell's background job ignores SIGINT: env gives it back.
if env --default-signal=INT true 2>/dev/null; then
	lost=0
	for i in $(seq 20); do
		rm -f "$T/o"
		env --default-signal=INT "$PMUKIT" stat -e task-clock -r 100000 -o "$T/o" -- true &
		p=$!
		sleep 0.$((RANDOM % 20 + 5)); kill -INT $p; wait $p
		rc=$?
		# 130, or 0 when the signal found 'true' already ending on its own
		grep -q task-clock "$T/o" 2>/dev/null && [ $rc = 130 -o $rc = 0 ] ||
			lost=$((lost + 1))
	done
	check_eq "^C during -r 100000 -- true: the counts printed in 20 of 20 tries" 0 $lost
fi
# A command that cannot start prints no -I header (perf prints none either).
"$PMUKIT" stat -I 100 -e task-clock -o "$T/o" -- /nonexistent 2>/dev/null
check_eq "-I -- /nonexistent: exit 127" 127 $?
check "-I -- /nonexistent: nothing in the counts file ($(head -c 80 "$T/o"))" test ! -s "$T/o"
# duration_time (perf's tool event): wall-clock ns of the run, a row in every format.
"$PMUKIT" stat -e duration_time,task-clock -o "$T/o" -- sleep 0.2
check "duration_time text row: about 200 ms in ns" py '
import re,sys
m=re.search(r"([0-9,]+) +duration_time", open(sys.argv[1]).read()); v=int(m.group(1).replace(",",""))
assert 0.19e9 < v < 0.6e9, v' "$T/o"
"$PMUKIT" stat -e duration_time -x, -o "$T/o" -- sleep 0.2
check "duration_time CSV row: about 200 ms" py '
import sys
r=[l.split(",") for l in open(sys.argv[1]) if ",duration_time," in l]
assert len(r)==1 and 0.19e9 < float(r[0][0]) < 0.6e9 and r[0][1]=="ns", r' "$T/o"
"$PMUKIT" stat -e duration_time -j -o "$T/o" -- sleep 0.2 2>"$T/e"
check "duration_time JSON: counted, about 200 ms" py '
import json,sys
c=json.load(open(sys.argv[1]))["counters"][0]
assert c["event"]=="duration_time" and c["counted"] and 0.19e9 < c["value"] < 0.6e9, c
assert c["unit"]=="ns", c' "$T/o"
check "duration_time: nothing said on stderr" test ! -s "$T/e"
"$PMUKIT" stat -I 100 -e duration_time -x, -o "$T/o" -- sleep 0.25
check "duration_time with -I: each interval's length" py '
import sys
v=[float(l.split(",")[1]) for l in open(sys.argv[1]) if ",duration_time," in l]
# Under load the command may end in the 3rd or 4th interval: full ones are ~100 ms,
# the last is the rest, and together they cover the 250 ms run.
assert len(v) in (3, 4) and all(0.09e9 < x < 0.3e9 for x in v[:-1]), v
assert 0 < v[-1] < 0.2e9 and 0.24e9 < sum(v) < 0.8e9, v' "$T/o"
# The elapsed time starts before the command is released, not after it has run:
# a one-thread command's task-clock fits in it (a quick one could be over before
# pmu_command_start returned, and 'true' read 20 us elapsed, 20 CPUs utilized).
for i in 1 2 3 4 5 6 7 8; do
	"$PMUKIT" stat -e task-clock,duration_time -x, -o "$T/o$i" -- true
done
check "elapsed covers the command: task-clock <= duration_time in 8 runs of true" py '
import sys
for f in sys.argv[1:]:
	v={l.split(",")[2]: l.split(",") for l in open(f) if l.strip()}
	tc=float(v["task-clock"][0])*1e6; dt=float(v["duration_time"][0])
	assert tc <= dt, (f, tc, dt)' "$T"/o[1-8]
# -p A,B (perf): the processes counted as one, until the last ends.
# spins until it has used $1 s of CPU (whatever the load of a parallel test run)
spin() { exec python3 -c "import time
while time.process_time() < $1: pass"; }
(spin 0.6) & a=$!
(spin 0.9) & b=$!
sleep 0.1
"$PMUKIT" stat -p $a,$b -e task-clock -j -o "$T/o"
check_eq "-p A,B: exit 0" 0 $?
wait
check "-p A,B: both counted (more CPU time than either alone), until the last ended" py '
import json,sys
d=json.load(open(sys.argv[1]))
assert d["pids"]==[int(sys.argv[2]), int(sys.argv[3])], d.get("pids")
assert d["counters"][0]["value"] > 1.0e9 and d["elapsed_ns"] > 0.7e9, d' "$T/o" $a $b
(spin 0.2) & a=$!
sleep 0.05
"$PMUKIT" stat -p $a,$a -e task-clock -o "$T/o" 2>"$T/e"; wait
check "-p A,A: the header names both, as perf" grep -q "process id '$a,$a'" "$T/o"
"$PMUKIT" stat -p 1, -e task-clock 2>"$T/e"
check_eq "-p '1,': usage error" 2 $?

# Elapsed time of a command as short as true: from its release, not from when the
# loop got round to it (it read 10 us once -D moved the clock start: 36 CPUs utilized).
for i in 1 2 3; do "$PMUKIT" stat -e task-clock -j -o "$T/o$i" -- true; done
check "a short command: task-clock is not more than its elapsed time" py '
import json,sys
for f in sys.argv[1:]:
    d=json.load(open(f))
    assert d["counters"][0]["value"] <= d["elapsed_ns"] * 1.05, (f, d["counters"][0]["value"], d["elapsed_ns"])' "$T/o1" "$T/o2" "$T/o3"

finish
