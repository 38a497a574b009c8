// SPDX-License-Identifier: MIT
/*
 * watch_session.c: the watcher's login sessions (a new one during the run),
 * the active VT (a switch away from the run's), and the kernel log (lines
 * core/watchrules.h's kmsg rules call interference: USB, thermal, OOM...).
 */
#include <sys/vfs.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/file.h"
#include "core/grow.h"
#include "linux/watch_int.h"

/* Was session ID seen before? Marks it seen. logind rewrites a session's
 * file (by rename) whenever its state changes: only the first counts. */
static bool session_seen(struct watch *w, const char *id)
{
	struct strbuf key = STRBUF_INIT;
	bool seen;

	sb_addf(&key, "\n%s\n", id);
	seen = w->sessions.len && strstr(w->sessions.buf, key.buf);
	if (!seen) {
		if (!w->sessions.len)
			sb_addc(&w->sessions, '\n');
		sb_addf(&w->sessions, "%s\n", id);
	}
	sb_release(&key);
	return seen;
}

void w_sessions_prime(struct watch *w)
{
	DIR *dir = opendir(w->o.sessions_dir);
	struct dirent *e;

	if (!dir)
		return;
	while ((e = readdir(dir)))
		if (e->d_name[0] != '.' && !strchr(e->d_name, '.'))
			session_seen(w, e->d_name);
	closedir(dir);
}

void w_session_new(struct watch *w, const char *id)
{
	char path[PATH_MAX], buf[4096], who[96] = "", detail[200], line[300];
	char *p;

	if (session_seen(w, id))
		return;
	snprintf(path, sizeof(path), "%s/%s", w->o.sessions_dir, id);
	if (w_read_small(path, buf, sizeof(buf)) > 0) {
		const char *keys[] = { "SERVICE=", "USER=" };

		for (size_t k = 0; k < 2 && !who[0]; k++) {
			p = strstr(buf, keys[k]);
			if (p && (p == buf || p[-1] == '\n')) {
				p += strlen(keys[k]);
				snprintf(who, sizeof(who), "%.*s", (int)strcspn(p, "\n"), p);
			}
		}
	}
	snprintf(detail, sizeof(detail), "1 login: session %s%s%s%s at %.0f s", id,
		 who[0] ? " (" : "", who, who[0] ? ")" : "", w_since(w));
	snprintf(line, sizeof(line), "login: new session %s%s%s%s", id, who[0] ? " (" : "", who,
		 who[0] ? ")" : "");
	w_counts(w, WATCH_LOGIN, detail, line);
}

void w_vt_open(struct watch *w)
{
	struct statfs sf;
	ssize_t n;

	w->vt_fd = open(w->o.vt_file, O_RDONLY | O_CLOEXEC);
	if (w->vt_fd < 0) {
		w_logline(w, '#', "VT switches not watched: '%s': %s", w->o.vt_file, strerror(errno));
		return;
	}
	w->vt_sysfs = fstatfs(w->vt_fd, &sf) == 0 && sf.f_type == SYSFS_MAGIC;
	n = pread(w->vt_fd, w->vt_cur, sizeof(w->vt_cur) - 1, 0);
	w->vt_cur[n > 0 ? n : 0] = '\0';
	w_chomp(w->vt_cur);
	w_logline(w, '#', "watching VT switches (%s, now %s)", w->o.vt_file,
		  w->vt_cur[0] ? w->vt_cur : "unknown");
}

static const char *vt_number(const char *tty)
{
	return !strncmp(tty, "tty", 3) ? tty + 3 : tty;
}

static bool vt_expected(const struct watch *w, const char *num)
{
	const char *s = w->o.expect_vt;
	size_t len = strlen(num);

	while (s && *s) {
		size_t l = strcspn(s, ",");

		if (l == len && !strncmp(s, num, len))
			return true;
		s += l + (s[l] == ',');
	}
	return false;
}

