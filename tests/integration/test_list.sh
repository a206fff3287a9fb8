#!/bin/bash
# pmukit list: text and JSON listing, patterns, usability reasons, usage errors.
set -u
: "${PMUKIT:?PMUKIT must name the built pmukit command}"
fail() { echo "FAIL: $*" >&2; exit 1; }
tmp=$(mktemp -d /tmp/pmukit-list-XXXXXX)
trap 'rm -rf "$tmp"' EXIT

"$PMUKIT" list >"$tmp/all.txt" || fail "pmukit list exited $?"
grep -q '^Software events:$' "$tmp/all.txt" || fail "no software section"
grep -Eq '^  task-clock +\[software\]' "$tmp/all.txt" || fail "task-clock not listed"
grep -Eq '^  cycles +\[' "$tmp/all.txt" || fail "cycles not listed"
grep -Eq '^  InstructionRetired .*alias of instructions \(Windows' "$tmp/all.txt" ||
	fail "Windows alias not listed as an alias"

"$PMUKIT" list --json >"$tmp/all.json" || fail "pmukit list --json exited $?"
python3 - "$tmp/all.json" <<'PY' || fail "JSON listing is wrong"
import json, os, sys
doc = json.load(open(sys.argv[1]))
ev = {e["name"]: e for e in doc["events"]}
for e in doc["events"]:
    assert set(e) == {"name", "pmu", "kind", "description", "usable", "reason"}, e
    assert e["kind"] in ("hardware", "software", "cache", "cpu-specific", "tracepoint"), e
    assert e["usable"] or e["reason"], e
assert ev["task-clock"]["usable"] and ev["task-clock"]["kind"] == "software"
assert ev["L1-dcache-load-misses"]["kind"] == "cache"
d = "/sys/bus/event_source/devices"
cores = [p for p in os.listdir(d) if p == "cpu" or os.path.exists(f"{d}/{p}/cpus")] if os.path.isdir(d) else []
if not cores:
    assert not ev["cycles"]["usable"], ev["cycles"]
    assert ev["cycles"]["reason"].startswith("no hardware PMU"), ev["cycles"]
    print("host has no core PMU: cycles reported unusable", file=sys.stderr)
if os.path.exists(f"{d}/msr/events/tsc"):
    assert ev["msr/tsc/"]["pmu"] == "msr"
PY

# Glob patterns, case-insensitive.
"$PMUKIT" list 'l1-*' --json >"$tmp/l1.json" || fail "glob listing exited $?"
python3 -c '
import json, sys, fnmatch
ev = json.load(open(sys.argv[1]))["events"]
assert len(ev) >= 10, len(ev)
assert all(fnmatch.fnmatch(e["name"].lower(), "l1-*") for e in ev), ev
' "$tmp/l1.json" || fail "glob 'l1-*' matched wrong events"
# Substring patterns, case-insensitive.
out=$("$PMUKIT" list CACHE-MISS) || fail "substring listing exited $?"
grep -q 'cache-misses' <<<"$out" || fail "substring CACHE-MISS did not find cache-misses"
grep -q 'task-clock' <<<"$out" && fail "substring CACHE-MISS matched task-clock"

