# Wine smoke part (sourced by smoke.sh): pmukit exporter as a Windows service. Wine's
# own sc.exe and services.exe (the SCM) create it, start it (START_PENDING -> RUNNING
# once the socket listens), and stop it (SERVICE_CONTROL_STOP -> the stop flag ->
# STOPPED with exit code 0, port closed); a service that cannot listen stops with its
# exit code as the service-specific one; --service from a console says to use sc.
# It needs smoke.sh's persistent wineserver (-p): without it, once the last
# non-service Wine process (sc.exe) exits, Wine shuts its services down within a
# second or two (sc query then says STOPPED, 1077 ERROR_SERVICE_NEVER_STARTED).

# svc_state NAME: the STATE word sc query prints (RUNNING, STOPPED, ...), or nothing.
svc_state() {
	"$WINE" sc query "$1" 2>/dev/null | tr -d '\r' | awk '$1 == "STATE" {print $4}'
}
# svc_wait NAME STATE TENTHS: 0 once NAME is in STATE, within TENTHS tenths of a second.
svc_wait() {
	for _ in $(seq "$3"); do
		[ "$(svc_state "$1")" = "$2" ] && return 0
		sleep 0.1
	done
	return 1
}

run exporter_svc_console pmukit.exe exporter --service --listen 127.0.0.1:1
rc=$?
if [ $rc -eq 1 ] && grep -q 'not started by the Service Control Manager.*sc create/start' \
	"$OUT/exporter_svc_console.err"; then
	pass "exporter --service from a console: exit 1, says to run it through sc create/start"
else
	fail exporter-svc-console "exit $rc (want 1); see $OUT/exporter_svc_console.*"
fi

if command -v curl >/dev/null; then
	svc=pmukit-exporter-smoke
	sport=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	# Wine's Z: drive is /, so the build's pmukit.exe is Z:\<its path with backslashes>.
	sexe="Z:$(printf '%s' "$PWD/$BUILD/pmukit.exe" | tr / '\\')"
	"$WINE" sc create "$svc" binPath= "$sexe exporter --service $svc --listen 127.0.0.1:$sport" \
		>"$OUT/svc_create.out" 2>&1
	crc=$?
	"$WINE" sc start "$svc" >"$OUT/svc_start.out" 2>&1
	src=$?
	up=0
	for _ in $(seq 150); do  # the first Winsock start under Wine takes a while
		curl -sf -o /dev/null -m 2 "http://127.0.0.1:$sport/-/healthy" && { up=1; break; }
		sleep 0.2
	done
	curl -s -m 10 -o "$OUT/svc.metrics" "http://127.0.0.1:$sport/metrics"
	ncpu=$(grep -o '^pmukit_cpu_seconds_total{cpu="[0-9]*"' "$OUT/svc.metrics" | sort -u | wc -l)
	running=$(svc_state "$svc")
	"$WINE" sc stop "$svc" >"$OUT/svc_stop.out" 2>&1
	svc_wait "$svc" STOPPED 200
	stopped=$(svc_state "$svc")
	"$WINE" sc query "$svc" >"$OUT/svc_query.out" 2>&1
	closed=0
	curl -s -o /dev/null -m 2 "http://127.0.0.1:$sport/-/healthy" || closed=1
	gone=1  # the service's process has exited, not just reported STOPPED
	for _ in $(seq 50); do
		pgrep -f "exporter --service $svc --listen 127.0.0.1:$sport" >/dev/null || { gone=1; break; }
		gone=0
		sleep 0.1
	done
	"$WINE" sc delete "$svc" >"$OUT/svc_delete.out" 2>&1
	drc=$?
	if [ $crc -eq 0 ] && [ $src -eq 0 ] && [ $up -eq 1 ] && [ "$ncpu" -eq "$(nproc)" ] &&
		[ "$running" = RUNNING ] && [ "$stopped" = STOPPED ] && [ $closed -eq 1 ] && [ $gone -eq 1 ] &&
		tr -d '\r' <"$OUT/svc_query.out" | grep -Eq 'WIN32_EXIT_CODE *: *0 ' && [ $drc -eq 0 ]; then
		pass "exporter --service under Wine's SCM (sc create, start -> RUNNING, /metrics with $ncpu CPUs, sc stop -> STOPPED exit 0, port closed, delete)"
	else
		fail exporter-service "create $crc, start $src, up $up, $ncpu CPUs, state $running then $stopped, port closed $closed, process gone $gone, delete $drc; see $OUT/svc_*"
	fi

	# A service that cannot listen (a Linux socket holds the port) stops at once, its
	# exit status as the service-specific exit code.
	rm -f "$OUT/svc_busy.port"
	python3 -c 'import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(1)
open(sys.argv[1] + ".tmp", "w").write(str(s.getsockname()[1]))
import os; os.rename(sys.argv[1] + ".tmp", sys.argv[1]); time.sleep(600)' "$OUT/svc_busy.port" &
	holder=$!
	for _ in $(seq 50); do [ -s "$OUT/svc_busy.port" ] && break; sleep 0.1; done
	sport=$(cat "$OUT/svc_busy.port")
	"$WINE" sc create "$svc" binPath= "$sexe exporter --service --listen 127.0.0.1:$sport" \
		>"$OUT/svc_busy_create.out" 2>&1
	"$WINE" sc start "$svc" >"$OUT/svc_busy_start.out" 2>&1
	svc_wait "$svc" STOPPED 300
	"$WINE" sc query "$svc" 2>&1 | tr -d '\r' >"$OUT/svc_busy_query.out"
	"$WINE" sc delete "$svc" >"$OUT/svc_busy_delete.out" 2>&1
	kill "$holder"
	wait "$holder" 2>/dev/null
	if grep -q 'STATE *: 1 *STOPPED' "$OUT/svc_busy_query.out" &&
		grep -Eq 'WIN32_EXIT_CODE *: *1066 ' "$OUT/svc_busy_query.out" &&
		grep -Eq 'SERVICE_EXIT_CODE *: *1 ' "$OUT/svc_busy_query.out"; then
		pass "exporter --service on a port in use: STOPPED, ERROR_SERVICE_SPECIFIC_ERROR with exit code 1"
	else
		fail exporter-service-busy "see $OUT/svc_busy_*"
	fi
else
	echo "SKIP exporter-service: curl is not installed"
fi
