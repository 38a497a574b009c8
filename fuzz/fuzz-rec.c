// SPDX-License-Identifier: MIT
/*
 * fuzz-rec.c: a libFuzzer target for the record reader (rec_parse).
 *
 * Each input is parsed twice: as it is, and with the CRC32C of every block
 * whose length fits recomputed, so that mutations reach the record decoders
 * instead of stopping at the checksum. A parsed record is walked through the
 * accessors (every string a str field names, every meta key, every thread)
 * so that ASan sees any inconsistent count or pointer. Built and run by
 * scripts/fuzz.sh (`make fuzz`) and tests/e2e/fuzz-rec.sh.
 *
 * fuzz-sources: src/rec/[a-z]*.c src/core/file.c src/core/grow.c src/core/record.c src/core/runini.c src/core/display.c src/core/strbuf.c src/core/where.c
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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
		n += w.total;
		if (where_merge(&w, 5) == 0 && w.n) {
			struct strbuf sb = STRBUF_INIT;

			where_line(&sb, &w.st[0], w.total, 0);
			n += sb.len;
			sb_release(&sb);
		}
		where_free(&w);
	}
	sink = n;
}

static void parse(const uint8_t *data, size_t size)
{
	struct strbuf err = STRBUF_INIT;
	struct rec *r = NULL;

	if (rec_parse(data, size, &r, &err) == 0) {
		walk(r);
		rec_free(r);
	} else if (!err.len) {
		abort();	/* every failure says why */
	}
	sb_release(&err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *copy;
	size_t off = REC_FILE_HEADER;

	parse(data, size);
	if (size <= REC_FILE_HEADER)
		return 0;
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
	parse(copy, size);
	free(copy);
	return 0;
}
