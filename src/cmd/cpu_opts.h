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

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "core/cpulist.h"
#include "opts.h"

struct cpu_opts {
	double interval_ms;	/* -i; 0: not given */
	double duration_s;	/* -t; 0: until SIGINT/SIGTERM */
	int prio;		/* -p: SCHED_FIFO 1..99, 0: SCHED_OTHER */
	const char *cpus;	/* --cpus as given, or NULL: every online CPU */
	bool json;
	const char *zero_t;	/* why -t 0 is refused (a run of 0 s is no use) */
};

#define CPU_OPTS_N 6	/* entries of the table, its OPT_END included */

/*
 * The options' table (opts.h) into T, pointing at O, for a command to join
 * with OPT_CONCAT: -i (INTERVAL_HELP), -t, -p (PRIO_HELP), --cpus (CPUS_HELP),
 * --json (JSON_HELP); -t 0 is refused with O->zero_t.
 */
void cpu_opts_table(struct opt t[CPU_OPTS_N], struct cpu_opts *o, const char *interval_help,
		    const char *prio_help, const char *cpus_help, const char *json_help);

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
