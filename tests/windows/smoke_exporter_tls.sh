# Wine smoke part (sourced by smoke.sh): pmukit exporter --tls-cert/--tls-key on
# Windows (Schannel through SSPI, the PEM pair through crypt32). With a fresh openssl
# pair the server starts on https://, its key sits in a key container of this
# process while it runs and is gone after; plain http:// to the port gets a plain 400
# and the server keeps serving; a silent client is closed by the deadline; a
# handshake failure is logged once, not per client. A key of another certificate, a
# certificate that is no PEM, and an encrypted key are refused at start-up with one
# sentence and exit 1.
#
# Wine 8.0's Schannel has no server side: AcceptSecurityContext returns
# SEC_E_UNSUPPORTED_FUNCTION (0x80090302), so the handshake itself (curl --cacert
# ... https://.../metrics getting the exposition) is checked only where it works,
# and skipped with that reason under Wine. Its crypt32 has no X509_ECC_PRIVATE_KEY
# decoder either (EC keys: the same kind of skip).
tls_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# tls_start NAME PORT MAX CERT KEY: starts the exporter, waits until it listens or
# exits; $tpid is its pid, $OUT/NAME.err its stderr.
tls_start() {
	"$WINE" "$BUILD/pmukit.exe" exporter --listen "127.0.0.1:$2" --max-requests "$3" \
		--tls-cert "$4" --tls-key "$5" >"$OUT/$1.out" 2>"$OUT/$1.err" &
	tpid=$!
	for _ in $(seq 150); do
		grep -q 'listening on' "$OUT/$1.err" && return 0
		kill -0 "$tpid" 2>/dev/null || return 1
		sleep 0.2
	done
	return 1
}

# tls_wait: waits (at most 30 s) for $tpid to end; $trc is its status or "timeout".
tls_wait() {
	for _ in $(seq 300); do kill -0 "$tpid" 2>/dev/null || break; sleep 0.1; done
	if kill -0 "$tpid" 2>/dev/null; then kill "$tpid"; wait "$tpid"; trc=timeout; else wait "$tpid"; trc=$?; fi
}

# tls_refused NAME CERT KEY PATTERN WHAT: the exporter exits 1 at start with PATTERN.
tls_refused() {
	local p
	p=$(tls_port)
	if tls_start "$1" "$p" 1 "$2" "$3"; then
		curl -s -o /dev/null -m 5 "http://127.0.0.1:$p/"  # lets it end
		tls_wait
		fail "$1" "$5 was accepted; see $OUT/$1.err"
		return
	fi
	tls_wait
	if [ "$trc" = 1 ] && [ "$(grep -c . "$OUT/$1.err")" = 1 ] && grep -q -- "$4" "$OUT/$1.err"; then
		pass "$1: $5 refused at start-up, exit 1: $(cut -c1-110 "$OUT/$1.err")..."
	else
		fail "$1" "exit $trc; want one line matching '$4'; see $OUT/$1.err"
	fi
}

# tls_loads NAME CERT KEY: the exporter starts with the pair and, after one plain
# request, exits 0. $trc is its status; $tstarted is 1 when it listened.
tls_loads() {
	local p
	p=$(tls_port)
	tstarted=0
	if tls_start "$1" "$p" 1 "$2" "$3"; then
		tstarted=1
		curl -s -o /dev/null -m 10 "http://127.0.0.1:$p/"  # lets it end
	fi
	tls_wait
	[ "$tstarted" = 1 ] && [ "$trc" = 0 ]
}

if ! command -v curl >/dev/null || ! command -v openssl >/dev/null; then
	echo "SKIP exporter-tls: curl and openssl are needed"
else
	T=$OUT/tls
	mkdir -p "$T"
	for n in a b; do
		openssl req -x509 -newkey rsa:2048 -nodes -subj /CN=localhost -days 1 \
			-keyout "$T/key_$n.pem" -out "$T/cert_$n.pem" 2>/dev/null
	done
	openssl rsa -in "$T/key_a.pem" -traditional -out "$T/key_a_pkcs1.pem" 2>/dev/null
	openssl pkey -in "$T/key_a.pem" -aes256 -passout pass:x -out "$T/key_a_enc.pem"
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj /CN=localhost \
		-days 1 -keyout "$T/key_ec.pem" -out "$T/cert_ec.pem" 2>/dev/null
	sed -e 's/^M/!/' "$T/cert_a.pem" >"$T/cert_bad.pem"  # its base64 no longer decodes

	# The server: 5 connections (plain http, 2 handshakes, a silent client, plain http).
	tp=$(tls_port)
	if ! tls_start exporter_tls "$tp" 5 "$T/cert_a.pem" "$T/key_a.pem"; then
		fail exporter-tls "the exporter did not start with the PEM pair; see $OUT/exporter_tls.err"
	else
		python3 -c 'import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
