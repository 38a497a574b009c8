/* SPDX-License-Identifier: MIT */
/*
 * export_perfetto.h: an analysed run directory on Perfetto's timeline
 * (`export --perfetto`): its frames and stalls, their causes, the sampled
 * threads' states, exact mode's intervals, the system's counters, the probe's
 * late wake-ups, the watcher's findings and the analysis's segments, each on
 * a track of its own (docs/EXPORT.md lists them).
 */
#ifndef SS_CMD_EXPORT_PERFETTO_H
#define SS_CMD_EXPORT_PERFETTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/strbuf.h"
#include "out/perfetto.h"
#include "run/analyse.h"

struct export_stats {
	size_t tracks, frames, stalls, states, intervals, counter_values, instants;
	size_t stack_samples, api_calls;
	size_t skipped;		/* intervals or deltas left out as inconsistent */
};

/*
 * Writes run directory RUNDIR, analysed into A (with its record: A->rec and
 * A->f, analyse_opts.keep), to O. STREAMED: A was analysed by windows
 * (analyse_opts.windows): the record is read again as it streams, its
 * tracks' parts in temporary files in SPILL_DIR (NULL: $TMPDIR, /tmp)
 * appended in order, the same trace in a memory that does not grow with
 * the record (docs/FORMAT.md, "Streaming"); else A holds the whole record.
 * What the trace cannot hold, or holds only in part (no samples, no
 * frames, a torn or damaged record, no BOOTTIME), is said in NOTES, one
 * line each. Returns 0 or a negative errno with the message in ERR.
 */
int export_perfetto(struct analysis *a, const char *rundir, bool streamed, const char *spill_dir,
		    struct perfetto_out *o, struct export_stats *st, struct strbuf *notes,
		    struct strbuf *err);

#endif
