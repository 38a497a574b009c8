// SPDX-License-Identifier: MIT
/* watchrules.c: the interference rules of watchrules.h. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/logstamp.h"
#include "core/watchrules.h"

/* Key and button code ranges of the input ABI. */
#define BTN_MISC 0x100
#define BTN_MOUSE 0x110
#define BTN_JOYSTICK 0x120
#define BTN_DIGI 0x140
#define BTN_TOUCH 0x14a
#define BTN_WHEEL 0x150
#define KEY_OK 0x160
#define BTN_TRIGGER_HAPPY 0x2c0
/* Relative axes */
#define REL_X 0x00
#define REL_Y 0x01
#define REL_HWHEEL 0x06
#define REL_WHEEL 0x08
#define REL_WHEEL_HI_RES 0x0b
#define REL_HWHEEL_HI_RES 0x0c
/* Absolute axes */
#define ABS_X 0x00
#define ABS_RZ 0x05
#define ABS_THROTTLE 0x06
#define ABS_BRAKE 0x0a
#define ABS_HAT0X 0x10
#define ABS_HAT3Y 0x17

void watch_input_init(struct watch_input *d)
{
	memset(d, 0, sizeof(*d));
}

void watch_input_set_abs(struct watch_input *d, unsigned code, int32_t min, int32_t max)
{
	if (code >= WATCH_ABS_CNT || max <= min)
		return;
	d->abs_known[code] = true;
	d->abs_min[code] = min;
	d->abs_max[code] = max;
}

static int finding(struct watch_finding *ret, char mark, const char *what)
{
	ret->mark = mark;
	snprintf(ret->what, sizeof(ret->what), "%s", what);
	return 1;
}

/* A button's family, by the ABI's ranges; never its code. */
static const char *button_name(uint16_t code)
{
	if (code >= BTN_MOUSE && code < BTN_JOYSTICK)
		return "mouse button press";
	if ((code >= BTN_JOYSTICK && code < BTN_DIGI) || code >= BTN_TRIGGER_HAPPY)
		return "controller button press";
	if (code >= BTN_DIGI && code < BTN_WHEEL)
		return "touch or pen press";
	return "button press";
}

static bool is_button(uint16_t code)
{
	return (code >= BTN_MISC && code < KEY_OK) || code >= BTN_TRIGGER_HAPPY;
}

int watch_input_tick(struct watch_input *d, double now, bool force, struct watch_finding *ret);

/* The motion counted in the last WATCH_MOTION_WINDOW_S before T. */
static uint64_t window_counts(const struct watch_input *d, double t)
{
	uint64_t sum = 0;
	int i;

	for (i = 0; i < WATCH_MOTION_SLOTS; i++)
		if (d->slot_counts[i] && t - d->slot_t[i] < WATCH_MOTION_WINDOW_S)
			sum += d->slot_counts[i];
	return sum;
}

static void add_motion(struct watch_input *d, double t, uint32_t counts)
{
	double start = floor(t * 10.0) / 10.0;
	int i = (int)((long long)floor(t * 10.0) % WATCH_MOTION_SLOTS);

	if (i < 0)
		i += WATCH_MOTION_SLOTS;
	if (d->slot_t[i] != start) {
		d->slot_t[i] = start;
		d->slot_counts[i] = 0;
	}
	d->slot_counts[i] += counts;
}

static int motion(struct watch_input *d, double t, int32_t value, struct watch_finding *ret)
{
	uint32_t counts = (uint32_t)(value < 0 ? -(int64_t)value : value);
	char what[120];

	int bump = 0;

	if (d->in_burst && t - d->last_motion >= WATCH_BURST_GAP_S) {
		/* the previous burst ended unseen by a tick (events read in one
		 * batch): say so now, and start afresh */
		bump = watch_input_tick(d, t, true, ret);
	}
	if (!d->in_burst) {
		d->in_burst = true;
		d->burst_counted = false;
		d->burst_start = t;
		d->burst_counts = 0;
	}
	d->last_motion = t;
	d->burst_counts += counts;
	add_motion(d, t, counts);
	if (bump || d->burst_counted)
		return bump;
	if (t - d->burst_start >= WATCH_BURST_S) {
		d->burst_counted = true;
		snprintf(what, sizeof(what), "mouse motion for %.1f s", t - d->burst_start);
		return finding(ret, '!', what);
	}
	if (window_counts(d, t) >= WATCH_MOTION_COUNTS) {
		d->burst_counted = true;
		memset(d->slot_counts, 0, sizeof(d->slot_counts));
		snprintf(what, sizeof(what), "mouse motion of %d counts within %.0f s",
			 WATCH_MOTION_COUNTS, WATCH_MOTION_WINDOW_S);
		return finding(ret, '!', what);
	}
	return 0;
}

