#!/bin/bash
# SPDX-License-Identifier: MIT
#
# bench/record.sh: what the recorder costs. Two programs, each recorded for
# SS_BENCH_RECORD_S seconds (default 60) by three
# recorders side by side, attached to the same process at the same time:
# exact mode (--exact: the threads from the kernel's counters; left out,
# saying why, where it cannot load), stallscope's snapshot sampler
# (--no-exact: files kept open, pread, parse only what is needed) and the
# naive sampler (--naive-sampler: fopen, read, fclose of the same files
# every period, stdio). All run with --rt when permitted, so that what they
# measure is their own work rather than the busy threads preempting them.
#
#   sleep  a sleeping program (sleep(1)): no frames, its one thread asleep
#          throughout (issue 31: it cost exact mode 47 us and the snapshot
#          sampler 67 us a sample, reading /proc for a thread that did not run)
#   idle   ss-markers at 60 fps, one idle thread
#   busy8  ss-markers at 60 fps with 8 spinning threads (on this 2-core box)
#
# SS_BIN_BEFORE=PATH (another stallscope, e.g. a build of the commit before
# a change) attaches its exact and snapshot recorders too, in the same run,
# as exact-before and kept-before. SS_BENCH_RECORD_CASES picks the cases
# (default "sleep idle busy8").
#
# Prints per recorder: median us per sample (the work from wake-up to done),
# % of one CPU, bytes per sample of the record (header excluded), wake-up
# lateness p99 and max, missed periods; and the ratio of the two medians.
# Goals: snapshot <= 10 us/sample and <= 20 bytes/sample on the steady
# (idle) program, exact <= 5 us/sample and <= 30 bytes/sample, lateness p99
# <= 0.5 ms, ratios to naive <= 0.05.
set -u
cd "$(dirname "$0")/.."
SS_BIN=${SS_BIN:-$PWD/build/stallscope}
MARKERS=$(dirname "$SS_BIN")/tools/ss-markers
DUR=${SS_BENCH_RECORD_S:-60}
[ -x "$SS_BIN" ] && [ -x "$MARKERS" ] || { echo "skip: build first ($SS_BIN, $MARKERS)"; exit 77; }
T=$(mktemp -d /tmp/ss-bench-record.XXXXXX)
prog=
trap '[ -n "$prog" ] && kill $prog 2>/dev/null; rm -rf "$T"' EXIT

ini() { sed -n "s/^$2=//p" "$1" | head -n1; }

echo "recorder cost, ${DUR} s per case, both recorders attached side by side"
printf '%-6s %-12s %9s %8s %6s %10s %9s %9s %7s\n' case sampler us/sample us_mean cpu% \
	bytes/smp late_p99 late_max missed
BEFORE=${SS_BIN_BEFORE:-}
[ -z "$BEFORE" ] || [ -x "$BEFORE" ] || { echo "SS_BIN_BEFORE=$BEFORE: not an executable"; exit 1; }
samplers="exact kept naive"
[ -n "$BEFORE" ] && samplers="exact exact-before kept kept-before naive"
for c in ${SS_BENCH_RECORD_CASES:-sleep idle busy8}; do
	case $c in
	sleep) args= ;;
	idle) args="--idle 1" ;;
	busy8) args="--busy 8" ;;
	*) echo "unknown case '$c'"; exit 1 ;;
	esac
	if [ $c = sleep ]; then
		sleep $((DUR + 5)) &
	else
		"$MARKERS" --fps 60 --seconds $((DUR + 5)) $args > /dev/null &
	fi
	prog=$!
	sleep 0.5
	pids=
	if [ -z "${no_exact:-}" ]; then
		"$SS_BIN" record -q --rt --exact -o "$T/$c-exact" -p $prog --duration "$DUR" \
			--frames none 2>"$T/exact.err" &
		pids="$pids $!"
	fi
	"$SS_BIN" record -q --rt --no-exact -o "$T/$c-kept" -p $prog --duration "$DUR" --frames none &
	pids="$pids $!"
	if [ -n "$BEFORE" ]; then
		if [ -z "${no_exact:-}" ]; then
			"$BEFORE" record -q --rt --exact -o "$T/$c-exact-before" -p $prog \
				--duration "$DUR" --frames none 2>/dev/null &
			pids="$pids $!"
		fi
		"$BEFORE" record -q --rt --no-exact -o "$T/$c-kept-before" -p $prog --duration "$DUR" \
			--frames none &
		pids="$pids $!"
	fi
	"$SS_BIN" record -q --rt --naive-sampler -o "$T/$c-naive" -p $prog --duration "$DUR" \
		--frames none &
	pids="$pids $!"
	# shellcheck disable=SC2086
	wait $pids
	kill $prog 2>/dev/null
	wait $prog 2>/dev/null
	prog=
	if [ -z "${no_exact:-}" ] && [ ! -f "$T/$c-exact/run.ini" ]; then
		no_exact="exact mode not measured: $(tail -1 "$T/exact.err")"
		echo "$no_exact"
	fi
	for s in $samplers; do
		f=$T/$c-$s/run.ini
		case $s in exact*) [ -n "${no_exact:-}" ] && continue ;; esac
		[ -f "$f" ] || { echo "$c $s: no run.ini"; exit 1; }
		printf '%-6s %-12s %9s %8s %6s %10s %9s %9s %7s\n' $c $s \
			"$(ini $f recorder_us_per_sample)" "$(ini $f recorder_us_per_sample_mean)" \
			"$(ini $f recorder_cpu_pct)" "$(ini $f recorder_bytes_per_sample)" \
			"$(ini $f recorder_late_p99_ms)" "$(ini $f recorder_late_max_ms)" \
			"$(ini $f recorder_missed)"
	done
	n=$(ini "$T/$c-naive/run.ini" recorder_us_per_sample)
	for s in $samplers; do
		[ $s = naive ] && continue
		case $s in exact*) [ -n "${no_exact:-}" ] && continue ;; esac
		k=$(ini "$T/$c-$s/run.ini" recorder_us_per_sample)
		awk -v c=$c -v s=$s -v k="$k" -v n="$n" 'BEGIN { if (n > 0) printf "%-6s ratio %s/naive (median us/sample): %.3f  (goal <= 0.05)\n", c, s, k / n;
			else print c " ratio: - (naive median unknown)" }'
	done
	ini "$T/$c-kept/run.ini" rt | grep -q '^SCHED_FIFO' || echo "$c: note: not SCHED_FIFO ($(ini "$T/$c-kept/run.ini" rt))"
done
