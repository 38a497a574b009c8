// SPDX-License-Identifier: MIT
/*
 * reload.c: the reload rules file, run.ini overrides, program-log lines and
 * the segments they give (reload.h).
 *
 * The rules file is parsed by libinih from a NUL-terminated copy; libinih
 * reports the line of the first error, and the handler keeps its own message
 * for it. A log holds at most a few thousand lines per pass, so matching
 * every line of a pass against the rule's regex is cheap.
 */
#include <errno.h>
#include <ini.h>
#include <math.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "core/logstamp.h"
#include "core/num.h"
#include "core/stats.h"
#include "core/reload.h"

/* ------------------------------------------------------------ rules file */

struct parse_ctx {
	struct reload_rules *rs;
	struct strbuf msg;	/* the first error, without "'NAME' line N: " */
	int oom;
};

/* Parses a number of seconds >= 0, decimal (core/num.h), blanks after it
 * allowed; 0 or -EINVAL. */
static int parse_secs(const char *s, double *ret)
{
	size_t n = num_decimal_len(s), k = n;
	char buf[64];
	double v;

	while (s[k] == ' ' || s[k] == '\t')
		k++;
	if (!n || s[k] || n >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, n);
	buf[n] = '\0';
	if (num_parse_double(buf, &v) < 0 || v < 0)
		return -EINVAL;
	*ret = v;
	return 0;
}

/* Checks that RE compiles; 0 or -EINVAL with the reason in MSG. */
int reload_re_sane(const char *re, struct strbuf *why)
{
	double product = 1;
	bool quant = false, atom = false;

	for (const char *p = re; *p; p++) {
		bool q = false;

		if (*p == '\\') {
			p += p[1] != '\0';
		} else if (*p == '[') {	/* a bracket expression: no repeats inside */
			p++;
			p += *p == '^';
			p += *p == ']';
			while (*p && *p != ']') {
				if (*p == '[' && (p[1] == ':' || p[1] == '.' || p[1] == '=')) {
					const char end[3] = { p[1], ']', '\0' };
					const char *e = strstr(p + 2, end);

					p = e ? e + 2 : p + strlen(p);
					continue;
				}
				p++;
			}
			if (!*p)
				break;	/* unterminated: regcomp refuses it */
		} else if (*p == '*' || *p == '+' || *p == '?') {
			q = atom;
		} else if (*p == '{' && atom) {
			char *end;
			double lo = strtod(p + 1, &end), hi = lo;

			if (*end == ',')
				hi = end[1] == '}' ? 255 : strtod(end + 1, &end);
			if (end == p + 1 || hi > 255 || lo > 255) {
				sb_addf(why, "a repeat bound over 255 in '%.60s'", re);
				return -EINVAL;
			}
			product *= hi > 1 ? hi : 1;
			p = strchr(p, '}') ? strchr(p, '}') : p + strlen(p) - 1;
			q = true;
		}
		if (q && quant) {
			sb_addf(why, "a repeat of a repeat ('%.2s') in '%.60s'", p - 1, re);
			return -EINVAL;
		}
		if (product > 1000) {
			sb_addf(why, "repeat bounds that multiply past 1000 in '%.60s'", re);
			return -EINVAL;
		}
		quant = q;
		atom = *p != '(' && *p != '|' && *p != '^';
	}
	return 0;
}

static int check_re(const char *re, struct strbuf *msg)
{
	regex_t rx;
	char buf[160];
	int r;

	if (reload_re_sane(re, msg) < 0)
		return -EINVAL;
	r = regcomp(&rx, re, REG_EXTENDED | REG_NOSUB);

	if (r) {
		regerror(r, &rx, buf, sizeof(buf));
		sb_addf(msg, "expected a POSIX extended regex, got '%s' (%s)", re, buf);
		return -EINVAL;
	}
	regfree(&rx);
	return 0;
}

static int set_str(char **dst, const char *v)
{
	char *c = strdup(v);

	if (!c)
		return -ENOMEM;
	free(*dst);
	*dst = c;
	return 0;
}

