#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e live
# A program that opens libGL with dlopen(RTLD_LOCAL) and takes
# glXSwapBuffers from the global scope reaches the shim's wrapper, whose
# RTLD_NEXT finds nothing: the wrapper must open libGL by soname, present,
# and stamp all 50 frames. Taking it from the program's own handle bypasses
# the shim (the limit docs/HOOKS.md states): 0 frames, and no crash.
set -u
. "$(dirname "$0")/shim-common.inc"
[ -x "$SS_BUILD/ss-gldlopen" ] || skip "no ss-gldlopen (X11 headers missing at build)"

ringcat -- "$SS_BUILD/ss-gldlopen" global 50 || { cat "$TMP/log"; fail "ss-gldlopen global failed"; }
main=$(awk '$1 == "main" { print $2 }' "$TMP/log")
[ "$(count glx)" = 50 ] || { cat "$TMP/log"; fail "expected 50 glx frames, got $(count glx)"; }
[ "$(awk -v t="$main" '$2 != t' "$TMP/frames" | wc -l)" = 0 ] || fail "frames from another thread"

ringcat -- "$SS_BUILD/ss-gldlopen" handle 20 || { cat "$TMP/log"; fail "ss-gldlopen handle failed"; }
[ "$(count glx)" = 0 ] || fail "frames through the program's own handle: update docs/HOOKS.md's limits"
echo "dlopen: the fallback by soname stamps every frame"
