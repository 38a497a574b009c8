/* SPDX-License-Identifier: MIT */
/*
 * html.h: one self-contained page (`stallscope html`): the style, the data,
 * uPlot (third_party/uplot, MIT; its licence in the page) and the page's
 * scripts (share/html/flame.js, page.js) inlined, so it opens from disk with no
 * network. The data is JSON; frame times inside it are gzip-compressed and
 * base64-encoded (html_b64gz), for the browser's DecompressionStream.
 */
#ifndef SS_OUT_HTML_H
#define SS_OUT_HTML_H

#include <stddef.h>
#include <stdio.h>

#include "core/strbuf.h"

/* Writes the page to F: TITLE (escaped) and DATA, a JSON document the
 * script renders (its every "<" written as the JSON escape "\u003c", so that
 * no "</script", "<!--" or "<script" in a name can end or unbalance its
 * script element). 0, or -EIO when F failed. */
int html_write(FILE *f, const char *title, const char *data_json, size_t len);

/* Appends LEN bytes at BUF, gzip-compressed and base64-encoded, to OUT.
 * 0, -ENOMEM, or -EIO (zlib failed). */
int html_b64gz(const void *buf, size_t len, struct strbuf *out);

#endif
