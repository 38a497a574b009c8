// SPDX-License-Identifier: MIT
/*
 * dump.c: `stallscope dump RUNDIR|FILE`, a record (record.ssr) as text, one
 * line per record, for people and for tests.
 *
 * Reads the whole record (src/rec; --summary streams it, counting what
 * passes and keeping none of it), then prints its header (version, meta,
 * fields) and merges samples, frames, thread snapshots, events and clock
 * pairs into one stream by time (at equal times: clock, sample, threads,
 * event, frame). A sample line names only the fields that changed since the
 * previous sample (all of them for the first). Then a "damage" line for
 * each span the reader skipped (its offset, bytes and the stamps around it)
 * and last a summary with the counts, the bytes per sample, the torn and the
 * damaged bytes. Strings are
 * quoted and escaped (\n, \t, \\, \', \xHH), so every record stays on one
 * line.
 *
 * --salvage DIR FILE moves a record a killed recording left in tmpfs into a
 * run directory (run/rundir.h, rundir_salvage) instead.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "opts.h"
#include "cmd/cmd.h"
#include "core/display.h"
#include "core/exact.h"
#include "core/where.h"
#include "rec/rec.h"
#include "run/rundir.h"

struct dump_opts {
	bool summary;	/* header and summary only */
};

static const struct opts_help dump_help = {
	"usage: stallscope dump [--summary] RUNDIR|FILE\n"
	"       stallscope dump --salvage DIR /dev/shm/stallscope-PID-STAMP-RANDOM.ssr\n"
	"\n"
	"prints a record (RUNDIR/record.ssr, or FILE) as text, one line per record:\n"
	"the header (version, meta, fields), then samples (only the fields that\n"
	"changed), frames, thread snapshots (tid:name:cpu_ns:cpu), events and clock\n"
	"pairs in time order, then a line for each damaged span the reader skipped\n"
	"(offset, bytes, the stamps before and after it) and a summary with the torn\n"
	"and damaged bytes\n"
	"\n",
	"EXAMPLES\n"
	"  stallscope dump runs/20260101T120000Z-game/\n"
	"  stallscope dump --summary /dev/shm/stallscope-1234.ssr\n"
	"  stallscope dump RUN | grep '^frame' | wc -l\n"
	"  stallscope dump --salvage runs/saved /dev/shm/stallscope-4242-20260101T120000Z-ab12cd34.ssr\n",
};

static void put_time(uint64_t t)
{
	printf("%" PRIu64 ".%09" PRIu64, t / 1000000000u, t % 1000000000u);
}

/* S quoted and escaped so that it stays on one line and sends the terminal
 * nothing: control bytes, C1 controls and bytes that are not UTF-8 as \xHH
 * (display_utf8 says what is a character). */
static void put_str(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t left = strlen(s);

	putchar('\'');
	while (left) {
		uint32_t cp = 0;
		size_t len = display_utf8(p, left, &cp);

		if (*p == '\n')
			fputs("\\n", stdout);
		else if (*p == '\t')
			fputs("\\t", stdout);
		else if (*p == '\\' || *p == '\'')
			printf("\\%c", *p);
		else if (len && cp >= 0x20 && cp != 0x7f && (cp < 0x80 || cp >= 0xa0))
			fwrite(p, 1, len, stdout);
		else
			len = 0;	/* a control or a byte of no character: this byte alone */
		if (!len) {
			printf("\\x%02x", *p);
			len = 1;
		}
		p += len;
		left -= len;
	}
	putchar('\'');
}

static void put_value(const struct rec *r, size_t f, int64_t v)
{
	if (r->fields[f].kind == REC_STR) {
		if (v == 0 || (uint64_t)v >= r->nstrs)
			printf("%" PRId64, v);	/* none, or an id the file never defined */
		else
			put_str(rec_str(r, v));
	} else {
		printf("%" PRId64, v);
	}
}

