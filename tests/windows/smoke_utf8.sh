# Wine smoke part (sourced by smoke.sh): the command line and file names are UTF-16
# on Windows (issue 13 item 4). pmukit reads the UTF-16 command line
# (CommandLineToArgvW), converts it once to UTF-8 and opens files with _wfopen: a
# name outside the ANSI code page (here CJK under Wine's Western default) must reach
# the file system whole, where an ANSI argv would have made it '?'.
zdir="$WINEPREFIX/drive_c/users/Zoë"
mkdir -p "$zdir"
cp ../shared/fixtures/etl/perfview-primitive-types.etl "$zdir/测试.etl"

# A non-ASCII argument comes back as the same UTF-8 bytes.
run utf8_verb pmukit.exe stätt
rc=$?
if [ $rc -eq 2 ] && grep -q "unknown verb 'stätt'" "$OUT/utf8_verb.err"; then
	pass "a non-ASCII argument arrives as UTF-8 (unknown verb 'stätt')"
else
	fail utf8-arg "exit $rc (want 2); the verb's bytes: $(grep -o "verb '[^']*'" "$OUT/utf8_verb.err" | od -An -c | tr -s ' ' | head -c 120)"
fi

# A non-ASCII path read: C:\users\Zoë\测试.etl.
run utf8_read pmukit.exe etl info 'C:\users\Zoë\测试.etl'
rc=$?
if [ $rc -eq 0 ] && [ -s "$OUT/utf8_read.out" ]; then
	pass "etl info 'C:\\users\\Zoë\\测试.etl' (read through _wfopen)"
else
	fail utf8-read "exit $rc; see $OUT/utf8_read.*"
fi

# A non-ASCII path written: stat -o C:\users\Zoë\计数.txt holds the counts.
rm -f "$zdir/计数.txt"
run utf8_write pmukit.exe stat -o 'C:\users\Zoë\计数.txt' -e task-clock -- "$BUILD/exit_with.exe" 0 20
rc=$?
if [ $rc -eq 0 ] && grep -q 'task-clock' "$zdir/计数.txt" 2>/dev/null; then
	pass "stat -o 'C:\\users\\Zoë\\计数.txt' (written through _wfopen)"
else
	fail utf8-write "exit $rc; $(ls "$zdir" | tr '\n' ' '); see $OUT/utf8_write.*"
fi
