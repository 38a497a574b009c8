#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e live
# The record cannot be moved into the run directory (here: the directory was
# removed while recording): record exits 1, the record stays in /dev/shm,
# the error names where, and dump reads it there.
. "$SS_SRC/tests/e2e/lib/record.sh"

"$SS_BIN" record -q -o run --duration 1.5 -- sleep 10 2> err.txt &
rec=$!
KILL_ON_EXIT=$rec
for i in $(seq 100); do
	[ -f run/run.ini ] && break
	sleep 0.05
done
[ -f run/run.ini ] || fail "no run.ini after 5 s"
rm -rf run
wait $rec
rc=$?
tmp=$(sed -n "s/.*cannot move the record to 'run\/record.ssr'; it stays at '\([^']*\)'.*/\1/p" err.txt)
KILL_ON_EXIT=
rm_tmp() { rm -f /dev/shm/stallscope-$rec-*; }
[ "$rc" = 1 ] || { rm_tmp; fail "record exited $rc, expected 1: $(cat err.txt)"; }
case $tmp in /dev/shm/*) ;; *) rm_tmp; fail "the error does not say where the record stays: $(cat err.txt)" ;; esac
[ -f "$tmp" ] || { rm_tmp; fail "the record '$tmp' is not where the error says"; }
n=$("$SS_BIN" dump "$tmp" | awk '$1 == "sample" { n++ } END { print n + 0 }')
rm_tmp
expect_ge samples "$n" 10
echo "ok: the record stayed at '$tmp' with $n samples"
