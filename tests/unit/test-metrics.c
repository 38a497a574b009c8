// SPDX-License-Identifier: MIT
/*
 * test-metrics.c: every metric of core/metrics.h on hand-computed cases:
 * 0, 1 and 2 frames, all stalls, a stall exactly at the threshold, huge
 * frame times, the warm-up and --from/--to boundaries, CapFrameX's stutter
 * and low-fps shares, play with reload segments (merged, a long frame that
 * starts inside one, a frame spanning one) and unknown play.
 */
#include "core/metrics.h"
#include "t.h"

static struct frames *mk(const double *ft, size_t n)
{
	struct frames *f = frames_new();
	size_t i;

	for (i = 0; i < n; i++)
		frames_push_ft(f, ft[i]);
	return f;
}

static int has_note(const struct metrics *m, const char *what)
{
	size_t i;

	for (i = 0; i < m->nnotes; i++)
		if (strstr(m->notes[i], what))
			return 1;
	return 0;
}

static struct metrics run(const struct frames *f, double warmup, double stall_ms)
{
	struct metrics_opts o = METRICS_OPTS_INIT;
	struct metrics m;

	o.warmup_s = warmup;
	o.stall_ms = stall_ms;
	memset(&m, 0xff, sizeof(m));
	CHECK_INT(metrics_compute(f, &o, NULL, 0, NULL, &m), 0);
	return m;
}

static void test_zero_frames(void)
{
	struct frames *f = frames_new();
	struct metrics m = run(f, 60, 100);

	/* nothing to count: unknown, not 0 */
	CHECK(isnan(m.v[M_FRAMES]));
	CHECK(isnan(m.v[M_SECONDS]));
	CHECK(isnan(m.v[M_STALLS]));
	CHECK(isnan(m.v[M_STALL_S]));
	CHECK(has_note(&m, "the input has no frames"));
	CHECK(isnan(m.v[M_FPS]));
	CHECK(isnan(m.v[M_MEDIAN_MS]));
	CHECK(isnan(m.v[M_LOW1]));
	CHECK(isnan(m.v[M_LONGEST_MS]));
	CHECK(isnan(m.v[M_STUTTER_PCT]));
	CHECK(isnan(m.v[M_LONGEST_WARM_MS]));
	CHECK(isnan(m.v[M_LOW1_PLAY]));
	CHECK(m.nnotes >= 2);
	CHECK(has_note(&m, "no frames in the window"));
	frames_free(f);
}

static void test_one_frame(void)
{
	struct frames *f = mk((double[]){ 10 }, 1);
	struct metrics m = run(f, 0, 100);

	CHECK_NEAR(m.v[M_FRAMES], 1, 0);
	CHECK_NEAR(m.v[M_SECONDS], 0.01, 1e-12);
	CHECK_NEAR(m.v[M_FPS], 100, 1e-9);
	CHECK_NEAR(m.v[M_SMOOTH_FPS], 100, 1e-9);
	CHECK_NEAR(m.v[M_MEDIAN_MS], 10, 0);
	CHECK_NEAR(m.v[M_P999_MS], 10, 0);
	CHECK_NEAR(m.v[M_LOW1], 100, 1e-9);
	CHECK_NEAR(m.v[M_LOW01], 100, 1e-9);
	CHECK_NEAR(m.v[M_STALLS], 0, 0);
	CHECK_NEAR(m.v[M_LONGEST_MS], 10, 0);
	CHECK_NEAR(m.v[M_STUTTER_PCT], 0, 0);
	CHECK_NEAR(m.v[M_LOWFPS_PCT], 0, 0);
	/* --warmup 0: no warm-up frames, so nothing counted: unknown, not 0 */
	CHECK(isnan(m.v[M_STALLS_WARM]));
	CHECK(isnan(m.v[M_STALL_WARM_S]));
	CHECK(isnan(m.v[M_LONGEST_WARM_MS]));
	/* no segments: play is the window */
	CHECK_NEAR(m.v[M_WIN_PLAY_S], 0.01, 1e-12);
	CHECK_NEAR(m.v[M_RELOAD_N], 0, 0);
	CHECK_NEAR(m.v[M_LOW1_PLAY], 100, 1e-9);
	frames_free(f);
}