# perf's category words list one kind, all of it (not a substring search).
for pair in hw:hardware hardware:hardware sw:software software:software cache:cache \
	hwcache:cache pmu:cpu-specific; do
	word=${pair%%:*} kind=${pair#*:}
	"$PMUKIT" list "$word" --json >"$tmp/cat.json" || fail "pmukit list $word exited $?"
	python3 -c '
import json, sys
got = json.load(open(sys.argv[1]))["events"]
every = [e for e in json.load(open(sys.argv[2]))["events"] if e["kind"] == sys.argv[3]]
assert got and got == every, (sys.argv[3], len(got), len(every))
' "$tmp/cat.json" "$tmp/all.json" "$kind" || fail "'pmukit list $word' is not every $kind event"
done
out=$("$PMUKIT" list sw) || fail "pmukit list sw exited $?"
grep -Eq '^  context-switches +\[software\]' <<<"$out" || fail "list sw lacks context-switches"
grep -q '^Generic hardware events:' <<<"$out" && fail "list sw shows hardware events"
out=$("$PMUKIT" list sdt) || fail "pmukit list sdt exited $?"
grep -q "no 'sdt' events: pmukit has no SDT" <<<"$out" || fail "list sdt does not say why: $out"
# a list that cannot be written is an error (exit 1, said), as for stat, topo and caps
"$PMUKIT" list sw >/dev/full 2>"$tmp/full.err"; rc=$?
[ $rc = 1 ] || fail "list sw >/dev/full exited $rc, not 1"
grep -q "^pmukit list: writing the list failed: No space left on device" "$tmp/full.err" \
	|| fail "list >/dev/full does not say why: $(cat "$tmp/full.err")"
# --json is JSON for every word: no events, the reason on stderr
out=$("$PMUKIT" list sdt --json 2>/dev/null)
python3 -c 'import json,sys; assert json.loads(sys.argv[1]) == {"events": []}' "$out" 2>/dev/null \
	|| fail "list sdt --json is not JSON with no events: $out"
"$PMUKIT" list metric --json 2>&1 >/dev/null | grep -q "no 'metric' events: pmukit has no named metrics" \
	|| fail "list metric --json does not say why on stderr"

# A fixture host: sysfs aliases and tracepoints come from PMUKIT_SYSROOT.
dev=$tmp/root/sys/bus/event_source/devices
mkdir -p "$dev/software" "$dev/msr/events" "$dev/msr/format" \
	"$tmp/root/sys/kernel/tracing/events/sched/sched_switch"
echo 1 >"$dev/software/type"
echo 10 >"$dev/msr/type"
echo config:0-63 >"$dev/msr/format/event"
echo event=0x00 >"$dev/msr/events/tsc"
echo x >"$tmp/root/sys/kernel/tracing/events/header_page"
echo 316 >"$tmp/root/sys/kernel/tracing/events/sched/sched_switch/id"
out=$(PMUKIT_SYSROOT=$tmp/root "$PMUKIT" list tsc) || fail "fixture listing exited $?"
grep -Eq '^  msr/tsc/ +\[msr\] sysfs event alias: event=0x00$' <<<"$out" || fail "msr/tsc/ missing: $out"
out=$(PMUKIT_SYSROOT=$tmp/root "$PMUKIT" list 'sched:*') || fail "tracepoint listing exited $?"
grep -Eq '^  sched:sched_switch +\[tracepoint\]' <<<"$out" || fail "tracepoint missing: $out"
out=$(PMUKIT_SYSROOT=$tmp/root "$PMUKIT" list cycles) || fail "fixture cycles exited $?"
grep -q 'not usable here: no hardware PMU' <<<"$out" || fail "no-PMU reason missing: $out"
out=$(PMUKIT_SYSROOT=$tmp/root "$PMUKIT" list no-such-event-xyz) || fail "empty match must exit 0"
grep -q "no event matches 'no-such-event-xyz'" <<<"$out" || fail "empty match message: $out"
# Without tracefs, a listing that finds nothing else says how to mount it.
rm "$tmp/root/sys/kernel/tracing/events/header_page"
out=$(PMUKIT_SYSROOT=$tmp/root "$PMUKIT" list sched) || fail "unmounted tracefs listing exited $?"
grep -q "mount -t tracefs nodev /sys/kernel/tracing" <<<"$out" || fail "no tracefs hint: $out"

# Another user meeting a root-only tracefs hears that, not "not mounted".
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	echo x >"$tmp/root/sys/kernel/tracing/events/header_page"
	chmod 755 "$tmp"
	chmod 700 "$tmp/root/sys/kernel/tracing"
	out=$(PMUKIT_SYSROOT=$tmp/root setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$PMUKIT" list sched) || fail "non-root listing exited $?"
	grep -q "tracefs is not readable by this user" <<<"$out" || fail "no permission hint: $out"
	out=$(PMUKIT_SYSROOT=$tmp/root "$PMUKIT" list sched) || fail "root listing exited $?"
	grep -q "sched:sched_switch" <<<"$out" || fail "root cannot list the tracepoints: $out"
	chmod 755 "$tmp/root/sys/kernel/tracing"
else
	echo "note: not root or no setpriv: the non-root tracefs hint is not checked" >&2
fi

# tracefs not mounted: as root pmukit mounts it itself (as perf does); another user hears
# how. Done in a private mount namespace, so the host's mounts are left alone.
if [ "$(id -u)" = 0 ] && [ -d /sys/kernel/tracing ] && command -v unshare >/dev/null &&
	unshare -m --propagation private true 2>/dev/null; then
	out=$(unshare -m --propagation private sh -c '
		umount /sys/kernel/tracing 2>/dev/null
		grep -q " /sys/kernel/tracing tracefs" /proc/mounts && echo "STILL MOUNTED"
		setpriv --reuid=65534 --regid=65534 --clear-groups "$1" list tracepoint
		"$1" list tracepoint --json >"$2/tp.json"
		grep -q " /sys/kernel/tracing tracefs" /proc/mounts && echo "NOW MOUNTED"
		true' _ \
		"$PMUKIT" "$tmp") || fail "the tracefs mount check exited $?"
	grep -q "STILL MOUNTED" <<<"$out" && fail "could not unmount tracefs in a namespace: $out"
	grep -q "only root may mount it: run pmukit as root" <<<"$out" ||
		fail "another user is not told that root mounts tracefs: $out"
	grep -q "NOW MOUNTED" <<<"$out" || fail "pmukit did not mount tracefs as root: $out"
	python3 -c '
import json, sys
ev = json.load(open(sys.argv[1]))["events"]
names = {e["name"] for e in ev}
assert "sched:sched_switch" in names and all(e["usable"] for e in ev), len(ev)
' "$tmp/tp.json" || fail "list tracepoint after mounting tracefs lacks sched:sched_switch"
else
	echo "note: not root or no mount namespace: mounting tracefs is not checked" >&2
fi

# Usage.
"$PMUKIT" list --help | grep -q '^usage: pmukit list' || fail "--help"
"$PMUKIT" list --bogus 2>/dev/null
[ $? -eq 2 ] || fail "unknown option must exit 2"
"$PMUKIT" list a b 2>/dev/null
[ $? -eq 2 ] || fail "two patterns must exit 2"
echo "ok"
