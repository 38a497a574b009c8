#!/bin/sh
# SPDX-License-Identifier: MIT
#
# bench/rec.sh BUILD: the record format's figures: bytes per sample of a
# synthetic one-hour record (360,000 samples at 10 ms, 67 fields) of a steady
# program and of a busy one, the writer's cost per sample, and the reader's
# time for the whole hour beside the bare cost of first-touching its sample
# matrix (the floor any reader of that matrix pays; on a VM it dominates).
# Builds bench/rec-bench.c against BUILD's static libraries.
set -eu
build=${1:-build}
src=$(cd "$(dirname "$0")/.." && pwd)
for lib in "$build/libss_rec.a" "$build/libss_core.a"; do
	if [ ! -f "$lib" ]; then
		echo "bench/rec.sh: '$lib' is missing; run 'make build' first" >&2
		exit 1
	fi
done
bin="$build/rec-bench"
${CC:-cc} -O2 -std=gnu11 -D_GNU_SOURCE -I"$src/src" -I"$src/include" "$src/bench/rec-bench.c" \
	"$build/libss_rec.a" "$build/libss_core.a" -lpthread -o "$bin"
echo "== rec: the record format (goal: <= 20 bytes/sample steady, read of one hour well under 1 s)"
"$bin" measure 360000 steady
"$bin" measure 360000 busy
