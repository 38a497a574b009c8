#!/bin/bash
# SPDX-License-Identifier: MIT
#
# bench/shim.sh: the cost per present of the GL/EGL hook. A loop of
# glXSwapBuffers / eglSwapBuffers calls against a stub library (empty
# functions, so only the call is measured) runs three ways, interleaved in
# rounds: bare (no preload), hooked without a ring (pass-through: a program
# run with the library but without stallscope), and hooked with a ring that
# ss-ringcat drains (what `record` does). Each run times batches of 20000
# presents with a 20 ms pause between them (the ring's consumer drains every
# 10 ms, so the ring never fills), and reports the median batch in ns per
# present. Run as bench/shim.sh [BUILD] (scripts/bench.sh passes it).
# Printed: the medians of the rounds and the hook's cost (hooked
# with ring minus bare). Goal: <= 500 ns per present.
set -u
cd "$(dirname "$0")/.."
build=${1:-$(dirname "${SS_BIN:-build/stallscope}")}
lib=$build/libstallscope-frames.so
ringcat=$build/ss-ringcat
[ -e "$lib" ] && [ -x "$ringcat" ] || { echo "skip: no shim in '$build' (make build)"; exit 77; }
command -v cc >/dev/null || { echo "skip: no C compiler"; exit 77; }

tmp=$(mktemp -d /tmp/ss-bench-shim.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

cat >"$tmp/stub.c" <<'C'
/* Stand-ins for libGL/libEGL: presents that cost nothing. */
void glXSwapBuffers(void *dpy, unsigned long d) { (void)dpy; (void)d; }
unsigned int eglSwapBuffers(void *dpy, void *s) { (void)dpy; (void)s; return 1; }
C
cat >"$tmp/loop.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
void glXSwapBuffers(void *dpy, unsigned long d);
unsigned int eglSwapBuffers(void *dpy, void *s);
static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}
static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}
int main(void)
{
	enum { BATCHES = 25, PER = 20000 };
	double glx[BATCHES], egl[BATCHES];
	for (int b = 0; b < BATCHES; b++) {
		double t0 = now();
		for (int i = 0; i < PER; i++)
			glXSwapBuffers(NULL, 0);
		double t1 = now();
		usleep(20000);
		double t2 = now();
		for (int i = 0; i < PER; i++)
			eglSwapBuffers(NULL, NULL);
		double t3 = now();
		usleep(20000);
		glx[b] = (t1 - t0) / PER;
		egl[b] = (t3 - t2) / PER;
	}
	qsort(glx, BATCHES, sizeof(double), cmp);
	qsort(egl, BATCHES, sizeof(double), cmp);
	printf("%.1f %.1f\n", glx[BATCHES / 2], egl[BATCHES / 2]);
	return 0;
}
C
cc -O2 -shared -fPIC -o "$tmp/libssstub.so" "$tmp/stub.c" &&
	cc -O2 -o "$tmp/loop" "$tmp/loop.c" -L"$tmp" -lssstub -Wl,-rpath,"$tmp" ||
	{ echo "cannot build the benchmark"; exit 1; }

rounds=${SS_BENCH_ROUNDS:-5}
: >"$tmp/bare"; : >"$tmp/noring"; : >"$tmp/ring"
for r in $(seq "$rounds"); do
	env -u STALLSCOPE_RING "$tmp/loop" >>"$tmp/bare" || exit 1
	env -u STALLSCOPE_RING LD_PRELOAD="$lib" "$tmp/loop" >>"$tmp/noring" || exit 1
	"$ringcat" -o "$tmp/frames" -- "$tmp/loop" >>"$tmp/ring" 2>"$tmp/ringcat.log" || exit 1
	grep -q "overruns 0 " "$tmp/ringcat.log" || { cat "$tmp/ringcat.log"; echo "ring overran"; exit 1; }
	want=$((2 * 25 * 20000))
	got=$(wc -l <"$tmp/frames")
	[ "$got" = "$want" ] || { echo "ring holds $got presents, expected $want"; exit 1; }
done

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
printf "shim: ns per present, median of %s rounds (each the median of 25 batches of 20000)\n" "$rounds"
printf "  %-24s %10s %10s\n" "" glXSwapBuffers eglSwapBuffers
for k in bare noring ring; do
	case $k in
	bare) what="bare (no hook)" ;;
	noring) what="hooked, no ring" ;;
	ring) what="hooked, ring drained" ;;
	esac
	printf "  %-24s %10s %10s\n" "$what" "$(cut -d' ' -f1 "$tmp/$k" | median)" \
		"$(cut -d' ' -f2 "$tmp/$k" | median)"
done
g0=$(cut -d' ' -f1 "$tmp/bare" | median); g1=$(cut -d' ' -f1 "$tmp/ring" | median)
e0=$(cut -d' ' -f2 "$tmp/bare" | median); e1=$(cut -d' ' -f2 "$tmp/ring" | median)
awk -v g0="$g0" -v g1="$g1" -v e0="$e0" -v e1="$e1" 'BEGIN {
	printf "  hook cost per present: glx %.1f ns, egl %.1f ns (goal <= 500 ns): %s\n",
		g1 - g0, e1 - e0, (g1 - g0 <= 500 && e1 - e0 <= 500) ? "met" : "NOT met" }'
