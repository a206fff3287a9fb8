#!/bin/bash
# pmukit script against Debian's perf script on files perf records here, line
# for line: cpu-clock with call chains (threads, forks), tracepoints decoded by
# name (sched_switch, sched_wakeup, system-wide), page faults with data
# addresses, pipe mode, -z, -F lists and +/- changes, --ns; and the errors.
#
# Function names are compared apart. perf names a frame "sym+0xoff (dso)";
# pmukit's names come from the symbolizer's recording mode, which may pick
# another alias of one address (memcpy/memmove, __GI_ names), demangle with
# parameters, or answer nothing ([unknown]). So the outputs are compared line
# for line with each symbol as "SYM" (comm, pid/tid, cpu, time, period, event,
# addresses as perf prints them, dso and tracepoint fields must be equal), and
# its names must agree with perf's on at least 90% of the frames both name (the
# figure is printed; the rest are aliases of one address: memcpy/memmove,
# __GI_ names), and where perf names frames pmukit must name them too.
. "$(dirname "$0")/lib.sh"

command -v perf >/dev/null || skip "perf (linux-perf) is not installed"
command -v python3 >/dev/null || skip "python3 is needed to compare the outputs"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
W="$WORKLOAD_DIR/touch_pages"
# -N: no ~/.debug cache (shared by every test running; perf asserts when two
# write it at once), which perf script does not need for files read here.
perf record -q -N -o "$tmp/probe.data" -e cpu-clock -- true 2>"$tmp/err" ||
	skip "perf record does not work here: $(head -1 "$tmp/err")"

rec() { local out=$1; shift; perf record -q -N -o "$tmp/$out" "$@" >/dev/null 2>"$tmp/rec.err" ||
	{ fail "perf record $*: $(head -2 "$tmp/rec.err")"; return 1; }; }
rec cc.data -e cpu-clock -F 999 -g -- "$W" 3000 -t 2 -s 300
rec tp.data -e sched:sched_switch,sched:sched_wakeup -a -- sleep 0.2
rec pf.data -e page-faults -c 1 -d -- "$W" 200
rec tpg.data -e sched:sched_switch -g -a -- sleep 0.1
rec mix.data -e cpu-clock,sched:sched_wakeup -a -- "$W" 500 -t 2 -s 100
rec ccz.data -z -e cpu-clock -F 999 -g -- "$W" 1000 -s 100
perf record -q -N -o - -e cpu-clock -F 999 -g -- "$W" 1000 -s 100 >"$tmp/pipe.data" 2>/dev/null ||
	fail "perf record -o - (pipe mode)"

# Symbols as "SYM" unless pmukit named at least one frame of this output.
cat >"$tmp/norm.py" <<'EOF'
import re, sys
ours, theirs, out_ours, out_theirs, exact = sys.argv[1:6]
a, b = open(ours).read(), open(theirs).read()
# an address is perf's 16-wide hex column; its symbol (C++ names have spaces)
# runs to its " (/dso)" or " ([dso])" (which may hold "(deleted)"), or to the
# end of the line
hex16 = '|'.join(' {%d}[0-9a-f]{%d}' % (16 - k, k) for k in range(1, 17))
col = re.compile(r'(?<=[\t ])(' + hex16 + r') (.+?)'
                 r'( \((?:/|\[)(?:[^()\n]|\([^()\n]*\))*\)|$)', re.M)
bare = lambda s: re.sub(r'\(.*\)( const)?$', '', re.sub(r'\+0x[0-9a-f]+$', '', s))
how = 'exactly'
if exact != '1':
    # samples: blank-line separated with call chains, else a line each
    sep = '\n\n' if '\n\n' in b else '\n'
    sa, sb = a.split(sep), b.split(sep)
    named = agree = dropped = 0
    for i, (x, y) in enumerate(zip(sa, sb)):
        # A call chain holding an unknown PERF_CONTEXT_* value (seen as -1 at the
        # end of frame-pointer walks): perf drops the whole chain, pmukit's
        # decoder drops the marker only. Counted, not compared.
        if '\n' not in y and x.startswith(y + '\n\t'):
            sa[i] = x = y
            dropped += 1
        for fx, fy in zip(col.findall(x), col.findall(y)):
            if '[unknown]' not in (fx[1], fy[1]):
                named += 1
                agree += bare(fx[1]) == bare(fy[1])
    a, b = sep.join(sa), sep.join(sb)
    how = 'symbols apart: '
    perf_named = sum('[unknown]' not in f[1] for f in col.findall(b))
    if named:
        how += '%d of %d named frames agree (%.1f%%)' % (agree, named, 100.0 * agree / named)
        how += ' BELOW 90%' if agree < 0.9 * named else ''
    elif perf_named:
        how += 'perf names %d frames, pmukit none: BELOW 90%%' % perf_named
    else:
        how += 'no frame named by both'
    if dropped:
        how += '; %d chains perf drops for an unknown context marker' % dropped
    a, b = col.sub(r'\1 SYM\3', a), col.sub(r'\1 SYM\3', b)
