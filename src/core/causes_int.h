/* SPDX-License-Identifier: MIT */
/*
 * causes_int.h: what causes.c (the rules, a cause for every sample) and
 * causes_split.c (spans of samples: splits, verdicts, evidence, report's
 * columns) share. Not for use outside src/core/causes*.c.
 */
#ifndef SS_CORE_CAUSES_INT_H
#define SS_CORE_CAUSES_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "core/causes.h"
#include "core/fields.h"

enum disk_role {
	ROLE_ROOT = 1,
	ROLE_SWAP = 2,
	ROLE_ZRAM = 4,
};

struct disk {
	const char *dev;	/* points into a field name */
	size_t dev_len;
	unsigned roles;
	int rd_ios, rd_sectors, in_flight;
};

struct causes {
	const struct rec *r;
	bool arm64;
	/* field indices, -1 when absent */
	int ft_tid, ft_state, ft_wchan, ft_syscall, ft_fd_target, ft_majflt, ft_minflt;
	int ft_run, ft_wait, proc_majflt, proc_minflt, cg_mem_some, psi_mem_some;
	int vm[VM_N];
	size_t ndisks;
	struct disk *disks;
	uint8_t *sub;	/* per sample */
	/* streaming (causes_stream_new): r->vals is a ring of mask + 1 rows;
	 * SIZE_MAX: every row. done: samples classified; cap: sub's room. */
	size_t mask, done, cap;
};

/* Field F of sample I (I counts from the record's first sample; the ring
 * of a streamed record holds the latest mask + 1). */
static inline int64_t causes_val(const struct causes *c, size_t i, int f)
{
	return c->r->vals[(i & c->mask) * c->r->nfields + (size_t)f];
}

static inline const char *causes_str_field(const struct causes *c, size_t i, int f)
{
	return f < 0 ? NULL : rec_str(c->r, causes_val(c, i, f));
}

static inline bool causes_has_prefix(const char *s, const char *p)
{
	return !strncmp(s, p, strlen(p));
}

#endif
