#!/bin/bash
# pmukit stat --per-node / -M numa: this host has no memory-controller PMU, which must
# be said with the reason; on a fixture tree with two sockets of uncore_imc PMUs the
# controllers are found and opened on the CPU of each socket (which fails here, naming
# the events and the CPU, since this kernel has no such PMU).
set -u
. "$(dirname "$0")/lib.sh"

live_mc=$(ls -d /sys/bus/event_source/devices/uncore_imc* /sys/bus/event_source/devices/amd_umc* 2>/dev/null | head -1)
if [ -z "$live_mc" ]; then
	out=$("$PMUKIT" stat --per-node -- true 2>&1)
	check_eq "no memory-controller PMU: exit 1" 1 $?
	echo "$out"
	check "says there is no memory-controller PMU, and why" \
		grep -q "^pmukit stat: --per-node: no memory-controller PMU: .* lists no uncore_imc_\*, amd_umc_\* or amd_df" <<<"$out"
	out=$("$PMUKIT" stat -M numa -a --timeout 50 2>&1)
	check_eq "-M numa is the same: exit 1" 1 $?
	check "-M numa says it too" grep -q "no memory-controller PMU" <<<"$out"
else
	out=$("$PMUKIT" stat --per-node -- sleep 0.1 2>&1)
	check_eq "this host has $live_mc: --per-node exits 0" 0 $?
	echo "$out"
	check "a row per node" grep -Eq '^ +0 +[0-9.]+ +[0-9.]+ ' <<<"$out"
fi

"$PMUKIT" stat -M bogus -- true >/dev/null 2>&1
check_eq "an unknown metric group exits 2" 2 $?
"$PMUKIT" stat --per-node -e cycles -- true >/dev/null 2>&1
check_eq "--per-node with -e exits 2" 2 $?
"$PMUKIT" stat --per-node --per-socket -a --timeout 50 >/dev/null 2>&1
check_eq "--per-node with --per-socket exits 2" 2 $?

# A fixture tree: 2 packages of 2 CPUs, one node each, uncore_imc_0 on CPUs 0 and 2.
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
sys=$root/sys/devices/system
dev=$root/sys/bus/event_source/devices/uncore_imc_0
mkdir -p "$sys/cpu" "$dev/format" "$dev/events"
echo 0-3 >"$sys/cpu/present"; echo 0-3 >"$sys/cpu/online"
for c in 0 1 2 3; do
	mkdir -p "$sys/cpu/cpu$c/topology"
	echo $((c / 2)) >"$sys/cpu/cpu$c/topology/physical_package_id"
	echo $((c % 2)) >"$sys/cpu/cpu$c/topology/core_id"
done
for n in 0 1; do
	mkdir -p "$sys/node/node$n"
	echo $((2 * n))-$((2 * n + 1)) >"$sys/node/node$n/cpulist"
	echo "Node $n MemTotal: 1048576 kB" >"$sys/node/node$n/meminfo"
done
echo 4242 >"$dev/type"; echo 0,2 >"$dev/cpumask"
echo config:0-7 >"$dev/format/event"; echo config:8-15 >"$dev/format/umask"
echo event=0x04,umask=0x03 >"$dev/events/cas_count_read"
echo event=0x04,umask=0x0c >"$dev/events/cas_count_write"
out=$(PMUKIT_SYSROOT=$root "$PMUKIT" stat --per-node -- true 2>&1)
check_eq "fixture: opening a PMU this kernel lacks exits 1" 1 $?
echo "$out"
check "fixture: the controller is found, opened on CPU 0 with its sysfs events" \
	grep -q "opening uncore_imc_0/cas_count_read/ and uncore_imc_0/cas_count_write/ on CPU 0" <<<"$out"
check "fixture: not 'no memory-controller PMU'" bash -c '! grep -q "no memory-controller" <<<"$1"' _ "$out"

finish
