/* SPDX-License-Identifier: MIT */
/*
 * watchscan.h: `watch --scan`'s engine, what the saved files of old runs
 * still show of interference (docs/WATCH.md): a run's program log against
 * the rules file's interfere_re of its program, and the kernel's and the X
 * server's logs within the run's time. Returns data and never prints; the
 * command (src/cmd/watch.c) prints it.
 *
 * A run's time comes from its run.ini (clock_mono_ns, duration_recorded_s:
 * CLOCK_MONOTONIC, on which the kernel's and Xorg's stamps also are); its
 * program log's lines are matched without record's "[S] " stamp, as the
 * program wrote them (core/logstamp.h).
 */
#ifndef SS_RUN_WATCHSCAN_H
#define SS_RUN_WATCHSCAN_H

#include <stdbool.h>
#include <stddef.h>

#include "core/reload.h"
#include "core/strbuf.h"

/* The logs every run is compared with, loaded once. */
struct watchscan_logs {
	struct strbuf kernel;		/* the kernel's log; empty: not checked */
	struct strbuf kernel_why;	/* why the kernel's log is not checked, or empty */
	struct strbuf xorg;		/* the X server's log; empty: none found */
	bool xorg_found;		/* a log of the X server was read */
};

/*
 * Loads the kernel's log: DMESG (a saved file, read whole up to
 * FILE_LOG_MAX), else the kernel's own (linux/watch.h's watch_kmsg_dump); a
 * failure there is not an error, only said in kernel_why. And the X
 * server's: XORG (an error when it cannot be read), else the first of
 * $HOME/.local/share/xorg/Xorg.0.log and /var/log/Xorg.0.log that reads.
 * Returns 0 with *RET filled (watchscan_logs_release), or a negative errno
 * with the message in ERR.
 */
int watchscan_logs_load(const char *dmesg, const char *xorg, struct watchscan_logs *ret,
			struct strbuf *err);
void watchscan_logs_release(struct watchscan_logs *l);

/* Where a finding was seen. */
enum watchscan_from {
	WATCHSCAN_PROGRAM_LOG,	/* a program-log line matched an interfere_re */
	WATCHSCAN_KERNEL,	/* the kernel's log: a USB device */
	WATCHSCAN_XORG,		/* the X server's log: an input device, a VT switch */
};

struct watchscan_finding {
	enum watchscan_from from;
	int line;		/* PROGRAM_LOG: the line's number in the program log */
	const char *program;	/* PROGRAM_LOG: the rules' section (of the rules) */
	double at_s;		/* KERNEL, XORG: seconds after the run's start */
	char what[200];		/* KERNEL, XORG: what it was ("kernel: USB device connected") */
};

/* What one run shows. */
struct watchscan_run {
	struct watchscan_finding *f;	/* in the order found: program log, kernel, X */
	size_t n, alloc;
	bool times_known;	/* run.ini gives the run's time: the logs were checked */
};

/*
 * Scans the run directory RUN: its program log against RULES' interfere_re
 * of its program (run.ini's program=, its base name; RULES may be NULL),
 * and LOGS within its time. Returns 0 with *RET filled
 * (watchscan_run_release; the findings point into RULES), or a negative
 * errno with the message in ERR (RUN has no run.ini that reads, a regex of
 * RULES does not compile).
 */
int watchscan_run(const char *run, const struct reload_rules *rules,
		  const struct watchscan_logs *logs, struct watchscan_run *ret, struct strbuf *err);
void watchscan_run_release(struct watchscan_run *r);

#endif
