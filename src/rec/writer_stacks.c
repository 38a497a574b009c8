// SPDX-License-Identifier: MIT
/*
 * writer_stacks.c: the interned stacks of a record (2.3; rec.h,
 * docs/FORMAT.md "Stacks"). Mappings, frames and stacks are interned as
 * strings are: one table keyed by what each holds, ids file-wide (one
 * sequence per part), and each written as an RT_USTACK record once in every
 * segment that uses it, with what it refers to (a frame's mapping or
 * string, a stack's frames) written before it, so that a segment decodes
 * without an earlier one. Only a window's record (USTACK_SET) makes them
 * written: an interned stack no window uses costs nothing in the file.
 *
 * Assumes a few hundred windows an hour with tens of distinct stacks each:
 * a lookup is one hash probe over the bytes of the definition.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "rec/codec.h"
#include "rec/writer_int.h"

struct wdef {
	uint32_t id;
	uint32_t seg;		/* the segment that last wrote it; UINT32_MAX: none */
	uint32_t hash;
	uint32_t len;
	uint8_t part;		/* USTACK_MAP, USTACK_FRAME, USTACK_STACK */
	uint8_t *bytes;		/* the definition after its id */
};

#define NPARTS 4	/* parts 1..3 are interned */

struct wstacks {
	struct wdef **slots;	/* open addressing, power-of-two size */
	size_t nslots, ndefs;
	struct wdef **by_id[NPARTS];	/* [part][id], id 1..n */
	size_t n[NPARTS], cap[NPARTS];
	struct obuf tmp;
};

void wstacks_free(struct rec_writer *w)
{
	struct wstacks *s = w->stk;

	if (!s)
		return;
	for (size_t i = 0; i < s->nslots; i++)
		if (s->slots[i]) {
			free(s->slots[i]->bytes);
			free(s->slots[i]);
		}
	free(s->slots);
	for (int p = 0; p < NPARTS; p++)
		free(s->by_id[p]);
	free(s->tmp.p);
	free(s);
	w->stk = NULL;
}

static uint32_t hash_of(uint8_t part, const uint8_t *p, size_t n)
{
	uint32_t h = 2166136261u ^ part;

	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 16777619u;
	return h;
}

static int grow_slots(struct wstacks *s)
{
	size_t n = s->nslots ? s->nslots * 2 : 256;
	struct wdef **t = calloc(n, sizeof(*t));

	if (!t)
		return -ENOMEM;
	for (size_t i = 0; i < s->nslots; i++) {
		size_t j;

		if (!s->slots[i])
			continue;
		for (j = s->slots[i]->hash & (n - 1); t[j]; j = (j + 1) & (n - 1))
			;
		t[j] = s->slots[i];
	}
	free(s->slots);
	s->slots = t;
	s->nslots = n;
	return 0;
}

/* The id of the definition of PART whose bytes are P (N), made on first
 * use; 0 on ENOMEM (the writer's error) or after an error. */
static uint32_t intern(struct rec_writer *w, uint8_t part, const uint8_t *p, size_t n)
{
	struct wstacks *s = w->stk;
	struct wdef *d;
	uint32_t h;
	size_t j;

	if (w->err)
		return 0;
	if (!s && !(s = w->stk = calloc(1, sizeof(*s))))
		goto nomem;
	if ((s->ndefs + 1) * 2 > s->nslots && grow_slots(s) < 0)
		goto nomem;
	h = hash_of(part, p, n);
	for (j = h & (s->nslots - 1); s->slots[j]; j = (j + 1) & (s->nslots - 1)) {
		d = s->slots[j];
		if (d->hash == h && d->part == part && d->len == n && !memcmp(d->bytes, p, n))
			return d->id;
	}
	if (s->n[part] >= UINT32_MAX - 1 ||
	    ARRAY_GROW(s->by_id[part], s->cap[part], s->n[part] + 2) < 0)
		goto nomem;
	d = calloc(1, sizeof(*d));
	if (d)
		d->bytes = malloc(n ? n : 1);
	if (!d || !d->bytes) {
		free(d);
		goto nomem;
	}
	memcpy(d->bytes, p, n);
	d->len = (uint32_t)n;
	d->part = part;
	d->hash = h;
	d->seg = UINT32_MAX;
	d->id = (uint32_t)++s->n[part];
	s->by_id[part][d->id] = d;
	s->slots[j] = d;
	s->ndefs++;
	return d->id;
nomem:
	w_fail(w, -ENOMEM);
	return 0;
}

static bool known(const struct rec_writer *w, uint8_t part, uint64_t id)
{
	return w->stk && id >= 1 && id <= w->stk->n[part];
}

