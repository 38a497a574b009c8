// SPDX-License-Identifier: MIT
/*
 * test-num.c: core/num.h, decimal numbers only: what people write is taken
 * (1, 1.5, .5, 5., -2, +3, 1e3, 2.5E-1), what strtod would also take and a
 * user did not mean is refused ("0x10", "inf", "nan", " 5", "5 ", "1e",
 * "", "."), and the span a list parser needs ("1.5,3" is 3 long).
 */
#include <errno.h>

#include "core/num.h"
#include "t.h"

static void test_double(void)
{
	static const struct {
		const char *s;
		double v;
	} good[] = {
	    {"1", 1},  {"1.5", 1.5},  {".5", 0.5},	{"5.", 5}, {"-2", -2},
	    {"+3", 3}, {"1e3", 1000}, {"2.5E-1", 0.25}, {"0", 0},  {"007", 7},
	};
	static const char *const bad[] = {
	    "0x10", "0X1p3", "inf", "-inf", "nan", "infinity", " 5",  "5 ", "1e",
	    "1e+",  "",	     ".",   "-",    "+.",  "1.2.3",    "1,5", "5s", "\t1",
	};
	double v;

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		v = -99;
		if (num_parse_double(good[i].s, &v) != 0 || v != good[i].v)
			T_FAIL("'%s': got %g, expected %g", good[i].s, v, good[i].v);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		v = -99;
		if (num_parse_double(bad[i], &v) != -EINVAL || v != -99)
			T_FAIL("'%s' was taken (%g)", bad[i], v);
	}
	CHECK_INT(num_parse_double("1e999", &v), -ERANGE);
	CHECK_INT(num_decimal_len("1.5,3"), 3);
	CHECK_INT(num_decimal_len("0x10"), 1);
	CHECK_INT(num_decimal_len("1e5x"), 3);
	CHECK_INT(num_decimal_len("1ex"), 1);
	CHECK_INT(num_decimal_len("x"), 0);
}

static void test_long(void)
{
	long v = -99;

	CHECK_INT(num_parse_long("42", &v), 0);
	CHECK_INT(v, 42);
	CHECK_INT(num_parse_long("-7", &v), 0);
	CHECK_INT(v, -7);
	CHECK_INT(num_parse_long("+7", &v), 0);
	v = -99;
	CHECK_INT(num_parse_long("0x10", &v), -EINVAL);
	CHECK_INT(num_parse_long(" 5", &v), -EINVAL);
	CHECK_INT(num_parse_long("5 ", &v), -EINVAL);
	CHECK_INT(num_parse_long("1.5", &v), -EINVAL);
	CHECK_INT(num_parse_long("", &v), -EINVAL);
	CHECK_INT(num_parse_long("-", &v), -EINVAL);
	CHECK_INT(v, -99);
	CHECK_INT(num_parse_long("99999999999999999999999", &v), -ERANGE);
}

int main(void)
{
	T_RUN(test_double);
	T_RUN(test_long);
	return t_exit();
}
