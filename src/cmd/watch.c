// SPDX-License-Identifier: MIT
/*
 * watch.c: `stallscope watch`, the interference detector on its own: for a
 * duration, until SIGINT, or while a command runs; and `watch --scan`, what
 * the saved files of old runs still show. `record --watch` runs the same
 * engine (src/linux/watch.h) beside a recording.
 *
 * Exit status: 0 clean, 3 interfered (so scripts can tell), 1 failure,
 * 2 usage.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "cmd/cmd.h"
#include "cmd/watch_opts.h"
#include "core/strbuf.h"

#include "linux/child.h"
#include "linux/safefile.h"
#include "linux/watch.h"
#include "out/json.h"
#include "run/analyse.h"
#include "run/rundir.h"
#include "run/watchscan.h"

#define EXIT_INTERFERED 3

struct watch_cmd_opts {
	struct watch_opts_given g;	/* the watcher's own (watch_opts.h); log, rundir too */
	double duration_s;	/* 0: until SIGINT or the command ends */
	bool json;
	bool scan;
	bool write;
	bool as_root;		/* under sudo, CMD as root (default: the sudo user) */
	const char *list;	/* the interfered-runs list file */
	const char *rules;	/* program-log patterns for --scan */
	const char *dmesg;	/* a saved kernel log for --scan */
	const char *xorg_log;
};

static const struct opts_help watch_help = {
	"usage: stallscope watch [options] [--duration S] [-- CMD ARGS...]\n"
	"       stallscope watch --scan [--write] [--list FILE] RUNDIR...\n"
	"\n"
	"Watches for anything a person or a foreign process does to the machine: key\n"
	"presses, buttons, wheel steps, sticks, deliberate mouse motion, input and USB\n"
	"devices coming and going, VT switches, new logins, foreign processes that\n"
	"start in a login session or use 1 s of CPU. Each finding is a line: '!'\n"
	"counts, '-' is noted and does not count, 'i' is information. Key codes are\n"
	"never logged. Exit status 3 means interfered.\n"
	"\n",
	"examples:\n"
	"  stallscope watch --duration 60\n"
	"  stallscope watch --log interference.log -- ./game --benchmark\n"
	"  stallscope watch --scan --write --list runs/interfered.list runs/*/\n",
};

/* ------------------------------------------------------------- live */

/* Whether NAME can be run as execvp would find it: a path, or a file in
 * $PATH that we may execute. 0, or -errno (ENOENT, EACCES). */
static int can_exec(const char *name)
{
	const char *path = getenv("PATH");
	char buf[PATH_MAX];
	int err = -ENOENT;

	if (strchr(name, '/'))
		return access(name, X_OK) == 0 ? 0 : -errno;
	for (const char *p = path ? path : "/usr/local/bin:/usr/bin:/bin"; *p;) {
		size_t len = strcspn(p, ":");

		if (snprintf(buf, sizeof(buf), "%.*s%s%s", (int)len, p, len ? "/" : "", name) <
			    (int)sizeof(buf)) {
			if (access(buf, X_OK) == 0)
				return 0;
			if (errno == EACCES)
				err = -EACCES;
		}
		p += len;
		p += *p == ':';
	}
	return err;
}

