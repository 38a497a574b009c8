// SPDX-License-Identifier: MIT
/*
 * html_history.c: `stallscope html --history NAME[:VARIANT]`: one
 * self-contained page of a benchmark's metrics over its builds, from the
 * results database: per metric and rig each build's median with its
 * interval, every run as a dot, and the change points history finds
 * (run/history.h: the same code, options and defaults) as marks with the
 * builds either side, the change, p and the stall causes that changed; a
 * build's runs with their run pages where they are at hand
 * (share/html/history.js draws it, src/out/html_history.c writes it).
 *
 * The data: the builds and rigs by index, the runs (id, rig, build, start,
 * run directory and whether its page is there: a stat of RUNDIR/report.html,
 * nothing read), per metric every run's value, per series the builds'
 * medians and intervals and the change points.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "cmd/history_args.h"
#include "cmd/html_history.h"
#include "cmd/outfile.h"
#include "core/build.h"
#include "core/file.h"
#include "core/metrics.h"
#include "core/strbuf.h"
#include "db/db.h"
#include "out/html_history.h"
#include "out/json.h"
#include "run/history.h"

#define DEFAULT_OUTPUT "stallscope-history.html"

static const struct opts_help html_history_help = {
	"usage: stallscope html --history NAME[:VARIANT] [--db PATH] [--rig NAME] [--since T]\n"
	"                       [--metrics M,...] [--order FILE] [-o FILE]\n"
	"\n"
	"Writes one self-contained page of a benchmark's metrics over its builds, as\n"
	"`stallscope history` computes them (docs/HISTORY.md): per metric, each build's\n"
	"median with its interval (95% CI from 6 runs, else min..max), every run as a\n"
	"dot, each rig its own series, and the change points as vertical marks whose\n"
	"tooltip gives the builds either side, the change, its p and, for stall\n"
	"metrics, the causes that changed. Clicking a build lists its runs with links\n"
	"to their run pages where a run directory holds one (report.html). Default\n"
	"output: " DEFAULT_OUTPUT ".\n"
	"\n",
	"examples:\n"
	"  stallscope html --history game -o game-history.html\n"
	"  stallscope html --history game:vsync --rig ci-amd --metrics stalls,p99_ms\n",
};

bool html_history_wanted(int argc, char *const *argv)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			return false;
		if (!strcmp(argv[i], "--history") || !strncmp(argv[i], "--history=", 10))
			return true;
	}
	return false;
}

/* A run's page, when its directory is here and holds one: 2 and its full
 * path in PAGE; 1 the directory without a page; 0 no such directory. */
static int page_of(const char *rundir, struct strbuf *page)
{
	struct strbuf p = STRBUF_INIT;
	struct stat st;
	char *full;
	int r = 0;

	sb_reset(page);
	if (!*rundir || stat(rundir, &st) < 0 || !S_ISDIR(st.st_mode))
		return 0;
	r = 1;
	if (sb_add_path(&p, rundir, "report.html") == 0 && stat(p.buf, &st) == 0 &&
	    S_ISREG(st.st_mode) && (full = realpath(p.buf, NULL))) {
		sb_adds(page, full);
		free(full);
		r = 2;
	}
	sb_release(&p);
	return r;
}

static void runs_data(struct json *j, const struct history *h)
{
	struct strbuf page = STRBUF_INIT;

	json_key(j, "runs");
	json_obj_begin(j);
	json_key(j, "id");
	json_arr_begin(j);
	for (size_t i = 0; i < h->runs; i++)
		json_int(j, h->runv[i].id);
	json_arr_end(j);
	json_key(j, "rig");
	json_arr_begin(j);
	for (size_t i = 0; i < h->runs; i++)
		json_uint(j, h->runv[i].rig);
	json_arr_end(j);
	json_key(j, "build");
	json_arr_begin(j);
	for (size_t i = 0; i < h->runs; i++)
		json_uint(j, h->runv[i].build);
	json_arr_end(j);
	json_key(j, "started");
	json_arr_begin(j);
	for (size_t i = 0; i < h->runs; i++)
		json_str(j, h->runv[i].started);
	json_arr_end(j);
	json_key(j, "dir");
	json_arr_begin(j);
	for (size_t i = 0; i < h->runs; i++)
		json_str(j, h->runv[i].rundir);
	json_arr_end(j);
	/* 0: the directory is not here, 1: here without a page, else the page */
	json_key(j, "page");
	json_arr_begin(j);
	for (size_t i = 0; i < h->runs; i++) {
		int k = page_of(h->runv[i].rundir, &page);

		if (k == 2)
			json_str(j, page.buf);
		else
			json_int(j, k);
	}
	json_arr_end(j);
	json_obj_end(j);
	sb_release(&page);
}

