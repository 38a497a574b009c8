// SPDX-License-Identifier: MIT
/*
 * fuzz-rec.c: a libFuzzer target for the record reader (rec_parse).
 *
 * Each input is parsed twice: as it is, and with the CRC32C of every block
 * whose length fits recomputed, so that mutations reach the record decoders
 * instead of stopping at the checksum. A parsed record is walked through the
 * accessors (every string a str field names, every meta key, every thread)
 * so that ASan sees any inconsistent count or pointer, and through the
 * stacks' summaries (where.h: a stall's, each kind's windows, an
 * interval's). The second is also
 * read as report reads it, streamed (a ring of 4 rows, threads skipped;
 * one input in 16 from a file, a memfd, through rec_read_file_stream, one
 * in 16 from a pipe through rec_read_fd_stream), and must give
 * the whole parse's answer: the same verdict, samples, stamps, last rows,
 * frames and damage, else abort(). One input in 4 is also read as stalls
 * reads it a second time, by windows (up to 3 spans around samples the
 * input picks, up to 127 ms or 127 s long: each window handed on once, in
 * order, with a run of the whole parse's rows), with its frames and thread
 * snapshots handed to callbacks as they are decoded, not kept (report --threads: the whole
 * parse's frames, in order), and one of those in 2 skipping the samples no
 * window nor stamp needs (the analysis's read: the whole parse's count,
 * damage and tear). Built and run by scripts/fuzz.sh
 * (`make fuzz`), tests/e2e/fuzz-rec.sh and scripts/fuzz-long.sh.
 *
 * fuzz-sources: src/rec/[a-z]*.c src/core/file.c src/core/grow.c src/core/record.c src/core/runini.c src/core/display.c src/core/strbuf.c src/core/where.c
 * fuzz-seeds: tests/fixtures/rec-corpus
 * fuzz-reader: src/rec/reader.c src/rec/reader_records.c src/rec/codec.c src/core/where.c
 * fuzz-functions: ^(r[de]_.*|rec_parse.*|rec_read_f.*|reader\.c:.*|reader_records\.c:.*|where_.*|where\.c:.*)$
 */
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "rec/codec.h"
#include "core/where.h"
#include "rec/rec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile size_t sink;

static void walk(const struct rec *r)
{
	size_t n = 0;

	for (size_t i = 0; i < r->nmeta; i++)
		n += strlen(rec_meta_get(r, r->meta[i].key) ? r->meta[i].value : "");
	for (size_t f = 0; f < r->nfields; f++) {
		n += (size_t)rec_field_index(r, r->fields[f].name) + 1;
		for (size_t i = 0; i < r->nsamples; i++)
			if (r->fields[f].kind == REC_STR)
				n += strlen(rec_str(r, r->vals[i * r->nfields + f]));
			else
				n += (size_t)r->vals[i * r->nfields + f];
	}
	for (size_t i = 0; i < r->nsamples; i++)
		n += r->t_ns[i];
	for (size_t i = 0; i < r->nframes; i++)
		n += r->frames[i].tid;
	for (size_t i = 0; i < r->nthreads; i++)
		for (size_t k = 0; k < r->threads[i].n; k++)
			n += strlen(rec_str(r, r->threads[i].th[k].name)) + r->threads[i].th[k].cpu_ns;
	for (size_t i = 0; i < r->nevents; i++)
		n += strlen(r->events[i].kind) + strlen(r->events[i].text);
	for (size_t i = 0; i < r->nclocks; i++)
		n += r->clocks[i].real_ns;
	/* the ustack events' text as stalls reads it (core/where.c) */
	struct where w;

	if (where_stall(r, 0, UINT64_MAX, &w) == 0) {
		struct strbuf sb = STRBUF_INIT;

		n += w.total;
		where_files_line(&sb, &w, 3);
		if (where_merge(&w, 5) == 0 && w.n)
			where_line(&sb, &w.st[0], w.total, 0);
		n += sb.len;
		sb_release(&sb);
		if (w.total && !where_any(r))
			abort();	/* stacks summed from a record that has none */
		where_free(&w);
	}
	/* each kind's windows (html's threads, exact intervals' stacks) */
	for (int kind = WHERE_KIND_STALL; kind <= WHERE_KIND_INTERVAL; kind++)
		if (where_kind(r, kind, 0, UINT64_MAX, kind == WHERE_KIND_THREAD2 ? 0 : 7,
			       &w) == 0) {
			n += w.total;
			where_free(&w);
		}
	if (r->nintervals && where_interval(r, &r->intervals[r->nintervals / 2], &w) == 0) {
		n += w.total;
		where_free(&w);
	}
	sink = n;
}

