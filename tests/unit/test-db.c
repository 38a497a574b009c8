// SPDX-License-Identifier: MIT
/*
 * test-db.c: the results database: runs and metrics in and out, a rerun
 * replacing its row, NaN left out, an old schema migrated, a newer one
 * refused, a file that is not a database named in the error; the round trip
 * also on PostgreSQL with --pg when SS_PG names a server (ctest's
 * unit/test-db-pg, skipped without SS_PG; tests/e2e/db-pg.sh starts a
 * throwaway server and runs it there); which
 * targets are servers (libpq's parse), and that neither the shown form nor a
 * message shows a password however it is spelled (issue 26).
 */
#include <errno.h>
#include <sys/stat.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sqlite3.h>

#include "db/db.h"
#include "db/db_int.h"
#include "t.h"

static char dir[] = "/tmp/ss-test-db-XXXXXX";

static const char *tmp(const char *name)
{
	static char path[256];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return path;
}

struct seen {
	int n;
	char names[8][64];
	long long ids[8];
	int interfered[8];
	int failed[8];
	char failure[8][96];
	char rig[8][32];
	char build[8][32];
};

static int collect(const struct db_run *run, void *ctx)
{
	struct seen *s = ctx;

	if (s->n < 8) {
		snprintf(s->names[s->n], 64, "%s/%s/%d", run->name, run->variant, run->round);
		s->ids[s->n] = run->id;
		s->interfered[s->n] = run->interfered;
		s->failed[s->n] = run->failed;
		snprintf(s->failure[s->n], 96, "%s", run->failure ? run->failure : "(null)");
		snprintf(s->rig[s->n], 32, "%s", run->rig ? run->rig : "(null)");
		snprintf(s->build[s->n], 32, "%s", run->build ? run->build : "(null)");
	}
	s->n++;
	return 0;
}

/* Runs and metrics in and out of TARGET, a new database (a file to be, or
 * an empty PostgreSQL database); messages name it by NAME_PART. */
