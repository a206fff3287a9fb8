#!/bin/bash
# scripts/abi.sh (make abi-check) passes an unchanged library and fails, with abidiff's
# report, when a public struct changed or a function appeared: the built library is
# checked against a fresh description of itself, then against edited copies of it.
set -u
. "$(dirname "$0")/lib.sh"
: "${PMUKIT_LIB:?}"
command -v abidw >/dev/null || skip "abidw is not installed (scripts/deps.sh installs abigail-tools)"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
abi() { sh "$SRCDIR/scripts/abi.sh" "$@" >"$tmp/out" 2>&1; }

abi dump "$PMUKIT_LIB" "$tmp/base.abi"
check "abi.sh dump describes the library" grep -q "name='pmu_counters_read'" "$tmp/base.abi"
abi check "$PMUKIT_LIB" "$tmp/base.abi"
check "an unchanged library passes (status $?)" test $? -eq 0

# The description of a library whose struct pmu_reading lacked its last member, and of
# one without pmu_version().
TMP=$tmp py '
import os, xml.etree.ElementTree as ET
d = os.environ["TMP"]
t = ET.parse(d + "/base.abi")
for c in t.getroot().iter("class-decl"):
    if c.get("name") == "pmu_reading":
        c.remove(c.findall("data-member")[-1])
        c.set("size-in-bits", str(int(c.get("size-in-bits")) - 64))
t.write(d + "/struct.abi")
t = ET.parse(d + "/base.abi")
for parent in t.getroot().iter():
    for ch in list(parent):
        if ch.get("name") == "pmu_version" or ch.get("elf-symbol-id", "").startswith("pmu_version@"):
            parent.remove(ch)
t.write(d + "/func.abi")
'
abi check "$PMUKIT_LIB" "$tmp/struct.abi"
check "a changed struct fails the check (status $?)" test $? -eq 1
check "the report names the struct and the new member" \
	grep -q "struct pmu_reading" "$tmp/out"
abi check "$PMUKIT_LIB" "$tmp/func.abi"
check "a new function fails the check (status $?)" test $? -eq 1
check "the report names it" grep -q "pmu_version" "$tmp/out"
finish
