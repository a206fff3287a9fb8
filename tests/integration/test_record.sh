#!/bin/bash
# pmukit record: option errors (every OS), then on Linux real recordings of this
# machine, each read back by Debian's perf (6.1): report and script succeed without
# a word about the file, the header shows what we wrote, sample counts agree.
set -u
. "$(dirname "$0")/lib.sh"

out=$(mktemp -d)
trap 'kill $bg 2>/dev/null; rm -rf "$out"' EXIT
bg=
for opt in -F -c; do
	for bad in -5 " 5" 5x 0 0x10 99999999999999999999999; do
		"$PMUKIT" record -o "$out/r.etl" $opt "$bad" -- true >/dev/null 2>"$out/err"
		check "record $opt '$bad': usage error naming it" \
			test $? -eq 2 -a -n "$(grep -- "$opt needs a number above 0, not '$bad'" "$out/err")"
	done
	"$PMUKIT" record -o "$out/r.etl" $opt 100 -- true >/dev/null 2>"$out/err"
	check "record $opt 100: accepted (no usage error)" test $? -ne 2
done
usage_err() { # what, expected text, args...
	local what=$1 text=$2
	shift 2
	"$PMUKIT" record "$@" >/dev/null 2>"$out/err"
	check "$what: exit 2 saying '$text'" test $? -eq 2 -a -n "$(grep -F -- "$text" "$out/err")"
}
usage_err "-m 3" "power of two" -m 3 -o "$out/x" -- true
usage_err "--call-graph lbr" "fp or dwarf" --call-graph lbr -o "$out/x" -- true
usage_err "--call-graph dwarf,7" "multiple of 8" --call-graph dwarf,7 -o "$out/x" -- true
usage_err "-F with -c" "exclude each other" -F 10 -c 10 -o "$out/x" -- true
usage_err "-p 0" "process or thread ids" -p 0 -o "$out/x"
usage_err "-C x" "CPU list" -C x -o "$out/x" -- true
usage_err "no command, no target" "nothing to record" -o "$out/x"
usage_err "unknown option" "unknown option" --bogus -- true
# the command without '--', as perf and pmukit stat take it
"$PMUKIT" record -e cpu-clock -o "$out/nodash.data" true 2>"$out/err"
check "a command without '--': recorded, exit 0" test $? -eq 0 -a -s "$out/nodash.data"
"$PMUKIT" record --help >"$out/help" 2>"$out/err"
check "--help: usage on stdout, exit 0, nothing on stderr" \
	test $? -eq 0 -a ! -s "$out/err" -a -n "$(grep '^usage: pmukit record' "$out/help")"

[ "$(uname -s)" = Linux ] || { finish; exit; }
command -v perf >/dev/null || { echo "SKIP: no perf (Debian linux-perf) to read the files back"; finish; exit; }
# perf 6.1 aborts now and then when other perf processes run beside it
# ("stack smashing detected", an assertion; see test_perf_read.sh): a perf
# killed by a signal is run again, up to three times, and only the output of
# the run that ended is passed on. A perf that exits with an error is not.
exec 3>&1
perf() {
	local i rc o e
	o=$(mktemp) e=$(mktemp)
	for i in 1 2 3; do
		command perf "$@" >"$o" 2>"$e"
		rc=$?
		[ $rc -lt 128 ] && break
		echo "# perf $1 killed by signal $((rc - 128)) (try $i): $(tail -1 "$e")" >&3
	done
	cat "$o"
	cat "$e" >&2
	rm -f "$o" "$e"
	return $rc
}
W=$WORKLOAD_DIR/touch_pages
cd "$out"

