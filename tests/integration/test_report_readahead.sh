#!/bin/bash
# pmukit report and script read ahead the debug information of the images the
# recording lists as sampled (perf.data's build-id table), not of every image
# mapped: a workload maps zlib without ever running it, and no debug file of
# zlib is looked for (strace), for perf's and pmukit's -g recordings; a
# pipe-mode recording (no table before the records) still reads every image
# ahead, which shows the lookups are seen when they happen. Names do not change:
# the top function is the same either way.
set -u
. "$(dirname "$0")/lib.sh"

command -v perf >/dev/null || skip "no perf here (Debian package linux-perf)"
command -v strace >/dev/null || skip "no strace here (Debian package strace)"
command -v cc >/dev/null || skip "no C compiler to build the workload"
command -v readelf >/dev/null || skip "no readelf here (Debian package binutils)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

printf '%s\n' 'static volatile double x;' \
	'__attribute__((noinline)) void hot(void) { for (long i = 0; i < 4000000; i++) x += i * 0.5; }' \
	'int main(void) { for (int k = 0; k < 40; k++) hot(); return x < 0; }' >"$tmp/w.c"
# zlib linked in and mapped, never called: no sample, no call chain lies in it
cc -O1 -g -fno-omit-frame-pointer -o "$tmp/w" "$tmp/w.c" -Wl,--no-as-needed -lz ||
	skip "the workload does not build (zlib1g-dev)"
zlib=$(ldd "$tmp/w" | awk '/libz\.so/ { print $3 }')
[ -n "$zlib" ] || skip "the workload does not map zlib"
id=$(readelf -n "$(readlink -f "$zlib")" | awk '/Build ID/ { print $3 }')
[ -n "$id" ] || skip "$zlib has no build-id"
zid="${id:0:2}/${id:2}"   # as the debug-file lookups spell it
[ -e "/usr/lib/debug/.build-id/$zid.debug" ] &&
	skip "zlib's debug file is installed: it is read ahead on purpose"

# The debug-file lookups of zlib by "$@" (an openat naming its build-id).
# LeakSanitizer cannot run under ptrace (the ASan build): leaks are checked elsewhere.
zlib_lookups() {
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		strace -f -e trace=openat -o "$tmp/trace" "$@" >"$tmp/out" 2>"$tmp/err" || return 1
	grep -c "$zid" "$tmp/trace" || true   # 0 found: grep fails
}
top() {	# the top function of FILE
	"$PMUKIT" report -i "$1" --no-children --sort sym 2>/dev/null |
		awk '/^ *[0-9.]+%/ { print $NF; exit }'
}

# Whether a frame of FILE lies in zlib. None should, but a frame-pointer walk
# from code built without them (ld.so's, which runs zlib's constructors) may
# take a stale pointer into zlib for a return address: a call chain asking for
# zlib then, rightly, has it read.
in_zlib() { perf script -i "$1" -F ip,dso 2>/dev/null | grep -q 'libz\.so'; }
# FILE recorded by "$@" until no frame lies in zlib (3 tries): 1 when none did.
record_clean() {
	local f=$1 try
	shift
	for try in 1 2 3; do
		"$@" >/dev/null 2>&1 || return 2
		in_zlib "$f" || return 0
		echo "# $f: a call chain went through zlib, recorded again"
	done
	return 1
}

record_clean "$tmp/perf.data" perf record -q -e cpu-clock -F 999 -g -o "$tmp/perf.data" -- \
	"$tmp/w"
[ $? -eq 2 ] && skip "perf record cannot record here"
perf record -q -e cpu-clock -F 999 -g -o - -- "$tmp/w" >"$tmp/pipe.data" 2>/dev/null ||
	skip "perf record cannot write pipe mode here"
record_clean "$tmp/pk.data" "$PMUKIT" record -e cpu-clock -F 999 -g -o "$tmp/pk.data" -- \
	"$tmp/w"
[ $? -eq 2 ] && fail "pmukit record -g"

n=$(zlib_lookups "$PMUKIT" report -i "$tmp/pipe.data") || fail "report of the pipe-mode file"
check "pipe mode (no table before the records): zlib's debug file looked for ($n)" \
	[ "${n:-0}" -gt 0 ]
for f in perf.data pk.data; do
	[ -s "$tmp/$f" ] || continue
	perf buildid-list -i "$tmp/$f" 2>/dev/null | grep -q "$id" &&
		{ fail "$f lists zlib as sampled"; continue; }
	in_zlib "$tmp/$f" && { fail "$f: every recording had a call chain through zlib"; continue; }
	for cmd in report script; do
		n=$(zlib_lookups "$PMUKIT" $cmd -i "$tmp/$f") || fail "$cmd of $f"
		check_eq "$f: $cmd looks for no debug file of unsampled zlib" 0 "$n"
		[ "${n:-0}" = 0 ] || grep "$zid" "$tmp/trace" | head -2 | sed 's/^/# /'
	done
	check_eq "$f: the top function named" hot "$(top "$tmp/$f")"
done
check_eq "pipe mode: the top function named" hot "$(top "$tmp/pipe.data")"
finish
