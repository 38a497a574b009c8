// SPDX-License-Identifier: MIT
/*
 * ss-ringcat: a test aid for the frame shim. Creates a frame ring
 * (src/frames/ring.h), runs a command with the hooks in its environment
 * (src/frames/hook.h), drains the ring every 10 ms while it runs, and then
 * prints one line per present: "t_ns tid source". A summary goes to stderr:
 * "ss-ringcat: pid P frames N overruns O stuck S" plus one "source N" line
 * per source seen, and "spans N" for the API spans (stallscope-ring.h,
 * SS_SRC_SPAN), which are not presents and not printed. The live tests of
 * tests/e2e/shim-*.sh drive it; it is what `stallscope record` does with the
 * ring, without the rest.
 *
 * Assumes it is the only consumer of its ring. Not installed.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "frames/hook.h"
#include "frames/ring.h"
#include "stallscope-ring.h"

extern char **environ;

static const char *source_name(uint32_t s)
{
	switch (s) {
	case SS_SRC_MARKER:
		return "marker";
	case SS_SRC_GLX:
		return "glx";
	case SS_SRC_EGL:
		return "egl";
	case SS_SRC_VK:
		return "vk";
	case SS_SRC_XSHM:
		return "xshm";
	case SS_SRC_XPUT:
		return "xput";
	case SS_SRC_WLSHM:
		return "wlshm";
	}
	return "unknown";
}

static void usage(FILE *f)
{
	fprintf(f, "usage: ss-ringcat [-n] [-t SECONDS] [-o FILE] -- COMMAND [ARG]...\n"
		   "  -n          no hooks: only STALLSCOPE_RING (the marker API)\n"
		   "  -t SECONDS  send SIGTERM to the command after SECONDS\n"
		   "  -o FILE     write the frames to FILE (default: stdout, at the end)\n"
		   "example: xvfb-run ss-ringcat -t 6 -o frames.txt -- glxgears\n");
}

int main(int argc, char **argv)
{
	struct ring_frame buf[4096], *all = NULL;
	size_t n_all = 0, alloc = 0, spans = 0;
	uint64_t per_src[8] = { 0 };
	const char *out_path = NULL;
	unsigned what = HOOK_ALL;
	double limit_s = 0;
	struct hook_paths paths = { .preload = "" };
	struct ring_stats st;
	struct ring *ring;
	char **envp;
	int c, status = 0, err, exited = 0, termed = 0;
	uint64_t start;
	FILE *out;
	pid_t pid;

	while ((c = getopt(argc, argv, "+nt:o:h")) != -1) {
		switch (c) {
		case 'n':
			what = 0;
			break;
		case 't':
			limit_s = atof(optarg);
			break;
		case 'o':
			out_path = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return 2;
	}
	err = ring_new(0, &ring);
	if (err < 0) {
		fprintf(stderr, "ss-ringcat: cannot create the ring: %s\n", strerror(-err));
		return 1;
	}
	if (what && hook_find(NULL, &paths) < 0)
		fprintf(stderr, "ss-ringcat: no '%s' nor layer manifest found\n", HOOK_PRELOAD_LIB);
	err = hook_env_new(environ, ring_name(ring), &paths, what, &envp);
	if (err < 0) {
		fprintf(stderr, "ss-ringcat: %s\n", strerror(-err));
		ring_free(ring);
		return 1;
	}
	start = ss_now_ns();
	pid = fork();
	if (pid == 0) {
		execvpe(argv[optind], argv + optind, envp);
		fprintf(stderr, "ss-ringcat: cannot run '%s': %s\n", argv[optind], strerror(errno));
		_exit(127);
	}
	hook_env_free(envp);
	if (pid < 0) {
		fprintf(stderr, "ss-ringcat: fork: %s\n", strerror(errno));
		ring_free(ring);
		return 1;
	}
	for (;;) {
		struct timespec ts = { 0, 10000000 };
		size_t n;

		if (!exited && waitpid(pid, &status, WNOHANG) == pid)
			exited = 1;
		do {
			n = ring_drain(ring, ss_now_ns(), buf, 4096);
			if (!n)
				break;
			if (n_all + n > alloc) {
				alloc = (n_all + n) * 2;
				all = realloc(all, alloc * sizeof(*all));
				if (!all) {
					fprintf(stderr, "ss-ringcat: out of memory\n");
					return 1;
				}
			}
			memcpy(all + n_all, buf, n * sizeof(*buf));
			n_all += n;
		} while (n == 4096);
		if (exited)
			break;
		if (limit_s > 0 && !termed && ss_now_ns() - start >= (uint64_t)(limit_s * 1e9)) {
			kill(pid, SIGTERM);
			termed = 1;
		}
		nanosleep(&ts, NULL);
	}
	ring_stats(ring, &st);
	out = out_path ? fopen(out_path, "w") : stdout;
	if (!out) {
		fprintf(stderr, "ss-ringcat: cannot write '%s': %s\n", out_path, strerror(errno));
		return 1;
	}
	for (size_t i = 0; i < n_all; i++) {
		if (all[i].source & SS_SRC_SPAN) {
			spans++;
			continue;
		}
		fprintf(out, "%llu %u %s\n", (unsigned long long)all[i].t_ns, all[i].tid,
			source_name(all[i].source));
		per_src[all[i].source & 7]++;
	}
	if (out != stdout)
		fclose(out);
	fprintf(stderr, "ss-ringcat: pid %d frames %zu overruns %llu stuck %llu\n", (int)pid,
		n_all - spans, (unsigned long long)st.overruns, (unsigned long long)st.stuck);
	for (int s = 0; s < 8; s++)
		if (per_src[s])
			fprintf(stderr, "ss-ringcat: %s %llu\n", source_name((uint32_t)s),
				(unsigned long long)per_src[s]);
	if (spans)
		fprintf(stderr, "ss-ringcat: spans %zu\n", spans);
	free(all);
	ring_free(ring);
	if (WIFEXITED(status))
		return termed ? 0 : WEXITSTATUS(status);
	return termed ? 0 : 128 + WTERMSIG(status);
}
