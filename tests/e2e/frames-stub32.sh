#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e live parallel
# A 32-bit program through the 32-bit library (frames-stub.sh's stub, built
# -m32 where gcc-multilib is installed): record preloads the library by its
# bare name with both builds on LD_LIBRARY_PATH, and ld.so takes the one of
# the program's class, so ss-stubgl MODE 25 holds exactly 25 frames of the
# mode's source, the stub saw 25 presents, and ld.so did not complain.
# Skips (77) where there is no 32-bit build or the kernel cannot run 32-bit
# programs (no IA-32 emulation: exec fails with ENOEXEC).
. "$SS_SRC/tests/e2e/lib/record.sh"
STUB32=$SS_BUILD/stub32/ss-stubgl
[ -x "$STUB32" ] && [ -e "$SS_BUILD/lib32/libstallscope-frames.so" ] ||
	{ echo "skip: no 32-bit build of the stub and the library (gcc-multilib)"; exit 77; }
# The stub programs are not sanitized, and the sanitizer's options are not theirs.
unset ASAN_OPTIONS UBSAN_OPTIONS
# bash says 126 when the kernel refuses the binary's format
"$STUB32" probe 0 >/dev/null 2>&1
[ $? = 126 ] && { echo "skip: this kernel cannot run 32-bit programs (exec: Exec format error)"; exit 77; }

log() { sed -n "s/^\[[0-9.]*\] $2 //p" "$1/program.log" | tail -n1; }
for mode in glx-dlsym glx-gpa-arb egl-khr egl-nest; do
	"$SS_BIN" record -q -o "32-$mode" -- "$STUB32" "$mode" 25 || fail "record 32-bit $mode"
	expect_eq "32-$mode: frames" "$(ini "32-$mode/run.ini" frames)" 25
	expect_eq "32-$mode: frames_${mode%%-*}" "$(ini "32-$mode/run.ini" "frames_${mode%%-*}")" 25
	expect_eq "32-$mode: exit status" "$(ini "32-$mode/run.ini" exit_status)" 0
	expect_eq "32-$mode: stub presents" "$(log "32-$mode" "stub presents")" 25
	grep -q 'wrong ELF class\|cannot be preloaded' "32-$mode/program.log" &&
		fail "32-bit $mode: ld.so complained: $(cat "32-$mode/program.log")"
done
expect_eq "frame_hooks" "$(ini 32-glx-dlsym/run.ini frame_hooks)" "gl,gl32,vk"
echo "ok: a 32-bit program through the 32-bit library: 25 frames each"
