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
