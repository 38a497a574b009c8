// SPDX-License-Identifier: MIT
/* ksyms.c: /proc/kallsyms, sorted by address (ksyms.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "linux/ksyms.h"

struct ksym {
	uint64_t addr;
	size_t name;	/* offset into names */
};

struct ksyms {
	struct ksym *v;
	size_t n, a;
	char *names;
	size_t nlen, alen;
};

void ksyms_free(struct ksyms *k)
{
	if (!k)
		return;
	free(k->v);
	free(k->names);
	free(k);
}

static int by_addr(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int add(struct ksyms *k, uint64_t addr, const char *name)
{
	size_t len = strlen(name) + 1;

	if (ARRAY_GROW(k->v, k->a, k->n + 1) < 0 || ARRAY_GROW(k->names, k->alen, k->nlen + len) < 0)
		return -ENOMEM;
	memcpy(k->names + k->nlen, name, len);
	k->v[k->n++] = (struct ksym){ .addr = addr, .name = k->nlen };
	k->nlen += len;
	return 0;
}

int ksyms_load(const char *root, struct ksyms **ret)
{
	char path[4096], line[512], name[256];
	struct ksyms *k;
	uint64_t nonzero = 0;
	FILE *f;
	int r = 0;

	snprintf(path, sizeof(path), "%s/proc/kallsyms", root ? root : "");
	f = fopen(path, "re");
	if (!f)
		return -errno;
	k = calloc(1, sizeof(*k));
	if (!k) {
		fclose(f);
		return -ENOMEM;
	}
	while (fgets(line, sizeof(line), f)) {
		uint64_t addr;
		char type;

		if (sscanf(line, "%" SCNx64 " %c %255s", &addr, &type, name) != 3)
			continue;
		nonzero |= addr;
		/* text symbols only: the stacks are return addresses */
		if (type != 't' && type != 'T')
			continue;
		r = add(k, addr, name);
		if (r < 0)
			break;
	}
	fclose(f);
	if (!r && !nonzero)
		r = -EACCES;
	if (r < 0) {
		ksyms_free(k);
		return r;
	}
	qsort(k->v, k->n, sizeof(*k->v), by_addr);
	*ret = k;
	return 0;
}

const char *ksyms_find(const struct ksyms *k, uint64_t addr)
{
	size_t lo = 0, hi;

	if (!k || !k->n || addr < k->v[0].addr)
		return NULL;
	hi = k->n;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (k->v[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	return k->names + k->v[lo].name;
}

int ksyms_range(const struct ksyms *k, const char *name, uint64_t *lo, uint64_t *hi)
{
	for (size_t i = 0; k && i < k->n; i++) {
		if (strcmp(k->names + k->v[i].name, name))
			continue;
		*lo = k->v[i].addr;
		*hi = *lo + 1;
		for (size_t j = i + 1; j < k->n; j++)
			if (k->v[j].addr > *lo) {
				*hi = k->v[j].addr;
				break;
			}
		return 0;
	}
	return -ENOENT;
}
