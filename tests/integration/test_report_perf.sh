#!/bin/bash
# pmukit report against perf report on the same perf.data, recorded here with
# Debian's perf: top symbols (--no-children --sort sym) and --sort comm,dso
# within 1 percentage point, for a file-mode, a zstd-compressed (-z) and a
# pipe-mode recording; the header lines both print; call graphs and children.
# Skips, saying why, where perf cannot record here.
set -u
. "$(dirname "$0")/lib.sh"

command -v perf >/dev/null || skip "no perf here (Debian package linux-perf)"
command -v cc >/dev/null || skip "no C compiler to build the workload"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Three functions of known weight, each spinning itself: hot 3/6, warm 2/6,
# cold 1/6 of the work.
cat >"$tmp/w.c" <<'EOF'
static volatile double x;
#define SPIN(n) for (long i = 0; i < (n); i++) x += i * 0.5
__attribute__((noinline)) void hot(void) { SPIN(3000000); }
__attribute__((noinline)) void warm(void) { SPIN(2000000); }
__attribute__((noinline)) void cold(void) { SPIN(1000000); }
int main(void) { for (int k = 0; k < 50; k++) { hot(); warm(); cold(); } return x < 0; }
EOF
cc -O1 -g -fno-omit-frame-pointer -fno-inline -o "$tmp/w" "$tmp/w.c" || skip "the workload does not build"

# perf 6.1 itself aborts now and then when other perf processes run beside it
# (an assertion in util/build-id.c): a run it did not finish is made again, twice.
perf_retry() {	# perf-command... (output in $tmp/rec.out)
	local try
	for try in 1 2 3; do
		"$@" >"$tmp/rec.out" 2>&1 && return 0
		grep -qE 'Assertion|stack smashing|Aborted|core dumped' "$tmp/rec.out" || return 1
		echo "# perf aborted (try $try): $(tail -1 "$tmp/rec.out")"
	done
	return 1
}
record() {	# FILE perf-record-options...
	local out=$1; shift
	perf_retry perf record -q -e cpu-clock -F 999 -g "$@" -- "$tmp/w" && [ -s "$out" ]
}
record "$tmp/perf.data" -o "$tmp/perf.data" ||
	skip "perf record -e cpu-clock -g does not run here: $(tail -1 "$tmp/rec.out")"


# "pct  col col ..." rows of a perf/pmukit text report: {key: pct}
rows() {
	py "
import re,sys
d={}
for l in open(sys.argv[1]):
    m=re.match(r'^ +([0-9.]+)%  (.+?)\s*$', l)
    if m and not l.startswith('#'):
        k=' '.join(m.group(2).split())
        d[k]=d.get(k,0)+float(m.group(1))
for k,v in sorted(d.items(), key=lambda kv:-kv[1]):
    print('%.2f\t%s' % (v,k))
" "$1"
}

# Every row of perf's above 1% is in pmukit's within 1 point, and the other
# way round; at least min rows compared.
agree() {	# WHAT PERF-ROWS PMUKIT-ROWS MIN
	py "
import sys
def load(p):
    return {l.split('\t',1)[1].rstrip('\n'): float(l.split('\t')[0]) for l in open(p) if '\t' in l}
a,b=load(sys.argv[1]),load(sys.argv[2])
keys=[k for k in set(a)|set(b) if max(a.get(k,0),b.get(k,0))>=1.0]
bad=[(k,a.get(k,0),b.get(k,0)) for k in keys if abs(a.get(k,0)-b.get(k,0))>1.0]
assert len(keys)>=int(sys.argv[3]) and not bad, (keys, bad)
" "$2" "$3" "$4" && pass "$1" || { fail "$1"; paste "$2" "$3" | head -8; }
}

compare() {	# LABEL FILE
	local f=$2
	perf report -i "$f" --stdio --no-children --sort sym -g none 2>/dev/null >"$tmp/perf.sym"
	"$PMUKIT" report -i "$f" --no-children --sort sym -g none >"$tmp/pk.sym" 2>"$tmp/pk.err" ||
		{ fail "$1: pmukit report: $(head -1 "$tmp/pk.err")"; return; }
	rows "$tmp/perf.sym" >"$tmp/perf.symr"
	rows "$tmp/pk.sym" >"$tmp/pk.symr"
	check "$1: hot, warm and cold named" test "$(grep -cE '\[\.\] (hot|warm|cold)$' "$tmp/pk.symr")" = 3
	agree "$1: --sort sym within 1 point of perf report" "$tmp/perf.symr" "$tmp/pk.symr" 3
	perf report -i "$f" --stdio --no-children --sort comm,dso -g none 2>/dev/null >"$tmp/perf.cd"
	"$PMUKIT" report -i "$f" --no-children --sort comm,dso -g none >"$tmp/pk.cd"
	rows "$tmp/perf.cd" >"$tmp/perf.cdr"
	rows "$tmp/pk.cd" >"$tmp/pk.cdr"
	agree "$1: --sort comm,dso within 1 point of perf report" "$tmp/perf.cdr" "$tmp/pk.cdr" 1
	local ps pk
	ps=$(sed -n "s/^# Samples: \([0-9]*[A-Za-z]*\) .*of event.*/\1/p" "$tmp/perf.cd" | head -1)
	pk=$(sed -n "s/^# Samples: \([0-9]*\) of event.*/\1/p" "$tmp/pk.cd" | head -1)
	# perf prints large counts as "12K": compare only when it gave the number
	case $ps in *[!0-9]*|'') ;; *) check_eq "$1: the same sample count" "$ps" "$pk" ;; esac
}

