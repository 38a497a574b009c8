// SPDX-License-Identifier: MIT
/*
 * test-reload.c: the reload rules file, run.ini overrides, stamped program
 * logs and the segments they give (core/reload.h), end to end through
 * metrics_compute on a synthetic looped demo: 3 passes of 20 s, each
 * starting with a load (a 2 s frame) that the log line ends.
 */
#include <errno.h>

#include "core/reload.h"
#include "core/runini.h"
#include "t.h"

static const char rules_txt[] = "; comment\n"
				"[demo]\n"
				"line = ^Loaded map [a-z0-9]+\n"
				"after = 0.5\n"
				"why = the demo prints it when the map is in\n"
				"\n"
				"[bench]\n"
				"fixed = 3\n"
				"why = its loading screen lasts 3 s\n"
				"[gears]\n"
				"rule = none\n"
				"why = never loads\n";

static struct reload_rules *parse_ok(const char *txt)
{
	struct strbuf err = STRBUF_INIT;
	struct reload_rules *rs = NULL;

	CHECK_INT(reload_rules_parse(txt, strlen(txt), "rules.ini", &rs, &err), 0);
	if (err.len)
		fprintf(stderr, "unexpected error: %s\n", err.buf);
	sb_release(&err);
	return rs;
}

static void parse_bad(const char *txt, const char *want)
{
	struct strbuf err = STRBUF_INIT;
	struct reload_rules *rs = NULL;

	CHECK_INT(reload_rules_parse(txt, strlen(txt), "rules.ini", &rs, &err), -EINVAL);
	CHECK(rs == NULL);
	if (!strstr(err.buf, want))
		T_FAIL("error '%s' does not contain '%s'", err.buf, want);
	sb_release(&err);
}

static void test_rules_parse(void)
{
	struct reload_rules *rs = parse_ok(rules_txt);
	const struct reload_rule *r;

	CHECK(rs && rs->n == 3);
	r = reload_rules_find(rs, "demo");
	CHECK(r && r->kind == RELOAD_LINE);
	CHECK_STR(r ? r->re : NULL, "^Loaded map [a-z0-9]+");
	CHECK_NEAR(r ? r->after_s : -1, 0.5, 0);
	r = reload_rules_find(rs, "bench");
	CHECK(r && r->kind == RELOAD_FIXED && r->fixed_s == 3);
	r = reload_rules_find(rs, "gears");
	CHECK(r && r->kind == RELOAD_NONE);
	CHECK(reload_rules_find(rs, "nosuch") == NULL);
	CHECK(reload_rules_find(rs, NULL) == NULL);
	reload_rules_free(rs);
	reload_rules_free(NULL);
}

/* watch --scan's interfere_re lives in the same file, parsed once: kept
 * beside the rules in the file's order, also in a section that has no
 * reload rule (which makes no rule); a bad one is the file's error. */
static void test_rules_interfere_re(void)
{
	struct reload_rules *rs = parse_ok("[demo]\ninterfere_re = ^player jumped\nrule = none\n"
					   "why = x\n[other]\ninterfere_re = ^menu\n");

	CHECK(rs && rs->n == 1);
	CHECK(rs && reload_rules_find(rs, "demo") && reload_rules_find(rs, "demo")->kind == RELOAD_NONE);
	CHECK(rs && reload_rules_find(rs, "other") == NULL);
	CHECK(rs && rs->ninterfere == 2);
	if (rs && rs->ninterfere == 2) {
		CHECK_STR(rs->interfere[0].program, "demo");
		CHECK_STR(rs->interfere[0].re, "^player jumped");
		CHECK_STR(rs->interfere[1].program, "other");
		CHECK_STR(rs->interfere[1].re, "^menu");
	}
	reload_rules_free(rs);
	parse_bad("[a]\nrule = none\nwhy = x\ninterfere_re = (\n",
		  "'rules.ini' line 4: [a] interfere_re: not a valid regular expression");
}

