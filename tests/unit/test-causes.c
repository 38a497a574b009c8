// SPDX-License-Identifier: MIT
/*
 * test-causes.c: the cause rules on hand-made records. Each case builds a
 * one-second record in memory (101 samples, 10 ms apart) of a thread that
 * sleeps in clock_nanosleep between frames, with one 200 ms stall from 0.4 s
 * to 0.6 s whose samples show one cause's state and counters, including the
 * ones this machine cannot produce live (a GPU fence wait on /dev/dri/card0,
 * an NVIDIA ioctl, a zram swap-in, direct reclaim, compaction, the run
 * queue); it checks the sample rule, the stall's verdict and report's
 * columns (causes_columns over metrics_compute's stall choice).
 *
 *   test-causes --write DIR   writes a run directory with one 200 ms stall of
 *                             each of eight causes (tests/e2e/stalls.sh)
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/causes.h"
#include "core/frames.h"
#include "core/metrics.h"
#include "core/record.h"
#include "rec/rec.h"
#include "t.h"

#define NS 101
#define T0 1000000000ull	/* the record's clock at t0 */
#define MS 1000000ull

static const char *const field_names[] = {
	"ft.tid",	     "ft.state",	 "ft.wchan",		"ft.syscall",
	"ft.fd",	     "ft.fd_target",	 "ft.minflt",		"ft.majflt",
	"ft.run_ns",	     "ft.wait_ns",	 "proc.majflt",		"vm.pgmajfault",
	"vm.pswpin",	     "vm.pgscan_direct", "vm.allocstall_normal", "vm.compact_stall",
	"cg.memory.some_us", "disk.vda.rd_ios",	 "disk.vda.rd_sectors",	"disk.vda.in_flight",
	"disk.zram0.rd_ios", "disk.sdb.rd_ios",	 "vm.pswpout",		"vm.pgscan_kswapd",
	"ft.slices",
};
#define NF (sizeof(field_names) / sizeof(field_names[0]))

static char *xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		abort();
	return p;
}

static void *xcalloc(size_t n, size_t sz)
{
	void *p = calloc(n ? n : 1, sz);

	if (!p)
		abort();
	return p;
}

/* A record with the fields above, every sample the steady frame-limiter
 * sleep; ARCH the "arch" meta (NULL: none). */
static struct rec *rec_make(const char *arch)
{
	static const char *const strs[] = { "", "hrtimer_nanosleep", "/dev/dri/card0",
					    "dma_fence_default_wait", "/dev/nvidiactl",
					    "futex_wait_queue", "/var/tmp/game.pak",
					    "folio_wait_bit_common", "do_sys_poll", "socket:[123]",
					    "os_acquire_spinlock", "rwsem_down_read_slowpath",
					    "pipe:[456]", "reclaim_throttle" };
	struct rec *r = xcalloc(1, sizeof(*r));
	size_t i, f;

	r->nfields = NF;
	r->fields = xcalloc(NF, sizeof(*r->fields));
	for (f = 0; f < NF; f++) {
		r->fields[f].name = xstrdup(field_names[f]);
		r->fields[f].kind = strstr(field_names[f], "wchan") || strstr(field_names[f], "target")
					    ? REC_STR
					    : REC_INT;
	}
	r->nstrs = sizeof(strs) / sizeof(strs[0]);
	r->strs = xcalloc(r->nstrs, sizeof(char *));
	for (i = 0; i < r->nstrs; i++)
		r->strs[i] = xstrdup(strs[i]);
	r->meta = xcalloc(4, sizeof(*r->meta));
	r->meta[r->nmeta].key = xstrdup("disk.vda");
	r->meta[r->nmeta++].value = xstrdup("root");
	r->meta[r->nmeta].key = xstrdup("disk.zram0");
	r->meta[r->nmeta++].value = xstrdup("swap,zram");
	r->meta[r->nmeta].key = xstrdup("disk.sdb");
	r->meta[r->nmeta++].value = xstrdup("swap");
	if (arch) {
		r->meta[r->nmeta].key = xstrdup("arch");
		r->meta[r->nmeta++].value = xstrdup(arch);
	}
	r->nsamples = NS;
	r->t_ns = xcalloc(NS, sizeof(uint64_t));
	r->vals = xcalloc(NS * NF, sizeof(int64_t));
	for (i = 0; i < NS; i++) {
		int64_t *v = &r->vals[i * NF];

		r->t_ns[i] = T0 + i * 10 * MS;
		v[0] = 4242;
		v[1] = 'S';
		v[2] = 1;	/* hrtimer_nanosleep */
		v[3] = arch && !strcmp(arch, "aarch64") ? 115 : 230;	/* clock_nanosleep */
		v[4] = -1;
		/* counters creep: 1 ms run and a little wait per sample */
		v[8] = (int64_t)i * 1000000;
		v[9] = (int64_t)i * 20000;
	}
	return r;
}

static int fidx(const struct rec *r, const char *name)
{
	int f = rec_field_index(r, name);

	if (f < 0) {
		fprintf(stderr, "no field %s\n", name);
		abort();
	}
	return f;
}

/* Sets field NAME to V in the stall's samples (t in (0.4, 0.6] s). */
static void stall_set(struct rec *r, const char *name, int64_t v)
{
	int f = fidx(r, name);
	size_t i;

	for (i = 41; i <= 60; i++)
		r->vals[i * NF + (size_t)f] = v;
}

/* Makes counter NAME grow by STEP per sample inside the stall (and stay
 * there after it). */
static void stall_count(struct rec *r, const char *name, int64_t step)
{
	int f = fidx(r, name);
	size_t i;
	int64_t add = 0;

	for (i = 41; i < NS; i++) {
		if (i <= 60)
			add += step;
		r->vals[i * NF + (size_t)f] += add;
	}
}

/* Inside the stall the thread runs RUN_MS and waits in the run queue
 * WAIT_MS per 10 ms sample. */
static void stall_sched(struct rec *r, int64_t run_ms, int64_t wait_ms)
{
	stall_count(r, "ft.run_ns", run_ms * 1000000 - 1000000);
	stall_count(r, "ft.wait_ns", wait_ms * 1000000 - 20000);
}

/* The frames: a present every 20 ms but for the stall, 0.4 s to 0.6 s. */
static struct frames *frames_make(void)
{
	struct frames *f = frames_new();
	double t;

	if (!f)
		abort();
	for (t = 0.02; t < 0.4 - 1e-9; t += 0.02)
		frames_push(f, t, 20.0);
	frames_push(f, 0.4, 20.0);
	frames_push(f, 0.6, 200.0);
	for (t = 0.62; t < 1.0 - 1e-9; t += 0.02)
		frames_push(f, t, 20.0);
	return f;
}

/* Checks the stall's verdict and report's columns for a record made to
 * show sub-cause WANT. */
