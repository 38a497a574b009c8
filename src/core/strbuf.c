// SPDX-License-Identifier: MIT
/* strbuf.c: the growable string of strbuf.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"

const char strbuf_empty[1];

void sb_init(struct strbuf *sb)
{
	sb->buf = (char *)strbuf_empty;
	sb->len = 0;
	sb->alloc = 0;
}

void sb_release(struct strbuf *sb)
{
	if (!sb)
		return;
	if (sb->alloc)
		free(sb->buf);
	sb_init(sb);
}

int sb_grow(struct strbuf *sb, size_t extra)
{
	size_t need, n;
	char *p;

	/* len + extra + 1 must not wrap (extra = SIZE_MAX wrapped to len
	 * exactly, and "grew" nothing) */
	if (extra > SIZE_MAX - 1 - sb->len)
		return -ENOMEM;
	need = sb->len + extra + 1;
	if (need <= sb->alloc)
		return 0;
	n = sb->alloc ? sb->alloc : 64;
	while (n < need)
		n = n * 2 > n ? n * 2 : need;
	/* strbuf's own growth (its buf may be the static empty string) */
	p = realloc(sb->alloc ? sb->buf : NULL, n);
	if (!p)
		return -ENOMEM;
	if (!sb->alloc)
		p[0] = '\0';
	sb->buf = p;
	sb->alloc = n;
	return 0;
}

int sb_add(struct strbuf *sb, const void *data, size_t len)
{
	if (sb_grow(sb, len) < 0)
		return -ENOMEM;
	memcpy(sb->buf + sb->len, data, len);
	sb->len += len;
	sb->buf[sb->len] = '\0';
	return 0;
}

int sb_adds(struct strbuf *sb, const char *s)
{
	return sb_add(sb, s, strlen(s));
}

int sb_addc(struct strbuf *sb, char c)
{
	return sb_add(sb, &c, 1);
}

int sb_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
{
	va_list cp;
	int n;

	va_copy(cp, ap);
	n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0)
		return -EINVAL;
	if (sb_grow(sb, (size_t)n) < 0)
		return -ENOMEM;
	vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
	sb->len += (size_t)n;
	return 0;
}

int sb_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = sb_vaddf(sb, fmt, ap);
	va_end(ap);
	return r;
}

void sb_reset(struct strbuf *sb)
{
	sb->len = 0;
	if (sb->alloc)
		sb->buf[0] = '\0';
}

char *sb_detach(struct strbuf *sb)
{
	char *s;

	if (!sb->alloc && sb_grow(sb, 0) < 0)
		return NULL;
	s = sb->buf;
	sb_init(sb);
	return s;
}

int sb_error(struct strbuf *err, int e, const char *fmt, ...)
{
	va_list ap;

	if (err) {
		sb_reset(err);
		va_start(ap, fmt);
		sb_vaddf(err, fmt, ap);
		va_end(ap);
		if (e < 0)
			sb_addf(err, ": %s", strerror(-e));
	}
	return e < 0 ? e : -EINVAL;
}

int sb_add_path(struct strbuf *sb, const char *dir, const char *name)
{
	size_t n = strlen(dir);

	while (n > 1 && dir[n - 1] == '/')
		n--;
	if (sb_add(sb, dir, n) < 0)
		return -ENOMEM;
	if (!(n == 1 && dir[0] == '/') && sb_addc(sb, '/') < 0)
		return -ENOMEM;
	return sb_adds(sb, name);
}