uint32_t rec_writer_umap(struct rec_writer *w, const char *path, const uint8_t *build_id,
			 size_t build_id_len)
{
	struct obuf *b;
	size_t pl;

	if (!w || !path || !*path || !build_id || !build_id_len ||
	    build_id_len > REC_BUILD_ID_MAX || (pl = strlen(path)) > STR_MAX)
		return 0;
	if (!w->stk && !(w->stk = calloc(1, sizeof(*w->stk)))) {
		w_fail(w, -ENOMEM);
		return 0;
	}
	b = &w->stk->tmp;
	b->len = 0;
	if (ob_reserve(b, 1 + build_id_len + pl) < 0) {
		w_fail(w, -ENOMEM);
		return 0;
	}
	b->p[b->len++] = (uint8_t)build_id_len;
	ob_bytes(b, build_id, build_id_len);
	ob_bytes(b, path, pl);
	return intern(w, USTACK_MAP, b->p, b->len);
}

uint32_t rec_writer_uframe(struct rec_writer *w, const struct rec_uframe *f)
{
	uint8_t p[20];
	size_t n;
	uint32_t ref;

	if (!w || !f)
		return 0;
	switch (f->kind) {
	case REC_UF_ADDR:
		if (!known(w, USTACK_MAP, f->ref))
			return 0;
		break;
	case REC_UF_NAMED:
	case REC_UF_KERNEL:
		if (!f->ref || f->ref > w->nstrs)
			return 0;
		break;
	case REC_UF_UNKNOWN:
	case REC_UF_JIT:
		break;
	default:
		return 0;
	}
	ref = f->kind == REC_UF_UNKNOWN || f->kind == REC_UF_JIT ? 0 : f->ref;
	n = varint_put(p, (uint64_t)ref << 3 | f->kind);
	if (f->kind == REC_UF_ADDR)
		n += varint_put(p + n, f->off);
	return intern(w, USTACK_FRAME, p, n);
}

uint32_t rec_writer_ustack(struct rec_writer *w, const uint32_t *frames, size_t n)
{
	struct obuf *b;

	if (!w || !frames || !n || n > REC_USTACK_MAX || !w->stk)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!known(w, USTACK_FRAME, frames[i]))
			return 0;
	b = &w->stk->tmp;
	b->len = 0;
	if (ob_reserve(b, 10 * (n + 1)) < 0) {
		w_fail(w, -ENOMEM);
		return 0;
	}
	ob_varint(b, n);
	for (size_t i = 0; i < n; i++)
		ob_varint(b, frames[i]);
	return intern(w, USTACK_STACK, b->p, b->len);
}

/* Writes definition ID of PART, and first what it refers to, unless this
 * segment did. 0 or the writer's error. */
static int def_ensure(struct rec_writer *w, uint8_t part, uint64_t id)
{
	struct wdef *d = w->stk->by_id[part][id];
	struct cur c = { d->bytes, d->bytes + d->len };
	uint8_t head[12];
	uint64_t v, n;
	size_t hn;
	int r;

	if (d->seg == w->seg)
		return 0;
	if (part == USTACK_FRAME && cur_varint(&c, &v)) {
		if ((v & 7) == REC_UF_ADDR)
			r = def_ensure(w, USTACK_MAP, v >> 3);
		else if ((v & 7) == REC_UF_NAMED || (v & 7) == REC_UF_KERNEL)
			r = str_ensure(w, v >> 3);
		else
			r = 0;
		if (r < 0)
			return w->err ? w->err : r;
	} else if (part == USTACK_STACK && cur_varint(&c, &n)) {
		for (uint64_t i = 0; i < n && cur_varint(&c, &v); i++)
			if ((r = def_ensure(w, USTACK_FRAME, v)) < 0)
				return r;
	}
	head[0] = part;
	hn = 1 + varint_put(head + 1, id);
	if (ob_reserve(&w->main, 1 + 10 + hn + d->len) < 0)
		return w_fail(w, -ENOMEM);
	w->main.p[w->main.len++] = RT_USTACK;
	ob_varint(&w->main, hn + d->len);
	ob_bytes(&w->main, head, hn);
	ob_bytes(&w->main, d->bytes, d->len);
	d->seg = w->seg;
	return 0;
}

int rec_writer_uset(struct rec_writer *w, const struct rec_uset *s)
{
	struct obuf *b;
	int r;

	if (!w || !s || !s->n || !s->stack || !s->count || s->kind >= REC_USET_KINDS)
		return -EINVAL;
	for (uint32_t i = 0; i < s->n; i++)
		if (!known(w, USTACK_STACK, s->stack[i]) || !s->count[i])
			return -EINVAL;
	if ((r = w_enter(w)) < 0)
		return r;
	for (uint32_t i = 0; i < s->n; i++)
		if ((r = def_ensure(w, USTACK_STACK, s->stack[i])) < 0)
			return r;
	b = &w->stk->tmp;
	b->len = 0;
	if (ob_reserve(b, 1 + 30 + 20 * (size_t)s->n) < 0)
		return w_fail(w, -ENOMEM);
	b->p[b->len++] = (uint8_t)(USTACK_SET + s->kind);
	ob_varint(b, s->t_ns);
	ob_varint(b, s->tid);
	ob_varint(b, s->n);
	for (uint32_t i = 0; i < s->n; i++) {
		ob_varint(b, s->stack[i]);
		ob_varint(b, s->count[i]);
	}
	r = w_record(w, RT_USTACK, b->p, b->len);
	return r < 0 ? r : maybe_flush(w);
}
