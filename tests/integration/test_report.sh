#!/bin/bash
# pmukit report on a real .etl fixture: text, --json (keys, totals), collapsed
# (every line "stack count", counts sum to the samples) and perf-script (every
# sample a header line and frame lines, parsed the way speedscope parses them).
set -u
. "$(dirname "$0")/lib.sh"

FIX=../shared/fixtures/etl
F=$FIX/perfview-net452-x64-compressed.etl
[ -r "$F" ] || skip "the .etl fixtures ($FIX) are absent"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# 1. text: perf report's header, rows and call graphs
"$PMUKIT" report -i "$F" >"$tmp/text" || fail "report text"
check "text: samples of the event" grep -q "^# Samples: 79528 of event 'Timer'$" "$tmp/text"
check "text: event count" grep -q '^# Event count (approx.): 79528000000$' "$tmp/text"
for l in 'Total Lost Samples' 'Lost records' 'Skipped bytes' 'Out of order'; do
	check "text: '# $l: 0' in the header" grep -q "^# $l: 0$" "$tmp/text"
done
check "text: children by default (the samples carry stacks)" grep -q '^# Children      Self  Command  *Shared Object  *Symbol$' "$tmp/text"
# (the Windows modules are not on this machine: a symbolizer says [missing])
check "text: kernel rows" grep -qE '^ +[0-9]+\.[0-9]{2}% +[0-9]+\.[0-9]{2}%  Idle +ntoskrnl.exe +\[k\] 0x[0-9a-f]{16}( \[missing\])?$' "$tmp/text"
check "text: call graphs under rows" grep -qE '^ {12}---' "$tmp/text"
check "text: graph branches" grep -qE '^ +\|--[0-9.]+%--' "$tmp/text"
for k in dso sym tid pid cpu srcline comm,dso comm,dso,sym,cpu; do
	"$PMUKIT" report -i "$F" --sort $k --no-children -g none >"$tmp/s" &&
	py "
import re,sys
rows=[l for l in open(sys.argv[1]) if not l.startswith('#') and l.strip()]
tot=sum(float(re.match(r'^ +([0-9.]+)%', l).group(1)) for l in rows)
assert rows and abs(tot-100)<0.05*len(rows)+0.01, (len(rows), tot)
" "$tmp/s"
	check "--sort $k --no-children: self rows add up to 100%" test $? -eq 0
done
py "
import re,sys
d=[l.rstrip('\n') for l in open(sys.argv[1])]
h=[l for l in d if l.startswith('# Overhead')][0]
assert h.split()[1:]==['Overhead','Command','Shared','Object','Symbol','CPU'], h
row=[l for l in d if l and not l.startswith('#')][0]
assert re.match(r'^ +[0-9.]+%  \S+ +\S+ +\[[k.]\] \S+( \[missing\])? +[0-9]{3}$', row), row
" "$tmp/s" && pass "--sort comm,dso,sym,cpu: one row key of four columns" || fail "--sort comm,dso,sym,cpu: one row key of four columns"

# 1b. children vs self: each row's Children >= Self, a top-level row holds all
"$PMUKIT" report -i "$F" --sort sym --children --json --limit 0 >"$tmp/cj" || fail "children json"
py "
import json,sys
d=json.load(open(sys.argv[1]))
assert d['children'] is True and d['sort']==['sym']
s=d['sections'][0]; rows=s['rows']
assert s['event']=='Timer' and s['samples']==79528
assert all(r['children_samples']>=r['self_samples'] for r in rows)
assert abs(sum(r['self'] for r in rows)-100)<1e-6
assert max(r['children'] for r in rows)<=100+1e-9
# a sample's stack counts once per symbol: children of a symbol never exceed the samples
assert all(r['children_samples']<=s['samples'] for r in rows)
assert sum(1 for r in rows if r['children_samples']>r['self_samples'])>10
" "$tmp/cj" && pass "children: >= self, self adds to 100%, callers get children" || fail "children vs self"

# 1c. call graph orientation: callee starts at the row, caller at the root
# (dso,sym: with a sort starting with sym the row's own symbol heading its
# graph is left out, as perf does)
"$PMUKIT" report -i "$F" --sort dso,sym --no-children -g callee --percent-limit 0.1 >"$tmp/callee"
"$PMUKIT" report -i "$F" --sort dso,sym --no-children -g caller --percent-limit 0.1 >"$tmp/caller"
py "
import re,sys
def graphs(path):
    out={}; cur=None
    for l in open(path):
        l=l.rstrip('\n')
        m=re.match(r'^ +[0-9.]+%  \S+ +\[[k.]\] (\S+)( \[missing\])?$', l)
        if m: cur=m.group(1); out[cur]=[]; continue
        if cur and l.strip(): out[cur].append(l)
    return out
