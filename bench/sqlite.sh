#!/bin/bash
# Builds the symbolization benchmark's subject: the SQLite amalgamation (sqlite3.c,
# one 9 MB compile unit) as a shared library at -O2 -g, from the npm package
# better-sqlite3, which ships it (12.x: 13.x needs a newer Node, not that it is run).
# usage: bench/sqlite.sh [DIR]   (default build/bench-sqlite); prints the library's path.
# then:  build/bench/bench_symbolize "$(bench/sqlite.sh)" 100000
set -euo pipefail
dir=${1:-build/bench-sqlite}
lib=$dir/libsqlite3.so
mkdir -p "$dir"
if [ ! -s "$lib" ]; then
	command -v npm >/dev/null || { echo "bench/sqlite.sh: npm is needed (apt-get install npm)" >&2; exit 1; }
	( cd "$dir" && npm pack --silent better-sqlite3@12.11.1 >/dev/null )
	tar -xzf "$dir"/better-sqlite3-12.11.1.tgz -C "$dir" package/deps/sqlite3/sqlite3.c \
		package/deps/sqlite3/sqlite3.h
	${CC:-cc} -O2 -g -fPIC -shared -o "$lib" "$dir"/package/deps/sqlite3/sqlite3.c
fi
echo "$lib"
