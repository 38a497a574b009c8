/* SPDX-License-Identifier: MIT */
/*
 * frames.h: a run's frames, as every frame source hands them to the analysis.
 *
 * Frame i ends at frames_t(f, i) (its present, in seconds on the source's
 * own clock: since t0 for a run directory, since the first frame's start for
 * a frame log) and lasted frames_ft(f, i) milliseconds, so it started at
 * frames_t(f, i) - frames_ft(f, i) / 1000. The ends never decrease. For a
 * log that holds only frame times, the ends are their running sum (the
 * first frame starts at 0).
 *
 * Two representations behind the accessors (read through them, never the
 * arrays, unless you made the set):
 *
 *  - doubles (frame logs: parsed text, not integer nanoseconds): t_s[] and
 *    ft_ms[], 16 bytes a frame, as frames_push() appends them;
 *  - packed (a record's frames, frames_stamps below; t_s == NULL): the
 *    presents' integer nanosecond stamps, about 4.3 bytes a frame (a day
 *    at 30 fps: 11 MB, not 41). Slot s holds stamp S[s] as a uint32 offset
 *    from its block's int64 base (blocks of FRAMES_BLK slots; a block whose
 *    span does not fit 32 bits, 4.29 s, is stored wide, 8 bytes a slot, in
 *    pk.wide: rare, a pause). Frame i ends at S[i + 1] and started at S[i],
 *    except the frames in pk.exc (sorted; each block says where its own
 *    start, so a block without one costs one compare): the frame after a
 *    damaged span whose interval was dropped started at a present that
 *    ends no frame. The values are those the doubles held, bit for bit:
 *    t = (double)S[i + 1] / 1e9 - t0_s, ft = (double)(S[i + 1] - prev) / 1e6.
 *
 * Ownership: the struct owns its arrays; frames_free() frees them and the
 * struct (NULL-safe).
 */
#ifndef SS_CORE_FRAMES_H
#define SS_CORE_FRAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/stats.h"

#define FRAMES_BLK 64		/* slots a block of the packed form */
#define FRAMES_NARROW UINT32_MAX	/* frames_blk.wide of a narrow block */

struct frames_blk {
	int64_t base;		/* ns: the block's first stamp */
	uint32_t wide;		/* its block in pk.wide, or FRAMES_NARROW: offsets in pk.off */
	uint32_t exc;		/* pk.exc's first entry of a frame ending in this block */
};

struct frames_exc {
	size_t frame;		/* the frame */
	uint64_t prev_ns;	/* the present it started at */
};

struct frames_packed {
	uint32_t *off;		/* slot s: S[s] - its block's base (narrow blocks) */
	uint64_t *wide;		/* the wide blocks' stamps, FRAMES_BLK a block */
	struct frames_blk *blk;	/* nblk + 1: the last says only exc's end */
	struct frames_exc *exc;
	size_t nslots, nblk, nwide, nexc, cap, wcap, bcap, ecap;
	double t0_s;		/* the clock's zero, s */
};

struct frames {
	size_t n;
	size_t alloc;
	double *ft_ms;	/* frame time, ms (doubles; NULL when packed) */
	double *t_s;	/* end of the frame, s (doubles; NULL when packed) */
	uint32_t *tid;	/* presenting thread, or NULL when the source does not say */
	struct frames_packed pk;	/* a record's frames, when t_s is NULL */
	char format[48];	/* what the source was, e.g. "mangohud-0.6.8", "presentmon-v2" */
};

/* A new empty set; NULL on ENOMEM. */
struct frames *frames_new(void);
void frames_free(struct frames *f);
/* Appends one frame ending at T_S that lasted FT_MS; 0 or -ENOMEM. The
 * doubles only: never on a record's packed frames. */
int frames_push(struct frames *f, double t_s, double ft_ms);
/* Appends a frame time only; its end is the previous end plus FT_MS. */
int frames_push_ft(struct frames *f, double ft_ms);
/* Room for N frames in all (a reader that knows its count: no doubling's
 * slack, a day of presents is 41 MB rather than up to 67); 0 or -ENOMEM. */
int frames_reserve(struct frames *f, size_t n);

/* ------------------------------------------------------------ access */

