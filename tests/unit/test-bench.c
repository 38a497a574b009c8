// SPDX-License-Identifier: MIT
/*
 * test-bench.c: what a bench run needs below its command (run/bench.h):
 * a recipe found by name (the user's first, then the shipped ones, never
 * the current directory's); a helper program found beside the binary or in
 * ../libexec/stallscope, only executables, never a name with a '/'; the
 * run directory's name; the record command line of one run, argument by
 * argument (the meta keys run.ini gets, a rerun, --no-watch, a prefetch
 * fetch wrapping the program); and the window a recipe's regexes find on a
 * program.log written here, into run.ini, with a warning for what is not
 * found.
 */
#include "t.h"

#include <errno.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/argsplit.h"
#include "core/recipe.h"
#include "core/variants.h"
#include "run/analyse.h"
#include "run/bench.h"

static char dir[] = "/tmp/ss-test-bench-XXXXXX";

static const char *in_dir(const char *name)
{
	static char p[2][4200];
	static int k;

	k ^= 1;
	snprintf(p[k], sizeof(p[k]), "%s/%s", dir, name);
	return p[k];
}

static void put(const char *path, const char *text, mode_t mode)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) < 0 || fclose(f) != 0 || chmod(path, mode) != 0) {
		perror(path);
		exit(1);
	}
}

static void mkdirs(const char *rel)
{
	char cmd[4400];

	snprintf(cmd, sizeof(cmd), "mkdir -p '%s/%s'", dir, rel);
	if (system(cmd) != 0)
		exit(1);
}

static void test_recipe_find(void)
{
	struct strbuf p = STRBUF_INIT;
	char cwd[4096];

	mkdirs("xdg/stallscope/recipes");
	mkdirs("home/.config/stallscope/recipes");
	put(in_dir("xdg/stallscope/recipes/mine.ini"), "[bench]\n", 0644);
	put(in_dir("home/.config/stallscope/recipes/homes.ini"), "[bench]\n", 0644);
	put(in_dir("here.ini"), "[bench]\n", 0644);
	setenv("XDG_CONFIG_HOME", in_dir("xdg"), 1);
	setenv("HOME", in_dir("home"), 1);
	CHECK_INT(bench_recipe_find("mine", &p), 0);
	CHECK_STR(p.buf, in_dir("xdg/stallscope/recipes/mine.ini"));
	/* XDG_CONFIG_HOME set: ~/.config is not looked at */
	CHECK_INT(bench_recipe_find("homes", &p), -ENOENT);
	unsetenv("XDG_CONFIG_HOME");
	CHECK_INT(bench_recipe_find("homes", &p), 0);
	CHECK_STR(p.buf, in_dir("home/.config/stallscope/recipes/homes.ini"));
	/* a shipped one, from the source tree of this build */
	CHECK_INT(bench_recipe_find("fakegame", &p), 0);
	CHECK(strstr(p.buf, "/recipes/fakegame.ini") != NULL);
	/* never the current directory's */
	CHECK(getcwd(cwd, sizeof(cwd)) != NULL);
	CHECK_INT(chdir(dir), 0);
	CHECK_INT(bench_recipe_find("here", &p), -ENOENT);
	CHECK_INT(chdir(cwd), 0);
	CHECK_INT(bench_recipe_find("no-such-recipe-zz", &p), -ENOENT);
	sb_release(&p);
}

