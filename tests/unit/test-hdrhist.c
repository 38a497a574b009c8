// SPDX-License-Identifier: MIT
/* test-hdrhist.c: the latency histogram: counts, thresholds, log2 buckets and
 * percentiles on inputs whose exact answers are known. */
#include <math.h>
#include <stdlib.h>

#include "core/hdrhist.h"
#include "t.h"

static struct hdrhist *new_hist(void)
{
	struct hdrhist *h = malloc(sizeof(*h));

	if (!h)
		abort();
	hdrhist_init(h);
	return h;
}

static void test_empty(void)
{
	struct hdrhist *h = new_hist();

	CHECK_INT(h->n, 0);
	CHECK(isnan(hdrhist_avg_ns(h)));
	CHECK(isnan(hdrhist_quantile_ns(h, 0.5)));
	free(h);
}

static void test_small_exact(void)
{
	struct hdrhist *h = new_hist();
	int v;

	/* below 128 ns every bucket is one ns wide: quantiles are exact */
	for (v = 1; v <= 100; v++)
		hdrhist_add(h, (uint64_t)v);
	CHECK_INT(h->n, 100);
	CHECK_INT(h->min_ns, 1);
	CHECK_INT(h->max_ns, 100);
	CHECK_NEAR(hdrhist_avg_ns(h), 50.5, 1e-9);
	CHECK_NEAR(hdrhist_quantile_ns(h, 0.5), 50, 0);
	CHECK_NEAR(hdrhist_quantile_ns(h, 0.99), 99, 0);
	CHECK_NEAR(hdrhist_quantile_ns(h, 0.999), 100, 0);
	CHECK_NEAR(hdrhist_quantile_ns(h, 1.0), 100, 0);
	CHECK_NEAR(hdrhist_quantile_ns(h, 0.01), 1, 0);
	CHECK(isnan(hdrhist_quantile_ns(h, 0)));
	CHECK(isnan(hdrhist_quantile_ns(h, 1.5)));
	free(h);
}

static void test_quantiles_us(void)
{
	struct hdrhist *h = new_hist();
	int v;

	/* 1..10000 us in ns: nearest rank p50 = 5000 us, p99 = 9900, p99.9 = 9990 */
	for (v = 1; v <= 10000; v++)
		hdrhist_add(h, (uint64_t)v * 1000);
	CHECK_NEAR(hdrhist_quantile_ns(h, 0.5), 5000e3, 5000e3 * 0.004);
	CHECK_NEAR(hdrhist_quantile_ns(h, 0.99), 9900e3, 9900e3 * 0.004);
	CHECK_NEAR(hdrhist_quantile_ns(h, 0.999), 9990e3, 9990e3 * 0.004);
	CHECK_NEAR(hdrhist_quantile_ns(h, 1.0), 10000e3, 0);	/* clamped to max */
	CHECK_NEAR(hdrhist_avg_ns(h), 5000.5e3, 1e-6);
	CHECK_INT(h->over[0], 10000 - 999);	/* >= 1 ms */
	CHECK_INT(h->over[1], 1);		/* >= 10 ms */
	CHECK_INT(h->over[2], 0);
	free(h);
}

static void test_skewed(void)
{
	struct hdrhist *h = new_hist();
	int i;

	/* 999 wake-ups at 50 us and one at 1.4 s: the seed case */
	for (i = 0; i < 999; i++)
		hdrhist_add(h, 50000);
	hdrhist_add(h, 1400000000);
	CHECK_NEAR(hdrhist_quantile_ns(h, 0.5), 50000, 50000 * 0.004);
	CHECK_NEAR(hdrhist_quantile_ns(h, 0.99), 50000, 50000 * 0.004);
	CHECK_NEAR(hdrhist_quantile_ns(h, 0.999), 50000, 50000 * 0.004);
	CHECK_NEAR(hdrhist_quantile_ns(h, 1.0), 1.4e9, 0);
	CHECK_INT(h->max_ns, 1400000000);
	CHECK_INT(h->over[0], 1);
	CHECK_INT(h->over[3], 1);
	/* log2 buckets: 50 us is in [32, 64) us = bucket 6; 1.4 s overflows */
	CHECK_INT(h->log2[6], 999);
	CHECK_INT(h->log2[HDRHIST_LOG2_N - 1], 1);
	free(h);
}

static void test_log2_bounds(void)
{
	struct hdrhist *h = new_hist();
	uint64_t lo, hi;

	hdrhist_add(h, 999);		/* 0 us */
	hdrhist_add(h, 1000);		/* 1 us: [1, 2) */
	hdrhist_add(h, 1999);
	hdrhist_add(h, 2000);		/* [2, 4) */
	hdrhist_add(h, 1048575999);	/* [524288, 1048576) us */
	hdrhist_add(h, 1048576000);	/* overflow */
	CHECK_INT(h->log2[0], 1);
	CHECK_INT(h->log2[1], 2);
	CHECK_INT(h->log2[2], 1);
	CHECK_INT(h->log2[HDRHIST_LOG2_N - 2], 1);
	CHECK_INT(h->log2[HDRHIST_LOG2_N - 1], 1);
	hdrhist_log2_bounds(0, &lo, &hi);
	CHECK_INT(lo, 0);
	CHECK_INT(hi, 1);
	hdrhist_log2_bounds(3, &lo, &hi);
	CHECK_INT(lo, 4);
	CHECK_INT(hi, 8);
	hdrhist_log2_bounds(HDRHIST_LOG2_N - 1, &lo, &hi);
	CHECK_INT(lo, 1048576);
	CHECK_INT(hi, 0);
	free(h);
}

static void test_huge_and_merge(void)
{
	struct hdrhist *a = new_hist(), *b = new_hist();
	uint64_t big = UINT64_C(1) << 45;	/* beyond the fine range */

	hdrhist_add(a, 10);
	hdrhist_add(b, big);
	hdrhist_add(b, 5);
	hdrhist_merge(a, b);
	CHECK_INT(a->n, 3);
	CHECK_INT(a->min_ns, 5);
	CHECK(a->max_ns == big);
	CHECK_INT(a->fine_over, 1);
	CHECK_NEAR(hdrhist_quantile_ns(a, 1.0), (double)big, 0);
	CHECK_NEAR(hdrhist_quantile_ns(a, 0.5), 10, 0);
	/* every value lands in exactly one fine bucket: random values */
	struct hdrhist *c = new_hist();
	uint64_t sum = 0;

	srand(1);
	for (int i = 0; i < 5000; i++) {
		uint64_t v = (uint64_t)rand() * (uint64_t)(rand() % 1000 + 1);

		hdrhist_add(c, v);
	}
	for (int i = 0; i < HDRHIST_FINE_N; i++)
		sum += c->fine[i];
	CHECK_INT(sum + c->fine_over, 5000);
	free(a);
	free(b);
	free(c);
}

int main(void)
{
	T_RUN(test_empty);
	T_RUN(test_small_exact);
	T_RUN(test_quantiles_us);
	T_RUN(test_skewed);
	T_RUN(test_log2_bounds);
	T_RUN(test_huge_and_merge);
	return t_exit();
}
