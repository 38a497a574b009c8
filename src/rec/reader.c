// SPDX-License-Identifier: MIT
/*
 * reader.c: the record reader (rec.h): checks the file header, walks the
 * checksummed blocks, decodes their records into a struct rec.
 *
 * Assumes nothing of its input: every read is bounds-checked, every count
 * is checked against the bytes that are left before anything is allocated,
 * and the sample matrix and thread snapshots (which a few bytes can expand
 * into many values) are capped at REC_EXPAND values per input byte. The
 * blocks are taken in order while each is whole and its CRC32C matches.
 * At the first that is not, the reader looks for the next whole key block
 * (version 2: its KEY record's sync word, then its length and CRC): when
 * there is one, the bytes between are damage (counted, with the time span
 * they held) and the reading goes on there, with the coding state
 * restarted; when there is none, the bytes from there on are a torn tail (a
 * recorder killed mid-block leaves exactly that). A whole block whose
 * records do not decode is damage the CRC cannot explain: an error.
 * Speed: a first pass checks the blocks' CRCs and counts the samples, so
 * that the sample matrix is allocated once; the second decodes, a sample
 * costing a copy of the last row and the fields that moved lately (the
 * others hold still, and their state says so: they are not visited).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/file.h"
#include "core/grow.h"
#include "rec/reader_int.h"

int rd_bad(struct rd *d, const char *what)
{
	if (d->err)
		sb_addf(d->err, "offset %zu: %s", d->off, what);
	return -EINVAL;
}

/* ---------------------------------------------------------------- file */

/* N bytes at OFF (OFF + N within the file): in memory, or read from the
 * file into *BUF (grown; *CAP its size), so that a record is never read
 * whole. NULL when they cannot be read (d->io_err says why). */
static const uint8_t *rd_bytes(struct rd *d, size_t off, size_t n, uint8_t **buf, size_t *cap)
{
	size_t got = 0;

	if (d->base)
		return d->base + off;
	if (n > *cap || !*buf) {
		/* exactly what one record needs, 64 KiB at least: no doubling */
		size_t c = n > 65536 ? n : 65536;
		uint8_t *p = realloc(*buf, c);

		if (!p) {
			d->io_err = ENOMEM;
			return NULL;
		}
		*buf = p;
		*cap = c;
	}
	while (got < n) {
		ssize_t k = pread(d->fd, *buf + got, n - got, (off_t)(off + got));

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			d->io_err = k < 0 ? errno : EIO;	/* shorter than it was */
			return NULL;
		}
		got += (size_t)k;
	}
	return *buf;
}

/* Whether a whole block (length within the file, CRC32C right) starts at
 * OFF; its payload length into *RET_N. */
static bool block_whole(struct rd *d, size_t off, uint32_t *ret_n)
{
	const uint8_t *p;
	size_t rest = d->len - off;
	uint32_t n, crc, want;

	if (rest < REC_BLOCK_HEADER)
		return false;
	p = rd_bytes(d, off, REC_BLOCK_HEADER, &d->blk, &d->blk_cap);
	if (!p)
		return false;
	n = le32_get(p);
	want = le32_get(p + 4);
	if (n > REC_BLOCK_MAX || n > rest - REC_BLOCK_HEADER)
		return false;
	p = rd_bytes(d, off, REC_BLOCK_HEADER + n, &d->blk, &d->blk_cap);
	if (!p)
		return false;
	crc = rec_crc32c(rec_crc32c(0, p, 4), p + REC_BLOCK_HEADER, n);
	if (crc != want)
		return false;
	*ret_n = n;
	return true;
}

/* The bytes a key block's scan looks at, at a time (read from a file). */
#define SCAN_BYTES (1u << 20)

/*
 * The offset of the first whole key block at or after FROM, or 0. A key
 * block's payload starts with the KEY record, type, a one-byte length and
 * the sync word, so candidates are found by the sync word (memmem) and only
 * they cost a CRC: a damaged region is crossed at memory speed.
 */
static size_t next_key_block(struct rd *d, size_t from)
{
	static const uint8_t sync[4] = { REC_KEY_SYNC & 0xff, REC_KEY_SYNC >> 8 & 0xff,
					 REC_KEY_SYNC >> 16 & 0xff, REC_KEY_SYNC >> 24 };
	size_t at = from + REC_BLOCK_HEADER + 2;	/* where a candidate's sync would be */

	while (at + 4 <= d->len) {
		size_t want = d->base || d->len - at < SCAN_BYTES ? d->len - at : SCAN_BYTES;
		const uint8_t *w = rd_bytes(d, at, want, &d->scan, &d->scan_cap), *q, *h;
		size_t s, off;
		uint32_t n;

		if (!w)
			return 0;
		q = memmem(w, want, sync, 4);
		if (!q) {
			if (at + want >= d->len)
				return 0;
			at += want - 3;	/* a sync across the seam is found next */
			continue;
		}
		s = at + (size_t)(q - w);
		off = s - REC_BLOCK_HEADER - 2;
		h = rd_bytes(d, off + REC_BLOCK_HEADER, 2, &d->blk, &d->blk_cap);
		if (!h)
			return 0;
		if (h[0] == RT_KEY && h[1] >= REC_KEY_MIN && h[1] < 0x80 && block_whole(d, off, &n))
			return off;
		at = s + 1;
	}
	return 0;
}

