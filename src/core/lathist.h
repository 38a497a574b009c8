/* SPDX-License-Identifier: MIT */
/*
 * lathist.h: a histogram of durations in microseconds, cyclictest's way:
 * one bucket per microsecond up to LATHIST_MAX_US, an overflow bucket above
 * it, and exact min, max and sum beside them; below LATHIST_FINE_US, a
 * bucket per 100 ns as well (a sample's work takes 5-15 us: to the
 * microsecond, 5.1 and 5.9 both read 6). The recorder keeps one for its
 * wake-up lateness and one for the time each sample took; percentiles come
 * out to 0.1 us under LATHIST_FINE_US and to the microsecond above (an
 * overflowed percentile reports the exact max).
 *
 * Pure and fixed-size: adding is O(1) and never allocates, so it can run
 * inside the sampling loop.
 */
#ifndef SS_CORE_LATHIST_H
#define SS_CORE_LATHIST_H

#include <stdint.h>

#define LATHIST_MAX_US 10000
#define LATHIST_FINE_US 32	/* 100 ns buckets below this */

struct lathist {
	uint64_t n;			/* values added */
	uint64_t sum_ns;
	uint64_t min_ns, max_ns;	/* valid when n > 0 */
	uint64_t overflow;		/* values of LATHIST_MAX_US or more */
	uint32_t bucket[LATHIST_MAX_US];	/* bucket[i]: values in [i, i+1) us */
	uint32_t fine[LATHIST_FINE_US * 10];	/* fine[j]: values in [j, j+1) x 100 ns */
};

void lathist_init(struct lathist *h);
/* Adds one duration of NS nanoseconds. */
void lathist_add(struct lathist *h, uint64_t ns);
/* The P-th percentile (0..100) in nanoseconds: the upper edge of the bucket
 * that holds it (100 ns under LATHIST_FINE_US, else 1 us), clamped to max;
 * -1 when empty. */
int64_t lathist_pct_ns(const struct lathist *h, double p);

#endif
