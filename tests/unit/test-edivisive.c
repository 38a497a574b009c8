// SPDX-License-Identifier: MIT
/*
 * test-edivisive: E-Divisive with means (core/edivisive.h): the statistic
 * on hand-computed series and against the paper's formula written out here
 * (Matteson and James 2014, eq. for Q-hat with alpha = 1); the best split;
 * no change in noise gives none; two planted shifts give both where they
 * were planted; ties; a constant series; too few points; the same answer
 * twice; the minimum relative change.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "core/edivisive.h"
#include "t.h"

/* Q-hat(X, Y; alpha = 1) as the paper writes it: m n / (m + n) times
 * [ 2/(m n) sum|X_i - Y_j| - C(m,2)^-1 sum_{i<k}|X_i - X_k|
 *   - C(n,2)^-1 sum_{j<k}|Y_j - Y_k| ]. */
static double paper_q(const double *x, size_t m, const double *y, size_t n)
{
	double xy = 0, xx = 0, yy = 0;

	for (size_t i = 0; i < m; i++)
		for (size_t j = 0; j < n; j++)
			xy += fabs(x[i] - y[j]);
	for (size_t i = 0; i < m; i++)
		for (size_t k = i + 1; k < m; k++)
			xx += fabs(x[i] - x[k]);
	for (size_t j = 0; j < n; j++)
		for (size_t k = j + 1; k < n; k++)
			yy += fabs(y[j] - y[k]);
	return (double)(m * n) / (double)(m + n) *
	       (2.0 / (double)(m * n) * xy - xx / (m * (m - 1) / 2.0) - yy / (n * (n - 1) / 2.0));
}

/* A fixed stream of normal(0, 1) numbers (an LCG and Box-Muller). */
static uint64_t lcg = 12345;
static double unif(void)
{
	lcg = lcg * 6364136223846793005ull + 1442695040888963407ull;
	return ((double)(lcg >> 11) + 0.5) / 9007199254740992.0;
}
static double gauss(void)
{
	return sqrt(-2 * log(unif())) * cos(2 * M_PI * unif());
}

static void test_statistic(void)
{
	/* by hand: X = {1, 2}, Y = {10, 11}: within 1 and 1, across 9+10+8+9 =
	 * 36; E = 2/4 * 36 - 1/1 - 1/1 = 16; Q = 2*2/4 * 16 = 16 */
	static const double a[] = { 1, 2, 10, 11 };
	/* X = {0,0,0}, Y = {5,5,5}: across 45; E = 2/9 * 45 = 10; Q = 9/6 * 10 = 15.
	 * At 2: X = {0,0}, Y = {0,5,5,5}: within Y 15, across 30; E = 2/8*30 -
	 * 15/6 = 5; Q = 8/6 * 5 */
	static const double b[] = { 0, 0, 0, 5, 5, 5 };
	double z[40], q;
	size_t tau;

	CHECK_NEAR(ediv_q(a, 4, 2), 16, 1e-12);
	CHECK_NEAR(paper_q(a, 2, a + 2, 2), 16, 1e-12);
	CHECK_NEAR(ediv_q(b, 6, 3), 15, 1e-12);
	CHECK_NEAR(ediv_q(b, 6, 2), 8.0 / 6 * 5, 1e-12);
	CHECK(isnan(ediv_q(b, 6, 1)));
	CHECK_INT(ediv_best_split(b, 6, 2, &tau, &q), 0);
	CHECK_INT(tau, 3);
	CHECK_NEAR(q, 15, 1e-9);

	/* the fast sums against the formula on a noisy series with ties */
	for (size_t i = 0; i < 40; i++)
		z[i] = round(gauss() * 3) + (i >= 25 ? 4 : 0);
	for (size_t t = 2; t <= 38; t++)
		CHECK_NEAR(ediv_q(z, 40, t), paper_q(z, t, z + t, 40 - t), 1e-9);
	CHECK_INT(ediv_best_split(z, 40, 2, &tau, &q), 0);
	for (size_t t = 2; t <= 38; t++)
		CHECK(paper_q(z, t, z + t, 40 - t) <= q + 1e-9);
	CHECK_NEAR(q, paper_q(z, tau, z + tau, 40 - tau), 1e-9);
}

static void test_no_change(void)
{
	struct ediv_opts o = EDIV_OPTS_INIT;
	struct ediv_cp *cp = NULL;
	double z[80];

	for (size_t i = 0; i < 80; i++)
		z[i] = 100 + gauss();
	CHECK_INT(ediv_detect(z, 80, &o, &cp), 0);
	CHECK(cp == NULL);
}

static void test_two_shifts(void)
{
	struct ediv_opts o = EDIV_OPTS_INIT;
	struct ediv_cp *cp = NULL, *again = NULL;
	double z[60];

	for (size_t i = 0; i < 60; i++)
		z[i] = 50 + gauss() + (i >= 20 && i < 42 ? 4 : 0);
	CHECK_INT(ediv_detect(z, 60, &o, &cp), 2);
	if (cp) {
		CHECK_INT(cp[0].at, 20);
		CHECK_INT(cp[1].at, 42);
		CHECK(cp[0].p <= 0.05 && cp[1].p <= 0.05 && cp[0].p >= 1.0 / 200);
	}
	/* deterministic: the same series, the same answer */
	CHECK_INT(ediv_detect(z, 60, &o, &again), 2);
	if (cp && again)
		CHECK(cp[0].p == again[0].p && cp[1].p == again[1].p && cp[1].at == again[1].at);
	free(cp);
	free(again);
}

static void test_ties_constant_short(void)
{
	struct ediv_opts o = EDIV_OPTS_INIT;
	struct ediv_cp *cp = NULL;
	double ties[12] = { 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2 }, flat[20];

	CHECK_INT(ediv_detect(ties, 12, &o, &cp), 1);
	if (cp)
		CHECK_INT(cp[0].at, 6);
	free(cp);
	cp = NULL;
	for (size_t i = 0; i < 20; i++)
		flat[i] = 0.1;
	CHECK_INT(ediv_detect(flat, 20, &o, &cp), 0);
	CHECK(cp == NULL);
	/* 5 points cannot be split into two of 3 */
	CHECK_INT(ediv_detect(flat, 5, &o, &cp), -EDOM);
	o.min_seg = 1;
	CHECK_INT(ediv_detect(flat, 20, &o, &cp), -EINVAL);
}

static void test_min_change(void)
{
	struct ediv_opts o = EDIV_OPTS_INIT;
	struct ediv_cp *cp = NULL;
	double z[40];

	/* a real but small change: 1 % with 0.1 % noise */
	for (size_t i = 0; i < 40; i++)
		z[i] = 100 * (1 + 0.001 * gauss()) + (i >= 20 ? 1 : 0);
	CHECK(ediv_detect(z, 40, &o, &cp) >= 1);
	free(cp);
	cp = NULL;
	/* 0.5 %: the planted change stays, anything the noise made goes */
	o.min_change = 0.005;
	CHECK_INT(ediv_detect(z, 40, &o, &cp), 1);
	if (cp)
		CHECK_INT(cp[0].at, 20);
	free(cp);
	cp = NULL;
	o.min_change = 0.05;
	CHECK_INT(ediv_detect(z, 40, &o, &cp), 0);
	CHECK(cp == NULL);
}

int main(void)
{
	T_RUN(test_statistic);
	T_RUN(test_no_change);
	T_RUN(test_two_shifts);
	T_RUN(test_ties_constant_short);
	T_RUN(test_min_change);
	return t_exit();
}
