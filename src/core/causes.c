// SPDX-License-Identifier: MIT
/*
 * causes.c: the cause rules of docs/CAUSES.md, the split of a span over the
 * samples and the evidence behind a verdict. See causes.h.
 *
 * Assumes a record whose samples are in time order (the reader guarantees
 * it). The rules read the frame thread's fields (ft.*), the process's faults
 * (proc.*) when the thread's are missing, vmstat (vm.*), the disks
 * (disk.<dev>.*, roles from meta "disk.<dev>") and pressure (cg.*, psi.*).
 * Pure: no system calls.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/causes.h"
#include "core/causes_int.h"
#include "core/fields.h"
#include "core/grow.h"
#include "core/syscalls.h"

/* ------------------------------------------------------- names */

static const char *const cause_names[CAUSE_N] = {
	[CAUSE_UNKNOWN] = "unknown", [CAUSE_DISK] = "disk",	  [CAUSE_SWAP] = "swap",
	[CAUSE_FAULT] = "fault",     [CAUSE_RECLAIM] = "reclaim", [CAUSE_GPU] = "gpu",
	[CAUSE_IO] = "io",	     [CAUSE_CPU] = "cpu",	  [CAUSE_RUNQ] = "runq",
	[CAUSE_WAIT] = "wait",
};

static const struct {
	const char *name;
	enum cause cause;
} subs[SUB_N] = {
	[SUB_UNKNOWN] = { "unknown", CAUSE_UNKNOWN },
	[SUB_NO_SAMPLE] = { "no_sample", CAUSE_UNKNOWN },
	[SUB_DISK] = { "disk", CAUSE_DISK },
	[SUB_SWAP_ZRAM] = { "swap_zram", CAUSE_SWAP },
	[SUB_SWAP_DEV] = { "swap_dev", CAUSE_SWAP },
	[SUB_SWAP] = { "swap", CAUSE_SWAP },
	[SUB_FAULT] = { "fault", CAUSE_FAULT },
	[SUB_RECLAIM_DIRECT] = { "reclaim_direct", CAUSE_RECLAIM },
	[SUB_RECLAIM_COMPACT] = { "reclaim_compact", CAUSE_RECLAIM },
	[SUB_RECLAIM_PSI] = { "reclaim_psi", CAUSE_RECLAIM },
	[SUB_GPU_FENCE] = { "gpu_fence", CAUSE_GPU },
	[SUB_GPU_IOCTL] = { "gpu_ioctl", CAUSE_GPU },
	[SUB_GPU_LLVMPIPE] = { "gpu_llvmpipe", CAUSE_GPU },
	[SUB_GPU_GLTHREAD] = { "gpu_glthread", CAUSE_GPU },
	[SUB_GPU_DXVK] = { "gpu_dxvk", CAUSE_GPU },
	[SUB_GPU_VKD3D] = { "gpu_vkd3d", CAUSE_GPU },
	[SUB_GPU_WINED3D] = { "gpu_wined3d", CAUSE_GPU },
	[SUB_IO_READ] = { "io_read", CAUSE_IO },
	[SUB_IO_WRITE] = { "io_write", CAUSE_IO },
	[SUB_IO_META] = { "io_meta", CAUSE_IO },
	[SUB_IO_SYNC] = { "io_sync", CAUSE_IO },
	[SUB_CPU] = { "cpu", CAUSE_CPU },
	[SUB_RUNQ] = { "runq", CAUSE_RUNQ },
	[SUB_WAIT_FUTEX] = { "wait_futex", CAUSE_WAIT },
	[SUB_WAIT_POLL] = { "wait_poll", CAUSE_WAIT },
	[SUB_WAIT_SOCKET] = { "wait_socket", CAUSE_WAIT },
	[SUB_WAIT_PIPE] = { "wait_pipe", CAUSE_WAIT },
	[SUB_WAIT_SLEEP] = { "wait_sleep", CAUSE_WAIT },
	[SUB_WAIT_OTHER] = { "wait_other", CAUSE_WAIT },
	[SUB_CPU_SHADER_COMPILE] = { "cpu_shader_compile", CAUSE_CPU },
	[SUB_GPU_FENCE_WAIT] = { "gpu_fence_wait", CAUSE_GPU },
};

