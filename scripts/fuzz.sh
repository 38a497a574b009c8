#!/bin/sh
# SPDX-License-Identifier: MIT
#
# fuzz.sh [build|run] [RUNS]: builds every libFuzzer target fuzz/fuzz-<name>.c
# (or those named in $FUZZ_TARGETS, e.g. "fuzz-rec fuzz-rec-roundtrip")
# with clang into $FUZZ_OUT (default build-fuzz/), instrumented by
# $FUZZ_FLAGS (default -fsanitize=fuzzer,address,undefined; fuzz-long.sh
# builds a coverage copy with its own), then, unless "build", runs each for
# RUNS inputs (default 100000) from its seed corpus fuzz/corpus/<name>/ (and
# the directories its "fuzz-seeds:" line names), copied to a scratch
# directory so that the committed corpus stays as it is.
#
# A target's header says, one line each:
#   fuzz-sources: the sources it is built from (globs, from the top)
#   fuzz-libs:    libraries it links (optional)
#   fuzz-seeds:   more seed directories (optional)
#   fuzz-reader:  the reader's own sources, whose lines fuzz-long.sh
#                 measures the coverage of (default: fuzz-sources)
#   fuzz-dict:    a libFuzzer dictionary of the format's words (optional,
#                 -dict=)
# Exits 77 when clang or libFuzzer is missing (scripts/deps.sh test installs
# them), 1 when a target fails to build or finds a crash (the crashing input
# is kept in $FUZZ_OUT).
set -eu
cd "$(dirname "$0")/.."
what=${1:-run}
runs=${2:-100000}
out=${FUZZ_OUT:-build-fuzz}
cc=${FUZZ_CC:-clang}
flags=${FUZZ_FLAGS:--fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined}
mkdir -p "$out"

if ! command -v "$cc" >/dev/null 2>&1; then
	echo "fuzz.sh: '$cc' not found; install clang (scripts/deps.sh test)" >&2
	exit 77
fi
probe="$out/probe.c"
printf '#include <stddef.h>\n#include <stdint.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }\n' >"$probe"
if ! "$cc" -fsanitize=fuzzer "$probe" -o "$out/probe" 2>/dev/null; then
	echo "fuzz.sh: '$cc' cannot link libFuzzer; install libclang-rt-14-dev (scripts/deps.sh test)" >&2
	exit 77
fi

status=0
targets=
for n in ${FUZZ_TARGETS:-}; do targets="$targets fuzz/$n.c"; done
for t in ${targets:-fuzz/fuzz-*.c}; do
	[ -f "$t" ] || continue
	name=$(basename "$t" .c)
	srcs=$(sed -n 's/^ \* fuzz-sources: //p' "$t")
	libs=$(sed -n 's/^ \* fuzz-libs: //p' "$t")
	echo "fuzz.sh: building $name" >&2
	# shellcheck disable=SC2086
	if ! "$cc" -g -O1 -std=gnu11 -D_GNU_SOURCE -Isrc -Iinclude $flags \
		"$t" $srcs -lpthread -lm $libs -o "$out/$name"; then
		echo "fuzz.sh: $name does not build" >&2
		status=1
		continue
	fi
	[ "$what" = build ] && continue
	corpus="$out/$name-corpus"
	rm -rf "$corpus"
	mkdir -p "$corpus"
	for seeds in "fuzz/corpus/${name#fuzz-}" $(sed -n 's/^ \* fuzz-seeds: //p' "$t"); do
		[ -d "$seeds" ] && cp "$seeds"/* "$corpus"/ 2>/dev/null || true
	done
	dict=$(sed -n 's/^ \* fuzz-dict: //p' "$t")
	[ -z "$dict" ] || dict="-dict=$PWD/$dict"
	echo "fuzz.sh: running $name for $runs inputs" >&2
	# shellcheck disable=SC2086
	if ! (cd "$out" && ASAN_OPTIONS=detect_leaks=1 "./$name" -runs="$runs" $dict \
		-max_len=65536 -rss_limit_mb=2048 -print_final_stats=1 "$name-corpus" 2>"$name.log"); then
		echo "fuzz.sh: $name failed; see $out/$name.log and the crash-* file there" >&2
		tail -n 30 "$out/$name.log" >&2
		status=1
	else
		grep -E 'stat::number_of_executed_units|Done' "$out/$name.log" >&2 || true
	fi
done
exit $status