static void check_stall(struct rec *r, enum cause_sub want, enum cause_col col, const char *what)
{
	struct causes *c = NULL;
	struct cause_split s = { 0 };
	struct cause_verdict v;
	struct frames *f = frames_make();
	struct metrics_opts o = METRICS_OPTS_INIT;
	struct metrics m;
	struct cause_cols cols;
	size_t k;

	CHECK_INT(causes_new(r, &c), 0);
	if (!c) {
		rec_free(r);
		frames_free(f);
		return;
	}
	causes_split(c, T0 + 400 * MS, T0 + 600 * MS, &s);
	cause_split_verdict(&s, &v);
	if (v.sub != want)
		fprintf(stderr, "%s: got %s, expected %s\n", what, cause_sub_name(v.sub),
			cause_sub_name(want));
	CHECK_STR(cause_sub_name(v.sub), cause_sub_name(want));
	CHECK_INT(v.cause, cause_of_sub(want));
	CHECK_NEAR(v.share, 1.0, 1e-9);
	CHECK_NEAR(v.sub_share, 1.0, 1e-9);
	CHECK_INT(v.second, -1);
	CHECK_NEAR(cause_split_total(&s), 0.2, 1e-12);
	/* a sample outside the stall is the frame limiter */
	CHECK_INT(causes_sample(c, 30), SUB_WAIT_SLEEP);

	o.warmup_s = 0;
	CHECK_INT(metrics_compute(f, &o, NULL, 0, NULL, &m), 0);
	CHECK_INT(m.v[M_STALLS], 1);
	causes_columns(c, f, T0, &m, &o, NULL, 0, true, &cols);
	for (k = 0; k < CAUSE_COL_N; k++) {
		CHECK_NEAR(cols.stall_s[k], k == col ? 0.2 : 0.0, 1e-9);
		CHECK_NEAR(cols.play_s[k], k == col ? 0.2 : 0.0, 1e-9);
	}
	CHECK_INT(cols.why, col);
	CHECK_STR(cause_col_name((enum cause_col)cols.why), cause_col_name(col));
	causes_free(c);
	rec_free(r);
	frames_free(f);
}

static void test_disk(void)
{
	struct rec *r = rec_make("x86_64");

	stall_set(r, "ft.state", 'D');
	stall_set(r, "ft.syscall", -1);
	stall_set(r, "ft.wchan", 7);
	stall_count(r, "ft.majflt", 3);
	stall_count(r, "proc.majflt", 3);
	stall_count(r, "vm.pgmajfault", 3);
	stall_count(r, "disk.vda.rd_ios", 3);
	stall_count(r, "disk.vda.rd_sectors", 24);
	check_stall(r, SUB_DISK, CAUSE_COL_DISK, "disk");
}

static void test_io(void)
{
	struct rec *r = rec_make("x86_64");

	stall_set(r, "ft.state", 'D');
	stall_set(r, "ft.syscall", 17);	/* pread64 */
	stall_set(r, "ft.fd", 5);
	stall_set(r, "ft.fd_target", 6);
	stall_set(r, "ft.wchan", 7);
	stall_count(r, "disk.vda.rd_ios", 4);
	check_stall(r, SUB_IO_READ, CAUSE_COL_IO, "io");
}

static void test_swap_zram(void)
{
	struct rec *r = rec_make("x86_64");

	/* zram decompresses in the faulting thread: it runs */
	stall_set(r, "ft.state", 'R');
	stall_set(r, "ft.syscall", -1);
	stall_count(r, "ft.majflt", 400);
	stall_count(r, "vm.pswpin", 400);
	stall_count(r, "disk.zram0.rd_ios", 400);
	stall_sched(r, 10, 0);
	check_stall(r, SUB_SWAP_ZRAM, CAUSE_COL_SWAP, "swap_zram");
}

static void test_swap_dev(void)
{
	struct rec *r = rec_make("x86_64");

	stall_set(r, "ft.state", 'D');
	stall_set(r, "ft.syscall", -1);
	stall_count(r, "ft.majflt", 2);
	stall_count(r, "vm.pswpin", 2);
	stall_count(r, "disk.sdb.rd_ios", 2);
	check_stall(r, SUB_SWAP_DEV, CAUSE_COL_SWAP, "swap_dev");
}

static void test_reclaim_direct(void)
{
	struct rec *r = rec_make("x86_64");

	stall_set(r, "ft.state", 'R');
	stall_set(r, "ft.syscall", -1);
	stall_count(r, "vm.pgscan_direct", 1000);
	stall_count(r, "vm.allocstall_normal", 1);
	stall_count(r, "ft.minflt", 500);
	stall_sched(r, 10, 0);
	check_stall(r, SUB_RECLAIM_DIRECT, CAUSE_COL_RECLAIM, "reclaim_direct");
}

static void test_reclaim_psi(void)
{
	struct rec *r = rec_make("x86_64");

	/* memcg reclaim moves no global counter: only the cgroup's pressure */
	stall_set(r, "ft.state", 'R');
	stall_set(r, "ft.syscall", -1);
	stall_count(r, "cg.memory.some_us", 8000);
	stall_count(r, "ft.minflt", 200);
	stall_sched(r, 10, 0);
	check_stall(r, SUB_RECLAIM_PSI, CAUSE_COL_RECLAIM, "reclaim_psi");
}

/* Reclaim in a memory cgroup swaps out in bursts (a huge page at a time):
 * pswpout moves every other sample while kswapd scans nothing. */
static void test_reclaim_swapout(void)
{
	struct rec *r = rec_make("x86_64");
	int f = fidx(r, "vm.pswpout");
	size_t i;
	int64_t add = 0;

	stall_set(r, "ft.state", 'R');
	stall_set(r, "ft.syscall", -1);
	stall_sched(r, 10, 0);
	/* a huge page's fault at a time, in the samples between the bursts */
	for (i = 41; i < NS; i++) {
		if (i <= 60 && i % 2)
			add += 512;
		r->vals[i * NF + (size_t)f] += add;
		r->vals[i * NF + (size_t)fidx(r, "ft.minflt")] += (int64_t)(i <= 60 ? i - 40 : 20) / 2;
	}
	check_stall(r, SUB_RECLAIM_DIRECT, CAUSE_COL_RECLAIM, "swap-out bursts");
	/* ... but kswapd's swap-outs are not the thread's */
	r = rec_make("x86_64");
	stall_set(r, "ft.state", 'R');
	stall_set(r, "ft.syscall", -1);
	stall_sched(r, 10, 0);
	stall_count(r, "vm.pswpout", 512);
	stall_count(r, "vm.pgscan_kswapd", 2000);
	check_stall(r, SUB_CPU, CAUSE_COL_CPU, "kswapd swaps out");
}

/* A busy loop that faults nothing while another process reclaims (the
 * counters are every process's; CI, 2026-12-03: a neighbour's memory
 * cgroup swapping out made the fake game's busy loop 13 % reclaim) is cpu,
 * whichever counter moved; the same with its own faults is reclaim; a read
 * in D beside it is io, but for a wait in reclaim's own code. */
