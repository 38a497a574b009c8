// SPDX-License-Identifier: MIT
/*
 * num.c: the decimal numbers of num.h: the syntax checked by hand, the value
 * by strtod/strtol on exactly the span checked (so that nothing strtod takes
 * beyond the decimal syntax, "0x", "inf", "nan", gets through).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/num.h"

static size_t digits(const char *s)
{
	size_t n = 0;

	while (s[n] >= '0' && s[n] <= '9')
		n++;
	return n;
}

size_t num_decimal_len(const char *s)
{
	size_t n = 0, whole, frac = 0, e;

	if (s[n] == '+' || s[n] == '-')
		n++;
	whole = digits(s + n);
	n += whole;
	if (s[n] == '.') {
		frac = digits(s + n + 1);
		if (whole || frac)
			n += 1 + frac;
	}
	if (!whole && !frac)
		return 0;
	if (s[n] == 'e' || s[n] == 'E') {
		size_t m = n + 1;

		if (s[m] == '+' || s[m] == '-')
			m++;
		e = digits(s + m);
		if (e)
			n = m + e;
	}
	return n;
}

int num_parse_double(const char *s, double *ret)
{
	size_t n = num_decimal_len(s);
	char buf[128], *end;
	double v;

	if (!n || s[n] || n >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, n);
	buf[n] = '\0';
	errno = 0;
	v = strtod(buf, &end);
	if (*end)
		return -EINVAL;
	if ((errno == ERANGE && fabs(v) > 1) || !isfinite(v))
		return -ERANGE;
	*ret = v; /* an underflow is a number near 0: taken */
	return 0;
}

int num_parse_long(const char *s, long *ret)
{
	size_t n = (s[0] == '+' || s[0] == '-') ? 1 : 0;
	char *end;
	long v;

	if (!digits(s + n) || s[n + digits(s + n)])
		return -EINVAL;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno == ERANGE)
		return -ERANGE;
	if (*end)
		return -EINVAL;
	*ret = v;
	return 0;
}
