// SPDX-License-Identifier: MIT
/*
 * compat.c: MangoHud's and CapFrameX's numbers for a window's frame times,
 * so that users can reconcile stallscope with the tools they know.
 *
 * The formulas were read from the tools' own sources (docs/METRICS.md,
 * "Compatibility: MangoHud and CapFrameX", names the files):
 *   MangoHud 0.6.x  src/logging.cpp writeSummary(): per-frame fps sorted
 *                   ascending; 0.1%/1% are the mean of the lowest
 *                   ceil(N * p) fps values (N * p computed in float, as
 *                   MangoHud does); 97% is fps[floor(0.97 * (N - 1))];
 *                   the average is the mean of per-frame fps.
 *   MangoHud 0.7+   src/fps_metrics.h calculate(): frame times sorted
 *                   descending; value 1000 / ft[(uint64)(p * N - 1)] with
 *                   p * N - 1 in float; average 1000 / mean(ft).
 *   CapFrameX       FrametimeStatisticProvider.cs: P1 and P0.1 are the R-8
 *                   quantiles (Math.NET's Quantile) of per-frame fps; the
 *                   1% low average is 1000 / the mean of the frame times at
 *                   or above the R-8 0.99 quantile of frame times; the 1% low
 *                   integral is 1000 / the frame time at which the longest
 *                   frames, summed from the longest down, first reach 1 % of
 *                   the total time.
 * Sums are in double where the tools sum in float; on very long logs the
 * tools' own printed means can drift from these by float rounding.
 *
 * Assumes frame times in ms; a time that is not positive and finite makes
 * every value NaN. Sorting is an LSD radix sort on the bit patterns of the
 * (positive) doubles, linear in N: compat runs on every report of an hour's
 * log (518,400 frames) and must not dominate it.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/compat.h"
#include "core/stats.h"

/* ------------------------------------------------------------------ */
/* sorting */

/*
 * Sorts the N keys in K ascending (TMP holds N, COUNT is scratch); returns
 * the array that holds the result (K or TMP). Six counting passes of 11 bits (the counts
 * of 16 KB stay in L1), all six histograms taken in one read of the keys
 * first; a pass where every key has the same digit is skipped (the exponent
 * bits of frame times mostly agree). An hour's 518,400 frame times: 7
 * reads instead of the 16 of eight byte-wide passes each counting apart.
 */
#define SORT_BITS 11
#define SORT_PASSES 6	/* 6 * 11 >= 64 */
#define SORT_DIGITS (1u << SORT_BITS)

static uint64_t *sort_keys(uint64_t *k, uint64_t *tmp, size_t n,
			   size_t count[SORT_PASSES][SORT_DIGITS])
{
	uint64_t *src = k, *dst = tmp;

	memset(count, 0, SORT_PASSES * sizeof(count[0]));
	for (size_t i = 0; i < n; i++)
		for (int p = 0; p < SORT_PASSES; p++)
			count[p][(k[i] >> (p * SORT_BITS)) & (SORT_DIGITS - 1)]++;
	for (int p = 0; p < SORT_PASSES; p++) {
		int shift = p * SORT_BITS;
		size_t pos = 0, *c = count[p];
		uint64_t *t;

		if (c[(src[0] >> shift) & (SORT_DIGITS - 1)] == n)
			continue;
		for (unsigned b = 0; b < SORT_DIGITS; b++) {
			size_t x = c[b];

			c[b] = pos;
			pos += x;
		}
		for (size_t i = 0; i < n; i++)
			dst[c[(src[i] >> shift) & (SORT_DIGITS - 1)]++] = src[i];
		t = src;
		src = dst;
		dst = t;
	}
	return src;
}

/* The reason when FT_MS cannot be used, or NULL. */
static const char *check_input(const struct stats_in *ft_ms, size_t n)
{
	double piece[STATS_CUR_PIECE];
	size_t m;

	if (n == 0)
		return "no frames in the window";
	for (size_t i = 0; i < n; i += m) {
		const double *p = stats_in_piece(ft_ms, i, n, piece, &m);

		for (size_t k = 0; k < m; k++)
			if (!(isfinite(p[k]) && p[k] > 0))
				return "a frame time is not a positive finite number";
	}
	return NULL;
}

