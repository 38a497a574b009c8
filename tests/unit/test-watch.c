// SPDX-License-Identifier: MIT
/*
 * test-watch.c: the interference detector's engine (linux/watch.h) on
 * injected sources, as its header allows: an input "device" that is a FIFO
 * fed real struct input_event records (the 64-bit layout a keyboard and a
 * mouse write), a VT file, an empty sessions directory, a kernel log that
 * is not there, /proc rules off. A key press counts ('!', the run is
 * interfered, the summary says so, no key code written); a VT switch
 * counts; a short mouse bump does not ('-'); a quiet run is not
 * interfered and says what was watched.
 */
#include "t.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/input.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "linux/watch.h"

static char dir[] = "/tmp/ss-test-watch-XXXXXX";

static const char *in_dir(const char *name)
{
	static char p[8][4200];
	static int k;

	k = (k + 1) % 8;
	snprintf(p[k], sizeof(p[k]), "%s/%s", dir, name);
	return p[k];
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
		perror(path);
		exit(1);
	}
}

static void ev(int fd, double t, int type, int code, int value)
{
	struct input_event e;

	memset(&e, 0, sizeof(e));
	e.input_event_sec = (long)t;
	e.input_event_usec = (long)((t - (long)t) * 1e6);
	e.type = (unsigned short)type;
	e.code = (unsigned short)code;
	e.value = value;
	if (write(fd, &e, sizeof(e)) != (ssize_t)sizeof(e))
		T_FAIL("short write of an input event");
}

static void pause_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static char *slurp(const char *path)
{
	static char buf[65536];
	FILE *f = fopen(path, "r");
	size_t n = 0;

	if (f) {
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
	}
	buf[n] = 0;
	return buf;
}

/* Starts a watch on the injected sources, logging to LOG. */
static struct watch *start(const char *log)
{
	struct watch_opts o = {
		.input_dir = in_dir("input"), .vt_file = in_dir("vt"),
		.sessions_dir = in_dir("sessions"), .kmsg = in_dir("no-kmsg"),
		.log_path = log, .no_procs = true,
	};
	struct strbuf err = STRBUF_INIT;
	struct watch *w = NULL;

	CHECK_INT(watch_start(&o, &w, &err), 0);
	if (!w)
		T_FAIL("watch_start: %s", err.buf);
	sb_release(&err);
	pause_ms(150);	/* its thread opened the sources */
	return w;
}

/* The input FIFO's write end, once the watcher holds its read end (an open
 * for writing fails, ENXIO, until then: a loaded machine may take a while
 * to start the thread). */
static int fifo_writer(void)
{
	int fd = -1;

	for (int i = 0; i < 500 && fd < 0; i++) {
		fd = open(in_dir("input/event0"), O_WRONLY | O_NONBLOCK);
		if (fd < 0 && errno == ENXIO)
			pause_ms(10);
		else
			break;
	}
	pause_ms(50);	/* and its other sources, opened beside it */
	if (fd < 0)
		T_FAIL("cannot open the input FIFO: %s", strerror(errno));
	return fd;
}

static void test_key_and_vt(void)
{
	struct watch_result r = { 0 };
	struct watch *w = start(in_dir("key.log"));
	const char *log;
	int fd;

	if (!w)
		return;
	fd = fifo_writer();
	if (fd >= 0) {
		ev(fd, 1000.0, EV_KEY, KEY_Q, 1);	/* press, a repeat, release */
		ev(fd, 1000.0, EV_SYN, SYN_REPORT, 0);
		ev(fd, 1000.2, EV_KEY, KEY_Q, 2);
		ev(fd, 1000.3, EV_KEY, KEY_Q, 0);
		ev(fd, 1000.3, EV_SYN, SYN_REPORT, 0);
	}
	put(in_dir("vt"), "tty3\n");
	pause_ms(400);
	CHECK_INT(watch_stop(w, &r), 0);
	if (fd >= 0)
		close(fd);
	log = slurp(in_dir("key.log"));
	CHECK(r.interfered);
	CHECK_INT(r.counted, 2);
	CHECK_INT(r.ndevices, 1);
	CHECK(r.summary && strstr(r.summary, "key press") != NULL);
	CHECK(strstr(log, "key press on 'event0'") != NULL);
	CHECK(strstr(log, "\n! ") != NULL);
	CHECK(strstr(log, "VT switch 1->3") != NULL);
	CHECK(strstr(log, "KEY_Q") == NULL && strstr(log, "code 16") == NULL);
	CHECK(strstr(log, "summary: interfered=1") != NULL);
	free(r.summary);
	put(in_dir("vt"), "tty1\n");
}

static void test_bump_and_quiet(void)
{
	struct watch_result r = { 0 };
	struct watch *w = start(in_dir("bump.log"));
	const char *log;
	int fd;

	if (!w)
		return;
	fd = fifo_writer();
	for (int i = 0; fd >= 0 && i < 20; i++) {	/* 0.2 s of small motion */
		ev(fd, 2000.0 + i * 0.01, EV_REL, REL_X, 2);
		ev(fd, 2000.0 + i * 0.01, EV_SYN, SYN_REPORT, 0);
	}
	pause_ms(300);
	CHECK_INT(watch_stop(w, &r), 0);
	if (fd >= 0)
		close(fd);
	log = slurp(in_dir("bump.log"));
	CHECK(!r.interfered);
	CHECK_INT(r.counted, 0);
	CHECK(strstr(log, "\n- ") != NULL && strstr(log, "mouse bump") != NULL);
	CHECK(strstr(log, "\n! ") == NULL);
	CHECK(strstr(log, "summary: interfered=0") != NULL);
	/* the kernel log that is not there: said, not fatal */
	CHECK(strstr(log, "USB devices not watched") != NULL);
	free(r.summary);

	/* nothing at all */
	memset(&r, 0, sizeof(r));
	w = start(in_dir("quiet.log"));
	if (!w)
		return;
	fd = fifo_writer();	/* the watcher is up: it holds the FIFO */
	if (fd >= 0)
		close(fd);
	CHECK_INT(watch_stop(w, &r), 0);
	CHECK(!r.interfered);
	CHECK_INT(r.counted, 0);
	CHECK(strstr(slurp(in_dir("quiet.log")), "watching input device 'event0'") != NULL);
	free(r.summary);
}

int main(void)
{
	t_tmpdir(dir);
	if (mkdir(in_dir("input"), 0755) < 0 || mkfifo(in_dir("input/event0"), 0600) < 0 ||
	    mkdir(in_dir("sessions"), 0755) < 0) {
		perror(dir);
		return 1;
	}
	put(in_dir("vt"), "tty1\n");
	T_RUN(test_key_and_vt);
	T_RUN(test_bump_and_quiet);
	t_rmtree(dir);
	return t_exit();
}
