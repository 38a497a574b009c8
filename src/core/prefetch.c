// SPDX-License-Identifier: MIT
/*
 * prefetch.c: the prefetch list and its arithmetic (prefetch.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "core/prefetch.h"

/* --------------------------------------------------------------- ranges */

/* Appends [off, off + len) to *R, merged into the last range when that is
 * at index FIRST or later and ends less than HOLE before OFF. */
static int push_range(struct prefetch_range **r, size_t *n, size_t *cap, size_t first, uint64_t off,
		      uint64_t len, uint64_t phys, uint64_t hole)
{
	if (*n > first && off <= (*r)[*n - 1].off + (*r)[*n - 1].len + hole) {
		struct prefetch_range *p = &(*r)[*n - 1];
		uint64_t end = off + len > p->off + p->len ? off + len : p->off + p->len;

		if (off < p->off) {	/* only when merging unsorted input; keep the first */
			p->phys = phys;
			p->off = off;
		}
		p->len = end - p->off;
		return 0;
	}
	if (ARRAY_GROW(*r, *cap, *n + 1) < 0)
		return -ENOMEM;
	(*r)[(*n)++] = (struct prefetch_range){ off, len, phys };
	return 0;
}

int prefetch_ranges_from_mincore(const unsigned char *vec, size_t npages, size_t page, uint64_t size,
			   uint64_t hole, struct prefetch_range **r, size_t *n, size_t *cap)
{
	size_t first = *n;

	for (size_t i = 0; i < npages;) {
		size_t j = i;
		uint64_t off, end;

		if (!(vec[i] & 1)) {
			i++;
			continue;
		}
		while (j < npages && (vec[j] & 1))
			j++;
		off = (uint64_t)i * page;
		end = (uint64_t)j * page;
		if (end > size)
			end = size;
		/* merged only with this file's own runs (*R may hold others') */
		if (off < end && push_range(r, n, cap, first, off, end - off, PREFETCH_NO_PHYS, hole) < 0)
			return -ENOMEM;
		i = j;
	}
	return 0;
}

void prefetch_ranges_map(struct prefetch_range *r, size_t n, const struct prefetch_extent *ext, size_t next)
{
	for (size_t k = 0; k < n; k++) {
		size_t lo = 0, hi = next;

		r[k].phys = PREFETCH_NO_PHYS;
		while (lo < hi) {	/* the last extent starting at or before off */
			size_t mid = lo + (hi - lo) / 2;

			if (ext[mid].logical <= r[k].off)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo && r[k].off < ext[lo - 1].logical + ext[lo - 1].len)
			r[k].phys = ext[lo - 1].physical + (r[k].off - ext[lo - 1].logical);
	}
}

static int cmp_range(const void *pa, const void *pb)
{
	const struct prefetch_range *a = pa, *b = pb;

	return a->off < b->off ? -1 : a->off > b->off;
}

/* F's ranges and ADD's, as one sorted list with holes under PREFETCH_HOLE_FILL
 * filled. */
static int ranges_union(struct prefetch_file *f, const struct prefetch_range *add, size_t nadd)
{
	struct prefetch_range *all = malloc((f->n + nadd + 1) * sizeof(*all)), *out = NULL;
	size_t n = 0, cap = 0, total = f->n + nadd;

	if (!all)
		return -ENOMEM;
	if (f->n)
		memcpy(all, f->r, f->n * sizeof(*all));
	if (nadd)
		memcpy(all + f->n, add, nadd * sizeof(*all));
	qsort(all, total, sizeof(*all), cmp_range);
	for (size_t k = 0; k < total; k++)
		if (push_range(&out, &n, &cap, 0, all[k].off, all[k].len, all[k].phys,
			       PREFETCH_HOLE_FILL) < 0) {
			free(all);
			free(out);
			return -ENOMEM;
		}
	free(all);
	free(f->r);
	f->r = out;
	f->n = n;
	f->cap = cap;
	return 0;
}

/* ----------------------------------------------------------------- list */

void prefetch_list_free(struct prefetch_list *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->n; i++) {
		free(l->f[i].path);
		free(l->f[i].r);
	}
	free(l->f);
	free(l->key);
	memset(l, 0, sizeof(*l));
}

static uint32_t next_order(const struct prefetch_list *l)
{
	uint32_t o = 0;

	for (size_t i = 0; i < l->n; i++)
		if (l->f[i].order >= o)
			o = l->f[i].order + 1;
	return o;
}

