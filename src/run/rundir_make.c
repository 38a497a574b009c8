// SPDX-License-Identifier: MIT
/*
 * rundir_make.c: making a run directory (rundir.h). The directories are
 * made through src/linux's recsys and safefile (made under their parent's
 * fd, as the invoking user); this file holds the policy: the names, the
 * owner, which existing directory is taken, the refusal to record over a
 * run, where the files grow, and what recordings left in tmpfs.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "linux/recsys.h"
#include "run/rundir.h"
#include "run/rundir_int.h"

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
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	bool yes;

	if (fd < 0)
		return false;
	yes = faccessat(fd, rundir_file_name(RUNDIR_RECORD), F_OK, AT_SYMLINK_NOFOLLOW) == 0 ||
	      faccessat(fd, rundir_file_name(RUNDIR_INI), F_OK, AT_SYMLINK_NOFOLLOW) == 0;
	close(fd);
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
	if (stat(TMP_DIR, &st) == 0 && S_ISDIR(st.st_mode) && access(TMP_DIR, W_OK) == 0)
		t->dirfd = open(TMP_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (t->dirfd >= 0) {
		sf_random(rnd);
		snprintf(t->dir, sizeof(t->dir), TMP_DIR);
		snprintf(t->base, sizeof(t->base), TMP_PREFIX "%d-%s-%s", (int)getpid(), stamp, rnd);
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

void rundir_tmp_name(const struct rundir_tmp *t, enum rundir_file f, char *buf, size_t size)
{
	buf[0] = '\0';
	if (!rundir_tmp_ext(f))
		return;
	if (!t->in_place)
		snprintf(buf, size, "%s.%s", t->base, rundir_tmp_ext(f));
	else if (f != RUNDIR_INI)
		/* in place, at their final names; run.ini is written at its
		 * own name at the end, nothing beside it */
		snprintf(buf, size, "%s", rundir_file_name(f));
}

/* ------------------------------------------------------------ left in tmpfs */

/* The recorder's pid of tmpfs name NAME (stallscope-PID-...), or 0. */
static pid_t tmp_pid(const char *name)
{
	const char *p = name + strlen(TMP_PREFIX);
	char *end;
	long pid;

	if (strncmp(name, TMP_PREFIX, strlen(TMP_PREFIX)) || *p < '1' || *p > '9')
		return 0;
	pid = strtol(p, &end, 10);
	return *end == '-' && pid > 0 && pid <= INT32_MAX ? (pid_t)pid : 0;
}

/* Whether process PID exists (a recorder still running). */
static bool pid_alive(pid_t pid)
{
	return kill(pid, 0) == 0 || errno == EPERM;
}

/* NAME in DIRFD as BASE.EXT: its memory (blocks) when a regular file. */
static uint64_t tmp_bytes(int dirfd, const char *base, const char *ext)
{
	char name[300];
	struct stat st;

	if (snprintf(name, sizeof(name), "%s.%s", base, ext) >= (int)sizeof(name))
		return 0;
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode))
		return 0;
	return (uint64_t)st.st_blocks * 512;
}

int rundir_tmp_left(size_t *ret_n, uint64_t *ret_bytes)
{
	DIR *d;
	struct dirent *e;
	int fd;

	*ret_n = 0;
	*ret_bytes = 0;
	fd = open(TMP_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -errno;
	}
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		char base[256];
		struct stat st;
		pid_t pid = tmp_pid(e->d_name);

		if (!pid || len < 5 || len >= sizeof(base) || strcmp(e->d_name + len - 4, ".ssr"))
			continue;
		if (pid_alive(pid))
			continue;	/* recording now */
		memcpy(base, e->d_name, len - 4);
		base[len - 4] = '\0';
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode))
			continue;	/* not one the recorder made */
		(*ret_n)++;
		for (int f = 0; f < RUNDIR_NFILES; f++)
			if (rundir_tmp_ext(f))
				*ret_bytes += tmp_bytes(dirfd(d), base, rundir_tmp_ext(f));
	}
	closedir(d);
	return 0;
}

