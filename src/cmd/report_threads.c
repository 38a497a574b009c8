// SPDX-License-Identifier: MIT
/*
 * report_threads.c: `report --threads` (see report_threads.h). Reads the
 * run's record again (report's analysis keeps only its frames), finds the
 * window's bounds on the record's clock from the window's frame indices, and
 * hands the thread snapshots to threadcpu_compute. Frame i of the analysis
 * is the time from present i to present i+1 of the record, sorted.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
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

/* Computes the threads of A into *RES; returns -1 only after an error was
 * reported (a record that cannot be read), else 0 with RES->n < 0 and
 * RES->why for what cannot be computed. */
static int compute(const struct analysis *a, struct tresult *res)
{
	struct strbuf err = STRBUF_INIT;
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
	/* analyse noted a record_tmp; read the file as opened and checked */
	r = analyse_rec_windows(a, NULL, &rec, &err);
	if (r < 0) {
		cli_error("%s", err.buf);
		sb_release(&err);
		return -1;
	}
	last = a->m.win_first + a->m.win_n;
	t = malloc((rec->nframes ? rec->nframes : 1) * sizeof(*t));
	if (!t) {
		r = -ENOMEM;
	} else if (last >= rec->nframes) {
		snprintf(res->why, sizeof(res->why), "the record's frames do not match the window");
	} else {
		for (size_t i = 0; i < rec->nframes; i++)
			t[i] = rec->frames[i].t_ns;
		qsort(t, rec->nframes, sizeof(*t), cmp_u64);
		res->frames = a->m.win_n;
		res->seconds = (double)(t[last] - t[a->m.win_first]) / 1e9;
		r = threadcpu_compute(rec, t[a->m.win_first], t[last], &res->t);
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
	}
	free(t);
	rec_free(rec);
	sb_release(&err);
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
