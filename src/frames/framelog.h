/* SPDX-License-Identifier: MIT */
/*
 * framelog.h: readers for frame logs written by other tools, for `report`.
 *
 * Formats (auto-detected from the first lines, or forced):
 *   MangoHud CSV, every version 0.6.x to 0.8.x: optional "v1" / version /
 *     "---SYSTEM INFO---" lines, the "os,cpu,gpu,..." system line and its
 *     values line, then the frame header ("fps,frametime,...,elapsed,...").
 *     frametime is integer microseconds before 0.6.9 and float milliseconds
 *     from 0.6.9 on; elapsed is ns since logging started.
 *   PresentMon CSV: v1 (msBetweenPresents), v2 (FrameTime), current
 *     (MsBetweenPresents).
 *   plain: one frame time in ms a line; '#' starts a comment; blank lines
 *     are skipped.
 *
 * The result is a struct frames (core/frames.h) with ->format set to:
 *   "mangohud-X.Y.Z"  the version a log_versioning line names (e.g.
 *                     "mangohud-0.8.2"); frametime in us before 0.6.9;
 *   "mangohud-0.6.8"  no version line, frametime in whole us (0.6.8 and
 *                     before; a note says the version was assumed);
 *   "mangohud-0.6.9"  no version line, float ms, 0.6.x's 12 columns;
 *   "mangohud-0.7"    no version line, float ms, the later columns;
 *   "presentmon-v1" (msBetweenPresents), "presentmon-v2" (FrameTime),
 *   "presentmon" (MsBetweenPresents, PresentMon 2.x default), "plain".
 * compat_mangohud_style_of() (core/compat.h) maps these to MangoHud's
 * formulas. ft_ms is always in ms. t_s: MangoHud's elapsed column (s since
 * MangoHud started logging) when present and never decreasing, else the
 * running sum of frame times from 0 (PresentMon and plain logs always).
 * A frame time of 0 is left out (noted); tid stays NULL.
 *
 * A PresentMon log may mix swap chains: the one with the most rows is kept
 * (noted). docs/METRICS.md ("Inputs") has the details.
 *
 * Speed: one pass, no allocation per line; framelog_read reads the file in
 * 256 KB blocks as the parse goes (a PresentMon log, read twice, is mapped)
 * and drops what it has parsed, so memory is about the frames' arrays (16
 * bytes a frame) whatever the file's size.
 */
#ifndef SS_FRAMES_FRAMELOG_H
#define SS_FRAMES_FRAMELOG_H

#include <stddef.h>

#include "core/frames.h"
#include "core/strbuf.h"

enum framelog_format {
	FRAMELOG_AUTO,		/* detect from the content */
	FRAMELOG_MANGOHUD,
	FRAMELOG_PRESENTMON,
	FRAMELOG_PLAIN,
};

/*
 * Parses the frame log in BUF (LEN bytes, need not be NUL-terminated); NAME
 * is what messages call it (the path). FMT forces a format or asks to detect
 * it (FRAMELOG_AUTO).
 *
 * Returns 0 and a new struct frames in *ret (the caller frees it with
 * frames_free()), or a negative errno: -EINVAL for bad input, -ENOMEM.
 *
 * MSG (may be NULL) is the one channel for text:
 *   on failure, the error is appended as one line without a newline, e.g.
 *     'x.csv' line 7: expected a frame time in ms, got 'abc'
 *   on success, zero or more notes are appended, each a line ending in '\n',
 *     e.g. "'x.csv': mangohud version assumed 0.6.8 from integer frametime\n".
 * A caller wanting a list of notes splits MSG at '\n'.
 */
int framelog_parse(const char *buf, size_t len, const char *name, enum framelog_format fmt,
		   struct frames **ret, struct strbuf *msg);

/*
 * Reads the file at PATH ("-": standard input) and parses it as
 * framelog_parse() does (NAME is the path). Returns as framelog_parse(),
 * plus the negative errno of a failed open or read, with
 * "'PATH': <strerror>" in MSG. Only the size at open is read (appending,
 * as a running MangoHud does, is fine); a file that gets shorter while it
 * is read ends where it ends (a mapped PresentMon log must not be
 * truncated).
 */
int framelog_read(const char *path, enum framelog_format fmt, struct frames **ret,
		  struct strbuf *msg);

/*
 * Parses a --format value: "auto", "mangohud", "presentmon", "plain".
 * Returns 0 and writes *ret, or -EINVAL (nothing written).
 */
int framelog_format_parse(const char *s, enum framelog_format *ret);

/* The name of FMT as framelog_format_parse() accepts it (static string). */
const char *framelog_format_name(enum framelog_format fmt);

#endif
