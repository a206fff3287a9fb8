#!/bin/bash
# pmukit numa end to end on this host: a helper process with 16 of 32 pages touched,
# queried per address and per mapping; the counts checked against the kernel's own
# /proc/PID/numa_maps and /proc/PID/maps; a process that is gone, another user's
# process, and bad input.
set -u
. "$(dirname "$0")/lib.sh"

[ -d /sys/devices/system/node/node0 ] || skip "this kernel shows no NUMA node (no CONFIG_NUMA)"
TARGET=$BUILDDIR/tests/numa_target
tmp=$(mktemp -d)
"$TARGET" >"$tmp/target" &
tpid=$!
trap 'kill $tpid 2>/dev/null; rm -rf "$tmp"' EXIT
for _ in $(seq 50); do [ -s "$tmp/target" ] && break; sleep 0.1; done
read -r pid start page <"$tmp/target" || { fail "numa_target printed nothing"; finish; exit; }
check_eq "the helper is the process started" "$tpid" "$pid"
node=$(py "
import re, sys
for l in open('/proc/%s/numa_maps' % sys.argv[1]):
    if l.startswith(sys.argv[2][2:].lstrip('0') + ' ') or l.split()[0] == sys.argv[2][2:]:
        print(re.search(r' N(\d+)=16', l).group(1)); break
" "$pid" "$start")
echo "helper $pid: mapping at $start, pages of $page bytes, numa_maps puts them on node $node"
[ -n "$node" ] || fail "numa_maps has no line for $start with N<node>=16"
a_touched=$(printf '0x%x' $((start + 3 * page + 5)))
a_absent=$(printf '0x%x' $((start + 20 * page)))
a_guard=$(printf '0x%x' $((start + 32 * page)))

# 1. per address, text: node, not present, and whatever the guard page and page 0 give
out=$("$PMUKIT" numa -p "$pid" "$a_touched" "$a_absent" 16) || fail "pmukit numa failed"
echo "$out"
check "a touched page is on node $node" grep -Eq "^$a_touched +node $node\$" <<<"$out"
check "an untouched page is not present" grep -Eq "^$a_absent +not present\$" <<<"$out"
check "address 16 is not mapped" grep -Eq "^0x10 +not mapped\$" <<<"$out"

# 2. --json: every page of the mapping, the same answers as numa_maps counts
addrs=$(for i in $(seq 0 31); do printf '0x%x ' $((start + i * page)); done)
# shellcheck disable=SC2086
json=$("$PMUKIT" numa --json -p "$pid" $addrs) || fail "pmukit numa --json failed"
check "--json: 16 pages on node $node, then 16 not present" py "
import json, sys
d = json.loads(sys.argv[1])
a = d['addresses']
assert d['pid'] == int(sys.argv[2]) and len(a) == 32, len(a)
assert all(x['node'] == int(sys.argv[3]) and x['state'] == 'on node' for x in a[:16]), a[:16]
assert all(x['node'] is None and x['state'] == 'not present' for x in a[16:]), a[16:]
assert int(a[5]['address'], 16) == int(sys.argv[4], 16) + 5 * int(sys.argv[5])
" "$json" "$pid" "$node" "$start" "$page"

# 3. --maps: the helper's mapping, every mapping of /proc/PID/maps, totals that add up
maps=$("$PMUKIT" numa -p "$pid" --maps --json) || fail "pmukit numa --maps --json failed"
check "--maps: the helper's mapping, all mappings, totals" py "
import json, sys
d = json.loads(sys.argv[1])
pid, start, page, node = int(sys.argv[2]), int(sys.argv[3], 16), int(sys.argv[4]), int(sys.argv[5])
lines = [l.split() for l in open('/proc/%d/maps' % pid)]
assert len(d['mappings']) == len(lines), (len(d['mappings']), len(lines))
assert d['page_size'] == page
m = [x for x in d['mappings'] if int(x['start'], 16) <= start < int(x['end'], 16)][0]
n = {x['node']: x['pages'] for x in m['nodes']}
assert m['name'] == '[anon]' and m['perms'].startswith('rw'), m
assert n[node] == 16 and sum(n.values()) == 16 and m['not_present'] == 16, m
names = {x['name'] for x in d['mappings']}
assert '[stack]' in names and any(x.endswith('numa_target') for x in names), names
t = d['total']
assert t['pages'] == sum(x['pages'] for x in d['mappings'])
assert t['pages'] == sum((int(l[0].split('-')[1], 16) - int(l[0].split('-')[0], 16)) // page for l in lines)
# Mappings over --max-pages (262144 by default; an ASan build's shadow is terabytes)
# are sampled; every other one is queried page by page.
for x in d['mappings']:
    if x['pages'] <= 262144:
        assert x['queried'] == x['pages'] and not x['sampled'], x
    else:
        assert x['sampled'] and x['queried'] <= 262144, x
for x in d['mappings'] + [t]:
    assert sum(y['pages'] for y in x['nodes']) + x['not_present'] + x['not_mapped'] + x['other'] == x['queried'], x
" "$maps" "$pid" "$start" "$page" "$node"
text=$("$PMUKIT" numa -p "$pid" --maps) || fail "pmukit numa --maps failed"
echo "$text" | head -4
check "--maps text: header with a column per node" grep -Eq "^mapping +pages +node$node .*absent +unmapped +other +name\$" <<<"$text"
check "--maps text: a total row" grep -Eq '^total +[0-9]+ ' <<<"$text"

# 4. --max-pages bounds the work on a large mapping and says so
small=$("$PMUKIT" numa -p "$pid" --maps --json --max-pages 4) || fail "--max-pages 4 failed"
check "--max-pages 4: the 32-page mapping sampled, 1 page in 8 (2 touched, 2 not)" py "
import json, sys
d = json.loads(sys.argv[1])
m = [x for x in d['mappings'] if int(x['start'], 16) <= int(sys.argv[2], 16) < int(x['end'], 16)][0]
assert m['sampled'] and m['queried'] == 4 and m['pages'] == 32, m
assert sum(y['pages'] for y in m['nodes']) == 2 and m['not_present'] == 2, m
" "$small" "$start"
check "--max-pages: the text names the sampling" bash -c \
	'"$0" numa -p "$1" --maps --max-pages 4 | grep -q "(sampled: 1 page in 8, 4 queried)"' "$PMUKIT" "$pid"

# 5. another user's process: no permission, said per address, not an error
if command -v setpriv >/dev/null && [ "$(id -u)" = 0 ]; then
	out=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$PMUKIT" numa -p "$pid" "$a_touched" 2>&1)
	if [ $? = 126 ] || grep -q "Permission denied" <<<"$out"; then
		echo "note: user nobody cannot run $PMUKIT here: $out"
	else
		check "another user's process: no permission" grep -Eq "^$a_touched +no permission\$" <<<"$out"
		out=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$PMUKIT" numa -p "$pid" --maps 2>&1)
		check_eq "--maps of another user's process exits 1" 1 $?
		echo "$out"
	fi
else
	echo "note: not root or no setpriv: the no-permission case is not run"
fi

# 6. a process that is gone
kill "$tpid"; wait "$tpid" 2>/dev/null
out=$("$PMUKIT" numa -p "$pid" "$a_touched")
check_eq "a gone process still exits 0 (an answer per address)" 0 $?
check "a gone process: process gone" grep -Eq "^$a_touched +process gone\$" <<<"$out"
out=$("$PMUKIT" numa -p "$pid" --maps 2>&1)
check_eq "--maps of a gone process exits 1" 1 $?
check "--maps of a gone process says why" grep -q "no such process" <<<"$out"

# 7. bad input
"$PMUKIT" numa 0x1000 >/dev/null 2>&1
check_eq "no -p exits 2" 2 $?
"$PMUKIT" numa -p 1 xyz >/dev/null 2>&1
check_eq "a word that is no address exits 2" 2 $?
"$PMUKIT" numa -p 1 --maps 0x1000 >/dev/null 2>&1
check_eq "--maps with addresses exits 2" 2 $?
"$PMUKIT" numa -p 1 >/dev/null 2>&1
check_eq "neither addresses nor --maps exits 2" 2 $?
check "--help exits 0" bash -c '"$0" numa --help >/dev/null' "$PMUKIT"

finish
