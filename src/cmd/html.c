// SPDX-License-Identifier: MIT
/*
 * html.c: `stallscope html [-o FILE] INPUT...`: one self-contained page of
 * the runs (run directories or frame logs, as report takes them): every
 * frame on a zoomable plot with its warm-up, window and reload segments, the
 * stalls coloured by cause with the evidence `stalls` prints, the report's
 * metrics with METRICS.md's definitions, run.ini's facts (src/out/html.h
 * writes the page, share/html/page.js draws it).
 *
 * The data, per run: the frame ends as gaps in 10 us units (u32,
 * gzip-compressed and base64: the whole run, not a decimated copy), the
 * first frame's end, the segments, the metrics, the stalls, run.ini's keys
 * and the notes.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "cmd/cmd.h"
#include "cmd/html.h"
#include "cmd/html_int.h"
#include "cmd/outfile.h"
#include "cmd/report_threads.h"
#include "cmd/report.h"
#include "cmd/stall_list.h"
#include "core/causes.h"
#include "core/exact.h"
#include "core/runini.h"
#include "out/html.h"
#include "out/json.h"
#include "core/grow.h"
#include "db/db.h"
#include "rec/rec.h"
#include "run/compare.h"

static const char usage_text[] =
	"usage: stallscope html [-o FILE] [options] INPUT...\n"
	"       stallscope html --db PATH [-o FILE] NAME:VARIANT NAME:VARIANT...\n"
	"\n"
	"Writes one self-contained page (no network needed to open it) of the runs\n"
	"(run directories or frame logs, as report takes them): every frame on a\n"
	"zoomable plot (drag to zoom, wheel to zoom, shift+wheel or arrow keys to pan,\n"
	"double-click to reset) with the warm-up, the window and the reload\n"
	"segments; the stalls coloured by cause, with the evidence `stalls` prints,\n"
	"in a sortable table; the report's metrics with their definitions; run.ini.\n"
	"Default output: INPUT/report.html for one run directory, else\n"
	"stallscope-report.html.\n"
	"\n"
	"options:\n"
	"  -o, --output FILE  where the page goes\n"
	"  --db PATH          a comparison from the results database instead: each side\n"
	"                     against the first, as compare computes it, with every\n"
	"                     run's value, and the sides' frame-time percentile curves\n"
	"  --warmup S, --from S, --to S, --stall-ms MS, --rules FILE, --pass S,...\n"
	"                     the analysis, as report's (stallscope-report(1))\n"
	"  -h, --help         this text\n"
	"\n"
	"EXAMPLES\n"
	"  stallscope html runs/2026*-fakegame/\n"
	"  stallscope html -o cmp.html --warmup 0 base/ new/\n";

/* The frame ends as gaps in 10 us units: x is their running sum from the
 * first frame's end, y each gap (the frame time). */
static int frames_data(struct json *j, const struct frames *f)
{
	struct strbuf b64 = STRBUF_INIT;
	uint32_t *gaps;
	int64_t prev;
	int r;

	json_key(j, "frames");
	json_obj_begin(j);
	json_kuint(j, "n", f ? f->n : 0);
	if (!f || !f->n) {
		json_obj_end(j);
		return 0;
	}
	gaps = malloc(f->n * sizeof(*gaps));
	if (!gaps)
		return -ENOMEM;
	prev = llround(f->t_s[0] * 1e5) - llround(f->ft_ms[0] * 100);
	for (size_t i = 0; i < f->n; i++) {
		int64_t t = llround(f->t_s[i] * 1e5), d = t - prev;

		gaps[i] = d < 0 ? 0 : d > UINT32_MAX ? UINT32_MAX : (uint32_t)d;
		prev = t;
	}
	json_knumf(j, "first_end_s", f->t_s[0], 5);
	json_kuint(j, "unit_us", 10);
	/* little-endian u32s: the page reads them with a DataView */
	r = html_b64gz(gaps, f->n * sizeof(*gaps), &b64);
	free(gaps);
	if (r < 0) {
		sb_release(&b64);
		return r;
	}
	json_kstr(j, "gaps_u32le_gz_b64", b64.buf);
	json_obj_end(j);
	sb_release(&b64);
	return 0;
}

