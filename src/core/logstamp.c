// SPDX-License-Identifier: MIT
/* logstamp.c: "[S] " before each line of a program's output (logstamp.h). */
#include <errno.h>
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