static void test_two_frames(void)
{
	struct frames *f = mk((double[]){ 10, 30 }, 2);
	struct metrics m = run(f, 0, 100);

	CHECK_NEAR(m.v[M_FRAMES], 2, 0);
	CHECK_NEAR(m.v[M_FPS], 50, 1e-9);		/* 2 / 0.04 s */
	CHECK_NEAR(m.v[M_MEDIAN_MS], 20, 1e-12);	/* halfway */
	CHECK_NEAR(m.v[M_P95_MS], 29, 1e-12);	/* 10 + 0.95 * 20 */
	CHECK_NEAR(m.v[M_P99_MS], 29.8, 1e-12);
	CHECK_NEAR(m.v[M_P999_MS], 29.98, 1e-12);
	CHECK_NEAR(m.v[M_LOW1], 1000 / 29.8, 1e-9);
	CHECK_NEAR(m.v[M_LOW01], 1000 / 29.98, 1e-9);
	CHECK_NEAR(m.v[M_LONGEST_MS], 30, 0);
	/* window 45 frames; 30 ms is not over 2.5 x 20; 33 fps is not low */
	CHECK_NEAR(m.v[M_STUTTER_PCT], 0, 0);
	CHECK_NEAR(m.v[M_LOWFPS_PCT], 0, 0);
	frames_free(f);
}

static void test_all_stalls(void)
{
	struct frames *f = mk((double[]){ 200, 300, 600 }, 3);
	struct metrics m = run(f, 0, 100);

	CHECK_NEAR(m.v[M_STALLS], 3, 0);
	CHECK_NEAR(m.v[M_STALL_S], 1.1, 1e-12);
	CHECK(isnan(m.v[M_SMOOTH_FPS]));
	CHECK_NEAR(m.v[M_OVER_500MS], 1, 0);
	CHECK_NEAR(m.v[M_OVER_1S], 0, 0);
	CHECK_NEAR(m.v[M_LONGEST_MS], 600, 0);
	CHECK_NEAR(m.v[M_STALLS_PLAY], 3, 0);
	CHECK_NEAR(m.v[M_STALL_PLAY_S], 1.1, 1e-12);
	CHECK(has_note(&m, "smooth_fps: every frame of the window is a stall"));
	frames_free(f);
}

static void test_threshold_exact(void)
{
	/* a stall is a frame OVER the threshold: 100 ms is not one */
	struct frames *f = mk((double[]){ 100, 50, 100.001 }, 3);
	struct metrics m = run(f, 0, 100);

	CHECK_NEAR(m.v[M_STALLS], 1, 0);
	CHECK_NEAR(m.v[M_STALL_S], 0.100001, 1e-12);
	CHECK_NEAR(m.v[M_SMOOTH_FPS], 2 / 0.15, 1e-9);
	m = run(f, 0, 50);
	CHECK_NEAR(m.v[M_STALLS], 2, 0);
	frames_free(f);
	/* 500 ms, 1 s and 2 s exactly are not "over" either */
	f = mk((double[]){ 500, 1000, 2000, 2000.5 }, 4);
	m = run(f, 0, 100);
	CHECK_NEAR(m.v[M_OVER_500MS], 3, 0);
	CHECK_NEAR(m.v[M_OVER_1S], 2, 0);
	CHECK_NEAR(m.v[M_OVER_2S], 1, 0);
	frames_free(f);
}

static void test_huge(void)
{
	struct frames *f = mk((double[]){ 1e9, 1e9 }, 2);
	struct metrics m = run(f, 0, 100);

	CHECK_NEAR(m.v[M_SECONDS], 2e6, 1e-3);
	CHECK_NEAR(m.v[M_FPS], 1e-6, 1e-15);
	CHECK_NEAR(m.v[M_OVER_2S], 2, 0);
	CHECK_NEAR(m.v[M_LONGEST_MS], 1e9, 0);
	CHECK_NEAR(m.v[M_LOW1], 1e-6, 1e-15);
	frames_free(f);
	/* too large to add up: NaN and a note, never inf */
	f = mk((double[]){ 1e308, 1e308 }, 2);
	m = run(f, 0, 100);
	CHECK(isnan(m.v[M_SECONDS]));
	CHECK(isnan(m.v[M_FPS]));
	CHECK(isnan(m.v[M_STUTTER_PCT]));
	CHECK(has_note(&m, "too large to add up"));
	frames_free(f);
}

