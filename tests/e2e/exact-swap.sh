#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e live root
# exact-causes.sh's swap stall on its own: the fake game's swap-in from a
# zram swap device (tools/zram-swap.sh), recorded with --exact and with
# --no-exact, must get cause swap for >= 95 % of its seconds both ways.
# Skips (77) when not root, where exact mode cannot load, or where the
# kernel has no zram device to make (saying why).
set -u
[ "$(id -u)" = 0 ] || { echo "skip: not root (exact mode loads BPF, zram needs root)"; exit 77; }
Z="$SS_SRC/tools/zram-swap.sh"
state=$(mktemp)
export ZRAM_SWAP_STATE=$state
dev=$("$Z" on 1536M 2>"$state.err")
rc=$?
if [ $rc = 77 ]; then
	echo "skip: no zram swap here: $(cat "$state.err")"; rm -f "$state" "$state.err"; exit 77
elif [ $rc != 0 ]; then
	echo "FAIL: tools/zram-swap.sh on: $(cat "$state.err")"; rm -f "$state" "$state.err"; exit 1
fi
rm -f "$state.err"
echo "swap on /dev/$dev"
# exact-causes.sh with this kind only; its cleanup turns the swap off
EXACT_KINDS=swap:swap:-
EXACT_CLEANUP="\"$Z\" off; rm -f '$state'"
. "$SS_SRC/tests/e2e/exact-causes.sh"
