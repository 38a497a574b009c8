#!/bin/sh
# SPDX-License-Identifier: MIT
#
# bench/report.sh BUILD: `stallscope report` on a synthetic one-hour 144 fps
# log (518,400 frames) and on 1,000,000 frames, each as a MangoHud CSV and as
# a plain frame-time dump, against the same metrics computed by
# bench/report_numpy.py (numpy + pandas) on the same files, side by side.
# Prints the median wall time of RUNS runs, its CPU time and the peak RSS
# (GNU time) of each. Goals: <= 0.3 s and <= 64 MB for the hour (issue 2);
# the hour of MangoHud in under 0.05 s, >= 8x numpy + pandas (issue 31).
set -eu
build=${1:-build}
bin=$build/stallscope
runs=${RUNS:-5}
py=/usr/bin/python3
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if [ ! -x /usr/bin/time ]; then
	echo "bench/report: needs GNU time (/usr/bin/time; scripts/deps.sh test installs it)" >&2
	exit 1
fi
if ! $py -c 'import numpy, pandas' 2>/dev/null; then
	echo "bench/report: no numpy/pandas under $py: the comparison is skipped" >&2
	py=
fi

# synthetic logs: ~144 fps with a 150 ms stall every 10 s
${py:-/usr/bin/python3} - "$tmp" <<'PY'
import random, sys
d = sys.argv[1]
random.seed(1)
def frames(n):
    for i in range(n):
        yield 150.0 if i % 1440 == 1439 else random.gauss(6.944, 0.4)
def mangohud(path, n):
    with open(path, "w") as f:
        f.write("os,cpu,gpu,ram,kernel,driver,cpuscheduler\n")
        f.write("Debian 12,bench cpu,bench gpu,16000000,6.18,Mesa,\n")
        f.write("fps,frametime,cpu_load,gpu_load,cpu_temp,gpu_temp,gpu_core_clock,"
                "gpu_mem_clock,gpu_vram_used,gpu_power,ram_used,swap_used,process_rss,elapsed\n")
        el = 0
        for ft in frames(n):
            el += int(ft * 1e6)
            f.write("%.1f,%.3f,20,30,50,60,1500,800,1.2,50,4.1,0.0,1.1,%d\n" % (1000 / ft, ft, el))
def plain(path, n):
    with open(path, "w") as f:
        for ft in frames(n):
            f.write("%.3f\n" % ft)
mangohud(d + "/hour-144fps.csv", 518400)
plain(d + "/hour-144fps.txt", 518400)
mangohud(d + "/1M.csv", 1000000)
plain(d + "/1M.txt", 1000000)
PY

# one NAME CMD...: median wall (s) over $runs runs, and peak RSS (MB) of the last
one() {
	name=$1
	shift
	i=0
	: >"$tmp/walls"
	while [ $i -lt "$runs" ]; do
		/usr/bin/time -o "$tmp/t" -f "%e %M %U %S" "$@" >"$tmp/out" 2>"$tmp/err" || {
			echo "bench/report: $name failed:" >&2
			cat "$tmp/err" >&2
			return 1
		}
		cat "$tmp/t" >>"$tmp/walls"
		i=$((i + 1))
	done
	sort -n "$tmp/walls" | awk -v n="$runs" 'NR == int((n + 1) / 2) { printf "%.3f %.1f %.2f\n", $1, $2 / 1024, $3 + $4 }' >"$tmp/res"
	read -r wall rss cpu <"$tmp/res"
	echo "$wall $rss $cpu"
}

printf "%-18s %8s %9s %10s %10s %9s %9s %8s\n" input frames report_s report_cpu report_MB numpy_s numpy_cpu ratio
status=0
for f in hour-144fps.csv hour-144fps.txt 1M.csv 1M.txt; do
	case $f in hour*) n=518400 ;; *) n=1000000 ;; esac
	set -- $(one "report $f" "$bin" report --warmup 0 --json "$tmp/$f") || { status=1; continue; }
	rw=$1 rm=$2 rc=$3
	if [ -n "$py" ]; then
		set -- $(one "numpy $f" $py "$here/report_numpy.py" "$tmp/$f") || { status=1; continue; }
		pw=$1 pc=$3
		ratio=$(awk -v a="$pw" -v b="$rw" 'BEGIN { if (b > 0) printf "%.1fx", a / b; else print "-" }')
	else
		pw=- pc=- ratio=-
	fi
	printf "%-18s %8d %9s %10s %10s %9s %9s %8s\n" "$f" $n "$rw" "$rc" "$rm" "$pw" "$pc" "$ratio"
	case $f in hour*csv)
		awk -v w="$rw" -v c="$rc" -v m="$rm" 'BEGIN { printf "goal for the hour (MangoHud CSV), <= 0.3 s and <= 64 MB: wall %s, cpu %s, memory %s\n", w <= 0.3 ? "met" : "NOT met", c <= 0.3 ? "met" : "NOT met", m <= 64 ? "met" : "NOT met" }'
		awk -v w="$rw" -v p="$pw" 'BEGIN { if (p == "-") print "goal for the hour (issue 31), < 0.05 s and >= 8x numpy + pandas: no pandas here"; else printf "goal for the hour (issue 31), < 0.05 s and >= 8x numpy + pandas: wall %s, ratio %s\n", (w < 0.05 ? "met" : "NOT met"), (p >= 8 * w ? "met" : "NOT met") }' ;;
	esac
done
echo "(median of $runs runs by wall time; report_cpu = its user + system s; GNU time, 10 ms"
echo " resolution; numpy_cpu its user + system s; ratio = numpy wall / report wall; load average"
echo " now: $(cut -d' ' -f1 /proc/loadavg))"
exit $status
