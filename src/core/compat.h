/* SPDX-License-Identifier: MIT */
/*
 * compat.h: the numbers MangoHud and CapFrameX would print for the same
 * frames, so users can reconcile tools. Pure: no I/O.
 *
 * Input is a window's frame times in ms, in frame order. The exact formulas,
 * with the source files they were checked against, are in docs/METRICS.md
 * ("Compatibility: MangoHud and CapFrameX"). A value that cannot be computed
 * is NaN and WHY says why (a static string; NULL when every value is a
 * number).
 */
#ifndef SS_CORE_COMPAT_H
#define SS_CORE_COMPAT_H

#include <stddef.h>

#include "core/stats.h"

/* Which MangoHud's formulas: the 0.6.x summary, or fps_metrics.h (0.7+). */
enum compat_mangohud_style {
	COMPAT_MANGOHUD_06,	/* 0.6.x: means of the lowest per-frame fps */
	COMPAT_MANGOHUD_07,	/* 0.7 and later: order statistics of frame times */
};

struct compat_mangohud {
	double fps_0_1_min;	/* fps, "0.1% min" */
	double fps_1_min;	/* fps, "1% min" */
	double fps_97;		/* fps, "97%" */
	double fps_avg;		/* fps, "average" */
	const char *why;	/* why some value is NaN; NULL if none is */
};

struct compat_capframex {
	double p1;		/* fps, "P1": R-8 1st percentile of 1000/ft */
	double p0_1;		/* fps, "P0.1": R-8 0.1th percentile of 1000/ft */
	double low1_avg;	/* fps, "1% low average" */
	double low1_integral;	/* fps, "1% low integral" */
	const char *why;	/* why some value is NaN; NULL if none is */
};

/*
 * MangoHud's numbers for the N frame times FT_MS (ms) in STYLE.
 * Returns 0 and fills *ret, or -ENOMEM (*ret untouched). N == 0 or a frame
 * time that is not positive and finite gives NaN values with a reason.
 */
int compat_mangohud(const double *ft_ms, size_t n, enum compat_mangohud_style style,
		    struct compat_mangohud *ret);

/*
 * CapFrameX's numbers for the N frame times FT_MS (ms).
 * Returns 0 and fills *ret, or -ENOMEM (*ret untouched).
 */
int compat_capframex(const double *ft_ms, size_t n, struct compat_capframex *ret);

/*
 * Both: compat_mangohud() and compat_capframex() of the same frames, with
 * one sort of the frame times instead of two (report does this for every
 * window). Returns 0 and fills *ret_mh and *ret_cfx, or -ENOMEM (neither
 * touched).
 */
int compat_all(const double *ft_ms, size_t n, enum compat_mangohud_style style,
	       struct compat_mangohud *ret_mh, struct compat_capframex *ret_cfx);
/* The same on frame times read through FT_MS (a record's, kept packed:
 * frames_ft_in(), core/frames.h): the same values, to the bit. */
int compat_all_in(const struct stats_in *ft_ms, size_t n, enum compat_mangohud_style style,
		  struct compat_mangohud *ret_mh, struct compat_capframex *ret_cfx);

/*
 * The style matching a struct frames' format string: COMPAT_MANGOHUD_06 for
 * "mangohud-0.6*", COMPAT_MANGOHUD_07 for everything else (MangoHud 0.7+ and
 * non-MangoHud sources, whose users compare with a current MangoHud).
 */
enum compat_mangohud_style compat_mangohud_style_of(const char *format);

#endif
