// SPDX-License-Identifier: MIT
/*
 * html.c: `stallscope html [-o FILE] INPUT...`: one self-contained page of
 * the runs (run directories or frame logs, as report takes them): every
 * frame on a zoomable plot with its warm-up, window and reload segments, the
 * stalls coloured by cause with the evidence `stalls` prints, the report's
 * metrics with METRICS.md's definitions, run.ini's facts (src/out/html.h
 * writes the page, share/html/page.js draws it).
 *
 * The data, per run: the frame ends as gaps in 10 us units (u32,
 * gzip-compressed and base64: the whole run, not a decimated copy), the
 * first frame's end, the segments, the metrics, the stalls, run.ini's keys
 * and the notes.
 *
 * In constant memory but for the analysis's frames and the stall list
 * (issue 31; docs/HTML.md, "Written as it is made"): the page is written
 * as it is made, the frame gaps streamed into the gzip, the record read by
 * windows as `stalls` reads it, each stall's exact intervals spilled to a
 * temporary file while its group of samples is at hand.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cmd/cmd.h"
#include "cmd/html.h"
#include "cmd/html_history.h"
#include "cmd/html_int.h"
#include "cmd/outfile.h"
#include "cmd/report_threads.h"
#include "cmd/report.h"
#include "cmd/stall_list.h"
#include "core/causes.h"
#include "core/exact.h"
#include "core/grow.h"
#include "core/runini.h"
#include "out/html.h"
#include "out/json.h"
#include "out/spill.h"
#include "rec/rec.h"
#include "run/rundir.h"

static const struct opts_help html_help = {
	"usage: stallscope html [-o FILE] [options] INPUT...\n"
	"       stallscope html --db PATH [-o FILE] NAME:VARIANT NAME:VARIANT...\n"
	"       stallscope html --history NAME[:VARIANT] [options] (html --history --help)\n"
	"\n"
	"Writes one self-contained page (no network needed to open it) of the runs\n"
	"(run directories or frame logs, as report takes them): every frame on a\n"
	"zoomable plot (drag to zoom, wheel to zoom, shift+wheel or arrow keys to pan,\n"
	"double-click to reset) with the warm-up, the window and the reload\n"
	"segments; the stalls coloured by cause, with the evidence `stalls` prints,\n"
	"in a sortable table; the report's metrics with their definitions; run.ini.\n"
	"Default output: INPUT/report.html for one run directory, else\n"
	"stallscope-report.html.\n"
	"\n",
	"EXAMPLES\n"
	"  stallscope html runs/2026*-fakegame/\n"
	"  stallscope html -o cmp.html --warmup 0 base/ new/\n",
};

/* The frame ends as gaps in 10 us units: x is their running sum from the
 * first frame's end, y each gap (the frame time). Streamed: a block of
 * gaps at a time into the gzip, its base64 into the page as it comes. */
#define GAPS_BLOCK 4096

static int frames_data(struct json *j, const struct frames *f)
{
	uint32_t gaps[GAPS_BLOCK];
	struct html_gz g;
	int64_t prev;
	size_t k = 0;
	int r;

	json_key(j, "frames");
	json_obj_begin(j);
	json_kuint(j, "n", f ? f->n : 0);
	if (!f || !f->n) {
		json_obj_end(j);
		return 0;
	}
	json_knumf(j, "first_end_s", frames_t(f, 0), 5);
	json_kuint(j, "unit_us", 10);
	/* little-endian u32s: the page reads them with a DataView */
	json_key(j, "gaps_u32le_gz_b64");
	json_value_begin(j);
	fputc('"', j->f);
	r = html_gz_begin(&g, j->f);
	prev = llround(frames_t(f, 0) * 1e5) - llround(frames_ft(f, 0) * 100);
	for (size_t i = 0; i < f->n && r >= 0; i++) {
		int64_t t = llround(frames_t(f, i) * 1e5), d = t - prev;

		gaps[k++] = d < 0 ? 0 : d > UINT32_MAX ? UINT32_MAX : (uint32_t)d;
		prev = t;
		if (k == GAPS_BLOCK || i + 1 == f->n) {
			r = html_gz_write(&g, gaps, k * sizeof(*gaps));
			k = 0;
		}
	}
	if (html_gz_end(&g) < 0)
		r = -EIO;
	fputc('"', j->f);
	json_obj_end(j);
	return r;
}

static void segments_data(struct json *j, const struct analysis *a)
{
	const struct metrics *m = &a->m;
	const struct frames *f = a->f;

	json_knum(j, "origin_s", m->origin_s);
	json_knum(j, "warmup_end_s", m->origin_s + a->mo.warmup_s);
	json_key(j, "window");
	if (f && m->win_n) {
		json_arr_begin(j);
		json_num(j, frames_start(f, m->win_first));
		json_num(j, frames_t(f, m->win_first + m->win_n - 1));
		json_arr_end(j);
	} else {
		json_null(j);
	}
	json_key(j, "reloads");
	json_arr_begin(j);
	for (size_t k = 0; k < a->nsegs; k++) {
		json_arr_begin(j);
		json_num(j, a->segs[k].start_s);
		json_num(j, a->segs[k].end_s);
		json_arr_end(j);
	}
	json_arr_end(j);
}

