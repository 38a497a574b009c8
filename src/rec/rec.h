/* SPDX-License-Identifier: MIT */
/*
 * rec.h: the record file (record.ssr): its writer and its reader.
 * docs/FORMAT.md is the byte-level contract; this header is the API.
 *
 * A record is self-describing. Its header names the run (meta key/values:
 * period, host, target, clock pair, ...) and every field a sample holds
 * (name and kind). A sample is one value per field, stamped with
 * CLOCK_MONOTONIC; the writer stores only what changed since the previous
 * sample, as small deltas, so a steady program costs a few bytes a sample.
 * Strings (wchan names, fd targets, stacks) are interned once and referred to
 * by id. Frames, clock pairs, thread snapshots and events are records of
 * their own. Records are typed and length-prefixed, so a reader skips a type
 * it does not know; the file is written in checksummed blocks, so a crash
 * loses at most the block being filled and the reader says how many bytes
 * were torn.
 *
 * Field naming (what the recorder records; FORMAT.md lists them all):
 * "<scope>.<name>", scope one of ft (the frame thread), ft2 (a second
 * sampled thread), proc, vm, disk.<dev>, psi, cg, sys, srv (display server),
 * kswapd, kcompactd. Counters hold the kernel's cumulative value; the reader
 * gives absolute values, never deltas.
 */
#ifndef SS_REC_REC_H
#define SS_REC_REC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/strbuf.h"

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
	uint32_t source;	/* enum ss_frame_source (stallscope-ring.h), or 5 = hud line */
};

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

struct rec_meta {
	char *key;
	char *value;
};

/* ---------------------------------------------------------------- reader */

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
	size_t nstrs;
	char **strs;		/* strs[0] is "" */
	uint64_t unknown_records;	/* records of types this reader skipped */
	uint64_t torn_bytes;	/* bytes at the end that did not form a whole block */
	bool complete;		/* the writer's end record was found */
};

/*
 * Parses a record from BUF (LEN bytes). On success returns 0 and *ret owns
 * the result; a torn tail is not an error (it is counted in torn_bytes). On a
 * file that is not a record, a newer major version, or a header that is
 * damaged, returns a negative errno (-EINVAL, -EPROTONOSUPPORT, -ENOMEM) and
 * puts a message into ERR ("offset 1234: expected ..."), *ret untouched.
 */
int rec_parse(const void *buf, size_t len, struct rec **ret, struct strbuf *err);
/* As rec_parse, reading the file at PATH; the message names the file. */
int rec_read_file(const char *path, struct rec **ret, struct strbuf *err);
void rec_free(struct rec *r);	/* NULL-safe */

/* The value of meta KEY, or NULL. */
const char *rec_meta_get(const struct rec *r, const char *key);
/* The index of the field NAME, or -1. */
int rec_field_index(const struct rec *r, const char *name);
/* The interned string ID ("" for 0 or an unknown id). */
const char *rec_str(const struct rec *r, int64_t id);

/* ---------------------------------------------------------------- writer */

struct rec_writer;

/* Creates PATH (truncating it) for writing; returns 0 or a negative errno. */
int rec_writer_new(const char *path, struct rec_writer **ret);
/* Before rec_writer_begin: adds a meta key/value, or declares a field and
 * returns its index (>= 0). */
int rec_writer_meta(struct rec_writer *w, const char *key, const char *value);
int rec_writer_field(struct rec_writer *w, const char *name, enum rec_kind kind);
/* Writes the header; fields and meta are fixed from here on. */
int rec_writer_begin(struct rec_writer *w);
/* The id of string S, interning it on first use (written with the next
 * block). Returns the id (> 0), or 0 for NULL/"" or on ENOMEM. */
uint32_t rec_writer_intern(struct rec_writer *w, const char *s);
/* One sample: VALS holds one value per declared field, in declaration order. */
int rec_writer_sample(struct rec_writer *w, uint64_t t_ns, const int64_t *vals);
int rec_writer_frame(struct rec_writer *w, const struct rec_frame *f);
int rec_writer_clock(struct rec_writer *w, const struct rec_clock *c);
int rec_writer_threads(struct rec_writer *w, uint64_t t_ns, const struct rec_thread *th,
		       size_t n);
int rec_writer_event(struct rec_writer *w, uint64_t t_ns, uint32_t tid, const char *kind,
		     const char *text);
/* Ends the block being filled and writes it (with its checksum) to the file;
 * the recorder calls it every second. Returns 0 or a negative errno. */
int rec_writer_flush(struct rec_writer *w);
/* Bytes written so far, counting the block being filled. */
uint64_t rec_writer_bytes(const struct rec_writer *w);
/* Writes the end record, flushes, closes the file and frees W (NULL-safe).
 * Returns 0 or the first error seen. */
int rec_writer_close(struct rec_writer *w);

#endif
