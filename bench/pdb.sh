#!/bin/bash
# The portable PDB reader against llvm-symbolizer: 100,000 addresses of the SQLite
# amalgamation built as a Windows DLL by clang + lld (-O2 -g -gcodeview, PDB next to
# it), every one resolved by `pmukit addr2line -e` and by `llvm-symbolizer --obj`:
# addresses/s, peak RSS, and how often the two agree; the same DLL built with DWARF
# (same code) judges the lines of inlined frames.
# usage: bench/pdb.sh [BUILD] [N]   (the amalgamation comes from bench/sqlite.sh)
set -euo pipefail
build=${1:-build}
n=${2:-100000}
here=$(cd "$(dirname "$0")" && pwd)
dir=$build/bench-pdb
for t in clang lld-link llvm-symbolizer llvm-pdbutil x86_64-w64-mingw32-gcc python3; do
	command -v "$t" >/dev/null || { echo "bench/pdb.sh: $t is needed (clang lld llvm gcc-mingw-w64-x86-64)" >&2; exit 1; }
done
bash "$here/sqlite.sh" "$build/bench-sqlite" >/dev/null
src=$build/bench-sqlite/package/deps/sqlite3/sqlite3.c
mkdir -p "$dir"
L=$(dirname "$(x86_64-w64-mingw32-gcc -print-libgcc-file-name)")
if [ ! -s "$dir/sqlite3.pdb" ]; then
	echo "building sqlite3.dll + sqlite3.pdb (clang, lld; a minute or two)"
	clang --target=x86_64-w64-mingw32 -O2 -g -gcodeview -fuse-ld=lld -L"$L" -shared \
		-Wl,--pdb="$dir/sqlite3.pdb" "$src" -o "$dir/sqlite3.dll"
fi
if [ ! -s "$dir/dwarf/sqlite3.dll" ]; then
	echo "building its DWARF twin (another minute)"
	mkdir -p "$dir/dwarf"
	clang --target=x86_64-w64-mingw32 -O2 -gdwarf -fuse-ld=lld -L"$L" -shared "$src" \
		-o "$dir/dwarf/sqlite3.dll"
fi
# Same instructions at the same addresses (data displacements may differ; objdump's
# linear sweep reads a few padding bytes differently).
insns() { objdump -d --no-show-raw-insn "$1" | awk '/^ +[0-9a-f]+:/ {print $1, $2}'; }
insns "$dir/sqlite3.dll" >"$dir/insns.pdb"
insns "$dir/dwarf/sqlite3.dll" >"$dir/insns.dwarf"
differ=$(diff "$dir/insns.pdb" "$dir/insns.dwarf" | grep -c '^<' || true)
total=$(wc -l <"$dir/insns.pdb")
twin=$dir/dwarf.txt
echo "the DWARF twin: $differ of $total instructions differ"
if [ "$differ" -gt $((total / 1000)) ]; then
	echo "the DWARF twin's code differs: inlined lines are not judged"
	twin=
fi
# N addresses in the DLL's functions, each function by its size (fixed seed).
llvm-pdbutil dump --symbols "$dir/sqlite3.pdb" | python3 -c '
import random, re, subprocess, sys
n, dll = int(sys.argv[1]), sys.argv[2]
hdr = subprocess.run(["objdump", "-h", dll], capture_output=True, text=True).stdout
vma = {int(m.group(1)): int(m.group(2), 16) for m in
       re.finditer(r"^\s+(\d+) \S+\s+[0-9a-f]+\s+([0-9a-f]+)", hdr, re.M)}
procs = [(vma[int(m.group(1)) - 1] + int(m.group(2)), int(m.group(3)))
         for m in re.finditer(r"S_[GL]PROC32.*\n.*addr = (\d+):(\d+), code size = (\d+)",
                              sys.stdin.read()) if int(m.group(3))]
rnd = random.Random(1)
pick = rnd.choices(procs, weights=[p[1] for p in procs], k=n)
print("\n".join(hex(s + rnd.randrange(z)) for s, z in pick))
' "$n" "$dir/sqlite3.dll" >"$dir/addrs"
echo "$(wc -l <"$dir/addrs") addresses in $(llvm-pdbutil dump --symbols "$dir/sqlite3.pdb" | grep -c 'S_[GL]PROC32') functions of sqlite3.dll ($(du -h "$dir/sqlite3.pdb" | cut -f1) PDB)"
run() {	# LABEL OUT CMD...
	local label=$1 out=$2
	shift 2
	/usr/bin/time -f '%e %M' -o "$dir/time" "$@" <"$dir/addrs" >"$out"
	read -r secs kb <"$dir/time"
	python3 -c 'import sys; n, s, kb = int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]); print("%-16s %8.2f s  %10.0f addresses/s  peak RSS %6.1f MB" % (sys.argv[4], s, n / max(s, 0.01), kb / 1024))' \
		"$(wc -l <"$dir/addrs")" "$secs" "$kb" "$label"
	echo "$secs" >"$dir/$label.secs"
}
run pmukit "$dir/pmukit.txt" "$build/pmukit" addr2line -e "$dir/sqlite3.dll"
run llvm-symbolizer "$dir/llvm.txt" llvm-symbolizer --output-style=JSON --obj="$dir/sqlite3.dll"
python3 -c 'import sys; a, b = float(open(sys.argv[1]).read()), float(open(sys.argv[2]).read()); print("pmukit is %.1fx llvm-symbolizer (target: 2x)" % (b / max(a, 0.01)))' \
	"$dir/pmukit.secs" "$dir/llvm-symbolizer.secs"
[ -n "$twin" ] && llvm-symbolizer --output-style=JSON --obj="$dir/dwarf/sqlite3.dll" <"$dir/addrs" >"$twin"
python3 "$here/../tests/integration/pdb_compare.py" --bench "$dir/addrs" "$dir/pmukit.txt" \
	"$dir/llvm.txt" $twin
