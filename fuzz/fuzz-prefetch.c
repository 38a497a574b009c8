// SPDX-License-Identifier: MIT
/*
 * fuzz-prefetch.c: a libFuzzer target for the prefetch list
 * (src/core/prefetch.c, prefetch_list_parse: `stallscope prefetch` reads it from
 * the user's cache, where anything may have written it). A parsed list
 * must keep the promises the fetch relies on, else abort(): every file's
 * ranges sorted, disjoint and not wrapping; its text form parses back to
 * the same text; learnt into itself it stays a valid list; and the choice
 * of what to read (prefetch_choose, every range's bytes missing, a budget from
 * a hash of the input) takes no more than the budget, each read inside
 * a range of its file. A refusal must say why. Seeds: fuzz/corpus/prefetch/.
 * Built and run by scripts/fuzz.sh (`make fuzz`), tests/e2e/fuzz-readers.sh
 * and scripts/fuzz-long.sh.
 *
 * fuzz-sources: src/core/prefetch.c src/core/strbuf.c src/core/grow.c
 * fuzz-reader: src/core/prefetch.c
 * fuzz-functions: ^(prefetch_list_parse|prefetch_list_free|prefetch.c:(parse_line|num|perr|ranges_union|push_range|cmp_range))$
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/prefetch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void valid(const struct prefetch_list *l)
{
	if (!l->key)
		abort();
	for (size_t i = 0; i < l->n; i++) {
		const struct prefetch_file *f = &l->f[i];

		if (!f->path)
			abort();
		for (size_t k = 0; k < f->n; k++) {
			if (f->r[k].off + f->r[k].len < f->r[k].off)
				abort();	/* wraps */
			if (k && f->r[k].off < f->r[k - 1].off + f->r[k - 1].len)
				abort();	/* not sorted or not disjoint */
		}
	}
}

static void choose(const struct prefetch_list *l, uint64_t budget)
{
	size_t total = 0, k = 0, n = 0;
	uint64_t *missing;
	struct prefetch_read *rd = NULL;
	int64_t got, sum = 0;

	for (size_t i = 0; i < l->n; i++)
		total += l->f[i].n;
	missing = malloc((total + 1) * sizeof(*missing));
	if (!missing)
		return;
	/* each range's bytes, in prefetch_choose's order (files by order, then by
	 * their place; each file's ranges) as prefetch's fetch counts them */
	for (uint64_t done = 0, ord = 0; done < l->n; ord++) {
		uint64_t next = UINT64_MAX;

		for (size_t i = 0; i < l->n; i++) {
			if (l->f[i].order == ord) {
				for (size_t j = 0; j < l->f[i].n; j++)
					missing[k++] = l->f[i].r[j].len;
				done++;
			} else if (l->f[i].order > ord && l->f[i].order < next) {
				next = l->f[i].order;
			}
		}
		if (next == UINT64_MAX)
			break;
		ord = next - 1;
	}
	got = prefetch_choose(l, missing, budget, 4096, &rd, &n);
	if (got >= 0) {
		if ((uint64_t)got > budget)
			abort();
		for (size_t i = 0; i < n; i++) {
			const struct prefetch_file *f;
			int inside = 0;

			if (rd[i].file >= l->n)
				abort();
			f = &l->f[rd[i].file];
			for (size_t j = 0; j < f->n; j++)
				inside |= rd[i].off >= f->r[j].off &&
					  rd[i].off + rd[i].len <= f->r[j].off + f->r[j].len;
			if (!inside || rd[i].missing > rd[i].len)
				abort();
			sum += (int64_t)rd[i].missing;
		}
		if (sum != got)
			abort();
		free(rd);
	}
	free(missing);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strbuf err = STRBUF_INIT, t1 = STRBUF_INIT, t2 = STRBUF_INIT;
	struct prefetch_list l, back;
	uint64_t budget = 0;
	int e;

	/* the budget: from a hash of the input, any size (the text must stay
	 * a list, so no bytes of it are set apart for this) */
	for (size_t i = 0; i < size; i++)
		budget = (budget ^ data[i]) * 0x100000001b3ull;
	budget >>= budget & 63;
	e = prefetch_list_parse((const char *)data, size, "fuzz", &l, &err);
	if (e == -EINVAL && !err.len)
		abort();
	if (e < 0) {
		sb_release(&err);
		return 0;
	}
	valid(&l);
	if (prefetch_list_format(&l, &t1) == 0) {
		memset(&back, 0, sizeof(back));
		sb_reset(&err);
		if (prefetch_list_parse(t1.buf, t1.len, "again", &back, &err) != 0)
			abort();	/* what it wrote it cannot read */
		if (prefetch_list_format(&back, &t2) != 0 || t1.len != t2.len ||
		    memcmp(t1.buf, t2.buf, t1.len))
			abort();	/* the text form is not stable */
		if (prefetch_list_learn(&back, l.f, l.n) == 0)
			valid(&back);
		prefetch_list_free(&back);
	}
	choose(&l, budget);
	prefetch_list_free(&l);
	sb_release(&err);
	sb_release(&t1);
	sb_release(&t2);
	return 0;
}
