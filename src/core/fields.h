/* SPDX-License-Identifier: MIT */
/*
 * fields.h: the names of a record's sample fields (docs/FORMAT.md, "Sample
 * fields"), in one place: the sampler (src/linux/sampler) declares them,
 * the causes (core/causes.h) look them up, so the two cannot drift apart.
 * Each group is an enum of indices and a table of full names; the sampler
 * keeps the indices it got for them, named, never bare numbers.
 */
#ifndef SS_CORE_FIELDS_H
#define SS_CORE_FIELDS_H

#include "core/record.h"

/* A sampled thread's fields, after "ft." (the frame thread) or "ft2." (its
 * process's main thread, when that is another). */
enum thread_field {
	TF_TID, TF_STATE, TF_WCHAN, TF_SYSCALL, TF_FD, TF_FD_TARGET, TF_MINFLT, TF_MAJFLT,
	TF_UTIME, TF_STIME, TF_CPU, TF_RUN, TF_WAIT, TF_SLICES, TF_N
};
extern const char *const field_ft[TF_N];	/* "ft.tid", ... */
extern const char *const field_ft2[TF_N];	/* "ft2.tid", ... */
extern const enum rec_kind field_thread_kind[TF_N];	/* wchan, fd_target: strings */

/* Exact mode's counters of a sampled thread (core/exact_abi.h's struct
 * exact_slot, with the open part added at the sample), after "ftx." (the
 * frame thread's) or "ft2x." (the main thread's): its tid, then ns on a CPU,
 * waiting for one, blocked by class (EF_CLASS + enum exact_class), in
 * reclaim; counts of switch-outs, preemptions, missed switch-outs; block
 * I/O it started; its user page faults; missed switch-ins. All cumulative since the slot took the thread. */
enum exact_field {
	EF_TID, EF_RUN, EF_RUNQ, EF_CLASS,
	EF_RECLAIM = EF_CLASS + 14, EF_SWITCHES, EF_PREEMPTS, EF_MISSED, EF_BIO_STARTED,
	EF_BIO_DONE, EF_BIO_BYTES, EF_BIO_NS, EF_FAULTS, EF_MISSED_IN, EF_N
};
extern const char *const field_ftx[EF_N];	/* "ftx.tid", "ftx.run_ns", ... */
extern const char *const field_ft2x[EF_N];

/* The sampled process's counters. */
enum proc_field { PF_MINFLT, PF_MAJFLT, PF_CPU, PF_THREADS, PF_N };
extern const char *const field_proc[PF_N];	/* "proc.minflt", ... */

/* Pressure stall information: the system's (/proc/pressure) and the
 * program's cgroup's, for each resource. */
enum psi_scope { PSI_SYSTEM, PSI_CGROUP, PSI_SCOPE_N };
enum psi_res { PSI_CPU, PSI_MEMORY, PSI_IO, PSI_N };
extern const char *const field_psi_scope[PSI_SCOPE_N];	/* "psi", "cg" */
extern const char *const field_psi_res[PSI_N];		/* "cpu", "memory", "io" */
extern const char *const field_psi_some[PSI_SCOPE_N][PSI_N];	/* "psi.cpu.some_us", ... */
extern const char *const field_psi_full[PSI_SCOPE_N][PSI_N];	/* "psi.cpu.full_us", ... */

/* A disk's counters: "disk.<name>.<suffix>". */
#define FIELD_DISK_PREFIX "disk."
enum disk_field {
	DF_RD_IOS, DF_RD_SECTORS, DF_RD_TICKS, DF_WR_IOS, DF_WR_SECTORS, DF_IN_FLIGHT,
	DF_IO_TICKS, DF_N
};
extern const char *const field_disk_suffix[DF_N];	/* "rd_ios", ... */

/* The /proc/vmstat counters sampled: "vm.<key>". */
#define FIELD_VM_PREFIX "vm."
enum vm_field {
	VM_PGMAJFAULT, VM_PSWPIN, VM_PSWPOUT, VM_PGSCAN_DIRECT, VM_PGSTEAL_DIRECT,
	VM_ALLOCSTALL_NORMAL, VM_ALLOCSTALL_MOVABLE, VM_ALLOCSTALL_DMA32, VM_COMPACT_STALL,
	VM_PGSCAN_KSWAPD, VM_PGSTEAL_KSWAPD, VM_REFAULT_FILE, VM_REFAULT_ANON, VM_OOM_KILL, VM_N
};
extern const char *const field_vm_key[VM_N];	/* "pgmajfault", as /proc/vmstat says */
extern const char *const field_vm[VM_N];	/* "vm.pgmajfault", ... */

/* /proc/stat's CPU times, all CPUs together. */
enum sys_field { SYS_USER, SYS_SYSTEM, SYS_IDLE, SYS_IOWAIT, SYS_STEAL, SYS_N };
extern const char *const field_sys[SYS_N];	/* "sys.user_ns", ... */
#define FIELD_SYS_MEM_AVAIL "sys.mem_avail_kb"

/* The other processes watched by their stat: the display server and the
 * kernel's reclaim threads, each "<prefix>.state", ".majflt", ".cpu_ns". */
enum other_proc { OTHER_SRV, OTHER_KSWAPD, OTHER_KCOMPACTD, OTHER_N };
extern const char *const field_other_prefix[OTHER_N];	/* "srv", "kswapd", "kcompactd" */

#endif
