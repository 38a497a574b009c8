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

int threadcpu_compute(const struct rec *r, uint64_t from_ns, uint64_t to_ns,
		      struct threadcpu **ret)
{
	struct acc *a = NULL;
	struct threadcpu *out;
	size_t n = 0, cap = 0, first = 0, last = 0, used = 0;
	uint64_t span;
	bool have_before = false;

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
		const struct rec_threads *ts = &r->threads[s];
		bool before = have_before && s == first;

		for (size_t k = 0; k < ts->n; k++) {
			const struct rec_thread *th = &ts->th[k];
			struct acc *x = find(a, n, th->tid);

			if (!x) {
				if (ARRAY_GROW(a, cap, n + 1) < 0) {
					free(a);
					return -ENOMEM;
				}
				x = &a[n++];
				memset(x, 0, sizeof(*x));
				x->tid = th->tid;
				/* born after the first snapshot: it started from 0 */
				x->base = s == first ? th->cpu_ns : 0;
				x->last = x->base;
				x->have_base = true;
			}
			x->name = th->name;
			/* a thread's CPU time never goes back: the tid is a new
			 * thread's (the old one exited, the kernel reused its
			 * tid), born since the last snapshot, from 0 */
			if (s != first && th->cpu_ns < x->last) {
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
			if (th->cpu_ns > x->last || s == first)
				x->last = th->cpu_ns;
		}
	}
	if (!n) {
		free(a);
		*ret = NULL;
		return 0;
	}
	span = r->threads[last].t_ns - r->threads[first].t_ns;
	if (!span)
		span = 1;
	out = calloc(n, sizeof(*out));
	if (!out) {
		free(a);
		return -ENOMEM;
	}
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
	free(a);
	qsort(out, n, sizeof(*out), cmp_busy);
	*ret = out;
	return (int)n;
}
