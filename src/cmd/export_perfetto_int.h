/* SPDX-License-Identifier: MIT */
/*
 * export_perfetto_int.h: what the two halves of the exporter share:
 * export_perfetto.c (the frames, the stalls, the segments, the clocks, the
 * order of it all) and export_perfetto_samples.c (what the sampler, the
 * probe and the watcher saw: threads, counters, late wake-ups, findings).
 */
#ifndef SS_CMD_EXPORT_PERFETTO_INT_H
#define SS_CMD_EXPORT_PERFETTO_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cmd/export_perfetto.h"
#include "cmd/stall_list.h"
#include "out/perfetto.h"

struct ex {
	const struct analysis *a;
	const struct rec *r;
	struct perfetto_out *o;
	struct export_stats *st;
	struct strbuf *notes;
	uint32_t seq;		/* the next sequence id */
	uint64_t uuid;		/* the next track uuid */
	uint64_t base_ns;	/* no event is earlier (nearly: see perfetto.h) */
	uint64_t proc_uuid, sys_uuid;
	int32_t pid;
	const char *abi;	/* syscall_abi */
	struct rec_frame *pres;	/* the presents, in time order */
	size_t npres, nframes;	/* frame k: present k to present k + 1 */
	const struct stall_item **stall_of;	/* by frame; NULL: not a stall */
	struct stall_item *win, *warm;
	size_t nwin, nwarm;
	bool *slow;		/* by sample: the sampler read its slow fields */
	struct strbuf sb;
};

/* A track with a sequence of its own, described; T->uuid 0 takes the next
 * uuid. 0 or a negative errno. */
int export_track_open(struct ex *x, struct perfetto_track *t, struct perfetto_seq **ret);
/* A track that only parents others (its sequence holds its descriptor). */
int export_track_group(struct ex *x, struct perfetto_track *t);

/* The tracks of export_perfetto_samples.c; 0 or a negative errno. */
int export_threads(struct ex *x);
int export_counters(struct ex *x);
int export_probe(struct ex *x);
int export_interference(struct ex *x, const char *rundir);

/* export_perfetto_stacks.c: the stalls' stacks as callstack samples; the
 * timed API calls of thread TID on a track under PARENT (its thread's).
 * 0 or a negative errno. */
int export_stacks(struct ex *x);
int export_apispans(struct ex *x, uint64_t parent, int64_t tid);

#endif
