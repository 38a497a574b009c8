/* SPDX-License-Identifier: MIT */
/*
 * exact.h: exact mode's user-space arithmetic, pure: reading a counter slot
 * that the kernel may be writing (a sequence count), its open part, the
 * names of the classes, and what each class means to the causes.
 * src/linux/exact.h loads the program; core/causes.h splits a stall by
 * these counts (docs/CAUSES.md, "Exact time").
 */
#ifndef SS_CORE_EXACT_H
#define SS_CORE_EXACT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/exact_abi.h"
#include "core/fields.h"

/*
 * Copies the slot at SRC (shared memory the kernel writes) into *DST so that
 * the fields under its sequence count are from one moment: the count is
 * even and the same before and after the copy. Gives up after TRIES copies
 * that raced a write (the kernel's writes take tens of ns; a few tries is
 * plenty). Returns 0, or -EAGAIN (DST then holds a torn copy: do not use).
 * COPY copies the bytes (NULL: memcpy); tests pass one that writes in the
 * middle of a copy.
 */
int exact_slot_read(const volatile struct exact_slot *src, struct exact_slot *dst,
		    unsigned tries,
		    void (*copy)(void *ctx, struct exact_slot *dst,
				 const volatile struct exact_slot *src),
		    void *ctx);

/*
 * Adds the part of *S that is still open at NOW (record clock) to its
 * counters: the running time since its switch-in, or the blocked time of
 * its open interval (to its class up to its wake-up and SLACK_NS after it,
 * the rest of the wait for a CPU to runq_ns, as the kernel side counts).
 * A thread's counters then move continuously between its switches.
 */
void exact_slot_close_open(struct exact_slot *s, uint64_t now_ns, uint64_t slack_ns);

/*
 * Checks the ring record at P (LEN bytes, as the ring handed it) and copies
 * it into *IV: 0, or -EINVAL when it is too short, its times are out of
 * order, its class or state is unknown or it claims more stack frames than
 * it has (IV then untouched). The ring is the kernel's, but a reader checks
 * what it is given.
 */
int exact_interval_check(const void *p, size_t len, struct exact_interval *iv);

/* The interval's fields as a record keeps them (its strings left 0). */
struct rec_interval;
void exact_interval_to_rec(const struct exact_interval *iv, struct rec_interval *out);

/* The class's name in records and docs ("file_fault", "io_read", ...);
 * NULL for another number. */
const char *exact_class_name(unsigned cls);

/* A slot's counters as a record's sample fields hold them (core/fields.h:
 * enum exact_field, "ftx.run_ns", ...): OUT[EF_*] from *S. */
void exact_slot_fields(const struct exact_slot *s, int64_t *out);

#endif
