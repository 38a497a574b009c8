// SPDX-License-Identifier: MIT
/*
 * bench.c: `stallscope bench NAME [options] -- CMD ARGS...`: the runs a
 * decision can rest on. Each round runs every variant once, in the order
 * given (interleaved, so drift over the session hits every variant alike);
 * each run is a `stallscope record --watch` of the program, started as a
 * child of this same binary with an argv vector (never a shell), the
 * variant's switches (VAR=VALUE) in its environment and bench's keys (name,
 * variant, switches, round, warm-up, window) in its run.ini. After each run
 * the run directory is analysed as `report` would (analyse_input) and stored
 * in the results database in one transaction (store_run).
 *
 * A recipe file (INI) can hold what the command line would: the command,
 * variants, rounds, warm-up, window, the stop condition, window start/end
 * regexes on the program's log and the reload rule; `bench NAME` alone finds
 * NAME.ini in the recipe directories (docs/BENCH.md says where; never the
 * current directory), `bench ./PATH.ini` takes that file and the name PATH.
 * bench says which recipe it read. Command-line options win over the
 * recipe.
 *
 * SIGINT and SIGTERM stop the bench: the run in progress is stopped as
 * Ctrl-C stops it (a terminal's SIGINT reaches the recorder itself; a signal
 * sent to bench alone is passed on), stored marked failed, and bench exits
 * 128 + the signal. A run whose program failed (record's exit status 3), or
 * that recorded no frames or ended short, is stored as a failed run
 * (runini_failure), said loudly, and left out of medians; bench then exits 3.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "cmd/outfile.h"
#include "cmd/cmd.h"
#include "cmd/html.h"
#include "cmd/watch_opts.h"
#include "core/argsplit.h"
#include "core/build.h"
#include "core/inifmt.h"
#include "core/strbuf.h"
#include "db/db.h"
#include "linux/child.h"
#include "linux/gitbuild.h"
#include "linux/safefile.h"
#include "linux/sched.h"
#include "linux/sysstate.h"
#include "run/analyse.h"
#include "run/bench.h"
#include "run/spool.h"
#include "run/store.h"

extern char **environ;

#define MAX_VARIANTS 32

/* The signal that stops the bench (SIGINT, SIGTERM), and whether the
 * recorder must be told: a terminal's Ctrl-C reaches the recorder itself
 * (the whole foreground process group gets it), kill(1) reaches bench only. */
static volatile sig_atomic_t stop_requested, stop_forward;

static void on_stop(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	if (!stop_requested)
		stop_requested = sig;
	if (!si || si->si_code != SI_KERNEL)
		stop_forward = sig;
}

static double now_s(void)
{
	return (double)sched_now_ns() / 1e9;
}

