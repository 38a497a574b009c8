/* SPDX-License-Identifier: MIT */
/*
 * sampler_int.h: what the sampler's files share (sampler.c: setup, the
 * sample's order and the API; sampler_src.c: the kept-open files and their
 * cost counters; sampler_thread.c: the sampled threads and the slow
 * per-thread snapshot; sampler_switch.c: a sleeping thread's switch-ins; sampler_gpu.c: DRM fdinfo; sampler_sys.c: disks,
 * PSI, vmstat, /proc/stat, meminfo and the other processes). Not for use
 * outside src/linux/sampler*.c.
 */
#ifndef SS_LINUX_SAMPLER_INT_H
#define SS_LINUX_SAMPLER_INT_H

#include <dirent.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "core/exact_abi.h"
#include "core/fields.h"
#include "core/strbuf.h"
#include "linux/procparse.h"
#include "linux/sampler.h"

#define PATH_SIZE 4096
#define BUF_SIZE (1 << 15) /* /proc/vmstat is ~4 KiB on 6.18 */
#define MAX_DISKS 32
#define MAX_EVENTS 16
#define MAX_STACKS 1000
#define FD_CACHE 1024
#define MAX_GPU_ENGINES 24

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
	C_EXACT,
	C_NCOST
};

extern const char *const sampler_cost_names[C_NCOST];

/* One kept-open file. */
struct src {
	int fd;	      /* -1: not open */
	int open_err; /* fd -1: why the open failed (negative errno), or 0 */
	char *path;   /* for naive mode and notes */
	bool noted;   /* a read error was already noted */
};

/* Exact mode: interned stacks by their addresses (sampler_exact.c). */
#define XSTACK_CACHE 64
struct xstack_ent {
	uint32_t id, n;		/* id 0: empty */
	uint64_t pc[EXACT_STACK];
};

/* The two sampled threads: the frame thread and its process's main thread
 * when that is another (the field indices within one: core/fields.h's
 * enum thread_field). */
