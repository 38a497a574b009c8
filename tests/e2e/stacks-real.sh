#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e live
# A real program's shader compile (docs/WHERE.md, "Real programs"): Debian's
# glmark2 on Mesa's llvmpipe under xvfb-run, the shader cache off
# (MESA_SHADER_CACHE_DISABLE=true), one rasterizer thread. Its build scene
# draws frames, then the jellyfish scene compiles its shaders
# (glCompileShader, glLinkProgram: the GL shim's API spans) and llvmpipe
# JIT-compiles them through LLVM at the first draw, loads its textures and
# draws: one stall of several hundred ms between two frames. That stall must
# say where: a quarter or more of its samples in LLVM's code (frames named
# llvm::..., LLVM..., or Mesa's lp_/gallivm_ where its symbols are
# installed) in `stalls --json`, the text's `files:` line under it names
# libLLVM (its samples are spread over LLVM's many passes, so no one stack
# is hot: the innermost frames' files say it), and its evidence the
# compile's API span ("in glCompileShader" / "in glLinkProgram"). Stacks
# at the default 1 kHz: the frames are named at analysis time (2.3).
. "$SS_SRC/tests/e2e/lib/record.sh"
command -v xvfb-run >/dev/null || { echo "skip: no xvfb-run (package xvfb)"; exit 77; }
command -v glmark2 >/dev/null || { echo "skip: no glmark2 (package glmark2-x11)"; exit 77; }
command -v python3 >/dev/null || { echo "skip: no python3"; exit 77; }
[ -e "$SS_BUILD/libstallscope-frames.so" ] || { echo "skip: no libstallscope-frames.so"; exit 77; }
# the hooks must not inherit the sanitizer runtime's needs
unset ASAN_OPTIONS UBSAN_OPTIONS
export LIBGL_ALWAYS_SOFTWARE=1 MESA_SHADER_CACHE_DISABLE=true LP_NUM_THREADS=1

timeout 120 xvfb-run -a -s "-screen 0 640x480x24" "$SS_BIN" record -q -o run --no-exact \
	-- glmark2 -s 160x120 -b build:duration=1.2 -b jellyfish:duration=0.3 \
	>rec.out 2>&1 || fail "record glmark2: $(tail -5 rec.out)"
if [ "$(ini run/run.ini stacks)" != on ]; then
	reason=$(ini run/run.ini stacks_reason)
	case "$reason" in
	*"no libdw"*) echo "skip: built without libdw: $reason"; exit 77 ;;
	*"perf_event_open"*) echo "skip: this machine refuses perf_event_open: $reason"; exit 77 ;;
	esac
	fail "stacks not on: $reason"
fi
expect_eq "glmark2's exit status" "$(ini run/run.ini exit_status)" 0
expect_ge "frames_glx" "$(ini run/run.ini frames_glx)" 3
"$SS_BIN" stalls --warmup 0 run >stalls.txt || fail "stalls"
cat stalls.txt
"$SS_BIN" stalls --warmup 0 --json run >stalls.json || fail "stalls --json"
python3 - stalls.json <<'PY' || fail "no compile stall names LLVM and its API span (stalls.txt above)"
import json, re, sys
runs = json.load(open(sys.argv[1]))
st = runs[0]["stalls"] + runs[0]["warm_stalls"]
compile_calls = {"glCompileShader", "glLinkProgram", "glGetProgramiv", "glGetShaderiv"}
comp = re.compile(r"llvm::|LLVM|\blp_|gallivm")
seen = []
for s in st:
    calls = {a["name"] for a in s.get("api_calls", [])}
    n = s.get("stack_samples", 0)
    hit = sum(x["n"] for x in s.get("stacks", []) if any(comp.search(f) for f in x["frames"]))
    seen.append("%.3f s %.0f ms: %d of %d samples in LLVM, calls %s"
                % (s["t_s"], s["ms"], hit, n, sorted(calls)))
    if s["ms"] >= 100 and calls & compile_calls and n >= 10 and hit >= 0.25 * n:
        print("the compile stall: " + seen[-1])
        sys.exit(0)
sys.exit("; ".join(seen) or "no stall")
PY
grep -Eq '^ +files: ([0-9]+ % [^,]+, )*[0-9]+ % libLLVM[^ ,]*' stalls.txt ||
	fail "no stall's files: line names libLLVM"
grep -Eq '^ *[0-9.]+ +[0-9.]+ .*in gl(CompileShader|LinkProgram) [0-9.]+ ms' stalls.txt ||
	fail "no stall's evidence names glCompileShader or glLinkProgram"
echo "ok"
