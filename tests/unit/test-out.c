// SPDX-License-Identifier: MIT
/* test-out.c: the JSON writer, tables and CSV, and the strbuf under them. */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/strbuf.h"
#include "out/html.h"
#include "out/json.h"
#include "out/table.h"
#include "t.h"

/* Runs FN on a memory stream and returns what it wrote (caller frees). */
static char *capture(void (*fn)(FILE *))
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	fn(f);
	fclose(f);
	return buf;
}

static void write_json(FILE *f)
{
	struct json j;

	json_init(&j, f, false);
	json_obj_begin(&j);
	json_kstr(&j, "s", "a\"b\\c\n\x01\xff");
	json_kstr(&j, "esc", "\x1b]0;t\x07\xc2\x9b" "2J\x7f");
	json_knum(&j, "n", 1.5);
	json_knum(&j, "i", 3);
	json_knum(&j, "nan", NAN);
	json_knum(&j, "inf", INFINITY);
	json_knum(&j, "big", 1e300);
	json_key(&j, "a");
	json_arr_begin(&j);
	json_int(&j, -2);
	json_bool(&j, true);
	json_null(&j);
	json_obj_begin(&j);
	json_obj_end(&j);
	json_arr_end(&j);
	json_obj_end(&j);
}

static void test_json(void)
{
	char *s = capture(write_json);

	CHECK_STR(s, "{\"s\":\"a\\\"b\\\\c\\n\\u0001\xef\xbf\xbd\","
		     "\"esc\":\"\\u001b]0;t\\u0007\\u009b2J\\u007f\",\"n\":1.5,\"i\":3,"
		     "\"nan\":null,\"inf\":null,\"big\":1e+300,\"a\":[-2,true,null,{}]}");
	free(s);
}

static void write_table(FILE *f)
{
	static const char *const h[] = { "name", "fps", "note" };
	struct table *t = table_new(3, h);

	table_add(t, "a");
	table_add_num(t, 59.94, 1);
	table_add(t, "x,y");
	table_add(t, "long name");
	table_add_num(t, NAN, 1);
	table_add(t, NULL);
	table_print(t, f);
	table_print_csv(t, f);
	table_free(t);
}

static void test_table(void)
{
	char *s = capture(write_table);

	CHECK_STR(s, "name        fps  note\n"
		     "a          59.9  x,y\n"
		     "long name     -  -\n"
		     "name,fps,note\n"
		     "a,59.9,\"x,y\"\n"
		     "long name,-,-\n");
	free(s);
}

/* A newline in a path stays in its row (escaped), a multibyte name takes
 * its columns, not its bytes; CSV keeps the cells as they are. */
static void write_table_hygiene(FILE *f)
{
	static const char *const h[] = { "source", "frames" };
	struct table *t = table_new(2, h);

	table_add(t, "runs/a\nb");
	table_add(t, "12");
	table_add(t, "runs/\xe3\x82\xb2\xe3\x83\xbc\xe3\x83\xa0");	/* ゲーム */
	table_add(t, "3");
	table_add(t, "runs/Caf\xc3\xa9");
	table_add(t, "456");
	table_print(t, f);
	table_print_csv(t, f);
	table_free(t);
}

static void test_table_hygiene(void)
{
	char *s = capture(write_table_hygiene);

	CHECK_STR(s, "source       frames\n"
		     "runs/a\\nb        12\n"
		     "runs/\xe3\x82\xb2\xe3\x83\xbc\xe3\x83\xa0       3\n"
		     "runs/Caf\xc3\xa9       456\n"
		     "source,frames\n"
		     "\"runs/a\nb\",12\n"
		     "runs/\xe3\x82\xb2\xe3\x83\xbc\xe3\x83\xa0,3\n"
		     "runs/Caf\xc3\xa9,456\n");
	free(s);
}

/* Rows of the kind stalls prints: numbers, "-", text, a coloured cell, a
 * newline in a path, a multibyte name, a long last cell. */
static const char *const stream_cells[][4] = {
	{ "1.008", "300.1", "cpu", "R running; run 300.1 ms" },
	{ "12.5", "-", "wait (futex)", "runs/a\nb" },
	{ "130.250", "16.7", "io (read)", "runs/\xe3\x82\xb2\xe3\x83\xbc\xe3\x83\xa0" },
	{ "7", "2", "x", "9" },
};
#define STREAM_ROWS (sizeof(stream_cells) / sizeof(stream_cells[0]))

static void stream_row(struct table *t, size_t r)
{
	for (size_t c = 0; c < 4; c++) {
		table_add(t, stream_cells[r][c]);
		if (c == 2)
			table_set_sgr(t, "\033[31m");
	}
}