static void dump_header(const struct rec *r, const char *path)
{
	printf("record version=%u.%u file=", r->version_major, r->version_minor);
	put_str(path);
	putchar('\n');
	for (size_t i = 0; i < r->nmeta; i++) {
		printf("meta %s=", cli_shown(r->meta[i].key));
		put_str(r->meta[i].value);
		putchar('\n');
	}
	for (size_t i = 0; i < r->nfields; i++)
		printf("field %zu %s %s\n", i, cli_shown(r->fields[i].name),
		       r->fields[i].kind == REC_INT	? "int"
		       : r->fields[i].kind == REC_STR ? "str"
						      : "unknown");
}

static void dump_sample(const struct rec *r, size_t i)
{
	const int64_t *row = r->vals + i * r->nfields;
	const int64_t *prev = i ? row - r->nfields : NULL;

	fputs("sample t=", stdout);
	put_time(r->t_ns[i]);
	for (size_t f = 0; f < r->nfields; f++) {
		if (prev && prev[f] == row[f])
			continue;
		printf(" %s=", cli_shown(r->fields[f].name));
		put_value(r, f, row[f]);
	}
	putchar('\n');
}

static void dump_threads(const struct rec *r, const struct rec_threads *ts)
{
	fputs("threads t=", stdout);
	put_time(ts->t_ns);
	printf(" n=%zu", ts->n);
	for (size_t k = 0; k < ts->n; k++) {
		printf(" %" PRIu32 ":", ts->th[k].tid);
		put_str(rec_str(r, ts->th[k].name));
		printf(":%" PRIu64 ":%" PRId32, ts->th[k].cpu_ns, ts->th[k].cpu);
	}
	putchar('\n');
}

/* The streams, merged by time; the order of this enum breaks ties. */
enum stream { S_CLOCK, S_SAMPLE, S_THREADS, S_EVENT, S_FRAME, S_INTERVAL, S_APISPAN, S_USET, S_N };

/* An exact-mode interval: its three times, who, why, and its strings. */
static void dump_interval(const struct rec *r, const struct rec_interval *iv)
{
	const char *cls = exact_class_name(iv->cls);

	fputs("interval out=", stdout);
	put_time(iv->out_ns);
	fputs(" wake=", stdout);
	put_time(iv->wake_ns);
	fputs(" in=", stdout);
	put_time(iv->in_ns);
	printf(" tid=%" PRIu32 " class=", iv->tid);
	if (cls)
		fputs(cls, stdout);
	else
		printf("%u", iv->cls);
	printf(" state=%c syscall=%" PRId32 " arg0=%" PRIu64 " flags=0x%x waker=%" PRIu32 ":",
	       iv->state >= 32 && iv->state < 127 ? iv->state : '?', iv->syscall, iv->arg0,
	       iv->flags, iv->waker_tid);
	put_str(rec_str(r, iv->waker_comm));
	fputs(" fd_target=", stdout);
	put_str(rec_str(r, iv->fd_target));
	fputs(" stack=", stdout);
	put_str(rec_str(r, iv->stack));
	putchar('\n');
}

/* A window's stacks (2.3): "ustack t=T tid=N" ("ustack2", "ivstack": the
 * second thread's, an exact interval's), then a line per stack,
 * "  COUNT F|F|...": a frame in a file as MAP:0xOFFSET (the mapping's id:
 * the "umap" lines of the summary give its file), others by name. */
