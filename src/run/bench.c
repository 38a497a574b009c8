// SPDX-License-Identifier: MIT
/*
 * bench.c: what a bench run needs besides the command's options and output
 * (bench.h): the recipe and helper lookups, the quiet step, a run's
 * directory and record command line, and the window found on its log.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/argsplit.h"
#include "core/file.h"
#include "core/inifmt.h"
#include "core/logstamp.h"
#include "linux/recsys.h"
#include "linux/sched.h"
#include "linux/sysstate.h"
#include "run/bench.h"
#include "run/rundir.h"

#ifndef SS_DATADIR
#define SS_DATADIR "/usr/local/share/stallscope"
#endif
#ifndef SS_LIBEXECDIR
#define SS_LIBEXECDIR "/usr/local/libexec/stallscope"
#endif

/* Finds NAME's recipe when no file was given: $XDG_CONFIG_HOME (or
 * ~/.config)/stallscope/recipes/NAME.ini, then the installed and
 * source-tree share/recipes/NAME.ini. Never the current directory: a
 * recipe runs its command, and the directory bench happens to be started
 * in (a download, a shared /tmp) is not one the user vouched for; a recipe
 * there is taken when named by its path (bench ./NAME.ini). Writes the
 * path into RET and returns 0, or -ENOENT. */
