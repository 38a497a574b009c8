#!/bin/sh
# SPDX-License-Identifier: MIT
#
# bench.sh [BUILD]: runs every benchmark section bench/*.sh with the build
# directory (default build/) as its argument and SS_BIN set to
# BUILD/stallscope; each prints its own figures. A section that cannot run
# here exits 77 and is reported as skipped. Add a section by adding a script
# there.
set -u
build=$(cd "${1:-build}" && pwd)
cd "$(dirname "$0")/.."
SS_BIN=$build/stallscope
export SS_BIN
fail=0
for b in bench/*.sh; do
	[ -f "$b" ] || continue
	echo "== $b"
	bash "$b" "$build"
	rc=$?
	if [ $rc = 77 ]; then
		echo "== $b: skipped"
	elif [ $rc != 0 ]; then
		echo "== $b: failed ($rc)"
		fail=1
	fi
done
exit $fail
