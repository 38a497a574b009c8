// SPDX-License-Identifier: MIT
/*
 * reader.c: the record reader (rec.h): checks the file header, walks the
 * checksummed blocks, decodes their records into a struct rec.
 *
 * Assumes nothing of its input: every read is bounds-checked, every count
 * is checked against the bytes that are left before anything is allocated,
 * and the sample matrix and thread snapshots (which a few bytes can expand
 * into many values) are capped at REC_EXPAND values per input byte. The
 * blocks are taken in order while each is whole and its CRC32C matches.
 * At the first that is not, the reader looks for the next whole key block
 * (version 2: its KEY record's sync word, then its length and CRC): when
 * there is one, the bytes between are damage (counted, with the time span
 * they held) and the reading goes on there, with the coding state
 * restarted; when there is none, the bytes from there on are a torn tail (a
 * recorder killed mid-block leaves exactly that). A whole block whose
 * records do not decode is damage the CRC cannot explain: an error.
 * Speed: a first pass checks the blocks' CRCs and counts the samples, so
 * that the sample matrix is allocated once; the second decodes, a sample
 * costing one pass over the fields (a field that holds still is copied).
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
#include "rec/codec.h"
#include "rec/rec.h"

/* At most this many sample values and thread entries per input byte (plus
 * REC_EXPAND_MIN): a steady recording of 60 fields expands about 25 times. */
#define REC_EXPAND 256
#define REC_EXPAND_MIN (1u << 20)

struct rd {
	const uint8_t *base;
	size_t len;
	struct rec *r;
	struct strbuf *err;
	size_t off;		/* file offset of the record being decoded, for messages */
	bool header_block;
	bool frozen;		/* fields are fixed (the first sample was seen) */
	struct samp_state ss;
	uint8_t *kinds;
	uint64_t expand_left;	/* values and thread entries still allowed */
	uint64_t hint_samples;	/* samples in the whole blocks (from the first pass) */
	uint64_t period;	/* meta period_ns as the header block left it */
	size_t cap_samples, cap_frames, cap_threads, cap_clocks, cap_events, cap_strs,
		cap_meta, cap_fields;
	uint64_t f_n, f_tprev, f_dtprev;
	uint32_t f_tid, f_source;
	uint64_t th_tprev, th_dtprev, th_n;
	bool th_restart;	/* a key: the next snapshot edits an empty one */
	uint64_t ev_tprev;
	uint64_t t_last;	/* the latest stamp decoded so far (for damage spans) */
	uint64_t t_first_block;	/* the first stamp of the block being decoded, or 0 */
	size_t *blocks, nblocks, cap_blocks;	/* offsets of the whole blocks to decode */
	size_t cap_damage;
	const struct rec_stream *stream;	/* NULL: the whole matrix */
	size_t ring_mask;	/* streaming: rows - 1; SIZE_MAX: every row kept */
	uint64_t fed;		/* samples when on_samples last ran */
};