static int on_entry(void *user, const char *section, const char *key, const char *value)
{
	struct parse_ctx *c = user;
	struct reload_rules *rs = c->rs;
	struct reload_rule *r;

	if (c->msg.len || c->oom)
		return 0;
	if (!*section) {
		sb_addf(&c->msg, "expected a [program] section before '%s'", key);
		return 0;
	}
	/* watch --scan's key (run/watchscan.h): the same file holds both */
	if (!strcmp(key, "interfere_re")) {
		struct reload_interfere *in;
		struct strbuf why = STRBUF_INIT;

		if (check_re(value, &why) < 0) {
			sb_addf(&c->msg, "[%s] interfere_re: not a valid regular expression: %s",
				section, why.buf);
			sb_release(&why);
			return 0;
		}
		if (ARRAY_GROW(rs->interfere, rs->interfere_alloc, rs->ninterfere + 1) < 0) {
			c->oom = 1;
			return 0;
		}
		in = &rs->interfere[rs->ninterfere];
		memset(in, 0, sizeof(*in));
		if (set_str(&in->program, section) < 0 || set_str(&in->re, value) < 0) {
			free(in->program);
			c->oom = 1;
			return 0;
		}
		rs->ninterfere++;
		return 1;
	}
	if (!rs->n || strcmp(rs->r[rs->n - 1].program, section)) {
		size_t i;

		for (i = 0; i < rs->n; i++) {
			if (!strcmp(rs->r[i].program, section)) {
				sb_addf(&c->msg, "section '%s' appears twice", section);
				return 0;
			}
		}
		if (ARRAY_GROW(rs->r, rs->alloc, rs->n + 1) < 0) {
			c->oom = 1;
			return 0;
		}
		memset(&rs->r[rs->n], 0, sizeof(rs->r[0]));
		rs->r[rs->n].kind = -1;
		if (set_str(&rs->r[rs->n].program, section) < 0) {
			c->oom = 1;
			return 0;
		}
		rs->n++;
	}
	r = &rs->r[rs->n - 1];
	if (!strcmp(key, "why")) {
		if (!*value) {
			sb_addf(&c->msg, "[%s]: expected a reason after 'why ='", section);
			return 0;
		}
		if (set_str(&r->why, value) < 0)
			c->oom = 1;
		return !c->oom;
	}
	if (!strcmp(key, "after")) {
		if (parse_secs(value, &r->after_s) < 0) {
			sb_addf(&c->msg, "[%s] after: expected seconds >= 0, got '%s'", section, value);
			return 0;
		}
		return 1;
	}
	if (strcmp(key, "rule") && strcmp(key, "fixed") && strcmp(key, "line")) {
		sb_addf(&c->msg, "[%s]: unknown key '%s' (expected rule, fixed, line, after, why)",
			section, key);
		return 0;
	}
	if ((int)r->kind != -1) {
		sb_addf(&c->msg, "[%s]: a second rule '%s' (expected one of rule = none, fixed, line)",
			section, key);
		return 0;
	}
	if (!strcmp(key, "rule")) {
		if (strcmp(value, "none")) {
			sb_addf(&c->msg, "[%s] rule: expected 'none', got '%s'", section, value);
			return 0;
		}
		r->kind = RELOAD_NONE;
	} else if (!strcmp(key, "fixed")) {
		if (parse_secs(value, &r->fixed_s) < 0) {
			sb_addf(&c->msg, "[%s] fixed: expected seconds >= 0, got '%s'", section, value);
			return 0;
		}
		r->kind = RELOAD_FIXED;
	} else {
		if (!*value) {
			sb_addf(&c->msg, "[%s] line: expected a regex", section);
			return 0;
		}
		if (check_re(value, &c->msg) < 0)
			return 0;
		if (set_str(&r->re, value) < 0) {
			c->oom = 1;
			return 0;
		}
		r->kind = RELOAD_LINE;
	}
	return 1;
}

void reload_rule_release(struct reload_rule *r)
{
	if (!r)
		return;
	free(r->program);
	free(r->re);
	free(r->why);
	memset(r, 0, sizeof(*r));
}

void reload_rules_free(struct reload_rules *rs)
{
	size_t i;

	if (!rs)
		return;
	for (i = 0; i < rs->n; i++)
		reload_rule_release(&rs->r[i]);
	free(rs->r);
	for (i = 0; i < rs->ninterfere; i++) {
		free(rs->interfere[i].program);
		free(rs->interfere[i].re);
	}
	free(rs->interfere);
	free(rs);
}

int reload_rules_parse(const char *buf, size_t len, const char *name, struct reload_rules **ret,
		       struct strbuf *err)
{
	struct parse_ctx c = { 0 };
	char *text;
	size_t i;
	int line;

