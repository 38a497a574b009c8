#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""report_numpy.py LOG: the window metrics of `stallscope report --warmup 0`
computed with numpy + pandas, the baseline bench/report.sh times report
against. A MangoHud CSV (frametime in ms, header on line 3) or one frame time
a line."""
import json
import sys

import numpy as np
import pandas as pd

path = sys.argv[1]
with open(path) as f:
    first = f.readline()
if first.startswith("os,"):
    ft = pd.read_csv(path, skiprows=2, usecols=["frametime"])["frametime"].to_numpy(float)
else:
    ft = pd.read_csv(path, header=None, comment="#", names=["ft"])["ft"].to_numpy(float)

stall = 100.0
n = len(ft)
sec = ft.sum() / 1000
st = ft > stall
p50, p95, p99, p999 = np.percentile(ft, [50, 95, 99, 99.9])  # R-7, numpy's default
w = max(1, int(np.rint(np.sqrt(ft.mean()) * 10)))
cs = np.concatenate(([0.0], np.cumsum(ft)))
idx = np.arange(n)
lo = np.maximum(0, idx - w + 1)
ma = (cs[idx + 1] - cs[lo]) / (idx + 1 - lo)
stut = ft > 2.5 * ma
low = ~stut & (1000 / ft < 25)
out = {
    "frames": n, "seconds": sec, "fps": n / sec,
    "smooth_fps": (~st).sum() / (ft[~st].sum() / 1000),
    "median_ms": p50, "p95_ms": p95, "p99_ms": p99, "p999_ms": p999,
    "low1": 1000 / p99, "low01": 1000 / p999,
    "stalls": int(st.sum()), "stall_s": ft[st].sum() / 1000, "longest_ms": ft.max(),
    "over_500ms": int((ft > 500).sum()), "over_1s": int((ft > 1000).sum()),
    "over_2s": int((ft > 2000).sum()),
    "stutter_pct": 100 * ft[stut].sum() / ft.sum(), "lowfps_pct": 100 * ft[low].sum() / ft.sum(),
}
json.dump({k: float(v) for k, v in out.items()}, sys.stdout, indent=1)
print()
