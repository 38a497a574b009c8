/* SPDX-License-Identifier: MIT */
/*
 * stall_list.h: a run's stalls as `stalls` and `html` show them: each with
 * its split by cause, the verdict, the evidence the record holds and, in
 * exact mode, the intervals that make it up (core/causes.h).
 */
#ifndef SS_CMD_STALL_LIST_H
#define SS_CMD_STALL_LIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/causes.h"
#include "core/strbuf.h"
#include "core/where.h"
#include "run/analyse.h"

#define STALL_INTERVALS 8	/* intervals listed per stall (JSON; text: the first 2) */
#define STALL_APIS 4		/* API call spans listed per stall */
#define STALL_INTERVAL_FRAMES 5	/* user frames of an interval's switch-out in its text */

/* A timed API call of the frame thread that overlaps a stall. */
struct stall_api {
	const char *name;	/* borrowed from the record */
	double ms;		/* the whole call's time */
	double in_ms;		/* of it inside the stall */
};

struct stall_item {
	size_t frame;
	double t_s, ms;
	bool play;
	bool warm;		/* an item of the warm-up's list */
	bool exact;		/* split by exact time */
	uint64_t t0_ns;		/* the run's t0 (record clock) */
	size_t niv, niv_all;	/* intervals listed, and overlapping in all */
	struct rec_interval iv[STALL_INTERVALS];	/* copies: a streamed read
							 * drops its intervals */
	struct cause_split split;
	struct cause_verdict v;
	struct cause_evidence e;
	size_t napi;		/* API calls listed, longest first */
	struct stall_api api[STALL_APIS];
};

/*
 * A run's stalls, the window's and the warm-up's, as report chooses them,
 * held in a spill (out/spill.h), not in memory: a day's record has
 * thousands, ~1.9 KB each. Item K is the window's K-th for K < nwin, else
 * the warm-up's (K - nwin)-th (a stall of both is in both); the readers
 * take them back one at a time (stall_list_get). The items are spilled as
 * they are in memory, pointers and all: their strings are the analysis's
 * record's (a->rec, a->rec_win) or static, so the spill is this process's
 * own, read back while the analysis lives, and no file format.
 */
struct stall_list {
	size_t nwin, nwarm;
	int fd;			/* the spill; -1: none (no stall) */
	bool read;		/* the record was read by windows: the spans'
				 * callbacks ran */
};

/* A stall's frame and its item in the list (the window's, for a stall of
 * the window and of the warm-up). */
struct stall_frame {
	size_t frame, k;
};

/* What a reader does with each stall while its samples and intervals are
 * at hand (html: the exact intervals it lists, more than a stall_item
 * holds): FN(CTX, C, R, S) once a stall frame (a stall of the window and of
 * the warm-up too is called once, with its window item), C classifying R,
 * which holds the stall's samples and intervals (the group's, by windows;
 * the whole record, else), S filled. A negative errno stops the build and
 * is returned. */
struct stall_each {
	int (*fn)(void *ctx, const struct causes *c, const struct rec *r,
		  const struct stall_item *s);
	void *ctx;
};

/* More spans read with the stalls' windows, in the same read (html: the
 * load's, the reload segments' and the warm-up's disk seconds): FN(CTX, C,
 * R, W) once for span W of WIN (NWIN, any order), C classifying R, which
 * holds the span's samples and intervals (its group's). Only for a record
 * read by windows; a negative errno stops the build and is returned. */
struct stall_spans {
	const struct rec_window *win;
	size_t nwin;
	int (*fn)(void *ctx, const struct causes *c, const struct rec *r, size_t w);
	void *ctx;
	/* ALSO (NULL: none): its on_sample, on_frame, on_threads, on_interval
	 * and on_apispan, with ALSO->ctx, see every record of the same read
	 * as it passes (rec/rec.h: handed on as well as kept for the windows;
	 * export --perfetto's first pass) */
	const struct rec_stream *also;
};

/*
 * The stalls of one analysed run (A, with its record; MO the window) into
 * *RET, EACH (NULL: none) called as each is found. For A analysed with
 * o->windows (run/analyse.h), the record is read again, keeping only each
 * group of stalls' samples and intervals at a time (rec/rec.h's windows),
 * whose strings the stalls borrow from a->rec_win; SPANS (NULL: none) are
 * read with them, and their FN called, also where there is no stall (A
 * not read by windows: SPANS are not read, FN not called). 0 or a negative
 * errno with the message in EMSG; stall_list_close frees *RET (also after
 * an error).
 */
