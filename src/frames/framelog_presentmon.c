// SPDX-License-Identifier: MIT
/*
 * framelog_presentmon.c: PresentMon's CSV (v1, v2 and current column
 * names): rows of several processes or swap chains may be mixed in one
 * file; the swap chain with the most rows is kept (a note says so).
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frames/framelog.h"
#include "frames/framelog_int.h"

/* ------------------------------------------------------------------ */
/* PresentMon */

/* Whether LINE is a PresentMon header (for auto-detection). */
bool fl_pm_is_header(struct span line)
{
	return fl_has_field(line, "msBetweenPresents") || fl_has_field(line, "MsBetweenPresents") ||
	       (span_starts(line, "Application,") && fl_has_field(line, "FrameTime"));
}

#define PM_MAX_CHAINS 64

/* A swap chain: Application, ProcessID, SwapChainAddress of a row, each
 * without the quotes a writer may have put round it. */
struct pm_key {
	struct span f[3];
};

struct pm_chain {
	struct pm_key key;	/* of its first row */
	size_t rows;
};

/* The key of a row: its first three fields (fewer: the others empty). */
static struct pm_key pm_key(struct span line)
{
	const char *p = line.s, *end = line.s + line.len;
	struct pm_key k = { { { NULL, 0 }, { NULL, 0 }, { NULL, 0 } } };

	for (int i = 0; i < 3 && p <= end; i++) {
		const char *e = field_end(p, end);

		k.f[i] = unquote((struct span){ p, (size_t)(e - p) });
		if (e == end)
			break;
		p = e + 1;
	}
	return k;
}

static bool pm_key_eq(const struct pm_key *a, const struct pm_key *b)
{
	for (int i = 0; i < 3; i++)
		if (a->f[i].len != b->f[i].len ||
		    (a->f[i].len && memcmp(a->f[i].s, b->f[i].s, a->f[i].len)))
			return false;
	return true;
}

struct pm_log {
	int nfields;		/* in the header */
	int i_ft;		/* the frame-time column */
	size_t header_line;
	const char *col;	/* its name */
	bool keyed;		/* rows start Application,ProcessID,SwapChainAddress */
	struct pm_chain chains[PM_MAX_CHAINS];
	size_t nchains;
	size_t other_rows;	/* rows of chains past PM_MAX_CHAINS */
};

/*
 * One pass over the rows: parses the frames of swap chain *KEY (the first
 * row's chain when KEY->s is NULL; every row when the log is not keyed) and,
 * when COUNT, counts the rows of every chain. 0 or a negative errno.
 */
static int pm_pass(struct parse *ps, struct cursor *c, struct pm_log *pl, struct pm_key *key,
		   bool count)
{
	struct span line;
	char what[64];
	int r;

	snprintf(what, sizeof(what), "a frame time in ms in column '%s'", pl->col);
	for (;;) {
		const int want[3] = { pl->i_ft, -1, -1 };
		struct span fl[3] = { { 0 } };
		bool mine = true, is_int;
		int i;
		double ft = 0;

		if (!next_row(c, &line, want, fl, &i))
			break;

		if (!line.len) {
			if (c->p >= c->end)
				break;
			return fl_perr(ps, c->lineno,
				       "expected a row of %d fields, got an empty line",
				       pl->nfields);
		}
		if (pl->keyed) {
			struct pm_key k = pm_key(line);

			if (!key->f[0].s)
				*key = k;
			mine = pm_key_eq(&k, key);
			if (count) {
				size_t j;

				for (j = 0; j < pl->nchains; j++)
					if (pm_key_eq(&pl->chains[j].key, &k))
						break;
				if (j == pl->nchains && pl->nchains < PM_MAX_CHAINS)
					pl->chains[pl->nchains++] = (struct pm_chain){ k, 0 };
				if (j < pl->nchains)
					pl->chains[j].rows++;
				else
					pl->other_rows++;
			}
		}
		if (!mine)
			continue;
		if (i != pl->nfields) {
			if (!c->last_had_nl && i < pl->nfields) {
				fl_note(ps,
					"line %zu: last line cut short (%d of %d fields, no "
					"newline): left out", c->lineno, i, pl->nfields);
				break;
			}
			return fl_perr(ps, c->lineno, "expected %d fields as in the header on line "
				       "%zu, got %d", pl->nfields, pl->header_line, i);
		}
		r = fl_read_ft(ps, c->lineno, fl[0], what, &ft, &is_int);
		if (r < 0)
			return r;
		if (r > 0 && (r = push_ft(ps, ft)) < 0)
			return r;
	}
	return 0;
}

