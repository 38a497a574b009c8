// SPDX-License-Identifier: MIT
/*
 * matrix.c: `stallscope matrix -o DIR [options] INPUT...`: one CSV per
 * metric, DIR/<metric>.csv, so a spreadsheet or a script compares runs of
 * several programs and variants side by side.
 *
 * Rows: program and variant (from run.ini; a frame log's row is its file
 * name, variant empty), in the order first met. Columns: program, variant,
 * run1..runK (each run of that row, in input order; K the most runs of any
 * row), then median (R-7 of the row's numbers, i.e. the usual median).
 * A metric's file is written only once some input has a number for it (it is
 * "created by the first input that has that metric"); a run without a number
 * has an empty cell. Each file is written to a temporary name and renamed,
 * so a failed run leaves the previous file whole.
 *
 * Interfered runs (run.ini interfered=1, or named in --interfered-list) are
 * left out of the rows and medians and listed, on stdout and in
 * DIR/interfered.txt; --include-interfered keeps them. Failed runs (the
 * program failed, no frames, it ended short: runini_failure) the same, in
 * DIR/failed.txt; --include-failed keeps them.
 *
 * With --db PATH the rows come from the results database instead: rows are
 * name and variant, the runs of a row ordered by round, interfered runs (the
 * database's interfered = 1) left out and listed the same way.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "cmd/outfile.h"
#include "cmd/cmd.h"
#include "cmd/report.h"
#include "core/grow.h"
#include "core/stats.h"
#include "db/db.h"
#include "out/table.h"

static const struct opts_help matrix_help = {
	"usage: stallscope matrix -o DIR [options] INPUT...\n"
	"       stallscope matrix -o DIR --db PATH [--name N]\n"
	"\n"
	"Writes DIR/<metric>.csv for every metric of report: one row per program and\n"
	"variant (from each run directory's run.ini, or a frame log's file name), one\n"
	"column per run of that row, then the median. The analysis is report's\n"
	"(stallscope-report(1)).\n"
	"\n",
	"EXAMPLES\n"
	"  stallscope matrix -o matrix/ runs/*/\n"
	"  stallscope matrix -o m/ --warmup 0 a.csv b.csv\n"
	"  stallscope matrix -o m/ --db results.db --name fakegame\n",
};

struct row {
	char *program;		/* owned */
	const char *variant;
	size_t n;		/* runs */
	size_t *idx;		/* indices into the analyses */
};

/* The last component of path P without trailing slashes, in a new string. */
static char *base_name(const char *p)
{
	size_t n = strlen(p), b;

	while (n > 1 && p[n - 1] == '/')
		n--;
	for (b = n; b > 0 && p[b - 1] != '/'; b--)
		;
	return strndup(p + b, n - b);
}

/* X, a value of a metric shown with DECIMALS (metric_descs): one digit
 * more than report shows, and a count (0 decimals) as the integer it is,
 * so that 2 stalls read "2", not "2.0", and a median of 2 and 3 "2.5". */
static void put_value(FILE *f, double x, int decimals)
{
	if (decimals == 0 && x == nearbyint(x) && fabs(x) < 1e15)
		fprintf(f, "%.0f", x);
	else
		fprintf(f, "%.*f", decimals + 1, x);
}

/* Ends a CSV row with the median of its NV values (empty when none). */
static void row_median(FILE *f, const double *v, size_t nv, int decimals)
{
	double *s = stats_sorted_copy(v, nv);

	if (s && nv) {
		fputc(',', f);
		put_value(f, stats_quantile_sorted(s, nv, 0.5), decimals);
	}
	fputc('\n', f);
	free(s);
}

/* Ends F, opened by outfile_open as O for PATH: put in place when all of
 * it was written, else reported and removed. 0 or -1. */
static int csv_commit(FILE *f, struct sf_out *o, const char *path)
{
	return outfile_close(path, f, o, !ferror(f));
}

