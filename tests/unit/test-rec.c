// SPDX-License-Identifier: MIT
/*
 * test-rec.c: the record format (src/rec): a round trip of everything a
 * record holds; a torn tail at every byte offset of the last block; unknown
 * record types skipped; a newer major refused and a newer minor read;
 * garbage, an empty file and damaged headers refused with a message; the
 * accessors of core/record.c.
 *
 * Files are written under $TMPDIR (or /tmp) and removed.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rec/codec.h"
#include "core/where.h"
#include "rec/rec.h"
#include "t.h"

static char tmp_path[4096];

static const char *tmpfile_path(const char *name)
{
	const char *dir = getenv("TMPDIR");

	snprintf(tmp_path, sizeof(tmp_path), "%s/test-rec-%d-%s", dir ? dir : "/tmp",
		 (int)getpid(), name);
	return tmp_path;
}

static uint8_t *slurp(const char *path, size_t *ret_len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc(n > 0 ? (size_t)n : 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	*ret_len = (size_t)n;
	return buf;
}

/* ------------------------------------------------------------ the fixture */

#define NF 6
#define NS 500
#define NFR 300

/* The values the fixture writes, so the checks can recompute them. */
static int64_t val(size_t i, size_t f, uint32_t *ids)
{
	switch (f) {
	case 0: return (int64_t)(i * 8000000 + (i * 7919) % 100000);	/* a counter */
	case 1: return i % 3 ? 'S' : 'R';				/* a state */
	case 2: return ids[i % 2];					/* a string */
	case 3: return -(int64_t)i * 3;					/* negative */
	case 4: return i == 250 ? INT64_MIN : (i == 251 ? INT64_MAX : 42);	/* extremes */
	default: return 0;						/* never changes */
	}
}

static uint64_t sample_t(size_t i)
{
	return 1000000000000ull + i * 10000000ull + (i * 104729) % 70000;
}

static uint64_t frame_t(size_t i)
{
	return 1000000000000ull + i * 16666667ull + (i % 10 == 9 ? 40000000 : 0);
}

/* Writes the fixture record to PATH, flushing every 100 samples; returns
 * the file size after each flush in FLUSHED (NS / 100 + 2 entries). */
static unsigned fixture_key_every = REC_KEY_EVERY;	/* test_damage sets 1 and 2 */

static int write_fixture(const char *path, bool close_it, uint64_t *flushed)
{
	struct rec_writer *w;
	uint32_t ids[2];
	int64_t vals[NF];
	size_t i, fr = 0, nfl = 0;
	int r;

	r = rec_writer_new(path, &w);
	if (r < 0)
		return r;
	CHECK_INT(rec_writer_key_every(w, fixture_key_every), 0);
	CHECK_INT(rec_writer_meta(w, "period_ns", "10000000"), 0);
	CHECK_INT(rec_writer_meta(w, "host", "test box"), 0);
	CHECK_INT(rec_writer_field(w, "ft.run_ns", REC_INT), 0);
	CHECK_INT(rec_writer_field(w, "ft.state", REC_INT), 1);
	CHECK_INT(rec_writer_field(w, "ft.wchan", REC_STR), 2);
	CHECK_INT(rec_writer_field(w, "neg", REC_INT), 3);
	CHECK_INT(rec_writer_field(w, "extreme", REC_INT), 4);
	CHECK_INT(rec_writer_field(w, "zero", REC_INT), 5);
	CHECK_INT(rec_writer_field(w, "zero", REC_INT), -EEXIST);
	CHECK_INT(rec_writer_begin(w), 0);
	CHECK_INT(rec_writer_field(w, "late", REC_INT), -EINVAL);
	flushed[nfl++] = rec_writer_bytes(w);
	ids[0] = rec_writer_intern(w, "do_epoll_wait");
	ids[1] = rec_writer_intern(w, "futex_wait_queue");
	CHECK_INT(ids[0], 1);
	CHECK_INT(ids[1], 2);
	CHECK_INT(rec_writer_intern(w, "do_epoll_wait"), 1);
	CHECK_INT(rec_writer_intern(w, ""), 0);
	CHECK_INT(rec_writer_intern(w, NULL), 0);
	CHECK_INT(rec_writer_clock(w, &(struct rec_clock){ 1000000000000ull, 1700000000123456789ull,
							   1000042000000ull }), 0);
	for (i = 0; i < NS; i++) {
		for (size_t f = 0; f < NF; f++)
			vals[f] = val(i, f, ids);
		CHECK_INT(rec_writer_sample(w, sample_t(i), vals), 0);
		while (fr < NFR && frame_t(fr) <= sample_t(i)) {
			struct rec_frame f = { frame_t(fr), fr < 100 ? 100 : 101,
					       fr == 200 ? 5 : 0 };

			CHECK_INT(rec_writer_frame(w, &f), 0);
			fr++;
		}
		if (i % 10 == 0) {
			struct rec_thread th[4] = {
				{ 100, ids[0], i * 5000000, (int32_t)(i % 2) },
				{ 101, ids[1], 777, 1 },
				{ 102 + (uint32_t)(i / 100), ids[1], i, -1 },
				{ 200, ids[0], i * 1000000000000ull, 3 },
			};

			CHECK_INT(rec_writer_threads(w, sample_t(i), th, i == 20 ? 0 : 4 - (i / 10) % 2), 0);
		}
		if (i == 123)
			CHECK_INT(rec_writer_event(w, sample_t(i), 100, "stack",
						   "[<0>] futex_wait\n[<0>] do_syscall_64"), 0);
		if (i == 124)
			CHECK_INT(rec_writer_event(w, sample_t(i) - 5, 0, "note", NULL), 0);
		if (i % 100 == 99) {
			CHECK_INT(rec_writer_flush(w), 0);
			flushed[nfl++] = rec_writer_bytes(w);
		}
	}
	for (; fr < NFR; fr++) {
		struct rec_frame f = { frame_t(fr), 101, 0 };

		CHECK_INT(rec_writer_frame(w, &f), 0);
	}
	if (close_it)
		return rec_writer_close(w);
	CHECK_INT(rec_writer_flush(w), 0);
	flushed[nfl++] = rec_writer_bytes(w);
	CHECK_INT(rec_writer_close(w), 0);
	return 0;
}

/* Checks R against the fixture's first NSAMP samples. */
static void check_fixture(const struct rec *r, size_t nsamp)
{
	uint32_t ids[2] = { 1, 2 };

	CHECK_INT(r->version_major, REC_VERSION_MAJOR);
	CHECK_INT(r->nfields, NF);
	CHECK_STR(r->fields[2].name, "ft.wchan");
	CHECK_INT(r->fields[2].kind, REC_STR);
	CHECK_STR(rec_meta_get(r, "host"), "test box");
	CHECK_STR(rec_meta_get(r, "period_ns"), "10000000");
	CHECK(rec_meta_get(r, "nope") == NULL);
	CHECK_INT(rec_field_index(r, "neg"), 3);
	CHECK_INT(rec_field_index(r, "nope"), -1);
	CHECK_INT(r->nsamples, nsamp);
	for (size_t i = 0; i < r->nsamples && i < nsamp; i++) {
		CHECK_INT(r->t_ns[i], sample_t(i));
		for (size_t f = 0; f < NF; f++) {
			int64_t want = val(i, f, ids);

			if (r->vals[i * NF + f] != want) {
				T_FAIL("sample %zu field %zu: %lld, expected %lld", i, f,
				       (long long)r->vals[i * NF + f], (long long)want);
				return;
			}
		}
	}
	CHECK_STR(rec_str(r, 1), "do_epoll_wait");
	CHECK_STR(rec_str(r, 2), "futex_wait_queue");
	CHECK_STR(rec_str(r, 0), "");
	CHECK_STR(rec_str(r, 999), "");
	CHECK_STR(rec_str(r, -1), "");
	CHECK_INT(r->nclocks, 1);
	if (r->nclocks) {
		CHECK_INT(r->clocks[0].mono_ns, 1000000000000ull);
		CHECK(r->clocks[0].real_ns == 1700000000123456789ull);
		CHECK(r->clocks[0].boot_ns == 1000042000000ull);	/* 2.1 */
	}
}