static void test_reclaim_neighbour(void)
{
	static const char *const moved[] = { "vm.pgscan_direct", "vm.pswpout",
					     "cg.memory.some_us" };

	for (size_t k = 0; k < sizeof(moved) / sizeof(moved[0]); k++) {
		struct rec *r = rec_make("x86_64");

		stall_set(r, "ft.state", 'R');
		stall_set(r, "ft.syscall", -1);
		stall_sched(r, 10, 0);
		stall_count(r, moved[k], 8000);
		check_stall(r, SUB_CPU, CAUSE_COL_CPU, moved[k]);
		r = rec_make("x86_64");
		stall_set(r, "ft.state", 'R');
		stall_set(r, "ft.syscall", -1);
		stall_sched(r, 10, 0);
		stall_count(r, moved[k], 8000);
		stall_count(r, "ft.minflt", 1);
		check_stall(r, k == 2 ? SUB_RECLAIM_PSI : SUB_RECLAIM_DIRECT, CAUSE_COL_RECLAIM,
			    moved[k]);
	}
	/* in D in a read (seen live: the fake game's O_DIRECT reads beside a
	 * neighbour's reclaim read 100 % reclaim), faulting nothing or with
	 * faults around (live: its set-up's, 7 % reclaim): it waits for its
	 * read */
	for (size_t k = 0; k < 6; k++) {
		struct rec *r = rec_make("x86_64");

		if (k >= 3)
			stall_count(r, "ft.minflt", 1);

		stall_set(r, "ft.state", 'D');
		stall_set(r, "ft.syscall", 17);	/* pread64 */
		stall_set(r, "ft.fd", 5);
		stall_set(r, "ft.fd_target", 6);
		stall_set(r, "ft.wchan", 7);	/* folio_wait_bit_common */
		stall_count(r, "disk.vda.rd_ios", 4);
		stall_count(r, moved[k % 3], 8000);
		check_stall(r, SUB_IO_READ, CAUSE_COL_IO, moved[k % 3]);
	}
	/* ... but throttled in reclaim's own code, it is reclaim */
	{
		struct rec *r = rec_make("x86_64");

		stall_set(r, "ft.state", 'D');
		stall_set(r, "ft.syscall", 17);
		stall_set(r, "ft.wchan", 13);	/* reclaim_throttle */
		stall_count(r, "vm.pgscan_direct", 8000);
		check_stall(r, SUB_RECLAIM_DIRECT, CAUSE_COL_RECLAIM, "reclaim_throttle");
	}
}

static void test_reclaim_compact(void)
{
	struct rec *r = rec_make("x86_64");

	/* MAP_POPULATE faults its pages in (counted as the thread's) */
	stall_set(r, "ft.state", 'D');
	stall_set(r, "ft.syscall", 9);	/* mmap */
	stall_count(r, "vm.compact_stall", 1);
	stall_count(r, "ft.minflt", 64);
	check_stall(r, SUB_RECLAIM_COMPACT, CAUSE_COL_RECLAIM, "reclaim_compact");
}

static void test_gpu_fence(void)
{
	struct rec *r = rec_make("x86_64");

	/* a fence wait on /dev/dri/card0 through poll: the wchan says it */
	stall_set(r, "ft.state", 'S');
	stall_set(r, "ft.syscall", 7);	/* poll */
	stall_set(r, "ft.wchan", 3);	/* dma_fence_default_wait */
	check_stall(r, SUB_GPU_FENCE, CAUSE_COL_GPU, "gpu fence");
}

static void test_gpu_ioctl(void)
{
	struct rec *r = rec_make("x86_64");

	stall_set(r, "ft.state", 'S');
	stall_set(r, "ft.syscall", 16);	/* ioctl */
	stall_set(r, "ft.fd", 7);
	stall_set(r, "ft.fd_target", 2);	/* /dev/dri/card0 */
	stall_set(r, "ft.wchan", 3);
	check_stall(r, SUB_GPU_IOCTL, CAUSE_COL_GPU, "gpu ioctl card0");
}

static void test_gpu_nvidia(void)
{
	struct rec *r = rec_make("x86_64");

	/* the NVIDIA driver spins and sleeps in its own wchans: D in an ioctl on
	 * /dev/nvidiactl is a GPU wait, not reclaim or io */
	stall_set(r, "ft.state", 'D');
	stall_set(r, "ft.syscall", 16);
	stall_set(r, "ft.fd", 9);
	stall_set(r, "ft.fd_target", 4);	/* /dev/nvidiactl */
	stall_set(r, "ft.wchan", 10);	/* os_acquire_spinlock */
	check_stall(r, SUB_GPU_IOCTL, CAUSE_COL_GPU, "nvidia ioctl");
}

static void test_cpu(void)
{
	struct rec *r = rec_make("x86_64");

	stall_set(r, "ft.state", 'R');
	stall_set(r, "ft.syscall", -1);
	stall_sched(r, 10, 0);
	check_stall(r, SUB_CPU, CAUSE_COL_CPU, "cpu");
}

static void test_runq(void)
{
	struct rec *r = rec_make("x86_64");

	stall_set(r, "ft.state", 'R');
	stall_set(r, "ft.syscall", -1);
	stall_sched(r, 1, 9);
	check_stall(r, SUB_RUNQ, CAUSE_COL_CPU, "runq");
}

static void test_wait_futex(void)
{
	struct rec *r = rec_make("x86_64");

	stall_set(r, "ft.state", 'S');
	stall_set(r, "ft.syscall", 202);
	stall_set(r, "ft.wchan", 5);
	check_stall(r, SUB_WAIT_FUTEX, CAUSE_COL_WAIT, "futex");
}

static void test_wait_futex_arm64(void)
{
	struct rec *r = rec_make("aarch64");

	/* 98 is futex on aarch64 (getrusage on x86_64) */
	stall_set(r, "ft.state", 'S');
	stall_set(r, "ft.syscall", 98);
	check_stall(r, SUB_WAIT_FUTEX, CAUSE_COL_WAIT, "futex arm64");
	/* ... and on x86_64 it is nothing the rules name */
	r = rec_make("x86_64");
	stall_set(r, "ft.state", 'S');
	stall_set(r, "ft.syscall", 98);
	check_stall(r, SUB_WAIT_OTHER, CAUSE_COL_WAIT, "98 on x86_64");
	CHECK_STR(cause_syscall_name("aarch64", 98), "futex");
	CHECK_STR(cause_syscall_name(NULL, 202), "futex");
	CHECK(cause_syscall_name("x86_64", 98) == NULL);
}

