// SPDX-License-Identifier: MIT
/* test-inifmt.c: run.ini lines (newlines flattened, NULL as "-") and argv
 * quoted so that a POSIX shell splits it back into the same words. */
#include "core/inifmt.h"
#include "t.h"

static void test_inifmt(void)
{
	struct strbuf sb = STRBUF_INIT;
	char *argv[] = { "game", "--level", "two words", "it's", "", "a=b" };

	CHECK_INT(inifmt_add(&sb, "a", "x\ny"), 0);
	CHECK_INT(inifmt_add(&sb, "b", NULL), 0);
	CHECK_INT(inifmt_addf(&sb, "c", "%d.%06d", 3, 42), 0);
	CHECK_STR(sb.buf, "a=x y\nb=-\nc=3.000042\n");
	sb_reset(&sb);
	CHECK_INT(inifmt_quote_argv(&sb, 6, argv), 0);
	CHECK_STR(sb.buf, "game --level 'two words' 'it'\\''s' '' a=b");
	sb_release(&sb);
}

int main(void)
{
	T_RUN(test_inifmt);
	return t_exit();
}
