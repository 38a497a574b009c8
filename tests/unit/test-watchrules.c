// SPDX-License-Identifier: MIT
/*
 * test-watchrules.c: the interference rules on event sequences: keys,
 * buttons, wheel, sticks, hats, mouse bumps against drags, and the summary.
 */
#include "core/watchrules.h"
#include "t.h"

#define EV_KEY 1
#define EV_REL 2
#define EV_ABS 3

static int feed(struct watch_input *d, double t, int type, int code, int value,
		struct watch_finding *f)
{
	enum watch_kind k;

	return watch_input_feed(d, t, (uint16_t)type, (uint16_t)code, value, f, &k);
}

static void test_keys(void)
{
	struct watch_input d;
	struct watch_finding f;

	watch_input_init(&d);
	CHECK_INT(feed(&d, 0.0, EV_KEY, 30, 1, &f), 1);	/* KEY_A press */
	CHECK_INT(f.mark, '!');
	CHECK_STR(f.what, "key press");
	CHECK_INT(feed(&d, 0.1, EV_KEY, 30, 2, &f), 0);	/* repeat */
	CHECK_INT(feed(&d, 0.2, EV_KEY, 30, 0, &f), 0);	/* release */
	CHECK_INT(feed(&d, 0.3, EV_KEY, 0x110, 1, &f), 1);	/* BTN_LEFT */
	CHECK_STR(f.what, "mouse button press");
	CHECK_INT(feed(&d, 0.4, EV_KEY, 0x130, 1, &f), 1);	/* BTN_SOUTH */
	CHECK_STR(f.what, "controller button press");
	CHECK_INT(feed(&d, 0.5, EV_REL, 8, -1, &f), 1);	/* REL_WHEEL */
	CHECK_STR(f.what, "wheel step");
	CHECK_INT(feed(&d, 0.5, EV_REL, 11, -120, &f), 0);	/* hi-res twin: not twice */
	CHECK_INT(feed(&d, 0.6, EV_ABS, 0x10, -1, &f), 1);	/* ABS_HAT0X */
	CHECK_INT(feed(&d, 0.7, EV_ABS, 0x10, 0, &f), 0);
}

static void test_stick(void)
{
	struct watch_input d;
	struct watch_finding f;

	watch_input_init(&d);
	watch_input_set_abs(&d, 0, -32768, 32767);	/* ABS_X */
	CHECK_INT(feed(&d, 0, EV_ABS, 0, 3000, &f), 0);	/* drift near rest */
	CHECK_INT(feed(&d, 1, EV_ABS, 0, 16000, &f), 0);	/* < a quarter of 65535 */
	CHECK_INT(feed(&d, 2, EV_ABS, 0, 17000, &f), 1);	/* >= 16383.75 */
	CHECK_STR(f.what, "stick moved off rest");
	CHECK_INT(feed(&d, 3, EV_ABS, 0, 30000, &f), 0);	/* same excursion */
	CHECK_INT(feed(&d, 4, EV_ABS, 0, 9000, &f), 0);	/* not yet within an eighth */
	CHECK_INT(feed(&d, 5, EV_ABS, 0, 17000, &f), 0);
	CHECK_INT(feed(&d, 6, EV_ABS, 0, 100, &f), 0);	/* back at rest: re-armed */
	CHECK_INT(feed(&d, 7, EV_ABS, 0, -20000, &f), 1);
	/* a trigger without a reported range: 0..255, rest at 0 */
	CHECK_INT(feed(&d, 8, EV_ABS, 5, 60, &f), 0);
	CHECK_INT(feed(&d, 9, EV_ABS, 5, 70, &f), 1);
	CHECK_STR(f.what, "trigger pressed");
}

static void test_mouse(void)
{
	struct watch_input d;
	struct watch_finding f;
	double t;
	int n = 0;

	/* a bump: 0.3 s of small motion, then quiet */
	watch_input_init(&d);
	for (t = 0; t < 0.3; t += 0.01)
		n += feed(&d, t, EV_REL, 0, 3, &f);
	CHECK_INT(n, 0);
	CHECK_INT(watch_input_tick(&d, 0.5, false, &f), 0);	/* not idle long enough */
	CHECK_INT(watch_input_tick(&d, 0.9, false, &f), 1);
	CHECK_INT(f.mark, '-');
	CHECK(strstr(f.what, "bump") != NULL);

	/* a 3 s drag with slow motion (2 counts every 10 ms: 600 counts) */
	watch_input_init(&d);
	n = 0;
	for (t = 10; t < 13; t += 0.01) {
		if (feed(&d, t, EV_REL, 1, -2, &f)) {
			n++;
			CHECK_INT(f.mark, '!');
			CHECK_NEAR(t, 12.0, 0.02);
		}
	}
	CHECK_INT(n, 1);	/* once per burst */
	CHECK_INT(watch_input_tick(&d, 14, false, &f), 0);	/* it counted: no bump */

	/* a fast flick: 1500 counts in 0.5 s counts before 2 s */
	watch_input_init(&d);
	n = 0;
	for (t = 0; t < 0.5; t += 0.01)
		n += feed(&d, t, EV_REL, 0, 40, &f);
	CHECK_INT(n, 1);
	CHECK(strstr(f.what, "1500 counts") != NULL);

	/* bumps spread over 10 s (gaps of 0.6 s) add up to 1500 counts */
	watch_input_init(&d);
	n = 0;
	for (t = 0; t < 9.5; t += 0.6) {
		n += feed(&d, t, EV_REL, 0, 100, &f);
		watch_input_tick(&d, t + 0.55, false, &f);
	}
	CHECK_INT(n, 1);
}

