// SPDX-License-Identifier: MIT
/*
 * frames.c: the growable frame set of frames.h, and a record's frames in
 * their packed form (frames.h says how it is laid out). The packed form
 * assumes the presents come in order, as a recorder writes them: a block
 * is appended when FRAMES_BLK stamps have come, and the damage's dropped
 * intervals are taken out in place, the writer never ahead of the reader.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/frames.h"

struct frames *frames_new(void)
{
	return calloc(1, sizeof(struct frames));
}

void frames_free(struct frames *f)
{
	if (!f)
		return;
	free(f->ft_ms);
	free(f->t_s);
	free(f->tid);
	free(f->pk.off);
	free(f->pk.wide);
	free(f->pk.blk);
	free(f->pk.exc);
	free(f);
}

int frames_push(struct frames *f, double t_s, double ft_ms)
{
	if (f->n == f->alloc) {
		size_t na = f->alloc ? f->alloc * 2 : 1024;
		/* three columns sharing one room (alloc) */
		double *a = realloc(f->ft_ms, na * sizeof(*a));
		double *b;

		if (!a)
			return -ENOMEM;
		f->ft_ms = a;
		b = realloc(f->t_s, na * sizeof(*b));
		if (!b)
			return -ENOMEM;
		f->t_s = b;
		if (f->tid) {
			uint32_t *c = realloc(f->tid, na * sizeof(*c));

			if (!c)
				return -ENOMEM;
			f->tid = c;
		}
		f->alloc = na;
	}
	f->ft_ms[f->n] = ft_ms;
	f->t_s[f->n] = t_s;
	if (f->tid)
		f->tid[f->n] = 0;
	f->n++;
	return 0;
}

int frames_reserve(struct frames *f, size_t n)
{
	double *a, *b;

	if (n <= f->alloc)
		return 0;
	a = realloc(f->ft_ms, n * sizeof(*a));
	if (!a)
		return -ENOMEM;
	f->ft_ms = a;
	b = realloc(f->t_s, n * sizeof(*b));
	if (!b)
		return -ENOMEM;
	f->t_s = b;
	if (f->tid) {
		uint32_t *c = realloc(f->tid, n * sizeof(*c));

		if (!c)
			return -ENOMEM;
		f->tid = c;
	}
	f->alloc = n;
	return 0;
}

int frames_push_ft(struct frames *f, double ft_ms)
{
	double prev = f->n ? f->t_s[f->n - 1] : 0.0;

	return frames_push(f, prev + ft_ms / 1000.0, ft_ms);
}

const double *frames_ft_span(const struct frames *f, size_t i, size_t m, double *buf)
{
	if (f->ft_ms)
		return f->ft_ms + i;
	frames_ft_get(f, i, m, buf);
	return buf;
}

void frames_ft_get(const void *ctx, size_t i, size_t m, double *buf)
{
	const struct frames *f = ctx;
	uint64_t prev;

	if (f->ft_ms) {
		memcpy(buf, f->ft_ms + i, m * sizeof(*buf));
		return;
	}
	/* in order: each frame starts where the one before ended, but for
	 * pk.exc's */
	prev = m ? frames_prev_ns(f, i) : 0;
	for (size_t j = 0; j < m; j++) {
		uint64_t cur = frames_slot_ns(f, i + j + 1);

		buf[j] = (double)(cur - prev) / 1e6;
		if (j + 1 < m)
			prev = frames_prev_ns(f, i + j + 1);
	}
}

/* ------------------------------------------------------------ packing */

/* Room for N more of the C-sized things at *P (length LEN, room *CAP). */
static int grow(void *p, size_t *cap, size_t len, size_t n, size_t size)
{
	void **pp = p;
	size_t nc = *cap ? *cap : 64;
	void *q;

	if (len + n <= *cap)
		return 0;
	while (nc < len + n)
		nc *= 2;
	q = realloc(*pp, nc * size);
	if (!q)
		return -ENOMEM;
	*pp = q;
	*cap = nc;
	return 0;
}

/* Appends the M (1..FRAMES_BLK) ascending stamps V as PK's next block,
 * whose frames' exceptions start at EXC0. 0 or -ENOMEM. */
