/* SPDX-License-Identifier: MIT */
/*
 * stacks.h: the user stacks of the sampled threads (the frame thread, and
 * the second sampled thread: its process's main thread when the frame
 * thread is another), sampled with perf_event_open (a cpu-clock event at HZ
 * and a context-switch event, each sample carrying the user registers and a
 * copy of the top of the user stack), kept raw for the last seconds in a
 * bounded ring per thread, and unwound (DWARF CFI, elfutils libdw) only for
 * the windows asked for: the stalls, and exact mode's intervals inside
 * them. docs/WHERE.md.
 */
#ifndef SS_LINUX_STACKS_H
#define SS_LINUX_STACKS_H

#include <stdint.h>

#include "core/record.h"
#include "core/strbuf.h"

#define STACKS_HZ_DEFAULT 1000
#define STACKS_THREADS 2	/* sampled threads: 0 the frame thread, 1 the second */

struct stacks;

/* Whether this build can sample stacks (it was built with libdw); when not,
 * WHY says so. */
int stacks_supported(struct strbuf *why);

/* A sampler of HZ samples a second (1..10000); as root it reads
 * /proc/kallsyms here, to name kernel frames (a few hundred ms: call it
 * before the program runs). 0 and *ret, or a negative
 * errno (-ENOTSUP: built without libdw) with the message in ERR. */
int stacks_new(int hz, struct stacks **ret, struct strbuf *err);
void stacks_free(struct stacks *s);	/* NULL-safe */

/* Samples thread TID of process PID in slot WHICH (0 the frame thread, 1
 * the second sampled thread; each its own events, kernel ring and raw
 * ring) from now on (TID 0: none); the samples of the slot's thread before
 * are dropped. 0; 1 when only user-mode CPU samples can be had (the reason
 * in ERR); or a negative errno with the reason in ERR (perf_event_paranoid,
 * no such thread, WHICH out of range). */
int stacks_set_thread(struct stacks *s, int which, int pid, int tid, struct strbuf *err);

/* Moves what the kernel has buffered into the raw rings (the oldest samples
 * fall out of them), every slot's. Call it often (every recorder period). */
void stacks_drain(struct stacks *s);

/*
 * A window's stacks (docs/WHERE.md, "Design"): a frame is a place in a
 * mapped file, named later from the file (kind REC_UF_ADDR: the file's path
 * and build-id in maps[map], the file offset in off), or one named now
 * (REC_UF_NAMED: a user frame whose file cannot be had later: deleted while
 * the program runs, the vDSO, a file without a build-id; REC_UF_KERNEL:
 * kallsyms), or REC_UF_JIT (anonymous executable memory), REC_UF_UNKNOWN
 * (in no mapping). Stacks are innermost first, the kernel's frames before
 * the user ones, most samples first.
 */
struct stacks_map {
	char *path;			/* as /proc/PID/maps names it */
	unsigned char build_id[64];
	size_t build_id_len;		/* 1..64 */
};
struct stacks_frame {
	uint8_t kind;			/* enum rec_uframe_kind (core/record.h) */
	uint32_t map;			/* REC_UF_ADDR: index in maps */
	uint64_t off;			/* REC_UF_ADDR: the offset in the file */
	const char *name;		/* REC_UF_NAMED, REC_UF_KERNEL */
};
struct stacks_stack {
	uint64_t n;			/* samples */
	size_t nframes;
	struct stacks_frame *frames;
};
struct stacks_out {
	size_t nmaps, n;
	const struct stacks_map *maps;
	const struct stacks_stack *st;
};

/* Unwinds the raw samples of slot WHICH stamped in [A_NS, B_NS]
 * (CLOCK_MONOTONIC) into *OUT, one entry per distinct stack; what OUT
 * points to is S's until the next call. Returns the samples unwound (0:
 * none in the window), or a negative errno. */
int stacks_window(struct stacks *s, int which, uint64_t a_ns, uint64_t b_ns,
		  struct stacks_out *out);

/* Counters for run.ini, over both slots: samples taken, lost (kernel ring
 * full), unwound, and windows unwound. */
struct stacks_stats {
	uint64_t samples, lost, unwound, windows;
};
void stacks_stats(const struct stacks *s, struct stacks_stats *st);

#endif
