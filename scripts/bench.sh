#!/bin/sh
# SPDX-License-Identifier: MIT
#
# bench.sh [BUILD]: runs every benchmark bench/*.sh with SS_BIN set to
# BUILD/stallscope (default build/); each prints its own figures. A
# benchmark that cannot run here exits 77 and is reported as skipped.
set -u
cd "$(dirname "$0")/.."
build=${1:-build}
SS_BIN=$(cd "$build" && pwd)/stallscope
export SS_BIN
fail=0
for b in bench/*.sh; do
	[ -e "$b" ] || continue
	echo "== $b"
	bash "$b"
	rc=$?
	if [ $rc = 77 ]; then
		echo "== $b: skipped"
	elif [ $rc != 0 ]; then
		echo "== $b: failed ($rc)"
		fail=1
	fi
done
exit $fail