static void test_round_trip(void)
{
	const char *path = tmpfile_path("rt.ssr");
	uint64_t flushed[16];
	struct strbuf err = STRBUF_INIT;
	struct rec *r = NULL;
	size_t nfr = 0;

	CHECK_INT(write_fixture(path, true, flushed), 0);
	CHECK_INT(rec_read_file(path, &r, &err), 0);
	if (!r) {
		T_FAIL("read: %s", err.buf);
		return;
	}
	check_fixture(r, NS);
	CHECK(r->complete);
	CHECK_INT(r->torn_bytes, 0);
	CHECK_INT(r->unknown_records, 0);
	CHECK_INT(r->nframes, NFR);
	for (size_t i = 0; i < r->nframes; i++) {
		const struct rec_frame *f = &r->frames[i];

		if (f->t_ns != frame_t(i) || f->tid != (i < 100 ? 100u : 101u) ||
		    f->source != (i == 200 ? 5u : 0u)) {
			T_FAIL("frame %zu differs", i);
			break;
		}
		nfr++;
	}
	CHECK_INT(nfr, NFR);
	CHECK_INT(r->nthreads, NS / 10);
	for (size_t s = 0; s < r->nthreads; s++) {
		size_t i = s * 10, n = i == 20 ? 0 : 4 - (i / 10) % 2;
		const struct rec_threads *ts = &r->threads[s];
		struct rec_thread want[4] = {
			{ 100, 1, i * 5000000, (int32_t)(i % 2) },
			{ 101, 2, 777, 1 },
			{ 102 + (uint32_t)(i / 100), 2, i, -1 },
			{ 200, 1, i * 1000000000000ull, 3 },
		};

		CHECK_INT(ts->t_ns, sample_t(i));
		CHECK_INT(ts->n, n);
		for (size_t k = 0; k < ts->n && k < n; k++)
			if (ts->th[k].tid != want[k].tid || ts->th[k].name != want[k].name ||
			    ts->th[k].cpu_ns != want[k].cpu_ns || ts->th[k].cpu != want[k].cpu)
				T_FAIL("snapshot %zu thread %zu differs", s, k);
	}
	CHECK_INT(r->nevents, 2);
	if (r->nevents == 2) {
		CHECK_INT(r->events[0].t_ns, sample_t(123));
		CHECK_INT(r->events[0].tid, 100);
		CHECK_STR(r->events[0].kind, "stack");
		CHECK_STR(r->events[0].text, "[<0>] futex_wait\n[<0>] do_syscall_64");
		CHECK_INT(r->events[1].t_ns, sample_t(124) - 5);
		CHECK_STR(r->events[1].kind, "note");
		CHECK_STR(r->events[1].text, "");
	}
	rec_free(r);
	sb_release(&err);
	unlink(path);
}

/* A kill -9 while the last block was being written: cut the file at every
 * byte offset inside the last block; the reader keeps every earlier block
 * and counts the rest as torn. */
static void test_torn_tail(void)
{
	const char *path = tmpfile_path("torn.ssr");
	uint64_t flushed[16];
	size_t len, nfl = NS / 100 + 2, checked = 0;
	uint8_t *buf;

	CHECK_INT(write_fixture(path, false, flushed), 0);
	buf = slurp(path, &len);
	unlink(path);
	if (!buf) {
		T_FAIL("cannot read back '%s'", path);
		return;
	}
	/* Drop the end block that close wrote: what a kill -9 leaves. */
	CHECK(len > flushed[nfl - 1]);
	len = flushed[nfl - 1];
	/* The full file: whole, no end record. */
	{
		struct rec *r = NULL;

		CHECK_INT(rec_parse(buf, len, &r, NULL), 0);
		if (r) {
			check_fixture(r, NS);
			CHECK(!r->complete);
			CHECK_INT(r->torn_bytes, 0);
		}
		rec_free(r);
	}
	for (size_t cut = flushed[nfl - 2]; cut < len; cut++) {
		struct strbuf err = STRBUF_INIT;
		struct rec *r = NULL;
		int ret = rec_parse(buf, cut, &r, &err);

		if (ret != 0 || !r) {
			T_FAIL("cut at %zu: %d %s", cut, ret, err.buf);
			sb_release(&err);
			break;
		}
		if (r->torn_bytes != cut - flushed[nfl - 2] || r->nsamples != NS || r->complete) {
			T_FAIL("cut at %zu: torn %llu samples %zu", cut,
			       (unsigned long long)r->torn_bytes, r->nsamples);
			rec_free(r);
			break;
		}
		checked++;
		rec_free(r);
		sb_release(&err);
	}
	CHECK_INT(checked, len - flushed[nfl - 2]);
	/* And inside an earlier block: everything before it stays. */
	for (size_t b = 1; b + 1 < nfl; b++) {
		struct rec *r = NULL;
		size_t cut = flushed[b] + 5;

		CHECK_INT(rec_parse(buf, cut, &r, NULL), 0);
		if (!r)
			continue;
		CHECK_INT(r->nsamples, b * 100);
		CHECK_INT(r->torn_bytes, 5);
		rec_free(r);
	}
	free(buf);
}

/* Appends a block with payload P (N bytes) at BUF + *LEN. */
static void put_block(uint8_t *buf, size_t *len, const void *p, size_t n)
{
	uint8_t *b = buf + *len;

	le32_put(b, (uint32_t)n);
	memcpy(b + REC_BLOCK_HEADER, p, n);
	le32_put(b + 4, rec_crc32c(rec_crc32c(0, b, 4), b + REC_BLOCK_HEADER, n));
	*len += REC_BLOCK_HEADER + n;
}

/* A minimal file: the header and a header block with one field. */
static size_t minimal(uint8_t *buf, unsigned major, unsigned minor)
{
	static const uint8_t hdr_block[] = { RT_FIELD, 2, REC_INT, 'x' };
	size_t len = REC_FILE_HEADER;

	le64_put(buf, REC_MAGIC);
	le16_put(buf + 8, (uint16_t)major);
	le16_put(buf + 10, (uint16_t)minor);
	le32_put(buf + 12, 0);
	put_block(buf, &len, hdr_block, sizeof(hdr_block));
	return len;
}

static void test_unknown_and_versions(void)
{
	/* A newer minor adds a record type 200 and a type 9 with a longer
	 * payload: both read, the unknown one counted. */
	static const uint8_t data[] = {
		200, 3, 1, 2, 3,			/* unknown, skipped */
		/* 2 samples of x, Rice-coded bits (LSB first): t: zz 10 = ten
		 * 1s and a 0; one toggle: 10; gap 0: 0; x: zz(7) - 1 = 13:
		 * thirteen 1s and a 0; then t: 0, one toggle: 10, gap: 0. */
		RT_SAMPLES, 5, 2, 0xff, 0xcb, 0xff, 0x27,
		RT_CLOCK, 2, 1, 2,
		250, 0,					/* unknown, empty */
		RT_END, 3, 2, 0, 9,			/* end, with an extra byte */
	};
	uint8_t buf[256];
	size_t len;
	struct strbuf err = STRBUF_INIT;
	struct rec *r = NULL;

	len = minimal(buf, REC_VERSION_MAJOR, REC_VERSION_MINOR + 3);
	put_block(buf, &len, data, sizeof(data));
	CHECK_INT(rec_parse(buf, len, &r, &err), 0);
	if (r) {
		CHECK_INT(r->version_minor, REC_VERSION_MINOR + 3);
		CHECK_INT(r->unknown_records, 2);
		CHECK_INT(r->nsamples, 2);
		CHECK_INT(r->nclocks, 1);
		CHECK(r->complete);
		CHECK_INT(r->t_ns[0], 5);
		CHECK_INT(r->t_ns[1], 5);
		CHECK_INT(r->vals[0], 7);
		CHECK_INT(r->vals[1], 7);
	}
	rec_free(r);
	r = NULL;

	/* A newer major is refused, saying so. */
	sb_reset(&err);
	len = minimal(buf, REC_VERSION_MAJOR + 1, 0);
	CHECK_INT(rec_parse(buf, len, &r, &err), -EPROTONOSUPPORT);
	CHECK(r == NULL);
	{
		char want[80];

		snprintf(want, sizeof(want), "version %d.0 is newer than this reader (%d.%d)",
			 REC_VERSION_MAJOR + 1, REC_VERSION_MAJOR, REC_VERSION_MINOR);
		CHECK(strstr(err.buf, want) != NULL);
	}
	sb_reset(&err);
	len = minimal(buf, 0, 0);
	CHECK_INT(rec_parse(buf, len, &r, &err), -EINVAL);

	/* Written on a big-endian machine (magic read swapped). */
	sb_reset(&err);
	len = minimal(buf, 1, 0);
	for (int i = 0; i < 4; i++) {
		uint8_t t = buf[i];

		buf[i] = buf[7 - i];
		buf[7 - i] = t;
	}
	CHECK_INT(rec_parse(buf, len, &r, &err), -EPROTONOSUPPORT);
	CHECK(strstr(err.buf, "big-endian") != NULL);
	sb_release(&err);
}

