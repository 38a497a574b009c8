#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e
# stalls reads a record by windows (docs/FORMAT.md, "stalls by windows"):
# the frames first, then each group of stalls' own samples and intervals.
# Its output must be what the whole record in memory gives
# (STALLSCOPE_WHOLE_RECORD=1), byte for byte, text and JSON, exit status
# and errors: on the hand-made run directories (test-causes, test-rundir),
# the recorded fixtures (exact mode, stacks, a damaged and a torn record),
# and a synthetic exact record (bench/rec-bench.c, 40 s, a stall every
# 10 s, exact intervals) whole, damaged and torn, with thresholds that make
# every frame a stall (one long group, handed on in parts) or a few.
# report --threads likewise (its sums streamed, one read of the record, or
# two where the analysis did not keep the window's bounds, a damaged one:
# docs/FORMAT.md, "Streaming"), on the same runs and on one whose presents
# are out of time order (REC_BENCH_SWAP), whose bounds took a third read
# before the analysis kept them. report's cause columns likewise (the record read for its
# presents, then again around the stalls, the load and the warm-up: docs/
# FORMAT.md, "Streaming"), on every run, with its stalls or every frame a
# stall; and on the synthetic exact run they split what stalls lists (the
# same cause: before issue 31 the streamed columns had no intervals).
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
	rec-corpus/steady-30-torn; do
	d=$T/$(basename "$f")
	mkdir "$d" && cp "$SS_FIXTURES/$f.ssr" "$d/record.ssr"
	printf 'program=fixture\nstate=recording\n' >"$d/run.ini"
done
mkdir "$T/exact" "$T/exact-damaged" "$T/exact-torn"
"$G" gen "$T/exact/record.ssr" 4000 exact 60 || { echo "FAIL: rec-bench gen"; exit 1; }
printf 'program=synthetic\nstate=done\nt0_mono=4999.5\n' >"$T/exact/run.ini"
size=$(stat -c %s "$T/exact/record.ssr")
cp "$T/exact/record.ssr" "$T/exact/run.ini" "$T/exact-damaged/"
# four bytes flipped in the middle: a block that does not check out
printf '\377\377\377\377' | dd of="$T/exact-damaged/record.ssr" bs=1 seek=$((size / 2)) \
	conv=notrunc 2>/dev/null
head -c $((size * 2 / 3)) "$T/exact/record.ssr" >"$T/exact-torn/record.ssr"
printf 'program=synthetic\nstate=recording\nt0_mono=4999.5\n' >"$T/exact-torn/run.ini"

