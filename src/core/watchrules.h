/* SPDX-License-Identifier: MIT */
/*
 * watchrules.h: what counts as interference, decided on events alone (pure;
 * src/linux/watch.c feeds it from /dev/input, tty0, logind and /proc).
 *
 * The rules (docs/WATCH.md says why each is what it is):
 *  - a key press counts; repeats and releases do not; the key code is never
 *    kept or written anywhere
 *  - a mouse, controller or other button press counts; a wheel step counts
 *  - a stick or trigger leaving rest by a quarter of its range counts, once
 *    per excursion (it re-arms when back within an eighth); any hat value
 *    other than 0 counts
 *  - mouse motion counts only when deliberate: one burst (motion with gaps
 *    under 0.5 s) lasting 2 s or more, or 1500 counts (|dx| + |dy|) within
 *    10 s; motion that ends before either is a bump, reported as a "-" line
 *    that does not count
 *
 * Event codes are the kernel's input ABI (linux/input-event-codes.h), as
 * numbers here so the rules build without kernel headers.
 */
#ifndef SS_CORE_WATCHRULES_H
#define SS_CORE_WATCHRULES_H

#include <stdbool.h>
#include <stdint.h>

#include "core/strbuf.h"

#define WATCH_EV_SYN 0x00
#define WATCH_EV_KEY 0x01
#define WATCH_EV_REL 0x02
#define WATCH_EV_ABS 0x03
#define WATCH_ABS_CNT 0x40
#define WATCH_BURST_GAP_S 0.5
#define WATCH_BURST_S 2.0
#define WATCH_MOTION_COUNTS 1500
#define WATCH_MOTION_WINDOW_S 10.0
#define WATCH_MOTION_SLOTS 100	/* 0.1 s each over the window */

/* A finding: '!' counts as interference, '-' is noted and does not count,
 * 'i' is information. what is a short phrase with no key code in it. */
struct watch_finding {
	char mark;
	char what[120];
};

enum watch_kind {
	WATCH_KEY,		/* a key press */
	WATCH_BUTTON,		/* a mouse, controller or other button */
	WATCH_WHEEL,		/* a wheel step */
	WATCH_STICK,		/* a stick or trigger excursion */
	WATCH_HAT,		/* a hat (d-pad) value */
	WATCH_MOTION,		/* deliberate mouse motion */
	WATCH_DEVICE,		/* an input or USB device came or went */
	WATCH_VT,		/* a VT switch */
	WATCH_LOGIN,		/* a new login session */
	WATCH_PROCESS,		/* a foreign process (new in a session, or busy) */
	WATCH_NKINDS
};

/* One input device's classifier. Plain data: zero it, then watch_input_init. */
struct watch_input {
	bool abs_known[WATCH_ABS_CNT];
	int32_t abs_min[WATCH_ABS_CNT], abs_max[WATCH_ABS_CNT];
	bool abs_out[WATCH_ABS_CNT];	/* in an excursion */
	bool touch;			/* a touchpad or screen: absolute X/Y is a finger, not a stick */
	/* mouse motion */
	bool in_burst, burst_counted;
	double burst_start, last_motion;
	uint64_t burst_counts;
	double slot_t[WATCH_MOTION_SLOTS];	/* start of the 0.1 s slot each holds */
	uint32_t slot_counts[WATCH_MOTION_SLOTS];
};

void watch_input_init(struct watch_input *d);
/* The range of absolute axis CODE, when the device reports it. Axes without
 * a known range use the usual gamepad ranges (docs/WATCH.md). */
void watch_input_set_abs(struct watch_input *d, unsigned code, int32_t min, int32_t max);

/*
 * Feeds one event at time T (seconds, any monotonic origin). Returns 1 and
 * fills *ret when the event makes a finding, else 0. Motion after a gap
 * reports the bump that ended before it (that event itself cannot count).
 */
int watch_input_feed(struct watch_input *d, double t, uint16_t type, uint16_t code,
		     int32_t value, struct watch_finding *ret, enum watch_kind *ret_kind);

/* Time passes with no event: ends a motion burst idle for WATCH_BURST_GAP_S
 * (a bump unless it counted). Call it at least every 0.5 s and at the end
 * (with force). Returns 1 and fills *ret for a bump. */
int watch_input_tick(struct watch_input *d, double now, bool force, struct watch_finding *ret);

/* Counted findings by kind, and the summary run.ini keeps. */
struct watch_tally {
	unsigned count[WATCH_NKINDS];
	unsigned ignored;	/* '-' lines */
	struct strbuf details;	/* "VT switch 1->2 at 85 s; login: session 12 (sshd) at 40 s" */
};

void watch_tally_init(struct watch_tally *t);
void watch_tally_release(struct watch_tally *t);
/* Counts one '!' finding of KIND; DETAIL (may be NULL) is kept for the
 * summary (VT switches, logins, processes, devices). Returns 0 or -ENOMEM. */
int watch_tally_add(struct watch_tally *t, enum watch_kind kind, const char *detail);
bool watch_tally_interfered(const struct watch_tally *t);
/* The one-line summary: "none (N input devices watched)" or
 * "3 key presses, 1 mouse motion, VT switch 1->2 at 85 s". */
int watch_tally_summary(const struct watch_tally *t, unsigned ndevices, struct strbuf *ret);

/*
 * Saved logs, for `watch --scan`: one line of an Xorg log ("[  1234.567]
 * ...", seconds on CLOCK_MONOTONIC) or of the kernel log (dmesg's
 * "[ 1234.567890] ..." or /dev/kmsg's "prio,seq,usec,flags;..."). Returns 1
 * when the line shows interference (a VT switch, an input device added, a
 * USB device connected or disconnected) with its time in *ret_t and a phrase
 * in WHAT; 0 when it does not; -1 when it has no time stamp.
 */
int watch_scan_xorg_line(const char *line, double *ret_t, char *what, size_t len);
int watch_scan_kernel_line(const char *line, double *ret_t, char *what, size_t len);

/*
 * The kernel log's rules, which the live watcher (linux/watch.c, reading
 * /dev/kmsg) and --scan share: the message of LINE, after /dev/kmsg's
 * "prio,seq,usec,flags;" when it has one (its usec, in seconds, into
 * *RET_T when RET_T is not NULL; NaN when it has none), else LINE itself;
 * and what a message says of a USB device.
 */
enum watch_usb { WATCH_USB_NONE, WATCH_USB_CONNECTED, WATCH_USB_DISCONNECTED };
const char *watch_kmsg_text(const char *line, double *ret_t);
enum watch_usb watch_kernel_usb(const char *text);

#endif