#define RING 4

static const struct rec *whole;	/* the whole parse, for on_samples */

/* Every ring_rows / 4 samples: the rows the ring holds are the whole
 * parse's. */
static int on_samples(void *ctx, const struct rec *r)
{
	(void)ctx;
	if (!whole)
		return 0;	/* the whole parse refused it: the stream must too, at its end */
	if (r->nsamples > whole->nsamples || r->nfields != whole->nfields)
		abort();
	for (size_t i = r->nsamples > RING ? r->nsamples - RING : 0; i < r->nsamples; i++)
		if (r->nfields && memcmp(&r->vals[(i & (RING - 1)) * r->nfields],
					 &whole->vals[i * r->nfields], r->nfields * sizeof(int64_t)))
			abort();
	return 0;
}

/* DATA streamed as report reads it: the whole parse's answer. From a file
 * (a memfd: rec_read_file_stream's read loop) for one input in 16, from
 * memory for the others (the same decoder, and no system calls). */
static void stream(const uint8_t *data, size_t size, const struct rec *w)
{
	struct rec_stream rs = { .ring_rows = RING, .skip_threads = true,
				 .on_samples = on_samples };
	struct strbuf err = STRBUF_INIT;
	struct rec *r = NULL;
	char path[64];
	int fd = -1, pfd[2], e;

	whole = w;
	if (size && data[size / 2] % 16 == 0)
		fd = memfd_create("rec", 0);
	if (fd >= 0 && write(fd, data, size) == (ssize_t)size) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		e = rec_read_file_stream(path, &rs, &r, &err);
	} else if (size && data[size / 2] % 16 == 1 && pipe(pfd) == 0) {
		/* a pipe (dump -): read whole, as it comes */
		fcntl(pfd[1], F_SETPIPE_SZ, 1 << 20);
		if (write(pfd[1], data, size) != (ssize_t)size)
			abort();
		close(pfd[1]);
		e = rec_read_fd_stream(pfd[0], "pipe", &rs, &r, &err);
		close(pfd[0]);
	} else {
		e = rec_parse_stream(data, size, &rs, &r, &err);
	}
	if (fd >= 0)
		close(fd);
	if ((e == 0) != (w != NULL) || (e < 0 && !err.len))
		abort();	/* a different verdict, or a refusal without why */
	if (e == 0) {
		if (r->nsamples != w->nsamples || r->nframes != w->nframes ||
		    r->nintervals != w->nintervals || r->nevents != w->nevents ||
		    r->torn_bytes != w->torn_bytes || r->complete != w->complete ||
		    r->nthreads != 0 ||
		    (r->nsamples && memcmp(r->t_ns, w->t_ns, r->nsamples * sizeof(r->t_ns[0]))) ||
		    (r->nframes && memcmp(r->frames, w->frames, r->nframes * sizeof(r->frames[0]))))
			abort();
		on_samples(NULL, r);
		rec_free(r);
	}
	sb_release(&err);
}

/* ------------------------------------------ windows and callbacks */

static struct rec_window wins[3];
static size_t nwins, win_next, frames_seen;

/* Each window once, in order, with a run of the whole parse's rows. */
static int on_window(void *ctx, struct rec *r, size_t w0, size_t w1)
{
	size_t nf = r->nfields, n = r->nsamples, j;

	(void)ctx;
	if (w0 != win_next || w1 <= w0 || w1 > nwins)
		abort();
	win_next = w1;
	if (!whole || !n)
		return 0;
	if (n > whole->nsamples || nf != whole->nfields)
		abort();
	for (j = 0; j + n <= whole->nsamples; j++)
		if (!memcmp(&whole->t_ns[j], r->t_ns, n * sizeof(r->t_ns[0])) &&
		    (!nf || !memcmp(&whole->vals[j * nf], r->vals, n * nf * sizeof(int64_t))))
			break;
	if (j + n > whole->nsamples)
		abort();	/* rows the whole parse does not have, or not in its order */
	return 0;
}