static void test_wait_poll_socket(void)
{
	struct rec *r = rec_make("x86_64");

	stall_set(r, "ft.state", 'S');
	stall_set(r, "ft.syscall", 271);	/* ppoll */
	stall_set(r, "ft.wchan", 8);
	check_stall(r, SUB_WAIT_POLL, CAUSE_COL_WAIT, "ppoll");
	r = rec_make("x86_64");
	stall_set(r, "ft.state", 'S');
	stall_set(r, "ft.syscall", 0);	/* read */
	stall_set(r, "ft.fd_target", 9);	/* socket:[123] */
	check_stall(r, SUB_WAIT_SOCKET, CAUSE_COL_WAIT, "read of a socket");
	/* a pipe is not a socket */
	r = rec_make("x86_64");
	stall_set(r, "ft.state", 'S');
	stall_set(r, "ft.syscall", 0);	/* read */
	stall_set(r, "ft.fd_target", 12);	/* pipe:[456] */
	check_stall(r, SUB_WAIT_PIPE, CAUSE_COL_WAIT, "read of a pipe");
	CHECK_STR(cause_sub_name(SUB_WAIT_PIPE), "wait_pipe");
}

/* A storm of small O_DIRECT preads: the thread waits in D most of each
 * read and runs a few microseconds in the kernel between waits, so a
 * sample now and then catches it running (its syscall unreadable then).
 * Those samples are the reads' too: io, not cpu. */
static void storm(struct rec *r, int64_t slices_per_sample)
{
	int st = fidx(r, "ft.state"), sc = fidx(r, "ft.syscall"), fd = fidx(r, "ft.fd_target");
	int sl = fidx(r, "ft.slices");
	size_t i;

	for (i = 41; i <= 60; i++) {
		int64_t *v = &r->vals[i * NF];

		/* every fourth sample running, between two D samples */
		v[st] = i % 4 == 2 ? 'R' : 'D';
		v[sc] = i % 4 == 2 ? -1 : 17;	/* pread64 */
		v[fd] = i % 4 == 2 ? 0 : 6;	/* /var/tmp/game.pak */
	}
	stall_sched(r, 2, 0);	/* 2 ms on a CPU per 10 ms */
	stall_count(r, "ft.slices", slices_per_sample);
	stall_count(r, "disk.vda.rd_ios", slices_per_sample);
	(void)sl;
}

static void test_io_on_cpu(void)
{
	struct rec *r = rec_make("x86_64");
	struct causes *c = NULL;
	struct cause_split s = { 0 };

	/* 120 reads a sample: 17 us on the CPU each */
	storm(r, 120);
	check_stall(r, SUB_IO_READ, CAUSE_COL_IO, "pread storm");
	/* a loader that reads, then decompresses for whole milliseconds at a
	 * time: its running samples stay cpu */
	r = rec_make("x86_64");
	storm(r, 1);
	CHECK_INT(causes_new(r, &c), 0);
	if (c) {
		causes_split(c, T0 + 400 * MS, T0 + 600 * MS, &s);
		CHECK_NEAR(s.sub_s[SUB_CPU], 0.05, 1e-9);
		CHECK_NEAR(s.sub_s[SUB_IO_READ], 0.15, 1e-9);
		CHECK_INT(causes_sample(c, 42), SUB_CPU);
		causes_free(c);
	}
	rec_free(r);
	/* running between two futex waits, no read beside it: cpu; between a
	 * read and a write: cpu; the storm's last running sample before the
	 * frame limiter's sleep: io */
	r = rec_make("x86_64");
	storm(r, 120);
	for (size_t k = 41; k <= 43; k += 2) {
		r->vals[k * NF + (size_t)fidx(r, "ft.state")] = 'S';
		r->vals[k * NF + (size_t)fidx(r, "ft.syscall")] = 202;
	}
	r->vals[47 * NF + (size_t)fidx(r, "ft.syscall")] = 18;	/* pwrite64 */
	r->vals[59 * NF + (size_t)fidx(r, "ft.state")] = 'R';
	r->vals[60 * NF + (size_t)fidx(r, "ft.state")] = 'R';
	CHECK_INT(causes_new(r, &c), 0);
	if (c) {
		CHECK_INT(causes_sample(c, 42), SUB_CPU);
		CHECK_INT(causes_sample(c, 46), SUB_CPU);
		CHECK_INT(causes_sample(c, 50), SUB_IO_READ);
		CHECK_INT(causes_sample(c, 60), SUB_IO_READ);
		causes_free(c);
	}
	rec_free(r);
}

/* Renderers' thread names, as the drivers set them (docs/CAUSES.md). */
static void test_driver_names(void)
{
	CHECK_INT(causes_driver_sub("llvmpipe-0"), SUB_GPU_LLVMPIPE);
	CHECK_INT(causes_driver_sub("llvmpipe-15"), SUB_GPU_LLVMPIPE);
	CHECK_INT(causes_driver_sub("llvmpipe-"), SUB_N);
	CHECK_INT(causes_driver_sub("llvmpipe-x"), SUB_N);
	CHECK_INT(causes_driver_sub("neverball:gl0"), SUB_GPU_GLTHREAD);
	CHECK_INT(causes_driver_sub("gl0"), SUB_N);
	CHECK_INT(causes_driver_sub("game:glx"), SUB_N);
	CHECK_INT(causes_driver_sub("dxvk-submit"), SUB_GPU_DXVK);
	CHECK_INT(causes_driver_sub("dxvk-queue"), SUB_GPU_DXVK);
	CHECK_INT(causes_driver_sub("dxvk-cs"), SUB_GPU_DXVK);
	CHECK_INT(causes_driver_sub("dxvk-shader"), SUB_N);
	CHECK_INT(causes_driver_sub("vkd3d_fence"), SUB_GPU_VKD3D);
	CHECK_INT(causes_driver_sub("vkd3d_queue"), SUB_GPU_VKD3D);
	CHECK_INT(causes_driver_sub("wined3d_cs"), SUB_GPU_WINED3D);
	CHECK_INT(causes_driver_sub("fakegame"), SUB_N);
	CHECK_INT(causes_driver_sub(""), SUB_N);
	CHECK_INT(causes_driver_sub(NULL), SUB_N);
	CHECK_STR(cause_sub_name(SUB_GPU_LLVMPIPE), "gpu_llvmpipe");
	CHECK_INT(cause_of_sub(SUB_GPU_LLVMPIPE), CAUSE_GPU);
	CHECK_INT(cause_of_sub(SUB_GPU_WINED3D), CAUSE_GPU);
}

static void test_wait_sleep(void)
{
	struct rec *r = rec_make("x86_64");

	/* the whole record already sleeps: the stall is a 200 ms sleep */
	check_stall(r, SUB_WAIT_SLEEP, CAUSE_COL_WAIT, "sleep");
}

static void test_fault_unknown(void)
{
	struct rec *r = rec_make("x86_64");

	/* D in a fault, no read and no reclaim seen */
	stall_set(r, "ft.state", 'D');
	stall_set(r, "ft.syscall", -1);
	check_stall(r, SUB_FAULT, CAUSE_COL_OTHER, "fault");
	r = rec_make("x86_64");
	stall_set(r, "ft.state", 'T');	/* stopped: no rule knows it */
	check_stall(r, SUB_UNKNOWN, CAUSE_COL_OTHER, "stopped");
}

