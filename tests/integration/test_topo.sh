#!/bin/bash
# pmukit topo end to end: the live host (text, JSON schema, counts against the kernel's
# lists and hwloc's own tools), and a fixture sysfs tree read through PMUKIT_SYSROOT.
set -u
. "$(dirname "$0")/lib.sh"

ncpu_list() { py "
import sys
n = 0
for part in open(sys.argv[1]).read().strip().split(','):
    a, _, b = part.partition('-')
    n += int(b or a) - int(a) + 1
print(n)" "$1"; }

# 1. text: one summary line with the host's counts
text=$("$PMUKIT" topo) || fail "pmukit topo failed"
present=$(ncpu_list /sys/devices/system/cpu/present)
online=$(ncpu_list /sys/devices/system/cpu/online)
echo "$text" | head -3
check "summary line counts $present CPUs, $online online" \
	grep -Eq "^[0-9]+ packages?, [0-9]+ dies?, [0-9]+ cores?, $present CPUs? \($online online\)" <<<"$text"
check "text has a cache table" grep -q '^L1d ' <<<"$text"
check "text has a NUMA table" grep -q '^node ' <<<"$text"

# 2. JSON: keys, one entry per present CPU, cross-references hold
json=$("$PMUKIT" topo --json) || fail "pmukit topo --json failed"
check "JSON schema and consistency" py "
import json, sys
d = json.loads(sys.argv[1])
for k in ('packages', 'dies', 'cores', 'cpus', 'caches', 'numa_nodes'):
    assert isinstance(d[k], list) and d[k], k
cpus = d['cpus']
assert len(cpus) == int(sys.argv[2]), (len(cpus), sys.argv[2])
assert sum(c['online'] for c in cpus) == int(sys.argv[3])
for c in cpus:
    for k in ('id', 'online', 'package', 'die', 'core', 'numa_node', 'core_type',
              'efficiency_class', 'pmu', 'smt'):
        assert k in c, k
    if c['online']:
        core = d['cores'][c['core_index']]
        assert c['id'] in core['cpus'] and core['package'] == c['package']
        assert core['cpus'].index(c['id']) == c['smt']
ids = [n['id'] for n in d['numa_nodes']]
for n in d['numa_nodes']:
    assert len(n['distances']) == len(ids) and n['memory_bytes'] > 0
    assert n['distances'][ids.index(n['id'])] == 10
for k in d['caches']:
    for f in ('level', 'type', 'size', 'line_size', 'ways', 'cpus'):
        assert f in k, f
    assert k['size'] > 0 and k['cpus']
assert sum(len(c['cpus']) for c in d['cores']) == sum(c['online'] for c in cpus)
" "$json" "$present" "$online"
check_eq "JSON CPU count = nproc --all" "$(nproc --all)" \
	"$(py 'import json,sys; print(len(json.loads(sys.argv[1])["cpus"]))' "$json")"

# 3. the same counts as hwloc's own tool, where it is installed
if command -v hwloc-calc >/dev/null; then
	for what in core:cores numa:numa_nodes package:packages; do
		obj=${what%%:*} key=${what#*:}
		check_eq "$key as hwloc-calc counts" "$(hwloc-calc -N "$obj" all)" \
			"$(py "import json,sys; print(len(json.loads(sys.argv[1])['$key']))" "$json")"
	done
else
	echo "note: hwloc-calc not installed; skipping the comparison with hwloc's tools" >&2
fi

# 4. options
check "--help exits 0" bash -c '"$0" topo --help >/dev/null' "$PMUKIT"
"$PMUKIT" topo --bogus >/dev/null 2>&1
check_eq "unknown option exits 2" 2 $?

# 5. a fixture tree: 2 packages x 2 cores x 2 threads, CPU 7 offline, 2 NUMA nodes
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
sys=$root/sys/devices/system
mkdir -p "$sys/cpu" "$sys/node/node0" "$sys/node/node1"
echo 0-7 >"$sys/cpu/present"
echo 0-6 >"$sys/cpu/online"
for c in 0 1 2 3 4 5 6; do
	t=$sys/cpu/cpu$c/topology
	mkdir -p "$t" "$sys/cpu/cpu$c/cache/index0"
	echo $(( (c % 4) / 2 )) >"$t/physical_package_id"
	echo 0 >"$t/die_id"
	echo $(( c % 2 )) >"$t/core_id"
	i=$sys/cpu/cpu$c/cache/index0
	echo 2 >"$i/level"; echo Unified >"$i/type"; echo 512K >"$i/size"
	echo 64 >"$i/coherency_line_size"; echo 8 >"$i/ways_of_associativity"
	echo $(( c % 4 )),$(( c % 4 + 4 )) >"$i/shared_cpu_list"
done
echo 0-1,4-5 >"$sys/node/node0/cpulist"
echo 2-3,6-7 >"$sys/node/node1/cpulist"
echo "Node 0 MemTotal: 1048576 kB" >"$sys/node/node0/meminfo"
echo "Node 1 MemTotal: 2097152 kB" >"$sys/node/node1/meminfo"
echo "10 21" >"$sys/node/node0/distance"
echo "21 10" >"$sys/node/node1/distance"

ftext=$(PMUKIT_SYSROOT=$root "$PMUKIT" topo) || fail "pmukit topo on the fixture failed"
check "fixture summary" grep -q "^2 packages, 2 dies, 4 cores, 8 CPUs (7 online), 2 NUMA nodes" \
	<<<"$ftext"
check "fixture offline line" grep -q "^offline CPUs: 7$" <<<"$ftext"
fjson=$(PMUKIT_SYSROOT=$root "$PMUKIT" topo --json) || fail "pmukit topo --json on the fixture failed"
check "fixture JSON" py "
import json, sys
d = json.loads(sys.argv[1])
assert d['source'] == 'sysfs'
assert [len(d[k]) for k in ('packages', 'cores', 'cpus', 'numa_nodes', 'caches')] == [2, 4, 8, 2, 4]
c7 = d['cpus'][7]
assert c7['online'] is False and c7['package'] is None and c7['numa_node'] == 1
assert d['cpus'][6]['smt'] == 1 and d['cpus'][6]['package'] == 1
assert [n['memory_bytes'] for n in d['numa_nodes']] == [1 << 30, 2 << 30]
assert [n['distances'] for n in d['numa_nodes']] == [[10, 21], [21, 10]]
assert d['caches'][0]['size'] == 512 << 10 and d['caches'][0]['cpus'] == [0, 4]
" "$fjson"

# 6. a sysroot without sysfs is a clear error, not a crash
empty=$(mktemp -d)
err=$(PMUKIT_SYSROOT=$empty "$PMUKIT" topo 2>&1 >/dev/null)
check_eq "missing sysfs exits 1" 1 $?
check "missing sysfs says why" grep -q "present" <<<"$err"
check "an empty sysroot is blamed, not the mount" \
	grep -q "PMUKIT_SYSROOT points to '$empty', which has no sys/ tree" <<<"$err"
rmdir "$empty"
err=$(PMUKIT_SYSROOT=/nonexistent "$PMUKIT" topo 2>&1 >/dev/null)
check_eq "a missing sysroot exits 1" 1 $?
echo "$err"
check "a missing sysroot is named: PMUKIT_SYSROOT and that it does not exist" \
	grep -q "PMUKIT_SYSROOT points to '/nonexistent', which does not exist" <<<"$err"
check "no 'is sysfs mounted?' when PMUKIT_SYSROOT is the cause" \
	bash -c '! grep -q "sysfs mounted" <<<"$1"' _ "$err"

finish