ce=graphs(sys.argv[1]); cr=graphs(sys.argv[2])
n=0
for sym,g in ce.items():
    if g and g[1].strip()=='---'+sym:
        n+=1
assert n>=3, n
roots=[g[1].strip() for sym,g in cr.items() if len(g)>1 and g[1].strip().startswith('---')]
assert any(r!='---'+s for r,s in zip(roots,cr)), roots[:5]
" "$tmp/callee" "$tmp/caller" && pass "-g callee starts at the row, -g caller at the root" || fail "-g callee/caller"

# 1d. --percent-limit hides the rows under it
"$PMUKIT" report -i "$F" --sort sym --no-children -g none --percent-limit 0.3 >"$tmp/pl"
py "
import re,sys
p=[float(re.match(r'^ +([0-9.]+)%', l).group(1)) for l in open(sys.argv[1]) if re.match(r'^ +[0-9.]+%', l)]
assert p and min(p)>=0.3 and len(p)<20, p
" "$tmp/pl" && pass "--percent-limit 0.3: no row under it" || fail "--percent-limit"

# 1e. filters: --comm/--pid keep the totals, --cpu/--time drop the rest
"$PMUKIT" report -i "$F" --sort comm --no-children -g none --comm Test.x64.exe >"$tmp/fc"
check "--comm: only its rows" test "$(grep -cE '^ +[0-9.]+%' "$tmp/fc")" = 1
check "--comm: totals kept" grep -q "^# Samples: 79528 of event" "$tmp/fc"
"$PMUKIT" report -i "$F" --sort pid --no-children -g none --pid 3676 >"$tmp/fp"
check "--pid 3676: one row, 3676:Test.x64.exe" grep -qE '^ +[0-9.]+%  3676:Test.x64.exe$' "$tmp/fp"
"$PMUKIT" report -i "$F" --sort tid --no-children -g none --tid 3680 >"$tmp/ft"
check "--tid 3680: one row" test "$(grep -cE '^ +[0-9.]+%  3680:' "$tmp/ft")" = 1
c0=$(py "import json,sys; print([c['samples'] for c in json.load(open(sys.argv[1]))['cpus'] if c['cpu']==0][0])" "$tmp/cj")
"$PMUKIT" report -i "$F" --cpu 0 --sort cpu -g none >"$tmp/fcpu"
check "--cpu 0: the samples of CPU 0 ($c0)" grep -q "^# Samples: $c0 of event" "$tmp/fcpu"
check "--cpu 0: one row, 100%" grep -qE '^ +100\.00% +100\.00%  000$' "$tmp/fcpu"

# 2. --json

# 2. --json
"$PMUKIT" report -i "$F" --json >"$tmp/json" || fail "report --json"
py "
import json,sys
d=json.load(open(sys.argv[1]))
for k in ('samples','lost','top','threads','processes','modules','cpus','events'):
    assert k in d, k
assert d['samples']==79528 and d['lost']==0 and d['events']==['Timer'], d['samples']
assert d['with_callchain']==6318
for t in d['top']:
    assert set(('symbol','module','samples','percent'))<=set(t), t
assert d['top'][0]['module']=='ntoskrnl.exe' and d['top'][0]['build_id']=='724821001C1C4A03AED8C4C71C2E8D1D2'
assert abs(sum(c['percent'] for c in d['cpus'])-100)<1e-6
assert sum(c['samples'] for c in d['cpus'])==79528
th={t['tid']:t for t in d['threads']}
assert th[3680]['name']=='Test.x64.exe' and th[3680]['pid']==3676 and 'cpu_time_ns' in th[3680]
" "$tmp/json" && pass "json: keys, totals, top, threads" || fail "json: keys, totals, top, threads"

# 3. collapsed: 'frames count' lines whose counts sum to the samples
"$PMUKIT" report -i "$F" --format collapsed >"$tmp/folded" || fail "report collapsed"
py "
import re,sys
n=0; total=0
for line in open(sys.argv[1]):
    m=re.match(r'^(\S[^\n]*) (\d+)$', line.rstrip('\n'))
    assert m, line
    frames=m.group(1).split(';')
    assert len(frames)>=2 and all(frames), line
    total+=int(m.group(2)); n+=1
assert total==79528, total
assert n>100
" "$tmp/folded" && pass "collapsed: stack count lines, counts sum to 79528" || fail "collapsed"
check "collapsed: a stack through ntdll" grep -q ';ntdll.dll!+0x' "$tmp/folded"