open(out_ours, 'w').write(a)
open(out_theirs, 'w').write(b)
print(how)
EOF

# same NAME FILE [ARGS...]: pmukit script and perf script agree line for line
# (EXACT=1: without normalizing anything: tracepoints print no symbols).
same() {
	local name=$1 f=$2; shift 2
	"$PMUKIT" script -i "$tmp/$f" "$@" >"$tmp/ours" 2>"$tmp/ours.err" ||
		{ fail "$name: pmukit script failed: $(head -2 "$tmp/ours.err")"; return; }
	perf script -i "$tmp/$f" "$@" >"$tmp/theirs" 2>/dev/null ||
		{ fail "$name: perf script failed"; return; }
	local how
	how=$(python3 "$tmp/norm.py" "$tmp/ours" "$tmp/theirs" "$tmp/a" "$tmp/b" "${EXACT:-0}")
	local n; n=$(grep -c . "$tmp/b")
	[ "$n" -gt 0 ] || { fail "$name: perf script printed nothing"; return; }
	if cmp -s "$tmp/a" "$tmp/b" && [[ $how != *BELOW* ]]; then
		pass "$name: $n lines equal ($how)"
	else
		fail "$name: differs from perf script ($how):"
		diff "$tmp/a" "$tmp/b" | head -8
	fi
}

same "cpu-clock -g, two threads" cc.data
EXACT=1 same "tracepoints, -a" tp.data
same "page-faults -d" pf.data
same "tracepoint with call chains" tpg.data
same "cpu-clock and a tracepoint, names padded" mix.data
same "page-faults -d, -F +addr" pf.data -F +addr
same "page-faults -d, -F list" pf.data -F comm,tid,time,event,ip,sym,dso,addr,period,pid
same "cpu-clock, -F -dso,-period" cc.data -F -dso,-period
same "cpu-clock, -F comm,pid,tid,time,event" cc.data -F comm,pid,tid,time,event
same "cpu-clock, -F comm,sym (no address: no symbol)" cc.data -F comm,sym
same "cpu-clock, -F -ip" cc.data -F -ip
same "page-faults -d, -F ip,,sym (perf skips the empty item)" pf.data -F ip,,sym
EXACT=1 same "tracepoints, -F comm,pid,tid,cpu,time,event,trace" tp.data -F comm,pid,tid,cpu,time,event,trace
EXACT=1 same "tracepoints, --ns" tp.data --ns
same "perf record -z" ccz.data
same "pipe mode" pipe.data

# --call-graph dwarf of a program without frame pointers: perf script unwinds
# the stack copies; so must pmukit script (it printed no frame at all), with
# perf's frames first (perf may stop earlier, and calls some frames (inlined)).
if command -v cc >/dev/null; then
	printf '%s\n' 'static volatile double x;' \
		'__attribute__((noinline)) void leaf(long n) { for (long i = 0; i < n; i++) x += i * 0.5; }' \
		'__attribute__((noinline)) void mid(void) { leaf(2000000); x += 1; }' \
		'__attribute__((noinline)) void top(void) { mid(); x += 1; }' \
		'int main(void) { for (int k = 0; k < 40; k++) top(); return x < 0; }' >"$tmp/nofp.c"
	cc -O2 -g -fomit-frame-pointer -o "$tmp/nofp" "$tmp/nofp.c" &&
	rec dw.data -e cpu-clock -F 499 --call-graph dwarf,8192 -- "$tmp/nofp" &&
	"$PMUKIT" script -i "$tmp/dw.data" >"$tmp/dw.ours" 2>"$tmp/dw.err" &&
	perf script -i "$tmp/dw.data" >"$tmp/dw.theirs" 2>/dev/null &&
	py "
import sys
a=open(sys.argv[1]).read().split('\n\n'); b=open(sys.argv[2]).read().split('\n\n')
assert len(a)==len(b) and len(b)>10, (len(a),len(b))
cut=lambda f: f.rsplit(' (',1)[0].split()
# Every address equal; names too, except where perf's DWARF unwinder names an
# inlined instance ('__libc_start_main_impl (inlined)') and the symbol table the
# function ('__libc_start_main@@GLIBC_2.34'), as perf's frame-pointer stacks do.
same=lambda f,g: cut(f)[0]==cut(g)[0] and (g.endswith('(inlined)') or cut(f)==cut(g))
# Full leaf;mid;top;main stacks: at least as many as perf unwinds (how many samples
# land outside leaf depends on the machine's load), and most of them.
full=fullp=0
top4=lambda l: [f.split()[1].split('+')[0] for f in l[1:5]]==['leaf','mid','top','main']
for x,y in zip(a,b):
    xl,yl=x.strip('\n').split('\n'),y.strip('\n').split('\n')
    assert xl[0]==yl[0], (xl[0],yl[0])
    assert len(xl)>=len(yl) and all(same(f,g) for f,g in zip(xl[1:],yl[1:])), (xl,yl)
    full+=top4(xl)
    fullp+=top4(yl)
