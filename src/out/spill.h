/* SPDX-License-Identifier: MIT */
/*
 * spill.h: the unlinked temporary files the readers of a long record spill
 * to (export's tracks, html's intervals, the stalls' items: a day's record
 * holds thousands), so that what they hold does not grow with the record.
 */
#ifndef SS_OUT_SPILL_H
#define SS_OUT_SPILL_H

/* An unlinked temporary file open for reading and writing (O_CLOEXEC): in
 * DIR when given and it takes one, else in $TMPDIR, else in /tmp; with
 * O_TMPFILE where the file system has it, else a name unlinked at once.
 * The descriptor (the caller closes it), or a negative errno. */
int spill_fd(const char *dir);

#endif