/* Whole block at OFF, whose payload starts with PAYLOAD0, to decode. */
static int push_block(struct rd *d, size_t off, uint8_t payload0)
{
	if (ARRAY_GROW(d->blocks, d->cap_blocks, d->nblocks + 1) < 0 ||
	    ARRAY_GROW(d->bkey, d->cap_bkey, d->nblocks + 1) < 0)
		return -ENOMEM;
	d->bkey[d->nblocks] = payload0 == RT_KEY;
	d->blocks[d->nblocks++] = off;
	return 0;
}

/*
 * rec_stream's skip_samples: which segments (a key block and the blocks up
 * to the next) the damage's and the tear's stamps need decoded, into
 * *RET (a byte a block, set on each block of such a segment): the one
 * before each damaged span and the one after it (t_before_ns is the latest
 * stamp before it, t_after_ns the first block's earliest), and the last
 * (torn_t_ns). Blocks before the first key block are never skipped. 0 or
 * -ENOMEM.
 */
static int segments_needed(const struct rd *d, uint8_t **ret)
{
	uint8_t *need = calloc(d->nblocks ? d->nblocks : 1, 1);
	size_t k = 0, seg = 0;	/* the current segment's first block */
	bool any_key = false;

	if (!need)
		return -ENOMEM;
	*ret = need;
	for (size_t b = 0; b < d->nblocks; b++) {
		bool after = false;

		/* damage k ends where block b starts: b - 1 is before it */
		while (k < d->r->ndamage && d->r->damage[k].off + d->r->damage[k].bytes < d->blocks[b])
			k++;
		if (k < d->r->ndamage && d->r->damage[k].off + d->r->damage[k].bytes == d->blocks[b])
			after = true;
		if (d->bkey[b] && d->r->version_major >= 2) {
			any_key = true;
			seg = b;
		}
		if (!any_key)
			need[b] = 1;
		if (after || b + 1 == d->nblocks) {
			/* this block's segment, and (after) the one before */
			for (size_t j = seg; j <= b; j++)
				need[j] = 1;
			if (after && b > 0) {
				size_t j = b - 1;

				while (j > 0 && !(d->bkey[j] && d->r->version_major >= 2))
					j--;
				for (; j < b; j++)
					need[j] = 1;
			}
		}
	}
	/* a needed segment is needed to its end (need[] marks its blocks
	 * only up to the one that asked) */
	for (size_t b = 1; b < d->nblocks; b++)
		if (need[b - 1] && !(d->bkey[b] && d->r->version_major >= 2))
			need[b] = 1;
	return 0;
}

static int push_damage(struct rd *d, size_t off, size_t bytes)
{
	struct rec *r = d->r;

	if (ARRAY_GROW(r->damage, d->cap_damage, r->ndamage + 1) < 0)
		return -ENOMEM;
	r->damage[r->ndamage++] = (struct rec_damage){ .off = off, .bytes = bytes };
	r->damaged_bytes += bytes;
	return 0;
}

static int rd_header(struct rd *d)
{
	const uint8_t *b;
	uint64_t magic;
	unsigned major, minor;

	d->off = 0;
	if (d->len == 0)
		return rd_bad(d, "empty file, not a stallscope record");
	b = rd_bytes(d, 0, d->len < REC_FILE_HEADER ? d->len : REC_FILE_HEADER, &d->blk,
		     &d->blk_cap);
	if (!b)
		return -d->io_err;
	if (d->len < 8) {
		if (memcmp(b, "SSREC\r\n\x1a", d->len))
			return rd_bad(d, "not a stallscope record (bad magic)");
		return rd_bad(d, "file ends inside the file header");
	}
	magic = le64_get(b);
	if (magic == REC_MAGIC_SWAPPED) {
		if (d->err)
			sb_addf(d->err, "offset 0: record written big-endian, which this "
					"reader does not read");
		return -EPROTONOSUPPORT;
	}
	if (magic != REC_MAGIC)
		return rd_bad(d, "not a stallscope record (bad magic)");
	if (d->len < REC_FILE_HEADER)
		return rd_bad(d, "file ends inside the file header");
	major = le16_get(b + 8);
	minor = le16_get(b + 10);
	if (major > REC_VERSION_MAJOR) {
		if (d->err)
			sb_addf(d->err,
				"offset 8: record version %u.%u is newer than this reader (%u.%u); "
				"use a newer stallscope",
				major, minor, REC_VERSION_MAJOR, REC_VERSION_MINOR);
		return -EPROTONOSUPPORT;
	}
	if (major < 1)
		return rd_bad(d, "record version 0 does not exist");
	d->r->version_major = major;
	d->r->version_minor = minor;
	return 0;
}

