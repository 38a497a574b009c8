// SPDX-License-Identifier: MIT
/*
 * report_threads.c: `report --threads` (see report_threads.h). Reads the
 * run's record again (report's analysis keeps only its frames), finds the
 * window's bounds on the record's clock from the window's frame indices, and
 * sums the thread snapshots over it (core/threadcpu.h). Frame i of the
 * analysis is the time from present i to present i+1 of the record, sorted.
 *
 * In constant memory (issue 31): the record is read twice, streamed, and
 * none of its samples, frames or snapshots is kept: first its frames, for
 * the window's bounds (the presents are in time order in a record; where
 * they are not, a third read keeps their stamps, 8 bytes a frame, to sort
 * them), then its snapshots into threadcpu_stream. The first read is left
 * out where the analysis kept the bounds (analysis.win_ns: a record without
 * damage). STALLSCOPE_WHOLE_RECORD=1 reads the whole record as before, for
 * the tests that compare the two.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "core/grow.h"
#include "cmd/report_threads.h"
#include "core/threadcpu.h"
#include "out/table.h"
#include "rec/rec.h"
#include "run/analyse.h"
#include "run/rundir.h"

struct tresult {
	struct threadcpu *t;
	int n;			/* threads, or < 0: see why */
	size_t frames;
	double seconds;
	char why[160];
};

static int cmp_u64(const void *pa, const void *pb)
{
	uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;

	return a < b ? -1 : a > b;
}

/* The first read: the window's bounds, the stamps of the sorted presents
 * I0 and I1, as the frames pass. */
struct bounds {
	size_t i0, i1, n;
	uint64_t t0, t1, prev;
	bool unsorted;
	uint64_t *all;		/* the third read: every stamp */
	size_t cap;
};

static int bounds_frame(void *ctx, const struct rec_frame *f)
{
	struct bounds *b = ctx;

	if (b->n && f->t_ns < b->prev)
		b->unsorted = true;
	if (b->n == b->i0)
		b->t0 = f->t_ns;
	if (b->n == b->i1)
		b->t1 = f->t_ns;
	b->prev = f->t_ns;
	b->n++;
	return 0;
}

static int bounds_keep(void *ctx, const struct rec_frame *f)
{
	struct bounds *b = ctx;

	if (ARRAY_GROW(b->all, b->cap, b->n + 1) < 0)
		return -ENOMEM;
	b->all[b->n++] = f->t_ns;
	return 0;
}

static int no_window(void *ctx, struct rec *r, size_t w0, size_t w1)
{
	(void)ctx, (void)r, (void)w0, (void)w1;
	return 0;
}

static int feed_threads(void *ctx, const struct rec *r, const struct rec_threads *ts)
{
	(void)r;
	return threadcpu_stream_feed(ctx, ts);
}

/* Reads the record of A with ST (NULL: whole) into *REC (rec_free). 0, or
 * -1 after the error was reported. */
static int read_rec(const struct analysis *a, const struct rec_stream *st, struct rec **rec)
{
	struct strbuf err = STRBUF_INIT;
	int r;

	*rec = NULL;
	/* the file as the analysis opened and checked it (run/rundir.h) */
	r = analyse_rec_windows(a, st, rec, &err);
	if (r < 0)
		cli_error("%s", err.len ? err.buf : strerror(-r));
	sb_release(&err);
	return r < 0 ? -1 : 0;
}

/* The threads of RES from R's sums (a negative errno of threadcpu's, or
 * the count): the reasons for none in RES->why, names copied. */
static int take(int r, struct tresult *res)
{
	if (r >= 0) {
		res->n = r;
		/* the names point into the record: keep copies */
		for (int i = 0; i < r; i++)
			res->t[i].name = strdup(res->t[i].name);
	} else if (r == -ENODATA) {
		snprintf(res->why, sizeof(res->why),
			 "fewer than two thread snapshots cover the window");
	} else if (r == -EINVAL) {
		snprintf(res->why, sizeof(res->why), "the window is empty");
	}
	return r;
}

