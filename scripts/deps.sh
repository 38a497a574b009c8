#!/bin/sh
# SPDX-License-Identifier: MIT
#
# deps.sh build|test: installs the Debian packages stallscope needs that are
# missing. As root it runs apt-get; otherwise it prints the exact apt-get line
# and fails for build packages (nothing can be built without them) or warns
# for test packages (the tests that need them skip).
#
# Keep these lists the single place that names packages.
set -eu

BUILD_PKGS="gcc make cmake pkg-config libinih-dev libsqlite3-dev libpq-dev libvulkan-dev zlib1g-dev"
# Exact mode (src/linux/bpf): clang compiles the BPF object, bpftool makes
# its skeleton, libbpf loads it. Wanted, not required: without them the
# build leaves exact mode out and record samples /proc (cmake/exact.cmake).
# Stacks (src/linux/stacks.c) are unwound by elfutils libdw, wanted the same
# way: without it record has no stacks and says so.
EXACT_PKGS="clang llvm libbpf-dev libelf-dev bpftool libdw-dev"
# Real programs the tests record (Mesa software rendering under Xvfb), the
# tools the benchmarks compare against, clang's libFuzzer for the fuzz tests.
TEST_PKGS="$BUILD_PKGS xvfb xauth mesa-utils vulkan-tools mesa-vulkan-drivers mangohud
 rt-tests python3 python3-numpy python3-pandas clang libclang-rt-14-dev sqlite3 procps time strace
 util-linux"
# The shim's ss-gltest (GLX + markers) and the frame-path programs of
# tests/progs (dlopen'ed GLX/EGL, SDL2, GLFW) build where these headers are.
TEST_PKGS="$TEST_PKGS libgl-dev libx11-dev libegl-dev libsdl2-dev libglfw3-dev"
# C++ programs that use our headers and stacks (tests/e2e/marker-cxx.sh,
# stacks-cxx.sh).
TEST_PKGS="$TEST_PKGS g++"
# The 32-bit build of the GL/EGL library and of the stub its test records.
TEST_PKGS="$TEST_PKGS gcc-multilib"
# Real programs from Debian the frame hook is checked on beside MangoHud
# (tests/e2e/games-mangohud.sh). supertux is left out: its data is 160 MB;
# the test uses it where it is installed.
TEST_PKGS="$TEST_PKGS neverball chromium-bsu glmark2-x11 glmark2-es2-x11"
# Software presents (tests/e2e/frames-software.sh: ss-xput needs XShm.h)
# and Wayland clients under weston's headless backend
# (tests/e2e/frames-wayland.sh: weston-simple-shm, weston-simple-egl;
# es2gears_wayland is in mesa-utils on Debian 12, which has no
# mesa-utils-extra; vkcube-wayland in vulkan-tools).
TEST_PKGS="$TEST_PKGS libxext-dev weston"
# The seed's games, run through their shipped recipes (share/recipes) beside
# MangoHud (tests/e2e/games-recipes.sh; neverball is above): about 1.1 GB of
# game data together (openarena-data, minetest-data, supertuxkart-data).
TEST_PKGS="$TEST_PKGS openarena minetest supertuxkart"
# The html page's tests drive a real browser (tests/e2e/lib/cdp.py).
TEST_PKGS="$TEST_PKGS chromium"
# Windows test programs of our own (tests/progs/wine/, built with mingw-w64)
# run under Wine: OpenGL, Direct3D 9/11 (wined3d), Direct3D 12 (vkd3d) and
# Vulkan (tests/e2e/wine.sh).
TEST_PKGS="$TEST_PKGS wine wine64 mingw-w64 libvkd3d1"
# export --perfetto's traces are decoded against tests/perfetto/stallscope.proto;
# bench/pbuf.sh measures our encoder against protobuf-c's.
TEST_PKGS="$TEST_PKGS protobuf-compiler protobuf-c-compiler libprotobuf-c-dev"
# bench/stacks.sh sets our stacks beside `perf record --call-graph dwarf`.
TEST_PKGS="$TEST_PKGS linux-perf"
# The results database's PostgreSQL back end is tested on a throwaway server.
TEST_PKGS="$TEST_PKGS postgresql-15"

what=${1:-build}
case $what in
build) want="$BUILD_PKGS $EXACT_PKGS" ;;
test) want="$TEST_PKGS $EXACT_PKGS" ;;
*) echo "usage: $0 build|test" >&2; exit 2 ;;
esac

# only_exact PKG...: whether every package named is one of EXACT_PKGS
only_exact() {
	for p in "$@"; do
		case " $EXACT_PKGS " in *" $p "*) ;; *) return 1 ;; esac
	done
	return 0
}

missing=
for p in $want; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
		missing="$missing $p"
	fi
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "stallscope: missing packages:$missing" >&2
	echo "stallscope: run as root: apt-get install -y$missing" >&2
	[ "$what" = build ] && ! only_exact $missing && exit 1
	echo "stallscope: tests that need them will be skipped" >&2
	exit 0
fi

echo "stallscope: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
if ! apt-get install -y --no-install-recommends $missing >/tmp/stallscope-apt.log 2>&1; then
	apt-get update >>/tmp/stallscope-apt.log 2>&1 || true
	if ! apt-get install -y --no-install-recommends $missing >>/tmp/stallscope-apt.log 2>&1; then
		echo "stallscope: apt-get install failed; see /tmp/stallscope-apt.log" >&2
		tail -n 20 /tmp/stallscope-apt.log >&2
		[ "$what" = build ] && ! only_exact $missing && exit 1
		echo "stallscope: building without exact mode" >&2
	fi
fi
exit 0