static const char *const col_names[CAUSE_COL_N] = {
	[CAUSE_COL_DISK] = "disk", [CAUSE_COL_SWAP] = "swap", [CAUSE_COL_RECLAIM] = "reclaim",
	[CAUSE_COL_GPU] = "gpu",   [CAUSE_COL_CPU] = "cpu",	  [CAUSE_COL_IO] = "io",
	[CAUSE_COL_WAIT] = "wait", [CAUSE_COL_OTHER] = "other",
};

const char *cause_name(enum cause c)
{
	return (unsigned)c < CAUSE_N ? cause_names[c] : "unknown";
}

const char *cause_sub_name(enum cause_sub s)
{
	return (unsigned)s < SUB_N ? subs[s].name : "unknown";
}

const char *cause_col_name(enum cause_col c)
{
	return (unsigned)c < CAUSE_COL_N ? col_names[c] : "other";
}

enum cause cause_of_sub(enum cause_sub s)
{
	return (unsigned)s < SUB_N ? subs[s].cause : CAUSE_UNKNOWN;
}

enum cause_col cause_col_of(enum cause c)
{
	switch (c) {
	case CAUSE_DISK:
		return CAUSE_COL_DISK;
	case CAUSE_SWAP:
		return CAUSE_COL_SWAP;
	case CAUSE_RECLAIM:
		return CAUSE_COL_RECLAIM;
	case CAUSE_GPU:
		return CAUSE_COL_GPU;
	case CAUSE_CPU:
	case CAUSE_RUNQ:
		return CAUSE_COL_CPU;
	case CAUSE_IO:
		return CAUSE_COL_IO;
	case CAUSE_WAIT:
		return CAUSE_COL_WAIT;
	default:
		return CAUSE_COL_OTHER;
	}
}

int cause_from_name(const char *name)
{
	int i;

	for (i = 0; i < CAUSE_N; i++)
		if (!strcmp(name, cause_names[i]))
			return i;
	return -1;
}

/* ------------------------------------------------------- renderers' threads */

/* Thread names as each renderer sets them (docs/CAUSES.md cites where):
 * a prefix, what may follow it ("N": digits only, "": nothing, "*":
 * anything), and the sub-cause. */
static const struct {
	const char *prefix;
	const char *rest;
	enum cause_sub sub;
} drivers[] = {
	{ "llvmpipe-", "N", SUB_GPU_LLVMPIPE },	/* lp_rast.c: "llvmpipe-%u" */
	{ "dxvk-submit", "", SUB_GPU_DXVK },	/* dxvk_queue.cpp */
	{ "dxvk-queue", "", SUB_GPU_DXVK },	/* dxvk_queue.cpp */
	{ "dxvk-cs", "", SUB_GPU_DXVK },	/* dxvk_cs.cpp */
	{ "vkd3d_fence", "", SUB_GPU_VKD3D },	/* libs/vkd3d/command.c */
	{ "vkd3d_queue", "", SUB_GPU_VKD3D },	/* vkd3d-proton */
	{ "wined3d_cs", "", SUB_GPU_WINED3D },	/* seen in our Wine runs */
};

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

enum cause_sub causes_driver_sub(const char *comm)
{
	const char *colon;

	if (!comm || !*comm)
		return SUB_N;
	for (size_t i = 0; i < sizeof(drivers) / sizeof(drivers[0]); i++) {
		size_t n = strlen(drivers[i].prefix);

		if (strncmp(comm, drivers[i].prefix, n))
			continue;
		if (!strcmp(drivers[i].rest, "N") ? all_digits(comm + n) : !comm[n])
			return drivers[i].sub;
	}
	/* Mesa's util_queue names its threads "PROGRAM:NAMEn" (the program's
	 * name cut to fit 15 bytes); glthread's queue is "gl" */
	colon = strrchr(comm, ':');
	if (colon && !strncmp(colon + 1, "gl", 2) && all_digits(colon + 3))
		return SUB_GPU_GLTHREAD;
	return SUB_N;
}

int cause_sub_from_name(const char *name)
{
	int i;

	for (i = 0; i < SUB_N; i++)
		if (!strcmp(name, subs[i].name))
			return i;
	return -1;
}

/* ------------------------------------------------------- syscalls */

/* core/syscalls.h holds the table (numbers, names, classes). */

