// SPDX-License-Identifier: MIT
/*
 * recorder.c: recorder.h's setup, loop and end; the frames are
 * recorder_frames.c's, run.ini and the record's header recorder_ini.c's.
 *
 * The loop is cyclictest's: it sleeps to absolute CLOCK_MONOTONIC deadlines
 * (linux/sched.h), advances the deadline by the period, skips and counts
 * the periods it missed, and keeps a histogram of how late each wake-up was
 * and of how long each sample took; those figures end up in run.ini as the
 * recorder's cost. It never writes to disk while the program runs (the
 * record is in /dev/shm, flushed there every second, so a kill -9 loses at
 * most one second; run.ini written at the start says where it is).
 *
 * Assumes one thread, signals delivered to it (SIGINT, SIGTERM, SIGHUP,
 * SIGCHLD set flags that the loop reads after each wake-up) and a child in
 * its own process group, to which a stop is forwarded.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/hot.h"
#include "core/inifmt.h"
#include "core/wrapper.h"
#include "frames/hook.h"
#include "frames/hud.h"
#include "frames/ring.h"
#include "linux/child.h"
#include "linux/kick.h"
#include "linux/probe.h"
#include "linux/recsys.h"
#include "linux/exact.h"
#include "linux/sampler.h"
#include "linux/sched.h"
#include "rec/rec.h"
#include "run/recorder_int.h"
#include "run/rundir.h"

#define CLOCK_EVERY_NS (10 * NSEC)
#define FLUSH_EVERY_NS NSEC
#define RT_PRIO 50

/* ------------------------------------------------------------ helpers */

void recorder_say(struct recorder *r, enum recorder_say kind, const char *fmt, ...)
{
	struct strbuf line = STRBUF_INIT;
	va_list ap;

	if (!r->o.say)
		return;
	va_start(ap, fmt);
	sb_vaddf(&line, fmt, ap);
	va_end(ap);
	r->o.say(r->o.say_ctx, kind, line.buf);
	sb_release(&line);
}

void recorder_note(struct recorder *r, const char *fmt, ...)
{
	va_list ap;

	if (r->notes.len)
		sb_addc(&r->notes, '\n');
	va_start(ap, fmt);
	sb_vaddf(&r->notes, fmt, ap);
	va_end(ap);
}

/* Removes the run directory of a run that recorded nothing (empty: what
 * was in it is gone first), as its user. */
static void remove_rundir(struct recorder *r)
{
	if (r->dir_fd >= 0) {
		close(r->dir_fd);
		r->dir_fd = -1;
	}
	if (r->rundir[0])
		sf_rmdir(r->rundir, r->user);
}

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

/*
 * Makes PID the sampled process with TID its frame thread (a launcher's
 * child that presents: every process that writes into the ring inherited
 * it from the run); writes a frame_process event. 0, or -errno with the old
 * process still sampled.
 */
int recorder_switch_process(struct recorder *r, uint64_t now, int pid, int tid)
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

/* ------------------------------------------------------------ the watcher */

/* opts.watch: starts the interference detector (src/linux/watch.h) before
 * the program, logging to RUNDIR/interference.log; the run's processes are
 * those with STALLSCOPE_RUN=<absolute rundir>, as start_child sets it. */
static int start_watch(struct recorder *r)
{
	char abs_run[PATH_MAX];
	struct watch_opts wo = r->o.wo;
	struct strbuf err = STRBUF_INIT;
	int e, fd;

	if (!realpath(r->rundir, abs_run))
		snprintf(abs_run, sizeof(abs_run), "%s", r->rundir);
	fd = sf_create(r->dir_fd, rundir_file_name(RUNDIR_INTERFERENCE), O_WRONLY | O_APPEND, 0644,
		       r->user);
	if (fd < 0)
		return sb_error(r->err, fd, "--watch: cannot create '%s/%s'", r->rundir,
				rundir_file_name(RUNDIR_INTERFERENCE));
	wo.log_path = NULL;
	wo.log_fd = fd;
	wo.rundir = abs_run;
	e = watch_start(&wo, &r->watch, &err);	/* copies what it keeps (a dup of fd) */
	close(fd);
	if (e < 0) {
		sb_error(r->err, 0, "--watch: %s", err.len ? err.buf : strerror(-e));
		sf_unlink(r->dir_fd, rundir_file_name(RUNDIR_INTERFERENCE), r->user);
		sb_release(&err);
		return e;
	}
	sb_release(&err);
	return 0;
}

