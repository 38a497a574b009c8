// SPDX-License-Identifier: MIT
/*
 * report.c: `stallscope report [options] INPUT...`: the frame metrics of
 * frame logs and run directories (docs/METRICS.md), one row per input, as an
 * aligned table, CSV or JSON. The analysis itself is analyse.c's
 * (report.h), shared with `matrix`.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "core/num.h"
#include "core/runini.h"
#include "cmd/cmd.h"
#include "cmd/report.h"
#include "cmd/report_threads.h"
#include "out/json.h"
#include "out/table.h"
#include "out/term.h"

#define DEFAULT_COLS                                                                       \
	"source,frames,fps,smooth_fps,median_ms,p99_ms,low1,low01,stalls,stall_s,stall_why," \
	"longest_ms,stutter_pct,stalls_warm,stalls_play,low1_play,reload_n,intf"

/* Columns beyond the metrics. */
enum col_kind { COL_METRIC, COL_SOURCE, COL_FORMAT, COL_PROGRAM, COL_VARIANT, COL_MH, COL_CFX,
		COL_WHY, COL_WHY_PLAY, COL_INTF, COL_FAILED };

struct col {
	enum col_kind kind;
	int metric;		/* COL_METRIC */
	int sub;		/* COL_MH / COL_CFX: index below */
	char name[48];
};

static const char *const mh_keys[] = { "fps_0_1_min", "fps_1_min", "fps_97", "fps_avg" };
static const char *const cfx_keys[] = { "p1", "p0_1", "low1_avg", "low1_integral" };

static double mh_val(const struct compat_mangohud *m, int i)
{
	const double v[] = { m->fps_0_1_min, m->fps_1_min, m->fps_97, m->fps_avg };

	return v[i];
}

static double cfx_val(const struct compat_capframex *c, int i)
{
	const double v[] = { c->p1, c->p0_1, c->low1_avg, c->low1_integral };

	return v[i];
}

/* Parses one column name into *c; 0 or -1 (unknown). */
static int col_parse(const char *name, struct col *c)
{
	size_t i;

	memset(c, 0, sizeof(*c));
	snprintf(c->name, sizeof(c->name), "%s", name);
	if (!strcmp(name, "source"))
		c->kind = COL_SOURCE;
	else if (!strcmp(name, "format"))
		c->kind = COL_FORMAT;
	else if (!strcmp(name, "program"))
		c->kind = COL_PROGRAM;
	else if (!strcmp(name, "variant"))
		c->kind = COL_VARIANT;
	else if (!strcmp(name, "stall_why"))
		c->kind = COL_WHY;
	else if (!strcmp(name, "stall_why_play"))
		c->kind = COL_WHY_PLAY;
	else if (!strcmp(name, "intf"))
		c->kind = COL_INTF;
	else if (!strcmp(name, "failed"))
		c->kind = COL_FAILED;
	else if ((c->metric = metric_find(name)) >= 0)
		c->kind = COL_METRIC;
	else {
		for (i = 0; i < 4; i++) {
			char buf[48];

			snprintf(buf, sizeof(buf), "mangohud.%s", mh_keys[i]);
			if (!strcmp(name, buf)) {
				c->kind = COL_MH;
				c->sub = (int)i;
				return 0;
			}
			snprintf(buf, sizeof(buf), "capframex.%s", cfx_keys[i]);
			if (!strcmp(name, buf)) {
				c->kind = COL_CFX;
				c->sub = (int)i;
				return 0;
			}
		}
		return -1;
	}
	return 0;
}

/* Every column, for --cols all and --csv. */
static int cols_all(struct col **ret, size_t *ret_n)
{
	struct col *c = calloc(4 + M_COUNT + 8 + 4, sizeof(*c));
	size_t n = 0;
	int i;
	char buf[48];

	if (!c)
		return -ENOMEM;
	col_parse("source", &c[n++]);
	col_parse("format", &c[n++]);
	col_parse("program", &c[n++]);
	col_parse("variant", &c[n++]);
	for (i = 0; i < M_COUNT; i++)
		col_parse(metric_descs[i].name, &c[n++]);
	col_parse("stall_why", &c[n++]);
	col_parse("stall_why_play", &c[n++]);
	col_parse("intf", &c[n++]);
	col_parse("failed", &c[n++]);
	for (i = 0; i < 4; i++) {
		snprintf(buf, sizeof(buf), "mangohud.%s", mh_keys[i]);
		col_parse(buf, &c[n++]);
	}
	for (i = 0; i < 4; i++) {
		snprintf(buf, sizeof(buf), "capframex.%s", cfx_keys[i]);
		col_parse(buf, &c[n++]);
	}
	*ret = c;
	*ret_n = n;
	return 0;
}