static void test_bad_files(void)
{
	static const char *garbage[] = {
		"", "X", "SSREC", "SSREC\r\n\x1a", "hello, world, this is not a record",
		"SSREC\r\n\x1a\x01\x00\x00\x00\x00\x00\x00\x00",	/* header, no block */
	};
	static const char *want[] = {
		"offset 0: empty file", "offset 0: not a stallscope record",
		"offset 0: file ends inside the file header",
		"offset 0: file ends inside the file header",
		"offset 0: not a stallscope record (bad magic)",
		"offset 16: file ends before the header block",
	};
	uint8_t buf[256];
	size_t len;

	for (size_t i = 0; i < sizeof(garbage) / sizeof(garbage[0]); i++) {
		struct strbuf err = STRBUF_INIT;
		struct rec *r = NULL;
		size_t n = i == 5 ? 16 : strlen(garbage[i]);

		CHECK_INT(rec_parse(garbage[i], n, &r, &err), -EINVAL);
		CHECK(r == NULL);
		if (strncmp(err.buf, want[i], strlen(want[i])))
			T_FAIL("garbage %zu: message '%s', expected '%s...'", i, err.buf, want[i]);
		sb_release(&err);
	}

	/* A damaged header block is an error, not a torn tail. */
	len = minimal(buf, 1, 0);
	buf[len - 1] ^= 1;
	{
		struct strbuf err = STRBUF_INIT;
		struct rec *r = NULL;

		CHECK_INT(rec_parse(buf, len, &r, &err), -EINVAL);
		CHECK_STR(err.buf, "offset 16: the header block is torn or damaged");
		sb_release(&err);
	}

	/* A whole block whose records do not decode: an error naming the offset. */
	{
		static const uint8_t data[] = { RT_SAMPLES, 5, 1, 3, 0, 0, 0 };
		struct strbuf err = STRBUF_INIT;
		struct rec *r = NULL;

		len = minimal(buf, 1, 0);
		put_block(buf, &len, data, sizeof(data));
		CHECK_INT(rec_parse(buf, len, &r, &err), -EINVAL);
		CHECK(strstr(err.buf, "offset 36: samples record") != NULL);
		sb_release(&err);
	}

	/* A file that is not there. */
	{
		struct strbuf err = STRBUF_INIT;
		struct rec *r = NULL;

		CHECK_INT(rec_read_file("/nonexistent/x.ssr", &r, &err), -ENOENT);
		CHECK_STR(err.buf, "cannot open '/nonexistent/x.ssr': No such file or directory");
		sb_release(&err);
	}
}

/* A few bytes can stand for many values (a sample of unchanged fields is 2
 * bits); the reader refuses a file that would expand past its cap instead
 * of allocating gigabytes. */
static void test_expansion_cap(void)
{
	enum { NFLD = 60000, NSMP = 8000 };
	size_t cap = REC_FILE_HEADER + 2 * REC_BLOCK_HEADER + NFLD * 10 + NSMP / 4 + 16, len, n;
	uint8_t *buf = calloc(1, cap), *hb, *sb;
	struct strbuf err = STRBUF_INIT;
	struct rec *r = NULL;

	if (!buf)
		return;
	minimal(buf, 1, 0);	/* its file header; the header block is replaced */
	len = REC_FILE_HEADER;
	hb = buf + len + REC_BLOCK_HEADER;
	n = 0;
	for (int f = 0; f < NFLD; f++) {
		char name[8];
		int k = snprintf(name, sizeof(name), "f%d", f);

		hb[n++] = RT_FIELD;
		hb[n++] = (uint8_t)(k + 1);
		hb[n++] = REC_INT;
		memcpy(hb + n, name, (size_t)k);
		n += (size_t)k;
	}
	{
		uint8_t *b = buf + len;

		le32_put(b, (uint32_t)n);
		le32_put(b + 4, rec_crc32c(rec_crc32c(0, b, 4), b + REC_BLOCK_HEADER, n));
		len += REC_BLOCK_HEADER + n;
	}
	/* NSMP samples, all zero bits: time as predicted, no toggles. */
	sb = malloc(NSMP / 4 + 8);
	if (sb) {
		size_t m = 0;

		sb[m++] = RT_SAMPLES;
		m += varint_put(sb + m, 2 + NSMP / 4);	/* the count's varint is 2 bytes */
		m += varint_put(sb + m, NSMP);
		memset(sb + m, 0, NSMP / 4);
		m += NSMP / 4;
		put_block(buf, &len, sb, m);
		CHECK_INT(rec_parse(buf, len, &r, &err), -EINVAL);
		CHECK(strstr(err.buf, "more values than a file this size can hold") != NULL);
		CHECK(r == NULL);
	}
	free(sb);
	free(buf);
	sb_release(&err);
}

/* A checksum that does not match in a middle block ends the reading there:
 * what follows counts as torn. */
static void test_bad_crc_middle(void)
{
	static const uint8_t data[] = { RT_CLOCK, 2, 1, 2 };
	uint8_t buf[256];
	size_t len, mid;
	struct rec *r = NULL;

	len = minimal(buf, 1, 0);
	put_block(buf, &len, data, sizeof(data));
	mid = len;
	put_block(buf, &len, data, sizeof(data));
	put_block(buf, &len, data, sizeof(data));
	buf[mid + REC_BLOCK_HEADER + 2] ^= 0x40;
	CHECK_INT(rec_parse(buf, len, &r, NULL), 0);
	if (r) {
		CHECK_INT(r->nclocks, 1);
		CHECK_INT(r->torn_bytes, len - mid);
		CHECK_INT(r->torn_off, mid);
		/* a finished writer's tail that does not check out: damage */
		CHECK_INT(rec_torn_to_damage(r), 1);
		CHECK_INT(r->torn_bytes, 0);
		CHECK_INT(r->ndamage, 1);
		CHECK_INT(r->damage[0].off, mid);
		CHECK_INT(r->damage[0].bytes, len - mid);
		CHECK_INT(r->damage[0].t_after_ns, 0);
		CHECK_INT(r->damaged_bytes, len - mid);
		CHECK_INT(rec_torn_to_damage(r), 0);
		CHECK_INT(r->ndamage, 1);
	}
	rec_free(r);
}

/* The fixture written with a key block every KEY_EVERY blocks, read back
 * into memory (the caller frees it); NULL after a failed check. */
static uint8_t *fixture_bytes(const char *path, unsigned key_every, uint64_t *flushed,
			      size_t *ret_len)
{
	uint8_t *buf;

	fixture_key_every = key_every;
	CHECK_INT(write_fixture(path, false, flushed), 0);
	fixture_key_every = REC_KEY_EVERY;
	buf = slurp(path, ret_len);
	unlink(path);
	if (!buf)
		T_FAIL("cannot read back '%s'", path);
	return buf;
}

/* One flipped byte in any data block: damage, not a torn tail. Every other
 * block is read, exactly (each block is a key block: the coding state
 * restarts there), the lost span is counted with the stamps around it, and
 * the end record is still found. */
