#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e
# `stallscope dump` on committed records: the exact text of a small steady
# record (a golden file: it also catches any change of the format that would
# misread old files), a run directory, a torn tail (kept, counted, exit 0),
# the summary, and the errors: garbage, an empty file, a missing file, a
# newer major version, usage.
set -u
fx="$SS_FIXTURES/rec"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# The golden text (run from the fixture directory: the file name is printed),
# of a version 1.0 record and of a 2.0 one
for g in steady-30 steady-30-v2; do
	out=$(cd "$fx" && "$SS_BIN" dump $g.ssr) || bad "dump $g.ssr failed"
	if ! diff <(echo "$out") "$fx/$g.dump" >"$tmp/diff"; then
		bad "dump $g.ssr differs from $g.dump:"; head -20 "$tmp/diff"
	fi
done

# A damaged 2.0 record: the damage said (a line of its own, and on stderr),
# the blocks after the next key block read
dm=$SS_FIXTURES/rec-corpus/busy-1500-v2-damaged.ssr
out=$("$SS_BIN" dump --summary "$dm" 2>"$tmp/err") || bad "dump of a damaged record failed"
echo "$out" | grep -Eq "^damage offset=[0-9]+ bytes=[0-9]+ from=[0-9.]+ to=[0-9.]+$" ||
	bad "no damage line: $(echo "$out" | tail -2)"
echo "$out" | grep -Eq "^summary samples=700 .* torn_bytes=0 complete=yes .* damaged_bytes=[1-9][0-9]*$" ||
	bad "summary of the damaged record: $(echo "$out" | tail -1)"
grep -q "^!! .* is DAMAGED: [0-9]* bytes in 1 place" "$tmp/err" || bad "damage not said: $(cat "$tmp/err")"

# A run directory: RUNDIR/record.ssr.
mkdir -p "$tmp/run"
cp "$fx/busy-300.ssr" "$tmp/run/record.ssr"
sum=$("$SS_BIN" dump --summary "$tmp/run/") || bad "dump RUNDIR failed"
echo "$sum" | grep -q "^summary samples=300 frames=[0-9]* threads=30 clocks=1 .* torn_bytes=0 complete=yes" ||
	bad "summary of busy-300: $(echo "$sum" | tail -1)"
[ "$(echo "$sum" | grep -c '^sample')" = 0 ] || bad "--summary printed samples"
n=$("$SS_BIN" dump "$tmp/run" | grep -c "^sample t=")
[ "$n" = 300 ] || bad "busy-300 has $n sample lines, expected 300"

# A torn tail: a recorder killed while writing its last block.
size=$(stat -c %s "$fx/busy-300.ssr")
head -c $((size - 5)) "$fx/busy-300.ssr" >"$tmp/torn.ssr"
sum=$("$SS_BIN" dump --summary "$tmp/torn.ssr") || bad "dump of a torn record failed"
echo "$sum" | grep -q "^summary samples=300 .* torn_bytes=[1-9][0-9]* complete=no" ||
	bad "summary of the torn record: $(echo "$sum" | tail -1)"

# A newer writer's record type is skipped and counted (a hand-made record
# with every record type, from the fuzz corpus).
out=$("$SS_BIN" dump "$SS_FIXTURES/rec-corpus/handmade.ssr") || bad "dump handmade.ssr failed"
echo "$out" | grep -q "^summary samples=2 frames=1 threads=1 clocks=1 events=1 strings=1 unknown_records=1 torn_bytes=0 complete=yes" ||
	bad "handmade: $(echo "$out" | tail -1)"
echo "$out" | grep -q "^threads t=0.000000000 n=2 100:'':0:0 101:'':5000:0$" || bad "handmade: threads line"
echo "$out" | grep -q "^sample t=0.000000015$" || bad "handmade: second sample (period 10 ns)"

# Errors: exit 1 with a message naming the file; usage: exit 2.
printf 'hello, world, this is not a record\n' >"$tmp/garbage"
: >"$tmp/empty"
msg=$("$SS_BIN" dump "$tmp/garbage" 2>&1); rc=$?
[ $rc = 1 ] || bad "garbage: exit $rc"
echo "$msg" | grep -q "error: '$tmp/garbage' offset 0: not a stallscope record" || bad "garbage: $msg"
msg=$("$SS_BIN" dump "$tmp/empty" 2>&1); rc=$?
[ $rc = 1 ] || bad "empty: exit $rc"
echo "$msg" | grep -q "empty file" || bad "empty: $msg"
msg=$("$SS_BIN" dump "$tmp/nope.ssr" 2>&1); rc=$?
[ $rc = 1 ] || bad "missing: exit $rc"
echo "$msg" | grep -q "cannot open '$tmp/nope.ssr'" || bad "missing: $msg"
# Version 2.0: bytes 8-9 are the major version.
cp "$fx/steady-30.ssr" "$tmp/v2.ssr"
printf '\x03' | dd of="$tmp/v2.ssr" bs=1 seek=8 conv=notrunc status=none
msg=$("$SS_BIN" dump "$tmp/v2.ssr" 2>&1); rc=$?
[ $rc = 1 ] || bad "v2: exit $rc"
echo "$msg" | grep -q "version 3.0 is newer than this reader (2\.[0-9]*)" || bad "v2: $msg"
"$SS_BIN" dump >/dev/null 2>&1; rc=$?
[ $rc = 2 ] || bad "no argument: exit $rc"
"$SS_BIN" dump --bogus x >/dev/null 2>&1; rc=$?
[ $rc = 2 ] || bad "unknown option: exit $rc"
"$SS_BIN" dump --help | grep -q EXAMPLES || bad "--help has no EXAMPLES"

[ $fail = 0 ] && echo "dump ok"
exit $fail
