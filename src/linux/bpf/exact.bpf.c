// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * exact.bpf.c: exact mode's kernel side. For each target thread (a slot,
 * set from user space in ctl.targets through the mmapped .bss) it keeps
 * counters of where its time went (core/exact_abi.h: struct exact_slot, in
 * an mmapable array) and puts every off-CPU interval of at least
 * ctl.min_interval_ns into a ring buffer that the recorder drains each
 * sample (no wake-up). docs/FORMAT.md ("Exact mode") and docs/CAUSES.md
 * ("Exact time") say what each count means.
 *
 * Hooks, each its own program so that a kernel lacking one loads the rest:
 * sched_switch (switch-out and switch-in of a target), sched_waking (the
 * waker and the wake-up time), block_io_start/done or block_rq_issue/
 * complete before 6.5 (block I/O the thread started), mm_vmscan direct and
 * memcg reclaim begin/end, page_fault_user (x86). Every read of a kernel struct goes through
 * BPF_CORE_READ (relocated against the kernel's BTF, and valid in raw_tp
 * programs too): tp_btf is the flavour loaded, raw_tp the fallback where
 * BTF-typed tracepoints are missing.
 *
 * The dual licence: the kernel gives GPL-only helpers (the ring buffer,
 * stacks) to GPL-compatible programs alone.
 */
#include "vmlinux_min.h"

#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "core/exact_abi.h"

char LICENSE[] SEC("license") = "Dual MIT/GPL";

#define TASK_RUNNING 0
#define TASK_UNINTERRUPTIBLE 2
#define ENOSYS 38
#define DRM_MAJOR 226
#define NVIDIA_MAJOR 195

/* Set by user space before load (.rodata): the class of each syscall
 * (core/syscalls.h's enum syscall_class), and the kernel text ranges of the
 * swap-in path (from /proc/kallsyms; 0: unknown, every fault is a file
 * fault). */
const volatile __u8 sys_class[EXACT_SYSCALLS] = {};
const volatile __u64 swap_lo[2] = {}, swap_hi[2] = {};
const volatile bool take_stacks = true;

/* A member of a kernel struct: a plain load in the tp_btf flavour (a BTF
 * pointer the verifier lets the program read, a few ns), bpf_probe_read in
 * the raw_tp one (a helper call each, tens of ns). BTF is a constant in
 * each program, so the other branch is not compiled. */
#define KREAD(btf, p, f) ((btf) ? (p)->f : BPF_CORE_READ(p, f))
#define KBITS(btf, p, f) ((btf) ? BPF_CORE_READ_BITFIELD(p, f) : BPF_CORE_READ_BITFIELD_PROBED(p, f))

/* Mirrors core/syscalls.h (the BPF side cannot include it: no libc). */
enum { SYSC_OTHER, SYSC_READ, SYSC_WRITE, SYSC_META, SYSC_SYNC, SYSC_IOCTL, SYSC_FUTEX,
	SYSC_POLL, SYSC_RECV, SYSC_SLEEP };

struct exact_ctl ctl = {};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, EXACT_SLOTS);
	__type(key, __u32);
	__type(value, struct exact_slot);
} slots SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 * 1024);
} intervals SEC(".maps");

/* Block requests a target started: request -> slot and start time. */
struct bio_start {
	__u64 t_ns;
	__u32 slot;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);
	__type(value, struct bio_start);
} bios SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64[EXACT_STACK + 4]);
} scratch SEC(".maps");

/* The slot of TID, or -1 (a few loads per hook for every other thread). */
static __always_inline int slot_of(__u32 tid)
{
	if (!tid)
		return -1;
#pragma unroll
	for (int i = 0; i < EXACT_SLOTS; i++)
		if (ctl.targets[i] == tid)
			return i;
	return -1;
}

/* A slot's sequence count, odd while the thread's own event writes it.
 * x86-TSO makes stores visible in program order, so plain stores between
 * compiler barriers publish the count and the counters in order (a locked
 * add costs ~20 ns; exact mode is built for x86_64 only). The thread's own
 * events are serialized: tracepoints run with preemption off, and a task
 * switches in on one CPU only after its switch-out on another is done. */
#define barrier() asm volatile("" ::: "memory")

static __always_inline void seq_bump(struct exact_slot *s)
{
	barrier();
	*(volatile __u32 *)&s->seq = s->seq + 1;
	barrier();
}

