// SPDX-License-Identifier: MIT
/*
 * rundir.c: rundir.h. The directories are made through src/linux's recsys
 * and safefile (made under their parent's fd, as the invoking user); this
 * file holds the policy: the names, the owner, which existing directory is
 * taken, the refusal to record over a run, where the files grow.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "linux/recsys.h"
#include "run/rundir.h"

#define NSEC 1000000000ull

struct sf_user rundir_user(void)
{
	return sf_invoking_user();
}

void rundir_stamp(char *buf, size_t size, uint64_t real_ns, bool usec)
{
	time_t t = (time_t)(real_ns / NSEC);
	struct tm tm;

	gmtime_r(&t, &tm);
	if (usec) {
		char s[32];

		strftime(s, sizeof(s), "%Y-%m-%dT%H:%M:%S", &tm);
		snprintf(buf, size, "%s.%06uZ", s, (unsigned)(real_ns % NSEC / 1000));
	} else {
		strftime(buf, size, "%Y%m%dT%H%M%SZ", &tm);
	}
}

bool rundir_holds_run(const char *dir)
{
	struct strbuf p = STRBUF_INIT;
	bool yes;

	sb_add_path(&p, dir, "record.ssr");
	yes = access(p.buf, F_OK) == 0;
	sb_reset(&p);
	sb_add_path(&p, dir, "run.ini");
	yes = yes || access(p.buf, F_OK) == 0;
	sb_release(&p);
	return yes;
}

/* Splits PATH (trailing slashes dropped) into its directory and its last
 * component: "a/b/" into "a" and "b", "b" into "." and "b". */
static int split_path(const char *path, struct strbuf *dir, struct strbuf *base)
{
	size_t n = strlen(path);
	const char *slash;

	while (n > 1 && path[n - 1] == '/')
		n--;
	slash = memrchr(path, '/', n);
	if (!slash)
		return sb_adds(dir, ".") < 0 || sb_add(base, path, n) < 0 ? -ENOMEM : 0;
	if (sb_add(dir, path, slash == path ? 1 : (size_t)(slash - path)) < 0 ||
	    sb_add(base, slash + 1, n - (size_t)(slash + 1 - path)) < 0)
		return -ENOMEM;
	return 0;
}

/* OUTDIR, which exists: taken when sf_dir_adopt says so and it holds no run. */
static int adopt(const char *outdir, struct sf_user u, int *ret_fd, struct strbuf *err)
{
	int r = sf_dir_adopt(outdir, u, ret_fd);

	if (r == -ELOOP)
		return sb_error(err, r, "'%s' is a symbolic link; as root, record writes only into "
				"the directory itself (give its real path)", outdir);
	if (r == -EPERM)
		return sb_error(err, r, "'%s' belongs to another user; as root, record writes only "
				"into a directory of root's or of the user who ran sudo", outdir);
	if (r == -ENOTEMPTY && !rundir_holds_run(outdir))
		return sb_error(err, r, "'%s' is not empty; as root, record writes only into a "
				"new or empty directory", outdir);
	if (r < 0 && r != -ENOTEMPTY)
		return r;	/* the caller says it */
	if (r == -ENOTEMPTY || rundir_holds_run(outdir)) {
		if (r == 0)
			close(*ret_fd);
		sb_error(err, 0, "'%s' already holds a run; choose another directory with -o",
			 outdir);
		return -EEXIST;
	}
	return 0;
}

int rundir_create(const char *outdir, const char *program, uint64_t real_ns, struct sf_user u,
		  struct strbuf *path, struct strbuf *made, int *ret_fd, struct strbuf *err)
{
	struct strbuf top = STRBUF_INIT, dir = STRBUF_INIT, base = STRBUF_INIT;
	char stamp[32];
	int r, pfd = -1;

	sb_reset(path);
	if (!outdir) {
		rundir_stamp(stamp, sizeof(stamp), real_ns, false);
		r = recsys_new_rundir("runs", stamp, program, NULL, u, path, ret_fd);
		if (r < 0)
			return sb_error(err, r, "cannot create a run directory under 'runs'");
		return 0;
	}
	r = adopt(outdir, u, ret_fd, err);
	if (r != -ENOENT)
		goto out;
	/* a new one: its parents (as the user), then it, made by us under
	 * the parent's fd; one that appeared meanwhile is adopted or refused */
	r = split_path(outdir, &dir, &base);
	if (r == 0)
		r = sf_mkdirs(dir.buf, u, &top, &pfd);
	if (r == 0) {
		r = sf_mkdir(pfd, base.buf, u, ret_fd);
		if (r == -EEXIST)
			r = adopt(outdir, u, ret_fd, err);
		close(pfd);
	}
	/* never a tree of new directories in silence (a typo in -o) */
	if (r == 0 && made && top.len)
		sb_adds(made, top.buf);
out:
	if (r < 0 && !err->len)
		sb_error(err, r, "cannot create run directory '%s'", outdir);
	if (r == 0 && sb_adds(path, outdir) < 0) {
		close(*ret_fd);
		r = sb_error(err, -ENOMEM, "'%s'", outdir);
	}
	sb_release(&top);
	sb_release(&dir);
	sb_release(&base);
	return r;
}

int rundir_tmp_open(int run_fd, const char *dir, const char *stamp, struct rundir_tmp *t)
{
	struct stat st;
	char rnd[9];

	memset(t, 0, sizeof(*t));
	t->dirfd = -1;
	if (stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) && access("/dev/shm", W_OK) == 0)
		t->dirfd = open("/dev/shm", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (t->dirfd >= 0) {
		sf_random(rnd);
		snprintf(t->dir, sizeof(t->dir), "/dev/shm");
		snprintf(t->base, sizeof(t->base), "stallscope-%d-%s-%s", (int)getpid(), stamp, rnd);
		return 0;
	}
	t->in_place = true;
	t->dirfd = dup(run_fd);
	if (t->dirfd < 0)
		return -errno;
	if (snprintf(t->dir, sizeof(t->dir), "%s", dir) >= (int)sizeof(t->dir)) {
		rundir_tmp_close(t);
		return -ENAMETOOLONG;
	}
	return 0;
}

void rundir_tmp_close(struct rundir_tmp *t)
{
	if (t->dirfd >= 0)
		close(t->dirfd);
	t->dirfd = -1;
}

void rundir_tmp_name(const struct rundir_tmp *t, const char *ext, char *buf, size_t size)
{
	static const struct {
		const char *ext, *name;
	} in_place[] = {
		{ "ssr", "record.ssr" },
		{ "log", "program.log" },
		{ "out", "program.out" },
	};

	if (!t->in_place) {
		snprintf(buf, size, "%s.%s", t->base, ext);
		return;
	}
	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(in_place) / sizeof(in_place[0]); i++)
		if (!strcmp(ext, in_place[i].ext))
			snprintf(buf, size, "%s", in_place[i].name);
}