static int pk_block(struct frames_packed *pk, const uint64_t *v, unsigned m, size_t exc0)
{
	struct frames_blk *b;

	/* one more block header than blocks: the last closes exc */
	if (grow(&pk->off, &pk->cap, pk->nslots, FRAMES_BLK, sizeof(*pk->off)) < 0 ||
	    grow(&pk->blk, &pk->bcap, pk->nblk, 2, sizeof(*pk->blk)) < 0)
		return -ENOMEM;
	b = &pk->blk[pk->nblk];
	b->base = (int64_t)v[0];
	b->exc = (uint32_t)exc0;
	b->wide = FRAMES_NARROW;
	if (v[m - 1] - v[0] > UINT32_MAX) {
		/* a pause of 4.29 s or more within the block */
		if (grow(&pk->wide, &pk->wcap, pk->nwide * FRAMES_BLK, FRAMES_BLK,
			 sizeof(*pk->wide)) < 0)
			return -ENOMEM;
		memcpy(pk->wide + pk->nwide * FRAMES_BLK, v, m * sizeof(*v));
		b->wide = (uint32_t)pk->nwide++;
	} else {
		for (unsigned j = 0; j < m; j++)
			pk->off[pk->nslots + j] = (uint32_t)(v[j] - v[0]);
	}
	pk->nslots += m;
	pk->nblk++;
	return 0;
}

/* A block's writer: stamps appended, FRAMES_BLK to a block. */
struct pk_writer {
	uint64_t v[FRAMES_BLK];
	unsigned m;
	size_t exc0;
};

static int pk_put(struct frames_packed *pk, struct pk_writer *w, uint64_t t)
{
	if (!w->m)
		w->exc0 = pk->nexc;
	w->v[w->m++] = t;
	if (w->m < FRAMES_BLK)
		return 0;
	w->m = 0;
	return pk_block(pk, w->v, FRAMES_BLK, w->exc0);
}

/* The last block (partial), the closing header, the slack given back. */
static int pk_close(struct frames_packed *pk, struct pk_writer *w)
{
	void *q;

	if (w->m && pk_block(pk, w->v, w->m, w->exc0) < 0)
		return -ENOMEM;
	w->m = 0;
	if (grow(&pk->blk, &pk->bcap, pk->nblk, 1, sizeof(*pk->blk)) < 0)
		return -ENOMEM;
	pk->blk[pk->nblk] = (struct frames_blk){ 0, FRAMES_NARROW, (uint32_t)pk->nexc };
	if (pk->nslots && (q = realloc(pk->off, pk->nslots * sizeof(*pk->off)))) {
		pk->off = q;
		pk->cap = pk->nslots;
	}
	if ((q = realloc(pk->blk, (pk->nblk + 1) * sizeof(*pk->blk)))) {
		pk->blk = q;
		pk->bcap = pk->nblk + 1;
	}
	return 0;
}

int frames_stamps_add(struct frames_stamps *s, uint64_t t_ns)
{
	int r;

	if (!s->t && s->n && t_ns < (s->npend ? s->pend[s->npend - 1]
				     : frames_slot_ns(s->f, s->f->pk.nslots - 1))) {
		/* out of order: every stamp so far into a plain array */
		size_t k = 0, have = s->f ? s->f->pk.nslots : 0;
		uint64_t *t = malloc((s->n + 1) * 2 * sizeof(*t));

		if (!t)
			return -ENOMEM;
		for (size_t i = 0; i < have; i++)
			t[k++] = frames_slot_ns(s->f, i);
		memcpy(t + k, s->pend, s->npend * sizeof(*t));
		frames_free(s->f);
		s->f = NULL;
		s->npend = 0;
		s->t = t;
		s->cap = (s->n + 1) * 2;
	}
	if (s->t) {
		if (s->n == s->cap) {
			uint64_t *t = realloc(s->t, s->cap * 2 * sizeof(*t));

			if (!t)
				return -ENOMEM;
			s->t = t;
			s->cap *= 2;
		}
		s->t[s->n++] = t_ns;
		return 0;
	}
	if (!s->f && !(s->f = frames_new()))
		return -ENOMEM;
	s->pend[s->npend++] = t_ns;
	s->n++;
	if (s->npend < FRAMES_BLK)
		return 0;
	r = pk_block(&s->f->pk, s->pend, FRAMES_BLK, 0);
	if (r < 0) {
		s->npend--;
		s->n--;
		return r;
	}
	s->npend = 0;
	return 0;
}

void frames_stamps_free(struct frames_stamps *s)
{
	frames_free(s->f);
	free(s->t);
	memset(s, 0, sizeof(*s));
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* S's stamps, sorted, as the slots of new packed frames *RET (their
 * frames not yet set). S is emptied. 0 or -ENOMEM. */
