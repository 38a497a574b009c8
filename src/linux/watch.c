// SPDX-License-Identifier: MIT
/*
 * watch.c: the interference detector's engine (watch.h).
 *
 * One thread, one poll loop: input device fds, an inotify fd watching the
 * input directory and the login-session directory, the VT file (POLLPRI on
 * sysfs; a plain file is re-read each wake), the kernel log, and a pipe that
 * says stop. Every wake (at least every 250 ms) it also lists /proc for new
 * processes and, once a second, checks the CPU time of the processes it
 * tracks. The thread owns everything but the result; watch_stop joins it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/display.h"
#include "core/strbuf.h"
#include "linux/safefile.h"
#include "linux/watch_int.h"

/* ------------------------------------------------------------- helpers */

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

double w_since(const struct watch *w)
{
	return mono_s() - w->t0;
}

/* One line of the log, escaped (display_escape): it names other users'
 * processes and devices, whose names may hold newlines or escape sequences,
 * and `stallscope watch` writes it to the terminal. */
void w_logline(struct watch *w, char mark, const char *fmt, ...)
{
	struct strbuf line = STRBUF_INIT, shown = STRBUF_INIT;
	va_list ap;

	if (!w->log)
		return;
	va_start(ap, fmt);
	if (sb_vaddf(&line, fmt, ap) == 0 && display_escape(&shown, line.buf, line.len, 0) == 0)
		fprintf(w->log, "%c %.3f %s\n", mark, w_since(w), shown.buf);
	va_end(ap);
	fflush(w->log);
	sb_release(&line);
	sb_release(&shown);
}

/* A counted finding: a '!' line and the tally; DETAIL goes into the summary. */
void w_counts(struct watch *w, enum watch_kind kind, const char *detail, const char *line)
{
	w_logline(w, '!', "%s", line);
	watch_tally_add(&w->tally, kind, detail);
	w->counted++;
}

/* Reads a small file whole into BUF (NUL-terminated); returns its length or
 * a negative errno. */
ssize_t w_read_small(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	if (n < 0)
		n = -errno;
	else
		buf[n] = '\0';
	close(fd);
	return n;
}

void w_chomp(char *s)
{
	size_t n = strlen(s);

	while (n && (s[n - 1] == '\n' || s[n - 1] == ' '))
		s[--n] = '\0';
}

/* ------------------------------------------------------------- the loop */

static void inotify_read(struct watch *w)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	ssize_t n;

	while ((n = read(w->ino, buf, sizeof(buf))) > 0) {
		for (char *p = buf; p < buf + n;) {
			struct inotify_event *ev = (struct inotify_event *)p;
			char line[300], detail[200];

			p += sizeof(*ev) + ev->len;
			if (!ev->len)
				continue;
			if (ev->wd == w->wd_input && w_is_event_file(ev->name)) {
				struct dev *d = w_dev_find(w, ev->name);

				if ((ev->mask & (IN_CREATE | IN_MOVED_TO | IN_ATTRIB)) && !d) {
					d = w_dev_open(w, ev->name);
					if (!d)
						continue;
					if (d->exempt) {
						w_logline(w, '-', "input device appeared: '%s' (exempt: held by %s)",
							  d->name, d->holder);
						continue;
					}
					snprintf(line, sizeof(line), "input device appeared: '%s'", d->name);
					snprintf(detail, sizeof(detail), "input device '%s' appeared at %.0f s",
						 d->name, w_since(w));
					w_counts(w, WATCH_DEVICE, detail, line);
				} else if ((ev->mask & (IN_DELETE | IN_MOVED_FROM)) && d) {
					snprintf(line, sizeof(line), "input device went away: '%s'", d->name);
					snprintf(detail, sizeof(detail), "input device '%s' went away at %.0f s",
						 d->name, w_since(w));
					if (d->exempt)
						w_logline(w, '-', "%s (exempt)", line);
					else
						w_counts(w, WATCH_DEVICE, detail, line);
					w_dev_close(w, d);
				}
			} else if (ev->wd == w->wd_sessions && ev->name[0] != '.' &&
				   !strchr(ev->name, '.') &&
				   (ev->mask & (IN_CLOSE_WRITE | IN_MOVED_TO))) {
				w_session_new(w, ev->name);
			}
		}
	}
}

