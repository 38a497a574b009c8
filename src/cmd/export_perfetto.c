// SPDX-License-Identifier: MIT
/*
 * export_perfetto.c: a run on Perfetto's timeline (export_perfetto.h). Every
 * track is a sequence of its own (out/perfetto.h), written in one pass over
 * what it shows, in time order:
 *
 *   <program> (pid)            the process track, parent of:
 *     Frames                   a slice per frame, named by its source, a
 *                              stall named "stall" with its cause
 *     Stalls by cause          a slice per stall, named by its cause
 *     Segments                 warm-up, window, reloads, damaged spans
 *     counters of the process  major faults/s, CPU %
 *   <thread> (tid)             each sampled thread: its states, and the
 *                              stalls' stacks as callstack samples
 *     off-CPU (exact)          exact mode's intervals of that thread
 *     API calls                the frame hook's timed calls of that thread
 *   System                     PSI and the disks' counters
 *   Timer probe                late wake-ups, a track per CPU
 *   Interference (watch)       the watcher's findings
 *
 * Times are the record's CLOCK_MONOTONIC stamps, to the nanosecond; what
 * the analysis gives in seconds (segments) is converted with its t0. This
 * file has the frames, stalls, segments, clocks and the order of it all;
 * export_perfetto_samples.c the threads, counters, probe and watcher;
 * export_perfetto_stacks.c the stacks and the API calls.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/export_perfetto.h"
#include "cmd/export_perfetto_int.h"
#include "cmd/stall_list.h"
#include "core/causes.h"
#include "core/runini.h"

static uint64_t ns_of_s(const struct ex *x, double s)
{
	double t = (double)x->a->t0_ns + s * 1e9;

	return t <= 0 ? 0 : (uint64_t)llround(t);
}

int export_track_open(struct ex *x, struct perfetto_track *t, struct perfetto_seq **ret)
{
	int r;

	if (!t->uuid)
		t->uuid = x->uuid++;
	r = perfetto_seq_open(x->o, x->seq++, t->uuid, x->base_ns, ret);
	if (r < 0)
		return r;
	r = perfetto_track(*ret, t);
	if (r < 0) {
		perfetto_seq_free(*ret);
		*ret = NULL;
		return r;
	}
	x->st->tracks++;
	return 0;
}

int export_track_group(struct ex *x, struct perfetto_track *t)
{
	struct perfetto_seq *s;
	int r = export_track_open(x, t, &s);

	perfetto_seq_free(s);
	return r;
}

/* ------------------------------------------------------------ frames */

static int cmp_frame(const void *pa, const void *pb)
{
	const struct rec_frame *a = pa, *b = pb;

	if (a->t_ns != b->t_ns)
		return a->t_ns < b->t_ns ? -1 : 1;
	return a->source != b->source ? (a->source < b->source ? -1 : 1) : 0;
}

void export_stall_args(struct ex *x, struct perfetto_seq *s, const struct stall_item *it)
{
	const char *sub = stall_sub_short(it->v.sub);

	perfetto_arg_istr(s, "cause", cause_name(it->v.cause));
	if (!isnan(it->v.share))
		perfetto_arg_double(s, "share", round(it->v.share * 1e4) / 1e4);
	if (sub)
		perfetto_arg_istr(s, "sub_cause", sub);
	if (it->v.second >= 0) {
		perfetto_arg_istr(s, "second_cause", cause_name((enum cause)it->v.second));
		perfetto_arg_double(s, "second_share", round(it->v.second_share * 1e4) / 1e4);
	}
	perfetto_arg_double(s, "ms", round(it->ms * 1e3) / 1e3);
	perfetto_arg_istr(s, "part", it->warm ? "warm-up" : "window");
	perfetto_arg_bool(s, "play", it->play);
	perfetto_arg_istr(s, "split", it->exact ? "exact" : "samples");
	sb_reset(&x->sb);
	stall_evidence_text(&x->sb, &it->e, 3);
	perfetto_arg_str(s, "evidence", x->sb.buf);
	for (size_t k = 0; k < it->niv; k++) {
		char key[32];

		snprintf(key, sizeof(key), "interval_%zu", k + 1);
		sb_reset(&x->sb);
		stall_interval_text(&x->sb, x->r, &it->iv[k]);
		perfetto_arg_str(s, key, x->sb.buf);
	}
}

