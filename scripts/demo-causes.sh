#!/bin/sh
# SPDX-License-Identifier: MIT
# demo-causes.sh BUILD: the main job. Records the fake game (build/fakegame)
# with `stallscope record` while it stalls 300 ms in each way this machine
# allows, then prints `report` (with the stall cause columns) and `stalls`
# (every stall, its cause and the evidence). Root adds reclaim (a memory
# cgroup) and swap (a zram swap device made for the demo and removed after).
# DEMO_RUN_OUT=DIR keeps a copy of the run directory there.
set -eu
build=$(cd "${1:-build}" && pwd)
bin=$build/stallscope
game=$build/fakegame
src=$(cd "$(dirname "$0")/.." && pwd)
[ -x "$game" ] || { echo "demo: no $game (make build)" >&2; exit 1; }
tmp=$(mktemp -d "$build/demo-causes.XXXXXX")
zram=
cleanup() {
	[ -n "$zram" ] && ZRAM_SWAP_STATE="$tmp/zram" "$src/tools/zram-swap.sh" off
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

kinds="cpu runq wait sleep"
left=
case $(stat -f -c %T "$tmp") in
tmpfs | ramfs | overlayfs) left="$left io and disk (the build tree is not on a disk);" ;;
*) kinds="$kinds io disk" ;;
esac
if [ "$(id -u)" -eq 0 ]; then
	kinds="$kinds reclaim"
	# no zram device when DEMO_KINDS (below) leaves swap out
	case " ${DEMO_KINDS:-swap} " in *" swap "*) want_swap=1 ;; *) want_swap= ;; esac
	if [ -z "$want_swap" ]; then
		:
	elif zram=$(ZRAM_SWAP_STATE="$tmp/zram" "$src/tools/zram-swap.sh" on 1536M 2>/dev/null); then
		kinds="$kinds swap"
	else
		zram=
		left="$left swap (no zram swap device here);"
	fi
else
	left="$left reclaim and swap (root only: memory cgroups, swapon);"
fi
# DEMO_KINDS="cpu sleep" keeps only those (tests/e2e/demo.sh: a short demo)
if [ -n "${DEMO_KINDS:-}" ]; then
	keep=
	for k in $kinds; do
		case " $DEMO_KINDS " in *" $k "*) keep="$keep $k" ;; esac
	done
	kinds=$keep
	left=
fi
args= at=1
for k in $kinds; do
	args="$args --stall $k:300@$at"
	at=$(awk -v a="$at" 'BEGIN { print a + 0.8 }')
done
secs=$(awk -v a="$at" 'BEGIN { print a + 0.5 }')

echo
echo "== stallscope record -- fakegame$args"
[ -n "$left" ] && echo "   (left out:$left)"
# shellcheck disable=SC2086
"$bin" record -o "$tmp/run" -- "$game" --seconds "$secs" --dir "$tmp" $args
echo
echo "== stallscope report --warmup 0: the stall seconds by cause"
"$bin" report --warmup 0 --cols frames,stalls,stall_s,stall_disk_s,stall_swap_s,stall_reclaim_s,stall_cpu_s,stall_io_s,stall_wait_s,stall_other_s,stall_why,load_disk_s "$tmp/run"
echo
echo "== stallscope stalls --warmup 0: every stall, its cause and the evidence"
"$bin" stalls --warmup 0 --stack-lines 2 "$tmp/run"
echo
if [ -n "${DEMO_RUN_OUT:-}" ]; then
	# the run kept for a caller (tests/e2e/html.sh)
	cp -r "$tmp/run" "$DEMO_RUN_OUT"
fi
echo "== what the fake game says it did"
# program.log lines are stamped '[seconds since t0] ' by record
grep '^\(\[[0-9.]*\] \)\{0,1\}fakegame: stall' "$tmp/run/program.log" | sed 's/ (mono [0-9.]*)//'
