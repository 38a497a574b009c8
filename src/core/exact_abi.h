/* SPDX-License-Identifier: MIT */
/*
 * exact_abi.h: what the exact-mode BPF program (src/linux/bpf/exact.bpf.c)
 * and user space share: the counter slot of a target thread (in a
 * BPF_F_MMAPABLE array, read by user space through mmap) and the off-CPU
 * interval (a BPF ring buffer record). Fixed-width fields only, every one
 * at its natural alignment, so the kernel's BPF and the recorder see one
 * layout. docs/FORMAT.md ("Exact mode") describes what each means.
 *
 * The kernel writes a slot's fields that only the thread's own switches
 * change between two increments of seq (odd while it writes); the block
 * I/O completions, which run on any CPU, add with atomics outside it.
 * core/exact.h reads a slot consistently.
 */
#ifndef SS_CORE_EXACT_ABI_H
#define SS_CORE_EXACT_ABI_H

#ifdef __bpf__
typedef __u8 x_u8;
typedef __u16 x_u16;
typedef __u32 x_u32;
typedef __s32 x_s32;
typedef __u64 x_u64;
#else
#include <stdint.h>
typedef uint8_t x_u8;
typedef uint16_t x_u16;
typedef uint32_t x_u32;
typedef int32_t x_s32;
typedef uint64_t x_u64;
#endif

#define EXACT_ABI_VERSION 1
#define EXACT_SLOTS 4		/* target threads followed at once */
#define EXACT_STACK 12		/* kernel frames kept of an interval */
#define EXACT_SYSCALLS 512	/* syscall numbers the class table covers */

/* Why a target was off its CPU. The blocked part of an interval (switch-out
 * to wake-up) counts under one of these, with the first wake_slack_ns of the
 * wait for a CPU after the wake-up (the wake-up's own latency, which every
 * sleep pays); the rest of that wait counts as runq_ns. X_PREEMPT is a
 * switch-out while runnable (its whole interval is a wait for a CPU). */
enum exact_class {
	X_FILE_FAULT,	/* a page fault that waited for I/O (file-backed, or unknown) */
	X_SWAP_FAULT,	/* a page fault in do_swap_page */
	X_IO_READ,	/* D or in I/O wait in a read-like syscall */
	X_IO_WRITE,	/* ... in a write-like one */
	X_IO_META,	/* ... in open, stat, close, getdents, ... */
	X_IO_SYNC,	/* in fsync, fdatasync, sync, msync */
	X_GPU,		/* in an ioctl on a DRM (major 226) or NVIDIA (195) device */
	X_FUTEX,
	X_POLL,		/* poll, select, epoll */
	X_SOCKET,	/* asleep in a receive, or a read of a pipe or socket */
	X_SLEEP,	/* nanosleep, clock_nanosleep */
	X_OTHER,	/* asleep in any other syscall, or in a fault without I/O */
	X_RECLAIM,	/* asleep inside direct (or memcg) reclaim */
	X_PREEMPT,	/* switched out runnable */
	X_NCLASS
};

/* A slot's state. */
enum exact_state {
	XS_UNSEEN,	/* no switch of the thread seen since it became the target */
	XS_RUNNING,	/* since since_ns */
	XS_OFF,		/* off its CPU since out_ns (wake_ns: woken, waiting for a CPU) */
};

/* Interval flags. */
#define XF_IOWAIT	1u	/* in_iowait at the switch-out (io_schedule) */
#define XF_MEMSTALL	2u	/* in_memstall (PSI memory stall) */
#define XF_DSTATE	4u	/* TASK_UNINTERRUPTIBLE */
#define XF_SYSCALL	8u	/* in a syscall (else a fault or an interrupt) */
#define XF_RECLAIM	16u	/* inside direct reclaim */
#define XF_NOWAKE	32u	/* no wake-up was seen (woken before the switch-out
			 * finished, or a preemption): wake_ns is in_ns */

/* One target thread's counters, cumulative since the slot took the thread
 * (tid; a new tid starts again at zero). */
struct exact_slot {
	x_u32 seq;		/* odd while the thread's own switch writes */
	x_u32 tid;		/* whose counters these are; 0: none yet */
	x_u32 state;		/* enum exact_state */
	x_u32 cls;		/* enum exact_class of the open off-CPU interval */
	x_u64 since_ns;		/* XS_RUNNING: its switch-in */
	x_u64 out_ns;		/* XS_OFF: its switch-out */
	x_s32 syscall;		/* of the open interval; -1: not in a syscall */
	x_u32 flags;		/* XF_* of the open interval */
	x_u64 arg0;		/* that syscall's first argument */
	x_u64 run_ns;		/* on a CPU (closed parts) */
	x_u64 runq_ns;		/* woken, waiting for a CPU */
	x_u64 off_ns[X_NCLASS];	/* blocked, by class (X_PREEMPT: the whole wait) */
	x_u64 reclaim_ns;	/* inside direct or memcg reclaim, on or off CPU */
	x_u64 switches;		/* switch-outs */
	x_u64 preempts;		/* switch-outs while runnable */
	x_u64 missed;		/* switch-ins with no switch-out before (sandboxes) */
	x_u64 majflt, minflt;	/* the task's fault counts at its last switch-out */
	x_u64 cpu;		/* the CPU of its last switch-in */
	/* written with atomics, outside seq */
	x_u64 bio_started, bio_done, bio_bytes, bio_ns;
	x_u64 wake_ns;		/* the last sched_waking of the thread */
	x_u32 waker_tid;	/* and who woke it */
	x_u32 pad;
	char waker_comm[16];
	x_u64 reclaim_since;	/* the program's own: the open reclaim's start, or 0 */
	x_u64 faults;		/* user page faults (page_fault_user), minor and major */
	x_u64 missed_in;	/* switch-outs that found the slot off: a switch-in not
				 * seen (its time then comes from sum_exec) */
	x_u64 sum_exec;		/* the task's se.sum_exec_runtime at its last switch-out */
};

/* One off-CPU interval of a target of at least min_interval_ns (a ring
 * buffer record). */
struct exact_interval {
	x_u64 out_ns, wake_ns, in_ns;	/* CLOCK_MONOTONIC (bpf_ktime_get_ns) */
	x_u64 arg0;
	x_u32 tid;
	x_u32 waker_tid;		/* 0: none seen */
	x_s32 syscall;			/* -1: not in a syscall */
	x_u16 cls;			/* enum exact_class */
	x_u8 state;			/* 'R' preempted, 'S', 'D' */
	x_u8 flags;			/* XF_* */
	char waker_comm[16];
	x_u32 nstack;			/* frames in stack[] */
	x_u32 pad;
	x_u64 stack[EXACT_STACK];	/* kernel addresses, innermost first */
};

/* The program's global knobs and figures (its .bss, mmapped). */
struct exact_ctl {
	x_u32 targets[EXACT_SLOTS];	/* tid per slot; 0: none */
	x_u64 min_interval_ns;		/* intervals this long go to the ring */
	x_u64 wake_slack_ns;		/* of the wait for a CPU after a wake-up, this
					 * much counts to the sleep's class */
	x_u64 dropped;			/* intervals the full ring refused */
	x_u64 abi;			/* EXACT_ABI_VERSION, set by the program */
};

#endif