static void *watch_thread(void *arg)
{
	struct watch *w = arg;
	struct pollfd pfd[MAX_DEVS + 4];
	double next_scan = 0;

	for (;;) {
		unsigned n = 0, base;
		int r;

		pfd[n++] = (struct pollfd){ .fd = w->stop_pipe[0], .events = POLLIN };
		pfd[n++] = (struct pollfd){ .fd = w->ino, .events = POLLIN };
		pfd[n++] = (struct pollfd){ .fd = w->vt_sysfs ? w->vt_fd : -1, .events = POLLPRI };
		pfd[n++] = (struct pollfd){ .fd = w->kmsg_fd, .events = POLLIN };
		base = n;
		for (unsigned i = 0; i < w->ndevs; i++)
			pfd[n++] = (struct pollfd){ .fd = w->devs[i].fd, .events = POLLIN };
		r = poll(pfd, n, TICK_MS);
		if (r < 0 && errno != EINTR)
			break;
		if (pfd[0].revents)
			break;
		if (r > 0) {
			/* devices first: inotify may close one and reorder the array */
			for (unsigned i = 0; i < n - base && i < w->ndevs; i++)
				if (pfd[base + i].revents & POLLIN)
					w_dev_read(w, &w->devs[i]);
			if (pfd[1].revents & POLLIN)
				inotify_read(w);
			if (pfd[3].revents & POLLIN)
				w_kmsg_read(w);
		}
		w_vt_check(w);
		for (unsigned i = 0; i < w->ndevs; i++)
			w_dev_tick(w, &w->devs[i], false);
		if (!w->o.no_procs && w_since(w) >= next_scan) {
			w_procs_scan(w);
			next_scan = w_since(w) + TICK_MS / 1000.0;
		}
	}
	/* last reads, then close bursts still open */
	for (unsigned i = 0; i < w->ndevs; i++) {
		w_dev_read(w, &w->devs[i]);
		w_dev_tick(w, &w->devs[i], true);
	}
	if (w->kmsg_fd >= 0)
		w_kmsg_read(w);
	w_vt_check(w);
	{
		struct timespec ts;

		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
		w->cpu_s = ts.tv_sec + ts.tv_nsec / 1e9;
	}
	return NULL;
}

/* ------------------------------------------------------------- start, stop */

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

static void free_opts(struct watch_opts *o)
{
	free((char *)o->input_dir);
	free((char *)o->vt_file);
	free((char *)o->sessions_dir);
	free((char *)o->kmsg);
	free((char *)o->log_path);
	free((char *)o->rundir);
	free((char *)o->exempt_cmd);
	free((char *)o->expect_vt);
	if (o->exempt_holders)
		for (size_t i = 0; i < o->nexempt_holders; i++)
			free((char *)o->exempt_holders[i]);
	free((void *)o->exempt_holders);
}

static void watch_free(struct watch *w)
{
	if (!w)
		return;
	for (unsigned i = 0; i < w->ndevs; i++)
		close(w->devs[i].fd);
	if (w->ino >= 0)
		close(w->ino);
	if (w->vt_fd >= 0)
		close(w->vt_fd);
	if (w->kmsg_fd >= 0)
		close(w->kmsg_fd);
	if (w->stop_pipe[0] >= 0)
		close(w->stop_pipe[0]);
	if (w->stop_pipe[1] >= 0)
		close(w->stop_pipe[1]);
	if (w->log && w->log != stdout)
		fclose(w->log);
	if (w->has_re)
		regfree(&w->exempt_re);
	watch_tally_release(&w->tally);
	sb_release(&w->sessions);
	free(w->procs);
	free_opts(&w->o);
	free(w);
}

