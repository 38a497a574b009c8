/* SPDX-License-Identifier: MIT */
/*
 * db.h: the results database: one row per run, one per metric per run, in
 * an SQLite file (the default) or on a PostgreSQL server (a libpq connection
 * string: postgresql://... or host=... dbname=...), where many rigs write.
 * Matrices and comparisons are queries over it.
 *
 * Workload: a bench writes a few dozen runs (one transaction each) and
 * readers query all metrics of one benchmark name; tens of thousands of rows
 * at most, so plain indexed tables suffice. The schema is versioned with
 * PRAGMA user_version and migrated forward on open; a newer version than
 * this build knows is refused. docs/FORMAT.md ("Results database") lists the
 * tables.
 *
 * Errors: functions return 0 (or a count) or a negative errno and, where an
 * ERR buffer is passed, a message naming the database file.
 */
#ifndef SS_DB_DB_H
#define SS_DB_DB_H

#include <stdbool.h>
#include <stddef.h>

#include "core/strbuf.h"

#define DB_SCHEMA_VERSION 5

struct db;

/* One run, as stored. Strings may be NULL (stored as NULL). */
struct db_run {
	long long id;		/* set by the database */
	const char *name;	/* the benchmark's name (the program when recorded alone) */
	const char *variant;	/* "-" for the base */
	const char *switches;	/* VAR=VALUE+VAR=VALUE, or NULL */
	int round;		/* 1-based, 0 when not part of a bench */
	const char *started;	/* UTC, ISO 8601 */
	const char *host;
	const char *kernel;
	const char *rundir;	/* unique: importing a run again replaces it */
	int interfered;		/* 1, 0, or -1 when not watched */
	const char *interference;	/* the watcher's summary, or NULL */
	int exit_status;	/* the program's, -1 when unknown */
	int failed;		/* 1: a failed run (runini_failure), left out of medians */
	const char *failure;	/* why, or NULL */
	const char *rig;	/* the rig that made it (NULL: "-", unknown) */
	const struct db_rig *rig_info;	/* its facts, stored beside (NULL: none) */
	const char *build;	/* the build it measured (record --build, --build-of), or NULL */
};

/* A rig: one machine that makes runs, by a stable id (record --rig NAME,
 * else from /etc/machine-id), with what it is. Strings may be NULL. */
struct db_rig {
	const char *rig;
	const char *host, *kernel, *cpu, *gpu, *version;
	int cpus;		/* 0: unknown */
	long long mem_kb;	/* 0: unknown */
	const char *seen;	/* the last run's start (UTC, ISO 8601) */
};

/*
 * Opens the database at PATH. WRITE: read-write, creating it when absent
 * and migrating its schema to DB_SCHEMA_VERSION; a new database (no file,
 * a 0-byte file, an empty SQLite file) becomes ours. Otherwise read-only:
 * nothing is ever created or migrated, so reading commands leave every file
 * as they found it. Returns 0 and *ret, or -ENOENT (absent and not WRITE),
 * -EPROTONOSUPPORT (newer schema), -EPROTO (older schema, read-only: the
 * message says how to upgrade), -EINVAL (not a database, corrupt, or a
 * SQLite file that is not ours: its tables are someone else's, or it is
 * empty and not opened to write), -EIO.
 */
int db_open(const char *path, bool write, struct db **ret, struct strbuf *err);
void db_close(struct db *db);	/* NULL-safe */
int db_schema_version(struct db *db);
/* "sqlite" or "postgresql". */
const char *db_backend(const struct db *db);
/* The database as messages name it: the file, or the connection string
 * without its password. */
const char *db_name(const struct db *db);
/* Whether DB is a server whose connection is gone (a write failed because
 * of it, and reopening may help); false for a file. */
bool db_lost(struct db *db);

