/* SPDX-License-Identifier: MIT */
/*
 * reader_int.h: what the record reader's two files share (reader.c: the
 * file, its blocks, damage and the API; reader_records.c: the records a
 * block holds; reader_stacks.c: the stacks' records). Not for use outside src/rec/reader*.c.
 */
#ifndef SS_REC_READER_INT_H
#define SS_REC_READER_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rec/codec.h"
#include "rec/rec.h"

/* At most this many sample values and thread entries per input byte (plus
 * REC_EXPAND_MIN): a steady recording of 60 fields expands about 25 times. */
#define REC_EXPAND 256
#define REC_EXPAND_MIN (1u << 20)

struct rd {
	const uint8_t *base;	/* the file in memory, or NULL: read from fd */
	size_t len;
	int fd;			/* base NULL: the file, read a block at a time */
	uint8_t *blk, *scan;	/* fd: the block being read, the bytes scanned
				 * for a key block */
	size_t blk_cap, scan_cap;
	int io_err;		/* fd: the errno of a read that failed */
	struct rec *r;
	struct strbuf *err;
	size_t off;		/* file offset of the record being decoded, for messages */
	bool header_block;
	bool frozen;		/* fields are fixed (the first sample was seen) */
	struct samp_state ss;
	/* the samples' decoder, beside ss (samp_restart sets them up): a bit
	 * a field, in field order, set while its state is not samp_quiet (the
	 * fields a sample decodes and moves), and every field's last value
	 * (its p1), the row a sample starts from */
	uint64_t *act;
	int64_t *last_row;
	uint8_t *kinds;
	uint64_t expand_left;	/* values and thread entries still allowed */
	uint64_t hint_samples;	/* samples in the whole blocks (from the first pass) */
	uint64_t period;	/* meta period_ns as the header block left it */
	size_t cap_samples, cap_frames, cap_threads, cap_clocks, cap_events, cap_strs,
		cap_meta, cap_fields;
	uint64_t f_n, f_tprev, f_dtprev;
	uint32_t f_tid, f_source;
	uint64_t th_tprev, th_dtprev, th_n;
	bool th_restart;	/* a key: the next snapshot edits an empty one */
	uint64_t ev_tprev, iv_tprev;
	size_t cap_intervals;
	size_t cap_apispans;
	size_t cap_umaps, cap_uframes, cap_ustacks, cap_usets;
	uint64_t t_last;	/* the latest stamp decoded so far (for damage spans) */
	uint64_t t_first_block;	/* the first stamp of the block being decoded, or 0 */
	size_t *blocks, nblocks, cap_blocks;	/* offsets of the whole blocks to decode */
	uint8_t *bkey;		/* by block: its first record is KEY (a segment starts) */
	size_t cap_bkey;
	bool skip_seg;		/* rec_stream's skip_samples: this segment's samples
				 * counted, not decoded */
	size_t cap_damage;
	const struct rec_stream *stream;	/* NULL: the whole matrix */
	size_t ring_mask;	/* streaming: rows - 1; SIZE_MAX: every row kept */
	uint64_t fed;		/* samples when on_samples last ran */
	/* windows (rec_stream's win): the last REC_WIN_BACK samples decoded
	 * (a ring of KRING rows), how many were seen, the next window not
	 * yet reached, the group being kept */
	int64_t *kring;
	uint64_t kring_t[32];
	uint64_t kseen;
	size_t wnext, gw0, gcap;
	bool in_group;
	uint64_t gb;		/* the latest end of the group's windows */
	size_t ahead_left;	/* samples after gb still to keep */
	size_t iv_prune;	/* intervals when next pruned */
	size_t gnext;		/* the group's rows when win_partial next looks */
};
#define KRING 32

/* Windows: the group kept so far handed to on_window and dropped; 0 or
 * what on_window returned. */
int rd_win_flush(struct rd *d);
/* Windows, at the end: the group being kept, then the windows past the
 * last sample. 0 or what on_window returned. */
int rd_win_end(struct rd *d);

/* "offset N: WHAT" into the error; returns -EINVAL. */
int rd_bad(struct rd *d, const char *what);
/* The first pass: counts the samples of the N bytes of a block's records. */
void rd_count_samples(struct rd *d, const uint8_t *p, size_t n);
/* Decodes the N bytes of records of the block at file offset OFF. 0, or
 * -EINVAL (rd_bad) or -ENOMEM. */
int rd_block(struct rd *d, const uint8_t *p, size_t n, size_t off);
/* An RT_USTACK record (reader_stacks.c). 0, -EINVAL (rd_bad) or -ENOMEM. */
int rd_ustack(struct rd *d, struct cur *c);

#endif
