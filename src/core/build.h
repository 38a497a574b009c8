/* SPDX-License-Identifier: MIT */
/*
 * build.h: a build's name, as runs carry it (record --build, --build-of,
 * $STALLSCOPE_BUILD; run.ini build=; the results database's runs.build), and
 * the order of builds a history walks (docs/HISTORY.md). Pure.
 *
 * A build is what the user says it is: a commit, a version, a driver
 * string. It is one line of at most BUILD_MAX printable characters without
 * blanks, so that it fits a table column, a file name part and a compare
 * side (NAME:VARIANT@BUILD).
 */
#ifndef SS_CORE_BUILD_H
#define SS_CORE_BUILD_H

#include <stdbool.h>
#include <stddef.h>

#include "core/strbuf.h"

#define BUILD_MAX 200

/* Whether S is a build's name (above). */
bool build_name_ok(const char *s);

/*
 * An --order file in BUF (LEN bytes): one build a line, oldest first;
 * blank lines and lines starting with '#' skipped, blanks around a name
 * trimmed. *RET is a NULL-terminated list (each and the list freed by
 * build_list_free), in order. Returns the count, or -EINVAL with ERR naming
 * PATH and the line (not a build name, or a build listed twice), -ENOMEM.
 */
int build_order_parse(const char *buf, size_t len, const char *path, char ***ret,
		      struct strbuf *err);
void build_list_free(char **list);

#endif
