/* SPDX-License-Identifier: MIT */
/*
 * writer_int.h: what the record writer's two files share (writer.c: the
 * blocks, keys, strings and most records; writer_stacks.c: the interned
 * stacks of 2.3). Not for use outside src/rec/writer*.c.
 */
#ifndef SS_REC_WRITER_INT_H
#define SS_REC_WRITER_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rec/rec.h"

#define STR_MAX (1u << 20)	/* a longer string is refused (-E2BIG) */

struct obuf {
	uint8_t *p;
	size_t len, cap;
};

struct intern_slot {
	char *s;
	uint32_t id;
	uint32_t hash;
};

struct rec_writer {
	int fd;
	int err;		/* the first error, sticky */
	bool begun;
	uint64_t written;	/* bytes in the file */
	struct obuf main;	/* records of the block being filled, in call order */
	struct obuf samples;	/* its samples: a bit stream, see codec.h */
	uint64_t bw_acc;	/* bits not yet in samples */
	unsigned bw_n;
	struct obuf frames;	/* its frames, coded back to back */
	struct obuf scratch;
	uint64_t block_samples, block_frames;
	uint64_t nsamples, nframes;

	size_t nfields;
	char **field_names;
	uint8_t *kinds;
	uint64_t period;
	struct samp_state ss;
	uint64_t *errs;
	uint8_t *newchg;
	/* The fields whose coding state a sample equal to the last one moves
	 * (not samp_quiet), in field order, as the last sample left them
	 * (act_ok; a new segment clears it): rec_writer_sample_same codes only
	 * those. */
	size_t *act, nact;
	bool act_ok;

	/* frames */
	uint64_t f_n, f_tprev, f_dtprev;
	uint32_t f_tid, f_source;
	/* thread snapshots: the previous one */
	struct rec_thread *th_prev;
	size_t th_nprev, th_cap;
	uint64_t th_n, th_tprev, th_dtprev;
	/* events, intervals */
	uint64_t ev_tprev, iv_tprev;

	/* interned strings: open addressing, power-of-two size */
	struct intern_slot *slots;
	size_t nslots, nstrs;
	/* by id: the string, and the segment whose blocks last wrote it */
	const char **str_of;
	uint32_t *str_seg;
	size_t str_cap;
	size_t *str_fields, nstr_fields;	/* the REC_STR fields */

	/* key blocks */
	bool block_open;	/* the data block being filled has begun */
	uint64_t data_blocks;	/* data blocks written */
	uint32_t seg;		/* the segment being written (1, 2, ...; 0: header) */
	unsigned key_every;	/* a key block every this many data blocks */

	struct wstacks *stk;	/* interned stacks (writer_stacks.c); NULL: none yet */
};

struct wstacks;

/* Room for EXTRA more bytes in B: 0 or -ENOMEM. */
int ob_reserve(struct obuf *b, size_t extra);
/* Append to B (room reserved first: they never fail). */
void ob_varint(struct obuf *b, uint64_t v);
void ob_bytes(struct obuf *b, const void *p, size_t n);
/* Keeps ERR as the writer's first error; returns that first error. */
int w_fail(struct rec_writer *w, int err);
/* Appends a record of TYPE with payload P (N bytes) to the block. */
int w_record(struct rec_writer *w, uint8_t type, const void *p, size_t n);
/* Ends the block when it has grown past REC_BLOCK_AUTOFLUSH. */
int maybe_flush(struct rec_writer *w);
/* The start of every data record: 0, or the first error, or -EINVAL. */
int w_enter(struct rec_writer *w);
/* Writes string ID's STR record unless this segment did. */
int str_ensure(struct rec_writer *w, uint64_t id);
/* Frees W's stacks state (writer_stacks.c). */
void wstacks_free(struct rec_writer *w);

#endif
