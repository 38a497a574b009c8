// SPDX-License-Identifier: MIT
/*
 * metrics.c: the window, warm-up and play metrics of metrics.h.
 *
 * One pass over the window for counts and sums, stats_quantiles for the
 * percentiles (from 65,536 frames: keys counted in buckets, selections on
 * the few values near the wanted ranks, no copy of the window), one pass for
 * CapFrameX's moving average, and for play a copy of the play frames (only
 * when reload segments take some). Memory: one array of the window's size,
 * touched only for that copy. Assumes a frame log fits in memory (a
 * one-hour 144 fps log is 518,400 frames, 4 MB of doubles).
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/metrics.h"
#include "core/stats.h"

const struct metric_desc metric_descs[M_COUNT] = {
	[M_FRAMES] = { "frames", 0, "frames" },
	[M_SECONDS] = { "seconds", 2, "s" },
	[M_FPS] = { "fps", 1, "fps" },
	[M_SMOOTH_FPS] = { "smooth_fps", 1, "fps" },
	[M_MEDIAN_MS] = { "median_ms", 2, "ms" },
	[M_P95_MS] = { "p95_ms", 2, "ms" },
	[M_P99_MS] = { "p99_ms", 2, "ms" },
	[M_P999_MS] = { "p999_ms", 2, "ms" },
	[M_LOW1] = { "low1", 1, "fps" },
	[M_LOW01] = { "low01", 1, "fps" },
	[M_STALLS] = { "stalls", 0, "frames" },
	[M_STALL_S] = { "stall_s", 3, "s" },
	[M_LONGEST_MS] = { "longest_ms", 1, "ms" },
	[M_OVER_500MS] = { "over_500ms", 0, "frames" },
	[M_OVER_1S] = { "over_1s", 0, "frames" },
	[M_OVER_2S] = { "over_2s", 0, "frames" },
	[M_STUTTER_PCT] = { "stutter_pct", 2, "%" },
	[M_LOWFPS_PCT] = { "lowfps_pct", 2, "%" },
	[M_STALLS_WARM] = { "stalls_warm", 0, "frames" },
	[M_STALL_WARM_S] = { "stall_warm_s", 3, "s" },
	[M_LONGEST_WARM_MS] = { "longest_warm_ms", 1, "ms" },
	[M_STALLS_PLAY] = { "stalls_play", 0, "frames" },
	[M_STALL_PLAY_S] = { "stall_play_s", 3, "s" },
	[M_LONGEST_PLAY_MS] = { "longest_play_ms", 1, "ms" },
	[M_LOW1_PLAY] = { "low1_play", 1, "fps" },
	[M_WIN_PLAY_S] = { "win_play_s", 2, "s" },
	[M_RELOAD_S] = { "reload_s", 2, "s" },
	[M_RELOAD_N] = { "reload_n", 0, "segments" },
	[M_STALL_DISK_S] = { "stall_disk_s", 3, "s" },
	[M_STALL_SWAP_S] = { "stall_swap_s", 3, "s" },
	[M_STALL_RECLAIM_S] = { "stall_reclaim_s", 3, "s" },
	[M_STALL_GPU_S] = { "stall_gpu_s", 3, "s" },
	[M_STALL_CPU_S] = { "stall_cpu_s", 3, "s" },
	[M_STALL_IO_S] = { "stall_io_s", 3, "s" },
	[M_STALL_WAIT_S] = { "stall_wait_s", 3, "s" },
	[M_STALL_OTHER_S] = { "stall_other_s", 3, "s" },
	[M_STALL_DISK_PLAY_S] = { "stall_disk_play_s", 3, "s" },
	[M_STALL_SWAP_PLAY_S] = { "stall_swap_play_s", 3, "s" },
	[M_STALL_RECLAIM_PLAY_S] = { "stall_reclaim_play_s", 3, "s" },
	[M_STALL_GPU_PLAY_S] = { "stall_gpu_play_s", 3, "s" },
	[M_STALL_CPU_PLAY_S] = { "stall_cpu_play_s", 3, "s" },
	[M_STALL_IO_PLAY_S] = { "stall_io_play_s", 3, "s" },
	[M_STALL_WAIT_PLAY_S] = { "stall_wait_play_s", 3, "s" },
	[M_STALL_OTHER_PLAY_S] = { "stall_other_play_s", 3, "s" },
	[M_LOAD_DISK_S] = { "load_disk_s", 3, "s" },
	[M_WARM_DISK_S] = { "warm_disk_s", 3, "s" },
	[M_LOAD_S] = { "load_s", 3, "s" },
};

int metric_find(const char *name)
{
	int i;

	for (i = 0; i < M_COUNT; i++)
		if (!strcmp(metric_descs[i].name, name))
			return i;
	return -1;
}

void metrics_note(struct metrics *m, const char *fmt, ...)
{
	va_list ap;

	if (m->nnotes >= METRICS_MAX_NOTES)
		return;
	va_start(ap, fmt);
	vsnprintf(m->notes[m->nnotes++], METRICS_NOTE_LEN, fmt, ap);
	va_end(ap);
}

void metrics_note_first(struct metrics *m, const char *fmt, ...)
{
	va_list ap;

	if (m->nnotes == METRICS_MAX_NOTES)
		m->nnotes--;	/* the last one makes room */
	memmove(m->notes[1], m->notes[0], m->nnotes * sizeof(m->notes[0]));
	m->nnotes++;
	va_start(ap, fmt);
	vsnprintf(m->notes[0], METRICS_NOTE_LEN, fmt, ap);
	va_end(ap);
}

