// SPDX-License-Identifier: MIT
/*
 * child.c: child.h's fork/exec with an exec-error pipe, and the stop with a
 * grace period. The child between fork and exec calls only what is safe
 * there (setpgid, sigprocmask, signal, dup2, setenv on its own copy of the
 * environment, setgroups and setres[ug]id, exec, write, _exit): what needs
 * a lookup (the user's passwd entry and groups) is done by the parent
 * before the fork (child_cred_sudo).
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
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

int child_drop(const struct child_cred *c)
{
	if (setgroups((size_t)c->ngroups, c->groups) < 0 ||
	    setresgid(c->gid, c->gid, c->gid) < 0 || setresuid(c->uid, c->uid, c->uid) < 0)
		return -errno;
	if (c->name) {
		setenv("HOME", c->home, 1);
		setenv("USER", c->name, 1);
		setenv("LOGNAME", c->name, 1);
	}
	return 0;
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
	if (s->cred && child_drop(s->cred) < 0)
		goto fail;
	if (s->path_search)
		execvp(s->argv[0], s->argv);
	else
		execv(s->argv[0], s->argv);
fail:
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

int child_cred_sudo(struct child_cred *ret)
{
	const char *su = getenv("SUDO_UID"), *sg = getenv("SUDO_GID");
	struct passwd pw, *pwp = NULL;
	char *e1, *e2, *buf;
	unsigned long uid, gid;
	long size = sysconf(_SC_GETPW_R_SIZE_MAX);

	*ret = (struct child_cred){ 0 };
	if (geteuid() != 0 || !su || !sg || !*su || !*sg)
		return 0;
	errno = 0;
	uid = strtoul(su, &e1, 10);
	gid = strtoul(sg, &e2, 10);
	if (errno || *e1 || *e2 || *su == '-' || *sg == '-' || uid == 0 ||
	    uid >= (unsigned long)(uid_t)-1 || gid >= (unsigned long)(gid_t)-1)
		return 0;
	ret->uid = (uid_t)uid;
	ret->gid = (gid_t)gid;
	buf = malloc(size > 0 ? (size_t)size : 16384);
	if (!buf)
		return -ENOMEM;
	if (getpwuid_r(ret->uid, &pw, buf, size > 0 ? (size_t)size : 16384, &pwp) == 0 && pwp) {
		int n = 0;

		ret->name = strdup(pw.pw_name);
		ret->home = strdup(pw.pw_dir);
		/* their groups as login gives them (the primary one first) */
		getgrouplist(pw.pw_name, ret->gid, NULL, &n);
		ret->groups = calloc((size_t)(n > 0 ? n : 1), sizeof(gid_t));
		if (ret->groups && n > 0 && getgrouplist(pw.pw_name, ret->gid, ret->groups, &n) >= 0)
			ret->ngroups = n;
	}
	free(buf);
	if (!ret->groups)
		ret->groups = calloc(1, sizeof(gid_t));
	if (!ret->groups || (pwp && (!ret->name || !ret->home))) {
		child_cred_release(ret);
		return -ENOMEM;
	}
	if (!ret->ngroups) {	/* no passwd entry: their primary group alone */
		ret->groups[0] = ret->gid;
		ret->ngroups = 1;
	}
	return 1;
}

void child_cred_release(struct child_cred *c)
{
	free(c->groups);
	free(c->name);
	free(c->home);
	*c = (struct child_cred){ 0 };
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
