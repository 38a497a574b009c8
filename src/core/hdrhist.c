// SPDX-License-Identifier: MIT
/*
 * hdrhist.c: the latency histogram of hdrhist.h. The fine index of a value v
 * with its top bit at position m >= SUB_BITS keeps the SUB_BITS bits below
 * the top one: idx = (m - SUB_BITS + 1) * SUB + ((v >> (m - SUB_BITS)) - SUB).
 * Below SUB the index is the value itself, so the two parts join without a
 * gap.
 */
#include <math.h>
#include <string.h>

#include "core/hdrhist.h"

const uint64_t hdrhist_thresh_ns[HDRHIST_NTHRESH] = {
	1000000, 10000000, 100000000, 1000000000,
};

void hdrhist_init(struct hdrhist *h)
{
	memset(h, 0, sizeof(*h));
}

static int top_bit(uint64_t v)
{
	return 63 - __builtin_clzll(v);
}

/* The fine bucket of V, or -1 for the overflow. */
static int fine_index(uint64_t v)
{
	int m;

	if (v < HDRHIST_SUB)
		return (int)v;
	m = top_bit(v);
	if (m >= HDRHIST_MAX_BITS)
		return -1;
	return (m - HDRHIST_SUB_BITS + 1) * HDRHIST_SUB +
	       (int)((v >> (m - HDRHIST_SUB_BITS)) - HDRHIST_SUB);
}

/* The lowest value of fine bucket I and its width. */
static void fine_bounds(int i, uint64_t *lo, uint64_t *width)
{
	int e = i / HDRHIST_SUB, s = i % HDRHIST_SUB;

	if (e == 0) {
		*lo = (uint64_t)i;
		*width = 1;
		return;
	}
	*lo = (uint64_t)(HDRHIST_SUB + s) << (e - 1);
	*width = UINT64_C(1) << (e - 1);
}

static int log2_index(uint64_t ns)
{
	uint64_t us = ns / 1000;
	int k;

	if (us == 0)
		return 0;
	k = top_bit(us) + 1;
	return k < HDRHIST_LOG2_N - 1 ? k : HDRHIST_LOG2_N - 1;
}

void hdrhist_add(struct hdrhist *h, uint64_t ns)
{
	int i = fine_index(ns);

	if (h->n == 0 || ns < h->min_ns)
		h->min_ns = ns;
	if (h->n == 0 || ns > h->max_ns)
		h->max_ns = ns;
	h->n++;
	h->sum_ns += ns;
	for (int t = 0; t < HDRHIST_NTHRESH && ns >= hdrhist_thresh_ns[t]; t++)
		h->over[t]++;
	h->log2[log2_index(ns)]++;
	if (i < 0)
		h->fine_over++;
	else
		h->fine[i]++;
}

void hdrhist_merge(struct hdrhist *dst, const struct hdrhist *src)
{
	int i;

	if (!src->n)
		return;
	if (!dst->n || src->min_ns < dst->min_ns)
		dst->min_ns = src->min_ns;
	if (!dst->n || src->max_ns > dst->max_ns)
		dst->max_ns = src->max_ns;
	dst->n += src->n;
	dst->sum_ns += src->sum_ns;
	for (i = 0; i < HDRHIST_NTHRESH; i++)
		dst->over[i] += src->over[i];
	for (i = 0; i < HDRHIST_LOG2_N; i++)
		dst->log2[i] += src->log2[i];
	dst->fine_over += src->fine_over;
	for (i = 0; i < HDRHIST_FINE_N; i++)
		dst->fine[i] += src->fine[i];
}

double hdrhist_avg_ns(const struct hdrhist *h)
{
	return h->n ? (double)h->sum_ns / (double)h->n : NAN;
}

double hdrhist_quantile_ns(const struct hdrhist *h, double p)
{
	uint64_t rank, seen = 0, lo, width;
	double v;
	int i;

	if (!h->n || !(p > 0) || p > 1)
		return NAN;
	rank = (uint64_t)ceil(p * (double)h->n);
	if (rank < 1)
		rank = 1;
	if (rank >= h->n)
		return (double)h->max_ns;	/* the largest value is known exactly */
	if (rank == 1)
		return (double)h->min_ns;
	for (i = 0; i < HDRHIST_FINE_N; i++) {
		seen += h->fine[i];
		if (seen >= rank)
			break;
	}
	if (i == HDRHIST_FINE_N)
		return (double)h->max_ns;	/* in the overflow */
	fine_bounds(i, &lo, &width);
	v = (double)lo + (double)(width - 1) / 2.0;
	if (v < (double)h->min_ns)
		v = (double)h->min_ns;
	if (v > (double)h->max_ns)
		v = (double)h->max_ns;
	return v;
}

void hdrhist_log2_bounds(int i, uint64_t *lo_us, uint64_t *hi_us)
{
	if (i <= 0) {
		*lo_us = 0;
		*hi_us = 1;
	} else if (i >= HDRHIST_LOG2_N - 1) {
		*lo_us = UINT64_C(1) << (HDRHIST_LOG2_N - 2);
		*hi_us = 0;
	} else {
		*lo_us = UINT64_C(1) << (i - 1);
		*hi_us = UINT64_C(1) << i;
	}
}
