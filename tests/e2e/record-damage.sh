#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e live
# One flipped byte in the first data block of record.ssr: before, the reader
# stopped there, called it a torn tail, and report printed frames 0, stalls
# 0 (exit 0), which db import stored. Now it is damage: the reader skips to
# the next key block (10 blocks, about 10 s, later), the frames and the
# stall after it are read exactly, the notes say how many bytes and which
# time were lost, the run is a failed run (report, db), and no frame spans
# the hole (it would be a stall nobody saw).
. "$SS_SRC/tests/e2e/lib/record.sh"
command -v sqlite3 >/dev/null || { echo "skip: sqlite3 missing"; exit 77; }

"$SS_BIN" record -q -o r --frames marker -- "$SS_BUILD/fakegame" --quiet --seconds 14 \
	--stall sleep:300@3 --stall sleep:300@12 || fail "record failed"
"$SS_BIN" report --warmup 0 --json r >whole.json || fail "report of the whole run failed"
cp -r r d
# the blocks: a u32 length and a u32 CRC, then the payload; flip a bit in
# the middle of the first after the header block
python3 "$SS_SRC/tests/e2e/lib/damage.py" d/record.ssr 13 || fail "cannot damage the record"
"$SS_BIN" report --warmup 0 --json d >dam.json
expect_eq "report's exit status" $? 0
python3 - whole.json dam.json <<'PY' || fail "report --json of the damaged run"
import json, sys
w = json.load(open(sys.argv[1]))[0]
d = json.load(open(sys.argv[2]))[0]
assert w["stalls"] == 2 and not w["failed"], (w["stalls"], w["failure"])
# the first 10 s are lost: the stall at 3 s with them, the one at 12 s read
assert d["failed"] is True and d["failure"].startswith("the record is damaged: "), d["failure"]
assert d["stalls"] == 1, d["stalls"]
assert 0 < d["frames"] < w["frames"] * 0.5, (d["frames"], w["frames"])
# no frame across the hole: the longest is the 300 ms stall
assert 290 < d["longest_ms"] < 400, d["longest_ms"]
notes = [n for n in d["notes"] if "DAMAGED:" in n]
assert len(notes) == 1 and "from the start to " in notes[0], d["notes"]
PY
"$SS_BIN" report --warmup 0 d >dam.txt
grep -q "^!! FAILED runs" dam.txt || fail "report: not listed as failed: $(cat dam.txt)"
"$SS_BIN" db import --db r.db d >/dev/null || fail "db import failed"
expect_eq "db: stored as failed" "$(sqlite3 r.db "select failed from runs")" 1
"$SS_BIN" dump --summary d 2>err >sum
grep -q "^damage offset=" sum || fail "dump: no damage line"
grep -q "DAMAGED" err || fail "dump: damage not said on stderr"
echo ok
