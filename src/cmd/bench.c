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
 * recipes/NAME.ini (docs/BENCH.md says where). Command-line options win over
 * the recipe.
 *
 * SIGINT and SIGTERM stop the bench: the run in progress is stopped as
 * Ctrl-C stops it (a terminal's SIGINT reaches the recorder itself; a signal
 * sent to bench alone is passed on), stored marked failed, and bench exits
 * 128 + the signal. A run whose program failed (record's exit status 3), or
 * that recorded no frames or ended short, is stored as a failed run
 * (runini_failure), said loudly, and left out of medians; bench then exits 3.
 */
#include <errno.h>
#include <getopt.h>
#include <ini.h>
#include <limits.h>
#include <math.h>
#include <regex.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "cmd/cmd.h"
#include "run/analyse.h"
#include "run/rundir.h"
#include "run/store.h"
#include "cmd/watch_opts.h"
#include "core/argsplit.h"
#include "core/inifmt.h"
#include "core/logstamp.h"
#include "core/runini.h"
#include "core/strbuf.h"
#include "db/db.h"
#include "linux/child.h"
#include "linux/recsys.h"
#include "linux/sysstate.h"

#ifndef SS_DATADIR
#define SS_DATADIR "/usr/local/share/stallscope"
#endif
#ifndef SS_LIBEXECDIR
#define SS_LIBEXECDIR "/usr/local/libexec/stallscope"
#endif

extern char **environ;

#define MAX_VARIANTS 32
#define MAX_PASS 32		/* record options passed through */

/* ------------------------------------------------------------ options */

struct bench_opts {
	const char *name;
	const char *variants;	/* "- FOO=1 FOO=1+BAR=2"; default "-" */
	long rounds;		/* default 3 */
	double warmup_s;	/* NaN: the recipe's, else 60 */
	double window_s;	/* NaN: to the end of the run */
	double duration_s;	/* NaN: the recipe's, else warm-up + window + 2 s, else none */
	const char *stop_file;
	const char *rules, *db, *results, *recipe, *frames;
	const char *intf_list;
	bool quiet, drop_caches, rerun_interfered, recorder_ab, no_watch, dry_run;
	double quiet_cpu_pct, quiet_io_mibs, quiet_timeout_s;
	const char *pass[MAX_PASS];	/* the watcher's options for record */
	size_t npass;
};

/* What a recipe file holds; strings owned. NaN/0/NULL: not given. */
struct recipe {
	const char *path;
	char *command, *variants, *stop_file, *frames;
	char *start_re, *end_re;	/* the window's start and end on program.log */
	char *reload_re, *reload_after, *reload_fixed;
	double warmup_s, window_s, duration_s;
	long rounds;
	struct strbuf err;
};

struct variant {
	char *name;		/* as given; "-" for the base */
	char *switches;		/* "VAR=VALUE+VAR=VALUE", or NULL for the base */
	char **env;		/* the switches as VAR=VALUE strings */
	size_t nenv;
	bool no_sample;		/* --recorder-ab's frames-only variant */
};

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
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
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

/* ------------------------------------------------------------ recipe */

static int recipe_set_str(char **dst, const char *v)
{
	free(*dst);
	*dst = strdup(v);
	return *dst ? 0 : -ENOMEM;
}

static int recipe_set_num(struct recipe *r, const char *key, const char *v, double min,
			  double *dst)
{
	char *end;
	double x = strtod(v, &end);

	if (end == v || *end || !isfinite(x) || x < min) {
		sb_addf(&r->err, "%s: expected seconds >= %g, got '%s'", key, min, v);
		return -1;
	}
	*dst = x;
	return 0;
}

/* inih's handler: 1 to go on, 0 on an error (message in r->err). */
static int recipe_handler(void *user, const char *section, const char *key, const char *v)
{
	struct recipe *r = user;
	double x;

	if (section[0] && strcmp(section, "recipe")) {
		sb_addf(&r->err, "unknown section [%s] (expected [recipe] or none)", section);
		return 0;
	}
	if (!strcmp(key, "command"))
		return recipe_set_str(&r->command, v) == 0;
	if (!strcmp(key, "variants"))
		return recipe_set_str(&r->variants, v) == 0;
	if (!strcmp(key, "stop_file"))
		return recipe_set_str(&r->stop_file, v) == 0;
	if (!strcmp(key, "frames"))
		return recipe_set_str(&r->frames, v) == 0;
	if (!strcmp(key, "window_start_re"))
		return recipe_set_str(&r->start_re, v) == 0;
	if (!strcmp(key, "window_end_re"))
		return recipe_set_str(&r->end_re, v) == 0;
	if (!strcmp(key, "reload_re"))
		return recipe_set_str(&r->reload_re, v) == 0;
	if (!strcmp(key, "reload_after"))
		return recipe_set_str(&r->reload_after, v) == 0;
	if (!strcmp(key, "reload_fixed"))
		return recipe_set_str(&r->reload_fixed, v) == 0;
	if (!strcmp(key, "warmup"))
		return recipe_set_num(r, key, v, 0, &r->warmup_s) == 0;
	if (!strcmp(key, "window"))
		return recipe_set_num(r, key, v, 0.001, &r->window_s) == 0;
	if (!strcmp(key, "duration"))
		return recipe_set_num(r, key, v, 0.001, &r->duration_s) == 0;
	if (!strcmp(key, "rounds")) {
		if (recipe_set_num(r, key, v, 1, &x) < 0)
			return 0;
		if (x != floor(x) || x > 1000) {
			sb_addf(&r->err, "rounds: expected a whole number 1..1000, got '%s'", v);
			return 0;
		}
		r->rounds = (long)x;
		return 1;
	}
	sb_addf(&r->err, "unknown key '%s' (see docs/BENCH.md, \"Recipes\")", key);
	return 0;
}

static void recipe_release(struct recipe *r)
{
	free(r->command);
	free(r->variants);
	free(r->stop_file);
	free(r->frames);
	free(r->start_re);
	free(r->end_re);
	free(r->reload_re);
	free(r->reload_after);
	free(r->reload_fixed);
	sb_release(&r->err);
}

/* Finds NAME's recipe when no file was given: recipes/NAME.ini, then
 * $XDG_CONFIG_HOME (or ~/.config)/stallscope/recipes/NAME.ini, then the
 * installed and source-tree share/recipes/NAME.ini. Writes the path into
 * RET and returns 0, or -ENOENT. */
static int recipe_find(const char *name, struct strbuf *ret)
{
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	struct strbuf p = STRBUF_INIT;
	int i;

	for (i = 0; i < 4; i++) {
		sb_reset(&p);
		if (i == 0)
			sb_addf(&p, "recipes/%s.ini", name);
		else if (i == 1 && xdg && *xdg)
			sb_addf(&p, "%s/stallscope/recipes/%s.ini", xdg, name);
		else if (i == 1 && home && *home)
			sb_addf(&p, "%s/.config/stallscope/recipes/%s.ini", home, name);
		else if (i == 2)
			sb_addf(&p, "%s/recipes/%s.ini", SS_DATADIR, name);
#ifdef SS_SRCDIR
		else if (i == 3)
			sb_addf(&p, "%s/share/recipes/%s.ini", SS_SRCDIR, name);
#endif
		if (p.len && access(p.buf, R_OK) == 0) {
			sb_reset(ret);
			sb_add(ret, p.buf, p.len);
			sb_release(&p);
			return 0;
		}
	}
	sb_release(&p);
	return -ENOENT;
}

/*
 * A recipe's program given by a bare NAME (no '/'): stallscope's own helper
 * programs (the fake game) are found beside the binary SELF (a build tree),
 * in ../libexec/stallscope from it (an installed tree, wherever it was
 * put), then in SS_LIBEXECDIR; anything else is left to PATH (execvp). The
 * path found goes into RET; 0, or -ENOENT.
 */
static int helper_find(const char *self, const char *name, struct strbuf *ret)
{
	const char *slash = strrchr(self, '/');
	int dirlen = slash ? (int)(slash - self) : 0;
	struct strbuf p = STRBUF_INIT;

	if (strchr(name, '/'))
		return -ENOENT;
	for (int i = 0; i < 3; i++) {
		sb_reset(&p);
		if (i == 0 && slash)
			sb_addf(&p, "%.*s/%s", dirlen, self, name);
		else if (i == 1 && slash)
			sb_addf(&p, "%.*s/../libexec/stallscope/%s", dirlen, self, name);
		else if (i == 2)
			sb_addf(&p, "%s/%s", SS_LIBEXECDIR, name);
		if (p.len && access(p.buf, X_OK) == 0) {
			char abs[PATH_MAX];

			sb_reset(ret);
			sb_adds(ret, realpath(p.buf, abs) ? abs : p.buf);
			sb_release(&p);
			return 0;
		}
	}
	sb_release(&p);
	return -ENOENT;
}

/* Loads the recipe at PATH into R; 0, or -1 (reported, naming the line). */
static int recipe_load(const char *path, struct recipe *r)
{
	int line;

	r->path = path;
	line = ini_parse(path, recipe_handler, r);
	if (line < 0)
		return cli_error("cannot read the recipe '%s'", path);
	if (line > 0)
		return cli_error("'%s' line %d: %s", path, line,
				 r->err.len ? r->err.buf : "expected 'key = value' or '[recipe]'");
	return 0;
}

/* ------------------------------------------------------------ variants */

static void variants_free(struct variant *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].name);
		free(v[i].switches);
		for (size_t k = 0; k < v[i].nenv; k++)
			free(v[i].env[k]);
		free(v[i].env);
	}
}

