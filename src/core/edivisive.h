/* SPDX-License-Identifier: MIT */
/*
 * edivisive.h: change points in a series by E-Divisive with means
 * (Matteson and James, "A Nonparametric Approach for Multiple Change Point
 * Analysis of Multivariate Data", JASA 2014), with alpha = 1 and the
 * second segment running to the end of the segment being split, as
 * MongoDB's and Apache Otava's implementations do (Daly et al., ICPE 2020).
 * Pure, deterministic (its own fixed-seed generator).
 *
 * For a split of Z[0..n) at tau into X = Z[0..tau) (m values) and
 * Y = Z[tau..n) (k values):
 *
 *   E(X, Y) = 2/(m k) sum_i sum_j |X_i - Y_j|
 *             - 2/(m (m-1)) sum_{i<l} |X_i - X_l|
 *             - 2/(k (k-1)) sum_{j<l} |Y_j - Y_l|
 *   Q(tau)  = m k / (m + k) * E(X, Y)
 *
 * The best split maximises Q over tau with m, k >= the minimum segment
 * length. Recursive bisection: of the segments so far, the one whose best
 * split has the largest Q is tested; the test permutes that segment's
 * values (R times) and p = (1 + #{Q_perm >= Q}) / (R + 1); p <= alpha
 * accepts the split and the search goes on, else it ends. Change points
 * whose relative change of the segment medians on either side is under a
 * minimum are dropped afterwards (the smallest first, the medians computed
 * again after each).
 *
 * The sums are kept with a Fenwick tree over the values' ranks, so the
 * best split of n values costs O(n log n), and a test O(R n log n).
 */
#ifndef SS_CORE_EDIVISIVE_H
#define SS_CORE_EDIVISIVE_H

#include <stddef.h>
#include <stdint.h>

struct ediv_opts {
	double alpha;		/* significance of a split's permutation test; 0.05 */
	unsigned permutations;	/* R; 199 */
	size_t min_seg;		/* the fewest points on a side of a split (>= 2); 3 */
	double min_change;	/* the least |median after - median before| / |median
				 * before| a change point keeps (0.05 = 5 %); 0: any */
	uint64_t seed;		/* the generator's seed: the same series, the same answer */
};

#define EDIV_OPTS_INIT { .alpha = 0.05, .permutations = 199, .min_seg = 3, .min_change = 0, \
			 .seed = 0x5354414c4c53434full }

struct ediv_cp {
	size_t at;		/* the first point after the change */
	double q;		/* Q of the split when it was made */
	double p;		/* its permutation test's p */
};

/* Q(TAU) of Z[0..N) straight from the formula above (O(n^2)); NaN unless
 * 2 <= TAU <= N - 2. For tests and the curious. */
double ediv_q(const double *z, size_t n, size_t tau);

/* The best split of Z[0..N) with at least MIN_SEG (>= 2) points a side:
 * *RET_TAU and *RET_Q. 0, -EDOM when N < 2 * MIN_SEG, -ENOMEM. */
int ediv_best_split(const double *z, size_t n, size_t min_seg, size_t *ret_tau, double *ret_q);

/*
 * The change points of Z[0..N) by O, in order of position: *RET (the
 * caller frees it; NULL when none) and their count. -EDOM when N is too
 * short for any split (N < 2 * min_seg), -EINVAL for options out of range
 * (min_seg < 2, alpha outside (0, 1), no permutations), -ENOMEM.
 */
int ediv_detect(const double *z, size_t n, const struct ediv_opts *o, struct ediv_cp **ret);

#endif