static int on_frame(void *ctx, const struct rec_frame *f)
{
	(void)ctx;
	if (whole && (frames_seen >= whole->nframes || f->t_ns != whole->frames[frames_seen].t_ns ||
		      f->tid != whole->frames[frames_seen].tid ||
		      f->source != whole->frames[frames_seen].source))
		abort();
	frames_seen++;
	return 0;
}

static int on_threads(void *ctx, const struct rec *r, const struct rec_threads *ts)
{
	(void)ctx;
	(void)r;
	sink += ts->n;
	return 0;
}

/* Windows around samples DATA picks (sorted by start), or one span when
 * the whole parse refused it. */
static void pick_windows(const uint8_t *data, size_t size, const struct rec *w)
{
	nwins = 0;
	if (!w || !w->nsamples) {
		wins[nwins++] = (struct rec_window){ 0, UINT64_MAX / 2 };
		return;
	}
	for (size_t k = 0; k + 1 < size && nwins < 3; k += size / 3 + 1) {
		/* up to 127 ms, or (the high bit) up to 127 s: a stall whose
		 * window holds more than REC_WIN_ROWS samples is read in parts */
		uint64_t a = w->t_ns[data[k] % w->nsamples],
			 b = a + (uint64_t)(data[k + 1] & 127) *
					 (data[k + 1] & 128 ? 1000000000 : 1000000);
		size_t i = nwins++;

		while (i && wins[i - 1].a_ns > a) {
			wins[i] = wins[i - 1];
			i--;
		}
		wins[i] = (struct rec_window){ a, b < a ? UINT64_MAX : b };
	}
	if (!nwins)
		wins[nwins++] = (struct rec_window){ w->t_ns[0], w->t_ns[0] };
}

static void windowed(const uint8_t *data, size_t size, const struct rec *w)
{
	struct rec_stream rs = { .skip_threads = true, .skip_frames = true,
				 .on_window = on_window, .on_frame = on_frame,
				 .on_threads = on_threads };
	struct strbuf err = STRBUF_INIT;
	struct rec *r = NULL;
	int e;

	pick_windows(data, size, w);
	rs.win = wins;
	rs.nwin = nwins;
	whole = w;
	win_next = frames_seen = 0;
	/* every other one skipping the samples nothing asks for (the
	 * analysis's read): it may take what the whole parse refused (bad
	 * samples in a segment it skipped), never refuse what it took */
	rs.skip_samples = data[size / 5] % 2;
	e = rec_parse_stream(data, size, &rs, &r, &err);
	if (rs.skip_samples ? (w && e != 0) : (e == 0) != (w != NULL))
		abort();	/* a different verdict */
	if (e < 0 && !err.len)
		abort();	/* a refusal without why */
	if (e == 0 && w) {
		if (win_next != nwins || frames_seen != w->nframes || r->nframes)
			abort();	/* a window not handed on, frames missed or kept */
		if (r->nsamples_read != w->nsamples || r->ndamage != w->ndamage ||
		    r->torn_bytes != w->torn_bytes)
			abort();	/* samples miscounted, damage or a tear not seen */
	}
	rec_free(r);
	sb_release(&err);
}

static void parse(const uint8_t *data, size_t size, bool streamed)
{
	struct strbuf err = STRBUF_INIT;
	struct rec *r = NULL;

	if (rec_parse(data, size, &r, &err) == 0) {
		walk(r);
		whole = r;
	} else if (!err.len) {
		abort();	/* every failure says why */
	}
	if (streamed) {
		stream(data, size, r);
		if (size && data[size / 3] % 4 == 1)
			windowed(data, size, r);
	}
	whole = NULL;
	rec_free(r);
	sb_release(&err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *copy;
	size_t off = REC_FILE_HEADER;

	parse(data, size, false);
	if (size <= REC_FILE_HEADER) {
		parse(data, size, true);
		return 0;
	}
	copy = malloc(size);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	while (size - off >= REC_BLOCK_HEADER) {
		uint32_t n = le32_get(copy + off);

		if (n > size - off - REC_BLOCK_HEADER)
			break;
		le32_put(copy + off + 4, rec_crc32c(rec_crc32c(0, copy + off, 4),
						    copy + off + REC_BLOCK_HEADER, n));
		off += REC_BLOCK_HEADER + n;
	}
	parse(copy, size, true);
	free(copy);
	return 0;
}
