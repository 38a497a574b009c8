#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e live
# A program that marks its frames with stallscope_frame() from a thread
# named "render", recorded to its end: the record holds exactly the frames it
# marked (the count it prints), a frame_thread event names the render
# thread, run.ini has its keys, program.log its output, and nothing is left
# in /dev/shm.
. "$SS_SRC/tests/e2e/lib/record.sh"

"$SS_BIN" record -q -o run --frames marker -- "$MARKERS" --fps 200 --frames 240 \
	--render-thread --idle 1 &
recorder=$!
wait $recorder || fail "record failed"
# program.log: the program's output, each line stamped with seconds since t0
grep -Eq '^\[[0-9]+\.[0-9]{3}\] ss-markers: frames=240 pushed=240$' run/program.log ||
	fail "program.log: $(cat run/program.log)"
expect_eq frames "$(dump_count frame run)" 240
expect_eq "run.ini frames" "$(ini run/run.ini frames)" 240
expect_eq exit_status "$(ini run/run.ini exit_status)" 0
expect_eq end "$(ini run/run.ini end)" exit
expect_eq state "$(ini run/run.ini state)" done
for k in program argv pid t0 clock_mono_ns clock_real_ns kernel cpus hz period_ms \
	frame_source recorder_samples recorder_missed recorder_cpu_s recorder_us_per_sample \
	recorder_cpu_pct recorder_late_p99_ms recorder_late_max_ms recorder_bytes_per_sample; do
	grep -q "^$k=" run/run.ini || fail "run.ini has no $k"
done
expect_eq program "$(ini run/run.ini program)" ss-markers
grep -Eq '^t0=[0-9]+\.[0-9]{6}$' run/run.ini || fail "t0 is not seconds.microseconds"
expect_ge samples "$(ini run/run.ini recorder_samples)" 10
ft=$(ini run/run.ini frame_thread)
pid=$(ini run/run.ini pid)
[ "$ft" != "$pid" ] || fail "frame thread is still the main thread ($ft)"
"$SS_BIN" dump run | grep -q "frame_thread.*tid=$ft name=render" ||
	fail "no frame_thread event for tid $ft"
# after the switch the main thread is sampled beside it, as ft2
"$SS_BIN" dump run | grep -q "ft.tid=$ft .*ft2.tid=$pid " || fail "no sample with ft=$ft and ft2=$pid"
rec=$(ini run/run.ini record_tmp)
[ -z "$rec" ] || fail "record_tmp left in the final run.ini: $rec"
ls /dev/shm | grep "^stallscope-$recorder-" && fail "left in /dev/shm (ring, record or log)"
[ -f run/record.ssr ] || fail "no record.ssr"
if "$SS_BIN" 2>&1 | grep -q '^  report '; then
	# report reads the frames from the record: 240 presents make 239 frames
	"$SS_BIN" report --warmup 0 --json run > report.json || fail "report failed"
	grep -q '"frames": 239,' report.json || fail "report: $(grep '"frames"' report.json)"
	grep -q '"us_per_sample": [0-9]' report.json || fail "report --json has no recorder figures"
fi
echo "ok: 240 frames from the marker ring, frame thread $ft"