static __always_inline struct exact_slot *slot_get(int i, __u32 tid)
{
	__u32 k = i;
	struct exact_slot *s = bpf_map_lookup_elem(&slots, &k);

	if (!s)
		return NULL;
	if (s->tid != tid) {
		/* A new target in this slot: start from zero. User space reads
		 * tid with seq, so it never adds one thread's counters to
		 * another's. */
		seq_bump(s);
		__builtin_memset(&s->state, 0, sizeof(*s) - 2 * sizeof(__u32));
		s->tid = tid;
		s->syscall = -1;
		seq_bump(s);
	}
	return s;
}

static __always_inline unsigned int task_state(struct task_struct *t, bool btf)
{
	if (bpf_core_field_exists(t->__state))
		return KREAD(btf, t, __state);
	return KREAD(btf, (struct task_struct___old *)t, state);
}

/* Whether the file behind FD of task T is a GPU device node. */
static __always_inline bool fd_is_gpu(struct task_struct *t, __u64 fd)
{
	struct files_struct *files = BPF_CORE_READ(t, files);
	struct fdtable *fdt = BPF_CORE_READ(files, fdt);
	struct file **fds = BPF_CORE_READ(fdt, fd);
	struct file *f = NULL;
	unsigned int max = BPF_CORE_READ(fdt, max_fds);

	if (!fds || fd >= max)
		return false;
	bpf_probe_read_kernel(&f, sizeof(f), &fds[fd]);
	if (!f)
		return false;
	__u32 rdev = BPF_CORE_READ(f, f_inode, i_rdev);
	__u32 major = rdev >> 20;	/* the kernel's dev_t: 12 bits of major over 20 of minor */

	return major == DRM_MAJOR || major == NVIDIA_MAJOR;
}

/* Whether the current kernel stack passes through the swap-in path. */
static __always_inline bool in_swap_path(void *ctx)
{
	__u32 z = 0;
	__u64 *buf = bpf_map_lookup_elem(&scratch, &z);

	if (!buf || !swap_lo[0])
		return false;
	long n = bpf_get_stack(ctx, buf, (EXACT_STACK + 4) * sizeof(__u64), 0);

	if (n <= 0)
		return false;
	n /= sizeof(__u64);
#pragma unroll
	for (int i = 0; i < EXACT_STACK + 4; i++) {
		if (i >= n)
			break;
		__u64 a = buf[i];

		if ((a >= swap_lo[0] && a < swap_hi[0]) || (a >= swap_lo[1] && a < swap_hi[1]))
			return true;
	}
	return false;
}

/* The class of the interval that T (current: this is its switch-out)
 * begins. */
static __always_inline __u32 class_of(void *ctx, struct task_struct *t, bool preempt,
				      unsigned int state, bool reclaim, bool io, bool *insys,
				      __s32 *nr, __u64 *arg0, bool btf)
{
	struct pt_regs *regs;
	long ax, orig;

	if (preempt || state == TASK_RUNNING) {
		*insys = false;
		*nr = -1;
		*arg0 = 0;
		return X_PREEMPT;
	}
	/* T is current; tp_btf's T is a trusted pointer already, raw_tp's a
	 * number, so that flavour asks for current's */
	regs = (struct pt_regs *)bpf_task_pt_regs(btf ? t : bpf_get_current_task_btf());
	ax = regs->ax;	/* a BTF pointer in both flavours */
	orig = regs->orig_ax;

	/* The syscall entry stores -ENOSYS as the return value until the
	 * call returns; a fault from user space leaves the user's rax there
	 * and its error code in orig_ax. */
	*insys = ax == -ENOSYS && orig >= 0;
	*nr = *insys ? (__s32)orig : -1;
	*arg0 = *insys ? regs->di : 0;
	if (reclaim)
		return X_RECLAIM;
	if (!*insys)
		return !io ? X_OTHER : in_swap_path(ctx) ? X_SWAP_FAULT : X_FILE_FAULT;
	__u8 c = orig < EXACT_SYSCALLS ? sys_class[orig & (EXACT_SYSCALLS - 1)] : SYSC_OTHER;

	switch (c) {
	case SYSC_READ:
		return io ? X_IO_READ : X_SOCKET;
	case SYSC_WRITE:
		return io ? X_IO_WRITE : X_OTHER;
	case SYSC_META:
		return io ? X_IO_META : X_OTHER;
	case SYSC_SYNC:
		return X_IO_SYNC;
	case SYSC_IOCTL:
		return fd_is_gpu(t, *arg0) ? X_GPU : io ? X_IO_META : X_OTHER;
	case SYSC_FUTEX:
		return X_FUTEX;
	case SYSC_POLL:
		return X_POLL;
	case SYSC_RECV:
		return X_SOCKET;
	case SYSC_SLEEP:
		return X_SLEEP;
	}
	return X_OTHER;
}

