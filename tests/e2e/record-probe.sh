#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e live root
# `record --probe` and `record --kick MS`: while a SCHED_FIFO 99 busy loop
# holds CPU 1 for 200 ms during a recording, the record holds a
# "late_wakeup" event "cpu=1 late_us=M" with M >= 150000, and run.ini says
# what ran beside the recording (probe=on, kick_ms=5, their CPU cost). The
# hog is bounded as in probe-fifo.sh.
set -u
[ "$(id -u)" = 0 ] || { echo "skip: needs root for SCHED_FIFO"; exit 77; }
taskset -c 0,1 true 2>/dev/null || { echo "skip: needs CPUs 0 and 1"; exit 77; }
chrt -f 99 true 2>/dev/null || { echo "skip: SCHED_FIFO refused here"; exit 77; }
[ "${BASH_VERSINFO[0]}" -ge 5 ] || { echo "skip: needs bash 5 (EPOCHREALTIME)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

"$SS_BIN" record -q -o "$tmp/run" --frames none --probe --kick 5 -- sleep 3 2>"$tmp/err" &
rec=$!
sleep 1
taskset -c 0 timeout -s KILL 2 taskset -c 1 chrt -f 99 bash -c '
	end=$(( ${EPOCHREALTIME/./} + 200000 ))
	while (( ${EPOCHREALTIME/./} < end )); do :; done'
wait $rec || { echo "FAIL: record exited $?: $(cat "$tmp/err")"; exit 1; }

ini=$tmp/run/run.ini
for kv in probe=on kick_ms=5 kick_mode=kick probe_policy=fifo; do
	grep -qx "$kv" "$ini" || { echo "FAIL: run.ini lacks $kv"; fail=1; }
done
for k in probe_late_wakeups probe_max_ms probe_cpu_s kick_periods kick_cpu_s kick_cpus; do
	grep -q "^$k=" "$ini" || { echo "FAIL: run.ini lacks $k"; fail=1; }
done
late=$("$SS_BIN" dump "$tmp/run/record.ssr" | sed -n "s/.*kind='late_wakeup' text='cpu=1 late_us=\([0-9]*\)'.*/\1/p" | sort -n | tail -1)
if [ -z "$late" ] || [ "$late" -lt 150000 ]; then
	echo "FAIL: no late_wakeup event on cpu 1 of >= 150 ms (largest: '${late}')"
	"$SS_BIN" dump "$tmp/run/record.ssr" | grep late_wakeup
	fail=1
fi
[ $fail = 0 ] && echo "record --probe ok: cpu 1 woke ${late} us late"
exit $fail
