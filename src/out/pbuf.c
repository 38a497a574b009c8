// SPDX-License-Identifier: MIT
/*
 * pbuf.c: the protocol buffers wire format into a growable buffer (pbuf.h).
 * A field's key is (number << 3 | wire type) as a varint; a varint is 7 bits
 * a byte, least significant first, the top bit set on all but the last.
 */
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"
#include "out/pbuf.h"

enum { WT_VARINT = 0, WT_I64 = 1, WT_LEN = 2 };

void pb_release(struct pbuf *b)
{
	free(b->p);
	*b = (struct pbuf)PBUF_INIT;
}

void pb_reset(struct pbuf *b)
{
	b->len = 0;
	b->depth = 0;
}

static bool room(struct pbuf *b, size_t n)
{
	if (b->oom)
		return false;
	if (ARRAY_GROW(b->p, b->cap, b->len + n) < 0)
		b->oom = true;
	return !b->oom;
}

size_t pb_varint_encode(uint8_t *out, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		out[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	out[n++] = (uint8_t)v;
	return n;
}

static void put_varint(struct pbuf *b, uint64_t v)
{
	if (room(b, 10))
		b->len += pb_varint_encode(b->p + b->len, v);
}

static void put_key(struct pbuf *b, uint32_t field, unsigned wt)
{
	put_varint(b, (uint64_t)field << 3 | wt);
}

void pb_varint(struct pbuf *b, uint32_t field, uint64_t v)
{
	put_key(b, field, WT_VARINT);
	put_varint(b, v);
}

void pb_fixed64(struct pbuf *b, uint32_t field, uint64_t v)
{
	put_key(b, field, WT_I64);
	if (!room(b, 8))
		return;
	for (int i = 0; i < 8; i++)
		b->p[b->len++] = (uint8_t)(v >> (8 * i));
}

void pb_double(struct pbuf *b, uint32_t field, double v)
{
	uint64_t u;

	memcpy(&u, &v, sizeof(u));
	pb_fixed64(b, field, u);
}

void pb_raw(struct pbuf *b, const void *data, size_t len)
{
	if (len && room(b, len)) {
		memcpy(b->p + b->len, data, len);
		b->len += len;
	}
}

void pb_bytes(struct pbuf *b, uint32_t field, const void *data, size_t len)
{
	put_key(b, field, WT_LEN);
	put_varint(b, len);
	pb_raw(b, data, len);
}

void pb_str(struct pbuf *b, uint32_t field, const char *s)
{
	pb_bytes(b, field, s, strlen(s));
}

void pb_begin(struct pbuf *b, uint32_t field)
{
	put_key(b, field, WT_LEN);
	if (b->depth >= PB_DEPTH) {
		b->oom = true;
		return;
	}
	if (!room(b, 1))
		return;
	b->p[b->len++] = 0;	/* the length's first byte, filled by pb_end */
	b->open[b->depth++] = b->len;
}

void pb_end(struct pbuf *b)
{
	uint8_t v[10];
	size_t start, body, n;

	if (b->oom || !b->depth)
		return;
	start = b->open[--b->depth];
	body = b->len - start;
	n = pb_varint_encode(v, body);
	if (n > 1) {
		if (!room(b, n - 1))
			return;
		memmove(b->p + start + n - 1, b->p + start, body);
		b->len += n - 1;
	}
	memcpy(b->p + start - 1, v, n);
}
