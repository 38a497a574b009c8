/* SPDX-License-Identifier: MIT */
/*
 * runini.h: a run directory's run.ini, key=value lines (docs/FORMAT.md).
 *
 * Syntax: one "key=value" a line; blanks around key and value are dropped;
 * empty lines and lines starting with '#' or ';' are skipped; a later key
 * wins over an earlier one. Keys report reads:
 *   program=NAME       the program (the reload rule's section name)
 *   variant=NAME       the variant of a benchmark
 *   t0=S.US            CLOCK_REALTIME of the run's time origin (the recorder
 *                      writes it; report only shows it)
 *   t0_mono=S          CLOCK_MONOTONIC seconds at the same instant as t0
 *                      (else clock_mono_ns=N, the same in ns): the frames,
 *                      pass stamps and program.log stamps are seconds since it
 *   pass<N>=S          pass N (1, 2, ...) started S seconds after t0
 *   reload_re=RE, reload_after=S, reload_fixed=S   reload rule overrides
 * Pure: the caller reads the file.
 */
#ifndef SS_CORE_RUNINI_H
#define SS_CORE_RUNINI_H

#include <stddef.h>

#include "core/strbuf.h"

struct runini_kv {
	char *key;
	char *value;
	int line;		/* 1-based line in the file */
};

struct runini {
	size_t n;
	struct runini_kv *kv;
};

/*
 * Parses BUF (LEN bytes); NAME is what messages call it. Returns 0 and *ret
 * (free with runini_free), or -EINVAL with "'NAME' line N: expected
 * key=value, got '...'" in ERR, or -ENOMEM.
 */
int runini_parse(const char *buf, size_t len, const char *name, struct runini **ret,
		 struct strbuf *err);
void runini_free(struct runini *r);	/* NULL-safe */

/* The value of KEY (the last one given), or NULL. */
const char *runini_get(const struct runini *r, const char *key);

/*
 * KEY as a finite number: 0 and *ret, -ENOENT when absent, -EINVAL (with
 * "'NAME' line N: KEY: expected a number, got '...'" in ERR) when not a
 * number.
 */
int runini_get_double(const struct runini *r, const char *name, const char *key, double *ret,
		      struct strbuf *err);

/*
 * The pass<N>= stamps, ordered by N. Returns the count (>= 0) with a new
 * array in *ret (NULL when 0; the caller frees it), -EINVAL with a message in
 * ERR for a bad stamp or N, or -ENOMEM.
 */
int runini_passes(const struct runini *r, const char *name, double **ret, struct strbuf *err);

/*
 * How a program's end reads: the one rule that record applies to its result
 * and runini_failure to run.ini. What a program does after the run stopped
 * it is its answer to the stop, never a failure of the run.
 *   STOP_SIG  the signal the run stopped the program with, without "SIG"
 *             ("TERM"); "" when it was stopped with a signal not known (a
 *             run.ini from before stop_signal=, whose end= says it was
 *             stopped: INT, TERM or HUP); NULL when the run did not stop it
 *             (it ended by itself, or nothing is known of an end)
 *   STATUS    its exit status, or NaN (it did not exit, or not known)
 *   SIG       the signal that ended it ("SEGV"), or NULL
 * Returns RUNINI_END_FAILED with why in WHY ("the program exited with status
 * 3": not stopped, and a non-zero status or any signal), RUNINI_END_NOTE
 * with words in WHY (stopped, and then ended by a signal that is not the
 * stop's own, nor the SIGKILL that follows a stop: a crash during its
 * shutdown, "killed by SIGSEGV after the stop's SIGTERM"), else
 * RUNINI_END_OK; -ENOMEM.
 */
enum { RUNINI_END_OK, RUNINI_END_FAILED, RUNINI_END_NOTE };
int runini_end_judge(const char *stop_sig, double status, const char *sig, struct strbuf *why);

/*
 * The stop R's run made, when it made one: the signal's name into *RET_SIG
 * (a string of R, or "" for a run.ini from before stop_signal= whose end= is
 * duration, stop-file or signal). Returns 1 when the run stopped the
 * program, 0 when it did not (stop_signal=-, or an old run.ini that ended
 * otherwise, or R NULL).
 */
int runini_stopped(const struct runini *r, const char **ret_sig);

/*
 * What a stopped program did on its way out that a reader should know,
 * though it is no failure (docs/METRICS.md, "Failed runs"): killed by a
 * signal that is not the stop's (a crash during its shutdown), or still
 * there when the grace ran out (stop_kill_s=: SIGKILL). Returns 1 with the
 * words in NOTE, 0 when there is nothing to say; -ENOMEM.
 */
int runini_stop_note(const struct runini *r, struct strbuf *note);

/*
 * Whether the run R describes failed, with NFRAMES frames recorded (R may
 * be NULL: a frame log, judged by its frames alone). A failed run's numbers
 * describe a program that did not do its work, so they never feed a median
 * unmarked (docs/METRICS.md, "Failed runs"). Failure is judged up to the
 * stop: how a stopped program ends is its answer (runini_end_judge). It
 * failed when:
 *   - the recorder did not finish (state= is not "done": killed?);
 *   - the program was not stopped by the run (runini_stopped) and exited
 *     with a non-zero status (exit_status=N) or was killed by a signal
 *     (exit_signal=NAME);
 *   - no frames were recorded (unless frame_source=none asked for none);
 *   - the frame ring broke (frames_ring=broken ...: the frames after the
 *     break are missing), or presents came faster than the recorder keeps
 *     (frames_over_rate= above 0: the frame times around them are sums);
 *   - the program ended by itself before its window's end (window_to_s=,
 *     seconds after ORIGIN_S, the first frame's start in seconds after t0;
 *     the run's end is end_s=, after t0; a run.ini without end_s= or an
 *     ORIGIN_S of NaN compares duration_recorded_s= with window_to_s=) or
 *     before half of the run's expected length (duration_s=).
 * Returns 1 with the first reason found in WHY ("the program exited with
 * status 3"), else 0; -ENOMEM.
 */
int runini_failure(const struct runini *r, size_t nframes, double origin_s, struct strbuf *why);

#endif
