# Wine smoke part (sourced by smoke.sh): the portable PDB reader as DbgHelp's fallback.
# Wine's dbghelp reads an lld PDB next to its image or at its recorded path, so the
# fallback runs where DbgHelp cannot help: (1) the PDB only in a symbol store under a
# directory whose name is not ASCII (Wine's dbghelp does not search the store layout
# of a plain directory; the path must reach the reader as UTF-8); (2) a GNU ld PDB,
# which Wine's dbghelp loads (SymType PDB) but names no address inside a function of.
pdb_run() {   # run, then drop the CRs of the Windows console
	run "$@"
	local rc=$?
	sed -i 's/\r$//' "$OUT/$1.out" "$OUT/$1.err"
	return $rc
}
pdb_names() {   # the function names of addr2line's output FILE
	sed -n 's/^  \([^ +]*\).* at .*/\1/p' "$1"
}
pdb_store() {
	local b="$OUT/pdb_build" d="$OUT/pdb Zoë" ib addrs want got key
	rm -rf "$b" "$d" && mkdir -p "$b" "$d/exe"
	cat >"$b/t.c" <<-'EOF'
	#include <stdio.h>
	volatile int g = 3;
	static inline int sq(int x) { return x * x + g; }
	static int __attribute__((noinline)) leaf(int x)
	{
		int s = 0;
		for (int i = 0; i < x; i++)
			s += sq(i);
		return s;
	}
	int __attribute__((noinline)) middle(int x) { return leaf(x) + 1; }
	int main(void) { printf("%d\n", middle(g)); return 0; }
	EOF
	if ! (cd "$b" && clang --target=x86_64-w64-mingw32 -O2 -g -gcodeview -fuse-ld=lld \
		-L"$PDB_LIBGCC" -Wl,--pdb=t.pdb t.c -o t.exe) >"$OUT/pdb_cc.err" 2>&1; then
		fail pdb-build "clang/lld could not build t.exe (see $OUT/pdb_cc.err)"
		return
	fi
	# Addresses as linked: the first bytes of each procedure and 5 bytes in.
	ib=$(x86_64-w64-mingw32-objdump -p "$b/t.exe" | awk '$1 == "ImageBase" {print $2}')
	addrs=$(llvm-pdbutil dump --symbols "$b/t.pdb" |
		awk '/S_GPROC32|S_LPROC32/ {f = 1; next} f && /addr = 0001:/ {
			split($0, a, "addr = 0001:"); split(a[2], c, ","); print c[1]; f = 0 }' |
		while read -r off; do for k in 0 5; do
			printf '0x%x\n' $((16#$ib + 0x1000 + 10#$off + k)); done; done)
	want=$(llvm-symbolizer --obj="$b/t.exe" --no-inlines $addrs | awk 'NR % 3 == 1')
	key=$(llvm-pdbutil dump --summary "$b/t.pdb" |
		awk '/GUID:/ {g = $2} /Age:/ {a = $2} END {gsub(/[{}-]/, "", g); printf "%s%X", g, a}')
	mkdir -p "$d/store/t.pdb/$key" && mv "$b/t.pdb" "$d/store/t.pdb/$key/t.pdb" &&
		cp "$b/t.exe" "$d/exe/t.exe"
	pdb_run pdb_store pmukit.exe addr2line --no-inline --symbol-path "$d/store" -e "$d/exe/t.exe" $addrs
	got=$(pdb_names "$OUT/pdb_store.out")
	# The portable reader gives the file as the PDB holds it (a Unix path here);
	# DbgHelp would give Wine's Z:\ form.
	if [ -n "$want" ] && [ "$want" = "$got" ] && echo "$got" | grep -qx leaf &&
		grep -q '^  middle at /.*/t\.c:11$' "$OUT/pdb_store.out"; then
		pass "addr2line -e, PDB only in a symbol store under 'pdb Zoë' (portable reader): $(echo $got) as llvm-symbolizer"
	else
		fail pdb-store "llvm-symbolizer: $(echo $want); pmukit.exe: $(echo $got) (see $OUT/pdb_store.*)"
	fi
}
pdb_gnu_ld() {
	local b="$OUT/pdb_gld" ib pubs a n want got
	rm -rf "$b" && mkdir -p "$b" && cp "$OUT/pdb_build/t.c" "$b/"
	if ! (cd "$b" && x86_64-w64-mingw32-gcc -O2 -Wl,--pdb=g.pdb t.c -o g.exe) >"$OUT/pdb_gld.err" 2>&1; then
		echo "SKIP pdb-gnu-ld: this binutils cannot write a PDB (ld --pdb, binutils 2.40+)"
		return
	fi
	# The function publics GNU ld wrote, each asked 4 bytes in.
	ib=$(x86_64-w64-mingw32-objdump -p "$b/g.exe" | awk '$1 == "ImageBase" {print $2}')
	pubs=$(llvm-pdbutil dump --publics "$b/g.pdb" | awk '/S_PUB32/ {n = $NF; gsub(/`/, "", n)}
		/flags = function, addr = 0001:/ {split($0, a, "addr = 0001:"); print a[2], n}' |
		grep -E ' (leaf|middle|main)$')
	want=$(echo "$pubs" | awk '{print $2}')
	a=$(echo "$pubs" | while read -r off n; do printf '0x%x ' $((16#$ib + 0x1000 + 10#$off + 4)); done)
	pdb_run pdb_gld pmukit.exe addr2line --no-inline -e "$b/g.exe" $a
	got=$(pdb_names "$OUT/pdb_gld.out")
	if [ -n "$want" ] && [ "$want" = "$got" ]; then
		pass "addr2line -e of a GNU ld PE + PDB (Wine's DbgHelp names nothing inside functions): $(echo $got) at +4"
	else
		fail pdb-gnu-ld "publics: $(echo $want); pmukit.exe: $(echo $got) (see $OUT/pdb_gld.*)"
	fi
}
if command -v clang >/dev/null && command -v ld.lld >/dev/null && command -v llvm-pdbutil >/dev/null &&
	command -v llvm-symbolizer >/dev/null; then
	PDB_LIBGCC=$(dirname "$(x86_64-w64-mingw32-gcc -print-libgcc-file-name)")
	pdb_store
	pdb_gnu_ld
else
	echo "SKIP pdb: clang, lld, llvm-pdbutil or llvm-symbolizer missing (Debian: clang lld llvm)"
fi
