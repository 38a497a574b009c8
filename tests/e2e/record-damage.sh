#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e live parallel
# One flipped byte in the first data block of record.ssr: before, the reader
# stopped there, called it a torn tail, and report printed frames 0, stalls
# 0 (exit 0), which db import stored. Now it is damage: the reader skips to
# the next key block (10 blocks, about 10 s, later), the frames and the
# stall after it are read exactly, the notes say how many bytes and which
# time were lost, the run is a failed run (report, db), and no frame spans
# the hole (it would be a stall nobody saw).
# A short record (4 s: no key block after the first) with one byte flipped
# in its middle was reported as "the last N bytes were torn (a crash?)"
# though run.ini says the recorder finished: now it is damage, said with its
# offset and bytes; a record cut short whose recorder did not finish is
# still a torn tail (a crash).
. "$SS_SRC/tests/e2e/lib/record.sh"
command -v sqlite3 >/dev/null || { echo "skip: sqlite3 missing"; exit 77; }

"$SS_BIN" record -q -o r --frames marker -- "$SS_BUILD/fakegame" --quiet --seconds 14 \
	--stall sleep:300@3 --stall sleep:300@12 || fail "record failed"
"$SS_BIN" report --warmup 0 --json r >whole.json || fail "report of the whole run failed"
"$SS_BIN" stalls --warmup 0 --json r >whole-stalls.json || fail "stalls of the whole run failed"
cp -r r d
# the blocks: a u32 length and a u32 CRC, then the payload; flip a bit in
# the middle of the first after the header block
python3 "$SS_SRC/tests/e2e/lib/damage.py" d/record.ssr 13 || fail "cannot damage the record"
"$SS_BIN" report --warmup 0 --json d >dam.json
expect_eq "report's exit status" $? 0
"$SS_BIN" stalls --warmup 0 --json d >dam-stalls.json
# A loaded machine can add a stall of its own to the run (a frame over
# 100 ms while the suite runs beside it): the damaged run's stalls are
# checked against the whole run's, whatever their number.
python3 - whole.json dam.json whole-stalls.json dam-stalls.json <<'PY' || fail "report --json of the damaged run"
import json, re, sys
w = json.load(open(sys.argv[1]))[0]
d = json.load(open(sys.argv[2]))[0]
ws = [(s["t_s"], s["ms"]) for s in json.load(open(sys.argv[3]))[0]["stalls"]]
ds = [(s["t_s"], s["ms"]) for s in json.load(open(sys.argv[4]))[0]["stalls"]]
planted = lambda st, a, b: [x for x in st if a <= x[0] <= b and 290 < x[1] < 400]
assert not w["failed"] and w["stalls"] == len(ws), (w["stalls"], ws, w["failure"])
assert planted(ws, 2.5, 5) and planted(ws, 11.5, 14), ws
notes = [n for n in d["notes"] if "DAMAGED:" in n]
assert len(notes) == 1 and "from the start to " in notes[0], d["notes"]
lost = float(re.search(r"from the start to ([\d.]+) s", notes[0]).group(1))
# the first 10 s are lost: the stall at 3 s with them, the one at 12 s
# read; what is read is exactly the whole run's stalls after the hole
assert d["failed"] is True and d["failure"].startswith("the record is damaged: "), d["failure"]
assert 9 < lost < 11.5, lost
assert d["stalls"] == len(ds) and ds == [x for x in ws if x[0] > lost], (ds, ws, lost)
assert not planted(ds, 2.5, 5) and planted(ds, 11.5, 14), ds
assert 0 < d["frames"] < w["frames"] * 0.5, (d["frames"], w["frames"])
# no frame across the hole: the longest is one of the stalls read
assert abs(d["longest_ms"] - max(x[1] for x in ds)) < 0.01, (d["longest_ms"], ds)
PY
"$SS_BIN" report --warmup 0 d >dam.txt
grep -q "^!! FAILED runs" dam.txt || fail "report: not listed as failed: $(cat dam.txt)"
"$SS_BIN" db import --db r.db d >/dev/null || fail "db import failed"
expect_eq "db: stored as failed" "$(sqlite3 r.db "select failed from runs")" 1
"$SS_BIN" dump --summary d 2>err >sum
grep -q "^damage offset=" sum || fail "dump: no damage line"
grep -q "DAMAGED" err || fail "dump: damage not said on stderr"

"$SS_BIN" record -q -o s --frames marker -- "$SS_BUILD/fakegame" --quiet --seconds 4 ||
	fail "record of the short run failed"
expect_eq "the short run's recorder finished" "$(ini s/run.ini state)" done
cp -r s flip
cp -r s cut
size=$(stat -c %s s/record.ssr)
# one byte in the middle of the file (past the header block: check it)
python3 - flip/record.ssr <<'PY' || fail "cannot flip a byte"
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
hdr = 16 + 8 + struct.unpack_from("<I", b, 16)[0]
mid = len(b) // 2
assert mid > hdr, (mid, hdr)
b[mid] ^= 0x20
open(sys.argv[1], "wb").write(b)
PY
"$SS_BIN" report --warmup 0 --json flip >flip.json
python3 - flip.json "$size" <<'PY' || fail "report --json of the short run with a flipped byte"
import json, re, sys
d = json.load(open(sys.argv[1]))[0]
size = int(sys.argv[2])
notes = " | ".join(d["notes"])
assert "torn" not in notes and "crash?" not in notes, notes
dam = [n for n in d["notes"] if "DAMAGED:" in n]
assert len(dam) == 1 and "damage, not a crash" in dam[0], d["notes"]
m = re.search(r"DAMAGED: (\d+) bytes at offset (\d+) ", dam[0])
assert m and int(m.group(1)) + int(m.group(2)) == size, (dam[0], size)
assert int(m.group(2)) <= size // 2, dam[0]
assert d["failed"] is True and d["failure"].startswith("the record is damaged: "), d["failure"]
PY
# cut short mid-block, the recorder killed (state=recording): torn, a crash
truncate -s $((size - 7)) cut/record.ssr
sed -i 's/^state=done$/state=recording/' cut/run.ini
"$SS_BIN" report --warmup 0 --json cut >cut.json
python3 - cut.json <<'PY' || fail "report --json of the short run cut short, the recorder killed"
import json, sys
d = json.load(open(sys.argv[1]))[0]
notes = " | ".join(d["notes"])
assert "were torn (a crash?)" in notes and "DAMAGED" not in notes, notes
assert d["failure"].startswith("the recorder did not finish"), d["failure"]
PY
echo ok