static void segments_data(struct json *j, const struct analysis *a)
{
	const struct metrics *m = &a->m;
	const struct frames *f = a->f;

	json_knum(j, "origin_s", m->origin_s);
	json_knum(j, "warmup_end_s", m->origin_s + a->mo.warmup_s);
	json_key(j, "window");
	if (f && m->win_n) {
		json_arr_begin(j);
		json_num(j, f->t_s[m->win_first] - f->ft_ms[m->win_first] / 1000.0);
		json_num(j, f->t_s[m->win_first + m->win_n - 1]);
		json_arr_end(j);
	} else {
		json_null(j);
	}
	json_key(j, "reloads");
	json_arr_begin(j);
	for (size_t k = 0; k < a->nsegs; k++) {
		json_arr_begin(j);
		json_num(j, a->segs[k].start_s);
		json_num(j, a->segs[k].end_s);
		json_arr_end(j);
	}
	json_arr_end(j);
}

static void metrics_data(struct json *j, const struct analysis *a)
{
	json_key(j, "metrics");
	json_arr_begin(j);
	for (int m = 0; m < M_COUNT; m++) {
		json_arr_begin(j);
		json_str(j, metric_descs[m].name);
		json_numf(j, a->m.v[m], metric_descs[m].decimals + 1);
		json_str(j, metric_descs[m].unit);
		json_arr_end(j);
	}
	json_arr_end(j);
}

static void stall_data(struct json *j, const struct rec *rec, const struct stall_item *s,
		       bool warm)
{
	struct strbuf sb = STRBUF_INIT;
	const char *sub = stall_sub_short(s->v.sub);

	json_obj_begin(j);
	json_kuint(j, "frame", s->frame);
	json_knumf(j, "t_s", s->t_s, 6);
	json_knumf(j, "ms", s->ms, 3);
	json_kstr(j, "cause", cause_name(s->v.cause));
	json_kstr(j, "sub", sub);
	json_knumf(j, "share", s->v.share, 4);
	json_kstr(j, "second", s->v.second >= 0 ? cause_name((enum cause)s->v.second) : NULL);
	json_knumf(j, "second_share", s->v.second_share, 4);
	json_kbool(j, "play", s->play);
	json_kbool(j, "warm", warm);
	stall_evidence_text(&sb, &s->e, 3);
	json_kstr(j, "evidence", sb.buf);
	json_key(j, "intervals");
	json_arr_begin(j);
	for (size_t k = 0; k < s->niv; k++) {
		sb_reset(&sb);
		stall_interval_text(&sb, rec, &s->iv[k]);
		json_str(j, sb.buf);
	}
	json_arr_end(j);
	json_kuint(j, "intervals_all", s->niv_all);
	sb_reset(&sb);
	stall_api_text(&sb, s);
	json_kstr(j, "api", sb.len ? sb.buf : NULL);
	json_obj_end(j);
	sb_release(&sb);
}

/* The stalls (the warm-up's, then the window's) and their stacks. */
static int stalls_data(struct json *j, const struct analysis *a)
{
	struct stall_item *win = NULL, *warm = NULL;
	const struct stall_item **all = NULL;
	size_t nwin = 0, nwarm = 0, n = 0;
	int r = 0;

	json_key(j, "stalls");
	json_arr_begin(j);
	if (a->rec && a->f) {
		r = stall_list_build(a, &a->mo, &win, &nwin, &warm, &nwarm);
		all = r ? NULL : malloc((nwarm + nwin + 1) * sizeof(*all));
		if (!r && !all)
			r = -ENOMEM;
		for (size_t k = 0; !r && k < nwarm; k++) {
			stall_data(j, a->rec, &warm[k], true);
			all[n++] = &warm[k];
		}
		for (size_t k = 0; !r && k < nwin; k++) {
			stall_data(j, a->rec, &win[k], false);
			all[n++] = &win[k];
		}
	}
	json_arr_end(j);
	json_kstr(j, "split", !a->rec ? NULL : causes_rec_exact(a->rec) ? "exact" : "samples");
	if (!r)
		r = html_stacks_data(j, a->rec, all, n);
	free(all);
	free(win);
	free(warm);
	return r;
}

