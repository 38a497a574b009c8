// SPDX-License-Identifier: MIT
/*
 * test-html.c: the self-contained page (out/html.h) beyond test-out's
 * script-element check: the frame data's gzip+base64 (html_b64gz) decoded
 * here apart (base64 by hand, gzip by zlib's inflate, as the browser's
 * DecompressionStream("gzip") reads it) back to the same bytes, at every
 * padding and for 100k frame times; the data JSON carried to the page and
 * read back the same once its "\u003c" escapes are undone; the title's
 * markup escaped; the embedded assets there whole (uPlot and its MIT
 * licence, the page's scripts, METRICS.md); a file that fails is -EIO.
 */
#include "t.h"

#include <errno.h>
#include <stdbool.h>
#include <zlib.h>

#include "out/html.h"

/* The assets cmake/html.cmake embeds (NUL-terminated), to find them whole
 * in the page. */
extern const unsigned char ss_html_uplot_js[], ss_html_uplot_css[], ss_html_uplot_license[],
	ss_html_flame_js[], ss_html_page_js[], ss_html_page_css[], ss_html_metrics_md[];
extern const size_t ss_html_uplot_js_len, ss_html_uplot_css_len, ss_html_uplot_license_len,
	ss_html_flame_js_len, ss_html_page_js_len, ss_html_page_css_len, ss_html_metrics_md_len;

/* Whether PAGE holds ASSET (LEN bytes) whole; SCRIPT: as script text, its
 * "</" written "<\/" and "<!--" "<\!--" (html.c's rule, applied here apart). */
static bool has_asset(const char *page, const unsigned char *asset, size_t len, bool script)
{
	struct strbuf want = STRBUF_INIT;
	bool found;

	for (size_t i = 0; i < len; i++) {
		if (script && asset[i] == '<' && i + 1 < len && asset[i + 1] == '/') {
			sb_adds(&want, "<\\/");
			i++;
		} else if (script && asset[i] == '<' && len - i >= 4 && !memcmp(asset + i, "<!--", 4)) {
			sb_adds(&want, "<\\!--");
			i += 3;
		} else {
			sb_addc(&want, (char)asset[i]);
		}
	}
	found = want.len > 0 && strstr(page, want.buf) != NULL;
	sb_release(&want);
	return found;
}

static int b64val(char c)
{
	static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const char *p = c ? strchr(tab, c) : NULL;

	return p ? (int)(p - tab) : -1;
}

/* Decodes base64 TEXT into a malloc'd buffer; its length in *ret_n; NULL
 * when TEXT is not base64 (length not a multiple of 4, a bad character,
 * padding inside). */
static unsigned char *unb64(const char *text, size_t len, size_t *ret_n)
{
	unsigned char *out = malloc(len / 4 * 3 + 1);
	size_t n = 0;

	if (!out || len % 4)
		goto bad;
	for (size_t i = 0; i < len; i += 4) {
		int v[4];

		for (int k = 0; k < 4; k++) {
			v[k] = text[i + k] == '=' ? -2 : b64val(text[i + k]);
			if (v[k] == -1 || (v[k] == -2 && i + 4 < len) || (v[k] == -2 && k < 2))
				goto bad;
		}
		out[n++] = (unsigned char)(v[0] << 2 | v[1] >> 4);
		if (v[2] >= 0)
			out[n++] = (unsigned char)((v[1] & 15) << 4 | v[2] >> 2);
		if (v[2] >= 0 && v[3] >= 0)
			out[n++] = (unsigned char)((v[2] & 3) << 6 | v[3]);
	}
	*ret_n = n;
	return out;
bad:
	free(out);
	return NULL;
}

/* Gunzips GZ (N bytes) into OUT (room for CAP); the length, or -1. */
static long gunzip(const unsigned char *gz, size_t n, unsigned char *out, size_t cap)
{
	z_stream z;
	long got;

	memset(&z, 0, sizeof(z));
	if (inflateInit2(&z, 16 + 15) != Z_OK)	/* gzip only, as the browser */
		return -1;
	z.next_in = (Bytef *)gz;
	z.avail_in = (uInt)n;
	z.next_out = out;
	z.avail_out = (uInt)cap;
	got = inflate(&z, Z_FINISH) == Z_STREAM_END && z.avail_in == 0 ? (long)z.total_out : -1;
	inflateEnd(&z);
	return got;
}

