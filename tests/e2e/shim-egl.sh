#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e live parallel
# The EGL hook: es2gears_x11 (eglSwapBuffers) for 3 s records egl frames from
# its main thread, stamps increasing.
set -u
. "$(dirname "$0")/shim-common.inc"
need es2gears_x11 mesa-utils

ringcat -t 3 -- es2gears_x11 || { cat "$TMP/log"; fail "es2gears_x11 under ss-ringcat failed"; }
pid=$(sed -n 's/^ss-ringcat: pid \([0-9]*\) .*/\1/p' "$TMP/log")
n=$(count egl)
echo "es2gears_x11: $n egl frames"
[ "$n" -gt 10 ] || { cat "$TMP/log"; fail "expected egl frames, got $n"; }
[ "$n" = "$(wc -l <"$TMP/frames")" ] || fail "frames of other sources than egl"
[ "$(awk -v p="$pid" '$2 != p' "$TMP/frames" | wc -l)" = 0 ] || fail "frames from another thread"
awk 'NR > 1 && $1 <= p { bad++ } { p = $1 } END { exit bad > 0 }' "$TMP/frames" ||
	fail "stamps not increasing"
