#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e live
# `make demo`'s script (scripts/demo.sh) end to end, shortened: the report
# sections on the bundled logs, then the main job with two kinds of stall
# (DEMO_KINDS="cpu sleep": the fake game recorded, report's cause columns,
# stalls, and what the fake game says it did). Checks each section printed
# what it should, not only that the script exited 0.
set -u
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
no() { echo "FAIL: $*"; fail=1; }

[ -x "$SS_BUILD/fakegame" ] || { echo "skip: no $SS_BUILD/fakegame"; exit 77; }
DEMO_KINDS="cpu sleep" sh "$SS_SRC/scripts/demo.sh" "$SS_BUILD" >"$T/out" 2>"$T/err" ||
	no "demo.sh exit $?: $(tail -5 "$T/err")"

# the bundled logs: a report row each, MangoHud's own numbers beside ours
grep -q '^\./demo/hud-frametimes.txt  *5150 ' "$T/out" || no "demo log row"
mh=$(sed -n '/mangohud-0.6.8-perframe.csv  *mangohud-0.6.8 /p' "$T/out" | awk '{print $(NF-3) "," $(NF-2) "," $(NF-1) "," $NF}')
said=$(sed -n 's/^MangoHud.s summary said: //p' "$T/out")
[ -n "$mh" ] && [ "$mh" = "$said" ] || no "mangohud compat '$mh', MangoHud said '$said'"
grep -q '^demo-loop  *base  *5124 ' "$T/out" || no "looping demo row"

# the main job: one stall of each kind, each with its cause
grep -q '^== stallscope record -- fakegame --stall cpu:300@1 --stall sleep:300@1.8$' "$T/out" ||
	no "record line: $(grep -m1 'stallscope record' "$T/out")"
grep -Eq '^window: 2 stalls( \(causes by exact time\))?$' "$T/out" || no "stalls: not 2 stalls in the window"
grep -q '^ *[0-9.]*  *[0-9.]*  *cpu  ' "$T/out" || no "no cpu stall line"
grep -q '^ *[0-9.]*  *[0-9.]*  *wait (sleep)  ' "$T/out" || no "no sleep stall line"
sed -n '/^== stallscope report --warmup 0: the stall seconds/,/^==/p' "$T/out" |
	grep -q '^ *[0-9]*  *2  ' || no "report: not 2 stalls"
# what the fake game says (program.log, stamped by record)
grep -q '^\[[0-9.]*\] fakegame: stall cpu 3[0-9][0-9]\.[0-9] ms at ' "$T/out" || no "fakegame's cpu line"
grep -q '^\[[0-9.]*\] fakegame: stall sleep 3[0-9][0-9]\.[0-9] ms at ' "$T/out" || no "fakegame's sleep line"
[ $fail = 0 ] && echo "demo ok" || cat "$T/out"
exit $fail
