#!/bin/bash
# SPDX-License-Identifier: MIT
#
# bench/db.sh BUILD: the results database, SQLite and PostgreSQL side by side
# (issue 18): the insert rate (runs a second, each with every metric, one
# transaction a run: bench/db-bench.c) into a new database of 10,000 runs,
# then `compare` over those 10,000 (5,000 a side; median of 5), and `runs`.
# PostgreSQL is a throwaway 15 on a Unix socket, fsync off
# (tests/e2e/lib/pg.sh): the server's own cost, not a disk's.
set -u
build=${1:-build}
src=$(cd "$(dirname "$0")/.." && pwd)
bin=$build/stallscope
N=${DB_BENCH_RUNS:-10000}
for lib in "$build/libss_db.a" "$build/libss_core.a"; do
	[ -f "$lib" ] || { echo "bench/db: '$lib' is missing; run 'make build'" >&2; exit 1; }
done
T=$(mktemp -d)
SS_SRC=$src
. "$src/tests/e2e/lib/pg.sh"
trap 'pg_stop; rm -rf "$T"' EXIT
pg_start || exit 1
pg_as "$PGBIN/createdb" -h "$PGDIR" -U postgres bench || exit 1
libs="$build/libss_db.a $build/libss_core.a -lsqlite3"
pkg-config --exists libpq && libs="$libs $(pkg-config --libs libpq)"
${CC:-cc} -O2 -std=gnu11 -D_GNU_SOURCE -I"$src/src" "$src/bench/db-bench.c" $libs -lm \
	-o "$T/db-bench" || exit 1
median_ms() {
	for i in 1 2 3 4 5; do
		t0=$(date +%s%N)
		"$@" >/dev/null 2>&1 || { echo "bench/db: '$*' failed" >&2; exit 1; }
		t1=$(date +%s%N)
		echo $(((t1 - t0) / 1000000))
	done | sort -n | sed -n 3p
}
PG="host=$PGDIR dbname=bench user=postgres"
for target in "$T/r.db" "$PG"; do
	case $target in host=*) what=postgresql ;; *) what=sqlite ;; esac
	rate=$("$T/db-bench" "$target" "$N") || exit 1
	cmp=$(median_ms "$bin" compare --db "$target" bench:- bench:V=1)
	runs=$(median_ms "$bin" runs --db "$target")
	printf "db %-10s: %d runs stored at %s runs/s; compare of %d vs %d runs %s ms, runs %s ms (medians of 5)\n" \
		"$what" "$N" "$rate" $((N / 2)) $((N / 2)) "$cmp" "$runs"
done
