// SPDX-License-Identifier: MIT
/*
 * edivisive.c: E-Divisive with means (edivisive.h). The sums of distances
 * within a prefix, within a suffix and across a split come from one pass
 * each way with a Fenwick tree over the values' ranks: adding value v of
 * rank r to a set, its distance to the set is v*c_lo - s_lo + (S - s_lo) -
 * v*(C - c_lo), where c_lo, s_lo count and sum the set's values of lower
 * rank (equal values add 0 on either side, so ties need no care).
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/edivisive.h"

double ediv_q(const double *z, size_t n, size_t tau)
{
	double wx = 0, wy = 0, c = 0, m = (double)tau, k = (double)(n - tau);

	if (tau < 2 || tau + 2 > n)
		return NAN;
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++) {
			double d = fabs(z[i] - z[j]);

			if (j < tau)
				wx += d;
			else if (i >= tau)
				wy += d;
			else
				c += d;
		}
	return m * k / (m + k) * (2 / (m * k) * c - 2 / (m * (m - 1)) * wx - 2 / (k * (k - 1)) * wy);
}

/* ---------------------------------------------------------- the sums */

struct work {
	size_t n;
	double *z;		/* the segment's values (permuted in a test) */
	size_t *rank;		/* their ranks */
	size_t *order;		/* indices sorted by value (to make ranks) */
	double *fs;		/* Fenwick: sums */
	size_t *fc;		/* Fenwick: counts */
	double *wl, *wr;	/* within-prefix and within-suffix sums, n + 1 each */
};

static void work_free(struct work *w)
{
	free(w->z);
	free(w->rank);
	free(w->order);
	free(w->fs);
	free(w->fc);
	free(w->wl);
	free(w->wr);
}

static int work_init(struct work *w, size_t n)
{
	*w = (struct work){ .n = n };
	w->z = malloc(n * sizeof(*w->z));
	w->rank = malloc(n * sizeof(*w->rank));
	w->order = malloc(n * sizeof(*w->order));
	w->fs = malloc((n + 1) * sizeof(*w->fs));
	w->fc = malloc((n + 1) * sizeof(*w->fc));
	w->wl = malloc((n + 1) * sizeof(*w->wl));
	w->wr = malloc((n + 1) * sizeof(*w->wr));
	if (!w->z || !w->rank || !w->order || !w->fs || !w->fc || !w->wl || !w->wr) {
		work_free(w);
		return -ENOMEM;
	}
	return 0;
}

static const double *sort_z;

static int by_value(const void *a, const void *b)
{
	double x = sort_z[*(const size_t *)a], y = sort_z[*(const size_t *)b];

	if (x != y)
		return x < y ? -1 : 1;
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;	/* stable */
}

/* Ranks of w->z[0..n) into w->rank. */
static void rank_values(struct work *w)
{
	for (size_t i = 0; i < w->n; i++)
		w->order[i] = i;
	sort_z = w->z;
	qsort(w->order, w->n, sizeof(*w->order), by_value);
	for (size_t i = 0; i < w->n; i++)
		w->rank[w->order[i]] = i;
}

/* Fills OUT[t] = the sum of distances among the first t values taken in
 * the order START, START + STEP, ... (STEP +1: prefixes; -1: suffixes, so
 * OUT[t] is then the sum among the last t). */
static void within(struct work *w, double *out, int step)
{
	size_t n = w->n, cnt = 0;
	double total = 0;

	memset(w->fs, 0, (n + 1) * sizeof(*w->fs));
	memset(w->fc, 0, (n + 1) * sizeof(*w->fc));
	out[0] = 0;
	for (size_t t = 0; t < n; t++) {
		size_t i = step > 0 ? t : n - 1 - t, r = w->rank[i], cl = 0;
		double v = w->z[i], sl = 0;

		for (size_t x = r; x > 0; x -= x & -x) {	/* ranks below r */
			cl += w->fc[x];
			sl += w->fs[x];
		}
		out[t + 1] = out[t] + (v * (double)cl - sl) + ((total - sl) - v * (double)(cnt - cl));
		for (size_t x = r + 1; x <= n; x += x & -x) {
			w->fc[x]++;
			w->fs[x] += v;
		}
		cnt++;
		total += v;
	}
}

/* The best split of w->z with MIN_SEG a side (n >= 2 * min_seg); w->rank
 * holds the values' ranks when RANKED. */
static void best(struct work *w, size_t min_seg, bool ranked, size_t *ret_tau, double *ret_q)
{
	size_t n = w->n;
	double all, bq = -INFINITY;
	size_t bt = min_seg;

	if (!ranked)
		rank_values(w);
	within(w, w->wl, 1);
	within(w, w->wr, -1);
	all = w->wl[n];
	for (size_t tau = min_seg; tau + min_seg <= n; tau++) {
		double m = (double)tau, k = (double)(n - tau);
		double wx = w->wl[tau], wy = w->wr[n - tau], c = all - wx - wy;
		double q = m * k / (m + k) *
			   (2 / (m * k) * c - 2 / (m * (m - 1)) * wx - 2 / (k * (k - 1)) * wy);

		if (q > bq) {
			bq = q;
			bt = tau;
		}
	}
	*ret_tau = bt;
	*ret_q = bq;
}

int ediv_best_split(const double *z, size_t n, size_t min_seg, size_t *ret_tau, double *ret_q)
{
	struct work w;

	if (min_seg < 2 || n < 2 * min_seg)
		return -EDOM;
	if (work_init(&w, n) < 0)
		return -ENOMEM;
	memcpy(w.z, z, n * sizeof(*z));
	best(&w, min_seg, false, ret_tau, ret_q);
	work_free(&w);
	return 0;
}

/* ---------------------------------------------------------- the search */