static void ini_data(struct json *j, const struct analysis *a)
{
	json_key(j, "ini");
	json_arr_begin(j);
	for (size_t k = 0; a->ini && k < a->ini->n; k++) {
		json_arr_begin(j);
		json_str(j, a->ini->kv[k].key);
		json_str(j, a->ini->kv[k].value);
		json_arr_end(j);
	}
	json_arr_end(j);
}

/* The probe's late wake-ups (record --probe): when, which CPU, how late. */
static void late_data(struct json *j, const struct analysis *a)
{
	json_key(j, "late_wakeups");
	json_arr_begin(j);
	for (size_t k = 0; a->rec && k < a->rec->nevents; k++) {
		const struct rec_event *e = &a->rec->events[k];
		int cpu;
		long long us;

		if (strcmp(e->kind, "late_wakeup") || sscanf(e->text, "cpu=%d late_us=%lld", &cpu, &us) != 2)
			continue;
		json_obj_begin(j);
		json_knumf(j, "t_s", ((double)e->t_ns - (double)a->t0_ns) / 1e9, 3);
		json_kint(j, "cpu", cpu);
		json_knumf(j, "late_ms", (double)us / 1e3, 3);
		json_obj_end(j);
	}
	json_arr_end(j);
}

static int run_data(struct json *j, const struct analysis *a)
{
	int r;

	json_obj_begin(j);
	json_kstr(j, "source", a->source);
	json_kstr(j, "format", a->format);
	json_kstr(j, "program", a->program);
	json_kstr(j, "variant", a->variant);
	json_kbool(j, "has_samples", a->rec && a->rec->nsamples > 0);
	json_kuint(j, "samples", a->rec ? a->rec->nsamples : 0);
	json_knum(j, "stall_ms", a->mo.stall_ms);
	json_knum(j, "warmup_s", a->mo.warmup_s);
	json_kstr(j, "frames_note", a->frames_note);
	json_kstr(j, "failure", a->failure);
	if (a->interfered < 0)
		json_knull(j, "interfered");
	else
		json_kint(j, "interfered", a->interfered);
	json_kstr(j, "interference", a->interference);
	if ((r = frames_data(j, a->f)) < 0)
		return r;
	segments_data(j, a);
	metrics_data(j, a);
	if ((r = stalls_data(j, a)) < 0)
		return r;
	ini_data(j, a);
	late_data(j, a);
	if (a->rec) {
		report_threads_json(j, a);
		report_recorder_json(j, a);
	}
	json_key(j, "notes");
	json_arr_begin(j);
	for (size_t k = 0; k < a->m.nnotes; k++)
		json_str(j, a->m.notes[k]);
	json_arr_end(j);
	json_obj_end(j);
	return 0;
}

/* The default page: INPUT/report.html for one run directory. */
static void default_output(int n, char *const *inputs, struct strbuf *out)
{
	struct strbuf ini = STRBUF_INIT;

	if (n == 1 && sb_add_path(&ini, inputs[0], "run.ini") == 0 &&
	    access(ini.buf, F_OK) == 0)
		(void)sb_add_path(out, inputs[0], "report.html");
	else
		(void)sb_adds(out, "stallscope-report.html");
	sb_release(&ini);
}

