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

int main(void)
{
	T_RUN(test_lines);
	return t_exit();
}
