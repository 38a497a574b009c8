/* SPDX-License-Identifier: MIT */
/*
 * reload.h: reload segments, the parts of a looping demo's passes that
 * reload the map or replay and so are not play (docs/METRICS.md, "Play
 * metrics and reload segments").
 *
 * A rules file (INI, parsed with libinih) maps a program name (a section)
 * to one rule, and every rule says why:
 *
 *   [ioquake3]
 *   line = ^CL_InitCGame:      ; a POSIX extended regex on program-log lines
 *   after = 1                  ; seconds after that line (default 0)
 *   why = the client prints this when the map and cgame are loaded ...
 *
 *   [somebench]
 *   fixed = 12                 ; pass start to 12 s later
 *   why = ...
 *
 *   [glxgears]
 *   rule = none                ; nothing reloads
 *   why = ...
 *
 * run.ini keys reload_re=, reload_after=, reload_fixed= win over the file
 * (reload_fixed=0 means none). Segments, per pass N starting at p_N (the
 * next pass at p_N+1, or the end of the run for the last):
 *   fixed S: [p_N, p_N + S)
 *   line RE, after A: [p_N, t + A) with t the first log line matching RE
 *     stamped in [p_N, p_N+1); a pass without such a line gets no segment
 *     and a note, except the last, which is then reloading to the end.
 * Which frames a segment holds is metrics.h's business.
 *
 * All times are seconds on the frames' clock (frames.h). Pure: no I/O;
 * regcomp/regexec are the only library calls besides libinih.
 */
#ifndef SS_CORE_RELOAD_H
#define SS_CORE_RELOAD_H

#include <stdbool.h>
#include <stddef.h>

#include "core/metrics.h"
#include "core/strbuf.h"

enum reload_kind {
	RELOAD_NONE,	/* nothing reloads: play is the window */
	RELOAD_FIXED,	/* pass start to fixed_s later */
	RELOAD_LINE,	/* pass start to after_s past the first line matching re */
};

struct reload_rule {
	char *program;		/* section name; NULL for a rule from run.ini */
	enum reload_kind kind;
	double fixed_s;		/* RELOAD_FIXED */
	char *re;		/* RELOAD_LINE: POSIX extended regex */
	double after_s;		/* RELOAD_LINE */
	char *why;		/* the reason the rule is what it is */
};

/* watch --scan's interfere_re = RE of section PROGRAM: a program-log line a
 * scripted run never prints (a player's action). Kept by the one parse of
 * the file, beside the reload rules; a section may hold only these. */
struct reload_interfere {
	char *program;		/* section name */
	char *re;		/* POSIX extended regex, checked as a rule's line = is */
};

struct reload_rules {
	size_t n, alloc;	/* alloc: r's room */
	struct reload_rule *r;
	size_t ninterfere, interfere_alloc;	/* in the file's order */
	struct reload_interfere *interfere;
};

/*
 * Parses the rules file text BUF (LEN bytes; need not be NUL-terminated);
 * NAME is what messages call it. Every section needs exactly one of
 * rule = none, fixed = S (S >= 0) or line = RE (a valid POSIX extended
 * regex; after = S >= 0 optional), and a why.
 * Returns 0 and *ret (free with reload_rules_free), or -EINVAL with
 * "'NAME' line N: ..." in ERR, or -ENOMEM.
 */
int reload_rules_parse(const char *buf, size_t len, const char *name, struct reload_rules **ret,
		       struct strbuf *err);
void reload_rules_free(struct reload_rules *rs);	/* NULL-safe */

/* Whether regex RE is one glibc's regcomp compiles in bounded time and
 * memory: it duplicates what a repeat repeats, so a repeat of a repeat
 * (a+++...: 2^n) or nested bounds ((a{1,255}){1,255}) blow up (the fuzzing
 * campaign found a 300-byte recipe taking 2 GB and 30 s). Refused: a
 * repeat right after another, a bound over 255, bounds whose product
 * passes 1000. 0, or -EINVAL with why in WHY. Every regex read from a file
 * (rules, recipes, run.ini) goes through it before regcomp. */
int reload_re_sane(const char *re, struct strbuf *why);

/* The rule for PROGRAM (exact match of the section name), or NULL. */
const struct reload_rule *reload_rules_find(const struct reload_rules *rs, const char *program);

/*
 * A rule from run.ini's overrides: RE (reload_re=, may be NULL), AFTER
 * (reload_after=, NULL for 0) and FIXED (reload_fixed=, may be NULL).
 * Returns 1 and fills *ret when an override is present (free its strings
 * with reload_rule_release), 0 when there is none, or -EINVAL with a message
 * in ERR, without the file's name, which the caller adds (a bad number or
 * regex; both reload_re and reload_fixed), or
 * -ENOMEM.
 */
int reload_rule_from_overrides(const char *re, const char *after, const char *fixed,
			       struct reload_rule *ret, struct strbuf *err);
void reload_rule_release(struct reload_rule *r);

/* A program-log line: its stamp and its text (not owned). */
struct reload_line {
	double t_s;
	const char *text;
	size_t len;
};

/*
 * Splits a program log (BUF, LEN bytes) into stamped lines: each line
 * "[S] text" with S seconds since t0 (a decimal number) gives one entry
 * whose text points into BUF (without the stamp and its one following
 * space, and without the newline). Lines without a stamp are skipped and
 * counted in *ret_unstamped. Returns 0 and a new array in *ret (*ret_n
 * entries; the caller frees the array, BUF must outlive it), or -ENOMEM.
 */
int reload_log_parse(const char *buf, size_t len, struct reload_line **ret, size_t *ret_n,
		     size_t *ret_unstamped);

/*
 * The reload segments of RULE for the NPASS pass starts PASS_S (ascending
 * is not required), a run whose frames end at END_S, and the program-log
 * LINES (NLINES, stamps on the frames' clock). HAVE_T0 false says the log
 * lines cannot be placed on the frames' clock (no t0).
 *
 * Returns the number of segments (>= 0) with a new array in *ret (free it;
 * NULL when 0), notes (one per line, each ending in '\n') appended to NOTES;
 * -ENODATA when the rule needs log lines and there is no t0 or no log (the
 * reason in NOTES, without a newline: play cannot be computed);
 * -EINVAL for a regex that does not compile; -ENOMEM.
 */
int reload_segments(const struct reload_rule *rule, const double *pass_s, size_t npass,
		    double end_s, const struct reload_line *lines, size_t nlines, bool have_t0,
		    struct metrics_seg **ret, struct strbuf *notes);

#endif
