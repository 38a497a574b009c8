// SPDX-License-Identifier: MIT
/*
 * db.c: `stallscope db import RUNDIR...` indexes run directories recorded
 * before or elsewhere in the results database (analysed as `report` does,
 * one transaction per run, a run imported again replaces itself), and
 * `stallscope db info` says which database, its schema version and what it
 * holds, and `stallscope db upgrade` migrates an older database of ours
 * (reading commands never do), and `stallscope db push` sends what the
 * database did not take: a bench's spooled runs (spool.h), or an SQLite
 * file's runs into a server (--from-db). The subcommands are a table, each
 * with its options' table (perf's way: cmd_sched's subcommands). The tables are in docs/FORMAT.md,
 * "Results database".
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cmd/outfile.h"
#include "cmd/cmd.h"
#include "cmd/report.h"
#include "run/analyse.h"
#include "run/spool.h"
#include "run/store.h"
#include "core/runini.h"
#include "core/strbuf.h"
#include "db/db.h"

/* db upgrade: an existing database of ours, migrated (a new one is not
 * made: there would be nothing to keep). 0, or 1 reported. */
static int db_upgrade(const char *path)
{
	struct strbuf err = STRBUF_INIT;
	struct db *db = NULL;
	int r;

	r = db_open(path, false, &db, &err);
	if (r == 0) {
		printf("%s: schema version %d, nothing to upgrade\n", cli_shown(db_name(db)),
		       db_schema_version(db));
		db_close(db);
		sb_release(&err);
		return 0;
	}
	if (r != -EPROTO) {
		cli_error("%s", err.len ? err.buf : strerror(-r));
		sb_release(&err);
		return 1;
	}
	sb_reset(&err);
	r = outfile_db_open(path, &db, &err);
	if (r < 0) {
		cli_error("%s", err.len ? err.buf : strerror(-r));
		sb_release(&err);
		return 1;
	}
	printf("%s: upgraded to schema version %d\n", cli_shown(db_name(db)),
	       db_schema_version(db));
	db_close(db);
	sb_release(&err);
	return 0;
}

struct count_ctx {
	size_t runs, interfered, failed;
};

static int count_run(const struct db_run *r, void *ctx)
{
	struct count_ctx *c = ctx;

	c->runs++;
	c->interfered += r->interfered == 1;
	c->failed += r->failed != 0;
	return 0;
}

static int db_info(struct db *db)
{
	struct strbuf err = STRBUF_INIT;
	struct count_ctx c = { 0 };
	char **names = NULL;
	size_t nm = 0;

	if (db_each_run(db, NULL, count_run, &c, &err) < 0 ||
	    db_metric_names(db, NULL, &names, &err) < 0) {
		cli_error("%s", err.buf);
		sb_release(&err);
		return 1;
	}
	while (names[nm])
		nm++;
	printf("database:       %s (%s)\n", cli_shown(db_name(db)), db_backend(db));
	printf("schema version: %d\n", db_schema_version(db));
	printf("runs:           %zu (%zu interfered, %zu failed)\n", c.runs, c.interfered,
	       c.failed);
	printf("metrics:        %zu names\n", nm);
	db_free_list(names);
	sb_release(&err);
	return 0;
}

/* ------------------------------------------------------------ push */

struct push_ctx {
	struct db *db;
	const struct analyse_opts *ao;
	struct strbuf err;
};

/* One spooled run directory into the database: 0 sent, -1 (said) kept. */
static int push_one(void *ctx, const char *rundir)
{
	struct push_ctx *p = ctx;
	struct analysis a;
	long long id;

	sb_reset(&p->err);
	if (cli_failed(analyse_input(rundir, p->ao, &a, &p->err), &p->err))
		return -1;
	sb_reset(&p->err);
	id = store_run(p->db, rundir, &a, &p->err);
	analysis_release(&a);
	if (id < 0) {
		cli_error("%s", p->err.buf);
		return -1;
	}
	printf("pushed '%s' as run %lld\n", cli_shown(rundir), id);
	return 0;
}

