#!/bin/bash
# libpfm4 is loaded with dlopen when an event needs it (src/linux/pfm_dl.c), not
# linked: neither pmukit nor libpmukit.so lists it as needed, and where it was
# built in, its names still resolve and count (perf::, its pseudo-PMU present on
# every host) and pmukit caps says it initialised.
. "$(dirname "$0")/lib.sh"
command -v readelf >/dev/null || skip "readelf not installed (binutils)"
caps=$("$PMUKIT" caps 2>&1 | grep 'libpfm4:')
case $caps in
*"not built in"*) skip "pmukit was built without libpfm4" ;;
esac
for f in "$PMUKIT" "$PMUKIT_LIB"; do
  check "$(basename "$f") does not need libpfm at start" \
    sh -c "! readelf -d '$f' | grep -q 'NEEDED.*libpfm'"
done
check "caps: libpfm4 loaded and initialised ($caps)" \
  grep -q 'PMUs libpfm4 finds present' <<<"$caps"
out=$("$PMUKIT" stat -e perf::PERF_COUNT_SW_TASK_CLOCK -- true 2>&1)
check "a libpfm4 name counts (pmukit stat -e perf::PERF_COUNT_SW_TASK_CLOCK)" \
  grep -q 'msec perf::PERF_COUNT_SW_TASK_CLOCK' <<<"$out"
finish
