/* SPDX-License-Identifier: MIT */
/*
 * sampler.h: one look at the kernel's state of a program and the system,
 * the recorder's sample (docs/FORMAT.md, "Sample fields").
 *
 * A sampler is opened once for a process (and its frame thread, changeable
 * later, plus an optional second thread "ft2"). It discovers what to watch
 * (the disks under the root file system, swap devices and zram, the display
 * server, kswapd0, kcompactd0, the program's cgroup pressure, its GPU), opens
 * every file once and re-reads it with pread at offset 0 into a fixed buffer.
 * Its fields (name + kind) are fixed when it is opened: a source that cannot
 * be read at all is not declared and a note says why; a field that cannot be
 * read in one sample keeps its previous value.
 *
 * Every sample fills one int64 per field. Strings (wchan, fd targets) are
 * interned through the caller's callback and stored as the id it returns.
 * Some sources are read only every `slow_every`-th sample (every thread's
 * CPU, /proc/stat, meminfo, DRM fdinfo); wchan, syscall and the fd target only
 * when the thread is not running; the kernel stack of a blocked frame thread
 * (root only) is handed back as an event. docs/FORMAT.md ("Sample fields")
 * lists every field with its unit, source and rate.
 *
 * A field's kind and a thread of a slow sample are the record's own types
 * (core/record.h: enum rec_kind, struct rec_thread), so the recorder writes
 * them as they come; this header includes nothing of src/rec.
 *
 * Not thread-safe: one sampler is driven by one thread. Nothing here prints.
 */
#ifndef SS_LINUX_SAMPLER_H
#define SS_LINUX_SAMPLER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/record.h"

struct sampler;
struct exact;

struct sampler_field {
	const char *name; /* "ft.state", "disk.vda.rd_ios", ...; owned by the sampler */
	enum rec_kind kind;
};

/* A key/value for the record's meta and run.ini ("disk.vda" = "root,swap",
 * "srv" = "Xorg 1234", "hz" = "100", ...). Owned by the sampler. */
struct sampler_meta {
	const char *key;
	const char *value;
};

/* Something that happened in one sample, for rec_writer_event. Valid until
 * the next sampler_sample or sampler_free. */
struct sampler_event {
	int32_t tid;	  /* the thread it concerns, or 0 */
	const char *kind; /* "stack" (text: the kernel stack, one frame a line) or "note" */
	const char *text;
};

struct sampler_opts {
	int pid;	     /* the program (required) */
	int ft_tid;	     /* the frame thread; 0: the main thread (pid) */
	int ft2_tid;	     /* a second sampled thread; 0: none (ft2.* read as 0) */
	const char *root;    /* prefix before every /proc and /sys path; NULL/"" = live system */
	unsigned slow_every; /* slow sources every this many samples; 0: 10 */
	uint64_t period_ns;  /* informational; rates count samples, stacks use t_ns */
	bool no_stacks;	     /* never read kernel stacks (they are read when root) */
	bool naive;	     /* benchmarks only: fopen/fread/fclose every file on every read,
			      * and no gating (as no_gate) */
	bool no_gate;	     /* benchmarks only: read the sources that cheap signals gate
			      * (vmstat, other processes' stat, a blocked thread's wchan and
			      * syscall, idle threads' stat) on every sample */
	bool profile;	     /* measure the time of each source (sampler_costs) */
	/* Exact mode (linux/exact.h, loaded by the caller, which keeps it):
	 * the sampled threads become its targets, their state, syscall, fd,
	 * faults and CPU time come from its counters instead of /proc (their
	 * task stat only at slow samples, for utime and stime; wchan is not
	 * read), their counters go into ftx.* and ft2x.*, and each sample
	 * drains its intervals (sampler_intervals). NULL: the snapshot
	 * sampler. */
	struct exact *exact;
	/* Interns S and returns its id (> 0; 0 for "" or on failure). Required. */
	uint32_t (*intern)(void *ctx, const char *s);
	void *intern_ctx;
};

/*
 * Opens a sampler for OPTS->pid: discovers the sources, opens their files and
 * declares the fields. Returns 0 and *ret (free with sampler_free), or
 * -ESRCH (no such process or thread), -EACCES (its /proc/PID/stat is not
 * readable), -EINVAL (no intern callback, pid <= 0), -ENOMEM.
 */
int sampler_new(const struct sampler_opts *opts, struct sampler **ret);

/* Closes every file and frees S (NULL-safe). */
void sampler_free(struct sampler *s);

/* The fields of a sample, in the order sampler_sample fills VALS; fixed for
 * the sampler's life. Returns their count and sets *ret (owned by S). */
size_t sampler_fields(const struct sampler *s, const struct sampler_field **ret);

/* Meta key/values (disk roles, display server, cgroup, HZ, ...); fixed after
 * sampler_new. Returns their count and sets *ret (owned by S). */
size_t sampler_meta(const struct sampler *s, const struct sampler_meta **ret);

