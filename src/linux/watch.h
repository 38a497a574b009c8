/* SPDX-License-Identifier: MIT */
/*
 * watch.h: the interference detector's engine. A thread that watches input
 * devices, VT switches, login sessions, the kernel log and /proc while a run
 * goes on, classifies what it sees by core/watchrules.h, and writes every
 * finding as a line of interference.log:
 *
 *   ! 12.345 key press on 'AT Translated Set 2 keyboard'     counts
 *   - 13.002 mouse bump: 40 counts over 0.30 s on 'USB mouse' does not count
 *   i 20.100 new process 812 (cron): system service          information
 *
 * Times are seconds since the watch started. Nothing written contains a key
 * code. The paths are injectable so tests can feed FIFOs and plain files.
 *
 * Costs: one poll loop waking at least every 250 ms; /proc listed every
 * 250 ms, a new pid's files read once, every tracked process's stat once a
 * second for the CPU rule.
 */
#ifndef SS_LINUX_WATCH_H
#define SS_LINUX_WATCH_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "core/strbuf.h"

/* Where the watcher looks unless told (the options' defaults). */
#define WATCH_DEFAULT_INPUT_DIR "/dev/input"
#define WATCH_DEFAULT_VT_FILE "/sys/class/tty/tty0/active"
#define WATCH_DEFAULT_SESSIONS_DIR "/run/systemd/sessions"
#define WATCH_DEFAULT_KMSG "/dev/kmsg"

struct watch_opts {
	const char *input_dir;		/* default /dev/input */
	const char *vt_file;		/* default /sys/class/tty/tty0/active */
	const char *sessions_dir;	/* default /run/systemd/sessions */
	const char *kmsg;		/* default /dev/kmsg */
	const char *log_path;		/* interference.log; "-" stdout; NULL writes none
					 * (appended to, never through a link: sf_open_append,
					 * as the sudo user) */
	int log_fd;			/* or a log its caller opened (> 2: a dup is kept);
					 * 0: log_path decides */
	const char *rundir;		/* processes with STALLSCOPE_RUN=<rundir> are the run's */
	const char *exempt_cmd;		/* extended regex on a process's comm, or NULL */
	const char *const *exempt_holders;	/* programs whose input devices are exempt */
	size_t nexempt_holders;
	const char *expect_vt;		/* VT numbers the run may switch to ("2,7"), or NULL */
	bool no_procs;			/* skip the /proc rules */
};

struct watch_result {
	bool interfered;
	char *summary;		/* run.ini's interference= (caller frees) */
	unsigned ndevices;	/* input devices watched, at most at once */
	unsigned counted;	/* '!' lines */
	double cpu_s;		/* the watcher thread's CPU time */
	long maxrss_kb;		/* the whole process's peak RSS (getrusage) */
};

struct watch;

/*
 * Starts watching in a thread of its own. Returns 0 and *ret, or a negative
 * errno with a message in ERR (an unreadable log path, a bad regex). Sources
 * that cannot be opened (no /dev/input, not root for /dev/kmsg) are written
 * to the log as "#" lines and skipped: the summary says what was watched.
 */
int watch_start(const struct watch_opts *o, struct watch **ret, struct strbuf *err);

/* The run's program: it, its descendants and its process group are exempt. */
void watch_set_program(struct watch *w, pid_t pid);

/* Stops the thread, writes the summary line, fills *ret (summary owned by the
 * caller) and frees W. Returns 0 or a negative errno. */
int watch_stop(struct watch *w, struct watch_result *ret);

/*
 * The kernel's log from its start, for watch --scan: PATH (NULL:
 * WATCH_DEFAULT_KMSG) read to its end without blocking, one record a line
 * ("prio,seq,usec,flags;text"), appended to RET, FILE_LOG_MAX bytes at most
 * (core/file.h). 0, or a negative errno with the message in ERR (not root:
 * -EPERM where the kernel restricts it).
 */
int watch_kmsg_dump(const char *path, struct strbuf *ret, struct strbuf *err);

#endif
