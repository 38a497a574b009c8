// SPDX-License-Identifier: MIT
/*
 * hud.c: following a HUD line file (see hud.h). One stat of the path and one
 * fstat of the open file per poll; the new bytes are read with pread and
 * their newlines counted, HUD_POLL_MAX bytes a poll at most (the program
 * writes the file: one that grows it by a sparse terabyte costs each poll
 * no more than that, the rest is counted at the next polls). The first
 * HUD_HEAD bytes are kept to notice a file rewritten from its start between
 * two polls. The file is opened without blocking and counted only while it
 * is a regular file (a FIFO or a device there counts nothing).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "frames/hud.h"

#define HUD_HEAD 64
/* Bytes read a poll at most: a HUD line is about 100 bytes, a poll comes
 * every 10 ms, so 1 MiB is 100 MB/s, ample for any frame rate. */
#define HUD_POLL_MAX ((uint64_t)1 << 20)

struct hud {
	char *path;
	int fd;			/* -1 while the file is missing */
	dev_t dev;
	ino_t ino;
	uint64_t off;		/* bytes counted so far */
	char head[HUD_HEAD];	/* the file's first bytes, as last seen */
	size_t headlen;
	uint64_t lines, restarts;
};

static void hud_close(struct hud *h)
{
	if (h->fd >= 0)
		close(h->fd);
	h->fd = -1;
	h->off = 0;
	h->headlen = 0;
}

/* Opens the file at the path; SKIP_OLD counts what is there as seen. */
static int hud_open(struct hud *h, bool skip_old)
{
	struct stat st;
	int fd = open(h->path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		int err = -errno;

		close(fd);
		return err;
	}
	h->fd = fd;
	h->dev = st.st_dev;
	h->ino = st.st_ino;
	h->off = skip_old && S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
	h->headlen = 0;
	if (h->off) {
		ssize_t n = pread(fd, h->head, HUD_HEAD, 0);

		h->headlen = n > 0 ? (size_t)n : 0;
	}
	return 0;
}

int hud_new(const char *path, struct hud **ret)
{
	struct hud *h = calloc(1, sizeof(*h));

	if (!h || !(h->path = strdup(path))) {
		free(h);
		return -ENOMEM;
	}
	h->fd = -1;
	/* Lines already there belong to an earlier run; a missing file is
	 * waited for. */
	hud_open(h, true);
	*ret = h;
	return 0;
}

void hud_free(struct hud *h)
{
	if (!h)
		return;
	hud_close(h);
	free(h->path);
	free(h);
}

static void hud_restart(struct hud *h)
{
	h->off = 0;
	h->headlen = 0;
	h->restarts++;
}

int hud_poll(struct hud *h, uint64_t *ret_lines)
{
	char buf[65536];
	struct stat st;
	uint64_t n = 0, end;

	if (stat(h->path, &st) < 0) {
		if (errno != ENOENT && errno != ENOTDIR)
			return -errno;
		/* Removed: whatever appears next is a new file. */
		if (h->fd >= 0) {
			hud_close(h);
			h->restarts++;
		}
		*ret_lines = 0;
		return 0;
	}
	if (h->fd >= 0 && (st.st_dev != h->dev || st.st_ino != h->ino)) {
		hud_close(h);
		h->restarts++;
	}
	if (h->fd < 0) {
		int err = hud_open(h, false);

		if (err == -ENOENT) {
			*ret_lines = 0;
			return 0;
		}
		if (err < 0)
			return err;
	}
	if (fstat(h->fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode)) {
		*ret_lines = 0;
		return 0;
	}
	if ((uint64_t)st.st_size < h->off) {
		hud_restart(h);
	} else if ((uint64_t)st.st_size != h->off && h->headlen) {
		char now[HUD_HEAD];
		ssize_t r = pread(h->fd, now, h->headlen, 0);

		if (r < 0)
			return -errno;
		if ((size_t)r != h->headlen || memcmp(now, h->head, h->headlen))
			hud_restart(h);
	}
	end = (uint64_t)st.st_size - h->off > HUD_POLL_MAX ? h->off + HUD_POLL_MAX
							   : (uint64_t)st.st_size;
	while (h->off < end) {
		uint64_t want = end - h->off;
		ssize_t r = pread(h->fd, buf, want < sizeof(buf) ? want : sizeof(buf),
				  (off_t)h->off);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (r == 0)
			break;
		if (h->headlen < HUD_HEAD && h->off < HUD_HEAD) {
			size_t take = HUD_HEAD - h->off < (size_t)r ? HUD_HEAD - h->off : (size_t)r;

			if (h->off == h->headlen) {
				memcpy(h->head + h->headlen, buf, take);
				h->headlen += take;
			}
		}
		for (const char *p = buf; (p = memchr(p, '\n', buf + r - p)); p++)
			n++;
		h->off += (uint64_t)r;
	}
	h->lines += n;
	*ret_lines = n;
	return 0;
}

uint64_t hud_lines(const struct hud *h)
{
	return h->lines;
}

uint64_t hud_restarts(const struct hud *h)
{
	return h->restarts;
}