static void test_rules_errors(void)
{
	parse_bad("[a]\nfixed = -1\nwhy = x\n", "'rules.ini' line 2: [a] fixed: expected seconds");
	parse_bad("[a]\nfixed = 1\n", "[a]: expected a 'why ='");
	parse_bad("[a]\nwhy = x\n", "expected one of rule = none");
	parse_bad("[a]\nline = ([\nwhy = x\n", "line 2: expected a POSIX extended regex");
	parse_bad("[a]\nrule = none\nfixed = 2\nwhy = x\n", "line 3: [a]: a second rule");
	parse_bad("[a]\nrule = sometimes\nwhy = x\n", "expected 'none'");
	parse_bad("fixed = 2\n", "line 1: expected a [program] section");
	parse_bad("[a]\nwhen = 2\n", "unknown key 'when'");
	parse_bad("[a]\nrule = none\nwhy = x\n[a]\nrule = none\n", "line 5: [a]: a second rule");
	parse_bad("[a]\nrule = none\nwhy = x\n[b]\nrule = none\nwhy = y\n[a]\nwhy = z\n",
		  "line 8: section 'a' appears twice");
	parse_bad("[a\n", "line 1:");
	{
		struct strbuf err = STRBUF_INIT;
		struct reload_rules *rs = NULL;

		CHECK_INT(reload_rules_parse("[a]\n\0\n", 5, "rules.ini", &rs, &err), -EINVAL);
		CHECK(strstr(err.buf, "NUL") != NULL);
		sb_release(&err);
	}
}

/* The file shipped in share/ must parse and hold real rules. */
static void test_shipped_rules(void)
{
	char path[4096], buf[16384];
	const char *src = getenv("SS_SRC");
	struct reload_rules *rs;
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/share/reload-rules.ini", src ? src : ".");
	f = fopen(path, "r");
	if (!f) {
		T_FAIL("cannot open %s", path);
		return;
	}
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	rs = parse_ok((char[16385]){ 0 });
	reload_rules_free(rs);
	buf[n] = '\0';
	rs = parse_ok(buf);
	CHECK(rs && rs->n >= 3);
	CHECK(reload_rules_find(rs, "glxgears") != NULL);
	CHECK(reload_rules_find(rs, "ioquake3") != NULL);
	reload_rules_free(rs);
}

static const char log_txt[] = "starting demo\n"
			      "[0.100] Loading map q3dm1\n"
			      "[2.055] Loaded map q3dm1\n"
			      "[ 10.5] chatter\n"
			      "[20.010] Loading map q3dm1\r\n"
			      "[22.105] Loaded map q3dm1\n"
			      "[bad] x\n"
			      "[40.000] Loading map q3dm1\n"
			      "[41.000] Loaded map q3dm7";	/* no newline at the end */

static void test_log_parse(void)
{
	struct reload_line *l = NULL;
	size_t n = 0, unstamped = 0;

	CHECK_INT(reload_log_parse(log_txt, strlen(log_txt), &l, &n, &unstamped), 0);
	CHECK_INT(n, 7);
	CHECK_INT(unstamped, 2);
	CHECK_NEAR(l[0].t_s, 0.1, 1e-12);
	CHECK(l[0].len == strlen("Loading map q3dm1") && !memcmp(l[0].text, "Loading map", 11));
	CHECK_NEAR(l[2].t_s, 10.5, 1e-12);
	CHECK_INT(l[3].len, strlen("Loading map q3dm1"));	/* \r dropped */
	CHECK_NEAR(l[6].t_s, 41.0, 1e-12);
	CHECK_INT(l[6].len, strlen("Loaded map q3dm7"));
	free(l);
	CHECK_INT(reload_log_parse("", 0, &l, &n, NULL), 0);
	CHECK_INT(n, 0);
	free(l);
}

/* 3 passes at 0, 20, 40 s; each starts with a 2 s load frame, then 10 ms
 * frames to the next pass; the run ends at 60 s. */
static struct frames *looped_demo(void)
{
	struct frames *f = frames_new();
	int pass, i;

	for (pass = 0; pass < 3; pass++) {
		frames_push(f, pass * 20.0 + 2.0, 2000.0);
		for (i = 1; i <= 1800; i++)
			frames_push(f, pass * 20.0 + 2.0 + i * 0.01, 10.0);
	}
	return f;
}

