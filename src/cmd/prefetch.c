// SPDX-License-Identifier: MIT
/*
 * prefetch.c: `stallscope prefetch learn|fetch|run|list|show|forget`: learn
 * what a program reads (its mapped and open files while it runs, then the
 * files of its data directories, each file's resident pages and their place
 * on the disk), and read it back before the program asks, in disk order,
 * within a memory budget, behind the program's own I/O (core/prefetch.h for
 * the arithmetic, linux/prefetch.h for the system, run/fetch.h the fetch,
 * docs/PREFETCH.md).
 *
 * Lists live in $XDG_CACHE_HOME/stallscope/prefetch (else
 * ~/.cache/stallscope/prefetch), one per program, keyed by its executable's
 * real path (a script's: the script), named by its FNV-1a hash; the
 * executable's size and mtime stand for its version.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "opts.h"
#include "cmd/cmd.h"
#include "core/file.h"
#include "core/prefetch.h"
#include "core/runini.h"
#include "db/db.h"
#include "linux/child.h"
#include "linux/prefetch.h"
#include "linux/recsys.h"
#include "linux/safefile.h"
#include "linux/sched.h"
#include "run/fetch.h"

#define LEARN_FOR_S 180.0	/* the program is looked at for this long */
#define MAX_DATA_FILES 50000	/* files taken from its data directories */

static bool as_root;	/* --as-root: under sudo, CMD as root (default: the sudo user) */

static const struct opts_help prefetch_help = {
	"usage: stallscope prefetch learn -- CMD [ARGS...]\n"
	"       stallscope prefetch fetch [options] KEY\n"
	"       stallscope prefetch run [options] -- CMD [ARGS...]\n"
	"       stallscope prefetch list | show KEY | forget KEY\n"
	"\n"
	"learn: runs CMD and looks at the files it has mapped and open (at 1 s, 3 s,\n"
	"then every 10 s for its first 180 s); when it ends, adds the files of its data\n"
	"directories (/usr/share/games/NAME, /usr/share/NAME, ~/.NAME,\n"
	"~/.local/share/NAME, ~/.cache/NAME, ~/.cache/mesa_shader_cache, its working\n"
	"directory), and keeps each file's resident pages as ranges in disk order: the\n"
	"union with the earlier learns (a file resident in none of 3 learns goes).\n"
	"fetch: reads the list back before the program asks: within the budget (pages\n"
	"not resident), in the order the program first used its files, then sorted by\n"
	"disk address, 256 KiB at a time, readahead off, at a low I/O priority and nice\n"
	"10; it stops when memory gets short, on direct reclaim or swapping, after 60 s.\n"
	"run: fetch in the background, then exec CMD (same pid, its exit status).\n"
	"learn exits 0, or 3 when CMD failed (the list is kept), 1 on an error; a\n"
	"SIGINT or SIGTERM goes on to CMD, and the learn ends with it.\n"
	"KEY is the program (its path, or a name looked up in PATH).\n"
	"\n",
	"EXAMPLES\n"
	"  stallscope prefetch learn -- neverball\n"
	"  stallscope prefetch run --mb 256 -- neverball\n"
	"  stallscope prefetch show neverball\n",
};

struct prefetch_opts {
	double mb, reserve_mb;
	const char *io;
};

/* ------------------------------------------------------------- lists */

static int list_dir(struct strbuf *ret)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");

	if (xdg && *xdg)
		return sb_addf(ret, "%s/stallscope/prefetch", xdg);
	if (home && *home)
		return sb_addf(ret, "%s/.cache/stallscope/prefetch", home);
	return -ENOENT;
}

static int list_path(const char *key, struct strbuf *ret)
{
	uint64_t h = 0xcbf29ce484222325ull;

	if (list_dir(ret) < 0)
		return -ENOENT;
	for (const char *p = key; *p; p++)
		h = (h ^ (uint8_t)*p) * 0x100000001b3ull;
	return sb_addf(ret, "/%016llx.list", (unsigned long long)h);
}

/* The program's key: argv0's real path, looked up in PATH when it has no
 * '/'. 0, or -ENOENT said. */
static int resolve_key(const char *argv0, char *key, size_t size)
{
	char buf[PATH_MAX];
	const char *path = getenv("PATH");

	if (strchr(argv0, '/')) {
		if (realpath(argv0, key))
			return 0;
	} else {
		for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
			size_t n = strcspn(p, ":");

			snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, n ? p : ".", argv0);
			if (access(buf, X_OK) == 0 && realpath(buf, key))
				return 0;
			p += n + (p[n] == ':');
		}
	}
	(void)size;
	return cli_error("'%s': no such program", cli_shown(argv0));
}

