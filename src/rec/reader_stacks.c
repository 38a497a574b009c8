// SPDX-License-Identifier: MIT
/*
 * reader_stacks.c: the RT_USTACK records of a block (2.3; docs/FORMAT.md,
 * "Stacks"): the interned mappings, frames and stacks, kept by id as the
 * strings are (the first copy kept, another copy with other bytes is
 * damage, ids defined only in damaged blocks stay holes), and each window's
 * stacks with their counts. References between them are not checked here:
 * a hole reads as "[unknown]" (core/where.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "rec/reader_int.h"

/* Whether ID is one a file of this size can define: ids are given in
 * order, each definition takes at least 2 bytes (as for strings). */
static bool id_ok(const struct rd *d, uint64_t id, size_t n)
{
	return id >= 1 && id < UINT32_MAX && id <= n + d->len / 2;
}

/* Grows *ARR (of N, room *CAP, entries of SIZE bytes) to hold index ID,
 * new entries zeroed. 0 or -ENOMEM. */
static int room(void **arr, size_t *n, size_t *cap, size_t size, uint64_t id)
{
	if (id < *n)
		return 0;
	if (*cap < id + 1) {
		void *p = array_grow(*arr, cap, id + 1, size);	/* ARRAY_GROW's, untyped */

		if (!p)
			return -ENOMEM;
		*arr = p;
	}
	memset((char *)*arr + *n * size, 0, (id + 1 - *n) * size);
	*n = id + 1;
	return 0;
}

static int rd_umap(struct rd *d, struct cur *c)
{
	struct rec *r = d->r;
	struct rec_umap m = { 0 };
	uint64_t id;
	uint8_t bl;
	size_t pl;
	int e;

	if (!cur_varint(c, &id) || !id_ok(d, id, r->numaps))
		return rd_bad(d, "ustack record: bad mapping id");
	if (!cur_u8(c, &bl) || !bl || bl > REC_BUILD_ID_MAX || bl > (size_t)(c->end - c->p))
		return rd_bad(d, "ustack record: bad build-id length");
	memcpy(m.build_id, c->p, bl);
	m.build_id_len = bl;
	c->p += bl;
	pl = (size_t)(c->end - c->p);
	if (!pl || memchr(c->p, 0, pl))
		return rd_bad(d, "ustack record: a mapping's path is empty or holds a NUL");
	if (id < r->numaps && r->umaps[id].path) {
		const struct rec_umap *o = &r->umaps[id];

		if (strlen(o->path) != pl || memcmp(o->path, c->p, pl) ||
		    o->build_id_len != bl || memcmp(o->build_id, m.build_id, bl))
			return rd_bad(d, "ustack record: a mapping written again with other bytes");
		return 0;
	}
	if ((e = room((void **)&r->umaps, &r->numaps, &d->cap_umaps, sizeof(*r->umaps), id)) < 0)
		return e;
	m.path = malloc(pl + 1);
	if (!m.path)
		return -ENOMEM;
	memcpy(m.path, c->p, pl);
	m.path[pl] = 0;
	r->umaps[id] = m;
	return 0;
}

static int rd_uframe(struct rd *d, struct cur *c)
{
	struct rec *r = d->r;
	struct rec_uframe f = { 0 };
	uint64_t id, head, off = 0;
	int e;

	if (!cur_varint(c, &id) || !id_ok(d, id, r->nuframes))
		return rd_bad(d, "ustack record: bad frame id");
	if (!cur_varint(c, &head) || (head & 7) < REC_UF_ADDR || (head & 7) > REC_UF_JIT ||
	    head >> 3 >= UINT32_MAX)
		return rd_bad(d, "ustack record: bad frame head");
	if ((head & 7) == REC_UF_ADDR && !cur_varint(c, &off))
		return rd_bad(d, "ustack record: a frame without its offset");
	if (c->p != c->end)
		return rd_bad(d, "ustack record: bytes left after a frame");
	f.kind = (uint8_t)(head & 7);
	f.ref = (uint32_t)(head >> 3);
	f.off = off;
	if (id < r->nuframes && r->uframes[id].kind) {
		const struct rec_uframe *o = &r->uframes[id];

		if (o->kind != f.kind || o->ref != f.ref || o->off != f.off)
			return rd_bad(d, "ustack record: a frame written again with other bytes");
		return 0;
	}
	if ((e = room((void **)&r->uframes, &r->nuframes, &d->cap_uframes, sizeof(*r->uframes),
		      id)) < 0)
		return e;
	r->uframes[id] = f;
	return 0;
}