static void test_segments_line(void)
{
	struct reload_rules *rs = parse_ok(rules_txt);
	const struct reload_rule *r = reload_rules_find(rs, "demo");
	struct strbuf notes = STRBUF_INIT;
	struct reload_line *l = NULL;
	struct metrics_seg *segs = NULL;
	struct metrics_opts o = METRICS_OPTS_INIT;
	struct frames *f = looped_demo();
	struct metrics m;
	double pass[] = { 40, 0, 20 };	/* any order */
	size_t n = 0;
	int ns;

	reload_log_parse(log_txt, strlen(log_txt), &l, &n, NULL);
	ns = reload_segments(r, pass, 3, 60, l, n, true, &segs, &notes);
	CHECK_INT(ns, 3);
	if (ns == 3) {
		CHECK_NEAR(segs[0].start_s, 0, 0);
		CHECK_NEAR(segs[0].end_s, 2.555, 1e-12);
		CHECK_NEAR(segs[1].start_s, 20, 0);
		CHECK_NEAR(segs[1].end_s, 22.605, 1e-12);
		CHECK_NEAR(segs[2].end_s, 41.5, 1e-12);
	}
	CHECK_INT(notes.len, 0);
	o.warmup_s = 0;
	CHECK_INT(metrics_compute(f, &o, segs, ns, NULL, &m), 0);
	/* pass 1: the load frame + 56 frames of 10 ms (the 56th starts before
	 * 2.555 and ends after it); pass 2: 2 s + 61 frames; pass 3: the line
	 * (41 s) comes during the load frame, so only it. Stall-free play. */
	CHECK_NEAR(m.v[M_RELOAD_N], 3, 0);
	CHECK_NEAR(m.v[M_STALLS], 3, 0);
	CHECK_NEAR(m.v[M_STALLS_PLAY], 0, 0);
	CHECK_NEAR(m.v[M_LONGEST_PLAY_MS], 10, 0);
	CHECK_NEAR(m.v[M_RELOAD_S], 6.0 + 0.56 + 0.61, 1e-6);
	CHECK_NEAR(m.v[M_WIN_PLAY_S] + m.v[M_RELOAD_S], m.v[M_SECONDS], 1e-9);
	free(segs);
	/* a pass without the line: its pass counts as play, with a note; the
	 * last pass without it reloads to the end */
	sb_reset(&notes);
	ns = reload_segments(r, (double[]){ 0, 20, 40, 50 }, 4, 60, l, n, true, &segs, &notes);
	CHECK_INT(ns, 4);
	CHECK(strstr(notes.buf, "pass 4 (50.000 s): no log line matches") != NULL);
	CHECK(strstr(notes.buf, "rest of the run is counted as reload") != NULL);
	if (ns == 4)
		CHECK_NEAR(segs[3].end_s, 60, 0);
	free(segs);
	sb_reset(&notes);
	ns = reload_segments(r, (double[]){ 0, 5, 20 }, 3, 60, l, n, true, &segs, &notes);
	CHECK(strstr(notes.buf, "pass 2 (5.000 s): no log line matches") != NULL);
	CHECK(strstr(notes.buf, "counted as play") != NULL);
	free(segs);
	sb_release(&notes);
	free(l);
	frames_free(f);
	reload_rules_free(rs);
}

static void test_segments_fixed(void)
{
	struct reload_rules *rs = parse_ok(rules_txt);
	struct strbuf notes = STRBUF_INIT;
	struct metrics_seg *segs = NULL;
	struct metrics_opts o = METRICS_OPTS_INIT;
	struct frames *f = looped_demo();
	struct metrics m;
	int ns;

	/* fixed needs no log and no t0 */
	ns = reload_segments(reload_rules_find(rs, "bench"), (double[]){ 0, 20, 40 }, 3, 60, NULL,
			     0, false, &segs, &notes);
	CHECK_INT(ns, 3);
	if (ns == 3)
		CHECK_NEAR(segs[1].end_s, 23, 0);
	o.warmup_s = 0;
	CHECK_INT(metrics_compute(f, &o, segs, ns, NULL, &m), 0);
	/* per pass: the 2 s frame + the 100 frames that start before 3 s */
	CHECK_NEAR(m.v[M_RELOAD_S], 3 * 3.0, 1e-6);
	CHECK_NEAR(m.v[M_STALLS_PLAY], 0, 0);
	free(segs);
	frames_free(f);
	sb_release(&notes);
	reload_rules_free(rs);
}

static void test_no_rule(void)
{
	struct reload_rules *rs = parse_ok(rules_txt);
	struct strbuf notes = STRBUF_INIT;
	struct metrics_seg *segs = (void *)1;

	/* a program with no rule: no segments, play is the window */
	CHECK_INT(reload_segments(reload_rules_find(rs, "unknown-game"), (double[]){ 0, 20 }, 2,
				  60, NULL, 0, true, &segs, &notes),
		  0);
	CHECK(segs == NULL);
	/* rule = none, and a rule with no pass stamps */
	CHECK_INT(reload_segments(reload_rules_find(rs, "gears"), (double[]){ 0 }, 1, 60, NULL, 0,
				  true, &segs, &notes),
		  0);
	CHECK_INT(reload_segments(reload_rules_find(rs, "bench"), NULL, 0, 60, NULL, 0, true, &segs,
				  &notes),
		  0);
	CHECK_INT(notes.len, 0);
	sb_release(&notes);
	reload_rules_free(rs);
}