static void metrics_data(struct json *j, const struct analysis *a)
{
	json_key(j, "metrics");
	json_arr_begin(j);
	for (int m = 0; m < M_COUNT; m++) {
		json_arr_begin(j);
		json_str(j, metric_descs[m].name);
		json_numf(j, a->m.v[m], metric_descs[m].decimals + 1);
		json_str(j, metric_descs[m].unit);
		json_arr_end(j);
	}
	json_arr_end(j);
}

/* The clause of the evidence that bears on the stall's cause, the largest
 * of its kind (disk reads for disk and io, major faults or memory pressure
 * for swap, reclaim and fault, run and runq for cpu and runq), else the
 * one with the most milliseconds; -1 when there is none but the state. */
static int top_clause(const struct stall_item *s, const struct stall_clause *cl, size_t n)
{
	static const enum stall_clause_kind disk[] = { SC_DISK, SC_FAULTS, SC_PRESSURE };
	static const enum stall_clause_kind mem[] = { SC_FAULTS, SC_PRESSURE, SC_DISK, SC_VM };
	static const enum stall_clause_kind cpu[] = { SC_RUN, SC_LATE };
	const enum stall_clause_kind *want = NULL;
	size_t nwant = 0;
	int best = -1;

	switch (s->v.cause) {
	case CAUSE_DISK:
	case CAUSE_IO:
		want = disk, nwant = sizeof(disk) / sizeof(disk[0]);
		break;
	case CAUSE_SWAP:
	case CAUSE_RECLAIM:
	case CAUSE_FAULT:
		want = mem, nwant = sizeof(mem) / sizeof(mem[0]);
		break;
	case CAUSE_CPU:
	case CAUSE_RUNQ:
		want = cpu, nwant = sizeof(cpu) / sizeof(cpu[0]);
		break;
	default:
		break;
	}
	for (size_t w = 0; w < nwant && best < 0; w++)
		for (size_t k = 1; k < n; k++)
			if (cl[k].kind == want[w] && (best < 0 || cl[k].size > cl[best].size))
				best = (int)k;
	/* else the most milliseconds (run, pressure, a late wake-up) */
	for (size_t k = 1; k < n && best < 0; k++)
		if ((cl[k].kind == SC_RUN || cl[k].kind == SC_PRESSURE || cl[k].kind == SC_LATE) &&
		    cl[k].size > 0)
			best = (int)k;
	for (size_t k = 1; best >= 0 && k < n; k++)
		if (cl[k].kind == cl[best].kind && cl[k].size > cl[best].size)
			best = (int)k;
	return best;
}

/* The evidence: `stalls`' line, its clauses and which of them the stall
 * table shows beside the state ("ev_top"). */
static void evidence_data(struct json *j, const struct stall_item *s)
{
	struct stall_clause cl[CAUSE_EV_MAX * 4];
	struct strbuf sb = STRBUF_INIT;
	size_t n = stall_evidence_clauses(&sb, &s->e, 3, cl, sizeof(cl) / sizeof(cl[0]));

	if (n > sizeof(cl) / sizeof(cl[0]))
		n = sizeof(cl) / sizeof(cl[0]);
	json_kstr(j, "evidence", sb.buf);
	json_key(j, "ev_clauses");
	json_arr_begin(j);
	for (size_t k = 0; k < n && sb.buf; k++)
		json_strn(j, sb.buf + cl[k].off, cl[k].len);
	json_arr_end(j);
	json_kint(j, "ev_top", top_clause(s, cl, n));
	sb_release(&sb);
}

#define HTML_INTERVALS 64	/* exact intervals of a stall the page groups */

/* Every exact interval of the stall (up to HTML_INTERVALS), in short: its
 * class, milliseconds, syscall and file, waker, innermost kernel function;
 * the page groups them by class and waker. C holds the stall's intervals;
 * R (the analysis's record) their strings. The array alone. */
static void intervals_data(struct json *j, const struct causes *c, const struct rec *r,
			   const struct stall_item *s)
{
	const struct rec_interval *iv[HTML_INTERVALS];
	double an = (double)s->t0_ns + s->t_s * 1e9, bn = an + s->ms * 1e6;
	size_t n = causes_exact_intervals(c, an <= 0 ? 0 : (uint64_t)an, bn <= 0 ? 0 : (uint64_t)bn,
					  iv, HTML_INTERVALS);

	json_arr_begin(j);
	for (size_t k = 0; k < n && k < HTML_INTERVALS; k++) {
		const char *cls = exact_class_name(iv[k]->cls), *st = rec_str(r, iv[k]->stack);
		const char *sys = iv[k]->syscall >= 0 ?
			cause_syscall_name(rec_meta_get(r, "syscall_abi"), iv[k]->syscall) : NULL;

		json_obj_begin(j);
		json_kstr(j, "kind", cls ? cls : "?");
		json_knumf(j, "ms", (double)(iv[k]->in_ns - iv[k]->out_ns) / 1e6, 3);
		json_kstr(j, "sys", sys);
		json_kstr(j, "file", iv[k]->fd_target ? rec_str(r, iv[k]->fd_target) : NULL);
		json_kuint(j, "waker_tid", iv[k]->waker_tid);
		json_kstr(j, "waker", iv[k]->waker_tid ? rec_str(r, iv[k]->waker_comm) : NULL);
		if (*st) {
			json_key(j, "at");
			json_strn(j, st, strcspn(st, "\n"));
		}
		json_obj_end(j);
	}
	json_arr_end(j);
}

