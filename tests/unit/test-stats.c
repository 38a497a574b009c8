// SPDX-License-Identifier: MIT
/* test-stats.c: sorting, R-7 quantiles and sums (core/stats.h), on values
 * computed by hand or checked against numpy.percentile's default. */
#include <float.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/stats.h"
#include "t.h"

static void test_quantile_small(void)
{
	double x[] = { 1, 2, 3, 4 };

	CHECK(isnan(stats_quantile_sorted(x, 0, 0.5)));
	CHECK(isnan(stats_quantile_sorted(x, 4, -0.1)));
	CHECK(isnan(stats_quantile_sorted(x, 4, 1.1)));
	CHECK(isnan(stats_quantile_sorted(x, 4, NAN)));
	CHECK_NEAR(stats_quantile_sorted(x, 1, 0.99), 1.0, 0);
	CHECK_NEAR(stats_quantile_sorted(x, 4, 0.0), 1.0, 0);
	CHECK_NEAR(stats_quantile_sorted(x, 4, 1.0), 4.0, 0);
	/* numpy.percentile([1,2,3,4], 50) == 2.5; 99 -> 3.97; 25 -> 1.75 */
	CHECK_NEAR(stats_quantile_sorted(x, 4, 0.5), 2.5, 1e-12);
	CHECK_NEAR(stats_quantile_sorted(x, 4, 0.99), 3.97, 1e-12);
	CHECK_NEAR(stats_quantile_sorted(x, 4, 0.25), 1.75, 1e-12);
	/* two values: 10 and 30, p95 = 10 + 0.95 * 20 */
	CHECK_NEAR(stats_quantile_sorted((double[]){ 10, 30 }, 2, 0.95), 29.0, 1e-12);
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The radix sort (large N) must agree with qsort, negatives and zeros too. */
static void test_sort_large(void)
{
	size_t n = 200000, i, bad = 0;
	double *a = malloc(n * sizeof(*a)), *b = malloc(n * sizeof(*b)), *c;

	srand(7);
	for (i = 0; i < n; i++) {
		double v = (double)rand() / RAND_MAX * 1000.0 - 100.0;

		if (i % 97 == 0)
			v = 0.0;
		if (i % 101 == 0)
			v = -0.0;
		if (i % 1009 == 0)
			v = 1e300;
		a[i] = b[i] = v;
	}
	c = stats_sorted_copy(a, n);
	CHECK(c != NULL);
	qsort(b, n, sizeof(*b), cmp);
	for (i = 0; c && i < n; i++)
		bad += c[i] != b[i];
	CHECK_INT(bad, 0);
	stats_sort(a, n);
	for (i = 1; i < n; i++)
		bad += a[i - 1] > a[i];
	CHECK_INT(bad, 0);
	free(a);
	free(b);
	free(c);
}

static void test_sort_small(void)
{
	double x[] = { 3, -1, 2, 2, 0 };
	double *c = stats_sorted_copy(NULL, 0);

	CHECK(c != NULL);
	free(c);
	stats_sort(x, 5);
	CHECK_NEAR(x[0], -1, 0);
	CHECK_NEAR(x[1], 0, 0);
	CHECK_NEAR(x[4], 3, 0);
}

/* Selection gives what sorting gives, on random values, many ties, tiny N
 * and quantiles out of order. */
static void test_quantiles_select(void)
{
	const double ps[] = { 0.0, 0.5, 0.95, 0.99, 0.999, 1.0 };
	size_t sizes[] = { 1, 2, 3, 17, 1000, 100001 }, s, i, q;
	double out[6];

	srand(11);
	for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		size_t n = sizes[s];
		int ties;

		for (ties = 0; ties < 2; ties++) {
			double *x = malloc(n * sizeof(*x)), *c;

			for (i = 0; i < n; i++)
				x[i] = ties ? (double)(rand() % 5) : (double)rand() / RAND_MAX * 50;
			c = stats_sorted_copy(x, n);
			stats_quantiles_select(x, n, ps, 6, out);
			for (q = 0; q < 6; q++)
				CHECK_NEAR(out[q], stats_quantile_sorted(c, n, ps[q]), 1e-12);
			free(x);
			free(c);
		}
	}
	{
		double x[] = { 4, 1, 3, 2 }, back[] = { 0.99, 0.25, 0.5 };

		stats_quantiles_select(x, 4, back, 3, out);
		CHECK_NEAR(out[0], 3.97, 1e-12);
		CHECK_NEAR(out[1], 1.75, 1e-12);
		CHECK_NEAR(out[2], 2.5, 1e-12);
		stats_quantiles_select(x, 0, back, 1, out);
		CHECK(isnan(out[0]));
	}
}