# 4. perf-script: header + frames per sample, blank line between samples
"$PMUKIT" report -i "$F" --format perf-script >"$tmp/script" || fail "report perf-script"
py "
import re,sys
text=open(sys.argv[1]).read()
assert text.endswith('\n\n')
events=text[:-2].split('\n\n')
head=re.compile(r'^(\S.+?)\s+(\d+)/(\d+)\s+\[(\d{3})\]\s+(\d+\.\d{6}):\s+(\d+) (\S+): $')
frame=re.compile(r'^\t\s*([0-9a-f]+) (.+) \((\S*)\)$')
deep=0
for ev in events:
    lines=ev.split('\n')
    m=head.match(lines[0]); assert m, lines[0]
    assert m.group(7)=='Timer' and int(m.group(6))==1000000
    assert len(lines)>=2, ev
    for l in lines[1:]:
        assert frame.match(l), l
    deep+=len(lines)>2
assert len(events)==79528, len(events)
assert deep>=6000, deep
" "$tmp/script" && pass "perf-script: 79528 samples, headers and frames parse" || fail "perf-script"

# 5. input detection
printf 'PERFILE2xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx' >"$tmp/perf.data"
out=$("$PMUKIT" report -i "$tmp/perf.data" 2>&1); rc=$?
check "perf.data with a corrupt header: an error naming perf.data" test $rc -ne 0 -a -n "$(echo "$out" | grep 'perf.data')"
out=$("$PMUKIT" report -i "$FIX/SOURCES.md" 2>&1); rc=$?
check "other file: neither perf.data nor .etl" test $rc -ne 0 -a -n "$(echo "$out" | grep 'neither perf.data .* nor a Windows .etl')"
"$PMUKIT" report -i "$F" --sort bogus >/dev/null 2>"$tmp/err"
check "bad --sort: usage error" test $? -eq 2
check "bad --sort: names the key" grep -q "unknown sort key 'bogus'" "$tmp/err"
"$PMUKIT" report -i "$F" --format table --sort dso >/dev/null 2>&1
check "--format table --sort dso: usage error (one of sym, module, tid, pid, cpu)" test $? -eq 2

# 6. one binary is one module however its path is spelled (rundown: NT device
# path, load: plain path; the PDB identity is the same): no module twice, no
# symbol twice, and the module rows add up to the samples.
X86=$FIX/perfview-net452-x86-compressed.etl
"$PMUKIT" report -i "$X86" --json --limit 0 >"$tmp/x86" || fail "report x86 --json"
py "
import json,sys
d=json.load(open(sys.argv[1]))
mods=[(m['module'],m['build_id']) for m in d['modules']]
assert len(mods)==len(set(mods)), [m for m in mods if mods.count(m)>1][:3]
syms=[(t['symbol'],t['build_id']) for t in d['top']]
assert len(syms)==len(set(syms)), [s for s in syms if syms.count(s)>1][:3]
assert sum(m['samples'] for m in d['modules'])==d['samples']==88809
clr=[m for m in d['modules'] if m['module']=='clr.dll']
assert len(clr)==1 and clr[0]['samples']==2445, clr
" "$tmp/x86" && pass "x86: modules and symbols listed once" || fail "x86: modules and symbols listed once"

# 7. the kernel-event fixture: no samples, still a report, which says so
A=$FIX/airbus-ShutdownPerfDiagLogger.etl
"$PMUKIT" report -i "$A" --json >"$tmp/airbus" 2>"$tmp/airbus.err" || fail "airbus"
py "import json,sys; d=json.load(open(sys.argv[1])); assert d['samples']==0 and d['top']==[]" "$tmp/airbus" \
	&& pass "airbus: empty report" || fail "airbus: empty report"
check "airbus --json: stderr says there are no samples" grep -q "holds no samples" "$tmp/airbus.err"
check "airbus text: says there are no samples" grep -q "^# no samples" <("$PMUKIT" report -i "$A")
"$PMUKIT" report -i "$A" --format collapsed 2>&1 >/dev/null | grep -q "holds no samples"
check "airbus collapsed: stderr says there are no samples" test $? -eq 0

# 8. no context switches in the trace: CPU time is unknown, not 0
"$PMUKIT" report -i "$F" --format table --sort tid --limit 3 >"$tmp/tid3"
check "no switches: CPU ms and Switches are '-'" grep -qE '^ +[0-9.]+% +[0-9]+ +- +- +3676 +3680 ' "$tmp/tid3"
check "no switches: said in the header" grep -q "^# no context switches recorded" "$tmp/tid3"
py "import json,sys; d=json.load(open(sys.argv[1])); assert d['switches']==0 and all(t['cpu_time_ns'] is None for t in d['threads'])" "$tmp/json" \
	&& pass "no switches: JSON cpu_time_ns null" || fail "no switches: JSON cpu_time_ns null"

