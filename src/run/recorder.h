/* SPDX-License-Identifier: MIT */
/*
 * recorder.h: recording a run (what `stallscope record` does). It starts a
 * program (or attaches to one), looks at it and the system every period
 * through the sampler (src/linux/sampler.h), drains the frame ring and a
 * HUD line file, and keeps what it saw in a record (src/rec/rec.h) that
 * grows in tmpfs and moves into the run directory at the end, beside
 * run.ini and program.log (docs/FORMAT.md, "Run directory").
 *
 * Never prints: what a user should see as it happens (progress, the status
 * line, warnings) goes to the say callback, errors to the caller's strbuf.
 * One recorder a process: recorder_start catches SIGINT, SIGTERM, SIGHUP
 * (a stop: forwarded to the program's process group) and SIGCHLD, and
 * ignores SIGPIPE.
 */
#ifndef SS_RUN_RECORDER_H
#define SS_RUN_RECORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/strbuf.h"
#include "linux/watch.h"

/* The probe beside a recording (docs/PROBE.md): every CPU, SCHED_FIFO one
 * above the recorder's --rt priority (50), so that what it measures is the
 * timer, not the recorder's own work. */
#define RECORDER_PROBE_INTERVAL_NS 1370000
#define RECORDER_PROBE_PRIO 51
#define RECORDER_PROBE_LATE_NS 10000000

enum recorder_say {
	RECORDER_INFO,		/* progress: a line */
	RECORDER_WARN,		/* something did not work and the run goes on */
	RECORDER_ERROR,		/* something of the run could not be kept (the end
				 * goes on with the rest; recorder_run fails) */
	RECORDER_LIVE,		/* the status line, redrawn in place (opts.live) */
};

/* Exact mode (linux/exact.h): on where the kernel allows (auto), required
 * (on: recorder_start fails without it), or off (the snapshot sampler). */
enum recorder_exact { RECORDER_EXACT_AUTO, RECORDER_EXACT_ON, RECORDER_EXACT_OFF };

struct recorder_opts {
	char **argv;		/* the program to start; NULL with pid */
	int argc;
	long pid;		/* attach to it; 0: start argv */
	const char *outdir;	/* NULL: runs/<stamp>-<program> */
	double period_ms;
	double duration_s;	/* 0: until the program ends */
	const char *stop_file;
	const char *frames;	/* auto, marker, gl, vk, hud:PATH, none (checked by
				 * recorder_frames_valid) */
	bool no_hook;		/* the ring for markers, no GL/EGL/Vulkan hooks */
	const char *thread;	/* the frame thread, TID or name; NULL: the presenting one */
	bool rt;		/* SCHED_FIFO 50 and mlockall, when permitted */
	bool quiet;		/* no progress */
	bool live;		/* a status line once a second (a terminal) */
	bool naive;		/* benchmarks: the sampler opens/reads/closes every file */
	bool no_sample;		/* frames only, no samples (bench --recorder-ab) */
	bool as_root;		/* under sudo, run the program as root (default: as
				 * the user who ran sudo) */
	const char *rig;	/* --rig: the rig's name; NULL: $STALLSCOPE_RIG or the machine's */
	const char *build;	/* --build, --build-of: the build measured; NULL: $STALLSCOPE_BUILD */
	enum recorder_exact exact;
	double exact_min_ms;	/* intervals this long are kept; 0: 0.5 */
	int stacks_hz;		/* user stacks of the frame thread; 0: 1000 Hz */
	bool no_stacks;		/* --no-stacks */
	bool probe;		/* the timer wake-up probe beside it */
	double kick_ms;		/* kick every CPU every MS; 0: off */
	bool watch;		/* the interference detector beside it, with: */
	struct watch_opts wo;	/* its options (log_path and rundir set here) */
	const char *const *meta;	/* KEY=VALUE: extra run.ini keys (bench's) */
	size_t nmeta;
	void (*say)(void *ctx, enum recorder_say kind, const char *line);
	void *say_ctx;
};

enum recorder_end { RECORDER_END_NONE, RECORDER_END_EXIT, RECORDER_END_GONE,
		    RECORDER_END_DURATION, RECORDER_END_STOP_FILE, RECORDER_END_SIGNAL };

/* What a finished recording was, for the summary and the exit status. */
struct recorder_result {
	const char *program;	/* its name */
	const char *rundir;
	uint64_t samples, frames;
	enum recorder_end end;
	const char *end_name;	/* run.ini's end= */
	bool own_child;		/* started by us, so status is ours to judge */
	bool reaped;		/* status is valid */
	int status;		/* waitpid's */
	int stop_sig;		/* the signal the run stopped the program with; 0: it
				 * ended by itself (status is then its own) */
	bool thread_seen;	/* --thread: the named thread was seen */
	bool sampled;		/* the sampler ran (samples carry the evidence) */
	bool exact;		/* in exact mode */
	const char *exact_why;	/* why not, when auto fell back; "" */
	const char *frames_note;	/* no frames or frames stopped: what to try; "" */
	bool watched;		/* the watcher's verdict: */
	bool interfered;
	const char *interference;	/* its summary */
};

/* 0 when FRAMES is one recorder_opts.frames takes (and fits NO_HOOK and PID),
 * else -EINVAL with the usage error in ERR. */
int recorder_frames_valid(const struct recorder_opts *o, struct strbuf *err);

struct recorder;

/*
 * Sets up the run: the run directory, the frame ring or HUD file, the
 * watcher, the program (started in its own process group, or attached),
 * the record and the first run.ini. Returns 0 and *ret, or a negative errno
 * with the message in ERR; nothing is left behind then (no run directory
 * when nothing was recorded). *ret is freed with recorder_free either way
 * (NULL on failure before it existed).
 */
int recorder_start(const struct recorder_opts *o, struct recorder **ret, struct strbuf *err);

/*
 * Records until the program ends, the duration ends, the stop file appears
 * or a stop signal comes; stops the program (its signal, then SIGKILL after
 * 5 s); closes the record, moves it and the log into the run directory and
 * writes the final run.ini. Returns 0, or a negative errno when something
 * of the run could not be kept: each such thing was said (RECORDER_ERROR,
 * saying where what was kept is) or is in ERR.
 */
int recorder_run(struct recorder *r, struct strbuf *err);

const struct recorder_result *recorder_result(struct recorder *r);

void recorder_free(struct recorder *r);

#endif
