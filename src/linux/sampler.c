// SPDX-License-Identifier: MIT
/*
 * sampler.c: the recorder's sample (see sampler.h).
 *
 * Workload: one sample every 10 ms for hours, on a machine also running the
 * program being measured, so every microsecond counts. A system call costs
 * about 1.2 us on the reference machine (a VM with page-table isolation), a
 * kept-open pread of a small /proc file 2-4 us, /proc/vmstat 13 us, an
 * open-read-close with stdio 12-23 us. Hence:
 *
 *  - every file is opened once and re-read with pread at offset 0 into one
 *    fixed buffer (netdata's procfile idea); parsers touch only what we need;
 *  - a value lives in s->cur and is overwritten only by a good read, so a
 *    field that cannot be read keeps its previous value;
 *  - cheap signals gate expensive sources where that keeps the values exact
 *    at sample resolution (docs/FORMAT.md, "Sample fields", says why each
 *    gate is exact):
 *      vmstat: read when PSI memory "some", any watched disk's I/O counts,
 *      the process's or frame thread's major faults, or kswapd's or
 *      kcompactd's CPU time moved, and on every slow sample;
 *      srv/kswapd/kcompactd stat: read when their CPU clock moved;
 *      syscall/fd of a blocked thread: read when it has run since the
 *      last read (schedstat run time or timeslices moved); its wchan when
 *      the syscall line (number, arguments, sp, pc) changed too;
 *      the process's stat: when a watched disk's counters or the frame
 *      thread's majflt moved, or the frame thread turned gone or zombie;
 *      a thread's stat in the slow per-thread snapshot: when it has run;
 *  - the slow sources (every thread, the process's CPU clock, PSI cpu and
 *    io, /proc/stat, meminfo, DRM fdinfo) are read every slow_every-th
 *    sample: no cause rule reads them.
 *
 * What a sample costs is mostly the kernel's code being cold after the
 * 10 ms sleep: each kind of read is several times dearer as the first of
 * its kind after a wake-up than right after (bench/floor.sh), so a kind of
 * read left out saves more than a read of a kind already done.
 *
 * Assumes Linux >= 4.20 for PSI (without it the psi.* fields and the vmstat
 * gate's PSI signal are absent and vmstat is read every sample), and
 * task/TID/schedstat (CONFIG_SCHED_INFO). With a root prefix (tests on a fake
 * tree) no CPU clocks are read: CPU times come from stat's ticks.
 */
#include "core/syscalls.h"
#include "linux/sampler.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/strbuf.h"
#include "linux/discover.h"
#include "linux/procparse.h"

#define PATH_SIZE 4096
#define BUF_SIZE (1 << 15) /* /proc/vmstat is ~4 KiB on 6.18 */
#define MAX_DISKS 32
#define MAX_EVENTS 16
#define MAX_STACKS 1000
#define STACK_AFTER_NS 50000000ull  /* blocked this long: first stack */
#define STACK_EVERY_NS 250000000ull /* then one every this long */
#define FD_CACHE 1024
#define FD_CACHE_NS 1000000000ull /* a cached fd target is trusted this long */
#define MAX_GPU_ENGINES 24

/* ---------------------------------------------------------------- costs */

enum cost {
	C_TASK_STAT,
	C_SCHEDSTAT,
	C_WCHAN,
	C_SYSCALL,
	C_FD_LINK,
	C_STACK,
	C_PROC_STAT,
	C_PROC_CLOCK,
	C_DISK,
	C_PSI,
	C_CG_PSI,
	C_VMSTAT,
	C_OTHER_CLOCK,
	C_OTHER_STAT,
	C_THREADS,
	C_SYS_STAT,
	C_MEMINFO,
	C_DRM,
	C_NCOST
};

static const char *const cost_names[C_NCOST] = {
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
};

/* ---------------------------------------------------------------- types */

/* One kept-open file. */
struct src {
	int fd;	      /* -1: not open */
	int open_err; /* fd -1: why the open failed (negative errno), or 0 */
	char *path;   /* for naive mode and notes */
	bool noted;   /* a read error was already noted */
};

/* The field indices of one sampled thread (ft or ft2). */
enum {
	TF_TID,
	TF_STATE,
	TF_WCHAN,
	TF_SYSCALL,
	TF_FD,
	TF_FD_TARGET,
	TF_MINFLT,
	TF_MAJFLT,
	TF_UTIME,
	TF_STIME,
	TF_CPU,
	TF_RUN,
	TF_WAIT,
	TF_SLICES,
	TF_N
};
static const char *const tf_names[TF_N] = {
    "tid",    "state",	  "wchan",    "syscall", "fd",	   "fd_target", "minflt",
    "majflt", "utime_ns", "stime_ns", "cpu",	 "run_ns", "wait_ns",	"slices",
};

struct fd_cache_ent {
	uint32_t id;
	uint64_t t_ns;
};

struct thr {
	const char *prefix; /* "ft" or "ft2" */
	int tid;	    /* 0: none */
	int base;	    /* index of its first field */
	struct src stat, schedstat, wchan, syscall, stack;
	bool gone;
	bool have_blocked;	       /* wchan/syscall were read while it was blocked */
	int64_t read_run, read_slices; /* schedstat when wchan/syscall were read */
	uint64_t blocked_since;	       /* 0: running */
	char last_wchan[64];	       /* the last wchan interned, and its id: most */
	uint32_t last_wchan_id;	       /* reads find the same one */
	char last_call[128];	       /* the syscall file's text at the last read */
	size_t last_call_len;	       /* (0: none) and the wchan read with it: */
	uint32_t call_wchan;	       /* wchan is read when that text changes */
	uint64_t last_stack;
};

/* Another process watched by stat: srv, kswapd, kcompactd. */
struct other {
	const char *prefix;
	int pid;
	int f_state, f_majflt, f_cpu; /* field indices, -1 if not declared */
	struct src stat;
	clockid_t clk;
	bool has_clk;
	int64_t last_clk;
	bool gone;
};

struct disk {
	char name[64];
	int base; /* rd_ios rd_sectors rd_ticks wr_ios wr_sectors in_flight io_ticks */
	struct src stat;
};

struct psi_src {
	struct src f;
	int f_some, f_full; /* -1 if not declared */
};

/* A thread of the process in the slow snapshot. */
struct tslot {
	int tid;
	bool seen;
	struct src stat, schedstat;
	char comm[64];
	uint32_t name;
	int64_t run_ns;
	int32_t cpu;
};

struct drm_fd {
	int fd; /* the program's fd number */
	struct src info;
};

struct sampler {
	struct sampler_opts o;
	const char *root;
	char *proc; /* ROOT/proc/PID */
	long hz;
	uint64_t tick_ns;
	unsigned slow_every;
	uint64_t nsample;
	bool live; /* no root prefix: CPU clocks usable */
	bool gate;
	bool is_root;
	char *buf;

	/* fields */
	struct sampler_field *fields;
	char **names; /* owned names, parallel to fields */
	size_t nfields, afields;
	int64_t *cur;
	int64_t *base; /* added to the process's counters (proc.minflt, proc.majflt,
			* proc.cpu_ns, gpu.*) on the way out, so that they continue
			* across sampler_set_process; 0 until the first switch */

	struct sampler_meta *meta;
	size_t nmeta, ameta;

	char **notes;
	size_t nnotes, anotes;

	struct sampler_event events[MAX_EVENTS];
	struct strbuf ev_text[MAX_EVENTS];
	size_t nevents;

	struct sampler_cost costs[C_NCOST];

	/* sources */
	struct thr th[2];
	int f_proc_minflt, f_proc_majflt, f_proc_cpu, f_proc_threads;
	struct src proc_stat;
	clockid_t proc_clk;
	bool has_proc_clk;
	bool proc_gone; /* the last read of /proc/PID/stat said it has gone:
			 * read it again every sample */

	struct src vmstat;
	size_t nvm;
	const char **vm_names;
	int *vm_field;
	int64_t *vm_vals;
	uint64_t gate_sig; /* vm_signal() at the last vmstat read */
	uint64_t proc_sig; /* the I/O signature at the last /proc/PID/stat read */
	bool gate_valid;

	struct disk disks[MAX_DISKS];
	size_t ndisks;

	struct psi_src psi[3], cg[3]; /* cpu, memory, io */

	struct other others[3]; /* srv, kswapd, kcompactd */

	/* slow */
	DIR *taskdir;
	struct tslot *ts;
	size_t nts, ats;
	struct rec_thread *snap;
	size_t nsnap, asnap;

	struct src sys_stat;
	int f_sys[5]; /* user system idle iowait steal */
	struct src meminfo;
	int f_mem_avail;

