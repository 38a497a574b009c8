#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e
# stalls and report read a day of record in bounded memory (issue 31): a
# synthetic 24-hour exact record (bench/rec-bench.c: 864,000 samples at
# 100 ms, 30 fps, 2.6 million exact intervals, a 150 ms stall every 10 s;
# 96 MB), read by stalls --json and report --json under `ulimit -v 57344`
# (56 MB of address space; with the frames packed, about 4.3 bytes a frame,
# both ran in 48 MB and report not in 40 on 2026-12-03, peak RSS 18 MB;
# with 16 bytes a frame they needed 72 MB: docs/BENCH.md. The whole record
# in memory took 1035 MB, and report's analysis, every exact interval kept,
# 256 MB of RSS). An ASan build reserves more
# address space than that at its start, so a release build is used
# (lib/release.sh; skipped, 77, without one).
set -u
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
. "$SS_SRC/tests/e2e/lib/release.sh"
mkdir "$T/day"
REC_BENCH_PERIOD_MS=100 "$G" gen "$T/day/record.ssr" 864000 exact 30 ||
	{ echo "FAIL: rec-bench gen"; exit 1; }
printf 'program=synthetic\nstate=done\nt0_mono=4999.5\n' >"$T/day/run.ini"
LIMIT=57344
(ulimit -v $LIMIT && exec "$R" stalls --json "$T/day") >"$T/out" 2>"$T/err"
rc=$?
[ $rc = 0 ] || { echo "FAIL: stalls under ulimit -v $LIMIT: exit $rc"; cat "$T/err"; fail=1; }
/usr/bin/python3 - "$T/out" <<'PY' || fail=1
import json, sys
r = json.load(open(sys.argv[1]))[0]
s = r["stalls"]
# a stall every 10 s for 24 hours, less the 10 s warm-up's
assert r["split"] == "exact" and 8630 <= len(s) <= 8640, (r["split"], len(s))
assert s[-1]["t_s"] > 86000, s[-1]["t_s"]
assert all(x["cause"] == "wait" and x["intervals"]["count"] >= 1 for x in s[::97]), s[0]
PY
(ulimit -v $LIMIT && exec "$R" report --json "$T/day") >"$T/rep" 2>"$T/err"
rc=$?
[ $rc = 0 ] || { echo "FAIL: report under ulimit -v $LIMIT: exit $rc"; cat "$T/err"; fail=1; }
/usr/bin/python3 - "$T/rep" "$T/out" <<'PY' || fail=1
import json, sys
m = json.load(open(sys.argv[1]))[0]
s = json.load(open(sys.argv[2]))[0]["stalls"]
# report's columns split the stalls stalls lists: the same count, and the
# same cause (each is wait: the synthetic thread waits on a futex)
assert m["stalls"] == len(s), (m["stalls"], len(s))
assert m["stall_why"] == "wait", m["stall_why"]
assert m["stall_wait_s"] > 0.9 * m["stall_s"], (m["stall_wait_s"], m["stall_s"])
PY
[ $fail = 0 ] && echo "ok: a day of exact record, $(stat -c %s "$T/day/record.ssr") bytes," \
	"stalls and report in $((LIMIT / 1024)) MB"
exit $fail
