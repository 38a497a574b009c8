// SPDX-License-Identifier: MIT
/*
 * writer.c: the record writer (rec.h): builds blocks of typed records in
 * memory and appends each, with its length and CRC32C, to the file in one
 * write when the caller flushes (the recorder: every second).
 *
 * Assumes one thread per writer and a sample rate of about 100 Hz: a sample
 * costs one pass over the declared fields, a string lookup one hash probe.
 * Samples and frames of a block are gathered into one RT_SAMPLES (a bit
 * stream of Rice codes, codec.h) and one RT_FRAMES record (no per-sample
 * type and length); everything else goes in call order.
 *
 * Key blocks: a data block that opens a new segment (every REC_KEY_EVERY-th)
 * starts with an RT_KEY record, and every piece of coding state (the sample
 * predictor, the previous frame, the previous thread snapshot, the previous
 * event's time) restarts there, so a reader can go on after a damaged block.
 * Strings are interned once (ids are file-wide) and written, as RT_STR with
 * their id, the first time a segment uses them: from sample values of str
 * fields, thread names and events, before the record that refers to them.
 * The first error is kept and returned by every later call, and by
 * rec_writer_close.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/hot.h"
#include "core/grow.h"
#include "rec/codec.h"
#include "rec/rec.h"
#include "rec/writer_int.h"

/* ---------------------------------------------------------------- buffers */

SS_HOT int ob_reserve(struct obuf *b, size_t extra)
{
	size_t need = b->len + extra;

	if (need < b->len)
		return -ENOMEM;
	return ARRAY_GROW(b->p, b->cap, need);
}

/* The callers reserve first; these never fail. */
void ob_varint(struct obuf *b, uint64_t v)
{
	b->len += varint_put(b->p + b->len, v);
}

void ob_bytes(struct obuf *b, const void *p, size_t n)
{
	if (n)
		memcpy(b->p + b->len, p, n);
	b->len += n;
}

int w_fail(struct rec_writer *w, int err)
{
	if (!w->err)
		w->err = err;
	return w->err;
}

/* Appends a record of TYPE with payload P (N bytes) to the main buffer. */
int w_record(struct rec_writer *w, uint8_t type, const void *p, size_t n)
{
	if (n > REC_BLOCK_MAX / 2)
		return -E2BIG;
	if (ob_reserve(&w->main, 1 + 10 + n) < 0)
		return w_fail(w, -ENOMEM);
	w->main.p[w->main.len++] = type;
	ob_varint(&w->main, n);
	ob_bytes(&w->main, p, n);
	return 0;
}

static size_t block_size(const struct rec_writer *w)
{
	return REC_BLOCK_HEADER + w->main.len + (w->block_samples ? 22 + w->samples.len : 0) +
	       (w->frames.len ? 21 + w->frames.len : 0);
}

