#!/bin/bash
# What a scrape costs in files on the synthetic 256-CPU host (PMUKIT_SYSROOT):
# the first scrape opens the per-CPU files, the next ones re-read them and open
# next to nothing (strace -f counts openat), with --collectors cpu and with
# every collector. Then a CPU goes offline and comes back while the server
# runs: its series go, and come back with the new files' values, not the ones
# of the files kept open before.
. "$(dirname "$0")/lib.sh"
command -v strace >/dev/null || skip "strace not installed"
command -v curl >/dev/null || skip "curl not installed"
strace -f -o /dev/null true 2>/dev/null || skip "strace cannot trace here (ptrace refused)"
tmp=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
root=$tmp/root
sh "$SRCDIR/tests/fixtures/sysroot-256/make.sh" "$root" 256
free_port() { py 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
scrape() { curl -sf --retry 50 --retry-connrefused --retry-delay 0 --max-time 10 "http://127.0.0.1:$1/metrics"; }

# opens N ARGS...: openat calls of a server that answers N scrapes
opens() {
  local n=$1 port
  shift
  port=$(free_port)
  PMUKIT_SYSROOT=$root strace -f -qq -e trace=openat -o "$tmp/trace" \
    "$PMUKIT" exporter --listen "127.0.0.1:$port" --max-requests "$n" "$@" 2>/dev/null &
  pid=$!
  for _ in $(seq "$n"); do scrape "$port" > /dev/null || break; done
  wait "$pid"
  pid=
  grep -c 'openat(' "$tmp/trace"
}

for args in "--collectors cpu --compat node" ""; do
  one=$(opens 1 $args)
  eleven=$(opens 11 $args)
  echo "note: ${args:-all collectors}: $one openat for 1 scrape, $eleven for 11"
  check "${args:-all collectors}: 10 scrapes more open at most 10 files (not per CPU)" \
    test $((eleven - one)) -le 10
done
check "all collectors: the first scrape opens the per-CPU files (strace sees them)" \
  test "$(opens 1)" -ge 2000

# hotplug through the running server
port=$(free_port)
PMUKIT_SYSROOT=$root "$PMUKIT" exporter --listen "127.0.0.1:$port" 2>"$tmp/log" &
pid=$!
scrape "$port" > "$tmp/m1"
check "cpu255's idle state is served" \
  grep -q '^pmukit_cpuidle_entries_total{cpu="255",state="C1"} 2551$' "$tmp/m1"
cpu=$root/sys/devices/system/cpu/cpu255
grep -v '^cpu255 ' "$root/proc/stat" > "$tmp/stat" && cat "$tmp/stat" > "$root/proc/stat"
rm -rf "$cpu"
scrape "$port" > "$tmp/m2"
# (/proc/interrupts, left as it is, still has its column)
check "offline: no cpu255 series from /proc/stat and its sysfs files" \
  sh -c "! grep -v '^pmukit_cpu_interrupts' '$tmp/m2' | grep -q 'cpu=\"255\"'"
check "offline: cpu254 still there" grep -q 'cpu="254"' "$tmp/m2"
echo "cpu255 7 0 7 7 0 0 0 0 0 0" >> "$root/proc/stat"
mkdir -p "$cpu/cpuidle/state0" "$cpu/cpufreq"
echo C1 > "$cpu/cpuidle/state0/name"
echo 5 > "$cpu/cpuidle/state0/usage"
echo 9 > "$cpu/cpuidle/state0/time"
echo 1234000 > "$cpu/cpufreq/scaling_cur_freq"
scrape "$port" > "$tmp/m3"
check "online again: the new idle counter, not the old file's" \
  grep -q '^pmukit_cpuidle_entries_total{cpu="255",state="C1"} 5$' "$tmp/m3"
check "online again: the states it has now (no C0, C2 left over)" \
  sh -c "! grep -q 'cpu=\"255\",state=\"C[02]\"' '$tmp/m3'"
check "online again: the new frequency" \
  grep -q '^pmukit_cpu_frequency_hertz{cpu="255"} 1234000000$' "$tmp/m3"
kill "$pid"
wait "$pid"
pid=
finish
