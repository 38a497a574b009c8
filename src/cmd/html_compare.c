// SPDX-License-Identifier: MIT
/*
 * html_compare.c: `stallscope html --db PATH NAME:VARIANT...` (and bench
 * --html): the comparison page, each side against the first. What it shows
 * is computed in run/compare.h (compare_page_compute: the rows as compare
 * prints them, every run's value, the sides' frame-time curves); this file
 * opens the database, writes that as the page's JSON and the page.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cmd/html.h"
#include "cmd/outfile.h"
#include "db/db.h"
#include "out/html.h"
#include "out/json.h"
#include "run/compare.h"

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

static void json_values(struct json *j, const char *key, const double *v, size_t n)
{
	json_key(j, key);
	json_arr_begin(j);
	for (size_t i = 0; i < n; i++)
		json_num(j, v[i]);
	json_arr_end(j);
}

/* One metric of side B against side A: its row as compare computes it, and
 * every run's value (the dots). */
static void metric_data(struct json *j, const char *b, const struct compare_row *r,
			const struct compare_values *v)
{
	json_obj_begin(j);
	json_kstr(j, "metric", r->metric);
	json_kstr(j, "b", b);
	json_values(j, "a_values", v->a, r->na);
	json_values(j, "b_values", v->b, r->nb);
	json_values(j, "a_interfered", v->a_intf, v->na_intf);
	json_values(j, "b_interfered", v->b_intf, v->nb_intf);
	json_knum(j, "a_median", r->a_med);
	json_knum(j, "b_median", r->b_med);
	json_ci(j, "a_ci", r->a_lo, r->a_hi);
	json_ci(j, "b_ci", r->b_lo, r->b_hi);
	json_knum(j, "change_pct", r->change);
	json_knum(j, "p", r->p);
	json_kuint(j, "n_a", r->na);
	json_kuint(j, "n_b", r->nb);
	json_key(j, "significant");
	if (r->significant < 0)
		json_null(j);
	else
		json_bool(j, r->significant);
	json_kstr(j, "note", r->why[0] ? r->why : NULL);
	json_obj_end(j);
}

/* The comparison page's data (run/compare.h computes it): the sides, every
 * metric of each side against the first, the percentile curves, the
 * interfered runs. */
static void compare_data(struct json *j, const struct compare_side *sides,
			 const struct compare_page *p)
{
	json_obj_begin(j);
	json_kint(j, "version", 1);
	json_kstr(j, "kind", "compare");
	json_kstr(j, "generator", "stallscope " STALLSCOPE_VERSION);
	json_key(j, "sides");
	json_arr_begin(j);
	for (int i = 0; i < p->nsides; i++) {
		json_obj_begin(j);
		json_kstr(j, "spec", sides[i].spec);
		json_kuint(j, "runs", sides[i].n);
		json_kuint(j, "interfered", sides[i].interfered);
		json_kuint(j, "failed", sides[i].failed);
		json_kstr(j, "failures", sides[i].failures.buf);
		json_key(j, "curve");
		json_arr_begin(j);
		for (int k = 0; p->curve_frames[i] && k < COMPARE_NPCT; k++)
			json_numf(j, p->curve[i][k], 3);
		json_arr_end(j);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_key(j, "percentiles");
	json_arr_begin(j);
	for (int k = 0; k < COMPARE_NPCT; k++)
		json_numf(j, 100.0 * compare_curve_point(k), 4);
	json_arr_end(j);
	json_kuint(j, "curve_runs_unread", p->curve_unread);
	json_key(j, "comparisons");
	json_arr_begin(j);
	for (int i = 1; i < p->nsides; i++)
		for (size_t m = 0; m < p->cmp[i - 1].n; m++)
			metric_data(j, sides[i].spec, &p->cmp[i - 1].rows[m],
				    &p->cmp[i - 1].values[m]);
	json_arr_end(j);
	json_obj_end(j);
}

/* html --db PATH NAME:VAR NAME:VAR...: the comparison page. */
int html_compare(const char *dbpath, const struct analyse_opts *ao, char **specs, int n,
			const char *output)
{
	struct compare_side sides[16];
	struct compare_page page = { 0 };
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
	r = compare_page_compute(db, sides, ns, ao, &page, &err);
	if (r < 0) {
		cli_error("%s", err.len ? err.buf : strerror(-r));
		goto out;
	}
	mf = open_memstream(&data, &len);
	if (!mf)
		goto out;
	json_init(&j, mf, false);
	compare_data(&j, sides, &page);
	json_end(&j);
	fclose(mf);
	mf = NULL;
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
	compare_page_release(&page);
	for (int i = 0; i < ns; i++)
		compare_side_release(&sides[i]);
	db_close(db);
	free(data);
	sb_release(&err);
	return status;
}