# perf reads F: report and script succeed, and say nothing on stderr about the file
perf_reads() { # name, file, extra report args...
	local name=$1 f=$2
	shift 2
	perf report -i "$f" --stdio "$@" >"$f.report" 2>"$f.rerr"
	check "$name: perf report reads it" test $? -eq 0
	check "$name: perf report prints no warning" test ! -s "$f.rerr"
	[ -s "$f.rerr" ] && head -5 "$f.rerr"
	perf script -i "$f" >"$f.script" 2>"$f.serr"
	check "$name: perf script reads it" test $? -eq 0
	check "$name: perf script prints no warning" test ! -s "$f.serr"
	[ -s "$f.serr" ] && head -5 "$f.serr"
}
# "wrote F: N samples" from pmukit == the samples perf script lists
same_count() { # name, file, pmukit stderr
	local said got
	said=$(sed -n 's/.*wrote .*: \([0-9]*\) samples.*/\1/p' "$3")
	got=$(perf script -i "$2" -G -F time 2>/dev/null | grep -c .)
	check_eq "$1: perf script lists the $said samples pmukit wrote" "$said" "$got"
	check "$1: some samples" test "${said:-0}" -gt 0
}

# 1. cpu-clock -g of a workload; the header; exit status; perf.data.old
echo old >perf.data
"$PMUKIT" record -e cpu-clock -F 999 -g -- "$W" 200 -s 300 -x 7 2>rec.err
check_eq "exit status of the command passes through" 7 $?
check "an existing perf.data became perf.data.old" grep -qx old perf.data.old
perf_reads "cpu-clock -g" perf.data --no-children --sort comm,dso,sym
same_count "cpu-clock -g" perf.data rec.err
check "report names the workload's own function" grep -q "touch_pages.*spin\|touch_pages.*touch\|touch_pages" perf.data.report
perf report -i perf.data --header-only >hdr 2>&1
check "header: hostname" grep -qx "# hostname : $(uname -n)" hdr
check "header: os release" grep -qx "# os release : $(uname -r)" hdr
check "header: nrcpus online" grep -qx "# nrcpus online : $(getconf _NPROCESSORS_ONLN)" hdr
check "header: cmdline" grep -q "^# cmdline : .*pmukit record -e cpu-clock -F 999 -g -- .*touch_pages 200" hdr
check "header: event name" grep -q "^# event : name = cpu-clock," hdr
check "header: sample times" grep -q "^# time of first sample" hdr
check "header: build-id of the workload" grep -q "touch_pages" <(perf buildid-list -i perf.data 2>/dev/null)
check "a call graph in the report" grep -q -- "---" perf.data.report

# 2. page-faults -d: real data addresses
"$PMUKIT" record -e page-faults -c 1 -d -o pf.data -- "$W" 500 2>pf.err
perf_reads "page-faults -d" pf.data
same_count "page-faults -d" pf.data pf.err
naddr=$(perf script -i pf.data -F addr 2>/dev/null | awk '$1 != "0" && $1 != "" {n++} END {print n+0}')
check "page-faults -d: >= 500 samples with a data address ($naddr)" test "$naddr" -ge 500
perf report -i pf.data --header-only >pf.hdr 2>&1
for bit in ADDR DATA_SRC WEIGHT; do
	check "page-faults -d: $bit sampled" grep -q "sample_type = .*[|]$bit[|,]" pf.hdr
done

# 3. tracepoints, decoded by perf from the stored formats
"$PMUKIT" record -e sched:sched_switch,sched:sched_wakeup -o tp.data -- "$W" 10 -t 4 2>tp.err
perf_reads "tracepoints" tp.data
same_count "tracepoints" tp.data tp.err
check "tracepoints: perf script decodes sched_switch's fields" grep -q "sched:sched_switch: prev_comm=.* prev_pid=.*next_comm=" tp.data.script
check "tracepoints: header names both events" test "$(grep -c "^# event : name = sched:sched_" <(perf report -i tp.data --header-only 2>&1))" -eq 2

