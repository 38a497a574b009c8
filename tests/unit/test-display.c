// SPDX-License-Identifier: MIT
/* test-display.c: escaping for terminals and display widths (core/display.h). */
#include <string.h>

#include "core/display.h"
#include "t.h"

static void check_escape(const char *in, size_t n, size_t max, const char *want)
{
	struct strbuf sb = STRBUF_INIT;

	CHECK_INT(display_escape(&sb, in, n, max), 0);
	CHECK_STR(sb.buf, want);
	sb_release(&sb);
}

static void test_escape(void)
{
	check_escape("plain/path", 10, 0, "plain/path");
	check_escape("two\nlines\tand\r", 14, 0, "two\\nlines\\tand\\r");
	check_escape("\x1b[31mred", 8, 0, "\\x1b[31mred");
	check_escape("a\0b", 3, 0, "a\\x00b");
	check_escape("Caf\xc3\xa9 \xe3\x82\xb2\xe3\x83\xbc\xe3\x83\xa0", 15, 0,
		     "Caf\xc3\xa9 \xe3\x82\xb2\xe3\x83\xbc\xe3\x83\xa0");
	/* not UTF-8: a lone continuation byte, an overlong '/', a surrogate,
	 * a sequence cut short, a C1 control */
	check_escape("\x80x", 2, 0, "\\x80x");
	check_escape("\xc0\xaf", 2, 0, "\\xc0\\xaf");
	check_escape("\xed\xa0\x80", 3, 0, "\\xed\\xa0\\x80");
	check_escape("\xe3\x82", 2, 0, "\\xe3\\x82");
	check_escape("\xc2\x85", 2, 0, "\\xc2\\x85");
	check_escape("0123456789abc", 13, 10, "0123456789...");
	/* a right-to-left override would reverse the rest of the line */
	check_escape("a\xe2\x80\xae" "b\xe2\x81\xa6", 8, 0, "a\\u202eb\\u2066");
}

/* Escaping twice is escaping once: a message escaped as a whole keeps the
 * values a command escaped; display_escape_text keeps lines and tabs. */
static void test_escape_text(void)
{
	static const char raw[] = "x\x1b]0;t\x07\n\ty\xc2\x9b" "2J\xe2\x80\xae\\n\xff";
	struct strbuf once = STRBUF_INIT, twice = STRBUF_INIT, text = STRBUF_INIT;

	CHECK_INT(display_escape(&once, raw, sizeof(raw) - 1, 0), 0);
	CHECK_STR(once.buf, "x\\x1b]0;t\\x07\\n\\ty\\xc2\\x9b2J\\u202e\\n\\xff");
	CHECK_INT(display_escape(&twice, once.buf, once.len, 0), 0);
	CHECK_STR(twice.buf, once.buf);
	CHECK_INT(display_escape_text(&text, raw, sizeof(raw) - 1), 0);
	CHECK_STR(text.buf, "x\\x1b]0;t\\x07\n\ty\\xc2\\x9b2J\\u202e\\n\\xff");
	sb_release(&once);
	sb_release(&twice);
	sb_release(&text);
}

static void test_width(void)
{
	CHECK_INT(display_width(""), 0);
	CHECK_INT(display_width("abc"), 3);
	CHECK_INT(display_width("Caf\xc3\xa9"), 4);
	CHECK_INT(display_width("\xe3\x82\xb2\xe3\x83\xbc\xe3\x83\xa0"), 6);	/* ゲーム */
	CHECK_INT(display_width("e\xcc\x81"), 1);	/* e + combining acute */
	CHECK_INT(display_width("\xf0\x9f\x8e\xae"), 2);	/* a video game emoji */
	CHECK_INT(display_width("\\x1b"), 4);
}

int main(void)
{
	T_RUN(test_escape);
	T_RUN(test_escape_text);
	T_RUN(test_width);
	return t_exit();
}
