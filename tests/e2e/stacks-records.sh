#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e
# Stacks in records of both versions (docs/FORMAT.md, "Stacks"): a record
# from before 2.3, whose stalls' stacks are ustack events named at record
# time, shows the same where: lines as it always did; a 2.3 record's USTACK
# windows come out of dump with their mappings (file and build-id), and
# stalls names them from the files or says, once per file, which is not
# on this machine or differs.
set -u
OLD=$SS_FIXTURES/rec-corpus/stacks-fakegame.ssr
NEW=$SS_FIXTURES/rec-corpus/stacks-2.3.ssr
[ -f "$OLD" ] && [ -f "$NEW" ] || { echo "skip: fixtures missing"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
for r in old new; do
	mkdir $r
	printf 'program=fakegame\nstate=done\n' >$r/run.ini
done
cp "$OLD" old/record.ssr
cp "$NEW" new/record.ssr

"$SS_BIN" stalls --warmup 0 old >old.txt 2>&1 || fail "stalls on the old record: $(cat old.txt)"
cat >want.txt <<'W'
       0.304 s  where: 99 % spin_until <- stall_cpu.constprop.0 <- do_stall <- main <- __libc_start_call_main <- ...  (150 samples)
                where: 1 % __vdso_clock_gettime <- clock_gettime <- spin_until <- stall_cpu.constprop.0 <- do_stall <- ...
W
grep '  where: ' old.txt >got.txt
diff want.txt got.txt >/dev/null || fail "the old record's where: lines changed: $(diff want.txt got.txt)"

"$SS_BIN" dump new >dump.txt 2>&1 || fail "dump of the 2.3 record: $(tail -3 dump.txt)"
[ "$(grep -c '^ustack t=' dump.txt)" = 2 ] || fail "not 2 ustack windows in the 2.3 record's dump"
grep -Eq "^umap id=1 build_id=[0-9a-f]{40} path='/.*/fakegame'$" dump.txt ||
	fail "no fakegame mapping in the dump: $(grep umap dump.txt)"
grep -q 'ustacks=2' dump.txt || fail "the summary does not count the windows"
"$SS_BIN" stalls --warmup 0 new >new.txt 2>&1 || fail "stalls on the 2.3 record: $(cat new.txt)"
[ "$(grep -c '^ \+[0-9.]\+ s  where: ' new.txt)" = 2 ] || fail "not 2 stalls with stacks: $(cat new.txt)"
# the fakegame it names is this build's only if it was not rebuilt since:
# either its functions are named, or its frames are [unknown] with one note
if grep -q 'where: .*\[unknown\]' new.txt; then
	[ "$(grep -c '^note: .*stacks: .*/fakegame (build-id [0-9a-f]*) is not on this machine or differs' new.txt)" = 1 ] ||
		fail "[unknown] frames without one note for the file: $(cat new.txt)"
else
	grep -q 'where: [0-9]* % spin_until <- stall_cpu' new.txt || fail "frames neither named nor [unknown]: $(cat new.txt)"
fi
echo ok
