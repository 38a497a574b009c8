// SPDX-License-Identifier: MIT
/*
 * recorder_child.c: the program the recorder runs: started in its own
 * process group (linux/child.h) with its output stamped into program.log,
 * followed when it leaves another process running (a launcher's game),
 * reaped, and stopped with a grace period; and the signals that stop the
 * recording (forwarded to it).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/hot.h"
#include "frames/hook.h"
#include "frames/ring.h"
#include "linux/child.h"
#include "linux/recsys.h"
#include "linux/sched.h"
#include "run/recorder_int.h"

#define STOP_GRACE_NS (5 * NSEC)	/* a stopped program's time to exit before SIGKILL */

extern char **environ;

volatile sig_atomic_t recorder_got_signal, recorder_got_child;

static void on_signal(int sig)
{
	recorder_got_signal = recorder_got_signal ? -1 : sig;	/* -1: a second one, stop now */
}

static void on_child(int sig)
{
	(void)sig;
	recorder_got_child = 1;
}

void recorder_catch_signals(void)
{
	struct sigaction sa = { 0 };

	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = on_child;
	sa.sa_flags = SA_NOCLDSTOP;
	sigaction(SIGCHLD, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/* ------------------------------------------------------------ the program */

/* The frame hooks the program gets (those the shim has), into its
 * environment *ENVP (NULL: no ring, ours). 0 or -errno. */
static int hook_env(struct recorder *r, char ***envp)
{
	struct hook_paths hp = { .preload = "" };
	unsigned want = r->hooks;

	*envp = NULL;
	if (!r->ring)
		return 0;
	if (want && hook_find(NULL, &hp) < 0)
		want = 0;
	if (!hp.preload[0])
		want &= ~(unsigned)HOOK_GL;
	if (!hp.layer_dir[0])
		want &= ~(unsigned)HOOK_VK;
	if (r->hooks && want != r->hooks)
		recorder_note(r, "frame hooks: %s not found (build the shim, or set %s)",
			      (r->hooks & ~want) == HOOK_ALL ? "preload library and Vulkan layer"
			      : (r->hooks & ~want) & HOOK_GL ? "preload library"
							     : "Vulkan layer",
			      HOOK_DIR_ENV);
	r->hooks = want;
	r->gl32 = (want & HOOK_GL) && hp.preload32[0];
	return hook_env_new(environ, ring_name(r->ring), &hp, want, envp);
}

/* Starts argv in its own process group with stdout/stderr into a file in
 * tmpfs and the frame hooks in its environment. A program that cannot be
 * run is an error here, not an exit status. */
int recorder_start_child(struct recorder *r)
{
	struct child_spawn cs = CHILD_SPAWN_INIT;
	char abs_run[PATH_MAX];
	int outfd, nullfd, err;
	char **envp = NULL;
	pid_t pid;

	/* both made O_EXCL where they grow (the names are new and nobody's),
	 * 0600 while the run lasts; the log is read back at the end to be
	 * copied into the run directory */
	r->log_fd = sf_create(r->tmp_fd, r->log_name, O_RDWR, r->ini_name[0] ? 0600 : 0644,
			      r->user);
	if (r->log_fd < 0) {
		err = r->log_fd;
		r->log_fd = -1;
		return sb_error(r->err, err, "cannot create '%s'", r->log_path);
	}
	/* the program writes its output to a file in tmpfs (never blocking on
	 * the recorder, never SIGPIPE if the recorder dies); the recorder reads
	 * what is new each sample (pread, through the same descriptor) and
	 * stamps it line by line into the log */
	outfd = sf_create(r->tmp_fd, r->out_name, O_RDWR | O_APPEND, 0600, r->user);
	if (outfd < 0)
		return sb_error(r->err, outfd, "cannot create '%s'", r->out_path);
	r->log_rd = outfd;
	err = hook_env(r, &envp);
	if (err < 0)
		return sb_error(r->err, err, "cannot prepare the program's environment");
	/* A launcher that forks the game and exits (a double fork) leaves it
	 * to us, not to init: we see it end and can follow it. */
	err = child_subreaper();
	if (err < 0)
		recorder_note(r, "no subreaper (%s): processes the program leaves behind go to "
			      "init", strerror(-err));
	if (!realpath(r->rundir, abs_run))
		snprintf(abs_run, sizeof(abs_run), "%s", r->rundir);
	/* under sudo the program is the user's, as when they start it: their
	 * uid, groups and home (the recorder keeps root for what needs it);
	 * the ring becomes theirs so that its hooks can map it */
	if (!r->o.as_root) {
		err = child_cred_sudo(&r->cred);
		if (err < 0)
			return sb_error(r->err, err, "cannot look up the user who ran sudo");
		r->as_user = err > 0;
		if (r->as_user && r->ring && (err = ring_chown(r->ring, r->cred.uid, r->cred.gid)) < 0)
			return sb_error(r->err, err, "cannot give the frame ring to uid %u",
					(unsigned)r->cred.uid);
	}
	nullfd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	cs.argv = r->o.argv;
	cs.path_search = true;
	cs.own_group = true;
	cs.envp = envp;
	cs.in_fd = nullfd;
	cs.out_fd = cs.err_fd = outfd;
	cs.run_env = abs_run;
	cs.cred = r->as_user ? &r->cred : NULL;
	pid = child_spawn(&cs);
	if (nullfd >= 0)
		close(nullfd);
	hook_env_free(envp);
	if (pid < 0 && r->as_user)
		return sb_error(r->err, pid, "cannot run '%s' as uid %u (the user who ran sudo; "
				"--as-root runs it as root)", r->o.argv[0], (unsigned)r->cred.uid);
	if (pid < 0)
		return sb_error(r->err, pid, "cannot run '%s'", r->o.argv[0]);
	r->pid = r->fpid = pid;
	r->own_child = true;
	return 0;
}

/* Moves what the program wrote since the last call into the log, each line
 * stamped with the seconds since t0 at NOW (at most 1 MiB a call, so that a
 * chatty program cannot stall the sampling); at the end (FINAL) reads all
 * there is, closes the raw file and removes it. */
SS_HOT void recorder_pump_log(struct recorder *r, uint64_t now, bool final)
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
			recorder_note(r, "program.log: %s; the rest of the program's output is lost",
				      strerror(errno ? errno : ENOSPC));
			close(r->log_fd);
			r->log_fd = -1;
		}
	}
	if (final) {
		/* the raw output goes once it is in the log (else it is all
		 * there is), by its name while that is still the file */
		if (r->log_fd >= 0 && sf_same(r->tmp_fd, r->out_name, r->log_rd))
			sf_unlink(r->tmp_fd, r->out_name, r->user);
		close(r->log_rd);
		r->log_rd = -1;
	}
}

