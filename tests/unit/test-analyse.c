// SPDX-License-Identifier: MIT
/*
 * test-analyse.c: run/analyse.h on inputs written here: a run directory
 * (run.ini and a record with one 150 ms stall, one that failed, one whose
 * run.ini is missing) and a plain frame log. Checks the numbers the run
 * yields, that a failed run says why, and that each error is a negative
 * errno with a message naming the file.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rec/rec.h"
#include "run/analyse.h"
#include "t.h"

#define T0_MONO 1000000000000ull	/* t0 on the record's clock, ns */

static char tmp[] = "/tmp/ss-analyse-XXXXXX";

/* DIR/run.ini with INI, and a record of 10 s at 60 fps from t0 + 1 s with
 * one 150 ms frame at frame 300. */
static void write_run(const char *dir, const char *ini)
{
	char path[4096];
	struct rec_writer *w;
	struct rec_frame fr = { .tid = 7, .source = 1 };
	FILE *f;

	mkdir(dir, 0700);
	snprintf(path, sizeof(path), "%s/run.ini", dir);
	f = fopen(path, "w");
	CHECK(f != NULL);
	if (!f)
		return;
	fprintf(f, "program=demo\nvariant=base\nt0_mono=1000.000000000\n%s", ini);
	fclose(f);
	snprintf(path, sizeof(path), "%s/record.ssr", dir);
	CHECK_INT(rec_writer_new(path, &w), 0);
	CHECK_INT(rec_writer_begin(w), 0);
	fr.t_ns = T0_MONO + 1000000000ull;
	for (int i = 0; i <= 600; i++) {
		rec_writer_frame(w, &fr);
		fr.t_ns += i == 299 ? 150000000ull : 16666667ull;
	}
	CHECK_INT(rec_writer_close(w), 0);
}

/* Whether a note of A holds TEXT. */
static bool has_note(const struct analysis *a, const char *text)
{
	for (size_t k = 0; k < a->m.nnotes; k++)
		if (strstr(a->m.notes[k], text))
			return true;
	return false;
}

static void test_run_dir(void)
{
	struct analyse_opts o = { .m = METRICS_OPTS_INIT };
	struct strbuf err = STRBUF_INIT;
	struct analysis a;
	char dir[4096];

	snprintf(dir, sizeof(dir), "%s/good", tmp);
	write_run(dir, "state=done\nend=exit\nexit_status=0\nframe_source=auto\n");
	o.m.warmup_s = 0;
	CHECK_INT(analyse_input(dir, &o, &a, &err), 0);
	CHECK_INT(err.len, 0);
	CHECK_STR(a.program, "demo");
	CHECK_STR(a.variant, "base");
	CHECK_STR(a.format, "record");
	CHECK_INT(a.m.v[M_FRAMES], 600);
	CHECK_INT(a.m.v[M_STALLS], 1);
	CHECK_NEAR(a.m.v[M_LONGEST_MS], 150, 1e-3);
	CHECK(a.failure == NULL);
	CHECK_INT(a.interfered, -1);
	/* a frame log has no samples: the causes are unknown, and say so */
	CHECK(a.rec == NULL);
	CHECK(!has_note(&a, "switch-in"));
	analysis_release(&a);
	/* exact mode's word that it missed switch-ins is said, on the input */
	snprintf(dir, sizeof(dir), "%s/missed", tmp);
	write_run(dir, "state=done\nend=exit\nexit_status=0\nexact_missed_switch_ins=3\n");
	CHECK_INT(analyse_input(dir, &o, &a, &err), 0);
	CHECK(has_note(&a, "run.ini': the kernel did not trace 3 switch-ins"));
	analysis_release(&a);
	snprintf(dir, sizeof(dir), "%s/missed0", tmp);
	write_run(dir, "state=done\nend=exit\nexit_status=0\nexact_missed_switch_ins=0\n");
	CHECK_INT(analyse_input(dir, &o, &a, &err), 0);
	CHECK(!has_note(&a, "switch-in"));
	analysis_release(&a);
	sb_release(&err);
}

