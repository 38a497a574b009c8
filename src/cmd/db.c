// SPDX-License-Identifier: MIT
/*
 * db.c: `stallscope db import RUNDIR...` indexes run directories recorded
 * before or elsewhere in the results database (analysed as `report` does,
 * one transaction per run, a run imported again replaces itself), and
 * `stallscope db info` says which database, its schema version and what it
 * holds, and `stallscope db upgrade` migrates an older database of ours
 * (reading commands never do), and `stallscope db push` sends what the
 * database did not take: a bench's spooled runs (spool.h), or an SQLite
 * file's runs into a server (--from). The tables are in docs/FORMAT.md,
 * "Results database".
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cmd/cmd.h"
#include "run/analyse.h"
#include "run/spool.h"
#include "run/store.h"
#include "core/runini.h"
#include "core/strbuf.h"
#include "db/db.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: stallscope db import [options] RUNDIR...\n"
		"       stallscope db info [--db PATH]\n"
		"       stallscope db upgrade [--db PATH]\n"
		"       stallscope db push [--db TARGET]\n"
		"       stallscope db push --from SQLITE [--to TARGET]\n"
		"\n"
		"import: analyses each run directory as 'report' does and stores it in the\n"
		"results database (creating it): the run's row from its run.ini and one row per\n"
		"metric. A run is keyed by its directory's absolute path: importing it again\n"
		"replaces it. info: the database's path, schema version and counts (it opens\n"
		"the database read-only, as runs, matrix and compare do). upgrade: migrates a\n"
		"database of an older stallscope to this one's schema, keeping every run.\n"
		"push: stores the runs a bench kept in the database's spool when the database\n"
		"could not be reached (each run directory analysed again; a run stored twice\n"
		"is one run); with --from, every run of that SQLite file (its metrics as\n"
		"stored) into TARGET, usually a PostgreSQL server, without duplicates when run\n"
		"again (a run is one per rig and run directory).\n"
		"\n"
		"options:\n"
		"  --db PATH               the database: a file or a PostgreSQL connection\n"
		"                          string (default $STALLSCOPE_DB, else\n"
		"                          $XDG_DATA_HOME/stallscope/results.db)\n"
		"  --from SQLITE           push: the file whose runs go\n"
		"  --to TARGET             push --from: where they go (default: --db's)\n"
		"  --rules FILE            reload rules for the analysis\n"
		"  --warmup S              instead of run.ini's warmup_s (default 60)\n"
		"  --stall-ms MS           a stall is a frame over MS ms (default 100)\n"
		"  --interfered-list FILE  runs named there are stored as interfered\n"
		"  -h, --help              this text\n"
		"\n"
		"EXAMPLES\n"
		"  stallscope db import runs/*/\n"
		"  stallscope db import --db results.db --interfered-list interfered.list old/*/\n"
		"  stallscope db info\n"
		"  stallscope db push --from results.db --to postgresql://rig@db.lab/bench\n");
}

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
	r = db_open(path, true, &db, &err);
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

	if (db_open(target, true, &p.db, &p.err) < 0) {
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
	if (db_open(from, false, &c.from, &c.err) < 0 || db_open(to, true, &c.to, &c.err) < 0) {
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

int cmd_db(int argc, char **argv)
{
	enum { O_DB = 256, O_RULES, O_WARMUP, O_STALL, O_LIST, O_FROM, O_TO };
	static const struct option lo[] = {
		{ "db", required_argument, NULL, O_DB },
		{ "from", required_argument, NULL, O_FROM },
		{ "to", required_argument, NULL, O_TO },
		{ "rules", required_argument, NULL, O_RULES },
		{ "warmup", required_argument, NULL, O_WARMUP },
		{ "stall-ms", required_argument, NULL, O_STALL },
		{ "interfered-list", required_argument, NULL, O_LIST },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct analyse_opts ao = { .m = METRICS_OPTS_INIT, .fmt = FRAMELOG_AUTO };
	struct strbuf path = STRBUF_INIT, err = STRBUF_INIT, made = STRBUF_INIT;
	struct reload_rules *rules = NULL;
	const char *dbp = NULL, *rules_path = NULL, *list = NULL, *sub, *from = NULL, *to = NULL;
	struct db *db = NULL;
	int c, r, ret = 1, failed = 0, imported = 0;

	optind = 1;
	while ((c = getopt_long(argc, argv, ":h", lo, NULL)) != -1) {
		switch (c) {
		case O_DB: dbp = optarg; break;
		case O_RULES: rules_path = optarg; break;
		case O_WARMUP:
			if (cli_parse_double("--warmup", optarg, 0, 1e9, &ao.m.warmup_s) < 0)
				return EXIT_USAGE;
			ao.window_given = true;
			break;
		case O_STALL:
			if (cli_parse_double("--stall-ms", optarg, 0, 1e9, &ao.m.stall_ms) < 0)
				return EXIT_USAGE;
			break;
		case O_LIST: list = optarg; break;
		case O_FROM: from = optarg; break;
		case O_TO: to = optarg; break;
		case 'h': usage(stdout); return 0;
		default: return cli_bad_option(c, argv);
		}
	}
	if (optind == argc)
		return cli_usage_error("expected a subcommand: import, info, upgrade or push");
	sub = argv[optind++];
	if (strcmp(sub, "import") && strcmp(sub, "info") && strcmp(sub, "upgrade") &&
	    strcmp(sub, "push"))
		return cli_usage_error("unknown subcommand '%s' (expected import, info, upgrade or "
				       "push)", sub);
	if ((from || to) && strcmp(sub, "push"))
		return cli_usage_error("options '--from' and '--to' are push's");
	if (to && !from)
		return cli_usage_error("option '--to' goes with '--from' (a spool's runs go to --db)");
	if (!strcmp(sub, "import") && optind == argc)
		return cli_usage_error("import: expected at least one RUNDIR");
	if (strcmp(sub, "import") && optind < argc)
		return cli_usage_error("%s: unexpected argument '%s'", sub, argv[optind]);
	if (dbp)
		sb_adds(&path, dbp);
	else if (db_default_path(&path) < 0)
		return cli_error("no database path: neither XDG_DATA_HOME nor HOME is set; give --db");
	if (!strcmp(sub, "info")) {
		r = db_open(path.buf, false, &db, &err);
		if (r < 0)
			cli_error("%s", err.len ? err.buf : strerror(-r));
		else
			ret = db_info(db);
		goto out;
	}
	if (!strcmp(sub, "upgrade")) {
		ret = db_upgrade(path.buf);
		goto out;
	}
	if (!strcmp(sub, "push")) {
		if (!from && cli_failed(analyse_load_rules(rules_path, &rules, &ao.rules_name, &err),
					&err))
			goto out;
		ao.rules = rules;
		ret = from ? push_copy(from, to ? to : path.buf) : push_spool(path.buf, &ao);
		goto out;
	}
	if (db_make_parent(path.buf, &made) < 0) {
		cli_error("cannot create the directory of '%s'", cli_shown(path.buf));
		goto out;
	}
	if (made.len)
		fprintf(stderr, "%s: created '%s' for the database '%s'\n", cli_prog,
			cli_shown(made.buf), cli_shown(path.buf));
	r = db_open(path.buf, true, &db, &err);
	if (r < 0) {
		cli_error("%s", err.len ? err.buf : strerror(-r));
		goto out;
	}
	if (cli_failed(analyse_load_rules(rules_path, &rules, &ao.rules_name, &err), &err))
		goto out;
	ao.rules = rules;
	if (list && cli_failed(analyse_load_intf_list(list, &ao.intf_list, &err), &err))
		goto out;
	ao.intf_list_name = list;
	for (; optind < argc; optind++) {
		struct analysis a;
		long long id;

		if (cli_failed(analyse_input(argv[optind], &ao, &a, &err), &err)) {
			failed++;
			continue;
		}
		if (!a.ini) {
			cli_error("'%s' is a frame log, not a run directory: only runs go into the "
				  "database", cli_shown(argv[optind]));
			analysis_release(&a);
			failed++;
			continue;
		}
		sb_reset(&err);
		id = store_run(db, argv[optind], &a, &err);
		if (id < 0) {
			cli_error("%s", err.buf);
			failed++;
		} else {
			const char *name = a.ini ? runini_get(a.ini, "name") : NULL;

			imported++;
			printf("imported '%s' as run %lld (%s:%s%s)\n", cli_shown(argv[optind]), id,
			       cli_shown(name ? name : a.program ? a.program : "-"),
			       cli_shown(a.variant ? a.variant : "-"),
			       a.interfered == 1 ? ", interfered" : "");
		}
		analysis_release(&a);
	}
	printf("%d run%s imported into '%s'%s\n", imported, imported == 1 ? "" : "s",
	       cli_shown(db_name(db)), failed ? "; some failed (see above)" : "");
	ret = failed ? 1 : 0;
out:
	analyse_free_list(ao.intf_list);
	reload_rules_free(rules);
	db_close(db);
	sb_release(&path);
	sb_release(&made);
	sb_release(&err);
	return ret;
}