int export_frames_open(struct ex *x, struct perfetto_seq **s)
{
	struct perfetto_track t = {
		.parent = x->proc_uuid, .name = "Frames", .rank = 1,
		.description = "one slice per frame, from a present to the next, named by the "
			       "source of its end (glx, egl, vk, marker, hud); a stall (a frame over "
			       "--stall-ms in the warm-up or the window) is named 'stall' and "
			       "carries its cause, share and evidence, as `stallscope stalls` says",
	};

	return export_track_open(x, &t, s);
}

int export_frame_slice(struct ex *x, struct perfetto_seq *s, const struct stall_item *it,
		       uint64_t a, uint64_t b, uint32_t source)
{
	const char *name = rec_source_name(source);
	int r;

	perfetto_event(s, a, PERFETTO_BEGIN, it ? "stall" : name ? name : "frame");
	if (it)
		export_stall_args(x, s, it);
	r = perfetto_emit(s);
	if (!r) {
		perfetto_event(s, b, PERFETTO_END, NULL);
		r = perfetto_emit(s);
	}
	x->st->frames++;
	return r;
}

static int frames_track(struct ex *x)
{
	struct perfetto_seq *s;
	int r = export_frames_open(x, &s);

	for (size_t k = 0; !r && k < x->nframes; k++)
		r = export_frame_slice(x, s, x->stall_of[k], x->pres[k].t_ns, x->pres[k + 1].t_ns,
				       x->pres[k + 1].source);
	perfetto_seq_free(s);
	return r;
}

int export_stalls_open(struct ex *x, struct perfetto_seq **s)
{
	struct perfetto_track t = {
		.parent = x->proc_uuid, .name = "Stalls by cause", .rank = 2,
		.description = "one slice per stall, named by its cause (docs/CAUSES.md)",
	};

	return export_track_open(x, &t, s);
}

static int stalls_track(struct ex *x)
{
	struct perfetto_seq *s;
	int r = export_stalls_open(x, &s);

	for (size_t k = 0; !r && k < x->nframes; k++) {
		const struct stall_item *it = x->stall_of[k];

		if (it)
			r = export_stall_slice(x, s, it, x->pres[k].t_ns, x->pres[k + 1].t_ns);
	}
	perfetto_seq_free(s);
	return r;
}

int export_stall_slice(struct ex *x, struct perfetto_seq *s, const struct stall_item *it,
		       uint64_t a, uint64_t b)
{
	int r;

	perfetto_event(s, a, PERFETTO_BEGIN, cause_name(it->v.cause));
	if (!isnan(it->v.share))
		perfetto_arg_double(s, "share", round(it->v.share * 1e4) / 1e4);
	perfetto_arg_double(s, "ms", round(it->ms * 1e3) / 1e3);
	r = perfetto_emit(s);
	if (!r) {
		perfetto_event(s, b, PERFETTO_END, NULL);
		r = perfetto_emit(s);
	}
	x->st->stalls++;
	return r;
}

/* ----------------------------------------------------------- segments */

struct seg {
	uint64_t a, b;
	const char *name;
	uint64_t bytes;		/* a damaged span's */
};

static int cmp_seg(const void *pa, const void *pb)
{
	const struct seg *a = pa, *b = pb;

	if (a->a != b->a)
		return a->a < b->a ? -1 : 1;
	return a->b != b->b ? (a->b > b->b ? -1 : 1) : 0;
}

#define SEG_TRACKS 4
#define SEG_DEPTH 16

/* The segments on up to SEG_TRACKS tracks, so that on each they nest (a
 * slice within another) or follow one another, as slices must. */
