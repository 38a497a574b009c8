/* SPDX-License-Identifier: MIT */
/*
 * causes.h: what the frame thread was waiting on, per sample and per stall.
 *
 * Every sample of a record gets one cause (and a finer sub-cause) from the
 * frame thread's state at the sample and the counters' deltas since the
 * previous sample, by the ordered rules of docs/CAUSES.md. A span of time (a stall, the load) is then split over the
 * samples that cover it: the piece up to each sample inside the span takes
 * that sample's cause, the piece after the last sample inside it takes the
 * last one's cause (the sample after the span sees the thread after its
 * present), so the pieces add up to the span exactly. docs/CAUSES.md defines
 * the split and says what the rules cannot see.
 *
 * Assumes the field names of docs/FORMAT.md (ft.state, ft.syscall, vm.*,
 * disk.<dev>.*, psi.*, cg.*) and the meta keys "syscall_abi" (or "arch":
 * x86_64 or aarch64; x86_64 when absent) and "disk.<dev>" (roles: root,
 * swap, zram). Any field may be
 * missing: a rule that needs it then does not fire.
 *
 * Times: a span is given in ns on the record's clock (CLOCK_MONOTONIC, as
 * sample and frame stamps are).
 */
#ifndef SS_CORE_CAUSES_H
#define SS_CORE_CAUSES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/frames.h"
#include "core/metrics.h"
#include "core/record.h"

/* The causes, in the words of docs/CAUSES.md. */
enum cause {
	CAUSE_UNKNOWN,
	CAUSE_DISK,
	CAUSE_SWAP,
	CAUSE_FAULT,
	CAUSE_RECLAIM,
	CAUSE_GPU,
	CAUSE_IO,
	CAUSE_CPU,
	CAUSE_RUNQ,
	CAUSE_WAIT,
	CAUSE_N
};

/* Sub-causes: each belongs to one cause (cause_of_sub). */
enum cause_sub {
	SUB_UNKNOWN,		/* a state no rule knows */
	SUB_NO_SAMPLE,		/* no sample covers the time */
	SUB_DISK,		/* major fault read from a disk */
	SUB_SWAP_ZRAM,		/* major fault read from zram */
	SUB_SWAP_DEV,		/* major fault read from a swap device */
	SUB_SWAP,		/* pswpin moved, device not seen */
	SUB_FAULT,		/* major fault or D in a fault, no read seen */
	SUB_RECLAIM_DIRECT,	/* pgscan_direct / allocstall moved */
	SUB_RECLAIM_COMPACT,	/* compact_stall moved */
	SUB_RECLAIM_PSI,	/* memory pressure of the cgroup (or the system) */
	SUB_GPU_FENCE,		/* a fence or GPU-driver wchan */
	SUB_GPU_IOCTL,		/* an ioctl on /dev/dri/... or /dev/nvidia... */
	/* a wait that a renderer's thread ended (exact mode: the waker's name,
	 * causes_driver_sub) */
	SUB_GPU_LLVMPIPE,	/* llvmpipe-N: Mesa's llvmpipe (and lavapipe) rasterizer */
	SUB_GPU_GLTHREAD,	/* PROGRAM:glN: Mesa's glthread */
	SUB_GPU_DXVK,		/* dxvk-submit, dxvk-queue, dxvk-cs */
	SUB_GPU_VKD3D,		/* vkd3d_fence, vkd3d_queue */
	SUB_GPU_WINED3D,	/* wined3d_cs: wined3d's command stream */
	SUB_IO_READ,		/* D in read, pread64, readv, ... */
	SUB_IO_WRITE,		/* D in write, pwrite64, ... */
	SUB_IO_META,		/* D in openat, statx, getdents64, close, ... */
	SUB_IO_SYNC,		/* D in fsync, fdatasync, sync_file_range, ... */
	SUB_CPU,		/* running */
	SUB_RUNQ,		/* runnable, waiting for a CPU */
	SUB_WAIT_FUTEX,		/* another thread */
	SUB_WAIT_POLL,		/* poll, epoll, select: the display server or a socket */
	SUB_WAIT_SOCKET,	/* recvmsg, recvfrom, read of a socket */
	SUB_WAIT_PIPE,		/* read of a pipe */
	SUB_WAIT_SLEEP,		/* nanosleep, clock_nanosleep: a frame limiter */
	SUB_WAIT_OTHER,		/* asleep in anything else */
	/* from the frame hook's API spans (docs/CAUSES.md, "API calls"), never
	 * from a sample: set on a stall's verdict only */
	SUB_CPU_SHADER_COMPILE,	/* running inside a shader or pipeline compile call */
	SUB_GPU_FENCE_WAIT,	/* inside glFinish, glClientWaitSync, vkWaitForFences, ... */
	SUB_N
};

