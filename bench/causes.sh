#!/bin/sh
# SPDX-License-Identifier: MIT
#
# bench/causes.sh BUILD: the cost of giving every sample its cause, on the
# synthetic busy hour of bench/rec-bench.c (360,000 samples, 67 fields),
# beside the cost of reading it. Goal: the causes a small fraction of the
# read (stalls and report pay both).
set -eu
build=${1:-build}
src=$(cd "$(dirname "$0")/.." && pwd)
for lib in "$build/libss_rec.a" "$build/libss_core.a"; do
	[ -f "$lib" ] || { echo "bench/causes.sh: '$lib' is missing; run 'make build' first" >&2; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
${CC:-cc} -O2 -std=gnu11 -D_GNU_SOURCE -I"$src/src" -I"$src/include" "$src/bench/rec-bench.c" \
	"$build/libss_rec.a" "$build/libss_core.a" -lpthread -o "$tmp/rec-bench"
${CC:-cc} -O2 -std=gnu11 -D_GNU_SOURCE -I"$src/src" -I"$src/include" "$src/bench/causes-bench.c" \
	"$build/libss_rec.a" "$build/libss_core.a" -lm -o "$tmp/causes-bench"
"$tmp/rec-bench" gen "$tmp/hour.ssr" 360000 busy
echo "== causes: every sample's cause on a busy hour (goal: well under the read)"
"$tmp/causes-bench" "$tmp/hour.ssr"