static int segments_write(struct ex *x, struct seg *sg, size_t n)
{
	struct perfetto_seq *s[SEG_TRACKS] = { 0 };
	uint64_t stack[SEG_TRACKS][SEG_DEPTH];
	size_t depth[SEG_TRACKS] = { 0 }, ntracks = 0;
	int r = 0;

	qsort(sg, n, sizeof(*sg), cmp_seg);
	for (size_t i = 0; !r && i < n; i++) {
		size_t k;

		for (k = 0; k < SEG_TRACKS; k++) {
			/* close what ended; then it fits if nothing is open, or
			 * it ends within the innermost open one */
			while (k < ntracks && depth[k] && stack[k][depth[k] - 1] <= sg[i].a) {
				perfetto_event(s[k], stack[k][--depth[k]], PERFETTO_END, NULL);
				r = r ? r : perfetto_emit(s[k]);
			}
			if (k == ntracks || !depth[k] ||
			    (stack[k][depth[k] - 1] >= sg[i].b && depth[k] < SEG_DEPTH))
				break;
		}
		if (k == SEG_TRACKS) {
			x->st->skipped++;
			continue;
		}
		if (k == ntracks) {
			struct perfetto_track t = {
				.parent = x->proc_uuid, .name = k ? "Segments (overlapping)" : "Segments",
				.rank = 3 + (int)k,
				.description = "the analysis's warm-up and window, the reload segments "
					       "it leaves out of play, and the spans a damaged record "
					       "lost (docs/METRICS.md)",
			};

			r = export_track_open(x, &t, &s[k]);
			if (r)
				break;
			ntracks++;
		}
		perfetto_event(s[k], sg[i].a, PERFETTO_BEGIN, sg[i].name);
		if (sg[i].bytes)
			perfetto_arg_int(s[k], "bytes_lost", (int64_t)sg[i].bytes);
		r = perfetto_emit(s[k]);
		stack[k][depth[k]++] = sg[i].b;
	}
	for (size_t k = 0; k < ntracks; k++) {
		while (!r && depth[k]) {
			perfetto_event(s[k], stack[k][--depth[k]], PERFETTO_END, NULL);
			r = perfetto_emit(s[k]);
		}
		perfetto_seq_free(s[k]);
	}
	return r;
}

/* The latest stamp the record holds. */
static uint64_t last_stamp(const struct ex *x)
{
	const struct rec *r = x->r;
	uint64_t t = x->base_ns;

	if (r->nsamples && r->t_ns[r->nsamples - 1] > t)
		t = r->t_ns[r->nsamples - 1];
	if (x->npres && x->pres[x->npres - 1].t_ns > t)
		t = x->pres[x->npres - 1].t_ns;
	for (size_t e = 0; e < r->nevents; e++)
		if (r->events[e].t_ns > t)
			t = r->events[e].t_ns;
	if (r->nintervals && r->intervals[r->nintervals - 1].in_ns > t)
		t = r->intervals[r->nintervals - 1].in_ns;
	return t;
}

/* The presents' stamps the segments need (sorted: the first, the last, the
 * window's ends) and the record's last stamp, from the presents in memory. */
static void pres_times(struct ex *x)
{
	const struct analysis *a = x->a;

	x->pt.first = x->npres ? x->pres[0].t_ns : 0;
	x->pt.last = x->npres ? x->pres[x->npres - 1].t_ns : 0;
	if (x->nframes && a->m.win_n && a->m.win_first + a->m.win_n <= x->nframes) {
		x->pt.win_a = x->pres[a->m.win_first].t_ns;
		x->pt.win_b = x->pres[a->m.win_first + a->m.win_n].t_ns;
	}
	x->pt.last_stamp = last_stamp(x);
}

int export_segments(struct ex *x)
{
	const struct analysis *a = x->a;
	const struct rec *r = x->r;
	size_t n = 0, cap = 3 + a->nsegs + r->ndamage;
	uint64_t end = x->pt.last;
	struct seg *sg = calloc(cap, sizeof(*sg));
	uint64_t run_end = 0;
	double t0 = NAN, dur = NAN;
	int ret;

	if (!sg)
		return -ENOMEM;
	if (x->nframes && a->mo.warmup_s > 0) {
		uint64_t wa = x->pt.first, wb = ns_of_s(x, a->m.origin_s + a->mo.warmup_s);

		sg[n++] = (struct seg){ wa, wb < end ? wb : end, "warm-up", 0 };
	}
	if (x->nframes && a->m.win_n && a->m.win_first + a->m.win_n <= x->nframes)
		sg[n++] = (struct seg){ x->pt.win_a, x->pt.win_b, "window", 0 };
	for (size_t k = 0; k < a->nsegs; k++)
		sg[n++] = (struct seg){ ns_of_s(x, a->segs[k].start_s), ns_of_s(x, a->segs[k].end_s),
					"reload", 0 };
	/* the run's end, when run.ini knows it (t0_mono + duration_recorded_s):
	 * where a torn or damaged tail ends */
	if (a->ini && runini_get_double(a->ini, NULL, "t0_mono", &t0, NULL) == 0 &&
	    runini_get_double(a->ini, NULL, "duration_recorded_s", &dur, NULL) == 0)
		run_end = (uint64_t)llround((t0 + dur) * 1e9);
	for (size_t k = 0; k < r->ndamage; k++) {
		const struct rec_damage *d = &r->damage[k];
		uint64_t da = d->t_before_ns ? d->t_before_ns : x->base_ns;
		uint64_t db = d->t_after_ns ? d->t_after_ns : run_end > da ? run_end : da;

		sg[n++] = (struct seg){ da, db < da ? da : db, "record damaged", d->bytes };
	}
	if (r->torn_bytes) {
		/* a torn tail: from the last stamp read to the run's end */
		uint64_t last = x->pt.last_stamp;

		if (run_end > last)
			sg[n++] = (struct seg){ last, run_end, "record torn", r->torn_bytes };
	}
	for (size_t k = 0; k < n; k++)
		if (sg[k].b < sg[k].a)
			sg[k].b = sg[k].a;
	ret = n ? segments_write(x, sg, n) : 0;
	free(sg);
	return ret;
}
/* -------------------------------------------------------------- setup */