/* Whether S is an environment variable's name: [A-Za-z_][A-Za-z0-9_]*. */
static bool is_var_name(const char *s, size_t n)
{
	if (!n || (s[0] >= '0' && s[0] <= '9'))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
			return false;
	return true;
}

/* Parses the variants list ("- FOO=1 FOO=1+BAR=2") into V; the count, or -1
 * after a usage error. */
static int variants_parse(const char *list, struct variant *v, size_t max)
{
	char *copy = strdup(list), *tok, *save = NULL;
	size_t n = 0;

	if (!copy)
		return cli_error_errno(-ENOMEM, "--variants");
	for (tok = strtok_r(copy, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
		struct variant *x = &v[n];
		char *sw, *s2 = NULL;

		for (size_t i = 0; i < n; i++) {
			if (!strcmp(v[i].name, tok)) {
				cli_usage_error("option '--variants': '%s' is given twice", tok);
				goto fail;
			}
		}
		if (n == max) {
			cli_usage_error("option '--variants': %zu variants at most", max);
			goto fail;
		}
		memset(x, 0, sizeof(*x));
		x->name = strdup(tok);
		n++;
		if (!x->name)
			goto nomem;
		if (!strcmp(tok, "-"))
			continue;
		x->switches = strdup(tok);
		if (!x->switches)
			goto nomem;
		for (sw = strtok_r(tok, "+", &s2); sw; sw = strtok_r(NULL, "+", &s2)) {
			char *eq = strchr(sw, '='), **ne;

			if (!eq || !is_var_name(sw, (size_t)(eq - sw))) {
				cli_usage_error("option '--variants': expected '-' or VAR=VALUE joined "
						"by '+', got '%s' in '%s'", sw, x->name);
				goto fail;
			}
			ne = realloc(x->env, (x->nenv + 1) * sizeof(*ne));
			if (!ne)
				goto nomem;
			x->env = ne;
			if (!(x->env[x->nenv] = strdup(sw)))
				goto nomem;
			x->nenv++;
		}
		if (!x->nenv) {
			cli_usage_error("option '--variants': expected VAR=VALUE in '%s'", x->name);
			goto fail;
		}
	}
	free(copy);
	if (!n) {
		cli_usage_error("option '--variants': expected at least one variant ('-' is the "
				"base)");
		return -1;
	}
	return (int)n;
nomem:
	cli_error_errno(-ENOMEM, "--variants");
fail:
	free(copy);
	variants_free(v, n);
	return -1;
}

/* A new environment: ours with VAR's switches set (a switch replaces a
 * variable of the same name). NULL on ENOMEM; free the array, not the
 * strings (they are environ's and the variant's). */
static char **variant_environ(const struct variant *v)
{
	size_t n = 0, k = 0;
	char **env;

	while (environ[n])
		n++;
	env = calloc(n + v->nenv + 1, sizeof(*env));
	if (!env)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		bool replaced = false;

		for (size_t s = 0; s < v->nenv && !replaced; s++) {
			size_t vl = (size_t)(strchr(v->env[s], '=') - v->env[s]) + 1;

			replaced = !strncmp(environ[i], v->env[s], vl);
		}
		if (!replaced)
			env[k++] = environ[i];
	}
	for (size_t s = 0; s < v->nenv; s++)
		env[k++] = v->env[s];
	return env;
}

