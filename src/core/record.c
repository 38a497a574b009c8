// SPDX-License-Identifier: MIT
/*
 * record.c: the accessors of struct rec (core/record.h), the record in
 * memory. Pure: the file format and its reader live in src/rec.
 *
 * Assumes the struct was filled by the reader or built by hand with every
 * pointer malloc'd (or NULL with its count 0): rec_free frees each string,
 * each thread snapshot's array, and every array.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/record.h"

void rec_free(struct rec *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->nmeta; i++) {
		free(r->meta[i].key);
		free(r->meta[i].value);
	}
	free(r->meta);
	for (i = 0; i < r->nfields; i++)
		free(r->fields[i].name);
	free(r->fields);
	free(r->t_ns);
	free(r->vals);
	free(r->frames);
	for (i = 0; i < r->nthreads; i++)
		free(r->threads[i].th);
	free(r->threads);
	free(r->clocks);
	for (i = 0; i < r->nevents; i++) {
		free(r->events[i].kind);
		free(r->events[i].text);
	}
	free(r->events);
	free(r->intervals);
	free(r->apispans);
	for (i = 0; i < r->numaps; i++)
		free(r->umaps[i].path);
	free(r->umaps);
	free(r->uframes);
	for (i = 0; i < r->nustacks; i++)
		free(r->ustacks[i].frames);
	free(r->ustacks);
	for (i = 0; i < r->nusets; i++) {
		free(r->usets[i].stack);
		free(r->usets[i].count);
	}
	free(r->usets);
	if (r->uframe_names)
		for (i = 0; i < r->nuframes; i++)
			free(r->uframe_names[i]);
	free(r->uframe_names);
	for (i = 0; i < r->nstrs; i++)
		free(r->strs[i]);
	free(r->strs);
	free(r->damage);
	free(r);
}

int rec_torn_to_damage(struct rec *r)
{
	struct rec_damage *d;

	if (!r->torn_bytes)
		return 0;
	/* one entry, once: the reader's room for the damage is its own */
	d = realloc(r->damage, (r->ndamage + 1) * sizeof(*d));
	if (!d)
		return -ENOMEM;
	r->damage = d;
	r->damage[r->ndamage++] = (struct rec_damage){ .off = r->torn_off, .bytes = r->torn_bytes,
						       .t_before_ns = r->torn_t_ns };
	r->damaged_bytes += r->torn_bytes;
	r->torn_bytes = 0;
	return 1;
}

const char *rec_meta_get(const struct rec *r, const char *key)
{
	size_t i;

	if (!r || !key)
		return NULL;
	/* The last value wins: meta written later in the file overrides. */
	for (i = r->nmeta; i-- > 0;)
		if (r->meta[i].key && !strcmp(r->meta[i].key, key))
			return r->meta[i].value ? r->meta[i].value : "";
	return NULL;
}

int rec_field_index(const struct rec *r, const char *name)
{
	size_t i;

	if (!r || !name)
		return -1;
	for (i = 0; i < r->nfields && i < (size_t)INT32_MAX; i++)
		if (r->fields[i].name && !strcmp(r->fields[i].name, name))
			return (int)i;
	return -1;
}

const char *rec_str(const struct rec *r, int64_t id)
{
	if (!r || id <= 0 || (uint64_t)id >= r->nstrs || !r->strs[id])
		return "";
	return r->strs[id];
}

const char *rec_source_name(uint32_t source)
{
	static const char *const names[] = { NULL,  "marker", "glx",  "egl",  "vk",
					     "hud", "xshm",   "xput", "wlshm" };

	return source <= REC_SOURCE_MAX ? names[source] : NULL;
}
