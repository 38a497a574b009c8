// SPDX-License-Identifier: MIT
/*
 * test-signif.c: medians, order-statistic intervals and the U test on cases
 * worked by hand (the exact p-values by enumerating every arrangement).
 */
#include <errno.h>
#include <math.h>

#include "core/signif.h"
#include "t.h"

static void test_median(void)
{
	double odd[] = { 5, 1, 3 }, even[] = { 4, 1, 3, 2 };

	CHECK_NEAR(signif_median(odd, 3), 3, 0);
	CHECK_NEAR(signif_median(even, 4), 2.5, 0);
	CHECK(isnan(signif_median(odd, 0)));
	CHECK_NEAR(odd[0], 5, 0);	/* input not reordered */
}

static void test_ci(void)
{
	double x[10] = { 10, 1, 9, 2, 8, 3, 7, 4, 6, 5 };
	double lo = 0, hi = 0;

	/* n = 5: 2 * (1/2)^5 = 0.0625 > 0.05, no 95 % interval exists */
	CHECK_INT(signif_median_ci(x, 5, 0.95, &lo, &hi), -EDOM);
	/* n = 6: 2/64 = 0.031 <= 0.05 with k = 1: [x(1), x(6)] */
	CHECK_INT(signif_median_ci(x, 6, 0.95, &lo, &hi), 0);
	CHECK_NEAR(lo, 1, 0);
	CHECK_NEAR(hi, 10, 0);
	/* n = 10: 2 * 11/1024 = 0.021 ok, 2 * 56/1024 = 0.109 not: k = 2 */
	CHECK_INT(signif_median_ci(x, 10, 0.95, &lo, &hi), 0);
	CHECK_NEAR(lo, 2, 0);
	CHECK_NEAR(hi, 9, 0);
	CHECK_INT(signif_ci_min_n(0.95), 6);
}

static void test_mwu(void)
{
	double a3[] = { 1, 2, 3 }, b3[] = { 4, 5, 6 };
	double a4[] = { 1, 2, 3, 4 }, b4[] = { 5, 6, 7, 8 };
	double a5[] = { 1.1, 2.2, 3.3, 4.4, 9 }, b5[] = { 3.5, 5, 6, 7 };
	double at[] = { 1, 2, 2, 3 }, bt[] = { 2, 3, 4, 5 };
	double same[] = { 7, 7, 7 };
	double u = -1;

	/* fully separated, 3 a side: 2 / C(6,3) = 0.1 */
	CHECK_NEAR(signif_mwu(a3, 3, b3, 3, &u), 0.1, 1e-12);
	CHECK_NEAR(u, 0, 0);
	/* 4 a side: 2 / 70 */
	CHECK_NEAR(signif_mwu(a4, 4, b4, 4, NULL), 2.0 / 70, 1e-12);
	CHECK_NEAR(signif_mwu(b4, 4, a4, 4, &u), 2.0 / 70, 1e-12);
	CHECK_NEAR(u, 16, 0);
	/* overlapping, enumerated: U = 5, p = 0.2857142857 */
	CHECK_NEAR(signif_mwu(a5, 5, b5, 4, &u), 0.2857142857142857, 1e-12);
	CHECK_NEAR(u, 5, 0);
	/* ties: normal approximation with tie and continuity corrections */
	CHECK_NEAR(signif_mwu(at, 4, bt, 4, &u), 0.13665824773814753, 1e-9);
	CHECK_NEAR(u, 2.5, 0);
	CHECK(isnan(signif_mwu(same, 3, same, 3, NULL)));
	CHECK(isnan(signif_mwu(a3, 0, b3, 3, NULL)));
	CHECK_NEAR(signif_mwu_min_p(3, 3), 0.1, 1e-12);
	CHECK_NEAR(signif_mwu_min_p(4, 4), 2.0 / 70, 1e-12);
}

static void test_mwu_large(void)
{
	double a[60], b[60];
	int i;

	/* 60 a side without ties goes past the exact limit: the approximation
	 * must still call a clear shift significant and no shift not */
	for (i = 0; i < 60; i++) {
		a[i] = i;
		b[i] = i + 30.5;
	}
	CHECK(signif_mwu(a, 60, b, 60, NULL) < 1e-6);
	for (i = 0; i < 60; i++)
		b[i] = i + 0.5;
	CHECK(signif_mwu(a, 60, b, 60, NULL) > 0.5);
}

int main(void)
{
	T_RUN(test_median);
	T_RUN(test_ci);
	T_RUN(test_mwu);
	T_RUN(test_mwu_large);
	return t_exit();
}
