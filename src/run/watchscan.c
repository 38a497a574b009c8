// SPDX-License-Identifier: MIT
/*
 * watchscan.c: watch --scan's engine (watchscan.h). The logs are read once
 * for all runs; each run's run.ini and program log through the run
 * directory's owner (run/rundir.h); the rules file is the reload rules'
 * (core/reload.h, parsed once by the caller), whose interfere_re lines
 * were checked there. Lines are matched up to 1023 bytes, as they were
 * when this lived in the command.
 */
#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/file.h"
#include "core/grow.h"
#include "core/logstamp.h"
#include "core/runini.h"
#include "core/watchrules.h"
#include "linux/watch.h"
#include "run/rundir.h"
#include "run/watchscan.h"

/* ------------------------------------------------------------- the logs */

int watchscan_logs_load(const char *dmesg, const char *xorg, struct watchscan_logs *ret,
			struct strbuf *err)
{
	/* a rootless X server's, then the system's */
	static const char *const xorg_logs[] = { ".local/share/xorg/Xorg.0.log",
						 "/var/log/Xorg.0.log" };
	struct strbuf p = STRBUF_INIT;
	int r;

	memset(ret, 0, sizeof(*ret));
	sb_init(&ret->kernel);
	sb_init(&ret->kernel_why);
	sb_init(&ret->xorg);
	if (dmesg)
		r = file_read_text(dmesg, NULL, FILE_LOG_MAX, &ret->kernel, &ret->kernel_why);
	else
		r = watch_kmsg_dump(NULL, &ret->kernel, &ret->kernel_why);
	if (r < 0)
		sb_reset(&ret->kernel);
	if (xorg) {
		r = file_read_text(xorg, NULL, FILE_LOG_MAX, &ret->xorg, err);
		if (r < 0) {
			watchscan_logs_release(ret);
			return r;
		}
		ret->xorg_found = true;
		return 0;
	}
	for (size_t i = 0; i < sizeof(xorg_logs) / sizeof(xorg_logs[0]) && !ret->xorg_found; i++) {
		const char *home = getenv("HOME");

		sb_reset(&p);
		sb_reset(&ret->xorg);
		if ((xorg_logs[i][0] == '/' ? sb_adds(&p, xorg_logs[i])
					    : sb_add_path(&p, home ? home : "", xorg_logs[i])) < 0) {
			sb_release(&p);
			watchscan_logs_release(ret);
			return sb_error(err, -ENOMEM, "the X server's log");
		}
		ret->xorg_found = file_read_text(p.buf, NULL, FILE_LOG_MAX, &ret->xorg, NULL) == 0;
	}
	if (!ret->xorg_found)
		sb_reset(&ret->xorg);
	sb_release(&p);
	return 0;
}

void watchscan_logs_release(struct watchscan_logs *l)
{
	sb_release(&l->kernel);
	sb_release(&l->kernel_why);
	sb_release(&l->xorg);
	l->xorg_found = false;
}

/* ------------------------------------------------------------- one run */

void watchscan_run_release(struct watchscan_run *r)
{
	free(r->f);
	memset(r, 0, sizeof(*r));
}

/* A new finding of R, zeroed, or NULL (out of memory). */
static struct watchscan_finding *add(struct watchscan_run *r, enum watchscan_from from)
{
	struct watchscan_finding *f;

	if (ARRAY_GROW(r->f, r->alloc, r->n + 1) < 0)
		return NULL;
	f = &r->f[r->n++];
	memset(f, 0, sizeof(*f));
	f->from = from;
	return f;
}

/* The next line of *P (NUL-terminated text) into LINE (cut at its size);
 * false at the end. */
static bool next_line(const char **p, char *line, size_t size)
{
	size_t l;

	if (!**p)
		return false;
	l = strcspn(*p, "\n");
	snprintf(line, size, "%.*s", (int)(l < size - 1 ? l : size - 1), *p);
	*p += l + ((*p)[l] == '\n');
	return true;
}

typedef int (*line_fn)(const char *line, double *t, char *what, size_t len);

/* The findings of LOG (FN says which lines are) stamped within [T0, T1]
 * (CLOCK_MONOTONIC seconds) into R. 0 or -ENOMEM. */
static int scan_log(const char *log, line_fn fn, enum watchscan_from from, double t0, double t1,
		    struct watchscan_run *r)
{
	char line[1024], what[200];

