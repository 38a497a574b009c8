// SPDX-License-Identifier: MIT
/* test-lathist.c: the recorder's lateness histogram: percentiles at the
 * bucket edges (100 ns under LATHIST_FINE_US, 1 us above), the overflow
 * bucket (a percentile there is the exact max), clamping to the max, and an
 * empty histogram. */
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
	CHECK_INT(lathist_pct_ns(&h, 50), 1600);
	CHECK_INT(lathist_pct_ns(&h, 99), 1600);
	CHECK_INT(lathist_pct_ns(&h, 99.5), 50000000);
	CHECK_INT(lathist_pct_ns(&h, 100), 50000000);
	CHECK_INT(lathist_pct_ns(&h, 0), 1500);
	lathist_init(&h);
	lathist_add(&h, 300);
	CHECK_INT(lathist_pct_ns(&h, 50), 300);	/* clamped to max */

	/* a sample's work: 5.1 and 5.8 us are told apart under FINE_US, and
	 * above it the microsecond's edge holds */
	lathist_init(&h);
	for (int i = 0; i < 60; i++)
		lathist_add(&h, 5100 + (uint64_t)i % 3);
	for (int i = 0; i < 40; i++)
		lathist_add(&h, 5800);
	lathist_add(&h, 40 * 1000 + 300);
	CHECK_INT(lathist_pct_ns(&h, 50), 5200);
	CHECK_INT(lathist_pct_ns(&h, 59), 5200);	/* rank 60 of 101 */
	CHECK_INT(lathist_pct_ns(&h, 61), 5900);
	CHECK_INT(lathist_pct_ns(&h, 100), 40300);
	CHECK_INT(lathist_pct_ns(&h, 99.5), 40300);	/* 41,000 clamped to max */
	lathist_init(&h);
	for (int i = 0; i < 10; i++)
		lathist_add(&h, (uint64_t)(LATHIST_FINE_US - 1) * 1000 + 950);
	lathist_add(&h, (uint64_t)LATHIST_FINE_US * 1000 + 500);
	CHECK_INT(lathist_pct_ns(&h, 50), (LATHIST_FINE_US - 1) * 1000 + 1000);
	CHECK_INT(lathist_pct_ns(&h, 95), LATHIST_FINE_US * 1000 + 500);
}

int main(void)
{
	T_RUN(test_lathist);
	return t_exit();
}
