/* SPDX-License-Identifier: MIT */
/*
 * sysstate.h: the few looks at the whole machine `bench` takes between runs:
 * how busy the CPUs and the disks are (for its quiet step), dropping the
 * page cache (root), the path of the running binary (bench runs `record` as
 * a child of the same binary) and the host's name.
 *
 * Sources: /proc/stat's "cpu" line (busy and idle ticks), /proc/vmstat's
 * pgpgin/pgpgout (KiB read from and written to block devices),
 * /proc/loadavg, /proc/sys/vm/drop_caches, /proc/self/exe. Errors are
 * negative errnos; nothing prints.
 */
#ifndef SS_LINUX_SYSSTATE_H
#define SS_LINUX_SYSSTATE_H

#include <stddef.h>
#include <stdint.h>

/* Cumulative counters at one instant; compare two with sysstate_busy. */
struct sysstate_sample {
	uint64_t busy_ticks;	/* user+nice+system+irq+softirq+steal, all CPUs */
	uint64_t all_ticks;	/* busy + idle + iowait */
	uint64_t io_kib;	/* pgpgin + pgpgout: KiB moved to and from block devices */
	double load1;		/* the 1-minute load average */
};

/* Reads the counters now. Returns 0 or a negative errno (unreadable /proc). */
int sysstate_sample(struct sysstate_sample *ret);

/* Between A and B taken SECONDS apart: the CPUs' busy share in percent of
 * all CPUs, and disk I/O in MiB/s. */
void sysstate_busy(const struct sysstate_sample *a, const struct sysstate_sample *b,
		   double seconds, double *ret_cpu_pct, double *ret_io_mibs);

/* sync(), then drops the page cache, dentries and inodes (writes 3 to
 * /proc/sys/vm/drop_caches). Returns 0, or -EACCES/-EPERM when not root. */
int sysstate_drop_caches(void);

/* The running binary's path (/proc/self/exe) into BUF; 0 or a negative errno. */
int sysstate_self_exe(char *buf, size_t size);

#endif
