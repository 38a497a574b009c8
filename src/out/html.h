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
#include <stdbool.h>
#include <stdio.h>
#include <zlib.h>

#include "core/strbuf.h"

/* Writes the page to F: TITLE (escaped) and DATA, a JSON document the
 * script renders (its every "<" written as the JSON escape "\u003c", so that
 * no "</script", "<!--" or "<script" in a name can end or unbalance its
 * script element). 0, or -EIO when F failed. */
int html_write(FILE *f, const char *title, const char *data_json, size_t len);

/* The page in three parts, for a writer that streams its data: the head
 * up to the data's script element (TITLE escaped), the data through
 * html_data_open's stream, then the tail. 0, or -EIO when F failed. */
int html_write_head(FILE *f, const char *title);
int html_write_tail(FILE *f);
/* A stream that writes to F what is written to it, every "<" as "\u003c"
 * (html_write's escape of the data); fclose flushes it and leaves F open.
 * NULL: no memory. */
FILE *html_data_open(FILE *f);

/* Appends LEN bytes at BUF, gzip-compressed and base64-encoded, to OUT.
 * 0, -ENOMEM, or -EIO (zlib failed). */
int html_b64gz(const void *buf, size_t len, struct strbuf *out);

/* The same written as it is made: html_gz_begin, html_gz_write as often as
 * needed, html_gz_end; the base64 goes to OUT as deflate gives it, so that
 * the memory is zlib's, not the data's. Each returns 0 or -EIO; after
 * html_gz_begin, html_gz_end must be called (it frees zlib's state). */
struct html_gz {
	z_stream z;
	FILE *out;
	unsigned char carry[3];	/* bytes waiting for a group of 3 */
	size_t ncarry;
	bool open;
};
int html_gz_begin(struct html_gz *g, FILE *out);
int html_gz_write(struct html_gz *g, const void *buf, size_t len);
int html_gz_end(struct html_gz *g);

#endif
