// SPDX-License-Identifier: MIT
/*
 * record.c: `stallscope record`, the recorder's command: its options and
 * usage, the terminal's view of the run (progress, the status line, the
 * summary and what went wrong), and the exit status. The recording itself
 * is src/run/recorder.h's.
 */
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "cmd/cmd.h"
#include "cmd/html.h"
#include "cmd/watch_opts.h"
#include "core/build.h"
#include "core/runini.h"
#include "linux/gitbuild.h"
#include "core/strbuf.h"
#include "run/recorder.h"
#include "run/rundir.h"

#define MAX_META 32

/* The terminal's side of the run: a status line is showing (so the next
 * message starts on a new line). */
struct term {
	bool live_shown;
};

static void say(void *ctx, enum recorder_say kind, const char *line)
{
	struct term *t = ctx;

	if (kind == RECORDER_LIVE) {
		fprintf(stderr, "\r%s: %s\033[K", cli_prog, cli_shown(line));
		t->live_shown = true;
		return;
	}
	if (t->live_shown)
		fputc('\n', stderr);	/* the status line stays, the message follows */
	t->live_shown = false;
	if (kind == RECORDER_ERROR)	/* the program's name, its threads': one line each */
		cli_error("%s", cli_shown(line));
	else if (kind == RECORDER_WARN)
		cli_warn("%s", cli_shown(line));
	else
		fprintf(stderr, "%s: %s\n", cli_prog, cli_shown(line));
}

/*
 * At the end, on the terminal and not only in run.ini: what went wrong. A
 * program that failed (it ended by itself with a non-zero status, or by a
 * signal), a --thread never seen, a HUD file that never appeared are '!!'
 * lines (also with -q); evidence missing because record is not root is a
 * note (not with -q). Returns whether the program failed (exit status 3).
 * What a program does once the run stopped it (duration, stop file, a
 * signal to record) is its answer to the stop, never a failure; a crash
 * then is a note: runini_end_judge, the rule the analysis applies to
 * run.ini.
 */
/* Who ended, as the end's lines name it: the run's program, and the
 * command started when that is another (a launcher script, a wrapper): its
 * exit status is the started one's. */
static const char *who_ended(const struct recorder_opts *o, const struct recorder_result *res,
			     char *buf, size_t size)
{
	const char *arg0 = o->argv && o->argv[0] ? o->argv[0] : NULL;
	const char *base = arg0 ? strrchr(arg0, '/') : NULL;

	base = base ? base + 1 : arg0;
	if (!base || !*base || !strcmp(base, res->program))
		snprintf(buf, size, "'%s'", cli_shown(res->program));
	else
		snprintf(buf, size, "'%s' (started as '%s')", cli_shown(res->program),
			 cli_shown(base));
	return buf;
}

static bool say_what_went_wrong(const struct recorder_opts *o, const struct recorder_result *res)
{
	bool mine = res->own_child && res->reaped, failed = false;
	int st = mine && WIFEXITED(res->status) ? WEXITSTATUS(res->status) : -1;
	int sig = mine && WIFSIGNALED(res->status) ? WTERMSIG(res->status) : 0;
	const char *stop = res->stop_sig ? sigabbrev_np(res->stop_sig) ?: "?" : NULL;
	struct strbuf why = STRBUF_INIT;
	char who[600];
	int k = mine ? runini_end_judge(stop, st >= 0 ? st : NAN, sig ? sigabbrev_np(sig) ?: "?"
									: NULL, &why)
		     : RUNINI_END_OK;

	if (k == RUNINI_END_FAILED && st > 0) {
		fprintf(stderr, "!! PROGRAM FAILED: %s exited with status %d (program.log has "
			"its output)\n", who_ended(o, res, who, sizeof(who)), st);
		failed = true;
	} else if (k == RUNINI_END_FAILED) {
		fprintf(stderr, "!! PROGRAM FAILED: %s was killed by SIG%s%s\n",
			who_ended(o, res, who, sizeof(who)), sigabbrev_np(sig) ?: "?",
			WCOREDUMP(res->status) ? " (core dumped)" : "");
		failed = true;
	} else if (k == RUNINI_END_NOTE && !o->quiet) {
		fprintf(stderr, "%s: note: %s was killed by SIG%s%s after the stop's SIG%s: a "
			"crash during its shutdown, its answer to the stop, not a failure of "
			"the run\n",
			cli_prog, who_ended(o, res, who, sizeof(who)), sigabbrev_np(sig) ?: "?",
			WCOREDUMP(res->status) ? " (core dumped)" : "", stop);
	}
	sb_release(&why);
	if (o->thread && !res->thread_seen)
		fprintf(stderr, "!! --thread '%s': no thread of that name or id was seen; the frame "
			"thread was the one that presented (run.ini frame_thread)\n",
			cli_shown(o->thread));
	if (!strncmp(o->frames, "hud:", 4) && access(o->frames + 4, F_OK) != 0)
		fprintf(stderr, "!! --frames %s: the file never appeared\n", cli_shown(o->frames));
	if (!o->quiet && geteuid() != 0 && res->sampled && !res->exact)
		fprintf(stderr, "%s: note: not root: no kernel stacks in the record (a blocked "
			"stall's evidence has no stack)\n", cli_prog);
	return failed;
}

