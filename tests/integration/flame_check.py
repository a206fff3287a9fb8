# SPDX-License-Identifier: MIT
"""Checks of a flame graph SVG against the collapsed stacks of the same report
(test_flame_svg.sh). Usage: flame_check.py CHECK COLLAPSED SVG [ARGS...]

  static              the written SVG: tree, counts, kept/omitted frames, labels
  loaded              a DOM Chromium dumped after the script ran, no URL state
  zoom ID             ... loaded with #zoom=ID (ID: a frame id or a frame name)
  search RE [ZOOMID]  ... loaded with the search RE (and a zoom)
Exits 1 with the reason on the first difference."""
import re
import sys
import xml.etree.ElementTree as ET

NS = '{http://www.w3.org/2000/svg}'
PLOT, PAD, FRAME_H, MIN_PX, CHAR_W = 1180.0, 10.0, 16, 0.1, 7.2


def die(msg):
    print('flame_check: ' + msg)
    sys.exit(1)


def collapsed_tree(path):
    """{(all, proc, root, ..., frame): samples} of every prefix, and the stacks."""
    tree, stacks = {}, []
    for line in open(path, encoding='utf-8'):
        body, _, n = line.rstrip('\n').rpartition(' ')
        frames = ['all'] + body.split(';')
        stacks.append((frames, int(n)))
        for d in range(1, len(frames) + 1):
            key = tuple(frames[:d])
            tree[key] = tree.get(key, 0) + int(n)
    return tree, stacks


def folded_name(s):
    """A name as the collapsed format writes it."""
    return ''.join(':' if c == ';' else ' ' if ord(c) < 0x20 else c for c in s)