static void test_failed_run(void)
{
	struct analyse_opts o = { .m = METRICS_OPTS_INIT };
	struct strbuf err = STRBUF_INIT;
	struct analysis a;
	char dir[4096];

	snprintf(dir, sizeof(dir), "%s/failed", tmp);
	write_run(dir, "state=done\nend=exit\nexit_status=3\ninterfered=1\n"
		       "interference=cpu 1 busy\n");
	CHECK_INT(analyse_input(dir, &o, &a, &err), 0);
	CHECK_STR(a.failure, "the program exited with status 3");
	CHECK_INT(a.interfered, 1);
	CHECK_STR(a.interference, "cpu 1 busy");
	CHECK(a.m.nnotes > 0 && strstr(a.m.notes[0], "FAILED RUN: the program exited") != NULL);
	analysis_release(&a);
	sb_release(&err);
}

static void test_errors(void)
{
	struct analyse_opts o = { .m = METRICS_OPTS_INIT };
	struct strbuf err = STRBUF_INIT;
	struct analysis a;
	char dir[2048], path[4096];
	int r;

	/* a directory with a record and no run.ini is not a run directory */
	snprintf(dir, sizeof(dir), "%s/no-ini", tmp);
	write_run(dir, "");
	snprintf(path, sizeof(path), "%s/run.ini", dir);
	unlink(path);
	r = analyse_input(dir, &o, &a, &err);
	CHECK_INT(r, -ENOENT);
	CHECK(strstr(err.buf, "is not a run directory") != NULL);
	CHECK(strstr(err.buf, path) != NULL);

	/* a frame log that does not exist: its path and why */
	snprintf(path, sizeof(path), "%s/missing.csv", tmp);
	r = analyse_input(path, &o, &a, &err);
	CHECK(r < 0);
	CHECK(strstr(err.buf, path) != NULL);

	/* a rules file that does not parse: the error names it */
	{
		struct reload_rules *rules = (struct reload_rules *)1;
		const char *name = "x";
		FILE *f;

		snprintf(path, sizeof(path), "%s/bad-rules.ini", tmp);
		f = fopen(path, "w");
		CHECK(f != NULL);
		if (f) {
			fputs("[demo]\nline = (\n", f);
			fclose(f);
		}
		r = analyse_load_rules(path, &rules, &name, &err);
		CHECK(r < 0);
		CHECK(rules == NULL);
		CHECK(strstr(err.buf, path) != NULL);
	}
	sb_release(&err);
}

static void test_frame_log(void)
{
	struct analyse_opts o = { .m = METRICS_OPTS_INIT, .fmt = FRAMELOG_PLAIN };
	struct strbuf err = STRBUF_INIT;
	struct analysis a;
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/plain.txt", tmp);
	f = fopen(path, "w");
	CHECK(f != NULL);
	if (!f)
		return;
	for (int i = 0; i < 100; i++)
		fprintf(f, "%s\n", i == 50 ? "250" : "20");
	fclose(f);
	o.m.warmup_s = 0;
	CHECK_INT(analyse_input(path, &o, &a, &err), 0);
	CHECK_INT(a.m.v[M_FRAMES], 100);
	CHECK_INT(a.m.v[M_STALLS], 1);
	CHECK(a.program == NULL && a.ini == NULL && a.failure == NULL);
	/* no samples: each cause column is unknown, not 0 */
	CHECK(isnan(a.m.v[M_STALL_DISK_S]));
	analysis_release(&a);
	sb_release(&err);
}

int main(void)
{
	t_tmpdir(tmp);
	T_RUN(test_run_dir);
	T_RUN(test_failed_run);
	T_RUN(test_errors);
	T_RUN(test_frame_log);
	t_rmtree(tmp);
	return t_exit();
}
