// SPDX-License-Identifier: MIT
/*
 * db.c: the results database (db.h): the back end a target names (db_int.h:
 * an SQLite file, or a PostgreSQL server by a libpq connection string),
 * and what both share. A new database is created at schema version 1 and
 * migrated like any old one, so every migration runs on every new database
 * and stays tested.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "db/db_int.h"

static bool blank(const char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	return !*s;
}

int db_open(const char *target, bool write, struct db **ret, struct strbuf *err)
{
	struct db *db = calloc(1, sizeof(*db));
	enum db_target_kind kind;
	int r;

	if (!db)
		return -ENOMEM;
	kind = db_target_kind(target);
	db->ops = kind == DB_TARGET_FILE ? &db_sqlite_ops : &db_pg_ops;
	r = db_target_safe(target, &db->name);
	if (r == 0)
		r = db_target_secrets(target, &db->secrets);
	if (r == 0 && (blank(target) || kind == DB_TARGET_BROKEN)) {
		if (err && kind == DB_TARGET_BROKEN)
			sb_adds(err, "the database is a connection string libpq cannot parse (not "
				"shown: it may hold a password): check its keywords, the quotes "
				"around a value with spaces and a URI's percent-encoding (a file "
				"whose name has an '=' before any '/' is written ./NAME)");
		else if (err)
			sb_adds(err, "expected a results database (a file or a PostgreSQL "
				"connection string), got an empty name");
		r = -EINVAL;
	}
	if (r == 0)
		r = db->ops->open(db, target, write, err);
	if (r < 0) {
		db_close(db);
		return r;
	}
	*ret = db;
	return 0;
}

void db_close(struct db *db)
{
	if (!db)
		return;
	if (db->h)
		db->ops->close(db);
	free(db->name);
	db_free_list(db->secrets);
	free(db);
}

int db_schema_version(struct db *db)
{
	return db->ops->schema_version(db);
}

const char *db_backend(const struct db *db)
{
	return db->ops->name;
}

const char *db_name(const struct db *db)
{
	return db->name;
}

bool db_lost(struct db *db)
{
	return db->ops->lost && db->ops->lost(db);
}

long long db_add_run(struct db *db, const struct db_run *run, const char *const *names,
		     const double *values, size_t n, struct strbuf *err)
{
	return db->ops->add_run(db, run, names, values, n, err);
}

int db_each_run(struct db *db, const char *name,
		int (*fn)(const struct db_run *run, void *ctx), void *ctx, struct strbuf *err)
{
	return db->ops->each_run(db, name, fn, ctx, err);
}

int db_run_metric(struct db *db, long long id, const char *metric, double *ret,
		  struct strbuf *err)
{
	return db->ops->run_metric(db, id, metric, ret, err);
}

int db_metric_values(struct db *db, const char *metric, const long long *ids, size_t n,
		     double *ret, bool *have, struct strbuf *err)
{
	return db->ops->metric_values(db, metric, ids, n, ret, have, err);
}

int db_metric_names(struct db *db, const char *name, char ***ret, struct strbuf *err)
{
	return db->ops->metric_names(db, name, ret, err);
}

struct id_at {
	long long id;
	size_t at;
};

struct db_idmap {
	struct id_at *v;
	size_t n;
	double *ret;
	bool *have;
};

static int cmp_id(const void *a, const void *b)
{
	long long x = ((const struct id_at *)a)->id, y = ((const struct id_at *)b)->id;

	return x < y ? -1 : x > y;
}

struct db_idmap *db_idmap_new(const long long *ids, size_t n, double *ret, bool *have)
{
	struct db_idmap *m = calloc(1, sizeof(*m));

	if (!m || !(m->v = calloc(n ? n : 1, sizeof(*m->v)))) {
		free(m);
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		m->v[i] = (struct id_at){ ids[i], i };
		have[i] = false;
	}
	qsort(m->v, n, sizeof(*m->v), cmp_id);
	m->n = n;
	m->ret = ret;
	m->have = have;
	return m;
}

void db_idmap_put(struct db_idmap *m, long long id, double value)
{
	struct id_at key = { id, 0 }, *hit = bsearch(&key, m->v, m->n, sizeof(*m->v), cmp_id);

	/* a run listed twice gets its value at each place */
	while (hit && hit > m->v && hit[-1].id == id)
		hit--;
	for (; hit && hit < m->v + m->n && hit->id == id; hit++) {
		m->ret[hit->at] = value;
		m->have[hit->at] = true;
	}
}

void db_idmap_free(struct db_idmap *m)
{
	if (m)
		free(m->v);
	free(m);
}

int db_list_add(char ***list, size_t *n, const char *s)
{
	/* grown by one, NULL-terminated, no room kept apart: a list of
	 * names (metrics, runs' columns), tens of them */
	char **p = realloc(*list, (*n + 2) * sizeof(*p));

	if (!p)
		return -ENOMEM;
	*list = p;
	p[*n] = strdup(s ? s : "");
	if (!p[*n])
		return -ENOMEM;
	p[++*n] = NULL;
	return 0;
}

void db_free_list(char **list)
{
	char **p;

	if (!list)
		return;
	for (p = list; *p; p++)
		free(*p);
	free(list);
}

int db_default_path(struct strbuf *ret)
{
	const char *env = getenv("STALLSCOPE_DB");
	const char *xdg = getenv("XDG_DATA_HOME"), *home = getenv("HOME");

	if (env && *env)
		return sb_adds(ret, env);
	if (xdg && *xdg)
		return sb_addf(ret, "%s/stallscope/results.db", xdg);
	if (home && *home)
		return sb_addf(ret, "%s/.local/share/stallscope/results.db", home);
	return -ENOENT;
}

int db_make_parent(const char *path, struct strbuf *made)
{
	char *p, *s;
	bool first = true;

	if (db_target_is_server(path))	/* a server's, or a broken one db_open refuses */
		return 0;
	p = strdup(path);
	if (!p)
		return -ENOMEM;
	for (s = strchr(p + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		if (mkdir(p, 0755) == 0) {
			if (first && made && sb_adds(made, p) < 0) {
				free(p);
				return -ENOMEM;
			}
			first = false;
		} else if (errno != EEXIST) {
			int r = -errno;

			free(p);
			return r;
		}
		*s = '/';
	}
	free(p);
	return 0;
}
