// SPDX-License-Identifier: MIT
/*
 * reader_records.c: the records of a block (rec.h, docs/FORMAT.md): meta,
 * fields, strings, key, samples (a bit reader for the Rice-coded residuals),
 * frames, clocks, thread snapshots and events, each bounds-checked and
 * capped (REC_EXPAND). The file around them is reader.c's.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/grow.h"
#include "rec/reader_int.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23	/* Linux 5.14 */
#endif

/* Asks the kernel to fault in the N bytes at P in one call rather than one
 * fault a page as the decoder first writes them (about twice as fast for a
 * one-hour matrix of 193 MB on the build VM). Best effort: an older kernel
 * refuses, and the pages fault in as usual. */
static void prefault(void *p, size_t n)
{
	uintptr_t a = ((uintptr_t)p + 4095) & ~(uintptr_t)4095;
	uintptr_t e = ((uintptr_t)p + n) & ~(uintptr_t)4095;

	if (n >= (8u << 20) && e > a)
		(void)madvise((void *)a, e - a, MADV_POPULATE_WRITE);
}

static char *dupn(const uint8_t *p, size_t n)
{
	char *s = malloc(n + 1);

	if (!s)
		return NULL;
	if (n)
		memcpy(s, p, n);
	s[n] = 0;
	return s;
}

/* ---------------------------------------------------------------- records */

static int rd_meta(struct rd *d, struct cur *c)
{
	struct rec *r = d->r;
	uint64_t kl;
	char *k, *v;

	if (!cur_varint(c, &kl) || kl > (uint64_t)(c->end - c->p))
		return rd_bad(d, "meta record: key longer than the record");
	if (ARRAY_GROW(r->meta, d->cap_meta, r->nmeta + 1) < 0)
		return -ENOMEM;
	k = dupn(c->p, kl);
	v = dupn(c->p + kl, (size_t)(c->end - c->p) - kl);
	if (!k || !v) {
		free(k);
		free(v);
		return -ENOMEM;
	}
	r->meta[r->nmeta++] = (struct rec_meta){ .key = k, .value = v };
	return 0;
}

static int rd_field(struct rd *d, struct cur *c)
{
	struct rec *r = d->r;
	uint8_t kind;
	char *name;
	uint8_t *kinds;

	if (d->frozen)
		return rd_bad(d, "field record after the first sample");
	if (!cur_u8(c, &kind) || c->p == c->end)
		return rd_bad(d, "field record: expected a kind and a name");
	if (r->nfields >= INT32_MAX)
		return rd_bad(d, "too many fields");
	if (r->nfields >= d->cap_fields) {
		size_t cap = d->cap_fields;

		if (ARRAY_GROW(r->fields, cap, r->nfields + 1) < 0)
			return -ENOMEM;
		kinds = realloc(d->kinds, cap);	/* parallel to fields: its room */
		if (!kinds)
			return -ENOMEM;
		d->kinds = kinds;
		d->cap_fields = cap;
	}
	name = dupn(c->p, (size_t)(c->end - c->p));
	if (!name)
		return -ENOMEM;
	d->kinds[r->nfields] = kind;
	r->fields[r->nfields++] = (struct rec_field){ .name = name, .kind = (enum rec_kind)kind };
	return 0;
}

static int rd_str(struct rd *d, struct cur *c)
{
	struct rec *r = d->r;
	uint64_t id;
	char *s;

	if (r->version_major < 2) {	/* 1.x: ids in order of appearance */
		if (r->nstrs >= UINT32_MAX)
			return rd_bad(d, "too many strings");
		if (ARRAY_GROW(r->strs, d->cap_strs, r->nstrs + 1) < 0)
			return -ENOMEM;
		s = dupn(c->p, (size_t)(c->end - c->p));
		if (!s)
			return -ENOMEM;
		r->strs[r->nstrs++] = s;
		return 0;
	}
	/* 2.x: the id is given, and a string is written again in every segment
	 * that uses it; ids defined only in damaged blocks stay holes (""). A
	 * string record takes at least 2 bytes, which bounds the holes. */
	if (!cur_varint(c, &id) || id == 0 || id >= UINT32_MAX ||
	    id > r->nstrs + d->len / 2)
		return rd_bad(d, "string record: bad id");
	s = dupn(c->p, (size_t)(c->end - c->p));
	if (!s)
		return -ENOMEM;
	if (id < r->nstrs && r->strs[id]) {
		bool same = !strcmp(r->strs[id], s) && strlen(s) == (size_t)(c->end - c->p);

		free(s);
		return same ? 0 : rd_bad(d, "string record: an id written again with other bytes");
	}
	while (r->nstrs <= id) {
		if (ARRAY_GROW(r->strs, d->cap_strs, r->nstrs + 1) < 0) {
			free(s);
			return -ENOMEM;
		}
		r->strs[r->nstrs++] = NULL;
	}
	r->strs[id] = s;
	return 0;
}

/* Puts the bit of field F in the active set when its state is not
 * samp_quiet, takes it out when it is. */