/* Stops a watcher of a run that recorded nothing and removes its log. */
static void drop_watch(struct recorder *r)
{
	struct watch_result res = { 0 };

	if (!r->watch)
		return;
	watch_stop(r->watch, &res);
	r->watch = NULL;
	free(res.summary);
	sf_unlink(r->dir_fd, rundir_file_name(RUNDIR_INTERFERENCE), r->user);
}

/* ------------------------------------------------------------ helpers */

/* Writes one late wake-up of the probe as a "late_wakeup" event. */
static void on_late_wakeup(void *ctx, const struct probe_late *w)
{
	struct recorder *r = ctx;
	char text[64];

	probe_late_text(w, text, sizeof(text));
	if (rec_writer_event(r->w, w->t_mono_ns, 0, "late_wakeup", text) == 0)
		r->probe_late++;
}

/* Starts the probe and the kicker beside the recording; 0 or -errno. */
static int start_helpers(struct recorder *r)
{
	struct strbuf err = STRBUF_INIT;
	int e = 0;

	if (r->o.probe) {
		struct probe_opts po = {
			.cpus = r->helper_cpus,
			.interval_ns = RECORDER_PROBE_INTERVAL_NS,
			.prio = RECORDER_PROBE_PRIO,
			.late_ns = RECORDER_PROBE_LATE_NS,
			.lock_memory = false,	/* --rt decides the recorder's memory */
			.on_late = on_late_wakeup,
			.ctx = r,
		};

		e = probe_start(&po, &r->probe, &err);
		if (e < 0) {
			sb_error(r->err, 0, "--probe: %s", err.len ? err.buf : strerror(-e));
			goto out;
		}
		if (!probe_cpu(r->probe, 0)->fifo)
			recorder_note(r, "--probe: SCHED_FIFO refused (%s), probing at SCHED_OTHER",
				      strerror(-probe_cpu(r->probe, 0)->fifo_err));
	}
	if (r->o.kick_ms > 0) {
		struct kick_opts ko = {
			.mode = KICK_KICK,
			.cpus = r->helper_cpus,
			.interval_ns = (uint64_t)(r->o.kick_ms * 1e6 + 0.5),
		};

		e = kick_start(&ko, &r->kick, &err);
		if (e < 0)
			sb_error(r->err, 0, "--kick: %s", err.len ? err.buf : strerror(-e));
	}
out:
	sb_release(&err);
	return e < 0 ? e : 0;
}

/* Stops them; the probe's last late wake-ups go into the record, so this
 * comes before the writer closes. Harmless twice. */
static void stop_helpers(struct recorder *r)
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

/* opts.rt: SCHED_FIFO 50 and locked memory, each as far as permitted; what
 * it got goes into run.ini's rt= (and a note when not all). */
