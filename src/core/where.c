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

#include "core/grow.h"

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
	for (size_t i = 0; i < w->nfiles; i++)
		free(w->files[i].name);
	free(w->files);
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
	if (ARRAY_GROW(*list, *cap, *n + 1) < 0)
		return -ENOMEM;
	if (!((*list)[*n] = strdup(f)))
		return -ENOMEM;
	(*n)++;
	return 0;
}

/* An index of W's stacks by their frames, so that adding a stack costs one
 * probe, not a walk over every stack so far (a record is untrusted: a
 * stall of a million distinct stacks must not take hours). Open
 * addressing; slot = stack index + 1, 0 empty. */
struct widx {
	size_t *slot;
	size_t cap;		/* a power of two, or 0 */
};

static uint64_t hash_list(uint64_t h, char **l, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		for (const char *p = l[i]; *p; p++)
			h = (h ^ (uint8_t)*p) * 1099511628211ull;
		h = (h ^ 0xff) * 1099511628211ull;	/* the separator */
	}
	return h;
}

static uint64_t stack_hash(const struct where_stack *s)
{
	return hash_list(hash_list(14695981039346656037ull, s->kframes, s->nkframes) ^ 1,
			 s->frames, s->nframes);
}

/* Rebuilds IX for W's first N stacks, with room for twice as many. */
static int widx_build(struct widx *ix, const struct where *w, size_t n)
{
	size_t cap = 64;

	while (cap < 2 * (n + 1))
		cap *= 2;
	free(ix->slot);
	ix->slot = calloc(cap, sizeof(*ix->slot));
	ix->cap = ix->slot ? cap : 0;
	if (!ix->slot)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		size_t j = (size_t)stack_hash(&w->st[i]) & (cap - 1);

		while (ix->slot[j])
			j = (j + 1) & (cap - 1);
		ix->slot[j] = i + 1;
	}
	return 0;
}

/* The index of the stack among W's first N with ST's frames, or N when
 * none (and then, with IX grown for it, the slot it takes in *RET_SLOT). */
static size_t widx_find(const struct widx *ix, const struct where *w, size_t n,
			const struct where_stack *st, size_t *ret_slot)
{
	size_t j = (size_t)stack_hash(st) & (ix->cap - 1);

	for (; ix->slot[j]; j = (j + 1) & (ix->cap - 1))
		if (ix->slot[j] - 1 < n && same(&w->st[ix->slot[j] - 1], st))
			return ix->slot[j] - 1;
	*ret_slot = j;
	return n;
}

/* Adds ST (its frames W's from here on) with CNT samples to W: to the
 * stack with the same frames, or as a new one. ST is emptied. */
static int add_stack(struct where *w, struct widx *ix, struct where_stack *st, uint64_t cnt)
{
	size_t i, j = 0;

	if ((w->n + 1) * 2 > ix->cap && widx_build(ix, w, w->n) < 0)
		return -ENOMEM;
	i = widx_find(ix, w, w->n, st, &j);
	if (i == w->n) {
		/* room doubles when n reaches a power of two (none kept apart) */
		if (!(w->n & (w->n - 1))) {
			struct where_stack *g = realloc(w->st, (w->n ? 2 * w->n : 1) * sizeof(*g));

			if (!g)
				return -ENOMEM;
			w->st = g;
		}
		w->st[i] = *st;
		w->st[i].n = 0;
		w->n++;
		ix->slot[j] = i + 1;
		memset(st, 0, sizeof(*st));
	}
	w->st[i].n += cnt;
	w->total += cnt;
	return 0;
}

/* Adds one line "COUNT\tF\tF..." (LEN bytes at P) to W. */
static int add_line(struct where *w, struct widx *ix, const char *p, size_t len)
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
		e = add_stack(w, ix, &st, cnt);
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

/* The base name of the file of interned user frame F of R, as
 * where_file names it. */
