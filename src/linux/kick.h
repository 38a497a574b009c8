/* SPDX-License-Identifier: MIT */
/*
 * kick.h: the stopgap against lost timer interrupts, as an engine that runs
 * beside anything (the `kick` command, and `record --kick MS`).
 *
 * Mode KICK_KICK: a waiter thread pinned on each chosen CPU blocks on a
 * futex; a kicker thread, pinned to an allowed CPU outside the set when there
 * is one (else left to float), sleeps to absolute CLOCK_MONOTONIC deadlines
 * every interval and wakes every waiter. Waking a thread on another CPU is
 * an inter-processor interrupt, so each chosen CPU leaves its idle state
 * once a period whatever its own timer does; a CPU that would have slept
 * through its timer wakes, runs its expired timers and carries on.
 *
 * Mode KICK_SLEEP: one unpinned thread that only sleeps to absolute
 * deadlines every interval (its timer, armed on whatever CPU it last ran
 * on, is the whole effect). Kept to compare against KICK_KICK.
 *
 * The threads take no signals and never print. kick_stop() says what they
 * did and what they cost, from their own CPU-time clocks.
 */
#ifndef SS_LINUX_KICK_H
#define SS_LINUX_KICK_H

#include <stdbool.h>
#include <stdint.h>

#include "core/cpulist.h"
#include "core/hdrhist.h"
#include "core/strbuf.h"

enum kick_mode {
	KICK_KICK = 0,
	KICK_SLEEP = 1,
};

struct kick_opts {
	enum kick_mode mode;
	struct cpulist cpus;	/* KICK_KICK: a waiter on each (online, allowed) */
	uint64_t interval_ns;	/* > 0 */
	int prio;		/* SCHED_FIFO priority 1..99 of every thread, 0: SCHED_OTHER */
};

struct kick_result {
	uint64_t periods;	/* deadlines the kicker (or sleeper) woke for */
	uint64_t missed;	/* deadlines it skipped, being late past them */
	uint64_t wakeups;	/* wake-ups the waiters saw (KICK_KICK) */
	uint64_t cpu_ns;	/* CPU time of all its threads */
	uint64_t wall_ns;	/* from start to stop */
	int kicker_cpu;		/* the CPU the kicker was pinned to, -1 if floating */
	bool fifo;		/* every thread got SCHED_FIFO at opts.prio */
	int fifo_err;		/* when not (and asked): a negative errno */
	struct hdrhist late;	/* the kicker's own wake-up lateness */
};

struct kick;

/* Starts the threads; returns 0 and *ret (free with kick_free), or a
 * negative errno with ERR saying why, no thread left running. */
int kick_start(const struct kick_opts *o, struct kick **ret, struct strbuf *err);

/* Stops and joins the threads and writes what they did into *ret. Returns
 * 0; a second call returns the same result. */
int kick_stop(struct kick *k, struct kick_result *ret);

/* Stops it if it runs, frees it; NULL-safe. */
void kick_free(struct kick *k);

#endif
