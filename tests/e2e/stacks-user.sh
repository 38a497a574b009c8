#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e live root
# Stacks without root (docs/WHERE.md, "Permissions"): at perf_event_paranoid
# 2 a user samples their own program in user mode only. Run as nobody, the
# recorder still names the fake game's busy function in its cpu stall, says
# in run.ini why switch-outs are missing (stacks_reason), and records no
# kernel frames. Root is needed only to become nobody (setpriv).
. "$SS_SRC/tests/e2e/lib/record.sh"
[ "$(id -u)" = 0 ] || { echo "skip: not root (the test runs the recorder as nobody through setpriv)"; exit 77; }
command -v setpriv >/dev/null || { echo "skip: no setpriv (util-linux)"; exit 77; }
GAME=$SS_BUILD/fakegame
[ -x "$GAME" ] || { echo "skip: no fakegame"; exit 77; }
p=$(cat /proc/sys/kernel/perf_event_paranoid)
[ "$p" -le 2 ] || { echo "skip: perf_event_paranoid is $p: no user stacks without root here"; exit 77; }
[ "$p" -eq 2 ] || { echo "skip: perf_event_paranoid is $p, not 2: a user gets switch-outs too"; exit 77; }
chmod 755 "$T"
mkdir -m 777 nr
setpriv --reuid=65534 --regid=65534 --clear-groups "$SS_BIN" record -q --no-exact -o nr/run -- \
	"$GAME" --fps 60 --seconds 1.8 --stall cpu:300@0.4 --stall sleep:200@1.1 >rec.out 2>&1 ||
	fail "record as nobody: $(tail -5 rec.out)"
reason=$(ini nr/run/run.ini stacks_reason)
case "$reason" in
*"no libdw"*) echo "skip: built without libdw"; exit 77 ;;
*"perf_event_open on thread"*) echo "skip: perf_event_open refused here: $reason"; exit 77 ;;
esac
expect_eq "stacks as nobody" "$(ini nr/run/run.ini stacks)" on
case "$reason" in
*"user-mode CPU samples only"*"need root or perf_event_paranoid <= 1 (it is 2)"*) ;;
*) fail "stacks_reason does not say why switch-outs are missing: '$reason'" ;;
esac
"$SS_BIN" stalls nr/run >stalls.txt || fail "stalls"
cat stalls.txt
# the cpu stall (the first): 90 % of its samples in stacks through
# spin_until, whether the sample caught it in itself or in the vDSO's clock
# it calls (seen: 89 % spin_until, 5 % [vdso] <- ... <- spin_until)
busy=$(awk '/^ +[0-9.]+ s  where:/ { n++ } n == 1 && /where: [0-9]+ % .*spin_until <- stall_cpu/ {
	for (i = 1; i <= NF; i++) if ($i == "where:") s += $(i + 1) } END { print s + 0 }' stalls.txt)
[ "$busy" -ge 90 ] || fail "the cpu stall's busy function is not named: $busy % of its samples in spin_until"
# no kernel frames without root (a CPU sample may still fall into the sleep
# stall's few microseconds of user code, so its stacks are not checked)
"$SS_BIN" stalls --json nr/run >stalls.json || fail "stalls --json"
grep -q '"kernel"' stalls.json && fail "kernel frames recorded without root"
grep -q '"stack_samples"' stalls.json || fail "no stacks in stalls --json"
echo ok
