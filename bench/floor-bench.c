// SPDX-License-Identifier: MIT
/*
 * floor-bench.c: this machine's system-call floor, under which no 10 ms
 * recorder's sample can go (issue 3 asks for <= 10 us per sample).
 *
 * It starts a target (a child whose thread works ~3 ms and sleeps ~13.7 ms,
 * a 60 fps frame loop), keeps open the files a sample reads and times one
 * call to each (CLOCK_MONOTONIC around the call) two ways:
 *
 *   warm  back to back, after 50 warm-up calls
 *   cold  the first and only call after a sleep to the next 10 ms deadline,
 *         as a recorder's sample makes it; the sources take turns, one a
 *         period, so that drift (the host's other guests) hits all alike
 *
 * Then a sample batch, the reads of one recorder sample (task stat,
 * schedstat, syscall, disk stat, PSI memory), four ways taking turns, one
 * way a period so each is the first work after a wake-up: a pread of each
 * fd; as many preads of the first one (one kind of read: what is cold after
 * a wake-up is each kind's kernel code, so this costs far less); one
 * io_uring_enter reading them all (raw system calls: liburing is not
 * installed); and as many bare getppid() calls (the entry/exit floor alone).
 *
 * Usage: floor-bench [--samples N]
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <linux/io_uring.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PERIOD_NS 10000000ull
#define WARMUP 50
#define NSRC 9	 /* rows */
#define NBATCH 8 /* at most this many reads in a batch */

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = sig;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int sleep_until(uint64_t t)
{
	struct timespec ts = {.tv_sec = (time_t)(t / 1000000000ull),
			      .tv_nsec = (long)(t % 1000000000ull)};

	return clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

/*
 * Sleeps to the next deadline of the 10 ms grid in *NEXT. Deadlines already
 * past are skipped and counted in *MISSED, so every timed call follows a real
 * sleep. Returns 0, or -EINTR once a signal asked us to stop.
 */
static int period_wait(uint64_t *next, uint64_t *missed)
{
	uint64_t now = now_ns();

	for (*next += PERIOD_NS; *next <= now; *next += PERIOD_NS)
		(*missed)++;
	while (sleep_until(*next) == EINTR && !stop)
		;
	return stop ? -EINTR : 0;
}

/* The target: one thread, ~3 ms of work per 16.7 ms frame. Dies with us. */
static pid_t start_target(void)
{
	pid_t parent = getpid(), pid = fork();
	uint64_t next;

	if (pid != 0)
		return pid;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(0);
	for (next = now_ns();; next += 16666667) {
		uint64_t end = now_ns() + 3000000;

		while (now_ns() < end)
			;
		sleep_until(next + 16666667);
	}
}

/* ---------------------------------------------------------------- sources */

enum kind { K_GETPPID, K_CPUCLOCK, K_READ };

struct src {
	char name[40];
	enum kind kind;
	bool batch;	/* read by a recorder's sample */
	int fd;		/* K_READ: kept open */
	size_t len;	/* bytes asked per read */
	clockid_t clk;	/* K_CPUCLOCK: the target's process CPU clock */
	char why[128];	/* non-empty: why the row could not be measured */
	uint64_t *warm; /* ns per call, N of them */
	uint64_t *cold; /* the second half of warm's allocation */
};

static char rbuf[NBATCH][4096];

/* One call to S. Returns 0 or a negative errno. */
static int src_call(const struct src *s)
{
	struct timespec ts;

	if (s->kind == K_GETPPID)
		return syscall(SYS_getppid) < 0 ? -errno : 0;
	if (s->kind == K_CPUCLOCK)
		return clock_gettime(s->clk, &ts) < 0 ? -errno : 0;
	return pread(s->fd, rbuf[0], s->len, 0) < 0 ? -errno : 0;
}

/* Fills row S: a read of PATH (kept open) when PATH is not NULL. */
static void src_init(struct src *s, const char *name, enum kind kind, const char *path, size_t len,
		     bool batch)
{
	snprintf(s->name, sizeof(s->name), "%s", name);
	s->kind = kind;
	s->len = len;
	s->batch = batch;
	s->fd = path ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	if (path && s->fd < 0)
		snprintf(s->why, sizeof(s->why), "open %s: %s", path, strerror(errno));
}

/*
 * The whole disk under the root file system: stat("/")'s device, named by
 * /sys/dev/block/MAJ:MIN; a partition is replaced by its disk. Copies the
 * disk's name into NAME (64 bytes); returns 0, or -1 with the reason in WHY.
 */
static int root_disk(char *name, char *why, size_t wsize)
{
	char link[64], real[PATH_MAX], part[PATH_MAX + 16], *base;
	struct stat st;

	if (stat("/", &st) < 0) {
		snprintf(why, wsize, "stat /: %s", strerror(errno));
		return -1;
	}
	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", major(st.st_dev), minor(st.st_dev));
	if (!realpath(link, real)) {
		snprintf(why, wsize, "root fs on %u:%u, not a block device (%s: %s)",
			 major(st.st_dev), minor(st.st_dev), link, strerror(errno));
		return -1;
	}
	snprintf(part, sizeof(part), "%s/partition", real);
	if (access(part, F_OK) == 0 && (base = strrchr(real, '/')))
		*base = '\0';
	base = strrchr(real, '/');
	snprintf(name, 64, "%.63s", base ? base + 1 : real); /* sysfs names: < 32 */
	return 0;
}

/* The first line of file PATH into BUF, "" if it cannot be read. */
static void read_line(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, size - 1);

	buf[n > 0 ? n : 0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	if (fd >= 0)
		close(fd);
}

/* ---------------------------------------------------------------- io_uring */

struct uring {
	int fd;
	unsigned *sq_tail, *sq_mask, *sq_array;
	unsigned *cq_head, *cq_tail, *cq_mask;
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqes;
};

/* Sets up a ring of NBATCH entries with raw system calls. Returns 0, or -1
 * with the reason in WHY. The ring lasts until exit. */
static int uring_setup(struct uring *u, char *why, size_t wsize)
{
	struct io_uring_params p = {0};
	size_t sq_sz, cq_sz;
	char *sq, *cq = MAP_FAILED, dis[16];
	void *sqes = MAP_FAILED;
	int fd = (int)syscall(SYS_io_uring_setup, NBATCH, &p), e = errno;

	if (fd < 0) {
		read_line("/proc/sys/kernel/io_uring_disabled", dis, sizeof(dis));
		snprintf(why, wsize, "io_uring_setup: %s (kernel.io_uring_disabled=%s)",
			 strerror(e), dis[0] ? dis : "?");
		return -1;
	}
	sq_sz = p.sq_off.array + p.sq_entries * sizeof(unsigned);
	cq_sz = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
	if (p.features & IORING_FEAT_SINGLE_MMAP)
		sq_sz = cq_sz = sq_sz > cq_sz ? sq_sz : cq_sz;
	sq = mmap(NULL, sq_sz, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd,
		  IORING_OFF_SQ_RING);
	if (sq != MAP_FAILED)
		cq = p.features & IORING_FEAT_SINGLE_MMAP
			 ? sq
			 : mmap(NULL, cq_sz, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd,
				IORING_OFF_CQ_RING);
	if (cq != MAP_FAILED)
		sqes = mmap(NULL, p.sq_entries * sizeof(struct io_uring_sqe),
			    PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, IORING_OFF_SQES);
	if (sqes == MAP_FAILED) {
		snprintf(why, wsize, "io_uring mmap: %s", strerror(errno));
		close(fd);
		return -1;
	}
	u->fd = fd;
	u->sq_tail = (unsigned *)(sq + p.sq_off.tail);
	u->sq_mask = (unsigned *)(sq + p.sq_off.ring_mask);
	u->sq_array = (unsigned *)(sq + p.sq_off.array);
	u->cq_head = (unsigned *)(cq + p.cq_off.head);
	u->cq_tail = (unsigned *)(cq + p.cq_off.tail);
	u->cq_mask = (unsigned *)(cq + p.cq_off.ring_mask);
	u->cqes = (struct io_uring_cqe *)(cq + p.cq_off.cqes);
	u->sqes = sqes;
	return 0;
}

/* Reads each of the N sources B at offset 0 with one io_uring_enter that
 * waits for every completion. Returns 0 or the first negative errno. */
static int uring_batch(struct uring *u, struct src **b, int n)
{
	unsigned tail = *u->sq_tail, head = *u->cq_head;
	int done = 0, ret = 0;
	long sub;

	for (int i = 0; i < n; i++, tail++) {
		struct io_uring_sqe *sqe = &u->sqes[tail & *u->sq_mask];

		memset(sqe, 0, sizeof(*sqe));
		sqe->opcode = IORING_OP_READ;
		sqe->fd = b[i]->fd;
		sqe->addr = (uint64_t)(uintptr_t)rbuf[i];
		sqe->len = (unsigned)b[i]->len;
		u->sq_array[tail & *u->sq_mask] = tail & *u->sq_mask;
	}
	__atomic_store_n(u->sq_tail, tail, __ATOMIC_RELEASE);
	sub = syscall(SYS_io_uring_enter, u->fd, n, n, IORING_ENTER_GETEVENTS, NULL, 0);
	if (sub < 0)
		return -errno;
	if (sub != n)
		return -EIO; /* not without SQPOLL; we would wait forever */
	while (done < n) {
		unsigned ctail = __atomic_load_n(u->cq_tail, __ATOMIC_ACQUIRE);

		for (; head != ctail; head++, done++)
			if (u->cqes[head & *u->cq_mask].res < 0 && !ret)
				ret = u->cqes[head & *u->cq_mask].res;
		__atomic_store_n(u->cq_head, head, __ATOMIC_RELEASE);
		if (done < n && syscall(SYS_io_uring_enter, u->fd, 0, n - done,
					IORING_ENTER_GETEVENTS, NULL, 0) < 0)
			return -errno;
	}
	return ret;
}

/* The io_uring worker threads of this process (comm "iou-wrk-PID"). */
static int count_iowq(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d))) {
		char path[64], comm[32];

		snprintf(path, sizeof(path), "/proc/self/task/%.20s/comm", e->d_name);
		read_line(path, comm, sizeof(comm));
		n += strncmp(comm, "iou-wrk", 7) == 0;
	}
	if (d)
		closedir(d);
	return d ? n : -1;
}

