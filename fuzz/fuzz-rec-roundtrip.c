// SPDX-License-Identifier: MIT
/*
 * fuzz-rec-roundtrip.c: a libFuzzer target for the writer and reader
 * together: the input is a script of writer calls (fields, samples,
 * sampler_same's repeats and runs of them, frames, thread snapshots,
 * events, exact-mode intervals and their stacks' strings, API spans,
 * interned stacks (2.3: mappings, frames, stacks and windows), clock pairs,
 * meta keys written after the header, flushes, at which what
 * rec_writer_bytes counts must be the file's size) whose values it also
 * supplies; the record is written to a memory file (memfd), read back, and
 * everything must come back exactly. Aborts on any difference, so a coding
 * asymmetry between writer.c and reader.c is a crash. The record is also
 * read as report reads it (streamed, a ring of 4 rows), as stalls reads it
 * a second time (by a window over all or half of it, frames and thread
 * snapshots handed to callbacks) and handed on record by record, not kept
 * (export --perfetto: samples, intervals, API spans to callbacks): each
 * must give what was written. Then the record is damaged as a crash or a
 * disk leaves it (the first byte's DMG: cut, a byte flipped, one flipped
 * under a CRC made right) and read whole, streamed and from a pipe: what it
 * reads must be what was written, or a refusal saying why (damaged()).
 * Seeds: scripts in fuzz/corpus/rec-roundtrip/, written by its
 * make-seeds.py (every kind of write, each kind of value, each damage),
 * and inputs the campaign found that reach more of the reader. With
 * FUZZ_REC_KEEP=DIR in the environment, each record written is also kept
 * as DIR/<size>-<first bytes>.ssr (the fuzz-rec seeds of every record kind
 * come from there, our writer's own).
 *
 * fuzz-sources: src/rec/[a-z]*.c src/core/file.c src/core/grow.c src/core/record.c src/core/runini.c src/core/display.c src/core/strbuf.c
 * fuzz-reader: src/rec/writer.c src/rec/reader.c src/rec/reader_records.c src/rec/codec.c
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "rec/codec.h"
#include "rec/rec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAXF 12
#define MAXS 4096
#define MAXT 40

struct in {
	const uint8_t *p, *end;
};

static uint64_t take(struct in *in, unsigned n)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < n; i++)
		v = v << 8 | (in->p < in->end ? *in->p++ : 0);
	return v;
}

/* A value: an op byte says how it relates to the previous one. */
static int64_t value(struct in *in, int64_t prev)
{
	uint8_t op = (uint8_t)take(in, 1);

	switch (op & 7) {
	case 0: case 1: case 2: return prev;
	case 3: return (int64_t)((uint64_t)prev + (op >> 3));
	case 4: return (int64_t)((uint64_t)prev - (uint64_t)take(in, 1));
	case 5: return (int64_t)((uint64_t)prev + take(in, 3));
	case 6: return (int64_t)take(in, 8);
	default: return (int64_t)(op >> 3) - 16;
	}
}

static struct {
	int64_t vals[MAXS][MAXF];
	uint64_t t[MAXS];
	struct rec_frame fr[MAXS];
	struct rec_thread th[8][MAXT];
	size_t thn[8];
	uint64_t tht[8];
	struct rec_interval iv[MAXS];
	char ivstack[MAXS][16];	/* the interval's stack, when the script names one */
	struct rec_apispan sp[MAXS];
	struct rec_clock cl[MAXS];
	struct {
		uint64_t t, count, off;
		uint32_t tid;
		uint8_t kinds[3];
		size_t nfr;
	} us[MAXS];
} g;

