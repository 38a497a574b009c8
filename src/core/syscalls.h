/* SPDX-License-Identifier: MIT */
/*
 * syscalls.h: the system calls stallscope knows by number, in one table:
 * each one's name, what it means to the causes (docs/CAUSES.md: a file
 * read, a sync, a futex, ...) and whether its first argument is a file
 * descriptor (the sampler then reads what the fd is), for x86_64 and
 * aarch64. The sampler (src/linux) and the causes (src/core) both use it.
 *
 * Numbers are from the kernel's uapi headers (asm/unistd_64.h for x86_64,
 * asm-generic/unistd.h for aarch64); -1 where the architecture has no such
 * call. Pure.
 */
#ifndef SS_CORE_SYSCALLS_H
#define SS_CORE_SYSCALLS_H

#include <stdbool.h>
#include <stddef.h>

/* What a syscall means to the causes' rules. */
enum syscall_class {
	SYSC_OTHER,
	SYSC_READ,	/* file read */
	SYSC_WRITE,	/* file write */
	SYSC_META,	/* open, stat, directory, close */
	SYSC_SYNC,	/* fsync and friends */
	SYSC_IOCTL,
	SYSC_FUTEX,
	SYSC_POLL,
	SYSC_RECV,	/* socket receive */
	SYSC_SLEEP,
};

struct syscall_info {
	int x86_64, aarch64;	/* the numbers; -1: no such call */
	const char *name;
	enum syscall_class cls;
	bool takes_fd;		/* the first argument is a file descriptor */
};

/* The system call numbering a record's numbers are in. */
enum syscall_abi {
	SYSCALL_ABI_X86_64,
	SYSCALL_ABI_AARCH64,
};

/* The ABI a record's meta syscall_abi or arch names ("x86_64", "aarch64"
 * or "arm64"; anything else, or NULL: x86_64's). */
enum syscall_abi syscall_abi_of(const char *abi);

/* Syscall NR in ABI's numbering, or NULL when this table does not know it
 * (NR < 0 included). */
const struct syscall_info *syscall_lookup(enum syscall_abi abi, long nr);

/* The table's entries, for listing and checking it: I < syscall_count(). */
size_t syscall_count(void);
const struct syscall_info *syscall_at(size_t i);

/* The build's own ABI, for numbers read from this machine's kernel. */
#if defined(__aarch64__)
#define SYSCALL_ABI_NATIVE SYSCALL_ABI_AARCH64
#else
#define SYSCALL_ABI_NATIVE SYSCALL_ABI_X86_64
#endif

/* NR of SC in ABI's numbering (-1: none there). */
static inline int syscall_nr(const struct syscall_info *sc, enum syscall_abi abi)
{
	return abi == SYSCALL_ABI_AARCH64 ? sc->aarch64 : sc->x86_64;
}

#endif
