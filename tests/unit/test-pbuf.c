// SPDX-License-Identifier: MIT
/*
 * test-pbuf.c: the protocol buffers encoder (out/pbuf.h), byte for byte
 * against the examples of https://protobuf.dev/programming-guides/encoding/
 * and at the edges of a varint's length (nested messages of 127, 128 and
 * 16384 bytes, whose length the encoder moves the body for); and the
 * Perfetto writer (out/perfetto.h) read back with a small decoder: packet
 * framing, incremental timestamps, the absolute fallback for an event that
 * goes back in time, interning sent once per sequence.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/strbuf.h"
#include "out/pbuf.h"
#include "out/perfetto.h"
#include "t.h"

static int bytes_eq(const struct pbuf *b, const uint8_t *want, size_t n)
{
	return b->len == n && !memcmp(b->p, want, n);
}

static void test_spec_examples(void)
{
	struct pbuf b = PBUF_INIT;
	static const uint8_t v150[] = { 0x08, 0x96, 0x01 };
	static const uint8_t str[] = { 0x12, 0x07, 't', 'e', 's', 't', 'i', 'n', 'g' };
	static const uint8_t nested[] = { 0x1a, 0x03, 0x08, 0x96, 0x01 };
	static const uint8_t dbl[] = { 0x29, 0, 0, 0, 0, 0, 0, 0xf8, 0x3f };

	pb_varint(&b, 1, 150);
	CHECK(bytes_eq(&b, v150, sizeof(v150)));
	pb_reset(&b);
	pb_str(&b, 2, "testing");
	CHECK(bytes_eq(&b, str, sizeof(str)));
	pb_reset(&b);
	pb_begin(&b, 3);
	pb_varint(&b, 1, 150);
	pb_end(&b);
	CHECK(bytes_eq(&b, nested, sizeof(nested)));
	pb_reset(&b);
	pb_double(&b, 5, 1.5);
	CHECK(bytes_eq(&b, dbl, sizeof(dbl)));
	/* a negative int64 is its two's complement: ten bytes */
	pb_reset(&b);
	pb_varint(&b, 1, (uint64_t)(int64_t)-1);
	CHECK_INT(b.len, 11);
	CHECK_INT(b.p[10], 0x01);
	/* a field number over 15 takes a two-byte key: 58 -> 0xd0 0x03 */
	pb_reset(&b);
	pb_varint(&b, 58, 64);
	CHECK_INT(b.len, 3);
	CHECK_INT(b.p[0], 0xd0);
	CHECK_INT(b.p[1], 0x03);
	CHECK(!pb_failed(&b));
	pb_release(&b);
}

/* A nested message holding a bytes field of INNER bytes: its length is
 * minimal (WANT bytes) and the body follows it intact. */
static void nested_of(size_t inner, size_t want)
{
	struct pbuf b = PBUF_INIT;
	uint8_t *data = malloc(inner), len[10], hdr[10];
	size_t n, body = 1 + pb_varint_encode(hdr, inner) + inner;

	for (size_t i = 0; i < inner; i++)
		data[i] = (uint8_t)(i * 7);
	pb_begin(&b, 4);
	pb_bytes(&b, 1, data, inner);
	pb_end(&b);
	n = pb_varint_encode(len, body);
	CHECK_INT(n, want);
	CHECK_INT(b.len, 1 + n + body);
	CHECK_INT(b.p[0], 4 << 3 | 2);
	CHECK(!memcmp(b.p + 1, len, n));
	CHECK(!memcmp(b.p + b.len - inner, data, inner));
	free(data);
	pb_release(&b);
}

