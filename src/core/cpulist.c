// SPDX-License-Identifier: MIT
/*
 * cpulist.c: CPU sets and the kernel's cpulist text ("0-3,5"). See
 * cpulist.h. The grammar is the one of Documentation/admin-guide/cputopology
 * without the stride form ("0-7:2"), which no sysfs file we read writes.
 */
#include <errno.h>
#include <string.h>

#include "core/cpulist.h"

void cpulist_clear(struct cpulist *l)
{
	memset(l, 0, sizeof(*l));
}

int cpulist_set(struct cpulist *l, int cpu)
{
	if (cpu < 0 || cpu >= CPULIST_MAX)
		return -ERANGE;
	l->bits[cpu / 64] |= UINT64_C(1) << (cpu % 64);
	return 0;
}

bool cpulist_has(const struct cpulist *l, int cpu)
{
	if (cpu < 0 || cpu >= CPULIST_MAX)
		return false;
	return l->bits[cpu / 64] >> (cpu % 64) & 1;
}

int cpulist_count(const struct cpulist *l)
{
	int n = 0;
	size_t i;

	for (i = 0; i < CPULIST_MAX / 64; i++)
		n += __builtin_popcountll(l->bits[i]);
	return n;
}

int cpulist_next(const struct cpulist *l, int from)
{
	int cpu;

	if (from < 0)
		from = 0;
	for (cpu = from; cpu < CPULIST_MAX; cpu++) {
		uint64_t w = l->bits[cpu / 64] >> (cpu % 64);

		if (w)
			return cpu + __builtin_ctzll(w);
		cpu |= 63;	/* the rest of this word is empty */
	}
	return -1;
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Writes "position P: expected WHAT, got 'TOKEN'" to ERR; returns -EINVAL. */
static int fail(struct strbuf *err, const char *buf, size_t len, size_t pos, const char *what)
{
	size_t end = pos;

	if (!err)
		return -EINVAL;
	while (end < len && end - pos < 16 && buf[end] != ',' && !is_space(buf[end]))
		end++;
	if (pos >= len)
		sb_addf(err, "position %zu: expected %s, got the end of the list", pos + 1, what);
	else if (end == pos)
		sb_addf(err, "position %zu: expected %s, got '%c'", pos + 1, what, buf[pos]);
	else
		sb_addf(err, "position %zu: expected %s, got '%.*s'", pos + 1, what,
			(int)(end - pos), buf + pos);
	return -EINVAL;
}

/* Reads a CPU number at *pos; returns it (>= 0) or -1 with ERR written. */
static int number(const char *buf, size_t len, size_t *pos, struct strbuf *err)
{
	size_t p = *pos;
	long v = 0;

	if (p >= len || !is_digit(buf[p])) {
		fail(err, buf, len, p, "a CPU number");
		return -1;
	}
	while (p < len && is_digit(buf[p])) {
		v = v * 10 + (buf[p] - '0');
		if (v >= CPULIST_MAX) {
			if (err)
				sb_addf(err, "position %zu: CPU number above %d", *pos + 1,
					CPULIST_MAX - 1);
			return -1;
		}
		p++;
	}
	*pos = p;
	return (int)v;
}

int cpulist_parse(const char *buf, size_t len, struct cpulist *ret, struct strbuf *err)
{
	struct cpulist l;
	size_t pos = 0;

	cpulist_clear(&l);
	while (len > 0 && is_space(buf[len - 1]))
		len--;
	while (pos < len && is_space(buf[pos]))
		pos++;
	if (pos >= len) {
		if (err)
			sb_adds(err, "expected a CPU list such as '0-3,5', got nothing");
		return -EINVAL;
	}
	for (;;) {
		size_t start = pos;
		int a, b, cpu;

		a = number(buf, len, &pos, err);
		if (a < 0)
			return -EINVAL;
		b = a;
		if (pos < len && buf[pos] == '-') {
			pos++;
			b = number(buf, len, &pos, err);
			if (b < 0)
				return -EINVAL;
			if (b < a) {
				if (err)
					sb_addf(err, "position %zu: range %d-%d runs backwards",
						start + 1, a, b);
				return -EINVAL;
			}
		}
		for (cpu = a; cpu <= b; cpu++)
			cpulist_set(&l, cpu);
		if (pos >= len)
			break;
		if (buf[pos] != ',')
			return fail(err, buf, len, pos, "',' or '-'");
		pos++;
	}
	*ret = l;
	return 0;
}

int cpulist_format(const struct cpulist *l, struct strbuf *sb)
{
	int a = cpulist_next(l, 0), b, r;
	bool first = true;

	while (a >= 0) {
		b = a;
		while (b + 1 < CPULIST_MAX && cpulist_has(l, b + 1))
			b++;
		if (b == a)
			r = sb_addf(sb, "%s%d", first ? "" : ",", a);
		else
			r = sb_addf(sb, "%s%d-%d", first ? "" : ",", a, b);
		if (r < 0)
			return r;
		first = false;
		a = cpulist_next(l, b + 1);
	}
	return 0;
}
