# Wine smoke part (sourced by smoke.sh): the exporter's TLS connection loop
# (tools/pmukit/exporter_tls_win.c) driven by tls_loop.exe over a loopback socket
# pair with a scripted SSPI table, since Wine's Schannel cannot be a server: a
# ClientHello split over two recv()s, application data in SECBUFFER_EXTRA, a
# request over several records, a reply split by cbMaximumMessage, close_notify,
# oversized and tampered records, the deadline over a trickling client, and every
# token and context freed. One "ok NAME" / "not ok NAME: why" a line.
if [ ! -f "$BUILD/tls_loop.exe" ]; then
	fail tls-loop "$BUILD/tls_loop.exe missing: run 'make windows'"
else
	timeout 300 "$WINE" "$BUILD/tls_loop.exe" >"$OUT/tls_loop.out" 2>"$OUT/tls_loop.err"
	rc=$?
	nok=$(grep -c '^ok ' "$OUT/tls_loop.out")
	if [ $rc -eq 0 ] && [ "$nok" -ge 20 ] && ! grep -q '^not ok' "$OUT/tls_loop.out"; then
		pass "tls-loop: $nok checks of the Schannel loop against a scripted SSPI table"
	else
		fail tls-loop "exit $rc; $(grep '^not ok' "$OUT/tls_loop.out" | head -3); see $OUT/tls_loop.out"
	fi
fi