int rec_parse(const void *buf, size_t len, struct rec **ret, struct strbuf *err)
{
	return rec_parse_stream(buf, len, NULL, ret, err);
}

/* The record in BUF (LEN bytes), or, BUF NULL, in the file FD of LEN
 * bytes, read a block at a time. */
static int parse(const void *buf, int fd, size_t len, const struct rec_stream *st,
		 struct rec **ret, struct strbuf *err)
{
	struct rd d = { .base = buf, .len = len, .fd = fd, .err = err, .stream = st,
			.ring_mask = SIZE_MAX };
	size_t off = REC_FILE_HEADER, end;
	uint8_t *need = NULL;	/* skip_samples: segments_needed */
	int r;

	if (st && st->ring_rows) {
		if (st->ring_rows & (st->ring_rows - 1) || st->ring_rows < 4 || st->on_window)
			return -EINVAL;
		d.ring_mask = st->ring_rows - 1;
	}
	d.r = calloc(1, sizeof(*d.r));
	if (!d.r)
		return -ENOMEM;
	d.expand_left = (uint64_t)len * REC_EXPAND + REC_EXPAND_MIN;
	r = rd_header(&d);
	if (r < 0)
		goto fail;
	r = ARRAY_GROW(d.r->strs, d.cap_strs, 1);
	if (r < 0)
		goto fail;
	d.r->strs[0] = strdup("");
	if (!d.r->strs[0]) {
		r = -ENOMEM;
		goto fail;
	}
	d.r->nstrs = 1;
	/* First pass: the whole blocks (length and CRC), and how many
	 * samples they hold, so that the sample matrix is allocated once; past
	 * a block that is not whole, the next whole key block, if any. */
	for (bool first = true;; first = false) {
		size_t rest = len - off, next;
		uint32_t n;

		if (!rest)
			break;
		if (block_whole(&d, off, &n)) {
			const uint8_t *pl = d.blk && !d.base ? d.blk + REC_BLOCK_HEADER
							     : d.base + off + REC_BLOCK_HEADER;

			r = push_block(&d, off, n ? pl[0] : 0);
			if (r < 0)
				goto fail;
			rd_count_samples(&d, pl, n);
			off += REC_BLOCK_HEADER + n;
			continue;
		}
		if (d.io_err) {
			r = -d.io_err;
			goto fail;
		}
		if (first) {
			d.off = off;
			r = rd_bad(&d, "the header block is torn or damaged");
			goto fail;
		}
		next = d.r->version_major >= 2 ? next_key_block(&d, off + 1) : 0;
		if (d.io_err) {
			r = -d.io_err;
			goto fail;
		}
		if (!next) {
			d.r->torn_bytes = rest;
			d.r->torn_off = off;
			break;
		}
		r = push_damage(&d, off, next - off);
		if (r < 0)
			goto fail;
		off = next;
	}
	end = off;
	if (st && st->skip_samples && st->on_window && !st->on_sample) {
		r = segments_needed(&d, &need);
		if (r < 0)
			goto fail;
	}
	for (size_t b = 0, k = 0; b < d.nblocks; b++) {
		size_t boff = d.blocks[b];
		const uint8_t *p = rd_bytes(&d, boff, REC_BLOCK_HEADER, &d.blk, &d.blk_cap);
		uint32_t n = p ? le32_get(p) : 0;
		struct rec_damage *dm = k < d.r->ndamage && d.r->damage[k].off + d.r->damage[k].bytes
							      == boff ? &d.r->damage[k] : NULL;

		d.header_block = boff == REC_FILE_HEADER;
		/* a segment's samples skipped where nothing asks for them: no
		 * window pending, no stamp of the damage's or the tear's */
		if (need && (d.bkey[b] || d.header_block))
			d.skip_seg = !need[b] && !d.header_block && !d.in_group &&
				     d.wnext >= st->nwin;
		if (dm)
			dm->t_before_ns = d.t_last;
		d.t_first_block = 0;
		if (p)
			p = rd_bytes(&d, boff, REC_BLOCK_HEADER + n, &d.blk, &d.blk_cap);
		if (!p) {
			r = -d.io_err;
			goto fail;
		}
		r = rd_block(&d, p + REC_BLOCK_HEADER, n, boff + REC_BLOCK_HEADER);
		if (r < 0)
			goto fail;
		if (dm) {
			dm->t_after_ns = d.t_first_block;
			k++;
		}
		if (d.header_block)
			d.period = rec_parse_u64(rec_meta_get(d.r, "period_ns"));
	}
	if (st && st->on_window) {
		r = rd_win_end(&d);
		if (r < 0)
			goto fail;
	}
	if (d.r->torn_bytes)
		d.r->torn_t_ns = d.t_last;
	off = d.nblocks ? end : REC_FILE_HEADER;
	if (off == REC_FILE_HEADER) {
		d.off = off;
		r = rd_bad(&d, "file ends before the header block");
		goto fail;
	}
	if (st && st->skip_threads) {	/* the last snapshot, kept to decode the next */
		for (size_t i = 0; i < d.r->nthreads; i++)
			free(d.r->threads[i].th);
		d.r->nthreads = 0;
	}
	samp_state_release(&d.ss);
	free(d.act);
	free(d.last_row);
	free(d.kinds);
	free(d.blocks);
	free(d.bkey);
	free(need);
	free(d.kring);
	free(d.blk);
	free(d.scan);
	*ret = d.r;
	return 0;
fail:
	if (r == -ENOMEM && err)
		sb_addf(err, "out of memory");
	else if (d.io_err && r == -d.io_err && err)
		sb_addf(err, "cannot read: %s", strerror(d.io_err));
	samp_state_release(&d.ss);
	free(d.act);
	free(d.last_row);
	free(d.kinds);
	free(d.blocks);
	free(d.bkey);
	free(need);
	free(d.kring);
	free(d.blk);
	free(d.scan);
	rec_free(d.r);
	return r;
}

