#!/bin/bash
# pmukit etl info|threads|dump on the real .etl fixtures: counts equal those
# ../shared/fixtures/etl/SOURCES.md lists, thread names come out, JSON parses.
set -u
. "$(dirname "$0")/lib.sh"

FIX=../shared/fixtures/etl
[ -r "$FIX/airbus-ShutdownPerfDiagLogger.etl" ] || skip "the .etl fixtures ($FIX) are absent"

# 1. info --json: totals and header of every fixture.
while read -r file events build psz cpus; do
	json=$("$PMUKIT" etl info "$FIX/$file" --json) || { fail "etl info $file"; continue; }
	got=$(py "import json,sys; d=json.loads(sys.argv[1]); print(d['events'], d['os_build'], d['pointer_size'], d['cpus'], sum(p['count'] for p in d['by_provider']))" "$json")
	check_eq "$file: events build pointer-size cpus" "$events $build $psz $cpus $events" "$got"
done <<'EOF'
airbus-ShutdownPerfDiagLogger.etl 17078 18362 8 2
airbus-lxcore_kernel.etl 4 19041 8 6
perfview-net452-x64-compressed.etl 179474 9200 8 8
perfview-net452-x86-compressed.etl 168298 9200 8 8
perfview-smallEtlFile-ptr32-compressed.etl 2 10586 4 4
perfview-SelfDescribingSingleEvent-compressed.etl 23 22000 8 12
perfview-primitive-types.etl 7 19043 8 8
EOF

# 2. per provider/opcode/version counts of the kernel fixture.
json=$("$PMUKIT" etl info "$FIX/airbus-ShutdownPerfDiagLogger.etl" --json)
py "
import json,sys
d=json.loads(sys.argv[1])
for k in ('os_build','pointer_size','cpus','events','lost_events','by_provider'):
    assert k in d, k
c={(p['name'],p['opcode'],p['version']):p['count'] for p in d['by_provider']}
want={('Image',3,3):6745,('Image',2,3):4791,('Image',4,3):2145,('Image',10,3):72,
      ('Thread',3,3):1175,('Thread',2,3):1032,('Thread',4,3):501,('Thread',1,3):350,
      ('Process',2,4):60,('Process',3,4):94,('Process',4,4):37,('Process',11,2):60,('Process',39,5):5}
for k,v in want.items():
    assert c.get(k)==v, (k, c.get(k), v)
assert d['lost_events']==0
" "$json" && pass "airbus per provider/opcode/version counts" || fail "airbus per provider/opcode/version counts"

json=$("$PMUKIT" etl info "$FIX/perfview-net452-x64-compressed.etl" --json)
py "
import json,sys
d=json.loads(sys.argv[1])
c={(p['name'],p['opcode']):p['count'] for p in d['by_provider'] if p['name'] in ('PerfInfo','StackWalk')}
assert c[('PerfInfo',46)]==79528 and c[('StackWalk',32)]==252 and c[('StackWalk',38)]==7046, c
assert c[('StackWalk',37)]==2061 and c[('StackWalk',35)]==1909 and c[('StackWalk',36)]==1012, c
" "$json" && pass "x64 samples and stack counts" || fail "x64 samples and stack counts"