/* 3000 x 10 ms, a 500 ms stall (ends 30.5 s), 3000 x 10 ms (60.5 s), a 200 ms
 * stall (60.7 s), 1000 x 10 ms (70.7 s). Boundaries sit between frames. */
static struct frames *mk_warm(void)
{
	struct frames *f = frames_new();
	int i;

	for (i = 0; i < 3000; i++)
		frames_push_ft(f, 10);
	frames_push_ft(f, 500);
	for (i = 0; i < 3000; i++)
		frames_push_ft(f, 10);
	frames_push_ft(f, 200);
	for (i = 0; i < 1000; i++)
		frames_push_ft(f, 10);
	return f;
}

static void test_warmup(void)
{
	struct frames *f = mk_warm();
	struct metrics_opts o = METRICS_OPTS_INIT;
	struct metrics m;

	o.warmup_s = 60.005;
	CHECK_INT(metrics_compute(f, &o, NULL, 0, NULL, &m), 0);
	CHECK_NEAR(m.v[M_FRAMES], 50 + 1 + 1000, 0);
	CHECK_NEAR(m.v[M_STALLS], 1, 0);
	CHECK_NEAR(m.v[M_STALL_S], 0.2, 1e-12);
	CHECK_NEAR(m.v[M_LONGEST_MS], 200, 0);
	CHECK_NEAR(m.v[M_STALLS_WARM], 1, 0);
	CHECK_NEAR(m.v[M_STALL_WARM_S], 0.5, 1e-12);
	CHECK_NEAR(m.v[M_LONGEST_WARM_MS], 500, 0);
	CHECK_INT(m.win_first, 3000 + 1 + 2950);
	/* the default warm-up, 60 s: frames ending after 60 s */
	o = (struct metrics_opts)METRICS_OPTS_INIT;
	CHECK_INT(metrics_compute(f, &o, NULL, 0, NULL, &m), 0);
	CHECK(m.v[M_FRAMES] >= 1050 && m.v[M_FRAMES] <= 1052);
	/* --from 10.005 --to 20.005: 1000 frames of 10 ms */
	o.from_s = 10.005;
	o.to_s = 20.005;
	CHECK_INT(metrics_compute(f, &o, NULL, 0, NULL, &m), 0);
	CHECK_NEAR(m.v[M_FRAMES], 1000, 0);
	CHECK_NEAR(m.v[M_SECONDS], 10, 1e-9);
	CHECK_NEAR(m.v[M_FPS], 100, 1e-6);
	CHECK_NEAR(m.v[M_STALLS], 0, 0);
	/* the warm-up is still the first 60 s */
	CHECK_NEAR(m.v[M_STALLS_WARM], 1, 0);
	/* a log shorter than the warm-up: an empty window counts nothing (no
	 * "stalls 0" in the headline while the stalls sit in stalls_warm),
	 * and a note says why and what to do */
	o = (struct metrics_opts)METRICS_OPTS_INIT;
	o.warmup_s = 100;
	CHECK_INT(metrics_compute(f, &o, NULL, 0, NULL, &m), 0);
	CHECK(isnan(m.v[M_FRAMES]));
	CHECK(isnan(m.v[M_STALLS]));
	CHECK(isnan(m.v[M_STALL_S]));
	CHECK(isnan(m.v[M_OVER_500MS]));
	CHECK(isnan(m.v[M_STALLS_PLAY]));
	CHECK(isnan(m.v[M_FPS]));
	CHECK_NEAR(m.v[M_STALLS_WARM], 2, 0);	/* both stalls are the warm-up's now */
	CHECK(has_note(&m, "is shorter than the warm-up (100.0 s), so the window is empty; "
			   "--warmup 0 to count all"));
	/* --from past the end: the note names --from */
	o = (struct metrics_opts)METRICS_OPTS_INIT;
	o.from_s = 1000;
	CHECK_INT(metrics_compute(f, &o, NULL, 0, NULL, &m), 0);
	CHECK(isnan(m.v[M_STALLS]));
	CHECK(has_note(&m, "before the window starts (1000.0 s, --from)"));
	frames_free(f);
}

