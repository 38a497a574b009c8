// SPDX-License-Identifier: MIT
/* test-runini.c: run.ini's key=value lines (core/runini.h): values, the
 * last key winning, pass stamps in N order, errors naming the line, and the
 * judgement of a run: failed or not, a stopped program's answer. */
#include <errno.h>
#include <math.h>

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

/* runini_failure on INI with NFRAMES frames, the first at ORIGIN_S: WHY
 * (NULL: a good run). */
static void check_failure_at(const char *ini, size_t nframes, double origin_s, const char *why)
{
	struct strbuf err = STRBUF_INIT, got = STRBUF_INIT;
	struct runini *r = NULL;

	CHECK_INT(runini_parse(ini, strlen(ini), "run.ini", &r, &err), 0);
	CHECK_INT(runini_failure(r, nframes, origin_s, &got), why ? 1 : 0);
	if (why)
		CHECK_STR(got.buf, why);
	else
		CHECK_STR(got.buf, "");
	runini_free(r);
	sb_release(&err);
	sb_release(&got);
}

static void check_failure(const char *ini, size_t nframes, const char *why)
{
	check_failure_at(ini, nframes, NAN, why);
}

static void test_failure(void)
{
	static const char done[] = "state=done\nend=exit\nexit_status=0\nduration_recorded_s=10\n";
	struct strbuf got = STRBUF_INIT;

	check_failure(done, 600, NULL);
	check_failure("state=done\nend=exit\nexit_status=3\n", 600,
		      "the program exited with status 3");
	check_failure("state=recording\nend=exit\nexit_status=0\n", 600,
		      "the recorder did not finish (state recording: killed?)");
	check_failure(done, 0, "no frames were recorded");
	/* frames the ring or the rate cap lost: the times are not the program's */
	check_failure("state=done\nend=duration\nexit_status=0\nframes_ring=broken at 0.1 s: its "
		      "head 9 is not within 4 slots after its tail 2\n", 5,
		      "the frame ring was broken at 0.1 s: its head 9 is not within 4 slots after "
		      "its tail 2; the frames after that are missing");
	check_failure("state=done\nend=duration\nexit_status=0\nframes_ring=ok\n"
		      "frames_over_rate=0\n", 5, NULL);
	check_failure("state=done\nend=duration\nexit_status=0\nframes_over_rate=1234\n", 5,
		      "1234 presents came faster than 20000 a second and were not recorded; the "
		      "frame times around them are sums");
	check_failure("state=done\nend=exit\nexit_status=0\nframe_source=none\n", 0, NULL);
	/* attached (exit_status -): judged by the frames */
	check_failure("state=done\nend=gone\nexit_status=-\n", 5, NULL);
	/* a signal it was sent by the stop is the stop's; another is a crash */
	check_failure("state=done\nend=duration\nexit_status=-\nexit_signal=TERM\n", 5, NULL);
	check_failure("state=done\nend=signal\nexit_status=-\nexit_signal=INT\n", 5, NULL);
	/* a crash after the stop (old run.ini: end= says it was stopped) is its
	 * answer, a note (test_stop) */
	check_failure("state=done\nend=duration\nexit_status=-\nexit_signal=SEGV\n", 5, NULL);
	check_failure("state=done\nend=exit\nexit_status=-\nexit_signal=SEGV\n", 5,
		      "the program was killed by SIGSEGV");
	check_failure("state=done\nend=exit\nexit_status=-\nexit_signal=TERM\n", 5,
		      "the program was killed by SIGTERM");
	/* a handler's answer to our SIGINT, 130, is not a failure; 130 by itself is */
	check_failure("state=done\nend=duration\nexit_status=130\n", 5, NULL);
	check_failure("state=done\nend=exit\nexit_status=130\n", 5,
		      "the program exited with status 130");
	/* any status after the stop is its answer (ioquake3 exits 1 on SIGTERM) */
	check_failure("state=done\nend=duration\nexit_status=1\n", 5, NULL);
	check_failure("state=done\nend=duration\nexit_status=1\nstop_signal=TERM\nstop_s=4\n", 5,
		      NULL);
	check_failure("state=done\nend=stop-file\nexit_status=-\nexit_signal=SEGV\n"
		      "stop_signal=TERM\n", 5, NULL);
	/* stop_signal=- (new): the program ended before the stop, by itself;
	 * its status is its own though end= says duration */
	check_failure("state=done\nend=duration\nexit_status=1\nstop_signal=-\n", 5,
		      "the program exited with status 1");
	check_failure("state=done\nend=duration\nexit_status=-\nexit_signal=TERM\n"
		      "stop_signal=-\n", 5, "the program was killed by SIGTERM");
	check_failure("state=done\nend=exit\nexit_status=1\nstop_signal=-\n", 5,
		      "the program exited with status 1");
	/* ended short: before the window's end, before half the duration */
	check_failure("state=done\nend=exit\nexit_status=0\nduration_recorded_s=4.5\n"
		      "window_to_s=8\n", 5,
		      "the program ended after 4.5 s, before its window's end at 8 s after the "
		      "first frame");
	/* with end_s (after t0) and the first frame's start, on one clock: a
	 * last log line stamped at the end is no early end (the window ends
	 * 1.478 s after a first frame at 0.03 s; the run 1.508 s after t0,
	 * 1.45 s after its first deadline); a millisecond of rounding is none */
	check_failure_at("state=done\nend=exit\nexit_status=0\nduration_recorded_s=1.450\n"
			 "end_s=1.508\nwindow_to_s=1.478\n", 5, 0.03, NULL);
	check_failure_at("state=done\nend=exit\nexit_status=0\nduration_recorded_s=1.450\n"
			 "end_s=1.507\nwindow_to_s=1.478\n", 5, 0.0304, NULL);
	check_failure_at("state=done\nend=exit\nexit_status=0\nduration_recorded_s=1.450\n"
			 "end_s=1.450\nwindow_to_s=1.478\n", 5, 0.03,
			 "the program ended after 1.4 s, before its window's end at 1.478 s after "
			 "the first frame");
	/* an unknown first frame: the old comparison */
	check_failure_at("state=done\nend=exit\nexit_status=0\nduration_recorded_s=1.450\n"
			 "end_s=1.508\nwindow_to_s=1.478\n", 5, NAN,
			 "the program ended after 1.4 s, before its window's end at 1.478 s after "
			 "the first frame");
	check_failure("state=done\nend=exit\nexit_status=0\nduration_recorded_s=20\n"
		      "duration_s=62\n", 5, "the program ended after 20.0 s of the expected 62 s");
	check_failure("state=done\nend=exit\nexit_status=0\nduration_recorded_s=40\n"
		      "duration_s=62\n", 5, NULL);
	/* stopped by the duration: never short */
	check_failure("state=done\nend=duration\nexit_status=0\nduration_recorded_s=62\n"
		      "window_to_s=70\n", 5, NULL);
	/* a frame log (no run.ini): its frames alone */
	CHECK_INT(runini_failure(NULL, 10, NAN, &got), 0);
	CHECK_INT(runini_failure(NULL, 0, NAN, &got), 1);
	CHECK_STR(got.buf, "no frames were recorded");
	sb_release(&got);
}

