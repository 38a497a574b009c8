// SPDX-License-Identifier: MIT
/*
 * db_sqlite.c: the results database in an SQLite file (db.h, db_int.h).
 *
 * A new database is created at schema version 1 and migrated like any old
 * one, so every migration runs on every new database and stays tested.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sqlite3.h>
#include <sys/stat.h>

#include "db/db_int.h"

#define H(db) ((sqlite3 *)(db)->h)

/* migrations[v] takes a database from version v to v + 1 */
static const char *const migrations[] = {
	/* 0 -> 1: runs and their metrics */
	"CREATE TABLE runs ("
	" id INTEGER PRIMARY KEY,"
	" name TEXT NOT NULL,"
	" variant TEXT NOT NULL,"
	" switches TEXT,"
	" round INTEGER NOT NULL DEFAULT 0,"
	" started TEXT,"
	" host TEXT,"
	" kernel TEXT,"
	" rundir TEXT UNIQUE,"
	" interfered INTEGER,"
	" exit_status INTEGER);"
	"CREATE INDEX runs_by_name ON runs(name, variant);"
	"CREATE TABLE metrics ("
	" run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	" metric TEXT NOT NULL,"
	" value REAL NOT NULL,"
	" PRIMARY KEY (run_id, metric)) WITHOUT ROWID;",
	/* 1 -> 2: the watcher's summary beside the verdict; metric lookups */
	"ALTER TABLE runs ADD COLUMN interference TEXT;"
	"CREATE INDEX metrics_by_metric ON metrics(metric);",
	/* 2 -> 3: failed runs (the program failed, no frames), left out of
	 * medians; of the runs stored before, those whose program exited
	 * non-zero (whether a run had frames is not in the database: a run with
	 * none stored no metric that could feed a median) */
	"ALTER TABLE runs ADD COLUMN failed INTEGER NOT NULL DEFAULT 0;"
	"ALTER TABLE runs ADD COLUMN failure TEXT;"
	"UPDATE runs SET failed = 1, failure = 'the program exited with status ' || exit_status"
	" WHERE exit_status > 0;",
	/* 3 -> 4: rigs. Every run names the rig that made it ('-': unknown,
	 * a run stored before), and a run is one per (rig, rundir): two rigs'
	 * runs may have the same path. SQLite cannot drop a UNIQUE, so runs is
	 * rebuilt (with foreign keys off: migrate() turns them off around every
	 * step, else dropping runs would delete every metric) */
	"CREATE TABLE rigs ("
	" rig TEXT PRIMARY KEY,"
	" host TEXT, kernel TEXT, cpu TEXT, cpus INTEGER, mem_kb INTEGER, gpu TEXT,"
	" version TEXT, seen TEXT);"
	"CREATE TABLE runs4 ("
	" id INTEGER PRIMARY KEY,"
	" name TEXT NOT NULL,"
	" variant TEXT NOT NULL,"
	" switches TEXT,"
	" round INTEGER NOT NULL DEFAULT 0,"
	" started TEXT,"
	" host TEXT,"
	" kernel TEXT,"
	" rundir TEXT,"
	" interfered INTEGER,"
	" exit_status INTEGER,"
	" interference TEXT,"
	" failed INTEGER NOT NULL DEFAULT 0,"
	" failure TEXT,"
	" rig TEXT NOT NULL DEFAULT '-',"
	" UNIQUE (rig, rundir));"
	"INSERT INTO runs4 (id, name, variant, switches, round, started, host, kernel, rundir,"
	" interfered, exit_status, interference, failed, failure)"
	" SELECT id, name, variant, switches, round, started, host, kernel, rundir,"
	" interfered, exit_status, interference, failed, failure FROM runs;"
	"DROP TABLE runs;"
	"ALTER TABLE runs4 RENAME TO runs;"
	"CREATE INDEX runs_by_name ON runs(name, variant);"
	"CREATE INDEX runs_by_rig ON runs(rig);",
	/* 4 -> 5: the build a run measured (record --build, --build-of); NULL
	 * for the runs stored before, which history leaves out */
	"ALTER TABLE runs ADD COLUMN build TEXT;",
};

_Static_assert(sizeof(migrations) / sizeof(migrations[0]) == DB_SCHEMA_VERSION,
	       "a migration for each schema version");

static int fail(struct db *db, struct strbuf *err, int r, const char *what)
{
	if (err)
		sb_addf(err, "'%s': %s: %s", db->name, what, sqlite3_errmsg(H(db)));
	return r;
}

