#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e live
# The recorder's hook and MangoHud in one program: `mangohud glxgears`
# with MangoHud logging every frame for 5 s (from its start-up; 30 s when
# the first frame came too late for that). Both hooks chain (ours is
# first in LD_PRELOAD, MangoHud's after it). Over the span of MangoHud's log,
# aligned on the frame times, the two frame counts agree within 1 % (and the
# frames within 20 ms of the span's end, which preemption between the two
# hooks' stamps can put either side of it).
set -u
. "$(dirname "$0")/shim-common.inc"
need mangohud mangohud
need glxgears mesa-utils
need python3 python3

# MangoHud's log starts at its start-up, not at the first frame: on a loaded
# machine glxgears may draw its first frame seconds later, leaving a 5 s log
# nearly empty. Then once more with a 30 s log; skip if that is short too.
for dur in 5 30; do
	rm -rf "$TMP/mh" && mkdir "$TMP/mh"
	export MANGOHUD_CONFIG="output_folder=$TMP/mh,autostart_log=1,log_duration=$dur,log_interval=0"
	# glxgears runs until MangoHud has written its log (the summary comes
	# last), 60 s at most beyond the log's duration
	ringcat -t $((dur + 90)) -- sh -c 'mangohud glxgears & p=$!
		for i in $(seq $((($2 + 60) * 10))); do ls "$1"/*_summary.csv >/dev/null 2>&1 && break; sleep 0.1; done
		sleep 0.2; kill $p; wait $p; exit 0' sh "$TMP/mh" $dur ||
		{ cat "$TMP/log"; fail "mangohud glxgears failed"; }
	csv=$(ls "$TMP"/mh/*.csv 2>/dev/null | grep -v _summary | head -1)
	[ -n "$csv" ] || { tail -20 "$TMP/log"; skip "MangoHud wrote no log"; }
	rows=$(($(wc -l <"$csv") - 3))
	[ $rows -ge 50 ] && break
	echo "MangoHud logged $rows frames in its ${dur} s log (a slow start)"
done
[ $rows -ge 50 ] || skip "MangoHud logged $rows frames in a 30 s log: the machine is too loaded to compare"

python3 "$SS_SRC/tests/e2e/lib/mh-compare.py" "$TMP/frames" "$csv" 1 ||
	fail "frame counts of MangoHud and the ring differ"