int stall_list_open(struct analysis *a, const struct metrics_opts *mo,
		    const struct stall_each *each, const struct stall_spans *spans,
		    struct stall_list *ret, struct strbuf *emsg);
/* The stall frames stall_list_open would list for A and MO, in frame
 * order, with their items' places, without reading the record: *RET
 * (malloc'd, *N). 0 or -ENOMEM. */
int stall_list_frames(const struct analysis *a, const struct metrics_opts *mo,
		      struct stall_frame **ret, size_t *n);
/* Item K of L into *RET. 0, or a negative errno (-EIO: the spill came back
 * short). */
int stall_list_get(const struct stall_list *l, size_t k, struct stall_item *ret);
void stall_list_close(struct stall_list *l);

/* The stalls of A analysed with the whole record (the exporter's, before
 * the streamed one) in memory: *ret_win and *ret_warm (malloc'd). 0 or a
 * negative errno. */
int stall_list_build(const struct analysis *a, const struct metrics_opts *mo,
		     struct stall_item **ret_win, size_t *ret_nwin, struct stall_item **ret_warm,
		     size_t *ret_nwarm);

/* "futex" for wait_futex: the sub-cause without its cause's prefix, or NULL
 * when it says no more than the cause. */
const char *stall_sub_short(enum cause_sub s);

/* The evidence as one line of text (STACK_LINES of a kernel stack): its
 * items (stall_evidence_items) joined by "; ". */
void stall_evidence_text(struct strbuf *sb, const struct cause_evidence *e, long stack_lines);
/* The evidence as items ("D in pread64(/x), wchan ...", "60 major faults",
 * "vda 60 reads 0.2 MB", ...), each appended to SB with a NUL after it,
 * for a terminal that puts them on lines of its width. */
void stall_evidence_items(struct strbuf *sb, const struct cause_evidence *e, long stack_lines);
/* Items (LEN bytes of NUL-ended items) appended to SB joined by "; ". */
void stall_items_join(struct strbuf *sb, const char *items, size_t len);

/* One clause of that line ("S in futex", "12 major faults", "run 3.1 ms,
 * runq 0.2 ms", ...): what it counts, and where it is in the text. */
enum stall_clause_kind {
	SC_STATE,	/* the state, syscall and its file, wchan: always first */
	SC_FAULTS,	/* major faults (size: their count) */
	SC_DISK,	/* one disk's reads (size: their count) */
	SC_VM,		/* the vm counters' changes */
	SC_RUN,		/* run and runq (size: the larger, ms) */
	SC_PRESSURE,	/* memory pressure (size: ms) */
	SC_LATE,	/* a CPU's late wake-up (size: ms) */
	SC_STACK,	/* the kernel stack */
};

struct stall_clause {
	enum stall_clause_kind kind;
	double size;		/* a count or ms (above); NaN for the others */
	size_t off, len;	/* the clause in the text, without the "; " */
};

/* Appends stall_evidence_text's line to SB and its first MAX clauses to
 * OUT (NULL when MAX is 0). Returns the number of clauses (maybe > MAX). */
size_t stall_evidence_clauses(struct strbuf *sb, const struct cause_evidence *e, long stack_lines,
			      struct stall_clause *out, size_t max);

/* S's window [*A, *B] in the record's clock (ns): from 1 ms before it
 * began, where the recorder stamps its stacks, to its end. */
void stall_ns(const struct stall_item *s, uint64_t *a, uint64_t *b);
/* S's user stacks (core/where.h: where_stall over stall_ns's window) into
 * *W, which where_free frees. 0 or -ENOMEM. */
int stall_where(const struct rec *r, const struct stall_item *s, struct where *w);

/* The API calls in words: "in glLinkProgram 281.0 ms" (nothing when none). */
void stall_api_text(struct strbuf *sb, const struct stall_item *s);

/* An interval in words: "futex 300.1 ms in futex, woken by 1234 (render),
 * at futex_do_wait, from syscall <- stall_wait <- do_stall <- main <- ..."
 * (the user frames where the record holds the switch-out's stack). */
void stall_interval_text(struct strbuf *sb, const struct rec *r, const struct rec_interval *iv);

#endif
