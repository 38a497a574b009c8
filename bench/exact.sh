#!/bin/bash
# SPDX-License-Identifier: MIT
#
# bench/exact.sh [BUILD]: what exact mode's BPF program costs the kernel
# (bench/exact-bench.c): a pipe ping-pong, every operation a context
# switch, timed with no program loaded, with it loaded and its targets
# other (sleeping) threads, and with the ping-pong's own threads as its
# targets, interleaved round by round (SS_BENCH_EXACT_TRIPS round trips a
# round, default 50000; SS_BENCH_EXACT_ROUNDS rounds, default 9); then the
# programs' ns per run from kernel.bpf_stats_enabled. Goals: <= x1.05 when
# the switching threads are not targets, <= x1.10 when they are. Needs root
# (skips otherwise). The per-sample cost of exact mode beside the snapshot
# and naive samplers is bench/sampler.sh's and bench/record.sh's.
set -u
cd "$(dirname "$0")/.."
BUILD=${1:-${SS_BUILD:-build}}
BIN=$BUILD/bench/exact-bench
[ -x "$BIN" ] || { echo "skip: build first ($BIN)"; exit 77; }
[ "$(id -u)" = 0 ] || { echo "skip: not root (exact mode loads BPF)"; exit 77; }
"$BIN" --trips "${SS_BENCH_EXACT_TRIPS:-50000}" --rounds "${SS_BENCH_EXACT_ROUNDS:-9}"