/* compute's streamed reads (see the top). */
static int compute_streamed(const struct analysis *a, size_t last, struct tresult *res)
{
	struct bounds b = { .i0 = a->m.win_first, .i1 = last };
	struct rec_stream st = { .skip_threads = true, .skip_frames = true,
				 .on_window = no_window, .on_frame = bounds_frame, .ctx = &b };
	struct threadcpu_stream *ts = NULL;
	struct rec *rec = NULL;
	int r;

	if (a->win_ns_ok) {
		/* the analysis kept them: what this read would find */
		b.t0 = a->win_ns[0];
		b.t1 = a->win_ns[1];
		b.n = a->rec_nframes;
	} else if (read_rec(a, &st, &rec) < 0) {
		return -1;
	}
	rec_free(rec);
	rec = NULL;
	if (b.unsorted && last < b.n) {
		size_t n = b.n;

		b.n = 0;
		st.on_frame = bounds_keep;
		if (read_rec(a, &st, &rec) < 0) {
			free(b.all);
			return -1;
		}
		rec_free(rec);
		if (b.n != n) {	/* the file changed under us */
			free(b.all);
			return cli_error("'%s': the record changed while read", cli_shown(a->source));
		}
		qsort(b.all, b.n, sizeof(*b.all), cmp_u64);
		b.t0 = b.all[b.i0];
		b.t1 = b.all[b.i1];
		free(b.all);
	}
	if (last >= b.n) {
		snprintf(res->why, sizeof(res->why), "the record's frames do not match the window");
		return 0;
	}
	res->frames = a->m.win_n;
	res->seconds = (double)(b.t1 - b.t0) / 1e9;
	r = threadcpu_stream_new(b.t0, b.t1, &ts);
	if (r == 0) {
		st = (struct rec_stream){ .skip_threads = true, .skip_frames = true,
					  .on_window = no_window, .on_threads = feed_threads,
					  .ctx = ts };
		if (read_rec(a, &st, &rec) < 0) {
			threadcpu_stream_free(ts);
			return -1;
		}
		r = threadcpu_stream_end(ts, rec, &res->t);
	}
	r = take(r, res);
	threadcpu_stream_free(ts);
	rec_free(rec);
	if (r == -ENOMEM)
		return cli_error_errno(r, "threads");
	return 0;
}

/* Computes the threads of A into *RES; returns -1 only after an error was
 * reported (a record that cannot be read), else 0 with RES->n < 0 and
 * RES->why for what cannot be computed. */
static int compute(const struct analysis *a, struct tresult *res)
{
	struct rec *rec = NULL;
	uint64_t *t = NULL;
	size_t last;
	int r;

	memset(res, 0, sizeof(*res));
	res->n = -1;
	if (strcmp(a->format, "record") && strcmp(a->format, "run")) {
		snprintf(res->why, sizeof(res->why), "not a run directory: no thread snapshots");
		return 0;
	}
	if (!a->m.win_n) {
		snprintf(res->why, sizeof(res->why), "no frames in the window");
		return 0;
	}
	last = a->m.win_first + a->m.win_n;
	if (!getenv("STALLSCOPE_WHOLE_RECORD"))
		return compute_streamed(a, last, res);
	/* the whole record in memory, as before (tests/e2e/stalls-stream.sh
	 * compares the two) */
	if (read_rec(a, NULL, &rec) < 0)
		return -1;
	t = malloc((rec->nframes ? rec->nframes : 1) * sizeof(*t));
	if (!t) {
		r = -ENOMEM;
	} else if (last >= rec->nframes) {
		snprintf(res->why, sizeof(res->why), "the record's frames do not match the window");
		r = 0;
	} else {
		for (size_t i = 0; i < rec->nframes; i++)
			t[i] = rec->frames[i].t_ns;
		qsort(t, rec->nframes, sizeof(*t), cmp_u64);
		res->frames = a->m.win_n;
		res->seconds = (double)(t[last] - t[a->m.win_first]) / 1e9;
		r = take(threadcpu_compute(rec, t[a->m.win_first], t[last], &res->t), res);
	}
	free(t);
	rec_free(rec);
	if (r == -ENOMEM)
		return cli_error_errno(r, "threads");
	return 0;
}

