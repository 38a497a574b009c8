// SPDX-License-Identifier: MIT
/*
 * sampler_src.c: the sampler's kept-open files (struct src: opened once,
 * re-read with pread at offset 0 into one buffer; in naive mode opened,
 * read and closed each time, for benchmarks), what each kind of read costs
 * (sampler_costs), and its notes, fields and meta.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/hot.h"
#include "core/grow.h"
#include "linux/sampler_int.h"

const char *const sampler_cost_names[C_NCOST] = {
    [C_TASK_STAT] = "task stat",
    [C_SCHEDSTAT] = "task schedstat",
    [C_WCHAN] = "task wchan",
    [C_SYSCALL] = "task syscall",
    [C_FD_LINK] = "fd readlink",
    [C_STACK] = "task stack",
    [C_PROC_STAT] = "proc stat",
    [C_PROC_CLOCK] = "proc cpu clock",
    [C_DISK] = "disk stat",
    [C_PSI] = "psi",
    [C_CG_PSI] = "cgroup psi",
    [C_VMSTAT] = "vmstat",
    [C_OTHER_CLOCK] = "other cpu clock",
    [C_OTHER_STAT] = "other stat",
    [C_THREADS] = "threads (slow)",
    [C_SYS_STAT] = "/proc/stat (slow)",
    [C_MEMINFO] = "meminfo (slow)",
    [C_DRM] = "drm fdinfo (slow)",
    [C_EXACT] = "exact (counters, ring)",
};

SS_HOT uint64_t sampler_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void sampler_note(struct sampler *s, bool event, int tid, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	char *text;

	va_start(ap, fmt);
	if (sb_vaddf(&sb, fmt, ap) < 0) {
		va_end(ap);
		return;
	}
	va_end(ap);
	text = sb_detach(&sb);
	if (!text)
		return;
	if (ARRAY_GROW(s->notes, s->anotes, s->nnotes + 1) < 0) {
		free(text);
		return;
	}
	s->notes[s->nnotes++] = text;
	if (event && s->nevents < MAX_EVENTS) {
		struct strbuf *t = &s->ev_text[s->nevents];

		sb_reset(t);
		if (sb_adds(t, text) == 0) {
			s->events[s->nevents] =
			    (struct sampler_event){.tid = tid, .kind = "note", .text = t->buf};
			s->nevents++;
		}
	}
}

int sampler_add_field(struct sampler *s, enum rec_kind kind, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	char *name;

	va_start(ap, fmt);
	if (sb_vaddf(&sb, fmt, ap) < 0) {
		va_end(ap);
		return -ENOMEM;
	}
	va_end(ap);
	name = sb_detach(&sb);
	if (!name)
		return -ENOMEM;
	if (s->nfields == s->afields) {
		size_t a = s->afields ? 2 * s->afields : 64;
		/* two arrays sharing one room (afields): not ARRAY_GROW's one */
		struct sampler_field *f = realloc(s->fields, a * sizeof(*f));
		char **n;

		if (!f) {
			free(name);
			return -ENOMEM;
		}
		s->fields = f;
		n = realloc(s->names, a * sizeof(*n));
		if (!n) {
			free(name);
			return -ENOMEM;
		}
		s->names = n;
		s->afields = a;
	}
	s->names[s->nfields] = name;
	s->fields[s->nfields] = (struct sampler_field){.name = name, .kind = kind};
	return (int)s->nfields++;
}

int sampler_add_meta(struct sampler *s, const char *key, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	char *k, *v;

	va_start(ap, fmt);
	if (sb_vaddf(&sb, fmt, ap) < 0) {
		va_end(ap);
		return -ENOMEM;
	}
	va_end(ap);
	v = sb_detach(&sb);
	k = strdup(key);
	if (!v || !k)
		goto nomem;
	if (ARRAY_GROW(s->meta, s->ameta, s->nmeta + 1) < 0)
		goto nomem;
	s->meta[s->nmeta++] = (struct sampler_meta){.key = k, .value = v};
	return 0;
nomem:
	free(k);
	free(v);
	return -ENOMEM;
}

void sampler_src_init(struct src *f)
{
	f->fd = -1;
	f->open_err = 0;
	f->path = NULL;
	f->noted = false;
}

void sampler_src_close(struct src *f)
{
	if (f->fd >= 0)
		close(f->fd);
	free(f->path);
	sampler_src_init(f);
}

int sampler_src_open(struct sampler *s, struct src *f, const char *path)
{
	sampler_src_close(f);
	f->path = strdup(path);
	if (!f->path)
		return -ENOMEM;
	f->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (f->fd < 0) {
		f->open_err = -errno;
		return f->open_err;
	}
	if (s->o.naive) {
		close(f->fd);
		f->fd = -2; /* "openable": read opens it each time */
	}
	return 0;
}

int sampler_src_openf(struct sampler *s, struct src *f, const char *fmt, ...)
{
	char path[PATH_SIZE];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(path))
		return -ENAMETOOLONG;
	return sampler_src_open(s, f, path);
}

SS_HOT bool sampler_src_ok(const struct src *f)
{
	return f->fd != -1;
}

SS_HOT ssize_t sampler_src_read(struct sampler *s, struct src *f, size_t size, enum cost kind)
{
	uint64_t t0 = s->o.profile ? sampler_mono_ns() : 0;
	ssize_t n;

	s->nreads++;
	if (f->fd == -1) {
		n = f->open_err ? f->open_err : -EBADF; /* the note says why */
	} else if (s->o.naive) {
		FILE *fp = fopen(f->path, "re");

		if (!fp) {
			n = -errno;
		} else {
			size_t r = fread(s->buf, 1, size, fp);

			n = ferror(fp) ? -EIO : (ssize_t)r;
			fclose(fp);
		}
	} else {
		n = pread(f->fd, s->buf, size, 0);
		if (n < 0)
			n = -errno;
	}
	if (s->o.profile) {
		s->costs[kind].reads++;
		s->costs[kind].ns += sampler_mono_ns() - t0;
	}
	return n;
}

void sampler_src_failed(struct sampler *s, struct src *f, int err, int tid)
{
	if (f->noted || err == -ESRCH)
		return;
	f->noted = true;
	sampler_note(s, true, tid, "'%s': %s%s", f->path ? f->path : "?", strerror(-err),
		 err == -EACCES || err == -EPERM ? " (the process may not be traced by this user)"
					     : "");
}

SS_HOT int64_t sampler_cpu_clock(struct sampler *s, clockid_t clk, enum cost kind)
{
	uint64_t t0 = s->o.profile ? sampler_mono_ns() : 0;
	struct timespec ts;
	int64_t v = -1;

	s->nreads++;
	if (clock_gettime(clk, &ts) == 0)
		v = (int64_t)ts.tv_sec * 1000000000ll + ts.tv_nsec;
	if (s->o.profile) {
		s->costs[kind].reads++;
		s->costs[kind].ns += sampler_mono_ns() - t0;
	}
	return v;
}

/* The clock of process PID's CPU time, as glibc's clock_getcpuclockid
 * builds it (CPUCLOCK_SCHED of the whole process). */
bool sampler_proc_clock(struct sampler *s, int pid, clockid_t *ret)
{
	struct timespec ts;
	clockid_t c;

	if (!s->live || clock_getcpuclockid(pid, &c) != 0 || clock_gettime(c, &ts) != 0)
		return false;
	*ret = c;
	return true;
}