/* schedstat moves in lumps: a wait is added when it ends, so samples see
 * +27 ms or nothing; the running samples around each one decide together. */
static void test_runq_lumps(void)
{
	struct rec *r = rec_make("x86_64");
	int w = fidx(r, "ft.wait_ns"), run = fidx(r, "ft.run_ns");
	size_t i;
	int64_t wadd = 0, radd = 0;

	stall_set(r, "ft.state", 'R');
	stall_set(r, "ft.syscall", -1);
	for (i = 41; i < NS; i++) {
		if (i <= 60 && i % 3 == 0)
			wadd += 27000000, radd += 2000000;
		r->vals[i * NF + (size_t)w] += wadd;
		r->vals[i * NF + (size_t)run] += radd - (int64_t)(i <= 60 ? i - 40 : 20) * 1000000;
	}
	check_stall(r, SUB_RUNQ, CAUSE_COL_CPU, "runq in lumps");
	/* and a busy thread whose run time comes in lumps is cpu */
	r = rec_make("x86_64");
	stall_set(r, "ft.state", 'R');
	stall_set(r, "ft.syscall", -1);
	radd = 0;
	for (i = 41; i < NS; i++) {
		if (i <= 60 && i % 4 == 0)
			radd += 40000000;
		r->vals[i * NF + (size_t)run] += radd - (int64_t)(i <= 60 ? i - 40 : 20) * 1000000;
	}
	check_stall(r, SUB_CPU, CAUSE_COL_CPU, "cpu in lumps");
}

/* A major fault wins over the state: the thread is asleep at the sample
 * but faulted from the disk during its interval. */
static void test_order(void)
{
	struct rec *r = rec_make("x86_64");

	stall_count(r, "ft.majflt", 1);
	stall_count(r, "disk.vda.rd_ios", 1);
	check_stall(r, SUB_DISK, CAUSE_COL_DISK, "majflt over sleep");
	/* reclaim counters do not make a GPU wait reclaim */
	r = rec_make("x86_64");
	stall_set(r, "ft.state", 'D');
	stall_set(r, "ft.syscall", 16);
	stall_set(r, "ft.fd_target", 2);
	stall_count(r, "vm.pgscan_direct", 100);
	check_stall(r, SUB_GPU_IOCTL, CAUSE_COL_GPU, "gpu over reclaim");
	/* a frame-thread change hides the thread counters' jump */
	r = rec_make("x86_64");
	stall_set(r, "ft.state", 'R');
	stall_set(r, "ft.syscall", -1);
	stall_sched(r, 10, 0);
	{
		int f = fidx(r, "ft.tid"), w = fidx(r, "ft.wait_ns");
		size_t i;

		for (i = 41; i < NS; i++) {
			r->vals[i * NF + (size_t)f] = 777;
			if (i == 41)
				r->vals[i * NF + (size_t)w] += 500000000;	/* another thread's */
		}
	}
	check_stall(r, SUB_CPU, CAUSE_COL_CPU, "thread change");
}

/* The split: pieces up to each sample inside take its cause, the tail after
 * the last sample inside takes the last one's, and they add up exactly. */
static void test_split(void)
{
	struct rec *r = rec_make("x86_64");
	struct causes *c = NULL;
	struct cause_split s = { 0 };
	struct cause_verdict v;
	struct cause_evidence e;

	stall_set(r, "ft.state", 'R');
	stall_set(r, "ft.syscall", -1);
	stall_sched(r, 10, 0);
	/* the last 5 samples of the stall wait on a futex: 50 of 200 ms */
	{
		int st = fidx(r, "ft.state"), sc = fidx(r, "ft.syscall");
		size_t i;

		for (i = 56; i <= 60; i++) {
			r->vals[i * NF + (size_t)st] = 'S';
			r->vals[i * NF + (size_t)sc] = 202;
		}
	}
	CHECK_INT(causes_new(r, &c), 0);
	if (!c)
		return;
	/* from 0.405 s to 0.6055 s: 5 ms to the sample at 0.41 (cpu), ... the
	 * 5.5 ms after the sample at 0.60 go to it (wait) */
	causes_split(c, T0 + 405 * MS, T0 + 605 * MS + 500000, &s);
	CHECK_NEAR(cause_split_total(&s), 0.2005, 1e-12);
	CHECK_NEAR(s.sub_s[SUB_WAIT_FUTEX], 0.0555, 1e-12);
	CHECK_NEAR(s.sub_s[SUB_CPU], 0.145, 1e-12);
	cause_split_verdict(&s, &v);
	CHECK_INT(v.cause, CAUSE_CPU);
	CHECK_INT(v.second, CAUSE_WAIT);
	CHECK_NEAR(v.second_share, 0.0555 / 0.2005, 1e-9);
	/* a span with no sample inside takes the next sample's cause */
	memset(&s, 0, sizeof(s));
	causes_split(c, T0 + 401 * MS, T0 + 409 * MS, &s);
	CHECK_NEAR(s.sub_s[SUB_CPU], 0.008, 1e-12);
	/* after the last sample: no sample */
	memset(&s, 0, sizeof(s));
	causes_split(c, T0 + 2000 * MS, T0 + 2100 * MS, &s);
	CHECK_NEAR(s.sub_s[SUB_NO_SAMPLE], 0.1, 1e-12);
	cause_split_verdict(&s, &v);
	CHECK_INT(v.cause, CAUSE_UNKNOWN);
	/* an empty split has no verdict */
	memset(&s, 0, sizeof(s));
	cause_split_verdict(&s, &v);
	CHECK(isnan(v.share));
	CHECK_INT(cause_split_why(&s), -1);
	/* evidence over the stall */
	causes_evidence(c, T0 + 400 * MS, T0 + 600 * MS, &e);
	CHECK_INT(e.nsamples, 20);
	CHECK_INT(e.state, 'R');
	CHECK_NEAR(e.runq_ms, 0.0, 1e-6);
	CHECK_NEAR(e.run_ms, 200.0, 1e-6);
	causes_free(c);
	rec_free(r);
}

