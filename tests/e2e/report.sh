#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e
# stallscope report and matrix end to end: the table, --cols, CSV, JSON (its
# keys and values checked with python3's json), a run directory of a looping
# demo with reload segments (and one without t0: play null), bad inputs (exit
# 1, the message names file and line) and usage errors (exit 2).
set -u
B=$SS_BIN
F=$SS_FIXTURES/framelogs
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$SS_SRC/tests/e2e/lib/expect.sh"

# the table: a header and one row per input, aligned
expect 0 "$B" report --warmup 0 "$F/mangohud-0.6.8-perframe.csv" "$F/plain.txt"
head -1 "$T/out" | grep -q '^source  *frames  *fps  *smooth_fps .*stalls_play' || no "table header"
grep -q 'mangohud-0.6.8-perframe.csv  *1147 ' "$T/out" || no "mangohud row: $(cat "$T/out")"
grep -q 'plain.txt  *40 ' "$T/out" || no "plain row"

# notes several inputs share are said once, with how many
expect 0 "$B" report --warmup 0 "$F/mangohud-0.6.9.csv" "$F/mangohud-0.7.0.csv" "$F/plain.txt" "$F/presentmon-v1.csv"
[ "$(grep -c 'no warm-up (--warmup 0)' "$T/out")" = 1 ] || no "shared note said more than once: $(cat "$T/out")"
grep -q '^all 4 inputs: stalls_warm, stall_warm_s, longest_warm_ms: no warm-up (--warmup 0)$' "$T/out" || no "no grouped note: $(cat "$T/out")"
grep -q "mangohud-0.6.9.csv': mangohud version assumed 0.6.9" "$T/out" || no "an input's own note is gone"
expect 0 "$B" report --warmup 0 "$F/plain.txt" "$F/plain.txt" "$F/presentmon-v1.csv"
grep -q '^2 inputs: ' "$T/out" || grep -q '^all 3 inputs: ' "$T/out" || no "no count of a shared note: $(cat "$T/out")"

# the same 8 s log with the default 60 s warm-up: the window is empty, and
# its counts are '-' (JSON null) with a note, never "stalls 0" beside
# stalls_warm
expect 0 "$B" report --cols source,frames,stalls,stall_s,stalls_warm "$F/mangohud-0.6.8-perframe.csv"
grep -q 'mangohud-0.6.8-perframe.csv  *-  *-  *-  *[0-9]' "$T/out" || no "empty window row: $(cat "$T/out")"
grep -q 'is shorter than the warm-up (60.0 s), so the window is empty; --warmup 0 to count all' "$T/out" ||
	no "no note for the empty window: $(cat "$T/out")"
expect 0 "$B" report --json "$F/mangohud-0.6.8-perframe.csv"
/usr/bin/python3 -c '
import json, sys
a = json.load(open(sys.argv[1]))[0]
assert a["stalls"] is None and a["frames"] is None and a["stall_s"] is None, a
assert a["stalls_warm"] is not None
' "$T/out" || no "empty window in JSON"

# --cols, and the MangoHud 0.6.8 compat numbers equal MangoHud's own summary
expect 0 "$B" report --warmup 0 --cols source,mangohud.fps_0_1_min,mangohud.fps_1_min,mangohud.fps_97,mangohud.fps_avg "$F/mangohud-0.6.8-perframe.csv"
want=$(tail -1 "$F/mangohud-0.6.8-perframe_summary.csv" | cut -d, -f1-4 | tr , ' ')
got=$(sed -n 2p "$T/out" | awk '{print $2, $3, $4, $5}')
[ "$got" = "$want" ] || no "mangohud compat '$got', MangoHud said '$want'"

# CSV: a header with every column and the notes last, one line per input
expect 0 "$B" report --csv --warmup 0 "$F/plain.txt" "$F/presentmon-v2.csv"
[ "$(wc -l <"$T/out")" = 3 ] || no "csv lines: $(wc -l <"$T/out")"
head -1 "$T/out" | grep -q '^source,format,program,variant,frames,seconds,fps,.*,reload_n,.*mangohud.fps_0_1_min,.*,capframex.low1_integral,notes$' || no "csv header: $(head -1 "$T/out")"

# JSON: the keys of the issue, numbers, null for what cannot be computed
expect 0 "$B" report --json --warmup 0 --stall-ms 100 "$F/plain.txt" "$F/mangohud-0.6.8-perframe.csv"
/usr/bin/python3 - "$T/out" <<'PY' || fail=1
import json, math, sys
a = json.load(open(sys.argv[1]))
assert isinstance(a, list) and len(a) == 2, a
keys = """frames seconds fps smooth_fps median_ms p95_ms p99_ms p999_ms low1 low01 stalls stall_s
longest_ms over_500ms over_1s over_2s stutter_pct lowfps_pct stalls_warm stall_warm_s
longest_warm_ms stalls_play stall_play_s longest_play_ms low1_play win_play_s reload_s
reload_n""".split()
for o in a:
    for k in ["source", "format", "compat", "notes"] + keys:
        assert k in o, "missing key " + k
    assert set(o["compat"]["mangohud"]) >= {"fps_0_1_min", "fps_1_min", "fps_97", "fps_avg"}
    assert set(o["compat"]["capframex"]) >= {"p1", "p0_1", "low1_avg", "low1_integral"}
    assert isinstance(o["notes"], list)
