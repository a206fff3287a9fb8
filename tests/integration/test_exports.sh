#!/bin/bash
# The shared library exports exactly the names src/libpmukit.map lists, each under a
# version node of that map, and those are exactly the functions the public headers declare.
set -u
. "$(dirname "$0")/lib.sh"
: "${PMUKIT_LIB:?}"
map=$SRCDIR/src/libpmukit.map

# name@@NODE (the default version) for each defined function or variable.
dynsyms=$(nm -D --defined-only "$PMUKIT_LIB" | awk '$2 ~ /^[TDBR]$/ {print $3}' | sort -u)
exported=$(echo "$dynsyms" | sed 's/@.*//' | sort -u)
check "the library exports symbols" test -n "$exported"

# The map's names and nodes; comment lines (" * ...") are skipped.
listed=$(grep -E '^[[:space:]]+pmu_[a-z0-9_]+;' "$map" | tr -d ' \t;' | sort -u)
nodes=$(grep -oE '^PMUKIT_[0-9.]+' "$map" | sort -u)
check "the map lists names" test -n "$listed"
check "the map has the node PMUKIT_0.1" grep -qx PMUKIT_0.1 <<<"$nodes"
unversioned=$(echo "$dynsyms" | while read -r s; do
	grep -qxF "${s#*@@}" <<<"$nodes" && [ "${s#*@@}" != "$s" ] || echo "$s"; done)
check "every exported name carries a node of the map (not: ${unversioned:-none})" test -z "$unversioned"

not_exported=$(comm -23 <(echo "$listed") <(echo "$exported"))
not_listed=$(comm -13 <(echo "$listed") <(echo "$exported"))
check "every name in the map is exported (not: ${not_exported:-none})" test -z "$not_exported"
check "every exported name is in the map (not: ${not_listed:-none})" test -z "$not_listed"

# Functions the public headers declare: include/pmukit/*.h and the generated version.h.
declared=$(cat "$SRCDIR"/include/pmukit/*.h "$BUILDDIR"/include/pmukit/*.h | tr '\n' ' ' \
	| grep -oE '[a-z_0-9 \*]+\bpmu_[a-z0-9_]+\(' | grep -oE 'pmu_[a-z0-9_]+\($' | tr -d '(' | sort -u)
check "the generated version.h declares pmu_version" grep -qx pmu_version <<<"$declared"
missing=$(comm -23 <(echo "$declared") <(echo "$exported"))
undeclared=$(comm -13 <(echo "$declared") <(echo "$exported"))
check "every declared pmu_* function is exported (missing, add to the map: ${missing:-none})" test -z "$missing"
check "every exported name is declared in a public header (not: ${undeclared:-none})" test -z "$undeclared"

# The core of the library must not depend on Linux headers (the Windows build reuses it).
linux_in_core=$(grep -lE '#include <(linux|asm|sys/syscall)' "$SRCDIR"/src/core/* "$SRCDIR"/include/pmukit/* || true)
check "src/core and include/pmukit include no Linux headers (${linux_in_core:-none})" test -z "$linux_in_core"
finish
