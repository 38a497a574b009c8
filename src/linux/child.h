/* SPDX-License-Identifier: MIT */
/*
 * child.h: starting a program and stopping it, for record (the program
 * recorded), watch (the command watched) and bench (each run's recorder).
 *
 * child_spawn forks and execs with an exec-error pipe: a program that cannot
 * be run is the caller's error (ENOENT, EACCES) at once, not an exit status
 * 127 found later. child_stop sends a signal, waits a grace period, then
 * SIGKILLs what is left.
 */
#ifndef SS_LINUX_CHILD_H
#define SS_LINUX_CHILD_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* Whom a child runs as: the user who ran sudo, with their groups and
 * their HOME, USER and LOGNAME (child_cred_sudo). */
struct child_cred {
	uid_t uid;
	gid_t gid;
	gid_t *groups;		/* supplementary groups (getgrouplist) */
	int ngroups;
	char *name;		/* the passwd entry's name and home; NULL when the uid */
	char *home;		/* has no entry (then the environment keeps its own) */
};

struct child_spawn {
	char *const *argv;	/* argv[0] is run */
	char **envp;		/* its environment; NULL: ours */
	bool path_search;	/* look argv[0] up in $PATH (execvp) */
	bool own_group;		/* in a process group of its own, so that a stop
				 * reaches what it starts too */
	int in_fd, out_fd, err_fd;	/* made its 0, 1, 2; -1: ours */
	const sigset_t *mask;	/* its signal mask; NULL: nothing blocked */
	const char *run_env;	/* STALLSCOPE_RUN's value in it (the processes of a
				 * run, for the watcher); NULL: not set */
	const struct child_cred *cred;	/* run as this user; NULL: as we are */
};

#define CHILD_SPAWN_INIT { .in_fd = -1, .out_fd = -1, .err_fd = -1 }

/*
 * Starts S->argv and waits for its exec. SIGINT, SIGTERM, SIGHUP, SIGCHLD
 * and SIGPIPE are at their defaults in it (whatever ours are). With
 * S->cred it drops to that user (groups, gid, uid: setgroups, setresgid,
 * setresuid, all three ids, so there is no way back) before the exec; its
 * dumpable flag is left to the exec, as for any program the user starts.
 * Returns its pid, or a negative errno: of pipe or fork, of the drop, or
 * of the exec, which the child reports through a close-on-exec pipe (the
 * child is then reaped).
 */
pid_t child_spawn(const struct child_spawn *s);

/*
 * The user a program we start runs as under sudo: when we are root and
 * SUDO_UID/SUDO_GID name a user other than root, fills RET (their groups
 * and passwd entry looked up here, before any fork) and returns 1; else 0
 * (run it as we are). A negative errno when the lookup fails for want of
 * memory. child_cred_release frees what RET holds.
 */
int child_cred_sudo(struct child_cred *ret);
void child_cred_release(struct child_cred *c);

/* Becomes C's user for good (setgroups, setresgid, setresuid) with their
 * HOME, USER and LOGNAME: for a process about to exec the user's program
 * in its own place (prefetch run). 0 or a negative errno. */
int child_drop(const struct child_cred *c);

/* Makes this process the subreaper of what its children leave behind (a
 * launcher's game, after a double fork). 0 or a negative errno. */
int child_subreaper(void);

struct child_stop {
	pid_t pgid;		/* a process group to signal; 0: none (it has gone) */
	pid_t pid;		/* another process to signal (one that may have left
				 * the group); 0: none */
	int sig;		/* the first signal; SIGKILL after grace_ns */
	uint64_t grace_ns;
	/* Whether all of it has gone (reaping what has ended); may clear pgid
	 * or pid when that one has gone, so that no later signal reaches a
	 * number used again. */
	bool (*gone)(struct child_stop *s);
	void (*tick)(struct child_stop *s);	/* every 10 ms while waiting; NULL */
	bool (*hurry)(struct child_stop *s);	/* true: SIGKILL now; NULL */
	void (*on_kill)(struct child_stop *s);	/* as SIGKILL is sent; NULL */
	void *ctx;
};

/* Stops S's processes: S->sig, then SIGKILL when they are still there
 * after the grace period (or when hurry says so). Returns 0 when they went
 * by S->sig, 1 when SIGKILL was sent. */
int child_stop(struct child_stop *s);

#endif
