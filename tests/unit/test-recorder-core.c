// SPDX-License-Identifier: MIT
/* test-recorder-core.c: the recorder's pure pieces: the lateness histogram
 * (percentiles at the bucket edges, overflow, empty) and run.ini lines
 * (newlines flattened, argv quoted so a shell splits it back). */
#include "core/lathist.h"
#include "core/inifmt.h"
#include "t.h"

static struct lathist h;

static void test_lathist(void)
{
	lathist_init(&h);
	CHECK_INT(lathist_pct_ns(&h, 50), -1);
	for (int i = 0; i < 99; i++)
		lathist_add(&h, 1500);	/* bucket 1 us */
	lathist_add(&h, 50 * 1000 * 1000);	/* 50 ms: overflow */
	CHECK_INT(h.n, 100);
	CHECK_INT(h.overflow, 1);
	CHECK_INT(h.min_ns, 1500);
	CHECK_INT(h.max_ns, 50000000);
	CHECK_INT(lathist_pct_ns(&h, 50), 2000);
	CHECK_INT(lathist_pct_ns(&h, 99), 2000);
	CHECK_INT(lathist_pct_ns(&h, 99.5), 50000000);
	CHECK_INT(lathist_pct_ns(&h, 100), 50000000);
	CHECK_INT(lathist_pct_ns(&h, 0), 1500);
	lathist_init(&h);
	lathist_add(&h, 300);
	CHECK_INT(lathist_pct_ns(&h, 50), 300);	/* clamped to max */
}

static void test_runini(void)
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
	T_RUN(test_lathist);
	T_RUN(test_runini);
	return t_exit();
}