/* "1:02:03" or "2:03" for S seconds. */
static void fmt_hms(char *buf, size_t size, double s)
{
	long t = s > 0 ? lround(s) : 0;

	if (t >= 3600)
		snprintf(buf, size, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
	else
		snprintf(buf, size, "%ld:%02ld", t / 60, t % 60);
}

/* Runs ARGV (record) with ENV and waits; its exit status (0..255), or -1
 * after reporting that it could not be run or was killed. */
static int run_record(char **argv, char **env)
{
	struct child_spawn cs = CHILD_SPAWN_INIT;
	int st;
	pid_t pid, w;
	bool told = false;

	cs.argv = argv;
	cs.envp = env;
	pid = child_spawn(&cs);
	if (pid < 0)
		return cli_error_errno(pid, "cannot run '%s'", cli_shown(argv[0]));
	for (;;) {
		/* a stop sent to bench alone: the recorder stops its program and
		 * keeps what it recorded, as on Ctrl-C; told once, since a second
		 * signal makes it stop at once */
		if (stop_forward && !told) {
			fprintf(stderr, "%s: SIG%s: stopping the run in progress (the recorder stops "
					"its program and keeps what it recorded)\n",
				cli_prog, sigabbrev_np(stop_forward) ?: "?");
			kill(pid, stop_forward);
			told = true;
		}
		w = waitpid(pid, &st, 0);
		if (w >= 0 || errno != EINTR)
			break;
	}
	if (w < 0)
		return cli_error_errno(-errno, "waitpid");
	if (WIFSIGNALED(st))
		return cli_error("record was killed by signal %d", WTERMSIG(st));
	return WEXITSTATUS(st);
}

/* ------------------------------------------------------------ the bench */

/* Everything one bench holds. */
struct bench {
	struct bench_opts o;
	struct recipe rc;
	struct variant vars[MAX_VARIANTS + 1];
	size_t nvars;
	struct plan_run *plan;
	size_t total;		/* runs planned (reruns added as they come) */
	char **cmd, **split;	/* the program; split: from the recipe, owned */
	char self[PATH_MAX], host[256];
	struct strbuf dbpath, rpath;
	struct db *db;
	struct reload_rules *rules;
	struct analyse_opts ao;
	/* the tally */
	size_t done, stored, interfered, reruns, failed, nbad;
	size_t spooled;			/* runs the database did not take: in the spool */
	size_t learns;			/* PREFETCH=learn runs: not recorded */
	char *dbname;			/* the database as messages show it (no password) */
	size_t good[MAX_VARIANTS + 1];	/* good runs of each variant */
	struct strbuf bad;		/* the failed runs, a line each */
	double t_start, run_time;
};

static const struct opts_help bench_help = {
	"usage: stallscope bench NAME [options] [-- CMD ARGS...]\n"
	"       stallscope bench DIR/NAME.ini [options] [-- CMD ARGS...]\n"
	"\n"
	"Runs CMD for rounds of interleaved variants: each round runs every variant\n"
	"once, in the order given, each run a 'stallscope record --watch' into its own\n"
	"run directory; then analyses each run as 'report' does and stores it in the\n"
	"results database. Without CMD the recipe gives it: --recipe FILE, a NAME\n"
	"that is a path (./NAME.ini: the only way a recipe in the current directory\n"
	"is read), else NAME.ini in ~/.config/stallscope/recipes/ or the installed\n"
	"recipes. docs/BENCH.md says how to run a benchmark a decision can rest on.\n"
	"\n",
	"EXAMPLES\n"
	"  stallscope bench fakegame --rounds 5 --variants '- FAKEGAME_STALL=sleep:300@3' \\\n"
	"      --warmup 0 -- build/fakegame --seconds 10\n"
	"  stallscope bench ioquake3 --recipe q3.ini --quiet --rerun-interfered\n"
	"  stallscope bench game --variants '- MESA_SHADER_CACHE_DISABLE=true' --window 120 \\\n"
	"      -- ./game --benchmark\n",
};

static bool want_html;	/* --html */

/* NAME given as a recipe's path (a '/' in it and .ini at its end: ./q3.ini,
 * ~/recipes/q3.ini): that file is the recipe, and the name is its base name
 * without .ini. The only way a recipe is read from the current directory:
 * the user named it. 0, or -1 after a usage error. */
static int recipe_path_name(struct bench_opts *o)
{
	static char name[256];
	const char *base = strrchr(o->name, '/');
	size_t n = strlen(o->name);

	if (!base || n < 4 || strcmp(o->name + n - 4, ".ini"))
		return 0;
	if (o->recipe)
		return -cli_usage_error("a recipe named twice: '%s' and --recipe '%s'", o->name,
					o->recipe);
	base++;
	snprintf(name, sizeof(name), "%.*s", (int)strlen(base) - 4, base);
	o->recipe = o->name;
	o->name = name;
	return 0;
}

/* --build STR, --build-of DIR: the runs' build, which record reads from
 * the environment. */
static int take_build(const struct opt *opt, const char *arg)
{
	char built[BUILD_MAX + 1];
	struct strbuf e = STRBUF_INIT;
	bool of = !strcmp(opt->long_name, "build-of");
	int r = 0;

	(void)opt;
	if (!of && !build_name_ok(arg))
		return opts_error("option '--build': expected a build (printable, no blanks, "
				       "at most %d characters), got '%s'", BUILD_MAX, arg);
	if (of && (r = gitbuild_describe(arg, built, sizeof(built), &e)) < 0)
		cli_error("%s", e.buf);
	sb_release(&e);
	if (r < 0)
		return -1;
	if (setenv("STALLSCOPE_BUILD", of ? built : arg, 1) < 0)
		return cli_error_errno(-errno, "--build");
	return 0;
}

/* --rig NAME: the runs' rig, which record reads from the environment. */
static int take_rig(const struct opt *opt, const char *arg)
{
	(void)opt;
	if (!*arg || setenv("STALLSCOPE_RIG", arg, 1) < 0)
		return opts_error("option '--rig': expected a name, got '%s'", arg);
	return 0;
}

/* Parses the options into O; the index of NAME, or OPTS_HELP, OPTS_ERROR. */
static int parse_options(int argc, char **argv, struct bench_opts *o)
{
	static struct watch_opts_given wg;	/* argv's strings, passed on */
	struct opt wt[WATCH_OPTS_N];
	int rounds = 3, optind;
	const struct opt opts[] = {
		OPT_STRING(0, "variants", &o->variants, "LIST",
			   "variants, blank-separated: '-' is the base, others are\n"
			   "switches VAR=VALUE joined by '+' that go into the\n"
			   "program's environment (default '-')"),
		OPT_INT(0, "rounds", &rounds, "N", 1, 1000, "rounds (default 3)"),
		OPT_DOUBLE(0, "warmup", &o->warmup_s, "S", 0, OPT_SECONDS_MAX,
			   "seconds after the first frame left out (default 60)"),
		OPT_DOUBLE(0, "window", &o->window_s, "S", 0.001, OPT_SECONDS_MAX,
			   "the measured seconds after the warm-up (default: to the end)"),
		OPT_DOUBLE(0, "duration", &o->duration_s, "S", 0.001, OPT_SECONDS_MAX,
			   "stop each run after S seconds (default: warm-up + window\n"
			   "+ 2 when --window is given, else when the program ends)"),
		OPT_STRING(0, "stop-file", &o->stop_file, "PATH", "stop each run when PATH appears"),
		OPT_STRING(0, "rules", &o->rules, "FILE", "reload rules for the analysis"),
		OPT_STRING(0, "db", &o->db, "PATH",
			   "the results database: a file or a PostgreSQL connection\n"
			   "string (default $STALLSCOPE_DB, else\n"
			   "$XDG_DATA_HOME/stallscope/results.db)"),
		OPT_CALLBACK(0, "rig", NULL, "NAME",
			     "the rig the runs are filed under (default:\n"
			     "$STALLSCOPE_RIG, else from /etc/machine-id)", take_rig),
		OPT_CALLBACK(0, "build", NULL, "STR",
			     "the build the runs measure (default: $STALLSCOPE_BUILD);\n"
			     "history orders runs by it (docs/HISTORY.md)", take_build),
		OPT_CALLBACK(0, "build-of", NULL, "DIR",
			     "the build is 'git -C DIR describe --always --dirty',\n"
			     "taken once before the first run", take_build),
		OPT_STRING(0, "results", &o->results, "DIR", "where run directories go (default runs/)"),
		OPT_STRING(0, "recipe", &o->recipe, "FILE", "the program's recipe (INI; see docs/BENCH.md)"),
		OPT_STRING(0, "frames", &o->frames, "SOURCE",
			   "record's frame source (auto, marker, gl, vk, hud:PATH)"),
		OPT_BOOL(0, "quiet", &o->quiet, "before each run wait until CPU and disks settle"),
		{ .kind = OPTK_DOUBLE, .long_name = "quiet-cpu", .value = &o->quiet_cpu_pct,
		  .argh = "PCT", .min = 0.1, .max = 100, .given = &o->quiet,
		  .help = "what settled means: CPU busy at most PCT % (default 20)" },
		{ .kind = OPTK_DOUBLE, .long_name = "quiet-io", .value = &o->quiet_io_mibs,
		  .argh = "MIBS", .min = 0.001, .max = 1e6, .given = &o->quiet,
		  .help = "and disks at most MIBS MiB/s (default 1), for 2 s" },
		{ .kind = OPTK_DOUBLE, .long_name = "quiet-timeout", .value = &o->quiet_timeout_s,
		  .argh = "S", .min = 1, .max = 86400, .given = &o->quiet,
		  .help = "how long to wait for it at most (default 60)" },
		OPT_BOOL(0, "drop-caches", &o->drop_caches, "drop the page cache before each run (root)"),
		OPT_BOOL(0, "rerun-interfered", &o->rerun_interfered,
			 "run an interfered run once more, at once"),
		OPT_BOOL(0, "recorder-ab", &o->recorder_ab,
			 "add a variant 'frames-only' (record --no-sample) to check\n"
			 "that the recorder changes nothing"),
		OPT_BOOL(0, "no-watch", &o->no_watch, "leave the interference detector off"),
		OPT_BOOL(0, "as-root", &o->as_root,
			 "under sudo, run the program as root (default: as the user\n"
			 "who ran sudo; stallscope-record(1))"),
		OPT_BOOL(0, "html", &want_html,
			 "write NAME.html at the end: the variants against the base\n"
			 "(stallscope-html(1) --db)"),
		OPT_BOOL(0, "dry-run", &o->dry_run, "print the runs (record command lines) and stop"),
		OPT_CONCAT(wt),
		OPT_END(),
	};

	watch_opts_table(wt, &wg, "the watcher's options, passed to each record (stallscope-watch(1)):");
	optind = opts_parse(argc, argv, opts, &bench_help, 0);
	if (optind < 0)
		return optind;
	o->rounds = rounds;
	if (watch_opts_pass(&wg, o->pass, &o->npass, BENCH_MAX_PASS) < 0)
		return OPTS_ERROR;
	if (optind == argc)
		return opts_error("expected the benchmark's NAME");
	o->name = argv[optind];
	if (recipe_path_name(o) < 0)
		return OPTS_ERROR;
	if (!*o->name || strchr(o->name, '/') || strchr(o->name, ':'))
		return opts_error("NAME: expected a name without '/' or ':', or a recipe "
					"file's path ending in .ini, got '%s'", argv[optind]);
	if (o->no_watch && o->npass)
		return opts_error("the watcher's options do not go with --no-watch");
	return optind + 1;
}

/* A hint for a recipe left where bench no longer looks by NAME alone. */
static const char *cwd_recipe_hint(const char *name)
{
	static char hint[768];
	char p[300];

	snprintf(p, sizeof(p), "recipes/%s.ini", name);
	if (access(p, F_OK) != 0)
		return "";
	snprintf(hint, sizeof(hint), "; '%s' in the current directory is read only when "
		 "named: stallscope bench ./%s", p, p);
	return hint;
}

/* The recipe (given, or found by NAME when there is no command) under the
 * options, the defaults, the variants and the plan. 0, 1 (error said) or
 * EXIT_USAGE. */
static int plan_bench(struct bench *b)
{
	struct bench_opts *o = &b->o;
	struct recipe *rc = &b->rc;
	struct strbuf err = STRBUF_INIT;
	int n, ret = 1;

	if (!o->recipe && !b->cmd && bench_recipe_find(o->name, &b->rpath) == 0)
		o->recipe = b->rpath.buf;
	if (o->recipe && cli_failed(recipe_load(o->recipe, rc, &err), &err))
		goto out;
	if (o->recipe)	/* which file ran, said: never a surprise from elsewhere */
		fprintf(stderr, "%s: recipe '%s'\n", cli_prog, o->recipe);
	if (!b->cmd) {
		if (!rc->command) {
			if (o->recipe)
				ret = cli_usage_error("the recipe '%s' has no command and none was "
						      "given after '--'", cli_shown(o->recipe));
			else
				ret = cli_usage_error("expected -- CMD ARGS..., or a recipe for '%s' "
						      "(--recipe FILE, a path ./%s.ini, or %s.ini in "
						      "the recipe directories: docs/BENCH.md)%s",
						      o->name, o->name, o->name,
						      cwd_recipe_hint(o->name));
			goto out;
		}
		n = argsplit(rc->command, &b->split, &err);
		if (n <= 0) {
			cli_error("'%s': command: %s", cli_shown(o->recipe),
				  n == 0 ? "expected a program and its arguments" : err.buf);
			goto out;
		}
		b->cmd = b->split;
	}
	if (!o->variants)
		o->variants = rc->variants ? rc->variants : "-";
	if (!o->rounds)
		o->rounds = rc->rounds ? rc->rounds : 3;
	if (isnan(o->warmup_s))
		o->warmup_s = !isnan(rc->warmup_s) ? rc->warmup_s : 60;
	if (isnan(o->window_s))
		o->window_s = rc->window_s;
	if (!o->stop_file)
		o->stop_file = rc->stop_file;
	if (!o->frames)
		o->frames = rc->frames;
	if (isnan(o->duration_s)) {
		o->duration_s = rc->duration_s;
		if (isnan(o->duration_s) && !isnan(o->window_s) && !o->stop_file)
			o->duration_s = o->warmup_s + o->window_s + 2;
	}
	if (!o->results)
		o->results = "runs";
	n = variants_parse(o->variants, b->vars, MAX_VARIANTS, &err);
	if (n < 0) {
		if (n == -ENOMEM)
			cli_error("%s", err.buf);
		else
			ret = cli_usage_error("%s", err.buf);
		goto out;
	}
	b->nvars = (size_t)n;
	if (o->recorder_ab) {
		struct variant *v = &b->vars[b->nvars];

		memset(v, 0, sizeof(*v));
		v->no_sample = true;
		if (!(v->name = strdup("frames-only"))) {
			cli_error_errno(-ENOMEM, "variants");
			goto out;
		}
		b->nvars++;
	}

	/* the plan: rounds of every variant in order, room for a rerun of each */
	b->total = (size_t)o->rounds * b->nvars;
	b->plan = calloc(2 * b->total + 1, sizeof(*b->plan));
	if (!b->plan) {
		cli_error_errno(-ENOMEM, "plan");
		goto out;
	}
	for (long r = 0; r < o->rounds; r++)
		for (size_t v = 0; v < b->nvars; v++)
			b->plan[(size_t)r * b->nvars + v] = (struct plan_run){ v, r + 1, false };
	if (sysstate_self_exe(b->self, sizeof(b->self)) < 0)
		snprintf(b->self, sizeof(b->self), "%s", "stallscope");
	sb_reset(&err);
	if (b->split && bench_helper_find(b->self, b->split[0], &err) == 0) {
		/* a recipe's bare helper name: ours, wherever stallscope runs from */
		char *found = strdup(err.buf);

		if (!found) {
			cli_error_errno(-ENOMEM, "recipe");
			goto out;
		}
		free(b->split[0]);
		b->split[0] = found;
	}
	if (gethostname(b->host, sizeof(b->host)) < 0)
		b->host[0] = '\0';
	b->host[sizeof(b->host) - 1] = '\0';
	ret = 0;
out:
	sb_release(&err);
	return ret;
}

/* --dry-run: each run's environment switches and record command line. */
static int dry_run(struct bench *b)
{
	struct strbuf dir = STRBUF_INIT;
	int ret = 0;

	for (size_t i = 0; i < b->total && !ret; i++) {
		struct strbuf line = STRBUF_INIT;
		const struct variant *v = &b->vars[b->plan[i].variant];
		char **a;
		int na = 0;

		bench_run_dir(&b->o, v, b->plan[i].rerun, "<stamp>", &dir);
		a = bench_record_argv(b->self, &b->o, &b->rc, v, &b->plan[i], dir.buf, b->cmd, NULL,
				      i + 1, b->total, NULL);
		if (!a) {
			ret = cli_error_errno(-ENOMEM, "plan");
			break;
		}
		while (a[na])
			na++;
		for (size_t k = 0; k < v->nenv; k++)
			sb_addf(&line, "%s ", v->env[k]);
		inifmt_quote_argv(&line, na, a);
		printf("run %zu/%zu round %ld variant %s: %s\n", i + 1, b->total, b->plan[i].round,
		       cli_shown(v->name), cli_shown(line.buf));
		sb_release(&line);
		argsplit_free(a);
	}
	sb_release(&dir);
	return ret ? 1 : 0;
}

/* The database (made with its directory), the reload rules and the results
 * directory; 0 or -1 (said). */
static int open_results(struct bench *b)
{
	struct strbuf made = STRBUF_INIT, err = STRBUF_INIT;
	int ret = -1;

	if (b->o.db) {
		sb_adds(&b->dbpath, b->o.db);
	} else if (db_default_path(&b->dbpath) < 0) {
		cli_error("no database path: neither XDG_DATA_HOME nor HOME is set; give --db");
		goto out;
	}
	if (db_make_parent(b->dbpath.buf, &made) < 0) {
		cli_error("cannot create the directory of '%s'", cli_shown(b->dbpath.buf));
		goto out;
	}
	if (made.len)
		fprintf(stderr, "%s: created '%s' for the database '%s'\n", cli_prog,
			cli_shown(made.buf), cli_shown(b->dbpath.buf));
	if (db_target_safe(b->dbpath.buf, &b->dbname) < 0) {
		cli_error_errno(-ENOMEM, "the database's name");
		goto out;
	}
	if (outfile_db_open(b->dbpath.buf, &b->db, &err) < 0) {
		cli_error("%s", err.buf);
		goto out;
	}
	if (cli_failed(analyse_load_rules(b->o.rules, &b->rules, &b->ao.rules_name, &err), &err))
		goto out;
	b->ao.rules = b->rules;
	{	/* made as the user who ran sudo, as its run directories are */
		int e = sf_mkdirs(b->o.results, sf_invoking_user(), NULL, NULL);

		if (e < 0) {
			cli_error_errno(e, "cannot create '%s'", b->o.results);
			goto out;
		}
	}
	ret = 0;
out:
	sb_release(&made);
	sb_release(&err);
	return ret;
}

/* Records run I into DIR: the quiet step, its record command line with
 * the variant's environment. 0, or -1 when the bench must stop (said). */
static int record_run(struct bench *b, size_t i, struct strbuf *dir)
{
	const struct plan_run *pr = &b->plan[i];
	const struct variant *v = &b->vars[pr->variant];
	struct strbuf qnote = STRBUF_INIT;
	char **a_argv, **env;
	int st, r;

	bench_quiet_step(&b->o, &stop_requested, &qnote);
	if (qnote.len)
		fprintf(stderr, "%s: quiet step: %s\n", cli_prog, qnote.buf);
	r = bench_run_dir(&b->o, v, pr->rerun, NULL, dir);
	if (r < 0) {
		sb_release(&qnote);
		return cli_error_errno(r, "cannot make a run directory under '%s'",
				       cli_shown(b->o.results));
	}
	a_argv = bench_record_argv(b->self, &b->o, &b->rc, v, pr, dir->buf, b->cmd, qnote.buf,
				   i + 1, b->total, b->host[0] ? b->host : NULL);
	env = variant_environ(v, environ);
	sb_release(&qnote);
	if (!a_argv || !env) {
		argsplit_free(a_argv);
		free(env);
		return cli_error_errno(-ENOMEM, "run %zu", i + 1);
	}
	st = run_record(a_argv, env);
	argsplit_free(a_argv);
	free(env);
	if (st != 0 && st != 3)	/* 3: recorded, and the program failed */
		return cli_error("run %zu/%zu: record failed (exit %d); stopping: see its "
				 "messages above", i + 1, b->total, st);
	return 0;
}

/* A PREFETCH=learn run: `prefetch learn -- CMD` in the variant's
 * environment, after the quiet step (--drop-caches: a cold learn); not
 * recorded, not stored. 0, or -1 (said) when it could not run. */
static int learn_run(struct bench *b, size_t i)
{
	const struct plan_run *pr = &b->plan[i];
	const struct variant *v = &b->vars[pr->variant];
	struct strbuf qnote = STRBUF_INIT;
	char **argv = NULL, **env;
	size_t n = 0, cap = 0;
	int st = -1;

	bench_quiet_step(&b->o, &stop_requested, &qnote);
	if (qnote.len)
		fprintf(stderr, "%s: quiet step: %s\n", cli_prog, qnote.buf);
	sb_release(&qnote);
	for (char **c = b->cmd; *c; c++)
		n++;
	cap = n + 6;
	argv = calloc(cap, sizeof(*argv));
	env = variant_environ(v, environ);
	if (!argv || !env) {
		free(argv);
		free(env);
		return cli_error_errno(-ENOMEM, "run %zu", i + 1);
	}
	argv[0] = b->self;
	argv[1] = (char *)"prefetch";
	argv[2] = (char *)"learn";
	argv[3] = (char *)"--";
	for (size_t k = 0; k < n; k++)
		argv[4 + k] = b->cmd[k];
	fprintf(stderr, "%s: run %zu/%zu is a learn run (PREFETCH=learn): not recorded, not "
		"stored\n", cli_prog, i + 1, b->total);
	st = run_record(argv, env);
	free(argv);
	free(env);
	if (st != 0 && st != 3)
		return cli_error("run %zu/%zu: prefetch learn failed (exit %d); stopping", i + 1,
				 b->total, st);
	b->learns++;
	return 0;
}

/* Analyses run DIR into A: as report would, then again when the recipe's
 * regexes moved its window; a run the bench was stopped in is failed.
 * 0, 1 (this run is lost, said) or -1 (the bench must stop, said). */
static int analyse_run(struct bench *b, const char *dir, struct analysis *a)
{
	struct strbuf err = STRBUF_INIT, warn = STRBUF_INIT;
	int ret = 1;

	if (cli_failed(analyse_input(dir, &b->ao, a, &err), &err))
		goto out;
	if ((b->rc.start_re || b->rc.end_re) && bench_window_from_log(dir, &b->rc, a, &warn) > 0) {
		analysis_release(a);
		if (cli_failed(analyse_input(dir, &b->ao, a, &err), &err))
			goto out;
	}
	for (char *p = warn.buf, *nl; *p; p = nl + 1) {
		nl = strchr(p, '\n');
		cli_warn("%.*s", (int)(nl - p), p);
	}
	ret = 0;
	/* a stopped run failed because it was stopped, whatever it lacks for
	 * it (a stop at its start leaves it no frames) */
	if (stop_requested)
		free(a->failure), a->failure = NULL;
	if (stop_requested &&
	    !(a->failure = strdup(stop_requested == SIGTERM
					  ? "the bench was stopped by SIGTERM during the run"
					  : "the bench was stopped by SIGINT during the run"))) {
		cli_error_errno(-ENOMEM, "'%s'", cli_shown(dir));
		analysis_release(a);
		ret = -1;
	}
out:
	sb_release(&err);
	sb_release(&warn);
	return ret;
}

/* Stores the run in the database. A server that went away is reopened and
 * the run tried again after 0.25, 0.5, 1 and 2 s (store_run replaces a run
 * of the same rig and directory, so a try that did land counts once); then
 * the run directory goes into the database's spool for `db push`, and the
 * bench goes on. 0 stored, 1 spooled, -1 (said) neither. */
static int store_or_spool(struct bench *b, const char *dir, const struct analysis *a)
{
	static const unsigned wait_ms[] = { 250, 500, 1000, 2000 };
	struct strbuf err = STRBUF_INIT;
	int r = -1;

	for (size_t k = 0;; k++) {
		sb_reset(&err);
		if (b->db && store_run(b->db, dir, a, &err) >= 0) {
			r = 0;
			goto out;
		}
		if (b->db && !db_lost(b->db)) {
			cli_error("%s", err.buf);
			goto out;
		}
		if (k == sizeof(wait_ms) / sizeof(wait_ms[0]))
			break;
		cli_warn("%s; trying again in %.2f s", err.len ? err.buf : "the database is gone",
			 wait_ms[k] / 1000.0);
		sched_sleep_until(sched_now_ns() + wait_ms[k] * 1000000ull);
		db_close(b->db);
		b->db = NULL;
		sb_reset(&err);
		if (outfile_db_open(b->dbpath.buf, &b->db, &err) < 0)
			b->db = NULL;
	}
	sb_reset(&err);
	if (spool_add(b->dbname, dir, &err) < 0) {
		cli_error("the run '%s' was not stored, nor spooled: %s", cli_shown(dir), err.buf);
		goto out;
	}
	fprintf(stderr, "!! %s: '%s' is not reachable: the run is kept in its spool "
		"(stallscope db push --db \"%s\" sends it)\n", cli_prog, cli_shown(b->dbname),
		cli_shown(b->dbname));
	r = 1;
out:
	sb_release(&err);
	return r;
}

/* Says how run I went and counts it; an interfered run is planned once
 * more with --rerun-interfered. */
static void tally_run(struct bench *b, size_t i, const char *dir, const struct analysis *a,
		      double t_run)
{
	const struct plan_run *pr = &b->plan[i];
	char stalls[32] = "-", fps[32] = "-";

	b->stored++;
	b->done++;
	b->run_time += now_s() - t_run;
	if (!isnan(a->m.v[M_STALLS]))
		snprintf(stalls, sizeof(stalls), "%g", a->m.v[M_STALLS]);
	if (!isnan(a->m.v[M_FPS]))
		snprintf(fps, sizeof(fps), "%.1f", a->m.v[M_FPS]);
	fprintf(stderr, "%s: run %zu/%zu done in %.1f s: %s, stalls %s, fps %s, interference: %s\n",
		cli_prog, i + 1, b->total, now_s() - t_run, cli_shown(dir), stalls, fps,
		a->interfered < 0 ? "not watched"
		: a->interference ? cli_shown(a->interference)
				  : (a->interfered ? "yes" : "none"));
	if (a->failure) {
		fprintf(stderr, "!! RUN %zu/%zu FAILED: %s; stored as failed, left out of medians "
			"(%s)\n", i + 1, b->total, cli_shown(a->failure), cli_shown(dir));
		sb_addf(&b->bad, "  run %zu/%zu, variant '%s', round %ld: %s (%s)\n", i + 1,
			b->total, cli_shown(b->vars[pr->variant].name), pr->round,
			cli_shown(a->failure), cli_shown(dir));
		b->nbad++;
	} else {
		b->good[pr->variant]++;
	}
	if (a->interfered != 1)
		return;
	b->interfered++;
	if (b->o.rerun_interfered && !pr->rerun) {
		fprintf(stderr, "%s: run %zu/%zu was interfered: running it once more "
			"(--rerun-interfered)\n", cli_prog, i + 1, b->total);
		memmove(&b->plan[i + 2], &b->plan[i + 1], (b->total - i - 1) * sizeof(*b->plan));
		b->plan[i + 1] = (struct plan_run){ pr->variant, pr->round, true };
		b->total++;
		b->reruns++;
	}
}

/* Runs the plan until its end, a stop or an error that stops it. */
static void run_plan(struct bench *b)
{
	struct strbuf dir = STRBUF_INIT, err = STRBUF_INIT;

	fprintf(stderr, "%s: '%s': %ld round%s x %zu variant%s = %zu run%s; results in '%s', "
		"database '%s'\n", cli_prog, cli_shown(b->o.name), b->o.rounds,
		b->o.rounds == 1 ? "" : "s", b->nvars, b->nvars == 1 ? "" : "s", b->total,
		b->total == 1 ? "" : "s", cli_shown(b->o.results),
		cli_shown(b->dbname ? b->dbname : b->dbpath.buf));
	b->t_start = now_s();
	for (size_t i = 0; i < b->total && !stop_requested; i++) {
		const struct plan_run *pr = &b->plan[i];
		struct analysis a;
		char el[32], left[32];
		double t_run = now_s();
		int r;

		fmt_hms(el, sizeof(el), t_run - b->t_start);
		if (b->done)
			fmt_hms(left, sizeof(left),
				b->run_time / (double)b->done * (double)(b->total - i));
		fprintf(stderr, "%s: run %zu/%zu: round %ld, variant '%s'%s; elapsed %s%s%s%s\n",
			cli_prog, i + 1, b->total, pr->round, cli_shown(b->vars[pr->variant].name),
			pr->rerun ? " (re-run)" : "", el, b->done ? ", about " : "",
			b->done ? left : "", b->done ? " left" : "");
		if (b->vars[pr->variant].prefetch == VARIANT_PREFETCH_LEARN) {
			if (learn_run(b, i) < 0) {
				b->failed++;
				break;
			}
			b->done++;
			b->run_time += now_s() - t_run;
			continue;
		}
		if (record_run(b, i, &dir) < 0) {
			b->failed++;
			break;
		}
		r = analyse_run(b, dir.buf, &a);
		if (r) {
			b->failed++;
			if (r < 0)
				break;
			continue;
		}
		r = store_or_spool(b, dir.buf, &a);
		if (r < 0) {
			analysis_release(&a);
			b->failed++;
			break;
		}
		tally_run(b, i, dir.buf, &a, t_run);
		if (r > 0) {	/* kept in the spool, not stored */
			b->stored--;
			b->spooled++;
		}
		analysis_release(&a);
	}
	sb_release(&dir);
	sb_release(&err);
}

/* The variant the others are compared with: the first that is recorded (a
 * PREFETCH=learn variant is not). */
static size_t base_variant(const struct bench *b)
{
	for (size_t v = 0; v < b->nvars; v++)
		if (b->vars[v].prefetch != VARIANT_PREFETCH_LEARN)
			return v;
	return 0;
}

/* What was stored, what failed, and the commands to look at it. */
/* --html: the comparison page of the variants with good runs, each against
 * the base, as NAME.html. */
static int bench_html(const struct bench *b)
{
	char *specs[MAX_VARIANTS + 1];
	struct analyse_opts ao = b->ao;
	char out[4096];
	int n = 0, r;

	for (size_t v = 0; v < b->nvars && n <= MAX_VARIANTS; v++)
		if (b->good[v] && asprintf(&specs[n], "%s:%s", b->o.name, b->vars[v].name) >= 0)
			n++;
	if (n < 2 || !b->good[base_variant(b)]) {
		cli_warn("--html: no page: the base and another variant need good runs");
		for (int i = 0; i < n; i++)
			free(specs[i]);
		return 0;
	}
	snprintf(out, sizeof(out), "%s.html", b->o.name);
	ao.keep = true;
	r = html_compare(b->dbpath.buf, &ao, specs, n > 16 ? 16 : n, out);
	for (int i = 0; i < n; i++)
		free(specs[i]);
	return r;
}

static void summary(const struct bench *b)
{
	const char *db = b->dbname ? b->dbname : b->dbpath.buf, *name = b->o.name;
	char el[32], quoted[4200];

	if (stop_requested)
		cli_error("stopped by SIG%s after %zu of %zu runs",
			  sigabbrev_np(stop_requested) ?: "?", b->stored, b->total);
	fmt_hms(el, sizeof(el), now_s() - b->t_start);
	printf("%zu run%s of '%s' stored in '%s' in %s (%zu interfered%s, %zu failed; both left "
	       "out of medians)\n", b->stored, b->stored == 1 ? "" : "s", cli_shown(name),
	       cli_shown(db), el, b->interfered, b->reruns ? ", re-run" : "", b->nbad);
	if (b->nbad)
		printf("!! %zu FAILED run%s:\n%s", b->nbad, b->nbad == 1 ? "" : "s", b->bad.buf);
	if (b->spooled)
		printf("!! %zu RUN%s NOT IN THE DATABASE: kept in the spool; "
		       "stallscope db push --db \"%s\" sends them\n", b->spooled,
		       b->spooled == 1 ? "" : "S", cli_shown(db));
	for (size_t v = 0; v < b->nvars && b->stored; v++)
		if (!b->good[v] && b->vars[v].prefetch != VARIANT_PREFETCH_LEARN)
			printf("!! variant '%s' has no good run: compare cannot use it\n",
			       cli_shown(b->vars[v].name));
	if (!b->stored)
		return;	/* the hints, once there is something to look at */
	if (strchr(db, ' ')) {	/* a connection string's pairs: one word for the shell */
		snprintf(quoted, sizeof(quoted), "'%s'", db);
		db = quoted;
	}
	printf("  stallscope runs --db %s --name %s\n", cli_shown(db), cli_shown(name));
	printf("  stallscope matrix --db %s --name %s -o matrix-%s/\n", cli_shown(db),
	       cli_shown(name), cli_shown(name));
	if (b->learns)
		printf("  (%zu learn run%s of PREFETCH=learn, not recorded: stallscope prefetch show "
		       "%s)\n", b->learns, b->learns == 1 ? "" : "s", cli_shown(b->cmd[0]));
	for (size_t v = base_variant(b) + 1; v < b->nvars && b->good[base_variant(b)]; v++)
		if (b->good[v])
			printf("  stallscope compare --db %s %s:%s %s:%s\n", cli_shown(db),
			       cli_shown(name), cli_shown(b->vars[base_variant(b)].name),
			       cli_shown(name), cli_shown(b->vars[v].name));
}

int cmd_bench(int argc, char **argv)
{
	static struct bench bench;
	struct bench *b = &bench;
	struct sigaction sa = { 0 }, old_int, old_term;
	bool have_old_int = false, have_old_term = false;
	int first, ret;

	b->o = (struct bench_opts){ .warmup_s = NAN, .window_s = NAN, .duration_s = NAN,
				    .quiet_cpu_pct = 20, .quiet_io_mibs = 1,
				    .quiet_timeout_s = 60 };
	b->ao = (struct analyse_opts){ .m = METRICS_OPTS_INIT, .fmt = FRAMELOG_AUTO };
	recipe_init(&b->rc);
	sb_init(&b->dbpath);
	sb_init(&b->rpath);
	sb_init(&b->bad);
	first = parse_options(argc, argv, &b->o);
	if (first < 0)
		return opts_exit(first);
	b->cmd = first < argc ? argv + first : NULL;
	ret = plan_bench(b);
	if (ret)
		goto out;
	if (b->o.dry_run) {
		ret = dry_run(b);
		goto out;
	}
	ret = 1;
	if (open_results(b) < 0)
		goto out;
	sa.sa_sigaction = on_stop;
	sa.sa_flags = SA_SIGINFO;	/* no SA_RESTART: waitpid returns to forward */
	sigemptyset(&sa.sa_mask);
	have_old_int = sigaction(SIGINT, &sa, &old_int) == 0;
	have_old_term = sigaction(SIGTERM, &sa, &old_term) == 0;
	run_plan(b);
	summary(b);
	ret = stop_requested ? 128 + stop_requested : b->failed || b->spooled ? 1 : b->nbad ? 3 : 0;
	if (want_html && b->stored && !stop_requested && bench_html(b) && !ret)
		ret = 1;
out:
	if (have_old_int)
		sigaction(SIGINT, &old_int, NULL);
	if (have_old_term)
		sigaction(SIGTERM, &old_term, NULL);
	variants_free(b->vars, b->nvars);
	free(b->plan);
	argsplit_free(b->split);
	recipe_release(&b->rc);
	reload_rules_free(b->rules);
	db_close(b->db);
	free(b->dbname);
	sb_release(&b->dbpath);
	sb_release(&b->rpath);
	sb_release(&b->bad);
	return ret;
}