/* PATH as one shell word: as it is when it needs no quoting, else in
 * single quotes. */
static void sh_word(struct strbuf *sb, const char *path)
{
	if (*path && strspn(path, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				"0123456789@%+=:,./_-") == strlen(path)) {
		sb_adds(sb, path);
		return;
	}
	sb_addc(sb, '\'');
	for (const char *p = path; *p; p++) {
		if (*p == '\'')
			sb_adds(sb, "'\\''");
		else
			sb_addc(sb, *p);
	}
	sb_addc(sb, '\'');
}

/* Why A's window holds no frame though the run has frames, into WHY ("the
 * run is 11.9 s, shorter than the 60 s warm-up"), and the command for a
 * page of the whole run into TODO. Returns whether it is so. */
static bool window_empty(const struct analysis *a, struct strbuf *why, struct strbuf *todo)
{
	const struct metrics_opts *o = &a->mo;
	double last;

	if (!a->f || !a->f->n || a->m.win_n)
		return false;
	last = frames_t(a->f, a->f->n - 1) - a->m.origin_s;
	if (isnan(o->from_s) && last <= o->warmup_s)
		sb_addf(why, "the run is %.1f s, shorter than the %g s warm-up", last, o->warmup_s);
	else if (last <= (isnan(o->from_s) ? o->warmup_s : o->from_s))
		sb_addf(why, "the run is %.1f s and ends before the window's start (--from %g s)",
			last, o->from_s);
	else if (isnan(o->to_s))
		sb_addf(why, "no frame ends in the window (from %g s)",
			isnan(o->from_s) ? o->warmup_s : o->from_s);
	else
		sb_addf(why, "no frame ends in the window (%g s to %g s)",
			isnan(o->from_s) ? o->warmup_s : o->from_s, o->to_s);
	sb_adds(todo, "stallscope html --warmup 0 ");
	if (o->stall_ms != 100.0)
		sb_addf(todo, "--stall-ms %g ", o->stall_ms);
	sh_word(todo, a->source);
	return true;
}

/* One reason at the top of the run's section: KIND, what is missing or
 * left out and why (WHY), what to do (TODO, maybe empty), the command that
 * does it (CMD, maybe NULL). */
static void reason(struct json *j, const char *kind, const char *why, const char *todo,
		   const char *cmd)
{
	json_obj_begin(j);
	json_kstr(j, "kind", kind);
	json_kstr(j, "why", why);
	json_kstr(j, "todo", todo && *todo ? todo : NULL);
	json_kstr(j, "cmd", cmd);
	json_obj_end(j);
}

/* The reasons the run's numbers are missing or left out, each with what to
 * do: it failed, its record is damaged, it has no frames, its window is
 * empty (the notes, at the bottom of the page, say the rest). */
static void reasons_data(struct json *j, const struct analysis *a)
{
	static const char damaged[] = "the record is damaged";
	struct strbuf why = STRBUF_INIT, todo = STRBUF_INIT;
	const char *fsrc = a->ini ? runini_get(a->ini, "frame_source") : NULL;
	bool nof = !a->f || !a->f->n;

	json_key(j, "reasons");
	json_arr_begin(j);
	/* analyse's failure is the damage alone when it starts with it */
	if (a->failure && strncmp(a->failure, damaged, sizeof(damaged) - 1) &&
	    !(nof && !strcmp(a->failure, "no frames were recorded"))) {
		sb_addf(&why, "the run failed: %s; it is left out of medians", a->failure);
		if (a->log_path)
			sb_addf(&todo, "the program's output: %s", a->log_path);
		reason(j, "failed", why.buf, todo.buf, NULL);
	}
	if (a->rec && a->rec->ndamage) {
		sb_reset(&why);
		sb_addf(&why, "%s: %llu bytes in %zu place%s were lost; the frames across them are "
			      "left out", damaged, (unsigned long long)a->rec->damaged_bytes,
			a->rec->ndamage, a->rec->ndamage == 1 ? "" : "s");
		reason(j, "damaged", why.buf,
		       "record the run again for whole numbers (the notes say where the damage is)",
		       NULL);
	}
	if (nof) {
		const char *try = a->frames_note ? strstr(a->frames_note, "Try ") : NULL;

		sb_reset(&why);
		sb_reset(&todo);
		sb_adds(&why, "no frames: nothing to plot or count");
		if (a->rec && a->rec->ndamage)
			sb_adds(&why, " (none could be read: the damage above)");
		else if (fsrc && !strcmp(fsrc, "none"))
			sb_adds(&why, " (recorded with --frames none)");
		else if (a->frames_note && !try)
			sb_addf(&why, " (%s)", a->frames_note);
		else if (!a->rec)
			sb_adds(&why, " in the frame log");
		if (a->rec && a->rec->ndamage)
			;	/* the damage's line says what to do */
		else if (try)
			sb_addf(&todo, "t%s", try + 1);
		else if (fsrc && !strcmp(fsrc, "none"))
			sb_adds(&todo, "record it again without --frames none");
		else if (a->rec)
			sb_adds(&todo, "record it with --frames hud:PATH (a HUD's or the program's "
				       "frame log) or the marker API (stallscope.h)");
		reason(j, "no_frames", why.buf, todo.buf, NULL);
	}
	sb_reset(&why);
	sb_reset(&todo);
	if (window_empty(a, &why, &todo)) {
		sb_adds(&why, ", so the window is empty and its numbers are -");
		reason(j, "window", why.buf, "a page of the whole run", todo.buf);
	}
	json_arr_end(j);
	sb_release(&why);
	sb_release(&todo);
}

