#!/bin/bash
# Cost of node attribution while recording (issue 12): pmukit record -e page-faults
# -d of touch_pages (N fresh pages, one fault each, then a short spin so the last
# pages are asked about while the process lives), with and without the node
# queries (--no-node-query), at about 1 kHz and 10 kHz of samples: -c is set from
# the workload's own fault rate, measured first. Per run (best of REPS): wall and
# CPU seconds of the whole recording (pmukit + workload), samples and samples/s,
# the pages answered / distinct pages sampled, the time spent in move_pages; then
# the extra CPU of the queries. Target: under 5% extra at 1 kHz, every page answered.
# usage: bench/numa.sh [BUILD_DIR]   (NUMA_PAGES: pages touched, default 100000;
#                                     REPS: runs per setting, default 3)
set -u
B=${1:-build}
PMUKIT=$B/pmukit W=$B/touch_pages N=${NUMA_PAGES:-100000} REPS=${REPS:-3} SPIN=200
for x in "$PMUKIT" "$W"; do [ -x "$x" ] || { echo "numa.sh: $x missing: make build" >&2; exit 2; }; done
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
TIMEFORMAT='%R %U %S'

# the workload's fault rate alone (faults/s of its touching phase)
t=$( { time "$W" "$N" >/dev/null; } 2>&1 | awk '{ print $1 }')
rate=$(awk -v n="$N" -v t="$t" 'BEGIN { printf "%d", n / (t > 0 ? t : 1e-3) }')
echo "# touch_pages $N: $t s alone, ~$rate faults/s; best of $REPS runs each"
"$PMUKIT" record -e page-faults -c 1000 -d -o "$tmp/probe.data" -- true >/dev/null 2>"$tmp/err" ||
	{ echo "numa.sh: page-faults cannot be recorded here: $(tail -1 "$tmp/err")" >&2; exit 2; }

# one run: "wall cpu samples answered pages query_ms"
run() { # period extra-args...
	local period=$1; shift
	local tm
	tm=$( { time "$PMUKIT" record -e page-faults -c "$period" -d "$@" -o "$tmp/r.data" -- \
		"$W" "$N" -s "$SPIN" >/dev/null 2>"$tmp/rec.err"; } 2>&1 | tail -1)
	"$PMUKIT" report -i "$tmp/r.data" --sort node --json >"$tmp/j" 2>/dev/null || { echo "x"; return; }
	python3 -c "
import json, sys
d = json.load(open('$tmp/j')); a = d['node_answers']
w, u, s = (float(x) for x in '$tm'.split())
print('%.3f %.3f %d %d %d %.2f' % (w, u + s, d['samples_with_addr'],
      a['by_query'] + a['by_phys_addr'], a['pages'], a['query_ns'] / 1e6))"
}
best() { # period extra-args...: the run with the least CPU of REPS
	for _ in $(seq "$REPS"); do run "$@"; done | sort -k2 -n | head -1
}

printf '%-7s %-9s %8s %8s %8s %10s %14s %9s\n' rate queries wall_s cpu_s samples samples/s \
	answered/pages move_ms
for target in 1000 10000; do
	period=$(( rate / target )); [ "$period" -ge 1 ] || period=1
	read -r w0 c0 s0 a0 p0 q0 <<<"$(best "$period" --no-node-query)"
	read -r w1 c1 s1 a1 p1 q1 <<<"$(best "$period")"
	for q in off on; do
		if [ $q = off ]; then set -- "$w0" "$c0" "$s0" "$a0" "$p0" "$q0"; else set -- "$w1" "$c1" "$s1" "$a1" "$p1" "$q1"; fi
		printf '%-7s %-9s %8s %8s %8s %10.0f %14s %9s\n' "~$target" "$q" "$1" "$2" "$3" \
			"$(awk -v s="$3" -v w="$1" 'BEGIN { print (w > 0 ? s / w : 0) }')" "$4/$5" "$6"
	done
	awk -v c0="$c0" -v c1="$c1" -v a="$a1" -v p="$p1" -v t="$target" -v q="$q1" 'BEGIN {
		x = c0 > 0 ? 100 * (c1 - c0) / c0 : 0
		printf "# ~%d Hz: queries cost %+.1f%% CPU measured (noise of a shared machine), ", t, x
		printf "%.2f%% in move_pages itself (target < 5%% at 1 kHz); ", (c0 > 0 ? 100 * q / 1000 / c0 : 0)
		printf "%.1f%% of pages answered\n", (p ? 100 * a / p : 0) }'
done
