#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e live root
# Exact mode follows a presenting thread that changes mid-run (ss-markers
# --render-thread --handoff: "render" marks frames for 1 s, then ends and
# "render2" marks the rest): the record has exact counters for both threads
# (ftx.tid is one, then the other, each with switches and time), and
# following the new one costs no system call: the recorder makes exactly as
# many bpf() calls as in a run where the presenting thread never changes
# (strace), all of them while loading. The raw_tp flavour (the fallback)
# records the frame loop's sleeps as intervals too. Skips (77) when not
# root or where exact mode cannot load.
. "$SS_SRC/tests/e2e/lib/record.sh"
[ "$(id -u)" = 0 ] || { echo "skip: not root (exact mode loads BPF)"; exit 77; }
if ! "$SS_BIN" record -q --exact -o probe --duration 0.05 -- sleep 1 >probe.out 2>&1; then
	echo "skip: exact mode is not available here: $(tail -1 probe.out)"
	exit 77
fi

"$SS_BIN" record -q --exact -o run -- "$MARKERS" --render-thread --handoff 1 --seconds 2.5 \
	--fps 60 >/dev/null || fail "record --exact failed"
"$SS_BIN" dump run >dump.txt || fail "dump failed"
# the frame_thread events: render's tid, then render2's
grep -o "kind='frame_thread' text='tid=[0-9]* name=render[0-9]*'" dump.txt >ft.txt
r1=$(sed -n "s/.*tid=\([0-9]*\) name=render'/\1/p" ft.txt | head -1)
r2=$(sed -n "s/.*tid=\([0-9]*\) name=render2'/\1/p" ft.txt | head -1)
[ -n "$r1" ] && [ -n "$r2" ] || fail "no frame_thread events for render and render2: $(cat ft.txt)"
# per ftx.tid: samples, and the switches and run time counted under it
python3 - "$r1" "$r2" <<'PY' || fail "exact counters do not cover both threads"
import sys
r1, r2 = sys.argv[1], sys.argv[2]
seen = {}
d = {}	# dump prints what changed: the state so far
for l in open("dump.txt"):
    if not l.startswith("sample "):
        continue
    d.update(kv.split("=", 1) for kv in l.split()[2:] if "=" in kv)
    tid = d.get("ftx.tid")
    if tid is None:
        continue
    s = seen.setdefault(tid, {"n": 0, "sw": 0, "run": 0})
    s["n"] += 1
    s["sw"] = max(s["sw"], int(d.get("ftx.switches", 0)))
    s["run"] = max(s["run"], int(d.get("ftx.run_ns", 0)))
for t, name in ((r1, "render"), (r2, "render2")):
    s = seen.get(t)
    print("%s (tid %s): %s" % (name, t, s))
    if not s or s["n"] < 10 or s["sw"] < 10 or s["run"] <= 0:
        sys.exit(1)
PY

# the raw_tp flavour (the fallback where tp_btf is refused) counts the same
STALLSCOPE_EXACT_FLAVOUR=raw_tp "$SS_BIN" record -q --exact -o raw -- "$MARKERS" --seconds 1 \
	--fps 60 >/dev/null || fail "record --exact (raw_tp) failed"
expect_eq "exact_flavour (STALLSCOPE_EXACT_FLAVOUR=raw_tp)" "$(ini raw/run.ini exact_flavour)" raw_tp
expect_ge "raw_tp: intervals (the frame loop's sleeps)" "$(ini raw/run.ini exact_intervals)" 30
"$SS_BIN" dump raw | grep -q "^interval .* class=sleep .* syscall=230 " ||
	fail "raw_tp: no clock_nanosleep interval"

# no system call follows a thread: bpf() calls with and without a change
command -v strace >/dev/null || { echo "skip: no strace for the system-call count"; exit 77; }
count_bpf() {
	strace -f -qq -e trace=bpf -o "strace.$1" "$SS_BIN" record -q --exact -o "run.$1" -- \
		"$MARKERS" --render-thread $2 --seconds 2.5 --fps 60 >/dev/null ||
		fail "record under strace failed"
	grep -c 'bpf(' "strace.$1"
}
n_change=$(count_bpf change "--handoff 1")
n_steady=$(count_bpf steady "")
expect_eq "frame_thread events (handoff run)" \
	"$("$SS_BIN" dump run.change | grep -c "kind='frame_thread'")" 2
expect_eq "bpf() calls with a thread change (vs none)" "$n_change" "$n_steady"
echo "ok: render ($r1) and render2 ($r2) both counted; $n_change bpf() calls with or without the change"