/* The warm-up's metrics: metrics_compute with the warm-up as its window
 * (the first frame's start to warmup_s later; the same frames as
 * stalls_warm's), its cause columns from its stalls (cause_cols' warm);
 * "warm_none" says why there are none. */
static int metrics_warm_data(struct json *j, const struct analysis *a, const double *cols)
{
	struct metrics_opts o = a->mo;
	struct metrics *mw;
	const char *none = NULL;
	int r;

	if (!a->f || !a->f->n)
		none = "the run has no frames";
	else if (!(a->mo.warmup_s > 0))
		none = "no warm-up (--warmup 0)";
	else if (isnan(a->m.v[M_STALLS_WARM]))
		none = "no frames in the warm-up";
	json_kstr(j, "warm_none", none);
	json_key(j, "metrics_warm");
	if (none) {
		json_null(j);
		return 0;
	}
	mw = malloc(sizeof(*mw));
	if (!mw)
		return -ENOMEM;
	o.warmup_s = 0;
	o.from_s = NAN;
	o.to_s = a->mo.warmup_s;
	r = metrics_compute(a->f, &o, a->segs, a->nsegs,
			    a->play_known ? NULL : "the reload rule could not say what is play", mw);
	if (r < 0) {
		free(mw);
		return r;
	}
	for (int k = 0; k < CAUSE_COL_N; k++)
		mw->v[M_STALL_DISK_S + k] = cols ? cols[k] : NAN;
	metrics_note(mw, "stall_*_play_s: the page splits the warm-up's stalls by cause, not "
			 "its play's%s", cols ? "" : "; stall_*_s: no samples to split them");
	json_arr_begin(j);
	for (int m = 0; m < M_COUNT; m++)
		json_numf(j, mw->v[m], metric_descs[m].decimals + 1);
	json_arr_end(j);
	json_key(j, "notes_warm");
	json_arr_begin(j);
	for (size_t k = 0; k < mw->nnotes; k++)
		json_str(j, mw->notes[k]);
	json_arr_end(j);
	free(mw);
	return 0;
}

/*
 * The stalls' exact intervals ("iv"), made while each stall's samples and
 * intervals are at hand (stall_list_open: by windows, the record's
 * intervals are not kept) and written to a temporary file, not memory: a
 * day's thousands of stalls hold up to HTML_INTERVALS each. The page copies
 * each stall's from there as it is written.
 */
struct iv_entry {
	size_t frame;
	off_t off;
	size_t len;
};

struct iv_spill {
	FILE *f;		/* unlinked temporary file; NULL: none yet */
	const struct rec *rec;	/* the analysis's, for the strings */
	bool exact;		/* the record splits by exact time */
	struct iv_entry *e;	/* by frame once sorted */
	size_t n, cap;
};

/* An unlinked temporary file (out/spill.h). NULL, errno set. */
static FILE *spill_open(void)
{
	int fd = spill_fd(NULL);
	FILE *f;

	if (fd < 0) {
		errno = -fd;
		return NULL;
	}
	f = fdopen(fd, "w+");
	if (!f)
		close(fd);
	return f;
}

/* stall_list's stall_each: S's intervals into the spill. */
static int spill_stall(void *ctx, const struct causes *c, const struct rec *r,
		       const struct stall_item *s)
{
	struct iv_spill *sp = ctx;
	struct json sj;
	off_t off;

	(void)r;	/* C's record; the strings are the analysis's */
	if (!sp->exact || !s->niv_all)
		return 0;
	if (!sp->f && !(sp->f = spill_open()))
		return -errno;
	if (ARRAY_GROW(sp->e, sp->cap, sp->n + 1) < 0)
		return -ENOMEM;
	off = ftello(sp->f);
	json_init(&sj, sp->f, false);
	intervals_data(&sj, c, sp->rec, s);
	if (ferror(sp->f))
		return -EIO;
	sp->e[sp->n++] = (struct iv_entry){ .frame = s->frame, .off = off,
					     .len = (size_t)(ftello(sp->f) - off) };
	return 0;
}

static int cmp_entry(const void *x, const void *y)
{
	const struct iv_entry *a = x, *b = y;

	return a->frame < b->frame ? -1 : a->frame > b->frame;
}

/* Key "iv" on J: S's intervals copied from the spill (none: nothing). */
static int spill_put(struct json *j, const struct iv_spill *sp, const struct stall_item *s)
{
	struct iv_entry key = { .frame = s->frame };
	const struct iv_entry *e = sp->n ? bsearch(&key, sp->e, sp->n, sizeof(*e), cmp_entry)
					 : NULL;
	char buf[8192];

	if (!e)
		return 0;
	json_key(j, "iv");
	json_value_begin(j);
	for (size_t done = 0; done < e->len;) {
		size_t want = e->len - done < sizeof(buf) ? e->len - done : sizeof(buf);
		ssize_t got = pread(fileno(sp->f), buf, want, e->off + (off_t)done);

		if (got <= 0)
			return got < 0 ? -errno : -EIO;
		fwrite(buf, 1, (size_t)got, j->f);
		done += (size_t)got;
	}
	return 0;
}

