// SPDX-License-Identifier: MIT
/*
 * history.c: `stallscope history NAME[:VARIANT]`: a benchmark's metrics over
 * its builds, per rig: each build's median with an interval, and the change
 * points E-Divisive finds among them (run/history.h, docs/HISTORY.md), as a
 * table, --json or --csv; --fail-on-change exits 4 when the newest build
 * is in a segment worse than the one before it; --junit writes one
 * testcase per rig and metric.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cmd/cmd.h"
#include "cmd/history_args.h"
#include "cmd/outfile.h"
#include "core/build.h"
#include "core/file.h"
#include "core/metrics.h"
#include "core/strbuf.h"
#include "db/db.h"
#include "out/json.h"
#include "out/junit.h"
#include "out/table.h"
#include "run/history.h"

#define DEFAULT_METRICS HISTORY_DEFAULT_METRICS


static struct {
	const char *db, *metrics, *rig, *since, *order, *junit;
	bool json, csv, fail_on_change;
	struct ediv_opts ed;
} opt;

static const struct opts_help history_help = {
	"usage: stallscope history [--db PATH] [--metrics M,...] [--rig NAME] [--since T]\n"
	"                          [--order FILE] [--json|--csv] [--fail-on-change]\n"
	"                          [--junit FILE] NAME[:VARIANT]\n"
	"\n"
	"A benchmark's metrics over its builds (record/bench --build, --build-of), per\n"
	"rig: each build's median with its interval (95% CI from 6 runs, else min..max),\n"
	"and the change points among the builds by E-Divisive with means and a\n"
	"permutation test (docs/HISTORY.md): the builds either side, the medians\n"
	"before and after, the change and its p, and for stall metrics the stall\n"
	"seconds by cause before and after. Runs without a build, interfered and\n"
	"failed runs are left out. Builds are in the order of their first run.\n"
	"\n",
	"exit status: 0 ok, 1 failure, 2 usage, 4 --fail-on-change and a metric got worse\n"
	"\n"
	"examples:\n"
	"  stallscope history game\n"
	"  stallscope history game --metrics stalls,p99_ms --rig ci-amd --json\n"
	"  stallscope history game --fail-on-change --junit history.xml\n",
};

static const char *unit_of(const char *metric)
{
	int m = metric_find(metric);

	return m >= 0 ? metric_descs[m].unit : "";
}

static void print_change(const struct history_cp *c, char *buf, size_t len)
{
	if (isfinite(c->change_pct))
		snprintf(buf, len, "%+.1f%%", c->change_pct);
	else if (c->after != c->before)
		snprintf(buf, len, "%s from 0", c->after > c->before ? "up" : "down");
	else
		snprintf(buf, len, "-");
}

static void print_causes(FILE *f, const struct history_cp *c)
{
	bool any = false;

	for (size_t i = 0; i < c->ncauses; i++) {
		const struct history_cause *z = &c->causes[i];

		if (isnan(z->before) && isnan(z->after))
			continue;
		if (fabs((isnan(z->after) ? 0 : z->after) - (isnan(z->before) ? 0 : z->before)) < 0.0005)
			continue;
		fprintf(f, "%s %s %.3f -> %.3f s", any ? "," : "; stall seconds a run by cause:",
			z->cause, z->before, z->after);
		any = true;
	}
}

static void print_text(const struct history *h)
{
	for (size_t i = 0; i < h->nseries; i++) {
		const struct history_series *s = &h->series[i];
		static const char *const hd[] = { "build", "runs", "median", "interval", "" };
		struct table *t = table_new(5, hd);
		int dir = history_worse(s->metric);
		size_t next = 0;

		printf("%s%s on rig %s (%s; %s)\n", i ? "\n" : "", s->metric, cli_shown(s->rig),
		       unit_of(s->metric), dir > 0 ? "higher is worse" : dir < 0 ? "lower is worse"
									  : "neither way is worse");
		for (size_t b = 0; t && b < s->nbuilds; b++) {
			const struct history_build *x = &s->builds[b];
			bool cp = next < s->ncps && s->cps[next].at == b;

			table_add(t, x->build);
			table_addf(t, "%zu", x->runs);
			table_addf(t, "%.4g", x->median);
			table_addf(t, "%.4g..%.4g%s", x->lo, x->hi, x->ci ? "" : " (range)");
			table_add(t, cp ? "<- change" : "");
			next += cp;
		}
		if (t)
			table_print(t, stdout);
		table_free(t);
		if (s->too_few)
			printf("  no change points: %zu build(s), a split needs at least %zu "
			       "(--min-segment %zu a side)\n", s->nbuilds, 2 * opt.ed.min_seg,
			       opt.ed.min_seg);
		else if (!s->ncps)
			printf("  no change points (alpha %g)\n", opt.ed.alpha);
		for (size_t k = 0; k < s->ncps; k++) {
			const struct history_cp *c = &s->cps[k];
			char ch[48];

			print_change(c, ch, sizeof(ch));
			printf("  change %s -> %s: %.4g -> %.4g (%s), p %.3f%s", s->builds[c->at - 1].build,
			       s->builds[c->at].build, c->before, c->after, ch, c->p,
			       c->worse ? ", WORSE" : "");
			print_causes(stdout, c);
			printf("\n");
		}
	}
	printf("\n%zu run(s) of %zu build(s) on %zu rig(s)", h->runs, h->nbuilds, h->nrigs);
	if (h->no_build || h->interfered || h->failed || h->unordered)
		printf("; left out: %zu without a build, %zu interfered, %zu failed, %zu of builds "
		       "not in --order", h->no_build, h->interfered, h->failed, h->unordered);
	printf("\n");
}

static void print_csv(const struct history *h)
{
	static const char *const hd[] = { "rig", "metric", "build", "runs", "median", "lo", "hi",
					  "interval", "change_before", "change_after", "change_pct",
					  "p", "worse" };
	struct table *t = table_new(13, hd);

	for (size_t i = 0; t && i < h->nseries; i++) {
		const struct history_series *s = &h->series[i];
		size_t next = 0;

		for (size_t b = 0; b < s->nbuilds; b++) {
			const struct history_build *x = &s->builds[b];
			const struct history_cp *c = next < s->ncps && s->cps[next].at == b ?
						     &s->cps[next++] : NULL;

			table_add(t, s->rig);
			table_add(t, s->metric);
			table_add(t, x->build);
			table_addf(t, "%zu", x->runs);
			table_addf(t, "%.17g", x->median);
			table_addf(t, "%.17g", x->lo);
			table_addf(t, "%.17g", x->hi);
			table_add(t, x->ci ? "ci95" : "range");
			if (c) {
				table_addf(t, "%.17g", c->before);
				table_addf(t, "%.17g", c->after);
				if (isfinite(c->change_pct))
					table_addf(t, "%.17g", c->change_pct);
				else
					table_add(t, NULL);
				table_addf(t, "%.6g", c->p);
				table_add(t, c->worse ? "1" : "0");
			} else {
				for (int k = 0; k < 5; k++)
					table_add(t, NULL);
			}
		}
	}
	if (t)
		table_print_csv(t, stdout);
	table_free(t);
}

static void print_json(const struct history *h, const char *name, const char *variant)
{
	struct json j;

	json_init(&j, stdout, true);
	json_obj_begin(&j);
	json_kstr(&j, "name", name);
	json_kstr(&j, "variant", variant);
	json_key(&j, "builds");
	json_arr_begin(&j);
	for (size_t i = 0; i < h->nbuilds; i++)
		json_str(&j, h->builds[i]);
	json_arr_end(&j);
	json_kuint(&j, "runs", h->runs);
	json_key(&j, "left_out");
	json_obj_begin(&j);
	json_kuint(&j, "no_build", h->no_build);
	json_kuint(&j, "interfered", h->interfered);
	json_kuint(&j, "failed", h->failed);
	json_kuint(&j, "not_in_order", h->unordered);
	json_obj_end(&j);
	json_key(&j, "method");
	json_obj_begin(&j);
	json_kstr(&j, "name", "e-divisive means");
	json_knum(&j, "alpha", opt.ed.alpha);
	json_kuint(&j, "permutations", opt.ed.permutations);
	json_knum(&j, "min_change_pct", opt.ed.min_change * 100);
	json_kuint(&j, "min_segment", opt.ed.min_seg);
	json_obj_end(&j);
	json_key(&j, "series");
	json_arr_begin(&j);
	for (size_t i = 0; i < h->nseries; i++) {
		const struct history_series *s = &h->series[i];
		int dir = history_worse(s->metric);

		json_obj_begin(&j);
		json_kstr(&j, "rig", s->rig);
		json_kstr(&j, "metric", s->metric);
		json_kstr(&j, "worse", dir > 0 ? "higher" : dir < 0 ? "lower" : NULL);
		json_kbool(&j, "too_few_builds", s->too_few);
		json_kbool(&j, "newest_worse", s->newest_worse);
		json_key(&j, "builds");
		json_arr_begin(&j);
		for (size_t b = 0; b < s->nbuilds; b++) {
			const struct history_build *x = &s->builds[b];

			json_obj_begin(&j);
			json_kstr(&j, "build", x->build);
			json_kuint(&j, "runs", x->runs);
			json_knum(&j, "median", x->median);
			json_knum(&j, "lo", x->lo);
			json_knum(&j, "hi", x->hi);
			json_kstr(&j, "interval", x->ci ? "ci95" : "range");
			json_obj_end(&j);
		}
		json_arr_end(&j);
		json_key(&j, "change_points");
		json_arr_begin(&j);
		for (size_t k = 0; k < s->ncps; k++) {
			const struct history_cp *c = &s->cps[k];

			json_obj_begin(&j);
			json_kstr(&j, "build_before", s->builds[c->at - 1].build);
			json_kstr(&j, "build_after", s->builds[c->at].build);
			json_knum(&j, "median_before", c->before);
			json_knum(&j, "median_after", c->after);
			json_knum(&j, "change_pct", c->change_pct);
			json_knum(&j, "p", c->p);
			json_kbool(&j, "worse", c->worse);
			if (c->ncauses) {
				json_key(&j, "causes");
				json_arr_begin(&j);
				for (size_t q = 0; q < c->ncauses; q++) {
					json_obj_begin(&j);
					json_kstr(&j, "cause", c->causes[q].cause);
					json_knum(&j, "before_s", c->causes[q].before);
					json_knum(&j, "after_s", c->causes[q].after);
					json_obj_end(&j);
				}
				json_arr_end(&j);
			}
			json_obj_end(&j);
		}
		json_arr_end(&j);
		json_obj_end(&j);
	}
	json_arr_end(&j);
	json_obj_end(&j);
	json_end(&j);
}

static int write_junit(const struct history *h, const char *spec)
{
	struct sf_out o;
	FILE *f = outfile_open(opt.junit, &o);
	struct strbuf suite = STRBUF_INIT, msg = STRBUF_INIT, cls = STRBUF_INIT;
	size_t fails = 0;

	if (!f)
		return -1;
	for (size_t i = 0; i < h->nseries; i++)
		fails += h->series[i].newest_worse;
	sb_addf(&suite, "stallscope history %s", spec);
	junit_begin(f, suite.buf, h->nseries, fails);
	for (size_t i = 0; i < h->nseries; i++) {
		const struct history_series *s = &h->series[i];
		const struct history_cp *c = s->ncps ? &s->cps[s->ncps - 1] : NULL;
		char ch[48];

		sb_reset(&msg);
		sb_reset(&cls);
		sb_addf(&cls, "history.%s", s->rig);
		if (s->newest_worse) {
			print_change(c, ch, sizeof(ch));
			sb_addf(&msg, "%s got worse from build %s: %.4g -> %.4g (%s), p %.3f", s->metric,
				s->builds[c->at].build, c->before, c->after, ch, c->p);
			for (size_t q = 0; q < c->ncauses; q++)
				if (isfinite(c->causes[q].after) && isfinite(c->causes[q].before) &&
				    fabs(c->causes[q].after - c->causes[q].before) >= 0.0005)
					sb_addf(&msg, "; %s %.3f -> %.3f s", c->causes[q].cause,
						c->causes[q].before, c->causes[q].after);
		}
		junit_case(f, cls.buf, s->metric, s->newest_worse ? msg.buf : NULL, NULL);
	}
	junit_end(f);
	sb_release(&suite);
	sb_release(&msg);
	sb_release(&cls);
	return outfile_close(opt.junit, f, &o, !ferror(f));
}

int cmd_history(int argc, char **argv)
{
	struct history_args ha = { 0 };
	struct opt ht[HISTORY_OPTS_N];
	const struct opt opts[] = {
		OPT_CONCAT(ht),
		OPT_BOOL(0, "json", &opt.json, "JSON"),
		OPT_BOOL(0, "csv", &opt.csv, "CSV with one row per rig, metric and build"),
		OPT_BOOL(0, "fail-on-change", &opt.fail_on_change,
			 "exit 4 when the newest build is in a segment worse than\n"
			 "the one before it (a CI gate)"),
		OPT_STRING(0, "junit", &opt.junit, "FILE",
			   "a JUnit XML report: one testcase per rig and metric"),
		OPT_END(),
	};
	struct history_opts ho = { 0 };
	struct strbuf err = STRBUF_INIT;
	struct history *h = NULL;
	struct db *db = NULL;
	char **metrics = NULL, **order = NULL, *name = NULL;
	const char *variant;
	int first, r, ret = 1;

	history_args_table(ht, &ha);
	first = opts_parse(argc, argv, opts, &history_help, 0);
	if (first < 0)
		return opts_exit(first);
	opt.db = ha.db;
	opt.metrics = ha.metrics;
	opt.rig = ha.rig;
	opt.since = ha.since;
	opt.order = ha.order;
	opt.ed = history_args_ediv(&ha);
	if (argc - first != 1)
		return cli_usage_error("expected one benchmark, NAME[:VARIANT]");
	if (opt.json && opt.csv)
		return cli_usage_error("--json and --csv exclude each other");
	if ((r = history_split_metrics(opt.metrics ? opt.metrics : DEFAULT_METRICS, &metrics)) != 0)
		return r;
	if ((r = history_split_spec(argv[first], &name, &variant)) != 0) {
		ret = r;
		goto out;
	}
	if (history_open(opt.order, opt.db, &order, &db) < 0)
		goto out;
	ho.name = name;
	ho.variant = variant;
	ho.rig = opt.rig;
	ho.since = opt.since;
	ho.order = order;
	ho.metrics = metrics;
	ho.ed = opt.ed;
	if ((r = history_compute(db, &ho, &h, &err)) < 0) {
		cli_error("%s", err.len ? err.buf : strerror(-r));
		goto out;
	}
	if (opt.json)
		print_json(h, name, ho.variant);
	else if (opt.csv)
		print_csv(h);
	else
		print_text(h);
	if (opt.junit && write_junit(h, argv[first]) < 0)
		goto out;
	ret = 0;
	if (opt.fail_on_change)
		for (size_t i = 0; i < h->nseries; i++)
			if (h->series[i].newest_worse) {
				fprintf(stderr, "stallscope history: %s on rig %s got worse from build "
					"%s (--fail-on-change)\n", h->series[i].metric,
					cli_shown(h->series[i].rig),
					h->series[i].builds[h->series[i].cps[h->series[i].ncps - 1].at].build);
				ret = EXIT_WORSE;
			}
out:
	history_free(h);
	db_close(db);
	build_list_free(metrics);
	build_list_free(order);
	free(name);
	sb_release(&err);
	return ret;
}
