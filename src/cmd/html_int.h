/* SPDX-License-Identifier: MIT */
/*
 * html_int.h: what html.c (the page's data) and html_stacks.c (the stalls'
 * stacks for its flame graphs) share.
 */
#ifndef SS_CMD_HTML_INT_H
#define SS_CMD_HTML_INT_H

#include <stddef.h>

#include "cmd/stall_list.h"
#include "out/json.h"
#include "rec/rec.h"

/* The page's K-th stall in L (stall_list.h): the warm-up's first, then
 * the window's. */
static inline size_t html_stall_at(const struct stall_list *l, size_t k)
{
	return k < l->nwarm ? l->nwin + k : k - l->nwarm;
}

/* Key "stacks" on J: the stacks of the stalls of L (in the page's order,
 * html_stall_at) from REC, gzip+base64 (html_stacks.c says the layout), or
 * null when REC holds none. 0 or a negative errno. */
int html_stacks_data(struct json *j, const struct rec *rec, const struct stall_list *l);

#endif