int fl_parse_presentmon(struct parse *ps, struct cursor *c)
{
	struct span line, header;
	struct pm_key key = { { { NULL, 0 } } };
	const char *fmt;
	struct pm_log *pl;
	struct cursor data;
	struct frames *f = ps->f;
	size_t best = 0, total = 0;
	int r;

	do {
		if (!next_line(c, &line))
			return fl_perr(ps, 0, "empty file: expected a frame log");
	} while (!trim(line).len);
	header = line;
	pl = calloc(1, sizeof(*pl));
	if (!pl)
		return -ENOMEM;
	pl->header_line = c->lineno;
	if ((pl->i_ft = fl_field_index(header, "MsBetweenPresents", &pl->nfields)) >= 0) {
		pl->col = "MsBetweenPresents";
		fmt = "presentmon";
	} else if ((pl->i_ft = fl_field_index(header, "msBetweenPresents", &pl->nfields)) >= 0) {
		pl->col = "msBetweenPresents";
		fmt = "presentmon-v1";
	} else if ((pl->i_ft = fl_field_index(header, "FrameTime", &pl->nfields)) >= 0) {
		pl->col = "FrameTime";
		fmt = "presentmon-v2";
	} else {
		free(pl);
		return fl_perr_got(ps, c->lineno, header,
				   "expected a PresentMon CSV header with msBetweenPresents (v1), "
				   "FrameTime (v2) or MsBetweenPresents");
	}
	snprintf(f->format, sizeof(f->format), "%s", fmt);
	pl->keyed = fl_field_index(header, "Application", NULL) == 0 &&
		    fl_field_index(header, "ProcessID", NULL) == 1 &&
		    fl_field_index(header, "SwapChainAddress", NULL) == 2;

	/* one pass parses the first row's swap chain and counts them all; a
	 * second (released pages come back from the page cache) is needed only
	 * when another chain has more rows */
	data = *c;
	if ((r = pm_pass(ps, c, pl, &key, true)) < 0)
		goto out;
	for (size_t i = 0; i < pl->nchains; i++) {
		total += pl->chains[i].rows;
		if (pl->chains[i].rows > pl->chains[best].rows)
			best = i;
	}
	if (best != 0) {
		f->n = 0;
		ps->zero_rows = 0;
		sb_reset(&ps->notes);
		key = pl->chains[best].key;
		*c = data;
		if ((r = pm_pass(ps, c, pl, &key, false)) < 0)
			goto out;
	}
	if (!f->n) {
		r = fl_perr(ps, 0, "no frames after the header on line %zu", pl->header_line);
		goto out;
	}
	if (pl->nchains > 1 || pl->other_rows) {
		const struct pm_key *k = &pl->chains[best].key;

		fl_note(ps,
			"%zu swap chains in the log; kept '%.*s,%.*s,%.*s' (%zu frames), left out "
			"%zu rows of the others", pl->nchains + (pl->other_rows ? 1 : 0),
			(int)k->f[0].len, k->f[0].s, (int)k->f[1].len, k->f[1].s, (int)k->f[2].len,
			k->f[2].s, pl->chains[best].rows,
			total + pl->other_rows - pl->chains[best].rows);
	}
	fl_note(ps, "%s: frame times from column %s; frame ends from their running sum", fmt,
		pl->col);
out:
	free(pl);
	return r;
}