/* The errno for an SQLite result code. */
static int sqlite_errno(int rc)
{
	switch (rc & 0xff) {
	case SQLITE_NOTADB:
	case SQLITE_CORRUPT:
		return -EINVAL;
	case SQLITE_CANTOPEN:
		return -ENOENT;
	case SQLITE_NOMEM:
		return -ENOMEM;
	case SQLITE_READONLY:
	case SQLITE_PERM:
		return -EACCES;
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return -EBUSY;
	default:
		return -EIO;
	}
}

static int exec(struct db *db, const char *sql, struct strbuf *err, const char *what)
{
	int rc = sqlite3_exec(H(db), sql, NULL, NULL, NULL);

	return rc == SQLITE_OK ? 0 : fail(db, err, sqlite_errno(rc), what);
}

static int sq_schema_version(struct db *db)
{
	sqlite3_stmt *st;
	int v = -1;

	if (sqlite3_prepare_v2(H(db), "PRAGMA user_version", -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return v < 0 ? -EINVAL : v;
}

static int migrate(struct db *db, struct strbuf *err)
{
	int v = sq_schema_version(db), r;
	char sql[64];

	if (v < 0)
		return fail(db, err, v, "unable to read the schema version");
	if (v > DB_SCHEMA_VERSION) {
		if (err)
			sb_addf(err, "'%s': schema version %d is newer than this stallscope knows (%d)",
				db->name, v, DB_SCHEMA_VERSION);
		return -EPROTONOSUPPORT;
	}
	for (; v < DB_SCHEMA_VERSION; v++) {
		/* a no-op inside a transaction: before it, and on again after */
		r = exec(db, "PRAGMA foreign_keys = OFF", err, "unable to begin the migration");
		r = r ? r : exec(db, "BEGIN IMMEDIATE", err, "unable to begin the migration");
		if (r < 0)
			return r;
		snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", v + 1);
		r = exec(db, migrations[v], err, "schema migration failed");
		if (r == 0)
			r = exec(db, sql, err, "schema migration failed");
		if (r < 0) {
			sqlite3_exec(H(db), "ROLLBACK", NULL, NULL, NULL);
			return r;
		}
		r = exec(db, "COMMIT", err, "unable to commit the migration");
		r = r ? r : exec(db, "PRAGMA foreign_keys = ON", err, "unable to end the migration");
		if (r < 0)
			return r;
	}
	return 0;
}

/* The tables of the database: how many there are, and whether runs and
 * metrics are among them. */
static int our_tables(struct db *db, int *ret_all, bool *ret_ours)
{
	sqlite3_stmt *st;
	int n = 0, ours = 0;

	if (sqlite3_prepare_v2(H(db), "SELECT name FROM sqlite_master WHERE type = 'table'", -1,
			       &st, NULL) != SQLITE_OK)
		return -EINVAL;
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *t = (const char *)sqlite3_column_text(st, 0);

		n++;
		ours += t && (!strcmp(t, "runs") || !strcmp(t, "metrics"));
	}
	sqlite3_finalize(st);
	*ret_all = n;
	*ret_ours = ours == 2;
	return 0;
}

static int sq_open(struct db *db, const char *path, bool write, struct strbuf *err)
{
	struct stat st;
	int flags = write ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE : SQLITE_OPEN_READONLY;
	int rc, r, v = 0, ntables = 0;
	bool ours = false;

	if (!write && stat(path, &st) < 0) {
		if (err)
			sb_addf(err, "'%s': no such database", path);
		return -ENOENT;
	}
	/* Root opens no database through a symbolic link: whoever owns the
	 * directory could point it at any file of root's (docs/SECURITY.md) */
	if (geteuid() == 0)
		flags |= SQLITE_OPEN_NOFOLLOW;
	rc = sqlite3_open_v2(path, (sqlite3 **)&db->h, flags, NULL);
	if (rc != SQLITE_OK && sqlite3_extended_errcode(H(db)) == SQLITE_CANTOPEN_SYMLINK) {
		if (err)
			sb_addf(err, "'%s' is a symbolic link: as root, no database is opened through "
				     "one (give the file it points to)", path);
		return -ELOOP;
	}
	if (rc != SQLITE_OK)
		return fail(db, err, sqlite_errno(rc), "unable to open");
	/* The file may come from anyone (docs/FORMAT.md): what its schema
	 * says runs nothing. Ours has no trigger and no view, so a trigger
	 * someone added never fires on our writes; functions with side effects
	 * are not trusted in its schema; defensive mode keeps SQL from
	 * corrupting it on purpose (sqlite.org/security.html). */
	sqlite3_db_config(H(db), SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
	sqlite3_db_config(H(db), SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, NULL);
	sqlite3_db_config(H(db), SQLITE_DBCONFIG_ENABLE_VIEW, 0, NULL);
	sqlite3_db_config(H(db), SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, NULL);
	sqlite3_busy_timeout(H(db), 5000);
	/* A file that is not a database fails on its first read: do one now. */
	r = exec(db, "PRAGMA foreign_keys = ON; SELECT count(*) FROM sqlite_master", err,
		 "not a stallscope results database");
	if (r == 0 && ((r = our_tables(db, &ntables, &ours)) < 0 ||
		       (v = sq_schema_version(db)) < 0))
		r = fail(db, err, r < 0 ? r : v, "not a stallscope results database");
	/* Ours has its two tables and a version; a new database (empty, or a
	 * 0-byte file) has neither and may become ours only when written; a
	 * version past ours is a newer stallscope's (migrate says so). Anything
	 * else is someone else's: never touched. */
	if (r == 0 && v <= DB_SCHEMA_VERSION && !(ours && v > 0) &&
	    !(write && ntables == 0 && v == 0)) {
		if (err)
			sb_addf(err, "'%s': not a stallscope results database (%s)", path,
				ntables ? "its tables are not ours" : "it is empty");
		r = -EINVAL;
	}
	if (r == 0 && !write && v < DB_SCHEMA_VERSION) {
		if (err)
			sb_addf(err, "'%s': schema version %d is older than this stallscope's (%d); "
				     "'stallscope db upgrade --db %s' upgrades it, keeping every run",
				path, v, DB_SCHEMA_VERSION, path);
		r = -EPROTO;
	}
	if (r == 0 && (write || v > DB_SCHEMA_VERSION))
		r = migrate(db, err);	/* a newer one: says so, changes nothing */
	return r;
}

static void sq_close(struct db *db)
{
	sqlite3_close(H(db));
}

static void bind_text(sqlite3_stmt *st, int i, const char *s)
{
	if (s)
		sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, i);
}

static long long sq_add_run(struct db *db, const struct db_run *run, const char *const *names,
		     const double *values, size_t n, struct strbuf *err)
{
	static const char ins_run[] =
		"INSERT INTO runs (name, variant, switches, round, started, host, kernel,"
		" rundir, interfered, interference, exit_status, failed, failure, rig, build)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)";
	static const char put_rig[] =
		"INSERT INTO rigs (rig, host, kernel, cpu, cpus, mem_kb, gpu, version, seen)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9) ON CONFLICT (rig) DO UPDATE SET"
		" host = excluded.host, kernel = excluded.kernel, cpu = excluded.cpu,"
		" cpus = excluded.cpus, mem_kb = excluded.mem_kb, gpu = excluded.gpu,"
		" version = excluded.version, seen = excluded.seen";
	const struct db_rig *ri = run->rig_info;
	sqlite3_stmt *st = NULL;
	long long id;
	size_t i;
	int r, rc;

	r = exec(db, "BEGIN IMMEDIATE", err, "unable to begin a transaction");
	if (r < 0)
		return r;
	if (run->rundir) {
		rc = sqlite3_prepare_v2(H(db), "DELETE FROM runs WHERE rig = ?1 AND rundir = ?2", -1,
					&st, NULL);
		if (rc != SQLITE_OK)
			goto fail;
		bind_text(st, 1, run->rig ? run->rig : "-");
		bind_text(st, 2, run->rundir);
		if (sqlite3_step(st) != SQLITE_DONE)
			goto fail;
		sqlite3_finalize(st);
	}
	rc = sqlite3_prepare_v2(H(db), ins_run, -1, &st, NULL);
	if (rc != SQLITE_OK)
		goto fail;
	bind_text(st, 1, run->name);
	bind_text(st, 2, run->variant ? run->variant : "-");
	bind_text(st, 3, run->switches);
	sqlite3_bind_int(st, 4, run->round);
	bind_text(st, 5, run->started);
	bind_text(st, 6, run->host);
	bind_text(st, 7, run->kernel);
	bind_text(st, 8, run->rundir);
	if (run->interfered < 0)
		sqlite3_bind_null(st, 9);
	else
		sqlite3_bind_int(st, 9, run->interfered);
	bind_text(st, 10, run->interference);
	sqlite3_bind_int(st, 11, run->exit_status);
	sqlite3_bind_int(st, 12, run->failed != 0);
	bind_text(st, 13, run->failed ? run->failure : NULL);
	bind_text(st, 14, run->rig ? run->rig : "-");
	bind_text(st, 15, run->build);
	if (sqlite3_step(st) != SQLITE_DONE)
		goto fail;
	sqlite3_finalize(st);
	id = sqlite3_last_insert_rowid(H(db));
	if (ri && ri->rig) {
		if (sqlite3_prepare_v2(H(db), put_rig, -1, &st, NULL) != SQLITE_OK)
			goto fail;
		bind_text(st, 1, ri->rig);
		bind_text(st, 2, ri->host);
		bind_text(st, 3, ri->kernel);
		bind_text(st, 4, ri->cpu);
		if (ri->cpus > 0)
			sqlite3_bind_int(st, 5, ri->cpus);
		if (ri->mem_kb > 0)
			sqlite3_bind_int64(st, 6, ri->mem_kb);
		bind_text(st, 7, ri->gpu);
		bind_text(st, 8, ri->version);
		bind_text(st, 9, ri->seen);
		if (sqlite3_step(st) != SQLITE_DONE)
			goto fail;
		sqlite3_finalize(st);
	}

	rc = sqlite3_prepare_v2(H(db), "INSERT INTO metrics (run_id, metric, value)"
				" VALUES (?1, ?2, ?3)", -1, &st, NULL);
	if (rc != SQLITE_OK)
		goto fail;
	for (i = 0; i < n; i++) {
		if (!isfinite(values[i]))
			continue;
		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, id);
		bind_text(st, 2, names[i]);
		sqlite3_bind_double(st, 3, values[i]);
		if (sqlite3_step(st) != SQLITE_DONE)
			goto fail;
	}
	sqlite3_finalize(st);
	st = NULL;
	r = exec(db, "COMMIT", err, "unable to commit the run");
	if (r < 0)
		goto rollback;
	return id;

fail:
	r = fail(db, err, sqlite_errno(sqlite3_errcode(H(db))), "unable to store the run");
	sqlite3_finalize(st);
rollback:
	sqlite3_exec(H(db), "ROLLBACK", NULL, NULL, NULL);
	return r;
}