static void release(struct tresult *res)
{
	for (int i = 0; i < res->n; i++)
		free((char *)res->t[i].name);
	free(res->t);
}

int report_threads_print(const struct analysis *as, size_t n)
{
	static const char *const hdr[] = { "thread", "tid", "ms_per_frame", "busy_pct", "cpu",
					   "cpu_pct" };
	int status = 0;

	for (size_t i = 0; i < n; i++) {
		struct tresult res;
		struct table *tb;

		if (compute(&as[i], &res) < 0) {
			status = -1;
			continue;
		}
		if (res.n < 0) {
			printf("\nthreads of %s: - (%s)\n", cli_shown(as[i].source), res.why);
			continue;
		}
		printf("\nthreads of %s over the window (%zu frames, %.1f s):\n",
		       cli_shown(as[i].source), res.frames, res.seconds);
		tb = table_new(6, hdr);
		for (int k = 0; tb && k < res.n; k++) {
			const struct threadcpu *x = &res.t[k];

			table_add(tb, x->name);
			table_addf(tb, "%" PRIu32, x->tid);
			table_add_num(tb, (double)x->cpu_ns / 1e6 / (double)res.frames, 2);
			table_add_num(tb, x->busy_pct, 1);
			if (x->main_cpu >= 0) {
				table_addf(tb, "cpu%d", (int)x->main_cpu);
				table_add_num(tb, x->main_cpu_pct, 0);
			} else {
				table_add(tb, NULL);
				table_add(tb, NULL);
			}
		}
		if (tb)
			table_print(tb, stdout);
		else
			status = cli_error_errno(-ENOMEM, "table");
		table_free(tb);
		release(&res);
	}
	return status;
}

void report_threads_json(struct json *j, const struct analysis *a)
{
	struct tresult res;

	if (compute(a, &res) < 0) {
		json_knull(j, "threads");
		json_kstr(j, "threads_note", "the record cannot be read");
		return;
	}
	if (res.n < 0) {
		json_knull(j, "threads");
		json_kstr(j, "threads_note", res.why);
		return;
	}
	json_key(j, "threads");
	json_arr_begin(j);
	for (int k = 0; k < res.n; k++) {
		const struct threadcpu *x = &res.t[k];

		json_obj_begin(j);
		json_kstr(j, "name", x->name);
		json_kuint(j, "tid", x->tid);
		json_knum(j, "ms_per_frame", (double)x->cpu_ns / 1e6 / (double)res.frames);
		json_knum(j, "busy_pct", x->busy_pct);
		if (x->main_cpu >= 0)
			json_kint(j, "cpu", x->main_cpu);
		else
			json_knull(j, "cpu");
		json_knum(j, "cpu_pct", x->main_cpu >= 0 ? x->main_cpu_pct : NAN);
		json_obj_end(j);
	}
	json_arr_end(j);
	release(&res);
}

void report_recorder_json(struct json *j, const struct analysis *a)
{
	struct rundir_costs c;

	/* the final run.ini, as analyse read it through the run directory */
	if ((strcmp(a->format, "record") && strcmp(a->format, "run")) || !a->ini) {
		json_knull(j, "recorder");
		return;
	}
	rundir_costs(a->ini, &c);
	json_key(j, "recorder");
	json_obj_begin(j);
	for (size_t k = 0; k < RUNDIR_NCOSTS; k++)
		json_knum(j, rundir_cost_names[k], c.v[k]);
	/* frames per source listened to (run.ini frames_<source>) */
	json_key(j, "frames_by_source");
	json_obj_begin(j);
	for (uint32_t src = 1; src <= REC_SOURCE_MAX; src++)
		if (c.frames_given[src])
			json_knum(j, rec_source_name(src), c.frames[src]);
	json_obj_end(j);
	json_knum(j, "frame_pid", c.frame_pid);
	json_kstr(j, "frame_process", c.frame_process);
	json_obj_end(j);
}
