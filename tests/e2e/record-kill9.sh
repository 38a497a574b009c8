#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e live
# kill -9 of the recorder mid-run: the record stays where it grows, in
# /dev/shm (run.ini, written at the start, names it: record_tmp), with every
# block flushed up to the last second; dump and report of the run directory
# read what is left there (with a note), and of a copy of it. The ring the
# killed recorder left in /dev/shm goes at the next record's start, which
# says how many records are left there (issue 31); dump --salvage moves the
# record and the files beside it into a run directory (and refuses a link
# or a file outside /dev/shm).
. "$SS_SRC/tests/e2e/lib/record.sh"

"$SS_BIN" record -q -o run --frames marker -- "$MARKERS" --fps 100 --seconds 20 &
rec=$!
KILL_ON_EXIT=$rec
wait_for "the recorder to start" 60 test -f run/run.ini
# until 50 samples and 50 frames are flushed to the record in /dev/shm
# (blocks are flushed each second), 60 s at most
flushed() {
	"$SS_BIN" dump "$(ini run/run.ini record_tmp)" 2>/dev/null |
		awk '$1 == "sample" { s++ } $1 == "frame" { f++ } END { exit !(s >= 50 && f >= 50) }'
}
wait_for "50 flushed samples and frames" 60 flushed
kill -9 $rec
wait $rec 2>/dev/null
child=$(ini run/run.ini pid)
KILL_ON_EXIT=$child
kill -9 "$child" 2>/dev/null
expect_eq state "$(ini run/run.ini state)" recording
tmp=$(ini run/run.ini record_tmp)
case $tmp in /dev/shm/*) ;; *) fail "record_tmp is '$tmp', expected a file in /dev/shm" ;; esac
[ -f "$tmp" ] || fail "the record '$tmp' is not there"
# the killed recorder's ring is left in /dev/shm; the next record removes
# it (its pid is dead) and leaves the record where it grew
ring_left() { ls /dev/shm | grep -Eqx "stallscope-$rec-[0-9]+"; }
ring_left || fail "no ring of the killed recorder in /dev/shm: $(ls /dev/shm | grep stallscope)"
"$SS_BIN" record -o run2 --frames marker -- true 2>record2.err || fail "record after the kill"
grep -Eq '^stallscope record: [0-9]+ records? left in /dev/shm by recordings that did not end' \
	record2.err || fail "record does not say what is left in /dev/shm: $(cat record2.err)"
ring_left && fail "the killed recorder's ring is still there: $(ls /dev/shm | grep "stallscope-$rec-")"
[ -f "$tmp" ] || fail "the next record removed the killed run's record '$tmp'"
# the program's output so far is there too, raw (output_tmp) and stamped (log_tmp)
out=$(ini run/run.ini output_tmp)
[ -f "$out" ] || fail "output_tmp '$out' is not there"
[ -f run/record.ssr ] && fail "record.ssr moved although the recorder was killed"
# dump and report of the run directory find the record where it grew, and say so
"$SS_BIN" dump run > dump.txt 2> dump.err || { rm -f "$tmp" /dev/shm/stallscope-$rec-*; fail "dump run failed: $(cat dump.err)"; }
grep -q "did not finish" dump.err || fail "dump run does not say the record is the temporary one: $(cat dump.err)"
if "$SS_BIN" 2>&1 | grep -q '^  report '; then
	"$SS_BIN" report --warmup 0 run > report0.txt 2>&1 || { rm -f "$tmp" /dev/shm/stallscope-$rec-*; fail "report run failed: $(cat report0.txt)"; }
	grep -q "did not finish" report0.txt || fail "report run has no note of the unfinished record: $(cat report0.txt)"
fi
# salvaged: moved whole into a run directory, nothing left behind
cp "$tmp" "$T/copy.ssr"
"$SS_BIN" dump --salvage "$T/salvaged" "$tmp" > salvage.txt 2>&1 ||
	{ rm -f "$tmp" /dev/shm/stallscope-$rec-*; fail "dump --salvage failed: $(cat salvage.txt)"; }
grep -q ": record.ssr program.log program.out$" salvage.txt || fail "salvage moved: $(cat salvage.txt)"
[ -e "$tmp" ] && { rm -f "$tmp" /dev/shm/stallscope-$rec-*; fail "the salvaged record is still in /dev/shm"; }
cmp -s "$T/copy.ssr" "$T/salvaged/record.ssr" || fail "the salvaged record differs from what was left"
ls /dev/shm | grep -q "^stallscope-$rec-.*\.\(log\|out\|ini\|ssr\)$" && fail "files of the run left: $(ls /dev/shm | grep "stallscope-$rec-")"
rm -f /dev/shm/stallscope-$rec-*
link=/dev/shm/stallscope-999999999-20260101T000000Z-kill9.ssr
ln -s "$T/copy.ssr" "$link"
"$SS_BIN" dump --salvage "$T/bad1" "$link" > /dev/null 2>&1 && fail "dump --salvage took a link"
rm -f "$link"
"$SS_BIN" dump --salvage "$T/bad2" "$T/copy.ssr" > /dev/null 2>&1 && fail "dump --salvage took a file outside /dev/shm"
[ -e "$T/copy.ssr" ] || fail "a refused salvage removed its file"
cp "$T/salvaged/record.ssr" "$T/left.ssr"
cmp -s dump.txt <("$SS_BIN" dump "$T/left.ssr" 2>/dev/null | sed "s|file='[^']*'|file='$tmp'|") ||
	fail "dump run and dump of the record itself differ"
"$SS_BIN" dump "$T/left.ssr" > dump.txt || fail "dump failed on the torn record"
n=$(awk '$1 == "sample" { n++ } END { print n + 0 }' dump.txt)
f=$(awk '$1 == "frame" { n++ } END { print n + 0 }' dump.txt)
# at least one flushed second of samples and frames survives
expect_ge samples "$n" 50
expect_ge frames "$f" 50
if "$SS_BIN" 2>&1 | grep -q '^  report '; then
	cp "$T/left.ssr" run/record.ssr
	"$SS_BIN" report run > report.txt 2>&1 || fail "report failed: $(cat report.txt)"
fi
echo "ok: $n samples and $f frames read back after kill -9"
