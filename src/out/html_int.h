/* SPDX-License-Identifier: MIT */
/*
 * html_int.h: what the run page's writer (html.c) and the history page's
 * (html_history.c) share: text escaped for an element, and text inside a
 * script element (html.c says why each is safe).
 */
#ifndef SS_OUT_HTML_INT_H
#define SS_OUT_HTML_INT_H

#include <stddef.h>
#include <stdio.h>

/* S with <, >, & and " as entities: text or an attribute's value. */
void html_put_escaped(FILE *f, const char *s);

/* N bytes of JSON at S in a script element: every "<" as "\u003c". */
void html_put_script_json(FILE *f, const char *s, size_t n);

/* N bytes of our script at S in a script element: "</" as "<\/", "<!--"
 * as "<\!--". */
void html_put_script_text(FILE *f, const char *s, size_t n);

#endif
