#!/bin/bash
# pmukit list --windows-profile-source: the WPRP fragment and registry form of a raw
# Intel event, from the spellings that need no sysfs (rNNNN, intel:...), and refusals.
set -u
. "$(dirname "$0")/lib.sh"
tmp=$(mktemp -d /tmp/pmukit-wprp-XXXXXX)
trap 'rm -rf "$tmp"' EXIT

"$PMUKIT" list --windows-profile-source intel:event=0x48,umask=0x01,cmask=1,any,name=L1DPendAny \
	>"$tmp/a.txt"
check_eq "intel: form exits 0" 0 $?
check "ProfileSource line carries the WPT example's ExtendedBits" grep -q \
	'<ProfileSource Architecture="INTEL" Event="0x48" Unit="0x01" ExtendedBits="01000100" Name="L1DPendAny" Interval="100000"/>' \
	"$tmp/a.txt"
check "fragment is wrapped in MicroArchitecturalConfig" grep -q '^</MicroArchitecturalConfig>$' "$tmp/a.txt"
check "registry key path" grep -qF \
	'[HKEY_LOCAL_MACHINE\SYSTEM\CurrentControlSet\Control\WMI\ProfileSource\<Model>\L1DPendAny]' "$tmp/a.txt"
check "registry Event value" grep -qx '"Event"=dword:00000048' "$tmp/a.txt"
check "registry Interval value" grep -qx '"Interval"=dword:000186a0' "$tmp/a.txt"
# The fragment is well-formed XML.
sed -n '/^<MicroArchitecturalConfig>$/,/^<\/MicroArchitecturalConfig>$/p' "$tmp/a.txt" >"$tmp/a.xml"
check "fragment parses as XML" py "
import sys, xml.etree.ElementTree as ET
r = ET.parse('$tmp/a.xml').getroot()
ps = r.find('ProfileSource')
assert r.tag == 'MicroArchitecturalConfig' and ps.get('Event') == '0x48', ps.attrib
assert ps.get('ExtendedBits') == '01000100'"

"$PMUKIT" list --windows-profile-source r3c --windows-model 'Intel64 Family 6 Model 85' >"$tmp/b.txt"
check_eq "rNNNN form exits 0" 0 $?
check "raw event without extended bits" grep -q 'Event="0x3C" Unit="0x00" Name="PmukitEvent3C_Unit00"' "$tmp/b.txt"
check "model names the key" grep -qF 'ProfileSource\Intel64 Family 6 Model 85\PmukitEvent3C_Unit00]' "$tmp/b.txt"
check "no ExtendedBits when none are set" bash -c "! grep -q ExtendedBits '$tmp/b.txt'"

"$PMUKIT" list --windows-profile-source cycles >"$tmp/c.txt" 2>"$tmp/c.err"
check "generic event refused" test $? -ne 0
check "refusal names the curated source" grep -q TotalCycles "$tmp/c.err"
"$PMUKIT" list --windows-profile-source intel:event=0x3c,bogus=1 >/dev/null 2>"$tmp/d.err"
check "unknown term refused" test $? -ne 0
check "refusal names the term" grep -q "'bogus'" "$tmp/d.err"
"$PMUKIT" list --windows-profile-source >/dev/null 2>&1
check_eq "missing value is a usage error" 2 $?
"$PMUKIT" list --help | grep -q -- '--windows-profile-source EVENT'
check_eq "--help documents the option" 0 $?
"$PMUKIT" list --help | grep -q 'intel:event=0x3c'
check_eq "--help documents the explicit form" 0 $?
finish
