/* SPDX-License-Identifier: MIT */
/*
 * watch_opts.h: the interference detector's options, declared once for the
 * three commands that take them: watch (its own), record (--watch and
 * each of these, which imply it) and bench (passed on to each record). One
 * table (opts.h), joined to each command's with OPT_CONCAT, as git joins its
 * shared option tables (parse_options_concat). Not a command (cmd.h has no
 * entry).
 */
#ifndef SS_CMD_WATCH_OPTS_H
#define SS_CMD_WATCH_OPTS_H

#include <stdbool.h>
#include <stddef.h>

#include "linux/watch.h"
#include "opts.h"

#define WATCH_MAX_HOLDERS 16
#define WATCH_OPTS_N 10	/* entries of the table, its OPT_END included */

/* The watcher's options as given; owns nothing (the strings are argv's). */
struct watch_opts_given {
	struct watch_opts wo;
	const char *holders[WATCH_MAX_HOLDERS];
	bool any;		/* one was given */
};

/* The table into T, pointing at G; GROUP is its heading in --help (what
 * the options do for this command). */
void watch_opts_table(struct opt t[WATCH_OPTS_N], struct watch_opts_given *g, const char *group);

/* Appends the options G holds as "--NAME [VALUE]" words to ARGV (*N words,
 * MAX at most) for passing them on to record; 0, or -1 after a usage error
 * (too many). */
int watch_opts_pass(const struct watch_opts_given *g, const char **argv, size_t *n, size_t max);

#endif