static inline void act_put(struct rd *d, size_t f)
{
	uint64_t bit = 1ull << (f % 64);

	if (samp_quiet(&d->ss.fs[f]))
		d->act[f / 64] &= ~bit;
	else
		d->act[f / 64] |= bit;
}

/* Starts the samples' coding state afresh (the first sample, a key) with
 * the period PERIOD: ss, and beside it the active set and the last row as
 * that state has them (no field active, every value 0, as samp_state_init
 * leaves them today). 0 or -ENOMEM. */
static int samp_restart(struct rd *d, uint64_t period)
{
	size_t nf = d->r->nfields;

	samp_state_release(&d->ss);
	if (samp_state_init(&d->ss, nf, d->kinds, period) < 0)
		return -ENOMEM;
	/* the fields are fixed from the first sample on: sized once */
	if (!d->act) {
		d->act = calloc((nf + 63) / 64 ? (nf + 63) / 64 : 1, sizeof(*d->act));
		d->last_row = calloc(nf ? nf : 1, sizeof(*d->last_row));
		if (!d->act || !d->last_row)
			return -ENOMEM;
	}
	for (size_t f = 0; f < nf; f++) {
		d->last_row[f] = (int64_t)d->ss.fs[f].p1;
		act_put(d, f);
	}
	return 0;
}

/* Debug builds (the suite's, the fuzz targets'): after every sample, the
 * active set must be exactly the fields whose state is not samp_quiet and
 * the last row every field's p1: what makes the decoder's rows those of a
 * pass over every field that copies a quiet one and decodes the others
 * (the decoder until the set was kept); aborts when not. */
static void act_check(const struct rd *d)
{
#ifndef NDEBUG
	for (size_t f = 0; f < d->ss.nf; f++) {
		bool on = d->act[f / 64] >> (f % 64) & 1;

		if (on == samp_quiet(&d->ss.fs[f]) || d->last_row[f] != (int64_t)d->ss.fs[f].p1)
			abort();
	}
#else
	(void)d;
#endif
}

/* A key: every piece of coding state restarts, as the writer's did. */
static int rd_key(struct rd *d, struct cur *c)
{
	uint64_t seg;

	if ((size_t)(c->end - c->p) < 4 || le32_get(c->p) != REC_KEY_SYNC)
		return rd_bad(d, "key record: bad sync word");
	c->p += 4;
	if (!cur_varint(c, &seg))
		return rd_bad(d, "key record: expected a key number");
	if (d->frozen && samp_restart(d, d->period) < 0)
		return -ENOMEM;
	d->f_n = d->f_tprev = d->f_dtprev = 0;
	d->f_tid = d->f_source = 0;
	d->th_restart = true;
	d->th_n = d->th_tprev = d->th_dtprev = 0;
	d->ev_tprev = 0;
	d->iv_tprev = 0;
	return 0;
}

/* Notes stamp T of a decoded sample, frame or snapshot. */
static void saw_time(struct rd *d, uint64_t t)
{
	if (t > d->t_last)
		d->t_last = t;
	if (!d->t_first_block || t < d->t_first_block)
		d->t_first_block = t;
}

static int freeze(struct rd *d)
{
	const char *p;

	if (d->frozen)
		return 0;
	/* The writer predicts with the period of its header block. */
	p = d->header_block ? rec_meta_get(d->r, "period_ns") : NULL;
	if (samp_restart(d, d->header_block ? rec_parse_u64(p) : d->period) < 0)
		return -ENOMEM;
	d->frozen = true;
	if (d->stream && d->stream->on_header)
		return d->stream->on_header(d->stream->ctx, d->r);
	return 0;
}

/* A bounded bit reader over the samples' bit stream (LSB first): the N
 * bits of ACC are the next ones (the bits above them zero), then the bytes
 * from P to END. */
struct bitr {
	const uint8_t *p, *end;
	uint64_t acc;
	unsigned n;
};

static bool br_get(struct bitr *b, unsigned nbits, uint64_t *ret)
{
	while (b->n < nbits) {
		if (b->p == b->end)
			return false;
		b->acc |= (uint64_t)*b->p++ << b->n;
		b->n += 8;
	}
	*ret = nbits ? b->acc & ((1ull << nbits) - 1) : 0;
	b->acc = nbits ? b->acc >> nbits : b->acc;
	b->n -= nbits;
	return true;
}

static bool br_get64(struct bitr *b, unsigned nbits, uint64_t *ret)
{
	uint64_t lo, hi;

	if (nbits <= 32)
		return br_get(b, nbits, ret);
	if (!br_get(b, 32, &lo) || !br_get(b, nbits - 32, &hi))
		return false;
	*ret = lo | hi << 32;
	return true;
}

/* Tops the accumulator up to at least 56 bits while input lasts: the
 * whole bytes that fit, from one 8-byte load where the input has 8 bytes
 * left, else a byte at a time. */
