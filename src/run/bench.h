/* SPDX-License-Identifier: MIT */
/*
 * bench.h: the pieces of `stallscope bench` below its command: where a
 * recipe and a helper program are found, the quiet step before a run, a
 * run's directory and its record command line, and the window a recipe's
 * regexes find on a run's program.log. docs/BENCH.md is the user's view.
 */
#ifndef SS_RUN_BENCH_H
#define SS_RUN_BENCH_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/recipe.h"
#include "core/strbuf.h"
#include "core/variants.h"
#include "run/analyse.h"

#define BENCH_MAX_PASS 32		/* record options passed through */

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
	bool as_root;		/* record --as-root: under sudo, the program as root */
	double quiet_cpu_pct, quiet_io_mibs, quiet_timeout_s;
	const char *pass[BENCH_MAX_PASS];	/* the watcher's options for record */
	size_t npass;
};

struct plan_run {
	size_t variant;
	long round;
	bool rerun;
};

/* Finds NAME's recipe when no file was given: $XDG_CONFIG_HOME (or
 * ~/.config)/stallscope/recipes/NAME.ini, then the installed and
 * source-tree share/recipes/NAME.ini; never the current directory (a
 * recipe there is run only when named by its path). Writes the path into
 * RET and returns 0, or -ENOENT. */
int bench_recipe_find(const char *name, struct strbuf *ret);

/*
 * A recipe's program given by a bare NAME (no '/'): stallscope's own helper
 * programs (the fake game) are found beside the binary SELF (a build tree),
 * in ../libexec/stallscope from it (an installed tree, wherever it was
 * put), then in SS_LIBEXECDIR; anything else is left to PATH (execvp). The
 * path found goes into RET; 0, or -ENOENT.
 */
int bench_helper_find(const char *self, const char *name, struct strbuf *ret);

/* Waits until the CPUs and the disks settle (o->quiet; *STOP set by a
 * signal ends the wait) and drops the page cache (o->drop_caches); what it
 * did, in words, into NOTE (for the terminal and run.ini; "" when neither). */
void bench_quiet_step(const struct bench_opts *o, volatile sig_atomic_t *stop,
		      struct strbuf *note);

/* A run of V: RESULTS/STAMP-NAME-VARIANT[-rerun][-N] (recsys_new_rundir,
 * as record names its own), made with mkdir and chowned to the sudo user
 * when bench runs as root under sudo. STAMP NULL: now; "<stamp>": only the
 * name, which --dry-run shows. 0 or a negative errno. */
int bench_run_dir(const struct bench_opts *o, const struct variant *v, bool rerun,
		  const char *stamp, struct strbuf *ret);

/* The record command line of run INDEX of TOTAL (SELF record -q -o DIR
 * ... --meta ... -- CMD); NULL on ENOMEM. Free with argsplit_free. */
char **bench_record_argv(const char *self, const struct bench_opts *o, const struct recipe *rc,
			 const struct variant *v, const struct plan_run *pr, const char *dir,
			 char **cmd, const char *quiet_note, size_t index, size_t total,
			 const char *host);

/* The window's start and end from the recipe's regexes on DIR/program.log:
 * sets run.ini's window_from_s/window_to_s (seconds after the first frame's
 * start, as --from/--to) when the lines are found and stamped. A: the first
 * analysis (for the first frame's start). What did not work goes into WARN,
 * a line each. Returns 1 when run.ini changed. */
int bench_window_from_log(const char *dir, const struct recipe *rc, const struct analysis *a,
			  struct strbuf *warn);

#endif
