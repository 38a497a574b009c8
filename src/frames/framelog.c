// SPDX-License-Identifier: MIT
/*
 * framelog.c: the frame-log readers of framelog.h: MangoHud CSV (0.6.x to
 * 0.8.x), PresentMon CSV (v1, v2, current) and one frame time a line.
 *
 * One pass over the buffer, a line at a time, with no allocation per line:
 * lines are found with memchr, fields are split in one byte loop, numbers
 * are read by a small decimal reader (exact for up to 15 significant digits
 * and powers of ten up to 22, strtod on a stack copy beyond that). Values go
 * straight into the arrays of struct frames, sized up front from the line
 * density of the first 64 KB; unit decisions that need the whole log
 * (MangoHud's microseconds or milliseconds) scale them afterwards in place.
 * framelog_read maps a regular file and drops the pages the parser has read
 * past, so an hour's log (45 MB of MangoHud CSV) costs about the frames'
 * arrays in memory, not the file.
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
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "frames/framelog.h"

/* ------------------------------------------------------------------ */
/* lines, fields, numbers */

/*
 * Where the parser is. RELEASE, when set, is called with each further 8 MB
 * of the buffer the parser has read past (framelog_read drops those pages
 * of its mapping, so an hour's log never sits in memory whole); the parser
 * may still read released bytes again, they are only dropped from memory.
 */
struct cursor {
	const char *p;		/* next unread byte */
	const char *end;
	size_t lineno;		/* number of the line last returned, 1-based */
	bool last_had_nl;	/* the line last returned ended in '\n' */
	void (*release)(const char *from, const char *to);
	const char *released;	/* RELEASE was called up to here */
};

#define RELEASE_STEP (8u << 20)

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
	if (c->release && (size_t)(c->p - c->released) >= RELEASE_STEP) {
		c->release(c->released, line->s);
		c->released = line->s;
	}
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

/*
 * The end of the field that starts at P (the ',' after it, or END). A field
 * that starts with '"' is quoted (RFC 4180): commas inside it do not end it
 * and "" is a quote inside it; an unterminated one runs to END.
 */
static inline const char *field_end(const char *p, const char *end)
{
	if (p < end && *p == '"') {
		for (p++; p < end; p++)
			if (*p == '"') {
				if (p + 1 < end && p[1] == '"')
					p++;
				else
					break;
			}
		if (p < end)
			p++;	/* past the closing quote */
	}
	while (p < end && *p != ',')
		p++;
	return p;
}

/* V without the quotes of a quoted field ("" inside stays as two). */
static struct span unquote(struct span v)
{
	if (v.len >= 2 && v.s[0] == '"' && v.s[v.len - 1] == '"')
		return (struct span){ v.s + 1, v.len - 2 };
	return v;
}

/* Whether LINE has the comma-separated field NAME. */
static bool has_field(struct span line, const char *name)
{
	const char *p = line.s, *end = line.s + line.len;

	for (;;) {
		const char *e = field_end(p, end);
		struct span f = { p, (size_t)(e - p) };

		if (span_eq(unquote(trim(f)), name))
			return true;
		if (e == end)
			break;
		p = e + 1;
	}
	return false;
}

/* The index of field NAME in LINE, or -1; *NFIELDS gets the field count. */
static int field_index(struct span line, const char *name, int *nfields)
{
	const char *p = line.s, *end = line.s + line.len;
	int i = 0, found = -1;

	for (;;) {
		const char *e = field_end(p, end);
		struct span f = { p, (size_t)(e - p) };

		if (found < 0 && span_eq(unquote(trim(f)), name))
			found = i;
		i++;
		if (e == end)
			break;
		p = e + 1;
	}
	if (nfields)
		*nfields = i;
	return found;
}

/*
 * Splits LINE at commas in one byte loop (fields are short: a memchr call
 * per field costs more than it saves); a quoted field (RFC 4180) is one
 * field whatever commas it holds. Field WANT[k] (k < 3, -1 for none) is
 * stored in OUT[k], without its quotes. Returns the number of fields.
 */
