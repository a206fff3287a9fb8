#!/bin/bash
# Recording cost, pmukit record against perf record side by side: cpu-clock on both
# CPUs (-a) at 10 kHz and at the kernel's maximum rate, while the hotspot workload
# runs one thread per CPU. Per run: samples written, lost, bytes per sample (all
# three read from each file by `perf report --stats`, one judge for both), and the
# workload's slowdown (its loops/s alone over its loops/s while recorded).
# Targets (issue 10): never more lost than perf; slowdown no worse than perf's.
# usage: bench/record.sh [BUILD_DIR]   (BENCH_SECONDS: workload length, default 2)
set -u
B=${1:-build}
PMUKIT=$B/pmukit HOT=$B/hotspot S=${BENCH_SECONDS:-2}
for x in "$PMUKIT" "$HOT"; do [ -x "$x" ] || { echo "record.sh: $x missing: make build" >&2; exit 2; }; done
command -v perf >/dev/null || { echo "record.sh: perf missing (Debian linux-perf)" >&2; exit 2; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
ncpu=$(nproc); ms=$((S * 1000))

loops() { sed -n 's/^hotspot: \([0-9]*\) loops\/s$/\1/p' "$1"; }
# samples lost bytes-per-sample of a perf.data, as perf report --stats counts them
stats() {
	perf report -i "$1" --stats 2>/dev/null | awk -v size="$(stat -c %s "$1")" '
		/^ *SAMPLE events:/ && !s { s = $3 }
		/^ *LOST events:/ && !l { l = $3 }
		/^ *LOST_SAMPLES events:/ && !ls { ls = $3 }
		END { printf "%d %d %.1f\n", s, l + ls, s ? size / s : 0 }'
}
# how many samples each LOST record stood for is in perf's own summary line
lost_count() { perf report -i "$1" --stdio 2>/dev/null | sed -n 's/^# Total Lost Samples: *//p' | head -1; }

max=$(cat /proc/sys/kernel/perf_event_max_sample_rate)
printf '%-9s %-7s %9s %9s %8s %9s %9s\n' rate tool samples lost B/sample loops/s slowdown
for rate in 10000 "$max"; do
	"$HOT" -t "$ncpu" -s "$ms" >"$tmp/base" || exit 1
	base=$(loops "$tmp/base")
	for tool in perf pmukit; do
		f=$tmp/$tool.data
		if [ $tool = perf ]; then
			perf record -q -e cpu-clock -F "$rate" -a -o "$f" -- "$HOT" -t "$ncpu" -s "$ms" \
				>"$tmp/out" 2>"$tmp/err"
		else
			"$PMUKIT" record -e cpu-clock -F "$rate" -a -o "$f" -- "$HOT" -t "$ncpu" -s "$ms" \
				>"$tmp/out" 2>"$tmp/err"
		fi || { echo "record.sh: $tool record failed:"; cat "$tmp/err"; exit 1; }
		read -r n lost bps < <(stats "$f")
		lost=$(lost_count "$f"); lost=${lost:-0}
		l=$(loops "$tmp/out")
		eval "${tool}_lost=$lost ${tool}_slow=$(awk -v b="$base" -v l="$l" 'BEGIN{printf "%.3f", b / l}')"
		printf '%-9s %-7s %9s %9s %8s %9s %9s\n' "$rate" $tool "$n" "$lost" "$bps" "$l" \
			"$(eval echo \$${tool}_slow)"
	done
	awk -v pl="$perf_lost" -v ml="$pmukit_lost" -v ps="$perf_slow" -v ms="$pmukit_slow" -v r="$rate" 'BEGIN {
		printf "%-9s ratio   lost pmukit/perf %s/%s (%s), slowdown pmukit/perf %.3f (%s)\n", r, ml, pl,
			(ml <= pl ? "target met" : "MORE LOST THAN PERF"), ms / ps,
			(ms <= ps * 1.05 ? "target met" : "SLOWER THAN PERF") }'
done
