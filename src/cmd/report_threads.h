/* SPDX-License-Identifier: MIT */
/*
 * report_threads.h: `report --threads`: per-thread CPU over the window of a
 * run directory, in CPU milliseconds per frame, with the share of one CPU
 * and the CPU each thread ran on most ("client 8.7 ms/frame (cpu5)"). The
 * numbers come from the record's thread snapshots (core/threadcpu.h); the
 * window is the one report's metrics used (its first frame's start to its
 * last frame's present).
 *
 * Also here: the "recorder" object of report --json, the recorder's own
 * cost figures from a run directory's run.ini.
 */
#ifndef SS_CMD_REPORT_THREADS_H
#define SS_CMD_REPORT_THREADS_H

#include "cmd/report.h"
#include "out/json.h"

/* Prints a table per analysis A[0..N) that is a run directory (others get a
 * line saying why not) to stdout. Returns 0, or -1 after reporting an error
 * (a record that cannot be read). */
int report_threads_print(const struct analysis *as, size_t n);

/* Writes key "threads" into the open JSON object of A: an array of
 * { name, tid, ms_per_frame, busy_pct, cpu, cpu_pct }, or null with key
 * "threads_note" saying why. */
void report_threads_json(struct json *j, const struct analysis *a);

/* Writes key "recorder" into the open JSON object of A: the recorder_*
 * figures of its run.ini as numbers (null when '-' or absent), or null for
 * an input that is not a run directory. */
void report_recorder_json(struct json *j, const struct analysis *a);

#endif
