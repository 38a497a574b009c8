/* SPDX-License-Identifier: MIT */
/*
 * record.h: a run's record in memory: the data model that src/rec reads
 * into and the analysis (src/core) works on. Pure data and accessors; the
 * file format lives in src/rec (rec.h, docs/FORMAT.md).
 *
 * Field naming (what the recorder records; docs/FORMAT.md lists them all):
 * "<scope>.<name>", scope one of ft (the frame thread), ft2 (a second
 * sampled thread), proc, vm, disk.<dev>, psi, cg, sys, srv (display server),
 * kswapd, kcompactd, gpu. Counters hold the kernel's cumulative value; the
 * reader gives absolute values, never deltas.
 */
#ifndef SS_CORE_RECORD_H
#define SS_CORE_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum rec_kind {
	REC_INT = 1,	/* a signed 64-bit number: a counter or a gauge */
	REC_STR = 2,	/* an interned string's id; 0 means none */
};

struct rec_field {
	char *name;
	enum rec_kind kind;
};

struct rec_frame {
	uint64_t t_ns;		/* CLOCK_MONOTONIC of the present */
	uint32_t tid;		/* the presenting thread */
	uint32_t source;	/* enum ss_frame_source (stallscope-ring.h), or REC_SOURCE_HUD */
};

/* Frame sources: 1..4 and 6..8 as enum ss_frame_source, and a HUD file's
 * line (5). */
#define REC_SOURCE_HUD 5u
#define REC_SOURCE_MAX 8u

/* The source's name ("marker", "glx", "egl", "vk", "hud", "xshm", "xput",
 * "wlshm"), NULL for another
 * number. The names are run.ini's frames_<name> keys (docs/FORMAT.md). */
const char *rec_source_name(uint32_t source);

struct rec_thread {
	uint32_t tid;
	uint32_t name;		/* interned id of its comm */
	uint64_t cpu_ns;	/* cumulative CPU time (schedstat run time) */
	int32_t cpu;		/* the CPU it last ran on */
};

struct rec_threads {
	uint64_t t_ns;
	size_t n;
	struct rec_thread *th;
};

struct rec_clock {
	uint64_t mono_ns;
	uint64_t real_ns;	/* CLOCK_REALTIME at the same instant */
	uint64_t boot_ns;	/* CLOCK_BOOTTIME at the same instant; 0: not
				 * recorded (a record before 2.1) */
};

/* Events: anything that happens at an instant and is said in words. kind is
 * a short word ("note", "stack", "frame_thread", "late_wakeup", "pass", ...),
 * text its details; FORMAT.md lists the kinds and their text. */
struct rec_event {
	uint64_t t_ns;
	uint32_t tid;		/* the thread it concerns, or 0 */
	char *kind;
	char *text;
};

/* Exact mode: one off-CPU interval of a sampled thread, as the kernel saw
 * it (core/exact_abi.h's struct exact_interval, its strings interned).
 * Blocked from out_ns to wake_ns, waiting for a CPU from wake_ns to in_ns. */
struct rec_interval {
	uint64_t out_ns, wake_ns, in_ns;
	uint64_t arg0;		/* the syscall's first argument */
	uint32_t tid;
	uint32_t waker_tid;	/* 0: none seen */
	int32_t syscall;	/* -1: not in a syscall */
	uint8_t cls;		/* enum exact_class (core/exact_abi.h) */
	uint8_t state;		/* 'R' preempted, 'S', 'D' */
	uint8_t flags;		/* XF_* */
	uint32_t fd_target;	/* interned: what the fd (arg0) was; 0: none */
	uint32_t waker_comm;	/* interned */
	uint32_t stack;		/* interned: kernel functions, innermost first, one a line */
};

/* A graphics API call of the recorded program that took 1 ms or more
 * (glLinkProgram, vkWaitForFences, ...), as the frame hook timed it. */
struct rec_apispan {
	uint64_t start_ns;	/* CLOCK_MONOTONIC when the call began */
	uint64_t dur_ns;
	uint32_t tid;		/* the calling thread */
	uint32_t name;		/* interned: the call's name ("glLinkProgram") */
};

/* Stacks (2.3, docs/FORMAT.md "Stacks", docs/WHERE.md): the recorder's
 * user and kernel stacks of a window (a stall), interned. A mapping is a
 * file by its path and build-id; a frame is a place in one (a file offset,
 * named at analysis time) or a name the recorder gave it; a stack is a list
 * of frames, innermost first, the kernel's before the user's. Ids index
 * the arrays (id 0 is unused); an id defined only in a damaged block is a
 * hole: a mapping with a NULL path, a frame of kind REC_UF_NONE, a stack of
 * no frames. */
#define REC_BUILD_ID_MAX 64	/* bytes of a build-id (GNU's are 20) */
#define REC_USTACK_MAX 256	/* frames of a stack */

struct rec_umap {
	char *path;		/* as /proc/PID/maps named it; NULL: a hole */
	uint8_t build_id_len;	/* 1..REC_BUILD_ID_MAX */
	uint8_t build_id[REC_BUILD_ID_MAX];
};