static inline __attribute__((always_inline)) void br_fill(struct bitr *b)
{
	if (b->end - b->p >= 8) {
		unsigned take = (63 - b->n) >> 3;	/* whole bytes that fit */

		if (take) {
			uint64_t w;

			/* le64_get's value in one load (its byte loop is not
			 * made one by the compiler) */
			memcpy(&w, b->p, sizeof(w));
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
			w = __builtin_bswap64(w);
#endif
			w &= UINT64_MAX >> (64 - 8 * take);

			b->acc |= w << b->n;
			b->p += take;
			b->n += 8 * take;
		}
		return;
	}
	while (b->n <= 56 - 8 && b->p < b->end) {
		b->acc |= (uint64_t)*b->p++ << b->n;
		b->n += 8;
	}
}

/* One bit (a dense field's "changed"), as br_get(B, 1, RET). */
static inline bool br_bit(struct bitr *b, uint64_t *ret)
{
	if (!b->n && b->p == b->end)
		return false;
	if (!b->n)
		br_fill(b);
	*ret = b->acc & 1;
	b->acc >>= 1;
	b->n--;
	return true;
}

/* br_rice's number when it is not all in the accumulator (a long one, or
 * the input's last bits), its unary part's Q counted there. */
static __attribute__((noinline)) bool br_rice_slow(struct bitr *b, unsigned k, unsigned q,
						    uint64_t *avg, uint64_t *ret)
{
	uint64_t u;

	if (q > b->n)
		q = b->n;
	if (q >= RICE_QMAX) {
		q = RICE_QMAX;
		b->acc >>= RICE_QMAX;
		b->n -= RICE_QMAX;
	} else if (q < b->n) {
		b->acc >>= q + 1;	/* the ones and the zero */
		b->n -= q + 1;
	} else {
		return false;		/* the input ends inside the unary part */
	}
	if (q < RICE_QMAX) {
		if (!br_get64(b, k, &u))
			return false;
		u |= (uint64_t)q << k;
	} else {
		uint64_t len;

		if (!br_get(b, 6, &len) || !br_get64(b, (unsigned)len + 1, &u))
			return false;
	}
	rice_adapt(avg, u);
	*ret = u;
	return true;
}

/* Reads a number in the adaptive Rice code whose running mean is *AVG. */
static inline __attribute__((always_inline)) bool br_rice(struct bitr *b, uint64_t *avg,
							  uint64_t *ret)
{
	unsigned k = rice_k(*avg), q;
	uint64_t u;

	br_fill(b);
	/* The unary part: count the one-bits (at most RICE_QMAX); the bits
	 * above n are zero, and n < 64. */
	q = (unsigned)__builtin_ctzll(~b->acc);
	if (q >= RICE_QMAX || q + 1 + k > b->n)
		return br_rice_slow(b, k, q, avg, ret);
	/* all of it in the accumulator: the ones, the zero, k bits */
	u = (b->acc >> (q + 1)) & ((1ull << k) - 1);
	u |= (uint64_t)q << k;
	b->acc >>= q + 1 + k;
	b->n -= q + 1 + k;
	rice_adapt(avg, u);
	*ret = u;
	return true;
}

/* ---------------------------------------------------------------- windows */

/* Appends sample T (ROW) to the group kept in R. */
static int win_keep(struct rd *d, const int64_t *row, uint64_t t)
{
	struct rec *r = d->r;
	size_t nf = r->nfields;

	if (r->nsamples == d->gcap) {
		size_t cap = d->gcap ? d->gcap * 2 : 256;
		uint64_t *tn;
		int64_t *v;

		if (nf && (d->expand_left < (uint64_t)cap * nf))
			return rd_bad(d, "samples record: more values than a file this size can "
					 "hold");
		/* times and values share one room (gcap), checked first
		 * against what the file can hold */
		tn = realloc(r->t_ns, cap * sizeof(*tn));
		if (!tn)
			return -ENOMEM;
		r->t_ns = tn;
		v = realloc(r->vals, cap * (nf ? nf : 1) * sizeof(*v));
		if (!v)
			return -ENOMEM;
		r->vals = v;
		d->gcap = cap;
	}
	memcpy(r->vals + r->nsamples * nf, row, nf * sizeof(*row));
	r->t_ns[r->nsamples++] = t;
	return 0;
}

/* Drops the intervals that end before T: no period from T on overlaps them
 * (the reader keeps them in file order, by their end). */
static void win_prune(struct rd *d, uint64_t t)
{
	struct rec *r = d->r;
	size_t k = 0;

	for (size_t i = 0; i < r->nintervals; i++)
		if (r->intervals[i].in_ns >= t)
			r->intervals[k++] = r->intervals[i];
	r->nintervals = k;
	d->iv_prune = 2 * k + 64;
}

int rd_win_flush(struct rd *d)
{
	const struct rec_stream *st = d->stream;
	int ret = 0;

	if (d->in_group && d->gw0 < d->wnext)
		ret = st->on_window(st->ctx, d->r, d->gw0, d->wnext);
	d->in_group = false;
	d->r->nsamples = 0;
	return ret;
}

/* A group over REC_WIN_ROWS samples (stalls back to back): its windows that
 * have their REC_WIN_AHEAD samples handed on, and the rows before what the
 * others (and a window yet to join) need dropped, so that the memory is a
 * few thousand rows however long the run of stalls. */