# 9. the file without -i, as perf report takes it; strict --limit
"$PMUKIT" report "$F" --limit 1 >"$tmp/noi" 2>&1
check_eq "report FILE (no -i): exit 0" 0 $?
check "report FILE (no -i): the report" grep -q "^# Samples: 79528 of event 'Timer'" "$tmp/noi"
for bad in -1 1x " 2" 99999999999999999999999; do
	"$PMUKIT" report "$F" --limit "$bad" >/dev/null 2>"$tmp/err"
	check "--limit '$bad': usage error naming it" test $? -eq 2 -a -n "$(grep -- "--limit is a number of rows (0: all), not '$bad'" "$tmp/err")"
done
"$PMUKIT" report "$F" --limit >/dev/null 2>"$tmp/err"
check "--limit without a value: said" grep -qx "pmukit report: option '--limit' needs an argument" "$tmp/err"
"$PMUKIT" report "$F" "$F" >/dev/null 2>"$tmp/err"
check "two recordings: said" grep -q "one recording only" "$tmp/err"

# 10. --time: the samples perf-script shows between the two times
py "
import re,sys
t=[float(m.group(1)) for m in re.finditer(r'\s(\d+\.\d{6}):\s+\d+ Timer:', open(sys.argv[1]).read())]
a,b=t[len(t)//3],t[2*len(t)//3]
# printed times are cut to microseconds: one printed b may be later than b
print('%.6f %.6f %d' % (a, b, sum(1 for x in t if a<=x<b)))
" "$tmp/script" >"$tmp/win"
read -r ta tb tn <"$tmp/win"
"$PMUKIT" report -i "$F" --time "$ta,$tb" -g none >"$tmp/tw"
check "--time $ta,$tb: the $tn samples in it" grep -q "^# Samples: $tn of event" "$tmp/tw"
"$PMUKIT" report -i "$F" --time "$ta," -g none >"$tmp/tw2"
check "--time A, (open end): fewer samples" test "$(sed -n "s/^# Samples: \([0-9]*\) .*/\1/p" "$tmp/tw2")" -lt 79528
for bad in 1 b,2 3,2 ,; do
	"$PMUKIT" report -i "$F" --time "$bad" >/dev/null 2>"$tmp/err"
	check "--time '$bad': usage error" test $? -eq 2 -a -n "$(grep -- '--time is START,END' "$tmp/err")"
done

# 11. --header-only: what the recording says of itself
"$PMUKIT" report -i "$F" --header-only >"$tmp/hdr" || fail "--header-only"
check "--header-only: the format" grep -q '^# format : .etl' "$tmp/hdr"
check "--header-only: os release" grep -q '^# os release : 6.2.9200$' "$tmp/hdr"
check "--header-only: CPUs" grep -q '^# nrcpus online : 8$' "$tmp/hdr"
check "--header-only: the event" grep -q '^# event : name = Timer' "$tmp/hdr"
check "--header-only: no rows" test -z "$(grep -E '^ +[0-9.]+%' "$tmp/hdr")"
"$PMUKIT" report -i "$F" --header-only --json >"$tmp/hdrj"
py "import json,sys; d=json.load(open(sys.argv[1])); assert d['format']=='.etl' and d['nr_cpus_online']==8 and d['events'][0]['name']=='Timer'" "$tmp/hdrj" \
	&& pass "--header-only --json" || fail "--header-only --json"

# 12. -o FILE; pprof is binary: never to a terminal
"$PMUKIT" report -i "$F" -o "$tmp/o.txt" --sort comm -g none >"$tmp/o.stdout" || fail "-o"
check "-o: the report in the file" grep -q "^# Samples: 79528 of event" "$tmp/o.txt"
check "-o: nothing on stdout" test ! -s "$tmp/o.stdout"
"$PMUKIT" report -i "$F" -o /nonexistent/dir/x 2>"$tmp/err"
check "-o in a missing directory: said" test $? -eq 1 -a -n "$(grep 'cannot write /nonexistent/dir/x' "$tmp/err")"
if command -v script >/dev/null; then
	script -qec "$PMUKIT report -i $F --format pprof" /dev/null >"$tmp/tty" 2>&1
	check "pprof to a terminal: refused with the fix" grep -q "pprof is binary.*-o FILE" "$tmp/tty"
else
	echo "# no script(1) here: the terminal check is not run"
fi
"$PMUKIT" report -i "$F" --format svg -o "$tmp/out.svg" 2>"$tmp/err" || fail "--format svg -o: $(head -1 "$tmp/err")"
check "--format svg -o: an SVG" grep -q '<svg' "$tmp/out.svg"
"$PMUKIT" report -i "$F" --format pprof -o "$tmp/out.pprof" 2>"$tmp/err" || fail "--format pprof -o: $(head -1 "$tmp/err")"
check "--format pprof -o: gzip" test "$(head -c2 "$tmp/out.pprof" | od -An -tx1 | tr -d ' ')" = 1f8b
finish
