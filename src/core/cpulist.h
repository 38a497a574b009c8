/* SPDX-License-Identifier: MIT */
/*
 * cpulist.h: a set of CPU numbers and its text form, the kernel's "cpulist"
 * ("0-3,5", as in /sys/devices/system/cpu/online and taskset -c).
 *
 * A set is a fixed bitmap of CPULIST_MAX bits: no allocation, copied by
 * assignment. The parser is pure: it takes a buffer, accepts trailing
 * whitespace (sysfs files end in a newline) and says in ERR where the text
 * went wrong and what it expected.
 */
#ifndef SS_CORE_CPULIST_H
#define SS_CORE_CPULIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/strbuf.h"

#define CPULIST_MAX 4096	/* CPUs 0..CPULIST_MAX-1 */

struct cpulist {
	uint64_t bits[CPULIST_MAX / 64];
};

/* Empties L. */
void cpulist_clear(struct cpulist *l);
/* Adds CPU to L; returns 0, or -ERANGE when CPU is outside 0..CPULIST_MAX-1. */
int cpulist_set(struct cpulist *l, int cpu);
/* Whether CPU is in L (false for any CPU out of range). */
bool cpulist_has(const struct cpulist *l, int cpu);
/* How many CPUs L holds. */
int cpulist_count(const struct cpulist *l);
/* The smallest CPU in L that is >= FROM, or -1 when there is none. Loop:
 * for (c = cpulist_next(l, 0); c >= 0; c = cpulist_next(l, c + 1)) */
int cpulist_next(const struct cpulist *l, int from);

/*
 * Parses a cpulist from BUF (LEN bytes, need not be NUL-terminated): comma
 * separated CPU numbers and ranges "A-B" (A <= B). Surrounding whitespace is
 * allowed; an empty list is not. Returns 0 and writes *ret, or -EINVAL with
 * a message in ERR ("position 3: expected a CPU number, got 'x'"), *ret
 * untouched. ERR may be NULL.
 */
int cpulist_parse(const char *buf, size_t len, struct cpulist *ret, struct strbuf *err);

/* Appends L in its shortest text form ("0-3,5"; "" when empty) to SB.
 * Returns 0 or -ENOMEM. */
int cpulist_format(const struct cpulist *l, struct strbuf *sb);

#endif
