/* SPDX-License-Identifier: MIT */
/*
 * html_history.h: `stallscope html --history NAME[:VARIANT]`: the page of a
 * benchmark's metrics over its builds (html_history.c).
 */
#ifndef SS_CMD_HTML_HISTORY_H
#define SS_CMD_HTML_HISTORY_H

#include <stdbool.h>

/* Whether ARGV (ARGC of them) asks for the history page (--history). */
bool html_history_wanted(int argc, char *const *argv);

/* html's command line with --history: its own options (html_history.c's
 * usage), the page written. The exit code, after any error message. */
int html_history(int argc, char **argv);

#endif
