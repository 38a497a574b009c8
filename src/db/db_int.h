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
	int (*run_metric)(struct db *db, long long id, const char *metric, double *ret);
	int (*metric_names)(struct db *db, const char *name, char ***ret, struct strbuf *err);
	bool (*lost)(struct db *db);	/* NULL: a file, never lost */
	int (*metric_values)(struct db *db, const char *metric, const long long *ids, size_t n,
			     double *ret, bool *have);
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
