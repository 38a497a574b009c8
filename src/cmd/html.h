/* SPDX-License-Identifier: MIT */
/*
 * html.h: the page of `stallscope html`, for the commands that write one at
 * their end (record --html).
 */
#ifndef SS_CMD_HTML_H
#define SS_CMD_HTML_H

#include "run/analyse.h"

/* Writes the page of INPUTS (N run directories or frame logs) analysed with
 * AO (keep must be set) to OUTPUT (NULL: INPUT/report.html for one run
 * directory, else stallscope-report.html), saying where on stderr. Returns
 * 0, or 1 after an error message (an input unread, no page written). */
int html_page(const struct analyse_opts *ao, char *const *inputs, int n, const char *output);

/* The comparison page of SIDES (N of NAME:VARIANT, 2 to 16; each against
 * the first) in the results database DBPATH, to OUTPUT (NULL:
 * stallscope-report.html); AO reads the runs again for the percentile
 * curves. 0, or non-zero after an error message. */
int html_compare(const char *dbpath, const struct analyse_opts *ao, char **sides, int n,
		 const char *output);

#endif
