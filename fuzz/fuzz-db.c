// SPDX-License-Identifier: MIT
/*
 * fuzz-db.c: a libFuzzer target for the results database's readers (the
 * SQLite back end, src/db/db_sqlite.c and db_cell.c: db_open read-only,
 * db_each_run, db_metric_names, db_run_metric, db_metric_values), on a
 * database someone handed over: an SQLite file with our tables holding
 * anything. The input builds the file: its first byte chooses whether the
 * rest is the file itself (any bytes), or a script on our schema (made by
 * db_open as `db import` makes it): the tables optionally rebuilt without
 * their types and NOT NULLs, user_version set to anything, then rows of
 * runs and metrics whose every cell is NULL, an integer, a real, text or a
 * blob of the input's choosing. Then every reader runs over it. Aborts
 * when a refusal does not say why; when a run handed out has a NULL name,
 * variant or rig; when a metric name is not letters, digits and '_'; or
 * when a metric value handed out is not finite. Seeds: fuzz/corpus/db/.
 * Built and run by scripts/fuzz.sh (`make fuzz`),
 * tests/e2e/fuzz-readers.sh and scripts/fuzz-long.sh.
 *
 * fuzz-sources: src/db/db.c src/db/db_sqlite.c src/db/db_cell.c src/db/db_pg.c src/db/db_target.c src/core/strbuf.c src/core/grow.c src/core/display.c
 * fuzz-libs: -lsqlite3
 * fuzz-reader: src/db/db_sqlite.c src/db/db_cell.c
 * fuzz-functions: ^(db_sqlite.c:(sq_open|our_tables|sq_schema_version|migrate|sq_each_run|cell|col_text|sq_run_metric|sq_metric_values|sq_metric_names|fail|exec|sqlite_errno)|db_run_from_cells|db_cell_id|db_cell_value|db_cell_metric|db_cell.c:.*)$
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "db/db.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct in {
	const uint8_t *p, *end;
};

static uint64_t take(struct in *in, unsigned n)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < n; i++)
		v = v << 8 | (in->p < in->end ? *in->p++ : 0);
	return v;
}

static char dir[] = "/dev/shm/ss-fuzz-db-XXXXXX";
static char path[64], tmpl[64];
static uint8_t *schema;		/* the file db_open makes: our schema, no rows */
static size_t nschema;

static void cleanup(void)
{
	unlink(path);
	unlink(tmpl);
	rmdir(dir);
}

static void setup(void)
{
	struct strbuf err = STRBUF_INIT;
	struct db *db;
	FILE *f;

	if (!mkdtemp(dir)) {
		memcpy(dir, "/tmp/ss-fuzz-db-XXXXXX", sizeof("/tmp/ss-fuzz-db-XXXXXX"));
		if (!mkdtemp(dir))
			abort();
	}
	atexit(cleanup);
	snprintf(path, sizeof(path), "%s/fuzz.db", dir);
	snprintf(tmpl, sizeof(tmpl), "%s/schema.db", dir);
	if (db_open(tmpl, true, &db, &err) < 0)
		abort();
	db_close(db);
	f = fopen(tmpl, "rb");
	if (!f)
		abort();
	schema = malloc(1 << 20);
	nschema = fread(schema, 1, 1 << 20, f);
	fclose(f);
}

static void put(const uint8_t *p, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	if (fd < 0 || write(fd, p, n) != (ssize_t)n)
		abort();
	close(fd);
}

static const char *const words[] = {
	"-", "fps_avg", "frametime_p99", "a b", "1", "-1", "2.5", "nan", "inf", "1e999", "0x10",
	"", "ft_ms", "glxgears", "bad-name", "9223372036854775808", " 3", "3 ",
};

/* One cell of the input's choosing, bound to parameter I. */
static void bind(sqlite3_stmt *st, int i, struct in *in)
{
	uint8_t k = (uint8_t)take(in, 1);
	size_t n;
	union {
		uint64_t u;
		double d;
	} x;

	switch (k % 8) {
	case 0: sqlite3_bind_null(st, i); break;
	case 1: sqlite3_bind_int64(st, i, (int64_t)take(in, 8)); break;
	case 2: sqlite3_bind_int64(st, i, (int8_t)(k >> 3) + 1); break;
	case 3: x.u = take(in, 8); sqlite3_bind_double(st, i, x.d); break;
	case 4:
		n = take(in, 1) % 48;
		if (n > (size_t)(in->end - in->p))
			n = (size_t)(in->end - in->p);
		sqlite3_bind_text(st, i, (const char *)in->p, (int)n, SQLITE_TRANSIENT);
		in->p += n;
		break;
	case 5:
		n = take(in, 1) % 16;
		if (n > (size_t)(in->end - in->p))
			n = (size_t)(in->end - in->p);
		sqlite3_bind_blob(st, i, in->p, (int)n, SQLITE_TRANSIENT);
		in->p += n;
		break;
	default:
		sqlite3_bind_text(st, i, words[(k >> 3) % (sizeof(words) / sizeof(words[0]))], -1,
				  SQLITE_STATIC);
	}
}

