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

# tls_der.exe: the PEM/DER reading of --tls-cert/--tls-key on truncated and hostile
# input (each input right before a no-access page), and exp_tls_key_load refusing
# truncated PKCS#8 keys with one sentence each.
if [ ! -f "$BUILD/tls_der.exe" ]; then
	fail tls-der "$BUILD/tls_der.exe missing: run 'make windows'"
else
	D=$OUT/tls_der
	rm -rf "$D"
	mkdir -p "$D"
	cert=
	if command -v openssl >/dev/null && openssl req -x509 -newkey rsa:2048 -nodes \
		-subj /CN=localhost -days 1 -keyout "$D/key.pem" -out "$D/cert.pem" 2>/dev/null; then
		cert=$D/cert.pem
	else
		echo "SKIP tls-der key-load: openssl is needed for a certificate"
	fi
	timeout 120 "$WINE" "$BUILD/tls_der.exe" "$D" $cert >"$OUT/tls_der.out" 2>"$OUT/tls_der.err"
	rc=$?
	nref=$(tr -d '\r' <"$OUT/tls_der.out" | sed -n 's/^# refusals //p')
	nsaid=$(grep -c '^pmukit exporter: ' "$OUT/tls_der.err")
	if [ $rc -eq 0 ] && ! grep -q '^not ok' "$OUT/tls_der.out" && [ -n "$nref" ] &&
		[ "$nref" = "$nsaid" ] && [ "$(wc -l <"$OUT/tls_der.err")" = "$nsaid" ]; then
		pass "tls-der: $(grep -c '^ok ' "$OUT/tls_der.out") checks; $nref refusals, one sentence each"
	else
		fail tls-der "exit $rc; $nref refusals, $nsaid sentences; $(grep '^not ok' "$OUT/tls_der.out" | head -3); see $OUT/tls_der.out, .err"
	fi
	# a UTF-16 PEM (Windows PowerShell 5's > writes one) is named as such, not "no such block"
	if grep 'utf16.pem' "$OUT/tls_der.err" | grep -q 'UTF-16'; then
		pass "tls-der: a UTF-16 PEM file is said to be UTF-16"
	else
		fail tls-der-utf16 "$(grep 'utf16.pem' "$OUT/tls_der.err")"
	fi
fi
