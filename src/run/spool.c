// SPDX-License-Identifier: MIT
/*
 * spool.c: runs kept for a results database that could not take them
 * (spool.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "db/db.h"
#include "run/spool.h"

int spool_path(const char *name, struct strbuf *ret)
{
	const char *dir = getenv("STALLSCOPE_SPOOL"), *xdg = getenv("XDG_DATA_HOME");
	const char *home = getenv("HOME");
	uint64_t h = 0xcbf29ce484222325ull;

	for (const char *p = name; *p; p++)
		h = (h ^ (uint8_t)*p) * 0x100000001b3ull;
	if (dir && *dir)
		return sb_addf(ret, "%s/%016llx.list", dir, (unsigned long long)h);
	if (xdg && *xdg)
		return sb_addf(ret, "%s/stallscope/spool/%016llx.list", xdg, (unsigned long long)h);
	if (home && *home)
		return sb_addf(ret, "%s/.local/share/stallscope/spool/%016llx.list", home,
			       (unsigned long long)h);
	return -ENOENT;
}

/* Opens NAME's spool locked (creating it with its header when CREATE). */
static int spool_open(const char *name, bool create, struct strbuf *path, struct strbuf *err)
{
	int fd, r;

	r = spool_path(name, path);
	if (r < 0)
		return sb_error(err, r, "no spool directory: neither STALLSCOPE_SPOOL, "
				"XDG_DATA_HOME nor HOME is set");
	if (create && (r = db_make_parent(path->buf, NULL)) < 0)
		return sb_error(err, r, "cannot create the directory of '%s'", path->buf);
	fd = open(path->buf, O_RDWR | O_CLOEXEC | (create ? O_CREAT : 0), 0644);
	if (fd < 0)
		return errno == ENOENT && !create ? -ENOENT
						  : sb_error(err, -errno, "cannot open '%s'", path->buf);
	if (flock(fd, LOCK_EX) < 0) {
		r = -errno;
		close(fd);
		return sb_error(err, r, "cannot lock '%s'", path->buf);
	}
	if (create && lseek(fd, 0, SEEK_END) == 0) {
		char head[600];
		int n = snprintf(head, sizeof(head), "# stallscope spool for %s\n", name);

		if (n < 0 || write(fd, head, (size_t)n) != n) {
			r = -errno;
			close(fd);
			return sb_error(err, r ? r : -EIO, "cannot write '%s'", path->buf);
		}
	}
	return fd;
}

int spool_add(const char *name, const char *rundir, struct strbuf *err)
{
	struct strbuf path = STRBUF_INIT, line = STRBUF_INIT;
	char abs_dir[PATH_MAX], last = 0;
	off_t end;
	int fd, r = 0;

	if (!realpath(rundir, abs_dir))
		snprintf(abs_dir, sizeof(abs_dir), "%s", rundir);
	if (strchr(abs_dir, '\n'))
		return sb_error(err, -EINVAL, "'%s': a run directory with a newline", rundir);
	fd = spool_open(name, true, &path, err);
	if (fd < 0) {
		sb_release(&path);
		return fd;
	}
	/* a spool whose last line has no newline (cut short, or edited by
	 * hand) would take this run into that line: end it first */
	end = lseek(fd, 0, SEEK_END);
	if (end > 0 && (pread(fd, &last, 1, end - 1) != 1 || last != '\n'))
		sb_addc(&line, '\n');
	sb_addf(&line, "%s\n", abs_dir);
	if (end < 0 || write(fd, line.buf, line.len) != (ssize_t)line.len || fsync(fd) < 0)
		r = sb_error(err, -errno ? -errno : -EIO, "cannot write '%s'", path.buf);
	close(fd);
	sb_release(&path);
	sb_release(&line);
	return r;
}

int spool_push(const char *name, int (*send)(void *ctx, const char *rundir), void *ctx,
	       size_t *ret_left, struct strbuf *err)
{
	struct strbuf path = STRBUF_INIT, keep = STRBUF_INIT;
	char *line = NULL;
	size_t cap = 0, left = 0;
	int fd, sent = 0, r = 0;
	FILE *f;

	*ret_left = 0;
	fd = spool_open(name, false, &path, err);
	if (fd < 0) {
		sb_release(&path);
		return fd == -ENOENT ? 0 : fd;
	}
	f = fdopen(dup(fd), "r");
	if (!f) {
		close(fd);
		sb_release(&path);
		return sb_error(err, -errno, "cannot read '%s'", path.buf);
	}
	while (getline(&line, &cap, f) > 0) {
		line[strcspn(line, "\n")] = 0;
		if (line[0] == '#') {
			sb_addf(&keep, "%s\n", line);
			continue;
		}
		if (!line[0])
			continue;
		if (send(ctx, line) == 0) {
			sent++;
		} else {
			sb_addf(&keep, "%s\n", line);
			left++;
		}
	}
	fclose(f);
	free(line);
	/* what stays, in place of what was there, still under the lock */
	if (ftruncate(fd, 0) < 0 || pwrite(fd, keep.buf, keep.len, 0) != (ssize_t)keep.len ||
	    fsync(fd) < 0)
		r = sb_error(err, -errno ? -errno : -EIO, "cannot rewrite '%s'", path.buf);
	close(fd);
	sb_release(&path);
	sb_release(&keep);
	*ret_left = left;
	return r < 0 ? r : sent;
}
