#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e live root
# The recorder opens no debug file while it records (linux/stacks.c,
# no_debuginfo; docs/WHERE.md, "Unwinding"): libdw asks for one where
# .eh_frame ends a stack (the program's _start, a thread's clone3) and,
# with the standard callback, looked in /usr/lib/debug and loaded
# libdebuginfod (and with it libcurl), which then fetches from
# DEBUGINFOD_URLS in the middle of a recording; a libc6-dbg debug file,
# once found, stayed in the recorder's memory (9.5 MB in a soak). The fake
# game's cpu stall, its frame thread the main thread (its stacks end at
# _start) and then a render thread (clone3), is recorded under strace: the
# recorder's process opens nothing under /usr/lib/debug and no
# libdebuginfod, and the stall still unwinds to main (and to
# render_main). Root: user stacks of another user's program.
. "$SS_SRC/tests/e2e/lib/record.sh"
[ "$(id -u)" = 0 ] || { echo "skip: not root"; exit 77; }
GAME=$SS_BUILD/fakegame
[ -x "$GAME" ] || { echo "skip: no fakegame"; exit 77; }
command -v strace >/dev/null || { echo "skip: no strace (scripts/deps.sh test installs it)"; exit 77; }
command -v python3 >/dev/null || { echo "skip: no python3"; exit 77; }
# only the opens stop the recorder where strace has seccomp filtering
sopt=--seccomp-bpf
strace -f $sopt -qq -e trace=openat -o /dev/null true 2>/dev/null || sopt=

for mode in "" --render-thread; do
	rm -rf run trace
	# (an ASan build's leak check stops the world with ptrace, which a
	# process strace traces cannot: off here)
	# shellcheck disable=SC2086
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 DEBUGINFOD_URLS=http://127.0.0.1:9/ \
		strace -f $sopt -qq -e trace=openat,open -o trace \
		"$SS_BIN" record -q --no-exact -o run -- "$GAME" $mode --fps 60 --seconds 1.4 \
		--stall cpu:300@0.5 >rec.out 2>&1 || fail "record $mode: $(tail -3 rec.out)"
	case "$(ini run/run.ini stacks_reason)" in
	*"no libdw"*) echo "skip: built without libdw"; exit 77 ;;
	*"perf_event_open"*) echo "skip: perf_event_open refused: $(ini run/run.ini stacks_reason)"; exit 77 ;;
	esac
	[ "$(ini run/run.ini stacks)" = on ] || fail "record $mode: stacks=$(ini run/run.ini stacks)"
	rp=$(head -1 trace | awk '{ print $1 }')
	bad=$(awk -v p="$rp" '$1 == p && (/\/usr\/lib\/debug/ || /debuginfod/)' trace)
	[ -z "$bad" ] || fail "record $mode: the recorder ($rp) looked for debug files: $(echo "$bad" | head -3)"
	"$SS_BIN" stalls --json --warmup 0 run >stalls.json || fail "stalls $mode"
	want=main
	[ -n "$mode" ] && want=render_main
	/usr/bin/python3 - stalls.json "$want" <<'PY' || fail "record $mode: the stall does not unwind to $want"
import json, sys
s = json.load(open(sys.argv[1]))[0]["stalls"][0]
top = max(s["stacks"], key=lambda x: x["n"])
assert top["frames"][0] == "spin_until" and sys.argv[2] in top["frames"], top
PY
	echo "ok: $([ -n "$mode" ] && echo "$mode: ")no debug file opened, the stall unwound to $want"
done
