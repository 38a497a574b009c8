/* SPDX-License-Identifier: MIT */
/*
 * hdrhist.h: a latency histogram for timer wake-ups (probe, kick): count,
 * min, avg, max, counts over fixed thresholds, a log2 histogram for people
 * to read, and percentiles. (core/lathist.h, the recorder's, has one bucket
 * per microsecond up to 10 ms; this one covers 37 minutes at 0.4 %.)
 *
 * Percentiles come from a fine histogram, not from the values themselves, so
 * memory stays fixed (about 36 KiB) however long a probe runs and adding a
 * value never allocates (it runs in a SCHED_FIFO loop). The fine histogram is
 * log-linear ("HDR" style): values below 128 ns are exact; above, every
 * power of two is cut into 128 equal buckets, so a bucket is at most 1/128 of
 * its value wide. A percentile is its bucket's midpoint clamped to
 * [min, max]: within 0.4 % of the exact nearest-rank value (the first and
 * last ranks are min and max, exact). Values from 2^41 ns (about 37
 * minutes) up land in an overflow bucket; a percentile there reads as the
 * max. min, max, the sum and the threshold counts are exact.
 *
 * The log2 histogram is in microseconds: bucket 0 holds [0, 1) us, bucket k
 * (1..HDRHIST_LOG2_N-2) holds [2^(k-1), 2^k) us, and the last bucket is the
 * overflow: >= 2^(HDRHIST_LOG2_N-2) us (1.048576 s).
 */
#ifndef SS_CORE_HDRHIST_H
#define SS_CORE_HDRHIST_H

#include <stdint.h>

#define HDRHIST_SUB_BITS 7
#define HDRHIST_SUB (1 << HDRHIST_SUB_BITS)	/* buckets per power of two */
#define HDRHIST_MAX_BITS 41			/* fine range: [0, 2^41) ns */
#define HDRHIST_FINE_N ((HDRHIST_MAX_BITS - HDRHIST_SUB_BITS + 1) * HDRHIST_SUB)
#define HDRHIST_LOG2_N 22

/* The thresholds counted exactly: late by >= 1 ms, 10 ms, 100 ms, 1 s. */
#define HDRHIST_NTHRESH 4
extern const uint64_t hdrhist_thresh_ns[HDRHIST_NTHRESH];

struct hdrhist {
	uint64_t n;				/* values added */
	uint64_t min_ns, max_ns;		/* valid when n > 0 */
	uint64_t sum_ns;			/* for the average */
	uint64_t over[HDRHIST_NTHRESH];		/* values >= hdrhist_thresh_ns[i] */
	uint64_t log2[HDRHIST_LOG2_N];		/* see above, in us */
	uint64_t fine_over;			/* values >= 2^41 ns */
	uint64_t fine[HDRHIST_FINE_N];
};

/* Empties H. */
void hdrhist_init(struct hdrhist *h);
/* Adds one value in ns. Never fails, never allocates. */
void hdrhist_add(struct hdrhist *h, uint64_t ns);
/* Adds every value of SRC to DST. */
void hdrhist_merge(struct hdrhist *dst, const struct hdrhist *src);

/* The average in ns, NaN when H is empty. */
double hdrhist_avg_ns(const struct hdrhist *h);
/* The P-th quantile (0 < P <= 1, e.g. 0.999) by nearest rank, in ns, within
 * 0.4 % (see above); NaN when H is empty. */
double hdrhist_quantile_ns(const struct hdrhist *h, double p);

/* The bounds of log2 bucket I in us: [*lo_us, *hi_us); *hi_us is 0 for the
 * overflow bucket (no upper bound). */
void hdrhist_log2_bounds(int i, uint64_t *lo_us, uint64_t *hi_us);

#endif
