#!/bin/sh
# SPDX-License-Identifier: MIT
#
# bench/stalls-stream.sh BUILD: the readers of a run's record in peak RSS
# and time (GNU time), issue 31: on a 10-minute exact record (rec-bench gen
# PROFILE exact: 60,000 samples at 10 ms, 60 fps, a 150 ms stall every
# 10 s, an exact interval a frame) and a synthetic 24-hour exact one
# (864,000 samples at 100 ms, 30 fps, 8,640 stalls). stalls and stalls
# --json by windows (docs/FORMAT.md, "stalls by windows") beside the whole
# record in memory (STALLSCOPE_WHOLE_RECORD=1: how stalls read before);
# report --threads streamed beside the same (its sums as the record
# streams: two reads), and report alone, whose analysis it adds to;
# export --perfetto streamed (the analysis by windows, then two reads
# whose tracks go to spills), dump --summary (counts as the record
# passes) and html (its page written as it is made, the stalls by
# windows), each beside the whole record. Goal: <= 24 MB and <= 1 s an
# hour of record. Medians of RUNS
# runs (1 for the day). SS_BENCH_DAY=0 leaves the day out.
set -eu
build=${1:-build}
bin=$build/stallscope
gen=$build/bench/rec-bench
runs=${RUNS:-3}
if [ ! -x /usr/bin/time ]; then
	echo "bench/stalls-stream: needs GNU time (/usr/bin/time)" >&2
	exit 77
fi
[ -x "$gen" ] || { echo "bench/stalls-stream: no '$gen'; run 'make build'" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/min10" "$tmp/day"
"$gen" gen "$tmp/min10/record.ssr" 60000 exact 60
printf 'program=synthetic\nstate=done\nt0_mono=4999.5\n' >"$tmp/min10/run.ini"
measure() {
	what=$1 n=$2
	shift 2
	for i in $(seq "$n"); do
		rm -f "$tmp/out.pftrace" "$tmp/out.html"
		/usr/bin/time -f "%e %M" -o "$tmp/t" "$@" >/dev/null 2>&1 || echo "failed" >"$tmp/t"
		cat "$tmp/t"
	done | sort -n | awk -v w="$what" '$1 == "failed" { f = 1 } { s[NR] = $1; m[NR] = $2 }
		END { k = int((NR + 1) / 2)
		      if (f) printf "%-44s failed (out of memory?)\n", w
		      else printf "%-44s %7.2f s  %7.1f MB\n", w, s[k], m[k] / 1024 }'
}
table() {
	run=$1 n=$2
	measure "stalls (by windows)" "$n" "$bin" stalls "$run"
	measure "stalls (whole record, before)" "$n" env STALLSCOPE_WHOLE_RECORD=1 "$bin" stalls "$run"
	measure "stalls --json (by windows)" "$n" "$bin" stalls --json "$run"
	measure "stalls --json (whole record, before)" "$n" env STALLSCOPE_WHOLE_RECORD=1 \
		"$bin" stalls --json "$run"
	measure "report --threads (streamed)" "$n" "$bin" report --threads "$run"
	measure "report --threads (whole record, before)" "$n" env STALLSCOPE_WHOLE_RECORD=1 \
		"$bin" report --threads "$run"
	measure "report (streamed; its analysis)" "$n" "$bin" report "$run"
	measure "export --perfetto (streamed)" "$n" "$bin" export --perfetto \
		-o "$tmp/out.pftrace" "$run"
	measure "export --perfetto (whole record, before)" "$n" env STALLSCOPE_WHOLE_RECORD=1 \
		"$bin" export --perfetto -o "$tmp/out.pftrace" "$run"
	measure "dump --summary (streamed)" "$n" "$bin" dump --summary "$run"
	measure "dump --summary (whole record, before)" "$n" env STALLSCOPE_WHOLE_RECORD=1 \
		"$bin" dump --summary "$run"
	measure "html (streamed, by windows)" "$n" "$bin" html -o "$tmp/out.html" "$run"
	measure "html (whole record, before)" "$n" env STALLSCOPE_WHOLE_RECORD=1 \
		"$bin" html -o "$tmp/out.html" "$run"
}
echo "== stalls-stream: 10 minutes exact, $(stat -c %s "$tmp/min10/record.ssr") bytes" \
	"(goal: <= 24 MB, <= 0.17 s)"
table "$tmp/min10" "$runs"
[ "${SS_BENCH_DAY:-1}" = 0 ] && exit 0
REC_BENCH_PERIOD_MS=100 "$gen" gen "$tmp/day/record.ssr" 864000 exact 30
printf 'program=synthetic\nstate=done\nt0_mono=4999.5\n' >"$tmp/day/run.ini"
echo "== stalls-stream: 24 hours exact (100 ms, 30 fps), $(stat -c %s "$tmp/day/record.ssr")" \
	"bytes (goal: <= 24 MB, <= 24 s)"
table "$tmp/day" 1
