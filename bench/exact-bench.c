// SPDX-License-Identifier: MIT
/*
 * exact-bench.c: what exact mode's BPF program costs the kernel, on the
 * worst case for it: two threads bouncing a byte through two pipes, so that
 * every operation is a context switch (sched_switch and sched_waking fire
 * for each). Three modes, interleaved round by round in a rotating order:
 *
 *   none        no program loaded
 *   non-target  the program loaded, its targets two threads that sleep (so
 *               every hook runs and finds no target: what every other
 *               program on the machine pays while stallscope records)
 *   target      the program loaded, its targets the two bouncing threads
 *               (every switch updates a slot; none lasts 0.5 ms, so no
 *               interval is written: the counters' cost)
 *
 * Prints the median ns per round trip of each mode over the rounds, the
 * ratios to none (goals: non-target <= 1.05, target <= 1.10), and, where
 * kernel.bpf_stats_enabled can be set (root), the programs' own runs and ns
 * per run in the two loaded modes, from one more round of each with the
 * statistics on (they cost two clock reads a run, so the timed rounds run
 * without them; the setting is put back after).
 *
 * Usage: exact-bench [--trips N] [--rounds R]
 */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "core/strbuf.h"
#include "linux/exact.h"

enum { M_NONE, M_NONTARGET, M_TARGET, M_N };
static const char *const m_names[M_N] = { "none", "non-target", "target" };

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

struct pong {
	int in, out;	/* read from in, write to out */
	long trips;
	volatile int tid;
};

static void *bounce(void *arg)
{
	struct pong *p = arg;
	char c;

	p->tid = (int)syscall(SYS_gettid);
	for (long i = 0; i < p->trips; i++)
		if (read(p->in, &c, 1) != 1 || write(p->out, &c, 1) != 1)
			break;
	return NULL;
}

static void *sleeper(void *arg)
{
	volatile int *tid = arg;

	*tid = (int)syscall(SYS_gettid);
	for (;;)
		pause();
	return NULL;
}

/* One ping-pong of TRIPS round trips between two fresh threads; their
 * tids go to the targets in M_TARGET. Returns ns per round trip, or -1. */
static double run(long trips, int mode, struct exact *x)
{
	int a[2], b[2];
	struct pong p = { .trips = trips };
	pthread_t th;
	char c = 'x';
	uint64_t t0, t1;

	if (pipe(a) < 0 || pipe(b) < 0)
		return -1;
	p.in = a[0];
	p.out = b[1];
	if (pthread_create(&th, NULL, bounce, &p))
		return -1;
	while (!p.tid)
		usleep(100);
	if (mode == M_TARGET) {
		exact_set_target(x, 0, (uint32_t)syscall(SYS_gettid));
		exact_set_target(x, 1, (uint32_t)p.tid);
	}
	t0 = now_ns();
	for (long i = 0; i < trips; i++)
		if (write(a[1], &c, 1) != 1 || read(b[0], &c, 1) != 1)
			break;
	t1 = now_ns();
	pthread_join(th, NULL);
	close(a[0]);
	close(a[1]);
	close(b[0]);
	close(b[1]);
	return (double)(t1 - t0) / (double)trips;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_d);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* kernel.bpf_stats_enabled: the old value, or -1 when not settable. */
static int stats_set(int on)
{
	FILE *f = fopen("/proc/sys/kernel/bpf_stats_enabled", "r+");
	int old = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%d", &old) != 1)
		old = -1;
	rewind(f);
	if (old >= 0 && fprintf(f, "%d\n", on) < 0)
		old = -1;
	if (fclose(f) != 0)
		old = -1;
	return old;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "trips", required_argument, NULL, 'n' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	long trips = 50000;
	int rounds = 7, c, old_stats;
	double ns[M_N][64], med[M_N];
	uint64_t runs[M_N] = { 0 };
	int64_t prog_ns[M_N] = { 0 };
	volatile int sleepers[2] = { 0, 0 };
	pthread_t st[2];
	struct strbuf why = STRBUF_INIT;

	while ((c = getopt_long(argc, argv, "n:r:h", lo, NULL)) != -1) {
		switch (c) {
		case 'n': trips = atol(optarg); break;
		case 'r': rounds = atoi(optarg); break;
		case 'h':
			printf("usage: exact-bench [--trips N] [--rounds R]\n\nEXAMPLES\n"
			       "  exact-bench --trips 50000 --rounds 7\n");
			return 0;
		default: return 2;
		}
	}
	if (trips < 100 || rounds < 1 || rounds > 64)
		return 2;
	if (exact_check(&why) < 0) {
		printf("skip: exact mode cannot load here: %s\n", why.buf);
		return 77;
	}
	for (int i = 0; i < 2; i++) {
		pthread_create(&st[i], NULL, sleeper, (void *)&sleepers[i]);
		while (!sleepers[i])
			usleep(100);
	}
	old_stats = stats_set(0);
	for (int r = 0; r <= rounds; r++) {
		bool stats = r == rounds;	/* the last: only for the statistics */

		if (stats && (old_stats < 0 || stats_set(1) < 0))
			break;
		for (int k = 0; k < M_N; k++) {
			int m = (k + r) % M_N;
			struct exact_opts xo = { 0 };
			struct exact *x = NULL;
			uint64_t n0 = 0, n1 = 0;
			int64_t p0 = 0, p1;
			double t;

			if (stats && m == M_NONE)
				continue;
			if (m != M_NONE) {
				if (exact_open(&xo, &x, &why) < 0) {
					fprintf(stderr, "exact-bench: error: %s\n", why.buf);
					return 1;
				}
				exact_set_target(x, 0, (uint32_t)sleepers[0]);
				exact_set_target(x, 1, (uint32_t)sleepers[1]);
				p0 = exact_prog_ns(x, &n0, NULL);
			}
			t = run(trips, m, x);
			if (!stats)
				ns[m][r] = t;
			if (x) {
				p1 = exact_prog_ns(x, &n1, NULL);
				if (stats && p0 >= 0 && p1 >= 0) {
					prog_ns[m] += p1 - p0;
					runs[m] += n1 - n0;
				}
				exact_close(x);
			}
		}
	}
	for (int m = 0; m < M_N; m++)
		med[m] = median(ns[m], rounds);
	printf("exact: pipe ping-pong, %ld round trips x %d rounds per mode, interleaved\n", trips,
	       rounds);
	printf("%-11s %14s %8s %14s\n", "mode", "ns_per_trip", "ratio", "bpf_ns_per_run");
	for (int m = 0; m < M_N; m++) {
		printf("%-11s %14.0f %8.3f ", m_names[m], med[m], med[m] / med[M_NONE]);
		if (m != M_NONE && runs[m])
			printf("%14.0f\n", (double)prog_ns[m] / (double)runs[m]);
		else
			printf("%14s\n", "-");
	}
	printf("goals: non-target <= 1.05, target <= 1.10 (ratios of medians)\n");
	if (old_stats < 0)
		printf("bpf_ns_per_run: - (kernel.bpf_stats_enabled could not be set)\n");
	else
		printf("bpf runs per round trip: non-target %.1f, target %.1f (a round with "
		       "kernel.bpf_stats_enabled=1)\n",
		       (double)runs[M_NONTARGET] / (double)trips,
		       (double)runs[M_TARGET] / (double)trips);
	sb_release(&why);
	return 0;
}