/* Reads KEY's list into L; -ENOENT when there is none; -EINVAL (said) for a
 * damaged one. */
static int list_load(const char *key, struct prefetch_list *l, struct strbuf *path)
{
	struct strbuf err = STRBUF_INIT;
	int r;

	if (list_path(key, path) < 0)
		return cli_error("no cache directory: neither XDG_CACHE_HOME nor HOME is set");
	r = fetch_list_read(path->buf, l, &err);
	if (r == -EINVAL)
		cli_error("%s", err.buf);
	sb_release(&err);
	return r;
}

static int list_save(const struct prefetch_list *l, const char *path)
{
	struct strbuf sb = STRBUF_INIT, dir = STRBUF_INIT;
	const char *slash = strrchr(path, '/');
	struct sf_user u = sf_invoking_user();
	int r = 0;

	/* its directory (the user's cache) and the list made as the user */
	if (slash && slash > path) {
		r = sb_add(&dir, path, (size_t)(slash - path));
		r = r < 0 ? r : sf_mkdirs(dir.buf, u, NULL, NULL);
	}
	if (!r)
		r = prefetch_list_format(l, &sb);
	if (!r)
		r = sf_write_file(path, sb.buf, sb.len, 0644, u, true);
	sb_release(&sb);
	sb_release(&dir);
	return r < 0 ? cli_error_errno(r, "cannot write '%s'", path) : 0;
}

/* ------------------------------------------------------------- learn */

static void free_paths(char **p)
{
	for (size_t i = 0; p && p[i]; i++)
		free(p[i]);
	free(p);
}

/* The program and what it started: their files, added to PATHS. */
static void look(pid_t pid, char ***paths, size_t *n, struct strbuf *cwd)
{
	int kids[64];
	int nk = recsys_children(pid, kids, 64);

	pfl_proc_files(pid, paths, n, cwd);
	for (int i = 0; i < nk; i++)
		pfl_proc_files(kids[i], paths, n, NULL);
}

static void data_dirs(const char *key, const char *cwd, char ***paths, size_t *n)
{
	char name[NAME_MAX + 1], dir[PATH_MAX], tmp[PATH_MAX];
	const char *home = getenv("HOME");
	/* under /usr/share, then under the home: ~/.NAME, ~/.local/share/NAME,
	 * ~/.cache/NAME */
	const char *const sys[] = { "/usr/share/games/", "/usr/share/" };
	const char *const mine[] = { "/.", "/.local/share/", "/.cache/" };

	snprintf(tmp, sizeof(tmp), "%s", key);
	snprintf(name, sizeof(name), "%s", basename(tmp));
	for (size_t i = 0; i < 2; i++) {
		snprintf(dir, sizeof(dir), "%s%s", sys[i], name);
		pfl_dir_files(dir, MAX_DATA_FILES, paths, n);
	}
	for (size_t i = 0; home && *home && i < 3; i++) {
		snprintf(dir, sizeof(dir), "%s%s%s", home, mine[i], name);
		pfl_dir_files(dir, MAX_DATA_FILES, paths, n);
	}
	if (home && *home) {
		snprintf(dir, sizeof(dir), "%s/.cache/mesa_shader_cache", home);
		pfl_dir_files(dir, MAX_DATA_FILES, paths, n);
	}
	/* its working directory, unless that is everything: / or the home */
	if (cwd && *cwd && strcmp(cwd, "/") && !(home && !strcmp(cwd, home)))
		pfl_dir_files(cwd, MAX_DATA_FILES, paths, n);
}

/* A SIGINT or SIGTERM while learning: passed on to the program, whose end
 * then ends the learn as usual (the list is still written). */
static volatile sig_atomic_t learn_signal;

static void on_learn_signal(int sig)
{
	learn_signal = sig;
}

static double mono_s(void)
{
	return (double)sched_now_ns() / 1e9;
}

