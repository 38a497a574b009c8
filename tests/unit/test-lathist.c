// SPDX-License-Identifier: MIT
/* test-lathist.c: the recorder's lateness histogram: percentiles at the
 * bucket edges, the overflow bucket (a percentile there is the exact max),
 * clamping to the max, and an empty histogram. */
#include "core/lathist.h"
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

int main(void)
{
	T_RUN(test_lathist);
	return t_exit();
}
