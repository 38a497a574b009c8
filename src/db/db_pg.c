// SPDX-License-Identifier: MIT
/*
 * db_pg.c: the results database on a PostgreSQL server, through libpq (db.h,
 * db_int.h): the store many rigs write to at once.
 *
 * The schema is SQLite's in PostgreSQL's types (bigint identity ids,
 * timestamptz for a run's start, double precision values) with the same
 * migrations; the version is the one row of stallscope_schema. Each
 * migration and each run is one transaction; migrations take an advisory
 * lock first, so two rigs opening a new database at once migrate it once.
 * Every query is parameterised. Messages name the database by its
 * connection string without the password (db_target_safe). libpq's own
 * messages name the host, port, user and database, and its parse errors
 * quote pieces of the string; the target is parsed (db_target.c) before
 * libpq connects, so no parse error reaches one, and every libpq message is
 * scrubbed of the target's passwords all the same (db_scrub).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/db_int.h"

#ifdef SS_HAVE_LIBPQ
#include "db/db_libpq.h"

#define C(db) ((PGconn *)(db)->h)
#define MIGRATION_LOCK 0x5354414c4c53434fll	/* "STALLSCO" */

/* migrations[v] takes a database from version v to v + 1 (db_sqlite.c's, in
 * PostgreSQL's dialect) */
static const char *const migrations[] = {
	/* 0 -> 1: runs and their metrics */
	"CREATE TABLE runs ("
	" id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,"
	" name text NOT NULL,"
	" variant text NOT NULL,"
	" switches text,"
	" round integer NOT NULL DEFAULT 0,"
	" started timestamptz,"
	" host text,"
	" kernel text,"
	" rundir text UNIQUE,"
	" interfered integer,"
	" exit_status integer);"
	"CREATE INDEX runs_by_name ON runs(name, variant);"
	"CREATE TABLE metrics ("
	" run_id bigint NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	" metric text NOT NULL,"
	" value double precision NOT NULL,"
	" PRIMARY KEY (run_id, metric));",
	/* 1 -> 2: the watcher's summary beside the verdict; metric lookups */
	"ALTER TABLE runs ADD COLUMN interference text;"
	"CREATE INDEX metrics_by_metric ON metrics(metric);",
	/* 2 -> 3: failed runs, left out of medians */
	"ALTER TABLE runs ADD COLUMN failed integer NOT NULL DEFAULT 0;"
	"ALTER TABLE runs ADD COLUMN failure text;"
	"UPDATE runs SET failed = 1, failure = 'the program exited with status ' || exit_status"
	" WHERE exit_status > 0;",
	/* 3 -> 4: rigs; a run is one per (rig, rundir) */
	"CREATE TABLE rigs ("
	" rig text PRIMARY KEY,"
	" host text, kernel text, cpu text, cpus integer, mem_kb bigint, gpu text,"
	" version text, seen timestamptz);"
	"ALTER TABLE runs ADD COLUMN rig text NOT NULL DEFAULT '-';"
	"ALTER TABLE runs DROP CONSTRAINT runs_rundir_key;"
	"ALTER TABLE runs ADD CONSTRAINT runs_rig_rundir UNIQUE (rig, rundir);"
	"CREATE INDEX runs_by_rig ON runs(rig);",
	/* 4 -> 5: the build a run measured */
	"ALTER TABLE runs ADD COLUMN build text;",
};

_Static_assert(sizeof(migrations) / sizeof(migrations[0]) == DB_SCHEMA_VERSION,
	       "a migration for each schema version");

static int fail(struct db *db, struct strbuf *err, int r, const char *what, const PGresult *res)
{
	const char *m = res ? pq.PQresultErrorMessage(res) : pq.PQerrorMessage(C(db));
	size_t n = strlen(m);

	while (n && (m[n - 1] == '\n' || m[n - 1] == ' '))
		n--;
	if (err) {
		size_t from = err->len;

		sb_addf(err, "'%s': %s: %.*s", db->name, what, (int)n, m);
		db_scrub(db->secrets, err, from);
	}
	return r;
}