const char *cause_syscall_name(const char *arch, long nr)
{
	const struct syscall_info *s = syscall_lookup(syscall_abi_of(arch), nr);

	return s ? s->name : NULL;
}

/* ------------------------------------------------------- the record's fields */

/* The delta of field F from sample I-1 to I; 0 when F is absent or I is 0. */
static int64_t delta(const struct causes *c, size_t i, int f)
{
	if (f < 0 || i == 0)
		return 0;
	return causes_val(c, i, f) - causes_val(c, i - 1, f);
}

/* As delta, for the frame thread's own fields: 0 when the frame thread
 * changed between the two samples (the counters are another thread's). */
static int64_t ft_delta(const struct causes *c, size_t i, int f)
{
	if (i == 0 || f < 0)
		return 0;
	if (c->ft_tid >= 0 && causes_val(c, i, c->ft_tid) != causes_val(c, i - 1, c->ft_tid))
		return 0;
	return delta(c, i, f);
}

static unsigned disk_roles(const struct rec *r, const char *dev, size_t len)
{
	char key[128];
	const char *roles;
	unsigned ret = 0;

	if (len > sizeof(key) - 8)
		return ROLE_ROOT;
	snprintf(key, sizeof(key), "%s%.*s", FIELD_DISK_PREFIX, (int)len, dev);
	roles = rec_meta_get(r, key);
	if (!roles) {
		/* an older or hand-made record: zram by name, the rest as disks */
		return len >= 4 && !memcmp(dev, "zram", 4) ? ROLE_ZRAM | ROLE_SWAP : ROLE_ROOT;
	}
	if (strstr(roles, "root"))
		ret |= ROLE_ROOT;
	if (strstr(roles, "swap"))
		ret |= ROLE_SWAP;
	if (strstr(roles, "zram"))
		ret |= ROLE_ZRAM;
	return ret;
}

static struct disk *disk_get(struct causes *c, const char *dev, size_t len)
{
	struct disk *d;
	size_t i;

	for (i = 0; i < c->ndisks; i++)
		if (c->disks[i].dev_len == len && !memcmp(c->disks[i].dev, dev, len))
			return &c->disks[i];
	d = &c->disks[c->ndisks++];
	d->dev = dev;
	d->dev_len = len;
	d->roles = disk_roles(c->r, dev, len);
	d->rd_ios = d->rd_sectors = d->in_flight = -1;
	return d;
}

static int find_disks(struct causes *c)
{
	const struct rec *r = c->r;
	size_t f, pre = strlen(FIELD_DISK_PREFIX);

	c->disks = calloc(r->nfields ? r->nfields : 1, sizeof(*c->disks));
	if (!c->disks)
		return -ENOMEM;
	for (f = 0; f < r->nfields; f++) {
		const char *name = r->fields[f].name, *dot;
		struct disk *d;

		if (!causes_has_prefix(name, FIELD_DISK_PREFIX) || r->fields[f].kind != REC_INT)
			continue;
		dot = strrchr(name, '.');
		if (dot <= name + pre)
			continue;
		d = disk_get(c, name + pre, (size_t)(dot - name - pre));
		if (!strcmp(dot + 1, field_disk_suffix[DF_RD_IOS]))
			d->rd_ios = (int)f;
		else if (!strcmp(dot + 1, field_disk_suffix[DF_RD_SECTORS]))
			d->rd_sectors = (int)f;
		else if (!strcmp(dot + 1, field_disk_suffix[DF_IN_FLIGHT]))
			d->in_flight = (int)f;
	}
	return 0;
}

/* ------------------------------------------------------- the rules */

/* A wchan of a fence wait or of a GPU driver. */
static bool wchan_is_gpu(const char *w)
{
	static const char *const pre[] = {
		"dma_fence_",	"dma_resv_",	"drm_",	  "i915_",  "intel_",	"xe_",
		"amdgpu_",	"radeon_",	"nouveau_", "nvkm_",  "nvif_",	"nvidia",
		"nv_",		"_nv",		"os_acquire", "panfrost_", "panthor_", "lima_",
		"msm_",		"v3d_",		"vc4_",	  "etnaviv_", "virtio_gpu_", "vmw_",
		"sync_file_",	"ttm_",
	};
	size_t i;

	if (!w || !*w)
		return false;
	for (i = 0; i < sizeof(pre) / sizeof(pre[0]); i++)
		if (causes_has_prefix(w, pre[i]))
			return true;
	return false;
}

