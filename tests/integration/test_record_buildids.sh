#!/bin/bash
# pmukit record's build-id table (HEADER_BUILD_ID): a file replaced while recording
# (the same path, run before and after, both sampled) is listed with each build-id
# its mappings carried, not only the first; a file run twice unchanged, once.
set -u
. "$(dirname "$0")/lib.sh"

[ "$(uname -s)" = Linux ] || skip "Linux only: pmukit record writes perf.data"
command -v cc >/dev/null || skip "no C compiler (Debian gcc) to build the two programs"
DUMP=$BUILDDIR/tests/perf_read_dump
[ -x "$DUMP" ] || skip "$DUMP not built"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

printf 'int main(void) { volatile unsigned long i, n = VAL; for (i = 0; i < n; i++); return 0; }\n' \
	>"$tmp/spin.c"
cc -O0 -DVAL=150000000UL -o "$tmp/a" "$tmp/spin.c" && cc -O0 -DVAL=150000001UL -o "$tmp/b" "$tmp/spin.c" ||
	{ fail "cc the two programs"; finish; exit; }
bid() { readelf -n "$1" | awk '/Build ID/ { print $3 }'; }
ida=$(bid "$tmp/a") idb=$(bid "$tmp/b")
[ -n "$ida" ] && [ "$ida" != "$idb" ] || skip "the compiler wrote no build-ids, or equal ones"

# a failed record or read fails the test: the skip below is for a kernel without
# MMAP2 build-ids, not for a file that is missing or unreadable
"$PMUKIT" record -e cpu-clock -F 2000 -o "$tmp/f.data" -- sh -c \
	"cd '$tmp' && cp a x && ./x && cp b x.new && mv x.new x && ./x && ./x" >/dev/null 2>"$tmp/err" ||
	{ fail "record: $(tail -1 "$tmp/err")"; finish; exit; }
pass "record: exit 0"
"$DUMP" "$tmp/f.data" >"$tmp/dump" 2>&1 || { fail "perf_read_dump: $(tail -1 "$tmp/dump")"; finish; exit; }
[ "$(awk '$1 == "mmap_build_ids" { print $2 }' "$tmp/dump")" -gt 0 ] 2>/dev/null ||
	skip "this kernel's MMAP2 records carry no build-ids (Linux 5.12+): one file's two builds cannot be told apart"
listed() { awk -v p="$tmp/x" -v id="$1" '$1 == "build_id" && $2 == id && $3 == p' "$tmp/dump" | wc -l; }
check_eq "the first build of x is listed once" 1 "$(listed "$ida")"
check_eq "the second build of x (run twice) is listed once" 1 "$(listed "$idb")"
# perf 6.1 keeps one build-id per path, the last listed: the entries must come in
# mapping order so that it is the build on disk now; and it reads the file quietly
if command -v perf >/dev/null; then
	perf buildid-list -i "$tmp/f.data" >"$tmp/bl" 2>&1
	rc=$?
	check "perf buildid-list: exit 0, x with its current build" \
		eval '[ $rc -eq 0 ] && grep -qx "$idb $tmp/x" "$tmp/bl"'
	perf report -i "$tmp/f.data" --stdio >"$tmp/rep" 2>"$tmp/rep.err"
	rc=$?
	check "perf report: exit 0, x's samples, nothing on stderr" \
		eval '[ $rc -eq 0 ] && grep -q " x  *\[\.\] " "$tmp/rep" && ! [ -s "$tmp/rep.err" ]'
else
	echo "# no perf here (linux-perf): its reading of the table is not checked"
fi
finish