static int write_metric(const char *dir, int m, const struct analysis *as, const struct row *rows,
			size_t nrows, size_t maxruns)
{
	struct strbuf path = STRBUF_INIT;
	struct sf_out of;
	double *v = malloc((maxruns ? maxruns : 1) * sizeof(*v));
	size_t r, k;
	FILE *f;
	int ret = -1;

	sb_add_path(&path, dir, metric_descs[m].name);
	sb_adds(&path, ".csv");
	if (!v) {
		cli_error_errno(-ENOMEM, "'%s'", path.buf);
		goto out;
	}
	f = outfile_open(path.buf, &of);
	if (!f)
		goto out;
	fputs("program,variant", f);
	for (k = 0; k < maxruns; k++)
		fprintf(f, ",run%zu", k + 1);
	fputs(",median\n", f);
	for (r = 0; r < nrows; r++) {
		size_t nv = 0;

		csv_field(f, rows[r].program);
		fputc(',', f);
		csv_field(f, rows[r].variant ? rows[r].variant : "");
		for (k = 0; k < maxruns; k++) {
			double x = k < rows[r].n ? as[rows[r].idx[k]].m.v[m] : NAN;

			fputc(',', f);
			if (!isnan(x)) {
				put_value(f, x, metric_descs[m].decimals);
				v[nv++] = x;
			}
		}
		row_median(f, v, nv, metric_descs[m].decimals);
	}
	if (csv_commit(f, &of, path.buf) < 0)
		goto out;
	ret = 0;
out:
	free(v);
	sb_release(&path);
	return ret;
}

/* Writes DIR/NAME (interfered.txt, failed.txt): one "SOURCE: WHY" a line
 * (an empty file when no run was left out, so an old list does not
 * linger); 0 or -1. */
static int write_list(const char *dir, const char *name, const struct strbuf *lines)
{
	struct strbuf path = STRBUF_INIT;
	struct sf_out of;
	FILE *f;
	int ret = 0;

	sb_add_path(&path, dir, name);
	f = outfile_open(path.buf, &of);
	if (!f)
		ret = -1;
	else if (outfile_close(path.buf, f, &of,
			       fwrite(lines->buf, 1, lines->len, f) == lines->len) < 0)
		ret = -1;
	sb_release(&path);
	return ret;
}

/* What was left out (or kept though failed), and where it is listed. */
static void print_left_out(const char *outdir, size_t nleft, const struct strbuf *left,
			   size_t nfailed, const struct strbuf *failed, bool include_failed)
{
	if (nleft)
		printf("left out as interfered (--include-interfered keeps them), %zu run%s, "
		       "listed in '%s/interfered.txt':\n%s", nleft, nleft == 1 ? "" : "s",
		       cli_shown(outdir), cli_shown_lines(left->buf));
	if (nfailed)
		printf("%s %zu FAILED run%s%s, listed in '%s/failed.txt':\n%s",
		       include_failed ? "KEPT (--include-failed) though failed:" : "left out:",
		       nfailed, nfailed == 1 ? "" : "s",
		       include_failed ? "" : " (--include-failed keeps them)", cli_shown(outdir),
		       cli_shown_lines(failed->buf));
}

/* ----------------------------------------------------------- --db */

struct db_row {
	char *name, *variant;
	long long *ids;
	size_t n, aids;
};

struct db_collect {
	struct db_row *rows;
	size_t nrows, arows, maxruns;
	bool include, include_failed;
	struct strbuf left_out, failed;
	size_t nleft, nfailed;
	int err;
};