static bool fd_is_gpu(const char *t)
{
	return t && (causes_has_prefix(t, "/dev/dri/") || causes_has_prefix(t, "/dev/nvidia"));
}

static bool fd_is_socket(const char *t)
{
	return t && causes_has_prefix(t, "socket:");
}

static bool fd_is_pipe(const char *t)
{
	return t && causes_has_prefix(t, "pipe:");
}

/* What moved on the disks over sample I's interval. */
struct io_seen {
	bool zram, swapdev, disk;
};

static struct io_seen io_seen(const struct causes *c, size_t i)
{
	struct io_seen s = { 0 };
	size_t k;

	for (k = 0; k < c->ndisks; k++) {
		const struct disk *d = &c->disks[k];
		bool rd = delta(c, i, d->rd_ios) > 0;

		if (d->roles & ROLE_ZRAM)
			s.zram |= rd;
		else if (d->roles & ROLE_SWAP)
			s.swapdev |= rd;
		if (!(d->roles & (ROLE_ZRAM | ROLE_SWAP)) || (d->roles & ROLE_ROOT))
			s.disk |= rd || (d->in_flight >= 0 && causes_val(c, i, d->in_flight) > 0);
	}
	return s;
}

static bool is_running_or_d(const struct causes *c, size_t i)
{
	int64_t st = c->ft_state >= 0 ? causes_val(c, i, c->ft_state) : 0;

	return st == 'R' || st == 'D';
}

/* The samples [*lo, *hi] around I (up to CAUSES_PSI_SPAN either side) in
 * which the thread ran or was in D; *lo >= 1. */
static void rd_window(const struct causes *c, size_t i, size_t *lo, size_t *hi)
{
	size_t a = i, b = i;

	while (a > 1 && i - a < CAUSES_PSI_SPAN && is_running_or_d(c, a - 1))
		a--;
	while (b + 1 < c->r->nsamples && b - i < CAUSES_PSI_SPAN && is_running_or_d(c, b + 1))
		b++;
	*lo = a;
	*hi = b;
}

/* The change of field F over the samples [LO, HI] (from sample LO - 1). */
static int64_t win_delta(const struct causes *c, size_t lo, size_t hi, int f)
{
	return f < 0 ? 0 : causes_val(c, hi, f) - causes_val(c, lo - 1, f);
}

/* Whether kernel function WCHAN is reclaim's or compaction's own (a
 * thread throttled or waiting in it: reclaim_throttle, shrink_*, ...). */
static bool wchan_reclaim(const char *wchan)
{
	return wchan && (strstr(wchan, "reclaim") || strstr(wchan, "shrink") ||
			 strstr(wchan, "compact"));
}

/* Whether the thread may have reclaimed in samples [LO, HI]: a user
 * thread reclaims while it allocates, and what it allocates, seen by the
 * samples, is pages it faults in (the syscall of a running one is not
 * read; one in D in a read waits for the read). False only where its own
 * fault counts say it faulted none. */
static bool faulted(const struct causes *c, size_t lo, size_t hi)
{
	if (c->ft_minflt < 0 || c->ft_majflt < 0 ||
	    (c->ft_tid >= 0 && causes_val(c, lo - 1, c->ft_tid) != causes_val(c, hi, c->ft_tid)))
		return true;	/* not known */
	return win_delta(c, lo, hi, c->ft_minflt) != 0 || win_delta(c, lo, hi, c->ft_majflt) != 0;
}

/* The reclaim sub-cause of running or D sample I (i > 0), or SUB_N when
 * none: reclaim and compaction seen around it (rd_window), since they move
 * in bursts (a huge page's fault reclaims 512 pages at once, then none).
 * The counters are every process's: in a snapshot record a sample whose
 * thread faulted nothing around it was not in reclaim, unless it waits in
 * reclaim's own code (an exact record's fault counts are its
 * switch-outs', and its reclaim hooks have the answer: causes_exact.c). */
static enum cause_sub reclaim_seen(const struct causes *c, size_t i)
{
	int f = c->cg_mem_some >= 0 ? c->cg_mem_some : c->psi_mem_some;
	size_t lo, hi;
	uint64_t dt;

