// SPDX-License-Identifier: MIT
/*
 * compare.c: `stallscope compare A B`: is B different from A, metric by
 * metric? Each side is NAME:VARIANT in the results database; its runs are
 * those not marked interfered. Per metric: each side's median with a 95 %
 * order-statistic interval, the change in %, and the two-sided Mann-Whitney
 * U p-value; a change not significant at alpha = 0.05 prints "~"
 * (benchstat's convention). docs/METRICS.md "Comparisons" has the formulas.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "opts.h"
#include "core/metrics.h"
#include "cmd/cmd.h"
#include "core/signif.h"
#include "core/strbuf.h"
#include "db/db.h"
#include "run/compare.h"
#include "cmd/outfile.h"
#include "out/json.h"
#include "out/junit.h"
#include "out/table.h"

struct compare_opts {
	const char *db;
	const char *metrics;	/* comma-separated, or NULL for all shared */
	bool json, csv;
	bool include_failed;	/* --include-failed */
	const char *rig;	/* --rig: only this rig's runs */
	bool across_rigs;	/* --across-rigs: pool runs of several rigs */
	const char *fail_on;	/* --fail-on: the gate, METRIC:+N[%],... */
	const char *junit;	/* --junit FILE */
};

/* One metric of --fail-on: worse when it moved by more than AMOUNT (in %
 * when PCT) the way SIGN says (+1 up, -1 down), significantly. */
struct gate {
	char metric[65];
	int sign;
	double amount;
	bool pct;
};

static const struct opts_help compare_help = {
	"usage: stallscope compare [--db PATH] [--rig NAME|--across-rigs] [--metrics M,...] [--json|--csv]\n"
	"                          [--fail-on M:+N[%],...] [--junit FILE]\n"
	"                          NAME[:VARIANT][@BUILD] NAME[:VARIANT][@BUILD]\n"
	"\n"
	"Compares two sets of runs in the results database, metric by metric: each\n"
	"side's median with its 95% confidence interval, the change from the first to\n"
	"the second, and the Mann-Whitney U p-value. A change that is not significant\n"
	"at alpha 0.05 prints '~'. Interfered runs and failed runs (the program\n"
	"failed, no frames, ended short) are left out and listed; a side with no runs\n"
	"left is an error. VARIANT '-' is the base; NAME alone means NAME:-. Runs of\n"
	"different rigs (machines) are not pooled unless asked (--across-rigs).\n"
	"@BUILD takes only the runs of that build (record --build, --build-of).\n"
	"\n",
	"examples:\n"
	"  stallscope compare game:- game:MESA_SHADER_CACHE=0\n"
	"  stallscope compare --metrics stalls,p99_ms --json game game:PATCH=1\n"
	"  stallscope compare --db postgresql://ci@db.lab/bench --rig ci-amd game game:PATCH=1\n"
	"  stallscope compare --fail-on 'stalls:+0,p99_ms:+5%,low1:-5%' game@abc123 game@def456\n"
	"\n"
	"exit status: 0 ok, 1 failure, 2 usage, 4 --fail-on and a metric got worse\n",
};

static void fmt_ci(char *buf, size_t len, double lo, double hi)
{
	if (isnan(lo))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.4g..%.4g", lo, hi);
}

/* V to 4 significant digits; '-' where JSON has null (no runs, no value). */
static void add_g(struct table *t, double v)
{
	if (isnan(v))
		table_add(t, "-");
	else
		table_addf(t, "%.4g", v);
}

