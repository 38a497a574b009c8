#!/bin/sh
# SPDX-License-Identifier: MIT
#
# bench/export.sh BUILD: what `export --perfetto` costs on a one-hour run at
# 144 fps (518,400 frames, 360,000 samples: bench/rec-bench.c's synthetic
# program with its frames at 144 fps on average, a 150 ms stall every 10 s
# included, +- 1.2 %),
# for both of its profiles: "steady" (a handful of fields move each sample)
# and "busy" (the frame thread's state, wchan and syscall churn every
# sample, PSI moves half the time: the worst case for the state and counter
# tracks). Export time (median of RUNS) and peak RSS, the trace's size raw
# and with -z. Goals (issue 17): <= 2 s, <= 50 MB raw, <= 10 MB compressed.
set -eu
build=${1:-build}
bin=$build/stallscope
runs=${RUNS:-3}
src=$(cd "$(dirname "$0")/.." && pwd)
if [ ! -x /usr/bin/time ]; then
	echo "bench/export: needs GNU time (/usr/bin/time)" >&2
	exit 77
fi
for lib in "$build/libss_rec.a" "$build/libss_core.a"; do
	[ -f "$lib" ] || { echo "bench/export: '$lib' is missing; run 'make build'" >&2; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
${CC:-cc} -O2 -std=gnu11 -D_GNU_SOURCE -I"$src/src" -I"$src/include" "$src/bench/rec-bench.c" \
	"$build/libss_rec.a" "$build/libss_core.a" -lpthread -o "$tmp/rec-bench"
for profile in steady busy; do
	run=$tmp/$profile
	mkdir "$run"
	"$tmp/rec-bench" gen "$run/record.ssr" 360000 "$profile" 144 >/dev/null
	printf 'program=synthetic\nstate=done\nend=exit\nexit_status=0\n' >"$run/run.ini"
	for z in "" -z; do
		out=$tmp/trace$z
		for i in $(seq "$runs"); do
			/usr/bin/time -f "%e %M" -o "$tmp/t" "$bin" export --perfetto $z -o "$out" \
				--warmup 0 "$run" >/dev/null 2>"$tmp/err" ||
				{ echo "bench/export: export failed: $(cat "$tmp/err")" >&2; exit 1; }
			cat "$tmp/t"
		done >"$tmp/times"
		sort -n "$tmp/times" | awk -v p="$profile" -v z="${z:-raw}" -v size="$(stat -c %s "$out")" \
			-v rec="$(stat -c %s "$run/record.ssr")" '
			{ s[NR] = $1; m[NR] = $2 }
			END { k = int((NR + 1) / 2);
			      printf "export --perfetto %-3s of the %s hour (record %.1f MB): median %.2f s, peak RSS %.0f MB, trace %.1f MB (of %d runs)\n",
				     z, p, rec / 1e6, s[k], m[k] / 1024, size / 1e6, NR }'
	done
	grep -o "wrote.*" "$tmp/err" | sed "s/^/  $profile: /"
done
echo "goals: <= 2 s, <= 50 MB raw, <= 10 MB with -z"
