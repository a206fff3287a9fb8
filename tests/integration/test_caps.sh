#!/bin/bash
# pmukit caps end to end: text and JSON matrices of the live host with all eight
# concerns and exit status 0, then a fixture /proc + /sys read through PMUKIT_SYSROOT.
set -u
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip "python3 is needed to check the JSON"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# 1. text and JSON of this host
"$PMUKIT" caps >"$tmp/text"
check_eq "pmukit caps exits 0" 0 $?
for want in "scalar counting" "OS CPU counters" "facts:" "perf_event_paranoid:"; do
	check "text shows '$want'" grep -qF "$want" "$tmp/text"
done
"$PMUKIT" caps --json >"$tmp/json"
check_eq "pmukit caps --json exits 0" 0 $?

check "JSON: concerns 1..8 with name/status/reason/remedy (a remedy unless available), host, facts; text agrees" py '
import json, sys
doc = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read()
concerns = doc["concerns"]
assert [c["id"] for c in concerns] == list(range(1, 9)), concerns
for c in concerns:
    for k in ("name", "status", "reason", "remedy"):
        assert isinstance(c.get(k), str), (c, k)
    assert c["name"] and c["reason"], c
    assert c["status"] in ("available", "limited", "unavailable"), c
    # short of available, the answer says what to do
    assert c["status"] == "available" or c["remedy"], c
    assert " %-2d %-30s %-12s %s" % (c["id"], c["name"], c["status"], c["reason"]) in text, c
host = doc["host"]
assert host["os"] == "Linux" and host["kernel"] and host["arch"], host
assert isinstance(host["vm"], bool), host
facts = doc["facts"]
assert all({"concern", "key", "value", "explanation"} <= set(f) for f in facts), facts
keys = {f["key"] for f in facts}
for k in ("perf_event_paranoid", "core_pmus", "numa_nodes", "proc_stat", "sysfs_pmus"):
    assert k in keys, k
flags = [l for l in open("/proc/cpuinfo") if l.startswith("flags")]
if flags and " hypervisor" in flags[0]:
    assert host["vm"] is True, host
print("   " + ", ".join("%d %s" % (c["id"], c["status"]) for c in concerns))
' "$tmp/json" "$tmp/text"

# 2. no hardware PMU here: concern 1 limited for that reason, 3 unavailable
if py 'import os,sys; d="/sys/bus/event_source/devices"; sys.exit(0 if any(n == "cpu" or os.path.exists(d+"/"+n+"/cpus") for n in os.listdir(d)) else 1)' 2>/dev/null; then
	echo "skip part 2: this host has a hardware PMU"
else
	check "no PMU: 1 limited with 'no hardware PMU', 3 unavailable" py '
import json, sys
c = {x["id"]: x for x in json.load(open(sys.argv[1]))["concerns"]}
assert c[1]["status"] == "limited" and "no hardware PMU" in c[1]["reason"], c[1]
assert c[3]["status"] == "unavailable", c[3]' "$tmp/json"
fi

# 3. a fixture host through PMUKIT_SYSROOT: no /proc/stat, tracefs unknown, paranoid 3
root=$tmp/root
mkdir -p "$root/proc/sys/kernel" "$root/proc/self" "$root/sys/bus/event_source/devices/software"
echo 3 >"$root/proc/sys/kernel/perf_event_paranoid"
echo "6.1.0-fixture" >"$root/proc/sys/kernel/osrelease"
printf 'Uid:\t0\t0\t0\t0\nCapEff:\t000001ffffffffff\n' >"$root/proc/self/status"
printf 'nodev\tsysfs\n' >"$root/proc/filesystems"
echo 1 >"$root/sys/bus/event_source/devices/software/type"
PMUKIT_SYSROOT=$root "$PMUKIT" caps --json >"$tmp/fixture.json"
check_eq "fixture: pmukit caps --json exits 0" 0 $?
check "fixture: kernel, paranoid and missing files come from the sysroot" py '
import json, sys
doc = json.load(open(sys.argv[1]))
c = {x["id"]: x for x in doc["concerns"]}
f = {x["key"]: x["value"] for x in doc["facts"]}
assert doc["host"]["kernel"] == "6.1.0-fixture", doc["host"]
assert f["perf_event_paranoid"] == "3", f
assert f["sysfs_pmus"] == "software", f
assert c[5]["status"] == "unavailable" and "no tracepoint support" in c[5]["reason"], c[5]
assert c[8]["status"] == "unavailable" and "/proc/stat" in c[8]["reason"], c[8]' "$tmp/fixture.json"

# 4. options
"$PMUKIT" caps --bogus >/dev/null 2>&1
check_eq "an unknown option exits 2" 2 $?
check "--help describes --json" bash -c '"$1" caps --help | grep -q -- --json' _ "$PMUKIT"
finish
