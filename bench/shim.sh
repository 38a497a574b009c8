#!/bin/bash
# SPDX-License-Identifier: MIT
#
# bench/shim.sh: what the GL/EGL hook costs. Two figures, each measured side
# by side in interleaved rounds, bare (no preload), hooked without a ring (a
# program run with the library but without stallscope) and hooked with a
# ring that ss-ringcat drains (what `record` does):
#
#   - per present, for each path the hook catches: the linked PLT call (the
#     exported wrapper), the function taken with dlsym() on the library's
#     handle, and the one taken through glXGetProcAddressARB /
#     eglGetProcAddress (both the handed-out wrapper), against a stub
#     libGL/libEGL whose presents are empty (only the call is measured).
#     Each run times batches of 20000 presents with a 20 ms pause between
#     them (the consumer drains every 10 ms, so the ring never fills) and
#     reports the median batch in ns per present. Goal: <= 500 ns.
#   - at start-up: a program that does nothing, spawned 200 times a round
#     (posix_spawn + wait), median ms per spawn: what loading the library,
#     finding the C library's dlsym and mapping the ring add.
#
# Run as bench/shim.sh [BUILD] (scripts/bench.sh passes it).
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
#include <string.h>
typedef void (*fn)(void);
void glXSwapBuffers(void *dpy, unsigned long d) { (void)dpy; (void)d; }
unsigned int eglSwapBuffers(void *dpy, void *s) { (void)dpy; (void)s; return 1; }
static void glx(void *dpy, unsigned long d) { (void)dpy; (void)d; }
static unsigned int egl(void *dpy, void *s) { (void)dpy; (void)s; return 1; }
fn glXGetProcAddressARB(const unsigned char *n)
{
	return strcmp((const char *)n, "glXSwapBuffers") ? 0 : (fn)glx;
}
fn eglGetProcAddress(const char *n)
{
	return strcmp(n, "eglSwapBuffers") ? 0 : (fn)egl;
}
C
cat >"$tmp/loop.c" <<'C'
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
typedef void (*fn)(void);
void glXSwapBuffers(void *dpy, unsigned long d);
unsigned int eglSwapBuffers(void *dpy, void *s);
enum { BATCHES = 15, PER = 20000, NCOL = 6 };
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
int main(int argc, char **argv)
{
	void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	void (*glx[3])(void *, unsigned long) = { glXSwapBuffers };
	unsigned int (*egl[3])(void *, void *) = { eglSwapBuffers };
	fn (*gpa)(const unsigned char *);
	fn (*egpa)(const char *);
	double t[NCOL][BATCHES];

	if (!h)
		return 1;
	glx[1] = (void (*)(void *, unsigned long))dlsym(h, "glXSwapBuffers");
	egl[1] = (unsigned int (*)(void *, void *))dlsym(h, "eglSwapBuffers");
	gpa = (fn(*)(const unsigned char *))dlsym(h, "glXGetProcAddressARB");
	egpa = (fn(*)(const char *))dlsym(h, "eglGetProcAddress");
	glx[2] = (void (*)(void *, unsigned long))gpa((const unsigned char *)"glXSwapBuffers");
	egl[2] = (unsigned int (*)(void *, void *))egpa("eglSwapBuffers");
	for (int b = 0; b < BATCHES; b++)
		for (int c = 0; c < NCOL; c++) {
			double t0 = now();
			for (int i = 0; i < PER; i++)
				if (c < 3)
					glx[c](NULL, 0);
				else
					egl[c - 3](NULL, NULL);
			t[c][b] = (now() - t0) / PER;
			usleep(20000);
		}
	for (int c = 0; c < NCOL; c++) {
		qsort(t[c], BATCHES, sizeof(double), cmp);
		printf("%s%.1f", c ? " " : "", t[c][BATCHES / 2]);
	}
	printf("\n");
	return 0;
}
C
cat >"$tmp/spawn.c" <<'C'
/* spawn MODE PROG N: N spawns of PROG, median ms; MODE bare drops the
 * hook's variables from the child's environment, noring the ring only. */
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
extern char **environ;
static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}
int main(int argc, char **argv)
{
	int n = atoi(argv[3]);
	double *ms = calloc(n, sizeof(*ms));
	char *args[] = { argv[2], NULL };

	if (!strcmp(argv[1], "bare"))
		unsetenv("LD_PRELOAD");
	if (strcmp(argv[1], "ring"))
		unsetenv("STALLSCOPE_RING");
	for (int i = 0; i < n; i++) {
		struct timespec a, b;
		pid_t pid;
		int st;

		clock_gettime(CLOCK_MONOTONIC, &a);
		if (posix_spawn(&pid, argv[2], NULL, NULL, args, environ) || waitpid(pid, &st, 0) < 0)
			return 1;
		clock_gettime(CLOCK_MONOTONIC, &b);
		ms[i] = (b.tv_sec - a.tv_sec) * 1e3 + (b.tv_nsec - a.tv_nsec) / 1e6;
	}
	qsort(ms, n, sizeof(*ms), cmp);
	printf("%.3f\n", ms[n / 2]);
	return 0;
}
C
echo 'int main(void) { return 0; }' >"$tmp/nothing.c"
cc -O2 -shared -fPIC -o "$tmp/libssstub.so" "$tmp/stub.c" &&
	cc -O2 -o "$tmp/loop" "$tmp/loop.c" -L"$tmp" -lssstub -Wl,-rpath,"$tmp" -ldl &&
	cc -O2 -o "$tmp/spawn" "$tmp/spawn.c" && cc -O2 -o "$tmp/nothing" "$tmp/nothing.c" ||
	{ echo "cannot build the benchmark"; exit 1; }

