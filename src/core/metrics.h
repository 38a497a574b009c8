/* SPDX-License-Identifier: MIT */
/*
 * metrics.h: the frame metrics of one run over its window, warm-up and play
 * (docs/METRICS.md is the contract; the names here are its column names and
 * the JSON keys).
 *
 * Parts of a run, all on the frames' clock (frames.h) and all decided by a
 * frame's END (its present), origin = the start of the first frame:
 *   warm-up  frames ending in (origin, origin + warmup_s]
 *   window   frames ending in (origin + from, origin + to], from = --from or
 *            else warmup_s, to = --to or else the end of the run
 *   play     window frames that overlap no reload segment (a frame belongs
 *            to a segment [s, e) when it ends inside it, starts inside it,
 *            or spans it: frame start < e and frame end > s)
 *
 * Every value is a double (counts too) so that tables, JSON and matrices
 * handle columns alike; NaN means "cannot be computed" and a note says why.
 * Pure: no I/O.
 */
#ifndef SS_CORE_METRICS_H
#define SS_CORE_METRICS_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/frames.h"

enum metric_id {
	/* window */
	M_FRAMES, M_SECONDS, M_FPS, M_SMOOTH_FPS, M_MEDIAN_MS, M_P95_MS, M_P99_MS, M_P999_MS,
	M_LOW1, M_LOW01, M_STALLS, M_STALL_S, M_LONGEST_MS, M_OVER_500MS, M_OVER_1S, M_OVER_2S,
	M_STUTTER_PCT, M_LOWFPS_PCT,
	/* warm-up */
	M_STALLS_WARM, M_STALL_WARM_S, M_LONGEST_WARM_MS,
	/* play */
	M_STALLS_PLAY, M_STALL_PLAY_S, M_LONGEST_PLAY_MS, M_LOW1_PLAY, M_WIN_PLAY_S, M_RELOAD_S,
	M_RELOAD_N,
	/* stall causes (docs/CAUSES.md); NaN here, filled from a run's record
	 * by causes_columns (core/causes.h), in enum cause_col's order */
	M_STALL_DISK_S, M_STALL_SWAP_S, M_STALL_RECLAIM_S, M_STALL_GPU_S, M_STALL_CPU_S,
	M_STALL_IO_S, M_STALL_WAIT_S, M_STALL_OTHER_S,
	M_STALL_DISK_PLAY_S, M_STALL_SWAP_PLAY_S, M_STALL_RECLAIM_PLAY_S, M_STALL_GPU_PLAY_S,
	M_STALL_CPU_PLAY_S, M_STALL_IO_PLAY_S, M_STALL_WAIT_PLAY_S, M_STALL_OTHER_PLAY_S,
	M_LOAD_DISK_S, M_WARM_DISK_S,
	M_LOAD_S,	/* the run's start to its first frame's start (analyse.c: a run directory's) */
	M_COUNT
};

struct metric_desc {
	const char *name;	/* column name and JSON key */
	int decimals;		/* places in the table and CSV (0 for counts) */
	const char *unit;	/* "frames", "s", "fps", "ms", "%" */
};

/* The columns in report order, indexed by enum metric_id. */
extern const struct metric_desc metric_descs[M_COUNT];

/* The metric named NAME, or -1. */
int metric_find(const char *name);

/* Stutter per CapFrameX (docs/METRICS.md): a frame over STUTTER_FACTOR times
 * the trailing moving average; low fps: a non-stutter frame under
 * LOWFPS_FPS. */
#define METRICS_STUTTER_FACTOR 2.5
#define METRICS_LOWFPS_FPS 25.0

struct metrics_opts {
	double warmup_s;	/* s after the first frame's start; default 60 */
	double from_s;		/* window start, s after origin; NaN: warmup_s */
	double to_s;		/* window end, s after origin; NaN: the end */
	double stall_ms;	/* a stall is a frame over this; default 100 */
};

#define METRICS_OPTS_INIT { .warmup_s = 60.0, .from_s = NAN, .to_s = NAN, .stall_ms = 100.0 }

/* A reload segment [start_s, end_s) on the frames' clock. */
struct metrics_seg {
	double start_s, end_s;
};

#define METRICS_MAX_NOTES 16
#define METRICS_NOTE_LEN 512

struct metrics {
	double v[M_COUNT];		/* by enum metric_id; NaN: see notes */
	size_t win_first, win_n;	/* the window's frames: [win_first, +win_n) */
	double origin_s;		/* the first frame's start */
	size_t nnotes;
	char notes[METRICS_MAX_NOTES][METRICS_NOTE_LEN];
};

/*
 * Computes every metric of frames F under options O. SEGS (NSEGS, any order,
 * may overlap; NULL when 0) are the reload segments; PLAY_UNKNOWN, when not
 * NULL, says why play cannot be computed (its columns are then NaN with that
 * note). Returns 0 and fills *ret (notes included), or -ENOMEM (*ret
 * untouched). Frames must have t_s non-decreasing (frames.h).
 */
int metrics_compute(const struct frames *f, const struct metrics_opts *o,
		    const struct metrics_seg *segs, size_t nsegs, const char *play_unknown,
		    struct metrics *ret);

/* Whether the frame from FS to FE (s) is reload, not play: whether it
 * overlaps one of SEGS (NSEGS, any order) as metrics_compute decides. */
bool metrics_in_reload(const struct metrics_seg *segs, size_t nsegs, double fs, double fe);

/* Appends a note to M (dropped silently once METRICS_MAX_NOTES are held;
 * truncated to METRICS_NOTE_LEN). */
void metrics_note(struct metrics *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The same, as M's first note (the last one is dropped when M is full). */
void metrics_note_first(struct metrics *m, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * CapFrameX's stutter and low-fps time shares (percent) of the N frame
 * times FT_MS; writes NaN (both) when N is 0 or the frames take no time.
 * Exposed for the tests; metrics_compute uses it on the window.
 */
void metrics_stutter(const double *ft_ms, size_t n, double *ret_stutter_pct,
		     double *ret_lowfps_pct);

#endif