static void set_rt(struct recorder *r)
{
	int e1 = sched_fifo_self(RT_PRIO), e2;

#if defined(__SANITIZE_ADDRESS__)
	/* ASan's shadow memory is terabytes of reserved address space: locking
	 * it would exhaust memory; sanitized builds sample unlocked */
	e2 = -ENOTSUP;
#else
	e2 = sched_lock_memory();
#endif
	if (!e1 && !e2)
		snprintf(r->rt_note, sizeof(r->rt_note), "SCHED_FIFO %d, mlockall", RT_PRIO);
	else if (e1)
		snprintf(r->rt_note, sizeof(r->rt_note), "no SCHED_FIFO (%s)%s%s", strerror(-e1),
			 e2 ? ", no mlockall: " : ", mlockall", e2 ? strerror(-e2) : "");
	else
		snprintf(r->rt_note, sizeof(r->rt_note), "SCHED_FIFO %d, no mlockall: %s", RT_PRIO,
			 strerror(-e2));
	if (e1 || e2)
		recorder_note(r, "--rt: %s", r->rt_note);
}

/* ------------------------------------------------------------ the loop */

/* With opts.live: what is recorded, where, and how to stop it. */
static void say_start(struct recorder *r)
{
	char what[256], who[96] = "";

	if (!r->o.live)
		return;
	if (r->fmode == FRAMES_NONE)
		snprintf(what, sizeof(what), "no frame source");
	else
		recorder_listened_text(r, what, sizeof(what));
	if (r->as_user)
		snprintf(who, sizeof(who), ", as %s (uid %u)", r->cred.name ? r->cred.name : "?",
			 (unsigned)r->cred.uid);
	else if (r->own_child && geteuid() == 0)
		snprintf(who, sizeof(who), ", as root");
	recorder_say(r, RECORDER_INFO, "recording '%s' (pid %d%s) into '%s'; frames from %s%s; %s",
		     r->program.buf, r->pid, who, r->rundir, what,
		     r->exact ? "; exact mode" : "",
		     r->o.duration_s > 0 ? "it stops after --duration, or Ctrl-C" : "Ctrl-C stops it");
	r->live_next_ns = (r->t_start ? r->t_start : sched_now_ns()) + NSEC;
}

/* One sample at NOW; returns false when the program has gone. */
static bool take_sample(struct recorder *r, uint64_t now)
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
	if (sampler_same(r->s))	/* nothing moved: a repeat, the same bytes */
		rec_writer_sample_same(r->w, now, r->vals);
	else
		rec_writer_sample(r->w, now, r->vals);
	n = sampler_events(r->s, &ev);
	for (size_t i = 0; i < n; i++)
		rec_writer_event(r->w, now, (uint32_t)ev[i].tid, ev[i].kind, ev[i].text);
	if (r->exact)
		recorder_exact_write(r);
	n = sampler_threads(r->s, &th);
	if (n)	/* one snapshot, however many threads (the record's own type) */
		rec_writer_threads(r->w, now, th, n);
	r->samples++;
	return true;
}

/* The sample found the sampled process gone: the program's end, or, when a
 * process it left was followed, back to the child while it lives. True when
 * the run ends. */
static bool sampled_gone(struct recorder *r, uint64_t now)
{
	if (!r->own_child) {
		r->end = RECORDER_END_GONE;
		return true;
	}
	if (r->fpid != r->pid) {
		r->fp_ended = true;
		if (!recorder_child_ended(r) && recorder_switch_process(r, now, r->pid, r->pid) == 0) {
			r->ft_tid = r->pid;
			r->ft2_tid = 0;
		}
	}
	if (recorder_program_ended(r, now)) {
		r->end = RECORDER_END_EXIT;
		return true;
	}
	return false;	/* a zombie leader with live threads, or not reaped yet */
}

/* Sleeps to the deadline after *NEXT; the wake-up's lateness into the
 * histogram and missed periods skipped. NOW when woken. */
SS_HOT static uint64_t wake_at(struct recorder *r, uint64_t *next)
{
	uint64_t now;

	*next += r->period_ns;
	while (sched_sleep_until(*next) == -EINTR)
		if (recorder_got_signal || recorder_got_child)
			break;
	now = sched_now_ns();
	if (now > *next) {
		lathist_add(&r->late, now - *next);
		if (now - *next >= r->period_ns) {
			uint64_t skip = (now - *next) / r->period_ns;

			r->missed += skip;
			*next += skip * r->period_ns;
		}
	} else {
		lathist_add(&r->late, 0);	/* woken early by a signal */
	}
	return now;
}