static void print_table(struct compare_row *rows, size_t n, bool csv)
{
	static const char *const h[] = { "metric", "a", "a_ci95", "b", "b_ci95", "change", "p",
					  "n" };
	struct table *t = table_new(8, h);
	char buf[64];
	size_t i;

	if (!t)
		return;
	for (i = 0; i < n; i++) {
		struct compare_row *r = &rows[i];

		table_add(t, r->metric);
		add_g(t, r->a_med);
		fmt_ci(buf, sizeof(buf), r->a_lo, r->a_hi);
		table_add(t, buf);
		add_g(t, r->b_med);
		fmt_ci(buf, sizeof(buf), r->b_lo, r->b_hi);
		table_add(t, buf);
		if (r->significant == 1 && isfinite(r->change))
			table_addf(t, "%+.1f%%", r->change);
		else if (r->significant == 1)
			table_add(t, r->b_med > r->a_med ? "up from 0" : "down from 0");
		else if (r->significant == 0)
			table_add(t, "~");
		else
			table_add(t, "?");
		table_add_num(t, r->p, 3);
		table_addf(t, "%zu+%zu", r->na, r->nb);
	}
	if (csv)
		table_print_csv(t, stdout);
	else
		table_print(t, stdout);
	table_free(t);
}

static void print_json(const struct compare_side *a, const struct compare_side *b, struct compare_row *rows, size_t n)
{
	struct json j;
	size_t i;

	json_init(&j, stdout, true);
	json_obj_begin(&j);
	json_kstr(&j, "a", a->spec);
	json_kstr(&j, "b", b->spec);
	json_key(&j, "metrics");
	json_arr_begin(&j);
	for (i = 0; i < n; i++) {
		struct compare_row *r = &rows[i];

		json_obj_begin(&j);
		json_kstr(&j, "metric", r->metric);
		json_knum(&j, "a_median", r->a_med);
		json_knum(&j, "b_median", r->b_med);
		json_key(&j, "a_ci");
		if (isnan(r->a_lo)) {
			json_null(&j);
		} else {
			json_arr_begin(&j);
			json_num(&j, r->a_lo);
			json_num(&j, r->a_hi);
			json_arr_end(&j);
		}
		json_key(&j, "b_ci");
		if (isnan(r->b_lo)) {
			json_null(&j);
		} else {
			json_arr_begin(&j);
			json_num(&j, r->b_lo);
			json_num(&j, r->b_hi);
			json_arr_end(&j);
		}
		json_knum(&j, "change_pct", r->change);
		json_knum(&j, "p", r->p);
		json_kuint(&j, "n_a", r->na);
		json_kuint(&j, "n_b", r->nb);
		json_key(&j, "significant");
		if (r->significant < 0)
			json_null(&j);
		else
			json_bool(&j, r->significant);
		if (r->why[0])
			json_kstr(&j, "note", r->why);
		json_obj_end(&j);
	}
	json_arr_end(&j);
	json_obj_end(&j);
	json_end(&j);
}

/* --metrics: each name a metric that runs store (docs/METRICS.md); 0, or
 * -1 after a usage error. */
static int check_metrics(const char *list)
{
	char *copy = strdup(list), *tok, *save = NULL;
	int r = copy ? 0 : cli_error_errno(-ENOMEM, "--metrics"), n = 0;

	for (tok = copy ? strtok_r(copy, ",", &save) : NULL; tok && !r;
	     tok = strtok_r(NULL, ",", &save), n++)
		if (metric_find(tok) < 0)
			r = cli_usage_error("option '--metrics': expected metric names "
					    "(docs/METRICS.md), got '%s'", tok);
	if (!r && !n)
		r = cli_usage_error("option '--metrics': expected metric names, got '%s'", list);
	free(copy);
	return r ? -1 : 0;
}

/* --fail-on LIST into G (room for N); the count, or -1 after a usage error. */
static int parse_gates(const char *list, struct gate *g, int n)
{
	char *copy = strdup(list), *tok, *save = NULL;
	int k = 0;

	if (!copy)
		return cli_error_errno(-ENOMEM, "--fail-on"), -1;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *colon = strchr(tok, ':'), *end;
		size_t ml = colon ? (size_t)(colon - tok) : 0;

		if (k == n || !colon || !ml || ml >= sizeof(g->metric) ||
		    (colon[1] != '+' && colon[1] != '-'))
			goto bad;
		memcpy(g[k].metric, tok, ml);
		g[k].metric[ml] = '\0';
		if (metric_find(g[k].metric) < 0)
			goto bad;
		g[k].sign = colon[1] == '+' ? 1 : -1;
		errno = 0;
		g[k].amount = strtod(colon + 2, &end);
		g[k].pct = *end == '%';
		if (errno || end == colon + 2 || (*end && strcmp(end, "%")) ||
		    !(g[k].amount >= 0) || !isfinite(g[k].amount) || strspn(colon + 2, "0123456789.") !=
		    (size_t)(end - colon - 2))
			goto bad;
		k++;
	}
	free(copy);
	if (!k)
		return cli_usage_error("option '--fail-on': expected METRIC:+N or METRIC:-N%%, "
				       "comma-separated, got '%s'", list), -1;
	return k;
