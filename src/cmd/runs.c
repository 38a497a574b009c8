// SPDX-License-Identifier: MIT
/*
 * runs.c: `stallscope runs [--name N] [--db PATH] [--json|--csv]`: the runs
 * in the results database, one line each (ordered by name, variant, round,
 * start): what they were, whether the watcher saw interference, and where
 * their run directory is.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "opts.h"
#include "cmd/cmd.h"
#include "core/strbuf.h"
#include "db/db.h"
#include "out/json.h"
#include "out/table.h"

struct runs_opts {
	const char *db, *name, *rig;
	bool json, csv;
};

struct runs_ctx {
	const char *rig;	/* --rig: only its runs */
	struct table *t;
	struct json *j;
	size_t n, interfered, failed;
	int err;
};

static int each_run(const struct db_run *r, void *ctx)
{
	struct runs_ctx *c = ctx;
	const char *rig = r->rig ? r->rig : "-";

	if (c->rig && strcmp(rig, c->rig))
		return 0;
	c->n++;
	c->interfered += r->interfered == 1;
	c->failed += r->failed != 0;
	if (c->j) {
		json_obj_begin(c->j);
		json_kint(c->j, "id", r->id);
		json_kstr(c->j, "name", r->name);
		json_kstr(c->j, "variant", r->variant);
		json_kstr(c->j, "switches", r->switches);
		json_kint(c->j, "round", r->round);
		json_kstr(c->j, "started", r->started);
		json_kstr(c->j, "host", r->host);
		json_kstr(c->j, "kernel", r->kernel);
		json_kstr(c->j, "rundir", r->rundir);
		if (r->interfered < 0)
			json_knull(c->j, "interfered");
		else
			json_kint(c->j, "interfered", r->interfered);
		json_kstr(c->j, "interference", r->interference);
		if (r->exit_status < 0)
			json_knull(c->j, "exit_status");
		else
			json_kint(c->j, "exit_status", r->exit_status);
		json_kbool(c->j, "failed", r->failed != 0);
		json_kstr(c->j, "failure", r->failure);
		json_kstr(c->j, "rig", rig);
		json_kstr(c->j, "build", r->build);
		json_obj_end(c->j);
		return 0;
	}
	if (table_addf(c->t, "%lld", r->id) < 0 || table_add(c->t, r->name) < 0 ||
	    table_add(c->t, r->variant) < 0 || table_addf(c->t, "%d", r->round) < 0 ||
	    table_add(c->t, rig) < 0 || table_add(c->t, r->build) < 0 ||
	    table_add(c->t, r->started) < 0 ||
	    (r->interfered < 0 ? table_add(c->t, NULL) : table_addf(c->t, "%d", r->interfered)) < 0 ||
	    (r->exit_status < 0 ? table_add(c->t, NULL) : table_addf(c->t, "%d", r->exit_status)) < 0 ||
	    table_add(c->t, r->failed ? "1" : "0") < 0 ||
	    table_add(c->t, r->rundir) < 0 || table_add(c->t, r->interference) < 0 ||
	    table_add(c->t, r->failure) < 0)
		return c->err = -1;
	return 0;
}

static const struct opts_help runs_help = {
	"usage: stallscope runs [--name N] [--rig NAME] [--db PATH] [--json | --csv]\n"
	"\n"
	"Lists the runs in the results database: id, name, variant, round, the rig\n"
	"(machine) that made it ('-': recorded before rigs were), the build it\n"
	"measured ('-': none given: record --build), start (UTC),\n"
	"intf (1 interfered, 0 clean, - not watched), the program's exit status,\n"
	"failed (1: the program failed, no frames or it ended short), the run\n"
	"directory, the watcher's summary and why the run failed. Interfered and\n"
	"failed runs stay in the database and out of every median.\n"
	"\n",
	"EXAMPLES\n"
	"  stallscope runs\n"
	"  stallscope runs --name fakegame --json | jq '.[] | select(.interfered == 1)'\n",
};

int cmd_runs(int argc, char **argv)
{
	static const char *const hdr[] = { "id", "name", "variant", "round", "rig", "build",
					   "started",
					   "intf", "exit", "failed", "rundir", "interference",
					   "failure" };
	struct runs_opts o = { 0 };
	const struct opt opts[] = {
		OPT_STRING(0, "name", &o.name, "N", "only the runs of benchmark N"),
		OPT_STRING(0, "rig", &o.rig, "NAME", "only the runs of rig NAME"),
		OPT_STRING(0, "db", &o.db, "PATH",
			   "the database: a file or a PostgreSQL connection string\n"
			   "(default $STALLSCOPE_DB, else $XDG_DATA_HOME/stallscope/results.db)"),
		OPT_BOOL(0, "json", &o.json, "a JSON array, one object per run"),
		OPT_BOOL(0, "csv", &o.csv, "CSV"),
		OPT_END(),
	};
	struct runs_ctx ctx = { 0 };

	struct strbuf path = STRBUF_INIT, err = STRBUF_INIT;
	struct db *db = NULL;
	struct json j;
	int first, r, ret = 1;

	first = opts_parse(argc, argv, opts, &runs_help, 0);
	if (first < 0)
		return opts_exit(first);
	if (first < argc)
		return cli_usage_error("unexpected argument '%s'", argv[first]);
	if (o.json && o.csv)
		return cli_usage_error("expected one of --csv and --json, got both");
	if (o.db)
		sb_adds(&path, o.db);
	else if (db_default_path(&path) < 0)
		return cli_error("no database path: neither XDG_DATA_HOME nor HOME is set; give --db");
	ctx.rig = o.rig;
	r = db_open(path.buf, false, &db, &err);
	if (r < 0) {
		cli_error("%s", err.len ? err.buf : strerror(-r));
		goto out;
	}
	if (o.json) {
		json_init(&j, stdout, true);
		json_arr_begin(&j);
		ctx.j = &j;
	} else {
		ctx.t = table_new(sizeof(hdr) / sizeof(hdr[0]), hdr);
		if (!ctx.t) {
			cli_error_errno(-ENOMEM, "table");
			goto out;
		}
	}
	r = db_each_run(db, o.name, each_run, &ctx, &err);
	if (r < 0 || ctx.err) {
		if (ctx.j)
			json_arr_end(ctx.j);
		cli_error("%s", r < 0 ? err.buf : "out of memory");
		goto out;
	}
	if (ctx.j) {
		json_arr_end(&j);
		json_end(&j);
	} else if (o.csv) {
		table_print_csv(ctx.t, stdout);
	} else if (ctx.n) {
		table_print(ctx.t, stdout);
		printf("%zu run%s, %zu interfered, %zu failed (left out of medians)\n", ctx.n,
		       ctx.n == 1 ? "" : "s", ctx.interfered, ctx.failed);
	} else {
		printf("no runs%s%s%s in '%s'\n", o.name ? " named '" : "",
		       o.name ? cli_shown(o.name) : "", o.name ? "'" : "", cli_shown(db_name(db)));
	}
	ret = 0;
out:
	table_free(ctx.t);
	db_close(db);
	sb_release(&path);
	sb_release(&err);
	return ret;
}