/* The sum of FT_MS's N values, in order (not compensated: as the tools). */
static double sum_in(const struct stats_in *ft_ms, size_t n)
{
	double sum = 0, piece[STATS_CUR_PIECE];
	size_t m;

	for (size_t i = 0; i < n; i += m) {
		const double *p = stats_in_piece(ft_ms, i, n, piece, &m);

		for (size_t k = 0; k < m; k++)
			sum += p[k];
	}
	return sum;
}

/* FT_MS's N values into OUT. */
static void copy_in(const struct stats_in *ft_ms, size_t n, double *out)
{
	if (ft_ms->x)
		memcpy(out, ft_ms->x, n * sizeof(*out));
	else if (n)
		ft_ms->get(ft_ms->ctx, ft_ms->first, n, out);
}

/* Above this many frames, the copy is sorted in place (heapsort: 8 bytes
 * a frame, not the radix sort's 16; slower, the same order): a day at 30
 * fps is 2.6 million (issue 31, docs/BENCH.md). */
#define SORT_RADIX_MAX ((size_t)1 << 20)

static void sift_down(double *a, size_t i, size_t n)
{
	for (;;) {
		size_t c = 2 * i + 1;
		double t;

		if (c >= n)
			return;
		if (c + 1 < n && a[c + 1] > a[c])
			c++;
		if (!(a[c] > a[i]))
			return;
		t = a[i];
		a[i] = a[c];
		a[c] = t;
		i = c;
	}
}

static void heap_sort(double *a, size_t n)
{
	for (size_t i = n / 2; i-- > 0;)
		sift_down(a, i, n);
	for (size_t end = n; end > 1; end--) {
		double t = a[0];

		a[0] = a[end - 1];
		a[end - 1] = t;
		sift_down(a, 0, end - 1);
	}
}

/*
 * A copy of the N positive finite doubles in FT_MS sorted ascending, in a
 * new array the caller frees; NULL on ENOMEM. For positive doubles the IEEE
 * bit patterns order like the values, so their bits are the sort keys (moved
 * with memcpy, so no pointer is read as another type).
 */
static double *sorted_copy(const struct stats_in *ft_ms, size_t n)
{
	if (n > SORT_RADIX_MAX) {
		double *out = malloc(n * sizeof(*out));

		if (out) {
			copy_in(ft_ms, n, out);
			heap_sort(out, n);
		}
		return out;
	}
	uint64_t *k = malloc(n * sizeof(*k));
	uint64_t *tmp = malloc(n * sizeof(*tmp));
	size_t(*count)[SORT_DIGITS] = malloc(SORT_PASSES * sizeof(*count));
	uint64_t *sorted, *spare;
	double *out;

	if (!k || !tmp || !count) {
		free(k);
		free(tmp);
		free(count);
		return NULL;
	}
	if (ft_ms->x) {
		memcpy(k, ft_ms->x, n * sizeof(*k));
	} else {
		/* the keys are the doubles' bits: a piece at a time, by memcpy */
		double piece[STATS_CUR_PIECE];

		for (size_t i = 0; i < n; i += STATS_CUR_PIECE) {
			size_t m = n - i < STATS_CUR_PIECE ? n - i : STATS_CUR_PIECE;

			ft_ms->get(ft_ms->ctx, ft_ms->first + i, m, piece);
			memcpy(k + i, piece, m * sizeof(*k));
		}
	}
	sorted = sort_keys(k, tmp, n, count);
	free(count);
	spare = sorted == k ? tmp : k;
	/* the spare block becomes the doubles, written front to back */
	out = (double *)spare;
	for (size_t i = 0; i < n; i++) {
		double d;

		memcpy(&d, &sorted[i], sizeof(d));
		out[i] = d;
	}
	free(sorted);
	return out;
}

