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

#include "core/record.h"
#include "core/strbuf.h"

/* ---------------------------------------------------------------- reader */

/* struct rec, the record in memory, and its accessors (rec_free,
 * rec_meta_get, rec_field_index, rec_str) are in core/record.h. */

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

/*
 * Streaming: for a reader that looks at each sample with a few around it
 * and needs no more (the causes of report's columns), so that a one-hour
 * record is read in tens of MB rather than its 193 MB sample matrix.
 * With ring_rows (a power of two), the result's vals holds only the last
 * ring_rows samples: sample i at row i & (ring_rows - 1); t_ns still holds
 * every stamp, nsamples counts every sample. on_header runs once the fields
 * are known (before the first sample); on_samples every ring_rows / 4
 * samples, with R as decoded so far (the last ring_rows rows valid). Either
 * returning a negative errno stops the read and is returned. skip_threads: thread
 * snapshots are not kept (nthreads 0).
 */
struct rec_stream {
	size_t ring_rows;
	bool skip_threads;
	int (*on_header)(void *ctx, const struct rec *r);
	int (*on_samples)(void *ctx, const struct rec *r);
	void *ctx;
	/*
	 * Windows (stalls' second pass: each stall's samples, not the matrix),
	 * ring_rows 0: WIN holds NWIN spans [a_ns, b_ns] of the record's clock,
	 * sorted by a_ns. Samples are kept only around them, a group of
	 * windows at a time: from REC_WIN_BACK samples before the first sample
	 * after a window's a_ns to REC_WIN_AHEAD samples after the first after
	 * its b_ns (windows whose samples overlap are one group). When a group
	 * is whole, on_window runs with R's samples (t_ns, vals, nsamples)
	 * that group's alone and its intervals those that may overlap them,
	 * for windows W0 .. W1 - 1; they are dropped after it. The memory is
	 * the group's, not the record's. skip_frames: frames decoded, not kept.
	 */
	const struct rec_window *win;
	size_t nwin;
	bool skip_frames;
	int (*on_window)(void *ctx, struct rec *r, size_t w0, size_t w1);
	/*
	 * skip_samples (with on_window, without on_sample: the analysis's read
	 * of the presents): a segment's samples (a key block and the blocks up
	 * to the next) are counted, not decoded, where no window is pending
	 * at its start and neither a damaged span's stamps nor the tear's
	 * need them (the segments before and after each damaged span, and the
	 * last, are decoded; the stamps are those a whole read gives where
	 * the samples' times rise); nsamples_read still counts every sample,
	 * a skipped segment's intervals are dropped. Its other records are
	 * decoded as ever. Version 1 records, which have no key blocks, are
	 * decoded whole.
	 */
	bool skip_samples;
	/*
	 * Records as they are decoded, in file order (report --threads: its
	 * sums stream; with skip_threads, skip_frames none is kept, so the
	 * memory is one snapshot's): on_frame with each frame, on_threads
	 * with each thread snapshot (TS: valid during the call; R's strings
	 * are those decoded so far). Returning a negative errno stops the
	 * read and is returned.
	 */
	int (*on_frame)(void *ctx, const struct rec_frame *f);
	int (*on_threads)(void *ctx, const struct rec *r, const struct rec_threads *ts);
	/*
	 * Handed on and not kept (export --perfetto's tracks, dump --summary:
	 * the memory is one sample's, not the record's): on_sample, ring_rows 0
	 * and no on_window, with each sample as decoded (ROW: its nfields
	 * values, valid during the call; nsamples stays 0, nsamples_read
	 * counts them); on_interval with each interval, on_apispan with each
	 * API call's span (nintervals, napispans stay 0). R's strings are those
	 * decoded so far, which hold every id the record passed names. A
	 * negative errno stops the read and is returned. With on_window too
	 * (export --perfetto's first pass in the stalls' read), each is
	 * handed on as well as kept for the windows: on_sample after the
	 * sample joined its group (R's samples the group's), on_interval and
	 * on_apispan with the kept copy.
	 */
	int (*on_sample)(void *ctx, const struct rec *r, uint64_t t_ns, const int64_t *row);
	int (*on_interval)(void *ctx, const struct rec *r, const struct rec_interval *iv);
	int (*on_apispan)(void *ctx, const struct rec *r, const struct rec_apispan *sp);
};
struct rec_window {
	uint64_t a_ns, b_ns;
};
/* Samples kept before and after a window: more than any cause rule or the
 * evidence looks (core/causes.h: CAUSES_STREAM_BACK, _AHEAD). */
#define REC_WIN_BACK 16
#define REC_WIN_AHEAD 128
/* A group of more rows hands on the windows it has all the samples of and
 * drops the rows no window left needs (stalls back to back). */
#define REC_WIN_ROWS 2048
int rec_parse_stream(const void *buf, size_t len, const struct rec_stream *s, struct rec **ret,
		     struct strbuf *err);
/* The files opened are regular files only, opened without blocking
 * (core/file.h): a FIFO or a device node is an error, never a hang. */
int rec_read_file_stream(const char *path, const struct rec_stream *s, struct rec **ret,
			 struct strbuf *err);