static int push_spool(const char *target, const struct analyse_opts *ao)
{
	struct push_ctx p = { .ao = ao, .err = STRBUF_INIT };
	size_t left = 0;
	int n, ret = 1;

	if (outfile_db_open(target, &p.db, &p.err) < 0) {
		cli_error("%s", p.err.buf);
		goto out;
	}
	n = spool_push(db_name(p.db), push_one, &p, &left, &p.err);
	if (n < 0) {
		cli_error("%s", p.err.buf);
		goto out;
	}
	printf("%d spooled run%s pushed into '%s'", n, n == 1 ? "" : "s", cli_shown(db_name(p.db)));
	if (left)
		printf("; %zu could not be, and stay in the spool (see above)", left);
	printf("\n");
	ret = left ? 1 : 0;
out:
	db_close(p.db);
	sb_release(&p.err);
	return ret;
}

struct copy_ctx {
	struct db *from, *to;
	char **names;
	size_t nnames, copied, failed;
	double *vals;
	struct strbuf err;
};

static int copy_run(const struct db_run *run, void *ctx)
{
	struct copy_ctx *c = ctx;
	struct db_run r = *run;

	sb_reset(&c->err);
	for (size_t k = 0; k < c->nnames; k++) {
		double v;
		int got = db_run_metric(c->from, run->id, c->names[k], &v, &c->err);

		if (got < 0)
			return got;	/* the source is broken: said in c->err */
		c->vals[k] = got ? v : NAN;
	}
	r.rig_info = NULL;
	sb_reset(&c->err);
	if (db_add_run(c->to, &r, (const char *const *)c->names, c->vals, c->nnames, &c->err) < 0) {
		cli_error("%s", c->err.buf);
		c->failed++;
		return db_lost(c->to) ? -EIO : 0;
	}
	c->copied++;
	return 0;
}

static int push_copy(const char *from, const char *to)
{
	struct copy_ctx c = { .err = STRBUF_INIT };
	int n, ret = 1;

	if (db_target_is_server(from)) {
		cli_error("--from: expected an SQLite file, got a connection string");
		return 1;
	}
	if (db_open(from, false, &c.from, &c.err) < 0 || outfile_db_open(to, &c.to, &c.err) < 0) {
		cli_error("%s", c.err.buf);
		goto out;
	}
	n = db_metric_names(c.from, NULL, &c.names, &c.err);
	if (n < 0 || !(c.vals = calloc((size_t)n + 1, sizeof(*c.vals)))) {
		cli_error("%s", c.err.len ? c.err.buf : "out of memory");
		goto out;
	}
	c.nnames = (size_t)n;
	if (db_each_run(c.from, NULL, copy_run, &c, &c.err) < 0) {
		cli_error("%s", c.err.len ? c.err.buf : "the copy stopped: the target is gone");
		goto out;
	}
	printf("%zu run%s of '%s' pushed into '%s'%s\n", c.copied, c.copied == 1 ? "" : "s",
	       cli_shown(db_name(c.from)), cli_shown(db_name(c.to)),
	       c.failed ? "; some failed (see above)" : "");
	ret = c.failed ? 1 : 0;
out:
	db_free_list(c.names);
	free(c.vals);
	db_close(c.from);
	db_close(c.to);
	sb_release(&c.err);
	return ret;
}

/* ------------------------------------------------------------------ options */

#define DB_HELP "the database: a file or a PostgreSQL connection\n" \
		"string (default $STALLSCOPE_DB, else\n" \
		"$XDG_DATA_HOME/stallscope/results.db)"

/* What every subcommand takes: --db PATH, and import's and push's analysis
 * (report's --warmup, --stall-ms, --rules). */
struct db_args {
	struct report_options o;
	struct report_tables rt;
	const char *db;
	struct strbuf path;	/* --db's, or the default */
};