static int stall_data(struct json *j, const struct iv_spill *sp, const struct rec *rec,
		      const struct stall_item *s, bool warm)
{
	int r = 0;
	struct strbuf sb = STRBUF_INIT;
	const char *sub = stall_sub_short(s->v.sub);

	json_obj_begin(j);
	json_kuint(j, "frame", s->frame);
	json_knumf(j, "t_s", s->t_s, 6);
	json_knumf(j, "ms", s->ms, 3);
	json_kstr(j, "cause", cause_name(s->v.cause));
	json_kstr(j, "sub", sub);
	json_knumf(j, "share", s->v.share, 4);
	json_kstr(j, "second", s->v.second >= 0 ? cause_name((enum cause)s->v.second) : NULL);
	json_knumf(j, "second_share", s->v.second_share, 4);
	json_kbool(j, "play", s->play);
	json_kbool(j, "warm", warm);
	evidence_data(j, s);
	json_key(j, "intervals");
	json_arr_begin(j);
	for (size_t k = 0; k < s->niv; k++) {
		sb_reset(&sb);
		stall_interval_text(&sb, rec, &s->iv[k]);
		json_str(j, sb.buf);
	}
	json_arr_end(j);
	json_kuint(j, "intervals_all", s->niv_all);
	if (s->niv_all)
		r = spill_put(j, sp, s);
	sb_reset(&sb);
	stall_api_text(&sb, s);
	json_kstr(j, "api", sb.len ? sb.buf : NULL);
	json_obj_end(j);
	sb_release(&sb);
	return r;
}

/* Stall seconds by cause column: the window's (report's stall_*_s) and
 * the warm-up's (its stalls' splits summed, as causes_columns sums the
 * window's); null where they are unknown (no samples, no warm-up frames). */
static bool cause_cols_data(struct json *j, const struct analysis *a, const struct cause_split *warm,
			    double *ret_warm)
{
	const struct cause_split sum = *warm;
	bool known = a->rec && rec_samples_in_file(a->rec) && a->f &&
		     !isnan(a->m.v[M_STALLS_WARM]);

	json_key(j, "cause_cols");
	json_obj_begin(j);
	json_key(j, "names");
	json_arr_begin(j);
	for (int k = 0; k < CAUSE_COL_N; k++)
		json_str(j, cause_col_name((enum cause_col)k));
	json_arr_end(j);
	json_key(j, "window");
	json_arr_begin(j);
	for (int k = 0; k < CAUSE_COL_N; k++)
		json_numf(j, a->m.v[M_STALL_DISK_S + k], 3);
	json_arr_end(j);
	json_key(j, "warm");
	if (known) {
		json_arr_begin(j);
		for (int k = 0; k < CAUSE_COL_N; k++) {
			ret_warm[k] = cause_split_col(&sum, (enum cause_col)k);
			json_numf(j, ret_warm[k], 3);
		}
		json_arr_end(j);
	} else {
		json_null(j);
	}
	json_obj_end(j);
	return known;
}

/* A run's stalls, built before its data is written (their splits give the
 * window's cause columns, by windows), and the warm-up's splits summed. */
struct run_stalls {
	struct stall_list l;
	struct iv_spill sp;
	struct cause_split warm;
};

static void run_stalls_release(struct run_stalls *rs)
{
	if (rs->sp.f)
		fclose(rs->sp.f);
	free(rs->sp.e);
	stall_list_close(&rs->l);
}

/* Whether A's record was read by windows (run/analyse.h's o->windows): its
 * samples are in the file, not in memory, and the analysis computed no
 * cause columns. */
static bool by_windows(const struct analysis *a)
{
	return a->rec && a->rec->nsamples_read && !a->rec->nsamples;
}

/* The load's and the warm-up's spans, by windows: their seconds waiting on
 * disk, as causes_columns gives them from the whole record. */
enum { SPAN_LOAD, SPAN_WARM, SPAN_SEG };

struct disk_spans {
	struct rec_window *win;	/* the load, the segments, the warm-up */
	int *kind;		/* by window: SPAN_* */
	struct cause_split *split;	/* by window */
	size_t n;
};

static void disk_spans_release(struct disk_spans *d)
{
	free(d->win);
	free(d->kind);
	free(d->split);
}

/* Span W's split, its samples and intervals in R (its group's), C
 * classifying them (stall_spans' fn). */
static int disk_span(void *ctx, const struct causes *c, const struct rec *r, size_t w)
{
	struct disk_spans *d = ctx;
	uint64_t a = d->win[w].a_ns, b = d->win[w].b_ns;

	/* the load runs from the record's first sample (its group's first:
	 * its window starts at 0, before any other) */
	if (d->kind[w] == SPAN_LOAD)
		a = r->nsamples ? r->t_ns[0] : b;
	if (b > a)
		causes_split(c, a, b, &d->split[w]);
	return 0;
}

static uint64_t span_ns(uint64_t t0_ns, double t_s)
{
	double v = (double)t0_ns + t_s * 1e9;

	return v <= 0 ? 0 : (uint64_t)v;
}

/* The spans of load_disk_s and warm_disk_s of A, read by windows with the
 * stalls (stall_list_open's SPANS: the memory of the longest of them, not
 * of the record). 0 or -ENOMEM. */