# 4. -p of a running process: named by the synthesized COMM and MMAPs
"$W" 1 -s 1500 & bg=$!
sleep 0.3
"$PMUKIT" record -e cpu-clock -p $bg -o p.data 2>p.err
check "-p: stops when the process exits" test $? -eq 0
perf_reads "-p" p.data --sort comm,dso
same_count "-p" p.data p.err
check "-p: samples named touch_pages (comm and dso)" grep -q "touch_pages *touch_pages" p.data.report
# -p follows what the process creates after the start (inherit, as perf): the
# child starts 1 s after pmukit holds its perf events (they are enabled once
# the process's /proc entries are written; an exec before that leaves no COMM,
# as with perf), not after a fixed delay from pmukit's own start, which a
# loaded machine can outlast
rm -f go
sh -c "while [ ! -e go ]; do sleep 0.05; done; '$W' 1 -s 500" & bg=$!
"$PMUKIT" record -e cpu-clock -p $bg -o pc.data 2>pc.err & rp=$!
for i in $(seq 100); do
	ls -l /proc/$rp/fd 2>/dev/null | grep -q perf_event && break
	sleep 0.1
done
sleep 1
touch go
wait $rp
perf_reads "-p, a child started later" pc.data --sort comm
same_count "-p, a child started later" pc.data pc.err
check "-p: the child started later is recorded" grep -q "% *touch_pages" pc.data.report
bg=

# 5. -a, stopped by SIGINT to pmukit (the file is finished)
"$PMUKIT" record -e cpu-clock -a -o a.data 2>a.err & bg=$!
sleep 1; kill -INT $bg; wait $bg
check "-a: SIGINT ends the recording, exit 0" test $? -eq 0
bg=
perf_reads "-a + SIGINT" a.data --sort comm
same_count "-a + SIGINT" a.data a.err
kbid=$(perf buildid-list -k 2>/dev/null)
if [ -n "$kbid" ] && grep -q "\[k\]" <(perf report -i a.data --stdio --sort dso,sym 2>/dev/null); then
	check "-a: the kernel's build-id is stored" grep -qx "$kbid \[kernel.kallsyms\]" <(perf buildid-list -i a.data 2>/dev/null)
	check "-a: kernel samples are named" grep -q "\[kernel.kallsyms\] *\[k\] [a-z_]" <(perf report -i a.data --stdio --sort dso,sym 2>/dev/null)
fi

# -C 0 and -t: only that CPU, only that thread
"$PMUKIT" record -e cpu-clock -C 0 -o c.data -- "$W" 1 -s 300 2>c.err
perf_reads "-C 0" c.data
check_eq "-C 0: every sample on CPU 0" "[000]" "$(perf script -i c.data -F cpu 2>/dev/null | sort -u | tr -d ' ')"
"$W" 1 -s 1000 & bg=$!
sleep 0.2
"$PMUKIT" record -e cpu-clock -t $bg -o t.data 2>t.err
perf_reads "-t" t.data
same_count "-t" t.data t.err
check_eq "-t: every sample of that thread" "$bg" "$(perf script -i t.data -F tid 2>/dev/null | sort -u | tr -d ' ')"
wait $bg
bg=

# 6. --switch-events and -m
"$PMUKIT" record -e cpu-clock --switch-events -m 4 -o sw.data -- "$W" 10 -t 2 -s 100 2>sw.err
perf_reads "--switch-events -m 4" sw.data
check "--switch-events: perf shows PERF_RECORD_SWITCH" grep -q PERF_RECORD_SWITCH <(perf script -i sw.data --show-switch-events 2>/dev/null)

# 7. --call-graph dwarf of a program without frame pointers
cat >fp.c <<'EOF'
#include <stdlib.h>
#include <time.h>
__attribute__((noinline)) static double leaf(double x, long n)
{
	for (long i = 0; i < n; i++)
		x = x * 1.0000001 + 1e-9;
	return x;
}
__attribute__((noinline)) static double middle(long n) { return leaf(1, n) + 1; }
/* no argument: 200M steps; SECONDS: steps of 1M for that long (a volatile
 * count, so the calls are not merged into one) */
