#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e live
# record -p PID --thread TID, and --thread NAME: the named thread (idle0 of
# ss-markers) becomes the frame thread, a frame_thread event names it, and
# the main thread is sampled beside it as ft2.
. "$SS_SRC/tests/e2e/lib/record.sh"

"$MARKERS" --fps 60 --seconds 8 --idle 1 > /dev/null &
pid=$!
KILL_ON_EXIT=$pid
tid=
for i in $(seq 100); do
	for t in /proc/$pid/task/*; do
		[ "$(cat "$t/comm" 2>/dev/null)" = idle0 ] && tid=${t##*/}
	done
	[ -n "$tid" ] && break
	sleep 0.05
done
[ -n "$tid" ] || fail "ss-markers has no idle0 thread"
for want in "$tid" idle0; do
	rm -rf run
	"$SS_BIN" record -q -o run -p "$pid" --thread "$want" --duration 1 --frames none ||
		fail "record --thread $want failed"
	expect_eq "frame_thread (--thread $want)" "$(ini run/run.ini frame_thread)" "$tid"
	expect_eq frame_thread_named "$(ini run/run.ini frame_thread_named)" "$want"
	"$SS_BIN" dump run > dump.txt || fail "dump failed"
	grep -q "kind='frame_thread' text='tid=$tid name=idle0'" dump.txt ||
		fail "--thread $want: no frame_thread event for $tid"
	grep -q "^sample .* ft.tid=$tid .* ft2.tid=$pid " dump.txt ||
		fail "--thread $want: no sample with ft=$tid and ft2=$pid"
done
echo "ok: --thread $tid and --thread idle0 sample idle0 as the frame thread"