static int stamps_slots(struct frames_stamps *s, struct frames **ret)
{
	struct frames *f;
	struct pk_writer w = { .m = 0 };
	int r = 0;

	if (!s->t) {
		f = s->f ? s->f : frames_new();
		s->f = NULL;
		if (f && s->npend)
			r = pk_block(&f->pk, s->pend, s->npend, 0);
		s->npend = 0;
		if (!f || r < 0) {
			frames_free(f);
			return -ENOMEM;
		}
		*ret = f;
		return 0;
	}
	/* out of order: sorted, then packed (the array and the packed form
	 * at once, 12 bytes a present at the peak) */
	qsort(s->t, s->n, sizeof(*s->t), cmp_u64);
	f = frames_new();
	for (size_t i = 0; f && r == 0 && i < s->n; i++)
		r = pk_put(&f->pk, &w, s->t[i]);
	if (f && r == 0 && w.m)
		r = pk_block(&f->pk, w.v, w.m, 0);
	free(s->t);
	s->t = NULL;
	if (!f || r < 0) {
		frames_free(f);
		return -ENOMEM;
	}
	*ret = f;
	return 0;
}

/*
 * Takes F's dropped intervals out (F's NS slots are the sorted stamps):
 * frame k's end written to slot k + 1 (slot 0: the first frame's start),
 * never ahead of the stamp read, so in place; a block written is one the
 * reader has left (its header and offsets are the old ones until then).
 * The wide blocks are written anew beside the old. Returns the frames'
 * count, or -ENOMEM.
 */
static long long drop_intervals(struct frames *f, bool (*drop)(const void *, uint64_t, uint64_t),
				const void *ctx)
{
	struct frames_packed old = f->pk, *pk = &f->pk;
	struct pk_writer w = { .m = 0 };
	uint64_t prev = frames_pk_slot(&old, 0);
	size_t k = 0;
	bool gap = false;
	int r = 0;

	pk->nslots = pk->nblk = 0;
	pk->wide = NULL;
	pk->nwide = pk->wcap = 0;
	for (size_t j = 1; j < old.nslots && r == 0; j++) {
		uint64_t cur;

		/* a block appended may have moved the arrays (realloc keeps
		 * what they held) */
		old.off = pk->off;
		old.blk = pk->blk;
		cur = frames_pk_slot(&old, j);

		if (drop(ctx, prev, cur)) {
			gap = true;
		} else {
			if (!k)
				r = pk_put(pk, &w, prev);	/* the first frame's start */
			if (r == 0)
				r = pk_put(pk, &w, cur);
			if (r == 0 && k && gap) {
				/* this frame started at a present that ends none */
				r = grow(&pk->exc, &pk->ecap, pk->nexc, 1, sizeof(*pk->exc));
				if (r == 0)
					pk->exc[pk->nexc++] = (struct frames_exc){ k, prev };
			}
			gap = false;
			k++;
		}
		prev = cur;
	}
	if (r == 0 && w.m)
		r = pk_block(pk, w.v, w.m, w.exc0);
	free(old.wide);
	if (r == 0 && !k)
		pk->nslots = 0;	/* no frame: no slot */
	return r < 0 ? r : (long long)k;
}

int frames_stamps_done(struct frames_stamps *s, double t0_s,
		       bool (*drop)(const void *ctx, uint64_t a, uint64_t b), const void *ctx,
		       struct frames **ret, uint64_t *ret_first)
{
	struct frames *f = NULL;
	struct pk_writer w = { .m = 0 };
	long long n;
	int r;

	*ret_first = 0;
	r = stamps_slots(s, &f);
	frames_stamps_free(s);
	if (r < 0)
		return r;
	if (f->pk.nslots) {
		*ret_first = frames_pk_slot(&f->pk, 0);
		if (isnan(t0_s))
			t0_s = (double)*ret_first / 1e9;
	} else if (isnan(t0_s)) {
		t0_s = 0.0;
	}
	f->pk.t0_s = t0_s;
	n = f->pk.nslots ? (long long)f->pk.nslots - 1 : 0;
	if (drop && n)
		n = drop_intervals(f, drop, ctx);
	if (n < 0 || pk_close(&f->pk, &w) < 0) {
		frames_free(f);
		return -ENOMEM;
	}
	f->n = f->alloc = (size_t)n;
	if (!n)
		f->pk.nslots = 0;
	snprintf(f->format, sizeof(f->format), "record");
	*ret = f;
	return 0;
}