static void build(struct in *in, uint8_t how)
{
	sqlite3 *h;
	sqlite3_stmt *runs = NULL, *metrics = NULL;
	char sql[64];

	put(schema, nschema);
	if (sqlite3_open_v2(path, &h, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK)
		abort();
	sqlite3_exec(h, "BEGIN", NULL, NULL, NULL);
	if (how & 2)	/* the schema as anyone may leave it: no types, no NOT NULL */
		sqlite3_exec(h,
			     "DROP TABLE runs; DROP TABLE metrics;"
			     "CREATE TABLE runs (id, name, variant, switches, round, started, host,"
			     " kernel, rundir, interfered, exit_status, interference, failed, failure,"
			     " rig, build);"
			     "CREATE TABLE metrics (run_id, metric, value);",
			     NULL, NULL, NULL);
	if (how & 4) {
		snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", (int)(int8_t)take(in, 1));
		sqlite3_exec(h, sql, NULL, NULL, NULL);
	}
	if (sqlite3_prepare_v2(h, "INSERT OR IGNORE INTO runs VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
			       -1, &runs, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(h, "INSERT OR IGNORE INTO metrics VALUES (?,?,?)", -1, &metrics,
			       NULL) != SQLITE_OK)
		abort();
	for (int rows = 0; rows < 64 && in->p < in->end; rows++) {
		sqlite3_stmt *st = take(in, 1) & 1 ? metrics : runs;
		int n = sqlite3_bind_parameter_count(st);

		for (int i = 1; i <= n; i++)
			bind(st, i, in);
		sqlite3_step(st);	/* a constraint may refuse it: so be it */
		sqlite3_reset(st);
		sqlite3_clear_bindings(st);
	}
	sqlite3_finalize(runs);
	sqlite3_finalize(metrics);
	sqlite3_exec(h, "COMMIT", NULL, NULL, NULL);
	if (sqlite3_close(h) != SQLITE_OK)
		abort();
}

#define MAXRUNS 64

struct seen {
	long long id[MAXRUNS];
	size_t n;
	char *name;
};

static int each(const struct db_run *run, void *ctx)
{
	struct seen *s = ctx;

	if (!run->name || !run->variant || !run->rig)
		abort();
	if (s->n < MAXRUNS)
		s->id[s->n++] = run->id;
	if (!s->name && !(s->name = strdup(run->name)))
		return -ENOMEM;
	return 0;
}

static void metrics(struct db *db, const char *name, struct seen *s)
{
	struct strbuf err = STRBUF_INIT;
	char **list = NULL;
	int n = db_metric_names(db, name, &list, &err);

	if (n < 0 && !err.len)
		abort();
	for (int i = 0; i < n; i++) {
		double v[MAXRUNS], x;
		bool have[MAXRUNS];
		int r;

		if (!list[i] || !list[i][0] || strspn(list[i], "abcdefghijklmnopqrstuvwxyz"
							      "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") !=
							  strlen(list[i]))
			abort();
		sb_reset(&err);
		r = db_metric_values(db, list[i], s->id, s->n, v, have, &err);
		if (r < 0 && !err.len)
			abort();
		for (size_t k = 0; r == 0 && k < s->n; k++)
			if (have[k] && !isfinite(v[k]))
				abort();
		for (size_t k = 0; k < s->n && k < 4; k++) {
			sb_reset(&err);
			r = db_run_metric(db, s->id[k], list[i], &x, &err);
			if ((r < 0 && !err.len) || (r == 1 && !isfinite(x)))
				abort();
		}
	}
	if (n >= 0)
		db_free_list(list);
	sb_release(&err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct in in = { data, data + size };
	struct strbuf err = STRBUF_INIT;
	struct seen s = { .n = 0 };
	struct db *db;
	uint8_t how;
	int r;

	if (!schema)
		setup();
	if (!size)
		return 0;
	how = (uint8_t)take(&in, 1);
	if ((how & 0xf) == 0xf)
		put(in.p, (size_t)(in.end - in.p));	/* the file is the input */
	else
		build(&in, how);
	r = db_open(path, false, &db, &err);
	if (r < 0) {
		if (!err.len)
			abort();
		sb_release(&err);
		return 0;
	}
	if (db_schema_version(db) != DB_SCHEMA_VERSION)
		abort();	/* only ours is read */
	r = db_each_run(db, NULL, each, &s, &err);
	if (r < 0 && !err.len)
		abort();
	metrics(db, NULL, &s);
	if (s.name) {
		struct seen named = { .n = 0 };

		sb_reset(&err);
		r = db_each_run(db, s.name, each, &named, &err);
		if (r < 0 && !err.len)
			abort();
		metrics(db, s.name, &named);
		free(named.name);
	}
	free(s.name);
	db_close(db);
	sb_release(&err);
	return 0;
}