/* An axis without a reported range: hats are -1..1, triggers and pedals
 * 0..255, sticks -32768..32767 (the ranges of the common gamepad drivers). */
static void default_range(unsigned code, int32_t *min, int32_t *max)
{
	if (code >= ABS_HAT0X && code <= ABS_HAT3Y) {
		*min = -1, *max = 1;
	} else if (code == 0x02 || code == ABS_RZ || (code >= ABS_THROTTLE && code <= ABS_BRAKE)) {
		*min = 0, *max = 255;
	} else {
		*min = -32768, *max = 32767;
	}
}

static int absolute(struct watch_input *d, uint16_t code, int32_t value,
		    struct watch_finding *ret)
{
	int32_t min, max;
	double rest, range, off;

	if (code >= ABS_HAT0X && code <= ABS_HAT3Y)
		return value ? finding(ret, '!', "hat (d-pad) press") : 0;
	if (code >= WATCH_ABS_CNT || code > ABS_BRAKE || d->touch)
		return 0;	/* touch, pressure, multitouch, misc: not a stick */
	if (d->abs_known[code]) {
		min = d->abs_min[code];
		max = d->abs_max[code];
	} else {
		default_range(code, &min, &max);
	}
	range = (double)max - (double)min;
	rest = min < 0 ? ((double)min + (double)max) / 2.0 : (double)min;
	off = fabs((double)value - rest);
	if (d->abs_out[code]) {
		if (off < range / 8.0)
			d->abs_out[code] = false;
		return 0;
	}
	if (off >= range / 4.0) {
		d->abs_out[code] = true;
		return finding(ret, '!', min < 0 ? "stick moved off rest" : "trigger pressed");
	}
	return 0;
}

int watch_input_feed(struct watch_input *d, double t, uint16_t type, uint16_t code,
		     int32_t value, struct watch_finding *ret, enum watch_kind *ret_kind)
{
	int r = 0;
	enum watch_kind kind = WATCH_KEY;

	switch (type) {
	case WATCH_EV_KEY:
		if (value != 1)
			return 0;	/* 0 release, 2 autorepeat */
		if (code == BTN_TOUCH)
			d->touch = true;
		if (is_button(code)) {
			kind = WATCH_BUTTON;
			r = finding(ret, '!', button_name(code));
		} else {
			kind = WATCH_KEY;
			r = finding(ret, '!', "key press");
		}
		break;
	case WATCH_EV_REL:
		if (code == REL_X || code == REL_Y) {
			kind = WATCH_MOTION;
			r = motion(d, t, value, ret);
		} else if ((code == REL_WHEEL || code == REL_HWHEEL) && value) {
			kind = WATCH_WHEEL;
			r = finding(ret, '!', "wheel step");
		}
		/* hi-res wheel events duplicate REL_WHEEL: not counted twice */
		break;
	case WATCH_EV_ABS:
		kind = code >= ABS_HAT0X && code <= ABS_HAT3Y ? WATCH_HAT : WATCH_STICK;
		r = absolute(d, code, value, ret);
		break;
	}
	if (r && ret_kind)
		*ret_kind = kind;
	return r;
}

int watch_input_tick(struct watch_input *d, double now, bool force, struct watch_finding *ret)
{
	char what[120];

	if (!d->in_burst || (!force && now - d->last_motion < WATCH_BURST_GAP_S))
		return 0;
	d->in_burst = false;
	if (d->burst_counted)
		return 0;
	snprintf(what, sizeof(what), "mouse bump: %llu counts over %.2f s",
		 (unsigned long long)d->burst_counts, d->last_motion - d->burst_start);
	return finding(ret, '-', what);
}

void watch_tally_init(struct watch_tally *t)
{
	memset(t, 0, sizeof(*t));
	sb_init(&t->details);
}

void watch_tally_release(struct watch_tally *t)
{
	sb_release(&t->details);
}