/* The summary, the frames verdict and the interference: 0, or 3 when the
 * program failed. */
static int say_end(const struct recorder_opts *o, const struct recorder_result *res, bool ok)
{
	int ret = 0;

	if (ok && !o->quiet) {
		fprintf(stderr, "%s: %llu samples, %llu frames, end: %s; run in '%s'\n", cli_prog,
			(unsigned long long)res->samples, (unsigned long long)res->frames,
			res->end_name, cli_shown(res->rundir));
		if (res->watched)
			fprintf(stderr, "%s: interference: %s\n", cli_prog,
				cli_shown(res->interference));
	}
	if (res->frames_note[0])
		fprintf(stderr, "!! %s: %s\n", res->frames ? "FRAMES STOPPED" : "NO FRAMES",
			cli_shown(res->frames_note));
	if (ok && say_what_went_wrong(o, res))
		ret = 3;	/* recorded, and the program failed: docs in the man page */
	if (res->interfered)
		fprintf(stderr, "!! INTERFERENCE: %s. THIS RUN IS INVALID\n",
			cli_shown(res->interference));
	return ret;
}

static const struct opts_help record_help = {
	"usage: stallscope record [options] [--] CMD [ARGS...]\n"
	"       stallscope record [options] -p PID\n\n"
	"Runs CMD (or attaches to PID) and records its frames and, every period, the\n"
	"kernel's view of it and the system into a run directory: record.ssr,\n"
	"run.ini, program.log. Records until the program exits, the duration ends,\n"
	"the stop file appears, or SIGINT/SIGTERM (forwarded to the program).\n\n",
	"EXAMPLES\n"
	"  stallscope record -- ./game --benchmark\n"
	"  stallscope record -o runs/base --duration 120 --frames hud:/tmp/hud.log -- glxgears\n"
	"  stallscope record -p $(pidof game) --stop-file /tmp/stop\n"
	"  stallscope record --thread dxvk-submit -- wine game.exe\n"
	"  stallscope record --watch --duration 120 -- ./game --benchmark\n",
};

static const char *record_meta[MAX_META];	/* --meta's, argv's strings */

/* --meta KEY=VALUE: KEY of a-z, 0-9, '_', '.'; 0 or OPTS_ERROR. */
static int take_meta(const struct opt *opt, const char *arg)
{
	struct recorder_opts *o = opt->value;
	const char **meta = record_meta;
	size_t *n = &o->nmeta;
	const char *eq = strchr(arg, '=');
	size_t kl = eq ? (size_t)(eq - arg) : 0;

	if (!eq || !kl || kl >= 64 || strspn(arg, "abcdefghijklmnopqrstuvwxyz0123456789_.") != kl)
		return opts_error("option '--meta': expected KEY=VALUE with KEY of a-z, 0-9, "
				  "'_', '.', got '%s'", arg);
	if (*n == MAX_META)
		return opts_error("option '--meta': %d at most", MAX_META);
	meta[(*n)++] = arg;
	return 0;
}

/* --build-of DIR: the tree's build (git describe) into O->build; 0 or -1
 * (said). */
static int take_build_of(const struct opt *opt, const char *dir)
{
	static char build[BUILD_MAX + 1];
	struct recorder_opts *o = opt->value;
	struct strbuf err = STRBUF_INIT;
	int r = gitbuild_describe(dir, build, sizeof(build), &err);

	if (r < 0)
		cli_error("%s", err.buf);
	else
		o->build = build;
	sb_release(&err);
	return r < 0 ? -1 : 0;
}

/* --build STR */
static int take_build(const struct opt *opt, const char *arg)
{
	struct recorder_opts *o = opt->value;

	if (!build_name_ok(arg))
		return opts_error("option '--build': expected a build (printable, no blanks, at "
				  "most %d characters), got '%s'", BUILD_MAX, arg);
	o->build = arg;
	return 0;
}