/* Per metric, every run's value: the value of the series of its rig. */
static void metric_data(struct json *j, const struct history *h, const char *metric)
{
	int m = metric_find(metric), dir = history_worse(metric);

	json_obj_begin(j);
	json_kstr(j, "name", metric);
	json_kstr(j, "unit", m >= 0 ? metric_descs[m].unit : "");
	json_kstr(j, "worse", dir > 0 ? "higher" : dir < 0 ? "lower" : NULL);
	json_key(j, "values");
	json_arr_begin(j);
	for (size_t i = 0; i < h->runs; i++) {
		double v = NAN;

		for (size_t k = 0; k < h->nseries; k++)
			if (!strcmp(h->series[k].metric, metric) &&
			    !strcmp(h->series[k].rig, h->rigs[h->runv[i].rig])) {
				v = h->series[k].values[i];
				break;
			}
		json_num(j, v);
	}
	json_arr_end(j);
	json_obj_end(j);
}

static size_t index_in(char *const *list, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(list[i], s))
			return i;
	return 0;
}

static void series_data(struct json *j, const struct history *h, const struct history_series *s,
			char *const *metrics)
{
	size_t nm = 0;

	while (metrics[nm])
		nm++;
	json_obj_begin(j);
	json_kuint(j, "rig", index_in(h->rigs, h->nrigs, s->rig));
	json_kuint(j, "metric", index_in(metrics, nm, s->metric));
	json_kbool(j, "too_few", s->too_few);
	json_kbool(j, "newest_worse", s->newest_worse);
	json_key(j, "b");
	json_arr_begin(j);
	for (size_t b = 0; b < s->nbuilds; b++)
		json_uint(j, s->builds[b].index);
	json_arr_end(j);
	json_key(j, "n");
	json_arr_begin(j);
	for (size_t b = 0; b < s->nbuilds; b++)
		json_uint(j, s->builds[b].runs);
	json_arr_end(j);
	json_key(j, "med");
	json_arr_begin(j);
	for (size_t b = 0; b < s->nbuilds; b++)
		json_num(j, s->builds[b].median);
	json_arr_end(j);
	json_key(j, "lo");
	json_arr_begin(j);
	for (size_t b = 0; b < s->nbuilds; b++)
		json_num(j, s->builds[b].lo);
	json_arr_end(j);
	json_key(j, "hi");
	json_arr_begin(j);
	for (size_t b = 0; b < s->nbuilds; b++)
		json_num(j, s->builds[b].hi);
	json_arr_end(j);
	json_key(j, "ci");
	json_arr_begin(j);
	for (size_t b = 0; b < s->nbuilds; b++)
		json_int(j, s->builds[b].ci);
	json_arr_end(j);
	json_key(j, "cps");
	json_arr_begin(j);
	for (size_t k = 0; k < s->ncps; k++) {
		const struct history_cp *c = &s->cps[k];

		json_obj_begin(j);
		json_kuint(j, "build_before", s->builds[c->at - 1].index);
		json_kuint(j, "build_after", s->builds[c->at].index);
		json_knum(j, "median_before", c->before);
		json_knum(j, "median_after", c->after);
		json_knum(j, "change_pct", c->change_pct);
		json_knum(j, "p", c->p);
		json_kbool(j, "worse", c->worse);
		json_key(j, "causes");
		json_arr_begin(j);
		for (size_t q = 0; q < c->ncauses; q++) {
			json_arr_begin(j);
			json_str(j, c->causes[q].cause);
			json_num(j, c->causes[q].before);
			json_num(j, c->causes[q].after);
			json_arr_end(j);
		}
		json_arr_end(j);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_obj_end(j);
}

static void page_data(struct json *j, const struct history *h, const struct history_opts *ho,
		      const char *dbname)
{
	char seed[24];

	json_obj_begin(j);
	json_kint(j, "version", 1);
	json_kstr(j, "kind", "history");
	json_kstr(j, "generator", "stallscope " STALLSCOPE_VERSION);
	json_kstr(j, "name", ho->name);
	json_kstr(j, "variant", ho->variant);
	json_kstr(j, "db", dbname);
	json_kstr(j, "rig_only", ho->rig);
	json_kstr(j, "since", ho->since);
	json_key(j, "method");
	json_obj_begin(j);
	json_kstr(j, "name", "e-divisive means");
	json_knum(j, "alpha", ho->ed.alpha);
	json_kuint(j, "permutations", ho->ed.permutations);
	json_knum(j, "min_change_pct", ho->ed.min_change * 100);
	json_kuint(j, "min_segment", ho->ed.min_seg);
	/* as a string: a double, as JavaScript reads numbers, cannot hold it */
	snprintf(seed, sizeof(seed), "%#llx", (unsigned long long)ho->ed.seed);
	json_kstr(j, "seed", seed);
	json_obj_end(j);
	json_key(j, "left_out");
	json_obj_begin(j);
	json_kuint(j, "no_build", h->no_build);
	json_kuint(j, "interfered", h->interfered);
	json_kuint(j, "failed", h->failed);
	json_kuint(j, "not_in_order", h->unordered);
	json_obj_end(j);
	json_key(j, "builds");
	json_arr_begin(j);
	for (size_t i = 0; i < h->nbuilds; i++)
		json_str(j, h->builds[i]);
	json_arr_end(j);
	json_key(j, "rigs");
	json_arr_begin(j);
	for (size_t i = 0; i < h->nrigs; i++)
		json_str(j, h->rigs[i]);
	json_arr_end(j);
	runs_data(j, h);
	json_key(j, "metrics");
	json_arr_begin(j);
	for (char *const *m = ho->metrics; *m; m++)
		metric_data(j, h, *m);
	json_arr_end(j);
	json_key(j, "series");
	json_arr_begin(j);
	for (size_t i = 0; i < h->nseries; i++)
		series_data(j, h, &h->series[i], ho->metrics);
	json_arr_end(j);
	json_obj_end(j);
}

/* The page of H to OUTPUT: 0, or 1 after saying why. */
static int write_page(const struct history *h, const struct history_opts *ho, const char *dbname,
		      const char *spec, const char *output)
{
	struct strbuf title = STRBUF_INIT;
	struct sf_out of;
	struct json j;
	char *data = NULL;
	size_t len = 0;
	FILE *mf = open_memstream(&data, &len), *f;
	bool ok;

	if (!mf) {
		cli_error_errno(-errno, "html --history");
		return 1;
	}
	json_init(&j, mf, false);
	page_data(&j, h, ho, dbname);
	json_end(&j);
	if (fclose(mf) != 0 || !data) {
		free(data);
		cli_error("html --history: out of memory");
		return 1;
	}
	sb_addf(&title, "stallscope history %s", spec);
	f = outfile_open(output, &of);
	ok = f && html_history_write(f, title.buf, data, len) == 0;
	sb_release(&title);
	free(data);
	if (!f || outfile_close(output, f, &of, ok) < 0)
		return 1;
	fprintf(stderr, "%s: wrote '%s' (%zu run%s of %zu build%s)\n", cli_prog, cli_shown(output),
		h->runs, h->runs == 1 ? "" : "s", h->nbuilds, h->nbuilds == 1 ? "" : "s");
	return 0;
}

int html_history(int argc, char **argv)
{
	struct {
		const char *spec, *output;
	} o = { .output = DEFAULT_OUTPUT };
	struct history_args ha = { 0 };
	struct opt ht[HISTORY_OPTS_N];
	const struct opt opts[] = {
		OPT_STRING(0, "history", &o.spec, "SPEC",
			   "the benchmark, NAME or NAME:VARIANT (default the base)"),
		OPT_CONCAT(ht),
		OPT_STRING('o', "output", &o.output, "FILE", "where the page goes"),
		OPT_END(),
	};
	struct history_opts ho = { .keep_runs = true };
	struct strbuf err = STRBUF_INIT;
	char **metrics = NULL, **order = NULL, *name = NULL;
	struct history *h = NULL;
	struct db *db = NULL;
	int first, r, ret = 1;

	history_args_table(ht, &ha);
	/* html --history --help: the help, though the parse would take it for
	 * --history's value */
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			opts_usage(stdout, opts, &html_history_help);
			return 0;
		}
	first = opts_parse(argc, argv, opts, &html_history_help, 0);
	if (first < 0)
		return opts_exit(first);
	ho.ed = history_args_ediv(&ha);
	if (!o.spec)
		return cli_usage_error("--history: expected a benchmark, NAME[:VARIANT]");
	if (first < argc)
		return cli_usage_error("--history takes no run directories (got '%s'): the runs "
				       "come from the database", cli_shown(argv[first]));
	if ((r = history_split_metrics(ha.metrics ? ha.metrics : HISTORY_DEFAULT_METRICS,
				       &metrics)) != 0)
		return r;
	if ((r = history_split_spec(o.spec, &name, &ho.variant)) != 0) {
		ret = r;
		goto out;
	}
	if (history_open(ha.order, ha.db, &order, &db) < 0)
		goto out;
	ho.name = name;
	ho.rig = ha.rig;
	ho.since = ha.since;
	ho.order = order;
	ho.metrics = metrics;
	if ((r = history_compute(db, &ho, &h, &err)) < 0) {
		cli_error("%s: no page written", err.len ? err.buf : strerror(-r));
		goto out;
	}
	ret = write_page(h, &ho, db_name(db), o.spec, o.output);
out:
	history_free(h);
	db_close(db);
	build_list_free(metrics);
	build_list_free(order);
	free(name);
	sb_release(&err);
	return ret;
}