static int disk_spans_make(const struct analysis *a, struct disk_spans *d)
{
	const struct frames *f = a->f;
	size_t n = 2 + a->nsegs, k = 0;
	double end = a->m.origin_s + a->mo.warmup_s;

	d->win = calloc(n, sizeof(*d->win));
	d->kind = calloc(n, sizeof(*d->kind));
	d->split = calloc(n, sizeof(*d->split));
	if (!d->win || !d->kind || !d->split)
		return -ENOMEM;
	if (end > frames_t(f, f->n - 1))
		end = frames_t(f, f->n - 1);
	d->win[k] = (struct rec_window){ 0, span_ns(a->t0_ns, a->m.origin_s) };
	d->kind[k++] = SPAN_LOAD;
	for (size_t i = 0; i < a->nsegs; i++)
		if (a->segs[i].end_s > a->segs[i].start_s) {
			d->win[k] = (struct rec_window){ span_ns(a->t0_ns, a->segs[i].start_s),
							 span_ns(a->t0_ns, a->segs[i].end_s) };
			d->kind[k++] = SPAN_SEG;
		}
	d->win[k] = (struct rec_window){ span_ns(a->t0_ns, a->m.origin_s), span_ns(a->t0_ns, end) };
	d->kind[k++] = SPAN_WARM;
	d->n = k;
	return 0;
}

/* load_disk_s and warm_disk_s of A from the spans' splits D. */
static void disk_cols(struct analysis *a, const struct disk_spans *d)
{
	struct cause_split load = { 0 }, warm = { 0 };

	/* as causes_columns adds them: the load, then the segments */
	for (size_t i = 0; i < d->n; i++)
		if (d->kind[i] == SPAN_LOAD)
			for (int s = 0; s < SUB_N; s++)
				load.sub_s[s] += d->split[i].sub_s[s];
	for (size_t i = 0; i < d->n; i++) {
		struct cause_split *to = d->kind[i] == SPAN_WARM ? &warm : &load;

		if (d->kind[i] != SPAN_LOAD)
			for (int s = 0; s < SUB_N; s++)
				to->sub_s[s] += d->split[i].sub_s[s];
	}
	a->m.v[M_LOAD_DISK_S] = cause_split_cause(&load, CAUSE_DISK) +
				cause_split_cause(&load, CAUSE_IO);
	a->m.v[M_WARM_DISK_S] = cause_split_cause(&warm, CAUSE_DISK) +
				cause_split_cause(&warm, CAUSE_IO);
}

/* The stalls of A into RS; by windows, the cause columns the analysis did
 * not compute: the window's (and play's) from the stalls' splits, summed as
 * causes_columns sums them, the load's and the warm-up's disk seconds
 * (disk_cols, their spans read with the stalls). 0, or a negative errno
 * with the message in EMSG. */
static int stalls_build(struct analysis *a, struct run_stalls *rs, struct strbuf *emsg)
{
	struct stall_each each = { .fn = spill_stall, .ctx = &rs->sp };
	struct cause_split win = { 0 }, play = { 0 };
	bool windows = by_windows(a);
	struct disk_spans d = { 0 };
	struct stall_spans spans = { .fn = disk_span, .ctx = &d };
	struct stall_item s;
	int r = 0;

	memset(rs, 0, sizeof(*rs));
	rs->l.fd = -1;
	rs->sp.rec = a->rec;
	if (!a->rec || !a->f)
		return 0;
	rs->sp.exact = causes_rec_exact(a->rec);
	if (windows && a->f->n) {
		r = disk_spans_make(a, &d);
		if (r < 0)
			r = sb_error(emsg, r, "'%s'", a->source);
		spans.win = d.win;
		spans.nwin = d.n;
	}
	r = r ? r : stall_list_open(a, &a->mo, &each, &spans, &rs->l, emsg);
	if (!r && rs->sp.f && fflush(rs->sp.f) != 0)
		r = -errno;
	/* the splits summed in the lists' order, as they were in memory */
	for (size_t k = 0; !r && k < rs->l.nwin + rs->l.nwarm; k++) {
		if ((r = stall_list_get(&rs->l, k, &s)) < 0)
			break;
		for (int i = 0; i < SUB_N; i++) {
			if (k >= rs->l.nwin) {
				rs->warm.sub_s[i] += s.split.sub_s[i];
				continue;
			}
			win.sub_s[i] += s.split.sub_s[i];
			if (s.play)
				play.sub_s[i] += s.split.sub_s[i];
		}
	}
	if (r < 0)
		goto out;
	if (rs->sp.n)
		qsort(rs->sp.e, rs->sp.n, sizeof(*rs->sp.e), cmp_entry);
	if (!windows || !a->f->n)
		goto out;
	for (int k = 0; k < CAUSE_COL_N; k++) {
		a->m.v[M_STALL_DISK_S + k] = a->m.win_n ? cause_split_col(&win, (enum cause_col)k)
							: NAN;
		a->m.v[M_STALL_DISK_PLAY_S + k] =
			a->m.win_n && a->play_known ? cause_split_col(&play, (enum cause_col)k) : NAN;
	}
	disk_cols(a, &d);
out:
	disk_spans_release(&d);
	return r;
}

/* The stalls (the warm-up's, then the window's), their stacks, and the
 * stall seconds by cause of both. */