/* The report's columns: stall_<name>_s. */
enum cause_col {
	CAUSE_COL_DISK,
	CAUSE_COL_SWAP,
	CAUSE_COL_RECLAIM,
	CAUSE_COL_GPU,
	CAUSE_COL_CPU,	/* cpu and runq */
	CAUSE_COL_IO,
	CAUSE_COL_WAIT,
	CAUSE_COL_OTHER,	/* fault and unknown */
	CAUSE_COL_N
};

/* Names ("disk", "swap_zram", "cpu" for CAUSE_COL_CPU); never NULL. */
const char *cause_name(enum cause c);
const char *cause_sub_name(enum cause_sub s);
const char *cause_col_name(enum cause_col c);
enum cause cause_of_sub(enum cause_sub s);
enum cause_col cause_col_of(enum cause c);
/*
 * The renderer whose thread COMM (a thread's name, as the kernel keeps it:
 * 15 bytes at most) is: SUB_GPU_LLVMPIPE for "llvmpipe-3", ... (the list
 * and its sources: docs/CAUSES.md, "Waiting for the renderer"); SUB_N when
 * COMM (NULL allowed) is no renderer's thread we know.
 */
enum cause_sub causes_driver_sub(const char *comm);
/* The cause or sub-cause called NAME; -1 when none is. */
int cause_from_name(const char *name);
int cause_sub_from_name(const char *name);

/*
 * Syscall names and classes for the architectures we know (x86_64, aarch64).
 * Returns the name of syscall NR on ARCH ("x86_64", "aarch64"; NULL means
 * x86_64), or NULL when it is not one the rules name.
 */
const char *cause_syscall_name(const char *arch, long nr);

/* ------------------------------------------------------- per sample */

/* Memory pressure (the cgroup's "some", else the system's) over at least
 * this share of the time around a running or D sample (CAUSES_PSI_SPAN
 * samples either side) makes it reclaim. Low, because the system's "some"
 * is averaged over the busy CPUs: one thread stalled all the time on a
 * machine with two busy CPUs reads as 50 %. */
#define CAUSES_PSI_SHARE 0.10
#define CAUSES_PSI_SPAN 2

/* Running samples compare run-queue wait and run time over this many
 * running samples either side (schedstat moves in lumps: causes.c). */
#define CAUSES_RUNQ_SPAN 5
/* ... and, while no wait was accounted, up to this many samples ahead. */
#define CAUSES_RUNQ_AHEAD 100

/* Running time between blocking file system calls is the calls' own (the
 * kernel's side of each read: setting up and completing it) when the thread
 * ran in pieces shorter than this on average (schedstat's run time over its
 * time slices, or exact mode's over its switches): docs/CAUSES.md, rule 5. */
#define CAUSES_IO_SLICE_NS 1000000
/* ... looking for the syscall up to this many samples after a running one
 * (and CAUSES_RUNQ_SPAN + 1 before it). */
#define CAUSES_IO_AHEAD 20

struct causes;

/*
 * Classifies every sample of R. R is borrowed and must outlive the result.
 * Returns 0 and *ret (freed with causes_free), or -ENOMEM.
 */
int causes_new(const struct rec *r, struct causes **ret);
void causes_free(struct causes *c);	/* NULL-safe */

/*
 * Streaming, beside rec_parse_stream (rec/rec.h): R's vals is a ring of
 * RING_ROWS rows (a power of two, >= CAUSES_STREAM_MIN_RING) that the
 * reader fills. causes_stream_new once R's fields are known;
 * causes_stream_feed as samples come (it classifies every sample that has
 * CAUSES_STREAM_AHEAD samples after it, which is as far as any rule looks),
 * and once with LAST when all are read. The causes are those causes_new
 * gives; causes_evidence needs the whole matrix (causes_new). 0, -ENOMEM,
 * or -ERANGE when the ring was overrun (fed too seldom).
 */
