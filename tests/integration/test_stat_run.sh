#!/bin/bash
# pmukit stat's run loop as a perf user meets it in the first hour: uncountable events
# shown, not dropped; the last partial -I interval; unprivileged fallback; messages
# that name the real cause; perf's --timeout, -D, -p A,B, -a -C, duration_time.
# Counts are read through -o FILE only (stdout/stderr placement may change).
set -u
. "$(dirname "$0")/lib.sh"

TP="$BUILDDIR/touch_pages"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
nopmu=0
[ -z "$(ls /sys/bus/event_source/devices 2>/dev/null | grep -E '^(cpu|cpu_core|cpu_atom|armv8.*)$')" ] && nopmu=1

# --- Uncountable events are rows, in every format, and the command runs counted.
if [ $nopmu = 1 ]; then
	"$PMUKIT" stat -e cycles -o "$T/o" -- sh -c 'exit 3' 2>"$T/e"
	check_eq "-e cycles without PMU: the command's status 3 passes through" 3 $?
	check "-e cycles: text row <not supported> cycles" grep -qE '<not supported> +cycles' "$T/o"
	check "-e cycles: the reason on stderr" grep -q "not counting cycles: no hardware PMU" "$T/e"
	"$PMUKIT" stat -e cycles -x, -o "$T/o" -- true 2>/dev/null
	check "-e cycles -x,: CSV row" grep -q '^<not supported>,,cycles,' "$T/o"
	"$PMUKIT" stat -e cycles -j -o "$T/o" -- true 2>/dev/null
	check "-e cycles -j: supported false, with the reason" py '
import json,sys
c=json.load(open(sys.argv[1]))["counters"]
assert len(c)==1 and c[0]["event"]=="cycles" and c[0]["supported"] is False, c
assert "no hardware PMU" in c[0]["not_counted"], c' "$T/o"
	# Groups, as perf 6.1: the countable member is <not counted>, said why.
	for g in '{task-clock,cycles}' '{cycles,task-clock}'; do
		"$PMUKIT" stat -e "$g" -x, -o "$T/o" -- true 2>"$T/e"
		check "$g: task-clock <not counted>, cycles <not supported>" py '
import sys
rows={r.split(",")[2]: r.split(",")[0] for r in open(sys.argv[1]).read().split("\n") if r}
assert rows=={"task-clock":"<not counted>","cycles":"<not supported>"}, rows' "$T/o"
		check "$g: says the group was left out for cycles" \
			grep -q "not counting task-clock: left out with its group $g: cycles cannot" "$T/e"
	done
	# Each member's own reason: instructions is not blamed on cycles.
	"$PMUKIT" stat -e '{cycles,instructions},task-clock' -o /dev/null -- true 2>"$T/e"
	check "instructions' reason names instructions ($(grep instructions: "$T/e"))" \
		grep -q "not counting instructions: .*(instructions needs a core PMU)" "$T/e"
else
	echo "# this host has a core PMU: the uncountable-event checks need one without"
fi

finish
