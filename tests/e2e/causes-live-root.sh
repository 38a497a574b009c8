#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e live root
# The cause rules on the live stalls that need root: direct reclaim in a
# memory cgroup at its limit (with swap, so reclaim compresses pages out) and
# a swap-in from zram. Makes a zram swap device for the test
# (tools/zram-swap.sh) and removes it after. Skips (77) when not root or
# when no zram swap can be made here.
. "$SS_SRC/tests/e2e/lib/causes-live.sh"
RECORD_ARGS=--no-exact	# the snapshot rules; exact-causes.sh has exact mode's
[ "$(id -u)" = 0 ] || { echo "skip: not root (memory cgroups, swapon)"; exit 77; }
Z="$SS_SRC/tools/zram-swap.sh"
export ZRAM_SWAP_STATE="$T/zram-state"
dev=$("$Z" on 1536M) || { rc=$?; echo "skip: no zram swap here (zram-swap.sh on: $rc)"; exit 77; }
CLEANUP="\"$Z\" off"
echo "swap on /dev/$dev"
record_and_check 3.5 reclaim:reclaim:- swap:swap:swap_zram