int watch_start(const struct watch_opts *o, struct watch **ret, struct strbuf *err)
{
	struct watch *w = calloc(1, sizeof(*w));
	const char **holders = NULL;
	int r;

	if (!w)
		return -ENOMEM;
	w->ino = w->vt_fd = w->kmsg_fd = w->stop_pipe[0] = w->stop_pipe[1] = -1;
	watch_tally_init(&w->tally);
	sb_init(&w->sessions);
	if (o->nexempt_holders) {
		holders = calloc(o->nexempt_holders, sizeof(*holders));
		if (!holders) {
			watch_free(w);
			return -ENOMEM;
		}
		for (size_t i = 0; i < o->nexempt_holders; i++)
			holders[i] = strdup(o->exempt_holders[i]);
	}
	w->o = (struct watch_opts){
		.input_dir = strdup(o->input_dir ? o->input_dir : WATCH_DEFAULT_INPUT_DIR),
		.vt_file = strdup(o->vt_file ? o->vt_file : WATCH_DEFAULT_VT_FILE),
		.sessions_dir = strdup(o->sessions_dir ? o->sessions_dir : WATCH_DEFAULT_SESSIONS_DIR),
		.kmsg = strdup(o->kmsg ? o->kmsg : WATCH_DEFAULT_KMSG),
		.log_path = dup_or_null(o->log_path),
		.rundir = dup_or_null(o->rundir),
		.exempt_cmd = dup_or_null(o->exempt_cmd),
		.exempt_holders = holders,
		.nexempt_holders = o->nexempt_holders,
		.expect_vt = dup_or_null(o->expect_vt),
		.no_procs = o->no_procs,
	};
	if (!w->o.input_dir || !w->o.vt_file || !w->o.sessions_dir || !w->o.kmsg) {
		watch_free(w);
		return -ENOMEM;
	}
	if (o->exempt_cmd) {
		r = regcomp(&w->exempt_re, o->exempt_cmd, REG_EXTENDED | REG_NOSUB);
		if (r) {
			char msg[128];

			regerror(r, &w->exempt_re, msg, sizeof(msg));
			sb_addf(err, "--exempt-cmd '%s': %s", o->exempt_cmd, msg);
			watch_free(w);
			return -EINVAL;
		}
		w->has_re = true;
	}
	if (o->log_fd > 2) {
		int fd = fcntl(o->log_fd, F_DUPFD_CLOEXEC, 3);

		w->log = fd >= 0 ? fdopen(fd, "a") : NULL;
		if (!w->log) {
			r = -errno;
			if (fd >= 0)
				close(fd);
			sb_addf(err, "unable to write the log: %s", strerror(-r));
			watch_free(w);
			return r;
		}
	} else if (o->log_path && !strcmp(o->log_path, "-")) {
		w->log = stdout;
	} else if (o->log_path) {
		int fd = sf_open_append(o->log_path, 0644, sf_invoking_user());

		w->log = fd >= 0 ? fdopen(fd, "a") : NULL;
		if (!w->log) {
			r = fd < 0 ? fd : -errno;
			if (fd >= 0)
				close(fd);
			sb_addf(err, "unable to open '%s': %s", o->log_path,
				r == -ELOOP    ? "a symbolic link; give the file itself"
				: r == -EEXIST ? "not a regular file"
					       : strerror(-r));
			watch_free(w);
			return r;
		}
	}
	w->t0 = mono_s();
	w->hz = sysconf(_SC_CLK_TCK);
	w->self = getpid();
	if (pipe2(w->stop_pipe, O_CLOEXEC) < 0) {
		r = -errno;
		watch_free(w);
		return r;
	}
	{
		time_t now = time(NULL);
		char stamp[32];

		strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
		/* the monotonic second of time 0: what puts the log's times on
		 * the record's clock (export --perfetto) */
		w_logline(w, '#', "stallscope watch started %s, monotonic %.6f; '!' counts, '-' does not, "
			  "'i' is information", stamp, w->t0);
	}
	w->ino = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	w->wd_input = w->wd_sessions = -1;
	if (w->ino >= 0) {
		w->wd_input = inotify_add_watch(w->ino, w->o.input_dir,
						IN_CREATE | IN_DELETE | IN_MOVED_TO | IN_MOVED_FROM |
							IN_ATTRIB);
		w->wd_sessions = inotify_add_watch(w->ino, w->o.sessions_dir,
						   IN_CLOSE_WRITE | IN_MOVED_TO);
		w_sessions_prime(w);
		if (w->wd_sessions < 0)
			w_logline(w, '#', "logins not watched: '%s': %s", w->o.sessions_dir,
				  strerror(errno));
		else
			w_logline(w, '#', "watching logins (%s)", w->o.sessions_dir);
	}
	w_input_open_all(w);
	w_vt_open(w);
	w_kmsg_open(w);
	if (!w->o.no_procs) {
		w_procs_scan(w);
		w_logline(w, '#', "watching processes (%zu now)", w->nprocs);
	}
	r = pthread_create(&w->thread, NULL, watch_thread, w);
	if (r) {
		watch_free(w);
		return -r;
	}
	*ret = w;
	return 0;
}

void watch_set_program(struct watch *w, pid_t pid)
{
	atomic_store(&w->program, pid);
}

int watch_stop(struct watch *w, struct watch_result *ret)
{
	struct strbuf sum = STRBUF_INIT;
	struct rusage ru;
	char c = 'q';

	if (write(w->stop_pipe[1], &c, 1) < 0)
		return -errno;
	pthread_join(w->thread, NULL);
	watch_tally_summary(&w->tally, w->max_devs, &sum);
	memset(ret, 0, sizeof(*ret));
	ret->interfered = watch_tally_interfered(&w->tally);
	ret->ndevices = w->max_devs;
	ret->counted = w->counted;
	ret->cpu_s = w->cpu_s;
	if (getrusage(RUSAGE_SELF, &ru) == 0)
		ret->maxrss_kb = ru.ru_maxrss;
	w_logline(w, '#', "summary: interfered=%d interference=%s", ret->interfered, sum.buf);
	w_logline(w, '#', "watcher cost: %.3f s CPU, max RSS %ld kB", ret->cpu_s, ret->maxrss_kb);
	ret->summary = sb_detach(&sum);
	watch_free(w);
	return ret->summary ? 0 : -ENOMEM;
}
