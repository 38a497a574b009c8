/* SPDX-License-Identifier: MIT */
/*
 * watch_opts.h: the interference detector's options, declared once for the
 * three commands that take them: watch (its own), record (--watch and
 * each of these, which imply it) and bench (passed on to each record). One
 * table, one parser, one help text, as git concatenates its shared option
 * tables (parse_options_concat). Not a command (cmd.h has no entry).
 */
#ifndef SS_CMD_WATCH_OPTS_H
#define SS_CMD_WATCH_OPTS_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>

#include "linux/watch.h"

/* getopt_long values of the watcher's options: WATCH_OPT_FIRST + index. */
#define WATCH_OPT_FIRST 0x1000
#define WATCH_OPT_N 8
#define WATCH_MAX_HOLDERS 16

/* The options (name, has_arg, NULL, value), without the terminating 0. */
extern const struct option watch_opts_long[WATCH_OPT_N];

/* The help text's lines for them, each starting with two blanks, the text
 * at column INDENT (record and bench line theirs up differently). */
void watch_opts_help(FILE *f, int indent);

/* The watcher's options as given; owns nothing (ARG strings are argv's). */
struct watch_opts_given {
	struct watch_opts wo;
	const char *holders[WATCH_MAX_HOLDERS];
	bool any;		/* one was given */
};

/* Whether C is one of them. */
static inline bool watch_opt_is(int c)
{
	return c >= WATCH_OPT_FIRST && c < WATCH_OPT_FIRST + WATCH_OPT_N;
}

/* Takes option C (watch_opt_is) with ARG into G; 0, or -1 after a usage
 * error was printed. */
int watch_opt_take(struct watch_opts_given *g, int c, const char *arg);

/* Appends "--NAME [ARG]" of option C to ARGV (*N words, room checked by the
 * caller: 2 more) for passing it on. */
void watch_opt_pass(int c, const char *arg, const char **argv, size_t *n);

/* Copies the table into OPTS at *N (room: WATCH_OPT_N more). */
void watch_opts_add(struct option *opts, size_t *n);

#endif
