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

python3 - "$TMP/frames" "$csv" <<'PY' || fail "frame counts of MangoHud and the ring differ"
import csv, sys
stamps = [int(l.split()[0]) for l in open(sys.argv[1])]
rows = list(csv.reader(open(sys.argv[2])))
hdr = rows[2]
ft = [float(r[hdr.index("frametime")]) for r in rows[3:]]     # us
el = [int(r[hdr.index("elapsed")]) for r in rows[3:]]         # ns, own origin
if len(ft) < 50 or len(stamps) < 50:
    sys.exit("too few frames: MangoHud %d, ring %d" % (len(ft), len(stamps)))
# Our frame times; row i's frame time is the gap before its frame, so row i
# (i >= 1) matches our gap j+i-1 for the right start j.
d = [(stamps[k + 1] - stamps[k]) / 1000 for k in range(len(stamps) - 1)]
K = min(300, len(ft) - 1)
best = min(range(0, len(d) - K), key=lambda j: sum(abs(ft[i] - d[j + i - 1]) for i in range(1, K + 1)))
start = stamps[best]
span = el[-1] - el[0]
# MangoHud stamps a frame a moment after our hook does. When the program is
# preempted between the two (a loaded machine), that moment is long: at the
# first row it would shorten the window, so the offset taken is the median of
# the first 50 rows'; at the last row it cannot be told from a lost frame, so
# our frames within 20 ms of the window's end may fall either way.
n0 = min(50, len(el), len(stamps) - best)
off = sorted((el[i] - el[0]) - (stamps[best + i] - start) for i in range(n0))[n0 // 2]
end = start + span - off + 500000
ours = sum(1 for s in stamps if start <= s <= end)
edge = sum(1 for s in stamps if end - 20000000 <= s <= end + 20000000)
print("MangoHud %d frames over %.3f s, ring %d (aligned at our frame %d, offset %.3f ms, %d at the end's edge)"
      % (len(ft), span / 1e9, ours, best, off / 1e6, edge))
sys.exit(0 if abs(ours - len(ft)) <= len(ft) / 100 + edge else 1)
PY