	rd_window(c, i, &lo, &hi);
	if (!c->exact && !faulted(c, lo, hi) &&
	    !wchan_reclaim(causes_str_field(c, i, c->ft_wchan)))
		return SUB_N;
	if (win_delta(c, lo, hi, c->vm[VM_PGSCAN_DIRECT]) > 0 ||
	    win_delta(c, lo, hi, c->vm[VM_PGSTEAL_DIRECT]) > 0 ||
	    win_delta(c, lo, hi, c->vm[VM_ALLOCSTALL_NORMAL]) > 0 ||
	    win_delta(c, lo, hi, c->vm[VM_ALLOCSTALL_MOVABLE]) > 0 ||
	    win_delta(c, lo, hi, c->vm[VM_ALLOCSTALL_DMA32]) > 0)
		return SUB_RECLAIM_DIRECT;
	/* swap-outs while kswapd scans nothing are direct reclaim's: reclaim in
	 * a memory cgroup moves no global direct counter, but this one */
	if (c->vm[VM_PGSCAN_KSWAPD] >= 0 && win_delta(c, lo, hi, c->vm[VM_PSWPOUT]) > 0 &&
	    win_delta(c, lo, hi, c->vm[VM_PGSCAN_KSWAPD]) == 0)
		return SUB_RECLAIM_DIRECT;
	if (win_delta(c, lo, hi, c->vm[VM_COMPACT_STALL]) > 0)
		return SUB_RECLAIM_COMPACT;
	dt = c->r->t_ns[hi] - c->r->t_ns[lo - 1];
	if (f >= 0 && dt > 0 &&
	    (double)win_delta(c, lo, hi, f) * 1000.0 / (double)dt >= CAUSES_PSI_SHARE)
		return SUB_RECLAIM_PSI;
	return SUB_N;
}

static bool is_running(const struct causes *c, size_t i)
{
	return c->ft_state >= 0 && causes_val(c, i, c->ft_state) == 'R';
}

static bool same_thread(const struct causes *c, size_t i, size_t j)
{
	return c->ft_tid < 0 || causes_val(c, i, c->ft_tid) == causes_val(c, j, c->ft_tid);
}

/*
 * Whether running sample I waited in the run queue longer than it ran. The
 * kernel adds to schedstat's wait only when a wait ends and to its run time
 * at ticks and switches, so one 10 ms interval can show a whole 30 ms wait
 * or nothing: the samples around I (up to CAUSES_RUNQ_SPAN either side) in
 * which the same thread stayed runnable decide together. Three or more: it
 * ran less than half their time. Fewer: the wait accounted against the run
 * time, looking ahead until a wait is accounted.
 */
static bool runq_wins(const struct causes *c, size_t i)
{
	size_t lo = i, hi = i;
	int64_t wait, run;

	if (c->ft_run < 0 || c->ft_wait < 0)
		return false;
	while (lo > 0 && i - lo < CAUSES_RUNQ_SPAN && is_running(c, lo - 1) &&
	       same_thread(c, lo - 1, i))
		lo--;
	while (hi + 1 < c->r->nsamples && hi - i < CAUSES_RUNQ_SPAN && is_running(c, hi + 1) &&
	       same_thread(c, hi + 1, i))
		hi++;
	/* the interval before lo belongs to lo */
	if (lo == 0 || !same_thread(c, lo - 1, lo))
		return false;
	/* three running samples or more: runnable all along, so the time it did
	 * not run is time it waited, accounted yet or not (run time lags by a
	 * tick at most; the interval after may still add some) */
	if (hi - lo + 1 >= 3) {
		uint64_t elapsed = c->r->t_ns[hi] - c->r->t_ns[lo - 1];
		size_t h = hi + 1 < c->r->nsamples && same_thread(c, hi + 1, i) ? hi + 1 : hi;

		run = causes_val(c, h, c->ft_run) - causes_val(c, lo - 1, c->ft_run);
		/* ... unless it got a CPU twice a sample or more: then each wait
		 * was accounted as it ended, and time neither run nor waited
		 * was time it blocked between the samples (a storm of small
		 * reads, caught running three samples in a row) */
		if (c->ft_slices >= 0 &&
		    causes_val(c, h, c->ft_slices) - causes_val(c, lo - 1, c->ft_slices) >=
			    (int64_t)(2 * (h - lo + 1))) {
			wait = causes_val(c, h, c->ft_wait) - causes_val(c, lo - 1, c->ft_wait);
			return wait > run;
		}
		return run >= 0 && (double)run < (double)elapsed / 2;
	}
	/* a wait that ends the running samples is added when the thread gets
	 * the CPU, in the interval after the last of them: count it */
	if (hi + 1 < c->r->nsamples && hi - i < CAUSES_RUNQ_SPAN && same_thread(c, hi + 1, i))
		hi++;
	wait = causes_val(c, hi, c->ft_wait) - causes_val(c, lo - 1, c->ft_wait);
	run = causes_val(c, hi, c->ft_run) - causes_val(c, lo - 1, c->ft_run);
	/* no wait accounted yet (a long wait not over, or none): look further
	 * ahead, through the running samples and the one after them */
	while (wait == 0 && hi + 1 < c->r->nsamples && hi - i < CAUSES_RUNQ_AHEAD &&
	       same_thread(c, hi + 1, i) && is_running(c, hi)) {
		hi++;
		wait = causes_val(c, hi, c->ft_wait) - causes_val(c, lo - 1, c->ft_wait);
		run = causes_val(c, hi, c->ft_run) - causes_val(c, lo - 1, c->ft_run);
	}
	return wait > run;
}