SS_HOT __attribute__((noinline)) static void loop(struct recorder *r)
{
	uint64_t next = sched_now_ns(), end = UINT64_MAX;
	uint64_t next_clock, next_flush;

	r->t_start = next;
	next_clock = next + CLOCK_EVERY_NS;
	next_flush = next + FLUSH_EVERY_NS;
	if (r->o.duration_s > 0)
		end = next + (uint64_t)(r->o.duration_s * 1e9);
	for (;;) {
		uint64_t now = wake_at(r, &next);


		if (recorder_got_signal) {
			r->end = RECORDER_END_SIGNAL;
			break;
		}
		if (recorder_got_child) {
			recorder_got_child = 0;
			if (recorder_program_ended(r, now)) {
				r->end = RECORDER_END_EXIT;
				break;
			}
		}
		if (!take_sample(r, now) && sampled_gone(r, now))
			break;
		if (r->ring)
			recorder_drain_ring(r, now);
		if (r->o.thread && r->s)
			recorder_watch_named_thread(r, now);
		if (r->hud)
			recorder_poll_hud(r, now);
		if (r->probe)
			probe_poll(r->probe);
		recorder_live_status(r, now);
		recorder_pump_log(r, now, false);
		if (now >= next_clock) {
			struct rec_clock c;

			sched_clock_pair(&c);
			rec_writer_clock(r->w, &c);
			next_clock += CLOCK_EVERY_NS;
		}
		if (now >= next_flush) {
			rec_writer_flush(r->w);
			next_flush += FLUSH_EVERY_NS;
		}
		if (now >= end) {
			r->end = RECORDER_END_DURATION;
			break;
		}
		if (r->o.stop_file && r->samples % 10 == 0 && access(r->o.stop_file, F_OK) == 0) {
			r->end = RECORDER_END_STOP_FILE;
			break;
		}
		lathist_add(&r->work, sched_now_ns() - now);
	}
	r->t_end = sched_now_ns();
}

/* ------------------------------------------------------------ setup */

/* What the program is: its name and command line (attached: from /proc).
 * A command's name is looked through its wrappers (`mangohud env X=1
 * openarena`: openarena, via "mangohud env"); recorder_confirm_name checks
 * it against the process that presented. */
static int name_program(struct recorder *r)
{
	struct strbuf raw = STRBUF_INIT;
	struct wrapper_name wn;
	const char *b;
	int nw, err;

	if (!r->o.pid) {
		if (wrapper_name(r->o.argc, (const char *const *)r->o.argv, &wn) == 0) {
			sb_adds(&r->program, wn.name);
			snprintf(r->program_via, sizeof(r->program_via), "%s", wn.via);
		} else {
			b = strrchr(r->o.argv[0], '/');
			sb_adds(&r->program, b ? b + 1 : r->o.argv[0]);
		}
		inifmt_quote_argv(&r->cmdline, r->o.argc, r->o.argv);
		return 0;
	}
	r->pid = r->fpid = (int)r->o.pid;
	err = recsys_comm(r->pid, 0, &r->program);
	if (err < 0)
		return sb_error(r->err, err, "cannot attach to process %d", r->pid);
	if (r->program.len > 4 && !strcasecmp(r->program.buf + r->program.len - 4, ".exe"))
		r->program.buf[r->program.len -= 4] = '\0';	/* Wine's: named as started */
	nw = recsys_cmdline(r->pid, &raw);
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
	if (r->fmode == FRAMES_RING) {
		r->fmode = FRAMES_NONE;	/* auto: no ring reaches a running program */
		recorder_note(r, "frames: attached with -p, the frame ring cannot reach a running "
			      "program (use --frames hud:PATH)");
	}
	return 0;
}