static void test_nested_lengths(void)
{
	struct pbuf b = PBUF_INIT;

	nested_of(100, 1);
	nested_of(125, 1);	/* a body of 127 bytes */
	nested_of(126, 2);	/* 128: the body moves one byte */
	nested_of(16380, 2);	/* 16383 */
	nested_of(16381, 3);	/* 16384 */
	/* two levels: the outer length counts the inner's two-byte length */
	{
		uint8_t big[200];

		memset(big, 0xab, sizeof(big));
		pb_begin(&b, 1);
		pb_begin(&b, 2);
		pb_bytes(&b, 3, big, sizeof(big));
		pb_end(&b);
		pb_end(&b);
		/* 1 key + 2 len + [1 key + 2 len + [1 key + 2 len + 200]] */
		CHECK_INT(b.len, 209);
		CHECK_INT(b.p[1], (206 & 0x7f) | 0x80);
		CHECK_INT(b.p[2], 206 >> 7);
		CHECK_INT(b.p[4], (203 & 0x7f) | 0x80);
		CHECK_INT(b.p[b.len - 1], 0xab);
	}
	/* too deep: a failure, not a crash */
	pb_reset(&b);
	for (int i = 0; i < PB_DEPTH + 1; i++)
		pb_begin(&b, 1);
	CHECK(pb_failed(&b));
	pb_release(&b);
}

/* ------------------------------------------------------- read back */

struct field {
	uint32_t num;
	unsigned wt;
	uint64_t v;		/* a varint, or a fixed64 */
	const uint8_t *p;	/* length-delimited */
	size_t len;
};

static uint64_t get_varint(const uint8_t **p, const uint8_t *end, int *bad)
{
	uint64_t v = 0;

	for (int s = 0; s < 64 && *p < end; s += 7) {
		uint8_t c = *(*p)++;

		v |= (uint64_t)(c & 0x7f) << s;
		if (!(c & 0x80))
			return v;
	}
	*bad = 1;
	return 0;
}

/* The next field at *P; 0 at the end, -1 for bytes that are not a message. */
static int next_field(const uint8_t **p, const uint8_t *end, struct field *f)
{
	int bad = 0;
	uint64_t key;

	if (*p >= end)
		return 0;
	key = get_varint(p, end, &bad);
	f->num = (uint32_t)(key >> 3);
	f->wt = key & 7;
	if (f->wt == 0) {
		f->v = get_varint(p, end, &bad);
	} else if (f->wt == 1) {
		if (end - *p < 8)
			return -1;
		memcpy(&f->v, *p, 8);
		*p += 8;
	} else if (f->wt == 2) {
		f->len = get_varint(p, end, &bad);
		if (bad || f->len > (size_t)(end - *p))
			return -1;
		f->p = *p;
		*p += f->len;
	} else {
		return -1;
	}
	return bad ? -1 : 1;
}

/* Field NUM's varint in the message at P (LEN bytes); -1 when absent. */
static int64_t field_varint(const uint8_t *p, size_t len, uint32_t num)
{
	const uint8_t *q = p;
	struct field f;
	int64_t v = -1;

	while (next_field(&q, p + len, &f) > 0)
		if (f.num == num && f.wt == 0)
			v = (int64_t)f.v;
	return v;
}

static int count_field(const uint8_t *p, size_t len, uint32_t num)
{
	const uint8_t *q = p;
	struct field f;
	int n = 0;

	while (next_field(&q, p + len, &f) > 0)
		n += f.num == num;
	return n;
}

