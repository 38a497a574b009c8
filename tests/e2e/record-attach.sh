#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e live parallel
# record -p: attach to a running program whose frames come from a HUD file;
# when it exits the run ends cleanly ("gone"), its command line is in
# run.ini, and the frames counted are the lines it wrote while recorded.
. "$SS_SRC/tests/e2e/lib/record.sh"

"$MARKERS" --fps 100 --seconds 60 --hud "$T/hud.log" --busy 1 > markers.out &
pid=$!
KILL_ON_EXIT=$pid
hud_lines() { [ "$(wc -l < "$T/hud.log" 2>/dev/null || echo 0)" -ge "$1" ]; }
wait_for "the program's first frames" 60 hud_lines 5
"$SS_BIN" record -q -o run -p $pid --frames "hud:$T/hud.log" &
rec=$!
KILL_ON_EXIT="$pid $rec"
# the program ends (SIGINT) once the recorder has seen 50 more frames
wait_for "the recorder to start" 60 test -f run/run.ini
n0=$(wc -l < "$T/hud.log")
wait_for "50 frames after attaching" 60 hud_lines $((n0 + 50))
kill -INT $pid
wait $pid
wait $rec || fail "record -p failed"
expect_eq end "$(ini run/run.ini end)" gone
expect_eq attached "$(ini run/run.ini attached)" yes
expect_eq pid "$(ini run/run.ini pid)" $pid
expect_eq exit_status "$(ini run/run.ini exit_status)" -
ini run/run.ini argv | grep -q -- "--hud $T/hud.log" || fail "argv: $(ini run/run.ini argv)"
lines=$(wc -l < "$T/hud.log")
f=$(dump_count frame run)
# the lines written before the recorder attached are not counted
[ "$f" -lt "$lines" ] || fail "counted $f frames of $lines lines, some were written before attaching"
expect_ge frames "$f" 20
expect_ge samples "$(dump_count sample run)" 10
# attaching to what is not there is an error, and leaves no run
"$SS_BIN" record -q -o run2 -p 999999999 2>/dev/null
expect_eq "record -p of no process: exit status" $? 1
echo "ok: attached to $pid, $f of $lines frames after attaching"
