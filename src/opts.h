/* SPDX-License-Identifier: MIT */
/*
 * opts.h: the one way a command takes its options. A command declares its
 * options once, in a table of struct opt (name, letter, kind, the value it
 * sets, its range, its help line); opts_parse reads argv by that table, and
 * opts_usage prints the options part of --help from the same table, so that
 * a command accepts exactly what its --help lists. Groups of options several
 * commands share (the analysis's, the watcher's, probe's and kick's) are
 * tables of their own, joined to a command's by an OPT_CONCAT entry (git's
 * parse_options_concat, without the copy).
 *
 * Forms taken: --name, --name VALUE, --name=VALUE, -x, -x VALUE, -xVALUE,
 * -abc (letters without values run together), `--` (what follows are
 * operands), `-` (an operand). A long name is taken whole, never a prefix.
 * Errors (an unknown option, a missing value, a value out of range, a value
 * given to a flag) are a usage error naming the option as given (and the
 * range), printed once through cli.h.
 *
 * Every command also takes -h/--help (the usage) and the unlisted
 * --list-options (each option it takes with its kind and range, one a line:
 * for shell completion and tests/e2e/docs.sh, as git's
 * --git-completion-helper).
 *
 * Not a command (cmd.h has no entry); it prints, so it lives beside cli.h.
 */
#ifndef SS_OPTS_H
#define SS_OPTS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum opt_kind {
	OPTK_END = 0,	/* ends a table */
	OPTK_GROUP,	/* a heading in --help, HELP its text; takes nothing */
	OPTK_CONCAT,	/* another table (VALUE), its options taken and listed here:
			 * a group several commands share, joined to each */
	OPTK_BOOL,	/* bool *VALUE = true */
	OPTK_SET_INT,	/* int *VALUE = SET (an enum: --exact, --no-exact) */
	OPTK_INT,	/* int *VALUE = a whole number in [MIN, MAX] */
	OPTK_DOUBLE,	/* double *VALUE = a decimal number in [MIN, MAX] */
	OPTK_STRING,	/* const char **VALUE = the argument (argv's, not copied) */
	OPTK_CALLBACK,	/* CB(opt, arg): 0, or -1 after printing a usage error */
};

enum opt_flags {
	OPTF_NOARG = 1 << 0,	/* CALLBACK: takes no value (ARG is NULL) */
	OPTF_OPTARG = 1 << 1,	/* CALLBACK: a value only as --name=VALUE (ARG NULL without) */
	OPTF_NONEMPTY = 1 << 2,	/* STRING: '' is refused */
};

struct opt {
	enum opt_kind kind;
	int short_name;		/* a letter, or 0 */
	const char *long_name;	/* without the dashes, or NULL */
	void *value;		/* what the kind sets; CALLBACK: its context */
	const char *argh;	/* the value's name in --help ("S", "FILE"), NULL: none */
	const char *help;	/* one line, or lines joined by '\n' */
	double min, max;	/* INT, DOUBLE: the range, both ends included */
	int set;		/* SET_INT: the value set */
	unsigned flags;		/* enum opt_flags */
	bool *given;		/* when not NULL, set true when the option is taken */
	int (*cb)(const struct opt *opt, const char *arg);
};

/* Table entries, git's way. */
#define OPT_END() { .kind = OPTK_END }
#define OPT_GROUP(h) { .kind = OPTK_GROUP, .help = (h) }
#define OPT_CONCAT(t) { .kind = OPTK_CONCAT, .value = (void *)(t) }
#define OPT_BOOL(s, l, v, h) { .kind = OPTK_BOOL, .short_name = (s), .long_name = (l), \
			       .value = (v), .help = (h) }
#define OPT_SET_INT(s, l, v, i, h) { .kind = OPTK_SET_INT, .short_name = (s), \
				     .long_name = (l), .value = (v), .set = (i), .help = (h) }
#define OPT_INT(s, l, v, a, lo, hi, h) { .kind = OPTK_INT, .short_name = (s), .long_name = (l), \
					 .value = (v), .argh = (a), .min = (lo), .max = (hi), \
					 .help = (h) }
#define OPT_DOUBLE(s, l, v, a, lo, hi, h) { .kind = OPTK_DOUBLE, .short_name = (s), \
					    .long_name = (l), .value = (v), .argh = (a), \
					    .min = (lo), .max = (hi), .help = (h) }
#define OPT_STRING(s, l, v, a, h) { .kind = OPTK_STRING, .short_name = (s), .long_name = (l), \
				    .value = (v), .argh = (a), .help = (h) }
#define OPT_CALLBACK(s, l, ctx, a, h, f) { .kind = OPTK_CALLBACK, .short_name = (s), \
					   .long_name = (l), .value = (ctx), .argh = (a), \
					   .help = (h), .cb = (f) }
#define OPT_CALLBACK_NOARG(s, l, ctx, h, f) { .kind = OPTK_CALLBACK, .short_name = (s), \
					      .long_name = (l), .value = (ctx), .help = (h), \
					      .cb = (f), .flags = OPTF_NOARG }

/* The ranges of options several commands take under one name: one range per
 * option everywhere. */
#define OPT_SECONDS_MAX 1e7	/* --warmup, --window, --duration, -t: 115 days */

/* How a parse went, when it did not give the operands' index. */
#define OPTS_HELP (-1)		/* --help (or --list-options) printed: exit 0 */
#define OPTS_ERROR (-2)		/* a usage error printed: exit 2 */

enum opts_parse_flags {
	/* the first operand ends the options (record CMD ARGS..., watch, prefetch
	 * SUBCOMMAND): what follows it is the operand's, as getopt's '+' */
	OPTS_STOP_AT_OPERAND = 1 << 0,
};

/* What --help prints around the options: HEAD (the usage lines and what the
 * command does, ending in a blank line), then "options:" and the table, then
 * TAIL (EXAMPLES; NULL: none). */
struct opts_help {
	const char *head;
	const char *tail;
};

/*
 * Reads ARGV[1..ARGC) by OPTS, setting what each option found sets, and
 * moves the operands (the arguments that are not options, in their order)
 * to the end of ARGV. Returns the index of the first operand (ARGC when
 * there is none), OPTS_HELP after printing HELP for -h/--help, or
 * OPTS_ERROR after printing a usage error. FLAGS: enum opts_parse_flags.
 */
int opts_parse(int argc, char **argv, const struct opt *opts, const struct opts_help *help,
	       unsigned flags);

/* The exit code of a parse that did not give operands: 0 after --help, 2
 * after a usage error. */
static inline int opts_exit(int r)
{
	return r == OPTS_HELP ? 0 : 2;
}

/* Prints a usage error as cli_usage_error does; returns OPTS_ERROR (a
 * callback's or a command's check after the parse: `return opts_error(...)`). */
int opts_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Prints HELP's head, the options of OPTS and HELP's tail to F. */
void opts_usage(FILE *f, const struct opt *opts, const struct opts_help *help);

/* Prints OPTS one a line as --list-options does: "-s,--long KIND [MIN MAX]"
 * (KIND: flag, int, number, string, value, optional), -h,--help last. */
void opts_list(FILE *f, const struct opt *opts);

#endif
