#!/bin/bash
# `cmake --install` into a temporary prefix, then the README's example program, built
# with the README's pkg-config line and with its CMake project against that prefix, runs
# and counts. The example and the build lines are taken from README.md, so they agree.
set -u
. "$(dirname "$0")/lib.sh"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
readme=$SRCDIR/README.md

cmake --install "$BUILDDIR" --prefix "$prefix" >"$tmp/install.log" 2>&1
rc=$?
check "cmake --install succeeds" test $rc -eq 0
[ $rc -eq 0 ] || { cat "$tmp/install.log"; finish; exit; }
libdir=$(sed -n 's/^libdir=\${prefix}\///p' "$prefix"/lib*/pkgconfig/pmukit.pc 2>/dev/null | head -1)
for f in include/pmukit/pmukit.h include/pmukit/version.h "$libdir/libpmukit.so" \
	"$libdir/libpmukit.a" bin/pmukit share/man/man1/pmukit.1 "$libdir/pkgconfig/pmukit.pc" \
	"$libdir/cmake/pmukit/pmukitConfig.cmake" "$libdir/cmake/pmukit/pmukitConfigVersion.cmake"; do
	check "installed: $f" test -e "$prefix/$f"
done
version=$(sed -n 's/^#define PMUKIT_VERSION "\(.*\)"/\1/p' "$prefix/include/pmukit/version.h")
check_eq "the installed pmukit --version prints the header's version" "pmukit $version" \
	"$("$prefix/bin/pmukit" --version)"
check_eq "pkg-config --modversion" "$version" \
	"$(PKG_CONFIG_PATH=$prefix/$libdir/pkgconfig pkg-config --modversion pmukit)"

# The README's first C block, its pkg-config line and its CMake block.
awk '/^```c$/ {on = 1; next} on && /^```$/ {exit} on' "$readme" >"$tmp/app.c"
pc_line=$(grep -m1 -E '^cc .*pkg-config --cflags --libs pmukit' "$readme")
mkdir "$tmp/cm"
awk '/^```cmake$/ {on = 1; next} on && /^```$/ {exit} on' "$readme" >"$tmp/cm/CMakeLists.txt"
cp "$tmp/app.c" "$tmp/cm/app.c"
check "README.md has the example, the pkg-config line and the CMake project" \
	test -s "$tmp/app.c" -a -n "$pc_line" -a -s "$tmp/cm/CMakeLists.txt"

# A sanitizer build of the library needs its runtime in the program too.
san=""
readelf -d "$PMUKIT_LIB" | grep -q 'libasan' && san="-fsanitize=address,undefined"

run_app() {   # what, program: it runs and prints nonzero counts
	local out
	out=$(LD_LIBRARY_PATH=$prefix/$libdir "$2" 2>&1)
	check "$1: the example runs ($out)" test $? -eq 0
	check "$1: it counts task-clock and prints the version" \
		grep -qE "^task-clock [1-9][0-9]* ns, page-faults [0-9]+ \(pmukit $version\)$" <<<"$out"
}

(cd "$tmp" && PKG_CONFIG_PATH=$prefix/$libdir/pkgconfig eval "${pc_line/#cc /cc $san }") >"$tmp/pc.log" 2>&1
rc=$?
check "pkg-config: the README line builds the example" test $rc -eq 0
[ $rc -eq 0 ] || cat "$tmp/pc.log"
[ -x "$tmp/app" ] && run_app pkg-config "$tmp/app"
check "the example compiles without warnings (-Wall -Wextra -Werror -pedantic)" \
	cc -std=c11 -Wall -Wextra -Werror -pedantic -c -o "$tmp/app.o" "$tmp/app.c" -I"$prefix/include"

(cmake -S "$tmp/cm" -B "$tmp/cm/build" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_FLAGS="$san" &&
	cmake --build "$tmp/cm/build") >"$tmp/cm.log" 2>&1
rc=$?
check "find_package: the README project builds the example" test $rc -eq 0
[ $rc -eq 0 ] || cat "$tmp/cm.log"
[ -x "$tmp/cm/build/app" ] && run_app find_package "$tmp/cm/build/app"

# The README's second C block, the record source, built the same way and run on an
# .etl fixture and on a perf.data the installed pmukit records.
awk '/^```c$/ {n++; if (n == 2) {on = 1; next}} on && /^```$/ {exit} on' "$readme" >"$tmp/profile.c"
check "README.md has the record-source example" grep -q pmu_trace_open "$tmp/profile.c"
pc2=${pc_line/#cc /cc $san -Wall -Wextra -Werror -pedantic }
(cd "$tmp" && PKG_CONFIG_PATH=$prefix/$libdir/pkgconfig eval "${pc2//app/profile}") >"$tmp/pc2.log" 2>&1
check "pkg-config: the record-source example builds without warnings" test -x "$tmp/profile"
etl=$SRCDIR/../shared/fixtures/etl/perfview-net452-x64-compressed.etl
out=$(LD_LIBRARY_PATH=$prefix/$libdir "$tmp/profile" "$etl" 2>&1)
check "the record-source example reads an .etl ($out)" grep -qE '^[1-9][0-9]* samples of ' <<<"$out"
if LD_LIBRARY_PATH=$prefix/$libdir "$prefix/bin/pmukit" record -e cpu-clock -o "$tmp/p.data" \
	-- sleep 0.2 >/dev/null 2>&1; then
	out=$(LD_LIBRARY_PATH=$prefix/$libdir "$tmp/profile" "$tmp/p.data" 2>&1)
	check "the record-source example reads pmukit's perf.data ($out)" \
		grep -qE "^perf.data from $(hostname)" <<<"$out"
fi
finish
