// SPDX-License-Identifier: MIT
/*
 * stats.c: sorting, R-7 quantiles and compensated sums (stats.h).
 *
 * Sorting is an LSD radix sort on the IEEE-754 bit pattern (four passes of
 * 16-bit digits, a pass skipped when all keys share its digit) when N is
 * 65536 or more, since
 * a one-hour log at 144 fps (518,400 frames) is the workload `report` is
 * measured on; small inputs use qsort. Frame times are finite and >= 0, but
 * the key transform handles negative values too.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/stats.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Maps a double to an unsigned key with the same order. */
static uint64_t key_of(double d)
{
	uint64_t u;

	memcpy(&u, &d, sizeof(u));
	return (u & 0x8000000000000000ull) ? ~u : u | 0x8000000000000000ull;
}

static double double_of(uint64_t k)
{
	uint64_t u = (k & 0x8000000000000000ull) ? k & ~0x8000000000000000ull : ~k;
	double d;

	memcpy(&d, &u, sizeof(d));
	return d;
}

#define RADIX_BITS 16
#define RADIX_SIZE (1u << RADIX_BITS)

/* Radix sort of N keys (4 passes of 16 bits); returns -1 on ENOMEM. */
static int radix_sort(double *x, size_t n)
{
	uint64_t *a = malloc(n * sizeof(*a)), *b = malloc(n * sizeof(*b));
	size_t *count = calloc(RADIX_SIZE, sizeof(*count));
	int pass;
	size_t i;

	if (!a || !b || !count) {
		free(a);
		free(b);
		free(count);
		return -1;
	}
	for (i = 0; i < n; i++)
		a[i] = key_of(x[i]);
	for (pass = 0; pass < 4; pass++) {
		unsigned shift = pass * RADIX_BITS;
		size_t sum = 0, c;
		uint64_t *t;

		memset(count, 0, RADIX_SIZE * sizeof(*count));
		for (i = 0; i < n; i++)
			count[(a[i] >> shift) & (RADIX_SIZE - 1)]++;
		if (count[(a[0] >> shift) & (RADIX_SIZE - 1)] == n)
			continue;	/* every key has this digit: nothing to move */
		for (i = 0; i < RADIX_SIZE; i++) {
			c = count[i];
			count[i] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++)
			b[count[(a[i] >> shift) & (RADIX_SIZE - 1)]++] = a[i];
		t = a;
		a = b;
		b = t;
	}
	for (i = 0; i < n; i++)
		x[i] = double_of(a[i]);
	free(a);
	free(b);
	free(count);
	return 0;
}

void stats_sort(double *x, size_t n)
{
	if (n < 2)
		return;
	if (n >= 65536 && radix_sort(x, n) == 0)
		return;
	qsort(x, n, sizeof(*x), cmp_double);
}

double *stats_sorted_copy(const double *x, size_t n)
{
	double *c = malloc((n ? n : 1) * sizeof(*c));

	if (!c)
		return NULL;
	if (n)
		memcpy(c, x, n * sizeof(*c));
	stats_sort(c, n);
	return c;
}

double stats_quantile_sorted(const double *sorted, size_t n, double p)
{
	double h, fl;
	size_t i;

	if (n == 0 || !(p >= 0.0 && p <= 1.0))
		return NAN;
	h = (double)(n - 1) * p;
	fl = floor(h);
	i = (size_t)fl;
	if (i >= n - 1)
		return sorted[n - 1];
	return sorted[i] + (h - fl) * (sorted[i + 1] - sorted[i]);
}

static void swap_d(double *a, double *b)
{
	double t = *a;

	*a = *b;
	*b = t;
}

/* Reorders x[lo..hi) so that x[k] holds what a sort would put there, with
 * nothing greater before it and nothing smaller after it. Quickselect with a
 * median-of-three pivot and a three-way partition; after 64 rounds (never,
 * short of adversarial input) it sorts the range instead. */
static void select_k(double *x, size_t lo, size_t hi, size_t k)
{
	int budget = 64;
	size_t i, j;

	while (hi - lo > 16) {
		size_t mid = lo + (hi - lo) / 2, lt = lo, gt = hi;
		double a = x[lo], b = x[mid], c = x[hi - 1], piv;

		if (budget-- == 0) {
			qsort(x + lo, hi - lo, sizeof(*x), cmp_double);
			return;
		}
		piv = a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b));
		i = lo;
		while (i < gt) {
			if (x[i] < piv)
				swap_d(&x[lt++], &x[i++]);
			else if (x[i] > piv)
				swap_d(&x[i], &x[--gt]);
			else
				i++;
		}
		if (k < lt)
			hi = lt;
		else if (k >= gt)
			lo = gt;
		else
			return;
	}
	for (i = lo + 1; i < hi; i++) {
		double v = x[i];

		for (j = i; j > lo && x[j - 1] > v; j--)
			x[j] = x[j - 1];
		x[j] = v;
	}
}