bad:
	cli_usage_error("option '--fail-on': expected METRIC:+N or METRIC:-N%% (a metric of "
			"docs/METRICS.md, an amount >= 0), got '%s'", tok);
	free(copy);
	return -1;
}

/* Whether ROW fails gate G: a significant change the bad way by more than
 * the amount. */
static bool gate_fails(const struct gate *g, const struct compare_row *r)
{
	double delta = r->b_med - r->a_med;

	if (r->significant != 1 || delta * g->sign <= 0)
		return false;
	if (!g->pct)
		return fabs(delta) > g->amount;
	return !isfinite(r->change) || fabs(r->change) > g->amount;	/* from 0: any */
}

static int write_junit(const char *path, const struct compare_side *a,
		       const struct compare_side *b, const struct compare_row *rows, size_t n,
		       const bool *failed, size_t nfailed)
{
	struct strbuf suite = STRBUF_INIT, msg = STRBUF_INIT;
	struct sf_out o;
	FILE *f = outfile_open(path, &o);

	if (!f)
		return -1;
	sb_addf(&suite, "stallscope compare %s %s", a->spec, b->spec);
	junit_begin(f, suite.buf, n, nfailed);
	for (size_t i = 0; i < n; i++) {
		const struct compare_row *r = &rows[i];

		sb_reset(&msg);
		if (failed[i]) {
			sb_addf(&msg, "%s got worse: %.4g -> %.4g", r->metric, r->a_med, r->b_med);
			if (isfinite(r->change))
				sb_addf(&msg, " (%+.1f%%)", r->change);
			sb_addf(&msg, ", p %.3g, runs %zu+%zu", r->p, r->na, r->nb);
		}
		junit_case(f, "compare", r->metric, failed[i] ? msg.buf : NULL, NULL);
	}
	junit_end(f);
	sb_release(&suite);
	sb_release(&msg);
	return outfile_close(path, f, &o, !ferror(f));
}

/* The database of --db (else the default) and both sides' runs into *RET_DB,
 * A and B: 0, or 1 after an error message (a side with no runs is one). */
static int open_sides(const struct compare_opts *o, struct compare_side *a,
		      struct compare_side *b, struct db **ret_db)
{
	struct strbuf path = STRBUF_INIT, err = STRBUF_INIT;
	struct compare_side *s;
	int r = 1;

	if (o->db)
		sb_adds(&path, o->db);
	else if (db_default_path(&path) < 0) {
		cli_error("no --db and neither XDG_DATA_HOME nor HOME is set");
		goto out;
	}
	if (db_open(path.buf, false, ret_db, &err) < 0) {
		cli_error("%s", err.buf);
		goto out;
	}
	a->include_failed = b->include_failed = o->include_failed;
	a->rig = b->rig = o->rig;
	if (compare_side_collect(*ret_db, a, &err) < 0 || compare_side_collect(*ret_db, b, &err) < 0) {
		cli_error("%s", err.len ? err.buf : "out of memory");
		goto out;
	}
	if (a->n && b->n) {
		r = 0;
		goto out;
	}
	s = !a->n ? a : b;
	cli_error("no runs of '%s:%s%s%s'%s%s in '%s'%s%s%s", cli_shown(s->name),
		  cli_shown(s->variant), s->build ? "@" : "", s->build ? cli_shown(s->build) : "",
		  o->rig ? " of rig " : "", o->rig ? cli_shown(o->rig) : "",
		  cli_shown(db_name(*ret_db)), s->interfered || s->failed ? " that" : "",
		  s->interfered ? " were not interfered" : "",
		  s->failed ? (s->interfered ? " or failed" : " did not fail") : "");
	if (s->failed)
		fprintf(stderr, "%zu failed run%s (--include-failed keeps them):\n%s", s->failed,
			s->failed == 1 ? "" : "s", cli_shown_lines(s->failures.buf));
out:
	sb_release(&path);
	sb_release(&err);
	return r;
}

