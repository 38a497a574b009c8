// SPDX-License-Identifier: MIT
/*
 * watch_input.c: the watcher's input devices: every /dev/input/event*
 * opened (an exempt holder's device, the run's own, left out), read as its
 * events come, and judged by core/watchrules.h's input rules.
 */
#include <limits.h>
#include <linux/input.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "linux/watch_int.h"

static bool holder_is_exempt(struct watch *w, const char *devpath, char *holder, size_t len)
{
	DIR *proc, *fds;
	struct dirent *p, *f;
	char path[600], link[PATH_MAX], comm[32];	/* a comm is 16 at most */
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
			if (w_read_small(path, comm, sizeof(comm)) > 0) {
				w_chomp(comm);
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

struct dev *w_dev_find(struct watch *w, const char *file)
{
	for (unsigned i = 0; i < w->ndevs; i++)
		if (!strcmp(w->devs[i].file, file))
			return &w->devs[i];
	return NULL;
}

/* Opens input device FILE of the input directory; returns it or NULL (a
 * '#' line says why). */
struct dev *w_dev_open(struct watch *w, const char *file)
{
	char path[PATH_MAX], real[PATH_MAX];
	unsigned long absbits[(ABS_MAX + 1 + 63) / 64] = { 0 };
	unsigned long keybits[(KEY_MAX + 1 + 63) / 64] = { 0 };
	struct stat st;
	struct dev *d;

	if (w->ndevs == MAX_DEVS) {
		w_logline(w, '#', "input device '%s' not watched: %d devices at most", file, MAX_DEVS);
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
		w_logline(w, '#', "input device '%s' not watched: %s", path, strerror(errno));
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

void w_dev_close(struct watch *w, struct dev *d)
{
	close(d->fd);
	*d = w->devs[--w->ndevs];
}

static void dev_finding(struct watch *w, struct dev *d, const struct watch_finding *f,
			enum watch_kind kind)
{
	char line[300];

	if (f->mark == '!' && d->exempt) {
		w_logline(w, '-', "%s on '%s' (exempt: held by %s)", f->what, d->name, d->holder);
		return;
	}
	if (f->mark != '!') {
		w_logline(w, f->mark, "%s on '%s'", f->what, d->name);
		return;
	}
	snprintf(line, sizeof(line), "%s on '%s'", f->what, d->name);
	w_counts(w, kind, NULL, line);
}

void w_dev_read(struct watch *w, struct dev *d)
{
	struct input_event ev[64];
	struct watch_finding f;
	enum watch_kind kind;
	ssize_t n;

	while ((n = read(d->fd, ev, sizeof(ev))) > 0) {
		size_t k = (size_t)n / sizeof(ev[0]);

		d->last_read = w_since(w);
		for (size_t i = 0; i < k; i++) {
			double t = ev[i].input_event_sec + ev[i].input_event_usec / 1e6;

			d->last_ev = t;
			if (watch_input_feed(&d->rules, t, ev[i].type, ev[i].code, ev[i].value, &f,
					     &kind))
				dev_finding(w, d, &f, kind);
		}
		if ((size_t)n % sizeof(ev[0]))
			w_logline(w, '#', "'%s': a partial input event of %zu bytes dropped", d->name,
				  (size_t)n % sizeof(ev[0]));
	}
}

/* Ends idle motion bursts; the device clock runs on from its last event. */
void w_dev_tick(struct watch *w, struct dev *d, bool force)
{
	struct watch_finding f;
	double now = d->last_ev + (w_since(w) - d->last_read);

	if (watch_input_tick(&d->rules, now, force, &f))
		dev_finding(w, d, &f, WATCH_MOTION);
}

bool w_is_event_file(const char *name)
{
	return !strncmp(name, "event", 5);
}

void w_input_open_all(struct watch *w)
{
	DIR *dir = opendir(w->o.input_dir);
	struct dirent *e;

	if (!dir) {
		w_logline(w, '#', "no input devices watched: '%s': %s", w->o.input_dir,
			  strerror(errno));
		return;
	}
	while ((e = readdir(dir)))
		if (w_is_event_file(e->d_name))
			w_dev_open(w, e->d_name);
	closedir(dir);
	for (unsigned i = 0; i < w->ndevs; i++)
		w_logline(w, '#', "watching input device '%s' (%s)%s", w->devs[i].name,
			  w->devs[i].file, w->devs[i].exempt ? ", exempt" : "");
}