/* Runs SQL (no parameters, no rows wanted). */
static int exec(struct db *db, const char *sql, struct strbuf *err, const char *what)
{
	PGresult *res = pq.PQexec(C(db), sql);
	int r = pq.PQresultStatus(res) == PGRES_COMMAND_OK || pq.PQresultStatus(res) == PGRES_TUPLES_OK
			? 0 : fail(db, err, -EIO, what, res);

	pq.PQclear(res);
	return r;
}

/* A query with N text parameters (NULL: SQL NULL); NULL result after an
 * error (said in ERR). */
static PGresult *query(struct db *db, const char *sql, int n, const char *const *params,
		       struct strbuf *err, const char *what)
{
	PGresult *res = pq.PQexecParams(C(db), sql, n, NULL, params, NULL, NULL, 0);
	ExecStatusType st = pq.PQresultStatus(res);

	if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK)
		return res;
	fail(db, err, -EIO, what, res);
	pq.PQclear(res);
	return NULL;
}

static void ignore_notice(void *arg, const char *msg)
{
	(void)arg;
	(void)msg;
}

/* The stored version (0: none yet), -1 after an error; *ret_foreign when
 * tables named as ours exist without our version table. */
static int read_version(struct db *db, bool *ret_foreign, struct strbuf *err)
{
	PGresult *res = query(db, "SELECT to_regclass('stallscope_schema') IS NOT NULL,"
				  " to_regclass('runs') IS NOT NULL OR to_regclass('metrics') IS NOT NULL",
			      0, NULL, err, "unable to read the schema version");
	bool have, tables;
	int v = 0;

	if (!res)
		return -1;
	have = !strcmp(pq.PQgetvalue(res, 0, 0), "t");
	tables = !strcmp(pq.PQgetvalue(res, 0, 1), "t");
	pq.PQclear(res);
	*ret_foreign = !have && tables;
	if (!have)
		return 0;
	res = query(db, "SELECT coalesce(max(version), 0) FROM stallscope_schema", 0, NULL, err,
		    "unable to read the schema version");
	if (!res)
		return -1;
	v = atoi(pq.PQgetvalue(res, 0, 0));
	pq.PQclear(res);
	return v;
}

static int pg_schema_version(struct db *db)
{
	bool foreign;
	int v = read_version(db, &foreign, NULL);

	return v < 0 ? -EIO : v;
}

/* One migration a transaction, under the advisory lock; a step another
 * writer took meanwhile is skipped. */
static int migrate(struct db *db, struct strbuf *err)
{
	char lock[96], set[96];

	snprintf(lock, sizeof(lock), "SELECT pg_advisory_xact_lock(%lld)", MIGRATION_LOCK);
	for (int v = 0; v < DB_SCHEMA_VERSION; v++) {
		bool foreign;
		int now, r;

		r = exec(db, "BEGIN", err, "unable to begin the migration");
		r = r ? r : exec(db, lock, err, "unable to lock the schema");
		r = r ? r : exec(db, "CREATE TABLE IF NOT EXISTS stallscope_schema (version integer NOT NULL)",
				 err, "schema migration failed");
		now = r ? -1 : read_version(db, &foreign, err);
		if (now < 0) {
			exec(db, "ROLLBACK", NULL, NULL);
			return r ? r : -EIO;
		}
		if (now > v) {
			exec(db, "COMMIT", NULL, NULL);
			continue;
		}
		snprintf(set, sizeof(set), "DELETE FROM stallscope_schema;"
			 " INSERT INTO stallscope_schema VALUES (%d)", v + 1);
		r = exec(db, migrations[v], err, "schema migration failed");
		r = r ? r : exec(db, set, err, "schema migration failed");
		if (r) {
			exec(db, "ROLLBACK", NULL, NULL);
			return r;
		}
		r = exec(db, "COMMIT", err, "unable to commit the migration");
		if (r)
			return r;
	}
	return 0;
}

