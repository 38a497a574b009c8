// SPDX-License-Identifier: MIT
/*
 * recsys.c: the run directory's name and target look-ups for the recorder
 * (see recsys.h); the files themselves are safefile.c's.
 */
#include <dirent.h>
#include <stdbool.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "linux/procparse.h"
#include "linux/recsys.h"

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
		      const char *variant, struct sf_user u, struct strbuf *ret, int *ret_fd)
{
	const char *base = strrchr(name, '/');
	bool dry = !strcmp(stamp, "<stamp>");
	int pfd = -1, err = -EEXIST;

	base = base && base[1] ? base + 1 : name;
	if (!dry && (err = sf_mkdirs(parent, u, NULL, &pfd)) < 0)
		return err;
	for (int n = 1; n < 1000; n++) {
		size_t at;

		sb_reset(ret);
		if (sb_add_path(ret, parent, "") < 0) {
			err = -ENOMEM;
			break;
		}
		at = ret->len;
		sb_adds(ret, stamp);
		sb_addc(ret, '-');
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
		if (dry)
			return 0;
		err = sf_mkdir(pfd, ret->buf + at, u, ret_fd);
		if (err != -EEXIST)
			break;
	}
	close(pfd);
	return err;
}
