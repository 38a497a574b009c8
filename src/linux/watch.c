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
#include <linux/input.h>
#include <poll.h>
#include <pthread.h>
#include <regex.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include "core/grow.h"
#include "core/watchrules.h"
#include "linux/watch.h"

#define SYSFS_MAGIC 0x62656572
#define TICK_MS 250
#define MAX_DEVS 64
#define CPU_RULE_NS 1000000000ull	/* 1 s of CPU during the run counts */
#define SESSION_NONE 4294967295u

enum proc_class {
	PROC_UNKNOWN,	/* not yet classified */
	PROC_KERNEL,	/* a kernel thread */
	PROC_RUN,	/* the run's own (or the watcher's) */
	PROC_EXEMPT,	/* --exempt-cmd */
	PROC_SYSTEM,	/* a system service */
	PROC_SESSION,	/* in a login session or on a terminal */
	PROC_OTHER,	/* none of those: still watched for CPU */
};

struct dev {
	int fd;
	bool fifo;
	bool exempt;
	char file[64];		/* "event3" */
	char name[128];		/* the device's own name, or the file name */
	char holder[32];	/* the exempt holder's comm */
	struct watch_input rules;
	double last_ev;		/* the last event's own time, s */
	double last_read;	/* when it was read, on the watch clock */
};

struct proc {
	pid_t pid, ppid, pgrp;
	unsigned long long start;	/* starttime: tells a reused pid apart */
	unsigned long long cpu0;	/* utime + stime at first sight (ticks) */
	enum proc_class cls;
	bool is_new;			/* appeared after the watch started */
	bool counted;			/* the CPU rule fired */
	bool seen;			/* in the latest listing */
	char comm[32];
};

struct watch {
	struct watch_opts o;
	pthread_t thread;
	int stop_pipe[2];
	FILE *log;
	double t0;
	long hz;
	pid_t self;
	_Atomic pid_t program;

	int ino;
	int wd_input, wd_sessions;
	struct strbuf sessions;		/* "\n"-separated session ids seen */
	struct dev devs[MAX_DEVS];
	unsigned ndevs, max_devs;

	int vt_fd;
	bool vt_sysfs;
	char vt_cur[32];

	int kmsg_fd;
	char kmsg_buf[8192];
	size_t kmsg_len;

	struct proc *procs;
	size_t nprocs, aprocs;
	bool procs_primed;
	unsigned scans;

	regex_t exempt_re;
	bool has_re;

	struct watch_tally tally;
	unsigned counted;
	double cpu_s;
};

/* ------------------------------------------------------------- helpers */

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double since(const struct watch *w)
{
	return mono_s() - w->t0;
}