int html_page(const struct analyse_opts *ao, char *const *inputs, int n, const char *output)
{
	struct strbuf emsg = STRBUF_INIT, out = STRBUF_INIT;
	struct sf_out of;
	char *data = NULL;
	size_t len = 0;
	FILE *mf, *f;
	bool ok;
	struct json j;
	int status = 0, nruns = 0;

	mf = open_memstream(&data, &len);
	if (!mf) {
		cli_error_errno(-errno, "html");
		return 1;
	}
	json_init(&j, mf, false);
	json_obj_begin(&j);
	json_kint(&j, "version", 1);
	json_kstr(&j, "kind", "runs");
	json_kstr(&j, "generator", "stallscope " STALLSCOPE_VERSION);
	json_key(&j, "runs");
	json_arr_begin(&j);
	for (int i = 0; i < n; i++) {
		struct analysis a;
		int r;

		if (cli_failed(analyse_input(inputs[i], ao, &a, &emsg), &emsg)) {
			status = 1;
			continue;
		}
		r = run_data(&j, &a);
		analysis_release(&a);
		if (r < 0) {
			cli_error_errno(r, "'%s'", cli_shown(inputs[i]));
			status = 1;
			break;
		}
		nruns++;
	}
	json_arr_end(&j);
	json_obj_end(&j);
	json_end(&j);
	fclose(mf);
	if (!nruns) {
		free(data);
		sb_release(&emsg);
		cli_error("no input could be read: no page written");
		return 1;
	}
	if (output)
		(void)sb_adds(&out, output);
	else
		default_output(n, inputs, &out);
	/* through a temporary file and a rename: never half a page */
	f = outfile_open(out.buf, &of);
	ok = f && html_write(f, n == 1 ? inputs[0] : "stallscope", data, len) == 0;
	if (!f || outfile_close(out.buf, f, &of, ok) < 0) {
		status = 1;
	} else {
		fprintf(stderr, "%s: wrote '%s' (%d run%s)\n", cli_prog, cli_shown(out.buf), nruns,
			nruns == 1 ? "" : "s");
	}
	free(data);
	sb_release(&out);
	sb_release(&emsg);
	return status;
}

/* ---------------------------------------------------------------- --db */

#define NPCT 121	/* points of a percentile curve */

