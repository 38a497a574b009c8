// SPDX-License-Identifier: MIT
/*
 * framelog_lex.c: the frame-log readers' header fields, decimal numbers
 * (exact for up to 15 significant digits and powers of ten up to 22, strtod
 * on a stack copy beyond that) and messages naming the file and the line.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frames/framelog.h"
#include "frames/framelog_int.h"


/* Whether LINE has the comma-separated field NAME. */
bool fl_has_field(struct span line, const char *name)
{
	const char *p = line.s, *end = line.s + line.len;

	for (;;) {
		const char *e = field_end(p, end);
		struct span f = { p, (size_t)(e - p) };

		if (span_eq(unquote(trim(f)), name))
			return true;
		if (e == end)
			break;
		p = e + 1;
	}
	return false;
}

/* The index of field NAME in LINE, or -1; *NFIELDS gets the field count. */
int fl_field_index(struct span line, const char *name, int *nfields)
{
	const char *p = line.s, *end = line.s + line.len;
	int i = 0, found = -1;

	for (;;) {
		const char *e = field_end(p, end);
		struct span f = { p, (size_t)(e - p) };

		if (found < 0 && span_eq(unquote(trim(f)), name))
			found = i;
		i++;
		if (e == end)
			break;
		p = e + 1;
	}
	if (nfields)
		*nfields = i;
	return found;
}


/* Appends V to SB as a quoted subject: 40 bytes at most, unprintables as '?'. */
void fl_sb_add_quoted(struct strbuf *sb, struct span v)
{
	size_t n = v.len > 40 ? 40 : v.len;

	sb_addc(sb, '\'');
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)v.s[i];

		sb_addc(sb, ch >= 0x20 && ch < 0x7f ? (char)ch : '?');
	}
	if (n < v.len)
		sb_adds(sb, "...");
	sb_addc(sb, '\'');
}
/* Appends "'NAME' line N: " + FMT to the error message; returns -EINVAL. */
__attribute__((format(printf, 3, 4))) int fl_perr(struct parse *ps, size_t lineno,
						       const char *fmt, ...)
{
	va_list ap;

	if (!ps->msg)
		return -EINVAL;
	if (lineno)
		sb_addf(ps->msg, "'%s' line %zu: ", ps->name, lineno);
	else
		sb_addf(ps->msg, "'%s': ", ps->name);
	va_start(ap, fmt);
	sb_vaddf(ps->msg, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* As perr, ending in ", got 'V'". */
__attribute__((format(printf, 4, 5))) int fl_perr_got(struct parse *ps, size_t lineno,
							   struct span v, const char *fmt, ...)
{
	va_list ap;

	if (!ps->msg)
		return -EINVAL;
	sb_addf(ps->msg, "'%s' line %zu: ", ps->name, lineno);
	va_start(ap, fmt);
	sb_vaddf(ps->msg, fmt, ap);
	va_end(ap);
	sb_adds(ps->msg, ", got ");
	fl_sb_add_quoted(ps->msg, v);
	return -EINVAL;
}

__attribute__((format(printf, 2, 3))) void fl_note(struct parse *ps, const char *fmt, ...)
{
	va_list ap;

	sb_addf(&ps->notes, "'%s': ", ps->name);
	va_start(ap, fmt);
	sb_vaddf(&ps->notes, fmt, ap);
	va_end(ap);
	sb_addc(&ps->notes, '\n');
}

/* Fills t_s with the running sum of the frame times (first frame from 0). */
void fl_times_from_sum(struct frames *f)
{
	double t = 0;

	for (size_t i = 0; i < f->n; i++) {
		t += f->ft_ms[i] / 1000.0;
		f->t_s[i] = t;
	}
}
