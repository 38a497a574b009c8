#!/bin/bash
# SPDX-License-Identifier: MIT
#
# bench/record-ab.sh [BUILD]: two builds of the recorder, taking turns on one
# target, to tell whether a change made it cheaper. SS_BIN_B names the other
# stallscope binary (a build of the commit before, say); without it the
# section is skipped. For each target (idle: ss-markers at 60 fps with one
# idle thread; busy8: with 8 spinning threads) the two recorders attach in
# turn, SS_BENCH_AB_ROUNDS rounds (default 6) of SS_BENCH_AB_S seconds
# (default 5) each, A then B, so that the host's drift falls on both alike.
# One at a time, not side by side: a recorder that runs just after another
# finds the kernel's code warm and would look cheaper than it is.
#
# Prints per target and binary the median over rounds of the recorder's
# median us/sample (wake-up to done), its mean, and % CPU, then the ratio
# B/A of the medians.
#
# SS_BENCH_AB_CASES picks the targets (default "idle busy8"; "sleep" is a
# sleeping program, sleep(1), as in bench/record.sh); SS_BENCH_AB_ARGS adds
# record options to both (--no-exact: the snapshot sampler; --exact).
#
#   SS_BIN_B=/tmp/old/build/stallscope bash bench/record-ab.sh build
set -u
cd "$(dirname "$0")/.."
BUILD=${1:-${SS_BUILD:-build}}
A=${SS_BIN:-$PWD/$BUILD/stallscope}
B=${SS_BIN_B:-}
MARKERS=$(dirname "$A")/tools/ss-markers
ROUNDS=${SS_BENCH_AB_ROUNDS:-6}
DUR=${SS_BENCH_AB_S:-5}
[ -n "$B" ] || { echo "skip: set SS_BIN_B to the stallscope binary to compare with"; exit 77; }
[ -x "$A" ] && [ -x "$B" ] && [ -x "$MARKERS" ] || {
	echo "skip: build first ($A, $B, $MARKERS)"
	exit 77
}
T=$(mktemp -d /tmp/ss-bench-record-ab.XXXXXX)
prog=
trap '[ -n "$prog" ] && kill $prog 2>/dev/null; rm -rf "$T"' EXIT

ini() { sed -n "s/^$2=//p" "$1" | head -n1; }
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "-"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "recorder A/B: A=$A"
echo "              B=$B"
echo "$ROUNDS rounds of ${DUR} s each, A then B, on one target per case"
printf '%-6s %-2s %10s %10s %7s\n' case bin us/sample us_mean cpu%
EXTRA=${SS_BENCH_AB_ARGS:-}
for c in ${SS_BENCH_AB_CASES:-idle busy8}; do
	secs=$((ROUNDS * (DUR + 15) * 2 + 10))	# killed at the end; exact mode starts slowly
	case $c in
	sleep) args= ;;
	idle) args="--idle 1" ;;
	busy8) args="--busy 8" ;;
	*) echo "unknown case '$c'"; exit 1 ;;
	esac
	if [ $c = sleep ]; then
		sleep $secs &
	else
		"$MARKERS" --fps 60 --seconds $secs $args > /dev/null &
	fi
	prog=$!
	sleep 0.5
	for r in $(seq "$ROUNDS"); do
		for x in A B; do
			bin=$A
			[ $x = B ] && bin=$B
			d=$T/$c-$x-$r
			# shellcheck disable=SC2086
			"$bin" record -q --rt $EXTRA -o "$d" -p $prog --duration "$DUR" --frames none ||
				{ echo "$c $x round $r: record failed"; exit 1; }
		done
	done
	kill $prog 2>/dev/null
	wait $prog 2>/dev/null
	prog=
	for x in A B; do
		us=$(for f in "$T/$c-$x-"*/run.ini; do ini "$f" recorder_us_per_sample; done | median)
		mean=$(for f in "$T/$c-$x-"*/run.ini; do ini "$f" recorder_us_per_sample_mean; done | median)
		cpu=$(for f in "$T/$c-$x-"*/run.ini; do ini "$f" recorder_cpu_pct; done | median)
		printf '%-6s %-2s %10s %10s %7s\n' $c $x "$us" "$mean" "$cpu"
		eval "us_$x=\$us"
	done
	awk -v c=$c -v a="$us_A" -v b="$us_B" 'BEGIN { if (a > 0) printf "%-6s ratio B/A (median us/sample): %.3f\n", c, b / a }'
done