static int win_partial(struct rd *d)
{
	const struct rec_stream *st = d->stream;
	struct rec *r = d->r;
	size_t n = r->nsamples, nf = r->nfields, k = d->gw0, from, j;
	uint64_t done_t = r->t_ns[n - 1 - REC_WIN_AHEAD];
	int ret;

	d->gnext = n + REC_WIN_ROWS / 2;
	while (k < d->wnext && st->win[k].b_ns < done_t)
		k++;
	if (k == d->gw0)
		return 0;
	ret = st->on_window(st->ctx, r, d->gw0, k);
	if (ret < 0)
		return ret;
	d->gw0 = k;
	/* what the windows left need: REC_WIN_BACK before the first sample
	 * after the earliest start; a window yet to join, the last ones */
	from = n - (REC_WIN_BACK - 1);
	if (k < d->wnext) {
		for (j = 0; j < n && r->t_ns[j] <= st->win[k].a_ns; j++)
			;
		if (j < from)
			from = j >= REC_WIN_BACK - 1 ? j - (REC_WIN_BACK - 1) : 0;
	}
	memmove(r->t_ns, r->t_ns + from, (n - from) * sizeof(*r->t_ns));
	memmove(r->vals, r->vals + from * nf, (n - from) * nf * sizeof(*r->vals));
	r->nsamples = n - from;
	d->gnext = r->nsamples + REC_WIN_ROWS / 2;
	if (r->nsamples)
		win_prune(d, r->t_ns[0]);
	return 0;
}

/* Starts a group at sample I (in the ring) with the samples before it. */
static int win_start(struct rd *d, uint64_t i)
{
	size_t nf = d->r->nfields;
	uint64_t from = i >= REC_WIN_BACK - 1 ? i - (REC_WIN_BACK - 1) : 0;
	int ret = 0;

	d->in_group = true;
	d->gw0 = d->wnext;
	d->gb = 0;
	d->gnext = REC_WIN_ROWS;
	d->r->nsamples = 0;
	if (i < d->kseen)
		win_prune(d, d->kring_t[from % KRING]);
	for (uint64_t k = from; k <= i && k < d->kseen && ret == 0; k++)
		ret = win_keep(d, d->kring + (k % KRING) * nf, d->kring_t[k % KRING]);
	return ret;
}

/* Sample T just decoded into the ring: kept when a group wants it. */
static int win_sample(struct rd *d, uint64_t t)
{
	const struct rec_stream *st = d->stream;
	uint64_t i = d->kseen++;
	bool join = false;
	int ret;

	d->kring_t[i % KRING] = t;
	d->r->nsamples_read = (size_t)d->kseen;
	if (!d->in_group) {
		if (d->wnext >= st->nwin || t <= st->win[d->wnext].a_ns) {
			if (d->r->nintervals >= d->iv_prune)
				win_prune(d, d->kring_t[(i >= REC_WIN_BACK - 1 ? i - (REC_WIN_BACK - 1)
									: 0) % KRING]);
			return 0;
		}
		ret = win_start(d, i);
	} else {
		ret = win_keep(d, d->kring + (i % KRING) * d->r->nfields, t);
	}
	if (ret < 0)
		return ret;
	/* the windows this sample is the first after the start of */
	while (d->wnext < st->nwin && t > st->win[d->wnext].a_ns) {
		if (st->win[d->wnext].b_ns > d->gb)
			d->gb = st->win[d->wnext].b_ns;
		d->wnext++;
		join = true;
	}
	if (join)
		d->ahead_left = REC_WIN_AHEAD + 1;
	if (t > d->gb && --d->ahead_left == 0)
		return rd_win_flush(d);
	if (d->r->nsamples >= d->gnext && d->r->nsamples > REC_WIN_AHEAD + REC_WIN_BACK)
		return win_partial(d);
	return 0;
}

int rd_win_end(struct rd *d)
{
	const struct rec_stream *st = d->stream;
	int ret = rd_win_flush(d);

	/* windows past the last sample: the last samples, as the whole read
	 * would find them */
	if (ret == 0 && d->wnext < st->nwin) {
		ret = d->kseen ? win_start(d, d->kseen - 1) : 0;
		d->in_group = true;
		d->gw0 = d->wnext;
		d->wnext = st->nwin;
		if (ret == 0)
			ret = rd_win_flush(d);
	}
	return ret;
}

