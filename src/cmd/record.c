// SPDX-License-Identifier: MIT
/*
 * record.c: `stallscope record`, the recorder. It starts a program (or
 * attaches to one with -p), looks at it and the system every period through
 * the sampler (src/linux/sampler.h), drains the frame ring and a HUD line
 * file, and keeps what it saw in a record (src/rec/rec.h) that grows in
 * tmpfs and moves into the run directory at the end, beside run.ini and
 * program.log (docs/FORMAT.md, "Run directory").
 *
 * The loop is cyclictest's: it sleeps to absolute CLOCK_MONOTONIC deadlines,
 * advances the deadline by the period, skips and counts the periods it
 * missed, and keeps a histogram of how late each wake-up was and of how long
 * each sample took; those figures end up in run.ini as the recorder's cost.
 * It never writes to disk while the program runs (the record is in
 * /dev/shm, flushed there every second, so a kill -9 loses at most one
 * second; run.ini written at the start says where it is).
 *
 * Assumes one thread, signals delivered to it (SIGINT, SIGTERM, SIGCHLD set
 * flags that the loop reads after each wake-up) and a child in its own
 * process group, to which SIGINT/SIGTERM are forwarded.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "cmd/cmd.h"
#include "cmd/watch_opts.h"
#include "core/cpulist.h"
#include "core/lathist.h"
#include "core/logstamp.h"
#include "core/inifmt.h"
#include "core/strbuf.h"
#include "frames/hook.h"
#include "frames/hud.h"
#include "frames/ring.h"
#include "linux/kick.h"
#include "linux/probe.h"
#include "linux/recsys.h"
#include "linux/sampler.h"
#include "linux/sched.h"
#include "linux/watch.h"
#include "rec/rec.h"
#include "stallscope-ring.h"

extern char **environ;

#define NSEC 1000000000ull
#define HUD_SOURCE REC_SOURCE_HUD	/* struct rec_frame.source of a HUD line */
#define SRC_N (REC_SOURCE_MAX + 1)	/* frame sources counted, by number */
#define CLOCK_EVERY_NS (10 * NSEC)
#define FLUSH_EVERY_NS NSEC
#define FT_SWITCH_NS NSEC	/* presents are counted per thread over two of these */
#define NPRESENTERS 8		/* threads whose presents are counted */
#define STOP_GRACE_NS (5 * NSEC)	/* a stopped program's time to exit before SIGKILL */
#define NO_FRAMES_NS (3 * NSEC)	/* a run this long with no frame says so */
#define LIVE_STALL_NS (100 * 1000 * 1000ull)	/* a stall on the status line (report's default) */
#define FRAMES_STOPPED_NS (5 * NSEC)	/* frames that stop this long before the end: said */

/* ------------------------------------------------------------ options */

struct record_opts {
	const char *outdir;	/* -o; NULL: runs/<stamp>-<program> */
	double period_ms;
	double duration_s;	/* 0: until the program ends */
	const char *stop_file;
	const char *frames;	/* auto, marker, gl, vk, hud:PATH, none */
	bool rt;
	long pid;		/* -p: attach; 0: start argv */
	bool quiet;
	bool naive;		/* benchmarks: the sampler opens/reads/closes every file */
	bool no_sample;		/* --no-sample: frames only, no samples (bench --recorder-ab) */
	bool watch;		/* --watch: the interference detector beside the run */
	struct watch_opts_given wg;	/* its options (watch_opts.h); log_path and
					 * rundir set by record */
	const char *meta[32];	/* --meta KEY=VALUE: extra run.ini keys (bench's) */
	size_t nmeta;
	bool no_hook;		/* --no-hook: the ring for markers, no GL/EGL/Vulkan hooks */
	const char *thread;	/* --thread TID|NAME: the frame thread; NULL: the presenting one */
	bool probe;		/* --probe: the timer wake-up probe beside the recording */
	double kick_ms;		/* --kick MS: kick every CPU every MS; 0: off */
};

/* The probe beside a recording (docs/PROBE.md): every CPU, SCHED_FIFO one
 * above the recorder's --rt priority (50), so that what it measures is the
 * timer, not the recorder's own work. */
#define PROBE_INTERVAL_NS 1370000
#define PROBE_PRIO 51
#define PROBE_LATE_NS 10000000

enum frame_mode { FRAMES_NONE, FRAMES_RING, FRAMES_HUD };

enum end_reason { END_NONE, END_EXIT, END_GONE, END_DURATION, END_STOP_FILE, END_SIGNAL };

static const char *const end_names[] = {
	[END_NONE] = "error", [END_EXIT] = "exit", [END_GONE] = "gone",
	[END_DURATION] = "duration", [END_STOP_FILE] = "stop-file", [END_SIGNAL] = "signal",
};

static volatile sig_atomic_t got_signal, got_child;

static void on_signal(int sig)
{
	got_signal = got_signal ? -1 : sig;	/* -1: a second one, stop now */
}

static void on_child(int sig)
{
	(void)sig;
	got_child = 1;
}

/* Everything a run holds; one per invocation. */
struct run {
	struct record_opts o;
	char **argv;
	int argc;
	uid_t uid;		/* owner of what we write ((uid_t)-1: leave) */
	gid_t gid;
	char rundir[PATH_MAX - 64];
	char ini_path[PATH_MAX];
	char ini_tmp[PATH_MAX];		/* beside the record in tmpfs: the final run.ini
					 * when the run directory cannot take it; "" */
	char rec_path[PATH_MAX];	/* where the record grows */
	char rec_final[PATH_MAX];	/* RUNDIR/record.ssr */
	char log_path[PATH_MAX];	/* where program.log grows */
	char log_final[PATH_MAX];	/* RUNDIR/program.log */
	char out_path[PATH_MAX];	/* the program's raw stdout/stderr (tmpfs) */
	int log_rd;		/* that file, read by the recorder, or -1 */
	uint64_t log_off;	/* bytes of it stamped so far */
	int log_fd;		/* the log being written, or -1 */
	struct logstamp ls;
	struct strbuf logbuf;
	struct strbuf program, cmdline, notes;
	int pid;
	bool own_child;
	int status;		/* waitpid status, valid when reaped */
	bool reaped;
	enum frame_mode fmode;
	unsigned hooks;		/* HOOK_* in the child's environment */
	bool gl32;		/* the 32-bit GL/EGL library beside the 64-bit one */
	struct ring *ring;
	struct hud *hud;
	struct sampler *s;
	struct rec_writer *w;
	int64_t *vals;
	size_t nfields;
	uint64_t period_ns;
	struct rec_clock clock0;
	int ft_tid, ft2_tid;
	int fpid;		/* the process sampled: the child, or the one that presents */
	int frame_pid;		/* the process of the frame thread, when it presented; 0: none */
	int frame_tid;		/* the frame thread, when it presented; 0: none */
	char frame_comm[64];	/* its name */
	char fp_comm[64];	/* its name, when it is not the child */
	bool fp_ended;		/* fpid (not the child) has ended */
	bool followed;		/* the child ended and its descendants are followed */
	/* the threads that presented lately, with their presents in this
	 * FT_SWITCH_NS and the one before; the frame thread is the busiest */
	struct presenter {
		int tid;
		uint32_t cur, prev;
	} pres[NPRESENTERS];
	uint64_t pres_flip_ns;	/* when cur becomes prev */
	bool thread_found;	/* --thread: the named thread is the frame thread */
	bool thread_seen;	/* --thread: it was, at some point of the run */
	int other_tid;		/* a tid that presented this sample, not the frame thread */
	int thread_checked[8];	/* --thread: presenting tids whose comm did not match */
	/* figures */
	uint64_t samples, missed, frames, bytes0, bytes_end, t_start, t_end;
	uint64_t frames_src[SRC_N];	/* per frame source (enum ss_frame_source, HUD_SOURCE) */
	uint64_t last_frame_ns;		/* the last frame's stamp; 0: none */
	/* the live status line (a terminal, not --quiet) */
	bool live;
	uint64_t live_next_ns;		/* when it is next printed */
	uint64_t live_frames;		/* frames at the last print */
	uint64_t live_stalls;		/* frame gaps over LIVE_STALL_NS so far */
	uint64_t live_last_stall_ns;	/* the last one's length */
	char frames_note[640];		/* no frames, or frames stopped: what and what to try */
	uint64_t cpu0_ns;
	struct lathist late, work;
	enum end_reason end;
	char rt_note[160];
	/* --probe and --kick (linux/probe.h, linux/kick.h) */
	struct cpulist helper_cpus;
	struct probe *probe;
	uint64_t probe_late;		/* late_wakeup events written */
	struct kick *kick;
	struct kick_result *kick_res;	/* after kick_stop */
	struct watch *watch;	/* --watch: running from before the program starts */
	struct watch_result wres;
	bool watched;		/* wres holds the verdict */
};

/* ------------------------------------------------------------ helpers */