struct prefetch_file *prefetch_list_file(struct prefetch_list *l, const char *path)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->f[i].path, path))
			return &l->f[i];
	if (ARRAY_GROW(l->f, l->cap, l->n + 1) < 0)
		return NULL;
	l->f[l->n] = (struct prefetch_file){ .path = strdup(path), .order = next_order(l) };
	if (!l->f[l->n].path)
		return NULL;
	return &l->f[l->n++];
}

/* A path -> index table for one learn (a game's data can be 20,000 files). */
struct idx {
	const char **key;
	size_t *at;
	size_t cap;
};

static uint64_t hash_str(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	while (*s)
		h = (h ^ (uint8_t)*s++) * 0x100000001b3ull;
	return h;
}

static int idx_build(struct idx *t, const struct prefetch_list *l)
{
	t->cap = 16;
	while (t->cap < 2 * l->n + 2)
		t->cap *= 2;
	t->key = calloc(t->cap, sizeof(*t->key));
	t->at = calloc(t->cap, sizeof(*t->at));
	if (!t->key || !t->at)
		return -ENOMEM;
	for (size_t i = 0; i < l->n; i++) {
		size_t k = hash_str(l->f[i].path) & (t->cap - 1);

		while (t->key[k])
			k = (k + 1) & (t->cap - 1);
		t->key[k] = l->f[i].path;
		t->at[k] = i;
	}
	return 0;
}

static size_t idx_find(const struct idx *t, const char *path)
{
	for (size_t k = hash_str(path) & (t->cap - 1); t->key[k]; k = (k + 1) & (t->cap - 1))
		if (!strcmp(t->key[k], path))
			return t->at[k];
	return SIZE_MAX;
}

int prefetch_list_learn(struct prefetch_list *l, const struct prefetch_file *seen, size_t n)
{
	struct idx t = { 0 };
	size_t old = l->n, w = 0;
	bool *hit = calloc(old + 1, sizeof(*hit));
	uint32_t order = next_order(l);
	int r = hit ? idx_build(&t, l) : -ENOMEM;

	for (size_t i = 0; !r && i < n; i++) {
		size_t at = idx_find(&t, seen[i].path);
		struct prefetch_file *f;

		if (at != SIZE_MAX) {
			if (hit[at])
				continue;	/* listed twice in one learn */
			hit[at] = seen[i].n > 0;
			if (seen[i].n)
				r = ranges_union(&l->f[at], seen[i].r, seen[i].n);
			continue;
		}
		if (!seen[i].n)
			continue;	/* new, and nothing of it resident: nothing to read */
		if (ARRAY_GROW(l->f, l->cap, l->n + 1) < 0) {
			r = -ENOMEM;
			break;
		}
		f = &l->f[l->n];
		*f = (struct prefetch_file){ .path = strdup(seen[i].path), .order = order++ };
		if (!f->path) {
			r = -ENOMEM;
			break;
		}
		l->n++;
		r = ranges_union(f, seen[i].r, seen[i].n);
	}
	/* the misses, and the files that missed too often go; the new files
	 * (after OLD) were all hit */
	for (size_t i = 0; !r && i < l->n; i++) {
		struct prefetch_file *f = &l->f[i];

		if (i < old)
			f->misses = hit[i] ? 0 : f->misses + 1;
		if (f->misses >= PREFETCH_MAX_MISSES) {
			free(f->path);
			free(f->r);
			continue;
		}
		l->f[w++] = *f;
	}
	if (!r) {
		l->n = w;
		l->learns++;
	}
	free(hit);
	free(t.key);
	free(t.at);
	return r;
}

/* ----------------------------------------------------------------- text */

#define PREFETCH_MAGIC "stallscope-prefetch 1"

int prefetch_list_format(const struct prefetch_list *l, struct strbuf *out)
{
	int r = sb_addf(out, PREFETCH_MAGIC "\nexe %" PRIu64 " %" PRId64 " %" PRIu32 " %s\n", l->exe_size,
			l->exe_mtime, l->learns, l->key ? l->key : "");

	for (size_t i = 0; !r && i < l->n; i++) {
		const struct prefetch_file *f = &l->f[i];

		if (strchr(f->path, '\n'))
			continue;	/* a name the format cannot hold: not listed */
		r = sb_addf(out, "file %" PRIu32 " %" PRIu32 " %s\n", f->order, f->misses, f->path);
		for (size_t k = 0; !r && k < f->n; k++) {
			if (f->r[k].phys == PREFETCH_NO_PHYS)
				r = sb_addf(out, "r %" PRIu64 " %" PRIu64 " -\n", f->r[k].off, f->r[k].len);
			else
				r = sb_addf(out, "r %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", f->r[k].off,
					    f->r[k].len, f->r[k].phys);
		}
	}
	return r;
}