/* Stamp S[s] of the packed form PK. */
static inline uint64_t frames_pk_slot(const struct frames_packed *pk, size_t s)
{
	const struct frames_blk *b = &pk->blk[s / FRAMES_BLK];

	if (b->wide != FRAMES_NARROW)
		return pk->wide[(size_t)b->wide * FRAMES_BLK + s % FRAMES_BLK];
	return (uint64_t)b->base + pk->off[s];
}

/* Stamp S[s] of packed frames. */
static inline uint64_t frames_slot_ns(const struct frames *f, size_t s)
{
	return frames_pk_slot(&f->pk, s);
}

/* The present packed frame I started at. */
static inline uint64_t frames_prev_ns(const struct frames *f, size_t i)
{
	const struct frames_blk *b = &f->pk.blk[(i + 1) / FRAMES_BLK];

	for (uint32_t e = b->exc; e < b[1].exc; e++)
		if (f->pk.exc[e].frame == i)
			return f->pk.exc[e].prev_ns;
	return frames_slot_ns(f, i);
}

/* Frame I's end, s. */
static inline double frames_t(const struct frames *f, size_t i)
{
	if (f->t_s)
		return f->t_s[i];
	return (double)frames_slot_ns(f, i + 1) / 1e9 - f->pk.t0_s;
}

/* Frame I's length, ms. */
static inline double frames_ft(const struct frames *f, size_t i)
{
	if (f->ft_ms)
		return f->ft_ms[i];
	return (double)(frames_slot_ns(f, i + 1) - frames_prev_ns(f, i)) / 1e6;
}

/* Frame I's start, s: its end less its length, as every reader computes it. */
static inline double frames_start(const struct frames *f, size_t i)
{
	return frames_t(f, i) - frames_ft(f, i) / 1000.0;
}

/* The lengths of frames I..I+M-1 (ms) into BUF, for a loop that wants an
 * array: the doubles' own when F holds them (BUF untouched), else BUF
 * filled. Returns the array to read. */
const double *frames_ft_span(const struct frames *f, size_t i, size_t m, double *buf);

/* frames_ft_span's shape for stats_in (stats.h): CTX is the frames; BUF
 * always filled. */
void frames_ft_get(const void *ctx, size_t i, size_t m, double *buf);

/* The lengths of frames FIRST.. as stats_in: the doubles themselves, or
 * read from the packed form a piece at a time. */
static inline struct stats_in frames_ft_in(const struct frames *f, size_t first)
{
	if (f->ft_ms)
		return (struct stats_in){ .x = f->ft_ms + first };
	return (struct stats_in){ .get = frames_ft_get, .ctx = f, .first = first };
}

/* ------------------------------------------------------------ a record's stamps */

/*
 * The presents' stamps as a record's reader passes them, collected straight
 * into the packed form while they come in order (the common case): about
 * 4.3 bytes a present at the peak. One that arrives out of order turns the
 * collection into a plain uint64_t array (8 bytes a present, sorted at the
 * end): correct, just not compact. Zero-initialise; frames_stamps_done()
 * takes what it holds, frames_stamps_free() drops it.
 */
struct frames_stamps {
	struct frames *f;	/* the packed slots so far (NULL until the first) */
	uint64_t pend[FRAMES_BLK];	/* the block being filled */
	unsigned npend;
	uint64_t *t;		/* out of order: every stamp, unsorted */
	size_t n, cap;		/* stamps in all; t's room */
};

/* Adds stamp T_NS; 0 or -ENOMEM (the stamps kept so far stay valid). */
int frames_stamps_add(struct frames_stamps *s, uint64_t t_ns);

/*
 * The frames of the stamps S holds: frame i lasts from one present to the
 * next, in order of time, on T0_S's clock (s; NaN: the first present's),
 * except an interval DROP(CTX, a, b) says is no frame (DROP NULL: none is).
 * S is emptied, even on failure. *RET_FIRST the earliest stamp (0: none).
 * 0 or -ENOMEM.
 */
int frames_stamps_done(struct frames_stamps *s, double t0_s,
		       bool (*drop)(const void *ctx, uint64_t a, uint64_t b), const void *ctx,
		       struct frames **ret, uint64_t *ret_first);

void frames_stamps_free(struct frames_stamps *s);

#endif
