// SPDX-License-Identifier: MIT
/*
 * recsys.c: run-directory file operations and target look-ups for the
 * recorder (see recsys.h). Assumes POSIX file semantics: rename within a
 * file system is atomic; across file systems it fails with EXDEV.
 */
#include <dirent.h>
#include <stdbool.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "linux/procparse.h"
#include "linux/recsys.h"

int recsys_mkdirs(const char *path, uid_t uid, gid_t gid, struct strbuf *made)
{
	char *p = strdup(path);
	bool first = true;
	int err = 0;

	if (!p)
		return -ENOMEM;
	for (char *s = p + 1;; s++) {
		char c = *s;

		if (c != '/' && c != '\0')
			continue;
		*s = '\0';
		if (mkdir(p, 0755) == 0) {
			if (first && made && sb_adds(made, p) < 0) {
				err = -ENOMEM;
				break;
			}
			first = false;
			if (uid != (uid_t)-1 && chown(p, uid, gid) < 0) {
				err = -errno;
				break;
			}
		} else if (errno != EEXIST) {
			err = -errno;
			break;
		}
		*s = c;
		if (!c)
			break;
	}
	if (!err) {
		struct stat st;

		if (stat(path, &st) < 0)
			err = -errno;
		else if (!S_ISDIR(st.st_mode))
			err = -ENOTDIR;
	}
	free(p);
	return err;
}

static int fsync_dir_of(const char *path)
{
	char *copy = strdup(path);
	int fd, err = 0;

	if (!copy)
		return -ENOMEM;
	fd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || fsync(fd) < 0)
		err = -errno;
	if (fd >= 0)
		close(fd);
	free(copy);
	return err;
}

static int write_all(int fd, const void *data, size_t len)
{
	const char *p = data;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int recsys_write_atomic(const char *path, const void *data, size_t len, uid_t uid, gid_t gid,
			bool sync)
{
	char tmp[4096];
	int fd, err;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	err = write_all(fd, data, len);
	if (!err && sync && fsync(fd) < 0)
		err = -errno;
	if (!err && uid != (uid_t)-1 && fchown(fd, uid, gid) < 0)
		err = -errno;
	if (close(fd) < 0 && !err)
		err = -errno;
	if (!err && rename(tmp, path) < 0)
		err = -errno;
	if (err) {
		unlink(tmp);
		return err;
	}
	if (sync)
		fsync_dir_of(path);
	return 0;
}

static int copy_file(const char *src, const char *dst)
{
	char buf[1 << 16];
	struct stat st;
	int in, out, err = 0;

	in = open(src, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return -errno;
	if (fstat(in, &st) < 0) {
		err = -errno;
		close(in);
		return err;
	}
	out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, st.st_mode & 0777);
	if (out < 0) {
		err = -errno;
		close(in);
		return err;
	}
	for (;;) {
		ssize_t n = read(in, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = -errno;
			break;
		}
		if (n == 0)
			break;
		if ((err = write_all(out, buf, (size_t)n)) < 0)
			break;
	}
	if (!err && fsync(out) < 0)
		err = -errno;
	if (!err && fchown(out, st.st_uid, st.st_gid) < 0 && errno != EPERM)
		err = -errno;
	if (close(out) < 0 && !err)
		err = -errno;
	close(in);
	return err;
}

int recsys_move(const char *src, const char *dst)
{
	char tmp[4096];
	int err;

	if (rename(src, dst) == 0)
		return fsync_dir_of(dst), 0;
	if (errno != EXDEV)
		return -errno;
	if (snprintf(tmp, sizeof(tmp), "%s.tmp", dst) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	err = copy_file(src, tmp);
	if (!err && rename(tmp, dst) < 0)
		err = -errno;
	if (err) {
		unlink(tmp);
		return err;
	}
	fsync_dir_of(dst);
	unlink(src);
	return 0;
}

static int read_proc(int pid, const char *what, struct strbuf *out)
{
	char path[64], buf[4096];
	size_t old = out->len;
	ssize_t n;
	int fd, err = 0;

	snprintf(path, sizeof(path), "/proc/%d/%s", pid, what);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			break;
		}
		if (sb_add(out, buf, (size_t)n) < 0) {
			err = -ENOMEM;
			break;
		}
	}
	close(fd);
	if (err) {
		out->len = old;
		out->buf[old] = '\0';
	}
	return err;
}