compare "file mode" "$tmp/perf.data"
if record "$tmp/z.data" -z -o "$tmp/z.data"; then
	compare "perf record -z" "$tmp/z.data"
else
	fail "perf record -z: $(tail -1 "$tmp/rec.out")"
fi
perf record -q -e cpu-clock -F 999 -g -o - -- "$tmp/w" 2>/dev/null >"$tmp/pipe.data"
check "perf record -o - (pipe mode) wrote a recording" test -s "$tmp/pipe.data"
compare "pipe mode" "$tmp/pipe.data"
"$PMUKIT" report -i - --sort comm -g none <"$tmp/pipe.data" >"$tmp/stdin" 2>&1
check "pipe mode from standard input (-i -)" grep -q '^# Samples: ' "$tmp/stdin"

# no -i and no file: ./perf.data, as perf report (and pmukit script) take it
(cd "$tmp" && "$PMUKIT" report --sort comm -g none) >"$tmp/dflt" 2>&1
check "no -i: ./perf.data is read" grep -q '^# Samples: [0-9]* of event' "$tmp/dflt"
mkdir -p "$tmp/nodata"
(cd "$tmp/nodata" && "$PMUKIT" report) >"$tmp/dflt2" 2>&1
check "no -i, no ./perf.data: exit status 1, naming perf.data" \
	test $? -eq 1 -a -n "$(grep 'perf.data' "$tmp/dflt2")"

# The kernel's map, recorded as "[kernel.kallsyms]_text", is "[kernel.kallsyms]"
# as perf report --sort dso names it, in every output format.
perf record -q -N -e cpu-clock -F 999 -g -o "$tmp/k.data" -- \
	dd if=/dev/zero of=/dev/null bs=1k count=200000 >"$tmp/rec.out" 2>&1
perf report -i "$tmp/k.data" --stdio --no-children --sort dso -g none 2>/dev/null >"$tmp/perf.kd"
"$PMUKIT" report -i "$tmp/k.data" --no-children --sort dso -g none >"$tmp/pk.kd"
rows "$tmp/perf.kd" >"$tmp/perf.kdr"
rows "$tmp/pk.kd" >"$tmp/pk.kdr"
check "kernel samples: perf names [kernel.kallsyms]" grep -q '\[kernel.kallsyms\]$' "$tmp/perf.kdr"
agree "kernel samples: --sort dso within 1 point of perf report" "$tmp/perf.kdr" "$tmp/pk.kdr" 2
for fmt in table collapsed perf-script svg; do
	"$PMUKIT" report -i "$tmp/k.data" --format $fmt >"$tmp/k.$fmt" 2>&1
	check "--format $fmt: the kernel is [kernel.kallsyms], never [kernel.kallsyms]_text" \
		bash -c "grep -q '\[kernel.kallsyms\]' '$tmp/k.$fmt' && ! grep -q 'kallsyms\]_' '$tmp/k.$fmt'"
done
"$PMUKIT" report -i "$tmp/k.data" --format table --json >"$tmp/k.json"
check "--format table --json: modules name [kernel.kallsyms]" py "
import json,sys
d=json.load(open(sys.argv[1]))
assert '[kernel.kallsyms]' in [m['module'] for m in d['modules']], d['modules']
assert not any('kallsyms]_' in m['path'] for m in d['modules'])
" "$tmp/k.json"

# The header: the lines perf prints, the same values
perf report -i "$tmp/perf.data" --header-only 2>/dev/null >"$tmp/perf.hdr"
"$PMUKIT" report -i "$tmp/perf.data" --header-only >"$tmp/pk.hdr"
for k in 'hostname' 'os release' 'arch' 'nrcpus online' 'nrcpus avail' 'cpudesc' 'total memory'; do
	a=$(grep -m1 "^# $k *:" "$tmp/perf.hdr" | sed 's/^[^:]*: *//')
	b=$(grep -m1 "^# $k *:" "$tmp/pk.hdr" | sed 's/^[^:]*: *//')
	check_eq "--header-only: $k as perf says" "$a" "$b"