static int stalls_data(struct json *j, const struct analysis *a, const struct run_stalls *rs)
{
	size_t n = rs->l.nwin + rs->l.nwarm;
	struct stall_item s;
	int r = 0;

	json_key(j, "stalls");
	json_arr_begin(j);
	for (size_t k = 0; !r && k < n; k++) {
		r = stall_list_get(&rs->l, html_stall_at(&rs->l, k), &s);
		r = r ? r : stall_data(j, &rs->sp, a->rec, &s, k < rs->l.nwarm);
	}
	json_arr_end(j);
	json_kstr(j, "split", !a->rec ? NULL : causes_rec_exact(a->rec) ? "exact" : "samples");
	if (!r) {
		double cols[CAUSE_COL_N];
		bool known = cause_cols_data(j, a, &rs->warm, cols);

		r = metrics_warm_data(j, a, known ? cols : NULL);
	}
	if (!r)
		r = html_stacks_data(j, a->rec, &rs->l);
	return r;
}

static void ini_data(struct json *j, const struct analysis *a)
{
	json_key(j, "ini");
	json_arr_begin(j);
	for (size_t k = 0; a->ini && k < a->ini->n; k++) {
		json_arr_begin(j);
		json_str(j, a->ini->kv[k].key);
		json_str(j, a->ini->kv[k].value);
		json_arr_end(j);
	}
	json_arr_end(j);
}

/* The probe's late wake-ups (record --probe): when, which CPU, how late. */
static void late_data(struct json *j, const struct analysis *a)
{
	json_key(j, "late_wakeups");
	json_arr_begin(j);
	for (size_t k = 0; a->rec && k < a->rec->nevents; k++) {
		const struct rec_event *e = &a->rec->events[k];
		int cpu;
		long long us;

		if (strcmp(e->kind, "late_wakeup") || sscanf(e->text, "cpu=%d late_us=%lld", &cpu, &us) != 2)
			continue;
		json_obj_begin(j);
		json_knumf(j, "t_s", ((double)e->t_ns - (double)a->t0_ns) / 1e9, 3);
		json_kint(j, "cpu", cpu);
		json_knumf(j, "late_ms", (double)us / 1e3, 3);
		json_obj_end(j);
	}
	json_arr_end(j);
}

static int run_data(struct json *j, struct analysis *a, struct strbuf *emsg)
{
	struct run_stalls rs;
	int r = stalls_build(a, &rs, emsg);

	if (r < 0) {
		run_stalls_release(&rs);
		return r;
	}
	json_obj_begin(j);
	json_kstr(j, "source", a->source);
	json_kstr(j, "format", a->format);
	json_kstr(j, "program", a->program);
	json_kstr(j, "variant", a->variant);
	json_kbool(j, "has_samples", a->rec && rec_samples_in_file(a->rec) > 0);
	json_kuint(j, "samples", a->rec ? rec_samples_in_file(a->rec) : 0);
	json_knum(j, "stall_ms", a->mo.stall_ms);
	json_knum(j, "warmup_s", a->mo.warmup_s);
	json_kstr(j, "frames_note", a->frames_note);
	json_kstr(j, "failure", a->failure);
	if (a->interfered < 0)
		json_knull(j, "interfered");
	else
		json_kint(j, "interfered", a->interfered);
	json_kstr(j, "interference", a->interference);
	json_knumf(j, "frames_s", a->f && a->f->n ? frames_t(a->f, a->f->n - 1) - a->m.origin_s : NAN, 3);
	reasons_data(j, a);
	if ((r = frames_data(j, a->f)) >= 0) {
		segments_data(j, a);
		metrics_data(j, a);
		r = stalls_data(j, a, &rs);
	}
	run_stalls_release(&rs);
	if (r < 0)
		return r;
	ini_data(j, a);
	late_data(j, a);
	if (a->rec) {
		report_threads_json(j, a);
		report_recorder_json(j, a);
	}
	json_key(j, "notes");
	json_arr_begin(j);
	for (size_t k = 0; k < a->m.nnotes; k++)
		json_str(j, a->m.notes[k]);
	json_arr_end(j);
	json_obj_end(j);
	return 0;
}

/* The default page: INPUT/report.html for one run directory. */
static void default_output(int n, char *const *inputs, struct strbuf *out)
{
	if (n == 1 && rundir_holds_run(inputs[0]))
		(void)sb_add_path(out, inputs[0], "report.html");
	else
		(void)sb_adds(out, "stallscope-report.html");
}

/* The page's start, up to its runs, on a new stream into F: *RET_DATA
 * (html_data_open's), J on it. 0 or a negative errno. */
static int page_begin(FILE *f, const char *title, FILE **ret_data, struct json *j)
{
	FILE *d;

	if (html_write_head(f, title) < 0)
		return -EIO;
	if (!(d = html_data_open(f)))
		return -ENOMEM;
	json_init(j, d, false);
	json_obj_begin(j);
	json_kint(j, "version", 1);
	json_kstr(j, "kind", "runs");
	json_kstr(j, "generator", "stallscope " STALLSCOPE_VERSION);
	json_key(j, "runs");
	json_arr_begin(j);
	*ret_data = d;
	return 0;
}

