/* SPDX-License-Identifier: MIT */
/*
 * where.c: a stall's user stacks, summed (where.h).
 *
 * Two sources: a record of 2.3 holds its stacks interned (USTACK records:
 * struct rec_uset, rec_ustack, rec_uframe), their user frames named by the
 * analysis beforehand (rec->uframe_names, src/run/symbols.h); an older one
 * has a ustack event per stall whose text is one line per distinct stack:
 * "COUNT\tFRAME\tFRAME...", innermost first (docs/FORMAT.md). Both give
 * the same struct where.
 */
#include "core/where.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static void stack_free(struct where_stack *s)
{
	for (size_t i = 0; i < s->nframes; i++)
		free(s->frames[i]);
	free(s->frames);
	for (size_t i = 0; i < s->nkframes; i++)
		free(s->kframes[i]);
	free(s->kframes);
	s->frames = s->kframes = NULL;
	s->nframes = s->nkframes = 0;
}

void where_free(struct where *w)
{
	if (!w)
		return;
	for (size_t i = 0; i < w->n; i++)
		stack_free(&w->st[i]);
	free(w->st);
	memset(w, 0, sizeof(*w));
}

static int same_list(char **a, size_t na, char **b, size_t nb)
{
	if (na != nb)
		return 0;
	for (size_t i = 0; i < na; i++)
		if (strcmp(a[i], b[i]))
			return 0;
	return 1;
}

static int same(const struct where_stack *s, const struct where_stack *t)
{
	return same_list(s->frames, s->nframes, t->frames, t->nframes) &&
	       same_list(s->kframes, s->nkframes, t->kframes, t->nkframes);
}

/* Appends a copy of F to *LIST (*N of *CAP). 0 or -ENOMEM. */
static int push(char ***list, size_t *n, size_t *cap, const char *f)
{
	if (*n == *cap) {
		char **g = realloc(*list, (*cap = *cap ? *cap * 2 : 8) * sizeof(*g));

		if (!g)
			return -ENOMEM;
		*list = g;
	}
	if (!((*list)[*n] = strdup(f)))
		return -ENOMEM;
	(*n)++;
	return 0;
}

/* Adds ST (its frames W's from here on) with CNT samples to W: to the
 * stack with the same frames, or as a new one. ST is emptied. */
static int add_stack(struct where *w, struct where_stack *st, uint64_t cnt)
{
	size_t i;

	for (i = 0; i < w->n && !same(&w->st[i], st); i++)
		;
	if (i == w->n) {
		struct where_stack *g = realloc(w->st, (w->n + 1) * sizeof(*g));

		if (!g)
			return -ENOMEM;
		w->st = g;
		w->st[i] = *st;
		w->st[i].n = 0;
		w->n++;
		memset(st, 0, sizeof(*st));
	}
	w->st[i].n += cnt;
	w->total += cnt;
	return 0;
}

/* Adds one line "COUNT\tF\tF..." (LEN bytes at P) to W. */
static int add_line(struct where *w, const char *p, size_t len)
{
	char *line = strndup(p, len), *save = NULL, *tok, *end;
	struct where_stack st = { 0 };
	size_t cap = 0, kcap = 0;
	unsigned long long cnt;
	int e = 0;

	if (!line)
		return -ENOMEM;
	tok = strtok_r(line, "\t", &save);
	cnt = tok ? strtoull(tok, &end, 10) : 0;
	if (!tok || *end || !cnt) {
		free(line);
		return 0;	/* not a stack line: skipped */
	}
	while (!e && (tok = strtok_r(NULL, "\t", &save))) {
		/* "k:NAME": a kernel frame, before the user ones */
		if (!strncmp(tok, "k:", 2) && !st.nframes)
			e = push(&st.kframes, &st.nkframes, &kcap, tok + 2);
		else
			e = push(&st.frames, &st.nframes, &cap, tok);
	}
	if (!e)
		e = add_stack(w, &st, cnt);
	stack_free(&st);
	free(line);
	return e;
}

const char *where_uframe_name(const struct rec *r, uint32_t id)
{
	const struct rec_uframe *f = id < r->nuframes ? &r->uframes[id] : NULL;

	switch (f ? f->kind : REC_UF_NONE) {
	case REC_UF_ADDR:
		return r->uframe_names && r->uframe_names[id] ? r->uframe_names[id] : "[unknown]";
	case REC_UF_NAMED:
	case REC_UF_KERNEL:
		return f->ref && f->ref < r->nstrs && r->strs[f->ref] ? r->strs[f->ref] : "[unknown]";
	case REC_UF_JIT:
		return "[jit]";
	default:
		return "[unknown]";
	}
}

