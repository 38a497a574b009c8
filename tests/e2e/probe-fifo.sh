#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e live root
# The probe sees a CPU that cannot run its thread: while a probe at
# SCHED_FIFO 50 runs on CPUs 0 and 1, a SCHED_FIFO 99 busy loop holds CPU 1
# for 300 ms. The probe must report a wake-up late by >= 250 ms on CPU 1, and
# CPU 0 must not show the hog: nothing late by 250 ms, its worst under a
# fifth of CPU 1's. (Not "nothing late by 10 ms": on a shared VM the host
# alone makes 10-12 ms, a wall-clock figure no test should assert.)
#
# The hog can starve everything on CPU 1, so it is bounded three ways: it
# checks the time itself (bash's EPOCHREALTIME, no fork in the loop), a
# `timeout -s KILL` pinned to CPU 0 (which the hog never touches) kills it
# after 2 s, and RT throttling (sched_rt_runtime_us) leaves other tasks
# 50 ms of every second. Needs root (SCHED_FIFO 99) and CPUs 0 and 1.
set -u
# Debian's python3 (a pyenv shim earlier in PATH takes seconds to start)
PY=/usr/bin/python3
[ -x $PY ] || PY=python3
[ "$(id -u)" = 0 ] || { echo "skip: needs root for SCHED_FIFO"; exit 77; }
online=$(cat /sys/devices/system/cpu/online 2>/dev/null)
taskset -c 0,1 true 2>/dev/null || { echo "skip: needs CPUs 0 and 1 (online: $online)"; exit 77; }
chrt -f 99 true 2>/dev/null || { echo "skip: SCHED_FIFO refused here"; exit 77; }
for t in timeout taskset chrt $PY; do
	command -v $t >/dev/null || { echo "skip: needs $t"; exit 77; }
done
[ "${BASH_VERSINFO[0]}" -ge 5 ] || { echo "skip: needs bash 5 (EPOCHREALTIME)"; exit 77; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$SS_BIN" probe -t 3 -p 50 --cpus 0,1 --late-ms 10 --json >"$tmp/j" 2>"$tmp/err" &
probe=$!
sleep 1
# the hog: pinned first, then FIFO 99, then a 300 ms busy loop
taskset -c 0 timeout -s KILL 2 taskset -c 1 chrt -f 99 bash -c '
	end=$(( ${EPOCHREALTIME/./} + 300000 ))
	while (( ${EPOCHREALTIME/./} < end )); do :; done'
hog=$?
wait $probe
rc=$?
[ $hog = 0 ] || { echo "FAIL: the hog exited $hog"; exit 1; }
[ $rc = 0 ] || { echo "FAIL: probe exited $rc: $(cat "$tmp/err")"; exit 1; }
"$PY" - "$tmp/j" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
cpu = {c["cpu"]: c for c in d["cpus"]}
ok = True
for c in cpu.values():
    print("cpu %d: %s, %d wake-ups, max %.1f us, late: %s" % (c["cpu"], c["policy"], c["wakeups"],
          c["max_us"], [round(w["late_us"] / 1000, 1) for w in c["late"]]))
    if c["policy"] != "fifo":
        print("FAIL: cpu %d ran at %s, not SCHED_FIFO" % (c["cpu"], c["policy"])); ok = False
if not any(w["late_us"] >= 250000 for w in cpu[1]["late"]):
    print("FAIL: no wake-up on cpu 1 late by >= 250 ms"); ok = False
if any(w["late_us"] >= 250000 for w in cpu[0]["late"]) or \
   cpu[0]["max_us"] >= cpu[1]["max_us"] / 5:
    print("FAIL: cpu 0 shows the hog of cpu 1 (max %.1f us beside %.1f us)" %
          (cpu[0]["max_us"], cpu[1]["max_us"])); ok = False
sys.exit(0 if ok else 1)
PY