/* The io sub-cause of a file system call's class; SUB_N for any other. */
static enum cause_sub file_io_sub(enum syscall_class cls)
{
	switch (cls) {
	case SYSC_READ:
		return SUB_IO_READ;
	case SYSC_WRITE:
		return SUB_IO_WRITE;
	case SYSC_META:
		return SUB_IO_META;
	case SYSC_SYNC:
		return SUB_IO_SYNC;
	default:
		return SUB_N;
	}
}

enum cause_sub causes_io_sub(const struct causes *c, size_t i)
{
	const struct syscall_info *sci;

	if (c->ft_state < 0 || c->ft_syscall < 0 || causes_val(c, i, c->ft_state) != 'D')
		return SUB_N;
	sci = syscall_lookup(c->abi, (long)causes_val(c, i, c->ft_syscall));
	return file_io_sub(sci ? sci->cls : SYSC_OTHER);
}

/*
 * Whether running sample I is the CPU side of blocking file system calls:
 * of the nearest samples before and after it in which the same thread was
 * not running (up to CAUSES_RUNQ_SPAN + 1 before, CAUSES_IO_AHEAD after),
 * one or both were in D in the same class of file syscall (the other may be
 * asleep: the storm's start or end), and between them the thread ran in
 * short pieces (run time
 * over time slices under CAUSES_IO_SLICE_NS): a storm of small reads, each
 * a few microseconds on the CPU in the kernel between waits. A running
 * thread's syscall cannot be read (/proc says "running"), so the samples
 * around it say where it was. Returns the io sub-cause, or SUB_N.
 */
static enum cause_sub io_on_cpu(const struct causes *c, size_t i)
{
	size_t a = i, b = i;
	enum cause_sub before, after;
	int64_t run, slices;

	if (c->ft_run < 0 || c->ft_slices < 0 || i == 0)
		return SUB_N;
	while (a > 0 && i - a <= CAUSES_RUNQ_SPAN && is_running(c, a) && same_thread(c, a - 1, i))
		a--;
	while (b + 1 < c->r->nsamples && b - i < CAUSES_IO_AHEAD && is_running(c, b) &&
	       same_thread(c, b + 1, i))
		b++;
	if (a == b || !same_thread(c, a, i) || !same_thread(c, b, i))
		return SUB_N;
	/* one side may be the sleep before or after the reads (a frame
	 * limiter's), a D whose syscall went unread, or still running where
	 * the look ends; never two classes */
	before = is_running(c, a) ? SUB_N : causes_io_sub(c, a);
	after = is_running(c, b) ? SUB_N : causes_io_sub(c, b);
	if (before == SUB_N)
		before = after;
	else if (after != SUB_N && after != before)
		return SUB_N;
	if (before == SUB_N)
		return SUB_N;
	run = causes_val(c, b, c->ft_run) - causes_val(c, a, c->ft_run);
	slices = causes_val(c, b, c->ft_slices) - causes_val(c, a, c->ft_slices);
	if (run <= 0 || slices <= 0 || run / slices >= CAUSES_IO_SLICE_NS)
		return SUB_N;
	return before;
}

