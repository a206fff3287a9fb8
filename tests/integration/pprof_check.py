# SPDX-License-Identifier: MIT
"""Checks what `go tool pprof` reads from pmukit's profile.proto against
pmukit's own outputs of the same report (test_pprof.sh).
Usage: pprof_check.py DIR [--live]   (DIR: report_write's outputs)
Runs go tool pprof -top, -traces and -raw on DIR/profile.pb.gz and compares
with DIR/text.txt, DIR/collapsed.txt and DIR/report.json. Exits 1 with the
reason on the first difference. --live: DIR is report_write --live's, whose
hot_a ran three times as long as hot_b, both in spin: spin must be the top
function, and hot_a above hot_b (cumulative samples)."""
import collections
import json
import re
import subprocess
import sys

D = sys.argv[1]
PROFILE = D + '/profile.pb.gz'


def die(msg):
    print('pprof_check: ' + msg)
    sys.exit(1)


def pprof(*args):
    p = subprocess.run(['go', 'tool', 'pprof', '-symbolize=none'] + list(args) + [PROFILE],
                       capture_output=True, text=True, timeout=300)
    if p.returncode:
        die('go tool pprof %s: %s' % (' '.join(args), p.stderr.strip()))
    return p.stdout


report = json.load(open(D + '/report.json', encoding='utf-8'))
# module file names: the report's module rows (modules with samples of their
# own) and every mapping pprof lists
bases = {m['module'] for m in report['modules']} | set(
    re.split(r'[/\\]', m.group(1))[-1] for m in
    re.finditer(r'^\d+: 0x\S+ (.*?) \S* ?(?:\[FN\])?$', pprof('-raw').split('\nMappings\n')[1], re.M))


def fn_name(sym):
    """A report symbol as pprof names it: the symbolizer's name without the
    module, module!+0xoff (no name) as it is."""
    mod, bang, rest = sym.partition('!')
    return rest if bang and mod in bases and not rest.startswith('+0x') else sym


def text_rows():
    rows, samples = {}, None
    for line in open(D + '/text.txt', encoding='utf-8'):
        m = re.match(r'# samples: (\d+), period: (\d+)', line)
        if m:
            samples, period = int(m.group(1)), int(m.group(2))
        m = re.match(r'^ +[0-9.]+% +(\d+)  \S+ +(.*)$', line.rstrip('\n'))
        if m:
            name = fn_name(m.group(2))
            rows[name] = rows.get(name, 0) + int(m.group(1))
    return rows, samples, period


def top(index, unit=None, inlines=False):
    """pprof -top; without inlines (-noinlines) a sample's own samples count
    for the function holding its address, as in the text report, not for the
    innermost call inlined there (which the collapsed stacks end with)."""
    args = ['-top', '-sample_index=%d' % index, '-nodecount=1000000', '-nodefraction=0',
            '-edgefraction=0'] + (['-unit=' + unit] if unit else []) + \
        ([] if inlines else ['-noinlines'])
    out = pprof(*args)
    m = re.search(r'Showing nodes accounting for (\d+)\w*, [0-9.]+% of (\d+)\w* total', out)
    if not m:
        die('no total in pprof -top:\n' + out[:2000])
    rows = []
    body = out[out.index('flat  flat%'):].split('\n')[1:]
    for line in body:
        if not line.strip():
            continue
        f = re.match(r'^\s*(\d+)\w*\s+[0-9.]+%\s+[0-9.]+%\s+(\d+)\w*\s+[0-9.]+%\s+(.*)$', line)
        if not f:
            die('pprof -top line %r' % line)
        rows.append((f.group(3), int(f.group(1)), int(f.group(2))))
    return int(m.group(2)), rows


def check_top():
    want, samples, period = text_rows()
    total, rows = top(0)
    if total != samples or total != report['samples']:
        die('pprof total %d samples, pmukit report %d' % (total, samples))
    got = {name: flat for name, flat, _ in rows if flat}
    if got != want:
        diff = sorted(set(got.items()) ^ set(want.items()), key=lambda x: -x[1])[:10]
        die('functions differ (pprof vs text report), e.g. %s' % diff)
    flats = [flat for _, flat, _ in rows if flat]
    if flats != sorted(want.values(), reverse=True):
        die('pprof -top order differs')
    # with inlines: the leaves of the collapsed stacks, an inlined call named
    # as pprof shows it ("f (inline)")
    leaves = collections.Counter()
    for line in open(D + '/collapsed.txt', encoding='utf-8'):
        body, _, n = line.rstrip('\n').rpartition(' ')
        leaves[fn_name(body.split(';')[-1])] += int(n)
    _, irows = top(0, inlines=True)
    got = collections.Counter()
    for name, flat, _ in irows:
        if flat:
            got[name[:-len(' (inline)')] if name.endswith(' (inline)') else name] += flat
    if got != leaves:
        diff = sorted(set(got.items()) ^ set(leaves.items()), key=lambda x: -x[1])[:10]
        die('leaf functions differ (pprof with inlines vs collapsed), e.g. %s' % diff)
    for name, flat, _ in rows[:5]:
        print('  top: %-50s %8d samples' % (name, flat))
    unit = re.search(r'^samples/count \S+/(\w+)$', pprof('-raw'), re.M).group(1)
    ptotal, _ = top(1, 'ns' if unit == 'nanoseconds' else None)
    if ptotal != period:
        die('pprof -sample_index=1 total %d, pmukit period %d' % (ptotal, period))
    print('  totals: %d samples, period %d' % (total, ptotal))