static void dump_uset(const struct rec *r, const struct rec_uset *u)
{
	static const char *const kind[REC_USET_KINDS] = {
		[REC_USET_STALL] = "ustack", [REC_USET_THREAD2] = "ustack2",
		[REC_USET_INTERVAL] = "ivstack",
	};

	printf("%s t=", u->kind < REC_USET_KINDS ? kind[u->kind] : "ustack?");
	put_time(u->t_ns);
	printf(" tid=%" PRIu32 " stacks=%" PRIu32 "\n", u->tid, u->n);
	for (uint32_t k = 0; k < u->n; k++) {
		const struct rec_ustack *st = u->stack[k] < r->nustacks ? &r->ustacks[u->stack[k]] : NULL;
		struct strbuf sb = STRBUF_INIT;

		for (uint32_t i = 0; st && i < st->n; i++) {
			uint32_t f = st->frames[i];
			const struct rec_uframe *fr = f < r->nuframes ? &r->uframes[f] : NULL;

			if (i)
				sb_addc(&sb, '|');
			if (fr && fr->kind == REC_UF_ADDR)
				sb_addf(&sb, "%" PRIu32 ":0x%" PRIx64, fr->ref, fr->off);
			else
				sb_addf(&sb, "%s%s", fr && fr->kind == REC_UF_KERNEL ? "k:" : "",
					where_uframe_name(r, f));
		}
		printf("  %" PRIu64 " ", u->count[k]);
		put_str(sb.len ? sb.buf : "-");
		putchar('\n');
		sb_release(&sb);
	}
}

static void dump_body(const struct rec *r)
{
	size_t pos[S_N] = { 0 };
	const size_t len[S_N] = { r->nclocks, r->nsamples, r->nthreads, r->nevents, r->nframes,
				  r->nintervals, r->napispans, r->nusets };

	for (;;) {
		int best = -1;
		uint64_t bt = 0;

		for (int s = 0; s < S_N; s++) {
			uint64_t t;

			if (pos[s] >= len[s])
				continue;
			switch (s) {
			case S_CLOCK: t = r->clocks[pos[s]].mono_ns; break;
			case S_SAMPLE: t = r->t_ns[pos[s]]; break;
			case S_THREADS: t = r->threads[pos[s]].t_ns; break;
			case S_EVENT: t = r->events[pos[s]].t_ns; break;
			case S_INTERVAL: t = r->intervals[pos[s]].in_ns; break;
			case S_APISPAN: t = r->apispans[pos[s]].start_ns; break;
			case S_USET: t = r->usets[pos[s]].t_ns; break;
			default: t = r->frames[pos[s]].t_ns; break;
			}
			if (best < 0 || t < bt) {
				best = s;
				bt = t;
			}
		}
		if (best < 0)
			break;
		switch (best) {
		case S_CLOCK:
			fputs("clock mono=", stdout);
			put_time(r->clocks[pos[best]].mono_ns);
			fputs(" real=", stdout);
			put_time(r->clocks[pos[best]].real_ns);
			if (r->clocks[pos[best]].boot_ns) {
				fputs(" boot=", stdout);
				put_time(r->clocks[pos[best]].boot_ns);
			}
			putchar('\n');
			break;
		case S_SAMPLE:
			dump_sample(r, pos[best]);
			break;
		case S_THREADS:
			dump_threads(r, &r->threads[pos[best]]);
			break;
		case S_EVENT: {
			const struct rec_event *e = &r->events[pos[best]];

			fputs("event t=", stdout);
			put_time(e->t_ns);
			printf(" tid=%" PRIu32 " kind=", e->tid);
			put_str(e->kind);
			fputs(" text=", stdout);
			put_str(e->text);
			putchar('\n');
			break;
		}
		case S_INTERVAL:
			dump_interval(r, &r->intervals[pos[best]]);
			break;
		case S_APISPAN: {
			const struct rec_apispan *sp = &r->apispans[pos[best]];

			fputs("apispan t=", stdout);
			put_time(sp->start_ns);
			fputs(" dur=", stdout);
			put_time(sp->dur_ns);
			printf(" tid=%" PRIu32 " name=", sp->tid);
			put_str(rec_str(r, sp->name));
			putchar('\n');
			break;
		}
		case S_USET:
			dump_uset(r, &r->usets[pos[best]]);
			break;
		default: {
			const struct rec_frame *fr = &r->frames[pos[best]];

			fputs("frame t=", stdout);
			put_time(fr->t_ns);
			printf(" tid=%" PRIu32 " source=%" PRIu32 "\n", fr->tid, fr->source);
			break;
		}
		}
		pos[best]++;
	}
}

/* What the summary counts: the record's, or, streamed (--summary), what
 * passed. */
