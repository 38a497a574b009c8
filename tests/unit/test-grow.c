// SPDX-License-Identifier: MIT
/*
 * test-grow.c: core/grow.h: room as asked, doubling, nothing touched when
 * there is room, and an impossible size refused with the array intact.
 */
#include <stdint.h>
#include <stdlib.h>

#include "core/grow.h"
#include "t.h"

static void test_grow(void)
{
	int *v = NULL;
	size_t cap = 0, n;

	CHECK_INT(ARRAY_GROW(v, cap, 0), 0);	/* no room asked: none made */
	CHECK(v == NULL && cap == 0);
	CHECK_INT(ARRAY_GROW(v, cap, 1), 0);
	CHECK(v != NULL);
	CHECK_INT(cap, 16);
	for (n = 0; n < 1000; n++) {
		CHECK_INT(ARRAY_GROW(v, cap, n + 1), 0);
		v[n] = (int)n;
	}
	CHECK_INT(cap, 1024);
	for (n = 0; n < 1000; n++)
		if (v[n] != (int)n)
			T_FAIL("v[%zu] == %d after growing", n, v[n]);
	{
		int *before = v;

		CHECK_INT(ARRAY_GROW(v, cap, 10), 0);	/* room already: untouched */
		CHECK(v == before);
		CHECK_INT(cap, 1024);
		CHECK_INT(ARRAY_GROW(v, cap, 5000), 0);	/* far more: at least that */
		CHECK_INT(cap, 8192);
		CHECK_INT(ARRAY_GROW(v, cap, SIZE_MAX / 2), -ENOMEM);
		CHECK_INT(cap, 8192);
		CHECK(v[999] == 999);
	}
	free(v);
}

int main(void)
{
	T_RUN(test_grow);
	return t_exit();
}
