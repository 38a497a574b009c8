/* SPDX-License-Identifier: MIT */
/*
 * argsplit.h: a command line in a recipe file, split into argv words the
 * way a POSIX shell would split it, without running a shell: words are
 * separated by blanks; '...' keeps everything literally; "..." keeps
 * everything but \" \\ \$ \` (backslash escapes); $'...' (POSIX.1-2024)
 * takes \n \t \r \\ \' \" \a \b \e \f \v and \xHH; a backslash outside quotes
 * escapes the next character. Nothing is expanded: no variables, globs,
 * tildes or substitutions, and ; | & < > ( ) are ordinary characters (a
 * recipe names one program and its arguments). The inverse of
 * inifmt_quote_argv (core/inifmt.h).
 */
#ifndef SS_CORE_ARGSPLIT_H
#define SS_CORE_ARGSPLIT_H

#include "core/strbuf.h"

/*
 * Splits S into a new NULL-terminated array of new strings (free with
 * argsplit_free). Returns the number of words (>= 0), -EINVAL with a message
 * in ERR for an unterminated quote or a trailing backslash ("unterminated
 * '\"' at column 7"), or -ENOMEM.
 */
int argsplit(const char *s, char ***ret, struct strbuf *err);
void argsplit_free(char **argv);	/* NULL-safe */

#endif