int main(int argc, char **argv)
{
	volatile long n = 1000000;
	time_t end = argc > 1 ? time(NULL) + atol(argv[1]) : 0;
	double s = 0;

	if (argc < 2)
		return middle(200000000L) > 0 ? 0 : 1;
	while (time(NULL) < end)
		s += middle(n);
	return s > 0 ? 0 : 1;
}
EOF
if cc -O2 -g -fomit-frame-pointer -o nofp fp.c 2>/dev/null; then
	"$PMUKIT" record -e cpu-clock --call-graph dwarf -o dw.data -- ./nofp 2>dw.err
	perf_reads "--call-graph dwarf" dw.data --no-children
	same_count "--call-graph dwarf" dw.data dw.err
	check "dwarf: REGS_USER and STACK_USER sampled" \
		grep -q "sample_type = .*REGS_USER|STACK_USER" <(perf report -i dw.data --header-only 2>&1)
	# perf unwinds the copied stacks: leaf's callers middle and main appear
	stacks=$(perf script -i dw.data -F ip,sym 2>/dev/null | awk '/leaf/ {l=1; next} l && /middle/ {m=1; next} m && /main/ {n++} /^$/ {l=m=0} END {print n+0}')
	check "dwarf: leaf <- middle <- main unwound ($stacks samples)" test "$stacks" -gt 10
	# -p of a process already running: its mappings are synthesized from /proc,
	# the read-only ones (.eh_frame_hdr) too, so perf unwinds past the leaf
	./nofp 3 & bg=$!
	sleep 0.5
	"$PMUKIT" record -e cpu-clock --call-graph dwarf -p $bg -o dwp.data 2>dwp.err
	bg=
	perf_reads "--call-graph dwarf -p" dwp.data --no-children
	check "dwarf -p: data mappings synthesized (MMAP_DATA of nofp)" \
		grep -q "PERF_RECORD_MMAP2 .* r--p .*/nofp" <(perf script -i dwp.data --show-mmap-events 2>/dev/null)
	stacks=$(perf script -i dwp.data -F ip,sym 2>/dev/null | awk '/leaf/ {l=1; next} l && /middle/ {m=1; next} m && /main/ {n++} /^$/ {l=m=0} END {print n+0}')
	check "dwarf -p: leaf <- middle <- main unwound ($stacks samples)" test "$stacks" -gt 10
else
	echo "SKIP (part): no C compiler for the dwarf test"
fi

# 8. Ctrl-C while a command runs: the command gets SIGTERM (as perf does), the file is whole
"$PMUKIT" record -e cpu-clock -o int.data -- "$W" 1 -s 5000 2>int.err & bg=$!
sleep 1; kill -INT $bg; wait $bg
check_eq "SIGINT during a command: its status (SIGTERM) passes through" 143 $?
bg=
perf_reads "SIGINT during a command" int.data
same_count "SIGINT during a command" int.data int.err

# 9. lost samples: a one-page ring against 100000 page faults
"$PMUKIT" record -e page-faults -c 1 -m 1 -o lost.data -- "$W" 100000 2>lost.err
check "-m 1: recorded" test $? -eq 0
said=$(sed -n 's/.*: \([0-9]*\) samples lost at full ring buffers.*/\1/p' lost.err)
if [ -n "$said" ]; then
	check "lost samples: the fix is named (-m, -F, mlock limit)" \
		grep -q -- "-m 2 or more.*lower -F.*perf_event_mlock_kb" lost.err
	got=$(perf report -i lost.data --stdio 2>/dev/null | sed -n 's/^# Total Lost Samples: //p')
	check_eq "lost samples: perf counts the $said samples pmukit said were lost" "$said" "$got"
	# outputs without a loss header say it on stderr, as perf script does
	"$PMUKIT" script -i lost.data >/dev/null 2>lost.script
	check "lost samples: pmukit script warns of the $said" \
		grep -q "warning: lost.data: $said samples (LOST_SAMPLES) .* lost while recording" lost.script
	for fmt in collapsed svg perf-script; do
		"$PMUKIT" report -i lost.data --format $fmt -o lost.$fmt 2>lost.$fmt.err
		check "lost samples: report --format $fmt warns of the $said" \
			grep -q "warning: lost.data: $said samples (LOST_SAMPLES)" lost.$fmt.err
	done
