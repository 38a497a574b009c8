#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e live parallel
# One program, two sources: ss-gltest presents 100 times through GLX (half
# by glXSwapBuffers, half through glXGetProcAddressARB's pointer) from its
# main thread while a second thread marks 50 frames with stallscope_frame().
# The ring tells them apart by source and by thread. Without the hooks only
# the marks remain.
set -u
. "$(dirname "$0")/shim-common.inc"
[ -x "$SS_BUILD/ss-gltest" ] || skip "no ss-gltest (GL and X11 headers missing at build)"

ringcat -- "$SS_BUILD/ss-gltest" 100 50 || { cat "$TMP/log"; fail "ss-gltest failed"; }
main=$(awk '$1 == "main" { print $2 }' "$TMP/log")
mark=$(awk '$1 == "marker" { print $2 }' "$TMP/log")
[ "$(count glx)" = 100 ] || { cat "$TMP/log"; fail "expected 100 glx frames, got $(count glx)"; }
[ "$(count marker)" = 50 ] || fail "expected 50 marker frames, got $(count marker)"
[ "$(awk -v t="$main" '$3 == "glx" && $2 != t' "$TMP/frames" | wc -l)" = 0 ] ||
	fail "glx frames from a thread other than main ($main)"
[ "$(awk -v t="$mark" '$3 == "marker" && $2 != t' "$TMP/frames" | wc -l)" = 0 ] ||
	fail "marker frames from a thread other than the marker's ($mark)"

ringcat -n -- "$SS_BUILD/ss-gltest" 20 10 || { cat "$TMP/log"; fail "ss-gltest without hooks failed"; }
[ "$(count glx)" = 0 ] || fail "glx frames recorded without hooks"
[ "$(count marker)" = 10 ] || fail "expected 10 marker frames without hooks, got $(count marker)"
echo "ss-gltest: glx and marker told apart"
