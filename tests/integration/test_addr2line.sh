#!/bin/bash
# pmukit addr2line against binutils addr2line on the same addresses: every function
# of the pmukit binary (-e, as linked), the JSON form, a live process (-p) agreeing
# with the same file read offline, and the failures (no module, bad usage).
set -u
. "$(dirname "$0")/lib.sh"
: "${BUILDDIR:?}"
command -v addr2line >/dev/null || skip "binutils addr2line is not installed"
command -v nm >/dev/null || skip "binutils nm is not installed"
out=$("$PMUKIT" addr2line -e "$PMUKIT" 0 2>&1)
if [ $? -ne 0 ] && echo "$out" | grep -q 'without elfutils libdw'; then
	skip "pmukit was built without elfutils libdw"
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"; [ -n "${sleeper:-}" ] && kill "$sleeper" 2>/dev/null' EXIT

# 1. Every function of a binary, its first byte and its middle (where inlined
# calls are), pmukit vs addr2line -a -f -i: the pmukit binary itself, then a program
# built by clang, which emits no .debug_aranges (libdw 0.188 finds no unit without).
compare_functions() {	# BINARY LABEL MIN_FUNCTIONS
local bin=$1 label=$2 min=$3
nm -S --defined-only "$bin" | awk '$3 ~ /^[Tt]$/ {print $1, $2}' |
	while read -r a n; do printf '0x%x\n0x%x\n' $((16#$a)) $((16#$a + 16#$n / 2)); done |
	sort -u >"$tmp/addrs"
check "nm lists over $min functions of $label" test "$(wc -l <"$tmp/addrs")" -gt "$min"
"$PMUKIT" addr2line -e "$bin" <"$tmp/addrs" >"$tmp/pmukit.txt"
check_eq "$label: every function address lies in the image (exit status)" 0 $?
addr2line -a -f -i -e "$bin" $(cat "$tmp/addrs") >"$tmp/binutils.txt"
py '
import re, sys
def pmukit(path):
    out = []
    for l in open(path):
        if l.startswith("0x"):
            out.append([])
        else:
            m = re.match(r"  (\S+?)(\+0x[0-9a-f]+)? at (.*?):(\d+)(:\d+)?( \(inlined\))?$", l)
            out[-1].append((m.group(1), m.group(3).rsplit("/", 1)[-1], int(m.group(4))))
    return out
def binutils(path):
    out, lines = [], open(path).read().splitlines()
    i = 0
    while i < len(lines):
        if lines[i].startswith("0x"):
            out.append([]); i += 1; continue
        f, _, n = lines[i + 1].split(" ")[0].rpartition(":")
        out[-1].append((lines[i], f.rsplit("/", 1)[-1], int(n) if n.isdigit() else 0)); i += 2
    return out
a, b = pmukit(sys.argv[1]), binutils(sys.argv[2])
assert len(a) == len(b), (len(a), len(b))
# Functions without line information (crt, libgcc) are named alike, files may differ.
same = sum(x == y or (all(f[2] == 0 for f in x) and [f[0] for f in x] == [f[0] for f in y])
           for x, y in zip(a, b))
frames = sum(len(x) for x in a)
inl = sum(len(x) > 1 for x in a)
print("pmukit and addr2line agree on %d of %d addresses (%d frames, %d with inlined calls)"
      % (same, len(a), frames, inl))
addrs = open(sys.argv[3]).read().split()
# differences count when either side knows a line (pmukit missing lines is a failure)
bad = [(i, x, y) for i, (x, y) in enumerate(zip(a, b))
       if x != y and (any(f[2] for f in x) or any(f[2] for f in y))]
if bad:
    # binutils 2.40 names the unit'"'"'s main file for static inline functions of headers
    # emitted out of line (-O0); llvm-symbolizer decides those.
    import shutil, subprocess
    llvm = shutil.which("llvm-symbolizer")
    assert llvm, "pmukit and binutils differ, and llvm-symbolizer is missing to decide"
    out = subprocess.run([llvm, "--obj=" + sys.argv[4]] + [addrs[i] for i, _, _ in bad],
                         capture_output=True, text=True).stdout.strip().split("\n\n")
    third = [[(fn, loc.split(":")[0].rsplit("/", 1)[-1], int(loc.split(":")[1]))
              for fn, loc in zip(o.splitlines()[0::2], o.splitlines()[1::2])] for o in out]
    still = [(i, x, y) for (i, x, y), z in zip(bad, third) if x != z]
    print("%d differ from binutils; llvm-symbolizer sides with pmukit on %d" %
          (len(bad), len(bad) - len(still)))
    bad = still
for i, x, y in bad[:5]:
    print("  pmukit  ", addrs[i], x, "\n  addr2line", y)
assert not bad
' "$tmp/pmukit.txt" "$tmp/binutils.txt" "$tmp/addrs" "$bin"
check "$label: function, file and line of every frame match binutils addr2line -f -i (or llvm-symbolizer where binutils errs)" test $? -eq 0
}
compare_functions "$PMUKIT" pmukit 200

if command -v clang >/dev/null; then
	cat >"$tmp/inl.c" <<'EOF_C'
#include <stdio.h>
#include <stdlib.h>
static inline __attribute__((always_inline)) int leaf(int x) { return x * 3 + (x >> 2); }
static inline __attribute__((always_inline)) int mid(int x) { return leaf(x) ^ leaf(x + 1); }
__attribute__((noinline)) int work(int n)
{
	int s = 0;
	for (int i = 0; i < n; i++)
		s += mid(i);
	return s;
}
__attribute__((noinline)) int other(const char *p) { return p ? (int)strtol(p, NULL, 0) : 7; }
int main(int argc, char **argv)
{
	printf("%d\n", work(other(argc > 1 ? argv[1] : NULL)));
	return 0;
}
EOF_C
	if clang -g -O2 -o "$tmp/inl" "$tmp/inl.c" 2>"$tmp/clang.err"; then
		readelf -S "$tmp/inl" | grep -q debug_aranges
		check_eq "clang wrote no .debug_aranges (the case under test)" 1 $?
		compare_functions "$tmp/inl" "a clang -O2 program" 2
	else
		fail "clang could not build a test program: $(head -c 300 "$tmp/clang.err")"
	fi
else
	echo "# clang is not installed: the clang-built comparison is skipped"
fi

# 2. JSON: the same first address, one object per address.
first=$(head -1 "$tmp/addrs")
main=$(nm --defined-only "$PMUKIT" | awk '$3 == "main" {print "0x" $1}')
check "nm names main" test -n "$main"
# crt1's _start has no line info, yet libdwfl answers the last line of the unit
# whose range ended just below it (main.c, when -O2 puts main in .text.startup)
start=$(nm --defined-only "$PMUKIT" | awk '$3 == "_start" {print "0x" $1}')
if [ -n "$start" ] && addr2line -e "$PMUKIT" "$start" | grep -q '^??'; then
	out=$("$PMUKIT" addr2line -e "$PMUKIT" "$start")
	check "_start gets no source line of another unit (pmukit: $(echo $out))" \
		sh -c 'echo "$1" | grep -q "_start at ??:0"' _ "$out"
fi
"$PMUKIT" addr2line --json -e "$PMUKIT" "$main" 0x1 >"$tmp/a.json"
check_eq "--json: exit 0" 0 $?
py '
import json, sys
d = json.load(open(sys.argv[1]))["addresses"]
assert len(d) == 2, d
m = d[0]
assert m["address"] == int(sys.argv[2], 16) and m["error"] is None, m
assert m["frames"][-1]["function"] == "main" and not m["frames"][-1]["inlined"], m
assert m["frames"][-1]["file"].endswith("tools/pmukit/main.c") and m["frames"][-1]["line"] > 0, m
assert m["module_offset"] == m["address"] and m["stale"] is False, m
' "$tmp/a.json" "$main"
check "--json: main at tools/pmukit/main.c" test $? -eq 0

# 3. Identity: the file's own build-id resolves, another one makes it stale.
id=$(readelf -n "$PMUKIT" 2>/dev/null | awk '/Build ID/ {print $3; exit}')
if [ -n "$id" ]; then
	"$PMUKIT" addr2line -e "$PMUKIT" --build-id "$id" "$main" >"$tmp/id.txt" 2>&1
	check "--build-id of the file itself: main resolves" grep -q '^  main at ' "$tmp/id.txt"
	other=$(echo "$id" | sed 's/^../00/')
	[ "$other" = "$id" ] && other=$(echo "$id" | sed 's/^../11/')
	"$PMUKIT" addr2line -e "$PMUKIT" --build-id "$other" "$main" >"$tmp/stale.txt" 2>&1
	check "--build-id of another build: stale, said so" grep -q "stale binary: .* has build-id $id but the recording saw $other" "$tmp/stale.txt"
	check "--build-id of another build: module + offset only" grep -q "(stale: " "$tmp/stale.txt"
	check "--build-id of another build: no function named" test "$(grep -c '^  ' "$tmp/stale.txt")" -eq 0
fi

# 4. Live: a sleeping process; an address in its libc resolves as the file offline does.
sleep 30 &
sleeper=$!
sleep 0.2
libc=$(awk '$2 ~ /x/ && $6 ~ /libc[.-]/ {print $1, $3, $6; exit}' /proc/$sleeper/maps)
if [ -z "$libc" ]; then
	echo "no executable libc mapping in /proc/$sleeper/maps: live check not run"
else
	read -r range pgoff path <<<"$libc"
	start=$((16#${range%-*}))
	# nanosleep, where sleep waits: file offset = link address in libc's text.
	sym=$(nm -D --defined-only "$path" | awk '$2 ~ /^[TW]$/ && $3 ~ /^nanosleep@/ {print $1; exit}')
	[ -n "$sym" ] || sym=$((16#$pgoff + 0x100))
	addr=$(printf '0x%x' $((start - 16#$pgoff + 16#$sym + 4)))
	"$PMUKIT" addr2line -p "$sleeper" "$addr" >"$tmp/live.txt"
	check_eq "-p: exit 0" 0 $?
	check "-p: the address lies in $path" grep -q "^$addr $path+0x" "$tmp/live.txt"
	off=$(sed -n "1s/.*+\(0x[0-9a-f]*\).*/\1/p" "$tmp/live.txt")
	"$PMUKIT" addr2line -e "$path" "$off" | tail -n +2 >"$tmp/off.txt"
	tail -n +2 "$tmp/live.txt" >"$tmp/live_frames.txt"
	check "-p and -e give the same frames for $path+$off" cmp -s "$tmp/live_frames.txt" "$tmp/off.txt"
	check "-p: the frame names a function ($(head -1 "$tmp/live_frames.txt"))" \
		grep -q '^  [_A-Za-z]*nanosleep+0x4 ' "$tmp/live_frames.txt"
	"$PMUKIT" addr2line -p "$sleeper" 0x10 >"$tmp/none.txt"
	check_eq "-p: an address in no mapping exits 1" 1 $?
	check "-p: ... and says why" grep -q 'no file-backed mapping' "$tmp/none.txt"
fi

# 4b. Processes whose maps cannot be read: the cause, not a guess.
if [ "$(cat /proc/2/comm 2>/dev/null)" = kthreadd ]; then
	"$PMUKIT" addr2line -p 2 0x10 >"$tmp/kthread.txt" 2>&1
	check_eq "-p <kernel thread>: exit 1" 1 $?
	check "-p <kernel thread>: says it is a kernel thread" grep -q "process 2 is a kernel thread" "$tmp/kthread.txt"
fi
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	setpriv --reuid=65534 --regid=65534 --clear-groups "$PMUKIT" addr2line -p $$ 0x10 >"$tmp/other.txt" 2>&1
	check "-p <another user's process>: names its owner" grep -q "process $$ belongs to uid 0: run as that user or as root" "$tmp/other.txt"
fi
if [ "$(id -u)" = 0 ] && ! cat /proc/1/maps >/dev/null 2>&1; then
	# root, yet refused (a sandbox): "run as root" would be no advice at all
	"$PMUKIT" addr2line -p 1 0x10 >"$tmp/denied.txt" 2>&1
	check "-p 1 refused to root: not blamed on another user" test -z "$(grep 'run as that user or as root' "$tmp/denied.txt")"
	check "-p 1 refused to root: names the cause" grep -qE "CAP_SYS_PTRACE" "$tmp/denied.txt"
fi

# 5. stdin: several addresses per line, blanks anywhere (GNU addr2line takes
# one address per line, after leading blanks: its answers for each line's
# first address must be ours too).
printf '  %s\t%s\n\n %s \n' "$main" "$main" "$first" | "$PMUKIT" addr2line -e "$PMUKIT" >"$tmp/stdin.txt"
check_eq "stdin: exit 0" 0 $?
check_eq "stdin: every blank-separated address resolved" 3 "$(grep -c '^0x' "$tmp/stdin.txt")"
check_eq "stdin: main twice" 2 "$(grep -c '^  main at ' "$tmp/stdin.txt")"
g=$(printf '  %s\n' "$main" | addr2line -f -e "$PMUKIT" | head -1)
check_eq "stdin: a line with leading blanks, as GNU addr2line" "$g" \
	"$(printf '  %s\n' "$main" | "$PMUKIT" addr2line -e "$PMUKIT" | sed -n '2s/^  \([^ +]*\).*/\1/p')"
printf '%s zz\n' "$main" | "$PMUKIT" addr2line -e "$PMUKIT" >/dev/null 2>&1
check_eq "stdin: a bad word after a good one: exit 1" 1 $?

# 6. Usage errors.
"$PMUKIT" addr2line 0x10 2>/dev/null
check_eq "neither -p nor -e: exit 2" 2 $?
"$PMUKIT" addr2line -e "$PMUKIT" zz >/dev/null 2>&1
check_eq "a non-hex address: exit 1" 1 $?
"$PMUKIT" addr2line -e "$PMUKIT" 99999999999999999999 >"$tmp/big.txt" 2>&1
check_eq "an address over 64 bits: exit 1" 1 $?
check "an address over 64 bits: said so, not read as 0xffffffffffffffff" \
	grep -q "'99999999999999999999' is not a hex address" "$tmp/big.txt"
for p in abc 4294967297 -1 " 1" 1x; do
	"$PMUKIT" addr2line -p "$p" 0x10 >"$tmp/pid.txt" 2>&1
	check_eq "-p '$p': usage error (exit 2)" 2 $?
	check "-p '$p': says it is not a process id" grep -q "is not a process id" "$tmp/pid.txt"
done
"$PMUKIT" addr2line -e /nonexistent/file 0x10 >"$tmp/missing.txt" 2>&1
check "a missing file is named" grep -q 'cannot open /nonexistent/file' "$tmp/missing.txt"
finish
