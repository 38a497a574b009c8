# SPDX-License-Identifier: MIT
"""mh-compare.py STAMPS CSV PCT: our frames against MangoHud's per-frame log.

STAMPS holds our frame stamps (CLOCK_MONOTONIC ns, the first word of each
line: ss-ringcat's output, or `stallscope dump` frame lines reduced to
their t=); CSV is MangoHud's log (log_interval=0: one row per frame, its
frametime in us, elapsed in ns on its own origin). The two are aligned on
the pattern of the first 300 frame times, then our frames are counted over
the span of MangoHud's log. Passes (exit 0) when the counts, and so the
frame rates over the same seconds, agree within PCT percent (one frame
where that is less than one), with our frames within 20 ms of the span's
end allowed either way (preemption between the
two hooks' stamps can put such a frame on either side). Prints both.
"""
import csv
import sys

stamps = [int(float(l.split()[0])) for l in open(sys.argv[1]) if l.strip()]
rows = list(csv.reader(open(sys.argv[2])))
pct = float(sys.argv[3])
hdr = rows[2]
ft = [float(r[hdr.index("frametime")]) for r in rows[3:]]  # us
el = [int(r[hdr.index("elapsed")]) for r in rows[3:]]  # ns, own origin
if len(ft) < 20 or len(stamps) < 20:
    # exit 3: nothing to compare (a caller may leave such a run out, saying so)
    print("too few frames to compare: MangoHud %d, ours %d" % (len(ft), len(stamps)))
    sys.exit(3)
# Our frame times; row i's frame time is the gap before its frame, so row i
# (i >= 1) matches our gap j+i-1 for the right start j.
d = [(stamps[k + 1] - stamps[k]) / 1000 for k in range(len(stamps) - 1)]
K = min(300, len(ft) - 1, len(d) - 1)
best = min(range(0, max(1, len(d) - K)),
           key=lambda j: sum(abs(ft[i] - d[j + i - 1]) for i in range(1, K + 1)))
start = stamps[best]
span = el[-1] - el[0]
# MangoHud stamps a frame a moment after our hook does. When the program is
# preempted between the two (a loaded machine), that moment is long: at the
# first row it would shorten the window, so the offset taken is the median of
# the first 50 rows'.
n0 = min(50, len(el), len(stamps) - best)
off = sorted((el[i] - el[0]) - (stamps[best + i] - start) for i in range(n0))[n0 // 2]
end = start + span - off + 500000
ours = sum(1 for s in stamps if start <= s <= end)
edge = sum(1 for s in stamps if end - 20000000 <= s <= end + 20000000)
fps_mh = (len(ft) - 1) / (span / 1e9)
fps_us = (ours - 1) / (span / 1e9)
# A count is whole frames: where PCT percent of MangoHud's count is under one
# frame (a game at 5 fps logs 35 in its 7 s), "within PCT percent" is read
# as within one frame, and said.
tol = len(ft) * pct / 100
floor = tol < 1
print("MangoHud %d frames over %.3f s (%.2f fps), ours %d (%.2f fps; aligned at our frame %d, "
      "offset %.3f ms, %d at the end's edge%s)"
      % (len(ft), span / 1e9, fps_mh, ours, fps_us, best, off / 1e6, edge,
         "; %g %% of %d frames is under one: one frame allowed" % (pct, len(ft)) if floor else ""))
sys.exit(0 if abs(ours - len(ft)) <= max(tol, 1 if floor else 0) + edge else 1)