/* Parses --cols LIST; 0, or -1 after a usage error. */
static int cols_parse(const char *list, struct col **ret, size_t *ret_n)
{
	char *copy, *tok, *save = NULL;
	struct col *c;
	size_t n = 1, k = 0;
	const char *p;

	if (!strcmp(list, "all"))
		return cols_all(ret, ret_n) < 0 ? cli_error_errno(-ENOMEM, "--cols") : 0;
	for (p = list; *p; p++)
		n += *p == ',';
	c = calloc(n, sizeof(*c));
	copy = strdup(list);
	if (!c || !copy) {
		free(c);
		free(copy);
		return cli_error_errno(-ENOMEM, "--cols");
	}
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (col_parse(tok, &c[k]) < 0) {
			cli_usage_error("option '--cols': unknown column '%s' (see 'stallscope "
					"report --help' and docs/METRICS.md)", tok);
			free(c);
			free(copy);
			return -1;
		}
		k++;
	}
	free(copy);
	if (!k) {
		free(c);
		cli_usage_error("option '--cols': expected column names, got '%s'", list);
		return -1;
	}
	*ret = c;
	*ret_n = k;
	return 0;
}

/* stall_why's cell: the cause column with the most stall seconds, NULL
 * ("-", JSON null) when there is none. */
static const char *why_name(int why)
{
	return why < 0 ? NULL : cause_col_name((enum cause_col)why);
}

static int add_cell(struct table *t, const struct col *c, const struct analysis *a)
{
	switch (c->kind) {
	case COL_SOURCE:
		return table_add(t, a->source);
	case COL_FORMAT:
		return table_add(t, a->format);
	case COL_PROGRAM:
		return table_add(t, a->program);
	case COL_VARIANT:
		return table_add(t, a->variant);
	case COL_MH:
		return table_add_num(t, mh_val(&a->mh, c->sub), 1);
	case COL_CFX:
		return table_add_num(t, cfx_val(&a->cfx, c->sub), 1);
	case COL_WHY:
		return table_add(t, why_name(a->why));
	case COL_WHY_PLAY:
		return table_add(t, why_name(a->why_play));
	case COL_INTF:
		return a->interfered < 0 ? table_add(t, NULL) : table_addf(t, "%d", a->interfered);
	case COL_FAILED:
		return table_add(t, a->failure ? "1" : "0");
	case COL_METRIC:
		break;
	}
	return table_add_num(t, a->m.v[c->metric], metric_descs[c->metric].decimals);
}

static bool want_threads;	/* --threads: print_json adds them */

/* What the text looks like on a terminal (out/term.h). */
struct report_view {
	bool color;		/* stall_why by cause, !! lines red */
	bool transpose;		/* one input wider than WIDTH: a column a line */
	size_t width;
};

/* add_cell, stall_why's cells in their cause's colour when V says so. */
static int add_cell_v(struct table *t, const struct col *c, const struct analysis *a,
		      const struct report_view *v)
{
	int r = add_cell(t, c, a);

	if (!r && v && v->color && (c->kind == COL_WHY || c->kind == COL_WHY_PLAY))
		r = table_set_sgr(t, term_cause_sgr(why_name(c->kind == COL_WHY ? a->why
										   : a->why_play)));
	return r;
}

/* The one tabled input's table turned: "name  value", a column a line. */
static struct table *transposed(const struct analysis *a, const struct col *cols, size_t ncols,
				const struct report_view *v)
{
	static const char *const hdr[] = { "", "" };
	struct table *t = table_new(2, hdr);
	int r = 0;

	if (!t)
		return NULL;
	table_hide_header(t);
	for (size_t k = 0; k < ncols && !r; k++) {
		r = table_add(t, cols[k].name);
		r = r ? r : add_cell_v(t, &cols[k], a, v);
	}
	if (r) {
		table_free(t);
		return NULL;
	}
	return t;
}

