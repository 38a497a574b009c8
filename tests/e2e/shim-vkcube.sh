#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e live
# The Vulkan layer: vkcube --c 300 on lavapipe presents exactly 300 times,
# and the ring holds exactly 300 vk stamps, increasing, from one thread.
set -u
. "$(dirname "$0")/shim-common.inc"
need vkcube vulkan-tools
ls /usr/share/vulkan/icd.d/lvp_icd*.json >/dev/null 2>&1 ||
	skip "no lavapipe driver (package mesa-vulkan-drivers)"
[ -e "$SS_BUILD/vklayer/VkLayer_stallscope_frames.json" ] || skip "no layer manifest in '$SS_BUILD'"

ringcat -- vkcube --c 300 || { cat "$TMP/log"; fail "vkcube under ss-ringcat failed"; }
n=$(count vk)
[ "$n" = 300 ] || { cat "$TMP/log"; fail "expected 300 vk frames, got $n"; }
[ "$(wc -l <"$TMP/frames")" = 300 ] || fail "frames of other sources than vk"
awk 'NR > 1 && $1 <= p { bad++ } { p = $1 } END { exit bad > 0 }' "$TMP/frames" ||
	fail "stamps not increasing"
[ "$(cut -d' ' -f2 "$TMP/frames" | sort -u | wc -l)" = 1 ] || fail "more than one presenting thread"

# Without the hooks the layer is not loaded: no frames.
ringcat -n -- vkcube --c 30 || { cat "$TMP/log"; fail "vkcube without hooks failed"; }
[ "$(count vk)" = 0 ] || fail "vk frames recorded without hooks"
echo "vkcube: 300 frames, 300 stamps"