static double pct_at(int k)
{
	/* 0 .. 99.9 %, denser towards the top (where stalls are) */
	return 1.0 - pow(10.0, -3.0 * k / (NPCT - 1));
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The side's frame-time percentile curve: every window frame of its runs
 * (each analysed again from its run directory with AO), pooled. Runs that
 * cannot be read are counted in *UNREAD. A database says where a run
 * directory is, and it may be someone else's: only a directory is read
 * (never a file as a frame log: its numbers would land in the page). */
static void side_curve(struct json *j, const struct compare_side *s,
		       const struct analyse_opts *ao, size_t *unread)
{
	struct strbuf emsg = STRBUF_INIT;
	double *v = NULL;
	size_t n = 0, cap = 0;

	for (size_t i = 0; i < s->n; i++) {
		struct analysis a;
		struct stat st;

		if (!s->dirs[i][0] || stat(s->dirs[i], &st) < 0 || !S_ISDIR(st.st_mode) ||
		    analyse_input(s->dirs[i], ao, &a, &emsg) < 0 || !a.f) {
			(*unread)++;
			continue;
		}
		for (size_t k = a.m.win_first; k < a.m.win_first + a.m.win_n && k < a.f->n; k++) {
			if (ARRAY_GROW(v, cap, n + 1) < 0)
				break;
			v[n++] = a.f->ft_ms[k];
		}
		analysis_release(&a);
	}
	json_arr_begin(j);
	if (n) {
		qsort(v, n, sizeof(*v), cmp_double);
		for (int k = 0; k < NPCT; k++) {
			double h = (double)(n - 1) * pct_at(k), lo = floor(h);
			size_t i = (size_t)lo;

			json_numf(j, i + 1 < n ? v[i] + (v[i + 1] - v[i]) * (h - lo) : v[i], 3);
		}
	}
	json_arr_end(j);
	free(v);
	sb_release(&emsg);
}

static void json_ci(struct json *j, const char *key, double lo, double hi)
{
	json_key(j, key);
	if (isnan(lo)) {
		json_null(j);
		return;
	}
	json_arr_begin(j);
	json_num(j, lo);
	json_num(j, hi);
	json_arr_end(j);
}

/* Key KEY: METRIC of the side's interfered runs (drawn apart, in no
 * median). 0, or a negative errno with ERR. */
static int intf_values(struct json *j, const char *key, struct db *db, const char *metric,
		       const struct compare_side *s, struct strbuf *err)
{
	int r = 0;

	json_key(j, key);
	json_arr_begin(j);
	for (size_t i = 0; i < s->interfered && r >= 0; i++) {
		double v;

		r = db_run_metric(db, s->intf_ids[i], metric, &v, err);
		if (r > 0)
			json_num(j, v);
	}
	json_arr_end(j);
	return r < 0 ? r : 0;
}

/* One metric of side B against side A: its row as compare computes it, and
 * every run's value (the dots). */
static int metric_data(struct json *j, struct db *db, const char *metric,
		       const struct compare_side *a, const struct compare_side *b,
		       struct strbuf *err)
{
	double *va = calloc(a->n ? a->n : 1, sizeof(*va)), *vb = calloc(b->n ? b->n : 1, sizeof(*vb));
	struct compare_row r = { .metric = metric };
	int ka, kb, rc;

	if (!va || !vb) {
		free(va);
		free(vb);
		return -ENOMEM;
	}
	ka = compare_side_values(db, a, metric, va, err);
	kb = ka < 0 ? 0 : compare_side_values(db, b, metric, vb, err);
	if (ka < 0 || kb < 0) {
		free(va);
		free(vb);
		return ka < 0 ? ka : kb;
	}
	compare_compute(&r, va, (size_t)ka, vb, (size_t)kb);
	json_obj_begin(j);
	json_kstr(j, "metric", metric);
	json_kstr(j, "b", b->spec);
	json_key(j, "a_values");
	json_arr_begin(j);
	for (int i = 0; i < ka; i++)
		json_num(j, va[i]);
	json_arr_end(j);
	json_key(j, "b_values");
	json_arr_begin(j);
	for (int i = 0; i < kb; i++)
		json_num(j, vb[i]);
	json_arr_end(j);
	rc = intf_values(j, "a_interfered", db, metric, a, err);
	if (rc == 0)
		rc = intf_values(j, "b_interfered", db, metric, b, err);
	if (rc < 0) {
		free(va);
		free(vb);
		return rc;
	}
	json_knum(j, "a_median", r.a_med);
	json_knum(j, "b_median", r.b_med);
	json_ci(j, "a_ci", r.a_lo, r.a_hi);
	json_ci(j, "b_ci", r.b_lo, r.b_hi);
	json_knum(j, "change_pct", r.change);
	json_knum(j, "p", r.p);
	json_kuint(j, "n_a", r.na);
	json_kuint(j, "n_b", r.nb);
	json_key(j, "significant");
	if (r.significant < 0)
		json_null(j);
	else
		json_bool(j, r.significant);
	json_kstr(j, "note", r.why[0] ? r.why : NULL);
	json_obj_end(j);
	free(va);
	free(vb);
	return 0;
}

/* The comparison page's data: the sides, every metric of each side against
 * the first, the percentile curves, the interfered runs. */
static int compare_data(struct json *j, struct db *db, struct compare_side *sides, int ns,
			const struct analyse_opts *ao, struct strbuf *err)
{
	size_t unread = 0;
	char **metrics = NULL;
	int nm = 0, r = 0;

	json_obj_begin(j);
	json_kint(j, "version", 1);
	json_kstr(j, "kind", "compare");
	json_kstr(j, "generator", "stallscope " STALLSCOPE_VERSION);
	json_key(j, "sides");
	json_arr_begin(j);
	for (int i = 0; i < ns; i++) {
		json_obj_begin(j);
		json_kstr(j, "spec", sides[i].spec);
		json_kuint(j, "runs", sides[i].n);
		json_kuint(j, "interfered", sides[i].interfered);
		json_kuint(j, "failed", sides[i].failed);
		json_kstr(j, "failures", sides[i].failures.buf);
		json_key(j, "curve");
		side_curve(j, &sides[i], ao, &unread);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_key(j, "percentiles");
	json_arr_begin(j);
	for (int k = 0; k < NPCT; k++)
		json_numf(j, 100.0 * pct_at(k), 4);
	json_arr_end(j);
	json_kuint(j, "curve_runs_unread", unread);
	json_key(j, "comparisons");
	json_arr_begin(j);
	for (int i = 1; i < ns && r >= 0; i++) {
		nm = compare_metric_list(db, NULL, &sides[0], &sides[i], &metrics, err);
		if (nm < 0) {
			r = nm;
			break;
		}
		for (int m = 0; m < nm && r >= 0; m++)
			r = metric_data(j, db, metrics[m], &sides[0], &sides[i], err);
		for (int m = 0; m < nm; m++)
			free(metrics[m]);
		free(metrics);
	}
	json_arr_end(j);
	json_obj_end(j);
	return r;
}

/* html --db PATH NAME:VAR NAME:VAR...: the comparison page. */
int html_compare(const char *dbpath, const struct analyse_opts *ao, char **specs, int n,
			const char *output)
{
	struct compare_side sides[16];
	struct strbuf err = STRBUF_INIT;
	struct db *db = NULL;
	char *data = NULL;
	size_t len = 0;
	int status = 1, ns = 0, r;
	struct sf_out of;
	struct json j;
	FILE *mf = NULL, *f;
	bool ok;

	if (n < 2 || n > 16)
		return cli_usage_error("--db: expected 2 to 16 sides NAME:VARIANT, got %d", n);
	memset(sides, 0, sizeof(sides));
	for (; ns < n; ns++) {
		sides[ns].failures = (struct strbuf)STRBUF_INIT;
		if (compare_side_parse(&sides[ns], specs[ns]) < 0) {
			status = cli_usage_error("expected NAME:VARIANT, got '%s'", specs[ns]);
			ns++;
			goto out;
		}
	}
	if (db_open(dbpath, false, &db, &err) < 0) {
		cli_error("%s", err.buf);
		goto out;
	}
	for (int i = 0; i < ns; i++) {
		if (compare_side_collect(db, &sides[i], &err) < 0) {
			cli_error("%s", err.len ? err.buf : "out of memory");
			goto out;
		}
		if (!sides[i].n) {
			cli_error("no runs of '%s' in '%s' (not interfered%s)", cli_shown(specs[i]),
				  cli_shown(db_name(db)), sides[i].failed ? ", not failed" : "");
			goto out;
		}
	}
	mf = open_memstream(&data, &len);
	if (!mf)
		goto out;
	json_init(&j, mf, false);
	r = compare_data(&j, db, sides, ns, ao, &err);
	json_end(&j);
	fclose(mf);
	mf = NULL;
	if (r < 0) {
		cli_error("%s", err.len ? err.buf : strerror(-r));
		goto out;
	}
	if (!output)
		output = "stallscope-report.html";
	f = outfile_open(output, &of);
	if (!f)
		goto out;
	ok = html_write(f, "stallscope compare", data, len) == 0;
	if (outfile_close(output, f, &of, ok) < 0)
		goto out;
	fprintf(stderr, "%s: wrote '%s' (%d sides)\n", cli_prog, cli_shown(output), ns);
	status = 0;
out:
	for (int i = 0; i < ns; i++)
		compare_side_release(&sides[i]);
	db_close(db);
	free(data);
	sb_release(&err);
	return status;
}

int cmd_html(int argc, char **argv)
{
	struct report_options o = {
		.a = { .m = METRICS_OPTS_INIT, .fmt = FRAMELOG_AUTO, .keep = true },
	};
	struct reload_rules *rules = NULL;
	struct strbuf emsg = STRBUF_INIT;
	const char *output = NULL;
	double *pass = NULL;
	int first, status;

	first = report_parse_common(argc, argv, usage_text, &o, &pass, &output);
	if (first == -2)
		return 0;
	if (first < 0) {
		free(pass);
		return EXIT_USAGE;
	}
	if (first >= argc) {
		free(pass);
		return cli_usage_error(o.db ? "--db: expected the sides, NAME:VARIANT NAME:VARIANT"
					    : "expected a run directory or a frame log");
	}
	if (o.csv || o.cols || o.json) {
		free(pass);
		return cli_usage_error("option '%s' does not apply to html",
				       o.csv ? "--csv" : o.cols ? "--cols" : "--json");
	}
	if (cli_failed(analyse_load_rules(o.rules, &rules, &o.a.rules_name, &emsg), &emsg)) {
		free(pass);
		return 1;
	}
	o.a.rules = rules;
	if (o.db)
		status = html_compare(o.db, &o.a, argv + first, argc - first, output);
	else
		status = html_page(&o.a, argv + first, argc - first, output);
	free(pass);
	reload_rules_free(rules);
	return status;
}