done
for k in 'time of first sample' 'time of last sample'; do
	a=$(grep -m1 "^# $k *:" "$tmp/perf.hdr" | sed 's/^[^:]*: *//')
	b=$(grep -m1 "^# $k *:" "$tmp/pk.hdr" | sed 's/^[^:]*: *//')
	check_eq "--header-only: $k as perf says" "$a" "$b"
done
check "--header-only: the event with its sample_type" grep -q '^# event : name = cpu-clock.*sample_type = IP|TID|TIME|CALLCHAIN|PERIOD' "$tmp/pk.hdr"
check "--header-only: the command line" grep -q "^# cmdline : .*perf record" "$tmp/pk.hdr"

whole0=$("$PMUKIT" report -i "$tmp/perf.data" -s comm -g none | sed -n "s/^# Samples: \([0-9]*\) .*/\1/p" | head -1)
# --time with perf's absolute times: the same samples as perf report takes
perf script -i "$tmp/perf.data" -F time 2>/dev/null | tr -d ' :' >"$tmp/times"
n=$(wc -l <"$tmp/times")
ta=$(sed -n "$((n / 4))p" "$tmp/times"); tb=$(sed -n "$((n / 2))p" "$tmp/times")
ps=$(perf report -i "$tmp/perf.data" --stdio --time "$ta,$tb" -g none 2>/dev/null | sed -n "s/^# Samples: \([0-9]*\) .*/\1/p" | head -1)
pk=$("$PMUKIT" report -i "$tmp/perf.data" --time "$ta,$tb" -g none | sed -n "s/^# Samples: \([0-9]*\) .*/\1/p" | head -1)
check_eq "--time $ta,$tb: the samples perf report takes" "$ps" "$pk"
# ... from the first time perf script prints (cut to microseconds, so a hair
# before the first record: still an absolute time, not one since the start)
ta=$(sed -n 1p "$tmp/times")
ps=$(perf report -i "$tmp/perf.data" --stdio --time "$ta,$tb" -g none 2>/dev/null | sed -n "s/^# Samples: \([0-9]*\) .*/\1/p" | head -1)
pk=$("$PMUKIT" report -i "$tmp/perf.data" --time "$ta,$tb" -g none | sed -n "s/^# Samples: \([0-9]*\) .*/\1/p" | head -1)
check_eq "--time $ta,$tb (the first time): the samples perf report takes" "$ps" "$pk"
# a window or CPU list that holds no sample says so, not "no sampled events"
"$PMUKIT" report -i "$tmp/perf.data" --time 999999, -g none >"$tmp/tnone" 2>&1
check "--time after the end: no samples left, all outside the window" \
	grep -q "^# no samples left: all $whole0 were outside --cpu/--time" "$tmp/tnone"
"$PMUKIT" report -i "$tmp/perf.data" -C 4095 --format collapsed >"$tmp/cnone" 2>&1
check "-C of no sampled CPU, --format collapsed: said on stderr" \
	grep -q "no samples left: all $whole0 of .* were outside --cpu/--time" "$tmp/cnone"

# A truncated recording: the records before the damage are reported, the
# error names the offset, the exit status is 1
size=$(stat -c %s "$tmp/perf.data")
head -c $((size * 6 / 10)) "$tmp/perf.data" >"$tmp/trunc.data"
"$PMUKIT" report -i "$tmp/trunc.data" -s comm -g none >"$tmp/trunc.out" 2>"$tmp/trunc.err"
check_eq "truncated: exit status 1" 1 $?
check "truncated: the error names the offset" grep -q "offset [0-9]*" "$tmp/trunc.err"
whole=$("$PMUKIT" report -i "$tmp/perf.data" -s comm -g none | sed -n "s/^# Samples: \([0-9]*\) .*/\1/p" | head -1)
part=$(sed -n "s/^# Samples: \([0-9]*\) .*/\1/p" "$tmp/trunc.out" | head -1)
check "truncated: the samples before it reported ($part of $whole)" test "${part:-0}" -gt 0 -a "${part:-0}" -lt "$whole"