static int collect_db_run(const struct db_run *run, void *ctx)
{
	struct db_collect *c = ctx;
	struct db_row *r;

	if (run->interfered == 1 && !c->include) {
		sb_addf(&c->left_out, "%s:%s round %d (%s): %s\n", run->name, run->variant,
			run->round, run->rundir ? run->rundir : "-",
			run->interference ? run->interference : "interfered");
		c->nleft++;
		return 0;
	}
	if (run->failed) {
		sb_addf(&c->failed, "%s:%s round %d (%s): %s\n", run->name, run->variant,
			run->round, run->rundir ? run->rundir : "-",
			run->failure ? run->failure : "failed");
		c->nfailed++;
		if (!c->include_failed)
			return 0;
	}
	r = c->nrows ? &c->rows[c->nrows - 1] : NULL;
	if (!r || strcmp(r->name, run->name) || strcmp(r->variant, run->variant)) {
		if (ARRAY_GROW(c->rows, c->arows, c->nrows + 1) < 0)
			return c->err = -ENOMEM;
		r = &c->rows[c->nrows++];
		memset(r, 0, sizeof(*r));
		r->name = strdup(run->name);
		r->variant = strdup(run->variant);
		if (!r->name || !r->variant)
			return c->err = -ENOMEM;
	}
	if (ARRAY_GROW(r->ids, r->aids, r->n + 1) < 0)
		return c->err = -ENOMEM;
	r->ids[r->n++] = run->id;
	if (r->n > c->maxruns)
		c->maxruns = r->n;
	return 0;
}

/* One metric's CSV from the database; 0 or -1 (reported). */
static int write_db_metric(struct db *db, const char *dir, const char *metric,
			   const struct db_collect *c)
{
	struct strbuf path = STRBUF_INIT, err = STRBUF_INIT;
	struct sf_out of;
	double *v = malloc((c->maxruns ? c->maxruns : 1) * sizeof(*v));
	int m = metric_find(metric), dec = m >= 0 ? metric_descs[m].decimals : 2;
	int ret = -1, r;
	FILE *f = NULL;

	sb_add_path(&path, dir, metric);
	sb_adds(&path, ".csv");
	if (!v) {
		cli_error_errno(-ENOMEM, "'%s'", path.buf);
		goto out;
	}
	f = outfile_open(path.buf, &of);
	if (!f)
		goto out;
	fputs("name,variant", f);
	for (size_t k = 0; k < c->maxruns; k++)
		fprintf(f, ",run%zu", k + 1);
	fputs(",median\n", f);
	for (size_t i = 0; i < c->nrows; i++) {
		const struct db_row *row = &c->rows[i];
		size_t nv = 0;

		csv_field(f, row->name);
		fputc(',', f);
		csv_field(f, row->variant);
		for (size_t k = 0; k < c->maxruns; k++) {
			double x;

			fputc(',', f);
			if (k >= row->n)
				continue;
			sb_reset(&err);
			r = db_run_metric(db, row->ids[k], metric, &x, &err);
			if (r < 0) {
				if (err.len)
					cli_error("%s", err.buf);
				else
					cli_error_errno(r, "'%s': metric '%s' of run %lld",
							db_name(db), metric, row->ids[k]);
				outfile_close(path.buf, f, &of, false);
				goto out;
			}
			if (r > 0) {
				put_value(f, x, dec);
				v[nv++] = x;
			}
		}
		row_median(f, v, nv, dec);
	}
	if (csv_commit(f, &of, path.buf) < 0)
		goto out;
	ret = 0;
out:
	free(v);
	sb_release(&path);
	sb_release(&err);
	return ret;
}