static void logline(struct watch *w, char mark, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void logline(struct watch *w, char mark, const char *fmt, ...)
{
	va_list ap;

	if (!w->log)
		return;
	fprintf(w->log, "%c %.3f ", mark, since(w));
	va_start(ap, fmt);
	vfprintf(w->log, fmt, ap);
	va_end(ap);
	fputc('\n', w->log);
	fflush(w->log);
}

/* A counted finding: a '!' line and the tally; DETAIL goes into the summary. */
static void counts(struct watch *w, enum watch_kind kind, const char *detail, const char *line)
{
	logline(w, '!', "%s", line);
	watch_tally_add(&w->tally, kind, detail);
	w->counted++;
}

/* Reads a small file whole into BUF (NUL-terminated); returns its length or
 * a negative errno. */
static ssize_t read_small(const char *path, char *buf, size_t size)
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

static void chomp(char *s)
{
	size_t n = strlen(s);

	while (n && (s[n - 1] == '\n' || s[n - 1] == ' '))
		s[--n] = '\0';
}

/* ------------------------------------------------------------- input */

static bool holder_is_exempt(struct watch *w, const char *devpath, char *holder, size_t len)
{
	DIR *proc, *fds;
	struct dirent *p, *f;
	char path[600], link[PATH_MAX], comm[64];
	bool found = false;
	ssize_t n;

	if (!w->o.nexempt_holders)
		return false;
	proc = opendir("/proc");
	if (!proc)
		return false;
	while (!found && (p = readdir(proc))) {
		if (p->d_name[0] < '0' || p->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/fd", p->d_name);
		fds = opendir(path);
		if (!fds)
			continue;
		while ((f = readdir(fds))) {
			snprintf(path, sizeof(path), "/proc/%s/fd/%s", p->d_name, f->d_name);
			n = readlink(path, link, sizeof(link) - 1);
			if (n <= 0)
				continue;
			link[n] = '\0';
			if (strcmp(link, devpath))
				continue;
			snprintf(path, sizeof(path), "/proc/%s/comm", p->d_name);
			if (read_small(path, comm, sizeof(comm)) > 0) {
				chomp(comm);
				for (size_t i = 0; i < w->o.nexempt_holders; i++) {
					if (!strcmp(comm, w->o.exempt_holders[i])) {
						snprintf(holder, len, "%s", comm);
						found = true;
					}
				}
			}
			break;
		}
		closedir(fds);
	}
	closedir(proc);
	return found;
}

static struct dev *dev_find(struct watch *w, const char *file)
{
	for (unsigned i = 0; i < w->ndevs; i++)
		if (!strcmp(w->devs[i].file, file))
			return &w->devs[i];
	return NULL;
}

/* Opens input device FILE of the input directory; returns it or NULL (a
 * '#' line says why). */
static struct dev *dev_open(struct watch *w, const char *file)
{
	char path[PATH_MAX], real[PATH_MAX];
	unsigned long absbits[(ABS_MAX + 1 + 63) / 64] = { 0 };
	unsigned long keybits[(KEY_MAX + 1 + 63) / 64] = { 0 };
	struct stat st;
	struct dev *d;

	if (w->ndevs == MAX_DEVS) {
		logline(w, '#', "input device '%s' not watched: %d devices at most", file, MAX_DEVS);
		return NULL;
	}
	d = &w->devs[w->ndevs];
	memset(d, 0, sizeof(*d));
	snprintf(path, sizeof(path), "%s/%s", w->o.input_dir, file);
	if (stat(path, &st) < 0)
		return NULL;
	d->fifo = S_ISFIFO(st.st_mode);
	/* A FIFO opened read-write never reads as hung up when a writer goes. */
	d->fd = open(path, (d->fifo ? O_RDWR : O_RDONLY) | O_NONBLOCK | O_CLOEXEC);
	if (d->fd < 0) {
		logline(w, '#', "input device '%s' not watched: %s", path, strerror(errno));
		return NULL;
	}
	snprintf(d->file, sizeof(d->file), "%s", file);
	snprintf(d->name, sizeof(d->name), "%s", file);
	watch_input_init(&d->rules);
	if (S_ISCHR(st.st_mode)) {
		char name[128] = "";

		if (ioctl(d->fd, EVIOCGNAME(sizeof(name) - 1), name) > 0 && name[0])
			snprintf(d->name, sizeof(d->name), "%s", name);
		if (ioctl(d->fd, EVIOCGBIT(EV_ABS, sizeof(absbits)), absbits) >= 0) {
			for (unsigned c = 0; c < WATCH_ABS_CNT && c <= ABS_MAX; c++) {
				struct input_absinfo ai;

				if (!(absbits[c / 64] >> (c % 64) & 1))
					continue;
				if (ioctl(d->fd, EVIOCGABS(c), &ai) >= 0)
					watch_input_set_abs(&d->rules, c, ai.minimum, ai.maximum);
			}
		}
		if (ioctl(d->fd, EVIOCGBIT(EV_KEY, sizeof(keybits)), keybits) >= 0 &&
		    (keybits[BTN_TOUCH / 64] >> (BTN_TOUCH % 64) & 1))
			d->rules.touch = true;
	}
	if (realpath(path, real) && holder_is_exempt(w, real, d->holder, sizeof(d->holder)))
		d->exempt = true;
	w->ndevs++;
	if (w->ndevs > w->max_devs)
		w->max_devs = w->ndevs;
	return d;
}

static void dev_close(struct watch *w, struct dev *d)
{
	close(d->fd);
	*d = w->devs[--w->ndevs];
}

static void dev_finding(struct watch *w, struct dev *d, const struct watch_finding *f,
			enum watch_kind kind)
{
	char line[300];

	if (f->mark == '!' && d->exempt) {
		logline(w, '-', "%s on '%s' (exempt: held by %s)", f->what, d->name, d->holder);
		return;
	}
	if (f->mark != '!') {
		logline(w, f->mark, "%s on '%s'", f->what, d->name);
		return;
	}
	snprintf(line, sizeof(line), "%s on '%s'", f->what, d->name);
	counts(w, kind, NULL, line);
}

static void dev_read(struct watch *w, struct dev *d)
{
	struct input_event ev[64];
	struct watch_finding f;
	enum watch_kind kind;
	ssize_t n;

	while ((n = read(d->fd, ev, sizeof(ev))) > 0) {
		size_t k = (size_t)n / sizeof(ev[0]);

		d->last_read = since(w);
		for (size_t i = 0; i < k; i++) {
			double t = ev[i].input_event_sec + ev[i].input_event_usec / 1e6;

			d->last_ev = t;
			if (watch_input_feed(&d->rules, t, ev[i].type, ev[i].code, ev[i].value, &f,
					     &kind))
				dev_finding(w, d, &f, kind);
		}
		if ((size_t)n % sizeof(ev[0]))
			logline(w, '#', "'%s': a partial input event of %zu bytes dropped", d->name,
				(size_t)n % sizeof(ev[0]));
	}
}

/* Ends idle motion bursts; the device clock runs on from its last event. */
static void dev_tick(struct watch *w, struct dev *d, bool force)
{
	struct watch_finding f;
	double now = d->last_ev + (since(w) - d->last_read);

	if (watch_input_tick(&d->rules, now, force, &f))
		dev_finding(w, d, &f, WATCH_MOTION);
}

static bool is_event_file(const char *name)
{
	return !strncmp(name, "event", 5);
}

static void input_open_all(struct watch *w)
{
	DIR *dir = opendir(w->o.input_dir);
	struct dirent *e;

	if (!dir) {
		logline(w, '#', "no input devices watched: '%s': %s", w->o.input_dir,
			strerror(errno));
		return;
	}
	while ((e = readdir(dir)))
		if (is_event_file(e->d_name))
			dev_open(w, e->d_name);
	closedir(dir);
	for (unsigned i = 0; i < w->ndevs; i++)
		logline(w, '#', "watching input device '%s' (%s)%s", w->devs[i].name,
			w->devs[i].file, w->devs[i].exempt ? ", exempt" : "");
}

/* ------------------------------------------------------------- sessions, VT, kmsg */

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

static void sessions_prime(struct watch *w)
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

static void session_new(struct watch *w, const char *id)
{
	char path[PATH_MAX], buf[4096], who[96] = "", detail[200], line[300];
	char *p;

	if (session_seen(w, id))
		return;
	snprintf(path, sizeof(path), "%s/%s", w->o.sessions_dir, id);
	if (read_small(path, buf, sizeof(buf)) > 0) {
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
		 who[0] ? " (" : "", who, who[0] ? ")" : "", since(w));
	snprintf(line, sizeof(line), "login: new session %s%s%s%s", id, who[0] ? " (" : "", who,
		 who[0] ? ")" : "");
	counts(w, WATCH_LOGIN, detail, line);
}

static void vt_open(struct watch *w)
{
	struct statfs sf;
	ssize_t n;

	w->vt_fd = open(w->o.vt_file, O_RDONLY | O_CLOEXEC);
	if (w->vt_fd < 0) {
		logline(w, '#', "VT switches not watched: '%s': %s", w->o.vt_file, strerror(errno));
		return;
	}
	w->vt_sysfs = fstatfs(w->vt_fd, &sf) == 0 && sf.f_type == SYSFS_MAGIC;
	n = pread(w->vt_fd, w->vt_cur, sizeof(w->vt_cur) - 1, 0);
	w->vt_cur[n > 0 ? n : 0] = '\0';
	chomp(w->vt_cur);
	logline(w, '#', "watching VT switches (%s, now %s)", w->o.vt_file,
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

static void vt_check(struct watch *w)
{
	char now[32], detail[160], line[120];
	ssize_t n;

	if (w->vt_fd < 0)
		return;
	n = pread(w->vt_fd, now, sizeof(now) - 1, 0);
	if (n <= 0)
		return;
	now[n] = '\0';
	chomp(now);
	if (!strcmp(now, w->vt_cur) || !now[0])
		return;
	snprintf(line, sizeof(line), "VT switch %s->%s", vt_number(w->vt_cur), vt_number(now));
	if (vt_expected(w, vt_number(now))) {
		logline(w, '-', "%s (expected)", line);
	} else {
		snprintf(detail, sizeof(detail), "%s at %.0f s", line, since(w));
		counts(w, WATCH_VT, detail, line);
	}
	snprintf(w->vt_cur, sizeof(w->vt_cur), "%s", now);
}

static void kmsg_open(struct watch *w)
{
	struct stat st;

	w->kmsg_fd = -1;
	if (stat(w->o.kmsg, &st) < 0) {
		logline(w, '#', "USB devices not watched: '%s': %s", w->o.kmsg, strerror(errno));
		return;
	}
	w->kmsg_fd = open(w->o.kmsg, (S_ISFIFO(st.st_mode) ? O_RDWR : O_RDONLY) | O_NONBLOCK |
				     O_CLOEXEC);
	if (w->kmsg_fd < 0) {
		logline(w, '#', "USB devices not watched: '%s': %s", w->o.kmsg, strerror(errno));
		return;
	}
	/* only what the kernel says from now on */
	if (S_ISCHR(st.st_mode) || S_ISREG(st.st_mode))
		lseek(w->kmsg_fd, 0, SEEK_END);
	logline(w, '#', "watching the kernel log for USB devices (%s)", w->o.kmsg);
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
	counts(w, WATCH_DEVICE, u == WATCH_USB_CONNECTED ? "a USB device connected"
						       : "a USB device disconnected",
	       out);
}

static void kmsg_read(struct watch *w)
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

/* ------------------------------------------------------------- processes */

struct pstat {
	pid_t ppid, pgrp;
	int tty;
	unsigned long long cpu, start;
	unsigned flags;
	char comm[32];
};

/* Parses /proc/PID/stat (comm may hold spaces and parentheses). */
static int pstat_read(pid_t pid, struct pstat *ret)
{
	char path[64], buf[1024], *rp, *lp;
	unsigned long long ut, st, start;
	int ppid, pgrp, tty;
	unsigned flags;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (read_small(path, buf, sizeof(buf)) <= 0)
		return -ESRCH;
	lp = strchr(buf, '(');
	rp = strrchr(buf, ')');
	if (!lp || !rp || rp < lp)
		return -EINVAL;
	snprintf(ret->comm, sizeof(ret->comm), "%.*s", (int)(rp - lp - 1), lp + 1);
	/* after ") ": state ppid pgrp session tty_nr tpgid flags minflt cminflt
	 * majflt cmajflt utime stime cutime cstime priority nice threads
	 * itrealvalue starttime */
	if (sscanf(rp + 2, "%*c %d %d %*d %d %*d %u %*u %*u %*u %*u %llu %llu %*d %*d %*d %*d %*d "
			   "%*d %llu",
		   &ppid, &pgrp, &tty, &flags, &ut, &st, &start) != 7)
		return -EINVAL;
	ret->ppid = ppid;
	ret->pgrp = pgrp;
	ret->tty = tty;
	ret->flags = flags;
	ret->cpu = ut + st;
	ret->start = start;
	return 0;
}

static struct proc *proc_find(struct watch *w, pid_t pid)
{
	for (size_t i = 0; i < w->nprocs; i++)
		if (w->procs[i].pid == pid)
			return &w->procs[i];
	return NULL;
}

/* Is PID the run's: the program, in its group, or below it (or below the
 * watcher itself)? Follows parents through the processes known. */
static bool proc_of_run(struct watch *w, const struct proc *p)
{
	pid_t prog = atomic_load(&w->program);
	int depth = 0;

	if (prog > 0 && p->pgrp == prog)
		return true;
	while (p && depth++ < 64) {
		if ((prog > 0 && p->pid == prog) || p->pid == w->self)
			return true;
		if (p->ppid <= 1)
			return false;
		p = proc_find(w, p->ppid);
	}
	return false;
}

static bool environ_has_run(struct watch *w, pid_t pid)
{
	char path[64], buf[65536], want[PATH_MAX + 32];
	ssize_t n, i = 0;
	size_t wl;

	if (!w->o.rundir)
		return false;
	snprintf(path, sizeof(path), "/proc/%d/environ", pid);
	n = read_small(path, buf, sizeof(buf));
	if (n <= 0)
		return false;
	wl = (size_t)snprintf(want, sizeof(want), "STALLSCOPE_RUN=%s", w->o.rundir);
	while (i < n) {
		size_t l = strnlen(buf + i, (size_t)(n - i));

		if (l == wl && !memcmp(buf + i, want, wl))
			return true;
		i += (ssize_t)l + 1;
	}
	return false;
}

static enum proc_class proc_classify(struct watch *w, struct proc *p, const struct pstat *ps)
{
	char path[64], buf[2048];

	if (p->pid == 2 || p->ppid == 2 || (ps->flags & 0x00200000))	/* PF_KTHREAD */
		return PROC_KERNEL;
	if (proc_of_run(w, p) || environ_has_run(w, p->pid))
		return PROC_RUN;
	if (w->has_re && regexec(&w->exempt_re, p->comm, 0, NULL, 0) == 0)
		return PROC_EXEMPT;
	snprintf(path, sizeof(path), "/proc/%d/cgroup", p->pid);
	if (read_small(path, buf, sizeof(buf)) > 0) {
		if (strstr(buf, "/session-"))
			return PROC_SESSION;
		if (strstr(buf, "system.slice") || strstr(buf, "init.scope"))
			return PROC_SYSTEM;
	}
	snprintf(path, sizeof(path), "/proc/%d/sessionid", p->pid);
	if (read_small(path, buf, sizeof(buf)) > 0 && strtoul(buf, NULL, 10) != SESSION_NONE)
		return PROC_SESSION;
	if (ps->tty != 0)
		return PROC_SESSION;
	return PROC_OTHER;
}

static struct proc *proc_add(struct watch *w, pid_t pid, const struct pstat *ps, bool is_new)
{
	struct proc *p;

	if (ARRAY_GROW(w->procs, w->aprocs, w->nprocs + 1) < 0)
		return NULL;
	p = &w->procs[w->nprocs++];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->ppid = ps->ppid;
	p->pgrp = ps->pgrp;
	p->start = ps->start;
	p->cpu0 = is_new ? 0 : ps->cpu;
	p->is_new = is_new;
	p->seen = true;
	snprintf(p->comm, sizeof(p->comm), "%s", ps->comm);
	return p;
}

static void proc_new(struct watch *w, struct proc *p, const struct pstat *ps)
{
	char detail[160], line[200];

	p->cls = proc_classify(w, p, ps);
	switch (p->cls) {
	case PROC_RUN:
		logline(w, '-', "new process %d (%s): the run's", p->pid, p->comm);
		break;
	case PROC_EXEMPT:
		logline(w, '-', "new process %d (%s): exempt", p->pid, p->comm);
		break;
	case PROC_SYSTEM:
		logline(w, 'i', "new process %d (%s): system service", p->pid, p->comm);
		break;
	case PROC_SESSION:
		snprintf(detail, sizeof(detail), "process %d (%s) started at %.0f s", p->pid,
			 p->comm, since(w));
		snprintf(line, sizeof(line), "new process %d (%s) in a login session", p->pid,
			 p->comm);
		counts(w, WATCH_PROCESS, detail, line);
		break;
	default:
		break;
	}
}

/* Lists /proc: new pids are read once; once a second every tracked
 * process's CPU time is checked against the 1 s rule. */
static void procs_scan(struct watch *w)
{
	bool cpu_round = !w->procs_primed || ++w->scans % (1000 / TICK_MS) == 0;
	DIR *dir = opendir("/proc");
	struct dirent *e;
	size_t i;

	if (!dir)
		return;
	for (i = 0; i < w->nprocs; i++)
		w->procs[i].seen = false;
	while ((e = readdir(dir))) {
		struct pstat ps;
		struct proc *p;
		pid_t pid;

		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		pid = (pid_t)atoi(e->d_name);
		p = proc_find(w, pid);
		if (p && !cpu_round) {
			p->seen = true;
			continue;
		}
		if (pstat_read(pid, &ps) < 0)
			continue;
		if (p && p->start != ps.start) {	/* the pid was reused */
			*p = w->procs[--w->nprocs];
			p = NULL;
		}
		if (!p) {
			p = proc_add(w, pid, &ps, w->procs_primed);
			if (!p)
				continue;
			if (w->procs_primed)
				proc_new(w, p, &ps);
			else
				p->cls = PROC_UNKNOWN;	/* classified when it first uses CPU */
			continue;
		}
		p->seen = true;
		if (p->counted || p->cls == PROC_KERNEL || p->cls == PROC_RUN ||
		    p->cls == PROC_EXEMPT)
			continue;
		if ((ps.cpu - p->cpu0) * (1000000000ull / (unsigned long long)w->hz) >=
		    CPU_RULE_NS) {
			char detail[160], line[200];
			double cpu = (double)(ps.cpu - p->cpu0) / (double)w->hz;

			/* the name now, not at first sight: it may have exec'ed since,
			 * and an exec can make it exempt (its new name) or the run's
			 * (its new environment): first seen between fork and exec, a
			 * process was classified by its parent's name and environment */
			bool execd = strcmp(p->comm, ps.comm) != 0;

			snprintf(p->comm, sizeof(p->comm), "%s", ps.comm);
			if (p->cls == PROC_UNKNOWN || execd) {
				enum proc_class was = p->cls;

				p->cls = proc_classify(w, p, &ps);
				if (was != PROC_UNKNOWN && was != p->cls &&
				    (p->cls == PROC_RUN || p->cls == PROC_EXEMPT))
					logline(w, '-', "process %d (%s) after an exec: %s", p->pid,
						p->comm, p->cls == PROC_RUN ? "the run's" : "exempt");
			}
			if (p->cls == PROC_KERNEL || p->cls == PROC_RUN || p->cls == PROC_EXEMPT)
				continue;
			p->counted = true;
			if (p->cls == PROC_SYSTEM) {
				logline(w, 'i', "process %d (%s), a system service, used %.1f s of CPU",
					p->pid, p->comm, cpu);
				continue;
			}
			snprintf(detail, sizeof(detail), "process %d (%s) used %.1f s CPU", p->pid,
				 p->comm, cpu);
			snprintf(line, sizeof(line), "process %d (%s) used %.1f s of CPU during the run",
				 p->pid, p->comm, cpu);
			counts(w, WATCH_PROCESS, detail, line);
		}
	}
	closedir(dir);
	/* forget the processes that are gone */
	for (i = 0; i < w->nprocs;) {
		if (!w->procs[i].seen && cpu_round)
			w->procs[i] = w->procs[--w->nprocs];
		else
			i++;
	}
	w->procs_primed = true;
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
			if (ev->wd == w->wd_input && is_event_file(ev->name)) {
				struct dev *d = dev_find(w, ev->name);

				if ((ev->mask & (IN_CREATE | IN_MOVED_TO | IN_ATTRIB)) && !d) {
					d = dev_open(w, ev->name);
					if (!d)
						continue;
					if (d->exempt) {
						logline(w, '-', "input device appeared: '%s' (exempt: held by %s)",
							d->name, d->holder);
						continue;
					}
					snprintf(line, sizeof(line), "input device appeared: '%s'", d->name);
					snprintf(detail, sizeof(detail), "input device '%s' appeared at %.0f s",
						 d->name, since(w));
					counts(w, WATCH_DEVICE, detail, line);
				} else if ((ev->mask & (IN_DELETE | IN_MOVED_FROM)) && d) {
					snprintf(line, sizeof(line), "input device went away: '%s'", d->name);
					snprintf(detail, sizeof(detail), "input device '%s' went away at %.0f s",
						 d->name, since(w));
					if (d->exempt)
						logline(w, '-', "%s (exempt)", line);
					else
						counts(w, WATCH_DEVICE, detail, line);
					dev_close(w, d);
				}
			} else if (ev->wd == w->wd_sessions && ev->name[0] != '.' &&
				   !strchr(ev->name, '.') &&
				   (ev->mask & (IN_CLOSE_WRITE | IN_MOVED_TO))) {
				session_new(w, ev->name);
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
					dev_read(w, &w->devs[i]);
			if (pfd[1].revents & POLLIN)
				inotify_read(w);
			if (pfd[3].revents & POLLIN)
				kmsg_read(w);
		}
		vt_check(w);
		for (unsigned i = 0; i < w->ndevs; i++)
			dev_tick(w, &w->devs[i], false);
		if (!w->o.no_procs && since(w) >= next_scan) {
			procs_scan(w);
			next_scan = since(w) + TICK_MS / 1000.0;
		}
	}
	/* last reads, then close bursts still open */
	for (unsigned i = 0; i < w->ndevs; i++) {
		dev_read(w, &w->devs[i]);
		dev_tick(w, &w->devs[i], true);
	}
	if (w->kmsg_fd >= 0)
		kmsg_read(w);
	vt_check(w);
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
	if (o->log_path && !strcmp(o->log_path, "-")) {
		w->log = stdout;
	} else if (o->log_path) {
		w->log = fopen(o->log_path, "ae");
		if (!w->log) {
			r = -errno;
			sb_addf(err, "unable to open '%s': %s", o->log_path, strerror(errno));
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
		logline(w, '#', "stallscope watch started %s; '!' counts, '-' does not, 'i' is information",
			stamp);
	}
	w->ino = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	w->wd_input = w->wd_sessions = -1;
	if (w->ino >= 0) {
		w->wd_input = inotify_add_watch(w->ino, w->o.input_dir,
						IN_CREATE | IN_DELETE | IN_MOVED_TO | IN_MOVED_FROM |
							IN_ATTRIB);
		w->wd_sessions = inotify_add_watch(w->ino, w->o.sessions_dir,
						   IN_CLOSE_WRITE | IN_MOVED_TO);
		sessions_prime(w);
		if (w->wd_sessions < 0)
			logline(w, '#', "logins not watched: '%s': %s", w->o.sessions_dir,
				strerror(errno));
		else
			logline(w, '#', "watching logins (%s)", w->o.sessions_dir);
	}
	input_open_all(w);
	vt_open(w);
	kmsg_open(w);
	if (!w->o.no_procs) {
		procs_scan(w);
		logline(w, '#', "watching processes (%zu now)", w->nprocs);
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
	logline(w, '#', "summary: interfered=%d interference=%s", ret->interfered, sum.buf);
	logline(w, '#', "watcher cost: %.3f s CPU, max RSS %ld kB", ret->cpu_s, ret->maxrss_kb);
	ret->summary = sb_detach(&sum);
	watch_free(w);
	return ret->summary ? 0 : -ENOMEM;
}