/* ------------------------------------------------------------ the quiet step */

/* Waits until the CPUs and the disks settle (--quiet) and drops the page
 * cache (--drop-caches); says what it did on stderr and, in NOTE, for
 * run.ini. */
static void quiet_step(const struct bench_opts *o, struct strbuf *note)
{
	struct sysstate_sample a, b;
	double t0 = now_s(), cpu = 0, io = 0;
	int calm = 0, r;

	sb_reset(note);
	if (o->quiet) {
		r = sysstate_sample(&a);
		while (r == 0) {
			struct timespec ts = { 1, 0 };

			while (nanosleep(&ts, &ts) < 0 && errno == EINTR && !stop_requested)
				;
			if (stop_requested || sysstate_sample(&b) < 0)
				break;
			sysstate_busy(&a, &b, 1.0, &cpu, &io);
			a = b;
			calm = cpu < o->quiet_cpu_pct && io < o->quiet_io_mibs ? calm + 1 : 0;
			if (calm >= 2 || now_s() - t0 >= o->quiet_timeout_s)
				break;
		}
		if (r < 0)
			sb_addf(note, "not checked: %s", strerror(-r));
		else if (calm >= 2)
			sb_addf(note, "settled after %.0f s: CPU %.0f %% busy, disk %.1f MiB/s "
				      "(wanted CPU < %g %%, disk < %g MiB/s for 2 s), load %.2f",
				now_s() - t0, cpu, io, o->quiet_cpu_pct, o->quiet_io_mibs, b.load1);
		else
			sb_addf(note, "NOT settled after %.0f s (CPU %.0f %% busy, disk %.1f MiB/s; "
				      "wanted CPU < %g %%, disk < %g MiB/s for 2 s): ran anyway",
				now_s() - t0, cpu, io, o->quiet_cpu_pct, o->quiet_io_mibs);
	}
	if (o->drop_caches) {
		r = sysstate_drop_caches();
		sb_addf(note, "%s%s", note->len ? "; " : "",
			r == 0			    ? "page cache dropped (sync, drop_caches=3)"
			: r == -EACCES || r == -EPERM ? "page cache NOT dropped: needs root"
						      : "page cache NOT dropped");
	}
	if (note->len)
		fprintf(stderr, "%s: quiet step: %s\n", cli_prog, note->buf);
}

/* ------------------------------------------------------------ one run */

struct plan_run {
	size_t variant;
	long round;
	bool rerun;
};

/* A new run directory under RESULTS, <UTC stamp>-<name>-<variant>[-rerun][-N],
 * made here (mkdir is atomic: two benches started in the same second with
 * one RESULTS directory take the next free suffix, never the same name) and
 * given to the invoking user under sudo, as record does. 0, or -errno. */
/* A run of V: RESULTS/STAMP-NAME-VARIANT[-rerun][-N] (recsys_new_rundir,
 * as record names its own), made with mkdir and chowned to the sudo user
 * when bench runs as root under sudo. With STAMP "<stamp>" only the name,
 * which --dry-run shows: the run gets the same. 0 or a negative errno. */
