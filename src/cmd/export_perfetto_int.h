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

struct ctr;
struct ex_stream;

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
	/* the presents' stamps the segments need, and the record's last stamp */
	struct {
		uint64_t first, last;	/* the earliest and the latest present */
		uint64_t win_a, win_b;	/* the window's first and end present */
		uint64_t last_stamp;
	} pt;
	/* export_perfetto_stream.c: each counter export_counters finds, handed
	 * on rather than written from the samples in memory */
	int (*on_counter)(struct ex *x, const struct ctr *c, int field);
	/* the thread a stall's stacks are of, found as the samples passed */
	int64_t (*stall_tid)(const struct ex *x, const struct stall_item *it);
	struct ex_stream *xs;
};

/* What a state slice shows; a new slice when any of it changes. */
struct st_key {
	int64_t state;
	bool runnable;		/* R and it waited for a CPU more than it ran */
	int64_t wchan, syscall, fd_target;
};

/* A counter: a field's rate over the samples. */
struct ctr {
	char field[96];
	char name[96];
	const char *unit_name;
	double scale;		/* rate = delta * scale / ns */
	bool slow;		/* read at slow samples only (docs/FORMAT.md) */
	bool proc;		/* the process's, else the system's */
};

/* A track with a sequence of its own, described; T->uuid 0 takes the next
 * uuid. 0 or a negative errno. */
int export_track_open(struct ex *x, struct perfetto_track *t, struct perfetto_seq **ret);
/* A track that only parents others (its sequence holds its descriptor). */
int export_track_group(struct ex *x, struct perfetto_track *t);

/* The pieces the whole record's exporter and the streamed one
 * (export_perfetto_stream.c) share, each as the former writes it. 0 or a
 * negative errno. */
uint64_t export_fnv(uint64_t h, const char *s);
int export_clocks(struct ex *x);
int export_process_track(struct ex *x);
int export_segments(struct ex *x);	/* from x->pt */
void export_say_missing(struct ex *x, size_t npres, size_t nsamples);
int export_frames_open(struct ex *x, struct perfetto_seq **s);
int export_frame_slice(struct ex *x, struct perfetto_seq *s, const struct stall_item *it,
		       uint64_t a, uint64_t b, uint32_t source);
void export_stall_args(struct ex *x, struct perfetto_seq *s, const struct stall_item *it);
int export_stalls_open(struct ex *x, struct perfetto_seq **s);
int export_stall_slice(struct ex *x, struct perfetto_seq *s, const struct stall_item *it,
		       uint64_t a, uint64_t b);
extern const char export_thread_sampled[], export_thread_unsampled[];
extern const struct perfetto_track export_intervals_track, export_apis_track;
int32_t export_pid_at(const struct ex *x, uint64_t t);
bool export_key_eq(const struct st_key *a, const struct st_key *b);
int export_state_begin(struct ex *x, struct perfetto_seq *s, uint64_t t, const struct st_key *k);
int export_interval(struct ex *x, struct perfetto_seq *s, const struct rec_interval *iv);
int export_apispan(struct ex *x, struct perfetto_seq *s, const struct rec_apispan *sp);
int export_counter_open(struct ex *x, const struct ctr *c, struct perfetto_seq **s);
/* One step of counter C: DV over DT ns from T_PREV; *LAST the value last
 * written. */
int export_counter_step(struct ex *x, struct perfetto_seq *s, const struct ctr *c, int64_t dv,
			uint64_t dt, uint64_t t_prev, double *last);
int export_stall_samples(struct ex *x, struct perfetto_seq *s, const struct stall_item *it,
			 uint64_t a, uint64_t b, struct strbuf *names);

/* The streamed exporter (export_perfetto_stream.c): X set up as
 * export_perfetto sets it, A analysed by windows (run/analyse.h). */
int export_perfetto_stream(struct ex *x, struct analysis *a, const char *rundir,
			   const char *spill_dir, struct strbuf *err);

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