static void print_json(const struct analysis *as, size_t n)
{
	struct json j;
	size_t i, k;
	int m;

	json_init(&j, stdout, true);
	json_arr_begin(&j);
	for (i = 0; i < n; i++) {
		const struct analysis *a = &as[i];

		json_obj_begin(&j);
		json_kstr(&j, "source", a->source);
		json_kstr(&j, "format", a->format);
		json_kstr(&j, "program", a->program);
		json_kstr(&j, "variant", a->variant);
		json_knum(&j, "warmup_s", a->mo.warmup_s);
		json_knum(&j, "from_s", a->mo.from_s);
		json_knum(&j, "to_s", a->mo.to_s);
		json_knum(&j, "stall_ms", a->mo.stall_ms);
		if (a->interfered < 0)
			json_knull(&j, "intf");
		else
			json_kint(&j, "intf", a->interfered);
		json_kstr(&j, "interference", a->interference);
		json_kstr(&j, "frames_note", a->frames_note);
		json_kbool(&j, "failed", a->failure != NULL);
		json_kstr(&j, "failure", a->failure);
		for (m = 0; m < M_COUNT; m++)
			json_knum(&j, metric_descs[m].name, a->m.v[m]);
		json_kstr(&j, "stall_why", why_name(a->why));
		json_kstr(&j, "stall_why_play", why_name(a->why_play));
		json_key(&j, "compat");
		json_obj_begin(&j);
		json_key(&j, "mangohud");
		json_obj_begin(&j);
		json_kstr(&j, "style", a->mh_style == COMPAT_MANGOHUD_06 ? "0.6" : "0.7");
		for (k = 0; k < 4; k++)
			json_knum(&j, mh_keys[k], mh_val(&a->mh, (int)k));
		json_obj_end(&j);
		json_key(&j, "capframex");
		json_obj_begin(&j);
		for (k = 0; k < 4; k++)
			json_knum(&j, cfx_keys[k], cfx_val(&a->cfx, (int)k));
		json_obj_end(&j);
		json_obj_end(&j);
		report_recorder_json(&j, a);
		if (want_threads)
			report_threads_json(&j, a);
		json_key(&j, "notes");
		json_arr_begin(&j);
		for (k = 0; k < a->m.nnotes; k++)
			json_str(&j, a->m.notes[k]);
		json_arr_end(&j);
		json_obj_end(&j);
	}
	json_arr_end(&j);
	json_end(&j);
}

/* Below the table: the interfered runs (intf 1), each with what disturbed it. */
static void print_interfered(const struct analysis *as, size_t n, bool included)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++) {
		if (as[i].interfered != 1)
			continue;
		if (!k++)
			printf("\ninterfered runs (intf 1; %s):\n",
			       included ? "kept by --include-interfered"
					: "left out of medians and matrices, --include-interfered "
					  "keeps them");
		printf("  %s: %s\n", cli_shown(as[i].source),
		       cli_shown(as[i].interference ? as[i].interference : "interfered"));
	}
}

/* Below the table: the failed runs, loudly (their notes say it too). */
static void print_failed(const struct analysis *as, size_t n, bool included, bool color)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++) {
		if (!as[i].failure)
			continue;
		if (!k++)
			printf("\n%s!! FAILED runs (%s):%s\n", color ? TERM_SGR_RED : "",
			       included ? "kept in medians and matrices by --include-failed"
					: "left out of medians and matrices, --include-failed keeps "
					  "them",
			       color ? TERM_SGR_RESET : "");
		printf("  %s: %s\n", cli_shown(as[i].source), cli_shown(as[i].failure));
	}
}

/* A recorded run with no frame at all: the text table leaves it out and
 * says why below it, rather than print a row of zeros. */
static bool no_frames(const struct analysis *a)
{
	const char *n = a->ini ? runini_get(a->ini, "frames") : NULL;

	return a->frames_note && n && !strcmp(n, "0");
}

/* A note without the "'SOURCE': " its input may start it with, so that
 * the same note of several inputs reads the same. */
static const char *note_text(const struct analysis *a, const char *note)
{
	size_t n = strlen(a->source);

	if (note[0] == '\'' && !strncmp(note + 1, a->source, n) && !strncmp(note + 1 + n, "': ", 3))
		return note + n + 4;
	return note;
}

