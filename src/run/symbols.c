// SPDX-License-Identifier: MIT
/*
 * symbols.c: a record's user frames named at analysis time (symbols.h).
 * One symbolizer for the process, so that the runs of one command (stalls
 * or html over many runs) read each file once.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "linux/symbolize.h"
#include "run/symbols.h"

static struct symbolizer *sym;	/* the process's; lives to its end */
static int sym_err;

int run_symbols(struct rec *r, const char *what, struct strbuf *notes)
{
	struct strbuf name = STRBUF_INIT, why = STRBUF_INIT;
	uint8_t *noted;
	char **names;
	size_t over = 0;
	int e = 0;

	if (!r->nuframes)
		return 0;
	if (!sym && !sym_err)
		sym_err = symbolizer_new(&sym);
	names = calloc(r->nuframes, sizeof(*names));
	noted = calloc(r->numaps ? r->numaps : 1, 1);
	if (!names || !noted) {
		free(names);
		free(noted);
		return -ENOMEM;
	}
	for (size_t i = 0; i < r->nuframes && !e; i++) {
		const struct rec_uframe *f = &r->uframes[i];
		const struct rec_umap *m;
		int k;

		if (f->kind != REC_UF_ADDR)
			continue;
		m = f->ref < r->numaps ? &r->umaps[f->ref] : NULL;
		if (!m || !m->path)
			continue;	/* a hole: "[unknown]" */
		if (f->ref >= RUN_SYMBOLS_MAPS_MAX) {
			over++;
			continue;
		}
		sb_reset(&name);
		sb_reset(&why);
		if (sym)
			k = symbolizer_name(sym, m->path, m->build_id, m->build_id_len, f->off, &name,
					    &why);
		else
			k = -ENOTSUP;
		if (k == -ENOMEM) {
			e = k;
			break;
		}
		if (k < 0) {
			if (!noted[f->ref]) {
				noted[f->ref] = 1;
				sb_addf(notes, "'%s': stacks: %s (build-id ", what, m->path);
				for (size_t b = 0; b < m->build_id_len; b++)
					sb_addf(notes, "%02x", m->build_id[b]);
				sb_addf(notes, ") is not on this machine or differs (%s): its frames "
					"show as [unknown]\n",
					sym ? why.buf : "this build has no libelf");
			}
			continue;	/* "[unknown]" */
		}
		/* a name is the file's to choose: no line breaks in ours */
		for (size_t c = 0; c < name.len; c++)
			if (name.buf[c] == '\n' || name.buf[c] == '\t')
				name.buf[c] = ' ';
		names[i] = strdup(name.buf);
		if (!names[i])
			e = -ENOMEM;
	}
	if (over)
		sb_addf(notes, "'%s': stacks: the record names more than %d mappings; the frames "
			"of %zu past them show as [unknown]\n", what, RUN_SYMBOLS_MAPS_MAX, over);
	if (r->uframe_names)
		for (size_t i = 0; i < r->nuframes; i++)
			free(r->uframe_names[i]);
	free(r->uframe_names);
	r->uframe_names = names;
	free(noted);
	sb_release(&name);
	sb_release(&why);
	return e;
}