/* ---------------------------------------------------------------- stats */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Sorts V (N > 0 values in ns); the median in us, the 90th percentile in *P90. */
static double med_p90(uint64_t *v, size_t n, double *p90)
{
	qsort(v, n, sizeof(*v), cmp_u64);
	if (p90)
		*p90 = (double)v[(size_t)((double)(n - 1) * 0.9)] / 1e3;
	return (double)(n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2) / 1e3;
}

/* This process's CPU time, all threads (io-wq workers too), in ns. */
static uint64_t cpu_ns(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000ull +
	       (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000ull;
}

/* ---------------------------------------------------------------- main */

enum { W_PREAD, W_SAME, W_URING, W_GETPPID, W_N };

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"samples", required_argument, NULL, 'n'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	static struct src src[NSRC];
	static const char *const wname[W_N] = {"pread", "pread 1st", "io_uring", "getppid"};
	struct src *use[NSRC], *batch[NBATCH];
	struct uring ring;
	char wwhy[W_N][128] = {""}, path[128], disk[64], name[40], *end;
	uint64_t *wt[W_N] = {NULL}, wcpu[W_N] = {0}, wmed[NSRC], missed = 0, next, t0, cpu0;
	double cold_floor = 0, warm_floor = 0, pread_med = 0, same_med = 0, per, med, p90;
	int wuse[W_N], nuse = 0, nbatch = 0, nways = 0, ret = 1, c, r, m;
	size_t wn[W_N] = {0}, N = 300, nsrc = 0;
	struct sigaction sa = {.sa_handler = on_signal};
	pid_t target;

	while ((c = getopt_long(argc, argv, "n:h", longopts, NULL)) != -1) {
		if (c == 'n') {
			errno = 0;
			N = (size_t)strtoul(optarg, &end, 10);
			if (errno || *end || N < 10 || N > 1000000) {
				fprintf(stderr, "floor-bench: error: --samples '%s': 10 to 1e6\n",
					optarg);
				return 2;
			}
		} else if (c == 'h') {
			printf("usage: floor-bench [--samples N]\n\nThe system-call floor: each "
			       "source warm and cold (the first call after a 10 ms sleep),\nthen a "
			       "sample's reads by pread, io_uring and bare getppid(); N a row "
			       "(default 300).\n\nEXAMPLES\n  floor-bench\n  floor-bench "
			       "--samples 1000\n");
			return 0;
		} else {
			return 2;
		}
	}

	target = start_target();
	if (target < 0) {
		fprintf(stderr, "floor-bench: error: fork: %s\n", strerror(errno));
		return 1;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	usleep(100000); /* the target in its frame loop */

	/* The rows; the batch ones in the order a sample reads them. */
	src_init(&src[nsrc], "getppid", K_GETPPID, NULL, 0, false);
	src_init(&src[++nsrc], "target cpu clock", K_CPUCLOCK, NULL, 0, false);
	if ((r = clock_getcpuclockid(target, &src[nsrc].clk)) != 0)
		snprintf(src[nsrc].why, sizeof(src[0].why), "clock_getcpuclockid: %s", strerror(r));
	src_init(&src[++nsrc], "/dev/zero (256 B)", K_READ, "/dev/zero", 256, false);
	for (int i = 0; i < 4; i++) { /* wchan: a row, not in the batch */
		static const char *const f[4] = {"stat", "schedstat", "wchan", "syscall"};

		snprintf(path, sizeof(path), "/proc/%d/task/%d/%s", (int)target, (int)target, f[i]);
		snprintf(name, sizeof(name), "task %s", f[i]);
		src_init(&src[++nsrc], name, K_READ, path, sizeof(rbuf[0]), i != 2);
	}
	nsrc++;
	if (root_disk(disk, src[nsrc].why, sizeof(src[0].why)) == 0) {
		snprintf(path, sizeof(path), "/sys/class/block/%s/stat", disk);
		snprintf(name, sizeof(name), "disk %.20s stat", disk);
		src_init(&src[nsrc], name, K_READ, path, sizeof(rbuf[0]), true);
	} else {
		snprintf(src[nsrc].name, sizeof(src[0].name), "disk stat");
	}
	src_init(&src[++nsrc], "psi memory", K_READ, "/proc/pressure/memory", sizeof(rbuf[0]),
		 true);
	nsrc++;

	/* Warm: back to back, after the warm-up calls (which find read errors). */
	for (size_t i = 0; i < nsrc && !stop; i++) {
		struct src *s = &src[i];

		for (int k = 0; k < WARMUP && !s->why[0]; k++)
			if ((r = src_call(s)) < 0)
				snprintf(s->why, sizeof(s->why), "read: %s", strerror(-r));
		if (s->why[0])
			continue;
		if (!(s->warm = calloc(2 * N, sizeof(uint64_t))))
			goto nomem;
		s->cold = s->warm + N;
		for (size_t k = 0; k < N; k++) {
			t0 = now_ns();
			src_call(s);
			s->warm[k] = now_ns() - t0;
		}
		use[nuse++] = s;
		if (s->batch && nbatch < NBATCH)
			batch[nbatch++] = s;
	}

	/* Cold: one call a period, the sources taking turns. */
	next = now_ns();
	for (size_t k = 0; k < N * (size_t)nuse; k++) {
		struct src *s = use[k % (size_t)nuse];

		if (period_wait(&next, &missed) < 0)
			goto interrupted;
		t0 = now_ns();
		r = src_call(s);
		s->cold[k / (size_t)nuse] = now_ns() - t0;
		if (r < 0) {
			fprintf(stderr, "floor-bench: error: %s: %s\n", s->name, strerror(-r));
			goto out;
		}
	}

	/* The batch; one io_uring batch first, to find a kernel that cannot. */
	if (nbatch == 0)
		for (int w = 0; w < W_N; w++)
			snprintf(wwhy[w], sizeof(wwhy[0]), "no batch source could be read");
	else if (uring_setup(&ring, wwhy[W_URING], sizeof(wwhy[0])) == 0 &&
		 (r = uring_batch(&ring, batch, nbatch)) < 0)
		snprintf(wwhy[W_URING], sizeof(wwhy[0]), "read: %s", strerror(-r));
	for (int w = 0; w < W_N; w++) {
		if (wwhy[w][0])
			continue;
		if (!(wt[w] = calloc(N, sizeof(uint64_t))))
			goto nomem;
		wuse[nways++] = w;
	}
	next = now_ns();
	cpu0 = cpu_ns();
	for (size_t k = 0; k < N * (size_t)nways; k++) {
		int w = wuse[k % (size_t)nways];
		uint64_t cpu;

		if (period_wait(&next, &missed) < 0)
			goto interrupted;
		t0 = now_ns();
		r = 0;
		for (int i = 0; w != W_URING && i < nbatch; i++) {
			struct src *b = batch[w == W_SAME ? 0 : i];

			if ((w == W_GETPPID ? syscall(SYS_getppid)
					    : pread(b->fd, rbuf[i], b->len, 0)) < 0)
				r = -errno;
		}
		if (w == W_URING)
			r = uring_batch(&ring, batch, nbatch);
		wt[w][wn[w]++] = now_ns() - t0;
		/* The delta since the last period's end: this period's wake-up too. */
		cpu = cpu_ns();
		wcpu[w] += cpu - cpu0;
		cpu0 = cpu;
		if (r < 0) {
			fprintf(stderr, "floor-bench: error: batch by %s: %s\n", wname[w],
				strerror(-r));
			goto out;
		}
	}

	printf("floor: %zu samples a row, 10 ms grid, target pid %d (3 ms work, 13.7 ms "
	       "sleep), %llu periods missed\n",
	       N, (int)target, (unsigned long long)missed);
	printf("%-20s %9s %9s %9s %9s   (us)\n", "source", "warm_med", "warm_p90", "cold_med",
	       "cold_p90");
	for (size_t i = 0, nb = 0; i < nsrc; i++) {
		struct src *s = &src[i];
		double wm;

		if (s->why[0]) {
			printf("%-20s %9s   %s\n", s->name, "-", s->why);
			continue;
		}
		wm = med_p90(s->warm, N, &p90);
		printf("%-20s %9.2f %9.2f", s->name, wm, p90);
		med = med_p90(s->cold, N, &p90);
		printf(" %9.2f %9.2f\n", med, p90);
		if (s->kind == K_GETPPID) {
			cold_floor = med;
			warm_floor = wm;
		}
		if (s->batch)
			wmed[nb++] = (uint64_t)(wm * 1e3);
	}
	printf("sample batch: %d reads (", nbatch);
	for (int i = 0; i < nbatch; i++)
		printf("%s%s", i ? ", " : "", batch[i]->name);
	printf("), %zu periods a way, the ways taking turns\n", N);
	printf("%-20s %9s %9s %12s\n", "way", "med_us", "p90_us", "cpu_us/batch");
	for (int w = 0; w < W_N; w++) {
		snprintf(name, sizeof(name), w == W_URING ? "%s x%d, 1 enter" : "%s x%d", wname[w],
			 nbatch);
		if (wwhy[w][0]) {
			printf("%-20s %9s   %s\n", name, "-", wwhy[w]);
			continue;
		}
		med = med_p90(wt[w], wn[w], &p90);
		printf("%-20s %9.2f %9.2f %12.2f\n", name, med, p90,
		       (double)wcpu[w] / (double)wn[w] / 1e3);
		if (w == W_PREAD)
			pread_med = med;
		if (w == W_SAME)
			same_med = med;
	}
	printf("cpu_us/batch: getrusage(RUSAGE_SELF) per period, with its wake-up and "
	       "io_uring's io-wq workers\n");
	printf("io-wq worker threads at the end: %d (procfs and sysfs files cannot be read "
	       "without blocking: io_uring hands each read to a worker)\n",
	       count_iowq());

	/*
	 * The room the goal leaves: the first read pays the cold floor (getppid's
	 * cold median), each further one the median of the batch sources' warm
	 * medians: M = floor((10 - cold floor) / that) + 1 (0 if none fits).
	 */
	per = nbatch ? med_p90(wmed, (size_t)nbatch, NULL) : 0;
	m = cold_floor > 10 || per <= 0 ? 0 : (int)((10 - cold_floor) / per) + 1;
	printf("first system call after a wake-up: %.2f us median (warm %.2f us)\n", cold_floor,
	       warm_floor);
	printf("a sample of %d reads: %.2f us median (pread); %d reads of one kind (%s): %.2f us\n",
	       nbatch, pread_med, nbatch, nbatch ? batch[0]->name : "-", same_med);
	printf("the 10 us goal leaves room for at most about %d reads here (each after the "
	       "first priced warm: an upper bound)\n",
	       m);
	ret = fflush(stdout) == 0 && !ferror(stdout) ? 0 : 1;
	goto out;
nomem:
	fprintf(stderr, "floor-bench: error: out of memory\n");
	goto out;
interrupted:
	fprintf(stderr, "floor-bench: interrupted\n");
out:
	kill(target, SIGKILL);
	waitpid(target, NULL, 0);
	for (int w = 0; w < W_N; w++)
		free(wt[w]);
	for (size_t i = 0; i < nsrc; i++)
		free(src[i].warm);
	return ret;
}