static void test_damage(void)
{
	const char *path = tmpfile_path("damage.ssr");
	uint64_t flushed[16];
	size_t len;
	uint8_t *buf;
	uint32_t ids[2] = { 1, 2 };

	buf = fixture_bytes(path, 1, flushed, &len);
	if (!buf)
		return;
	for (size_t b = 0; b < NS / 100; b++) {
		struct strbuf err = STRBUF_INIT;
		struct rec *r = NULL;
		size_t at = flushed[b] + REC_BLOCK_HEADER + 40, bad = 0;

		buf[at] ^= 0x10;
		CHECK_INT(rec_parse(buf, len, &r, &err), 0);
		buf[at] ^= 0x10;
		if (!r) {
			T_FAIL("block %zu: %s", b, err.buf);
			sb_release(&err);
			continue;
		}
		CHECK_INT(r->torn_bytes, 0);
		CHECK(r->complete);
		CHECK_INT(r->ndamage, 1);
		CHECK_INT(r->damaged_bytes, flushed[b + 1] - flushed[b]);
		CHECK_INT(r->nsamples, NS - 100);
		if (r->ndamage == 1) {
			CHECK_INT(r->damage[0].off, flushed[b]);
			CHECK_INT(r->damage[0].bytes, flushed[b + 1] - flushed[b]);
			/* the span: from the last stamp before to the first after */
			CHECK(b == 0 ? r->damage[0].t_before_ns == 0
				     : r->damage[0].t_before_ns >= sample_t(100 * b - 1));
			CHECK(r->damage[0].t_before_ns < sample_t(100 * b));
			CHECK(r->damage[0].t_after_ns > sample_t(100 * b + 99));
			CHECK(b + 1 == NS / 100 || r->damage[0].t_after_ns <= sample_t(100 * b + 100));
		}
		for (size_t i = 0; i < r->nsamples && !bad; i++) {
			size_t k = i < 100 * b ? i : i + 100;	/* the sample it was */

			if (r->t_ns[i] != sample_t(k))
				bad = i + 1;
			for (size_t f = 0; f < NF && !bad; f++)
				if (r->vals[i * NF + f] != val(k, f, ids))
					bad = i + 1;
		}
		if (bad)
			T_FAIL("block %zu damaged: sample %zu read wrong", b, bad - 1);
		/* strings are written again after a key: still resolved */
		CHECK_STR(rec_str(r, 1), "do_epoll_wait");
		CHECK_STR(rec_str(r, 2), "futex_wait_queue");
		/* the frames read are frames written, in order, with only the
		 * damaged block's missing */
		for (size_t i = 0, k = 0; i < r->nframes; i++, k++) {
			while (k < NFR && frame_t(k) != r->frames[i].t_ns)
				k++;
			if (k == NFR) {
				T_FAIL("block %zu damaged: frame %zu was not written", b, i);
				break;
			}
		}
		CHECK(r->nframes < NFR && r->nframes > NFR - 80);
		rec_free(r);
		sb_release(&err);
	}
	/* Two damaged blocks: two spans. Then the file cut inside the block
	 * after the second: no whole block follows that damage, so from there
	 * it is a torn tail (as a crash in the middle of writing leaves). */
	{
		struct rec *r = NULL;

		buf[flushed[1] + REC_BLOCK_HEADER + 40] ^= 1;
		buf[flushed[3] + REC_BLOCK_HEADER + 40] ^= 1;
		CHECK_INT(rec_parse(buf, len, &r, NULL), 0);
		if (r) {
			CHECK_INT(r->ndamage, 2);
			CHECK_INT(r->nsamples, NS - 200);
			CHECK_INT(r->torn_bytes, 0);
			CHECK(r->complete);
		}
		rec_free(r);
		r = NULL;
		CHECK_INT(rec_parse(buf, flushed[4] + 30, &r, NULL), 0);
		if (r) {
			CHECK_INT(r->ndamage, 1);
			CHECK_INT(r->nsamples, NS - 300);
			CHECK_INT(r->torn_bytes, flushed[4] + 30 - flushed[3]);
			CHECK(!r->complete);
		}
		rec_free(r);
	}
	free(buf);
	/* A key every 2nd block (data blocks 0, 2, 4 are keys): damage in
	 * block 2 loses blocks 2 (damaged) and 3 (whole, but it edits the state
	 * block 2 left), and reading goes on at block 4, a key block again; its
	 * samples are exact. */
	buf = fixture_bytes(path, 2, flushed, &len);
	if (!buf)
		return;
	buf[flushed[2] + REC_BLOCK_HEADER + 40] ^= 4;
	{
		struct rec *r = NULL;

		CHECK_INT(rec_parse(buf, len, &r, NULL), 0);
		if (r) {
			CHECK_INT(r->ndamage, 1);
			CHECK_INT(r->damaged_bytes, flushed[4] - flushed[2]);
			CHECK_INT(r->nsamples, NS - 200);
			if (r->nsamples == NS - 200) {
				CHECK_INT(r->t_ns[200], sample_t(400));
				CHECK_INT(r->vals[200 * NF], val(400, 0, ids));
				CHECK_INT(r->vals[299 * NF + 3], val(499, 3, ids));
				CHECK_INT(r->vals[299 * NF + 2], val(499, 2, ids));
			}
			CHECK(r->complete);
		}
		rec_free(r);
	}
	free(buf);
}

static void test_crc32c(void)
{
	CHECK_INT(rec_crc32c(0, "123456789", 9), 0xe3069283u);
	CHECK_INT(rec_crc32c(rec_crc32c(0, "1234", 4), "56789", 5), 0xe3069283u);
	CHECK_INT(rec_crc32c(0, "", 0), 0);
}

static void test_varint(void)
{
	static const uint64_t v[] = { 0, 1, 127, 128, 300, UINT32_MAX, UINT64_MAX / 2,
				      UINT64_MAX };
	uint8_t b[16];

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		size_t n = varint_put(b, v[i]);
		struct cur c = { b, b + n };
		uint64_t got = 0;

		CHECK(cur_varint(&c, &got));
		CHECK(got == v[i]);
		CHECK(c.p == b + n);
		c = (struct cur){ b, b + n - 1 };
		CHECK(!cur_varint(&c, &got));	/* truncated */
		CHECK(zz_dec(zz_enc((int64_t)v[i])) == (int64_t)v[i]);
	}
	/* 11 bytes, and 10 bytes whose last carries bits beyond 64 */
	memset(b, 0xff, 11);
	b[10] = 1;
	{
		struct cur c = { b, b + 11 };
		uint64_t got;

		CHECK(!cur_varint(&c, &got));
		b[9] = 2;
		c = (struct cur){ b, b + 10 };
		CHECK(!cur_varint(&c, &got));
	}
	CHECK_INT(zz_enc(-1), 1);
	CHECK_INT(zz_enc(1), 2);
	CHECK(zz_enc(INT64_MIN) == UINT64_MAX);
}

/* Structs built by hand are freed by rec_free too; NULL is fine. */
static void test_record_accessors(void)
{
	struct rec *r = calloc(1, sizeof(*r));

	rec_free(NULL);
	CHECK(rec_meta_get(NULL, "x") == NULL);
	CHECK_INT(rec_field_index(NULL, "x"), -1);
	CHECK_STR(rec_str(NULL, 1), "");
	if (!r)
		return;
	r->nmeta = 2;
	r->meta = calloc(2, sizeof(*r->meta));
	r->meta[0] = (struct rec_meta){ strdup("k"), strdup("old") };
	r->meta[1] = (struct rec_meta){ strdup("k"), strdup("new") };
	CHECK_STR(rec_meta_get(r, "k"), "new");
	r->nevents = 1;
	r->events = calloc(1, sizeof(*r->events));
	r->events[0] = (struct rec_event){ 1, 2, strdup("note"), strdup("x") };
	rec_free(r);
}

/* Every frame source has its run.ini name (frames_<name>); 9 and over
 * have none. */
static void test_source_names(void)
{
	static const char *const want[] = { "marker", "glx",  "egl",  "vk",
					    "hud",    "xshm", "xput", "wlshm" };

	CHECK(rec_source_name(0) == NULL);
	for (uint32_t s = 1; s <= REC_SOURCE_MAX; s++)
		CHECK_STR(rec_source_name(s), want[s - 1]);
	CHECK_INT(REC_SOURCE_MAX, 8);
	CHECK_INT(REC_SOURCE_HUD, 5);
	CHECK(rec_source_name(9) == NULL);
	CHECK(rec_source_name(UINT32_MAX) == NULL);
}

static uint64_t rng_state = 88172645463325252ull;