static const char *col_text(sqlite3_stmt *st, int i)
{
	return (const char *)sqlite3_column_text(st, i);
}

/* Column I of the current row as a cell for db_cell.c's checks. */
static void cell(sqlite3_stmt *st, int i, struct db_cell *c)
{
	static const enum db_cell_type types[] = {
		[SQLITE_INTEGER] = DB_CELL_INT, [SQLITE_FLOAT] = DB_CELL_REAL,
		[SQLITE_TEXT] = DB_CELL_TEXT, [SQLITE_BLOB] = DB_CELL_BLOB,
		[SQLITE_NULL] = DB_CELL_NULL,
	};
	int t = sqlite3_column_type(st, i);

	*c = (struct db_cell){ .type = types[t] };
	if (t == SQLITE_INTEGER)
		c->i = sqlite3_column_int64(st, i);
	else if (t == SQLITE_FLOAT)
		c->d = sqlite3_column_double(st, i);
	if (t != SQLITE_NULL)
		c->s = col_text(st, i);
	if (t != SQLITE_NULL && !c->s)	/* out of memory converting it */
		*c = (struct db_cell){ .type = DB_CELL_BLOB, .s = "" };
}

static int sq_each_run(struct db *db, const char *name,
		       int (*fn)(const struct db_run *run, void *ctx), void *ctx, struct strbuf *err)
{
	static const char sql[] =
		"SELECT id, name, variant, switches, round, started, host, kernel, rundir,"
		" interfered, interference, exit_status, failed, failure, rig, build FROM runs"
		" WHERE ?1 IS NULL OR name = ?1 ORDER BY name, variant, round, started, id";
	sqlite3_stmt *st;
	int rc, r = 0;

	if (sqlite3_prepare_v2(H(db), sql, -1, &st, NULL) != SQLITE_OK)
		return fail(db, err, -EIO, "unable to list runs");
	bind_text(st, 1, name);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct db_cell c[DB_RUN_NCOLS];
		struct db_run run;

		for (int i = 0; i < DB_RUN_NCOLS; i++)
			cell(st, i, &c[i]);
		r = db_run_from_cells(db, c, &run, err);
		if (r == 0)
			r = fn(&run, ctx);
		if (r)
			break;
	}
	if (!r && rc != SQLITE_DONE)
		r = fail(db, err, sqlite_errno(rc), "unable to list runs");
	sqlite3_finalize(st);
	return r;
}

