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
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "cmd/cmd.h"
#include "cmd/report.h"
#include "core/stats.h"
#include "out/table.h"

static const char usage_text[] =
	"usage: stallscope matrix -o DIR [options] INPUT...\n"
	"\n"
	"Writes DIR/<metric>.csv for every metric of report: one row per program and\n"
	"variant (from each run directory's run.ini, or a frame log's file name), one\n"
	"column per run of that row, then the median. Takes report's analysis options\n"
	"(--warmup, --from, --to, --stall-ms, --format, --rules, --program, --pass).\n"
	"\n"
	"options:\n"
	"  -o, --output DIR   where the CSV files go (created if missing)\n"
	"  -h, --help         this text\n"
	"\n"
	"EXAMPLES\n"
	"  stallscope matrix -o matrix/ runs/*/\n"
	"  stallscope matrix -o m/ --warmup 0 a.csv b.csv\n";

struct row {
	const char *program, *variant;
	size_t n;		/* runs */
	size_t *idx;		/* indices into the analyses */
};

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	while (s && !s[1] && s > p) {	/* "dir/" */
		const char *q = s - 1;

		while (q > p && *q != '/')
			q--;
		return *q == '/' ? q + 1 : q;
	}
	return s ? s + 1 : p;
}

/* Writes DIR/NAME.csv for metric M; 0 or -1 (reported). */
static int write_metric(const char *dir, int m, const struct analysis *as, const struct row *rows,
			size_t nrows, size_t maxruns)
{
	struct strbuf path = STRBUF_INIT, tmp = STRBUF_INIT;
	double *v = malloc((maxruns ? maxruns : 1) * sizeof(*v));
	size_t r, k;
	FILE *f;
	int ret = -1;

	sb_addf(&path, "%s/%s.csv", dir, metric_descs[m].name);
	sb_addf(&tmp, "%s/.%s.csv.tmp", dir, metric_descs[m].name);
	if (!v) {
		cli_error_errno(-ENOMEM, "'%s'", path.buf);
		goto out;
	}
	f = fopen(tmp.buf, "w");
	if (!f) {
		cli_error_errno(-errno, "cannot create '%s'", tmp.buf);
		goto out;
	}
	fputs("program,variant", f);
	for (k = 0; k < maxruns; k++)
		fprintf(f, ",run%zu", k + 1);
	fputs(",median\n", f);
	for (r = 0; r < nrows; r++) {
		size_t nv = 0;
		double *s;

		csv_field(f, rows[r].program);
		fputc(',', f);
		csv_field(f, rows[r].variant ? rows[r].variant : "");
		for (k = 0; k < maxruns; k++) {
			double x = k < rows[r].n ? as[rows[r].idx[k]].m.v[m] : NAN;

			fputc(',', f);
			if (!isnan(x)) {
				fprintf(f, "%.*f", metric_descs[m].decimals + 1, x);
				v[nv++] = x;
			}
		}
		s = stats_sorted_copy(v, nv);
		if (s && nv)
			fprintf(f, ",%.*f\n", metric_descs[m].decimals + 1,
				stats_quantile_sorted(s, nv, 0.5));
		else
			fputs(",\n", f);
		free(s);
	}
	if (ferror(f) | fclose(f)) {
		cli_error("cannot write '%s'", tmp.buf);
		remove(tmp.buf);
		goto out;
	}
	if (rename(tmp.buf, path.buf) < 0) {
		cli_error_errno(-errno, "cannot rename '%s' to '%s'", tmp.buf, path.buf);
		remove(tmp.buf);
		goto out;
	}
	ret = 0;
out:
	free(v);
	sb_release(&path);
	sb_release(&tmp);
	return ret;
}

int cmd_matrix(int argc, char **argv)
{
	struct report_options o = {
		.a = { .m = METRICS_OPTS_INIT, .fmt = FRAMELOG_AUTO },
	};
	struct reload_rules *rules = NULL;
	struct analysis *as = NULL;
	struct row *rows = NULL;
	const char *outdir = NULL;
	double *pass = NULL;
	size_t n = 0, nrows = 0, maxruns = 0, i, r;
	int first, failed = 0, m, written = 0, status = 1;

	first = report_parse_common(argc, argv, usage_text, &o, &pass, &outdir);
	if (first == -2)
		return 0;
	if (first < 0) {
		free(pass);
		return EXIT_USAGE;
	}
	if (!outdir || o.csv || o.json || o.cols) {
		free(pass);
		return cli_usage_error(!outdir ? "expected -o DIR"
					       : "--csv, --json and --cols are report's, not matrix's");
	}
	if (mkdir(outdir, 0777) < 0 && errno != EEXIST) {
		cli_error_errno(-errno, "cannot create '%s'", outdir);
		goto out;
	}
	if (analyse_load_rules(o.rules, &rules, &o.a.rules_name) < 0)
		goto out;
	o.a.rules = rules;
	as = calloc(argc - first, sizeof(*as));
	rows = calloc(argc - first, sizeof(*rows));
	if (!as || !rows) {
		cli_error_errno(-ENOMEM, "inputs");
		goto out;
	}
	for (i = first; i < (size_t)argc; i++) {
		const char *prog, *var;

		if (analyse_input(argv[i], &o.a, &as[n]) < 0) {
			failed++;
			continue;
		}
		prog = as[n].program ? as[n].program : base_name(as[n].source);
		var = as[n].variant ? as[n].variant : "";
		for (r = 0; r < nrows; r++)
			if (!strcmp(rows[r].program, prog) && !strcmp(rows[r].variant, var))
				break;
		if (r == nrows) {
			rows[r].program = prog;
			rows[r].variant = var;
			rows[r].idx = calloc(argc - first, sizeof(size_t));
			if (!rows[r].idx) {
				cli_error_errno(-ENOMEM, "inputs");
				n++;
				goto out;
			}
			nrows++;
		}
		rows[r].idx[rows[r].n++] = n;
		if (rows[r].n > maxruns)
			maxruns = rows[r].n;
		n++;
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
	if (n)
		printf("%d files in '%s' (%zu rows, %zu runs)\n", written, outdir, nrows, n);
	status = failed ? 1 : 0;
out:
	for (i = 0; i < n; i++)
		analysis_release(&as[i]);
	for (r = 0; r < nrows; r++)
		free(rows[r].idx);
	free(rows);
	free(as);
	free(pass);
	reload_rules_free(rules);
	return status;
}