static int rd_samples(struct rd *d, struct cur *c)
{
	struct rec *r = d->r;
	struct samp_state *s = &d->ss;
	size_t nf = r->nfields, nw = (nf + 63) / 64;
	uint64_t *act;
	struct bitr b;
	uint64_t count, i;
	bool win = d->stream && d->stream->on_window;
	bool hand = d->stream && d->stream->on_sample && !win && d->ring_mask == SIZE_MAX;
	int ret;

	ret = freeze(d);
	if (ret < 0)
		return ret;
	act = d->act;
	/* A sample takes at least 2 bits. */
	if (!cur_varint(c, &count) || count > (uint64_t)(c->end - c->p) * 4)
		return rd_bad(d, "samples record: count larger than the record");
	if (d->skip_seg) {
		/* counted, not decoded (rec_stream's skip_samples): no window
		 * is pending, so none needs them nor the intervals so far */
		d->kseen += count;
		r->nsamples_read = (size_t)d->kseen;
		r->nintervals = 0;
		return 0;
	}
	if (nf && d->ring_mask == SIZE_MAX && !win && !hand && count > d->expand_left / nf)
		return rd_bad(d, "samples record: more values than a file this size can hold");
	if (d->ring_mask == SIZE_MAX && !win && !hand)
		d->expand_left -= count * nf;
	if ((win || hand) && !d->kring) {
		d->kring = calloc(KRING * (nf ? nf : 1), sizeof(*d->kring));
		if (!d->kring)
			return -ENOMEM;
	}
	if (d->ring_mask != SIZE_MAX && !r->vals) {
		/* streaming: the ring, once */
		r->vals = calloc((d->ring_mask + 1) * (nf ? nf : 1), sizeof(*r->vals));
		if (!r->vals)
			return -ENOMEM;
	}
	if (!win && !hand && r->nsamples + count > d->cap_samples) {
		size_t cap = d->cap_samples ? d->cap_samples : 256;

		/* The first time, room for every sample of the file, when the
		 * hint fits the cap (a lying hint costs only the cap). */
		if (!d->cap_samples && d->hint_samples > cap &&
		    (!nf || d->hint_samples <= (d->expand_left + count * nf) / nf))
			cap = (size_t)d->hint_samples;
		uint64_t *t;
		int64_t *v;

		while (cap < r->nsamples + count)
			cap *= 2;
		/* times and values share one room, sized from the hint */
		t = realloc(r->t_ns, cap * sizeof(*t));
		if (!t)
			return -ENOMEM;
		r->t_ns = t;
		if (d->ring_mask == SIZE_MAX) {
			v = realloc(r->vals, (nf ? cap * nf : 1) * sizeof(*v));
			if (!v)
				return -ENOMEM;
			prefault(v + r->nsamples * nf, (cap - r->nsamples) * nf * sizeof(*v));
			r->vals = v;
		}
		d->cap_samples = cap;
	}
	b = (struct bitr){ .p = c->p, .end = c->end };
	for (i = 0; i < count; i++) {
		int64_t *row = win ? d->kring + (d->kseen % KRING) * nf
			       : hand ? d->kring
				      : r->vals + (r->nsamples & d->ring_mask) * nf;
		uint64_t ntog, tz, last = 0, t;

		if (!br_rice(&b, &s->avg_t, &tz) || !br_rice(&b, &s->avg_ntog, &ntog))
			return rd_bad(d, "samples record: truncated sample");
		if (ntog > nf)
			return rd_bad(d, "samples record: more changes than fields");
		for (uint64_t k = 0; k < ntog; k++) {
			uint64_t gap, f;

			if (!br_rice(&b, &s->avg_gap, &gap) || gap >= nf - last)
				return rd_bad(d, "samples record: field index out of range");
			f = last + gap;
			if (s->fs[f].dense)
				return rd_bad(d, "samples record: a dense field toggled");
			s->fs[f].chg ^= 1;
			act_put(d, f);
			last = f + 1;
		}
		/* The fields whose state is not samp_quiet, in field order as
		 * the bits were written; a quiet one holds its last value, and
		 * its update would be a no-op, so it is not visited. A field
		 * joins the set by a toggle (above), leaves it by its update. */
		for (size_t w = 0; w < nw; w++) {
			for (uint64_t bits = act[w]; bits; bits &= bits - 1) {
				size_t f = w * 64 + (size_t)__builtin_ctzll(bits);
				struct samp_field *sf = &s->fs[f];
				uint64_t v = samp_pred(sf), e, flag = 1;

				if (sf->dense && !br_bit(&b, &flag))
					return rd_bad(d, "samples record: truncated value");
				if ((sf->dense && flag) || sf->chg) {
					if (!br_rice(&b, &sf->avg, &e))
						return rd_bad(d, "samples record: truncated value");
					v += (uint64_t)zz_dec(e + 1);
				}
				d->last_row[f] = (int64_t)v;
				samp_field_update(sf, v);
				if (samp_quiet(sf))
					act[w] &= ~(1ull << (f % 64));
			}
		}
		memcpy(row, d->last_row, nf * sizeof(*row));
		act_check(d);
		t = samp_tpred(s) + (uint64_t)zz_dec(tz);
		samp_time_update(s, t);
		saw_time(d, t);
		if (win) {
			ret = win_sample(d, t);
			if (ret >= 0 && d->stream->on_sample)	/* and handed on */
				ret = d->stream->on_sample(d->stream->ctx, r, t, row);
			if (ret < 0)
				return ret;
			continue;
		}
		if (hand) {	/* handed on, not kept */
			r->nsamples_read++;
			ret = d->stream->on_sample(d->stream->ctx, r, t, row);
			if (ret < 0)
				return ret;
			continue;
		}
		r->t_ns[r->nsamples++] = t;
		if (d->ring_mask != SIZE_MAX && d->stream->on_samples &&
		    r->nsamples - d->fed >= (d->ring_mask + 1) / 4) {
			d->fed = r->nsamples;
			ret = d->stream->on_samples(d->stream->ctx, r);
			if (ret < 0)
				return ret;
		}
	}
	if (b.p != b.end || b.n >= 8)
		return rd_bad(d, "samples record: bytes left after the last sample");
	return 0;
}