/* Runs of different machines are not one population: refused without
 * --across-rigs (1 said), else said above the table. */
static int check_rigs(const struct compare_opts *o, const struct compare_side *a,
		      const struct compare_side *b)
{
	struct compare_side both[2] = { *a, *b };
	struct strbuf rigs = STRBUF_INIT;
	bool mixed = compare_sides_mix_rigs(both, 2, &rigs);
	int r = 0;

	if (mixed && !o->across_rigs)
		r = cli_error("the runs come from more than one rig (%s): --rig NAME compares "
			      "one rig's, --across-rigs pools them", cli_shown(rigs.buf));
	else if (mixed && !o->json && !o->csv)
		printf("across rigs: %s\n", cli_shown(rigs.buf));
	sb_release(&rigs);
	return r ? 1 : 0;
}

/* The rows as asked (--json, --csv, else the table and what it leaves out). */
static void print_result(const struct compare_opts *o, const struct compare_side *a,
			 const struct compare_side *b, const struct compare_result *res)
{
	if (o->json)
		print_json(a, b, res->rows, res->n);
	else
		print_table(res->rows, res->n, o->csv);
	if (!o->json && !o->csv) {
		for (size_t i = 0; i < res->n; i++)
			if (res->rows[i].significant < 0) {
				printf("? %s: %s\n", cli_shown(res->rows[i].metric), res->rows[i].why);
				break;
			}
		if (a->interfered || b->interfered)
			printf("left out as interfered: %zu run(s) of a, %zu of b\n",
			       a->interfered, b->interfered);
	}
	if (a->failed || b->failed) {
		/* on stderr with --json/--csv, so that the data stays clean */
		FILE *f = o->json || o->csv ? stderr : stdout;

		fprintf(f, "%s: %zu run(s) of a, %zu of b:\n%s%s",
			o->include_failed ? "kept though failed (--include-failed)"
					  : "left out as failed (--include-failed keeps them)",
			a->failed, b->failed, cli_shown_lines(a->failures.buf),
			cli_shown_lines(b->failures.buf));
	}
}

/* The gate: each metric of --fail-on judged on its row, and --junit.
 * 0, 1 (an error said), EXIT_WORSE. */
static int judge(const struct compare_opts *o, const struct gate *gates, int ngates,
		 const struct compare_side *a, const struct compare_side *b,
		 const struct compare_result *res)
{
	const struct compare_row *rows = res->rows;
	bool *failed = calloc(res->n + 1, sizeof(*failed));
	size_t nfailed = 0;
	int status = 0;

	if (!failed)
		return cli_error("out of memory");
	for (int g = 0; g < ngates; g++) {
		size_t k = 0;

		while (k < res->n && strcmp(rows[k].metric, gates[g].metric))
			k++;
		if (k == res->n) {
			cli_error("--fail-on: metric '%s' was not compared (no run of either side has "
				  "it, or --metrics left it out)", gates[g].metric);
			status = 1;
			continue;
		}
		if (rows[k].significant < 0)
			cli_warn("--fail-on: %s cannot be judged: %s", rows[k].metric, rows[k].why);
		if (gate_fails(&gates[g], &rows[k]) && !failed[k]) {
			failed[k] = true;
			nfailed++;
			fprintf(stderr, "stallscope compare: %s got worse: %.4g -> %.4g, p %.3g "
				"(--fail-on %s:%c%g%s)\n", rows[k].metric, rows[k].a_med, rows[k].b_med,
				rows[k].p, gates[g].metric, gates[g].sign > 0 ? '+' : '-',
				gates[g].amount, gates[g].pct ? "%" : "");
		}
	}
	if (o->junit && write_junit(o->junit, a, b, rows, res->n, failed, nfailed) < 0)
		status = 1;
	free(failed);
	return status == 0 && nfailed ? EXIT_WORSE : status;
}

