#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e live parallel
# Never a silent zero: a program that runs for 5 s with the hooks in place
# and presents nothing (sleep 5) makes record say so loudly at the end, and
# run.ini, report (text, --json) and stalls say the same, instead of a row
# or a list of zeros. A program whose frames stop 6 s before it ends gets
# the same treatment for that. A run too short to matter (true) and one
# with --frames none say nothing. run.ini and report --json's recorder
# object count the frames per source listened to.
. "$SS_SRC/tests/e2e/lib/record.sh"

# The span is the recorder's, from its first sample: on a loaded machine
# the program's start can take 0.1 s of it (seen: "no frames in 4.9 s").
"$SS_BIN" record -o none -- sleep 5 >out.txt 2>&1 || fail "record sleep 5: $(cat out.txt)"
grep -q '^!! NO FRAMES: no frames in [45]\.[0-9] s: no present call of any kind was seen (listened to: ' out.txt ||
	fail "no loud line at the end: $(cat out.txt)"
note=$(ini none/run.ini frames_note)
case $note in
*"--thread"*) fail "run.ini frames_note suggests --thread, which brings no frame: '$note'" ;;
"no frames in "[45]"."*"no present call of any kind was seen"*"XShmPutImage"*"--frames hud:PATH"*"marker API"*) ;;
*) fail "run.ini frames_note: '$note'" ;;
esac
expect_eq "frames_glx" "$(ini none/run.ini frames_glx)" 0
expect_eq "frames_vk" "$(ini none/run.ini frames_vk)" 0
expect_eq "frames_marker" "$(ini none/run.ini frames_marker)" 0
expect_eq "frames_hud (not listened to)" "$(ini none/run.ini frames_hud)" ""

"$SS_BIN" report none >rep.txt 2>&1
expect_eq "report's exit status (every input without frames)" $? 1
grep -q '^!! runs with no frames' rep.txt || fail "report: no loud section: $(cat rep.txt)"
grep -qF "none: $note" rep.txt || fail "report: the note is not there: $(cat rep.txt)"
grep -q '^source ' rep.txt && fail "report printed a table of a run with no frames: $(cat rep.txt)"
"$SS_BIN" report --json none >rep.json || true
python3 - rep.json "$note" <<'PY' || fail "report --json"
import json, sys
r = json.load(open(sys.argv[1]))[0]
assert r["frames_note"] == sys.argv[2], r["frames_note"]
assert r["notes"][0] == sys.argv[2], r["notes"]
fs = r["recorder"]["frames_by_source"]
assert fs == {"marker": 0, "glx": 0, "egl": 0, "vk": 0, "xshm": 0, "xput": 0, "wlshm": 0}, fs
assert r["recorder"]["frame_pid"] > 0 and r["recorder"]["frame_process"] is None, r["recorder"]
PY
"$SS_BIN" stalls none >st.txt 2>&1
expect_eq "stalls' exit status" $? 1
grep -qF "!! $note" st.txt || fail "stalls: no note: $(cat st.txt)"
grep -q 'stalls$' st.txt && fail "stalls listed zero stalls: $(cat st.txt)"
echo "ok: a run without frames says so in the terminal, run.ini, report and stalls"

# frames that stop: 30 marks, then 6 s of nothing
"$SS_BIN" record -o stop -- sh -c '"$0" --frames 30 --fps 100; sleep 6' "$MARKERS" >out.txt 2>&1 ||
	fail "record: $(cat out.txt)"
grep -q '^!! FRAMES STOPPED: frames stopped 6\.[0-9] s before the end: the last of 30 came' out.txt ||
	fail "no loud line for frames that stopped: $(cat out.txt)"
expect_eq "frames_marker" "$(ini stop/run.ini frames_marker)" 30
expect_eq "frame_process" "$(ini stop/run.ini frame_process)" ss-markers
"$SS_BIN" report --warmup 0 stop >rep.txt 2>&1 || fail "report of a run with frames failed"
grep -q 'frames stopped 6\.' rep.txt || fail "report: no note of the stop: $(cat rep.txt)"
grep -q '^source ' rep.txt || fail "report: no table for a run with frames"
"$SS_BIN" stalls --warmup 0 stop >st.txt 2>&1 || fail "stalls of a run with frames failed"
grep -q '^!! frames stopped 6\.' st.txt || fail "stalls: no note of the stop: $(cat st.txt)"
grep -q '^window: ' st.txt || fail "stalls: no window list"
echo "ok: frames that stop long before the end are said too"

"$SS_BIN" record -o short -- true >out.txt 2>&1 || fail "record true"
grep -q '^!!' out.txt && fail "a short run got a note: $(cat out.txt)"
expect_eq "frames_note of a short run" "$(ini short/run.ini frames_note)" ""
"$SS_BIN" record -q -o off --frames none -- sleep 3.5 >out.txt 2>&1 || fail "record --frames none"
grep -q '^!!' out.txt && fail "--frames none got a note: $(cat out.txt)"
expect_eq "frames_glx with --frames none" "$(ini off/run.ini frames_glx)" ""
echo "ok: no note for a short run or --frames none"
