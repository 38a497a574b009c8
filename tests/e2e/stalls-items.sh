#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e
# The stalls' items out of memory (issue 31): stalls (text and --json),
# html and export --perfetto spill each stall's item as it is found
# (cmd/stall_list.h) and read them back one at a time, so that a record
# with many stalls runs in the memory of one. A synthetic 5-minute exact
# record (bench/rec-bench.c: 30,000 samples, 60 fps) read with --stall-ms 1
# --warmup 0, every frame a stall: ~18,000 stalls, whose items took 34 MB
# held in memory (~1.9 KB each; the text's table its rows' text more).
# Each reader runs under `ulimit -v 24576` (24 MB of address space: all
# four ran in 16 MB on 2026-12-03, and none in 32 with the items held) and
# lists every stall. An ASan build reserves more address space than that
# at its start, so a release build is used (lib/release.sh; skipped, 77,
# without one).
set -u
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
. "$SS_SRC/tests/e2e/lib/release.sh"
mkdir "$T/run"
"$G" gen "$T/run/record.ssr" 30000 exact 60 || { echo "FAIL: rec-bench gen"; exit 1; }
printf 'program=synthetic\nstate=done\nt0_mono=4999.5\n' >"$T/run/run.ini"
LIMIT=24576
A="--warmup 0 --stall-ms 1"

# the text: its count in the title, and a row for each
# shellcheck disable=SC2086
(ulimit -v $LIMIT && exec "$R" stalls $A "$T/run") >"$T/text" 2>"$T/err"
rc=$?
[ $rc = 0 ] || { echo "FAIL: stalls under ulimit -v $LIMIT: exit $rc"; cat "$T/err"; fail=1; }
n=$(sed -n 's/^window: \([0-9]*\) stalls.*/\1/p' "$T/text")
rows=$(grep -cE '^ *[0-9]+\.[0-9]+ +[0-9]+\.[0-9] ' "$T/text")
if [ -z "$n" ] || [ "$n" -lt 17000 ] || [ "$rows" != "$n" ]; then
	echo "FAIL: stalls listed ${n:-no} stalls in $rows rows (expected ~18,000, a row each)"
	fail=1
fi
n=${n:-0}

# --json: as many objects (43 MB of JSON: counted as it passes, not kept)
# shellcheck disable=SC2086
k=$( (ulimit -v $LIMIT && exec "$R" stalls --json $A "$T/run") 2>"$T/err" | grep -c '"t_s":')
rc=${PIPESTATUS[0]}
[ $rc = 0 ] || { echo "FAIL: stalls --json under ulimit -v $LIMIT: exit $rc"; cat "$T/err"; fail=1; }
[ "$k" = "$n" ] || { echo "FAIL: stalls --json listed $k stalls, the text $n"; fail=1; }

# the page: a row of data for each stall
# shellcheck disable=SC2086
(ulimit -v $LIMIT && exec "$R" html $A -o "$T/page.html" "$T/run") >/dev/null 2>"$T/err"
rc=$?
[ $rc = 0 ] || { echo "FAIL: html under ulimit -v $LIMIT: exit $rc"; cat "$T/err"; fail=1; }
k=$(grep -o '"frame":[0-9]*,"t_s"' "$T/page.html" 2>/dev/null | wc -l)
[ "$k" = "$n" ] || { echo "FAIL: html's page has $k stalls, stalls $n"; fail=1; }
rm -f "$T/page.html"

# the trace: a stall slice for each (its summary counts them)
# shellcheck disable=SC2086
(ulimit -v $LIMIT && exec "$R" export --perfetto $A -o "$T/trace.pftrace" "$T/run") \
	>/dev/null 2>"$T/err"
rc=$?
[ $rc = 0 ] || { echo "FAIL: export under ulimit -v $LIMIT: exit $rc"; cat "$T/err"; fail=1; }
grep -q " frames, $n stalls," "$T/err" ||
	{ echo "FAIL: export did not write $n stalls:"; cat "$T/err"; fail=1; }

[ $fail = 0 ] && echo "ok: $n stalls of a 5-minute exact record, stalls, stalls --json, html" \
	"and export in $((LIMIT / 1024)) MB"
exit $fail