uint64_t export_fnv(uint64_t h, const char *s)
{
	while (s && *s)
		h = (h ^ (uint8_t)*s++) * 0x100000001b3ull;
	return h;
}

/* The presents in time order, and each frame's stall. */
static int setup_frames(struct ex *x)
{
	const struct rec *r = x->r;
	int ret;

	x->npres = r->nframes;
	x->pres = malloc((r->nframes ? r->nframes : 1) * sizeof(*x->pres));
	if (!x->pres)
		return -ENOMEM;
	if (r->nframes)
		memcpy(x->pres, r->frames, r->nframes * sizeof(*x->pres));
	qsort(x->pres, x->npres, sizeof(*x->pres), cmp_frame);
	x->nframes = x->npres ? x->npres - 1 : 0;
	if (x->a->f && x->a->f->n != x->nframes) {
		sb_addf(x->notes, "the analysis has %zu frames, the record %zu: stalls are not named\n",
			x->a->f->n, x->nframes);
	}
	x->stall_of = calloc(x->nframes ? x->nframes : 1, sizeof(*x->stall_of));
	if (!x->stall_of)
		return -ENOMEM;
	if (!x->a->f || x->a->f->n != x->nframes)
		return 0;
	ret = stall_list_build(x->a, &x->a->mo, &x->win, &x->nwin, &x->warm, &x->nwarm);
	if (ret < 0)
		return ret;
	for (size_t k = 0; k < x->nwarm; k++)
		x->stall_of[x->warm[k].frame] = &x->warm[k];
	for (size_t k = 0; k < x->nwin; k++)
		x->stall_of[x->win[k].frame] = &x->win[k];
	return 0;
}

/* The earliest stamp of the record: every sequence's clock starts there. */
static uint64_t base_of(const struct ex *x)
{
	const struct rec *r = x->r;
	uint64_t b = UINT64_MAX;

	if (r->nsamples)
		b = r->t_ns[0];
	if (x->npres && x->pres[0].t_ns < b)
		b = x->pres[0].t_ns;
	for (size_t e = 0; e < r->nevents; e++)
		if (r->events[e].t_ns < b)
			b = r->events[e].t_ns;
	for (size_t i = 0; i < r->nintervals; i++)
		if (r->intervals[i].out_ns < b)
			b = r->intervals[i].out_ns;
	for (size_t c = 0; c < r->nclocks; c++)
		if (r->clocks[c].mono_ns < b)
			b = r->clocks[c].mono_ns;
	return b == UINT64_MAX ? 0 : b;
}

/* The machine's clocks: every clock pair of the record (a snapshot each). */
int export_clocks(struct ex *x)
{
	const struct rec *r = x->r;
	bool boot = false;
	int ret = 0;

	for (size_t c = 0; c < r->nclocks; c++)
		boot = boot || r->clocks[c].boot_ns;
	if (!boot)
		sb_addf(x->notes, "the record has no CLOCK_BOOTTIME (recorded before 2.1): the trace is "
			"on CLOCK_MONOTONIC, which a merged BOOTTIME trace matches only if the "
			"machine did not suspend since boot (docs/EXPORT.md)\n");
	if (!r->nclocks) {
		sb_addf(x->notes, "the record has no clock pair: times are CLOCK_MONOTONIC, "
			"with no wall-clock time\n");
		return perfetto_out_clocks(x->o, x->base_ns, 0, 0, true);
	}
	for (size_t c = 0; !ret && c < r->nclocks; c++) {
		const struct rec_clock *k = &r->clocks[c];

		if (boot && !k->boot_ns)
			continue;
		ret = perfetto_out_clocks(x->o, k->mono_ns, k->boot_ns, k->real_ns, !boot && c == 0);
	}
	return ret;
}

