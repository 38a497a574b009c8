#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e live slow parallel
# Windows programs under Wine: our own test programs (tests/progs/wine/,
# built with mingw-w64) present exactly N frames each through OpenGL (WGL),
# Direct3D 9, Direct3D 11, Direct3D 12 and Vulkan, on Mesa's software
# drivers under one Xvfb, recorded as users do: `stallscope record -- wine
# PROG.exe N`. Each run must hold exactly N frames, all from the source the
# present reaches on the host (WGL and wined3d on GL: glXSwapBuffers,
# source glx; vkd3d, winevulkan and wined3d's Vulkan renderer: the layer's
# vkQueuePresentKHR, source vk), the frame thread must be the thread that
# presents (wined3d's command-stream thread `wined3d_cs` for Direct3D 9 and
# 11, the program's main thread otherwise), and the run must be named after
# the .exe, not the `wine` in front of it. One Wine prefix for the whole
# test in its temporary directory, its wineserver kept running across the
# runs. A program that cannot run here (a Direct3D 12 device this Wine or
# driver cannot make) says why and that case is skipped.
set -u
. "$(dirname "$0")/shim-common.inc"
[ -x "$SS_BIN" ] || skip "no stallscope binary"
WINE=$(command -v wine || command -v wine64) || skip "no wine (packages wine, wine64)"
WINESERVER=$(command -v wineserver || command -v wineserver64) || skip "no wineserver (package wine64)"
W=$SS_BUILD/wine
[ -e "$W/ss-wgl.exe" ] || skip "no Windows test programs in '$W' (x86_64-w64-mingw32-gcc missing at build; package mingw-w64)"

N=120
# since START: seconds since START (a date +%s.%N), to 0.1 s
since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }
ini() { sed -n "s/^$2=//p" "$1/run.ini" | head -n1; }
bad=0
no() { echo "FAIL: $*"; bad=1; }

start_xvfb 150 200
export WINEPREFIX=$TMP/prefix WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
unset WINE_D3D_CONFIG
mkdir -p "$WINEPREFIX"
# the wineserver outlives each program; killed before the prefix goes
"$WINESERVER" -p
trap '"$WINESERVER" -k 2>/dev/null; "$WINESERVER" -w 2>/dev/null; kill $XVFB_PID 2>/dev/null; rm -rf "$TMP"' EXIT
t0=$(date +%s.%N)
timeout 120 "$WINE" wineboot -i >"$TMP/wineboot.log" 2>&1 ||
	{ tail -5 "$TMP/wineboot.log"; skip "wineboot failed: no usable Wine prefix"; }
echo "wine prefix made in $(since "$t0") s"

VK=yes
ls /usr/share/vulkan/icd.d/lvp_icd*.json >/dev/null 2>&1 || VK="no lavapipe driver (package mesa-vulkan-drivers)"
[ -e "$SS_BUILD/vklayer/VkLayer_stallscope_frames.json" ] || VK="no layer manifest in '$SS_BUILD'"

# thread_name RUN TID: the name of TID in the run: from the frame_thread
# event when the frame thread moved to it, else from the last thread list
thread_name() {
	"$SS_BIN" dump "$1" | awk -v t="$2" '
		$1 == "event" && /kind=.frame_thread. / && match($0, "text=.tid=" t " name=[^\047]*") {
			s = substr($0, RSTART, RLENGTH); sub(/.* name=/, "", s); ev = s }
		$1 == "threads" { for (i = 3; i <= NF; i++) if (index($i, t ":\047") == 1) {
			s = $i; sub(/^[0-9]+:\047/, "", s); sub(/\047:.*/, "", s); last = s } }
		END { print (ev != "" ? ev : last) }'
}

# case NAME PROG SOURCE THREAD [ENV...]: records `wine PROG.exe N` and
# checks the run: N frames all from SOURCE, the frame thread named THREAD
# (main: the program's main thread, named after the .exe), the run named
# after the .exe
case_() {
	local name=$1 prog=$2 src=$3 want_thread=$4 run rc t start frames got ft pid tname program
	shift 4
	run="$TMP/$name"
	if [ ! -e "$W/$prog.exe" ]; then
		echo "skip: $name: $prog.exe not built"
		return
	fi
	if [ "$src" = vk ] && [ "$VK" != yes ]; then
		echo "skip: $name: $VK"
		return
	fi
	start=$(date +%s.%N)
	(cd "$W" && env "$@" timeout 90 "$SS_BIN" record -q -o "$run" -- "$WINE" "$prog.exe" $N) \
		>"$run.out" 2>&1
	rc=$?
	t=$(since "$start")
	if [ "$(ini "$run" exit_status)" = 77 ]; then
		echo "skip: $name: $(tr -d '\r' <"$run/program.log" | sed -n 's/.*skip: //p' | head -n1)"
		return
	fi
	if [ $rc != 0 ] || [ "$(ini "$run" exit_status)" != 0 ]; then
		no "$name: record exit $rc, program exit $(ini "$run" exit_status): $(tail -3 "$run.out") $(tail -3 "$run/program.log" 2>/dev/null)"
		return
	fi
	# Wine's console ends lines with CR LF
	tr -d '\r' <"$run/program.log" | grep -q "presented $N\$" || no "$name: the program did not say it presented $N frames"
	frames=$(ini "$run" frames)
	got=$(ini "$run" "frames_$src")
	ft=$(ini "$run" frame_thread)
	pid=$(ini "$run" frame_pid)
	tname=$(thread_name "$run" "$ft")
	program=$(ini "$run" program)
	[ "$frames" = $N ] && [ "$got" = $N ] ||
		no "$name: $frames frames ($(ini "$run" frames_glx) glx, $(ini "$run" frames_vk) vk), expected $N $src"
	if [ "$want_thread" = main ]; then
		[ "$ft" = "$pid" ] && [ "$tname" = "$prog.exe" ] ||
			no "$name: frame thread $ft '$tname', expected the main thread $pid '$prog.exe'"
	else
		[ "$tname" = "$want_thread" ] || no "$name: frame thread $ft '$tname', expected '$want_thread'"
	fi
	# named after the .exe without its suffix (docs/FORMAT.md)
	[ "$program" = "$prog" ] && [ "$(ini "$run" program_via)" = wine ] ||
		no "$name: the run is named '$program' (via '$(ini "$run" program_via)'), not '$prog' via wine"
	echo "$name: $frames/$N frames ($src), frame thread '$tname', run '$program', $t s"
}

case_ opengl ss-wgl glx main
case_ d3d9 ss-d3d9 glx wined3d_cs
case_ d3d11 ss-d3d11 glx wined3d_cs
case_ d3d12 ss-d3d12 vk main
case_ vulkan ss-vulkan vk main
# wined3d's Vulkan renderer: the same presents reach the layer
case_ d3d9-vk ss-d3d9 vk wined3d_cs WINE_D3D_CONFIG=renderer=vulkan
case_ d3d11-vk ss-d3d11 vk wined3d_cs WINE_D3D_CONFIG=renderer=vulkan
exit $bad
