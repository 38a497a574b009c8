#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e live parallel
# record's options for bench: --watch runs the interference detector beside
# the program (a key press injected through its test paths marks the run
# interfered in run.ini, with interference.log and a loud line; a clean run
# says none); --meta adds run.ini keys (record's own win); --no-sample
# records frames and no samples; bad values are usage errors.
. "$SS_SRC/tests/e2e/lib/record.sh"
GAME=$SS_BUILD/fakegame
[ -x "$GAME" ] || { echo "skip: $GAME not built"; exit 77; }
mkdir -p input sess
mkfifo input/event0 kmsg
echo tty1 >vt
W=(--no-procs --input-dir "$T/input" --vt-file "$T/vt" --sessions-dir "$T/sess" --kmsg "$T/kmsg")

# a disturbed run: one key press while the game runs
/usr/bin/python3 "$SS_SRC/tests/e2e/watch-inject.py" "$T/input/event0" keyboard 30 &
"$SS_BIN" record -q -o bad --frames marker "${W[@]}" --meta name=fg --meta variant=X=1 \
	--meta program=not-this -- "$GAME" --seconds 1 2>err || fail "record exited $?: $(cat err)"
wait
expect_eq "interfered" "$(ini bad/run.ini interfered)" 1
expect_eq "interference" "$(ini bad/run.ini interference)" "1 key press"
grep -q "^! .* key press on" bad/interference.log || fail "interference.log: $(cat bad/interference.log)"
grep -q "!! INTERFERENCE: 1 key press. THIS RUN IS INVALID" err || fail "no loud line: $(cat err)"
[ -n "$(ini bad/run.ini watch_cpu_s)" ] && [ -n "$(ini bad/run.ini watch_maxrss_kb)" ] || fail "watcher cost missing"
expect_eq "--meta name" "$(ini bad/run.ini name)" fg
expect_eq "--meta variant" "$(ini bad/run.ini variant)" X=1
expect_eq "record's own key wins" "$(sed -n 's/^program=//p' bad/run.ini | tail -n1)" fakegame

# a clean run, frames only
"$SS_BIN" record -q -o clean --frames marker --no-sample "${W[@]}" -- "$GAME" --seconds 1 2>err ||
	fail "record exited $?: $(cat err)"
expect_eq "clean" "$(ini clean/run.ini interfered)" 0
expect_eq "clean summary" "$(ini clean/run.ini interference)" "none (1 input device watched)"
expect_eq "no samples" "$(ini clean/run.ini recorder_samples)" 0
[ "$(ini clean/run.ini frames)" -gt 30 ] || fail "frames: $(ini clean/run.ini frames)"
expect_eq "sampling off" "$(ini clean/run.ini sampling)" "off (--no-sample: frames only)"
expect_eq "report's intf" "$("$SS_BIN" report --cols intf clean | sed -n 2p | tr -d ' ')" 0

# usage
"$SS_BIN" record --meta Bad=1 -- true 2>err; expect_eq "bad --meta" $? 2
grep -q "expected KEY=VALUE" err || fail "bad --meta message: $(cat err)"
"$SS_BIN" record --watch --input-dir "$T/input" --exempt-cmd '(' -- true 2>err; expect_eq "bad regex" $? 1
echo "record --watch, --meta, --no-sample ok"
