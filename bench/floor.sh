#!/bin/bash
# SPDX-License-Identifier: MIT
#
# bench/floor.sh [BUILD]: this machine's system-call floor, the cost under
# which no sample of the 10 ms recorder can go (issue 3's goal: <= 10 us a
# sample). On a live 60 fps target it times each source a sample reads
# (kept-open pread of task stat, schedstat, wchan, syscall, the root disk's
# stat, PSI memory; the target's CPU clock; /dev/zero and getppid() for the
# bare floor), warm (back to back) and cold (the first call after a 10 ms
# sleep, as the recorder makes it); then one sample's reads by pread, by one
# io_uring_enter and as bare getppid() calls, with wall and CPU time per
# sample. It ends with the first-call cost and how many reads the 10 us goal
# leaves room for here. N samples a row (SS_BENCH_FLOOR_N, default 300:
# about 40 s).
set -u
cd "$(dirname "$0")/.."
BUILD=${1:-${SS_BUILD:-build}}
BIN=$BUILD/bench/floor-bench
N=${SS_BENCH_FLOOR_N:-300}
[ -x "$BIN" ] || { echo "skip: build first ($BIN)"; exit 77; }

echo "== floor: load average $(cut -d' ' -f1-3 /proc/loadavg)"
"$BIN" --samples "$N" || exit 1