/* ------------------------------------------------------------ stutter */

/* metrics_stutter on IN's N values (a window's frames, packed or not). */
/* Frame I (X) of metrics_stutter's pass, GONE the one leaving its
 * trailing window of W (read when I >= W). */
static inline void stutter_step(double x, double gone, size_t i, size_t w, double *wsum,
				double *stut, double *low)
{
	double avg;

	/* The trailing window: frame i and up to w - 1 before it. */
	*wsum += x;
	if (i >= w)
		*wsum -= gone;
	avg = *wsum / (double)(i + 1 < w ? i + 1 : w);
	if (x > METRICS_STUTTER_FACTOR * avg)
		*stut += x;
	else if (x > 0.0 && 1000.0 / x < METRICS_LOWFPS_FPS)
		*low += x;
}

/* metrics_stutter on IN's N values (a window's frames, packed or not). */
static void stutter_in(const struct stats_in *in, size_t n, double *ret_stutter_pct,
		       double *ret_lowfps_pct)
{
	double total, mean, wsum = 0.0, stut = 0.0, low = 0.0;
	long w;
	size_t i;

	total = stats_sum_in(in, n);
	if (n == 0 || !(total > 0.0) || !isfinite(total)) {
		*ret_stutter_pct = NAN;
		*ret_lowfps_pct = NAN;
		return;
	}
	mean = total / (double)n;
	/* CapFrameX: Convert.ToInt32(Math.Sqrt(average) * 10), which rounds
	 * half to even, as lrint does in the default rounding mode. */
	w = lrint(sqrt(mean) * 10.0);
	if (w < 1)
		w = 1;
	if (in->x) {
		/* an array (a frame log's): no reader in between */
		const double *ft = in->x;

		for (i = 0; i < n; i++)
			stutter_step(ft[i], i >= (size_t)w ? ft[i - w] : 0.0, i, (size_t)w, &wsum,
				     &stut, &low);
	} else {
		struct stats_cur cur, lag;

		stats_cur_init(&cur, in, n);
		stats_cur_init(&lag, in, n);
		for (i = 0; i < n; i++)
			stutter_step(stats_cur_at(&cur, i),
				     i >= (size_t)w ? stats_cur_at(&lag, i - w) : 0.0, i, (size_t)w,
				     &wsum, &stut, &low);
	}
	*ret_stutter_pct = 100.0 * stut / total;
	*ret_lowfps_pct = 100.0 * low / total;
}

void metrics_stutter(const double *ft, size_t n, double *ret_stutter_pct, double *ret_lowfps_pct)
{
	stutter_in(&(struct stats_in){ .x = ft }, n, ret_stutter_pct, ret_lowfps_pct);
}

/* ------------------------------------------------------------ helpers */

