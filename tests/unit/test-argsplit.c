// SPDX-License-Identifier: MIT
/*
 * test-argsplit.c: recipe command lines split as a shell would, without one:
 * quotes, escapes, empty words, nothing expanded, and clear errors.
 */
#include <errno.h>

#include "core/argsplit.h"
#include "core/inifmt.h"
#include "t.h"

static void test_words(void)
{
	struct strbuf err = STRBUF_INIT;
	char **v = NULL;
	int n;

	n = argsplit("  build/fakegame --seconds 3\t--stall 'sleep:300@1'  ", &v, &err);
	CHECK_INT(n, 5);
	CHECK_STR(v[0], "build/fakegame");
	CHECK_STR(v[4], "sleep:300@1");
	CHECK(v[5] == NULL);
	argsplit_free(v);

	n = argsplit("a\"b c\"d '' \"x\\\"y\\\\z\" e\\ f $HOME;ls", &v, &err);
	CHECK_INT(n, 5);
	CHECK_STR(v[0], "ab cd");
	CHECK_STR(v[1], "");
	CHECK_STR(v[2], "x\"y\\z");
	CHECK_STR(v[3], "e f");
	CHECK_STR(v[4], "$HOME;ls");	/* nothing expanded, no operators */
	argsplit_free(v);

	n = argsplit("   ", &v, &err);
	CHECK_INT(n, 0);
	CHECK(v[0] == NULL);
	argsplit_free(v);
	sb_release(&err);
}

static void test_errors(void)
{
	{
		struct strbuf e = STRBUF_INIT;
		char **w = NULL;

		CHECK_INT(argsplit("a $'b\\q'", &w, &e), -EINVAL);
		CHECK(strstr(e.buf, "unknown escape") != NULL);
		sb_reset(&e);
		CHECK_INT(argsplit("a $'b", &w, &e), -EINVAL);
		CHECK(strstr(e.buf, "unterminated \"$'\" at column 3") != NULL);
		CHECK_INT(argsplit("$'\\x41\\x4a2'", &w, &e), 1);
		if (w)
			CHECK_STR(w[0], "AJ2");
		argsplit_free(w);
		sb_release(&e);
	}
	struct strbuf err = STRBUF_INIT;
	char **v = (char **)"untouched";

	CHECK_INT(argsplit("game 'abc", &v, &err), -EINVAL);
	CHECK_STR(err.buf, "unterminated \"'\" at column 6");
	CHECK(v == (char **)"untouched");
	sb_reset(&err);
	CHECK_INT(argsplit("game \"abc", &v, &err), -EINVAL);
	CHECK_STR(err.buf, "unterminated '\"' at column 6");
	sb_reset(&err);
	CHECK_INT(argsplit("game \\", &v, &err), -EINVAL);
	CHECK(strstr(err.buf, "column 6") != NULL);
	sb_release(&err);
}

/* inifmt_quote_argv's line splits back into the same words. */
static void test_round_trip(void)
{
	/* with a newline, a tab, a quote and a backslash in one word, and an
	 * escape byte: run.ini's argv must give back every argument */
	char *words[] = { "a b", "it's", "plain", "", "$x", "two\nlines\tand 'q' \\", "\x1b[0m" };
	int nw = (int)(sizeof(words) / sizeof(words[0]));
	struct strbuf line = STRBUF_INIT, err = STRBUF_INIT;
	char **v = NULL;

	inifmt_quote_argv(&line, nw, words);
	CHECK(strchr(line.buf, '\n') == NULL && strchr(line.buf, '\x1b') == NULL);
	CHECK(strstr(line.buf, "$'two\\nlines\\tand \\'q\\' \\\\'") != NULL);
	CHECK_INT(argsplit(line.buf, &v, &err), nw);
	for (int i = 0; i < nw && v; i++)
		CHECK_STR(v[i], words[i]);
	argsplit_free(v);
	sb_release(&line);
	sb_release(&err);
}

int main(void)
{
	T_RUN(test_words);
	T_RUN(test_errors);
	T_RUN(test_round_trip);
	return t_exit();
}
