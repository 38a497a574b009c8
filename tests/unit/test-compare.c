// SPDX-License-Identifier: MIT
/*
 * test-compare.c: is B different from A (run/compare.h). The side specs
 * NAME[:VARIANT][@BUILD] parsed (a variant that holds ':' and '@' of its
 * own); one metric's row computed (medians, change in %, the exact
 * two-sided Mann-Whitney p of complete separation, 2/C(10,5); too few runs,
 * all values equal, a median of 0, no runs); and the sides collected from
 * an SQLite results database holding made runs: interfered and failed runs
 * left out (failed kept when asked), a rig or build filter, a variant with
 * '@' found whole when the split finds nothing, the values of a metric
 * only from runs that have it, the metrics both sides store, and whether
 * the sides pool rigs.
 */
#include "t.h"

#include <errno.h>

#include "db/db.h"
#include "run/compare.h"

/* in memory: the database syncs each run it stores, which a busy disk makes
 * seconds */
static char dir[] = "/dev/shm/ss-test-compare-XXXXXX";

static void check_parse(const char *spec, int want_r, const char *name, const char *variant,
			const char *build, const char *whole)
{
	struct compare_side s = { 0 };
	int r = compare_side_parse(&s, spec);

	CHECK_INT(r, want_r);
	if (r == 0) {
		CHECK_STR(s.name, name);
		CHECK_STR(s.variant, variant);
		if (build)
			CHECK_STR(s.build, build);
		else
			CHECK(s.build == NULL);
		if (whole)
			CHECK_STR(s.whole, whole);
		else
			CHECK(s.whole == NULL);
	}
	compare_side_release(&s);
}

static void test_parse(void)
{
	check_parse("game", 0, "game", "-", NULL, NULL);
	check_parse("game:", 0, "game", "-", NULL, NULL);
	check_parse("game:FOO=1", 0, "game", "FOO=1", NULL, NULL);
	check_parse("game:FOO=1+BAR=x:y", 0, "game", "FOO=1+BAR=x:y", NULL, NULL);
	check_parse("game@v1.2", 0, "game", "-", "v1.2", NULL);
	check_parse("game:-@v1.2", 0, "game", "-", "v1.2", "-@v1.2");
	check_parse("game:@v1.2", 0, "game", "-", "v1.2", "@v1.2");
	/* the build is after the last '@'; the whole variant kept to try */
	check_parse("game:FOO=sleep:300@1", 0, "game", "FOO=sleep:300", "1", "FOO=sleep:300@1");
	check_parse("game:A=a@b@c", 0, "game", "A=a@b", "c", "A=a@b@c");
	check_parse(":FOO=1", -EINVAL, NULL, NULL, NULL, NULL);
	check_parse("", -EINVAL, NULL, NULL, NULL, NULL);
	check_parse("game@", -EINVAL, NULL, NULL, NULL, NULL);
	check_parse("game:FOO=1@", -EINVAL, NULL, NULL, NULL, NULL);
}

static void test_compute(void)
{
	static const double a[] = { 12, 10, 14, 11, 13 }, b[] = { 22, 24, 20, 21, 23 };
	static const double zero[] = { 0, 0, 0, 0, 0 }, same[] = { 5, 5, 5, 5, 5 };
	struct compare_row r;

	compare_compute(&r, a, 5, b, 5);
	CHECK_NEAR(r.a_med, 12, 1e-12);
	CHECK_NEAR(r.b_med, 22, 1e-12);
	CHECK_NEAR(r.change, 10.0 / 12.0 * 100.0, 1e-9);
	CHECK_NEAR(r.p, 2.0 / 252.0, 1e-9);	/* every b above every a */
	CHECK_INT(r.significant, 1);
	CHECK_STR(r.why, "");
	CHECK_INT(r.na, 5);
	CHECK_INT(r.nb, 5);
	/* five runs are too few for a 95 % interval of the median (n < 6) */
	CHECK(isnan(r.a_lo) && isnan(r.a_hi) && isnan(r.b_lo) && isnan(r.b_hi));
	/* the same the other way: a fall */
	compare_compute(&r, b, 5, a, 5);
	CHECK_NEAR(r.change, -10.0 / 22.0 * 100.0, 1e-9);
	CHECK_INT(r.significant, 1);
	/* overlapping sides: not significant; six runs have an interval
	 * (k = 1 at 95 %: the smallest and largest) */
	{
		static const double c[] = { 11, 13, 12, 10, 14, 12.5 };

		compare_compute(&r, a, 5, c, 6);
		CHECK_INT(r.significant, 0);
		CHECK(r.p > 0.5);
		CHECK_NEAR(r.b_med, 12.25, 1e-12);
		CHECK_NEAR(r.b_lo, 10, 0);
		CHECK_NEAR(r.b_hi, 14, 0);
	}
	/* three runs a side can never reach p < 0.05: cannot be decided */
	compare_compute(&r, a, 3, b, 3);
	CHECK_INT(r.significant, -1);
	CHECK(strstr(r.why, "too few runs: 3+3") != NULL);
	/* every value equal: no change, p 1 */
	compare_compute(&r, same, 5, same, 5);
	CHECK_INT(r.significant, 0);
	CHECK_NEAR(r.p, 1.0, 0);
	CHECK_NEAR(r.change, 0.0, 0);
	/* from a median of 0: no change in %, the direction said */
	compare_compute(&r, zero, 5, b, 5);
	CHECK(isnan(r.change));
	CHECK_INT(r.significant, 1);
	CHECK_STR(r.why, "a's median is 0: no change in %, b's is higher");
	/* no runs on a side */
	compare_compute(&r, a, 0, b, 5);
	CHECK_INT(r.significant, -1);
	CHECK_STR(r.why, "no runs on a");
	compare_compute(&r, a, 5, b, 0);
	CHECK_STR(r.why, "no runs on b");
}