/* The first index in [lo, n) whose frame ends after T (t_s is sorted). */
static size_t first_ending_after(const struct frames *f, size_t lo, double t)
{
	size_t hi = f->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (frames_t(f, mid) > t)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

static int cmp_seg(const void *a, const void *b)
{
	const struct metrics_seg *x = a, *y = b;

	return (x->start_s > y->start_s) - (x->start_s < y->start_s);
}

/* Sorts and merges SEGS into a new array (non-empty, disjoint, ascending);
 * *ret_n its length. NULL on ENOMEM. */
static struct metrics_seg *merge_segs(const struct metrics_seg *segs, size_t n, size_t *ret_n)
{
	struct metrics_seg *m = malloc((n ? n : 1) * sizeof(*m));
	size_t i, k = 0;

	if (!m)
		return NULL;
	for (i = 0; i < n; i++)
		if (segs[i].end_s > segs[i].start_s)
			m[k++] = segs[i];
	qsort(m, k, sizeof(*m), cmp_seg);
	n = k;
	k = 0;
	for (i = 0; i < n; i++) {
		if (k && m[i].start_s <= m[k - 1].end_s) {
			if (m[i].end_s > m[k - 1].end_s)
				m[k - 1].end_s = m[i].end_s;
		} else {
			m[k++] = m[i];
		}
	}
	*ret_n = k;
	return m;
}

/* Overlaps shorter than this are rounding (a frame's start is computed as
 * its end less its frame time), not overlaps: 1 us, below any present clock's
 * resolution that matters. */
#define SEG_EPS_S 1e-6

/* The merged segment frame [fs, fe] overlaps, or -1 (binary search for the
 * first segment ending after fs). */
static long seg_of(const struct metrics_seg *m, size_t n, double fs, double fe)
{
	size_t lo = 0, hi = n;

	fs += SEG_EPS_S;
	fe -= SEG_EPS_S;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m[mid].end_s > fs)
			hi = mid;
		else
			lo = mid + 1;
	}
	if (lo < n && m[lo].start_s < fe)
		return (long)lo;
	return -1;
}

bool metrics_in_reload(const struct metrics_seg *segs, size_t nsegs, double fs, double fe)
{
	size_t k;

	/* as seg_of over the merged segments: an overlap of SEG_EPS_S or more */
	for (k = 0; k < nsegs; k++)
		if (segs[k].end_s > segs[k].start_s && segs[k].end_s > fs + SEG_EPS_S &&
		    segs[k].start_s < fe - SEG_EPS_S)
			return true;
	return false;
}

/* ------------------------------------------------------------ compute */

/* 0 or -ENOMEM */
static int window_part(const struct frames *f, size_t a, size_t n, const struct metrics_opts *o,
		       struct metrics *m)
{
	struct stats_in in = frames_ft_in(f, a);
	double sum, smooth_n = 0, stall_n = 0, longest = -INFINITY, piece[STATS_CUR_PIECE];
	double stall_ms_sum = 0.0, smooth_ms, o500 = 0, o1 = 0, o2 = 0, p99, p999;
	size_t i, k, got;

	sum = stats_sum_in(&in, n);
	for (i = 0; i < n; i += got) {
		const double *p = stats_in_piece(&in, i, n, piece, &got);

		for (k = 0; k < got; k++) {
			double x = p[k];

			if (x > longest)
				longest = x;
			if (x > o->stall_ms) {
				stall_n++;
				stall_ms_sum += x;
			} else {
				smooth_n++;
			}
			o500 += x > 500.0;
			o1 += x > 1000.0;
			o2 += x > 2000.0;
		}
	}
	m->v[M_FRAMES] = (double)n;
	m->v[M_SECONDS] = sum / 1000.0;
	m->v[M_STALLS] = stall_n;
	m->v[M_STALL_S] = stall_ms_sum / 1000.0;
	m->v[M_OVER_500MS] = o500;
	m->v[M_OVER_1S] = o1;
	m->v[M_OVER_2S] = o2;
	if (n == 0) {
		metrics_note(m, "fps, smooth_fps, median_ms, p95_ms, p99_ms, p999_ms, low1, low01, "
				"longest_ms, stutter_pct, lowfps_pct: no frames in the window");
		m->v[M_FPS] = m->v[M_SMOOTH_FPS] = m->v[M_MEDIAN_MS] = m->v[M_P95_MS] = NAN;
		m->v[M_P99_MS] = m->v[M_P999_MS] = m->v[M_LOW1] = m->v[M_LOW01] = NAN;
		m->v[M_LONGEST_MS] = m->v[M_STUTTER_PCT] = m->v[M_LOWFPS_PCT] = NAN;
		return 0;
	}
	if (!isfinite(sum)) {
		metrics_note(m, "seconds, fps, smooth_fps: the frame times are too large to add up");
		m->v[M_SECONDS] = NAN;
	}
	m->v[M_FPS] = sum > 0.0 && isfinite(sum) ? (double)n / (sum / 1000.0) : NAN;
	if (sum == 0.0)
		metrics_note(m, "fps, smooth_fps: the window's frames take no time");
	smooth_ms = sum - stall_ms_sum;
	if (smooth_n == 0) {
		m->v[M_SMOOTH_FPS] = NAN;
		metrics_note(m, "smooth_fps: every frame of the window is a stall");
	} else {
		m->v[M_SMOOTH_FPS] = smooth_ms > 0.0 && isfinite(smooth_ms)
					     ? smooth_n / (smooth_ms / 1000.0)
					     : NAN;
	}
	m->v[M_LONGEST_MS] = longest;
	{
		static const double ps[] = { 0.5, 0.95, 0.99, 0.999 };
		double q[4];

		if (stats_quantiles_in(&in, n, ps, 4, q) < 0)
			return -ENOMEM;
		m->v[M_MEDIAN_MS] = q[0];
		m->v[M_P95_MS] = q[1];
		p99 = m->v[M_P99_MS] = q[2];
		p999 = m->v[M_P999_MS] = q[3];
	}
	m->v[M_LOW1] = p99 > 0.0 ? 1000.0 / p99 : NAN;
	m->v[M_LOW01] = p999 > 0.0 ? 1000.0 / p999 : NAN;
	if (!(p999 > 0.0))
		metrics_note(m, "low1, low01: a percentile frame time is 0 ms");
	stutter_in(&in, n, &m->v[M_STUTTER_PCT], &m->v[M_LOWFPS_PCT]);
	if (isnan(m->v[M_STUTTER_PCT]))
		metrics_note(m, "stutter_pct, lowfps_pct: the window's frame times add up to no "
				"finite time");
	return 0;
}