int export_process_track(struct ex *x)
{
	const struct analysis *a = x->a;
	const char *pid = a->ini ? runini_get(a->ini, "pid") : NULL;
	const char *prog = a->program ? a->program : rec_meta_get(x->r, "program");
	struct perfetto_track t = { .kind = PERFETTO_TRACK_PROCESS, .name = prog, .ranked_children = true };

	if (!pid)
		pid = rec_meta_get(x->r, "pid");
	x->pid = pid ? (int32_t)strtol(pid, NULL, 10) : 0;
	t.pid = x->pid;
	sb_reset(&x->sb);
	sb_addf(&x->sb, "stallscope's record of '%s' (%s)", prog ? prog : "?", a->source);
	t.description = x->sb.buf;
	if (export_track_group(x, &t) < 0)
		return -EIO;
	x->proc_uuid = t.uuid;
	return 0;
}

void export_say_missing(struct ex *x, size_t npres, size_t nsamples)
{
	const struct rec *r = x->r;

	if (!npres)
		sb_addf(x->notes, "the run has no frames: the trace has no frame or stall slices\n");
	else if (npres == 1)
		sb_addf(x->notes, "the run has one present, so no frame\n");
	if (!nsamples)
		sb_addf(x->notes, "the record has no samples: no thread states and no counters\n");
	if (!r->complete)
		sb_addf(x->notes, "the record has no end (the recorder was killed?): the trace ends "
			"with its last whole block\n");
	if (x->st->skipped)
		sb_addf(x->notes, "%zu inconsistent intervals, counter steps or segments left out\n",
			x->st->skipped);
}

int export_perfetto(struct analysis *a, const char *rundir, bool streamed,
		    const char *spill_dir, struct perfetto_out *o, struct export_stats *st, struct strbuf *notes,
		    struct strbuf *err)
{
	struct ex x = {
		.a = a, .r = a->rec, .o = o, .st = st, .notes = notes, .seq = 2,
		.sb = STRBUF_INIT,
	};
	int ret;

	if (!a->rec)
		return sb_error(err, -EINVAL, "'%s' is not a run directory with a record", rundir);
	memset(st, 0, sizeof(*st));
	x.abi = rec_meta_get(x.r, "syscall_abi");
	/* uuids unlike another run's, so that two runs' traces merge apart */
	x.uuid = (export_fnv(export_fnv(0xcbf29ce484222325ull, rec_meta_get(x.r, "clock_mono_ns")),
		      rec_meta_get(x.r, "pid")) & 0x7fffffffff000000ull) | 1;
	if (streamed) {
		/* analysed by windows: the record streamed (export_perfetto_stream.c) */
		ret = export_perfetto_stream(&x, a, rundir, spill_dir, err);
		if (ret < 0 && !err->len)
			sb_error(err, ret, "cannot write the trace");
		goto out;
	}
	ret = setup_frames(&x);
	x.base_ns = base_of(&x);
	ret = ret ? ret : export_clocks(&x);
	ret = ret ? ret : export_process_track(&x);
	ret = ret ? ret : frames_track(&x);
	ret = ret ? ret : stalls_track(&x);
	if (!ret)
		pres_times(&x);
	ret = ret ? ret : export_segments(&x);
	ret = ret ? ret : export_threads(&x);
	ret = ret ? ret : export_stacks(&x);
	ret = ret ? ret : export_counters(&x);
	ret = ret ? ret : export_probe(&x);
	ret = ret ? ret : export_interference(&x, rundir);
	if (ret < 0)
		sb_error(err, ret, "cannot write the trace");
	else
		export_say_missing(&x, x.r->nframes, x.r->nsamples);
out:
	free(x.pres);
	free(x.stall_of);
	free(x.win);
	free(x.warm);
	free(x.slow);
	sb_release(&x.sb);
	return ret;
}
