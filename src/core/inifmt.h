/* SPDX-License-Identifier: MIT */
/*
 * inifmt.h: the text of a run directory's run.ini (docs/FORMAT.md, "Run
 * directory"): one "key=value" a line, keys in the order added. A value runs
 * to the end of its line; newlines and carriage returns in a value become
 * spaces, so every key stays one line. Pure: builds text in a strbuf, the
 * caller writes it (temp file, then rename).
 */
#ifndef SS_CORE_INIFMT_H
#define SS_CORE_INIFMT_H

#include "core/strbuf.h"

/* Appends "KEY=VALUE\n" (VALUE NULL writes "-"). Returns 0 or -ENOMEM. */
int inifmt_add(struct strbuf *sb, const char *key, const char *value);
int inifmt_addf(struct strbuf *sb, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Appends ARGV (N words) as one line a POSIX shell would split back into the
 * same words: plain words as they are, words with a control character
 * (newline, tab, ...) in $'...' with backslash escapes (POSIX.1-2024; bash,
 * zsh, ksh, and argsplit read it), others in single quotes. Returns 0 or
 * -ENOMEM. */
int inifmt_quote_argv(struct strbuf *sb, int n, char *const *argv);

#endif
