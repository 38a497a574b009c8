#!/bin/sh
# SPDX-License-Identifier: MIT
#
# zram-swap.sh on [SIZE] | off | status: a zram swap device for the fake
# game's swap stalls (tests and make demo), as root. "on" takes the first
# free zram device (zram0 if it is unused; hot-adds one where the kernel
# supports it), sizes it (default 1G), makes it swap and prints its name;
# "off" undoes only what "on" made (the device named in the state file).
# Exit 0 done, 1 failure, 77 when this machine cannot (not root, no zram).
# A test program's helper: the /sys paths are here, not in src/.
set -u
state=${ZRAM_SWAP_STATE:-/run/stallscope-zram-swap}
what=${1:-status}

case $what in
on)
	size=${2:-1G}
	[ "$(id -u)" -eq 0 ] || { echo "zram-swap: not root" >&2; exit 77; }
	[ -e /sys/class/block/zram0 ] || modprobe zram 2>/dev/null
	dev=
	for d in /sys/class/block/zram*; do
		[ -e "$d/disksize" ] || continue
		if [ "$(cat "$d/disksize")" = 0 ]; then dev=${d##*/}; break; fi
	done
	if [ -z "$dev" ] && [ -e /sys/class/zram-control/hot_add ]; then
		dev=zram$(cat /sys/class/zram-control/hot_add)
	fi
	[ -n "$dev" ] || { echo "zram-swap: no free zram device" >&2; exit 77; }
	echo "$size" > "/sys/block/$dev/disksize" || exit 1
	mkswap "/dev/$dev" >/dev/null || { echo 1 > "/sys/block/$dev/reset"; exit 1; }
	if ! swapon -p 100 "/dev/$dev"; then
		echo 1 > "/sys/block/$dev/reset"
		echo "zram-swap: swapon /dev/$dev failed" >&2
		exit 77
	fi
	echo "$dev" > "$state"
	echo "$dev"
	;;
off)
	[ -f "$state" ] || exit 0
	dev=$(cat "$state")
	swapoff "/dev/$dev" 2>/dev/null
	echo 1 > "/sys/block/$dev/reset" 2>/dev/null
	rm -f "$state"
	;;
status)
	cat /proc/swaps
	;;
*)
	echo "usage: $0 on [SIZE] | off | status" >&2
	exit 2
	;;
esac
