#!/bin/bash
# Reading cost: `pmukit report` against `perf report --stdio` on the same perf.data of
# about 50,000 cpu-clock samples with call graphs (recorded here by perf: the file both
# tools must read), wall time with its peak RSS and the least CPU time (user +
# system) of each, best of three: other work on the machine disturbs CPU time least.
# Target (issue 10): pmukit at least 3x faster than perf report.
# usage: bench/report.sh [BUILD_DIR]   (BENCH_SAMPLES: samples wanted, default 50000)
set -u
B=${1:-build}
PMUKIT=$B/pmukit HOT=$B/hotspot N=${BENCH_SAMPLES:-50000}
for x in "$PMUKIT" "$HOT"; do [ -x "$x" ] || { echo "report.sh: $x missing: make build" >&2; exit 2; }; done
command -v perf >/dev/null || { echo "report.sh: perf missing (Debian linux-perf)" >&2; exit 2; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
ncpu=$(nproc)
# 10 kHz on every CPU: N samples take N / (10000 * ncpu) seconds, plus a margin.
ms=$((N * 1000 / (10000 * ncpu) + 300))
perf record -q -e cpu-clock -F 10000 -a -g -o "$tmp/p.data" -- "$HOT" -t "$ncpu" -s "$ms" >/dev/null 2>&1 ||
	{ echo "report.sh: perf record failed" >&2; exit 1; }
n=$(perf report -i "$tmp/p.data" --stats 2>/dev/null | awk '/^ *SAMPLE events:/ { print $3; exit }')
echo "perf.data: $n samples with call graphs, $(($(stat -c %s "$tmp/p.data") / 1024)) KiB"

# best wall time (s) with its peak RSS (KiB), and the least CPU time (user +
# system, s: what a loaded machine disturbs least) of three runs of "$@"
best() {
	local bt="" br="" bc=""
	for _ in 1 2 3; do
		/usr/bin/time -f '%e %M %U %S' -o "$tmp/t" "$@" >/dev/null 2>"$tmp/err" ||
			{ echo "report.sh: $* failed:"; cat "$tmp/err"; return 1; }
		read -r t r u s <"$tmp/t"
		c=$(awk -v u="$u" -v s="$s" 'BEGIN{printf "%.2f", u + s}')
		if [ -z "$bt" ] || awk -v a="$t" -v b="$bt" 'BEGIN{exit !(a < b)}'; then bt=$t br=$r; fi
		if [ -z "$bc" ] || awk -v a="$c" -v b="$bc" 'BEGIN{exit !(a < b)}'; then bc=$c; fi
	done
	echo "$bt $br $bc"
}
read -r pt pr pc < <(best perf report -i "$tmp/p.data" --stdio) || exit 1
read -r mt mr mc < <(best "$PMUKIT" report -i "$tmp/p.data") || exit 1
printf '%-14s %8s %8s %10s\n' tool seconds "cpu s" "peak KiB" "perf report" "$pt" "$pc" "$pr" \
	"pmukit report" "$mt" "$mc" "$mr"
awk -v p="$pt" -v m="$mt" -v pc="$pc" -v mc="$mc" -v pr="$pr" -v mr="$mr" 'BEGIN {
	s = m > 0 ? p / m : 0
	printf "ratio: pmukit is %.1fx faster than perf report (%s), %.1fx in CPU time, " \
		"RSS pmukit/perf %.2f\n", s, (s >= 3 ? "target met" : "BELOW the 3x target"),
		(mc > 0 ? pc / mc : 0), (pr > 0 ? mr / pr : 0) }'
