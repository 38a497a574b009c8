/* SPDX-License-Identifier: MIT */
/*
 * cli.h: what every command shares for talking to its user: messages in one
 * voice, exit codes scripts can trust, and the check that stdout was really
 * written. Library code (src/core, src/rec, ...) never prints; commands
 * report an error once, here.
 *
 * Exit codes: 0 success, 1 failure (bad input, a failed run), 2 usage.
 * Messages: lowercase, no full stop, the subject in quotes:
 *     stallscope report: error: 'x.csv' line 3: expected a number, got 'abc'
 */
#ifndef SS_CLI_H
#define SS_CLI_H

#include <stdio.h>

#define EXIT_USAGE 2
/* A CI gate failed: compare --fail-on, history --fail-on-change (a metric got
 * worse). */
#define EXIT_WORSE 4

/* The name messages start with ("stallscope report"); set by main. */
extern const char *cli_prog;

/* Prints "<prog>: error: <msg>" to stderr; returns -1 so that
 * `return cli_error(...)` is one line. Every message of these functions is
 * escaped as a whole as it is printed (display_escape_text: newlines and
 * tabs kept, escape sequences shown, never sent); its values still go
 * through cli_shown, so that a newline in a name does not break the line. */
int cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* As cli_error, with ": <strerror(-err)>" appended; err is a negative errno. */
int cli_error_errno(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

struct strbuf;

/*
 * S as the terminal shows it (core/display.h, display_escape): escape
 * sequences and other control bytes, newlines included, and bytes that are
 * not UTF-8 written as \xHH, \n, ... Every value that came from a file, a
 * program, a database or a directory listing (names, paths, run.ini values,
 * notes, rows) passes through it on its way into a line of output or a
 * message: printf("  %s: %s\n", cli_shown(a->source), cli_shown(note)).
 * NULL shows as "-". The string is cli.c's and lives until 16 more calls:
 * use it as an argument of the call that prints, never keep it. "?" when
 * memory ran out.
 * Machine output (--json, --csv) does not use it: its own quoting carries
 * the bytes.
 */
const char *cli_shown(const char *s);
/* As cli_shown, newlines and tabs kept: a list of lines made of such values. */
const char *cli_shown_lines(const char *s);

/* A library's result R with its message MSG (the src/run and src/linux
 * convention: a negative errno and a strbuf): when R < 0, prints MSG as an
 * error (or strerror(-R) when MSG is empty). True when R < 0, so that
 * `if (cli_failed(analyse_input(in, &o, &a, &msg), &msg))` reads straight. */
int cli_failed(long long r, const struct strbuf *msg);

/* Prints "<prog>: warning: <msg>" to stderr. */
void cli_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Prints "<prog>: <msg>" and a hint to run --help; returns EXIT_USAGE. */
int cli_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Flushes stdout and checks that every write reached it; turns a command's
 * status into the process's exit code: a write error turns 0 into 1, and
 * only the documented codes leave (0, 1, 2, 3, 130, 143): any other,
 * cli_error()'s -1 included, is 1. */
int cli_finish(int status);

/* Parsers for option values (opts.c's, and a callback's own); they return
 * 0, or print a usage error naming the option and return -1. */
int cli_parse_double(const char *opt, const char *arg, double min, double max, double *ret);
int cli_parse_int(const char *opt, const char *arg, long min, long max, long *ret);

#endif
