// SPDX-License-Identifier: MIT
/*
 * ss-markers: a program with a known shape for the recorder's tests and
 * benchmarks. It marks frames with stallscope_frame() (include/stallscope.h)
 * at a set rate, from its main thread or from a thread named "render", and
 * runs a known thread layout beside it: N threads named busyN that spin and
 * M threads named idleN that sleep. Optionally it also writes one line per
 * frame to a HUD file (truncated at start), and can stop writing it early to
 * play a frame source that stops. With --handoff S the render thread ends
 * after S seconds and a new one, "render2", marks the rest (a presenting
 * thread that changes mid-run).
 *
 * At exit it prints "ss-markers: frames=F pushed=P" on stdout: F frames
 * marked, P of them stamped into a recorder's ring (0 without a recorder).
 * Assumes nothing but POSIX threads and CLOCK_MONOTONIC.
 */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "stallscope.h"

static struct {
	double fps;
	double seconds;
	long frames;		/* exact count; 0: as many as fit in seconds */
	int busy, idle;
	int render_thread;
	const char *hud;
	double hud_stop_s;	/* stop writing the HUD file after this; < 0 never */
	double handoff_s;	/* --render-thread: hand over to render2 after this; 0 never */
	int exit_code;
} opt = {
	.fps = 60,
	.seconds = 2,
	.hud_stop_s = -1,
};

static atomic_int stop;
static long marked, pushed;

static void on_signal(int sig)
{
	(void)sig;
	atomic_store(&stop, 1);
}

static void *busy_main(void *arg)
{
	volatile unsigned long x = 0;

	while (!atomic_load_explicit(&stop, memory_order_relaxed))
		for (int i = 0; i < 10000; i++)
			x += (unsigned long)i * 2654435761u;
	return arg;
}

static void *idle_main(void *arg)
{
	struct timespec ts = { 0, 50 * 1000 * 1000 };

	while (!atomic_load(&stop))
		nanosleep(&ts, NULL);
	return arg;
}

static void ts_add_ns(struct timespec *t, uint64_t ns)
{
	ns += (uint64_t)t->tv_nsec;
	t->tv_sec += (time_t)(ns / 1000000000ull);
	t->tv_nsec = (long)(ns % 1000000000ull);
}

/* The frame loop: marks a frame at every deadline until the count or the
 * time is reached, or a signal arrives. */
static int first_render;	/* frames_main's argument for the first render thread */

static void *frames_main(void *arg)
{
	uint64_t period = (uint64_t)(1e9 / opt.fps);
	uint64_t start = ss_now_ns();
	long want = opt.frames ? opt.frames : (long)(opt.seconds * opt.fps + 0.5);
	FILE *hud = NULL;
	struct timespec next;

	if (opt.hud && !(hud = fopen(opt.hud, "w")))
		fprintf(stderr, "ss-markers: cannot write '%s': %s\n", opt.hud, strerror(errno));
	clock_gettime(CLOCK_MONOTONIC, &next);
	while (marked < want && !atomic_load(&stop)) {
		if (arg == &first_render && opt.handoff_s > 0 &&
		    (ss_now_ns() - start) / 1e9 >= opt.handoff_s)
			break;
		ts_add_ns(&next, period);
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR)
			if (atomic_load(&stop))
				break;
		if (stallscope_frame() == 0)
			pushed++;
		marked++;
		if (hud && (opt.hud_stop_s < 0 || (ss_now_ns() - start) / 1e9 < opt.hud_stop_s)) {
			fprintf(hud, "frame %ld %.3f\n", marked, (ss_now_ns() - start) / 1e6);
			fflush(hud);
		}
	}
	if (hud)
		fclose(hud);
	return arg;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: ss-markers [--fps F] [--seconds S | --frames N] [--busy N] [--idle N]\n"
		   "                  [--render-thread [--handoff S]] [--hud PATH [--hud-stop S]]\n"
		   "                  [--exit N]\n\n"
		   "marks frames with stallscope_frame() beside a known thread layout\n\n"
		   "EXAMPLES\n"
		   "  ss-markers --fps 100 --frames 250 --busy 2 --idle 1\n"
		   "  stallscope record -- ss-markers --render-thread --seconds 3\n");
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "fps", required_argument, NULL, 'f' },
		{ "seconds", required_argument, NULL, 's' },
		{ "frames", required_argument, NULL, 'n' },
		{ "busy", required_argument, NULL, 'b' },
		{ "idle", required_argument, NULL, 'i' },
		{ "render-thread", no_argument, NULL, 'r' },
		{ "hud", required_argument, NULL, 'H' },
		{ "hud-stop", required_argument, NULL, 'S' },
		{ "exit", required_argument, NULL, 'e' },
		{ "handoff", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	pthread_t th[514];
	int nth = 0, c;

	while ((c = getopt_long(argc, argv, "f:s:n:b:i:rH:S:e:o:h", lo, NULL)) != -1) {
		switch (c) {
		case 'f': opt.fps = atof(optarg); break;
		case 's': opt.seconds = atof(optarg); break;
		case 'n': opt.frames = atol(optarg); break;
		case 'b': opt.busy = atoi(optarg); break;
		case 'i': opt.idle = atoi(optarg); break;
		case 'r': opt.render_thread = 1; break;
		case 'H': opt.hud = optarg; break;
		case 'S': opt.hud_stop_s = atof(optarg); break;
		case 'e': opt.exit_code = atoi(optarg); break;
		case 'o': opt.handoff_s = atof(optarg); break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (opt.fps <= 0 || opt.fps > 10000 || opt.busy < 0 || opt.idle < 0 ||
	    opt.busy + opt.idle > 512 || opt.frames < 0) {
		usage(stderr);
		return 2;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	for (int i = 0; i < opt.busy + opt.idle; i++) {
		char name[16];
		int busy = i < opt.busy;

		if (pthread_create(&th[nth], NULL, busy ? busy_main : idle_main, NULL))
			continue;
		snprintf(name, sizeof(name), busy ? "busy%d" : "idle%d", busy ? i : i - opt.busy);
		pthread_setname_np(th[nth], name);
		nth++;
	}
	if (opt.render_thread) {
		pthread_t r;

		if (pthread_create(&r, NULL, frames_main, &first_render) == 0) {
			pthread_setname_np(r, "render");
			pthread_join(r, NULL);
		}
		if (opt.handoff_s > 0 && !atomic_load(&stop) &&
		    pthread_create(&r, NULL, frames_main, NULL) == 0) {
			pthread_setname_np(r, "render2");
			pthread_join(r, NULL);
		}
	} else {
		frames_main(NULL);
	}
	atomic_store(&stop, 1);
	for (int i = 0; i < nth; i++)
		pthread_join(th[i], NULL);
	printf("ss-markers: frames=%ld pushed=%ld\n", marked, pushed);
	return opt.exit_code;
}