static void roundtrip(const char *target, const char *name_part)
{
	static const char *const names[] = { "fps", "stalls", "p99_ms" };
	double vals[] = { 59.9, 3, NAN };
	struct db_run run = { .name = "game", .variant = "-", .round = 1,
			      .rundir = "/r/1", .interfered = 0, .exit_status = 0 };
	struct strbuf err = STRBUF_INIT;
	struct seen s = { 0 };
	struct db *db = NULL;
	long long id1, id2;
	char **metrics = NULL;
	double v = 0;

	CHECK_INT(db_open(target, false, &db, &err), -ENOENT);
	CHECK(strstr(err.buf, name_part) != NULL);
	sb_reset(&err);
	CHECK_INT(db_open(target, true, &db, &err), 0);
	if (!db) {
		fprintf(stderr, "%s\n", err.buf);
		return;
	}
	CHECK_INT(db_schema_version(db), DB_SCHEMA_VERSION);
	id1 = db_add_run(db, &run, names, vals, 3, &err);
	CHECK(id1 > 0);
	run.variant = "FOO=1";
	run.switches = "FOO=1";
	run.rundir = "/r/2";
	run.interfered = -1;
	vals[0] = 50;
	id2 = db_add_run(db, &run, names, vals, 3, &err);
	CHECK(id2 > id1);
	CHECK_INT(db_run_metric(db, id1, "fps", &v, NULL), 1);
	CHECK_NEAR(v, 59.9, 1e-12);
	CHECK_INT(db_run_metric(db, id1, "p99_ms", &v, NULL), 0);	/* NaN: no row */
	CHECK_INT(db_metric_names(db, "game", &metrics, &err), 2);
	CHECK_STR(metrics[0], "fps");
	CHECK_STR(metrics[1], "stalls");
	CHECK(metrics[2] == NULL);
	db_free_list(metrics);

	/* importing the same run directory again replaces it; failed and why
	 * go with it */
	vals[0] = 51;
	run.failed = 1;
	run.failure = "no frames were recorded";
	CHECK(db_add_run(db, &run, names, vals, 3, &err) > id1);
	CHECK_INT(db_each_run(db, "game", collect, &s, &err), 0);
	CHECK_INT(s.n, 2);
	CHECK_STR(s.names[0], "game/-/1");
	CHECK_STR(s.names[1], "game/FOO=1/1");
	CHECK_INT(s.interfered[1], -1);
	CHECK_INT(s.failed[0], 0);
	CHECK_STR(s.failure[0], "(null)");
	CHECK_INT(s.failed[1], 1);
	CHECK_STR(s.failure[1], "no frames were recorded");
	CHECK_INT(db_run_metric(db, s.ids[1], "fps", &v, NULL), 1);
	CHECK_NEAR(v, 51, 0);
	s.n = 0;
	CHECK_INT(db_each_run(db, "other", collect, &s, &err), 0);
	CHECK_INT(s.n, 0);
	CHECK_STR(s.rig[0], "-");	/* no rig given: unknown */

	/* two rigs, one path: two runs; a retry of one replaces only it, and
	 * the rig's facts are kept (and updated) beside */
	{
		struct db_rig ri = { .rig = "rig-b", .host = "b", .cpus = 8, .mem_kb = 1 << 20,
				     .cpu = "Some CPU", .version = "0.1.0" };

		run.name = "lab";
		run.rundir = "/r/same";
		run.rig = "rig-a";
		run.build = "v1.2-3-gabc";	/* the build it measured (schema 5) */
		CHECK(db_add_run(db, &run, names, vals, 3, &err) > 0);
		run.build = NULL;
		run.rig = "rig-b";
		run.rig_info = &ri;
		CHECK(db_add_run(db, &run, names, vals, 3, &err) > 0);
		vals[0] = 42;
		ri.cpus = 16;
		CHECK(db_add_run(db, &run, names, vals, 3, &err) > 0);
		run.rig_info = NULL;
		run.rig = NULL;
		s.n = 0;
		CHECK_INT(db_each_run(db, "lab", collect, &s, &err), 0);
		CHECK_INT(s.n, 2);
		CHECK_STR(s.rig[0], "rig-a");
		CHECK_STR(s.rig[1], "rig-b");
		CHECK_STR(s.build[0], "v1.2-3-gabc");
		CHECK_STR(s.build[1], "(null)");
		CHECK_INT(db_run_metric(db, s.ids[1], "fps", &v, NULL), 1);
		CHECK_NEAR(v, 42, 0);
		run.name = "game";
	}
	db_close(db);
	db_close(NULL);
	/* written, it opens read-only */
	CHECK_INT(db_open(target, false, &db, &err), 0);
	s.n = 0;
	CHECK_INT(db_each_run(db, NULL, collect, &s, &err), 0);
	CHECK_INT(s.n, 4);
	db_close(db);
	sb_release(&err);
}

static void test_roundtrip(void)
{
	roundtrip(tmp("a.db"), "a.db");
}

/* The same on a PostgreSQL server: SS_PG, a connection string to an empty
 * database (tests/e2e/db-pg.sh starts a throwaway server and sets it). */
static void test_roundtrip_pg(void)
{
	const char *pg = getenv("SS_PG");

	CHECK(db_target_is_server(pg));
	roundtrip(pg, "dbname=");
}

static void check_safe(const char *in, const char *want)
{
	char *out = NULL;

	CHECK_INT(db_target_safe(in, &out), 0);
	CHECK_STR(out, want);
	free(out);
}

/* Neither TARGET's shown form nor db_open's message (the target made to
 * fail: a server on a socket directory that does not exist) holds any of
 * the password's pieces. */
static void check_hidden(const char *target)
{
	static const char *const pieces[] = { "hunter2", "hun", "ter2", "s3cret" };
	struct strbuf err = STRBUF_INIT;
	struct db *db = NULL;
	char *out = NULL;

	CHECK_INT(db_target_safe(target, &out), 0);
	CHECK_INT(db_open(target, false, &db, &err), db_target_kind(target) == DB_TARGET_SERVER
						      ? -ECONNREFUSED : -EINVAL);
	CHECK(db == NULL && err.len > 0);
	for (size_t i = 0; i < sizeof(pieces) / sizeof(pieces[0]); i++) {
		if (out && strstr(out, pieces[i]))
			T_FAIL("'%s' shown as '%s'", target, out);
		if (strstr(err.buf, pieces[i]))
			T_FAIL("'%s' opened says: %s", target, err.buf);
	}
	free(out);
	sb_release(&err);
}

