// SPDX-License-Identifier: MIT
/*
 * file.c: the bounded, non-blocking reader of file.h. The one file of
 * src/core that makes system calls (open, fstat, read, close): every layer
 * reads files it does not own, and the rules for that belong in one place
 * (docs/LAYOUT.md; tests/e2e/layers.sh allows exactly this file).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/file.h"

/* "the recipe " for WHAT "the recipe", "" for NULL: the words before a
 * quoted path. */
#define WHAT_FMT "%s%s"
#define WHAT_ARGS(w) (w) ? (w) : "", (w) ? " " : ""

/* What a file that is not a regular one is, in words. */
static const char *kind(mode_t m)
{
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISCHR(m))
		return "a character device";
	if (S_ISBLK(m))
		return "a block device";
	if (S_ISSOCK(m))
		return "a socket";
	if (S_ISLNK(m))
		return "a symbolic link";
	return "of an unknown kind";
}

int file_open_regular(const char *path, const char *what, unsigned flags, uint64_t *ret_size,
		      struct strbuf *err)
{
	int oflags = O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC;
	struct stat st;
	int fd, r;

	if (flags & FILE_NOFOLLOW)
		oflags |= O_NOFOLLOW;
	fd = -1;
	if (flags & FILE_NOATIME)
		fd = open(path, oflags | O_NOATIME);
	/* O_NOATIME is the owner's (or CAP_FOWNER's) to ask: else without */
	if (fd < 0 && (!(flags & FILE_NOATIME) || errno == EPERM))
		fd = open(path, oflags);
	if (fd < 0) {
		r = -errno;
		if (r == -ELOOP && (flags & FILE_NOFOLLOW)) {
			sb_error(err, 0, WHAT_FMT "'%s' is a symbolic link, not a file",
				 WHAT_ARGS(what), path);
			return r;
		}
		return sb_error(err, r, "cannot open " WHAT_FMT "'%s'", WHAT_ARGS(what), path);
	}
	if (fstat(fd, &st) < 0) {
		r = -errno;
		close(fd);
		return sb_error(err, r, "cannot read " WHAT_FMT "'%s'", WHAT_ARGS(what), path);
	}
	if (S_ISDIR(st.st_mode)) {
		close(fd);
		sb_error(err, 0, WHAT_FMT "'%s' is a directory", WHAT_ARGS(what), path);
		return -EISDIR;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return sb_error(err, 0, WHAT_FMT "'%s' is not a regular file (%s)", WHAT_ARGS(what),
				path, kind(st.st_mode));
	}
	if (ret_size)
		*ret_size = (uint64_t)st.st_size;
	return fd;
}

/* SB back to what it was before a read that failed: LEN bytes, and no
 * allocation when it held none, so that a caller that returns at once on
 * the error leaks nothing. */
static void cut(struct strbuf *sb, size_t len)
{
	if (!len) {
		sb_release(sb);
		return;
	}
	sb->len = len;
	sb->buf[len] = '\0';
}

int file_read_fd(int fd, const char *path, const char *what, size_t max, struct strbuf *ret,
		 struct strbuf *err)
{
	size_t old = ret->len, got = 0, hint = 0;
	struct stat st;
	char unit[32];

	/* the size fstat gives, and a byte more to see the end: one allocation
	 * for a file that does not grow while we read */
	if (fstat(fd, &st) == 0 && st.st_size > 0 && (uint64_t)st.st_size <= max)
		hint = (size_t)st.st_size + 1;
	for (;;) {
		size_t room;
		ssize_t n;

		if (ret->alloc < ret->len + 2 &&
		    sb_grow(ret, hint > got ? hint - got : got < 65536 ? 65536 : got) < 0) {
			cut(ret, old);
			return sb_error(err, -ENOMEM, WHAT_FMT "'%s'", WHAT_ARGS(what), path);
		}
		/* one byte past MAX tells a file of exactly MAX from a larger one */
		room = ret->alloc - ret->len - 1;
		if (room > max + 1 - got)
			room = max + 1 - got;
		n = read(fd, ret->buf + ret->len, room);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int r = -errno;

			cut(ret, old);
			return sb_error(err, r, "cannot read " WHAT_FMT "'%s'", WHAT_ARGS(what),
					path);
		}
		ret->len += (size_t)n;
		ret->buf[ret->len] = '\0';
		got += (size_t)n;
		if (n == 0)
			return 0;
		if (got > max)
			break;
	}
	cut(ret, old);
	if (max >= (1u << 20) && max % (1u << 20) == 0)
		snprintf(unit, sizeof(unit), "%zu MiB", max >> 20);
	else if (max >= 1024 && max % 1024 == 0)
		snprintf(unit, sizeof(unit), "%zu KiB", max >> 10);
	else
		snprintf(unit, sizeof(unit), "%zu bytes", max);
	sb_error(err, 0, WHAT_FMT "'%s' is larger than %s", WHAT_ARGS(what), path, unit);
	return -EFBIG;
}

int file_read_text(const char *path, const char *what, size_t max, struct strbuf *ret,
		   struct strbuf *err)
{
	int fd = file_open_regular(path, what, 0, NULL, err), r;

	if (fd < 0)
		return fd;
	r = file_read_fd(fd, path, what, max, ret, err);
	close(fd);
	return r;
}