int bench_recipe_find(const char *name, struct strbuf *ret)
{
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	struct strbuf p = STRBUF_INIT;
	int i;

	for (i = 0; i < 3; i++) {
		sb_reset(&p);
		if (i == 0 && xdg && *xdg)
			sb_addf(&p, "%s/stallscope/recipes/%s.ini", xdg, name);
		else if (i == 0 && home && *home)
			sb_addf(&p, "%s/.config/stallscope/recipes/%s.ini", home, name);
		else if (i == 1)
			sb_addf(&p, "%s/recipes/%s.ini", SS_DATADIR, name);
#ifdef SS_SRCDIR
		else if (i == 2)
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
int bench_helper_find(const char *self, const char *name, struct strbuf *ret)
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

void bench_quiet_step(const struct bench_opts *o, volatile sig_atomic_t *stop,
		      struct strbuf *note)
{
	struct sysstate_sample a, b;
	double t0 = sched_now_ns() / 1e9, cpu = 0, io = 0;
	int calm = 0, r;

	sb_reset(note);
	if (o->quiet) {
		r = sysstate_sample(&a);
		while (r == 0) {
			struct timespec ts = { 1, 0 };

			while (nanosleep(&ts, &ts) < 0 && errno == EINTR && !*stop)
				;
			if (*stop || sysstate_sample(&b) < 0)
				break;
			sysstate_busy(&a, &b, 1.0, &cpu, &io);
			a = b;
			calm = cpu < o->quiet_cpu_pct && io < o->quiet_io_mibs ? calm + 1 : 0;
			if (calm >= 2 || sched_now_ns() / 1e9 - t0 >= o->quiet_timeout_s)
				break;
		}
		if (r < 0)
			sb_addf(note, "not checked: %s", strerror(-r));
		else if (calm >= 2)
			sb_addf(note, "settled after %.0f s: CPU %.0f %% busy, disk %.1f MiB/s "
				      "(wanted CPU < %g %%, disk < %g MiB/s for 2 s), load %.2f",
				sched_now_ns() / 1e9 - t0, cpu, io, o->quiet_cpu_pct, o->quiet_io_mibs, b.load1);
		else
			sb_addf(note, "NOT settled after %.0f s (CPU %.0f %% busy, disk %.1f MiB/s; "
				      "wanted CPU < %g %%, disk < %g MiB/s for 2 s): ran anyway",
				sched_now_ns() / 1e9 - t0, cpu, io, o->quiet_cpu_pct, o->quiet_io_mibs);
	}
	if (o->drop_caches) {
		r = sysstate_drop_caches();
		sb_addf(note, "%s%s", note->len ? "; " : "",
			r == 0			    ? "page cache dropped (sync, drop_caches=3)"
			: r == -EACCES || r == -EPERM ? "page cache NOT dropped: needs root"
						      : "page cache NOT dropped");
	}
}

/* A run of V: RESULTS/STAMP-NAME-VARIANT[-rerun][-N] (recsys_new_rundir,
 * as record names its own), made as the sudo user when bench runs as root
 * under sudo (the recorder then takes it: new, empty and theirs). With STAMP "<stamp>" only the name,
 * which --dry-run shows: the run gets the same. 0 or a negative errno. */
int bench_run_dir(const struct bench_opts *o, const struct variant *v, bool rerun,
		   const char *stamp, struct strbuf *ret)
{
	struct strbuf var = STRBUF_INIT;
	struct timespec now;
	char buf[32];
	int r;

	if (!stamp) {
		clock_gettime(CLOCK_REALTIME, &now);
		rundir_stamp(buf, sizeof(buf),
			     (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec, false);
		stamp = buf;
	}
	sb_addf(&var, "%s%s", strcmp(v->name, "-") ? v->name : "base", rerun ? "-rerun" : "");
	r = recsys_new_rundir(o->results, stamp, o->name, var.buf, rundir_user(), ret, NULL);
	sb_release(&var);
	return r;
}

/* Appends "--meta KEY=VALUE" to ARGV. */
static int add_meta(char ***argv, size_t *n, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int add_arg(char ***argv, size_t *n, const char *s)
{
	/* grown by one, NULL-terminated: a command line of tens of words */
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

char **bench_record_argv(const char *self, const struct bench_opts *o, const struct recipe *rc,
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
	if (o->as_root)
		r |= add_arg(&a, &n, "--as-root");
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
	if (v->prefetch == VARIANT_PREFETCH_FETCH) {
		/* the fetch in the background, the program exec'd in its place
		 * (stallscope-prefetch(1)): the pid record follows is the game's */
		r |= add_arg(&a, &n, self);
		r |= add_arg(&a, &n, "prefetch");
		r |= add_arg(&a, &n, "run");
		r |= add_arg(&a, &n, "--");
	}
	for (char **c = cmd; *c; c++)
		r |= add_arg(&a, &n, *c);
	if (r) {
		argsplit_free(a);
		return NULL;
	}
	return a;
}

/* The program log's stamped lines "[S] text": the stamp S of the first line
 * matching RE into *ret_s. Returns 1 (found), 0 (no match), or -1 with WHY
 * set when the matching line carries no stamp or the log cannot be read. */
static int log_find(const struct rundir *rd, const regex_t *re, double *ret_s,
		    struct strbuf *why)
{
	struct strbuf path = STRBUF_INIT, err = STRBUF_INIT;
	char line[4096];
	int lineno = 0, found = 0, fd;
	FILE *f;

	rundir_path(rd, RUNDIR_LOG, &path);
	fd = rundir_open_file(rd, RUNDIR_LOG, NULL, &err);
	f = fd >= 0 ? fdopen(fd, "r") : NULL;
	if (!f) {
		if (fd >= 0) {
			sb_error(&err, -errno, "cannot read '%s'", path.buf);
			close(fd);
		}
		sb_add(why, err.buf, err.len);
		sb_release(&path);
		sb_release(&err);
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
	sb_release(&err);
	return found;
}

/* Appends KEY=VALUE lines to RD's run.ini (a later key wins over an earlier
 * one): rewritten whole (sf_write_atomic: a temporary made O_EXCL, fsync,
 * rename over a regular file only), as record writes it, as the run's user
 * (the sudo user's run). Read through the directory's fd, never through a
 * link, FILE_TEXT_MAX at most. */
static int ini_append(const struct rundir *rd, const struct strbuf *lines)
{
	struct strbuf buf = STRBUF_INIT, err = STRBUF_INIT;
	int r;

	r = rundir_read(rd, RUNDIR_INI, FILE_TEXT_MAX, &buf, &err);
	if (r == 0)
		r = sb_add(&buf, lines->buf, lines->len);
	if (r == 0)
		r = sf_write_atomic(rd->fd, rundir_file_name(RUNDIR_INI), buf.buf, buf.len, 0644,
				    rundir_user(), true);
	sb_release(&buf);
	sb_release(&err);
	return r;
}

int bench_window_from_log(const char *dir, const struct recipe *rc, const struct analysis *a,
			  struct strbuf *warn)
{
	struct strbuf lines = STRBUF_INIT, why = STRBUF_INIT;
	const char *res[2] = { rc->start_re, rc->end_re };
	const char *keys[2] = { "window_from_s", "window_to_s" };
	struct rundir *rd = NULL;
	int changed = 0;

	if (rundir_open(dir, &rd, &why) < 0) {
		sb_addf(warn, "%s; the window is not moved\n", why.buf);
		sb_release(&why);
		return 0;
	}
	for (int i = 0; i < 2; i++) {
		regex_t re;
		double s;
		int r;

		if (!res[i])
			continue;
		if (regcomp(&re, res[i], REG_EXTENDED | REG_NOSUB) != 0) {
			sb_addf(warn, "'%s': %s '%s' is not a regular expression\n", rc->path,
				i ? "window_end_re" : "window_start_re", res[i]);
			continue;
		}
		sb_reset(&why);
		r = log_find(rd, &re, &s, &why);
		regfree(&re);
		if (r == 1 && !isnan(a->m.origin_s)) {
			inifmt_addf(&lines, keys[i], "%.3f", fmax(0, s - a->m.origin_s));
			changed = 1;
		} else {
			if (r == 0)
				sb_addf(&why, "no line of %s matches", rundir_file_name(RUNDIR_LOG));
			sb_addf(warn, "%s: %s: %s; the window is not moved\n", dir,
				i ? "window_end_re" : "window_start_re", why.buf);
		}
	}
	if (changed && ini_append(rd, &lines) < 0) {
		sb_reset(&why);
		sb_adds(&why, "cannot add the window to '");
		rundir_path(rd, RUNDIR_INI, &why);
		sb_addf(warn, "%s'\n", why.buf);
		changed = 0;
	}
	rundir_close(rd);
	sb_release(&lines);
	sb_release(&why);
	return changed;
}
