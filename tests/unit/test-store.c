// SPDX-License-Identifier: MIT
/*
 * test-store.c: a run's analysis into the results database (run/store.h),
 * on SQLite in a temporary directory. The run.ini is a real one
 * (tests/fixtures/runini/record-sleep.ini: `stallscope record -- sleep
 * 0.3` on this machine, the keys bench adds appended: name, variant,
 * switches, round, build, rig_gpu). What is stored is read back through
 * db.h and, for the rig's facts, SQL: the run's row from run.ini (name=
 * before the program; "-" read as none), absolute run directory, the
 * metrics with a number and none of those without (NaN), the rig's facts;
 * storing again replaces (one row, same id, the new values); a run.ini
 * with nothing bench wrote, a failed run, a build name that is no name.
 */
#include "t.h"

#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>
#include <sqlite3.h>

#include "core/metrics.h"
#include "core/runini.h"
#include "db/db.h"
#include "run/analyse.h"
#include "run/store.h"

/* in memory: the database syncs each run it stores, which a busy disk makes
 * seconds */
static char dir[] = "/dev/shm/ss-test-store-XXXXXX";

/* A copy of the run a walk saw (its strings live only during the call). */
struct seen {
	int n;
	long long id;
	char name[64], variant[64], switches[64], started[64], host[64], kernel[64];
	char rundir[4200], rig[64], build[64], failure[128], interference[128];
	int round, interfered, exit_status, failed;
};

static void cp(char *dst, size_t size, const char *s)
{
	snprintf(dst, size, "%s", s ? s : "(null)");
}

static int see(const struct db_run *r, void *ctx)
{
	struct seen *s = ctx;

	s->n++;
	s->id = r->id;
	cp(s->name, sizeof(s->name), r->name);
	cp(s->variant, sizeof(s->variant), r->variant);
	cp(s->switches, sizeof(s->switches), r->switches);
	cp(s->started, sizeof(s->started), r->started);
	cp(s->host, sizeof(s->host), r->host);
	cp(s->kernel, sizeof(s->kernel), r->kernel);
	cp(s->rundir, sizeof(s->rundir), r->rundir);
	cp(s->rig, sizeof(s->rig), r->rig);
	cp(s->build, sizeof(s->build), r->build);
	cp(s->failure, sizeof(s->failure), r->failure);
	cp(s->interference, sizeof(s->interference), r->interference);
	s->round = r->round;
	s->interfered = r->interfered;
	s->exit_status = r->exit_status;
	s->failed = r->failed;
	return 0;
}

/* An analysis as analyse_input leaves it for a run directory: run.ini
 * parsed from TEXT, every metric NaN but those set after. */
static void fake_analysis(struct analysis *a, const char *text, const char *program,
			  const char *variant)
{
	struct strbuf err = STRBUF_INIT;

	memset(a, 0, sizeof(*a));
	CHECK_INT(runini_parse(text, strlen(text), "run.ini", &a->ini, &err), 0);
	a->program = program ? strdup(program) : NULL;
	a->variant = variant ? strdup(variant) : NULL;
	a->interfered = -1;
	for (int m = 0; m < M_COUNT; m++)
		a->m.v[m] = NAN;
	sb_release(&err);
}

static char *read_fixture(const char *name)
{
	FILE *f = fopen(t_fixture(name), "r");
	char *buf = calloc(1, 65536);

	if (!f || !buf) {
		fprintf(stderr, "cannot read %s\n", t_fixture(name));
		exit(1);
	}
	buf[fread(buf, 1, 65535, f)] = 0;
	fclose(f);
	return buf;
}

static double metric(struct db *db, long long id, const char *name, int *have)
{
	struct strbuf err = STRBUF_INIT;
	double v = -1;

	*have = db_run_metric(db, id, name, &v, &err);
	sb_release(&err);
	return v;
}