/* runini_stop_note on INI: NOTE (NULL: nothing to say). */
static void check_stop_note(const char *ini, const char *note)
{
	struct strbuf err = STRBUF_INIT, got = STRBUF_INIT;
	struct runini *r = NULL;

	CHECK_INT(runini_parse(ini, strlen(ini), "run.ini", &r, &err), 0);
	CHECK_INT(runini_stop_note(r, &got), note ? 1 : 0);
	CHECK_STR(got.buf, note ? note : "");
	runini_free(r);
	sb_release(&err);
	sb_release(&got);
}

/* INI parsed, or NULL (and a failed check). */
static struct runini *parse_ok(const char *ini)
{
	struct strbuf err = STRBUF_INIT;
	struct runini *r = NULL;

	CHECK_INT(runini_parse(ini, strlen(ini), "run.ini", &r, &err), 0);
	sb_release(&err);
	return r;
}

/* The stop and the program's answer to it: runini_end_judge, the rule record
 * applies to its result, and the notes the analysis adds. */
static void test_stop(void)
{
	struct strbuf why = STRBUF_INIT;
	const char *sig = NULL;
	struct runini *r = NULL;

	/* not stopped: a status or any signal is a failure */
	CHECK_INT(runini_end_judge(NULL, 0, NULL, &why), RUNINI_END_OK);
	CHECK_INT(runini_end_judge(NULL, 1, NULL, &why), RUNINI_END_FAILED);
	CHECK_STR(why.buf, "the program exited with status 1");
	sb_reset(&why);
	CHECK_INT(runini_end_judge(NULL, -5, NULL, &why), RUNINI_END_FAILED);
	CHECK_STR(why.buf, "the program exited with status -5");
	sb_reset(&why);
	CHECK_INT(runini_end_judge(NULL, NAN, "TERM", &why), RUNINI_END_FAILED);
	CHECK_STR(why.buf, "the program was killed by SIGTERM");
	sb_reset(&why);
	/* stopped: a status, the stop's signal, the SIGKILL after the grace are
	 * its answer; another signal is a note */
	CHECK_INT(runini_end_judge("TERM", 1, NULL, &why), RUNINI_END_OK);
	CHECK_INT(runini_end_judge("TERM", 255, NULL, &why), RUNINI_END_OK);
	CHECK_INT(runini_end_judge("TERM", NAN, "TERM", &why), RUNINI_END_OK);
	CHECK_INT(runini_end_judge("TERM", NAN, "KILL", &why), RUNINI_END_OK);
	CHECK_INT(runini_end_judge("INT", NAN, "INT", &why), RUNINI_END_OK);
	CHECK_STR(why.buf, "");
	CHECK_INT(runini_end_judge("TERM", NAN, "SEGV", &why), RUNINI_END_NOTE);
	CHECK_STR(why.buf, "the program was killed by SIGSEGV after the stop's SIGTERM");
	sb_reset(&why);
	CHECK_INT(runini_end_judge("TERM", NAN, "INT", &why), RUNINI_END_NOTE);
	sb_reset(&why);
	/* an old run.ini: the stop's signal unknown, INT, TERM, HUP its own */
	CHECK_INT(runini_end_judge("", NAN, "HUP", &why), RUNINI_END_OK);
	CHECK_INT(runini_end_judge("", NAN, "ABRT", &why), RUNINI_END_NOTE);
	CHECK_STR(why.buf, "the program was killed by SIGABRT after the stop");
	sb_reset(&why);

	/* runini_stopped: stop_signal= first, else end= */
	r = parse_ok("end=duration\nstop_signal=TERM\n");
	CHECK_INT(runini_stopped(r, &sig), 1);
	CHECK_STR(sig, "TERM");
	runini_free(r);
	r = parse_ok("end=duration\nstop_signal=-\n");
	CHECK_INT(runini_stopped(r, &sig), 0);
	runini_free(r);
	r = parse_ok("end=signal\n");
	CHECK_INT(runini_stopped(r, &sig), 1);
	CHECK_STR(sig, "");
	runini_free(r);
	r = parse_ok("end=exit\n");
	CHECK_INT(runini_stopped(r, &sig), 0);
	runini_free(r);
	CHECK_INT(runini_stopped(NULL, &sig), 0);

	check_stop_note("state=done\nend=duration\nexit_status=1\nstop_signal=TERM\nstop_s=4.0\n"
			"stop_ended_s=4.1\n", NULL);
	check_stop_note("state=done\nend=duration\nexit_status=-\nexit_signal=SEGV\n"
			"stop_signal=TERM\nstop_s=4.000\nstop_ended_s=4.250\n",
			"the program was killed by SIGSEGV after the stop's SIGTERM (0.2 s after "
			"it): a crash during its shutdown, its answer to the stop, not a failure "
			"of the run");
	check_stop_note("state=done\nend=duration\nexit_status=-\nexit_signal=SEGV\n",
			"the program was killed by SIGSEGV after the stop: a crash during its "
			"shutdown, its answer to the stop, not a failure of the run");
	check_stop_note("state=done\nend=duration\nexit_status=-\nexit_signal=KILL\n"
			"stop_signal=TERM\nstop_s=4.000\nstop_kill_s=9.000\nstop_ended_s=9.010\n",
			"the program was still there 5.0 s after the stop's SIGTERM and was killed "
			"(SIGKILL): its answer to the stop, not a failure of the run");
	/* it ended by itself: a failure (runini_failure says it), no note */
	check_stop_note("state=done\nend=exit\nexit_status=-\nexit_signal=SEGV\nstop_signal=-\n",
			NULL);
	sb_release(&why);
}

int main(void)
{
	T_RUN(test_parse);
	T_RUN(test_stop);
	T_RUN(test_errors);
	T_RUN(test_failure);
	return t_exit();
}