rounds=${SS_BENCH_ROUNDS:-5}
: >"$tmp/bare"; : >"$tmp/noring"; : >"$tmp/ring"
: >"$tmp/s-bare"; : >"$tmp/s-noring"; : >"$tmp/s-ring"
for r in $(seq "$rounds"); do
	env -u STALLSCOPE_RING "$tmp/loop" "$tmp/libssstub.so" >>"$tmp/bare" || exit 1
	env -u STALLSCOPE_RING LD_PRELOAD="$lib" "$tmp/loop" "$tmp/libssstub.so" >>"$tmp/noring" || exit 1
	"$ringcat" -o "$tmp/frames" -- "$tmp/loop" "$tmp/libssstub.so" >>"$tmp/ring" 2>"$tmp/ringcat.log" || exit 1
	grep -q "overruns 0 " "$tmp/ringcat.log" || { cat "$tmp/ringcat.log"; echo "ring overran"; exit 1; }
	want=$((6 * 15 * 20000))
	got=$(wc -l <"$tmp/frames")
	[ "$got" = "$want" ] || { echo "ring holds $got presents, expected $want"; exit 1; }
	# start-up: the spawner runs under ringcat, so its children inherit the
	# hook's environment; each mode keeps what it measures
	for m in bare noring ring; do
		"$ringcat" -o /dev/null -- "$tmp/spawn" "$m" "$tmp/nothing" 200 >>"$tmp/s-$m" 2>/dev/null || exit 1
	done
done

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
col() { cut -d' ' -f"$2" "$tmp/$1" | median; }
printf "shim: ns per present, median of %s rounds (each the median of 15 batches of 20000)\n" "$rounds"
printf "  %-24s %9s %9s %9s %9s %9s %9s\n" "" "glx link" "glx dlsym" "glx gpa" "egl link" \
	"egl dlsym" "egl gpa"
for k in bare noring ring; do
	case $k in
	bare) what="bare (no hook)" ;;
	noring) what="hooked, no ring" ;;
	ring) what="hooked, ring drained" ;;
	esac
	printf "  %-24s" "$what"
	for c in 1 2 3 4 5 6; do printf " %9s" "$(col "$k" $c)"; done
	printf "\n"
done
printf "  %-24s" "hook cost (ring - bare)"
worst=0
for c in 1 2 3 4 5 6; do
	d=$(awk -v a="$(col ring $c)" -v b="$(col bare $c)" 'BEGIN { printf "%.1f", a - b }')
	printf " %9s" "$d"
	worst=$(awk -v w="$worst" -v d="$d" 'BEGIN { print (d > w) ? d : w }')
done
printf "\n"
awk -v w="$worst" 'BEGIN { printf "  worst hook cost per present: %.1f ns (goal <= 500 ns): %s\n", w, w <= 500 ? "met" : "NOT met" }'

sb=$(median <"$tmp/s-bare"); sn=$(median <"$tmp/s-noring"); sr=$(median <"$tmp/s-ring")
printf "shim: start-up of a program that does nothing, ms per spawn (median of %s rounds of 200)\n" "$rounds"
awk -v b="$sb" -v n="$sn" -v r="$sr" 'BEGIN {
	printf "  %-24s %8.3f\n", "bare (no hook)", b
	printf "  %-24s %8.3f  (+%.3f ms)\n", "hooked, no ring", n, n - b
	printf "  %-24s %8.3f  (+%.3f ms)\n", "hooked, ring", r, r - b }'
