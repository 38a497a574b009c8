/* SPDX-License-Identifier: MIT */
/*
 * db_int.h: the results database's back ends behind db.h: SQLite
 * (db_sqlite.c, a file) and PostgreSQL (db_pg.c, libpq: a server many rigs
 * write to). db.c picks one by db_target_kind (db_target.c: libpq's own
 * parse of the target) and forwards each call.
 * Each back end has the same schema (its dialect of it) and the same
 * versioned migrations, one transaction each.
 */
#ifndef SS_DB_DB_INT_H
#define SS_DB_DB_INT_H

#include "db/db.h"

struct db_ops {
	const char *name;	/* "sqlite", "postgresql" */
	/* Opens TARGET into DB (db->name is set: what messages call it). */
	int (*open)(struct db *db, const char *target, bool write, struct strbuf *err);
	void (*close)(struct db *db);
	int (*schema_version)(struct db *db);
	long long (*add_run)(struct db *db, const struct db_run *run, const char *const *names,
			     const double *values, size_t n, struct strbuf *err);
	int (*each_run)(struct db *db, const char *name,
			int (*fn)(const struct db_run *run, void *ctx), void *ctx,
			struct strbuf *err);
	int (*run_metric)(struct db *db, long long id, const char *metric, double *ret,
			  struct strbuf *err);
	int (*metric_names)(struct db *db, const char *name, char ***ret, struct strbuf *err);
	bool (*lost)(struct db *db);	/* NULL: a file, never lost */
	int (*metric_values)(struct db *db, const char *metric, const long long *ids, size_t n,
			     double *ret, bool *have, struct strbuf *err);
};

struct db {
	const struct db_ops *ops;
	char *name;		/* the file, or the connection string without its password */
	char **secrets;		/* the target's passwords: never in a message (db_scrub) */
	void *h;		/* the back end's handle */
};

extern const struct db_ops db_sqlite_ops;
extern const struct db_ops db_pg_ops;

/* The values of TARGET's secret fields (libpq's: password, sslpassword)
 * into *RET, a NULL-terminated list (db_free_list); empty for a file. 0 or
 * -ENOMEM. */
int db_target_secrets(const char *target, char ***ret);
/* Masks each of SECRETS (NULL-terminated; NULL: none) in SB from offset
 * FROM on with "***": what libpq or a server says is never trusted to leave
 * a password out. */
void db_scrub(char *const *secrets, struct strbuf *sb, size_t from);

/*
 * A hostile or broken database (a file someone handed over, a server table
 * another writer altered) can hold NULL, or text where a number belongs,
 * in any column. The back ends read each cell of runs and metrics into a
 * db_cell and the functions below check it the same way for both: a NULL
 * where the schema says NOT NULL, or a value of the wrong kind, is refused
 * with a message naming the database, the table, the run and the column
 * and what was expected (-EINVAL); nothing reads a NULL as 0 or "".
 */
enum db_cell_type {
	DB_CELL_NULL,
	DB_CELL_TEXT,		/* only the text is known (libpq's text format, or SQLite TEXT) */
	DB_CELL_INT,		/* SQLite INTEGER: i, and its text */
	DB_CELL_REAL,		/* SQLite REAL: d, and its text */
	DB_CELL_BLOB,		/* SQLite BLOB: text as SQLite gives it */
};

struct db_cell {
	enum db_cell_type type;
	const char *s;		/* the text; NULL when type is DB_CELL_NULL */
	long long i;
	double d;
};

/* The columns each_run reads, in this order (both back ends' SELECT). */
enum {
	DB_RUN_ID, DB_RUN_NAME, DB_RUN_VARIANT, DB_RUN_SWITCHES, DB_RUN_ROUND, DB_RUN_STARTED,
	DB_RUN_HOST, DB_RUN_KERNEL, DB_RUN_RUNDIR, DB_RUN_INTERFERED, DB_RUN_INTERFERENCE,
	DB_RUN_EXIT_STATUS, DB_RUN_FAILED, DB_RUN_FAILURE, DB_RUN_RIG, DB_RUN_BUILD, DB_RUN_NCOLS
};

/* A row of runs (DB_RUN_NCOLS cells) into *RET (its strings point into the
 * cells); 0, or -EINVAL with ERR. */
int db_run_from_cells(struct db *db, const struct db_cell *c, struct db_run *ret,
		      struct strbuf *err);
/* A run's id (metrics.run_id, TABLE's COLUMN) into *RET; 0 or -EINVAL. */
int db_cell_id(struct db *db, const struct db_cell *c, const char *table, const char *column,
	       long long *ret, struct strbuf *err);
/* metrics.value of run ID's METRIC: a finite number into *RET; 0 or -EINVAL. */
int db_cell_value(struct db *db, const struct db_cell *c, long long id, const char *metric,
		  double *ret, struct strbuf *err);
/* metrics.metric (of run ID, one that has it): a metric name, letters,
 * digits and '_' (it names matrix's files); 0 or -EINVAL. */
int db_cell_metric(struct db *db, const struct db_cell *c, long long id, struct strbuf *err);

/* A list of N strings from a back end's rows: appends S (copied) to *LIST;
 * 0 or -ENOMEM (the list stays NULL-terminated and the caller's). */
int db_list_add(char ***list, size_t *n, const char *s);

/* For metric_values: which of N runs IDS a row's run id is. db_idmap_put
 * writes VALUE at each place ID has in IDS (into the RET and HAVE the map was
 * made with; HAVE starts all false). NULL on ENOMEM. */
struct db_idmap;
struct db_idmap *db_idmap_new(const long long *ids, size_t n, double *ret, bool *have);
void db_idmap_put(struct db_idmap *m, long long id, double value);
void db_idmap_free(struct db_idmap *m);

#endif
