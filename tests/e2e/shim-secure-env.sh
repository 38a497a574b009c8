#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e root parallel
# A setuid or setgid program is not steered through STALLSCOPE_* (issue 26
# item 14): the shim and the marker API read the ring's name with
# secure_getenv, so in secure execution (the kernel's AT_SECURE) they ignore
# it. First the libraries: the GL/EGL shim (64- and 32-bit) and the Vulkan
# layer import secure_getenv and no getenv. Then the marker API at work, as
# root: ss-markers marks 20 frames into ss-ringcat's ring; a setgid copy of it
# (group nogroup, so its effective gid differs and AT_SECURE is set) marks
# none, and says "pushed=0". Skips (77) the second part when not root.
set -u
fail() { echo "FAIL: $*"; exit 1; }
RINGCAT=$SS_BUILD/ss-ringcat
MARKERS=$SS_BUILD/tools/ss-markers
for f in "$SS_BUILD/libstallscope-frames.so" "$SS_BUILD/libVkLayer_stallscope_frames.so" \
	"$RINGCAT" "$MARKERS"; do
	[ -e "$f" ] || { echo "skip: no '$f'"; exit 77; }
done
command -v nm >/dev/null || { echo "skip: no nm (package binutils)"; exit 77; }

libs="$SS_BUILD/libstallscope-frames.so $SS_BUILD/libVkLayer_stallscope_frames.so"
[ -e "$SS_BUILD/lib32/libstallscope-frames.so" ] && libs="$libs $SS_BUILD/lib32/libstallscope-frames.so"
for l in $libs; do
	imports=$(nm -D --undefined-only "$l" | awk '{ sub(/@.*/, "", $2); print $2 }')
	grep -qx getenv <<<"$imports" && fail "$l imports getenv"
	grep -qx secure_getenv <<<"$imports" || fail "$l does not import secure_getenv"
	echo "ok   $(basename "$(dirname "$l")")/$(basename "$l"): secure_getenv, no getenv"
done

[ "$(id -u)" = 0 ] || { echo "skip: the setgid program needs root to make it"; exit 77; }
unset ASAN_OPTIONS UBSAN_OPTIONS
T=$(mktemp -d "$SS_BUILD/ss-e2e-secenv.XXXXXX")
trap 'rm -rf "$T"' EXIT
chmod 755 "$T"
cp "$MARKERS" "$T/sgid-markers"
chgrp "$(getent group nogroup >/dev/null && echo nogroup || echo 65534)" "$T/sgid-markers" &&
	chmod 2755 "$T/sgid-markers" || fail "could not make a setgid copy of ss-markers"

"$RINGCAT" -n -o "$T/plain" -- "$MARKERS" --frames 20 --fps 200 >"$T/plain.out" 2>&1 ||
	fail "ss-markers: $(cat "$T/plain.out")"
[ "$(wc -l <"$T/plain")" = 20 ] && grep -q 'pushed=20' "$T/plain.out" ||
	fail "ss-markers marked $(wc -l <"$T/plain") of 20 frames: $(cat "$T/plain.out")"
echo "ok   ss-markers: 20 frames into the ring named in STALLSCOPE_RING"

"$RINGCAT" -n -o "$T/sgid" -- "$T/sgid-markers" --frames 20 --fps 200 >"$T/sgid.out" 2>&1 ||
	fail "setgid ss-markers: $(cat "$T/sgid.out")"
[ "$(stat -c %A "$T/sgid-markers" | cut -c7)" = s ] || fail "the copy lost its setgid bit"
[ "$(wc -l <"$T/sgid")" = 0 ] && grep -q 'pushed=0' "$T/sgid.out" ||
	fail "the setgid copy followed STALLSCOPE_RING: $(wc -l <"$T/sgid") frames: $(cat "$T/sgid.out")"
echo "ok   setgid ss-markers: STALLSCOPE_RING ignored, no frames"
