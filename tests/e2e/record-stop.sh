#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e live
# The ways a run is stopped from outside: the stop file (the program gets
# SIGTERM), SIGINT to the recorder (forwarded: the program sees it and exits,
# and every frame it marked is in the record), and --duration.
. "$SS_SRC/tests/e2e/lib/record.sh"

"$SS_BIN" record -q -o sf --stop-file "$T/stop" -- "$MARKERS" --seconds 30 &
rec=$!
KILL_ON_EXIT=$rec
# the stop file must not be there when the recorder starts: wait until it runs
wait_for "the recorder to start" 60 test -f sf/run.ini
touch "$T/stop"
wait $rec || fail "record with a stop file failed"
expect_eq end "$(ini sf/run.ini end)" stop-file
"$SS_BIN" record -q -o sf2 --stop-file "$T/stop" -- true 2>/dev/null &&
	fail "an existing stop file was accepted"

"$SS_BIN" record -q -o int --frames marker -- "$MARKERS" --seconds 30 --fps 100 &
rec=$!
KILL_ON_EXIT=$rec
# SIGINT once the program catches it (its handler is installed)
wait_for "the recorder to start" 60 test -f int/run.ini
wait_for "the program's SIGINT handler" 60 catches_int "$(ini int/run.ini pid)"
kill -INT $rec
wait $rec || fail "record after SIGINT failed"
expect_eq end "$(ini int/run.ini end)" signal
# ss-markers ends on SIGINT with status 0 and says how many frames it marked
grep -q 'pushed=' int/program.log || fail "the program did not see SIGINT: $(cat int/program.log)"
pushed=$(sed -n 's/.*pushed=//p' int/program.log)
expect_eq "frames after SIGINT" "$(dump_count frame int)" "$pushed"
expect_eq exit_status "$(ini int/run.ini exit_status)" 0

"$SS_BIN" record -q -o dur --duration 0.3 -- "$MARKERS" --seconds 30 || fail "record --duration failed"
expect_eq end "$(ini dur/run.ini end)" duration
echo "ok"
