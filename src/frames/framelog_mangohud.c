// SPDX-License-Identifier: MIT
/*
 * framelog_mangohud.c: MangoHud's CSV log (0.6.x to 0.8.x): the version and
 * system-info lines, the header, then one row a frame; frame times in ms or
 * (0.6) us, decided over the whole log; elapsed in ns since logging started.
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
#include "frames/framelog_int.h"

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
	return span_starts(line, "fps,") && fl_has_field(line, "frametime");
}

/* Whether LINE looks like the start of a MangoHud log (for auto-detection). */
bool fl_mh_is_start(struct span line)
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

/* The version a log says it is (major -1: none). */
struct mh_ver {
	int major, minor, patch;
	char text[24];
};

/* Up to the frame header (in *LINE, its number in *HEADER_LINE): v1, the
 * version, separators, the system line and its values. */
static int preamble(struct parse *ps, struct cursor *c, struct span *line, struct mh_ver *v,
		    size_t *header_line)
{
	while (next_line(c, line)) {
		if (mh_is_header(*line)) {
			*header_line = c->lineno;
			break;
		}
		if (c->lineno > 12)
			break;
		if (span_eq(trim(*line), "v1") || span_starts(*line, "---") || !trim(*line).len)
			continue;
		if (span_starts(*line, "os,")) {
			if (!next_line(c, line))	/* the system values */
				break;
			continue;
		}
		if (v->major < 0 && mh_is_version(*line) &&
		    mh_version(*line, &v->major, &v->minor, &v->patch, v->text, sizeof(v->text)))
			continue;
		return fl_perr_got(ps, c->lineno, *line,
				   "expected a MangoHud log line (v1, a version, ---, os,cpu,... "
				   "or "
				   "the frame header fps,frametime,...)");
	}
	if (!*header_line) {
		if (c->lineno == 0)
			return fl_perr(ps, 0, "empty file: expected a frame log");
		return fl_perr(ps, 0,
			       "no MangoHud frame header (fps,frametime,...) in the first %zu "
			       "lines", c->lineno);
	}
	return 0;
}

/* The frames' ends: elapsed when it is there and never decreases, else the
 * running sum of frame times. */
static void times(struct parse *ps, int i_el, size_t elapsed_bad_line)
{
	struct frames *f = ps->f;
	size_t sample_rows = 0;

	if (i_el < 0) {
		fl_times_from_sum(f);
		fl_note(ps, "no elapsed column: frame ends from the running sum of frame times");
	} else if (elapsed_bad_line) {
		fl_times_from_sum(f);
		fl_note(ps, "line %zu: elapsed decreases: frame ends from the running sum of frame "
			"times", elapsed_bad_line);
	} else {
		for (size_t i = 0; i < f->n; i++)
			f->t_s[i] /= 1e9;
		/* rows further apart than twice their frame time are samples */
		for (size_t i = 1; i < f->n; i++)
			if ((f->t_s[i] - f->t_s[i - 1]) * 1e3 > 2 * f->ft_ms[i])
				sample_rows++;
		if (f->n >= 3 && sample_rows * 2 > f->n)
			fl_note(ps,
				"rows are samples (one every %.0f ms on average), not every frame "
				"(MangoHud's log_interval was not 0): counts and shares describe "
				"the samples", (f->t_s[f->n - 1] - f->t_s[0]) * 1e3 /
				(double)(f->n - 1));
	}
}

int fl_parse_mangohud(struct parse *ps, struct cursor *c)
{
	struct span line;
	struct mh_ver ver = { .major = -1 };
	size_t header_line = 0, elapsed_bad_line = 0;
	int nfields = 0, i_ft, i_fps, i_el;
	bool all_int = true, us;
	size_t us_votes = 0, ms_votes = 0;
	double prev_el = -INFINITY;
	struct frames *f = ps->f;
	int r;

	r = preamble(ps, c, &line, &ver, &header_line);
	if (r < 0)
		return r;
	i_ft = fl_field_index(line, "frametime", &nfields);
	i_fps = fl_field_index(line, "fps", NULL);
	i_el = fl_field_index(line, "elapsed", NULL);

	for (;;) {
		const int want[3] = { i_ft, i_fps, i_el };
		struct span fl[3] = { { 0 } };
		struct span ft_s, fps_s, el_s;
		int i;
		double ft, el = NAN;
		bool is_int = true;

		if (!next_row(c, &line, want, fl, &i))
			break;
		ft_s = fl[0];
		fps_s = fl[1];
		el_s = fl[2];
		if (!line.len) {
			if (c->p >= c->end)
				break;
			return fl_perr(ps, c->lineno,
				       "expected a row of %d fields, got an empty line",
				       nfields);
		}
		if (i != nfields) {
			if (!c->last_had_nl && i < nfields) {
				fl_note(ps,
					"line %zu: last line cut short (%d of %d fields, no "
					"newline): left out", c->lineno, i, nfields);
				break;
			}
			return fl_perr(ps, c->lineno, "expected %d fields as in the header on line "
				       "%zu, got %d", nfields, header_line, i);
		}
		r = fl_read_ft(ps, c->lineno, ft_s, "a frame time in column 'frametime'", &ft,
			       &is_int);
		if (r < 0)
			return r;
		if (i_el >= 0) {
			struct span es = trim(el_s);

			if (num_parse(es, &el, NULL) < 0 || el < 0)
				return fl_perr_got(ps, c->lineno, es,
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
		return fl_perr(ps, 0, "no frames after the header on line %zu", header_line);

	/* the unit of frametime, and the version that implies */
	if (ver.major >= 0) {
		us = ver.major == 0 && (ver.minor < 6 || (ver.minor == 6 && ver.patch < 9));
		snprintf(f->format, sizeof(f->format), "mangohud-%s", ver.text);
		if (us != (all_int && us_votes >= ms_votes))
			fl_note(ps, "frametime looks like %s but the log says version %s: %s "
				"assumed", us ? "ms" : "us", ver.text, us ? "us" : "ms");
	} else if (!all_int) {
		/* 0.6.9 wrote float ms with 0.6.x's 12 columns; 0.7 added swap_used, ... */
		us = false;
		snprintf(f->format, sizeof(f->format), "%s",
			 nfields <= 12 ? "mangohud-0.6.9" : "mangohud-0.7");
		fl_note(ps, "mangohud version assumed %s from float frametime (ms) and %d columns",
			nfields <= 12 ? "0.6.9" : "0.7 or later", nfields);
	} else if (i_fps >= 0 && ms_votes > us_votes) {
		us = false;
		snprintf(f->format, sizeof(f->format), "%s",
			 nfields <= 12 ? "mangohud-0.6.9" : "mangohud-0.7");
		fl_note(ps, "mangohud version assumed %s: frametime holds whole numbers but fps "
			"says they are ms", nfields <= 12 ? "0.6.9" : "0.7 or later");
	} else {
		us = true;
		snprintf(f->format, sizeof(f->format), "mangohud-0.6.8");
		fl_note(ps, "mangohud version assumed 0.6.8 from integer frametime (us)");
	}
	if (us)
		for (size_t i = 0; i < f->n; i++)
			f->ft_ms[i] /= 1000.0;

	times(ps, i_el, elapsed_bad_line);
	return 0;
}

