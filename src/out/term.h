/* SPDX-License-Identifier: MIT */
/*
 * term.h: what the commands that print for a person share when their
 * output is a terminal: its width, colour (when and which), folding lines
 * to the width, and a pager, as git does it.
 *
 * Nothing here decides a layout: a command asks whether stdout is a
 * terminal, how wide it is and whether to colour, and lays its text out;
 * piped output is the command's plain layout, unchanged. Colour is SGR
 * escape sequences our own code writes around text that was already
 * escaped (core/display.h), so an ESC in the text to fold is always ours.
 * Never prints a message: errors are returned (a negative errno) for the
 * command to report.
 */
#ifndef SS_OUT_TERM_H
#define SS_OUT_TERM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

/* --color=WHEN */
enum term_color { TERM_COLOR_AUTO, TERM_COLOR_NEVER, TERM_COLOR_ALWAYS };

#define TERM_SGR_RED "\033[31m"
#define TERM_SGR_RESET "\033[m"

/* "never", "auto", "always" into *RET; 0, or -EINVAL for anything else. */
int term_color_parse(const char *s, enum term_color *ret);

/* Whether to colour output to FD: always; never; auto: FD is a terminal,
 * NO_COLOR is unset or empty (no-color.org) and TERM is not "dumb". */
bool term_color_on(enum term_color when, int fd);

/* The SGR sequence that colours cause CAUSE (core/causes.h's names, and
 * report's "other") as the html page does (share/html/page.js
 * CAUSE_COLORS, the nearest of the terminal's 256 colours); NULL for a
 * name the page has no colour for. Static: never freed. */
const char *term_cause_sgr(const char *cause);

/* The columns of terminal FD: its window size (TIOCGWINSZ), else $COLUMNS
 * when it is a number from 20 to 10000, else 80. */
size_t term_width(int fd);

/* The columns the N bytes at S take: display_width of escaped text, our
 * SGR sequences taking none. */
size_t term_text_width(const char *s, size_t n);

/*
 * Writes TEXT (LEN bytes, lines ending in '\n') to F with no line wider
 * than WIDTH: a longer line breaks at its last blank that fits (or, with
 * none, at the width), and its continuation is indented 4 columns more
 * than the line (at most half the width). Returns 0 or -ENOMEM.
 */
int term_fold(FILE *f, const char *text, size_t len, size_t width);

/* A pager stdout was handed to (term_pager_start), restored by
 * term_pager_end. */
struct term_pager {
	pid_t pid;	/* 0: none running */
	int saved_fd;	/* stdout before the pager */
};

/* The pager to use: $PAGER, else "less -FRX"; NULL when $PAGER is empty or
 * "cat" (no pager). */
const char *term_pager_cmd(void);

/*
 * Runs CMD (term_pager_cmd) with its input a pipe that becomes stdout: a
 * command without shell syntax is split at blanks and run directly, so
 * that one that is not there is known here; others through /bin/sh -c.
 * LESS=FRX is set for it when LESS is unset. Returns 0, or a negative
 * errno when it did not start (stdout then stays as it was).
 */
int term_pager_start(struct term_pager *p, const char *cmd);

/* Flushes stdout into the pager, gives stdout back and waits for the pager
 * to end (the person to quit it). Does nothing when none runs. */
void term_pager_end(struct term_pager *p);

#endif
