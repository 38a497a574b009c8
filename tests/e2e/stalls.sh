#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e
# stallscope stalls, and report's and matrix's cause columns, on a hand-made
# run directory (test-causes --write): eight 200 ms stalls of eight causes,
# including the ones this machine cannot make live (a GPU fence wait, an
# NVIDIA ioctl, a zram swap-in, direct reclaim, the run queue). Checks each
# stall's cause, share and evidence in the JSON, the text table, the warm-up
# split, report's stall_* columns and matrix's files; and the errors (a frame
# log: exit 1; usage: exit 2).
set -u
B=$SS_BIN
W="$SS_BUILD/tests/test-causes"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$SS_SRC/tests/e2e/lib/expect.sh"

[ -x "$W" ] || { echo "skip: no $W"; exit 77; }
mkdir "$T/run" && "$W" --write "$T/run" || { echo "FAIL: test-causes --write"; exit 1; }

# JSON: every stall's cause, share 1, the evidence that says why
expect 0 "$B" stalls --json --warmup 0 "$T/run"
/usr/bin/python3 - "$T/out" <<'PY' || fail=1
import json, sys
a = json.load(open(sys.argv[1]))
assert isinstance(a, list) and len(a) == 1, a
r = a[0]
assert set(r) >= {"run", "stalls", "warm_stalls"}, r.keys()
want = [(1, "disk", "disk"), (2, "gpu", "gpu_fence"), (3, "swap", "swap_zram"),
        (4, "reclaim", "reclaim_direct"), (5, "runq", "runq"), (6, "gpu", "gpu_ioctl"),
        (7, "io", "io_read"), (8, "wait", "wait_futex")]
s = r["stalls"]
assert len(s) == 8, len(s)
for st, (t, cause, sub) in zip(s, want):
    for k in ("t_s", "ms", "cause", "share", "second_cause", "evidence"):
        assert k in st, k
    assert abs(st["t_s"] - t) < 1e-6 and abs(st["ms"] - 200) < 1e-3, st
    assert st["cause"] == cause and st["sub_cause"] == sub, (t, st["cause"], st["sub_cause"])
    assert st["share"] > 0.999 and st["second_cause"] is None, st
assert r["warm_stalls"] == []
e = s[0]["evidence"]
assert e["state"] == "D" and e["wchan"] == "folio_wait_bit_common" and e["majflt"] == 60, e
assert e["disk_reads"] == [{"dev": "vda", "reads": 60, "kb": 240}], e["disk_reads"]
assert e["vmstat"] == {"pgmajfault": 60}, e["vmstat"]
assert e["stack"][:2] == ["folio_wait_bit_common", "filemap_fault"], e["stack"]
assert s[2]["evidence"]["disk_reads"][0]["dev"] == "zram0"
assert s[2]["evidence"]["vmstat"]["pswpin"] == 8000
assert abs(s[4]["evidence"]["runq_ms"] - 180.4) < 0.01, s[4]["evidence"]
assert s[5]["evidence"]["fd_target"] == "/dev/nvidia0" and s[5]["evidence"]["syscall"] == "ioctl"
assert s[6]["evidence"]["syscall"] == "pread64" and s[6]["evidence"]["fd_target"] == "/var/tmp/game.pak"
assert s[7]["evidence"]["syscall"] == "futex"
print("stalls json ok")
PY

# the table: one line per stall with cause, share and evidence
expect 0 "$B" stalls --warmup 0 "$T/run"
grep -q '^1.000  *200.0  *disk  *100 .*major faults' "$T/out" || no "disk line: $(cat "$T/out")"
grep -q '^6.000  *200.0  *gpu (ioctl)  *100 .*ioctl(/dev/nvidia0)' "$T/out" || no "nvidia line"
grep -q '^warm-up: 0 stalls' "$T/out" || no "warm-up line"
# the hand-made run.ini has no t0_mono: the text says whence t_s counts
grep -q "^note: '.*/run': no t0_mono in run.ini or the record; times are from the first present" "$T/out" ||
	no "no t0 note: $(tail -3 "$T/out")"
grep -q '^note: longest_warm_ms' "$T/out" && no "a column note of report's in stalls"

# a warm-up of 4.5 s: the first four are the warm-up's
expect 0 "$B" stalls --json --warmup 4.5 "$T/run"
/usr/bin/python3 - "$T/out" <<'PY' || fail=1
import json, sys
r = json.load(open(sys.argv[1]))[0]
assert [x["cause"] for x in r["warm_stalls"]] == ["disk", "gpu", "swap", "reclaim"], r["warm_stalls"]
assert [x["cause"] for x in r["stalls"]] == ["runq", "gpu", "io", "wait"], r["stalls"]
print("warm-up ok")
PY

# report's columns: seconds by cause column, the largest, the load's disk time
expect 0 "$B" report --json --warmup 0 "$T/run"
/usr/bin/python3 - "$T/out" <<'PY' || fail=1
import json, sys
r = json.load(open(sys.argv[1]))[0]
want = {"disk": .2, "swap": .2, "reclaim": .2, "gpu": .4, "cpu": .2, "io": .2, "wait": .2, "other": 0}
for k, v in want.items():
    assert abs(r["stall_%s_s" % k] - v) < 1e-6, (k, r["stall_%s_s" % k])
    assert abs(r["stall_%s_play_s" % k] - v) < 1e-6, (k, r["stall_%s_play_s" % k])
assert abs(sum(r["stall_%s_s" % k] for k in want) - r["stall_s"]) < 1e-6
assert r["stall_why"] == "gpu" and r["stall_why_play"] == "gpu", r["stall_why"]
assert abs(r["load_disk_s"] - 0.5) < 1e-6, r["load_disk_s"]
assert abs(r["warm_disk_s"] - 0) < 1e-9
print("report columns ok")
PY
expect 0 "$B" report --warmup 4.5 --csv --cols stall_disk_s,stall_io_s,warm_disk_s,stall_why "$T/run"
sed -n 2p "$T/out" | grep -q '^0.000,0.200,0.200,gpu,' || no "report csv: $(cat "$T/out")"

# matrix: a CSV per cause column
expect 0 "$B" matrix -o "$T/m" --warmup 0 "$T/run" "$T/run"
for c in disk swap reclaim gpu cpu io wait other; do
	[ -f "$T/m/stall_${c}_s.csv" ] || no "matrix: no stall_${c}_s.csv"
done
grep -qx 'fakegame,hand-made,0.4000,0.4000,0.4000' "$T/m/stall_gpu_s.csv" ||
	no "matrix gpu: $(cat "$T/m/stall_gpu_s.csv")"
grep -qx 'fakegame,hand-made,0.5000,0.5000,0.5000' "$T/m/load_disk_s.csv" ||
	no "matrix load: $(cat "$T/m/load_disk_s.csv")"

# a frame log has no samples: a clear error; usage errors exit 2
printf '16.7\n16.7\n' >"$T/log.txt"
expect 1 "$B" stalls "$T/log.txt"
grep -q "log.txt' is a frame log" "$T/err" || no "frame log message: $(cat "$T/err")"
expect 2 "$B" stalls
expect 2 "$B" stalls --csv "$T/run"
expect 2 "$B" stalls --stack-lines x "$T/run"
expect 0 "$B" stalls --help
grep -q EXAMPLES "$T/out" || no "--help has no EXAMPLES"
[ $fail = 0 ] && echo "stalls ok"
exit $fail
