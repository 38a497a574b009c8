// SPDX-License-Identifier: MIT
/*
 * framelog.c: the frame-log readers of framelog.h: MangoHud CSV (0.6.x to
 * 0.8.x), PresentMon CSV (v1, v2, current) and one frame time a line.
 *
 * One pass over the buffer, a line at a time, with no allocation per line:
 * lines are found with memchr, fields are walked in place, numbers are read
 * by a small decimal reader (exact for up to 15 significant digits and
 * powers of ten up to 22, strtod on a stack copy beyond that). Values go
 * straight into the growing arrays of struct frames; unit decisions that
 * need the whole log (MangoHud's microseconds or milliseconds) scale them
 * afterwards in place.
 *
 * Assumptions, each checked and reported rather than trusted:
 *   - MangoHud writes no quoting and no blank lines; a row has as many
 *     fields as the header (a shorter last line without a newline is a
 *     write cut short by a crash: left out with a note);
 *   - MangoHud's elapsed column is ns since logging started and never
 *     decreases; when it does not hold, times come from the frame times;
 *   - PresentMon rows of several processes or swap chains may be mixed in
 *     one file; the swap chain with the most rows is kept (a note says so).
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frames/framelog.h"

/* ------------------------------------------------------------------ */
/* lines, fields, numbers */

struct cursor {
	const char *p;		/* next unread byte */
	const char *end;
	size_t lineno;		/* number of the line last returned, 1-based */
	bool last_had_nl;	/* the line last returned ended in '\n' */
};

struct span {
	const char *s;
	size_t len;
};

/* The next line without its "\n" or "\r\n"; false at the end of the buffer. */
static bool next_line(struct cursor *c, struct span *line)
{
	const char *nl;

	if (c->p >= c->end)
		return false;
	nl = memchr(c->p, '\n', (size_t)(c->end - c->p));
	line->s = c->p;
	if (nl) {
		line->len = (size_t)(nl - c->p);
		c->p = nl + 1;
		c->last_had_nl = true;
	} else {
		line->len = (size_t)(c->end - c->p);
		c->p = c->end;
		c->last_had_nl = false;
	}
	if (line->len && line->s[line->len - 1] == '\r')
		line->len--;
	c->lineno++;
	return true;
}

static struct span trim(struct span v)
{
	while (v.len && (v.s[0] == ' ' || v.s[0] == '\t'))
		v.s++, v.len--;
	while (v.len && (v.s[v.len - 1] == ' ' || v.s[v.len - 1] == '\t'))
		v.len--;
	return v;
}

static bool span_eq(struct span v, const char *s)
{
	size_t n = strlen(s);

	return v.len == n && memcmp(v.s, s, n) == 0;
}

static bool span_starts(struct span v, const char *s)
{
	size_t n = strlen(s);

	return v.len >= n && memcmp(v.s, s, n) == 0;
}

/* Whether LINE has the comma-separated field NAME. */
static bool has_field(struct span line, const char *name)
{
	const char *p = line.s, *end = line.s + line.len;

	while (p <= end) {
		const char *comma = memchr(p, ',', (size_t)(end - p));
		struct span f = { p, (size_t)((comma ? comma : end) - p) };

		if (span_eq(trim(f), name))
			return true;
		if (!comma)
			break;
		p = comma + 1;
	}
	return false;
}

/* The index of field NAME in LINE, or -1; *NFIELDS gets the field count. */
static int field_index(struct span line, const char *name, int *nfields)
{
	const char *p = line.s, *end = line.s + line.len;
	int i = 0, found = -1;

	for (;;) {
		const char *comma = memchr(p, ',', (size_t)(end - p));
		struct span f = { p, (size_t)((comma ? comma : end) - p) };

		if (found < 0 && span_eq(trim(f), name))
			found = i;
		i++;
		if (!comma)
			break;
		p = comma + 1;
	}
	if (nfields)
		*nfields = i;
	return found;
}