/* One note of one input, for grouping the notes of many. */
struct note_ref {
	const char *text;	/* note_text() of it */
	size_t input, k;	/* as[input].m.notes[k] */
	size_t inputs;		/* inputs that have the same text */
};

static int ref_by_text(const void *a, const void *b)
{
	const struct note_ref *x = a, *y = b;
	int c = strcmp(x->text, y->text);

	if (c)
		return c;
	return x->input != y->input ? (x->input < y->input ? -1 : 1)
				    : (x->k < y->k ? -1 : x->k > y->k);
}

static int ref_by_place(const void *a, const void *b)
{
	const struct note_ref *x = a, *y = b;

	return x->input != y->input ? (x->input < y->input ? -1 : 1)
				    : (x->k < y->k ? -1 : x->k > y->k);
}

/*
 * Below the table: the notes. A note several inputs share is said once,
 * with how many ("47 inputs: no warm-up ..."), in the order it first
 * appears, before the notes each input has alone; 50 inputs would
 * otherwise print 150 near-identical lines. Sorting the notes by text
 * groups them in O(N log N). 0 or -ENOMEM.
 */
static int print_notes(const struct analysis *as, size_t n)
{
	struct note_ref *refs;
	size_t nrefs = 0, tabled = 0, i, j;

	for (i = 0; i < n; i++)
		if (!no_frames(&as[i])) {
			tabled++;
			nrefs += as[i].m.nnotes;
		}
	refs = calloc(nrefs ? nrefs : 1, sizeof(*refs));
	if (!refs)
		return -ENOMEM;
	nrefs = 0;
	for (i = 0; i < n; i++)
		for (size_t k = 0; !no_frames(&as[i]) && k < as[i].m.nnotes; k++)
			refs[nrefs++] = (struct note_ref){ note_text(&as[i], as[i].m.notes[k]), i, k,
							   1 };
	qsort(refs, nrefs, sizeof(*refs), ref_by_text);
	for (i = 0; i < nrefs; i = j) {
		size_t distinct = 1;

		for (j = i + 1; j < nrefs && !strcmp(refs[j].text, refs[i].text); j++)
			distinct += refs[j].input != refs[j - 1].input;
		for (size_t g = i; g < j; g++)
			refs[g].inputs = distinct;
		/* the group's first (by place) stands for it; the rest are said by it */
		for (size_t g = i + 1; g < j && distinct > 1; g++)
			refs[g].inputs = 0;
	}
	qsort(refs, nrefs, sizeof(*refs), ref_by_place);
	for (i = j = 0; i < nrefs; i++) {
		if (refs[i].inputs < 2 || tabled < 2)
			continue;
		printf("%s%s%zu inputs: %s\n", j++ ? "" : "\n",
		       refs[i].inputs == tabled ? "all " : "", refs[i].inputs,
		       cli_shown(refs[i].text));
	}
	for (i = 0; i < nrefs; i = j) {
		bool head = false;

		for (j = i; j < nrefs && refs[j].input == refs[i].input; j++) {
			const struct analysis *a = &as[refs[j].input];

			if (tabled > 1 && refs[j].inputs != 1)
				continue;
			if (!head)
				printf("\n%s:\n", cli_shown(a->source));
			head = true;
			printf("  %s\n", cli_shown(a->m.notes[refs[j].k]));
		}
	}
	free(refs);
	return 0;
}


/* Parses "S,S,..." (seconds >= 0) for --pass into a new array; 0, or -1
 * after a usage error was printed. */