int rec_parse_stream(const void *buf, size_t len, const struct rec_stream *st, struct rec **ret,
		     struct strbuf *err)
{
	if (!ret || (!buf && len))
		return -EINVAL;
	if (!buf)
		buf = "";	/* empty: in memory all the same */
	return parse(buf, -1, len, st, ret, err);
}

int rec_read_file(const char *path, struct rec **ret, struct strbuf *err)
{
	return rec_read_file_stream(path, NULL, ret, err);
}

int rec_read_file_stream(const char *path, const struct rec_stream *rs, struct rec **ret,
			 struct strbuf *err)
{
	int fd, r;

	if (!path || !ret)
		return -EINVAL;
	/* never a FIFO or a device (a record that is /dev/zero would grow
	 * without end), never blocking on the open */
	fd = file_open_regular(path, NULL, 0, NULL, err);
	if (fd < 0)
		return fd;
	r = rec_read_fd_stream(fd, path, rs, ret, err);
	close(fd);
	return r;
}

int rec_read_fd_stream(int fd, const char *path, const struct rec_stream *rs, struct rec **ret,
		       struct strbuf *err)
{
	struct strbuf msg = STRBUF_INIT;
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0;
	struct stat st;
	int r;

	if (fd < 0 || !path || !ret)
		return -EINVAL;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
	    (uint64_t)st.st_size < SIZE_MAX) {
		/* a regular file: read a block at a time, never whole (an
		 * hour of record is tens of MB); as long as it was when
		 * opened */
		r = parse(NULL, fd, (size_t)st.st_size, rs, ret, &msg);
		goto out;
	}
	for (;;) {
		ssize_t k;

		if (len == cap) {
			size_t c = cap ? cap * 2 : 65536;
			/* a file read whole: its overflow check is its own */
			uint8_t *p = c > cap ? realloc(buf, c) : NULL;

			if (!p) {
				r = -ENOMEM;
				goto out;
			}
			buf = p;
			cap = c;
		} else if (!buf) {
			buf = malloc(cap);
			if (!buf) {
				r = -ENOMEM;
				goto out;
			}
		}
		k = read(fd, buf + len, cap - len);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			if (err)
				sb_addf(err, "cannot read '%s': %s", path, strerror(-r));
			goto out_nomsg;
		}
		if (k == 0)
			break;
		len += (size_t)k;
	}
	r = rec_parse_stream(buf, len, rs, ret, &msg);
out:
	if (r < 0 && err) {
		if (r == -ENOMEM && !msg.len)
			sb_addf(err, "'%s': out of memory", path);
		else
			sb_addf(err, "'%s' %s", path, msg.buf);
	}
out_nomsg:
	sb_release(&msg);
	free(buf);
	return r;
}
