#!/bin/bash
# report --sort data_object: two variables with the same name in two modules (a
# global of a shared library, a static of the program) are two data objects,
# each with its own exact first-touch faults, not one row adding both.
set -u
. "$(dirname "$0")/lib.sh"
[ "$(uname -s)" = Linux ] || skip "record -d is Linux only"
command -v cc >/dev/null || skip "no C compiler to build the two modules"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$PMUKIT" record -e page-faults -c 1 -d -o "$out/t.data" -- true >/dev/null 2>"$out/err" ||
	skip "page-faults cannot be recorded here: $(tail -1 "$out/err")"

cat >"$out/lib.c" <<'C'
char dup_buf[24 * 65536] __attribute__((aligned(4096)));
void lib_touch(void) { for (int i = 0; i < 24; i++) dup_buf[i * 65536] = 1; }
C
cat >"$out/main.c" <<'C'
static char dup_buf[40 * 65536] __attribute__((aligned(4096)));
void lib_touch(void);
int main(void) { for (int i = 0; i < 40; i++) dup_buf[i * 65536] = 1; lib_touch(); return 0; }
C
cc -O0 -shared -fPIC -o "$out/libdup.so" "$out/lib.c" &&
	cc -O0 -o "$out/dup" "$out/main.c" -L"$out" -ldup -Wl,-rpath,"$out" ||
	skip "cannot build the two modules with cc"

"$PMUKIT" record -e page-faults -c 1 -d -o "$out/n.data" -- "$out/dup" >/dev/null 2>"$out/err"
check "record -e page-faults -c 1 -d of the program: exit 0" test $? -eq 0
"$PMUKIT" report -i "$out/n.data" --sort data_object --json >"$out/j" 2>"$out/err"
check "report --sort data_object --json: exit 0" test $? -eq 0
rows() { py "import json
d=json.load(open('$out/j'))
print(' '.join('%s:%d' % (x['module'].split('/')[-1], x['samples'])
               for x in sorted(d['rows'], key=lambda x: x['module']) if x['data_object']=='dup_buf'))"; }
check_eq "dup_buf: a row per module with its own faults" "dup:40 libdup.so:24" "$(rows)"
finish
