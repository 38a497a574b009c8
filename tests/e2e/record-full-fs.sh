#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e live root
# The run directory's file system fills up during a run (a 512 KiB tmpfs,
# filled while the program runs): the record cannot be moved in and the
# final run.ini cannot be written. Before, the final run.ini (end, exit
# status, the recorder's figures) was lost and report said "the recorder did
# not finish: killed?". Now record keeps it beside the record in /dev/shm,
# says where, and report reads both from there. And a start on a file
# system that is already full leaves no run directory and nothing in
# /dev/shm.
. "$SS_SRC/tests/e2e/lib/record.sh"
[ "$(id -u)" = 0 ] || { echo "skip: mounting a small tmpfs needs root"; exit 77; }
mkdir small
mount -t tmpfs -o size=512k tmpfs small 2>/dev/null || { echo "skip: cannot mount a tmpfs"; exit 77; }
trap 'umount -l "$T/small" 2>/dev/null; rm -f /dev/shm/stallscope-$rec-* 2>/dev/null; cleanup' EXIT
rec=none

"$SS_BIN" record -q -o small/run --frames marker -- "$SS_BUILD/fakegame" --quiet --seconds 3 2>err &
rec=$!
KILL_ON_EXIT=$rec
for _ in $(seq 100); do
	[ -f small/run/run.ini ] && break
	sleep 0.05
done
[ -f small/run/run.ini ] || fail "no run.ini after 5 s"
dd if=/dev/zero of=small/fill bs=4k 2>/dev/null	# until the file system is full
wait $rec
rc=$?
KILL_ON_EXIT=
cat err
expect_eq "record's exit status" $rc 1
final=$(sed -n "s/.*the final run.ini is at '\([^']*\)'.*/\1/p" err)
case $final in /dev/shm/stallscope-$rec-*.ini) ;; *) fail "the error does not say where the final run.ini is: $(cat err)" ;; esac
expect_eq "the final run.ini: state" "$(ini "$final" state)" done
expect_eq "the final run.ini: end" "$(ini "$final" end)" exit
expect_eq "the final run.ini: exit status" "$(ini "$final" exit_status)" 0
expect_eq "run.ini in the run directory: still the first" "$(ini small/run/run.ini state)" recording
"$SS_BIN" report --warmup 0 --json small/run >rep.json 2>rep.err || fail "report failed: $(cat rep.err)"
python3 - rep.json <<'PY' || fail "report did not read the final run.ini"
import json, sys
d = json.load(open(sys.argv[1]))[0]
notes = " | ".join(d["notes"])
assert d["frames"] > 100, d["frames"]
assert not d["failed"], d["failure"]
assert "its final run.ini is at '/dev/shm/" in notes, notes
assert "killed?" not in notes, notes
assert "its move into the run directory failed" in notes, notes
PY
rm -f /dev/shm/stallscope-$rec-*

# a start on a full file system: nothing left anywhere
before=$(ls /dev/shm | grep -c '^stallscope-' || true)
"$SS_BIN" record -q -o small/run2 --frames marker -- "$SS_BUILD/fakegame" --quiet --seconds 1 2>err2
rc=$?
cat err2
expect_eq "a start on a full file system: exit status" $rc 1
[ -e small/run2 ] && fail "a failed start left a run directory: $(ls -la small/run2)"
after=$(ls /dev/shm | grep -c '^stallscope-' || true)
expect_eq "nothing left in /dev/shm" "$after" "$before"
echo ok
