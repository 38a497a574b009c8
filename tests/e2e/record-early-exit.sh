#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e live parallel
# Programs that end early: one that exits at once with status 3, one that
# dies of a signal (each said at the end with '!! PROGRAM FAILED', not only
# in run.ini; one record stopped is not), and one that cannot be started
# (exit 1, no run directory left behind); a --thread never seen and a HUD
# file that never appeared are said too. record's own exit status is 3 when
# its program failed (the run was recorded), 0 when it did not.
. "$SS_SRC/tests/e2e/lib/record.sh"

"$SS_BIN" record -q -o r1 -- "$MARKERS" --frames 2 --fps 1000 --exit 3 2>err1
expect_eq "record's exit status: the program failed" $? 3
expect_eq exit_status "$(ini r1/run.ini exit_status)" 3
# said at the end, not only in run.ini (also with -q)
grep -q "^!! PROGRAM FAILED: 'ss-markers' exited with status 3" err1 || fail "no failure line: $(cat err1)"
expect_eq end "$(ini r1/run.ini end)" exit
expect_eq frames "$(dump_count frame r1)" 2
"$SS_BIN" dump r1 > /dev/null || fail "dump of a short run failed"

"$SS_BIN" record -q -o r2 -- sh -c 'kill -9 $$' 2>err2
expect_eq "record's exit status: the program was killed" $? 3
expect_eq exit_signal "$(ini r2/run.ini exit_signal)" KILL
grep -q "^!! PROGRAM FAILED: 'sh' was killed by SIGKILL" err2 || fail "no failure line: $(cat err2)"
# stopped by record itself (--duration): not a failure
"$SS_BIN" record -q -o r5 --duration 0.3 -- sleep 5 2>err5 || fail "record failed"
grep -q 'PROGRAM FAILED' err5 && fail "a program record stopped was called failed: $(cat err5)"
# --thread never seen, a HUD file that never appeared: said too
"$SS_BIN" record -q -o r6 --thread no-such-thread --frames hud:"$T/no.log" -- sleep 0.3 2>err6 ||
	fail "record failed"
grep -q "^!! --thread 'no-such-thread': no thread of that name or id was seen" err6 ||
	fail "--thread not said: $(cat err6)"
grep -q "^!! --frames hud:$T/no.log: the file never appeared" err6 || fail "hud not said: $(cat err6)"
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