/* Adds a made run NAME:VARIANT round ROUND with metric fps = FPS (NaN: no
 * fps) and p99_ms = 10 + ROUND. */
static long long add(struct db *db, const char *name, const char *variant, int round,
		     const char *rig, const char *build, int interfered, const char *failure,
		     double fps)
{
	static const char *const names[] = { "fps", "p99_ms" };
	struct strbuf err = STRBUF_INIT;
	char rundir[256];
	double v[2] = { fps, 10.0 + round };
	struct db_run r = {
		.name = name, .variant = variant, .round = round, .rundir = rundir,
		.interfered = interfered, .exit_status = failure ? 3 : 0,
		.failed = failure != NULL, .failure = failure, .rig = rig, .build = build,
	};
	long long id;

	snprintf(rundir, sizeof(rundir), "/runs/%s-%s-%s-%d", name, variant, rig ? rig : "-",
		 round);
	id = db_add_run(db, &r, names, v, 2, &err);
	if (id <= 0)
		T_FAIL("db_add_run %s: %s", rundir, err.buf);
	sb_release(&err);
	return id;
}

static struct db *make_db(void)
{
	struct strbuf err = STRBUF_INIT;
	struct db *db = NULL;
	char path[4200];

	snprintf(path, sizeof(path), "%s/c.db", dir);
	if (db_open(path, true, &db, &err) < 0) {
		T_FAIL("db_open: %s", err.buf);
		return NULL;
	}
	/* base: 4 good runs on rig-a, one interfered, one failed */
	for (int k = 1; k <= 4; k++)
		add(db, "game", "-", k, "rig-a", "v1", 0, NULL, 60 + k);
	add(db, "game", "-", 5, "rig-a", "v1", 1, NULL, 10);
	add(db, "game", "-", 6, "rig-a", "v1", 0, "the program exited with status 3", 5);
	/* the variant on two rigs, one run without fps */
	add(db, "game", "FOO=1", 1, "rig-a", "v2", -1, NULL, 50);
	add(db, "game", "FOO=1", 2, "rig-b", "v2", -1, NULL, 51);
	add(db, "game", "FOO=1", 3, "rig-b", "v2", -1, NULL, NAN);
	/* a variant whose own text holds '@' */
	add(db, "game", "FOO=sleep:300@1", 1, "rig-a", NULL, 0, NULL, 40);
	/* another benchmark: not collected */
	add(db, "other", "-", 1, "rig-a", NULL, 0, NULL, 99);
	sb_release(&err);
	return db;
}

