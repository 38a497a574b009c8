// SPDX-License-Identifier: MIT
/*
 * stats.c: sorting, R-7 quantiles and compensated sums (stats.h).
 *
 * Sorting is an LSD radix sort on the IEEE-754 bit pattern (four passes of
 * 16-bit digits, a pass skipped when all keys share its digit) when N is
 * 65536 or more, since
 * a one-hour log at 144 fps (518,400 frames) is the workload `report` is
 * measured on; small inputs use qsort. Frame times are finite and >= 0, but
 * the key transform handles negative values too.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/stats.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Maps a double to an unsigned key with the same order. */
static uint64_t key_of(double d)
{
	uint64_t u;

	memcpy(&u, &d, sizeof(u));
	return (u & 0x8000000000000000ull) ? ~u : u | 0x8000000000000000ull;
}

static double double_of(uint64_t k)
{
	uint64_t u = (k & 0x8000000000000000ull) ? k & ~0x8000000000000000ull : ~k;
	double d;

	memcpy(&d, &u, sizeof(d));
	return d;
}

#define RADIX_BITS 16
#define RADIX_SIZE (1u << RADIX_BITS)

/* Radix sort of N keys (4 passes of 16 bits); returns -1 on ENOMEM. */
static int radix_sort(double *x, size_t n)
{
	uint64_t *a = malloc(n * sizeof(*a)), *b = malloc(n * sizeof(*b));
	size_t *count = calloc(RADIX_SIZE, sizeof(*count));
	int pass;
	size_t i;

	if (!a || !b || !count) {
		free(a);
		free(b);
		free(count);
		return -1;
	}
	for (i = 0; i < n; i++)
		a[i] = key_of(x[i]);
	for (pass = 0; pass < 4; pass++) {
		unsigned shift = pass * RADIX_BITS;
		size_t sum = 0, c;
		uint64_t *t;

		memset(count, 0, RADIX_SIZE * sizeof(*count));
		for (i = 0; i < n; i++)
			count[(a[i] >> shift) & (RADIX_SIZE - 1)]++;
		if (count[(a[0] >> shift) & (RADIX_SIZE - 1)] == n)
			continue;	/* every key has this digit: nothing to move */
		for (i = 0; i < RADIX_SIZE; i++) {
			c = count[i];
			count[i] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++)
			b[count[(a[i] >> shift) & (RADIX_SIZE - 1)]++] = a[i];
		t = a;
		a = b;
		b = t;
	}
	for (i = 0; i < n; i++)
		x[i] = double_of(a[i]);
	free(a);
	free(b);
	free(count);
	return 0;
}

void stats_sort(double *x, size_t n)
{
	if (n < 2)
		return;
	if (n >= 65536 && radix_sort(x, n) == 0)
		return;
	qsort(x, n, sizeof(*x), cmp_double);
}

double *stats_sorted_copy(const double *x, size_t n)
{
	double *c = malloc((n ? n : 1) * sizeof(*c));

	if (!c)
		return NULL;
	if (n)
		memcpy(c, x, n * sizeof(*c));
	stats_sort(c, n);
	return c;
}

double stats_quantile_sorted(const double *sorted, size_t n, double p)
{
	double h, fl;
	size_t i;

	if (n == 0 || !(p >= 0.0 && p <= 1.0))
		return NAN;
	h = (double)(n - 1) * p;
	fl = floor(h);
	i = (size_t)fl;
	if (i >= n - 1)
		return sorted[n - 1];
	return sorted[i] + (h - fl) * (sorted[i + 1] - sorted[i]);
}

static void swap_d(double *a, double *b)
{
	double t = *a;

	*a = *b;
	*b = t;
}

/* Reorders x[lo..hi) so that x[k] holds what a sort would put there, with
 * nothing greater before it and nothing smaller after it. Quickselect with a
 * median-of-three pivot and a three-way partition; after 64 rounds (never,
 * short of adversarial input) it sorts the range instead. */
static void select_k(double *x, size_t lo, size_t hi, size_t k)
{
	int budget = 64;
	size_t i, j;

	while (hi - lo > 16) {
		size_t mid = lo + (hi - lo) / 2, lt = lo, gt = hi;
		double a = x[lo], b = x[mid], c = x[hi - 1], piv;

		if (budget-- == 0) {
			qsort(x + lo, hi - lo, sizeof(*x), cmp_double);
			return;
		}
		piv = a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b));
		i = lo;
		while (i < gt) {
			if (x[i] < piv)
				swap_d(&x[lt++], &x[i++]);
			else if (x[i] > piv)
				swap_d(&x[i], &x[--gt]);
			else
				i++;
		}
		if (k < lt)
			hi = lt;
		else if (k >= gt)
			lo = gt;
		else
			return;
	}
	for (i = lo + 1; i < hi; i++) {
		double v = x[i];

		for (j = i; j > lo && x[j - 1] > v; j--)
			x[j] = x[j - 1];
		x[j] = v;
	}
}

void stats_quantiles_select(double *x, size_t n, const double *ps, size_t np, double *out)
{
	size_t lo = 0, q, i;

	for (q = 0; q < np; q++) {
		double h, fl, v, next;
		size_t k;

		if (n == 0 || !(ps[q] >= 0.0 && ps[q] <= 1.0)) {
			out[q] = NAN;
			continue;
		}
		h = (double)(n - 1) * ps[q];
		fl = floor(h);
		k = (size_t)fl;
		if (k < lo)
			lo = 0;	/* PS not ascending: search the whole range again */
		select_k(x, lo, n, k);
		v = x[k];
		if (h > fl && k + 1 < n) {
			next = x[k + 1];
			for (i = k + 2; i < n; i++)
				if (x[i] < next)
					next = x[i];
			v += (h - fl) * (next - v);
		}
		out[q] = v;
		lo = k;
	}
}

double stats_sum(const double *x, size_t n)
{
	double s = 0.0, c = 0.0;
	size_t i;

	for (i = 0; i < n; i++) {
		double t = s + x[i];

		if (fabs(s) >= fabs(x[i]))
			c += (s - t) + x[i];
		else
			c += (x[i] - t) + s;
		s = t;
	}
	return s + c;
}

double stats_mean(const double *x, size_t n)
{
	if (n == 0)
		return NAN;
	return stats_sum(x, n) / (double)n;
}
