#!/bin/sh
# SPDX-License-Identifier: MIT
#
# fuzz-long.sh: the fuzzing campaign (make fuzz-long). Every target
# fuzz/fuzz-<name>.c (or those in $FUZZ_TARGETS) is built under ASan and
# UBSan (scripts/fuzz.sh build) and run from its committed corpus
# (fuzz/corpus/<name>/ and its "fuzz-seeds:" directories) for $FUZZ_EXECS
# executions (default 10000000) or $FUZZ_SECONDS seconds (default 3600),
# whichever comes first, $FUZZ_JOBS targets at a time (default 1), with the
# dictionary its "fuzz-dict:" line names. Then a
# coverage build of the same targets (-fprofile-instr-generate
# -fcoverage-mapping) replays the committed corpus, and then the corpus the
# campaign grew, and llvm-cov counts the lines of the reader's own sources
# (the target's "fuzz-reader:" line; of their functions that match its
# "fuzz-functions:" ERE, when a file also holds what is not the reader's,
# a writer) that they reach.
#
# Prints a line per target: executions, findings (crash-, leak-, timeout-,
# oom- files, kept in $FUZZ_OUT/long/<name>/), and the reader's line
# coverage by the committed corpus and by the grown one. The grown corpus
# stays in $FUZZ_OUT/long/<name>/corpus; `FUZZ_MERGE=1` minimizes it into
# fuzz/corpus/<name>/ (libFuzzer -merge=1: only inputs that add coverage).
#
# Exits 1 when a target found something or does not build, 77 when clang,
# libFuzzer or llvm-cov/llvm-profdata are missing.
set -eu
cd "$(dirname "$0")/.."
out=${FUZZ_OUT:-build-fuzz}
execs=${FUZZ_EXECS:-10000000}
secs=${FUZZ_SECONDS:-3600}
jobs=${FUZZ_JOBS:-1}
profdata=${LLVM_PROFDATA:-llvm-profdata}
llvmcov=${LLVM_COV:-llvm-cov}
for t in "$profdata" "$llvmcov"; do
	if ! command -v "$t" >/dev/null 2>&1; then
		echo "fuzz-long.sh: '$t' not found; install llvm (scripts/deps.sh test)" >&2
		exit 77
	fi
done
targets=
for n in ${FUZZ_TARGETS:-}; do targets="$targets fuzz/$n.c"; done
[ -n "$targets" ] || targets=$(ls fuzz/fuzz-*.c)

sh scripts/fuzz.sh build || exit $?
FUZZ_OUT="$out/cov" FUZZ_FLAGS="-fsanitize=fuzzer -fprofile-instr-generate -fcoverage-mapping" \
	sh scripts/fuzz.sh build || exit $?

seeds_of() {	# the seed directories of target file $1
	echo "fuzz/corpus/$(basename "$1" .c | sed 's/^fuzz-//')"
	sed -n 's/^ \* fuzz-seeds: //p' "$1"
}