#define MUST(c)                                                                 \
	do {                                                                    \
		if (!(c)) {                                                     \
			fprintf(stderr, "round trip: %s failed\n", #c);         \
			abort();                                                \
		}                                                               \
	} while (0)

/* ------------------------------------------------ the other reads */

static const struct rec *whole;	/* the whole read, as written */
static size_t frames_seen, threads_seen, rows_seen;

/* Every ring_rows / 4 samples: the ring's rows are the whole read's. */
static int on_samples(void *ctx, const struct rec *r)
{
	(void)ctx;
	MUST(r->nsamples <= whole->nsamples && r->nfields == whole->nfields);
	for (size_t i = r->nsamples > 4 ? r->nsamples - 4 : 0; i < r->nsamples; i++)
		MUST(!r->nfields || !memcmp(&r->vals[(i & 3) * r->nfields],
					    &whole->vals[i * r->nfields],
					    r->nfields * sizeof(int64_t)));
	return 0;
}

/* A group of windows: a run of the written rows, in their order. */
static int on_window(void *ctx, struct rec *r, size_t w0, size_t w1)
{
	size_t n = r->nsamples, nf = r->nfields, j;

	(void)ctx;
	MUST(w0 == 0 && w1 == 1 && nf == whole->nfields && n <= whole->nsamples);
	if (!n)
		return 0;
	for (j = 0; j + n <= whole->nsamples; j++)
		if (!memcmp(&whole->t_ns[j], r->t_ns, n * sizeof(r->t_ns[0])) &&
		    (!nf || !memcmp(&whole->vals[j * nf], r->vals, n * nf * sizeof(int64_t))))
			break;
	MUST(j + n <= whole->nsamples);
	rows_seen += n;
	return 0;
}

static int on_frame(void *ctx, const struct rec_frame *f)
{
	(void)ctx;
	MUST(frames_seen < whole->nframes &&
	     !memcmp(f, &whole->frames[frames_seen], sizeof(*f)));
	frames_seen++;
	return 0;
}

static int on_threads(void *ctx, const struct rec *r, const struct rec_threads *ts)
{
	(void)ctx;
	(void)r;
	MUST(threads_seen < whole->nthreads && ts->t_ns == whole->threads[threads_seen].t_ns &&
	     ts->n == whole->threads[threads_seen].n);
	threads_seen++;
	return 0;
}

/* Handed on, not kept (export --perfetto, dump --summary): each sample,
 * interval and API span in the whole read's order, its strings there. */
static size_t samples_seen, ivs_seen, spans_seen, headers_seen;

static int on_header(void *ctx, const struct rec *r)
{
	(void)ctx;
	MUST(r->nfields == whole->nfields && !samples_seen);
	headers_seen++;
	return 0;
}

static int on_sample(void *ctx, const struct rec *r, uint64_t t, const int64_t *row)
{
	size_t nf = r->nfields, i = samples_seen++;

	(void)ctx;
	MUST(i < whole->nsamples && t == whole->t_ns[i] && r->nsamples == 0 &&
	     (!nf || !memcmp(row, &whole->vals[i * nf], nf * sizeof(int64_t))));
	return 0;
}

static int on_interval(void *ctx, const struct rec *r, const struct rec_interval *iv)
{
	size_t i = ivs_seen++;

	(void)ctx;
	MUST(i < whole->nintervals && !memcmp(iv, &whole->intervals[i], sizeof(*iv)) &&
	     !strcmp(rec_str(r, iv->stack), rec_str(whole, iv->stack)) &&
	     !strcmp(rec_str(r, iv->waker_comm), rec_str(whole, iv->waker_comm)));
	return 0;
}

static int on_apispan(void *ctx, const struct rec *r, const struct rec_apispan *sp)
{
	size_t i = spans_seen++;

	(void)ctx;
	MUST(i < whole->napispans && !memcmp(sp, &whole->apispans[i], sizeof(*sp)) &&
	     !strcmp(rec_str(r, sp->name), rec_str(whole, sp->name)));
	return 0;
}

/* The record in FD read as report reads it (streamed, a ring of 4 rows)
 * and as stalls reads it the second time (a window over the whole record,
 * frames and threads to callbacks, not kept): W's answer, each. The
 * window ends at B_NS: all of the record, or half of it (a group of rows
 * handed on before the end, once it passes REC_WIN_ROWS). */
static void other_reads(int fd, const char *path, const struct rec *w, uint64_t b_ns)
{
	struct rec_stream ring = { .ring_rows = 4, .skip_threads = true,
				   .on_samples = on_samples };
	struct rec_window all = { 0, b_ns };
	struct rec_stream win = { .win = &all, .nwin = 1, .skip_threads = true,
				  .skip_frames = true, .on_window = on_window,
				  .on_frame = on_frame, .on_threads = on_threads };
	struct rec_stream each = { .skip_threads = true, .on_header = on_header,
				   .on_sample = on_sample, .on_interval = on_interval,
				   .on_apispan = on_apispan };
	struct strbuf err = STRBUF_INIT;
	struct rec *r = NULL;

	whole = w;
	MUST(lseek(fd, 0, SEEK_SET) == 0);
	MUST(rec_read_fd_stream(fd, path, &ring, &r, &err) == 0);
	MUST(r->nsamples == w->nsamples && r->nframes == w->nframes &&
	     r->nintervals == w->nintervals && r->nevents == w->nevents && r->complete &&
	     !r->torn_bytes && r->nthreads == 0 &&
	     (!r->nsamples || !memcmp(r->t_ns, w->t_ns, r->nsamples * sizeof(r->t_ns[0]))) &&
	     (!r->nframes || !memcmp(r->frames, w->frames, r->nframes * sizeof(r->frames[0]))));
	on_samples(NULL, r);
	rec_free(r);
	r = NULL;
	frames_seen = threads_seen = rows_seen = 0;
	MUST(lseek(fd, 0, SEEK_SET) == 0);
	MUST(rec_read_fd_stream(fd, path, &win, &r, &err) == 0);
	MUST(frames_seen == w->nframes);
	MUST(threads_seen == w->nthreads);
	MUST(r->nframes == 0);
	/* (not every row: samples stamped alike, or going back, are kept as
	 * stalls' evidence finds them, not all) */
	MUST(rows_seen <= w->nsamples);
	rec_free(r);
	r = NULL;
	samples_seen = ivs_seen = spans_seen = headers_seen = 0;
	MUST(lseek(fd, 0, SEEK_SET) == 0);
	MUST(rec_read_fd_stream(fd, path, &each, &r, &err) == 0);
	MUST(samples_seen == w->nsamples && ivs_seen == w->nintervals &&
	     spans_seen == w->napispans && headers_seen <= 1 && r->nsamples == 0 &&
	     r->nsamples_read == w->nsamples && r->nintervals == 0 && r->napispans == 0 &&
	     r->nframes == w->nframes);
	rec_free(r);
	sb_release(&err);
}

/* A cut record must read back as the first samples written, a flipped
 * byte as some of them in their order (a block's CRC catches it, the
 * reader goes on at the next key block), or be refused saying why. */
static void damaged_whole(const struct rec *r, bool cut, size_t ns, size_t nf)
{
	size_t j = 0;

	MUST(r->nsamples <= ns && r->nfields == nf);
	for (size_t i = 0; i < r->nsamples; i++, j++) {
		while (j < ns && (r->t_ns[i] != g.t[j] ||
				  (nf && memcmp(&r->vals[i * nf], g.vals[j], nf * sizeof(int64_t)))))
			j++;
		MUST(j < ns && (!cut || j == i));
	}
	MUST(!cut || !r->complete);
}

/* Every block's CRC32C made right again (as fuzz-rec does), so that a
 * flipped byte reaches the record decoders. */
static void fix_crcs(uint8_t *b, size_t size)
{
	size_t off = REC_FILE_HEADER;

	while (size > off && size - off >= REC_BLOCK_HEADER) {
		uint32_t n = le32_get(b + off);

		if (n > size - off - REC_BLOCK_HEADER)
			break;
		le32_put(b + off + 4, rec_crc32c(rec_crc32c(0, b + off, 4),
						 b + off + REC_BLOCK_HEADER, n));
		off += REC_BLOCK_HEADER + n;
	}
}

/* The record in FD as a crash or a disk leaves it (DMG, 1 to 19: even,
 * cut at DMG / 20 of its length; odd, a byte there flipped), read whole
 * (damaged_whole's answer) and streamed (from a pipe when DMG % 4 >= 2, as
 * dump - reads it): the streamed read must give the whole one's. With
 * DMG % 4 == 1 the flipped byte's block gets its CRC made right: its
 * records decode what they hold, which need not be what was written, so
 * only the refusal saying why and the streamed read's agreement are
 * checked. */
static void damaged(int fd, unsigned dmg, size_t ns, size_t nf)
{
	struct rec_stream ring = { .ring_rows = 4, .skip_threads = true };
	struct strbuf err = STRBUF_INIT, err2 = STRBUF_INIT;
	struct rec *r = NULL, *s = NULL;
	off_t len = lseek(fd, 0, SEEK_END);
	int e, e2, pfd[2];
	size_t n, at;
	uint8_t *buf;

	if (!dmg || len <= 0 || len > (1 << 20))
		return;
	n = (size_t)len;
	buf = malloc(n);
	MUST(buf && pread(fd, buf, n, 0) == (ssize_t)n);
	at = n * dmg / 20;
	if (dmg & 1)
		buf[at] ^= (uint8_t)(dmg * 37) | 1;
	else
		n = at;
	if (dmg % 4 == 1)
		fix_crcs(buf, n);
	e = rec_parse(buf, n, &r, &err);
	MUST(e == 0 || err.len);
	if (e == 0 && dmg % 4 != 1)
		damaged_whole(r, !(dmg & 1), ns, nf);
	whole = r;
	if (r)
		ring.on_samples = on_samples;
	if (dmg % 4 >= 2 && n && pipe(pfd) == 0) {
		if (fcntl(pfd[1], F_SETPIPE_SZ, 1 << 20) >= (int)n)
			MUST(write(pfd[1], buf, n) == (ssize_t)n);
		else
			n = 0;	/* the pipe cannot hold it: read as empty, below */
		close(pfd[1]);
		e2 = n ? rec_read_fd_stream(pfd[0], "pipe", &ring, &s, &err2) : e;
		close(pfd[0]);
	} else {
		e2 = rec_parse_stream(buf, n, &ring, &s, &err2);
	}
	MUST((e2 == 0) == (e == 0) && (e2 == 0 || err2.len || !n));
	if (e == 0 && s) {
		MUST(s->nsamples == r->nsamples && s->torn_bytes == r->torn_bytes &&
		     s->complete == r->complete && s->nframes == r->nframes &&
		     s->nintervals == r->nintervals &&
		     (!s->nsamples || !memcmp(s->t_ns, r->t_ns, s->nsamples * sizeof(s->t_ns[0]))));
	}
	rec_free(s);
	rec_free(r);
	free(buf);
	sb_release(&err);
	sb_release(&err2);
}

/* The record in FD kept in $FUZZ_REC_KEEP, when set. */
static void keep(int fd)
{
	const char *dir = getenv("FUZZ_REC_KEEP");
	char buf[4096], out[4200];
	off_t off = 0;
	ssize_t n;
	FILE *f;

	if (!dir)
		return;
	n = pread(fd, buf, 16, 64);
	snprintf(out, sizeof(out), "%s/%lld-%02x%02x.ssr", dir, (long long)lseek(fd, 0, SEEK_END),
		 n > 0 ? (uint8_t)buf[0] : 0, n > 1 ? (uint8_t)buf[n - 1] : 0);
	f = fopen(out, "wb");
	if (!f)
		return;
	while ((n = pread(fd, buf, sizeof(buf), off)) > 0) {
		fwrite(buf, 1, (size_t)n, f);
		off += n;
	}
	fclose(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct in in = { data, data + size };
	struct rec_writer *w;
	struct rec *r = NULL;
	struct strbuf err = STRBUF_INIT;
	char path[64], name[8];
	size_t nf, ns = 0, nfr = 0, nth = 0, nev = 0, niv = 0, nsp = 0, nus = 0, ncl = 0, i;
	char meta[4][2][8], mval[8];
	size_t nmeta = 0;
	uint64_t t = 0, period;
	unsigned dmg;
	int fd = memfd_create("rec", 0);

	if (fd < 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	MUST(rec_writer_new(path, &w) == 0);
	/* the first byte: the fields, and the damage done after (damaged()) */
	nf = (size_t)take(&in, 1);
	dmg = (unsigned)(nf / (MAXF + 1));
	nf %= MAXF + 1;
	period = take(&in, 1) * 1000;
	if (period) {
		char p[32];

		snprintf(p, sizeof(p), "%llu", (unsigned long long)period);
		MUST(rec_writer_meta(w, "period_ns", p) == 0);
	}
	for (i = 0; i < nf; i++) {
		snprintf(name, sizeof(name), "f%zu", i);
		MUST(rec_writer_field(w, name, take(&in, 1) & 1 ? REC_STR : REC_INT) == (int)i);
	}
	/* a key block every 1 to 4 blocks, or the default (the period's byte
	 * chooses: what the input already says) */
	if (period / 1000 % 5)
		MUST(rec_writer_key_every(w, (unsigned)(period / 1000 % 5)) == 0);
	if (nf)
		MUST(rec_writer_field(w, "f0", REC_INT) == -EEXIST);
	MUST(rec_writer_begin(w) == 0);
	MUST(rec_writer_field(w, "late", REC_INT) == -EINVAL);
	while (in.p < in.end) {
		uint8_t op = (uint8_t)take(&in, 1);

		if (op >= 144 && op < 160 && ns && ns < MAXS) {
			/* the last values again (sampler_same): once, or a run of
			 * them a period apart (long enough for a window's group to
			 * pass REC_WIN_ROWS) */
			size_t n = op < 152 ? 1 : take(&in, 1) * 8 + 1;

			t = (uint64_t)value(&in, (int64_t)(t + period));
			for (size_t k = 0; k < n && ns < MAXS; k++, ns++) {
				g.t[ns] = k ? t += period : t;
				memcpy(g.vals[ns], g.vals[ns - 1], sizeof(g.vals[ns]));
				MUST(rec_writer_sample_same(w, t, g.vals[ns]) == 0);
			}
		} else if (op < 160 && ns < MAXS) {
			t = (uint64_t)value(&in, (int64_t)(t + period));
			g.t[ns] = t;
			for (size_t f = 0; f < nf; f++)
				g.vals[ns][f] = value(&in, ns ? g.vals[ns - 1][f] : 0);
			MUST(rec_writer_sample(w, t, g.vals[ns]) == 0);
			ns++;
		} else if (op < 200 && nfr < MAXS) {
			uint64_t prev = nfr ? g.fr[nfr - 1].t_ns : 0;

			g.fr[nfr].t_ns = (uint64_t)value(&in, (int64_t)prev);
			g.fr[nfr].tid = op & 1 ? (uint32_t)take(&in, 4) : 7;
			g.fr[nfr].source = op & 2 ? (uint32_t)take(&in, 1) : 0;
			MUST(rec_writer_frame(w, &g.fr[nfr]) == 0);
			nfr++;
		} else if (op < 220 && nth < 8) {
			size_t n = take(&in, 1) % MAXT;

			for (size_t k = 0; k < n; k++) {
				const struct rec_thread *old = nth && k < g.thn[nth - 1] ?
								       &g.th[nth - 1][k] : NULL;
				uint8_t how = (uint8_t)take(&in, 1);

				if (old && how < 128) {
					g.th[nth][k] = *old;
					if (how & 1)
						g.th[nth][k].cpu_ns += take(&in, 2);
					continue;
				}
				g.th[nth][k] = (struct rec_thread){
					(uint32_t)take(&in, 2), (uint32_t)take(&in, 1), take(&in, 8),
					(int32_t)take(&in, 4) };
			}
			g.thn[nth] = n;
			g.tht[nth] = take(&in, 8);
			MUST(rec_writer_threads(w, g.tht[nth], g.th[nth], n) == 0);
			nth++;
		} else if (op < 240) {
			MUST(rec_writer_event(w, take(&in, 8), (uint32_t)take(&in, 4),
					      op & 4 ? "ustack" : op & 1 ? "stack" : "note",
					      op & 4 ? "3\tf\tg\tg\tmain\n1\tlib.so+0x10\n" :
					      op & 2 ? "text" : NULL) == 0);
			nev++;
		} else if (op < 250 && niv < MAXS) {
			struct rec_interval *v = &g.iv[niv];
			uint64_t prev = niv ? g.iv[niv - 1].out_ns : 0;

			memset(v, 0, sizeof(*v));
			v->out_ns = (uint64_t)value(&in, (int64_t)prev);
			v->wake_ns = v->out_ns + take(&in, 3);
			v->in_ns = v->wake_ns + take(&in, 2);
			if (v->wake_ns < v->out_ns || v->in_ns < v->wake_ns) {
				MUST(rec_writer_interval(w, v) == -EINVAL);
				continue;
			}
			v->tid = (uint32_t)take(&in, 4);
			v->waker_tid = (uint32_t)take(&in, 2);
			v->syscall = (int32_t)take(&in, 4);
			v->cls = (uint8_t)take(&in, 1);
			v->state = (uint8_t)take(&in, 1);
			v->flags = (uint8_t)take(&in, 1);
			v->arg0 = take(&in, 8);
			g.ivstack[niv][0] = 0;
			if (op & 4)	/* many strings: the intern table grows */
				snprintf(g.ivstack[niv], sizeof(g.ivstack[niv]), "fn%llu\n",
					 (unsigned long long)take(&in, 2));
			v->stack = op & 4 ? rec_writer_intern(w, g.ivstack[niv]) :
				   op & 1 ? rec_writer_intern(w, "folio_wait_bit\nfilemap_fault\n") : 0;
			v->waker_comm = op & 2 ? rec_writer_intern(w, "kworker") : 0;
			MUST(rec_writer_interval(w, v) == 0);
			niv++;
		} else if (op == 252 && nus < MAXS) {
			uint8_t bid[20] = { (uint8_t)take(&in, 1), 7 };
			uint8_t how = (uint8_t)take(&in, 1);
			uint32_t m = rec_writer_umap(w, how & 1 ? "/lib/x.so" : "/bin/game", bid, 20);
			uint32_t fr[3], sid;
			struct rec_uframe uf = { .kind = REC_UF_ADDR, .ref = m, .off = take(&in, 3) };

			MUST(m);
			g.us[nus].off = uf.off;
			g.us[nus].nfr = 0;
			g.us[nus].kinds[g.us[nus].nfr] = REC_UF_ADDR;
			MUST((fr[g.us[nus].nfr++] = rec_writer_uframe(w, &uf)));
			if (how & 2) {
				uf = (struct rec_uframe){ .kind = REC_UF_KERNEL,
							  .ref = rec_writer_intern(w, "schedule") };
				g.us[nus].kinds[g.us[nus].nfr] = REC_UF_KERNEL;
				MUST((fr[g.us[nus].nfr++] = rec_writer_uframe(w, &uf)));
			}
			if (how & 4) {
				uf = (struct rec_uframe){ .kind = how & 8 ? REC_UF_JIT : REC_UF_UNKNOWN };
				g.us[nus].kinds[g.us[nus].nfr] = uf.kind;
				MUST((fr[g.us[nus].nfr++] = rec_writer_uframe(w, &uf)));
			}
			MUST((sid = rec_writer_ustack(w, fr, g.us[nus].nfr)));
			g.us[nus].t = take(&in, 8);
			g.us[nus].tid = (uint32_t)take(&in, 4);
			g.us[nus].count = take(&in, 2) + 1;
			MUST(rec_writer_uset(w, &(struct rec_uset){ .t_ns = g.us[nus].t,
					 .tid = g.us[nus].tid, .n = 1, .stack = &sid,
					 .count = &g.us[nus].count }) == 0);
			nus++;
		} else if (op < 253 && nsp < MAXS) {
			struct rec_apispan *v = &g.sp[nsp];

			v->start_ns = take(&in, 8);
			v->dur_ns = take(&in, 3);
			v->tid = (uint32_t)take(&in, 4);
			v->name =
				rec_writer_intern(w, op & 1 ? "glLinkProgram" : "vkWaitForFences");
			if (v->start_ns + v->dur_ns < v->start_ns) {
				MUST(rec_writer_apispan(w, v) == -EINVAL);
				continue;
			}
			MUST(rec_writer_apispan(w, v) == 0);
			nsp++;
		} else if (op == 253 && ncl < MAXS) {
			struct rec_clock *c = &g.cl[ncl];

			c->mono_ns = take(&in, 8);
			c->real_ns = take(&in, 8);
			c->boot_ns = take(&in, 8);
			MUST(rec_writer_clock(w, c) == 0);
			ncl++;
		} else if (op == 254) {	/* a meta key after the header: the last wins */
			snprintf(name, sizeof(name), "k%u", (unsigned)take(&in, 1) % 4);
			snprintf(mval, sizeof(mval), "%llu", (unsigned long long)take(&in, 2));
			MUST(rec_writer_meta(w, name, mval) == 0);
			for (i = 0; i < nmeta && strcmp(meta[i][0], name); i++)
				;
			if (i == nmeta)
				nmeta++;
			snprintf(meta[i][0], sizeof(meta[i][0]), "%s", name);
			snprintf(meta[i][1], sizeof(meta[i][1]), "%s", mval);
		} else {	/* a flush: what the writer counts is the file then */
			MUST(rec_writer_bytes(w) >= (uint64_t)lseek(fd, 0, SEEK_END));
			MUST(rec_writer_flush(w) == 0);
			MUST(rec_writer_bytes(w) == (uint64_t)lseek(fd, 0, SEEK_END));
		}
	}
	MUST(rec_writer_close(w) == 0);
	if (rec_read_file(path, &r, &err) < 0)
		fprintf(stderr, "round trip: the record written is refused: %s\n", err.buf);
	MUST(r);
	keep(fd);
	other_reads(fd, path, r, size && data[size - 1] & 1 ? UINT64_MAX : ns ? g.t[ns / 2] : 0);
	damaged(fd, dmg, ns, nf);
	close(fd);
	MUST(r->nfields == nf && r->nsamples == ns && r->nframes == nfr && r->nthreads == nth &&
	     r->nevents == nev && r->nintervals == niv && r->napispans == nsp && r->complete &&
	     !r->torn_bytes && r->nusets == nus);
	for (i = 0; i < nus; i++) {
		const struct rec_uset *u = &r->usets[i];
		const struct rec_ustack *st;

		MUST(u->t_ns == g.us[i].t && u->tid == g.us[i].tid && u->n == 1 &&
		     u->count[0] == g.us[i].count && u->stack[0] < r->nustacks);
		st = &r->ustacks[u->stack[0]];
		MUST(st->n == g.us[i].nfr);
		for (size_t k = 0; k < st->n; k++) {
			MUST(st->frames[k] < r->nuframes);
			MUST(r->uframes[st->frames[k]].kind == g.us[i].kinds[k]);
		}
		MUST(r->uframes[st->frames[0]].off == g.us[i].off);
		MUST(r->uframes[st->frames[0]].ref < r->numaps &&
		     r->umaps[r->uframes[st->frames[0]].ref].path);
	}
	for (i = 0; i < nsp; i++)
		MUST(!memcmp(&r->apispans[i], &g.sp[i], sizeof(g.sp[i])));
	MUST(r->nclocks == ncl);
	for (i = 0; i < ncl; i++)
		MUST(!memcmp(&r->clocks[i], &g.cl[i], sizeof(g.cl[i])));
	for (i = 0; i < nmeta; i++)
		MUST(rec_meta_get(r, meta[i][0]) && !strcmp(rec_meta_get(r, meta[i][0]), meta[i][1]));
	for (i = 0; i < niv; i++) {
		MUST(!memcmp(&r->intervals[i], &g.iv[i], sizeof(g.iv[i])));
		MUST(!g.ivstack[i][0] || !strcmp(rec_str(r, r->intervals[i].stack), g.ivstack[i]));
	}
	for (i = 0; i < ns; i++) {
		MUST(r->t_ns[i] == g.t[i]);
		MUST(!nf || !memcmp(&r->vals[i * nf], g.vals[i], nf * sizeof(int64_t)));
	}
	for (i = 0; i < nfr; i++)
		MUST(!memcmp(&r->frames[i], &g.fr[i], sizeof(g.fr[i])));
	for (i = 0; i < nth; i++) {
		MUST(r->threads[i].t_ns == g.tht[i] && r->threads[i].n == g.thn[i]);
		for (size_t k = 0; k < g.thn[i]; k++)
			MUST(!memcmp(&r->threads[i].th[k], &g.th[i][k], sizeof(g.th[i][k])));
	}
	rec_free(r);
	sb_release(&err);
	return 0;
}