#define CAUSES_STREAM_BACK (CAUSES_RUNQ_SPAN + 2)
#define CAUSES_STREAM_AHEAD (CAUSES_RUNQ_AHEAD + 2)
#define CAUSES_STREAM_MIN_RING 256
int causes_stream_new(const struct rec *r, size_t ring_rows, struct causes **ret);
int causes_stream_feed(struct causes *c, bool last);

/* The sub-cause of sample I (< r->nsamples). */
enum cause_sub causes_sample(const struct causes *c, size_t i);

/* ------------------------------------------------------- spans */

/* Seconds per sub-cause, summed over spans. */
struct cause_split {
	double sub_s[SUB_N];
};

/*
 * Adds the span [A_NS, B_NS] (record clock) split over the samples covering
 * it to *ACC (see the top of this file). The pieces add up to B - A exactly;
 * with no samples at all the span is SUB_NO_SAMPLE.
 */
void causes_split(const struct causes *c, uint64_t a_ns, uint64_t b_ns, struct cause_split *acc);

/* Whether C splits spans by exact time (the record has exact counters:
 * docs/CAUSES.md, "Exact time"). */
bool causes_is_exact(const struct causes *c);
/* Whether record R has exact counters (what causes_is_exact will say). */
bool causes_rec_exact(const struct rec *r);

/*
 * Exact mode: the frame thread's intervals that overlap [A_NS, B_NS], the
 * longest overlap first: up to MAX of them into OUT. Returns how many
 * overlap in all (0 for a record without exact data).
 */
size_t causes_exact_intervals(const struct causes *c, uint64_t a_ns, uint64_t b_ns,
			      const struct rec_interval **out, size_t max);

double cause_split_total(const struct cause_split *s);
double cause_split_cause(const struct cause_split *s, enum cause c);
double cause_split_col(const struct cause_split *s, enum cause_col col);

/* A span's verdict: its cause is the largest share; the second cause is
 * given when its share is over 20 %. */
struct cause_verdict {
	enum cause cause;
	double share;		/* of the span's seconds, 0..1 */
	enum cause_sub sub;	/* the largest sub-cause of CAUSE */
	double sub_share;	/* of the span's seconds */
	int second;		/* enum cause, or -1 when none is over 20 % */
	double second_share;	/* NaN when second is -1 */
};

/* The verdict of S; a split with no seconds is unknown with share NaN. */
void cause_split_verdict(const struct cause_split *s, struct cause_verdict *ret);

/* The column with the most seconds in S, or -1 when S holds none. */
int cause_split_why(const struct cause_split *s);

/* ------------------------------------------------------- evidence */

#define CAUSE_EV_MAX 12

/* What the record saw over a span, for people to check a verdict. Strings
 * are borrowed from the record. Counts are deltas from the last sample at or
 * before the span's start to the first sample at or after its end; -1 when
 * the field was not recorded. The frame thread's own counters (faults, run,
 * runq) add up only the periods between two samples of one thread. */
struct cause_evidence {
	size_t nsamples;	/* samples inside the span */
	char state;		/* the frame thread's commonest state inside, 0 if none */
	const char *wchan;	/* its commonest wchan inside, or NULL */
	long syscall;		/* the commonest syscall inside; -1 none, -2 unknown */
	const char *syscall_name;	/* NULL when not known */
	const char *fd_target;	/* of that syscall's fd, or NULL */
	int64_t majflt;		/* the frame thread's (the process's if not recorded) */
	int64_t minflt;
	double run_ms;		/* schedstat run time, NaN when not recorded or when
				 * no period was one thread's */
	double runq_ms;		/* schedstat run-queue wait, the same */
	size_t ft_periods;	/* periods (sample to sample) the thread's deltas span */
	size_t ft_gaps;		/* of them, left out of majflt, minflt, run_ms and
				 * runq_ms: the frame thread changed, or one of its
				 * counters went back (never a negative delta) */
	int64_t missed_in;	/* exact mode's switch-ins of the frame thread it did not
				 * see (ftx.missed_in), from the span's start to two
				 * periods past its end (the switch-out that counts one
				 * comes after the running it hid); -1: not recorded */
	double cg_mem_ms;	/* cgroup memory pressure (some), NaN if not recorded */
	double psi_mem_ms;	/* system memory pressure (some), NaN if not recorded */
	size_t ndisks;
	struct {
		const char *dev;	/* a device name, borrowed from the field name */
		size_t dev_len;
		int64_t rd_ios;
		int64_t rd_kb;
	} disks[CAUSE_EV_MAX];	/* those whose reads moved */
	size_t nvm;
	struct {
		const char *name;	/* "pgmajfault" (borrowed, after "vm.") */
		int64_t delta;
	} vm[CAUSE_EV_MAX];	/* the vmstat counters that moved */
	const char *stack;	/* the first kernel stack recorded inside, or NULL */
	size_t nlate;
	struct {
		int cpu;
		double late_ms;
	} late[CAUSE_EV_MAX];	/* the probe's late wake-ups (record --probe) whose
				 * overdue sleep overlaps the span, latest first kept */
};