static const char *file_of(const struct rec *r, uint32_t f)
{
	const struct rec_uframe *u = f < r->nuframes ? &r->uframes[f] : NULL;
	const char *p, *slash;

	switch (u ? u->kind : REC_UF_NONE) {
	case REC_UF_ADDR:
		p = u->ref < r->numaps ? r->umaps[u->ref].path : NULL;
		if (!p || !*p)
			return "[unknown]";
		slash = strrchr(p, '/');
		return slash && slash[1] ? slash + 1 : p;
	case REC_UF_NAMED:
		return "[named]";
	case REC_UF_JIT:
		return "[jit]";
	default:
		return "[unknown]";
	}
}

#define WHERE_FILES_MAX 64	/* files told apart; the rest are "[other]" */

/* Counts N samples to FILE in W's files (a few: a linear look, bounded:
 * a hostile record's thousands of mappings share one "[other]"). */
static int add_file(struct where *w, const char *file, uint64_t n)
{
	struct where_file *t;

	if (w->nfiles >= WHERE_FILES_MAX)
		file = "[other]";
	for (size_t i = 0; i < w->nfiles; i++)
		if (!strcmp(w->files[i].name, file)) {
			w->files[i].n += n;
			return 0;
		}
	/* grown by one: a stall's stacks come from a few files, and struct
	 * where keeps no room apart (where.h) */
	t = realloc(w->files, (w->nfiles + 1) * sizeof(*t));
	if (!t)
		return -ENOMEM;
	w->files = t;
	if (!(t[w->nfiles].name = strdup(file)))
		return -ENOMEM;
	t[w->nfiles++].n = n;
	return 0;
}

/* Adds interned stack ID of R, COUNT samples, to W. */
static int add_ustack(struct where *w, struct widx *ix, const struct rec *r, uint32_t id,
		      uint64_t cnt)
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
	if (!e) {
		uint32_t leaf = 0;

		/* the innermost user frame's file */
		for (uint32_t i = 0; u && i < u->n && !leaf; i++)
			if (u->frames[i] < r->nuframes &&
			    r->uframes[u->frames[i]].kind != REC_UF_KERNEL)
				leaf = u->frames[i];
		e = add_file(w, leaf ? file_of(r, leaf) : "[unknown]", cnt);
	}
	if (!e)
		e = add_stack(w, ix, &st, cnt);
	stack_free(&st);
	return e;
}

static int by_file_count(const void *a, const void *b)
{
	const struct where_file *x = a, *y = b;

	if (x->n != y->n)
		return x->n < y->n ? 1 : -1;
	return strcmp(x->name, y->name);
}