static const double pow10_exact[23] = {
	1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

/*
 * Reads the decimal number that is exactly V ([+-]digits[.digits][e[+-]n],
 * at least one digit). Returns 0 and *ret (and *is_int: no '.' and no
 * exponent), or -1 for anything else, "nan" and "inf" included. Exact:
 * up to 15 significant digits with a power of ten up to 22 is one correctly
 * rounded operation; longer numbers go to strtod.
 */
static int num_parse(struct span v, double *ret, bool *is_int)
{
	const char *p = v.s, *end = v.s + v.len;
	uint64_t mant = 0;
	int digits = 0, exp10 = 0, any = 0;
	bool neg = false, integer = true;

	if (p < end && (*p == '+' || *p == '-'))
		neg = *p++ == '-';
	for (; p < end && *p >= '0' && *p <= '9'; p++, any++) {
		if (mant == 0 && *p == '0')
			continue;
		if (digits < 19) {
			mant = mant * 10 + (uint64_t)(*p - '0');
			digits++;
		} else {
			exp10++;
		}
	}
	if (p < end && *p == '.') {
		integer = false;
		for (p++; p < end && *p >= '0' && *p <= '9'; p++, any++) {
			if (mant == 0 && *p == '0') {
				exp10--;
				continue;
			}
			if (digits < 19) {
				mant = mant * 10 + (uint64_t)(*p - '0');
				digits++;
				exp10--;
			}
		}
	}
	if (!any)
		return -1;
	if (p < end && (*p == 'e' || *p == 'E')) {
		bool eneg = false;
		int e = 0, edigits = 0;

		integer = false;
		p++;
		if (p < end && (*p == '+' || *p == '-'))
			eneg = *p++ == '-';
		for (; p < end && *p >= '0' && *p <= '9'; p++, edigits++)
			if (e < 10000)
				e = e * 10 + (*p - '0');
		if (!edigits)
			return -1;
		exp10 += eneg ? -e : e;
	}
	if (p != end)
		return -1;
	if (is_int)
		*is_int = integer;
	if (mant == 0) {
		*ret = neg ? -0.0 : 0.0;
		return 0;
	}
	if (digits <= 15 && exp10 >= -22 && exp10 <= 22) {
		double d = (double)mant;

		d = exp10 < 0 ? d / pow10_exact[-exp10] : d * pow10_exact[exp10];
		*ret = neg ? -d : d;
		return 0;
	}
	{
		char tmp[80];
		double d;

		if (v.len >= sizeof(tmp))
			return -1;
		memcpy(tmp, v.s, v.len);
		tmp[v.len] = '\0';
		d = strtod(tmp, NULL);
		if (!isfinite(d))
			return -1;
		*ret = d;
	}
	return 0;
}

/* Appends V to SB as a quoted subject: 40 bytes at most, unprintables as '?'. */
static void sb_add_quoted(struct strbuf *sb, struct span v)
{
	size_t n = v.len > 40 ? 40 : v.len;

	sb_addc(sb, '\'');
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)v.s[i];

		sb_addc(sb, ch >= 0x20 && ch < 0x7f ? (char)ch : '?');
	}
	if (n < v.len)
		sb_adds(sb, "...");
	sb_addc(sb, '\'');
}

/* ------------------------------------------------------------------ */
/* the parse state shared by the formats */

struct parse {
	const char *name;	/* the file, for messages */
	struct strbuf *msg;	/* errors go here (may be NULL) */
	struct strbuf notes;	/* notes, handed to msg on success */
	struct frames *f;
	size_t zero_rows;	/* rows left out for a frame time of 0 */
	size_t first_zero_line;
};