static int pg_open(struct db *db, const char *target, bool write, struct strbuf *err)
{
	bool foreign = false;
	int v;

	if (pq_load(NULL) < 0) {
		if (err) {
			sb_addf(err, "'%s': ", db->name);
			pq_load(err);
		}
		return -ENOTSUP;
	}
	db->h = pq.PQconnectdb(target);
	if (!db->h)
		return -ENOMEM;
	if (pq.PQstatus(C(db)) != CONNECTION_OK)
		return fail(db, err, -ECONNREFUSED, "cannot connect", NULL);
	pq.PQsetNoticeProcessor(C(db), ignore_notice, NULL);
	v = read_version(db, &foreign, err);
	if (v < 0)
		return -EIO;
	if (foreign) {
		if (err)
			sb_addf(err, "'%s': not a stallscope results database (its tables runs or "
				     "metrics are not ours)", db->name);
		return -EINVAL;
	}
	if (v > DB_SCHEMA_VERSION) {
		if (err)
			sb_addf(err, "'%s': schema version %d is newer than this stallscope knows (%d)",
				db->name, v, DB_SCHEMA_VERSION);
		return -EPROTONOSUPPORT;
	}
	if (!write && v == 0) {
		if (err)
			sb_addf(err, "'%s': no stallscope results there yet", db->name);
		return -ENOENT;
	}
	if (!write && v < DB_SCHEMA_VERSION) {
		if (err)
			sb_addf(err, "'%s': schema version %d is older than this stallscope's (%d); "
				     "'stallscope db upgrade' upgrades it, keeping every run",
				db->name, v, DB_SCHEMA_VERSION);
		return -EPROTO;
	}
	return write ? migrate(db, err) : 0;
}

static void pg_close(struct db *db)
{
	pq.PQfinish(C(db));
}

static long long pg_add_run(struct db *db, const struct db_run *run, const char *const *names,
			    const double *values, size_t n, struct strbuf *err)
{
	static const char ins_run[] =
		"INSERT INTO runs (name, variant, switches, round, started, host, kernel,"
		" rundir, interfered, interference, exit_status, failed, failure, rig, build)"
		" VALUES ($1, $2, $3, $4, $5::timestamptz, $6, $7, $8, $9, $10, $11, $12, $13, $14,"
		" $15)"
		" RETURNING id";
	static const char put_rig[] =
		"INSERT INTO rigs (rig, host, kernel, cpu, cpus, mem_kb, gpu, version, seen)"
		" VALUES ($1, $2, $3, $4, $5::integer, $6::bigint, $7, $8, $9::timestamptz)"
		" ON CONFLICT (rig) DO UPDATE SET"
		" host = excluded.host, kernel = excluded.kernel, cpu = excluded.cpu,"
		" cpus = excluded.cpus, mem_kb = excluded.mem_kb, gpu = excluded.gpu,"
		" version = excluded.version, seen = excluded.seen";
	const struct db_rig *ri = run->rig_info;
	const char *rig = run->rig ? run->rig : "-";
	char cpus[16], mem[24];
	char round[16], intf[16], status[16], failed[4], id_s[24];
	const char *p[15] = {
		run->name, run->variant ? run->variant : "-", run->switches, round, run->started,
		run->host, run->kernel, run->rundir, run->interfered < 0 ? NULL : intf,
		run->interference, status, failed, run->failed ? run->failure : NULL, rig,
		run->build,
	};
	struct strbuf sql = STRBUF_INIT;
	const char **mp = NULL;
	char (*vals)[32] = NULL;
	PGresult *res;
	long long id = -EIO;
	size_t k = 0;

	snprintf(round, sizeof(round), "%d", run->round);
	snprintf(intf, sizeof(intf), "%d", run->interfered);
	snprintf(status, sizeof(status), "%d", run->exit_status);
	snprintf(failed, sizeof(failed), "%d", run->failed != 0);
	if (exec(db, "BEGIN", err, "unable to begin a transaction") < 0)
		return -EIO;
	if (run->rundir) {
		const char *key[2] = { rig, run->rundir };

		res = query(db, "DELETE FROM runs WHERE rig = $1 AND rundir = $2", 2, key, err,
			    "unable to store the run");
		if (!res)
			goto rollback;
		pq.PQclear(res);
	}
	res = query(db, ins_run, 15, p, err, "unable to store the run");
	if (!res)
		goto rollback;
	snprintf(id_s, sizeof(id_s), "%s", pq.PQgetvalue(res, 0, 0));
	pq.PQclear(res);
	if (ri && ri->rig) {
		const char *rp[9] = { ri->rig, ri->host, ri->kernel, ri->cpu,
				      ri->cpus > 0 ? cpus : NULL, ri->mem_kb > 0 ? mem : NULL,
				      ri->gpu, ri->version, ri->seen };

		snprintf(cpus, sizeof(cpus), "%d", ri->cpus);
		snprintf(mem, sizeof(mem), "%lld", ri->mem_kb);
		res = query(db, put_rig, 9, rp, err, "unable to store the rig");
		if (!res)
			goto rollback;
		pq.PQclear(res);
	}
	/* the metrics in one statement: ($1, $2, $3), ($1, $4, $5), ... */
	mp = calloc(2 * n + 1, sizeof(*mp));
	vals = calloc(n ? n : 1, sizeof(*vals));
	if (!mp || !vals) {
		id = -ENOMEM;
		goto rollback;
	}
	mp[0] = id_s;
	sb_adds(&sql, "INSERT INTO metrics (run_id, metric, value) VALUES ");
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(values[i]))
			continue;
		snprintf(vals[k], sizeof(vals[k]), "%.17g", values[i]);
		mp[1 + 2 * k] = names[i];
		mp[2 + 2 * k] = vals[k];
		sb_addf(&sql, "%s($1, $%zu, $%zu::double precision)", k ? ", " : "", 2 + 2 * k,
			3 + 2 * k);
		k++;
	}
	if (k) {
		res = query(db, sql.buf, (int)(1 + 2 * k), mp, err, "unable to store the run");
		if (!res)
			goto rollback;
		pq.PQclear(res);
	}
	if (exec(db, "COMMIT", err, "unable to commit the run") < 0)
		goto out;
	id = strtoll(id_s, NULL, 10);
	goto out;