/*
 * Narrowing a large selection down before it starts: one pass for the range
 * of the keys (key_of), one to count them in BUCKET_N buckets of equal key
 * width, one to copy the values of the buckets that hold a wanted rank.
 * Every value of a lower bucket is smaller than every value of a higher
 * one, so rank K of X is rank K - (the values of the buckets below K's not
 * copied) among the copied ones: the selections then run on those (an
 * hour's frame times: a few thousand, not 518,400; the selections on a copy
 * of the window were a tenth of `report`'s time). The values are X's own,
 * so the quantiles are the same to the bit. Not used when a value is NaN or
 * a zero (the partitions may pick either sign of a zero; the keys order
 * them), or for more than BUCKET_RANKS ranks.
 */
#define BUCKET_MIN 65536
#define BUCKET_BITS 12
#define BUCKET_N (1u << BUCKET_BITS)
#define BUCKET_RANKS 16

/* The bucket of key K above MIN at SHIFT. */
#define BUCKET_OF(k, min, shift) ((size_t)(((k) - (min)) >> (shift)))

/* Values I..I+M-1 (M <= IN_CHUNK) of IN: X's own, or BUF filled. */
#define IN_CHUNK 1024
static const double *in_at(const struct stats_in *in, size_t i, size_t m, double *buf)
{
	if (in->x)
		return in->x + i;
	in->get(in->ctx, in->first + i, m, buf);
	return buf;
}

/* IN's N values into OUT. */
static void in_copy(const struct stats_in *in, size_t n, double *out)
{
	if (in->x)
		memcpy(out, in->x, n * sizeof(*out));
	else if (n)
		in->get(in->ctx, in->first, n, out);
}

/* Every value VAR of IN's N, piece by piece (X's own: one piece), as BODY. */
#define IN_EACH(in, n, var, body)                                               \
	do {                                                                  \
		double in_buf_[IN_CHUNK];                                     \
		size_t in_m_;                                                 \
		for (size_t in_i_ = 0; in_i_ < (n); in_i_ += in_m_) {         \
			const double *in_p_;                                  \
			in_m_ = (in)->x || (n) - in_i_ < IN_CHUNK ? (n) - in_i_ : IN_CHUNK; \
			in_p_ = in_at((in), in_i_, in_m_, in_buf_);           \
			for (size_t in_j_ = 0; in_j_ < in_m_; in_j_++) {      \
				double var = in_p_[in_j_];                    \
				body                                          \
			}                                                     \
		}                                                             \
	} while (0)

/*
 * The counts of IN's keys in BUCKET_N buckets (COUNT, zeroed by the caller)
 * of width 2^*SHIFT from *MIN; false (nothing counted) for N outside
 * [BUCKET_MIN, UINT32_MAX] or a value that is NaN or a zero.
 */
static bool bucket_count(const struct stats_in *in, size_t n, uint64_t *min, unsigned *shift,
			 uint32_t *count)
{
	uint64_t lo = UINT64_MAX, hi = 0;
	unsigned sh = 0;
	bool ok = true;

	if (n < BUCKET_MIN || n > UINT32_MAX)
		return false;
	IN_EACH(in, n, v, {
		uint64_t k;

		if (!(v != 0.0)) {	/* NaN or a zero */
			ok = false;
			break;
		}
		k = key_of(v);
		lo = k < lo ? k : lo;
		hi = k > hi ? k : hi;
	});
	if (!ok)
		return false;
	while (sh < 64 && ((hi - lo) >> sh) >= BUCKET_N)
		sh++;
	IN_EACH(in, n, v, { count[BUCKET_OF(key_of(v), lo, sh)]++; });
	*min = lo;
	*shift = sh;
	return true;
}

/*
 * The values of IN (N) in the buckets of ranks RANK[0..NR-1], in a new
 * array (*M of them), each rank turned into its rank among them; NULL when
 * the buckets do not apply (or on ENOMEM: the caller's way without them
 * says so).
 */
static double *bucket_gather(const struct stats_in *in, size_t n, size_t *rank, size_t nr,
			     size_t *m)
{
	uint32_t *count = calloc(BUCKET_N, sizeof(*count));
	unsigned char *want = calloc(BUCKET_N, 1);
	uint64_t min, below_kept[BUCKET_RANKS] = { 0 };
	unsigned shift;
	size_t g = 0, cum = 0, total = 0;
	double *out = NULL;

	if (!count || !want || nr > BUCKET_RANKS || !bucket_count(in, n, &min, &shift, count))
		goto done;
	/* each rank's bucket, and the values of buckets below it not taken */
	for (size_t b = 0, r; b < BUCKET_N; b++) {
		for (r = 0; r < nr; r++)
			if (rank[r] >= cum && rank[r] < cum + count[b])
				want[b] = 1;
		if (!want[b])
			for (r = 0; r < nr; r++)
				if (rank[r] >= cum + count[b])
					below_kept[r] += count[b];
		total += want[b] ? count[b] : 0;
		cum += count[b];
	}
	out = malloc((total ? total : 1) * sizeof(*out));
	if (!out)
		goto done;
	IN_EACH(in, n, v, {
		if (want[BUCKET_OF(key_of(v), min, shift)])
			out[g++] = v;
	});
	for (size_t r = 0; r < nr; r++)
		rank[r] -= below_kept[r];
	*m = g;
done:
	free(count);
	free(want);
	return out;
}