int recsys_cmdline(int pid, struct strbuf *out)
{
	size_t old = out->len;
	int err = read_proc(pid, "cmdline", out), words = 0;

	if (err < 0)
		return err;
	/* the kernel ends every word with a NUL; drop the last one */
	if (out->len > old && out->buf[out->len - 1] == '\0')
		out->len--;
	for (size_t i = old; i <= out->len && out->len > old; i++)
		if (i == out->len || out->buf[i] == '\0')
			words++;
	return words;
}

int recsys_comm(int pid, int tid, struct strbuf *out)
{
	char what[48];
	int err;

	if (tid)
		snprintf(what, sizeof(what), "task/%d/comm", tid);
	else
		snprintf(what, sizeof(what), "comm");
	err = read_proc(pid, what, out);

	if (err < 0)
		return err;
	while (out->len && out->buf[out->len - 1] == '\n')
		out->buf[--out->len] = '\0';
	return 0;
}

int recsys_tgid(int tid)
{
	static const char *const keys[] = { "Tgid" };
	struct strbuf sb = STRBUF_INIT;
	int64_t v = -1;
	int err = read_proc(tid, "status", &sb);

	if (err == 0 && pp_keyed(sb.buf, sb.len, keys, 1, &v) != 1)
		err = -EINVAL;
	sb_release(&sb);
	if (err < 0)
		return err;
	return v > 0 && v <= INT32_MAX ? (int)v : -EINVAL;
}

int recsys_children(int pid, int *ret, size_t max)
{
	struct strbuf sb = STRBUF_INIT;
	char path[64];
	struct dirent *e;
	size_t n = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	d = opendir(path);
	if (!d)
		return errno == ENOENT ? -ESRCH : -errno;
	while ((e = readdir(d))) {
		char what[48], *end;
		long tid = strtol(e->d_name, &end, 10);

		if (*end || tid <= 0)
			continue;
		sb_reset(&sb);
		snprintf(what, sizeof(what), "task/%ld/children", tid);
		if (read_proc(pid, what, &sb) < 0)
			continue;	/* the thread has gone, or no such file */
		for (char *p = sb.buf; *p && n < max;) {
			long c = strtol(p, &end, 10);

			if (end == p)
				break;
			if (c > 0)
				ret[n++] = (int)c;
			p = end;
		}
	}
	closedir(d);
	sb_release(&sb);
	return (int)n;
}

/* Appends SRC to SB with every character but [A-Za-z0-9._-] as '_', at most
 * MAX of them. */
static void add_safe(struct strbuf *sb, const char *src, size_t max)
{
	for (size_t i = 0; src[i] && i < max; i++) {
		char c = src[i];

		sb_addc(sb, (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
				    (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-'
			    ? c
			    : '_');
	}
}

int recsys_new_rundir(const char *parent, const char *stamp, const char *name,
		      const char *variant, uid_t uid, gid_t gid, struct strbuf *ret)
{
	const char *base = strrchr(name, '/');

	base = base && base[1] ? base + 1 : name;
	for (int n = 1; n < 1000; n++) {
		sb_reset(ret);
		if (sb_add_path(ret, parent, stamp) < 0 || sb_addc(ret, '-') < 0)
			return -ENOMEM;
		if (*base)
			add_safe(ret, base, 60);
		else
			sb_adds(ret, "program");
		if (variant) {
			sb_addc(ret, '-');
			add_safe(ret, variant, 60);
		}
		if (n > 1)
			sb_addf(ret, "-%d", n);
		if (!strcmp(stamp, "<stamp>"))
			return 0;
		if (mkdir(ret->buf, 0755) == 0) {
			if (uid != (uid_t)-1 && chown(ret->buf, uid, gid) < 0)
				return -errno;
			return 0;
		}
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}
