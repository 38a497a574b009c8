// SPDX-License-Identifier: MIT
/*
 * child.c: child.h's fork/exec with an exec-error pipe, and the stop with a
 * grace period. The child between fork and exec calls only what is safe
 * there (setpgid, sigprocmask, signal, dup2, setenv on its own copy of the
 * environment, exec, write, _exit): the parent is single-threaded when it
 * spawns (record, watch, bench are).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "linux/child.h"

extern char **environ;

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void __attribute__((noreturn)) exec_child(const struct child_spawn *s, int efd)
{
	static const int dfl[] = { SIGINT, SIGTERM, SIGHUP, SIGCHLD, SIGPIPE };
	sigset_t none;
	int e;

	if (s->own_group)
		setpgid(0, 0);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, s->mask ? s->mask : &none, NULL);
	for (size_t i = 0; i < sizeof(dfl) / sizeof(dfl[0]); i++)
		signal(dfl[i], SIG_DFL);
	if (s->in_fd >= 0)
		dup2(s->in_fd, 0);
	if (s->out_fd >= 0)
		dup2(s->out_fd, 1);
	if (s->err_fd >= 0)
		dup2(s->err_fd, 2);
	if (s->envp)
		environ = s->envp;
	if (s->run_env)
		setenv("STALLSCOPE_RUN", s->run_env, 1);
	if (s->path_search)
		execvp(s->argv[0], s->argv);
	else
		execv(s->argv[0], s->argv);
	e = errno;
	if (write(efd, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

pid_t child_spawn(const struct child_spawn *s)
{
	int pfd[2], e = 0;
	pid_t pid;
	ssize_t n;

	if (pipe2(pfd, O_CLOEXEC) < 0)
		return -errno;
	pid = fork();
	if (pid < 0) {
		e = -errno;
		close(pfd[0]);
		close(pfd[1]);
		return e;
	}
	if (pid == 0)
		exec_child(s, pfd[1]);
	if (s->own_group)
		setpgid(pid, pid);	/* both sides: no race with a signal to the group */
	close(pfd[1]);
	do
		n = read(pfd[0], &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(pfd[0]);
	if (n == (ssize_t)sizeof(e)) {
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		return -e;
	}
	return pid;
}

int child_subreaper(void)
{
	return prctl(PR_SET_CHILD_SUBREAPER, 1UL, 0UL, 0UL, 0UL) < 0 ? -errno : 0;
}

static void send(const struct child_stop *s, int sig)
{
	if (s->pgid > 0)
		kill(-s->pgid, sig);
	if (s->pid > 0)
		kill(s->pid, sig);
}

int child_stop(struct child_stop *s)
{
	uint64_t deadline;
	bool killed = false;

	if (s->gone(s))
		return 0;
	send(s, s->sig);
	deadline = mono_ns() + s->grace_ns;
	while (!s->gone(s)) {
		struct timespec ts = { 0, 10 * 1000 * 1000 };

		if (s->tick)
			s->tick(s);
		if (!killed && (mono_ns() > deadline || (s->hurry && s->hurry(s)))) {
			if (s->on_kill)
				s->on_kill(s);
			send(s, SIGKILL);
			killed = true;
		}
		nanosleep(&ts, NULL);
	}
	return killed || s->sig == SIGKILL;
}