/*
 * A switch-out that finds the slot off: the thread's switch-in since its
 * last switch-out was not traced (seen on this machine's kernel: switches
 * out of one process are never traced, so the switch-in of a thread that
 * ran after it goes unseen). The kernel's own run time (sum_exec_runtime)
 * says how long it ran since; the rest of the time since that switch-out
 * was the wait it had begun, up to its wake-up, then the wait for a CPU,
 * with the switch-in taken as late as the run time allows.
 */
static __always_inline void missed_switch_in(struct exact_slot *s, __u64 now, __u64 sum)
{
	__u64 out = s->out_ns, wake = s->wake_ns, span, run, in;
	__u32 cls = s->cls;

	s->missed_in++;
	span = now > out ? now - out : 0;
	run = s->sum_exec && sum > s->sum_exec ? sum - s->sum_exec : 0;
	if (run > span)
		run = span;
	in = out + span - run;
	s->run_ns += run;
	if (cls == X_PREEMPT) {
		s->off_ns[X_PREEMPT] += in - out;
		return;
	}
	if (wake < out || wake > in)
		wake = in;
	if (cls < X_NCLASS)
		s->off_ns[cls & 15] += wake - out;
	s->runq_ns += in - wake;
}

static __always_inline void switch_out(void *ctx, int i, struct task_struct *t, bool preempt,
				       __u64 now, bool btf)
{
	struct exact_slot *s = slot_get(i, KREAD(btf, t, pid));

	if (!s)
		return;
	unsigned int state = task_state(t, btf);
	bool reclaim = s->reclaim_since != 0;
	bool iow = KBITS(btf, t, in_iowait);
	bool io = iow || (state & TASK_UNINTERRUPTIBLE);
	bool insys;
	__s32 nr;
	__u64 arg0;
	__u32 cls = class_of(ctx, t, preempt, state, reclaim, io, &insys, &nr, &arg0, btf);
	__u32 flags = (iow ? XF_IOWAIT : 0) | (state & TASK_UNINTERRUPTIBLE ? XF_DSTATE : 0) |
		      (insys ? XF_SYSCALL : 0) | (reclaim ? XF_RECLAIM : 0) |
		      (KBITS(btf, t, in_memstall) ? XF_MEMSTALL : 0);

	__u64 sum = KREAD(btf, t, se.sum_exec_runtime);

	seq_bump(s);
	if (s->state == XS_RUNNING && now > s->since_ns)
		s->run_ns += now - s->since_ns;
	else if (s->state == XS_OFF)
		missed_switch_in(s, now, sum);	/* it ran, its switch-in not traced */
	s->sum_exec = sum;
	s->state = XS_OFF;
	s->cls = cls;
	s->out_ns = now;
	s->syscall = nr;
	s->arg0 = arg0;
	s->flags = flags;
	s->switches++;
	if (cls == X_PREEMPT)
		s->preempts++;
	s->majflt = KREAD(btf, t, maj_flt);
	s->minflt = KREAD(btf, t, min_flt);
	seq_bump(s);
}

