#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e live root
# Waiting for the renderer (docs/CAUSES.md): glxgears on Mesa's software
# renderer (llvmpipe, one rasterizer thread, a 1600x1200 window under
# Xvfb: with two, a fast machine draws a frame in under 5 ms and the test
# had nothing to judge) spends its frames in futex waits that llvmpipe-N ends. Recorded in
# exact mode, the frames' time (every frame over 5 ms counted as a stall)
# must be gpu (llvmpipe) by the intervals' wakers (20 % of it or more, and
# 90 % or more of its futex waits; the rest is the X server's poll, the run
# queue, the CPU); recorded without
# exact mode there is no waker, and no stall may say llvmpipe. Skips (77)
# when not root, without xvfb-run or glxgears, or where exact mode cannot
# load.
set -u
[ "$(id -u)" = 0 ] || { echo "skip: not root (exact mode loads BPF)"; exit 77; }
for p in xvfb-run glxgears python3; do
	command -v "$p" >/dev/null || { echo "skip: no $p"; exit 77; }
done
T=$(mktemp -d /tmp/ss-e2e-renderer.XXXXXX)
trap 'rm -rf "$T"' EXIT
if ! "$SS_BIN" record -q --exact -o "$T/probe" --duration 0.05 -- sleep 1 >"$T/probe.out" 2>&1; then
	echo "skip: exact mode is not available here: $(tail -1 "$T/probe.out")"
	exit 77
fi

# record MODE DIR: glxgears for 3 s under Xvfb, software-rendered
record() {
	timeout 60 xvfb-run -a -s "-screen 0 1600x1200x24" \
		"$SS_BIN" record -q "$1" -o "$2" --duration 3 -- \
		env LIBGL_ALWAYS_SOFTWARE=1 GALLIUM_DRIVER=llvmpipe LP_NUM_THREADS=1 \
		glxgears -geometry 1600x1200 >"$2.out" 2>&1 ||
		{ echo "FAIL: record $1: $(tail -3 "$2.out")"; exit 1; }
	"$SS_BIN" stalls --json --stall-ms 5 --warmup 0 "$2" >"$2.json" 2>"$2.err" ||
		{ echo "FAIL: stalls: $(cat "$2.err")"; exit 1; }
}
record --exact "$T/x"
record --no-exact "$T/s"
/usr/bin/python3 - "$T/x.json" "$T/s.json" <<'PY'
import json, re, sys
def load(p):
    doc = json.load(open(p))[0]
    st = doc["stalls"]
    tot = sum(s["ms"] for s in st)
    subs = {}
    for s in st:
        for k, v in s["shares"].items():
            subs[k] = subs.get(k, 0) + v * s["ms"]
    return doc, st, tot, subs
bad = 0
doc, st, tot, subs = load(sys.argv[1])
if len(st) < 20:
    print("skip: only %d frames over 5 ms: the renderer was too fast here" % len(st)); sys.exit(77)
woken = sum(1 for s in st for iv in ((s.get("intervals") or {}).get("longest") or [])
            if re.fullmatch(r"llvmpipe-\d+", iv.get("waker_comm") or ""))
llvm = subs.get("gpu_llvmpipe", 0) / tot
print("exact: %d stalls, %.0f ms; gpu_llvmpipe %.0f%%, intervals woken by llvmpipe-N: %d; %s" % (
    len(st), tot, 100 * llvm, woken,
    ", ".join("%s %.0f%%" % (k, 100 * v / tot) for k, v in sorted(subs.items(), key=lambda x: -x[1])[:5])))
if doc.get("split") != "exact" and not all(s.get("split") == "exact" for s in st):
    print("FAIL: the exact run was not split by exact time"); bad = 1
if woken == 0:
    print("FAIL: no interval was woken by llvmpipe-N"); bad = 1
# the futex waits are the renderer's; poll (the X server), runq and cpu
# are the rest, and vary with the machine's load
futex = subs.get("wait_futex", 0) / tot
if llvm < 0.2 or llvm < 0.9 * (llvm + futex):
    print("FAIL: gpu (llvmpipe) is %.0f%% of the frames' time and wait (futex) %.0f%%: "
          "expected >= 20%% and >= 90%% of the two" % (100 * llvm, 100 * futex)); bad = 1
doc, st, tot, subs = load(sys.argv[2])
print("snapshot: %d stalls; %s" % (len(st), ", ".join("%s %.0f%%" % (k, 100 * v / tot)
      for k, v in sorted(subs.items(), key=lambda x: -x[1])[:5])))
if subs.get("gpu_llvmpipe", 0) > 0:
    print("FAIL: without exact mode a stall said llvmpipe (no waker is known there)"); bad = 1
sys.exit(bad)
PY
rc=$?
[ $rc = 0 ] && echo "ok: renderer waits are gpu (llvmpipe) by their waker, and only where it is known"
exit $rc
