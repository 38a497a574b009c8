/* SPDX-License-Identifier: MIT */
/*
 * sched.h: what a measuring thread asks of the scheduler: which CPUs exist
 * and are online, pinning, SCHED_FIFO, locked memory, and the clocks
 * (CLOCK_MONOTONIC deadlines, a monotonic/realtime pair, CPU-time clocks).
 *
 * Functions act on the calling thread unless they say otherwise and return
 * 0 or a negative errno; none prints. CPU sets come from sysfs
 * (/sys/devices/system/cpu/{online,possible}) or from a directory given in
 * their place, so tests can fake an offline CPU.
 */
#ifndef SS_LINUX_SCHED_H
#define SS_LINUX_SCHED_H

#include <stdint.h>

#include "core/cpulist.h"
#include "core/record.h"
#include "core/strbuf.h"

/* The sysfs directory of the CPU lists. */
#define SCHED_CPU_DIR "/sys/devices/system/cpu"

/*
 * Reads DIR/online and DIR/possible (DIR NULL: SCHED_CPU_DIR) into
 * *ret_online and *ret_possible. A missing "possible" file reads as equal to
 * "online". Returns 0, or a negative errno with ERR naming the file and what
 * was wrong ("'/sys/.../online': position 1: expected a CPU number, got
 * 'x'"); nothing is written on failure.
 */
int sched_cpus_read(const char *dir, struct cpulist *ret_online, struct cpulist *ret_possible,
		    struct strbuf *err);

/* The CPUs this process may run on (its affinity: taskset, cpusets). */
int sched_cpus_allowed(struct cpulist *ret);

/*
 * The CPUs a measuring command should use: WANT (NULL: every CPU that is
 * online and allowed), each checked against DIR's lists (as in
 * sched_cpus_read) and this process's affinity. Returns 0 and *ret, or
 * -ENODEV with ERR saying which CPU and why ("cpu 7 does not exist (cpus:
 * 0-1)", "cpu 1 is offline (online: 0)", "cpu 1 is outside this process's
 * affinity (allowed: 0)"), or another negative errno from reading the lists.
 */
int sched_cpus_choose(const char *dir, const struct cpulist *want, struct cpulist *ret,
		      struct strbuf *err);

/* Pins the calling thread to CPU. -EINVAL when the CPU is not allowed or
 * offline. */
int sched_pin_self(int cpu);
/* Clears the calling thread's pinning to every CPU in ALLOWED. */
int sched_unpin_self(const struct cpulist *allowed);

/* Makes the calling thread SCHED_FIFO at PRIO (1..99), reset to SCHED_OTHER
 * in what it forks; -EPERM without the privilege (root, CAP_SYS_NICE or an
 * RLIMIT_RTPRIO that allows it). */
int sched_fifo_self(int prio);

/* mlockall for the whole process, current and future pages, locked as they
 * are touched (MCL_ONFAULT) so that large reservations (thread stacks,
 * sanitizer shadow) are not faulted in at once; callers touch what their
 * loop uses before it starts. -EPERM or -ENOMEM without the privilege. */
int sched_lock_memory(void);

/* CLOCK_MONOTONIC now, in ns. */
uint64_t sched_now_ns(void);
/* CLOCK_MONOTONIC and CLOCK_REALTIME read back to back (the pair taken in
 * the shorter of three tries, so the two are within a few hundred ns). */
void sched_clock_pair(struct rec_clock *ret);
/* Sleeps until CLOCK_MONOTONIC reaches T_NS (an absolute deadline, so a
 * loop of them does not drift). 0, or -EINTR when a signal woke it. */
int sched_sleep_until(uint64_t t_ns);
/* The calling thread's CPU time so far (user + system), in ns. */
uint64_t sched_thread_cpu_ns(void);
/* The whole process's CPU time so far, in ns. */
uint64_t sched_process_cpu_ns(void);

#endif