static void warm_part(const struct frames *f, size_t n, const struct metrics_opts *o,
		      struct metrics *m)
{
	double stalls = 0, stall_ms = 0, longest = -INFINITY;
	size_t i;

	for (i = 0; i < n; i++) {
		double x = frames_ft(f, i);

		if (x > longest)
			longest = x;
		if (x > o->stall_ms) {
			stalls++;
			stall_ms += x;
		}
	}
	/* a warm-up with no frame counts nothing: unknown, not 0 */
	m->v[M_STALLS_WARM] = n ? stalls : NAN;
	m->v[M_STALL_WARM_S] = n ? stall_ms / 1000.0 : NAN;
	m->v[M_LONGEST_WARM_MS] = n ? longest : NAN;
	if (!n)
		metrics_note(m, "stalls_warm, stall_warm_s, longest_warm_ms: %s",
			     o->warmup_s == 0.0 ? "no warm-up (--warmup 0)" : "no frames in the warm-up");
}

/* Play: the window's frames that overlap no reload segment. BUF has room
 * for the window. Returns 0 or -ENOMEM. */
static int play_part(const struct frames *f, const struct metrics_seg *segs, size_t nsegs,
		     const struct metrics_opts *o, double *buf, struct metrics *m)
{
	size_t a = m->win_first, n = m->win_n, i, k, np = 0, nm = 0;
	struct metrics_seg *mg = merge_segs(segs, nsegs, &nm);
	unsigned char *hit;
	double stalls = 0, stall_ms = 0, longest = -INFINITY, play_ms = 0, reload_ms = 0, nseg = 0;
	struct stats_in in = { .x = buf };
	double piece[STATS_CUR_PIECE];
	size_t got;

	if (!mg)
		return -ENOMEM;
	hit = calloc(nm ? nm : 1, 1);
	if (!hit) {
		free(mg);
		return -ENOMEM;
	}
	/* without segments the play frames are the window's: no copy */
	for (i = a; nm && i < a + n; i++) {
		double x = frames_ft(f, i), fe = frames_t(f, i), fs = fe - x / 1000.0;
		long s = seg_of(mg, nm, fs, fe);

		if (s >= 0) {
			hit[s] = 1;
			reload_ms += x;
			continue;
		}
		buf[np++] = x;
	}
	if (!nm) {
		in = frames_ft_in(f, a);
		np = n;
	}

	for (k = 0; k < nm; k++)
		nseg += hit[k];
	free(hit);
	free(mg);
	for (i = 0; i < np; i += got) {
		const double *pf = stats_in_piece(&in, i, np, piece, &got);

		for (k = 0; k < got; k++) {
			if (pf[k] > longest)
				longest = pf[k];
			play_ms += pf[k];
			if (pf[k] > o->stall_ms) {
				stalls++;
				stall_ms += pf[k];
			}
		}
	}
	m->v[M_WIN_PLAY_S] = play_ms / 1000.0;
	m->v[M_RELOAD_S] = reload_ms / 1000.0;
	m->v[M_RELOAD_N] = nseg;
	m->v[M_LONGEST_PLAY_MS] = np ? longest : NAN;
	m->v[M_STALLS_PLAY] = stalls;
	m->v[M_STALL_PLAY_S] = stall_ms / 1000.0;
	if (np == n) {
		m->v[M_LOW1_PLAY] = m->v[M_LOW1];	/* play is the window */
	} else if (np) {
		double p99, p = 0.99;

		stats_quantiles_select(buf, np, &p, 1, &p99);
		m->v[M_LOW1_PLAY] = p99 > 0.0 ? 1000.0 / p99 : NAN;
	} else {
		m->v[M_LOW1_PLAY] = NAN;
		metrics_note(m, "longest_play_ms, low1_play: no play frames in the window");
	}
	return 0;
}

