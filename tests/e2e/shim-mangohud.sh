#!/bin/bash
# labels: e2e live
# The recorder's hook and MangoHud in one program: `mangohud glxgears`
# with MangoHud logging every frame for 3 s. Both hooks chain (ours is first
# in LD_PRELOAD, MangoHud's after it). Over the span of MangoHud's log,
# aligned on the frame times, the two frame counts agree within 1 %.
set -u
. "$(dirname "$0")/shim-common.inc"
need mangohud mangohud
need glxgears mesa-utils
need python3 python3

mkdir "$TMP/mh"
export MANGOHUD_CONFIG="output_folder=$TMP/mh,autostart_log=1,log_duration=3,log_interval=0"
ringcat -t 6 -- mangohud glxgears || { cat "$TMP/log"; fail "mangohud glxgears failed"; }
csv=$(ls "$TMP"/mh/*.csv 2>/dev/null | grep -v _summary | head -1)
[ -n "$csv" ] || { tail -20 "$TMP/log"; skip "MangoHud wrote no log"; }

python3 - "$TMP/frames" "$csv" <<'PY' || fail "frame counts of MangoHud and the ring differ"
import csv, sys
stamps = [int(l.split()[0]) for l in open(sys.argv[1])]
rows = list(csv.reader(open(sys.argv[2])))
hdr = rows[2]
ft = [float(r[hdr.index("frametime")]) for r in rows[3:]]     # us
el = [int(r[hdr.index("elapsed")]) for r in rows[3:]]         # ns, own origin
if len(ft) < 100 or len(stamps) < 100:
    sys.exit("too few frames: MangoHud %d, ring %d" % (len(ft), len(stamps)))
# Our frame times; row i's frame time is the gap before its frame, so row i
# (i >= 1) matches our gap j+i-1 for the right start j.
d = [(stamps[k + 1] - stamps[k]) / 1000 for k in range(len(stamps) - 1)]
K = min(300, len(ft) - 1)
best = min(range(0, len(d) - K), key=lambda j: sum(abs(ft[i] - d[j + i - 1]) for i in range(1, K + 1)))
start = stamps[best]
span = el[-1] - el[0]
ours = sum(1 for s in stamps if start <= s <= start + span + 500000)
print("MangoHud %d frames over %.3f s, ring %d (aligned at our frame %d)"
      % (len(ft), span / 1e9, ours, best))
sys.exit(0 if abs(ours - len(ft)) <= len(ft) / 100 else 1)
PY
