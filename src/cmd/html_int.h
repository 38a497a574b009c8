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

/* Key "stacks" on J: the stacks of the N stalls S (the page's stalls, in
 * its order) from REC, gzip+base64 (html_stacks.c says the layout), or
 * null when REC holds none. 0 or -ENOMEM. */
int html_stacks_data(struct json *j, const struct rec *rec, const struct stall_item *const *s,
		     size_t n);

#endif