/* Collects the evidence for the span [A_NS, B_NS] into *RET (always
 * written). */
void causes_evidence(const struct causes *c, uint64_t a_ns, uint64_t b_ns,
		     struct cause_evidence *ret);

/* ------------------------------------------------------- report's columns */

/* report's cause columns of one run (docs/METRICS.md, "Stall causes"). */
struct cause_cols {
	double stall_s[CAUSE_COL_N];	/* window stalls' seconds by column */
	int why;		/* enum cause_col with the most, -1: no stall */
	double play_s[CAUSE_COL_N];	/* the same over play; NaN when play is unknown */
	int why_play;
	double load_disk_s;	/* seconds of the load waiting on disk (disk + io) */
	double warm_disk_s;	/* seconds of the warm-up waiting on disk (disk + io) */
};

/*
 * Fills *RET for frames F, whose clock (t_s) counts from T0_NS on the
 * record's clock, with the stalls chosen as metrics_compute chose them:
 * M is its result for F under O with reload segments SEGS (NSEGS);
 * PLAY_KNOWN false leaves the play columns NaN. The load is the time from the
 * first sample to the start of the first frame, plus the reload segments;
 * the warm-up is the first frame's start to O->warmup_s later (or the last
 * frame's end, if sooner). Always fills *ret: 0, or -ENOMEM (every column
 * NaN, why -1).
 */
int causes_columns(const struct causes *c, const struct frames *f, uint64_t t0_ns,
		   const struct metrics *m, const struct metrics_opts *o,
		   const struct metrics_seg *segs, size_t nsegs, bool play_known,
		   struct cause_cols *ret);

/*
 * causes_columns in pieces, for a record read by windows (run/analyse.c:
 * only the samples and intervals around the spans in memory). The spans
 * it splits, in the order it adds them: the window's stalls (each to the
 * window's sum, and to play's when in play), then, when the record has a
 * sample (ANY_SAMPLE; FIRST_NS the first one's stamp) and F a frame, the
 * load's (the first sample to the first frame's start, then each reload
 * segment) and the warm-up's. *RET (free) and *RET_N; 0 or -ENOMEM.
 * causes_columns_add adds span S split by C to *ACC (C need only hold the
 * samples and intervals around S: a window's group of rec_stream);
 * causes_columns_end turns the sums into *RET as causes_columns does. The
 * same spans added in the same order to each sum give the same bits.
 */
#define CAUSES_SPAN_WIN 1
#define CAUSES_SPAN_PLAY 2
#define CAUSES_SPAN_LOAD 4
#define CAUSES_SPAN_WARM 8
struct causes_span {
	uint64_t a_ns, b_ns;
	unsigned to;		/* CAUSES_SPAN_*: the sums it is added to */
};
struct causes_cols_acc {
	struct cause_split win, play, load, warm;
};
int causes_column_spans(const struct frames *f, uint64_t t0_ns, const struct metrics *m,
			const struct metrics_opts *o, const struct metrics_seg *segs, size_t nsegs,
			bool any_sample, uint64_t first_ns, struct causes_span **ret, size_t *ret_n);
void causes_columns_add(const struct causes *c, const struct causes_span *s,
			struct causes_cols_acc *acc);
void causes_columns_end(const struct causes_cols_acc *acc, bool play_known, bool any_sample,
			bool any_frame, struct cause_cols *ret);

/*
 * Whether frame I of F is a stall of the warm-up, of the window or of play,
 * exactly as metrics_compute counts them (M its result). Bits: 1 warm-up,
 * 2 window, 4 play (play needs SEGS).
 */
#define CAUSES_IN_WARM 1
#define CAUSES_IN_WINDOW 2
#define CAUSES_IN_PLAY 4
unsigned causes_stall_parts(const struct frames *f, size_t i, const struct metrics *m,
			    const struct metrics_opts *o, const struct metrics_seg *segs,
			    size_t nsegs);

#endif