static int write_all(int fd, const uint8_t *p, size_t n)
{
	while (n) {
		ssize_t k = write(fd, p, n);

		if (k < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (k == 0)
			return -EIO;
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

/* ---------------------------------------------------------------- bits */

/* Appends the NBITS (<= 32) low bits of V to the samples' bit stream; the
 * caller reserved the room. */
SS_HOT static void bw_put(struct rec_writer *w, uint64_t v, unsigned nbits)
{
	if (!nbits)
		return;
	w->bw_acc |= (v & ((1ull << nbits) - 1)) << w->bw_n;
	w->bw_n += nbits;
	while (w->bw_n >= 8) {
		w->samples.p[w->samples.len++] = (uint8_t)w->bw_acc;
		w->bw_acc >>= 8;
		w->bw_n -= 8;
	}
}

static void bw_put64(struct rec_writer *w, uint64_t v, unsigned nbits)
{
	if (nbits > 32) {
		bw_put(w, v, 32);
		bw_put(w, v >> 32, nbits - 32);
	} else {
		bw_put(w, v, nbits);
	}
}

/* Writes U with the adaptive Rice code whose running mean is *AVG. */
SS_HOT static void bw_rice(struct rec_writer *w, uint64_t u, uint64_t *avg)
{
	unsigned k = rice_k(*avg);
	uint64_t q = u >> k;

	if (q < RICE_QMAX) {
		bw_put(w, (1ull << q) - 1, (unsigned)q + 1);
		bw_put64(w, u, k);
	} else {
		unsigned len = 64u - (unsigned)__builtin_clzll(u);

		bw_put(w, (1ull << RICE_QMAX) - 1, RICE_QMAX);
		bw_put(w, len - 1, 6);
		bw_put64(w, u, len);
	}
	rice_adapt(avg, u);
}

/* Pads the bit stream to a whole byte (at the end of a block). */
static void bw_finish(struct rec_writer *w)
{
	if (w->bw_n)
		w->samples.p[w->samples.len++] = (uint8_t)w->bw_acc;
	w->bw_acc = 0;
	w->bw_n = 0;
}

/* Appends the batch record (TYPE, COUNT, then the coded bytes of B) to OUT. */
static void put_batch(struct obuf *out, uint8_t type, uint64_t count, const struct obuf *b)
{
	uint8_t tmp[10];
	size_t nc = varint_put(tmp, count);

	out->p[out->len++] = type;
	ob_varint(out, nc + b->len);
	ob_bytes(out, tmp, nc);
	ob_bytes(out, b->p, b->len);
}

/* Writes the block being filled; an empty one only when FORCE. */
static int flush_block(struct rec_writer *w, bool force)
{
	struct obuf *blk = &w->scratch;
	uint32_t crc;
	int r;

	if (w->err)
		return w->err;
	if (!force && !w->main.len && !w->block_samples && !w->frames.len)
		return 0;
	blk->len = 0;
	if (ob_reserve(blk, block_size(w)) < 0)
		return w_fail(w, -ENOMEM);
	bw_finish(w);
	blk->len = REC_BLOCK_HEADER;
	ob_bytes(blk, w->main.p, w->main.len);
	if (w->block_samples)
		put_batch(blk, RT_SAMPLES, w->block_samples, &w->samples);
	if (w->frames.len)
		put_batch(blk, RT_FRAMES, w->block_frames, &w->frames);
	le32_put(blk->p, (uint32_t)(blk->len - REC_BLOCK_HEADER));
	crc = rec_crc32c(0, blk->p, 4);
	crc = rec_crc32c(crc, blk->p + REC_BLOCK_HEADER, blk->len - REC_BLOCK_HEADER);
	le32_put(blk->p + 4, crc);
	r = write_all(w->fd, blk->p, blk->len);
	if (r < 0)
		return w_fail(w, r);
	w->written += blk->len;
	w->main.len = w->samples.len = w->frames.len = 0;
	w->block_samples = w->block_frames = 0;
	if (w->block_open) {
		w->block_open = false;
		w->data_blocks++;
	}
	return 0;
}

int rec_writer_flush(struct rec_writer *w)
{
	if (!w)
		return -EINVAL;
	if (!w->begun)
		return w->err;
	return flush_block(w, false);
}

/* Ends the block when it has grown past REC_BLOCK_AUTOFLUSH. */
SS_HOT int maybe_flush(struct rec_writer *w)
{
	if (block_size(w) >= REC_BLOCK_AUTOFLUSH)
		return rec_writer_flush(w);
	return 0;
}

static int open_block(struct rec_writer *w);

/* ---------------------------------------------------------------- setup */

int rec_writer_new_fd(int fd, struct rec_writer **ret)
{
	struct rec_writer *w;

	if (fd < 0 || !ret) {
		if (fd >= 0)
			close(fd);
		return -EINVAL;
	}
	w = calloc(1, sizeof(*w));
	if (!w) {
		close(fd);
		return -ENOMEM;
	}
	w->key_every = REC_KEY_EVERY;
	w->fd = fd;
	*ret = w;
	return 0;
}

int rec_writer_new(const char *path, struct rec_writer **ret)
{
	int fd;

	if (!path || !ret)
		return -EINVAL;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	return rec_writer_new_fd(fd, ret);
}

int rec_writer_meta(struct rec_writer *w, const char *key, const char *value)
{
	size_t kl, vl;
	int r;

	if (!w || !key || !*key)
		return -EINVAL;
	if (w->err)
		return w->err;
	value = value ? value : "";
	kl = strlen(key);
	vl = strlen(value);
	if (kl > STR_MAX || vl > STR_MAX)
		return -E2BIG;
	if (open_block(w) < 0)
		return w->err;
	w->scratch.len = 0;
	if (ob_reserve(&w->scratch, 10 + kl + vl) < 0)
		return w_fail(w, -ENOMEM);
	ob_varint(&w->scratch, kl);
	ob_bytes(&w->scratch, key, kl);
	ob_bytes(&w->scratch, value, vl);
	r = w_record(w, RT_META, w->scratch.p, w->scratch.len);
	if (r < 0)
		return r;
	if (!strcmp(key, "period_ns") && !w->begun)
		w->period = rec_parse_u64(value);
	return w->begun ? maybe_flush(w) : 0;
}

int rec_writer_field(struct rec_writer *w, const char *name, enum rec_kind kind)
{
	size_t nl;
	char **names;
	uint8_t *kinds, k = (uint8_t)kind;
	int r;

	if (!w || !name || !*name || (kind != REC_INT && kind != REC_STR))
		return -EINVAL;
	if (w->begun)
		return -EINVAL;
	if (w->err)
		return w->err;
	nl = strlen(name);
	if (nl > STR_MAX)
		return -E2BIG;
	if (w->nfields >= INT32_MAX)
		return -E2BIG;
	for (size_t i = 0; i < w->nfields; i++)
		if (!strcmp(w->field_names[i], name))
			return -EEXIST;
	/* names and kinds, parallel, grown by one: a record has tens of
	 * fields, each added once at the start */
	names = realloc(w->field_names, (w->nfields + 1) * sizeof(*names));
	if (!names)
		return w_fail(w, -ENOMEM);
	w->field_names = names;
	kinds = realloc(w->kinds, w->nfields + 1);
	if (!kinds)
		return w_fail(w, -ENOMEM);
	w->kinds = kinds;
	names[w->nfields] = strdup(name);
	if (!names[w->nfields])
		return w_fail(w, -ENOMEM);
	kinds[w->nfields] = k;
	w->nfields++;
	w->scratch.len = 0;
	if (ob_reserve(&w->scratch, 1 + nl) < 0)
		return w_fail(w, -ENOMEM);
	ob_bytes(&w->scratch, &k, 1);
	ob_bytes(&w->scratch, name, nl);
	r = w_record(w, RT_FIELD, w->scratch.p, w->scratch.len);
	if (r < 0)
		return r;
	return (int)(w->nfields - 1);
}

int rec_writer_key_every(struct rec_writer *w, unsigned n)
{
	if (!w || w->begun || n == 0)
		return -EINVAL;
	w->key_every = n;
	return 0;
}

int rec_writer_begin(struct rec_writer *w)
{
	uint8_t hdr[REC_FILE_HEADER];
	size_t n = w ? (w->nfields ? w->nfields : 1) : 0;
	int r;

	if (!w || w->begun)
		return -EINVAL;
	if (w->err)
		return w->err;
	if (samp_state_init(&w->ss, w->nfields, w->kinds, w->period) < 0)
		return w_fail(w, -ENOMEM);
	w->errs = calloc(n, sizeof(*w->errs));
	w->newchg = calloc(n, 1);
	w->act = calloc(n, sizeof(*w->act));
	w->str_fields = calloc(n, sizeof(*w->str_fields));
	if (!w->errs || !w->newchg || !w->act || !w->str_fields)
		return w_fail(w, -ENOMEM);
	for (size_t f = 0; f < w->nfields; f++)
		if (w->kinds[f] == REC_STR)
			w->str_fields[w->nstr_fields++] = f;
	le64_put(hdr, REC_MAGIC);
	le16_put(hdr + 8, REC_VERSION_MAJOR);
	le16_put(hdr + 10, REC_VERSION_MINOR);
	le32_put(hdr + 12, 0);
	r = write_all(w->fd, hdr, sizeof(hdr));
	if (r < 0)
		return w_fail(w, r);
	w->written += sizeof(hdr);
	w->begun = true;
	/* The header block: meta and fields, alone (even when empty), so
	 * that it is whole on disk before the first sample. */
	return flush_block(w, true);
}

/* ---------------------------------------------------------------- keys */

/* Starts a segment: the KEY record, and every piece of coding state as it
 * was before the first data block. */
static int start_segment(struct rec_writer *w)
{
	uint8_t p[4 + 10];
	size_t n;

	samp_state_release(&w->ss);
	if (samp_state_init(&w->ss, w->nfields, w->kinds, w->period) < 0)
		return w_fail(w, -ENOMEM);
	w->act_ok = false;
	w->f_n = w->f_tprev = w->f_dtprev = 0;
	w->f_tid = w->f_source = 0;
	w->th_nprev = 0;
	w->th_n = w->th_tprev = w->th_dtprev = 0;
	w->ev_tprev = 0;
	w->iv_tprev = 0;
	w->seg++;
	le32_put(p, REC_KEY_SYNC);
	n = 4 + varint_put(p + 4, w->seg);
	return w_record(w, RT_KEY, p, n);
}

/* Called before anything goes into a data block: the first thing in a
 * block that opens a segment is its KEY record. */
static int open_block(struct rec_writer *w)
{
	if (!w->begun || w->block_open)
		return w->err;
	w->block_open = true;
	if (w->data_blocks % w->key_every == 0)
		return start_segment(w);
	return 0;
}

/* The start of every data record: the first error of the file, -EINVAL
 * before rec_writer_begin, else the block opened (its KEY when it starts a
 * segment). 0 or a negative errno. */
SS_HOT int w_enter(struct rec_writer *w)
{
	if (w->err)
		return w->err;
	if (!w->begun)
		return -EINVAL;
	return open_block(w) < 0 ? w->err : 0;
}

/* Writes string ID (RT_STR: its id and bytes) unless this segment did. */
SS_HOT int str_ensure(struct rec_writer *w, uint64_t id)
{
	uint8_t p[10];
	size_t n, len;

	if (!id || id > w->nstrs || w->str_seg[id] == w->seg)
		return 0;
	len = strlen(w->str_of[id]);
	n = varint_put(p, id);
	if (ob_reserve(&w->main, 1 + 10 + n + len) < 0)
		return w_fail(w, -ENOMEM);
	if (n + len > REC_BLOCK_MAX / 2)
		return -E2BIG;
	w->main.p[w->main.len++] = RT_STR;
	ob_varint(&w->main, n + len);
	ob_bytes(&w->main, p, n);
	ob_bytes(&w->main, w->str_of[id], len);
	w->str_seg[id] = w->seg;
	return 0;
}

/* ---------------------------------------------------------------- strings */

static uint32_t str_hash(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 16777619u;
	return h;
}

static int intern_grow(struct rec_writer *w)
{
	size_t n = w->nslots ? w->nslots * 2 : 256;
	struct intern_slot *s = calloc(n, sizeof(*s));

	if (!s)
		return -ENOMEM;
	for (size_t i = 0; i < w->nslots; i++) {
		size_t j;

		if (!w->slots[i].s)
			continue;
		for (j = w->slots[i].hash & (n - 1); s[j].s; j = (j + 1) & (n - 1))
			;
		s[j] = w->slots[i];
	}
	free(w->slots);
	w->slots = s;
	w->nslots = n;
	return 0;
}

uint32_t rec_writer_intern(struct rec_writer *w, const char *s)
{
	uint32_t h;
	size_t j, len;
	char *copy;

	if (!w || !s || !*s || w->err)
		return 0;
	len = strlen(s);
	if (len > STR_MAX || w->nstrs >= UINT32_MAX - 1)
		return 0;
	if ((w->nstrs + 1) * 2 > w->nslots && intern_grow(w) < 0) {
		w_fail(w, -ENOMEM);
		return 0;
	}
	h = str_hash(s);
	for (j = h & (w->nslots - 1); w->slots[j].s; j = (j + 1) & (w->nslots - 1))
		if (w->slots[j].hash == h && !strcmp(w->slots[j].s, s))
			return w->slots[j].id;
	if (w->nstrs + 2 > w->str_cap) {
		size_t cap = w->str_cap ? w->str_cap * 2 : 256;
		/* two arrays sharing one room (str_cap) */
		const char **so = realloc(w->str_of, cap * sizeof(*so));
		uint32_t *sg = so ? realloc(w->str_seg, cap * sizeof(*sg)) : NULL;

		if (so)
			w->str_of = so;
		if (!sg) {
			w_fail(w, -ENOMEM);
			return 0;
		}
		w->str_seg = sg;
		w->str_cap = cap;
	}
	copy = strdup(s);
	if (!copy || open_block(w) < 0) {
		free(copy);
		w_fail(w, -ENOMEM);
		return 0;
	}
	w->slots[j] = (struct intern_slot){ .s = copy, .id = (uint32_t)++w->nstrs, .hash = h };
	w->str_of[w->nstrs] = copy;
	w->str_seg[w->nstrs] = UINT32_MAX;	/* not written yet */
	if (str_ensure(w, w->nstrs) < 0)
		return 0;
	return w->slots[j].id;
}

/* ---------------------------------------------------------------- records */

SS_HOT int rec_writer_sample(struct rec_writer *w, uint64_t t_ns, const int64_t *vals)
{
	struct samp_state *s;
	uint64_t ntog = 0;
	size_t f, last;
	int r;

	if (!w || (!vals && w->nfields))
		return -EINVAL;
	if ((r = w_enter(w)) < 0)
		return r;
	for (f = 0; f < w->nstr_fields; f++)
		if (str_ensure(w, (uint64_t)vals[w->str_fields[f]]) < 0)
			return w->err ? w->err : -E2BIG;
	s = &w->ss;
	for (f = 0; f < s->nf; f++) {
		uint64_t e = (uint64_t)vals[f] - samp_pred(&s->fs[f]);

		w->errs[f] = e;
		w->newchg[f] = !s->fs[f].dense && e != 0;
		ntog += w->newchg[f] != s->fs[f].chg;
	}
	/* A Rice code takes at most 24 + 6 + 64 bits. */
	if (ob_reserve(&w->samples, 16 * (3 + ntog + s->nf)) < 0)
		return w_fail(w, -ENOMEM);
	bw_rice(w, zz_enc((int64_t)(t_ns - samp_tpred(s))), &s->avg_t);
	bw_rice(w, ntog, &s->avg_ntog);
	for (f = 0, last = 0; f < s->nf; f++) {
		if (w->newchg[f] == s->fs[f].chg)
			continue;
		bw_rice(w, f - last, &s->avg_gap);
		last = f + 1;
	}
	for (f = 0; f < s->nf; f++) {
		struct samp_field *sf = &s->fs[f];

		if (sf->dense) {
			bw_put(w, w->errs[f] != 0, 1);
			if (w->errs[f])
				bw_rice(w, zz_enc((int64_t)w->errs[f]) - 1, &sf->avg);
		} else if (w->newchg[f]) {
			bw_rice(w, zz_enc((int64_t)w->errs[f]) - 1, &sf->avg);
		}
		sf->chg = w->newchg[f];
	}
	samp_state_update(s, t_ns, vals);
	w->nact = 0;
	for (f = 0; f < s->nf; f++)
		if (!samp_quiet(&s->fs[f]))
			w->act[w->nact++] = f;
	w->act_ok = true;
	w->block_samples++;
	w->nsamples++;
	return maybe_flush(w);
}

/*
 * rec_writer_sample for VALS equal to the last sample's (the caller knows:
 * sampler_same). The bits are rec_writer_sample's: a field whose state is
 * samp_quiet and whose value equals its last has an error of 0, no toggle,
 * no bit and a no-op update, so only the others (w->act) are coded, and a
 * repeat costs the cache lines of those few fields instead of every
 * field's (issue 31). Without that list (the first sample of a segment)
 * it is rec_writer_sample.
 */
SS_HOT int rec_writer_sample_same(struct rec_writer *w, uint64_t t_ns, const int64_t *vals)
{
	struct samp_state *s;
	uint64_t ntog = 0;
	size_t i, f, last, n;
	int r;

	if (!w || (!vals && w->nfields))
		return -EINVAL;
	if ((r = w_enter(w)) < 0)
		return r;
	if (!w->act_ok)
		return rec_writer_sample(w, t_ns, vals);
	s = &w->ss;
	for (i = 0; i < w->nact; i++) {
		uint64_t e;

		f = w->act[i];
		e = (uint64_t)vals[f] - samp_pred(&s->fs[f]);
		w->errs[f] = e;
		w->newchg[f] = !s->fs[f].dense && e != 0;
		ntog += w->newchg[f] != s->fs[f].chg;
	}
	if (ob_reserve(&w->samples, 16 * (3 + ntog + w->nact)) < 0)
		return w_fail(w, -ENOMEM);
	bw_rice(w, zz_enc((int64_t)(t_ns - samp_tpred(s))), &s->avg_t);
	bw_rice(w, ntog, &s->avg_ntog);
	for (i = 0, last = 0; i < w->nact; i++) {
		f = w->act[i];
		if (w->newchg[f] == s->fs[f].chg)
			continue;
		bw_rice(w, f - last, &s->avg_gap);
		last = f + 1;
	}
	for (i = 0, n = 0; i < w->nact; i++) {
		struct samp_field *sf = &s->fs[w->act[i]];

		f = w->act[i];
		if (sf->dense) {
			bw_put(w, w->errs[f] != 0, 1);
			if (w->errs[f])
				bw_rice(w, zz_enc((int64_t)w->errs[f]) - 1, &sf->avg);
		} else if (w->newchg[f]) {
			bw_rice(w, zz_enc((int64_t)w->errs[f]) - 1, &sf->avg);
		}
		sf->chg = w->newchg[f];
		/* samp_state_update's, for this field */
		if (!(samp_quiet(sf) && (uint64_t)vals[f] == sf->p1))
			samp_field_update(sf, (uint64_t)vals[f]);
		if (!samp_quiet(sf))
			w->act[n++] = f;	/* a quiet field stays so while it holds */
	}
	w->nact = n;
	samp_time_update(s, t_ns);
	w->block_samples++;
	w->nsamples++;
	return maybe_flush(w);
}

int rec_writer_frame(struct rec_writer *w, const struct rec_frame *fr)
{
	struct obuf *b = &w->frames;
	uint64_t tz;
	bool same;
	int r;

	if (!w || !fr)
		return -EINVAL;
	if ((r = w_enter(w)) < 0)
		return r;
	if (ob_reserve(b, 40) < 0)
		return w_fail(w, -ENOMEM);
	tz = zz_enc((int64_t)(fr->t_ns - (w->f_tprev + w->f_dtprev)));
	same = w->f_n && fr->tid == w->f_tid && fr->source == w->f_source;
	if (tz < (1ull << 62)) {
		ob_varint(b, tz << 2 | (same ? 0 : 1));
	} else {
		ob_varint(b, 2);
		ob_varint(b, tz);
		same = false;
	}
	if (!same) {
		ob_varint(b, fr->tid);
		ob_varint(b, fr->source);
	}
	w->f_dtprev = w->f_n ? fr->t_ns - w->f_tprev : 0;
	w->f_tprev = fr->t_ns;
	w->f_tid = fr->tid;
	w->f_source = fr->source;
	w->f_n++;
	w->block_frames++;
	w->nframes++;
	return maybe_flush(w);
}

int rec_writer_clock(struct rec_writer *w, const struct rec_clock *c)
{
	uint8_t p[30];
	size_t n;
	int r;

	if (!w || !c)
		return -EINVAL;
	if ((r = w_enter(w)) < 0)
		return r;
	n = varint_put(p, c->mono_ns);
	n += varint_put(p + n, c->real_ns);
	if (c->boot_ns)	/* 2.1: a 2.0 reader ignores the bytes after the two */
		n += varint_put(p + n, c->boot_ns);
	r = w_record(w, RT_CLOCK, p, n);
	return r < 0 ? r : maybe_flush(w);
}

/* Where thread TID of the previous snapshot is, searching from J; -1 if not
 * within a window (a reordered list then costs bytes, never correctness). */
static long th_find(const struct rec_writer *w, size_t j, uint32_t tid)
{
	for (size_t k = j; k < w->th_nprev && k < j + 64; k++)
		if (w->th_prev[k].tid == tid)
			return (long)k;
	return -1;
}

static bool th_same(const struct rec_thread *a, const struct rec_thread *b)
{
	return a->tid == b->tid && a->name == b->name && a->cpu_ns == b->cpu_ns &&
	       a->cpu == b->cpu;
}

int rec_writer_threads(struct rec_writer *w, uint64_t t_ns, const struct rec_thread *th,
		       size_t n)
{
	struct obuf *b = &w->scratch;
	size_t i, j = 0;
	uint64_t run = 0, tz;
	int r;

	if (!w || (!th && n))
		return -EINVAL;
	if (w->err)
		return w->err;
	if (!w->begun)
		return -EINVAL;
	if (n > REC_BLOCK_MAX / 64)
		return -E2BIG;
	if (open_block(w) < 0)
		return w->err;
	for (i = 0; i < n; i++)
		if (str_ensure(w, th[i].name) < 0)
			return w->err ? w->err : -E2BIG;
	b->len = 0;
	if (ob_reserve(b, 30 + n * 50) < 0)
		return w_fail(w, -ENOMEM);
	tz = zz_enc((int64_t)(t_ns - (w->th_tprev + w->th_dtprev)));
	ob_varint(b, tz);
	ob_varint(b, n);
	for (i = 0; i < n; i++) {
		struct rec_thread base = { 0 };
		long k = th_find(w, j, th[i].tid);
		uint64_t flags = 0, drop = 0;

		if (k == (long)j && th_same(&w->th_prev[j], &th[i])) {
			run++;
			j++;
			continue;
		}
		ob_varint(b, run);
		run = 0;
		if (k >= 0) {
			drop = (uint64_t)k - j;
			j = (size_t)k;
			base = w->th_prev[j++];
		} else {
			flags |= TH_NEW;
			base.tid = i ? th[i - 1].tid : 0;
		}
		if (th[i].name != base.name)
			flags |= TH_NAME;
		if (th[i].cpu != base.cpu)
			flags |= TH_CPU;
		if (th[i].cpu_ns != base.cpu_ns)
			flags |= TH_CPUNS;
		ob_varint(b, drop << 4 | flags);
		ob_varint(b, zz_enc((int64_t)th[i].tid - (int64_t)base.tid));
		if (flags & TH_NAME)
			ob_varint(b, th[i].name);
		if (flags & TH_CPU)
			ob_varint(b, zz_enc((int64_t)th[i].cpu - (int64_t)base.cpu));
		if (flags & TH_CPUNS)
			ob_varint(b, zz_enc((int64_t)(th[i].cpu_ns - base.cpu_ns)));
	}
	if (run)
		ob_varint(b, run);
	r = w_record(w, RT_THREADS, b->p, b->len);
	if (r < 0)
		return r;
	if (ARRAY_GROW(w->th_prev, w->th_cap, n) < 0)
		return w_fail(w, -ENOMEM);
	if (n)
		memcpy(w->th_prev, th, n * sizeof(*th));
	w->th_nprev = n;
	w->th_dtprev = w->th_n ? t_ns - w->th_tprev : 0;
	w->th_tprev = t_ns;
	w->th_n++;
	return maybe_flush(w);
}

int rec_writer_event(struct rec_writer *w, uint64_t t_ns, uint32_t tid, const char *kind,
		     const char *text)
{
	uint8_t p[40];
	uint32_t k, x;
	size_t n;
	int r;

	if (!w || !kind || !*kind)
		return -EINVAL;
	if (w->err)
		return w->err;
	if (!w->begun)
		return -EINVAL;
	if (strlen(kind) > STR_MAX || (text && strlen(text) > STR_MAX))
		return -E2BIG;
	if (open_block(w) < 0)
		return w->err;
	k = rec_writer_intern(w, kind);
	x = rec_writer_intern(w, text);
	if (w->err)
		return w->err;
	if (str_ensure(w, k) < 0 || str_ensure(w, x) < 0)
		return w->err ? w->err : -E2BIG;
	n = varint_put(p, zz_enc((int64_t)(t_ns - w->ev_tprev)));
	n += varint_put(p + n, tid);
	n += varint_put(p + n, k);
	n += varint_put(p + n, x);
	r = w_record(w, RT_EVENT, p, n);
	if (r < 0)
		return r;
	w->ev_tprev = t_ns;
	return maybe_flush(w);
}

int rec_writer_interval(struct rec_writer *w, const struct rec_interval *iv)
{
	uint8_t p[13 * 10];
	size_t n;
	int r;

	if (!w || !iv || iv->wake_ns < iv->out_ns || iv->in_ns < iv->wake_ns)
		return -EINVAL;
	if ((r = w_enter(w)) < 0)
		return r;
	if (str_ensure(w, iv->fd_target) < 0 || str_ensure(w, iv->waker_comm) < 0 ||
	    str_ensure(w, iv->stack) < 0)
		return w->err ? w->err : -E2BIG;
	n = varint_put(p, zz_enc((int64_t)(iv->out_ns - w->iv_tprev)));
	n += varint_put(p + n, iv->wake_ns - iv->out_ns);
	n += varint_put(p + n, iv->in_ns - iv->wake_ns);
	n += varint_put(p + n, iv->tid);
	n += varint_put(p + n, iv->waker_tid);
	n += varint_put(p + n, zz_enc(iv->syscall));
	n += varint_put(p + n, iv->cls);
	n += varint_put(p + n, iv->state);
	n += varint_put(p + n, iv->flags);
	n += varint_put(p + n, iv->arg0);
	n += varint_put(p + n, iv->fd_target);
	n += varint_put(p + n, iv->waker_comm);
	n += varint_put(p + n, iv->stack);
	r = w_record(w, RT_INTERVAL, p, n);
	if (r < 0)
		return r;
	w->iv_tprev = iv->out_ns;
	return maybe_flush(w);
}

int rec_writer_apispan(struct rec_writer *w, const struct rec_apispan *s)
{
	uint8_t p[4 * 10];
	size_t n;
	int r;

	if (!w || !s || s->start_ns + s->dur_ns < s->start_ns)
		return -EINVAL;
	if ((r = w_enter(w)) < 0)
		return r;
	if (str_ensure(w, s->name) < 0)
		return w->err ? w->err : -E2BIG;
	n = varint_put(p, s->start_ns);
	n += varint_put(p + n, s->dur_ns);
	n += varint_put(p + n, s->tid);
	n += varint_put(p + n, s->name);
	r = w_record(w, RT_APISPAN, p, n);
	if (r < 0)
		return r;
	return maybe_flush(w);
}

uint64_t rec_writer_bytes(const struct rec_writer *w)
{
	if (!w)
		return 0;
	if (!w->main.len && !w->block_samples && !w->frames.len)
		return w->written;
	return w->written + block_size(w);
}

int rec_writer_close(struct rec_writer *w)
{
	int r = 0;

	if (!w)
		return 0;
	if (w->begun && !w->err && open_block(w) == 0) {
		uint8_t p[20];
		size_t n = varint_put(p, w->nsamples);

		n += varint_put(p + n, w->nframes);
		if (w_record(w, RT_END, p, n) == 0)
			rec_writer_flush(w);
	}
	r = w->err;
	if (w->fd >= 0 && close(w->fd) < 0 && !r)
		r = -errno;
	for (size_t i = 0; i < w->nslots; i++)
		free(w->slots[i].s);
	free(w->slots);
	free(w->str_of);
	free(w->str_seg);
	free(w->str_fields);
	for (size_t i = 0; i < w->nfields; i++)
		free(w->field_names[i]);
	free(w->field_names);
	free(w->kinds);
	samp_state_release(&w->ss);
	free(w->errs);
	free(w->newchg);
	free(w->act);
	free(w->th_prev);
	free(w->main.p);
	free(w->samples.p);
	free(w->frames.p);
	free(w->scratch.p);
	wstacks_free(w);
	free(w);
	return r;
}