/* Value K of shape SHAPE (of 6): frame times with stalls, a few values,
 * negatives, keys of every size, one value, one outlier far off. */
static double shaped(int shape, size_t k, uint64_t *st)
{
	double u;

	*st = *st * 6364136223846793005ull + 1442695040888963407ull;
	u = (double)(*st >> 11) / 9007199254740992.0;
	switch (shape) {
	case 0: return k % 1440 == 1439 ? 150.0 : 6.0 + (double)(*st >> 54) / 1000.0;
	case 1: return (double)(*st >> 62) + 1.0;
	case 2: return (u - 0.5) * 1e3;
	case 3: return ldexp(u + 0.5, (int)(*st >> 58) * 8 - 250);
	case 4: return 7.0;
	default: return k == 5 ? 1e300 : 6.9 + u;
	}
}

/*
 * From 65,536 values the selection counts keys in buckets first: the
 * quantiles, a single rank and the sorted top are still exactly (memcmp)
 * what a sort gives, for every shape of values, at ranks at the edges and
 * in the middle.
 */
static void test_select_buckets(void)
{
	const double ps[] = { 0.0, 0.001, 0.5, 0.95, 0.99, 0.999, 1.0 };
	const size_t n = 70001;
	double *x = malloc(n * sizeof(*x)), *w = malloc(n * sizeof(*w)), *c, out[7];
	size_t bad = 0;
	uint64_t st = 5;

	if (!x || !w) {
		CHECK(!"out of memory");
		free(x);
		free(w);
		return;
	}
	for (int shape = 0; shape < 6; shape++) {
		size_t t, ranks[] = { 0, 1, n / 2, n - 2, n - 1 };
		double *top;

		for (size_t i = 0; i < n; i++)
			x[i] = shaped(shape, i, &st);
		c = stats_sorted_copy(x, n);
		memcpy(w, x, n * sizeof(*w));
		CHECK_INT(stats_quantiles(x, n, ps, 7, out), 0);
		bad += memcmp(w, x, n * sizeof(*w)) != 0;	/* X as it was */
		for (int q = 0; q < 7; q++) {
			double want = stats_quantile_sorted(c, n, ps[q]);

			bad += memcmp(&out[q], &want, sizeof(want)) != 0;
		}
		for (size_t r = 0; r < sizeof(ranks) / sizeof(ranks[0]); r++) {
			double got = NAN;

			CHECK_INT(stats_rank(x, n, ranks[r], &got), 0);
			bad += memcmp(&got, &c[ranks[r]], sizeof(got)) != 0;
		}
		top = stats_top_sorted(x, n, n / 50, &t);
		CHECK(top && t >= n / 50 && t <= n);
		if (top)
			bad += memcmp(top, c + n - t, t * sizeof(*top)) != 0;
		if (bad)
			T_FAIL("shape %d: a value differs from the sort's", shape);
		free(top);
		free(c);
	}
	CHECK_INT(bad, 0);
	free(x);
	free(w);
}

static void test_sum_mean(void)
{
	double x[] = { 1e16, 1.0, -1e16 };
	double big[] = { DBL_MAX / 2, DBL_MAX / 4 };

	CHECK(isnan(stats_mean(x, 0)));
	CHECK_NEAR(stats_sum(x, 0), 0.0, 0);
	/* compensated: a naive sum loses the 1 */
	CHECK_NEAR(stats_sum(x, 3), 1.0, 0);
	CHECK_NEAR(stats_mean(x, 3), 1.0 / 3.0, 1e-15);
	CHECK(isfinite(stats_sum(big, 2)));
	CHECK_NEAR(stats_mean((double[]){ 10, 30 }, 2), 20.0, 0);
}

int main(void)
{
	T_RUN(test_quantile_small);
	T_RUN(test_sort_small);
	T_RUN(test_sort_large);
	T_RUN(test_quantiles_select);
	T_RUN(test_select_buckets);
	T_RUN(test_sum_mean);
	return t_exit();
}