int rundir_salvage(const char *file, const char *outdir, struct sf_user u, struct strbuf *moved,
		   struct strbuf *err)
{
	/* the record first: it must be there; the rest when they are */
	static const int files[] = { RUNDIR_RECORD, RUNDIR_LOG, RUNDIR_OUT, RUNDIR_INI };
	struct strbuf path = STRBUF_INIT;
	const char *base = file + strlen(TMP_DIR "/");
	char stem[256], name[300];
	int in[4] = { -1, -1, -1, -1 }, shm = -1, run = -1, r = 0;
	size_t len = strlen(file);
	struct stat st;
	pid_t pid;

	if (strncmp(file, TMP_DIR "/", strlen(TMP_DIR "/")) || strchr(base, '/') ||
	    !(pid = tmp_pid(base)) || len < 5 || strcmp(file + len - 4, ".ssr") ||
	    strlen(base) - 4 >= sizeof(stem))
		return sb_error(err, -EINVAL, "'%s': not a record a recording left in tmpfs "
				"(expected " TMP_DIR "/" TMP_PREFIX "PID-STAMP-RANDOM.ssr)", file);
	memcpy(stem, base, strlen(base) - 4);
	stem[strlen(base) - 4] = '\0';
	if (pid_alive(pid))
		return sb_error(err, -EBUSY, "'%s': its recorder (pid %d) is still running", file,
				(int)pid);
	shm = open(TMP_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (shm < 0)
		return sb_error(err, -errno, "cannot open " TMP_DIR);
	for (size_t i = 0; i < 4; i++) {
		snprintf(name, sizeof(name), "%s.%s", stem, rundir_tmp_ext(files[i]));
		in[i] = openat(shm, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		if (in[i] < 0) {
			if (i == 0 || errno != ENOENT) {
				r = sb_error(err, -errno, "cannot open '%s/%s'", TMP_DIR, name);
				goto out;
			}
			continue;
		}
		if (fstat(in[i], &st) < 0 || !S_ISREG(st.st_mode)) {
			r = sb_error(err, -EINVAL, "'%s/%s': not a regular file", TMP_DIR, name);
			goto out;
		}
		if (!sf_is_self(u) && st.st_uid != u.uid) {
			r = sb_error(err, -EPERM, "'%s/%s': not yours (owner %u)", TMP_DIR, name,
				     (unsigned)st.st_uid);
			goto out;
		}
	}
	if (rundir_holds_run(outdir)) {
		r = sb_error(err, -EEXIST, "'%s' holds a run already", outdir);
		goto out;
	}
	r = rundir_create(outdir, NULL, 0, u, &path, NULL, &run, err);
	if (r < 0)
		goto out;
	for (size_t i = 0; i < 4 && r == 0; i++) {
		if (in[i] < 0)
			continue;
		r = sf_copy(in[i], run, rundir_file_name(files[i]), 0644, u);
		if (r < 0)
			sb_error(err, r, "cannot write '%s/%s'", outdir, rundir_file_name(files[i]));
		else
			sb_addf(moved, "%s%s", moved->len ? " " : "", rundir_file_name(files[i]));
	}
	if (r == 0)
		r = sf_fsync_dir(run);
	/* all copied: only now is anything removed from tmpfs */
	for (size_t i = 0; i < 4 && r == 0; i++) {
		if (in[i] < 0)
			continue;
		snprintf(name, sizeof(name), "%s.%s", stem, rundir_tmp_ext(files[i]));
		r = sf_unlink(shm, name, u);
		if (r < 0)
			sb_error(err, r, "copied, but cannot remove '%s/%s'", TMP_DIR, name);
	}
out:
	for (size_t i = 0; i < 4; i++)
		if (in[i] >= 0)
			close(in[i]);
	if (run >= 0)
		close(run);
	close(shm);
	sb_release(&path);
	return r;
}