static void test_missing_t0(void)
{
	struct reload_rules *rs = parse_ok(rules_txt);
	struct strbuf notes = STRBUF_INIT;
	struct metrics_seg *segs = NULL;
	struct reload_line line = { 1.0, "Loaded map x", 12 };
	struct frames *f = looped_demo();
	struct metrics_opts o = METRICS_OPTS_INIT;
	struct metrics m;

	CHECK_INT(reload_segments(reload_rules_find(rs, "demo"), (double[]){ 0 }, 1, 60, &line, 1,
				  false, &segs, &notes),
		  -ENODATA);
	CHECK(strstr(notes.buf, "no t0") != NULL);
	/* play is then unknown: null, never a wrong number (the window is
	 * the whole demo, shorter than the default warm-up) */
	o.warmup_s = 0;
	CHECK_INT(metrics_compute(f, &o, NULL, 0, notes.buf, &m), 0);
	CHECK(isnan(m.v[M_STALLS_PLAY]) && isnan(m.v[M_WIN_PLAY_S]) && isnan(m.v[M_RELOAD_N]));
	CHECK(!isnan(m.v[M_STALLS]));
	sb_reset(&notes);
	/* no program log at all */
	CHECK_INT(reload_segments(reload_rules_find(rs, "demo"), (double[]){ 0 }, 1, 60, NULL, 0,
				  true, &segs, &notes),
		  -ENODATA);
	CHECK(strstr(notes.buf, "no program log") != NULL);
	sb_release(&notes);
	frames_free(f);
	reload_rules_free(rs);
}

static void test_overrides(void)
{
	struct strbuf err = STRBUF_INIT, notes = STRBUF_INIT;
	struct reload_rule r;
	struct runini *ini = NULL;
	struct metrics_seg *segs = NULL;
	const char *txt = "program=demo\nt0=1234.5\npass1=0\npass2=20\nreload_fixed=4\n";

	CHECK_INT(reload_rule_from_overrides(NULL, NULL, NULL, &r, &err), 0);
	CHECK_INT(runini_parse(txt, strlen(txt), "run.ini", &ini, &err), 0);
	/* run.ini's reload_fixed= wins over the file's line rule for demo */
	CHECK_INT(reload_rule_from_overrides(runini_get(ini, "reload_re"),
					     runini_get(ini, "reload_after"),
					     runini_get(ini, "reload_fixed"), &r, &err),
		  1);
	CHECK(r.kind == RELOAD_FIXED && r.fixed_s == 4);
	CHECK_INT(reload_segments(&r, (double[]){ 0, 20 }, 2, 60, NULL, 0, false, &segs, &notes), 2);
	if (segs)
		CHECK_NEAR(segs[1].end_s, 24, 0);
	free(segs);
	reload_rule_release(&r);
	CHECK_INT(reload_rule_from_overrides("^Loaded", "2", NULL, &r, &err), 1);
	CHECK(r.kind == RELOAD_LINE && r.after_s == 2);
	CHECK_STR(r.re, "^Loaded");
	reload_rule_release(&r);
	CHECK_INT(reload_rule_from_overrides(NULL, NULL, "0", &r, &err), 1);
	CHECK(r.kind == RELOAD_NONE);
	reload_rule_release(&r);
	CHECK_INT(reload_rule_from_overrides("x", NULL, "3", &r, &err), -EINVAL);
	CHECK(strstr(err.buf, "got both") != NULL);
	sb_reset(&err);
	CHECK_INT(reload_rule_from_overrides("(", NULL, NULL, &r, &err), -EINVAL);
	CHECK(strstr(err.buf, "regex") != NULL);
	sb_reset(&err);
	CHECK_INT(reload_rule_from_overrides(NULL, "1", NULL, &r, &err), -EINVAL);
	sb_reset(&err);
	/* the caller names the file: the message does not */
	CHECK_INT(reload_rule_from_overrides(NULL, NULL, "soon", &r, &err), -EINVAL);
	CHECK_STR(err.buf, "reload_fixed: expected seconds >= 0, got 'soon'");
	runini_free(ini);
	sb_release(&err);
	sb_release(&notes);
}

int main(void)
{
	T_RUN(test_rules_parse);
	T_RUN(test_rules_interfere_re);
	T_RUN(test_rules_errors);
	T_RUN(test_shipped_rules);
	T_RUN(test_log_parse);
	T_RUN(test_segments_line);
	T_RUN(test_segments_fixed);
	T_RUN(test_no_rule);
	T_RUN(test_missing_t0);
	T_RUN(test_overrides);
	return t_exit();
}