static int rd_frames(struct rd *d, struct cur *c)
{
	struct rec *r = d->r;
	uint64_t count, i;

	if (!cur_varint(c, &count) || count > (uint64_t)(c->end - c->p))
		return rd_bad(d, "frames record: count larger than the record");
	for (i = 0; i < count; i++) {
		uint64_t head, tz, tid = d->f_tid, src = d->f_source, t;

		if (!cur_varint(c, &head))
			return rd_bad(d, "frames record: truncated frame");
		switch (head & 3) {
		case 0:
			if (!d->f_n)
				return rd_bad(d, "frames record: first frame without a thread");
			tz = head >> 2;
			break;
		case 1:
			tz = head >> 2;
			if (!cur_varint(c, &tid) || !cur_varint(c, &src))
				return rd_bad(d, "frames record: truncated frame");
			break;
		case 2:
			if (head != 2 || !cur_varint(c, &tz) || !cur_varint(c, &tid) ||
			    !cur_varint(c, &src))
				return rd_bad(d, "frames record: bad frame head");
			break;
		default:
			return rd_bad(d, "frames record: bad frame head");
		}
		if (tid > UINT32_MAX || src > UINT32_MAX)
			return rd_bad(d, "frames record: thread or source out of range");
		t = d->f_tprev + d->f_dtprev + (uint64_t)zz_dec(tz);
		if (d->stream && d->stream->on_frame) {
			struct rec_frame f = { .t_ns = t, .tid = (uint32_t)tid,
					       .source = (uint32_t)src };
			int ret = d->stream->on_frame(d->stream->ctx, &f);

			if (ret < 0)
				return ret;
		}
		if (!d->stream || !d->stream->skip_frames) {
			if (ARRAY_GROW(r->frames, d->cap_frames, r->nframes + 1) < 0)
				return -ENOMEM;
			r->frames[r->nframes++] = (struct rec_frame){
				.t_ns = t, .tid = (uint32_t)tid, .source = (uint32_t)src
			};
		}
		d->f_dtprev = d->f_n ? t - d->f_tprev : 0;
		d->f_tprev = t;
		d->f_tid = (uint32_t)tid;
		d->f_source = (uint32_t)src;
		d->f_n++;
		saw_time(d, t);
	}
	if (c->p != c->end)
		return rd_bad(d, "frames record: bytes left after the last frame");
	return 0;
}

static int rd_clock(struct rd *d, struct cur *c)
{
	struct rec *r = d->r;
	uint64_t m, re, bt = 0;

	if (!cur_varint(c, &m) || !cur_varint(c, &re))
		return rd_bad(d, "clock record: expected two times");
	/* 2.1 adds CLOCK_BOOTTIME; bytes after the fields known are ignored */
	if (c->p < c->end && !cur_varint(c, &bt))
		bt = 0;
	if (ARRAY_GROW(r->clocks, d->cap_clocks, r->nclocks + 1) < 0)
		return -ENOMEM;
	r->clocks[r->nclocks++] = (struct rec_clock){ .mono_ns = m, .real_ns = re, .boot_ns = bt };
	return 0;
}

static int rd_threads_keep(struct rd *d, struct cur *c);

static int rd_threads(struct rd *d, struct cur *c)
{
	struct rec *r = d->r;
	int e = rd_threads_keep(d, c);

	if (e == 0 && d->stream && d->stream->on_threads)
		e = d->stream->on_threads(d->stream->ctx, r, &r->threads[r->nthreads - 1]);
	/* Not wanted, but decoded all the same, so that a bad one refuses the
	 * record as the whole read does (fuzz-rec found the streamed read
	 * taking what the whole one refused): only the last is kept, the base
	 * of the next (each edits the last); rec_parse_stream drops it. */
	if (e == 0 && d->stream && d->stream->skip_threads && r->nthreads > 1) {
		free(r->threads[0].th);
		r->threads[0] = r->threads[1];
		r->nthreads = 1;
	}
	return e;
}

