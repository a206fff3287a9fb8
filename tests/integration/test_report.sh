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

# 1. text: a table with percentages
"$PMUKIT" report -i "$F" >"$tmp/text" || fail "report text"
check "text: summary line" grep -q '^# samples: 79528, ' "$tmp/text"
check "text: rows with percentages" grep -qE '^ +[0-9]+\.[0-9]{2}% +[0-9]+  ntoskrnl.exe +ntoskrnl.exe!\+0x' "$tmp/text"
for k in module tid pid cpu; do
	"$PMUKIT" report -i "$F" --sort $k >"$tmp/$k" && grep -qE '^ +[0-9.]+% ' "$tmp/$k"
	check "text --sort $k" test $? -eq 0
done

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
"$PMUKIT" report -i "$F" --sort bogus >/dev/null 2>&1
check "bad --sort: usage error" test $? -eq 2

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
"$PMUKIT" report -i "$F" --sort tid --limit 3 >"$tmp/tid3"
check "no switches: CPU ms and Switches are '-'" grep -qE '^ +[0-9.]+% +[0-9]+ +- +- +3676 +3680 ' "$tmp/tid3"
check "no switches: said in the header" grep -q "^# no context switches recorded" "$tmp/tid3"
py "import json,sys; d=json.load(open(sys.argv[1])); assert d['switches']==0 and all(t['cpu_time_ns'] is None for t in d['threads'])" "$tmp/json" \
	&& pass "no switches: JSON cpu_time_ns null" || fail "no switches: JSON cpu_time_ns null"

# 9. the file without -i, as perf report takes it; strict --limit
"$PMUKIT" report "$F" --limit 1 >"$tmp/noi" 2>&1
check_eq "report FILE (no -i): exit 0" 0 $?
check "report FILE (no -i): the table" grep -q '^# samples: 79528, ' "$tmp/noi"
for bad in -1 1x " 2" 99999999999999999999999; do
	"$PMUKIT" report "$F" --limit "$bad" >/dev/null 2>"$tmp/err"
	check "--limit '$bad': usage error naming it" test $? -eq 2 -a -n "$(grep -- "--limit is a number of rows (0: all), not '$bad'" "$tmp/err")"
done
"$PMUKIT" report "$F" --limit >/dev/null 2>"$tmp/err"
check "--limit without a value: said" grep -qx "pmukit report: option '--limit' needs an argument" "$tmp/err"
"$PMUKIT" report "$F" "$F" >/dev/null 2>"$tmp/err"
check "two recordings: said" grep -q "one recording only" "$tmp/err"
finish