static int sq_run_metric(struct db *db, long long id, const char *metric, double *ret,
			 struct strbuf *err)
{
	sqlite3_stmt *st;
	int rc, r;

	if (sqlite3_prepare_v2(H(db), "SELECT value FROM metrics WHERE run_id = ?1 AND metric = ?2",
			       -1, &st, NULL) != SQLITE_OK)
		return fail(db, err, -EIO, "unable to read a metric");
	sqlite3_bind_int64(st, 1, id);
	bind_text(st, 2, metric);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		struct db_cell c;

		cell(st, 0, &c);
		r = db_cell_value(db, &c, id, metric, ret, err);
		r = r < 0 ? r : 1;
	} else {
		r = rc == SQLITE_DONE ? 0 : fail(db, err, sqlite_errno(rc), "unable to read a metric");
	}
	sqlite3_finalize(st);
	return r;
}

/* One indexed scan of the metric's rows (metrics_by_metric), kept for the
 * runs asked: ~10x fewer steps than a lookup a run. */
static int sq_metric_values(struct db *db, const char *metric, const long long *ids, size_t n,
			    double *ret, bool *have, struct strbuf *err)
{
	struct db_idmap *map = db_idmap_new(ids, n, ret, have);
	sqlite3_stmt *st;
	int rc, r = 0;

	if (!map)
		return -ENOMEM;
	if (sqlite3_prepare_v2(H(db), "SELECT run_id, value FROM metrics WHERE metric = ?1", -1,
			       &st, NULL) != SQLITE_OK) {
		db_idmap_free(map);
		return fail(db, err, -EIO, "unable to read a metric");
	}
	bind_text(st, 1, metric);
	while (r == 0 && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct db_cell c[2];
		long long id;
		double v;

		cell(st, 0, &c[0]);
		cell(st, 1, &c[1]);
		r = db_cell_id(db, &c[0], "metrics", "run_id", &id, err);
		r = r ? r : db_cell_value(db, &c[1], id, metric, &v, err);
		if (r == 0)
			db_idmap_put(map, id, v);
	}
	if (r == 0 && rc != SQLITE_DONE)
		r = fail(db, err, sqlite_errno(rc), "unable to read a metric");
	sqlite3_finalize(st);
	db_idmap_free(map);
	return r;
}

