#!/bin/sh
# SPDX-License-Identifier: MIT
#
# bench/analyse-hour.sh BUILD: analysing a one-hour record (the synthetic
# busy hour of bench/rec-bench.c: 360,000 samples, 67 fields, 216,000 frames,
# 10 MB) in time and peak RSS (GNU time), side by side: `report`, which
# streams the record (the causes need a few samples around each, so the
# reader keeps a ring of 1024), and `stalls`, which reads it by windows
# (each group of stalls' samples; it kept the whole 193 MB sample matrix
# before issue 31: bench/stalls-stream.sh has both). Goal (issue 13, item
# 17): report <= 64 MB; before streaming it took 225 MB. Medians of RUNS
# runs.
set -eu
build=${1:-build}
bin=$build/stallscope
runs=${RUNS:-3}
src=$(cd "$(dirname "$0")/.." && pwd)
if [ ! -x /usr/bin/time ]; then
	echo "bench/analyse-hour: needs GNU time (/usr/bin/time)" >&2
	exit 77
fi
for lib in "$build/libss_rec.a" "$build/libss_core.a"; do
	[ -f "$lib" ] || { echo "bench/analyse-hour: '$lib' is missing; run 'make build'" >&2; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
${CC:-cc} -O2 -std=gnu11 -D_GNU_SOURCE -I"$src/src" -I"$src/include" "$src/bench/rec-bench.c" \
	"$build/libss_rec.a" "$build/libss_core.a" -lpthread -o "$tmp/rec-bench"
mkdir "$tmp/run"
"$tmp/rec-bench" gen "$tmp/run/record.ssr" 360000 busy >/dev/null
printf 'program=synthetic\nstate=done\nend=exit\nexit_status=0\n' >"$tmp/run/run.ini"
echo "== analyse-hour: one hour, $(stat -c %s "$tmp/run/record.ssr") bytes (goal: report <= 64 MB)"
measure() {
	what=$1
	shift
	for i in $(seq "$runs"); do
		/usr/bin/time -f "%e %M" -o "$tmp/t" "$@" >/dev/null 2>&1
		cat "$tmp/t"
	done | sort -n | awk -v w="$what" '{ s[NR] = $1; m[NR] = $2 }
		END { k = int((NR + 1) / 2); printf "%-34s median %.2f s, peak RSS %.1f MB (of %d runs)\n", w, s[k], m[k] / 1024, NR }'
}
measure "report (streamed)" "$bin" report --warmup 0 "$tmp/run"
measure "stalls (by windows)" "$bin" stalls --warmup 0 "$tmp/run"
