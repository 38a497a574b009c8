/* SPDX-License-Identifier: MIT */
/*
 * html_history.h: the history page (`stallscope html --history`): one
 * self-contained page, as html.h's, of a benchmark's metrics over its
 * builds; share/html/history.js draws it from DATA with uPlot.
 */
#ifndef SS_OUT_HTML_HISTORY_H
#define SS_OUT_HTML_HISTORY_H

#include <stddef.h>
#include <stdio.h>

/* Writes the page to F: TITLE (escaped) and DATA, the JSON document
 * src/cmd/html_history.c makes (its "<" escaped as html_write's). 0, or
 * -EIO when F failed. */
int html_history_write(FILE *f, const char *title, const char *data_json, size_t len);

#endif
