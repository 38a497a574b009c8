#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e live slow parallel
# Every way our own test programs reach GLX or EGL, on Mesa's software
# drivers under one Xvfb, in the wrappings users have: `record -- PROG`,
# and for six of the paths also `record -- mangohud PROG` and `mangohud
# stallscope record -- PROG` (the last two also with MANGOHUD_DLSYM=1). Each program presents exactly N
# frames (GLFW one more: glfwCreateWindow clears the window and swaps), and
# the run must hold exactly that many frames, all from the expected source,
# with the presenting thread (the program prints "present TID") as the
# frame thread. Paths: linked (ss-gltest), dlopen + dlsym of libGL, of
# libGLX, glXGetProcAddressARB taken by dlsym, the swap from the global
# scope, libGL opened by two threads at once, libEGL by dlsym and through
# eglGetProcAddress (ss-glpaths), SDL2 on GLX and GLES, GLFW on GLX, EGL
# and GLES; some from a second thread. glXSwapBuffersMscOML and the EGL
# damage variants skip where Mesa under Xvfb has no such extension
# (frames-stub.sh counts them against a stub). Then launchers: one that
# execs the program (the same process), one that forks it and waits, one
# that double-forks it and exits: the frames and the frame thread follow
# the program, and run.ini names its process.
set -u
. "$(dirname "$0")/shim-common.inc"
[ -x "$SS_BIN" ] || skip "no stallscope binary"
[ -x "$SS_BUILD/ss-glpaths" ] || skip "no ss-glpaths (X11/EGL headers missing at build)"

N=40
ini() { sed -n "s/^$2=//p" "$1/run.ini" | head -n1; }

# one Xvfb for the whole test
start_xvfb 90 140
unset MANGOHUD_DLSYM
export MANGOHUD_CONFIG=no_display

bad=0
no() { echo "FAIL: $*"; bad=1; }
# the cases this machine cannot run: the rest still runs, then the test
# skips (77) naming them, unless something failed
skipped=
left_out() { echo "left out: $*"; skipped="$skipped; $*"; }

# rec WRAP NAME SOURCE WANT PROG ARGS...: records PROG in wrapping WRAP
# (alone, inner, outer, inner-dlsym, outer-dlsym) and checks the run.
rec() {
	local wrap=$1 name=$2 src=$3 want=$4 run rc
	shift 4
	run="$TMP/$name-$wrap"
	case $wrap in
	alone) "$SS_BIN" record -q -o "$run" -- "$@" ;;
	inner) "$SS_BIN" record -q -o "$run" -- mangohud "$@" ;;
	inner-dlsym) MANGOHUD_DLSYM=1 "$SS_BIN" record -q -o "$run" -- mangohud "$@" ;;
	# MangoHud is then loaded into stallscope too, before the sanitizer's
	# runtime in a test build
	outer) ASAN_OPTIONS=verify_asan_link_order=0 mangohud "$SS_BIN" record -q -o "$run" -- "$@" ;;
	# MangoHud's dlsym crashes a sanitized program at start: then the
	# release build's stallscope (make test builds it first)
	outer-dlsym) MANGOHUD_DLSYM=1 mangohud "$PLAIN_BIN" record -q -o "$run" -- "$@" ;;
	esac >"$run.out" 2>&1
	rc=$?
	if [ $rc != 0 ] || [ "$(ini "$run" exit_status)" = 77 ]; then
		grep -q 'no GLX_OML\|no EGL_\*_swap' "$run/program.log" 2>/dev/null && return 2
		no "$name, $wrap: record exit $rc, program exit $(ini "$run" exit_status): $(tail -3 "$run.out") $(tail -3 "$run/program.log" 2>/dev/null)"
		return 1
	fi
	local frames got_src ft present
	frames=$(ini "$run" frames)
	got_src=$(ini "$run" "frames_$src")
	ft=$(ini "$run" frame_thread)
	present=$(sed -n 's/^\[[0-9.]*\] present //p' "$run/program.log" | tail -n1)
	[ -n "$present" ] || present=$(sed -n 's/^\[[0-9.]*\] main //p' "$run/program.log")
	[ "$frames" = "$want" ] && [ "$got_src" = "$want" ] ||
		{ no "$name, $wrap: $frames frames ($got_src $src), expected $want $src"; return 1; }
	[ "$ft" = "$present" ] || { no "$name, $wrap: frame thread $ft, the presenting thread is $present"; return 1; }
	return 0
}

# path NAME SOURCE WANT PROG ARGS...: alone, and for the paths in MH_PATHS
# every MangoHud wrapping (where it is installed): MangoHud's hook and ours
# meet in the loader's lookups, which these few cover (GLX's dlsym and its
# GetProcAddress from a thread, EGL's, SDL2's, GLFW's); every wrapping of
# every path was 85 recordings, two minutes of the suite's fifteen.
MH_PATHS=" linked glx-dlsym glx-gpa-thread egl-gpa sdl2 glfw-egl "
path() {
	local name=$1 src=$2 want=$3 w ok= wraps=
	shift 3
	case $MH_PATHS in *" $name "*) wraps=$MH_WRAPS ;; esac
	for w in alone $wraps; do
		rec "$w" "$name" "$src" "$want" "$@"
		case $? in
		0) ok="$ok $w" ;;
		2) left_out "$name: the extension is not here"; return ;;
		esac
	done
	echo "$name: $want $src frames, presenting thread followed:$ok"
}

