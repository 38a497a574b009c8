#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e live slow
# The seed's games through their shipped recipes (share/recipes: openarena,
# minetest, supertuxkart, neverball; docs/GAMES.md), each benched once for
# 15 s (3 s warm-up, 12 s window; Neverball 20 s) under Xvfb (Mesa's software GL) beside
# MangoHud: the test's copy of each recipe puts `mangohud` in front of the
# command, nothing else changed, and `stallscope bench DIR/GAME.ini` runs
# it. Each run must be stored not failed (`runs`: failed 0), named after the
# game (run.ini program=GAME, whatever wrappers stand in front of it), with
# the game's reload rule found where share/reload-rules.ini has one
# (openarena's), its frame rate within 2 % of MangoHud's over the seconds
# MangoHud logged (tests/e2e/lib/mh-compare.py; a game whose MangoHud log
# is missing or under 20 frames, as Neverball's is when it loads through
# the log's 7 s, is said and not compared; at least two must be), and
# `stalls` must run on it.
# A game that is not installed is left out (scripts/deps.sh test installs
# all four); fewer than two is a skip.
set -u
. "$(dirname "$0")/shim-common.inc"
need mangohud mangohud
[ -x "$SS_BIN" ] || skip "no stallscope binary"
export PATH=$PATH:/usr/games

games=
for g in openarena minetest supertuxkart neverball; do
	if command -v "$g" >/dev/null; then
		games="$games $g"
	else
		echo "no $g: left out (scripts/deps.sh test installs it)"
	fi
done
[ $(echo $games | wc -w) -ge 2 ] || skip "fewer than two of openarena, minetest, supertuxkart, neverball"

start_xvfb 141 190
# A fresh HOME: the games' own files (OpenArena's com_homepath, STK's
# texture cache, Mesa's shader cache) and the results database go there.
export HOME=$TMP/home MANGOHUD_DLSYM=1
mkdir -p "$HOME" "$TMP/recipes"
cd "$TMP" || fail "cd $TMP"

bad=0
compared=0
for g in $games; do
	mh=$TMP/mh-$g
	mkdir -p "$mh"
	# the shipped recipe, with MangoHud in front of its command
	sed 's/^command = /command = mangohud /' "$SS_SRC/share/recipes/$g.ini" \
		>"$TMP/recipes/$g.ini"
	grep -q '^command = mangohud ' "$TMP/recipes/$g.ini" || fail "$g: no command in its recipe"
	# MangoHud starts its log at its first frame N s or more after it loads
	# (the GL context, not the first frame), for 7 s, which must fall in
	# the run's frames. Neverball makes its context at once, then loads for
	# 1 to 11 s (a cold shader cache on a loaded machine) before its first
	# frame: its log starts with its frames, and its run is 5 s longer.
	delay=5 window=12
	[ "$g" = neverball ] && delay=1 window=17
	MANGOHUD_CONFIG="output_folder=$mh,autostart_log=$delay,log_duration=7,log_interval=0,no_display" \
		timeout 120 "$SS_BIN" bench "$TMP/recipes/$g.ini" --rounds 1 --variants - \
		--warmup 3 --window $window --no-watch --results "$TMP/runs-$g" --db "$TMP/results.db" \
		>"$TMP/$g.out" 2>&1
	st=$?
	run=$(ls -d "$TMP/runs-$g"/*-"$g"-base 2>/dev/null | head -1)
	[ -n "$run" ] && [ -f "$run/run.ini" ] ||
		{ echo "FAIL: $g: no run (bench exit $st): $(tail -3 "$TMP/$g.out")"; bad=1; continue; }
	[ $st -eq 0 ] || { echo "FAIL: $g: bench exit $st: $(grep -m2 '!!' "$TMP/$g.out")"; bad=1; }
	failed=$("$SS_BIN" runs --db "$TMP/results.db" --name "$g" --csv |
		python3 -c 'import csv, sys; print(" ".join(r["failed"] for r in csv.DictReader(sys.stdin)))')
	[ "$failed" = 0 ] || { echo "FAIL: $g: runs says failed '$failed': $(grep -m1 '!!' "$TMP/$g.out")"; bad=1; }
	prog=$(sed -n 's/^program=//p' "$run/run.ini")
	[ "$prog" = "$g" ] || { echo "FAIL: $g: the run is named '$prog' (run.ini program=), not '$g'"; bad=1; }
	"$SS_BIN" report --warmup 3 "$run" >"$run.report" 2>&1 ||
		{ echo "FAIL: $g: report: $(tail -3 "$run.report")"; bad=1; }
	if grep -q "^\[$g\]" "$SS_SRC/share/reload-rules.ini"; then
		grep -q "no reload rule for" "$run.report" &&
			{ echo "FAIL: $g: its reload rule was not applied: $(grep 'reload rule' "$run.report")"; bad=1; }
	fi
	csv=$(ls "$mh"/*.csv 2>/dev/null | grep -v _summary | head -1)
	if [ -z "$csv" ]; then
		# MangoHud's log is of 7 s from a moment of its own choosing: a
		# game still loading then (Neverball, 1 to 11 s and more) ends
		# the run before it is written, or leaves it a few frames
		echo "not compared: $g: MangoHud wrote no log ($(tail -1 "$run/program.log"))"
	else
		"$SS_BIN" dump "$run" | awk '$1 == "frame" { sub("t=", "", $2); printf "%.0f\n", $2 * 1e9 }' \
			>"$run.stamps"
		echo -n "$g: "
		python3 "$SS_SRC/tests/e2e/lib/mh-compare.py" "$run.stamps" "$csv" 2
		case $? in
		0) compared=$((compared + 1)) ;;
		3) echo "not compared: $g: too few frames in MangoHud's log" ;;
		*) echo "FAIL: $g: our frame rate and MangoHud's differ by more than 2 %"; bad=1 ;;
		esac
	fi
	"$SS_BIN" stalls --warmup 3 "$run" >"$run.stalls" 2>&1 ||
		{ echo "FAIL: $g: stalls: $(tail -3 "$run.stalls")"; bad=1; }
	grep -q '^window: ' "$run.stalls" || { echo "FAIL: $g: stalls printed no window"; bad=1; }
done
# a game MangoHud logged too little of is said and left out; two of them
# compared are the least the test stands on
[ $compared -ge 2 ] || { echo "FAIL: only $compared game(s) compared with MangoHud's log"; bad=1; }
exit $bad