struct counts {
	size_t samples, frames, threads, intervals, apispans;
	uint64_t t_first, t_last;	/* the first and the last sample's stamps */
};

static void counts_of(const struct rec *r, struct counts *c)
{
	*c = (struct counts){ r->nsamples, r->nframes, r->nthreads, r->nintervals, r->napispans,
			      r->nsamples ? r->t_ns[0] : 0,
			      r->nsamples ? r->t_ns[r->nsamples - 1] : 0 };
}

static int count_sample(void *ctx, const struct rec *r, uint64_t t, const int64_t *row)
{
	struct counts *c = ctx;

	(void)r, (void)row;
	if (!c->samples++)
		c->t_first = t;
	c->t_last = t;
	return 0;
}

static int count_frame(void *ctx, const struct rec_frame *f)
{
	(void)f;
	((struct counts *)ctx)->frames++;
	return 0;
}

static int count_threads(void *ctx, const struct rec *r, const struct rec_threads *ts)
{
	(void)r, (void)ts;
	((struct counts *)ctx)->threads++;
	return 0;
}

static int count_interval(void *ctx, const struct rec *r, const struct rec_interval *iv)
{
	(void)r, (void)iv;
	((struct counts *)ctx)->intervals++;
	return 0;
}

static int count_apispan(void *ctx, const struct rec *r, const struct rec_apispan *sp)
{
	(void)r, (void)sp;
	((struct counts *)ctx)->apispans++;
	return 0;
}

static void dump_summary(const struct rec *r, const struct counts *c, long long bytes)
{
	/* the files of the stacks' frames (2.3), by id */
	for (size_t i = 1; i < r->numaps; i++) {
		if (!r->umaps[i].path)
			continue;
		printf("umap id=%zu build_id=", i);
		for (size_t b = 0; b < r->umaps[i].build_id_len; b++)
			printf("%02x", r->umaps[i].build_id[b]);
		fputs(" path=", stdout);
		put_str(r->umaps[i].path);
		putchar('\n');
	}
	/* damage first, on lines of its own: what was skipped, and when */
	for (size_t k = 0; k < r->ndamage; k++) {
		const struct rec_damage *d = &r->damage[k];

		printf("damage offset=%" PRIu64 " bytes=%" PRIu64 " from=", d->off, d->bytes);
		if (d->t_before_ns)
			put_time(d->t_before_ns);
		else
			putchar('-');
		fputs(" to=", stdout);
		if (d->t_after_ns)
			put_time(d->t_after_ns);
		else
			putchar('-');
		putchar('\n');
	}
	printf("summary samples=%zu frames=%zu threads=%zu clocks=%zu events=%zu strings=%zu "
	       "unknown_records=%" PRIu64 " torn_bytes=%" PRIu64 " complete=%s",
	       c->samples, c->frames, c->threads, r->nclocks, r->nevents,
	       r->nstrs ? r->nstrs - 1 : 0, r->unknown_records, r->torn_bytes,
	       r->complete ? "yes" : "no");
	if (c->samples >= 2 && c->t_last >= c->t_first) {
		fputs(" span_s=", stdout);
		put_time(c->t_last - c->t_first);
	} else {
		fputs(" span_s=-", stdout);
	}
	if (bytes >= 0)
		printf(" bytes=%lld", bytes);
	else
		fputs(" bytes=-", stdout);
	if (bytes >= 0 && c->samples)
		printf(" bytes_per_sample=%.1f", (double)bytes / (double)c->samples);
	else
		fputs(" bytes_per_sample=-", stdout);
	printf(" damaged_bytes=%" PRIu64, r->damaged_bytes);
	if (c->intervals)
		printf(" intervals=%zu", c->intervals);
	if (c->apispans)
		printf(" apispans=%zu", c->apispans);
	if (r->nusets)
		printf(" ustacks=%zu", r->nusets);
	putchar('\n');
}

