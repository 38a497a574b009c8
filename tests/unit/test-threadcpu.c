// SPDX-License-Identifier: MIT
/* test-threadcpu.c: per-thread CPU over a window from thread snapshots: the
 * base taken at or before the window, a thread born in the window counted
 * from 0, one that exits keeping its last value, the main CPU weighted by
 * CPU time, busiest first, and the errors (no snapshots, empty window);
 * the streamed sums (threadcpu_stream_*) equal to the array's on random
 * snapshots, in order and out of it, for random windows. */
#include <errno.h>

#include "core/threadcpu.h"
#include "t.h"

#define MS 1000000ull

static char *strs[] = { "", "main", "worker", "late" };
/* snapshots at 0, 100, 200, 300 ms; worker moves from cpu1 to cpu3 */
static struct rec_thread s0[] = { { 10, 1, 0, 0 }, { 11, 2, 0, 1 } };
static struct rec_thread s1[] = { { 10, 1, 10 * MS, 0 }, { 11, 2, 80 * MS, 1 } };
static struct rec_thread s2[] = { { 10, 1, 20 * MS, 0 }, { 11, 2, 100 * MS, 3 },
				  { 12, 3, 5 * MS, 2 } };
static struct rec_thread s3[] = { { 10, 1, 30 * MS, 0 }, { 11, 2, 190 * MS, 3 } };
static struct rec_threads snaps[] = {
	{ 0, 2, s0 }, { 100 * MS, 2, s1 }, { 200 * MS, 3, s2 }, { 300 * MS, 2, s3 },
};

static struct rec rec = {
	.nthreads = 4, .threads = snaps, .nstrs = 4, .strs = strs,
};

static void test_whole(void)
{
	struct threadcpu *t = NULL;
	int n = threadcpu_compute(&rec, 0, 300 * MS, &t);

	CHECK_INT(n, 3);
	if (n != 3)
		return;
	CHECK_STR(t[0].name, "worker");
	CHECK_INT(t[0].cpu_ns, 190 * MS);
	CHECK_INT(t[0].main_cpu, 3);	/* 20 + 90 ms on cpu3, 80 on cpu1 */
	CHECK_NEAR(t[0].main_cpu_pct, 100.0 * 110 / 190, 1e-9);
	CHECK_NEAR(t[0].busy_pct, 100.0 * 190 / 300, 1e-9);
	CHECK_STR(t[1].name, "main");
	CHECK_INT(t[1].cpu_ns, 30 * MS);
	CHECK_INT(t[1].main_cpu, 0);
	CHECK_STR(t[2].name, "late");	/* born between 100 and 200 ms, gone at 300 */
	CHECK_INT(t[2].tid, 12);
	CHECK_INT(t[2].cpu_ns, 5 * MS);
	CHECK_INT(t[2].main_cpu, 2);
	free(t);
}

static void test_window(void)
{
	struct threadcpu *t = NULL;
	/* (150, 300]: base is the snapshot at 100 ms */
	int n = threadcpu_compute(&rec, 150 * MS, 300 * MS, &t);

	CHECK_INT(n, 3);
	if (n != 3)
		return;
	CHECK_INT(t[0].tid, 11);
	CHECK_INT(t[0].cpu_ns, 110 * MS);
	CHECK_INT(t[0].main_cpu, 3);
	CHECK_NEAR(t[0].main_cpu_pct, 100.0, 1e-9);
	CHECK_NEAR(t[0].busy_pct, 100.0 * 110 / 200, 1e-9);
	CHECK_INT(t[1].tid, 10);
	CHECK_INT(t[1].cpu_ns, 20 * MS);
	free(t);
}

static void test_errors(void)
{
	struct threadcpu *t = (struct threadcpu *)&rec;
	struct rec empty = { 0 };

	CHECK_INT(threadcpu_compute(&rec, 300 * MS, 300 * MS, &t), -EINVAL);
	CHECK_INT(threadcpu_compute(&empty, 0, 300 * MS, &t), -ENODATA);
	CHECK_INT(threadcpu_compute(&rec, 400 * MS, 500 * MS, &t), -ENODATA);
	CHECK(t == (struct threadcpu *)&rec);	/* untouched on error */
}

/* Thread 20 exits after 100 ms with 90 ms of CPU; by 200 ms a new thread
 * has its tid (the kernel reuses tids) and has run 15 ms, by 300 ms 40 ms.
 * The tid's CPU time is both threads': 90 + 40 ms, all of it on their CPUs
 * (the old code counted 0 for the new thread until it passed 90 ms). */
