#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e live parallel
# A recorded program that attacks the recorder through the frame ring
# (tests/progs/ss-hostile-ring.c; issue 26, item 5), one way per run of
# `record --duration 3`. Each run must end soon after its duration (not
# hang: the watchdog gives it the duration + 10 s on a loaded machine, and
# the time is printed), leave a finished run.ini (state=done, end=duration),
# nothing in /dev/shm, and a record under 1 MB a second. Then, per attack:
#   far-ahead, rewind, truncate  run.ini frames_ring says broken, the terminal
#                                says so at the end (!! FRAMES STOPPED)
#   order      slots committed last to first are all read: ring ok, none stuck
#   stamps     impossible entries dropped (frames_bad), none in the record;
#              the good API spans recorded, no impossible one
#   flood      presents over 20000/s counted (frames_over_rate), not recorded
#   tid        a foreign process named as the presenting thread is not
#              sampled (frame_pid) and not stopped at the end
. "$SS_SRC/tests/e2e/lib/record.sh"

HOSTILE=$SS_BUILD/ss-hostile-ring
[ -x "$HOSTILE" ] || { echo "skip: $HOSTILE not built"; exit 77; }
DUR=3
LIMIT=$((DUR + 10))

# a process that is not the run's, for --mode tid
sleep 600 &
FOREIGN=$!
KILL_ON_EXIT=$FOREIGN

# hostile MODE: records the program in MODE into run directory MODE, its
# stderr in MODE.err; fails the test when record does not end within
# LIMIT s (then it is killed), fails or leaves a run unfinished.
hostile() {
	local m=$1 t0 t1 rec n=0
	t0=$(date +%s%N)
	"$SS_BIN" record -q -o "$m" --duration $DUR --frames marker -- \
		"$HOSTILE" --mode "$m" --tid "$FOREIGN" 2>"$m.err" &
	rec=$!
	KILL_ON_EXIT="$FOREIGN $rec"
	while kill -0 $rec 2>/dev/null && [ $n -lt $((LIMIT * 10)) ]; do
		sleep 0.1
		n=$((n + 1))
	done
	if kill -0 $rec 2>/dev/null; then
		kill -9 $rec
		fail "$m: record --duration $DUR still ran after $LIMIT s (killed)"
	fi
	wait $rec || fail "$m: record failed: $(cat "$m.err")"
	t1=$(date +%s%N)
	KILL_ON_EXIT=$FOREIGN
	awk -v m="$m" -v a="$t0" -v b="$t1" -v d=$DUR 'BEGIN {
		printf "%s: record --duration %d took %.2f s (%.2f s after its duration)\n",
			m, d, (b - a) / 1e9, (b - a) / 1e9 - d }'
	expect_eq "$m: state" "$(ini "$m/run.ini" state)" done
	! ls /dev/shm | grep "^stallscope-$rec-" || fail "$m: left in /dev/shm (ring, record or log)"
	expect_eq "$m: end" "$(ini "$m/run.ini" end)" duration
	grep -q "mode=$m pushed=" "$m/program.log" || fail "$m: the program did not attack: \
$(cat "$m/program.log")"
	# under 1 MB a second of recording
	awk -v m="$m" -v s="$(stat -c %s "$m/record.ssr")" \
		-v d="$(ini "$m/run.ini" duration_recorded_s)" 'BEGIN {
		printf "%s: record.ssr %d bytes in %s s: %.0f bytes/s\n", m, s, d, s / d
		exit !(d > 0 && s / d < 1000000) }' || fail "$m: the record grew 1 MB a second or more"
}

# broken MODE: the ring was found broken, and said so in run.ini and at the end
broken() {
	local v
	v=$(ini "$1/run.ini" frames_ring)
	case $v in broken*) ;; *) fail "$1: frames_ring='$v', expected broken" ;; esac
	echo "$1: frames_ring=$v"
	grep -q '^!! FRAMES STOPPED: the frame ring was broken' "$1.err" ||
		fail "$1: the end does not say the ring was broken: $(cat "$1.err")"
	grep -q '^frames_note=the frame ring was broken' "$1/run.ini" || fail "$1: no frames_note"
}