	if (memchr(buf, '\0', len)) {
		sb_addf(err, "'%s': expected a text file, found a NUL byte", name);
		return -EINVAL;
	}
	text = malloc(len + 1);
	c.rs = calloc(1, sizeof(*c.rs));
	if (!text || !c.rs) {
		free(text);
		free(c.rs);
		return -ENOMEM;
	}
	memcpy(text, buf, len);
	text[len] = '\0';
	sb_init(&c.msg);
	line = ini_parse_string(text, on_entry, &c);
	free(text);
	if (c.oom) {
		reload_rules_free(c.rs);
		sb_release(&c.msg);
		return -ENOMEM;
	}
	if (line) {
		if (line < 0)
			sb_addf(err, "'%s': cannot parse", name);
		else
			sb_addf(err, "'%s' line %d: %s", name, line,
				c.msg.len ? c.msg.buf : "expected [program] or key = value");
		reload_rules_free(c.rs);
		sb_release(&c.msg);
		return -EINVAL;
	}
	sb_release(&c.msg);
	for (i = 0; i < c.rs->n; i++) {
		struct reload_rule *r = &c.rs->r[i];

		if ((int)r->kind == -1 || !r->why) {
			sb_addf(err, "'%s' [%s]: expected %s", name, r->program,
				(int)r->kind == -1 ? "one of rule = none, fixed = S, line = REGEX"
						   : "a 'why =' saying why the rule is right");
			reload_rules_free(c.rs);
			return -EINVAL;
		}
	}
	*ret = c.rs;
	return 0;
}

const struct reload_rule *reload_rules_find(const struct reload_rules *rs, const char *program)
{
	size_t i;

	if (!rs || !program)
		return NULL;
	for (i = 0; i < rs->n; i++)
		if (!strcmp(rs->r[i].program, program))
			return &rs->r[i];
	return NULL;
}

int reload_rule_from_overrides(const char *re, const char *after, const char *fixed,
			       struct reload_rule *ret, struct strbuf *err)
{
	struct reload_rule r = { 0 };

	if (!re && !fixed) {
		if (after) {
			sb_addf(err, "reload_after= needs reload_re=");
			return -EINVAL;
		}
		return 0;
	}
	if (re && fixed) {
		sb_addf(err, "expected one of reload_re= and reload_fixed=, got both");
		return -EINVAL;
	}
	if (fixed) {
		if (parse_secs(fixed, &r.fixed_s) < 0) {
			sb_addf(err, "reload_fixed: expected seconds >= 0, got '%s'", fixed);
			return -EINVAL;
		}
		r.kind = r.fixed_s > 0 ? RELOAD_FIXED : RELOAD_NONE;
	} else {
		if (check_re(re, err) < 0)
			return -EINVAL;
		if (after && parse_secs(after, &r.after_s) < 0) {
			sb_addf(err, "reload_after: expected seconds >= 0, got '%s'", after);
			return -EINVAL;
		}
		r.kind = RELOAD_LINE;
		if (set_str(&r.re, re) < 0)
			return -ENOMEM;
	}
	if (set_str(&r.why, "run.ini overrides the rules file") < 0) {
		reload_rule_release(&r);
		return -ENOMEM;
	}
	*ret = r;
	return 1;
}

/* ------------------------------------------------------------ program log */

int reload_log_parse(const char *buf, size_t len, struct reload_line **ret, size_t *ret_n,
		     size_t *ret_unstamped)
{
	struct reload_line *v = NULL;
	size_t n = 0, alloc = 0, unstamped = 0, i = 0;

	while (i < len) {
		const char *line = buf + i, *nl = memchr(line, '\n', len - i);
		size_t ll = nl ? (size_t)(nl - line) : len - i;
		size_t j;
		double t;

		i += ll + (nl ? 1 : 0);
		if (ll && line[ll - 1] == '\r')
			ll--;
		if (!ll)
			continue;
		if (!logstamp_parse(line, ll, &t, &j)) {
			unstamped++;
			continue;
		}
		if (ARRAY_GROW(v, alloc, n + 1) < 0) {
			free(v);
			return -ENOMEM;
		}
		v[n].t_s = t;
		v[n].text = line + j;
		v[n].len = ll - j;
		n++;
	}
	*ret = v;
	*ret_n = n;
	if (ret_unstamped)
		*ret_unstamped = unstamped;
	return 0;
}

/* ------------------------------------------------------------ segments */

/* By stamp; equal stamps in the log's order (their texts' addresses). */
static int cmp_line(const void *a, const void *b)
{
	const struct reload_line *x = a, *y = b;

	if (x->t_s != y->t_s)
		return x->t_s < y->t_s ? -1 : 1;
	return (x->text > y->text) - (x->text < y->text);
}