static int bad(struct rd *d, const char *what)
{
	if (d->err)
		sb_addf(d->err, "offset %zu: %s", d->off, what);
	return -EINVAL;
}

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
		return bad(d, "meta record: key longer than the record");
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
		return bad(d, "field record after the first sample");
	if (!cur_u8(c, &kind) || c->p == c->end)
		return bad(d, "field record: expected a kind and a name");
	if (r->nfields >= INT32_MAX)
		return bad(d, "too many fields");
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
			return bad(d, "too many strings");
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
		return bad(d, "string record: bad id");
	s = dupn(c->p, (size_t)(c->end - c->p));
	if (!s)
		return -ENOMEM;
	if (id < r->nstrs && r->strs[id]) {
		bool same = !strcmp(r->strs[id], s) && strlen(s) == (size_t)(c->end - c->p);

		free(s);
		return same ? 0 : bad(d, "string record: an id written again with other bytes");
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

/* A key: every piece of coding state restarts, as the writer's did. */
static int rd_key(struct rd *d, struct cur *c)
{
	uint64_t seg;

	if ((size_t)(c->end - c->p) < 4 || le32_get(c->p) != REC_KEY_SYNC)
		return bad(d, "key record: bad sync word");
	c->p += 4;
	if (!cur_varint(c, &seg))
		return bad(d, "key record: expected a key number");
	if (d->frozen) {
		samp_state_release(&d->ss);
		if (samp_state_init(&d->ss, d->r->nfields, d->kinds, d->period) < 0)
			return -ENOMEM;
	}
	d->f_n = d->f_tprev = d->f_dtprev = 0;
	d->f_tid = d->f_source = 0;
	d->th_restart = true;
	d->th_n = d->th_tprev = d->th_dtprev = 0;
	d->ev_tprev = 0;
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
	if (samp_state_init(&d->ss, d->r->nfields, d->kinds,
			    d->header_block ? rec_parse_u64(p) : d->period) < 0)
		return -ENOMEM;
	d->frozen = true;
	if (d->stream && d->stream->on_header)
		return d->stream->on_header(d->stream->ctx, d->r);
	return 0;
}

/* A bounded bit reader over the samples' bit stream (LSB first). */
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

/* Tops the accumulator up to at least 32 bits while input lasts. */
static inline void br_fill(struct bitr *b)
{
	while (b->n <= 56 - 8 && b->p < b->end) {
		b->acc |= (uint64_t)*b->p++ << b->n;
		b->n += 8;
	}
}

/* Reads a number in the adaptive Rice code whose running mean is *AVG. */
static bool br_rice(struct bitr *b, uint64_t *avg, uint64_t *ret)
{
	unsigned k = rice_k(*avg), q;
	uint64_t u;

	br_fill(b);
	/* The unary part: count the one-bits (at most RICE_QMAX). */
	q = b->acc == UINT64_MAX ? 64 : (unsigned)__builtin_ctzll(~b->acc);
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

static int rd_samples(struct rd *d, struct cur *c)
{
	struct rec *r = d->r;
	struct samp_state *s = &d->ss;
	size_t nf = r->nfields;
	struct bitr b;
	uint64_t count, i;
	int ret;

	ret = freeze(d);
	if (ret < 0)
		return ret;
	/* A sample takes at least 2 bits. */
	if (!cur_varint(c, &count) || count > (uint64_t)(c->end - c->p) * 4)
		return bad(d, "samples record: count larger than the record");
	if (nf && d->ring_mask == SIZE_MAX && count > d->expand_left / nf)
		return bad(d, "samples record: more values than a file this size can hold");
	if (d->ring_mask == SIZE_MAX)
		d->expand_left -= count * nf;
	if (d->ring_mask != SIZE_MAX && !r->vals) {
		/* streaming: the ring, once */
		r->vals = calloc((d->ring_mask + 1) * (nf ? nf : 1), sizeof(*r->vals));
		if (!r->vals)
			return -ENOMEM;
	}
	if (r->nsamples + count > d->cap_samples) {
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
		int64_t *row = r->vals + (r->nsamples & d->ring_mask) * nf;
		uint64_t ntog, tz, last = 0, t;

		if (!br_rice(&b, &s->avg_t, &tz) || !br_rice(&b, &s->avg_ntog, &ntog))
			return bad(d, "samples record: truncated sample");
		if (ntog > nf)
			return bad(d, "samples record: more changes than fields");
		for (uint64_t k = 0; k < ntog; k++) {
			uint64_t gap, f;

			if (!br_rice(&b, &s->avg_gap, &gap) || gap >= nf - last)
				return bad(d, "samples record: field index out of range");
			f = last + gap;
			if (s->fs[f].dense)
				return bad(d, "samples record: a dense field toggled");
			s->fs[f].chg ^= 1;
			last = f + 1;
		}
		for (size_t f = 0; f < nf; f++) {
			struct samp_field *sf = &s->fs[f];
			uint64_t v, e, flag = 1;

			if (samp_quiet(sf)) {
				row[f] = (int64_t)sf->p1;
				continue;
			}
			v = samp_pred(sf);
			if (sf->dense && !br_get(&b, 1, &flag))
				return bad(d, "samples record: truncated value");
			if ((sf->dense && flag) || sf->chg) {
				if (!br_rice(&b, &sf->avg, &e))
					return bad(d, "samples record: truncated value");
				v += (uint64_t)zz_dec(e + 1);
			}
			row[f] = (int64_t)v;
			samp_field_update(sf, v);
		}
		t = samp_tpred(s) + (uint64_t)zz_dec(tz);
		r->t_ns[r->nsamples++] = t;
		samp_time_update(s, t);
		saw_time(d, t);
		if (d->ring_mask != SIZE_MAX && d->stream->on_samples &&
		    r->nsamples - d->fed >= (d->ring_mask + 1) / 4) {
			d->fed = r->nsamples;
			ret = d->stream->on_samples(d->stream->ctx, r);
			if (ret < 0)
				return ret;
		}
	}
	if (b.p != b.end || b.n >= 8)
		return bad(d, "samples record: bytes left after the last sample");
	return 0;
}

static int rd_frames(struct rd *d, struct cur *c)
{
	struct rec *r = d->r;
	uint64_t count, i;

	if (!cur_varint(c, &count) || count > (uint64_t)(c->end - c->p))
		return bad(d, "frames record: count larger than the record");
	for (i = 0; i < count; i++) {
		uint64_t head, tz, tid = d->f_tid, src = d->f_source, t;

		if (!cur_varint(c, &head))
			return bad(d, "frames record: truncated frame");
		switch (head & 3) {
		case 0:
			if (!d->f_n)
				return bad(d, "frames record: first frame without a thread");
			tz = head >> 2;
			break;
		case 1:
			tz = head >> 2;
			if (!cur_varint(c, &tid) || !cur_varint(c, &src))
				return bad(d, "frames record: truncated frame");
			break;
		case 2:
			if (head != 2 || !cur_varint(c, &tz) || !cur_varint(c, &tid) ||
			    !cur_varint(c, &src))
				return bad(d, "frames record: bad frame head");
			break;
		default:
			return bad(d, "frames record: bad frame head");
		}
		if (tid > UINT32_MAX || src > UINT32_MAX)
			return bad(d, "frames record: thread or source out of range");
		if (ARRAY_GROW(r->frames, d->cap_frames, r->nframes + 1) < 0)
			return -ENOMEM;
		t = d->f_tprev + d->f_dtprev + (uint64_t)zz_dec(tz);
		r->frames[r->nframes++] =
			(struct rec_frame){ .t_ns = t, .tid = (uint32_t)tid, .source = (uint32_t)src };
		d->f_dtprev = d->f_n ? t - d->f_tprev : 0;
		d->f_tprev = t;
		d->f_tid = (uint32_t)tid;
		d->f_source = (uint32_t)src;
		d->f_n++;
		saw_time(d, t);
	}
	if (c->p != c->end)
		return bad(d, "frames record: bytes left after the last frame");
	return 0;
}

static int rd_clock(struct rd *d, struct cur *c)
{
	struct rec *r = d->r;
	uint64_t m, re;

	if (!cur_varint(c, &m) || !cur_varint(c, &re))
		return bad(d, "clock record: expected two times");
	if (ARRAY_GROW(r->clocks, d->cap_clocks, r->nclocks + 1) < 0)
		return -ENOMEM;
	r->clocks[r->nclocks++] = (struct rec_clock){ .mono_ns = m, .real_ns = re };
	return 0;
}

static int rd_threads_keep(struct rd *d, struct cur *c);

static int rd_threads(struct rd *d, struct cur *c)
{
	if (d->stream && d->stream->skip_threads)
		return 0;	/* not wanted: not decoded (each edits the last kept) */
	return rd_threads_keep(d, c);
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
		return bad(d, "threads record: truncated head");
	/* Every entry costs a byte unless copied from the previous snapshot. */
	if (n > nprev + (uint64_t)(c->end - c->p))
		return bad(d, "threads record: more threads than the record holds");
	if (n > d->expand_left)
		return bad(d, "threads record: more entries than a file this size can hold");
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
	return bad(d, "threads record: bad entry");
}

static int rd_event(struct rd *d, struct cur *c)
{
	struct rec *r = d->r;
	uint64_t tz, tid, k, x, t;
	char *ks, *xs;

	if (!cur_varint(c, &tz) || !cur_varint(c, &tid) || !cur_varint(c, &k) ||
	    !cur_varint(c, &x) || tid > UINT32_MAX)
		return bad(d, "event record: expected time, thread, kind and text");
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

/* Adds the sample counts of the block's RT_SAMPLES records to the hint;
 * damage is left for rd_block to report. */
static void count_samples(struct rd *d, const uint8_t *p, size_t n)
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
static int rd_block(struct rd *d, const uint8_t *p, size_t n, size_t off)
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
			return bad(d, "record longer than its block");
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

/* ---------------------------------------------------------------- file */

/* Whether a whole block (length within the file, CRC32C right) starts at
 * OFF; its payload length into *RET_N. */
static bool block_whole(const struct rd *d, size_t off, uint32_t *ret_n)
{
	const uint8_t *p = d->base + off;
	size_t rest = d->len - off;
	uint32_t n, crc;

	if (rest < REC_BLOCK_HEADER)
		return false;
	n = le32_get(p);
	if (n > REC_BLOCK_MAX || n > rest - REC_BLOCK_HEADER)
		return false;
	crc = rec_crc32c(rec_crc32c(0, p, 4), p + REC_BLOCK_HEADER, n);
	if (crc != le32_get(p + 4))
		return false;
	*ret_n = n;
	return true;
}

/*
 * The offset of the first whole key block at or after FROM, or 0. A key
 * block's payload starts with the KEY record, type, a one-byte length and
 * the sync word, so candidates are found by the sync word (memmem) and only
 * they cost a CRC: a damaged region is crossed at memory speed.
 */
static size_t next_key_block(const struct rd *d, size_t from)
{
	static const uint8_t sync[4] = { REC_KEY_SYNC & 0xff, REC_KEY_SYNC >> 8 & 0xff,
					 REC_KEY_SYNC >> 16 & 0xff, REC_KEY_SYNC >> 24 };
	size_t at = from + REC_BLOCK_HEADER + 2;	/* where a candidate's sync would be */

	while (at + 4 <= d->len) {
		const uint8_t *q = memmem(d->base + at, d->len - at, sync, 4);
		size_t s, off;
		uint32_t n;

		if (!q)
			return 0;
		s = (size_t)(q - d->base);
		off = s - REC_BLOCK_HEADER - 2;
		if (d->base[off + REC_BLOCK_HEADER] == RT_KEY &&
		    d->base[off + REC_BLOCK_HEADER + 1] >= REC_KEY_MIN &&
		    d->base[off + REC_BLOCK_HEADER + 1] < 0x80 && block_whole(d, off, &n))
			return off;
		at = s + 1;
	}
	return 0;
}

static int push_block(struct rd *d, size_t off)
{
	if (ARRAY_GROW(d->blocks, d->cap_blocks, d->nblocks + 1) < 0)
		return -ENOMEM;
	d->blocks[d->nblocks++] = off;
	return 0;
}

static int push_damage(struct rd *d, size_t off, size_t bytes)
{
	struct rec *r = d->r;

	if (ARRAY_GROW(r->damage, d->cap_damage, r->ndamage + 1) < 0)
		return -ENOMEM;
	r->damage[r->ndamage++] = (struct rec_damage){ .off = off, .bytes = bytes };
	r->damaged_bytes += bytes;
	return 0;
}

static int rd_header(struct rd *d)
{
	const uint8_t *b = d->base;
	uint64_t magic;
	unsigned major, minor;

	d->off = 0;
	if (d->len == 0)
		return bad(d, "empty file, not a stallscope record");
	if (d->len < 8) {
		if (memcmp(b, "SSREC\r\n\x1a", d->len))
			return bad(d, "not a stallscope record (bad magic)");
		return bad(d, "file ends inside the file header");
	}
	magic = le64_get(b);
	if (magic == REC_MAGIC_SWAPPED) {
		if (d->err)
			sb_addf(d->err, "offset 0: record written big-endian, which this "
					"reader does not read");
		return -EPROTONOSUPPORT;
	}
	if (magic != REC_MAGIC)
		return bad(d, "not a stallscope record (bad magic)");
	if (d->len < REC_FILE_HEADER)
		return bad(d, "file ends inside the file header");
	major = le16_get(b + 8);
	minor = le16_get(b + 10);
	if (major > REC_VERSION_MAJOR) {
		if (d->err)
			sb_addf(d->err,
				"offset 8: record version %u.%u is newer than this reader (%u.%u); "
				"use a newer stallscope",
				major, minor, REC_VERSION_MAJOR, REC_VERSION_MINOR);
		return -EPROTONOSUPPORT;
	}
	if (major < 1)
		return bad(d, "record version 0 does not exist");
	d->r->version_major = major;
	d->r->version_minor = minor;
	return 0;
}

int rec_parse(const void *buf, size_t len, struct rec **ret, struct strbuf *err)
{
	return rec_parse_stream(buf, len, NULL, ret, err);
}

int rec_parse_stream(const void *buf, size_t len, const struct rec_stream *st, struct rec **ret,
		     struct strbuf *err)
{
	struct rd d = { .base = buf, .len = len, .err = err, .stream = st, .ring_mask = SIZE_MAX };
	size_t off = REC_FILE_HEADER, end;
	int r;

	if (!ret || (!buf && len))
		return -EINVAL;
	if (st && st->ring_rows) {
		if (st->ring_rows & (st->ring_rows - 1) || st->ring_rows < 4)
			return -EINVAL;
		d.ring_mask = st->ring_rows - 1;
	}
	d.r = calloc(1, sizeof(*d.r));
	if (!d.r)
		return -ENOMEM;
	d.expand_left = (uint64_t)len * REC_EXPAND + REC_EXPAND_MIN;
	r = rd_header(&d);
	if (r < 0)
		goto fail;
	r = ARRAY_GROW(d.r->strs, d.cap_strs, 1);
	if (r < 0)
		goto fail;
	d.r->strs[0] = strdup("");
	if (!d.r->strs[0]) {
		r = -ENOMEM;
		goto fail;
	}
	d.r->nstrs = 1;
	/* First pass: the whole blocks (length and CRC), and how many
	 * samples they hold, so that the sample matrix is allocated once; past
	 * a block that is not whole, the next whole key block, if any. */
	for (bool first = true;; first = false) {
		size_t rest = len - off, next;
		uint32_t n;

		if (!rest)
			break;
		if (block_whole(&d, off, &n)) {
			r = push_block(&d, off);
			if (r < 0)
				goto fail;
			count_samples(&d, d.base + off + REC_BLOCK_HEADER, n);
			off += REC_BLOCK_HEADER + n;
			continue;
		}
		if (first) {
			d.off = off;
			r = bad(&d, "the header block is torn or damaged");
			goto fail;
		}
		next = d.r->version_major >= 2 ? next_key_block(&d, off + 1) : 0;
		if (!next) {
			d.r->torn_bytes = rest;
			break;
		}
		r = push_damage(&d, off, next - off);
		if (r < 0)
			goto fail;
		off = next;
	}
	end = off;
	for (size_t b = 0, k = 0; b < d.nblocks; b++) {
		size_t boff = d.blocks[b];
		uint32_t n = le32_get(d.base + boff);
		struct rec_damage *dm = k < d.r->ndamage && d.r->damage[k].off + d.r->damage[k].bytes
							      == boff ? &d.r->damage[k] : NULL;

		d.header_block = boff == REC_FILE_HEADER;
		if (dm)
			dm->t_before_ns = d.t_last;
		d.t_first_block = 0;
		r = rd_block(&d, d.base + boff + REC_BLOCK_HEADER, n, boff + REC_BLOCK_HEADER);
		if (r < 0)
			goto fail;
		if (dm) {
			dm->t_after_ns = d.t_first_block;
			k++;
		}
		if (d.header_block)
			d.period = rec_parse_u64(rec_meta_get(d.r, "period_ns"));
	}
	off = d.nblocks ? end : REC_FILE_HEADER;
	if (off == REC_FILE_HEADER) {
		d.off = off;
		r = bad(&d, "file ends before the header block");
		goto fail;
	}
	samp_state_release(&d.ss);
	free(d.kinds);
	free(d.blocks);
	*ret = d.r;
	return 0;
fail:
	if (r == -ENOMEM && err)
		sb_addf(err, "out of memory");
	samp_state_release(&d.ss);
	free(d.kinds);
	free(d.blocks);
	rec_free(d.r);
	return r;
}

int rec_read_file(const char *path, struct rec **ret, struct strbuf *err)
{
	return rec_read_file_stream(path, NULL, ret, err);
}

int rec_read_file_stream(const char *path, const struct rec_stream *rs, struct rec **ret,
			 struct strbuf *err)
{
	struct strbuf msg = STRBUF_INIT;
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0;
	struct stat st;
	int fd, r;

	if (!path || !ret)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		if (err)
			sb_addf(err, "cannot open '%s': %s", path, strerror(-r));
		return r;
	}
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0)
		cap = (size_t)st.st_size + 1;
	for (;;) {
		ssize_t k;

		if (len == cap) {
			size_t c = cap ? cap * 2 : 65536;
			uint8_t *p = c > cap ? realloc(buf, c) : NULL;

			if (!p) {
				r = -ENOMEM;
				goto out;
			}
			buf = p;
			cap = c;
		} else if (!buf) {
			buf = malloc(cap);
			if (!buf) {
				r = -ENOMEM;
				goto out;
			}
		}
		k = read(fd, buf + len, cap - len);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			if (err)
				sb_addf(err, "cannot read '%s': %s", path, strerror(-r));
			goto out_nomsg;
		}
		if (k == 0)
			break;
		len += (size_t)k;
	}
	r = rec_parse_stream(buf, len, rs, ret, &msg);
out:
	if (r < 0 && err) {
		if (r == -ENOMEM && !msg.len)
			sb_addf(err, "'%s': out of memory", path);
		else
			sb_addf(err, "'%s' %s", path, msg.buf);
	}
out_nomsg:
	sb_release(&msg);
	free(buf);
	close(fd);
	return r;
}