/* The run directory (held open), run.ini's path, and where the record and
 * the log grow while the program runs (tmpfs, else the run directory). */
static int make_rundir(struct recorder *r)
{
	struct strbuf path = STRBUF_INIT, made = STRBUF_INIT;
	struct rundir_tmp t;
	char stamp[32];
	int err;

	err = rundir_create(r->o.outdir, r->program.buf, r->clock0.real_ns, r->user, &path, &made,
			    &r->dir_fd, r->err);
	if (err == 0 && pathf(r->rundir, sizeof(r->rundir), "%s", path.buf) < 0)
		err = sb_error(r->err, -ENAMETOOLONG, "'%s'", path.buf);
	if (made.len)
		recorder_say(r, RECORDER_INFO, "created '%s' for the run directory '%s'", made.buf,
			     path.buf);
	sb_release(&path);
	sb_release(&made);
	if (err < 0)
		return err;
	rundir_stamp(stamp, sizeof(stamp), r->clock0.real_ns, false);
	err = rundir_tmp_open(r->dir_fd, r->rundir, stamp, &t);
	if (err < 0) {
		remove_rundir(r);
		return sb_error(r->err, err, "'%s'", r->rundir);
	}
	r->tmp_fd = t.dirfd;
	rundir_tmp_name(&t, RUNDIR_RECORD, r->rec_name, sizeof(r->rec_name));
	rundir_tmp_name(&t, RUNDIR_LOG, r->log_name, sizeof(r->log_name));
	rundir_tmp_name(&t, RUNDIR_OUT, r->out_name, sizeof(r->out_name));
	rundir_tmp_name(&t, RUNDIR_INI, r->ini_name, sizeof(r->ini_name));
	if (pathf(r->ini_path, sizeof(r->ini_path), "%s/%s", r->rundir,
		  rundir_file_name(RUNDIR_INI)) < 0 ||
	    pathf(r->rec_final, sizeof(r->rec_final), "%s/%s", r->rundir,
		  rundir_file_name(RUNDIR_RECORD)) < 0 ||
	    pathf(r->log_final, sizeof(r->log_final), "%s/%s", r->rundir,
		  rundir_file_name(RUNDIR_LOG)) < 0 ||
	    pathf(r->rec_path, sizeof(r->rec_path), "%s/%s", t.dir, r->rec_name) < 0 ||
	    pathf(r->log_path, sizeof(r->log_path), "%s/%s", t.dir, r->log_name) < 0 ||
	    pathf(r->out_path, sizeof(r->out_path), "%s/%s", t.dir, r->out_name) < 0 ||
	    (r->ini_name[0] &&
	     pathf(r->ini_tmp, sizeof(r->ini_tmp), "%s/%s", t.dir, r->ini_name) < 0)) {
		remove_rundir(r);
		return sb_error(r->err, -ENAMETOOLONG, "'%s'", r->rundir);
	}
	if (t.in_place)
		recorder_note(r, "record and log written in place: /dev/shm is not a writable "
			      "directory");
	if (r->o.pid)
		r->log_path[0] = '\0';	/* attached: no output of its to capture */
	return 0;
}

/* Removes what the run made in tmpfs (or in place) by the names it made,
 * each only while the name is still the file we hold when we hold one. */
static void remove_tmp(struct recorder *r, const char *name, int fd)
{
	if (r->tmp_fd >= 0 && name[0] && (fd < 0 || sf_same(r->tmp_fd, name, fd)))
		sf_unlink(r->tmp_fd, name, r->user);
}

/* A start that failed (the record or the first run.ini could not be
 * written): nothing was recorded, so leave neither a record, a log nor a
 * run directory behind, in /dev/shm or anywhere. */
