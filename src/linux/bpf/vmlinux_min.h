/* SPDX-License-Identifier: MIT */
/*
 * vmlinux_min.h: the few kernel types exact.bpf.c reads, declared for CO-RE.
 *
 * Each struct names only the members the program reads, with
 * preserve_access_index: clang records every access as "member X of struct
 * Y" and libbpf relocates it against the running kernel's BTF
 * (/sys/kernel/btf/vmlinux) at load, wherever the member is on that kernel.
 * So the object does not depend on the kernel of the machine that built it,
 * and the build needs no BTF (a 2.8 MB generated vmlinux.h would tie the
 * build to one kernel's layout for nothing). A member a kernel lacks fails
 * the load, which record reports as its reason to fall back. x86_64 only:
 * pt_regs is the architecture's.
 */
#ifndef SS_LINUX_BPF_VMLINUX_MIN_H
#define SS_LINUX_BPF_VMLINUX_MIN_H

typedef unsigned char __u8;
typedef unsigned short __u16;
typedef unsigned int __u32;
typedef int __s32;
typedef unsigned long long __u64;
typedef long long __s64;
typedef __u16 __be16;
typedef __u32 __be32;
typedef __u32 __wsum;
typedef _Bool bool;
#define true 1
#define false 0

enum bpf_map_type {
	BPF_MAP_TYPE_HASH = 1,
	BPF_MAP_TYPE_ARRAY = 2,
	BPF_MAP_TYPE_PERCPU_ARRAY = 6,
	BPF_MAP_TYPE_RINGBUF = 27,
};

enum {
	BPF_F_NO_PREALLOC = 1,
	BPF_F_MMAPABLE = 1024,
};

enum {
	BPF_RB_NO_WAKEUP = 1,
};

enum {
	BPF_ANY = 0,
	BPF_NOEXIST = 1,
};

#pragma clang attribute push(__attribute__((preserve_access_index)), apply_to = record)

struct pt_regs {
	unsigned long di;
	unsigned long ax;
	unsigned long orig_ax;
};

struct inode {
	__u32 i_rdev;
};

struct file {
	struct inode *f_inode;
};

struct fdtable {
	unsigned int max_fds;
	struct file **fd;
};

struct files_struct {
	struct fdtable *fdt;
};

struct sched_entity {
	unsigned long long sum_exec_runtime;
};

struct task_struct {
	unsigned int __state;
	unsigned int in_iowait : 1;
	unsigned int in_memstall : 1;
	int pid;
	int tgid;
	unsigned long min_flt;
	unsigned long maj_flt;
	char comm[16];
	struct files_struct *files;
	struct sched_entity se;
};

/* Before 5.14 the state was "long state". */
struct task_struct___old {
	long state;
};

struct request {
	unsigned int __data_len;
};

#pragma clang attribute pop

#endif