assert full>=fullp and full>=0.6*len(b), (full,fullp,len(b))
" "$tmp/dw.ours" "$tmp/dw.theirs" && pass "--call-graph dwarf: perf's unwound frames, leaf;mid;top;main" ||
		fail "--call-graph dwarf: pmukit script's frames differ from perf script's: $(head -1 "$tmp/dw.err")"
else
	echo "# no C compiler: --call-graph dwarf is not compared"
fi

# Tracepoint fields by name, not as bytes: the payload's words are there.
check "sched_switch decoded by name" grep -q \
	'sched:sched_switch: prev_comm=.* prev_pid=[0-9]* prev_prio=[0-9]* prev_state=.* ==> next_comm=' \
	<("$PMUKIT" script -i "$tmp/tp.data")
check "sched_wakeup decoded by name" grep -q \
	'sched:sched_wakeup: comm=.* pid=[0-9]* prio=[0-9]* target_cpu=[0-9]*' \
	<("$PMUKIT" script -i "$tmp/tp.data")
# The two threads of the workload are named (inherited at clone) and sampled.
check "threads named at fork" test "$("$PMUKIT" script -i "$tmp/cc.data" -F comm,tid |
	awk '$1 == "touch_pages" { print $2 }' | sort -u | wc -l)" -ge 2

# standard input, pipe mode
"$PMUKIT" script -i - <"$tmp/pipe.data" >"$tmp/stdin.out" 2>&1 &&
	cmp -s "$tmp/stdin.out" <("$PMUKIT" script -i "$tmp/pipe.data") &&
	pass "-i - reads a pipe-mode recording from stdin" || fail "-i -"

# Errors: a field the samples lack, an unknown field, mixed -F, no file.
"$PMUKIT" script -i "$tmp/cc.data" -F comm,addr >/dev/null 2>"$tmp/e1"
check_eq "a field the samples lack is refused" 2 $?
check "... and named" grep -q "'addr'" "$tmp/e1"
"$PMUKIT" script -i "$tmp/cc.data" -F comm,nosuch >/dev/null 2>"$tmp/e2"
check_eq "an unknown field is refused" 2 $?
check "... and named" grep -q "'nosuch'" "$tmp/e2"
"$PMUKIT" script -i "$tmp/cc.data" -F comm,srcline >/dev/null 2>"$tmp/e5"
check_eq "a perf field pmukit does not print is refused" 2 $?
check "... as not supported, not as unknown" grep -q "perf's field 'srcline' is not supported" "$tmp/e5"
"$PMUKIT" script -i "$tmp/cc.data" -F +addr,comm >/dev/null 2>&1
check_eq "a list mixed with +/- is refused" 2 $?
"$PMUKIT" script -i "$tmp/cc.data" -F ip,symoff >/dev/null 2>&1
check_eq "symoff without sym is refused" 2 $?
"$PMUKIT" script -i "$tmp/none.data" >/dev/null 2>"$tmp/e3"
check_eq "a missing file fails" 1 $?
check "... naming it" grep -q "none.data" "$tmp/e3"
(cd "$tmp" && cp cc.data perf.data && "$PMUKIT" script | head -1 | grep -q cpu-clock) &&
	pass "perf.data is the default input" || fail "default input perf.data"
head -c 3000 "$tmp/cc.data" >"$tmp/cut.data"
"$PMUKIT" script -i "$tmp/cut.data" >/dev/null 2>"$tmp/e4"
rc=$?
check "a truncated file is an error, not a crash" test "$rc" = 1
"$PMUKIT" script --help | grep -q -- "-F FIELDS" && pass "--help" || fail "--help"

# A Windows .etl through the same record source: every sample printed (as many
# as report counts), threads named by their process when the trace names only
# processes.
E=../shared/fixtures/etl/perfview-net452-x64-compressed.etl
if [ -r "$E" ]; then
	"$PMUKIT" script -i "$E" >"$tmp/etl" 2>"$tmp/etl.err" || fail ".etl: $(head -2 "$tmp/etl.err")"
	want=$("$PMUKIT" report -i "$E" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["samples"])')
	check_eq ".etl: one sample each" "$want" "$(grep -c ' Timer: ' "$tmp/etl")"
	check ".etl: threads named by their process" grep -q '^System   584 ' "$tmp/etl"
else
	echo "# .etl fixtures absent ($E): the .etl part is not run"
fi
finish