static uint64_t rnd64(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* A value drawn from a mix of what the coder must survive: steady counters,
 * small noise, huge jumps, the int64 extremes, random 64-bit words. */
static int64_t wild(int64_t prev, size_t i, size_t f)
{
	switch ((f + i / 97) % 7) {
	case 0: return (int64_t)((uint64_t)prev + 1000000 + rnd64() % 1000);
	case 1: return prev;
	case 2: return (int64_t)rnd64();
	case 3: return rnd64() % 3 ? prev : (rnd64() % 2 ? INT64_MIN : INT64_MAX);
	case 4: return (int64_t)((uint64_t)prev + rnd64() % 5 - 2);
	case 5: return (int64_t)(rnd64() >> (rnd64() % 64));
	default: return rnd64() % 10 ? prev : (int64_t)(0 - (uint64_t)prev);
	}
}

/* Random values, times and snapshots through writer and reader, with blocks
 * large enough for the writer to end them on its own (1 MiB). */
/* Handed on (rec_stream's on_sample, on_apispan): what a streamed reader
 * is given, against what was written. */
struct handed {
	const uint64_t *t;
	const int64_t *vals;	/* nf a sample */
	size_t nf, n, bad;
	const struct rec_apispan *sp;
	size_t nsp;
};

static int handed_sample(void *ctx, const struct rec *r, uint64_t t, const int64_t *row)
{
	struct handed *h = ctx;

	if (r->nsamples || t != h->t[h->n] || memcmp(row, h->vals + h->n * h->nf, h->nf * sizeof(*row)))
		h->bad++;
	h->n++;
	return 0;
}

static int handed_apispan(void *ctx, const struct rec *r, const struct rec_apispan *sp)
{
	struct handed *h = ctx;

	if (r->napispans || memcmp(sp, &h->sp[h->nsp], sizeof(*sp)) ||
	    !*rec_str(r, sp->name))
		h->bad++;
	h->nsp++;
	return 0;
}

static void test_random_round_trip(void)
{
	enum { RF = 9, RS = 60000, RT = 7 };
	const char *path = tmpfile_path("random.ssr");
	static int64_t want[RS][RF];
	static uint64_t want_t[RS];
	struct rec_thread th[64], want_th[5][64];
	size_t want_n[5];
	struct rec_writer *w;
	struct rec *r = NULL;
	struct strbuf err = STRBUF_INIT;
	uint64_t t = 12345;
	size_t bad = 0;

	CHECK_INT(rec_writer_new(path, &w), 0);
	CHECK_INT(rec_writer_meta(w, "period_ns", "1000"), 0);
	for (int f = 0; f < RF; f++) {
		char name[16];

		snprintf(name, sizeof(name), "f%d", f);
		CHECK_INT(rec_writer_field(w, name, f == 3 ? REC_STR : REC_INT), f);
	}
	CHECK_INT(rec_writer_begin(w), 0);
	/* Changing the period after begin changes nothing for the coding. */
	CHECK_INT(rec_writer_meta(w, "period_ns", "77"), 0);
	for (size_t i = 0; i < RS; i++) {
		switch (i % 5) {
		case 0: t += 1000; break;
		case 1: t += rnd64() % 100000; break;
		case 2: t -= rnd64() % 50; break;
		case 3: t = i % 1000 == 3 ? rnd64() : t + 1000; break;
		default: t += 1000 + rnd64() % 7; break;
		}
		want_t[i] = t;
		for (size_t f = 0; f < RF; f++)
			want[i][f] = wild(i ? want[i - 1][f] : 0, i, f);
		if (rec_writer_sample(w, t, want[i]) != 0)
			bad++;
		if (i % 12345 == 0) {
			struct rec_frame fr = { rnd64(), (uint32_t)rnd64(), (uint32_t)rnd64() };

			CHECK_INT(rec_writer_frame(w, &fr), 0);
		}
	}
	CHECK_INT(bad, 0);
	/* Snapshots: grow, reverse (past the writer's search window), drop,
	 * add, empty. */
	for (int s = 0; s < 5; s++) {
		size_t n = s == 0 ? 10 : s == 1 ? 64 : s == 2 ? 64 : s == 3 ? 20 : 0;

		for (size_t k = 0; k < n; k++) {
			uint32_t tid = s == 2 ? (uint32_t)(1000 - k) : (uint32_t)(100 + k * (s + 1));

			th[k] = (struct rec_thread){ tid, (uint32_t)(k % 3), rnd64() % 4 ? k * 7 : rnd64(),
						     (int32_t)(rnd64() % 4) - 1 };
			if (s == 2 && k % 2)
				th[k].cpu = INT32_MIN;
		}
		memcpy(want_th[s], th, n * sizeof(*th));
		want_n[s] = n;
		CHECK_INT(rec_writer_threads(w, (uint64_t)s * 1000000, th, n), 0);
	}
	CHECK(rec_writer_bytes(w) > 1000000);
	CHECK_INT(rec_writer_close(w), 0);

	{
		/* each sample handed on as written, none kept */
		struct handed h = { .t = want_t, .vals = &want[0][0], .nf = RF };
		struct rec_stream rs = { .on_sample = handed_sample, .ctx = &h };

		CHECK_INT(rec_read_file_stream(path, &rs, &r, &err), 0);
		CHECK_INT(h.n, RS);
		CHECK_INT(h.bad, 0);
		CHECK(r && !r->nsamples && r->nsamples_read == RS);
		rec_free(r);
		r = NULL;
	}
	CHECK_INT(rec_read_file(path, &r, &err), 0);
	unlink(path);
	if (!r) {
		T_FAIL("read: %s", err.buf);
		sb_release(&err);
		return;
	}
	CHECK_INT(r->nsamples, RS);
	CHECK_STR(rec_meta_get(r, "period_ns"), "77");
	for (size_t i = 0; i < r->nsamples && i < RS; i++) {
		if (r->t_ns[i] != want_t[i]) {
			T_FAIL("sample %zu: t %llu, expected %llu", i, (unsigned long long)r->t_ns[i],
			       (unsigned long long)want_t[i]);
			break;
		}
		if (memcmp(&r->vals[i * RF], want[i], sizeof(want[i]))) {
			T_FAIL("sample %zu differs", i);
			break;
		}
	}
	CHECK_INT(r->nthreads, 5);
	for (size_t s = 0; s < r->nthreads && s < 5; s++) {
		CHECK_INT(r->threads[s].n, want_n[s]);
		/* field by field: struct rec_thread has padding, which neither
		 * side promises (a stack array holds what ran before) */
		for (size_t k = 0; r->threads[s].n == want_n[s] && k < want_n[s]; k++) {
			const struct rec_thread *a = &r->threads[s].th[k], *b = &want_th[s][k];

			if (a->tid != b->tid || a->name != b->name || a->cpu_ns != b->cpu_ns ||
			    a->cpu != b->cpu) {
				T_FAIL("snapshot %zu differs at thread %zu", s, k);
				break;
			}
		}
	}
	CHECK(r->complete);
	rec_free(r);
	sb_release(&err);
}

/*
 * rec_writer_sample_same (issue 31: the recorder's unchanged sample) writes
 * the bytes rec_writer_sample writes for the same values: two writers take
 * the same samples, one always by rec_writer_sample, the other by
 * rec_writer_sample_same whenever the values repeat the last sample's.
 * The values: long runs of repeats (a sleeping program), broken by fields
 * that move every 10th sample (the slow sources), now and then (a disk), at
 * a steady rate for a while (lin), in bursts (dense), and a string field;
 * timestamps with jitter; small blocks and a key every 2, so that segments
 * start inside runs of repeats.
 */
static void test_sample_same(void)
{
	enum { SF = 12, SS = 20000 };
	const char *pa = tmpfile_path("full.ssr");
	char pb[4096];
	struct rec_writer *wa, *wb;
	int64_t v[SF] = { 0 }, prev[SF] = { 0 };
	uint64_t t = 1000000;
	size_t same = 0, bad = 0, na = 0, nb = 0;
	uint8_t *a, *b;

	snprintf(pb, sizeof(pb), "%s", tmpfile_path("same.ssr"));
	pa = tmpfile_path("full.ssr");
	CHECK_INT(rec_writer_new(pa, &wa), 0);
	CHECK_INT(rec_writer_new(pb, &wb), 0);
	for (int k = 0; k < 2; k++) {
		struct rec_writer *w = k ? wb : wa;

		CHECK_INT(rec_writer_meta(w, "period_ns", "10000000"), 0);
		CHECK_INT(rec_writer_key_every(w, 2), 0);
		for (int f = 0; f < SF; f++) {
			char name[16];

			snprintf(name, sizeof(name), "f%d", f);
			CHECK_INT(rec_writer_field(w, name, f == 5 ? REC_STR : REC_INT), f);
		}
		CHECK_INT(rec_writer_begin(w), 0);
	}
	for (size_t i = 0; i < SS; i++) {
		bool burst = (i / 700) % 4 == 1, quiet = (i / 300) % 3 != 0;

		t += 10000000 + rnd64() % 20000;
		if (i % 10 == 0 && !quiet)
			v[0] += 10;
		if (i % 10 == 0)
			v[1] = (int64_t)(rnd64() % 1000);
		if (rnd64() % 500 == 0)
			v[2]++;
		if (!quiet)
			v[3] += 7;			/* a steady rate */
		if (burst && rnd64() % 2)
			v[4] = (int64_t)rnd64();	/* dense while it lasts */
		if (rnd64() % 1000 == 0)
			v[5] = (int64_t)(1 + rnd64() % 3);	/* string ids */
		if (!quiet && rnd64() % 3 == 0)
			v[6 + rnd64() % (SF - 6)] += (int64_t)(rnd64() % 5) - 2;
		if (i == 0 || memcmp(v, prev, sizeof(v))) {
			if (rec_writer_sample(wb, t, v) != 0)
				bad++;
		} else {
			same++;
			if (rec_writer_sample_same(wb, t, v) != 0)
				bad++;
		}
		if (rec_writer_sample(wa, t, v) != 0)
			bad++;
		memcpy(prev, v, sizeof(v));
	}
	CHECK_INT(bad, 0);
	CHECK(same > SS / 3);
	CHECK_INT(rec_writer_close(wa), 0);
	CHECK_INT(rec_writer_close(wb), 0);
	a = slurp(pa, &na);
	b = slurp(pb, &nb);
	CHECK(a && b && na > 0);
	CHECK_INT(nb, na);
	if (a && b && na > 0 && nb == na && memcmp(a, b, na) != 0) {
		size_t at = 0;

		while (a[at] == b[at])
			at++;
		T_FAIL("the repeats' record differs from byte %zu of %zu", at, na);
	}
	free(a);
	free(b);
	unlink(pa);
	unlink(pb);
}

/* The writer's refusals, and a record with no fields at all. */
static void test_writer_edges(void)
{
	const char *path = tmpfile_path("edges.ssr");
	struct rec_writer *w = NULL;
	struct rec *r = NULL;
	char *big = malloc(200000);

	CHECK_INT(rec_writer_new("/nonexistent/dir/x.ssr", &w), -ENOENT);
	CHECK_INT(rec_writer_close(NULL), 0);
	CHECK_INT(rec_writer_new(path, &w), 0);
	CHECK_INT(rec_writer_sample(w, 1, NULL), -EINVAL);	/* before begin */
	CHECK_INT(rec_writer_field(w, "", REC_INT), -EINVAL);
	CHECK_INT(rec_writer_field(w, "x", (enum rec_kind)9), -EINVAL);
	CHECK_INT(rec_writer_meta(w, "", "v"), -EINVAL);
	CHECK_INT(rec_writer_begin(w), 0);
	CHECK_INT(rec_writer_begin(w), -EINVAL);
	for (uint64_t i = 0; i < 10; i++)
		CHECK_INT(rec_writer_sample(w, i * i, NULL), 0);
	if (big) {
		memset(big, 'a', 199999);
		big[199999] = 0;
		CHECK_INT(rec_writer_event(w, 5, 1, "stack", big), 0);
	}
	CHECK_INT(rec_writer_event(w, 5, 1, "", "x"), -EINVAL);
	CHECK_INT(rec_writer_close(w), 0);
	CHECK_INT(rec_read_file(path, &r, NULL), 0);
	unlink(path);
	if (r) {
		CHECK_INT(r->nfields, 0);
		CHECK_INT(r->nsamples, 10);
		CHECK_INT(r->t_ns[9], 81);
		CHECK_INT(r->nevents, 1);
		if (r->nevents && big)
			CHECK(!strcmp(r->events[0].text, big));
	}
	rec_free(r);
	free(big);
}

/* 2.2: API spans come back as written, a bad one is refused, and a span's
 * name is a string of the record. */
static void test_apispans(void)
{
	const char *path = tmpfile_path("spans.ssr");
	struct rec_writer *w = NULL;
	struct rec *r = NULL;
	struct rec_apispan sp[2] = { { 1000000000ull, 281000000ull, 42, 0 },
				     { 2000000000ull, 1000000ull, 43, 0 } };
	struct rec_apispan bad = { UINT64_MAX, 2, 1, 0 };

	CHECK_INT(rec_writer_new(path, &w), 0);
	CHECK_INT(rec_writer_begin(w), 0);
	sp[0].name = rec_writer_intern(w, "glLinkProgram");
	sp[1].name = rec_writer_intern(w, "vkWaitForFences");
	CHECK_INT(rec_writer_apispan(w, &sp[0]), 0);
	CHECK_INT(rec_writer_flush(w), 0);
	CHECK_INT(rec_writer_apispan(w, &sp[1]), 0);
	CHECK_INT(rec_writer_apispan(w, &bad), -EINVAL);
	CHECK_INT(rec_writer_close(w), 0);
	{
		/* handed on, not kept */
		struct handed h = { .sp = sp };
		struct rec_stream rs = { .on_apispan = handed_apispan, .ctx = &h };

		CHECK_INT(rec_read_file_stream(path, &rs, &r, NULL), 0);
		CHECK_INT(h.nsp, 2);
		CHECK_INT(h.bad, 0);
		rec_free(r);
		r = NULL;
	}
	CHECK_INT(rec_read_file(path, &r, NULL), 0);
	unlink(path);
	if (!r)
		return;
	CHECK_INT(r->version_minor, 3);
	CHECK_INT(r->unknown_records, 0);
	CHECK_INT(r->napispans, 2);
	if (r->napispans == 2) {
		CHECK(!memcmp(r->apispans, sp, sizeof(sp)));
		CHECK(!strcmp(rec_str(r, r->apispans[0].name), "glLinkProgram"));
		CHECK(!strcmp(rec_str(r, r->apispans[1].name), "vkWaitForFences"));
	}
	rec_free(r);
}

/* Windows and handed on in one read (export --perfetto's first pass in the
 * stalls' read): every sample, interval and API call is handed on once, in
 * file order, as written, while each window's group still holds its
 * window's samples, intervals and API calls. */
struct both {
	size_t n, niv, nsp, bad, groups, win_seen[2];
	const struct rec_window *win;
};

static int both_sample(void *ctx, const struct rec *r, uint64_t t, const int64_t *row)
{
	struct both *b = ctx;

	(void)r;
	if (t != 1000000 * (b->n + 1) || row[0] != (int64_t)b->n || row[1] != (int64_t)(b->n / 7))
		b->bad++;
	b->n++;
	return 0;
}

static int both_interval(void *ctx, const struct rec *r, const struct rec_interval *iv)
{
	struct both *b = ctx;

	if (iv->out_ns != 1000000 * (20 * b->niv + 1) + 500000 || iv->tid != 7 ||
	    strcmp(rec_str(r, iv->stack), "folio_wait_bit"))
		b->bad++;
	b->niv++;
	return 0;
}

static int both_apispan(void *ctx, const struct rec *r, const struct rec_apispan *sp)
{
	struct both *b = ctx;

	if (sp->start_ns != 1000000 * (100 * b->nsp + 1) || strcmp(rec_str(r, sp->name), "glFinish"))
		b->bad++;
	b->nsp++;
	return 0;
}

static int both_window(void *ctx, struct rec *r, size_t w0, size_t w1)
{
	struct both *b = ctx;

	b->groups++;
	for (size_t w = w0; w < w1; w++) {
		uint64_t a = b->win[w].a_ns, e = b->win[w].b_ns;
		size_t in = 0, ivs = 0, sps = 0;

		for (size_t i = 0; i < r->nsamples; i++)
			if (r->t_ns[i] >= a && r->t_ns[i] <= e) {
				in++;
				if (r->vals[i * r->nfields] != (int64_t)(r->t_ns[i] / 1000000 - 1))
					b->bad++;
			}
		for (size_t i = 0; i < r->nintervals; i++)
			ivs += r->intervals[i].in_ns >= a && r->intervals[i].out_ns <= e;
		for (size_t i = 0; i < r->napispans; i++)
			sps += r->apispans[i].start_ns >= a && r->apispans[i].start_ns <= e;
		/* the window's 101 samples, 5 intervals and 2 API calls (the
		 * last at its end) */
		if (in != 101 || ivs != 5 || sps != 2) {
			fprintf(stderr, "window %zu: %zu samples, %zu intervals, %zu API calls\n", w,
				in, ivs, sps);
			b->bad++;
		}
		b->win_seen[w]++;
	}
	return 0;
}

static void test_windows_handed_on(void)
{
	const char *path = tmpfile_path("both.ssr");
	const struct rec_window win[2] = { { 1000000ull * 1001, 1000000ull * 1101 },
					   { 1000000ull * 3001, 1000000ull * 3101 } };
	struct rec_writer *w = NULL;
	struct rec *r = NULL;
	struct strbuf err = STRBUF_INIT;
	uint32_t stack, name;

	CHECK_INT(rec_writer_new(path, &w), 0);
	CHECK_INT(rec_writer_meta(w, "period_ns", "1000000"), 0);
	CHECK_INT(rec_writer_field(w, "a", REC_INT), 0);
	CHECK_INT(rec_writer_field(w, "b", REC_INT), 1);
	CHECK_INT(rec_writer_begin(w), 0);
	for (size_t i = 0; i < 5000; i++) {
		int64_t v[2] = { (int64_t)i, (int64_t)(i / 7) };
		uint64_t t = 1000000 * (i + 1);

		CHECK_INT(rec_writer_sample(w, t, v), 0);
		/* intern in every segment: a key block restarts the strings */
		stack = rec_writer_intern(w, "folio_wait_bit");
		name = rec_writer_intern(w, "glFinish");
		if (i % 20 == 0) {
			struct rec_interval iv = { .out_ns = t + 500000, .wake_ns = t + 700000,
						   .in_ns = t + 800000, .tid = 7, .stack = stack };

			CHECK_INT(rec_writer_interval(w, &iv), 0);
		}
		if (i % 100 == 0) {
			struct rec_apispan sp = { t, 300000, 7, name };

			CHECK_INT(rec_writer_apispan(w, &sp), 0);
		}
		if (i % 100 == 99)
			CHECK_INT(rec_writer_flush(w), 0);
	}
	CHECK_INT(rec_writer_close(w), 0);
	{
		struct both b = { .win = win };
		struct rec_stream rs = { .win = win, .nwin = 2, .on_window = both_window,
					 .on_sample = both_sample, .on_interval = both_interval,
					 .on_apispan = both_apispan, .skip_threads = true,
					 .skip_frames = true, .ctx = &b };

		CHECK_INT(rec_read_file_stream(path, &rs, &r, &err), 0);
		CHECK_INT(b.n, 5000);
		CHECK_INT(b.niv, 250);
		CHECK_INT(b.nsp, 50);
		CHECK_INT(b.bad, 0);
		CHECK_INT(b.groups, 2);
		CHECK_INT(b.win_seen[0], 1);
		CHECK_INT(b.win_seen[1], 1);
		CHECK(r && r->nsamples_read == 5000);
		rec_free(r);
	}
	unlink(path);
	sb_release(&err);
}

/*
 * rec_stream's skip_samples (the analysis's read of the presents): a read
 * that skips the samples of the segments nothing asks for gives the whole
 * read's count, presents, damaged spans with their stamps, and tear, on an
 * intact record, a damaged one and a torn one; and it does skip: a record
 * whose middle segment's samples are garbage (under a right CRC), which a
 * whole read refuses, reads as the intact one.
 */
struct skipped {
	size_t frames, groups, first;
};

static int skip_frame(void *ctx, const struct rec_frame *f)
{
	(void)f;
	((struct skipped *)ctx)->frames++;
	return 0;
}

static int skip_window(void *ctx, struct rec *r, size_t w0, size_t w1)
{
	struct skipped *k = ctx;

	(void)w0, (void)w1;
	k->groups++;
	k->first = r->nsamples ? (size_t)r->vals[0] + 1 : 0;
	return 0;
}

/* Reads BUF (LEN) whole and skipping; the two agree. */
static void check_skip(const uint8_t *buf, size_t len, const char *what)
{
	static const struct rec_window at0 = { 0, 0 };
	struct skipped k = { 0 };
	struct rec_stream st = { .win = &at0, .nwin = 1, .on_window = skip_window,
				 .on_frame = skip_frame, .skip_frames = true, .skip_threads = true,
				 .skip_samples = true, .ctx = &k };
	struct rec *w = NULL, *s = NULL;
	struct strbuf err = STRBUF_INIT;

	CHECK_INT(rec_parse(buf, len, &w, &err), 0);
	CHECK_INT(rec_parse_stream(buf, len, &st, &s, &err), 0);
	if (!w || !s) {
		T_FAIL("%s: %s", what, err.buf);
		goto out;
	}
	if (s->nsamples_read != w->nsamples || k.frames != w->nframes ||
	    s->ndamage != w->ndamage || s->torn_bytes != w->torn_bytes ||
	    s->torn_t_ns != w->torn_t_ns || s->complete != w->complete)
		T_FAIL("%s: skipping read %zu samples, %zu frames, %zu damaged, torn %zu at %llu; "
		       "whole %zu, %zu, %zu, %zu at %llu", what, s->nsamples_read, k.frames,
		       s->ndamage, s->torn_bytes, (unsigned long long)s->torn_t_ns, w->nsamples,
		       w->nframes, w->ndamage, w->torn_bytes, (unsigned long long)w->torn_t_ns);
	for (size_t i = 0; i < s->ndamage && i < w->ndamage; i++)
		if (memcmp(&s->damage[i], &w->damage[i], sizeof(s->damage[i])))
			T_FAIL("%s: damaged span %zu: %llu..%llu skipping, %llu..%llu whole", what, i,
			       (unsigned long long)s->damage[i].t_before_ns,
			       (unsigned long long)s->damage[i].t_after_ns,
			       (unsigned long long)w->damage[i].t_before_ns,
			       (unsigned long long)w->damage[i].t_after_ns);
	/* the window at 0 had the first samples */
	CHECK_INT(k.groups, 1);
	CHECK_INT(k.first, 1);
out:
	rec_free(w);
	rec_free(s);
	sb_release(&err);
}

static size_t varint_at(const uint8_t *p, size_t n, uint64_t *v)
{
	size_t i = 0;

	*v = 0;
	for (unsigned sh = 0; i < n && sh < 64; sh += 7) {
		*v |= (uint64_t)(p[i] & 0x7f) << sh;
		if (!(p[i++] & 0x80))
			return i;
	}
	return 0;
}

static void test_skip_samples(void)
{
	enum { BLOCKS = 40, PER = 100 };
	const char *path = tmpfile_path("skip.ssr");
	uint64_t start[BLOCKS + 1];
	struct rec_writer *w = NULL;
	struct rec *r = NULL;
	size_t len;
	uint8_t *buf, *bad;

	CHECK_INT(rec_writer_new(path, &w), 0);
	CHECK_INT(rec_writer_meta(w, "period_ns", "1000000"), 0);
	CHECK_INT(rec_writer_field(w, "a", REC_INT), 0);
	CHECK_INT(rec_writer_field(w, "b", REC_INT), 1);
	CHECK_INT(rec_writer_key_every(w, 4), 0);
	CHECK_INT(rec_writer_begin(w), 0);
	for (size_t i = 0; i < BLOCKS * PER; i++) {
		int64_t v[2] = { (int64_t)i, (int64_t)(i * i % 1009) };
		uint64_t t = 1000000 * (i + 1);

		if (i % PER == 0)
			start[i / PER] = rec_writer_bytes(w);
		CHECK_INT(rec_writer_sample(w, t, v), 0);
		if (i % 10 == 5) {
			struct rec_frame fr = { t + 1000, 7, 1 };

			CHECK_INT(rec_writer_frame(w, &fr), 0);
		}
		if (i % 20 == 0) {
			struct rec_interval iv = { .out_ns = t + 100, .wake_ns = t + 200,
						   .in_ns = t + 300, .tid = 7 };

			CHECK_INT(rec_writer_interval(w, &iv), 0);
		}
		if (i % PER == PER - 1)
			CHECK_INT(rec_writer_flush(w), 0);
	}
	CHECK_INT(rec_writer_close(w), 0);
	start[BLOCKS] = 0;
	buf = slurp(path, &len);
	unlink(path);
	if (!buf) {
		T_FAIL("cannot read back '%s'", path);
		return;
	}
	CHECK(start[1] > start[0]);
	check_skip(buf, len, "intact");
	/* block 21 damaged: lost to the next key block (24); the segments
	 * around it decoded */
	buf[start[21] + REC_BLOCK_HEADER + 30] ^= 0x10;
	check_skip(buf, len, "damaged");
	buf[start[21] + REC_BLOCK_HEADER + 30] ^= 0x10;
	check_skip(buf, start[30] + 200, "torn");

	/* block 13's samples made garbage (a middle segment's, which no
	 * stamp needs), its CRC made right again */
	bad = malloc(len);
	if (!bad)
		abort();
	memcpy(bad, buf, len);
	{
		uint8_t *p = bad + start[13], *pl = p + REC_BLOCK_HEADER;
		uint32_t n = le32_get(p);
		size_t at = 0, hit = 0;

		while (at < n && !hit) {
			uint64_t rlen;
			size_t m = varint_at(pl + at + 1, n - at - 1, &rlen);

			if (!m || rlen > n - at - 1 - m)
				break;
			if (pl[at] == RT_SAMPLES) {
				uint64_t count;
				size_t c = varint_at(pl + at + 1 + m, (size_t)rlen, &count);

				memset(pl + at + 1 + m + c, 0xff, (size_t)rlen - c);
				hit = 1;
			}
			at += 1 + m + (size_t)rlen;
		}
		CHECK_INT(hit, 1);
		le32_put(p + 4, rec_crc32c(rec_crc32c(0, p, 4), pl, n));
	}
	CHECK(rec_parse(bad, len, &r, NULL) < 0);	/* a whole read refuses it */
	rec_free(r);
	r = NULL;
	{
		static const struct rec_window at0 = { 0, 0 };
		struct skipped k = { 0 };
		struct rec_stream st = { .win = &at0, .nwin = 1, .on_window = skip_window,
					 .on_frame = skip_frame, .skip_frames = true,
					 .skip_samples = true, .ctx = &k };

		CHECK_INT(rec_parse_stream(bad, len, &st, &r, NULL), 0);
		CHECK(r && r->nsamples_read == BLOCKS * PER && r->complete && !r->ndamage);
		CHECK_INT(k.frames, BLOCKS * PER / 10);
		rec_free(r);
	}
	free(bad);
	free(buf);
}

/* 2.3: interned stacks come back as written, across segments (a key every
 * block: each window's block defines again what it uses), and where_stall
 * sums them with the analysis's names; bad ids are refused. */
static void test_ustacks(void)
{
	const char *path = tmpfile_path("ustacks.ssr");
	static const uint8_t bid[20] = { 0xab, 0xcd, 1, 2, 3 };
	struct rec_writer *w = NULL;
	struct rec *r = NULL;
	struct where wh;
	uint32_t m, f[4], st[2], k;
	uint64_t cnt[2] = { 7, 2 };
	struct rec_uset set = { .t_ns = 5000, .tid = 9, .n = 2, .stack = st, .count = cnt };
	struct rec_uframe uf;

	CHECK_INT(rec_writer_new(path, &w), 0);
	CHECK_INT(rec_writer_key_every(w, 1), 0);
	CHECK_INT(rec_writer_begin(w), 0);
	CHECK_INT(rec_writer_umap(w, "/bin/game", bid, 0), 0);	/* no build-id */
	CHECK_INT(rec_writer_umap(w, "", bid, 20), 0);
	m = rec_writer_umap(w, "/bin/game", bid, 20);
	CHECK_INT(m, 1);
	CHECK_INT(rec_writer_umap(w, "/bin/game", bid, 20), 1);	/* interned */
	uf = (struct rec_uframe){ .kind = REC_UF_ADDR, .ref = m, .off = 0x1234 };
	f[0] = rec_writer_uframe(w, &uf);
	uf.off = 0x2000;
	f[1] = rec_writer_uframe(w, &uf);
	k = rec_writer_intern(w, "schedule");
	uf = (struct rec_uframe){ .kind = REC_UF_KERNEL, .ref = k };
	f[2] = rec_writer_uframe(w, &uf);
	uf = (struct rec_uframe){ .kind = REC_UF_JIT };
	f[3] = rec_writer_uframe(w, &uf);
	CHECK_INT(f[0] && f[1] && f[2] && f[3], 1);
	uf = (struct rec_uframe){ .kind = REC_UF_ADDR, .ref = 99 };	/* no such map */
	CHECK_INT(rec_writer_uframe(w, &uf), 0);
	st[0] = rec_writer_ustack(w, f, 2);
	st[1] = rec_writer_ustack(w, (uint32_t[]){ f[2], f[3], f[1] }, 3);
	CHECK_INT(st[0] && st[1] && st[0] != st[1], 1);
	CHECK_INT(rec_writer_ustack(w, (uint32_t[]){ 77 }, 1), 0);
	CHECK_INT(rec_writer_uset(w, &set), 0);
	CHECK_INT(rec_writer_flush(w), 0);
	set.t_ns = 9000;
	CHECK_INT(rec_writer_uset(w, &set), 0);	/* a new segment: defined again */
	set.count[0] = 0;
	CHECK_INT(rec_writer_uset(w, &set), -EINVAL);
	set.count[0] = 7;
	CHECK_INT(rec_writer_close(w), 0);
	CHECK_INT(rec_read_file(path, &r, NULL), 0);
	unlink(path);
	if (!r)
		return;
	CHECK_INT(r->nusets, 2);
	CHECK_INT(r->numaps, 2);
	CHECK_INT(r->nuframes, 5);
	CHECK_INT(r->nustacks, 3);
	if (r->nusets != 2 || r->numaps != 2 || r->nuframes != 5 || r->nustacks != 3) {
		rec_free(r);
		return;
	}
	CHECK(!strcmp(r->umaps[1].path, "/bin/game"));
	CHECK_INT(r->umaps[1].build_id_len, 20);
	CHECK(!memcmp(r->umaps[1].build_id, bid, 20));
	CHECK_INT(r->uframes[f[0]].kind, REC_UF_ADDR);
	CHECK_INT((int)r->uframes[f[0]].off, 0x1234);
	CHECK_INT(r->usets[1].t_ns, 9000);
	CHECK_INT((int)r->usets[0].count[0], 7);
	/* unnamed (no symbols pass): [unknown]; then the analysis's names */
	CHECK_INT(where_stall(r, 0, 6000, &wh), 0);
	CHECK_INT((int)wh.total, 9);
	CHECK_INT((int)wh.n, 2);
	if (wh.n == 2) {
		CHECK(!strcmp(wh.st[0].frames[0], "[unknown]"));
		CHECK_INT((int)wh.st[1].nkframes, 1);
		CHECK(!strcmp(wh.st[1].kframes[0], "schedule"));
		CHECK(!strcmp(wh.st[1].frames[0], "[jit]"));
	}
	where_free(&wh);
	r->uframe_names = calloc(r->nuframes, sizeof(char *));
	if (r->uframe_names) {
		r->uframe_names[f[0]] = strdup("spin");
		r->uframe_names[f[1]] = strdup("main");
	}
	CHECK_INT(where_stall(r, 0, UINT64_MAX, &wh), 0);
	CHECK_INT((int)wh.total, 18);
	if (wh.n >= 1) {
		CHECK_INT((int)wh.st[0].nframes, 2);
		CHECK(!strcmp(wh.st[0].frames[0], "spin"));
		CHECK(!strcmp(wh.st[0].frames[1], "main"));
	}
	where_free(&wh);
	rec_free(r);
}

int main(void)
{
	T_RUN(test_random_round_trip);
	T_RUN(test_sample_same);
	T_RUN(test_writer_edges);
	T_RUN(test_crc32c);
	T_RUN(test_varint);
	T_RUN(test_record_accessors);
	T_RUN(test_source_names);
	T_RUN(test_unknown_and_versions);
	T_RUN(test_bad_files);
	T_RUN(test_bad_crc_middle);
	T_RUN(test_damage);
	T_RUN(test_expansion_cap);
	T_RUN(test_round_trip);
	T_RUN(test_torn_tail);
	T_RUN(test_apispans);
	T_RUN(test_windows_handed_on);
	T_RUN(test_skip_samples);
	T_RUN(test_ustacks);
	return t_exit();
}
