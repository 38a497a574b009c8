/* SPDX-License-Identifier: MIT */
/*
 * hud.h: a HUD line file as a live frame source. A HUD (or the program
 * itself) appends one line per frame to a file; the recorder polls the file
 * once a sample and counts the complete lines that arrived since the last
 * poll, stamping them with the sample's time (alignment within one period).
 *
 * Assumes the writer only appends, except at its start, when it may truncate
 * the file or replace it (a new inode at the path). Both are followed: a
 * file that shrinks below what was counted, a new inode at the path, or a
 * changed first line (a rewrite that grew past the old size between two
 * polls) restarts counting at the file's beginning, so nothing is counted
 * twice. Lines present when the follower starts belong to an earlier run and
 * are not counted. A file that does not exist yet is waited for.
 */
#ifndef SS_FRAMES_HUD_H
#define SS_FRAMES_HUD_H

#include <stdint.h>

struct hud;

/* Starts following PATH (copied). The file need not exist yet. Returns 0 and
 * *ret (free with hud_free), or -ENOMEM. */
int hud_new(const char *path, struct hud **ret);
void hud_free(struct hud *h);	/* NULL-safe */

/* Counts the complete lines added since the last poll into *ret_lines,
 * reading 1 MiB at most (more waits for the next poll).
 * Returns 0, or a negative errno when the file exists but cannot be read
 * (the follower stays usable; a later poll tries again). A missing file is
 * not an error: no lines. */
int hud_poll(struct hud *h, uint64_t *ret_lines);

/* Totals since hud_new: lines counted, and how many times the file was
 * found truncated, replaced or rewritten (restarts). */
uint64_t hud_lines(const struct hud *h);
uint64_t hud_restarts(const struct hud *h);

#endif