int stats_rank_in(const struct stats_in *in, size_t n, size_t k, double *ret)
{
	size_t m = n;
	double *g = bucket_gather(in, n, &k, 1, &m);

	if (!g) {
		g = malloc((n ? n : 1) * sizeof(*g));
		if (!g)
			return -1;
		in_copy(in, n, g);
	}
	select_k(g, 0, m, k);
	*ret = g[k];
	free(g);
	return 0;
}

int stats_rank(const double *x, size_t n, size_t k, double *ret)
{
	return stats_rank_in(&(struct stats_in){ .x = x }, n, k, ret);
}

double *stats_top_sorted_in(const struct stats_in *in, size_t n, size_t t, size_t *ret_t)
{
	uint32_t *count = calloc(BUCKET_N, sizeof(*count));
	uint64_t min;
	unsigned shift;
	size_t cum = 0, b = BUCKET_N, g = 0;
	double *top;

	if (count && t < n && bucket_count(in, n, &min, &shift, count)) {
		/* the highest buckets that hold T values or more */
		while (b > 0 && cum < t)
			cum += count[--b];
		free(count);
		top = malloc(cum * sizeof(*top));
		if (!top)
			return NULL;
		IN_EACH(in, n, v, {
			if (BUCKET_OF(key_of(v), min, shift) >= b)
				top[g++] = v;
		});
	} else {
		free(count);
		top = malloc((n ? n : 1) * sizeof(*top));
		if (!top)
			return NULL;
		in_copy(in, n, top);
		g = n;
	}
	stats_sort(top, g);
	*ret_t = g;
	return top;
}

double *stats_top_sorted(const double *x, size_t n, size_t t, size_t *ret_t)
{
	return stats_top_sorted_in(&(struct stats_in){ .x = x }, n, t, ret_t);
}

/* The selections of stats_quantiles_select on X (M values) for quantiles
 * of N values: RANK, when set, holds K and K + 1 of each valid quantile
 * among X's, as bucket_gather turned them. */
static void select_quantiles(double *x, size_t m, size_t n, const size_t *rank,
			     const double *ps, size_t np, double *out)
{
	size_t lo = 0, q, i, r = 0;

	for (q = 0; q < np; q++) {
		double h, fl, v, next;
		size_t k;

		if (n == 0 || !(ps[q] >= 0.0 && ps[q] <= 1.0)) {
			out[q] = NAN;
			continue;
		}
		h = (double)(n - 1) * ps[q];
		fl = floor(h);
		k = rank ? rank[2 * r++] : (size_t)fl;
		if (k < lo)
			lo = 0;	/* PS not ascending: search the whole range again */
		select_k(x, lo, m, k);
		v = x[k];
		if (h > fl && (size_t)fl + 1 < n) {
			next = x[k + 1];
			for (i = k + 2; i < m; i++)
				if (x[i] < next)
					next = x[i];
			v += (h - fl) * (next - v);
		}
		out[q] = v;
		lo = k;
	}
}

void stats_quantiles_select(double *x, size_t n, const double *ps, size_t np, double *out)
{
	select_quantiles(x, n, n, NULL, ps, np, out);
}

int stats_quantiles_in(const struct stats_in *in, size_t n, const double *ps, size_t np,
		       double *out)
{
	size_t rank[BUCKET_RANKS], nr = 0, m = n;
	double *g = NULL;

	/* the ranks the quantiles read (K and K + 1), if the buckets apply */
	if (n >= BUCKET_MIN && np * 2 <= BUCKET_RANKS) {
		for (size_t q = 0; q < np; q++) {
			size_t k;

			if (!(ps[q] >= 0.0 && ps[q] <= 1.0))
				continue;
			k = (size_t)floor((double)(n - 1) * ps[q]);
			rank[nr++] = k;
			rank[nr++] = k + 1 < n ? k + 1 : k;
		}
		g = bucket_gather(in, n, rank, nr, &m);
	}
	if (g) {
		select_quantiles(g, m, n, rank, ps, np, out);
	} else {
		g = malloc((n ? n : 1) * sizeof(*g));
		if (!g)
			return -1;
		in_copy(in, n, g);
		select_quantiles(g, n, n, NULL, ps, np, out);
	}
	free(g);
	return 0;
}

int stats_quantiles(const double *x, size_t n, const double *ps, size_t np, double *out)
{
	return stats_quantiles_in(&(struct stats_in){ .x = x }, n, ps, np, out);
}

double stats_sum_in(const struct stats_in *in, size_t n)
{
	double s = 0.0, c = 0.0;

	IN_EACH(in, n, x, {
		double t = s + x;

		if (fabs(s) >= fabs(x))
			c += (s - t) + x;
		else
			c += (x - t) + s;
		s = t;
	});
	return s + c;
}

double stats_sum(const double *x, size_t n)
{
	return stats_sum_in(&(struct stats_in){ .x = x }, n);
}

double stats_mean(const double *x, size_t n)
{
	if (n == 0)
		return NAN;
	return stats_sum(x, n) / (double)n;
}
