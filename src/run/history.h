/* SPDX-License-Identifier: MIT */
/*
 * history.h: a benchmark's metrics over its builds (docs/HISTORY.md): per
 * rig and metric, each build's median with an interval, and the change
 * points among the builds by E-Divisive with means (core/edivisive.h), each
 * with the builds either side, the medians before and after, the change and
 * its p, and for stall metrics the stall seconds by cause before and after.
 * `history` prints it. Never prints.
 *
 * Runs counted: those of NAME:VARIANT with a build, not interfered, not
 * failed (of --rig, started at or after --since). The order of builds is
 * the order of their first run (start, then id) over every rig, or an
 * --order list's. The series E-Divisive reads is one point a build: the
 * median of its runs.
 */
#ifndef SS_RUN_HISTORY_H
#define SS_RUN_HISTORY_H

#include <stdbool.h>
#include <stddef.h>

#include "core/edivisive.h"
#include "core/strbuf.h"
#include "db/db.h"

struct history_opts {
	const char *name;
	const char *variant;		/* "-": the base */
	const char *rig;		/* only this rig; NULL: each rig its own series */
	const char *since;		/* runs started at or after (ISO 8601 UTC); NULL */
	char *const *order;		/* builds in order (NULL-terminated); NULL: first runs' */
	char *const *metrics;		/* NULL-terminated */
	struct ediv_opts ed;
	bool keep_runs;			/* fill history.runv and each series' values */
};

/* Which way a metric gets worse: +1 higher (frame times, stalls), -1 lower
 * (fps, lows), 0 neither (frames, seconds). */
int history_worse(const char *metric);

struct history_cause {
	const char *cause;		/* "io", "disk", ... (the stall_*_s columns) */
	double before, after;		/* median stall seconds a run, NaN: no values */
};

struct history_cp {
	size_t at;			/* index in builds[] of the first build after */
	double before, after;		/* the runs' medians in the segments either side */
	double change_pct;		/* NaN when before is 0 */
	double p;
	int worse;			/* 1: worse, 0: better or neutral */
	struct history_cause causes[8];
	size_t ncauses;			/* 0 unless a stall metric */
};

struct history_build {
	const char *build;
	size_t index;			/* in history.builds */
	size_t runs;			/* runs with a value */
	double median, lo, hi;		/* lo..hi: the 95 % CI (ci), else min..max */
	bool ci;
};

struct history_series {
	const char *rig, *metric;
	struct history_build *builds;	/* only builds that have a value */
	size_t nbuilds;
	struct history_cp *cps;
	size_t ncps;
	double *values;			/* keep_runs: by run (history.runv), NaN for
					 * no value and for the runs of other rigs */
	bool too_few;			/* fewer builds than two segments need */
	bool newest_worse;		/* the newest build is in a worse segment */
};

/* A run counted (keep_runs), in the order of their start. */
struct history_run {
	long long id;
	size_t rig, build;		/* indices into history.rigs, builds */
	char *rundir, *started;
};

struct history {
	struct history_series *series;
	size_t nseries;
	char **builds;			/* every build, in order */
	size_t nbuilds;
	char **rigs;
	size_t nrigs;
	size_t runs;			/* runs used */
	struct history_run *runv;	/* keep_runs: those runs (runs of them) */
	size_t no_build, interfered, failed, unordered;	/* runs left out */
};

/* The history of O in DB into *RET (history_free). 0, or a negative errno
 * with ERR (-ENOENT: no runs with a build). */
int history_compute(struct db *db, const struct history_opts *o, struct history **ret,
		    struct strbuf *err);
void history_free(struct history *h);

/* The --order file PATH (one build a line, oldest first: core/build.h) into
 * *RET (build_list_free): 0, or a negative errno with why in ERR. */
int history_order_read(const char *path, char ***ret, struct strbuf *err);

#endif