int cmd_dump(int argc, char **argv)
{
	struct dump_opts o = { .summary = false };
	struct strbuf err = STRBUF_INIT;
	char *path = NULL;
	struct rec *r = NULL;
	struct counts counts = { 0 };
	struct stat st;
	long long bytes = -1;
	const char *salvage = NULL;
	const struct opt opts[] = {
		OPT_BOOL(0, "summary", &o.summary, "print the header and the summary only"),
		OPT_STRING(0, "salvage", &salvage, "DIR",
			   "move a record a recording left in /dev/shm (its recorder\n"
			   "killed; record says how many there are) and the files\n"
			   "beside it into the new run directory DIR; nothing else is\n"
			   "ever removed"),
		OPT_END(),
	};
	int optind, ret;

	optind = opts_parse(argc, argv, opts, &dump_help, 0);
	if (optind < 0)
		return opts_exit(optind);
	if (salvage) {
		struct strbuf moved = STRBUF_INIT;

		if (optind != argc - 1 || o.summary)
			return cli_usage_error("--salvage DIR takes one record left in /dev/shm");
		if (rundir_salvage(argv[optind], salvage, rundir_user(), &moved, &err) < 0) {
			cli_error("%s", err.buf);
			sb_release(&err);
			sb_release(&moved);
			return 1;
		}
		printf("moved %s into %s: %s\n", cli_shown(argv[optind]), cli_shown(salvage),
		       moved.buf);
		sb_release(&moved);
		sb_release(&err);
		return 0;
	}
	if (optind != argc - 1)
		return cli_usage_error(optind >= argc ? "expected a run directory or a record file"
						      : "expected one run directory or record file");
	if (stat(argv[optind], &st) == 0 && S_ISDIR(st.st_mode)) {
		struct strbuf p = STRBUF_INIT, note = STRBUF_INIT;
		struct rundir *rd = NULL;

		/* RUNDIR/record.ssr, or the record_tmp of a recorder killed */
		if (rundir_open(argv[optind], &rd, &note) < 0) {
			cli_error("%s", note.buf);
			sb_release(&note);
			return EXIT_FAILURE;
		}
		if (rundir_record_path(rd, &p, &note) < 0 || !(path = sb_detach(&p))) {
			rundir_close(rd);
			sb_release(&p);
			sb_release(&note);
			return cli_error("out of memory");
		}
		rundir_close(rd);
		if (note.len) {
			note.buf[note.len - 1] = '\0';
			cli_warn("%s", note.buf);
		}
		sb_release(&note);
	} else {
		path = strdup(argv[optind]);
		if (!path)
			return cli_error("out of memory");
	}
	if (o.summary && !getenv("STALLSCOPE_WHOLE_RECORD")) {
		/* the summary counts what passes, keeping none of it: samples,
		 * frames, snapshots, intervals, API spans (the whole record,
		 * STALLSCOPE_WHOLE_RECORD=1, for comparison: the same text) */
		struct rec_stream rs = { .skip_threads = true, .skip_frames = true,
					 .on_sample = count_sample, .on_frame = count_frame,
					 .on_threads = count_threads, .on_interval = count_interval,
					 .on_apispan = count_apispan, .ctx = &counts };

		ret = rec_read_file_stream(path, &rs, &r, &err);
	} else {
		ret = rec_read_file(path, &r, &err);
		if (ret == 0)
			counts_of(r, &counts);
	}
	if (ret < 0) {
		cli_error("%s", err.buf);
		sb_release(&err);
		free(path);
		return 1;
	}
	if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
		bytes = (long long)st.st_size;
	dump_header(r, path);
	if (!o.summary)
		dump_body(r);
	dump_summary(r, &counts, bytes);
	if (r->ndamage)
		fprintf(stderr, "!! '%s' is DAMAGED: %" PRIu64 " bytes in %zu place%s did not check "
				"out and were skipped (the 'damage' lines)\n",
			cli_shown(path), r->damaged_bytes, r->ndamage, r->ndamage == 1 ? "" : "s");
	rec_free(r);
	sb_release(&err);
	free(path);
	return 0;
}