static void test_perfetto_writer(void)
{
	char dir[] = "/tmp/ss-test-pbuf-XXXXXX", path[64];
	struct strbuf err = STRBUF_INIT;
	struct perfetto_out *o = NULL;
	struct perfetto_seq *s = NULL;
	struct perfetto_track t = { .kind = PERFETTO_TRACK_PLAIN, .uuid = 77, .name = "Frames" };
	uint8_t buf[4096];
	const uint8_t *p, *end;
	struct field f;
	int64_t ts[10], clk[10];
	int interned[10], n = 0;
	FILE *in;
	size_t len;

	t_tmpdir(dir);
	snprintf(path, sizeof(path), "%s/t.pftrace", dir);
	CHECK_INT(perfetto_out_open_fd(open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644), false,
				 &o, &err), 0);
	CHECK_INT(perfetto_out_clocks(o, 1000, 2000, 3000, false), 0);
	CHECK_INT(perfetto_seq_open(o, 2, 77, 1000, &s), 0);
	CHECK_INT(perfetto_track(s, &t), 0);
	perfetto_event(s, 1500, PERFETTO_BEGIN, "glx");
	CHECK_INT(perfetto_emit(s), 0);
	perfetto_event(s, 1800, PERFETTO_END, NULL);
	CHECK_INT(perfetto_emit(s), 0);
	perfetto_event(s, 1800, PERFETTO_BEGIN, "glx");	/* the name again: not interned again */
	perfetto_arg_istr(s, "cause", "disk");
	CHECK_INT(perfetto_emit(s), 0);
	perfetto_event(s, 1200, PERFETTO_INSTANT, "late");	/* back in time: absolute */
	CHECK_INT(perfetto_emit(s), 0);
	perfetto_event(s, 2100, PERFETTO_END, NULL);
	CHECK_INT(perfetto_emit(s), 0);
	perfetto_seq_free(s);
	CHECK_INT(perfetto_out_packets(o), 9);
	CHECK_INT(perfetto_out_close(o), 0);

	in = fopen(path, "rb");
	CHECK(in != NULL);
	if (!in)
		return;
	len = fread(buf, 1, sizeof(buf), in);
	fclose(in);
	p = buf;
	end = buf + len;
	while (next_field(&p, end, &f) > 0 && n < 10) {
		CHECK_INT(f.num, 1);	/* Trace.packet */
		CHECK_INT(f.wt, 2);
		ts[n] = field_varint(f.p, f.len, 8);
		clk[n] = field_varint(f.p, f.len, 58);
		interned[n] = count_field(f.p, f.len, 12);
		CHECK_INT(field_varint(f.p, f.len, 10), n ? 2 : 1);	/* sequence */
		n++;
	}
	CHECK(p == end);
	CHECK_INT(n, 9);
	/* clocks, defaults, the sequence's clock, the descriptor at the base,
	 * then deltas: 500, 300, 0; 1200 absolute on MONOTONIC (3); 300 */
	CHECK_INT(ts[3], 0);
	CHECK_INT(ts[4], 500);
	CHECK_INT(interned[4], 1);
	CHECK_INT(ts[5], 300);
	CHECK_INT(interned[5], 0);
	CHECK_INT(ts[6], 0);
	CHECK_INT(interned[6], 1);	/* "cause" and "disk", not "glx" */
	CHECK_INT(ts[7], 1200);
	CHECK_INT(clk[7], 3);
	CHECK_INT(clk[6], -1);
	CHECK_INT(ts[8], 300);	/* from 1800: the absolute one left the clock alone */
	t_rmtree(dir);
	sb_release(&err);
}

/* Field NUM's message in the message at P (LEN bytes): 1 with *F, or 0. */
static int field_msg(const uint8_t *p, size_t len, uint32_t num, struct field *f)
{
	const uint8_t *q = p;

	while (next_field(&q, p + len, f) > 0)
		if (f->num == num && f->wt == 2)
			return 1;
	return 0;
}

/* Callstack samples: frames, names and callstacks interned once per
 * sequence, the mappings with the first frame, a kernel frame in the
 * kernel mapping, frame ids outermost first. */