static void test_stutter(void)
{
	double pct, low;

	/* mean 28 -> window lrint(52.9) = 53; last frame: 100 > 2.5 * 140/5 */
	metrics_stutter((double[]){ 10, 10, 10, 10, 100 }, 5, &pct, &low);
	CHECK_NEAR(pct, 100.0 * 100 / 140, 1e-9);
	CHECK_NEAR(low, 0, 0);
	/* 20 fps everywhere: no stutter, all low fps */
	metrics_stutter((double[]){ 50, 50, 50, 50 }, 4, &pct, &low);
	CHECK_NEAR(pct, 0, 0);
	CHECK_NEAR(low, 100, 1e-12);
	/* exactly 2.5 x the average is not a stutter; 40 ms = 25 fps is not low */
	metrics_stutter((double[]){ 1, 1, 1, 1, 4.5 }, 5, &pct, &low);
	/* mean 1.7 -> window lrint(13.04) = 13; avg at frame 5 = 8.5/5 = 1.7;
	 * 2.5 * 1.7 = 4.25 < 4.5: a stutter */
	CHECK_NEAR(pct, 100.0 * 4.5 / 8.5, 1e-9);
	metrics_stutter((double[]){ 40, 40 }, 2, &pct, &low);
	CHECK_NEAR(low, 0, 0);
	/* a trailing window shorter than the run: mean 1 ms -> window 10
	 * frames; 20 ones then a 3: avg (9 + 3) / 10 = 1.2, 3 = 2.5 x 1.2 exactly */
	{
		double x[21];
		int i;

		for (i = 0; i < 20; i++)
			x[i] = 1;
		x[20] = 3;
		/* mean 23 / 21 = 1.095 -> lrint(10.47) = 10 */
		metrics_stutter(x, 21, &pct, &low);
		CHECK_NEAR(pct, 0, 0);
		x[20] = 3.01;
		metrics_stutter(x, 21, &pct, &low);
		CHECK_NEAR(pct, 100.0 * 3.01 / 23.01, 1e-9);
	}
	metrics_stutter(NULL, 0, &pct, &low);
	CHECK(isnan(pct) && isnan(low));
}

static void test_play_segments(void)
{
	struct frames *f = frames_new();
	struct metrics_opts o = METRICS_OPTS_INIT;
	struct metrics m;
	/* overlapping [10.005, 15) + [14, 20.005) merge; a third apart; an
	 * empty one is ignored */
	struct metrics_seg segs[] = {
		{ 40.005, 40.505 }, { 14, 20.005 }, { 10.005, 15 }, { 50, 50 },
	};
	int i;

	for (i = 0; i < 6000; i++)
		frames_push_ft(f, 10);
	o.warmup_s = 0;
	CHECK_INT(metrics_compute(f, &o, segs, 4, NULL, &m), 0);
	/* frame k (1-based) spans [(k-1)/100, k/100]: 1001..2001 and 4001..4051 */
	CHECK_NEAR(m.v[M_RELOAD_N], 2, 0);
	CHECK_NEAR(m.v[M_RELOAD_S], 10.52, 1e-9);
	CHECK_NEAR(m.v[M_WIN_PLAY_S], 60 - 10.52, 1e-9);
	CHECK_NEAR(m.v[M_STALLS_PLAY], 0, 0);
	CHECK_NEAR(m.v[M_LOW1_PLAY], 100, 1e-6);
	/* segments before the window do not count */
	o.warmup_s = 30;
	CHECK_INT(metrics_compute(f, &o, segs, 4, NULL, &m), 0);
	CHECK_NEAR(m.v[M_RELOAD_N], 1, 0);
	CHECK_NEAR(m.v[M_RELOAD_S], 0.51, 1e-9);
	frames_free(f);
}

