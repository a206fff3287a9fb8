#!/bin/bash
# make hwtest: run pmukit's hardware tests against a real (emulated) PMU.
#
# Debian's arm64 kernel boots under qemu-system-aarch64 (TCG, -cpu max, whose Arm
# PMUv3 is emulated; -icount shift=0 makes instruction and cycle counts exact). pmukit
# and tests/hw are cross-built statically for aarch64 and packed into a busybox
# initramfs whose /init is tests/hw/init.sh. The serial log becomes the summary:
# "ok - NAME" / "FAIL - NAME: why" / "skip - NAME: why" lines, the failing cases
# named, and "hwtest: N passed, N failed, N skipped" as the last line.
# A second boot gives the guest two NUMA nodes (one CPU and 256 MiB each) and runs the
# NUMA case list (pmukit_hwtest --numa, tests/hw/hwtest_main.c).
# See shared/docs/qemu-arm64-pmu.md for the measurements behind every option.
#
# Needs root the first time (apt-get install, and a temporary arm64 foreign
# architecture to download the kernel and busybox packages, removed again).
# Work dir: build-hw/ (HWTEST_DIR). Downloads in build-hw/dl are reused by later runs;
# HWTEST_REFRESH=1 fetches the newest kernel again.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
export LC_ALL=C

SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
W=${HWTEST_DIR:-$SRC/build-hw}
TIMEOUT=${HWTEST_TIMEOUT:-150}
JOBS=$(nproc)
T0=$(date +%s%N)

say() {
	local ms=$((($(date +%s%N) - T0) / 1000000))
	printf 'hwtest: [%3d.%ds] %s\n' $((ms / 1000)) $((ms % 1000 / 100)) "$*"
}
die() { echo "hwtest: error: $*" >&2; exit 2; }
is_root() { [ "$(id -u)" -eq 0 ]; }
apt_q() { apt-get -o DPkg::Lock::Timeout=300 -q "$@"; }

# 1. Host tools (x86-64 packages): the cross compiler, QEMU, cpio (scripts/deps.sh).
sh "$SRC/scripts/deps.sh" hwtest || die "the host tools are missing (see above)"