/*
 * The page is written as it is made (issue 31: constant memory): its head
 * once the first run is analysed, each run's data in turn (the frames
 * streamed into the gzip, the stalls read by windows), then its tail; into
 * a temporary file renamed over the page at the end (outfile.h), never half
 * a page. STALLSCOPE_WHOLE_RECORD=1 analyses with the whole record in
 * memory, as before, for the tests that compare the two pages.
 */
int html_page(const struct analyse_opts *ao, char *const *inputs, int n, const char *output)
{
	struct strbuf emsg = STRBUF_INIT, out = STRBUF_INIT, said = STRBUF_INIT;
	struct analyse_opts o = *ao;
	struct sf_out of;
	FILE *f = NULL, *data = NULL;
	bool ok = true;
	struct json j;
	int status = 0, nruns = 0;

	o.keep = true;
	o.windows = !getenv("STALLSCOPE_WHOLE_RECORD");
	if (output)
		(void)sb_adds(&out, output);
	else
		default_output(n, inputs, &out);
	for (int i = 0; i < n; i++) {
		struct analysis a;
		int r;

		if (cli_failed(analyse_input(inputs[i], &o, &a, &emsg), &emsg)) {
			status = 1;
			continue;
		}
		if (!f) {
			/* through a temporary file and a rename */
			f = outfile_open(out.buf, &of);
			r = f ? page_begin(f, n == 1 ? inputs[0] : "stallscope", &data, &j) : 0;
			if (!f || r < 0) {
				if (r < 0)
					cli_error_errno(r, "'%s'", cli_shown(out.buf));
				analysis_release(&a);
				ok = false;
				status = 1;
				break;
			}
		}
		sb_reset(&emsg);
		r = run_data(&j, &a, &emsg);
		if (r >= 0) {
			struct strbuf why = STRBUF_INIT, todo = STRBUF_INIT;

			/* said on the terminal too: record --html's user sees
			 * no page before this line */
			if (window_empty(&a, &why, &todo))
				sb_addf(&said, "%s: '%s': %s, so the page's window is empty; a page "
					"of the whole run: %s\n", cli_prog, cli_shown(inputs[i]),
					why.buf, cli_shown(todo.buf));
			sb_release(&why);
			sb_release(&todo);
		}
		analysis_release(&a);
		if (r < 0) {
			/* the run's data is half written: no page */
			if (emsg.len)
				cli_error("%s", emsg.buf);
			else
				cli_error_errno(r, "'%s'", cli_shown(inputs[i]));
			ok = false;
			status = 1;
			break;
		}
		nruns++;
	}
	if (data) {
		json_arr_end(&j);
		json_obj_end(&j);
		json_end(&j);
		if (fclose(data) != 0)
			ok = false;
		if (ok && html_write_tail(f) < 0)
			ok = false;
	}
	if (!nruns && ok) {
		cli_error("no input could be read: no page written");
		status = 1;
		ok = false;
	}
	if (f && (outfile_close(out.buf, f, &of, ok) < 0 || !ok)) {
		status = 1;
	} else if (f) {
		fprintf(stderr, "%s: wrote '%s' (%d run%s)\n", cli_prog, cli_shown(out.buf), nruns,
			nruns == 1 ? "" : "s");
		fputs(said.len ? said.buf : "", stderr);
	}
	sb_release(&said);
	sb_release(&out);
	sb_release(&emsg);
	return status;
}

int cmd_html(int argc, char **argv)
{
	struct report_options o = {
		.a = { .m = METRICS_OPTS_INIT, .fmt = FRAMELOG_AUTO, .keep = true },
	};
	struct report_tables rt;
	struct reload_rules *rules = NULL;
	struct strbuf emsg = STRBUF_INIT;
	const char *output = NULL, *history = NULL;
	const struct opt opts[] = {
		OPT_STRING('o', "output", &output, "FILE", "where the page goes"),
		OPT_STRING(0, "db", &o.db, "PATH",
			   "a comparison from the results database instead: each side\n"
			   "against the first, as compare computes it, with every\n"
			   "run's value, and the sides' frame-time percentile curves"),
		OPT_STRING(0, "history", &history, "NAME[:VARIANT]",
			   "a benchmark over its builds instead (html --history --help)"),
		OPT_GROUP("the analysis, as report's (stallscope-report(1)):"),
		OPT_CONCAT(rt.analysis),
		OPT_END(),
	};
	int first, status;

	if (html_history_wanted(argc, argv))
		return html_history(argc, argv);
	report_tables_init(&rt, &o);
	first = opts_parse(argc, argv, opts, &html_help, 0);
	if (first >= 0 && report_options_check(&o) < 0)
		first = OPTS_ERROR;
	if (first >= argc) {
		cli_usage_error(o.db ? "--db: expected the sides, NAME:VARIANT NAME:VARIANT"
				     : "expected a run directory or a frame log");
		first = OPTS_ERROR;
	}
	if (first < 0) {
		report_options_release(&o);
		return opts_exit(first);
	}
	(void)history;	/* taken by html_history above */
	if (cli_failed(analyse_load_rules(o.rules, &rules, &o.a.rules_name, &emsg), &emsg)) {
		report_options_release(&o);
		return 1;
	}
	o.a.rules = rules;
	if (o.db)
		status = html_compare(o.db, &o.a, argv + first, argc - first, output);
	else
		status = html_page(&o.a, argv + first, argc - first, output);
	report_options_release(&o);
	reload_rules_free(rules);
	return status;
}
