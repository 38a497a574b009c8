// SPDX-License-Identifier: MIT
/*
 * fields.c: fields.h's tables. Each list is written once, as an X macro,
 * and both the suffixes and the full names are made from it.
 */
#include "core/exact_abi.h"
#include "core/fields.h"

#define THREAD_FIELDS(X)                                                                      \
	X(TF_TID, "tid", REC_INT) X(TF_STATE, "state", REC_INT) X(TF_WCHAN, "wchan", REC_STR)  \
	X(TF_SYSCALL, "syscall", REC_INT) X(TF_FD, "fd", REC_INT)                              \
	X(TF_FD_TARGET, "fd_target", REC_STR) X(TF_MINFLT, "minflt", REC_INT)                  \
	X(TF_MAJFLT, "majflt", REC_INT) X(TF_UTIME, "utime_ns", REC_INT)                       \
	X(TF_STIME, "stime_ns", REC_INT) X(TF_CPU, "cpu", REC_INT) X(TF_RUN, "run_ns", REC_INT) \
	X(TF_WAIT, "wait_ns", REC_INT) X(TF_SLICES, "slices", REC_INT)

#define FT(e, n, k) [e] = "ft." n,
#define FT2(e, n, k) [e] = "ft2." n,
#define KIND(e, n, k) [e] = k,
const char *const field_ft[TF_N] = { THREAD_FIELDS(FT) };
const char *const field_ft2[TF_N] = { THREAD_FIELDS(FT2) };
const enum rec_kind field_thread_kind[TF_N] = { THREAD_FIELDS(KIND) };

#define EXACT_FIELDS(X)                                                                      \
	X(EF_TID, "tid") X(EF_RUN, "run_ns") X(EF_RUNQ, "runq_ns")                              \
	X(EF_CLASS + X_FILE_FAULT, "file_fault_ns") X(EF_CLASS + X_SWAP_FAULT, "swap_fault_ns")  \
	X(EF_CLASS + X_IO_READ, "io_read_ns") X(EF_CLASS + X_IO_WRITE, "io_write_ns")            \
	X(EF_CLASS + X_IO_META, "io_meta_ns") X(EF_CLASS + X_IO_SYNC, "io_sync_ns")              \
	X(EF_CLASS + X_GPU, "gpu_ns") X(EF_CLASS + X_FUTEX, "futex_ns")                          \
	X(EF_CLASS + X_POLL, "poll_ns") X(EF_CLASS + X_SOCKET, "socket_ns")                      \
	X(EF_CLASS + X_SLEEP, "sleep_ns") X(EF_CLASS + X_OTHER, "other_ns")                      \
	X(EF_CLASS + X_RECLAIM, "reclaim_wait_ns") X(EF_CLASS + X_PREEMPT, "preempt_ns")         \
	X(EF_RECLAIM, "reclaim_ns") X(EF_SWITCHES, "switches") X(EF_PREEMPTS, "preempts")        \
	X(EF_MISSED, "missed") X(EF_BIO_STARTED, "bio_started") X(EF_BIO_DONE, "bio_done")       \
	X(EF_BIO_BYTES, "bio_bytes") X(EF_BIO_NS, "bio_ns")               \
	X(EF_FAULTS, "faults") X(EF_MISSED_IN, "missed_in")

_Static_assert(EF_RECLAIM == EF_CLASS + X_NCLASS, "one field per exact class");
#define FTX(e, n) [e] = "ftx." n,
#define FT2X(e, n) [e] = "ft2x." n,
const char *const field_ftx[EF_N] = { EXACT_FIELDS(FTX) };
const char *const field_ft2x[EF_N] = { EXACT_FIELDS(FT2X) };

const char *const field_proc[PF_N] = {
	[PF_MINFLT] = "proc.minflt", [PF_MAJFLT] = "proc.majflt",
	[PF_CPU] = "proc.cpu_ns", [PF_THREADS] = "proc.threads",
};

const char *const field_psi_scope[PSI_SCOPE_N] = { [PSI_SYSTEM] = "psi", [PSI_CGROUP] = "cg" };
const char *const field_psi_res[PSI_N] = {
	[PSI_CPU] = "cpu", [PSI_MEMORY] = "memory", [PSI_IO] = "io",
};
#define PSI_NAMES(scope, what)                                                          \
	{ [PSI_CPU] = scope ".cpu." what, [PSI_MEMORY] = scope ".memory." what,         \
	  [PSI_IO] = scope ".io." what }
const char *const field_psi_some[PSI_SCOPE_N][PSI_N] = {
	[PSI_SYSTEM] = PSI_NAMES("psi", "some_us"), [PSI_CGROUP] = PSI_NAMES("cg", "some_us"),
};
const char *const field_psi_full[PSI_SCOPE_N][PSI_N] = {
	[PSI_SYSTEM] = PSI_NAMES("psi", "full_us"), [PSI_CGROUP] = PSI_NAMES("cg", "full_us"),
};

const char *const field_disk_suffix[DF_N] = {
	[DF_RD_IOS] = "rd_ios", [DF_RD_SECTORS] = "rd_sectors", [DF_RD_TICKS] = "rd_ticks",
	[DF_WR_IOS] = "wr_ios", [DF_WR_SECTORS] = "wr_sectors", [DF_IN_FLIGHT] = "in_flight",
	[DF_IO_TICKS] = "io_ticks",
};

#define VM_FIELDS(X)                                                                     \
	X(VM_PGMAJFAULT, "pgmajfault") X(VM_PSWPIN, "pswpin") X(VM_PSWPOUT, "pswpout")    \
	X(VM_PGSCAN_DIRECT, "pgscan_direct") X(VM_PGSTEAL_DIRECT, "pgsteal_direct")       \
	X(VM_ALLOCSTALL_NORMAL, "allocstall_normal")                                      \
	X(VM_ALLOCSTALL_MOVABLE, "allocstall_movable")                                    \
	X(VM_ALLOCSTALL_DMA32, "allocstall_dma32") X(VM_COMPACT_STALL, "compact_stall")   \
	X(VM_PGSCAN_KSWAPD, "pgscan_kswapd") X(VM_PGSTEAL_KSWAPD, "pgsteal_kswapd")       \
	X(VM_REFAULT_FILE, "workingset_refault_file")                                     \
	X(VM_REFAULT_ANON, "workingset_refault_anon") X(VM_OOM_KILL, "oom_kill")

#define VM_KEY(e, n) [e] = n,
#define VM_NAME(e, n) [e] = FIELD_VM_PREFIX n,
const char *const field_vm_key[VM_N] = { VM_FIELDS(VM_KEY) };
const char *const field_vm[VM_N] = { VM_FIELDS(VM_NAME) };

const char *const field_sys[SYS_N] = {
	[SYS_USER] = "sys.user_ns", [SYS_SYSTEM] = "sys.system_ns", [SYS_IDLE] = "sys.idle_ns",
	[SYS_IOWAIT] = "sys.iowait_ns", [SYS_STEAL] = "sys.steal_ns",
};

const char *const field_other_prefix[OTHER_N] = {
	[OTHER_SRV] = "srv", [OTHER_KSWAPD] = "kswapd", [OTHER_KCOMPACTD] = "kcompactd",
};
