// SPDX-License-Identifier: MIT
/*
 * watch_procs.c: the watcher's processes: /proc listed each wake, each new
 * process classified (kernel, the run's own by STALLSCOPE_RUN, exempt,
 * system, session, other), and those not the run's judged by their CPU
 * time over the run.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/grow.h"
#include "linux/watch_int.h"

struct pstat {
	pid_t ppid, pgrp;
	int tty;
	unsigned long long cpu, start;
	unsigned flags;
	char comm[32];
};

/* Parses /proc/PID/stat (comm may hold spaces and parentheses). */
static int pstat_read(pid_t pid, struct pstat *ret)
{
	char path[64], buf[1024], *rp, *lp;
	unsigned long long ut, st, start;
	int ppid, pgrp, tty;
	unsigned flags;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (w_read_small(path, buf, sizeof(buf)) <= 0)
		return -ESRCH;
	lp = strchr(buf, '(');
	rp = strrchr(buf, ')');
	if (!lp || !rp || rp < lp)
		return -EINVAL;
	snprintf(ret->comm, sizeof(ret->comm), "%.*s", (int)(rp - lp - 1), lp + 1);
	/* after ") ": state ppid pgrp session tty_nr tpgid flags minflt cminflt
	 * majflt cmajflt utime stime cutime cstime priority nice threads
	 * itrealvalue starttime */
	if (sscanf(rp + 2, "%*c %d %d %*d %d %*d %u %*u %*u %*u %*u %llu %llu %*d %*d %*d %*d %*d "
			   "%*d %llu",
		   &ppid, &pgrp, &tty, &flags, &ut, &st, &start) != 7)
		return -EINVAL;
	ret->ppid = ppid;
	ret->pgrp = pgrp;
	ret->tty = tty;
	ret->flags = flags;
	ret->cpu = ut + st;
	ret->start = start;
	return 0;
}

static struct proc *proc_find(struct watch *w, pid_t pid)
{
	for (size_t i = 0; i < w->nprocs; i++)
		if (w->procs[i].pid == pid)
			return &w->procs[i];
	return NULL;
}

/* Is PID the run's: the program, in its group, or below it (or below the
 * watcher itself)? Follows parents through the processes known. */
static bool proc_of_run(struct watch *w, const struct proc *p)
{
	pid_t prog = atomic_load(&w->program);
	int depth = 0;

	if (prog > 0 && p->pgrp == prog)
		return true;
	while (p && depth++ < 64) {
		if ((prog > 0 && p->pid == prog) || p->pid == w->self)
			return true;
		if (p->ppid <= 1)
			return false;
		p = proc_find(w, p->ppid);
	}
	return false;
}

static bool environ_has_run(struct watch *w, pid_t pid)
{
	char path[64], buf[65536], want[PATH_MAX + 32];
	ssize_t n, i = 0;
	size_t wl;

	if (!w->o.rundir)
		return false;
	snprintf(path, sizeof(path), "/proc/%d/environ", pid);
	n = w_read_small(path, buf, sizeof(buf));
	if (n <= 0)
		return false;
	wl = (size_t)snprintf(want, sizeof(want), "STALLSCOPE_RUN=%s", w->o.rundir);
	while (i < n) {
		size_t l = strnlen(buf + i, (size_t)(n - i));

		if (l == wl && !memcmp(buf + i, want, wl))
			return true;
		i += (ssize_t)l + 1;
	}
	return false;
}

static enum proc_class proc_classify(struct watch *w, struct proc *p, const struct pstat *ps)
{
	char path[64], buf[2048];

	if (p->pid == 2 || p->ppid == 2 || (ps->flags & 0x00200000))	/* PF_KTHREAD */
		return PROC_KERNEL;
	if (proc_of_run(w, p) || environ_has_run(w, p->pid))
		return PROC_RUN;
	if (w->has_re && regexec(&w->exempt_re, p->comm, 0, NULL, 0) == 0)
		return PROC_EXEMPT;
	snprintf(path, sizeof(path), "/proc/%d/cgroup", p->pid);
	if (w_read_small(path, buf, sizeof(buf)) > 0) {
		if (strstr(buf, "/session-"))
			return PROC_SESSION;
		if (strstr(buf, "system.slice") || strstr(buf, "init.scope"))
			return PROC_SYSTEM;
	}
	snprintf(path, sizeof(path), "/proc/%d/sessionid", p->pid);
	if (w_read_small(path, buf, sizeof(buf)) > 0 && strtoul(buf, NULL, 10) != SESSION_NONE)
		return PROC_SESSION;
	if (ps->tty != 0)
		return PROC_SESSION;
	return PROC_OTHER;
}

static struct proc *proc_add(struct watch *w, pid_t pid, const struct pstat *ps, bool is_new)
{
	struct proc *p;