static bool want_html;	/* --html */

/* The page of the run just recorded (--html): report's defaults. */
static int write_html(const char *rundir)
{
	struct analyse_opts ao = { .m = METRICS_OPTS_INIT, .fmt = FRAMELOG_AUTO, .keep = true };
	struct reload_rules *rules = NULL;
	struct strbuf emsg = STRBUF_INIT;
	char *const in[1] = { (char *)rundir };
	int r;

	if (cli_failed(analyse_load_rules(NULL, &rules, &ao.rules_name, &emsg), &emsg))
		return 1;
	ao.rules = rules;
	r = html_page(&ao, in, 1, NULL);
	reload_rules_free(rules);
	return r;
}

/* Parses the options into O (and the watcher's into WG); the index of the
 * command, or OPTS_HELP, OPTS_ERROR. */
static int parse_options(int argc, char **argv, struct recorder_opts *o,
			 struct watch_opts_given *wg)
{
	int pid = 0, exact = RECORDER_EXACT_AUTO, first;
	struct opt wt[WATCH_OPTS_N];
	const struct opt opts[] = {
		OPT_STRING('o', "output", &o->outdir, "DIR",
			   "run directory (default runs/<UTC stamp>-<program>)"),
		OPT_INT('p', "pid", &pid, "PID", 1, INT_MAX,
			"attach to a running process instead of starting one"),
		OPT_DOUBLE(0, "period", &o->period_ms, "MS", 0.1, 10000,
			   "sampling period in ms (default 10)"),
		OPT_DOUBLE(0, "duration", &o->duration_s, "S", 0.001, OPT_SECONDS_MAX,
			   "stop after S seconds (and stop the program)"),
		OPT_STRING(0, "stop-file", &o->stop_file, "PATH",
			   "stop when PATH appears (checked every 10 periods)"),
		OPT_STRING(0, "frames", &o->frames, "SOURCE",
			   "auto (default: marker ring plus GL/EGL and Vulkan hooks),\n"
			   "marker, gl, vk, hud:PATH (count a HUD's lines), none"),
		OPT_BOOL(0, "no-hook", &o->no_hook,
			 "no GL/EGL preload, no Vulkan layer: frames from the\n"
			 "marker API only (same as --frames marker)"),
		{ .kind = OPTK_STRING, .long_name = "thread", .value = &o->thread, .argh = "TID|NAME",
		  .flags = OPTF_NONEMPTY,
		  .help = "the frame thread: this TID, or the thread of this name\n"
			  "(default: the thread that presents; the main thread\n"
			  "is sampled too when it is another)" },
		OPT_SET_INT(0, "exact", &exact, RECORDER_EXACT_ON,
			    "require exact mode: the kernel (eBPF) tells every off-CPU\n"
			    "interval of the sampled threads and where their time\n"
			    "went (default: on where it loads, else /proc sampling,\n"
			    "with one line saying why)"),
		OPT_SET_INT(0, "no-exact", &exact, RECORDER_EXACT_OFF, "sample /proc only"),
		OPT_DOUBLE(0, "exact-min", &o->exact_min_ms, "MS", 0.01, 10000,
			   "keep off-CPU intervals this long (default 0.5)"),
		OPT_INT(0, "stacks", &o->stacks_hz, "HZ", 1, 10000,
			"sample the frame thread's user stacks HZ times a second\n"
			"(default 1000); only stalls' stacks are kept"),
		OPT_BOOL(0, "no-stacks", &o->no_stacks, "no stacks"),
		OPT_BOOL(0, "html", &want_html, "write RUNDIR/report.html at the end (stallscope-html(1))"),
		OPT_BOOL(0, "as-root", &o->as_root,
			 "under sudo, run CMD as root (default: as the user who ran\n"
			 "sudo, with their groups and HOME; the recorder keeps\n"
			 "root for exact mode, stacks and /proc)"),
		OPT_BOOL(0, "rt", &o->rt, "sample at SCHED_FIFO with memory locked, when permitted"),
		OPT_BOOL(0, "probe", &o->probe,
			 "run the timer wake-up probe beside it (stallscope-probe(1));\n"
			 "late wake-ups go into the record"),
		OPT_DOUBLE(0, "kick", &o->kick_ms, "MS", 0.05, 3600e3,
			   "wake every CPU from another every MS (stallscope-kick(1))"),
		OPT_BOOL('q', "quiet", &o->quiet, "no summary at the end"),
		OPT_BOOL(0, "naive-sampler", &o->naive,
			 "benchmarks only: open, read and close every file each time"),
		OPT_BOOL(0, "no-sample", &o->no_sample,
			 "frames only, no samples (to check the recorder changes\n"
			 "nothing: bench --recorder-ab)"),
		OPT_STRING(0, "rig", &o->rig, "NAME",
			   "the rig (machine) the results database files the run\n"
			   "under (default: $STALLSCOPE_RIG, else from /etc/machine-id)"),
		OPT_CALLBACK(0, "build", o, "STR",
			     "the build the run measures: a commit, a version, a driver\n"
			     "string (default: $STALLSCOPE_BUILD; run.ini build=)", take_build),
		OPT_CALLBACK(0, "build-of", o, "DIR",
			     "the build is 'git -C DIR describe --always --dirty'", take_build_of),
		OPT_CALLBACK(0, "meta", o, "KEY=VALUE",
			     "an extra run.ini key (bench: name, variant, switches,\n"
			     "round); record's own keys win", take_meta),
		OPT_BOOL(0, "watch", &o->watch,
			 "run the interference detector beside the program\n"
			 "(docs/WATCH.md): interference.log, run.ini interfered="),
		OPT_CONCAT(wt),
		OPT_END(),
	};