/* Rows R0 .. R1 - 1 printed whole (table_print) or streamed (table.h:
 * measured, then printed a row at a time), the header HIDE-den or not. */
static char *stream_print(size_t r0, size_t r1, bool hide, bool streamed)
{
	static const char *const h[] = { "t_s", "ms", "cause", "evidence" };
	struct table *t = table_new(4, h);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (hide)
		table_hide_header(t);
	for (size_t r = r0; r < r1; r++) {
		stream_row(t, r);
		if (streamed) {
			CHECK_INT(table_measure(t), 0);
			CHECK_INT(table_rows(t), 0);	/* dropped once measured */
		}
	}
	if (!streamed)
		table_print(t, f);
	for (size_t r = r0; streamed && r < r1; r++) {
		stream_row(t, r);
		CHECK_INT(table_print_row(t, f), 0);
		CHECK_INT(table_rows(t), 0);
	}
	table_free(t);
	fclose(f);
	return buf;
}

/* A table too long to hold prints, a row at a time, what table_print
 * prints of it whole: widths, right-aligned numbers (a column with a text
 * cell is left-aligned), colours, escapes, the header hidden or not. */
static void test_table_streamed(void)
{
	for (size_t r0 = 0; r0 < STREAM_ROWS; r0++)
		for (size_t r1 = r0 + 1; r1 <= STREAM_ROWS; r1++)
			for (int hide = 0; hide < 2; hide++) {
				char *whole = stream_print(r0, r1, hide, false);
				char *streamed = stream_print(r0, r1, hide, true);

				CHECK_STR(streamed, whole);
				free(whole);
				free(streamed);
			}
	{
		/* nothing measured: an error, nothing printed */
		static const char *const h[] = { "a" };
		struct table *t = table_new(1, h);

		table_add(t, "1");
		CHECK_INT(table_print_row(t, stderr), -EINVAL);
		table_free(t);
	}
}

static void test_strbuf(void)
{
	struct strbuf sb = STRBUF_INIT;
	char *d;
	int i;

	CHECK_STR(sb.buf, "");
	for (i = 0; i < 1000; i++)
		CHECK_INT(sb_addf(&sb, "%d,", i), 0);
	CHECK_INT(sb.len, 3890);
	CHECK(sb.buf[sb.len] == '\0');
	sb_reset(&sb);
	CHECK_INT(sb.len, 0);
	CHECK_INT(sb_add_path(&sb, "runs/x//", "run.ini"), 0);
	CHECK_STR(sb.buf, "runs/x/run.ini");
	sb_reset(&sb);
	CHECK_INT(sb_add_path(&sb, "/", "run.ini"), 0);
	CHECK_STR(sb.buf, "/run.ini");
	sb_reset(&sb);
	CHECK_INT(sb_add_path(&sb, "d", "f"), 0);
	CHECK_STR(sb.buf, "d/f");
	sb_reset(&sb);
	sb_adds(&sb, "ok");
	d = sb_detach(&sb);
	CHECK_STR(d, "ok");
	CHECK_STR(sb.buf, "");
	free(d);
	d = sb_detach(&sb);	/* an empty buffer detaches as an owned "" */
	CHECK_STR(d, "");
	free(d);
	sb_release(&sb);
	sb_release(NULL);
}

/*
 * Issue 26 item 16: text a spreadsheet would run as a formula gets a
 * leading "'"; numbers, negative ones included, and "-" stay as they are.
 */
static void write_csv_formulas(FILE *f)
{
	static const char *const cells[] = {
		"=HYPERLINK(\"http://x\",\"y\")", "+1+cmd|' /C calc'!A0", "-2+3", "@SUM(A1)",
		"\t=1", "-", "-3.5", "+2e-3", "-12%", "1e5", ".5", "-inf", "x=1", "-0.5 ms", "",
	};

	for (size_t i = 0; i < sizeof(cells) / sizeof(cells[0]); i++) {
		csv_field(f, cells[i]);
		fputc('\n', f);
	}
}

static void test_csv_formulas(void)
{
	char *s = capture(write_csv_formulas);

	CHECK_STR(s, "\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\"\n"
		     "'+1+cmd|' /C calc'!A0\n"
		     "'-2+3\n"
		     "'@SUM(A1)\n"
		     "'\t=1\n"
		     "-\n"
		     "-3.5\n"
		     "+2e-3\n"
		     "-12%\n"
		     "1e5\n"
		     ".5\n"
		     "'-inf\n"
		     "x=1\n"
		     "'-0.5 ms\n"
		     "\n");
	free(s);
}