/* Which targets are servers (libpq's parse says), and what a message may
 * show of one: never its password, however it is spelled. */
static void test_targets(void)
{
	CHECK_INT(db_target_kind("results.db"), DB_TARGET_FILE);
	CHECK_INT(db_target_kind("/var/lib/x=y/results.db"), DB_TARGET_FILE);
	CHECK_INT(db_target_kind("./a=b.db"), DB_TARGET_FILE);
	CHECK_INT(db_target_kind("/tmp/my results.db"), DB_TARGET_FILE);
	CHECK_INT(db_target_kind("postgresql://rig@db.lab/bench"), DB_TARGET_SERVER);
	CHECK_INT(db_target_kind("postgres://db.lab/bench"), DB_TARGET_SERVER);
	CHECK_INT(db_target_kind("postgresql://"), DB_TARGET_SERVER);
	CHECK_INT(db_target_kind("host=/run/postgresql dbname=bench"), DB_TARGET_SERVER);
	CHECK_INT(db_target_kind("dbname=bench"), DB_TARGET_SERVER);
	/* issue 26: libpq's spellings a hand parser missed */
	CHECK_INT(db_target_kind("password = hunter2"), DB_TARGET_SERVER);
	CHECK_INT(db_target_kind("password=hun\\ ter2"), DB_TARGET_SERVER);
	CHECK_INT(db_target_kind("host=/x\tpassword=hunter2"), DB_TARGET_SERVER);
	CHECK_INT(db_target_kind("postgresql:///x?%70assword=hunter2"), DB_TARGET_SERVER);
	/* what libpq refuses but is shaped like a connection string */
	CHECK_INT(db_target_kind("dbname=x password=hun ter2"), DB_TARGET_BROKEN);
	CHECK_INT(db_target_kind("POSTGRESQL://u:hunter2@h/db"), DB_TARGET_BROKEN);
	CHECK_INT(db_target_kind("pasword=hunter2"), DB_TARGET_BROKEN);
	CHECK_INT(db_target_kind("postgresql://[::1"), DB_TARGET_BROKEN);
	CHECK(!db_target_is_server("results.db"));
	CHECK(db_target_is_server("dbname=x password=hun ter2"));

	check_safe("results.db", "results.db");
	check_safe("postgresql://rig:s3cret@db.lab:5432/bench",
		   "user=rig dbname=bench host=db.lab port=5432");
	check_safe("postgresql://db.lab/bench?password=s3cret&sslmode=require",
		   "dbname=bench host=db.lab sslmode=require");
	check_safe("host=/run/postgresql password=s3cret dbname=bench",
		   "dbname=bench host=/run/postgresql");
	check_safe("password='a b\\' c' dbname=bench", "dbname=bench");
	check_safe("dbname=bench sslpassword=s3cret sslkey=/k", "dbname=bench sslkey=/k");
	check_safe("password = hunter2", "postgresql://");
	check_safe("postgresql:///x?%70assword=hunter2", "dbname=x");
	/* values that need quotes keep them: the shown form connects */
	check_safe("dbname='my db' application_name='it\\'s' host=x",
		   "dbname='my db' host=x application_name='it\\'s'");
	/* a password that is another field's value too is hidden there */
	check_safe("user=hunter2 password=hunter2 dbname=b", "user=*** dbname=b");
	check_safe("dbname=x password=hun ter2",
		   "(a connection string libpq cannot parse, not shown)");

	check_hidden("host=/nonexistent-ss-test password = hunter2");
	check_hidden("host=/nonexistent-ss-test password=hun\\ ter2");
	check_hidden("host=/nonexistent-ss-test\tpassword=hunter2\tdbname=x");
	check_hidden("postgresql:///x?%70assword=hunter2&host=/nonexistent-ss-test");
	check_hidden("postgresql://u:hunter2@/x?host=/nonexistent-ss-test");
	check_hidden("host=/nonexistent-ss-test user=hunter2 password=hunter2");
	check_hidden("dbname=x password=hun ter2");
	check_hidden("POSTGRESQL://u:hunter2@h/db");
	check_hidden("postgresql://u:hunter2@[::1/db");
}

