// SPDX-License-Identifier: MIT
/*
 * fakegame: a program that stalls on demand, for the cause tests and
 * `make demo`. It renders nothing: its main thread marks frames with
 * stallscope_frame() (include/stallscope.h) at --fps for --seconds, sleeping
 * to absolute deadlines between them, and at each --stall KIND:MS@SEC it
 * stalls the main thread for MS milliseconds in the way KIND names, then
 * marks the frame at once, so the stall is one frame of about MS. The
 * stalls that keep the thread busy (disk, io, preads, cpu, reclaim, swap) run at
 * SCHED_FIFO 1 when permitted, so that other programs on a busy machine do
 * not add run-queue waits to them (nice does not reach across autogroups):
 *
 *   disk     major faults: random touches of a 64 MB file mapped with
 *            MADV_RANDOM after POSIX_FADV_DONTNEED dropped it from the cache
 *   io       pread64 of 1 MiB at a time of the same file, dropped
 *   preads   pread64 of 4 KiB at a time of that file with O_DIRECT, not
 *            throttled: thousands of small reads, each waiting in D for the
 *            disk and running in the kernel a few microseconds between
 *   cpu      a busy loop (at SCHED_FIFO 1 when permitted)
 *   runq     a busy loop pinned to one CPU with three busy hogs of higher
 *            priority (nice -10 when permitted) pinned to the same CPU
 *   wait     a futex wait that another thread ends after MS
 *   sleep    nanosleep
 *   pipe     a read of a pipe that another thread writes after MS
 *   sort     qsort (glibc) of an array whose comparator (sort_cmp) spins
 *            until MS have passed: a CPU stall inside libc's code
 *   reclaim  (root) writing a ring of fresh pages in a memory cgroup at a
 *            quarter of the ring's size, so every new page is charged over
 *            the limit and reclaims older ones: out to swap when there is
 *            one (tools/zram-swap.sh; without swap the reclaim is cheap and
 *            the stall is mostly page faults), at SCHED_FIFO when permitted
 *   swap     (an active swap: tools/zram-swap.sh as root) pages pushed out
 *            to swap during the load with MADV_PAGEOUT, touched back in
 *
 * The file lives in --dir (default /var/tmp, which must be on a disk). The
 * memory cgroup (reclaim) is a child of the program's own (cgroup v1 "memory", or
 * cgroup v2 with the memory controller), made at start and removed at exit.
 * Every stall is reported on stdout when it ends ("fakegame: stall disk
 * 300.1 ms at 2.000 s: 2143 major faults"), so tests can check what it did.
 * Exit 0, 1 on a failure (a stall that cannot be made here says why), 2 usage.
 *
 * The functions each stall runs in are not inlined, and the program is built
 * -O2 -fomit-frame-pointer (tools/CMakeLists.txt), so that its stacks
 * (docs/WHERE.md) name them through DWARF unwinding, not frame pointers:
 * cpu spin_until <- stall_cpu, sleep stall_sleep, wait stall_wait, pipe
 * stall_pipe, sort sort_cmp <- qsort <- stall_sort.
 *
 * With --render-thread the frames (and the stalls) are a second thread's,
 * "render", and the main thread waits for events meanwhile (main_events:
 * poll with a 5 ms timeout), as a game whose main thread only runs its
 * window does: the frame thread is then not the main thread, which
 * stallscope samples as its second thread.
 *
 * This is a test program: the /proc and /sys paths it needs (cgroups, its
 * own fault counts) are here in tools/, not in src/.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <linux/futex.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "stallscope.h"

#define FILE_MB 64
#define PAGE 4096
#define MAX_STALLS 1024	/* an hour's soak plants 480 (bench/soak.sh) */
#define NHOGS 3
#define RECLAIM_REGION_MB 16
#define SWAP_MB 640

enum kind { K_DISK, K_IO, K_CPU, K_RUNQ, K_WAIT, K_SLEEP, K_RECLAIM, K_SWAP, K_PREADS, K_SORT, K_PIPE,
	    K_N };
static const char *const kind_names[K_N] = { "disk", "io",   "cpu",	"runq",
					     "wait", "sleep", "reclaim", "swap", "preads", "sort",
					     "pipe" };

struct stall {
	enum kind kind;
	double ms, at_s;
	bool done;
};

static struct {
	double fps, seconds;
	const char *dir;
	const char *load;	/* --load: a file read whole before the first frame */
	size_t nstalls;
	struct stall stalls[MAX_STALLS];
	bool quiet;
	bool render_thread;	/* --render-thread */
} opt = { .fps = 60, .seconds = 5, .dir = "/var/tmp" };

static const char *prog = "fakegame";

/* ------------------------------------------------------- helpers */

static double now_s(void)
{
	return (double)ss_now_ns() / 1e9;
}

static void die(const char *fmt, const char *arg, int err) __attribute__((format(printf, 1, 0)));

static void die(const char *fmt, const char *arg, int err)
{
	fprintf(stderr, "%s: error: ", prog);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	fprintf(stderr, fmt, arg);
#pragma GCC diagnostic pop
	if (err)
		fprintf(stderr, ": %s", strerror(err));
	fputc('\n', stderr);
	exit(1);
}