static void abandon_start(struct recorder *r)
{
	recorder_stop_child(r, SIGTERM);
	rec_writer_close(r->w);
	r->w = NULL;
	remove_tmp(r, r->rec_name, r->rec_fd);
	if (r->log_path[0]) {
		remove_tmp(r, r->log_name, r->log_fd);
		remove_tmp(r, r->out_name, r->log_rd);
	}
	sf_unlink(r->dir_fd, rundir_file_name(RUNDIR_INI), r->user);
	drop_watch(r);
	remove_rundir(r);
}

int recorder_frames_valid(const struct recorder_opts *o, struct strbuf *err)
{
	struct recorder r = { .o = *o };

	if (recorder_parse_frames(&r, err) < 0)
		return -EINVAL;
	if (o->no_hook && strcmp(o->frames, "auto") && strcmp(o->frames, "marker"))
		return sb_error(err, 0, "'--no-hook' contradicts '--frames %s'", o->frames);
	if (o->pid && r.fmode == FRAMES_RING && strcmp(o->frames, "auto"))
		return sb_error(err, 0, "'--frames %s' needs the program started by record; with "
				"-p use hud:PATH or none", o->frames);
	return 0;
}

/* The frame source: the ring (made before the program starts, so that it
 * inherits it) or the HUD file followed. */
static int open_frames(struct recorder *r)
{
	int err = 0;

	if (r->fmode == FRAMES_RING) {
		/* before ours: what killed recorders left (their records stay) */
		(void)ring_reap_stale(NULL);
		err = ring_new(0, &r->ring);
		if (err < 0)
			return sb_error(r->err, err, "cannot create the frame ring");
	} else if (r->fmode == FRAMES_HUD) {
		err = hud_new(r->o.frames + 4, &r->hud);
		if (err < 0)
			return sb_error(r->err, err, "cannot follow '%s'", r->o.frames + 4);
	}
	return 0;
}

static struct recorder *recorder_new(const struct recorder_opts *o)
{
	struct recorder *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->o = *o;
	sb_init(&r->program);
	sb_init(&r->cmdline);
	sb_init(&r->notes);
	sb_init(&r->logbuf);
	r->log_rd = r->log_fd = -1;
	r->dir_fd = r->tmp_fd = r->rec_fd = -1;
	r->period_ns = (uint64_t)(o->period_ms * 1e6);
	lathist_init(&r->late);
	lathist_init(&r->work);
	r->user = rundir_user();
	return r;
}

int recorder_start(const struct recorder_opts *o, struct recorder **ret, struct strbuf *err)
{
	struct recorder *r;
	int e;

	/* Caught before anything is made: a stop that arrives while the
	 * recorder starts (bench forwards one as soon as the run directory
	 * shows) ends the run at its first look instead of killing the
	 * recorder halfway through making it. */
	recorder_catch_signals();
	*ret = r = recorder_new(o);
	if (!r)
		return sb_error(err, -ENOMEM, "record");
	r->err = err;
	e = recorder_parse_frames(r, err);
	if (e < 0)
		return e;
	if (o->no_hook)
		r->hooks = 0;	/* the ring stays, for the marker API */
	if (o->stop_file && access(o->stop_file, F_OK) == 0) {
		sb_error(err, 0, "stop file '%s' exists already; remove it first", o->stop_file);
		return -EEXIST;
	}
	e = recorder_exact_start(r, err);
	if (e < 0)
		return e;
	recorder_stacks_start(r);
	if (o->probe || o->kick_ms > 0) {
		struct strbuf cerr = STRBUF_INIT;

		e = sched_cpus_choose(NULL, NULL, &r->helper_cpus, &cerr);
		if (e < 0) {
			sb_error(err, 0, "%s: %s", o->probe ? "--probe" : "--kick", cerr.buf);
			sb_release(&cerr);
			return e;
		}
	}
	e = name_program(r);
	if (e < 0)
		return e;
	sched_clock_pair(&r->clock0);
	e = make_rundir(r);
	if (e < 0)
		return e;
	if ((e = open_frames(r)) < 0 || (o->watch && (e = start_watch(r)) < 0)) {
		remove_rundir(r);	/* nothing was recorded: no run directory */
		return e;
	}
	if (!o->pid && (e = recorder_start_child(r)) < 0) {
		if (r->log_path[0]) {
			remove_tmp(r, r->log_name, r->log_fd);
			remove_tmp(r, r->out_name, r->log_rd);
		}
		drop_watch(r);
		remove_rundir(r);
		return e;
	}
	if (r->watch)
		watch_set_program(r->watch, r->pid);
	e = recorder_open_record(r);
	if (e == 0)
		e = recorder_write_ini(r, false);
	if (e < 0) {
		abandon_start(r);	/* the run directory takes nothing (full?) */
		return e;
	}
	if (e > 0) {
		/* the program ended before the first look: an empty record */
		recorder_note(r, "the program ended before the first sample");
		r->end = r->own_child ? RECORDER_END_EXIT : RECORDER_END_GONE;
		if (r->own_child)
			while (!recorder_child_ended(r))
				usleep(1000);
		r->t_start = r->t_end = sched_now_ns();
	}
	r->err = NULL;
	return 0;
}

