/* SPDX-License-Identifier: MIT */
/*
 * symbols.h: the names of a record's user frames, found when a run is
 * loaded for analysis (docs/WHERE.md, "Symbols"). A record of 2.3 holds its
 * user frames as (mapping, file offset); this names each once through
 * linux/symbolize.h and hands core the table (rec->uframe_names), so that
 * core/where.h stays pure and every consumer of where_stall (stalls, its
 * --json and --folded, html, export) shows the same names.
 */
#ifndef SS_RUN_SYMBOLS_H
#define SS_RUN_SYMBOLS_H

#include "core/record.h"
#include "core/strbuf.h"

/* At most this many mappings of a record are read; the frames of the rest
 * show as "[unknown]" (a record is untrusted: this bounds the files opened). */
#define RUN_SYMBOLS_MAPS_MAX 4096

/*
 * Names R's REC_UF_ADDR frames into r->uframe_names (replacing any), from
 * the files the mappings name, checked by build-id. A mapping whose file is
 * not there, differs or cannot be read gives "[unknown]" frames and one
 * line in NOTES: "'WHAT': stacks: PATH (build-id HEX) is not on this
 * machine or differs (WHY): its frames show as [unknown]". The files are
 * read once per process (a cache by build-id). 0, or -ENOMEM.
 */
int run_symbols(struct rec *r, const char *what, struct strbuf *notes);

#endif