enum { TH_FT, TH_FT2, TH_N };

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
	int xbase;		       /* exact mode: its first ftx.* field; -1: none */
	bool exact_ok;		       /* exact mode: the last slot read gave its values */
	uint64_t xsig;		       /* exact mode: sampler_io_signal at its last stat read */
	/* Quiet: the last full read found it blocked, and what says it ran
	 * (schedstat's run time and slices; in exact mode a slot the thread
	 * has not touched, by its tid and seq) is as it was then: the sample
	 * reads nothing more of it (sampler_thread_quiet, sampler_thread.c). */
	bool quiet_ok;
	uint64_t quiet_key;	       /* exact mode: the slot's tid, seq and wake-up */
	uint64_t quiet_key_now;	       /* exact mode: the key this sample read */
	bool quiet_key_set;	       /* exact mode: this sample read a key (any
					* value: an untouched slot's is 0) */
	bool quiet_now;		       /* this sample found it quiet */
	/* snapshot sampler: the schedstat an unchanged_sample read in this
	 * sample before it gave up (sampler_thread_quiet takes it, unread) */
	struct pp_schedstat pre_ss;
	bool pre_have;
	uint64_t full_at;	       /* the sample (nsample) of its last full read */
	/* Its switch-ins (sampler_switch.c; snapshot sampler, live only): a
	 * perf event's first page, whose sequence the kernel moves when it
	 * switches the thread in, kept while it sleeps. While the sequence is
	 * sw_seq (read before the schedstat read that found it quiet), it has
	 * not run: schedstat is not read. */
	int sw_fd;				 /* -1: none */
	const struct perf_event_mmap_page *sw_pg; /* NULL: none */
	uint32_t sw_pre;			 /* the sequence before this sample's read */
	uint32_t sw_seq;
	bool sw_set;				 /* sw_seq stands for a quiet read */
	bool sw_check;				 /* it ran with the sequence unmoved: */
	uint32_t sw_check_seq;			 /* unmoved still next sample, the page lies */
	uint64_t sw_check_at;			 /* the sample that found it */
	unsigned sw_idle, sw_busy;		 /* samples in a row it slept, ran */
	int64_t sw_run, sw_slices;		 /* its schedstat at the last tend */
	/* The kernel stack of its last read (the event's text; stack_have:
	 * that read gave one) and its sample: a quiet thread read whole no
	 * later than that has not run since, so its stack is the same and a
	 * stack due is this text again, not a read (blocked_stack). */
	struct strbuf stack_text;
	bool stack_have;
	uint64_t stack_at;
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
	int base; /* its first field; then core/fields.h's enum disk_field */
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
	struct thr th[TH_N];
	int f_proc[PF_N]; /* by enum proc_field */
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
	uint64_t proc_at;  /* the sample (nsample) of that read */
	bool gate_valid;

	struct disk disks[MAX_DISKS];
	size_t ndisks;

	struct psi_src psi[PSI_N], cg[PSI_N]; /* by enum psi_res */

	struct other others[OTHER_N]; /* by enum other_proc */

	/* slow */
	DIR *taskdir;
	struct tslot *ts;
	size_t nts, ats;
	struct rec_thread *snap;
	size_t nsnap, asnap;

	struct src sys_stat;
	int f_sys[SYS_N]; /* by enum sys_field */
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

	/* The last sample's VALS, filled whole (same_ok; sampler_set_thread
	 * and sampler_set_process clear it), and whether the last sample was
	 * an unchanged one that left them as they were (sampler_same). */
	int64_t *same_vals;
	bool same_ok, same_now;
	/* Files and clocks read (every kind, always counted), and whether the
	 * last sample read none, made no event, interval or snapshot
	 * (last_quiet: in the snapshot sampler, none but the quiet threads'
	 * schedstat); with o.profile, the skips that sample counted, which
	 * an unchanged sample counts again (its gates decide as that one's). */
	uint64_t nreads;
	bool last_quiet;
	/* snapshot sampler: the reads of those that were the schedstat of a
	 * thread found quiet, which last_quiet allows (unchanged_sample) */
	uint64_t quiet_reads;
	uint64_t skip_last[C_NCOST];
	/* snapshot sampler: threads' switch-ins watched (sampler_switch.c) */
	bool sw_off;		/* not: a failed open, or a page that lied */
	uint64_t sw_opens;	/* watches opened */
	uint64_t sw_still;	/* schedstat reads a watch saved */
	uint64_t sw_misses;	/* pages found unmoved by a switch-in (0 or 1) */
	char sw_why[128];	/* sw_off: why */

	/* exact mode (o.exact) */
	struct rec_interval *ivs;
	size_t nivs, aivs;
	struct sampler_exact_stats xstats;
	uint64_t xsig_sys;	/* sampler_exact_signal at the last read of the system */
	struct xstack_ent xstack_cache[XSTACK_CACHE];
	struct strbuf xstack;
};


