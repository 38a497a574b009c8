#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e live parallel
# A bench in which one variant's program exits at once with status 3 (no
# frames): each of its runs is a failed run, said loudly as it ends and at
# the end, stored with the flag and why; compare refuses a side with no good
# run (exit 1) instead of calling it "stalls -100 %, p 0.013"; matrix and
# report leave failed runs out and list them; --include-failed keeps them;
# record itself exits 3 when its program failed.
set -u
GAME=$SS_BUILD/fakegame
[ -x "$GAME" ] || { echo "skip: $GAME not built"; exit 77; }
[ -d /dev/shm ] || { echo "skip: no /dev/shm"; exit 77; }
command -v sqlite3 >/dev/null || { echo "skip: sqlite3 missing"; exit 77; }
T=$(mktemp -d /tmp/ss-e2e-bfail.XXXXXX)
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
fail=0
check() { if eval "$2"; then echo "ok   $1"; else echo "FAIL $1"; fail=1; fi; }

cat >game.sh <<SH
#!/bin/sh
[ -n "\$FAIL" ] && exit 3
exec "$GAME" --quiet --seconds 1.2 --fps 60 --stall sleep:150@0.6
SH
chmod +x game.sh

"$SS_BIN" bench fb --db r.db --results runs --rounds 4 --variants "- FAIL=1" --warmup 0 \
	--frames marker --no-watch -- ./game.sh >out 2>err
rc=$?
cat out err
check "bench exits 3: every run stored, some failed" '[ $rc = 3 ]'
check "each failed run said loudly as it ends" '[ $(grep -c "^!! RUN [2468]/8 FAILED: the program exited with status 3; stored as failed" err) = 4 ]'
check "and at the end, with the variant that has no good run" 'grep -q "8 runs of .fb. stored .*4 failed" out && grep -q "^!! 4 FAILED runs:" out && grep -q "^!! variant .FAIL=1. has no good run" out'
check "no compare hint for a variant with no good run" '! grep -q "compare.*FAIL=1" out'
check "the database holds the flag and why" '[ "$(sqlite3 r.db "select count(*) from runs where failed = 1 and variant = '\''FAIL=1'\'' and failure = '\''the program exited with status 3'\''")" = 4 ] && [ "$(sqlite3 r.db "select count(*) from runs where failed = 0 and variant = '\''-'\''")" = 4 ]'

"$SS_BIN" runs --db r.db >runs.out
check "runs: a failed column and the count" 'grep -q "8 runs, 0 interfered, 4 failed" runs.out && grep -Eq " 3 +1 +/.*FAIL_1 .*the program exited with status 3$" runs.out'

"$SS_BIN" compare --db r.db fb fb:FAIL=1 >cmp 2>cmp.err
rc=$?
cat cmp cmp.err
check "compare: no good runs on b is an error, not -100 %" '[ $rc = 1 ] && grep -q "that did not fail" cmp.err && ! grep -q "%" cmp'

"$SS_BIN" matrix --db r.db --name fb -o m/ >mat
rc=$?
cat mat
check "matrix --db: failed runs left out, listed in failed.txt" '[ $rc = 0 ] && ! grep -q "FAIL=1" m/stalls.csv && [ $(grep -c "fb:FAIL=1 round" m/failed.txt) = 4 ] && grep -q "left out: 4 FAILED runs" mat'
check "matrix -o m/: no doubled slash in what it says" '! grep -q "//" mat'
check "matrix: counts are integers, not 2.0" 'grep -Eq "^fb,-,1,1,1,1,1$" m/stalls.csv && grep -Eq "^fb,-,[0-9]+,[0-9]+,[0-9]+,[0-9]+,[0-9.]+$" m/frames.csv'
"$SS_BIN" matrix --db r.db --name fb --include-failed -o m2 >/dev/null
check "matrix --include-failed keeps them" 'grep -q "^fb,FAIL=1," m2/stalls.csv'

bad=$(ls -d runs/*-FAIL_1 | head -1)
good=$(ls -d runs/*-base | head -1)
"$SS_BIN" report --warmup 0 "$good" "$bad" >rep 2>&1
cat rep
check "report lists the failed run loudly" 'grep -q "^!! FAILED runs (left out of medians" rep && grep -q "FAIL_1: the program exited with status 3" rep'
"$SS_BIN" report --warmup 0 --json "$bad" >rep.json
check "report --json: failed and failure" '/usr/bin/python3 -c "
import json; d = json.load(open(\"rep.json\"))[0]
assert d[\"failed\"] is True and d[\"failure\"] == \"the program exited with status 3\", d
assert d[\"notes\"][0].startswith(\"FAILED RUN: \"), d[\"notes\"]
"'

# record on its own: the program's failure is its exit status 3
"$SS_BIN" record -q -o rec-false --frames none -- false; rc=$?
check "record -- false exits 3" '[ $rc = 3 ]'
"$SS_BIN" record -q -o rec-true --frames none -- true; rc=$?
check "record -- true exits 0" '[ $rc = 0 ]'
"$SS_BIN" record -q -o rec-segv --frames none -- sh -c 'kill -SEGV $$'; rc=$?
check "a program killed by a signal it was not sent: exit 3" '[ $rc = 3 ] && grep -q "^exit_signal=SEGV" rec-segv/run.ini'
exit $fail