static void test_collect(struct db *db)
{
	struct strbuf err = STRBUF_INIT, rigs = STRBUF_INIT;
	struct compare_side a = { 0 }, b = { 0 }, c = { 0 }, f = { 0 };
	double v[16];
	char **list = NULL;
	int n;

	CHECK_INT(compare_side_parse(&a, "game"), 0);
	CHECK_INT(compare_side_collect(db, &a, &err), 0);
	CHECK_INT(a.n, 4);			/* the good runs */
	CHECK_INT(a.interfered, 1);
	CHECK_INT(a.failed, 1);
	CHECK(strstr(a.failures.buf, "game:- round 6, /runs/game---rig-a-6: the program exited "
			"with status 3") != NULL);
	CHECK_INT(a.nrigs, 1);
	CHECK_STR(a.dirs[0], "/runs/game---rig-a-1");
	n = compare_side_values(db, &a, "fps", v, &err);
	CHECK_INT(n, 4);
	{
		double sum = 0;

		for (int i = 0; i < n; i++)
			sum += v[i];
		CHECK_NEAR(sum, 61 + 62 + 63 + 64, 1e-9);	/* not 10 (interfered), not 5 (failed) */
	}

	/* failed runs kept when asked */
	f.include_failed = true;
	CHECK_INT(compare_side_parse(&f, "game:-"), 0);
	CHECK_INT(compare_side_collect(db, &f, &err), 0);
	CHECK_INT(f.n, 5);
	CHECK_INT(f.failed, 1);

	/* the variant: two rigs; a run without fps has no value */
	CHECK_INT(compare_side_parse(&b, "game:FOO=1"), 0);
	CHECK_INT(compare_side_collect(db, &b, &err), 0);
	CHECK_INT(b.n, 3);
	CHECK_INT(b.nrigs, 2);
	CHECK_INT(compare_side_values(db, &b, "fps", v, &err), 2);
	CHECK_INT(compare_side_values(db, &b, "p99_ms", v, &err), 3);
	{
		struct compare_side two[2];

		two[0] = a;
		two[1] = b;
		CHECK(compare_sides_mix_rigs(two, 2, &rigs));
		CHECK_STR(rigs.buf, "rig-a, rig-b");
		sb_reset(&rigs);
		CHECK(!compare_sides_mix_rigs(two, 1, &rigs));
		CHECK_STR(rigs.buf, "rig-a");
	}
	/* the metrics both sides store */
	CHECK_INT(compare_metric_list(db, NULL, &a, &b, &list, &err), 2);
	if (list) {
		CHECK_STR(list[0], "fps");
		CHECK_STR(list[1], "p99_ms");
		CHECK(list[2] == NULL);
	}
	db_free_list(list);
	list = NULL;
	CHECK_INT(compare_metric_list(db, "p99_ms,fps", &a, &b, &list, &err), 2);
	if (list) {
		CHECK_STR(list[0], "p99_ms");
		CHECK_STR(list[1], "fps");
	}
	db_free_list(list);
	compare_side_release(&a);
	compare_side_release(&b);
	compare_side_release(&f);

	/* a rig filter, a build filter */
	memset(&b, 0, sizeof(b));
	b.rig = "rig-b";
	CHECK_INT(compare_side_parse(&b, "game:FOO=1"), 0);
	CHECK_INT(compare_side_collect(db, &b, &err), 0);
	CHECK_INT(b.n, 2);
	compare_side_release(&b);
	memset(&b, 0, sizeof(b));
	CHECK_INT(compare_side_parse(&b, "game:FOO=1@v1"), 0);
	CHECK_INT(compare_side_collect(db, &b, &err), 0);
	CHECK_INT(b.n, 0);
	compare_side_release(&b);
	memset(&b, 0, sizeof(b));
	CHECK_INT(compare_side_parse(&b, "game:FOO=1@v2"), 0);
	CHECK_INT(compare_side_collect(db, &b, &err), 0);
	CHECK_INT(b.n, 3);
	compare_side_release(&b);

	/* FOO=sleep:300@1: no run of variant FOO=sleep:300 and build 1, so the
	 * variant is the whole text */
	CHECK_INT(compare_side_parse(&c, "game:FOO=sleep:300@1"), 0);
	CHECK_INT(compare_side_collect(db, &c, &err), 0);
	CHECK_INT(c.n, 1);
	CHECK_STR(c.variant, "FOO=sleep:300@1");
	CHECK(c.build == NULL);
	compare_side_release(&c);
	sb_release(&rigs);
	sb_release(&err);
}

int main(void)
{
	struct db *db;

	t_tmpdir(dir);
	T_RUN(test_parse);
	T_RUN(test_compute);
	db = make_db();
	if (db) {
		int before = t_failed;

		test_collect(db);
		fprintf(stderr, "%s test_collect\n", t_failed == before ? "ok  " : "FAIL");
	}
	db_close(db);
	t_rmtree(dir);
	return t_exit();
}
