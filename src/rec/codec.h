/* SPDX-License-Identifier: MIT */
/*
 * codec.h: the byte-level pieces the record's writer and reader share
 * (internal to src/rec): little-endian fixed-width integers, LEB128 varints,
 * zigzag, CRC32C, the record type numbers and the limits, and the sample
 * predictor and adaptive Rice coder whose state both sides must move in
 * step. docs/FORMAT.md is the contract these implement.
 *
 * Everything is written byte by byte, so the host's endianness and struct
 * layout never reach the file. Readers bounds-check every byte: a getter
 * returns false (and moves nothing) when the input ends or a varint is
 * longer than 10 bytes or overflows 64 bits.
 */
#ifndef SS_REC_CODEC_H
#define SS_REC_CODEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* "SSREC" CR LF SUB: bytes 53 53 52 45 43 0d 0a 1a; read as a
 * little-endian u64 it is REC_MAGIC, on a big-endian writer REC_MAGIC_SWAPPED. */
#define REC_MAGIC 0x1a0a0d4345525353ULL
#define REC_MAGIC_SWAPPED 0x53535245430d0a1aULL
#define REC_VERSION_MAJOR 2
#define REC_VERSION_MINOR 3	/* 2.1: INTERVAL records (exact mode); 2.2: APISPAN records;
				 * 2.3: USTACK records */
#define REC_FILE_HEADER 16	/* magic u64, major u16, minor u16, flags u32 */
#define REC_BLOCK_HEADER 8	/* payload length u32, crc32c u32 */
#define REC_BLOCK_MAX (64u << 20)	/* a block's payload never exceeds this */
#define REC_BLOCK_AUTOFLUSH (1u << 20)	/* the writer ends a block at this size */
/* Version 2: every REC_KEY_EVERY-th data block starts with a KEY record, at
 * which every piece of coding state restarts, so that a reader can skip a
 * damaged block and go on at the next key block: at the recorder's block a
 * second, damage loses at most 10 s. Every block a key costs +72 % bytes on
 * bench/rec.sh's steady hour, every 4th +22 %, every 10th +10 %
 * (docs/FORMAT.md, "Key blocks"). */
#define REC_KEY_EVERY 10
#define REC_KEY_SYNC 0x4b595353u	/* "SSYK" as a little-endian u32 */
#define REC_KEY_MIN 5		/* a KEY record's payload at least: sync u32, varint key number */

/* Record types (u8). A reader skips a type it does not know. */
enum rec_type {
	RT_META = 1,	/* key, value */
	RT_FIELD = 2,	/* kind u8, name */
	RT_STR = 3,	/* 2.x: varint id, bytes; 1.x: the next string id's bytes */
	RT_SAMPLES = 4,	/* count, then that many delta-coded samples */
	RT_FRAMES = 5,	/* count, then that many delta-coded frames */
	RT_CLOCK = 6,	/* mono, real */
	RT_THREADS = 7,	/* a thread snapshot, coded against the previous one */
	RT_EVENT = 8,	/* t, tid, kind id, text id */
	RT_END = 9,	/* samples, frames: the writer closed the file */
	RT_INTERVAL = 11,	/* 2.1: an exact-mode off-CPU interval */
	RT_KEY = 10,	/* 2.x: sync u32, varint key number; coding state restarts */
	RT_APISPAN = 13,	/* 2.2: a graphics API call that took >= 1 ms */
	RT_USTACK = 14,		/* 2.3: u8 part (USTACK_*), then its payload */
};

/* The parts of an RT_USTACK record (docs/FORMAT.md, "Stacks"). */
enum {
	USTACK_MAP = 1,		/* id, build-id length u8, build-id, path */
	USTACK_FRAME = 2,	/* id, head (ref << 3 | kind), [offset] */
	USTACK_STACK = 3,	/* id, n, n frame ids */
	USTACK_SET = 4,		/* t, tid, n, n x (stack id, count): a stall's, the
				 * frame thread's */
	USTACK_SET_THREAD2 = 5,	/* the same, the second sampled thread's in a stall */
	USTACK_SET_INTERVAL = 6,	/* the same, an exact interval's switch-out,
					 * stamped at its start on its thread */
};

/* Thread-snapshot entry flags (low 4 bits of the entry's token). */
#define TH_NAME 1u	/* name id follows */
#define TH_CPU 2u	/* zigzag(cpu - base.cpu) follows */
#define TH_CPUNS 4u	/* zigzag(cpu_ns - base.cpu_ns) follows */
#define TH_NEW 8u	/* no base in the previous snapshot */

