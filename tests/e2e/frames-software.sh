#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e live slow parallel
# Software presents on X11, under one Xvfb: our ss-xput puts exactly N
# frames with XShmPutImage, then with XPutImage, beside images that are no
# frame (a 32x32 icon into a pixmap before, a 100x100 widget after): the
# run holds exactly N frames, all from the xshm (xput) source, and the
# putting thread is the frame thread. N frame-sized puts through a
# stand-in for Wine's X11 driver (a library named winex11.so: Wine's GDI
# surface flushes) are no frames, N XPutImage after them from the program
# are: N xput frames. N puts through an XPutImage taken with dlsym on a
# handle of libX11: N xput frames. SDL2's software renderer (ss-sdl2sw)
# with SDL_FRAMEBUFFER_ACCELERATION=0 presents its window surface with
# XShmPutImage: N xshm frames. Without the hint SDL2 uploads the surface
# through OpenGL: N glx frames and no software one. glxgears on llvmpipe,
# whose glXSwapBuffers puts its image with XShmPutImage inside: glx frames
# only (a put inside a present is no present of its own).
set -u
. "$(dirname "$0")/shim-common.inc"
[ -x "$SS_BIN" ] || skip "no stallscope binary"
[ -x "$SS_BUILD/ss-xput" ] || skip "no ss-xput (X11/Xext headers missing at build)"

N=60
ini() { sed -n "s/^$2=//p" "$1/run.ini" | head -n1; }
start_xvfb 191 240
bad=0
no() { echo "FAIL: $*"; bad=1; }
# the cases this machine cannot run: the rest still runs, then the test
# skips (77) naming them, unless something failed
skipped=
left_out() { echo "left out: $*"; skipped="$skipped; $*"; }

# rec NAME SOURCE WANT CMD...: CMD's run must hold WANT frames, all of
# SOURCE, none of the other software sources, the presenting thread followed
rec() {
	local name=$1 src=$2 want=$3 run=$TMP/$1 s present
	shift 3
	timeout 60 "$SS_BIN" record -q -o "$run" -- "$@" >"$run.out" 2>&1 ||
		{ no "$name: record: $(tail -3 "$run.out")"; return; }
	[ "$(ini "$run" exit_status)" = 77 ] && { left_out "$name: $(tail -1 "$run/program.log")"; return; }
	[ "$(ini "$run" frames)" = "$want" ] && [ "$(ini "$run" "frames_$src")" = "$want" ] ||
		{ no "$name: $(ini "$run" frames) frames ($(ini "$run" "frames_$src") $src), expected $want $src"; return; }
	for s in xshm xput wlshm; do
		[ "$s" = "$src" ] || [ "$(ini "$run" "frames_$s")" = 0 ] ||
			no "$name: frames_$s=$(ini "$run" "frames_$s"), expected 0"
	done
	present=$(sed -n 's/^\[[0-9.]*\] present //p' "$run/program.log" | tail -n1)
	[ -z "$present" ] || [ "$(ini "$run" frame_thread)" = "$present" ] ||
		no "$name: frame thread $(ini "$run" frame_thread), the presenting thread is $present"
	echo "$name: $want $src frames"
}

rec xshm xshm $N "$SS_BUILD/ss-xput" shm $N
rec xput xput $N "$SS_BUILD/ss-xput" put $N
rec winex11 xput $N "$SS_BUILD/ss-xput" wine $N
rec xput-dlsym xput $N "$SS_BUILD/ss-xput" dlsym $N
if [ -x "$SS_BUILD/ss-sdl2sw" ]; then
	rec sdl2-software xshm $N env SDL_FRAMEBUFFER_ACCELERATION=0 "$SS_BUILD/ss-sdl2sw" $N
	rec sdl2-software-gl glx $N "$SS_BUILD/ss-sdl2sw" $N
else
	left_out "no ss-sdl2sw (libsdl2-dev missing at build)"
fi
if command -v glxgears >/dev/null; then
	run=$TMP/glxgears
	timeout 60 "$SS_BIN" record -q -o "$run" --duration 2 -- glxgears >"$run.out" 2>&1 ||
		no "glxgears: record: $(tail -3 "$run.out")"
	n=$(ini "$run" frames_glx)
	if [ "${n:-0}" -gt 0 ] && [ "$n" = "$(ini "$run" frames)" ] &&
		[ "$(ini "$run" frames_xshm)" = 0 ] && [ "$(ini "$run" frames_xput)" = 0 ]; then
		echo "glxgears: $n glx frames, no software one"
	else
		no "glxgears: frames $(ini "$run" frames): glx $n, xshm $(ini "$run" frames_xshm), xput $(ini "$run" frames_xput)"
	fi
else
	left_out "no glxgears (mesa-utils)"
fi
[ $bad = 0 ] && [ -n "$skipped" ] && { echo "skip: not run here: ${skipped#; }"; exit 77; }
exit $bad