else
	echo "# no sample was lost this time: the loss report is not exercised"
fi
same_count "-m 1" lost.data lost.err

# 10. -b without a branch-stack PMU: the reason
if ! ls /sys/bus/event_source/devices/*/caps/branches >/dev/null 2>&1; then
	"$PMUKIT" record -b -o b.data -- true 2>b.err
	check "-b without branch stacks: exit 1 with the reason" \
		test $? -eq 1 -a -n "$(grep "branch stacks (-b) cannot be recorded here: " b.err)"
	check "-b refused: no file left" test ! -e b.data
fi

# 11. an unprivileged user: user mode only as perf, and a ring over the mlock limit named
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null && \
   [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -ge 2 ] && \
   setpriv --reuid=nobody --regid=nogroup --clear-groups test -x "$W"; then
	nob() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }
	chmod 777 "$out"
	nob "$PMUKIT" record -e cpu-clock -o "$out/u.data" -- "$W" 10 -s 200 2>u.err
	check "nobody, paranoid 2: recorded" test $? -eq 0
	check "nobody: says it records user mode only" grep -q "recording cpu-clock:u (user mode only)" u.err
	check "nobody: the file names the event cpu-clock:u" \
		grep -q "name = cpu-clock:u," <(perf report -f -i u.data --header-only 2>&1)
	nob "$PMUKIT" record -e cpu-clock:u -m 4096 -o "$out/m.data" -- true 2>m.err
	check "nobody, a 16 MiB ring: exit 1 naming perf_event_mlock_kb and RLIMIT_MEMLOCK" \
		test $? -eq 1 -a -n "$(grep "perf_event_mlock_kb.*RLIMIT_MEMLOCK.*ulimit -l" m.err)"
else
	echo "# not root with setpriv under perf_event_paranoid >= 2: the unprivileged paths are not exercised"
fi

# 12. a command killed by a signal: 128 + the signal, as a shell says
"$PMUKIT" record -e cpu-clock -o sig.data -- sh -c 'kill -KILL $$' 2>sig.err
check_eq "a command killed by SIGKILL: exit 137" 137 $?

# a recording that cannot start leaves the previous output in place
cp sig.data keep.data
"$PMUKIT" record -e cpu-clock -p 999999999 -o keep.data 2>keep.err
check "-p of no process: exit 1" test $? -eq 1
check "-p of no process: the previous output is still there, untouched" cmp -s sig.data keep.data
check "-p of no process: no .old made" test ! -e keep.data.old

# -F max: the kernel's highest rate, as perf
"$PMUKIT" record -e cpu-clock -F max -o fmax.data -- "$W" 1 -s 100 2>fmax.err
check "-F max: recorded" test $? -eq 0
check_eq "-F max: the attr asks for perf_event_max_sample_rate" \
	"$(cat /proc/sys/kernel/perf_event_max_sample_rate)" \
	"$(perf report -i fmax.data --header-only 2>/dev/null | sed -n 's/.*sample_freq } = \([0-9]*\),.*/\1/p' | head -1)"

# an output that cannot seek fails at the start, not after the recording
"$PMUKIT" record -e cpu-clock -o /dev/stdout -- "$W" 1 -s 2000 2>pipe.err | cat >/dev/null
check "-o /dev/stdout (a pipe): exit 1 at once, saying it cannot seek" \
	test "${PIPESTATUS[0]}" -eq 1 -a -n "$(grep "cannot seek" pipe.err)" -a -z "$(grep wrote pipe.err)"
usage_err "-o -" "not to stdout" -o - -- true

# 13. a command that cannot start: the error, and no recording left half-done
"$PMUKIT" record -o nx.data -- /nonexistent/cmd 2>nx.err
check "a missing command: exit 1 with the reason" test $? -eq 1 -a -n "$(grep -i "no such\|not found\|cannot" nx.err)"
finish