/* Parses ARGV by OPTS with HELP; the index of the first operand, or
 * OPTS_HELP, OPTS_ERROR. Then the database's path into A->path. */
static int db_parse(struct db_args *a, int argc, char **argv, const struct opt *opts,
		    const struct opts_help *help)
{
	int first = opts_parse(argc, argv, opts, help, 0);

	if (first < 0)
		return first;
	if (a->db)
		sb_adds(&a->path, a->db);
	else if (db_default_path(&a->path) < 0)
		return cli_error("no database path: neither XDG_DATA_HOME nor HOME is set; give "
				 "--db") ? OPTS_ERROR : OPTS_ERROR;
	return first;
}

static void db_args_release(struct db_args *a)
{
	report_options_release(&a->o);
	sb_release(&a->path);
}

/* ------------------------------------------------------------------ import */

static int sub_import(int argc, char **argv)
{
	struct db_args a = { .o = { .a = { .m = METRICS_OPTS_INIT, .fmt = FRAMELOG_AUTO } } };
	const struct opt opts[] = {
		OPT_STRING(0, "db", &a.db, "PATH", DB_HELP),
		OPT_CONCAT(a.rt.base),
		OPT_STRING(0, "interfered-list", &a.o.intf_list, "FILE",
			   "runs named there are stored as interfered"),
		OPT_END(),
	};
	static const struct opts_help help = {
		"usage: stallscope db import [options] RUNDIR...\n"
		"\n"
		"Analyses each run directory as 'report' does and stores it in the results\n"
		"database (creating it): the run's row from its run.ini and one row per\n"
		"metric. A run is keyed by its directory's absolute path: importing it again\n"
		"replaces it.\n"
		"\n",
		"EXAMPLES\n"
		"  stallscope db import runs/*/\n"
		"  stallscope db import --db results.db --interfered-list interfered.list old/*/\n",
	};
	struct analyse_opts *ao = &a.o.a;
	struct strbuf err = STRBUF_INIT, made = STRBUF_INIT;
	struct reload_rules *rules = NULL;
	struct db *db = NULL;
	int first, r, ret = 1, failed = 0, imported = 0;

	report_tables_init(&a.rt, &a.o);
	first = db_parse(&a, argc, argv, opts, &help);
	if (first >= 0 && first == argc)
		first = opts_error("import: expected at least one RUNDIR");
	if (first < 0) {
		db_args_release(&a);
		return opts_exit(first);
	}
	if (db_make_parent(a.path.buf, &made) < 0) {
		cli_error("cannot create the directory of '%s'", cli_shown(a.path.buf));
		goto out;
	}
	if (made.len)
		fprintf(stderr, "%s: created '%s' for the database '%s'\n", cli_prog,
			cli_shown(made.buf), cli_shown(a.path.buf));
	r = outfile_db_open(a.path.buf, &db, &err);
	if (r < 0) {
		cli_error("%s", err.len ? err.buf : strerror(-r));
		goto out;
	}
	if (cli_failed(analyse_load_rules(a.o.rules, &rules, &ao->rules_name, &err), &err))
		goto out;
	ao->rules = rules;
	if (a.o.intf_list &&
	    cli_failed(analyse_load_intf_list(a.o.intf_list, &ao->intf_list, &err), &err))
		goto out;
	ao->intf_list_name = a.o.intf_list;
	for (int i = first; i < argc; i++) {
		struct analysis an;
		long long id;

		if (cli_failed(analyse_input(argv[i], ao, &an, &err), &err)) {
			failed++;
			continue;
		}
		if (!an.ini) {
			cli_error("'%s' is a frame log, not a run directory: only runs go into the "
				  "database", cli_shown(argv[i]));
			analysis_release(&an);
			failed++;
			continue;
		}
		sb_reset(&err);
		id = store_run(db, argv[i], &an, &err);
		if (id < 0) {
			cli_error("%s", err.buf);
			failed++;
		} else {
			const char *name = an.ini ? runini_get(an.ini, "name") : NULL;

			imported++;
			printf("imported '%s' as run %lld (%s:%s%s)\n", cli_shown(argv[i]), id,
			       cli_shown(name ? name : an.program ? an.program : "-"),
			       cli_shown(an.variant ? an.variant : "-"),
			       an.interfered == 1 ? ", interfered" : "");
		}
		analysis_release(&an);
	}
	printf("%d run%s imported into '%s'%s\n", imported, imported == 1 ? "" : "s",
	       cli_shown(db_name(db)), failed ? "; some failed (see above)" : "");
	ret = failed ? 1 : 0;
out:
	analyse_free_list(ao->intf_list);
	reload_rules_free(rules);
	db_close(db);
	db_args_release(&a);
	sb_release(&made);
	sb_release(&err);
	return ret;
}

