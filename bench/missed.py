#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/missed.py: were a record's missed samples the host's? (issue 31)

Usage: python3 bench/missed.py [--bin STALLSCOPE] RUN

A missed sample is a period the recorder woke a whole period or more
late for (run.ini's recorder_missed). With --rt the recorder is the first
thing its CPU runs when its timer fires, so on a virtual machine a wake-up
that late is mostly the host not running the vCPU: steal time. The record
holds the system's steal (sys.steal_ns, /proc/stat, read at slow samples,
in ticks). This prints each gap between samples longer than 1.5 periods,
how many periods it missed, and whether steal moved by a tick or more in
the window around it (from the slow sample before it to ten samples after
it, where a slow sample surely fell); and, for comparison, how often steal
moved that much in every other window of the same length: gaps that are
the host's are far more often beside steal than the run as a whole.
"""
import os
import subprocess
import sys


def main():
    args = sys.argv[1:]
    ss = os.environ.get("SS_BIN", "stallscope")
    if len(args) >= 2 and args[0] == "--bin":
        ss, args = args[1], args[2:]
    if len(args) != 1:
        sys.exit("usage: missed.py [--bin STALLSCOPE] RUN")
    p = subprocess.run([ss, "dump", args[0]], stdout=subprocess.PIPE, text=True)
    if p.returncode != 0:
        sys.exit("missed.py: dump of '%s' failed" % args[0])
    ts, steal = [], []
    cur = None
    for line in p.stdout.splitlines():
        if not line.startswith("sample "):
            continue
        parts = line.split()
        t = float(parts[1][2:])
        for f in parts[2:]:
            if f.startswith("sys.steal_ns="):
                cur = int(f.split("=", 1)[1])
        ts.append(t)
        steal.append(cur)
    if len(ts) < 100 or steal[-1] is None:
        print("missed: - (%d samples, steal %s: too few to say)" %
              (len(ts), "not recorded" if steal and steal[-1] is None else "?"))
        return
    gaps = sorted(b - a for a, b in zip(ts, ts[1:]))
    period = gaps[len(gaps) // 2]
    tick = 10e6 if period < 0.05 else period * 1e9
    after = 11  # samples after a gap within which a slow sample fell

    def stolen(i, j):
        a, b = steal[i], steal[min(j, len(steal) - 1)]
        return a is not None and b is not None and b - a >= tick

    missed = host = host_missed = 0
    ngaps = 0
    worst = []
    for i in range(len(ts) - 1):
        g = ts[i + 1] - ts[i]
        # the recorder counts whole periods of lateness: a sample that
        # woke 1.5 periods late is one missed, 0.9 late none
        n = int((g + 0.0005) / period) - 1
        if n < 1:
            continue
        ngaps += 1
        missed += n
        s = stolen(i, i + 1 + after)
        host += s
        host_missed += n if s else 0
        worst.append((g, ts[i], s))
    base = [stolen(k, k + 1 + after) for k in range(0, len(ts) - after - 1, after)]
    frac = sum(base) / len(base) if base else 0.0
    print("samples %d, period %.1f ms; gaps %d missing %d periods (run.ini's "
          "recorder_missed counts from each wake-up's deadline, these from the samples' "
          "times)" % (len(ts), period * 1e3, ngaps, missed))
    if ngaps:
        print("  beside host steal (a tick or more within %d samples): %d of %d gaps "
              "(%.0f %%), %d of %d missed periods" %
              (after + 1, host, ngaps, 100.0 * host / ngaps, host_missed, missed))
    print("  every window of %d samples beside steal: %.1f %% (%d windows)" %
          (after + 1, 100.0 * frac, len(base)))
    for g, t, s in sorted(worst, reverse=True)[:5]:
        print("  longest: %.1f ms at t=%.3f%s" % (g * 1e3, t, ", steal beside it" if s else ""))


if __name__ == "__main__":
    main()
