#!/bin/bash
# record -d's node answers on the page-faults path (the one that works without a
# PMU): numa_touch touches 64 + 32 + 16 pages of numa_global_a, numa_static_b and
# the heap, each first touch one fault; report --sort node,data_object must give
# those exact counts on this host's node, all local; perf 6.1 still reads the file.
set -u
. "$(dirname "$0")/lib.sh"
[ "$(uname -s)" = Linux ] || skip "record -d is Linux only"
W=${WORKLOAD_DIR:-build}/numa_touch
[ -x "$W" ] || skip "$W missing: make build"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

"$PMUKIT" record -e page-faults -c 1 -d -o "$out/n.data" -- true >/dev/null 2>"$out/err" ||
	skip "page-faults cannot be recorded here: $(tail -1 "$out/err")"
nodes=$(ls -d /sys/devices/system/node/node[0-9]* 2>/dev/null | wc -l)
[ "$nodes" -ge 1 ] || skip "the kernel shows no NUMA node (/sys/devices/system/node)"
node=$(basename "$(ls -d /sys/devices/system/node/node[0-9]* | head -1)"); node=${node#node}

# main thread on CPU 0, numa_static_b touched by a thread pinned to the last CPU
last=$(($(nproc) - 1))
"$PMUKIT" record -e page-faults -c 1 -d -o "$out/n.data" -- "$W" -c 0 -T "$last" \
	>"$out/w" 2>"$out/err"
check "record -e page-faults -c 1 -d of numa_touch: exit 0" test $? -eq 0 -a -s "$out/n.data"
"$PMUKIT" report -i "$out/n.data" --sort node,data_object --json >"$out/j" 2>"$out/err"
check "report --sort node,data_object --json: exit 0" test $? -eq 0
row() { # object field
	py "import json,sys
d=json.load(open('$out/j'))
r=[x for x in d['rows'] if x['data_object']=='$1']
print(r[0]['$2'] if len(r)==1 else 'rows:%d' % len(r))"
}
for o in numa_global_a:64 numa_static_b:32 '[heap]:16'; do
	name=${o%:*} want=${o##*:}
	check_eq "$name: exactly its $want first-touch faults" "$want" "$(row "$name" samples)"
	check_eq "$name: on node $node (the node move_pages answered)" "$node" "$(row "$name" node)"
	check_eq "$name: every fault local (one node: the CPU's node is the page's)" "$want" \
		"$(row "$name" local)"
done
check_eq "numa_global_a is found in the workload's symbol table" "$(readlink -f "$W")" \
	"$(readlink -f "$(row numa_global_a module)")"
ans=$(py "import json
d=json.load(open('$out/j'))['node_answers']
print(d['recorded'], d['by_query'] + d['by_phys_addr'] >= 112, d['method'] != 'none')")
check_eq "the answers are in the file: at least the 112 pages answered, method named" \
	"True True True" "$ans"
lag=$(py "import json
d=json.load(open('$out/j'))['node_answers']
print(d['answer_lag_samples'] > 0, 0 < d['answer_lag_max_ns'] < 5e9)")
check_eq "each answer timestamped: it came after its samples, within seconds" "True True" "$lag"
threads=$(py "import json
t=[x for x in json.load(open('$out/j'))['threads'] if x['comm']=='numa_touch']
print(len(t), sum(x['remote'] for x in t), sum(x['samples'] for x in t) >= 112)")
check_eq "local vs remote per thread: the main and the pinned thread, nothing remote" \
	"2 0 True" "$threads"
"$PMUKIT" report -i "$out/n.data" --sort node,data_object,sym >"$out/t" 2>"$out/err"
check "text: says the method and the pages without an answer" \
	grep -q "^# node answers (method .*pages without an answer" "$out/t"
check "text: numa_global_a touched in touch()" \
	grep -Eq "^ +[0-9.]+% +64 .* $node +numa_global_a \(numa_touch\) +touch$" "$out/t"
check "text: local vs remote sections" \
	test "$(grep -c '^# Local vs remote per' "$out/t")" -eq 2

# perf 6.1 reads the file: the unknown feature is skipped, NUMA_TOPOLOGY is its own
if command -v perf >/dev/null; then
	n=$(py "import json; print(json.load(open('$out/j'))['samples'])")
	perf script -i "$out/n.data" >"$out/ps" 2>"$out/perr"
	check "perf script reads it: exit 0" test $? -eq 0
	check_eq "perf script: every sample" "$n" "$(wc -l <"$out/ps")"
	perf report -i "$out/n.data" --stdio >"$out/pr" 2>"$out/perr"
	check "perf report --stdio reads it: exit 0, $n samples" \
		grep -q "^# Samples: $n " "$out/pr"
	perf report -i "$out/n.data" --header-only -I >"$out/ph" 2>"$out/perr"
	check "perf report --header-only -I: exit 0, NUMA_TOPOLOGY shown" \
		grep -q "^# node$node cpu list" "$out/ph"
fi

# without queries: no PHYS_ADDR for a faulting page (not mapped yet), so no answers
"$PMUKIT" record -e page-faults -c 1 -d --no-node-query -o "$out/q.data" -- "$W" >/dev/null 2>&1
"$PMUKIT" report -i "$out/q.data" --sort node,data_object --json >"$out/qj" 2>/dev/null
check_eq "--no-node-query: nothing queried, numa_global_a without a node" "0 -1" "$(py "import json
d=json.load(open('$out/qj'))
print(d['node_answers']['by_query'], [x for x in d['rows'] if x['data_object']=='numa_global_a'][0]['node'])")"
# a recording without -d: said, not guessed
"$PMUKIT" record -e page-faults -c 1 -o "$out/p.data" -- "$W" >/dev/null 2>&1
"$PMUKIT" report -i "$out/p.data" --sort node >"$out/pt" 2>&1
check "no -d: the report says there are no node answers" grep -q "no node answers" "$out/pt"
"$PMUKIT" report -i "$out/n.data" --sort node,dso >/dev/null 2>"$out/err"
check "--sort node,dso: a usage error naming the keys that combine" \
	test $? -eq 2 -a -n "$(grep "node, data_object, sym" "$out/err")"
finish
