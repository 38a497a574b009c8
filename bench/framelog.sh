#!/bin/sh
# SPDX-License-Identifier: MIT
#
# bench/framelog.sh BUILD: the frame-log readers alone (framelog_read) and
# the compat numbers, on synthetic one-hour 144 fps logs (518,400 frames) in
# three formats: MangoHud 0.8 CSV (16 columns), PresentMon 2.x CSV (30
# columns) and a plain dump. Prints median and minimum wall time, median CPU
# time (RUNS runs, default 7), and the peak RSS of one read + compat
# (GNU time). Goal (issue 2): parsing the hour well under 0.1 s. For scale,
# the median wall time of `wc -l` on each file (reading it, nothing more) is
# printed beside it: on a loaded machine both slow down together.
set -eu
build=$(cd "${1:-build}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for lib in libss_frames.a libss_core.a; do
	if [ ! -f "$build/$lib" ]; then
		echo "bench/framelog: no $build/$lib: run make build first" >&2
		exit 1
	fi
done
${CC:-cc} -O2 -I"$here/../src" -o "$tmp/framelog-bench" "$here/framelog.c" \
	"$build/libss_frames.a" "$build/libss_core.a" -lm

python3 - "$tmp" <<'PY'
import random, sys
d = sys.argv[1]
random.seed(1)
n = 518400
fts = [150.0 if i % 1440 == 1439 else random.gauss(6.944, 0.4) for i in range(n)]
with open(d + "/hour-mangohud.csv", "w") as f:
    f.write("v1\n0.8.2\n---------------------SYSTEM INFO---------------------\n"
            "os,cpu,gpu,ram,kernel,driver,cpuscheduler\n"
            "Debian 12,bench cpu,bench gpu,65438132,6.18,,performance\n"
            "--------------------FRAME METRICS--------------------\n"
            "fps,frametime,cpu_load,cpu_power,gpu_load,cpu_temp,gpu_temp,gpu_core_clock,"
            "gpu_mem_clock,gpu_vram_used,gpu_power,ram_used,swap_used,process_rss,cpu_mhz,"
            "elapsed\n")
    el = 300000000
    for ft in fts:
        el += int(ft * 1e6)
        f.write("%g,%g,21.6521,0,84,54,51,3121,1358,4.93264,255,10.734,0,0,3500,%d\n"
                % (1000 / ft, ft, el))
with open(d + "/hour-presentmon.csv", "w") as f:
    f.write("Application,ProcessID,SwapChainAddress,PresentRuntime,SyncInterval,PresentFlags,"
            "AllowsTearing,PresentMode,FrameType,TimeInSeconds,MsBetweenSimulationStart,"
            "MsBetweenPresents,MsBetweenDisplayChange,MsInPresentAPI,MsRenderPresentLatency,"
            "MsUntilDisplayed,CPUStartTime,MsBetweenAppStart,MsCPUBusy,MsCPUWait,MsGPULatency,"
            "MsGPUTime,MsGPUBusy,MsGPUWait,MsVideoBusy,MsAnimationError,AnimationTime,"
            "MsFlipDelay,MsAllInputToPhotonLatency,MsClickToPhotonLatency\n")
    t = 7.5
    for ft in fts:
        t += ft / 1000
        f.write("game.exe,4242,0x1D3A8F0C2B0,DXGI,0,0,1,Hardware: Independent Flip,Application,"
                "%.14f,NA,%.14f,%.14f,0.21373,1.52,16.6100,%.4f,%.4f,%.4f,%.4f,1.2000,10.5000,"
                "10.2000,0.3000,0.0000,NA,NA,NA,NA,NA\n"
                % (t, ft, ft, t - 0.003, ft, ft * 0.7, ft * 0.3))
with open(d + "/hour-plain.txt", "w") as f:
    for ft in fts:
        f.write("%.3f\n" % ft)
PY

cd "$tmp"
ls -l hour-* | awk '{ printf "%-24s %6.1f MB\n", $NF, $5 / 1048576 }'
./framelog-bench hour-mangohud.csv hour-presentmon.csv hour-plain.txt
for f in hour-mangohud.csv hour-presentmon.csv hour-plain.txt; do
	i=0
	: >walls
	while [ $i -lt "${RUNS:-7}" ]; do
		t0=$(date +%s%N)
		wc -l "$f" >/dev/null
		echo $(( $(date +%s%N) - t0 )) >>walls
		i=$((i + 1))
	done
	sort -n walls | awk -v f="$f" '{ a[NR] = $1 } END {
		printf "%-28s wc -l wall median %6.1f ms (min %6.1f), for scale\n", f,
			a[int((NR + 1) / 2)] / 1e6, a[1] / 1e6 }'
done
if [ -x /usr/bin/time ]; then
	for f in hour-mangohud.csv hour-presentmon.csv hour-plain.txt; do
		RUNS=1 /usr/bin/time -f "$f: peak RSS %M KB (one read + compat)" \
			./framelog-bench "$f" >/dev/null
	done
fi