/* Appends "'NAME' line N: " + FMT to the error message; returns -EINVAL. */
__attribute__((format(printf, 3, 4))) static int perr(struct parse *ps, size_t lineno,
						       const char *fmt, ...)
{
	va_list ap;

	if (!ps->msg)
		return -EINVAL;
	if (lineno)
		sb_addf(ps->msg, "'%s' line %zu: ", ps->name, lineno);
	else
		sb_addf(ps->msg, "'%s': ", ps->name);
	va_start(ap, fmt);
	sb_vaddf(ps->msg, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* As perr, ending in ", got 'V'". */
__attribute__((format(printf, 4, 5))) static int perr_got(struct parse *ps, size_t lineno,
							   struct span v, const char *fmt, ...)
{
	va_list ap;

	if (!ps->msg)
		return -EINVAL;
	sb_addf(ps->msg, "'%s' line %zu: ", ps->name, lineno);
	va_start(ap, fmt);
	sb_vaddf(ps->msg, fmt, ap);
	va_end(ap);
	sb_adds(ps->msg, ", got ");
	sb_add_quoted(ps->msg, v);
	return -EINVAL;
}

__attribute__((format(printf, 2, 3))) static void note(struct parse *ps, const char *fmt, ...)
{
	va_list ap;

	sb_addf(&ps->notes, "'%s': ", ps->name);
	va_start(ap, fmt);
	sb_vaddf(&ps->notes, fmt, ap);
	va_end(ap);
	sb_addc(&ps->notes, '\n');
}

/*
 * Reads frame time V (in the log's unit, WHAT names it for messages) into
 * *ret. Returns 1 for a usable value, 0 for a zero frame time (counted and
 * left out), or -EINVAL with the message.
 */
static int read_ft(struct parse *ps, size_t lineno, struct span v, const char *what,
		   double *ret, bool *is_int)
{
	v = trim(v);
	if (num_parse(v, ret, is_int) < 0)
		return perr_got(ps, lineno, v, "expected %s", what);
	if (*ret < 0)
		return perr_got(ps, lineno, v, "expected %s (not negative)", what);
	if (*ret == 0) {
		if (!ps->zero_rows++)
			ps->first_zero_line = lineno;
		return 0;
	}
	return 1;
}

static int push(struct parse *ps, double t_s, double ft)
{
	return frames_push(ps->f, t_s, ft);
}

/* Fills t_s with the running sum of the frame times (first frame from 0). */
static void times_from_sum(struct frames *f)
{
	double t = 0;

	for (size_t i = 0; i < f->n; i++) {
		t += f->ft_ms[i] / 1000.0;
		f->t_s[i] = t;
	}
}

/* ------------------------------------------------------------------ */
/* MangoHud */

/* Whether LINE is a MangoHud version line ("0.8.2", "v0.7.2-1-gabc"). */
static bool mh_is_version(struct span line)
{
	struct span v = trim(line);

	if (v.len && v.s[0] == 'v')
		v.s++, v.len--;
	return v.len >= 3 && isdigit((unsigned char)v.s[0]) && memchr(v.s, '.', v.len);
}

/* Whether LINE is MangoHud's frame header: first field fps, a frametime field. */
static bool mh_is_header(struct span line)
{
	return span_starts(line, "fps,") && has_field(line, "frametime");
}

/* Whether LINE looks like the start of a MangoHud log (for auto-detection). */
static bool mh_is_start(struct span line)
{
	return span_eq(line, "v1") || span_starts(line, "os,cpu") || mh_is_header(line) ||
	       span_starts(line, "---");
}

/* Major, minor and patch of a version line; false if it does not parse. */
static bool mh_version(struct span line, int *major, int *minor, int *patch, char *out,
		       size_t outlen)
{
	struct span v = trim(line);
	int parts[3] = { 0, 0, 0 }, np = 0;
	size_t i = 0, o = 0;

	if (v.len && v.s[0] == 'v')
		v.s++, v.len--;
	while (i < v.len && np < 3) {
		int x = 0, d = 0;

		while (i < v.len && isdigit((unsigned char)v.s[i]) && d < 6)
			x = x * 10 + (v.s[i++] - '0'), d++;
		if (!d)
			break;
		parts[np++] = x;
		if (i < v.len && v.s[i] == '.')
			i++;
		else
			break;
	}
	if (np < 2)
		return false;
	*major = parts[0];
	*minor = parts[1];
	*patch = parts[2];
	/* the dotted digits only, for the format string */
	for (i = 0; i < v.len && o + 1 < outlen; i++) {
		if (!isdigit((unsigned char)v.s[i]) && v.s[i] != '.')
			break;
		out[o++] = v.s[i];
	}
	while (o && out[o - 1] == '.')
		o--;
	out[o] = '\0';
	return true;
}

static int parse_mangohud(struct parse *ps, struct cursor *c)
{
	struct span line;
	int major = -1, minor = 0, patch = 0;
	char version[24] = "";
	size_t header_line = 0, elapsed_bad_line = 0, sample_rows = 0;
	int nfields = 0, i_ft, i_fps, i_el;
	bool all_int = true, us;
	size_t us_votes = 0, ms_votes = 0;
	double prev_el = -INFINITY;
	struct frames *f = ps->f;
	int r;

	/* preamble: v1, version, separators, the system line and its values */
	while (next_line(c, &line)) {
		if (mh_is_header(line)) {
			header_line = c->lineno;
			break;
		}
		if (c->lineno > 12)
			break;
		if (span_eq(trim(line), "v1") || span_starts(line, "---") || !trim(line).len)
			continue;
		if (span_starts(line, "os,")) {
			if (!next_line(c, &line))	/* the system values */
				break;
			continue;
		}
		if (major < 0 && mh_is_version(line) &&
		    mh_version(line, &major, &minor, &patch, version, sizeof(version)))
			continue;
		return perr_got(ps, c->lineno, line,
				"expected a MangoHud log line (v1, a version, ---, os,cpu,... or "
				"the frame header fps,frametime,...)");
	}
	if (!header_line) {
		if (c->lineno == 0)
			return perr(ps, 0, "empty file: expected a frame log");
		return perr(ps, 0, "no MangoHud frame header (fps,frametime,...) in the first %zu "
			    "lines", c->lineno);
	}
	i_ft = field_index(line, "frametime", &nfields);
	i_fps = field_index(line, "fps", NULL);
	i_el = field_index(line, "elapsed", NULL);

	while (next_line(c, &line)) {
		const char *p = line.s, *end = line.s + line.len;
		struct span ft_s = { 0 }, fps_s = { 0 }, el_s = { 0 };
		int i = 0;
		double ft, el = NAN;
		bool is_int = true;

		if (!line.len) {
			if (c->p >= c->end)
				break;
			return perr(ps, c->lineno, "expected a row of %d fields, got an empty line",
				    nfields);
		}
		for (;;) {
			const char *comma = memchr(p, ',', (size_t)(end - p));
			struct span fld = { p, (size_t)((comma ? comma : end) - p) };

			if (i == i_ft)
				ft_s = fld;
			else if (i == i_fps)
				fps_s = fld;
			else if (i == i_el)
				el_s = fld;
			i++;
			if (!comma)
				break;
			p = comma + 1;
		}
		if (i != nfields) {
			if (!c->last_had_nl && i < nfields) {
				note(ps, "line %zu: last line cut short (%d of %d fields, no newline): "
				     "left out", c->lineno, i, nfields);
				break;
			}
			return perr(ps, c->lineno, "expected %d fields as in the header on line "
				    "%zu, got %d", nfields, header_line, i);
		}
		r = read_ft(ps, c->lineno, ft_s, "a frame time in column 'frametime'", &ft,
			    &is_int);
		if (r < 0)
			return r;
		if (i_el >= 0) {
			struct span v = trim(el_s);

			if (num_parse(v, &el, NULL) < 0 || el < 0)
				return perr_got(ps, c->lineno, v,
						"expected ns since logging started in column "
						"'elapsed'");
			if (el < prev_el && !elapsed_bad_line)
				elapsed_bad_line = c->lineno;
			prev_el = el;
		}
		if (r == 0)
			continue;
		all_int = all_int && is_int;
		if (i_fps >= 0 && us_votes + ms_votes < 256) {
			double fps;

			/* fps * ft is ~1e6 with ft in us, ~1e3 with ft in ms */
			if (num_parse(trim(fps_s), &fps, NULL) == 0 && fps > 0) {
				if (fps * ft > 31622.8)
					us_votes++;
				else
					ms_votes++;
			}
		}
		if ((r = push(ps, el, ft)) < 0)
			return r;
	}
	if (!f->n)
		return perr(ps, 0, "no frames after the header on line %zu", header_line);

	/* the unit of frametime, and the version that implies */
	if (major >= 0) {
		us = major == 0 && (minor < 6 || (minor == 6 && patch < 9));
		snprintf(f->format, sizeof(f->format), "mangohud-%s", version);
		if (us != (all_int && us_votes >= ms_votes))
			note(ps, "frametime looks like %s but the log says version %s: %s "
			     "assumed", us ? "ms" : "us", version, us ? "us" : "ms");
	} else if (!all_int) {
		/* 0.6.9 wrote float ms with 0.6.x's 12 columns; 0.7 added swap_used, ... */
		us = false;
		snprintf(f->format, sizeof(f->format), "%s",
			 nfields <= 12 ? "mangohud-0.6.9" : "mangohud-0.7");
		note(ps, "mangohud version assumed %s from float frametime (ms) and %d columns",
		     nfields <= 12 ? "0.6.9" : "0.7 or later", nfields);
	} else if (i_fps >= 0 && ms_votes > us_votes) {
		us = false;
		snprintf(f->format, sizeof(f->format), "%s",
			 nfields <= 12 ? "mangohud-0.6.9" : "mangohud-0.7");
		note(ps, "mangohud version assumed %s: frametime holds whole numbers but fps "
		     "says they are ms", nfields <= 12 ? "0.6.9" : "0.7 or later");
	} else {
		us = true;
		snprintf(f->format, sizeof(f->format), "mangohud-0.6.8");
		note(ps, "mangohud version assumed 0.6.8 from integer frametime (us)");
	}
	if (us)
		for (size_t i = 0; i < f->n; i++)
			f->ft_ms[i] /= 1000.0;

	/* times: elapsed when it is there and never decreases */
	if (i_el < 0) {
		times_from_sum(f);
		note(ps, "no elapsed column: frame ends from the running sum of frame times");
	} else if (elapsed_bad_line) {
		times_from_sum(f);
		note(ps, "line %zu: elapsed decreases: frame ends from the running sum of frame "
		     "times", elapsed_bad_line);
	} else {
		for (size_t i = 0; i < f->n; i++)
			f->t_s[i] /= 1e9;
		/* rows further apart than twice their frame time are samples */
		for (size_t i = 1; i < f->n; i++)
			if ((f->t_s[i] - f->t_s[i - 1]) * 1e3 > 2 * f->ft_ms[i])
				sample_rows++;
		if (f->n >= 3 && sample_rows * 2 > f->n)
			note(ps, "rows are samples (one every %.0f ms on average), not every frame "
			     "(MangoHud's log_interval was not 0): counts and shares describe "
			     "the samples", (f->t_s[f->n - 1] - f->t_s[0]) * 1e3 /
			     (double)(f->n - 1));
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* PresentMon */

/* Whether LINE is a PresentMon header (for auto-detection). */
static bool pm_is_header(struct span line)
{
	return has_field(line, "msBetweenPresents") || has_field(line, "MsBetweenPresents") ||
	       (span_starts(line, "Application,") && has_field(line, "FrameTime"));
}

#define PM_MAX_CHAINS 64

struct pm_chain {
	struct span key;	/* Application,ProcessID,SwapChainAddress of its first row */
	size_t rows;
};

/* The key of a row: its first three fields, or the whole line if fewer. */
static struct span pm_key(struct span line)
{
	const char *p = line.s, *end = line.s + line.len;

	for (int i = 0; i < 3 && p < end; i++) {
		const char *comma = memchr(p, ',', (size_t)(end - p));

		if (!comma)
			return line;
		p = comma + 1;
	}
	return (struct span){ line.s, (size_t)(p - line.s) };
}

static int parse_presentmon(struct parse *ps, struct cursor *c)
{
	struct span line, header;
	const char *col, *fmt;
	int nfields = 0, i_ft;
	size_t header_line;
	bool keyed;
	struct pm_chain chains[PM_MAX_CHAINS];
	size_t nchains = 0, other_rows = 0, best = 0, total_rows = 0;
	struct cursor data;
	struct frames *f = ps->f;
	int r;

	do {
		if (!next_line(c, &line))
			return perr(ps, 0, "empty file: expected a frame log");
	} while (!trim(line).len);
	header = line;
	header_line = c->lineno;
	if ((i_ft = field_index(header, "MsBetweenPresents", &nfields)) >= 0) {
		col = "MsBetweenPresents";
		fmt = "presentmon";
	} else if ((i_ft = field_index(header, "msBetweenPresents", &nfields)) >= 0) {
		col = "msBetweenPresents";
		fmt = "presentmon-v1";
	} else if ((i_ft = field_index(header, "FrameTime", &nfields)) >= 0) {
		col = "FrameTime";
		fmt = "presentmon-v2";
	} else {
		return perr_got(ps, header_line, header,
				"expected a PresentMon CSV header with msBetweenPresents (v1), "
				"FrameTime (v2) or MsBetweenPresents");
	}
	snprintf(f->format, sizeof(f->format), "%s", fmt);
	keyed = span_starts(header, "Application,ProcessID,SwapChainAddress");

	/* pass 1: count the rows of each swap chain */
	data = *c;
	if (keyed) {
		while (next_line(c, &line)) {
			struct span key;
			size_t i;

			if (!line.len)
				continue;
			key = pm_key(line);
			for (i = 0; i < nchains; i++)
				if (chains[i].key.len == key.len &&
				    memcmp(chains[i].key.s, key.s, key.len) == 0)
					break;
			if (i == nchains) {
				if (nchains == PM_MAX_CHAINS) {
					other_rows++;
					continue;
				}
				chains[nchains++] = (struct pm_chain){ key, 0 };
			}
			chains[i].rows++;
			total_rows++;
		}
		for (size_t i = 1; i < nchains; i++)
			if (chains[i].rows > chains[best].rows)
				best = i;
		*c = data;
	}

	/* pass 2: the frames of the chosen swap chain */
	while (next_line(c, &line)) {
		const char *p = line.s, *end = line.s + line.len;
		struct span ft_s = { 0 };
		int i = 0;
		double ft;
		bool is_int;

		if (!line.len) {
			if (c->p >= c->end)
				break;
			return perr(ps, c->lineno, "expected a row of %d fields, got an empty line",
				    nfields);
		}
		if (keyed && nchains > 1) {
			struct span key = pm_key(line);

			if (key.len != chains[best].key.len ||
			    memcmp(key.s, chains[best].key.s, key.len) != 0)
				continue;
		}
		for (;;) {
			const char *comma = memchr(p, ',', (size_t)(end - p));

			if (i == i_ft)
				ft_s = (struct span){ p, (size_t)((comma ? comma : end) - p) };
			i++;
			if (!comma)
				break;
			p = comma + 1;
		}
		if (i != nfields) {
			if (!c->last_had_nl && i < nfields) {
				note(ps, "line %zu: last line cut short (%d of %d fields, no newline): "
				     "left out", c->lineno, i, nfields);
				break;
			}
			return perr(ps, c->lineno, "expected %d fields as in the header on line "
				    "%zu, got %d", nfields, header_line, i);
		}
		r = read_ft(ps, c->lineno, ft_s, "a frame time in ms in column", &ft, &is_int);
		if (r < 0) {
			/* name the column in the message */
			if (ps->msg)
				sb_addf(ps->msg, " ('%s')", col);
			return r;
		}
		if (r == 0)
			continue;
		if ((r = frames_push_ft(f, ft)) < 0)
			return r;
	}
	if (!f->n)
		return perr(ps, 0, "no frames after the header on line %zu", header_line);
	if (nchains > 1 || other_rows) {
		struct span k = chains[best].key;

		if (k.len && k.s[k.len - 1] == ',')
			k.len--;
		note(ps, "%zu swap chains in the log; kept '%.*s' (%zu frames), left out %zu rows "
		     "of the others", nchains + (other_rows ? 1 : 0), (int)k.len, k.s,
		     chains[best].rows, total_rows + other_rows - chains[best].rows);
	}
	note(ps, "%s: frame times from column %s; frame ends from their running sum", fmt, col);
	return 0;
}

/* ------------------------------------------------------------------ */
/* plain: one frame time in ms a line */

/* LINE without a '#' comment and blanks. */
static struct span plain_value(struct span line)
{
	const char *hash = memchr(line.s, '#', line.len);

	if (hash)
		line.len = (size_t)(hash - line.s);
	return trim(line);
}

static int parse_plain(struct parse *ps, struct cursor *c)
{
	struct span line;
	size_t lines = 0;
	int r;

	while (next_line(c, &line)) {
		struct span v = plain_value(line);
		double ft;
		bool is_int;

		lines++;
		if (!v.len)
			continue;
		r = read_ft(ps, c->lineno, v, "a frame time in ms", &ft, &is_int);
		if (r < 0)
			return r;
		if (r > 0 && (r = frames_push_ft(ps->f, ft)) < 0)
			return r;
	}
	if (!lines)
		return perr(ps, 0, "empty file: expected a frame log");
	if (!ps->f->n && !ps->zero_rows)
		return perr(ps, 0, "no frames: only comments and blank lines");
	snprintf(ps->f->format, sizeof(ps->f->format), "plain");
	return 0;
}

/* ------------------------------------------------------------------ */
/* detection and the API */

/* The format of the first meaningful line; -EINVAL with a message if none. */
static int detect(struct parse *ps, struct cursor c, enum framelog_format *ret)
{
	struct span line;
	double d;

	while (next_line(&c, &line)) {
		struct span v = trim(line);

		if (!v.len || v.s[0] == '#')
			continue;
		if (mh_is_start(v)) {
			*ret = FRAMELOG_MANGOHUD;
		} else if (pm_is_header(v)) {
			*ret = FRAMELOG_PRESENTMON;
		} else if (num_parse(plain_value(v), &d, NULL) == 0) {
			*ret = FRAMELOG_PLAIN;
		} else {
			return perr_got(ps, c.lineno, v,
					"unknown frame log: expected a MangoHud CSV (os,cpu,... or "
					"fps,frametime,...), a PresentMon CSV header "
					"(...,MsBetweenPresents,...) or a frame time in ms");
		}
		return 0;
	}
	if (c.lineno == 0 || (c.lineno == 1 && !line.len))
		return perr(ps, 0, "empty file: expected a frame log");
	return perr(ps, 0, "no frames: only comments and blank lines");
}

int framelog_parse(const char *buf, size_t len, const char *name, enum framelog_format fmt,
		   struct frames **ret, struct strbuf *msg)
{
	struct parse ps = { .name = name ? name : "-", .msg = msg };
	struct cursor c = { buf, buf + len, 0, false };
	int r;

	sb_init(&ps.notes);
	/* a UTF-8 byte order mark (PresentMon writes one) */
	if (len >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0)
		c.p += 3;
	if (fmt == FRAMELOG_AUTO && (r = detect(&ps, c, &fmt)) < 0)
		return r;
	ps.f = frames_new();
	if (!ps.f)
		return -ENOMEM;
	switch (fmt) {
	case FRAMELOG_MANGOHUD:
		r = parse_mangohud(&ps, &c);
		break;
	case FRAMELOG_PRESENTMON:
		r = parse_presentmon(&ps, &c);
		break;
	case FRAMELOG_PLAIN:
		r = parse_plain(&ps, &c);
		break;
	default:
		r = -EINVAL;
		perr(&ps, 0, "unknown frame log format %d", (int)fmt);
		break;
	}
	if (r == 0 && !ps.f->n)
		r = perr(&ps, 0, "no frames: every frame time is 0");
	if (r < 0) {
		if (r == -ENOMEM && msg)
			sb_addf(msg, "'%s': out of memory", ps.name);
		frames_free(ps.f);
		sb_release(&ps.notes);
		return r;
	}
	if (ps.zero_rows)
		note(&ps, "%zu frames with a frame time of 0 left out (the first on line %zu)",
		     ps.zero_rows, ps.first_zero_line);
	if (msg)
		sb_add(msg, ps.notes.buf, ps.notes.len);
	sb_release(&ps.notes);
	*ret = ps.f;
	return 0;
}

int framelog_read(const char *path, enum framelog_format fmt, struct frames **ret,
		  struct strbuf *msg)
{
	struct strbuf sb = STRBUF_INIT;
	FILE *fp = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
	int r = 0;

	if (!fp) {
		r = -errno;
		if (msg)
			sb_addf(msg, "'%s': %s", path, strerror(-r));
		return r;
	}
	for (;;) {
		size_t got;

		if (sb_grow(&sb, sb.len < 65536 ? 65536 : sb.len) < 0) {
			r = -ENOMEM;
			break;
		}
		got = fread(sb.buf + sb.len, 1, sb.alloc - sb.len - 1, fp);
		sb.len += got;
		sb.buf[sb.len] = '\0';
		if (got == 0) {
			if (ferror(fp))
				r = -EIO;
			break;
		}
	}
	if (fp != stdin)
		fclose(fp);
	if (r < 0) {
		if (msg)
			sb_addf(msg, "'%s': %s", path, strerror(-r));
		sb_release(&sb);
		return r;
	}
	r = framelog_parse(sb.buf, sb.len, path, fmt, ret, msg);
	sb_release(&sb);
	return r;
}

static const char *const format_names[] = {
	[FRAMELOG_AUTO] = "auto",
	[FRAMELOG_MANGOHUD] = "mangohud",
	[FRAMELOG_PRESENTMON] = "presentmon",
	[FRAMELOG_PLAIN] = "plain",
};

int framelog_format_parse(const char *s, enum framelog_format *ret)
{
	for (size_t i = 0; i < sizeof(format_names) / sizeof(format_names[0]); i++) {
		if (s && strcmp(s, format_names[i]) == 0) {
			*ret = (enum framelog_format)i;
			return 0;
		}
	}
	return -EINVAL;
}

const char *framelog_format_name(enum framelog_format fmt)
{
	if ((unsigned)fmt < sizeof(format_names) / sizeof(format_names[0]))
		return format_names[fmt];
	return "unknown";
}
