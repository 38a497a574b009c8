// SPDX-License-Identifier: MIT
/* threadcpu.c: per-thread CPU time over a window from thread snapshots (see
 * threadcpu.h). Threads are found by tid with a linear search per snapshot
 * entry in a small table: a game has tens of threads, a run thousands of
 * snapshots. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "core/threadcpu.h"

#define NCPU_TRACK 256

struct acc {
	uint32_t tid;
	uint32_t name;
	uint64_t base;		/* CPU time at the window's start */
	uint64_t last;		/* CPU time at its last sighting */
	uint64_t done;		/* CPU time of earlier threads with this tid */
	bool have_base;
	double per_cpu[NCPU_TRACK];
	double other_cpu;	/* on a CPU numbered NCPU_TRACK or above */
};

static struct acc *find(struct acc *a, size_t n, uint32_t tid)
{
	for (size_t i = 0; i < n; i++)
		if (a[i].tid == tid)
			return &a[i];
	return NULL;
}

static int cmp_busy(const void *pa, const void *pb)
{
	const struct threadcpu *a = pa, *b = pb;

	if (a->cpu_ns != b->cpu_ns)
		return a->cpu_ns > b->cpu_ns ? -1 : 1;
	return a->tid < b->tid ? -1 : a->tid > b->tid;
}

/* Adds snapshot TS to the N threads of *A: FIRST, the snapshot the
 * window's CPU time counts from; BEFORE, that one is at or before the
 * window's start (its CPU time is the base, not the window's). 0 or
 * -ENOMEM (A left as it was, but for the threads already done). */
static int feed(struct acc **a, size_t *n, size_t *cap, const struct rec_threads *ts, bool first,
		bool before)
{
	for (size_t k = 0; k < ts->n; k++) {
		const struct rec_thread *th = &ts->th[k];
		struct acc *x = find(*a, *n, th->tid);

		if (!x) {
			if (ARRAY_GROW(*a, *cap, *n + 1) < 0)
				return -ENOMEM;
			x = &(*a)[(*n)++];
			memset(x, 0, sizeof(*x));
			x->tid = th->tid;
			/* born after the first snapshot: it started from 0 */
			x->base = first ? th->cpu_ns : 0;
			x->last = x->base;
			x->have_base = true;
		}
		x->name = th->name;
		/* a thread's CPU time never goes back: the tid is a new
		 * thread's (the old one exited, the kernel reused its
		 * tid), born since the last snapshot, from 0 */
		if (!first && th->cpu_ns < x->last) {
			x->done += x->last - x->base;
			x->base = x->last = 0;
		}
		if (!before && th->cpu_ns > x->last) {
			double d = (double)(th->cpu_ns - x->last);

			if (th->cpu >= 0 && th->cpu < NCPU_TRACK)
				x->per_cpu[th->cpu] += d;
			else
				x->other_cpu += d;
		}
		if (th->cpu_ns > x->last || first)
			x->last = th->cpu_ns;
	}
	return 0;
}

/* The result of the N threads of A over SPAN ns (names from R), busiest
 * first: the count, or -ENOMEM. */
static int result(const struct acc *a, size_t n, uint64_t span, const struct rec *r,
		  struct threadcpu **ret)
{
	struct threadcpu *out;

	if (!n) {
		*ret = NULL;
		return 0;
	}
	if (!span)
		span = 1;
	out = calloc(n, sizeof(*out));
	if (!out)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		double best = 0, total = a[i].other_cpu;
		int32_t bcpu = -1;

		for (int c = 0; c < NCPU_TRACK; c++) {
			total += a[i].per_cpu[c];
			if (a[i].per_cpu[c] > best) {
				best = a[i].per_cpu[c];
				bcpu = c;
			}
		}
		out[i].tid = a[i].tid;
		out[i].name = rec_str(r, a[i].name);
		out[i].cpu_ns = a[i].done + a[i].last - a[i].base;
		out[i].busy_pct = 100.0 * (double)out[i].cpu_ns / (double)span;
		out[i].main_cpu = bcpu;
		out[i].main_cpu_pct = total > 0 ? 100.0 * best / total : 0;
	}
	qsort(out, n, sizeof(*out), cmp_busy);
	*ret = out;
	return (int)n;
}

