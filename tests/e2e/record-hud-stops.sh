#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e live parallel
# A frame source that stops: the program writes a HUD line a frame, then
# stops writing it but keeps running. The record holds exactly the lines
# written (none counted twice, the earlier run's lines in the file not at
# all) and the run ends normally when the program exits.
. "$SS_SRC/tests/e2e/lib/record.sh"

printf 'old run 1\nold run 2\nold run 3\n' > "$T/hud.log"	# truncated by the program
"$SS_BIN" record -q -o run --frames "hud:$T/hud.log" -- \
	"$MARKERS" --fps 100 --seconds 1.5 --hud "$T/hud.log" --hud-stop 0.5 || fail "record failed"
lines=$(wc -l < "$T/hud.log")
grep -q old "$T/hud.log" && fail "the program did not truncate the file"
expect_ge "lines written" "$lines" 10
[ "$lines" -lt 150 ] || fail "the HUD did not stop ($lines lines)"
expect_eq frames "$(dump_count frame run)" "$lines"
expect_eq end "$(ini run/run.ini end)" exit
expect_eq frame_source "$(ini run/run.ini frame_source)" "hud:$T/hud.log"
echo "ok: $lines HUD lines, then the source stopped"