/* As rec_read_file_stream (S NULL: rec_read_file) on FD, open for reading
 * at its start and left open; PATH names it in messages. */
int rec_read_fd_stream(int fd, const char *path, const struct rec_stream *s, struct rec **ret,
		       struct strbuf *err);

/* ---------------------------------------------------------------- writer */

struct rec_writer;

/* Creates PATH (truncating it) for writing; returns 0 or a negative errno. */
int rec_writer_new(const char *path, struct rec_writer **ret);
/* As rec_writer_new, on FD, a new empty file open for writing, which the
 * writer owns from here on (closed by rec_writer_close, also on error). */
int rec_writer_new_fd(int fd, struct rec_writer **ret);
/* Adds a meta key/value (NULL value: ""); returns 0 or a negative errno.
 * Meant for before rec_writer_begin (the header block); a later call is
 * written with the next block (the reader lets the last value of a key win),
 * but "period_ns", which the sample coding uses to predict each sample's
 * time, counts only before rec_writer_begin. */
int rec_writer_meta(struct rec_writer *w, const char *key, const char *value);
/* Before rec_writer_begin: declares a field and returns its index (>= 0);
 * -EEXIST for a name already declared, -EINVAL after begin. */
int rec_writer_field(struct rec_writer *w, const char *name, enum rec_kind kind);
/* Before rec_writer_begin: a key block every N data blocks (default
 * REC_KEY_EVERY, 10; 1: every block decodes alone). 0 or -EINVAL. */
int rec_writer_key_every(struct rec_writer *w, unsigned n);
/* Writes the header; fields and meta are fixed from here on. */
int rec_writer_begin(struct rec_writer *w);
/* The id of string S, interning it on first use (written with the next
 * block). Returns the id (> 0), or 0 for NULL/"", for a string over 1 MiB,
 * or on ENOMEM. */
uint32_t rec_writer_intern(struct rec_writer *w, const char *s);
/* One sample: VALS holds one value per declared field, in declaration order.
 * A sample costs least when T_NS advances by the meta "period_ns" and a
 * field keeps its value or its rate. The other records: 0 or a negative
 * errno (-EINVAL before rec_writer_begin, -E2BIG for a record over 32 MiB);
 * the first error of the file itself (write, ENOMEM) is kept and returned by
 * every later call. */
int rec_writer_sample(struct rec_writer *w, uint64_t t_ns, const int64_t *vals);
/* The same, when VALS holds exactly the last sample's values (the caller
 * knows it: sampler_same): the same bytes, coded from the few fields whose
 * coding state moves rather than from every field. */
int rec_writer_sample_same(struct rec_writer *w, uint64_t t_ns, const int64_t *vals);
int rec_writer_frame(struct rec_writer *w, const struct rec_frame *f);
int rec_writer_clock(struct rec_writer *w, const struct rec_clock *c);
int rec_writer_threads(struct rec_writer *w, uint64_t t_ns, const struct rec_thread *th,
		       size_t n);
int rec_writer_event(struct rec_writer *w, uint64_t t_ns, uint32_t tid, const char *kind,
		     const char *text);
/* An exact-mode interval; its string ids are rec_writer_intern's. */
int rec_writer_interval(struct rec_writer *w, const struct rec_interval *iv);
/* A graphics API call's span; its name id is rec_writer_intern's. */
int rec_writer_apispan(struct rec_writer *w, const struct rec_apispan *s);
/*
 * Stacks (2.3; docs/FORMAT.md, "Stacks"): a mapping, a frame and a stack are
 * interned as strings are (ids file-wide, 1, 2, ...; each written once in
 * every segment that uses it, before the record that does). The intern
 * calls return the id, or 0: for a bad argument (a build-id of 0 or over
 * REC_BUILD_ID_MAX bytes, an empty path, a frame of an unknown kind, a
 * stack of 0 or over REC_USTACK_MAX frames), on ENOMEM (kept as the
 * writer's error) or after an error. A frame's ids (mapping, string) and
 * a stack's frame ids must be ids these calls returned.
 */
uint32_t rec_writer_umap(struct rec_writer *w, const char *path, const uint8_t *build_id,
			 size_t build_id_len);
uint32_t rec_writer_uframe(struct rec_writer *w, const struct rec_uframe *f);
uint32_t rec_writer_ustack(struct rec_writer *w, const uint32_t *frames, size_t n);
/* One window's stacks: S->n stack ids with their counts (>= 1). 0 or a
 * negative errno (-EINVAL: an id not interned, a count of 0, n of 0). */
int rec_writer_uset(struct rec_writer *w, const struct rec_uset *s);
/* Ends the block being filled and writes it (with its checksum) to the file;
 * the recorder calls it every second. Returns 0 or a negative errno. */
int rec_writer_flush(struct rec_writer *w);
/* Bytes written so far, counting the block being filled. */
uint64_t rec_writer_bytes(const struct rec_writer *w);
/* Writes the end record, flushes, closes the file and frees W (NULL-safe).
 * Returns 0 or the first error seen. */
int rec_writer_close(struct rec_writer *w);

#endif
