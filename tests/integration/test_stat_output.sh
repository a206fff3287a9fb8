#!/bin/bash
# pmukit stat output, as a perf user meets it in the first hour (issue 8): counts on
# stderr, -e adding up, one output format, perf's aggregation modes (--per-core,
# --per-socket, --no-aggr, --per-thread) shaped as perf stat 6.1 shapes them, and
# per-CPU rows averaged over -r runs (this case runs under ASan in make check-asan).
set -u
. "$(dirname "$0")/lib.sh"

TP="$BUILDDIR/touch_pages"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ncpu=$(py "
s=open('/sys/devices/system/cpu/online').read().strip(); n=0
for part in s.split(','):
    a,_,b=part.partition('-'); n+=int(b or a)-int(a)+1
print(n)")
# perf stat -a works here: then its output is the reference for row sets and layout.
perf_a=0
if command -v perf >/dev/null && perf stat -a -e cpu-clock -x, -- true >/dev/null 2>&1; then
	perf_a=1
else
	echo "# perf stat -a unusable here: row sets are checked against sysfs only"
fi
cpu_wide=1
"$PMUKIT" stat -a -e cpu-clock -o /dev/null -- true 2>/dev/null || cpu_wide=0

# 1. Per-CPU rows over -r runs: each CPU's mean and spread, no garbage (the rows once
# indexed a mean array of one row set: a heap overflow).
if [ $cpu_wide = 1 ]; then
	"$PMUKIT" stat -x, -a -A -r 3 -e cpu-clock,page-faults -- sleep 0.05 2>$tmp/rA >/dev/null
	check_eq "-a -A -r 3 exits 0" 0 $?
	check "-a -A -r 3: a cpu-clock and a page-faults row per CPU, sane means and spreads ($(head -c 300 $tmp/rA))" py '
import re, sys
rows = [l.split(",") for l in open(sys.argv[1]).read().splitlines() if l]
online = open("/sys/devices/system/cpu/online").read().strip()
cpus = []
for part in online.split(","):
    a, _, b = part.partition("-"); cpus += range(int(a), int(b or a) + 1)
assert [r[0] for r in rows] == ["CPU%d" % c for c in cpus for _ in (0, 1)], rows
for r in rows:
    # CPU,value,unit,event,spread%,run_time,percent,metric,metric unit
    assert len(r) == 9 and re.fullmatch(r"\d+\.\d\d%", r[4]), r
    assert 0 < int(r[5]) < 10e9, r                 # run time in ns of a ~50 ms run
    if r[3] == "cpu-clock":
        assert 30 < float(r[1]) < 2000, r          # ms: each CPU is clocked the whole run
    else:
        assert r[3] == "page-faults" and 0 <= float(r[1]) < 1e7, r
' $tmp/rA
	"$PMUKIT" stat -j -a -A -r 2 -e cpu-clock -- sleep 0.05 2>$tmp/rAj >/dev/null
	check "-a -A -r 2 --json: each CPU row has its own spread" py '
import json, sys
d = json.load(open(sys.argv[1]))
c = d["counters"]
assert d["runs"] == 2 and len(c) == int(sys.argv[2]), c
assert all("stddev_percent" in x and x["value"] > 3e7 for x in c), c
' $tmp/rAj "$ncpu"
else
	echo "# CPU-wide counting refused here: the per-CPU -r case cannot run"
fi

# 2. Counts on stderr: the command's stdout is its own, as with perf stat.
out=$("$PMUKIT" stat -j -e task-clock -- echo hi 2>$tmp/err)
check_eq "the command's stdout is untouched" "hi" "$out"
check "the JSON counts are on stderr" py 'import json,sys; d=json.load(open(sys.argv[1])); assert d["counters"][0]["event"]=="task-clock"' $tmp/err
if command -v perf >/dev/null && perf stat -e task-clock -- true >/dev/null 2>&1; then
	check_eq "perf stat leaves stdout to the command too" "hi" "$(perf stat -e task-clock -- echo hi 2>/dev/null)"
fi
# A reader that stops early: the command gets SIGPIPE, pmukit still prints and passes it on.
# (ctest may start us with SIGPIPE ignored, which the command would inherit: a shell
# with the default disposition runs the pipeline, as at a terminal.)
first=$(python3 -c 'import os, signal, sys; signal.signal(signal.SIGPIPE, signal.SIG_DFL); os.execvp("bash", ["bash", "-c", sys.argv[1]])' \
	"\"$PMUKIT\" stat -e task-clock -- seq 1 1000000 2>$tmp/err | head -1; echo \${PIPESTATUS[0]} >$tmp/st")
st=$(cat $tmp/st)
check_eq "seq | head -1: the command's first line" "1" "$first"
check_eq "seq | head -1: death by SIGPIPE passed through (128+13)" 141 "$st"
check "seq | head -1: the counts still printed ($(head -c 200 $tmp/err))" grep -q 'msec task-clock' $tmp/err
"$PMUKIT" stat -e task-clock -- sh -c 'echo out; exit 3' >$tmp/out 2>$tmp/err
check_eq "exit status 3 with counts on stderr" 3 $?
check_eq "stdout holds only the command's line" "out" "$(cat $tmp/out)"
# A write that fails is an error, not a silent success.
"$PMUKIT" stat -e task-clock -o /dev/full -- true 2>$tmp/err
check_eq "-o /dev/full exits 1" 1 $?
check "-o /dev/full says so ($(cat $tmp/err))" grep -q "pmukit stat: writing the counts to /dev/full failed: No space left" $tmp/err
"$PMUKIT" stat -e task-clock -- sh -c 'exit 0' 2>&-
check_eq "closed stderr: the counts could not be written, exit 1" 1 $?
# stderr closed and -o FILE: the command's stderr is not the counts file (fopen took
# the free descriptor 2 and the command inherited it as its stderr)
# (the line is made by the command: its text is in the header too)
"$PMUKIT" stat -o $tmp/o.txt -e task-clock -- sh -c 'echo from-the-$((6 * 7)) >&2' 2>&-
check "closed stderr, -o FILE: the command's stderr is not in FILE ($(head -c 100 $tmp/o.txt))" \
	sh -c "! grep -q from-the-42 $tmp/o.txt && grep -q 'msec task-clock' $tmp/o.txt"
# stderr a pipe whose reader is gone when the counts come: EPIPE, said by the exit status.
( "$PMUKIT" stat -e task-clock -- sleep 0.3 2>&1 >/dev/null; echo $? >$tmp/st ) | true
check_eq "stderr to a closed pipe: exit 1, not death by SIGPIPE" 1 "$(cat $tmp/st)"

# 3. A second -e adds to the first, as in perf stat.
"$PMUKIT" stat -x, -e task-clock -e page-faults -- "$TP" 100 2>$tmp/err >/dev/null
check_eq "-e task-clock -e page-faults: both counted" "task-clock page-faults" \
	"$(cut -d, -f3 $tmp/err | tr '\n' ' ' | sed 's/ $//')"
"$PMUKIT" stat -x, -e '{task-clock,page-faults}' -e context-switches -- true 2>$tmp/err >/dev/null
check_eq "a group and an event in two -e" 3 "$(grep -c , $tmp/err)"

# 4. One output format; CSV metrics with perf's 3 decimals; getopt errors name the verb.
for pair in "--json --csv" "--csv --json" "-x, --json" "--json -x;" "--csv -x;"; do
	# shellcheck disable=SC2086
	"$PMUKIT" stat $pair -e task-clock -- true >/dev/null 2>$tmp/err
	check_eq "$pair refused (usage 2)" 2 $?
	check "$pair: said why ($(cat $tmp/err))" grep -q "both choose the output format" $tmp/err
done
"$PMUKIT" stat -x, -e task-clock -- "$TP" 100 2>$tmp/err >/dev/null
check "CSV metric with 3 decimals, as perf ($(cat $tmp/err))" \
	awk -F, '$3=="task-clock" && $6 ~ /^[0-9]+\.[0-9][0-9][0-9]$/ && $7=="CPUs utilized" {ok=1} END {exit !ok}' $tmp/err
if command -v perf >/dev/null && perf stat -e task-clock -- true >/dev/null 2>&1; then
	theirs=$(perf stat -x, -e task-clock -- true 2>&1 >/dev/null | awk -F, '{print NF}')
	check_eq "CSV field count as perf's" "$theirs" "$(awk -F, '{print NF}' $tmp/err)"
fi
"$PMUKIT" stat --bogus -- true >/dev/null 2>$tmp/err
check_eq "unknown long option -> 2" 2 $?
check "unknown long option named by 'pmukit stat:' ($(head -1 $tmp/err))" grep -qx "pmukit stat: unknown option '--bogus'" $tmp/err
"$PMUKIT" stat --per -a -- true >/dev/null 2>$tmp/err
check_eq "ambiguous long option -> 2" 2 $?
check "ambiguous long option named as such, with its candidates ($(head -1 $tmp/err))" grep -qx \
	"pmukit stat: option '--per' is ambiguous; it could be --per-cpu --per-core --per-socket --per-thread --per-node" $tmp/err
"$PMUKIT" stat -Z -- true >/dev/null 2>$tmp/err
check "unknown short option ($(head -1 $tmp/err))" grep -qx "pmukit stat: unknown option '-Z'" $tmp/err
"$PMUKIT" stat -e 2>$tmp/err >/dev/null
check "missing argument ($(head -1 $tmp/err))" grep -qx "pmukit stat: option '-e' needs an argument" $tmp/err
"$PMUKIT" stat --event 2>$tmp/err >/dev/null
check "missing argument of a long option ($(head -1 $tmp/err))" grep -qx "pmukit stat: option '--event' needs an argument" $tmp/err
check "no getopt message without the verb" sh -c "! grep -q '^pmukit: ' $tmp/err"

# 5. --per-core, --per-socket, --no-aggr: the row sets and CSV layout of perf stat.
# The expected labels from sysfs: S<package>-D<die>-C<core>, S<package>, CPU<n>.
expect_rows() {
	py '
import glob, os, sys, collections
mode = sys.argv[1]
online = open("/sys/devices/system/cpu/online").read().strip()
cpus = []
for part in online.split(","):
    a, _, b = part.partition("-"); cpus += range(int(a), int(b or a) + 1)
def rd(c, f, d=0):
    p = "/sys/devices/system/cpu/cpu%d/topology/%s" % (c, f)
    return int(open(p).read()) if os.path.exists(p) else d
cnt = collections.Counter()
for c in cpus:
    s, d, k = rd(c, "physical_package_id"), rd(c, "die_id"), rd(c, "core_id")
    if mode == "core": cnt[(s, d, k)] += 1
    elif mode == "socket": cnt[(s,)] += 1
    else: cnt[(c,)] += 1
for key in sorted(cnt):
    if mode == "core": print("S%d-D%d-C%d,%d" % (key + (cnt[key],)))
    elif mode == "socket": print("S%d,%d" % (key[0], cnt[key]))
    else: print("CPU%d" % key[0])
' "$1"
}
if [ $cpu_wide = 1 ]; then
	for mode in core socket no-aggr; do
		opt=--per-$mode; [ $mode = no-aggr ] && opt=--no-aggr
		nf=2; [ $mode = no-aggr ] && nf=1
		"$PMUKIT" stat -x, $opt -a -e cpu-clock -- sleep 0.1 2>$tmp/ours >/dev/null
		check_eq "$opt -a exits 0" 0 $?
		ours=$(cut -d, -f1-$nf $tmp/ours)
		check_eq "$opt rows as the topology has them" "$(expect_rows ${mode%-aggr})" "$ours"
		check "$opt: each row counted ($(head -c 200 $tmp/ours))" \
			awk -F, -v nf=$nf '$(nf+1) <= 0 || $(nf+3) != "cpu-clock" {bad=1} END {exit bad}' $tmp/ours
		if [ $perf_a = 1 ]; then
			perf stat -x, $opt -a -e cpu-clock -- sleep 0.1 2>$tmp/perf >/dev/null
			check_eq "$opt: perf stat's row labels" "$(cut -d, -f1-$nf $tmp/perf)" "$ours"
			check_eq "$opt: perf stat's CSV field count" \
				"$(awk -F, '{print NF}' $tmp/perf | sort -u)" "$(awk -F, '{print NF}' $tmp/ours | sort -u)"
			check_eq "$opt: perf stat's units, events and metric units" \
				"$(cut -d, -f$((nf+2)),$((nf+3)),$((nf+7)) $tmp/perf)" \
				"$(cut -d, -f$((nf+2)),$((nf+3)),$((nf+7)) $tmp/ours)"
			# text: the same row prefix ("S0-D0-C0           1 ", "S0        2 ", "CPU0")
			perf stat $opt -a -e cpu-clock -- sleep 0.1 2>&1 >/dev/null | grep cpu-clock \
				| sed -E 's/^(.*[^ ]) +[0-9.]+ msec.*/\1/' >$tmp/perf_text
			"$PMUKIT" stat $opt -a -e cpu-clock -- sleep 0.1 2>&1 >/dev/null | grep cpu-clock \
				| sed -E 's/^(.*[^ ]) +[0-9.]+ msec.*/\1/' >$tmp/our_text
			check_eq "$opt: perf stat's text row labels" "$(cat $tmp/perf_text)" "$(cat $tmp/our_text)"
		fi
	done
	check_eq "-a -- CMD: 'system wide', as perf says" " Performance counter stats for 'system wide':" \
		"$("$PMUKIT" stat --per-socket -a -e cpu-clock -- true 2>&1 >/dev/null | grep 'counter stats')"
	# -C as typed, and -a -C is still the system wide run (perf 6.1's headings)
	for opts in "-C 0" "-a -C 0" "-C 0 -a"; do
		# shellcheck disable=SC2086
		ours=$("$PMUKIT" stat $opts -e cpu-clock -- true 2>&1 >/dev/null | grep 'counter stats')
		want=" Performance counter stats for 'CPU(s) 0':"
		[ "$opts" != "-C 0" ] && want=" Performance counter stats for 'system wide':"
		if [ $perf_a = 1 ]; then
			# shellcheck disable=SC2086
			want=$(perf stat $opts -e cpu-clock -- true 2>&1 >/dev/null | grep 'counter stats')
		fi
		check_eq "$opts: headed as perf heads it" "$want" "$ours"
	done
	# JSON rows name their socket as perf -j does, and sum every online CPU.
	"$PMUKIT" stat -j --per-socket -a -e cpu-clock,page-faults -- sleep 0.1 2>$tmp/j >/dev/null
	check "--per-socket --json: perf's \"socket\" key, the CPUs summed, a value each" py '
import json, sys
d = json.load(open(sys.argv[1]))
c = d["counters"]
assert len(c) >= 2 and all(x["socket"].startswith("S") and x["cpus"] >= 1 for x in c), c
assert sum(x["cpus"] for x in c if x["event"] == "cpu-clock") == int(sys.argv[2]), c
assert all(x["value"] is not None and x["value"] > 0 for x in c), c
' $tmp/j "$ncpu"
	# The rows count over the measured time: no more CPUs utilized than a socket has
	# (reading the topology once counted too, ~3% on a 50 ms run: 2.06 of 2 CPUs).
	# The best of three runs, against a busy host.
	for k in 1 2 3; do
		"$PMUKIT" stat -x, --per-socket -a -e cpu-clock -- sleep 0.05 2>>$tmp/util >/dev/null
	done
	check "--per-socket: at most 1% more CPUs utilized than the socket has ($(tr '\n' ' ' <$tmp/util))" py '
import sys
rows = [l.split(",") for l in open(sys.argv[1]).read().splitlines() if l]
assert len(rows) % 3 == 0 and rows, rows
ratio = [float(r[7]) / int(r[1]) for r in rows if r[4] == "cpu-clock"]
assert min(ratio) <= 1.01, ratio
' $tmp/util
	"$PMUKIT" stat -j --per-core -a -r 2 -e cpu-clock -- sleep 0.05 2>$tmp/j >/dev/null
	check "--per-core -r 2 --json: a spread per core" py '
import json, sys
c = json.load(open(sys.argv[1]))["counters"]
assert c and all(x["core"].startswith("S") and "stddev_percent" in x and x["value"] > 2e7 for x in c), c
' $tmp/j
	"$PMUKIT" stat -I 100 -x, --per-core -a -e cpu-clock -- sleep 0.35 2>$tmp/iv >/dev/null
	check "--per-core -I 100: a row per core per interval ($(wc -l <$tmp/iv) lines)" \
		test "$(wc -l <$tmp/iv)" -ge "$(( 2 * $(expect_rows core | wc -l) ))"
else
	echo "# CPU-wide counting refused here: --per-core/--per-socket/--no-aggr not run"
fi
"$PMUKIT" stat --per-core -e task-clock -- true 2>$tmp/err
check_eq "--per-core without -a/-C: usage 2" 2 $?
check "... said why ($(cat $tmp/err))" grep -q -- "--per-core needs -a or -C" $tmp/err
"$PMUKIT" stat --per-core --per-socket -a -e cpu-clock -- true 2>$tmp/err
check_eq "two aggregation modes: usage 2" 2 $?
"$PMUKIT" stat -A --no-aggr -a -e cpu-clock -o /dev/null -- true 2>/dev/null
check_eq "-A and --no-aggr are one mode" $((1 - cpu_wide)) $?

# 6. --per-thread with -p: a row per thread with its comm and tid, as perf stat.
cat >$tmp/threads.py <<'EOF'
import ctypes, os, sys, threading, time
libc = ctypes.CDLL(None)
def work(name, ready):
    libc.prctl(15, name.encode(), 0, 0, 0)       # PR_SET_NAME: the comm perf shows
    ready.release()
    end = time.time() + 10                        # or until the test says stop
    while time.time() < end and not os.path.exists(sys.argv[2]):
        for _ in range(10000):
            pass
ready = threading.Semaphore(0)
ts = [threading.Thread(target=work, args=(n, ready)) for n in ("spin_a", "spin_b")]
for t in ts: t.start()
for t in ts: ready.acquire()
open(sys.argv[1], "w").write("ready")
for t in ts: t.join()
EOF
attach_threads() {
	rm -f $tmp/ready $tmp/stop
	python3 $tmp/threads.py $tmp/ready $tmp/stop & tpid=$!
	for _ in $(seq 100); do [ -s $tmp/ready ] && break; sleep 0.05; done
	tasks=$(ls /proc/$tpid/task | sort -n | tr '\n' ' ')
}
# Runs "$@" (a stat attached to $tpid) and stops the spinners 0.3 s after it holds its
# counters: spinning a fixed 0.8 s raced a slow start (ASan on a busy host). Returns
# the status of "$@", the spinners reaped.
attached() {
	local spid rc
	"$@" & spid=$!
	for _ in $(seq 200); do
		ls -l /proc/$spid/fd 2>/dev/null | grep -q perf_event && break
		sleep 0.05
	done
	sleep 0.3
	: >$tmp/stop
	wait $spid; rc=$?
	wait $tpid
	return $rc
}
attach_threads
attached "$PMUKIT" stat -x, --per-thread -p $tpid -e task-clock 2>$tmp/pt >/dev/null
check_eq "--per-thread -p exits 0" 0 $?
check "--per-thread: one row per thread at attach, comm-tid, spinners counted ($(tr '\n' ' ' <$tmp/pt))" py '
import sys
rows = [l.split(",") for l in open(sys.argv[1]).read().splitlines() if l]
tids = sys.argv[2].split()
got = {r[0].rsplit("-", 1)[1]: r for r in rows}
assert sorted(got) == sorted(tids), (tids, rows)
comms = sorted(r[0].rsplit("-", 1)[0] for r in rows)
assert "spin_a" in comms and "spin_b" in comms, comms
for r in rows:
    assert r[3] == "task-clock" and len(r) == 8, r   # perf: comm-tid,value,unit,event,...
    if r[0].startswith("spin_"):
        assert float(r[1]) > 1, r                    # ms spun while attached: counted
                                                     # (19 ms of 300 on a loaded host)
' $tmp/pt "$tasks"
if command -v perf >/dev/null && perf stat -e task-clock -- true >/dev/null 2>&1; then
	attach_threads
	attached perf stat -x, --per-thread -p $tpid -e task-clock 2>$tmp/perf >/dev/null
	check_eq "--per-thread: perf's CSV field count" \
		"$(awk -F, '{print NF}' $tmp/perf | sort -u)" "$(awk -F, '{print NF}' $tmp/pt | sort -u)"
	check_eq "--per-thread: perf's comm column" \
		"$(cut -d, -f1 $tmp/perf | sed 's/-[0-9]*$//' | sort)" "$(cut -d, -f1 $tmp/pt | sed 's/-[0-9]*$//' | sort)"
fi
attach_threads
attached "$PMUKIT" stat -j --per-thread -p $tpid -e task-clock,page-faults 2>$tmp/pj >/dev/null
check "--per-thread --json: thread, tid and comm per counter; threads sum to more than 2 ms ($(head -c 200 $tmp/pj))" py '
import json, sys
c = json.load(open(sys.argv[1]))["counters"]
tc = [x for x in c if x["event"] == "task-clock"]
assert len(tc) == len(sys.argv[2].split()) and len(c) == 2 * len(tc), c
assert all(x["thread"] == "%s-%d" % (x["comm"], x["tid"]) for x in c), c
assert sum(x["value"] or 0 for x in tc) > 2e6, tc   # ns: counted, on a loaded host too
' $tmp/pj "$tasks"
attach_threads
attached "$PMUKIT" stat --per-thread -p $tpid -e task-clock 2>$tmp/ptt >/dev/null
check "--per-thread text: perf's '%16s-%-8d' thread column ($(head -c 300 $tmp/ptt))" \
	grep -qE '^ {10}spin_a-[0-9]+ +[0-9.]+ msec task-clock' $tmp/ptt
"$PMUKIT" stat --per-thread -e task-clock -- true 2>$tmp/err
check_eq "--per-thread with a command: usage 2 (perf refuses it too)" 2 $?
check "... said why ($(cat $tmp/err))" grep -q -- "--per-thread needs -p or -t" $tmp/err

finish