/* ------------------------------------------------------------------ */
/* MangoHud */

/*
 * MangoHud 0.7+'s index for fraction P of N values sorted descending:
 * (uint64_t)(p * N - 1) evaluated in float as fps_metrics.h does (the
 * fraction comes from std::stof). A value in (-1, 0) truncates to 0.
 * Returns N when MangoHud would find no value (it then leaves the metric
 * unset).
 */
static size_t mh07_index(float p, size_t n)
{
	float x = p * (float)n - 1.0f;

	if (!(x > -1.0f))
		return n;
	return x < 0 ? 0 : (size_t)x;
}

/* MangoHud's numbers from FT_MS (N >= 1, checked) and A, the same sorted
 * ascending. */
static struct compat_mangohud mh_sorted(const struct stats_in *ft_ms, const double *a, size_t n,
					enum compat_mangohud_style style)
{
	struct compat_mangohud r = { NAN, NAN, NAN, NAN, NULL };

	if (style == COMPAT_MANGOHUD_06) {
		/* fps ascending is frame times descending: fps[i] = 1000 / a[n-1-i] */
		static const float mins[2] = { 0.001f, 0.01f };
		double *out[2] = { &r.fps_0_1_min, &r.fps_1_min };
		double total = 0;

		for (int m = 0; m < 2; m++) {
			size_t k = (size_t)ceilf((float)n * mins[m]);
			double sum = 0;

			if (k > n)
				k = n;
			for (size_t i = 0; i < k; i++)
				sum += 1000.0 / a[n - 1 - i];
			*out[m] = sum / (double)k;
		}
		r.fps_97 = 1000.0 / a[n - 1 - (size_t)floor(0.97 * (double)(n - 1))];
		for (size_t i = 0; i < n; i++)
			total += 1000.0 / a[n - 1 - i];
		r.fps_avg = total / (double)n;
	} else {
		/* descending index i is ascending index n-1-i */
		static const float ps[3] = { 0.001f, 0.01f, 0.97f };
		double *out[3] = { &r.fps_0_1_min, &r.fps_1_min, &r.fps_97 };
		double sum = 0;

		for (int m = 0; m < 3; m++) {
			size_t idx = mh07_index(ps[m], n);

			if (idx >= n)
				r.why = "mangohud finds no frame at that percentile";
			else
				*out[m] = 1000.0 / a[n - 1 - idx];
		}
		sum = sum_in(ft_ms, n);
		r.fps_avg = 1000.0 / (sum / (double)n);
	}
	return r;
}

int compat_mangohud(const double *ft_ms, size_t n, enum compat_mangohud_style style,
		    struct compat_mangohud *ret)
{
	struct compat_capframex unused;

	return compat_all(ft_ms, n, style, ret, &unused);
}

enum compat_mangohud_style compat_mangohud_style_of(const char *format)
{
	if (format && strncmp(format, "mangohud-0.", 11) == 0) {
		const char *p = format + 11;
		long minor = strtol(p, NULL, 10);

		if (p[0] >= '0' && p[0] <= '9' && minor < 7)
			return COMPAT_MANGOHUD_06;
	}
	return COMPAT_MANGOHUD_07;
}

/* ------------------------------------------------------------------ */
/* CapFrameX */

/*
 * Math.NET's Quantile (R-8, "approximately median-unbiased") of the N
 * values in S, sorted ascending, at TAU in [0, 1]; N >= 1.
 */
static double quantile_r8(const double *s, size_t n, double tau)
{
	double h;
	size_t hf;

	if (tau == 0 || n == 1)
		return s[0];
	if (tau == 1)
		return s[n - 1];
	h = ((double)n + 1 / 3.0) * tau + 1 / 3.0;
	hf = (size_t)h;
	if (hf < 1)
		return s[0];
	if (hf >= n)
		return s[n - 1];
	return s[hf - 1] + (h - (double)hf) * (s[hf] - s[hf - 1]);
}

