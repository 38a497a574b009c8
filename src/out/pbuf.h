/* SPDX-License-Identifier: MIT */
/*
 * pbuf.h: the protocol buffers wire format, written into a growable byte
 * buffer: varints, 64-bit fixed numbers (doubles), length-delimited bytes
 * and nested messages. Only encoding, only what a trace writer needs
 * (https://protobuf.dev/programming-guides/encoding/ is the contract).
 *
 * A nested message is opened with pb_begin and closed with pb_end, which
 * writes its length in front of it: one byte is kept for the length at
 * pb_begin (most messages are short), and the body is moved when the length
 * needs more, so every length is minimal (no padded varints).
 *
 * Errors: a buffer that cannot grow sets oom and ignores later writes; the
 * caller checks pb_failed once at the end. Nesting deeper than PB_DEPTH is a
 * bug in the caller and sets oom too.
 */
#ifndef SS_OUT_PBUF_H
#define SS_OUT_PBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PB_DEPTH 8

struct pbuf {
	uint8_t *p;
	size_t len, cap;
	size_t open[PB_DEPTH];	/* where each open message's body starts */
	unsigned depth;
	bool oom;
};

#define PBUF_INIT { NULL, 0, 0, { 0 }, 0, false }

void pb_release(struct pbuf *b);	/* frees; the buffer is PBUF_INIT again */
void pb_reset(struct pbuf *b);		/* empty, keeps the allocation and oom */
static inline bool pb_failed(const struct pbuf *b) { return b->oom; }

/* Field FIELD as a varint (wire type 0): uint64, uint32, bool, enum, and
 * int64/int32 (a negative one as its 64-bit two's complement, 10 bytes). */
void pb_varint(struct pbuf *b, uint32_t field, uint64_t v);
/* Field FIELD as 8 little-endian bytes (wire type 1): double, fixed64. */
void pb_double(struct pbuf *b, uint32_t field, double v);
void pb_fixed64(struct pbuf *b, uint32_t field, uint64_t v);
/* Field FIELD length-delimited (wire type 2): string, bytes, or LEN bytes
 * of an already encoded message. */
void pb_bytes(struct pbuf *b, uint32_t field, const void *data, size_t len);
void pb_str(struct pbuf *b, uint32_t field, const char *s);
/* A nested message in field FIELD: its fields follow, then pb_end. */
void pb_begin(struct pbuf *b, uint32_t field);
void pb_end(struct pbuf *b);
/* LEN raw bytes, encoded elsewhere. */
void pb_raw(struct pbuf *b, const void *data, size_t len);

/* The bytes of the varint V into OUT (10 bytes at most); returns how many. */
size_t pb_varint_encode(uint8_t *out, uint64_t v);

#endif