rollback:
	exec(db, "ROLLBACK", NULL, NULL);
out:
	free(mp);
	free(vals);
	sb_release(&sql);
	return id;
}

/* Column C of ROW as a cell for db_cell.c's checks (libpq's text format:
 * what kind of value it is, the checks read from the text). */
static void cell(const PGresult *res, int row, int c, struct db_cell *ret)
{
	if (pq.PQgetisnull(res, row, c))
		*ret = (struct db_cell){ .type = DB_CELL_NULL };
	else
		*ret = (struct db_cell){ .type = DB_CELL_TEXT, .s = pq.PQgetvalue(res, row, c) };
}

static int pg_each_run(struct db *db, const char *name,
		       int (*fn)(const struct db_run *run, void *ctx), void *ctx,
		       struct strbuf *err)
{
	/* the order and the start's text as SQLite's: byte order, NULLs first,
	 * the start as ISO 8601 UTC with microseconds */
	static const char sql[] =
		"SELECT id, name, variant, switches, round,"
		" to_char(started AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"'),"
		" host, kernel, rundir, interfered, interference, exit_status, failed, failure, rig,"
		" build FROM runs WHERE $1::text IS NULL OR name = $1"
		" ORDER BY name COLLATE \"C\", variant COLLATE \"C\", round, started NULLS FIRST, id";
	PGresult *res = query(db, sql, 1, &name, err, "unable to list runs");
	int r = 0;

	if (!res)
		return -EIO;
	for (int i = 0; !r && i < pq.PQntuples(res); i++) {
		struct db_cell c[DB_RUN_NCOLS];
		struct db_run run;

		for (int k = 0; k < DB_RUN_NCOLS; k++)
			cell(res, i, k, &c[k]);
		r = db_run_from_cells(db, c, &run, err);
		if (r == 0)
			r = fn(&run, ctx);
	}
	pq.PQclear(res);
	return r;
}

static int pg_run_metric(struct db *db, long long id, const char *metric, double *ret,
			 struct strbuf *err)
{
	char id_s[24];
	const char *p[2] = { id_s, metric };
	PGresult *res;
	int r = 0;

