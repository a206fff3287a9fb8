#!/bin/bash
# pmukit record keeps a copy of /proc/kallsyms in perf's build-id cache
# (~/.debug/[kernel.kallsyms]/BUILD-ID/kallsyms) once per boot, as perf record does;
# pmukit report names kernel frames from it; -N keeps none; a copy of another boot
# (its _text elsewhere) is replaced; a cache that cannot be written is said, and the
# recording is still written.
set -u
. "$(dirname "$0")/lib.sh"

[ "$(uname -s)" = Linux ] || skip "Linux only: the copy is of /proc/kallsyms"
first=$(awk '$2 ~ /^[tTwW]$/ { print $1; exit }' /proc/kallsyms 2>/dev/null)
[ -n "$first" ] && [ "$((16#$first))" != 0 ] ||
	skip "/proc/kallsyms hides its addresses (kptr_restrict): there is nothing to keep"
[ -r /sys/kernel/notes ] || skip "/sys/kernel/notes unreadable: no kernel build-id"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

record() { # HOME, output, more options...
	local home=$1 file=$2
	shift 2
	HOME=$home "$PMUKIT" record -e cpu-clock -F 4000 -g -o "$file" "$@" -- \
		dd if=/dev/zero of=/dev/null bs=4k count=400000 2>"$out/err" >/dev/null
}
mkdir "$out/home"
record "$out/home" "$out/a.data"
check "record: exit 0" test $? -eq 0
copy=$(find "$out/home/.debug/[kernel.kallsyms]" -name kallsyms 2>/dev/null)
check "the copy is at ~/.debug/[kernel.kallsyms]/BUILD-ID/kallsyms" test -n "$copy" -a -f "$copy"
id=$(basename "$(dirname "$copy")")
want=$(py '
import struct
d, o = open("/sys/kernel/notes", "rb").read(), 0
while o + 12 <= len(d):
    n, s, t = struct.unpack_from("<III", d, o)
    if t == 3 and d[o + 12:o + 16] == b"GNU\0":
        print(d[o + 16:o + 16 + s].hex())
    o += 12 + (n + 3) // 4 * 4 + (s + 3) // 4 * 4
')
check_eq "named by the running kernel's build-id" "$want" "$id"
check "its text symbols are /proc/kallsyms'" \
	cmp -s <(grep ' [tTwW] ' "$copy") <(grep ' [tTwW] ' /proc/kallsyms)

# kept once per boot: a second recording leaves it alone
before=$(stat -c '%i %Y' "$copy")
sleep 1
record "$out/home" "$out/b.data"
check_eq "a second recording keeps the same copy" "$before" "$(stat -c '%i %Y' "$copy")"

# the report reads the copy: a name changed in it shows
sym=$(HOME=$out/home "$PMUKIT" report -i "$out/a.data" --no-children --sort sym 2>/dev/null |
	awk '/\[k\]/ { print $NF; exit }')
if [ -n "$sym" ]; then
	sed -i "s/ $sym\$/ ${sym}_from_copy/" "$copy"
	HOME=$out/home "$PMUKIT" report -i "$out/a.data" --no-children --sort sym >"$out/rep" 2>&1
	check "report names $sym from the copy" grep -q "${sym}_from_copy" "$out/rep"
else
	fail "the recording of dd has no kernel sample to name"
fi

# a copy of another boot is replaced by the next recording
sed -i 's/^\([0-9a-f]*\) T _text$/0000000000001000 T _text/' "$copy"
record "$out/home" "$out/c.data"
check "a copy of another boot is replaced" \
	cmp -s <(grep ' [tTwW] ' "$copy") <(grep ' [tTwW] ' /proc/kallsyms)

# a copy of this boot cut short (a crash while it was written) is replaced too
truncate -s -100 "$copy"
record "$out/home" "$out/c2.data"
check "a copy cut short is replaced" \
	cmp -s <(grep ' [tTwW] ' "$copy") <(grep ' [tTwW] ' /proc/kallsyms)

# -N: none kept
mkdir "$out/none"
record "$out/none" "$out/d.data" -N
check "-N: exit 0, no copy" test $? -eq 0 -a ! -e "$out/none/.debug"

# a cache that cannot be written: said, the recording still written
record /dev/null/home "$out/e.data"
check "an unwritable cache: exit 0, the file written" test $? -eq 0 -a -s "$out/e.data"
check "an unwritable cache: one sentence naming it" \
	grep -q "cannot keep a copy of /proc/kallsyms as /dev/null/home/.debug" "$out/err"
finish
