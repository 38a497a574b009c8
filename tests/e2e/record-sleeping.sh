#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e live parallel
# record --no-exact -p on a sleeping program (issue 31): a thread asleep
# half a second is watched by its switch-ins (docs/FORMAT.md, "Gates": a
# sleeping thread's switch-ins), so its samples read no schedstat; when it
# wakes and runs the record has it, the watch is closed while it runs and
# opened again once it sleeps; run.ini says so (switch_watch*).
. "$SS_SRC/tests/e2e/lib/record.sh"

mkfifo go
# asleep on the fifo, then a run of a few hundred ms, then asleep in sleep
# (exec'd: nothing left behind when the test ends)
sh -c 'read x < go; i=0; while [ $i -lt 300000 ]; do i=$((i + 1)); done; exec sleep 60' >/dev/null 2>&1 &
pid=$!
KILL_ON_EXIT=$pid
"$SS_BIN" record -q --no-exact -o run -p $pid --duration 5 --frames none &
rec=$!
KILL_ON_EXIT="$pid $rec"
wait_for "the recorder to start" 60 test -f run/run.ini
sleep 1.5
echo go > go
wait $rec || fail "record -p failed"

expect_eq switch_watch "$(ini run/run.ini switch_watch)" on
# asleep before the run and after it: a watch each time
expect_ge switch_watch_opened "$(ini run/run.ini switch_watch_opened)" 2
expect_ge switch_watch_saved "$(ini run/run.ini switch_watch_saved)" 100
# the run is in the record: run time moved over many samples
runs=$("$SS_BIN" dump run | awk '$1 == "sample" && / ft\.run_ns=/ { n++ } END { print n + 0 }')
expect_ge "samples with ft.run_ns moved" "$runs" 5
echo "ok: $(ini run/run.ini switch_watch_opened) watches, $(ini run/run.ini switch_watch_saved) schedstat reads saved, $runs samples with the run"