n=0
for d in "$T"/*/; do
	d=${d%/}
	for args in "" "--json --warmup 0 --stall-ms 1" "--folded --warmup 0 --stall-ms 16.5"; do
		# shellcheck disable=SC2086
		"$B" stalls $args "$d" >"$T/w.out" 2>"$T/w.err"
		rw=$?
		# shellcheck disable=SC2086
		STALLSCOPE_WHOLE_RECORD=1 "$B" stalls $args "$d" >"$T/m.out" 2>"$T/m.err"
		rm=$?
		if [ $rw != $rm ] || ! cmp -s "$T/w.out" "$T/m.out" || ! cmp -s "$T/w.err" "$T/m.err"
		then
			echo "FAIL: stalls $args $(basename "$d"): by windows (exit $rw) differs from" \
				"the whole record (exit $rm):"
			diff "$T/m.out" "$T/w.out" | head -6
			diff "$T/m.err" "$T/w.err" | head -4
			fail=1
		fi
		n=$((n + 1))
	done
done
# report --threads: its sums as the record streams, against the whole record
mkdir "$T/swapped"
REC_BENCH_SWAP=1 "$G" gen "$T/swapped/record.ssr" 4000 exact 60 ||
	{ echo "FAIL: rec-bench gen (swapped)"; exit 1; }
cp "$T/exact/run.ini" "$T/swapped/"
same() {	# same NAME ARGS...: streamed and whole give one output
	name=$1
	shift
	"$B" "$@" >"$T/w.out" 2>"$T/w.err"
	rw=$?
	STALLSCOPE_WHOLE_RECORD=1 "$B" "$@" >"$T/m.out" 2>"$T/m.err"
	rm=$?
	if [ $rw != $rm ] || ! cmp -s "$T/w.out" "$T/m.out" || ! cmp -s "$T/w.err" "$T/m.err"; then
		echo "FAIL: $* ($name): streamed (exit $rw) differs from the whole record" \
			"(exit $rm):"
		diff "$T/m.out" "$T/w.out" | head -6
		diff "$T/m.err" "$T/w.err" | head -4
		fail=1
	fi
	n=$((n + 1))
}
# a recorded run (demo), a damaged and a torn record, then bounds inside
# the run (the swapped presents move them) on the synthetic ones
for d in exact-fakegame busy-1500-v2-damaged steady-30-torn; do
	same "$d" report --threads --json --warmup 0 "$T/$d"
done
for d in exact-damaged exact-torn swapped; do
	same "$d" report --threads --json --warmup 0 --from 5 --to 20 "$T/$d"
done
# (the swapped run's, last: its 20 threads were summed)
/usr/bin/python3 - "$T/w.out" <<'PY' || fail=1
import json, sys
t = json.load(open(sys.argv[1]))[0]["threads"]
assert len(t) == 20 and all(x["ms_per_frame"] > 0 for x in t[:4]), t[:2]
PY
# report's columns by windows, against the whole record
for d in "$T"/*/; do
	d=${d%/}
	same "$(basename "$d")" report --json "$d"
	same "$(basename "$d")" report --json --warmup 0 --stall-ms 1 "$d"
done
"$B" report --json --warmup 0 "$T/exact" >"$T/r.json" 2>/dev/null
"$B" stalls --json --warmup 0 "$T/exact" >"$T/s.json" 2>/dev/null
/usr/bin/python3 - "$T/r.json" "$T/s.json" <<'PY' || fail=1
import json, sys
m = json.load(open(sys.argv[1]))[0]
s = json.load(open(sys.argv[2]))[0]["stalls"]
assert m["stalls"] == len(s) and len(s) >= 3, (m["stalls"], len(s))
assert m["stall_why"] == s[0]["cause"] == "wait", (m["stall_why"], s[0]["cause"])
# the columns are the stalls' splits summed (shares: 4 decimals)
w = sum(x["shares"].get("wait_futex", 0) * x["ms"] / 1000 for x in s)
assert abs(m["stall_wait_s"] - w) < 1e-3 * m["stall_s"] + 1e-6, (m["stall_wait_s"], w)
PY
# the comparison means something: the synthetic record's stalls are many,
# exact, and have their intervals and evidence
"$B" stalls --json --warmup 0 "$T/exact" >"$T/x.json" 2>/dev/null
/usr/bin/python3 - "$T/x.json" <<'PY' || fail=1
import json, sys
r = json.load(open(sys.argv[1]))[0]
s = r["stalls"]
assert r["split"] == "exact" and len(s) >= 3, (r["split"], len(s))
assert all(x["cause"] == "wait" and x["intervals"]["count"] >= 1 for x in s), s[0]
assert all(x["evidence"]["samples"] >= 10 for x in s), s[0]["evidence"]
PY
"$B" stalls --json --warmup 0 --stall-ms 1 "$T/exact-damaged" >"$T/d.json" 2>/dev/null
/usr/bin/python3 - "$T/d.json" <<'PY' || fail=1
import json, sys
r = json.load(open(sys.argv[1]))[0]
assert len(r["stalls"]) > 1000, len(r["stalls"])
assert any("DAMAGED" in n for n in r["notes"]), r["notes"]
PY
[ $fail = 0 ] && echo "ok: $n outputs by windows or streamed as the whole record's"
exit $fail
