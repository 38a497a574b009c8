// SPDX-License-Identifier: MIT
/*
 * argsplit.c: argsplit.h's shell-like word splitting without a shell. One
 * pass over the string with a strbuf for the word being built; a word exists
 * once any character or quote of it has been seen ('' is an empty word).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/argsplit.h"
#include "core/grow.h"

void argsplit_free(char **argv)
{
	for (char **p = argv; p && *p; p++)
		free(*p);
	free(argv);
}

/* Appends the finished word W to *V (N words so far, room for CAP), keeping
 * it NULL-terminated; the room at least doubles (grow.h), so a long line
 * costs no realloc per word. 0 or -ENOMEM. */
static int push(char ***v, size_t *n, size_t *cap, struct strbuf *w)
{
	char *s;

	if (ARRAY_GROW(*v, *cap, *n + 2) < 0)
		return -ENOMEM;
	s = sb_detach(w);
	if (!s)
		return -ENOMEM;
	(*v)[(*n)++] = s;
	(*v)[*n] = NULL;
	return 0;
}

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0'
	       : c >= 'a' && c <= 'f' ? c - 'a' + 10
	       : c >= 'A' && c <= 'F' ? c - 'A' + 10
				      : -1;
}

/* $'...' at *PP (S the whole line): \n \t \r \\ \' \" \xHH and \a \b \e \f
 * \v, into W; *PP moves past it. 0, -EINVAL (a message in ERR), -ENOMEM. */
static int dollar_quoted(const char **pp, const char *s, struct strbuf *w, struct strbuf *err)
{
	const char *p = *pp + 2;
	int r = 0;

	for (; *p && *p != '\'' && !r; p++) {
		char c = *p;

		if (c == '\\') {
			static const char from[] = "ntr\\'\"abefv", to[] = "\n\t\r\\'\"\a\b\x1b\f\v";
			const char *k = p[1] ? strchr(from, p[1]) : NULL;

			if (k) {
				c = to[k - from];
				p++;
			} else if (p[1] == 'x' && hexval(p[2]) >= 0) {
				c = (char)hexval(p[2]);
				p += 2;
				if (hexval(p[1]) >= 0)
					c = (char)(c * 16 + hexval(*++p));
			} else {
				sb_addf(err, "unknown escape '\\%c' in $'...' at column %zu",
					p[1] ? p[1] : ' ', (size_t)(p - s) + 1);
				return -EINVAL;
			}
		}
		r = sb_addc(w, c);
	}
	if (!r && !*p) {
		sb_addf(err, "unterminated \"$'\" at column %zu", (size_t)(*pp - s) + 1);
		return -EINVAL;
	}
	*pp = p + 1;
	return r;
}

int argsplit(const char *s, char ***ret, struct strbuf *err)
{
	struct strbuf w = STRBUF_INIT;
	char **v = calloc(1, sizeof(*v));
	size_t n = 0, cap = 1;
	bool in_word = false;
	const char *p = s;
	int r = 0;

	if (!v)
		return -ENOMEM;
	while (*p && !r) {
		char c = *p;

		if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
			if (in_word)
				r = push(&v, &n, &cap, &w);
			in_word = false;
			p++;
		} else if (c == '$' && p[1] == '\'') {
			r = dollar_quoted(&p, s, &w, err);
			in_word = true;
		} else if (c == '\'') {
			const char *e = strchr(p + 1, '\'');

			if (!e) {
				sb_addf(err, "unterminated \"'\" at column %zu", (size_t)(p - s) + 1);
				r = -EINVAL;
				break;
			}
			r = sb_add(&w, p + 1, (size_t)(e - p - 1));
			in_word = true;
			p = e + 1;
		} else if (c == '"') {
			const char *q = p + 1;

			for (; *q && *q != '"' && !r; q++) {
				if (*q == '\\' && q[1] && strchr("\"\\$`", q[1]))
					q++;
				r = sb_addc(&w, *q);
			}
			if (!r && !*q) {
				sb_addf(err, "unterminated '\"' at column %zu", (size_t)(p - s) + 1);
				r = -EINVAL;
				break;
			}
			in_word = true;
			p = q + 1;
		} else if (c == '\\') {
			if (!p[1]) {
				sb_addf(err, "a backslash ends the line at column %zu",
					(size_t)(p - s) + 1);
				r = -EINVAL;
				break;
			}
			r = sb_addc(&w, p[1]);
			in_word = true;
			p += 2;
		} else {
			r = sb_addc(&w, c);
			in_word = true;
			p++;
		}
	}
	if (!r && in_word)
		r = push(&v, &n, &cap, &w);
	sb_release(&w);
	if (r < 0) {
		argsplit_free(v);
		return r;
	}
	*ret = v;
	return (int)n;
}