campaign() {	# runs target file $1 into $out/long/<name>/
	name=$(basename "$1" .c)
	dir="$out/long/$name"
	rm -rf "$dir"
	mkdir -p "$dir/corpus"
	for s in $(seeds_of "$1"); do
		[ -d "$s" ] && cp "$s"/* "$dir/corpus/" 2>/dev/null || true
	done
	dict=$(sed -n 's/^ \* fuzz-dict: //p' "$1")
	[ -z "$dict" ] || dict="-dict=$dict"
	# shellcheck disable=SC2086
	ASAN_OPTIONS=detect_leaks=1 "$out/$name" -runs="$execs" -max_total_time="$secs" $dict \
		-max_len=65536 -rss_limit_mb=2048 -timeout=25 -print_final_stats=1 \
		-artifact_prefix="$dir/" "$dir/corpus" >"$dir/log" 2>&1 || true
}

echo "fuzz-long.sh: $execs executions or $secs s a target, $jobs at a time" >&2
running=0
for t in $targets; do
	echo "fuzz-long.sh: fuzzing $(basename "$t" .c)" >&2
	campaign "$t" &
	running=$((running + 1))
	if [ "$running" -ge "$jobs" ]; then
		wait
		running=0
	fi
done
wait

# the lines of the reader's sources a corpus reaches: "covered/total pct"
coverage() {	# target file, corpus directories...
	t=$1
	shift
	name=$(basename "$t" .c)
	reader=$(sed -n 's/^ \* fuzz-reader: //p' "$t")
	[ -n "$reader" ] || reader=$(sed -n 's/^ \* fuzz-sources: //p' "$t")
	prof="$out/cov/$name.prof"
	rm -rf "$prof"
	mkdir -p "$prof"
	LLVM_PROFILE_FILE="$prof/%p.profraw" "$out/cov/$name" -runs=0 -max_len=65536 \
		-rss_limit_mb=2048 -artifact_prefix="$prof/" "$@" >"$prof/log" 2>&1 || true
	ls "$prof"/*.profraw >/dev/null 2>&1 || { echo "-"; return; }
	"$profdata" merge -sparse -o "$prof/all.profdata" "$prof"/*.profraw
	funcs=$(sed -n 's/^ \* fuzz-functions: //p' "$t")
	if [ -n "$funcs" ]; then	# only the functions that read, of files that also write
		# shellcheck disable=SC2086
		"$llvmcov" report "$out/cov/$name" -instr-profile="$prof/all.profdata" \
			-show-functions $reader |
			awk -v re="$funcs" '$1 ~ re { n += $5; miss += $6 }
				END { if (n) printf "%d/%d %.2f%%\n", n - miss, n, 100 * (n - miss) / n; else print "-" }'
	else
		# shellcheck disable=SC2086
		"$llvmcov" report "$out/cov/$name" -instr-profile="$prof/all.profdata" $reader |
			awk '$1 == "TOTAL" { printf "%d/%d %s\n", $8 - $9, $8, $10 }'
	fi
}

status=0
printf '%-20s %12s %9s %22s %22s\n' target executions findings "lines (committed)" "lines (grown)"
for t in $targets; do
	name=$(basename "$t" .c)
	dir="$out/long/$name"
	n=$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/log" | tail -n 1)
	found=$(find "$dir" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'leak-*' -o \
		-name 'timeout-*' -o -name 'oom-*' \) | wc -l)
	if [ -z "$n" ]; then	# a finding ends the run before its final stats
		n=$(grep -o '^#[0-9]*' "$dir/log" | tail -n 1 | tr -d '#')
		[ "$found" -gt 0 ] || found="?"
	fi
	committed=
	for s in $(seeds_of "$t"); do [ -d "$s" ] && committed="$committed $s"; done
	# shellcheck disable=SC2086
	c1=$(coverage "$t" $committed)
	c2=$(coverage "$t" "$dir/corpus")
	printf '%-20s %12s %9s %22s %22s\n' "$name" "${n:--}" "$found" "$c1" "$c2"
	if [ "$found" != 0 ]; then
		status=1
		find "$dir" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'leak-*' -o \
			-name 'timeout-*' -o -name 'oom-*' \) -exec echo "  finding: {}" \;
		grep -m 3 -E 'ERROR|runtime error|SUMMARY' "$dir/log" | sed 's/^/  /'
	fi
	if [ "${FUZZ_MERGE:-0}" = 1 ] && [ "$found" = 0 ]; then
		# into a copy of the seeds, so that what is new is what adds coverage
		rm -rf "$dir/merged"
		mkdir -p "$dir/merged" "fuzz/corpus/${name#fuzz-}"
		for s in $committed; do cp "$s"/* "$dir/merged/" 2>/dev/null || true; done
		ls "$dir/merged" >"$dir/before"
		"$out/$name" -merge=1 -max_len=65536 "$dir/merged" "$dir/corpus" \
			>"$dir/merge.log" 2>&1 || echo "fuzz-long.sh: $name: merge failed" >&2
		for f in "$dir/merged"/*; do
			grep -qxF "$(basename "$f")" "$dir/before" && continue
			cp "$f" "fuzz/corpus/${name#fuzz-}/"
			echo "  added fuzz/corpus/${name#fuzz-}/$(basename "$f")" >&2
		done
	fi
done
exit $status
