/* SPDX-License-Identifier: MIT */
/*
 * signif.h: is a difference between two sets of runs real? The statistics
 * `compare` prints: each side's median with a distribution-free confidence
 * interval from order statistics, and the two-sided Mann-Whitney U test.
 *
 * Assumes small samples (benchmarks of 3 to 50 runs a side): the U test's
 * p-value is exact (the null distribution counted by recurrence) when there
 * are no ties and m * n <= 2500, else the normal approximation with the tie
 * correction and a continuity correction. docs/METRICS.md ("Comparisons")
 * gives the formulas and their sources.
 */
#ifndef SS_CORE_SIGNIF_H
#define SS_CORE_SIGNIF_H

#include <stddef.h>

/* The median of X (N values; X is not changed); NaN when N is 0. */
double signif_median(const double *x, size_t n);

/*
 * A confidence interval for the median of X at level CONF (0.95): the order
 * statistics x(k) and x(n+1-k) with k the largest rank whose two-sided
 * binomial(n, 1/2) tail stays within 1 - CONF. Returns 0 and sets *lo, *hi;
 * -EDOM when N is too small for any interval at that level (n < 6 at 95 %),
 * -ENOMEM when out of memory.
 */
int signif_median_ci(const double *x, size_t n, double conf, double *lo, double *hi);

/* The fewest runs a side for which the median CI exists at CONF. */
size_t signif_ci_min_n(double conf);

/*
 * The two-sided Mann-Whitney U test of A (M values) against B (N values).
 * Returns the p-value in [0, 1], or NaN when either side is empty or every
 * value is equal... (no information). *ret_u, if not NULL, gets U of A.
 */
double signif_mwu(const double *a, size_t m, const double *b, size_t n, double *ret_u);

/* The smallest p-value the exact U test can reach with M and N values a
 * side (without ties): 2 / C(m+n, m), capped at 1. */
double signif_mwu_min_p(size_t m, size_t n);

#endif
