# Wine smoke part (sourced by smoke.sh): a client trickling its request one byte
# every 3 s holds a connection of the plain Winsock server no longer than the
# connection's 10 s (EXP_TIMEOUT_S) in all, not 10 s per recv (slowloris). The
# HTTPS side has the same deadline (tests/windows/tls_loop.c checks it).
tport=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$WINE" "$BUILD/pmukit.exe" exporter --listen "127.0.0.1:$tport" --max-requests 1 \
	>"$OUT/exporter_trickle.out" 2>"$OUT/exporter_trickle.err" &
trpid=$!
for _ in $(seq 150); do
	grep -q 'listening on' "$OUT/exporter_trickle.err" 2>/dev/null && break
	sleep 0.2
done
# 42 s of trickle at most; prints the seconds until the server closed the connection
trsecs=$(python3 -c 'import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.settimeout(3)
t = time.time()
try:
    for b in b"GET / HTTP/1.1":
        s.send(bytes([b]))
        try:
            if s.recv(1) == b"":
                break
        except socket.timeout:
            pass
except OSError:
    pass
print("%.1f" % (time.time() - t))' "$tport")
curl -s -o /dev/null -m 10 "http://127.0.0.1:$tport/-/healthy"  # ends --max-requests 1
for _ in $(seq 100); do kill -0 "$trpid" 2>/dev/null || break; sleep 0.1; done
kill "$trpid" 2>/dev/null
wait "$trpid" 2>/dev/null
if awk -v s="$trsecs" 'BEGIN { exit !(s >= 8 && s <= 16) }'; then
	pass "exporter-trickle: a client sending a byte every 3 s was closed after $trsecs s (the 10 s deadline bounds the whole request)"
else
	fail exporter-trickle "a client sending a byte every 3 s held its connection $trsecs s; want about 10 s"
fi
