#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e live
# The Vulkan layer: vkcube --c 300 on lavapipe presents exactly 300 times,
# and the ring holds exactly 300 vk stamps, increasing, from one thread.
# Then a planted pipeline compile in a real program (docs/WHERE.md, "Real
# programs"): vkcube recorded with the test layer VK_LAYER_SS_slowpipe
# (tests/progs/vkslow.c) below ours, whose 20th present says
# VK_ERROR_OUT_OF_DATE_KHR (a resized window): vkcube recreates its
# swapchain and pipeline between two frames, and the layer makes that
# vkCreateGraphicsPipelines spin 300 ms before calling the driver. The stall
# must say "in vkCreateGraphicsPipelines 300 ms" and, where stacks are
# recorded, name the layer's slow_CreateGraphicsPipelines under our
# ss_CreateGraphicsPipelines, called by vkcube.
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

[ -e "$SS_BUILD/vkslow/VkLayer_ss_slowpipe.json" ] || skip "no test layer in '$SS_BUILD/vkslow'"
need python3 python3
# both layers by name (record keeps a list that names ours); Debian's loader
# (1.3.239) chains ours above the test layer in either order of the list:
# were it below, its span would be lavapipe's few ms and the check fails
LVP=$(ls /usr/share/vulkan/icd.d/lvp_icd*.json | head -n1)
VK_ADD_LAYER_PATH=$SS_BUILD/vkslow VK_INSTANCE_LAYERS=VK_LAYER_STALLSCOPE_frames:VK_LAYER_SS_slowpipe \
	SS_SLOWPIPE_DOWN=1 SS_SLOWPIPE_STALE=20 SS_SLOWPIPE_MS=300 VK_DRIVER_FILES=$LVP VK_ICD_FILENAMES=$LVP \
	timeout 120 xvfb-run -a -s "-screen 0 640x480x24" "$SS_BIN" record -q -o "$TMP/vk" --no-exact \
	-- vkcube --c 40 >"$TMP/rec.out" 2>&1 || { cat "$TMP/rec.out"; fail "record vkcube"; }
"$SS_BIN" stalls --warmup 0 "$TMP/vk" >"$TMP/stalls.txt" || fail "stalls"
cat "$TMP/stalls.txt"
grep -Eq '^ *[0-9.]+ +3[0-9][0-9]\.[0-9] .*in vkCreateGraphicsPipelines 3[0-9][0-9]\.[0-9] ms' "$TMP/stalls.txt" ||
	fail "vkcube's recreated pipeline: no stall says in vkCreateGraphicsPipelines 300 ms"
"$SS_BIN" stalls --warmup 0 --json "$TMP/vk" >"$TMP/stalls.json" || fail "stalls --json"
python3 - "$TMP/stalls.json" "$(sed -n 's/^stacks=//p' "$TMP/vk/run.ini")" <<'PY' ||
import json, sys
st = json.load(open(sys.argv[1]))[0]
st = [s for s in st["stalls"] + st["warm_stalls"]
      if "vkCreateGraphicsPipelines" in [a["name"] for a in s["api_calls"]]]
assert len(st) == 1, "%d stalls in vkCreateGraphicsPipelines" % len(st)
if sys.argv[2] != "on":
    print("(no stacks: %s)" % sys.argv[2])
    sys.exit(0)
s = st[0]
n = s["stack_samples"]
def ours(fr):
    try:
        a = fr.index("slow_CreateGraphicsPipelines")
        b = fr.index("ss_CreateGraphicsPipelines", a)
        return any(f.startswith(("vkcube", "demo_")) for f in fr[b:])
    except ValueError:
        return False
hit = sum(x["n"] for x in s["stacks"] if ours(x["frames"]))
assert n >= 20 and hit >= 0.5 * n, "%d of %d samples in slow_ <- ss_CreateGraphicsPipelines <- vkcube: %s" % (hit, n, s["stacks"][:2])
PY
	fail "the planted pipeline stall's stacks"
echo "vkcube: the recreated pipeline's stall is in vkCreateGraphicsPipelines"