static __always_inline void switch_in(int i, struct task_struct *t, __u64 now, bool btf)
{
	__u32 tid = KREAD(btf, t, pid);
	struct exact_slot *s = slot_get(i, tid);

	if (!s)
		return;
	if (!ctl.abi)
		ctl.abi = EXACT_ABI_VERSION;
	seq_bump(s);
	if (s->state != XS_OFF) {
		/* A switch-in with no switch-out seen: the slot just took the
		 * thread, or the switch-out was not traced (a sandbox's pid 1). */
		if (s->state == XS_RUNNING)
			s->missed++;
		s->state = XS_RUNNING;
		s->since_ns = now;
		s->cpu = bpf_get_smp_processor_id();
		seq_bump(s);
		return;
	}
	__u64 out = s->out_ns, wake = s->wake_ns;
	__u32 cls = s->cls, flags = s->flags;

	if (cls == X_PREEMPT || wake < out || wake > now) {
		if (cls != X_PREEMPT)
			flags |= XF_NOWAKE;
		wake = cls == X_PREEMPT ? out : now;
	}
	if (cls == X_PREEMPT) {
		s->off_ns[X_PREEMPT] += now - out;
	} else {
		__u64 w = now - wake, slack = ctl.wake_slack_ns < w ? ctl.wake_slack_ns : w;

		if (cls < X_NCLASS)
			s->off_ns[cls & 15] += wake - out + slack;
		s->runq_ns += w - slack;
	}
	s->state = XS_RUNNING;
	s->since_ns = now;
	s->cpu = bpf_get_smp_processor_id();
	__s32 nr = s->syscall;
	__u64 arg0 = s->arg0;
	__u32 waker = s->waker_tid;
	char comm[16];

	__builtin_memcpy(comm, s->waker_comm, sizeof(comm));
	seq_bump(s);

	if (now - out < ctl.min_interval_ns)
		return;
	struct exact_interval *iv = bpf_ringbuf_reserve(&intervals, sizeof(*iv), 0);

	if (!iv) {
		__sync_fetch_and_add(&ctl.dropped, 1);
		return;
	}
	iv->out_ns = out;
	iv->wake_ns = wake;
	iv->in_ns = now;
	iv->arg0 = arg0;
	iv->tid = tid;
	iv->waker_tid = cls == X_PREEMPT || (flags & XF_NOWAKE) ? 0 : waker;
	iv->syscall = nr;
	iv->cls = cls;
	iv->state = cls == X_PREEMPT ? 'R' : flags & XF_DSTATE ? 'D' : 'S';
	iv->flags = flags;
	if (iv->waker_tid)
		__builtin_memcpy(iv->waker_comm, comm, sizeof(comm));
	else
		__builtin_memset(iv->waker_comm, 0, sizeof(iv->waker_comm));
	iv->nstack = 0;
	iv->pad = 0;
	if (btf && take_stacks && cls != X_PREEMPT) {
		/* The task is not running yet: its saved stack is still the
		 * one it slept in. */
		long n = bpf_get_task_stack(t, iv->stack, sizeof(iv->stack), 0);

		if (n > 0)
			iv->nstack = n / sizeof(__u64);
	}
	bpf_ringbuf_submit(iv, BPF_RB_NO_WAKEUP);
}

static __always_inline int on_switch(void *ctx, bool preempt, struct task_struct *prev,
				     struct task_struct *next, bool btf)
{
	int i = slot_of(KREAD(btf, prev, pid));
	int j = slot_of(KREAD(btf, next, pid));
	__u64 now;

	if (i < 0 && j < 0)
		return 0;	/* the common case: neither is a target */
	now = bpf_ktime_get_ns();
	if (i >= 0)
		switch_out(ctx, i, prev, preempt, now, btf);
	if (j >= 0)
		switch_in(j, next, now, btf);
	return 0;
}

/* The waker runs this: current is who woke P. The fields it writes are
 * outside seq (this may run beside P's own switch-out on another CPU);
 * switch_in takes them when they are newer than the switch-out. */
static __always_inline int on_waking(struct task_struct *p, bool btf)
{
	__u32 tid = KREAD(btf, p, pid);
	int i = slot_of(tid);

	if (i < 0)
		return 0;
	__u32 k = i;
	struct exact_slot *s = bpf_map_lookup_elem(&slots, &k);

	if (!s || s->tid != tid)
		return 0;
	s->waker_tid = (__u32)bpf_get_current_pid_tgid();
	bpf_get_current_comm(s->waker_comm, sizeof(s->waker_comm));
	s->wake_ns = bpf_ktime_get_ns();
	return 0;
}

static __always_inline int on_bio_start(struct request *rq)
{
	int i = slot_of((__u32)bpf_get_current_pid_tgid());

	if (i < 0)
		return 0;
	__u32 k = i;
	struct exact_slot *s = bpf_map_lookup_elem(&slots, &k);

	if (!s)
		return 0;
	struct bio_start b = { .t_ns = bpf_ktime_get_ns(), .slot = k };
	__u64 key = (__u64)rq;

	__sync_fetch_and_add(&s->bio_started, 1);
	__sync_fetch_and_add(&s->bio_bytes, BPF_CORE_READ(rq, __data_len));
	bpf_map_update_elem(&bios, &key, &b, BPF_ANY);
	return 0;
}

