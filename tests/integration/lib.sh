# Shared helpers for the integration tests (sourced).
: "${PMUKIT:?run through ctest, which sets PMUKIT}"
failures=0
passes=0
pass() { passes=$((passes + 1)); echo "ok - $*"; }
fail() { failures=$((failures + 1)); echo "FAIL - $*"; }
check() { local what=$1; shift; if "$@"; then pass "$what"; else fail "$what"; fi; }
check_eq() { if [ "$2" = "$3" ]; then pass "$1"; else fail "$1 (expected $2, got $3)"; fi; }
py() { python3 -c "$@"; }
skip() { echo "SKIP: $*"; exit 77; }
finish() { echo "$(basename "$0"): $passes ok, $failures not ok"; [ "$failures" -eq 0 ]; }

# A workload in $1/w (from $1/w.c, -g, frame pointers) that spends about twice as long
# in hot() as in warm(); then its -g recordings by pmukit and (when here) by perf, as
# $1/pk.data and $1/perf.data, each given to "$2 NAME FILE". Needs cc.
hot_warm_recordings() {
	printf '%s\n' 'static volatile double x;' \
		'__attribute__((noinline)) void hot(void) { for (long i = 0; i < 3000000; i++) x += i * 0.5; }' \
		'__attribute__((noinline)) void warm(void) { for (long i = 0; i < 1500000; i++) x += i * 0.5; }' \
		'int main(void) { for (int k = 0; k < 40; k++) { hot(); warm(); } return x < 0; }' >"$1/w.c"
	cc -O1 -g -fno-omit-frame-pointer -o "$1/w" "$1/w.c" || fail "cc the workload"
	if "$PMUKIT" record -e cpu-clock -F 999 -g -o "$1/pk.data" -- "$1/w" >/dev/null 2>"$1/rec.err"; then
		"$2" "pmukit record -g" "$1/pk.data"
	else
		fail "pmukit record -g: $(tail -1 "$1/rec.err")"
	fi
	if ! command -v perf >/dev/null; then
		echo "# no perf here (linux-perf): perf record -g's file is not read"
	elif perf record -q -N -e cpu-clock -F 999 -g -o "$1/perf.data" -- "$1/w" >/dev/null 2>"$1/rec.err"; then
		"$2" "perf record -g" "$1/perf.data"
	else
		fail "perf record -g: $(tail -1 "$1/rec.err")"
	fi
}