	int drm_dirfd; /* ROOT/proc/PID/fd, for its size (the fd count) */
	int64_t drm_fdcount;
	struct drm_fd *drm;
	size_t ndrm, adrm;
	char gpu_names[MAX_GPU_ENGINES][32];
	int gpu_field[MAX_GPU_ENGINES];
	size_t ngpu;
	int f_gpu_other;
	uint64_t drm_scan_at_ns;   /* the next forced rescan (0: at the next look) */
	uint64_t drm_last_scan_ns; /* the last rescan */

	struct fd_cache_ent fdc[2][FD_CACHE];
	unsigned stacks;
};

/* ---------------------------------------------------------------- helpers */

/* DRM fds are looked for again when the fd count moved, at most this
 * often (a scan readlinks every fd, and a loading game opens many), and
 * at least this often anyway: by time, whatever the sampling period. */
#define DRM_SCAN_MIN_NS 1000000000ull
#define DRM_SCAN_EVERY_NS 10000000000ull

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void note(struct sampler *s, bool event, int tid, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void note(struct sampler *s, bool event, int tid, const char *fmt, ...)
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
	if (s->nnotes == s->anotes) {
		size_t a = s->anotes ? 2 * s->anotes : 16;
		char **n = realloc(s->notes, a * sizeof(*n));

		if (!n) {
			free(text);
			return;
		}
		s->notes = n;
		s->anotes = a;
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

static int add_field(struct sampler *s, enum rec_kind kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int add_field(struct sampler *s, enum rec_kind kind, const char *fmt, ...)
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

static int add_meta(struct sampler *s, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int add_meta(struct sampler *s, const char *key, const char *fmt, ...)
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
	if (s->nmeta == s->ameta) {
		size_t a = s->ameta ? 2 * s->ameta : 16;
		struct sampler_meta *m = realloc(s->meta, a * sizeof(*m));

		if (!m)
			goto nomem;
		s->meta = m;
		s->ameta = a;
	}
	s->meta[s->nmeta++] = (struct sampler_meta){.key = k, .value = v};
	return 0;
nomem:
	free(k);
	free(v);
	return -ENOMEM;
}

static void src_init(struct src *f)
{
	f->fd = -1;
	f->open_err = 0;
	f->path = NULL;
	f->noted = false;
}

static void src_close(struct src *f)
{
	if (f->fd >= 0)
		close(f->fd);
	free(f->path);
	src_init(f);
}

/* Opens PATH into F (kept open unless naive). Returns 0 or a negative errno;
 * F keeps the path either way. */
static int src_open(struct sampler *s, struct src *f, const char *path)
{
	src_close(f);
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

static int src_openf(struct sampler *s, struct src *f, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int src_openf(struct sampler *s, struct src *f, const char *fmt, ...)
{
	char path[PATH_SIZE];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(path))
		return -ENAMETOOLONG;
	return src_open(s, f, path);
}

static bool src_ok(const struct src *f)
{
	return f->fd != -1;
}

/* Reads F into s->buf (at most SIZE bytes, SIZE <= BUF_SIZE); returns the
 * length or a negative errno. Accounts its cost under KIND. */
static ssize_t src_read(struct sampler *s, struct src *f, size_t size, enum cost kind)
{
	uint64_t t0 = s->o.profile ? mono_ns() : 0;
	ssize_t n;

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
		s->costs[kind].ns += mono_ns() - t0;
	}
	return n;
}

/* Notes a read error of F once (not for ESRCH: callers handle a thread or
 * process that has gone). */
static void src_failed(struct sampler *s, struct src *f, int err, int tid)
{
	if (f->noted || err == -ESRCH)
		return;
	f->noted = true;
	note(s, true, tid, "'%s': %s%s", f->path ? f->path : "?", strerror(-err),
	     err == -EACCES || err == -EPERM ? " (the process may not be traced by this user)"
					     : "");
}

static int64_t cpu_clock(struct sampler *s, clockid_t clk, enum cost kind)
{
	uint64_t t0 = s->o.profile ? mono_ns() : 0;
	struct timespec ts;
	int64_t v = -1;

	if (clock_gettime(clk, &ts) == 0)
		v = (int64_t)ts.tv_sec * 1000000000ll + ts.tv_nsec;
	if (s->o.profile) {
		s->costs[kind].reads++;
		s->costs[kind].ns += mono_ns() - t0;
	}
	return v;
}

/* The clock of process PID's CPU time, as glibc's clock_getcpuclockid
 * builds it (CPUCLOCK_SCHED of the whole process). */
static bool proc_clock(struct sampler *s, int pid, clockid_t *ret)
{
	struct timespec ts;
	clockid_t c;

	if (!s->live || clock_getcpuclockid(pid, &c) != 0 || clock_gettime(c, &ts) != 0)
		return false;
	*ret = c;
	return true;
}

/* ---------------------------------------------------------------- syscalls with an fd */

/* Does syscall NR (this machine's ABI) take a file descriptor as its first
 * argument? core/syscalls.h's table says. */
static bool syscall_has_fd(int64_t nr)
{
	const struct syscall_info *sc = syscall_lookup(SYSCALL_NATIVE_ARM64, (long)nr);

	return sc && sc->takes_fd;
}

static const char *syscall_abi(void)
{
#if defined(__x86_64__)
	return "x86_64";
#elif defined(__aarch64__)
	return "aarch64";
#else
	return "unknown";
#endif
}

/* ---------------------------------------------------------------- threads */

static void thr_close(struct thr *t)
{
	src_close(&t->stat);
	src_close(&t->schedstat);
	src_close(&t->wchan);
	src_close(&t->syscall);
	src_close(&t->stack);
}

/* Points T at thread TID (0: none) and resets its per-thread state. */
static int thr_open(struct sampler *s, struct thr *t, int tid)
{
	int r;

	thr_close(t);
	t->tid = tid;
	t->gone = false;
	t->have_blocked = false;
	t->blocked_since = 0;
	t->last_stack = 0;
	t->last_wchan_id = 0;
	t->last_call_len = 0;
	t->call_wchan = 0;
	memset(s->fdc[t == &s->th[1]], 0, sizeof(s->fdc[0]));
	if (tid == 0)
		return 0;
	r = src_openf(s, &t->stat, "%s/task/%d/stat", s->proc, tid);
	if (r < 0) {
		t->gone = true; /* sampled as gone, never read */
		return r == -ENOENT ? -ESRCH : r;
	}
	(void)src_openf(s, &t->schedstat, "%s/task/%d/schedstat", s->proc, tid);
	(void)src_openf(s, &t->wchan, "%s/task/%d/wchan", s->proc, tid);
	(void)src_openf(s, &t->syscall, "%s/task/%d/syscall", s->proc, tid);
	if (s->is_root && !s->o.no_stacks)
		(void)src_openf(s, &t->stack, "%s/task/%d/stack", s->proc, tid);
	return 0;
}

/* The interned readlink of the thread's fd FD, cached per fd for a second. */
static uint32_t fd_target(struct sampler *s, struct thr *t, int64_t fd, uint64_t t_ns)
{
	struct fd_cache_ent *c = NULL;
	char path[PATH_SIZE], link[PATH_SIZE];
	uint64_t t0;
	ssize_t n;
	uint32_t id;

	if (fd < 0 || fd > INT32_MAX)
		return 0;
	if (fd < FD_CACHE && !s->o.naive) {
		c = &s->fdc[t == &s->th[1]][fd];
		if (c->id && t_ns - c->t_ns < FD_CACHE_NS)
			return c->id;
	}
	t0 = s->o.profile ? mono_ns() : 0;
	snprintf(path, sizeof(path), "%s/task/%d/fd/%d", s->proc, t->tid, (int)fd);
	n = readlink(path, link, sizeof(link) - 1);
	if (s->o.profile) {
		s->costs[C_FD_LINK].reads++;
		s->costs[C_FD_LINK].ns += mono_ns() - t0;
	}
	if (n <= 0)
		return 0;
	link[n] = '\0';
	id = s->o.intern(s->o.intern_ctx, link);
	if (c) {
		c->id = id;
		c->t_ns = t_ns;
	}
	return id;
}

static void stack_event(struct sampler *s, struct thr *t, ssize_t n)
{
	struct strbuf *sb;
	const char *p = s->buf, *end = s->buf + n;

	if (s->nevents >= MAX_EVENTS)
		return;
	sb = &s->ev_text[s->nevents];
	sb_reset(sb);
	/* "[<0>] do_wait+0x53/0x120": keep the symbol, one frame a line. */
	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		const char *q = p;

		if (!eol)
			eol = end;
		if (eol - q >= 2 && q[0] == '[') {
			const char *rb = memchr(q, ']', (size_t)(eol - q));

			if (rb)
				q = rb + 1;
			while (q < eol && *q == ' ')
				q++;
		}
		if (q < eol) {
			(void)sb_add(sb, q, (size_t)(eol - q));
			(void)sb_addc(sb, '\n');
		}
		p = eol + 1;
	}
	if (sb->len == 0)
		return;
	s->events[s->nevents++] =
	    (struct sampler_event){.tid = t->tid, .kind = "stack", .text = sb->buf};
}

/* The syscall fields of T from the N bytes of its syscall file in s->buf. */
static void syscall_fields(struct sampler *s, struct thr *t, int64_t *v, ssize_t n, uint64_t t_ns)
{
	struct pp_syscall sc;

	if (n >= 0 && pp_syscall(s->buf, (size_t)n, &sc) == 0) {
		v[TF_SYSCALL] = sc.nr;
		if (sc.nr >= 0 && syscall_has_fd(sc.nr) && sc.args[0] <= INT32_MAX) {
			v[TF_FD] = (int64_t)sc.args[0];
			v[TF_FD_TARGET] = fd_target(s, t, v[TF_FD], t_ns);
		} else {
			v[TF_FD] = -1;
			v[TF_FD_TARGET] = 0;
		}
		return;
	}
	if (n < 0 && n != -ESRCH)
		src_failed(s, &t->syscall, (int)n, t->tid);
	v[TF_SYSCALL] = -2;
	v[TF_FD] = -1;
	v[TF_FD_TARGET] = 0;
}

/* Reads T's wchan into v[TF_WCHAN] (0: none or unreadable). */
static void wchan_field(struct sampler *s, struct thr *t, int64_t *v)
{
	ssize_t n = src_read(s, &t->wchan, 256, C_WCHAN);
	char w[128];

	if (n < 0 || pp_wchan(s->buf, (size_t)n, w, sizeof(w)) != 0 || !w[0]) {
		v[TF_WCHAN] = 0;
		return;
	}
	if (!t->last_wchan_id || strncmp(w, t->last_wchan, sizeof(t->last_wchan) - 1) != 0) {
		t->last_wchan_id = s->o.intern(s->o.intern_ctx, w);
		snprintf(t->last_wchan, sizeof(t->last_wchan), "%.63s", w);
	}
	v[TF_WCHAN] = t->last_wchan_id;
}

static void sample_thread(struct sampler *s, struct thr *t, uint64_t t_ns)
{
	int64_t *v = s->cur + t->base;
	struct pp_task_stat st;
	struct pp_schedstat ss;
	bool running, ran = true, ran_now = true;
	int64_t prev_run = v[TF_RUN], prev_slices = v[TF_SLICES];
	ssize_t n;

	v[TF_TID] = t->tid;
	if (t->tid == 0 || t->gone)
		return;
	n = src_read(s, &t->stat, 1024, C_TASK_STAT);
	if (n == -ESRCH || n == -ENOENT) {
		t->gone = true;
		v[TF_STATE] = 'X';
		note(s, true, t->tid, "%s thread %d gone", t->prefix, t->tid);
		return;
	}
	if (n < 0 || pp_task_stat(s->buf, (size_t)n, &st) < 0) {
		src_failed(s, &t->stat, n < 0 ? (int)n : -EINVAL, t->tid);
		return;
	}
	v[TF_STATE] = (unsigned char)st.state;
	v[TF_MINFLT] = (int64_t)st.minflt;
	v[TF_MAJFLT] = (int64_t)st.majflt;
	v[TF_UTIME] = (int64_t)(st.utime * s->tick_ns);
	v[TF_STIME] = (int64_t)(st.stime * s->tick_ns);
	v[TF_CPU] = st.processor;

	if (src_ok(&t->schedstat)) {
		n = src_read(s, &t->schedstat, 256, C_SCHEDSTAT);
		if (n >= 0 && pp_schedstat(s->buf, (size_t)n, &ss) == 0) {
			v[TF_RUN] = (int64_t)ss.run_ns;
			v[TF_WAIT] = (int64_t)ss.wait_ns;
			v[TF_SLICES] = (int64_t)ss.slices;
			ran = v[TF_RUN] != t->read_run || v[TF_SLICES] != t->read_slices;
			ran_now = v[TF_RUN] != prev_run || v[TF_SLICES] != prev_slices;
		} else if (n != -ESRCH) {
			src_failed(s, &t->schedstat, n < 0 ? (int)n : -EINVAL, t->tid);
		}
	}

	running = st.state == 'R';
	if (running) {
		v[TF_WCHAN] = 0;
		v[TF_SYSCALL] = -1;
		v[TF_FD] = -1;
		v[TF_FD_TARGET] = 0;
		t->have_blocked = false;
		t->blocked_since = 0;
		t->last_stack = 0;
		return;
	}

	/* Blocked. If it has not run since wchan and syscall were read, it is
	 * still where it was: same wchan, same syscall (a task changes where it
	 * blocks only by running). If it ran, its syscall is read; wchan only
	 * when that line (number, six arguments, user sp and pc) changed: the
	 * same call from the same place sleeps in the same kernel function (a
	 * frame loop waiting on the same futex or fence every frame).
	 * bench/sampler.sh measures how often that is wrong. */
	if (!t->have_blocked || ran || !s->gate) {
		char call[sizeof(t->last_call)];
		size_t len = 0;
		bool same_call;

		n = src_read(s, &t->syscall, 256, C_SYSCALL);
		if (n > 0 && (size_t)n <= sizeof(call)) {
			len = (size_t)n;
			memcpy(call, s->buf, len); /* wchan_field reuses s->buf */
		}
		same_call = len && len == t->last_call_len && memcmp(call, t->last_call, len) == 0;
		/* no_gate (benchmarks): count the reads a gate would have got wrong */
		if (!s->gate && t->have_blocked && !ran) {
			s->costs[C_SYSCALL].would_skip++;
			if (len && !same_call)
				s->costs[C_SYSCALL].missed++;
		}
		syscall_fields(s, t, v, n, t_ns);
		if (same_call && s->gate) {
			v[TF_WCHAN] = t->call_wchan;
			s->costs[C_WCHAN].skipped++;
		} else {
			wchan_field(s, t, v);
			if (same_call) {
				s->costs[C_WCHAN].would_skip++;
				if (v[TF_WCHAN] != t->call_wchan)
					s->costs[C_WCHAN].missed++;
			}
		}
		memcpy(t->last_call, call, len);
		t->last_call_len = len;
		t->call_wchan = (uint32_t)v[TF_WCHAN];
		t->have_blocked = true;
		t->read_run = v[TF_RUN];
		t->read_slices = v[TF_SLICES];
	}

	/* The kernel stack: once blocked 50 ms, then every 250 ms. A thread
	 * that ran since the previous sample starts a new episode, though it
	 * was asleep at both (a frame loop sleeping between frames). */
	if (t->blocked_since == 0 || ran_now) {
		t->blocked_since = t_ns ? t_ns : 1;
		t->last_stack = 0;
	}
	if (src_ok(&t->stack) && s->stacks < MAX_STACKS &&
	    t_ns - t->blocked_since >= STACK_AFTER_NS &&
	    (t->last_stack == 0 || t_ns - t->last_stack >= STACK_EVERY_NS)) {
		n = src_read(s, &t->stack, 8192, C_STACK);
		if (n > 0) {
			stack_event(s, t, n);
			s->stacks++;
			if (s->stacks == MAX_STACKS)
				note(s, true, 0, "kernel stacks: %d taken, no more this run",
				     MAX_STACKS);
		} else if (n < 0 && n != -ESRCH) {
			src_failed(s, &t->stack, (int)n, t->tid);
		}
		t->last_stack = t_ns;
	}
}

/* ---------------------------------------------------------------- others */

static void sample_other(struct sampler *s, struct other *o, bool slow)
{
	struct pp_task_stat st;
	ssize_t n;
	bool moved = true;

	if (o->pid == 0 || o->gone)
		return;
	if (o->has_clk) {
		int64_t c = cpu_clock(s, o->clk, C_OTHER_CLOCK);

		if (c >= 0) {
			moved = c != o->last_clk;
			o->last_clk = c;
			if (o->f_cpu >= 0)
				s->cur[o->f_cpu] = c;
		}
	}
	/* Its state and faults change only when it runs. */
	if (!moved && s->gate && !slow && !(s->nsample == 0)) {
		s->costs[C_OTHER_STAT].skipped++;
		return;
	}
	n = src_read(s, &o->stat, 1024, C_OTHER_STAT);
	if (n == -ESRCH || n == -ENOENT) {
		o->gone = true;
		if (o->f_state >= 0)
			s->cur[o->f_state] = 'X';
		note(s, true, o->pid, "%s (pid %d) gone", o->prefix, o->pid);
		return;
	}
	if (n < 0 || pp_task_stat(s->buf, (size_t)n, &st) < 0) {
		src_failed(s, &o->stat, n < 0 ? (int)n : -EINVAL, o->pid);
		return;
	}
	if (o->f_state >= 0)
		s->cur[o->f_state] = (unsigned char)st.state;
	if (o->f_majflt >= 0)
		s->cur[o->f_majflt] = (int64_t)st.majflt;
	if (!o->has_clk && o->f_cpu >= 0)
		s->cur[o->f_cpu] = (int64_t)((st.utime + st.stime) * s->tick_ns);
}

/* ---------------------------------------------------------------- slow: threads */

static struct tslot *tslot_find(struct sampler *s, int tid)
{
	for (size_t i = 0; i < s->nts; i++)
		if (s->ts[i].tid == tid)
			return &s->ts[i];
	return NULL;
}

static void sample_threads(struct sampler *s)
{
	struct dirent *e;
	size_t w;

	s->nsnap = 0;
	if (!s->taskdir)
		return;
	for (size_t i = 0; i < s->nts; i++)
		s->ts[i].seen = false;
	rewinddir(s->taskdir);
	while ((e = readdir(s->taskdir))) {
		char *end;
		long tid = strtol(e->d_name, &end, 10);
		struct tslot *t;
		struct pp_schedstat ss;
		struct pp_task_stat st;
		bool ran = true;
		ssize_t n;

		if (*end || tid <= 0)
			continue;
		t = tslot_find(s, (int)tid);
		if (!t) {
			if (s->nts == s->ats) {
				size_t a = s->ats ? 2 * s->ats : 32;
				struct tslot *nt = realloc(s->ts, a * sizeof(*nt));

				if (!nt)
					continue;
				s->ts = nt;
				s->ats = a;
			}
			t = &s->ts[s->nts++];
			memset(t, 0, sizeof(*t));
			t->tid = (int)tid;
			t->run_ns = -1;
			src_init(&t->stat);
			src_init(&t->schedstat);
			if (src_openf(s, &t->stat, "%s/task/%ld/stat", s->proc, tid) < 0 ||
			    src_openf(s, &t->schedstat, "%s/task/%ld/schedstat", s->proc, tid) <
				0) {
				src_close(&t->stat);
				src_close(&t->schedstat);
				s->nts--;
				continue;
			}
		}
		n = src_read(s, &t->schedstat, 256, C_THREADS);
		if (n < 0)
			continue; /* gone: dropped below */
		if (pp_schedstat(s->buf, (size_t)n, &ss) == 0) {
			ran = (int64_t)ss.run_ns != t->run_ns;
			t->run_ns = (int64_t)ss.run_ns;
		}
		/* A thread that has not run has the same CPU and comm. */
		if (ran || !s->gate || t->name == 0) {
			n = src_read(s, &t->stat, 1024, C_THREADS);
			if (n < 0 || pp_task_stat(s->buf, (size_t)n, &st) < 0)
				continue;
			t->cpu = st.processor;
			if (t->name == 0 || strcmp(t->comm, st.comm) != 0) {
				snprintf(t->comm, sizeof(t->comm), "%s", st.comm);
				t->name = s->o.intern(s->o.intern_ctx, t->comm);
			}
			if (t->run_ns < 0)
				t->run_ns = (int64_t)((st.utime + st.stime) * s->tick_ns);
		} else {
			s->costs[C_THREADS].skipped++;
		}
		t->seen = true;
	}
	/* Drop threads that have gone; snapshot the rest. */
	w = 0;
	for (size_t i = 0; i < s->nts; i++) {
		if (!s->ts[i].seen) {
			src_close(&s->ts[i].stat);
			src_close(&s->ts[i].schedstat);
			continue;
		}
		s->ts[w++] = s->ts[i];
	}
	s->nts = w;
	if (s->nts > s->asnap) {
		struct rec_thread *ns = realloc(s->snap, s->nts * sizeof(*ns));

		if (!ns)
			return;
		s->snap = ns;
		s->asnap = s->nts;
	}
	for (size_t i = 0; i < s->nts; i++)
		s->snap[i] = (struct rec_thread){
		    .tid = (uint32_t)s->ts[i].tid,
		    .name = s->ts[i].name,
		    .cpu_ns = s->ts[i].run_ns < 0 ? 0 : (uint64_t)s->ts[i].run_ns,
		    .cpu = s->ts[i].cpu,
		};
	s->nsnap = s->nts;
}

/* ---------------------------------------------------------------- slow: gpu */

static void drm_close_all(struct sampler *s)
{
	for (size_t i = 0; i < s->ndrm; i++)
		src_close(&s->drm[i].info);
	s->ndrm = 0;
}

/* (Re)finds the program's /dev/dri fds and opens their fdinfo. */
static void drm_scan(struct sampler *s)
{
	char path[PATH_SIZE], link[256];
	struct dirent *e;
	DIR *d;

	drm_close_all(s);
	snprintf(path, sizeof(path), "%s/fd", s->proc);
	d = opendir(path);
	if (!d)
		return;
	while ((e = readdir(d))) {
		char *end;
		long fd = strtol(e->d_name, &end, 10);
		ssize_t n;

		if (*end || fd < 0 || e->d_name[0] == '\0')
			continue;
		snprintf(path, sizeof(path), "%s/fd/%ld", s->proc, fd);
		n = readlink(path, link, sizeof(link) - 1);
		if (n <= 0)
			continue;
		link[n] = '\0';
		if (strncmp(link, "/dev/dri/", 9) != 0)
			continue;
		if (s->ndrm == s->adrm) {
			size_t a = s->adrm ? 2 * s->adrm : 8;
			struct drm_fd *nd = realloc(s->drm, a * sizeof(*nd));

			if (!nd)
				break;
			s->drm = nd;
			s->adrm = a;
		}
		src_init(&s->drm[s->ndrm].info);
		s->drm[s->ndrm].fd = (int)fd;
		if (src_openf(s, &s->drm[s->ndrm].info, "%s/fdinfo/%ld", s->proc, fd) == 0)
			s->ndrm++;
		else
			src_close(&s->drm[s->ndrm].info);
	}
	closedir(d);
}

static int64_t fd_count(struct sampler *s)
{
	struct stat st;

	if (s->drm_dirfd < 0 || fstat(s->drm_dirfd, &st) != 0)
		return -1;
	return (int64_t)st.st_size;
}

static void sample_gpu(struct sampler *s, uint64_t t_ns)
{
	uint64_t seen_clients[64];
	size_t nseen = 0;
	int64_t sums[MAX_GPU_ENGINES + 1];
	int64_t count = fd_count(s);
	bool any = false;

	if (s->f_gpu_other < 0)
		return;
	/* The fd count (st_size of /proc/PID/fd, Linux >= 6.2) is the cheap
	 * signal that fds came or went; rescan then (at most once a second: a
	 * scan readlinks every fd, and a loading game opens many), and every
	 * 10 s anyway. */
	if (((count != s->drm_fdcount || count < 0) && t_ns >= s->drm_last_scan_ns + DRM_SCAN_MIN_NS) ||
	    t_ns >= s->drm_scan_at_ns) {
		drm_scan(s);
		s->drm_fdcount = count;
		s->drm_last_scan_ns = t_ns;
		s->drm_scan_at_ns = t_ns + DRM_SCAN_EVERY_NS;
	}
	memset(sums, 0, sizeof(sums));
	for (size_t i = 0; i < s->ndrm; i++) {
		struct pp_drm d;
		ssize_t n = src_read(s, &s->drm[i].info, 4096, C_DRM);
		bool dup = false;

		if (n < 0 || pp_drm_fdinfo(s->buf, (size_t)n, &d) < 0 || d.nengines == 0)
			continue;
		/* fds of one DRM client (dup, fork) report the same counters. */
		if (d.has_client_id) {
			for (size_t k = 0; k < nseen; k++)
				dup |= seen_clients[k] == d.client_id;
			if (dup)
				continue;
			if (nseen < 64)
				seen_clients[nseen++] = d.client_id;
		}
		for (size_t k = 0; k < d.nengines; k++) {
			size_t g;

			for (g = 0; g < s->ngpu; g++)
				if (strcmp(s->gpu_names[g], d.engines[k].name) == 0)
					break;
			sums[g < s->ngpu ? g : MAX_GPU_ENGINES] += (int64_t)d.engines[k].ns;
		}
		any = true;
	}
	if (!any)
		return;
	for (size_t g = 0; g < s->ngpu; g++)
		s->cur[s->gpu_field[g]] = sums[g];
	s->cur[s->f_gpu_other] = sums[MAX_GPU_ENGINES];
}

/* Engines each driver reports (Documentation/gpu/drm-usage-stats.rst and the
 * drivers' fdinfo code), so the fields exist before the program opens the GPU. */
static const struct {
	const char *driver;
	const char *engines[9];
} drm_engines[] = {
    {"i915", {"render", "copy", "video", "video-enhance", "compute", NULL}},
    {"amdgpu", {"gfx", "compute", "dma", "dec", "enc", "enc_1", "jpeg", "vpe", NULL}},
    {"msm", {"gpu", NULL}},
    {"panfrost", {"fragment", "vertex-tiler", NULL}},
    {"panthor", {"panthor", NULL}},
    {"v3d", {"bin", "render", "tfu", "csd", "cache_clean", NULL}},
    {"etnaviv", {"3d", "2d", NULL}},
};

static void gpu_add_engine(struct sampler *s, const char *name)
{
	for (size_t g = 0; g < s->ngpu; g++)
		if (strcmp(s->gpu_names[g], name) == 0)
			return;
	if (s->ngpu >= MAX_GPU_ENGINES || strlen(name) >= sizeof(s->gpu_names[0]))
		return;
	snprintf(s->gpu_names[s->ngpu], sizeof(s->gpu_names[0]), "%s", name);
	s->ngpu++;
}

static int setup_gpu(struct sampler *s)
{
	char path[PATH_SIZE], link[PATH_SIZE], drivers[256] = "";
	struct dirent *e;
	DIR *d;
	int r;

	s->f_gpu_other = -1;
	if (discover_path(path, sizeof(path), s->root, "/sys/class/drm") < 0)
		return 0;
	d = opendir(path);
	if (!d) {
		note(s, false, 0, "gpu: no DRM devices (/sys/class/drm)");
		return 0;
	}
	while ((e = readdir(d))) {
		ssize_t n;
		const char *drv;

		if (strncmp(e->d_name, "renderD", 7) != 0 && strncmp(e->d_name, "card", 4) != 0)
			continue;
		if (strchr(e->d_name, '-'))
			continue; /* connectors: card0-HDMI-A-1 */
		if (discover_path(path, sizeof(path), s->root, "/sys/class/drm/%s/device/driver",
				  e->d_name) < 0)
			continue;
		n = readlink(path, link, sizeof(link) - 1);
		if (n <= 0)
			continue;
		link[n] = '\0';
		drv = strrchr(link, '/') ? strrchr(link, '/') + 1 : link;
		if (!strstr(drivers, drv) && strlen(drivers) + strlen(drv) + 2 < sizeof(drivers)) {
			if (drivers[0])
				strcat(drivers, ",");
			strcat(drivers, drv);
		}
		for (size_t i = 0; i < sizeof(drm_engines) / sizeof(drm_engines[0]); i++)
			if (strcmp(drm_engines[i].driver, drv) == 0)
				for (int k = 0; drm_engines[i].engines[k]; k++)
					gpu_add_engine(s, drm_engines[i].engines[k]);
	}
	closedir(d);
	if (!drivers[0]) {
		note(s, false, 0, "gpu: no DRM devices");
		return 0;
	}
	/* Engines the program already uses (attaching to a running program). */
	drm_scan(s);
	for (size_t i = 0; i < s->ndrm; i++) {
		struct pp_drm dd;
		ssize_t n = src_read(s, &s->drm[i].info, 4096, C_DRM);

		if (n >= 0 && pp_drm_fdinfo(s->buf, (size_t)n, &dd) == 0)
			for (size_t k = 0; k < dd.nengines; k++)
				gpu_add_engine(s, dd.engines[k].name);
	}
	for (size_t g = 0; g < s->ngpu; g++) {
		r = add_field(s, REC_INT, "gpu.%s_ns", s->gpu_names[g]);
		if (r < 0)
			return r;
		s->gpu_field[g] = r;
	}
	r = add_field(s, REC_INT, "gpu.other_ns");
	if (r < 0)
		return r;
	s->f_gpu_other = r;
	snprintf(path, sizeof(path), "%s/fd", s->proc);
	s->drm_dirfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	s->drm_fdcount = fd_count(s);
	add_meta(s, "gpu.drivers", "%s", drivers);
	if (s->ngpu == 0)
		note(s, false, 0,
		     "gpu: driver '%s' reports no drm-engine-* busy time known here; "
		     "engines seen later count in gpu.other_ns",
		     drivers);
	return 0;
}

/* ---------------------------------------------------------------- setup */

static const char *const vm_wanted[] = {
    "pgmajfault",
    "pswpin",
    "pswpout",
    "pgscan_direct",
    "pgsteal_direct",
    "allocstall_normal",
    "allocstall_movable",
    "allocstall_dma32",
    "compact_stall",
    "pgscan_kswapd",
    "pgsteal_kswapd",
    "workingset_refault_file",
    "workingset_refault_anon",
    "oom_kill",
};
#define NVM (sizeof(vm_wanted) / sizeof(vm_wanted[0]))

static int setup_vmstat(struct sampler *s)
{
	int64_t vals[NVM];
	bool found[NVM];
	char path[PATH_SIZE];
	ssize_t n;
	int r;

	if (discover_path(path, sizeof(path), s->root, "/proc/vmstat") < 0 ||
	    src_open(s, &s->vmstat, path) < 0) {
		note(s, false, 0, "vmstat: cannot open /proc/vmstat");
		return 0;
	}
	n = src_read(s, &s->vmstat, BUF_SIZE, C_VMSTAT);
	if (n < 0) {
		note(s, false, 0, "vmstat: cannot read /proc/vmstat: %s", strerror((int)-n));
		src_close(&s->vmstat);
		return 0;
	}
	s->vm_names = calloc(NVM, sizeof(*s->vm_names));
	s->vm_field = calloc(NVM, sizeof(*s->vm_field));
	s->vm_vals = calloc(NVM, sizeof(*s->vm_vals));
	if (!s->vm_names || !s->vm_field || !s->vm_vals)
		return -ENOMEM;
	for (size_t i = 0; i < NVM; i++) {
		const char *one[1] = {vm_wanted[i]};

		vals[i] = -1;
		found[i] = pp_keyed(s->buf, (size_t)n, one, 1, &vals[i]) == 1;
	}
	for (size_t i = 0; i < NVM; i++) {
		if (!found[i]) {
			note(s, false, 0, "vm.%s: not in /proc/vmstat on this kernel",
			     vm_wanted[i]);
			continue;
		}
		r = add_field(s, REC_INT, "vm.%s", vm_wanted[i]);
		if (r < 0)
			return r;
		s->vm_names[s->nvm] = vm_wanted[i];
		s->vm_field[s->nvm] = r;
		s->nvm++;
	}
	return 0;
}

static int setup_psi(struct sampler *s, struct psi_src *p, const char *scope, const char *dir,
		     const char *file, const char *res, bool want_full)
{
	char path[PATH_SIZE];
	struct pp_psi v;
	ssize_t n;
	int r;

	p->f_some = p->f_full = -1;
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	if (src_open(s, &p->f, path) < 0) {
		src_close(&p->f);
		return 1;
	}
	n = src_read(s, &p->f, 256, C_PSI);
	if (n < 0 || pp_psi(s->buf, (size_t)n, &v) < 0) {
		note(s, false, 0, "%s.%s: cannot read '%s': %s", scope, res, path,
		     n < 0 ? strerror((int)-n) : "unexpected format");
		src_close(&p->f);
		return 1;
	}
	r = add_field(s, REC_INT, "%s.%s.some_us", scope, res);
	if (r < 0)
		return r;
	p->f_some = r;
	if (want_full && v.has_full) {
		r = add_field(s, REC_INT, "%s.%s.full_us", scope, res);
		if (r < 0)
			return r;
		p->f_full = r;
	}
	return 0;
}

static int setup_other(struct sampler *s, struct other *o, const char *prefix, int pid, bool majflt)
{
	int r;

	o->prefix = prefix;
	o->pid = 0;
	o->f_state = o->f_majflt = o->f_cpu = -1;
	src_init(&o->stat);
	if (pid <= 0)
		return 0;
	if (src_openf(s, &o->stat, "%s/proc/%d/stat", s->root, pid) < 0) {
		note(s, false, 0, "%s: cannot open /proc/%d/stat", prefix, pid);
		src_close(&o->stat);
		return 0;
	}
	o->pid = pid;
	o->has_clk = proc_clock(s, pid, &o->clk);
	o->last_clk = -1;
	if ((r = add_field(s, REC_INT, "%s.state", prefix)) < 0)
		return r;
	o->f_state = r;
	if (majflt) {
		if ((r = add_field(s, REC_INT, "%s.majflt", prefix)) < 0)
			return r;
		o->f_majflt = r;
	}
	if ((r = add_field(s, REC_INT, "%s.cpu_ns", prefix)) < 0)
		return r;
	o->f_cpu = r;
	return 0;
}

static int setup_thread_fields(struct sampler *s, struct thr *t, const char *prefix)
{
	t->prefix = prefix;
	for (int i = 0; i < TF_N; i++) {
		int r =
		    add_field(s, (i == TF_WCHAN || i == TF_FD_TARGET) ? REC_STR : REC_INT,
			      "%s.%s", prefix, tf_names[i]);

		if (r < 0)
			return r;
		if (i == 0)
			t->base = r;
	}
	return 0;
}

static int setup(struct sampler *s)
{
	struct disc_disk dd[MAX_DISKS];
	struct strbuf why = STRBUF_INIT;
	char path[PATH_SIZE], dir[PATH_SIZE], srv_name[64];
	const char *kt_names[2] = {"kswapd0", "kcompactd0"};
	int kt_pids[2] = {0, 0}, srv_pid = 0;
	size_t nd = 0;
	int r;

	/* The program's own threads and process. */
	if ((r = setup_thread_fields(s, &s->th[0], "ft")) < 0 ||
	    (r = setup_thread_fields(s, &s->th[1], "ft2")) < 0)
		return r;
	if ((r = add_field(s, REC_INT, "proc.minflt")) < 0)
		return r;
	s->f_proc_minflt = r;
	if ((r = add_field(s, REC_INT, "proc.majflt")) < 0)
		return r;
	s->f_proc_majflt = r;
	if ((r = add_field(s, REC_INT, "proc.cpu_ns")) < 0)
		return r;
	s->f_proc_cpu = r;
	if ((r = add_field(s, REC_INT, "proc.threads")) < 0)
		return r;
	s->f_proc_threads = r;
	s->has_proc_clk = proc_clock(s, s->o.pid, &s->proc_clk);

	if ((r = setup_vmstat(s)) < 0)
		return r;

	/* Disks. */
	(void)discover_disks(s->root, s->o.pid, dd, MAX_DISKS, &nd, &why);
	for (size_t i = 0; i < nd; i++) {
		struct disk *d = &s->disks[s->ndisks];
		static const char *const dn[] = {"rd_ios",     "rd_sectors", "rd_ticks", "wr_ios",
						 "wr_sectors", "in_flight",  "io_ticks"};
		char roles[32];

		src_init(&d->stat);
		if (src_openf(s, &d->stat, "%s/sys/class/block/%s/stat", s->root, dd[i].name) < 0) {
			note(s, false, 0, "disk %s: cannot open its stat", dd[i].name);
			src_close(&d->stat);
			continue;
		}
		memcpy(d->name, dd[i].name, sizeof(d->name)); /* both 64 bytes, NUL-terminated */
		for (int k = 0; k < 7; k++) {
			r = add_field(s, REC_INT, "disk.%s.%s", d->name, dn[k]);
			if (r < 0)
				return r;
			if (k == 0)
				d->base = r;
		}
		discover_roles(dd[i].roles, roles, sizeof(roles));
		char key[96];

		snprintf(key, sizeof(key), "disk.%s", d->name);
		add_meta(s, key, "%s", roles);
		s->ndisks++;
	}

	/* Pressure, system-wide and the program's cgroup. */
	{
		static const char *const res[3] = {"cpu", "memory", "io"};
		bool any = false;

		if (discover_path(dir, sizeof(dir), s->root, "/proc/pressure") < 0)
			return -ENAMETOOLONG;
		for (int i = 0; i < 3; i++) {
			r = setup_psi(s, &s->psi[i], "psi", dir, res[i], res[i], i > 0);
			if (r < 0)
				return r;
			any |= r == 0;
		}
		if (!any)
			note(s, false, 0,
			     "psi: no /proc/pressure (kernel without CONFIG_PSI, or "
			     "psi=0): psi.* not recorded, vmstat read every sample");
		if (discover_cgroup(s->root, s->o.pid, dir, sizeof(dir), &why) == 0) {
			for (int i = 0; i < 3; i++) {
				char file[32];

				snprintf(file, sizeof(file), "%s.pressure", res[i]);
				r = setup_psi(s, &s->cg[i], "cg", dir, file, res[i], i > 0);
				if (r < 0)
					return r;
			}
			add_meta(s, "cgroup", "%s", dir);
		} else {
			for (int i = 0; i < 3; i++) {
				src_init(&s->cg[i].f);
				s->cg[i].f_some = s->cg[i].f_full = -1;
			}
		}
	}

	/* Other processes. */
	if (discover_display_server(s->root, &srv_pid, srv_name, sizeof(srv_name), &why) == 0)
		add_meta(s, "srv", "%s %d", srv_name, srv_pid);
	if ((r = setup_other(s, &s->others[0], "srv", srv_pid, true)) < 0)
		return r;
	(void)discover_by_comm(s->root, kt_names, 2, kt_pids);
	if (!kt_pids[0])
		note(s, false, 0, "kswapd: no kswapd0 found");
	if (!kt_pids[1])
		note(s, false, 0, "kcompactd: no kcompactd0 found");
	if ((r = setup_other(s, &s->others[1], "kswapd", kt_pids[0], false)) < 0 ||
	    (r = setup_other(s, &s->others[2], "kcompactd", kt_pids[1], false)) < 0)
		return r;

	/* Slow sources. */
	if ((r = setup_gpu(s)) < 0)
		return r;
	{
		static const char *const sn[5] = {"user_ns", "system_ns", "idle_ns", "iowait_ns",
						  "steal_ns"};

		if (discover_path(path, sizeof(path), s->root, "/proc/stat") == 0 &&
		    src_open(s, &s->sys_stat, path) == 0) {
			for (int i = 0; i < 5; i++) {
				if ((r = add_field(s, REC_INT, "sys.%s", sn[i])) < 0)
					return r;
				s->f_sys[i] = r;
			}
		} else {
			note(s, false, 0, "sys: cannot open /proc/stat");
			src_close(&s->sys_stat);
		}
		s->f_mem_avail = -1;
		if (discover_path(path, sizeof(path), s->root, "/proc/meminfo") == 0 &&
		    src_open(s, &s->meminfo, path) == 0) {
			if ((r = add_field(s, REC_INT, "sys.mem_avail_kb")) < 0)
				return r;
			s->f_mem_avail = r;
		} else {
			note(s, false, 0, "sys: cannot open /proc/meminfo");
			src_close(&s->meminfo);
		}
	}
	snprintf(path, sizeof(path), "%s/task", s->proc);
	s->taskdir = opendir(path);
	if (!s->taskdir)
		note(s, false, 0, "threads: cannot list '%s': %s", path, strerror(errno));

	if (!s->is_root && !s->o.no_stacks)
		note(s, false, 0, "kernel stacks: not root, not recorded");

	/* Discovery's reasons become notes, one a line. */
	for (char *p = why.buf, *nl; *p; p = nl + 1) {
		nl = strchr(p, '\n');
		if (!nl)
			break;
		*nl = '\0';
		note(s, false, 0, "%s", p);
	}
	sb_release(&why);

	add_meta(s, "hz", "%ld", s->hz);
	add_meta(s, "syscall_abi", "%s", syscall_abi());
	add_meta(s, "sampler.slow_every", "%u", s->slow_every);
	add_meta(s, "sampler.gating", "%s", s->gate ? "on" : "off");
	return 0;
}

/* ---------------------------------------------------------------- API */

int sampler_new(const struct sampler_opts *opts, struct sampler **ret)
{
	struct sampler *s;
	char path[PATH_SIZE];
	int r;

	if (!opts || !opts->intern || opts->pid <= 0 || opts->ft_tid < 0 || opts->ft2_tid < 0)
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->o = *opts;
	s->root = opts->root ? opts->root : "";
	s->live = s->root[0] == '\0';
	s->slow_every = opts->slow_every ? opts->slow_every : 10;
	s->gate = !opts->naive && !opts->no_gate;
	s->is_root = geteuid() == 0;
	s->hz = sysconf(_SC_CLK_TCK);
	if (s->hz <= 0)
		s->hz = 100;
	s->tick_ns = 1000000000ull / (uint64_t)s->hz;
	s->drm_dirfd = -1;
	s->f_gpu_other = -1;
	s->f_mem_avail = -1;
	for (int i = 0; i < 5; i++)
		s->f_sys[i] = -1;
	for (int i = 0; i < C_NCOST; i++)
		s->costs[i].source = cost_names[i];
	src_init(&s->proc_stat);
	src_init(&s->vmstat);
	src_init(&s->sys_stat);
	src_init(&s->meminfo);
	for (int i = 0; i < 2; i++) {
		src_init(&s->th[i].stat);
		src_init(&s->th[i].schedstat);
		src_init(&s->th[i].wchan);
		src_init(&s->th[i].syscall);
		src_init(&s->th[i].stack);
	}
	for (int i = 0; i < 3; i++) {
		src_init(&s->psi[i].f);
		src_init(&s->cg[i].f);
		s->psi[i].f_some = s->psi[i].f_full = -1;
		s->cg[i].f_some = s->cg[i].f_full = -1;
		src_init(&s->others[i].stat);
		s->others[i].f_state = s->others[i].f_majflt = s->others[i].f_cpu = -1;
	}
	for (size_t i = 0; i < MAX_EVENTS; i++)
		sb_init(&s->ev_text[i]);
	s->buf = malloc(BUF_SIZE);
	r = discover_path(path, sizeof(path), s->root, "/proc/%d", opts->pid);
	if (!s->buf || r < 0 || !(s->proc = strdup(path))) {
		r = r < 0 ? r : -ENOMEM;
		goto fail;
	}
	r = src_openf(s, &s->proc_stat, "%s/stat", s->proc);
	if (r < 0) {
		r = r == -ENOENT ? -ESRCH : r;
		goto fail;
	}
	r = setup(s);
	if (r < 0)
		goto fail;
	r = thr_open(s, &s->th[0], opts->ft_tid ? opts->ft_tid : opts->pid);
	if (r < 0)
		goto fail;
	if (opts->ft2_tid) {
		r = thr_open(s, &s->th[1], opts->ft2_tid);
		if (r < 0)
			goto fail;
	}
	s->cur = calloc(s->nfields ? s->nfields : 1, sizeof(*s->cur));
	s->base = calloc(s->nfields ? s->nfields : 1, sizeof(*s->base));
	if (!s->cur || !s->base) {
		r = -ENOMEM;
		goto fail;
	}
	/* Defaults for values not read yet: no syscall known, no fd. */
	for (int i = 0; i < 2; i++) {
		s->cur[s->th[i].base + TF_SYSCALL] = -2;
		s->cur[s->th[i].base + TF_FD] = -1;
	}
	*ret = s;
	return 0;
fail:
	sampler_free(s);
	return r;
}

void sampler_free(struct sampler *s)
{
	if (!s)
		return;
	thr_close(&s->th[0]);
	thr_close(&s->th[1]);
	src_close(&s->proc_stat);
	src_close(&s->vmstat);
	src_close(&s->sys_stat);
	src_close(&s->meminfo);
	for (size_t i = 0; i < s->ndisks; i++)
		src_close(&s->disks[i].stat);
	for (int i = 0; i < 3; i++) {
		src_close(&s->psi[i].f);
		src_close(&s->cg[i].f);
		src_close(&s->others[i].stat);
	}
	for (size_t i = 0; i < s->nts; i++) {
		src_close(&s->ts[i].stat);
		src_close(&s->ts[i].schedstat);
	}
	free(s->ts);
	free(s->snap);
	drm_close_all(s);
	free(s->drm);
	if (s->drm_dirfd >= 0)
		close(s->drm_dirfd);
	if (s->taskdir)
		closedir(s->taskdir);
	for (size_t i = 0; i < s->nfields; i++)
		free(s->names[i]);
	free(s->names);
	free(s->fields);
	for (size_t i = 0; i < s->nmeta; i++) {
		free((char *)s->meta[i].key);
		free((char *)s->meta[i].value);
	}
	free(s->meta);
	for (size_t i = 0; i < s->nnotes; i++)
		free(s->notes[i]);
	free(s->notes);
	for (size_t i = 0; i < MAX_EVENTS; i++)
		sb_release(&s->ev_text[i]);
	free(s->vm_names);
	free(s->vm_field);
	free(s->vm_vals);
	free(s->cur);
	free(s->base);
	free(s->proc);
	free(s->buf);
	free(s);
}

size_t sampler_fields(const struct sampler *s, const struct sampler_field **ret)
{
	*ret = s->fields;
	return s->nfields;
}

size_t sampler_meta(const struct sampler *s, const struct sampler_meta **ret)
{
	*ret = s->meta;
	return s->nmeta;
}

size_t sampler_notes(const struct sampler *s, const char *const **ret)
{
	*ret = (const char *const *)s->notes;
	return s->nnotes;
}

size_t sampler_events(const struct sampler *s, const struct sampler_event **ret)
{
	*ret = s->events;
	return s->nevents;
}

size_t sampler_threads(const struct sampler *s, const struct rec_thread **ret)
{
	*ret = s->snap;
	return s->nsnap;
}

size_t sampler_costs(const struct sampler *s, const struct sampler_cost **ret)
{
	*ret = s->costs;
	return C_NCOST;
}

int sampler_set_thread(struct sampler *s, unsigned which, int tid)
{
	struct thr *t;
	int r;

	if (which > 1 || tid < 0 || (which == 0 && tid == 0))
		return -EINVAL;
	t = &s->th[which];
	if (tid == t->tid && !t->gone)
		return 0;
	if (tid) {
		/* Check first, so a bad tid leaves the old thread sampled. */
		char path[PATH_SIZE];

		snprintf(path, sizeof(path), "%s/task/%d/stat", s->proc, tid);
		if (access(path, R_OK) != 0)
			return -ESRCH;
	}
	r = thr_open(s, t, tid);
	if (r < 0)
		return r;
	/* The new thread's values start fresh. */
	for (int i = 0; i < TF_N; i++)
		s->cur[t->base + i] = 0;
	s->cur[t->base + TF_TID] = tid;
	s->cur[t->base + TF_SYSCALL] = -2;
	s->cur[t->base + TF_FD] = -1;
	return 0;
}

static int read_proc_stat(struct sampler *s);

/* The process counters that continue across a change of process. */
static size_t cont_fields(const struct sampler *s, int *ret)
{
	size_t n = 0;

	ret[n++] = s->f_proc_minflt;
	ret[n++] = s->f_proc_majflt;
	ret[n++] = s->f_proc_cpu;
	for (size_t g = 0; g < s->ngpu; g++)
		ret[n++] = s->gpu_field[g];
	if (s->f_gpu_other >= 0)
		ret[n++] = s->f_gpu_other;
	return n;
}

int sampler_set_process(struct sampler *s, int pid, int tid)
{
	int cont[3 + MAX_GPU_ENGINES + 1];
	int64_t last[3 + MAX_GPU_ENGINES + 1];
	char path[PATH_SIZE];
	struct src st;
	size_t nc;
	char *proc;
	int r;

	if (pid <= 0 || tid < 0)
		return -EINVAL;
	if (!tid)
		tid = pid;
	if (pid == s->o.pid)
		return sampler_set_thread(s, 0, tid);
	r = discover_path(path, sizeof(path), s->root, "/proc/%d", pid);
	if (r < 0)
		return r;
	proc = strdup(path);
	if (!proc)
		return -ENOMEM;
	/* Check first, so a bad pid or tid leaves the old process sampled. */
	src_init(&st);
	snprintf(path, sizeof(path), "%s/task/%d/stat", proc, tid);
	r = access(path, R_OK) == 0 ? src_openf(s, &st, "%s/stat", proc) : -ESRCH;
	if (r < 0) {
		free(proc);
		return r == -ENOENT ? -ESRCH : r;
	}
	nc = cont_fields(s, cont);
	for (size_t i = 0; i < nc; i++)
		last[i] = s->cur[cont[i]] + s->base[cont[i]];

	src_close(&s->proc_stat);
	s->proc_stat = st;
	free(s->proc);
	s->proc = proc;
	s->o.pid = pid;
	s->proc_gone = false;
	s->has_proc_clk = proc_clock(s, pid, &s->proc_clk);
	for (size_t i = 0; i < s->nts; i++) {
		src_close(&s->ts[i].stat);
		src_close(&s->ts[i].schedstat);
	}
	s->nts = 0;
	if (s->taskdir)
		closedir(s->taskdir);
	snprintf(path, sizeof(path), "%s/task", s->proc);
	s->taskdir = opendir(path);
	drm_close_all(s);
	if (s->drm_dirfd >= 0)
		close(s->drm_dirfd);
	snprintf(path, sizeof(path), "%s/fd", s->proc);
	s->drm_dirfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	s->drm_fdcount = fd_count(s);
	s->drm_scan_at_ns = 0; /* sample_gpu rescans now */

	/* The new process's counters now, and the offsets that continue the
	 * old ones from them: a delta across the switch is what the new
	 * process did since, not its whole life. */
	if (s->has_proc_clk) {
		int64_t c = cpu_clock(s, s->proc_clk, C_PROC_CLOCK);

		if (c >= 0)
			s->cur[s->f_proc_cpu] = c;
	}
	(void)read_proc_stat(s);
	sample_gpu(s, mono_ns());
	for (size_t i = 0; i < nc; i++)
		s->base[cont[i]] = last[i] - s->cur[cont[i]];

	r = sampler_set_thread(s, 0, tid);
	if (r == 0)
		r = sampler_set_thread(s, 1, tid != pid ? pid : 0);
	return r;
}

/* Mixes V into the signature H. Not a sum: in_flight goes down as rd_ios
 * goes up, and a sum would hide that both moved. */
static uint64_t mix(uint64_t h, int64_t v)
{
	h ^= (uint64_t)v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	return h * 0xff51afd7ed558ccdull;
}

/* The signature of the I/O signals: every watched disk's reads, writes and
 * requests in flight, and the frame threads' major faults. */
static uint64_t io_signal(const struct sampler *s)
{
	uint64_t h = 0;

	for (size_t i = 0; i < s->ndisks; i++) {
		const int64_t *d = s->cur + s->disks[i].base;

		h = mix(h, d[0]); /* rd_ios */
		h = mix(h, d[3]); /* wr_ios */
		h = mix(h, d[5]); /* in_flight */
	}
	h = mix(h, s->cur[s->th[0].base + TF_MAJFLT]);
	h = mix(h, s->cur[s->th[1].base + TF_MAJFLT]);
	return h;
}

/* The signature of the signals that vmstat's counters can have moved: the
 * I/O signals, PSI memory and the process's major faults. */
static uint64_t vm_signal(const struct sampler *s)
{
	uint64_t h = io_signal(s);

	h = mix(h, s->psi[1].f_some >= 0 ? s->cur[s->psi[1].f_some] : 0);
	return mix(h, s->cur[s->f_proc_majflt]);
}

static void read_psi(struct sampler *s, struct psi_src *p, enum cost kind)
{
	struct pp_psi v;
	ssize_t n;

	if (p->f_some < 0)
		return;
	n = src_read(s, &p->f, 256, kind);
	if (n < 0 || pp_psi(s->buf, (size_t)n, &v) < 0) {
		src_failed(s, &p->f, n < 0 ? (int)n : -EINVAL, 0);
		return;
	}
	s->cur[p->f_some] = (int64_t)v.some_us;
	if (p->f_full >= 0)
		s->cur[p->f_full] = (int64_t)v.full_us;
}

/* Reads /proc/PID/stat. Returns 0, or -ESRCH when the process has gone
 * (or is a zombie with no live thread). */
static int read_proc_stat(struct sampler *s)
{
	struct pp_task_stat st;
	ssize_t n = src_read(s, &s->proc_stat, 1024, C_PROC_STAT);

	s->proc_gone = n == -ESRCH || n == -ENOENT;
	if (s->proc_gone)
		return -ESRCH;
	if (n < 0 || pp_task_stat(s->buf, (size_t)n, &st) < 0) {
		src_failed(s, &s->proc_stat, n < 0 ? (int)n : -EINVAL, s->o.pid);
		return 0;
	}
	s->cur[s->f_proc_minflt] = (int64_t)st.minflt;
	s->cur[s->f_proc_majflt] = (int64_t)st.majflt;
	s->cur[s->f_proc_threads] = st.num_threads;
	if (!s->has_proc_clk)
		s->cur[s->f_proc_cpu] = (int64_t)((st.utime + st.stime) * s->tick_ns);
	/* A zombie leader with live threads is still a running program. */
	s->proc_gone = (st.state == 'Z' || st.state == 'X') && st.num_threads <= 1;
	return s->proc_gone ? -ESRCH : 0;
}

/* Has T been seen as a zombie or dead (its process may have ended)? */
static bool thr_ended(const struct sampler *s, const struct thr *t)
{
	int64_t st = s->cur[t->base + TF_STATE];

	return st == 'Z' || st == 'X';
}

int sampler_sample(struct sampler *s, uint64_t t_ns, int64_t *vals)
{
	bool slow = s->nsample % s->slow_every == 0;
	bool first = s->nsample == 0;
	bool proc_read = false, mem_moved = true, ended;
	int64_t psi_mem_before = s->psi[1].f_some >= 0 ? s->cur[s->psi[1].f_some] : 0;
	uint64_t sig;
	ssize_t n;
	int ret = 0;

	s->nevents = 0;
	s->nsnap = 0;

	ended = thr_ended(s, &s->th[0]);
	sample_thread(s, &s->th[0], t_ns);
	sample_thread(s, &s->th[1], t_ns);
	ended = !ended && thr_ended(s, &s->th[0]);

	/* The process: no cause rule reads its CPU time, faults or thread
	 * count, so they are slow sources. Whether it still exists is the
	 * frame thread's to say: a process that ends takes its threads along
	 * (gone, or a zombie leader), and /proc/PID/stat decides in the sample
	 * that sees it (a zombie leader with live threads: at slow samples). */
	if (first || slow || !s->gate || ended || s->proc_gone) {
		if (s->has_proc_clk) {
			int64_t c = cpu_clock(s, s->proc_clk, C_PROC_CLOCK);

			if (c >= 0)
				s->cur[s->f_proc_cpu] = c;
		}
		ret = read_proc_stat(s);
		if (ret < 0)
			goto out;
		proc_read = true;
	} else if (s->has_proc_clk) {
		s->costs[C_PROC_CLOCK].skipped++;
	}

	for (size_t i = 0; i < s->ndisks; i++) {
		struct disk *d = &s->disks[i];
		struct pp_blkstat b;
		int64_t *v = s->cur + d->base;

		n = src_read(s, &d->stat, 512, C_DISK);
		if (n < 0 || pp_blkstat(s->buf, (size_t)n, &b) < 0) {
			src_failed(s, &d->stat, n < 0 ? (int)n : -EINVAL, 0);
			continue;
		}
		v[0] = (int64_t)b.rd_ios;
		v[1] = (int64_t)b.rd_sectors;
		v[2] = (int64_t)b.rd_ticks;
		v[3] = (int64_t)b.wr_ios;
		v[4] = (int64_t)b.wr_sectors;
		v[5] = (int64_t)b.in_flight;
		v[6] = (int64_t)b.io_ticks;
	}
	/* CPU and I/O pressure feed no cause rule (runq comes from the
	 * thread's own schedstat, io from its state and syscall) and each PSI
	 * read costs a few us: they are slow sources. Memory pressure is rule
	 * 2's, and the vmstat gate's signal. */
	for (int i = 0; i < 3; i++) {
		if (i == 1 || slow || !s->gate) {
			read_psi(s, &s->psi[i], C_PSI);
			read_psi(s, &s->cg[i], C_CG_PSI);
		}
	}
	if (s->psi[1].f_some >= 0)
		mem_moved = s->cur[s->psi[1].f_some] != psi_mem_before;

	/* The process's faults and thread count, between slow samples: a major
	 * fault of any of its threads needs a read, which moves a watched
	 * disk's counters when the file is on one, so they are read then. */
	if (!proc_read) {
		if (io_signal(s) != s->proc_sig) {
			ret = read_proc_stat(s);
			if (ret < 0)
				goto out;
			proc_read = true;
		} else {
			s->costs[C_PROC_STAT].skipped++;
		}
	}
	if (proc_read)
		s->proc_sig = io_signal(s);

	/* The display server every sample; kswapd and kcompactd when memory
	 * pressure moved (their work is a memory stall), and on slow samples. */
	sample_other(s, &s->others[0], slow);
	for (int i = 1; i < 3; i++) {
		if (s->gate && !slow && !first && !mem_moved) {
			if (s->others[i].pid)
				s->costs[C_OTHER_CLOCK].skipped++;
			continue;
		}
		sample_other(s, &s->others[i], slow);
	}

	/* vmstat last: the signals above are fresh. */
	if (s->nvm) {
		bool have_psi = s->psi[1].f_some >= 0;

		sig = vm_signal(s);
		if (!s->gate || !have_psi || slow || !s->gate_valid || sig != s->gate_sig) {
			n = src_read(s, &s->vmstat, BUF_SIZE, C_VMSTAT);
			if (n >= 0 &&
			    pp_keyed(s->buf, (size_t)n, s->vm_names, s->nvm, s->vm_vals) >= 0) {
				for (size_t i = 0; i < s->nvm; i++)
					s->cur[s->vm_field[i]] = s->vm_vals[i];
				s->gate_sig = sig;
				s->gate_valid = true;
			} else {
				src_failed(s, &s->vmstat, n < 0 ? (int)n : -EINVAL, 0);
			}
		} else {
			s->costs[C_VMSTAT].skipped++;
		}
	}

	if (slow) {
		struct pp_cpustat c;

		sample_threads(s);
		if (s->f_sys[0] >= 0) {
			n = src_read(s, &s->sys_stat, 512, C_SYS_STAT);
			if (n >= 0 && pp_cpustat(s->buf, (size_t)n, &c) == 0) {
				s->cur[s->f_sys[0]] = (int64_t)((c.user + c.nice) * s->tick_ns);
				s->cur[s->f_sys[1]] =
				    (int64_t)((c.system + c.irq + c.softirq) * s->tick_ns);
				s->cur[s->f_sys[2]] = (int64_t)(c.idle * s->tick_ns);
				s->cur[s->f_sys[3]] = (int64_t)(c.iowait * s->tick_ns);
				s->cur[s->f_sys[4]] = (int64_t)(c.steal * s->tick_ns);
			} else {
				src_failed(s, &s->sys_stat, n < 0 ? (int)n : -EINVAL, 0);
			}
		}
		if (s->f_mem_avail >= 0) {
			static const char *const mi[1] = {"MemAvailable"};
			int64_t v;

			n = src_read(s, &s->meminfo, 512, C_MEMINFO);
			if (n >= 0 && pp_keyed(s->buf, (size_t)n, mi, 1, &v) == 1)
				s->cur[s->f_mem_avail] = v;
			else
				src_failed(s, &s->meminfo, n < 0 ? (int)n : -EINVAL, 0);
		}
		sample_gpu(s, t_ns);
	}
out:
	s->nsample++;
	for (size_t i = 0; i < s->nfields; i++)
		vals[i] = s->cur[i] + s->base[i];
	return ret;
}