hostile far-ahead
broken far-ahead
hostile rewind
broken rewind
# nothing a rewound tail points at again is read twice: at most the 65536
# entries the program pushed (one ring's worth) are in the record
frames=$(ini rewind/run.ini frames)
[ "$frames" -le 65536 ] 2>/dev/null || fail "rewind: $frames frames from 65536 pushes"
hostile truncate
broken truncate

hostile order
expect_eq "order: frames_ring" "$(ini order/run.ini frames_ring)" ok
expect_eq "order: frames_stuck" "$(ini order/run.ini frames_stuck)" 0
expect_ge "order: frames" "$(ini order/run.ini frames)" 500

hostile stamps
expect_eq "stamps: frames_ring" "$(ini stamps/run.ini frames_ring)" ok
expect_ge "stamps: frames_bad" "$(ini stamps/run.ini frames_bad)" 100
expect_ge "stamps: frames" "$(ini stamps/run.ini frames)" 100
grep -q 'frame ring entries no present can have made were dropped' stamps.err ||
	fail "stamps: the end does not say entries were dropped: $(cat stamps.err)"
# every frame recorded lies within the run (t0_mono .. its end, 2 s of slack)
"$SS_BIN" dump stamps | awk -v t0="$(ini stamps/run.ini t0_mono)" \
	-v d="$(ini stamps/run.ini duration_recorded_s)" '
	$1 == "frame" { split($2, a, "="); t = a[2] + 0
		if (t < t0 - 2 || t > t0 + d + 2) { print "frame at " t " outside the run"; bad++ }
		split($4, b, "="); if (b[2] < 1 || b[2] > 8 || b[2] == 5) { print "source " b[2]; bad++ } }
	END { exit bad > 0 }' || fail "stamps: an impossible frame is in the record"
# API spans: the good ones recorded, none of the impossible ones (an unknown
# call, under 1 ms, ending after its push, tid 0)
expect_ge "stamps: apispans" "$(ini stamps/run.ini apispans)" 20
"$SS_BIN" dump stamps | awk '$1 == "apispan" {
		if ($5 != "name='"'"'glLinkProgram'"'"'" || $3 != "dur=0.002000000" || $4 == "tid=0") {
			print; bad++ } }
	END { exit bad > 0 }' || fail "stamps: an impossible API span is in the record"

hostile flood
over=$(ini flood/run.ini frames_over_rate)
expect_ge "flood: frames_over_rate" "$over" 1000
# 20000 a second, with one second's worth at once
awk -v f="$(ini flood/run.ini frames)" -v d="$(ini flood/run.ini duration_recorded_s)" \
	'BEGIN { exit !(f <= 20000 * (d + 1) + 100) }' ||
	fail "flood: $(ini flood/run.ini frames) frames in $(ini flood/run.ini duration_recorded_s) s"
grep -q 'presents over 20000 a second were not recorded' flood.err ||
	fail "flood: the end does not say presents were not recorded: $(cat flood.err)"
echo "flood: $(ini flood/run.ini frames) frames recorded, $over over the rate"

hostile tid
fp=$(ini tid/run.ini frame_pid)
[ "$fp" != "$FOREIGN" ] || fail "tid: the recorder sampled process $FOREIGN, not the run's"
kill -0 $FOREIGN 2>/dev/null || fail "tid: the recorder stopped process $FOREIGN, not the run's"
grep -q "^unreadable\.[0-9]*=frames: thread $FOREIGN presented but belongs to process \
$FOREIGN, which is not one of the run's" tid/run.ini || fail "tid: run.ini does not say why"
! "$SS_BIN" dump tid | grep -q "frame_process.*pid=$FOREIGN " ||
	fail "tid: a frame_process event names $FOREIGN"
echo "ok: every attack on the ring ended on time with a finished run"
