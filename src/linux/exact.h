/* SPDX-License-Identifier: MIT */
/*
 * exact.h: exact mode's loader. Loads the BPF program of
 * src/linux/bpf/exact.bpf.c (libbpf, CO-RE against the kernel's BTF),
 * attaches its hooks, maps its counter slots and its .bss, and drains its
 * ring of off-CPU intervals. core/exact_abi.h is the layout both sides
 * share; core/exact.h the arithmetic on it.
 *
 * Following a thread is a store into the mapped .bss (exact_set_target):
 * no system call, so the recorder can follow a new presenting thread from
 * its hot path. Reading a slot is a copy under its sequence count; draining
 * the ring reads shared memory (libbpf's ring_buffer__consume, no wake-ups:
 * the program submits with BPF_RB_NO_WAKEUP).
 *
 * Nothing here prints: libbpf's own messages are kept, and the last of them
 * goes into the reason when the load fails.
 */
#ifndef SS_LINUX_EXACT_H
#define SS_LINUX_EXACT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/exact_abi.h"
#include "core/strbuf.h"

struct exact;

/* Of the wait for a CPU after a wake-up, this much counts to the sleep
 * (core/exact_abi.h): the wake-up path's own latency, a few us on an idle
 * machine here; beyond it the thread was waiting for a CPU others held. */
#define EXACT_WAKE_SLACK_NS 50000

struct exact_opts {
	uint64_t min_interval_ns;	/* intervals this long go to the ring; 0: 500 us */
	bool no_stacks;			/* no kernel stacks in the intervals */
	bool raw_tp;			/* load the raw_tp flavour (tests; the fallback) */
};

/*
 * Whether exact mode can work here, without loading anything: built with
 * it, x86_64, kernel BTF present, kernel >= 5.8, and the capabilities (root,
 * or CAP_BPF and CAP_PERFMON). Returns 0, or a negative errno with the reason
 * in WHY ("no kernel BTF: /sys/kernel/btf/vmlinux is missing").
 */
int exact_check(struct strbuf *why);

/*
 * Loads and attaches the program. Returns 0 and *ret, or a negative errno
 * (-ENOTSUP: not built or not possible here; -EPERM: not permitted; or what
 * libbpf said) with a one-line reason in WHY.
 */
int exact_open(const struct exact_opts *o, struct exact **ret, struct strbuf *why);
void exact_close(struct exact *x);	/* NULL-safe: detaches and unloads */

/* Makes TID the target of SLOT (< EXACT_SLOTS; 0: none). A store into
 * shared memory; the slot's counters restart at the thread's next switch. */
void exact_set_target(struct exact *x, unsigned slot, uint32_t tid);

/* A consistent copy of SLOT's counters, with the open part added at NOW_NS
 * (CLOCK_MONOTONIC). 0; -EAGAIN (torn: every try raced a write); -ESRCH
 * when the slot does not hold its target yet (no switch of it seen). */
int exact_read(const struct exact *x, unsigned slot, uint64_t now_ns, struct exact_slot *ret);

/* Calls FN for each interval in the ring (oldest first) and returns how
 * many, or FN's negative return (which stops the drain). */
int exact_drain(struct exact *x, int (*fn)(void *ctx, const struct exact_interval *iv),
		void *ctx);

/* True when the interval ring holds nothing to drain (its producer and
 * consumer positions, read from a mapping of their pages, are equal): the
 * every-sample path skips exact_drain then (issue 31). False when it holds
 * records, or the positions are not mapped (drain). */
bool exact_ring_empty(const struct exact *x);

/* Intervals dropped (by a full ring, or failing exact_interval_check). */
uint64_t exact_dropped(const struct exact *x);

/* What was loaded: "tp_btf" or "raw_tp"; the hooks attached and those the
 * kernel lacks (space-separated tracepoint names; "" for none). */
const char *exact_flavour(const struct exact *x);
const char *exact_hooks(const struct exact *x);
const char *exact_missing(const struct exact *x);

/* The kernel function of ADDR ("filemap_fault"), or NULL when the symbols
 * are not readable or ADDR is in none. */
const char *exact_symbol(const struct exact *x, uint64_t addr);

/* The BPF programs' own run time so far, summed over the attached
 * programs, and their runs in *RUNS: counted only while
 * kernel.bpf_stats_enabled is 1 (else both stay 0); -1 on error. *MISSES
 * (when not NULL): the runs the kernel skipped because the program was
 * running on that CPU already (bpf_prog_info's recursion_misses, counted
 * always): a skipped sched_switch is a switch the slots never saw. */
int64_t exact_prog_ns(const struct exact *x, uint64_t *runs, uint64_t *misses);

#endif