def label(name, w):
    """The label the writer and the script draw in a frame w pixels wide."""
    m = int((w - 6) // CHAR_W) if w >= 6 else 0
    if m < 3:
        return ''
    return name if len(name) <= m else name[:m - 2] + '..'


def frames_of(svg_path):
    root = ET.parse(svg_path).getroot()
    group = [g for g in root.iter(NS + 'g') if g.get('id') == 'frames']
    if len(group) != 1:
        die('no <g id="frames">')
    out = []
    for g in group[0]:
        kids = [c.tag[len(NS):] for c in g]
        if kids != ['title', 'rect', 'text']:
            die('frame %s holds %s, not title, rect, text' % (g.get('id'), kids))
        title = g[0].text or ''
        m = re.fullmatch(r'(.*) \((\d+) samples, (\d+\.\d\d)%\)', title, re.S)
        if not m:
            die('title %r is not "name (N samples, P%%)"' % title)
        r = g[1]
        out.append({'id': g.get('id'), 'cls': (g.get('class') or '').split(),
                    'x': int(g.get('data-x')), 'n': int(g.get('data-n')),
                    'name': m.group(1), 'tn': int(m.group(2)), 'pct': m.group(3),
                    'rx': float(r.get('x')), 'ry': int(r.get('y')),
                    'rw': float(r.get('width')), 'text': g[2].text or ''})
    return root, out


def add_paths(frames):
    """Each frame's path from the root, found by depth (rect y) and sample range."""
    roots = [f for f in frames if 'root' in f['cls']]
    if len(roots) != 1:
        die('%d root frames' % len(roots))
    base = roots[0]['ry']
    by_depth = {}
    for f in frames:
        f['depth'] = (base - f['ry']) // FRAME_H
        by_depth.setdefault(f['depth'], []).append(f)
    for d in sorted(by_depth):
        for f in by_depth[d]:
            if d == 0:
                f['path'] = ('all',)
                continue
            up = [p for p in by_depth.get(d - 1, []) if p['x'] <= f['x'] < p['x'] + p['n']]
            if len(up) != 1:
                die('frame %s (%s) has %d parents' % (f['id'], f['name'], len(up)))
            f['path'] = up[0]['path'] + (folded_name(f['name']),)
    return {f['id']: f for f in frames}


def check_static(tree, root, frames):
    total = tree[('all',)]
    if int(root.get('data-total')) != total:
        die('data-total %s, collapsed total %d' % (root.get('data-total'), total))
    kept = {k for k, n in tree.items() if n * PLOT / total >= MIN_PX}
    seen = set()
    for f in frames:
        p = f['path']
        if p not in tree:
            die('frame %s: %s is not a stack prefix of the collapsed output' % (f['id'], p))
        if not f['n'] == f['tn'] == tree[p]:
            die('frame %s: %d/%d samples, collapsed says %d' % (f['id'], f['n'], f['tn'], tree[p]))
        if f['pct'] != '%.2f' % (100.0 * f['n'] / total):
            die('frame %s: %s%% of %d' % (f['id'], f['pct'], total))
        if abs(f['rw'] - f['n'] * PLOT / total) > 0.006:
            die('frame %s: width %.2f for %d samples' % (f['id'], f['rw'], f['n']))
        if f['text'] != label(f['name'], f['rw']):
            die('frame %s: label %r for %r in %.2f px' % (f['id'], f['text'], f['name'], f['rw']))
        seen.add(p)
    if seen != kept or len(seen) != len(frames):
        die('%d frames drawn (%d distinct), %d nodes are at least %.1f px wide' %
            (len(frames), len(seen), len(kept), MIN_PX))
    if int(root.get('data-frames')) != len(frames) or \
            int(root.get('data-omitted')) != len(tree) - len(kept):
        die('data-frames %s / data-omitted %s, expected %d / %d' %
            (root.get('data-frames'), root.get('data-omitted'), len(frames), len(tree) - len(kept)))
    # the top of the graph, spelled out: processes and their widest frames
    top = sorted((k for k in kept if len(k) == 3), key=lambda k: -tree[k])[:5]
    for k in top:
        print('  top frame %s: %d samples' % (' > '.join(k[1:]), tree[k]))


def check_loaded(root, frames, shown):
    if root.get('data-state') != 'ready':
        die('the script did not finish (data-state %r)' % root.get('data-state'))
    if int(root.get('data-shown')) != shown:
        die('data-shown %s, expected %d' % (root.get('data-shown'), shown))


def zoom_target(frames, arg):
    if arg in frames:
        return frames[arg]
    named = [f for f in frames.values() if f['name'] == arg]
    if not named:
        die('no frame named %r' % arg)
    return max(named, key=lambda f: f['n'])  # first of the widest: document order


def check_zoom(root, frames, z):
    if root.get('data-zoom') != z['id']:
        die('data-zoom %r, expected %s' % (root.get('data-zoom'), z['id']))
    shown = 0
    for f in frames.values():
        p, zp = f['path'], z['path']
        if p[:len(zp)] == zp:  # the frame zoomed into and what it called
            x = PAD + (f['x'] - z['x']) * PLOT / z['n']
            w = f['n'] * PLOT / z['n']
            if 'hide' in f['cls'] or abs(f['rx'] - x) > 0.006 or abs(f['rw'] - w) > 0.006:
                die('frame %s in the zoomed subtree at %.2f+%.2f, expected %.2f+%.2f %s' %
                    (f['id'], f['rx'], f['rw'], x, w, f['cls']))
            if f['text'] != label(f['name'], w):
                die('frame %s: label %r after zoom' % (f['id'], f['text']))
            shown += 1
        elif zp[:len(p)] == p:  # its callers: full width, dimmed
            if 'parent' not in f['cls'] or 'hide' in f['cls'] or f['rx'] != PAD or f['rw'] != PLOT:
                die('caller %s of the zoomed frame: %s at %.2f+%.2f' % (f['id'], f['cls'], f['rx'], f['rw']))
            shown += 1
        elif 'hide' not in f['cls']:
            die('frame %s (%s) outside the zoomed subtree is shown' % (f['id'], f['name']))
    check_loaded(root, frames, shown)
    print('  zoomed into %s (%s): %d frames shown' % (z['id'], z['name'], shown))


def check_search(root, frames, stacks, total, rx):
    """Matched samples: stacks through a drawn frame whose name matches."""
    drawn = {f['path'] for f in frames.values()}
    want = 0
    for fr, n in stacks:
        if any(tuple(fr[:d]) in drawn and rx.search(fr[d - 1]) for d in range(1, len(fr) + 1)):
            want += n
    got = root.get('data-matched-samples')
    if got != str(want) or root.get('data-matched') != '%.2f' % (100.0 * want / total):
        die('matched %s samples (%s%%), expected %d (%.2f%%)' %
            (got, root.get('data-matched'), want, 100.0 * want / total))
    for f in frames.values():
        if ('match' in f['cls']) != bool(rx.search(f['name'])):
            die('frame %s (%s): match class %s' % (f['id'], f['name'], 'match' in f['cls']))
    print('  search %r: %d of %d samples (%s%%)' % (rx.pattern, want, total, root.get('data-matched')))


def main():
    check, collapsed, svg = sys.argv[1:4]
    tree, stacks = collapsed_tree(collapsed)
    root, fl = frames_of(svg)
    frames = add_paths(fl)
    if check == 'static':
        check_static(tree, root, fl)
    elif check == 'loaded':
        check_loaded(root, frames, len(fl))
        if root.get('data-zoom') or root.get('data-search'):
            die('zoom/search set without asking')
    elif check == 'zoom':
        check_zoom(root, frames, zoom_target(frames, sys.argv[4]))
    elif check == 'search':
        if root.get('data-search') != sys.argv[4]:
            die('data-search %r, expected %r' % (root.get('data-search'), sys.argv[4]))
        check_search(root, frames, stacks, tree[('all',)], re.compile(sys.argv[4]))
        if len(sys.argv) > 5:
            check_zoom(root, frames, zoom_target(frames, sys.argv[5]))
        elif root.get('data-zoom'):
            die('zoomed without asking')
    else:
        die('unknown check ' + check)


main()