static int matrix_db(const struct report_options *o, const char *outdir)
{
	struct db_collect c = { .include = o->include_interfered,
				.include_failed = o->include_failed };
	struct strbuf err = STRBUF_INIT;
	struct db *db = NULL;
	char **names = NULL;
	int r, status = 1, written = 0;

	sb_init(&c.left_out);
	sb_init(&c.failed);
	r = db_open(o->db, false, &db, &err);
	if (r < 0) {
		cli_error("%s", err.len ? err.buf : strerror(-r));
		goto out;
	}
	r = db_each_run(db, o->name, collect_db_run, &c, &err);
	if (r < 0 || c.err < 0) {
		if (c.err < 0)
			cli_error_errno(c.err, "'%s'", db_name(db));
		else
			cli_error("%s", err.buf);
		goto out;
	}
	if (!c.nrows && !c.nleft && !c.nfailed) {
		cli_error("'%s': no runs%s%s%s", db_name(db), o->name ? " named '" : "",
			  o->name ? o->name : "", o->name ? "'" : "");
		goto out;
	}
	r = db_metric_names(db, o->name, &names, &err);
	if (r < 0) {
		cli_error("%s", err.buf);
		goto out;
	}
	for (char **p = names; *p; p++) {
		if (write_db_metric(db, outdir, *p, &c) < 0)
			goto out;
		written++;
	}
	if (write_list(outdir, "interfered.txt", &c.left_out) < 0 ||
	    write_list(outdir, "failed.txt", &c.failed) < 0)
		goto out;
	printf("%d files in '%s' (%zu rows, from '%s')\n", written, cli_shown(outdir), c.nrows,
	       cli_shown(db_name(db)));
	print_left_out(outdir, c.nleft, &c.left_out, c.nfailed, &c.failed, o->include_failed);
	status = c.nrows ? 0 : 1;
	if (!c.nrows)
		cli_error("'%s': no runs left for the rows: every one was left out", db_name(db));
out:
	for (size_t i = 0; i < c.nrows; i++) {
		free(c.rows[i].name);
		free(c.rows[i].variant);
		free(c.rows[i].ids);
	}
	free(c.rows);
	db_free_list(names);
	db_close(db);
	sb_release(&c.left_out);
	sb_release(&c.failed);
	sb_release(&err);
	return status;
}

/* ----------------------------------------------------------- inputs */