/* BUF of LEN through html_b64gz and back. */
static void roundtrip(const void *buf, size_t len)
{
	struct strbuf sb = STRBUF_INIT;
	unsigned char *gz, *back = malloc(len + 16);
	size_t n = 0;

	CHECK_INT(sb_adds(&sb, "prefix:"), 0);	/* appends, keeps what was there */
	CHECK_INT(html_b64gz(buf, len, &sb), 0);
	CHECK(strncmp(sb.buf, "prefix:", 7) == 0);
	gz = unb64(sb.buf + 7, sb.len - 7, &n);
	CHECK(gz != NULL);
	if (gz && back) {
		CHECK(n >= 18 && gz[0] == 0x1f && gz[1] == 0x8b);	/* a gzip member */
		CHECK_INT(gunzip(gz, n, back, len + 16), (long)len);
		CHECK(len == 0 || memcmp(back, buf, len) == 0);
	}
	free(gz);
	free(back);
	sb_release(&sb);
}

static void test_b64gz(void)
{
	static const char text[] = "16.6,16.7,33.4,16.6";
	size_t nframes = 100000;
	float *ft = malloc(nframes * sizeof(*ft));

	/* every length mod 3, so each padding (none, "=", "==") of the output */
	for (size_t len = 0; len <= sizeof(text) - 1; len++)
		roundtrip(text, len);
	/* a run's frame times as the page gets them */
	if (ft) {
		for (size_t i = 0; i < nframes; i++)
			ft[i] = 16.6f + (float)(i % 97) * 0.01f + (i % 5000 == 0 ? 250.0f : 0.0f);
		roundtrip(ft, nframes * sizeof(*ft));
	}
	free(ft);
}

/* The page with DATA and TITLE, in a malloc'd string. */
static char *page(const char *title, const char *data)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	CHECK(f != NULL);
	if (!f)
		return NULL;
	CHECK_INT(html_write(f, title, data, strlen(data)), 0);
	fclose(f);
	return buf;
}

static void test_data(void)
{
	static const char data[] = "{\"program\":\"a<b & c>d\",\"ft\":\"H4sI\",\"n\":[1,2.5,-3e-7],"
				   "\"u\":\"\\u00e9 \xc3\xa9\",\"s\":\"<\\/p>\"}";
	static const char open_tag[] = "<script type=\"application/json\" id=\"ss-data\">";
	char *p = page("demo & \"run\" <1>", data), *start, *end;
	struct strbuf back = STRBUF_INIT;

	if (!p)
		return;
	CHECK(strncmp(p, "<!DOCTYPE html>\n", 16) == 0);
	CHECK(strstr(p, "<title>demo &amp; &quot;run&quot; &lt;1&gt;</title>") != NULL);
	start = strstr(p, open_tag);
	CHECK(start != NULL);
	end = start ? strstr(start, "</script>") : NULL;
	CHECK(end != NULL);
	if (start && end) {
		/* no "<" in the element: none can spell markup */
		CHECK(memchr(start + strlen(open_tag), '<', (size_t)(end - start) - strlen(open_tag)) ==
		      NULL);
		/* undo the one escape html_write makes: what JSON.parse reads */
		for (const char *s = start + strlen(open_tag); s < end; s++) {
			if (!strncmp(s, "\\u003c", 6)) {
				sb_addc(&back, '<');
				s += 5;
			} else {
				sb_addc(&back, *s);
			}
		}
		CHECK_STR(back.buf, data);
	}
	/* the assets, whole: uPlot with its licence, the page's scripts and
	 * METRICS.md, each in its element, and the page's end */
	CHECK(has_asset(p, ss_html_uplot_css, ss_html_uplot_css_len, false));
	CHECK(has_asset(p, ss_html_page_css, ss_html_page_css_len, false));
	CHECK(has_asset(p, ss_html_uplot_license, ss_html_uplot_license_len, true));
	CHECK(has_asset(p, ss_html_uplot_js, ss_html_uplot_js_len, true));
	CHECK(has_asset(p, ss_html_flame_js, ss_html_flame_js_len, true));
	CHECK(has_asset(p, ss_html_page_js, ss_html_page_js_len, true));
	CHECK(has_asset(p, ss_html_metrics_md, ss_html_metrics_md_len, true));
	CHECK(strstr(p, "<script type=\"text/plain\" id=\"ss-metrics-md\">") != NULL);
	CHECK(strlen(p) > 40000);	/* uPlot alone is ~50 KB */
	{
		size_t n = strlen(p);

		CHECK(n > 26 && !strcmp(p + n - 26, "</script>\n</body>\n</html>\n"));
	}
	sb_release(&back);
	free(p);
}

/* A page that cannot be written: -EIO, not 0. */
static void test_write_fails(void)
{
	FILE *f = fopen("/dev/full", "w");

	if (!f) {
		T_FAIL("cannot open /dev/full");
		return;
	}
	CHECK_INT(html_write(f, "t", "{}", 2), -EIO);
	fclose(f);
}

int main(void)
{
	T_RUN(test_b64gz);
	T_RUN(test_data);
	T_RUN(test_write_fails);
	return t_exit();
}