/* CapFrameX's numbers from FT_MS (N >= 1, checked) and A, the same sorted
 * ascending; A is left as per-frame fps ascending. */
static struct compat_capframex cfx_sorted(const struct stats_in *ft_ms, double *a, size_t n)
{
	struct compat_capframex r = { NAN, NAN, NAN, NAN, NULL };
	double q, sum = 0, total = 0, target;
	size_t k = 0;

	/* 1% low average: frames at or above the 0.99 quantile of frame times */
	q = quantile_r8(a, n, 1 - 0.01);
	for (size_t i = n; i-- > 0 && a[i] >= q;) {
		sum += a[i];
		k++;
	}
	r.low1_avg = 1000.0 / (sum / (double)k);

	/* 1% low integral: longest frames down to 1 % of the total time */
	total = sum_in(ft_ms, n);
	target = total * (1 - (1 - 0.01));
	sum = 0;
	for (size_t i = n; i-- > 0;) {
		sum += a[i];
		if (sum >= target || i == 0) {
			r.low1_integral = 1000.0 / a[i];
			break;
		}
	}

	/* P1, P0.1: quantiles of per-frame fps, ascending = frame times reversed */
	for (size_t i = 0, j = n - 1; i < j; i++, j--) {
		double t = a[i];

		a[i] = a[j];
		a[j] = t;
	}
	for (size_t i = 0; i < n; i++)
		a[i] = 1000.0 / a[i];
	r.p1 = quantile_r8(a, n, 0.01);
	r.p0_1 = quantile_r8(a, n, 0.001);
	return r;
}

/* ------------------------------------------------------------------ */
/* MangoHud 0.7+ and CapFrameX from the longest frames */

/*
 * Every number of MangoHud 0.7+ and CapFrameX but one reads the longest 2 %
 * of the frames or fewer (their 1 % and 0.1 % values, the frames at or
 * above the 0.99 quantile, the longest frames down to 1 % of the time: at
 * most about 1 % of the frames, as the longest are at least the mean); the
 * one, MangoHud's 97 %, is a single rank. So from TAIL_MIN frames on, the
 * longest TAIL_PART are sorted (stats_top_sorted: counted in buckets, not
 * sorted whole) and the 97 % rank is selected: the same values as from the
 * whole sort, to the bit, in a third of the time on an hour's log. Should a
 * number reach below the tail after all, the whole sort is done instead.
 */
#define TAIL_MIN ((size_t)65536)
#define TAIL_PART(n) ((n) / 50 + 16)

/* The ascending order's A[LO..N) (TOP), and whether a lower one was asked for. */
struct tail {
	const double *top;
	size_t lo, n;
	bool missed;
};

static double tail_at(struct tail *t, size_t i)
{
	if (i < t->lo) {
		t->missed = true;
		return NAN;
	}
	return t->top[i - t->lo];
}

/* quantile_r8 at TAU on the ascending frame times (FPS false) or on the
 * ascending per-frame fps, 1000 / the frame times from the longest (true). */
static double tail_r8(struct tail *t, double tau, bool fps)
{
	size_t n = t->n, hf;
	double h;
#define TAIL_S(i) (fps ? 1000.0 / tail_at(t, n - 1 - (i)) : tail_at(t, (i)))

	if (tau == 0 || n == 1)
		return TAIL_S(0);
	if (tau == 1)
		return TAIL_S(n - 1);
	h = ((double)n + 1 / 3.0) * tau + 1 / 3.0;
	hf = (size_t)h;
	if (hf < 1)
		return TAIL_S(0);
	if (hf >= n)
		return TAIL_S(n - 1);
	{
		double lo = TAIL_S(hf - 1), hi = TAIL_S(hf);

		return lo + (h - (double)hf) * (hi - lo);
	}
#undef TAIL_S
}

/* compat_all's numbers for MangoHud 0.7+ from FT_MS's tail; 0, -ENOMEM, or
 * 1 when a number needs more than the tail (nothing written). */