static int run_dir(const struct bench_opts *o, const struct variant *v, bool rerun,
		   const char *stamp, struct strbuf *ret)
{
	struct strbuf var = STRBUF_INIT;
	struct timespec now;
	char buf[32];
	uid_t uid;
	gid_t gid;
	int r;

	if (!stamp) {
		clock_gettime(CLOCK_REALTIME, &now);
		rundir_stamp(buf, sizeof(buf),
			     (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec, false);
		stamp = buf;
	}
	rundir_owner(&uid, &gid);
	sb_addf(&var, "%s%s", strcmp(v->name, "-") ? v->name : "base", rerun ? "-rerun" : "");
	r = recsys_new_rundir(o->results, stamp, o->name, var.buf, uid, gid, ret);
	sb_release(&var);
	return r;
}

/* Appends "--meta KEY=VALUE" to ARGV. */
static int add_meta(char ***argv, size_t *n, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int add_arg(char ***argv, size_t *n, const char *s)
{
	char **nv = realloc(*argv, (*n + 2) * sizeof(*nv));

	if (!nv)
		return -ENOMEM;
	*argv = nv;
	if (!(nv[*n] = strdup(s)))
		return -ENOMEM;
	nv[++*n] = NULL;
	return 0;
}

static int add_meta(char ***argv, size_t *n, const char *key, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	int r;

	sb_addf(&sb, "%s=", key);
	va_start(ap, fmt);
	sb_vaddf(&sb, fmt, ap);
	va_end(ap);
	r = add_arg(argv, n, "--meta");
	if (!r)
		r = add_arg(argv, n, sb.buf);
	sb_release(&sb);
	return r;
}

static void argv_free(char **argv)
{
	argsplit_free(argv);
}

/* The record command line of one run. */
static char **record_argv(const char *self, const struct bench_opts *o, const struct recipe *rc,
			  const struct variant *v, const struct plan_run *pr, const char *dir,
			  char **cmd, const char *quiet_note, size_t index, size_t total,
			  const char *host)
{
	char **a = NULL;
	size_t n = 0;
	int r = 0;

	r |= add_arg(&a, &n, self);
	r |= add_arg(&a, &n, "record");
	r |= add_arg(&a, &n, "-q");
	r |= add_arg(&a, &n, "-o");
	r |= add_arg(&a, &n, dir);
	if (o->frames) {
		r |= add_arg(&a, &n, "--frames");
		r |= add_arg(&a, &n, o->frames);
	}
	if (!isnan(o->duration_s)) {
		char d[32];

		snprintf(d, sizeof(d), "%g", o->duration_s);
		r |= add_arg(&a, &n, "--duration");
		r |= add_arg(&a, &n, d);
	}
	if (o->stop_file) {
		r |= add_arg(&a, &n, "--stop-file");
		r |= add_arg(&a, &n, o->stop_file);
	}
	if (!o->no_watch)
		r |= add_arg(&a, &n, "--watch");
	for (size_t i = 0; i < o->npass; i++)
		r |= add_arg(&a, &n, o->pass[i]);
	if (v->no_sample)
		r |= add_arg(&a, &n, "--no-sample");
	r |= add_meta(&a, &n, "name", "%s", o->name);
	r |= add_meta(&a, &n, "variant", "%s", v->name);
	r |= add_meta(&a, &n, "switches", "%s", v->switches ? v->switches : "-");
	r |= add_meta(&a, &n, "round", "%ld", pr->round);
	r |= add_meta(&a, &n, "bench_run", "%zu/%zu", index, total);
	if (pr->rerun)
		r |= add_meta(&a, &n, "rerun", "1 (the run before was interfered)");
	if (host)
		r |= add_meta(&a, &n, "host", "%s", host);
	r |= add_meta(&a, &n, "warmup_s", "%g", o->warmup_s);
	if (!isnan(o->window_s))
		r |= add_meta(&a, &n, "window_to_s", "%g", o->warmup_s + o->window_s);
	if (rc->reload_re)
		r |= add_meta(&a, &n, "reload_re", "%s", rc->reload_re);
	if (rc->reload_after)
		r |= add_meta(&a, &n, "reload_after", "%s", rc->reload_after);
	if (rc->reload_fixed)
		r |= add_meta(&a, &n, "reload_fixed", "%s", rc->reload_fixed);
	if (rc->path)
		r |= add_meta(&a, &n, "recipe", "%s", rc->path);
	if (quiet_note && *quiet_note)
		r |= add_meta(&a, &n, "quiet", "%s", quiet_note);
	r |= add_arg(&a, &n, "--");
	for (char **c = cmd; *c; c++)
		r |= add_arg(&a, &n, *c);
	if (r) {
		argv_free(a);
		return NULL;
	}
	return a;
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
		return cli_error_errno(pid, "cannot run '%s'", argv[0]);
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

/* program.log's stamped lines "[S] text": the stamp S of the first line
 * matching RE into *ret_s. Returns 1 (found), 0 (no match), or -1 with WHY
 * set when the matching line carries no stamp. */
static int log_find(const char *dir, const regex_t *re, double *ret_s, struct strbuf *why)
{
	struct strbuf path = STRBUF_INIT;
	char line[4096];
	int lineno = 0, found = 0;
	FILE *f;

	sb_addf(&path, "%s/program.log", dir);
	f = fopen(path.buf, "re");
	if (!f) {
		sb_addf(why, "cannot read '%s': %s", path.buf, strerror(errno));
		sb_release(&path);
		return -1;
	}
	while (!found && fgets(line, sizeof(line), f)) {
		size_t off;
		double s;
		char *text;

		lineno++;
		line[strcspn(line, "\n")] = '\0';
		if (!logstamp_parse(line, strlen(line), &s, &off))
			s = NAN;
		text = line + off;
		if (regexec(re, text, 0, NULL, 0) != 0)
			continue;
		if (isnan(s)) {
			sb_addf(why, "'%s' line %d matches but has no [seconds] stamp", path.buf,
				lineno);
			found = -1;
		} else {
			*ret_s = s;
			found = 1;
		}
	}
	fclose(f);
	sb_release(&path);
	return found;
}

/* Appends KEY=VALUE lines to DIR/run.ini (a later key wins over an earlier
 * one): rewritten through recsys_write_atomic (a temporary file, fsync,
 * rename), as record writes it, keeping its owner (the sudo user's run). */
static int ini_append(const char *dir, const struct strbuf *lines)
{
	struct strbuf path = STRBUF_INIT, buf = STRBUF_INIT;
	char chunk[4096];
	struct stat st;
	size_t n;
	FILE *f;
	int r = 0;

	sb_add_path(&path, dir, "run.ini");
	f = fopen(path.buf, "re");
	if (!f) {
		r = -errno;
		goto out;
	}
	if (fstat(fileno(f), &st) < 0) {
		st.st_uid = (uid_t)-1;
		st.st_gid = (gid_t)-1;
	}
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		sb_add(&buf, chunk, n);
	fclose(f);
	sb_add(&buf, lines->buf, lines->len);
	r = recsys_write_atomic(path.buf, buf.buf, buf.len,
				geteuid() == 0 ? st.st_uid : (uid_t)-1,
				geteuid() == 0 ? st.st_gid : (gid_t)-1, true);
out:
	sb_release(&path);
	sb_release(&buf);
	return r;
}

/* The window's start and end from the recipe's regexes on program.log: sets
 * run.ini's window_from_s/window_to_s (seconds after the first frame's start,
 * as --from/--to) when the lines are found and stamped. A: the first
 * analysis (for the first frame's start). Returns 1 when run.ini changed. */
static int window_from_log(const char *dir, const struct recipe *rc, const struct analysis *a)
{
	struct strbuf lines = STRBUF_INIT, why = STRBUF_INIT;
	const char *res[2] = { rc->start_re, rc->end_re };
	const char *keys[2] = { "window_from_s", "window_to_s" };
	int changed = 0;

	for (int i = 0; i < 2; i++) {
		regex_t re;
		double s;
		int r;

		if (!res[i])
			continue;
		if (regcomp(&re, res[i], REG_EXTENDED | REG_NOSUB) != 0) {
			cli_warn("'%s': %s '%s' is not a regular expression", rc->path,
				 i ? "window_end_re" : "window_start_re", res[i]);
			continue;
		}
		sb_reset(&why);
		r = log_find(dir, &re, &s, &why);
		regfree(&re);
		if (r == 1 && !isnan(a->m.origin_s)) {
			inifmt_addf(&lines, keys[i], "%.3f", fmax(0, s - a->m.origin_s));
			changed = 1;
		} else {
			cli_warn("%s: %s: %s; the window is not moved", dir,
				 i ? "window_end_re" : "window_start_re",
				 r == 0 ? "no line of program.log matches" : why.buf);
		}
	}
	if (changed && ini_append(dir, &lines) < 0) {
		cli_warn("cannot add the window to '%s/run.ini'", dir);
		changed = 0;
	}
	sb_release(&lines);
	sb_release(&why);
	return changed;
}

/* ------------------------------------------------------------ the command */

static void usage(FILE *f)
{
	fprintf(f,
		"usage: stallscope bench NAME [options] [-- CMD ARGS...]\n"
		"\n"
		"Runs CMD for rounds of interleaved variants: each round runs every variant\n"
		"once, in the order given, each run a 'stallscope record --watch' into its own\n"
		"run directory; then analyses each run as 'report' does and stores it in the\n"
		"results database. Without CMD the recipe (--recipe, or recipes/NAME.ini)\n"
		"gives it. docs/BENCH.md says how to run a benchmark a decision can rest on.\n"
		"\n"
		"options:\n"
		"  --variants LIST     variants, blank-separated: '-' is the base, others are\n"
		"                      switches VAR=VALUE joined by '+' that go into the\n"
		"                      program's environment (default '-')\n"
		"  --rounds N          rounds (default 3)\n"
		"  --warmup S          seconds after the first frame left out (default 60)\n"
		"  --window S          the measured seconds after the warm-up (default: to the end)\n"
		"  --duration S        stop each run after S seconds (default: warm-up + window\n"
		"                      + 2 when --window is given, else when the program ends)\n"
		"  --stop-file PATH    stop each run when PATH appears\n"
		"  --rules FILE        reload rules for the analysis\n"
		"  --db PATH           the results database (default\n"
		"                      $XDG_DATA_HOME/stallscope/results.db)\n"
		"  --results DIR       where run directories go (default runs/)\n"
		"  --recipe FILE       the program's recipe (INI; see docs/BENCH.md)\n"
		"  --frames SOURCE     record's frame source (auto, marker, gl, vk, hud:PATH)\n"
		"  --quiet             before each run wait until CPU and disks settle\n"
		"  --quiet-cpu PCT, --quiet-io MIBS, --quiet-timeout S\n"
		"                      what settled means (20 %% busy, 1 MiB/s, for 2 s) and how\n"
		"                      long to wait at most (60 s)\n"
		"  --drop-caches       drop the page cache before each run (root)\n"
		"  --rerun-interfered  run an interfered run once more, at once\n"
		"  --recorder-ab       add a variant 'frames-only' (record --no-sample) to check\n"
		"                      that the recorder changes nothing\n"
		"  --no-watch          leave the interference detector off\n"
		"  the watcher's options, passed to each record (stallscope-watch(1)):\n");
	watch_opts_help(f, 22);
	fprintf(f,
		"  --dry-run           print the runs (record command lines) and stop\n"
		"  -h, --help          this text\n"
		"\n"
		"EXAMPLES\n"
		"  stallscope bench fakegame --rounds 5 --variants '- FAKEGAME_STALL=sleep:300@3' \\\n"
		"      --warmup 0 -- build/fakegame --seconds 10\n"
		"  stallscope bench ioquake3 --recipe q3.ini --quiet --rerun-interfered\n"
		"  stallscope bench game --variants '- MESA_SHADER_CACHE_DISABLE=true' --window 120 \\\n"
		"      -- ./game --benchmark\n");
}

int cmd_bench(int argc, char **argv)
{
	enum { O_VARIANTS = 256, O_ROUNDS, O_WARMUP, O_WINDOW, O_DURATION, O_STOP, O_RULES, O_DB,
	       O_RESULTS, O_RECIPE, O_FRAMES, O_QUIET, O_QCPU, O_QIO, O_QTIMEOUT, O_DROP,
	       O_RERUN, O_AB, O_NOWATCH, O_DRY };
	static const struct option own[] = {
		{ "variants", required_argument, NULL, O_VARIANTS },
		{ "rounds", required_argument, NULL, O_ROUNDS },
		{ "warmup", required_argument, NULL, O_WARMUP },
		{ "window", required_argument, NULL, O_WINDOW },
		{ "duration", required_argument, NULL, O_DURATION },
		{ "stop-file", required_argument, NULL, O_STOP },
		{ "rules", required_argument, NULL, O_RULES },
		{ "db", required_argument, NULL, O_DB },
		{ "results", required_argument, NULL, O_RESULTS },
		{ "recipe", required_argument, NULL, O_RECIPE },
		{ "frames", required_argument, NULL, O_FRAMES },
		{ "quiet", no_argument, NULL, O_QUIET },
		{ "quiet-cpu", required_argument, NULL, O_QCPU },
		{ "quiet-io", required_argument, NULL, O_QIO },
		{ "quiet-timeout", required_argument, NULL, O_QTIMEOUT },
		{ "drop-caches", no_argument, NULL, O_DROP },
		{ "rerun-interfered", no_argument, NULL, O_RERUN },
		{ "recorder-ab", no_argument, NULL, O_AB },
		{ "no-watch", no_argument, NULL, O_NOWATCH },
		{ "dry-run", no_argument, NULL, O_DRY },
		{ "help", no_argument, NULL, 'h' },
	};
	struct option lo[sizeof(own) / sizeof(own[0]) + WATCH_OPT_N + 1] = { { 0 } };
	size_t nlo = sizeof(own) / sizeof(own[0]);
	struct bench_opts o = {
		.rounds = 0,
		.warmup_s = NAN,
		.window_s = NAN,
		.duration_s = NAN,
		.quiet_cpu_pct = 20,
		.quiet_io_mibs = 1,
		.quiet_timeout_s = 60,
	};
	struct recipe rc = { .warmup_s = NAN, .window_s = NAN, .duration_s = NAN };
	struct variant vars[MAX_VARIANTS + 1];
	struct plan_run *plan = NULL;
	struct strbuf dbpath = STRBUF_INIT, rpath = STRBUF_INIT, err = STRBUF_INIT;
	struct strbuf made = STRBUF_INIT;
	struct strbuf dir = STRBUF_INIT, qnote = STRBUF_INIT;
	struct reload_rules *rules = NULL;
	struct analyse_opts ao = { .m = METRICS_OPTS_INIT, .fmt = FRAMELOG_AUTO };
	struct db *db = NULL;
	char self[PATH_MAX], host[256], **cmd = NULL, **split = NULL;
	size_t nvars = 0, total = 0, done = 0, stored = 0, interfered = 0, reruns = 0, failed = 0;
	size_t nbad = 0, good[MAX_VARIANTS + 1] = { 0 };	/* failed runs; good ones a variant */
	struct strbuf bad = STRBUF_INIT;
	int c, nv, ret = 1;
	double t_start, run_time = 0;
	struct sigaction sa = { 0 }, old_int, old_term;
	bool have_old_int = false, have_old_term = false;

	sb_init(&rc.err);
	optind = 1;
	memcpy(lo, own, sizeof(own));
	watch_opts_add(lo, &nlo);	/* passed on to each record */
	while ((c = getopt_long(argc, argv, ":h", lo, NULL)) != -1) {
		double d;
		long l;

		switch (c) {
		case O_VARIANTS: o.variants = optarg; break;
		case O_ROUNDS:
			if (cli_parse_int("--rounds", optarg, 1, 1000, &l) < 0)
				goto usage;
			o.rounds = l;
			break;
		case O_WARMUP:
			if (cli_parse_double("--warmup", optarg, 0, 1e7, &o.warmup_s) < 0)
				goto usage;
			break;
		case O_WINDOW:
			if (cli_parse_double("--window", optarg, 0.001, 1e7, &o.window_s) < 0)
				goto usage;
			break;
		case O_DURATION:
			if (cli_parse_double("--duration", optarg, 0.001, 1e7, &o.duration_s) < 0)
				goto usage;
			break;
		case O_STOP: o.stop_file = optarg; break;
		case O_RULES: o.rules = optarg; break;
		case O_DB: o.db = optarg; break;
		case O_RESULTS: o.results = optarg; break;
		case O_RECIPE: o.recipe = optarg; break;
		case O_FRAMES: o.frames = optarg; break;
		case O_QUIET: o.quiet = true; break;
		case O_QCPU:
			if (cli_parse_double("--quiet-cpu", optarg, 0.1, 100, &d) < 0)
				goto usage;
			o.quiet_cpu_pct = d;
			o.quiet = true;
			break;
		case O_QIO:
			if (cli_parse_double("--quiet-io", optarg, 0.001, 1e6, &d) < 0)
				goto usage;
			o.quiet_io_mibs = d;
			o.quiet = true;
			break;
		case O_QTIMEOUT:
			if (cli_parse_double("--quiet-timeout", optarg, 1, 86400, &d) < 0)
				goto usage;
			o.quiet_timeout_s = d;
			o.quiet = true;
			break;
		case O_DROP: o.drop_caches = true; break;
		case O_RERUN: o.rerun_interfered = true; break;
		case O_AB: o.recorder_ab = true; break;
		case O_NOWATCH: o.no_watch = true; break;
		case O_DRY: o.dry_run = true; break;
		case 'h':
			usage(stdout);
			ret = 0;
			goto out;
		default:
			if (watch_opt_is(c)) {
				if (o.npass + 2 > MAX_PASS) {
					cli_usage_error("too many watcher options");
					goto usage;
				}
				watch_opt_pass(c, optarg, o.pass, &o.npass);
				break;
			}
			cli_bad_option(c, argv);
			goto usage;
		}
	}
	if (optind == argc) {
		cli_usage_error("expected the benchmark's NAME");
		goto usage;
	}
	o.name = argv[optind++];
	if (!*o.name || strchr(o.name, '/') || strchr(o.name, ':')) {
		cli_usage_error("NAME: expected a name without '/' or ':', got '%s'", o.name);
		goto usage;
	}
	cmd = optind < argc ? argv + optind : NULL;
	if (o.no_watch && o.npass) {
		cli_usage_error("the watcher's options do not go with --no-watch");
		goto usage;
	}

	/* the recipe: given, or found by NAME when there is no command */
	if (!o.recipe && !cmd && recipe_find(o.name, &rpath) == 0)
		o.recipe = rpath.buf;
	if (o.recipe && recipe_load(o.recipe, &rc) < 0)
		goto out;
	if (!cmd) {
		int n;

		if (!rc.command) {
			cli_usage_error(o.recipe ? "the recipe '%s' has no command and none was given "
						   "after '--'"
						 : "expected -- CMD ARGS..., or a recipe for '%s' "
						   "(--recipe FILE, or recipes/%s.ini)",
					o.recipe ? o.recipe : o.name, o.name);
			goto usage;
		}
		n = argsplit(rc.command, &split, &err);
		if (n <= 0) {
			cli_error("'%s': command: %s", o.recipe,
				  n == 0 ? "expected a program and its arguments" : err.buf);
			goto out;
		}
		cmd = split;
	}
	if (!o.variants)
		o.variants = rc.variants ? rc.variants : "-";
	if (!o.rounds)
		o.rounds = rc.rounds ? rc.rounds : 3;
	if (isnan(o.warmup_s))
		o.warmup_s = !isnan(rc.warmup_s) ? rc.warmup_s : 60;
	if (isnan(o.window_s))
		o.window_s = rc.window_s;
	if (!o.stop_file)
		o.stop_file = rc.stop_file;
	if (!o.frames)
		o.frames = rc.frames;
	if (isnan(o.duration_s)) {
		o.duration_s = rc.duration_s;
		if (isnan(o.duration_s) && !isnan(o.window_s) && !o.stop_file)
			o.duration_s = o.warmup_s + o.window_s + 2;
	}
	if (!o.results)
		o.results = "runs";
	nv = variants_parse(o.variants, vars, MAX_VARIANTS);
	if (nv < 0)
		goto usage;
	nvars = (size_t)nv;
	if (o.recorder_ab) {
		memset(&vars[nvars], 0, sizeof(vars[0]));
		vars[nvars].name = strdup("frames-only");
		vars[nvars].no_sample = true;
		if (!vars[nvars].name) {
			cli_error_errno(-ENOMEM, "variants");
			goto out;
		}
		nvars++;
	}

	/* the plan: rounds of every variant in order */
	total = (size_t)o.rounds * nvars;
	plan = calloc(total + (size_t)o.rounds * nvars + 1, sizeof(*plan));	/* room for reruns */
	if (!plan) {
		cli_error_errno(-ENOMEM, "plan");
		goto out;
	}
	for (long r = 0; r < o.rounds; r++)
		for (size_t v = 0; v < nvars; v++)
			plan[(size_t)r * nvars + v] = (struct plan_run){ v, r + 1, false };
	if (sysstate_self_exe(self, sizeof(self)) < 0)
		snprintf(self, sizeof(self), "%s", "stallscope");
	if (split && helper_find(self, split[0], &err) == 0) {
		/* a recipe's bare helper name: ours, wherever stallscope runs from */
		char *found = strdup(err.buf);

		if (!found) {
			cli_error_errno(-ENOMEM, "recipe");
			goto out;
		}
		free(split[0]);
		split[0] = found;
	}
	sb_reset(&err);
	if (gethostname(host, sizeof(host)) < 0)
		host[0] = '\0';
	host[sizeof(host) - 1] = '\0';

	if (o.dry_run) {
		for (size_t i = 0; i < total; i++) {
			struct strbuf line = STRBUF_INIT;
			const struct variant *v = &vars[plan[i].variant];
			char **a;
			int na = 0;

			run_dir(&o, v, plan[i].rerun, "<stamp>", &dir);
			a = record_argv(self, &o, &rc, v, &plan[i], dir.buf, cmd, NULL, i + 1, total,
					NULL);
			if (!a) {
				cli_error_errno(-ENOMEM, "plan");
				goto out;
			}
			while (a[na])
				na++;
			for (size_t k = 0; k < v->nenv; k++)
				sb_addf(&line, "%s ", v->env[k]);
			inifmt_quote_argv(&line, na, a);
			printf("run %zu/%zu round %ld variant %s: %s\n", i + 1, total, plan[i].round,
			       v->name, line.buf);
			sb_release(&line);
			argv_free(a);
		}
		ret = 0;
		goto out;
	}

	/* the database and the analysis */
	if (o.db) {
		sb_adds(&dbpath, o.db);
	} else if (db_default_path(&dbpath) < 0) {
		cli_error("no database path: neither XDG_DATA_HOME nor HOME is set; give --db");
		goto out;
	}
	if (db_make_parent(dbpath.buf, &made) < 0) {
		cli_error("cannot create the directory of '%s'", dbpath.buf);
		goto out;
	}
	if (made.len)
		fprintf(stderr, "%s: created '%s' for the database '%s'\n", cli_prog, made.buf,
			dbpath.buf);
	if (db_open(dbpath.buf, true, &db, &err) < 0) {
		cli_error("%s", err.buf);
		goto out;
	}
	if (cli_failed(analyse_load_rules(o.rules, &rules, &ao.rules_name, &err), &err))
		goto out;
	ao.rules = rules;
	if (mkdir(o.results, 0777) < 0 && errno != EEXIST) {
		cli_error_errno(-errno, "cannot create '%s'", o.results);
		goto out;
	}

	sa.sa_sigaction = on_stop;
	sa.sa_flags = SA_SIGINFO;	/* no SA_RESTART: waitpid returns to forward */
	sigemptyset(&sa.sa_mask);
	have_old_int = sigaction(SIGINT, &sa, &old_int) == 0;
	have_old_term = sigaction(SIGTERM, &sa, &old_term) == 0;
	fprintf(stderr, "%s: '%s': %ld round%s x %zu variant%s = %zu run%s; results in '%s', "
			"database '%s'\n",
		cli_prog, o.name, o.rounds, o.rounds == 1 ? "" : "s", nvars, nvars == 1 ? "" : "s",
		total, total == 1 ? "" : "s", o.results, dbpath.buf);
	t_start = now_s();
	for (size_t i = 0; i < total && !stop_requested; i++) {
		const struct plan_run *pr = &plan[i];
		const struct variant *v = &vars[pr->variant];
		struct analysis a;
		char el[32], left[32], **a_argv, **env;
		double t_run = now_s();
		long long id;
		int st, r;

		fmt_hms(el, sizeof(el), t_run - t_start);
		if (done)
			fmt_hms(left, sizeof(left), run_time / (double)done * (double)(total - i));
		fprintf(stderr, "%s: run %zu/%zu: round %ld, variant '%s'%s; elapsed %s%s%s%s\n",
			cli_prog, i + 1, total, pr->round, v->name, pr->rerun ? " (re-run)" : "", el,
			done ? ", about " : "", done ? left : "", done ? " left" : "");
		quiet_step(&o, &qnote);
		if ((r = run_dir(&o, v, pr->rerun, NULL, &dir)) < 0) {
			cli_error_errno(r, "cannot make a run directory under '%s'", o.results);
			failed++;
			break;
		}
		a_argv = record_argv(self, &o, &rc, v, pr, dir.buf, cmd, qnote.buf, i + 1, total,
				     host[0] ? host : NULL);
		env = variant_environ(v);
		if (!a_argv || !env) {
			argv_free(a_argv);
			free(env);
			cli_error_errno(-ENOMEM, "run %zu", i + 1);
			failed++;
			break;
		}
		st = run_record(a_argv, env);
		argv_free(a_argv);
		free(env);
		if (st != 0 && st != 3) {	/* 3: recorded, and the program failed */
			cli_error("run %zu/%zu: record failed (exit %d); stopping: see its messages "
				  "above",
				  i + 1, total, st);
			failed++;
			break;
		}
		if (cli_failed(analyse_input(dir.buf, &ao, &a, &err), &err)) {
			failed++;
			continue;
		}
		if ((rc.start_re || rc.end_re) && window_from_log(dir.buf, &rc, &a) > 0) {
			analysis_release(&a);
			if (cli_failed(analyse_input(dir.buf, &ao, &a, &err), &err)) {
				failed++;
				continue;
			}
		}
		if (stop_requested && !a.failure &&
		    !(a.failure = strdup(stop_requested == SIGTERM
						 ? "the bench was stopped by SIGTERM during the run"
						 : "the bench was stopped by SIGINT during the run"))) {
			cli_error_errno(-ENOMEM, "run %zu", i + 1);
			analysis_release(&a);
			failed++;
			break;
		}
		sb_reset(&err);
		id = store_run(db, dir.buf, &a, &err);
		if (id < 0) {
			cli_error("%s", err.buf);
			analysis_release(&a);
			failed++;
			break;
		}
		stored++;
		done++;
		run_time += now_s() - t_run;
		{
			char stalls[32] = "-", fps[32] = "-";

			if (!isnan(a.m.v[M_STALLS]))
				snprintf(stalls, sizeof(stalls), "%g", a.m.v[M_STALLS]);
			if (!isnan(a.m.v[M_FPS]))
				snprintf(fps, sizeof(fps), "%.1f", a.m.v[M_FPS]);
			fprintf(stderr, "%s: run %zu/%zu done in %.1f s: %s, stalls %s, fps %s, "
					"interference: %s\n",
				cli_prog, i + 1, total, now_s() - t_run, dir.buf, stalls, fps,
			a.interfered < 0 ? "not watched"
			: a.interference ? a.interference
					 : (a.interfered ? "yes" : "none"));
		}
		if (a.failure) {
			fprintf(stderr, "!! RUN %zu/%zu FAILED: %s; stored as failed, left out of "
					"medians (%s)\n",
				i + 1, total, a.failure, dir.buf);
			sb_addf(&bad, "  run %zu/%zu, variant '%s', round %ld: %s (%s)\n", i + 1, total,
				v->name, pr->round, a.failure, dir.buf);
			nbad++;
		} else {
			good[pr->variant]++;
		}
		if (a.interfered == 1) {
			interfered++;
			if (o.rerun_interfered && !pr->rerun) {
				fprintf(stderr, "%s: run %zu/%zu was interfered: running it once more "
						"(--rerun-interfered)\n",
					cli_prog, i + 1, total);
				memmove(&plan[i + 2], &plan[i + 1], (total - i - 1) * sizeof(*plan));
				plan[i + 1] = (struct plan_run){ pr->variant, pr->round, true };
				total++;
				reruns++;
			}
		}
		analysis_release(&a);
	}
	if (stop_requested)
		cli_error("stopped by SIG%s after %zu of %zu runs", sigabbrev_np(stop_requested) ?: "?",
			  stored, total);
	{
		char el[32];

		fmt_hms(el, sizeof(el), now_s() - t_start);
		printf("%zu run%s of '%s' stored in '%s' in %s (%zu interfered%s, %zu failed; both "
		       "left out of medians)\n",
		       stored, stored == 1 ? "" : "s", o.name, dbpath.buf, el, interfered,
		       reruns ? ", re-run" : "", nbad);
		if (nbad)
			printf("!! %zu FAILED run%s:\n%s", nbad, nbad == 1 ? "" : "s", bad.buf);
		for (size_t v = 0; v < nvars && stored; v++)
			if (!good[v])
				printf("!! variant '%s' has no good run: compare cannot use it\n",
				       vars[v].name);
		if (stored) {	/* the hints, once there is something to look at */
			printf("  stallscope runs --db %s --name %s\n", dbpath.buf, o.name);
			printf("  stallscope matrix --db %s --name %s -o matrix-%s/\n", dbpath.buf,
			       o.name, o.name);
			for (size_t v = 1; v < nvars && good[0]; v++)
				if (good[v])
					printf("  stallscope compare --db %s %s:%s %s:%s\n",
					       dbpath.buf, o.name, vars[0].name, o.name,
					       vars[v].name);
		}
	}
	if (stop_requested)
		ret = 128 + stop_requested;
	else
		ret = failed ? 1 : nbad ? 3 : 0;
out:
	if (have_old_int)
		sigaction(SIGINT, &old_int, NULL);
	if (have_old_term)
		sigaction(SIGTERM, &old_term, NULL);
	variants_free(vars, nvars);
	free(plan);
	argsplit_free(split);
	recipe_release(&rc);
	reload_rules_free(rules);
	db_close(db);
	sb_release(&dbpath);
	sb_release(&made);
	sb_release(&rpath);
	sb_release(&err);
	sb_release(&dir);
	sb_release(&qnote);
	sb_release(&bad);
	return ret;
usage:
	ret = EXIT_USAGE;
	goto out;
}