static int rd_threads_keep(struct rd *d, struct cur *c)
{
	struct rec *r = d->r;
	const struct rec_threads *prev =
		r->nthreads && !d->th_restart ? &r->threads[r->nthreads - 1] : NULL;
	size_t nprev = prev ? prev->n : 0, cur = 0, j = 0;
	struct rec_thread *th = NULL;
	uint64_t tz, n, t;

	if (!cur_varint(c, &tz) || !cur_varint(c, &n))
		return rd_bad(d, "threads record: truncated head");
	/* Every entry costs a byte unless copied from the previous snapshot. */
	if (n > nprev + (uint64_t)(c->end - c->p))
		return rd_bad(d, "threads record: more threads than the record holds");
	if (n > d->expand_left)
		return rd_bad(d, "threads record: more entries than a file this size can hold");
	d->expand_left -= n;
	if (ARRAY_GROW(r->threads, d->cap_threads, r->nthreads + 1) < 0)
		return -ENOMEM;
	prev = r->nthreads && !d->th_restart ? &r->threads[r->nthreads - 1] : NULL;
	if (n) {
		th = calloc(n, sizeof(*th));
		if (!th)
			return -ENOMEM;
	}
	while (cur < n) {
		uint64_t run, tok, dtid, v;
		struct rec_thread base = { 0 };

		if (!cur_varint(c, &run) || run > n - cur || run > nprev - j)
			goto bad_entry;
		if (run)
			memcpy(th + cur, prev->th + j, run * sizeof(*th));
		cur += run;
		j += run;
		if (cur == n)
			break;
		if (!cur_varint(c, &tok) || (tok >> 4) > nprev - j)
			goto bad_entry;
		j += tok >> 4;
		if (tok & TH_NEW) {
			base.tid = cur ? th[cur - 1].tid : 0;
		} else {
			if (j >= nprev)
				goto bad_entry;
			base = prev->th[j++];
		}
		if (!cur_varint(c, &dtid))
			goto bad_entry;
		th[cur].tid = (uint32_t)(base.tid + (uint64_t)zz_dec(dtid));
		th[cur].name = base.name;
		th[cur].cpu = base.cpu;
		th[cur].cpu_ns = base.cpu_ns;
		if (tok & TH_NAME) {
			if (!cur_varint(c, &v) || v > UINT32_MAX)
				goto bad_entry;
			th[cur].name = (uint32_t)v;
		}
		if (tok & TH_CPU) {
			if (!cur_varint(c, &v))
				goto bad_entry;
			th[cur].cpu = (int32_t)(uint32_t)((uint64_t)(int64_t)base.cpu +
							   (uint64_t)zz_dec(v));
		}
		if (tok & TH_CPUNS) {
			if (!cur_varint(c, &v))
				goto bad_entry;
			th[cur].cpu_ns = base.cpu_ns + (uint64_t)zz_dec(v);
		}
		cur++;
	}
	if (c->p != c->end)
		goto bad_entry;
	t = d->th_tprev + d->th_dtprev + (uint64_t)zz_dec(tz);
	d->th_dtprev = d->th_n ? t - d->th_tprev : 0;
	d->th_tprev = t;
	d->th_n++;
	d->th_restart = false;
	r->threads[r->nthreads++] = (struct rec_threads){ .t_ns = t, .n = n, .th = th };
	return 0;
bad_entry:
	free(th);
	return rd_bad(d, "threads record: bad entry");
}

static int rd_event(struct rd *d, struct cur *c)
{
	struct rec *r = d->r;
	uint64_t tz, tid, k, x, t;
	char *ks, *xs;

	if (!cur_varint(c, &tz) || !cur_varint(c, &tid) || !cur_varint(c, &k) ||
	    !cur_varint(c, &x) || tid > UINT32_MAX)
		return rd_bad(d, "event record: expected time, thread, kind and text");
	if (ARRAY_GROW(r->events, d->cap_events, r->nevents + 1) < 0)
		return -ENOMEM;
	ks = strdup(rec_str(r, (int64_t)(k > INT64_MAX ? 0 : k)));
	xs = strdup(rec_str(r, (int64_t)(x > INT64_MAX ? 0 : x)));
	if (!ks || !xs) {
		free(ks);
		free(xs);
		return -ENOMEM;
	}
	t = d->ev_tprev + (uint64_t)zz_dec(tz);
	d->ev_tprev = t;
	r->events[r->nevents++] =
		(struct rec_event){ .t_ns = t, .tid = (uint32_t)tid, .kind = ks, .text = xs };
	return 0;
}

static int rd_interval(struct rd *d, struct cur *c)
{
	struct rec *r = d->r;
	uint64_t v[13];

	for (int i = 0; i < 13; i++)
		if (!cur_varint(c, &v[i]))
			return rd_bad(d, "interval record: expected 13 numbers");
	if (v[3] > UINT32_MAX || v[4] > UINT32_MAX || v[6] > 255 || v[7] > 255 || v[8] > 255 ||
	    v[10] > UINT32_MAX || v[11] > UINT32_MAX || v[12] > UINT32_MAX ||
	    zz_dec(v[5]) < INT32_MIN || zz_dec(v[5]) > INT32_MAX)
		return rd_bad(d, "interval record: a number out of its range");
	struct rec_interval one, *iv = &one;
	bool win = d->stream && d->stream->on_window;
	bool hand = d->stream && d->stream->on_interval && !win;

	if (!hand) {
		if (ARRAY_GROW(r->intervals, d->cap_intervals, r->nintervals + 1) < 0)
			return -ENOMEM;
		iv = &r->intervals[r->nintervals];
	}

	memset(iv, 0, sizeof(*iv));
	iv->out_ns = d->iv_tprev + (uint64_t)zz_dec(v[0]);
	iv->wake_ns = iv->out_ns + v[1];
	iv->in_ns = iv->wake_ns + v[2];
	if (iv->wake_ns < iv->out_ns || iv->in_ns < iv->wake_ns)
		return rd_bad(d, "interval record: times out of order");
	iv->tid = (uint32_t)v[3];
	iv->waker_tid = (uint32_t)v[4];
	iv->syscall = (int32_t)zz_dec(v[5]);
	iv->cls = (uint8_t)v[6];
	iv->state = (uint8_t)v[7];
	iv->flags = (uint8_t)v[8];
	iv->arg0 = v[9];
	iv->fd_target = (uint32_t)v[10];
	iv->waker_comm = (uint32_t)v[11];
	iv->stack = (uint32_t)v[12];
	d->iv_tprev = iv->out_ns;
	if (hand)	/* handed on, not kept */
		return d->stream->on_interval(d->stream->ctx, r, iv);
	if (d->skip_seg && !d->stream->on_interval)
		return 0;	/* no window pending needs it */
	r->nintervals++;
	if (win && d->stream->on_interval)	/* kept for the windows, and handed on */
		return d->stream->on_interval(d->stream->ctx, r, iv);
	return 0;
}

