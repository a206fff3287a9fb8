# Wine smoke part (sourced by smoke.sh): pmukit exporter's Winsock server. It starts,
# /metrics answers with the CPU times (NtQuerySystemInformation under Wine) for every
# CPU, 404 and 405 are said, gzip is given when asked, a slow client holding a
# connection does not delay a scrape, and --max-requests ends it; the server's own
# process_* metrics come from GetProcessMemoryInfo and GetProcessTimes.
if command -v curl >/dev/null; then
	eport=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	"$WINE" "$BUILD/pmukit.exe" exporter --listen "127.0.0.1:$eport" --max-requests 6 \
		>"$OUT/exporter.out" 2>"$OUT/exporter.err" &
	epid=$!
	up=0
	for _ in $(seq 150); do  # the first Winsock start under Wine takes a while
		curl -sf -o /dev/null -m 2 "http://127.0.0.1:$eport/-/healthy" && { up=1; break; }
		sleep 0.2
	done
	# A slow client: half a request, then 4 s of silence before it leaves.
	python3 -c 'import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.sendall(b"GET /metrics HTTP/1.1\r\n")
time.sleep(4)' "$eport" &
	slow=$!
	sleep 0.5
	curl -s -m 3 -D "$OUT/exporter.h1" -o "$OUT/exporter.metrics" "http://127.0.0.1:$eport/metrics"
	c404=$(curl -s -m 10 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$eport/nope")
	c405=$(curl -s -m 10 -o /dev/null -w '%{http_code}' -X POST "http://127.0.0.1:$eport/metrics")
	curl -s -m 10 -D "$OUT/exporter.h2" -o "$OUT/exporter.gz" -H 'Accept-Encoding: gzip' \
		"http://127.0.0.1:$eport/metrics"
	wait "$slow"
	for _ in $(seq 100); do kill -0 "$epid" 2>/dev/null || break; sleep 0.1; done
	if kill -0 "$epid" 2>/dev/null; then kill "$epid"; erc=timeout; else wait "$epid"; erc=$?; fi
	ncpu=$(grep -o '^pmukit_cpu_seconds_total{cpu="[0-9]*"' "$OUT/exporter.metrics" | sort -u | wc -l)
	if [ $up -eq 1 ] && grep -qi '^content-type: text/plain; version=0.0.4' "$OUT/exporter.h1" &&
		[ "$ncpu" -eq "$(nproc)" ] && [ "$c404" = 404 ] && [ "$c405" = 405 ] &&
		grep -qi '^content-encoding: gzip' "$OUT/exporter.h2" &&
		gzip -dc "$OUT/exporter.gz" | grep -q '^pmukit_cpu_seconds_total{' && [ "$erc" = 0 ] &&
		grep -q '^pmukit_pmu_owners_available{reason=".*Wine.*TraceQueryInformation.*} 0$' "$OUT/exporter.metrics"; then
		pass "exporter: Winsock server under Wine (/metrics with $ncpu CPUs beside a slow client, 404, 405, gzip, --max-requests; counter owners unavailable with Wine's reason)"
	else
		fail exporter "up $up, $ncpu CPUs, 404 -> $c404, 405 -> $c405, exit $erc; see $OUT/exporter.*"
	fi
	# Its own process_* metrics (GetProcessMemoryInfo, GetProcessTimes), as client_golang's.
	now=$(date +%s)
	self=$(grep '^process_' "$OUT/exporter.metrics" | tr '\n' ' ')
	if grep -qE '^process_resident_memory_bytes [1-9][0-9]{5,}$' "$OUT/exporter.metrics" &&
		grep -qE '^process_virtual_memory_bytes [1-9][0-9]{5,}$' "$OUT/exporter.metrics" &&
		grep -qE '^process_cpu_seconds_total [0-9.e+-]+$' "$OUT/exporter.metrics" &&
		awk -v now="$now" '$1 == "process_start_time_seconds" && $2 > now - 600 && $2 <= now { ok = 1 }
			END { exit !ok }' "$OUT/exporter.metrics"; then
		pass "exporter: its own process metrics under Wine ($self)"
	else
		fail exporter "process metrics missing or implausible: $self"
	fi
else
	echo "SKIP exporter: curl is not installed"
fi
