#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e live slow parallel
# Real programs from Debian, each recorded for 12 s under Xvfb (Mesa's
# software GL) beside MangoHud with its dlsym hook (MANGOHUD_DLSYM=1) and
# per-frame logging: `stallscope record -- mangohud PROG`. Over the seconds
# MangoHud logged, our frame rate must agree with MangoHud's within 2 %
# (tests/e2e/lib/mh-compare.py aligns the two frame by frame), and `stalls`
# must run on the result. The programs reach GL each their own way:
# chromium-bsu (SDL2: dlopen + dlsym + glXGetProcAddressARB; neverball, SDL2
# too, is compared with MangoHud through its recipe in games-recipes.sh),
# glmark2 and glmark2-es2 (their own dlopen of libGL / libEGL), supertux2
# (SDL2, when installed: its data is 160 MB, so scripts/deps.sh leaves it
# out), and GLFW on EGL (our ss-glfw on Debian's libglfw). At least three
# of the Debian games must be there.
set -u
. "$(dirname "$0")/shim-common.inc"
need mangohud mangohud
[ -x "$SS_BIN" ] || skip "no stallscope binary"
export PATH=$PATH:/usr/games

have=0
for g in chromium-bsu glmark2 glmark2-es2 supertux2; do
	command -v "$g" >/dev/null && have=$((have + 1))
done
[ $have -ge 3 ] || skip "only $have of chromium-bsu, glmark2, glmark2-es2, supertux2 (scripts/deps.sh test installs them)"

start_xvfb 141 190

# The games keep their settings under HOME: a fresh one.
export HOME=$TMP/home SDL_AUDIODRIVER=dummy MANGOHUD_DLSYM=1
mkdir -p "$HOME"

bad=0
# game NAME SOURCE CMD...: record CMD beside MangoHud and compare
game() {
	local name=$1 src=$2 run=$TMP/$1 mh=$TMP/mh-$1 csv n
	shift 2
	command -v "$1" >/dev/null || { echo "no $1: left out"; return; }
	mkdir -p "$mh"
	MANGOHUD_CONFIG="output_folder=$mh,autostart_log=1,log_duration=7,log_interval=0,no_display" \
		timeout 90 "$SS_BIN" record -q -o "$run" --duration 12 -- mangohud "$@" >"$run.out" 2>&1 ||
		{ echo "FAIL: $name: record: $(tail -3 "$run.out")"; bad=1; return; }
	csv=$(ls "$mh"/*.csv 2>/dev/null | grep -v _summary | head -1)
	[ -n "$csv" ] || { echo "FAIL: $name: MangoHud wrote no log ($(tail -2 "$run/program.log"))"; bad=1; return; }
	n=$(sed -n "s/^frames_$src=//p" "$run/run.ini")
	[ "$n" = "$(sed -n 's/^frames=//p' "$run/run.ini")" ] && [ "${n:-0}" -gt 0 ] ||
		{ echo "FAIL: $name: frames_$src=$n of $(sed -n 's/^frames=//p' "$run/run.ini")"; bad=1; return; }
	"$SS_BIN" dump "$run" | awk '$1 == "frame" { sub("t=", "", $2); printf "%.0f\n", $2 * 1e9 }' \
		>"$run.stamps"
	echo -n "$name ($src): "
	python3 "$SS_SRC/tests/e2e/lib/mh-compare.py" "$run.stamps" "$csv" 2 ||
		{ echo "FAIL: $name: our frame rate and MangoHud's differ by more than 2 %"; bad=1; }
	"$SS_BIN" stalls --warmup 0 "$run" >"$run.stalls" 2>&1 ||
		{ echo "FAIL: $name: stalls: $(tail -3 "$run.stalls")"; bad=1; }
	grep -q '^window: ' "$run.stalls" || { echo "FAIL: $name: stalls printed no window"; bad=1; }
}

game chromium-bsu glx chromium-bsu -w -v 0 -na
game glmark2 glx glmark2 -s 320x240 -b build:duration=12
game glmark2-es2 egl glmark2-es2 -s 320x240 -b build:duration=12
game supertux2 glx supertux2 -w -g 320x240
if [ -x "$SS_BUILD/ss-glfw" ]; then
	game glfw-egl egl "$SS_BUILD/ss-glfw" egl 8000
fi
exit $bad