# Children and call graphs from perf's call chains
"$PMUKIT" report -i "$tmp/perf.data" --sort sym --json >"$tmp/pk.json"
py "
import json,sys
d=json.load(open(sys.argv[1]))
assert d['children'] is True and d['with_callchain']>0
rows=d['sections'][0]['rows']
top=max(rows, key=lambda r: (r['children'], -r['self']))
assert top['children']>=95 and top['self']<5, top
" "$tmp/pk.json" && pass "children: a root symbol holds (almost) every sample" || fail "children on perf's call chains"
# --call-graph dwarf of a program without frame pointers: unwound with the
# registers and stack copies perf saved
cat >"$tmp/nofp.c" <<'EOF'
static volatile double x;
__attribute__((noinline)) void leaf(long n) { for (long i = 0; i < n; i++) x += i * 0.5; }
__attribute__((noinline)) void mid(void) { leaf(2000000); x += 1; }
__attribute__((noinline)) void top(void) { mid(); x += 1; }
int main(void) { for (int k = 0; k < 60; k++) top(); return x < 0; }
EOF
cc -O2 -g -fomit-frame-pointer -o "$tmp/nofp" "$tmp/nofp.c"
if perf_retry perf record -q -e cpu-clock -F 499 --call-graph dwarf,8192 -o "$tmp/dwarf.data" -- "$tmp/nofp"; then
	"$PMUKIT" report -i "$tmp/dwarf.data" --json >"$tmp/dw.json"
	"$PMUKIT" report -i "$tmp/dwarf.data" --format collapsed >"$tmp/dw.folded"
	check "--call-graph dwarf: samples unwound" \
		py "import json,sys; sys.exit(json.load(open(sys.argv[1]))['unwound']==0)" "$tmp/dw.json"
	py "
import re,sys
n=ok=0
for l in open(sys.argv[1]):
    stack,c=l.rsplit(' ',1); n+=int(c)
    if re.search(r'!main;[^ ]*!top;[^ ]*!mid;[^ ]*!leaf$', stack): ok+=int(c)
assert n and ok>=0.9*n, (ok,n)
" "$tmp/dw.folded" && pass "--call-graph dwarf: main;top;mid;leaf unwound without frame pointers" || fail "--call-graph dwarf unwinding"
else
	fail "perf record --call-graph dwarf: $(tail -1 "$tmp/rec.out")"
fi
"$PMUKIT" report -i "$tmp/perf.data" --no-children --sort dso,sym -g callee >"$tmp/pk.g"
check "call graphs drawn: hot's callers under it" grep -qE '^ {12}---hot$' "$tmp/pk.g"
# the same graphs as perf draws them (rows of equal weight may come in another order)
perf report -i "$tmp/perf.data" --stdio --no-children --sort sym 2>/dev/null | grep -vE '^(#|$)' | sort >"$tmp/perf.g"
"$PMUKIT" report -i "$tmp/perf.data" --no-children --sort sym | grep -vE '^(#|$)' | sort >"$tmp/pk.g"
check "--no-children --sort sym: perf's lines, graphs included" diff -q "$tmp/perf.g" "$tmp/pk.g"

# perf's -g forms with a threshold (perf report's default is graph,0.5,caller)
for g in graph,0.5,caller caller,0.5 fractal,0.5,callee,function callee,0 caller,20; do
	"$PMUKIT" report -i "$tmp/perf.data" -g $g >"$tmp/g.$g" 2>"$tmp/g.err"
	check "-g $g: taken as perf takes it" test $? -eq 0
done
check "-g caller,20: cold's branch (1/6) hidden, shown with caller,0.5" \
	bash -c "grep -qE -- '--[0-9.]+%--cold' '$tmp/g.caller,0.5' && ! grep -qE -- '--[0-9.]+%--cold' '$tmp/g.caller,20'"
"$PMUKIT" report -i "$tmp/perf.data" -g caller,abc >/dev/null 2>&1
check_eq "-g caller,abc: usage error" 2 $?

# --symfs: the recorded binary moved under a root of its own (a build of its own, so
# no build-id cache knows it) is found there; without --symfs it says [missing].
mkdir -p "$tmp/root$tmp"
cc -O1 -g -fno-inline -DSYMFS_BUILD -o "$tmp/ws" "$tmp/w.c"
if check "perf record of the --symfs workload" perf record -q -e cpu-clock -F 999 -o "$tmp/sfs.data" -- "$tmp/ws" >"$tmp/rec.out" 2>&1; then
	mv "$tmp/ws" "$tmp/root$tmp/ws"
	HOME=$tmp "$PMUKIT" report -i "$tmp/sfs.data" --no-children --sort sym -g none >"$tmp/sfs.no" 2>&1
	HOME=$tmp "$PMUKIT" report -i "$tmp/sfs.data" --no-children --sort sym -g none \
		--symfs "$tmp/root" >"$tmp/sfs.yes" 2>&1
	check "--symfs: hot named from the moved binary" grep -qE '\[\.\] hot$' "$tmp/sfs.yes"
	check "without --symfs: the moved binary is [missing], not misnamed" \
		grep -q '\[missing\]' "$tmp/sfs.no"
fi
finish