static __always_inline int on_bio_done(struct request *rq)
{
	__u64 key = (__u64)rq;
	struct bio_start *b = bpf_map_lookup_elem(&bios, &key);

	if (!b)
		return 0;
	__u32 k = b->slot;
	__u64 t = b->t_ns;
	struct exact_slot *s = bpf_map_lookup_elem(&slots, &k);

	bpf_map_delete_elem(&bios, &key);
	if (!s)
		return 0;
	__sync_fetch_and_add(&s->bio_done, 1);
	__sync_fetch_and_add(&s->bio_ns, bpf_ktime_get_ns() - t);
	return 0;
}

static __always_inline int on_reclaim(bool begin)
{
	int i = slot_of((__u32)bpf_get_current_pid_tgid());

	if (i < 0)
		return 0;
	__u32 k = i;
	struct exact_slot *s = bpf_map_lookup_elem(&slots, &k);
	__u64 now = bpf_ktime_get_ns();

	if (!s || s->tid != (__u32)bpf_get_current_pid_tgid())
		return 0;
	seq_bump(s);
	if (begin)
		s->reclaim_since = now;
	else if (s->reclaim_since && now > s->reclaim_since)
		s->reclaim_ns += now - s->reclaim_since;
	if (!begin)
		s->reclaim_since = 0;
	seq_bump(s);
	return 0;
}

/* A user page fault of current (x86's exceptions:page_fault_user): a count
 * the thread's own context writes (no seq: one word), so that a thread
 * faulting pages in without sleeping (a zram swap-in) still moves its
 * counters and the sampler reads the system's then. */
static __always_inline int on_fault(void)
{
	int i = slot_of((__u32)bpf_get_current_pid_tgid());
	__u32 k;
	struct exact_slot *s;

	if (i < 0)
		return 0;
	k = i;
	s = bpf_map_lookup_elem(&slots, &k);
	if (s && s->tid == (__u32)bpf_get_current_pid_tgid())
		*(volatile __u64 *)&s->faults = s->faults + 1;
	return 0;
}

/* Each hook twice: tp_btf (loaded) and raw_tp (the fallback). */
#define HOOKS(F, sec, btf)                                                                   \
	SEC(sec "/sched_switch")                                                           \
	int BPF_PROG(F##_switch, bool preempt, struct task_struct *prev,                    \
		     struct task_struct *next)                                                 \
	{                                                                                  \
		return on_switch(ctx, preempt, prev, next, btf);                           \
	}                                                                                  \
	SEC(sec "/sched_waking")                                                           \
	int BPF_PROG(F##_waking, struct task_struct *p) { return on_waking(p, btf); }      \
	SEC(sec "/block_io_start")                                                         \
	int BPF_PROG(F##_io_start, struct request *rq) { return on_bio_start(rq); }        \
	SEC(sec "/block_io_done")                                                          \
	int BPF_PROG(F##_io_done, struct request *rq) { return on_bio_done(rq); }          \
	SEC(sec "/block_rq_issue")                                                         \
	int BPF_PROG(F##_rq_issue, struct request *rq) { return on_bio_start(rq); }        \
	SEC(sec "/block_rq_complete")                                                      \
	int BPF_PROG(F##_rq_complete, struct request *rq) { return on_bio_done(rq); }      \
	SEC(sec "/mm_vmscan_direct_reclaim_begin")                                         \
	int BPF_PROG(F##_dr_begin) { return on_reclaim(true); }                            \
	SEC(sec "/mm_vmscan_direct_reclaim_end")                                           \
	int BPF_PROG(F##_dr_end) { return on_reclaim(false); }                             \
	SEC(sec "/mm_vmscan_memcg_reclaim_begin")                                          \
	int BPF_PROG(F##_mr_begin) { return on_reclaim(true); }                            \
	SEC(sec "/mm_vmscan_memcg_reclaim_end")                                            \
	int BPF_PROG(F##_mr_end) { return on_reclaim(false); }                             \
	SEC(sec "/page_fault_user")                                                        \
	int BPF_PROG(F##_fault) { return on_fault(); }

HOOKS(tb, "tp_btf", true)
HOOKS(rt, "raw_tp", false)