static void test_helper_find(void)
{
	struct strbuf p = STRBUF_INIT;
	char self[4200], want[PATH_MAX];

	mkdirs("inst/bin");
	mkdirs("inst/libexec/stallscope");
	snprintf(self, sizeof(self), "%s/inst/bin/stallscope", dir);
	put(in_dir("inst/bin/ss-zz-beside"), "#!/bin/sh\n", 0755);
	put(in_dir("inst/libexec/stallscope/ss-zz-libexec"), "#!/bin/sh\n", 0755);
	put(in_dir("inst/bin/ss-zz-noexec"), "#!/bin/sh\n", 0644);
	CHECK_INT(bench_helper_find(self, "ss-zz-beside", &p), 0);
	CHECK(realpath(in_dir("inst/bin/ss-zz-beside"), want) != NULL);
	CHECK_STR(p.buf, want);
	CHECK_INT(bench_helper_find(self, "ss-zz-libexec", &p), 0);
	CHECK(realpath(in_dir("inst/libexec/stallscope/ss-zz-libexec"), want) != NULL);
	CHECK_STR(p.buf, want);	/* resolved: no "/bin/../libexec" */
	CHECK_INT(bench_helper_find(self, "ss-zz-noexec", &p), -ENOENT);
	/* a path is the user's to give, never looked up beside us */
	CHECK_INT(bench_helper_find(self, "../bin/ss-zz-beside", &p), -ENOENT);
	CHECK_INT(bench_helper_find(self, "ss-zz-absent", &p), -ENOENT);
	sb_release(&p);
}

static void test_run_dir(void)
{
	char results[4200];
	struct bench_opts o = { .name = "demo game", .results = results };
	struct variant base = { .name = (char *)"-" }, v = { .name = (char *)"FOO=1+BAR=a/b" };
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
	struct stat st;

	snprintf(results, sizeof(results), "%s", in_dir("res"));
	mkdirs("res");
	CHECK_INT(bench_run_dir(&o, &v, true, "<stamp>", &a), 0);
	CHECK_STR(a.buf, in_dir("res/<stamp>-demo_game-FOO_1_BAR_a_b-rerun"));
	CHECK(stat(a.buf, &st) != 0);	/* --dry-run's name: nothing made */
	sb_reset(&a);
	CHECK_INT(bench_run_dir(&o, &base, false, "20261202-111213", &a), 0);
	CHECK_STR(a.buf, in_dir("res/20261202-111213-demo_game-base"));
	CHECK(stat(a.buf, &st) == 0 && S_ISDIR(st.st_mode));
	/* the same second again: the next free suffix */
	CHECK_INT(bench_run_dir(&o, &base, false, "20261202-111213", &b), 0);
	CHECK_STR(b.buf, in_dir("res/20261202-111213-demo_game-base-2"));
	sb_release(&a);
	sb_release(&b);
}

/* ARGV joined by '|'. */
static void join(char **argv, struct strbuf *out)
{
	sb_reset(out);
	for (char **a = argv; a && *a; a++)
		sb_addf(out, "%s%s", a == argv ? "" : "|", *a);
}

