#!/bin/bash
# pmukit exporter's HTTP server on loopback, with curl and raw sockets: every route,
# content negotiation, gzip, and the robustness cases (404, 405, 413, 431, a client
# gone mid-response, a slow client, concurrent scrapes, a port in use, signals).
set -u
. "$(dirname "$0")/lib.sh"
command -v curl >/dev/null || skip "curl is not installed"

tmp=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
free_port() { py 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
# start ARGS...: runs the exporter on a free port ($port), waits until it answers.
start() {
	port=$(free_port)
	"$PMUKIT" exporter --listen "127.0.0.1:$port" "$@" 2>"$tmp/err" &
	pid=$!
	for _ in $(seq 50); do
		curl -sf -o /dev/null "http://127.0.0.1:$port/-/healthy" && return 0
		sleep 0.1
	done
	return 1
}
# stop SIG: signals the server, waits at most 10 s; the exit status in $rc.
stop() {
	kill -"$1" "$pid"
	for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
	if kill -0 "$pid" 2>/dev/null; then kill -9 "$pid"; rc=timeout; else wait "$pid"; rc=$?; fi
	pid=
}
url() { echo "http://127.0.0.1:$port$1"; }
code() { curl -s -o /dev/null -w '%{http_code}' "$@"; }
rss_kb() { awk '/^VmRSS/ {print $2}' "/proc/$pid/status"; }

check "starts and answers /-/healthy" start
check_eq "/-/healthy says OK" OK "$(curl -s "$(url /-/healthy)" | tr -d '\n')"
check "/ is HTML linking /metrics" sh -c "curl -s '$(url /)' | grep -q 'href=\"/metrics\"'"
curl -s -D "$tmp/h" -o "$tmp/m" "$(url /metrics)"
check "/metrics: text 0.0.4 by default" grep -qi '^content-type: text/plain; version=0.0.4' "$tmp/h"
check "/metrics has pmukit_cpu_seconds_total of every CPU" py '
import re, sys, os
cpus = {m.group(1) for m in re.finditer(r"^pmukit_cpu_seconds_total\{cpu=\"(\d+)\"", open(sys.argv[1]).read(), re.M)}
assert len(cpus) == os.cpu_count(), cpus' "$tmp/m"
if command -v promtool >/dev/null; then
	check "promtool accepts the text" sh -c "promtool check metrics < '$tmp/m'"
fi
curl -s -D "$tmp/h" -o "$tmp/om" -H 'Accept: application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5' "$(url /metrics)"
check "Accept openmetrics: OpenMetrics content type" grep -qi '^content-type: application/openmetrics-text; version=1.0.0' "$tmp/h"
check_eq "OpenMetrics ends in # EOF" "# EOF" "$(tail -n 1 "$tmp/om")"
curl -s -D "$tmp/h" -o "$tmp/q0" -H 'Accept: application/openmetrics-text;q=0, text/plain' "$(url /metrics)"
check "openmetrics with q=0 is text" grep -qi '^content-type: text/plain' "$tmp/h"
curl -s -D "$tmp/h" -o "$tmp/gz" -H 'Accept-Encoding: gzip' "$(url /metrics)"
check "Accept-Encoding gzip: Content-Encoding gzip" grep -qi '^content-encoding: gzip' "$tmp/h"
check "the gzip body inflates to the metrics" sh -c "gzip -dc '$tmp/gz' | grep -q '^pmukit_cpu_seconds_total{'"
curl -s -D "$tmp/h" -o /dev/null -H 'Accept-Encoding: identity' "$(url /metrics)"
check "no gzip unless asked" sh -c "! grep -qi '^content-encoding' '$tmp/h'"
check_eq "HEAD /metrics is 200" 200 "$(code -I "$(url /metrics)")"
check_eq "a query string is ignored" 200 "$(code "$(url '/metrics?x=1')")"
check_eq "other paths are 404" 404 "$(code "$(url /metricsx)")"
check_eq "POST is 405" 405 "$(code -X POST -d x=1 "$(url /metrics)")"
check "405 says Allow: GET, HEAD" sh -c "curl -s -D - -o /dev/null -X DELETE '$(url /metrics)' | grep -qi '^allow: GET, HEAD'"
check_eq "a GET with a body is 413" 413 "$(code -X GET --data-binary @/etc/os-release "$(url /metrics)")"
big=$(head -c 20000 /dev/zero | tr '\0' a)
check_eq "20 kB of headers is 431" 431 "$(code -H "X-Big: $big" "$(url /metrics)")"
check_eq "9 kB of headers is 431 (the limit is 8192 bytes)" 431 \
	"$(code -H "X-Big: $(head -c 9000 /dev/zero | tr '\0' a)" "$(url /metrics)")"
check_eq "7 kB of headers is fine" 200 \
	"$(code -H "X-Big: $(head -c 7000 /dev/zero | tr '\0' a)" "$(url /metrics)")"
check_eq "100 kB of headers is 431 too" 431 \
	"$(code -H "X-Big: $(head -c 100000 /dev/zero | tr '\0' a)" "$(url /metrics)")"

# Concurrent scrapes: 16 at once, each complete (the scrape lock serializes them).
for i in $(seq 16); do curl -s -o "$tmp/c$i" -w '%{http_code}\n' "$(url /metrics)" >"$tmp/code$i" & done
wait $(jobs -p | grep -v "^$pid$") 2>/dev/null
ok=0
for i in $(seq 16); do
	[ "$(cat "$tmp/code$i")" = 200 ] && grep -q '^pmukit_cpu_seconds_total{cpu="0",mode="idle"}' "$tmp/c$i" && ok=$((ok + 1))
done
check_eq "16 concurrent scrapes all complete" 16 "$ok"

rss0=$(rss_kb)
# Clients that go away: mid-request, and right after asking (before the response).
check "clients that disconnect mid-request and mid-response" py '
import socket, sys
port = int(sys.argv[1])
for i in range(50):
    s = socket.create_connection(("127.0.0.1", port))
    if i % 2:
        s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nAccept-Encoding: identity\r\n\r\n")
        s.recv(10)  # the response has started; leave in the middle of it
    else:
        s.sendall(b"GET /metr")
    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\1\0\0\0\0\0\0\0")  # RST
    s.close()' "$port"
check_eq "still serving after 50 clients went away" 200 "$(code "$(url /metrics)")"

# A slow client (slowloris): sends a header byte at a time; others are served meanwhile
# and the server closes it after its idle timeout (10 s).
py '
import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.sendall(b"GET /metrics HTTP/1.1\r\n")
t0 = time.time()
s.settimeout(1)
while time.time() - t0 < 25:
    try:
        if s.recv(100) == b"":
            break
    except socket.timeout:
        pass
print("%.0f" % (time.time() - t0))' "$port" >"$tmp/slow" &
slow=$!
sleep 1
check_eq "served while a slow client holds a connection" 200 "$(code -m 5 "$(url /metrics)")"
wait "$slow"
check "the slow client is dropped after the idle timeout (in $(cat "$tmp/slow") s)" \
	test "$(cat "$tmp/slow")" -ge 8 -a "$(cat "$tmp/slow")" -le 20

for i in $(seq 100); do curl -s -o /dev/null -H "X-Big: $big" "$(url /metrics)"; done
rss1=$(rss_kb)
# Under ASan freed memory waits in its quarantine (and is poisoned, not reused), so
# RSS grows by design there; the leak checker stands in for this check in that build.
if readelf -d "$PMUKIT" 2>/dev/null | grep -q libasan; then
	echo "# ASan build: RSS $rss0 kB then $rss1 kB, not compared (quarantine)"
else
	check "memory does not grow with bad clients (RSS $rss0 kB then $rss1 kB)" \
		test "$rss1" -lt $((rss0 + 4096))
fi
check "each failure kind is logged once" py '
import sys
lines = open(sys.argv[1]).read().splitlines()
for kind in ("not found (404)", "(405)", "(413)", "(431)"):
    n = sum(kind in l for l in lines)
    assert n == 1, (kind, n, lines)' "$tmp/err"

# A second server on the same port: a clear error at start.
"$PMUKIT" exporter --listen "127.0.0.1:$port" 2>"$tmp/err2"
rc2=$?
check "a port in use: exit 1 and says so ($(head -c 200 "$tmp/err2"))" \
	sh -c "[ $rc2 -eq 1 ] && grep -q 'in use' '$tmp/err2'"
stop TERM
check_eq "SIGTERM stops it with status 0" 0 "$rc"
check "it says it stopped" grep -q 'stopped after' "$tmp/err"

start
stop INT
check_eq "SIGINT stops it with status 0" 0 "$rc"

start --max-requests 3
curl -s -o /dev/null "$(url /metrics)"; curl -s -o /dev/null "$(url /)"
for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
check "--max-requests 3 exits after the third request" sh -c "! kill -0 $pid 2>/dev/null"
wait "$pid"; rc=$?; pid=
check_eq "... with status 0" 0 "$rc"

if command -v openssl >/dev/null; then
	openssl req -x509 -newkey rsa:2048 -nodes -keyout "$tmp/k.pem" -out "$tmp/c.pem" -days 1 \
		-subj /CN=localhost >/dev/null 2>&1
	port=$(free_port)
	"$PMUKIT" exporter --listen "127.0.0.1:$port" --tls-cert "$tmp/c.pem" --tls-key "$tmp/k.pem" \
		2>"$tmp/err" &
	pid=$!
	for _ in $(seq 50); do curl -skf -o /dev/null "https://127.0.0.1:$port/-/healthy" && break; sleep 0.1; done
	check "--tls-cert/--tls-key: /metrics over HTTPS" \
		sh -c "curl -sk --cacert '$tmp/c.pem' 'https://127.0.0.1:$port/metrics' | grep -q '^pmukit_cpu_seconds_total{'"
	check_eq "... and plain HTTP to it gets no reply" 000 "$(code -m 5 "$(url /metrics)")"
	check_eq "... still serving HTTPS after it" 200 "$(code -k "https://127.0.0.1:$port/-/healthy")"
	stop TERM
	check_eq "... SIGTERM stops it with status 0" 0 "$rc"
	"$PMUKIT" exporter --listen "127.0.0.1:$port" --tls-cert "$tmp/c.pem" --tls-key "$tmp/nokey" 2>"$tmp/err"
	check "a missing key file: exit 1 naming it" sh -c "[ $? -eq 1 ] && grep -q nokey '$tmp/err'"
else
	echo "SKIP: TLS checks: openssl is not installed"
fi

"$PMUKIT" exporter --once >"$tmp/once" 2>"$tmp/err"
check "--once prints one scrape" grep -q '^pmukit_cpu_seconds_total{' "$tmp/once"
"$PMUKIT" exporter --once --openmetrics >"$tmp/once" 2>"$tmp/err"
check_eq "--once --openmetrics ends in # EOF" "# EOF" "$(tail -n 1 "$tmp/once")"
"$PMUKIT" exporter --compat nope 2>/dev/null; check_eq "--compat nope is a usage error" 2 $?
"$PMUKIT" exporter --listen 127.0.0.1 2>/dev/null; check_eq "--listen without a port is a usage error" 2 $?
"$PMUKIT" exporter --tls-cert x 2>/dev/null; check_eq "--tls-cert without --tls-key is a usage error" 2 $?
finish
