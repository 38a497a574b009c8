/* SPDX-License-Identifier: MIT */
/*
 * analyse.h: one input (a frame log or a run directory) in, its metrics,
 * compat numbers, causes and notes out: what report, matrix, stalls, bench
 * and db import share.
 *
 * A run directory holds run.ini (program, variant, t0, pass<N>, reload_*),
 * record.ssr (the frames, CLOCK_MONOTONIC ns) and program.log (lines
 * "[S] text", S seconds since t0). A frame log is anything framelog.h reads.
 * The reload rule for an input is run.ini's reload_* keys, else the rules
 * file's section for its program (run.ini program=, or --program).
 */
#ifndef SS_RUN_ANALYSE_H
#define SS_RUN_ANALYSE_H

#include <stdbool.h>
#include <stdint.h>

#include "core/causes.h"
#include "core/compat.h"
#include "core/metrics.h"
#include "core/reload.h"
#include "core/strbuf.h"
#include "frames/framelog.h"

struct analyse_opts {
	struct metrics_opts m;
	enum framelog_format fmt;
	const struct reload_rules *rules;	/* may be NULL */
	const char *rules_name;		/* the rules file's path, for notes */
	const char *program;		/* --program: the rule for frame logs */
	const double *pass;		/* --pass: overrides run.ini's stamps */
	size_t npass;
	bool pass_given;
	bool keep;		/* keep rec, f and segs in struct analysis (stalls) */
	bool windows;		/* with keep: the record read without its samples
				 * nor intervals (stalls: stall_list reads them
				 * again around each stall, analyse_rec_windows),
				 * and no cause columns */
	bool window_given;	/* --warmup/--from/--to given: run.ini's warmup_s,
				 * window_from_s, window_to_s (bench's) do not apply */
	char **intf_list;	/* --interfered-list: run names known disturbed
				 * (NULL-terminated; NULL: none) */
	const char *intf_list_name;	/* its path, for notes */
};

struct runini;

struct analysis {
	char *source;			/* the input as given */
	char format[64];		/* the frame source: "mangohud-0.6.8", "record", ... */
	char *program, *variant;	/* from run.ini; NULL for a frame log */
	struct metrics m;		/* metrics and every note */
	struct compat_mangohud mh;
	enum compat_mangohud_style mh_style;
	struct compat_capframex cfx;
	/* A run directory's record and what `stalls` needs to split its stalls
	 * (core/causes.h); all NULL/0 for a frame log. Owned, freed by
	 * analysis_release. The cause columns are in m.v[M_STALL_DISK_S...]. */
	struct rec *rec;		/* with its samples, when o->keep kept it
					 * (without, o->windows) */
	size_t rec_nframes;		/* the record's frames (the streamed reads,
					 * o->windows and not o->keep, keep none
					 * in rec: f has them) */
	bool win_ns_ok;			/* win_ns holds the window's bounds */
	uint64_t win_ns[2];		/* the record's presents m.win_first and
					 * m.win_first + m.win_n in time order, ns: a
					 * record without damage, whose presents are all
					 * f's slots (report --threads reads them
					 * instead of the record) */
	struct rec *rec_win;		/* stall_list's second read (o->windows),
					 * whose strings its stalls borrow; owned */
	struct frames *f;		/* the frames metrics were computed on */
	uint64_t t0_ns;			/* the frames' t_s = 0 on the record's clock */
	struct metrics_seg *segs;	/* reload segments */
	size_t nsegs;
	bool play_known;
	int why, why_play;		/* stall_why(_play): enum cause_col, -1 none */
	struct metrics_opts mo;		/* the window used: the options, or run.ini's */
	struct runini *ini;		/* run.ini of a run directory (owned), else NULL */
	int interfered;			/* run.ini's interfered= (1, 0), 1 when listed in
					 * the interfered list, -1 not watched */
	char *interference;		/* the watcher's summary or why listed; owned, NULL */
	char *frames_note;		/* run.ini's frames_note (no frames, or frames that
					 * stopped long before the end); owned, NULL */
	char *failure;			/* why the run failed (runini_failure: the program
					 * failed, no frames, ended short); owned, NULL for a
					 * good run. A failed run is left out of medians. */
	char *log_path;			/* a failed run directory's program.log, where it
					 * is a file; owned, NULL */
};

/*
 * Analyses INPUT. Returns 0 and fills *ret (free its strings with
 * analysis_release), or a negative errno with the message in EMSG (a file
 * that cannot be read or parsed: the message names it and the line).
 */
int analyse_input(const char *input, const struct analyse_opts *o, struct analysis *ret,
		  struct strbuf *emsg);
void analysis_release(struct analysis *a);

/*
 * The record of A (a run directory, analysed with o->windows) read again
 * with ST (rec/rec.h: its windows; NULL: whole), into *RET (rec_free). The file is
 * opened as the analysis opened it. 0, or a negative errno with the
 * message in EMSG.
 */
struct rec_stream;
int analyse_rec_windows(const struct analysis *a, const struct rec_stream *st, struct rec **ret,
			struct strbuf *emsg);

/*
 * Loads the rules file: PATH when given (an error if it cannot be read or
 * parsed), else the installed or source-tree share/reload-rules.ini when one
 * exists (none is not an error: *ret is NULL). Returns 0, or a negative
 * errno with the message in EMSG. *ret_name is the path used (static or
 * PATH).
 */
int analyse_load_rules(const char *path, struct reload_rules **ret, const char **ret_name,
		       struct strbuf *emsg);

/*
 * Reads the interfered-runs list PATH (one run name or directory a line, as
 * `watch --scan --write` writes it; blank lines and '#' comments skipped)
 * into a new NULL-terminated array (free with analyse_free_list). Returns 0,
 * or a negative errno with the message in EMSG.
 */
int analyse_load_intf_list(const char *path, char ***ret, struct strbuf *emsg);
void analyse_free_list(char **list);

/* Whether INPUT (a path; trailing slashes and the directory part ignored)
 * is named in LIST (entries compared the same way). */
bool analyse_in_list(char *const *list, const char *input);

#endif