int watch_tally_add(struct watch_tally *t, enum watch_kind kind, const char *detail)
{
	if (kind >= WATCH_NKINDS)
		return -EINVAL;
	t->count[kind]++;
	if (!detail)
		return 0;
	/* keep the summary one readable line: the first few details */
	if (t->details.len > 300)
		return 0;
	if (t->details.len && sb_adds(&t->details, ", ") < 0)
		return -ENOMEM;
	return sb_adds(&t->details, detail);
}

bool watch_tally_interfered(const struct watch_tally *t)
{
	int k;

	for (k = 0; k < WATCH_NKINDS; k++)
		if (t->count[k])
			return true;
	return false;
}

int watch_tally_summary(const struct watch_tally *t, unsigned ndevices, struct strbuf *ret)
{
	static const char *const names[][2] = {
		[WATCH_KEY] = { "key press", "key presses" },
		[WATCH_BUTTON] = { "button press", "button presses" },
		[WATCH_WHEEL] = { "wheel step", "wheel steps" },
		[WATCH_STICK] = { "stick/trigger excursion", "stick/trigger excursions" },
		[WATCH_HAT] = { "hat press", "hat presses" },
		[WATCH_MOTION] = { "mouse motion", "mouse motions" },
	};
	size_t start = ret->len;
	int k, r = 0;

	if (!watch_tally_interfered(t))
		return sb_addf(ret, "none (%u input device%s watched)", ndevices,
			       ndevices == 1 ? "" : "s");
	for (k = WATCH_KEY; k <= WATCH_MOTION && r == 0; k++)
		if (t->count[k])
			r = sb_addf(ret, "%s%u %s", ret->len > start ? ", " : "", t->count[k],
				    names[k][t->count[k] != 1]);
	if (r == 0 && t->details.len)
		r = sb_addf(ret, "%s%s", ret->len > start ? ", " : "", t->details.buf);
	return r;
}

/* "[ 1234.567] rest": the stamp in seconds and where the text starts. */
static int bracket_stamp(const char *line, double *t, const char **text)
{
	size_t off;

	if (!logstamp_parse(line, strlen(line), t, &off))
		return -1;
	*text = line + off;
	while (**text == ' ')
		(*text)++;
	return 0;
}

int watch_scan_xorg_line(const char *line, double *ret_t, char *what, size_t len)
{
	const char *text, *p;
	double t;

	if (bracket_stamp(line, &t, &text) < 0)
		return -1;
	if (strstr(text, "VT switch") || strstr(text, "xf86VTSwitch")) {
		snprintf(what, len, "Xorg: VT switch");
	} else if ((p = strstr(text, "Adding input device "))) {
		size_t n;

		p += strlen("Adding input device ");
		n = strcspn(p, "(\n");
		while (n && p[n - 1] == ' ')	/* the blank before "(/dev/input/..." */
			n--;
		snprintf(what, len, "Xorg: input device added: %.*s", (int)n, p);
	} else {
		return 0;
	}
	*ret_t = t;
	return 1;
}

const char *watch_kmsg_text(const char *line, double *ret_t)
{
	const char *semi = strchr(line, ';');

	if (ret_t)
		*ret_t = NAN;
	if (semi && strspn(line, "0123456789,-c") == (size_t)(semi - line)) {
		/* /dev/kmsg: prio,seq,usec,flags;text */
		const char *c1 = strchr(line, ','), *c2 = c1 ? strchr(c1 + 1, ',') : NULL;

		if (c2 && c2 < semi && ret_t)
			*ret_t = strtod(c2 + 1, NULL) / 1e6;
		return semi + 1;
	}
	return line;
}

enum watch_usb watch_kernel_usb(const char *text)
{
	if (strstr(text, "New USB device found"))
		return WATCH_USB_CONNECTED;
	if (strstr(text, "USB disconnect"))
		return WATCH_USB_DISCONNECTED;
	return WATCH_USB_NONE;
}

int watch_scan_kernel_line(const char *line, double *ret_t, char *what, size_t len)
{
	const char *text = watch_kmsg_text(line, ret_t);
	enum watch_usb u;
	double t = *ret_t;

	if (text == line && bracket_stamp(line, &t, &text) < 0)
		return -1;
	if (text != line && isnan(t))
		return -1;	/* a /dev/kmsg line without its usec */
	u = watch_kernel_usb(text);
	if (u == WATCH_USB_NONE)
		return 0;
	snprintf(what, len, "kernel: USB device %s",
		 u == WATCH_USB_CONNECTED ? "connected" : "disconnected");
	*ret_t = t;
	return 1;
}