static uint64_t rng = 88172645463325252ull;

static uint64_t xorshift(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* The calling thread's major faults so far (its /proc stat, field 12). */
static long self_majflt(void)
{
	char buf[1024], *p;
	long v = -1;
	int fd = open("/proc/thread-self/stat", O_RDONLY | O_CLOEXEC);
	ssize_t n;
	int i;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	p = strrchr(buf, ')');
	/* after ")": state(3) ppid pgrp session tty tpgid flags minflt cminflt majflt(12) */
	for (i = 2; p && i < 12; i++)
		p = strchr(p + 1, ' ');
	if (p)
		v = strtol(p + 1, NULL, 10);
	return v;
}

static int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;
	int err;

	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	err = n < 0 ? -errno : 0;
	close(fd);
	return err;
}

static int write_pid(const char *dir, pid_t pid)
{
	char path[700], s[32];

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	snprintf(s, sizeof(s), "%d\n", (int)pid);
	return write_file(path, s);
}

/* ------------------------------------------------------- cgroups */

/* A child cgroup of the program's own for one controller: v1 "memory" or
 * "blkio" where that hierarchy is mounted, else cgroup v2 ("memory", "io"). */
struct cg {
	const char *v1, *v2;	/* the controller's names */
	char parent[512];	/* the program's cgroup of that controller */
	bool is_v2;
	char dir[600];		/* the child */
	bool made;
};

static struct cg cg_reclaim = { .v1 = "memory", .v2 = "memory" };
static struct cg cg_io = { .v1 = "blkio", .v2 = "io" };

static int cg_find(struct cg *cg)
{
	char line[1024], want[40];
	FILE *f = fopen("/proc/self/cgroup", "re");
	bool found = false;
	struct stat st;

	if (!f)
		return -errno;
	snprintf(want, sizeof(want), "%s:", cg->v1);
	while (fgets(line, sizeof(line), f)) {
		char *p = strchr(line, ':'), *q = p ? strchr(p + 1, ':') : NULL;

		if (!q)
			continue;
		q[strcspn(q, "\n")] = 0;
		if (!strncmp(p + 1, want, strlen(want))) {
			snprintf(cg->parent, sizeof(cg->parent), "/sys/fs/cgroup/%s%s", cg->v1, q + 1);
			cg->is_v2 = false;
			found = true;
			break;
		}
		if (p[1] == ':' && !found) {
			snprintf(cg->parent, sizeof(cg->parent), "/sys/fs/cgroup%s", q + 1);
			cg->is_v2 = true;
			found = true;
		}
	}
	fclose(f);
	if (!found)
		return -ENOENT;
	if (cg->is_v2) {
		char ctl[600], plus[40];

		snprintf(ctl, sizeof(ctl), "%s/cgroup.controllers", cg->parent);
		f = fopen(ctl, "re");
		if (!f || !fgets(line, sizeof(line), f) || !strstr(line, cg->v2)) {
			if (f)
				fclose(f);
			return -ENOTSUP;
		}
		fclose(f);
		snprintf(ctl, sizeof(ctl), "%s/cgroup.subtree_control", cg->parent);
		snprintf(plus, sizeof(plus), "+%s", cg->v2);
		write_file(ctl, plus);
	}
	return stat(cg->parent, &st) < 0 ? -errno : 0;
}

/* Makes the child cgroup NAME; 0, or a negative errno (not root, no such
 * controller). */
static int cg_make(struct cg *cg, const char *name)
{
	int r = cg_find(cg);

	if (r < 0)
		return r;
	snprintf(cg->dir, sizeof(cg->dir), "%s/fakegame-%d-%s", cg->parent, (int)getpid(), name);
	if (mkdir(cg->dir, 0755) < 0 && errno != EEXIST)
		return -errno;
	cg->made = true;
	return 0;
}

static int cg_set(const struct cg *cg, const char *file, const char *value)
{
	char path[700];

	snprintf(path, sizeof(path), "%s/%s", cg->dir, file);
	return write_file(path, value);
}

static long frames;	/* presents so far */
static atomic_int frames_done;	/* the frame loop has ended */

/* Marks the end of a frame. */
static void present(void)
{
	stallscope_frame();
	frames++;
}

static void cg_enter(const struct cg *cg)
{
	int r = write_pid(cg->dir, getpid());

	if (r < 0)
		die("cannot move into '%s'", cg->dir, -r);
}

static void cg_leave(const struct cg *cg)
{
	write_pid(cg->parent, getpid());
}

static void cg_remove(struct cg *cg)
{
	if (!cg->made)
		return;
	cg_leave(cg);
	rmdir(cg->dir);
	cg->made = false;
}

static void cleanup(void)
{
	cg_remove(&cg_reclaim);
	cg_remove(&cg_io);
}