/* ------------------------------------------------------------ the end */

/* Something of the run could not be kept: said now (the end goes on to
 * keep the rest), and recorder_run's result. */
static void end_error(struct recorder *r, int e, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void end_error(struct recorder *r, int e, const char *fmt, ...)
{
	struct strbuf line = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	sb_vaddf(&line, fmt, ap);
	va_end(ap);
	recorder_say(r, RECORDER_ERROR, "%s: %s", line.buf, strerror(-e));
	sb_release(&line);
	r->failed_end = true;
}

/* Moves the file that grew in tmpfs as NAME, open as FD, into the run
 * directory as FINAL (TO its path): copied from FD, never renamed by name
 * (tmpfs is everybody's: the name may point elsewhere by now), then NAME
 * removed while it is still ours. FROM (its path) then names where it is. */
static void keep_file(struct recorder *r, int fd, const char *name, char *from, size_t size,
		      const char *final, const char *to, const char *what)
{
	int e;

	if (!from[0] || !strcmp(from, to))
		return;
	e = fd < 0 ? -EBADF : sf_copy(fd, r->dir_fd, final, 0644, r->user);
	if (e < 0) {
		end_error(r, e, "cannot move %s to '%s'; it stays at '%s'", what, to, from);
		return;
	}
	remove_tmp(r, name, fd);
	snprintf(from, size, "%s", to);
}

/* Closes the record with a last clock pair, moves it and the log into the
 * run directory, and writes the final run.ini. */
static void keep_record(struct recorder *r)
{
	struct rec_clock last;
	int e;

	sched_clock_pair(&last);
	rec_writer_clock(r->w, &last);
	rec_writer_flush(r->w);
	r->bytes_end = rec_writer_bytes(r->w);
	e = rec_writer_close(r->w);
	r->w = NULL;
	if (e < 0)
		end_error(r, e, "cannot write the record '%s'", r->rec_path);
	keep_file(r, r->rec_fd, r->rec_name, r->rec_path, sizeof(r->rec_path),
		  rundir_file_name(RUNDIR_RECORD), r->rec_final, "the record");
	keep_file(r, r->log_fd, r->log_name, r->log_path, sizeof(r->log_path),
		  rundir_file_name(RUNDIR_LOG), r->log_final, "the program's log");
	if (r->log_fd >= 0) {
		close(r->log_fd);
		r->log_fd = -1;
	}
	if (!r->t_end)
		r->t_end = sched_now_ns();
	recorder_frames_verdict(r);
	if (recorder_write_ini(r, true) < 0)
		r->failed_end = true;	/* the message is in r->err */
}

/* The recording proper: the helpers, the loop, then the program stopped
 * (by the signal that stopped us: a second one is SIGKILL) and the frames
 * up to its end. 0 or -errno (a helper could not start). */
static int record(struct recorder *r)
{
	int e, sig;

	/* wake at the deadline, not up to 50 us after it (the default slack) */
	prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
	if (r->o.rt)
		set_rt(r);
	r->cpu0_ns = sched_process_cpu_ns();
	e = start_helpers(r);
	if (e < 0)
		return e;
	say_start(r);
	loop(r);
	stop_helpers(r);
	sig = r->end != RECORDER_END_SIGNAL ? SIGTERM
	      : recorder_got_signal > 0	     ? recorder_got_signal
					     : SIGKILL;
	recorder_stop_child(r, sig);
	if (r->ring)
		recorder_drain_ring(r, sched_now_ns());
	if (r->hud)
		recorder_poll_hud(r, sched_now_ns());
	return 0;
}

int recorder_run(struct recorder *r, struct strbuf *err)
{
	int e = 0;

	r->err = err;
	if (r->end == RECORDER_END_NONE)	/* else it ended before the first look */
		e = record(r);
	/* a program that ended by itself wrote all it wrote before the loop
	 * saw it gone (t_end): what is read now is stamped then, never after
	 * the run's end (a window_end_re line past duration_recorded_s would
	 * make the run look ended before its window's end). After a stop the
	 * lines are its answer to it, stamped as they are read. */
	if (e == 0)
		recorder_pump_log(r, (r->end == RECORDER_END_EXIT || r->end == RECORDER_END_GONE)
					     && r->t_end ? r->t_end : sched_now_ns(), true);
	recorder_stop_child(r, SIGTERM);
	stop_helpers(r);
	if (r->watch) {
		int we = watch_stop(r->watch, &r->wres);

		r->watch = NULL;
		if (we < 0)
			recorder_say(r, RECORDER_WARN, "the watcher failed: %s; run.ini has no verdict",
				     strerror(-we));
		else
			r->watched = true;
	}
	if (r->w)
		keep_record(r);
	r->err = NULL;
	if (e < 0)
		return e;
	return r->failed_end ? -EIO : 0;
}

const struct recorder_result *recorder_result(struct recorder *r)
{
	struct recorder_result *res = &r->res;

	res->program = r->program.buf;
	res->rundir = r->rundir;
	res->samples = r->samples;
	res->frames = r->frames;
	res->end = r->end;
	res->end_name = recorder_end_names[r->end];
	res->own_child = r->own_child;
	res->reaped = r->reaped;
	res->status = r->status;
	res->stop_sig = r->stop_sig;
	res->thread_seen = r->thread_seen;
	res->sampled = r->s != NULL;
	res->exact = r->exact != NULL;
	res->exact_why = r->exact_why;
	res->frames_note = r->frames_note;
	res->watched = r->watched;
	res->interfered = r->watched && r->wres.interfered;
	res->interference = r->wres.summary ? r->wres.summary : "";
	return res;
}

void recorder_free(struct recorder *r)
{
	if (!r)
		return;
	drop_watch(r);
	free(r->wres.summary);
	if (r->log_rd >= 0)
		close(r->log_rd);
	if (r->log_fd >= 0)
		close(r->log_fd);
	rec_writer_close(r->w);
	if (r->rec_fd >= 0)
		close(r->rec_fd);
	if (r->tmp_fd >= 0)
		close(r->tmp_fd);
	if (r->dir_fd >= 0)
		close(r->dir_fd);
	sb_release(&r->logbuf);
	probe_free(r->probe);
	kick_free(r->kick);
	free(r->kick_res);
	sampler_free(r->s);
	recorder_stacks_free(r);
	exact_close(r->exact);
	ring_free(r->ring);
	hud_free(r->hud);
	free(r->vals);
	sb_release(&r->program);
	sb_release(&r->cmdline);
	sb_release(&r->notes);
	child_cred_release(&r->cred);
	free(r);
}
