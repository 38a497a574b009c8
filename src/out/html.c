// SPDX-License-Identifier: MIT
/* html.c: the self-contained page (html.h). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "out/html.h"
#include "out/html_int.h"

/* cmake/html.cmake embeds these (cmake/embed.cmake), each NUL-terminated. */
extern const unsigned char ss_html_uplot_js[], ss_html_uplot_css[], ss_html_uplot_license[],
	ss_html_flame_js[], ss_html_page_js[], ss_html_page_css[], ss_html_metrics_md[];
extern const size_t ss_html_uplot_js_len, ss_html_uplot_css_len, ss_html_uplot_license_len,
	ss_html_flame_js_len, ss_html_page_js_len, ss_html_page_css_len, ss_html_metrics_md_len;

void html_put_escaped(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		default: fputc(*s, f);
		}
	}
}

/*
 * Text inside a script element. The HTML tokenizer ends a script element at
 * "</script", and after "<!--" a "<script" puts it into the "double escaped"
 * state where the "</script" that should end it no longer does: the rest of
 * the page becomes script text and nothing draws. So none of the three may
 * appear. The data is JSON, where "<" occurs only inside strings: every "<"
 * is written "\u003c", which JSON.parse reads back as "<", and no markup can
 * be spelt. The assets (uPlot, flame.js, page.js, METRICS.md) are ours: "</" is written
 * "<\/" and "<!--" "<\!--" (the same characters in a JavaScript string or
 * regular expression); they hold no "<script" (test-out checks the page).
 */
void html_put_script_json(FILE *f, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '<')
			fputs("\\u003c", f);
		else
			fputc(s[i], f);
	}
}

void html_put_script_text(FILE *f, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '<' && i + 1 < n && s[i + 1] == '/') {
			fputs("<\\/", f);
			i++;
			continue;
		}
		if (s[i] == '<' && n - i >= 4 && !memcmp(s + i, "<!--", 4)) {
			fputs("<\\!--", f);
			i += 3;
			continue;
		}
		fputc(s[i], f);
	}
}

int html_write_head(FILE *f, const char *title)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	      "<meta name=\"generator\" content=\"stallscope " STALLSCOPE_VERSION "\">\n<title>",
	      f);
	html_put_escaped(f, title);
	fputs("</title>\n<style>\n", f);
	fwrite(ss_html_uplot_css, 1, ss_html_uplot_css_len, f);
	fputs("\n", f);
	fwrite(ss_html_page_css, 1, ss_html_page_css_len, f);
	fputs("</style>\n</head>\n<body>\n<div id=\"ss-app\"><p class=\"ss-loading\">Loading... "
	      "(this page needs JavaScript and a browser with DecompressionStream: "
	      "Chromium 80, Firefox 113 or later)</p></div>\n"
	      "<script type=\"application/json\" id=\"ss-data\">", f);
	return ferror(f) ? -EIO : 0;
}

int html_write_tail(FILE *f)
{
	fputs("</script>\n<script type=\"text/plain\" id=\"ss-metrics-md\">", f);
	html_put_script_text(f, (const char *)ss_html_metrics_md, ss_html_metrics_md_len);
	fputs("</script>\n<script>\n/* uPlot (https://github.com/leeoniya/uPlot), vendored "
	      "from the npm registry; its licence:\n", f);
	html_put_script_text(f, (const char *)ss_html_uplot_license, ss_html_uplot_license_len);
	fputs("*/\n", f);
	html_put_script_text(f, (const char *)ss_html_uplot_js, ss_html_uplot_js_len);
	fputs("\n</script>\n<script>\n", f);
	html_put_script_text(f, (const char *)ss_html_flame_js, ss_html_flame_js_len);
	fputs("\n", f);
	html_put_script_text(f, (const char *)ss_html_page_js, ss_html_page_js_len);
	fputs("\n</script>\n</body>\n</html>\n", f);
	return ferror(f) ? -EIO : 0;
}

int html_write(FILE *f, const char *title, const char *data, size_t len)
{
	html_write_head(f, title);
	html_put_script_json(f, data, len);
	return html_write_tail(f);
}

/* The data stream's write: BUF to the page, every "<" as "\u003c". */
static ssize_t data_write(void *cookie, const char *buf, size_t n)
{
	FILE *f = cookie;

	html_put_script_json(f, buf, n);
	return ferror(f) ? -1 : (ssize_t)n;
}

