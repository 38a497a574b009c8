// SPDX-License-Identifier: MIT
/* inifmt.c: run.ini lines and shell-quoted command lines (see inifmt.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/inifmt.h"

int inifmt_add(struct strbuf *sb, const char *key, const char *value)
{
	size_t old = sb->len;

	if (!value)
		value = "-";
	if (sb_adds(sb, key) < 0 || sb_addc(sb, '=') < 0)
		goto nomem;
	for (const char *p = value; *p; p++)
		if (sb_addc(sb, *p == '\n' || *p == '\r' ? ' ' : *p) < 0)
			goto nomem;
	if (sb_addc(sb, '\n') < 0)
		goto nomem;
	return 0;
nomem:
	sb->len = old;
	sb->buf[old] = '\0';
	return -ENOMEM;
}

int inifmt_addf(struct strbuf *sb, const char *key, const char *fmt, ...)
{
	struct strbuf v = STRBUF_INIT;
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = sb_vaddf(&v, fmt, ap);
	va_end(ap);
	if (r == 0)
		r = inifmt_add(sb, key, v.buf);
	sb_release(&v);
	return r;
}

static int is_plain(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
			    "_-./:=+,%@", *s))
			return 0;
	return 1;
}

static int has_control(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 1;
	return 0;
}

/* S as $'...' (POSIX.1-2024's dollar-single-quotes): \n \t \r \\ \' and
 * \xHH for the other control bytes, so that a word with a newline stays on
 * its line and comes back whole. */
static int add_dollar_quoted(struct strbuf *sb, const char *s)
{
	int r = sb_adds(sb, "$'");

	for (; *s && !r; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '\n')
			r = sb_adds(sb, "\\n");
		else if (c == '\t')
			r = sb_adds(sb, "\\t");
		else if (c == '\r')
			r = sb_adds(sb, "\\r");
		else if (c == '\\' || c == '\'')
			r = sb_addf(sb, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			r = sb_addf(sb, "\\x%02x", c);
		else
			r = sb_addc(sb, (char)c);
	}
	return r ? r : sb_addc(sb, '\'');
}

int inifmt_quote_argv(struct strbuf *sb, int n, char *const *argv)
{
	for (int i = 0; i < n; i++) {
		const char *a = argv[i];

		if (i && sb_addc(sb, ' ') < 0)
			return -ENOMEM;
		if (is_plain(a)) {
			if (sb_adds(sb, a) < 0)
				return -ENOMEM;
			continue;
		}
		if (has_control(a)) {
			if (add_dollar_quoted(sb, a) < 0)
				return -ENOMEM;
			continue;
		}
		if (sb_addc(sb, '\'') < 0)
			return -ENOMEM;
		for (; *a; a++) {
			if (*a == '\'' ? sb_adds(sb, "'\\''") : sb_addc(sb, *a))
				return -ENOMEM;
		}
		if (sb_addc(sb, '\'') < 0)
			return -ENOMEM;
	}
	return 0;
}