/* sampler_src.c */
uint64_t sampler_mono_ns(void);
/* A note (RECORD: also an event of thread TID in this sample). */
void sampler_note(struct sampler *s, bool event, int tid, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Declares a field; its index, or -ENOMEM. */
int sampler_add_field(struct sampler *s, enum rec_kind kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int sampler_add_meta(struct sampler *s, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void sampler_src_init(struct src *f);
void sampler_src_close(struct src *f);
/* Opens PATH into F (kept open unless naive). Returns 0 or a negative errno;
 * F keeps the path either way. */
int sampler_src_open(struct sampler *s, struct src *f, const char *path);
int sampler_src_openf(struct sampler *s, struct src *f, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
bool sampler_src_ok(const struct src *f);
/* Reads F into s->buf (at most SIZE bytes, SIZE <= BUF_SIZE); returns the
 * length or a negative errno. Accounts its cost under KIND. */
ssize_t sampler_src_read(struct sampler *s, struct src *f, size_t size, enum cost kind);
/* Notes a read error of F once (not for ESRCH: callers handle a thread or
 * process that has gone). */
void sampler_src_failed(struct sampler *s, struct src *f, int err, int tid);
int64_t sampler_cpu_clock(struct sampler *s, clockid_t clk, enum cost kind);
/* The clock of process PID's CPU time (false: none, or not live). */
bool sampler_proc_clock(struct sampler *s, int pid, clockid_t *ret);

/* sampler_thread.c */
const char *sampler_syscall_abi(void);
int sampler_setup_thread_fields(struct sampler *s, struct thr *t, const char *prefix);
void sampler_thr_close(struct thr *t);
/* Points T at thread TID (0: none) and resets its per-thread state. */
int sampler_thr_open(struct sampler *s, struct thr *t, int tid);
void sampler_sample_thread(struct sampler *s, struct thr *t, uint64_t t_ns, bool slow);
/* Would a quiet T's sample at T_NS start its blocked episode or take its
 * kernel stack (an event, even when it is the last read's text again)? */
bool sampler_stack_due(const struct sampler *s, const struct thr *t, uint64_t t_ns);
bool sampler_schedstat_quiet(const struct sampler *s, const struct thr *t,
			     const struct pp_schedstat *ss, bool slow);
/* The slow snapshot of every thread of the process (s->snap). */
void sampler_sample_threads(struct sampler *s);

/* The interned target of thread T's fd FD (cached a second); 0: none. */
uint32_t sampler_fd_target(struct sampler *s, struct thr *t, int64_t fd, uint64_t t_ns);

/* sampler_switch.c */
struct perf_event_mmap_page;
void sampler_switch_init(struct thr *t);
/* Closes T's watch (none: nothing) and resets its state. */
void sampler_switch_close(struct thr *t);
/* Before each schedstat read of T: its sequence then. */
void sampler_switch_before(struct thr *t);
/* After one: it found T quiet (QUIET), or blocked at a full read. */
void sampler_switch_mark(struct thr *t, bool quiet);
/* After one that found T ran. */
void sampler_switch_ran(const struct sampler *s, struct thr *t);
/* Has quiet T surely not run since its last quiet read? */
bool sampler_switch_still(const struct sampler *s, const struct thr *t);
/* At the end of T's sample: opens or closes its watch, checks the page. */
void sampler_switch_tend(struct sampler *s, struct thr *t);

/* sampler_exact.c */
/* The quiet key of an unseen slot X: its tid, seq and last wake-up (a
 * switch of its thread moves one of them). */
static inline uint64_t sampler_quiet_key(const struct exact_slot *x)
{
	return ((uint64_t)x->tid << 32 | x->seq) ^ x->wake_ns * 0x9e3779b97f4a7c15ull;
}
int sampler_setup_exact(struct sampler *s);
/* Fills T's fields from its exact slot; false when the slot does not give
 * them (not switched yet, torn): the caller reads /proc. */
bool sampler_sample_thread_exact(struct sampler *s, struct thr *t, uint64_t t_ns, bool slow);
void sampler_drain_exact(struct sampler *s);
/* T's task stat (utime, stime, fresh fault counts, gone) when slow or a
 * watched disk moved since its last read. */
void sampler_exact_task_stat(struct sampler *s, struct thr *t, bool slow);
/* A signature of what the sampled threads did that the system's sources
 * can explain: their I/O, fault and reclaim time, block I/O and page
 * faults. Unchanged: the disks and PSI need no read this sample. */
uint64_t sampler_exact_signal(const struct sampler *s);

/* sampler_gpu.c */
int sampler_setup_gpu(struct sampler *s);
void sampler_drm_close_all(struct sampler *s);
int64_t sampler_fd_count(struct sampler *s);
void sampler_sample_gpu(struct sampler *s, uint64_t t_ns);

/* sampler_sys.c */
int sampler_setup_vmstat(struct sampler *s);
int sampler_setup_disks(struct sampler *s, struct strbuf *why);
int sampler_setup_pressure(struct sampler *s, struct strbuf *why);
int sampler_setup_others(struct sampler *s, struct strbuf *why);
int sampler_setup_sys(struct sampler *s);
void sampler_read_disks(struct sampler *s);
void sampler_read_psi(struct sampler *s, struct psi_src *p, enum cost kind);
/* The signature of the I/O signals: every watched disk's reads, writes and
 * requests in flight, and the frame threads' major faults. */
uint64_t sampler_io_signal(const struct sampler *s);
void sampler_sample_others(struct sampler *s, bool slow, bool first, bool mem_moved);
void sampler_read_vmstat(struct sampler *s, bool slow);
void sampler_read_sys(struct sampler *s);

#endif
