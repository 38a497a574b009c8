#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e live
# Per-thread CPU of a known layout: two threads that spin (busy0, busy1) and
# one that sleeps (idle0). The thread snapshots in the record give each
# busy thread far more CPU time than the idle one, and name them. A process
# of 301 threads gets whole snapshots.
. "$SS_SRC/tests/e2e/lib/record.sh"

"$SS_BIN" record -q -o run --frames marker -- "$MARKERS" --fps 50 --seconds 1.5 \
	--busy 2 --idle 1 || fail "record failed"
"$SS_BIN" dump run > dump.txt || fail "dump failed"
# thread lines: "threads t=T n=N TID:NAME:CPU_NS:CPU ...": first and last CPU_NS of NAME
cpu() {
	awk -v n="$1" '$1 == "threads" { for (i = 4; i <= NF; i++) { split($i, a, ":")
		gsub(/\047/, "", a[2]); if (a[2] == n) { if (!seen) { f = a[3]; seen = 1 }; l = a[3] } } }
		END { print (l - f) + 0 }' dump.txt
}
b0=$(cpu busy0)
i0=$(cpu idle0)
# at least 10 ms of CPU in 1.5 s, even on a loaded machine (quiet: ~1.5 s)
expect_ge "busy0 cpu_ns" "$b0" 10000000
[ "$b0" -gt $((i0 * 20)) ] || fail "busy0 ran $b0 ns, idle0 $i0 ns: not told apart"
if "$SS_BIN" 2>&1 | grep -q '^  report '; then
	"$SS_BIN" report --threads --warmup 0 run > threads.txt 2>&1 || fail "report --threads: $(cat threads.txt)"
	grep -q busy0 threads.txt || fail "report --threads names no busy0: $(cat threads.txt)"
	# busy0's ms/frame is more than idle0's; both print a main CPU
	awk '$1 == "busy0" { b = $3 } $1 == "idle0" { i = $3 } END { exit !(b > i) }' threads.txt ||
		fail "report --threads: busy0 not above idle0: $(cat threads.txt)"
	grep -Eq '^busy0 +[0-9]+ +[0-9.]+ +[0-9.]+ +cpu[0-9]+' threads.txt ||
		fail "report --threads: no main CPU for busy0: $(cat threads.txt)"
	"$SS_BIN" report --threads --warmup 0 --json run | grep -q '"ms_per_frame"' ||
		fail "report --threads --json has no ms_per_frame"
fi
# a process of more than 256 threads is one snapshot a time, not pieces of
# 256 (each of which the reader would take for the whole process)
"$SS_BIN" record -q -o many --frames marker -- "$MARKERS" --fps 50 --seconds 1 --idle 300 ||
	fail "record of 301 threads failed"
max=$("$SS_BIN" dump many | awk '$1 == "threads" { sub("n=", "", $3); if ($3 + 0 > m) m = $3 + 0 } END { print m + 0 }')
[ "$max" -ge 301 ] || fail "301 threads, the largest snapshot holds $max"
echo "ok: busy0 $b0 ns, idle0 $i0 ns"
