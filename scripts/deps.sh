#!/bin/sh
# Installs the Debian packages pmukit needs (Debian 12): every list lives here.
#   sh scripts/deps.sh [GROUP...]    groups: base (the default), windows, hwtest, bench
# Idempotent: does nothing when everything is present. Needs root to install.
set -eu

# base: build, test, fuzz and benchmark on Linux (gcc-mingw-w64 for the PE tests,
# abigail-tools for the ABI check, groff-base to render the man page in its test;
# golang-go and chromium read back the pprof and SVG reports in their tests; llvm
# gives bench_symbolize its llvm-symbolizer peer; promtool and prometheus_client
# check the exporter's two output formats; libmicrohttpd is its HTTP server, which
# Prometheus scrapes and node_exporter stands beside in its tests, through curl;
# strace counts the debug-file lookups of pmukit report in its read-ahead test).
BASE="
  build-essential cmake pkg-config
  libpfm4-dev libhwloc-dev libdw-dev libzstd-dev zlib1g-dev libiberty-dev
  libtraceevent-dev libtracefs-dev libmicrohttpd-dev
  libcmocka-dev python3 clang libclang-rt-14-dev gcc-mingw-w64-x86-64
  linux-perf libpapi-dev papi-tools abigail-tools groff-base golang-go chromium llvm
  prometheus python3-prometheus-client prometheus-node-exporter curl strace
"
# windows: the cross build (zlib linked in statically) and its smoke tests under Wine.
WINDOWS="cmake gcc-mingw-w64-x86-64 libz-mingw-w64-dev wine64 python3"
# hwtest: the aarch64 cross compiler and QEMU for the arm64 guest (scripts/hwtest.sh).
HWTEST="cmake make pkg-config qemu-system-arm gcc-aarch64-linux-gnu libc6-dev-arm64-cross cpio"
# bench: the peers and subjects of make bench (npm fetches the SQLite amalgamation,
# GNU time measures peak RSS).
BENCH="linux-perf llvm binutils npm time"

packages=""
for group in "${@:-base}"; do
  case "$group" in
    base) packages="$packages $BASE" ;;
    windows) packages="$packages $WINDOWS" ;;
    hwtest) packages="$packages $HWTEST" ;;
    bench) packages="$packages $BENCH" ;;
    *) echo "deps.sh: unknown group '$group' (base, windows, hwtest, bench)" >&2; exit 2 ;;
  esac
done

missing=""
for p in $packages; do
  # npm also comes inside other nodejs builds (NodeSource): any npm will do
  [ "$p" = npm ] && command -v npm >/dev/null && continue
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    case " $missing " in *" $p "*) ;; *) missing="$missing $p" ;; esac
  fi
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
  echo "deps.sh: missing Debian packages:$missing" >&2
  echo "deps.sh: run as root, or: sudo apt-get install$missing" >&2
  exit 1
fi
echo "deps.sh: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get -o DPkg::Lock::Timeout=300 update -qq
# shellcheck disable=SC2086
apt-get -o DPkg::Lock::Timeout=300 install -y -qq --no-install-recommends $missing >/dev/null