MH_WRAPS=
PLAIN_BIN=$SS_BIN
if ldd "$SS_BIN" | grep -q libasan; then
	PLAIN_BIN=$SS_SRC/build/stallscope
fi
if ! command -v mangohud >/dev/null; then
	left_out "no mangohud: only 'record -- PROG'"
elif [ -x "$PLAIN_BIN" ]; then
	MH_WRAPS="inner outer inner-dlsym outer-dlsym"
else
	MH_WRAPS="inner outer inner-dlsym"
	left_out "no unsanitized stallscope ($PLAIN_BIN): 'MANGOHUD_DLSYM=1 mangohud stallscope record'"
fi
G=$SS_BUILD/ss-glpaths
if [ -x "$SS_BUILD/ss-gltest" ]; then
	path linked glx $N "$SS_BUILD/ss-gltest" $N 0
else
	left_out "no ss-gltest: the linked path"
fi
for m in glx-dlsym glx-libglx glx-gpa glx-global glx-twice glx-oml; do
	path "$m" glx $N "$G" "$m" $N
done
path glx-gpa-thread glx $N "$G" glx-gpa $N --thread
for m in egl-dlsym egl-gpa egl-damage; do
	path "$m" egl $N "$G" "$m" $N
done
path egl-gpa-thread egl $N "$G" egl-gpa $N --thread
if [ -x "$SS_BUILD/ss-sdl2" ]; then
	path sdl2 glx $N "$SS_BUILD/ss-sdl2" $N
	path sdl2-thread glx $N "$SS_BUILD/ss-sdl2" $N --thread
	path sdl2-egl egl $N "$SS_BUILD/ss-sdl2" $N --es
else
	left_out "no ss-sdl2 (libsdl2-dev missing at build)"
fi
if [ -x "$SS_BUILD/ss-glfw" ]; then
	path glfw-glx glx $((N + 1)) "$SS_BUILD/ss-glfw" glx $N
	path glfw-egl egl $((N + 1)) "$SS_BUILD/ss-glfw" egl $N
	path glfw-gles egl $((N + 1)) "$SS_BUILD/ss-glfw" gles $N --thread
else
	left_out "no ss-glfw (libglfw3-dev missing at build)"
fi

# Launchers: a shell that forks the program and waits, one that
# double-forks it and exits at once (record, the subreaper, follows it), and
# one whose leftover is followed before it execs the program (still named
# sh then; a loaded machine made "double" that case too): the frame process
# is named as it presents, in run.ini and in a frame_process event.
# A launcher that execs the program keeps its pid: nothing to follow.
run="$TMP/launch-exec"
"$SS_BIN" record -q -o "$run" -- sh -c 'exec "$0" glx-dlsym 100' "$G" >"$run.out" 2>&1 ||
	no "launcher exec: record failed: $(tail -3 "$run.out")"
main=$(sed -n 's/^\[[0-9.]*\] main //p' "$run/program.log")
[ "$(ini "$run" frames)" = 100 ] && [ "$(ini "$run" frame_thread)" = "$main" ] &&
	[ "$(ini "$run" frame_pid)" = "$main" ] && [ "$(ini "$run" pid)" = "$main" ] &&
	[ -z "$(ini "$run" frame_process)" ] ||
	no "launcher exec: frames $(ini "$run" frames), frame thread $(ini "$run" frame_thread), pid $(ini "$run" pid), program $main"
echo "launcher exec: 100 frames, the program is the process started"
for l in fork double late; do
	run="$TMP/launch-$l"
	case $l in
	fork) "$SS_BIN" record -q -o "$run" -- sh -c '"$0" glx-dlsym 200 & wait' "$G" ;;
	double) "$SS_BIN" record -q -o "$run" -- sh -c '("$0" glx-dlsym 200 &); exit 0' "$G" ;;
	late) "$SS_BIN" record -q -o "$run" -- sh -c '(sleep 0.5; exec "$0" glx-dlsym 200) & exit 0' "$G" ;;
	esac >"$run.out" 2>&1 || { no "launcher $l: record failed: $(tail -3 "$run.out")"; continue; }
	main=$(sed -n 's/^\[[0-9.]*\] main //p' "$run/program.log")
	[ "$(ini "$run" frames)" = 200 ] || no "launcher $l: $(ini "$run" frames) frames, expected 200"
	[ "$(ini "$run" frame_thread)" = "$main" ] || no "launcher $l: frame thread $(ini "$run" frame_thread), the program's is $main"
	[ "$(ini "$run" frame_pid)" = "$main" ] || no "launcher $l: frame_pid $(ini "$run" frame_pid), expected $main"
	[ "$(ini "$run" frame_process)" = ss-glpaths ] || no "launcher $l: frame_process '$(ini "$run" frame_process)'"
	[ "$(ini "$run" pid)" != "$main" ] || no "launcher $l: the launcher is the program?"
	"$SS_BIN" dump "$run" | grep -q "kind='frame_process' text='pid=$main name=ss-glpaths'" ||
		no "launcher $l: no frame_process event for $main"
	# the program's own samples: its thread, once it was followed
	"$SS_BIN" dump "$run" | awk -v t="$main" '$1 == "sample" && / ft.tid='"$main"' / { n++ } END { exit n < 1 }' ||
		no "launcher $l: no sample of the program's thread"
	echo "launcher $l: 200 frames, frame thread and process followed to pid $main"
done
[ $bad = 0 ] && [ -n "$skipped" ] && { echo "skip: not run here: ${skipped#; }"; exit 77; }
exit $bad