static void test_evidence(void)
{
	struct rec *r = rec_make("x86_64");
	struct causes *c = NULL;
	struct cause_evidence e;
	size_t k;
	bool saw = false;

	stall_set(r, "ft.state", 'D');
	stall_set(r, "ft.syscall", 17);
	stall_set(r, "ft.fd_target", 6);
	stall_set(r, "ft.wchan", 7);
	stall_count(r, "disk.vda.rd_ios", 4);
	stall_count(r, "disk.vda.rd_sectors", 32);
	stall_count(r, "vm.pgmajfault", 0);
	r->events = xcalloc(4, sizeof(*r->events));
	r->nevents = 4;
	r->events[0].t_ns = T0 + 500 * MS;
	r->events[0].tid = 4242;
	r->events[0].kind = xstrdup("stack");
	r->events[0].text = xstrdup("folio_wait_bit_common\nfilemap_read\nvfs_read");
	/* record --probe: CPU 1 woke 900 ms late at 1.2 s (asleep over 0.3..1.2 s:
	 * overlaps the span), CPU 0 12 ms late at 0.2 s (before it), CPU 0 15 ms
	 * late at 0.61 s (due at 0.595: overlaps) */
	r->events[1].t_ns = T0 + 1200 * MS;
	r->events[1].kind = xstrdup("late_wakeup");
	r->events[1].text = xstrdup("cpu=1 late_us=900000");
	r->events[2].t_ns = T0 + 200 * MS;
	r->events[2].kind = xstrdup("late_wakeup");
	r->events[2].text = xstrdup("cpu=0 late_us=12000");
	r->events[3].t_ns = T0 + 610 * MS;
	r->events[3].kind = xstrdup("late_wakeup");
	r->events[3].text = xstrdup("cpu=0 late_us=15000");
	CHECK_INT(causes_new(r, &c), 0);
	if (!c)
		return;
	causes_evidence(c, T0 + 400 * MS, T0 + 600 * MS, &e);
	CHECK_INT(e.state, 'D');
	CHECK_STR(e.wchan, "folio_wait_bit_common");
	CHECK_INT(e.syscall, 17);
	CHECK_STR(e.syscall_name, "pread64");
	CHECK_STR(e.fd_target, "/var/tmp/game.pak");
	CHECK_INT(e.ndisks, 1);
	for (k = 0; k < e.ndisks; k++)
		if (e.disks[k].dev_len == 3 && !memcmp(e.disks[k].dev, "vda", 3)) {
			CHECK_INT(e.disks[k].rd_ios, 80);
			CHECK_INT(e.disks[k].rd_kb, 320);
			saw = true;
		}
	CHECK(saw);
	CHECK_INT(e.nvm, 0);
	CHECK(e.stack && !strncmp(e.stack, "folio_wait_bit_common", 21));
	CHECK_INT(e.nlate, 2);
	CHECK_INT(e.late[0].cpu, 1);
	CHECK_NEAR(e.late[0].late_ms, 900, 1e-9);
	CHECK_INT(e.late[1].cpu, 0);
	CHECK_NEAR(e.late[1].late_ms, 15, 1e-9);
	causes_free(c);
	rec_free(r);
}

/* The evidence's run and runq never mix two threads' counters: the frame
 * thread changes at 0.5 s to one that ran longer but waited less (as a
 * SuperTuxKart stall read "run 9.2 ms, runq -8.0 ms"), then at 0.55 s its tid
 * is a new thread's whose counters start again near 0. Each change leaves
 * its period out, and says so; the other periods add up. */
static void test_evidence_thread_change(void)
{
	struct rec *r = rec_make("x86_64");
	struct causes *c = NULL;
	struct cause_evidence e;
	int tid = fidx(r, "ft.tid"), run = fidx(r, "ft.run_ns"), w = fidx(r, "ft.wait_ns");
	int mj = fidx(r, "ft.majflt");
	size_t i;

	stall_set(r, "ft.state", 'R');
	stall_set(r, "ft.syscall", -1);
	stall_sched(r, 10, 0);
	for (i = 0; i < NS; i++) {
		int64_t *v = &r->vals[i * NF];

		if (i < 50) {
			v[w] += 20000000;	/* the first thread waited 20 ms before */
			v[mj] = 7;
		} else if (i < 55) {
			v[tid] = 4343;
			v[run] += 500000000;	/* the second ran 500 ms more */
		} else {
			/* tid 4343 exited; a new thread got its tid: from 0 */
			v[tid] = 4343;
			v[run] -= 400000000;
			v[w] -= 1000000;
		}
	}
	CHECK_INT(causes_new(r, &c), 0);
	if (!c)
		return;
	causes_evidence(c, T0 + 400 * MS, T0 + 600 * MS, &e);
	CHECK_INT(e.ft_periods, 20);
	CHECK_INT(e.ft_gaps, 2);
	CHECK(e.runq_ms >= 0);
	CHECK(e.run_ms >= 0);
	/* 18 periods of one thread, 10 ms run each, no wait */
	CHECK_NEAR(e.run_ms, 180.0, 1e-6);
	CHECK_NEAR(e.runq_ms, 0.0, 1e-6);
	CHECK_INT(e.majflt, 0);	/* 7 faults of the first thread are not the second's -7 */
	/* a span that is all one change: nothing known, not 0 and not negative */
	causes_evidence(c, T0 + 495 * MS, T0 + 500 * MS, &e);
	CHECK_INT(e.ft_periods, 1);
	CHECK_INT(e.ft_gaps, 1);
	CHECK(isnan(e.run_ms));
	CHECK(isnan(e.runq_ms));
	causes_free(c);
	rec_free(r);
}

/* The load and the warm-up's disk seconds; play without a reload. */
static void test_columns_load(void)
{
	struct rec *r = rec_make("x86_64");
	struct causes *c = NULL;
	struct frames *f = frames_new();
	struct metrics_opts o = METRICS_OPTS_INIT;
	struct metrics m;
	struct metrics_seg seg = { 0.3, 0.5 };
	struct cause_cols cols;
	double t;
	int st = fidx(r, "ft.state"), sc = fidx(r, "ft.syscall");
	size_t i;

	/* the load: D in read until 0.2 s; frames start there */
	for (i = 0; i <= 20; i++) {
		r->vals[i * NF + (size_t)st] = 'D';
		r->vals[i * NF + (size_t)sc] = 0;
	}
	for (t = 0.22; t < 1.0 - 1e-9; t += 0.02)
		frames_push(f, t, 20.0);
	CHECK_INT(causes_new(r, &c), 0);
	if (!c)
		return;
	o.warmup_s = 0.5;
	CHECK_INT(metrics_compute(f, &o, &seg, 1, NULL, &m), 0);
	causes_columns(c, f, T0, &m, &o, &seg, 1, true, &cols);
	/* samples 1..20 cover (0, 0.2]: all io; the reload segment sleeps */
	CHECK_NEAR(cols.load_disk_s, 0.2, 1e-9);
	CHECK_NEAR(cols.warm_disk_s, 0.0, 1e-12);
	CHECK_INT(cols.why, -1);
	CHECK_NEAR(cols.stall_s[CAUSE_COL_WAIT], 0.0, 1e-12);
	/* unknown play leaves the play columns NaN */
	causes_columns(c, f, T0, &m, &o, &seg, 1, false, &cols);
	CHECK(isnan(cols.play_s[CAUSE_COL_DISK]));
	causes_free(c);
	rec_free(r);
	frames_free(f);
}

/* A stall inside a reload segment is a window stall, not a play stall; a
 * stall in the warm-up is neither. */
