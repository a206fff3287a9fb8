#!/bin/bash
# Scrape cost: pmukit exporter against prometheus-node-exporter's cpu collector
# (--collector.disable-defaults --collector.cpu), side by side on loopback, on this
# host and on the synthetic 256-CPU host (tests/fixtures/sysroot-256: PMUKIT_SYSROOT
# for pmukit, --path.procfs/--path.sysfs for node_exporter). Each server gets N
# scrapes in a row on one keep-alive connection with Prometheus' request headers
# (OpenMetrics Accept, gzip): latency p50/p99 as the client sees it, the server's CPU
# time (utime + stime of /proc/PID/stat) per scrape, and its RSS afterwards.
# Like with like: node_exporter runs its cpu collector alone, pmukit its cpu collector
# alone (--compat node --collectors cpu: node_cpu_seconds_total{cpu,mode}, the same
# series, read from /proc/stat only); the "series" column counts the samples each
# sends (node adds node_cpu_guest_seconds_total, which pmukit leaves inside user and
# nice, and its Go runtime metrics; both add their process_* metrics). The ratio and
# the target compare these two rows; "pmukit all" (every collector, native names:
# cpuidle and cpufreq files of every CPU, /proc/interrupts, the pmu collector) is
# shown for scale, not compared.
# Target (issue 11): lower latency and CPU per scrape than node_exporter, RSS < 10 MB.
# usage: bench/exporter.sh [BUILD_DIR]   (BENCH_SCRAPES: scrapes per server, default 1000)
set -u
B=${1:-build}
PMUKIT=$B/pmukit N=${BENCH_SCRAPES:-1000}
[ -x "$PMUKIT" ] || { echo "exporter.sh: $PMUKIT missing: make build" >&2; exit 2; }
command -v prometheus-node-exporter >/dev/null ||
	{ echo "exporter.sh: prometheus-node-exporter missing (make deps)" >&2; exit 2; }
tmp=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
hz=$(getconf CLK_TCK)
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# measure NAME PORT: N scrapes; prints "NAME p50_ms p99_ms cpu_ms_per_scrape rss_kib".
measure() {
	local name=$1 port=$2 t0 t1
	for _ in $(seq 100); do curl -sf -o /dev/null "http://127.0.0.1:$port/metrics" && break; sleep 0.1; done
	t0=$(awk '{print $14 + $15}' "/proc/$pid/stat")
	python3 - "$port" "$N" >"$tmp/lat" <<'EOP' || return 1
import gzip, http.client, sys, time
port, n = int(sys.argv[1]), int(sys.argv[2])
c = http.client.HTTPConnection("127.0.0.1", port)
hdr = {"Accept": "application/openmetrics-text;version=1.0.0,application/openmetrics-text;"
       "version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1",
       "Accept-Encoding": "gzip"}
lat = []
for _ in range(n):
    t = time.perf_counter()
    c.request("GET", "/metrics", headers=hdr)
    r = c.getresponse()
    body = r.read()
    lat.append(time.perf_counter() - t)
    assert r.status == 200 and body, r.status
lat.sort()
if r.getheader("Content-Encoding") == "gzip":
    body = gzip.decompress(body)
series = sum(1 for l in body.decode().splitlines()
             if l and not l.startswith("#") and "_created" not in l.split(" ")[0])
print("%.3f %.3f %d" % (lat[n // 2] * 1e3, lat[min(n - 1, int(n * 0.99))] * 1e3, series))
EOP
	t1=$(awk '{print $14 + $15}' "/proc/$pid/stat")
	read -r p50 p99 series <"$tmp/lat"
	printf '%-22s %8s %8s %10.3f %9s %7s\n' "$name" "$p50" "$p99" \
		"$(awk -v a="$t0" -v b="$t1" -v hz="$hz" -v n="$N" 'BEGIN { print (b - a) * 1000 / hz / n }')" \
		"$(awk '/^VmRSS/ {print $2}' "/proc/$pid/status")" "$series" | tee "$tmp/row"
	cut -c23- "$tmp/row" >>"$tmp/rows"  # the figures without the name
	kill "$pid"; wait "$pid" 2>/dev/null; pid=
}

run_pmukit() {  # NAME ARGS...
	local name=$1 port; shift
	port=$(free_port)
	"$PMUKIT" exporter --listen "127.0.0.1:$port" "$@" 2>/dev/null & pid=$!
	measure "$name" "$port"
}
run_node() {  # NAME ARGS...
	local name=$1 port; shift
	port=$(free_port)
	prometheus-node-exporter --web.listen-address="127.0.0.1:$port" --collector.disable-defaults \
		--collector.cpu "$@" >/dev/null 2>&1 & pid=$!
	measure "$name" "$port"
}

ratios() {  # the rows of node, pmukit cpu: ratios
	awk '{ p50[NR] = $1; p99[NR] = $2; cpu[NR] = $3; rss[NR] = $4 } END {
		printf "ratio node/pmukit(cpu): latency p50 %.1fx, p99 %.1fx, CPU per scrape %.1fx; " \
			"pmukit RSS %d KiB (%s)\n", p50[1] / p50[2], p99[1] / p99[2],
			(cpu[2] > 0 ? cpu[1] / cpu[2] : 0), rss[2], (rss[2] < 10240 ? "< 10 MB" : "OVER 10 MB")
		ok = p50[2] < p50[1] && cpu[2] <= cpu[1] && rss[2] < 10240
		printf "target (pmukit cpu vs node cpu: latency, CPU, RSS < 10 MB) %s; " \
			"pmukit all RSS %d KiB %s\n", ok ? "met" : "NOT met", rss[3],
			rss[3] < 10240 ? "< 10 MB" : "OVER 10 MB" }' "$1"
}

header() {
	echo "== $1 ($N scrapes each, gzip, one keep-alive connection)"
	printf '%-22s %8s %8s %10s %9s %7s\n' server "p50 ms" "p99 ms" "CPU ms/scr" "RSS KiB" series
}

header "this host: $(nproc) CPUs"
: >"$tmp/rows"
run_node "node_exporter cpu" || exit 1
run_pmukit "pmukit cpu (node)" --compat node --collectors cpu || exit 1
run_pmukit "pmukit all" || exit 1
ratios "$tmp/rows"

root=$tmp/root256
sh "$(dirname "$0")/../tests/fixtures/sysroot-256/make.sh" "$root" 256
header "synthetic host: 256 CPUs (fixture tree)"
: >"$tmp/rows"
run_node "node_exporter cpu" --path.procfs="$root/proc" --path.sysfs="$root/sys" || exit 1
PMUKIT_SYSROOT=$root run_pmukit "pmukit cpu (node)" --compat node --collectors cpu || exit 1
PMUKIT_SYSROOT=$root run_pmukit "pmukit all" || exit 1
ratios "$tmp/rows"
