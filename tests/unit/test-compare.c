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
 * the sides pool rigs. Then what compare and html --db show, computed in
 * one place: the rows of every metric (a metric no run has listed apart,
 * or kept), every run's value and the interfered runs', and a side's
 * frame-time percentile curve pooled from run directories written here
 * (R-7 quantiles at the curve's points; unreadable runs counted).
 */
#include "t.h"

#include <errno.h>
#include <sys/stat.h>

#include "db/db.h"
#include "rec/rec.h"
#include "run/analyse.h"
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


/* The rows of B against A, as compare prints them. */
static void test_result(struct db *db)
{
	struct strbuf err = STRBUF_INIT;
	struct compare_side a = { 0 }, b = { 0 };
	struct compare_result res;

	CHECK_INT(compare_side_parse(&a, "game"), 0);
	CHECK_INT(compare_side_parse(&b, "game:FOO=1"), 0);
	CHECK_INT(compare_side_collect(db, &a, &err), 0);
	CHECK_INT(compare_side_collect(db, &b, &err), 0);

	/* every metric both store: fps (4 runs against 2: one has none),
	 * p99_ms (4 against 3) */
	CHECK_INT(compare_result_compute(db, NULL, &a, &b, 0, &res, &err), 0);
	CHECK_INT(res.n, 2);
	CHECK_INT(res.nempty, 0);
	CHECK(res.values == NULL);
	if (res.n == 2) {
		CHECK_STR(res.rows[0].metric, "fps");
		CHECK_INT(res.rows[0].na, 4);
		CHECK_INT(res.rows[0].nb, 2);
		CHECK_NEAR(res.rows[0].a_med, 62.5, 1e-12);
		CHECK_NEAR(res.rows[0].b_med, 50.5, 1e-12);
		CHECK_STR(res.rows[1].metric, "p99_ms");
		CHECK_INT(res.rows[1].nb, 3);
		CHECK_NEAR(res.rows[1].a_med, 12.5, 1e-12);
		CHECK_NEAR(res.rows[1].b_med, 12, 1e-12);
		CHECK_INT(res.rows[1].significant, -1);	/* 4+3: too few */
	}
	compare_result_release(&res);

	/* a metric no run has: listed apart, no row unless kept */
	CHECK_INT(compare_result_compute(db, "fps,stalls", &a, &b, 0, &res, &err), 0);
	CHECK_INT(res.n, 1);
	CHECK_INT(res.nempty, 1);
	if (res.nempty == 1)
		CHECK_STR(res.empty[0], "stalls");
	compare_result_release(&res);
	CHECK_INT(compare_result_compute(db, "stalls,fps", &a, &b, COMPARE_KEEP_EMPTY, &res,
					 &err), 0);
	CHECK_INT(res.n, 2);
	CHECK_INT(res.nempty, 1);
	if (res.n == 2) {
		CHECK_STR(res.rows[0].metric, "stalls");
		CHECK_INT(res.rows[0].na + res.rows[0].nb, 0);
		CHECK_STR(res.rows[0].why, "no runs on a");
		CHECK_STR(res.rows[1].metric, "fps");
	}
	compare_result_release(&res);

	/* with the values: every kept run's, the interfered runs' apart */
	CHECK_INT(compare_result_compute(db, "fps", &a, &b, COMPARE_VALUES, &res, &err), 0);
	CHECK_INT(res.n, 1);
	if (res.n == 1 && res.values) {
		const struct compare_values *v = &res.values[0];
		double sum = 0;

		for (size_t i = 0; i < res.rows[0].na; i++)
			sum += v->a[i];
		CHECK_NEAR(sum, 61 + 62 + 63 + 64, 1e-9);
		CHECK_INT(res.rows[0].nb, 2);
		CHECK_NEAR(v->b[0] + v->b[1], 50 + 51, 1e-9);
		CHECK_INT(v->na_intf, 1);
		if (v->na_intf == 1)
			CHECK_NEAR(v->a_intf[0], 10, 0);
		CHECK_INT(v->nb_intf, 0);
	}
	compare_result_release(&res);
	compare_side_release(&a);
	compare_side_release(&b);
	sb_release(&err);
}

#define T0_MONO 1000000000000ull	/* t0 on the record's clock, ns */

/* DIR: a run directory of N frames of 10 ms from t0 + 1 s, frame K of
 * STALL_MS instead. */
static void write_run(const char *rundir, int n, int k, double stall_ms)
{
	char path[4200];
	struct rec_writer *w;
	struct rec_frame fr = { .tid = 7, .source = 1 };
	FILE *f;

	mkdir(rundir, 0700);
	snprintf(path, sizeof(path), "%s/run.ini", rundir);
	f = fopen(path, "w");
	CHECK(f != NULL);
	if (!f)
		return;
	fprintf(f, "program=demo\nt0_mono=1000.000000000\nstate=done\nend=exit\n"
		   "exit_status=0\n");
	fclose(f);
	snprintf(path, sizeof(path), "%s/record.ssr", rundir);
	CHECK_INT(rec_writer_new(path, &w), 0);
	CHECK_INT(rec_writer_begin(w), 0);
	fr.t_ns = T0_MONO + 1000000000ull;
	for (int i = 0; i <= n; i++) {
		rec_writer_frame(w, &fr);
		fr.t_ns += i == k ? (uint64_t)(stall_ms * 1e6) : 10000000ull;
	}
	CHECK_INT(rec_writer_close(w), 0);
}

/* A side's frame-time curve pooled from its run directories (html --db). */
static void test_curve(void)
{
	struct analyse_opts o = { .m = METRICS_OPTS_INIT };
	char d1[4200], d2[4200], file[4200], missing[4200];
	char *dirs[] = { d1, d2, file, missing, (char[]){ "" } };
	struct compare_side s = { .dirs = dirs, .n = 5 };
	double curve[COMPARE_NPCT];
	size_t unread = 0;
	long n;
	FILE *f;

	o.m.warmup_s = 0;
	snprintf(d1, sizeof(d1), "%s/run1", dir);
	snprintf(d2, sizeof(d2), "%s/run2", dir);
	snprintf(file, sizeof(file), "%s/a-frame-log.csv", dir);
	snprintf(missing, sizeof(missing), "%s/gone", dir);
	write_run(d1, 300, 100, 100);	/* 300 frames, one of 100 ms */
	write_run(d2, 200, 50, 40);	/* 200 frames, one of 40 ms */
	f = fopen(file, "w");		/* a file is never read as a frame log */
	if (f) {
		fputs("frametime\n10\n10\n10\n", f);
		fclose(f);
	}
	CHECK(compare_curve_point(0) == 0);
	CHECK_NEAR(compare_curve_point(COMPARE_NPCT - 1), 0.999, 1e-12);
	CHECK(compare_curve_point(60) > 0.9 && compare_curve_point(60) < 0.99);

	n = compare_side_curve(&s, &o, curve, &unread);
	CHECK_INT(n, 500);
	CHECK_INT(unread, 3);	/* the file, the missing one, the unknown one */
	/* 498 frames of 10 ms, one of 40, one of 100: the R-7 quantiles */
	CHECK_NEAR(curve[0], 10, 1e-6);
	for (int k = 1; k < COMPARE_NPCT; k++)
		CHECK(curve[k] >= curve[k - 1]);
	{
		/* 99.9 %: h = 499 * 0.999 = 498.501, between 40 (index 498)
		 * and 100 (index 499) */
		double h = 499 * 0.999;

		CHECK_NEAR(curve[COMPARE_NPCT - 1], 40 + (h - 498) * 60, 1e-6);
	}
	/* no run read: no curve, nothing written */
	s.n = 0;
	curve[0] = -1;
	CHECK_INT(compare_side_curve(&s, &o, curve, &unread), 0);
	CHECK_NEAR(curve[0], -1, 0);
}

/* html --db's data: curves and every side against the first. */
static void test_page(struct db *db)
{
	struct analyse_opts o = { .m = METRICS_OPTS_INIT };
	struct strbuf err = STRBUF_INIT;
	struct compare_side sides[3] = { { 0 }, { 0 }, { 0 } };
	struct compare_page p;

	CHECK_INT(compare_side_parse(&sides[0], "game"), 0);
	CHECK_INT(compare_side_parse(&sides[1], "game:FOO=1"), 0);
	CHECK_INT(compare_side_parse(&sides[2], "game:FOO=sleep:300@1"), 0);
	for (int i = 0; i < 3; i++)
		CHECK_INT(compare_side_collect(db, &sides[i], &err), 0);
	CHECK_INT(compare_page_compute(db, sides, 3, &o, &p, &err), 0);
	CHECK_INT(p.nsides, 3);
	/* the made runs' directories are nowhere: no curves, each counted */
	CHECK_INT(p.curve_unread, 4 + 3 + 1);
	CHECK_INT(p.curve_frames[0] + p.curve_frames[1] + p.curve_frames[2], 0);
	/* side 1 and side 2 against side 0, every metric kept, with values */
	CHECK_INT(p.cmp[0].n, 2);
	CHECK(p.cmp[0].values != NULL);
	CHECK_INT(p.cmp[1].n, 2);
	if (p.cmp[1].n == 2) {
		CHECK_STR(p.cmp[1].rows[0].metric, "fps");
		CHECK_INT(p.cmp[1].rows[0].nb, 1);
		CHECK_NEAR(p.cmp[1].values[0].b[0], 40, 0);
	}
	compare_page_release(&p);
	for (int i = 0; i < 3; i++)
		compare_side_release(&sides[i]);
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
		before = t_failed;
		test_result(db);
		fprintf(stderr, "%s test_result\n", t_failed == before ? "ok  " : "FAIL");
		before = t_failed;
		test_page(db);
		fprintf(stderr, "%s test_page\n", t_failed == before ? "ok  " : "FAIL");
	}
	T_RUN(test_curve);
	db_close(db);
	t_rmtree(dir);
	return t_exit();
}