static void test_perfetto_callstacks(void)
{
	char dir[] = "/tmp/ss-test-pbuf-XXXXXX", path[64];
	struct strbuf err = STRBUF_INIT;
	struct perfetto_out *o = NULL;
	struct perfetto_seq *s = NULL;
	const struct perfetto_frame a[] = { { "main", false }, { "spin", false } };
	const struct perfetto_frame b[] = { { "main", false }, { "read", false }, { "schedule", true } };
	uint64_t ia, ib, ia2;
	uint8_t buf[4096];
	const uint8_t *p, *end;
	struct field f, in, ps, e;
	int n = 0, names[3] = { 0 }, frames[3] = { 0 }, stacks[3] = { 0 }, maps[3] = { 0 };
	int64_t cs[3] = { 0 }, mode[3] = { 0 }, tid[3] = { 0 }, kmap = -1, ids[3] = { 0 }, nids = 0;
	FILE *fp;
	size_t len;

	t_tmpdir(dir);
	snprintf(path, sizeof(path), "%s/t.pftrace", dir);
	CHECK_INT(perfetto_out_open_fd(open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644), false,
				 &o, &err), 0);
	CHECK_INT(perfetto_seq_open(o, 2, 77, 1000, &s), 0);
	ia = perfetto_callstack(s, a, 2);
	CHECK_INT(perfetto_sample(s, 1100, 10, 11, ia, false), 0);
	ia2 = perfetto_callstack(s, a, 2);
	CHECK_INT(ia2, ia);
	CHECK_INT(perfetto_sample(s, 1200, 10, 11, ia2, false), 0);
	ib = perfetto_callstack(s, b, 3);
	CHECK(ib != ia && ib != 0);
	CHECK_INT(perfetto_sample(s, 1300, 10, 12, ib, true), 0);
	perfetto_seq_free(s);
	CHECK_INT(perfetto_out_close(o), 0);

	fp = fopen(path, "rb");
	CHECK(fp != NULL);
	if (!fp)
		return;
	len = fread(buf, 1, sizeof(buf), fp);
	fclose(fp);
	p = buf;
	end = buf + len;
	while (next_field(&p, end, &f) > 0) {
		if (!field_msg(f.p, f.len, 66, &ps) || n >= 3)
			continue;	/* the sequence's first packets */
		cs[n] = field_varint(ps.p, ps.len, 4);
		mode[n] = field_varint(ps.p, ps.len, 5);
		tid[n] = field_varint(ps.p, ps.len, 3);
		CHECK_INT(field_varint(ps.p, ps.len, 2), 10);
		CHECK_INT(field_varint(f.p, f.len, 13), 2);	/* SEQ_NEEDS_INCREMENTAL_STATE */
		if (field_msg(f.p, f.len, 12, &in)) {
			const uint8_t *q = in.p;

			names[n] = count_field(in.p, in.len, 5);
			frames[n] = count_field(in.p, in.len, 6);
			stacks[n] = count_field(in.p, in.len, 7);
			maps[n] = count_field(in.p, in.len, 19);
			while (next_field(&q, in.p + in.len, &e) > 0) {
				if (e.num == 6 && e.wt == 2 && field_varint(e.p, e.len, 3) == 2)
					kmap = field_varint(e.p, e.len, 1);	/* the kernel frame */
				if (e.num == 7 && e.wt == 2 && n == 2) {
					const uint8_t *r = e.p;
					struct field g;

					while (next_field(&r, e.p + e.len, &g) > 0)
						if (g.num == 2 && g.wt == 0 && nids < 3)
							ids[nids++] = (int64_t)g.v;
				}
			}
		}
		n++;
	}
	CHECK_INT(n, 3);
	CHECK_INT(cs[0], (int64_t)ia);
	CHECK_INT(cs[1], (int64_t)ia);
	CHECK_INT(cs[2], (int64_t)ib);
	CHECK_INT(mode[0], 2);	/* MODE_USER */
	CHECK_INT(mode[2], 1);	/* MODE_KERNEL */
	CHECK_INT(tid[2], 12);
	/* first: main, spin, their stack, both mappings; second: nothing new;
	 * third: read and schedule, their stack, no mapping again */
	CHECK_INT(names[0], 2);
	CHECK_INT(frames[0], 2);
	CHECK_INT(stacks[0], 1);
	CHECK_INT(maps[0], 2);
	CHECK_INT(names[1] + frames[1] + stacks[1] + maps[1], 0);
	CHECK_INT(names[2], 2);
	CHECK_INT(frames[2], 2);
	CHECK_INT(stacks[2], 1);
	CHECK_INT(maps[2], 0);
	/* main (frame 1, shared), read (3), schedule (4, the kernel mapping's) */
	CHECK_INT(nids, 3);
	CHECK_INT(ids[0], 1);
	CHECK_INT(ids[1], 3);
	CHECK_INT(ids[2], 4);
	CHECK_INT(kmap, 4);
	t_rmtree(dir);
	sb_release(&err);
}

int main(void)
{
	T_RUN(test_spec_examples);
	T_RUN(test_nested_lengths);
	T_RUN(test_perfetto_writer);
	T_RUN(test_perfetto_callstacks);
	return t_exit();
}