def check_traces():
    want = collections.Counter()
    for line in open(D + '/collapsed.txt', encoding='utf-8'):
        body, _, n = line.rstrip('\n').rpartition(' ')
        fr = body.split(';')
        want[(fr[0],) + tuple(fn_name(x) for x in fr[1:])] += int(n)
    got = collections.Counter()
    out = pprof('-traces', '-sample_index=0')
    for block in out.split('-----------+-------------------------------------------------------')[1:]:
        lines = [x for x in block.split('\n') if x.strip()]
        if not lines:  # after the last separator
            continue
        proc = [x.split(':', 1)[1].strip() for x in lines if x.strip().startswith('process:')]
        st = [x for x in lines if not x.strip().startswith('process:')]
        m = re.match(r'^\s*(\d+)\s+(.*)$', st[0])
        if len(proc) != 1 or not m:
            die('pprof -traces block %r' % block[:300])
        # an inlined call is a Line of its address's Location, "f (inline)"
        names = [re.sub(r' \(inline\)$', '', x)
                 for x in [m.group(2)] + [x.strip() for x in st[1:]]]
        got[(proc[0],) + tuple(reversed(names))] += int(m.group(1))
    if got != want:
        diff = list((got - want).items())[:3] + list((want - got).items())[:3]
        die('stacks differ (pprof -traces vs collapsed), e.g. %s' % diff)
    print('  stacks: %d distinct, the same as the collapsed output' % len(want))


def check_raw():
    out = pprof('-raw')
    ev = report['events'][0] if len(report['events']) == 1 else 'events'
    if not re.search(r'^samples/count %s/(nanoseconds|count)$' % re.escape(ev), out, re.M):
        die('sample types: %s' % out[:300])
    # modules with samples of their own are rows of the report (with build-ids);
    # the others show up in the collapsed stacks as module!frame
    mods = {(m['path'], m['build_id']) for m in report['modules'] if m['path']}
    paths = {m['path'] for m in report['modules']}
    framed = set(re.findall(r'(?:^|;)([^;!]+)!', open(D + '/collapsed.txt', encoding='utf-8').read(), re.M))
    maps, rows = {}, set()
    # "ID: start/limit/offset FILE BUILDID [FN]" (FN: has functions)
    for m in re.finditer(r'^(\d+): 0x([0-9a-f]+)/0x([0-9a-f]+)/0x[0-9a-f]+ (.*?) ?(\[FN\])?$',
                         out[out.index('\nMappings\n'):], re.M):
        rest = m.group(4).rstrip()
        cand = [(rest, '')] + ([tuple(rest.rsplit(' ', 1))] if ' ' in rest else [])
        mod = [c for c in cand if c in mods]
        if mod:
            rows.add(mod[0])
        else:
            mod = [c for c in cand if c[0] not in paths and re.split(r'[/\\]', c[0])[-1] in framed]
            if not mod:
                die('mapping %r is not a module of the report' % rest)
        maps[m.group(1)] = (int(m.group(2), 16), int(m.group(3), 16)) + mod[0]
    if not maps:
        die('no mappings')
    locs = out[out.index('\nLocations\n'):out.index('\nMappings\n')]
    placed = 0
    for m in re.finditer(r'^\s+\d+: 0x([0-9a-f]+) M=(\d+) ', locs, re.M):
        lo, hi, _, _ = maps[m.group(2)]
        if not lo <= int(m.group(1), 16) < hi:
            die('location 0x%s outside its mapping %s' % (m.group(1), m.group(2)))
        placed += 1
    top_mod = report['modules'][0]
    if (top_mod['path'], top_mod['build_id']) not in {(v[2], v[3]) for v in maps.values()}:
        die('the top module %s is not a mapping' % top_mod['path'])
    if rows != mods:
        die('modules with samples without a mapping: %s' % sorted(mods - rows)[:5])
    print('  %d mappings (the %d modules of the report\'s rows with their build-ids), '
          '%d locations inside them' % (len(maps), len(rows), placed))


def check_live():
    _, rows = top(0)
    cum = {name: c for name, _, c in rows}
    if rows[0][0] != 'spin' or not cum.get('hot_a', 0) > cum.get('hot_b', 0) > 0:
        die('live: top %s, hot_a %d, hot_b %d samples' %
            (rows[0][0], cum.get('hot_a', 0), cum.get('hot_b', 0)))
    print('  live: spin on top; hot_a %d, hot_b %d samples' % (cum['hot_a'], cum['hot_b']))


check_top()
check_traces()
check_raw()
if sys.argv[2:] == ['--live']:
    check_live()
