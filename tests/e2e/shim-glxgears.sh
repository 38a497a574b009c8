#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e live
# The GLX hook: glxgears for 6 s. glxgears prints "N frames in 5.0 seconds"
# right after the swap that ends its first 5 s; the stamps recorded up to
# the moment that line arrives (read on CLOCK_MONOTONIC, the stamps' clock)
# must count N within 1 % (beyond it, by the frames drawn while the line
# travelled to a late reader). Stamps increase; the presenting thread is
# glxgears' main thread (its pid).
set -u
. "$(dirname "$0")/shim-common.inc"
need glxgears mesa-utils
need python3 python3

# The reader runs glxgears (so it inherits the hooks) and stamps its lines.
cat >"$TMP/reader.py" <<'PY'
import subprocess, sys, time, signal
p = subprocess.Popen(["glxgears"], stdout=subprocess.PIPE, text=True)
print("pid", p.pid, flush=True)
start = time.monotonic()
for line in p.stdout:
    print("line", time.monotonic_ns(), line.strip(), flush=True)
    if "frames in" in line:
        break
time.sleep(max(1, 6 - (time.monotonic() - start)))  # 1 s of frames after the line at least
p.send_signal(signal.SIGTERM)
p.wait()
PY
ringcat -- python3 "$TMP/reader.py" || { cat "$TMP/log"; fail "glxgears under ss-ringcat failed"; }
pid=$(awk '$1 == "pid" { print $2 }' "$TMP/log")
read -r t_line n_gears < <(awk '$1 == "line" && $4 == "frames" { print $2, $3; exit }' "$TMP/log")
[ -n "${n_gears:-}" ] || { cat "$TMP/log"; skip "glxgears printed no frame count"; }
n_ours=$(awk -v t="$t_line" '$1 <= t { n++ } END { print n + 0 }' "$TMP/frames")
# glxgears goes on drawing while its line travels to the reader: on a loaded
# machine the reader reads it late, so the frames of the last 100 ms before
# the line arrived may be beyond glxgears' count (not below it)
n_late=$(awk -v t="$t_line" '$1 <= t && $1 > t - 100000000 { n++ } END { print n + 0 }' "$TMP/frames")
echo "glxgears counted $n_gears frames, the ring $n_ours up to that line ($n_late in its last 100 ms)"
awk -v a="$n_gears" -v b="$n_ours" -v l="$n_late" 'BEGIN { d = b - a; exit !(d >= -a / 100 && d <= a / 100 + l) }' ||
	fail "frame counts differ by more than 1 % ($n_gears against $n_ours)"
[ "$(count glx)" -gt "$n_ours" ] || fail "no frames after the line (glxgears ran 1 s beyond it)"
awk 'NR > 1 && $1 <= p { bad++ } { p = $1 } END { exit bad > 0 }' "$TMP/frames" ||
	fail "stamps not increasing"
others=$(awk -v p="$pid" '$2 != p' "$TMP/frames" | wc -l)
[ "$others" = 0 ] || fail "$others frames from a thread other than glxgears' ($pid)"
[ "$(count glx)" = "$(wc -l <"$TMP/frames")" ] || fail "frames of other sources than glx"
