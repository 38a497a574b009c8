// SPDX-License-Identifier: MIT
/* test-logstamp.c: program.log stamps: one per line, a line split across
 * reads keeps its first stamp, empty lines get one, nothing for no bytes. */
#include "core/logstamp.h"
#include "t.h"

static void test_lines(void)
{
	struct logstamp ls = LOGSTAMP_INIT;
	struct strbuf sb = STRBUF_INIT;

	CHECK_INT(logstamp_feed(&ls, "a\nb", 3, 1.5, &sb), 0);
	CHECK_STR(sb.buf, "[1.500] a\n[1.500] b");
	CHECK_INT(logstamp_feed(&ls, "c\n\nd\n", 5, 2.25, &sb), 0);
	CHECK_STR(sb.buf, "[1.500] a\n[1.500] bc\n[2.250] \n[2.250] d\n");
	CHECK_INT(logstamp_feed(&ls, "", 0, 3, &sb), 0);
	CHECK_INT(logstamp_feed(&ls, "e", 1, 3, &sb), 0);
	CHECK_STR(sb.buf, "[1.500] a\n[1.500] bc\n[2.250] \n[2.250] d\n[3.000] e");
	CHECK(ls.mid_line);
	sb_release(&sb);
}

/* LINE's stamp: WANT_T and the text after it, or no stamp (WANT_TEXT NULL). */
static void check_parse(const char *line, double want_t, const char *want_text)
{
	double t = -1;
	size_t off = 99;
	int r = logstamp_parse(line, strlen(line), &t, &off);

	CHECK_INT(r, want_text ? 1 : 0);
	if (want_text) {
		CHECK_NEAR(t, want_t, 1e-9);
		CHECK_STR(line + off, want_text);
	} else {
		CHECK_INT(off, 0);
	}
}

/* The one grammar every stamped-log reader uses. */
static void test_parse(void)
{
	check_parse("[12.345] level loaded", 12.345, "level loaded");
	check_parse("[0.000]   indented", 0, "  indented");	/* one blank taken */
	check_parse("[7]no blank", 7, "no blank");
	check_parse("[3.] x", 3, "x");
	check_parse("[  1234.567] (II) Xorg", 1234.567, "(II) Xorg");	/* padded, as X */
	check_parse("  [ 5.5 ] lead", 5.5, "lead");
	check_parse("[1.5]", 1.5, "");
	/* what logstamp_feed writes reads back */
	{
		struct logstamp ls = LOGSTAMP_INIT;
		struct strbuf out = STRBUF_INIT;
		double t;
		size_t off;

		CHECK_INT(logstamp_feed(&ls, "hello\n", 6, 61.25, &out), 0);
		CHECK_INT(logstamp_parse(out.buf, out.len - 1, &t, &off), 1);
		CHECK_NEAR(t, 61.25, 1e-9);
		CHECK_STR(out.buf + off, "hello\n");
		sb_release(&out);
	}
	/* no stamp: the whole line is text */
	check_parse("plain line", 0, NULL);
	check_parse("[] empty", 0, NULL);
	check_parse("[-1.0] negative", 0, NULL);
	check_parse("[1e3] exponent", 0, NULL);
	check_parse("[0x10] hex", 0, NULL);
	check_parse("[inf] inf", 0, NULL);
	check_parse("[nan] nan", 0, NULL);
	check_parse("[1.2.3] two dots", 0, NULL);
	check_parse("[12 unclosed", 0, NULL);
	check_parse("[.5] no leading digit", 0, NULL);
}

int main(void)
{
	T_RUN(test_parse);
	T_RUN(test_lines);
	return t_exit();
}
