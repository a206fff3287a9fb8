#!/bin/bash
# pmukit exporter as a real Prometheus target, and beside Debian's node_exporter:
#  - Prometheus (loopback, 1 s scrapes, temporary storage) scrapes it; its HTTP API
#    then shows up == 1, the pmukit series, and sum(rate(pmukit_cpu_seconds_total[10s]))
#    close to the number of CPUs (each CPU spends one second per second in some mode);
#  - in --compat node mode, node_cpu_seconds_total{cpu,mode} agrees with
#    prometheus-node-exporter's (--collector.cpu only) read at the same instant.
set -u
. "$(dirname "$0")/lib.sh"
command -v curl >/dev/null || skip "curl is not installed"
command -v prometheus >/dev/null || skip "prometheus is not installed (Debian package prometheus)"

tmp=$(mktemp -d)
pids=""
trap 'for p in $pids; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; rm -rf "$tmp"' EXIT
free_port() { py 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
# wait_url URL: until it answers, at most 30 s (Prometheus is slow on a loaded host).
wait_url() { for _ in $(seq 300); do curl -sf -o /dev/null "$1" && return 0; sleep 0.1; done; return 1; }
query() { curl -s --get --data-urlencode "query=$1" "http://127.0.0.1:$pport/api/v1/query"; }
# value JSON: the first sample's value of a query answer ("" when none).
value() { py 'import json, sys
r = json.loads(sys.argv[1])["data"]["result"]
print(r[0]["value"][1] if r else "")' "$1"; }

eport=$(free_port)
"$PMUKIT" exporter --listen "127.0.0.1:$eport" 2>"$tmp/exporter.err" &
pids="$pids $!"
check "pmukit exporter starts" wait_url "http://127.0.0.1:$eport/-/healthy"

pport=$(free_port)
cat >"$tmp/p.yml" <<EOY
global: {scrape_interval: 1s, scrape_timeout: 1s}
scrape_configs:
  - job_name: pmukit
    static_configs: [{targets: ['127.0.0.1:$eport']}]
EOY
prometheus --config.file="$tmp/p.yml" --storage.tsdb.path="$tmp/data" \
	--web.listen-address="127.0.0.1:$pport" >"$tmp/prom.log" 2>&1 &
pids="$pids $!"
check "Prometheus starts" wait_url "http://127.0.0.1:$pport/-/ready"

# Up to 40 s for up == 1 and a full 10 s window of scrapes: rate() divides the
# increase by the whole range, so a window only partly covered reads low.
n=$(nproc)
for _ in $(seq 40); do
	sleep 1
	up=$(value "$(query 'up{job="pmukit"}')")
	rate=$(value "$(query 'sum(rate(pmukit_cpu_seconds_total[10s]))')")
	samples=$(value "$(query 'count_over_time(up{job="pmukit"}[10s])')")
	[ "$up" = 1 ] && [ -n "$rate" ] && [ "${samples:-0}" -ge 10 ] && break
done
check_eq "up == 1" 1 "$up"
series=$(value "$(query 'count(pmukit_cpu_seconds_total)')")
check "Prometheus holds pmukit_cpu_seconds_total for every CPU (${series:-0} series)" \
	test "${series:-0}" -ge "$n"
# One tick per mode and CPU of slack over a few seconds, plus the extrapolation of
# rate() to the window: within 25 %.
check "sum(rate(pmukit_cpu_seconds_total[10s])) = ${rate:-none}, about $n CPUs" py '
import sys
r, n = float(sys.argv[1]), int(sys.argv[2])
assert 0.75 * n <= r <= 1.25 * n, (r, n)' "${rate:-nan}" "$n"
grep -E 'level=(warn|error)' "$tmp/prom.log" | grep -i scrape >"$tmp/scrape_errors"
check "Prometheus logged no scrape error ($(head -c 300 "$tmp/scrape_errors"))" test ! -s "$tmp/scrape_errors"

command -v prometheus-node-exporter >/dev/null ||
	{ echo "SKIP: node_exporter comparison: prometheus-node-exporter is not installed"; finish; exit; }
nport=$(free_port)
cport=$(free_port)
prometheus-node-exporter --web.listen-address="127.0.0.1:$nport" --collector.disable-defaults \
	--collector.cpu >"$tmp/node.log" 2>&1 &
pids="$pids $!"
"$PMUKIT" exporter --compat node --listen "127.0.0.1:$cport" 2>"$tmp/compat.err" &
pids="$pids $!"
check "node_exporter starts" wait_url "http://127.0.0.1:$nport/metrics"
check "pmukit exporter --compat node starts" wait_url "http://127.0.0.1:$cport/-/healthy"

# Both read /proc/stat, which counts in ticks of 1/USER_HZ s. Fetched at once (two
# curls in parallel, a few ms apart), a counter can differ by the ticks it gained
# between the two reads: at most one tick when they are less than a tick apart, so
# the tolerance is one tick plus 2 ms of rounding. The loaded host may separate the
# reads by more: the comparison is retried up to 5 times and must hold once fully.
hz=$(getconf CLK_TCK)
for try in 1 2 3 4 5; do
	curl -s -o "$tmp/node.txt" "http://127.0.0.1:$nport/metrics" &
	curl -s -o "$tmp/compat.txt" "http://127.0.0.1:$cport/metrics"
	wait $!
	py '
import re, sys
def load(path):
    out = {}
    for m in re.finditer(r"^node_cpu_seconds_total\{(.*)\} (\S+)$", open(path).read(), re.M):
        labels = dict(re.findall(r"(\w+)=\"([^\"]*)\"", m.group(1)))
        out[(labels["cpu"], labels["mode"])] = float(m.group(2))
    return out
node, ours = load(sys.argv[1]), load(sys.argv[2])
tick = 1.0 / int(sys.argv[3])
assert node, "node_exporter gave no node_cpu_seconds_total"
missing = sorted(set(node) - set(ours))
assert not missing, "pmukit lacks %s" % missing
bad = [(k, node[k], ours[k]) for k in sorted(node) if abs(node[k] - ours[k]) > tick + 0.002]
assert not bad, "differ by more than a tick: %s" % bad[:6]
print("%d series agree" % len(node))' "$tmp/node.txt" "$tmp/compat.txt" "$hz" >"$tmp/cmp" 2>&1 && break
done
check "node_cpu_seconds_total per cpu/mode agrees with node_exporter within one tick (try $try: $(tail -n 1 "$tmp/cmp"))" \
	grep -q 'series agree' "$tmp/cmp"
if command -v promtool >/dev/null; then
	check "promtool accepts the --compat node output" sh -c "promtool check metrics < '$tmp/compat.txt'"
fi
finish
