#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e live
# The recorder talks on a terminal (script(1) gives it one): a line at the
# start (the program, the run directory, the frame sources, how to stop), a
# status line redrawn once a second (elapsed, frames, fps, stalls so far and
# the last one's length), and the stop with its SIGKILL grace said when
# --duration ends it. Not a word of these without a terminal or with -q:
# scripts and bench read run.ini.
. "$SS_SRC/tests/e2e/lib/record.sh"
command -v script >/dev/null || { echo "skip: no script(1) (util-linux)"; exit 77; }
GAME=$SS_BUILD/fakegame
[ -x "$GAME" ] || { echo "skip: no fakegame"; exit 77; }

script -qfec "'$SS_BIN' record -o run --duration 3 -- '$GAME' --seconds 20 --stall sleep:300@1" \
	/dev/null >tty.out 2>&1 || fail "record under script: $(tail -5 tty.out)"
tr '\r' '\n' <tty.out >tty.txt
grep -Eq "^stallscope record: recording 'fakegame' \\(pid [0-9]*(, as [a-z0-9_-]+( \\(uid [0-9]+\\))?)?\\) into 'run'; frames from .*marker API(; exact mode)?; it stops after --duration, or Ctrl-C$" tty.txt ||
	fail "no start line: $(head -3 tty.txt)"
grep -Eq '^stallscope record: [0-9]+ s  frames [0-9]+  fps [0-9.]+  stalls 0' tty.txt ||
	fail "no status line: $(cat tty.txt)"
grep -Eq '^stallscope record: [0-9]+ s  frames [0-9]+  fps [0-9.]+  stalls 1 \(last 3[0-9]{2} ms\)' tty.txt ||
	fail "the stall is not on the status line: $(cat tty.txt)"
grep -q "^stallscope record: stopping 'fakegame' (SIGTERM; SIGKILL if it is still there in 5 s)" tty.txt ||
	fail "the stop is not said: $(cat tty.txt)"
grep -q "^stallscope record: [0-9]* samples, [0-9]* frames, end: duration; run in 'run'" tty.txt ||
	fail "no summary after the status line: $(cat tty.txt)"

"$SS_BIN" record -o run2 --duration 1.5 -- "$GAME" --seconds 20 >plain.txt 2>&1 || fail "record"
# Only the live lines: a warning about another recording's leftover ring in
# /dev/shm ("recordings that did not end") is not one of them.
grep -Eq "recording '|  fps [0-9]|stopping '" plain.txt && fail "status without a terminal: $(cat plain.txt)"
script -qfec "'$SS_BIN' record -q -o run3 --duration 1.5 -- '$GAME' --seconds 20" /dev/null >q.txt 2>&1
[ -s q.txt ] && fail "-q on a terminal said: $(cat q.txt)"
echo "ok: the recorder talks on a terminal, and only there"