/* WHY's text, for a line that is not what the format says; -EINVAL. */
__attribute__((format(printf, 2, 3))) static int perr(struct strbuf *why, const char *fmt, ...)
{
	va_list ap;

	sb_reset(why);
	va_start(ap, fmt);
	sb_vaddf(why, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* A number of the line at *P, then one space (or the line's end when LAST). */
static int num(const char **p, uint64_t *ret, bool last)
{
	char *end;

	if (**p < '0' || **p > '9')
		return -1;
	errno = 0;
	*ret = strtoull(*p, &end, 10);
	if (errno || (last ? *end != 0 : *end != ' '))
		return -1;
	*p = last ? end : end + 1;
	return 0;
}

static int parse_line(struct prefetch_list *l, char *line, struct strbuf *why)
{
	const char *p;
	uint64_t a, b, c;

	if (!strncmp(line, "exe ", 4)) {
		p = line + 4;
		if (num(&p, &a, false) || num(&p, &b, false) || num(&p, &c, false) || !*p ||
		    l->key || b > INT64_MAX || c > UINT32_MAX)
			return perr(why, "expected 'exe SIZE MTIME LEARNS PATH' once (MTIME "
					 "below 2^63, LEARNS below 2^32)");
		l->exe_size = a;
		l->exe_mtime = (int64_t)b;
		l->learns = (uint32_t)c;
		l->key = strdup(p);
		return l->key ? 0 : -ENOMEM;
	}
	if (!strncmp(line, "file ", 5)) {
		struct prefetch_file *f;

		p = line + 5;
		if (num(&p, &a, false) || num(&p, &b, false) || !*p || a > UINT32_MAX || b > UINT32_MAX)
			return perr(why, "expected 'file ORDER MISSES PATH'");
		if (ARRAY_GROW(l->f, l->cap, l->n + 1) < 0)
			return -ENOMEM;
		f = &l->f[l->n];
		*f = (struct prefetch_file){ .path = strdup(p), .order = (uint32_t)a, .misses = (uint32_t)b };
		if (!f->path)
			return -ENOMEM;
		l->n++;
		return 0;
	}
	if (!strncmp(line, "r ", 2)) {
		struct prefetch_file *f = l->n ? &l->f[l->n - 1] : NULL;
		bool dash;

		p = line + 2;
		if (!f)
			return perr(why, "a range before any file");
		if (num(&p, &a, false) || num(&p, &b, false))
			return perr(why, "expected 'r OFFSET LENGTH PHYS|-'");
		dash = !strcmp(p, "-");
		if (!dash && num(&p, &c, true))
			return perr(why, "expected 'r OFFSET LENGTH PHYS|-'");
		if (!b || a + b < a)
			return perr(why, "a range of no bytes, or past 2^64");
		if (ARRAY_GROW(f->r, f->cap, f->n + 1) < 0)
			return -ENOMEM;
		f->r[f->n++] = (struct prefetch_range){ a, b, dash ? PREFETCH_NO_PHYS : c };
		return 0;
	}
	return perr(why, "expected 'exe', 'file' or 'r', got '%.40s'", line);
}

int prefetch_list_parse(const char *buf, size_t len, const char *name, struct prefetch_list *ret,
		  struct strbuf *err)
{
	struct prefetch_list l = { 0 };
	struct strbuf why = STRBUF_INIT;
	size_t lineno = 0;
	int r = 0;

	for (size_t at = 0; at < len && !r;) {
		const char *nl = memchr(buf + at, '\n', len - at);
		size_t n = nl ? (size_t)(nl - (buf + at)) : len - at;
		char *line = strndup(buf + at, n);

		lineno++;
		at += n + 1;
		if (!line) {
			r = -ENOMEM;
			break;
		}
		if (memchr(buf + at - n - 1, 0, n))
			r = perr(&why, "a NUL byte");
		else if (lineno == 1)
			r = strcmp(line, PREFETCH_MAGIC) ? perr(&why, "expected '" PREFETCH_MAGIC "'")
						   : 0;
		else
			r = parse_line(&l, line, &why);
		free(line);
	}
	if (!r && !lineno)
		r = perr(&why, "empty");
	if (!r && !l.key)
		r = perr(&why, "no 'exe' line"), lineno = 2;
	/* ranges as written by anyone: sorted and merged */
	for (size_t i = 0; !r && i < l.n; i++) {
		struct prefetch_file *f = &l.f[i];
		struct prefetch_range *raw = f->r;
		size_t nraw = f->n;

		f->r = NULL;
		f->n = f->cap = 0;
		r = ranges_union(f, raw, nraw);
		free(raw);
	}
	if (r < 0) {
		if (r == -EINVAL && err)
			sb_addf(err, "'%s' line %zu: %s", name, lineno, why.buf);
		prefetch_list_free(&l);
		sb_release(&why);
		return r;
	}
	sb_release(&why);
	*ret = l;
	return 0;
}

/* --------------------------------------------------------------- choose */

struct ref {
	size_t file, range;
	uint32_t order;
};

static int cmp_ref(const void *pa, const void *pb)
{
	const struct ref *a = pa, *b = pb;

	if (a->order != b->order)
		return a->order < b->order ? -1 : 1;
	/* two files of the same order (a list someone edited): by their place
	 * in the list, never their ranges interleaved (fuzz-prefetch found the
	 * missing bytes the caller counts file by file then going to another
	 * file's range) */
	if (a->file != b->file)
		return a->file < b->file ? -1 : 1;
	return a->range < b->range ? -1 : a->range > b->range;
}

static int cmp_read(const void *pa, const void *pb)
{
	const struct prefetch_read *a = pa, *b = pb;

	if (a->phys != b->phys)
		return a->phys < b->phys ? -1 : 1;	/* PREFETCH_NO_PHYS last */
	if (a->file != b->file)
		return a->file < b->file ? -1 : 1;
	return a->off < b->off ? -1 : a->off > b->off;
}

int64_t prefetch_choose(const struct prefetch_list *l, const uint64_t *missing, uint64_t budget,
		  size_t page, struct prefetch_read **ret, size_t *n)
{
	struct ref *refs;
	struct prefetch_read *out;
	size_t total = 0, k = 0, nout = 0;
	uint64_t left = budget;

	for (size_t i = 0; i < l->n; i++)
		total += l->f[i].n;
	refs = malloc((total + 1) * sizeof(*refs));
	out = malloc((total + 1) * sizeof(*out));
	if (!refs || !out) {
		free(refs);
		free(out);
		return -ENOMEM;
	}
	for (size_t i = 0; i < l->n; i++)
		for (size_t j = 0; j < l->f[i].n; j++)
			refs[k++] = (struct ref){ i, j, l->f[i].order };
	qsort(refs, total, sizeof(*refs), cmp_ref);
	for (k = 0; k < total && left; k++) {
		const struct prefetch_range *r = &l->f[refs[k].file].r[refs[k].range];
		uint64_t miss = missing[k], len = r->len;

		if (!miss)
			continue;
		if (miss > left) {	/* what fits: a page-aligned head */
			len = left / page * page;
			miss = len < miss ? len : miss;
			if (!len)
				break;
		}
		out[nout++] = (struct prefetch_read){ refs[k].file, r->off, len, r->phys, miss };
		left -= miss;
	}
	free(refs);
	qsort(out, nout, sizeof(*out), cmp_read);
	*ret = out;
	*n = nout;
	return (int64_t)(budget - left);
}

/* ----------------------------------------------------------------- stop */

enum prefetch_stop prefetch_should_stop(const struct prefetch_sys *start, const struct prefetch_sys *now,
			    uint64_t reserve_kb, double elapsed_s, double limit_s, bool exited)
{
	if (exited)
		return PREFETCH_STOP_EXIT;
	if (now->mem_avail_kb < reserve_kb)
		return PREFETCH_STOP_MEM;
	if (now->allocstall != start->allocstall || now->compact_stall != start->compact_stall)
		return PREFETCH_STOP_RECLAIM;
	if (now->pswpin != start->pswpin || now->pswpout != start->pswpout)
		return PREFETCH_STOP_SWAP;
	if (elapsed_s > limit_s)
		return PREFETCH_STOP_TIME;
	return PREFETCH_GO;
}

const char *prefetch_stop_name(enum prefetch_stop s)
{
	switch (s) {
	case PREFETCH_GO: return "not stopped";
	case PREFETCH_STOP_MEM: return "MemAvailable under the reserve";
	case PREFETCH_STOP_RECLAIM: return "direct reclaim or compaction";
	case PREFETCH_STOP_SWAP: return "swapping";
	case PREFETCH_STOP_TIME: return "time limit";
	case PREFETCH_STOP_EXIT: return "the program exited";
	case PREFETCH_STOP_DONE: return "done";
	}
	return "?";
}