# 2. The arm64 kernel and a static busybox: downloaded, never installed, through a
# temporary foreign architecture. The kernel package is whatever the meta package
# linux-image-arm64 depends on today.
mkdir -p "$W/dl"
DL=$W/dl
have_debs() {
	compgen -G "$DL/linux-image-*_arm64.deb" >/dev/null &&
		compgen -G "$DL/busybox-static_*_arm64.deb" >/dev/null
}
ADDED_ARCH=0
drop_arch() {
	if [ "$ADDED_ARCH" = 1 ]; then
		ADDED_ARCH=0
		dpkg --remove-architecture arm64 && apt_q update -qq ||
			echo "hwtest: warning: could not remove the arm64 architecture again" >&2
	fi
}
trap drop_arch EXIT
trap 'exit 130' INT TERM
if [ "${HWTEST_REFRESH:-0}" = 1 ] || ! have_debs; then
	is_root || die "downloading the arm64 kernel needs root (dpkg --add-architecture arm64)"
	if ! dpkg --print-foreign-architectures | grep -qx arm64; then
		dpkg --add-architecture arm64
		ADDED_ARCH=1
	fi
	say "downloading the arm64 kernel and busybox-static"
	apt_q update -qq
	KPKG=$(apt-cache depends linux-image-arm64:arm64 |
		awk '/Depends: linux-image-[0-9]/ { sub(/:arm64$/, "", $2); print $2; exit }')
	[ -n "$KPKG" ] || die "linux-image-arm64:arm64 names no kernel package"
	rm -f "$DL"/*.deb
	# As root apt warns that the download is unsandboxed: harmless, filtered.
	(cd "$DL" && apt-get -q download "$KPKG:arm64" busybox-static:arm64 2>&1 |
		{ grep -v 'unsandboxed' || true; })
	drop_arch
	have_debs || die "apt-get download of $KPKG and busybox-static failed"
fi
KDEB=$(compgen -G "$DL/linux-image-*_arm64.deb" | sort -V | tail -1)
BDEB=$(compgen -G "$DL/busybox-static_*_arm64.deb" | sort -V | tail -1)
say "kernel $(basename "$KDEB"), $(basename "$BDEB")"
rm -rf "$W/x" && mkdir -p "$W/x"
# Only the kernel image (an uncompressed arm64 Image) and the busybox binary.
dpkg-deb --fsys-tarfile "$KDEB" | tar -x -C "$W/x" --wildcards './boot/vmlinuz-*'
dpkg-deb --fsys-tarfile "$BDEB" | tar -x -C "$W/x" ./bin/busybox
KERNEL=$(compgen -G "$W/x/boot/vmlinuz-*" | head -1)

# 3. Cross-build pmukit and the hardware tests, static, without the optional libraries.
say "cross-building pmukit for aarch64"
B=$W/build
cmake -S "$SRC" -B "$B" -DCMAKE_TOOLCHAIN_FILE="$SRC/cmake/aarch64-linux-gnu.cmake" \
	-DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF -DPMUKIT_WERROR=ON >"$W/cmake.log" 2>&1 ||
	{ tail -30 "$W/cmake.log"; die "cmake configure failed (log: $W/cmake.log)"; }
for opt in HWLOC_FOUND:1 PFM_LIBRARY:pfm DW_FOUND:1 LIBDW_FOUND:1; do
	v=$(sed -n "s/^${opt%%:*}:[A-Z]*=//p" "$B/CMakeCache.txt")
	case "$v" in
	*NOTFOUND* | "" | 0) ;;
	*) die "the cross build found a host library (${opt%%:*}=$v): check the toolchain file" ;;
	esac
done
cmake --build "$B" -j "$JOBS" --target pmukit_cli pmukit_hwtest numa_touch >"$W/build.log" 2>&1 ||
	{ grep -E 'error|Error' "$W/build.log" | head -30; die "cross build failed (log: $W/build.log)"; }
for exe in "$B/pmukit" "$B/tests/hw/pmukit_hwtest" "$B/numa_touch"; do
	aarch64-linux-gnu-readelf -h "$exe" | grep -q 'AArch64' || die "$exe is not an aarch64 binary"
	! aarch64-linux-gnu-readelf -d "$exe" 2>/dev/null | grep -q NEEDED || die "$exe is not static"
done

# 4. The initramfs: busybox, the command, the tests, /init.
R=$W/root
rm -rf "$R" && mkdir -p "$R/bin"
cp "$W/x/bin/busybox" "$R/bin/busybox"
cp "$B/pmukit" "$R/bin/pmukit"
cp "$B/tests/hw/pmukit_hwtest" "$R/bin/pmukit_hwtest"
cp "$B/numa_touch" "$R/bin/numa_touch"  # the workload of hw_numa_record
install -m 755 "$SRC/tests/hw/init.sh" "$R/init"
(cd "$R" && find . | cpio -o -H newc --quiet) | gzip -1 >"$W/initrd.cpio.gz"

# 5. Boot. One vCPU with -icount shift=0: the instructions event exists and counts are
# exact (icount is global across vCPUs). pauth=off: emulated pointer authentication
# makes Debian's kernel 4x slower. poweroff -f in the guest ends QEMU; panic=-1 and
# -no-reboot end it when /init dies; -nic none avoids the missing iPXE ROM.
# boot LOG SMP APPEND [QEMU ARGS...]: one boot, its serial log to LOG, the result lines
# shown as they come.
boot() {
	local log=$1 smp=$2 append=$3
	shift 3
	timeout "$TIMEOUT" qemu-system-aarch64 -M virt -cpu max,pauth=off -smp "$smp" \
		-icount shift=0 -m 512 -nographic -no-reboot -nic none -kernel "$KERNEL" \
		-initrd "$W/initrd.cpio.gz" "$@" \
		-append "console=ttyAMA0 rdinit=/init panic=-1 quiet $append" </dev/null 2>&1 |
		tr -d '\r' | tee "$log" | grep --line-buffered -E '^(ok|FAIL|skip|#) ' || true
}
say "booting the guest"
LOG=$W/guest.log
boot "$LOG" 1 ""
say "guest finished"
# 5b. The NUMA boot: two nodes of 256 MiB with one CPU each, distance 20 between them
# (-icount stays: the emulated PMU counts on both CPUs, within 0.2% since the one
# icount clock is shared by the vCPUs); init.sh runs the NUMA case list when the
# command line says hwtest.numa.
say "booting the 2-node guest"
NLOG=$W/guest-numa.log
boot "$NLOG" 2 hwtest.numa -object memory-backend-ram,id=m0,size=256M \
	-object memory-backend-ram,id=m1,size=256M -numa node,nodeid=0,cpus=0,memdev=m0 \
	-numa node,nodeid=1,cpus=1,memdev=m1 -numa dist,src=0,dst=1,val=20
say "2-node guest finished"

# 6. The guest's recording read on the host: the same top function, named through
# the guest binary (--symfs: the recorded /bin/pmukit_hwtest lives under $R here).
host_reads_guest() {
	local data=$W/hw.data host=${PMUKIT_HOST:-$SRC/build/pmukit}
	sed -n '/^# hw.data base64 begin$/,/^# hw.data base64 end$/p' "$LOG" | sed '1d;$d' |
		base64 -d >"$data" 2>/dev/null || true
	[ -s "$data" ] || { echo "skip - host_reads_guest_record: the guest wrote no recording"; return; }
	[ -x "$host" ] || { echo "FAIL - host_reads_guest_record: no host pmukit at $host"; return; }
	"$host" report -i "$data" --json --sort sym --no-children --symfs "$R" >"$W/host.json" \
		2>"$W/host.err" || { echo "FAIL - host_reads_guest_record: $(head -c 300 "$W/host.err")"; return; }
	python3 - "$W/host.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
top = d["top"][0] if d.get("top") else {}
sym, pct = top.get("symbol", ""), top.get("percent", 0)
ok = sym.endswith("known_loop") and pct >= 95 and d.get("with_callchain", 0) > 0
print("%s - host_reads_guest_record%s" % ("ok" if ok else "FAIL", "" if ok else
      ": top %r at %.1f%%, %s samples with stacks" % (sym, pct, d.get("with_callchain"))))
print("# host: %d samples of the guest, top %s %.1f%%" % (d.get("samples", 0), sym, pct))
PY
}
host_reads_guest | tee -a "$LOG"

# 7. The summary, from the serial logs alone.
all=$(cat "$LOG" "$NLOG")
pass=$(grep -c '^ok - ' <<<"$all" || true)
fail=$(grep -c '^FAIL - ' <<<"$all" || true)
skip=$(grep -c '^skip - ' <<<"$all" || true)
failed=$(grep '^FAIL - ' <<<"$all" | sed 's/^FAIL - //; s/:.*//' | tr '\n' ' ' || true)
for l in "$LOG:guest" "$NLOG:numa-guest"; do
	if ! grep -qE '^[0-9]+ passed, [0-9]+ failed' "${l%%:*}"; then
		echo "FAIL - ${l#*:}: the test program did not finish; the end of the serial log:"
		grep -vE '^(ok|FAIL|skip|#) ' "${l%%:*}" | tail -25 | sed 's/^/    /'
		fail=$((fail + 1))
		failed="${failed}${l#*:} "
	fi
done
[ "$fail" -eq 0 ] || echo "failed: $failed"
say "serial logs: $LOG $NLOG"
echo "hwtest: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