/* A span's numbers are absolute (spans are rare: no delta state to keep
 * across key blocks): start, duration, tid, name id. */
static int rd_apispan(struct rd *d, struct cur *c)
{
	struct rec *r = d->r;
	uint64_t v[4];

	for (int i = 0; i < 4; i++)
		if (!cur_varint(c, &v[i]))
			return rd_bad(d, "apispan record: expected 4 numbers");
	if (v[2] > UINT32_MAX || v[3] > UINT32_MAX || v[0] + v[1] < v[0])
		return rd_bad(d, "apispan record: a number out of its range");
	struct rec_apispan sp = {
		.start_ns = v[0], .dur_ns = v[1], .tid = (uint32_t)v[2], .name = (uint32_t)v[3]
	};

	bool win = d->stream && d->stream->on_window;

	if (d->stream && d->stream->on_apispan && !win)	/* handed on, not kept */
		return d->stream->on_apispan(d->stream->ctx, r, &sp);
	if (ARRAY_GROW(r->apispans, d->cap_apispans, r->napispans + 1) < 0)
		return -ENOMEM;
	r->apispans[r->napispans++] = sp;
	if (win && d->stream->on_apispan)	/* kept for the windows, and handed on */
		return d->stream->on_apispan(d->stream->ctx, r, &sp);
	return 0;
}

/* Adds the sample counts of the block's RT_SAMPLES records to the hint;
 * damage is left for rd_block to report. */
void rd_count_samples(struct rd *d, const uint8_t *p, size_t n)
{
	struct cur c = { p, p + n };

	while (c.p < c.end) {
		uint8_t type;
		uint64_t len, count;
		struct cur rc;

		if (!cur_u8(&c, &type) || !cur_varint(&c, &len) || len > (uint64_t)(c.end - c.p))
			return;
		rc = (struct cur){ c.p, c.p + len };
		c.p += len;
		if (type == RT_SAMPLES && cur_varint(&rc, &count) && count <= len * 8)
			d->hint_samples += count;
	}
}

/* Decodes the records of one whole block (payload P, N bytes, at file
 * offset OFF). */
int rd_block(struct rd *d, const uint8_t *p, size_t n, size_t off)
{
	struct cur c = { p, p + n };

	while (c.p < c.end) {
		struct cur rc;
		uint8_t type;
		uint64_t len;
		int ret = 0;

		d->off = off + (size_t)(c.p - p);
		if (!cur_u8(&c, &type) || !cur_varint(&c, &len) ||
		    len > (uint64_t)(c.end - c.p))
			return rd_bad(d, "record longer than its block");
		rc = (struct cur){ c.p, c.p + len };
		c.p += len;
		switch (type) {
		case RT_META:
			ret = rd_meta(d, &rc);
			break;
		case RT_FIELD:
			ret = rd_field(d, &rc);
			break;
		case RT_STR:
			ret = rd_str(d, &rc);
			break;
		case RT_SAMPLES:
			ret = rd_samples(d, &rc);
			break;
		case RT_FRAMES:
			ret = rd_frames(d, &rc);
			break;
		case RT_CLOCK:
			ret = rd_clock(d, &rc);
			break;
		case RT_THREADS:
			ret = rd_threads(d, &rc);
			break;
		case RT_EVENT:
			ret = rd_event(d, &rc);
			break;
		case RT_INTERVAL:
			ret = rd_interval(d, &rc);
			break;
		case RT_APISPAN:
			ret = rd_apispan(d, &rc);
			break;
		case RT_USTACK:
			ret = rd_ustack(d, &rc);
			break;
		case RT_END:
			d->r->complete = true;
			break;
		case RT_KEY:
			if (d->r->version_major < 2) {
				d->r->unknown_records++;
				break;
			}
			ret = rd_key(d, &rc);
			break;
		default:
			d->r->unknown_records++;
			break;
		}
		if (ret < 0)
			return ret;
	}
	return 0;
}