static int parse_passes(const char *arg, double **ret, size_t *ret_n)
{
	size_t n = 1, k = 0;
	const char *p;
	double *v;

	for (p = arg; *p; p++)
		n += *p == ',';
	v = malloc(n * sizeof(*v));
	if (!v)
		return cli_error_errno(-ENOMEM, "--pass");
	p = arg;
	while (k < n) {
		size_t len = num_decimal_len(p);	/* decimal only, as cli_parse_double */
		char num[64], *end = (char *)p + len;
		double x = NAN;

		if (len && len < sizeof(num)) {
			memcpy(num, p, len);
			num[len] = '\0';
			if (num_parse_double(num, &x) < 0)
				x = NAN;
		}
		if (!len || (*end && *end != ',') || !isfinite(x) || x < 0) {
			free(v);
			cli_usage_error("option '--pass': expected seconds >= 0 separated by "
					"commas, got '%s'", arg);
			return -1;
		}
		v[k++] = x;
		p = *end ? end + 1 : end;
	}
	*ret = v;
	*ret_n = n;
	return 0;
}
/* The table or CSV; 0 or -ENOMEM. */
static int print_table(const struct analysis *as, size_t n, const struct col *cols, size_t ncols,
		       bool csv, const struct report_view *v)
{
	const char **hdr = calloc(ncols + 1, sizeof(*hdr));
	struct table *t;
	size_t i, k;
	int r = 0;

	if (!hdr)
		return -ENOMEM;
	for (k = 0; k < ncols; k++)
		hdr[k] = cols[k].name;
	if (csv)
		hdr[ncols] = "notes";
	t = table_new(ncols + (csv ? 1 : 0), hdr);
	free(hdr);
	if (!t)
		return -ENOMEM;
	for (i = 0; i < n && !r; i++) {
		if (!csv && no_frames(&as[i]))
			continue;
		for (k = 0; k < ncols && !r; k++)
			r = add_cell_v(t, &cols[k], &as[i], csv ? NULL : v);
		if (csv && !r) {
			struct strbuf sb = STRBUF_INIT;

			for (k = 0; k < as[i].m.nnotes; k++)
				sb_addf(&sb, "%s%s", k ? "; " : "", as[i].m.notes[k]);
			r = table_add(t, sb.buf);
			sb_release(&sb);
		}
	}
	for (i = k = 0; i < n; i++)
		k += !no_frames(&as[i]);
	if (!r && !csv && k == 1 && v->transpose && table_width(t) > v->width) {
		/* one input wider than the terminal: its columns down the page */
		struct table *tt = NULL;

		for (i = 0; i < n && no_frames(&as[i]); i++)
			;
		tt = transposed(&as[i], cols, ncols, v);
		if (!tt)
			r = -ENOMEM;
		table_free(t);
		t = tt;
	}
	if (!r) {
		if (csv)
			table_print_csv(t, stdout);
		else if (k)
			table_print(t, stdout);
	}
	table_free(t);
	if (r || csv)
		return r;
	r = print_notes(as, n);
	if (r < 0)
		return r;
	for (i = k = 0; i < n; i++) {
		if (!no_frames(&as[i]))
			continue;
		if (!k++)
			printf("\n%s!! runs with no frames (not in the table):%s\n",
			       v->color ? TERM_SGR_RED : "", v->color ? TERM_SGR_RESET : "");
		printf("  %s: %s\n", cli_shown(as[i].source), cli_shown(as[i].frames_note));
	}
	return 0;
}

/* --pass S,...: the values into O->pass (replacing an earlier --pass). */
static int take_pass(const struct opt *opt, const char *arg)
{
	struct report_options *o = opt->value;

	free(o->pass);
	o->pass = NULL;
	if (parse_passes(arg, &o->pass, &o->a.npass) < 0)
		return -1;
	o->a.pass = o->pass;
	o->a.pass_given = true;
	return 0;
}

static int take_format(const struct opt *opt, const char *arg)
{
	struct report_options *o = opt->value;

	if (framelog_format_parse(arg, &o->a.fmt) < 0)
		return opts_error("option '--format': expected auto, mangohud, presentmon "
				       "or plain, got '%s'", arg);
	return 0;
}

