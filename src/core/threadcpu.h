/* SPDX-License-Identifier: MIT */
/*
 * threadcpu.h: where a run's CPU time went, per thread, over a window: from
 * the record's thread snapshots (every 10th sample: each thread's cumulative
 * CPU time and the CPU it last ran on), for `report --threads` ("client
 * 8.7 ms/frame (cpu5)").
 *
 * A thread's CPU time in the window is its last value in the window less its
 * value in the last snapshot at or before the window's start (or its first
 * value in the window when it was not there before; 0 when a snapshot in the
 * window showed the process without it, so it was born in the window). Its
 * CPU time that goes back between two snapshots is a new thread that took
 * the tid of one that exited: it started from 0, and the tid's CPU time is
 * both threads' (under the newer name). Its
 * main CPU is the CPU the snapshots saw it on, weighted by the CPU time it
 * used between each snapshot and the one before. Resolution: one snapshot
 * interval (100 ms at the default period) at each end of the window; busy %
 * is over the time from the base snapshot to the last one used.
 *
 * Pure; the result points into the record (names), so it lives no longer
 * than the record.
 */
#ifndef SS_CORE_THREADCPU_H
#define SS_CORE_THREADCPU_H

#include <stddef.h>
#include <stdint.h>

#include "core/record.h"

struct threadcpu {
	uint32_t tid;
	const char *name;	/* its comm, owned by the record */
	uint64_t cpu_ns;	/* CPU time in the window */
	double busy_pct;	/* cpu_ns over the time the snapshots span, % of one CPU */
	int32_t main_cpu;	/* the CPU it ran on most; -1 when it used no CPU time */
	double main_cpu_pct;	/* the share of its CPU time seen on main_cpu, % */
};

/*
 * Computes every thread's CPU time in the window (FROM_NS, TO_NS] on the
 * record's clock (CLOCK_MONOTONIC ns), busiest first (ties: lower tid).
 * Returns the number of threads (>= 0) and *ret (a new array the caller
 * frees; NULL when 0), -ENODATA when the record has fewer than two thread
 * snapshots covering the window, -EINVAL when TO_NS <= FROM_NS, or -ENOMEM.
 */
int threadcpu_compute(const struct rec *r, uint64_t from_ns, uint64_t to_ns,
		      struct threadcpu **ret);

/*
 * The same, one snapshot at a time, as a reader decodes them (report
 * --threads: the record streamed, rec/rec.h's on_threads), in the memory
 * of the threads rather than the snapshots': threadcpu_stream_new for the
 * window (FROM_NS, TO_NS] (0, -EINVAL when TO_NS <= FROM_NS, or -ENOMEM),
 * threadcpu_stream_feed with each snapshot in the record's order (it is
 * not kept; 0 or -ENOMEM), then threadcpu_stream_end with the record whose
 * strings name the threads: what threadcpu_compute returns for the
 * record's snapshots in that order, and *ret likewise. free takes NULL.
 */
struct threadcpu_stream;
int threadcpu_stream_new(uint64_t from_ns, uint64_t to_ns, struct threadcpu_stream **ret);
int threadcpu_stream_feed(struct threadcpu_stream *s, const struct rec_threads *ts);
int threadcpu_stream_end(struct threadcpu_stream *s, const struct rec *r, struct threadcpu **ret);
void threadcpu_stream_free(struct threadcpu_stream *s);

#endif
