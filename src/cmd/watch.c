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
#include <fcntl.h>
#include <ini.h>
#include <regex.h>
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
#include "core/file.h"
#include "core/logstamp.h"
#include "core/strbuf.h"
#include "core/watchrules.h"

#ifndef SS_DATADIR
#define SS_DATADIR "/usr/local/share/stallscope"
#endif
#include "linux/child.h"
#include "linux/safefile.h"
#include "linux/watch.h"
#include "out/json.h"

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

struct rule_ctx {
	const char *program;
	regex_t re[8];
	int n;
	struct strbuf err;
};

static int rule_handler(void *user, const char *section, const char *name, const char *value)
{
	struct rule_ctx *c = user;

	if (strcmp(section, c->program) || strcmp(name, "interfere_re"))
		return 1;
	if (c->n == 8)
		return 1;
	if (regcomp(&c->re[c->n], value, REG_EXTENDED | REG_NOSUB)) {
		sb_addf(&c->err, "[%s] interfere_re: not a valid regular expression: '%s'",
			section, value);
		return 0;
	}
	c->n++;
	return 1;
}

/* run.ini's value of KEY into BUF ("" when absent). */
static void ini_value(const char *ini, const char *key, char *buf, size_t len)
{
	size_t kl = strlen(key);
	const char *p = ini;

	buf[0] = '\0';
	while (p && *p) {
		if (!strncmp(p, key, kl) && p[kl] == '=') {
			p += kl + 1;
			snprintf(buf, len, "%.*s", (int)strcspn(p, "\n"), p);
			return;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
}

/* PATH whole into SB, MAX bytes at most (core/file.h: a regular file, the
 * open never blocking); 0 or a negative errno with the message in ERR. */
static int slurp(const char *path, size_t max, struct strbuf *sb, struct strbuf *err)
{
	return file_read_text(path, NULL, max, sb, err);
}

/* The kernel's log from its start: a saved file, else /dev/kmsg read to its
 * end without blocking. 0, or a negative errno with the message in ERR. */
static int kernel_log(const char *path, struct strbuf *sb, struct strbuf *err)
{
	char rec[8192];
	ssize_t n;
	int fd;

	if (path)
		return slurp(path, FILE_LOG_MAX, sb, err);
	fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return sb_error(err, -errno, "/dev/kmsg");
	while ((n = read(fd, rec, sizeof(rec))) > 0 || (n < 0 && errno == EPIPE))
		if (n > 0)
			sb_add(sb, rec, (size_t)n);
	close(fd);
	return 0;
}

/* LINE without record's "[S] " stamp (core/logstamp.h), so that rules match
 * the text as the program wrote it, as report's reload rules do; an
 * unstamped line (a log saved elsewhere) as it is. */
static const char *unstamped(const char *line)
{
	size_t off;
	double t;

	logstamp_parse(line, strlen(line), &t, &off);
	return line + off;
}

typedef int (*line_fn)(const char *line, double *t, char *what, size_t len);

/* Findings of LOG whose stamps fall in [T0, T1] (CLOCK_MONOTONIC seconds). */
static int scan_log(const char *log, line_fn fn, double t0, double t1, const char *run,
		    FILE *out)
{
	const char *p = log;
	char line[1024], what[200];
	int found = 0;

	while (p && *p) {
		size_t l = strcspn(p, "\n");
		double t;

		snprintf(line, sizeof(line), "%.*s", (int)(l < sizeof(line) - 1 ? l : sizeof(line) - 1), p);
		if (fn(line, &t, what, sizeof(what)) == 1 && t >= t0 && t <= t1) {
			fprintf(out, "! %s: %s at %.0f s\n", cli_shown(run), cli_shown(what),
				t - t0);
			found++;
		}
		p += l + (p[l] == '\n');
	}
	return found;
}

static int scan_run(struct watch_cmd_opts *o, const char *run, const struct strbuf *klog,
		    const struct strbuf *xlog, FILE *list)
{
	struct strbuf ini = STRBUF_INIT, plog = STRBUF_INIT, path = STRBUF_INIT;
	struct strbuf rules = STRBUF_INIT, err = STRBUF_INIT;
	struct rule_ctx rc = { 0 };
	char program[256], mono[64], dur[64];
	int found = 0, r;

	sb_addf(&path, "%s/run.ini", run);
	r = slurp(path.buf, FILE_TEXT_MAX, &ini, &err);
	if (r < 0) {
		cli_error("%s", err.buf);
		sb_release(&path);
		sb_release(&ini);
		sb_release(&err);
		return -1;
	}
	ini_value(ini.buf, "program", program, sizeof(program));
	ini_value(ini.buf, "clock_mono_ns", mono, sizeof(mono));
	ini_value(ini.buf, "duration_recorded_s", dur, sizeof(dur));

	/* program-log patterns: actions a scripted demo never makes */
	if (o->rules && program[0]) {
		char *base = strrchr(program, '/');

		sb_init(&rc.err);
		rc.program = base ? base + 1 : program;
		r = file_read_text(o->rules, "the rules file", FILE_TEXT_MAX, &rules, &err);
		if (r < 0) {
			cli_error("%s", err.buf);
			found = -1;
			goto out;
		}
		r = ini_parse_string(rules.buf, rule_handler, &rc);
		if (r != 0) {
			if (r > 0)
				cli_error("'%s' line %d: %s", o->rules, r,
					  rc.err.len ? rc.err.buf : "expected 'key = value' or '[section]'");
			else
				cli_error_errno(-ENOMEM, "'%s'", o->rules);
			found = -1;
			goto out;
		}
		sb_reset(&path);
		sb_addf(&path, "%s/program.log", run);
		if (rc.n && slurp(path.buf, FILE_LOG_MAX, &plog, NULL) == 0) {
			const char *p = plog.buf;
			char line[1024];
			int lineno = 0;

			while (*p) {
				size_t l = strcspn(p, "\n");

				lineno++;
				snprintf(line, sizeof(line), "%.*s",
					 (int)(l < sizeof(line) - 1 ? l : sizeof(line) - 1), p);
				for (int i = 0; i < rc.n; i++) {
					if (regexec(&rc.re[i], unstamped(line), 0, NULL, 0) == 0) {
						printf("! %s: program.log line %d matches an interfere_re of [%s]\n",
						       cli_shown(run), lineno,
						       cli_shown(rc.program));
						found++;
						break;
					}
				}
				p += l + (p[l] == '\n');
			}
		}
	}
	if (mono[0] && dur[0]) {
		double t0 = strtod(mono, NULL) / 1e9, t1 = t0 + strtod(dur, NULL);

		if (klog->len)
			found += scan_log(klog->buf, watch_scan_kernel_line, t0, t1, run, stdout);
		if (xlog->len)
			found += scan_log(xlog->buf, watch_scan_xorg_line, t0, t1, run, stdout);
	} else {
		printf("# %s: no clock_mono_ns/duration_recorded_s in run.ini: kernel and Xorg logs not checked\n",
		       cli_shown(run));
	}
	if (found > 0 && list)
		fprintf(list, "%s\n", run);
	printf("%s %s: %d finding%s\n", found > 0 ? "!" : "#", cli_shown(run), found,
	       found == 1 ? "" : "s");
out:
	for (int i = 0; i < rc.n; i++)
		regfree(&rc.re[i]);
	sb_release(&rc.err);
	sb_release(&ini);
	sb_release(&plog);
	sb_release(&path);
	sb_release(&rules);
	sb_release(&err);
	return found;
}

/* The rules file report reads by default (src/cmd/analyse.c), or NULL. */
static const char *default_rules(void)
{
	static const char *const paths[] = {
		SS_DATADIR "/reload-rules.ini",
#ifdef SS_SRCDIR
		SS_SRCDIR "/share/reload-rules.ini",
#endif
	};

	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
		if (access(paths[i], R_OK) == 0)
			return paths[i];
	return NULL;
}

static int watch_scan(struct watch_cmd_opts *o, int n, char **runs)
{
	struct strbuf klog = STRBUF_INIT, xlog = STRBUF_INIT, kerr = STRBUF_INIT;
	const char *list_path = o->list ? o->list : "interfered.list";
	FILE *list = NULL;
	int any = 0, failed = 0, r;

	r = kernel_log(o->dmesg, &klog, &kerr);
	if (r < 0)
		printf("# kernel log not checked: %s\n", cli_shown(kerr.buf));
	sb_release(&kerr);
	if (o->xorg_log) {
		struct strbuf err = STRBUF_INIT;

		r = slurp(o->xorg_log, FILE_LOG_MAX, &xlog, &err);
		if (r < 0) {
			cli_error("%s", err.buf);
			sb_release(&err);
			sb_release(&klog);
			sb_release(&xlog);
			return 1;
		}
	} else {
		const char *home = getenv("HOME");
		char p[512];

		snprintf(p, sizeof(p), "%s/.local/share/xorg/Xorg.0.log", home ? home : "");
		if (slurp(p, FILE_LOG_MAX, &xlog, NULL) < 0 &&
		    slurp("/var/log/Xorg.0.log", FILE_LOG_MAX, &xlog, NULL) < 0)
			printf("# no Xorg log found: VT switches and input devices not checked there\n");
	}
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
			return 1;
		}
	}
	for (int i = 0; i < n; i++) {
		r = scan_run(o, runs[i], &klog, &xlog, list);
		if (r < 0)
			failed = 1;
		else if (r > 0)
			any = 1;
	}
	if (list && fclose(list) != 0) {
		cli_error("unable to write '%s': %s", list_path, strerror(errno));
		failed = 1;
	}
	sb_release(&klog);
	sb_release(&xlog);
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
		if (!o.rules)
			o.rules = default_rules();
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
