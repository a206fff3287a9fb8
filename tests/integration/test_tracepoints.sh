#!/bin/bash
# Tracepoint globs on the live tracefs, as perf expands them: 'sched:*' and
# 'sched:sched_wak*' count every matching tracepoint (names read through -o FILE).
set -u
. "$(dirname "$0")/lib.sh"

tp=/sys/kernel/tracing
if [ ! -e "$tp/events/header_page" ]; then
	[ "$(id -u)" = 0 ] || skip "tracefs is not mounted and only root may mount it"
	echo "# tracefs is not mounted: mounting it at $tp for this test"
	mount -t tracefs nodev "$tp" || skip "cannot mount tracefs at $tp"
fi
[ -r "$tp/events/sched" ] || skip "$tp/events/sched is not readable by this user"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

names() { awk -F, 'NF > 3 {print $3}' "$1" | sort | paste -sd' '; }
want() { (cd "$tp/events" && for d in $1; do [ -e "$d/id" ] && echo "${d/\//:}"; done) |
	sort | paste -sd' '; }

for glob in 'sched:*' 'sched:sched_wak*' 'sch?d:sched_switch*'; do
	pat=${glob/:/\/}
	"$PMUKIT" stat -x, -o "$tmp/out.csv" -e "$glob" -- true 2>"$tmp/err"
	rc=$?
	check_eq "stat -e '$glob' exits 0 ($(head -c 200 "$tmp/err"))" 0 "$rc"
	ours=$(names "$tmp/out.csv")
	check "'$glob' matches something" test -n "$ours"
	check_eq "'$glob' counts every matching tracepoint of tracefs" "$(want "$pat")" "$ours"
	if command -v perf >/dev/null && perf stat -x, -e "$glob" true >/dev/null 2>&1; then
		perf stat -x, -o "$tmp/perf.csv" -e "$glob" true 2>/dev/null
		check_eq "'$glob' expands as perf's does" "$(names "$tmp/perf.csv")" "$ours"
	fi
done

# Modifiers follow the glob; a group takes every match.
"$PMUKIT" stat -x, -o "$tmp/out.csv" -e '{sched:sched_wak*,cs}:u' -- true 2>"$tmp/err"
rc=$?
check_eq "a glob in a group with a modifier exits 0 ($(head -c 200 "$tmp/err"))" 0 "$rc"
check "the group's modifier is on every expanded tracepoint" \
	bash -c '[ "$(grep -c ",sched:sched_wak[^,]*:u," "$1")" -eq "$2" ]' _ "$tmp/out.csv" \
	"$(want 'sched/sched_wak*' | wc -w)"

"$PMUKIT" stat -o "$tmp/out.txt" -e 'sched:no_such_tp*' -- true 2>"$tmp/err"
check "a glob matching nothing is an error" test $? -ne 0
check "and says so" grep -q "no tracepoint matches 'sched:no_such_tp\*'" "$tmp/err"

# A glob past the event limit names the limit pmukit has (1024), not one more.
if [ "$(want '*/*' | wc -w)" -gt 1024 ]; then
	"$PMUKIT" stat -o "$tmp/out.txt" -e '*:*' -- true 2>"$tmp/err"
	check "'*:*' (over 1024 tracepoints) is an error" test $? -ne 0
	check "and gives the limit, 1024 ($(cat "$tmp/err"))" grep -q "at most 1024 in one list" "$tmp/err"
else
	echo "# fewer than 1025 tracepoints here: the limit case is not run"
fi
finish