static void test_record_argv(void)
{
	struct bench_opts o = { .name = "demo", .warmup_s = 5, .window_s = 10, .duration_s = 20,
				.frames = "marker", .stop_file = "/tmp/stop",
				.pass = { "--watch-input", "--watch-kmsg" }, .npass = 2 };
	struct recipe rc;
	struct variant v = { .name = (char *)"FOO=1", .switches = (char *)"FOO=1" };
	struct plan_run pr = { .variant = 1, .round = 2, .rerun = true };
	char *cmd[] = { (char *)"./game", (char *)"--bench", NULL };
	struct strbuf s = STRBUF_INIT;
	char **a;

	recipe_init(&rc);
	rc.path = "/r/demo.ini";
	rc.reload_re = strdup("loading");
	a = bench_record_argv("/bin/ss", &o, &rc, &v, &pr, "/res/d", cmd, "settled after 2 s", 3, 8,
			      "host1");
	join(a, &s);
	CHECK_STR(s.buf, "/bin/ss|record|-q|-o|/res/d|--frames|marker|--duration|20|--stop-file|"
			 "/tmp/stop|--watch|--watch-input|--watch-kmsg|--meta|name=demo|--meta|"
			 "variant=FOO=1|--meta|switches=FOO=1|--meta|round=2|--meta|bench_run=3/8|"
			 "--meta|rerun=1 (the run before was interfered)|--meta|host=host1|--meta|"
			 "warmup_s=5|--meta|window_to_s=15|--meta|reload_re=loading|--meta|"
			 "recipe=/r/demo.ini|--meta|quiet=settled after 2 s|--|./game|--bench");
	argsplit_free(a);
	/* the base, unwatched, no duration, no window, a prefetch fetch: the
	 * program under `prefetch run`, so its pid is the game's */
	o = (struct bench_opts){ .name = "demo", .warmup_s = 60, .window_s = NAN,
				 .duration_s = NAN, .no_watch = true };
	v = (struct variant){ .name = (char *)"-", .prefetch = VARIANT_PREFETCH_FETCH,
			      .no_sample = true };
	pr = (struct plan_run){ .round = 1 };
	free(rc.reload_re);
	recipe_init(&rc);
	a = bench_record_argv("/bin/ss", &o, &rc, &v, &pr, "/res/e", cmd, "", 1, 1, NULL);
	join(a, &s);
	CHECK_STR(s.buf, "/bin/ss|record|-q|-o|/res/e|--no-sample|--meta|name=demo|--meta|"
			 "variant=-|--meta|switches=-|--meta|round=1|--meta|bench_run=1/1|--meta|"
			 "warmup_s=60|--|/bin/ss|prefetch|run|--|./game|--bench");
	argsplit_free(a);
	recipe_release(&rc);
	sb_release(&s);
}

static void test_window(void)
{
	struct recipe rc;
	struct analysis a;
	struct strbuf warn = STRBUF_INIT;
	char ini[4200];
	FILE *f;
	char line[256], from[64] = "", to[64] = "";

	mkdirs("run1");
	put(in_dir("run1/run.ini"), "program=game\nwarmup_s=60\n", 0644);
	put(in_dir("run1/program.log"), "[0.100] starting\n[2.750] level 1 loaded\n"
					"[9.250] benchmark done\n[9.500] level 1 loaded\n",
	    0644);
	memset(&a, 0, sizeof(a));
	a.m.origin_s = 0.5;	/* the first frame's start */
	recipe_init(&rc);
	rc.path = "/r/game.ini";
	rc.start_re = strdup("level [0-9]+ loaded");
	rc.end_re = strdup("benchmark done");
	CHECK_INT(bench_window_from_log(in_dir("run1"), &rc, &a, &warn), 1);
	CHECK_STR(warn.buf, "");
	snprintf(ini, sizeof(ini), "%s", in_dir("run1/run.ini"));
	f = fopen(ini, "r");
	CHECK(f != NULL);
	while (f && fgets(line, sizeof(line), f)) {
		sscanf(line, "window_from_s=%63s", from);
		sscanf(line, "window_to_s=%63s", to);
	}
	if (f)
		fclose(f);
	CHECK_STR(from, "2.250");	/* the first match, from the first frame */
	CHECK_STR(to, "8.750");
	/* an end that never comes, a start line with no stamp: warned, the
	 * window not moved */
	free(rc.end_re);
	rc.end_re = strdup("never printed");
	put(in_dir("run1/program.log"), "level 1 loaded\n", 0644);
	CHECK_INT(bench_window_from_log(in_dir("run1"), &rc, &a, &warn), 0);
	CHECK(strstr(warn.buf, "window_start_re: '") != NULL &&
	      strstr(warn.buf, "line 1 matches but has no [seconds] stamp") != NULL);
	CHECK(strstr(warn.buf, "window_end_re: no line of program.log matches") != NULL);
	recipe_release(&rc);
	sb_release(&warn);
}

int main(void)
{
	t_tmpdir(dir);
	T_RUN(test_recipe_find);
	T_RUN(test_helper_find);
	T_RUN(test_run_dir);
	T_RUN(test_record_argv);
	T_RUN(test_window);
	t_rmtree(dir);
	return t_exit();
}