/* Adds interned stack ID of R, COUNT samples, to W. */
static int add_ustack(struct where *w, const struct rec *r, uint32_t id, uint64_t cnt)
{
	const struct rec_ustack *u = id < r->nustacks ? &r->ustacks[id] : NULL;
	struct where_stack st = { 0 };
	size_t cap = 0, kcap = 0;
	int e = 0;

	for (uint32_t i = 0; u && i < u->n && !e; i++) {
		uint32_t f = u->frames[i];
		bool k = f < r->nuframes && r->uframes[f].kind == REC_UF_KERNEL;

		/* the kernel's frames come before the user ones */
		if (k && !st.nframes)
			e = push(&st.kframes, &st.nkframes, &kcap, where_uframe_name(r, f));
		else
			e = push(&st.frames, &st.nframes, &cap, where_uframe_name(r, f));
	}
	if (!e && !st.nframes)
		e = push(&st.frames, &st.nframes, &cap, "[unknown]");
	if (!e)
		e = add_stack(w, &st, cnt);
	stack_free(&st);
	return e;
}

static int by_count(const void *a, const void *b)
{
	const struct where_stack *x = a, *y = b;

	if (x->n != y->n)
		return x->n < y->n ? 1 : -1;
	for (size_t i = 0; i < x->nframes && i < y->nframes; i++) {
		int c = strcmp(x->frames[i], y->frames[i]);

		if (c)
			return c;
	}
	return x->nframes < y->nframes ? -1 : x->nframes > y->nframes;
}

int where_stall(const struct rec *r, uint64_t a_ns, uint64_t b_ns, struct where *w)
{
	memset(w, 0, sizeof(*w));
	for (size_t i = 0; i < r->nevents; i++) {
		const struct rec_event *ev = &r->events[i];
		const char *p;

		if (ev->t_ns < a_ns || ev->t_ns > b_ns || !ev->kind || strcmp(ev->kind, "ustack") ||
		    !ev->text)
			continue;
		for (p = ev->text; *p;) {
			const char *nl = strchr(p, '\n');
			size_t len = nl ? (size_t)(nl - p) : strlen(p);
			int e = add_line(w, p, len);

			if (e < 0) {
				where_free(w);
				return e;
			}
			p += len + (nl ? 1 : 0);
		}
	}
	for (size_t i = 0; i < r->nusets; i++) {
		const struct rec_uset *u = &r->usets[i];

		if (u->t_ns < a_ns || u->t_ns > b_ns)
			continue;
		for (uint32_t k = 0; k < u->n; k++) {
			int e = add_ustack(w, r, u->stack[k], u->count[k]);

			if (e < 0) {
				where_free(w);
				return e;
			}
		}
	}
	if (w->n > 1)
		qsort(w->st, w->n, sizeof(*w->st), by_count);
	return 0;
}

int where_merge(struct where *w, size_t depth)
{
	size_t out = 0;

	for (size_t i = 0; i < w->n; i++) {
		struct where_stack *s = &w->st[i];
		size_t k = 0;

		for (size_t f = 0; f < s->nkframes; f++)
			free(s->kframes[f]);
		free(s->kframes);
		s->kframes = NULL;
		s->nkframes = 0;

		/* recursion (the same frame again) shown once */
		for (size_t f = 0; f < s->nframes; f++) {
			if (k && !strcmp(s->frames[k - 1], s->frames[f])) {
				free(s->frames[f]);
				continue;
			}
			s->frames[k++] = s->frames[f];
		}
		s->nframes = k;
		if (depth && s->nframes > depth) {
			char *more = strdup("...");

			if (!more)
				return -ENOMEM;
			for (size_t f = depth; f < s->nframes; f++)
				free(s->frames[f]);
			s->frames[depth] = more;
			s->nframes = depth + 1;
		}
		for (k = 0; k < out && !same(&w->st[k], s); k++)
			;
		if (k < out) {
			w->st[k].n += s->n;
			stack_free(s);
		} else {
			w->st[out++] = *s;
		}
	}
	w->n = out;
	if (w->n > 1)
		qsort(w->st, w->n, sizeof(*w->st), by_count);
	return 0;
}

int where_any(const struct rec *r)
{
	if (r->nusets)
		return 1;
	for (size_t i = 0; i < r->nevents; i++)
		if (r->events[i].kind && !strcmp(r->events[i].kind, "ustack"))
			return 1;
	return 0;
}

void where_frame_name(struct strbuf *sb, const char *frame)
{
	const char *at = strchr(frame, '@');

	/* "memcpy@@GLIBC_2.14", never "@" first (no name then: kept whole) */
	sb_add(sb, frame, at && at != frame ? (size_t)(at - frame) : strlen(frame));
}

void where_line(struct strbuf *sb, const struct where_stack *s, uint64_t total, size_t depth)
{
	size_t n = depth && depth < s->nframes ? depth : s->nframes;

	double pc = total ? 100.0 * (double)s->n / (double)total : 0.0;

	if (pc > 0 && pc < 1)
		sb_adds(sb, "<1 %");
	else
		sb_addf(sb, "%.0f %%", pc);
	for (size_t i = 0; i < n; i++) {
		sb_adds(sb, i ? " <- " : " ");
		where_frame_name(sb, s->frames[i]);
	}
	if (n < s->nframes)
		sb_adds(sb, " <- ...");
}
