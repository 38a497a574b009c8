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
 * The result is a struct frames (core/frames.h) with ->format set to one of
 * "mangohud-0.6.8" (integer us frame times, 0.6.x up to 0.6.8),
 * "mangohud-0.6.9" (float ms, 0.6.9 .. 0.6.x, no version line),
 * "mangohud-0.7" (float ms with a v1/version preamble: 0.7 and later; the
 * exact version string from the log when it says one, e.g. "mangohud-0.7.2"),
 * "presentmon-v1", "presentmon-v2", "presentmon" (current), "plain".
 * t_s is the end of each frame in seconds since the first frame's start (see
 * frames.h); for MangoHud it comes from elapsed when elapsed is present and
 * consistent, else from the running sum of frame times (a note says which).
 *
 * Assumes logs fit in memory (a one-hour 144 fps log is ~30 MB of CSV).
 * The parser makes no allocation per line.
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
 * Reads the file at PATH and parses it as framelog_parse() does (NAME is the
 * path). Returns as framelog_parse(), plus the negative errno of a failed
 * open or read, with "'PATH': <strerror>" in MSG.
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