static void test_parts(void)
{
	struct frames *f = frames_make();
	struct metrics_opts o = METRICS_OPTS_INIT;
	struct metrics m;
	struct metrics_seg seg = { 0.5, 0.55 };
	size_t i, stall = 0;

	for (i = 0; i < f->n; i++)
		if (f->ft_ms[i] > 100)
			stall = i;
	o.warmup_s = 0;
	CHECK_INT(metrics_compute(f, &o, &seg, 1, NULL, &m), 0);
	CHECK_INT(causes_stall_parts(f, stall, &m, &o, &seg, 1), CAUSES_IN_WINDOW);
	CHECK_INT(m.v[M_STALLS_PLAY], 0);
	CHECK_INT(causes_stall_parts(f, stall, &m, &o, NULL, 0),
		  CAUSES_IN_WINDOW | CAUSES_IN_PLAY);
	CHECK_INT(causes_stall_parts(f, stall - 1, &m, &o, NULL, 0), 0);
	o.warmup_s = 0.7;
	CHECK_INT(metrics_compute(f, &o, NULL, 0, NULL, &m), 0);
	CHECK_INT(causes_stall_parts(f, stall, &m, &o, NULL, 0), CAUSES_IN_WARM);
	CHECK_INT(m.v[M_STALLS_WARM], 1);
	frames_free(f);
}

static void test_names(void)
{
	int i;

	for (i = 0; i < SUB_N; i++)
		CHECK_INT(cause_sub_from_name(cause_sub_name((enum cause_sub)i)), i);
	for (i = 0; i < CAUSE_N; i++)
		CHECK_INT(cause_from_name(cause_name((enum cause)i)), i);
	CHECK_INT(cause_from_name("nonsense"), -1);
	CHECK_INT(cause_col_of(CAUSE_RUNQ), CAUSE_COL_CPU);
	CHECK_INT(cause_col_of(CAUSE_FAULT), CAUSE_COL_OTHER);
	CHECK_INT(cause_col_of(CAUSE_UNKNOWN), CAUSE_COL_OTHER);
	CHECK_STR(cause_col_name(CAUSE_COL_OTHER), "other");
}

/* An empty record and a record without frame-thread fields never crash. */
static void test_empty(void)
{
	struct rec *r = xcalloc(1, sizeof(*r));
	struct causes *c = NULL;
	struct cause_split s = { 0 };
	struct cause_evidence e;

	CHECK_INT(causes_new(r, &c), 0);
	if (!c)
		return;
	causes_split(c, 10, 20, &s);
	CHECK_NEAR(s.sub_s[SUB_NO_SAMPLE], 1e-8, 1e-15);
	causes_evidence(c, 10, 20, &e);
	CHECK_INT(e.nsamples, 0);
	CHECK(isnan(e.run_ms));
	causes_free(c);
	rec_free(r);
}

/* ------------------------------------------------------- a run directory */

/* The stalls of the written run: kind at START s after t0, 200 ms each. */
static const struct {
	const char *kind;
	double start;
} run_stalls[] = {
	{ "disk", 1.0 },      { "gpu_fence", 2.0 }, { "swap_zram", 3.0 }, { "reclaim", 4.0 },
	{ "runq", 5.0 },      { "nvidia", 6.0 },    { "io", 7.0 },	      { "wait_futex", 8.0 },
};
#define RUN_T0 1000000000000ull	/* t0 = 1000 s on the record's clock */

/* The kind of the sample at T_NS: a stall's when T is in (start, start +
 * 0.2], "load" before t0, else NULL (the frame limiter's sleep). */
static const char *kind_at(uint64_t t)
{
	size_t k;

	if (t <= RUN_T0)
		return "load";
	for (k = 0; k < sizeof(run_stalls) / sizeof(run_stalls[0]); k++) {
		uint64_t a = RUN_T0 + (uint64_t)(run_stalls[k].start * 1e9 + 0.5);

		if (t > a && t <= a + 200 * MS)
			return run_stalls[k].kind;
	}
	return NULL;
}

static int write_run(const char *dir)
{
	char path[4096];
	struct rec_writer *w;
	struct rec_frame fr = { .tid = 4242, .source = 1 };
	int64_t v[NF] = { 0 };
	uint32_t s_sleep, s_card, s_fence, s_nvidia, s_futex, s_pak, s_folio;
	uint64_t t;
	size_t f, k;
	FILE *ini;

	snprintf(path, sizeof(path), "%s/run.ini", dir);
	ini = fopen(path, "w");
	if (!ini)
		return -errno;
	fprintf(ini, "program=fakegame\nvariant=hand-made\nt0=1000\n");
	fclose(ini);
	snprintf(path, sizeof(path), "%s/record.ssr", dir);
	if (rec_writer_new(path, &w) < 0)
		return -EIO;
	rec_writer_meta(w, "period_ns", "10000000");
	rec_writer_meta(w, "arch", "x86_64");
	rec_writer_meta(w, "disk.vda", "root");
	rec_writer_meta(w, "disk.zram0", "swap,zram");
	rec_writer_meta(w, "disk.sdb", "swap");
	for (f = 0; f < NF; f++)
		if (rec_writer_field(w, field_names[f],
				     strstr(field_names[f], "wchan") || strstr(field_names[f], "target")
					     ? REC_STR
					     : REC_INT) != (int)f)
			return -EIO;
	if (rec_writer_begin(w) < 0)
		return -EIO;
	s_sleep = rec_writer_intern(w, "hrtimer_nanosleep");
	s_card = rec_writer_intern(w, "/dev/dri/card0");
	s_fence = rec_writer_intern(w, "dma_fence_default_wait");
	s_nvidia = rec_writer_intern(w, "/dev/nvidia0");
	s_futex = rec_writer_intern(w, "futex_wait_queue");
	s_pak = rec_writer_intern(w, "/var/tmp/game.pak");
	s_folio = rec_writer_intern(w, "folio_wait_bit_common");
	(void)s_card;
	/* samples every 10 ms from t0 - 0.5 s to t0 + 10 s */
	v[0] = 4242;
	for (t = RUN_T0 - 500 * MS; t <= RUN_T0 + 10000 * MS; t += 10 * MS) {
		const char *kind = kind_at(t);

		v[1] = 'S';
		v[2] = s_sleep;
		v[3] = 230;
		v[4] = -1;
		v[5] = 0;
		v[8] += 1000000;
		v[9] += 20000;
		if (!kind) {
		} else if (!strcmp(kind, "load")) {
			v[1] = 'D', v[2] = s_folio, v[3] = 0, v[4] = 5, v[5] = s_pak;
			v[17] += 2;
			v[18] += 64;
		} else if (!strcmp(kind, "disk")) {
			v[1] = 'D', v[2] = s_folio, v[3] = -1;
			v[7] += 3, v[10] += 3, v[11] += 3, v[17] += 3, v[18] += 24;
		} else if (!strcmp(kind, "gpu_fence")) {
			v[3] = 7, v[2] = s_fence;
		} else if (!strcmp(kind, "swap_zram")) {
			v[1] = 'R', v[2] = 0, v[3] = -1;
			v[7] += 400, v[10] += 400, v[11] += 400, v[12] += 400, v[20] += 400;
			v[8] += 9000000;
		} else if (!strcmp(kind, "reclaim")) {
			v[1] = 'R', v[2] = 0, v[3] = -1;
			v[13] += 1000, v[14] += 1, v[8] += 9000000, v[6] += 500;
		} else if (!strcmp(kind, "runq")) {
			v[1] = 'R', v[2] = 0, v[3] = -1;
			v[9] += 9000000;
		} else if (!strcmp(kind, "nvidia")) {
			v[3] = 16, v[4] = 9, v[5] = s_nvidia, v[2] = 0;
		} else if (!strcmp(kind, "io")) {
			v[1] = 'D', v[2] = s_folio, v[3] = 17, v[4] = 5, v[5] = s_pak;
			v[17] += 4, v[18] += 32;
		} else if (!strcmp(kind, "wait_futex")) {
			v[3] = 202, v[2] = s_futex;
		}
		if (rec_writer_sample(w, t, v) < 0)
			return -EIO;
		if (t == RUN_T0 + 1100 * MS &&
		    rec_writer_event(w, t, 4242, "stack",
				     "folio_wait_bit_common\nfilemap_fault\n__do_fault\n"
				     "handle_mm_fault") < 0)
			return -EIO;
	}
	/* presents every 20 ms from t0, but for the stalls */
	for (t = RUN_T0; t <= RUN_T0 + 10000 * MS;) {
		uint64_t next = t + 20 * MS;

		fr.t_ns = t;
		if (rec_writer_frame(w, &fr) < 0)
			return -EIO;
		for (k = 0; k < sizeof(run_stalls) / sizeof(run_stalls[0]); k++)
			if (t == RUN_T0 + (uint64_t)(run_stalls[k].start * 1e9 + 0.5))
				next = t + 200 * MS;
		t = next;
	}
	return rec_writer_close(w);
}

