#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e live parallel
# What a program does after the run stopped it is its answer to the stop,
# never a failure of the run (issue 27, item 1: ioquake3 answers the SIGTERM
# of --duration with "Received signal 15" and status 1, and every OpenArena
# run was a failed run). A game that exits 1 on SIGTERM is not failed in
# record, report, bench, db import, compare or prefetch learn; one that
# crashes (SIGSEGV) after the SIGTERM is not failed either, but a note says
# so; one that exits 1 by itself before the stop is still failed. run.ini
# says the stop: its signal, when, when the program ended.
. "$SS_SRC/tests/e2e/lib/record.sh"
GAME=$SS_BUILD/fakegame
[ -x "$GAME" ] || { echo "skip: $GAME not built"; exit 77; }
command -v sqlite3 >/dev/null || { echo "skip: sqlite3 missing"; exit 77; }

# the game presents through the marker API; the shell in front of it is the
# program and answers the stop its way
cat >answer.sh <<SH
#!/bin/sh
trap 'exit 1' TERM
"$GAME" --quiet --seconds 30 --fps 60 &
wait
SH
cat >crash.sh <<SH
#!/bin/sh
ulimit -c 0
trap 'kill -SEGV \$\$' TERM
"$GAME" --quiet --seconds 30 --fps 60 &
wait
SH
cat >early.sh <<SH
#!/bin/sh
"$GAME" --quiet --seconds 1 --fps 60
exit 1
SH
chmod +x answer.sh crash.sh early.sh

# exits 1 on our SIGTERM: not failed
"$SS_BIN" record -q -o ans --frames marker --duration 1.5 -- ./answer.sh 2>err.ans
expect_eq "record's exit status, a program that answered the stop with 1" $? 0
grep -q 'PROGRAM FAILED' err.ans && fail "the answer to the stop called a failure: $(cat err.ans)"
expect_eq end "$(ini ans/run.ini end)" duration
expect_eq exit_status "$(ini ans/run.ini exit_status)" 1
expect_eq stop_signal "$(ini ans/run.ini stop_signal)" TERM
awk -v s="$(ini ans/run.ini stop_s)" -v e="$(ini ans/run.ini stop_ended_s)" \
	'BEGIN { exit !(s >= 1.4 && s < 5 && e >= s && e < s + 5) }' ||
	fail "stop_s $(ini ans/run.ini stop_s), stop_ended_s $(ini ans/run.ini stop_ended_s)"

# crashes after our SIGTERM: not failed, a note
"$SS_BIN" record -o crash --frames marker --duration 1.5 -- ./crash.sh 2>err.crash
expect_eq "record's exit status, a program that crashed after the stop" $? 0
grep -q 'PROGRAM FAILED' err.crash && fail "a crash after the stop called a failure: $(cat err.crash)"
grep -q "note: 'fakegame' (started as 'crash.sh') was killed by SIGSEGV after the stop's SIGTERM: a crash during" \
	err.crash || fail "no note of the crash: $(cat err.crash)"
expect_eq exit_signal "$(ini crash/run.ini exit_signal)" SEGV
expect_eq stop_signal "$(ini crash/run.ini stop_signal)" TERM

# exits 1 by itself before the stop: failed, as before
"$SS_BIN" record -q -o early --frames marker --duration 6 -- ./early.sh 2>err.early
expect_eq "record's exit status, a program that failed by itself" $? 3
grep -q "^!! PROGRAM FAILED: 'fakegame' (started as 'early.sh') exited with status 1" err.early ||
	fail "no failure line: $(cat err.early)"
expect_eq end "$(ini early/run.ini end)" exit
expect_eq stop_signal "$(ini early/run.ini stop_signal)" -

# report: the table's failed column, the notes, the failed list
"$SS_BIN" report --warmup 0 --cols source,frames,failed ans crash early >rep 2>&1
awk '$1 == "ans" && $3 == 0 { a++ } $1 == "crash" && $3 == 0 { c++ }
     $1 == "early" && $3 == 1 { e++ } END { exit !(a == 1 && c == 1 && e == 1) }' rep ||
	fail "report's failed column: $(cat rep)"
grep -q "^!! FAILED runs" rep || fail "report: the early run not listed as failed: $(cat rep)"
grep -q "early: the program exited with status 1" rep || fail "report: why: $(cat rep)"
grep -A3 "^!! FAILED" rep | grep -Eq "(ans|crash):" &&
	fail "report lists a stopped run as failed: $(cat rep)"
grep -q "killed by SIGSEGV after the stop's SIGTERM (.* s after it): a crash during its shutdown, its answer" rep ||
	fail "report: no note of the crash: $(cat rep)"

# db import judges the same
"$SS_BIN" db import --db i.db ans crash early >/dev/null 2>&1
expect_eq "db import: failed flags" \
	"$(sqlite3 i.db "select group_concat(failed, ',') from (select failed from runs order by rundir)")" \
	"0,0,1"

# bench: the runs stored unfailed, compare compares them
"$SS_BIN" bench sa --db b.db --results runs --rounds 2 --variants "- X=1" --warmup 0 \
	--duration 1.5 --frames marker --no-watch -- ./answer.sh >bench.out 2>&1
expect_eq "bench's exit status" $? 0
grep -q FAILED bench.out && fail "bench: a stopped run failed: $(cat bench.out)"
expect_eq "bench: runs stored unfailed, with the answer's status" \
	"$(sqlite3 b.db "select count(*) from runs where failed = 0 and exit_status = 1")" 4
"$SS_BIN" compare --db b.db sa sa:X=1 >cmp 2>&1
expect_eq "compare's exit status" $? 0
grep -q "that did not fail" cmp && fail "compare found no good run: $(cat cmp)"
grep -Eq "^fps .* 2\+2$" cmp || fail "compare compared nothing: $(cat cmp)"

# prefetch learn passes a SIGTERM on: the program's answer is no failure
# either (3 would be)
cat >quit.sh <<'SH'
#!/bin/sh
trap 'kill $!; exit 1' TERM
sleep 60 &
touch started
wait
SH
chmod +x quit.sh
XDG_CACHE_HOME=$T/cache "$SS_BIN" prefetch learn -- ./quit.sh >learn.out 2>&1 &
pf=$!
KILL_ON_EXIT=$pf
wait_for "the learnt program to start" 60 test -f started
kill -TERM $pf
wait $pf
expect_eq "prefetch learn's exit status, a program that answered the stop with 1" $? 0
grep -q "learnt '$T/quit.sh'" learn.out || fail "prefetch learn: $(cat learn.out)"
echo ok