/*
 * A window that holds no frame counts nothing: its counts (frames, stalls,
 * their seconds, the over_* and play columns) are not 0 but unknown, and a
 * note says why. The common case is a log shorter than the default
 * warm-up: its stalls are all in stalls_warm, and a 0 in the headline would
 * read as "no stalls".
 */
static void empty_window(const struct frames *f, const struct metrics_opts *o, double origin,
			 struct metrics *m)
{
	static const int counts[] = { M_FRAMES, M_SECONDS, M_STALLS, M_STALL_S, M_OVER_500MS,
				      M_OVER_1S, M_OVER_2S, M_STALLS_PLAY, M_STALL_PLAY_S,
				      M_WIN_PLAY_S, M_RELOAD_S, M_RELOAD_N };
	const char *cols = "frames, seconds, stalls, stall_s, over_500ms, over_1s, over_2s, "
			   "stalls_play, stall_play_s, win_play_s, reload_s, reload_n";
	double start = isnan(o->from_s) ? o->warmup_s : o->from_s;
	double last = f->n ? frames_t(f, f->n - 1) - origin : 0.0;

	for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++)
		m->v[counts[i]] = NAN;
	if (!f->n)
		metrics_note(m, "%s: the input has no frames", cols);
	else if (last <= start && isnan(o->from_s))
		metrics_note(m, "%s: the run (%.1f s of frames) is shorter than the warm-up "
				"(%.1f s), so the window is empty; --warmup 0 to count all",
			     cols, last, start);
	else if (last <= start)
		metrics_note(m, "%s: the run's frames end %.1f s after its first frame's start, "
				"before the window starts (%.1f s, --from)",
			     cols, last, start);
	else
		metrics_note(m, "%s: no frame ends in the window (%.1f s to %.1f s)", cols, start,
			     isnan(o->to_s) ? last : o->to_s);
}

int metrics_compute(const struct frames *f, const struct metrics_opts *o,
		    const struct metrics_seg *segs, size_t nsegs, const char *play_unknown,
		    struct metrics *ret)
{
	struct metrics *m;
	double origin = 0.0, start, end, *buf;
	size_t warm_n = 0, a = 0, b = 0, i;
	int r;

	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	if (f->n) {
		origin = frames_start(f, 0);
		start = isnan(o->from_s) ? o->warmup_s : o->from_s;
		end = isnan(o->to_s) ? INFINITY : o->to_s;
		warm_n = first_ending_after(f, 0, origin + o->warmup_s);
		a = first_ending_after(f, 0, origin + start);
		b = end < INFINITY ? first_ending_after(f, a, origin + end) : f->n;
		if (b < a)
			b = a;
	}
	m->origin_s = origin;
	for (i = M_STALL_DISK_S; i <= M_WARM_DISK_S; i++)
		m->v[i] = NAN;	/* the causes' columns: causes_columns fills them */
	m->win_first = a;
	m->win_n = b - a;
	buf = malloc((f->n ? f->n : 1) * sizeof(*buf));
	if (!buf) {
		free(m);
		return -ENOMEM;
	}
	if (window_part(f, a, b - a, o, m) < 0) {
		free(buf);
		free(m);
		return -ENOMEM;
	}
	warm_part(f, warm_n, o, m);
	if (play_unknown) {
		for (i = M_STALLS_PLAY; i <= M_RELOAD_N; i++)
			m->v[i] = NAN;
		metrics_note(m, "stalls_play, stall_play_s, longest_play_ms, low1_play, win_play_s, "
				"reload_s, reload_n: %s",
			     play_unknown);
	} else {
		r = play_part(f, segs, nsegs, o, buf, m);
		if (r < 0) {
			free(buf);
			free(m);
			return r;
		}
	}
	free(buf);
	if (m->win_n == 0)
		empty_window(f, o, origin, m);
	*ret = *m;
	free(m);
	return 0;
}