static int watch_live(struct watch_cmd_opts *o, char **cmd)
{
	struct strbuf err = STRBUF_INIT;
	struct watch_result res;
	struct watch *w = NULL;
	sigset_t set, old;
	struct timespec start, now;
	pid_t child = -1;
	int status = 0, r;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &set, &old);

	if (!o->g.wo.log_path)
		o->g.wo.log_path = "-";
	/* a program that cannot be run gives no run to watch: say so before
	 * the watcher starts and logs a verdict */
	if (cmd && (r = can_exec(cmd[0])) < 0) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		return cli_error_errno(r, "cannot run '%s'", cli_shown(cmd[0]));
	}
	r = watch_start(&o->g.wo, &w, &err);
	if (r < 0) {
		cli_error("%s", err.len ? err.buf : strerror(-r));
		sb_release(&err);
		return 1;
	}
	if (cmd) {
		struct child_spawn cs = CHILD_SPAWN_INIT;
		struct child_cred cred;
		int as_user = o->as_root ? 0 : child_cred_sudo(&cred);

		cs.argv = cmd;
		cs.path_search = true;
		cs.own_group = true;
		cs.mask = &old;
		cs.run_env = o->g.wo.rundir;
		cs.cred = as_user > 0 ? &cred : NULL;	/* under sudo: the user's */
		child = as_user < 0 ? as_user : child_spawn(&cs);
		if (as_user > 0)
			child_cred_release(&cred);
		if (child < 0) {
			/* nothing was watched beside it: no verdict to give */
			cli_error_errno((int)child, "cannot run '%s'", cli_shown(cmd[0]));
			watch_stop(w, &res);
			free(res.summary);
			sigprocmask(SIG_SETMASK, &old, NULL);
			sb_release(&err);
			return 1;
		}
		watch_set_program(w, child);
	}
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		struct timespec to = { 0, 250000000 };
		int sig;

		if (o->duration_s > 0) {
			clock_gettime(CLOCK_MONOTONIC, &now);
			if (now.tv_sec - start.tv_sec + (now.tv_nsec - start.tv_nsec) / 1e9 >=
			    o->duration_s)
				break;
		}
		sig = sigtimedwait(&set, NULL, &to);
		if (sig == SIGINT || sig == SIGTERM) {
			if (child > 0)
				kill(-child, sig);
			break;
		}
		if (sig == SIGCHLD && child > 0 && waitpid(child, &status, WNOHANG) == child) {
			child = -1;
			break;
		}
		if (child < 0 && cmd)
			break;
	}
	if (child > 0) {
		kill(-child, SIGTERM);
		waitpid(child, &status, 0);
	}
	r = watch_stop(w, &res);
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (r < 0) {
		cli_error_errno(r, "the watcher failed");
		return 1;
	}
	if (o->json) {
		struct json j;

		json_init(&j, stdout, true);
		json_obj_begin(&j);
		json_kint(&j, "interfered", res.interfered);
		json_kstr(&j, "interference", res.summary);
		json_kuint(&j, "input_devices", res.ndevices);
		json_kuint(&j, "findings", res.counted);
		json_knum(&j, "watcher_cpu_s", res.cpu_s);
		json_kint(&j, "max_rss_kb", res.maxrss_kb);
		json_obj_end(&j);
		json_end(&j);
	}
	fprintf(stderr, "interference: %s\n", cli_shown(res.summary));
	if (res.interfered)
		fprintf(stderr, "!! INTERFERENCE: %s. THIS RUN IS INVALID\n",
			cli_shown(res.summary));
	r = res.interfered ? EXIT_INTERFERED : 0;
	free(res.summary);
	sb_release(&err);
	return r;
}

/* ------------------------------------------------------------- scan */

/* Prints what RUN shows (S) as watch --scan's lines; appends RUN to LIST
 * when it is disturbed. Returns the number of findings. */
static int print_run(const char *run, const struct watchscan_run *s, FILE *list)
{
	for (size_t k = 0; k < s->n; k++) {
		const struct watchscan_finding *f = &s->f[k];

		if (f->from == WATCHSCAN_PROGRAM_LOG)
			printf("! %s: %s line %d matches an interfere_re of [%s]\n", cli_shown(run),
			       rundir_file_name(RUNDIR_LOG), f->line, cli_shown(f->program));
		else
			printf("! %s: %s at %.0f s\n", cli_shown(run), cli_shown(f->what), f->at_s);
	}
	if (!s->times_known)
		printf("# %s: no clock_mono_ns/duration_recorded_s in %s: kernel and Xorg logs not "
		       "checked\n", cli_shown(run), rundir_file_name(RUNDIR_INI));
	if (s->n && list)
		fprintf(list, "%s\n", run);
	printf("%s %s: %zu finding%s\n", s->n ? "!" : "#", cli_shown(run), s->n,
	       s->n == 1 ? "" : "s");
	return (int)s->n;
}

/* watch --scan RUN...: the engine is run/watchscan.h; here the rules file
 * (report's, parsed once), the list --write appends to, and the lines. */
