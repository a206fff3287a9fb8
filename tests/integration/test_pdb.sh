#!/bin/bash
# The portable PDB reader on real PE + PDB pairs made here by clang + lld (mingw):
# pmukit addr2line -e x.exe on Linux against llvm-symbolizer (PDB) and against the
# same sources built with DWARF (same code), llvm-pdbutil's publics, a stale PDB
# refused, symbol paths (_NT_SYMBOL_PATH syntax, symbol-store layout), a missing
# PDB named with its GUID+Age.
set -u
. "$(dirname "$0")/lib.sh"
: "${SRCDIR:?}"
for t in clang lld-link llvm-symbolizer llvm-pdbutil x86_64-w64-mingw32-gcc objdump python3; do
	command -v "$t" >/dev/null || skip "$t is not installed (clang, lld, llvm, gcc-mingw-w64-x86-64)"
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
src=$SRCDIR/tests/integration/pdb_src
L=$(dirname "$(x86_64-w64-mingw32-gcc -print-libgcc-file-name)")
build() {	# DIR NAME EXTRA_FLAGS...
	local dir=$1 name=$2
	shift 2
	mkdir -p "$dir" && (cd "$dir" && clang --target=x86_64-w64-mingw32 -O2 -fuse-ld=lld \
		-L"$L" -I"$src" "$@" "$src/m.c" "$src/u.c" "$src/w.c" -o "$name.exe")
}
build "$tmp/a" p -g -gcodeview -Wl,--pdb=p.pdb || skip "clang cannot link a mingw PE + PDB here"
build "$tmp/d" p -gdwarf
check "the DWARF twin has the same code" \
	cmp -s <(objdump -s -j .text "$tmp/a/p.exe" | tail -n +4) <(objdump -s -j .text "$tmp/d/p.exe" | tail -n +4)

# 1. Every byte of the test program's functions, and every 5th of the rest of .text.
llvm-pdbutil dump --symbols "$tmp/a/p.pdb" >"$tmp/syms.txt"
text=$(objdump -h "$tmp/a/p.exe" | awk '$2 == ".text" {print $3, $4}')
py '
import re, sys
size, vma = (int(x, 16) for x in sys.argv[2].split())
out = set(range(vma, vma + size, 5))
txt = open(sys.argv[1]).read()
for m in re.finditer(r"S_[GL]PROC32.*\n.*addr = 0001:(\d+), code size = (\d+)", txt):
    s = vma + int(m.group(1))
    out.update(range(s, s + int(m.group(2))))
print("\n".join(hex(a) for a in sorted(out)))
' "$tmp/syms.txt" "$text" >"$tmp/addrs"
check "over 3000 addresses to compare ($(wc -l <"$tmp/addrs"))" test "$(wc -l <"$tmp/addrs")" -gt 3000
"$PMUKIT" addr2line -e "$tmp/a/p.exe" <"$tmp/addrs" >"$tmp/pmukit.txt" 2>"$tmp/err"
check_eq "every address lies in the image (exit status)" 0 $?
llvm-symbolizer --output-style=JSON --obj="$tmp/a/p.exe" <"$tmp/addrs" >"$tmp/llvm.txt"
llvm-symbolizer --output-style=JSON --obj="$tmp/d/p.exe" <"$tmp/addrs" >"$tmp/dwarf.txt"
check "functions, lines and inline chains agree with llvm-symbolizer (PDB) and DWARF" \
	python3 "$SRCDIR/tests/integration/pdb_compare.py" "$tmp/addrs" "$tmp/pmukit.txt" \
	"$tmp/llvm.txt" "$tmp/dwarf.txt"
check "inlined frames are reported" grep -q '(inlined)' "$tmp/pmukit.txt"
check "static functions are named (partition, qs, fill)" \
	test "$(grep -cE '^  (partition|qs|fill)\+' "$tmp/pmukit.txt")" -gt 100

# 2. Every function public symbol of .text is named by its own name at its address.
llvm-pdbutil dump --publics "$tmp/a/p.pdb" | py '
import re, sys
vma = int(sys.argv[1].split()[1], 16)
txt = sys.stdin.read()
for m in re.finditer(r"S_PUB32 \[size = \d+\] `([^`]+)`\n\s+flags = function, addr = 0001:(\d+)", txt):
    print(hex(vma + int(m.group(2))), m.group(1))
' "$text" >"$tmp/pubs"
check "llvm-pdbutil lists over 50 function publics" test "$(wc -l <"$tmp/pubs")" -gt 50
cut -d' ' -f1 "$tmp/pubs" | "$PMUKIT" addr2line -e "$tmp/a/p.exe" --no-inline |
	awk '/^0x/ {a = $1; next} {sub(/^  /, ""); sub(/ at .*/, ""); print a, $0}' >"$tmp/pub_named"
# Aliases share an address (_fpreset, fpreset): any of them names it.
check "every function public is named as llvm-pdbutil lists it" py '
import sys
want = {}
for l in open(sys.argv[1]):
    a, n = l.split()
    want.setdefault(a, set()).add(n)
got = dict(l.split() for l in open(sys.argv[2]))
bad = [a for a in want if got.get(a) not in want[a]]
print("%d publics, %d named otherwise: %s" % (len(want), len(bad), [(a, got.get(a)) for a in bad[:5]]))
sys.exit(1 if bad else 0)' "$tmp/pubs" "$tmp/pub_named"