t = time.time()
s.settimeout(60)
try:
    s.recv(1)
except OSError:
    pass
print("%.1f" % (time.time() - t))' "$tp" >"$OUT/exporter_tls.silent" &
		silent=$!
		"$WINE" reg query 'HKCU\Software\Wine\Crypto\RSA' >"$OUT/exporter_tls.keys1" 2>&1
		c400=$(curl -s -m 10 -o "$OUT/exporter_tls.plain" -w '%{http_code}' "http://127.0.0.1:$tp/metrics")
		for i in 1 2; do
			curl -s -m 15 --cacert "$T/cert_a.pem" -o "$OUT/exporter_tls.metrics$i" \
				-w '%{http_code}' "https://localhost:$tp/metrics" >"$OUT/exporter_tls.code$i" 2>&1
			echo " exit $?" >>"$OUT/exporter_tls.code$i"
		done
		alive=no
		kill -0 "$tpid" 2>/dev/null && alive=yes
		wait "$silent"
		c400b=$(curl -s -m 10 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$tp/")
		tls_wait
		"$WINE" reg query 'HKCU\Software\Wine\Crypto\RSA' >"$OUT/exporter_tls.keys2" 2>&1
		held=$(grep -c 'pmukit-exporter-' "$OUT/exporter_tls.keys1")
		left=$(grep -c 'pmukit-exporter-' "$OUT/exporter_tls.keys2")
		secs=$(cat "$OUT/exporter_tls.silent")
		if [ "$c400" = 400 ] && grep -q 'serves HTTPS' "$OUT/exporter_tls.plain" &&
			[ "$c400b" = 400 ] && [ "$alive" = yes ] && [ "$trc" = 0 ] &&
			grep -q 'listening on https://127.0.0.1' "$OUT/exporter_tls.err" &&
			[ "$(grep -c 'plain HTTP on the HTTPS port' "$OUT/exporter_tls.err")" = 1 ] &&
			awk -v s="$secs" 'BEGIN { exit !(s >= 8 && s <= 25) }'; then
			pass "exporter-tls: https:// server from a PEM pair; plain http:// gets 400 (logged once) and the server goes on; a silent client closed after $secs s"
		else
			fail exporter-tls "400s $c400/$c400b, alive $alive, exit $trc, silent client $secs s; see $OUT/exporter_tls.*"
		fi
		# Wine's rsaenh keeps containers in the registry: there while serving, gone after.
		if [ "$held" -ge 1 ] && [ "$left" = 0 ]; then
			pass "exporter-tls-key: the key sat in a per-process CryptoAPI container while serving and was deleted at exit"
		else
			fail exporter-tls-key "containers while serving $held, after exit $left; see $OUT/exporter_tls.keys*"
		fi
		if grep -q 'AcceptSecurityContext returns SEC_E_UNSUPPORTED_FUNCTION' "$OUT/exporter_tls.err"; then
			# No server side here: both handshakes fail at once, logged once.
			if grep -q ' exit 35' "$OUT/exporter_tls.code1" && grep -q ' exit 35' "$OUT/exporter_tls.code2" &&
				[ "$(grep -c 'TLS handshake failed (status 0x80090302)' "$OUT/exporter_tls.err")" = 1 ]; then
				pass "exporter-tls-handshake-failure: the failed handshakes end the connection (curl exit 35) and are logged once"
			else
				fail exporter-tls-handshake-failure "see $OUT/exporter_tls.code* and .err"
			fi
			echo "SKIP exporter-tls-https: Wine 8.0's Schannel has no server side (AcceptSecurityContext returns SEC_E_UNSUPPORTED_FUNCTION 0x80090302), so curl --cacert ... https://localhost:PORT/metrics cannot be answered here"
		elif grep -q '^200 exit 0' "$OUT/exporter_tls.code1" && grep -q '^200 exit 0' "$OUT/exporter_tls.code2" &&
			grep -q '^pmukit_cpu_seconds_total{cpu="0"' "$OUT/exporter_tls.metrics1"; then
			pass "exporter-tls-https: curl --cacert cert.pem https://localhost:PORT/metrics got the exposition twice"
		else
			fail exporter-tls-https "see $OUT/exporter_tls.code* and .metrics*"
		fi
	fi

	# A killed exporter cannot delete its key container (a copy of the private key):
	# the next one deletes the containers of pmukit exporters no longer running.
	tp=$(tls_port)
	if tls_start exporter_tls_killed "$tp" 1 "$T/cert_a.pem" "$T/key_a.pem"; then
		"$WINE" reg query 'HKCU\Software\Wine\Crypto\RSA' 2>&1 | grep -o 'pmukit-exporter-[0-9-]*' |
			sort >"$OUT/exporter_tls.killed1"
		kill -9 "$tpid"
		wait "$tpid" 2>/dev/null
		tp=$(tls_port)
		if tls_start exporter_tls_sweep "$tp" 1 "$T/cert_a.pem" "$T/key_a.pem"; then
			"$WINE" reg query 'HKCU\Software\Wine\Crypto\RSA' 2>&1 |
				grep -o 'pmukit-exporter-[0-9-]*' | sort >"$OUT/exporter_tls.killed2"
			curl -s -o /dev/null -m 10 "http://127.0.0.1:$tp/"
		fi
		tls_wait
		stale=$(comm -12 "$OUT/exporter_tls.killed1" "$OUT/exporter_tls.killed2" | wc -l)
		if [ -s "$OUT/exporter_tls.killed1" ] && [ -s "$OUT/exporter_tls.killed2" ] && [ "$stale" = 0 ]; then
			pass "exporter-tls-killed: the key container a killed exporter left was deleted by the next one"
		else
			fail exporter-tls-killed "$stale container(s) of the killed exporter still there; see $OUT/exporter_tls.killed*"
		fi
	else
		tls_wait
		fail exporter-tls-killed "did not start; see $OUT/exporter_tls_killed.err"
	fi

	# PKCS#1 ("RSA PRIVATE KEY") as well as PKCS#8 ("PRIVATE KEY").
	if tls_loads exporter_tls_pkcs1 "$T/cert_a.pem" "$T/key_a_pkcs1.pem"; then
		pass "exporter-tls-pkcs1: an \"RSA PRIVATE KEY\" loads as well"
	elif [ "$tstarted" = 1 ]; then
		fail exporter-tls-pkcs1 "exit $trc; see $OUT/exporter_tls_pkcs1.err"
	else
		fail exporter-tls-pkcs1 "did not start (exit $trc); see $OUT/exporter_tls_pkcs1.err"
	fi
	tls_refused exporter-tls-wrong-key "$T/cert_a.pem" "$T/key_b.pem" \
		'key_b.pem does not belong to --tls-cert .*cert_a.pem' "another certificate's key"
	tls_refused exporter-tls-bad-pem "$T/cert_bad.pem" "$T/key_a.pem" \
		'cert_bad.pem: no PEM block .*CERTIFICATE.* that decodes' "a certificate whose base64 does not decode"
	tls_refused exporter-tls-no-key "$T/cert_a.pem" "$T/cert_b.pem" \
		'cert_b.pem: no PEM block .*PRIVATE KEY' "a certificate given as the key"
	tls_refused exporter-tls-encrypted "$T/cert_a.pem" "$T/key_a_enc.pem" \
		'"ENCRYPTED PRIVATE KEY" is not supported' "an encrypted key"
	# EC: NCrypt on Windows; Wine's crypt32 cannot decode the key.
	if tls_loads exporter_tls_ec "$T/cert_ec.pem" "$T/key_ec.pem"; then
		pass "exporter-tls-ec: an EC P-256 key loads"
	elif [ "$tstarted" = 0 ] && [ "$trc" = 1 ] &&
	     grep -q 'no X509_ECC_PRIVATE_KEY decoder, as Wine' "$OUT/exporter_tls_ec.err"; then
		echo "SKIP exporter-tls-ec: Wine 8.0's crypt32 has no X509_ECC_PRIVATE_KEY decoder (CryptDecodeObjectEx fails with ERROR_FILE_NOT_FOUND); refused with that sentence, exit 1"
	else
		fail exporter-tls-ec "exit $trc; see $OUT/exporter_tls_ec.err"
	fi
fi
