#!/bin/bash
# The shared library exports exactly the public pmu_* API, and every function the
# public headers declare is exported.
set -u
. "$(dirname "$0")/lib.sh"
: "${PMUKIT_LIB:?}"

exported=$(nm -D --defined-only "$PMUKIT_LIB" | awk '$2 ~ /^[TDBR]$/ {print $3}' | sed 's/@.*//' | sort -u)
check "the library exports symbols" test -n "$exported"
stray=$(echo "$exported" | grep -v '^pmu_' || true)
check "only pmu_* symbols are exported (stray: ${stray:-none})" test -z "$stray"

# Every pmu_* function declared in include/pmukit/*.h is exported.
declared=$(cat "$SRCDIR"/include/pmukit/*.h | tr '\n' ' ' | grep -oE '[a-z_0-9 \*]+\bpmu_[a-z0-9_]+\(' \
	| grep -oE 'pmu_[a-z0-9_]+\($' | tr -d '(' | sort -u)
missing=$(comm -23 <(echo "$declared") <(echo "$exported"))
check "every declared pmu_* function is exported (missing: ${missing:-none})" test -z "$missing"

# The core of the library must not depend on Linux headers (the Windows build reuses it).
linux_in_core=$(grep -lE '#include <(linux|asm|sys/syscall)' "$SRCDIR"/src/core/* "$SRCDIR"/include/pmukit/* || true)
check "src/core and include/pmukit include no Linux headers (${linux_in_core:-none})" test -z "$linux_in_core"
finish
