#!/bin/bash
# SPDX-License-Identifier: MIT
#
# bench/html.sh [BUILD]: what `stallscope html` costs on a one-hour run at
# 144 fps (518,400 frames: a plain frame log, 6.94 ms frames with a
# normal jitter of 0.3 ms, which the compression cannot guess, and a 150 ms
# stall every 10 s): the time to write the page (median of 3), its size, and
# in headless Chromium (tests/e2e/lib/cdp.py) the time from navigation to
# the page drawn (window.ssReport.ready) and to redraw after a zoom (median
# of 5). Goals: written in <= 1 s, <= 3 MB, first render <= 1.5 s, zoom
# redraw <= 100 ms. A frame log has no samples: the hour's 360,000 samples
# add nothing to the page (no sample is drawn), only to the analysis.
set -u
cd "$(dirname "$0")/.."
BUILD=${1:-${SS_BUILD:-build}}
BIN=$BUILD/stallscope
[ -x "$BIN" ] || { echo "skip: build first ($BIN)"; exit 77; }
command -v chromium >/dev/null || { echo "skip: no chromium (scripts/deps.sh test)"; exit 77; }
T=$(mktemp -d /tmp/ss-bench-html.XXXXXX)
trap 'rm -rf "$T"' EXIT
python3 - "$T/hour.txt" <<'PY'
import random, sys
random.seed(1)
with open(sys.argv[1], "w") as f:
    for i in range(518400):
        ft = 150.0 if i % 1440 == 1439 else max(1.0, random.gauss(6.944, 0.3))
        f.write("%.3f\n" % ft)
PY
times=
for k in 1 2 3; do
	t0=$(date +%s%N)
	"$BIN" html -o "$T/hour.html" --warmup 0 "$T/hour.txt" 2>/dev/null || { echo "html failed"; exit 1; }
	t1=$(date +%s%N)
	times="$times $(( (t1 - t0) / 1000000 ))"
done
size=$(stat -c %s "$T/hour.html")
echo "html: one hour at 144 fps (518,400 frames): written in$(echo $times | tr ' ' '\n' | sort -n | sed -n 2p | sed 's/^/ /') ms (median of$times ms), $size bytes"
PYTHONPATH=tests/e2e/lib python3 - "$T/hour.html" <<'PY'
import statistics, sys, time, cdp
with cdp.Browser() as b:
    t0 = time.monotonic()
    p = b.page("file://" + sys.argv[1])
    p.wait("window.ssReport && window.ssReport.ready", 120)
    first = time.monotonic() - t0
    n = p.eval("ssReport.runs[0].nframes")
    zooms = []
    for k in range(5):
        zooms.append(p.eval("""(async () => { const u = ssReport.runs[0].plot, x = u.data[0];
            const a = x[0] + (x[x.length - 1] - x[0]) * %f, t0 = performance.now();
            u.setScale('x', {min: a, max: a + 600});
            await new Promise(ok => requestAnimationFrame(() => ok()));
            return performance.now() - t0; })()""" % (0.1 * k)))
    print("html: in chromium: %d frames drawn, first render %.0f ms (navigation to drawn), "
          "zoom redraw median %.1f ms (%s)" % (n, 1000 * first, statistics.median(zooms),
                                                " ".join("%.1f" % z for z in zooms)))
    print("html: goals: written <= 1000 ms, <= 3 MB, first render <= 1500 ms, zoom <= 100 ms")
    if p.errors:
        print("html: page errors: %s" % p.errors)
        sys.exit(1)
PY
