#!/bin/bash
# SPDX-License-Identifier: MIT
#
# bench/stacks.sh: what the frame thread's stacks cost the recorder
# (docs/WHERE.md, "Costs"). The fake game for BENCH_STACKS_S seconds (default
# 10) at 60 fps with a 300 ms CPU stall every second, recorded with
# --no-stacks and with --stacks 1000, side by side: the recorder's CPU time
# (run.ini recorder_cpu_s, without its helpers), the worst lateness of its
# loop (a stall's unwinding runs in it), its peak RSS (GNU time), and with
# stacks the bytes added per stall, samples taken, lost and unwound.
# Goal (issue 28): added CPU <= 2 % of one core, <= 64 KB per 300 ms stall.
set -u
[ -n "${SS_BIN:-}" ] || SS_BIN=${1:-build}/stallscope
build=$(dirname "$SS_BIN")
GAME=$build/fakegame
[ -x "$GAME" ] || { echo "skip: no $GAME"; exit 77; }
S=${BENCH_STACKS_S:-10}
[ "$(id -u)" = 0 ] || echo "(not root: user-mode samples only, no switch-outs)"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
st=""
for ((i = 1; i < S; i++)); do st="$st --stall cpu:300@$i"; done
TIME=/usr/bin/time
[ -x $TIME ] || TIME=
ini() { sed -n "s/^$2=//p" "$1" | head -n1; }
printf '%-14s %10s %8s %10s %9s %12s %9s %8s %8s\n' mode cpu_s cpu_% late_ms rss_kb bytes/stall stalls samples lost
for mode in --no-stacks "--stacks 1000"; do
	d=$T/run${mode// /}
	rss=-
	if [ -n "$TIME" ]; then
		# shellcheck disable=SC2086
		$TIME -f %M -o "$T/rss" "$SS_BIN" record -q --no-exact -o "$d" $mode -- "$GAME" \
			--fps 60 --seconds "$S" $st >"$T/out" 2>&1 || { echo "record failed: $(tail -3 "$T/out")"; exit 1; }
		rss=$(tail -1 "$T/rss")
	else
		# shellcheck disable=SC2086
		"$SS_BIN" record -q --no-exact -o "$d" $mode -- "$GAME" --fps 60 --seconds "$S" $st \
			>"$T/out" 2>&1 || { echo "record failed: $(tail -3 "$T/out")"; exit 1; }
	fi
	n=$(ini "$d/run.ini" stacks_stalls)
	b=$(ini "$d/run.ini" stacks_bytes)
	per=-
	[ -n "$n" ] && [ "$n" -gt 0 ] && per=$((b / n))
	printf '%-14s %10s %8s %10s %9s %12s %9s %8s %8s\n' "${mode#--}" "$(ini "$d/run.ini" recorder_cpu_s)" \
		"$(ini "$d/run.ini" recorder_cpu_pct)" "$(ini "$d/run.ini" recorder_late_max_ms)" "$rss" \
		"$per" "${n:--}" "$(ini "$d/run.ini" stacks_samples)" "$(ini "$d/run.ini" stacks_lost)"
	r=$(ini "$d/run.ini" stacks_reason)
	[ -n "$r" ] && echo "  ($r)"
done
exit 0
