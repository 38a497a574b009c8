#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e
# export --perfetto streams the record (docs/FORMAT.md, "Streaming": the
# analysis by windows, then two reads whose tracks go to spills appended in
# order) and dump --summary counts what passes: each must give what the
# whole record in memory gives (STALLSCOPE_WHOLE_RECORD=1), the trace byte
# for byte (so its decoded content too), the summary's text, the exit
# status and the messages: on the hand-made run directories (test-causes,
# test-rundir), the recorded fixtures (exact mode, stacks, a
# damaged and a torn record) and a synthetic exact record whole, damaged,
# torn and with presents out of time order (REC_BENCH_SWAP).
set -u
B=$SS_BIN
G=$SS_BUILD/bench/rec-bench
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0

[ -x "$G" ] || { echo "skip: no $G (bench/CMakeLists.txt builds it)"; exit 77; }
for w in test-causes test-rundir; do
	[ -x "$SS_BUILD/tests/$w" ] || { echo "skip: no $SS_BUILD/tests/$w"; exit 77; }
	mkdir "$T/$w" && "$SS_BUILD/tests/$w" --write "$T/$w" >/dev/null ||
		{ echo "FAIL: $w --write"; exit 1; }
done
for f in rec-corpus/exact-fakegame rec-corpus/stacks-2.3 rec-corpus/busy-1500-v2-damaged \
	rec-corpus/steady-30-torn rec-corpus/stacks-fakegame; do
	[ -f "$SS_FIXTURES/$f.ssr" ] || continue
	d=$T/$(basename "$f")
	mkdir "$d" && cp "$SS_FIXTURES/$f.ssr" "$d/record.ssr"
	printf 'program=fixture\nstate=recording\n' >"$d/run.ini"
done
mkdir "$T/exact" "$T/exact-damaged" "$T/exact-torn" "$T/swapped"
"$G" gen "$T/exact/record.ssr" 4000 exact 60 || { echo "FAIL: rec-bench gen"; exit 1; }
printf 'program=synthetic\nstate=done\nt0_mono=4999.5\n' >"$T/exact/run.ini"
size=$(stat -c %s "$T/exact/record.ssr")
cp "$T/exact/record.ssr" "$T/exact/run.ini" "$T/exact-damaged/"
# four bytes flipped in the middle: a block that does not check out
printf '\377\377\377\377' | dd of="$T/exact-damaged/record.ssr" bs=1 seek=$((size / 2)) \
	conv=notrunc 2>/dev/null
head -c $((size * 2 / 3)) "$T/exact/record.ssr" >"$T/exact-torn/record.ssr"
printf 'program=synthetic\nstate=recording\nt0_mono=4999.5\n' >"$T/exact-torn/run.ini"
REC_BENCH_SWAP=1 "$G" gen "$T/swapped/record.ssr" 4000 exact 60 ||
	{ echo "FAIL: rec-bench gen (swapped)"; exit 1; }
cp "$T/exact/run.ini" "$T/swapped/"

n=0
runs=0
for d in "$T"/*/; do
	d=${d%/}
	name=$(basename "$d")
	runs=$((runs + 1))
	for args in "" "--warmup 0 --stall-ms 16.5"; do
		# shellcheck disable=SC2086
		"$B" export --perfetto $args -o "$T/w.pftrace" "$d" >"$T/w.out" 2>"$T/w.err"
		rw=$?
		# shellcheck disable=SC2086
		STALLSCOPE_WHOLE_RECORD=1 "$B" export --perfetto $args -o "$T/m.pftrace" "$d" \
			>"$T/m.out" 2>"$T/m.err"
		rm=$?
		sed -i "s|$T/[wm].pftrace|OUT|" "$T/w.err" "$T/m.err"
		if [ $rw != $rm ] || ! cmp -s "$T/w.out" "$T/m.out" || ! cmp -s "$T/w.err" "$T/m.err" ||
		   { [ $rw = 0 ] && ! cmp -s "$T/w.pftrace" "$T/m.pftrace"; }; then
			echo "FAIL: export --perfetto $args $name: streamed (exit $rw) differs from" \
				"the whole record (exit $rm):"
			diff "$T/m.err" "$T/w.err" | head -6
			cmp "$T/m.pftrace" "$T/w.pftrace" 2>&1 | head -2
			fail=1
		fi
		rm -f "$T/w.pftrace" "$T/m.pftrace"
		n=$((n + 1))
	done
	"$B" dump --summary "$d" >"$T/w.out" 2>"$T/w.err"
	rw=$?
	STALLSCOPE_WHOLE_RECORD=1 "$B" dump --summary "$d" >"$T/m.out" 2>"$T/m.err"
	rm=$?
	if [ $rw != $rm ] || ! cmp -s "$T/w.out" "$T/m.out" || ! cmp -s "$T/w.err" "$T/m.err"; then
		echo "FAIL: dump --summary $name: streamed (exit $rw) differs from the whole" \
			"record (exit $rm):"
		diff "$T/m.out" "$T/w.out" | head -6
		diff "$T/m.err" "$T/w.err" | head -4
		fail=1
	fi
	n=$((n + 1))
done
# the comparison means something: the synthetic trace has its frames,
# stalls, thread states, intervals and counters; the summary its counts
"$B" export --perfetto -o "$T/x.pftrace" "$T/exact" 2>"$T/x.err" >/dev/null || fail=1
grep -Eq "wrote .*: [1-9][0-9]* frames, [1-9][0-9]* stalls, [1-9][0-9]* thread states, [1-9][0-9]* intervals, [1-9][0-9]* counter values" "$T/x.err" ||
	{ echo "FAIL: the synthetic trace is nearly empty:"; cat "$T/x.err"; fail=1; }
"$B" dump --summary "$T/exact" | grep -Eq "^summary samples=4000 frames=[1-9][0-9]* .* intervals=[1-9]" ||
	{ echo "FAIL: dump --summary's counts"; "$B" dump --summary "$T/exact" | tail -1; fail=1; }
[ $fail = 0 ] && echo "ok: $n outputs of $runs runs streamed as the whole record's"
exit $fail