static int sub_learn(char **argv)
{
	struct child_spawn sp = CHILD_SPAWN_INIT;
	struct strbuf path = STRBUF_INIT, cwd = STRBUF_INIT;
	struct prefetch_list l = { 0 };
	struct prefetch_file *seen = NULL;
	char key[PATH_MAX], **paths = NULL;
	size_t npaths = 0;
	double t0, next = 1.0;
	int status = 0, r, ret = 1, as_user = 0, stop_sig = 0;
	struct child_cred cred;
	uint64_t resident = 0;
	struct stat st;
	pid_t pid;

	if (resolve_key(argv[0], key, sizeof(key)) < 0 || stat(key, &st) < 0)
		return 1;
	r = list_load(key, &l, &path);
	if (r == -EINVAL) {
		fprintf(stderr, "%s: the list is damaged: learning it anew\n", cli_prog);
		prefetch_list_free(&l);
	} else if (r == 0 && (l.exe_size != (uint64_t)st.st_size || l.exe_mtime != st.st_mtime)) {
		fprintf(stderr, "%s: '%s' changed since its list was learnt: learning it anew\n",
			cli_prog, cli_shown(key));
		prefetch_list_free(&l);
	} else if (r < 0 && r != -ENOENT) {
		goto out;
	}
	if (!l.key && !(l.key = strdup(key)))
		goto out;
	l.exe_size = (uint64_t)st.st_size;
	l.exe_mtime = st.st_mtime;
	/* the program first (its list starts with it), and our working
	 * directory is its, until a look says otherwise (a program that ends
	 * before the first look at 1 s) */
	{
		char here[PATH_MAX];

		if (pfl_add_path(&paths, &npaths, key) < 0 || !getcwd(here, sizeof(here)) ||
		    sb_adds(&cwd, here) < 0)
			goto out;
	}
	sp.argv = argv;
	sp.path_search = true;
	/* under sudo the game is the user's (their uid, groups, home) */
	if (!as_root && (as_user = child_cred_sudo(&cred)) > 0)
		sp.cred = &cred;
	pid = as_user < 0 ? as_user : child_spawn(&sp);
	if (as_user > 0)
		child_cred_release(&cred);
	if (pid < 0) {
		cli_error_errno(pid, "cannot run '%s'", cli_shown(argv[0]));
		goto out;
	}
	{
		struct sigaction sa = { .sa_handler = on_learn_signal };

		sigemptyset(&sa.sa_mask);
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
	}
	t0 = mono_s();
	for (;;) {
		pid_t w = waitpid(pid, &status, WNOHANG);
		double t = mono_s() - t0;

		if (learn_signal) {
			kill(pid, learn_signal);
			if (!stop_sig)
				stop_sig = learn_signal;
			learn_signal = 0;
		}

		if (w == pid || (w < 0 && errno != EINTR))
			break;
		if (t >= next && t < LEARN_FOR_S) {
			look(pid, &paths, &npaths, &cwd);
			next = next < 3.0 ? 3.0 : next + 10.0;
		}
		sched_sleep_until(sched_now_ns() + 50000000ull);
	}
	data_dirs(key, cwd.buf, &paths, &npaths);
	seen = calloc(npaths + 1, sizeof(*seen));
	if (!seen)
		goto out;
	for (size_t i = 0; i < npaths; i++) {
		size_t cap = 0;
		uint64_t size;

		seen[i].path = paths[i];
		if (pfl_file_ranges(paths[i], &seen[i].r, &seen[i].n, &cap, &size) < 0)
			continue;
		for (size_t k = 0; k < seen[i].n; k++)
			resident += seen[i].r[k].len;
	}
	if (prefetch_list_learn(&l, seen, npaths) < 0 || list_save(&l, path.buf) < 0)
		goto out;
	fprintf(stderr, "%s: learnt '%s': %zu files looked at, %.1f MB resident; the list: %zu "
		"files, %.1f MB, %" PRIu32 " learn%s ('%s')\n", cli_prog, cli_shown(key), npaths,
		resident / 1048576.0, l.n, fetch_listed_bytes(&l) / 1048576.0, l.learns,
		l.learns == 1 ? "" : "s", cli_shown(path.buf));
	/* as record: 3 when the program failed (the list is kept all the same);
	 * how it ended after a stop we passed on is its answer, not a failure */
	{
		struct strbuf why = STRBUF_INIT;
		const char *ss = stop_sig ? sigabbrev_np(stop_sig) ?: "?" : NULL;
		const char *sig = WIFSIGNALED(status) ? sigabbrev_np(WTERMSIG(status)) ?: "?" : NULL;

		ret = runini_end_judge(ss, WIFEXITED(status) ? WEXITSTATUS(status) : NAN, sig, &why)
			      == RUNINI_END_FAILED ? 3 : 0;
		sb_release(&why);
	}
	if (ret)
		fprintf(stderr, "%s: '%s' %s %d\n", cli_prog, cli_shown(argv[0]),
			WIFEXITED(status) ? "exited with status" : "was killed by signal",
			WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
out:
	for (size_t i = 0; seen && i < npaths; i++)
		free(seen[i].r);
	free(seen);
	free_paths(paths);
	prefetch_list_free(&l);
	sb_release(&path);
	sb_release(&cwd);
	return ret;
}

/* ------------------------------------------------------------- fetch */

/* Reads KEY's list back (run/fetch.h); WATCH: the program's pid (run), 0
 * none. 0, or 1 after an error message. */
static int fetch(const char *key, const struct prefetch_opts *o, pid_t watch)
{
	struct fetch_opts fo = { .mb = o->mb, .reserve_mb = o->reserve_mb, .io = o->io,
				 .watch = watch };
	struct strbuf path = STRBUF_INIT, err = STRBUF_INIT;
	struct prefetch_list l = { 0 };
	struct fetch_result res;
	int r;

	r = list_load(key, &l, &path);
	if (r == -ENOENT)
		cli_error("no prefetch list for '%s': 'stallscope prefetch learn -- %s' makes one",
			  cli_shown(key), cli_shown(key));
	if (r == 0 && fetch_run(key, &l, &fo, &res, &err) < 0)
		r = cli_error("%s", cli_shown(err.buf));
	if (r == 0 && res.prio_err < 0)
		cli_warn("cannot lower the fetch's priority (%s): %s", o->io, strerror(-res.prio_err));
	if (r == 0)
		fprintf(stderr, "%s: read %.1f MB from %zu files in %.2f s (%.1f MB already "
			"resident; budget %.1f MB of %.1f MB listed; %ld reads, %s), stopped: %s\n",
			cli_prog, res.got / 1048576.0, res.files, res.seconds,
			res.already / 1048576.0, res.budget / 1048576.0, res.listed / 1048576.0,
			res.reads, o->io, prefetch_stop_name(res.why));
	prefetch_list_free(&l);
	sb_release(&path);
	sb_release(&err);
	return r < 0 ? 1 : 0;
}

/* run: the fetch in a child of its own session, the program exec'd here
 * (same pid, its exit status). */
static int sub_run(char **argv, const struct prefetch_opts *o)
{
	char key[PATH_MAX];
	pid_t self = getpid(), pid;

	if (resolve_key(argv[0], key, sizeof(key)) < 0)
		return 1;
	pid = fork();
	if (pid < 0)
		return cli_error_errno(-errno, "fork");
	if (pid == 0) {
		setsid();
		_exit(fetch(key, o, self) ? 1 : 0);
	}
	/* the fetch keeps root (to read what the user may not); the program is
	 * the user's under sudo */
	if (!as_root) {
		struct child_cred cred;
		int r = child_cred_sudo(&cred);

		if (r > 0) {
			int e = child_drop(&cred);

			r = e < 0 ? e : 1;
			child_cred_release(&cred);
		}
		if (r < 0) {
			cli_error_errno(r, "cannot become the user who ran sudo; --as-root runs "
					"'%s' as root", argv[0]);
			kill(pid, SIGTERM);
			return 127;
		}
	}
	execvp(argv[0], argv);
	cli_error_errno(-errno, "cannot run '%s'", cli_shown(argv[0]));
	kill(pid, SIGTERM);
	return 127;
}

/* ------------------------------------------------------- list, show */

static int sub_list(void)
{
	struct strbuf dir = STRBUF_INIT;
	char **paths = NULL;
	size_t np = 0;
	int n = 0;

	if (list_dir(&dir) < 0)
		return cli_error("no cache directory: neither XDG_CACHE_HOME nor HOME is set");
	printf("%-8s %-7s %10s  %s\n", "learns", "files", "listed_MB", "program");
	pfl_dir_files(dir.buf, 100000, &paths, &np);
	for (size_t i = 0; i < np; i++) {
		struct prefetch_list l = { 0 };
		struct strbuf err = STRBUF_INIT;
		int r = fetch_list_read(paths[i], &l, &err);

		if (r == 0) {
			printf("%-8" PRIu32 " %-7zu %10.1f  %s\n", l.learns, l.n,
			       fetch_listed_bytes(&l) / 1048576.0, cli_shown(l.key));
			n++;
		} else if (r == -EINVAL) {
			printf("%-8s %-7s %10s  (damaged: %s)\n", "-", "-", "-",
			       cli_shown(err.buf));
		}
		prefetch_list_free(&l);
		sb_release(&err);
	}
	free_paths(paths);
	if (!n)
		printf("(no lists in '%s')\n", cli_shown(dir.buf));
	sb_release(&dir);
	return 0;
}

static int sub_show(const char *name, bool forget)
{
	struct strbuf path = STRBUF_INIT;
	struct prefetch_list l = { 0 };
	char key[PATH_MAX];
	int r;

	if (resolve_key(name, key, sizeof(key)) < 0)
		return 1;
	r = list_load(key, &l, &path);
	if (r == -ENOENT) {
		cli_error("no prefetch list for '%s'", cli_shown(key));
		goto out;
	}
	if (forget) {
		if (unlink(path.buf) < 0) {
			r = cli_error_errno(-errno, "cannot remove '%s'", cli_shown(path.buf));
			goto out;
		}
		printf("forgot '%s' ('%s')\n", cli_shown(key), cli_shown(path.buf));
		r = 0;
		goto out;
	}
	if (r < 0)
		goto out;
	printf("program:  %s (%" PRIu64 " bytes, mtime %" PRId64 ")\nlist:     %s\nlearns:   %" PRIu32
	       "\nfiles:    %zu, %.1f MB\n", cli_shown(l.key), l.exe_size, l.exe_mtime,
	       cli_shown(path.buf), l.learns, l.n, fetch_listed_bytes(&l) / 1048576.0);
	for (size_t i = 0; i < l.n; i++) {
		uint64_t b = 0;

		for (size_t k = 0; k < l.f[i].n; k++)
			b += l.f[i].r[k].len;
		printf("  %4" PRIu32 " %10.1f KB %zu range%s  %s%s\n", l.f[i].order, b / 1024.0,
		       l.f[i].n, l.f[i].n == 1 ? " " : "s", cli_shown(l.f[i].path),
		       l.f[i].misses ? " (missed)" : "");
	}
out:
	prefetch_list_free(&l);
	sb_release(&path);
	return r < 0 ? 1 : 0;
}

/* --io CLASS */
static int take_io(const struct opt *opt, const char *arg)
{
	if (pfl_ioprio(arg) < 0)
		return opts_error("option '--io': expected be0..be7 or idle, got '%s'", arg);
	*(const char **)opt->value = arg;
	return 0;
}

int cmd_prefetch(int argc, char **argv)
{
	struct prefetch_opts o = { .mb = 64, .reserve_mb = 48, .io = "be7" };
	const struct opt opts[] = {
		OPT_DOUBLE(0, "mb", &o.mb, "N", 0, 1 << 20,
			   "fetch at most N MB not resident (default 64)"),
		OPT_DOUBLE(0, "reserve-mb", &o.reserve_mb, "N", 0, 1 << 20,
			   "leave MemAvailable at least N MB (default 48)"),
		OPT_CALLBACK(0, "io", &o.io, "CLASS",
			     "the fetch's I/O priority: be0..be7 (default be7) or idle", take_io),
		OPT_BOOL(0, "as-root", &as_root,
			 "under sudo, run CMD as root (default: as the user who ran\n"
			 "sudo; the fetch keeps root)"),
		OPT_END(),
	};
	const char *sub;
	int optind;

	if (argc < 2)
		return cli_usage_error("expected learn, fetch, run, list, show or forget");
	sub = argv[1];
	if (!strcmp(sub, "-h") || !strcmp(sub, "--help") || !strcmp(sub, "--list-options")) {
		if (sub[2] == 'l')
			opts_list(stdout, opts);
		else
			opts_usage(stdout, opts, &prefetch_help);
		return 0;
	}
	/* the subcommand is argv[0] of its options */
	optind = opts_parse(argc - 1, argv + 1, opts, &prefetch_help, OPTS_STOP_AT_OPERAND);
	if (optind < 0)
		return opts_exit(optind);
	optind++;
	if (!strcmp(sub, "learn") || !strcmp(sub, "run")) {
		if (optind >= argc)
			return cli_usage_error("%s: expected -- CMD", sub);
		return !strcmp(sub, "learn") ? sub_learn(argv + optind) : sub_run(argv + optind, &o);
	}
	if (!strcmp(sub, "list"))
		return optind < argc ? cli_usage_error("list: unexpected '%s'", argv[optind])
				     : sub_list();
	if (!strcmp(sub, "fetch") || !strcmp(sub, "show") || !strcmp(sub, "forget")) {
		char key[PATH_MAX];

		if (argc - optind != 1)
			return cli_usage_error("%s: expected one KEY (the program)", sub);
		if (!strcmp(sub, "fetch"))
			return resolve_key(argv[optind], key, sizeof(key)) < 0 ? 1 : fetch(key, &o, 0);
		return sub_show(argv[optind], !strcmp(sub, "forget"));
	}
	return cli_usage_error("unknown subcommand '%s' (expected learn, fetch, run, list, show or "
			       "forget)", sub);
}