static int all_from_tail(const struct stats_in *ft_ms, size_t n, struct compat_mangohud *ret_mh,
			 struct compat_capframex *ret_cfx)
{
	static const float ps[3] = { 0.001f, 0.01f, 0.97f };
	struct compat_mangohud mh = { NAN, NAN, NAN, NAN, NULL };
	struct compat_capframex cfx = { NAN, NAN, NAN, NAN, NULL };
	double *outs[3] = { &mh.fps_0_1_min, &mh.fps_1_min, &mh.fps_97 };
	double q, sum = 0, total = 0, target;
	struct tail t = { NULL, 0, n, false };
	size_t k = 0, len, i;
	double *top = stats_top_sorted_in(ft_ms, n, TAIL_PART(n), &len);

	if (!top)
		return -ENOMEM;
	t.top = top;
	t.lo = n - len;
	total = sum_in(ft_ms, n);
	/* MangoHud (mh_sorted's second half) */
	for (int m = 0; m < 3; m++) {
		size_t idx = mh07_index(ps[m], n);

		if (idx >= n) {
			mh.why = "mangohud finds no frame at that percentile";
		} else if (n - 1 - idx >= t.lo) {
			*outs[m] = 1000.0 / tail_at(&t, n - 1 - idx);
		} else {
			double v;

			if (stats_rank_in(ft_ms, n, n - 1 - idx, &v) < 0) {
				free(top);
				return -ENOMEM;
			}
			*outs[m] = 1000.0 / v;
		}
	}
	mh.fps_avg = 1000.0 / (total / (double)n);
	/* CapFrameX (cfx_sorted, in its order) */
	q = tail_r8(&t, 1 - 0.01, false);
	for (i = n; i-- > 0 && !t.missed;) {
		double v = tail_at(&t, i);

		if (t.missed || !(v >= q))
			break;
		sum += v;
		k++;
	}
	cfx.low1_avg = 1000.0 / (sum / (double)k);
	target = total * (1 - (1 - 0.01));
	sum = 0;
	for (i = n; i-- > 0 && !t.missed;) {
		double v = tail_at(&t, i);

		sum += v;
		if (sum >= target || i == 0) {
			cfx.low1_integral = 1000.0 / v;
			break;
		}
	}
	cfx.p1 = tail_r8(&t, 0.01, true);
	cfx.p0_1 = tail_r8(&t, 0.001, true);
	free(top);
	if (t.missed)
		return 1;
	*ret_mh = mh;
	*ret_cfx = cfx;
	return 0;
}

int compat_capframex(const double *ft_ms, size_t n, struct compat_capframex *ret)
{
	struct compat_mangohud unused;

	return compat_all(ft_ms, n, COMPAT_MANGOHUD_07, &unused, ret);
}

int compat_all(const double *ft_ms, size_t n, enum compat_mangohud_style style,
	       struct compat_mangohud *ret_mh, struct compat_capframex *ret_cfx)
{
	return compat_all_in(&(struct stats_in){ .x = ft_ms }, n, style, ret_mh, ret_cfx);
}

int compat_all_in(const struct stats_in *ft_ms, size_t n, enum compat_mangohud_style style,
		  struct compat_mangohud *ret_mh, struct compat_capframex *ret_cfx)
{
	const char *why = check_input(ft_ms, n);
	double *a;

	if (why) {
		*ret_mh = (struct compat_mangohud){ NAN, NAN, NAN, NAN, why };
		*ret_cfx = (struct compat_capframex){ NAN, NAN, NAN, NAN, why };
		return 0;
	}
	if (style == COMPAT_MANGOHUD_07 && n >= TAIL_MIN) {
		int r = all_from_tail(ft_ms, n, ret_mh, ret_cfx);

		if (r <= 0)
			return r;
	}
	a = sorted_copy(ft_ms, n);	/* frame times ascending, for both */
	if (!a)
		return -ENOMEM;
	*ret_mh = mh_sorted(ft_ms, a, n, style);
	*ret_cfx = cfx_sorted(ft_ms, a, n);	/* turns A into fps: last */
	free(a);
	return 0;
}