/*
 * What TARGET (--db, $STALLSCOPE_DB) names. libpq's own parser
 * (PQconninfoParse) decides: what it accepts is a connection string (a
 * postgresql:// or postgres:// URI, or keyword = value pairs in any of its
 * spellings); what it refuses is an SQLite file, unless it has the shape of
 * a connection string (a "://", or an '=' before its first '/': write
 * ./a=b.db for such a file), which is a broken connection string that
 * db_open refuses without showing it. Built without libpq, that shape is a
 * server (and db_open says libpq is missing).
 */
enum db_target_kind {
	DB_TARGET_FILE,
	DB_TARGET_SERVER,
	DB_TARGET_BROKEN,
};
enum db_target_kind db_target_kind(const char *target);
/* Whether TARGET is not a file: a server, or meant as one (above). */
bool db_target_is_server(const char *target);
/* TARGET as messages may show it: a path as it is; a connection string as
 * keyword=value pairs rebuilt from libpq's parse without the fields libpq
 * marks secret (password, sslpassword), and without their text anywhere
 * else (itself a connection string: `--db "SHOWN"` reaches the same server,
 * the password coming from PGPASSWORD or ~/.pgpass); a placeholder for a
 * broken one. *ret is the caller's. 0 or -ENOMEM. */
int db_target_safe(const char *target, char **ret);

/*
 * Stores RUN and its N metrics (NAMES[i] = VALUES[i]; NaN values are not
 * stored: a metric that could not be computed has no row), and its rig's
 * facts when it has them, in one transaction, replacing a run of the same
 * rig with the same rundir (so a retry stores it once). Returns the run's
 * id (> 0) or a negative errno.
 */
long long db_add_run(struct db *db, const struct db_run *run, const char *const *names,
		     const double *values, size_t n, struct strbuf *err);

/* Calls FN for each run (ordered by name, variant, round, started, id), only
 * those named NAME when it is not NULL; FN returning non-zero stops the walk
 * and is returned. Strings are valid during the call only (rig_info is
 * NULL); name, variant and rig are never NULL: a row where a column the
 * schema says NOT NULL is NULL, or a number column holds something else,
 * stops the walk with -EINVAL and a message naming the table, the run and
 * the column (db_int.h, "db_cell"). A NULL interfered or exit_status is
 * -1 (not watched, unknown). */
int db_each_run(struct db *db, const char *name,
		int (*fn)(const struct db_run *run, void *ctx), void *ctx, struct strbuf *err);

/* The value of METRIC for run ID into *ret; returns 1 when it has one, 0
 * when not, or a negative errno with ERR (-EINVAL: a value that is NULL or
 * no finite number, said with the run and the metric). */
int db_run_metric(struct db *db, long long id, const char *metric, double *ret,
		  struct strbuf *err);

/* METRIC of each of the N runs IDS: RET[i] its value when HAVE[i]. One
 * query (or one prepared statement) for them all, not one per run. 0 or a
 * negative errno with ERR (a row whose run id or value is NULL or of the
 * wrong kind is refused, -EINVAL). */
int db_metric_values(struct db *db, const char *metric, const long long *ids, size_t n,
		     double *ret, bool *have, struct strbuf *err);

/* The metric names stored for runs named NAME (all runs when NULL), sorted;
 * *ret is a NULL-terminated array the caller frees with db_free_list. A
 * name that is NULL, or not letters, digits and '_' (matrix names files
 * after them), is refused (-EINVAL with ERR). */
int db_metric_names(struct db *db, const char *name, char ***ret, struct strbuf *err);
void db_free_list(char **list);

/* The default database into RET: $STALLSCOPE_DB (a path or a connection
 * string), else $XDG_DATA_HOME/stallscope/results.db, else
 * ~/.local/share/stallscope/results.db. Returns 0, or -ENOENT when none of
 * them is set. */
int db_default_path(struct strbuf *ret);

/* Creates the directories above PATH that do not exist (mode 0755); the
 * first it made (the top of what was new) is appended to MADE when given.
 * Nothing for a server's connection string. */
int db_make_parent(const char *path, struct strbuf *made);

#endif