int cmd_compare(int argc, char **argv)
{
	struct compare_opts o = { 0 };
	const struct opt opts[] = {
		OPT_STRING(0, "db", &o.db, "PATH",
			   "the results database: a file or a PostgreSQL connection string\n"
			   "(default $STALLSCOPE_DB, else $XDG_DATA_HOME/stallscope/results.db)"),
		OPT_STRING(0, "rig", &o.rig, "NAME", "only the runs of this rig"),
		OPT_BOOL(0, "across-rigs", &o.across_rigs,
			 "pool the runs of several rigs (said above the table)"),
		OPT_STRING(0, "metrics", &o.metrics, "LIST",
			   "only these metrics (comma-separated; default: all both sides have)"),
		OPT_BOOL(0, "json", &o.json, "a JSON object: a, b, metrics[]"),
		OPT_BOOL(0, "csv", &o.csv, "CSV, one row per metric"),
		OPT_BOOL(0, "include-failed", &o.include_failed,
			 "keep failed runs (marked in the listing below the table)"),
		OPT_STRING(0, "fail-on", &o.fail_on, "LIST",
			   "a CI gate: exit 4 when a metric of LIST (METRIC:+N or\n"
			   "METRIC:-N%, comma-separated: up or down by more than N or\n"
			   "N %) changed significantly from the first side to the\n"
			   "second by more than that; stalls:+0 fails on any rise"),
		OPT_STRING(0, "junit", &o.junit, "FILE",
			   "a JUnit XML report: one testcase per metric, a failure\n"
			   "for each the gate fails on"),
		OPT_END(),
	};
	enum { MAX_GATES = 64 };
	struct gate gates[MAX_GATES];
	int ngates = 0;
	struct strbuf err = STRBUF_INIT;
	struct compare_side a = { .failures = STRBUF_INIT }, b = { .failures = STRBUF_INIT };
	struct compare_result res = { 0 };
	struct db *db = NULL;
	int first, status = 1;

	first = opts_parse(argc, argv, opts, &compare_help, 0);
	if (first < 0)
		return opts_exit(first);
	if (argc - first != 2)
		return cli_usage_error("expected two sides, NAME:VARIANT NAME:VARIANT");
	if (o.fail_on && (ngates = parse_gates(o.fail_on, gates, MAX_GATES)) < 0)
		return EXIT_USAGE;
	if (o.metrics && check_metrics(o.metrics) < 0)
		return EXIT_USAGE;
	if (o.json && o.csv)
		return cli_usage_error("--json and --csv exclude each other");
	if (compare_side_parse(&a, argv[first]) < 0 || compare_side_parse(&b, argv[first + 1]) < 0) {
		status = cli_usage_error("expected NAME[:VARIANT][@BUILD], got '%s'",
					 a.name && *a.name ? argv[first + 1] : argv[first]);
		goto out;
	}
	if (open_sides(&o, &a, &b, &db) || check_rigs(&o, &a, &b))
		goto out;
	if (compare_result_compute(db, o.metrics, &a, &b, 0, &res, &err) < 0) {
		cli_error("%s", err.len ? err.buf : "out of memory");
		goto out;
	}
	for (size_t i = 0; o.metrics && i < res.nempty; i++)
		cli_warn("no run of either side has metric '%s'", cli_shown(res.empty[i]));
	print_result(&o, &a, &b, &res);
	status = judge(&o, gates, ngates, &a, &b, &res);
out:
	compare_result_release(&res);
	compare_side_release(&a);
	compare_side_release(&b);
	db_close(db);
	sb_release(&err);
	return status;
}
