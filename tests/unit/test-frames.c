// SPDX-License-Identifier: MIT
/*
 * test-frames.c: a record's frames in their packed form (core/frames.h)
 * against the doubles they replace, bit for bit: random stamps (frames at
 * about 60 fps, equal stamps, pauses of 4.29 s and more inside a block,
 * hours), damaged spans whose intervals are dropped (the first ones, runs
 * of them, the last), stamps out of order, the first frame, t0 unknown,
 * and the few-stamp edges. The reference is the formula the record's
 * reader used before: t = (double)cur / 1e9 - t0, ft = (double)(cur -
 * prev) / 1e6 over the sorted stamps, a dropped interval no frame.
 */
#include <stdbool.h>
#include <stdint.h>

#include "core/frames.h"
#include "core/stats.h"
#include "t.h"

static uint64_t rng = 88172645463325252ull;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* A damaged span as the reader keeps one (rec.h): the last stamp before
 * it and the first after (0: none after). */
struct span {
	uint64_t before, after;
};

struct spans {
	const struct span *s;
	size_t n;
};

/* analyse.c's across_damage */
static bool across(const void *ctx, uint64_t a, uint64_t b)
{
	const struct spans *d = ctx;

	for (size_t k = 0; k < d->n; k++)
		if (a <= d->s[k].before && b > d->s[k].before &&
		    (!d->s[k].after || b >= d->s[k].after))
			return true;
	return false;
}

/* N stamps from BASE: mostly 16.7 ms apart with jitter, some equal, some
 * pauses of 4.3 to 20 s, one of an hour. */
