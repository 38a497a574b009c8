// SPDX-License-Identifier: MIT
/*
 * export_perfetto_stacks.c: the code behind the stalls on Perfetto's
 * timeline (export_perfetto_int.h, docs/EXPORT.md): each stall's stacks
 * (core/where.h) as callstack samples of its thread (out/perfetto.h's
 * perfetto_sample), which Perfetto's UI sums into a flame graph for a selected
 * range; and the frame hook's timed API calls (glLinkProgram,
 * vkWaitForFences, ...) as slices on an "API calls" track under their
 * thread's.
 *
 * The record keeps, per stall, each distinct stack and how many samples
 * had it, not each sample's time (docs/FORMAT.md, ustack): a stall's N
 * samples are placed evenly across it, at its start + (j + 0.5) x its
 * length / N, its stacks interleaved in proportion (the stack furthest
 * behind its share goes next). A range that covers a stall holds exactly
 * its samples; one that covers part of it, that share of each stack.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/export_perfetto_int.h"
#include "core/grow.h"
#include "core/strbuf.h"
#include "core/where.h"

/* ------------------------------------------------------------- stacks */

/* The thread whose stacks these are: the stall's presenting thread, else
 * the frame thread of its first sample, else the main thread. */
static int64_t stall_tid(const struct ex *x, const struct stall_item *it, uint64_t a, uint64_t b)
{
	const struct rec *r = x->r;
	int f = rec_field_index(r, "ft.tid");

	if (x->a->f && x->a->f->tid && it->frame < x->a->f->n && x->a->f->tid[it->frame])
		return x->a->f->tid[it->frame];
	if (x->stall_tid)	/* streamed: found as the samples passed */
		return x->stall_tid(x, it);
	for (size_t i = 0; f >= 0 && i < r->nsamples && r->t_ns[i] <= b; i++)
		if (r->t_ns[i] >= a && r->vals[i * r->nfields + (size_t)f] > 0)
			return r->vals[i * r->nfields + (size_t)f];
	return x->pid;
}

/* W's stacks as callstacks on S: (*IDS)[k] for stack k; *KERN[k]: it has
 * kernel frames. 0 or -ENOMEM. */
static int callstacks(struct perfetto_seq *s, const struct where *w, uint64_t *ids, bool *kern,
		      struct strbuf *names)
{
	struct perfetto_frame *f = NULL;
	size_t cap = 0;
	int e = 0;

	for (size_t k = 0; k < w->n && !e; k++) {
		const struct where_stack *st = &w->st[k];
		size_t n = st->nframes + st->nkframes, i = 0;
		size_t *at;

		if (ARRAY_GROW(f, cap, n) < 0) {
			free(f);
			return -ENOMEM;
		}
		/* the names as shown (no ELF symbol version), one buffer:
		 * offsets first, pointers once it stops moving */
		at = calloc(n ? n : 1, sizeof(*at));
		if (!at) {
			free(f);
			return -ENOMEM;
		}
		sb_reset(names);
		for (size_t j = st->nframes; j-- > 0; i++) {
			size_t before = names->len;

			at[i] = before;
			where_frame_name(names, st->frames[j]);
			if (names->len == before && *st->frames[j])
				e = -ENOMEM;	/* where_frame_name added nothing */
			e = e ? e : sb_addc(names, 0);
			f[i].kernel = false;
		}
		for (size_t j = st->nkframes; j-- > 0; i++) {
			at[i] = names->len;
			e = e ? e : sb_adds(names, st->kframes[j]);
			e = e ? e : sb_addc(names, 0);
			f[i].kernel = true;
		}
		for (i = 0; i < n && !e; i++)
			f[i].name = names->buf + at[i];
		free(at);
		if (!e)
			ids[k] = perfetto_callstack(s, f, n);
		kern[k] = st->nkframes > 0;
	}
	free(f);
	return e;
}

