// SPDX-License-Identifier: MIT
/*
 * signif.c: medians, their order-statistic confidence intervals and the
 * Mann-Whitney U test (signif.h).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/signif.h"
#include "core/stats.h"

double signif_median(const double *x, size_t n)
{
	double *s, m;

	if (n == 0)
		return NAN;
	s = stats_sorted_copy(x, n);
	if (!s)
		return NAN;
	m = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2.0;
	free(s);
	return m;
}

/* The largest k >= 1 with 2 * P(B <= k - 1) <= 1 - conf, or 0 if none, for
 * B ~ Binomial(n, 1/2): P(B <= k) summed term by term as k grows (each term
 * in log space so large n cannot overflow), O(k), not O(k^2): compare over
 * 5,000 runs a side needs k near 2,400. */
static size_t ci_rank(size_t n, double conf)
{
	double cdf = 0.0, ln = lgamma(n + 1.0) - n * log(2.0);
	size_t k = 0;

	while (k + 1 <= (n + 1) / 2) {
		cdf += exp(ln - lgamma(k + 1.0) - lgamma(n - k + 1.0));
		if (2.0 * fmin(cdf, 1.0) > 1.0 - conf + 1e-12)
			break;
		k++;
	}
	return k;
}

int signif_median_ci(const double *x, size_t n, double conf, double *lo, double *hi)
{
	size_t k = n ? ci_rank(n, conf) : 0;
	double *s;

	if (k == 0)
		return -EDOM;
	s = stats_sorted_copy(x, n);
	if (!s)
		return -ENOMEM;
	*lo = s[k - 1];
	*hi = s[n - k];
	free(s);
	return 0;
}

size_t signif_ci_min_n(double conf)
{
	size_t n;

	for (n = 1; n < 1000; n++)
		if (ci_rank(n, conf) > 0)
			return n;
	return 0;
}

double signif_mwu_min_p(size_t m, size_t n)
{
	double lc;

	if (!m || !n)
		return 1.0;
	lc = lgamma(m + n + 1.0) - lgamma(m + 1.0) - lgamma(n + 1.0);
	return fmin(1.0, 2.0 * exp(-lc));
}

/*
 * Exact P(U <= u) for sample sizes m, n without ties: the number of
 * arrangements giving each U, by the recurrence
 *     c(u; m, n) = c(u - n; m - 1, n) + c(u; m, n - 1)
 * (Mann and Whitney 1947), divided by C(m+n, m). Counts are doubles: exact
 * to 2^53, and for m * n <= 2500 only the ratio matters.
 */
static double mwu_exact_cdf(size_t m, size_t n, double u)
{
	size_t umax = m * n, i, j, v;
	double *prev, *cur, total = 0.0, below = 0.0;

	/* c[j][v] for the current i: arrangements of i values of A among j of B */
	prev = calloc((n + 1) * (umax + 1), sizeof(double));
	cur = calloc((n + 1) * (umax + 1), sizeof(double));
	if (!prev || !cur) {
		free(prev);
		free(cur);
		return NAN;
	}
	for (j = 0; j <= n; j++)
		prev[j * (umax + 1)] = 1.0;	/* i = 0: one arrangement, U = 0 */
	for (i = 1; i <= m; i++) {
		memset(cur, 0, (n + 1) * (umax + 1) * sizeof(double));
		cur[0] = 1.0;	/* j = 0: U = 0 */
		for (j = 1; j <= n; j++) {
			for (v = 0; v <= i * j; v++) {
				double c = cur[(j - 1) * (umax + 1) + v];

				if (v >= j)
					c += prev[j * (umax + 1) + v - j];
				cur[j * (umax + 1) + v] = c;
			}
		}
		memcpy(prev, cur, (n + 1) * (umax + 1) * sizeof(double));
	}
	for (v = 0; v <= umax; v++) {
		total += prev[n * (umax + 1) + v];
		if ((double)v <= u + 1e-9)
			below += prev[n * (umax + 1) + v];
	}
	free(prev);
	free(cur);
	return below / total;
}

struct tagged {
	double v;
	int from_a;
};

static int cmp_tagged(const void *pa, const void *pb)
{
	double a = ((const struct tagged *)pa)->v, b = ((const struct tagged *)pb)->v;

	return a < b ? -1 : a > b;
}

double signif_mwu(const double *a, size_t m, const double *b, size_t n, double *ret_u)
{
	size_t N = m + n, i;
	double u, ra = 0.0, ties = 0.0, mu, sigma, z, p;
	struct tagged *all;
	int has_ties = 0;

	if (!m || !n)
		return NAN;
	all = malloc(N * sizeof(*all));
	if (!all)
		return NAN;
	for (i = 0; i < m; i++)
		all[i] = (struct tagged){ a[i], 1 };
	for (i = 0; i < n; i++)
		all[m + i] = (struct tagged){ b[i], 0 };
	qsort(all, N, sizeof(*all), cmp_tagged);
	/* U of A (pairs (a, b) with a > b, ties counting one half) from A's
	 * rank sum, ties at their mean rank: U = R_A - m (m + 1) / 2. Exact:
	 * the ranks are halves, their sums far below 2^53. O(N log N), not the
	 * O(m n) of counting pairs (5,000 runs a side: 25 million pairs). */
	for (i = 0; i < N;) {
		size_t t = 1, in_a = (size_t)all[i].from_a;

		while (i + t < N && all[i + t].v == all[i].v)
			in_a += (size_t)all[i + t++].from_a;
		ra += (double)in_a * ((double)(i + 1) + (double)(i + t)) / 2.0;
		if (t > 1) {
			has_ties = 1;
			ties += (double)t * t * t - t;
		}
		i += t;
	}
	free(all);
	u = ra - (double)m * (m + 1.0) / 2.0;
	if (ret_u)
		*ret_u = u;
	if (ties >= (double)N * N * N - N)
		return NAN;	/* every value equal: the test says nothing */

	if (!has_ties && m * n <= 2500) {
		double lo = mwu_exact_cdf(m, n, u);
		double hi = 1.0 - mwu_exact_cdf(m, n, u - 1.0);

		p = 2.0 * fmin(lo, hi);
		return p > 1.0 ? 1.0 : p;
	}
	mu = m * (double)n / 2.0;
	sigma = sqrt(m * (double)n / 12.0 * ((N + 1.0) - ties / ((double)N * (N - 1.0))));
	z = (fabs(u - mu) - 0.5) / sigma;
	if (z < 0)
		z = 0;
	p = erfc(z / sqrt(2.0));
	return p > 1.0 ? 1.0 : p;
}
