/* SPDX-License-Identifier: MIT */
/*
 * cpu_opts.h: what probe and kick share as commands: their common options
 * (-i MS, -t S, -p PRIO, --cpus LIST, --json, -h), the choice of CPUs, and
 * the run until -t has passed or SIGINT/SIGTERM comes.
 *
 * STALLSCOPE_CPU_DIR, when set, replaces /sys/devices/system/cpu as the
 * place the online/possible CPU lists are read from (tests fake an offline
 * CPU with it).
 */
#ifndef SS_CMD_CPU_OPTS_H
#define SS_CMD_CPU_OPTS_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "core/cpulist.h"

struct cpu_opts {
	double interval_ms;	/* -i; 0: not given */
	double duration_s;	/* -t; 0: until SIGINT/SIGTERM */
	long prio;		/* -p: SCHED_FIFO 1..99, 0: SCHED_OTHER */
	const char *cpus;	/* --cpus as given, or NULL: every online CPU */
	bool json;
	/* a command's own options: EXTRA (NEXTRA entries, values from
	 * CPU_OPT_EXTRA), each taken by ON_EXTRA(CTX, value, optarg): 0, or
	 * EXIT_USAGE after a usage error */
	const struct option *extra;
	size_t nextra;
	int (*on_extra)(void *ctx, int c, const char *arg);
	void *ctx;
};

#define CPU_OPT_EXTRA 0x2000

/*
 * Parses the options into O; -t 0 is refused with ZERO_T (why a run of 0 s
 * is no use). Returns 0, 1 after --help printed USAGE (the command returns
 * 0), or EXIT_USAGE after a usage error was printed.
 */
int cpu_opts_parse(int argc, char **argv, struct cpu_opts *o, const char *zero_t,
		   void (*usage)(FILE *f));

/* The CPUs of --cpus (or every online one), checked as sched_cpus_choose
 * does; 0, EXIT_USAGE (--cpus does not parse) or 1 (said). */
int cpu_opts_choose(const struct cpu_opts *o, struct cpulist *ret);

/*
 * Runs until -t has passed or SIGINT/SIGTERM comes (their handlers are ours
 * while it runs, then put back), calling TICK(CTX, T0, NOW) every TICK_NS
 * (NULL: nothing to do). T0 is when it started. Returns the wall time, ns.
 */
uint64_t cpu_opts_run(const struct cpu_opts *o, uint64_t tick_ns,
		      void (*tick)(void *ctx, uint64_t t0, uint64_t now), void *ctx);

#endif
