// SPDX-License-Identifier: MIT
/*
 * test-recipe.c: core/recipe.h on recipe files written here: every key,
 * with and without the [recipe] section, and each error naming the file,
 * the line and what was expected.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/file.h"
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
		       "reload_after = 0.2\n", &r, &err), 0);
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
	CHECK_INT(load("reload_fixed = 3\n", &r, &err), 0);
	CHECK_STR(r.reload_fixed, "3");

	/* a long command goes on indented lines (a line holds 200 characters
	 * at most, libinih's limit), joined by a blank */
	CHECK_INT(load("command = openarena +set a 1\n  +set b 2\n\t+devmap oa_dm1\n"
		       "rounds = 2\n", &r, &err), 0);
	CHECK_STR(r.command, "openarena +set a 1 +set b 2 +devmap oa_dm1");
	CHECK_INT(r.rounds, 2);

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
		/* decimal only: "0x10" is a slip, not 16 s (issue 26, 16) */
		{ "duration = 0x10\n", "line 1: duration: expected seconds >= 0.001, got '0x10'" },
		{ "warmup = inf\n", "warmup: expected seconds >= 0, got 'inf'" },
		{ "rounds = 0x3\n", "rounds: expected seconds >= 1, got '0x3'" },
		/* a regex that does not compile is an error now, with its line,
		 * not a warning after every run (issue 26, 16) */
		{ "command = x\nwindow_start_re = (\n",
		  "line 2: window_start_re: expected a POSIX extended regex, got '('" },
		{ "window_end_re = [a-\n", "line 1: window_end_re: expected a POSIX extended regex" },
		/* the reload rule each run's analysis would refuse, refused now */
		{ "reload_re = (\n", "line 1: reload_re: expected a POSIX extended regex, got '('" },
		{ "reload_after = 2\n", "the reload rule: reload_after= needs reload_re=" },
		{ "reload_re = ^Load\nreload_fixed = 3\n", "the reload rule: expected one of" },
		{ "reload_fixed = 0x3\n", "the reload rule: reload_fixed: expected seconds >= 0" },
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
	CHECK(strstr(err.buf, "cannot open the recipe '/nonexistent/ss.ini'") != NULL);
	recipe_release(&r);
	sb_release(&err);
}

/* The recipe is read as every text file we did not write (core/file.h): a
 * directory, a FIFO (which would hang a plain fopen), a device, or a file
 * past FILE_TEXT_MAX is refused, naming it. */
static void test_not_a_file(void)
{
	char fifo[64], big[64];
	struct strbuf err = STRBUF_INIT;
	struct recipe r;
	FILE *f;

	recipe_init(&r);
	CHECK_INT(recipe_load("/tmp", &r, &err), -EISDIR);
	CHECK_STR(err.buf, "the recipe '/tmp' is a directory");
	recipe_release(&r);
	CHECK_INT(recipe_load("/dev/zero", &r, &err), -EINVAL);
	CHECK_STR(err.buf, "the recipe '/dev/zero' is not a regular file (a character device)");
	recipe_release(&r);
	snprintf(fifo, sizeof(fifo), "%s.fifo", path);
	if (mkfifo(fifo, 0600) == 0) {
		CHECK_INT(recipe_load(fifo, &r, &err), -EINVAL);
		CHECK(strstr(err.buf, "is not a regular file (a FIFO)") != NULL);
		recipe_release(&r);
		unlink(fifo);
	} else {
		T_FAIL("mkfifo '%s'", fifo);
	}
	snprintf(big, sizeof(big), "%s.big", path);
	f = fopen(big, "w");
	if (f) {
		fputs("command = x\n", f);
		fseek(f, (long)FILE_TEXT_MAX, SEEK_SET);
		fputs("\n", f);
		fclose(f);
		CHECK_INT(recipe_load(big, &r, &err), -EFBIG);
		CHECK(strstr(err.buf, "' is larger than 4 MiB") != NULL);
		recipe_release(&r);
		unlink(big);
	} else {
		T_FAIL("cannot write '%s'", big);
	}
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
	T_RUN(test_not_a_file);
	unlink(path);
	return t_exit();
}