static void test_tally(void)
{
	struct watch_tally t;
	struct strbuf sb = STRBUF_INIT;

	watch_tally_init(&t);
	CHECK(!watch_tally_interfered(&t));
	watch_tally_summary(&t, 3, &sb);
	CHECK_STR(sb.buf, "none (3 input devices watched)");
	sb_reset(&sb);
	watch_tally_add(&t, WATCH_KEY, NULL);
	watch_tally_add(&t, WATCH_KEY, NULL);
	watch_tally_add(&t, WATCH_KEY, NULL);
	watch_tally_add(&t, WATCH_VT, "VT switch 1->2 at 85 s");
	watch_tally_add(&t, WATCH_LOGIN, "1 login: session 12 (sshd) at 40 s");
	CHECK(watch_tally_interfered(&t));
	watch_tally_summary(&t, 3, &sb);
	CHECK_STR(sb.buf, "3 key presses, VT switch 1->2 at 85 s, 1 login: session 12 (sshd) at 40 s");
	sb_release(&sb);
	watch_tally_release(&t);
}

static void test_scan(void)
{
	char what[128];
	double t = 0;

	/* lines as Xorg 21.1 and the kernel write them */
	CHECK_INT(watch_scan_xorg_line("[  4811.093] (II) config/udev: Adding input device "
				       "Logitech G502 (/dev/input/event5)", &t, what, sizeof(what)), 1);
	CHECK_NEAR(t, 4811.093, 1e-9);
	CHECK_STR(what, "Xorg: input device added: Logitech G502");
	CHECK_INT(watch_scan_xorg_line("[  4900.002] (II) AIGLX: Suspending AIGLX clients for VT switch",
				       &t, what, sizeof(what)), 1);
	CHECK_STR(what, "Xorg: VT switch");
	CHECK_INT(watch_scan_xorg_line("[    12.001] (II) LoadModule: \"glx\"", &t, what,
				       sizeof(what)), 0);
	CHECK_INT(watch_scan_xorg_line("no stamp", &t, what, sizeof(what)), -1);
	CHECK_INT(watch_scan_kernel_line("[ 5123.456789] usb 1-2: New USB device found, "
					 "idVendor=046d, idProduct=c08b, bcdDevice=27.03", &t, what,
					 sizeof(what)), 1);
	CHECK_NEAR(t, 5123.456789, 1e-9);
	CHECK_INT(watch_scan_kernel_line("6,1841,5200000123,-;usb 1-2: USB disconnect, device number 7",
					 &t, what, sizeof(what)), 1);
	CHECK_NEAR(t, 5200.000123, 1e-9);
	CHECK_STR(what, "kernel: USB device disconnected");
	CHECK_INT(watch_scan_kernel_line("[ 1.000000] EXT4-fs (vda): mounted", &t, what,
					 sizeof(what)), 0);
}

/* The shared kernel-log pieces the live watcher uses. */
static void test_kmsg(void)
{
	double t = 0;

	CHECK_STR(watch_kmsg_text("6,1841,5200000123,-;usb 1-2: USB disconnect", &t),
		  "usb 1-2: USB disconnect");
	CHECK_NEAR(t, 5200.000123, 1e-9);
	CHECK_STR(watch_kmsg_text("plain text; with a semicolon", &t), "plain text; with a semicolon");
	CHECK(isnan(t));
	CHECK_STR(watch_kmsg_text("6;no usec", NULL), "no usec");
	CHECK_INT(watch_kernel_usb("usb 1-2: New USB device found, idVendor=046d"),
		  WATCH_USB_CONNECTED);
	CHECK_INT(watch_kernel_usb("usb 1-2: USB disconnect, device number 7"),
		  WATCH_USB_DISCONNECTED);
	CHECK_INT(watch_kernel_usb("EXT4-fs (vda): mounted"), WATCH_USB_NONE);
	CHECK_INT(watch_scan_kernel_line("6;usb 1-2: USB disconnect", &t, (char[64]){ 0 }, 64), -1);
}

int main(void)
{
	T_RUN(test_scan);
	T_RUN(test_kmsg);
	T_RUN(test_keys);
	T_RUN(test_stick);
	T_RUN(test_mouse);
	T_RUN(test_tally);
	return t_exit();
}