/* What libpq or a server says is scrubbed of the passwords. */
static void test_scrub(void)
{
	char *secrets[] = { "hunter2", "pw", NULL };
	struct strbuf sb = STRBUF_INIT;

	sb_adds(&sb, "keep hunter2: user \"hunter2\" from pw@host hunter2");
	db_scrub(secrets, &sb, 5);
	CHECK_STR(sb.buf, "keep ***: user \"***\" from ***@host ***");
	CHECK_INT(sb.len, strlen(sb.buf));
	sb_reset(&sb);
	sb_adds(&sb, "hunter2 before FROM stays; after: hunter2");
	db_scrub(secrets, &sb, 8);
	CHECK_STR(sb.buf, "hunter2 before FROM stays; after: ***");
	db_scrub(NULL, &sb, 0);
	sb_release(&sb);
}

static int exec_file(const char *db_path, const char *sql_path)
{
	FILE *f = fopen(sql_path, "r");
	char buf[8192];
	size_t n;
	sqlite3 *h;
	int rc;

	if (!f)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	if (sqlite3_open(db_path, &h) != SQLITE_OK)
		return -1;
	rc = sqlite3_exec(h, buf, NULL, NULL, NULL);
	sqlite3_close(h);
	return rc == SQLITE_OK ? 0 : -1;
}

static void test_migrate(void)
{
	struct strbuf err = STRBUF_INIT;
	struct seen s = { 0 };
	struct db *db = NULL;
	double v = 0;

	CHECK_INT(exec_file(tmp("v1.db"), t_fixture("db/v1.sql")), 0);
	{	/* a run whose program failed, stored by the first stallscope */
		sqlite3 *h;

		CHECK_INT(sqlite3_open(tmp("v1.db"), &h), SQLITE_OK);
		CHECK_INT(sqlite3_exec(h, "INSERT INTO runs VALUES (3, 'game', '-', NULL, 2, NULL,"
					  " NULL, NULL, '/runs/c', 0, 3)", NULL, NULL, NULL),
			  SQLITE_OK);
		sqlite3_close(h);
	}
	/* reading never migrates: it says how to */
	CHECK_INT(db_open(tmp("v1.db"), false, &db, &err), -EPROTO);
	CHECK(strstr(err.buf, "schema version 1 is older") && strstr(err.buf, "db upgrade"));
	CHECK(db == NULL);
	CHECK_INT(db_open(tmp("v1.db"), true, &db, &err), 0);
	if (!db)
		return;
	CHECK_INT(db_schema_version(db), DB_SCHEMA_VERSION);
	CHECK_INT(db_each_run(db, NULL, collect, &s, &err), 0);
	CHECK_INT(s.n, 3);
	CHECK_INT(s.interfered[2], 1);	/* game/FOO=1/1, after game/-/1 and game/-/2 */
	/* 2 -> 3: a run whose program exited non-zero is a failed run */
	CHECK_INT(s.failed[0], 0);
	CHECK_STR(s.failure[0], "(null)");
	CHECK_INT(s.failed[1], 1);
	CHECK_STR(s.failure[1], "the program exited with status 3");
	CHECK_INT(db_run_metric(db, 1, "fps", &v, NULL), 1);
	CHECK_NEAR(v, 60.5, 0);
	db_close(db);
	sb_release(&err);
}

static void test_bad_files(void)
{
	struct strbuf err = STRBUF_INIT;
	struct db *db = NULL;
	FILE *f;
	sqlite3 *h;

	f = fopen(tmp("junk.db"), "w");
	fputs("this is not a database, but a results file someone overwrote\n", f);
	for (int i = 0; i < 200; i++)
		fputs("0123456789abcdef0123456789abcdef\n", f);
	fclose(f);
	CHECK_INT(db_open(tmp("junk.db"), false, &db, &err), -EINVAL);
	CHECK(strstr(err.buf, "junk.db") != NULL);
	CHECK(db == NULL);

	CHECK_INT(sqlite3_open(tmp("new.db"), &h), SQLITE_OK);
	sqlite3_exec(h, "PRAGMA user_version = 99; CREATE TABLE x(y)", NULL, NULL, NULL);
	sqlite3_close(h);
	sb_reset(&err);
	CHECK_INT(db_open(tmp("new.db"), false, &db, &err), -EPROTONOSUPPORT);
	CHECK(strstr(err.buf, "99") != NULL);
	sb_release(&err);
}