static int t_stream_header(void *ctx, const struct rec *r)
{
	return causes_stream_new(r, 256, (struct causes **)ctx);
}

static int t_stream_samples(void *ctx, const struct rec *r)
{
	(void)r;
	return causes_stream_feed(*(struct causes **)ctx, false);
}

/* The causes of a record read streaming (a ring of 256 samples, which a
 * busy 700-sample record wraps twice) are the causes of the whole matrix,
 * sample by sample and span by span. The record is the fuzz corpus's
 * damaged one: its samples resume after a hole, which the ring must not
 * mind either. */
static void test_stream(void)
{
	const char *path = t_fixture("rec-corpus/busy-1500-v2-damaged.ssr");
	struct strbuf err = STRBUF_INIT;
	struct rec *full = NULL, *st = NULL;
	struct causes *cf = NULL, *cs = NULL;
	struct rec_stream rs = { .ring_rows = 256, .skip_threads = true,
				 .on_header = t_stream_header, .on_samples = t_stream_samples,
				 .ctx = &cs };
	size_t diff = 0;

	CHECK_INT(rec_read_file(path, &full, &err), 0);
	CHECK_INT(rec_read_file_stream(path, &rs, &st, &err), 0);
	if (!full || !st || !cs) {
		T_FAIL("cannot read '%s': %s", path, err.buf);
		goto out;
	}
	CHECK_INT(causes_stream_feed(cs, true), 0);
	CHECK_INT(causes_new(full, &cf), 0);
	CHECK_INT(st->nsamples, full->nsamples);
	CHECK(full->nsamples > 600);
	CHECK_INT(st->nthreads, 0);
	for (size_t i = 0; i < full->nsamples; i++)
		diff += causes_sample(cf, i) != causes_sample(cs, i);
	CHECK_INT(diff, 0);
	{	/* not all one cause: the comparison means something */
		size_t kinds[SUB_N] = { 0 }, nk = 0;

		for (size_t i = 0; i < full->nsamples; i++)
			kinds[causes_sample(cf, i)]++;
		for (int k = 0; k < SUB_N; k++)
			nk += kinds[k] > 0;
		CHECK(nk >= 3);
	}
	for (size_t k = 0; k + 50 < full->nsamples; k += 37) {
		struct cause_split a = { 0 }, b = { 0 };

		causes_split(cf, full->t_ns[k] + 3000000, full->t_ns[k + 50], &a);
		causes_split(cs, full->t_ns[k] + 3000000, full->t_ns[k + 50], &b);
		for (int j = 0; j < SUB_N; j++)
			CHECK_NEAR(a.sub_s[j], b.sub_s[j], 0);
	}
	{	/* a ring that is not a power of two, or too small: refused */
		struct causes *bad = NULL;

		CHECK_INT(causes_stream_new(full, 1000, &bad), -EINVAL);
		CHECK_INT(causes_stream_new(full, 128, &bad), -EINVAL);
		CHECK(bad == NULL);
	}
	{	/* a ring fed too seldom: said (-ERANGE), never misread */
		struct causes *lazy = NULL;
		struct rec *r2 = NULL;
		struct rec_stream rs2 = { .ring_rows = 256, .on_header = t_stream_header,
					  .ctx = &lazy };

		CHECK_INT(rec_read_file_stream(path, &rs2, &r2, &err), 0);
		if (lazy)
			CHECK_INT(causes_stream_feed(lazy, true), -ERANGE);
		causes_free(lazy);
		rec_free(r2);
	}
out:
	causes_free(cf);
	causes_free(cs);
	rec_free(full);
	rec_free(st);
	sb_release(&err);
}

int main(int argc, char **argv)
{
	if (argc >= 3 && !strcmp(argv[1], "--write"))
		return write_run(argv[2]) < 0;
	T_RUN(test_disk);
	T_RUN(test_stream);
	T_RUN(test_io);
	T_RUN(test_swap_zram);
	T_RUN(test_swap_dev);
	T_RUN(test_reclaim_direct);
	T_RUN(test_reclaim_psi);
	T_RUN(test_reclaim_swapout);
	T_RUN(test_reclaim_compact);
	T_RUN(test_reclaim_neighbour);
	T_RUN(test_gpu_fence);
	T_RUN(test_gpu_ioctl);
	T_RUN(test_gpu_nvidia);
	T_RUN(test_cpu);
	T_RUN(test_runq);
	T_RUN(test_runq_lumps);
	T_RUN(test_wait_futex);
	T_RUN(test_wait_futex_arm64);
	T_RUN(test_wait_poll_socket);
	T_RUN(test_io_on_cpu);
	T_RUN(test_driver_names);
	T_RUN(test_wait_sleep);
	T_RUN(test_fault_unknown);
	T_RUN(test_order);
	T_RUN(test_split);
	T_RUN(test_evidence);
	T_RUN(test_evidence_thread_change);
	T_RUN(test_columns_load);
	T_RUN(test_parts);
	T_RUN(test_names);
	T_RUN(test_empty);
	return t_exit();
}
