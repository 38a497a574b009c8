#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e live parallel
# Every GL/EGL path the frame hook catches, counted exactly against a stub
# libGL/libEGL (tests/progs/stub: no display, no driver): `record` of
# ss-stubgl MODE 25 must hold exactly 25 frames of the mode's source, and
# the stub must have seen exactly 25 presents (each passed on once):
# dlsym on the program's own handle (glXSwapBuffers, eglSwapBuffers), the
# two GetProcAddresses taken by dlsym, glXSwapBuffersMscOML, both damage
# variants, a present that passes two wrappers (counted once), and the
# linked PLT call. Then what the dlsym forwarding must keep working, in
# both preload orders: another hook's dlsym(RTLD_NEXT) (libss-otherhook.so,
# which exits 3 if it finds itself) and a plugin's dlsym(RTLD_DEFAULT) of
# its own dependency. RTLD_DEEPBIND is the documented limit: 0 frames, and
# the stub saw them all. Without a recorder the library passes through.
# (A 32-bit program: frames-stub32.sh.)
. "$SS_SRC/tests/e2e/lib/record.sh"
STUB=$SS_BUILD/stub
SHIM=$SS_BUILD/libstallscope-frames.so
[ -x "$STUB/ss-stubgl" ] && [ -x "$STUB/ss-stubgl-linked" ] || { echo "skip: no $STUB/ss-stubgl"; exit 77; }
[ -e "$SHIM" ] || { echo "skip: no $SHIM"; exit 77; }
# The stub programs are not sanitized, and the sanitizer's options are not theirs.
unset ASAN_OPTIONS UBSAN_OPTIONS

# log RUN WHAT: the number after WHAT in the program's output (program.log)
log() { sed -n "s/^\[[0-9.]*\] $2 //p" "$1/program.log" | tail -n1; }

# check RUN SOURCE N [STUB_N]: N frames, all of SOURCE, and the stub saw STUB_N (N)
check() {
	local run=$1 src=$2 n=$3 sn=${4:-$3}
	expect_eq "$run: frames" "$(ini "$run/run.ini" frames)" "$n"
	expect_eq "$run: frames_$src" "$(ini "$run/run.ini" "frames_$src")" "$n"
	expect_eq "$run: exit status" "$(ini "$run/run.ini" exit_status)" 0
	expect_eq "$run: stub presents" "$(log "$run" "stub presents")" "$sn"
}

for mode in glx-dlsym glx-gpa glx-gpa-arb glx-oml egl-dlsym egl-gpa egl-khr egl-ext egl-nest; do
	"$SS_BIN" record -q -o "$mode" -- "$STUB/ss-stubgl" "$mode" 25 || fail "record $mode"
	check "$mode" "${mode%%-*}" 25
done
"$SS_BIN" record -q -o link -- "$STUB/ss-stubgl-linked" link 25 || fail "record link"
check link glx 25
echo "ok: every path into the stub: 25 frames each, each present passed on once"

# Another preload hook that forwards with dlsym(RTLD_NEXT): already in
# LD_PRELOAD when record starts, which puts ours before it (the hook is
# then in stallscope too, before a test build's sanitizer runtime); put
# first by `env LD_PRELOAD=...` under record instead.
LD_PRELOAD="$STUB/libss-otherhook.so" ASAN_OPTIONS=verify_asan_link_order=0 \
	"$SS_BIN" record -q -o other1 -- "$STUB/ss-stubgl-linked" link 25 ||
	fail "record with the other hook after ours"
check other1 glx 25
expect_eq "other1: otherhook calls" "$(log other1 "otherhook calls")" 25
"$SS_BIN" record -q -o other2 -- env LD_PRELOAD="$STUB/libss-otherhook.so:$SHIM" \
	"$STUB/ss-stubgl-linked" link 25 || fail "record with the other hook before ours"
check other2 glx 25
expect_eq "other2: otherhook calls" "$(log other2 "otherhook calls")" 25
echo "ok: another hook's dlsym(RTLD_NEXT) in both orders: 25 frames, 25 calls through it"

for order in "$SHIM:$STUB/libss-otherhook.so" "$STUB/libss-otherhook.so:$SHIM"; do
	"$SS_BIN" record -q -o plugin -- env LD_PRELOAD="$order" "$STUB/ss-stubgl" plugin ||
		fail "record plugin"
	expect_eq "plugin ($order): dlsym(RTLD_DEFAULT) of its dependency" \
		"$(log plugin "plugin lookup")" 42
	rm -rf plugin
done
echo "ok: a plugin's dlsym(RTLD_DEFAULT) finds its own dependency in both orders"

"$SS_BIN" record -q -o deep -- "$STUB/ss-stubgl" deepbind 25 || fail "record deepbind"
expect_eq "deepbind: frames (the limit docs/HOOKS.md states)" "$(ini deep/run.ini frames)" 0
expect_eq "deepbind: stub presents" "$(log deep "stub presents")" 25
echo "ok: RTLD_DEEPBIND is not seen, and nothing breaks"

# No recorder: the library passes every call through and substitutes nothing.
for mode in glx-dlsym glx-gpa-arb egl-khr egl-nest; do
	out=$(env -u STALLSCOPE_RING LD_PRELOAD="$SHIM" "$STUB/ss-stubgl" "$mode" 25) ||
		fail "$mode without a recorder: exit $?"
	expect_eq "$mode without a recorder" "$out" "stub presents 25"
done
echo "ok: without a recorder, a pass-through"