/* What could not be read and why, for run.ini ("kernel stacks: not root",
 * "cgroup pressure: cgroup v1 (hybrid) hierarchy, no v2 group"). Notes found
 * while sampling are added too (each also comes out once as a "note" event).
 * Returns their count and sets *ret (owned by S, valid until the next call
 * into S). */
size_t sampler_notes(const struct sampler *s, const char *const **ret);

/*
 * Makes TID the frame thread (WHICH 0: ft.*) or the second thread (WHICH 1:
 * ft2.*; TID 0 stops sampling it). Takes effect from the next sample.
 * Returns 0, -ESRCH if TID is not a thread of the process, -EINVAL.
 */
int sampler_set_thread(struct sampler *s, unsigned which, int tid);

/*
 * Makes PID the sampled process (a launcher's child that presents, say)
 * and its thread TID the frame thread (0: its main thread); its main thread
 * becomes the second thread when TID is another. The system-wide sources
 * (disks, vmstat, PSI, the display server, the cgroup found at open) stay.
 * The process's counters (proc.minflt, proc.majflt, proc.cpu_ns, gpu.*)
 * continue from the old process's last values, so that a delta across the
 * change is what the new process did since. Returns 0, -ESRCH (no such
 * process, or TID is not its thread: the old process stays sampled),
 * -EINVAL, -ENOMEM.
 */
int sampler_set_process(struct sampler *s, int pid, int tid);

/*
 * Takes one sample at T_NS (CLOCK_MONOTONIC, the caller's stamp; used for
 * stack timing) into VALS, one value per field. Returns 0, or -ESRCH when
 * the process has gone (exited, or a zombie): VALS then holds what could be
 * read and the caller should end the run. A thread that is gone is not an
 * error: its state reads 'X' and a note event says so. When VALS is the
 * array the last sample filled and this one found nothing changed
 * (sampler_same), VALS is left as it was: it already holds the values.
 */
int sampler_sample(struct sampler *s, uint64_t t_ns, int64_t *vals);

/* Did the last sample find every value as the sample before it left them,
 * read nothing but what said so and touch neither VALS nor any event
 * (every sampled thread quiet: in exact mode its slot untouched, in the
 * snapshot sampler its schedstat unmoved, the program asleep;
 * docs/FORMAT.md, "Gates")? The caller may then write the sample as a
 * repeat (rec_writer_sample_same). */
bool sampler_same(const struct sampler *s);

/* The events of the last sample (stacks, notes). Returns their count and
 * sets *ret (owned by S, valid until the next sampler_sample). */
size_t sampler_events(const struct sampler *s, const struct sampler_event **ret);

/* Exact mode: the intervals that ended since the previous sample (their
 * strings interned). Returns their count and sets *ret (owned by S, valid
 * until the next sampler_sample). */
size_t sampler_intervals(const struct sampler *s, const struct rec_interval **ret);

/* Exact mode: intervals the sampler could not take (a full ring in the
 * kernel, or a slot read that kept racing the kernel's writes). */
struct sampler_exact_stats {
	uint64_t dropped;	/* the kernel's ring was full */
	uint64_t torn;		/* slot reads that raced every try */
	uint64_t unseen;	/* samples of a thread not switched since it was set */
	uint64_t missed;	/* switch-ins with no switch-out (both threads) */
	uint64_t missed_in;	/* switch-outs with no switch-in (both threads) */
	uint64_t intervals;	/* intervals taken */
};
void sampler_exact_stats(const struct sampler *s, struct sampler_exact_stats *ret);

/* The snapshot sampler's watch of sleeping threads' switch-ins
 * (sampler_switch.c). */
struct sampler_switch_stats {
	bool used;	    /* this sampler watches (the snapshot sampler, gated, live) */
	uint64_t opens;	    /* watches opened */
	uint64_t saved;	    /* schedstat reads they made unneeded */
	const char *off;    /* why it stopped watching ("": it did not); owned by S */
};
void sampler_switch_stats(const struct sampler *s, struct sampler_switch_stats *ret);

/* In a slow sample, every thread of the process; 0 in other samples.
 * Returns their count and sets *ret (owned by S, valid until the next
 * sampler_sample). */
size_t sampler_threads(const struct sampler *s, const struct rec_thread **ret);

/* With opts.profile: per source kind, reads done and their total ns. */
struct sampler_cost {
	const char *source; /* "task stat", "schedstat", "vmstat", ... */
	uint64_t reads;
	uint64_t ns;
	uint64_t skipped; /* reads a cheap signal saved (vmstat) */
	/* With no_gate (benchmarks), for wchan and syscall: reads a gate would
	 * have skipped, and those of them whose value had moved (the gate would
	 * have kept a stale one). */
	uint64_t would_skip;
	uint64_t missed;
};
/* Returns the number of source kinds and sets *ret (owned by S). */
size_t sampler_costs(const struct sampler *s, const struct sampler_cost **ret);

#endif