static int split_fields(struct span line, const int want[3], struct span out[3])
{
	const char *p = line.s, *end = line.s + line.len, *start = p;
	int i = 0;

	for (;; p++) {
		if (p == start && p < end && *p == '"')
			p = field_end(p, end);
		if (p == end || *p == ',') {
			struct span f = { start, (size_t)(p - start) };

			if (i == want[0])
				out[0] = unquote(f);
			else if (i == want[1])
				out[1] = unquote(f);
			else if (i == want[2])
				out[2] = unquote(f);
			i++;
			if (p == end)
				return i;
			start = p + 1;
		}
	}
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

/*
 * Appends a frame: straight into the arrays while the reserved capacity
 * lasts (the hot path: a call into frames.c per frame cost a tenth of the
 * parse), through frames_push() beyond it.
 */
static inline int push(struct parse *ps, double t_s, double ft)
{
	struct frames *f = ps->f;

	if (f->n < f->alloc && !f->tid) {
		f->ft_ms[f->n] = ft;
		f->t_s[f->n] = t_s;
		f->n++;
		return 0;
	}
	return frames_push(f, t_s, ft);
}

/* Appends a frame time only; its end is the previous end plus FT (ms). */
static inline int push_ft(struct parse *ps, double ft)
{
	struct frames *f = ps->f;

	return push(ps, (f->n ? f->t_s[f->n - 1] : 0.0) + ft / 1000.0, ft);
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
		const int want[3] = { i_ft, i_fps, i_el };
		struct span fl[3] = { { 0 } };
		struct span ft_s, fps_s, el_s;
		int i = split_fields(line, want, fl);
		double ft, el = NAN;
		bool is_int = true;

		ft_s = fl[0];
		fps_s = fl[1];
		el_s = fl[2];
		if (!line.len) {
			if (c->p >= c->end)
				break;
			return perr(ps, c->lineno, "expected a row of %d fields, got an empty line",
				    nfields);
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

/* A swap chain: Application, ProcessID, SwapChainAddress of a row, each
 * without the quotes a writer may have put round it. */
struct pm_key {
	struct span f[3];
};

struct pm_chain {
	struct pm_key key;	/* of its first row */
	size_t rows;
};

/* The key of a row: its first three fields (fewer: the others empty). */
static struct pm_key pm_key(struct span line)
{
	const char *p = line.s, *end = line.s + line.len;
	struct pm_key k = { { { NULL, 0 }, { NULL, 0 }, { NULL, 0 } } };

	for (int i = 0; i < 3 && p <= end; i++) {
		const char *e = field_end(p, end);

		k.f[i] = unquote((struct span){ p, (size_t)(e - p) });
		if (e == end)
			break;
		p = e + 1;
	}
	return k;
}

static bool pm_key_eq(const struct pm_key *a, const struct pm_key *b)
{
	for (int i = 0; i < 3; i++)
		if (a->f[i].len != b->f[i].len ||
		    (a->f[i].len && memcmp(a->f[i].s, b->f[i].s, a->f[i].len)))
			return false;
	return true;
}

struct pm_log {
	int nfields;		/* in the header */
	int i_ft;		/* the frame-time column */
	size_t header_line;
	const char *col;	/* its name */
	bool keyed;		/* rows start Application,ProcessID,SwapChainAddress */
	struct pm_chain chains[PM_MAX_CHAINS];
	size_t nchains;
	size_t other_rows;	/* rows of chains past PM_MAX_CHAINS */
};

/*
 * One pass over the rows: parses the frames of swap chain *KEY (the first
 * row's chain when KEY->s is NULL; every row when the log is not keyed) and,
 * when COUNT, counts the rows of every chain. 0 or a negative errno.
 */
static int pm_pass(struct parse *ps, struct cursor *c, struct pm_log *pl, struct pm_key *key,
		   bool count)
{
	struct span line;
	char what[64];
	int r;

	snprintf(what, sizeof(what), "a frame time in ms in column '%s'", pl->col);
	while (next_line(c, &line)) {
		const int want[3] = { pl->i_ft, -1, -1 };
		struct span fl[3] = { { 0 } };
		bool mine = true, is_int;
		int i;
		double ft;

		if (!line.len) {
			if (c->p >= c->end)
				break;
			return perr(ps, c->lineno, "expected a row of %d fields, got an empty line",
				    pl->nfields);
		}
		if (pl->keyed) {
			struct pm_key k = pm_key(line);

			if (!key->f[0].s)
				*key = k;
			mine = pm_key_eq(&k, key);
			if (count) {
				size_t j;

				for (j = 0; j < pl->nchains; j++)
					if (pm_key_eq(&pl->chains[j].key, &k))
						break;
				if (j == pl->nchains && pl->nchains < PM_MAX_CHAINS)
					pl->chains[pl->nchains++] = (struct pm_chain){ k, 0 };
				if (j < pl->nchains)
					pl->chains[j].rows++;
				else
					pl->other_rows++;
			}
		}
		if (!mine)
			continue;
		i = split_fields(line, want, fl);
		if (i != pl->nfields) {
			if (!c->last_had_nl && i < pl->nfields) {
				note(ps, "line %zu: last line cut short (%d of %d fields, no newline): "
				     "left out", c->lineno, i, pl->nfields);
				break;
			}
			return perr(ps, c->lineno, "expected %d fields as in the header on line "
				    "%zu, got %d", pl->nfields, pl->header_line, i);
		}
		r = read_ft(ps, c->lineno, fl[0], what, &ft, &is_int);
		if (r < 0)
			return r;
		if (r > 0 && (r = push_ft(ps, ft)) < 0)
			return r;
	}
	return 0;
}

static int parse_presentmon(struct parse *ps, struct cursor *c)
{
	struct span line, header;
	struct pm_key key = { { { NULL, 0 } } };
	const char *fmt;
	struct pm_log *pl;
	struct cursor data;
	struct frames *f = ps->f;
	size_t best = 0, total = 0;
	int r;

	do {
		if (!next_line(c, &line))
			return perr(ps, 0, "empty file: expected a frame log");
	} while (!trim(line).len);
	header = line;
	pl = calloc(1, sizeof(*pl));
	if (!pl)
		return -ENOMEM;
	pl->header_line = c->lineno;
	if ((pl->i_ft = field_index(header, "MsBetweenPresents", &pl->nfields)) >= 0) {
		pl->col = "MsBetweenPresents";
		fmt = "presentmon";
	} else if ((pl->i_ft = field_index(header, "msBetweenPresents", &pl->nfields)) >= 0) {
		pl->col = "msBetweenPresents";
		fmt = "presentmon-v1";
	} else if ((pl->i_ft = field_index(header, "FrameTime", &pl->nfields)) >= 0) {
		pl->col = "FrameTime";
		fmt = "presentmon-v2";
	} else {
		free(pl);
		return perr_got(ps, c->lineno, header,
				"expected a PresentMon CSV header with msBetweenPresents (v1), "
				"FrameTime (v2) or MsBetweenPresents");
	}
	snprintf(f->format, sizeof(f->format), "%s", fmt);
	pl->keyed = field_index(header, "Application", NULL) == 0 &&
		    field_index(header, "ProcessID", NULL) == 1 &&
		    field_index(header, "SwapChainAddress", NULL) == 2;

	/* one pass parses the first row's swap chain and counts them all; a
	 * second (released pages come back from the page cache) is needed only
	 * when another chain has more rows */
	data = *c;
	if ((r = pm_pass(ps, c, pl, &key, true)) < 0)
		goto out;
	for (size_t i = 0; i < pl->nchains; i++) {
		total += pl->chains[i].rows;
		if (pl->chains[i].rows > pl->chains[best].rows)
			best = i;
	}
	if (best != 0) {
		f->n = 0;
		ps->zero_rows = 0;
		sb_reset(&ps->notes);
		key = pl->chains[best].key;
		*c = data;
		if ((r = pm_pass(ps, c, pl, &key, false)) < 0)
			goto out;
	}
	if (!f->n) {
		r = perr(ps, 0, "no frames after the header on line %zu", pl->header_line);
		goto out;
	}
	if (pl->nchains > 1 || pl->other_rows) {
		const struct pm_key *k = &pl->chains[best].key;

		note(ps, "%zu swap chains in the log; kept '%.*s,%.*s,%.*s' (%zu frames), left out "
		     "%zu rows of the others", pl->nchains + (pl->other_rows ? 1 : 0),
		     (int)k->f[0].len, k->f[0].s, (int)k->f[1].len, k->f[1].s, (int)k->f[2].len,
		     k->f[2].s, pl->chains[best].rows, total + pl->other_rows - pl->chains[best].rows);
	}
	note(ps, "%s: frame times from column %s; frame ends from their running sum", fmt,
	     pl->col);
out:
	free(pl);
	return r;
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
		if (r > 0 && (r = push_ft(ps, ft)) < 0)
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

/*
 * Sizes F's arrays (still empty) for the frames [P, END) likely holds, so
 * that they rarely grow by copying (an hour's log would otherwise copy 8 MB
 * about ten times). The line count of the first 64 KB, scaled to the whole,
 * plus a quarter: counting every line would read the whole buffer twice.
 * Untouched capacity costs address space, not memory. frames_push() grows
 * the arrays as usual past the estimate. Uses struct frames' fields.
 */
/*
 * An array of N doubles for frames_free() to free(). Big ones are aligned to
 * 2 MB and asked for transparent huge pages: filling 8 MB of fresh 4 KB
 * pages took a fault each, most of the parse time of an hour's log here.
 */
static double *alloc_array(size_t n)
{
	const size_t huge = 2u << 20;
	size_t bytes = n * sizeof(double);
	void *p;

	if (bytes < 2 * huge)
		return malloc(bytes);
	bytes = (bytes + huge - 1) & ~(huge - 1);
	if (posix_memalign(&p, huge, bytes) != 0)
		return NULL;
	madvise(p, bytes, MADV_HUGEPAGE);
	return p;
}

static int frames_reserve_lines(struct frames *f, const char *p, const char *end)
{
	size_t len = (size_t)(end - p), head = len < 65536 ? len : 65536, lines = 1, n;
	const char *q = p, *hend = p + head;
	double *a, *b;

	while (q < hend && (q = memchr(q, '\n', (size_t)(hend - q)))) {
		lines++;
		q++;
	}
	n = (size_t)((double)lines * ((double)len / (double)(head ? head : 1)) * 1.25) + 1024;
	a = alloc_array(n);
	b = alloc_array(n);
	if (!a || !b) {
		free(a);
		free(b);
		return -ENOMEM;
	}
	free(f->ft_ms);
	free(f->t_s);
	f->ft_ms = a;
	f->t_s = b;
	f->alloc = n;
	return 0;
}

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

/* framelog_parse, with RELEASE as in struct cursor (may be NULL). */
static int parse_buf(const char *buf, size_t len, const char *name, enum framelog_format fmt,
		     struct frames **ret, struct strbuf *msg,
		     void (*release)(const char *from, const char *to))
{
	struct parse ps = { .name = name ? name : "-", .msg = msg };
	struct cursor c = { buf, buf + len, 0, false, release, buf };
	int r;
	sb_init(&ps.notes);
	/* a UTF-8 byte order mark (PresentMon writes one) */
	if (len >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0)
		c.p += 3;
	if (fmt == FRAMELOG_AUTO && (r = detect(&ps, c, &fmt)) < 0)
		return r;
	ps.f = frames_new();
	if (!ps.f || frames_reserve_lines(ps.f, c.p, c.end) < 0) {
		frames_free(ps.f);
		if (msg)
			sb_addf(msg, "'%s': out of memory", ps.name);
		return -ENOMEM;
	}
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

int framelog_parse(const char *buf, size_t len, const char *name, enum framelog_format fmt,
		   struct frames **ret, struct strbuf *msg)
{
	return parse_buf(buf, len, name, fmt, ret, msg, NULL);
}

/* Drops the whole pages of [FROM, TO) of a read-only file mapping from memory. */
static void release_pages(const char *from, const char *to)
{
	uintptr_t page = 4096, a = ((uintptr_t)from + page - 1) & ~(page - 1);
	uintptr_t b = (uintptr_t)to & ~(page - 1);

	if (b > a)
		madvise((void *)a, b - a, MADV_DONTNEED);
}

/* Reads all of FP into SB; 0 or a negative errno. */
static int read_stream(FILE *fp, struct strbuf *sb)
{
	for (;;) {
		size_t got;

		if (sb_grow(sb, sb->len < 65536 ? 65536 : sb->len) < 0)
			return -ENOMEM;
		got = fread(sb->buf + sb->len, 1, sb->alloc - sb->len - 1, fp);
		sb->len += got;
		sb->buf[sb->len] = '\0';
		if (got == 0)
			return ferror(fp) ? -EIO : 0;
	}
}

int framelog_read(const char *path, enum framelog_format fmt, struct frames **ret,
		  struct strbuf *msg)
{
	struct strbuf sb = STRBUF_INIT;
	struct stat st;
	FILE *fp;
	int fd = -1, r;

	if (strcmp(path, "-") == 0) {
		fp = stdin;
		goto stream;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		r = -errno;
		goto fail;
	}
	/* a regular file is mapped: no copy, and the page cache backs it */
	if (S_ISREG(st.st_mode) && st.st_size > 0) {
		size_t len = (size_t)st.st_size;
		void *map = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);

		if (map != MAP_FAILED) {
			close(fd);
			madvise(map, len, MADV_SEQUENTIAL);
			r = parse_buf(map, len, path, fmt, ret, msg, release_pages);
			munmap(map, len);
			return r;
		}
	}
	fp = fdopen(fd, "rb");
	if (!fp) {
		r = -errno;
		goto fail;
	}
	fd = -1;	/* fp owns it now */
stream:
	r = read_stream(fp, &sb);
	if (fp != stdin)
		fclose(fp);
	if (r < 0)
		goto fail;
	r = framelog_parse(sb.buf, sb.len, path, fmt, ret, msg);
	sb_release(&sb);
	return r;
fail:
	if (fd >= 0)
		close(fd);
	if (msg)
		sb_addf(msg, "'%s': %s", path, strerror(-r));
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