	snprintf(id_s, sizeof(id_s), "%lld", id);
	res = query(db, "SELECT value FROM metrics WHERE run_id = $1::bigint AND metric = $2", 2, p,
		    err, "unable to read a metric");
	if (!res)
		return -EIO;
	if (pq.PQntuples(res) > 0) {
		struct db_cell c;

		cell(res, 0, 0, &c);
		r = db_cell_value(db, &c, id, metric, ret, err);
		r = r < 0 ? r : 1;
	}
	pq.PQclear(res);
	return r;
}

/* One query: the runs' ids as an array parameter ('{1,2,3}'). */
static int pg_metric_values(struct db *db, const char *metric, const long long *ids, size_t n,
			    double *ret, bool *have, struct strbuf *err)
{
	struct strbuf arr = STRBUF_INIT;
	struct db_idmap *map = db_idmap_new(ids, n, ret, have);
	const char *p[2];
	PGresult *res;
	int r = 0;

	if (!map)
		return -ENOMEM;
	sb_addc(&arr, '{');
	for (size_t i = 0; i < n; i++)
		sb_addf(&arr, "%s%lld", i ? "," : "", ids[i]);
	sb_addc(&arr, '}');
	p[0] = metric;
	p[1] = arr.buf;
	res = query(db, "SELECT run_id, value FROM metrics WHERE metric = $1"
		    " AND run_id = ANY($2::bigint[])", 2, p, err, "unable to read a metric");
	if (!res)
		r = -EIO;
	for (int k = 0; res && r == 0 && k < pq.PQntuples(res); k++) {
		struct db_cell c[2];
		long long id;
		double v;

		cell(res, k, 0, &c[0]);
		cell(res, k, 1, &c[1]);
		r = db_cell_id(db, &c[0], "metrics", "run_id", &id, err);
		r = r ? r : db_cell_value(db, &c[1], id, metric, &v, err);
		if (r == 0)
			db_idmap_put(map, id, v);
	}
	pq.PQclear(res);
	sb_release(&arr);
	db_idmap_free(map);
	return r;
}

static int pg_metric_names(struct db *db, const char *name, char ***ret, struct strbuf *err)
{
	/* a run that has each name, for a message about a bad one */
	static const char sql[] =
		"SELECT m.metric COLLATE \"C\", min(m.run_id) FROM metrics m"
		" JOIN runs r ON r.id = m.run_id WHERE $1::text IS NULL OR r.name = $1"
		" GROUP BY 1 ORDER BY 1";
	PGresult *res = query(db, sql, 1, &name, err, "unable to list metrics");
	char **list = NULL;
	size_t n = 0;
	int r = 0;

	if (!res)
		return -EIO;
	for (int i = 0; r == 0 && i < pq.PQntuples(res); i++) {
		struct db_cell c;

		cell(res, i, 0, &c);
		r = db_cell_metric(db, &c, strtoll(pq.PQgetvalue(res, i, 1), NULL, 10), err);
		r = r ? r : db_list_add(&list, &n, c.s);
	}
	pq.PQclear(res);
	if (r == 0 && !list && !(list = calloc(1, sizeof(*list))))
		r = -ENOMEM;
	if (r < 0) {
		db_free_list(list);
		return r;
	}
	*ret = list;
	return (int)n;
}

static bool pg_lost(struct db *db)
{
	return pq.PQstatus(C(db)) != CONNECTION_OK;
}

const struct db_ops db_pg_ops = {
	.name = "postgresql",
	.open = pg_open,
	.close = pg_close,
	.lost = pg_lost,
	.schema_version = pg_schema_version,
	.add_run = pg_add_run,
	.each_run = pg_each_run,
	.run_metric = pg_run_metric,
	.metric_names = pg_metric_names,
	.metric_values = pg_metric_values,
};

#else /* !SS_HAVE_LIBPQ */

static int pg_open(struct db *db, const char *target, bool write, struct strbuf *err)
{
	(void)target;
	(void)write;
	if (err)
		sb_addf(err, "'%s': this stallscope was built without libpq (PostgreSQL); "
			     "scripts/deps.sh installs libpq-dev", db->name);
	return -ENOTSUP;
}

const struct db_ops db_pg_ops = {
	.name = "postgresql",
	.open = pg_open,
};

#endif
