#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e live parallel
# A program that execs another mid-run (a launcher), and threads that come
# and go: the recording carries on through the exec (same pid, new name),
# the new program's markers still reach the ring, and the run ends when it
# exits. Also --rt: the run records whether it got SCHED_FIFO, or why not.
. "$SS_SRC/tests/e2e/lib/record.sh"

"$SS_BIN" record -q --rt -o run --frames marker -- sh -c \
	"sleep 0.3; exec '$MARKERS' --frames 40 --fps 100 --busy 2 --idle 2" || fail "record failed"
expect_eq end "$(ini run/run.ini end)" exit
expect_eq exit_status "$(ini run/run.ini exit_status)" 0
expect_eq frames "$(dump_count frame run)" 40
expect_ge samples "$(ini run/run.ini recorder_samples)" 30
ini run/run.ini rt | grep -Eq '^(SCHED_FIFO|no SCHED_FIFO)' || fail "rt: $(ini run/run.ini rt)"
# the thread snapshots saw the threads the new program started
"$SS_BIN" dump run | grep -q "busy1" || fail "no snapshot shows the threads after exec"
echo "ok: 40 frames after exec; rt: $(ini run/run.ini rt)"
