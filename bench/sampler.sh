#!/bin/bash
# SPDX-License-Identifier: MIT
#
# bench/sampler.sh [BUILD]: what one sample of src/linux/sampler costs, side by
# side with a naive sampler (fopen, fread, fclose of the same files every
# period, and no gating), on a live target. Three cases, N samples each at
# 10 ms (SS_BENCH_SAMPLER_N, default 1000 = 10 s):
#
#   idle      a 60 fps frame loop and 8 idle threads
#   busy8     the same with 8 spinning threads (on a 2-core box: contended)
#   pressure  idle, plus a process pushing a file's pages out and back in,
#             so that the vm counters move and the vmstat gate is tested
#
# Prints, per case, median/p99/mean us per sample of the gated sampler (what
# the recorder uses), the kept-open one without gating and the naive one,
# over the samples each took first after the wake-up (as the recorder does;
# the median over all samples, warmed by the sampler before, beside it), the
# ratios of medians, the cost of each source (us per read, reads per
# sample), the wchan and syscall gate checks and the vmstat gate replay
# (samples whose vm.* values the gate left late). Goals: <= 10 us per sample
# median, ratio <= 0.05.
set -u
cd "$(dirname "$0")/.."
BUILD=${1:-${SS_BUILD:-build}}
BIN=$BUILD/bench/sampler-bench
N=${SS_BENCH_SAMPLER_N:-1000}
[ -x "$BIN" ] || { echo "skip: build first ($BIN)"; exit 77; }

for c in idle busy8 pressure; do
	case $c in
	idle) args="--threads 8" ;;
	busy8) args="--threads 0 --busy 8" ;;
	pressure) args="--threads 8 --pressure" ;;
	esac
	echo "== sampler: $c"
	"$BIN" --samples "$N" $args || exit 1
done