# 3. Finding the PDB: a symbol store through --symbol-path and _NT_SYMBOL_PATH.
key=$(llvm-pdbutil dump --summary "$tmp/a/p.pdb" | py '
import re, sys
t = sys.stdin.read()
print(re.search(r"GUID: \{([0-9A-F-]+)\}", t).group(1).replace("-", "") + "%X" % int(re.search(r"Age: (\d+)", t).group(1)))')
mkdir -p "$tmp/store/p.pdb/$key" "$tmp/e"
mv "$tmp/a/p.pdb" "$tmp/store/p.pdb/$key/p.pdb"
cp "$tmp/a/p.exe" "$tmp/e/p.exe"
main=$(awk '$2 == "main" {print $1}' "$tmp/pubs")
out=$("$PMUKIT" addr2line -e "$tmp/e/p.exe" "$main" 2>&1)
check "without the PDB: 'no PDB' with its GUID+Age ($(echo "$out" | head -1))" \
	grep -q "no PDB for .*p.pdb {.*}-1" <<<"$out"
check "without the PDB: no function named" test -z "$(grep '^  main' <<<"$out")"
out=$("$PMUKIT" addr2line -e "$tmp/e/p.exe" --symbol-path "srv*$tmp/store*https://msdl.microsoft.com/download/symbols" "$main" 2>&1)
check "--symbol-path srv*STORE*SERVER finds the store's PDB" grep -q '^  main at .*m.c:4[0-9]' <<<"$out"
out=$(_NT_SYMBOL_PATH="$tmp/nothing;cache*$tmp/store" "$PMUKIT" addr2line -e "$tmp/e/p.exe" "$main" 2>&1)
check "_NT_SYMBOL_PATH cache*DIR finds the store's PDB" grep -q '^  main at' <<<"$out"
cp "$tmp/store/p.pdb/$key/p.pdb" "$tmp/e/p.pdb"
out=$("$PMUKIT" addr2line -e "$tmp/e/p.exe" "$main" 2>&1)
check "the PDB next to the image is found" grep -q '^  main at' <<<"$out"

# 4. A stale PDB (another build's: other GUID) is refused, never used for names.
sed 's/acc > 100000/acc > 100001/' "$src/m.c" >"$tmp/m2.c"
mkdir -p "$tmp/s" && (cd "$tmp/s" && clang --target=x86_64-w64-mingw32 -O2 -g -gcodeview \
	-fuse-ld=lld -L"$L" -I"$src" -Wl,--pdb=p.pdb "$tmp/m2.c" "$src/u.c" "$src/w.c" -o p2.exe)
cp "$tmp/s/p.pdb" "$tmp/e/p.pdb"
out=$("$PMUKIT" addr2line -e "$tmp/e/p.exe" "$main" 2>&1)
check "a PDB of another build is refused as stale" grep -q "stale PDB: .*p.pdb is {" <<<"$out"
check "a stale PDB names nothing" test -z "$(grep '^  main' <<<"$out")"
out=$("$PMUKIT" addr2line -e "$tmp/e/p.exe" --symbol-path "$tmp/store" "$main" 2>&1)
check "the store's matching PDB wins over the stale one next to the image" \
	grep -q '^  main at' <<<"$out"
out=$("$PMUKIT" addr2line -e "$tmp/e/p.exe" --symbol-path "$tmp/store" \
	--build-id 00112233445566778899aabbccddeeff01000000 "$main" 2>&1)
check "an image whose GUID+Age is not the recorded one is stale" grep -q "stale image" <<<"$out"

# 5. report on an .etl recorded on Windows (no PDB of it here): the samples in modules
# without their PDB, named with GUID+Age at the end, and the same in JSON; they are
# the samples of the rows left unnamed in those modules.
etl=$SRCDIR/../shared/fixtures/etl/perfview-net452-x64-compressed.etl
if [ -f "$etl" ]; then
	"$PMUKIT" report -i "$etl" --symbol-path "$tmp/store" >"$tmp/report.txt" 2>/dev/null
	line=$(grep '^# [0-9]* samples in [0-9]* modules without PDBs:' "$tmp/report.txt")
	check "report ends with the modules without PDBs (${line:0:100}...)" test -n "$line"
	"$PMUKIT" report --json --limit 0 -i "$etl" --symbol-path "$tmp/store" >"$tmp/report.json" 2>/dev/null
	check "JSON missing_pdbs: the text's figures, modules by samples, each unnamed row counted" py '
import json, re, sys
d = json.load(open(sys.argv[1]))
m = d["missing_pdbs"]
n, k = (int(x) for x in re.match(r"# (\d+) samples in (\d+) modules", sys.argv[2]).groups())
counts = [x["samples"] for x in m["modules"]]
rows = sum(r["samples"] for r in d["top"] if r["symbol"].endswith(("[missing]", "[stale]"))
           and re.fullmatch(r"[0-9A-F]{33,40}", r.get("build_id", "")))
ids = all(re.fullmatch(r"\{[0-9a-f-]{36}\}-\d+", x["pdb_id"]) for x in m["modules"])
print(n, k, m["samples"], len(counts), sum(counts), rows, ids)
sys.exit(not (n == m["samples"] == sum(counts) == rows > 0 and k == len(counts) and ids
              and counts == sorted(counts, reverse=True)))' "$tmp/report.json" "$line"
else
	echo "# no .etl fixture at $etl: the report summary is not checked"
fi
finish