void w_vt_check(struct watch *w)
{
	char now[32], detail[160], line[120];
	ssize_t n;

	if (w->vt_fd < 0)
		return;
	n = pread(w->vt_fd, now, sizeof(now) - 1, 0);
	if (n <= 0)
		return;
	now[n] = '\0';
	w_chomp(now);
	if (!strcmp(now, w->vt_cur) || !now[0])
		return;
	snprintf(line, sizeof(line), "VT switch %s->%s", vt_number(w->vt_cur), vt_number(now));
	if (vt_expected(w, vt_number(now))) {
		w_logline(w, '-', "%s (expected)", line);
	} else {
		snprintf(detail, sizeof(detail), "%s at %.0f s", line, w_since(w));
		w_counts(w, WATCH_VT, detail, line);
	}
	snprintf(w->vt_cur, sizeof(w->vt_cur), "%s", now);
}

void w_kmsg_open(struct watch *w)
{
	struct stat st;

	w->kmsg_fd = -1;
	if (stat(w->o.kmsg, &st) < 0) {
		w_logline(w, '#', "USB devices not watched: '%s': %s", w->o.kmsg, strerror(errno));
		return;
	}
	w->kmsg_fd = open(w->o.kmsg, (S_ISFIFO(st.st_mode) ? O_RDWR : O_RDONLY) | O_NONBLOCK |
				     O_CLOEXEC);
	if (w->kmsg_fd < 0) {
		w_logline(w, '#', "USB devices not watched: '%s': %s", w->o.kmsg, strerror(errno));
		return;
	}
	/* only what the kernel says from now on */
	if (S_ISCHR(st.st_mode) || S_ISREG(st.st_mode))
		lseek(w->kmsg_fd, 0, SEEK_END);
	w_logline(w, '#', "watching the kernel log for USB devices (%s)", w->o.kmsg);
}

/* One kernel log line: /dev/kmsg's "prio,seq,usec,flags;text" or plain text. */
static void kmsg_line(struct watch *w, char *line)
{
	const char *text = watch_kmsg_text(line, NULL);
	enum watch_usb u = watch_kernel_usb(text);
	char out[200];

	if (u == WATCH_USB_NONE)
		return;
	snprintf(out, sizeof(out), "USB device %s: %.150s",
		 u == WATCH_USB_CONNECTED ? "connected" : "disconnected", text);
	w_counts(w, WATCH_DEVICE, u == WATCH_USB_CONNECTED ? "a USB device connected"
						       : "a USB device disconnected",
		 out);
}

void w_kmsg_read(struct watch *w)
{
	ssize_t n;

	for (;;) {
		char *nl, *start;

		n = read(w->kmsg_fd, w->kmsg_buf + w->kmsg_len,
			 sizeof(w->kmsg_buf) - 1 - w->kmsg_len);
		if (n < 0 && errno == EPIPE)
			continue;	/* /dev/kmsg: records overwritten before we read them */
		if (n <= 0)
			return;
		w->kmsg_len += (size_t)n;
		w->kmsg_buf[w->kmsg_len] = '\0';
		start = w->kmsg_buf;
		while ((nl = strchr(start, '\n'))) {
			*nl = '\0';
			kmsg_line(w, start);
			start = nl + 1;
		}
		w->kmsg_len -= (size_t)(start - w->kmsg_buf);
		memmove(w->kmsg_buf, start, w->kmsg_len);
		if (w->kmsg_len == sizeof(w->kmsg_buf) - 1)
			w->kmsg_len = 0;	/* a line longer than the buffer: drop it */
	}
}

int watch_kmsg_dump(const char *path, struct strbuf *ret, struct strbuf *err)
{
	char rec[8192];
	ssize_t n;
	int fd;

	if (!path)
		path = WATCH_DEFAULT_KMSG;
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return sb_error(err, -errno, "%s", path);
	/* a record a read; EPIPE: records overwritten before we read them */
	while (ret->len < FILE_LOG_MAX &&
	       ((n = read(fd, rec, sizeof(rec))) > 0 || (n < 0 && (errno == EPIPE || errno == EINTR))))
		if (n > 0 && sb_add(ret, rec, (size_t)n) < 0) {
			close(fd);
			return sb_error(err, -ENOMEM, "%s", path);
		}
	close(fd);
	return 0;
}