/* snprintf into a path buffer; -ENAMETOOLONG when it did not fit. */
static int pathf(char *dst, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int pathf(char *dst, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(dst, size, fmt, ap);
	va_end(ap);
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

static uint64_t clock_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * NSEC + (uint64_t)ts.tv_nsec;
}

static void ts_from_ns(struct timespec *ts, uint64_t ns)
{
	ts->tv_sec = (time_t)(ns / NSEC);
	ts->tv_nsec = (long)(ns % NSEC);
}

/* A CLOCK_MONOTONIC/CLOCK_REALTIME pair: the realtime read between two
 * monotonic reads, paired with their midpoint. */
static void clock_pair(struct rec_clock *c)
{
	uint64_t a = clock_ns(CLOCK_MONOTONIC);
	uint64_t r = clock_ns(CLOCK_REALTIME);
	uint64_t b = clock_ns(CLOCK_MONOTONIC);

	c->mono_ns = a + (b - a) / 2;
	c->real_ns = r;
}

static void note(struct run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(struct run *r, const char *fmt, ...)
{
	va_list ap;

	if (r->notes.len)
		sb_addc(&r->notes, '\n');
	va_start(ap, fmt);
	sb_vaddf(&r->notes, fmt, ap);
	va_end(ap);
}

static uint32_t intern_cb(void *ctx, const char *s)
{
	return rec_writer_intern(ctx, s);
}

/* REAL_NS in UTC: "20261201T102033Z" (a run directory's name), or with
 * USEC ISO 8601 with microseconds (run.ini's t0_utc). */
static void utc_stamp(char *buf, size_t size, uint64_t real_ns, bool usec)
{
	time_t t = (time_t)(real_ns / NSEC);
	struct tm tm;

	gmtime_r(&t, &tm);
	if (usec) {
		char s[32];

		strftime(s, sizeof(s), "%Y-%m-%dT%H:%M:%S", &tm);
		snprintf(buf, size, "%s.%06uZ", s, (unsigned)(real_ns % NSEC / 1000));
	} else {
		strftime(buf, size, "%Y%m%dT%H%M%SZ", &tm);
	}
}

/* ------------------------------------------------------------ run directory */

static bool holds_run(const char *dir)
{
	char p[PATH_MAX + 32];

	snprintf(p, sizeof(p), "%s/record.ssr", dir);
	if (access(p, F_OK) == 0)
		return true;
	snprintf(p, sizeof(p), "%s/run.ini", dir);
	return access(p, F_OK) == 0;
}

/* Creates the run directory: -o as given (refusing one that holds a run), or
 * runs/<stamp>-<program>[-N]. */
static int make_rundir(struct run *r)
{
	struct strbuf made = STRBUF_INIT;
	int err;

	if (r->o.outdir) {
		if (snprintf(r->rundir, sizeof(r->rundir), "%s", r->o.outdir) >=
		    (int)sizeof(r->rundir))
			return cli_error("'%s': path too long", r->o.outdir);
		err = recsys_mkdirs(r->rundir, r->uid, r->gid, &made);
		if (err < 0) {
			sb_release(&made);
			return cli_error_errno(err, "cannot create run directory '%s'", r->rundir);
		}
		/* never a tree of new directories in silence (a typo in -o) */
		if (made.len && strcmp(made.buf, r->rundir))
			fprintf(stderr, "%s: created '%s' for the run directory '%s'\n", cli_prog,
				made.buf, r->rundir);
		sb_release(&made);
		if (holds_run(r->rundir))
			return cli_error("'%s' already holds a run; choose another directory with -o",
					 r->rundir);
		return 0;
	}
	char stamp[32];
	struct strbuf dir = STRBUF_INIT;

	utc_stamp(stamp, sizeof(stamp), r->clock0.real_ns, false);
	err = recsys_mkdirs("runs", r->uid, r->gid, NULL);
	if (err < 0)
		return cli_error_errno(err, "cannot create 'runs'");
	err = recsys_new_rundir("runs", stamp, r->program.buf, NULL, r->uid, r->gid, &dir);
	if (err == 0 && snprintf(r->rundir, sizeof(r->rundir), "%s", dir.buf) >= (int)sizeof(r->rundir))
		err = -ENAMETOOLONG;
	sb_release(&dir);
	if (err < 0)
		return cli_error_errno(err, "cannot create a run directory under 'runs'");
	return 0;
}

/* ------------------------------------------------------------ run.ini */

static const char *frames_name(const struct run *r)
{
	return r->o.frames;
}

/* Whether frame source SOURCE was listened to in this run. */
static bool listened(const struct run *r, uint32_t source)
{
	switch (source) {
	case SS_SRC_MARKER:
		return r->fmode == FRAMES_RING;
	case SS_SRC_GLX:
	case SS_SRC_EGL:
		return r->fmode == FRAMES_RING && (r->hooks & HOOK_GL);
	case SS_SRC_VK:
		return r->fmode == FRAMES_RING && (r->hooks & HOOK_VK);
	case HUD_SOURCE:
		return r->fmode == FRAMES_HUD;
	}
	return false;
}

/* What the run listened to for frames, in words, into BUF. */
static void listened_text(const struct run *r, char *buf, size_t size)
{
	const char *gl = "the GL/EGL hook (glXSwapBuffers, eglSwapBuffers*: linked, by dlsym "
			 "or GetProcAddress)";
	const char *vk = "the Vulkan layer (vkQueuePresentKHR)";

	if (r->fmode == FRAMES_HUD)
		snprintf(buf, size, "the HUD file '%s' (no new line)", r->o.frames + 4);
	else if ((r->hooks & HOOK_GL) && (r->hooks & HOOK_VK))
		snprintf(buf, size, "%s, %s and the marker API", gl, vk);
	else if (r->hooks)
		snprintf(buf, size, "%s and the marker API", r->hooks & HOOK_GL ? gl : vk);
	else
		snprintf(buf, size, "the marker API");
}

/* A run that lasted and got no frame, or whose frames stopped long before
 * its end, says so (frames_note, and the terminal): what was listened to
 * and what to try. Nothing for --frames none or a short run. */
static void frames_verdict(struct run *r)
{
	uint64_t secs_ns = r->t_end > r->t_start ? r->t_end - r->t_start : 0;
	char what[256];

	r->frames_note[0] = '\0';
	if (r->fmode == FRAMES_NONE)
		return;
	listened_text(r, what, sizeof(what));
	if (!r->frames && secs_ns >= NO_FRAMES_NS)
		snprintf(r->frames_note, sizeof(r->frames_note),
			 "no frames in %.1f s: nothing presented through %s. Try --frames hud:PATH "
			 "(a HUD's or the program's frame log), the marker API (stallscope.h) in "
			 "the program, or --thread NAME for the thread that renders",
			 (double)secs_ns / 1e9, what);
	else if (r->frames && r->t_end > r->last_frame_ns &&
		 r->t_end - r->last_frame_ns >= FRAMES_STOPPED_NS)
		snprintf(r->frames_note, sizeof(r->frames_note),
			 "frames stopped %.1f s before the end: the last of %llu came at %.1f s of "
			 "%.1f s, and the rest of the run has no frame times (a loading screen, "
			 "or presents none of the hooks sees). Try --frames hud:PATH or the "
			 "marker API (stallscope.h)",
			 (double)(r->t_end - r->last_frame_ns) / 1e9, (unsigned long long)r->frames,
			 (double)(r->last_frame_ns - r->clock0.mono_ns) / 1e9,
			 (double)(r->t_end - r->clock0.mono_ns) / 1e9);
}

/* Writes run.ini; FINAL adds the end and the recorder's figures. */
static int write_ini(struct run *r, bool final)
{
	struct strbuf sb = STRBUF_INIT;
	struct utsname u;
	char stamp[40];
	const struct sampler_meta *m = NULL;
	size_t nm = r->s ? sampler_meta(r->s, &m) : 0;
	const char *hz = NULL;
	int err;

	for (size_t i = 0; i < nm; i++)
		if (!strcmp(m[i].key, "hz"))
			hz = m[i].value;
	/* --meta first: a later key wins, so record's own keys override them */
	for (size_t i = 0; i < r->o.nmeta; i++) {
		const char *eq = strchr(r->o.meta[i], '=');
		char key[64];

		snprintf(key, sizeof(key), "%.*s", (int)(eq - r->o.meta[i]), r->o.meta[i]);
		inifmt_add(&sb, key, eq + 1);
	}
	inifmt_add(&sb, "program", r->program.buf);
	inifmt_add(&sb, "argv", r->cmdline.buf);
	inifmt_addf(&sb, "pid", "%d", r->pid);
	inifmt_add(&sb, "attached", r->own_child ? "no" : "yes");
	inifmt_addf(&sb, "t0", "%llu.%06llu", (unsigned long long)(r->clock0.real_ns / NSEC),
		    (unsigned long long)(r->clock0.real_ns % NSEC / 1000));
	inifmt_addf(&sb, "t0_mono", "%llu.%09llu", (unsigned long long)(r->clock0.mono_ns / NSEC),
		    (unsigned long long)(r->clock0.mono_ns % NSEC));
	utc_stamp(stamp, sizeof(stamp), r->clock0.real_ns, true);
	inifmt_add(&sb, "t0_utc", stamp);
	inifmt_addf(&sb, "clock_mono_ns", "%llu", (unsigned long long)r->clock0.mono_ns);
	inifmt_addf(&sb, "clock_real_ns", "%llu", (unsigned long long)r->clock0.real_ns);
	inifmt_add(&sb, "kernel", uname(&u) == 0 ? u.release : NULL);
	inifmt_addf(&sb, "cpus", "%ld", sysconf(_SC_NPROCESSORS_ONLN));
	if (hz)
		inifmt_add(&sb, "hz", hz);
	else
		inifmt_addf(&sb, "hz", "%ld", sysconf(_SC_CLK_TCK));
	inifmt_addf(&sb, "period_ms", "%g", r->o.period_ms);
	inifmt_add(&sb, "frame_source", frames_name(r));
	if (r->ring)
		inifmt_addf(&sb, "frame_hooks", "%s%s%s%s", r->hooks & HOOK_GL ? "gl" : "",
			    r->gl32 ? ",gl32" : "",
			    (r->hooks & HOOK_GL) && (r->hooks & HOOK_VK) ? "," : "",
			    r->hooks & HOOK_VK ? "vk" : (r->hooks ? "" : "marker only"));
	if (r->o.duration_s > 0)
		inifmt_addf(&sb, "duration_s", "%g", r->o.duration_s);
	if (r->o.stop_file)
		inifmt_add(&sb, "stop_file", r->o.stop_file);
	inifmt_add(&sb, "rt", r->rt_note[0] ? r->rt_note : "off");
	if (r->o.naive)
		inifmt_add(&sb, "sampler", "naive (benchmark: open, read, close every file)");
	if (r->o.probe) {
		inifmt_add(&sb, "probe", "on");
		inifmt_addf(&sb, "probe_interval_ms", "%.3f", PROBE_INTERVAL_NS / 1e6);
		inifmt_addf(&sb, "probe_priority", "%d", PROBE_PRIO);
		inifmt_addf(&sb, "probe_late_ms", "%g", PROBE_LATE_NS / 1e6);
	}
	if (r->o.kick_ms > 0) {
		struct strbuf cl = STRBUF_INIT;

		cpulist_format(&r->helper_cpus, &cl);
		inifmt_addf(&sb, "kick_ms", "%g", r->o.kick_ms);
		inifmt_add(&sb, "kick_mode", "kick");
		inifmt_add(&sb, "kick_cpus", cl.buf);
		sb_release(&cl);
	}
	if (r->o.no_sample)
		inifmt_add(&sb, "sampling", "off (--no-sample: frames only)");
	for (size_t i = 0; i < nm; i++)
		if (strcmp(m[i].key, "hz"))
			inifmt_add(&sb, m[i].key, m[i].value);
	if (!final) {
		inifmt_add(&sb, "state", "recording");
		inifmt_add(&sb, "record_tmp", r->rec_path);
		if (r->log_path[0]) {
			inifmt_add(&sb, "log_tmp", r->log_path);
			inifmt_add(&sb, "output_tmp", r->out_path);
		}
	} else {
		const char *const *sn = NULL;
		size_t nsn = r->s ? sampler_notes(r->s, &sn) : 0;
		double secs = (double)(r->t_end - r->t_start) / 1e9;
		double cpu_s = (double)(clock_ns(CLOCK_PROCESS_CPUTIME_ID) - r->cpu0_ns) / 1e9;
		double helper_s = 0;

		if (r->probe) {
			uint64_t pcpu = 0, pmax = 0;
			bool fifo = true;

			for (size_t i = 0; i < probe_ncpus(r->probe); i++) {
				const struct probe_cpu *pc = probe_cpu(r->probe, i);

				pcpu += pc->cpu_ns;
				fifo = fifo && pc->fifo;
				if (pc->hist.n && pc->hist.max_ns > pmax)
					pmax = pc->hist.max_ns;
			}
			helper_s += pcpu / 1e9;
			inifmt_add(&sb, "probe_policy", fifo ? "fifo" : "other");
			inifmt_addf(&sb, "probe_late_wakeups", "%llu",
				    (unsigned long long)r->probe_late);
			inifmt_addf(&sb, "probe_max_ms", "%.3f", pmax / 1e6);
			inifmt_addf(&sb, "probe_cpu_s", "%.3f", pcpu / 1e9);
		}
		if (r->kick_res) {
			helper_s += r->kick_res->cpu_ns / 1e9;
			inifmt_addf(&sb, "kick_periods", "%llu",
				    (unsigned long long)r->kick_res->periods);
			inifmt_addf(&sb, "kick_cpu_s", "%.3f", r->kick_res->cpu_ns / 1e9);
		}
		cpu_s -= helper_s;	/* the recorder's own cost, without its helpers' */
		int64_t p99 = lathist_pct_ns(&r->late, 99), p50w = lathist_pct_ns(&r->work, 50);
		struct ring_stats rs = { 0 };
		int line = 0;

		inifmt_add(&sb, "state", "done");
		inifmt_add(&sb, "end", end_names[r->end]);
		if (strcmp(r->rec_path, r->rec_final))
			inifmt_add(&sb, "record_tmp", r->rec_path);	/* the move failed */
		if (r->log_path[0] && strcmp(r->log_path, r->log_final))
			inifmt_add(&sb, "log_tmp", r->log_path);
		if (!r->own_child) {
			inifmt_add(&sb, "exit_status", NULL);
		} else if (r->reaped && WIFEXITED(r->status)) {
			inifmt_addf(&sb, "exit_status", "%d", WEXITSTATUS(r->status));
		} else if (r->reaped && WIFSIGNALED(r->status)) {
			inifmt_add(&sb, "exit_status", NULL);
			inifmt_addf(&sb, "exit_signal", "%s", sigabbrev_np(WTERMSIG(r->status)) ?: "?");
		} else {
			inifmt_add(&sb, "exit_status", NULL);
		}
		inifmt_addf(&sb, "duration_recorded_s", "%.3f", secs);
		inifmt_addf(&sb, "frames", "%llu", (unsigned long long)r->frames);
		for (uint32_t k = 1; k < SRC_N; k++) {
			char key[32];

			if (!listened(r, k))
				continue;
			snprintf(key, sizeof(key), "frames_%s", rec_source_name(k));
			inifmt_addf(&sb, key, "%llu", (unsigned long long)r->frames_src[k]);
		}
		if (r->frames_note[0])
			inifmt_add(&sb, "frames_note", r->frames_note);
		if (r->ring) {
			ring_stats(r->ring, &rs);
			inifmt_addf(&sb, "frames_overruns", "%llu", (unsigned long long)rs.overruns);
			inifmt_addf(&sb, "frames_stuck", "%llu", (unsigned long long)rs.stuck);
		}
		if (r->hud)
			inifmt_addf(&sb, "hud_restarts", "%llu",
				    (unsigned long long)hud_restarts(r->hud));
		/* the thread that presented, which is sampled while its process lives */
		inifmt_addf(&sb, "frame_thread", "%d", r->frame_tid ? r->frame_tid : r->ft_tid);
		inifmt_addf(&sb, "frame_pid", "%d", r->frame_pid ? r->frame_pid : r->pid);
		if (r->frame_pid && r->frame_pid != r->pid)
			inifmt_add(&sb, "frame_process", r->frame_comm);
		if (r->watched) {
			inifmt_addf(&sb, "interfered", "%d", r->wres.interfered ? 1 : 0);
			inifmt_add(&sb, "interference", r->wres.summary);
			inifmt_addf(&sb, "watch_cpu_s", "%.3f", r->wres.cpu_s);
			inifmt_addf(&sb, "watch_maxrss_kb", "%ld", r->wres.maxrss_kb);
		}
		if (r->o.thread)
			inifmt_addf(&sb, "frame_thread_named", "%s%s", r->o.thread,
				    r->thread_seen ? "" : " (never seen; main thread used)");
		inifmt_addf(&sb, "recorder_samples", "%llu", (unsigned long long)r->samples);
		inifmt_addf(&sb, "recorder_missed", "%llu", (unsigned long long)r->missed);
		inifmt_addf(&sb, "recorder_cpu_s", "%.3f", cpu_s);
		if (p50w >= 0)
			inifmt_addf(&sb, "recorder_us_per_sample", "%.1f", p50w / 1e3);
		else
			inifmt_add(&sb, "recorder_us_per_sample", NULL);
		if (r->samples)
			inifmt_addf(&sb, "recorder_us_per_sample_mean", "%.1f",
				    (double)r->work.sum_ns / 1e3 / (double)r->samples);
		else
			inifmt_add(&sb, "recorder_us_per_sample_mean", NULL);
		if (secs > 0)
			inifmt_addf(&sb, "recorder_cpu_pct", "%.3f", 100.0 * cpu_s / secs);
		else
			inifmt_add(&sb, "recorder_cpu_pct", NULL);
		if (p99 >= 0) {
			inifmt_addf(&sb, "recorder_late_p99_ms", "%.3f", p99 / 1e6);
			inifmt_addf(&sb, "recorder_late_max_ms", "%.3f", r->late.max_ns / 1e6);
		} else {
			inifmt_add(&sb, "recorder_late_p99_ms", NULL);
			inifmt_add(&sb, "recorder_late_max_ms", NULL);
		}
		if (r->samples && r->bytes_end > r->bytes0)
			inifmt_addf(&sb, "recorder_bytes_per_sample", "%.1f",
				    (double)(r->bytes_end - r->bytes0) / (double)r->samples);
		else
			inifmt_add(&sb, "recorder_bytes_per_sample", NULL);
		/* what could not be read and why: the sampler's notes, then ours */
		for (size_t i = 0; i < nsn; i++) {
			char key[32];

			snprintf(key, sizeof(key), "unreadable.%d", ++line);
			inifmt_add(&sb, key, sn[i]);
		}
		for (char *p = r->notes.buf; *p;) {
			char key[32], *nl = strchr(p, '\n');

			if (nl)
				*nl = '\0';
			snprintf(key, sizeof(key), "unreadable.%d", ++line);
			inifmt_add(&sb, key, p);
			if (!nl)
				break;
			*nl = '\n';
			p = nl + 1;
		}
	}
	err = recsys_write_atomic(r->ini_path, sb.buf, sb.len, r->uid, r->gid, final);
	if (err < 0 && final && r->ini_tmp[0]) {
		/* the run directory cannot take it (full?): keep it beside the
		 * record in tmpfs, where report and dump find it (record_tmp with
		 * .ini for .ssr), rather than lose the end, the exit status and
		 * the recorder's figures */
		int e2 = recsys_write_atomic(r->ini_tmp, sb.buf, sb.len, r->uid, r->gid, true);

		if (e2 == 0) {
			cli_error_errno(err, "cannot write '%s'; the final run.ini is at '%s'",
					r->ini_path, r->ini_tmp);
			sb_release(&sb);
			return -1;
		}
	}
	sb_release(&sb);
	if (err < 0)
		return cli_error_errno(err, "cannot write '%s'", r->ini_path);
	return 0;
}

/* ------------------------------------------------------------ the program */

/* Starts argv in its own process group with stdout/stderr into LOG and the
 * frame hooks in its environment. Waits for the exec: a program that cannot
 * be run is an error here, not an exit status. */
static int start_child(struct run *r)
{
	char abs_run[PATH_MAX];
	int pfd[2], outfd, nullfd, err = 0;
	char **envp = NULL;
	pid_t pid;
	ssize_t n;

	r->log_fd = open(r->log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (r->log_fd < 0)
		return cli_error_errno(-errno, "cannot create '%s'", r->log_path);
	if (r->uid != (uid_t)-1 && fchown(r->log_fd, r->uid, r->gid) < 0)
		cli_warn("cannot chown '%s': %s", r->log_path, strerror(errno));
	/* the program writes its output to a file in tmpfs (never blocking on
	 * the recorder, never SIGPIPE if the recorder dies); the recorder reads
	 * what is new each sample and stamps it line by line into the log */
	outfd = open(r->out_path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
	if (outfd < 0)
		return cli_error_errno(-errno, "cannot create '%s'", r->out_path);
	if (r->uid != (uid_t)-1 && fchown(outfd, r->uid, r->gid) < 0)
		cli_warn("cannot chown '%s': %s", r->out_path, strerror(errno));
	r->log_rd = open(r->out_path, O_RDONLY | O_CLOEXEC);
	if (r->log_rd < 0) {
		err = -errno;
		close(outfd);
		return cli_error_errno(err, "cannot read '%s'", r->out_path);
	}
	nullfd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (!realpath(r->rundir, abs_run))
		snprintf(abs_run, sizeof(abs_run), "%s", r->rundir);
	if (r->ring) {
		struct hook_paths hp = { .preload = "" };
		unsigned want = r->hooks;

		if (want && hook_find(NULL, &hp) < 0)
			want = 0;
		if (!hp.preload[0])
			want &= ~(unsigned)HOOK_GL;
		if (!hp.layer_dir[0])
			want &= ~(unsigned)HOOK_VK;
		if (r->hooks && want != r->hooks)
			note(r, "frame hooks: %s not found (build the shim, or set %s)",
			     (r->hooks & ~want) == HOOK_ALL ? "preload library and Vulkan layer"
			     : (r->hooks & ~want) & HOOK_GL ? "preload library"
							    : "Vulkan layer",
			     HOOK_DIR_ENV);
		r->hooks = want;
		r->gl32 = (want & HOOK_GL) && hp.preload32[0];
		err = hook_env_new(environ, ring_name(r->ring), &hp, want, &envp);
		if (err < 0) {
			close(outfd);
			return cli_error_errno(err, "cannot prepare the program's environment");
		}
	}
	if (pipe2(pfd, O_CLOEXEC) < 0) {
		err = -errno;
		close(outfd);
		hook_env_free(envp);
		return cli_error_errno(err, "pipe");
	}
	/* A launcher that forks the game and exits (a double fork) leaves it
	 * to us, not to init: we see it end and can follow it. */
	if (prctl(PR_SET_CHILD_SUBREAPER, 1UL, 0UL, 0UL, 0UL) < 0)
		note(r, "no subreaper (%s): processes the program leaves behind go to init",
		     strerror(errno));
	pid = fork();
	if (pid < 0) {
		err = -errno;
		close(outfd);
		close(pfd[0]);
		close(pfd[1]);
		hook_env_free(envp);
		return cli_error_errno(err, "fork");
	}
	if (pid == 0) {
		sigset_t none;
		int e;

		setpgid(0, 0);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGCHLD, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
		if (nullfd >= 0)
			dup2(nullfd, 0);
		dup2(outfd, 1);
		dup2(outfd, 2);
		if (envp)
			environ = envp;
		setenv("STALLSCOPE_RUN", abs_run, 1);
		execvp(r->argv[0], r->argv);
		e = errno;
		if (write(pfd[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	setpgid(pid, pid);
	close(pfd[1]);
	close(outfd);
	if (nullfd >= 0)
		close(nullfd);
	hook_env_free(envp);
	do {
		int e;

		n = read(pfd[0], &e, sizeof(e));
		if (n == (ssize_t)sizeof(e))
			err = -e;
	} while (n < 0 && errno == EINTR);
	close(pfd[0]);
	if (err) {
		waitpid(pid, NULL, 0);
		return cli_error_errno(err, "cannot run '%s'", r->argv[0]);
	}
	r->pid = r->fpid = pid;
	r->own_child = true;
	return 0;
}

/* Moves what the program wrote since the last call into the log, each line
 * stamped with the seconds since t0 at NOW (at most 1 MiB a call, so that a
 * chatty program cannot stall the sampling); at the end (FINAL) reads all
 * there is, closes the raw file and removes it. */
static void pump_log(struct run *r, uint64_t now, bool final)
{
	char buf[65536];
	double t_s = (double)(now - r->clock0.mono_ns) / 1e9;
	size_t total = 0;

	if (r->log_rd < 0)
		return;
	while (final || total < (1u << 20)) {
		ssize_t n = pread(r->log_rd, buf, sizeof(buf), (off_t)r->log_off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		total += (size_t)n;
		r->log_off += (uint64_t)n;
		sb_reset(&r->logbuf);
		if (logstamp_feed(&r->ls, buf, (size_t)n, t_s, &r->logbuf) == 0 && r->log_fd >= 0 &&
		    write(r->log_fd, r->logbuf.buf, r->logbuf.len) != (ssize_t)r->logbuf.len) {
			note(r, "program.log: %s; the rest of the program's output is lost",
			     strerror(errno ? errno : ENOSPC));
			close(r->log_fd);
			r->log_fd = -1;
		}
	}
	if (final) {
		close(r->log_rd);
		r->log_rd = -1;
		if (r->log_fd >= 0)
			unlink(r->out_path);	/* else it is all there is */
	}
}

static int switch_process(struct run *r, uint64_t now, int pid, int tid);

/* Reaps what of the run has ended: the child we started (its status is
 * kept) and the processes it left behind, whose subreaper record is (the
 * frame process among them). True when the child has ended. */
static bool child_ended(struct run *r)
{
	int st;
	pid_t p;

	if (!r->own_child)
		return r->reaped;
	for (;;) {
		p = waitpid(-1, &st, WNOHANG);
		if (p < 0 && errno == EINTR)
			continue;
		if (p <= 0)
			break;
		if (p == r->pid) {
			r->status = st;
			r->reaped = true;
		} else if (p == r->fpid) {
			r->fp_ended = true;
		}
	}
	if (p < 0 && !r->reaped) {
		r->reaped = true;	/* ECHILD: not ours to wait for any more */
		r->status = 0;
	}
	return r->reaped;
}

/* Whether the frame process, when it is not the child, is still there. */
static bool frame_process_lives(struct run *r)
{
	if (r->fpid == r->pid || r->fp_ended)
		return false;
	if (kill(r->fpid, 0) < 0 && errno == ESRCH)
		r->fp_ended = true;
	return !r->fp_ended;
}

/*
 * Whether the program has ended: the child we started, then the process
 * that presents when that is another (a launcher's game). While nothing has
 * presented, a process the child left behind (record is their subreaper,
 * so they are its children now) is followed: the sampler moves to it and
 * the run goes on until none is left.
 */
static bool program_ended(struct run *r, uint64_t now)
{
	int kids[16], n;

	if (!child_ended(r))
		return false;
	if (frame_process_lives(r))
		return false;
	if (r->frames || !r->s)
		return true;
	n = recsys_children(getpid(), kids, sizeof(kids) / sizeof(kids[0]));
	for (int i = 0; i < n; i++) {
		if (switch_process(r, now, kids[i], 0) < 0)
			continue;
		r->ft_tid = kids[i];
		r->ft2_tid = 0;
		if (!r->followed && !r->o.quiet)
			fprintf(stderr, "%s: '%s' (pid %d) exited; following what it left running: "
				"'%s' (pid %d) until it ends (Ctrl-C stops)\n",
				cli_prog, r->program.buf, r->pid, r->fp_comm, kids[i]);
		r->followed = true;
		return false;
	}
	return true;
}

/* Stops the program we started: SIG to its process group, then SIGKILL
 * after STOP_GRACE_NS. */
static void stop_child(struct run *r, int sig)
{
	uint64_t deadline;

	if (!r->own_child || (child_ended(r) && !frame_process_lives(r)))
		return;
	if (!r->reaped)
		kill(-r->pid, sig);
	if (frame_process_lives(r))
		kill(r->fpid, sig);	/* it may have left the child's process group */
	if (!r->o.quiet && sig != SIGKILL && isatty(STDERR_FILENO))
		fprintf(stderr, "%s: stopping '%s' (SIG%s; SIGKILL if it is still there in %llu s)\n",
			cli_prog, r->program.buf, sigabbrev_np(sig) ?: "?",
			(unsigned long long)(STOP_GRACE_NS / NSEC));
	deadline = clock_ns(CLOCK_MONOTONIC) + STOP_GRACE_NS;
	while (!child_ended(r) || frame_process_lives(r)) {
		struct timespec ts = { 0, 10 * 1000 * 1000 };

		pump_log(r, clock_ns(CLOCK_MONOTONIC), false);
		if (clock_ns(CLOCK_MONOTONIC) > deadline || got_signal < 0) {
			if (!r->o.quiet)
				fprintf(stderr, "%s: '%s' did not stop: SIGKILL\n", cli_prog,
					r->program.buf);
			if (!r->reaped)
				kill(-r->pid, SIGKILL);
			if (frame_process_lives(r))
				kill(r->fpid, SIGKILL);
			deadline = UINT64_MAX;
		}
		nanosleep(&ts, NULL);
	}
}

/* ------------------------------------------------------------ the watcher */

/* --watch: starts the interference detector (src/linux/watch.h) before the
 * program, logging to RUNDIR/interference.log; the run's processes are those
 * with STALLSCOPE_RUN=<absolute rundir>, as start_child sets it. */
static int start_watch(struct run *r)
{
	char log[PATH_MAX + 32], abs_run[PATH_MAX];
	struct strbuf err = STRBUF_INIT;
	int e;

	if (!realpath(r->rundir, abs_run))
		snprintf(abs_run, sizeof(abs_run), "%s", r->rundir);
	pathf(log, sizeof(log), "%s/interference.log", r->rundir);
	r->o.wg.wo.log_path = log;
	r->o.wg.wo.rundir = abs_run;
	e = watch_start(&r->o.wg.wo, &r->watch, &err);
	r->o.wg.wo.log_path = r->o.wg.wo.rundir = NULL;	/* copied by watch_start */
	if (e < 0) {
		cli_error("--watch: %s", err.len ? err.buf : strerror(-e));
		unlink(log);
		sb_release(&err);
		return -1;
	}
	sb_release(&err);
	if (r->uid != (uid_t)-1 && chown(log, r->uid, r->gid) < 0)
		cli_warn("cannot chown '%s': %s", log, strerror(errno));
	return 0;
}

/* Stops a watcher of a run that recorded nothing and removes its log. */
static void drop_watch(struct run *r)
{
	char log[PATH_MAX + 32];
	struct watch_result res = { 0 };

	if (!r->watch)
		return;
	watch_stop(r->watch, &res);
	r->watch = NULL;
	free(res.summary);
	pathf(log, sizeof(log), "%s/interference.log", r->rundir);
	unlink(log);
}

/* ------------------------------------------------------------ the loop */

/* On a terminal (and not --quiet): what is recorded, where, and how to
 * stop it; then a status line (live_status). Silent otherwise: scripts and
 * bench read run.ini. */
static void say_start(struct run *r)
{
	char what[256];

	r->live = !r->o.quiet && isatty(STDERR_FILENO);
	if (!r->live)
		return;
	if (r->fmode == FRAMES_NONE)
		snprintf(what, sizeof(what), "no frame source");
	else
		listened_text(r, what, sizeof(what));
	fprintf(stderr, "%s: recording '%s' (pid %d) into '%s'; frames from %s; %s\n", cli_prog,
		r->program.buf, r->pid, r->rundir, what,
		r->o.duration_s > 0 ? "it stops after --duration, or Ctrl-C" : "Ctrl-C stops it");
	r->live_next_ns = r->t_start ? r->t_start + NSEC : clock_ns(CLOCK_MONOTONIC) + NSEC;
}

/* Writes one late wake-up of the probe as a "late_wakeup" event. */
static void on_late_wakeup(void *ctx, const struct probe_late *w)
{
	struct run *r = ctx;
	char text[64];

	probe_late_text(w, text, sizeof(text));
	if (rec_writer_event(r->w, w->t_mono_ns, 0, "late_wakeup", text) == 0)
		r->probe_late++;
}

/* Starts --probe and --kick beside the recording; 0, or -1 reported. */
static int start_helpers(struct run *r)
{
	struct strbuf err = STRBUF_INIT;
	int e;

	if (r->o.probe) {
		struct probe_opts po = {
			.cpus = r->helper_cpus,
			.interval_ns = PROBE_INTERVAL_NS,
			.prio = PROBE_PRIO,
			.late_ns = PROBE_LATE_NS,
			.lock_memory = false,	/* --rt decides the recorder's memory */
			.on_late = on_late_wakeup,
			.ctx = r,
		};

		e = probe_start(&po, &r->probe, &err);
		if (e < 0) {
			cli_error("--probe: %s", err.len ? err.buf : strerror(-e));
			sb_release(&err);
			return -1;
		}
		if (!probe_cpu(r->probe, 0)->fifo)
			note(r, "--probe: SCHED_FIFO refused (%s), probing at SCHED_OTHER",
			     strerror(-probe_cpu(r->probe, 0)->fifo_err));
	}
	if (r->o.kick_ms > 0) {
		struct kick_opts ko = {
			.mode = KICK_KICK,
			.cpus = r->helper_cpus,
			.interval_ns = (uint64_t)(r->o.kick_ms * 1e6 + 0.5),
		};

		e = kick_start(&ko, &r->kick, &err);
		if (e < 0) {
			cli_error("--kick: %s", err.len ? err.buf : strerror(-e));
			sb_release(&err);
			return -1;
		}
	}
	sb_release(&err);
	return 0;
}

/* Stops them; the probe's last late wake-ups go into the record, so this
 * comes before the writer closes. Harmless twice. */
static void stop_helpers(struct run *r)
{
	if (r->probe)
		probe_stop(r->probe);
	if (r->kick) {
		r->kick_res = malloc(sizeof(*r->kick_res));
		if (r->kick_res)
			kick_stop(r->kick, r->kick_res);
		kick_free(r->kick);
		r->kick = NULL;
	}
}

static void set_rt(struct run *r)
{
	struct sched_param sp = { .sched_priority = 50 };
	int e1 = 0, e2 = 0;

	if (sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &sp) < 0)
		e1 = errno;
#if defined(__SANITIZE_ADDRESS__)
	/* ASan's shadow memory is terabytes of reserved address space: locking
	 * it would exhaust memory; sanitized builds sample unlocked */
	e2 = ENOTSUP;
#else
	if (mlockall(MCL_CURRENT | MCL_FUTURE) < 0)
		e2 = errno;
#endif
	if (!e1 && !e2)
		snprintf(r->rt_note, sizeof(r->rt_note), "SCHED_FIFO 50, mlockall");
	else
		snprintf(r->rt_note, sizeof(r->rt_note), "%s%s%s%s%s",
			 e1 ? "no SCHED_FIFO (" : "SCHED_FIFO 50", e1 ? strerror(e1) : "",
			 e1 ? ")" : "", e2 ? ", no mlockall: " : ", mlockall",
			 e2 ? strerror(e2) : "");
	if (e1 || e2)
		note(r, "--rt: %s", r->rt_note);
}

/* The frame thread presented: its process is the run's frame process
 * (run.ini frame_pid, frame_process). */
static void note_frame_process(struct run *r)
{
	r->frame_tid = r->ft_tid;
	if (r->frame_pid == r->fpid)
		return;
	r->frame_pid = r->fpid;
	snprintf(r->frame_comm, sizeof(r->frame_comm), "%s",
		 r->fpid == r->pid ? r->program.buf : r->fp_comm);
}

/*
 * Makes PID the sampled process with TID its frame thread (a launcher's
 * child that presents: every process that writes into the ring inherited
 * it from the run); writes a frame_process event. 0, or -errno with the old
 * process still sampled.
 */
static int switch_process(struct run *r, uint64_t now, int pid, int tid)
{
	struct strbuf name = STRBUF_INIT, text = STRBUF_INIT;
	int err = sampler_set_process(r->s, pid, tid);

	if (err < 0)
		return err;
	r->fpid = pid;
	r->fp_ended = false;
	if (recsys_comm(pid, 0, &name) < 0)
		sb_adds(&name, "?");
	snprintf(r->fp_comm, sizeof(r->fp_comm), "%s", name.buf);
	sb_addf(&text, "pid=%d name=%s", pid, name.buf);
	rec_writer_event(r->w, now, (uint32_t)tid, "frame_process", text.buf);
	sb_release(&name);
	sb_release(&text);
	return 0;
}

/* Makes TID the frame thread, and its process's main thread the second
 * sampled thread when they differ; a thread of another process of the run
 * brings the sampler over to that process. Writes a frame_thread event. */
static void switch_frame_thread(struct run *r, uint64_t now, int tid)
{
	struct strbuf name = STRBUF_INIT, text = STRBUF_INIT;
	int err = sampler_set_thread(r->s, 0, tid), pid;

	if (err == -ESRCH && r->own_child && (pid = recsys_tgid(tid)) > 0 && pid != r->fpid)
		err = switch_process(r, now, pid, tid);
	if (err < 0)
		return;	/* gone already: keep the old one */
	r->ft_tid = tid;
	r->ft2_tid = tid != r->fpid ? r->fpid : 0;
	sampler_set_thread(r->s, 1, r->ft2_tid);
	note_frame_process(r);
	if (recsys_comm(r->fpid, tid, &name) < 0)
		sb_adds(&name, "?");
	sb_addf(&text, "tid=%d name=%s", tid, name.buf);
	rec_writer_event(r->w, now, (uint32_t)tid, "frame_thread", text.buf);
	sb_release(&name);
	sb_release(&text);
}

/* Counts one present of TID; a full table forgets its quietest thread. */
static void count_present(struct run *r, int tid)
{
	struct presenter *p = NULL, *low = &r->pres[0];

	for (size_t i = 0; i < NPRESENTERS && !p; i++) {
		if (r->pres[i].tid == tid)
			p = &r->pres[i];
		else if (r->pres[i].cur + r->pres[i].prev < low->cur + low->prev)
			low = &r->pres[i];
	}
	if (!p) {
		p = low;
		*p = (struct presenter){ .tid = tid };
	}
	p->cur++;
}

/* Presents of TID lately (this period and the one before); 0: none. */
static uint32_t presents_of(const struct run *r, int tid)
{
	for (size_t i = 0; i < NPRESENTERS; i++)
		if (tid && r->pres[i].tid == tid)
			return r->pres[i].cur + r->pres[i].prev;
	return 0;
}

/* The thread that presented most lately; 0: none. */
static int busiest_presenter(const struct run *r)
{
	const struct presenter *best = NULL;

	for (size_t i = 0; i < NPRESENTERS; i++)
		if (r->pres[i].tid && (!best || r->pres[i].cur + r->pres[i].prev >
							 best->cur + best->prev))
			best = &r->pres[i];
	return best ? best->tid : 0;
}

/* A frame ended at T: the last frame's stamp, and a stall for the status
 * line when the gap before it was long. */
static void frame_seen(struct run *r, uint64_t t)
{
	if (r->last_frame_ns && t > r->last_frame_ns && t - r->last_frame_ns > LIVE_STALL_NS) {
		r->live_stalls++;
		r->live_last_stall_ns = t - r->last_frame_ns;
	}
	if (t > r->last_frame_ns)
		r->last_frame_ns = t;
}

/* On a terminal, once a second: elapsed, frames, fps over the last second,
 * stalls so far and the last one's length, on one line redrawn in place. */
static void live_status(struct run *r, uint64_t now)
{
	char stall[48] = "";

	if (!r->live || now < r->live_next_ns)
		return;
	if (r->live_stalls)
		snprintf(stall, sizeof(stall), " (last %.0f ms)", r->live_last_stall_ns / 1e6);
	fprintf(stderr, "\r%s: %.0f s  frames %llu  fps %.1f  stalls %llu%s\033[K", cli_prog,
		(double)(now - r->t_start) / 1e9, (unsigned long long)r->frames,
		(double)(r->frames - r->live_frames) * 1e9 / (double)(now - r->live_next_ns + NSEC),
		(unsigned long long)r->live_stalls, stall);
	r->live_frames = r->frames;
	r->live_next_ns = now + NSEC;
}

static void drain_ring(struct run *r, uint64_t now)
{
	struct ring_frame buf[1024];
	size_t n;
	int last_tid = 0;

	do {
		n = ring_drain(r->ring, now, buf, sizeof(buf) / sizeof(buf[0]));
		for (size_t i = 0; i < n; i++) {
			struct rec_frame f = { buf[i].t_ns, buf[i].tid, buf[i].source };

			rec_writer_frame(r->w, &f);
			r->frames_src[f.source < SRC_N ? f.source : 0]++;
			frame_seen(r, f.t_ns);
			if (!buf[i].tid)
				continue;
			count_present(r, (int)buf[i].tid);
			if ((int)buf[i].tid == r->ft_tid)
				note_frame_process(r);
			else
				last_tid = (int)buf[i].tid;
		}
		r->frames += n;
	} while (n == sizeof(buf) / sizeof(buf[0]));
	r->other_tid = last_tid;
	/* Follow the presenting thread, unless the user named one: the one
	 * that presented most over the last one to two seconds, and only when
	 * it presented more than the frame thread, so that two threads that
	 * both present (GL in one, markers in another) do not swap the role
	 * every sample, and a thread that presented once (a window's first
	 * clear) does not keep it. */
	if (!r->o.thread) {
		int best = busiest_presenter(r);

		if (best && best != r->ft_tid &&
		    presents_of(r, best) > presents_of(r, r->ft_tid))
			switch_frame_thread(r, now, best);
	}
	if (now >= r->pres_flip_ns) {
		for (size_t i = 0; i < NPRESENTERS; i++) {
			r->pres[i].prev = r->pres[i].cur;
			r->pres[i].cur = 0;
			if (!r->pres[i].prev)
				r->pres[i].tid = 0;	/* quiet for a while: forgotten */
		}
		r->pres_flip_ns = now + FT_SWITCH_NS;
	}
}

/* --thread: whether TID is a live thread of the program with the name (its
 * comm) or the number the user gave. */
static bool thread_named(struct run *r, int tid)
{
	struct strbuf name = STRBUF_INIT;
	char num[16];
	bool yes;

	snprintf(num, sizeof(num), "%d", tid);
	yes = recsys_comm(r->fpid, tid, &name) == 0 &&
	      (!strcmp(name.buf, r->o.thread) || !strcmp(num, r->o.thread));

	sb_release(&name);
	return yes;
}

/* --thread: the thread the user named, a TID or a name (its comm, as in
 * /proc/PID/task/TID/comm); 0 while the program has no such thread. Looks
 * through every thread only in a slow sample (the sampler's snapshot); in
 * the others only at a thread that presented a frame, once per thread (the
 * named thread is mostly the one presenting), so that a short or late
 * thread is not missed and a sample costs at most one read. */
static int named_thread(struct run *r)
{
	const struct rec_thread *th;
	char *end;
	long tid;
	size_t n, k;

	n = sampler_threads(r->s, &th);
	tid = strtol(r->o.thread, &end, 10);
	if (*r->o.thread && !*end)
		return n ? (int)tid : 0;
	for (size_t i = 0; i < n; i++)
		if (thread_named(r, (int)th[i].tid))
			return (int)th[i].tid;
	if (n)	/* renamed since: look at them again */
		memset(r->thread_checked, 0, sizeof(r->thread_checked));
	if (r->other_tid <= 0)
		return 0;
	k = sizeof(r->thread_checked) / sizeof(r->thread_checked[0]);
	for (size_t i = 0; i < k; i++)
		if (r->thread_checked[i] == r->other_tid)
			return 0;
	if (thread_named(r, r->other_tid))
		return r->other_tid;
	memmove(r->thread_checked + 1, r->thread_checked,
		(k - 1) * sizeof(r->thread_checked[0]));
	r->thread_checked[0] = r->other_tid;
	return 0;
}

/* --thread: every sample until the named thread is the frame thread
 * (threads start late: a render thread after the window opens), and again
 * when it has gone (a new one of that name takes over; whether it is gone
 * is asked in slow samples only). */
static void watch_named_thread(struct run *r, uint64_t now)
{
	const struct rec_thread *th;
	int tid;

	if (r->thread_found) {
		if (!sampler_threads(r->s, &th) || thread_named(r, r->ft_tid))
			return;
		r->thread_found = false;
	}
	tid = named_thread(r);
	if (tid <= 0)
		return;
	if (tid != r->ft_tid)
		switch_frame_thread(r, now, tid);
	r->thread_found = r->ft_tid == tid;
	r->thread_seen |= r->thread_found;
}

static void poll_hud(struct run *r, uint64_t now)
{
	uint64_t n = 0;
	int err = hud_poll(r->hud, &n);

	if (err < 0) {
		static bool said;

		if (!said) {
			note(r, "hud file: %s", strerror(-err));
			said = true;
		}
		return;
	}
	for (uint64_t i = 0; i < n; i++) {
		struct rec_frame f = { now, 0, HUD_SOURCE };

		rec_writer_frame(r->w, &f);
	}
	r->frames += n;
	r->frames_src[HUD_SOURCE] += n;
	if (n)
		frame_seen(r, now);
}

/* One sample at NOW; returns false when the program has gone. */
static bool take_sample(struct run *r, uint64_t now)
{
	const struct sampler_event *ev;
	const struct rec_thread *th;
	size_t n;
	int err;

	if (r->o.no_sample)	/* frames only: the program's end comes by SIGCHLD */
		return r->own_child || kill(r->pid, 0) == 0 || errno != ESRCH;
	err = sampler_sample(r->s, now, r->vals);
	if (err == -ESRCH)
		return false;
	rec_writer_sample(r->w, now, r->vals);
	n = sampler_events(r->s, &ev);
	for (size_t i = 0; i < n; i++)
		rec_writer_event(r->w, now, (uint32_t)ev[i].tid, ev[i].kind, ev[i].text);
	n = sampler_threads(r->s, &th);
	if (n)	/* one snapshot, however many threads (the record's own type) */
		rec_writer_threads(r->w, now, th, n);
	r->samples++;
	return true;
}

static void loop(struct run *r)
{
	uint64_t next = clock_ns(CLOCK_MONOTONIC), end = UINT64_MAX;
	uint64_t next_clock, next_flush;

	r->t_start = next;
	next_clock = next + CLOCK_EVERY_NS;
	next_flush = next + FLUSH_EVERY_NS;
	if (r->o.duration_s > 0)
		end = next + (uint64_t)(r->o.duration_s * 1e9);
	for (;;) {
		struct timespec ts;
		uint64_t now, done;

		next += r->period_ns;
		ts_from_ns(&ts, next);
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			if (got_signal || got_child)
				break;
		if (got_signal) {
			r->end = END_SIGNAL;
			break;
		}
		now = clock_ns(CLOCK_MONOTONIC);
		if (now > next) {
			lathist_add(&r->late, now - next);
			if (now - next >= r->period_ns) {
				uint64_t skip = (now - next) / r->period_ns;

				r->missed += skip;
				next += skip * r->period_ns;
			}
		} else {
			lathist_add(&r->late, 0);	/* woken early by a signal */
		}
		if (got_child) {
			got_child = 0;
			if (program_ended(r, now)) {
				r->end = END_EXIT;
				break;
			}
		}
		if (!take_sample(r, now)) {
			if (!r->own_child) {
				r->end = END_GONE;
				break;
			}
			if (r->fpid != r->pid) {
				/* the process followed has gone: back to the child
				 * while it lives */
				r->fp_ended = true;
				if (!child_ended(r) && switch_process(r, now, r->pid, r->pid) == 0) {
					r->ft_tid = r->pid;
					r->ft2_tid = 0;
				}
			}
			if (program_ended(r, now)) {
				r->end = END_EXIT;
				break;
			}
			/* a zombie leader with live threads, or not reaped yet */
		}
		if (r->ring)
			drain_ring(r, now);
		if (r->o.thread && r->s)
			watch_named_thread(r, now);
		if (r->hud)
			poll_hud(r, now);
		if (r->probe)
			probe_poll(r->probe);
		live_status(r, now);
		pump_log(r, now, false);
		if (now >= next_clock) {
			struct rec_clock c;

			clock_pair(&c);
			rec_writer_clock(r->w, &c);
			next_clock += CLOCK_EVERY_NS;
		}
		if (now >= next_flush) {
			rec_writer_flush(r->w);
			next_flush += FLUSH_EVERY_NS;
		}
		if (now >= end) {
			r->end = END_DURATION;
			break;
		}
		if (r->o.stop_file && r->samples % 10 == 0 && access(r->o.stop_file, F_OK) == 0) {
			r->end = END_STOP_FILE;
			break;
		}
		done = clock_ns(CLOCK_MONOTONIC);
		lathist_add(&r->work, done - now);
	}
	r->t_end = clock_ns(CLOCK_MONOTONIC);
}

/* ------------------------------------------------------------ setup */

/* Where the record and the log grow while the program runs: tmpfs
 * (/dev/shm) when it is there, else the run directory itself. */
static void choose_paths(struct run *r)
{
	struct stat st;
	char stamp[32];

	utc_stamp(stamp, sizeof(stamp), r->clock0.real_ns, false);
	pathf(r->rec_final, sizeof(r->rec_final), "%s/record.ssr", r->rundir);
	pathf(r->log_final, sizeof(r->log_final), "%s/program.log", r->rundir);
	if (stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) && access("/dev/shm", W_OK) == 0) {
		snprintf(r->rec_path, sizeof(r->rec_path), "/dev/shm/stallscope-%d-%s.ssr",
			 (int)getpid(), stamp);
		snprintf(r->log_path, sizeof(r->log_path), "/dev/shm/stallscope-%d-%s.log",
			 (int)getpid(), stamp);
		snprintf(r->out_path, sizeof(r->out_path), "/dev/shm/stallscope-%d-%s.out",
			 (int)getpid(), stamp);
		snprintf(r->ini_tmp, sizeof(r->ini_tmp), "/dev/shm/stallscope-%d-%s.ini",
			 (int)getpid(), stamp);
	} else {
		note(r, "record and log written in place: /dev/shm is not a writable directory");
		pathf(r->rec_path, sizeof(r->rec_path), "%s", r->rec_final);
		pathf(r->log_path, sizeof(r->log_path), "%s", r->log_final);
		pathf(r->out_path, sizeof(r->out_path), "%s/program.out", r->rundir);
	}
	if (r->o.pid)
		r->log_path[0] = '\0';	/* attached: no output of its to capture */
}

static int open_record(struct run *r)
{
	const struct sampler_field *f;
	const struct sampler_meta *m;
	struct sampler_opts so = { 0 };
	char tmp[64];
	size_t nm;
	int err;

	err = rec_writer_new(r->rec_path, &r->w);
	if (err < 0)
		return cli_error_errno(err, "cannot create '%s'", r->rec_path);
	if (r->uid != (uid_t)-1 && chown(r->rec_path, r->uid, r->gid) < 0)
		cli_warn("cannot chown '%s': %s", r->rec_path, strerror(errno));

	so.pid = r->pid;
	so.period_ns = r->period_ns;
	so.naive = r->o.naive;
	so.intern = intern_cb;
	so.intern_ctx = r->w;
	err = sampler_new(&so, &r->s);
	if (err < 0 && err != -ESRCH)
		return cli_error_errno(err, "cannot sample process %d", r->pid);
	/* -ESRCH: ended before the first look; an empty record says so */
	r->ft_tid = r->pid;

	rec_writer_meta(r->w, "program", r->program.buf);
	rec_writer_meta(r->w, "argv", r->cmdline.buf);
	snprintf(tmp, sizeof(tmp), "%d", r->pid);
	rec_writer_meta(r->w, "pid", tmp);
	snprintf(tmp, sizeof(tmp), "%llu", (unsigned long long)r->period_ns);
	rec_writer_meta(r->w, "period_ns", tmp);
	{
		struct utsname u;

		if (uname(&u) == 0)
			rec_writer_meta(r->w, "kernel", u.release);
	}
	snprintf(tmp, sizeof(tmp), "%ld", sysconf(_SC_NPROCESSORS_ONLN));
	rec_writer_meta(r->w, "cpus", tmp);
	snprintf(tmp, sizeof(tmp), "%llu", (unsigned long long)r->clock0.mono_ns);
	rec_writer_meta(r->w, "clock_mono_ns", tmp);
	snprintf(tmp, sizeof(tmp), "%llu", (unsigned long long)r->clock0.real_ns);
	rec_writer_meta(r->w, "clock_real_ns", tmp);
	snprintf(tmp, sizeof(tmp), "%llu.%06llu", (unsigned long long)(r->clock0.real_ns / NSEC),
		 (unsigned long long)(r->clock0.real_ns % NSEC / 1000));
	rec_writer_meta(r->w, "t0", tmp);
	snprintf(tmp, sizeof(tmp), "%llu.%09llu", (unsigned long long)(r->clock0.mono_ns / NSEC),
		 (unsigned long long)(r->clock0.mono_ns % NSEC));
	rec_writer_meta(r->w, "t0_mono", tmp);
	rec_writer_meta(r->w, "frame_source", frames_name(r));
	nm = r->s ? sampler_meta(r->s, &m) : 0;
	for (size_t i = 0; i < nm; i++)
		rec_writer_meta(r->w, m[i].key, m[i].value);

	r->nfields = r->s ? sampler_fields(r->s, &f) : 0;
	for (size_t i = 0; i < r->nfields; i++) {
		err = rec_writer_field(r->w, f[i].name,
				       f[i].kind);
		if (err < 0)
			return cli_error_errno(err, "record field '%s'", f[i].name);
	}
	r->vals = calloc(r->nfields ? r->nfields : 1, sizeof(*r->vals));
	if (!r->vals)
		return cli_error_errno(-ENOMEM, "record");
	err = rec_writer_begin(r->w);
	if (err < 0)
		return cli_error_errno(err, "cannot write '%s'", r->rec_path);
	rec_writer_clock(r->w, &r->clock0);
	if (r->s) {
		const char *const *sn;
		size_t n = sampler_notes(r->s, &sn);

		for (size_t i = 0; i < n; i++)
			rec_writer_event(r->w, r->clock0.mono_ns, 0, "note", sn[i]);
	}
	r->bytes0 = rec_writer_bytes(r->w);
	return r->s ? 0 : 1;
}

/* Parses --frames into the frame mode and the hooks wanted. */
static int parse_frames(struct run *r)
{
	const char *f = r->o.frames;

	if (!strcmp(f, "auto")) {
		r->fmode = FRAMES_RING;
		r->hooks = HOOK_ALL;
	} else if (!strcmp(f, "marker")) {
		r->fmode = FRAMES_RING;
	} else if (!strcmp(f, "gl")) {
		r->fmode = FRAMES_RING;
		r->hooks = HOOK_GL;
	} else if (!strcmp(f, "vk")) {
		r->fmode = FRAMES_RING;
		r->hooks = HOOK_VK;
	} else if (!strncmp(f, "hud:", 4) && f[4]) {
		r->fmode = FRAMES_HUD;
	} else if (!strcmp(f, "none")) {
		r->fmode = FRAMES_NONE;
	} else {
		return cli_usage_error("option '--frames': expected auto, marker, gl, vk, "
				       "hud:PATH or none, got '%s'", f);
	}
	return 0;
}

/*
 * At the end, on the terminal and not only in run.ini: what went wrong. A
 * program that failed (a non-zero status, or a signal it was not stopped
 * with), a --thread never seen, a HUD file that never appeared are '!!'
 * lines (also with -q); evidence missing because record is not root is a
 * note (not with -q).
 */
/* Says what went wrong with the run; returns whether the program failed
 * (record's exit status 3). A program's status or signal that answers our
 * own stop (duration, stop file, SIGINT) is not a failure: runini_failure's
 * rule, which the analysis applies to run.ini. */
static bool say_what_went_wrong(const struct run *r)
{
	bool stopped = r->end == END_DURATION || r->end == END_STOP_FILE || r->end == END_SIGNAL;
	bool failed = false;
	int st = WIFEXITED(r->status) ? WEXITSTATUS(r->status) : 0;
	int sig = WIFSIGNALED(r->status) ? WTERMSIG(r->status) : 0;

	if (r->own_child && r->reaped && WIFEXITED(r->status) && st &&
	    !(stopped && (st == 128 + SIGINT || st == 128 + SIGTERM || st == 128 + SIGHUP))) {
		fprintf(stderr, "!! PROGRAM FAILED: '%s' exited with status %d (program.log has its "
			"output)\n", r->program.buf, st);
		failed = true;
	} else if (r->own_child && r->reaped && WIFSIGNALED(r->status) &&
		   !(stopped && (sig == SIGTERM || sig == SIGKILL || sig == SIGINT ||
				 sig == SIGHUP))) {
		fprintf(stderr, "!! PROGRAM FAILED: '%s' was killed by SIG%s%s\n", r->program.buf,
			sigabbrev_np(sig) ?: "?", WCOREDUMP(r->status) ? " (core dumped)" : "");
		failed = true;
	}
	if (r->o.thread && !r->thread_seen)
		fprintf(stderr, "!! --thread '%s': no thread of that name or id was seen; the frame "
			"thread was the one that presented (run.ini frame_thread)\n", r->o.thread);
	if (r->fmode == FRAMES_HUD && access(r->o.frames + 4, F_OK) != 0)
		fprintf(stderr, "!! --frames %s: the file never appeared\n", r->o.frames);
	if (!r->o.quiet && geteuid() != 0 && r->s)
		fprintf(stderr, "%s: note: not root: no kernel stacks in the record (a blocked "
			"stall's evidence has no stack)\n", cli_prog);
	return failed;
}

/* A start that failed (the record or the first run.ini could not be
 * written): nothing was recorded, so leave neither a record, a log nor a
 * run directory behind, in /dev/shm or anywhere. */
static void abandon_start(struct run *r)
{
	stop_child(r, SIGTERM);
	rec_writer_close(r->w);
	r->w = NULL;
	unlink(r->rec_path);
	if (r->log_path[0]) {
		unlink(r->log_path);
		unlink(r->out_path);
	}
	unlink(r->ini_path);
	drop_watch(r);
	rmdir(r->rundir);
}

/* ------------------------------------------------------------ the command */

static void usage(FILE *f)
{
	fprintf(f,
		"usage: stallscope record [options] [--] CMD [ARGS...]\n"
		"       stallscope record [options] -p PID\n\n"
		"Runs CMD (or attaches to PID) and records its frames and, every period, the\n"
		"kernel's view of it and the system into a run directory: record.ssr,\n"
		"run.ini, program.log. Records until the program exits, the duration ends,\n"
		"the stop file appears, or SIGINT/SIGTERM (forwarded to the program).\n\n"
		"options:\n"
		"  -o, --output DIR      run directory (default runs/<UTC stamp>-<program>)\n"
		"  -p, --pid PID         attach to a running process instead of starting one\n"
		"      --period MS       sampling period in ms (default 10)\n"
		"      --duration S      stop after S seconds (and stop the program)\n"
		"      --stop-file PATH  stop when PATH appears (checked every 10 periods)\n"
		"      --frames SOURCE   auto (default: marker ring plus GL/EGL and Vulkan hooks),\n"
		"                        marker, gl, vk, hud:PATH (count a HUD's lines), none\n"
		"      --no-hook         no GL/EGL preload, no Vulkan layer: frames from the\n"
		"                        marker API only (same as --frames marker)\n"
		"      --thread TID|NAME the frame thread: this TID, or the thread of this name\n"
		"                        (default: the thread that presents; the main thread\n"
		"                        is sampled too when it is another)\n"
		"      --rt              sample at SCHED_FIFO with memory locked, when permitted\n"
		"      --probe           run the timer wake-up probe beside it (stallscope-probe(1));\n"
		"                        late wake-ups go into the record\n"
		"      --kick MS         wake every CPU from another every MS (stallscope-kick(1))\n"
		"  -q, --quiet           no summary at the end\n"
		"      --naive-sampler   benchmarks only: open, read and close every file each time\n"
		"      --no-sample       frames only, no samples (to check the recorder changes\n"
		"                        nothing: bench --recorder-ab)\n"
		"      --meta KEY=VALUE  an extra run.ini key (bench: name, variant, switches,\n"
		"                        round); record's own keys win\n"
		"      --watch           run the interference detector beside the program\n"
		"                        (docs/WATCH.md): interference.log, run.ini interfered=\n"
		"  the watcher's options, each of which implies --watch (stallscope-watch(1)):\n");
	watch_opts_help(f, 24);
	fprintf(f,
		"  -h, --help            this text\n\n"
		"EXAMPLES\n"
		"  stallscope record -- ./game --benchmark\n"
		"  stallscope record -o runs/base --duration 120 --frames hud:/tmp/hud.log -- glxgears\n"
		"  stallscope record -p $(pidof game) --stop-file /tmp/stop\n"
		"  stallscope record --thread dxvk-submit -- wine game.exe\n"
		"  stallscope record --watch --duration 120 -- ./game --benchmark\n");
}

int cmd_record(int argc, char **argv)
{
	static const struct option own[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "pid", required_argument, NULL, 'p' },
		{ "period", required_argument, NULL, 'P' },
		{ "duration", required_argument, NULL, 'd' },
		{ "stop-file", required_argument, NULL, 's' },
		{ "frames", required_argument, NULL, 'f' },
		{ "rt", no_argument, NULL, 'r' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "naive-sampler", no_argument, NULL, 'N' },
		{ "probe", no_argument, NULL, 'B' },
		{ "kick", required_argument, NULL, 'K' },
		{ "no-sample", no_argument, NULL, 256 },
		{ "meta", required_argument, NULL, 257 },
		{ "watch", no_argument, NULL, 258 },
		{ "no-hook", no_argument, NULL, 'H' },
		{ "thread", required_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
	};
	struct option lo[sizeof(own) / sizeof(own[0]) + WATCH_OPT_N + 1] = { { 0 } };
	size_t nlo = sizeof(own) / sizeof(own[0]);
	static struct run run;
	struct run *r = &run;
	struct sigaction sa = { 0 };
	const char *sudo_uid, *sudo_gid;
	int c, ret = 1, err;

	r->o = (struct record_opts){
		.period_ms = 10,
		.frames = "auto",
	};
	sb_init(&r->program);
	sb_init(&r->cmdline);
	sb_init(&r->notes);
	sb_init(&r->logbuf);
	r->log_rd = r->log_fd = -1;
	r->uid = (uid_t)-1;
	r->gid = (gid_t)-1;
	optind = 1;
	memcpy(lo, own, sizeof(own));
	watch_opts_add(lo, &nlo);	/* each implies --watch */
	while ((c = getopt_long(argc, argv, "+:o:p:qh", lo, NULL)) != -1) {
		double d;
		long l;

		switch (c) {
		case 'o':
			r->o.outdir = optarg;
			break;
		case 'p':
			if (cli_parse_int("--pid", optarg, 1, INT_MAX, &l) < 0)
				return EXIT_USAGE;
			r->o.pid = l;
			break;
		case 'P':
			if (cli_parse_double("--period", optarg, 0.1, 10000, &d) < 0)
				return EXIT_USAGE;
			r->o.period_ms = d;
			break;
		case 'd':
			if (cli_parse_double("--duration", optarg, 0.001, 1e7, &d) < 0)
				return EXIT_USAGE;
			r->o.duration_s = d;
			break;
		case 's':
			r->o.stop_file = optarg;
			break;
		case 'f':
			r->o.frames = optarg;
			break;
		case 'r':
			r->o.rt = true;
			break;
		case 'q':
			r->o.quiet = true;
			break;
		case 'N':
			r->o.naive = true;
			break;
		case 'B':
			r->o.probe = true;
			break;
		case 'K':
			if (cli_parse_double("--kick", optarg, 0.05, 3600e3, &d) < 0)
				return EXIT_USAGE;
			r->o.kick_ms = d;
			break;
		case 256:
			r->o.no_sample = true;
			break;
		case 257: {
			const char *eq = strchr(optarg, '=');
			size_t kl = eq ? (size_t)(eq - optarg) : 0;

			if (!eq || !kl || kl >= 64 || strspn(optarg, "abcdefghijklmnopqrstuvwxyz"
						       "0123456789_.") != kl)
				return cli_usage_error("option '--meta': expected KEY=VALUE with KEY "
						       "of a-z, 0-9, '_', '.', got '%s'", optarg);
			if (r->o.nmeta == sizeof(r->o.meta) / sizeof(r->o.meta[0]))
				return cli_usage_error("option '--meta': 32 at most");
			r->o.meta[r->o.nmeta++] = optarg;
			break;
		}
		case 258:
			r->o.watch = true;
			break;
		case 'H':
			r->o.no_hook = true;
			break;
		case 'T':
			if (!*optarg)
				return cli_usage_error("option '--thread': expected a TID or a "
						       "thread name, got ''");
			r->o.thread = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			if (watch_opt_is(c)) {
				if (watch_opt_take(&r->o.wg, c, optarg) < 0)
					return EXIT_USAGE;
				r->o.watch = true;
				break;
			}
			return cli_bad_option(c, argv);
		}
	}
	r->argv = argv + optind;
	r->argc = argc - optind;
	if (r->o.pid && r->argc)
		return cli_usage_error("give either -p PID or a command, not both");
	if (!r->o.pid && !r->argc)
		return cli_usage_error("expected a command to run, or -p PID");
	if (parse_frames(r))
		return EXIT_USAGE;
	if (r->o.no_hook) {
		if (strcmp(r->o.frames, "auto") && strcmp(r->o.frames, "marker"))
			return cli_usage_error("'--no-hook' contradicts '--frames %s'",
					       r->o.frames);
		r->hooks = 0;	/* the ring stays, for the marker API */
	}
	if (r->o.pid && r->fmode == FRAMES_RING && strcmp(r->o.frames, "auto"))
		return cli_usage_error("'--frames %s' needs the program started by record; "
				       "with -p use hud:PATH or none", r->o.frames);
	if (r->o.stop_file && access(r->o.stop_file, F_OK) == 0)
		return cli_error("stop file '%s' exists already; remove it first", r->o.stop_file);
	if (r->o.probe || r->o.kick_ms > 0) {
		struct strbuf cerr = STRBUF_INIT;

		if (sched_cpus_choose(NULL, NULL, &r->helper_cpus, &cerr) < 0) {
			cli_error("%s: %s", r->o.probe ? "--probe" : "--kick", cerr.buf);
			sb_release(&cerr);
			return 1;
		}
	}
	r->period_ns = (uint64_t)(r->o.period_ms * 1e6);
	lathist_init(&r->late);
	lathist_init(&r->work);
	if (geteuid() == 0 && (sudo_uid = getenv("SUDO_UID")) &&
	    (sudo_gid = getenv("SUDO_GID"))) {
		r->uid = (uid_t)strtoul(sudo_uid, NULL, 10);
		r->gid = (gid_t)strtoul(sudo_gid, NULL, 10);
	}

	/* what the program is */
	if (r->o.pid) {
		r->pid = r->fpid = (int)r->o.pid;
		err = recsys_comm(r->pid, 0, &r->program);
		if (err < 0)
			return cli_error_errno(err, "cannot attach to process %d", r->pid);
		{
			struct strbuf raw = STRBUF_INIT;
			int nw = recsys_cmdline(r->pid, &raw);

			if (nw > 0) {
				char **words = calloc((size_t)nw, sizeof(*words));
				char *p = raw.buf;

				for (int i = 0; words && i < nw; i++) {
					words[i] = p;
					p += strlen(p) + 1;
				}
				if (words)
					inifmt_quote_argv(&r->cmdline, nw, words);
				free(words);
			}
			sb_release(&raw);
		}
		if (r->fmode == FRAMES_RING) {
			r->fmode = FRAMES_NONE;	/* auto: no ring reaches a running program */
			note(r, "frames: attached with -p, the frame ring cannot reach a running "
				"program (use --frames hud:PATH)");
		}
	} else {
		sb_adds(&r->program, r->argv[0]);
		{
			const char *b = strrchr(r->program.buf, '/');

			if (b) {
				memmove(r->program.buf, b + 1, strlen(b + 1) + 1);
				r->program.len = strlen(r->program.buf);
			}
		}
		inifmt_quote_argv(&r->cmdline, r->argc, r->argv);
	}

	clock_pair(&r->clock0);
	if (make_rundir(r) < 0)
		return 1;
	pathf(r->ini_path, sizeof(r->ini_path), "%s/run.ini", r->rundir);
	choose_paths(r);

	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = on_child;
	sa.sa_flags = SA_NOCLDSTOP;
	sigaction(SIGCHLD, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	if (r->fmode == FRAMES_RING) {
		/* before ours: what killed recorders left (their records stay) */
		(void)ring_reap_stale(NULL);
		err = ring_new(0, &r->ring);
		if (err < 0) {
			cli_error_errno(err, "cannot create the frame ring");
			rmdir(r->rundir);	/* nothing was recorded: no run directory */
			goto out;
		}
	} else if (r->fmode == FRAMES_HUD) {
		err = hud_new(r->o.frames + 4, &r->hud);
		if (err < 0) {
			cli_error_errno(err, "cannot follow '%s'", r->o.frames + 4);
			rmdir(r->rundir);
			goto out;
		}
	}
	if (r->o.watch && start_watch(r) < 0) {
		rmdir(r->rundir);
		goto out;
	}
	if (!r->o.pid && start_child(r) < 0) {
		/* nothing was recorded: leave no run directory behind */
		if (r->log_path[0]) {
			unlink(r->log_path);
			unlink(r->out_path);
		}
		drop_watch(r);
		rmdir(r->rundir);
		goto out;
	}
	if (r->watch)
		watch_set_program(r->watch, r->pid);
	err = open_record(r);
	if (err < 0) {
		abandon_start(r);
		goto out;
	}
	if (err > 0) {
		/* the program ended before the first look: an empty record */
		note(r, "the program ended before the first sample");
		r->end = r->own_child ? END_EXIT : END_GONE;
		if (r->own_child)
			while (!child_ended(r))
				usleep(1000);
		r->t_start = r->t_end = clock_ns(CLOCK_MONOTONIC);
	} else {
		if (write_ini(r, false) < 0) {
			abandon_start(r);	/* the run directory takes nothing (full?) */
			ret = 1;
			goto out;
		}
		/* wake at the deadline, not up to 50 us after it (the default slack) */
		prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
		if (r->o.rt)
			set_rt(r);
		r->cpu0_ns = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
		if (start_helpers(r) < 0)
			goto stop;
		say_start(r);
		loop(r);
		if (r->live)
			fputc('\n', stderr);	/* the status line stays, the summary follows */
		stop_helpers(r);
		/* the presents up to the program's exit, then those left in the ring */
		stop_child(r, r->end == END_SIGNAL && got_signal > 0 ? got_signal
			   : r->end == END_SIGNAL			? SIGKILL
									: SIGTERM);
		if (r->ring)
			drain_ring(r, clock_ns(CLOCK_MONOTONIC));
		if (r->hud)
			poll_hud(r, clock_ns(CLOCK_MONOTONIC));
	}
	pump_log(r, clock_ns(CLOCK_MONOTONIC), true);
	ret = 0;
stop:
	stop_child(r, SIGTERM);
	stop_helpers(r);
	if (r->watch) {
		err = watch_stop(r->watch, &r->wres);
		r->watch = NULL;
		if (err < 0)
			cli_warn("the watcher failed: %s; run.ini has no verdict", strerror(-err));
		else
			r->watched = true;
	}
	if (r->w) {
		struct rec_clock last;

		clock_pair(&last);
		rec_writer_clock(r->w, &last);
		rec_writer_flush(r->w);
		r->bytes_end = rec_writer_bytes(r->w);
		err = rec_writer_close(r->w);
		r->w = NULL;
		if (err < 0) {
			cli_error_errno(err, "cannot write the record '%s'", r->rec_path);
			ret = 1;
		}
		if (strcmp(r->rec_path, r->rec_final)) {
			err = recsys_move(r->rec_path, r->rec_final);
			if (err < 0) {
				cli_error_errno(err, "cannot move the record to '%s'; it stays at '%s'",
						r->rec_final, r->rec_path);
				ret = 1;
			} else {
				pathf(r->rec_path, sizeof(r->rec_path), "%s", r->rec_final);
			}
		}
		if (r->uid != (uid_t)-1 && chown(r->rec_path, r->uid, r->gid) < 0)
			cli_warn("cannot chown '%s': %s", r->rec_path, strerror(errno));
		if (r->log_fd >= 0) {
			close(r->log_fd);
			r->log_fd = -1;
		}
		if (r->log_path[0] && strcmp(r->log_path, r->log_final)) {
			err = recsys_move(r->log_path, r->log_final);
			if (err < 0) {
				cli_error_errno(err, "cannot move the program's log to '%s'; it stays at '%s'",
						r->log_final, r->log_path);
				ret = 1;
			} else {
				pathf(r->log_path, sizeof(r->log_path), "%s", r->log_final);
			}
		}
		if (!r->t_end)
			r->t_end = clock_ns(CLOCK_MONOTONIC);
		frames_verdict(r);
		if (write_ini(r, true) < 0)
			ret = 1;
	}
	if (!ret && !r->o.quiet) {
		fprintf(stderr, "%s: %llu samples, %llu frames, end: %s; run in '%s'\n", cli_prog,
			(unsigned long long)r->samples, (unsigned long long)r->frames,
			end_names[r->end], r->rundir);
		if (r->watched)
			fprintf(stderr, "%s: interference: %s\n", cli_prog, r->wres.summary);
	}
	if (r->frames_note[0])
		fprintf(stderr, "!! %s: %s\n", r->frames ? "FRAMES STOPPED" : "NO FRAMES",
			r->frames_note);
	if (!ret && say_what_went_wrong(r))
		ret = 3;	/* recorded, and the program failed: docs in the man page */
	if (r->watched && r->wres.interfered)
		fprintf(stderr, "!! INTERFERENCE: %s. THIS RUN IS INVALID\n", r->wres.summary);
out:
	drop_watch(r);
	free(r->wres.summary);
	if (r->log_rd >= 0)
		close(r->log_rd);
	if (r->log_fd >= 0)
		close(r->log_fd);
	sb_release(&r->logbuf);
	probe_free(r->probe);
	kick_free(r->kick);
	free(r->kick_res);
	sampler_free(r->s);
	ring_free(r->ring);
	hud_free(r->hud);
	free(r->vals);
	sb_release(&r->program);
	sb_release(&r->cmdline);
	sb_release(&r->notes);
	return ret;
}