void report_tables_init(struct report_tables *t, struct report_options *o)
{
	const struct opt base[] = {
		{ .kind = OPTK_DOUBLE, .long_name = "warmup", .value = &o->a.m.warmup_s,
		  .argh = "S", .min = 0, .max = OPT_SECONDS_MAX, .given = &o->a.window_given,
		  .help = "leave the first S seconds out of the window (default 60,\n"
			  "from the first frame's start); reported as *_warm. Without\n"
			  "it (and the window's ends) a run directory's run.ini window\n"
			  "(warmup_s, window_from_s, window_to_s; bench's) applies" },
		OPT_DOUBLE(0, "stall-ms", &o->a.m.stall_ms, "MS", 0, 1e9,
			   "a stall is a frame over MS milliseconds (default 100)"),
		OPT_STRING(0, "rules", &o->rules, "FILE",
			   "reload rules (default: the installed reload-rules.ini)"),
		OPT_END(),
	};
	const struct opt analysis[] = {
		OPT_CONCAT(t->base),
		{ .kind = OPTK_DOUBLE, .long_name = "from", .value = &o->a.m.from_s, .argh = "S",
		  .min = 0, .max = OPT_SECONDS_MAX, .given = &o->a.window_given,
		  .help = "the window starts S seconds after the first frame's start\n"
			  "(instead of the warm-up's end)" },
		{ .kind = OPTK_DOUBLE, .long_name = "to", .value = &o->a.m.to_s, .argh = "S",
		  .min = 0, .max = OPT_SECONDS_MAX, .given = &o->a.window_given,
		  .help = "the window ends S seconds after the first frame's start" },
		OPT_CALLBACK(0, "pass", o, "S,...",
			     "pass start times in seconds (instead of run.ini's)", take_pass),
		OPT_END(),
	};
	const struct opt logs[] = {
		OPT_CALLBACK(0, "format", o, "F", "auto (default), mangohud, presentmon or plain",
			     take_format),
		OPT_STRING(0, "program", &o->a.program, "NAME",
			   "the program whose reload rule applies to frame logs"),
		OPT_END(),
	};
	const struct opt runs[] = {
		OPT_STRING(0, "interfered-list", &o->intf_list, "FILE",
			   "run names known to be disturbed (one a line, as\n"
			   "watch's scan writes them): marked interfered"),
		OPT_BOOL(0, "include-interfered", &o->include_interfered,
			 "keep interfered runs (intf 1) in medians and\n"
			 "matrices; without it they are listed and left out"),
		OPT_BOOL(0, "include-failed", &o->include_failed,
			 "failed runs (the program failed, no frames, ended short;\n"
			 "column failed) count in medians and matrices; without it\n"
			 "they are listed and left out"),
		OPT_END(),
	};

	memcpy(t->base, base, sizeof(base));
	memcpy(t->analysis, analysis, sizeof(analysis));
	memcpy(t->logs, logs, sizeof(logs));
	memcpy(t->runs, runs, sizeof(runs));
}

int report_options_check(const struct report_options *o)
{
	if (!isnan(o->a.m.from_s) && !isnan(o->a.m.to_s) && o->a.m.from_s >= o->a.m.to_s) {
		cli_usage_error("option '--to': expected a time after --from (%g), got %g",
				o->a.m.from_s, o->a.m.to_s);
		return OPTS_ERROR;
	}
	return 0;
}

void report_options_release(struct report_options *o)
{
	free(o->pass);
	o->pass = NULL;
}

int report_take_color(const struct opt *opt, const char *arg)
{
	enum term_color *color = opt->value;

	if (!arg)
		*color = TERM_COLOR_ALWAYS;
	else if (term_color_parse(arg, color) < 0)
		return opts_error("option '--color': expected always, auto or never, got '%s'",
				       arg);
	return 0;
}

static const struct opts_help report_help = {
	"usage: stallscope report [options] INPUT...\n"
	"\n"
	"Frame metrics of each INPUT: a frame log (MangoHud CSV, PresentMon CSV, one\n"
	"frame time in ms a line) or a run directory (run.ini, record.ssr, program.log).\n"
	"Stalls (frames over --stall-ms) come first; every column is defined in\n"
	"docs/METRICS.md. A value that cannot be computed prints '-' (JSON null) and a\n"
	"note says why.\n"
	"\n",
	"EXAMPLES\n"
	"  stallscope report mangohud.csv\n"
	"  stallscope report --warmup 0 --cols source,fps,stalls,longest_ms *.csv\n"
	"  stallscope report --json runs/2026*-ioquake3-*/ > metrics.json\n"
	"  stallscope report --threads --warmup 10 runs/2026*-game/\n"
	"  stallscope report --program ioquake3 --pass 0,95.5,191 --rules my.ini log.csv\n",
};

