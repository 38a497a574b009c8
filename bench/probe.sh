#!/bin/bash
# SPDX-License-Identifier: MIT
#
# bench/probe.sh: `stallscope probe` against Debian's cyclictest (rt-tests)
# with the same interval, priority, duration and CPUs: one after the other,
# then both at the same time (once in each starting order). Prints both tools' p50 and max lateness per CPU
# and both CPU costs (user + system from wait4's rusage of each process).
# cyclictest runs with --laptop so that it leaves /dev/cpu_dma_latency alone
# as the probe does (deep C-states are part of what the probe looks at) and
# -d 0 so all its threads share one interval, as the probe's do.
#
# Goals (docs/PROBE.md): p50 within 20 % of cyclictest's, CPU cost <= its.
# Settings: BENCH_PROBE_S (seconds per run, default 10), BENCH_PROBE_CPUS
# (default 0,1), BENCH_PROBE_US (interval, default 1370), BENCH_PROBE_PRIO (50).
set -u
# Debian's python3 (a pyenv shim earlier in PATH takes seconds to start)
PY=/usr/bin/python3
[ -x $PY ] || PY=python3
[ "$(id -u)" = 0 ] || { echo "skip: needs root (SCHED_FIFO for both tools)"; exit 77; }
command -v cyclictest >/dev/null || { echo "skip: cyclictest not installed (rt-tests)"; exit 77; }
# SS_BIN from scripts/bench.sh, or the build directory as $1
[ -n "${SS_BIN:-}" ] || SS_BIN=${1:-build}/stallscope
export SS_BIN BENCH_PROBE_S=${BENCH_PROBE_S:-10} BENCH_PROBE_CPUS=${BENCH_PROBE_CPUS:-0,1}
export BENCH_PROBE_US=${BENCH_PROBE_US:-1370} BENCH_PROBE_PRIO=${BENCH_PROBE_PRIO:-50}
exec "$PY" - <<'PY'
import json, os, subprocess, sys, tempfile

S = int(os.environ["BENCH_PROBE_S"])
CPUS = os.environ["BENCH_PROBE_CPUS"]
US = int(os.environ["BENCH_PROBE_US"])
PRIO = int(os.environ["BENCH_PROBE_PRIO"])
ncpu = len(CPUS.split(","))
tmp = tempfile.mkdtemp()

def start(tool, tag):
    out = os.path.join(tmp, "%s-%s.json" % (tool, tag))
    if tool == "stallscope":
        cmd = [os.environ["SS_BIN"], "probe", "-t", str(S), "-i", "%.3f" % (US / 1000),
               "-p", str(PRIO), "--cpus", CPUS, "--json"]
        p = subprocess.Popen(cmd, stdout=open(out, "w"), stderr=subprocess.PIPE)
    else:
        cmd = ["cyclictest", "-m", "-q", "--laptop", "-p", str(PRIO), "-i", str(US), "-d", "0",
               "-D", str(S), "-a", CPUS, "-t", str(ncpu), "-h", "100000", "--json=" + out]
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    return tool, p, out

def finish(run):
    tool, p, out = run
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        sys.exit("%s failed (%d): %s" % (tool, p.returncode, p.stderr.read().decode()))
    cpu_ms = (ru.ru_utime + ru.ru_stime) * 1000
    split[(tool, out)] = (ru.ru_utime * 1000, ru.ru_stime * 1000, ru.ru_nvcsw, ru.ru_nivcsw)
    d = json.load(open(out))
    rows = {}
    if tool == "stallscope":
        for c in d["cpus"]:
            rows[c["cpu"]] = (c["p50_us"], c["max_us"], c["wakeups"])
    else:
        for t in d["thread"].values():
            h = sorted((int(k), v) for k, v in t["histogram"].items())
            n, seen, p50 = t["cycles"], 0, None
            for us, cnt in h:
                seen += cnt
                if seen >= (n + 1) // 2:
                    p50 = us
                    break
            rows[t["cpu"]] = (p50, t["max"], n)
    return tool, rows, cpu_ms

results = {}
split = {}
for tool in ("stallscope", "cyclictest"):
    results[("sequential", tool)] = finish(start(tool, "seq"))
# at the same time, each order once: without IRQ time accounting a timer
# interrupt is charged to whichever task runs, so the tool whose deadline
# comes first in a period pays for the other's interrupt; two orders even it
a = start("stallscope", "con1")
b = start("cyclictest", "con1")
results[("concurrent1", "stallscope")] = finish(a)
results[("concurrent1", "cyclictest")] = finish(b)
b = start("cyclictest", "con2")
a = start("stallscope", "con2")
results[("concurrent2", "cyclictest")] = finish(b)
results[("concurrent2", "stallscope")] = finish(a)

print("probe vs cyclictest: %d s each, interval %d us, SCHED_FIFO %d, cpus %s" % (S, US, PRIO, CPUS))
print("%-12s %-11s %4s %9s %8s %9s %8s %7s" % ("run", "tool", "cpu", "wakeups", "p50_us", "max_us", "cpu_ms", "cpu_%"))
for (run, tool), (_, rows, cpu_ms) in results.items():
    for cpu in sorted(rows):
        p50, mx, n = rows[cpu]
        print("%-12s %-11s %4d %9d %8.1f %9.1f %8.1f %7.3f" % (run, tool, cpu, n, p50, mx, cpu_ms, cpu_ms / 10 / S))
for run in ("sequential", "concurrent1", "concurrent2"):
    s, c = results[(run, "stallscope")], results[(run, "cyclictest")]
    ratios = ["cpu%d %.2f" % (cpu, s[1][cpu][0] / c[1][cpu][0]) for cpu in sorted(s[1]) if c[1].get(cpu, (0,))[0]]
    print("%s: p50 stallscope/cyclictest %s; cpu cost stallscope/cyclictest %.2f (%.1f / %.1f ms)" %
          (run, ", ".join(ratios), s[2] / c[2] if c[2] else float("nan"), s[2], c[2]))
for (tool, out), (u, st, vcs, ivcs) in split.items():
    print("  %-11s %-24s user %7.1f ms  sys %7.1f ms  csw %d/%d" % (tool, os.path.basename(out), u, st, vcs, ivcs))
s = sum(results[(r, "stallscope")][2] for r in ("concurrent1", "concurrent2"))
c = sum(results[(r, "cyclictest")][2] for r in ("concurrent1", "concurrent2"))
print("concurrent, both orders: cpu cost stallscope/cyclictest %.2f (%.1f / %.1f ms)" % (s / c, s, c))
PY
