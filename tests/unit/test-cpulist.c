// SPDX-License-Identifier: MIT
/* test-cpulist.c: the cpulist parser ("0-3,5"), both ways, and its errors. */
#include <errno.h>
#include <string.h>

#include "core/cpulist.h"
#include "core/strbuf.h"
#include "t.h"

/* Parses S and returns its formatted form (static), or the error message. */
static const char *roundtrip(const char *s)
{
	static char out[256];
	struct strbuf sb = STRBUF_INIT, err = STRBUF_INIT;
	struct cpulist l;

	if (cpulist_parse(s, strlen(s), &l, &err) < 0)
		snprintf(out, sizeof(out), "error: %s", err.buf);
	else if (cpulist_format(&l, &sb) < 0)
		snprintf(out, sizeof(out), "enomem");
	else
		snprintf(out, sizeof(out), "%s", sb.buf);
	sb_release(&sb);
	sb_release(&err);
	return out;
}

static void test_parse(void)
{
	CHECK_STR(roundtrip("0"), "0");
	CHECK_STR(roundtrip("0-1\n"), "0-1");	/* sysfs form */
	CHECK_STR(roundtrip("0-3,5"), "0-3,5");
	CHECK_STR(roundtrip("5,0,1,2,3"), "0-3,5");
	CHECK_STR(roundtrip(" 2-2 "), "2");
	CHECK_STR(roundtrip("1,1,1"), "1");
	CHECK_STR(roundtrip("0-2,4-6,8"), "0-2,4-6,8");
	CHECK_STR(roundtrip("4095"), "4095");
	CHECK_STR(roundtrip("63-65"), "63-65");
}

static void test_errors(void)
{
	CHECK_STR(roundtrip(""), "error: expected a CPU list such as '0-3,5', got nothing");
	CHECK_STR(roundtrip("\n"), "error: expected a CPU list such as '0-3,5', got nothing");
	CHECK_STR(roundtrip("x"), "error: position 1: expected a CPU number, got 'x'");
	CHECK_STR(roundtrip("0-"), "error: position 3: expected a CPU number, got the end of the list");
	CHECK_STR(roundtrip("0,,1"), "error: position 3: expected a CPU number, got ','");
	CHECK_STR(roundtrip("3-1"), "error: position 1: range 3-1 runs backwards");
	CHECK_STR(roundtrip("1 2"), "error: position 2: expected ',' or '-', got ' '");
	CHECK_STR(roundtrip("-1"), "error: position 1: expected a CPU number, got '-1'");
	CHECK_STR(roundtrip("4096"), "error: position 1: CPU number above 4095");
	CHECK_STR(roundtrip("0-99999999999999999999"), "error: position 3: CPU number above 4095");
	CHECK_STR(roundtrip("1,a"), "error: position 3: expected a CPU number, got 'a'");
	CHECK_STR(roundtrip("1:2"), "error: position 2: expected ',' or '-', got ':2'");

	/* *ret is untouched on error; ERR may be NULL */
	struct cpulist l;

	cpulist_clear(&l);
	cpulist_set(&l, 7);
	CHECK_INT(cpulist_parse("1-", 2, &l, NULL), -EINVAL);
	CHECK(cpulist_has(&l, 7));
	CHECK_INT(cpulist_count(&l), 1);
}

static void test_set(void)
{
	struct cpulist l;

	cpulist_clear(&l);
	CHECK_INT(cpulist_next(&l, 0), -1);
	CHECK_INT(cpulist_set(&l, -1), -ERANGE);
	CHECK_INT(cpulist_set(&l, CPULIST_MAX), -ERANGE);
	CHECK_INT(cpulist_set(&l, 0), 0);
	CHECK_INT(cpulist_set(&l, 64), 0);
	CHECK_INT(cpulist_set(&l, CPULIST_MAX - 1), 0);
	CHECK_INT(cpulist_count(&l), 3);
	CHECK_INT(cpulist_next(&l, 0), 0);
	CHECK_INT(cpulist_next(&l, 1), 64);
	CHECK_INT(cpulist_next(&l, 65), CPULIST_MAX - 1);
	CHECK_INT(cpulist_next(&l, CPULIST_MAX), -1);
	CHECK(!cpulist_has(&l, 1));
	CHECK(!cpulist_has(&l, -5));
	CHECK(!cpulist_has(&l, CPULIST_MAX));
}

int main(void)
{
	T_RUN(test_parse);
	T_RUN(test_errors);
	T_RUN(test_set);
	return t_exit();
}