static inline uint64_t zz_enc(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline int64_t zz_dec(uint64_t u)
{
	return (int64_t)((u >> 1) ^ (~(u & 1) + 1));
}

static inline void le16_put(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static inline void le32_put(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline void le64_put(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline uint16_t le16_get(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t le32_get(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static inline uint64_t le64_get(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* Writes V as an unsigned LEB128 varint at P (room for 10 bytes); returns
 * the bytes written. */
static inline size_t varint_put(uint8_t *p, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		p[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	return n;
}

/* A bounded cursor over input bytes. */
struct cur {
	const uint8_t *p, *end;
};

/* Reads a varint; false at the end of input, on more than 10 bytes, or on
 * bits beyond 64. */
static inline bool cur_varint(struct cur *c, uint64_t *ret)
{
	const uint8_t *p = c->p;
	uint64_t v = 0;
	unsigned shift = 0;

	while (p < c->end) {
		uint8_t b = *p++;

		if (shift == 63 && b > 1)
			return false;
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			c->p = p;
			*ret = v;
			return true;
		}
		shift += 7;
		if (shift > 63)
			return false;
	}
	return false;
}

static inline bool cur_zz(struct cur *c, int64_t *ret)
{
	uint64_t u;

	if (!cur_varint(c, &u))
		return false;
	*ret = zz_dec(u);
	return true;
}

static inline bool cur_u8(struct cur *c, uint8_t *ret)
{
	if (c->p >= c->end)
		return false;
	*ret = *c->p++;
	return true;
}

/* ------------------------------------------------- the sample predictor */

/*
 * What writer and reader both know about the samples so far, so that a
 * sample is stored as its difference from a prediction. Field f is predicted
 * as its previous value (mode "const") or, for a REC_INT field whose last
 * value a straight line through the two before it predicted better, as that
 * line (mode "lin"). The time is predicted as the previous time plus the
 * period (meta "period_ns"), or plus the previous interval when there is
 * none. All arithmetic wraps modulo 2^64, so every value round-trips.
 *
 * A field whose changes come and go (it differed from its prediction in
 * 20% to 80% of recent samples) is "dense": every sample has a bit saying
 * whether it changed. The others are "sparse": coded only while in the
 * changed set, which a sample edits by naming the fields that enter or
 * leave it (toggles), so a field that never changes, or always does, costs
 * nothing to say so.
 */
struct samp_field {
	uint64_t p1, p2;	/* the previous value and the one before */
	uint64_t avg;		/* the Rice coder's running mean */
	uint16_t freq;		/* how often it changed lately, 0..256 */
	uint8_t lin;		/* predicted by the line */
	uint8_t chg;		/* sparse: in the changed set */
	uint8_t dense;		/* a changed bit in every sample */
	uint8_t is_str;		/* a REC_STR field (never "lin") */
};

struct samp_state {
	size_t nf;
	struct samp_field *fs;
	uint64_t n;		/* samples so far */
	uint64_t t_prev, dt_prev, period;
	uint64_t avg_t, avg_ntog, avg_gap;	/* the other Rice coders' means */
};

/*
 * Adaptive Rice codes: the samples are a bit stream (LSB first) in which a
 * number u >= 0 is written with parameter k (the bit length of its coder's
 * running mean, minus one) as q = u >> k one-bits, a zero, and the k low
 * bits of u; when q >= RICE_QMAX, as RICE_QMAX one-bits, 6 bits of
 * (bit length of u) - 1, and those bits of u. After each number the mean
 * moves an eighth of the way towards it (u capped at 2^48).
 */
#define RICE_QMAX 24

static inline unsigned rice_k(uint64_t avg)
{
	return avg ? 63u - (unsigned)__builtin_clzll(avg) : 0;
}

static inline void rice_adapt(uint64_t *avg, uint64_t u)
{
	if (u > (1ull << 48))
		u = 1ull << 48;
	if (u >= *avg)
		*avg += (u - *avg) >> 3;
	else
		*avg -= (*avg - u) >> 3;
}

/* Sets up S for NF fields (KINDS[f] an enum rec_kind); 0 or -ENOMEM. */
int samp_state_init(struct samp_state *s, size_t nf, const uint8_t *kinds, uint64_t period);
void samp_state_release(struct samp_state *s);
/* Moves S past a sample at T holding VALS (samp_field_update on every
 * field, then samp_time_update). */
void samp_state_update(struct samp_state *s, uint64_t t, const int64_t *vals);

static inline uint64_t samp_pred(const struct samp_field *sf)
{
	return sf->lin ? 2 * sf->p1 - sf->p2 : sf->p1;
}

/* True when a field's state is one that a sample equal to its prediction
 * leaves exactly as it is (it changed long ago and holds still): the reader
 * then copies the value and skips the field's update, which is a no-op. */
static inline bool samp_quiet(const struct samp_field *sf)
{
	return sf->freq < 8 && !sf->lin && !sf->chg && !sf->dense && sf->p1 == sf->p2;
}

/* Moves field SF past its value V in a sample. */
static inline void samp_field_update(struct samp_field *sf, uint64_t v)
{
	uint64_t p1 = sf->p1;
	unsigned q = sf->freq;

	/* How often it changed: an exponential average. Flagged ("dense")
	 * while it changes in 20% to 80% of samples (where toggles would cost
	 * more than a bit a sample), sparse again below 10% or above 90%. */
	if (v != samp_pred(sf))
		q += (256 - q) >> 3;
	else
		q -= q >> 3;
	sf->freq = (uint16_t)q;
	if (!sf->dense && q >= 51 && q <= 205)
		sf->dense = 1;
	else if (sf->dense && (q < 26 || q > 230))
		sf->dense = 0;
	if (sf->dense)
		sf->chg = 0;
	if (!sf->is_str) {
		uint64_t ec = zz_enc((int64_t)(v - p1));
		uint64_t el = zz_enc((int64_t)(v - (2 * p1 - sf->p2)));

		if (el < ec)
			sf->lin = 1;
		else if (ec < el)
			sf->lin = 0;
	}
	sf->p2 = p1;
	sf->p1 = v;
}

static inline uint64_t samp_tpred(const struct samp_state *s)
{
	if (!s->n)
		return 0;
	return s->t_prev + (s->period ? s->period : s->dt_prev);
}

static inline void samp_time_update(struct samp_state *s, uint64_t t)
{
	s->dt_prev = s->n ? t - s->t_prev : 0;
	s->t_prev = t;
	s->n++;
}

/* Parses a decimal u64 (the meta "period_ns"); 0 when S is not one. */
uint64_t rec_parse_u64(const char *s);

/* CRC32C (Castagnoli, reflected polynomial 0x82f63b78) of LEN bytes,
 * continuing from CRC (0 to start). */
uint32_t rec_crc32c(uint32_t crc, const void *buf, size_t len);

#endif