/* Reaps what of the run has ended: the child we started (its status is
 * kept) and the processes it left behind, whose subreaper record is (the
 * frame process among them). True when the child has ended. */
bool recorder_child_ended(struct recorder *r)
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
static bool frame_process_lives(struct recorder *r)
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
bool recorder_program_ended(struct recorder *r, uint64_t now)
{
	int kids[16], n;

	if (!recorder_child_ended(r))
		return false;
	if (frame_process_lives(r))
		return false;
	if (r->frames || !r->s)
		return true;
	n = recsys_children(getpid(), kids, sizeof(kids) / sizeof(kids[0]));
	for (int i = 0; i < n; i++) {
		if (recorder_switch_process(r, now, kids[i], 0) < 0)
			continue;
		r->ft_tid = kids[i];
		r->ft2_tid = 0;
		if (!r->followed && !r->o.quiet)
			recorder_say(r, RECORDER_INFO, "'%s' (pid %d) exited; following what it left "
				     "running: '%s' (pid %d) until it ends (Ctrl-C stops)",
				     r->program.buf, r->pid, r->fp_comm, kids[i]);
		r->followed = true;
		return false;
	}
	return true;
}

/* child_stop's view of the run: the child's group until it is reaped, the
 * frame process while it lives. */
static bool stop_gone(struct child_stop *s)
{
	struct recorder *r = s->ctx;
	bool ended = recorder_child_ended(r), lives = frame_process_lives(r);

	if (r->reaped)
		s->pgid = 0;
	if (!lives)
		s->pid = 0;
	return ended && !lives;
}

static void stop_tick(struct child_stop *s)
{
	recorder_pump_log(s->ctx, sched_now_ns(), false);
}

static bool stop_hurry(struct child_stop *s)
{
	(void)s;
	return recorder_got_signal < 0;
}

static void stop_kill(struct child_stop *s)
{
	struct recorder *r = s->ctx;

	r->stop_kill_ns = sched_now_ns();
	if (!r->o.quiet)
		recorder_say(r, RECORDER_INFO, "'%s' did not stop: SIGKILL", r->program.buf);
}

/* Stops the program we started: SIG to its process group (and to the frame
 * process, which may have left it), then SIGKILL after STOP_GRACE_NS. */
void recorder_stop_child(struct recorder *r, int sig)
{
	struct child_stop s = { .pgid = r->pid, .pid = r->fpid != r->pid ? r->fpid : 0,
				.sig = sig, .grace_ns = STOP_GRACE_NS, .gone = stop_gone,
				.tick = stop_tick, .hurry = stop_hurry, .on_kill = stop_kill,
				.ctx = r };

	if (!r->own_child)
		return;
	/* the program had not been seen to end (the loop looks every period,
	 * and a Ctrl-C may have reached it first): from here on, how it ends is
	 * its answer to the stop, not its failure (runini_end_judge); the first
	 * stop is the one */
	if (!r->reaped && !r->stop_sig) {
		r->stop_sig = sig;
		r->stop_ns = sched_now_ns();
	}
	if (stop_gone(&s)) {
		if (r->stop_sig && !r->stop_end_ns)
			r->stop_end_ns = sched_now_ns();
		return;
	}
	if (r->o.live && sig != SIGKILL)
		recorder_say(r, RECORDER_INFO, "stopping '%s' (SIG%s; SIGKILL if it is still there "
			     "in %llu s)", r->program.buf, sigabbrev_np(sig) ?: "?",
			     (unsigned long long)(STOP_GRACE_NS / NSEC));
	child_stop(&s);
	if (r->stop_sig && !r->stop_end_ns)
		r->stop_end_ns = sched_now_ns();
}
