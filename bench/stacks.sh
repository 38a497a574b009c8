#!/bin/bash
# SPDX-License-Identifier: MIT
#
# bench/stacks.sh: what the frame thread's stacks cost the recorder
# (docs/WHERE.md, "Costs"). The fake game for BENCH_STACKS_S seconds (default
# 10) at 60 fps with a 300 ms CPU stall every second, recorded with
# --no-stacks and with --stacks 1000, then both again on the game's
# --render-thread (frames and stalls in a thread of their own, the main
# thread polling every 5 ms: the sampler's second thread, and with stacks
# its stacks too), side by side: the recorder's CPU time
# (run.ini recorder_cpu_s, without its helpers), the worst lateness of its
# loop (a stall's unwinding runs in it), its peak RSS (GNU time), and with
# stacks the bytes added per stall, samples taken, lost and unwound.
# Goal (issue 28): added CPU <= 2 % of one core, <= 64 KB per 300 ms stall.
# Then side by side with Debian's `perf record --call-graph dwarf` (package
# linux-perf) on the same run: perf records `stallscope record` of the fake
# game (4 s, a 300 ms CPU stall at 1, 2 and 3 s), a cpu-clock event at the
# same rate (1 kHz) and stack size (16 KiB) as ours, on the monotonic clock;
# for the cpu stalls, the share of the frame thread's samples whose user
# stack names the busy function (spin_until or stall_cpu): ours from
# `stalls --json`, perf's from `perf script` within each stall's time range
# (run.ini t0_mono + t_s, + ms). Goal: within 5 points.
# Then the symbols at analysis time: an hour's record with 360 stalls
# (bench/rec-bench.c's synthetic hour at 60 fps, each stall given one of the
# stacks run's windows in turn: its files are this machine's), `stalls` on
# it with those stacks and on the same hour without them, median time and
# peak RSS of 3 runs (goal: the stacks' part well under a second).
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
printf '%-17s %10s %8s %10s %9s %12s %9s %8s %8s\n' mode cpu_s cpu_% late_ms rss_kb bytes/stall stalls samples lost
# LABEL|RECORD OPTIONS|GAME OPTIONS
for row in "no-stacks|--no-stacks|" "stacks 1000|--stacks 1000|" \
	"no-stacks, 2 thr|--no-stacks|--render-thread" "stacks, 2 thr|--stacks 1000|--render-thread"; do
	IFS='|' read -r label mode game <<<"$row"
	d=$T/run${label// /}
	rss=-
	if [ -n "$TIME" ]; then
		# shellcheck disable=SC2086
		$TIME -f %M -o "$T/rss" "$SS_BIN" record -q --no-exact -o "$d" $mode -- "$GAME" \
			--fps 60 --seconds "$S" $game $st >"$T/out" 2>&1 || { echo "record failed: $(tail -3 "$T/out")"; exit 1; }
		rss=$(tail -1 "$T/rss")
	else
		# shellcheck disable=SC2086
		"$SS_BIN" record -q --no-exact -o "$d" $mode -- "$GAME" --fps 60 --seconds "$S" $game \
			$st >"$T/out" 2>&1 || { echo "record failed: $(tail -3 "$T/out")"; exit 1; }
	fi
	n=$(ini "$d/run.ini" stacks_stalls)
	b=$(ini "$d/run.ini" stacks_bytes)
	per=-
	[ -n "$n" ] && [ "$n" -gt 0 ] && per=$((b / n))
	printf '%-17s %10s %8s %10s %9s %12s %9s %8s %8s\n' "$label" "$(ini "$d/run.ini" recorder_cpu_s)" \
		"$(ini "$d/run.ini" recorder_cpu_pct)" "$(ini "$d/run.ini" recorder_late_max_ms)" "$rss" \
		"$per" "${n:--}" "$(ini "$d/run.ini" stacks_samples)" "$(ini "$d/run.ini" stacks_lost)"
	r=$(ini "$d/run.ini" stacks_reason)
	[ -n "$r" ] && echo "  ($r)"
done

echo
echo "cpu stalls' samples naming the busy function (spin_until or stall_cpu), 1 kHz:"
# perf_compare: prints the side-by-side table, or why it cannot
perf_compare() {
	local d=$T/perf pd
	command -v perf >/dev/null || { echo "  perf: - (no perf: package linux-perf)"; return; }
	command -v python3 >/dev/null || { echo "  - (no python3 to read perf script's output)"; return; }
	mkdir -p "$d"
	# -m: 16 MiB of ring, so that perf loses few of its 16 KiB samples
	perf record -q -k CLOCK_MONOTONIC -e cpu-clock -c 1000000 --call-graph dwarf,16384 -m 4096 \
		-o "$d/perf.data" -- "$SS_BIN" record -q --no-exact -o "$d/run" --stacks 1000 -- \
		"$GAME" --fps 60 --seconds 4 --stall cpu:300@1 --stall cpu:300@2 --stall cpu:300@3 \
		>"$d/out" 2>&1 || { echo "  - (perf record failed: $(tail -2 "$d/out"))"; return; }
	[ "$(ini "$d/run/run.ini" stacks)" = on ] ||
		{ echo "  - (no stacks: $(ini "$d/run/run.ini" stacks_reason))"; return; }
	"$SS_BIN" stalls --json "$d/run" >"$d/stalls.json" || { echo "  - (stalls --json failed)"; return; }
	perf script -i "$d/perf.data" --tid "$(ini "$d/run/run.ini" frame_thread)" -F tid,time,ip,sym \
		>"$d/script.txt" 2>"$d/script.err" || { echo "  - (perf script failed: $(tail -2 "$d/script.err"))"; return; }
	pd=$(grep -o 'lost [0-9.]*%' "$d/script.err" | head -n1)
	python3 - "$d/stalls.json" "$(ini "$d/run/run.ini" t0_mono)" "$d/script.txt" "${pd:-no loss reported}" <<'PY'
import json, re, sys
busy = re.compile(r"(spin_until|stall_cpu)\b")
run = json.load(open(sys.argv[1]))[0]
t0 = float(sys.argv[2])
st = [s for s in run["stalls"] + run["warm_stalls"] if s["cause"] == "cpu"]
if not st:
    print("  - (no cpu stall in the run)")
    sys.exit(0)
samples, cur = [], None
for line in open(sys.argv[3]):
    m = re.match(r"\s*(\d+)\s+([\d.]+):\s*$", line)
    if m:
        cur = (float(m.group(2)), [])
        samples.append(cur)
    elif line.strip() and cur:
        f = line.split(None, 1)
        cur[1].append(f[1].strip() if len(f) > 1 else "")
on, oh, pn, ph, pv = 0, 0, 0, 0, 0
for s in st:
    on += s.get("stack_samples", 0)
    oh += sum(x["n"] for x in s.get("stacks", []) if any(busy.match(f) for f in x["frames"]))
    a = t0 + s["t_s"]
    b = a + s["ms"] / 1000
    for t, fr in samples:
        if a <= t <= b:
            pn += 1
            if any(busy.match(f) for f in fr):
                ph += 1
            elif any("clock_gettime" in f for f in fr):
                pv += 1
def share(h, n):
    return "%.1f" % (100.0 * h / n) if n else "-"
print("  %-32s %8s %8s %8s" % ("tool", "samples", "naming", "share_%"))
print("  %-32s %8d %8d %8s" % ("stallscope --stacks 1000", on, oh, share(oh, on)))
print("  %-32s %8d %8d %8s   (perf script: %s)" % ("perf record --call-graph dwarf", pn, ph,
      share(ph, pn), sys.argv[4]))
if on and pn:
    print("  %d cpu stalls; difference %.1f points (goal: <= 5); %d of perf's other samples"
          " stop at clock_gettime (the vDSO)" % (len(st), abs(100.0 * oh / on - 100.0 * ph / pn), pv))
PY
}
perf_compare

src=$(cd "$(dirname "$0")/.." && pwd)
stk=$T/run--stacks1000/record.ssr
if [ -z "$TIME" ] || [ ! -f "$build/libss_rec.a" ] || ! "$SS_BIN" dump "$stk" | grep -q '^ustack'; then
	echo "(no hour of stalls: needs GNU time, $build/libss_rec.a and stacks recorded above)"
	exit 0
fi
${CC:-cc} -O2 -std=gnu11 -D_GNU_SOURCE -I"$src/src" -I"$src/include" "$src/bench/rec-bench.c" \
	"$build/libss_rec.a" "$build/libss_core.a" -lpthread -o "$T/rec-bench" || exit 1
mkdir -p "$T/hour" "$T/hour-stk"
"$T/rec-bench" gen "$T/hour/record.ssr" 360000 steady 60 >/dev/null || exit 1
"$T/rec-bench" gen "$T/hour-stk/record.ssr" 360000 steady 60 "$stk" >/dev/null || exit 1
for h in hour hour-stk; do
	printf 'program=synthetic\nstate=done\nend=exit\nexit_status=0\n' >"$T/$h/run.ini"
done
hour() {
	for _ in 1 2 3; do
		$TIME -f "%e %M %U %S" -o "$T/t" "$SS_BIN" stalls --warmup 0 "$T/$1" >"$T/stalls.out" 2>&1
		cat "$T/t"
	done >"$T/times"
	# medians of 3: elapsed, CPU (user + system), peak RSS
	printf '%-34s %8.2f s %8.2f s %9.1f MB %8d where: lines\n' "$2" \
		"$(awk '{ print $1 }' "$T/times" | sort -n | sed -n 2p)" \
		"$(awk '{ print $3 + $4 }' "$T/times" | sort -n | sed -n 2p)" \
		"$(awk '{ print $2 / 1024 }' "$T/times" | sort -n | sed -n 2p)" \
		"$(grep -c '  where: ' "$T/stalls.out")"
}
printf '%-34s %10s %10s %12s\n' "stalls on an hour, 360 stalls" time cpu peak_rss
hour hour "without stacks"
hour hour-stk "with stacks (symbolized)"
exit 0