void where_files_line(struct strbuf *sb, const struct where *w, size_t max)
{
	uint64_t total = 0;

	for (size_t i = 0; i < w->nfiles; i++)
		total += w->files[i].n;
	for (size_t i = 0; total && i < w->nfiles && (!max || i < max); i++)
		sb_addf(sb, "%s%.0f %% %s", i ? ", " : "",
			100.0 * (double)w->files[i].n / (double)total, w->files[i].name);
	if (total && max && w->nfiles > max)
		sb_adds(sb, ", ...");
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

int where_kind(const struct rec *r, int kind, uint64_t a_ns, uint64_t b_ns, uint32_t tid,
	       struct where *w)
{
	struct widx ix = { 0 };
	int e = 0;

	memset(w, 0, sizeof(*w));
	for (size_t i = 0; i < r->nevents; i++) {
		const struct rec_event *ev = &r->events[i];
		const char *p;

		/* before 2.3: the frame thread's stall stacks only, as text */
		if (kind != WHERE_KIND_STALL || ev->t_ns < a_ns || ev->t_ns > b_ns ||
		    (tid && ev->tid != tid) || !ev->kind || strcmp(ev->kind, WHERE_EVENT_STALL) ||
		    !ev->text)
			continue;
		if (!w->tid)
			w->tid = ev->tid;
		for (p = ev->text; *p;) {
			const char *nl = strchr(p, '\n');
			size_t len = nl ? (size_t)(nl - p) : strlen(p);

			if ((e = add_line(w, &ix, p, len)) < 0)
				goto fail;
			p += len + (nl ? 1 : 0);
		}
	}
	for (size_t i = 0; i < r->nusets; i++) {
		const struct rec_uset *u = &r->usets[i];

		if (u->kind != kind || u->t_ns < a_ns || u->t_ns > b_ns || (tid && u->tid != tid))
			continue;
		if (!w->tid)
			w->tid = u->tid;
		for (uint32_t k = 0; k < u->n; k++)
			if ((e = add_ustack(w, &ix, r, u->stack[k], u->count[k])) < 0)
				goto fail;
	}
	free(ix.slot);
	if (w->n > 1)
		qsort(w->st, w->n, sizeof(*w->st), by_count);
	if (w->nfiles > 1)
		qsort(w->files, w->nfiles, sizeof(*w->files), by_file_count);
	return 0;
fail:
	free(ix.slot);
	where_free(w);
	return e;
}

int where_stall(const struct rec *r, uint64_t a_ns, uint64_t b_ns, struct where *w)
{
	return where_kind(r, WHERE_KIND_STALL, a_ns, b_ns, 0, w);
}

int where_interval(const struct rec *r, const struct rec_interval *iv, struct where *w)
{
	if (!iv->tid) {
		memset(w, 0, sizeof(*w));
		return 0;
	}
	return where_kind(r, WHERE_KIND_INTERVAL, iv->out_ns, iv->out_ns, iv->tid, w);
}

int where_merge(struct where *w, size_t depth)
{
	struct widx ix = { 0 };
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

			if (!more) {
				free(ix.slot);
				return -ENOMEM;
			}
			for (size_t f = depth; f < s->nframes; f++)
				free(s->frames[f]);
			s->frames[depth] = more;
			s->nframes = depth + 1;
		}
		if ((out + 1) * 2 > ix.cap && widx_build(&ix, w, out) < 0)
			return -ENOMEM;
		size_t j = 0;

		k = widx_find(&ix, w, out, s, &j);
		if (k < out) {
			w->st[k].n += s->n;
			stack_free(s);
		} else {
			w->st[out] = *s;
			ix.slot[j] = ++out;
		}
	}
	free(ix.slot);
	w->n = out;
	if (w->n > 1)
		qsort(w->st, w->n, sizeof(*w->st), by_count);
	return 0;
}

int where_any(const struct rec *r)
{
	for (size_t i = 0; i < r->nusets; i++)
		if (r->usets[i].kind == WHERE_KIND_STALL)
			return 1;
	for (size_t i = 0; i < r->nevents; i++)
		if (r->events[i].kind && !strcmp(r->events[i].kind, WHERE_EVENT_STALL))
			return 1;
	return 0;
}

void where_frame_name(struct strbuf *sb, const char *frame)
{
	const char *at = strchr(frame, '@');

	/* "memcpy@@GLIBC_2.14", never "@" first (no name then: kept whole) */
	sb_add(sb, frame, at && at != frame ? (size_t)(at - frame) : strlen(frame));
}

void where_chain(struct strbuf *sb, const struct where_stack *s, size_t depth)
{
	size_t n = depth && depth < s->nframes ? depth : s->nframes;

	for (size_t i = 0; i < n; i++) {
		if (i)
			sb_adds(sb, " <- ");
		where_frame_name(sb, s->frames[i]);
	}
	if (n < s->nframes)
		sb_adds(sb, " <- ...");
}

void where_line(struct strbuf *sb, const struct where_stack *s, uint64_t total, size_t depth)
{
	double pc = total ? 100.0 * (double)s->n / (double)total : 0.0;

	if (pc > 0 && pc < 1)
		sb_adds(sb, "<1 %");
	else
		sb_addf(sb, "%.0f %%", pc);
	if (s->nframes)
		sb_adds(sb, " ");
	where_chain(sb, s, depth);
}