/* Stall IT's samples on S, spread over it (the file's comment says how). */
int export_stall_samples(struct ex *x, struct perfetto_seq *s, const struct stall_item *it,
			 uint64_t a, uint64_t b, struct strbuf *names)
{
	struct where w;
	uint64_t *ids = NULL, *used = NULL;
	bool *kern = NULL;
	int64_t tid;
	int r = stall_where(x->r, it, &w);

	if (r < 0 || !w.total) {
		where_free(&w);
		return r;
	}
	tid = stall_tid(x, it, a, b);
	ids = calloc(w.n, sizeof(*ids));
	used = calloc(w.n, sizeof(*used));
	kern = calloc(w.n, sizeof(*kern));
	r = ids && used && kern ? callstacks(s, &w, ids, kern, names) : -ENOMEM;
	for (uint64_t j = 0; !r && j < w.total; j++) {
		uint64_t t = a + (uint64_t)((double)(b - a) * ((double)j + 0.5) / (double)w.total);
		double behind = -INFINITY;
		size_t pick = 0;

		/* the stack furthest behind its share of the first j + 1 */
		for (size_t k = 0; k < w.n; k++) {
			double d = (double)w.st[k].n * (double)(j + 1) / (double)w.total -
				   (double)used[k];

			if (used[k] < w.st[k].n && d > behind) {
				behind = d;
				pick = k;
			}
		}
		used[pick]++;
		r = perfetto_sample(s, t, x->pid, tid, ids[pick], kern[pick]);
		x->st->stack_samples++;
	}
	free(ids);
	free(used);
	free(kern);
	where_free(&w);
	return r;
}

int export_stacks(struct ex *x)
{
	struct strbuf names = STRBUF_INIT;
	struct perfetto_seq *s = NULL;
	int r = 0;

	if (!where_any(x->r))
		return 0;
	/* PerfSample names its thread: the sequence's track is never used */
	r = perfetto_seq_open(x->o, x->seq++, x->proc_uuid, x->base_ns, &s);
	for (size_t k = 0; !r && k < x->nframes; k++) {
		const struct stall_item *it = x->stall_of[k];

		if (it)
			r = export_stall_samples(x, s, it, x->pres[k].t_ns, x->pres[k + 1].t_ns, &names);
	}
	perfetto_seq_free(s);
	sb_release(&names);
	return r;
}

/* ---------------------------------------------------------- API calls */

const struct perfetto_track export_apis_track = {
	.name = "API calls",
	.description = "the graphics API calls of this thread that the frame hook or the "
		       "Vulkan layer timed at 1 ms or more (compiles, links, fence waits, "
		       "submits: docs/HOOKS.md), from the call to its return",
};

int export_apispans(struct ex *x, uint64_t parent, int64_t tid)
{
	const struct rec *r = x->r;
	struct perfetto_track t = export_apis_track;
	struct perfetto_seq *s = NULL;
	uint64_t end = 0;
	int ret = 0;

	t.parent = parent;
	for (size_t i = 0; !ret && i < r->napispans; i++) {
		const struct rec_apispan *sp = &r->apispans[i];

		if (sp->tid != (uint32_t)tid)
			continue;
		if (sp->start_ns < end) {
			x->st->skipped++;	/* overlaps the previous one */
			continue;
		}
		if (!s && (ret = export_track_open(x, &t, &s)) < 0)
			break;
		ret = export_apispan(x, s, sp);
		end = sp->start_ns + sp->dur_ns;
	}
	perfetto_seq_free(s);
	return ret;
}

int export_apispan(struct ex *x, struct perfetto_seq *s, const struct rec_apispan *sp)
{
	int ret;

	perfetto_event(s, sp->start_ns, PERFETTO_BEGIN, rec_str(x->r, sp->name));
	perfetto_arg_double(s, "ms", round((double)sp->dur_ns / 1e3) / 1e3);
	ret = perfetto_emit(s);
	if (!ret) {
		perfetto_event(s, sp->start_ns + sp->dur_ns, PERFETTO_END, NULL);
		ret = perfetto_emit(s);
	}
	x->st->api_calls++;
	return ret;
}
