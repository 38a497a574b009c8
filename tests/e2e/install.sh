#!/bin/bash
# SPDX-License-Identifier: MIT
# labels: e2e
# `make install` (cmake --install with DESTDIR): the binary, the preload
# library, the Vulkan layer with a manifest whose library_path is the
# installed layer, and a marker API header that compiles on its own (it
# includes the ring layout, which must be installed beside it), and the fake
# game in libexec, which the installed bench runs for the fakegame recipe.
set -u
command -v cmake >/dev/null || { echo "skip: no cmake"; exit 77; }
CC=${CC:-cc}
command -v "$CC" >/dev/null || { echo "skip: no C compiler"; exit 77; }
T=$(mktemp -d /tmp/ss-e2e-install.XXXXXX)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

DESTDIR="$T/root" cmake --install "$SS_BUILD" >"$T/log" 2>&1 || fail "install failed: $(cat "$T/log")"
bin=$(find "$T/root" -path '*/bin/stallscope' -type f | head -n1)
[ -n "$bin" ] || fail "no bin/stallscope installed"
"$bin" --help >/dev/null 2>&1 || "$bin" >/dev/null 2>&1; [ $? -le 2 ] || fail "installed binary does not run"
hdr=$(find "$T/root" -path '*/include/stallscope.h' | head -n1)
[ -n "$hdr" ] || fail "no include/stallscope.h installed"
cat >"$T/m.c" <<'C'
#include <stallscope.h>
int main(void) { stallscope_frame(); return 0; }
C
"$CC" -I"$(dirname "$hdr")" "$T/m.c" -o "$T/m" 2>"$T/cc.log" ||
	fail "a program using the installed stallscope.h does not compile: $(cat "$T/cc.log")"
"$T/m" || fail "stallscope_frame() without a recorder failed"
if [ -f "$SS_BUILD/libstallscope-frames.so" ]; then
	find "$T/root" -name libstallscope-frames.so | grep -q . || fail "no preload library installed"
	man=$(find "$T/root" -name VkLayer_stallscope_frames.json | head -n1)
	[ -n "$man" ] || fail "no Vulkan layer manifest installed"
	lib=$(sed -n 's/.*"library_path": *"\([^"]*\)".*/\1/p' "$man")
	[ -f "$T/root$lib" ] || fail "the manifest's library_path '$lib' is not installed"
fi
# the fake game, where bench finds a recipe's bare program name: the
# installed binary, run from elsewhere, runs the installed one
game=$(find "$T/root" -path '*/libexec/stallscope/fakegame' -type f | head -n1)
[ -n "$game" ] || fail "no libexec/stallscope/fakegame installed"
(cd "$T" && "$bin" bench fakegame --dry-run --rounds 1 >"$T/dry" 2>&1) ||
	fail "bench fakegame --dry-run of the installed binary: $(cat "$T/dry")"
grep -q -- "-- $(realpath "$game") --seconds" "$T/dry" ||
	fail "bench fakegame does not run the installed fake game: $(head -1 "$T/dry")"
# what --dry-run shows is the directory the run gets (the variant made safe)
grep -q -- "-o 'runs/<stamp>-fakegame-FAKEGAME_STALL_sleep_200_5'" "$T/dry" ||
	fail "--dry-run's run directory: $(tail -1 "$T/dry")"
echo "ok: installed, header compiles, layer manifest names the installed layer, bench finds the fake game"