static enum cause_sub classify(const struct causes *c, size_t i)
{
	char st = c->ft_state >= 0 ? (char)causes_val(c, i, c->ft_state) : 0;
	long sc = c->ft_syscall >= 0 ? (long)causes_val(c, i, c->ft_syscall) : -2;
	const char *wchan = causes_str_field(c, i, c->ft_wchan);
	const char *fdt = causes_str_field(c, i, c->ft_fd_target);
	const struct syscall_info *sci = syscall_lookup(c->abi, sc);
	enum syscall_class cls = sci ? sci->cls : SYSC_OTHER;
	int64_t majflt;
	struct io_seen io = io_seen(c, i);
	bool asleep = st == 'S' || st == 'D';
	bool in_fault = st == 'D' && sc == -1;
	bool gpu_fence = asleep && wchan_is_gpu(wchan);
	bool gpu_ioctl = asleep && cls == SYSC_IOCTL && fd_is_gpu(fdt);
	/* a swap-in: pswpin, or an anon page refaulting (found by its shadow
	 * entry: it was swapped out) */
	bool swapped = delta(c, i, c->vm[VM_PSWPIN]) > 0 ||
		       delta(c, i, c->vm[VM_REFAULT_ANON]) > 0;

	if (c->ft_majflt >= 0)
		majflt = ft_delta(c, i, c->ft_majflt);
	else
		majflt = delta(c, i, c->proc_majflt);

	/* 1. a major fault, or D in a fault with a read seen */
	if (majflt > 0 || (in_fault && (swapped || io.zram || io.swapdev || io.disk))) {
		if (io.zram)
			return SUB_SWAP_ZRAM;
		if (io.swapdev)
			return SUB_SWAP_DEV;
		if (swapped)
			return SUB_SWAP;
		if (io.disk)
			return SUB_DISK;
		return SUB_FAULT;
	}
	/* 2. reclaim: running or in D, not in a GPU wait, nor in D in a file
	 * syscall (it waits for its I/O) outside reclaim's own code */
	if ((st == 'R' || st == 'D') && !gpu_fence && !gpu_ioctl && i > 0 &&
	    !(st == 'D' && file_io_sub(cls) != SUB_N && !wchan_reclaim(wchan))) {
		enum cause_sub rs = reclaim_seen(c, i);

		if (rs != SUB_N)
			return rs;
	}
	if (in_fault)
		return SUB_FAULT;
	/* 3. GPU */
	if (gpu_ioctl)
		return SUB_GPU_IOCTL;
	if (gpu_fence)
		return SUB_GPU_FENCE;
	/* 4. D in a file syscall */
	if (st == 'D') {
		enum cause_sub fio = file_io_sub(cls);

		if (fio != SUB_N)
			return fio;
	}
	/* 5. running: the run queue, the CPU side of file syscalls, the CPU */
	if (st == 'R') {
		enum cause_sub io_sub;

		if (runq_wins(c, i))
			return SUB_RUNQ;
		io_sub = io_on_cpu(c, i);
		return io_sub != SUB_N ? io_sub : SUB_CPU;
	}
	/* 6. asleep */
	if (asleep) {
		switch (cls) {
		case SYSC_FUTEX:
			return SUB_WAIT_FUTEX;
		case SYSC_POLL:
			return SUB_WAIT_POLL;
		case SYSC_RECV:
			return SUB_WAIT_SOCKET;
		case SYSC_SLEEP:
			return SUB_WAIT_SLEEP;
		case SYSC_READ:
			if (fd_is_socket(fdt))
				return SUB_WAIT_SOCKET;
			if (fd_is_pipe(fdt))
				return SUB_WAIT_PIPE;
			break;
		default:
			break;
		}
		return SUB_WAIT_OTHER;
	}
	/* 7. anything else */
	return SUB_UNKNOWN;
}