/* Does LINE match RX? (regexec needs a NUL-terminated copy.) */
static int line_matches(const regex_t *rx, const struct reload_line *l, char **tmp, size_t *tmpn)
{
	if (ARRAY_GROW(*tmp, *tmpn, l->len + 1) < 0)
		return -ENOMEM;
	memcpy(*tmp, l->text, l->len);
	(*tmp)[l->len] = '\0';
	return regexec(rx, *tmp, 0, NULL, 0) == 0;
}

int reload_segments(const struct reload_rule *rule, const double *pass_s, size_t npass,
		    double end_s, const struct reload_line *lines, size_t nlines, bool have_t0,
		    struct metrics_seg **ret, struct strbuf *notes)
{
	struct metrics_seg *segs = NULL;
	double *p = NULL;
	regex_t rx;
	char *tmp = NULL;
	struct reload_line *sorted = NULL;
	bool unsorted = false;
	size_t tmpn = 0, i, k, n = 0;
	int r = 0;

	*ret = NULL;
	if (!rule || rule->kind == RELOAD_NONE || npass == 0)
		return 0;
	if (rule->kind == RELOAD_LINE && !have_t0) {
		sb_addf(notes, "the reload rule needs program-log lines and the run has no t0 to "
			       "place them against its frames");
		return -ENODATA;
	}
	if (rule->kind == RELOAD_LINE && !lines) {
		sb_addf(notes, "the reload rule needs program-log lines and the run has no "
			       "program log");
		return -ENODATA;
	}
	p = malloc(npass * sizeof(*p));
	segs = malloc(npass * sizeof(*segs));
	if (!p || !segs) {
		free(p);
		free(segs);
		return -ENOMEM;
	}
	memcpy(p, pass_s, npass * sizeof(*p));
	stats_sort(p, npass);
	if (rule->kind == RELOAD_FIXED) {
		for (i = 0; i < npass; i++)
			segs[n++] = (struct metrics_seg){ p[i], p[i] + rule->fixed_s };
		free(p);
		*ret = segs;
		return (int)n;
	}
	if (reload_re_sane(rule->re, notes) < 0 || regcomp(&rx, rule->re, REG_EXTENDED | REG_NOSUB)) {
		free(p);
		free(segs);
		return -EINVAL;
	}
	/* a log whose stamps go back (a program's own "[S]" lines, or a log
	 * someone edited): walked in stamp order, else a line stamped before
	 * its pass would end that pass's segment before it starts (the
	 * fuzzing campaign's find) */
	for (i = 1; i < nlines && !unsorted; i++)
		unsorted = lines[i].t_s < lines[i - 1].t_s;
	if (unsorted) {
		sorted = malloc(nlines * sizeof(*sorted));
		if (!sorted) {
			r = -ENOMEM;
			goto out;
		}
		memcpy(sorted, lines, nlines * sizeof(*sorted));
		qsort(sorted, nlines, sizeof(*sorted), cmp_line);
		lines = sorted;
	}
	k = 0;
	for (i = 0; i < npass; i++) {
		double next = i + 1 < npass ? p[i + 1] : INFINITY;
		int found = 0;

		while (k < nlines && lines[k].t_s < p[i])
			k++;
		for (; k < nlines && lines[k].t_s < next; k++) {
			int m = line_matches(&rx, &lines[k], &tmp, &tmpn);

			if (m < 0) {
				r = m;
				goto out;
			}
			if (m) {
				segs[n++] = (struct metrics_seg){ p[i], lines[k].t_s + rule->after_s };
				found = 1;
				break;
			}
		}
		if (found)
			continue;
		if (i + 1 == npass) {
			segs[n++] = (struct metrics_seg){ p[i], end_s > p[i] ? end_s : p[i] };
			sb_addf(notes, "pass %zu (%.3f s): no log line matches '%s' before the run "
				       "ends; the rest of the run is counted as reload\n",
				i + 1, p[i], rule->re);
		} else {
			sb_addf(notes, "pass %zu (%.3f s): no log line matches '%s'; the pass is "
				       "counted as play\n",
				i + 1, p[i], rule->re);
		}
	}
	r = (int)n;
out:
	regfree(&rx);
	free(sorted);
	free(tmp);
	free(p);
	if (r <= 0) {
		free(segs);
		return r;
	}
	*ret = segs;
	return r;
}