static int rd_ustack_def(struct rd *d, struct cur *c)
{
	struct rec *r = d->r;
	uint64_t id, n, v;
	uint32_t *fr;
	int e;

	if (!cur_varint(c, &id) || !id_ok(d, id, r->nustacks))
		return rd_bad(d, "ustack record: bad stack id");
	if (!cur_varint(c, &n) || !n || n > REC_USTACK_MAX || n > (uint64_t)(c->end - c->p))
		return rd_bad(d, "ustack record: a stack of 0 frames or more than the record holds");
	fr = malloc(n * sizeof(*fr));
	if (!fr)
		return -ENOMEM;
	for (uint64_t i = 0; i < n; i++) {
		if (!cur_varint(c, &v) || !v || v >= UINT32_MAX) {
			free(fr);
			return rd_bad(d, "ustack record: bad frame id in a stack");
		}
		fr[i] = (uint32_t)v;
	}
	if (c->p != c->end) {
		free(fr);
		return rd_bad(d, "ustack record: bytes left after a stack");
	}
	if (id < r->nustacks && r->ustacks[id].n) {
		const struct rec_ustack *o = &r->ustacks[id];
		bool same = o->n == n && !memcmp(o->frames, fr, n * sizeof(*fr));

		free(fr);
		return same ? 0 : rd_bad(d, "ustack record: a stack written again with other bytes");
	}
	if ((e = room((void **)&r->ustacks, &r->nustacks, &d->cap_ustacks, sizeof(*r->ustacks),
		      id)) < 0) {
		free(fr);
		return e;
	}
	r->ustacks[id] = (struct rec_ustack){ .n = (uint32_t)n, .frames = fr };
	return 0;
}

static int rd_uset(struct rd *d, struct cur *c, uint8_t kind)
{
	struct rec *r = d->r;
	struct rec_uset s = { 0 };
	uint64_t t, tid, n, a, b;

	if (!cur_varint(c, &t) || !cur_varint(c, &tid) || tid > UINT32_MAX ||
	    !cur_varint(c, &n) || !n || n > (uint64_t)(c->end - c->p) / 2)
		return rd_bad(d, "ustack record: a window's stacks: bad time, thread or count");
	if (ARRAY_GROW(r->usets, d->cap_usets, r->nusets + 1) < 0)
		return -ENOMEM;
	s.stack = malloc(n * sizeof(*s.stack));
	s.count = malloc(n * sizeof(*s.count));
	if (!s.stack || !s.count) {
		free(s.stack);
		free(s.count);
		return -ENOMEM;
	}
	for (uint64_t i = 0; i < n; i++) {
		if (!cur_varint(c, &a) || !cur_varint(c, &b) || !a || a >= UINT32_MAX || !b) {
			free(s.stack);
			free(s.count);
			return rd_bad(d, "ustack record: a window's stack id or count is bad");
		}
		s.stack[i] = (uint32_t)a;
		s.count[i] = b;
	}
	if (c->p != c->end) {
		free(s.stack);
		free(s.count);
		return rd_bad(d, "ustack record: bytes left after a window's stacks");
	}
	s.t_ns = t;
	s.tid = (uint32_t)tid;
	s.kind = kind;
	s.n = (uint32_t)n;
	r->usets[r->nusets++] = s;
	return 0;
}

int rd_ustack(struct rd *d, struct cur *c)
{
	uint8_t part;

	if (!cur_u8(c, &part))
		return rd_bad(d, "ustack record: empty");
	switch (part) {
	case USTACK_MAP:
		return rd_umap(d, c);
	case USTACK_FRAME:
		return rd_uframe(d, c);
	case USTACK_STACK:
		return rd_ustack_def(d, c);
	case USTACK_SET:
		return rd_uset(d, c, REC_USET_STALL);
	case USTACK_SET_THREAD2:
		return rd_uset(d, c, REC_USET_THREAD2);
	case USTACK_SET_INTERVAL:
		return rd_uset(d, c, REC_USET_INTERVAL);
	default:
		d->r->unknown_records++;	/* a part of a later version */
		return 0;
	}
}