static int sq_metric_names(struct db *db, const char *name, char ***ret, struct strbuf *err)
{
	/* a run that has each name, for a message about a bad one */
	static const char sql[] =
		"SELECT m.metric, min(m.run_id) FROM metrics m JOIN runs r ON r.id = m.run_id"
		" WHERE ?1 IS NULL OR r.name = ?1 GROUP BY m.metric ORDER BY m.metric";
	sqlite3_stmt *st;
	char **list = NULL;
	size_t n = 0;
	int rc, r = 0;

	if (sqlite3_prepare_v2(H(db), sql, -1, &st, NULL) != SQLITE_OK)
		return fail(db, err, -EIO, "unable to list metrics");
	bind_text(st, 1, name);
	while (r == 0 && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct db_cell c;

		cell(st, 0, &c);
		r = db_cell_metric(db, &c, sqlite3_column_int64(st, 1), err);
		r = r ? r : db_list_add(&list, &n, c.s);
	}
	sqlite3_finalize(st);
	if (r == 0 && rc != SQLITE_DONE)
		r = fail(db, err, sqlite_errno(rc), "unable to list metrics");
	if (r == 0 && !list && !(list = calloc(1, sizeof(*list))))
		r = -ENOMEM;
	if (r < 0) {
		db_free_list(list);
		return r;
	}
	*ret = list;
	return (int)n;
}

const struct db_ops db_sqlite_ops = {
	.name = "sqlite",
	.open = sq_open,
	.close = sq_close,
	.schema_version = sq_schema_version,
	.add_run = sq_add_run,
	.each_run = sq_each_run,
	.run_metric = sq_run_metric,
	.metric_names = sq_metric_names,
	.metric_values = sq_metric_values,
};