/* Occurrences of NEEDLE in S, case ignored (the HTML tokenizer ignores it). */
static int count_ci(const char *s, const char *needle)
{
	size_t n = strlen(needle);
	int c = 0;

	for (; *s; s++)
		c += !strncasecmp(s, needle, n);
	return c;
}

/*
 * Issue 26 item 9: a name holding "<!--<script>" put the data's script
 * element into the tokenizer's "double escaped" state, so the page's own
 * "</script>" no longer ended it and nothing drew. Whatever the data holds,
 * the page has its four script elements, each opened and closed once, and
 * no "<!--" at all; the JSON escape "\u003c" carries the "<" to the script.
 */
static void test_html_script_text(void)
{
	static const char data[] = "{\"program\":\"<!--<script>\",\"a\":\"</script><SCRIPT>"
				   "x()</ScRiPt>\",\"b\":\"<!-- -->\"}";
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	CHECK_INT(html_write(f, "<!--<script>", data, sizeof(data) - 1), 0);
	fclose(f);
	CHECK_INT(count_ci(buf, "<script"), 4);
	CHECK_INT(count_ci(buf, "</script"), 4);
	CHECK_INT(count_ci(buf, "<!--"), 0);
	CHECK(strstr(buf, "<title>&lt;!--&lt;script&gt;</title>") != NULL);
	CHECK(strstr(buf, "{\"program\":\"\\u003c!--\\u003cscript>\"") != NULL);
	free(buf);
}

/*
 * Issue 31: the page written as it is made. Its head, its data through
 * html_data_open's stream (in pieces) and its tail are html_write's page
 * byte for byte; the gzip+base64 written as it is made (html_gz_*, input
 * in pieces of 1, 7, 4096 bytes and whole, so that every remainder of the
 * base64's groups of 3 is met) is html_b64gz's of the whole.
 */
static void test_html_streamed(void)
{
	static const char data[] = "{\"program\":\"<!--<script>\",\"a\":\"</script>\"}";
	static const size_t pieces[] = { 1, 7, 4096, 100003 };
	char *whole = NULL, *part = NULL;
	size_t wlen = 0, plen = 0;
	FILE *f = open_memstream(&whole, &wlen), *d;
	unsigned char *buf = malloc(100003);
	uint32_t x = 12345;

	CHECK_INT(html_write(f, "t", data, sizeof(data) - 1), 0);
	fclose(f);
	f = open_memstream(&part, &plen);
	CHECK_INT(html_write_head(f, "t"), 0);
	d = html_data_open(f);
	CHECK(d != NULL);
	for (size_t i = 0; d && i < sizeof(data) - 1; i += 5)
		fwrite(data + i, 1, sizeof(data) - 1 - i < 5 ? sizeof(data) - 1 - i : 5, d);
	if (d)
		fclose(d);
	CHECK_INT(html_write_tail(f), 0);
	fclose(f);
	CHECK_INT((long long)plen, (long long)wlen);
	CHECK(plen == wlen && !memcmp(part, whole, wlen));
	free(whole);
	free(part);
	/* frame-gap-like bytes: small numbers with noise, compressible */
	for (size_t i = 0; i < 100003; i++) {
		x = x * 1103515245u + 12345u;
		buf[i] = (unsigned char)(i % 4 == 0 ? 0x40 + (x >> 28) : i % 4 == 1 ? 6 : 0);
	}
	for (size_t p = 0; p < sizeof(pieces) / sizeof(pieces[0]); p++) {
		for (size_t len = 100001; len <= 100003; len++) {
			struct strbuf want = STRBUF_INIT;
			struct html_gz g;
			int r = 0;

			part = NULL;
			plen = 0;
			f = open_memstream(&part, &plen);
			CHECK_INT(html_gz_begin(&g, f), 0);
			for (size_t i = 0; i < len && !r; i += pieces[p])
				r = html_gz_write(&g, buf + i, len - i < pieces[p] ? len - i : pieces[p]);
			CHECK_INT(r, 0);
			CHECK_INT(html_gz_end(&g), 0);
			fclose(f);
			CHECK_INT(html_b64gz(buf, len, &want), 0);
			CHECK_INT((long long)plen, (long long)want.len);
			CHECK(plen == want.len && !memcmp(part, want.buf, plen));
			free(part);
			sb_release(&want);
		}
	}
	free(buf);
}

int main(void)
{
	T_RUN(test_json);
	T_RUN(test_table);
	T_RUN(test_table_hygiene);
	T_RUN(test_table_streamed);
	T_RUN(test_strbuf);
	T_RUN(test_html_script_text);
	T_RUN(test_html_streamed);
	T_RUN(test_csv_formulas);
	return t_exit();
}
