#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e live root
# Exact mode's intervals with their user stacks (docs/WHERE.md): the fake
# game's sleep, futex and pipe stalls, recorded with --exact, each show in
# `stalls` as their longest interval with the calling function at the
# switch-out ("..., at futex_do_wait, from syscall <- stall_wait <- ...")
# and in `stalls --json` as the interval's user_stack; only stalls pay: the
# frame limiter's sleeps between frames (intervals too) get no stack. Skips
# (77) when not root or where exact mode cannot load, saying why.
. "$SS_SRC/tests/e2e/lib/record.sh"
[ "$(id -u)" = 0 ] || { echo "skip: not root (exact mode loads BPF)"; exit 77; }
GAME=$SS_BUILD/fakegame
[ -x "$GAME" ] || { echo "skip: no fakegame"; exit 77; }
command -v python3 >/dev/null || { echo "skip: no python3"; exit 77; }

if ! "$SS_BIN" record -q --exact -o run -- "$GAME" --fps 60 --seconds 1.6 \
	--stall sleep:150@0.5 --stall wait:150@0.8 --stall pipe:150@1.1 >rec.out 2>&1; then
	if grep -q 'exact mode is not available here' rec.out; then
		echo "skip: $(grep -m1 'exact mode is not available' rec.out)"
		exit 77
	fi
	fail "record --exact: $(tail -5 rec.out)"
fi
if [ "$(ini run/run.ini stacks)" != on ]; then
	reason=$(ini run/run.ini stacks_reason)
	case "$reason" in
	*"no libdw"*) echo "skip: built without libdw: $reason"; exit 77 ;;
	*"perf_event_open on thread"*) echo "skip: this machine refuses perf_event_open: $reason"; exit 77 ;;
	esac
	fail "stacks not on: $reason"
fi
[ "$(ini run/run.ini exact_flavour)" = raw_tp ] &&
	{ echo "skip: exact mode loaded as raw_tp here (no sleeping task's stacks)"; exit 77; }
"$SS_BIN" stalls run >stalls.txt || fail "stalls"
cat stalls.txt
# the text: each blocking stall's interval says where it was called from
for fn in stall_sleep stall_wait stall_pipe; do
	grep -Eq "exact: [a-z]+ 1[0-9.]+ ms in [^;]*, from [^;]*$fn" stalls.txt ||
		fail "no interval '..., from ... <- $fn' in stalls (above)"
done
"$SS_BIN" stalls --json run >stalls.json || fail "stalls --json"
python3 - stalls.json <<'PY' || fail "the intervals' user stacks (stalls above)"
import json, sys
st = json.load(open(sys.argv[1]))[0]
st = st["stalls"] + st["warm_stalls"]
st.sort(key=lambda s: s["t_s"])
if len(st) != 3:
    sys.exit("expected 3 stalls, got %d" % len(st))
bad = []
for s, (fn, cls) in zip(st, (("stall_sleep", "sleep"), ("stall_wait", "futex"),
                             ("stall_pipe", None))):
    iv = (s["intervals"] or {}).get("longest") or []
    if not iv:
        bad.append("%s: no interval" % fn)
        continue
    us = iv[0].get("user_stack") or []
    if (cls and iv[0]["class"] != cls) or iv[0]["ms"] < 100:
        bad.append("%s: longest interval %s %.1f ms" % (fn, iv[0]["class"], iv[0]["ms"]))
    if not any(f.startswith(fn) for f in us) or "main" not in us:
        bad.append("%s: the interval's user stack is %s" % (fn, us))
if bad:
    sys.exit("; ".join(bad))
PY
# only stalls pay: each stall's few intervals have stacks, the ~90 frame
# limiter sleeps between frames none
n=$(ini run/run.ini stacks_intervals)
all=$(ini run/run.ini exact_intervals)
expect_ge "stacks_intervals" "$n" 3
expect_ge "exact_intervals" "$all" 40
[ "$n" -le 24 ] || fail "stacks_intervals is $n (of $all intervals): more than the three stalls' (8 each at most)"
expect_eq "ivstack windows against run.ini" "$("$SS_BIN" dump run | grep -c '^ivstack t=')" "$n"
echo "ok"