int cmd_report(int argc, char **argv)
{
	struct report_options o = {
		.a = { .m = METRICS_OPTS_INIT, .fmt = FRAMELOG_AUTO },
	};
	struct report_tables rt;
	bool wide = false, threads = false;
	enum term_color color = TERM_COLOR_AUTO;
	const struct opt opts[] = {
		OPT_CONCAT(rt.analysis),
		OPT_CONCAT(rt.logs),
		OPT_STRING(0, "cols", &o.cols, "LIST",
			   "columns to print, comma-separated, or 'all'; names are the\n"
			   "metrics, source, format, program, variant, mangohud.KEY and\n"
			   "capframex.KEY"),
		OPT_BOOL(0, "csv", &o.csv, "CSV (every column unless --cols; notes in the last column)"),
		OPT_BOOL(0, "json", &o.json, "a JSON array, one object per input"),
		OPT_BOOL(0, "threads", &threads,
			 "per run directory: each thread's CPU ms per frame over the\n"
			 "window, its share of one CPU and the CPU it ran on most"),
		OPT_CONCAT(rt.runs),
		OPT_BOOL(0, "wide", &wide,
			 "one input on a terminal: the table as piped, even when it is\n"
			 "wider than the terminal (default: then a column a line)"),
		{ .kind = OPTK_CALLBACK, .long_name = "color", .value = &color, .argh = "WHEN",
		  .flags = OPTF_OPTARG, .cb = report_take_color,
		  .help = "colour stall_why by cause and !! lines red: auto (default:\n"
			  "on a terminal, unless NO_COLOR is set), always or never" },
		OPT_END(),
	};
	struct report_view v = { 0 };
	struct reload_rules *rules = NULL;
	struct analysis *as = NULL;
	struct col *cols = NULL;
	struct strbuf emsg = STRBUF_INIT;
	size_t ncols = 0, n = 0, i;
	int first, failed = 0, status = 1;

	report_tables_init(&rt, &o);
	first = opts_parse(argc, argv, opts, &report_help, 0);
	if (first < 0) {
		report_options_release(&o);
		return opts_exit(first);
	}
	if (report_options_check(&o) < 0)
		goto usage;
	if (first == argc) {
		cli_usage_error("expected at least one INPUT (a frame log or a run directory)");
		goto usage;
	}
	v.color = !o.json && !o.csv && term_color_on(color, 1);
	v.transpose = !wide && isatty(1) == 1;
	v.width = term_width(1);
	if (o.csv && o.json) {
		cli_usage_error("expected one of --csv and --json, got both");
		goto usage;
	}
	if (threads && o.csv) {
		cli_usage_error("option '--threads' does not apply to --csv");
		goto usage;
	}
	if (o.json && o.cols) {
		cli_usage_error("option '--cols' does not apply to --json");
		goto usage;
	}
	if (!o.json) {
		int r;

		if (o.cols)
			r = cols_parse(o.cols, &cols, &ncols);
		else if (o.csv)
			r = cols_all(&cols, &ncols) < 0 ? cli_error_errno(-ENOMEM, "--csv") : 0;
		else
			r = cols_parse(DEFAULT_COLS, &cols, &ncols);
		if (r < 0)
			goto usage;
	}
	if (cli_failed(analyse_load_rules(o.rules, &rules, &o.a.rules_name, &emsg), &emsg))
		goto out;
	o.a.rules = rules;
	if (o.intf_list &&
	    cli_failed(analyse_load_intf_list(o.intf_list, &o.a.intf_list, &emsg), &emsg))
		goto out;
	o.a.intf_list_name = o.intf_list;
	as = calloc(argc - first, sizeof(*as));
	if (!as) {
		cli_error_errno(-ENOMEM, "inputs");
		goto out;
	}
	for (i = first; i < (size_t)argc; i++) {
		if (cli_failed(analyse_input(argv[i], &o.a, &as[n], &emsg), &emsg))
			failed++;
		else
			n++;
	}
	want_threads = threads;
	if (n) {
		if (o.json)
			print_json(as, n);
		else if (print_table(as, n, cols, ncols, o.csv, &v) < 0)
			failed = cli_error_errno(-ENOMEM, "table");
		if (threads && !o.json && report_threads_print(as, n) < 0)
			failed = 1;
		if (!o.json && !o.csv) {
			print_interfered(as, n, o.include_interfered);
			print_failed(as, n, o.include_failed, v.color);
		}
	}
	for (i = 0; i < n && !failed; i++)
		if (!no_frames(&as[i]))
			break;
	status = failed || (n && i == n) ? 1 : 0;
out:
	for (i = 0; i < n; i++)
		analysis_release(&as[i]);
	free(as);
	free(cols);
	report_options_release(&o);
	analyse_free_list(o.a.intf_list);
	reload_rules_free(rules);
	sb_release(&emsg);
	return status;
usage:
	free(cols);
	report_options_release(&o);
	return EXIT_USAGE;
}