	while (next_line(&log, line, sizeof(line))) {
		struct watchscan_finding *f;
		double t;

		if (fn(line, &t, what, sizeof(what)) != 1 || t < t0 || t > t1)
			continue;
		if (!(f = add(r, from)))
			return -ENOMEM;
		f->at_s = t - t0;
		snprintf(f->what, sizeof(f->what), "%s", what);
	}
	return 0;
}

/* The program log of RD against the interfere_re of PROGRAM in RULES. */
static int scan_program_log(const struct rundir *rd, const struct reload_rules *rules,
			    const char *program, struct watchscan_run *ret, struct strbuf *err)
{
	struct strbuf log = STRBUF_INIT;
	const struct reload_interfere **in = NULL;
	regex_t *re = NULL;
	size_t n = 0;
	const char *p;
	char line[1024];
	int r = 0, lineno = 0;

	for (size_t i = 0; rules && i < rules->ninterfere; i++)
		n += !strcmp(rules->interfere[i].program, program);
	if (!n)
		return 0;
	in = calloc(n, sizeof(*in));
	re = calloc(n, sizeof(*re));
	if (!in || !re) {
		r = sb_error(err, -ENOMEM, "'%s'", rd->path);
		n = 0;
		goto out;
	}
	n = 0;
	for (size_t i = 0; i < rules->ninterfere; i++) {
		if (strcmp(rules->interfere[i].program, program))
			continue;
		if (regcomp(&re[n], rules->interfere[i].re, REG_EXTENDED | REG_NOSUB)) {
			r = sb_error(err, -EINVAL, "[%s] interfere_re: not a valid regular "
				     "expression: '%s'", program, rules->interfere[i].re);
			goto out;
		}
		in[n++] = &rules->interfere[i];
	}
	r = rundir_read(rd, RUNDIR_LOG, FILE_LOG_MAX, &log, err);
	if (r == -ENOENT) {
		r = 0;		/* a run with no output: nothing to match */
		goto out;
	}
	if (r < 0)
		goto out;
	p = log.buf;
	while (next_line(&p, line, sizeof(line))) {
		size_t off;
		double t;

		lineno++;
		/* as the program wrote it, without record's "[S] " stamp */
		logstamp_parse(line, strlen(line), &t, &off);
		for (size_t k = 0; k < n; k++) {
			struct watchscan_finding *f;

			if (regexec(&re[k], line + off, 0, NULL, 0) != 0)
				continue;
			if (!(f = add(ret, WATCHSCAN_PROGRAM_LOG))) {
				r = sb_error(err, -ENOMEM, "'%s'", rd->path);
				goto out;
			}
			f->line = lineno;
			f->program = in[k]->program;
			break;
		}
	}
out:
	for (size_t k = 0; k < n; k++)
		regfree(&re[k]);
	free(re);
	free(in);
	sb_release(&log);
	return r;
}

int watchscan_run(const char *run, const struct reload_rules *rules,
		  const struct watchscan_logs *logs, struct watchscan_run *ret, struct strbuf *err)
{
	struct rundir *rd = NULL;
	struct strbuf why = STRBUF_INIT;
	struct runini *ini = NULL;
	const char *program;
	double mono, dur;
	int r;

	memset(ret, 0, sizeof(*ret));
	r = rundir_open(run, &rd, err);
	if (r == 0)
		r = rundir_ini(rd, &ini, NULL, NULL, err);
	if (r < 0)
		goto out;
	/* program-log patterns: actions a scripted demo never makes */
	program = runini_get(ini, "program");
	if (program && *program) {
		const char *base = strrchr(program, '/');

		r = scan_program_log(rd, rules, base ? base + 1 : program, ret, err);
		if (r < 0)
			goto out;
	}
	/* a key that is not a number leaves the time unknown, said as absent */
	ret->times_known = runini_get_double(ini, run, "clock_mono_ns", &mono, &why) == 0 &&
			   runini_get_double(ini, run, "duration_recorded_s", &dur, &why) == 0;
	if (ret->times_known) {
		double t0 = mono / 1e9, t1 = t0 + dur;

		r = scan_log(logs->kernel.buf, watch_scan_kernel_line, WATCHSCAN_KERNEL, t0, t1, ret);
		if (r == 0)
			r = scan_log(logs->xorg.buf, watch_scan_xorg_line, WATCHSCAN_XORG, t0, t1,
				     ret);
		if (r < 0)
			sb_error(err, r, "'%s'", run);
	}
out:
	if (r < 0)
		watchscan_run_release(ret);
	runini_free(ini);
	rundir_close(rd);
	sb_release(&why);
	return r;
}
