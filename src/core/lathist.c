// SPDX-License-Identifier: MIT
/* lathist.c: the microsecond histogram of lathist.h, finer below
 * LATHIST_FINE_US. */
#include <string.h>

#include "core/hot.h"
#include "core/lathist.h"

void lathist_init(struct lathist *h)
{
	memset(h, 0, sizeof(*h));
}

SS_HOT void lathist_add(struct lathist *h, uint64_t ns)
{
	uint64_t us = ns / 1000;

	if (!h->n || ns < h->min_ns)
		h->min_ns = ns;
	if (ns > h->max_ns)
		h->max_ns = ns;
	h->n++;
	h->sum_ns += ns;
	if (us >= LATHIST_MAX_US)
		h->overflow++;
	else
		h->bucket[us]++;
	if (us < LATHIST_FINE_US)
		h->fine[ns / 100]++;
}

int64_t lathist_pct_ns(const struct lathist *h, double p)
{
	uint64_t rank, seen = 0;

	if (!h->n)
		return -1;
	if (p <= 0)
		return (int64_t)h->min_ns;
	if (p >= 100)
		return (int64_t)h->max_ns;
	/* the smallest value with at least p% of the values at or below it */
	rank = (uint64_t)(p / 100.0 * (double)h->n + 0.999999);
	if (rank < 1)
		rank = 1;
	for (uint32_t i = 0; i < LATHIST_MAX_US; i++) {
		if (seen + h->bucket[i] >= rank && i < LATHIST_FINE_US) {
			/* the microsecond's tenths: the same values, finer */
			for (uint32_t j = i * 10;; j++) {
				seen += h->fine[j];
				if (seen >= rank || j == i * 10 + 9) {
					uint64_t edge = (uint64_t)(j + 1) * 100;

					return (int64_t)(edge < h->max_ns ? edge : h->max_ns);
				}
			}
		}
		seen += h->bucket[i];
		if (seen >= rank) {
			uint64_t edge = (uint64_t)(i + 1) * 1000;

			return (int64_t)(edge < h->max_ns ? edge : h->max_ns);
		}
	}
	return (int64_t)h->max_ns;
}
