/* SPDX-License-Identifier: MIT */
/*
 * watch_int.h: what the watcher's files share (watch.c: the thread, its
 * loop, start and stop, and the log; watch_input.c: input devices;
 * watch_session.c: login sessions, the VT and the kernel log;
 * watch_procs.c: the processes and their CPU). Not for use outside
 * src/linux/watch*.c.
 */
#ifndef SS_LINUX_WATCH_INT_H
#define SS_LINUX_WATCH_INT_H

#include <pthread.h>
#include <regex.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "core/strbuf.h"
#include "core/watchrules.h"
#include "linux/watch.h"

#define SYSFS_MAGIC 0x62656572
#define TICK_MS 250
#define MAX_DEVS 64
#define CPU_RULE_NS 1000000000ull	/* 1 s of CPU during the run counts */
#define SESSION_NONE 4294967295u

enum proc_class {
	PROC_UNKNOWN,	/* not yet classified */
	PROC_KERNEL,	/* a kernel thread */
	PROC_RUN,	/* the run's own (or the watcher's) */
	PROC_EXEMPT,	/* --exempt-cmd */
	PROC_SYSTEM,	/* a system service */
	PROC_SESSION,	/* in a login session or on a terminal */
	PROC_OTHER,	/* none of those: still watched for CPU */
};

struct dev {
	int fd;
	bool fifo;
	bool exempt;
	char file[64];		/* "event3" */
	char name[128];		/* the device's own name, or the file name */
	char holder[32];	/* the exempt holder's comm */
	struct watch_input rules;
	double last_ev;		/* the last event's own time, s */
	double last_read;	/* when it was read, on the watch clock */
};

struct proc {
	pid_t pid, ppid, pgrp;
	unsigned long long start;	/* starttime: tells a reused pid apart */
	unsigned long long cpu0;	/* utime + stime at first sight (ticks) */
	enum proc_class cls;
	bool is_new;			/* appeared after the watch started */
	bool counted;			/* the CPU rule fired */
	bool seen;			/* in the latest listing */
	char comm[32];
};

struct watch {
	struct watch_opts o;
	pthread_t thread;
	int stop_pipe[2];
	FILE *log;
	double t0;
	long hz;
	pid_t self;
	_Atomic pid_t program;

	int ino;
	int wd_input, wd_sessions;
	struct strbuf sessions;		/* "\n"-separated session ids seen */
	struct dev devs[MAX_DEVS];
	unsigned ndevs, max_devs;

	int vt_fd;
	bool vt_sysfs;
	char vt_cur[32];

	int kmsg_fd;
	char kmsg_buf[8192];
	size_t kmsg_len;

	struct proc *procs;
	size_t nprocs, aprocs;
	bool procs_primed;
	unsigned scans;

	regex_t exempt_re;
	bool has_re;

	struct watch_tally tally;
	unsigned counted;
	double cpu_s;
};

/* watch.c */
double w_since(const struct watch *w);	/* seconds on the watch's clock */
/* A line of the log: "[S] MARK text" (MARK '!' for interference). */
void w_logline(struct watch *w, char mark, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Counts a finding of KIND in the tally (its detail, its log line). */
void w_counts(struct watch *w, enum watch_kind kind, const char *detail, const char *line);
/* Reads a small file whole (NUL-terminated); its length or -errno. */
ssize_t w_read_small(const char *path, char *buf, size_t size);
void w_chomp(char *s);	/* drops a trailing newline */

/* watch_input.c */
bool w_is_event_file(const char *name);
struct dev *w_dev_find(struct watch *w, const char *file);
struct dev *w_dev_open(struct watch *w, const char *file);
void w_dev_close(struct watch *w, struct dev *d);
void w_dev_read(struct watch *w, struct dev *d);
void w_dev_tick(struct watch *w, struct dev *d, bool force);
void w_input_open_all(struct watch *w);

/* watch_session.c */
void w_sessions_prime(struct watch *w);
void w_session_new(struct watch *w, const char *id);
void w_vt_open(struct watch *w);
void w_vt_check(struct watch *w);
void w_kmsg_open(struct watch *w);
void w_kmsg_read(struct watch *w);

/* watch_procs.c */
void w_procs_scan(struct watch *w);

#endif
