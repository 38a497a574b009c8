/* SPDX-License-Identifier: MIT */
/*
 * frames.h: a run's frames, as every frame source hands them to the analysis.
 *
 * Frame i ends at t_s[i] (its present, in seconds on the source's own clock:
 * since t0 for a run directory, since the first frame's start for a frame
 * log) and lasted ft_ms[i] milliseconds, so it started at
 * t_s[i] - ft_ms[i] / 1000. t_s never decreases. For a log that holds only
 * frame times, t_s is their running sum (the first frame starts at 0).
 *
 * Ownership: the struct owns its arrays; frames_free() frees them and the
 * struct (NULL-safe).
 */
#ifndef SS_CORE_FRAMES_H
#define SS_CORE_FRAMES_H

#include <stddef.h>
#include <stdint.h>

struct frames {
	size_t n;
	size_t alloc;
	double *ft_ms;	/* frame time, ms */
	double *t_s;	/* end of the frame, s */
	uint32_t *tid;	/* presenting thread, or NULL when the source does not say */
	char format[48];	/* what the source was, e.g. "mangohud-0.6.8", "presentmon-v2" */
};

/* A new empty set; NULL on ENOMEM. */
struct frames *frames_new(void);
void frames_free(struct frames *f);
/* Appends one frame ending at T_S that lasted FT_MS; 0 or -ENOMEM. */
int frames_push(struct frames *f, double t_s, double ft_ms);
/* Appends a frame time only; its end is the previous end plus FT_MS. */
int frames_push_ft(struct frames *f, double ft_ms);
/* Room for N frames in all (a reader that knows its count: no doubling's
 * slack, a day of presents is 41 MB rather than up to 67); 0 or -ENOMEM. */
int frames_reserve(struct frames *f, size_t n);

#endif
