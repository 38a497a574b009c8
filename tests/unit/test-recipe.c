// SPDX-License-Identifier: MIT
/*
 * test-recipe.c: core/recipe.h on recipe files written here: every key,
 * with and without the [recipe] section, and each error naming the file,
 * the line and what was expected.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/recipe.h"
#include "t.h"

static char path[] = "/tmp/ss-recipe-XXXXXX";

static int load(const char *text, struct recipe *r, struct strbuf *err)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -errno;
	fputs(text, f);
	fclose(f);
	recipe_release(r);
	return recipe_load(path, r, err);
}

static void test_keys(void)
{
	struct recipe r;
	struct strbuf err = STRBUF_INIT;

	recipe_init(&r);
	CHECK_INT(load("; a comment\n[recipe]\ncommand = fakegame --seconds 3\n"
		       "variants = - A=1\nrounds = 4\nwarmup = 0.5\nwindow = 10\n"
		       "duration = 12\nstop_file = /tmp/s\nframes = marker\n"
		       "window_start_re = ^go\nwindow_end_re = ^end\nreload_re = ^Load\n"
		       "reload_after = 0.2\nreload_fixed = 3\n", &r, &err), 0);
	CHECK_STR(r.command, "fakegame --seconds 3");
	CHECK_STR(r.variants, "- A=1");
	CHECK_INT(r.rounds, 4);
	CHECK_NEAR(r.warmup_s, 0.5, 0);
	CHECK_NEAR(r.window_s, 10, 0);
	CHECK_NEAR(r.duration_s, 12, 0);
	CHECK_STR(r.stop_file, "/tmp/s");
	CHECK_STR(r.frames, "marker");
	CHECK_STR(r.start_re, "^go");
	CHECK_STR(r.end_re, "^end");
	CHECK_STR(r.reload_re, "^Load");
	CHECK_STR(r.reload_after, "0.2");
	CHECK_STR(r.reload_fixed, "3");

	/* no section is fine; what is not given stays not given */
	CHECK_INT(load("command = x\n", &r, &err), 0);
	CHECK_STR(r.command, "x");
	CHECK(r.variants == NULL && r.rounds == 0 && isnan(r.warmup_s));
	recipe_release(&r);
	sb_release(&err);
}

static void test_errors(void)
{
	static const struct {
		const char *text, *says;
	} bad[] = {
		{ "[other]\ncommand = x\n", "line 2: unknown section [other]" },
		{ "command = x\ncolour = red\n", "line 2: unknown key 'colour'" },
		{ "warmup = -1\n", "line 1: warmup: expected seconds >= 0, got '-1'" },
		{ "window = 0\n", "window: expected seconds >= 0.001" },
		{ "rounds = 2.5\n", "rounds: expected a whole number 1..1000, got '2.5'" },
		{ "rounds = 0\n", "rounds: expected seconds >= 1" },
		{ "just words\n", "line 1: expected 'key = value' or '[recipe]'" },
	};
	struct strbuf err = STRBUF_INIT;
	struct recipe r;

	recipe_init(&r);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK_INT(load(bad[i].text, &r, &err), -EINVAL);
		if (!strstr(err.buf, bad[i].says) || !strstr(err.buf, path))
			T_FAIL("'%s': got '%s', expected '%s' in it", bad[i].text, err.buf,
			       bad[i].says);
	}
	recipe_release(&r);
	CHECK(recipe_load("/nonexistent/ss.ini", &r, &err) == -ENOENT);
	CHECK(strstr(err.buf, "cannot read the recipe '/nonexistent/ss.ini'") != NULL);
	recipe_release(&r);
	sb_release(&err);
}

int main(void)
{
	int fd = mkstemp(path);

	if (fd < 0) {
		perror("mkstemp");
		return 1;
	}
	close(fd);
	T_RUN(test_keys);
	T_RUN(test_errors);
	unlink(path);
	return t_exit();
}
