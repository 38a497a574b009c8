// SPDX-License-Identifier: MIT
/* frames.c: the growable frame set of frames.h. */
#include <errno.h>
#include <stdlib.h>

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
