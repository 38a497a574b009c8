#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e live root
# record --probe beside a stall: while the fake game sleeps 1.5 s, a
# SCHED_FIFO 99 hog holds CPU 1 for 300 ms, so the probe's CPU 1 thread
# wakes late; stalls must list that late wake-up beside the stall (text and
# JSON late_wakeups), and export --perfetto put it on CPU 1's probe track
# inside the stall's frame. The hog is bounded by a SIGKILL from CPU 0.
set -u
[ "$(id -u)" = 0 ] || { echo "skip: SCHED_FIFO needs root"; exit 77; }
[ "$(nproc)" -ge 2 ] || { echo "skip: needs two CPUs"; exit 77; }
command -v chrt >/dev/null && command -v taskset >/dev/null || { echo "skip: no chrt/taskset"; exit 77; }
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$SS_BIN" record -q --probe -o "$T/run" -- "$SS_BUILD/fakegame" --seconds 4 --stall sleep:1500@1 &
rpid=$!
# the stall runs from about 1 s to 2.5 s after the start (recorder start-up
# under ASan moves it a little); aim the hog at its middle
sleep 1.6
taskset -c 0 timeout -s KILL 0.3 chrt -f 99 taskset -c 1 sh -c 'while :; do :; done' 2>/dev/null
wait $rpid || fail "record failed"
grep -q '^probe=on' "$T/run/run.ini" || fail "run.ini has no probe=on"
n=$(sed -n 's/^probe_late_wakeups=//p' "$T/run/run.ini")
[ "${n:-0}" -ge 1 ] || fail "the probe saw no late wake-up (probe_late_wakeups=$n)"
"$SS_BIN" stalls --warmup 0 "$T/run" >"$T/out" || fail "stalls failed"
cat "$T/out"
grep -Eq 'CPU 1 woke [0-9]+ ms late' "$T/out" || fail "no late wake-up beside the stall"
"$SS_BIN" stalls --warmup 0 --json "$T/run" >"$T/json" || fail "stalls --json failed"
/usr/bin/python3 - "$T/json" <<'PY' || fail "JSON late_wakeups"
import json, sys
runs = json.load(open(sys.argv[1]))
late = [w for s in runs[0]["stalls"] for w in s["evidence"]["late_wakeups"]]
assert any(w["cpu"] == 1 and w["late_ms"] >= 100 for w in late), late
PY
# export --perfetto: the wake-up is an instant on CPU 1's probe track,
# within the stall's frame on the Frames track
if command -v protoc >/dev/null; then
	"$SS_BIN" export --perfetto --warmup 0 -o "$T/t.pftrace" "$T/run" 2>"$T/err" ||
		fail "export: $(cat "$T/err")"
	PYTHONPATH=$SS_SRC/tests/e2e/lib /usr/bin/python3 - "$SS_SRC/tests/perfetto/stallscope.proto" \
		"$T/t.pftrace" "$n" <<'PY' || fail "the late wake-up in the trace"
import sys, pftrace
t = pftrace.load(sys.argv[2], sys.argv[1])
assert not t.unknown and not t.errors and not t.unclosed, (t.unknown[:3], t.errors[:3])
probe = t.by_name("Timer probe")
cpus = {c["name"]: c for c in t.children(probe["uuid"])}
late = [i for c in cpus.values() for i in t.instants.get(c["uuid"], [])]
assert len(late) == int(sys.argv[3]), (len(late), sys.argv[3])
one = [i for i in t.instants.get(cpus["CPU 1 late wake-ups"]["uuid"], []) if i[2]["late_ms"] >= 100]
stalls = [s for s in t.slices[t.by_name("Frames")["uuid"]] if s[2] == "stall"]
assert one and any(s[0] <= one[0][0] <= s[1] for s in stalls), (one, stalls)
PY
fi
echo "ok: the stall shows CPU 1's late wake-up"
