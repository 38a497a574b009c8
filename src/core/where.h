/* SPDX-License-Identifier: MIT */
/*
 * where.h: the code behind a stall: the user stacks that the recorder
 * unwound inside it (the record's USTACK records, or the "ustack" events of
 * a record before 2.3; docs/FORMAT.md, docs/WHERE.md), summed over the
 * stall: the frame thread's, the second sampled thread's, and the one at
 * the switch-out of an exact interval. Pure: the names of a 2.3 record's
 * user frames are the analysis's (rec->uframe_names, filled by
 * src/run/symbols.h before).
 */
#ifndef SS_CORE_WHERE_H
#define SS_CORE_WHERE_H

#include <stddef.h>
#include <stdint.h>

#include "core/record.h"
#include "core/strbuf.h"

/* Whose stacks (enum rec_uset_kind: a 2.3 record's USTACK windows). A
 * record before 2.3 held the frame thread's as text events of kind
 * WHERE_EVENT_STALL ("ustack"); where_kind reads both. */
#define WHERE_KIND_STALL REC_USET_STALL
#define WHERE_KIND_THREAD2 REC_USET_THREAD2
#define WHERE_KIND_INTERVAL REC_USET_INTERVAL
#define WHERE_EVENT_STALL "ustack"

struct where_stack {
	uint64_t n;		/* samples */
	size_t nframes;
	char **frames;		/* user frames, innermost first */
	size_t nkframes;
	char **kframes;		/* kernel frames (the text's "k:" ones), innermost first */
};

/* Samples by the file of their innermost user frame (perf report's
 * --sort dso): "libLLVM-15.so.1", "[jit]", "[unknown]"; a frame the
 * recorder named (a deleted file, the vDSO) counts as "[named]". Records
 * before 2.3 have no files (their frames are text). */
struct where_file {
	char *name;		/* the file's base name */
	uint64_t n;		/* samples */
};

struct where {
	uint32_t tid;		/* the thread of the first event summed; 0: none */
	size_t nfiles;		/* most samples first */
	struct where_file *files;
	uint64_t total;		/* samples in the stall */
	size_t n;		/* distinct stacks, most samples first */
	struct where_stack *st;	/* room for n, doubled by where.c when n reaches a
				 * power of two */
};

/* The stacks of R stamped in [A_NS, B_NS] (USTACK windows and ustack
 * events) into *W (which where_free frees). 0 (W->total 0: none
 * recorded), or -ENOMEM. */
int where_stall(const struct rec *r, uint64_t a_ns, uint64_t b_ns, struct where *w);
/* As where_stall, for R's windows of KIND (WHERE_KIND_*) stamped in [A_NS,
 * B_NS] on thread TID (0: any). */
int where_kind(const struct rec *r, int kind, uint64_t a_ns, uint64_t b_ns, uint32_t tid,
	       struct where *w);
/* The user stack at exact interval IV's switch-out (its WHERE_KIND_INTERVAL
 * window: stamped at IV's out_ns on IV's tid), as where_stall gives a
 * stall's. */
int where_interval(const struct rec *r, const struct rec_interval *iv, struct where *w);
void where_free(struct where *w);	/* NULL-safe; W stays valid and empty */

/* "45 % libLLVM-15.so.1, 30 % swrast_dri.so, ...": W's files (MAX of
 * them, 0: all) with their share of W's samples; nothing when W has none. */
void where_files_line(struct strbuf *sb, const struct where *w, size_t max);

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
/* Frame ID of R (rec->uframes) as shown: its name, "[jit]" or "[unknown]";
 * never NULL, owned by R. */
const char *where_uframe_name(const struct rec *r, uint32_t id);
/* Whether R holds any stacks (USTACK windows or ustack events). */
int where_any(const struct rec *r);

#endif