static void test_store(void)
{
	struct strbuf err = STRBUF_INIT;
	char dbpath[4200], rundir[4200], cwd[4096];
	struct analysis a;
	struct seen s = { 0 };
	struct db *db = NULL;
	char *ini = read_fixture("runini/record-sleep.ini");
	long long id, id2;
	int have;

	snprintf(dbpath, sizeof(dbpath), "%s/r.db", dir);
	snprintf(rundir, sizeof(rundir), "%s/runs/demo-1", dir);
	CHECK_INT(db_make_parent(rundir, NULL), 0);
	CHECK_INT(mkdir(rundir, 0755), 0);
	CHECK_INT(db_open(dbpath, true, &db, &err), 0);
	if (!db)
		return;
	fake_analysis(&a, ini, "sleep", "FOO=1");
	a.interfered = 0;
	a.m.v[M_FRAMES] = 1000;
	a.m.v[M_FPS] = 59.9;
	a.m.v[M_P99_MS] = 20.5;
	/* stored by a relative path: kept absolute */
	CHECK(getcwd(cwd, sizeof(cwd)) != NULL);
	CHECK_INT(chdir(dir), 0);
	id = store_run(db, "runs/demo-1/", &a, &err);
	CHECK_INT(chdir(cwd), 0);
	CHECK(id > 0);
	CHECK_INT(db_each_run(db, NULL, see, &s, &err), 0);
	CHECK_INT(s.n, 1);
	CHECK_INT(s.id, id);
	CHECK_STR(s.name, "demo");		/* name= before the program */
	CHECK_STR(s.variant, "FOO=1");
	CHECK_STR(s.switches, "FOO=1+BAR=2");
	CHECK_INT(s.round, 3);
	CHECK_STR(s.started, "2026-12-02T11:10:01.437070Z");
	CHECK_STR(s.host, "vm");		/* no host=: the rig's */
	CHECK_STR(s.kernel, "6.18.44-fc-v1045");
	CHECK_STR(s.rundir, rundir);
	CHECK_STR(s.rig, "m-ec09b06ddf15160d");
	CHECK_STR(s.build, "v1.2-3-gabc");
	CHECK_INT(s.interfered, 0);
	CHECK_INT(s.exit_status, 0);
	CHECK_INT(s.failed, 0);
	CHECK_STR(s.failure, "(null)");
	CHECK_NEAR(metric(db, id, "fps", &have), 59.9, 1e-9);
	CHECK_INT(have, 1);
	CHECK_NEAR(metric(db, id, "frames", &have), 1000, 0);
	CHECK_NEAR(metric(db, id, "p99_ms", &have), 20.5, 1e-9);
	metric(db, id, "median_ms", &have);	/* NaN: no row */
	CHECK_INT(have, 0);
	metric(db, id, "p95_ms", &have);
	CHECK_INT(have, 0);

	/* again, with a new number and one metric gone: replaced, not added */
	a.m.v[M_FPS] = 61.25;
	a.m.v[M_P99_MS] = NAN;
	id2 = store_run(db, rundir, &a, &err);
	CHECK_INT(id2, id);
	memset(&s, 0, sizeof(s));
	CHECK_INT(db_each_run(db, NULL, see, &s, &err), 0);
	CHECK_INT(s.n, 1);
	CHECK_NEAR(metric(db, id, "fps", &have), 61.25, 1e-9);
	metric(db, id, "p99_ms", &have);
	CHECK_INT(have, 0);
	analysis_release(&a);
	db_close(db);

	/* the rig's facts, beside the run */
	{
		sqlite3 *q = NULL;
		sqlite3_stmt *st = NULL;

		CHECK_INT(sqlite3_open_v2(dbpath, &q, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
		CHECK_INT(sqlite3_prepare_v2(q, "SELECT host, kernel, cpu, cpus, mem_kb, gpu, version, "
					     "seen FROM rigs WHERE rig = 'm-ec09b06ddf15160d'", -1,
					     &st, NULL), SQLITE_OK);
		CHECK_INT(sqlite3_step(st), SQLITE_ROW);
		CHECK_STR((const char *)sqlite3_column_text(st, 0), "vm");
		CHECK_STR((const char *)sqlite3_column_text(st, 1), "6.18.44-fc-v1045");
		CHECK_STR((const char *)sqlite3_column_text(st, 2), "AMD EPYC");
		CHECK_INT(sqlite3_column_int(st, 3), 2);
		CHECK_INT(sqlite3_column_int64(st, 4), 24683548);
		CHECK_STR((const char *)sqlite3_column_text(st, 5), "amdgpu");
		CHECK_STR((const char *)sqlite3_column_text(st, 6), "0.1.0");
		CHECK_STR((const char *)sqlite3_column_text(st, 7), "2026-12-02T11:10:01.437070Z");
		sqlite3_finalize(st);
		sqlite3_close(q);
	}
	sb_release(&err);
	free(ini);
}

/* A run.ini with none of bench's keys and odd values: the program is the
 * name, "-" the variant, round 0, an exit status that is no number -1, "-"
 * read as none, a build that is no build name (blanks) dropped, no rig
 * "-"; a
 * failure stored as failed. */
static void test_sparse(void)
{
	static const char ini[] = "program=fakegame\nexit_status=3x\nswitches=-\n"
				  "build=v1 with blanks\nt0_utc=-\nround=two\n";
	struct strbuf err = STRBUF_INIT;
	char dbpath[4200], rundir[4200];
	struct analysis a;
	struct seen s = { 0 };
	struct db *db = NULL;
	long long id;

	snprintf(dbpath, sizeof(dbpath), "%s/sparse.db", dir);
	snprintf(rundir, sizeof(rundir), "%s/not-made", dir);	/* absent: kept as given */
	CHECK_INT(db_open(dbpath, true, &db, &err), 0);
	if (!db)
		return;
	fake_analysis(&a, ini, "fakegame", NULL);	/* analyse's program, from program= */
	a.failure = strdup("the program exited with status 3");
	a.interference = strdup("1 key press at 0.4 s");
	a.interfered = 1;
	id = store_run(db, rundir, &a, &err);
	CHECK(id > 0);
	CHECK_INT(db_each_run(db, NULL, see, &s, &err), 0);
	CHECK_INT(s.n, 1);
	CHECK_STR(s.name, "fakegame");		/* no name=: the program */
	CHECK_STR(s.variant, "-");
	CHECK_STR(s.switches, "(null)");
	CHECK_INT(s.round, 0);
	CHECK_STR(s.started, "(null)");
	CHECK_INT(s.exit_status, -1);
	CHECK_STR(s.build, "(null)");
	CHECK_STR(s.rig, "-");
	CHECK_STR(s.rundir, rundir);
	CHECK_INT(s.failed, 1);
	CHECK_STR(s.failure, "the program exited with status 3");
	CHECK_INT(s.interfered, 1);
	CHECK_STR(s.interference, "1 key press at 0.4 s");
	analysis_release(&a);
	db_close(db);
	sb_release(&err);
}

int main(void)
{
	t_tmpdir(dir);
	T_RUN(test_store);
	T_RUN(test_sparse);
	t_rmtree(dir);
	return t_exit();
}