static int watch_scan(struct watch_cmd_opts *o, int n, char **runs)
{
	struct strbuf err = STRBUF_INIT;
	struct watchscan_logs logs;
	struct reload_rules *rules = NULL;
	const char *list_path = o->list ? o->list : "interfered.list", *rules_name;
	FILE *list = NULL;
	int any = 0, failed = 0, r;

	r = analyse_load_rules(o->rules, &rules, &rules_name, &err);
	if (r < 0) {
		cli_error("%s", err.buf);
		sb_release(&err);
		return 1;
	}
	r = watchscan_logs_load(o->dmesg, o->xorg_log, &logs, &err);
	if (r < 0) {
		cli_error("%s", err.buf);
		reload_rules_free(rules);
		sb_release(&err);
		return 1;
	}
	if (logs.kernel_why.len)
		printf("# kernel log not checked: %s\n", cli_shown(logs.kernel_why.buf));
	if (!logs.xorg_found)
		printf("# no Xorg log found: VT switches and input devices not checked there\n");
	if (o->write) {
		/* appended to, never through a link, as the user who ran sudo */
		int fd = sf_open_append(list_path, 0644, sf_invoking_user());

		list = fd >= 0 ? fdopen(fd, "a") : NULL;
		if (!list) {
			int e = fd < 0 ? fd : -errno;

			if (fd >= 0)
				close(fd);
			cli_error("unable to open '%s': %s", list_path,
				  e == -ELOOP	 ? "a symbolic link; give the file itself"
				  : e == -EEXIST ? "not a regular file"
						 : strerror(-e));
			failed = 1;
			goto out;
		}
	}
	for (int i = 0; i < n; i++) {
		struct watchscan_run s;

		r = watchscan_run(runs[i], rules, &logs, &s, &err);
		if (r < 0) {
			cli_error("%s", err.buf);
			failed = 1;
			continue;
		}
		if (print_run(runs[i], &s, list) > 0)
			any = 1;
		watchscan_run_release(&s);
	}
	if (list && fclose(list) != 0) {
		cli_error("unable to write '%s': %s", list_path, strerror(errno));
		failed = 1;
	}
out:
	watchscan_logs_release(&logs);
	reload_rules_free(rules);
	sb_release(&err);
	return failed ? 1 : any ? EXIT_INTERFERED : 0;
}

int cmd_watch(int argc, char **argv)
{
	struct watch_cmd_opts o = { .duration_s = 0 };
	struct opt wt[WATCH_OPTS_N];
	const struct opt opts[] = {
		OPT_STRING(0, "log", &o.g.wo.log_path, "FILE",
			   "append the findings to FILE (default: standard output)"),
		OPT_DOUBLE(0, "duration", &o.duration_s, "S", 0.001, OPT_SECONDS_MAX,
			   "watch S seconds (default: until SIGINT, or CMD ends)"),
		OPT_STRING(0, "rundir", &o.g.wo.rundir, "DIR",
			   "processes with STALLSCOPE_RUN=DIR are the run's"),
		OPT_BOOL(0, "as-root", &o.as_root,
			 "under sudo, run CMD as root (default: as the user\n"
			 "who ran sudo)"),
		OPT_BOOL(0, "json", &o.json, "the verdict as JSON on standard output"),
		OPT_CONCAT(wt),
		OPT_GROUP("scan options:"),
		OPT_BOOL(0, "scan", &o.scan,
			 "look at saved files of RUNDIRs (program.log against\n"
			 "the rules' interfere_re, the kernel log's USB lines\n"
			 "and an Xorg log's VT switches and input devices\n"
			 "within each run's time)"),
		OPT_STRING(0, "rules", &o.rules, "FILE",
			   "the rules file ([program] interfere_re = REGEX;\n"
			   "default: report's reload-rules.ini)"),
		OPT_STRING(0, "dmesg", &o.dmesg, "FILE",
			   "a saved kernel log (default: /dev/kmsg when readable)"),
		OPT_STRING(0, "xorg-log", &o.xorg_log, "FILE", "an Xorg log (default: the usual places)"),
		OPT_BOOL(0, "write", &o.write, "append disturbed runs to the list file"),
		OPT_STRING(0, "list", &o.list, "FILE", "the list file (default: interfered.list)"),
		OPT_END(),
	};
	int first;

	watch_opts_table(wt, &o.g, "what is watched:");
	first = opts_parse(argc, argv, opts, &watch_help, OPTS_STOP_AT_OPERAND);
	if (first < 0)
		return opts_exit(first);
	if (o.scan) {
		if (first == argc)
			return cli_usage_error("--scan needs at least one run directory");
		return watch_scan(&o, argc - first, argv + first);
	}
	if (o.write || o.list)
		return cli_usage_error("--write and --list go with --scan");
	if (first < argc && o.duration_s == 0 && !argv[first][0])
		return cli_usage_error("empty command");
	return watch_live(&o, first < argc ? argv + first : NULL);
}
