/* SPDX-License-Identifier: MIT */
/*
 * stats.h: the few statistics the metrics need: sorting, quantiles, mean.
 *
 * Quantiles are R-7 (Hyndman & Fan 1996, type 7), numpy's default
 * ("linear"): for N sorted values x[0..N-1] and p in [0, 1], h = (N - 1) p,
 * Q(p) = x[floor(h)] + (h - floor(h)) (x[floor(h) + 1] - x[floor(h)]).
 * docs/METRICS.md states the same. Pure: no I/O, no allocation but
 * stats_sorted_copy's.
 */
#ifndef SS_CORE_STATS_H
#define SS_CORE_STATS_H

#include <stddef.h>

/*
 * N doubles to read: X[0..N) when X is set, else GET(CTX, FIRST + I, M, BUF)
 * writes values I..I+M-1 to BUF, read a piece (1024) at a time: a record's
 * frame times, kept packed (core/frames.h), need no array of their own.
 * The _in functions equal their plain ones to the bit.
 */
struct stats_in {
	const double *x;
	void (*get)(const void *ctx, size_t i, size_t m, double *buf);
	const void *ctx;
	size_t first;
};

/* A reader of IN's N values in order, or near it: stats_cur_at(C, I). A
 * piece at a time when IN has no X; X's own, no copy, when it has. */
#define STATS_CUR_PIECE 256
struct stats_cur {
	const struct stats_in *in;
	size_t n, lo, m;
	const double *p;
	double buf[STATS_CUR_PIECE];
};

static inline void stats_cur_init(struct stats_cur *c, const struct stats_in *in, size_t n)
{
	c->in = in;
	c->n = n;
	c->lo = 0;
	c->m = in->x ? n : 0;
	c->p = in->x;
}

/* Values I.. (of N) of IN: X's own, all the rest, or a piece of
 * STATS_CUR_PIECE at most in BUF; *RET_M how many. For a loop that reads
 * them in order: for (i = 0; i < n; i += m) { p = stats_in_piece(...); ... }. */
static inline const double *stats_in_piece(const struct stats_in *in, size_t i, size_t n,
					   double *buf, size_t *ret_m)
{
	if (in->x) {
		*ret_m = n - i;
		return in->x + i;
	}
	*ret_m = n - i < STATS_CUR_PIECE ? n - i : STATS_CUR_PIECE;
	in->get(in->ctx, in->first + i, *ret_m, buf);
	return buf;
}

/* Value I (< N) of C's. */
static inline double stats_cur_at(struct stats_cur *c, size_t i)
{
	if (i - c->lo >= c->m) {	/* outside the piece (below it too: unsigned) */
		c->lo = i;
		c->m = c->n - i < STATS_CUR_PIECE ? c->n - i : STATS_CUR_PIECE;
		c->in->get(c->in->ctx, c->in->first + i, c->m, c->buf);
		c->p = c->buf;
	}
	return c->p[i - c->lo];
}

/* Sorts the N doubles of X ascending in place. X holds no NaN. */
void stats_sort(double *x, size_t n);

/*
 * A sorted copy of the N doubles of X. Returns the copy (the caller frees
 * it), or NULL on ENOMEM; N == 0 returns a valid 1-element buffer so that
 * NULL always means out of memory.
 */
double *stats_sorted_copy(const double *x, size_t n);

/* The R-7 quantile P (0..1) of the N ascending values SORTED; NaN when N is
 * 0 or P is outside [0, 1]. */
double stats_quantile_sorted(const double *sorted, size_t n, double p);

/*
 * The R-7 quantiles PS[0..NP-1] (ascending, each in [0, 1]) of the N values
 * of X, written to OUT[0..NP-1], without sorting: X is reordered in place
 * (a selection per quantile, expected O(N) each, three-way partitions so
 * that runs of equal values cost nothing extra). NaN for every quantile
 * when N is 0. The values equal stats_quantile_sorted() on a sorted copy.
 */
void stats_quantiles_select(double *x, size_t n, const double *ps, size_t np, double *out);

/*
 * The same quantiles (at most 8 of them) with X left as it is: from 65,536
 * values, the keys are counted in buckets first and only the values of the
 * buckets that hold a wanted rank are copied and selected among (an hour's
 * frame times: a few thousand, not 518,400, and no copy of the rest); else
 * on a copy. The values equal stats_quantile_sorted()'s to the bit. 0, or
 * -1 on ENOMEM.
 */
int stats_quantiles(const double *x, size_t n, const double *ps, size_t np, double *out);
int stats_quantiles_in(const struct stats_in *in, size_t n, const double *ps, size_t np,
		       double *out);

/* The value of rank K (0-based, K < N) of the N values of X, as a sort would
 * put there, to the bit, in *RET; as stats_quantiles: 0 or -1 on ENOMEM. */
int stats_rank(const double *x, size_t n, size_t k, double *ret);
int stats_rank_in(const struct stats_in *in, size_t n, size_t k, double *ret);

/*
 * The highest T' >= T of the N values of X (T' == N when T >= N, and
 * somewhat above T otherwise: whole buckets of keys are taken), sorted
 * ascending, in a new array the caller frees; T' in *RET_T. NULL on
 * ENOMEM. For the tails of an hour's frame times without sorting them all.
 */
double *stats_top_sorted(const double *x, size_t n, size_t t, size_t *ret_t);
double *stats_top_sorted_in(const struct stats_in *in, size_t n, size_t t, size_t *ret_t);

/* The arithmetic mean of the N values of X (compensated summation); NaN when
 * N is 0. */
double stats_mean(const double *x, size_t n);

/* The sum of the N values of X, with Kahan-Neumaier compensation. */
double stats_sum(const double *x, size_t n);
double stats_sum_in(const struct stats_in *in, size_t n);

#endif
