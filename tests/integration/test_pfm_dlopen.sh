#!/bin/bash
# libpfm4 is loaded with dlopen when an event needs it (src/linux/pfm_dl.c), not
# linked: neither pmukit nor libpmukit.so lists it as needed, and where it was
# built in, its names still resolve and count (perf::, its pseudo-PMU present on
# every host) and pmukit caps says it initialised. Where libpfm.so.4 cannot be
# loaded (a private mount namespace puts an empty file over it), a libpfm4 name
# fails with the reason naming the package, as do caps and list, and other
# events still count.
. "$(dirname "$0")/lib.sh"
command -v readelf >/dev/null || skip "readelf not installed (binutils)"
caps=$("$PMUKIT" caps 2>&1 | grep 'libpfm4:')
case $caps in
*"not built in"*) skip "pmukit was built without libpfm4" ;;
esac
no_libpfm_needed() {  # FILE: its dynamic section read, with NEEDED entries, none libpfm
  local d
  d=$(readelf -d "$1") && grep -q NEEDED <<<"$d" && ! grep -q 'NEEDED.*libpfm' <<<"$d"
}
for f in "$PMUKIT" "$PMUKIT_LIB"; do
  check "$(basename "$f") does not need libpfm at start" no_libpfm_needed "$f"
done
check "caps: libpfm4 loaded and initialised ($caps)" \
  grep -q 'PMUs libpfm4 finds present' <<<"$caps"
out=$("$PMUKIT" stat -e perf::PERF_COUNT_SW_TASK_CLOCK -- true 2>&1)
check "a libpfm4 name counts (pmukit stat -e perf::PERF_COUNT_SW_TASK_CLOCK)" \
  grep -q 'msec perf::PERF_COUNT_SW_TASK_CLOCK' <<<"$out"

# libpfm4 absent: its file made empty in a private mount namespace (root only).
lib=$(ldconfig -p | awk '$1 == "libpfm.so.4" && /x86-64|AArch64/ { print $NF; exit }')
lib=${lib:+$(readlink -f "$lib")}
hidden() {  # CMD...: run with libpfm.so.4 unloadable
  unshare -m sh -c 'mount --bind /dev/null "$0" && exec "$@"' "$lib" "$@" 2>&1
}
if [ "$(id -u)" -ne 0 ] || [ -z "$lib" ] || ! hidden true >/dev/null; then
  echo "# not run: hiding libpfm.so.4 needs root, unshare -m and libpfm.so.4 in ld.so.cache"
else
  out=$(hidden "$PMUKIT" stat -e perf::PERF_COUNT_SW_TASK_CLOCK -- true)
  rc=$?
  check "without libpfm.so.4: a libpfm4 name fails (exit $rc)" test $rc -ne 0
  check "without libpfm.so.4: the error names libpfm.so.4 and its package ($out)" \
    grep -q 'libpfm.so.4.*apt install libpfm4' <<<"$out"
  out=$(hidden "$PMUKIT" caps)
  check "without libpfm.so.4: caps says it could not be loaded" \
    grep -q 'libpfm4:.*cannot load libpfm.so.4.*apt install libpfm4' <<<"$out"
  out=$(hidden "$PMUKIT" list)
  check "without libpfm.so.4: list says why libpfm4's names are missing" \
    grep -q 'libpfm.so.4.*apt install libpfm4' <<<"$out"
  out=$(hidden "$PMUKIT" stat -e task-clock -- true)
  check "without libpfm.so.4: task-clock still counts" grep -q 'msec task-clock' <<<"$out"
  check "without libpfm.so.4: task-clock's output has no word of libpfm4" \
    test "$(grep -c libpfm <<<"$out")" -eq 0
fi
finish