/* splitmix64: small, fast, and the same everywhere */
static uint64_t next(uint64_t *s)
{
	uint64_t x = (*s += 0x9e3779b97f4a7c15ull);

	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

struct seg {
	size_t from, to;	/* [from, to) */
	size_t tau;		/* its best split (absolute), when q is finite */
	double q;		/* -INFINITY: too short, constant, or not yet known */
};

static int seg_best(const double *z, struct seg *s, size_t min_seg, struct work *w)
{
	size_t n = s->to - s->from, tau;
	bool constant = true;

	s->q = -INFINITY;
	if (n < 2 * min_seg)
		return 0;
	for (size_t i = s->from + 1; i < s->to && constant; i++)
		constant = z[i] == z[s->from];
	if (constant)
		return 0;
	w->n = n;
	memcpy(w->z, z + s->from, n * sizeof(*z));
	best(w, min_seg, false, &tau, &s->q);
	s->tau = s->from + tau;
	return 0;
}

/* The permutation test of segment S's best split: p. */
static double perm_test(const double *z, const struct seg *s, const struct ediv_opts *o,
			uint64_t *rng, struct work *w)
{
	size_t n = s->to - s->from, tau, ge = 0;
	double q;

	w->n = n;
	memcpy(w->z, z + s->from, n * sizeof(*z));
	rank_values(w);	/* once: a value keeps its rank wherever it moves */
	for (unsigned r = 0; r < o->permutations; r++) {
		for (size_t i = n - 1; i > 0; i--) {	/* Fisher-Yates */
			size_t j = (size_t)(next(rng) % (i + 1)), tr = w->rank[i];
			double t = w->z[i];

			w->z[i] = w->z[j];
			w->z[j] = t;
			w->rank[i] = w->rank[j];
			w->rank[j] = tr;
		}
		best(w, o->min_seg, true, &tau, &q);
		/* a tolerance for the sums' rounding: a permutation as extreme as
		 * the series itself counts */
		ge += q >= s->q - 1e-9 * fabs(s->q);
	}
	return (1.0 + (double)ge) / (o->permutations + 1.0);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median_of(const double *z, size_t from, size_t to, double *tmp)
{
	size_t n = to - from;

	memcpy(tmp, z + from, n * sizeof(*z));
	qsort(tmp, n, sizeof(*tmp), cmp_double);
	return n % 2 ? tmp[n / 2] : (tmp[n / 2 - 1] + tmp[n / 2]) / 2;
}

/* Drops the change points whose relative change is under o->min_change,
 * the smallest first; the count left. */
static size_t drop_small(const double *z, size_t n, struct ediv_cp *cp, size_t ncp, double min,
			 double *tmp)
{
	while (ncp && min > 0) {
		size_t worst = 0;
		double wrel = INFINITY;

		for (size_t i = 0; i < ncp; i++) {
			size_t a = i ? cp[i - 1].at : 0, b = i + 1 < ncp ? cp[i + 1].at : n;
			double before = median_of(z, a, cp[i].at, tmp);
			double after = median_of(z, cp[i].at, b, tmp);
			double rel = before != 0 ? fabs(after - before) / fabs(before)
						 : (after != before ? INFINITY : 0);

			if (rel < wrel) {
				wrel = rel;
				worst = i;
			}
		}
		if (wrel >= min)
			break;
		memmove(cp + worst, cp + worst + 1, (ncp - worst - 1) * sizeof(*cp));
		ncp--;
	}
	return ncp;
}

static int by_at(const void *a, const void *b)
{
	size_t x = ((const struct ediv_cp *)a)->at, y = ((const struct ediv_cp *)b)->at;

	return x < y ? -1 : x > y;
}

int ediv_detect(const double *z, size_t n, const struct ediv_opts *o, struct ediv_cp **ret)
{
	struct seg *segs = NULL;
	struct ediv_cp *cp = NULL;
	struct work w;
	size_t nseg = 1, ncp = 0;
	uint64_t rng = o->seed;
	int r = 0;

	*ret = NULL;
	if (o->min_seg < 2 || !(o->alpha > 0 && o->alpha < 1) || !o->permutations ||
	    !(o->min_change >= 0))
		return -EINVAL;
	if (n < 2 * o->min_seg)
		return -EDOM;
	if (work_init(&w, n) < 0)
		return -ENOMEM;
	/* at most n / min_seg segments */
	segs = calloc(n / o->min_seg + 1, sizeof(*segs));
	cp = calloc(n / o->min_seg + 1, sizeof(*cp));
	if (!segs || !cp) {
		r = -ENOMEM;
		goto out;
	}
	segs[0] = (struct seg){ .from = 0, .to = n };
	seg_best(z, &segs[0], o->min_seg, &w);
	for (;;) {
		size_t k = 0;
		double p;

		for (size_t i = 1; i < nseg; i++)
			if (segs[i].q > segs[k].q)
				k = i;
		if (!(segs[k].q > 0))
			break;	/* nothing left to split */
		p = perm_test(z, &segs[k], o, &rng, &w);
		if (p > o->alpha)
			break;
		cp[ncp++] = (struct ediv_cp){ .at = segs[k].tau, .q = segs[k].q, .p = p };
		segs[nseg] = (struct seg){ .from = segs[k].tau, .to = segs[k].to };
		segs[k].to = segs[k].tau;
		seg_best(z, &segs[k], o->min_seg, &w);
		seg_best(z, &segs[nseg], o->min_seg, &w);
		nseg++;
	}
	qsort(cp, ncp, sizeof(*cp), by_at);
	ncp = drop_small(z, n, cp, ncp, o->min_change, w.z);
	if (ncp) {
		*ret = cp;
		cp = NULL;
	}
	r = (int)ncp;
out:
	free(segs);
	free(cp);
	work_free(&w);
	return r;
}