	if (ARRAY_GROW(w->procs, w->aprocs, w->nprocs + 1) < 0)
		return NULL;
	p = &w->procs[w->nprocs++];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->ppid = ps->ppid;
	p->pgrp = ps->pgrp;
	p->start = ps->start;
	p->cpu0 = is_new ? 0 : ps->cpu;
	p->is_new = is_new;
	p->seen = true;
	snprintf(p->comm, sizeof(p->comm), "%s", ps->comm);
	return p;
}

static void proc_new(struct watch *w, struct proc *p, const struct pstat *ps)
{
	char detail[160], line[200];

	p->cls = proc_classify(w, p, ps);
	switch (p->cls) {
	case PROC_RUN:
		w_logline(w, '-', "new process %d (%s): the run's", p->pid, p->comm);
		break;
	case PROC_EXEMPT:
		w_logline(w, '-', "new process %d (%s): exempt", p->pid, p->comm);
		break;
	case PROC_SYSTEM:
		w_logline(w, 'i', "new process %d (%s): system service", p->pid, p->comm);
		break;
	case PROC_SESSION:
		snprintf(detail, sizeof(detail), "process %d (%s) started at %.0f s", p->pid,
			 p->comm, w_since(w));
		snprintf(line, sizeof(line), "new process %d (%s) in a login session", p->pid,
			 p->comm);
		w_counts(w, WATCH_PROCESS, detail, line);
		break;
	default:
		break;
	}
}

/* Lists /proc: new pids are read once; once a second every tracked
 * process's CPU time is checked against the 1 s rule. */
void w_procs_scan(struct watch *w)
{
	bool cpu_round = !w->procs_primed || ++w->scans % (1000 / TICK_MS) == 0;
	DIR *dir = opendir("/proc");
	struct dirent *e;
	size_t i;

	if (!dir)
		return;
	for (i = 0; i < w->nprocs; i++)
		w->procs[i].seen = false;
	while ((e = readdir(dir))) {
		struct pstat ps;
		struct proc *p;
		pid_t pid;

		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		pid = (pid_t)atoi(e->d_name);
		p = proc_find(w, pid);
		if (p && !cpu_round) {
			p->seen = true;
			continue;
		}
		if (pstat_read(pid, &ps) < 0)
			continue;
		if (p && p->start != ps.start) {	/* the pid was reused */
			*p = w->procs[--w->nprocs];
			p = NULL;
		}
		if (!p) {
			p = proc_add(w, pid, &ps, w->procs_primed);
			if (!p)
				continue;
			if (w->procs_primed)
				proc_new(w, p, &ps);
			else
				p->cls = PROC_UNKNOWN;	/* classified when it first uses CPU */
			continue;
		}
		p->seen = true;
		if (p->counted || p->cls == PROC_KERNEL || p->cls == PROC_RUN ||
		    p->cls == PROC_EXEMPT)
			continue;
		if ((ps.cpu - p->cpu0) * (1000000000ull / (unsigned long long)w->hz) >=
		    CPU_RULE_NS) {
			char detail[160], line[200];
			double cpu = (double)(ps.cpu - p->cpu0) / (double)w->hz;

			/* the name now, not at first sight: it may have exec'ed since,
			 * and an exec can make it exempt (its new name) or the run's
			 * (its new environment): first seen between fork and exec, a
			 * process was classified by its parent's name and environment */
			bool execd = strcmp(p->comm, ps.comm) != 0;

			snprintf(p->comm, sizeof(p->comm), "%s", ps.comm);
			if (p->cls == PROC_UNKNOWN || execd) {
				enum proc_class was = p->cls;

				p->cls = proc_classify(w, p, &ps);
				if (was != PROC_UNKNOWN && was != p->cls &&
				    (p->cls == PROC_RUN || p->cls == PROC_EXEMPT))
					w_logline(w, '-', "process %d (%s) after an exec: %s", p->pid,
						  p->comm, p->cls == PROC_RUN ? "the run's" : "exempt");
			}
			if (p->cls == PROC_KERNEL || p->cls == PROC_RUN || p->cls == PROC_EXEMPT)
				continue;
			p->counted = true;
			if (p->cls == PROC_SYSTEM) {
				w_logline(w, 'i', "process %d (%s), a system service, used %.1f s of CPU",
					  p->pid, p->comm, cpu);
				continue;
			}
			snprintf(detail, sizeof(detail), "process %d (%s) used %.1f s CPU", p->pid,
				 p->comm, cpu);
			snprintf(line, sizeof(line), "process %d (%s) used %.1f s of CPU during the run",
				 p->pid, p->comm, cpu);
			w_counts(w, WATCH_PROCESS, detail, line);
		}
	}
	closedir(dir);
	/* forget the processes that are gone */
	for (i = 0; i < w->nprocs;) {
		if (!w->procs[i].seen && cpu_round)
			w->procs[i] = w->procs[--w->nprocs];
		else
			i++;
	}
	w->procs_primed = true;
}