FILE *html_data_open(FILE *f)
{
	cookie_io_functions_t io = { .write = data_write };

	return fopencookie(f, "w", io);
}

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int html_b64gz(const void *buf, size_t len, struct strbuf *out)
{
	z_stream z;
	uLong cap = compressBound((uLong)len) + 64;
	unsigned char *gz = malloc(cap);
	size_t n;
	int r;

	if (!gz)
		return -ENOMEM;
	memset(&z, 0, sizeof(z));
	/* windowBits 16 + 15: a gzip wrapper (DecompressionStream("gzip")) */
	if (deflateInit2(&z, 6, Z_DEFLATED, 16 + 15, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
		free(gz);
		return -EIO;
	}
	z.next_in = (Bytef *)buf;
	z.avail_in = (uInt)len;
	z.next_out = gz;
	z.avail_out = (uInt)cap;
	r = deflate(&z, Z_FINISH);
	n = z.total_out;
	deflateEnd(&z);
	if (r != Z_STREAM_END) {
		free(gz);
		return -EIO;
	}
	if (sb_grow(out, (n + 2) / 3 * 4 + 1) < 0) {
		free(gz);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)gz[i] << 16 | (i + 1 < n ? (uint32_t)gz[i + 1] << 8 : 0) |
			     (i + 2 < n ? gz[i + 2] : 0);
		char q[4] = { b64[v >> 18 & 63], b64[v >> 12 & 63],
			      i + 1 < n ? b64[v >> 6 & 63] : '=', i + 2 < n ? b64[v & 63] : '=' };

		(void)sb_add(out, q, 4);
	}
	free(gz);
	return 0;
}

/* ------------------------------------------------------- streamed b64gz */

/* The base64 of the whole groups of 3 in G's output buffer (the rest kept
 * for the next call, or, at the end, padded). */
static void gz_put(struct html_gz *g, const unsigned char *p, size_t n, bool end)
{
	size_t i = 0;

	while (i < n || (end && g->ncarry)) {
		while (g->ncarry < 3 && i < n)
			g->carry[g->ncarry++] = p[i++];
		if (g->ncarry < 3 && !end)
			break;
		{
			size_t k = g->ncarry;
			uint32_t v = (uint32_t)g->carry[0] << 16 |
				     (k > 1 ? (uint32_t)g->carry[1] << 8 : 0) | (k > 2 ? g->carry[2] : 0);
			char q[4] = { b64[v >> 18 & 63], b64[v >> 12 & 63],
				      k > 1 ? b64[v >> 6 & 63] : '=', k > 2 ? b64[v & 63] : '=' };

			fwrite(q, 1, 4, g->out);
			g->ncarry = 0;
		}
	}
}

/* Deflates what G holds with FLUSH, writing the output as it comes. */
static int gz_run(struct html_gz *g, int flush)
{
	unsigned char buf[16384];
	int r;

	do {
		g->z.next_out = buf;
		g->z.avail_out = sizeof(buf);
		r = deflate(&g->z, flush);
		if (r == Z_STREAM_ERROR)
			return -EIO;
		gz_put(g, buf, sizeof(buf) - g->z.avail_out, false);
	} while (g->z.avail_out == 0 || (flush == Z_FINISH && r != Z_STREAM_END));
	return ferror(g->out) ? -EIO : 0;
}

int html_gz_begin(struct html_gz *g, FILE *out)
{
	memset(g, 0, sizeof(*g));
	g->out = out;
	/* windowBits 16 + 15: a gzip wrapper, as html_b64gz's */
	if (deflateInit2(&g->z, 6, Z_DEFLATED, 16 + 15, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -EIO;
	g->open = true;
	return 0;
}

int html_gz_write(struct html_gz *g, const void *buf, size_t len)
{
	const unsigned char *p = buf;

	while (len) {
		uInt n = len > (1u << 30) ? (1u << 30) : (uInt)len;

		g->z.next_in = (Bytef *)p;
		g->z.avail_in = n;
		if (gz_run(g, Z_NO_FLUSH) < 0)
			return -EIO;
		p += n;
		len -= n;
	}
	return 0;
}

int html_gz_end(struct html_gz *g)
{
	int r;

	if (!g->open)
		return -EIO;
	g->z.next_in = NULL;
	g->z.avail_in = 0;
	r = gz_run(g, Z_FINISH);
	gz_put(g, NULL, 0, true);
	deflateEnd(&g->z);
	g->open = false;
	return r < 0 || ferror(g->out) ? -EIO : 0;
}
