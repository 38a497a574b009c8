/* SPDX-License-Identifier: MIT */
/*
 * strbuf.h: a growable string.
 *
 * Invariants: after sb_init, buf is never NULL and always NUL-terminated;
 * len is the string's length without the NUL; alloc is the allocated size
 * (0 while buf points at a shared empty string). Functions that grow the
 * buffer return 0 or -ENOMEM and leave it unchanged on failure.
 */
#ifndef SS_CORE_STRBUF_H
#define SS_CORE_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

struct strbuf {
	char *buf;
	size_t len;
	size_t alloc;
};

#define STRBUF_INIT { (char *)strbuf_empty, 0, 0 }
extern const char strbuf_empty[1];

void sb_init(struct strbuf *sb);
void sb_release(struct strbuf *sb);	/* frees, then sb_init; NULL-safe */
int sb_grow(struct strbuf *sb, size_t extra);
int sb_add(struct strbuf *sb, const void *data, size_t len);
int sb_adds(struct strbuf *sb, const char *s);
int sb_addc(struct strbuf *sb, char c);
int sb_addf(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Appends DIR "/" NAME, DIR's trailing slashes not doubled ("runs/x/" and
 * "run.ini" give "runs/x/run.ini"; "/" gives "/run.ini"). 0 or -ENOMEM. */
int sb_add_path(struct strbuf *sb, const char *dir, const char *name);
int sb_vaddf(struct strbuf *sb, const char *fmt, va_list ap);
void sb_reset(struct strbuf *sb);	/* len = 0, keeps the allocation */
/*
 * A library's error message: resets ERR (NULL: no message) to FMT's text,
 * with ": strerror(-E)" after it when E < 0. Returns E when E < 0, else
 * -EINVAL, so that `return sb_error(err, r, "cannot read '%s'", p);` both
 * says and returns. A message that did not fit (ENOMEM) is left short.
 */
int sb_error(struct strbuf *err, int e, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Hands the string to the caller (who frees it) and re-inits sb; NULL on ENOMEM. */
char *sb_detach(struct strbuf *sb);

#endif
