// SPDX-License-Identifier: MIT
/*
 * fuzz-reload.c: a libFuzzer target for the reload rules (a rules file,
 * `report --rules FILE` or share/reload-rules.ini: reload_rules_parse),
 * run.ini's reload overrides (reload_rule_from_overrides), the program log
 * they are matched on (reload_log_parse) and the segments they make
 * (reload_segments). The input is up to four parts split by a "\n%%\n"
 * line: the rules file, the program log, the pass starts (decimal numbers;
 * the last is where the run ends) and three override lines (reload_re,
 * reload_after, reload_fixed; "-" for not given). Every rule found is
 * looked up by its name and run over the log and the passes, and so is the
 * overrides' rule. Aborts when a refusal does not say why, a rule looked up
 * is not the one named, a log line's text is not inside the log, or a
 * segment is not a pass's: more segments than passes, one that ends before
 * it starts or does not start at a pass. Seeds: fuzz/corpus/reload/. Built
 * and run by scripts/fuzz.sh (`make fuzz`), tests/e2e/fuzz-readers.sh and
 * scripts/fuzz-long.sh.
 *
 * fuzz-sources: src/core/reload.c src/core/stats.c src/core/logstamp.c src/core/num.c src/core/strbuf.c src/core/grow.c
 * fuzz-libs: -linih
 * fuzz-reader: src/core/reload.c src/core/logstamp.c
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/reload.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAXP 64

/* The next part of [*p, end) up to a "\n%%\n" line, or the rest. */
static const char *part(const char **p, const char *end, size_t *len)
{
	const char *s = *p, *m = memmem(s, (size_t)(end - s), "\n%%\n", 4);

	*len = m ? (size_t)(m - s) : (size_t)(end - s);
	*p = m ? m + 4 : end;
	return s;
}

static void segments(const struct reload_rule *rule, const double *pass, size_t np,
		     double end, const struct reload_line *lines, size_t nlines)
{
	struct strbuf notes = STRBUF_INIT;
	struct metrics_seg *segs = NULL;

	for (int t0 = 0; t0 < 2; t0++) {
		int n = reload_segments(rule, pass, np, end, lines, nlines, t0, &segs, &notes);

		if (n == -ENODATA && !notes.len)
			abort();	/* play unknown says why */
		if (n > (int)np || (n > 0) != (segs != NULL))
			abort();
		for (int i = 0; i < n; i++) {
			int at_pass = 0;

			for (size_t k = 0; k < np; k++)
				at_pass |= segs[i].start_s == pass[k];
			if (!at_pass || !(segs[i].end_s >= segs[i].start_s))
				abort();
		}
		free(segs);
		segs = NULL;
		sb_reset(&notes);
	}
	sb_release(&notes);
}

static char *line_of(const char *s, size_t len)
{
	return len == 1 && s[0] == '-' ? NULL : strndup(s, len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *end = p + size, *rules, *log, *passes, *ov;
	size_t nrules, nlog, npasses, nov, nlines = 0, unstamped = 0, np = 0;
	struct strbuf err = STRBUF_INIT;
	struct reload_rules *rs = NULL;
	struct reload_line *lines = NULL;
	struct reload_rule orule;
	double pass[MAXP], last = 0;
	int e;

	rules = part(&p, end, &nrules);
	log = part(&p, end, &nlog);
	passes = part(&p, end, &npasses);
	ov = part(&p, end, &nov);

	/* the pass starts: finite decimal numbers; the last is the run's end */
	char *ptext = strndup(passes, npasses), *q = ptext, *qe;

	while (ptext && np < MAXP) {
		double x = strtod(q, &qe);

		if (qe == q)
			break;
		q = qe;
		if (isfinite(x))
			pass[np++] = last = x;
	}
	free(ptext);
	if (np)
		np--;

	if (reload_log_parse(log, nlog, &lines, &nlines, &unstamped) < 0)
		return 0;
	for (size_t i = 0; i < nlines; i++)
		if (lines[i].text < log || lines[i].text + lines[i].len > log + nlog ||
		    !isfinite(lines[i].t_s))
			abort();

	e = reload_rules_parse(rules, nrules, "fuzz", &rs, &err);
	if (e == -EINVAL && !err.len)
		abort();
	if (e == 0) {
		for (size_t i = 0; i < rs->n; i++) {
			const struct reload_rule *r = reload_rules_find(rs, rs->r[i].program);

			if (!r || strcmp(r->program, rs->r[i].program))
				abort();
			segments(r, pass, np, last, nlines ? lines : NULL, nlines);
		}
		reload_rules_free(rs);
	}

	/* run.ini's overrides: three lines */
	const char *o = ov, *oe = ov + nov;
	char *re = NULL, *after = NULL, *fixed = NULL;
	char **slot[3] = { &re, &after, &fixed };

	for (int k = 0; k < 3 && o < oe; k++) {
		const char *nl = memchr(o, '\n', (size_t)(oe - o));
		size_t n = nl ? (size_t)(nl - o) : (size_t)(oe - o);

		*slot[k] = line_of(o, n);
		o += n + (nl ? 1 : 0);
	}
	sb_reset(&err);
	e = reload_rule_from_overrides(re, after, fixed, &orule, &err);
	if (e == -EINVAL && !err.len)
		abort();
	if (e > 0) {
		segments(&orule, pass, np, last, nlines ? lines : NULL, nlines);
		reload_rule_release(&orule);
	}
	free(re);
	free(after);
	free(fixed);
	free(lines);
	sb_release(&err);
	return 0;
}
