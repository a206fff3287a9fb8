#!/bin/bash
# The exporter's output is valid for Prometheus: promtool check metrics on the
# text format and prometheus_client's OpenMetrics parser on OpenMetrics (promtool
# 2.42 parses the text format only), for every collector, both formats and the
# three naming modes, on this host and on the synthetic 256-CPU host. Through
# the library (tests/expo_dump), and through `pmukit exporter --once` when the
# command has it.
. "$(dirname "$0")/lib.sh"
command -v promtool >/dev/null || skip "promtool not installed (Debian package prometheus)"
dump="$BUILDDIR/tests/expo_dump"
[ -x "$dump" ] || skip "$dump not built"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
om_ok=0
/usr/bin/python3 -c "import prometheus_client.openmetrics.parser" 2>/dev/null && om_ok=1
[ $om_ok = 1 ] || echo "note: python3-prometheus-client missing: OpenMetrics output not parsed"

om_check() {
  /usr/bin/python3 - "$1" <<'PY'
import sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families as parse
n = sum(len(f.samples) for f in parse(open(sys.argv[1]).read()))
sys.exit(0 if n > 0 else 1)
PY
}

# $1 label, $2 format; the rest: expo_dump arguments (the format again first)
valid() {
  local what=$1 fmt=$2 out="$tmp/out"
  shift 2
  if ! "$dump" "$@" > "$out" 2> "$tmp/err"; then
    fail "$what: expo_dump failed: $(cat "$tmp/err")"
    return
  fi
  if [ "$fmt" = text ]; then
    check "$what: promtool accepts it" sh -c "promtool check metrics < '$out'"
  elif [ $om_ok = 1 ]; then
    check "$what: OpenMetrics parser accepts it" om_check "$out"
    check "$what: ends in # EOF" sh -c "tail -n 1 '$out' | grep -qx '# EOF'"
  fi
}

for c in cpu cpuidle cpufreq interrupts pmu contention; do
  valid "host $c" text text native "$c" 2 "cpu-clock,cycles,instructions"
done
for fmt in text openmetrics; do
  for m in native node windows; do
    valid "host all $fmt $m" $fmt $fmt $m all 2
  done
done
out=$("$dump" text native cpu 1)
check "host: one series per online CPU and mode" \
  test "$(grep -c '^pmukit_cpu_seconds_total{' <<<"$out")" -ge "$(nproc)"

sh "$SRCDIR/tests/fixtures/sysroot-256/make.sh" "$tmp/root" 256
for fmt in text openmetrics; do
  for m in native node windows; do
    PMUKIT_SYSROOT="$tmp/root" valid "256 CPUs $fmt $m" $fmt $fmt $m \
      cpu,cpuidle,cpufreq,interrupts,contention 2
  done
done
out=$(PMUKIT_SYSROOT="$tmp/root" "$dump" text node cpu,cpufreq 2)
check_eq "256 CPUs: node_cpu_seconds_total series" 2048 \
  "$(grep -c '^node_cpu_seconds_total{' <<<"$out")"
check "256 CPUs: cpu 255 frequency" grep -qx 'node_cpu_scaling_frequency_hertz{cpu="255"} 2000255000' <<<"$out"

# The command's --once, once the exporter verb exists (tools/pmukit/cmd_exporter.c).
if "$PMUKIT" exporter --once --collectors cpu > "$tmp/once" 2>/dev/null; then
  for m in native node windows; do
    flag=()
    [ $m = native ] || flag=(--compat $m)
    "$PMUKIT" exporter --once "${flag[@]}" > "$tmp/once" 2> "$tmp/err"
    check "pmukit exporter --once $m: promtool accepts it" \
      sh -c "promtool check metrics < '$tmp/once'"
    if [ $om_ok = 1 ]; then
      "$PMUKIT" exporter --once --openmetrics "${flag[@]}" > "$tmp/once" 2> "$tmp/err"
      check "pmukit exporter --once --openmetrics $m: parser accepts it" om_check "$tmp/once"
    fi
  done
else
  echo "note: pmukit exporter --once not available in this build: checked through the library only"
fi
# --service is the Windows SCM's; on Linux a usage error that points to systemd
"$PMUKIT" exporter --service >/dev/null 2>"$tmp/err"
check_eq "--service on Linux: usage error" 2 $?
check "--service on Linux: says to use systemd" grep -q systemd "$tmp/err"
finish