int threadcpu_compute(const struct rec *r, uint64_t from_ns, uint64_t to_ns,
		      struct threadcpu **ret)
{
	struct acc *a = NULL;
	size_t n = 0, cap = 0, first = 0, last = 0, used = 0;
	bool have_before = false;
	int e;

	if (to_ns <= from_ns)
		return -EINVAL;
	/* the snapshots: the last one at or before FROM, then those in the window */
	for (size_t s = 0; s < r->nthreads; s++) {
		uint64_t t = r->threads[s].t_ns;

		if (t <= from_ns) {
			first = s;
			have_before = true;
		} else if (t <= to_ns) {
			if (!have_before && !used)
				first = s;
			last = s;
			used++;
		}
	}
	if (!used || (!have_before && used < 2))
		return -ENODATA;
	for (size_t s = first; s <= last; s++) {
		if (feed(&a, &n, &cap, &r->threads[s], s == first, have_before && s == first) < 0) {
			free(a);
			return -ENOMEM;
		}
	}
	e = result(a, n, n ? r->threads[last].t_ns - r->threads[first].t_ns : 0, r, ret);
	free(a);
	return e;
}

/* ---------------------------------------------------------- streaming */

/*
 * The snapshots one at a time, as threadcpu_compute takes them from the
 * array: LIVE counts from the snapshot compute would call first (the
 * latest at or before FROM; until one comes, the first in the window) to
 * the latest one fed; SAVED is LIVE as it was at the latest snapshot in the
 * window, kept when a snapshot after the window was fed on top of it (the
 * record's snapshots are in time order, so that happens once, at the
 * window's end).
 */
struct threadcpu_stream {
	uint64_t from, to;
	struct acc *a, *saved;
	size_t n, cap, nsaved, capsaved;
	bool started;		/* LIVE has its first snapshot */
	bool have_before;	/* a snapshot at or before FROM was seen */
	bool in;		/* LIVE was fed a snapshot in the window */
	bool pending;		/* ... and one after the window since: SAVED is the result */
	size_t used;		/* snapshots in the window */
	uint64_t t_first, t_last;	/* LIVE's first; the latest in the window */
};

int threadcpu_stream_new(uint64_t from_ns, uint64_t to_ns, struct threadcpu_stream **ret)
{
	struct threadcpu_stream *s;

	if (to_ns <= from_ns)
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->from = from_ns;
	s->to = to_ns;
	*ret = s;
	return 0;
}

int threadcpu_stream_feed(struct threadcpu_stream *s, const struct rec_threads *ts)
{
	uint64_t t = ts->t_ns;

	if (t <= s->from) {
		/* the base from here on: what was counted before it is not */
		s->n = 0;
		s->have_before = s->started = true;
		s->in = s->pending = false;
		s->t_first = t;
		return feed(&s->a, &s->n, &s->cap, ts, true, true);
	}
	if (t <= s->to) {
		bool first = !s->started;

		s->used++;
		if (first) {
			s->started = true;
			s->t_first = t;
		}
		s->in = true;
		s->pending = false;
		s->t_last = t;
		return feed(&s->a, &s->n, &s->cap, ts, first, false);
	}
	if (!s->started)
		return 0;
	if (s->in && !s->pending) {
		if (ARRAY_GROW(s->saved, s->capsaved, s->n) < 0)
			return -ENOMEM;
		if (s->n)
			memcpy(s->saved, s->a, s->n * sizeof(*s->a));
		s->nsaved = s->n;
		s->pending = true;
	}
	return feed(&s->a, &s->n, &s->cap, ts, false, false);
}

int threadcpu_stream_end(struct threadcpu_stream *s, const struct rec *r, struct threadcpu **ret)
{
	if (!s->used || (!s->have_before && s->used < 2))
		return -ENODATA;
	if (!s->in) {
		*ret = NULL;
		return 0;
	}
	if (s->pending)
		return result(s->saved, s->nsaved, s->t_last - s->t_first, r, ret);
	return result(s->a, s->n, s->t_last - s->t_first, r, ret);
}

void threadcpu_stream_free(struct threadcpu_stream *s)
{
	if (!s)
		return;
	free(s->a);
	free(s->saved);
	free(s);
}
