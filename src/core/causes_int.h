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
#include "core/exact_abi.h"
#include "core/fields.h"
#include "core/syscalls.h"

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

/* Exact deltas per sample: run, runq, each class, reclaim. */
enum { XD_RUN, XD_RUNQ, XD_CLASS, XD_RECLAIM = XD_CLASS + X_NCLASS, XD_N };
struct causes_xd {
	uint32_t tid;		/* the frame thread's, or 0: no deltas for this period */
	uint32_t ns[XD_N];	/* ns in the period ending at this sample */
};

struct causes {
	const struct rec *r;
	enum syscall_abi abi;
	/* field indices, -1 when absent */
	int ft_tid, ft_state, ft_wchan, ft_syscall, ft_fd_target, ft_majflt, ft_minflt;
	int ft_run, ft_wait, ft_slices, proc_majflt, proc_minflt, cg_mem_some, psi_mem_some;
	int vm[VM_N];
	size_t ndisks;
	struct disk *disks;
	uint8_t *sub;	/* per sample */
	/* exact mode (causes_exact.c): the ftx.* fields, each sample's period's
	 * counter deltas (xd, XD_N a sample) and whose they are (xtid; 0: the
	 * period has none, e.g. the frame thread changed), and the frame
	 * thread's intervals by switch-out */
	bool exact;
	int ftx[EF_N];
	struct causes_xd *xd;
	size_t xcap;
	const struct rec_interval **xiv;
	size_t nxiv;
	uint64_t xiv_max;	/* the longest interval's length */
	uint64_t xslack;	/* meta exact.wake_slack_ns */
	bool xreclaim;		/* the four reclaim hooks counted (meta exact.hooks) */
	/* streaming (causes_stream_new): r->vals is a ring of mask + 1 rows;
	 * SIZE_MAX: every row. done: samples classified; cap: sub's room. */
	size_t mask, done, cap;
};

/* causes.c: the io sub-cause of sample I when the thread is in D in a file
 * system call, else SUB_N */
enum cause_sub causes_io_sub(const struct causes *c, size_t i);

/* causes_split.c */
size_t causes_first_after(const struct causes *c, uint64_t t);
/* The snapshot split (every sample's rule), for records without exact data
 * and the parts of a span the exact counters do not cover. */
void causes_split_samples(const struct causes *c, uint64_t a, uint64_t b, struct cause_split *acc);

/* causes_exact.c */
int causes_exact_init(struct causes *c);
void causes_exact_free(struct causes *c);
/* Takes sample I's period deltas (rows I - 1 and I must be readable). */
int causes_exact_take(struct causes *c, size_t i);
void causes_exact_split(const struct causes *c, uint64_t a, uint64_t b, struct cause_split *acc);

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
