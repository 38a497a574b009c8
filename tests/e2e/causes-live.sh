#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e live
# The cause rules on live stalls: `stallscope record` records the fake game
# stalling its frame thread 300 ms in each way that needs no root and no
# disk (cpu, runq, a futex wait, a sleep); `stalls` must give each stall its
# cause for >= 95 % of its seconds. pread64 of a file on a disk and major
# faults on a mapped file are causes-live-disk.sh's, which skips (77) where
# no directory is on a disk. Thousands of 4 KiB O_DIRECT preads are exact mode's to judge
# (exact-causes.sh): by samples their split depends on how many of the
# storm's short waits the sampler catches in D (docs/CAUSES.md, rule 5). The root-only ways are in causes-live-root.sh. The snapshot rules
# (--no-exact); exact-causes.sh records the same stalls in exact mode.
. "$SS_SRC/tests/e2e/lib/causes-live.sh"
RECORD_ARGS=--no-exact
# shellcheck disable=SC2086
record_and_check 4.0 cpu:cpu:cpu runq:runq:runq wait:wait:wait_futex sleep:wait:wait_sleep
