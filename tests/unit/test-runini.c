// SPDX-License-Identifier: MIT
/* test-runini.c: run.ini's key=value lines (core/runini.h): values, the
 * last key winning, pass stamps in N order, and errors naming the line. */
#include <errno.h>

#include "core/runini.h"
#include "t.h"

static const char txt[] = "# a run\n"
			  "program = ioquake3\n"
			  "variant=vsync-off\r\n"
			  "\n"
			  "; comment\n"
			  "t0=12345.678901\n"
			  "pass2=40.5\n"
			  "pass1=0.25\n"
			  "pass10=100\n"
			  "passes=3\n"
			  "variant=vsync-on\n"
			  "empty=\n"
			  "window=120";

static void test_parse(void)
{
	struct strbuf err = STRBUF_INIT;
	struct runini *r = NULL;
	double t0 = 0, *p = NULL;

	CHECK_INT(runini_parse(txt, strlen(txt), "run.ini", &r, &err), 0);
	CHECK_STR(runini_get(r, "program"), "ioquake3");
	CHECK_STR(runini_get(r, "variant"), "vsync-on");
	CHECK_STR(runini_get(r, "empty"), "");
	CHECK_STR(runini_get(r, "window"), "120");
	CHECK(runini_get(r, "nosuch") == NULL);
	CHECK_INT(runini_get_double(r, "run.ini", "t0", &t0, &err), 0);
	CHECK_NEAR(t0, 12345.678901, 1e-9);
	CHECK_INT(runini_get_double(r, "run.ini", "nosuch", &t0, &err), -ENOENT);
	CHECK_INT(runini_get_double(r, "run.ini", "program", &t0, &err), -EINVAL);
	CHECK_STR(err.buf, "'run.ini' line 2: program: expected a number, got 'ioquake3'");
	CHECK_INT(runini_passes(r, "run.ini", &p, &err), 3);
	if (p) {
		CHECK_NEAR(p[0], 0.25, 0);
		CHECK_NEAR(p[1], 40.5, 0);
		CHECK_NEAR(p[2], 100, 0);
	}
	free(p);
	runini_free(r);
	runini_free(NULL);
	sb_release(&err);
}

static void test_errors(void)
{
	struct strbuf err = STRBUF_INIT;
	struct runini *r = NULL;
	double *p = (void *)1;

	CHECK_INT(runini_parse("a=1\njunk line\n", 14, "x/run.ini", &r, &err), -EINVAL);
	CHECK_STR(err.buf, "'x/run.ini' line 2: expected key=value, got 'junk line'");
	sb_reset(&err);
	CHECK_INT(runini_parse("=1\n", 3, "run.ini", &r, &err), -EINVAL);
	sb_reset(&err);
	CHECK_INT(runini_parse("pass0=1\n", 8, "run.ini", &r, &err), 0);
	CHECK_INT(runini_passes(r, "run.ini", &p, &err), -EINVAL);
	CHECK(strstr(err.buf, "line 1: pass0: expected pass<N>=seconds") != NULL);
	runini_free(r);
	sb_reset(&err);
	CHECK_INT(runini_parse("pass1=soon\n", 11, "run.ini", &r, &err), 0);
	CHECK_INT(runini_passes(r, "run.ini", &p, &err), -EINVAL);
	runini_free(r);
	CHECK_INT(runini_parse("", 0, "run.ini", &r, &err), 0);
	CHECK_INT(runini_passes(r, "run.ini", &p, &err), 0);
	CHECK(p == NULL);
	runini_free(r);
	sb_release(&err);
}

int main(void)
{
	T_RUN(test_parse);
	T_RUN(test_errors);
	return t_exit();
}