# 3. threads: 30 distinct names, every thread with its process image.
got=$("$PMUKIT" etl threads "$FIX/airbus-ShutdownPerfDiagLogger.etl" --json | py "
import json,sys
t=json.load(sys.stdin)['threads']
names={x['name'] for x in t if x['name']}
assert all(x['process'] for x in t)
assert 'DWM Compositor Thread' in names and 'Win32k Raw Input Thread' in names
print(len(names))")
check_eq "30 distinct thread names" 30 "$got"
out=$("$PMUKIT" etl threads "$FIX/airbus-ShutdownPerfDiagLogger.etl")
echo "$out" | grep -q "csrss.exe.*Win32k Raw Input Thread" && pass "text threads name csrss's input thread" \
	|| fail "text threads lack csrss.exe / Win32k Raw Input Thread"

# 4. dump: filters by provider name/GUID and opcode; decoded fields.
n=$("$PMUKIT" etl dump "$FIX/perfview-net452-x64-compressed.etl" --provider PerfInfo --opcode 46 --json |
	py "import json,sys; e=json.load(sys.stdin)['events']; assert all(x['fields']['ip'].startswith('0x') for x in e); print(len(e))")
check_eq "dump --provider PerfInfo --opcode 46 gives every sample" 79528 "$n"
n=$("$PMUKIT" etl dump "$FIX/airbus-ShutdownPerfDiagLogger.etl" --provider 3d6fa8d1-fe05-11d0-9dda-00c04fd7ba7c | wc -l)
check_eq "dump --provider <Thread GUID> lines" 3058 "$n"
out=$("$PMUKIT" etl dump "$FIX/perfview-net452-x64-compressed.etl" --provider ImageID --opcode 36 --limit 1)
echo "$out" | grep -q 'pdb_guid="ec83d8df-5559-46e0-b630-133ebd979266" pdb_age=2 pdb_file="wntdll.pdb"' \
	&& pass "DbgID_RSDS decoded" || fail "DbgID_RSDS: $out"
n=$("$PMUKIT" etl dump "$FIX/airbus-lxcore_kernel.etl" | wc -l)
check_eq "dump: one line per event (messages ending in a newline escaped)" 4 "$n"
out=$("$PMUKIT" etl dump "$FIX/perfview-primitive-types.etl")
echo "$out" | grep -q 'event_name="PrimitiveTypesTest".*string_type="Jupiter"' \
	&& pass "TraceLogging fields decoded" || fail "TraceLogging fields: $out"
echo "$out" | grep -q 'string_type="Jupiter" boolean_type="true" char_type="J" ' \
	&& pass "TraceLogging display types: bool as true/false, char as a character" \
	|| fail "TraceLogging display types: $out"

# 5. errors: missing file, not an .etl file, damaged file.
"$PMUKIT" etl info "$FIX/nope.etl" 2>/dev/null; check_eq "missing file exits 1" 1 $?
"$PMUKIT" etl info "$FIX/SOURCES.md" 2>/tmp/pmukit_etl_err.$$; check_eq "non-etl exits 1" 1 $?
grep -q "not an .etl file" /tmp/pmukit_etl_err.$$ && pass "non-etl error says why" || fail "non-etl error text"
tmp=$(mktemp)
head -c 100000 "$FIX/airbus-ShutdownPerfDiagLogger.etl" > "$tmp"
"$PMUKIT" etl info "$tmp" --json >/dev/null 2>/tmp/pmukit_etl_err.$$; check_eq "truncated file still reads" 0 $?
grep -q "buffer 1 at offset 0x10000.*truncated" /tmp/pmukit_etl_err.$$ && pass "truncation reported with buffer and offset" \
	|| fail "truncation report: $(cat /tmp/pmukit_etl_err.$$)"
rm -f "$tmp" /tmp/pmukit_etl_err.$$
"$PMUKIT" etl bogus "$FIX/airbus-lxcore_kernel.etl" 2>/dev/null; check_eq "unknown subcommand exits 2" 2 $?
for f in "$FIX/" /dev/zero /dev/urandom; do
	for verb in "etl info" "etl dump" "report -i"; do
		out=$("$PMUKIT" $verb "$f" 2>&1 >/dev/null); rc=$?
		check "$verb $f: exit 1, 'not a regular file' ($out)" \
			test $rc -eq 1 -a -n "$(echo "$out" | grep "$f is not a regular file")"
	done
done

# 5b. options before or after the subcommand and FILE; values checked.
K=$FIX/airbus-lxcore_kernel.etl
check_eq "etl --json info FILE: JSON" 4 "$("$PMUKIT" etl --json info "$K" | py 'import json,sys; print(json.load(sys.stdin)["events"])')"
check_eq "etl dump --limit 1 FILE" 1 "$("$PMUKIT" etl dump --limit 1 "$K" | wc -l)"
out=$("$PMUKIT" etl dump "$K" --provider 2>&1); rc=$?
check "dump --provider without a value: exit 2, says it needs one" test $rc -eq 2 -a -n "$(echo "$out" | grep -x "pmukit etl: option '--provider' needs an argument")"
for bad in "--opcode -1" "--opcode 256" "--opcode 1x" "--limit -3" "--limit 99999999999999999999" "--limit ' 4'"; do
	eval "\"\$PMUKIT\" etl dump \"\$K\" $bad" >/dev/null 2>"$tmp.err"
	check "dump $bad: usage error naming the value" test $? -eq 2 -a -n "$(grep 'is a number' "$tmp.err")"
done
rm -f "$tmp.err"
# numbers are decimal unless 0x: --opcode 080 is opcode 80 (strtoul read it as octal:
# '080' was refused and '0120' selected opcode 80)
check_eq "dump --opcode 080 is opcode 80" "1" "$("$PMUKIT" etl dump "$K" --opcode 080 | grep -c 'op=80 ')"
check_eq "dump --opcode 0120 is opcode 120, not octal 80" "0" "$("$PMUKIT" etl dump "$K" --opcode 0120 | grep -c 'op=80 ')"
check_eq "dump --opcode 0x50 is opcode 80" "1" "$("$PMUKIT" etl dump "$K" --opcode 0x50 | grep -c 'op=80 ')"

# 5c. zero padding: ETW preallocates files to their maximum size. Sparse
# copies (truncate) padded to 256 MiB read like the originals, the padding is
# counted, not reported as corruption, and costs about a read of the zeros.
pad=$(mktemp -d)
for f in airbus-ShutdownPerfDiagLogger.etl perfview-net452-x64-compressed.etl; do
	cp "$FIX/$f" "$pad/p.etl" && chmod u+w "$pad/p.etl" && truncate -s 256M "$pad/p.etl"
	size=$(stat -c %s "$FIX/$f")
	want=$("$PMUKIT" etl info "$FIX/$f" --json | py "import json,sys; d=json.load(sys.stdin); print(d['events'], d['buffers'], d['problems'], d['bytes_padding'])")
	got=$("$PMUKIT" etl info "$pad/p.etl" --json | py "import json,sys; d=json.load(sys.stdin); print(d['events'], d['buffers'], d['problems'], d['bytes_padding'])")
	check_eq "$f padded to 256 MiB: same events and buffers, no problem, padding counted" \
		"${want% 0} $((268435456 - size))" "$got"
	"$PMUKIT" etl info "$pad/p.etl" | grep -q "^padding: *$((268435456 - size)) bytes of zeros" \
		&& pass "$f padded: info text says the padding" || fail "$f padded: info text"
	check "$f padded: dump (time order) gives the same events" \
		cmp -s <("$PMUKIT" etl dump "$FIX/$f" 2>&1) <("$PMUKIT" etl dump "$pad/p.etl" 2>&1)
done
# generous: the byte-by-byte resync took ~10x the floor (230 ms for 512 MiB,
# cat 21 ms, here); skipping holes costs what the unpadded file does (~1 ms)
cp "$FIX/airbus-ShutdownPerfDiagLogger.etl" "$pad/p.etl" && chmod u+w "$pad/p.etl" && truncate -s 512M "$pad/p.etl"
cat "$pad/p.etl" >/dev/null
t0=$(date +%s%N); cat "$pad/p.etl" >/dev/null; t1=$(date +%s%N)
"$PMUKIT" etl info "$pad/p.etl" >/dev/null; t2=$(date +%s%N)
check "512 MiB of padding read in at most 3x 'cat' + 50 ms ($(( (t2 - t1) / 1000000 )) ms, cat $(( (t1 - t0) / 1000000 )) ms)" \
	test $((t2 - t1)) -le $((3 * (t1 - t0) + 50000000))
# written zeros (no holes for lseek to skip): read and checked, same result
cp "$FIX/airbus-ShutdownPerfDiagLogger.etl" "$pad/p.etl" && chmod u+w "$pad/p.etl"
head -c 8388608 /dev/zero >>"$pad/p.etl"
check_eq "8 MiB of written zeros: 17078 events, 49 buffers, no problem, padding" "17078 49 0 8388608" \
	"$("$PMUKIT" etl threads "$pad/p.etl" >/dev/null && "$PMUKIT" etl info "$pad/p.etl" --json | py "import json,sys; d=json.load(sys.stdin); print(d['events'], d['buffers'], d['problems'], d['bytes_padding'])")"
# BuffersWritten 0 (a logger that never stopped): the zeros are still padding
cp "$FIX/airbus-lxcore_kernel.etl" "$pad/p.etl" && chmod u+w "$pad/p.etl"
printf '\0\0\0\0' | dd of="$pad/p.etl" bs=1 seek=$((0x8C)) conv=notrunc 2>/dev/null
truncate -s 10M "$pad/p.etl"
check_eq "BuffersWritten 0, zero tail: 4 events, 3 buffers, padding" "4 3 0 0 $((10485760 - 24576))" \
	"$("$PMUKIT" etl info "$pad/p.etl" --json | py "import json,sys; d=json.load(sys.stdin); print(d['events'], d['buffers'], d['problems'], d['buffers_written'], d['bytes_padding'])")"
# ... and garbage before the zeros: not padding; the search for the next
# buffer skips the zeros a page at a time (was ~10x 'cat', byte by byte)
printf 'junk' >>"$pad/p.etl"; truncate -s 512M "$pad/p.etl"
cat "$pad/p.etl" >/dev/null
t0=$(date +%s%N); cat "$pad/p.etl" >/dev/null; t1=$(date +%s%N)
"$PMUKIT" etl info "$pad/p.etl" --json >"$pad/j" 2>/dev/null
t2=$(date +%s%N)
got=$(py "import json,sys; d=json.load(open(sys.argv[1])); print(d['events'], d['problems'], d['bytes_skipped'], d['bytes_padding'])" "$pad/j")
check_eq "BuffersWritten 0, junk then zeros: 4 events, 1 problem, the rest skipped" "4 1 $((536870912 - 24576)) 0" "$got"
check "... searched in at most 3x 'cat' + 50 ms ($(( (t2 - t1) / 1000000 )) ms, cat $(( (t1 - t0) / 1000000 )) ms)" \
	test $((t2 - t1)) -le $((3 * (t1 - t0) + 50000000))
# Bytes read (rchar of /proc/PID/io, read before the child is reaped), not time: the
# search skips holes as the padding scan does (it read all 512 MiB of them).
rchar() {
	py '
import os, subprocess, sys
p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
os.waitid(os.P_PID, p.pid, os.WEXITED | os.WNOWAIT)
io = dict(l.split(": ") for l in open("/proc/%d/io" % p.pid).read().splitlines())
p.wait()
print(int(io["rchar"]))' "$@"
}
cp "$FIX/airbus-lxcore_kernel.etl" "$pad/h.etl" && chmod u+w "$pad/h.etl" && truncate -s 512M "$pad/h.etl"
if [ -r /proc/self/io ] && [ "$(rchar "$PMUKIT" etl info "$pad/h.etl")" -lt 1048576 ]; then
	n=$(rchar "$PMUKIT" etl info "$pad/p.etl")
	check "junk then 512 MiB of holes: the search reads under 1 MiB, as the padding scan ($n bytes)" \
		test "$n" -lt 1048576
else
	echo "# no hole-skipping on this file system (or no /proc/PID/io): bytes read not checked"
fi
rm -f "$pad/h.etl"
# zeros before the counted buffers: 9 of the 49 buffers are missing, not padding alone
cp "$FIX/airbus-ShutdownPerfDiagLogger.etl" "$pad/p.etl" && chmod u+w "$pad/p.etl"
truncate -s $((40 * 65536)) "$pad/p.etl" && truncate -s $((49 * 65536)) "$pad/p.etl"
"$PMUKIT" etl info "$pad/p.etl" --json >"$pad/j" 2>"$pad/err"
check_eq "zeros where 9 counted buffers should be: 40 buffers, 1 problem" "40 49 1" \
	"$(py "import json,sys; d=json.load(open(sys.argv[1])); print(d['buffers'], d['buffers_written'], d['problems'])" "$pad/j")"
check "... and says so ($(head -c 300 "$pad/err"))" \
	grep -q "the log-file header counts 49 buffers but the file holds 40: zeros from offset 0x280000" "$pad/err"
# data after the counted buffers: not padding, said and skipped
cp "$FIX/airbus-lxcore_kernel.etl" "$pad/p.etl" && chmod u+w "$pad/p.etl"
head -c 5000 /dev/zero >>"$pad/p.etl"; printf 'junk' >>"$pad/p.etl"
"$PMUKIT" etl info "$pad/p.etl" --json >"$pad/j" 2>"$pad/err"
check_eq "non-zero tail after BuffersWritten: 1 problem, 5004 bytes skipped, no padding" "4 1 5004 0" \
	"$(py "import json,sys; d=json.load(open(sys.argv[1])); print(d['events'], d['problems'], d['bytes_skipped'], d['bytes_padding'])" "$pad/j")"
check "... and says where" grep -q "5004 bytes after the 3 buffers the log-file header counts are not all zero (the first non-zero at offset 0x7388)" "$pad/err"
# a zeroed buffer inside the file: skipped to the next one, which starts with a zero byte
cp "$FIX/airbus-ShutdownPerfDiagLogger.etl" "$pad/p.etl" && chmod u+w "$pad/p.etl"
dd if=/dev/zero of="$pad/p.etl" bs=65536 seek=1 count=1 conv=notrunc 2>/dev/null
check_eq "a zeroed buffer in the middle: 48 buffers, 1 problem, 65536 bytes skipped, no padding" "48 1 65536 0" \
	"$("$PMUKIT" etl info "$pad/p.etl" --json 2>/dev/null | py "import json,sys; d=json.load(sys.stdin); print(d['buffers'], d['problems'], d['bytes_skipped'], d['bytes_padding'])")"
rm -rf "$pad"

# 6. a corrupt clock (start time 0 = year 1601, 1 tick/s, header at tick 0):
# event times saturate, relative times stay positive, nothing overflows.
tmp=$(mktemp)
py "
import struct,sys
d=bytearray(open(sys.argv[1],'rb').read())
struct.pack_into('<Q',d,0x58,0)     # raw time of the log-file header record
struct.pack_into('<Q',d,0x168,1)    # PerfFreq
struct.pack_into('<Q',d,0x170,0)    # StartTime
open(sys.argv[2],'wb').write(d)" "$FIX/airbus-lxcore_kernel.etl" "$tmp"
out=$("$PMUKIT" etl dump "$tmp"); rc=$?
check_eq "corrupt clock: dump exits 0" 0 $rc
check_eq "corrupt clock: 4 events, none before the start" "4 0" \
	"$(echo "$out" | awk '/cpu[0-9]/{n++; if ($1 < 0) neg++} END{print n, neg+0}')"
"$PMUKIT" etl info "$tmp" | grep -qE '^duration: +[0-9]' && pass "corrupt clock: positive duration" \
	|| fail "corrupt clock: duration"
rm -f "$tmp"

# 6. .NET JIT code: every frame 'pmukit script' names with a CLR method lies in
# the range of a method of that name that the trace's own CLR method events
# (as 'etl dump' prints them) give, at the offset script prints; report's
# dso column names its module, and the [unknown] left are counted.
for arch in x64 x86; do
	f=$FIX/perfview-net452-$arch-compressed.etl
	tmp=$(mktemp -d)
	"$PMUKIT" etl dump "$f" --provider DotNETRuntime > "$tmp/rt" &&
	"$PMUKIT" etl dump "$f" --provider DotNETRuntimeRundown > "$tmp/rd" &&
	"$PMUKIT" script -i "$f" > "$tmp/script" || fail "$arch: etl dump / script"
	got=$(py '
import re,sys
d=sys.argv[1]
meth={}
pat=re.compile(r" id=14[34] .*?start=(0x[0-9a-f]+) size=(0x[0-9a-f]+) .*?namespace=\"([^\"]*)\" name=\"([^\"]*)\" signature=\"([^\"]*)\"")
for fn in ("rt","rd"):
    for l in open(d+"/"+fn):
        m=pat.search(l)
        if not m: continue
        ns,name,sig=m.group(3),m.group(4),m.group(5)
        args=sig[sig.find("("):] if "(" in sig else ""
        full=(ns+"." if ns and ns!="NULL" else "")+name+args
        meth.setdefault(full,set()).add((int(m.group(1),16),int(m.group(2),16)))
frame=re.compile(r"^\s+([0-9a-f]+) (.+)\+0x([0-9a-f]+) \(([^)]*)\)$")
ok=bad=0
for l in open(d+"/script"):
    m=frame.match(l)
    if not m or m.group(2) not in meth: continue
    a,off=int(m.group(1),16),int(m.group(3),16)
    if any(s<=a<s+n and a-s==off for s,n in meth[m.group(2)]) and m.group(4).endswith((".dll",".exe","[.NET]")): ok+=1
    else:
        bad+=1
        if bad<4: print("mismatch:",l.strip(),file=sys.stderr)
print(ok,bad)
' "$tmp")
	set -- $got
	echo "# $arch: $1 JIT frames named as the CLR events say, $2 not"
	check "$arch: script names JIT frames by the CLR method ranges (${1:-0} frames)" [ "${1:-0}" -ge 1000 ]
	check_eq "$arch: JIT frames outside their method's range" 0 "${2:-1}"
	rep=$("$PMUKIT" report -i "$f" --no-children -s dso,sym -g none)
	check "$arch: report names a JIT method with its module" \
		grep -q 'mscorlib\.dll  *\[\.\] System\.DateTime\.GetDatePart(int32)' <<<"$rep"
	check "$arch: report counts what stays [unknown]" grep -q '^ *[0-9.]*%  *\[unknown\] ' <<<"$rep"
	rm -rf "$tmp"
done

# 7. image paths with drive letters (SysConfigEx VolumeMapping): the kernel's
# \Device\HarddiskVolume2\ and \SystemRoot\ paths read as C:\.
f=$FIX/perfview-net452-x64-compressed.etl
check "dump: the trace maps \\Device\\HarddiskVolume2\\ to C:\\" \
	grep -q 'nt_path="\\\\Device\\\\HarddiskVolume2\\\\" dos_path="C:\\\\"' <("$PMUKIT" etl dump "$f" --provider 9b79ee91-b5fd-41c0-a243-4248e266e9d0)
paths=$("$PMUKIT" script -i "$f" | grep -o '([^()]*\.\(exe\|dll\|sys\))$' | sort -u)
check "script: ntoskrnl.exe as C:\\Windows\\system32\\ntoskrnl.exe" grep -qix '(C:\\Windows\\system32\\ntoskrnl.exe)' <<<"$paths"
check_eq "script: no module path left as \\Device\\HarddiskVolumeN" 0 "$(grep -c 'HarddiskVolume' <<<"$paths")"

finish