static void test_play_long_frame(void)
{
	struct frames *f = frames_new();
	struct metrics_opts o = METRICS_OPTS_INIT;
	struct metrics m;
	struct metrics_seg seg = { 9.995, 11 };
	int i;

	/* 1000 x 10 ms (to 10 s), a 3 s load frame starting inside the segment
	 * (to 13 s): it belongs to the segment, which ends with it; then 100 x
	 * 10 ms of play */
	for (i = 0; i < 1000; i++)
		frames_push_ft(f, 10);
	frames_push_ft(f, 3000);
	for (i = 0; i < 100; i++)
		frames_push_ft(f, 10);
	o.warmup_s = 0;
	CHECK_INT(metrics_compute(f, &o, &seg, 1, NULL, &m), 0);
	CHECK_NEAR(m.v[M_STALLS], 1, 0);
	CHECK_NEAR(m.v[M_STALLS_PLAY], 0, 0);
	CHECK_NEAR(m.v[M_STALL_PLAY_S], 0, 0);
	CHECK_NEAR(m.v[M_LONGEST_PLAY_MS], 10, 0);
	CHECK_NEAR(m.v[M_RELOAD_S], 3.01, 1e-9);	/* the frame ending at 10.0 s too */
	CHECK_NEAR(m.v[M_WIN_PLAY_S], 10.99, 1e-9);
	CHECK_NEAR(m.v[M_RELOAD_N], 1, 0);
	/* a frame spanning a whole segment belongs to it */
	seg = (struct metrics_seg){ 11, 12 };
	CHECK_INT(metrics_compute(f, &o, &seg, 1, NULL, &m), 0);
	CHECK_NEAR(m.v[M_RELOAD_S], 3.0, 1e-9);
	CHECK_NEAR(m.v[M_STALLS_PLAY], 0, 0);
	/* play + reload = the window */
	CHECK_NEAR(m.v[M_RELOAD_S] + m.v[M_WIN_PLAY_S], m.v[M_SECONDS], 1e-9);
	frames_free(f);
}

static void test_play_unknown(void)
{
	struct frames *f = mk((double[]){ 10, 20 }, 2);
	struct metrics_opts o = METRICS_OPTS_INIT;
	struct metrics m;
	int i, found = 0;

	o.warmup_s = 0;
	CHECK_INT(metrics_compute(f, &o, NULL, 0, "no t0 in run.ini", &m), 0);
	for (i = M_STALLS_PLAY; i <= M_RELOAD_N; i++)
		CHECK(isnan(m.v[i]));
	CHECK_NEAR(m.v[M_FRAMES], 2, 0);
	for (i = 0; i < (int)m.nnotes; i++)
		found += strstr(m.notes[i], "no t0 in run.ini") != NULL;
	CHECK_INT(found, 1);
	frames_free(f);
}

static void test_names(void)
{
	CHECK_INT(metric_find("frames"), M_FRAMES);
	CHECK_INT(metric_find("low1_play"), M_LOW1_PLAY);
	CHECK_INT(metric_find("reload_n"), M_RELOAD_N);
	CHECK_INT(metric_find("nope"), -1);
	CHECK_STR(metric_descs[M_P999_MS].name, "p999_ms");
	CHECK_STR(metric_descs[M_OVER_1S].name, "over_1s");
}

/* The recorder's word on a run's frames goes before the metrics' notes,
 * and a full list drops its last note for it. */
static void test_note_first(void)
{
	struct metrics m = { 0 };

	metrics_note(&m, "second");
	metrics_note_first(&m, "first %d", 1);
	CHECK_INT(m.nnotes, 2);
	CHECK_STR(m.notes[0], "first 1");
	CHECK_STR(m.notes[1], "second");
	for (int i = 2; i < METRICS_MAX_NOTES; i++)
		metrics_note(&m, "n%d", i);
	CHECK_INT(m.nnotes, METRICS_MAX_NOTES);
	metrics_note_first(&m, "zeroth");
	CHECK_INT(m.nnotes, METRICS_MAX_NOTES);
	CHECK_STR(m.notes[0], "zeroth");
	CHECK_STR(m.notes[1], "first 1");
	CHECK_STR(m.notes[METRICS_MAX_NOTES - 1], "n14");
}

int main(void)
{
	T_RUN(test_zero_frames);
	T_RUN(test_note_first);
	T_RUN(test_one_frame);
	T_RUN(test_two_frames);
	T_RUN(test_all_stalls);
	T_RUN(test_threshold_exact);
	T_RUN(test_huge);
	T_RUN(test_warmup);
	T_RUN(test_stutter);
	T_RUN(test_play_segments);
	T_RUN(test_play_long_frame);
	T_RUN(test_play_unknown);
	T_RUN(test_names);
	return t_exit();
}