/* ------------------------------------------------------------------ info, upgrade */

static int sub_info(int argc, char **argv)
{
	struct db_args a = { 0 };
	const struct opt opts[] = {
		OPT_STRING(0, "db", &a.db, "PATH", DB_HELP),
		OPT_END(),
	};
	static const struct opts_help help = {
		"usage: stallscope db info [--db PATH]\n"
		"\n"
		"The database's path, schema version and counts (it opens the database\n"
		"read-only, as runs, matrix and compare do).\n"
		"\n",
		"EXAMPLES\n"
		"  stallscope db info\n",
	};
	struct strbuf err = STRBUF_INIT;
	struct db *db = NULL;
	int first, r, ret = 1;

	first = db_parse(&a, argc, argv, opts, &help);
	if (first >= 0 && first < argc)
		first = opts_error("info: unexpected argument '%s'", argv[first]);
	if (first < 0) {
		db_args_release(&a);
		return opts_exit(first);
	}
	r = db_open(a.path.buf, false, &db, &err);
	if (r < 0)
		cli_error("%s", err.len ? err.buf : strerror(-r));
	else
		ret = db_info(db);
	db_close(db);
	db_args_release(&a);
	sb_release(&err);
	return ret;
}

static int sub_upgrade(int argc, char **argv)
{
	struct db_args a = { 0 };
	const struct opt opts[] = {
		OPT_STRING(0, "db", &a.db, "PATH", DB_HELP),
		OPT_END(),
	};
	static const struct opts_help help = {
		"usage: stallscope db upgrade [--db PATH]\n"
		"\n"
		"Migrates a database of an older stallscope to this one's schema, keeping\n"
		"every run (reading commands never do).\n"
		"\n",
		NULL,
	};
	int first, ret;

	first = db_parse(&a, argc, argv, opts, &help);
	if (first >= 0 && first < argc)
		first = opts_error("upgrade: unexpected argument '%s'", argv[first]);
	if (first < 0) {
		db_args_release(&a);
		return opts_exit(first);
	}
	ret = db_upgrade(a.path.buf);
	db_args_release(&a);
	return ret;
}

/* ------------------------------------------------------------------ push */

