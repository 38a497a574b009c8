// SPDX-License-Identifier: MIT
/* syscalls.c: the syscall table (syscalls.h). */
#include <stddef.h>
#include <string.h>

#include "core/syscalls.h"

static const struct syscall_info syscalls[] = {
	{ 0, 63, "read", SYSC_READ, true },
	{ 1, 64, "write", SYSC_WRITE, true },
	{ 2, -1, "open", SYSC_META, false },
	{ 3, 57, "close", SYSC_META, false },
	{ 4, -1, "stat", SYSC_META, false },
	{ 5, 80, "fstat", SYSC_META, true },
	{ 6, -1, "lstat", SYSC_META, false },
	{ 7, -1, "poll", SYSC_POLL, false },
	{ 9, 222, "mmap", SYSC_OTHER, false },
	{ 10, 226, "mprotect", SYSC_OTHER, false },
	{ 11, 215, "munmap", SYSC_OTHER, false },
	{ 16, 29, "ioctl", SYSC_IOCTL, true },
	{ 17, 67, "pread64", SYSC_READ, true },
	{ 18, 68, "pwrite64", SYSC_WRITE, true },
	{ 19, 65, "readv", SYSC_READ, true },
	{ 20, 66, "writev", SYSC_WRITE, true },
	{ 21, -1, "access", SYSC_META, false },
	{ 23, -1, "select", SYSC_POLL, false },
	{ 24, 124, "sched_yield", SYSC_OTHER, false },
	{ 26, 227, "msync", SYSC_SYNC, false },
	{ 28, 233, "madvise", SYSC_OTHER, false },
	{ 34, -1, "pause", SYSC_OTHER, false },
	{ 35, 101, "nanosleep", SYSC_SLEEP, false },
	{ 40, 71, "sendfile", SYSC_READ, true },
	{ 42, 203, "connect", SYSC_OTHER, true },
	{ 43, 202, "accept", SYSC_OTHER, true },
	{ 44, 206, "sendto", SYSC_OTHER, true },
	{ 45, 207, "recvfrom", SYSC_RECV, true },
	{ 46, 211, "sendmsg", SYSC_OTHER, true },
	{ 47, 212, "recvmsg", SYSC_RECV, true },
	{ 61, 260, "wait4", SYSC_OTHER, false },
	{ 72, 25, "fcntl", SYSC_OTHER, true },
	{ 73, 32, "flock", SYSC_OTHER, true },
	{ 74, 82, "fsync", SYSC_SYNC, true },
	{ 75, 83, "fdatasync", SYSC_SYNC, true },
	{ 76, 45, "truncate", SYSC_WRITE, false },
	{ 77, 46, "ftruncate", SYSC_WRITE, true },
	{ 78, -1, "getdents", SYSC_META, false },
	{ 82, -1, "rename", SYSC_META, false },
	{ 83, -1, "mkdir", SYSC_META, false },
	{ 87, -1, "unlink", SYSC_META, false },
	{ 89, -1, "readlink", SYSC_META, false },
	{ 128, 137, "rt_sigtimedwait", SYSC_OTHER, false },
	{ 130, 133, "rt_sigsuspend", SYSC_OTHER, false },
	{ 162, 81, "sync", SYSC_SYNC, false },
	{ 187, 213, "readahead", SYSC_OTHER, true },
	{ 202, 98, "futex", SYSC_FUTEX, false },
	{ 208, 4, "io_getevents", SYSC_READ, false },
	{ 217, 61, "getdents64", SYSC_META, true },
	{ 230, 115, "clock_nanosleep", SYSC_SLEEP, false },
	{ 232, -1, "epoll_wait", SYSC_POLL, true },
	{ 247, 95, "waitid", SYSC_OTHER, false },
	{ 257, 56, "openat", SYSC_META, false },
	{ 258, 34, "mkdirat", SYSC_META, false },
	{ 262, 79, "newfstatat", SYSC_META, false },
	{ 263, 35, "unlinkat", SYSC_META, false },
	{ 264, 38, "renameat", SYSC_META, false },
	{ 267, 78, "readlinkat", SYSC_META, false },
	{ 269, 48, "faccessat", SYSC_META, false },
	{ 270, 72, "pselect6", SYSC_POLL, false },
	{ 271, 73, "ppoll", SYSC_POLL, false },
	{ 275, 76, "splice", SYSC_READ, true },
	{ 277, 84, "sync_file_range", SYSC_SYNC, true },
	{ 281, 22, "epoll_pwait", SYSC_POLL, true },
	{ 285, 47, "fallocate", SYSC_WRITE, true },
	{ 288, 242, "accept4", SYSC_OTHER, true },
	{ 295, 69, "preadv", SYSC_READ, true },
	{ 296, 70, "pwritev", SYSC_WRITE, true },
	{ 299, 243, "recvmmsg", SYSC_RECV, true },
	{ 306, 267, "syncfs", SYSC_SYNC, false },
	{ 307, 269, "sendmmsg", SYSC_OTHER, true },
	{ 316, 276, "renameat2", SYSC_META, false },
	{ 326, 285, "copy_file_range", SYSC_READ, false },
	{ 327, 286, "preadv2", SYSC_READ, true },
	{ 328, 287, "pwritev2", SYSC_WRITE, true },
	{ 332, 291, "statx", SYSC_META, false },
	{ 426, 426, "io_uring_enter", SYSC_READ, true },
	{ 437, 437, "openat2", SYSC_META, false },
	{ 441, 441, "epoll_pwait2", SYSC_POLL, true },
	{ 449, 449, "futex_waitv", SYSC_FUTEX, false },
	{ 455, 455, "futex_wait", SYSC_FUTEX, false },
};

enum syscall_abi syscall_abi_of(const char *abi)
{
	return abi && (!strcmp(abi, "aarch64") || !strcmp(abi, "arm64")) ? SYSCALL_ABI_AARCH64
									  : SYSCALL_ABI_X86_64;
}

const struct syscall_info *syscall_lookup(enum syscall_abi abi, long nr)
{
	if (nr < 0)
		return NULL;
	for (size_t i = 0; i < sizeof(syscalls) / sizeof(syscalls[0]); i++)
		if (syscall_nr(&syscalls[i], abi) == nr)
			return &syscalls[i];
	return NULL;
}

size_t syscall_count(void)
{
	return sizeof(syscalls) / sizeof(syscalls[0]);
}

const struct syscall_info *syscall_at(size_t i)
{
	return i < syscall_count() ? &syscalls[i] : NULL;
}