/* A signal that ends the program still removes the cgroups. */
static void on_fatal_signal(int sig)
{
	cleanup();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void reclaim_setup(void)
{
	char v[32];
	int r = cg_make(&cg_reclaim, "reclaim");

	if (r < 0)
		die("reclaim: cannot make a memory cgroup under '%s' (root needed)",
		    cg_reclaim.parent[0] ? cg_reclaim.parent : "/sys/fs/cgroup", -r);
	snprintf(v, sizeof(v), "%lld", (long long)RECLAIM_REGION_MB << 20);
	r = cg_set(&cg_reclaim, cg_reclaim.is_v2 ? "memory.max" : "memory.limit_in_bytes", v);
	if (r < 0)
		die("reclaim: cannot set the limit of '%s'", cg_reclaim.dir, -r);
}

/* When permitted, a blkio (io) cgroup that throttles reads of the disk under
 * DIR to IO_BPS, so that an io stall is the thread waiting on the disk, not
 * its own CPU work between reads on a fast (host-cached) disk. Returns
 * whether it is in place. */
#define IO_BPS (32 << 20)

static bool io_throttle_setup(void)
{
	struct stat st;
	char v[64], path[128];
	unsigned maj, min;
	FILE *f;

	if (geteuid() != 0 || stat(opt.dir, &st) < 0)
		return false;
	maj = major(st.st_dev);
	min = minor(st.st_dev);
	/* a partition: throttle its disk */
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/../dev", maj, min);
	if (access(path, R_OK) == 0 && (f = fopen(path, "re"))) {
		if (fscanf(f, "%u:%u", &maj, &min) != 2)
			maj = major(st.st_dev), min = minor(st.st_dev);
		fclose(f);
	}
	if (cg_make(&cg_io, "io") < 0)
		return false;
	if (cg_io.is_v2)
		snprintf(v, sizeof(v), "%u:%u rbps=%d", maj, min, IO_BPS);
	else
		snprintf(v, sizeof(v), "%u:%u %d", maj, min, IO_BPS);
	if (cg_set(&cg_io, cg_io.is_v2 ? "io.max" : "blkio.throttle.read_bps_device", v) < 0) {
		cg_remove(&cg_io);
		return false;
	}
	return true;
}

/* SCHED_FIFO priority 1 for the calling thread while a stall runs, when
 * permitted: on a busy machine other programs (which nice does not reach
 * across autogroups) would otherwise add run-queue waits to every stall. */
struct rt_saved {
	int policy;
	struct sched_param param;
	bool on;
};

static void rt_enter(struct rt_saved *s)
{
	struct sched_param rt = { .sched_priority = 1 };

	s->policy = sched_getscheduler(0);
	sched_getparam(0, &s->param);
	s->on = sched_setscheduler(0, SCHED_FIFO, &rt) == 0;
}

static void rt_leave(const struct rt_saved *s)
{
	if (s->on)
		sched_setscheduler(0, s->policy, &s->param);
}

/* ------------------------------------------------------- disk and io */

static int data_fd = -1;
static char data_path[512];

static void file_setup(void)
{
	size_t len = (size_t)FILE_MB << 20, off;
	char *buf = malloc(1 << 20);

	if (!buf)
		die("out of memory%s", "", ENOMEM);
	snprintf(data_path, sizeof(data_path), "%s/fakegame-%d.dat", opt.dir, (int)getpid());
	data_fd = open(data_path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (data_fd < 0)
		die("cannot create '%s'", data_path, errno);
	unlink(data_path);	/* gone at exit, whatever happens */
	for (off = 0; off < len; off += 1 << 20) {
		size_t i;

		for (i = 0; i < (1 << 20) / 8; i++)
			((uint64_t *)buf)[i] = xorshift();
		if (pwrite(data_fd, buf, 1 << 20, (off_t)off) != 1 << 20)
			die("cannot write '%s'", data_path, errno);
	}
	free(buf);
	if (fsync(data_fd) < 0)
		die("cannot fsync '%s'", data_path, errno);
}

static void file_drop(void)
{
	posix_fadvise(data_fd, 0, 0, POSIX_FADV_DONTNEED);
}

/* Major faults: random touches of the mapped file until MS have passed;
 * when every page was touched, unmap, drop and start again. */
static void stall_disk(double ms, char *what, size_t len)
{
	size_t npages = ((size_t)FILE_MB << 20) / PAGE, touched = 0;
	double end = now_s() + ms / 1000.0;
	long f0 = self_majflt();
	volatile char sink = 0;
	struct rt_saved rt;

	rt_enter(&rt);
	while (now_s() < end) {
		char *map;
		size_t i;

		file_drop();
		map = mmap(NULL, npages * PAGE, PROT_READ, MAP_SHARED, data_fd, 0);
		if (map == MAP_FAILED)
			die("cannot map '%s'", data_path, errno);
		madvise(map, npages * PAGE, MADV_RANDOM);
		/* a stride coprime with npages visits every page once */
		for (i = 0; i < npages && now_s() < end; i++) {
			sink += map[((i * 7919) % npages) * PAGE];
			touched++;
		}
		munmap(map, npages * PAGE);
	}
	rt_leave(&rt);
	(void)sink;
	snprintf(what, len, "%ld major faults, %zu pages", self_majflt() - f0, touched);
}

/* pread64 of 1 MiB at a time with O_DIRECT (the page cache, dropped or
 * not, is bypassed), in a scattered order: the thread waits in D inside the
 * syscall for the disk, and spends next to nothing copying. */
#define IO_CHUNK ((size_t)1 << 20)
static int io_fd = -1;
static void *io_buf;

/* During the load: the O_DIRECT descriptor and buffer, and the throttling
 * cgroup (entered only while an io stall runs). */
static void io_setup(void)
{
	char path[64];

	/* the unlinked file, reopened through our own fd for O_DIRECT */
	snprintf(path, sizeof(path), "/proc/self/fd/%d", data_fd);
	io_fd = open(path, O_RDONLY | O_DIRECT | O_CLOEXEC);
	if (io_fd < 0)
		die("cannot open '%s' with O_DIRECT", data_path, errno);
	if (posix_memalign(&io_buf, 4096, IO_CHUNK))
		die("out of memory%s", "", ENOMEM);
	io_throttle_setup();	/* entered for each io stall, left after it */
}

/* pread64 of 4 KiB at a time with O_DIRECT at scattered offsets, outside
 * the throttle (at SCHED_FIFO 1 when permitted): a storm of small reads
 * (3,600 of them in a stall of a program nobody here wrote read as 22 %
 * cpu: the kernel's side of each read, between its waits). */
static void stall_preads(double ms, char *what, size_t len)
{
	size_t npages = ((size_t)FILE_MB << 20) / PAGE, reads = 0, i = 0;
	double end = now_s() + ms / 1000.0;
	struct rt_saved rt;

	rt_enter(&rt);
	while (now_s() < end) {
		if (pread(io_fd, io_buf, PAGE, (off_t)(((i * 7919) % npages) * PAGE)) < 0)
			die("cannot read '%s'", data_path, errno);
		i++;
		reads++;
	}
	rt_leave(&rt);
	snprintf(what, len, "%zu reads of 4 KiB with O_DIRECT%s", reads,
		 rt.on ? " at SCHED_FIFO 1" : "");
}

static void stall_io(double ms, char *what, size_t len)
{
	size_t nchunks = ((size_t)FILE_MB << 20) / IO_CHUNK, reads = 0, i = 0;
	double end = now_s() + ms / 1000.0;
	struct rt_saved rt;

	/* The moves into and out of the cgroup are CPU work (writing
	 * cgroup.procs migrates the task: a millisecond in R or D here), not
	 * the stall: each is a short frame of its own, so that a sample that
	 * lands on one does not count in the stall's causes. */
	if (cg_io.made) {
		cg_enter(&cg_io);
		present();
		end = now_s() + ms / 1000.0;
	}
	rt_enter(&rt);
	while (now_s() < end) {
		if (pread(io_fd, io_buf, IO_CHUNK, (off_t)(((i * 37) % nchunks) * IO_CHUNK)) < 0)
			die("cannot read '%s'", data_path, errno);
		i++;
		reads++;
	}
	rt_leave(&rt);
	/* out of the throttle again: left in, it would hold back the next
	 * stalls' reads (a disk stall's faults would wait in D with nothing in
	 * flight at the device, and read as faults, not disk) */
	if (cg_io.made) {
		present();
		cg_leave(&cg_io);
	}
	snprintf(what, len, "%zu reads of 1 MiB with O_DIRECT%s%s", reads,
		 rt.on ? " at SCHED_FIFO 1" : "", cg_io.made ? ", reads throttled to 32 MB/s" : "");
}

/* ------------------------------------------------------- cpu and runq */

__attribute__((noinline)) static void spin_until(double end)
{
	volatile uint64_t x = 0;

	while (now_s() < end)
		for (int i = 0; i < 1000; i++)
			x += (uint64_t)i * 2654435761u;
}

__attribute__((noinline)) static void stall_cpu(double ms, char *what, size_t len)
{
	struct rt_saved rt;

	rt_enter(&rt);
	spin_until(now_s() + ms / 1000.0);
	rt_leave(&rt);
	snprintf(what, len, "busy loop%s", rt.on ? " at SCHED_FIFO 1" : "");
}

static double sort_end;	/* sort_cmp spins until this (s) */

__attribute__((noinline)) static int sort_cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	if (now_s() < sort_end)
		spin_until(now_s() + 0.0005);
	return (x > y) - (x < y);
}

__attribute__((noinline)) static void stall_sort(double ms, char *what, size_t len)
{
	static int v[4096];

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		v[i] = (int)(xorshift() & 0xffffff);
	sort_end = now_s() + ms / 1000.0;
	qsort(v, sizeof(v) / sizeof(v[0]), sizeof(v[0]), sort_cmp);
	snprintf(what, len, "qsort with a spinning comparator");
}

struct hog {
	pthread_t th;
	pid_t tid;
};

static struct hog hogs[NHOGS];
static _Atomic double hog_end;	/* the hogs spin until this (s) */
static atomic_int hog_gen, hog_cpu;

static void *hog_main(void *arg)
{
	struct hog *h = arg;
	int seen = 0;

	h->tid = (pid_t)syscall(SYS_gettid);
	{
		cpu_set_t set;

		/* pinned from the start: woken on their CPU, they preempt at once */
		CPU_ZERO(&set);
		CPU_SET(atomic_load(&hog_cpu), &set);
		sched_setaffinity(0, sizeof(set), &set);
	}
	for (;;) {
		int gen = atomic_load(&hog_gen);

		if (gen == seen) {
			syscall(SYS_futex, &hog_gen, FUTEX_WAIT_PRIVATE, gen, NULL, NULL, 0);
			continue;
		}
		seen = gen;
		spin_until(atomic_load(&hog_end));
	}
	return NULL;
}

static bool hogs_niced;

static void runq_setup(void)
{
	int i, cpu = sched_getcpu();

	atomic_store(&hog_cpu, cpu < 0 ? 0 : cpu);

	for (i = 0; i < NHOGS; i++) {
		if (pthread_create(&hogs[i].th, NULL, hog_main, &hogs[i]))
			die("cannot start a hog thread%s", "", errno);
	}
	usleep(20000);
	hogs_niced = true;
	for (i = 0; i < NHOGS; i++)
		if (setpriority(PRIO_PROCESS, (id_t)hogs[i].tid, -10) < 0)
			hogs_niced = false;
}

/* The main thread and the hogs on one CPU; the hogs win (nice -10 when
 * permitted, else three against one). */
static void stall_runq(double ms, char *what, size_t len)
{
	cpu_set_t old, set;
	int cpu = atomic_load(&hog_cpu);

	sched_getaffinity(0, sizeof(old), &old);
	atomic_store(&hog_end, now_s() + ms / 1000.0);
	atomic_fetch_add(&hog_gen, 1);
	syscall(SYS_futex, &hog_gen, FUTEX_WAKE_PRIVATE, NHOGS, NULL, NULL, 0);
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
	spin_until(atomic_load(&hog_end));
	sched_setaffinity(0, sizeof(old), &old);
	snprintf(what, len, "cpu %d, %d hogs at nice %d", cpu, NHOGS, hogs_niced ? -10 : 0);
}

/* ------------------------------------------------------- wait and sleep */

static atomic_int wait_word;
static _Atomic double waker_ms;
static atomic_int waker_tid;	/* the waker's tid, for the log (exact mode's test) */

static void *waker_main(void *arg)
{
	struct timespec ts;
	double ms = atomic_load(&waker_ms);

	atomic_store(&waker_tid, (int)syscall(SYS_gettid));
	ts.tv_sec = (time_t)(ms / 1000);
	ts.tv_nsec = (long)((ms - (double)ts.tv_sec * 1000) * 1e6);
	nanosleep(&ts, NULL);
	atomic_store(&wait_word, 1);
	syscall(SYS_futex, &wait_word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
	return arg;
}

__attribute__((noinline)) static void stall_wait(double ms, char *what, size_t len)
{
	pthread_t th;

	atomic_store(&wait_word, 0);
	atomic_store(&waker_ms, ms);
	if (pthread_create(&th, NULL, waker_main, NULL))
		die("cannot start the waker thread%s", "", errno);
	while (!atomic_load(&wait_word))
		syscall(SYS_futex, &wait_word, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
	pthread_join(th, NULL);
	snprintf(what, len, "futex woken by another thread (tid %d)", atomic_load(&waker_tid));
}

__attribute__((noinline)) static void stall_sleep(double ms, char *what, size_t len)
{
	struct timespec ts;

	ts.tv_sec = (time_t)(ms / 1000);
	ts.tv_nsec = (long)((ms - (double)ts.tv_sec * 1000) * 1e6);
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
	snprintf(what, len, "nanosleep");
}

static int pipe_fd[2] = { -1, -1 };

static void *pipe_writer_main(void *arg)
{
	struct timespec ts;
	double ms = atomic_load(&waker_ms);

	atomic_store(&waker_tid, (int)syscall(SYS_gettid));
	ts.tv_sec = (time_t)(ms / 1000);
	ts.tv_nsec = (long)((ms - (double)ts.tv_sec * 1000) * 1e6);
	nanosleep(&ts, NULL);
	if (write(pipe_fd[1], "x", 1) != 1)
		die("cannot write the pipe%s", "", errno);
	return arg;
}

__attribute__((noinline)) static void stall_pipe(double ms, char *what, size_t len)
{
	pthread_t th;
	char c;

	if (pipe_fd[0] < 0 && pipe2(pipe_fd, O_CLOEXEC) < 0)
		die("cannot make a pipe%s", "", errno);
	atomic_store(&waker_ms, ms);
	if (pthread_create(&th, NULL, pipe_writer_main, NULL))
		die("cannot start the writer thread%s", "", errno);
	while (read(pipe_fd[0], &c, 1) < 0 && errno == EINTR)
		;
	pthread_join(th, NULL);
	snprintf(what, len, "pipe read, written by another thread (tid %d)",
		 atomic_load(&waker_tid));
}

/* Total "some" memory stall of the system so far, us (-1 when PSI is off). */
static long long psi_mem_some_us(void)
{
	char buf[256], *p;
	int fd = open("/proc/pressure/memory", O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	p = strstr(buf, "total=");
	return p ? strtoll(p + 6, NULL, 10) : -1;
}

static bool swap_active(void);

/* A ring of RING_MB is written page by page, in the cgroup whose limit is a
 * quarter of it, so each new page is charged over the limit and reclaims an
 * older one. With swap, reclaim compresses the older pages out to it (the
 * real cost of reclaim), and pages RECLAIM_REGION_MB behind the writer are
 * dropped with MADV_DONTNEED so swap does not fill; without swap they are
 * MADV_FREE'd instead, which reclaim discards cheaply. */
#define RING_MB (4 * RECLAIM_REGION_MB)
/* The ring, kept from one reclaim stall to the next (and filled to the
 * cgroup's limit during the load), so that a stall reclaims from its first
 * page instead of first filling the cgroup. */
static char *rc_ring;
static size_t rc_pos;

/* Writes N pages of the ring (N 0: until END), dropping the pages BEHIND
 * bytes back; returns the pages written. */
static size_t ring_write(size_t n, double end)
{
	bool swap = swap_active();
	size_t rlen = (size_t)RING_MB << 20, done = 0;
	/* with swap the pages between the limit and this are out in swap;
	 * without, all that is not MADV_FREE'd must fit under the limit */
	size_t behind = swap ? (size_t)2 * RECLAIM_REGION_MB << 20
			     : (size_t)RECLAIM_REGION_MB << 19;

	while (n ? done < n : now_s() < end) {
		size_t k;

		/* the clock every 64 pages: the loop is the kernel's, not ours */
		for (k = 0; k < 64; k++) {
			size_t old = (rc_pos + rlen - behind) % rlen;

			rc_ring[rc_pos] = (char)done;
			done++;
			if (old % ((size_t)1 << 20) == 0)
				madvise(rc_ring + old, (size_t)1 << 20,
					swap ? MADV_DONTNEED : MADV_FREE);
			rc_pos = (rc_pos + PAGE) % rlen;
		}
	}
	return done;
}

static void reclaim_ring_setup(void)
{
	size_t rlen = (size_t)RING_MB << 20;
	char *p = mmap(NULL, rlen + ((size_t)2 << 20), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		die("cannot map memory%s", "", errno);
	/* huge pages where the kernel gives them: each 2 MB fault then reclaims
	 * 512 pages, so reclaim, not page faults, takes the time */
	rc_ring = (char *)(((uintptr_t)p + ((2u << 20) - 1)) & ~(uintptr_t)((2u << 20) - 1));
	madvise(rc_ring, rlen, MADV_HUGEPAGE);
	cg_enter(&cg_reclaim);
	ring_write(((size_t)RECLAIM_REGION_MB << 20) / PAGE, 0);
	cg_leave(&cg_reclaim);
}

static void stall_reclaim(double ms, char *what, size_t len)
{
	long long p0 = psi_mem_some_us();
	struct rt_saved rt;
	size_t touched;

	/* the cgroup moves are frames of their own, as in stall_io */
	cg_enter(&cg_reclaim);
	present();
	rt_enter(&rt);
	touched = ring_write(0, now_s() + ms / 1000.0);
	rt_leave(&rt);
	present();
	cg_leave(&cg_reclaim);
	snprintf(what, len, "%zu pages touched in a %d MB cgroup%s, memory pressure %.0f%%",
		 touched, RECLAIM_REGION_MB, swap_active() ? " with swap" : " without swap",
		 p0 >= 0 ? (double)(psi_mem_some_us() - p0) / 10.0 / ms : -1.0);
}

static char *swap_mem;
static size_t swap_len;

static bool swap_active(void)
{
	char line[512];
	FILE *f = fopen("/proc/swaps", "re");
	int n = 0;

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		n++;
	fclose(f);
	return n > 1;
}

/* During the load: fill SWAP_MB and push it out to swap with MADV_PAGEOUT
 * (Linux 5.4); touching it back in at the stall faults every page in from
 * swap without reclaiming anything. */
static void swap_setup(void)
{
	size_t i;

	if (!swap_active())
		die("swap: no active swap device%s (tools/zram-swap.sh on makes one)", "", 0);
	swap_len = (size_t)SWAP_MB << 20;
	swap_mem = mmap(NULL, swap_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (swap_mem == MAP_FAILED)
		die("cannot map memory%s", "", errno);
	/* half random, half text: zram compresses it, but not to nothing */
	for (i = 0; i < swap_len; i += 8)
		*(uint64_t *)(swap_mem + i) = (i & 64) ? xorshift() : 0x2065726f6d20656dull;
	if (madvise(swap_mem, swap_len, MADV_PAGEOUT) < 0)
		die("swap: madvise(MADV_PAGEOUT) failed%s", "", errno);
}

static void stall_swap(double ms, char *what, size_t len)
{
	double end = now_s() + ms / 1000.0;
	long f0 = self_majflt();
	size_t i, touched = 0;
	volatile char sink = 0;
	struct rt_saved rt;

	rt_enter(&rt);
	for (i = 0; i < swap_len && now_s() < end; i += PAGE) {
		sink += swap_mem[i];
		touched++;
	}
	rt_leave(&rt);
	(void)sink;
	if (now_s() < end)
		spin_until(end);	/* ran out of swapped pages: say so below */
	snprintf(what, len, "%ld major faults, %zu pages%s", self_majflt() - f0, touched,
		 i >= swap_len ? " (all of them: the rest of the stall was a busy loop)" : "");
}

/* ------------------------------------------------------- main */

static void usage(FILE *f)
{
	fprintf(f,
		"usage: fakegame [--fps N] [--seconds S] [--dir DIR] [--stall KIND:MS@SEC]...\n"
		"\n"
		"marks frames with stallscope_frame() at N fps for S seconds and stalls its main\n"
		"thread for MS ms at SEC seconds in the way KIND names:\n"
		"  disk     major faults on a 64 MB file in DIR dropped from the page cache\n"
		"  io       pread of that file, dropped\n"
		"  preads   4 KiB O_DIRECT preads of that file, thousands of them\n"
		"  cpu      a busy loop\n"
		"  runq     a busy loop with higher-priority hogs on the same CPU\n"
		"  wait     a futex wait that another thread ends\n"
		"  sleep    nanosleep\n"
		"  pipe     a read of a pipe that another thread writes\n"
		"  reclaim  touching memory in a memory cgroup at its limit (root)\n"
		"  swap     touching pages pushed out to swap (needs an active swap)\n"
		"\n"
		"options:\n"
		"  --fps N       frames per second (default 60)\n"
		"  --seconds S   how long to run (default 5)\n"
		"  --dir DIR     where the disk/io file goes, on a disk (default /var/tmp)\n"
		"  --load PATH   read PATH whole before the first frame: a level's data\n"
		"                (prefetch's A/B)\n"
		"  --render-thread  frames and stalls in a thread of their own; the main\n"
		"                thread waits for events (poll) meanwhile\n"
		"  --quiet       print nothing but errors\n"
		"\n"
		"environment: FAKEGAME_STALL=KIND:MS@SEC[,...] adds stalls (a bench switch)\n"
		"\n"
		"EXAMPLES\n"
		"  stallscope record -- fakegame --seconds 4 --stall disk:300@1 --stall wait:300@2.5\n");
}

/* Reads PATH whole, 128 KiB at a time, as a game loads a level. */
static void load_file(const char *path)
{
	static char buf[128 * 1024];
	double a = now_s();
	long long total = 0;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		die("cannot open '%s'", path, errno);
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		total += n;
	close(fd);
	if (!opt.quiet)
		printf("fakegame: load read %.1f MB in %.3f s\n", total / 1048576.0, now_s() - a);
}

static int parse_stall(const char *arg)
{
	char kind[16];
	double ms, at;
	int n = 0, k;

	if (opt.nstalls == MAX_STALLS)
		return -1;
	if (sscanf(arg, "%15[a-z]:%lf@%lf%n", kind, &ms, &at, &n) != 3 || arg[n] || ms <= 0 ||
	    at < 0)
		return -1;
	for (k = 0; k < K_N; k++)
		if (!strcmp(kind, kind_names[k]))
			break;
	if (k == K_N)
		return -1;
	opt.stalls[opt.nstalls].kind = (enum kind)k;
	opt.stalls[opt.nstalls].ms = ms;
	opt.stalls[opt.nstalls].at_s = at;
	opt.nstalls++;
	return 0;
}

static void do_stall(struct stall *s, double t0)
{
	char what[256] = "";
	double a = now_s();

	switch (s->kind) {
	case K_DISK:
		stall_disk(s->ms, what, sizeof(what));
		break;
	case K_IO:
		stall_io(s->ms, what, sizeof(what));
		break;
	case K_PREADS:
		stall_preads(s->ms, what, sizeof(what));
		break;
	case K_CPU:
		stall_cpu(s->ms, what, sizeof(what));
		break;
	case K_RUNQ:
		stall_runq(s->ms, what, sizeof(what));
		break;
	case K_WAIT:
		stall_wait(s->ms, what, sizeof(what));
		break;
	case K_SLEEP:
		stall_sleep(s->ms, what, sizeof(what));
		break;
	case K_RECLAIM:
		stall_reclaim(s->ms, what, sizeof(what));
		break;
	case K_SWAP:
		stall_swap(s->ms, what, sizeof(what));
		break;
	case K_SORT:
		stall_sort(s->ms, what, sizeof(what));
		break;
	case K_PIPE:
		stall_pipe(s->ms, what, sizeof(what));
		break;
	default:
		break;
	}
	s->done = true;
	if (!opt.quiet)
		printf("fakegame: stall %s %.1f ms at %.3f s (mono %.6f): %s\n",
		       kind_names[s->kind], (now_s() - a) * 1000.0, a - t0, a, what);
}

/* The frames: at --fps for --seconds, each --stall in its turn. */
__attribute__((noinline)) static void frame_loop(void)
{
	double t0, next, period;
	size_t i;

	period = 1.0 / opt.fps;
	t0 = now_s();
	next = t0 + period;
	while (now_s() - t0 < opt.seconds) {
		struct timespec ts;
		double t;

		ts.tv_sec = (time_t)next;
		ts.tv_nsec = (long)((next - (double)ts.tv_sec) * 1e9);
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
		present();
		t = now_s();
		next += period;
		if (next < t)
			next = t + period;
		for (i = 0; i < opt.nstalls; i++) {
			struct stall *s = &opt.stalls[i];

			if (s->done || t - t0 < s->at_s)
				continue;
			do_stall(s, t0);
			present();	/* the stall is this one frame */
			next = now_s() + period;
		}
	}
	atomic_store(&frames_done, 1);
}

/* --render-thread: the frame loop in a thread named "render". */
static void *render_main(void *arg)
{
	pthread_setname_np(pthread_self(), "render");
	frame_loop();
	return arg;
}

/* --render-thread: the main thread waits for events until the frames end,
 * as a game's window thread does. */
__attribute__((noinline)) static void main_events(void)
{
	while (!atomic_load(&frames_done))
		poll(NULL, 0, 5);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "fps", required_argument, NULL, 'f' },
		{ "seconds", required_argument, NULL, 's' },
		{ "stall", required_argument, NULL, 'S' },
		{ "dir", required_argument, NULL, 'd' },
		{ "load", required_argument, NULL, 'l' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "render-thread", no_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool need[K_N] = { false };
	size_t i;
	int c;

	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		char *end;

		switch (c) {
		case 'f':
			opt.fps = strtod(optarg, &end);
			if (*end || !(opt.fps > 0 && opt.fps <= 10000)) {
				fprintf(stderr, "%s: --fps: expected a number in (0, 10000], got '%s'\n",
					prog, optarg);
				return 2;
			}
			break;
		case 's':
			opt.seconds = strtod(optarg, &end);
			if (*end || !(opt.seconds > 0 && opt.seconds < 86400)) {
				fprintf(stderr, "%s: --seconds: expected seconds, got '%s'\n", prog,
					optarg);
				return 2;
			}
			break;
		case 'S':
			if (opt.nstalls == MAX_STALLS) {
				fprintf(stderr, "%s: --stall: more than %d stalls\n", prog,
					MAX_STALLS);
				return 2;
			}
			if (parse_stall(optarg) < 0) {
				fprintf(stderr,
					"%s: --stall: expected KIND:MS@SEC with KIND disk, io, preads, "
					"cpu, runq, wait, sleep, pipe, reclaim, swap or sort, got "
					"'%s'\n",
					prog, optarg);
				return 2;
			}
			break;
		case 'd':
			opt.dir = optarg;
			break;
		case 'l':
			opt.load = optarg;
			break;
		case 'q':
			opt.quiet = true;
			break;
		case 'r':
			opt.render_thread = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "%s: unexpected argument '%s'\n", prog, argv[optind]);
		return 2;
	}
	/* FAKEGAME_STALL=KIND:MS@SEC[,KIND:MS@SEC...]: stalls from the environment
	 * too, so a bench variant's switch really changes what the game does */
	if (getenv("FAKEGAME_STALL") && getenv("FAKEGAME_STALL")[0]) {
		char *list = strdup(getenv("FAKEGAME_STALL")), *save = NULL;

		for (char *item = strtok_r(list, ",", &save); item;
		     item = strtok_r(NULL, ",", &save)) {
			if (parse_stall(item) < 0) {
				fprintf(stderr, "%s: FAKEGAME_STALL: expected KIND:MS@SEC[,...], "
						"got '%s'\n", prog, item);
				free(list);
				return 2;
			}
		}
		free(list);
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	atexit(cleanup);
	signal(SIGINT, on_fatal_signal);
	signal(SIGTERM, on_fatal_signal);
	signal(SIGHUP, on_fatal_signal);
	signal(SIGPIPE, on_fatal_signal);
	/* the load: --load's file, then everything the stalls need, before the
	 * first frame */
	if (opt.load)
		load_file(opt.load);
	for (i = 0; i < opt.nstalls; i++)
		need[opt.stalls[i].kind] = true;
	if (need[K_DISK] || need[K_IO] || need[K_PREADS])
		file_setup();
	if (need[K_IO] || need[K_PREADS])
		io_setup();
	if (need[K_RUNQ])
		runq_setup();
	if (need[K_RECLAIM]) {
		reclaim_setup();
		reclaim_ring_setup();
	}
	if (need[K_SWAP])
		swap_setup();

	if (opt.render_thread) {
		pthread_t th;

		if (pthread_create(&th, NULL, render_main, NULL))
			die("cannot start the render thread%s", "", errno);
		main_events();
		pthread_join(th, NULL);
	} else {
		frame_loop();
	}
	if (!opt.quiet)
		printf("fakegame: frames=%ld\n", frames);
	return 0;
}