static int sub_push(int argc, char **argv)
{
	struct db_args a = { .o = { .a = { .m = METRICS_OPTS_INIT, .fmt = FRAMELOG_AUTO } } };
	const char *from = NULL, *to = NULL;
	const struct opt opts[] = {
		OPT_STRING(0, "db", &a.db, "TARGET", DB_HELP),
		OPT_STRING(0, "from-db", &from, "SQLITE", "the file whose runs go (instead of the spool)"),
		OPT_STRING(0, "to-db", &to, "TARGET", "with --from-db: where they go (default: --db's)"),
		OPT_GROUP("the spooled runs' analysis:"),
		OPT_CONCAT(a.rt.base),
		OPT_END(),
	};
	static const struct opts_help help = {
		"usage: stallscope db push [--db TARGET] [options]\n"
		"       stallscope db push --from-db SQLITE [--to-db TARGET]\n"
		"\n"
		"Stores the runs a bench kept in the database's spool when the database\n"
		"could not be reached (each run directory analysed again; a run stored twice\n"
		"is one run); with --from-db, every run of that SQLite file (its metrics as\n"
		"stored) into TARGET, usually a PostgreSQL server, without duplicates when\n"
		"run again (a run is one per rig and run directory).\n"
		"\n",
		"EXAMPLES\n"
		"  stallscope db push --db postgresql://rig@db.lab/bench\n"
		"  stallscope db push --from-db results.db --to-db postgresql://rig@db.lab/bench\n",
	};
	struct strbuf err = STRBUF_INIT;
	struct reload_rules *rules = NULL;
	int first, ret = 1;

	report_tables_init(&a.rt, &a.o);
	first = db_parse(&a, argc, argv, opts, &help);
	if (first >= 0 && first < argc)
		first = opts_error("push: unexpected argument '%s'", argv[first]);
	else if (first >= 0 && to && !from)
		first = opts_error("option '--to-db' goes with '--from-db' (a spool's runs go to "
				   "--db)");
	if (first < 0) {
		db_args_release(&a);
		return opts_exit(first);
	}
	if (from) {
		ret = push_copy(from, to ? to : a.path.buf);
	} else if (!cli_failed(analyse_load_rules(a.o.rules, &rules, &a.o.a.rules_name, &err),
			       &err)) {
		a.o.a.rules = rules;
		ret = push_spool(a.path.buf, &a.o.a);
	}
	reload_rules_free(rules);
	db_args_release(&a);
	sb_release(&err);
	return ret;
}

/* ------------------------------------------------------------------ the table */

static const struct db_subcommand {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
} db_subcommands[] = {
	{ "import", sub_import, "analyse run directories and store them (creating the database)" },
	{ "info", sub_info, "the database's path, schema version and counts" },
	{ "upgrade", sub_upgrade, "migrate a database of an older stallscope" },
	{ "push", sub_push, "store the spooled runs, or an SQLite file's runs, in the database" },
};

static void db_usage(FILE *f)
{
	fprintf(f, "usage: stallscope db SUBCOMMAND [options] [args]\n"
		   "       stallscope db SUBCOMMAND --help\n\n"
		   "The results database (docs/FORMAT.md, \"Results database\").\n\n"
		   "subcommands:\n");
	for (size_t i = 0; i < sizeof(db_subcommands) / sizeof(db_subcommands[0]); i++)
		fprintf(f, "  %-8s %s\n", db_subcommands[i].name, db_subcommands[i].summary);
	fprintf(f, "\noptions:\n  -h, --help  this text\n");
}

int cmd_db(int argc, char **argv)
{
	static char prog[64];
	const char *sub = argc > 1 ? argv[1] : NULL;

	if (sub && (!strcmp(sub, "--help") || !strcmp(sub, "-h"))) {
		db_usage(stdout);
		return 0;
	}
	if (sub && !strcmp(sub, "--list-options"))
		return 0;	/* none of its own: each subcommand's --list-options */
	if (!sub)
		return cli_usage_error("expected a subcommand: import, info, upgrade or push");
	for (size_t i = 0; i < sizeof(db_subcommands) / sizeof(db_subcommands[0]); i++) {
		if (strcmp(sub, db_subcommands[i].name))
			continue;
		snprintf(prog, sizeof(prog), "%s %s", cli_prog, sub);
		cli_prog = prog;
		return db_subcommands[i].fn(argc - 1, argv + 1);
	}
	if (sub[0] == '-')
		return cli_usage_error("unknown option '%.*s' (options go after the subcommand: "
				       "import, info, upgrade or push)", (int)strcspn(sub, "="), sub);
	return cli_usage_error("unknown subcommand '%s' (expected import, info, upgrade or push)",
			       sub);
}
