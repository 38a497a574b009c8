// SPDX-License-Identifier: MIT
/* logstamp.c: "[S] " before each line of a program's output, and reading it
 * back (logstamp.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/logstamp.h"

int logstamp_feed(struct logstamp *ls, const char *buf, size_t len, double t_s,
		  struct strbuf *out)
{
	const char *p = buf, *end = buf + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *stop = nl ? nl + 1 : end;

		if (!ls->mid_line && sb_addf(out, "[%.3f] ", t_s) < 0)
			return -ENOMEM;
		if (sb_add(out, p, (size_t)(stop - p)) < 0)
			return -ENOMEM;
		ls->mid_line = !nl;
		p = stop;
	}
	return 0;
}

int logstamp_parse(const char *line, size_t len, double *ret_t, size_t *ret_text)
{
	char num[40];
	size_t i = 0, k = 0, digits = 0;

	*ret_text = 0;
	while (i < len && (line[i] == ' ' || line[i] == '\t'))
		i++;
	if (i == len || line[i++] != '[')
		return 0;
	while (i < len && line[i] == ' ')
		i++;
	for (; i < len && line[i] >= '0' && line[i] <= '9' && k < sizeof(num) - 2; i++, digits++)
		num[k++] = line[i];
	if (!digits)
		return 0;
	if (i < len && line[i] == '.') {
		num[k++] = line[i++];
		for (; i < len && line[i] >= '0' && line[i] <= '9' && k < sizeof(num) - 1; i++)
			num[k++] = line[i];
	}
	num[k] = '\0';
	while (i < len && line[i] == ' ')
		i++;
	if (i == len || line[i++] != ']')
		return 0;
	if (i < len && line[i] == ' ')
		i++;
	*ret_t = strtod(num, NULL);
	*ret_text = i;
	return 1;
}
