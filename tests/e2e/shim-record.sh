#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e live parallel
# `stallscope record` with the hooks (the default), --no-hook and --thread,
# on real programs under Xvfb:
#   vkcube --c 300          300 frames, all vk, from the main thread, which
#                           is the frame thread
#   glxgears, 4 s           glx frames only, increasing, the frame thread is
#                           glxgears' main thread (the one presenting)
#   ss-gltest 100 600       GLX presents (main thread) and marks (thread
#     --thread ss-marker    "ss-marker"): sources 2 and 1 told apart in the
#                           record; the named thread is the frame thread
#   ss-gltest --no-hook     the marks only; run.ini says "marker only"
set -u
. "$(dirname "$0")/shim-common.inc"
[ -x "$SS_BIN" ] || skip "no stallscope binary"

ini() { sed -n "s/^$2=//p" "$1/run.ini" | head -n1; }
# frames RUN SOURCE: frame records of SOURCE (a number) in RUN's record.
frames() { "$SS_BIN" dump "$1" | awk -v s="source=$2" '$1 == "frame" && $4 == s { n++ } END { print n + 0 }'; }
rec() { timeout 120 xvfb-run -a -s "-screen 0 640x480x24" "$SS_BIN" record -q "$@" >"$TMP/rec.log" 2>&1 ||
	{ cat "$TMP/rec.log"; fail "record $* failed"; }; }

if command -v vkcube >/dev/null && ls /usr/share/vulkan/icd.d/lvp_icd*.json >/dev/null 2>&1; then
	rec -o "$TMP/vk" -- vkcube --c 300
	[ "$(ini "$TMP/vk" frames)" = 300 ] || fail "vkcube: run.ini frames=$(ini "$TMP/vk" frames), expected 300"
	[ "$(frames "$TMP/vk" 4)" = 300 ] || fail "vkcube: $(frames "$TMP/vk" 4) vk frame records, expected 300"
	[ "$(ini "$TMP/vk" frame_thread)" = "$(ini "$TMP/vk" pid)" ] || fail "vkcube: frame thread is not the main thread"
	echo "record vkcube: 300 vk frames"
else
	echo "no vkcube or lavapipe: Vulkan part left out"
fi

if command -v glxgears >/dev/null; then
	rec -o "$TMP/gears" --duration 4 -- glxgears
	n=$("$SS_BIN" dump "$TMP/gears" | awk '$1 == "frame" { n++ } END { print n + 0 }')
	[ "$n" -gt 20 ] || fail "glxgears: $n frames in 4 s"
	[ "$(frames "$TMP/gears" 2)" = "$n" ] || fail "glxgears: frames of other sources than glx"
	[ "$(ini "$TMP/gears" frame_thread)" = "$(ini "$TMP/gears" pid)" ] ||
		fail "glxgears: frame thread is not its presenting (main) thread"
	"$SS_BIN" dump "$TMP/gears" | awk '$1 == "frame" { sub("t=", "", $2); if ($2 + 0 <= p) bad++; p = $2 + 0 }
		END { exit bad > 0 }' || fail "glxgears: frame stamps not increasing"
	echo "record glxgears: $n glx frames from its main thread"
fi

[ -x "$SS_BUILD/ss-gltest" ] || skip "no ss-gltest (GL and X11 headers missing at build)"
rec -o "$TMP/gl" --thread ss-marker -- "$SS_BUILD/ss-gltest" 100 600
# program.log lines are stamped "[S] text" by record
mark=$(awk '{ sub(/^\[[0-9.]+\] /, "") } $1 == "marker" { print $2 }' "$TMP/gl/program.log")
[ "$(frames "$TMP/gl" 2)" = 100 ] || fail "ss-gltest: $(frames "$TMP/gl" 2) glx frames, expected 100"
[ "$(frames "$TMP/gl" 1)" = 600 ] || fail "ss-gltest: $(frames "$TMP/gl" 1) marker frames, expected 600"
[ "$(ini "$TMP/gl" frame_thread_named)" = ss-marker ] || fail "ss-gltest: --thread not in run.ini"
[ "$(ini "$TMP/gl" frame_thread)" = "$mark" ] || fail "ss-gltest: frame thread $(ini "$TMP/gl" frame_thread), expected the marker's $mark"
echo "record --thread ss-marker: glx and marker frames apart, frame thread $mark"

rec -o "$TMP/nohook" --no-hook -- "$SS_BUILD/ss-gltest" 30 20
[ "$(ini "$TMP/nohook" frame_hooks)" = "marker only" ] || fail "--no-hook: frame_hooks=$(ini "$TMP/nohook" frame_hooks)"
[ "$(frames "$TMP/nohook" 2)" = 0 ] || fail "--no-hook: glx frames recorded"
[ "$(frames "$TMP/nohook" 1)" = 20 ] || fail "--no-hook: $(frames "$TMP/nohook" 1) marker frames, expected 20"
"$SS_BIN" record --no-hook --frames gl -- true >/dev/null 2>&1
[ $? = 2 ] || fail "--no-hook --frames gl is not a usage error"
echo "record --no-hook: marker frames only"
