#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e live
# Programs that end early: one that exits at once with status 3, one that
# dies of a signal, and one that cannot be started (exit 1, no run directory
# left behind).
. "$SS_SRC/tests/e2e/lib/record.sh"

"$SS_BIN" record -q -o r1 -- "$MARKERS" --frames 2 --fps 1000 --exit 3 || fail "record failed"
expect_eq exit_status "$(ini r1/run.ini exit_status)" 3
expect_eq end "$(ini r1/run.ini end)" exit
expect_eq frames "$(dump_count frame r1)" 2
"$SS_BIN" dump r1 > /dev/null || fail "dump of a short run failed"

"$SS_BIN" record -q -o r2 -- sh -c 'kill -9 $$' || fail "record failed"
expect_eq exit_signal "$(ini r2/run.ini exit_signal)" KILL
expect_eq exit_status "$(ini r2/run.ini exit_status)" -

"$SS_BIN" record -q -o r3 -- true || fail "record of true failed"
expect_eq exit_status "$(ini r3/run.ini exit_status)" 0

"$SS_BIN" record -q -o r4 -- /nonexistent/program 2> err.txt && fail "record of a missing program succeeded"
grep -q "cannot run '/nonexistent/program'" err.txt || fail "message: $(cat err.txt)"
[ -e r4 ] && fail "a run directory was left for a program that never ran"
"$SS_BIN" record -q -o r1 -- true 2>/dev/null && fail "a second run into r1 was accepted"
# without -o: runs/<UTC stamp>-<program>/ under the working directory
"$SS_BIN" record -q -- "$MARKERS" --frames 1 || fail "record without -o failed"
d=$(ls -d runs/*-ss-markers 2>/dev/null)
[[ $d =~ ^runs/[0-9]{8}T[0-9]{6}Z-ss-markers$ ]] || fail "default run directory: '$d'"
[ -f "$d/run.ini" ] && [ -f "$d/record.ssr" ] || fail "'$d' is not a whole run"
echo "ok"