static uint64_t *stamps(size_t n, uint64_t base)
{
	uint64_t *t = malloc(n * sizeof(*t)), cur = base;

	for (size_t i = 0; i < n; i++) {
		uint64_t r = next() % 1000;

		if (r < 5)
			cur += 0;			/* two presents at once */
		else if (r < 9)
			cur += 4294967296ull + next() % 16000000000ull;	/* a pause */
		else if (i == n / 2)
			cur += 3600000000000ull;	/* an hour */
		else
			cur += 16666667 + next() % 2000000 - 1000000;
		t[i] = cur;
	}
	return t;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static bool same(double a, double b)
{
	return memcmp(&a, &b, sizeof(a)) == 0;
}

/*
 * Packs the N stamps T (in the order given) with the spans D, and checks
 * every accessor against the doubles of the sorted stamps. Returns the
 * frames (the caller frees) for more checks.
 */
static struct frames *check_pack(const uint64_t *t, size_t n, double t0, const struct spans *d)
{
	struct frames_stamps s = { 0 };
	struct frames *f = NULL;
	uint64_t *st = malloc((n ? n : 1) * sizeof(*st)), first = 1, prev;
	double *ref_t = malloc((n ? n : 1) * sizeof(double));
	double *ref_ft = malloc((n ? n : 1) * sizeof(double));
	double rt0 = t0, buf[300];
	size_t k = 0, bad = 0;

	memcpy(st, t, n * sizeof(*st));
	qsort(st, n, sizeof(*st), cmp_u64);
	if (isnan(rt0))
		rt0 = n ? (double)st[0] / 1e9 : 0.0;
	prev = n ? st[0] : 0;
	for (size_t i = 1; i < n; i++) {
		if (!across(d, prev, st[i])) {
			ref_t[k] = (double)st[i] / 1e9 - rt0;
			ref_ft[k++] = (double)(st[i] - prev) / 1e6;
		}
		prev = st[i];
	}
	for (size_t i = 0; i < n; i++)
		CHECK_INT(frames_stamps_add(&s, t[i]), 0);
	CHECK_INT(frames_stamps_done(&s, t0, d->n ? across : NULL, d, &f, &first), 0);
	CHECK(s.f == NULL && s.t == NULL && s.n == 0);	/* taken */
	CHECK(first == (n ? st[0] : 0));
	CHECK_INT(f->n, k);
	CHECK(f->t_s == NULL && f->ft_ms == NULL);
	for (size_t i = 0; i < f->n && i < k; i++)
		if (!same(frames_t(f, i), ref_t[i]) || !same(frames_ft(f, i), ref_ft[i]) ||
		    !same(frames_start(f, i), ref_t[i] - ref_ft[i] / 1000.0)) {
			if (bad++ < 5)
				T_FAIL("frame %zu: t %.17g ft %.17g, expected %.17g %.17g", i,
				       frames_t(f, i), frames_ft(f, i), ref_t[i], ref_ft[i]);
		}
	CHECK_INT(bad, 0);
	/* the bulk reader, in pieces that start anywhere */
	bad = 0;
	for (size_t i = 0; i < f->n && f->n == k;) {
		size_t m = 1 + next() % 300;
		const double *p;

		if (m > f->n - i)
			m = f->n - i;
		p = frames_ft_span(f, i, m, buf);
		for (size_t j = 0; j < m; j++)
			bad += !same(p[j], ref_ft[i + j]);
		i += m;
	}
	CHECK_INT(bad, 0);
	/* and a piece starting at every frame (a frame of pk.exc first) */
	bad = 0;
	for (size_t i = 0; i + 1 < f->n && f->n == k; i++) {
		const double *p = frames_ft_span(f, i, 2, buf);

		bad += !same(p[0], ref_ft[i]) || !same(p[1], ref_ft[i + 1]);
	}
	CHECK_INT(bad, 0);
	if (f->n == k && k) {
		struct stats_in in = frames_ft_in(f, 0);

		CHECK(same(stats_sum_in(&in, k), stats_sum(ref_ft, k)));
		in = frames_ft_in(f, k / 3);
		CHECK(same(stats_sum_in(&in, k - k / 3), stats_sum(ref_ft + k / 3, k - k / 3)));
	}
	free(st);
	free(ref_t);
	free(ref_ft);
	return f;
}

static void test_in_order(void)
{
	static const struct spans none = { NULL, 0 };
	size_t n = 20000;
	uint64_t *t = stamps(n, 5000000000000ull);
	struct frames *f = check_pack(t, n, 4999.5, &none);

	/* the pauses made some blocks wide, not all */
	CHECK(f->pk.nwide > 0 && f->pk.nwide < f->pk.nblk / 4);
	CHECK_INT(f->pk.nexc, 0);
	frames_free(f);
	free(t);
}

/* A steady stream is 4 bytes a frame and a little: no block wide. */
static void test_compact(void)
{
	static const struct spans none = { NULL, 0 };
	size_t n = 100000;
	uint64_t *t = malloc(n * sizeof(*t));
	struct frames *f;
	size_t bytes;

	for (size_t i = 0; i < n; i++)
		t[i] = 123456789012345ull + i * 16666667ull + next() % 100000;
	f = check_pack(t, n, NAN, &none);
	CHECK_INT(f->pk.nwide, 0);
	bytes = f->pk.cap * sizeof(*f->pk.off) + f->pk.bcap * sizeof(*f->pk.blk) +
		f->pk.wcap * sizeof(*f->pk.wide);
	if (!(bytes < 4.4 * (double)n))
		T_FAIL("%zu bytes for %zu frames", bytes, n);
	frames_free(f);
	free(t);
}

static void test_damage(void)
{
	size_t n = 5000;
	uint64_t *t = stamps(n, 1000000000ull);
	struct span sp[4];
	struct spans d = { sp, 4 };
	struct frames *f;

	/* the first intervals, one mid-block, a run of intervals across a
	 * block's end, and the tail (nothing read after it) */
	sp[0] = (struct span){ t[0], t[3] };
	sp[1] = (struct span){ t[1000], t[1001] };
	sp[2] = (struct span){ t[2040], t[2200] };
	sp[3] = (struct span){ t[4990], 0 };
	f = check_pack(t, n, 0.25, &d);
	CHECK(f->pk.nexc >= 2);
	frames_free(f);
	free(t);
	/* every interval dropped: no frame */
	sp[0] = (struct span){ 10, 0 };
	sp[1] = (struct span){ 20, 0 };
	sp[2] = (struct span){ 30, 0 };
	f = check_pack((uint64_t[]){ 10, 20, 30, 40 }, 4, 0.25, &(struct spans){ sp, 3 });
	CHECK_INT(f->n, 0);
	frames_free(f);
	/* all but the last: one frame, its start a present that ends none */
	f = check_pack((uint64_t[]){ 10, 20, 30, 40 }, 4, 0.25, &(struct spans){ sp, 2 });
	CHECK_INT(f->n, 1);
	frames_free(f);
}

/* Out of order: a plain array, sorted at the end; the same frames. */
static void test_out_of_order(void)
{
	static const struct spans none = { NULL, 0 };
	size_t n = 3000;
	uint64_t *t = stamps(n, 77000000000ull);
	struct span sp[1];
	struct frames *f;

	for (size_t i = 0; i < 40; i++) {
		size_t a = next() % n, b = next() % n;
		uint64_t x = t[a];

		t[a] = t[b];
		t[b] = x;
	}
	f = check_pack(t, n, 77.0, &none);
	frames_free(f);
	sp[0] = (struct span){ 78000000000ull, 79000000000ull };
	f = check_pack(t, n, NAN, &(struct spans){ sp, 1 });
	frames_free(f);
	/* the very second stamp before the first */
	f = check_pack((uint64_t[]){ 500, 400, 600, 900 }, 4, NAN, &none);
	CHECK_INT(f->n, 3);
	frames_free(f);
	free(t);
}

static void test_few(void)
{
	static const struct spans none = { NULL, 0 };
	struct frames *f;

	for (size_t n = 0; n <= 3; n++) {
		f = check_pack((uint64_t[]){ 7000000000ull, 7016000000ull, 7033000000ull }, n,
			       NAN, &none);
		CHECK_INT(f->n, n ? n - 1 : 0);
		frames_free(f);
	}
	/* exactly a block, and one over */
	for (size_t n = FRAMES_BLK; n <= FRAMES_BLK + 2; n++) {
		uint64_t t[FRAMES_BLK + 2];

		for (size_t i = 0; i < n; i++)
			t[i] = 1 + i * 4000000000ull;	/* 4 s: a block of 64 is wide */
		f = check_pack(t, n, 0.0, &none);
		frames_free(f);
	}
}

/* The doubles' accessors read the arrays: a frame log's frames. */
static void test_doubles(void)
{
	struct frames *f = frames_new();
	double buf[4];

	CHECK_INT(frames_push(f, 0.5, 16.5), 0);
	CHECK_INT(frames_push_ft(f, 33.25), 0);
	CHECK(same(frames_t(f, 1), 0.5 + 33.25 / 1000.0));
	CHECK(same(frames_ft(f, 0), 16.5));
	CHECK(frames_ft_span(f, 1, 1, buf) == f->ft_ms + 1);
	frames_free(f);
	frames_free(NULL);
}

int main(void)
{
	T_RUN(test_in_order);
	T_RUN(test_compact);
	T_RUN(test_damage);
	T_RUN(test_out_of_order);
	T_RUN(test_few);
	T_RUN(test_doubles);
	return t_exit();
}