p = a[0]
assert p["format"] == "plain" and p["frames"] == 40, p
assert abs(p["fps"] - p["frames"] / p["seconds"]) < 1e-6
assert abs(p["low1"] - 1000 / p["p99_ms"]) < 1e-6
assert p["stalls"] == 1 and p["longest_ms"] == 120.5, p
assert p["longest_warm_ms"] is None and any("longest_warm_ms" in n for n in p["notes"])
assert a[1]["format"] == "mangohud-0.6.8"
assert a[1]["compat"]["mangohud"]["fps_1_min"] == 74.2 or abs(a[1]["compat"]["mangohud"]["fps_1_min"] - 74.2) < 0.05
print("json ok")
PY

# a run directory of a looping demo: reload segments from program-log lines
R="$SS_BUILD/tests/test-rundir"
if [ -x "$R" ]; then
	mkdir -p "$T/run1" "$T/run2"
	"$R" --write "$T/run1" && "$R" --write "$T/run2" --no-t0 || no "test-rundir --write"
	printf '[demo-loop]\nline = ^Loaded map\nafter = 0.2\nwhy = the test demo says so\n' >"$T/rules.ini"
	expect 0 "$B" report --json --warmup 0 --rules "$T/rules.ini" "$T/run1" "$T/run2"
	/usr/bin/python3 - "$T/out" <<'PY' || fail=1
import json, sys
a, b = json.load(open(sys.argv[1]))
assert a["program"] == "demo-loop" and a["variant"] == "base", a
assert a["stalls"] == 4 and a["stalls_play"] == 1 and a["reload_n"] == 3, a
assert abs(a["longest_play_ms"] - 150) < 0.01 and abs(a["longest_ms"] - 1500) < 0.01
assert abs(a["win_play_s"] + a["reload_s"] - a["seconds"]) < 1e-6
# no t0: play is null with the reason, the window is still computed
assert b["stalls"] == 4 and b["stalls_play"] is None and b["reload_n"] is None, b
assert any("no t0" in n for n in b["notes"]), b["notes"]
print("run dir ok")
PY
	# run.ini's override wins over the rules file: a fixed 1.5 s from each pass
	echo "reload_fixed=1.5" >>"$T/run1/run.ini"
	expect 0 "$B" report --csv --cols reload_n,reload_s --warmup 0 --rules "$T/rules.ini" "$T/run1"
	# 3 x 1.5 s, plus the one 16.7 ms frame of passes 2 and 3 that starts
	# before their load frame ends
	sed -n 2p "$T/out" | grep -q '^3,4.53,' || no "reload_fixed override: $(cat "$T/out")"
	# matrix: one CSV per metric, a row per program and variant, the median last
	expect 0 "$B" matrix -o "$T/m" --warmup 0 --rules "$T/rules.ini" "$T/run1" "$T/run2" "$T/run1" "$F/plain.txt"
	[ -f "$T/m/stalls.csv" ] && [ -f "$T/m/fps.csv" ] || no "matrix files: $(ls "$T/m")"
	head -1 "$T/m/stalls.csv" | grep -qx 'program,variant,run1,run2,median' || no "matrix header: $(head -1 "$T/m/stalls.csv")"
	# counts are integers (stalls 4, not 4.0: issue 13, item 10)
	grep -qx 'demo-loop,base,4,4,4' "$T/m/stalls.csv" || no "matrix row: $(cat "$T/m/stalls.csv")"
	grep -qx 'plain.txt,,1,,1' "$T/m/stalls.csv" || no "matrix frame-log row: $(cat "$T/m/stalls.csv")"
else
	echo "no $R: run-directory checks skipped"
fi

# bad inputs: exit 1, the message names the file and the line
expect 1 "$B" report "$F/garbage-text.csv"
grep -q "error: '.*garbage-text.csv' line 1: " "$T/err" || no "garbage message: $(cat "$T/err")"
expect 1 "$B" report "$F/plain-nan.txt"
grep -q "plain-nan.txt' line 4: expected a frame time" "$T/err" || no "nan message: $(cat "$T/err")"
expect 1 "$B" report "$F/garbage-random.bin"
expect 1 "$B" report "$F/empty.csv"
expect 1 "$B" report "$T/no-such-file.csv"
grep -q "no-such-file.csv" "$T/err" || no "missing file message"
# a good and a bad input: the good row is printed, the status is 1
expect 1 "$B" report --warmup 0 "$F/plain.txt" "$F/garbage-text.csv"
grep -q 'plain.txt' "$T/out" || no "good row with a bad input"
printf '[x]\nfixed = soon\nwhy = y\n' >"$T/bad-rules.ini"
expect 1 "$B" report --rules "$T/bad-rules.ini" "$F/plain.txt"
grep -q "bad-rules.ini' line 2: \[x\] fixed: expected seconds" "$T/err" || no "rules message: $(cat "$T/err")"
mkdir -p "$T/notarun"
expect 1 "$B" report "$T/notarun"
grep -q "notarun' is not a run directory" "$T/err" || no "not a run dir message: $(cat "$T/err")"

# usage errors: exit 2
expect 2 "$B" report
expect 2 "$B" report --cols nope "$F/plain.txt"
expect 2 "$B" report --warmup -1 "$F/plain.txt"
expect 2 "$B" report --from 10 --to 5 "$F/plain.txt"
expect 2 "$B" report --csv --json "$F/plain.txt"
expect 2 "$B" report --format xml "$F/plain.txt"
expect 2 "$B" report --pass 1,x "$F/plain.txt"
expect 2 "$B" report --bogus "$F/plain.txt"
expect 2 "$B" matrix "$F/plain.txt"
expect 0 "$B" report --help
grep -q EXAMPLES "$T/out" || no "--help without EXAMPLES"
expect 0 "$B" matrix --help

[ $fail = 0 ] && echo "report ok"
exit $fail