/* The field indices and disks of R's fields; sub left for the caller. */
static int causes_init(const struct rec *r, struct causes **ret)
{
	struct causes *c = calloc(1, sizeof(*c));
	const char *arch;
	size_t i;

	if (!c)
		return -ENOMEM;
	c->r = r;
	c->mask = SIZE_MAX;
	arch = rec_meta_get(r, "syscall_abi");
	if (!arch)
		arch = rec_meta_get(r, "arch");
	c->abi = syscall_abi_of(arch);
	c->ft_tid = rec_field_index(r, field_ft[TF_TID]);
	c->ft_state = rec_field_index(r, field_ft[TF_STATE]);
	c->ft_wchan = rec_field_index(r, field_ft[TF_WCHAN]);
	c->ft_syscall = rec_field_index(r, field_ft[TF_SYSCALL]);
	c->ft_fd_target = rec_field_index(r, field_ft[TF_FD_TARGET]);
	c->ft_majflt = rec_field_index(r, field_ft[TF_MAJFLT]);
	c->ft_minflt = rec_field_index(r, field_ft[TF_MINFLT]);
	c->ft_run = rec_field_index(r, field_ft[TF_RUN]);
	c->ft_wait = rec_field_index(r, field_ft[TF_WAIT]);
	c->ft_slices = rec_field_index(r, field_ft[TF_SLICES]);
	c->proc_majflt = rec_field_index(r, field_proc[PF_MAJFLT]);
	c->proc_minflt = rec_field_index(r, field_proc[PF_MINFLT]);
	c->cg_mem_some = rec_field_index(r, field_psi_some[PSI_CGROUP][PSI_MEMORY]);
	c->psi_mem_some = rec_field_index(r, field_psi_some[PSI_SYSTEM][PSI_MEMORY]);
	for (i = 0; i < VM_N; i++)
		c->vm[i] = rec_field_index(r, field_vm[i]);
	/* string fields must be strings, numbers numbers */
	if (c->ft_wchan >= 0 && r->fields[c->ft_wchan].kind != REC_STR)
		c->ft_wchan = -1;
	if (c->ft_fd_target >= 0 && r->fields[c->ft_fd_target].kind != REC_STR)
		c->ft_fd_target = -1;
	if (find_disks(c) < 0 || causes_exact_init(c) < 0) {
		causes_free(c);
		return -ENOMEM;
	}
	*ret = c;
	return 0;
}

int causes_new(const struct rec *r, struct causes **ret)
{
	struct causes *c;
	int err = causes_init(r, &c);

	if (err < 0)
		return err;
	if (!(c->sub = malloc(r->nsamples ? r->nsamples : 1))) {
		causes_free(c);
		return -ENOMEM;
	}
	for (size_t i = 0; i < r->nsamples; i++) {
		c->sub[i] = (uint8_t)classify(c, i);
		if (c->exact && causes_exact_take(c, i) < 0) {
			causes_free(c);
			return -ENOMEM;
		}
	}
	c->done = c->cap = r->nsamples;
	*ret = c;
	return 0;
}

int causes_stream_new(const struct rec *r, size_t ring_rows, struct causes **ret)
{
	struct causes *c;
	int err;

	if (ring_rows < CAUSES_STREAM_MIN_RING || ring_rows & (ring_rows - 1))
		return -EINVAL;
	err = causes_init(r, &c);
	if (err < 0)
		return err;
	c->mask = ring_rows - 1;
	*ret = c;
	return 0;
}

int causes_stream_feed(struct causes *c, bool last)
{
	size_t n = c->r->nsamples;
	size_t upto = last ? n : n > CAUSES_STREAM_AHEAD ? n - CAUSES_STREAM_AHEAD : 0;

	if (ARRAY_GROW(c->sub, c->cap, upto) < 0)
		return -ENOMEM;
	/* sample i looks at i - CAUSES_STREAM_BACK .. i + CAUSES_STREAM_AHEAD - 1:
	 * the ring must still hold the first of them */
	if (c->done < upto && n - c->done + CAUSES_STREAM_BACK > c->mask + 1)
		return -ERANGE;
	for (; c->done < upto; c->done++) {
		c->sub[c->done] = (uint8_t)classify(c, c->done);
		if (c->exact && causes_exact_take(c, c->done) < 0)
			return -ENOMEM;
	}
	return 0;
}

void causes_free(struct causes *c)
{
	if (!c)
		return;
	free(c->disks);
	free(c->sub);
	causes_exact_free(c);
	free(c);
}

enum cause_sub causes_sample(const struct causes *c, size_t i)
{
	return i < c->done ? (enum cause_sub)c->sub[i] : SUB_NO_SAMPLE;
}
