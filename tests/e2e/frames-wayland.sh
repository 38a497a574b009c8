#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e live slow parallel
# Wayland clients under weston's headless backend with its GL renderer
# (Mesa's llvmpipe): es2gears_wayland and weston-simple-egl (EGL),
# vkcube-wayland (Vulkan, lavapipe) recorded for 6 s beside MangoHud's
# per-frame log (`record -- mangohud PROG`): frames all from their source,
# the frame rate within 2 % of MangoHud's over the seconds it logged
# (tests/e2e/lib/mh-compare.py). Mesa's Wayland EGL and Vulkan on llvmpipe
# and lavapipe commit wl_shm buffers inside their presents: none of those
# may count again as a software present (frames_wlshm 0). Then
# weston-simple-shm, which draws on the CPU and commits wl_shm buffers:
# its frames come from the wlshm source, one for each wl_surface commit
# of a newly attached buffer in its WAYLAND_DEBUG log.
set -u
. "$(dirname "$0")/shim-common.inc"
[ -x "$SS_BIN" ] || skip "no stallscope binary"
need weston weston
need weston-simple-shm weston
[ -e /usr/lib/x86_64-linux-gnu/libweston-10/headless-backend.so ] ||
	ls /usr/lib/*/libweston-*/headless-backend.so >/dev/null 2>&1 ||
	skip "no weston headless backend"

# A private runtime directory and weston on it; Xvfb's DISPLAY is not wanted.
unset DISPLAY
export XDG_RUNTIME_DIR=$TMP/xdg
mkdir -m 700 "$XDG_RUNTIME_DIR"
export WAYLAND_DISPLAY=ss-wl-$$
weston --backend=headless-backend.so --use-gl --socket="$WAYLAND_DISPLAY" --idle-time=0 \
	>"$TMP/weston.log" 2>&1 &
WESTON=$!
trap 'kill $WESTON 2>/dev/null; wait $WESTON 2>/dev/null; rm -rf "$TMP"' EXIT
for i in $(seq 100); do [ -S "$XDG_RUNTIME_DIR/$WAYLAND_DISPLAY" ] && break; sleep 0.1; done
[ -S "$XDG_RUNTIME_DIR/$WAYLAND_DISPLAY" ] ||
	{ tail -5 "$TMP/weston.log"; skip "weston's headless backend did not start"; }
grep -q "GL renderer\|gl-renderer" "$TMP/weston.log" || echo "weston: no GL renderer said in its log"

ini() { sed -n "s/^$2=//p" "$1/run.ini" | head -n1; }
bad=0
# the cases this machine cannot run: the rest still runs, then the test
# skips (77) naming them, unless something failed
skipped=
left_out() { echo "left out: $*"; skipped="$skipped; $*"; }

# beside NAME SOURCE CMD...: record CMD beside MangoHud and compare
beside() {
	local name=$1 src=$2 run=$TMP/$1 mh=$TMP/mh-$1 csv n
	shift 2
	command -v "$1" >/dev/null || { left_out "no $1"; return; }
	if ! command -v mangohud >/dev/null; then
		left_out "no mangohud: $name"
		return
	fi
	mkdir -p "$mh"
	MANGOHUD_CONFIG="output_folder=$mh,autostart_log=1,log_duration=3,log_interval=0,no_display" \
		timeout 60 "$SS_BIN" record -q -o "$run" --duration 6 -- mangohud "$@" >"$run.out" 2>&1 ||
		{ echo "FAIL: $name: record: $(tail -3 "$run.out")"; bad=1; return; }
	# a program that cannot run here (no Vulkan driver) exits at once
	if [ "$(ini "$run" frames)" = 0 ] && [ -z "$(ini "$run" exit_signal)" ] &&
		[ "$(ini "$run" exit_status)" != 0 ]; then
		left_out "$name cannot run here: $(tail -1 "$run/program.log")"
		return
	fi
	n=$(ini "$run" "frames_$src")
	[ "$n" = "$(ini "$run" frames)" ] && [ "${n:-0}" -gt 0 ] ||
		{ echo "FAIL: $name: frames_$src=$n of $(ini "$run" frames)"; bad=1; return; }
	[ "$(ini "$run" frames_wlshm)" = 0 ] ||
		{ echo "FAIL: $name: frames_wlshm=$(ini "$run" frames_wlshm): the driver's commits counted"; bad=1; }
	csv=$(ls "$mh"/*.csv 2>/dev/null | grep -v _summary | head -1)
	[ -n "$csv" ] || { echo "FAIL: $name: MangoHud wrote no log ($(tail -2 "$run/program.log"))"; bad=1; return; }
	"$SS_BIN" dump "$run" | awk '$1 == "frame" { sub("t=", "", $2); printf "%.0f\n", $2 * 1e9 }' \
		>"$run.stamps"
	echo -n "$name ($src, $n frames): "
	python3 "$SS_SRC/tests/e2e/lib/mh-compare.py" "$run.stamps" "$csv" 2 ||
		{ echo "FAIL: $name: our frame rate and MangoHud's differ by more than 2 %"; bad=1; }
}

beside es2gears_wayland egl es2gears_wayland
beside weston-simple-egl egl weston-simple-egl
if command -v vkcube-wayland >/dev/null; then
	beside vkcube-wayland vk vkcube-wayland
else
	beside vkcube vk vkcube --wsi wayland
fi

# weston-simple-shm: every commit of a newly attached buffer, from its own
# protocol log (libwayland writes WAYLAND_DEBUG lines to stderr: program.log)
run=$TMP/shm
WAYLAND_DEBUG=client timeout 60 "$SS_BIN" record -q -o "$run" --duration 3 -- weston-simple-shm \
	>"$run.out" 2>&1 || fail "weston-simple-shm: record: $(tail -3 "$run.out")"
n=$(ini "$run" frames_wlshm)
want=$(python3 - "$run/program.log" <<'PY'
import re, sys
attached, n = set(), 0
for l in open(sys.argv[1], errors="replace"):
    m = re.search(r"-> (wl_surface@\d+)\.(attach|commit)\((wl_buffer@|nil|\))?", l)
    if not m:
        continue
    s, req = m.group(1), m.group(2)
    if req == "attach":
        (attached.add if m.group(3) == "wl_buffer@" else attached.discard)(s)
    elif s in attached:
        attached.discard(s)
        n += 1
print(n)
PY
)
[ "${n:-0}" -gt 0 ] || fail "weston-simple-shm: frames_wlshm=$n ($(ini "$run" frames) frames)"
[ "$n" = "$(ini "$run" frames)" ] || fail "weston-simple-shm: frames $(ini "$run" frames), frames_wlshm $n"
[ "$n" = "$want" ] || fail "weston-simple-shm: frames_wlshm=$n, its log has $want commits of a new buffer"
echo "weston-simple-shm: $n frames (wlshm), its log has $want commits of a new buffer"
[ $bad = 0 ] && [ -n "$skipped" ] && { echo "skip: not run here: ${skipped#; }"; exit 77; }
exit $bad