enum rec_uframe_kind {
	REC_UF_NONE = 0,	/* a hole */
	REC_UF_ADDR = 1,	/* in mapping ref, at file offset off */
	REC_UF_NAMED = 2,	/* a user frame the recorder named: string id ref */
	REC_UF_KERNEL = 3,	/* a kernel frame (kallsyms, at record time): string ref */
	REC_UF_UNKNOWN = 4,	/* a PC in no mapping */
	REC_UF_JIT = 5,		/* a PC in an anonymous executable mapping */
};

struct rec_uframe {
	uint64_t off;		/* REC_UF_ADDR: the offset in the mapping's file */
	uint32_t ref;		/* REC_UF_ADDR: mapping id; NAMED, KERNEL: string id */
	uint8_t kind;		/* enum rec_uframe_kind */
};

struct rec_ustack {
	uint32_t n;		/* frames; 0: a hole */
	uint32_t *frames;	/* frame ids, innermost first */
};

/* Whose stacks a window holds (docs/FORMAT.md, "Stacks"). */
enum rec_uset_kind {
	REC_USET_STALL = 0,	/* the frame thread's in a stall, stamped at its start */
	REC_USET_THREAD2 = 1,	/* the second sampled thread's in a stall, the same */
	REC_USET_INTERVAL = 2,	/* an exact interval's switch-out: stamped at the
				 * interval's out_ns, on its thread */
	REC_USET_KINDS
};

/* One window's stacks (a stall's, stamped at its start): N distinct stacks
 * with the samples each had. */
struct rec_uset {
	uint64_t t_ns;
	uint32_t tid;		/* the sampled thread */
	uint8_t kind;		/* enum rec_uset_kind */
	uint32_t n;
	uint32_t *stack;	/* stack ids */
	uint64_t *count;	/* samples, >= 1 */
};

struct rec_meta {
	char *key;
	char *value;
};

/* Bytes the reader had to skip between whole blocks (a damaged block, and
 * what followed it up to the next key block): what was there is lost. The
 * stamps around it say which time it held: the latest decoded before it and
 * the first after it (0: none). */
struct rec_damage {
	uint64_t off, bytes;
	uint64_t t_before_ns, t_after_ns;
};

/* A record read into memory. Everything is owned by the struct and freed by
 * rec_free(). Samples are a row-major matrix: vals[i * nfields + f] is field
 * f of sample i, absolute (counters as the kernel's cumulative value); a
 * REC_STR field's value is an id for rec_str(). */
struct rec {
	uint32_t version_major, version_minor;
	size_t nmeta;
	struct rec_meta *meta;
	size_t nfields;
	struct rec_field *fields;
	size_t nsamples;
	size_t nsamples_read;	/* windows (rec/rec.h's rec_stream win): every
				 * sample decoded, kept or not; else 0 */
	uint64_t *t_ns;
	int64_t *vals;
	size_t nframes;
	struct rec_frame *frames;
	size_t nthreads;
	struct rec_threads *threads;
	size_t nclocks;
	struct rec_clock *clocks;
	size_t nevents;
	struct rec_event *events;
	size_t nintervals;	/* in file order (by in_ns) */
	struct rec_interval *intervals;
	size_t napispans;	/* in file order (by the end of the call) */
	struct rec_apispan *apispans;
	size_t numaps, nuframes, nustacks;	/* ids 0 .. n - 1 */
	struct rec_umap *umaps;
	struct rec_uframe *uframes;
	struct rec_ustack *ustacks;
	size_t nusets;		/* in file order */
	struct rec_uset *usets;
	/* The names of the REC_UF_ADDR frames, by frame id (nuframes of them),
	 * as the analysis found them in the mapped files (src/run/symbols.h);
	 * NULL until then, and a NULL entry: not named ("[unknown]"). */
	char **uframe_names;
	size_t nstrs;
	char **strs;		/* strs[0] is "" */
	uint64_t unknown_records;	/* records of types this reader skipped */
	uint64_t torn_bytes;	/* bytes at the end that did not form a whole block */
	uint64_t torn_off;	/* where they start in the file */
	uint64_t torn_t_ns;	/* the latest stamp decoded before them; 0: none */
	size_t ndamage;		/* damaged spans skipped, in file order */
	struct rec_damage *damage;
	uint64_t damaged_bytes;	/* their bytes together */
	bool complete;		/* the writer's end record was found */
};

void rec_free(struct rec *r);	/* NULL-safe */

/* The samples R's file holds: nsamples, or, read by windows, every one
 * decoded. */
static inline size_t rec_samples_in_file(const struct rec *r)
{
	return r->nsamples_read ? r->nsamples_read : r->nsamples;
}

/*
 * Counts R's torn tail as damage: a damage span from torn_off to the end of
 * the file (t_before_ns its torn_t_ns, t_after_ns 0: to the end), added to
 * damaged_bytes; torn_bytes becomes 0. For a record whose writer is known to
 * have finished (its run.ini says state=done): bytes at its end that do not
 * check out were damaged afterwards (a flipped bit, a copy cut short), not
 * cut short by a crash. Returns 1 when there was a tail, 0 when not,
 * -ENOMEM (R untouched).
 */
int rec_torn_to_damage(struct rec *r);

/* The value of meta KEY, or NULL. */
const char *rec_meta_get(const struct rec *r, const char *key);
/* The index of the field NAME, or -1. */
int rec_field_index(const struct rec *r, const char *name);
/* The interned string ID ("" for 0 or an unknown id). */
const char *rec_str(const struct rec *r, int64_t id);

#endif
