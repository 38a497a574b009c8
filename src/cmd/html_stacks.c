// SPDX-License-Identifier: MIT
/*
 * html_stacks.c: the stalls' stacks for the html page's flame graphs
 * (html_int.h; docs/HTML.md, docs/WHERE.md). Each stall's user and kernel
 * stacks (core/where.h, as `stalls --json` gives them) go into one JSON
 * document, gzip-compressed and base64-encoded like the frame times:
 *
 *   { "names": ["main", "stall_cpu", "spin_until", "schedule_[k]", ...],
 *     "stalls": [ { "n": 301, "st": [[296, 0, 1, 2], ...], "more": [0, 0] },
 *                 null, ... ] }
 *
 * one entry per stall in the page's order; a stack is its sample count and
 * its frames' indices into "names", outermost first (the order a flame
 * graph draws them), kernel frames on top with "_[k]" as in `stalls
 * --folded`. A stall keeps its STACKS_PER_STALL most sampled stacks; "more"
 * counts the stacks and samples of the rest. The page stays small: once the
 * document passes STACKS_BUDGET bytes, the later stalls' entries are null
 * (left out, and counted in "left_out"). The names come after the stalls
 * in the document (they are known at its end).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/html_int.h"
#include "core/strbuf.h"
#include "core/where.h"
#include "out/html.h"
#include "out/json.h"

#define STACKS_PER_STALL 256
#define STACKS_BUDGET (4u << 20)	/* bytes of JSON before compression */

/* Frame names, each once: name -> index (open addressing), and the names
 * in index order. */
struct names {
	char **key;
	size_t *idx;
	size_t cap, n;
	char **list;		/* borrowed from key */
	size_t bytes;		/* the names' length in the document, about */
};

static uint64_t hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	while (*s)
		h = (h ^ (uint8_t)*s++) * 0x100000001b3ull;
	return h;
}

static void names_release(struct names *t)
{
	for (size_t i = 0; i < t->cap; i++)
		free(t->key[i]);
	free(t->key);
	free(t->idx);
	free(t->list);
}

static int names_grow(struct names *t)
{
	size_t cap = t->cap ? 2 * t->cap : 256;
	char **key = calloc(cap, sizeof(*key));
	size_t *idx = calloc(cap, sizeof(*idx));
	/* the list grows with the hash table, at half its slots */
	char **list = realloc(t->list, cap / 2 * sizeof(*list));

	if (!key || !idx || !list) {
		free(key);
		free(idx);
		if (list)
			t->list = list;
		return -ENOMEM;
	}
	t->list = list;
	for (size_t i = 0; i < t->cap; i++) {
		size_t k;

		if (!t->key[i])
			continue;
		for (k = hash(t->key[i]) & (cap - 1); key[k]; k = (k + 1) & (cap - 1))
			;
		key[k] = t->key[i];
		idx[k] = t->idx[i];
	}
	free(t->key);
	free(t->idx);
	t->key = key;
	t->idx = idx;
	t->cap = cap;
	return 0;
}

/* The index of frame F as shown (its name, "_[k]" after a kernel frame's),
 * a new one added; -ENOMEM. TMP is scratch. */
static long frame_index(struct names *t, struct strbuf *tmp, const char *f, bool kernel)
{
	size_t k;

	sb_reset(tmp);
	where_frame_name(tmp, f);
	if (kernel)
		sb_adds(tmp, "_[k]");
	if (2 * (t->n + 1) > t->cap && names_grow(t) < 0)
		return -ENOMEM;
	for (k = hash(tmp->buf) & (t->cap - 1); t->key[k]; k = (k + 1) & (t->cap - 1))
		if (!strcmp(t->key[k], tmp->buf))
			return (long)t->idx[k];
	if (!(t->key[k] = strdup(tmp->buf)))
		return -ENOMEM;
	t->idx[k] = t->n;
	t->list[t->n] = t->key[k];
	t->bytes += tmp->len + 3;
	return (long)t->n++;
}

/* Stall S's entry {"n", "st", "more"} on J. 0 or -ENOMEM. */
static int stall_entry(struct json *j, const struct rec *rec, const struct stall_item *s,
		       struct names *t, struct strbuf *tmp)
{
	uint64_t more_n = 0;
	size_t k;
	struct where w;
	int r = stall_where(rec, s, &w);

	if (r < 0)
		return r;
	json_obj_begin(j);
	json_kuint(j, "n", w.total);
	json_key(j, "st");
	json_arr_begin(j);
	for (k = 0; k < w.n && k < STACKS_PER_STALL && r >= 0; k++) {
		const struct where_stack *st = &w.st[k];
		long i = 0;

		json_arr_begin(j);
		json_uint(j, st->n);
		for (size_t f = st->nframes; f-- > 0 && i >= 0;)
			if ((i = frame_index(t, tmp, st->frames[f], false)) >= 0)
				json_int(j, i);
		for (size_t f = st->nkframes; f-- > 0 && i >= 0;)
			if ((i = frame_index(t, tmp, st->kframes[f], true)) >= 0)
				json_int(j, i);
		json_arr_end(j);
		r = i < 0 ? (int)i : 0;
	}
	json_arr_end(j);
	for (size_t m = k; m < w.n; m++)
		more_n += w.st[m].n;
	json_key(j, "more");
	json_arr_begin(j);
	json_uint(j, w.n - k);
	json_uint(j, more_n);
	json_arr_end(j);
	json_obj_end(j);
	where_free(&w);
	return r;
}

int html_stacks_data(struct json *out, const struct rec *rec, const struct stall_list *l)
{
	size_t n = l->nwin + l->nwarm;
	struct stall_item s;
	struct strbuf tmp = STRBUF_INIT, b64 = STRBUF_INIT;
	struct names t = { 0 };
	size_t with = 0, left_out = 0, len = 0;
	char *doc = NULL;
	struct json j;
	FILE *mf;
	int r = 0;

	json_key(out, "stacks");
	if (!rec || !where_any(rec)) {
		json_null(out);
		return 0;
	}
	mf = open_memstream(&doc, &len);
	if (!mf)
		return -ENOMEM;
	/* the stalls first: the names are known at the end */
	json_init(&j, mf, false);
	json_obj_begin(&j);
	json_key(&j, "stalls");
	json_arr_begin(&j);
	for (size_t i = 0; i < n && r >= 0; i++) {
		if (fflush(mf) == 0 && (size_t)ftell(mf) + t.bytes > STACKS_BUDGET) {
			json_null(&j);
			left_out++;
			continue;
		}
		r = stall_list_get(l, html_stall_at(l, i), &s);
		r = r ? r : stall_entry(&j, rec, &s, &t, &tmp);
		with++;
	}
	json_arr_end(&j);
	json_key(&j, "names");
	json_arr_begin(&j);
	for (size_t i = 0; i < t.n; i++)
		json_str(&j, t.list[i]);
	json_arr_end(&j);
	json_obj_end(&j);
	json_end(&j);
	if (fclose(mf) != 0 && r >= 0)
		r = -ENOMEM;
	if (r >= 0)
		r = html_b64gz(doc, len, &b64);
	if (r >= 0) {
		json_obj_begin(out);
		json_kuint(out, "stalls", with);
		json_kuint(out, "left_out", left_out);
		json_kuint(out, "names", t.n);
		json_kuint(out, "bytes", len);
		json_kstr(out, "json_gz_b64", b64.buf);
		json_obj_end(out);
	} else {
		json_null(out);
	}
	free(doc);
	names_release(&t);
	sb_release(&tmp);
	sb_release(&b64);
	return r < 0 ? r : 0;
}