/* Someone else's SQLite file, or an empty one: a reading open refuses and
 * changes nothing (no tables added, user_version left); a writing open
 * refuses another program's tables but makes an empty file ours. */
static void test_foreign(void)
{
	struct strbuf err = STRBUF_INIT;
	struct db *db = NULL;
	struct stat st;
	sqlite3 *h;
	FILE *f;

	CHECK_INT(sqlite3_open(tmp("theirs.db"), &h), SQLITE_OK);
	sqlite3_exec(h, "CREATE TABLE notes(text); INSERT INTO notes VALUES ('mine')", NULL, NULL,
		     NULL);
	sqlite3_close(h);
	CHECK_INT(db_open(tmp("theirs.db"), false, &db, &err), -EINVAL);
	CHECK(strstr(err.buf, "not a stallscope results database (its tables are not ours)") != NULL);
	sb_reset(&err);
	CHECK_INT(db_open(tmp("theirs.db"), true, &db, &err), -EINVAL);
	CHECK(db == NULL);
	CHECK_INT(sqlite3_open(tmp("theirs.db"), &h), SQLITE_OK);
	{
		sqlite3_stmt *q;
		int n = -1, v = -1;

		sqlite3_prepare_v2(h, "SELECT count(*) FROM sqlite_master", -1, &q, NULL);
		if (sqlite3_step(q) == SQLITE_ROW)
			n = sqlite3_column_int(q, 0);
		sqlite3_finalize(q);
		sqlite3_prepare_v2(h, "PRAGMA user_version", -1, &q, NULL);
		if (sqlite3_step(q) == SQLITE_ROW)
			v = sqlite3_column_int(q, 0);
		sqlite3_finalize(q);
		CHECK_INT(n, 1);	/* their one table, nothing added */
		CHECK_INT(v, 0);
	}
	sqlite3_close(h);

	f = fopen(tmp("zero.db"), "w");
	if (f)
		fclose(f);
	sb_reset(&err);
	CHECK_INT(db_open(tmp("zero.db"), false, &db, &err), -EINVAL);
	CHECK(strstr(err.buf, "(it is empty)") != NULL);
	CHECK(stat(tmp("zero.db"), &st) == 0 && st.st_size == 0);
	CHECK_INT(db_open(tmp("zero.db"), true, &db, &err), 0);
	CHECK(db && db_schema_version(db) == DB_SCHEMA_VERSION);
	db_close(db);
	sb_release(&err);
}

/* A results database someone else made: our tables, names and
 * user_version, but no NOT NULL and no types (issue 26), so any column may
 * hold NULL or text. */
static const char hostile_schema[] =
	"CREATE TABLE runs (id, name, variant, switches, round, started, host, kernel, rundir,"
	" interfered, exit_status, interference, failed, failure, rig, build);"
	"CREATE TABLE metrics (run_id, metric, value);"
	"CREATE TABLE rigs (rig);"
	"PRAGMA user_version = 5;"
	"INSERT INTO runs VALUES (1, 'game', '-', NULL, 1, NULL, NULL, NULL, '/r/1', NULL, 0,"
	" NULL, 0, NULL, '-', NULL);"
	"INSERT INTO runs VALUES (2, 'game', 'B=1', NULL, 1, NULL, NULL, NULL, '/r/2', 0, NULL,"
	" NULL, 0, NULL, '-', 'b2');"
	"INSERT INTO metrics VALUES (1, 'fps', 60), (2, 'fps', 61.5), (2, 'stalls', 2);";

static int count_runs(const struct db_run *run, void *ctx)
{
	/* what crashed compare and matrix: a NULL where a name belongs */
	(*(int *)ctx) += (int)strlen(run->name) + (int)strlen(run->variant) +
			 (int)strlen(run->rig) > 0;
	return 0;
}

enum probe { P_RUNS, P_NAMES, P_VALUES, P_METRIC };

