// SPDX-License-Identifier: MIT
/*
 * sched.c: CPU lists from sysfs, affinity, SCHED_FIFO, mlockall and clocks.
 * See sched.h. Assumes Linux >= 4.4 for MCL_ONFAULT (older kernels fall back
 * to a plain mlockall).
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "core/hot.h"
#include "linux/sched.h"

#ifndef MCL_ONFAULT
#define MCL_ONFAULT 4
#endif

/* Reads a small file (a sysfs list) into BUF; returns its length or -errno. */
static ssize_t read_small(const char *path, char *buf, size_t size)
{
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	if (n < 0)
		n = -errno;
	close(fd);
	if (n >= 0)
		buf[n] = 0;
	return n;
}

static int read_list(const char *dir, const char *name, struct cpulist *ret, struct strbuf *err)
{
	char path[4096], buf[8192];
	struct strbuf why = STRBUF_INIT;
	ssize_t n;
	int r;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	n = read_small(path, buf, sizeof(buf));
	if (n < 0) {
		if (err)
			sb_addf(err, "'%s': %s", path, strerror((int)-n));
		return (int)n;
	}
	r = cpulist_parse(buf, (size_t)n, ret, &why);
	if (r < 0 && err)
		sb_addf(err, "'%s': %s", path, why.buf);
	sb_release(&why);
	return r;
}

int sched_cpus_read(const char *dir, struct cpulist *ret_online, struct cpulist *ret_possible,
		    struct strbuf *err)
{
	struct cpulist online, possible;
	char path[4096];
	int r;

	if (!dir)
		dir = SCHED_CPU_DIR;
	r = read_list(dir, "online", &online, err);
	if (r < 0)
		return r;
	snprintf(path, sizeof(path), "%s/possible", dir);
	if (access(path, F_OK) == 0) {
		r = read_list(dir, "possible", &possible, err);
		if (r < 0)
			return r;
	} else {
		possible = online;
	}
	*ret_online = online;
	*ret_possible = possible;
	return 0;
}

int sched_cpus_allowed(struct cpulist *ret)
{
	cpu_set_t *set;
	size_t size = CPU_ALLOC_SIZE(CPULIST_MAX);
	int cpu;

	set = CPU_ALLOC(CPULIST_MAX);
	if (!set)
		return -ENOMEM;
	if (sched_getaffinity(0, size, set) < 0) {
		int e = -errno;

		CPU_FREE(set);
		return e;
	}
	cpulist_clear(ret);
	for (cpu = 0; cpu < CPULIST_MAX; cpu++)
		if (CPU_ISSET_S(cpu, size, set))
			cpulist_set(ret, cpu);
	CPU_FREE(set);
	return 0;
}

int sched_cpus_choose(const char *dir, const struct cpulist *want, struct cpulist *ret,
		      struct strbuf *err)
{
	struct cpulist online, possible, allowed, out;
	struct strbuf list = STRBUF_INIT;
	int cpu, r;

	r = sched_cpus_read(dir, &online, &possible, err);
	if (r < 0)
		return r;
	r = sched_cpus_allowed(&allowed);
	if (r < 0) {
		sb_addf(err, "unable to read this process's CPU affinity: %s", strerror(-r));
		return r;
	}
	cpulist_clear(&out);
	if (!want) {
		for (cpu = cpulist_next(&online, 0); cpu >= 0; cpu = cpulist_next(&online, cpu + 1))
			if (cpulist_has(&allowed, cpu))
				cpulist_set(&out, cpu);
		if (cpulist_count(&out) == 0) {
			sb_adds(err, "no CPU is both online and allowed for this process");
			return -ENODEV;
		}
		*ret = out;
		return 0;
	}
	for (cpu = cpulist_next(want, 0); cpu >= 0; cpu = cpulist_next(want, cpu + 1)) {
		if (!cpulist_has(&possible, cpu)) {
			cpulist_format(&possible, &list);
			sb_addf(err, "cpu %d does not exist (cpus: %s)", cpu, list.buf);
		} else if (!cpulist_has(&online, cpu)) {
			cpulist_format(&online, &list);
			sb_addf(err, "cpu %d is offline (online: %s)", cpu, list.buf);
		} else if (!cpulist_has(&allowed, cpu)) {
			cpulist_format(&allowed, &list);
			sb_addf(err, "cpu %d is outside this process's affinity (allowed: %s)", cpu,
				list.buf);
		} else {
			continue;
		}
		sb_release(&list);
		return -ENODEV;
	}
	*ret = *want;
	return 0;
}

static int set_affinity(const struct cpulist *l)
{
	size_t size = CPU_ALLOC_SIZE(CPULIST_MAX);
	cpu_set_t *set = CPU_ALLOC(CPULIST_MAX);
	int cpu, r = 0;

	if (!set)
		return -ENOMEM;
	CPU_ZERO_S(size, set);
	for (cpu = cpulist_next(l, 0); cpu >= 0; cpu = cpulist_next(l, cpu + 1))
		CPU_SET_S(cpu, size, set);
	if (sched_setaffinity(0, size, set) < 0)
		r = -errno;
	CPU_FREE(set);
	return r;
}

int sched_pin_self(int cpu)
{
	struct cpulist l;

	cpulist_clear(&l);
	if (cpulist_set(&l, cpu) < 0)
		return -EINVAL;
	return set_affinity(&l);
}

int sched_unpin_self(const struct cpulist *allowed)
{
	return set_affinity(allowed);
}

int sched_fifo_self(int prio)
{
	struct sched_param sp = { .sched_priority = prio };

	/* what it forks runs at SCHED_OTHER: a program never inherits it */
	if (sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &sp) < 0)
		return -errno;
	return 0;
}

int sched_lock_memory(void)
{
	if (mlockall(MCL_CURRENT | MCL_FUTURE | MCL_ONFAULT) == 0)
		return 0;
	if (errno != EINVAL)
		return -errno;
	return mlockall(MCL_CURRENT | MCL_FUTURE) == 0 ? 0 : -errno;
}

static uint64_t ts_ns(const struct timespec *ts)
{
	return (uint64_t)ts->tv_sec * 1000000000u + (uint64_t)ts->tv_nsec;
}

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	if (clock_gettime(id, &ts) < 0)
		return 0;
	return ts_ns(&ts);
}

SS_HOT uint64_t sched_now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

void sched_clock_pair(struct rec_clock *ret)
{
	uint64_t best = UINT64_MAX;
	int i;

	for (i = 0; i < 3; i++) {
		uint64_t a = clock_ns(CLOCK_MONOTONIC);
		uint64_t r = clock_ns(CLOCK_REALTIME);
		uint64_t bt = clock_ns(CLOCK_BOOTTIME);
		uint64_t b = clock_ns(CLOCK_MONOTONIC);

		if (b - a < best) {
			best = b - a;
			ret->mono_ns = a + (b - a) / 2;
			ret->real_ns = r;
			ret->boot_ns = bt;
		}
	}
}

SS_HOT int sched_sleep_until(uint64_t t_ns)
{
	struct timespec ts = {
		.tv_sec = (time_t)(t_ns / 1000000000u),
		.tv_nsec = (long)(t_ns % 1000000000u),
	};

	return -clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

uint64_t sched_thread_cpu_ns(void)
{
	return clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

uint64_t sched_process_cpu_ns(void)
{
	return clock_ns(CLOCK_PROCESS_CPUTIME_ID);
}
