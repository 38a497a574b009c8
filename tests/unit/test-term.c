// SPDX-License-Identifier: MIT
/* test-term.c: out/term.h: --color's values and NO_COLOR, widths with our
 * escapes and wide characters, folding to a width, the causes' colours and
 * $COLUMNS. The terminal itself (a pty, the pager) is tests/e2e/term.sh's. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "out/term.h"
#include "t.h"

/* TEXT folded to WIDTH (caller frees). */
static char *folded(const char *text, size_t width)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	CHECK_INT(term_fold(f, text, strlen(text), width), 0);
	fclose(f);
	return buf;
}

static void test_color(void)
{
	enum term_color c = TERM_COLOR_AUTO;

	CHECK_INT(term_color_parse("always", &c), 0);
	CHECK_INT(c, TERM_COLOR_ALWAYS);
	CHECK_INT(term_color_parse("never", &c), 0);
	CHECK_INT(c, TERM_COLOR_NEVER);
	CHECK_INT(term_color_parse("auto", &c), 0);
	CHECK_INT(c, TERM_COLOR_AUTO);
	CHECK_INT(term_color_parse("yes", &c), -EINVAL);
	/* a memory stream is no terminal; always and never are as said */
	CHECK(term_color_on(TERM_COLOR_ALWAYS, -1));
	CHECK(!term_color_on(TERM_COLOR_NEVER, -1));
	CHECK(!term_color_on(TERM_COLOR_AUTO, -1));
	setenv("NO_COLOR", "1", 1);
	CHECK(term_color_on(TERM_COLOR_ALWAYS, -1));
	unsetenv("NO_COLOR");
	/* the page's disk blue #1f77b4 is 256-colour 31, its grey fault 244 */
	CHECK_STR(term_cause_sgr("disk"), "\033[38;5;31m");
	CHECK_STR(term_cause_sgr("fault"), "\033[38;5;244m");
	CHECK_STR(term_cause_sgr("other"), term_cause_sgr("fault"));
	CHECK(term_cause_sgr("nonsense") == NULL);
	CHECK(term_cause_sgr(NULL) == NULL);
}

static void test_width(void)
{
	const char *s = "\033[38;5;31mdisk\033[m \xe3\x82\xb2\xe3\x83\xbc\xe3\x83\xa0";

	CHECK_INT(term_text_width(s, strlen(s)), 4 + 1 + 6);
	CHECK_INT(term_text_width("Caf\xc3\xa9", 5), 4);
	setenv("COLUMNS", "132", 1);
	CHECK_INT(term_width(-1), 132);
	setenv("COLUMNS", "12", 1);	/* too narrow to believe */
	CHECK_INT(term_width(-1), 80);
	setenv("COLUMNS", "x", 1);
	CHECK_INT(term_width(-1), 80);
	unsetenv("COLUMNS");
	CHECK_INT(term_width(-1), 80);
}

static void test_fold(void)
{
	char *f;

	/* short lines and blank lines as they are */
	f = folded("a b\n\nc\n", 10);
	CHECK_STR(f, "a b\n\nc\n");
	free(f);
	/* at the last blank that fits, the rest indented 4 more */
	f = folded("  aaa bbb ccc ddd\n", 12);
	CHECK_STR(f, "  aaa bbb\n      ccc\n      ddd\n");
	free(f);
	f = folded("  aaa bbb ccc ddd\n", 13);
	CHECK_STR(f, "  aaa bbb ccc\n      ddd\n");
	free(f);
	/* a word longer than the width is cut at it; the indent at most half */
	f = folded("abcdefghijkl\n", 5);
	CHECK_STR(f, "abcde\n  fgh\n  ijk\n  l\n");
	free(f);
	/* escapes take no columns; a wide character is not split */
	f = folded("\033[31mab\033[m cd\n", 5);
	CHECK_STR(f, "\033[31mab\033[m cd\n");
	free(f);
	f = folded("\xe3\x82\xb2\xe3\x83\xbc\xe3\x83\xa0\n", 5);
	CHECK_STR(f, "\xe3\x82\xb2\xe3\x83\xbc\n  \xe3\x83\xa0\n");
	free(f);
	/* no line over the width, whatever the text */
	f = folded("x: the quick brown fox jumps over the lazy dog, "
		   "then again over a rather longer-than-usual-word\n", 20);
	for (char *l = f, *e; l && *l; l = e + 1) {
		e = strchr(l, '\n');
		if (!e)
			break;
		CHECK(term_text_width(l, (size_t)(e - l)) <= 20);
	}
	free(f);
}

static void test_pager_cmd(void)
{
	unsetenv("PAGER");
	CHECK_STR(term_pager_cmd(), "less -FRX");
	setenv("PAGER", "", 1);
	CHECK(term_pager_cmd() == NULL);
	setenv("PAGER", "cat", 1);
	CHECK(term_pager_cmd() == NULL);
	setenv("PAGER", "most -s", 1);
	CHECK_STR(term_pager_cmd(), "most -s");
	unsetenv("PAGER");
}

int main(void)
{
	T_RUN(test_color);
	T_RUN(test_width);
	T_RUN(test_fold);
	T_RUN(test_pager_cmd);
	return t_exit();
}
