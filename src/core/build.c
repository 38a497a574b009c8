// SPDX-License-Identifier: MIT
/* build.c: a build's name and the --order file (build.h). */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/build.h"
#include "core/grow.h"

bool build_name_ok(const char *s)
{
	size_t n = 0;

	if (!s || !*s)
		return false;
	for (; s[n]; n++)
		if (!isgraph((unsigned char)s[n]))
			return false;
	return n <= BUILD_MAX;
}

void build_list_free(char **list)
{
	if (!list)
		return;
	for (char **p = list; *p; p++)
		free(*p);
	free(list);
}

int build_order_parse(const char *buf, size_t len, const char *path, char ***ret,
		      struct strbuf *err)
{
	char **list = calloc(1, sizeof(*list));
	size_t n = 0, cap = 0, line = 0, i = 0;

	if (!list)
		return -ENOMEM;
	while (i < len) {
		size_t s = i, e;
		char *name;

		while (i < len && buf[i] != '\n')
			i++;
		e = i++;
		line++;
		while (s < e && isspace((unsigned char)buf[s]))
			s++;
		while (e > s && isspace((unsigned char)buf[e - 1]))
			e--;
		if (s == e || buf[s] == '#')
			continue;
		name = strndup(buf + s, e - s);
		if (!name)
			goto nomem;
		if (!build_name_ok(name) || memchr(buf + s, '\0', e - s)) {
			sb_addf(err, "'%s', line %zu: expected a build (printable, no blanks, at most "
				"%d characters)", path, line, BUILD_MAX);
			free(name);
			build_list_free(list);
			return -EINVAL;
		}
		for (size_t k = 0; k < n; k++)
			if (!strcmp(list[k], name)) {
				sb_addf(err, "'%s', line %zu: build '%s' is listed twice", path,
					line, name);
				free(name);
				build_list_free(list);
				return -EINVAL;
			}
		if (ARRAY_GROW(list, cap, n + 2) < 0) {
			free(name);
			goto nomem;
		}
		list[n++] = name;
		list[n] = NULL;
	}
	*ret = list;
	return (int)n;
nomem:
	build_list_free(list);
	return -ENOMEM;
}
