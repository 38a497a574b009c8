/* SPDX-License-Identifier: MIT */
/*
 * probe.h: the timer wake-up probe, as an engine that runs beside anything
 * (the `probe` command, and `record --probe` beside a recording).
 *
 * One thread per chosen CPU, pinned there, SCHED_FIFO at a given priority
 * where the kernel allows it (else SCHED_OTHER, and the result says so),
 * sleeps to absolute CLOCK_MONOTONIC deadlines every interval, as cyclictest
 * does: it wakes, reads the clock, and the lateness is now - deadline. A
 * wake-up after the next deadline(s) skips them and counts them as missed, so
 * one long stall is one late wake-up, not a burst of catch-up ones.
 *
 * The threads never allocate, lock or print. Each keeps a latency histogram
 * (core/hdrhist.h) and queues every wake-up late by >= late_ns in a ring of
 * its own; probe_poll() hands the queued ones to the caller's callback in the
 * caller's thread, so the callback may block, write files and take locks. A
 * ring holds PROBE_RING wake-ups; one that fills between two polls drops
 * the newest and counts them (struct probe_cpu.dropped). With a late
 * threshold of 1 ms or more a CPU cannot queue more than 1000 a second, so
 * a poll every second never drops.
 *
 * Use: probe_start(), then probe_poll() now and then (every sample, or
 * every 100 ms), probe_stop() (joins the threads and polls a last time),
 * read the results (probe_ncpus, probe_cpu), probe_free().
 */
#ifndef SS_LINUX_PROBE_H
#define SS_LINUX_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/cpulist.h"
#include "core/hdrhist.h"
#include "core/strbuf.h"

#define PROBE_RING 1024		/* late wake-ups queued per CPU between polls */

/* One late wake-up. */
struct probe_late {
	uint64_t t_mono_ns;	/* CLOCK_MONOTONIC when it woke */
	uint64_t late_ns;	/* how late: wake time - deadline */
	int cpu;
};

/* Called by probe_poll()/probe_stop() in the caller's thread, once per late
 * wake-up, in order per CPU (not across CPUs). */
typedef void (*probe_late_fn)(void *ctx, const struct probe_late *w);

struct probe_opts {
	struct cpulist cpus;	/* one thread on each; must be online and allowed */
	uint64_t interval_ns;	/* the period between deadlines, > 0 */
	int prio;		/* SCHED_FIFO priority 1..99, or 0 for SCHED_OTHER */
	uint64_t late_ns;	/* queue wake-ups late by >= this (0: none) */
	bool lock_memory;	/* mlockall (see sched_lock_memory) */
	probe_late_fn on_late;	/* may be NULL */
	void *ctx;		/* passed to on_late */
};

/* What one CPU's thread measured; valid after probe_stop(). */
struct probe_cpu {
	int cpu;
	bool fifo;		/* got SCHED_FIFO at opts.prio */
	int fifo_err;		/* when not: the negative errno, 0 when not asked */
	uint64_t missed;	/* deadlines skipped because a wake-up came after them */
	uint64_t dropped;	/* late wake-ups lost to a full ring */
	uint64_t cpu_ns;	/* the thread's own CPU time */
	struct hdrhist hist;	/* the lateness of every wake-up */
};

struct probe;

/*
 * Starts a thread on every CPU of O->cpus and returns once each is pinned
 * and has its policy (so the caller can say which policy it got); the first
 * deadline is one interval after that. Returns 0 and *ret (free with
 * probe_free), or a negative errno with ERR saying why ("cpu 3: unable to
 * pin a thread there: Invalid argument"), no threads left running.
 */
int probe_start(const struct probe_opts *o, struct probe **ret, struct strbuf *err);

/* Hands the late wake-ups queued since the last poll to o->on_late; returns
 * how many. Call from one thread at a time. */
size_t probe_poll(struct probe *p);

/* A running summary for progress lines, readable while the probe runs:
 * wake-ups, the worst lateness so far and the wake-ups late by >= late_ns,
 * over all CPUs. */
void probe_progress(const struct probe *p, uint64_t *ret_wakeups, uint64_t *ret_max_ns,
		    uint64_t *ret_late);

/* Stops and joins the threads, then polls a last time. Returns 0; calling it
 * twice is harmless. */
int probe_stop(struct probe *p);

/* Whether mlockall succeeded: 0, a negative errno, or 1 when not asked. */
int probe_lock_result(const struct probe *p);

/* The results, one per CPU in increasing CPU order; valid after probe_stop. */
size_t probe_ncpus(const struct probe *p);
const struct probe_cpu *probe_cpu(const struct probe *p, size_t i);

/* The text of a late wake-up as the record's "late_wakeup" event holds it
 * (docs/FORMAT.md): "cpu=N late_us=M", M whole microseconds. Writes at most
 * SIZE bytes with the NUL; returns what snprintf returns. The event's time
 * is w->t_mono_ns (the wake-up); the CPU slept through [t - late, t]. */
int probe_late_text(const struct probe_late *w, char *buf, size_t size);

/* Stops the probe if it runs, frees it; NULL-safe. */
void probe_free(struct probe *p);

#endif