/* The hostile database with SQL applied, read by PROBE: refused (-EINVAL)
 * with a message holding each of WANT (NULL-terminated); or, when WANT is
 * NULL, read without complaint. */
static void hostile(int k, const char *sql, enum probe probe, const char *const *want)
{
	static const long long ids[] = { 1, 2 };
	struct strbuf err = STRBUF_INIT;
	struct db *db = NULL;
	char name[32], **list = NULL;
	double v[2];
	bool have[2];
	sqlite3 *h;
	int n = 0, r = -1;

	snprintf(name, sizeof(name), "hostile%d.db", k);
	CHECK_INT(sqlite3_open(tmp(name), &h), SQLITE_OK);
	CHECK_INT(sqlite3_exec(h, hostile_schema, NULL, NULL, NULL), SQLITE_OK);
	CHECK_INT(sqlite3_exec(h, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(h);
	CHECK_INT(db_open(tmp(name), false, &db, &err), 0);
	if (!db)
		return;
	switch (probe) {
	case P_RUNS:
		r = db_each_run(db, NULL, count_runs, &n, &err);
		break;
	case P_NAMES:
		r = db_metric_names(db, NULL, &list, &err);
		db_free_list(r >= 0 ? list : NULL);
		break;
	case P_VALUES:
		r = db_metric_values(db, "fps", ids, 2, v, have, &err);
		break;
	case P_METRIC:
		r = db_run_metric(db, 2, "fps", v, &err);
		break;
	}
	if (!want) {
		CHECK(r >= 0);
		if (r < 0)
			T_FAIL("case %d: %s", k, err.buf);
	} else {
		CHECK_INT(r, -EINVAL);
		CHECK(strstr(err.buf, name) != NULL);
		for (; *want; want++)
			if (!strstr(err.buf, *want))
				T_FAIL("case %d: '%s' is not in: %s", k, *want, err.buf);
	}
	db_close(db);
	sb_release(&err);
}

/* Every column read refuses NULL, and a value of the wrong kind, where the
 * schema says NOT NULL; what the schema lets be NULL is read as what NULL
 * means there. */
static void test_hostile(void)
{
#define W(...) ((const char *const[]){ __VA_ARGS__, NULL })
	int k = 0;

	hostile(k++, "", P_RUNS, NULL);
	hostile(k++, "", P_VALUES, NULL);
	hostile(k++, "", P_NAMES, NULL);
	hostile(k++, "UPDATE runs SET variant = NULL WHERE id = 2", P_RUNS,
		W("table runs, run 2: column variant is NULL, expected the variant's name"));
	hostile(k++, "UPDATE runs SET name = NULL WHERE id = 1", P_RUNS,
		W("table runs, run 1: column name is NULL, expected"));
	hostile(k++, "UPDATE runs SET rig = NULL WHERE id = 1", P_RUNS,
		W("run 1: column rig is NULL, expected the rig's name"));
	hostile(k++, "UPDATE runs SET round = NULL WHERE id = 1", P_RUNS,
		W("run 1: column round is NULL, expected the round"));
	hostile(k++, "UPDATE runs SET round = 'first' WHERE id = 1", P_RUNS,
		W("run 1: column round is 'first', expected the round"));
	hostile(k++, "UPDATE runs SET round = 1.5 WHERE id = 1", P_RUNS,
		W("run 1: column round is '1.5'"));
	hostile(k++, "UPDATE runs SET failed = NULL WHERE id = 2", P_RUNS,
		W("run 2: column failed is NULL, expected 1 (a failed run) or 0"));
	hostile(k++, "UPDATE runs SET interfered = 7 WHERE id = 2", P_RUNS,
		W("run 2: column interfered is '7', expected 1, 0 or NULL"));
	hostile(k++, "UPDATE runs SET id = NULL WHERE id = 2", P_RUNS,
		W("table runs, a row: column id is NULL, expected the run's id"));
	hostile(k++, "UPDATE runs SET id = 'x' || char(27) || '[2J' WHERE id = 2", P_RUNS,
		W("column id is 'x\\x1b[2J'"));	/* shown escaped */
	hostile(k++, "UPDATE metrics SET value = NULL WHERE run_id = 2 AND metric = 'fps'",
		P_VALUES, W("table metrics, run 2, metric 'fps': column value is NULL, "
			    "expected a finite number"));
	hostile(k++, "UPDATE metrics SET value = NULL WHERE run_id = 2 AND metric = 'fps'",
		P_METRIC, W("table metrics, run 2, metric 'fps': column value is NULL"));
	hostile(k++, "UPDATE metrics SET value = 'sixty' WHERE run_id = 2 AND metric = 'fps'",
		P_METRIC, W("column value is 'sixty', expected a finite number"));
	hostile(k++, "UPDATE metrics SET value = 9e999 WHERE run_id = 2 AND metric = 'fps'",
		P_VALUES, W("column value is 'Inf', expected a finite number"));
	hostile(k++, "UPDATE metrics SET run_id = NULL WHERE run_id = 2 AND metric = 'fps'",
		P_VALUES, W("table metrics, a row: column run_id is NULL, expected a run's id"));
	hostile(k++, "UPDATE metrics SET metric = NULL WHERE run_id = 2 AND metric = 'stalls'",
		P_NAMES, W("table metrics, run 2: column metric is NULL, expected a metric's name"));
	hostile(k++, "UPDATE metrics SET metric = '../../x' WHERE metric = 'stalls'", P_NAMES,
		W("column metric is '../../x', expected a metric's name"));
#undef W
	{	/* NULL where the schema allows it: none, not watched, unknown */
		struct strbuf err = STRBUF_INIT;
		struct db *db = NULL;
		struct seen s = { 0 };

		CHECK_INT(db_open(tmp("hostile0.db"), false, &db, &err), 0);
		CHECK_INT(db_each_run(db, NULL, collect, &s, &err), 0);
		CHECK_INT(s.n, 2);
		CHECK_INT(s.interfered[0], -1);
		CHECK_STR(s.failure[0], "(null)");
		db_close(db);
		sb_release(&err);
	}
}

/* A trigger someone added to the file never fires on our writes. */
static void test_hostile_trigger(void)
{
	static const double vals[] = { 60 };
	static const char *const names[] = { "fps" };
	struct db_run run = { .name = "game", .variant = "-", .rundir = "/r/t", .exit_status = 0 };
	struct strbuf err = STRBUF_INIT;
	struct db *db = NULL;
	sqlite3 *h;

	CHECK_INT(db_open(tmp("trigger.db"), true, &db, &err), 0);
	db_close(db);
	CHECK_INT(sqlite3_open(tmp("trigger.db"), &h), SQLITE_OK);
	CHECK_INT(sqlite3_exec(h, "CREATE TRIGGER t AFTER INSERT ON runs BEGIN"
				  " SELECT RAISE(ABORT, 'the trigger ran'); END", NULL, NULL, NULL),
		  SQLITE_OK);
	sqlite3_close(h);
	db = NULL;
	CHECK_INT(db_open(tmp("trigger.db"), true, &db, &err), 0);
	CHECK(db && db_add_run(db, &run, names, vals, 1, &err) > 0);
	CHECK(!strstr(err.buf, "trigger"));
	db_close(db);
	sb_release(&err);
}

/* "test-db" runs the SQLite and pure cases; "test-db --pg" only the round
 * trip on the server SS_PG names, and skips (77) without one: starting a
 * throwaway server costs 5-15 s here, which tests/e2e/db-pg.sh spends once
 * for this and its own checks. */
int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "--pg") == 0) {
		const char *pg = getenv("SS_PG");

		if (!pg || !*pg)
			t_skip("no SS_PG (a connection string to an empty PostgreSQL database): "
			       "tests/e2e/db-pg.sh runs this case on a throwaway server");
		T_RUN(test_roundtrip_pg);
		return t_exit();
	}
	if (!mkdtemp(dir))
		t_skip("cannot make a temporary directory");
	T_RUN(test_roundtrip);
	T_RUN(test_targets);
	T_RUN(test_scrub);
	T_RUN(test_migrate);
	T_RUN(test_bad_files);
	T_RUN(test_foreign);
	T_RUN(test_hostile);
	T_RUN(test_hostile_trigger);
	{
		char cmd[300];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd) != 0)
			fprintf(stderr, "could not clean %s\n", dir);
	}
	return t_exit();
}