int cmd_matrix(int argc, char **argv)
{
	struct report_options o = {
		.a = { .m = METRICS_OPTS_INIT, .fmt = FRAMELOG_AUTO },
	};
	struct strbuf left_out = STRBUF_INIT, failed_list = STRBUF_INIT, emsg = STRBUF_INIT;
	size_t nleft = 0, nfailed = 0;
	struct reload_rules *rules = NULL;
	struct analysis *as = NULL;
	struct row *rows = NULL;
	const char *outdir = NULL;
	size_t n = 0, nrows = 0, maxruns = 0, i, r;
	int first, failed = 0, m, written = 0, status = 1;
	struct report_tables rt;
	const struct opt opts[] = {
		OPT_STRING('o', "output", &outdir, "DIR", "where the CSV files go (created if missing)"),
		OPT_STRING(0, "db", &o.db, "PATH",
			   "rows from the results database (name x variant) instead\n"
			   "of INPUTs"),
		OPT_STRING(0, "name", &o.name, "N", "with --db: only the runs named N"),
		OPT_CONCAT(rt.runs),
		OPT_GROUP("the analysis, as report's:"),
		OPT_CONCAT(rt.analysis),
		OPT_CONCAT(rt.logs),
		OPT_END(),
	};

	report_tables_init(&rt, &o);
	first = opts_parse(argc, argv, opts, &matrix_help, 0);
	if (first >= 0 && report_options_check(&o) < 0)
		first = OPTS_ERROR;
	if (first >= 0 && !outdir) {
		cli_usage_error("expected -o DIR");
		first = OPTS_ERROR;
	} else if (first >= 0 && o.db && first < argc) {
		cli_usage_error("--db takes no INPUTs: the rows come from the database");
		first = OPTS_ERROR;
	} else if (first >= 0 && !o.db && first == argc) {
		cli_usage_error("expected at least one INPUT (a frame log or a run directory)");
		first = OPTS_ERROR;
	} else if (first >= 0 && o.name && !o.db) {
		cli_usage_error("--name goes with --db");
		first = OPTS_ERROR;
	}
	if (first < 0) {
		report_options_release(&o);
		return opts_exit(first);
	}
	{	/* 'm/' and 'm' name one directory: no doubled slash in what is said */
		static char od[4096];
		size_t ol = strlen(outdir);

		while (ol > 1 && outdir[ol - 1] == '/')
			ol--;
		snprintf(od, sizeof(od), "%.*s", (int)ol, outdir);
		outdir = od;
	}
	{
		int e = sf_mkdirs(outdir, sf_invoking_user(), NULL, NULL);

		if (e < 0) {
			cli_error_errno(e, "cannot create '%s'", outdir);
			goto out;
		}
	}
	if (o.db) {
		report_options_release(&o);
		return matrix_db(&o, outdir);
	}
	if (o.intf_list &&
	    cli_failed(analyse_load_intf_list(o.intf_list, &o.a.intf_list, &emsg), &emsg))
		goto out;
	o.a.intf_list_name = o.intf_list;
	if (cli_failed(analyse_load_rules(o.rules, &rules, &o.a.rules_name, &emsg), &emsg))
		goto out;
	o.a.rules = rules;
	as = calloc(argc - first, sizeof(*as));
	rows = calloc(argc - first, sizeof(*rows));
	if (!as || !rows) {
		cli_error_errno(-ENOMEM, "inputs");
		goto out;
	}
	for (i = first; i < (size_t)argc; i++) {
		const char *var;
		char *prog;

		if (cli_failed(analyse_input(argv[i], &o.a, &as[n], &emsg), &emsg)) {
			failed++;
			continue;
		}
		n++;
		if (as[n - 1].interfered == 1 && !o.include_interfered) {
			sb_addf(&left_out, "%s: %s\n", as[n - 1].source,
				as[n - 1].interference ? as[n - 1].interference : "interfered");
			nleft++;
			continue;
		}
		if (as[n - 1].failure) {
			sb_addf(&failed_list, "%s: %s\n", as[n - 1].source, as[n - 1].failure);
			nfailed++;
			if (!o.include_failed)
				continue;
		}
		prog = as[n - 1].program ? strdup(as[n - 1].program) : base_name(as[n - 1].source);
		var = as[n - 1].variant ? as[n - 1].variant : "";
		if (!prog) {
			cli_error_errno(-ENOMEM, "inputs");
			goto out;
		}
		for (r = 0; r < nrows; r++)
			if (!strcmp(rows[r].program, prog) && !strcmp(rows[r].variant, var))
				break;
		if (r == nrows) {
			rows[r].program = prog;
			rows[r].variant = var;
			nrows++;
			rows[r].idx = calloc(argc - first, sizeof(size_t));
			if (!rows[r].idx) {
				cli_error_errno(-ENOMEM, "inputs");
				goto out;
			}
		} else {
			free(prog);
		}
		rows[r].idx[rows[r].n++] = n - 1;
		if (rows[r].n > maxruns)
			maxruns = rows[r].n;
	}
	for (m = 0; m < M_COUNT; m++) {
		for (i = 0; i < n && isnan(as[i].m.v[m]); i++)
			;
		if (i == n)
			continue;	/* no input has this metric */
		if (write_metric(outdir, m, as, rows, nrows, maxruns) < 0) {
			failed++;
			break;
		}
		written++;
	}
	if (!failed && (write_list(outdir, "interfered.txt", &left_out) < 0 ||
			write_list(outdir, "failed.txt", &failed_list) < 0))
		failed++;
	if (n)
		printf("%d files in '%s' (%zu rows, %zu runs)\n", written, cli_shown(outdir), nrows,
		       n - nleft - (o.include_failed ? 0 : nfailed));
	print_left_out(outdir, nleft, &left_out, nfailed, &failed_list, o.include_failed);
	status = failed ? 1 : 0;
out:
	for (i = 0; i < n; i++)
		analysis_release(&as[i]);
	for (r = 0; r < nrows; r++) {
		free(rows[r].idx);
		free(rows[r].program);
	}
	free(rows);
	free(as);
	report_options_release(&o);
	analyse_free_list(o.a.intf_list);
	sb_release(&left_out);
	sb_release(&failed_list);
	sb_release(&emsg);
	reload_rules_free(rules);
	return status;
}
