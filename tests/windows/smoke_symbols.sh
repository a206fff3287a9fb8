# Wine smoke part (sourced by smoke.sh): concern 4 with DbgHelp. sym_target.exe (built
# with -gdwarf-4 like all of the Windows build) prints its pid and the addresses of
# sym_outer() and of a spot inside sym_inner() inlined into sym_middle() inlined into
# sym_outer(); pmukit.exe addr2line resolves them live (-p) and from the file (-e).
# What Wine's dbghelp gets wrong is printed as NOTE, not counted as passing.
sym_run() {   # run, then drop the CRs of the Windows console
	run "$@"
	local rc=$?
	sed -i 's/\r$//' "$OUT/$1.out" "$OUT/$1.err"
	return $rc
}
sym_check() {
	local tgt=$OUT/sym_target.out stop=$OUT/sym_stop pid probe outer base ib link i
	rm -f "$stop"
	"$WINE" "$BUILD/sym_target.exe" "$stop" 30 >"$tgt" 2>"$OUT/sym_target.err" &
	local tpid=$!
	for i in $(seq 1 100); do grep -q '^ready' "$tgt" 2>/dev/null && break; sleep 0.1; done
	pid=$(awk '$1 == "pid" {print $2}' "$tgt")
	probe=$(awk '$1 == "probe" {print $2}' "$tgt")
	outer=$(awk '$1 == "sym_outer" {print $2}' "$tgt")
	base=$(awk '$1 == "base" {print $2}' "$tgt")
	ib=$(awk '$1 == "imagebase" {print $2}' "$tgt")
	if [ -z "$pid" ] || [ -z "$probe" ]; then
		fail sym-target "sym_target.exe printed no addresses (see $OUT/sym_target.*)"
		touch "$stop"; wait $tpid
		return
	fi
	# Live: the inline chain, innermost first, with the owning function last.
	if sym_run sym_live pmukit.exe addr2line -p "$pid" "$probe" "$outer" &&
		sed -n 2p "$OUT/sym_live.out" | grep -q '^  sym_inner+0x[0-9a-f]* at .*sym_fixture.h:[0-9]* (inlined)$' &&
		sed -n 3p "$OUT/sym_live.out" | grep -q '^  sym_middle+0x[0-9a-f]* at .* (inlined)$' &&
		sed -n 4p "$OUT/sym_live.out" | grep -q '^  sym_outer+0x[0-9a-f]* at .*sym_target.c:[0-9]*$' &&
		grep -q "^$outer .*sym_target.exe+0x" "$OUT/sym_live.out" &&
		grep -A1 "^$outer " "$OUT/sym_live.out" | grep -q '^  sym_outer at .*sym_target.c:'; then
		pass "addr2line -p (live, DbgHelp): sym_inner <- sym_middle <- sym_outer, inline frames named"
	else
		fail sym-live "see $OUT/sym_live.*"
	fi
	sym_run sym_none pmukit.exe addr2line -p "$pid" 0x10
	if [ $? -eq 1 ] && grep -q 'lies in no module of process' "$OUT/sym_none.out"; then
		pass "addr2line -p: an address in no module exits 1 and says why"
	else
		fail sym-none "see $OUT/sym_none.*"
	fi
	touch "$stop"
	wait $tpid

	# Offline: the file at its preferred ImageBase (addresses as linked).
	link=$(printf '0x%x' $((probe - base + ib)))
	if sym_run sym_file pmukit.exe addr2line --json -e "$BUILD/sym_target.exe" "$link" && python3 -c '
import json, sys
a = json.load(open(sys.argv[1]))["addresses"][0]
f = [x["function"] for x in a["frames"]]
assert f == ["sym_inner", "sym_middle", "sym_outer"], f
assert [x["inlined"] for x in a["frames"]] == [True, True, False], a
assert a["module_offset"] == int(sys.argv[2], 16) - int(sys.argv[3], 16), a
' "$OUT/sym_file.out" "$link" "$ib"; then
		pass "addr2line -e sym_target.exe --json (offline, SymLoadModuleExW): the same chain"
	else
		fail sym-file "see $OUT/sym_file.*"
	fi
	# Lines of code that is not inlined, against binutils (x86_64-w64-mingw32-addr2line).
	if command -v x86_64-w64-mingw32-addr2line >/dev/null; then
		local fns want got
		# 4 bytes in: at a function's first byte the line table has a row for the
		# declaration and one for the brace; binutils takes the last, Wine the first.
		fns=$(x86_64-w64-mingw32-nm "$BUILD/sym_target.exe" | awk '$2 == "T" && ($3 == "main" || $3 == "sym_probe") {print $1}' |
			while read -r a; do printf '0x%x\n' $((16#$a + 4)); done)
		want=$(x86_64-w64-mingw32-addr2line -e "$BUILD/sym_target.exe" $fns | sed 's|.*/||')
		sym_run sym_lines pmukit.exe addr2line -e "$BUILD/sym_target.exe" $fns
		got=$(sed -n 's|^  [^ ]* at .*[\\/]\([^\\/]*:[0-9]*\)$|\1|p' "$OUT/sym_lines.out")
		if [ -n "$want" ] && [ "$want" = "$got" ]; then
			pass "addr2line -e: file:line of main+4, sym_probe+4 as binutils says ($(echo $got))"
		else
			fail sym-lines "binutils: $(echo $want); pmukit.exe: $(echo $got)"
		fi
		want=$(x86_64-w64-mingw32-addr2line -i -e "$BUILD/sym_target.exe" "$link" | sed 's|.*/||' | tr '\n' ' ')
		got=$(sed -n 's|^  [^ ]* at .*[\\/]\([^\\/]*:[0-9]*\).*|\1|p' "$OUT/sym_file.out" | tr '\n' ' ')
		sym_run sym_file_text pmukit.exe addr2line -e "$BUILD/sym_target.exe" "$link"
		got=$(sed -n 's|^  [^ ]* at .*[\\/]\([^\\/]*:[0-9]*\).*|\1|p' "$OUT/sym_file_text.out" | tr '\n' ' ')
		if [ "$want" = "$got" ]; then
			pass "addr2line: lines inside inlined code as binutils says ($want)"
		else
			echo "NOTE symbols: lines inside inlined code differ: binutils '$want', DbgHelp '$got'" \
				"(Wine's dbghelp; function names and the inline chain are right)"
		fi
	fi
	# Identity: a PDB GUID+Age the file does not have makes it stale.
	sym_run sym_stale pmukit.exe addr2line -e "$BUILD/sym_target.exe" \
		--build-id 0102030405060708090a0b0c0d0e0f1001000000 "$link"
	if grep -q 'stale binary: .* has PDB GUID+Age' "$OUT/sym_stale.err" &&
		grep -q '(stale: ' "$OUT/sym_stale.out" && ! grep -q '^  ' "$OUT/sym_stale.out"; then
		pass "addr2line --build-id (PDB GUID+Age) of another build: stale, module + offset only"
	else
		fail sym-stale "see $OUT/sym_stale.*"
	fi
}
# caps: concern 4 names DbgHelp and what Wine's lacks (smoke.sh wrote caps.out).
if grep -q 'symbolizer: dbghelp' "$OUT/caps.out" &&
	grep -q "code-space decode .*DbgHelp resolves" "$OUT/caps.out"; then
	pass "caps: concern 4 reports the DbgHelp symbolizer ($(grep -o 'symbolizer: dbghelp[^ ]*[^-]*' "$OUT/caps.out" | head -1))"
else
	fail sym-caps "concern 4 does not report the symbolizer (see $OUT/caps.out)"
fi
if [ -f "$BUILD/sym_target.exe" ]; then
	sym_check
else
	fail symbols "$BUILD/sym_target.exe missing"
fi
# A 70-byte "MZ" file whose e_lfanew points 1 GiB away: the PE header reader must
# refuse it (it used to read b + e_lfanew past its 1 KiB buffer and fault).
python3 -c 'import struct, sys
b = bytearray(70); b[0:2] = b"MZ"; b[0x3c:0x40] = struct.pack("<I", 0x40000000)
open(sys.argv[1], "wb").write(b)' "$OUT/tiny_pe.exe"
sym_run sym_tiny pmukit.exe addr2line -e "$OUT/tiny_pe.exe" 0x1000
rc=$?
if [ $rc -eq 1 ] && grep -q 'tiny_pe.exe is not a PE image' "$OUT/sym_tiny.err"; then
	pass "addr2line -e of a truncated MZ file: not a PE image, no fault"
else
	fail sym-tiny "exit $rc (want 1, 'not a PE image'); see $OUT/sym_tiny.*"
fi
