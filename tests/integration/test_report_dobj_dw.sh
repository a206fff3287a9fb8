#!/bin/bash
# report --sort data_object names variables from DWARF where the symbol table
# cannot: a binary stripped of everything (--strip-all) whose debug info is split
# out, found once by .gnu_debuglink and once by build-id under --symfs
# DIR/usr/lib/debug/.build-id; a global, a file static and a function-local
# static ("function::var") each with its exact first-touch faults. Then the same
# binary keeping its symbol table (strip -g): the symbols name the two first, the
# local static is still "function::var" (not GCC's "var.N").
set -u
. "$(dirname "$0")/lib.sh"
[ "$(uname -s)" = Linux ] || skip "record -d is Linux only"
command -v cc >/dev/null || skip "no C compiler to build the program"
command -v objcopy >/dev/null && command -v strip >/dev/null ||
	skip "no objcopy/strip (binutils) to split the debug info out"
grep -q '^DW_FOUND:INTERNAL=1' "${BUILDDIR:-build}/CMakeCache.txt" 2>/dev/null ||
	skip "pmukit was built without libdw: no DWARF variables"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$PMUKIT" record -e page-faults -c 1 -d -o "$out/t.data" -- true >/dev/null 2>"$out/err" ||
	skip "page-faults cannot be recorded here: $(tail -1 "$out/err")"

cat >"$out/v.c" <<'C'
#include <unistd.h>
#define PG 4096
char dwv_global[24 * PG] __attribute__((aligned(PG)));
static char dwv_file_static[16 * PG] __attribute__((aligned(PG)));
static void touch(volatile char *p, int pages) { for (int i = 0; i < pages; i++) p[i * PG] = 1; }
static __attribute__((noinline)) void dwv_fn(void)
{
	static char dwv_local[8 * PG] __attribute__((aligned(PG)));
	touch(dwv_local, 8);
}
int main(void) { touch(dwv_global, 24); touch(dwv_file_static, 16); dwv_fn(); return 0; }
C
[ "$(getconf PAGESIZE)" = 4096 ] || skip "the program assumes 4 KiB pages"
cc -O1 -g -Wl,--build-id -o "$out/full" "$out/v.c" || skip "cannot build the program with cc"

# the faults of the three variables in report $1's JSON, by name
rows() { py "import json
d=json.load(open('$1'))
n={x['data_object']: x['samples'] for x in d['rows'] if x['module'].endswith('/$2')}
print(' '.join('%s:%s' % (k, n.get(k, 0)) for k in
               ('dwv_global', 'dwv_file_static', 'dwv_fn::dwv_local')))"; }
want="dwv_global:24 dwv_file_static:16 dwv_fn::dwv_local:8"

# record BIN, report with ARGS...; $out/j.BIN the JSON
run() {
	local bin=$1
	shift
	"$PMUKIT" record -e page-faults -c 1 -d -o "$out/$bin.data" -- "$out/$bin" >/dev/null \
		2>"$out/err"
	check "record -e page-faults -c 1 -d of $bin: exit 0" test $? -eq 0
	"$PMUKIT" report -i "$out/$bin.data" --sort data_object --json "$@" >"$out/j.$bin" \
		2>"$out/err"
	check "report --sort data_object --json of $bin: exit 0" test $? -eq 0
}

# 1. stripped of all symbols, debug info by .gnu_debuglink (next to the binary)
cp "$out/full" "$out/link"
objcopy --only-keep-debug "$out/link" "$out/link.debug" && strip --strip-all "$out/link" &&
	(cd "$out" && objcopy --add-gnu-debuglink=link.debug link)
check "the debuglink binary has no symbol table" \
	bash -c "! readelf -S '$out/link' | grep -q '\.symtab'"
run link
check_eq "debuglink: the three variables with their faults" "$want" "$(rows "$out/j.link" link)"

# 2. stripped, no debuglink: debug info by build-id under --symfs
id=$(readelf -n "$out/full" | sed -n 's/.*Build ID: \([0-9a-f]*\).*/\1/p')
[ -n "$id" ] || skip "cc did not give the program a build-id"
cp "$out/full" "$out/bid"
strip --strip-all "$out/bid"
mkdir -p "$out/root/usr/lib/debug/.build-id/${id:0:2}"
objcopy --only-keep-debug "$out/full" "$out/root/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug"
run bid --symfs "$out/root"
check_eq "build-id under --symfs: the three variables with their faults" "$want" \
	"$(rows "$out/j.bid" bid)"
"$PMUKIT" report -i "$out/bid.data" --sort data_object --json >"$out/j.nosymfs" 2>/dev/null
check_eq "build-id without --symfs: no debug info, none named" \
	"dwv_global:0 dwv_file_static:0 dwv_fn::dwv_local:0" "$(rows "$out/j.nosymfs" bid)"

# 3. symbols kept, DWARF dropped and split out: symtab names, DWARF the local
cp "$out/full" "$out/syms"
objcopy --only-keep-debug "$out/syms" "$out/syms.debug" && strip -g "$out/syms" &&
	(cd "$out" && objcopy --add-gnu-debuglink=syms.debug syms)
run syms
check_eq "strip -g: the three variables with their faults" "$want" "$(rows "$out/j.syms" syms)"
finish
