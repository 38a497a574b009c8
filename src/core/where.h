/* SPDX-License-Identifier: MIT */
/*
 * where.h: the code behind a stall: the user stacks that the recorder
 * unwound inside it (the record's stack events, docs/FORMAT.md,
 * docs/WHERE.md), summed over the stall: the frame thread's, the second
 * sampled thread's, and the one at the switch-out of an exact interval.
 */
#ifndef SS_CORE_WHERE_H
#define SS_CORE_WHERE_H

#include <stddef.h>
#include <stdint.h>

#include "core/record.h"
#include "core/strbuf.h"

/* The record's stack events, by kind (the event's tid is the thread's). */
#define WHERE_KIND_STALL "ustack"	/* the frame thread's in a stall, stamped
					 * at the stall's start */
#define WHERE_KIND_THREAD2 "ustack2"	/* the second sampled thread's in a stall,
					 * stamped the same */
#define WHERE_KIND_INTERVAL "ivstack"	/* an exact interval's switch-out,
					 * stamped at the interval's out_ns */

struct where_stack {
	uint64_t n;		/* samples */
	size_t nframes;
	char **frames;		/* user frames, innermost first */
	size_t nkframes;
	char **kframes;		/* kernel frames (the text's "k:" ones), innermost first */
};

struct where {
	uint32_t tid;		/* the thread of the first event summed; 0: none */
	uint64_t total;		/* samples in the stall */
	size_t n;		/* distinct stacks, most samples first */
	struct where_stack *st;
};

/* The stacks of R's ustack events stamped in [A_NS, B_NS] into *W (which
 * where_free frees). 0 (W->total 0: none recorded), or -ENOMEM. */
int where_stall(const struct rec *r, uint64_t a_ns, uint64_t b_ns, struct where *w);
/* As where_stall, for R's events of KIND (WHERE_KIND_*) stamped in [A_NS,
 * B_NS] on thread TID (0: any). */
int where_kind(const struct rec *r, const char *kind, uint64_t a_ns, uint64_t b_ns, uint32_t tid,
	       struct where *w);
/* The user stack at exact interval IV's switch-out (its ivstack event:
 * stamped at IV's out_ns on IV's tid), as where_stall gives a stall's. */
int where_interval(const struct rec *r, const struct rec_interval *iv, struct where *w);
void where_free(struct where *w);	/* NULL-safe; W stays valid and empty */

/* A frame as shown: its name without an ELF symbol version ("@@GLIBC_2.34"). */
void where_frame_name(struct strbuf *sb, const char *frame);
/* "74 % spin_until <- stall_cpu <- main": S's share of TOTAL and its first
 * DEPTH frames (0: all), "<- ..." when there are more. */
void where_line(struct strbuf *sb, const struct where_stack *s, uint64_t total, size_t depth);
/* "spin_until <- stall_cpu <- main": S's first DEPTH frames (0: all), "<-
 * ..." when there are more. */
void where_chain(struct strbuf *sb, const struct where_stack *s, size_t depth);
/* For showing: the kernel frames dropped, recursion (a frame twice in a row) once, every stack cut to
 * its first DEPTH frames (0: all) and "..." when cut, equal stacks merged,
 * most samples first. 0 or -ENOMEM. */
int where_merge(struct where *w, size_t depth);
/* Whether R holds any ustack event. */
int where_any(const struct rec *r);

#endif
