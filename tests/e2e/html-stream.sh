#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e
# html writes its page as it makes it (issue 31): the frames streamed into
# the gzip, the stalls read by windows (docs/FORMAT.md, "stalls by
# windows"), their exact intervals collected as they pass, the cause
# columns from report's streamed analysis. Its page must say what the whole
# record in memory gives (STALLSCOPE_WHOLE_RECORD=1): the same decoded data
# (tests/e2e/lib/htmldata.py: the JSON with its gzip+base64 fields
# decoded), the same page around it, exit status and messages; on the
# hand-made run directories (test-causes, test-rundir), the recorded
# fixtures (exact mode, stacks, a damaged and a torn record), a synthetic
# exact record (bench/rec-bench.c) whole, damaged and torn, with options
# that make every frame a stall or a few, several runs on one page, and a
# frame log.
set -u
B=$SS_BIN
G=$SS_BUILD/bench/rec-bench
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0

[ -x "$G" ] || { echo "skip: no $G (bench/CMakeLists.txt builds it)"; exit 77; }
command -v python3 >/dev/null || { echo "skip: no python3"; exit 77; }
for w in test-causes test-rundir; do
	[ -x "$SS_BUILD/tests/$w" ] || { echo "skip: no $SS_BUILD/tests/$w"; exit 77; }
	mkdir -p "$T/runs/$w" && "$SS_BUILD/tests/$w" --write "$T/runs/$w" >/dev/null ||
		{ echo "FAIL: $w --write"; exit 1; }
done
for f in rec-corpus/exact-fakegame rec-corpus/stacks-2.3 rec-corpus/busy-1500-v2-damaged \
	rec-corpus/steady-30-torn; do
	d=$T/runs/$(basename "$f")
	mkdir "$d" && cp "$SS_FIXTURES/$f.ssr" "$d/record.ssr"
	printf 'program=fixture\nstate=recording\n' >"$d/run.ini"
done
R=$T/runs
mkdir "$R/exact" "$R/exact-damaged" "$R/exact-torn"
"$G" gen "$R/exact/record.ssr" 4000 exact 60 || { echo "FAIL: rec-bench gen"; exit 1; }
printf 'program=synthetic\nstate=done\nt0_mono=4999.5\n' >"$R/exact/run.ini"
size=$(stat -c %s "$R/exact/record.ssr")
cp "$R/exact/record.ssr" "$R/exact/run.ini" "$R/exact-damaged/"
printf '\377\377\377\377' | dd of="$R/exact-damaged/record.ssr" bs=1 seek=$((size / 2)) \
	conv=notrunc 2>/dev/null
head -c $((size * 2 / 3)) "$R/exact/record.ssr" >"$R/exact-torn/record.ssr"
printf 'program=synthetic\nstate=recording\nt0_mono=4999.5\n' >"$R/exact-torn/run.ini"
printf '16.6\n16.7\n250.0\n16.6\n16.8\n' >"$T/frames.txt"

n=0
same() {	# same NAME ARGS...: the streamed page says what the whole record's does
	name=$1
	shift
	rm -f "$T/w.html" "$T/m.html"
	"$B" html -o "$T/w.html" "$@" >"$T/w.out" 2>"$T/w.err"
	rw=$?
	STALLSCOPE_WHOLE_RECORD=1 "$B" html -o "$T/m.html" "$@" >"$T/m.out" 2>"$T/m.err"
	rm=$?
	sed -i "s|$T/[wm]\.html|PAGE|" "$T/w.err" "$T/m.err"
	if [ $rw != $rm ] || ! cmp -s "$T/w.err" "$T/m.err" || ! cmp -s "$T/w.out" "$T/m.out"
	then
		echo "FAIL: html $* ($name): streamed (exit $rw) differs from the whole record" \
			"(exit $rm):"
		diff "$T/m.err" "$T/w.err" | head -4
		fail=1
	elif [ -e "$T/w.html" ] || [ -e "$T/m.html" ]; then
		PYTHONPATH=$SS_SRC/tests/e2e/lib python3 - "$T/m.html" "$T/w.html" "$name" <<'PY' ||
import sys
from htmldata import page_data, page_frame
m, w, name = sys.argv[1:]
dm, dw = page_data(m), page_data(w)
if dm != dw:
    if len(dm["runs"]) != len(dw["runs"]):
        print("FAIL: %s: %d runs whole, %d streamed" % (name, len(dm["runs"]), len(dw["runs"])))
    for a, b in zip(dm["runs"], dw["runs"]):
        for k in a:
            if a[k] != b.get(k):
                print("FAIL: %s: %s: '%s' differs: whole %.300s, streamed %.300s"
                      % (name, a["source"], k, a[k], b.get(k)))
    sys.exit(1)
if page_frame(m) != page_frame(w):
    print("FAIL: %s: the page around the data differs" % name)
    sys.exit(1)
PY
		fail=1
	fi
	n=$((n + 1))
}
# every run on one page (the several runs' path too), then with every frame
# a stall (one long group of windows, handed on in parts), then a window
same "every run" "$R"/*/ "$T/frames.txt"
same "every frame a stall" --warmup 0 --stall-ms 1 "$R"/*/
same "exact, a window" --warmup 0 --from 5 --to 20 --stall-ms 16.5 "$R/exact"
same "the demo, a 2 s warm-up" --warmup 2 "$R/exact-fakegame"
cp "$T/w.html" "$T/d.html"
same "a frame log" "$T/frames.txt"
same "none readable" "$T/nothing-here"

# the comparison means something: the streamed page has the stalls, their
# exact intervals and stacks, its cause columns and the demo's disk seconds
"$B" html -o "$T/w.html" --warmup 0 "$R/exact" "$R/stacks-2.3" 2>/dev/null
PYTHONPATH=$SS_SRC/tests/e2e/lib python3 - "$T/w.html" "$T/d.html" <<'PY' || fail=1
import sys
from htmldata import page_data
ex, st = page_data(sys.argv[1])["runs"]
demo = {m[0]: m[1] for m in page_data(sys.argv[2])["runs"][0]["metrics"]}
assert demo["load_disk_s"] > 0 and demo["warm_disk_s"] > 0, demo
s = ex["stalls"]
assert ex["split"] == "exact" and len(s) >= 3, (ex["split"], len(s))
assert all(x["iv"] and x["iv"][0]["kind"] for x in s), s[0]
assert ex["frames"]["n"] > 1000 and len(ex["frames"]["gaps_u32le_gz_b64"]) == 8 * ex["frames"]["n"]
cols = dict(zip(ex["cause_cols"]["names"], ex["cause_cols"]["window"]))
assert all(v is not None for v in cols.values()) and sum(cols.values()) > 0, cols
assert st["stacks"] and st["stacks"]["json_gz_b64"]["stalls"], st["stacks"]
PY
[ $fail = 0 ] && echo "ok: $n pages streamed say what the whole record's say"
exit $fail