static void test_tid_reused(void)
{
	static char *names[] = { "", "loader", "render" };
	static struct rec_thread r0[] = { { 20, 1, 0, 0 } };
	static struct rec_thread r1[] = { { 20, 1, 90 * MS, 0 } };
	static struct rec_thread r2[] = { { 20, 2, 15 * MS, 2 } };
	static struct rec_thread r3[] = { { 20, 2, 40 * MS, 2 } };
	static struct rec_threads sn[] = {
		{ 0, 1, r0 }, { 100 * MS, 1, r1 }, { 200 * MS, 1, r2 }, { 300 * MS, 1, r3 },
	};
	struct rec rr = { .nthreads = 4, .threads = sn, .nstrs = 3, .strs = names };
	struct threadcpu *t = NULL;
	int n = threadcpu_compute(&rr, 0, 300 * MS, &t);

	CHECK_INT(n, 1);
	if (n != 1)
		return;
	CHECK_INT(t[0].cpu_ns, 130 * MS);
	CHECK_STR(t[0].name, "render");
	CHECK_INT(t[0].main_cpu, 0);	/* 90 ms on cpu0, 40 on cpu2 */
	CHECK_NEAR(t[0].main_cpu_pct, 100.0 * 90 / 130, 1e-9);
	free(t);
}

/* xorshift: the same sequence on every machine */
static uint64_t rnd_state = 88172645463325252ull;
static uint64_t rnd(uint64_t n)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state % n;
}

/* One random case: up to 12 snapshots of up to 4 threads out of 8 tids,
 * CPU times that mostly grow (a tid reused now and then), stamps in order
 * or shuffled a little; the stream must give compute's answer exactly. */
static int stream_case(bool sorted, int *ret_n)
{
	static char *names[] = { "", "a", "b", "c" };
	struct rec_thread th[12][4];
	struct rec_threads sn[12];
	uint64_t cpu[8] = { 0 };
	size_t ns = 1 + rnd(12);
	struct rec rr = { .nthreads = ns, .threads = sn, .nstrs = 4, .strs = names };
	struct threadcpu *a = NULL, *b = NULL;
	struct threadcpu_stream *st = NULL;
	uint64_t from = rnd(1300) * MS, to = from + (1 + rnd(800)) * MS;
	int na, nb, bad = 0;

	for (size_t s = 0; s < ns; s++) {
		sn[s].t_ns = sorted ? s * 100 * MS : rnd(1200) * MS;
		sn[s].n = rnd(5);
		sn[s].th = th[s];
		for (size_t k = 0; k < sn[s].n; k++) {
			uint32_t tid = (uint32_t)(k * 2 + rnd(2));

			cpu[tid] = rnd(10) ? cpu[tid] + rnd(50) * MS : rnd(20) * MS;
			th[s][k] = (struct rec_thread){ tid, 1 + (uint32_t)rnd(3), cpu[tid],
							(int32_t)rnd(4) - 1 };
		}
	}
	na = threadcpu_compute(&rr, from, to, &a);
	if (threadcpu_stream_new(from, to, &st) < 0)
		return 1;
	for (size_t s = 0; s < ns; s++)
		if (threadcpu_stream_feed(st, &sn[s]) < 0)
			bad = 1;
	nb = threadcpu_stream_end(st, &rr, &b);
	threadcpu_stream_free(st);
	if (na != nb)
		bad = 1;
	for (int i = 0; !bad && i < na; i++)
		if (a[i].tid != b[i].tid || a[i].name != b[i].name ||
		    a[i].cpu_ns != b[i].cpu_ns || a[i].busy_pct != b[i].busy_pct ||
		    a[i].main_cpu != b[i].main_cpu || a[i].main_cpu_pct != b[i].main_cpu_pct)
			bad = 1;
	free(a);
	free(b);
	*ret_n = na;
	return bad;
}

static void test_stream(void)
{
	int bad = 0, some = 0, n;

	for (int i = 0; i < 20000; i++) {
		bad += stream_case(i % 3 != 0, &n);
		some += n > 0;
	}
	CHECK_INT(bad, 0);
	/* the cases mean something: most have threads to compare */
	CHECK(some > 5000);
}

int main(void)
{
	T_RUN(test_stream);
	T_RUN(test_tid_reused);
	T_RUN(test_whole);
	T_RUN(test_window);
	T_RUN(test_errors);
	return t_exit();
}