	watch_opts_table(wt, wg, "the watcher's options, each of which implies --watch "
			 "(stallscope-watch(1)):");
	first = opts_parse(argc, argv, opts, &record_help, OPTS_STOP_AT_OPERAND);
	if (first < 0)
		return first;
	o->pid = pid;
	o->exact = (enum recorder_exact)exact;
	if (wg->any)
		o->watch = true;
	return first;
}

int cmd_record(int argc, char **argv)
{
	struct recorder_opts o = { .period_ms = 10, .frames = "auto", .meta = record_meta };
	struct watch_opts_given wg = { 0 };
	struct strbuf err = STRBUF_INIT;
	struct recorder *rec = NULL;
	struct term term = { 0 };
	int first, ret = 1, e;

	first = parse_options(argc, argv, &o, &wg);
	if (first < 0)
		return opts_exit(first);
	o.argv = argv + first;
	o.argc = argc - first;
	if (o.pid && o.argc)
		return cli_usage_error("give either -p PID or a command, not both");
	if (!o.build && getenv("STALLSCOPE_BUILD") && !build_name_ok(getenv("STALLSCOPE_BUILD")))
		return cli_usage_error("$STALLSCOPE_BUILD: expected a build (printable, no blanks, "
				       "at most %d characters), got '%s'", BUILD_MAX,
				       getenv("STALLSCOPE_BUILD"));
	if (!o.pid && !o.argc)
		return cli_usage_error("expected a command to run, or -p PID");
	if (recorder_frames_valid(&o, &err) < 0) {
		cli_usage_error("%s", err.buf);
		sb_release(&err);
		return EXIT_USAGE;
	}
	o.wo = wg.wo;
	o.live = !o.quiet && isatty(STDERR_FILENO);
	if (!o.quiet) {
		/* records killed recordings left in RAM (issue 31): one line, when
		 * there are any; nothing is removed unless asked */
		size_t nleft;
		uint64_t bytes;

		if (rundir_tmp_left(&nleft, &bytes) == 0 && nleft)
			fprintf(stderr,
				"stallscope record: %zu record%s left in /dev/shm by recordings that did "
				"not end hold%s %.*f %s of memory (/dev/shm/stallscope-*.ssr); "
				"'stallscope dump --salvage DIR FILE' moves one into a run directory\n",
				nleft, nleft == 1 ? "" : "s", nleft == 1 ? "s" : "",
				bytes < 1000000 ? 0 : 1, bytes < 1000000 ? (double)bytes / 1e3 : (double)bytes / 1e6,
				bytes < 1000000 ? "kB" : "MB");
	}
	o.say = say;
	o.say_ctx = &term;

	e = recorder_start(&o, &rec, &err);
	if (e == 0) {
		e = recorder_run(rec, &err);
		if (term.live_shown)
			fputc('\n', stderr);
		if (e < 0 && err.len)
			cli_error("%s", err.buf);
		ret = say_end(&o, recorder_result(rec), e == 0);
		if (e < 0)
			ret = 1;
		if (want_html && recorder_result(rec)->rundir && write_html(recorder_result(rec)->rundir))
			ret = ret ? ret : 1;
	} else {
		cli_error("%s", err.buf);
	}
	recorder_free(rec);
	sb_release(&err);
	return ret;
}
